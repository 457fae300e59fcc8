/* SPDX-License-Identifier: MIT */
/*
 * Ruleset benchmark: ns per single-form check at 10, 100, 1,000 and 10,000 rules with a
 * realistic mix (the secrets preset, generated rules of every key kind, residual globs), over
 * a few thousand realistic paths; side by side, in the same run, (a) a loop over per-rule
 * compiled matchers (the core matcher, PCRE2 underneath) and (b) a loop over fnmatch(3);
 * the load time of a 10,000-rule YAML file and the memory retained per rule.
 * Prints figures only; never asserts on time.
 */
#include <fnmatch.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ruleset/ruleset-internal.h"
#include "warder/ruleset.h"

#define ROOT "/work/project"
#define HOME "/home/user"

static unsigned long long rng = 42;

static unsigned rnd(unsigned n)
{
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned)((rng >> 33) % n);
}

/* CPU time of this thread: the machine is shared, wall time would count other work. */
static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const secrets[] = {
    "**/.env",     "**/.env.*",   "**/*.pem",      "**/*.key",   "**/*.crt",   "**/credentials*",
    "**/secrets*", "**/*secret*", "**/*password*", "**/.aws/**", "**/.ssh/**", "**/.gnupg/**"};
static const char *const actions[] = {"deny", "deny", "ask", "allow"};

/* Builds an N-rule `read` block; fills fnm[] with fnmatch(3) equivalents (absolute, braces
 * expanded to the first alternative: a cost baseline, not a semantic one). */
static char *make_yaml(size_t n, char ***fnm_out)
{
        struct warder__buf b = WARDER__BUF_INIT;
        char **fnm = calloc(n, sizeof(*fnm));
        warder__buf_puts(&b, "warder: 1\ndefault: allow\nread:\n  default: allow\n  rules:\n");
        size_t npre = n / 2 < 12 ? n / 2 : 12;
        for (size_t i = 0; i < npre; i++) {
                warder__buf_printf(&b, "    - deny: '%s'\n      reason: Protect sensitive files\n",
                                   secrets[i]);
                char *f = NULL;
                if (asprintf(&f, "*/%s", secrets[i] + 3) < 0)
                        abort();
                fnm[i] = f;
        }
        for (size_t i = npre; i < n; i++) {
                unsigned k = (unsigned)(i % 8);
                unsigned id = (unsigned)(i * 7 % 20000);
                char pat[128], fp[160];
                switch (k) {
                case 0:
                        snprintf(pat, sizeof(pat), "/var/lib/svc%u/*/data/**", id);
                        snprintf(fp, sizeof(fp), "/var/lib/svc%u/*/data/*", id);
                        break;
                case 1:
                        snprintf(pat, sizeof(pat), "dir%u/**/*.{c,h}", id);
                        snprintf(fp, sizeof(fp), ROOT "/dir%u/*.c", id);
                        break;
                case 2:
                        snprintf(pat, sizeof(pat), "**/file%u.txt", id);
                        snprintf(fp, sizeof(fp), "*/file%u.txt", id);
                        break;
                case 3:
                        snprintf(pat, sizeof(pat), "**/*.ext%u", id);
                        snprintf(fp, sizeof(fp), "*.ext%u", id);
                        break;
                case 4:
                        snprintf(pat, sizeof(pat), "/opt/pkg%u/**", id);
                        snprintf(fp, sizeof(fp), "/opt/pkg%u/*", id);
                        break;
                case 5:
                        snprintf(pat, sizeof(pat), "**/cache%u/**", id);
                        snprintf(fp, sizeof(fp), "*/cache%u/*", id);
                        break;
                case 6:
                        snprintf(pat, sizeof(pat), "/srv/site%u/index.html", id);
                        snprintf(fp, sizeof(fp), "/srv/site%u/index.html", id);
                        break;
                default:
                        snprintf(pat, sizeof(pat), "~/proj%u/**/*.log", id);
                        snprintf(fp, sizeof(fp), HOME "/proj%u/*.log", id);
                        break;
                }
                warder__buf_printf(&b, "    - %s: '%s'\n", actions[rnd(4)], pat);
                fnm[i] = strdup(fp);
        }
        *fnm_out = fnm;
        return warder__buf_steal(&b);
}

static char **make_paths(size_t n)
{
        char **p = calloc(n, sizeof(*p));
        for (size_t i = 0; i < n; i++) {
                unsigned id = rnd(20000);
                char b[256];
                switch (rnd(10)) {
                case 0:
                        snprintf(b, sizeof(b), ROOT "/src/mod%u/file%u.c", id % 50, id);
                        break;
                case 1:
                        snprintf(b, sizeof(b), ROOT "/dir%u/sub/x%u.h", id, id % 7);
                        break;
                case 2:
                        snprintf(b, sizeof(b), "/var/lib/svc%u/inst/data/db%u", id, id % 3);
                        break;
                case 3:
                        snprintf(b, sizeof(b), HOME "/%s", rnd(2) ? ".ssh/id_ed25519" : ".bashrc");
                        break;
                case 4:
                        snprintf(b, sizeof(b), HOME "/proj%u/logs/run%u.log", id, id % 9);
                        break;
                case 5:
                        snprintf(b, sizeof(b), "/opt/pkg%u/bin/tool", id);
                        break;
                case 6:
                        snprintf(b, sizeof(b), ROOT "/node_modules/cache%u/pkg/index.js", id);
                        break;
                case 7:
                        snprintf(b, sizeof(b), ROOT "/%s", rnd(2) ? ".env" : "README.md");
                        break;
                case 8:
                        snprintf(b, sizeof(b), "/srv/site%u/index.html", id);
                        break;
                default:
                        snprintf(b, sizeof(b), ROOT "/docs/file%u.txt", id);
                        break;
                }
                p[i] = strdup(b);
        }
        return p;
}

/* A field of /proc/self/status in KiB, or -1. */
static long status_kib(const char *field)
{
        FILE *f = fopen("/proc/self/status", "r");
        if (!f)
                return -1;
        char line[256];
        long v = -1;
        size_t n = strlen(field);
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, n) == 0 && line[n] == ':')
                        v = strtol(line + n + 1, NULL, 10);
        fclose(f);
        return v;
}

/* Peak resident growth while loading `path`, measured in a child whose peak was reset. */
static void peak_load(const char *path, const struct warder_ruleset_options *o, size_t n)
{
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                malloc_trim(0);
                FILE *f = fopen("/proc/self/clear_refs", "w");
                if (!f || fputs("5", f) < 0 || fclose(f) != 0)
                        _exit(1);
                long rss0 = status_kib("VmRSS");
                warder_ruleset *rs = NULL;
                if (warder_ruleset_load_file(&rs, path, o, NULL))
                        _exit(1);
                long hwm = status_kib("VmHWM");
                printf("peak memory growth while loading: %.0f bytes per rule\n",
                       (double)(hwm - rss0) * 1024.0 / (double)n);
                fflush(stdout);
                _exit(0);
        }
        int st = 0;
        if (pid > 0)
                waitpid(pid, &st, 0);
        if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                printf("peak memory growth while loading: not measurable here\n");
}

#define NPATHS 4096

int main(void)
{
        static const size_t sizes[] = {10, 100, 1000, 10000};
        char **paths = make_paths(NPATHS);
        double base10 = 0;
        printf("ruleset benchmark: %d paths, single-form read checks, first-match\n", NPATHS);
        printf("%7s %10s %10s %10s %14s %10s %12s %9s\n", "rules", "ns/check", "strictest",
               "ns/decide", "loop ns/check", "x vs loop", "fnmatch ns", "x vs fnm");
        for (size_t si = 0; si < WARDER__ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si];
                char **fnm;
                char *yaml = make_yaml(n, &fnm);
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = ROOT;
                o.home = HOME;
                warder_ruleset *rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                if (warder_ruleset_load_string(&rs, yaml, strlen(yaml), "bench", &o, &err)) {
                        fprintf(stderr, "load: %s:%u:%u: %s\n", err.file, err.line, err.column,
                                err.message);
                        return 1;
                }
                /* indexed, through the public API (normalisation included) */
                size_t reps = 200, denies = 0;
                double t0 = now();
                for (size_t r = 0; r < reps; r++) {
                        for (size_t i = 0; i < NPATHS; i++) {
                                struct warder_decision d = WARDER_DECISION_INIT;
                                warder_ruleset_check(rs, WARDER_OP_READ, paths[i], NULL, &d, NULL);
                                denies += d.action == WARDER_DENY;
                        }
                }
                double check_ns = (now() - t0) * 1e9 / (double)(reps * NPATHS);
                /* the same rules under precedence: strictest */
                double strict_ns = 0;
                {
                        struct warder__buf sy = WARDER__BUF_INIT;
                        warder__buf_puts(&sy, "precedence: strictest\n");
                        warder__buf_puts(&sy, yaml);
                        warder_ruleset *srs = NULL;
                        if (warder_ruleset_load_string(&srs, sy.data, sy.len, "bench", &o, &err))
                                return 1;
                        t0 = now();
                        for (size_t r = 0; r < reps; r++) {
                                for (size_t i = 0; i < NPATHS; i++) {
                                        struct warder_decision d = WARDER_DECISION_INIT;
                                        warder_ruleset_check(srs, WARDER_OP_READ, paths[i], NULL,
                                                             &d, NULL);
                                        denies += d.action == WARDER_DENY;
                                }
                        }
                        strict_ns = (now() - t0) * 1e9 / (double)(reps * NPATHS);
                        warder_ruleset_free(srs);
                        warder__buf_free(&sy);
                }
                /* the index alone on normalised paths */
                t0 = now();
                long sink = 0;
                for (size_t r = 0; r < reps; r++)
                        for (size_t i = 0; i < NPATHS; i++)
                                sink += warder__index_decide(rs, WARDER_OP_READ, paths[i],
                                                             strlen(paths[i]));
                double decide_ns = (now() - t0) * 1e9 / (double)(reps * NPATHS);
                /* (a) a loop over per-rule compiled matchers, in order, first match wins */
                struct warder__rule *ref = calloc(n, sizeof(*ref));
                const struct warder__opset *set = &rs->ops[WARDER_OP_READ];
                for (size_t i = 0; i < n; i++) {
                        ref[i].action = set->rules[i].action;
                        ref[i].pattern = set->rules[i].pattern;
                        ref[i].file = "bench";
                        if (warder__rule_compile_path(&ref[i], ROOT, HOME, false, true, NULL,
                                                      &err)) {
                                fprintf(stderr, "ref: %s\n", err.message);
                                return 1;
                        }
                }
                size_t lchecks = n >= 10000 ? 1024 : n >= 1000 ? 4096 : 4 * NPATHS;
                t0 = now();
                for (size_t c = 0; c < lchecks; c++) {
                        const char *p = paths[c % NPATHS];
                        size_t len = strlen(p);
                        for (size_t i = 0; i < n; i++) {
                                if (warder_glob_match(ref[i].glob, p, len) > 0) {
                                        sink += (long)i;
                                        break;
                                }
                        }
                }
                double loop_ns = (now() - t0) * 1e9 / (double)lchecks;
                /* (b) a loop over fnmatch(3) */
                t0 = now();
                for (size_t c = 0; c < lchecks; c++) {
                        const char *p = paths[c % NPATHS];
                        for (size_t i = 0; i < n; i++) {
                                if (fnmatch(fnm[i], p, 0) == 0) {
                                        sink += (long)i;
                                        break;
                                }
                        }
                }
                double fnm_ns = (now() - t0) * 1e9 / (double)lchecks;
                if (n == 10)
                        base10 = check_ns;
                printf("%7zu %10.1f %10.1f %10.1f %14.1f %10.1f %12.1f %9.1f\n", n, check_ns,
                       strict_ns, decide_ns, loop_ns, loop_ns / check_ns, fnm_ns,
                       fnm_ns / check_ns);
                (void)sink;
                (void)denies;
                for (size_t i = 0; i < n; i++) {
                        ref[i].pattern = NULL;
                        warder__rule_release(&ref[i]);
                        free(fnm[i]);
                }
                free(ref);
                free(fnm);
                warder_ruleset_free(rs);
                if (n == 10000) {
                        printf("10,000 / 10 rules check time ratio: %.2f\n", check_ns / base10);
                        /* load time of a 10,000-rule file, and retained memory per rule */
                        char tmpl[] = "/tmp/warder-bench-XXXXXX";
                        int fd = mkstemp(tmpl);
                        if (fd < 0 || write(fd, yaml, strlen(yaml)) != (ssize_t)strlen(yaml))
                                return 1;
                        close(fd);
                        double best = 1e9;
                        for (int k = 0; k < 5; k++) {
                                struct mallinfo2 m0 = mallinfo2();
                                t0 = now();
                                if (warder_ruleset_load_file(&rs, tmpl, &o, &err)) {
                                        fprintf(stderr, "%s\n", err.message);
                                        return 1;
                                }
                                double t = now() - t0;
                                struct mallinfo2 m1 = mallinfo2();
                                if (t < best)
                                        best = t;
                                if (k == 0)
                                        printf("memory retained per rule: %.0f bytes (%zu rules, "
                                               "%zu-byte file)\n",
                                               (double)(m1.uordblks - m0.uordblks) / (double)n, n,
                                               strlen(yaml));
                                warder_ruleset_free(rs);
                        }
                        printf("load of a 10,000-rule YAML file: %.1f ms CPU (best of 5)\n",
                               best * 1e3);
                        peak_load(tmpl, &o, n);
                        unlink(tmpl);
                }
                free(yaml);
        }
        /* presets alone, for reference */
        warder_ruleset *rs = NULL;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = ROOT;
        o.home = HOME;
        warder_ruleset_load_preset(&rs, "default", &o, NULL);
        double t0 = now();
        for (size_t r = 0; r < 200; r++)
                for (size_t i = 0; i < NPATHS; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        warder_ruleset_check(rs, WARDER_OP_READ, paths[i], NULL, &d, NULL);
                }
        printf("preset 'default' read check: %.1f ns\n", (now() - t0) * 1e9 / (200.0 * NPATHS));
        warder_ruleset_free(rs);
        for (size_t i = 0; i < NPATHS; i++)
                free(paths[i]);
        free(paths);
        return 0;
}
