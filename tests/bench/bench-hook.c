/* SPDX-License-Identifier: MIT */
/*
 * What a hook costs an agent per tool call (docs/hooks.md): the wall time from spawning
 * `warder hook claude-code` to its answer, with the event written to its stdin and the answer
 * read from its stdout, exactly as an agent runs it — under the default preset and under a
 * file of the 1,000 rules bench-ruleset measures (workload.h), next to /bin/true spawned the
 * same way in the same run. Prints
 * medians and p90s and the ratios; asserts nothing about time.
 *
 * Target: at most 3 ms per call, and at most 2 × /bin/true + 1 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

extern char **environ;

#define RUNS 300

static char root[] = "/tmp/warder-bench-hook.XXXXXX";

static double now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

/* One call: spawn argv with the event on stdin, read stdout to its end, wait. Returns the
 * wall time in ns, or a negative value on failure; *exit_status gets the exit code and *cpu
 * the CPU time (user + system) of the process in ns: on a shared machine the wall time also
 * counts the waits for a core. */
static double one_call(char *const argv[], const char *event, int *exit_status, double *cpu)
{
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
                return -1;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        double t0 = now_ns();
        pid_t pid;
        int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(in[0]);
        close(out[1]);
        if (rc) {
                close(in[1]);
                close(out[0]);
                return -1;
        }
        size_t len = strlen(event);
        /* /bin/true does not read: a closed pipe is not an error here */
        if (write(in[1], event, len) < 0 && errno != EPIPE) {
                /* ignored */
        }
        close(in[1]);
        char buf[4096];
        while (read(out[0], buf, sizeof(buf)) > 0) {
        }
        close(out[0]);
        int st = 0;
        struct rusage ru;
        memset(&ru, 0, sizeof(ru));
        wait4(pid, &st, 0, &ru);
        double t = now_ns() - t0;
        *cpu = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
               ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
        *exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
        return t;
}

struct result {
        double p50, p90, cpu50;
        int status;
};

static struct result measure(char *const argv[], const char *event)
{
        static double v[RUNS], c[RUNS];
        struct result r = {0};
        double cpu;
        for (int i = 0; i < 10; i++) /* warm the page cache and the loader */
                one_call(argv, event, &r.status, &cpu);
        for (int i = 0; i < RUNS; i++) {
                v[i] = one_call(argv, event, &r.status, &c[i]);
                if (v[i] < 0) {
                        r.p50 = r.p90 = -1;
                        return r;
                }
        }
        qsort(v, RUNS, sizeof(v[0]), cmp_double);
        qsort(c, RUNS, sizeof(c[0]), cmp_double);
        r.p50 = v[RUNS / 2];
        r.p90 = v[(RUNS * 9) / 10];
        r.cpu50 = c[RUNS / 2];
        return r;
}

static void put(const char *rel, const char *text)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        FILE *f = fopen(path, "w");
        if (!f) {
                perror(path);
                exit(1);
        }
        fputs(text, f);
        fclose(f);
}

/* The 1,000 rules of bench-ruleset and bench-peers (workload.h), as a file. */
static void write_big_ruleset(const char *path)
{
        char *yaml = wl_yaml(1000);
        FILE *f = fopen(path, "w");
        if (!f || !yaml) {
                perror(path);
                exit(1);
        }
        fputs(yaml, f);
        fclose(f);
        free(yaml);
}

int main(void)
{
        const char *cli = getenv("WARDER_CLI");
        if (!cli) {
                fprintf(stderr, "bench-hook: WARDER_CLI is not set (run through meson)\n");
                return 1;
        }
        signal(SIGPIPE, SIG_IGN); /* /bin/true does not read its stdin */
        if (!mkdtemp(root)) {
                perror("mkdtemp");
                return 1;
        }
        char path[512];
        snprintf(path, sizeof(path), "%s/src", root);
        mkdir(path, 0755);
        put("src/main.c", "int main(void) { return 0; }\n");
        put(".env", "API_KEY=sk-bench\n");
        char big[512];
        snprintf(big, sizeof(big), "%s/rules-1000.yaml", root);
        write_big_ruleset(big);

        char event[1024];
        snprintf(event, sizeof(event),
                 "{\"session_id\":\"bench\",\"transcript_path\":\"/dev/null\",\"cwd\":\"%s\","
                 "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Read\",\"tool_input\":"
                 "{\"file_path\":\"%s/src/main.c\"}}\n",
                 root, root);
        char bash_event[1024];
        snprintf(bash_event, sizeof(bash_event),
                 "{\"session_id\":\"bench\",\"transcript_path\":\"/dev/null\",\"cwd\":\"%s\","
                 "\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
                 "{\"command\":\"git status && cat src/main.c | wc -l\"}}\n",
                 root);

        static char true_path[] = "/bin/true", hook[] = "hook", agent[] = "claude-code",
                    root_opt[] = "--root", rules_opt[] = "--rules", home_opt[] = "--home",
                    home[] = WL_HOME;
        char *true_argv[] = {true_path, NULL};
        char *hook_argv[] = {(char *)cli, hook, agent, root_opt, root, home_opt, home, NULL};
        char *big_argv[] = {(char *)cli, hook, agent,     root_opt, root,
                            home_opt,    home, rules_opt, big,      NULL};

        struct result t = measure(true_argv, event);
        struct result h = measure(hook_argv, event);
        struct result hb = measure(hook_argv, bash_event);
        struct result b = measure(big_argv, event);
        struct result bb = measure(big_argv, bash_event);
        int rc = 0;
        if (t.p50 < 0 || h.p50 < 0 || b.p50 < 0 || hb.p50 < 0 || bb.p50 < 0 || h.status != 0 ||
            b.status != 0) {
                fprintf(stderr, "bench-hook: a call failed (exit %d / %d)\n", h.status, b.status);
                rc = 1;
        } else {
                printf("wall time per call, spawn → answer (%d runs each, median / p90), and "
                       "the CPU time of the process (median):\n",
                       RUNS);
                printf("  %-44s %7.3f ms %7.3f ms  cpu %.3f ms\n", "/bin/true (baseline)",
                       t.p50 / 1e6, t.p90 / 1e6, t.cpu50 / 1e6);
                const struct {
                        const char *name;
                        struct result r;
                } rows[] = {
                    {"hook, default preset, Read", h},
                    {"hook, default preset, Bash (2 commands)", hb},
                    {"hook, 1,000-rule ruleset, Read", b},
                    {"hook, 1,000-rule ruleset, Bash (2 commands)", bb},
                };
                for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                        double budget = 2 * t.p50 + 1e6;
                        printf("  %-44s %7.3f ms %7.3f ms  cpu %.3f ms  %.2fx true  (target "
                               "<= 3 ms and <= %.3f ms: %s)\n",
                               rows[i].name, rows[i].r.p50 / 1e6, rows[i].r.p90 / 1e6,
                               rows[i].r.cpu50 / 1e6, rows[i].r.p50 / t.p50, budget / 1e6,
                               rows[i].r.p50 <= 3e6 && rows[i].r.p50 <= budget ? "met" : "missed");
                }
        }
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return rc;
}
