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
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ruleset/ruleset-internal.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"
#include "workload.h"

extern char **environ;

#define ROOT WL_ROOT
#define HOME WL_HOME

/* CPU time of this thread: the machine is shared, wall time would count other work. */
static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* fnmatch(3) equivalents of the rules (their first anchored alternative, `**` read as `*`):
 * a cost baseline, not a semantic one. */
static char **fnmatch_patterns(const warder_ruleset *rs, size_t n)
{
        char **fnm = calloc(n, sizeof(*fnm));
        for (size_t i = 0; i < n; i++) {
                char **alts = NULL;
                size_t nalts = 0;
                if (warder_ruleset_rule_alternatives(&alts, &nalts, rs, WARDER_OP_READ, i, NULL) ||
                    !nalts)
                        abort();
                fnm[i] = strdup(alts[0]);
                warder_ruleset_strv_free(alts, nalts);
        }
        return fnm;
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

/* CPU time (user + system) of the children so far. */
static double children_cpu(void)
{
        struct rusage ru;
        getrusage(RUSAGE_CHILDREN, &ru);
        return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double spawn_cpu(char *const argv[], int runs)
{
        double t0 = children_cpu();
        for (int r = 0; r < runs; r++) {
                pid_t pid;
                posix_spawn_file_actions_t fa;
                posix_spawn_file_actions_init(&fa);
                posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
                if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0)
                        waitpid(pid, NULL, 0);
                posix_spawn_file_actions_destroy(&fa);
        }
        return (children_cpu() - t0) / runs;
}

/* `bench-ruleset --load-once WHAT`: loads WHAT (`preset:NAME` or a file) once, in this fresh
 * process, and prints the CPU time of that load in ns: what a CLI or hook process pays. */
static int load_once(const char *what)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = ROOT;
        o.home = HOME;
        warder_ruleset *rs = NULL;
        double t0 = now();
        int rc = strncmp(what, "preset:", 7) == 0
                     ? warder_ruleset_load_preset(&rs, what + 7, &o, NULL)
                     : warder_ruleset_load_file(&rs, what, &o, NULL);
        double t = now() - t0;
        printf("%.0f\n", t * 1e9);
        return rc ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* The median CPU time of the first load of `what` in a fresh process (`runs` processes). */
static double fresh_load(const char *what, int runs)
{
        double *v = calloc((size_t)runs, sizeof(*v));
        int got = 0;
        for (int r = 0; r < runs; r++) {
                int fd[2];
                if (pipe(fd))
                        break;
                char *argv[] = {(char *)"/proc/self/exe", (char *)"--load-once", (char *)what,
                                NULL};
                posix_spawn_file_actions_t fa;
                posix_spawn_file_actions_init(&fa);
                posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
                posix_spawn_file_actions_addclose(&fa, fd[0]);
                pid_t pid;
                int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
                posix_spawn_file_actions_destroy(&fa);
                close(fd[1]);
                char buf[64] = {0};
                ssize_t n = rc ? -1 : read(fd[0], buf, sizeof(buf) - 1);
                close(fd[0]);
                int st = 0;
                if (!rc)
                        waitpid(pid, &st, 0);
                if (n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
                        v[got++] = strtod(buf, NULL);
        }
        qsort(v, (size_t)got, sizeof(*v), cmp_double);
        double med = got ? v[got / 2] : -1;
        free(v);
        return med;
}

/* What loading the embedded default preset adds to a `warder check` (a fresh process each
 * time): the CPU time of `warder check read` minus that of `warder --version`, interleaved;
 * and a load of the preset in a process that has loaded it before. */
static void preset_load(void)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = ROOT;
        o.home = HOME;
        double best = 1e9;
        for (int k = 0; k < 200; k++) {
                warder_ruleset *rs = NULL;
                double t0 = now();
                if (warder_ruleset_load_preset(&rs, "default", &o, NULL))
                        abort();
                double t = now() - t0;
                best = t < best ? t : best;
                warder_ruleset_free(rs);
        }
        printf("preset 'default' load in-process: %.1f us CPU (best of 200)\n", best * 1e6);
        printf("preset 'default' first load in a fresh process: %.1f us CPU (median of 100 "
               "processes; target <= 100 us)\n",
               fresh_load("preset:default", 100) / 1e3);
        {
                /* the 1,000 rules bench-hook loads per call */
                char *y1k = wl_yaml(1000);
                char tmpl[] = "/tmp/warder-bench-XXXXXX";
                int fd = mkstemp(tmpl);
                if (fd >= 0 && write(fd, y1k, strlen(y1k)) == (ssize_t)strlen(y1k)) {
                        double b1k = 1e9;
                        for (int k = 0; k < 50; k++) {
                                warder_ruleset *r1k = NULL;
                                double t0 = now();
                                if (warder_ruleset_load_file(&r1k, tmpl, &o, NULL))
                                        break;
                                double t = now() - t0;
                                b1k = t < b1k ? t : b1k;
                                warder_ruleset_free(r1k);
                        }
                        printf("1,000-rule file: load in-process %.0f us CPU (best of 50), first "
                               "load in a fresh process %.0f us (median of 50)\n",
                               b1k * 1e6, fresh_load(tmpl, 50) / 1e3);
                }
                if (fd >= 0)
                        close(fd);
                unlink(tmpl);
                free(y1k);
        }
        const char *cli = getenv("WARDER_CLI");
        if (!cli || access(cli, X_OK) != 0) {
                printf("warder check start: skipped (WARDER_CLI not set)\n");
                return;
        }
        char *version[] = {(char *)cli, (char *)"--version", NULL};
        char *check[] = {(char *)cli,
                         (char *)"check",
                         (char *)"--root",
                         (char *)"/tmp",
                         (char *)"read",
                         (char *)"/tmp/x.c",
                         NULL};
        double v = 0, c = 0;
        for (int round = 0; round < 5; round++) {
                v += spawn_cpu(version, 40);
                c += spawn_cpu(check, 40);
        }
        printf("warder --version %.0f us CPU, warder check read (default preset) %.0f us: "
               "+%.0f us (200 runs each, interleaved)\n",
               v / 5 * 1e6, c / 5 * 1e6, (c - v) / 5 * 1e6);
}

#define NPATHS 4096

int main(int argc, char **argv)
{
        if (argc == 3 && strcmp(argv[1], "--load-once") == 0)
                return load_once(argv[2]);
        static const size_t sizes[] = {10, 100, 1000, 10000};
        char **paths = wl_paths(NPATHS);
        double base10 = 0;
        printf("ruleset benchmark: %d paths, single-form read checks, first-match\n", NPATHS);
        printf("%7s %10s %10s %10s %14s %10s %12s %9s\n", "rules", "ns/check", "strictest",
               "ns/decide", "loop ns/check", "x vs loop", "fnmatch ns", "x vs fnm");
        for (size_t si = 0; si < WARDER__ARRAY_SIZE(sizes); si++) {
                size_t n = sizes[si];
                char *yaml = wl_yaml(n);
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
                char **fnm = fnmatch_patterns(rs, n);
                /* indexed, through the public API (normalisation included) */
                size_t reps = 200, denies = 0;
                double t0 = now();
                for (size_t r = 0; r < reps; r++) {
                        for (size_t i = 0; i < NPATHS; i++) {
                                struct warder_decision d = WARDER_DECISION_INIT;
                                warder_ruleset_check(&d, rs, WARDER_OP_READ, paths[i],
                                                     strlen(paths[i]), NULL, 0, NULL);
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
                                        warder_ruleset_check(&d, srs, WARDER_OP_READ, paths[i],
                                                             strlen(paths[i]), NULL, 0, NULL);
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
                /* past the lazy JIT: every matcher compiled, as a loop that ran a while has */
                for (size_t i = 0; i < n; i++)
                        for (int k = 0; k < 4; k++)
                                sink += warder_glob_match(ref[i].glob, "/", 1);
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
                        /* the same run's floors and reference: the YAML parse alone, and the
                         * load followed by compiling every matcher (what a load cost when
                         * every rule was compiled there) */
                        double yaml_best = 1e9, eager_best = 1e9;
                        for (int k = 0; k < 5; k++) {
                                struct warder__ydoc doc;
                                t0 = now();
                                if (warder__yaml_parse(yaml, strlen(yaml), "bench", 64, 1000000, 0,
                                                       &doc, NULL))
                                        return 1;
                                double t = now() - t0;
                                warder__yaml_free(&doc);
                                yaml_best = t < yaml_best ? t : yaml_best;
                                t0 = now();
                                if (warder_ruleset_load_file(&rs, tmpl, &o, &err) ||
                                    warder__ruleset_compile_all(rs))
                                        return 1;
                                t = now() - t0;
                                warder_ruleset_free(rs);
                                eager_best = t < eager_best ? t : eager_best;
                        }
                        printf("  YAML parse alone %.1f ms (load / parse %.2f); load + compiling "
                               "every matcher %.1f ms (load / that %.2f)\n",
                               yaml_best * 1e3, best / yaml_best, eager_best * 1e3,
                               best / eager_best);
                        printf("  first load in a fresh process: %.1f ms CPU (median of 20 "
                               "processes; target <= 20 ms)\n",
                               fresh_load(tmpl, 20) / 1e6);
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
                        warder_ruleset_check(&d, rs, WARDER_OP_READ, paths[i], strlen(paths[i]),
                                             NULL, 0, NULL);
                }
        printf("preset 'default' read check: %.1f ns\n", (now() - t0) * 1e9 / (200.0 * NPATHS));
        preset_load();
        warder_ruleset_free(rs);
        for (size_t i = 0; i < NPATHS; i++)
                free(paths[i]);
        free(paths);
        return 0;
}
