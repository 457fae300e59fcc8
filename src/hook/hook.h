/* SPDX-License-Identifier: MIT */
/*
 * warder as the decision-maker of the agents people already run (docs/hooks.md, semantics §9):
 * one event of an agent's pre-tool hook in (Claude Code's PreToolUse, Gemini CLI's
 * BeforeTool), the agent's documented answer out. Each agent protocol is a table in a file of
 * its own (claude-code.c, gemini-cli.c): its event name, its tools and their input fields, and
 * the encoder of its answer; this file's functions do the rest for both.
 *
 * Every decision goes through a session (src/session): door → session → guard → backend.
 * Nothing here prints or reads stdin: an answer is returned as the bytes for stdout and stderr
 * and the exit code, so that the command, the tests and the fuzz harness run the same code.
 * Every error ends in a deny that says what broke (§9.3).
 */
#ifndef WARDER_HOOK_H
#define WARDER_HOOK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "session/session.h"
#include "warder/warder.h"

/* What warder answers an agent. */
enum warder_hook_verdict {
        WARDER_HOOK_NO_OPINION = 0, /* the agent's own permission rules decide */
        WARDER_HOOK_ALLOW,
        WARDER_HOOK_ASK,
        WARDER_HOOK_DENY,
};

/* How warder reads a tool's input (the mapping table of §9.2). */
enum warder_hook_kind {
        WARDER_HOOK_READ,      /* read of each path field */
        WARDER_HOOK_READ_MANY, /* read of each path or pattern of a list field */
        WARDER_HOOK_WRITE,     /* write of each path field */
        WARDER_HOOK_EDIT,      /* edit (and read, §4.5) of each path field */
        WARDER_HOOK_LS,        /* ls of the directory, and of the names in it */
        WARDER_HOOK_GLOB,      /* glob of the base, and of the names under it */
        WARDER_HOOK_GREP,      /* grep of the base, and grep and read of the files it searches */
        WARDER_HOOK_EXECUTE,   /* execute of the command, from its working directory */
};

/* One tool of an agent. Field lists are NULL-terminated; every field present is decided. */
struct warder_hook_tool {
        const char *name;
        enum warder_hook_kind kind;
        const char *const *paths;   /* path fields (READ_MANY: list fields; EXECUTE: command) */
        bool required;              /* one of `paths` must be present */
        const char *const *pattern; /* GLOB: the pattern; GREP: the file filter; or NULL */
        const char *const *cwd;     /* EXECUTE: the working directory fields, or NULL */
};

struct warder_hook_answer;

/* One agent's protocol. */
struct warder_hook_protocol {
        const char *name;        /* "claude-code" */
        const char *agent;       /* "Claude Code", for messages */
        const char *event;       /* the one event it answers: "PreToolUse" */
        const char *project_env; /* the project directory variable it sets for hooks */
        const struct warder_hook_tool *tools;
        size_t ntools;
        /* Fills the answer's exit code and bytes for a verdict and its one-line reason. */
        int (*encode)(enum warder_hook_verdict verdict, const char *reason,
                      struct warder_hook_answer *ans);
        /* Settings (warder hook install): the directory under the project or home, and the
         * key of the event under "hooks". */
        const char *settings_dir; /* ".claude" */
};

extern const struct warder_hook_protocol warder_hook_claude_code;
extern const struct warder_hook_protocol warder_hook_gemini_cli;

/* The protocol called `name` ("claude-code", "gemini-cli"), or NULL. */
const struct warder_hook_protocol *warder_hook_protocol_find(const char *name);

/* Limits. */
#define WARDER_HOOK_MAX_EVENT ((size_t)32 << 20) /* bytes of one event */
#define WARDER_HOOK_MAX_SCAN  20000u             /* entries one scope scan visits */
#define WARDER_HOOK_MAX_LIST  1024u              /* items of a list field */

struct warder_hook_config {
        const struct warder_hook_protocol *protocol;
        struct warder_session_source source; /* the ruleset */
        /* Root of the rules: this, else `project_dir`, else the event's `cwd`. */
        const char *root;
        const char *project_dir; /* the agent's project directory variable, or NULL */
        const char *home;        /* NULL: `~` patterns do not load, `~` paths are relative */
        FILE *audit;             /* one JSON line per answered event; NULL: none */
        /* Tools warder does not know: no opinion, unless `unknown_set`. */
        bool unknown_set;
        enum warder_action unknown;
        bool ask_as_deny; /* an agent that cannot ask: ask becomes deny */
        size_t max_scan;  /* 0: WARDER_HOOK_MAX_SCAN */
};

/* What to write and how to exit. `out` and `err` are NUL-terminated; free with
 * warder_hook_answer_free(). */
struct warder_hook_answer {
        enum warder_hook_verdict verdict;
        int exit_code;
        char *out;
        size_t out_len;
        char *err;
        size_t err_len;
        char *reason; /* the one-line reason (also in out/err), or NULL */
};

/*
 * Answers one event (`len` bytes, not necessarily NUL-terminated). Always fills `ans` with an
 * answer to send; a malformed event, an unknown event name, a ruleset that does not load and
 * every internal error are a deny whose reason says what broke. Returns 0, or WARDER_ENOMEM
 * when even the deny could not be built: ans->out and ans->err are then NULL, and the caller
 * exits with ans->exit_code (2, a deny for both agents) after writing
 * warder_hook_nomem_reason on stderr.
 */
extern const char warder_hook_nomem_reason[];
int warder_hook_decide(const struct warder_hook_config *cfg, const char *event, size_t len,
                       struct warder_hook_answer *ans);
void warder_hook_answer_free(struct warder_hook_answer *ans);

/* For the encoders: sets ans->out / ans->err to copies (a NULL text is empty). */
int warder_hook_answer_set(struct warder_hook_answer *ans, int exit_code, const char *out,
                           const char *err);
/* For the encoders: `o` (stolen; NULL: out of memory) as one line on stdout; a deny exits 2
 * with the reason on stderr too, anything else exits 0. */
int warder_hook_answer_json(struct warder_hook_answer *ans, enum warder_hook_verdict v, json_t *o,
                            const char *reason);

/*
 * The settings entry that runs `command` for every tool call of `p`'s event, merged into
 * `settings` (an object, changed in place): hooks.<event> gets a matcher group for all tools,
 * unless a group already runs `command`; a hook of another `warder hook <agent>` command is
 * replaced; every other key and hook is kept. Returns 0 (*changed says whether anything
 * changed), or WARDER_EINVAL with *why set when the settings hold something warder cannot
 * merge into (e.g. "hooks" that is not an object).
 */
int warder_hook_settings_merge(const struct warder_hook_protocol *p, json_t *settings,
                               const char *command, bool *changed, const char **why);

/*
 * Claude Code's permissions.allow/ask/deny (settings JSON) as a warder ruleset (YAML text on
 * *yaml, free()). Every entry that cannot be translated exactly is reported through `note`
 * (the entry, the list it came from, and why); it is then left out or translated more strictly,
 * never more permissively. `anchor` is the directory Claude Code anchors `/path` rules of
 * this settings file at (the project for project settings, ~/.claude for user settings).
 * Returns 0, or WARDER_EINVAL with *why when `settings` has no "permissions" object.
 */
typedef void (*warder_hook_note_fn)(void *ud, const char *list, const char *entry, const char *why);
int warder_hook_import_claude(const json_t *settings, const char *anchor, char **yaml,
                              warder_hook_note_fn note, void *ud, const char **why);

#endif
