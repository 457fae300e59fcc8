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
        enum warder_op op;
        enum warder_action action;
        size_t index;        /* position in the operation's merged rule list */
        const char *id;      /* explicit or generated `<op>:<index>` */
        const char *pattern; /* as written */
        const char *reason;  /* may be NULL */
        const char *file;    /* source file (or the string name / "preset:<name>") */
        unsigned line, column;
};

WARDER_API int warder_ruleset_rule(const warder_ruleset *rs, enum warder_op op, size_t index,
                                   struct warder_rule_info *out);

/* How an operation's rules are indexed. A check looks up the target's keys (its path, literal
 * prefixes, basename, extension, directory components, literal fragments) and runs only the
 * rules filed under them, plus the rules that offer no key at all: those run on every check.
 */
struct warder_ruleset_index_stats {
        size_t rules;        /* rules of the operation */
        size_t always;       /* rules every check runs (no index key) */
        size_t first_always; /* index of the first of them, or SIZE_MAX */
        size_t largest_key;  /* most rule alternatives filed under one key (path operations) */
};

/* Fills `out` for `op`. */
WARDER_API int warder_ruleset_index_stats(const warder_ruleset *rs, enum warder_op op,
                                          struct warder_ruleset_index_stats *out,
                                          struct warder_error *err);

/*
 * A decision and why. String members point into the ruleset (valid while it lives) or into
 * storage the decision owns; release with warder_decision_clear() in every case.
 *
 * WARDER_DECISION_INIT, and warder_decision_clear(), leave a decision that denies: a code
 * path that returns before a rule or a default has decided can never hand out allow (fail
 * closed by construction). Whoever accumulates the strictest of several decisions starts
 * from its first one, never from an initialised one.
 */
struct warder_decision {
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

#define WARDER_DECISION_INIT                                                                       \
        {                                                                                          \
                WARDER_DENY, WARDER_OP_READ, false, WARDER_FORM_NONE, NULL, 0, NULL, NULL, NULL,   \
                    0, 0, NULL, NULL, WARDER_OP_READ, false, NULL, NULL                            \
        }

WARDER_API void warder_decision_clear(struct warder_decision *d);
/* Deep copy: the copy owns all its strings and does not depend on the ruleset. */
WARDER_API int warder_decision_copy(struct warder_decision *dst, const struct warder_decision *src);

/*
 * Decides a path operation (§3.3): `literal` and `real` (NULL: same as literal) are
 * normalised against the ruleset's root and home first (§3.1); the stricter decision of the
 * two forms wins. For WARDER_OP_EXECUTE, `literal` is the command line and it is inspected as
 * in §5 without a backend (candidates decided on their literal form); `real` must be NULL.
 * Returns 0 and fills `out`, or WARDER_EINVAL for a bad target.
 */
WARDER_API int warder_ruleset_check(const warder_ruleset *rs, enum warder_op op,
                                    const char *literal, const char *real,
                                    struct warder_decision *out, struct warder_error *err);

/* Whether operation `op` states its own `default` (after `extends`), for lint. */
WARDER_API bool warder_ruleset_operation_has_default(const warder_ruleset *rs, enum warder_op op);

/*
 * For lint and explanations: the anchored alternatives of rule `index` as core patterns
 * (braces expanded, root and home spliced in escaped, directory cover included, §2.11); for
 * `execute`, the pattern itself. Free with warder_ruleset_strv_free().
 */
WARDER_API int warder_ruleset_rule_alternatives(const warder_ruleset *rs, enum warder_op op,
                                                size_t index, char ***out, size_t *count,
                                                struct warder_error *err);
WARDER_API void warder_ruleset_strv_free(char **v, size_t count);

/* Whether rule `index` alone matches `target` (normalised first; `execute`: the text as a
 * whole). Engine errors count as they do in decisions (§2.10). */
WARDER_API int warder_ruleset_rule_match(const warder_ruleset *rs, enum warder_op op, size_t index,
                                         const char *target, bool *matched,
                                         struct warder_error *err);

/* One rule that matched in an explanation, and on which form(s). */
struct warder_explain_match {
        enum warder_form form; /* LITERAL, REAL or BOTH */
        struct warder_rule_info rule;
};

/* An account of a decision: both normalised forms and every matching rule in rule order. */
struct warder_explanation {
        enum warder_op op;
        char *literal; /* normalised literal form (execute: the command as given) */
        char *real;    /* normalised real form, NULL when none was given */
        struct warder_decision decision; /* the same decision warder_ruleset_check() makes */
        size_t count;
        struct warder_explain_match *matches; /* every rule whose pattern matched, in order;
                                               * execute: the rules matching the whole line */
};

/* Explains a check; free the result with warder_explanation_free(). */
WARDER_API int warder_ruleset_explain(const warder_ruleset *rs, enum warder_op op,
                                      const char *literal, const char *real,
                                      struct warder_explanation **out, struct warder_error *err);
WARDER_API void warder_explanation_free(struct warder_explanation *ex);

/* The result of one inline test case (`tests: cases:` of the top file). */
struct warder_test_result {
        size_t index; /* position in `cases` */
        enum warder_op op;
        const char *target;
        const char *real; /* NULL when not given */
        enum warder_action expect;
        const struct warder_decision *decision; /* NULL when the check itself failed */
        int status;                             /* 0, or the check's error code */
        bool passed;
        const char *file; /* where the case is written */
        unsigned line, column;
        const char *message; /* the check's error message when status != 0 */
};

typedef void (*warder_test_fn)(void *ud, const struct warder_test_result *result);

/* Number of inline test cases of the top file (cases of extended files are not run). */
WARDER_API size_t warder_ruleset_test_count(const warder_ruleset *rs);

/*
 * Runs the inline test cases, calling `fn` (may be NULL) once per case in order. When the
 * `tests` section names a `root` or `home` other than the ruleset's, the ruleset is loaded
 * again from its source with those (patterns anchor at load time, §2.11). Returns 0 when
 * the cases ran (whatever their outcome), or the reload's error.
 */
WARDER_API int warder_ruleset_run_tests(const warder_ruleset *rs, warder_test_fn fn, void *ud,
                                        size_t *passed, size_t *failed, struct warder_error *err);

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

/*
 * Decides a command line (§5) with a context. `command` is `len` bytes; an embedded NUL is
 * WARDER_EINVAL. The decision names the segment and the candidate that decided.
 */
WARDER_API int warder_ruleset_check_command(const warder_ruleset *rs, const char *command,
                                            size_t len, const struct warder_command_context *ctx,
                                            struct warder_decision *out, struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
