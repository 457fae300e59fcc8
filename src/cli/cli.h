/* SPDX-License-Identifier: MIT */
#ifndef WARDER_CLI_H
#define WARDER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "json/json.h"
#include "session/session-json.h"
#include "session/session.h"
#include "warder/warder.h"

/* The last line of every help text that cites sections of the semantics by number. */
#define CLI_SECTIONS_NOTE                                                                          \
        "Section numbers such as §3.2 refer to docs/semantics.md, warder's semantics.\n"

/* Exit codes shared by every subcommand. */
enum {
        CLI_OK = 0,
        CLI_DENY = 1, /* also: a test failed, a PATH did not match */
        CLI_USAGE = 2,
        CLI_ASK = 3,
        CLI_ERROR = 4,
};

/* Options every subcommand accepts: before its name, and (except the policy options of the
 * guarded operations) after it up to its first operand. Each may be given once. */
struct cli_common {
        const char *rules;         /* --rules FILE */
        const char *preset;        /* --preset NAME */
        const char *root;          /* --root DIR */
        const char *home;          /* --home DIR */
        const char *audit;         /* --audit FILE */
        bool json;                 /* --json */
        bool interactive;          /* --interactive */
        const char *approve_token; /* --approve-token TOKEN */
        const char *as_user;       /* --as-user USER|UID[:GID[:GROUP,…]] */
        unsigned seen_;            /* the options given so far (a second one is a usage error) */
};

/*
 * --json: one JSON document per call on stdout, on every exit path. cli_json_mode is set
 * before any parsing (a --json anywhere before `--`), so that usage errors see it.
 */
extern bool cli_json_mode;
/* Prints `v` (stolen) as one line on stdout; 0, or CLI_ERROR when it could not. */
int cli_json_print(json_t *v);
/* When --json was given and nothing was printed, prints the last error reported (usage,
 * ruleset or other) as {"status":"error","error":{"code","message",…},"exit_status"}. main()
 * calls it for every non-zero exit. */
void cli_json_fail(int exit_code);

/*
 * Reads the common options before the command's name from argv[1..]; *command receives the
 * index of the first other argument. Returns 0, or CLI_USAGE after printing a hint (an option
 * given twice, a missing value).
 */
int cli_common_parse(int argc, char **argv, struct cli_common *c, int *command);

/*
 * Prepares a command's arguments (argv[0] is its name): takes the common options found before
 * its first operand (a guarded operation accepts only --json there), keeps the command's own
 * options with their values, and puts `--` before the first operand, so that nothing after
 * it is ever read as an option. *out (free() it, not its strings) and *out_argc receive the
 * new vector. Returns 0, or CLI_USAGE / CLI_ERROR after printing the reason.
 */
int cli_command_args(int argc, char **argv, struct cli_common *c, int *out_argc, char ***out);

/* The root and home to use: --root/--home, else the current directory and $HOME.
 * The returned strings are freed with free(). Returns 0 or CLI_ERROR (printed). */
int cli_common_dirs(const struct cli_common *c, char **root, char **home);

/* Loads --rules or --preset (default preset "default") with the given root and home.
 * Prints `file:line:col: error: …` on failure and returns CLI_USAGE; 0 on success. */
int cli_load_ruleset(const struct cli_common *c, const char *root, const char *home,
                     warder_ruleset **out);

/* Prints a ruleset load error as `file:line:col: error: …` (or `warder: error: …`). */
void cli_print_load_error(const struct warder_error *err, int rc);

/* Prints "warder CMD: message" and "Try 'warder CMD --help'." on stderr; returns CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "warder CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes bytes so that they are safe on a terminal: control bytes, DEL and backslash are
 * escaped (\n, \t, \\, \xHH); other bytes, UTF-8 included, pass through. */
void cli_write_safe(FILE *f, const char *s, size_t len);

/*
 * --as-user (§6.6): parses `c->as_user` (USER or UID, then optionally `:GID`, then optionally
 * `:GROUP,GROUP…` — numeric; a USER's gid is its primary group; no supplementary group unless
 * given) into `lo`: the local backend's file operations act as that user, and its commands (when
 * lo->exec) drop to that uid and gid. Nothing when --as-user was not given. The ids live in
 * static storage (one per process). Returns 0, or CLI_USAGE after printing the reason.
 */
int cli_as_user(const struct cli_common *c, const char *cmd, struct warder_local_options *lo);

/* A session (src/session) over the local backend rooted at --root, with --rules/--preset,
 * --audit, --interactive and --approve-token applied. */
struct cli_session {
        struct cli_common *c;
        char *root, *home;
        struct warder_session *session;
        FILE *audit;
        bool tty;
};

/* Opens the session (local_opts may be NULL for the defaults; mask_denied enables the local
 * backend's masking, which the guard drives from its ruleset; env: the commands' environment,
 * NULL for the default). Prints and returns an exit code on failure; call cli_session_close()
 * in every case. */
int cli_session_open(struct cli_session *s, const char *name,
                     const struct warder_local_options *local_opts, bool mask_denied,
                     const char *const *env);
void cli_session_close(struct cli_session *s);

/* Runs one request through the session, with --approve-token. */
int cli_session_run(struct cli_session *s, struct warder_session_request *req,
                    struct warder_session_result *res, struct warder_error *err);

/* Prints a failed guarded operation (text or --json; an ask shows its approval token);
 * returns 1 deny, 3 ask, 4 other. */
int cli_report_failure(const struct cli_session *s, const char *name, const char *target, int rc,
                       const struct warder_error *err, const struct warder_session_result *res);

/* {"op","target","status":"ok"} for a successful operation's JSON (NULL on ENOMEM). */
json_t *cli_json_ok(const char *name, const char *target);

/* The real form of `target` resolved by the local backend rooted at `root` (semantics §3.2):
 * *out is set (free() it) when it differs from the literal form. Returns 1 when the target
 * lies under the root but its real form cannot be resolved (a symlink leaving the root, a
 * loop, a directory that cannot be searched), with *why (free() it) saying what failed: the
 * decision must then be at least ask (warder_session_unresolved()). A target outside the root, or
 * under a root that does not exist (nothing of it exists: real == literal), is checked on
 * its literal form. */
int cli_resolve_real(const char *root, const char *home, const char *target, char **out,
                     char **why);

/* Prints a decision for people: the action, the target, and why (rule, source, reason). */
void cli_print_decision(FILE *f, const char *target, const struct warder_decision *d);

/* Exit code for an action: 0 allow, 1 deny, 3 ask. */
int cli_action_exit(enum warder_action action);

/* True when `arg` is --help or -h. */
bool cli_is_help(const char *arg);

/* Parses a non-negative integer option value; returns false on garbage or overflow. */
bool cli_parse_u64(const char *s, unsigned long long *out);

/* Parses a duration in seconds (a positive decimal, at most `max`) into milliseconds, rounded;
 * false on garbage, 0, a negative value, more than `max`, or less than half a millisecond. */
bool cli_parse_seconds_ms(const char *v, double max, uint32_t *out);

/* Subcommands: argv[0] is the subcommand's name. Return the process exit code. */
int cli_cmd_match(int argc, char **argv, struct cli_common *c);
int cli_cmd_normalize(int argc, char **argv, struct cli_common *c);
int cli_cmd_check(int argc, char **argv, struct cli_common *c);
int cli_cmd_explain(int argc, char **argv, struct cli_common *c);
int cli_cmd_lint(int argc, char **argv, struct cli_common *c);
int cli_cmd_test(int argc, char **argv, struct cli_common *c);
int cli_cmd_op(int argc, char **argv, struct cli_common *c); /* read write edit ls glob grep */
int cli_cmd_exec(int argc, char **argv, struct cli_common *c);
int cli_cmd_serve(int argc, char **argv, struct cli_common *c);
int cli_cmd_mcp(int argc, char **argv, struct cli_common *c);
int cli_cmd_hook(int argc, char **argv, struct cli_common *c);
int cli_cmd_import(int argc, char **argv, struct cli_common *c);

#endif
