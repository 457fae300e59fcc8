/* SPDX-License-Identifier: MIT */
/* The error model (architecture.md "Errors"). */
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "warder/warder.h"
#include "warder/sys/backend.h"

START_TEST(every_code_has_distinct_text)
{
        for (int a = WARDER_STATUS_MIN; a <= 0; a++) {
                const char *ta = warder_strerror(a);
                ck_assert_ptr_nonnull(ta);
                ck_assert_str_ne(ta, "unknown error");
                ck_assert_str_ne(warder_status_name(a), "WARDER_UNKNOWN");
                for (int b = WARDER_STATUS_MIN; b < a; b++) {
                        ck_assert_str_ne(ta, warder_strerror(b));
                        ck_assert_str_ne(warder_status_name(a), warder_status_name(b));
                }
        }
}
END_TEST

START_TEST(unknown_codes)
{
        ck_assert_str_eq(warder_strerror(WARDER_STATUS_MIN - 1), "unknown error");
        ck_assert_str_eq(warder_strerror(1), "unknown error");
        ck_assert_str_eq(warder_status_name(-1000), "WARDER_UNKNOWN");
}
END_TEST

START_TEST(stable_numbers)
{
        /* Codes are part of the ABI: never renumbered. */
        ck_assert_int_eq(WARDER_OK, 0);
        ck_assert_int_eq(WARDER_EDENIED, -1);
        ck_assert_int_eq(WARDER_EASK, -2);
        ck_assert_int_eq(WARDER_ENOTSUP, -3);
        ck_assert_int_eq(WARDER_EINVAL, -6);
        ck_assert_int_eq(WARDER_EPARSE, -14);
        ck_assert_int_eq(WARDER_EBACKEND, -15);
        ck_assert_int_eq(WARDER_ELIMIT, -21);
}
END_TEST

START_TEST(error_set_and_clear)
{
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_error_set(&err, WARDER_EINVAL, "bad %s %d", "thing", 7),
                         WARDER_EINVAL);
        ck_assert_int_eq(err.code, WARDER_EINVAL);
        ck_assert_str_eq(err.message, "bad thing 7");
        ck_assert_int_eq(err.offset, -1);
        ck_assert_int_eq(warder_error_set(NULL, WARDER_EIO, "ignored"), WARDER_EIO);

        /* A denial carries a heap copy of its decision, released by clear. */
        struct warder_decision d = WARDER_DECISION_INIT;
        d.action = WARDER_DENY;
        d.rule_id = "read:0";
        d.pattern = "**/.env";
        d.reason = "secrets";
        err.decision = malloc(sizeof(*err.decision));
        ck_assert_ptr_nonnull(err.decision);
        warder_decision_init(err.decision);
        ck_assert_int_eq(warder_decision_copy(err.decision, &d), 0);
        ck_assert_ptr_ne(err.decision->pattern, d.pattern);
        ck_assert_str_eq(err.decision->pattern, "**/.env");
        ck_assert_str_eq(err.decision->reason, "secrets");
        ck_assert_ptr_null(err.decision->segment);
        warder_error_clear(&err);
        ck_assert_ptr_null(err.decision);
        ck_assert_int_eq(err.code, 0);
        ck_assert_str_eq(err.message, "");
        warder_error_clear(NULL);
}
END_TEST

/* Fail closed by construction: a decision nobody filled in denies, before and after clear, so
 * a path that returns before deciding can never hand out allow. */
START_TEST(undecided_denies)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(!d.by_default);
        ck_assert_ptr_null(d.rule_id);
        d.action = WARDER_ALLOW;
        d.by_default = true;
        warder_decision_clear(&d);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(!d.by_default);
        /* A copy of an allow stays an allow: only the unset state is a deny. */
        struct warder_decision a = WARDER_DECISION_INIT, c = WARDER_DECISION_INIT;
        a.action = WARDER_ALLOW;
        ck_assert_int_eq(warder_decision_copy(&c, &a), 0);
        ck_assert_int_eq(c.action, WARDER_ALLOW);
        warder_decision_clear(&c);
        ck_assert_int_eq(c.action, WARDER_DENY);
}
END_TEST

START_TEST(long_messages_truncate)
{
        struct warder_error err = WARDER_ERROR_INIT;
        char big[2000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        warder_error_set(&err, WARDER_EPARSE, "%s", big);
        ck_assert_uint_eq(strlen(err.message), sizeof(err.message) - 1);
        warder_error_clear(&err);
}
END_TEST

START_TEST(names_round_trip)
{
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                enum warder_op parsed;
                ck_assert_int_eq(warder_op_parse(warder_op_name((enum warder_op)op), &parsed), 0);
                ck_assert_int_eq(parsed, op);
        }
        enum warder_op op;
        ck_assert_int_eq(warder_op_parse("delete", &op), WARDER_EINVAL);
        enum warder_action a;
        ck_assert_int_eq(warder_action_parse("deny", &a), 0);
        ck_assert_int_eq(a, WARDER_DENY);
        ck_assert_int_eq(warder_action_parse("Deny", &a), WARDER_EINVAL);
        /* §1.1: the numeric order is the strictness order. */
        ck_assert_int_gt(WARDER_DENY, WARDER_ASK);
        ck_assert_int_gt(WARDER_ASK, WARDER_ALLOW);
}
END_TEST

START_TEST(version)
{
        ck_assert_str_eq(warder_version(), WARDER_VERSION_STRING);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("error");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, every_code_has_distinct_text);
        tcase_add_test(tc, unknown_codes);
        tcase_add_test(tc, stable_numbers);
        tcase_add_test(tc, error_set_and_clear);
        tcase_add_test(tc, undecided_denies);
        tcase_add_test(tc, long_messages_truncate);
        tcase_add_test(tc, names_round_trip);
        tcase_add_test(tc, version);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
