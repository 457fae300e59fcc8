/* SPDX-License-Identifier: MIT */
/*
 * warder next to its peers on the same rules and paths, in the same run: Rust's globset
 * (tests/bench/globset-peer, built offline from Debian's packaged crates; skipped with the
 * reason where cargo or the crates are absent). Every tool gets every rule's anchored
 * alternatives (warder_ruleset_rule_alternatives()) and answers the first matching rule of
 * every path; the answers are compared, and a disagreement is printed and fails the run.
 *
 *   1. the workload of workload.h at 10 / 100 / 1,000 / 10,000 rules, 4,000 paths;
 *   2. deep paths: the 100-rule set on paths of 100 and 1,000 components;
 *   3. adversarial sets of 10,000 rules without a selective key;
 *   4. load time (warder: YAML to index; globset: building the set).
 * Times are thread CPU time, best of several passes. Prints figures only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ruleset/ruleset-internal.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"
#include "workload.h"

static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *peer; /* the globset peer, or NULL */
static int disagreements;

struct result {
        double ns, load_ms;
        long *first;
        bool ok;
};

static warder_ruleset *load(const char *yaml, double *ms)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = WL_ROOT;
        o.home = WL_HOME;
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        double t0 = now();
        if (warder_ruleset_load_string(&rs, yaml, strlen(yaml), "bench", &o, &err)) {
                fprintf(stderr, "load: %s:%u:%u: %s\n", err.file, err.line, err.column,
                        err.message);
                exit(1);
        }
        *ms = (now() - t0) * 1e3;
        return rs;
}

/* warder through the public API (normalisation included), first match per path. */
static struct result run_warder(const warder_ruleset *rs, char **paths, size_t n, size_t reps)
{
        struct result r = {1e30, 0, calloc(n, sizeof(long)), true};
        for (size_t k = 0; k < reps; k++) {
                double t0 = now();
                for (size_t i = 0; i < n; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (warder_ruleset_check(&d, rs, WARDER_OP_READ, paths[i], strlen(paths[i]),
                                                 NULL, 0, NULL))
                                abort();
                        r.first[i] = d.by_default ? -1 : (long)d.rule_index;
                }
                double ns = (now() - t0) * 1e9 / (double)n;
                if (ns < r.ns)
                        r.ns = ns;
        }
        return r;
}

/* globset on the same anchored alternatives. */
static struct result run_globset(const warder_ruleset *rs, char **paths, size_t n, size_t reps)
{
        struct result r = {0, 0, calloc(n, sizeof(long)), false};
        char rules[] = "/tmp/warder-peer-rules-XXXXXX", pf[] = "/tmp/warder-peer-paths-XXXXXX";
        int fr = mkstemp(rules), fp = mkstemp(pf);
        if (fr < 0 || fp < 0)
                abort();
        FILE *f = fdopen(fr, "w");
        for (size_t i = 0; i < warder_ruleset_rule_count(rs, WARDER_OP_READ); i++) {
                char **alts = NULL;
                size_t nalts = 0;
                if (warder_ruleset_rule_alternatives(&alts, &nalts, rs, WARDER_OP_READ, i, NULL))
                        abort();
                for (size_t k = 0; k < nalts; k++)
                        fprintf(f, "%zu\t%s\n", i, alts[k]);
                warder_ruleset_strv_free(alts, nalts);
        }
        fclose(f);
        f = fdopen(fp, "w");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s\n", paths[i]);
        fclose(f);
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "'%s' %s %s %zu", peer, rules, pf, reps);
        FILE *p = popen(cmd, "r");
        size_t got = 0;
        if (p) {
                char line[256];
                while (fgets(line, sizeof(line), p)) {
                        if (sscanf(line, "build_ms %lf", &r.load_ms) == 1)
                                continue;
                        if (sscanf(line, "ns_per_path %lf", &r.ns) == 1)
                                continue;
                        if (got < n)
                                r.first[got++] = strtol(line, NULL, 10);
                }
                int st = pclose(p);
                r.ok = st == 0 && got == n;
        }
        unlink(rules);
        unlink(pf);
        return r;
}

static void compare(const char *what, const warder_ruleset *rs, char **paths, size_t n,
                    const struct result *w, const struct result *g)
{
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
                if (w->first[i] == g->first[i])
                        continue;
                if (bad++ < 3) {
                        struct warder_rule_info a = WARDER_RULE_INFO_INIT;
                        struct warder_rule_info b = WARDER_RULE_INFO_INIT;
                        bool ha = w->first[i] >= 0 &&
                                  !warder_ruleset_rule(&a, rs, WARDER_OP_READ, (size_t)w->first[i]);
                        bool hb = g->first[i] >= 0 &&
                                  !warder_ruleset_rule(&b, rs, WARDER_OP_READ, (size_t)g->first[i]);
                        printf("  DISAGREE %s: '%s': warder %ld (%s), globset %ld (%s)\n", what,
                               paths[i], w->first[i], ha ? a.pattern : "-", g->first[i],
                               hb ? b.pattern : "-");
                }
        }
        if (bad) {
                printf("  %zu of %zu paths disagree\n", bad, n);
                disagreements++;
        }
}

/* One row: warder and globset on rules `yaml` and `paths`. */
static void row(const char *label, const char *yaml, char **paths, size_t n, size_t reps)
{
        double load_ms;
        warder_ruleset *rs = load(yaml, &load_ms);
        struct result w = run_warder(rs, paths, n, reps);
        struct result g = {0, 0, NULL, false};
        if (peer) {
                g = run_globset(rs, paths, n, reps);
                if (g.ok)
                        compare(label, rs, paths, n, &w, &g);
        }
        if (g.ok)
                printf("%-34s %10.1f %12.1f %9.1fx %10.2f %12.2f\n", label, w.ns, g.ns, g.ns / w.ns,
                       load_ms, g.load_ms);
        else
                printf("%-34s %10.1f %12s %10s %10.2f %12s\n", label, w.ns, peer ? "failed" : "-",
                       "-", load_ms, "-");
        free(w.first);
        free(g.first);
        warder_ruleset_free(rs);
}

static void header(const char *title)
{
        printf("\n%s\n%-34s %10s %12s %10s %10s %12s\n", title, "", "warder ns", "globset ns",
               "gs/warder", "warder ms", "globset ms");
}

static char *adversarial_yaml(const char *fmt, size_t n)
{
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "warder: 1\ndefault: allow\nread:\n  rules:\n");
        for (size_t i = 0; i < n; i++) {
                warder__buf_puts(&b, "    - deny: '");
                warder__buf_printf(&b, fmt, (unsigned)i);
                warder__buf_puts(&b, "'\n");
        }
        return warder__buf_steal(&b);
}

static char **adversarial_paths(size_t n)
{
        static const char *const parts[] = {"x%uy", "a%u", "src", "x%u.c", "lib%u", "q%uy"};
        char **p = calloc(n, sizeof(*p));
        for (size_t i = 0; i < n; i++) {
                struct warder__buf b = WARDER__BUF_INIT;
                warder__buf_puts(&b, WL_ROOT);
                unsigned depth = 1 + wl_rnd(5);
                for (unsigned k = 0; k < depth; k++) {
                        warder__buf_putc(&b, '/');
                        warder__buf_printf(&b, parts[wl_rnd(6)], wl_rnd(20000));
                }
                p[i] = warder__buf_steal(&b);
        }
        return p;
}

static void free_paths(char **p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(p[i]);
        free(p);
}

#define NPATHS 4000

int main(void)
{
        peer = getenv("WARDER_GLOBSET_PEER");
        if (peer && access(peer, X_OK) != 0)
                peer = NULL;
        if (peer) {
                /* the stand-in built where cargo or the crates are missing says why */
                char cmd[512];
                snprintf(cmd, sizeof(cmd), "'%s' /dev/null /dev/null 1 >/dev/null", peer);
                if (system(cmd) != 0)
                        peer = NULL;
        } else {
                printf("globset peer skipped: WARDER_GLOBSET_PEER is not set (run through "
                       "`meson test --benchmark peers`)\n");
        }
        printf("rule matching: first matching rule per path, %d paths, thread CPU time\n", NPATHS);
        char **paths = wl_paths(NPATHS);
        header("1. workload (workload.h)");
        static const size_t sizes[] = {10, 100, 1000, 10000};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(sizes); i++) {
                char *yaml = wl_yaml(sizes[i]);
                char label[64];
                snprintf(label, sizeof(label), "%zu rules", sizes[i]);
                row(label, yaml, paths, NPATHS, sizes[i] >= 10000 ? 3 : 10);
                free(yaml);
        }
        free_paths(paths, NPATHS);

        header("2. deep paths, 100 rules");
        char *yaml = wl_yaml(100);
        static const size_t depths[] = {10, 100, 1000};
        for (size_t d = 0; d < 2 * WARDER__ARRAY_SIZE(depths); d++) {
                size_t depth = depths[d / 2];
                bool tmp = d % 2 == 0;
                size_t n = depth >= 1000 ? 100 : 400;
                char **deep = calloc(n, sizeof(*deep));
                for (size_t i = 0; i < n; i++)
                        deep[i] = tmp ? wl_deep_path(depth, (unsigned)i * 31 + 5)
                                      : wl_deep_plain(depth, (unsigned)i);
                char label[64];
                snprintf(label, sizeof(label), "%zu components, %s", depth,
                         tmp ? "cache .tmp" : "src .c");
                row(label, yaml, deep, n, 10);
                free_paths(deep, n);
        }
        free(yaml);

        header("3. adversarial, 10,000 rules without a selective key");
        static const char *const adv[] = {"**/*x%u*y", "**/[a-z]%u*/**", "**/[a-c]?[0-9]*%u[!x]"};
        static const size_t advn[] = {10000, 10000, 1000};
        char **ap = adversarial_paths(1000);
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(adv); i++) {
                yaml = adversarial_yaml(adv[i], advn[i]);
                char label[64];
                snprintf(label, sizeof(label), "%s x%zu", adv[i], advn[i]);
                row(label, yaml, ap, 1000, 3);
                free(yaml);
        }
        free_paths(ap, 1000);
        if (disagreements) {
                printf("\n%d comparisons disagreed\n", disagreements);
                return 1;
        }
        return 0;
}
