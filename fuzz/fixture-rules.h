/* SPDX-License-Identifier: MIT */
#ifndef WARDER_FUZZ_FIXTURE_RULES_H
#define WARDER_FUZZ_FIXTURE_RULES_H

#include "fuzz.h"
#include "warder/ruleset.h"

/*
 * Loads a fixed ruleset for a harness, or aborts with the loader's message: a fixture that
 * does not load would turn every property into a no-op, so it must be loud.
 */
static inline warder_ruleset *fuzz_fixture_rules(const char *yaml)
{
        struct warder_ruleset_options opts = WARDER_RULESET_OPTIONS_INIT;
        opts.root = "/work/project";
        opts.home = "/home/agent";
        opts.base_dir = "/nonexistent/warder-fuzz";
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_load_string(&rs, yaml, strlen(yaml), "fixture.yaml", &opts, &err);
        FUZZ_CHECK(rc == 0, "the fixture ruleset does not load: %s (line %u, column %u)",
                   err.message, err.line, err.column);
        return rs;
}

/* The decision for a target, or abort. */
static inline enum warder_action fuzz_decide(const warder_ruleset *rs, enum warder_op op,
                                             const char *target, bool *undeterminable)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = warder_ruleset_check(&d, rs, op, target, strlen(target), NULL, 0, NULL);
        FUZZ_CHECK(rc == 0, "check %s '%s': %d", warder_op_name(op), target, rc);
        enum warder_action a = d.action;
        if (undeterminable)
                *undeterminable = d.undeterminable;
        warder_decision_clear(&d);
        return a;
}

#endif
