/* SPDX-License-Identifier: MIT */
/* Runs the built `warder` command (env WARDER_CLI) and captures its output. */
#ifndef WARDER_TEST_CLI_RUN_H
#define WARDER_TEST_CLI_RUN_H

#include <check.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct cli_result {
        int status; /* exit code, or 128 + signal */
        char *out;
        char *err;
        size_t out_len, err_len;
};

static char *cli_slurp(int fd, size_t *len)
{
        size_t cap = 4096, n = 0;
        char *buf = malloc(cap);
        ck_assert_ptr_nonnull(buf);
        for (;;) {
                if (n + 1 >= cap) {
                        cap *= 2;
                        buf = realloc(buf, cap);
                        ck_assert_ptr_nonnull(buf);
                }
                ssize_t r = read(fd, buf + n, cap - n - 1);
                if (r <= 0)
                        break;
                n += (size_t)r;
        }
        buf[n] = '\0';
        *len = n;
        return buf;
}

/* argv[0] is ignored (replaced by the binary); `in` (may be NULL) is fed to stdin. */
static struct cli_result cli_run_in(const char *cwd, const char *in, const char *const *argv)
{
        const char *bin = getenv("WARDER_CLI");
        ck_assert_msg(bin != NULL, "WARDER_CLI is not set");
        char in_path[] = "/tmp/warder-cli-in.XXXXXX";
        char out_path[] = "/tmp/warder-cli-out.XXXXXX";
        char err_path[] = "/tmp/warder-cli-err.XXXXXX";
        int in_fd = mkstemp(in_path), out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
        ck_assert(in_fd >= 0 && out_fd >= 0 && err_fd >= 0);
        if (in)
                ck_assert_int_eq(write(in_fd, in, strlen(in)), (ssize_t)strlen(in));
        lseek(in_fd, 0, SEEK_SET);
        size_t argc = 0;
        while (argv[argc])
                argc++;
        char **args = calloc(argc + 1, sizeof(*args));
        ck_assert_ptr_nonnull(args);
        args[0] = (char *)bin;
        for (size_t i = 1; i < argc; i++)
                args[i] = (char *)argv[i];
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                dup2(in_fd, 0);
                dup2(out_fd, 1);
                dup2(err_fd, 2);
                if (cwd && chdir(cwd) != 0)
                        _exit(126);
                execve(bin, args, environ);
                _exit(127);
        }
        free(args);
        int ws = 0;
        ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
        struct cli_result r = {0};
        r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        lseek(out_fd, 0, SEEK_SET);
        lseek(err_fd, 0, SEEK_SET);
        r.out = cli_slurp(out_fd, &r.out_len);
        r.err = cli_slurp(err_fd, &r.err_len);
        close(in_fd);
        close(out_fd);
        close(err_fd);
        unlink(in_path);
        unlink(out_path);
        unlink(err_path);
        return r;
}

#define cli_run(...) cli_run_in(NULL, NULL, (const char *const[]){"warder", __VA_ARGS__, NULL})

static void cli_result_free(struct cli_result *r)
{
        free(r->out);
        free(r->err);
}

#endif
