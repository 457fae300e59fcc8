/* SPDX-License-Identifier: MIT */
/* Weak stand-ins until the ruleset module provides these (strong definitions win). */
#include "warder/ruleset.h"
#include "warder/sys/backend.h"

__attribute__((weak)) WARDER_API int
warder_ruleset_check(const warder_ruleset *rs, enum warder_op op, const char *literal,
                     const char *real, struct warder_decision *out, struct warder_error *err)
{
        (void)rs;
        (void)op;
        (void)literal;
        (void)real;
        (void)out;
        return warder_error_set(err, WARDER_ENOTSUP, "rulesets are not implemented yet");
}

__attribute__((weak)) WARDER_API const char *warder_ruleset_root(const warder_ruleset *rs)
{
        (void)rs;
        return "/";
}

__attribute__((weak)) WARDER_API const char *warder_ruleset_home(const warder_ruleset *rs)
{
        (void)rs;
        return NULL;
}

__attribute__((weak)) WARDER_API int
warder_ruleset_load_string(warder_ruleset **out, const char *yaml, size_t len, const char *name,
                           const struct warder_ruleset_options *opts, struct warder_error *err)
{
        (void)out;
        (void)yaml;
        (void)len;
        (void)name;
        (void)opts;
        return warder_error_set(err, WARDER_ENOTSUP, "rulesets are not implemented yet");
}

__attribute__((weak)) WARDER_API void warder_ruleset_free(warder_ruleset *rs)
{
        (void)rs;
}
