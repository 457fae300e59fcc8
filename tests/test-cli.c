/* SPDX-License-Identifier: MIT */
/* The `warder` command: exit codes, output formats, usage errors (docs/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-run.h"
#include "support.h"

START_TEST(help_and_version)
{
        struct cli_result r = cli_run("--help");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "Usage: warder"));
        cli_result_free(&r);
        r = cli_run("--version");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "warder 0."));
        cli_result_free(&r);
        static const char *const subs[] = {"match", "normalize", "check", "explain", "lint",
                                           "test",  "read",      "write", "edit",    "ls",
                                           "glob",  "grep",      "exec"};
        for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
                r = cli_run(subs[i], "--help");
                ck_assert_msg(r.status == 0, "%s --help exited %d: %s", subs[i], r.status, r.err);
                ck_assert_msg(strstr(r.out, "Usage: warder") != NULL, "%s --help: %s", subs[i],
                              r.out);
                cli_result_free(&r);
        }
}
END_TEST

START_TEST(usage_errors_exit_2_with_a_hint)
{
        const char *const *const cases[] = {
            (const char *const[]){"warder", NULL},
            (const char *const[]){"warder", "frobnicate", NULL},
            (const char *const[]){"warder", "--bogus", NULL},
            (const char *const[]){"warder", "normalize", NULL},
            (const char *const[]){"warder", "normalize", "--cwd", NULL},
            (const char *const[]){"warder", "check", "read", NULL},
            (const char *const[]){"warder", "check", "delete", "x", NULL},
            (const char *const[]){"warder", "--root", NULL},
            (const char *const[]){"warder", "--rules", "a", "--preset", "b", "check", "read", "x",
                                  NULL},
            (const char *const[]){"warder", "read", NULL},
            (const char *const[]){"warder", "read", "--offset", "x", "f", NULL},
            (const char *const[]){"warder", "edit", "f", "--old", "a", NULL},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cli_result r = cli_run_in(NULL, NULL, cases[i]);
                ck_assert_msg(r.status == 2, "case %zu exited %d: %s", i, r.status, r.err);
                ck_assert_msg(strstr(r.err, "warder") != NULL, "case %zu: no message", i);
                cli_result_free(&r);
        }
}
END_TEST

START_TEST(normalize_prints_literal_forms)
{
        struct cli_result r =
            cli_run("normalize", "--root", "/ws", "--home", "/home/u", "--", ".env",
                    "//etc/./passwd", "~/.ssh/id_rsa", "a/../../..", "/.env/");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "/ws/.env\n/etc/passwd\n/home/u/.ssh/id_rsa\n/\n/.env\n");
        cli_result_free(&r);
        /* common options after the subcommand, --cwd, and JSON */
        r = cli_run("normalize", "--json", "--cwd", "/ws/sub", "--root=/ws", "x", "../y");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "[\"/ws/sub/x\",\"/ws/y\"]\n");
        cli_result_free(&r);
        /* names with control bytes are escaped, never raw */
        r = cli_run("normalize", "--root", "/ws", "a\nb\x1b[31m");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "/ws/a\\nb\\x1b[31m\n");
        cli_result_free(&r);
        /* a relative --home is a usage error */
        r = cli_run("normalize", "--home", "rel", "x");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("cli");
        TCase *tc = tcase_create("basics");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, help_and_version);
        tcase_add_test(tc, usage_errors_exit_2_with_a_hint);
        tcase_add_test(tc, normalize_prints_literal_forms);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
