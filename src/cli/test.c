/* SPDX-License-Identifier: MIT */
/* warder test: runs the inline `tests` cases of ruleset files. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "warder/tooling.h"

static void test_help(void)
{
        printf("Usage: warder test [--root DIR] [--home DIR] [--json] FILE...\n"
               "\n"
               "Load each ruleset FILE and run the cases of its `tests:` section (op, target,\n"
               "expect, optional real). A `tests:` section may name its own root and home; the\n"
               "file is then loaded again with those, since patterns anchor at load time.\n"
               "Each failing case is printed with the decision it got; the last line is exactly\n"
               "`N passed, N failed`.\n"
               "\n"
               "Exit status: 0 all passed, 1 a case failed, 2 a file did not load.\n");
}

struct run {
        struct cli_common *c;
        const char *file;
        json_t *cases; /* with --json */
};

static void on_case(void *ud, const struct warder_test_result *r)
{
        struct run *run = ud;
        if (run->cases) {
                const char *file = r->file ? r->file : run->file;
                json_array_append_new(
                    run->cases,
                    json_pack("{s:o,s:i,s:i,s:I,s:s,s:o,s:o,s:s,s:b,s:o,s:o}", "file",
                              warder_json_str(file), "line", (int)r->line, "column", (int)r->column,
                              "index", (json_int_t)r->index, "op", warder_op_name(r->op), "target",
                              warder_json_str(r->target), "real", warder_json_str(r->real),
                              "expect", warder_action_name(r->expect), "passed", r->passed,
                              "decision",
                              r->decision ? warder_json_decision(r->decision) : json_null(),
                              "error", warder_json_str(r->message)));
                return;
        }
        if (r->passed)
                return;
        const char *file = r->file ? r->file : run->file;
        cli_write_safe(stdout, file, strlen(file));
        printf(":%u:%u: FAIL: %s ", r->line, r->column, warder_op_name(r->op));
        cli_write_safe(stdout, r->target, strlen(r->target));
        if (r->real) {
                fputs(" (real ", stdout);
                cli_write_safe(stdout, r->real, strlen(r->real));
                fputc(')', stdout);
        }
        printf(": expected %s, got ", warder_action_name(r->expect));
        if (!r->decision) {
                printf("an error: %s\n", r->message ? r->message : warder_strerror(r->status));
                return;
        }
        printf("%s\n", warder_action_name(r->decision->action));
        cli_print_decision(stdout, r->target, r->decision);
}

int cli_cmd_test(int argc, char **argv, struct cli_common *c)
{
        int first = 1;
        for (int i = 1; i < argc; i++) {
                if (cli_is_help(argv[i])) {
                        test_help();
                        return CLI_OK;
                }
                if (strcmp(argv[i], "--") == 0) {
                        first = i + 1;
                        break;
                }
                if (argv[i][0] == '-' && argv[i][1] != '\0')
                        return cli_usage("test", "unknown option '%s'", argv[i]);
        }
        if (first >= argc)
                return cli_usage("test", "no FILE given");
        if (c->rules || c->preset)
                return cli_usage("test",
                                 "give the ruleset files as arguments, not --rules/--preset");
        char *root = NULL, *home = NULL;
        int rc = cli_common_dirs(c, &root, &home);
        if (rc)
                return rc;
        size_t passed = 0, failed = 0;
        bool load_error = false;
        struct run run = {.c = c, .cases = c->json ? json_array() : NULL};
        for (int i = first; i < argc; i++) {
                struct cli_common one = *c;
                one.rules = argv[i];
                warder_ruleset *rs = NULL;
                if (cli_load_ruleset(&one, root, home, &rs)) {
                        load_error = true;
                        continue;
                }
                run.file = argv[i];
                size_t p = 0, f = 0;
                struct warder_error err = WARDER_ERROR_INIT;
                if (warder_ruleset_run_tests(&p, &f, rs, on_case, &run, &err)) {
                        if (err.file[0])
                                fprintf(stderr, "%s:%u:%u: error: %s\n", err.file, err.line,
                                        err.column, err.message);
                        else
                                fprintf(stderr, "%s: error: %s\n", argv[i], err.message);
                        load_error = true;
                } else if (warder_ruleset_test_count(rs) == 0 && !c->json) {
                        fprintf(stderr, "%s: note: no tests\n", argv[i]);
                }
                warder_error_clear(&err);
                passed += p;
                failed += f;
                warder_ruleset_free(rs);
        }
        free(root);
        free(home);
        if (c->json) {
                rc = cli_json_print(json_pack("{s:o,s:I,s:I,s:b}", "cases", run.cases, "passed",
                                              (json_int_t)passed, "failed", (json_int_t)failed,
                                              "load_errors", load_error));
                if (rc)
                        return rc;
        } else {
                printf("%zu passed, %zu failed\n", passed, failed);
        }
        return load_error ? CLI_USAGE : failed ? CLI_DENY : CLI_OK;
}
