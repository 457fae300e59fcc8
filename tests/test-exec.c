/* SPDX-License-Identifier: MIT */
/*
 * The exec backend (§6.3): capture, environment, working directory, process group and
 * deadline, descriptors, privilege drop, Landlock and masking. Every confinement test has a
 * control arm that shows the same command succeeding without the confinement.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <linux/audit.h>
#include <stddef.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/local/exec.h"
#include "ruleset-mask.h"
#include "warder/guard.h"
#include "warder/memory.h"
#include "warder/sys/backend.h"
#include "support.h"

extern char **environ;

static char root[64];
static char outside[64];

static void write_text(const char *dir, const char *name, const char *text)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
}

static void make_dir(const char *dir, const char *name)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        ck_assert_int_eq(mkdir(path, 0755), 0);
}

static bool exists(const char *dir, const char *name)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        struct stat st;
        return lstat(path, &st) == 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static void setup(void)
{
        snprintf(root, sizeof(root), "/tmp/warder-exec-root-XXXXXX");
        snprintf(outside, sizeof(outside), "/tmp/warder-exec-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(root));
        ck_assert_ptr_nonnull(mkdtemp(outside));
        /* Readable for the dropped-privilege tests. */
        chmod(root, 0755);
        chmod(outside, 0755);
        write_text(root, ".env", "API_KEY=SECRET-ROOT-ENV\n");
        write_text(root, "main.c", "int main(void) { return 0; }\n");
        make_dir(root, "sub");
        write_text(root, "sub/notes.txt", "plain notes\n");
        make_dir(root, "secrets");
        write_text(root, "secrets/token", "SECRET-TOKEN\n");
        write_text(outside, "secret", "SECRET-OUTSIDE\n");
        warder__landlock_abi_override = -1;
}

static void teardown(void)
{
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        nftw(outside, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void config(struct warder__exec_config *cfg)
{
        *cfg = (struct warder__exec_config){0};
        cfg->root = root;
        cfg->root_fd = -1;
        cfg->timeout_ms = 20000;
}

static int run_in(const struct warder__exec_config *cfg, const char *cwd, const char *command,
                  struct warder_exec_result *out, struct warder_error *err)
{
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = command;
        req.command_len = strlen(command);
        req.cwd = cwd;
        return warder__exec_run(cfg, &req, out, err);
}

static int run(const struct warder__exec_config *cfg, const char *command,
               struct warder_exec_result *out)
{
        return run_in(cfg, NULL, command, out, NULL);
}

static void result_free(struct warder_exec_result *r)
{
        free(r->out.data);
        free(r->err.data);
        *r = (struct warder_exec_result)WARDER_EXEC_RESULT_INIT;
}

/* ---- capture, status ---- */

START_TEST(test_capture_and_status)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, "echo out; echo err >&2; exit 3", &r), 0);
        ck_assert_str_eq(r.out.data, "out\n");
        ck_assert_uint_eq(r.out.len, 4);
        ck_assert_str_eq(r.err.data, "err\n");
        ck_assert_int_eq(r.exit_status, 3);
        ck_assert_int_eq(r.signal, 0);
        ck_assert(!r.timed_out);
        ck_assert(!r.out.truncated && !r.err.truncated);
        ck_assert(!r.landlock_applied && !r.masked);
        result_free(&r);

        ck_assert_int_eq(run(&cfg, "kill -TERM $$", &r), 0);
        ck_assert_int_eq(r.exit_status, -1);
        ck_assert_int_eq(r.signal, SIGTERM);
        result_free(&r);

        /* Empty output is an empty, NUL-terminated string. */
        ck_assert_int_eq(run(&cfg, "true", &r), 0);
        ck_assert_ptr_nonnull(r.out.data);
        ck_assert_uint_eq(r.out.len, 0);
        ck_assert_int_eq(r.exit_status, 0);
        result_free(&r);
}
END_TEST

START_TEST(test_bad_requests)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, &err), WARDER_EINVAL);
        req.command = "echo a\0b";
        req.command_len = 8;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, &err), WARDER_EINVAL);
        req.command_len = 6;
        req.version = 99;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, &err), WARDER_EINVAL);
        ck_assert_int_eq(r.exit_status, 42); /* untouched on failure */
        warder_error_clear(&err);
}
END_TEST

/* The command is length-delimited: bytes after command_len are not run. */
START_TEST(test_command_length)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "echo one; echo two";
        req.command_len = 8;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        ck_assert_str_eq(r.out.data, "one\n");
        result_free(&r);
}
END_TEST

START_TEST(test_output_cap_keeps_draining)
{
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.max_output = 1000;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* 4 MiB on each stream, far beyond the cap and any pipe buffer: the child must not
         * block (or die of SIGPIPE) after the cap. */
        ck_assert_int_eq(run(&cfg,
                             "head -c 4194304 /dev/zero; head -c 4194304 /dev/zero >&2; echo done "
                             ">&2; exit 7",
                             &r),
                         0);
        ck_assert_int_eq(r.exit_status, 7);
        ck_assert(!r.timed_out);
        ck_assert_uint_eq(r.out.len, 1000);
        ck_assert(r.out.truncated);
        ck_assert_uint_eq(r.err.len, 1000);
        ck_assert(r.err.truncated);
        result_free(&r);

        /* Exactly at the cap is not truncated. */
        ck_assert_int_eq(run(&cfg, "head -c 1000 /dev/zero", &r), 0);
        ck_assert_uint_eq(r.out.len, 1000);
        ck_assert(!r.out.truncated);
        result_free(&r);
}
END_TEST

struct stream_log {
        size_t bytes[3];
        size_t calls;
        char first[64];
};

static void on_stream(void *ud, int stream, const char *data, size_t len)
{
        struct stream_log *log = ud;
        ck_assert(stream == 1 || stream == 2);
        if (log->bytes[1] + log->bytes[2] == 0)
                snprintf(log->first, sizeof(log->first), "%.*s", (int)len, data);
        log->bytes[stream] += len;
        log->calls++;
}

START_TEST(test_streaming)
{
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.max_output = 10;
        struct stream_log log = {0};
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "echo first; sleep 0.1; head -c 100000 /dev/zero; echo e >&2";
        req.command_len = strlen(req.command);
        req.stream = on_stream;
        req.stream_ud = &log;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        /* The first chunk arrived on its own, before the rest was produced. */
        ck_assert_str_eq(log.first, "first\n");
        ck_assert_uint_ge(log.calls, 2);
        /* The stream sees everything; the capture stops at the cap. */
        ck_assert_uint_eq(log.bytes[1], 6 + 100000);
        ck_assert_uint_eq(log.bytes[2], 2);
        ck_assert_uint_eq(r.out.len, 10);
        ck_assert(r.out.truncated);
        result_free(&r);
}
END_TEST

/* ---- environment ---- */

START_TEST(test_environment_is_fresh)
{
        /* Control arm: the variable is in the host's environment. */
        ck_assert_int_eq(setenv("WARDER_HOST_ONLY", "host-value-leak", 1), 0);
        ck_assert_str_eq(getenv("WARDER_HOST_ONLY"), "host-value-leak");

        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* Default: only PATH. */
        ck_assert_int_eq(run(&cfg, "env", &r), 0);
        ck_assert_ptr_null(strstr(r.out.data, "host-value-leak"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "PATH=/usr/local/bin:/usr/bin:/bin"));
        result_free(&r);

        /* The backend's list. */
        static const char *const backend_env[] = {"PATH=/usr/bin:/bin", "FROM_BACKEND=1", NULL};
        cfg.env = backend_env;
        ck_assert_int_eq(run(&cfg, "env", &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "FROM_BACKEND=1"));
        ck_assert_ptr_null(strstr(r.out.data, "host-value-leak"));
        result_free(&r);

        /* The request's list replaces the backend's. */
        static const char *const req_env[] = {"PATH=/usr/bin:/bin", "FROM_REQUEST=2", NULL};
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "env";
        req.command_len = 3;
        req.env = req_env;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "FROM_REQUEST=2"));
        ck_assert_ptr_null(strstr(r.out.data, "FROM_BACKEND"));
        ck_assert_ptr_null(strstr(r.out.data, "host-value-leak"));
        result_free(&r);
        unsetenv("WARDER_HOST_ONLY");
}
END_TEST

/* ---- working directory ---- */

START_TEST(test_cwd)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        char expect[256], cwd[256];
        ck_assert_int_eq(run(&cfg, "pwd", &r), 0);
        snprintf(expect, sizeof(expect), "%s\n", root);
        ck_assert_str_eq(r.out.data, expect);
        result_free(&r);

        snprintf(cwd, sizeof(cwd), "%s/sub", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "pwd; cat notes.txt", &r, NULL), 0);
        snprintf(expect, sizeof(expect), "%s/sub\nplain notes\n", root);
        ck_assert_str_eq(r.out.data, expect);
        result_free(&r);

        /* `..` normalises lexically and stays inside. */
        snprintf(cwd, sizeof(cwd), "%s/sub/../sub/.", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "pwd", &r, NULL), 0);
        snprintf(expect, sizeof(expect), "%s/sub\n", root);
        ck_assert_str_eq(r.out.data, expect);
        result_free(&r);
}
END_TEST

START_TEST(test_cwd_outside)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;
        char cwd[256];

        ck_assert_int_eq(run_in(&cfg, outside, "touch ran", &r, &err), WARDER_EOUTSIDE);
        ck_assert_ptr_nonnull(strstr(err.message, "outside"));
        snprintf(cwd, sizeof(cwd), "%s/..", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "touch ran", &r, &err), WARDER_EOUTSIDE);
        /* A sibling whose name extends the root's is outside too. */
        snprintf(cwd, sizeof(cwd), "%sx", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "touch ran", &r, &err), WARDER_EOUTSIDE);
        /* A symlink inside the root that leads out. Control arm: it does lead to a
         * directory. */
        char link[256];
        snprintf(link, sizeof(link), "%s/escape", root);
        ck_assert_int_eq(symlink(outside, link), 0);
        struct stat st;
        ck_assert_int_eq(stat(link, &st), 0);
        ck_assert(S_ISDIR(st.st_mode));
        ck_assert_int_eq(run_in(&cfg, link, "touch ran", &r, &err), WARDER_EOUTSIDE);
        ck_assert_int_eq(run_in(&cfg, "relative", "touch ran", &r, &err), WARDER_EINVAL);
        snprintf(cwd, sizeof(cwd), "%s/missing", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "touch ran", &r, &err), WARDER_ENOENT);
        snprintf(cwd, sizeof(cwd), "%s/main.c", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "touch ran", &r, &err), WARDER_ENOTDIR);
        ck_assert_int_eq(r.exit_status, 42);
        ck_assert(!exists(outside, "ran"));
        ck_assert(!exists(root, "ran"));
        warder_error_clear(&err);
}
END_TEST

/* ---- descriptors ---- */

START_TEST(test_no_descriptor_leaks)
{
        /* A descriptor the host left inheritable. Control arm: a plain spawn inherits it. */
        int fd = open("/dev/null", O_RDONLY);
        ck_assert_int_ge(fd, 3);
        ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
        char needle[16];
        snprintf(needle, sizeof(needle), "\n%d\n", fd);

        int pfd[2];
        ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
        char a0[] = "sh", a1[] = "-c", a2[] = "ls /proc/$$/fd";
        char *argv[] = {a0, a1, a2, NULL};
        pid_t pid;
        ck_assert_int_eq(posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        close(pfd[1]);
        char buf[512] = {0};
        size_t got = 0;
        ssize_t n;
        while ((n = read(pfd[0], buf + got, sizeof(buf) - 1 - got)) > 0)
                got += (size_t)n;
        close(pfd[0]);
        waitpid(pid, NULL, 0);
        ck_assert_msg(strstr(buf, needle) != NULL, "control arm: fd %d not inherited: %s", fd, buf);

        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* `ls` inherits the shell's descriptors, and adds 3 for the directory it reads. */
        ck_assert_int_eq(run(&cfg, "ls /proc/self/fd", &r), 0);
        ck_assert_str_eq(r.out.data, "0\n1\n2\n3\n");
        result_free(&r);
        close(fd);
}
END_TEST

/* A host without descriptors 0-2: nothing the child needs may land on them. */
START_TEST(test_host_without_stdio)
{
        struct warder__exec_config cfg;
        config(&cfg);
        if (warder__landlock_abi() > 0)
                cfg.landlock = WARDER_LANDLOCK_REQUIRED;
        char cwd[256], expect[256], cmd[512];
        snprintf(cwd, sizeof(cwd), "%s/sub", root);
        snprintf(cmd, sizeof(cmd), "pwd; ls /proc/self/fd; cat %s/secret 2>/dev/null", outside);
        int saved = fcntl(2, F_DUPFD_CLOEXEC, 10);
        close(0);
        close(1);
        close(2);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = run_in(&cfg, cwd, cmd, &r, &err);
        dup2(saved, 2);
        ck_assert_msg(rc == 0, "%s", err.message);
        snprintf(expect, sizeof(expect), "%s/sub\n0\n1\n2\n3\n", root);
        ck_assert_str_eq(r.out.data, expect);
        ck_assert_int_eq(r.landlock_applied, cfg.landlock == WARDER_LANDLOCK_REQUIRED);
        result_free(&r);
        warder_error_clear(&err);
}
END_TEST

/* ---- process group, deadline, and nothing outlives the command (§6.4) ---- */

/*
 * How many processes run `sleep <marker>` (found by their command line in /proc). A pid
 * printed inside the command's PID namespace means nothing out here, so survivors are
 * looked for by what they run.
 */
static int count_sleepers_pid(const char *marker, pid_t *last)
{
        DIR *d = opendir("/proc");
        ck_assert_ptr_nonnull(d);
        struct dirent *de;
        int n = 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                char path[300], buf[256];
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                ssize_t len = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (len <= 0)
                        continue;
                buf[len] = '\0';
                /* argv is NUL-separated: "sleep\0<marker>\0" */
                const char *arg1 = buf + strlen(buf) + 1;
                if (arg1 < buf + len && strstr(buf, "sleep") && strcmp(arg1, marker) == 0) {
                        /* A zombie has an empty cmdline; this one is alive. */
                        n++;
                        if (last)
                                *last = (pid_t)atol(de->d_name);
                }
        }
        closedir(d);
        return n;
}

static int count_sleepers(const char *marker)
{
        return count_sleepers_pid(marker, NULL);
}

/* Waits up to 2 s for processes to be gone (the kernel reaps a PID namespace at once, but a
 * loaded machine may take a moment to schedule the deaths). */
static int sleepers_left(const char *marker)
{
        int n = 0;
        for (int i = 0; i < 200 && (n = count_sleepers(marker)) > 0; i++)
                usleep(10000);
        return n;
}

static void unique_marker(char *buf, size_t cap, int k)
{
        snprintf(buf, cap, "%d.%d%d", 900 + k, (int)getpid() % 1000, k);
}

static unsigned fake_mask(void *ud, const char *literal, const char *real);

/* Control arm: a process group kill does not reach a `setsid` child (it left the group). */
START_TEST(test_setsid_escapes_a_group_kill)
{
        char marker[32], cmd[128];
        unique_marker(marker, sizeof(marker), 7);
        snprintf(cmd, sizeof(cmd), "setsid sleep %s & sleep 5", marker);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                setpgid(0, 0);
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        setpgid(pid, pid);
        for (int i = 0; i < 200 && count_sleepers(marker) == 0; i++)
                usleep(10000);
        ck_assert_int_eq(kill(-pid, SIGKILL), 0);
        waitpid(pid, NULL, 0);
        usleep(100000);
        pid_t survivor = 0;
        ck_assert_int_eq(count_sleepers_pid(marker, &survivor), 1); /* it survived */
        ck_assert_int_eq(kill(survivor, SIGKILL), 0);
        ck_assert_int_eq(sleepers_left(marker), 0);
}
END_TEST

/*
 * §6.4: the command is the child of the first process of its own PID namespace, so what it
 * starts dies with it — at the deadline and when it ends — a `setsid` job and a double fork
 * included. (A host where the kernel refuses the namespace gets pid_namespace false; this
 * machine is expected to allow it for root, which CI is.)
 */
START_TEST(test_nothing_outlives_the_command)
{
        struct warder__exec_config cfg;
        config(&cfg);
        char m[4][32], cmd[512];
        for (int k = 0; k < 4; k++)
                unique_marker(m[k], sizeof(m[k]), k);
        /* At the deadline. */
        cfg.timeout_ms = 1500;
        snprintf(cmd, sizeof(cmd),
                 "setsid sleep %s & (sleep %s &) ; sleep %s & echo started; sleep %s", m[0], m[1],
                 m[2], m[3]);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ck_assert(r.timed_out);
        ck_assert_int_eq(r.signal, SIGKILL);
        ck_assert_int_eq(r.exit_status, -1);
        ck_assert_str_eq(r.out.data, "started\n");
        /* Not the 900 s the command asked for (a bound on correctness, not a benchmark). */
        ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 50);
        if (geteuid() == 0)
                ck_assert(r.pid_namespace);
        if (r.pid_namespace)
                for (int k = 0; k < 4; k++)
                        ck_assert_msg(sleepers_left(m[k]) == 0, "sleep %s survived", m[k]);
        result_free(&r);

        /* When the shell exits on its own. */
        cfg.timeout_ms = 20000;
        snprintf(cmd, sizeof(cmd), "setsid sleep %s & (sleep %s &) ; echo done", m[0], m[1]);
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(!r.timed_out);
        ck_assert_int_eq(r.exit_status, 0);
        ck_assert_str_eq(r.out.data, "done\n");
        if (r.pid_namespace)
                for (int k = 0; k < 2; k++)
                        ck_assert_msg(sleepers_left(m[k]) == 0, "sleep %s survived", m[k]);
        result_free(&r);
}
END_TEST

/* The command still gets its exit status and its own signals (it is not the namespace's
 * init, which would ignore them). */
START_TEST(test_status_through_the_init)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, "kill -KILL $$", &r), 0);
        ck_assert_int_eq(r.signal, SIGKILL);
        ck_assert_int_eq(r.exit_status, -1);
        ck_assert(!r.timed_out);
        result_free(&r);
        ck_assert_int_eq(run(&cfg, "exit 42", &r), 0);
        ck_assert_int_eq(r.exit_status, 42);
        ck_assert_int_eq(r.signal, 0);
        result_free(&r);
        /* With masks, /proc is the command's own: `$$` is its entry, and no host process is
         * listed (so /proc/<host pid>/root does not exist). */
        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg,
                             "test -d /proc/$$ && tr '\\0' ' ' < /proc/$$/cmdline; echo; "
                             "ls /proc | grep -c '^[0-9]'",
                             &r),
                         0);
        if (r.pid_namespace) {
                ck_assert_ptr_nonnull(strstr(r.out.data, "sh -c "));
                int procs = atoi(strchr(r.out.data, '\n') + 1);
                ck_assert_int_le(procs, 6); /* init, sh, ls, grep: not the host's hundreds */
        }
        result_free(&r);
}
END_TEST

#if defined(__x86_64__)
#define EXEC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define EXEC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/*
 * Where the kernel refuses the namespaces (a seccomp filter here, as in some container
 * runtimes), the command runs without them and the result says so; a masked command for a
 * host that is not root would need the user namespace and is refused instead.
 */
START_TEST(test_pid_namespace_refused)
{
#ifdef EXEC_AUDIT_ARCH
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                struct sock_filter f[] = {
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, EXEC_AUDIT_ARCH, 1, 0),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
                    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWPID, 0, 1),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
                        _exit(77);
                struct warder__exec_config cfg;
                config(&cfg);
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                if (run(&cfg, "echo $$", &r) != 0)
                        _exit(10);
                if (r.pid_namespace || r.exit_status != 0 || atoi(r.out.data) <= 1)
                        _exit(11);
                result_free(&r);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        if (WEXITSTATUS(st) == 77)
                fprintf(stderr, "note: cannot install a seccomp filter here\n");
        else
                ck_assert_msg(WEXITSTATUS(st) == 0, "child exit %d", WEXITSTATUS(st));
#endif
}
END_TEST

/* ---- cancellation ---- */

struct canceller {
        warder_cancel *flag;
        unsigned delay_ms;
};

static void *cancel_later(void *arg)
{
        struct canceller *c = arg;
        struct timespec ts = {c->delay_ms / 1000, (long)(c->delay_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
        warder_cancel_trigger(c->flag);
        return NULL;
}

/* A raised flag kills the whole group at once; without it the same command would run for
 * its 100 s (the control arm: the same flag left alone lets a short command finish). */
START_TEST(test_cancel_kills_group)
{
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.timeout_ms = 60000;
        warder_cancel *flag = NULL;
        ck_assert_int_eq(warder_cancel_new(&flag), 0);
        ck_assert(!warder_cancel_triggered(flag));
        ck_assert_int_ge(warder_cancel_fd(flag), 0);
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "sleep 0.2; echo done";
        req.command_len = strlen(req.command);
        req.cancel = flag;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        ck_assert_str_eq(r.out.data, "done\n");
        ck_assert(!r.cancelled && !r.timed_out);
        ck_assert_int_eq(r.exit_status, 0);
        result_free(&r);

        struct canceller c = {flag, 300};
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &c), 0);
        char marker[32], cmd[96];
        unique_marker(marker, sizeof(marker), 9);
        snprintf(cmd, sizeof(cmd), "setsid sleep %s & sleep 100", marker);
        req.command = cmd;
        req.command_len = strlen(req.command);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        pthread_join(t, NULL);
        ck_assert(warder_cancel_triggered(flag));
        ck_assert(r.cancelled);
        ck_assert(!r.timed_out);
        ck_assert_int_eq(r.signal, SIGKILL);
        ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 50);
        if (r.pid_namespace) /* §6.4: the whole namespace went with it */
                ck_assert_int_eq(sleepers_left(marker), 0);
        result_free(&r);

        /* raised before the start: the command is killed at once */
        req.command = "sleep 100";
        req.command_len = strlen(req.command);
        ck_assert_int_eq(warder__exec_run(&cfg, &req, &r, NULL), 0);
        ck_assert(r.cancelled);
        result_free(&r);
        warder_cancel_free(flag);
        warder_cancel_free(NULL);
        warder_cancel_trigger(NULL);
        ck_assert(!warder_cancel_triggered(NULL));
        ck_assert_int_eq(warder_cancel_fd(NULL), -1);
}
END_TEST

/* A version 1 request (before `cancel`) still runs through the dispatch layer. */
START_TEST(test_request_version_1)
{
        warder_backend *b = NULL;
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.exec = true;
        ck_assert_int_eq(warder_local_new(&b, "/tmp", &o, NULL), 0);
        /* the struct a version 1 caller had: everything up to `cancel`; its result ends before
         * `cancelled` (here the rest of r stays as it was) */
        unsigned char storage[offsetof(struct warder_exec_request, cancel)];
        struct warder_exec_request full = WARDER_EXEC_REQUEST_INIT;
        full.version = 1;
        full.command = "echo v1";
        full.command_len = 7;
        memcpy(storage, &full, sizeof(storage));
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder_backend_execute(
                             &r, b, (const struct warder_exec_request *)(void *)storage, NULL),
                         0);
        ck_assert_str_eq(r.out.data, "v1\n");
        ck_assert(!r.cancelled);
        warder_exec_result_free(&r);
        warder_backend_free(b);
}
END_TEST

/* An endless producer still meets its deadline (the capture never starves the clock). */
START_TEST(test_deadline_endless_output)
{
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.timeout_ms = 300;
        cfg.max_output = 4096;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, "cat /dev/zero", &r), 0);
        ck_assert(r.timed_out);
        ck_assert_int_eq(r.signal, SIGKILL);
        ck_assert_uint_eq(r.out.len, 4096);
        ck_assert(r.out.truncated);
        result_free(&r);
}
END_TEST

/* The command's processes form a group of their own, not the host's. */
START_TEST(test_own_process_group)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* cut is in the shell's group; /proc/self/stat shows it in the host's numbering. */
        ck_assert_int_eq(run(&cfg, "cut -d' ' -f5 /proc/self/stat", &r), 0);
        long pgid = atol(r.out.data);
        ck_assert_int_gt(pgid, 1);
        ck_assert_int_ne(pgid, getpgrp());
        result_free(&r);
}
END_TEST

/* ---- privilege drop ---- */

START_TEST(test_privilege_drop)
{
        if (geteuid() != 0)
                return; /* needs root; CI runs as root */
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* Control arm: without the drop the child is root with root's groups. */
        ck_assert_int_eq(run(&cfg, "id -u; id -g", &r), 0);
        ck_assert_str_eq(r.out.data, "0\n0\n");
        result_free(&r);

        cfg.drop_privileges = true;
        cfg.uid = 65534;
        cfg.gid = 65534;
        ck_assert_int_eq(run(&cfg, "id -u; id -g; id -G; grep NoNewPrivs /proc/self/status", &r),
                         0);
        ck_assert_str_eq(r.out.data, "65534\n65534\n65534\nNoNewPrivs:\t1\n");
        result_free(&r);

        /* The dropped child cannot read a root-only file. Control arm: root can. */
        write_text(root, "private", "ROOT-ONLY\n");
        char path[256];
        snprintf(path, sizeof(path), "%s/private", root);
        ck_assert_int_eq(chmod(path, 0600), 0);
        ck_assert_int_eq(run(&cfg, "cat private", &r), 0);
        ck_assert_ptr_null(strstr(r.out.data, "ROOT-ONLY"));
        ck_assert_int_ne(r.exit_status, 0);
        result_free(&r);
        cfg.drop_privileges = false;
        ck_assert_int_eq(run(&cfg, "cat private", &r), 0);
        ck_assert_str_eq(r.out.data, "ROOT-ONLY\n");
        result_free(&r);
}
END_TEST

static void *idle_thread(void *arg)
{
        int *fd = arg;
        char c;
        (void)read(*fd, &c, 1);
        return NULL;
}

/* A multi-threaded host: the drop changes the child's ids only, never the host's. */
START_TEST(test_privilege_drop_threaded_host)
{
        if (geteuid() != 0)
                return;
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, idle_thread, &p[0]), 0);
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.drop_privileges = true;
        cfg.uid = 65534;
        cfg.gid = 65534;
        cfg.timeout_ms = 10000;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, "id -u", &r), 0);
        ck_assert_str_eq(r.out.data, "65534\n");
        ck_assert(!r.timed_out);
        result_free(&r);
        ck_assert_int_eq(geteuid(), 0);
        ck_assert_int_eq(getegid(), 0);
        ck_assert_int_eq(write(p[1], "x", 1), 1);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        close(p[0]);
        close(p[1]);
}
END_TEST

/* ---- Landlock ---- */

static bool python3_available(void)
{
        return access("/usr/bin/python3", X_OK) == 0;
}

static bool landlock_available(void)
{
        return warder__landlock_abi() > 0;
}

START_TEST(test_landlock_confines)
{
        if (!landlock_available())
                return;
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        char cmd[512];

        /*
         * Both as plain commands and wrapped in `sh -c` (what an inspection might be told to
         * allow): the kernel does not care how the command was spelled.
         */
        static const char *const reads[] = {"cat %s/secret", "sh -c 'cat %s/secret'",
                                            "python3 -c 'print(open(\"%s/secret\").read())'"};
        static const char *const writes[] = {"echo x > %s/file%d", "sh -c 'echo x > %s/file%d'"};
        for (int on = 0; on < 2; on++) {
                cfg.landlock = on ? WARDER_LANDLOCK_REQUIRED : WARDER_LANDLOCK_OFF;
                for (size_t i = 0; i < 3; i++) {
                        if (i == 2 && !python3_available())
                                continue;
                        snprintf(cmd, sizeof(cmd), reads[i], outside);
                        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
                        ck_assert_int_eq(r.landlock_applied, on);
                        if (on) {
                                ck_assert_msg(!strstr(r.out.data, "SECRET-OUTSIDE"), "%s", cmd);
                                ck_assert_int_ne(r.exit_status, 0);
                        } else { /* control arm */
                                ck_assert_msg(strstr(r.out.data, "SECRET-OUTSIDE"), "%s", cmd);
                        }
                        result_free(&r);
                }
                for (size_t i = 0; i < 2; i++) {
                        char name[32];
                        int n = on * 10 + (int)i;
                        snprintf(cmd, sizeof(cmd), writes[i], outside, n);
                        snprintf(name, sizeof(name), "file%d", n);
                        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
                        if (on) {
                                ck_assert_int_ne(r.exit_status, 0);
                                ck_assert(!exists(outside, name));
                        } else { /* control arm */
                                ck_assert_int_eq(r.exit_status, 0);
                                ck_assert(exists(outside, name));
                        }
                        result_free(&r);
                }
        }

        /* Inside the root everything works, and the system a shell needs is readable. */
        ck_assert_int_eq(run(&cfg,
                             "echo y > sub/new && cat sub/new && mkdir d && mv sub/new d/ && "
                             "ls d && rm -r d && cat main.c >/dev/null && id -u >/dev/null",
                             &r),
                         0);
        ck_assert_str_eq(r.out.data, "y\nnew\n");
        ck_assert_int_eq(r.exit_status, 0);
        result_free(&r);

        /* Declared trees: readable, or writable. */
        static const char *read_list[] = {"/bin", "/usr", "/lib", "/lib64", NULL};
        const char *write_list[] = {outside, NULL};
        cfg.landlock_read = read_list;
        cfg.landlock_write = write_list;
        snprintf(cmd, sizeof(cmd), "echo x > %s/file && cat %s/secret", outside, outside);
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_str_eq(r.out.data, "SECRET-OUTSIDE\n");
        ck_assert(exists(outside, "file"));
        result_free(&r);
        /* /etc/passwd is in the defaults, not in the declared list. */
        ck_assert_int_eq(run(&cfg, "cat /etc/passwd", &r), 0);
        ck_assert_int_ne(r.exit_status, 0);
        ck_assert_uint_eq(r.out.len, 0);
        result_free(&r);
}
END_TEST

/* Every ABI version's rights are accepted by this kernel and still confine. */
START_TEST(test_landlock_abi_versions)
{
        int kernel = warder__landlock_abi();
        if (kernel <= 0)
                return;
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.landlock = WARDER_LANDLOCK_REQUIRED;
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "cat main.c >/dev/null && cat %s/secret", outside);
        for (int abi = 1; abi <= kernel; abi++) {
                warder__landlock_abi_override = abi;
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_msg(run_in(&cfg, NULL, cmd, &r, &err) == 0, "abi %d: %s", abi,
                              err.message);
                ck_assert_msg(r.landlock_applied, "abi %d", abi);
                ck_assert_ptr_null(strstr(r.out.data, "SECRET-OUTSIDE"));
                ck_assert_int_ne(r.exit_status, 0);
                result_free(&r);
                warder_error_clear(&err);
        }
        warder__landlock_abi_override = -1;
}
END_TEST

START_TEST(test_landlock_unavailable)
{
        warder__landlock_abi_override = 0;
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;

        /* required: fails closed, nothing runs. */
        cfg.landlock = WARDER_LANDLOCK_REQUIRED;
        ck_assert_int_eq(run_in(&cfg, NULL, "touch ran", &r, &err), WARDER_ENOTSUP);
        ck_assert_ptr_nonnull(strstr(err.message, "not run"));
        ck_assert_int_eq(r.exit_status, 42);
        ck_assert(!exists(root, "ran"));

        /* best-effort: runs, and says Landlock was not applied. */
        cfg.landlock = WARDER_LANDLOCK_BEST_EFFORT;
        ck_assert_int_eq(run_in(&cfg, NULL, "touch ran", &r, &err), 0);
        ck_assert(!r.landlock_applied);
        ck_assert_int_eq(r.exit_status, 0);
        ck_assert(exists(root, "ran"));
        result_free(&r);
        warder_error_clear(&err);
        warder__landlock_abi_override = -1;

        /* best-effort where it is available: applied. */
        if (landlock_available()) {
                ck_assert_int_eq(run(&cfg, "true", &r), 0);
                ck_assert(r.landlock_applied);
                result_free(&r);
        }
}
END_TEST

/* ---- masking ---- */

struct fake_rules {
        size_t calls;
        unsigned sleep_us;
        bool fail;
};

/* Denies reading `.env`, anything named `*.key` and the directory `secrets`. A predicate that
 * cannot decide hides (fail closed). */
static unsigned fake_mask(void *ud, const char *literal, const char *real)
{
        struct fake_rules *fr = ud;
        if (fr) {
                fr->calls++;
                if (fr->sleep_us)
                        usleep(fr->sleep_us);
                if (fr->fail)
                        return WARDER_MASK_HIDE;
        }
        const char *paths[] = {literal, real};
        for (int i = 0; i < 2; i++) {
                if (!paths[i])
                        continue;
                const char *base = strrchr(paths[i], '/');
                base = base ? base + 1 : paths[i];
                size_t n = strlen(base);
                if (strcmp(base, ".env") == 0 || strcmp(base, "secrets") == 0 ||
                    (n > 4 && strcmp(base + n - 4, ".key") == 0) ||
                    strncmp(base, "private.key", 11) == 0)
                        return WARDER_MASK_HIDE;
        }
        return 0;
}

START_TEST(test_mask_control_and_effect)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "cat .env; grep -r SECRET . ; ls secrets; cat secrets/token; "
                          "find . -name .env -exec cat {} \\;";

        /* Control arm: without masking the secrets are there. */
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-ROOT-ENV"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-TOKEN"));
        ck_assert(!r.masked);
        result_free(&r);

        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        ck_assert_ptr_null(strstr(r.err.data, "SECRET"));
        result_free(&r);

        if (python3_available()) {
                const char *py = "python3 -c 'print(open(\".env\").read())'";
                cfg.mask = NULL;
                ck_assert_int_eq(run(&cfg, py, &r), 0);
                ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-ROOT-ENV"));
                result_free(&r);
                cfg.mask = fake_mask;
                ck_assert_int_eq(run(&cfg, py, &r), 0);
                ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
                result_free(&r);
        }

        /* Only in the child's namespace: the host still sees the file, and no mount of ours
         * is left in the host's table. */
        FILE *f;
        char path[256], line[4096];
        snprintf(path, sizeof(path), "%s/.env", root);
        f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
        fclose(f);
        ck_assert_str_eq(line, "API_KEY=SECRET-ROOT-ENV\n");
        f = fopen("/proc/self/mountinfo", "r");
        ck_assert_ptr_nonnull(f);
        while (fgets(line, sizeof(line), f))
                ck_assert_msg(strstr(line, root) == NULL, "mount left behind: %s", line);
        fclose(f);
}
END_TEST

/* The options of the mount at `point` in a mountinfo text (its sixth field), or NULL. */
static char *mount_options(const char *mountinfo, const char *point)
{
        char *copy = strdup(mountinfo), *save = NULL, *found = NULL;
        ck_assert_ptr_nonnull(copy);
        for (char *line = strtok_r(copy, "\n", &save); line && !found;
             line = strtok_r(NULL, "\n", &save)) {
                char *field[6], *fs = NULL;
                int n = 0;
                for (char *f = strtok_r(line, " ", &fs); f && n < 6; f = strtok_r(NULL, " ", &fs))
                        field[n++] = f;
                if (n == 6 && strcmp(field[4], point) == 0)
                        found = strdup(field[5]);
        }
        free(copy);
        return found;
}

static bool has_option(const char *options, const char *want)
{
        size_t n = strlen(want);
        for (const char *o = options; o; o = strchr(o, ','), o = o ? o + 1 : NULL)
                if (strncmp(o, want, n) == 0 && (o[n] == ',' || o[n] == '\0'))
                        return true;
        return false;
}

/* What covers a hidden file or directory is read-only, and nothing can be run, gain
 * privileges or reach a device through it: its mount is ro, nosuid, nodev and noexec, as the
 * command's own /proc/self/mountinfo shows (the control: without masking there is no mount
 * there, and the options of / are read the same way). */
START_TEST(test_mask_mount_options)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        char env[300], secrets[300];
        snprintf(env, sizeof(env), "%s/.env", root);
        snprintf(secrets, sizeof(secrets), "%s/secrets", root);
        ck_assert_int_eq(run(&cfg, "cat /proc/self/mountinfo", &r), 0);
        ck_assert_ptr_null(mount_options(r.out.data, env));
        char *slash = mount_options(r.out.data, "/");
        ck_assert_ptr_nonnull(slash);
        ck_assert(has_option(slash, "rw") || has_option(slash, "ro"));
        free(slash);
        result_free(&r);
        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, "cat /proc/self/mountinfo", &r), 0);
        ck_assert(r.masked);
        const char *points[] = {env, secrets};
        for (int i = 0; i < 2; i++) {
                char *o = mount_options(r.out.data, points[i]);
                ck_assert_msg(o, "no mount on %s", points[i]);
                static const char *const want[] = {"ro", "nosuid", "nodev", "noexec"};
                for (int k = 0; k < 4; k++)
                        ck_assert_msg(has_option(o, want[k]), "%s mounted %s: no %s", points[i], o,
                                      want[k]);
                free(o);
        }
        result_free(&r);
}
END_TEST

/* The ruleset decides (§6.3): the `default` preset's secrets rules, anchored at the root. */
START_TEST(test_mask_with_ruleset)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_load_preset(&rs, "default", &ro, &err) == 0, "%s",
                      err.message);
        write_text(root, "sub/server.key", "SECRET-KEY\n");
        char link[256];
        snprintf(link, sizeof(link), "%s/sub/innocent.txt", root);
        ck_assert_int_eq(symlink("../.env", link), 0);

        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "cat .env sub/server.key sub/innocent.txt secrets/token; grep -r "
                          "SECRET . ; cat main.c sub/notes.txt";
        /* Control arm. */
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-ROOT-ENV"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-KEY"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-TOKEN"));
        result_free(&r);

        cfg.mask = ruleset_mask;
        cfg.mask_ud = rs;
        ck_assert_msg(run_in(&cfg, NULL, cmd, &r, &err) == 0, "%s", err.message);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        /* What the ruleset allows stays readable. */
        ck_assert_ptr_nonnull(strstr(r.out.data, "int main(void)"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "plain notes"));
        result_free(&r);
        warder_ruleset_free(rs);
        warder_error_clear(&err);
}
END_TEST

START_TEST(test_mask_symlink_and_nested)
{
        struct warder__exec_config cfg;
        config(&cfg);
        make_dir(root, "sub/deep");
        write_text(root, "sub/deep/server.key", "SECRET-KEY\n");
        char link[256];
        snprintf(link, sizeof(link), "%s/sub/link-to-env", root);
        ck_assert_int_eq(symlink("../.env", link), 0);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "cat sub/link-to-env sub/deep/server.key; ls sub/deep";

        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-ROOT-ENV"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-KEY"));
        result_free(&r);

        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        /* The name stays (ls is governed by its own rules), the contents are gone. */
        ck_assert_ptr_nonnull(strstr(r.out.data, "server.key"));
        result_free(&r);
}
END_TEST

/* Special files are covered too (a FIFO named like a key). */
START_TEST(test_mask_special_files)
{
        struct warder__exec_config cfg;
        config(&cfg);
        char path[256];
        snprintf(path, sizeof(path), "%s/sub/agent.key", root);
        ck_assert_int_eq(mkfifo(path, 0644), 0);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        /* Control arm: a FIFO. */
        ck_assert_int_eq(run(&cfg, "test -p sub/agent.key && echo fifo", &r), 0);
        ck_assert_str_eq(r.out.data, "fifo\n");
        result_free(&r);
        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, "test -p sub/agent.key || echo covered; cat sub/agent.key", &r),
                         0);
        ck_assert_str_eq(r.out.data, "covered\n");
        ck_assert_int_eq(r.exit_status, 0); /* an empty read, not a blocked one */
        result_free(&r);
}
END_TEST

/*
 * §6.5: a name that looks like the kernel's mark of an unlinked file is still a name. The
 * child finds each masked file by its descriptor's path, and the kernel spells the path of an
 * unlinked file with " (deleted)" at the end: a file really named so must not pass for gone
 * and be left uncovered.
 */
START_TEST(test_mask_name_that_looks_deleted)
{
        struct warder__exec_config cfg;
        config(&cfg);
        write_text(root, "private.key (deleted)", "SECRET-LOOKS-DELETED\n");
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "cat 'private.key (deleted)'";
        /* Control arm: the file is there. */
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-LOOKS-DELETED"));
        result_free(&r);
        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_msg(!strstr(r.out.data, "SECRET"), "leaked: %s", r.out.data);
        ck_assert_int_eq(r.exit_status, 0);
        result_free(&r);
}
END_TEST

static unsigned mask_nothing(void *ud, const char *literal, const char *real)
{
        (void)ud;
        (void)literal;
        (void)real;
        return 0;
}

/* Nothing denied: the command runs as usual and the result says nothing was masked. */
START_TEST(test_mask_nothing_to_cover)
{
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.mask = mask_nothing;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, "cat .env", &r), 0);
        ck_assert(!r.masked);
        ck_assert_str_eq(r.out.data, "API_KEY=SECRET-ROOT-ENV\n");
        result_free(&r);
}
END_TEST

START_TEST(test_mask_budget_fails_closed)
{
        struct warder__exec_config cfg;
        config(&cfg);
        for (int i = 0; i < 40; i++) {
                char name[32];
                snprintf(name, sizeof(name), "f%02d", i);
                write_text(root, name, "x\n");
        }
        struct fake_rules fr = {0};
        cfg.mask = fake_mask;
        cfg.mask_ud = &fr;
        cfg.mask_budget_entries = 10;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(run_in(&cfg, NULL, "touch ran", &r, &err), WARDER_ELIMIT);
        ck_assert_ptr_nonnull(strstr(err.message, "10 entries"));
        ck_assert_ptr_nonnull(strstr(err.message, "not run"));
        ck_assert(!exists(root, "ran"));
        ck_assert_int_eq(r.exit_status, 42);

        /* Time: 2 ms per entry against a 20 ms budget. */
        cfg.mask_budget_entries = 0;
        cfg.mask_budget_ms = 20;
        fr.sleep_us = 2000;
        ck_assert_int_eq(run_in(&cfg, NULL, "touch ran", &r, &err), WARDER_ELIMIT);
        ck_assert_ptr_nonnull(strstr(err.message, "ms"));
        ck_assert(!exists(root, "ran"));

        /* Control arm: the same walk within budget runs the command. */
        cfg.mask_budget_ms = 0;
        fr.sleep_us = 0;
        ck_assert_int_eq(run_in(&cfg, NULL, "touch ran", &r, &err), 0);
        ck_assert(exists(root, "ran"));
        result_free(&r);
        warder_error_clear(&err);
}
END_TEST

START_TEST(test_mask_predicate_error_masks)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct fake_rules fr = {.fail = true};
        cfg.mask = fake_mask;
        cfg.mask_ud = &fr;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;
        /* Every decision fails: the root itself is masked, so nothing can run in it. */
        ck_assert_int_eq(run_in(&cfg, NULL, "cat .env", &r, &err), WARDER_EACCES);
        ck_assert_ptr_nonnull(strstr(err.message, "masked"));
        ck_assert_int_eq(r.exit_status, 42);
        ck_assert_uint_ge(fr.calls, 1);
        warder_error_clear(&err);

        /* A working directory inside a masked directory is refused, not entered. */
        char cwd[256];
        snprintf(cwd, sizeof(cwd), "%s/secrets", root);
        fr.fail = false;
        ck_assert_int_eq(run_in(&cfg, cwd, "cat token", &r, &err), WARDER_EACCES);
        ck_assert_int_eq(r.exit_status, 42);
        warder_error_clear(&err);
}
END_TEST

/*
 * A mask must not be undone by the command, even one running as root without Landlock or a
 * uid drop (§6.5): it keeps no CAP_SYS_ADMIN (umount), CAP_DAC_READ_SEARCH (open by handle)
 * and the like. Control arm: an ordinary bind mount in a mount namespace of one's own is
 * undone by one umount.
 */
START_TEST(test_mask_cannot_be_undone)
{
        if (geteuid() != 0)
                return;
        char control[512];
        snprintf(control, sizeof(control),
                 "cd '%s' && unshare -m --propagation private sh -c "
                 "'mount --bind /dev/null .env && umount .env && cat .env' 2>/dev/null",
                 root);
        FILE *f = popen(control, "r");
        ck_assert_ptr_nonnull(f);
        char line[256] = "";
        char *got = fgets(line, sizeof(line), f);
        int st = pclose(f);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                ck_assert_msg(got && strstr(line, "SECRET-ROOT-ENV"), "control arm: '%s'", line);
        else
                fprintf(stderr, "note: no unshare(1) control arm here\n");

        struct warder__exec_config cfg;
        config(&cfg);
        cfg.mask = fake_mask;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "umount .env; umount -l .env; cat .env; grep -c CapEff /proc/self/status";
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        result_free(&r);

        cfg.drop_privileges = true;
        cfg.uid = 65534;
        cfg.gid = 65534;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        result_free(&r);

        if (landlock_available()) {
                cfg.drop_privileges = false;
                cfg.landlock = WARDER_LANDLOCK_REQUIRED;
                ck_assert_int_eq(run(&cfg, cmd, &r), 0);
                ck_assert(r.landlock_applied);
                ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
                result_free(&r);
        }
}
END_TEST

/*
 * The host's view of the root is reachable through /proc/<host pid>/root for a process with
 * the host's credentials (control arm: this process reads it). A masked command has a /proc
 * of its own: no host process is in it, with or without Landlock.
 */
START_TEST(test_mask_proc_root_bypass)
{
        char path[512];
        snprintf(path, sizeof(path), "/proc/%ld/root%s/.env", (long)getpid(), root);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        char line[256] = "";
        ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
        fclose(f);
        ck_assert_ptr_nonnull(strstr(line, "SECRET-ROOT-ENV"));

        struct warder__exec_config cfg;
        config(&cfg);
        cfg.mask = fake_mask;
        char cmd[1200];
        snprintf(cmd, sizeof(cmd), "cat %s; cat /proc/1/root%s/.env", path, root);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        result_free(&r);
        if (landlock_available()) {
                cfg.landlock = WARDER_LANDLOCK_REQUIRED;
                ck_assert_int_eq(run(&cfg, cmd, &r), 0);
                ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
                result_free(&r);
        }
}
END_TEST

/*
 * A host that is not root: the mount namespace needs a user namespace of its own; the
 * command runs with the host's uid and no capabilities, so it cannot unmount a mask. A
 * directory the host cannot list is masked whole (the command could chmod it open).
 * The unprivileged host is a child process; it reports what it saw through a pipe.
 */
enum {
        UNPRIV_CONTROL_ENV = 1 << 0,
        UNPRIV_CONTROL_LOCKED = 1 << 1,
        UNPRIV_RAN = 1 << 2,
        UNPRIV_MASKED = 1 << 3,
        UNPRIV_LEAK = 1 << 4,
        UNPRIV_NO_USERNS = 1 << 5,
};

static int unprivileged_host(void)
{
        if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
                return -1;
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "umount .env 2>/dev/null; cat .env; chmod 755 locked 2>/dev/null && "
                          "cat locked/data";
        int seen = 0;
        char path[256];
        snprintf(path, sizeof(path), "%s/locked", root);
        if (run(&cfg, cmd, &r) == 0) {
                if (strstr(r.out.data, "SECRET-ROOT-ENV"))
                        seen |= UNPRIV_CONTROL_ENV;
                if (strstr(r.out.data, "SECRET-LOCKED"))
                        seen |= UNPRIV_CONTROL_LOCKED;
                result_free(&r);
        }
        if (chmod(path, 0) != 0)
                return -1;
        cfg.mask = fake_mask;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = run_in(&cfg, NULL, cmd, &r, &err);
        if (rc == 0) {
                seen |= UNPRIV_RAN;
                if (r.masked)
                        seen |= UNPRIV_MASKED;
                if (strstr(r.out.data, "SECRET"))
                        seen |= UNPRIV_LEAK;
                result_free(&r);
        } else if (strstr(err.message, "user namespace")) {
                /* Only a skip if this user really cannot create one. */
                pid_t probe = fork();
                if (probe == 0)
                        _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
                int st = 0;
                if (probe > 0 && waitpid(probe, &st, 0) == probe && WIFEXITED(st) &&
                    WEXITSTATUS(st) == 1)
                        seen |= UNPRIV_NO_USERNS;
        }
        warder_error_clear(&err);
        return seen;
}

START_TEST(test_mask_unprivileged_host)
{
        if (geteuid() != 0)
                return; /* needs root to become another user; CI runs as root */
        make_dir(root, "locked");
        write_text(root, "locked/data", "SECRET-LOCKED\n");
        char path[256];
        snprintf(path, sizeof(path), "%s/locked/data", root);
        ck_assert_int_eq(chown(path, 65534, 65534), 0);
        snprintf(path, sizeof(path), "%s/locked", root);
        ck_assert_int_eq(chown(path, 65534, 65534), 0);
        ck_assert_int_eq(chmod(path, 0), 0);

        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                _exit(unprivileged_host() & 0x7f);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        int seen = WEXITSTATUS(st);
        if (seen & UNPRIV_NO_USERNS)
                return; /* unprivileged user namespaces are disabled on this system */
        ck_assert_msg(seen & UNPRIV_CONTROL_ENV, "control arm: .env unreadable (%#x)", seen);
        ck_assert_msg(seen & UNPRIV_CONTROL_LOCKED, "control arm: locked/ unreadable (%#x)", seen);
        ck_assert_msg(seen & UNPRIV_RAN, "masked run failed (%#x)", seen);
        ck_assert_msg(seen & UNPRIV_MASKED, "%#x", seen);
        ck_assert_msg(!(seen & UNPRIV_LEAK), "a secret leaked (%#x)", seen);
        ck_assert_int_eq(chmod(path, 0755), 0);
}
END_TEST

/* ---- §6.5: what is masked, decided per request, on inodes ---- */

/*
 * A ruleset swap reaches the masks (§6.5): the guard passes what to mask with each command,
 * from the ruleset of that request; the backend holds none of its own. Control arm: under
 * the first ruleset, which denies nothing, the command finds the key.
 */
START_TEST(test_mask_follows_ruleset_swap)
{
        write_text(root, "secret.txt", "KEY=SECRET-SWAPPED\n");
        static const char open_yaml[] = "warder: 1\ndefault: allow\n";
        static const char closed_yaml[] = "warder: 1\n"
                                          "default: allow\n"
                                          "read:\n"
                                          "  rules:\n"
                                          "    - deny: secret.txt\n";
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *a = NULL, *b = NULL;
        ck_assert_int_eq(
            warder_ruleset_load_string(&a, open_yaml, sizeof(open_yaml) - 1, NULL, &ro, NULL), 0);
        ck_assert_int_eq(
            warder_ruleset_load_string(&b, closed_yaml, sizeof(closed_yaml) - 1, NULL, &ro, NULL),
            0);
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        opts.exec = true;
        opts.mask_denied = true;
        warder_backend *local = NULL, *g = NULL;
        ck_assert_int_eq(warder_local_new(&local, root, &opts, NULL), 0);
        ck_assert_int_eq(warder_guard_new(&g, local, a, NULL, NULL), 0);
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = "grep -rl KEY . ; cat secret.txt";
        req.command_len = strlen(req.command);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_backend_execute(&r, g, &req, &err) == 0, "%s", err.message);
        ck_assert_ptr_nonnull(strstr(r.out.data, "./secret.txt"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-SWAPPED"));
        warder_exec_result_free(&r);
        /* B denies the file: the guard refuses the plain read... */
        ck_assert_int_eq(warder_guard_set_ruleset(g, b), 0);
        struct warder_bytes bytes = WARDER_BYTES_INIT;
        char path[256];
        snprintf(path, sizeof(path), "%s/secret.txt", root);
        ck_assert_int_eq(warder_backend_read(&bytes, g, path, strlen(path), 0, 0, 0, NULL),
                         WARDER_EDENIED);
        /* ...and the next command finds it masked (the line names it, so: approved ask). */
        req.command = "find . -type f -exec grep -l KEY {} + ; cat $(printf secret).txt";
        req.command_len = strlen(req.command);
        req.flags = WARDER_APPROVED;
        ck_assert_msg(warder_backend_execute(&r, g, &req, &err) == 0, "%s", err.message);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "secret.txt"));
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        warder_exec_result_free(&r);
        /* Swapped back: the mask goes again. */
        ck_assert_int_eq(warder_guard_set_ruleset(g, a), 0);
        ck_assert_msg(warder_backend_execute(&r, g, &req, &err) == 0, "%s", err.message);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-SWAPPED"));
        warder_exec_result_free(&r);
        warder_backend_free(g);
        warder_ruleset_free(a);
        warder_ruleset_free(b);
        warder_error_clear(&err);
}
END_TEST

/*
 * Every name of a denied file is masked (§6.5): hard links made before the command, in the
 * same directory and elsewhere, also when the denied name is inside a hidden directory.
 * Control arm: unmasked, each link reads the secret.
 */
START_TEST(test_mask_hard_links)
{
        char a[256], b[256];
        snprintf(a, sizeof(a), "%s/.env", root);
        snprintf(b, sizeof(b), "%s/innocent.txt", root);
        ck_assert_int_eq(link(a, b), 0);
        snprintf(a, sizeof(a), "%s/secrets/token", root);
        snprintf(b, sizeof(b), "%s/sub/token-copy", root);
        ck_assert_int_eq(link(a, b), 0);
        struct warder__exec_config cfg;
        config(&cfg);
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        const char *cmd = "cat innocent.txt sub/token-copy; cat sub/notes.txt";
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-ROOT-ENV"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "SECRET-TOKEN"));
        result_free(&r);
        cfg.mask = fake_mask;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        ck_assert_ptr_nonnull(strstr(r.out.data, "plain notes")); /* the rest is there */
        result_free(&r);
}
END_TEST

/* Denies writing `protected.txt` and the directory `frozen` (and reading nothing). */
static unsigned write_mask(void *ud, const char *literal, const char *real)
{
        (void)ud;
        (void)real;
        const char *base = strrchr(literal, '/');
        base = base ? base + 1 : literal;
        if (strcmp(base, "protected.txt") == 0 || strcmp(base, "frozen") == 0)
                return WARDER_MASK_READONLY;
        return 0;
}

/*
 * Files denied for write are bound read-only (§6.5): the command can read them but neither
 * write, truncate, replace nor remove them, nor anything in a write-denied directory.
 * Control arm: unmasked, every one of these works.
 */
START_TEST(test_mask_write_denied_read_only)
{
        static const char *const cmd =
            "cat protected.txt; echo x >> protected.txt; true > protected.txt; "
            "echo y > new.txt; mv new.txt protected.txt; rm -f protected.txt; "
            "echo z > frozen/added; rm -f frozen/kept; ls frozen; cat protected.txt";
        struct warder__exec_config cfg;
        config(&cfg);
        write_text(root, "protected.txt", "ORIGINAL\n");
        make_dir(root, "frozen");
        write_text(root, "frozen/kept", "kept\n");
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(!exists(root, "protected.txt") && !exists(root, "frozen/kept"));
        ck_assert(exists(root, "frozen/added"));
        result_free(&r);

        write_text(root, "protected.txt", "ORIGINAL\n");
        write_text(root, "frozen/kept", "kept\n");
        char added[256];
        snprintf(added, sizeof(added), "%s/frozen/added", root);
        remove(added);
        cfg.mask = write_mask;
        ck_assert_int_eq(run(&cfg, cmd, &r), 0);
        ck_assert(r.masked);
        ck_assert_str_eq(r.out.data, "ORIGINAL\nkept\nORIGINAL\n");
        ck_assert(exists(root, "protected.txt") && exists(root, "frozen/kept"));
        ck_assert(!exists(root, "frozen/added"));
        char path[256], line[64] = "";
        snprintf(path, sizeof(path), "%s/protected.txt", root);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
        fclose(f);
        ck_assert_str_eq(line, "ORIGINAL\n");
        result_free(&r);
}
END_TEST

/* The rename racer: swaps .env and notes.txt (renameat2 RENAME_EXCHANGE) while it runs. */
struct racer {
        pthread_t thread;
        atomic_bool stop;
        atomic_long swaps;
        bool once;    /* one swap, then stop */
        bool running; /* a thread is to be joined */
        char a[256], b[256];
};

static struct racer *the_racer;

static void *racer_main(void *arg)
{
        struct racer *rc = arg;
        do {
                if (syscall(SYS_renameat2, AT_FDCWD, rc->a, AT_FDCWD, rc->b, 2 /* EXCHANGE */) == 0)
                        rc->swaps++;
        } while (!rc->once && !rc->stop);
        return NULL;
}

/* Stage 0: the walk is over, the child is about to start: the racer runs (the walk saw the
 * names as they were). Stage 1: the command has started: the racer stops. */
static void racer_stop(struct racer *rc)
{
        if (!rc->running)
                return;
        rc->stop = true;
        pthread_join(rc->thread, NULL);
        rc->running = false;
}

static void racer_hook(int stage)
{
        if (!the_racer)
                return;
        if (stage == 0) {
                the_racer->stop = false;
                ck_assert_int_eq(pthread_create(&the_racer->thread, NULL, racer_main, the_racer),
                                 0);
                the_racer->running = true;
                if (the_racer->once)
                        racer_stop(the_racer);
        } else {
                racer_stop(the_racer);
        }
}

/*
 * §6.5: a rename between the walk and the mount cannot redirect a mask. The walk decides on
 * `.env`, keeps the file open, and the child mounts on that file wherever it is by then (and
 * on whatever holds the name `.env` then, too). A real racer thread exchanges `.env` and
 * `notes.txt` in that window: once (deterministic), then continuously over many runs. The
 * command waits until the racer has stopped, then reads both names. Control arm: mounting on
 * the name instead (what the masks did before) lets the secret through under `notes.txt`.
 */
START_TEST(test_mask_immune_to_rename_race)
{
        static struct racer rc;
        memset(&rc, 0, sizeof(rc));
        snprintf(rc.a, sizeof(rc.a), "%s/.env", root);
        snprintf(rc.b, sizeof(rc.b), "%s/notes.txt", root);
        write_text(root, "notes.txt", "plain notes\n");
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.mask = fake_mask;
        the_racer = &rc;
        warder__exec_test_hook = racer_hook;
        const char *cmd = "sleep 0.2; cat .env notes.txt";
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        for (int by_name = 1; by_name >= 0; by_name--) {
                warder__exec_test_mask_by_name = by_name;
                /* One swap: deterministic. */
                write_text(root, ".env", "API_KEY=SECRET-ROOT-ENV\n");
                write_text(root, "notes.txt", "plain notes\n");
                rc.once = true;
                ck_assert_int_eq(run(&cfg, cmd, &r), 0);
                ck_assert(r.masked);
                if (by_name)
                        ck_assert_msg(strstr(r.out.data, "SECRET-ROOT-ENV"),
                                      "control arm: the swap did not leak: %s", r.out.data);
                else
                        ck_assert_msg(!strstr(r.out.data, "SECRET"), "leaked: %s", r.out.data);
                result_free(&r);
                /* A continuous racer, 20 runs. */
                rc.once = false;
                int leaks = 0, refused = 0;
                for (int i = 0; i < 20; i++) {
                        /* The walk meets the names as they should be; the race is after it. */
                        write_text(root, ".env", "API_KEY=SECRET-ROOT-ENV\n");
                        write_text(root, "notes.txt", "plain notes\n");
                        struct warder_error err = WARDER_ERROR_INIT;
                        int rcode = run_in(&cfg, NULL, cmd, &r, &err);
                        /* A refused run never reached stage 1: the racer must not go on
                         * into the next run's set-up, where it would swap the files while
                         * they are written and walked. */
                        racer_stop(&rc);
                        if (rcode == 0) {
                                leaks += strstr(r.out.data, "SECRET") != NULL;
                                result_free(&r);
                        } else {
                                /* A file that kept moving is refused, never guessed. */
                                ck_assert_msg(strstr(err.message, "kept moving"), "%s",
                                              err.message);
                                refused++;
                        }
                        warder_error_clear(&err);
                }
                fprintf(stderr, "rename race (%s): %ld swaps, %d leaks, %d refused in 20 runs\n",
                        by_name ? "by name, control" : "by descriptor", (long)rc.swaps, leaks,
                        refused);
                if (by_name)
                        ck_assert_int_gt(leaks, 0);
                else
                        ck_assert_int_eq(leaks, 0);
        }
        warder__exec_test_hook = NULL;
        warder__exec_test_mask_by_name = false;
        the_racer = NULL;
}
END_TEST

/* ---- through the local backend (the public API) ---- */

START_TEST(test_local_backend_execute)
{
        struct warder_error err = WARDER_ERROR_INIT;
        warder_backend *b = NULL;
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;

        /* Without opts.exec there is no execute operation at all (§4.8). */
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        ck_assert_int_eq(warder_local_new(&b, root, &opts, &err), 0);
        ck_assert(!warder_backend_can_execute(b));
        req.command = "touch ran";
        req.command_len = strlen(req.command);
        ck_assert_int_eq(warder_backend_execute(&r, b, &req, &err), WARDER_ENOTSUP);
        ck_assert(!exists(root, "ran"));
        warder_backend_free(b);
        /* Neither has the memory backend. */
        ck_assert_int_eq(warder_memory_new(&b, &err), 0);
        ck_assert(!warder_backend_can_execute(b));
        warder_backend_free(b);

        /* With it: the options reach the run. */
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "default", &ro, &err), 0);
        static const char *const env[] = {"PATH=/usr/bin:/bin", "GREETING=hello", NULL};
        opts.exec = true;
        opts.exec_env = env;
        opts.exec_max_output = 64;
        opts.mask_denied = true;
        opts.landlock = warder__landlock_abi() > 0 ? WARDER_LANDLOCK_REQUIRED : WARDER_LANDLOCK_OFF;
        ck_assert_msg(warder_local_new(&b, root, &opts, &err) == 0, "%s", err.message);
        ck_assert(warder_backend_can_execute(b));
        /* §6.5: with masking on, a request that does not say what to mask is refused (the
         * backend holds no ruleset to decide from). */
        req.command = "touch ran";
        req.command_len = strlen(req.command);
        ck_assert_int_eq(warder_backend_execute(&r, b, &req, &err), WARDER_EINVAL);
        ck_assert(!exists(root, "ran"));
        req.mask = ruleset_mask;
        req.mask_ud = rs;
        char cmd[512];
        snprintf(cmd, sizeof(cmd),
                 "echo $GREETING; pwd; cat .env; head -c 1000 /dev/zero >&2; cat %s/secret",
                 outside);
        req.command = cmd;
        req.command_len = strlen(cmd);
        char cwd[256];
        snprintf(cwd, sizeof(cwd), "%s/sub", root);
        req.cwd = cwd;
        ck_assert_msg(warder_backend_execute(&r, b, &req, &err) == 0, "%s", err.message);
        char expect[512];
        snprintf(expect, sizeof(expect), "hello\n%s/sub\n", root);
        ck_assert(r.masked);
        ck_assert(r.err.truncated);
        ck_assert_uint_eq(r.err.len, 64);
        if (opts.landlock == WARDER_LANDLOCK_REQUIRED) {
                /* No .env (relative to sub anyway), no secret from outside. */
                ck_assert_str_eq(r.out.data, expect);
                ck_assert(r.landlock_applied);
                ck_assert_int_ne(r.exit_status, 0);
        }
        warder_exec_result_free(&r);

        /* .env in the root, through the mask. Control arm: the host reads it. */
        req.cwd = NULL;
        req.command = "cat .env";
        req.command_len = strlen(req.command);
        ck_assert_int_eq(warder_backend_execute(&r, b, &req, &err), 0);
        ck_assert_ptr_null(strstr(r.out.data, "SECRET"));
        warder_exec_result_free(&r);
        ck_assert(exists(root, ".env"));

        /* The working directory goes through the backend's confinement. */
        char link[256];
        snprintf(link, sizeof(link), "%s/escape", root);
        ck_assert_int_eq(symlink(outside, link), 0);
        req.cwd = link;
        r.exit_status = 42;
        int rc = warder_backend_execute(&r, b, &req, &err);
        ck_assert_msg(rc == WARDER_EOUTSIDE || rc == WARDER_ESYMLINK, "%d %s", rc, err.message);
        req.cwd = outside;
        ck_assert_int_eq(warder_backend_execute(&r, b, &req, &err), WARDER_EOUTSIDE);
        ck_assert_int_eq(r.exit_status, 42);
        warder_backend_free(b);
        warder_ruleset_free(rs);
        warder_error_clear(&err);
}
END_TEST

struct worker {
        int id;
        int ok;
};

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct warder__exec_config cfg;
        config(&cfg);
        cfg.mask = fake_mask;
        if (warder__landlock_abi() > 0)
                cfg.landlock = WARDER_LANDLOCK_REQUIRED;
        for (int i = 0; i < 5; i++) {
                char cmd[128], expect[64];
                snprintf(cmd, sizeof(cmd), "echo %d-%d; cat .env >&2", w->id, i);
                snprintf(expect, sizeof(expect), "%d-%d\n", w->id, i);
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                if (run(&cfg, cmd, &r) != 0)
                        return NULL;
                if (strcmp(r.out.data, expect) == 0 && !strstr(r.err.data, "SECRET") && r.masked &&
                    r.exit_status == 0)
                        w->ok++;
                result_free(&r);
        }
        return NULL;
}

/* Concurrent calls from several host threads keep to their own commands. */
START_TEST(test_concurrent_calls)
{
        struct worker w[4];
        pthread_t t[4];
        for (int i = 0; i < 4; i++) {
                w[i] = (struct worker){i, 0};
                ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
        }
        for (int i = 0; i < 4; i++) {
                ck_assert_int_eq(pthread_join(t[i], NULL), 0);
                ck_assert_int_eq(w[i].ok, 5);
        }
}
END_TEST

/* A ruleset from `yaml`, rooted at the test's root. */
static warder_ruleset *rules_under_root(const char *yaml)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_load_string(&rs, yaml, strlen(yaml), NULL, &ro, &err) == 0,
                      "%s", err.message);
        return rs;
}

/* A guard under `rs` over a local backend that executes, masking what the guard denies when
 * `masked` (§6.5). */
static warder_backend *guard_over_exec(warder_ruleset *rs, bool masked)
{
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        opts.exec = true;
        opts.mask_denied = masked;
        warder_backend *local = NULL, *g = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_local_new(&local, root, &opts, &err) == 0, "%s", err.message);
        ck_assert_msg(warder_guard_new(&g, local, rs, NULL, &err) == 0, "%s", err.message);
        return g;
}

/*
 * §5.8: inspection is a guard rail, the backend's confinement is the boundary. A command the
 * guard lets through (it cannot see the file name being built) still finds nothing under the
 * mask; without the mask it reads the secret (control arm). And the guard has `execute`
 * exactly when the local backend does (§4.8).
 */
START_TEST(test_guard_over_exec_backend)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  default: allow\n"
                                   "  rules:\n"
                                   "    - deny: '**/.env'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = rules_under_root(yaml);
        struct warder_error err = WARDER_ERROR_INIT;

        const char *cmds[] = {"find . -name '.e*' -exec cat {} +",
                              "python3 -c 'print(open(\".e\" + \"nv\").read())'"};
        for (int masked = 0; masked < 2; masked++) {
                /* the guard says what to mask, per command */
                warder_backend *g = guard_over_exec(rs, masked);
                ck_assert(warder_backend_can_execute(g));
                for (size_t i = 0; i < 2; i++) {
                        if (i == 1 && !python3_available())
                                continue;
                        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                        req.command = cmds[i];
                        req.command_len = strlen(cmds[i]);
                        req.flags = WARDER_APPROVED; /* satisfies ask, never deny */
                        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                        ck_assert_msg(warder_backend_execute(&r, g, &req, &err) == 0, "%s: %s",
                                      cmds[i], err.message);
                        if (masked)
                                ck_assert_msg(!strstr(r.out.data, "SECRET"), "%s", cmds[i]);
                        else /* control arm: the guard rail alone lets it through */
                                ck_assert_msg(strstr(r.out.data, "SECRET-ROOT-ENV"), "%s", cmds[i]);
                        warder_exec_result_free(&r);
                }
                warder_backend_free(g);
        }

        /* Without opts.exec neither the backend nor its guard can execute. */
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        warder_backend *local = NULL, *g = NULL;
        ck_assert_int_eq(warder_local_new(&local, root, &opts, &err), 0);
        ck_assert_int_eq(warder_guard_new(&g, local, rs, NULL, &err), 0);
        ck_assert(!warder_backend_can_execute(g));
        warder_backend_free(g);
        warder_ruleset_free(rs);
        warder_error_clear(&err);
}
END_TEST

/* §6.5 through the guard: a file the rules deny for write but allow for read is bound
 * read-only under the mask — the command reads it and cannot change it — and a file the rules
 * deny for read is hidden. Without the mask the same command changes it (control arm). */
START_TEST(test_guard_masks_write_denied_read_only)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  default: allow\n"
                                   "  rules:\n"
                                   "    - deny: '**/.env'\n"
                                   "write:\n"
                                   "  default: allow\n"
                                   "  rules:\n"
                                   "    - deny: '**/main.c'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = rules_under_root(yaml);
        struct warder_error err = WARDER_ERROR_INIT;
        /* the name is built at run time: the inspection cannot see which file is written */
        static const char cmd[] = "f=$(ls | grep -x 'mai.\\..'); cat \"$f\"; "
                                  "echo CHANGED >> \"$f\" || echo REFUSED; "
                                  "find . -maxdepth 1 -name '.e*' -exec cat {} +";
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/main.c", root);
        for (int masked = 0; masked < 2; masked++) {
                write_text(root, "main.c", "int main(void) { return 0; }\n");
                warder_backend *g = guard_over_exec(rs, masked);
                struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                req.command = cmd;
                req.command_len = strlen(cmd);
                req.flags = WARDER_APPROVED; /* satisfies ask, never deny */
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                ck_assert_msg(warder_backend_execute(&r, g, &req, &err) == 0, "%s", err.message);
                size_t n = 0;
                char *now = warder_test_slurp(path, &n);
                ck_assert_ptr_nonnull(now);
                ck_assert_msg(strstr(r.out.data, "int main"), "masked %d: %s", masked, r.out.data);
                if (masked) {
                        ck_assert_msg(strstr(r.out.data, "REFUSED"), "%s", r.out.data);
                        ck_assert(!strstr(now, "CHANGED"));
                        ck_assert(!strstr(r.out.data, "SECRET"));
                } else { /* control arm */
                        ck_assert_msg(strstr(now, "CHANGED"), "%s", now);
                        ck_assert(strstr(r.out.data, "SECRET-ROOT-ENV"));
                }
                free(now);
                warder_exec_result_free(&r);
                warder_backend_free(g);
        }
        warder_ruleset_free(rs);
        warder_error_clear(&err);
}
END_TEST

/* ---- hooks and docs ---- */

struct open_dir_log {
        int calls;
        char path[256];
};

static int fake_open_dir(void *ud, const char *path, int *fd_out, struct warder_error *err)
{
        struct open_dir_log *log = ud;
        log->calls++;
        snprintf(log->path, sizeof(log->path), "%s", path);
        if (strstr(path, "refuse"))
                return warder_error_set(err, WARDER_ESYMLINK, "refused by the backend");
        *fd_out = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return *fd_out >= 0 ? 0 : WARDER_ENOENT;
}

/* The local backend opens the working directory through its own confinement. */
START_TEST(test_open_dir_hook)
{
        struct warder__exec_config cfg;
        config(&cfg);
        struct open_dir_log log = {0};
        cfg.open_dir = fake_open_dir;
        cfg.open_dir_ud = &log;
        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = 42;
        struct warder_error err = WARDER_ERROR_INIT;
        char cwd[256], expect[256];

        snprintf(cwd, sizeof(cwd), "%s/sub/./", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "pwd", &r, &err), 0);
        snprintf(expect, sizeof(expect), "%s/sub", root);
        ck_assert_str_eq(log.path, expect); /* normalised before the hook sees it */
        ck_assert_int_eq(log.calls, 1);
        result_free(&r);

        /* Outside the root: refused before the hook is asked. */
        r.exit_status = 42;
        ck_assert_int_eq(run_in(&cfg, outside, "touch ran", &r, &err), WARDER_EOUTSIDE);
        ck_assert_int_eq(log.calls, 1);
        /* The hook's refusal is the answer. */
        snprintf(cwd, sizeof(cwd), "%s/refuse", root);
        ck_assert_int_eq(run_in(&cfg, cwd, "touch ran", &r, &err), WARDER_ESYMLINK);
        ck_assert_int_eq(r.exit_status, 42);
        ck_assert(!exists(outside, "ran"));
        warder_error_clear(&err);
}
END_TEST

/*
 * The configuration example of the docs, compiled here; the test below checks that the
 * text in the docs is this code (comments and blanks aside).
 */
static const char *doc_example_text;
#define DOC_EXAMPLE(...)                                                                           \
        __VA_ARGS__                                                                                \
        doc_example_text = #__VA_ARGS__;

static int doc_example(warder_ruleset *rules, warder_backend **out)
{
        struct warder_error err = WARDER_ERROR_INIT;
        /* clang-format off */
        DOC_EXAMPLE(
static const char *const env[] = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL};
static const char *const tmp[] = {"/tmp", NULL};

struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
opts.exec = true;
opts.exec_env = env;                        /* the child's whole environment */
opts.exec_timeout_ms = 30000;               /* default deadline per command */
opts.exec_max_output = 256 * 1024;          /* per stream */
opts.drop_privileges = true;                /* run as nobody:nogroup */
opts.uid = 65534;
opts.gid = 65534;
opts.landlock = WARDER_LANDLOCK_REQUIRED;   /* refuse to run without it */
opts.landlock_write = tmp;                  /* writable besides the root */
opts.mask_denied = true;                    /* mask what the guard's ruleset denies */

warder_backend *local, *guard = NULL;
int rc = warder_local_new(&local, root, &opts, &err);
if (rc == 0 && (rc = warder_guard_new(&guard, local, rules, NULL, &err)) != 0)
        warder_backend_free(local);
        )
        /* clang-format on */
        *out = rc == 0 ? guard : NULL;
        warder_error_clear(&err);
        return rc;
}

/* Removes comments and every blank, so layout does not matter. */
static void squeeze(const char *in, char *out, size_t cap)
{
        size_t n = 0;
        for (const char *p = in; *p && n + 1 < cap; p++) {
                if (p[0] == '/' && p[1] == '*') {
                        const char *end = strstr(p + 2, "*/");
                        if (!end)
                                break;
                        p = end + 1;
                        continue;
                }
                if (*p != ' ' && *p != '\n' && *p != '\t')
                        out[n++] = *p;
        }
        out[n] = '\0';
}

/* The exec backend's docs (docs/execute.md), read whole when they hold `marker`. */
static bool read_doc(const char *marker, char *buf, size_t cap)
{
        const char *src = getenv("WARDER_SOURCE_ROOT");
        if (!src)
                return false;
        const char *names[] = {"docs/execute.md"};
        for (size_t i = 0; i < 1; i++) {
                char path[1024];
                snprintf(path, sizeof(path), "%s/%s", src, names[i]);
                FILE *f = fopen(path, "r");
                if (!f)
                        continue;
                size_t n = fread(buf, 1, cap - 1, f);
                buf[n] = '\0';
                fclose(f);
                if (strstr(buf, marker))
                        return true;
        }
        ck_abort_msg("no doc holds '%s'", marker);
        return false;
}

START_TEST(test_docs_configuration_example)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "default", &ro, NULL), 0);
        warder_backend *b = NULL;
        ck_assert_int_eq(doc_example(rs, &b), 0);
        ck_assert(warder_backend_can_execute(b));
        if (geteuid() == 0 && warder__landlock_abi() > 0) {
                /* The guard cannot see this name; the mask still covers the file. */
                struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                req.command = "id -u; cat $(printf .en)v";
                req.command_len = strlen(req.command);
                req.flags = WARDER_APPROVED; /* the substitution makes it ask */
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_msg(warder_backend_execute(&r, b, &req, &err) == 0, "%s", err.message);
                ck_assert_str_eq(r.out.data, "65534\n");
                ck_assert(r.landlock_applied && r.masked);
                warder_exec_result_free(&r);
                warder_error_clear(&err);
        }
        warder_backend_free(b);
        warder_ruleset_free(rs);

        /* The docs show exactly this code. */
        static char doc[65536], block[8192], want[8192], got[8192];
        const char *marker = "<!-- exec-config-example";
        ck_assert_msg(read_doc(marker, doc, sizeof(doc)), "docs/execute.md lacks %s", marker);
        const char *start = strstr(strstr(doc, marker), "```c\n");
        ck_assert_ptr_nonnull(start);
        start += 5;
        const char *end = strstr(start, "```");
        ck_assert_ptr_nonnull(end);
        snprintf(block, sizeof(block), "%.*s", (int)(end - start), start);
        squeeze(block, want, sizeof(want));
        squeeze(doc_example_text, got, sizeof(got));
        ck_assert_str_eq(want, got);
}
END_TEST

/* The documented system list of readable trees is the one the code uses. */
START_TEST(test_docs_default_read_list)
{
        static char doc[65536];
        const char *marker = "```text landlock-default-read\n";
        ck_assert_msg(read_doc(marker, doc, sizeof(doc)), "docs/execute.md lacks %s", marker);
        const char *p = strstr(doc, marker) + strlen(marker);
        size_t n = 0;
        while (strncmp(p, "```", 3) != 0) {
                const char *nl = strchr(p, '\n');
                ck_assert_ptr_nonnull(nl);
                ck_assert_ptr_nonnull(warder__landlock_default_read[n]);
                ck_assert_uint_eq(strlen(warder__landlock_default_read[n]), (size_t)(nl - p));
                ck_assert(strncmp(p, warder__landlock_default_read[n], (size_t)(nl - p)) == 0);
                n++;
                p = nl + 1;
        }
        ck_assert_ptr_null(warder__landlock_default_read[n]);
}
END_TEST

static Suite *exec_suite(void)
{
        Suite *s = suite_create("exec");
        TCase *tc = tcase_create("run");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_capture_and_status);
        tcase_add_test(tc, test_bad_requests);
        tcase_add_test(tc, test_command_length);
        tcase_add_test(tc, test_output_cap_keeps_draining);
        tcase_add_test(tc, test_streaming);
        tcase_add_test(tc, test_environment_is_fresh);
        tcase_add_test(tc, test_cwd);
        tcase_add_test(tc, test_cwd_outside);
        tcase_add_test(tc, test_no_descriptor_leaks);
        tcase_add_test(tc, test_host_without_stdio);
        tcase_add_test(tc, test_setsid_escapes_a_group_kill);
        tcase_add_test(tc, test_nothing_outlives_the_command);
        tcase_add_test(tc, test_status_through_the_init);
        tcase_add_test(tc, test_pid_namespace_refused);
        tcase_add_test(tc, test_cancel_kills_group);
        tcase_add_test(tc, test_request_version_1);
        tcase_add_test(tc, test_deadline_endless_output);
        tcase_add_test(tc, test_own_process_group);
        tcase_add_test(tc, test_privilege_drop);
        tcase_add_test(tc, test_privilege_drop_threaded_host);
        tcase_add_test(tc, test_open_dir_hook);
        tcase_add_test(tc, test_local_backend_execute);
        tcase_add_test(tc, test_guard_over_exec_backend);
        tcase_add_test(tc, test_guard_masks_write_denied_read_only);
        tcase_add_test(tc, test_docs_default_read_list);
        tcase_add_test(tc, test_docs_configuration_example);
        suite_add_tcase(s, tc);

        TCase *ll = tcase_create("landlock");
        tcase_add_checked_fixture(ll, setup, teardown);
        tcase_add_test(ll, test_landlock_confines);
        tcase_add_test(ll, test_landlock_abi_versions);
        tcase_add_test(ll, test_landlock_unavailable);
        suite_add_tcase(s, ll);

        TCase *mk = tcase_create("mask");
        tcase_set_timeout(mk, 240);
        tcase_add_checked_fixture(mk, setup, teardown);
        tcase_add_test(mk, test_mask_control_and_effect);
        tcase_add_test(mk, test_mask_mount_options);
        tcase_add_test(mk, test_mask_with_ruleset);
        tcase_add_test(mk, test_mask_symlink_and_nested);
        tcase_add_test(mk, test_mask_special_files);
        tcase_add_test(mk, test_mask_name_that_looks_deleted);
        tcase_add_test(mk, test_mask_nothing_to_cover);
        tcase_add_test(mk, test_concurrent_calls);
        tcase_add_test(mk, test_mask_budget_fails_closed);
        tcase_add_test(mk, test_mask_predicate_error_masks);
        tcase_add_test(mk, test_mask_cannot_be_undone);
        tcase_add_test(mk, test_mask_proc_root_bypass);
        tcase_add_test(mk, test_mask_unprivileged_host);
        tcase_add_test(mk, test_mask_follows_ruleset_swap);
        tcase_add_test(mk, test_mask_hard_links);
        tcase_add_test(mk, test_mask_write_denied_read_only);
        tcase_add_test(mk, test_mask_immune_to_rename_race);
        suite_add_tcase(s, mk);
        return s;
}

int main(void)
{
        return warder_test_run(exec_suite());
}
