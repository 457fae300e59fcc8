/* SPDX-License-Identifier: MIT */
/*
 * grep side by side in one run: warder (the guard over the local backend, default threads)
 * against ripgrep (`rg`, default threads) and GNU grep (`grep -rn`), on a generated tree of
 * 10,000 files / ~100 MB (WARDER_BENCH_SCALE=0.1 for a tenth), four patterns: a literal, a
 * case-insensitive literal, `[0-9]{3}` and an alternation of four words. A peer that is not
 * installed is skipped with the reason. Every tool's output is compared line by line
 * (path:line:text, sorted) with warder's: a difference fails the benchmark. The secrets the
 * guard hides (`.env`, one per directory) are hidden files, which rg skips by default and
 * grep is told to skip (--exclude=.env). warder with one thread is shown too.
 * Times are wall-clock (the tools use several threads), best of interleaved rounds; nothing
 * about time is asserted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "warder/backend.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/ruleset.h"

static double wall(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
        fprintf(stderr, "bench-grep: %s: %s\n", what, strerror(errno));
        exit(1);
}

static char root[256];

static void put(const char *path, const char *data, size_t len)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write(fd, data, len) != (ssize_t)len)
                die(path);
        close(fd);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static const char *words[] = {"alpha",  "beta",   "gamma",  "delta",  "epsilon", "zeta",
                              "theta",  "lambda", "kernel", "tree",   "inode",   "buffer",
                              "return", "static", "const",  "struct", "void",    "int"};
/* rare words: the alternation looks for these */
static const char *rare[] = {"quartz", "zephyr", "jukebox", "vortex"};

static size_t gen_file(char *buf, size_t want)
{
        size_t n = 0;
        while (n < want) {
                size_t line_end = n + 60 + next_rand() % 40;
                uint64_t r = next_rand() % 1000;
                if (r < 2)
                        n += (size_t)sprintf(buf + n, "found warder_needle_%u here ",
                                             (unsigned)(next_rand() % 1000));
                else if (r < 3)
                        n += (size_t)sprintf(buf + n, "found Warder_NEEDLE there ");
                else if (r < 5)
                        n += (size_t)sprintf(buf + n, "%s ", rare[next_rand() % 4]);
                while (n < line_end) {
                        const char *w = words[next_rand() % (sizeof(words) / sizeof(words[0]))];
                        size_t wl = strlen(w);
                        memcpy(buf + n, w, wl);
                        n += wl;
                        buf[n++] = ' ';
                }
                buf[n++] = '\n';
        }
        return n;
}

static warder_backend *make_guard(void)
{
        static const char yaml[] = "warder: 1\ndefault: deny\n"
                                   "read:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n"
                                   "grep:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n";
        struct warder_error e = WARDER_ERROR_INIT;
        warder_backend *b = NULL;
        if (warder_local_new(&b, root, NULL, &e)) {
                fprintf(stderr, "local: %s\n", e.message);
                exit(1);
        }
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        if (warder_ruleset_load_string(&rs, yaml, sizeof(yaml) - 1, "bench", &ro, &e)) {
                fprintf(stderr, "ruleset: %s\n", e.message);
                exit(1);
        }
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = root;
        warder_backend *g = NULL;
        if (warder_guard_new(&g, b, rs, &go, &e)) {
                fprintf(stderr, "guard: %s\n", e.message);
                exit(1);
        }
        warder_ruleset_free(rs);
        return g;
}

/* A list of output lines. */
struct lines {
        char **v;
        size_t n, cap;
};

static void lines_add(struct lines *l, char *s)
{
        if (l->n == l->cap) {
                l->cap = l->cap ? l->cap * 2 : 1024;
                l->v = realloc(l->v, l->cap * sizeof(*l->v));
                if (!l->v)
                        die("realloc");
        }
        l->v[l->n++] = s;
}

static void lines_free(struct lines *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        *l = (struct lines){0};
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs argv with stdout into a temporary file; the wall time, or -1 when it failed. The output
 * lines are kept in *out when out is not NULL. */
static double run_peer(const char *const argv[], struct lines *out)
{
        char tmp[] = "/tmp/warder-bench-grep-out-XXXXXX";
        int fd = mkstemp(tmp);
        if (fd < 0)
                die("mkstemp");
        unlink(tmp);
        double t = wall();
        pid_t pid = fork();
        if (pid == 0) {
                dup2(fd, 1);
                setenv("LC_ALL", "C", 1);
                execvp(argv[0], (char *const *)argv);
                _exit(127);
        }
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
                close(fd);
                return -1;
        }
        double d = wall() - t;
        if (out) {
                FILE *f = fdopen(fd, "r");
                if (!f)
                        die("fdopen");
                rewind(f);
                char *line = NULL;
                size_t cap = 0;
                ssize_t len;
                while ((len = getline(&line, &cap, f)) > 0) {
                        if (line[len - 1] == '\n')
                                line[len - 1] = '\0';
                        lines_add(out, strdup(line));
                }
                free(line);
                fclose(f);
        } else {
                close(fd);
        }
        return d;
}

static double run_warder(warder_backend *b, const char *pattern, bool caseless, unsigned threads,
                         struct lines *out, size_t *hidden)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(pattern);
        req.path = root;
        req.path_len = strlen(root);
        req.flags = caseless ? WARDER_GREP_CASELESS : 0;
        req.max_matches = 0;
        req.threads = threads;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        double t = wall();
        if (warder_backend_grep(&r, b, &req, &e)) {
                fprintf(stderr, "grep: %s\n", e.message);
                exit(1);
        }
        double d = wall() - t;
        if (r.truncated) {
                fprintf(stderr, "bench-grep: warder's grep was truncated\n");
                exit(1);
        }
        *hidden = r.hidden_files;
        if (out) {
                for (size_t i = 0; i < r.count; i++) {
                        char *s = NULL;
                        if (asprintf(&s, "%s:%llu:%s", r.items[i].path,
                                     (unsigned long long)r.items[i].line, r.items[i].text) < 0)
                                die("asprintf");
                        lines_add(out, s);
                }
        }
        warder_grep_result_free(&r);
        return d;
}

static bool have(const char *prog)
{
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
        return system(cmd) == 0;
}

/* Whether two outputs are equal once sorted; prints the first difference. */
static bool same(const char *who, struct lines *a, struct lines *b)
{
        qsort(a->v, a->n, sizeof(*a->v), cmp_str);
        qsort(b->v, b->n, sizeof(*b->v), cmp_str);
        for (size_t i = 0; i < a->n || i < b->n; i++) {
                const char *x = i < a->n ? a->v[i] : "(end)";
                const char *y = i < b->n ? b->v[i] : "(end)";
                if (i >= a->n || i >= b->n || strcmp(x, y) != 0) {
                        fprintf(stderr,
                                "bench-grep: %s differs from warder at line %zu:\n  %s\n  %s\n",
                                who, i, y, x);
                        return false;
                }
        }
        return true;
}

static double best(double a, double b)
{
        return a < b ? a : b;
}

int main(void)
{
        strcpy(root, "/tmp/warder-bench-grep-XXXXXX");
        if (!mkdtemp(root))
                die("mkdtemp");
        double scale = 1.0;
        const char *s = getenv("WARDER_BENCH_SCALE");
        if (s && atof(s) > 0)
                scale = atof(s);
        int files = (int)(10000 * scale);
        if (files < 10)
                files = 10;
        size_t per_file = 10 * 1024;
        char *buf = malloc(per_file + 256);
        size_t bytes = 0;
        char path[PATH_MAX];
        for (int d = 0; d < (files + 99) / 100; d++) {
                snprintf(path, sizeof(path), "%s/d%03d", root, d);
                if (mkdir(path, 0755) != 0 && errno != EEXIST)
                        die(path);
                snprintf(path, sizeof(path), "%s/d%03d/.env", root, d);
                put(path, "TOKEN=warder_needle_0 quartz 123\n", 33);
                for (int f = 0; f < 100 && d * 100 + f < files; f++) {
                        size_t n = gen_file(buf, per_file);
                        snprintf(path, sizeof(path), "%s/d%03d/f%03d.txt", root, d, f);
                        put(path, buf, n);
                        bytes += n;
                }
        }
        free(buf);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        printf("grep tree: %d files, %.1f MB, %ld online CPUs\n", files, (double)bytes / 1e6, cpus);
        bool rg = have("rg"), gnu = have("grep");
        if (!rg)
                printf("ripgrep: skipped (no `rg` on PATH; Debian package ripgrep)\n");
        if (!gnu)
                printf("GNU grep: skipped (no `grep` on PATH)\n");

        warder_backend *guard = make_guard();
        struct {
                const char *name, *pattern;
                bool caseless;
        } pats[] = {
            {"literal", "warder_needle", false},
            {"-i literal", "warder_needle", true},
            {"[0-9]{3}", "[0-9]{3}", false},
            {"alternation", "quartz|zephyr|jukebox|vortex", false},
        };
        bool ok = true;
        printf("%-12s %10s %10s %10s %10s %8s %8s %8s\n", "pattern", "warder ms", "warder-1t",
               "rg ms", "grep ms", "rg/w", "grep/w", "matches");
        for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
                const char *pat = pats[p].pattern;
                const char *rg_argv[] = {
                    "rg", "-n", "--no-heading", "--with-filename", "--no-config", "-e", pat, root,
                    NULL, NULL};
                const char *rg_i_argv[] = {
                    "rg",          "-n", "-i", "--no-heading", "--with-filename",
                    "--no-config", "-e", pat,  root,           NULL};
                const char *gnu_argv[] = {"grep", "-rn", "-E", "--exclude=.env",
                                          "-e",   pat,   root, NULL};
                const char *gnu_i_argv[] = {"grep", "-rni", "-E", "--exclude=.env",
                                            "-e",   pat,    root, NULL};
                const char **rga = pats[p].caseless ? rg_i_argv : rg_argv;
                const char **gna = pats[p].caseless ? gnu_i_argv : gnu_argv;
                struct lines w = {0}, r = {0}, g = {0};
                size_t hidden = 0;
                run_warder(guard, pat, pats[p].caseless, 0, &w, &hidden);
                if (rg && (run_peer(rga, &r) < 0 || !same("rg", &w, &r)))
                        ok = false;
                if (gnu && (run_peer(gna, &g) < 0 || !same("grep", &w, &g)))
                        ok = false;
                double tw = 1e30, t1 = 1e30, tr = 1e30, tg = 1e30;
                for (int round = 0; round < 5; round++) {
                        tw = best(tw, run_warder(guard, pat, pats[p].caseless, 0, NULL, &hidden));
                        t1 = best(t1, run_warder(guard, pat, pats[p].caseless, 1, NULL, &hidden));
                        if (rg)
                                tr = best(tr, run_peer(rga, NULL));
                        if (gnu)
                                tg = best(tg, run_peer(gna, NULL));
                }
                printf("%-12s %10.1f %10.1f", pats[p].name, tw * 1e3, t1 * 1e3);
                if (rg)
                        printf(" %10.1f", tr * 1e3);
                else
                        printf(" %10s", "-");
                if (gnu)
                        printf(" %10.1f", tg * 1e3);
                else
                        printf(" %10s", "-");
                printf(" %7.2fx %7.2fx %8zu (%zu hidden)\n", rg ? tr / tw : 0, gnu ? tg / tw : 0,
                       w.n, hidden);
                lines_free(&w);
                lines_free(&r);
                lines_free(&g);
        }
        printf("ratios are peer time / warder time (default threads): above 1 means warder is "
               "faster; warder-1t searches on the calling thread only\n");
        warder_backend_free(guard);
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", root);
        return ok ? 0 : 1;
}
