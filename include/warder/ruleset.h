/* SPDX-License-Identifier: MIT */
#ifndef WARDER_RULESET_H
#define WARDER_RULESET_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Actions (§1.1). The numeric order is the strictness order: deny > ask > allow. */
enum warder_action {
        WARDER_ALLOW = 0,
        WARDER_ASK = 1,
        WARDER_DENY = 2,
};

/* Operations (§1.2), exactly seven. */
enum warder_op {
        WARDER_OP_READ = 0,
        WARDER_OP_WRITE,
        WARDER_OP_EDIT,
        WARDER_OP_LS,
        WARDER_OP_GLOB,
        WARDER_OP_GREP,
        WARDER_OP_EXECUTE,
};
#define WARDER_OP_COUNT 7

/* Precedence of path operations (§1.5). */
enum warder_precedence {
        WARDER_FIRST_MATCH = 0,
        WARDER_STRICTEST = 1,
};

/* Which path form decided (§3.3). NONE: no rule matched (the operation's default decided). */
enum warder_form {
        WARDER_FORM_NONE = 0,
        WARDER_FORM_LITERAL = 1,
        WARDER_FORM_REAL = 2,
        WARDER_FORM_BOTH = 3,
};

WARDER_API const char *warder_action_name(enum warder_action action); /* "allow" … */
WARDER_API const char *warder_op_name(enum warder_op op);             /* "read" … */
WARDER_API const char *warder_form_name(enum warder_form form);       /* "literal" … */
/* Parse a name; WARDER_EINVAL when unknown. */
WARDER_API int warder_action_parse(const char *name, enum warder_action *out);
WARDER_API int warder_op_parse(const char *name, enum warder_op *out);

/* A loaded ruleset: immutable, reference-counted, shareable across threads. */
typedef struct warder_ruleset warder_ruleset;

struct warder_ruleset_options {
        unsigned version;
        /* Absolute root that anchors relative patterns (§2.11). NULL: the process's current
         * directory at load time. */
        const char *root;
        /* Absolute home directory for `~` patterns. NULL: a `~` pattern is a load error. */
        const char *home;
        /* Base directory for a relative `extends` of a ruleset loaded from a string.
         * NULL: the current directory. */
        const char *base_dir;
        /* Limits; 0 means the default of §1.8/§2.13. */
        size_t max_file_size; /* default 1 MiB */
        size_t max_depth;     /* default 64 */
        size_t max_nodes;     /* default 1,000,000 */
        size_t max_rules;     /* default 100,000 */
        /* Version 2. What compiling may cost, counted after alias expansion (an alias counts
         * every time it is used), so a small file cannot make the loader work for minutes:
         * the bytes of every rule's pattern as written (default 16 MiB), and the bytes of
         * every alternative the patterns expand to once anchored, plus 64 per alternative
         * and 24 per wildcard, twice for a rule that folds case (default 32 MiB). Beyond
         * either: WARDER_ETOOBIG, reported at the rule that crossed it. */
        size_t max_pattern_bytes;
        size_t max_compiled_bytes;
};

#define WARDER_RULESET_OPTIONS_VERSION 2
#define WARDER_RULESET_OPTIONS_INIT                                                                \
        {                                                                                          \
                WARDER_RULESET_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0                 \
        }

/* Initialises `opts` as WARDER_RULESET_OPTIONS_INIT does, for a caller built against
 * `version` of the struct (only that version's members are written); WARDER_EINVAL for a
 * version this library does not know. */
WARDER_API int warder_ruleset_options_init(struct warder_ruleset_options *opts, unsigned version);

/*
 * Loading. On failure returns WARDER_EPARSE (or ETOOBIG for a limit, ENOENT/EIO for the
 * file) and fills err with file, line, column and a one-line reason; nothing is returned.
 * `opts` may be NULL for the defaults. `name` names a string source in messages (NULL:
 * "<string>").
 */
WARDER_API int warder_ruleset_load_file(warder_ruleset **out, const char *path,
                                        const struct warder_ruleset_options *opts,
                                        struct warder_error *err);
WARDER_API int warder_ruleset_load_string(warder_ruleset **out, const char *yaml, size_t len,
                                          const char *name,
                                          const struct warder_ruleset_options *opts,
                                          struct warder_error *err);
WARDER_API int warder_ruleset_load_preset(warder_ruleset **out, const char *preset,
                                          const struct warder_ruleset_options *opts,
                                          struct warder_error *err);

/* Takes another reference; returns `rs`. */
WARDER_API warder_ruleset *warder_ruleset_ref(warder_ruleset *rs);
/* Drops a reference; the last one frees. NULL is accepted. */
WARDER_API void warder_ruleset_free(warder_ruleset *rs);

/*
 * A digest of everything that decides: root, home, the defaults, precedence, fold_case and
 * every rule (action, pattern, id, reason, source). "sha256:" and 64 hex digits; two rulesets
 * with the same digest make the same decisions. Approvals bind to it so that a ruleset that
 * changed does not inherit them. The string belongs to the ruleset; NULL only on ENOMEM.
 */
WARDER_API const char *warder_ruleset_digest(const warder_ruleset *rs);

/* Embedded presets (§1.6): NULL-terminated list of names, and the YAML text of one. */
WARDER_API const char *const *warder_preset_names(void);
WARDER_API const char *warder_preset_source(const char *preset, size_t *len);

/* Accessors. Strings belong to the ruleset. */
WARDER_API const char *warder_ruleset_root(const warder_ruleset *rs);
WARDER_API const char *warder_ruleset_home(const warder_ruleset *rs); /* may be NULL */
WARDER_API enum warder_precedence warder_ruleset_precedence(const warder_ruleset *rs);
WARDER_API bool warder_ruleset_fold_case(const warder_ruleset *rs);
WARDER_API enum warder_action warder_ruleset_default(const warder_ruleset *rs, enum warder_op op);
WARDER_API size_t warder_ruleset_rule_count(const warder_ruleset *rs, enum warder_op op);

/* One rule as loaded. Strings belong to the ruleset. */
struct warder_rule_info {
        unsigned version; /* WARDER_RULE_INFO_VERSION */
        enum warder_op op;
        enum warder_action action;
        size_t index;        /* position in the operation's merged rule list */
        const char *id;      /* explicit or generated `<op>:<index>` */
        const char *pattern; /* as written */
        const char *reason;  /* may be NULL */
        const char *file;    /* source file (or the string name / "preset:<name>") */
        unsigned line, column;
};

#define WARDER_RULE_INFO_VERSION 1
#define WARDER_RULE_INFO_INIT                                                                      \
        {                                                                                          \
                WARDER_RULE_INFO_VERSION, WARDER_OP_READ, WARDER_ALLOW, 0, NULL, NULL, NULL, NULL, \
                    0, 0                                                                           \
        }

/* Initialises `info` as WARDER_RULE_INFO_INIT does. */
WARDER_API void warder_rule_info_init(struct warder_rule_info *info);

/* Fills `out` (initialised: its version is checked) with rule `index` of `op`. */
WARDER_API int warder_ruleset_rule(struct warder_rule_info *out, const warder_ruleset *rs,
                                   enum warder_op op, size_t index);

/*
 * A decision and why. String members point into the ruleset (valid while it lives) or into
 * storage the decision owns; release with warder_decision_clear() in every case. A function
 * that fills a decision wants one initialised with WARDER_DECISION_INIT (its version is
 * checked, WARDER_EINVAL otherwise).
 *
 * WARDER_DECISION_INIT, and warder_decision_clear(), leave a decision that denies: a code
 * path that returns before a rule or a default has decided can never hand out allow (fail
 * closed by construction). Whoever accumulates the strictest of several decisions starts
 * from its first one, never from an initialised one.
 */
struct warder_decision {
        unsigned version; /* WARDER_DECISION_VERSION */
        enum warder_action action;
        enum warder_op op;
        bool by_default;       /* no rule matched: the operation's default decided */
        enum warder_form form; /* which form decided (§3.3); NONE when by_default */
        const char *rule_id;   /* NULL when by_default */
        size_t rule_index;
        const char *pattern; /* as written */
        const char *reason;  /* may be NULL */
        const char *file;
        unsigned line, column;
        /* execute (§5): the simple command and the path candidate that decided, or NULL. When
         * a candidate decided, candidate_op says whether it was decided for read or write. */
        const char *segment;
        const char *candidate;
        enum warder_op candidate_op;
        bool undeterminable; /* execute: raised to at least ask by §5.3/§5.5/§5.6/§5.7 */
        const char *note;    /* execute: a one-line explanation of a raise, or NULL */
        void *owned_;        /* library-private storage */
};

#define WARDER_DECISION_VERSION 1
#define WARDER_DECISION_INIT                                                                       \
        {                                                                                          \
                WARDER_DECISION_VERSION, WARDER_DENY, WARDER_OP_READ, false, WARDER_FORM_NONE,     \
                    NULL, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, WARDER_OP_READ, false, NULL, NULL \
        }

/* Initialises `d` as WARDER_DECISION_INIT does. */
WARDER_API void warder_decision_init(struct warder_decision *d);
WARDER_API void warder_decision_clear(struct warder_decision *d);
/* Deep copy: the copy owns all its strings and does not depend on the ruleset. `dst` is
 * initialised (its version is checked) and overwritten. */
WARDER_API int warder_decision_copy(struct warder_decision *dst, const struct warder_decision *src);

/*
 * Decides a path operation (§3.3): `literal` (`literal_len` bytes) and `real` (`real_len`
 * bytes; NULL: the same as literal) are normalised against the ruleset's root and home first
 * (§3.1); the stricter decision of the two forms wins. For WARDER_OP_EXECUTE, `literal` is the
 * command line and it is inspected as in §5 without a backend (candidates decided on their
 * literal form); `real` must be NULL. An empty target or one holding a NUL byte is
 * WARDER_EINVAL, never a decision on a shorter string. Returns 0 and fills `out`.
 */
WARDER_API int warder_ruleset_check(struct warder_decision *out, const warder_ruleset *rs,
                                    enum warder_op op, const char *literal, size_t literal_len,
                                    const char *real, size_t real_len, struct warder_error *err);

/* One rule that matched in an explanation, and on which form(s). */
struct warder_explain_match {
        enum warder_form form; /* LITERAL, REAL or BOTH */
        struct warder_rule_info rule;
};

/* An account of a decision: both normalised forms and every matching rule in rule order.
 * Made by the library (`version` is WARDER_EXPLANATION_VERSION). */
#define WARDER_EXPLANATION_VERSION 1
struct warder_explanation {
        unsigned version;
        enum warder_op op;
        char *literal; /* normalised literal form (execute: the command as given) */
        char *real;    /* normalised real form, NULL when none was given */
        struct warder_decision decision; /* the same decision warder_ruleset_check() makes */
        size_t count;
        struct warder_explain_match *matches; /* every rule whose pattern matched, in order;
                                               * execute: the rules matching the whole line */
};

/* Explains a check (targets as for warder_ruleset_check()); free the result with
 * warder_explanation_free(). */
WARDER_API int warder_ruleset_explain(struct warder_explanation **out, const warder_ruleset *rs,
                                      enum warder_op op, const char *literal, size_t literal_len,
                                      const char *real, size_t real_len, struct warder_error *err);
WARDER_API void warder_explanation_free(struct warder_explanation *ex);

/* What a command inspection may consult (§5.4–§5.6); every member is optional. Initialise
 * with WARDER_COMMAND_CONTEXT_INIT; a context of version 1 (without `ls`) is still accepted. */
struct warder_command_context {
        unsigned version;
        const char *cwd;        /* absolute starting directory; NULL: the ruleset's root */
        const char *const *env; /* declared variables, "NAME=VALUE", NULL-terminated (§5.5) */
        /* The real form of an absolute literal path (§3.2), as a warder_free()-able string.
         * NULL: real == literal. */
        int (*realpath)(void *ud, const char *literal, char **out);
        /* Expands an absolute glob pattern to the absolute paths it matches, as a
         * warder_free()-able array of warder_free()-able strings. Consulted only when `ls` is
         * NULL, and trusted to expand as the shell does (§5.5). NULL (and no `ls`): globs are
         * undeterminable. */
        int (*glob)(void *ud, const char *pattern, char ***out, size_t *count);
        void *ud;
        /* Version 2. Lists the directory `dir` (absolute; already a real form when `realpath`
         * is given): the names of its entries, without `.` and `..`, as a warder_free()-able
         * array of warder_free()-able strings, each name followed by a `/` when the entry is
         * a directory or a symbolic link (which may lead to one). Returns WARDER_ENOENT or
         * WARDER_ENOTDIR when `dir` is missing or not a directory. With it, inspection expands
         * globs itself the way the shell does (§5.5) and knows which candidates are
         * directories (§5.4.1). */
        int (*ls)(void *ud, const char *dir, char ***names, size_t *count);
};

#define WARDER_COMMAND_CONTEXT_VERSION 2
#define WARDER_COMMAND_CONTEXT_INIT                                                                \
        {                                                                                          \
                WARDER_COMMAND_CONTEXT_VERSION, NULL, NULL, NULL, NULL, NULL, NULL                 \
        }

/* Initialises `ctx` as WARDER_COMMAND_CONTEXT_INIT does, for a caller built against
 * `version`; WARDER_EINVAL for an unknown one. */
WARDER_API int warder_command_context_init(struct warder_command_context *ctx, unsigned version);

/*
 * Decides a command line (§5) with a context. `command` is `len` bytes; an embedded NUL is
 * WARDER_EINVAL. The decision names the segment and the candidate that decided.
 */
WARDER_API int warder_ruleset_check_command(struct warder_decision *out, const warder_ruleset *rs,
                                            const char *command, size_t len,
                                            const struct warder_command_context *ctx,
                                            struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
