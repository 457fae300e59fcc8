/* SPDX-License-Identifier: MIT */
#ifndef WARDER_TOOLING_H
#define WARDER_TOOLING_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "export.h"
#include "ruleset.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ruleset tooling: what `warder lint`, `warder explain` and `warder test` are built on (rule
 * alternatives, one rule's match, inline test cases, index statistics). A host that decides,
 * explains and enumerates rules needs only ruleset.h; these functions expose more of the
 * compiled form and may change more often. Not included by warder.h.
 */

/* Whether operation `op` states its own `default` (after `extends`), for lint. */
WARDER_API bool warder_ruleset_operation_has_default(const warder_ruleset *rs, enum warder_op op);

/*
 * For lint and explanations: the anchored alternatives of rule `index` as core patterns
 * (braces expanded, root and home spliced in escaped, directory cover included, §2.11); for
 * `execute`, the pattern itself. Free with warder_ruleset_strv_free().
 */
WARDER_API int warder_ruleset_rule_alternatives(char ***out, size_t *count,
                                                const warder_ruleset *rs, enum warder_op op,
                                                size_t index, struct warder_error *err);
WARDER_API void warder_ruleset_strv_free(char **v, size_t count);

/* Whether rule `index` alone matches `target` (`target_len` bytes, normalised first;
 * `execute`: the text as a whole). Engine errors count as they do in decisions (§2.10). A
 * target holding a NUL byte is WARDER_EINVAL (and an empty path, as for a check; an empty
 * `execute` text is matched as it is). */
WARDER_API int warder_ruleset_rule_match(bool *matched, const warder_ruleset *rs, enum warder_op op,
                                         size_t index, const char *target, size_t target_len,
                                         struct warder_error *err);

/* The result of one inline test case (`tests: cases:` of the top file), made by the library
 * (`version` is WARDER_TEST_RESULT_VERSION). */
#define WARDER_TEST_RESULT_VERSION 1
struct warder_test_result {
        unsigned version;
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
WARDER_API int warder_ruleset_run_tests(size_t *passed, size_t *failed, const warder_ruleset *rs,
                                        warder_test_fn fn, void *ud, struct warder_error *err);

/* How an operation's rules are indexed. A check looks up the target's keys (its path, literal
 * prefixes, basename, extension, directory components, literal fragments) and runs only the
 * rules filed under them, plus the rules that offer no key at all: those run on every check.
 */
struct warder_ruleset_index_stats {
        unsigned version;    /* WARDER_RULESET_INDEX_STATS_VERSION */
        size_t rules;        /* rules of the operation */
        size_t always;       /* rules every check runs (no index key) */
        size_t first_always; /* index of the first of them, or SIZE_MAX */
        size_t largest_key;  /* most rule alternatives filed under one key (path operations) */
};

#define WARDER_RULESET_INDEX_STATS_VERSION 1
#define WARDER_RULESET_INDEX_STATS_INIT                                                            \
        {                                                                                          \
                WARDER_RULESET_INDEX_STATS_VERSION, 0, 0, 0, 0                                     \
        }

/* Initialises `stats` as WARDER_RULESET_INDEX_STATS_INIT does. */
WARDER_API void warder_ruleset_index_stats_init(struct warder_ruleset_index_stats *stats);

/* Fills `out` (initialised: its version is checked) for `op`. */
WARDER_API int warder_ruleset_index_stats(struct warder_ruleset_index_stats *out,
                                          const warder_ruleset *rs, enum warder_op op,
                                          struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
