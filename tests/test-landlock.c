/* SPDX-License-Identifier: MIT */
/*
 * The Landlock ruleset of execute on its own (§6.3, landlock.c), against the running kernel:
 * a ruleset is built for a temporary root, a forked child restricts itself with it, and each
 * probe reports from inside the child what the domain allows and what it refuses. Every
 * refusal has its control arm: the same probe succeeds in a child without the domain. The
 * ABI-dependent rights are checked by pretending every older ABI; the error paths through
 * the API.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "backends/local/landlock.h"
#include "fault.h"
#include "support.h"
#include "warder/error.h"

/* The rights warder__landlock_read_access() grants: EXECUTE, READ_FILE, READ_DIR. */
#define READ_RIGHTS ((1ull << 0) | (1ull << 2) | (1ull << 3))

static char root[64];
static char readtree[64];
static char outside[64];
static int kernel_abi;

/* ---- the trees ---- */

static void full(char *buf, size_t n, const char *base, const char *rel)
{
        ck_assert_int_lt(snprintf(buf, n, "%s/%s", base, rel), (int)n);
}

static void put(const char *base, const char *rel, const char *text)
{
        char p[256];
        full(p, sizeof(p), base, rel);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        ck_assert_int_eq(fclose(f), 0);
}

static void dir(const char *base, const char *rel)
{
        char p[256];
        full(p, sizeof(p), base, rel);
        ck_assert_int_eq(mkdir(p, 0755), 0);
}

/* An executable program beneath `base`: a copy of /bin/true. */
static void program(const char *base, const char *rel)
{
        char p[256];
        full(p, sizeof(p), base, rel);
        int in = open("/bin/true", O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(in, 0);
        int out = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        ck_assert_int_ge(out, 0);
        char buf[8192];
        ssize_t n;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                ck_assert_int_eq(write(out, buf, (size_t)n), n);
        ck_assert_int_eq(n, 0);
        close(in);
        ck_assert_int_eq(close(out), 0);
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
        snprintf(root, sizeof(root), "/tmp/warder-ll-root-XXXXXX");
        snprintf(readtree, sizeof(readtree), "/tmp/warder-ll-read-XXXXXX");
        snprintf(outside, sizeof(outside), "/tmp/warder-ll-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(root));
        ck_assert_ptr_nonnull(mkdtemp(readtree));
        ck_assert_ptr_nonnull(mkdtemp(outside));
        put(root, "file", "root data\n");
        put(root, "trunc", "root data\n");
        dir(root, "a");
        dir(root, "b");
        put(root, "a/moved", "moved\n");
        put(readtree, "file", "read data\n");
        put(readtree, "trunc", "read data\n");
        dir(readtree, "sub");
        program(readtree, "prog");
        put(outside, "secret", "SECRET-OUTSIDE\n");
        warder__landlock_abi_override = -1;
        kernel_abi = warder__landlock_abi();
}

static void teardown(void)
{
        warder__landlock_abi_override = -1;
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        nftw(readtree, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        nftw(outside, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- probes: run in a child, 0 or the errno of the refused call ---- */

static int read_file(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno;
        char c;
        int rc = read(fd, &c, 1) < 0 ? errno : 0;
        close(fd);
        return rc;
}

static int list_dir(const char *path)
{
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno;
        char buf[1024];
        int rc = syscall(SYS_getdents64, fd, buf, sizeof(buf)) < 0 ? errno : 0;
        close(fd);
        return rc;
}

static int write_file(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
                return errno;
        int rc = write(fd, "x", 1) != 1 ? errno : 0;
        close(fd);
        return rc;
}

static int truncate_file(const char *path)
{
        return truncate(path, 0) != 0 ? errno : 0;
}

static int open_truncating(const char *path)
{
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                return errno;
        close(fd);
        return 0;
}

static int execute(const char *path)
{
        char *const argv[] = {(char *)path, NULL};
        char *const envp[] = {NULL};
        execve(path, argv, envp); /* /bin/true exits 0 */
        return errno;
}

/* Moves root/a/moved into root/b and back: reparenting, the REFER right (ABI 2). */
static int reparent(const char *base)
{
        char from[256], to[256];
        full(from, sizeof(from), base, "a/moved");
        full(to, sizeof(to), base, "b/moved");
        if (rename(from, to) != 0)
                return errno;
        return rename(to, from) != 0 ? errno : 0;
}

/* A device ioctl (ABI 5): the terminal query /dev/null does not know, ENOTTY when allowed. */
static int device_ioctl(const char *path)
{
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return errno;
        struct termios t;
        int rc = ioctl(fd, TCGETS, &t) != 0 ? errno : 0;
        close(fd);
        return rc == ENOTTY ? 0 : rc;
}

/* A signal to the test process, outside the domain (scoped from ABI 6). */
static int signal_parent(const char *unused)
{
        (void)unused;
        return kill(getppid(), 0) != 0 ? errno : 0;
}

static void abstract_address(struct sockaddr_un *a, socklen_t *len, const char *name)
{
        memset(a, 0, sizeof(*a));
        a->sun_family = AF_UNIX;
        size_t n = strlen(name);
        memcpy(a->sun_path + 1, name, n);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* Connects to the abstract socket `name` the test process listens on (scoped from ABI 6). */
static int connect_abstract(const char *name)
{
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
                return errno;
        struct sockaddr_un a;
        socklen_t len;
        abstract_address(&a, &len, name);
        int rc = connect(s, (struct sockaddr *)&a, len) != 0 ? errno : 0;
        close(s);
        return rc;
}

/* Restricted by `rfd` (-1: no domain, the control arm), runs fn(arg) in a child. */
static int probe(int rfd, int (*fn)(const char *), const char *arg)
{
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (rfd >= 0 && warder__landlock_restrict(rfd) != 0)
                        _exit(250);
                _exit(fn(arg));
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        ck_assert_int_ne(WEXITSTATUS(st), 250);
        return WEXITSTATUS(st);
}

/* The domain gives `want` (0 or an errno); without it the probe succeeds. */
#define EXPECT(rfd, fn, arg, want)                                                                 \
        do {                                                                                       \
                int got_ = probe((rfd), (fn), (arg));                                              \
                ck_assert_msg(got_ == (want), "%s %s: got %s, want %s", #fn, (arg),                \
                              strerror(got_), strerror(want));                                     \
                if ((want) != 0) {                                                                 \
                        got_ = probe(-1, (fn), (arg));                                             \
                        ck_assert_msg(got_ == 0, "control %s %s: %s", #fn, (arg), strerror(got_)); \
                }                                                                                  \
        } while (0)

static int build(const char *const *read, const char *const *write)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int fd = -1;
        int rc = warder__landlock_build(root, read, write, &fd, &err);
        ck_assert_msg(rc == 0, "build: %s", err.message);
        ck_assert_int_ge(fd, 0);
        warder_error_clear(&err);
        return fd;
}

/* ---- what the domain allows and refuses ---- */

/*
 * The root: read, list, write, truncate; a read tree: read, list, execute, but neither write
 * nor truncate; outside every tree: nothing; the devices: /dev/null read and write,
 * /dev/urandom read only. Pretending each ABI from 1 to the kernel's, the rights that ABI
 * does not know stay unhandled (so allowed), the ones it knows are enforced.
 */
START_TEST(the_domain_allows_the_trees_and_refuses_the_rest)
{
        char p[256], name[64];
        const char *read[] = {readtree, "/usr", "/lib", "/lib64", "/bin", NULL};
        snprintf(name, sizeof(name), "warder-ll-test-%d", (int)getpid());
        int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(ls, 0);
        struct sockaddr_un a;
        socklen_t alen;
        abstract_address(&a, &alen, name);
        ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, alen), 0);
        ck_assert_int_eq(listen(ls, 64), 0);
        if (kernel_abi < 6)
                fprintf(stderr,
                        "note: Landlock ABI %d scopes neither signals nor abstract "
                        "sockets: those parts are skipped\n",
                        kernel_abi);

        for (int abi = 1; abi <= kernel_abi; abi++) {
                warder__landlock_abi_override = abi;
                int rfd = build(read, NULL);
                warder__landlock_abi_override = -1;

                full(p, sizeof(p), root, "file");
                EXPECT(rfd, read_file, p, 0);
                EXPECT(rfd, write_file, p, 0);
                EXPECT(rfd, list_dir, root, 0);
                full(p, sizeof(p), root, "trunc");
                EXPECT(rfd, truncate_file, p, 0);
                EXPECT(rfd, open_truncating, p, 0);
                /* ABI 1 cannot grant reparenting: the kernel refuses it even in the root. */
                EXPECT(rfd, reparent, root, abi >= 2 ? 0 : EXDEV);

                full(p, sizeof(p), readtree, "file");
                EXPECT(rfd, read_file, p, 0);
                EXPECT(rfd, write_file, p, EACCES);
                full(p, sizeof(p), readtree, "sub");
                EXPECT(rfd, list_dir, p, 0);
                EXPECT(rfd, list_dir, readtree, 0);
                full(p, sizeof(p), readtree, "prog");
                EXPECT(rfd, execute, p, 0);
                /* Truncation is a right of its own from ABI 3; before, it is not governed. */
                full(p, sizeof(p), readtree, "trunc");
                EXPECT(rfd, truncate_file, p, abi >= 3 ? EACCES : 0);

                full(p, sizeof(p), outside, "secret");
                EXPECT(rfd, read_file, p, EACCES);
                EXPECT(rfd, write_file, p, EACCES);
                EXPECT(rfd, list_dir, outside, EACCES);
                full(p, sizeof(p), outside, "new");
                EXPECT(rfd, write_file, p, EACCES);
                ck_assert_int_eq(unlink(p), 0); /* made by the control arm */
                /* The trees a program in the root has no business with. */
                EXPECT(rfd, read_file, "/etc/passwd", EACCES);
                EXPECT(rfd, list_dir, "/etc", EACCES);

                EXPECT(rfd, read_file, "/dev/null", 0);
                EXPECT(rfd, write_file, "/dev/null", 0);
                EXPECT(rfd, open_truncating, "/dev/null", 0);
                EXPECT(rfd, read_file, "/dev/zero", 0);
                EXPECT(rfd, read_file, "/dev/urandom", 0);
                EXPECT(rfd, write_file, "/dev/urandom", EACCES);
                /* Device ioctls are governed from ABI 5 and granted on no device. */
                EXPECT(rfd, device_ioctl, "/dev/null", abi >= 5 ? EACCES : 0);

                /* From ABI 6 the domain is scoped: no signals out, no abstract sockets out. */
                EXPECT(rfd, signal_parent, "", abi >= 6 ? EPERM : 0);
                EXPECT(rfd, connect_abstract, name, abi >= 6 ? EPERM : 0);
                close(rfd);
        }
        close(ls);
}
END_TEST

/* The trees of `write` have every right, as the root. */
START_TEST(write_trees_have_every_right)
{
        char p[256];
        const char *read[] = {"/usr", NULL};
        const char *write[] = {outside, NULL};
        int rfd = build(read, write);
        full(p, sizeof(p), outside, "secret");
        EXPECT(rfd, read_file, p, 0);
        EXPECT(rfd, write_file, p, 0);
        EXPECT(rfd, truncate_file, p, 0);
        EXPECT(rfd, list_dir, outside, 0);
        EXPECT(rfd, reparent, root, 0);
        /* A read tree that is not declared is not readable. */
        full(p, sizeof(p), readtree, "file");
        EXPECT(rfd, read_file, p, EACCES);
        close(rfd);
}
END_TEST

/* Without a read list the system defaults apply: /etc/passwd, not the rest of /etc. */
START_TEST(the_default_read_list)
{
        int rfd = build(NULL, NULL);
        EXPECT(rfd, read_file, "/etc/passwd", 0);
        EXPECT(rfd, list_dir, "/usr", 0);
        EXPECT(rfd, execute, "/bin/true", 0);
        EXPECT(rfd, list_dir, "/etc", EACCES);
        EXPECT(rfd, read_file, "/dev/urandom", 0);
        close(rfd);
}
END_TEST

/*
 * A /dev/null that is a regular file (a container's bind mount): the shell's `: > /dev/null`
 * truncates it, and the domain lets it. Needs a mount namespace of its own.
 */
START_TEST(a_regular_dev_null_can_be_truncated)
{
        if (kernel_abi < 3) {
                fprintf(stderr, "note: Landlock ABI %d does not govern truncation: skipped\n",
                        kernel_abi);
                return;
        }
        char p[256];
        full(p, sizeof(p), outside, "null");
        put(outside, "null", "not empty\n");
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) != 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                    mount(p, "/dev/null", NULL, MS_BIND, NULL) != 0)
                        _exit(WARDER_TEST_SKIP);
                struct warder_error err = WARDER_ERROR_INIT;
                int rfd = -1;
                const char *read[] = {"/usr", NULL};
                if (warder__landlock_build(root, read, NULL, &rfd, &err) != 0)
                        _exit(200);
                if (warder__landlock_restrict(rfd) != 0)
                        _exit(201);
                if (truncate("/dev/null", 0) != 0)
                        _exit(errno);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        if (WEXITSTATUS(st) == WARDER_TEST_SKIP) {
                fprintf(stderr, "note: cannot bind-mount over /dev/null here: skipped\n");
                return;
        }
        ck_assert_msg(WEXITSTATUS(st) == 0, "truncate: %s", strerror(WEXITSTATUS(st)));
        struct stat sb;
        ck_assert_int_eq(stat(p, &sb), 0);
        ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

/* ---- the API's errors ---- */

static int build_err(const char *r, const char *const *read, const char *const *write,
                     struct warder_error *err)
{
        int fd = -1;
        warder_error_clear(err);
        int rc = warder__landlock_build(r, read, write, &fd, err);
        if (rc == 0) {
                ck_assert_int_ge(fd, 0);
                close(fd);
        } else {
                ck_assert_int_eq(fd, -1);
        }
        return rc;
}

START_TEST(invalid_arguments_are_refused)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int fd = -1;
        ck_assert_int_eq(warder__landlock_build(NULL, NULL, NULL, &fd, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "landlock: invalid argument");
        ck_assert_int_eq(build_err("tmp", NULL, NULL, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "landlock: invalid argument");
        warder_error_clear(&err);
        ck_assert_int_eq(warder__landlock_build(root, NULL, NULL, NULL, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "landlock: invalid argument");
        warder_error_clear(&err);
}
END_TEST

/* A relative tree is refused, wherever it is listed and whatever follows it. */
START_TEST(relative_trees_are_refused)
{
        struct warder_error err = WARDER_ERROR_INIT;
        const char *read[] = {"/usr", "usr", "/bin", NULL};
        ck_assert_int_eq(build_err(root, read, NULL, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "landlock: directories must be absolute: 'usr'");
        const char *write[] = {"tmp", NULL};
        ck_assert_int_eq(build_err(root, NULL, write, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "landlock: directories must be absolute: 'tmp'");
        /* Control: the same lists absolute. */
        const char *absolute[] = {"/usr", "/bin", NULL};
        ck_assert_int_eq(build_err(root, absolute, absolute, &err), 0);
        warder_error_clear(&err);
}
END_TEST

/* A tree that does not exist, or lies beneath a file, grants nothing and is skipped. */
START_TEST(missing_trees_are_skipped)
{
        struct warder_error err = WARDER_ERROR_INIT;
        char missing[256], beneath_file[256];
        full(missing, sizeof(missing), outside, "missing");
        full(beneath_file, sizeof(beneath_file), outside, "secret/sub");
        const char *read[] = {missing, beneath_file, readtree, NULL};
        int fd = -1;
        ck_assert_msg(warder__landlock_build(root, read, read, &fd, &err) == 0, "%s", err.message);
        /* The tree after them is still granted. */
        char p[256];
        full(p, sizeof(p), readtree, "file");
        EXPECT(fd, read_file, p, 0);
        close(fd);
        warder_error_clear(&err);
}
END_TEST

/* Any other reason a tree cannot be opened fails the build, naming the tree and the reason. */
START_TEST(trees_that_cannot_be_opened_fail)
{
        struct warder_error err = WARDER_ERROR_INIT;
        char loop[256], msg[600];
        full(loop, sizeof(loop), outside, "loop");
        ck_assert_int_eq(symlink("loop", loop), 0);
        const char *read[] = {loop, "/usr", NULL};
        ck_assert_int_eq(build_err(root, read, NULL, &err), WARDER_EIO);
        snprintf(msg, sizeof(msg), "landlock: cannot open '%s': %s", loop, strerror(ELOOP));
        ck_assert_str_eq(err.message, msg);
        ck_assert_int_eq(build_err(root, NULL, read, &err), WARDER_EIO);
        ck_assert_str_eq(err.message, msg);

        /* A tree the caller may not search: WARDER_EACCES (as an unprivileged user). */
        char locked[256], inner[256];
        full(locked, sizeof(locked), outside, "locked");
        full(inner, sizeof(inner), outside, "locked/inner");
        ck_assert_int_eq(mkdir(locked, 0700), 0);
        ck_assert_int_eq(mkdir(inner, 0755), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
                        _exit(WARDER_TEST_SKIP);
                if (access(inner, F_OK) == 0)
                        _exit(WARDER_TEST_SKIP);
                const char *r[] = {inner, NULL};
                struct warder_error e = WARDER_ERROR_INIT;
                int fd = -1;
                int rc = warder__landlock_build(outside, r, NULL, &fd, &e);
                char want[600];
                snprintf(want, sizeof(want), "landlock: cannot open '%s': %s", inner,
                         strerror(EACCES));
                _exit(rc == WARDER_EACCES && strcmp(e.message, want) == 0 ? 0 : 1);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        if (WEXITSTATUS(st) == WARDER_TEST_SKIP)
                fprintf(stderr, "note: cannot become a user the directory locks out: skipped\n");
        else
                ck_assert_int_eq(WEXITSTATUS(st), 0);
        warder_error_clear(&err);
}
END_TEST

/*
 * A socket (or a FIFO) may be a tree of its own: it is opened O_PATH, never for reading
 * (which a socket refuses and a FIFO would block on).
 */
START_TEST(special_files_are_opened_as_paths)
{
        char sock[256], fifo[256];
        full(sock, sizeof(sock), outside, "sock");
        full(fifo, sizeof(fifo), outside, "fifo");
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(s, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        ck_assert_uint_lt(strlen(sock), sizeof(a.sun_path));
        strcpy(a.sun_path, sock);
        ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
        ck_assert_int_eq(mkfifo(fifo, 0644), 0);
        const char *read[] = {sock, fifo, "/usr", NULL};
        struct warder_error err = WARDER_ERROR_INIT;
        alarm(10); /* a FIFO opened for reading would block here */
        ck_assert_msg(build_err(root, read, NULL, &err) == 0, "%s", err.message);
        alarm(0);
        close(s);
}
END_TEST

/* A file the kernel will not take a rule for (an nsfs inode) fails the build. */
START_TEST(a_rule_the_kernel_refuses_fails)
{
        struct warder_error err = WARDER_ERROR_INIT;
        const char *read[] = {"/proc/self/ns/mnt", "/usr", NULL};
        ck_assert_int_eq(build_err(root, read, NULL, &err), WARDER_EIO);
        const char *want = "landlock: cannot add a rule for '/proc/self/ns/mnt': ";
        ck_assert_msg(strncmp(err.message, want, strlen(want)) == 0, "%s", err.message);
        warder_error_clear(&err);
}
END_TEST

/* Without Landlock the build is refused, saying why. */
START_TEST(unavailable_landlock_is_refused)
{
        warder__landlock_abi_override = 0;
        ck_assert_int_eq(warder__landlock_abi(), 0);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(build_err(root, NULL, NULL, &err), WARDER_ENOTSUP);
        char want[256];
        snprintf(want, sizeof(want), "landlock is not available on this kernel (%s)",
                 strerror(ENOSYS));
        ck_assert_str_eq(err.message, want);
        ck_assert_uint_eq(warder__landlock_read_access(NULL, "/proc"), 0);
        warder__landlock_abi_override = -1;
        warder_error_clear(&err);
}
END_TEST

/* Out of descriptors, the ruleset cannot be created: refused, no descriptor returned. */
START_TEST(a_ruleset_that_cannot_be_created_fails)
{
        struct rlimit old;
        ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
        struct rlimit low = {64, old.rlim_max};
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
        int fds[64];
        int n = 0;
        while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
                n++;
        ck_assert_int_eq(errno, EMFILE);
        struct warder_error err = WARDER_ERROR_INIT;
        int fd = -1;
        int rc = warder__landlock_build(root, NULL, NULL, &fd, &err);
        char want[256];
        snprintf(want, sizeof(want), "landlock: cannot create a ruleset: %s", strerror(EMFILE));
        for (int i = 0; i < n; i++)
                close(fds[i]);
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
        ck_assert_int_eq(rc, WARDER_ENOTSUP);
        ck_assert_int_eq(fd, -1);
        ck_assert_str_eq(err.message, want);
        /* Control: with a descriptor free it is created. */
        ck_assert_int_eq(build_err(root, NULL, NULL, &err), 0);
        warder_error_clear(&err);
}
END_TEST

/* A ruleset on descriptor 0 (standard input closed) is a ruleset. */
START_TEST(a_ruleset_on_descriptor_zero)
{
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(0);
                struct warder_error err = WARDER_ERROR_INIT;
                int fd = -1;
                const char *read[] = {"/usr", NULL};
                if (warder__landlock_build(root, read, NULL, &fd, &err) != 0)
                        _exit(1);
                if (fd != 0)
                        _exit(2);
                if (warder__landlock_restrict(fd) != 0)
                        _exit(3);
                char p[256];
                snprintf(p, sizeof(p), "%s/file", root);
                if (read_file(p) != 0)
                        _exit(4);
                snprintf(p, sizeof(p), "%s/secret", outside);
                _exit(read_file(p) == EACCES ? 0 : 5);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

#if defined(__x86_64__)
#define LL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define LL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The child's restriction reports each failure: a bad ruleset, no_new_privs refused. */
START_TEST(restrict_and_add_fd_report_failures)
{
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (warder__landlock_restrict(-1) != EBADF)
                        _exit(1);
                if (warder__landlock_restrict(null) != EBADFD)
                        _exit(2);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        ck_assert_int_eq(WEXITSTATUS(st), 0);

        /* add_fd: a rule for a directory, or the kernel's errno. */
        int rfd = build(NULL, NULL);
        int dfd = open(outside, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(dfd, 0);
        ck_assert_int_eq(warder__landlock_add_fd(-1, dfd, READ_RIGHTS), EBADF);
        ck_assert_int_eq(warder__landlock_add_fd(rfd, -1, READ_RIGHTS), EBADF);
        ck_assert_int_eq(warder__landlock_add_fd(rfd, dfd, READ_RIGHTS), 0);
        char p[256];
        full(p, sizeof(p), outside, "secret");
        EXPECT(rfd, read_file, p, 0);
        close(dfd);
        close(rfd);

#ifdef LL_AUDIT_ARCH
        /* no_new_privs refused (a seccomp filter, as a container runtime may install). */
        rfd = build(NULL, NULL);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                struct sock_filter f[] = {
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LL_AUDIT_ARCH, 1, 0),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NO_NEW_PRIVS, 0, 1),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
                        _exit(WARDER_TEST_SKIP);
                if (warder__landlock_restrict(rfd) != EPERM)
                        _exit(1);
                /* Nothing was restricted. */
                _exit(read_file("/etc/passwd") == 0 ? 0 : 2);
        }
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        if (WEXITSTATUS(st) == WARDER_TEST_SKIP)
                fprintf(stderr, "note: cannot install a seccomp filter here: skipped\n");
        else
                ck_assert_int_eq(WEXITSTATUS(st), 0);
        close(rfd);
#endif
}
END_TEST

/* The rights granted again beneath a readable tree: the read rights, masked to the ABI. */
START_TEST(read_access_of_the_readable_trees)
{
        ck_assert_uint_eq(warder__landlock_read_access(NULL, "/proc"), READ_RIGHTS);
        ck_assert_uint_eq(warder__landlock_read_access(NULL, "/usr"), READ_RIGHTS);
        ck_assert_uint_eq(warder__landlock_read_access(NULL, "/proc/self"), 0);
        ck_assert_uint_eq(warder__landlock_read_access(NULL, "/tmp"), 0);
        const char *read[] = {"/usr", "/data", NULL};
        ck_assert_uint_eq(warder__landlock_read_access(read, "/data"), READ_RIGHTS);
        ck_assert_uint_eq(warder__landlock_read_access(read, "/proc"), 0);
        for (int abi = 1; abi <= 6; abi++) {
                warder__landlock_abi_override = abi;
                ck_assert_uint_eq(warder__landlock_read_access(read, "/usr"), READ_RIGHTS);
        }
        warder__landlock_abi_override = -1;
        /* Granted on a fresh directory, they let the domain read it. */
        int rfd = build(NULL, NULL);
        int dfd = open(outside, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(dfd, 0);
        const char *ol[] = {outside, NULL};
        ck_assert_int_eq(
            warder__landlock_add_fd(rfd, dfd, warder__landlock_read_access(ol, outside)), 0);
        char p[256];
        full(p, sizeof(p), outside, "secret");
        EXPECT(rfd, read_file, p, 0);
        EXPECT(rfd, list_dir, outside, 0);
        EXPECT(rfd, write_file, p, EACCES);
        close(dfd);
        close(rfd);
}
END_TEST

#ifdef WARDER__FAULT_INJECTION
/* A tree that cannot be examined (fstat fails) fails the build. */
START_TEST(a_tree_that_cannot_be_examined_fails)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int fd = -1;
        warder__fault_arm(1, false, WARDER__FAULT_KERNEL);
        int rc = warder__landlock_build(root, NULL, NULL, &fd, &err);
        bool fired = warder__fault_fired();
        warder__fault_off();
        ck_assert(fired);
        ck_assert_int_eq(rc, WARDER_EIO);
        ck_assert_int_eq(fd, -1);
        char want[256];
        snprintf(want, sizeof(want), "landlock: cannot stat '%s': %s", root, strerror(EIO));
        ck_assert_str_eq(err.message, want);
        warder_error_clear(&err);
}
END_TEST

/*
 * At every point of the build (a fork and exec in another thread could run there), every
 * descriptor the build holds is close-on-exec.
 */
START_TEST(every_descriptor_closes_on_exec)
{
        const char *read[] = {readtree, "/usr", NULL};
        const char *write[] = {outside, NULL};
        warder__fault_count(WARDER__FAULT_ALL);
        close(build(read, write));
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_gt(points, 0);
        struct warder_test_cloexec c = {.checks = 0};
        warder_test_fds_take(&c.before);
        for (unsigned long n = 1; n <= points; n++) {
                warder__fault_hook(n, WARDER__FAULT_ALL, warder_test_no_new_inheritable, &c);
                close(build(read, write));
                warder__fault_off();
        }
        ck_assert_uint_eq(c.checks, points);
        warder_test_cloexec_control(&c.before); /* control: a leak is seen */
}
END_TEST
static void close_zero(void *ud)
{
        (void)ud;
        close(0);
}

/*
 * Descriptor 0 comes free at each point of the build in turn (another thread closed its
 * standard input): the tree opened on 0 next is a tree like any other, granted and closed.
 */
START_TEST(descriptor_zero_at_every_point)
{
        const char *read[] = {readtree, "/usr", "/lib", "/lib64", "/bin", NULL};
        const char *write[] = {outside, NULL};
        warder__fault_count(WARDER__FAULT_ALL);
        close(build(read, write));
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_gt(points, 2);
        char file[256], secret[256];
        full(file, sizeof(file), readtree, "file");
        full(secret, sizeof(secret), outside, "secret");
        close(0);
        for (unsigned long n = 1; n <= points; n++) {
                int null = open("/dev/null", O_RDONLY); /* on 0, which the last build freed */
                ck_assert_int_eq(null, 0);
                warder__fault_hook(n, WARDER__FAULT_ALL, close_zero, NULL);
                int rfd = build(read, write);
                warder__fault_off();
                ck_assert_msg(fcntl(0, F_GETFD) == -1, "descriptor 0 free at point %lu: left open",
                              n);
                EXPECT(rfd, read_file, file, 0);
                EXPECT(rfd, write_file, secret, 0);
                EXPECT(rfd, read_file, "/etc/passwd", EACCES);
                close(rfd);
        }
}
END_TEST
#endif

int main(void)
{
        if (warder__landlock_abi() <= 0) {
                fprintf(stderr, "SKIP: Landlock is not available on this kernel\n");
                return WARDER_TEST_SKIP;
        }
        Suite *s = suite_create("landlock");
        TCase *tc = tcase_create("landlock");
        tcase_set_timeout(tc, 120);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, the_domain_allows_the_trees_and_refuses_the_rest);
        tcase_add_test(tc, write_trees_have_every_right);
        tcase_add_test(tc, the_default_read_list);
        tcase_add_test(tc, a_regular_dev_null_can_be_truncated);
        tcase_add_test(tc, invalid_arguments_are_refused);
        tcase_add_test(tc, relative_trees_are_refused);
        tcase_add_test(tc, missing_trees_are_skipped);
        tcase_add_test(tc, trees_that_cannot_be_opened_fail);
        tcase_add_test(tc, special_files_are_opened_as_paths);
        tcase_add_test(tc, a_rule_the_kernel_refuses_fails);
        tcase_add_test(tc, unavailable_landlock_is_refused);
        tcase_add_test(tc, a_ruleset_that_cannot_be_created_fails);
        tcase_add_test(tc, a_ruleset_on_descriptor_zero);
        tcase_add_test(tc, restrict_and_add_fd_report_failures);
        tcase_add_test(tc, read_access_of_the_readable_trees);
#ifdef WARDER__FAULT_INJECTION
        tcase_add_test(tc, a_tree_that_cannot_be_examined_fails);
        tcase_add_test(tc, every_descriptor_closes_on_exec);
        tcase_add_test(tc, descriptor_zero_at_every_point);
#endif
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
