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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/exec.h"

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
        struct warder_exec_result r;
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

static int mask_env(void *ud, const char *literal, const char *real, bool *mask)
{
        (void)ud;
        (void)real;
        const char *base = strrchr(literal, '/');
        *mask = base && strcmp(base, "/.env") == 0;
        return 0;
}

struct variant {
        const char *name;
        struct warder__exec_config cfg;
        double ns;
};

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

        struct variant v[4];
        size_t nv = 0;
        struct warder__exec_config base = {.root = root, .root_fd = -1, .timeout_ms = 10000};
        v[nv++] = (struct variant){"exec backend (plain)", base, 0};
        if (warder__landlock_abi() > 0) {
                struct warder__exec_config c = base;
                c.landlock = WARDER_LANDLOCK_REQUIRED;
                v[nv++] = (struct variant){"exec backend + landlock", c, 0};
        }
        if (geteuid() == 0) {
                struct warder__exec_config c = base;
                c.mask = mask_env;
                v[nv++] = (struct variant){"exec backend + masking (50 files)", c, 0};
                c.landlock =
                    warder__landlock_abi() > 0 ? WARDER_LANDLOCK_REQUIRED : WARDER_LANDLOCK_OFF;
                c.drop_privileges = true;
                c.uid = 65534;
                c.gid = 65534;
                v[nv++] = (struct variant){"exec backend + all (mask, drop, landlock)", c, 0};
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
        const int rounds = 5, per_round = 40;
        double bare = 0;
        int failures = 0;
        /* Warm-up, then interleave the variants so drift hits all of them alike. */
        for (int i = 0; i < 10; i++) {
                failures += bare_spawn() != 0;
                failures += backend_run(&v[0].cfg) != 0;
        }
        for (int round = 0; round < rounds; round++) {
                double t0 = now_ns();
                for (int i = 0; i < per_round; i++)
                        failures += bare_spawn() != 0;
                bare += now_ns() - t0;
                for (size_t k = 0; k < nv; k++) {
                        t0 = now_ns();
                        for (int i = 0; i < per_round; i++)
                                failures += backend_run(&v[k].cfg) != 0;
                        v[k].ns += now_ns() - t0;
                }
        }
        const double n = (double)rounds * per_round;
        printf("bench-exec: %d runs each, `sh -c true`, host heap %zu MiB\n", rounds * per_round,
               rss_mb);
        printf("  %-44s %10.0f ns/run  1.00x\n", "bare posix_spawn (baseline)", bare / n);
        for (size_t k = 0; k < nv; k++)
                printf("  %-44s %10.0f ns/run  %.2fx\n", v[k].name, v[k].ns / n, v[k].ns / bare);
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(heap);
        if (failures) {
                fprintf(stderr, "bench-exec: %d runs failed\n", failures);
                return 1;
        }
        return 0;
}
