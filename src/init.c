/* SPDX-License-Identifier: MIT */
/*
 * The initialisers of every public options, request and result struct, for callers that
 * cannot use the _INIT macros (bindings). A versioned struct is initialised for the version
 * the caller was built against: only the members of that version are written, from the same
 * defaults as the macro, so a caller whose struct is older (shorter) than this library's is
 * never written past its end (libgit2's git_*_options_init).
 */
#include <stddef.h>
#include <string.h>

#include "warder/guard.h"
#include "warder/local.h"
#include "warder/ruleset.h"
#include "warder/sys/backend.h"
#include "warder/tooling.h"

/* Copies the first `size` bytes of `tmpl` into `dst` and stamps the version (the first
 * member of every versioned struct). `size` 0: a version this library does not know. */
static int init_from(void *dst, const void *tmpl, size_t size, unsigned version)
{
        if (!dst || size == 0)
                return WARDER_EINVAL;
        memcpy(dst, tmpl, size);
        memcpy(dst, &version, sizeof(version));
        return 0;
}

/*
 * INIT(dst, version, current, tmpl, sizes…): initialises `dst` from `tmpl` for `version`.
 * `sizes` is the size of each version of the struct, oldest first (where the first member of
 * the next version starts, and the whole struct for the current one), checked at compile time
 * to hold one size per version.
 */
#define INIT(dst, version, current, tmpl, ...)                                                     \
        do {                                                                                       \
                static const size_t sizes[] = {__VA_ARGS__};                                       \
                _Static_assert(sizeof(sizes) / sizeof(sizes[0]) == (current),                      \
                               "one size per version");                                            \
                unsigned v = (version);                                                            \
                return init_from((dst), &(tmpl), v >= 1 && v <= (current) ? sizes[v - 1] : 0, v);  \
        } while (0)

WARDER_API int warder_ruleset_options_init(struct warder_ruleset_options *opts, unsigned version)
{
        static const struct warder_ruleset_options tmpl = WARDER_RULESET_OPTIONS_INIT;
        INIT(opts, version, WARDER_RULESET_OPTIONS_VERSION, tmpl,
             offsetof(struct warder_ruleset_options, max_pattern_bytes),
             sizeof(struct warder_ruleset_options));
}

WARDER_API int warder_guard_options_init(struct warder_guard_options *opts, unsigned version)
{
        static const struct warder_guard_options tmpl = WARDER_GUARD_OPTIONS_INIT;
        INIT(opts, version, WARDER_GUARD_OPTIONS_VERSION, tmpl,
             offsetof(struct warder_guard_options, approve_ex),
             sizeof(struct warder_guard_options));
}

WARDER_API int warder_local_options_init(struct warder_local_options *opts, unsigned version)
{
        static const struct warder_local_options tmpl = WARDER_LOCAL_OPTIONS_INIT;
        /* Version 1 held a ruleset where version 2 holds mask_denied: warder_local_new()
         * refuses it, and so does this (size 0). */
        INIT(opts, version, WARDER_LOCAL_OPTIONS_VERSION, tmpl, 0,
             offsetof(struct warder_local_options, act_as_agent),
             sizeof(struct warder_local_options));
}

WARDER_API int warder_grep_request_init(struct warder_grep_request *req, unsigned version)
{
        static const struct warder_grep_request tmpl = WARDER_GREP_REQUEST_INIT;
        INIT(req, version, WARDER_GREP_REQUEST_VERSION, tmpl,
             offsetof(struct warder_grep_request, may_search),
             offsetof(struct warder_grep_request, pattern_len),
             offsetof(struct warder_grep_request, threads), sizeof(struct warder_grep_request));
}

WARDER_API int warder_exec_request_init(struct warder_exec_request *req, unsigned version)
{
        static const struct warder_exec_request tmpl = WARDER_EXEC_REQUEST_INIT;
        INIT(req, version, WARDER_EXEC_REQUEST_VERSION, tmpl,
             offsetof(struct warder_exec_request, cancel),
             offsetof(struct warder_exec_request, mask), sizeof(struct warder_exec_request));
}

WARDER_API int warder_command_context_init(struct warder_command_context *ctx, unsigned version)
{
        static const struct warder_command_context tmpl = WARDER_COMMAND_CONTEXT_INIT;
        INIT(ctx, version, WARDER_COMMAND_CONTEXT_VERSION, tmpl,
             offsetof(struct warder_command_context, ls), sizeof(struct warder_command_context));
}

/* ---- unversioned structs ----------------------------------------------------------------- */

WARDER_API void warder_error_init(struct warder_error *err)
{
        if (err)
                *err = (struct warder_error)WARDER_ERROR_INIT;
}

WARDER_API void warder_decision_init(struct warder_decision *d)
{
        if (d)
                *d = (struct warder_decision)WARDER_DECISION_INIT;
}

WARDER_API void warder_rule_info_init(struct warder_rule_info *info)
{
        if (info)
                *info = (struct warder_rule_info)WARDER_RULE_INFO_INIT;
}

WARDER_API void warder_ruleset_index_stats_init(struct warder_ruleset_index_stats *stats)
{
        if (stats)
                *stats = (struct warder_ruleset_index_stats)WARDER_RULESET_INDEX_STATS_INIT;
}

WARDER_API void warder_bytes_init(struct warder_bytes *bytes)
{
        if (bytes)
                *bytes = (struct warder_bytes)WARDER_BYTES_INIT;
}

WARDER_API void warder_entries_init(struct warder_entries *entries)
{
        if (entries)
                *entries = (struct warder_entries)WARDER_ENTRIES_INIT;
}

WARDER_API void warder_grep_result_init(struct warder_grep_result *result)
{
        if (result)
                *result = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
}

WARDER_API void warder_exec_result_init(struct warder_exec_result *result)
{
        if (result)
                *result = (struct warder_exec_result)WARDER_EXEC_RESULT_INIT;
}
