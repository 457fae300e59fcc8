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

#include "local-internal.h"
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
        cfg->mask_ruleset = opts->mask_ruleset;
        cfg->mask_budget_ms = opts->mask_budget_ms;
        cfg->mask_budget_entries = opts->mask_budget_entries;
}

/* ---- time ---- */

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* ---- the masking walk (parent side) ---- */

struct mask_entry {
        char *path; /* mount target, absolute */
        bool dir;
};

struct mask_list {
        struct mask_entry *items;
        size_t count, cap;
};

static void mask_list_free(struct mask_list *l)
{
        for (size_t i = 0; i < l->count; i++)
                free(l->items[i].path);
        free(l->items);
        *l = (struct mask_list){0};
}

static int mask_list_add(struct mask_list *l, const char *path, bool dir)
{
        if (l->count == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                struct mask_entry *p = realloc(l->items, cap * sizeof(*p));
                if (!p)
                        return WARDER_ENOMEM;
                l->items = p;
                l->cap = cap;
        }
        char *copy = strdup(path);
        if (!copy)
                return WARDER_ENOMEM;
        l->items[l->count++] = (struct mask_entry){copy, dir};
        return 0;
}

static int ruleset_mask(void *ud, const char *literal, const char *real, bool *mask)
{
        /* Only `deny` is masked: an `ask` cannot be asked from inside a running command. An
         * error deciding masks the entry (fail closed). */
        const warder_ruleset *rs = ud;
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = warder_ruleset_check(&d, rs, WARDER_OP_READ, literal, strlen(literal), real,
                                      (real ? strlen(real) : 0), NULL);
        *mask = rc != 0 || d.action == WARDER_DENY;
        warder_decision_clear(&d);
        return 0;
}

struct walk {
        const struct warder__exec_config *cfg;
        warder__exec_mask_fn fn;
        void *ud;
        struct mask_list *masks;
        size_t entries, max_entries;
        int64_t deadline;
        uint32_t budget_ms;
        struct warder_error *err;
};

static int walk_budget(struct walk *w)
{
        w->entries++;
        if (w->entries > w->max_entries)
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: the walk of '%s' exceeded its budget of %zu entries; "
                    "the command was not run",
                    w->cfg->root, w->max_entries);
        if (now_ms() > w->deadline)
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: the walk of '%s' exceeded its budget of %u ms; the "
                    "command was not run",
                    w->cfg->root, (unsigned)w->budget_ms);
        return 0;
}

/*
 * Decides one entry; *descend tells the caller whether to walk into a directory, *unknown
 * that the entry could not be examined (the caller masks the directory holding it).
 */
static int walk_entry(struct walk *w, const char *path, unsigned char d_type, bool *descend,
                      bool *unknown)
{
        *descend = false;
        struct stat st;
        /* The type readdir() gave saves a stat per entry; DT_UNKNOWN asks the inode. */
        switch (d_type) {
        case DT_REG:
        case DT_FIFO:
        case DT_SOCK:
        case DT_CHR:
        case DT_BLK:
                st.st_mode = S_IFREG;
                break;
        case DT_DIR:
                st.st_mode = S_IFDIR;
                break;
        case DT_LNK:
                st.st_mode = S_IFLNK;
                break;
        default:
                if (lstat(path, &st) != 0) {
                        *unknown = errno != ENOENT; /* ENOENT: vanished, nothing to mask */
                        return 0;
                }
                break;
        }
        char *real = NULL;
        if (S_ISLNK(st.st_mode)) {
                real = realpath(path, NULL);
                if (!real)
                        return 0; /* dangling (or a loop): nothing to read through it */
        }
        bool mask = true;
        int rc = w->fn(w->ud, path, real, &mask);
        if (rc)
                mask = true; /* fail closed */
        rc = 0;
        if (mask) {
                const char *target = real ? real : path;
                struct stat tst = st;
                if (real && stat(real, &tst) != 0) {
                        free(real);
                        return 0;
                }
                rc = mask_list_add(w->masks, target, S_ISDIR(tst.st_mode));
        } else if (S_ISDIR(st.st_mode)) {
                *descend = true;
        }
        free(real);
        if (rc)
                return warder_error_set(w->err, rc, "masking: out of memory");
        return 0;
}

static int walk_dir(struct walk *w, struct warder__buf *path, size_t depth)
{
        if (depth > 256)
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: '%s' is nested too deeply; the command was not run", path->data);
        /*
         * A directory we cannot list (or an entry we cannot examine) is masked whole: the
         * child may be able to open it up (chmod as the same user), and it must not find
         * anything unchecked there.
         */
        int fd = open(path->data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                if (mask_list_add(w->masks, path->data, true))
                        return warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
                return 0;
        }
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
        }
        size_t base = path->len;
        int rc = 0;
        bool unknown = false;
        struct dirent *de = NULL;
        while (!rc && (errno = 0, de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                rc = walk_budget(w);
                if (rc)
                        break;
                warder__buf_truncate(path, base);
                if ((base > 1 && warder__buf_putc(path, '/')) ||
                    warder__buf_puts(path, de->d_name)) {
                        rc = warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
                        break;
                }
                bool descend;
                rc = walk_entry(w, path->data, de->d_type, &descend, &unknown);
                if (!rc && descend)
                        rc = walk_dir(w, path, depth + 1);
        }
        if (!rc && !de && errno != 0)
                unknown = true; /* readdir failed part-way */
        closedir(d);
        warder__buf_truncate(path, base);
        if (!rc && unknown && mask_list_add(w->masks, path->data, true))
                rc = warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
        return rc;
}

static int collect_masks(const struct warder__exec_config *cfg, struct mask_list *masks,
                         struct warder_error *err)
{
        struct walk w = {
            .cfg = cfg,
            .fn = cfg->mask ? cfg->mask : ruleset_mask,
            .ud = cfg->mask ? cfg->mask_ud : (void *)cfg->mask_ruleset,
            .masks = masks,
            .max_entries = cfg->mask_budget_entries ? cfg->mask_budget_entries
                                                    : WARDER__EXEC_MASK_BUDGET_ENTRIES,
            .budget_ms = cfg->mask_budget_ms ? cfg->mask_budget_ms : WARDER__EXEC_MASK_BUDGET_MS,
            .err = err,
        };
        w.deadline = now_ms() + w.budget_ms;
        struct warder__buf path = WARDER__BUF_INIT;
        if (warder__buf_puts(&path, cfg->root))
                return warder_error_set(err, WARDER_ENOMEM, "masking: out of memory");
        bool descend, unknown = false;
        int rc = walk_entry(&w, path.data, DT_UNKNOWN, &descend, &unknown);
        if (!rc && unknown && mask_list_add(masks, path.data, true))
                rc = warder_error_set(err, WARDER_ENOMEM, "masking: out of memory");
        if (!rc && descend)
                rc = walk_dir(&w, &path, 0);
        if (!rc && now_ms() > w.deadline)
                rc = warder_error_set(err, WARDER_ELIMIT,
                                      "masking: the walk of '%s' exceeded its budget of %u ms; the "
                                      "command was not run",
                                      cfg->root, (unsigned)w.budget_ms);
        warder__buf_free(&path);
        return rc;
}

/* ---- the child ---- */

enum stage {
        STAGE_PGID = 1,
        STAGE_SIGNALS,
        STAGE_STDIO,
        STAGE_USERNS,
        STAGE_UNSHARE,
        STAGE_PRIVATE,
        STAGE_MASK,
        STAGE_CWD,
        STAGE_CWD_MASKED,
        STAGE_SETGROUPS,
        STAGE_SETGID,
        STAGE_SETUID,
        STAGE_NO_NEW_PRIVS,
        STAGE_LANDLOCK,
        STAGE_LANDLOCK_SKIPPED, /* not fatal: best-effort mode */
        STAGE_EXEC,
};

struct status_msg {
        int stage;
        int error;
        int index; /* the mask entry, for STAGE_MASK */
};

struct child_plan {
        const char *command;
        char *const *envp;
        int in_fd, out_fd, err_fd, status_fd;
        int cwd_fd;
        const char *cwd_path;
        const struct mask_list *masks;
        const char *standin; /* empty, mode 000 file bound over masked files */
        bool userns;         /* not root: a user namespace to own the mount namespace */
        char uid_map[64], gid_map[64];
        bool drop;
        uid_t uid;
        gid_t gid;
        int landlock_fd; /* -1: none */
        bool landlock_required;
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

static void child_mask(const struct child_plan *p)
{
        if (p->userns) {
                /*
                 * A host that changed its ids is not dumpable, which makes /proc/self/ *_map
                 * root's. Be dumpable just long enough to write the maps (exec decides
                 * dumpability anew anyway), so a copy of the host's memory is exposed no
                 * longer than needed.
                 */
                int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
                if (dumpable == 0)
                        (void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
                if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
                        child_fail(p, STAGE_USERNS, -1);
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
        } else if (unshare(CLONE_NEWNS) != 0) {
                child_fail(p, STAGE_UNSHARE, -1);
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
                child_fail(p, STAGE_PRIVATE, -1);
        const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
        for (size_t i = 0; i < p->masks->count; i++) {
                const struct mask_entry *m = &p->masks->items[i];
                int rc;
                if (m->dir) {
                        rc = mount("warder-mask", m->path, "tmpfs", ro,
                                   "mode=000,size=4k,nr_inodes=1");
                } else {
                        rc = mount(p->standin, m->path, NULL, MS_BIND, NULL);
                        if (rc == 0)
                                rc = mount(NULL, m->path, NULL, MS_REMOUNT | MS_BIND | ro, NULL);
                }
                if (rc != 0)
                        child_fail(p, STAGE_MASK, (int)i);
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

        if (p->masks)
                child_mask(p);

        /* With masks, resolve the path again so a masked directory is not entered through
         * the descriptor opened before the masks existed; it must still be the same directory. */
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
 * Starts the child. Like posix_spawn(), it shares the parent's memory and runs on a stack
 * of its own while the parent waits for its execve (CLONE_VM | CLONE_VFORK), so the cost does
 * not grow with the host's heap the way fork()'s page-table copy does. The child only makes
 * system calls and writes to its own stack; all signals are blocked around the clone so no
 * host handler can run on that stack. A user namespace cannot be created by a process that
 * shares its memory, so that case forks. Sanitizer builds fork too: the sanitizer's shadow
 * memory would be shared with the child.
 */
#if defined(__SANITIZE_ADDRESS__)
#define WARDER__EXEC_USE_FORK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WARDER__EXEC_USE_FORK 1
#endif
#endif

#ifndef WARDER__EXEC_USE_FORK
static int child_entry(void *arg)
{
        child_main(arg);
}
#endif

static pid_t spawn_child(const struct child_plan *plan)
{
#ifndef WARDER__EXEC_USE_FORK
        if (!plan->userns) {
                const size_t size = 256 * 1024;
                void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
                if (stack != MAP_FAILED) {
                        sigset_t all, old;
                        sigfillset(&all);
                        pthread_sigmask(SIG_BLOCK, &all, &old);
                        pid_t pid = clone(child_entry, (char *)stack + size,
                                          CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)plan);
                        int e = errno;
                        pthread_sigmask(SIG_SETMASK, &old, NULL);
                        munmap(stack, size);
                        errno = e;
                        return pid;
                }
        }
#endif
        pid_t pid = fork();
        if (pid == 0)
                child_main(plan);
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
                                        "masking: cannot create a user namespace: %s; the command "
                                        "was not run",
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
        case STAGE_MASK: {
                const char *path = (p->masks && m->index >= 0 && (size_t)m->index < p->masks->count)
                                       ? p->masks->items[m->index].path
                                       : "?";
                return warder_error_set(err, code,
                                        "masking: cannot cover '%s': %s; the command was not run",
                                        path, why);
        }
        case STAGE_CWD:
                return warder_error_set(err, code, "exec: cannot enter '%s': %s", p->cwd_path, why);
        case STAGE_CWD_MASKED:
                return warder_error_set(err, WARDER_EACCES,
                                        "exec: the working directory '%s' is masked", p->cwd_path);
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
                return 0;
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

/* Creates the stand-in for masked files: an empty file, mode 000, bound in the child. */
static int make_standin(char **out, struct warder_error *err)
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
                int rc = fchmod(fd, 0);
                last = errno;
                close(fd);
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

/* True once the child has exited (without reaping it, so its pid and group stay ours). */
static bool child_exited(pid_t pid)
{
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
                return errno == ECHILD;
        return si.si_pid == pid;
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
        if (req->command_len == 0)
                return warder_error_set(err, WARDER_EINVAL, "exec: empty command");
        if (memchr(req->command, '\0', req->command_len))
                return warder_error_set(err, WARDER_EINVAL,
                                        "exec: the command contains a NUL byte");

        int rc = 0;
        char *command = NULL, *standin = NULL;
        struct warder__buf cwd = WARDER__BUF_INIT;
        struct mask_list masks = {0};
        bool masking = cfg->mask || cfg->mask_ruleset;
        int root_fd = -1, cwd_fd = -1, null_fd = -1, ll_fd = -1, status[2] = {-1, -1};
        struct capture cap[2] = {{.fd = -1, .stream = 1}, {.fd = -1, .stream = 2}};
        int out_w = -1, err_w = -1, pidfd = -1;
        bool landlock_applied = false, landlock_skipped = false;
        pid_t pid = -1;

        command = strndup(req->command, req->command_len);
        if (!command) {
                rc = warder_error_set(err, WARDER_ENOMEM, "exec: out of memory");
                goto done;
        }

        /* Working directory: normalised, then opened beneath the root. */
        if (cfg->root_fd >= 0) {
                root_fd = cfg->root_fd;
        } else {
                root_fd = open(cfg->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (root_fd < 0) {
                        rc = warder_error_set(err, errno == ENOENT ? WARDER_ENOENT : WARDER_EIO,
                                              "exec: cannot open the root '%s': %s", cfg->root,
                                              strerror(errno));
                        goto done;
                }
        }
        rc = warder__path_normalize_buf(&cwd, NULL, NULL, NULL, req->cwd ? req->cwd : cfg->root,
                                        strlen(req->cwd ? req->cwd : cfg->root), err);
        if (rc)
                goto done;
        if (cwd.data[0] != '/') {
                rc = warder_error_set(err, WARDER_EINVAL,
                                      "exec: the working directory must be absolute: '%s'",
                                      req->cwd);
                goto done;
        }
        if (cfg->open_dir) {
                size_t rl = strlen(cfg->root);
                if (!(rl == 1 || (strncmp(cwd.data, cfg->root, rl) == 0 &&
                                  (cwd.data[rl] == '\0' || cwd.data[rl] == '/'))))
                        rc = warder_error_set(
                            err, WARDER_EOUTSIDE,
                            "exec: the working directory '%s' is outside the root '%s'", cwd.data,
                            cfg->root);
                else
                        rc = cfg->open_dir(cfg->open_dir_ud, cwd.data, &cwd_fd, err);
        } else {
                rc = open_cwd(cfg, root_fd, cwd.data, &cwd_fd, err);
        }
        if (rc)
                goto done;
        /* Every descriptor the child uses must survive its dup2() onto 0, 1 and 2. */
        cwd_fd = fd_above_stdio(cwd_fd);
        if (cwd_fd < 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: out of descriptors");
                goto done;
        }

        /* Landlock: built here, enforced in the child. */
        if (cfg->landlock != WARDER_LANDLOCK_OFF) {
                struct warder_error lerr = WARDER_ERROR_INIT;
                int lrc = warder__landlock_build(cfg->root, cfg->landlock_read, cfg->landlock_write,
                                                 &ll_fd, &lerr);
                if (lrc && (cfg->landlock == WARDER_LANDLOCK_REQUIRED || lrc != WARDER_ENOTSUP)) {
                        rc = warder_error_set(err, lrc, "%s%s", lerr.message,
                                              lrc == WARDER_ENOTSUP ? "; the command was not run"
                                                                    : "");
                        warder_error_clear(&lerr);
                        goto done;
                }
                warder_error_clear(&lerr);
                if (ll_fd >= 0 && (ll_fd = fd_above_stdio(ll_fd)) < 0) {
                        rc = warder_error_set(err, WARDER_EIO, "exec: out of descriptors");
                        goto done;
                }
        }

        /* Masking: find what to cover (bounded), prepare the stand-in. */
        if (masking) {
                rc = collect_masks(cfg, &masks, err);
                if (rc)
                        goto done;
                if (masks.count) {
                        rc = make_standin(&standin, err);
                        if (rc)
                                goto done;
                }
        }

        null_fd = fd_above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
        int po[2], pe[2];
        if (null_fd < 0 || pipe2(po, O_CLOEXEC) != 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                      strerror(errno));
                goto done;
        }
        cap[0].fd = fd_above_stdio(po[0]);
        out_w = fd_above_stdio(po[1]);
        if (pipe2(pe, O_CLOEXEC) != 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                      strerror(errno));
                goto done;
        }
        cap[1].fd = fd_above_stdio(pe[0]);
        err_w = fd_above_stdio(pe[1]);
        if (pipe2(status, O_CLOEXEC) != 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                      strerror(errno));
                goto done;
        }
        status[0] = fd_above_stdio(status[0]);
        status[1] = fd_above_stdio(status[1]);
        if (cap[0].fd < 0 || cap[1].fd < 0 || out_w < 0 || err_w < 0 || status[0] < 0 ||
            status[1] < 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: cannot create pipes: %s",
                                      strerror(errno));
                goto done;
        }

        static const char *const default_env[] = {WARDER__EXEC_DEFAULT_PATH, NULL};
        const char *const *env = req->env ? req->env : cfg->env ? cfg->env : default_env;
        struct child_plan plan = {
            .command = command,
            .envp = (char *const *)env,
            .in_fd = null_fd,
            .out_fd = out_w,
            .err_fd = err_w,
            .status_fd = status[1],
            .cwd_fd = cwd_fd,
            .cwd_path = cwd.data,
            /* Nothing to cover: no mount namespace either. */
            .masks = masks.count ? &masks : NULL,
            .standin = standin,
            .userns = masks.count && geteuid() != 0,
            .drop = cfg->drop_privileges,
            .uid = cfg->uid,
            .gid = cfg->gid,
            .landlock_fd = ll_fd,
            .landlock_required = cfg->landlock == WARDER_LANDLOCK_REQUIRED,
        };
        snprintf(plan.uid_map, sizeof(plan.uid_map), "%u %u 1\n", (unsigned)geteuid(),
                 (unsigned)geteuid());
        snprintf(plan.gid_map, sizeof(plan.gid_map), "%u %u 1\n", (unsigned)getegid(),
                 (unsigned)getegid());

        pid = spawn_child(&plan);
        if (pid < 0) {
                rc = warder_error_set(err, WARDER_EIO, "exec: fork failed: %s", strerror(errno));
                goto done;
        }

        /* Parent. Set the group here too, so a kill never races the child's setpgid(). */
        (void)setpgid(pid, pid);
        close_fd(&out_w);
        close_fd(&err_w);
        close_fd(&status[1]);

        /* Set-up report: EOF at exec; a record before that names the failing stage. */
        struct status_msg msg;
        bool failed = false;
        for (;;) {
                ssize_t n = read(status[0], &msg, sizeof(msg));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n != (ssize_t)sizeof(msg))
                        break;
                if (msg.stage == STAGE_LANDLOCK_SKIPPED) {
                        landlock_skipped = true;
                        continue;
                }
                failed = true;
                break;
        }
        if (failed) {
                rc = stage_error(&msg, &plan, err);
                (void)kill(-pid, SIGKILL);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                pid = -1;
                if (!rc)
                        rc = warder_error_set(err, WARDER_EIO, "exec: set-up failed");
                goto done;
        }
        landlock_applied = ll_fd >= 0 && !landlock_skipped;
        /* The masks are in place (or the exec failed): the stand-in is no longer needed. */
        if (standin) {
                unlink(standin);
                free(standin);
                standin = NULL;
        }

        /* Capture until both streams end and the shell has exited, or the deadline passes. */
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
        pidfd = (int)syscall(__NR_pidfd_open, pid, 0u);
        int64_t deadline = now_ms() + timeout;
        int64_t grace = -1; /* after the group is killed: how long to keep draining */
        bool exited = false, timed_out = false, cancelled = false;
        int oom = 0;
        int cancel_fd = warder_cancel_fd(req->cancel);
        for (;;) {
                if (!exited && !cancelled && !timed_out && warder_cancel_triggered(req->cancel)) {
                        cancelled = true;
                        (void)kill(-pid, SIGKILL);
                }
                if (!exited && child_exited(pid)) {
                        exited = true;
                        /* Nothing the command started outlives it. */
                        (void)kill(-pid, SIGKILL);
                        grace = now_ms() + 500;
                }
                if (exited && cap[0].fd < 0 && cap[1].fd < 0)
                        break;
                int64_t now = now_ms();
                if (!exited && !timed_out && now >= deadline) {
                        timed_out = true;
                        (void)kill(-pid, SIGKILL);
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
                if (!exited && pidfd >= 0) {
                        pidx = nfd;
                        pfd[nfd++] = (struct pollfd){pidfd, POLLIN, 0};
                }
                if (!exited && !cancelled && cancel_fd >= 0)
                        pfd[nfd++] = (struct pollfd){cancel_fd, POLLIN, 0};
                int64_t until = grace >= 0 ? grace : (timed_out || cancelled) ? now + 50 : deadline;
                int64_t wait = until - now;
                if (!exited && pidfd < 0 && wait > 20)
                        wait = 20; /* no pidfd: look at the child now and then */
                if (wait < 0)
                        wait = 0;
                int n = poll(pfd, (nfds_t)nfd, (int)wait);
                if (n < 0 && errno != EINTR) {
                        (void)kill(-pid, SIGKILL);
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
        /* Reap the shell (already dead or killed above). */
        int st = 0;
        pid_t w;
        while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
                ;
        pid = -1;
        if (rc)
                goto done;
        if (oom) {
                rc = warder_error_set(err, WARDER_ENOMEM, "exec: out of memory capturing output");
                goto done;
        }

        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
        r.exit_status = (w > 0 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
        r.signal = (w > 0 && WIFSIGNALED(st)) ? WTERMSIG(st) : 0;
        r.timed_out = timed_out;
        r.cancelled = cancelled;
        r.landlock_applied = landlock_applied;
        r.masked = masking && masks.count > 0;
        for (int i = 0; i < 2; i++) {
                struct warder_bytes *b = i == 0 ? &r.out : &r.err;
                b->len = cap[i].buf.len;
                b->truncated = cap[i].truncated;
                b->data = warder__buf_steal(&cap[i].buf);
                if (!b->data) {
                        free(r.out.data);
                        rc = warder_error_set(err, WARDER_ENOMEM, "exec: out of memory");
                        goto done;
                }
        }
        *out = r;

done:
        if (pid > 0) {
                (void)kill(-pid, SIGKILL);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        if (standin) {
                unlink(standin);
                free(standin);
        }
        for (int i = 0; i < 2; i++) {
                close_fd(&cap[i].fd);
                warder__buf_free(&cap[i].buf);
        }
        close_fd(&out_w);
        close_fd(&err_w);
        close_fd(&status[0]);
        close_fd(&status[1]);
        close_fd(&pidfd);
        close_fd(&null_fd);
        close_fd(&cwd_fd);
        if (ll_fd >= 0)
                close(ll_fd);
        if (root_fd >= 0 && root_fd != cfg->root_fd)
                close(root_fd);
        mask_list_free(&masks);
        warder__buf_free(&cwd);
        free(command);
        return rc;
}

/* ---- the local backend's execute operation ---- */

static int local_open_dir(void *ud, const char *path, int *fd_out, struct warder_error *err)
{
        return warder__local_open_dir(ud, path, fd_out, err);
}

int warder__local_exec(warder_backend *b, int root_fd, const char *root,
                       const struct warder_local_options *opts,
                       const struct warder_exec_request *req, struct warder_exec_result *out,
                       struct warder_error *err)
{
        if (!b || !root || !opts || !req || !out)
                return warder_error_set(err, WARDER_EINVAL, "exec: invalid argument");
        if (!opts->exec)
                return warder_error_set(err, WARDER_ENOTSUP, "execute is not enabled");
        struct warder__exec_config cfg;
        warder__exec_config_from_options(&cfg, root, root_fd, opts);
        cfg.open_dir = local_open_dir;
        cfg.open_dir_ud = b;
        return warder__exec_run(&cfg, req, out, err);
}
