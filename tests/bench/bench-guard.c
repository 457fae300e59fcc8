/* SPDX-License-Identifier: MIT */
/*
 * The guard's cost: read, ls and grep through a guarded memory backend against the same
 * backend unguarded (ns per operation and the added cost), and the guard's own work per
 * request (normalise + decide, warder_guard_check) with 1,000 rules per operation.
 * Prints figures only (the best of several batches); nothing here asserts on time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "warder/warder.h"

static double now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, int rc, const struct warder_error *err)
{
        fprintf(stderr, "bench-guard: %s: %s (%s)\n", what, warder_status_name(rc),
                err ? err->message : "");
        exit(1);
}

/* 1,000 rules for each of read, ls and grep, of the usual shapes; the benchmark targets match
 * none of them, so every rule is considered and the default decides (the slow path). */
static char *rules_yaml(size_t n)
{
        struct warder__buf b = WARDER__BUF_INIT;
        static const char *const ops[] = {"read", "ls", "grep"};
        warder__buf_puts(&b, "warder: 1\ndefault: allow\n");
        for (size_t o = 0; o < 3; o++) {
                warder__buf_printf(&b, "%s:\n  default: allow\n  rules:\n", ops[o]);
                for (size_t i = 0; i < n; i++) {
                        switch (i % 5) {
                        case 0:
                                warder__buf_printf(&b, "    - pattern: \"/srv/p%zu/**\"\n", i);
                                break;
                        case 1:
                                warder__buf_printf(&b, "    - pattern: \"**/*.x%zu\"\n", i);
                                break;
                        case 2:
                                warder__buf_printf(&b, "    - pattern: \"src/gen%zu/*.c\"\n", i);
                                break;
                        case 3:
                                warder__buf_printf(&b, "    - pattern: \"**/name%zu.txt\"\n", i);
                                break;
                        default:
                                warder__buf_printf(&b, "    - pattern: \"**/.s%zu/{a,b}*\"\n", i);
                                break;
                        }
                        warder__buf_printf(&b, "      action: %s\n", i % 3 ? "deny" : "ask");
                }
        }
        return warder__buf_steal(&b);
}

static warder_backend *fill(void)
{
        warder_backend *mem = NULL;
        int rc = warder_memory_new(&mem, NULL);
        if (rc)
                die("memory", rc, NULL);
        char path[64], text[128];
        for (int i = 0; i < 50; i++) {
                snprintf(path, sizeof(path), "/w/src/file%02d.c", i);
                int n = snprintf(text, sizeof(text),
                                 "int f%d(void) { return %d; }\n/* needle %d */\nstatic int x;\n",
                                 i, i, i);
                if ((rc = warder_backend_write(mem, path, strlen(path), text, (size_t)n, 0, NULL)))
                        die("write", rc, NULL);
        }
        return mem;
}

typedef int (*op_fn)(warder_backend *b);

static int op_read(warder_backend *b)
{
        struct warder_bytes out = WARDER_BYTES_INIT;
        int rc = warder_backend_read(&out, b, "/w/src/file07.c", 15, 0, 0, 0, NULL);
        warder_bytes_free(&out);
        return rc;
}

static int op_ls(warder_backend *b)
{
        struct warder_entries out = WARDER_ENTRIES_INIT;
        int rc = warder_backend_ls(&out, b, "/w/src", 6, 0, NULL);
        warder_entries_free(&out);
        return rc;
}

static int op_grep(warder_backend *b)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "needle";
        req.pattern_len = strlen(req.pattern);
        req.path = "/w/src";
        req.path_len = 6;
        struct warder_grep_result out = WARDER_GREP_RESULT_INIT;
        int rc = warder_backend_grep(&out, b, &req, NULL);
        warder_grep_result_free(&out);
        return rc;
}

/* The machine may be shared: every figure is the best of REPS batches. */
#define REPS 5

static double time_op(op_fn fn, warder_backend *b, long iters)
{
        for (long i = 0; i < iters / 10 + 1; i++)
                if (fn(b))
                        die("op", fn(b), NULL);
        double best = 0;
        for (int r = 0; r < REPS; r++) {
                double t0 = now_ns();
                for (long i = 0; i < iters / REPS; i++)
                        fn(b);
                double t = (now_ns() - t0) / (double)(iters / REPS);
                if (r == 0 || t < best)
                        best = t;
        }
        return best;
}

static double time_check(warder_backend *g, enum warder_op op, const char *target, long iters)
{
        size_t len = strlen(target);
        double best = 0;
        for (int r = 0; r < REPS; r++) {
                double t0 = now_ns();
                for (long i = 0; i < iters / REPS; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        int rc = warder_guard_check(&d, g, op, target, len, NULL);
                        if (rc)
                                die("check", rc, NULL);
                        warder_decision_clear(&d);
                }
                double t = (now_ns() - t0) / (double)(iters / REPS);
                if (r == 0 || t < best)
                        best = t;
        }
        return best;
}

int main(void)
{
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = "/w";
        ro.home = "/home/u";
        char *yaml = rules_yaml(1000);
        warder_ruleset *big = NULL;
        int rc = warder_ruleset_load_string(&big, yaml, strlen(yaml), "bench.yaml", &ro, &err);
        free(yaml);
        if (rc)
                die("ruleset", rc, &err);
        warder_ruleset *small = NULL;
        const char *small_yaml = "warder: 1\n"
                                 "default: allow\n"
                                 "read:\n"
                                 "  rules:\n"
                                 "    - pattern: \"**/.env\"\n"
                                 "      action: deny\n";
        rc = warder_ruleset_load_string(&small, small_yaml, strlen(small_yaml), "small.yaml", &ro,
                                        &err);
        if (rc)
                die("ruleset", rc, &err);

        warder_backend *plain = fill();
        warder_backend *g_small = NULL, *g_big = NULL;
        if ((rc = warder_guard_new(&g_small, fill(), small, NULL, &err)))
                die("guard", rc, &err);
        if ((rc = warder_guard_new(&g_big, fill(), big, NULL, &err)))
                die("guard", rc, &err);

        static const struct {
                const char *name;
                op_fn fn;
                long iters;
        } ops[] = {
            {"read", op_read, 200000},
            {"ls (50 entries)", op_ls, 5000},
            {"grep (50 files)", op_grep, 500},
        };
        printf("%-18s %12s %14s %14s %12s %12s\n", "operation", "unguarded", "guard 1 rule",
               "guard 1k rules", "added (1)", "added (1k)");
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                double u = time_op(ops[i].fn, plain, ops[i].iters);
                double s = time_op(ops[i].fn, g_small, ops[i].iters);
                double b = time_op(ops[i].fn, g_big, ops[i].iters);
                printf("%-18s %9.0f ns %11.0f ns %11.0f ns %9.0f ns %9.0f ns   (x%.2f / x%.2f)\n",
                       ops[i].name, u, s, b, s - u, b - u, s / u, b / u);
        }

        /* The guard's own work per request: normalise + decide (+ the decision copy the
         * public call makes), no forwarding. Targets match no rule: every rule is considered. */
        static const struct {
                enum warder_op op;
                const char *target;
        } checks[] = {
            {WARDER_OP_READ, "/w/src/file07.c"},
            {WARDER_OP_READ, "src/../src/./file07.c"},
            {WARDER_OP_LS, "/w/src/deeper/still/deeper/dir"},
            {WARDER_OP_GREP, "/w/src"},
        };
        printf("\nguard overhead per request (warder_guard_check, 1,000 rules for the op):\n");
        for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
                double t1 = time_check(g_small, checks[i].op, checks[i].target, 200000);
                double tk = time_check(g_big, checks[i].op, checks[i].target, 200000);
                printf("  %-5s %-34s %7.0f ns (1 rule) %7.0f ns (1,000 rules)  target < 1500 ns\n",
                       warder_op_name(checks[i].op), checks[i].target, t1, tk);
        }

        warder_backend_free(plain);
        warder_backend_free(g_small);
        warder_backend_free(g_big);
        warder_ruleset_free(small);
        warder_ruleset_free(big);
        return 0;
}
