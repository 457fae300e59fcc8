/* SPDX-License-Identifier: MIT */
/*
 * The per-operation switch of a ruleset's decision (§3.3, §5): a path operation is decided by
 * the ruleset (src/ruleset/), an execute by command inspection (src/command/), which decides
 * its path candidates through the ruleset. This file sits above both so that neither knows
 * the other's caller.
 */
#include "ruleset/ruleset-internal.h"
#include "warder/tooling.h"

WARDER_API int warder_ruleset_check(struct warder_decision *out, const warder_ruleset *rs,
                                    enum warder_op op, const char *literal, size_t literal_len,
                                    const char *real, size_t real_len, struct warder_error *err)
{
        if (!rs || !literal || !out || out->version != WARDER_DECISION_VERSION ||
            (unsigned)op >= WARDER_OP_COUNT)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        if (op == WARDER_OP_EXECUTE) {
                if (real)
                        return warder_error_set(err, WARDER_EINVAL,
                                                "'execute' has no real form (pass NULL)");
                return warder_ruleset_check_command(out, rs, literal, literal_len, NULL, err);
        }
        return warder__ruleset_check_path(out, rs, op, literal, literal_len, real, real_len, err);
}

WARDER_API int warder_ruleset_explain(struct warder_explanation **out, const warder_ruleset *rs,
                                      enum warder_op op, const char *literal, size_t literal_len,
                                      const char *real, size_t real_len, struct warder_error *err)
{
        return warder__ruleset_explain(out, rs, op, literal, literal_len, real, real_len,
                                       warder_ruleset_check, err);
}

WARDER_API int warder_ruleset_run_tests(size_t *passed, size_t *failed, const warder_ruleset *rs,
                                        warder_test_fn fn, void *ud, struct warder_error *err)
{
        return warder__ruleset_run_tests(passed, failed, rs, fn, ud, warder_ruleset_check, err);
}
