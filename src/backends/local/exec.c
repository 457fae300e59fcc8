/* SPDX-License-Identifier: MIT */
/*
 * The exec backend (§6.3). The parent prepares everything that allocates or may fail in
 * complicated ways (working directory, environment, the list of paths to mask, the Landlock
 * ruleset), then forks. The child only makes system calls (async-signal-safe, so a
 * multi-threaded host is fine): its own process group, fresh descriptors 0/1/2, the mount
 * namespace with the masks, the working directory, the privilege drop, Landlock, execve.
 * A close-on-exec status pipe tells the parent whether the set-up failed, and where.
 */
#include "exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "mask.h"
#include "util.h"
#include "warder/sys/backend.h"

/* 32-bit x86 and arm keep 16-bit ids under the plain names. */
#ifdef SYS_setresuid32
#define WARDER__SYS_SETRESUID SYS_setresuid32
#define WARDER__SYS_SETRESGID SYS_setresgid32
#define WARDER__SYS_SETGROUPS SYS_setgroups32
#else
#define WARDER__SYS_SETRESUID SYS_setresuid
#define WARDER__SYS_SETRESGID SYS_setresgid
#define WARDER__SYS_SETGROUPS SYS_setgroups
#endif

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

void warder__exec_config_from_options(struct warder__exec_config *cfg, const char *root,
                                      int root_fd, const struct warder_local_options *opts)
{
        *cfg = (struct warder__exec_config){0};
        cfg->root = root;
        cfg->root_fd = root_fd;
        if (!opts)
                return;
        cfg->env = opts->exec_env;
        cfg->timeout_ms = opts->exec_timeout_ms;
        cfg->max_output = opts->exec_max_output;
        cfg->drop_privileges = opts->drop_privileges;
        cfg->uid = opts->uid;
        cfg->gid = opts->gid;
        cfg->landlock = opts->landlock;
        cfg->landlock_read = opts->landlock_read;
        cfg->landlock_write = opts->landlock_write;
        cfg->mask_requests = opts->mask_denied;
        cfg->mask_budget_ms = opts->mask_budget_ms;
        cfg->mask_budget_entries = opts->mask_budget_entries;
}

void (*warder__exec_test_hook)(int stage);
bool warder__exec_test_mask_by_name;

/* ---- descriptors ---- */

/* Moves `fd` to a number >= 3 (close-on-exec) so dup2() onto 0/1/2 never clobbers it. */
static int fd_above_stdio(int fd)
{
        if (fd < 0 || fd > 2)
                return fd;
        int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        int e = errno;
        close(fd);
        errno = e;
        return n;
}

static void close_fd(int *fd)
{
        if (*fd >= 0) {
                close(*fd);
                *fd = -1;
        }
}

/* ---- the child ---- */

enum stage {
        STAGE_PGID = 1,
        STAGE_SIGNALS,
        STAGE_STDIO,
        STAGE_USERNS,
        STAGE_UNSHARE,
        STAGE_PRIVATE,
        STAGE_STANDIN,
        STAGE_MASK,
        STAGE_MASK_MOVED,
        STAGE_PROC,
        STAGE_CAPS,
        STAGE_CWD,
        STAGE_CWD_MASKED,
        STAGE_SETGROUPS,
        STAGE_SETGID,
        STAGE_SETUID,
        STAGE_NO_NEW_PRIVS,
        STAGE_LANDLOCK,
        STAGE_LANDLOCK_SKIPPED, /* not fatal: best-effort mode */
        STAGE_EXEC,
        STAGE_SPAWN,   /* the init could not start the command */
        STAGE_RUNNING, /* the init started the command (set-up over) */
        STAGE_EXITED,  /* the init reaped the command: `error` is its wait status */
};

struct status_msg {
        int stage;
        int error;
        int index; /* the mask entry, for STAGE_MASK and STAGE_MASK_MOVED */
};

struct child_plan {
        const char *command;
        char *const *envp;
        int in_fd, out_fd, err_fd, status_fd;
        int cwd_fd;
        const char *cwd_path;
        const struct mask_list *masks;
        const char *standin; /* empty, mode 000 file bound over masked files */
        dev_t standin_dev;
        ino_t standin_ino;
        bool userns;  /* created with the child (not root): write its id maps first */
        bool pidns;   /* the child is init of a PID namespace of its own (§6.4) */
        char *stack2; /* top of the stack the init starts the command on */
        char uid_map[64], gid_map[64];
        bool drop;
        uid_t uid;
        gid_t gid;
        int landlock_fd; /* -1: none */
        bool landlock_required;
        uint64_t landlock_proc; /* rights to grant again on a fresh /proc (0: none) */
};

static void child_report(int fd, int stage, int error, int index)
{
        struct status_msg m = {stage, error, index};
        ssize_t n;
        do
                n = write(fd, &m, sizeof(m));
        while (n < 0 && errno == EINTR);
}

static __attribute__((noreturn)) void child_fail(const struct child_plan *p, int stage, int index)
{
        child_report(p->status_fd, stage, errno, index);
        _exit(127);
}

static int write_file(const char *path, const char *data)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        size_t len = strlen(data);
        ssize_t n = write(fd, data, len);
        int e = errno;
        close(fd);
        errno = e;
        return n == (ssize_t)len ? 0 : -1;
}

/* "/proc/self/fd/N" without snprintf (async-signal-safe). */
static const char *fd_path(char buf[static 32], int fd)
{
        char digits[16];
        int n = 0;
        unsigned v = (unsigned)fd;
        do
                digits[n++] = (char)('0' + v % 10);
        while ((v /= 10) && n < 15);
        memcpy(buf, "/proc/self/fd/", 14);
        int i = 14;
        while (n)
                buf[i++] = digits[--n];
        buf[i] = '\0';
        return buf;
}

/* The new mount API (Linux 5.2, mount_setattr 5.12), by number: old headers lack it. */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#define WARDER__OPEN_TREE_CLONE         1u
#define WARDER__AT_RECURSIVE            0x8000
#define WARDER__MOVE_MOUNT_F_EMPTY_PATH 0x4u
#define WARDER__MOVE_MOUNT_T_EMPTY_PATH 0x40u
#define WARDER__MOUNT_ATTR_RDONLY       0x1ull
#define WARDER__MOUNT_ATTR_NOSUID       0x2ull
#define WARDER__MOUNT_ATTR_NODEV        0x4ull
#define WARDER__MOUNT_ATTR_NOEXEC       0x8ull

struct warder__mount_attr {
        uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/*
 * Binds what `src` names onto what `dst` names (both descriptors), read-only (`all`: also
 * nosuid, nodev, noexec). The bind lands on the very file `dst` was opened on, whatever its
 * name is by now. Returns 0 or -1 with errno.
 */
static int bind_ro(int src, int dst, bool recursive, bool all)
{
        unsigned rec = recursive ? WARDER__AT_RECURSIVE : 0;
        long tree = syscall(__NR_open_tree, src, "",
                            WARDER__OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | rec);
        if (tree >= 0) {
                struct warder__mount_attr a = {0};
                a.attr_set = WARDER__MOUNT_ATTR_RDONLY;
                if (all)
                        a.attr_set |= WARDER__MOUNT_ATTR_NOSUID | WARDER__MOUNT_ATTR_NODEV |
                                      WARDER__MOUNT_ATTR_NOEXEC;
                long rc =
                    syscall(__NR_mount_setattr, (int)tree, "", AT_EMPTY_PATH | rec, &a, sizeof(a));
                if (rc == 0)
                        rc = syscall(__NR_move_mount, (int)tree, "", dst, "",
                                     WARDER__MOVE_MOUNT_F_EMPTY_PATH |
                                         WARDER__MOVE_MOUNT_T_EMPTY_PATH);
                int e = errno;
                close((int)tree);
                errno = e;
                if (rc == 0 || errno != ENOSYS)
                        return rc == 0 ? 0 : -1;
        } else if (errno != ENOSYS) {
                return -1;
        }
        /* Older kernels: bind through the descriptors' magic links, then make the new mount
         * (the one now on top of dst's name) read-only. */
        char sp[32], dp[32], where[4096];
        if (mount(fd_path(sp, src), fd_path(dp, dst), NULL, MS_BIND | (recursive ? MS_REC : 0),
                  NULL) != 0)
                return -1;
        ssize_t n = readlink(fd_path(dp, dst), where, sizeof(where) - 1);
        if (n <= 0)
                return -1;
        where[n] = '\0';
        int top = open(where, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (top < 0)
                return -1;
        unsigned long f = MS_REMOUNT | MS_BIND | MS_RDONLY;
        if (all)
                f |= MS_NOSUID | MS_NODEV | MS_NOEXEC;
        int rc = mount(NULL, fd_path(dp, top), NULL, f, NULL);
        int e = errno;
        close(top);
        errno = e;
        return rc;
}

/* Covers the file or directory `fd` names (in this mount namespace): hidden or read-only. */
static int cover(const struct child_plan *p, int standin_fd, int fd, bool dir, unsigned flags)
{
        char path[32];
        if (flags & WARDER_MASK_HIDE) {
                if (dir)
                        return mount("warder-mask", fd_path(path, fd), "tmpfs",
                                     MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                     "mode=000,size=4k,nr_inodes=1");
                (void)p;
                return bind_ro(standin_fd, fd, false, true);
        }
        return bind_ro(fd, fd, dir, false);
}

/*
 * Opens, in this mount namespace, the file the walk decided on: the parent's descriptor
 * tells its current name (a rename since the walk is followed, not obeyed), and the file
 * opened there must be the same one. Returns a descriptor, -2 when the file has no name left
 * (nothing can reach it), or -1 when it keeps moving.
 *
 * Whether the file is gone is asked of the inode (no link left), never read from the path:
 * the kernel marks an unlinked file's path with " (deleted)", which a file may also be named,
 * and it reads that mark outside its rename lock, so a rename in progress can show it for a
 * file that keeps its name.
 */
static int locate(const struct mask_entry *e)
{
        char link[32], where[4096];
        for (int tries = 0; tries < 16; tries++) {
                ssize_t n = readlink(fd_path(link, e->fd), where, sizeof(where) - 1);
                if (n <= 0)
                        return -1;
                where[n] = '\0';
                int fd = open(where, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino)
                        return fd;
                if (fd >= 0)
                        close(fd);
                if (fstat(e->fd, &st) != 0)
                        return -1;
                if (st.st_nlink == 0)
                        return -2;
        }
        return -1;
}

static void child_masks(const struct child_plan *p)
{
        int standin = -1;
        if (p->standin) {
                struct stat st;
                standin = open(p->standin, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (standin < 0 || fstat(standin, &st) != 0 || st.st_dev != p->standin_dev ||
                    st.st_ino != p->standin_ino) {
                        if (standin >= 0)
                                errno = ESTALE;
                        child_fail(p, STAGE_STANDIN, -1);
                }
        }
        for (size_t i = 0; i < p->masks->count; i++) {
                const struct mask_entry *e = &p->masks->items[i];
                if (warder__exec_test_mask_by_name) {
                        /* The control arm: whatever holds the name now. */
                        int fd = open(e->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                        if (fd < 0 || cover(p, standin, fd, e->dir, e->flags) != 0)
                                child_fail(p, STAGE_MASK, (int)i);
                        close(fd);
                        continue;
                }
                /* What holds the name now is covered too (looked up before any mount of ours
                 * lands on the name): a file renamed there since the walk stays unread. */
                int now = open(e->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat nst;
                if (now >= 0 && (fstat(now, &nst) != 0 || S_ISLNK(nst.st_mode) ||
                                 (nst.st_dev == e->dev && nst.st_ino == e->ino))) {
                        close(now);
                        now = -1;
                }
                int fd = locate(e);
                if (fd == -1) {
                        errno = ESTALE;
                        child_fail(p, STAGE_MASK_MOVED, (int)i);
                }
                if (fd >= 0) {
                        if (cover(p, standin, fd, e->dir, e->flags) != 0)
                                child_fail(p, STAGE_MASK, (int)i);
                        close(fd);
                }
                if (now >= 0) {
                        if (cover(p, standin, now, S_ISDIR(nst.st_mode), e->flags) != 0)
                                child_fail(p, STAGE_MASK, (int)i);
                        close(now);
                }
        }
        if (standin >= 0)
                close(standin);
}

/*
 * A mount namespace of the child's own, for the masks. The host's /proc shows the host's
 * processes, and /proc/<pid>/root their view of the files, masks excepted: in a PID namespace
 * of its own the child mounts a fresh /proc (its own processes only); without one /proc is
 * covered. (A command without masks keeps the host's /proc: a fresh one costs about a fifth
 * of a spawn, and the PID namespace alone is what §6.4 needs.)
 */
static void child_ns(const struct child_plan *p)
{
        if (unshare(CLONE_NEWNS) != 0)
                child_fail(p, STAGE_UNSHARE, -1);
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
                child_fail(p, STAGE_PRIVATE, -1);
        if (p->masks)
                child_masks(p);
        bool fresh =
            p->pidns && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0;
        if (!fresh && p->masks) {
                if (mount("warder-mask", "/proc", "tmpfs",
                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          "mode=000,size=4k,nr_inodes=1") != 0)
                        child_fail(p, STAGE_PROC, -1);
        } else if (fresh && p->landlock_fd >= 0 && p->landlock_proc) {
                int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
                int e = proc >= 0 ? warder__landlock_add_fd(p->landlock_fd, proc, p->landlock_proc)
                                  : errno;
                if (proc >= 0)
                        close(proc);
                if (e != 0) {
                        errno = e;
                        child_fail(p, STAGE_PROC, -1);
                }
        }
}

/* Linux capability numbers (linux/capability.h) and the v3 capset interface. */
#define WARDER__CAP_DAC_READ_SEARCH 2
#define WARDER__CAP_SYS_MODULE      16
#define WARDER__CAP_SYS_RAWIO       17
#define WARDER__CAP_SYS_ADMIN       21
#define WARDER__CAPABILITY_V3       0x20080522

struct warder__cap_header {
        uint32_t version;
        int pid;
};

struct warder__cap_data {
        uint32_t effective, permitted, inheritable;
};

/*
 * After the masks: the command must not be able to take them down (umount needs
 * CAP_SYS_ADMIN), to open a masked file by handle (CAP_DAC_READ_SEARCH), or to reach under
 * them through the kernel (CAP_SYS_MODULE, CAP_SYS_RAWIO). These leave the bounding set, so
 * no exec gets them back, and every other set. 0 or -1 with errno.
 */
static int drop_mount_caps(void)
{
        static const int caps[] = {WARDER__CAP_SYS_ADMIN, WARDER__CAP_DAC_READ_SEARCH,
                                   WARDER__CAP_SYS_MODULE, WARDER__CAP_SYS_RAWIO};
        struct warder__cap_header h = {WARDER__CAPABILITY_V3, 0};
        struct warder__cap_data d[2];
        if (syscall(SYS_capget, &h, d) != 0)
                return -1;
        for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
                if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) != 0 && errno != EINVAL)
                        return -1;
                uint32_t bit = 1u << (caps[i] % 32);
                d[caps[i] / 32].effective &= ~bit;
                d[caps[i] / 32].permitted &= ~bit;
                d[caps[i] / 32].inheritable &= ~bit;
        }
        h.version = WARDER__CAPABILITY_V3;
        h.pid = 0;
        if (syscall(SYS_capset, &h, d) != 0)
                return -1;
        (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
        return 0;
}

/* A child created with a user namespace of its own maps the host's ids to themselves. */
static void child_userns(const struct child_plan *p)
{
        /*
         * A host that changed its ids is not dumpable, which makes /proc/self/ *_map root's.
         * Be dumpable just long enough to write the maps (exec decides dumpability anew
         * anyway), so a copy of the host's memory is exposed no longer than needed.
         */
        int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
        if (dumpable == 0)
                (void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        int rc = write_file("/proc/self/setgroups", "deny");
        if (rc == 0)
                rc = write_file("/proc/self/uid_map", p->uid_map);
        if (rc == 0)
                rc = write_file("/proc/self/gid_map", p->gid_map);
        int e = errno;
        if (dumpable == 0)
                (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        errno = e;
        if (rc != 0)
                child_fail(p, STAGE_USERNS, -1);
}

/* The command's own set-up and exec: working directory, privilege drop, Landlock. */
static __attribute__((noreturn)) void child_exec(const struct child_plan *p)
{
        /* In a mount namespace of its own (masks), resolve the path again: the descriptor
         * opened before belongs to the host's namespace (getcwd() would not find it), and a
         * masked directory must not be entered through it. It must still be the same one. */
        if (p->masks) {
                struct stat a, b;
                if (chdir(p->cwd_path) != 0)
                        child_fail(p, STAGE_CWD, -1);
                if (stat(".", &a) != 0 || fstat(p->cwd_fd, &b) != 0)
                        child_fail(p, STAGE_CWD, -1);
                if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
                        errno = EACCES;
                        child_fail(p, STAGE_CWD_MASKED, -1);
                }
        } else if (fchdir(p->cwd_fd) != 0) {
                child_fail(p, STAGE_CWD, -1);
        }

        if (p->drop) {
                /* Raw system calls: the C library's wrappers would try to change the ids of
                 * every thread they believe this process has (the host's, when it shares
                 * the host's memory). */
                if (syscall(WARDER__SYS_SETGROUPS, 0, NULL) != 0)
                        child_fail(p, STAGE_SETGROUPS, -1);
                if (syscall(WARDER__SYS_SETRESGID, p->gid, p->gid, p->gid) != 0)
                        child_fail(p, STAGE_SETGID, -1);
                if (syscall(WARDER__SYS_SETRESUID, p->uid, p->uid, p->uid) != 0)
                        child_fail(p, STAGE_SETUID, -1);
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
                        child_fail(p, STAGE_NO_NEW_PRIVS, -1);
        }

        if (p->landlock_fd >= 0) {
                int e = warder__landlock_restrict(p->landlock_fd);
                if (e != 0) {
                        errno = e;
                        if (p->landlock_required)
                                child_fail(p, STAGE_LANDLOCK, -1);
                        child_report(p->status_fd, STAGE_LANDLOCK_SKIPPED, e, -1);
                }
        }

        /* Whatever the host left open without close-on-exec stays behind. */
        if (syscall(__NR_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
                struct rlimit rl;
                int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536
                              ? (int)rl.rlim_cur
                              : 65536;
                for (int fd = 3; fd < max; fd++)
                        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        }

        char *const argv[] = {(char *)"sh", (char *)"-c", (char *)p->command, NULL};
        execve("/bin/sh", argv, p->envp);
        child_fail(p, STAGE_EXEC, -1);
}

/*
 * Sanitizer builds copy the memory instead of sharing it (no CLONE_VM), and the copy goes on
 * on the stack it was made from, as fork() does: the sanitizer's shadow memory would be
 * shared with a child that shares the memory, and it knows no stack of ours (it warns, on the
 * command's standard error, at each call that does not return).
 */
#if defined(__SANITIZE_ADDRESS__)
#define WARDER__EXEC_USE_FORK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WARDER__EXEC_USE_FORK 1
#endif
#endif

/* clone(fn, stack, flags, arg), or its sanitizer-build form above. */
static pid_t start_child(int (*fn)(void *), char *stack, int flags, void *arg)
{
#ifndef WARDER__EXEC_USE_FORK
        return clone(fn, stack, flags, arg);
#else
        (void)stack;
        /* CLONE_VFORK stays: the caller still waits for the exec. */
        long pid = syscall(SYS_clone, (unsigned long)(flags & ~CLONE_VM), NULL, NULL, NULL, 0UL);
        if (pid == 0)
                _exit(fn(arg));
        return (pid_t)pid;
#endif
}

static int exec_entry(void *arg)
{
        child_exec(arg);
}

/*
 * The first process of the command's PID namespace (§6.4): it starts the command as its
 * child, reaps whatever is orphaned in the namespace, and when the command ends reports its
 * wait status and exits, which makes the kernel kill every process left in the namespace
 * (a `setsid` job, a double fork). Being init, the command itself could not be killed by its
 * own signals (`kill $$`): hence this extra process.
 * It only makes system calls, on its own stack.
 */
static __attribute__((noreturn)) void child_init(const struct child_plan *p)
{
        pid_t cmd = start_child(exec_entry, p->stack2, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)p);
        if (cmd < 0)
                child_fail(p, STAGE_SPAWN, -1);
        /* The command has exec'd (or failed and said why): the set-up is over. */
        child_report(p->status_fd, STAGE_RUNNING, 0, -1);
        for (;;) {
                int st = 0;
                pid_t w = waitpid(-1, &st, __WALL);
                if (w == cmd) {
                        child_report(p->status_fd, STAGE_EXITED, st, -1);
                        _exit(0);
                }
                if (w < 0 && errno != EINTR)
                        _exit(126);
        }
}

static __attribute__((noreturn)) void child_main(const struct child_plan *p)
{
        if (setpgid(0, 0) != 0)
                child_fail(p, STAGE_PGID, -1);

        /* Default dispositions and an empty mask, whatever the host had. */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)sigaction(sig, &sa, NULL);
        }
        sigset_t empty;
        sigemptyset(&empty);
        if (sigprocmask(SIG_SETMASK, &empty, NULL) != 0)
                child_fail(p, STAGE_SIGNALS, -1);

        if (dup2(p->in_fd, 0) < 0 || dup2(p->out_fd, 1) < 0 || dup2(p->err_fd, 2) < 0)
                child_fail(p, STAGE_STDIO, -1);

        if (p->userns)
                child_userns(p);
        if (p->masks)
                child_ns(p);
        if (p->masks && drop_mount_caps() != 0)
                child_fail(p, STAGE_CAPS, -1);
        if (p->pidns)
                child_init(p);
        child_exec(p);
}

/*
 * Starts the child. Like posix_spawn(), it shares the parent's memory and runs on a stack
 * of its own while the parent waits for its execve (CLONE_VM | CLONE_VFORK), so the cost does
 * not grow with the host's heap the way fork()'s page-table copy does. The child only makes
 * system calls and writes to its own stack; all signals are blocked around the clone so no
 * host handler can run on that stack (sanitizer builds: see start_child()).
 *
 * §6.4: the child is the first process of a PID namespace of its own (with a user namespace
 * of its own when the host is not root, which an unprivileged PID namespace needs), so that
 * when it exits or is killed every process it started dies with it. Where the kernel refuses
 * (no user namespaces for this user, a sysctl, a seccomp filter), the child starts without
 * them and plan->pidns says so; masking for a host that is not root needs the user
 * namespace and then fails closed.
 */
static int child_entry(void *arg)
{
        child_main(arg);
}

#define WARDER__EXEC_STACK ((size_t)256 * 1024)

/*
 * Starts the child on `stack` (2 * WARDER__EXEC_STACK bytes: the child's, and the command's
 * when the child is its init). Without a PID namespace the child waits in CLONE_VFORK fashion
 * until it execs; as init it lives as long as the command, so the parent goes on at once and
 * keeps the stacks until it has reaped it. *why receives the error that made the namespaces
 * impossible, or 0.
 */
static pid_t spawn_child(struct child_plan *plan, char *stack, int *why)
{
#ifndef WARDER__EXEC_USE_FORK
        const int vm = CLONE_VM;
#else
        const int vm = 0;
#endif
        bool root = geteuid() == 0;
        sigset_t all, old;
        sigfillset(&all);
        pid_t pid = -1;
        *why = 0;
        plan->stack2 = stack + 2 * WARDER__EXEC_STACK;
        for (int attempt = 0; attempt < 2; attempt++) {
                plan->pidns = attempt == 0;
                plan->userns = attempt == 0 && !root;
                int flags = vm | SIGCHLD;
                if (plan->pidns)
                        flags |= CLONE_NEWPID | (plan->userns ? CLONE_NEWUSER : 0);
                else
                        flags |= vm ? CLONE_VFORK : 0;
                pthread_sigmask(SIG_BLOCK, &all, &old);
                pid = start_child(child_entry, stack + WARDER__EXEC_STACK, flags, (void *)plan);
                int e = errno;
                pthread_sigmask(SIG_SETMASK, &old, NULL);
                errno = e;
                if (pid >= 0 || attempt > 0)
                        break;
                if (e != EPERM && e != EINVAL && e != ENOSPC && e != EUSERS && e != EACCES)
                        break;
                *why = e;
                if (plan->masks && !root)
                        break; /* the mount namespace needs the user namespace */
        }
        return pid;
}

/* ---- the parent ---- */

static int stage_error(const struct status_msg *m, const struct child_plan *p,
                       struct warder_error *err)
{
        const char *why = strerror(m->error);
        int code = (m->error == EACCES || m->error == EPERM) ? WARDER_EACCES : WARDER_EIO;
        switch ((enum stage)m->stage) {
        case STAGE_PGID:
                return warder_error_set(err, code, "exec: setpgid failed: %s", why);
        case STAGE_SIGNALS:
                return warder_error_set(err, code, "exec: resetting signals failed: %s", why);
        case STAGE_STDIO:
                return warder_error_set(err, code, "exec: setting up stdio failed: %s", why);
        case STAGE_USERNS:
                return warder_error_set(err, code,
                                        "exec: cannot map the ids of the command's user namespace: "
                                        "%s; the command was not run",
                                        why);
        case STAGE_UNSHARE:
                return warder_error_set(err, code,
                                        "masking: cannot create a mount namespace: %s; the command "
                                        "was not run",
                                        why);
        case STAGE_PRIVATE:
                return warder_error_set(err, code,
                                        "masking: cannot make mounts private: %s; the command was "
                                        "not run",
                                        why);
        case STAGE_STANDIN:
                return warder_error_set(err, WARDER_EIO,
                                        "masking: the stand-in file '%s' was replaced or is "
                                        "gone: %s; the command was not run",
                                        p->standin ? p->standin : "?", why);
        case STAGE_MASK:
        case STAGE_MASK_MOVED: {
                const char *path = (p->masks && m->index >= 0 && (size_t)m->index < p->masks->count)
                                       ? p->masks->items[m->index].path
                                       : "?";
                if (m->stage == STAGE_MASK_MOVED)
                        return warder_error_set(err, WARDER_EIO,
                                                "masking: '%s' kept moving while it was being "
                                                "covered; the command was not run",
                                                path);
                return warder_error_set(err, code,
                                        "masking: cannot cover '%s': %s; the command was not run",
                                        path, why);
        }
        case STAGE_PROC:
                return warder_error_set(err, code,
                                        "masking: cannot mount a /proc of the command's own (or "
                                        "cover the host's): %s; the command was not run",
                                        why);
        case STAGE_CAPS:
                return warder_error_set(err, code,
                                        "masking: cannot drop the capabilities that would undo the "
                                        "masks: %s; the command was not run",
                                        why);
        case STAGE_CWD:
                return warder_error_set(err, code, "exec: cannot enter '%s': %s", p->cwd_path, why);
        case STAGE_CWD_MASKED:
                return warder_error_set(err, WARDER_EACCES,
                                        "exec: the working directory '%s' is masked (or was "
                                        "replaced)",
                                        p->cwd_path);
        case STAGE_SETGROUPS:
                return warder_error_set(err, code, "exec: setgroups failed: %s", why);
        case STAGE_SETGID:
                return warder_error_set(err, code, "exec: setgid(%u) failed: %s", (unsigned)p->gid,
                                        why);
        case STAGE_SETUID:
                return warder_error_set(err, code, "exec: setuid(%u) failed: %s", (unsigned)p->uid,
                                        why);
        case STAGE_NO_NEW_PRIVS:
                return warder_error_set(err, code, "exec: PR_SET_NO_NEW_PRIVS failed: %s", why);
        case STAGE_LANDLOCK:
                return warder_error_set(err, WARDER_ENOTSUP,
                                        "landlock is required but could not be enforced: %s; the "
                                        "command was not run",
                                        why);
        case STAGE_LANDLOCK_SKIPPED:
        case STAGE_RUNNING:
        case STAGE_EXITED:
                return 0;
        case STAGE_SPAWN:
                return warder_error_set(err, code, "exec: cannot start the command: %s", why);
        case STAGE_EXEC:
                return warder_error_set(err, m->error == ENOENT ? WARDER_ENOENT : code,
                                        "exec: cannot run /bin/sh: %s", why);
        }
        return warder_error_set(err, WARDER_EIO, "exec: unknown set-up failure");
}

/* Opens the working directory beneath the root; WARDER_EOUTSIDE for anything outside. */
static int open_cwd(const struct warder__exec_config *cfg, int root_fd, const char *cwd, int *out,
                    struct warder_error *err)
{
        size_t rl = strlen(cfg->root);
        const char *rel;
        if (rl == 1) {
                rel = cwd + 1;
        } else if (strncmp(cwd, cfg->root, rl) == 0 && (cwd[rl] == '\0' || cwd[rl] == '/')) {
                rel = cwd + rl + (cwd[rl] == '/');
        } else {
                return warder_error_set(err, WARDER_EOUTSIDE,
                                        "exec: the working directory '%s' is outside the root '%s'",
                                        cwd, cfg->root);
        }
        if (*rel == '\0')
                rel = ".";
        struct open_how how = {
            .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(__NR_openat2, root_fd, rel, &how, sizeof(how));
        if (fd < 0 && errno == ENOSYS) {
                /* No openat2: open, then check where the descriptor really is. */
                fd = openat(root_fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0) {
                        char link[64], where[PATH_MAX];
                        snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
                        ssize_t n = readlink(link, where, sizeof(where) - 1);
                        if (n < 0) {
                                close((int)fd);
                                return warder_error_set(err, WARDER_EIO, "exec: cannot check '%s'",
                                                        cwd);
                        }
                        where[n] = '\0';
                        if (!(rl == 1 || (strncmp(where, cfg->root, rl) == 0 &&
                                          (where[rl] == '\0' || where[rl] == '/')))) {
                                close((int)fd);
                                errno = EXDEV;
                                fd = -1;
                        }
                }
        }
        if (fd < 0) {
                int e = errno;
                switch (e) {
                case EXDEV:
                case ELOOP:
                        return warder_error_set(err, WARDER_EOUTSIDE,
                                                "exec: the working directory '%s' resolves outside "
                                                "the root",
                                                cwd);
                case ENOENT:
                        return warder_error_set(err, WARDER_ENOENT,
                                                "exec: the working directory '%s' does not exist",
                                                cwd);
                case ENOTDIR:
                        return warder_error_set(
                            err, WARDER_ENOTDIR,
                            "exec: the working directory '%s' is not a directory", cwd);
                case EACCES:
                case EPERM:
                        return warder_error_set(err, WARDER_EACCES,
                                                "exec: cannot enter '%s': permission denied", cwd);
                default:
                        return warder_error_set(err, WARDER_EIO, "exec: cannot open '%s': %s", cwd,
                                                strerror(e));
                }
        }
        *out = (int)fd;
        return 0;
}

/* Creates the stand-in for masked files: an empty file, mode 000, bound in the child (which
 * checks it is still this file: *dev and *ino). */
static int make_standin(char **out, dev_t *dev, ino_t *ino, struct warder_error *err)
{
        static const char *const dirs[] = {"/dev/shm", "/tmp"};
        int last = 0;
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(dirs); i++) {
                char tmpl[64];
                snprintf(tmpl, sizeof(tmpl), "%s/.warder-mask-XXXXXX", dirs[i]);
                int fd = mkostemp(tmpl, O_CLOEXEC);
                if (fd < 0) {
                        last = errno;
                        continue;
                }
                struct stat st;
                int rc = fchmod(fd, 0);
                if (rc == 0)
                        rc = fstat(fd, &st);
                last = errno;
                close(fd);
                if (rc == 0) {
                        *dev = st.st_dev;
                        *ino = st.st_ino;
                }
                if (rc != 0) {
                        unlink(tmpl);
                        continue;
                }
                *out = strdup(tmpl);
                if (!*out) {
                        unlink(tmpl);
                        return warder_error_set(err, WARDER_ENOMEM, "masking: out of memory");
                }
                return 0;
        }
        return warder_error_set(err, WARDER_EIO, "masking: cannot create a stand-in file: %s",
                                strerror(last));
}

struct capture {
        int fd;
        int stream;
        size_t cap;
        struct warder__buf buf;
        bool truncated;
};

/*
 * Reads what is available, at most 1 MiB per call so an endless producer cannot keep the
 * caller from its deadline; returns false at end of file (or an error).
 */
static bool drain(struct capture *c, const struct warder_exec_request *req, int *oom)
{
        char chunk[16384];
        for (int i = 0; i < 64; i++) {
                ssize_t n = read(c->fd, chunk, sizeof(chunk));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        return true;
                if (n <= 0)
                        return false;
                if (req->stream)
                        req->stream(req->stream_ud, c->stream, chunk, (size_t)n);
                size_t room = c->buf.len < c->cap ? c->cap - c->buf.len : 0;
                size_t take = (size_t)n < room ? (size_t)n : room;
                if (take < (size_t)n)
                        c->truncated = true;
                if (take && warder__buf_append(&c->buf, chunk, take))
                        *oom = 1;
        }
        return true;
}

/* Reads one record of the child's status pipe; false at its end (or a short read). */
static bool read_status(int fd, struct status_msg *m)
{
        for (;;) {
                ssize_t n = read(fd, m, sizeof(*m));
                if (n < 0 && errno == EINTR)
                        continue;
                return n == (ssize_t)sizeof(*m);
        }
}

/* True once the child has exited (without reaping it, so its pid and group stay ours). */
static bool child_exited(pid_t pid)
{
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
                return errno == ECHILD;
        return si.si_pid == pid;
}

/* One run of a command: what the parent holds from prepare() to run_release(). */
struct run {
        warder_exec_mask_fn mask_fn; /* NULL: nothing is masked */
        void *mask_ud;
        char *command, *standin;
        struct warder__buf cwd;
        struct mask_list masks;
        char *stack;
        dev_t standin_dev;
        ino_t standin_ino;
        int root_fd, cwd_fd, null_fd, ll_fd, status[2];
        struct capture cap[2];
        int out_w, err_w, pidfd;
        bool landlock_applied;
        pid_t pid;
        struct child_plan plan;
};

/*
 * Prepares everything that allocates or may fail in complicated ways, before the fork: the
 * command, the working directory opened beneath the root, the Landlock ruleset, the masks and
 * their stand-in, the pipes and the child's plan.
 */
static int prepare(struct run *r, const struct warder__exec_config *cfg,
                   const struct warder_exec_request *req, struct warder_error *err)
{
        r->command = strndup(req->command, req->command_len);
        if (!r->command)
                return warder_error_set(err, WARDER_ENOMEM, "exec: out of memory");

        /* Working directory: normalised, then opened beneath the root. */
        if (cfg->root_fd >= 0) {
                r->root_fd = cfg->root_fd;
        } else {
                r->root_fd = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (r->root_fd < 0)
                        return warder_error_set(err, errno == ENOENT ? WARDER_ENOENT : WARDER_EIO,
                                                "exec: cannot open the root '%s': %s", cfg->root,
                                                strerror(errno));
        }
        int rc =
            warder__path_normalize_buf(&r->cwd, NULL, NULL, NULL, req->cwd ? req->cwd : cfg->root,
                                       strlen(req->cwd ? req->cwd : cfg->root), err);
        if (rc)
                return rc;
        if (r->cwd.data[0] != '/')
                return warder_error_set(err, WARDER_EINVAL,
                                        "exec: the working directory must be absolute: '%s'",
                                        req->cwd);
        if (cfg->open_dir) {
                size_t rl = strlen(cfg->root);
                if (!(rl == 1 || (strncmp(r->cwd.data, cfg->root, rl) == 0 &&
                                  (r->cwd.data[rl] == '\0' || r->cwd.data[rl] == '/'))))
                        rc = warder_error_set(
                            err, WARDER_EOUTSIDE,
                            "exec: the working directory '%s' is outside the root '%s'",
                            r->cwd.data, cfg->root);
                else
                        rc = cfg->open_dir(cfg->open_dir_ud, r->cwd.data, &r->cwd_fd, err);
        } else {
                rc = open_cwd(cfg, r->root_fd, r->cwd.data, &r->cwd_fd, err);
        }
        if (rc)
                return rc;
        /* Every descriptor the child uses must survive its dup2() onto 0, 1 and 2. */
        r->cwd_fd = fd_above_stdio(r->cwd_fd);
        if (r->cwd_fd < 0)
                return warder_error_set(err, WARDER_EIO, "exec: out of descriptors");

        /* Landlock: built here, enforced in the child. */
        if (cfg->landlock != WARDER_LANDLOCK_OFF) {
                struct warder_error lerr = WARDER_ERROR_INIT;
                int lrc = warder__landlock_build(cfg->root, cfg->landlock_read, cfg->landlock_write,
                                                 &r->ll_fd, &lerr);
                if (lrc && (cfg->landlock == WARDER_LANDLOCK_REQUIRED || lrc != WARDER_ENOTSUP)) {
                        rc = warder_error_set(err, lrc, "%s%s", lerr.message,
                                              lrc == WARDER_ENOTSUP ? "; the command was not run"
                                                                    : "");
                        warder_error_clear(&lerr);
                        return rc;
                }
                warder_error_clear(&lerr);
                if (r->ll_fd >= 0 && (r->ll_fd = fd_above_stdio(r->ll_fd)) < 0)
                        return warder_error_set(err, WARDER_EIO, "exec: out of descriptors");
        }

        /* Masking: find what to cover (bounded), prepare the stand-in. */
        if (r->mask_fn) {
                rc = warder__exec_collect_masks(
                    cfg->root,
                    cfg->mask_budget_entries ? cfg->mask_budget_entries
                                             : WARDER__EXEC_MASK_BUDGET_ENTRIES,
                    cfg->mask_budget_ms ? cfg->mask_budget_ms : WARDER__EXEC_MASK_BUDGET_MS,
                    r->mask_fn, r->mask_ud, &r->masks, err);
                if (rc)
                        return rc;
                bool files = false;
                for (size_t i = 0; i < r->masks.count; i++)
                        files |=
                            !r->masks.items[i].dir && (r->masks.items[i].flags & WARDER_MASK_HIDE);
                if (files) {
                        rc = make_standin(&r->standin, &r->standin_dev, &r->standin_ino, err);
                        if (rc)
                                return rc;
                }
        }
        if (warder__exec_test_hook)
                warder__exec_test_hook(0);

        r->null_fd = fd_above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
        int po[2], pe[2];
        if (r->null_fd < 0 || pipe2(po, O_CLOEXEC) != 0)
                return warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                        strerror(errno));
        r->cap[0].fd = fd_above_stdio(po[0]);
        r->out_w = fd_above_stdio(po[1]);
        if (pipe2(pe, O_CLOEXEC) != 0)
                return warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                        strerror(errno));
        r->cap[1].fd = fd_above_stdio(pe[0]);
        r->err_w = fd_above_stdio(pe[1]);
        if (pipe2(r->status, O_CLOEXEC) != 0)
                return warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                        strerror(errno));
        r->status[0] = fd_above_stdio(r->status[0]);
        r->status[1] = fd_above_stdio(r->status[1]);
        if (r->cap[0].fd < 0 || r->cap[1].fd < 0 || r->out_w < 0 || r->err_w < 0 ||
            r->status[0] < 0 || r->status[1] < 0)
                return warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                        strerror(errno));

        static const char *const default_env[] = {WARDER__EXEC_DEFAULT_PATH, NULL};
        const char *const *env = req->env ? req->env : cfg->env ? cfg->env : default_env;
        r->plan = (struct child_plan){
            .command = r->command,
            .envp = (char *const *)env,
            .in_fd = r->null_fd,
            .out_fd = r->out_w,
            .err_fd = r->err_w,
            .status_fd = r->status[1],
            .cwd_fd = r->cwd_fd,
            .cwd_path = r->cwd.data,
            /* Nothing to cover: no mount namespace either. */
            .masks = r->masks.count ? &r->masks : NULL,
            .standin = r->standin,
            .standin_dev = r->standin_dev,
            .standin_ino = r->standin_ino,
            .drop = cfg->drop_privileges,
            .uid = cfg->uid,
            .gid = cfg->gid,
            .landlock_fd = r->ll_fd,
            .landlock_required = cfg->landlock == WARDER_LANDLOCK_REQUIRED,
            .landlock_proc =
                r->ll_fd >= 0 ? warder__landlock_read_access(cfg->landlock_read, "/proc") : 0,
        };
        snprintf(r->plan.uid_map, sizeof(r->plan.uid_map), "%u %u 1\n", (unsigned)geteuid(),
                 (unsigned)geteuid());
        snprintf(r->plan.gid_map, sizeof(r->plan.gid_map), "%u %u 1\n", (unsigned)getegid(),
                 (unsigned)getegid());
        return 0;
}

/*
 * Spawns the child on its own stack and waits for its set-up report: EOF at exec, or a record
 * naming the stage that failed (then the child is killed and reaped here).
 */
static int spawn(struct run *r, struct warder_error *err)
{
        int why = 0;
        r->stack = mmap(NULL, 2 * WARDER__EXEC_STACK, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (r->stack == MAP_FAILED) {
                r->stack = NULL;
                return warder_error_set(err, WARDER_ENOMEM, "exec: cannot map a stack: %s",
                                        strerror(errno));
        }
        r->pid = spawn_child(&r->plan, r->stack, &why);
        if (r->pid < 0 && why && r->plan.masks)
                return warder_error_set(err,
                                        why == EPERM || why == EACCES ? WARDER_EACCES : WARDER_EIO,
                                        "masking: cannot create a user namespace: %s; the "
                                        "command was not run",
                                        strerror(why));
        if (r->pid < 0)
                return warder_error_set(err, WARDER_EIO, "exec: fork failed: %s", strerror(errno));

        /* Parent. Set the group here too, so a kill never races the child's setpgid(). */
        (void)setpgid(r->pid, r->pid);
        close_fd(&r->out_w);
        close_fd(&r->err_w);
        close_fd(&r->status[1]);

        /* Set-up report: EOF at exec; a record before that names the failing stage. */
        struct status_msg msg;
        bool failed = false, landlock_skipped = false;
        while (read_status(r->status[0], &msg)) {
                if (msg.stage == STAGE_LANDLOCK_SKIPPED) {
                        landlock_skipped = true;
                        continue;
                }
                if (msg.stage == STAGE_RUNNING)
                        break; /* the init started the command */
                failed = true;
                break;
        }
        if (failed) {
                int rc = stage_error(&msg, &r->plan, err);
                (void)kill(-r->pid, SIGKILL);
                while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                r->pid = -1;
                if (!rc)
                        rc = warder_error_set(err, WARDER_EIO, "exec: set-up failed");
                return rc;
        }
        r->landlock_applied = r->ll_fd >= 0 && !landlock_skipped;
        if (warder__exec_test_hook)
                warder__exec_test_hook(1);
        /* The masks are in place (or the exec failed): the stand-in is no longer needed. */
        if (r->standin) {
                unlink(r->standin);
                free(r->standin);
                r->standin = NULL;
        }
        return 0;
}

/*
 * Captures both streams until they end and the shell has exited, or the deadline passes or
 * the request is cancelled (the group is killed), reaps the child and fills `out`.
 */
static int capture(struct run *r, const struct warder__exec_config *cfg,
                   const struct warder_exec_request *req, struct warder_exec_result *out,
                   struct warder_error *err)
{
        int rc = 0;
        struct capture *cap = r->cap;
        uint32_t timeout = req->timeout_ms   ? req->timeout_ms
                           : cfg->timeout_ms ? cfg->timeout_ms
                                             : WARDER__EXEC_TIMEOUT_MS;
        size_t max_output = req->max_output   ? req->max_output
                            : cfg->max_output ? cfg->max_output
                                              : WARDER__EXEC_MAX_OUTPUT;
        for (int i = 0; i < 2; i++) {
                cap[i].cap = max_output;
                (void)fcntl(cap[i].fd, F_SETFL, fcntl(cap[i].fd, F_GETFL) | O_NONBLOCK);
        }
        r->pidfd = (int)syscall(__NR_pidfd_open, r->pid, 0u);
        int64_t deadline = warder__exec_now_ms() + timeout;
        int64_t grace = -1; /* after the group is killed: how long to keep draining */
        bool exited = false, timed_out = false, cancelled = false;
        int oom = 0;
        int cancel_fd = warder_cancel_fd(req->cancel);
        for (;;) {
                if (!exited && !cancelled && !timed_out && warder_cancel_triggered(req->cancel)) {
                        cancelled = true;
                        (void)kill(-r->pid, SIGKILL);
                }
                if (!exited && child_exited(r->pid)) {
                        exited = true;
                        /* Nothing the command started outlives it. */
                        (void)kill(-r->pid, SIGKILL);
                        grace = warder__exec_now_ms() + 500;
                }
                if (exited && cap[0].fd < 0 && cap[1].fd < 0)
                        break;
                int64_t now = warder__exec_now_ms();
                if (!exited && !timed_out && now >= deadline) {
                        timed_out = true;
                        (void)kill(-r->pid, SIGKILL);
                }
                if (grace >= 0 && now >= grace)
                        break; /* a process escaped the group and holds a pipe open */
                struct pollfd pfd[4];
                int nfd = 0, idx[2] = {-1, -1};
                for (int i = 0; i < 2; i++) {
                        if (cap[i].fd >= 0) {
                                idx[i] = nfd;
                                pfd[nfd++] = (struct pollfd){cap[i].fd, POLLIN, 0};
                        }
                }
                int pidx = -1;
                if (!exited && r->pidfd >= 0) {
                        pidx = nfd;
                        pfd[nfd++] = (struct pollfd){r->pidfd, POLLIN, 0};
                }
                if (!exited && !cancelled && cancel_fd >= 0)
                        pfd[nfd++] = (struct pollfd){cancel_fd, POLLIN, 0};
                int64_t until = grace >= 0 ? grace : (timed_out || cancelled) ? now + 50 : deadline;
                int64_t wait = until - now;
                if (!exited && r->pidfd < 0 && wait > 20)
                        wait = 20; /* no pidfd: look at the child now and then */
                if (wait < 0)
                        wait = 0;
                int n = poll(pfd, (nfds_t)nfd, (int)wait);
                if (n < 0 && errno != EINTR) {
                        (void)kill(-r->pid, SIGKILL);
                        rc = warder_error_set(err, WARDER_EIO, "exec: poll failed: %s",
                                              strerror(errno));
                        break;
                }
                for (int i = 0; i < 2 && n > 0; i++) {
                        if (idx[i] >= 0 && pfd[idx[i]].revents) {
                                if (!drain(&cap[i], req, &oom))
                                        close_fd(&cap[i].fd);
                        }
                }
                (void)pidx;
        }
        /* Reap the shell, or its init (already dead or killed above). */
        int st = 0;
        pid_t w;
        while ((w = waitpid(r->pid, &st, 0)) < 0 && errno == EINTR)
                ;
        r->pid = -1;
        /* The init reports the command's own wait status (the init itself just exits). */
        if (r->plan.pidns && w > 0) {
                (void)fcntl(r->status[0], F_SETFL, fcntl(r->status[0], F_GETFL) | O_NONBLOCK);
                bool reported = false;
                struct status_msg msg;
                while (read_status(r->status[0], &msg)) {
                        if (msg.stage == STAGE_EXITED) {
                                st = msg.error;
                                reported = true;
                        }
                }
                if (!reported && WIFEXITED(st))
                        st = W_EXITCODE(0, SIGKILL); /* killed before it could say */
        }
        if (rc)
                return rc;
        if (oom)
                return warder_error_set(err, WARDER_ENOMEM, "exec: out of memory capturing output");

        struct warder_exec_result res = WARDER_EXEC_RESULT_INIT;
        res.exit_status = (w > 0 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
        res.signal = (w > 0 && WIFSIGNALED(st)) ? WTERMSIG(st) : 0;
        res.timed_out = timed_out;
        res.cancelled = cancelled;
        res.landlock_applied = r->landlock_applied;
        res.masked = r->mask_fn && r->masks.count > 0;
        res.pid_namespace = r->plan.pidns;
        for (int i = 0; i < 2; i++) {
                struct warder_bytes *b = i == 0 ? &res.out : &res.err;
                b->len = cap[i].buf.len;
                b->truncated = cap[i].truncated;
                b->data = warder__buf_steal(&cap[i].buf);
                if (!b->data) {
                        free(res.out.data);
                        return warder_error_set(err, WARDER_ENOMEM, "exec: out of memory");
                }
        }
        *out = res;
        return 0;
}

/* Kills and reaps a child still running, removes the stand-in, closes and frees the rest. */
static void run_release(struct run *r, const struct warder__exec_config *cfg)
{
        if (r->pid > 0) {
                (void)kill(-r->pid, SIGKILL);
                while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        if (r->standin) {
                unlink(r->standin);
                free(r->standin);
        }
        for (int i = 0; i < 2; i++) {
                close_fd(&r->cap[i].fd);
                warder__buf_free(&r->cap[i].buf);
        }
        close_fd(&r->out_w);
        close_fd(&r->err_w);
        close_fd(&r->status[0]);
        close_fd(&r->status[1]);
        close_fd(&r->pidfd);
        close_fd(&r->null_fd);
        close_fd(&r->cwd_fd);
        if (r->ll_fd >= 0)
                close(r->ll_fd);
        if (r->root_fd >= 0 && r->root_fd != cfg->root_fd)
                close(r->root_fd);
        if (r->stack)
                munmap(r->stack, 2 * WARDER__EXEC_STACK); /* the child is reaped by now */
        warder__exec_mask_list_free(&r->masks);
        warder__buf_free(&r->cwd);
        free(r->command);
}

int warder__exec_run(const struct warder__exec_config *cfg, const struct warder_exec_request *req,
                     struct warder_exec_result *out, struct warder_error *err)
{
        if (!cfg || !cfg->root || cfg->root[0] != '/' || !req || !out ||
            (!req->command && req->command_len))
                return warder_error_set(err, WARDER_EINVAL, "exec: invalid argument");
        if (req->version == 0 || req->version > WARDER_EXEC_REQUEST_VERSION)
                return warder_error_set(err, WARDER_EINVAL, "exec: unknown request version %u",
                                        req->version);
        /* §6.5: what to mask comes with the request (from a guard's current ruleset). */
        warder_exec_mask_fn mask_fn = cfg->mask;
        void *mask_ud = cfg->mask_ud;
        if (!mask_fn && cfg->mask_requests) {
                if (req->version < 2 || !req->mask)
                        return warder_error_set(err, WARDER_EINVAL,
                                                "exec: masking is enabled but the request does not "
                                                "say what to mask (run it through a guard); the "
                                                "command was not run");
                mask_fn = req->mask;
                mask_ud = req->mask_ud;
        }
        if (req->command_len == 0)
                return warder_error_set(err, WARDER_EINVAL, "exec: empty command");
        if (memchr(req->command, '\0', req->command_len))
                return warder_error_set(err, WARDER_EINVAL,
                                        "exec: the command contains a NUL byte");

        struct run r = {
            .mask_fn = mask_fn,
            .mask_ud = mask_ud,
            .cwd = WARDER__BUF_INIT,
            .root_fd = -1,
            .cwd_fd = -1,
            .null_fd = -1,
            .ll_fd = -1,
            .status = {-1, -1},
            .cap = {{.fd = -1, .stream = 1}, {.fd = -1, .stream = 2}},
            .out_w = -1,
            .err_w = -1,
            .pidfd = -1,
            .pid = -1,
        };
        int rc = prepare(&r, cfg, req, err);
        if (!rc)
                rc = spawn(&r, err);
        if (!rc)
                rc = capture(&r, cfg, req, out, err);
        run_release(&r, cfg);
        return rc;
}

/* ---- the local backend's execute operation ---- */

static int local_open_dir(void *ud, const char *path, int *fd_out, struct warder_error *err)
{
        return warder__local_open_in(ud, path, fd_out, err);
}

int warder__local_exec(struct local *l, const struct warder_exec_request *req,
                       struct warder_exec_result *out, struct warder_error *err)
{
        if (!l || !l->root || !req || !out)
                return warder_error_set(err, WARDER_EINVAL, "exec: invalid argument");
        if (!l->opts.exec)
                return warder_error_set(err, WARDER_ENOTSUP, "execute is not enabled");
        struct warder__exec_config cfg;
        warder__exec_config_from_options(&cfg, l->root, l->root_fd, &l->opts);
        cfg.open_dir = local_open_dir;
        cfg.open_dir_ud = l;
        return warder__exec_run(&cfg, req, out, err);
}
