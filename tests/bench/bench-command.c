/* SPDX-License-Identifier: MIT */
/*
 * Command inspection cost (§5): commands of 1, 5 and 20 simple commands against a ruleset of
 * 1,000 read rules and 1,000 (then 10) execute rules, in ns of thread CPU time per inspection
 * (the build machines are shared, so wall time would measure the neighbours), with the cost
 * of one plain read check measured in the same run as the baseline; and one form against the
 * execute rules through their index and by the plain loop over every rule. No assertions on
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ruleset/ruleset-internal.h"
#include "util.h"
#include "warder/ruleset.h"

static double now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile int sink;

static double bench_command(const warder_ruleset *rs, const char *cmd, size_t iters)
{
        size_t len = strlen(cmd);
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        static const char *const env[] = {"HOME=/home/u", "PATH=/usr/bin:/bin", NULL};
        ctx.env = env;
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
                double t0 = now_ns();
                for (size_t i = 0; i < iters; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (warder_ruleset_check_command(&d, rs, cmd, len, &ctx, NULL) == 0)
                                sink += (int)d.action;
                        warder_decision_clear(&d);
                }
                double per = (now_ns() - t0) / (double)iters;
                if (per < best)
                        best = per;
        }
        return best;
}

typedef bool (*match_fn)(const warder_ruleset *, const char *, size_t, bool,
                         struct warder_decision *);

/* One form against the execute rules: through the index, or (linear) by the loop over every
 * rule that the index replaces. */
static double bench_form(const warder_ruleset *rs, const char *form, size_t iters, bool linear)
{
        match_fn fn = linear ? warder__ruleset_match_execute_linear : warder__ruleset_match_execute;
        size_t len = strlen(form);
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
                double t0 = now_ns();
                for (size_t i = 0; i < iters; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (fn(rs, form, len, false, &d))
                                sink += (int)d.action;
                }
                double per = (now_ns() - t0) / (double)iters;
                if (per < best)
                        best = per;
        }
        return best;
}

static double bench_read(const warder_ruleset *rs, const char *path, size_t iters)
{
        double best = 1e30;
        for (int round = 0; round < 5; round++) {
                double t0 = now_ns();
                for (size_t i = 0; i < iters; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (warder_ruleset_check(&d, rs, WARDER_OP_READ, path, strlen(path), NULL,
                                                 0, NULL) == 0)
                                sink += (int)d.action;
                        warder_decision_clear(&d);
                }
                double per = (now_ns() - t0) / (double)iters;
                if (per < best)
                        best = per;
        }
        return best;
}

static int run(int nexec)
{
        struct warder__buf y = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\ndefault: ask\nread:\n  default: allow\n  rules:\n");
        for (int i = 0; i < 1000; i++) {
                switch (i % 4) {
                case 0:
                        warder__buf_printf(&y, "    - deny: '**/secret%d/**'\n", i);
                        break;
                case 1:
                        warder__buf_printf(&y, "    - deny: '/data/p%d/*.txt'\n", i);
                        break;
                case 2:
                        warder__buf_printf(&y, "    - deny: '**/*.k%d'\n", i);
                        break;
                default:
                        warder__buf_printf(&y, "    - ask: 'dir%d/**/*.c'\n", i);
                        break;
                }
        }
        warder__buf_puts(&y, "write:\n  default: ask\n  rules:\n    - allow: '/tmp/**'\n");
        warder__buf_puts(&y, "execute:\n  default: ask\n  rules:\n");
        for (int i = 0; i < nexec; i++) {
                switch (i % 3) {
                case 0:
                        warder__buf_printf(&y, "    - allow: 'tool%d *'\n", i);
                        break;
                case 1:
                        warder__buf_printf(&y, "    - deny: 'danger%d*'\n", i);
                        break;
                default:
                        warder__buf_printf(&y, "    - ask: 'net%d --*'\n", i);
                        break;
                }
        }
        warder__buf_puts(&y, "    - allow: 'git *'\n    - allow: 'ls *'\n    - allow: 'grep *'\n"
                             "    - allow: 'head *'\n    - allow: 'cd *'\n    - allow: 'cat *'\n");
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/ws";
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_load_string(&rs, y.data, y.len, "bench", &o, &err);
        warder__buf_free(&y);
        if (rc) {
                printf("bench-command: ruleset not available (%s); skipped\n", err.message);
                warder_error_clear(&err);
                return 0;
        }

        const char *one = "git status --short";
        /* about 200 bytes, 5 simple commands */
        const char *five = "cd src && git status --short && grep -rn \"TODO\" main.c util.c "
                           "| head -n 20 > /tmp/todo.txt; ls -la build/output/dir build/logs "
                           "&& cat README.md docs/guide.md docs/api.md docs/more.md CHANGES.md";
        struct warder__buf twenty = WARDER__BUF_INIT;
        for (int i = 0; i < 4; i++)
                warder__buf_printf(&twenty, "%s%s", i ? "; " : "", five);

        size_t iters = 20000;
        double base = bench_read(rs, "/ws/src/main.c", iters * 5);
        const char *deny = "danger499 --now", *miss = "frobnicate --all";
        double form = bench_form(rs, one, iters / 4, false);
        double form_lin = bench_form(rs, one, iters / 40, true);
        double fdeny = bench_form(rs, deny, iters / 4, false);
        double fdeny_lin = bench_form(rs, deny, iters / 40, true);
        double fmiss = bench_form(rs, miss, iters / 4, false);
        double fmiss_lin = bench_form(rs, miss, iters / 40, true);
        double t1 = bench_command(rs, one, iters);
        double t5 = bench_command(rs, five, iters);
        double t20 = bench_command(rs, twenty.data, iters / 4);
        printf("bench-command: 1,000 read + %d execute rules\n", nexec);
        printf("  baseline: one read check            %8.0f ns\n", base);
        printf("  one execute form match (ruleset)    %8.0f ns  (linear loop %8.0f ns)\n", form,
               form_lin);
        printf("    '%s' (a deny rule)    %8.0f ns  (linear loop %8.0f ns)\n", deny, fdeny,
               fdeny_lin);
        printf("    '%s' (no rule)       %8.0f ns  (linear loop %8.0f ns)\n", miss, fmiss,
               fmiss_lin);
        printf("  1 segment  (%3zu bytes)              %8.0f ns  (%.1fx baseline)\n", strlen(one),
               t1, t1 / base);
        printf("  5 segments (%3zu bytes)              %8.0f ns  (%.1fx baseline; target <= 20000 "
               "ns)\n",
               strlen(five), t5, t5 / base);
        printf("  20 segments (%3zu bytes)             %8.0f ns  (%.1fx baseline)\n", twenty.len,
               t20, t20 / base);
        warder__buf_free(&twenty);
        warder_ruleset_free(rs);
        return 0;
}

int main(void)
{
        /* 1,000 rules of each kind, then few execute rules: the cost of inspection itself */
        int rc = run(1000);
        if (!rc)
                rc = run(10);
        return rc;
}
