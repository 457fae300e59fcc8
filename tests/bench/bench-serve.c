/* SPDX-License-Identifier: MIT */
/*
 * The cost of one guarded request through each door, in one run: `check` of a path and a
 * 4 KiB `read`, (a) through `warder serve` over a pipe (one request at a time: the round
 * trip; and pipelined: requests per second), (b) one `warder` CLI process per call, and
 * (c) a direct call on a session in this process (the floor). Prints p50/p99 round trips,
 * requests per second and the ratios; asserts nothing about time.
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

#include "session/session.h"

extern char **environ;

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

struct stats {
        double p50, p99, mean;
};

static struct stats summarize(double *v, size_t n)
{
        qsort(v, n, sizeof(*v), cmp_double);
        double sum = 0;
        for (size_t i = 0; i < n; i++)
                sum += v[i];
        return (struct stats){v[n / 2], v[(n * 99) / 100], sum / (double)n};
}

static char root[] = "/tmp/warder-bench-serve.XXXXXX";

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

/* ---- (a) the server over a pipe ---------------------------------------------------------- */

struct server {
        pid_t pid;
        int to, from;
        char *buf;
        size_t len, cap;
};

static int server_start(struct server *s, const char *cli)
{
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
                return -1;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        const char *argv[] = {cli,      "serve",       "--root",       root,
                              "--home", "/home/bench", "--no-execute", NULL};
        int rc = posix_spawn(&s->pid, cli, &fa, NULL, (char *const *)argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(in[0]);
        close(out[1]);
        s->to = in[1];
        s->from = out[0];
        s->cap = 1 << 20;
        s->len = 0;
        s->buf = malloc(s->cap);
        return rc || !s->buf ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
        while (n) {
                ssize_t w = write(fd, p, n);
                if (w <= 0)
                        return -1;
                p += w;
                n -= (size_t)w;
        }
        return 0;
}

/* Reads one answer line; returns its length (the line stays in s->buf until the next). */
static long read_line(struct server *s)
{
        for (;;) {
                char *nl = memchr(s->buf, '\n', s->len);
                if (nl) {
                        long n = nl - s->buf + 1;
                        return n;
                }
                if (s->len == s->cap)
                        return -1;
                ssize_t r = read(s->from, s->buf + s->len, s->cap - s->len);
                if (r <= 0)
                        return -1;
                s->len += (size_t)r;
        }
}

static void consume(struct server *s, long n)
{
        memmove(s->buf, s->buf + n, s->len - (size_t)n);
        s->len -= (size_t)n;
}

static int server_call(struct server *s, const char *line, const char *expect)
{
        if (write_all(s->to, line, strlen(line)))
                return -1;
        long n = read_line(s);
        if (n < 0)
                return -1;
        int ok = memmem(s->buf, (size_t)n, expect, strlen(expect)) != NULL ? 0 : -1;
        if (ok)
                fprintf(stderr, "unexpected answer: %.*s", (int)n, s->buf);
        consume(s, n);
        return ok;
}

static void server_stop(struct server *s)
{
        close(s->to);
        close(s->from);
        int st;
        waitpid(s->pid, &st, 0);
        free(s->buf);
}

/* ---- (b) one CLI process per call -------------------------------------------------------- */

static int cli_call(const char *cli, const char *const *args)
{
        const char *argv[16];
        int k = 0;
        argv[k++] = cli;
        const char *common[] = {"--root", root, "--home", "/home/bench", "--json"};
        for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
                argv[k++] = common[i];
        for (size_t i = 0; args[i]; i++)
                argv[k++] = args[i];
        argv[k] = NULL;
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, devnull, 1);
        pid_t pid;
        int rc = posix_spawn(&pid, cli, &fa, NULL, (char *const *)argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(devnull);
        if (rc)
                return -1;
        int st;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- (c) the library in this process ----------------------------------------------------- */

static int lib_check(struct warder_session *s)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = warder_session_check(s, WARDER_OP_READ, "src/main.c", 10, NULL, &d, NULL);
        int ok = !rc && d.action == WARDER_ALLOW ? 0 : -1;
        warder_decision_clear(&d);
        return ok;
}

static int lib_read(struct warder_session *s)
{
        struct warder_session_request req = {
            .op = WARDER_OP_READ, .target = "data.txt", .target_len = 8};
        struct warder_session_result res;
        int rc = warder_session_run(s, &req, &res, NULL);
        int ok = !rc && res.bytes.len == 4096 ? 0 : -1;
        warder_session_result_free(&res);
        return ok;
}

/* ---- the run ----------------------------------------------------------------------------- */

enum { N_SERVER = 20000, N_CLI = 300, N_LIB = 20000, N_PIPELINED = 20000 };

static void report(const char *what, struct stats st)
{
        printf("  %-34s p50 %9.1f us   p99 %9.1f us   %10.0f req/s\n", what, st.p50 / 1e3,
               st.p99 / 1e3, 1e9 / st.mean);
}

int main(void)
{
        const char *cli = getenv("WARDER_CLI");
        if (!cli) {
                fprintf(stderr, "WARDER_CLI is not set\n");
                return 77;
        }
        if (!mkdtemp(root))
                return 1;
        char path[256];
        snprintf(path, sizeof(path), "%s/src", root);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/src/main.c", root);
        FILE *f = fopen(path, "w");
        fputs("int main(void) { return 0; }\n", f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/data.txt", root);
        f = fopen(path, "w");
        for (int i = 0; i < 4096; i++)
                fputc('a' + i % 26, f);
        fclose(f);

        int status = 0;
        double *t = malloc(sizeof(double) * N_SERVER);
        struct stats srv_check, srv_read, cli_check, cli_read, lib_c, lib_r;

        static const char check_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"check\","
                                        "\"params\":{\"op\":\"read\",\"target\":\"src/main.c\"}}\n";
        static const char read_req[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\","
                                       "\"params\":{\"path\":\"data.txt\"}}\n";

        /* (c) the floor: a direct call on a session */
        struct warder_session_config cfg = {.root = root, .home = "/home/bench"};
        struct warder_session *s = NULL;
        if (warder_session_new(&s, &cfg, NULL)) {
                fprintf(stderr, "session failed\n");
                return 1;
        }
        for (int i = 0; i < 1000; i++)
                status |= lib_check(s) | lib_read(s);
        for (int i = 0; i < N_LIB; i++) {
                double a = now_ns();
                status |= lib_check(s);
                t[i] = now_ns() - a;
        }
        lib_c = summarize(t, N_LIB);
        for (int i = 0; i < N_LIB; i++) {
                double a = now_ns();
                status |= lib_read(s);
                t[i] = now_ns() - a;
        }
        lib_r = summarize(t, N_LIB);
        warder_session_free(s);

        /* (a) the server: round trips one at a time */
        struct server sv;
        if (server_start(&sv, cli)) {
                fprintf(stderr, "cannot start %s serve\n", cli);
                return 1;
        }
        for (int i = 0; i < 1000; i++)
                status |= server_call(&sv, check_req, "\"allow\"") |
                          server_call(&sv, read_req, "\"bytes\":4096");
        for (int i = 0; i < N_SERVER; i++) {
                double a = now_ns();
                status |= server_call(&sv, check_req, "\"allow\"");
                t[i] = now_ns() - a;
        }
        srv_check = summarize(t, N_SERVER);
        for (int i = 0; i < N_SERVER; i++) {
                double a = now_ns();
                status |= server_call(&sv, read_req, "\"bytes\":4096");
                t[i] = now_ns() - a;
        }
        srv_read = summarize(t, N_SERVER);

        /* (a') pipelined: write every request, then read every answer (a writer that does
         * not wait for answers) */
        double pipelined[2];
        for (int k = 0; k < 2; k++) {
                const char *req = k ? read_req : check_req;
                size_t rl = strlen(req);
                int window = 64;
                double a = now_ns();
                int sent = 0, got = 0;
                while (got < N_PIPELINED) {
                        while (sent < N_PIPELINED && sent - got < window) {
                                status |= write_all(sv.to, req, rl);
                                sent++;
                        }
                        long n = read_line(&sv);
                        if (n < 0) {
                                status = 1;
                                break;
                        }
                        consume(&sv, n);
                        got++;
                }
                pipelined[k] = (double)N_PIPELINED / ((now_ns() - a) / 1e9);
        }
        server_stop(&sv);

        /* (b) one CLI process per call */
        const char *check_args[] = {"check", "read", "src/main.c", NULL};
        const char *read_args[] = {"read", "data.txt", NULL};
        for (int i = 0; i < 20; i++)
                status |= cli_call(cli, check_args) | cli_call(cli, read_args);
        for (int i = 0; i < N_CLI; i++) {
                double a = now_ns();
                status |= cli_call(cli, check_args);
                t[i] = now_ns() - a;
        }
        cli_check = summarize(t, N_CLI);
        for (int i = 0; i < N_CLI; i++) {
                double a = now_ns();
                status |= cli_call(cli, read_args);
                t[i] = now_ns() - a;
        }
        cli_read = summarize(t, N_CLI);

        printf("check read src/main.c (default preset):\n");
        report("library (warder_session_check)", lib_c);
        report("warder serve, round trip", srv_check);
        report("CLI, one process per call", cli_check);
        printf("  %-34s %10.0f req/s (64 in flight)\n", "warder serve, pipelined", pipelined[0]);
        printf("read of a 4 KiB file:\n");
        report("library (warder_session_run)", lib_r);
        report("warder serve, round trip", srv_read);
        report("CLI, one process per call", cli_read);
        printf("  %-34s %10.0f req/s (64 in flight)\n", "warder serve, pipelined", pipelined[1]);
        printf("ratios (p50): check: CLI/serve %.1fx, serve/library %.1fx; read: CLI/serve "
               "%.1fx, serve/library %.1fx\n",
               cli_check.p50 / srv_check.p50, srv_check.p50 / lib_c.p50,
               cli_read.p50 / srv_read.p50, srv_read.p50 / lib_r.p50);
        printf("targets: check p50 <= 30 us round trip (%s), >= 30x faster than the CLI (%s)\n",
               srv_check.p50 <= 30e3 ? "met" : "NOT met",
               cli_check.p50 / srv_check.p50 >= 30 ? "met" : "NOT met");
        free(t);
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        if (status)
                fprintf(stderr, "a request failed\n");
        return status ? 1 : 0;
}
