/* SPDX-License-Identifier: MIT */
/* The mask predicate a guard passes to the exec backend (§6.5), for tests and benchmarks
 * that drive the backend directly: read denials hidden, write denials read-only. */
#ifndef WARDER_TEST_RULESET_MASK_H
#define WARDER_TEST_RULESET_MASK_H

#include <stdbool.h>

#include "warder/backend.h"
#include "warder/ruleset.h"

static __attribute__((unused)) unsigned ruleset_mask(void *ud, const char *literal,
                                                     const char *real)
{
        const warder_ruleset *rs = ud;
        static const enum warder_op ops[] = {WARDER_OP_READ, WARDER_OP_WRITE};
        for (int i = 0; i < 2; i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                int rc = warder_ruleset_check(&d, rs, ops[i], literal, strlen(literal), real,
                                              (real ? strlen(real) : 0), NULL);
                bool deny = rc != 0 || d.action == WARDER_DENY;
                warder_decision_clear(&d);
                if (deny)
                        return i == 0 ? WARDER_MASK_HIDE : WARDER_MASK_READONLY;
        }
        return 0;
}

#endif
