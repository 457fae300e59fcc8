/* SPDX-License-Identifier: MIT */
/*
 * Spawn overhead of the exec backend (§6.3) against a bare posix_spawn of `/bin/sh -c true`
 * measured in the same run. Prints ns per run and the ratio; asserts nothing about time.
 */
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/local/exec.h"
#include "ruleset-mask.h"
#include "warder/ruleset.h"

extern char **environ;

static double now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The baseline: spawn, read stdout to EOF, reap. */
static int bare_spawn(void)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
                return -1;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, p[1], 1);
        char a0[] = "sh", a1[] = "-c", a2[] = "true";
        char *argv[] = {a0, a1, a2, NULL};
        static char path[] = "PATH=/usr/local/bin:/usr/bin:/bin";
        char *envp[] = {path, NULL};
        pid_t pid;
        int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        close(p[1]);
        if (rc != 0) {
                close(p[0]);
                return -1;
        }
        char buf[256];
        while (read(p[0], buf, sizeof(buf)) > 0)
                ;
        close(p[0]);
        int st;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int backend_run(const struct warder__exec_config *cfg)
{
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "true";
        req.command_len = 4;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        int rc = warder__exec_run(cfg, &req, &r, NULL);
        if (rc)
                return rc;
        free(r.out.data);
        free(r.err.data);
        return r.exit_status == 0 ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static unsigned mask_env(void *ud, const char *literal, const char *real)
{
        (void)ud;
        (void)real;
        const char *base = strrchr(literal, '/');
        return base && strcmp(base, "/.env") == 0 ? WARDER_MASK_HIDE : 0;
}

struct variant {
        const char *name;
        struct warder__exec_config cfg;
};

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

int main(void)
{
        char root[] = "/tmp/warder-bench-exec-XXXXXX";
        if (!mkdtemp(root))
                return 1;
        for (int i = 0; i < 50; i++) {
                char path[128];
                snprintf(path, sizeof(path), "%s/%s%d", root, i == 0 ? ".env" : "file", i);
                FILE *f = fopen(path, "w");
                if (f) {
                        fputs("x\n", f);
                        fclose(f);
                }
        }

        struct variant v[5];
        size_t nv = 0;
        struct warder__exec_config base = {.root = root, .root_fd = -1, .timeout_ms = 10000};
        v[nv++] = (struct variant){"exec backend (plain)", base};
        if (warder__landlock_abi() > 0) {
                struct warder__exec_config c = base;
                c.landlock = WARDER_LANDLOCK_REQUIRED;
                v[nv++] = (struct variant){"exec backend + landlock", c};
        }
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        if (warder_ruleset_load_preset(&rs, "default", &ro, NULL) != 0)
                return 1;
        if (geteuid() == 0) {
                struct warder__exec_config c = base;
                c.mask = mask_env;
                v[nv++] = (struct variant){"exec backend + masking, predicate (50 files)", c};
                c.mask = ruleset_mask;
                c.mask_ud = rs;
                v[nv++] = (struct variant){"exec backend + masking, default preset (50 files)", c};
                c.landlock =
                    warder__landlock_abi() > 0 ? WARDER_LANDLOCK_REQUIRED : WARDER_LANDLOCK_OFF;
                c.drop_privileges = true;
                c.uid = 65534;
                c.gid = 65534;
                v[nv++] = (struct variant){"exec backend + all (mask, drop, landlock)", c};
        }

        /* A host with a large heap: fork() copies page tables, posix_spawn() does not. */
        size_t rss_mb =
            getenv("WARDER_BENCH_RSS_MB") ? strtoul(getenv("WARDER_BENCH_RSS_MB"), NULL, 10) : 0;
        char *heap = NULL;
        if (rss_mb) {
                heap = malloc(rss_mb << 20);
                if (heap)
                        memset(heap, 1, rss_mb << 20);
        }
        /*
         * Each iteration runs the baseline and every variant once, in turn, so load from
         * elsewhere on the machine hits all of them alike; medians resist the outliers.
         */
        enum { RUNS = 101 };
        static double samples[6][RUNS];
        int failures = 0;
        for (int i = 0; i < 10; i++) {
                failures += bare_spawn() != 0;
                failures += backend_run(&v[0].cfg) != 0;
        }
        for (int i = 0; i < RUNS; i++) {
                double t0 = now_ns();
                failures += bare_spawn() != 0;
                samples[0][i] = now_ns() - t0;
                for (size_t k = 0; k < nv; k++) {
                        t0 = now_ns();
                        failures += backend_run(&v[k].cfg) != 0;
                        samples[k + 1][i] = now_ns() - t0;
                }
        }
        for (size_t k = 0; k <= nv; k++)
                qsort(samples[k], RUNS, sizeof(double), cmp_double);
        const double bare = samples[0][RUNS / 2];
        printf("bench-exec: %d runs each, `sh -c true`, host heap %zu MiB (median, p90)\n", RUNS,
               rss_mb);
        printf("  %-52s %9.0f ns %9.0f ns  1.00x\n", "bare posix_spawn (baseline)", bare,
               samples[0][RUNS * 9 / 10]);
        for (size_t k = 0; k < nv; k++) {
                double med = samples[k + 1][RUNS / 2];
                printf("  %-52s %9.0f ns %9.0f ns  %.2fx\n", v[k].name, med,
                       samples[k + 1][RUNS * 9 / 10], med / bare);
        }

        /* The masking walk alone, over a larger tree: 100 directories of 100 files. */
        if (geteuid() == 0) {
                for (int d = 0; d < 100; d++) {
                        char path[256];
                        snprintf(path, sizeof(path), "%s/tree%d", root, d);
                        mkdir(path, 0755);
                        for (int f = 0; f < 100; f++) {
                                snprintf(path, sizeof(path), "%s/tree%d/f%d.c", root, d, f);
                                FILE *fp = fopen(path, "w");
                                if (fp)
                                        fclose(fp);
                        }
                }
                struct warder__exec_config c = base;
                c.mask = ruleset_mask;
                c.mask_ud = rs;
                enum { WALKS = 21 };
                double walk[WALKS], plain[WALKS];
                for (int i = 0; i < WALKS; i++) {
                        double t0 = now_ns();
                        failures += backend_run(&base) != 0;
                        plain[i] = now_ns() - t0;
                        t0 = now_ns();
                        failures += backend_run(&c) != 0;
                        walk[i] = now_ns() - t0;
                }
                qsort(walk, WALKS, sizeof(double), cmp_double);
                qsort(plain, WALKS, sizeof(double), cmp_double);
                double per = (walk[WALKS / 2] - plain[WALKS / 2]) / 10150.0;
                printf("  masking walk, default preset, 10,150 entries: %.1f ms per command "
                       "(%.0f ns per entry)\n",
                       (walk[WALKS / 2] - plain[WALKS / 2]) / 1e6, per);
        }
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(heap);
        warder_ruleset_free(rs);
        if (failures) {
                fprintf(stderr, "bench-exec: %d runs failed\n", failures);
                return 1;
        }
        return 0;
}
