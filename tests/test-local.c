/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2, §3.2) against the real kernel. Every test that opens files runs
 * twice: with openat2 and with the forced component-by-component fallback.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "backends/local/confine.h"
#include "backends/local/exec.h"
#include "backends/local/local-internal.h"
#include "cifold.h"
#include "contract.h"
#include "fault.h"
#include "support.h"
#include "warder/backend.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/memory.h"
#include "warder/path.h"
#include "warder/ruleset.h"
#include "warder/sys/backend.h"

static char root[256];
static char outside[256];

static void rm_rf(const char *dir)
{
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
}

/* Path under the root (rel "" is the root itself). */
static const char *P(const char *rel)
{
        static char buf[8][PATH_MAX];
        static int n;
        char *b = buf[n++ % 8];
        snprintf(b, PATH_MAX, "%s%s%s", root, rel[0] ? "/" : "", rel);
        return b;
}

static void put(const char *rel, const char *content)
{
        FILE *f = fopen(P(rel), "w");
        ck_assert_msg(f != NULL, "cannot create %s", rel);
        fputs(content, f);
        fclose(f);
}

static void dir(const char *rel)
{
        ck_assert_int_eq(mkdir(P(rel), 0755), 0);
}

static void link_(const char *target, const char *rel)
{
        ck_assert_int_eq(symlink(target, P(rel)), 0);
}

static void setup(void)
{
        strcpy(root, "/tmp/warder-local-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(root));
        chmod(root, 0755);
        strcpy(outside, "/tmp/warder-outside-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(outside));
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/secret", outside);
        FILE *f = fopen(p, "w");
        fputs("OUTSIDE-SECRET\n", f);
        fclose(f);
        put("a.txt", "hello\nworld\n");
        dir("src");
        put("src/main.c", "int main(void)\n{\n\treturn 0;\n}\n");
        put("src/util.c", "/* util */\nint util;\n");
        dir("src/deep");
        put("src/deep/x.c", "int x; /* main */\n");
}

static void teardown(void)
{
        rm_rf(root);
        rm_rf(outside);
}

/* Waits for a child of the test: true when it passed, false when it skipped (exit 77, having
 * said why); any other end fails the test. */
static bool child_passed(pid_t pid)
{
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
                return false;
        ck_assert_int_eq(WEXITSTATUS(status), 0);
        return true;
}

static warder_backend *backend(int fallback, bool follow)
{
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = fallback;
        o.follow_symlinks = follow;
        warder_backend *b = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_local_new(&b, root, &o, &e);
        ck_assert_msg(rc == 0, "warder_local_new: %s", e.message);
        return b;
}

static warder_backend *backend_opts(int fallback, struct warder_local_options *o)
{
        o->force_fallback = fallback;
        warder_backend *b = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_local_new(&b, root, o, &e);
        ck_assert_msg(rc == 0, "warder_local_new: %s", e.message);
        return b;
}

static int rd(warder_backend *b, const char *path, unsigned flags, struct warder_bytes *out)
{
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_backend_read(out, b, path, strlen(path), 0, 0, flags, &e);
        if (rc)
                ck_assert_int_eq(e.code, rc);
        return rc;
}

static int wr(warder_backend *b, const char *path, const char *data, unsigned flags)
{
        return warder_backend_write(b, path, strlen(path), data, strlen(data), flags, NULL);
}

static char *slurp(const char *path)
{
        static char buf[4096];
        int fd = open(path, O_RDONLY | O_NOFOLLOW);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

/* §6.2: constructor */
START_TEST(test_new_errors)
{
        warder_backend *b = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_local_new(&b, "relative", NULL, &e), WARDER_EINVAL);
        ck_assert_int_eq(warder_local_new(&b, "/nonexistent/warder/root", NULL, &e), WARDER_ENOENT);
        ck_assert_int_eq(warder_local_new(&b, P("a.txt"), NULL, &e), WARDER_ENOTDIR);
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.version = 99;
        ck_assert_int_eq(warder_local_new(&b, root, &o, &e), WARDER_EINVAL);
        ck_assert_ptr_null(b);
        ck_assert_int_eq(warder_local_new(&b, NULL, NULL, &e), WARDER_EINVAL);
        ck_assert_ptr_null(b);
        ck_assert_int_eq(warder_local_new(NULL, root, NULL, &e), WARDER_EINVAL);
        /* options of version 2 are read as far as version 2 goes */
        struct warder_local_options o2 = WARDER_LOCAL_OPTIONS_INIT;
        o2.version = 2;
        o2.follow_symlinks = !o2.follow_symlinks;
        link_("a.txt", "l2");
        ck_assert_int_eq(warder_local_new(&b, root, &o2, &e), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("l2"), 0, &out), o2.follow_symlinks ? 0 : WARDER_ESYMLINK);
        warder_bytes_free(&out);
        warder_backend_free(b);
        b = NULL;
        b = backend(0, true);
        ck_assert(warder__local_is(b));
        ck_assert(!warder_backend_can_execute(b));
        warder_backend_free(b);
        warder_backend_free(NULL);
}
END_TEST

/* Options with pointers are copied (string arrays): the host may drop its own right after
 * construction. The ASan build catches a missing copy. Options of an older version (1, when
 * the backend still held a mask ruleset) are refused, not misread. */
START_TEST(test_options_copied)
{
        char env0[] = "PATH=/usr/bin";
        const char *env[] = {env0, NULL};
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.exec_env = env;
        o.landlock_write = env;
        o.mask_denied = true;
        warder_backend *b = NULL;
        o.version = 1;
        ck_assert_int_eq(warder_local_new(&b, root, &o, NULL), WARDER_EINVAL);
        o.version = WARDER_LOCAL_OPTIONS_VERSION;
        ck_assert_int_eq(warder_local_new(&b, root, &o, NULL), 0);
        memset(env0, 'X', sizeof(env0) - 1);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), 0);
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/* The fallback is really taken when forced, and openat2 otherwise (on this kernel). */
START_TEST(test_mode_selected)
{
        warder_backend *b = backend(_i, true);
        if (_i)
                ck_assert(!warder__local_uses_openat2(b));
        else if (!warder__local_uses_openat2(b))
                fprintf(stderr, "note: openat2 unavailable; both runs use the fallback\n");
        warder_backend_free(b);
}
END_TEST

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Where openat2 answers ENOSYS (a seccomp filter here, as in some container runtimes), the
 * backend notices on its own and walks with O_NOFOLLOW instead. */
START_TEST(test_enosys_detected)
{
#ifdef NATIVE_AUDIT_ARCH
        link_("a.txt", "link");
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                struct sock_filter f[] = {
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
                        _exit(77);
                if (syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) != -1 || errno != ENOSYS)
                        _exit(10);
                warder_backend *b = NULL;
                if (warder_local_new(&b, root, NULL, NULL) != 0)
                        _exit(11);
                if (warder__local_uses_openat2(b))
                        _exit(12);
                struct warder_bytes out = WARDER_BYTES_INIT;
                if (rd(b, P("link"), 0, &out) != 0 || strcmp(out.data, "hello\nworld\n") != 0)
                        _exit(13);
                warder_bytes_free(&out);
                if (rd(b, P("link"), WARDER_NOFOLLOW, &out) != WARDER_ESYMLINK)
                        _exit(14);
                warder_backend_free(b);
                _exit(0);
        }
        if (!child_passed(pid))
                fprintf(stderr, "note: cannot install a seccomp filter here\n");
#endif
}
END_TEST

/* §6.2 read: contents, offset/limit, truncated */
START_TEST(test_read_basic)
{
        warder_backend *b = backend(_i, true);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), 0);
        ck_assert_str_eq(out.data, "hello\nworld\n");
        ck_assert_uint_eq(out.len, 12);
        ck_assert(!out.truncated);
        warder_bytes_free(&out);
        ck_assert_int_eq(
            warder_backend_read(&out, b, P("a.txt"), strlen(P("a.txt")), 6, 3, 0, NULL), 0);
        ck_assert_str_eq(out.data, "wor");
        ck_assert(out.truncated);
        warder_bytes_free(&out);
        ck_assert_int_eq(
            warder_backend_read(&out, b, P("a.txt"), strlen(P("a.txt")), 100, 0, 0, NULL), 0);
        ck_assert_uint_eq(out.len, 0);
        warder_bytes_free(&out);
        /* A non-normalised path inside the root. */
        ck_assert_int_eq(rd(b, P("src/../a.txt"), 0, &out), 0);
        ck_assert_str_eq(out.data, "hello\nworld\n");
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/* §6.2 distinct errors */
START_TEST(test_read_errors)
{
        warder_backend *b = backend(_i, true);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("missing"), 0, &out), WARDER_ENOENT);
        ck_assert_int_eq(rd(b, P("missing/x"), 0, &out), WARDER_ENOENT);
        ck_assert_int_eq(rd(b, P("src"), 0, &out), WARDER_EISDIR);
        ck_assert_int_eq(rd(b, P("a.txt/x"), 0, &out), WARDER_ENOTDIR);
        ck_assert_int_eq(rd(b, "/etc/passwd", 0, &out), WARDER_EOUTSIDE);
        ck_assert_int_eq(rd(b, P("../etc/passwd"), 0, &out), WARDER_EOUTSIDE);
        ck_assert_int_eq(rd(b, "relative", 0, &out), WARDER_EINVAL);
        /* FIFO: answers at once with ENOTREG (a blocking open would hang the test). */
        ck_assert_int_eq(mkfifo(P("fifo"), 0644), 0);
        alarm(10);
        ck_assert_int_eq(rd(b, P("fifo"), 0, &out), WARDER_ENOTREG);
        /* nor is a FIFO opened on the way to a name under it (an open to read would hang) */
        ck_assert_int_eq(rd(b, P("fifo/x"), 0, &out), WARDER_ENOTDIR);
        alarm(0);
        ck_assert_ptr_null(out.data);
        /* a UNIX socket: open(2) refuses it (ENXIO), ENOTREG */
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        ck_assert_int_ge(s, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        ck_assert_uint_lt(strlen(P("sock")), sizeof(sa.sun_path));
        strcpy(sa.sun_path, P("sock"));
        ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
        ck_assert_int_eq(rd(b, P("sock"), 0, &out), WARDER_ENOTREG);
        ck_assert_ptr_null(out.data);
        /* the same with a regular file on descriptor 0: a refusal is never taken for it */
        int saved = dup(0), zf = open(P("a.txt"), O_RDONLY);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_ge(zf, 0);
        ck_assert_int_eq(dup2(zf, 0), 0);
        close(zf);
        char c0[6] = ""; /* control: what descriptor 0 would give */
        ck_assert_int_eq(pread(0, c0, 5, 0), 5);
        ck_assert_str_eq(c0, "hello");
        ck_assert_int_eq(rd(b, P("sock"), 0, &out), WARDER_ENOTREG);
        ck_assert_ptr_null(out.data);
        ck_assert_int_eq(rd(b, P("../etc/passwd"), 0, &out), WARDER_EOUTSIDE);
        ck_assert_ptr_null(out.data);
        ck_assert_int_eq(dup2(saved, 0), 0);
        close(saved);
        close(s);
        warder_backend_free(b);
}
END_TEST

/* A path in a message is made safe for one line: a control byte becomes '?' (a blank stays),
 * and past 250 bytes the path is cut and ends in "...". */
START_TEST(test_message_paths)
{
        warder_backend *b = backend(_i, true);
        struct warder_bytes out = WARDER_BYTES_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        char rel[320], want[320];
        memset(rel, 'a', 200);
        rel[200] = '/';
        memset(rel + 201, 'b', 100);
        rel[301] = '\0';
        const char *abs = P(rel);
        ck_assert_uint_gt(strlen(abs), 251);
        ck_assert_int_eq(warder_backend_read(&out, b, abs, strlen(abs), 0, 0, 0, &e),
                         WARDER_ENOENT);
        snprintf(want, sizeof(want), "'%.250s...'", abs);
        ck_assert_msg(strstr(e.message, want), "%s", e.message);
        warder_error_clear(&e);
        abs = P("x y\001z");
        ck_assert_int_eq(warder_backend_read(&out, b, abs, strlen(abs), 0, 0, 0, &e),
                         WARDER_ENOENT);
        snprintf(want, sizeof(want), "'%s/x y?z'", root);
        ck_assert_msg(strstr(e.message, want), "%s", e.message);
        warder_error_clear(&e);
        warder_backend_free(b);
}
END_TEST

#ifdef WARDER__FAULT_INJECTION
/* The local backend's operations through a symlinked directory, creating parents. */
static void local_ops(warder_backend *b, unsigned flags)
{
        char *real = NULL;
        if (warder_backend_realpath(&real, b, P("lnk/main.c"), strlen(P("lnk/main.c")), NULL) == 0)
                free(real);
        struct warder_bytes out = WARDER_BYTES_INIT;
        if (warder_backend_read(&out, b, P("lnk/main.c"), strlen(P("lnk/main.c")), 0, 0, flags,
                                NULL) == 0)
                warder_bytes_free(&out);
        (void)warder_backend_write(b, P("made/sub/new.txt"), strlen(P("made/sub/new.txt")), "x\n",
                                   2, flags, NULL);
        size_t count = 0;
        (void)warder_backend_edit(&count, b, P("a.txt"), strlen(P("a.txt")), "hello", 5, "hello", 5,
                                  flags, NULL);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        if (warder_backend_ls(&e, b, P("lnk"), strlen(P("lnk")), flags, NULL) == 0)
                warder_entries_free(&e);
}

/* A multi-threaded host may start a command in another thread while the backend works: at
 * each failure point of a realpath and a read through a symlinked directory, a write that
 * creates parents, an edit and an ls, in both modes of resolution, every descriptor the
 * backend holds is already close-on-exec. */
START_TEST(test_descriptors_close_on_exec)
{
        link_("src", "lnk");
        warder_backend *b = backend(_i, true);
        struct warder_test_cloexec c = {.checks = 0};
        local_ops(b, 0); /* once first: what the backend probes once is behind it */
        warder_test_fds_take(&c.before);
        rm_rf(P("made"));
        warder__fault_count(WARDER__FAULT_ALL);
        local_ops(b, 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_gt(points, 10);
        for (unsigned long n = 1; n <= points; n++) {
                rm_rf(P("made"));
                warder__fault_hook(n, WARDER__FAULT_ALL, warder_test_no_new_inheritable, &c);
                local_ops(b, 0);
                warder__fault_off();
        }
        ck_assert_uint_eq(c.checks, points);
        warder_test_cloexec_control(&c.before); /* control: a leak is seen */
        warder_backend_free(b);
}
END_TEST
#endif

/* A file system mounted inside the root is still inside it: a read, a realpath and a write
 * across the mount point work in both modes of resolution (only the real-form shortcut stays
 * on the root's own file system). A write it has no room for fails and changes nothing. Run in
 * a mount namespace of its own. */
START_TEST(test_mount_inside_root)
{
        dir("mnt");
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) != 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                    mount("tmpfs", P("mnt"), "tmpfs", 0, "size=1m") != 0) {
                        fprintf(stderr, "skip: cannot mount here (%s)\n", strerror(errno));
                        _exit(77);
                }
                put("mnt/f.txt", "on the mount\n");
                dir("ro");
                if (mount("tmpfs", P("ro"), "tmpfs", MS_RDONLY, "size=1m") != 0)
                        _exit(9);
                struct stat a, m;
                if (stat(root, &a) != 0 || stat(P("mnt"), &m) != 0 || a.st_dev == m.st_dev)
                        _exit(2); /* control: mnt is another file system */
                for (int fallback = 0; fallback < 2; fallback++) {
                        warder_backend *b = backend(fallback, true);
                        struct warder_bytes out = WARDER_BYTES_INIT;
                        const char *f = P("mnt/f.txt");
                        if (warder_backend_read(&out, b, f, strlen(f), 0, 0, 0, NULL) != 0 ||
                            strcmp(out.data, "on the mount\n") != 0)
                                _exit(3);
                        warder_bytes_free(&out);
                        char *real = NULL;
                        if (warder_backend_realpath(&real, b, f, strlen(f), NULL) != 0 ||
                            strcmp(real, f) != 0)
                                _exit(4);
                        free(real);
                        const char *g = P("mnt/sub/g.txt");
                        if (warder_backend_write(b, g, strlen(g), "g\n", 2, 0, NULL) != 0)
                                _exit(5);
                        /* a write the file system has no room for fails, and leaves the old
                         * file and no temporary file behind */
                        static char big[2 << 20];
                        memset(big, 'x', sizeof(big));
                        if (warder_backend_write(b, f, strlen(f), big, sizeof(big), 0, NULL) == 0)
                                _exit(6);
                        if (strcmp(slurp(f), "on the mount\n") != 0)
                                _exit(7);
                        /* a directory the write would create on a read-only file system:
                         * refused as such (EROFS is WARDER_EACCES), not as a missing parent */
                        const char *r = P("ro/new/x.txt");
                        if (warder_backend_write(b, r, strlen(r), "x\n", 2, 0, NULL) !=
                            WARDER_EACCES)
                                _exit(10);
                        DIR *d = opendir(P("mnt"));
                        for (struct dirent *de; d && (de = readdir(d));)
                                if (strstr(de->d_name, ".warder"))
                                        _exit(8);
                        if (d)
                                closedir(d);
                        warder_backend_free(b);
                }
                _exit(0);
        }
        (void)child_passed(pid);
}
END_TEST

/* §3.2 on a case-insensitive directory whose readdir reports other inode numbers than stat
 * (tests/cifold-fs.c with WARDER_CIFOLD_SKEW_INO): the stored spelling is still found, by
 * stat'ing the entries, in both modes of resolution; a name without an ASCII letter is its own
 * spelling, and a read that follows nothing refuses a spelling that is not stored. */
START_TEST(test_case_folding_by_stat)
{
        char back[300], mnt[300];
        snprintf(back, sizeof(back), "%s/back", outside);
        snprintf(mnt, sizeof(mnt), "%s/mnt", root);
        ck_assert_int_eq(mkdir(back, 0755), 0);
        dir("mnt");
        char p[340];
        static const char *const files[] = {".env", "2024", "Src", "Src/Main.c"};
        for (size_t i = 0; i < 4; i++) {
                snprintf(p, sizeof(p), "%s/%s", back, files[i]);
                if (i == 2) {
                        ck_assert_int_eq(mkdir(p, 0755), 0);
                        continue;
                }
                FILE *f = fopen(p, "w");
                ck_assert_ptr_nonnull(f);
                fputs("data\n", f);
                fclose(f);
        }
        char longname[NAME_MAX + 1];
        memset(longname, 'n', NAME_MAX);
        longname[NAME_MAX] = '\0';
        char lp[300 + NAME_MAX + 2];
        snprintf(lp, sizeof(lp), "%s/%s", back, longname);
        FILE *lf = fopen(lp, "w");
        ck_assert_ptr_nonnull(lf);
        fputs("data\n", lf);
        fclose(lf);
        setenv("WARDER_CIFOLD_SKEW_INO", "1", 1);
        struct cifold fs;
        bool up = cifold_mount(&fs, back, mnt);
        unsetenv("WARDER_CIFOLD_SKEW_INO");
        if (!up)
                return;
        /* Control arm: the directory folds, and readdir's inode numbers are not stat's. */
        struct stat st;
        ck_assert_int_eq(stat(P("mnt/.ENV"), &st), 0);
        DIR *d = opendir(mnt);
        ck_assert_ptr_nonnull(d);
        bool skewed = false;
        for (struct dirent *de; (de = readdir(d));)
                skewed |= strcmp(de->d_name, ".env") == 0 && de->d_ino != st.st_ino;
        closedir(d);
        ck_assert(skewed);
        static const char *const cases[][2] = {
            {"mnt/.ENV", "mnt/.env"},
            {"mnt/.env", "mnt/.env"},
            {"mnt/SRC/main.C", "mnt/Src/Main.c"},
            {"mnt/2024", "mnt/2024"},
            {"mnt/src/New.txt", "mnt/Src/New.txt"},
        };
        for (int fallback = 0; fallback < 2; fallback++) {
                warder_backend *b = backend(fallback, true);
                for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                        char *real = NULL;
                        const char *in = P(cases[i][0]);
                        struct warder_error e = WARDER_ERROR_INIT;
                        ck_assert_msg(warder_backend_realpath(&real, b, in, strlen(in), &e) == 0,
                                      "%s: %s", cases[i][0], e.message);
                        ck_assert_str_eq(real, P(cases[i][1]));
                        warder_free(real);
                }
                struct warder_bytes out = WARDER_BYTES_INIT;
                const char *in = P("mnt/.ENV");
                ck_assert_int_eq(
                    warder_backend_read(&out, b, in, strlen(in), 0, 0, WARDER_NOFOLLOW, NULL),
                    WARDER_ESYMLINK);
                in = P("mnt/.env");
                ck_assert_int_eq(
                    warder_backend_read(&out, b, in, strlen(in), 0, 0, WARDER_NOFOLLOW, NULL), 0);
                ck_assert_str_eq(out.data, "data\n");
                warder_bytes_free(&out);
                /* a name of NAME_MAX bytes, spelled as stored */
                char longrel[NAME_MAX + 8];
                snprintf(longrel, sizeof(longrel), "mnt/%s", longname);
                in = P(longrel);
                ck_assert_int_eq(
                    warder_backend_read(&out, b, in, strlen(in), 0, 0, WARDER_NOFOLLOW, NULL), 0);
                ck_assert_str_eq(out.data, "data\n");
                warder_bytes_free(&out);
                warder_backend_free(b);
        }
        cifold_unmount(&fs);
}
END_TEST

/* The local backend's internal entry points refuse any other backend (and none). */
START_TEST(test_not_a_local_backend)
{
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        int fd = -1;
        ck_assert_int_eq(warder__local_open_raw(mem, "a.txt", O_RDONLY), -EINVAL);
        ck_assert_int_eq(warder__local_open_raw(NULL, "a.txt", O_RDONLY), -EINVAL);
        ck_assert_int_eq(warder__local_open_dir(mem, P("src"), &fd, NULL), WARDER_EINVAL);
        ck_assert_int_eq(fd, -1);
        warder_backend_free(mem);
        /* control: the local backend, with and without exec, is one */
        for (int exec = 0; exec < 2; exec++) {
                struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
                o.exec = exec;
                warder_backend *b = backend_opts(0, &o);
                fd = warder__local_open_raw(b, "a.txt", O_RDONLY);
                ck_assert_int_ge(fd, 0);
                close(fd);
                ck_assert_int_eq(warder__local_open_dir(b, P("src"), &fd, NULL), 0);
                ck_assert_int_ge(fd, 0);
                close(fd);
                /* a path that is NULL or not absolute is refused */
                ck_assert_int_eq(warder__local_open_dir(b, NULL, &fd, NULL), WARDER_EINVAL);
                ck_assert_int_eq(warder__local_open_dir(b, "src", &fd, NULL), WARDER_EINVAL);
                /* a file is no directory; descriptor 0, when free, is a directory's like any */
                ck_assert_int_eq(warder__local_open_dir(b, P("a.txt"), &fd, NULL), WARDER_ENOTDIR);
                int saved = dup(0);
                ck_assert_int_ge(saved, 0);
                close(0);
                fd = -1;
                ck_assert_int_eq(warder__local_open_dir(b, P("src"), &fd, NULL), 0);
                ck_assert_int_eq(fd, 0);
                struct stat st;
                ck_assert_int_eq(fstat(0, &st), 0);
                ck_assert(S_ISDIR(st.st_mode));
                ck_assert_int_eq(dup2(saved, 0), 0);
                close(saved);
                warder_backend_free(b);
        }
}
END_TEST

/* §3.2: an absolute link target is inside the root when it starts with the root's components,
 * however spelled (`/./`, `//`); the root's parent, and a sibling whose name extends the
 * root's, are outside. */
START_TEST(test_absolute_links_near_the_root)
{
        const char *slash = strrchr(root, '/');
        ck_assert_ptr_nonnull(slash);
        char target[PATH_MAX + 32], sib[PATH_MAX];
        snprintf(target, sizeof(target), "%.*s/./%s/a.txt", (int)(slash - root), root, slash + 1);
        link_(target, "dotted");
        snprintf(target, sizeof(target), "%.*s//%s//a.txt", (int)(slash - root), root, slash + 1);
        link_(target, "doubled");
        snprintf(target, sizeof(target), "%.*s", (int)(slash - root), root);
        link_(target, "parent");
        snprintf(sib, sizeof(sib), "%s-sib", root);
        ck_assert_int_eq(mkdir(sib, 0755), 0);
        snprintf(target, sizeof(target), "%s/a.txt", sib);
        FILE *f = fopen(target, "w");
        ck_assert_ptr_nonnull(f);
        fputs("SIBLING\n", f);
        fclose(f);
        link_(target, "sibling");
        /* control: the kernel follows each of them */
        static const char *const followed[][2] = {{"dotted", "hello\n"}, {"sibling", "SIBLING\n"}};
        for (size_t i = 0; i < 2; i++) {
                char line[32] = "";
                f = fopen(P(followed[i][0]), "r");
                ck_assert_ptr_nonnull(f);
                ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
                fclose(f);
                ck_assert_str_eq(line, followed[i][1]);
        }
        warder_backend *b = backend(_i, true);
        static const char *const inside[] = {"dotted", "doubled"};
        for (size_t i = 0; i < 2; i++) {
                char *real = NULL;
                const char *in = P(inside[i]);
                ck_assert_int_eq(warder_backend_realpath(&real, b, in, strlen(in), NULL), 0);
                ck_assert_str_eq(real, P("a.txt"));
                warder_free(real);
        }
        static const char *const outside_of[] = {"parent", "sibling"};
        for (size_t i = 0; i < 2; i++) {
                char *real = NULL;
                const char *in = P(outside_of[i]);
                ck_assert_int_eq(warder_backend_realpath(&real, b, in, strlen(in), NULL),
                                 WARDER_EOUTSIDE);
                struct warder_bytes out = WARDER_BYTES_INIT;
                char in2[PATH_MAX];
                snprintf(in2, sizeof(in2), "%s/a.txt", in);
                ck_assert_int_ne(
                    warder_backend_read(&out, b, i ? in : in2, strlen(i ? in : in2), 0, 0, 0, NULL),
                    0);
                ck_assert_ptr_null(out.data);
        }
        warder_backend_free(b);
        rm_rf(sib);
}
END_TEST

/* §3.2 at its bounds: a chain of 40 symbolic links resolves and 41 are WARDER_ESYMLINK, as
 * the kernel follows 40 and refuses 41 (the control); a name of NAME_MAX bytes resolves through
 * a symlinked directory. */
START_TEST(test_resolution_bounds)
{
        char name[16], prev[16];
        snprintf(prev, sizeof(prev), "a.txt");
        for (int k = 1; k <= 41; k++) {
                snprintf(name, sizeof(name), "c%d", k);
                link_(prev, name);
                snprintf(prev, sizeof(prev), "%s", name);
        }
        int fd = open(P("c40"), O_RDONLY);
        ck_assert_int_ge(fd, 0); /* control: the kernel follows 40 */
        close(fd);
        ck_assert_int_lt(open(P("c41"), O_RDONLY), 0);
        ck_assert_int_eq(errno, ELOOP);
        char longname[NAME_MAX + 1];
        memset(longname, 'n', NAME_MAX);
        longname[NAME_MAX] = '\0';
        char rel[NAME_MAX + 16];
        snprintf(rel, sizeof(rel), "src/%s", longname);
        put(rel, "long\n");
        link_("src", "lnk");
        warder_backend *b = backend(_i, true);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, b, P("c40"), strlen(P("c40")), NULL), 0);
        ck_assert_str_eq(real, P("a.txt"));
        warder_free(real);
        ck_assert_int_eq(warder_backend_realpath(&real, b, P("c41"), strlen(P("c41")), NULL),
                         WARDER_ESYMLINK);
        snprintf(rel, sizeof(rel), "lnk/%s", longname);
        char want[NAME_MAX + 16];
        snprintf(want, sizeof(want), "src/%s", longname);
        ck_assert_int_eq(warder_backend_realpath(&real, b, P(rel), strlen(P(rel)), NULL), 0);
        ck_assert_str_eq(real, P(want));
        warder_free(real);
        warder_backend_free(b);
}
END_TEST

/* §6.2 byte cap → ETOOBIG (a limit under the cap is fine) */
START_TEST(test_read_cap)
{
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.max_read = 8;
        warder_backend *b = backend_opts(_i, &o);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), WARDER_ETOOBIG);
        ck_assert_int_eq(
            warder_backend_read(&out, b, P("a.txt"), strlen(P("a.txt")), 0, 5, 0, NULL), 0);
        ck_assert_str_eq(out.data, "hello");
        warder_bytes_free(&out);
        put("small", "12345678");
        ck_assert_int_eq(rd(b, P("small"), 0, &out), 0);
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/* §6.2 symlinks: followed inside the root, refused when disabled or for real forms. */
START_TEST(test_read_symlinks)
{
        link_("a.txt", "rel-link");
        link_("src", "src-link");
        link_("../a.txt", "src/up-link");
        char abs[PATH_MAX];
        snprintf(abs, sizeof(abs), "%s/a.txt", root);
        link_(abs, "abs-link");
        char out_target[PATH_MAX];
        snprintf(out_target, sizeof(out_target), "%s/secret", outside);
        link_(out_target, "out-link");
        link_("../../../../../../../../../..", "dotdot-link");
        link_("loop-b", "loop-a");
        link_("loop-a", "loop-b");

        warder_backend *b = backend(_i, true);
        struct warder_bytes out = WARDER_BYTES_INIT;
        const char *ok[] = {"rel-link", "src/up-link", "abs-link", "src-link/../a.txt"};
        for (size_t k = 0; k < 4; k++) {
                ck_assert_msg(rd(b, P(ok[k]), 0, &out) == 0, "%s", ok[k]);
                ck_assert_str_eq(out.data, "hello\nworld\n");
                warder_bytes_free(&out);
        }
        ck_assert_int_eq(rd(b, P("src-link/main.c"), 0, &out), 0);
        warder_bytes_free(&out);
        ck_assert_int_eq(rd(b, P("out-link"), 0, &out), WARDER_EOUTSIDE);
        ck_assert_int_eq(rd(b, P("dotdot-link/etc/passwd"), 0, &out), WARDER_EOUTSIDE);
        ck_assert_int_eq(rd(b, P("loop-a"), 0, &out), WARDER_ESYMLINK);
        /* A real form is opened without following: any symlink is refused. */
        ck_assert_int_eq(rd(b, P("rel-link"), WARDER_NOFOLLOW, &out), WARDER_ESYMLINK);
        ck_assert_int_eq(rd(b, P("src-link/main.c"), WARDER_NOFOLLOW, &out), WARDER_ESYMLINK);
        warder_backend_free(b);

        b = backend(_i, false);
        ck_assert_int_eq(rd(b, P("rel-link"), 0, &out), WARDER_ESYMLINK);
        ck_assert_int_eq(rd(b, P("src-link/main.c"), 0, &out), WARDER_ESYMLINK);
        ck_assert_int_eq(rd(b, P("out-link"), 0, &out), WARDER_ESYMLINK);
        ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), 0);
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/* §3.2 realpath: inside, missing tail, outside, loops, `..` in link targets */
START_TEST(test_realpath)
{
        link_("src/deep", "d");
        link_("../a.txt", "src/up");
        link_("d/../../a.txt", "chain");
        char out_target[PATH_MAX];
        snprintf(out_target, sizeof(out_target), "%s/secret", outside);
        link_(out_target, "out");
        link_("nowhere/new.txt", "dangling");
        link_("/etc", "etc");
        link_("self", "self");
        char abs[PATH_MAX];
        snprintf(abs, sizeof(abs), "%s/src", root);
        link_(abs, "abs-src");

        warder_backend *b = backend(_i, true);
        struct {
                const char *in, *want;
                int rc;
        } v[] = {
            {"a.txt", "a.txt", 0},
            {"", "", 0},
            {"d/x.c", "src/deep/x.c", 0},
            {"d", "src/deep", 0},
            {"src/up", "a.txt", 0},
            {"chain", "a.txt", 0},
            {"d/missing/more", "src/deep/missing/more", 0},
            {"dangling", "nowhere/new.txt", 0},
            {"abs-src/main.c", "src/main.c", 0},
            {"a.txt/below", "a.txt/below", 0},
            {"out", NULL, WARDER_EOUTSIDE},
            {"etc/passwd", NULL, WARDER_EOUTSIDE},
            {"self", NULL, WARDER_ESYMLINK},
        };
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
                char *res = NULL;
                struct warder_error e = WARDER_ERROR_INIT;
                const char *in = P(v[k].in);
                int rc = warder_backend_realpath(&res, b, in, strlen(in), &e);
                ck_assert_msg(rc == v[k].rc, "%s: %d (%s)", v[k].in, rc, e.message);
                if (v[k].want)
                        ck_assert_str_eq(res, P(v[k].want));
                else
                        ck_assert_ptr_null(res);
                warder_free(res);
        }
        char *res = NULL;
        ck_assert_int_eq(warder_backend_realpath(&res, b, "/etc/passwd", 11, NULL),
                         WARDER_EOUTSIDE);
        warder_backend_free(b);

        /* A root given through a symlink: absolute links naming the root's real path are
         * inside it, and results are spelled with the root as given. */
        char alias[512];
        snprintf(alias, sizeof(alias), "%s-alias", root);
        ck_assert_int_eq(symlink(root, alias), 0);
        struct warder_local_options ao = WARDER_LOCAL_OPTIONS_INIT;
        ao.force_fallback = _i;
        warder_backend *ab = NULL;
        ck_assert_int_eq(warder_local_new(&ab, alias, &ao, NULL), 0);
        char in[PATH_MAX], want[PATH_MAX];
        snprintf(in, sizeof(in), "%s/abs-src/main.c", alias);
        snprintf(want, sizeof(want), "%s/src/main.c", alias);
        ck_assert_int_eq(warder_backend_realpath(&res, ab, in, strlen(in), NULL), 0);
        ck_assert_str_eq(res, want);
        warder_free(res);
        struct warder_bytes rb = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(ab, in, 0, &rb), 0);
        warder_bytes_free(&rb);
        warder_backend_free(ab);
        unlink(alias);

        /* Symlinks refused: nothing is followed, the real form is the literal form. */
        b = backend(_i, false);
        ck_assert_int_eq(warder_backend_realpath(&res, b, P("d/x.c"), strlen(P("d/x.c")), NULL), 0);
        ck_assert_str_eq(res, P("d/x.c"));
        warder_free(res);
        warder_backend_free(b);
}
END_TEST

/* §6.2 write: atomic replace, mode kept, planted links replaced or refused, caps. */
START_TEST(test_write)
{
        warder_backend *b = backend(_i, true);
        struct stat st;
        ck_assert_int_eq(wr(b, P("new.txt"), "fresh", 0), 0);
        ck_assert_str_eq(slurp(P("new.txt")), "fresh");
        ck_assert_int_eq(chmod(P("a.txt"), 0640), 0);
        ck_assert_int_eq(wr(b, P("a.txt"), "replaced", 0), 0);
        ck_assert_str_eq(slurp(P("a.txt")), "replaced");
        ck_assert_int_eq(stat(P("a.txt"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0640);
        ck_assert_int_eq(wr(b, P("src"), "x", 0), WARDER_EISDIR);
        ck_assert_int_eq(wr(b, P(""), "x", 0), WARDER_EISDIR);
        /* Missing parents are created beneath the root, never through a symlink. */
        ck_assert_int_eq(wr(b, P("new/dir/x"), "x", 0), 0);
        ck_assert_str_eq(slurp(P("new/dir/x")), "x");
        ck_assert_int_eq(wr(b, P("a.txt/below"), "x", 0), WARDER_ENOTDIR);
        ck_assert_int_eq(wr(b, "/tmp/warder-never", "x", 0), WARDER_EOUTSIDE);
        ck_assert_int_eq(mkfifo(P("fifo"), 0644), 0);
        ck_assert_int_eq(wr(b, P("fifo"), "x", 0), WARDER_ENOTREG);

        /* A symlink at the destination: followed inside the root (the link stays a link)... */
        link_("src/main.c", "to-main");
        ck_assert_int_eq(wr(b, P("to-main"), "via link", 0), 0);
        ck_assert_int_eq(lstat(P("to-main"), &st), 0);
        ck_assert(S_ISLNK(st.st_mode));
        ck_assert_str_eq(slurp(P("src/main.c")), "via link");
        /* ...never out of it, dangling or not... */
        char target[PATH_MAX];
        snprintf(target, sizeof(target), "%s/planted", outside);
        link_(target, "dangling-out");
        ck_assert_int_eq(wr(b, P("dangling-out"), "x", 0), WARDER_EOUTSIDE);
        ck_assert_int_eq(access(target, F_OK), -1);
        /* ...and refused for a real form; the link is left alone. */
        ck_assert_int_eq(wr(b, P("to-main"), "no", WARDER_NOFOLLOW), WARDER_ESYMLINK);
        ck_assert_str_eq(slurp(P("src/main.c")), "via link");
        link_("src", "src-link");
        ck_assert_int_eq(wr(b, P("src-link/util.c"), "no", WARDER_NOFOLLOW), WARDER_ESYMLINK);
        ck_assert_int_eq(wr(b, P("src-link/made/x"), "no", WARDER_NOFOLLOW), WARDER_ESYMLINK);
        ck_assert_int_eq(access(P("src/made"), F_OK), -1);
        ck_assert_int_eq(wr(b, P("src-link/made/x"), "yes", 0), 0);
        ck_assert_str_eq(slurp(P("src/made/x")), "yes");
        char odir[PATH_MAX];
        snprintf(odir, sizeof(odir), "%s/sub", outside);
        link_(odir, "out-dir");
        ck_assert_int_eq(wr(b, P("out-dir/x/y"), "no", 0), WARDER_EOUTSIDE);
        ck_assert_int_eq(access(odir, F_OK), -1);
        ck_assert_int_eq(wr(b, P("src-link/util.c"), "yes", 0), 0);
        ck_assert_str_eq(slurp(P("src/util.c")), "yes");

        /* No temporary file is left behind. */
        struct warder_entries ents = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&ents, b, root, strlen(root), 0, NULL), 0);
        for (size_t k = 0; k < ents.count; k++)
                ck_assert_msg(strncmp(ents.items[k].name, ".warder-", 8) != 0, "%s",
                              ents.items[k].name);
        warder_entries_free(&ents);
        warder_backend_free(b);

        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.max_write = 4;
        b = backend_opts(_i, &o);
        ck_assert_int_eq(wr(b, P("capped"), "12345", 0), WARDER_ETOOBIG);
        ck_assert_int_eq(access(P("capped"), F_OK), -1);
        ck_assert_int_eq(wr(b, P("capped"), "1234", 0), 0);
        warder_backend_free(b);

        b = backend(_i, false);
        ck_assert_int_eq(wr(b, P("to-main"), "no", 0), WARDER_ESYMLINK);
        warder_backend_free(b);
}
END_TEST

/*
 * A write replaces the file, keeping its permission bits but never its set-user-ID and
 * set-group-ID bits: the kernel clears them when an unprivileged process writes a file, and a
 * replacement must not leave a set-ID program whose contents the writer chose. Edit writes the
 * same way.
 */
START_TEST(test_write_clears_setid)
{
        warder_backend *b = backend(_i, true);
        struct stat st;
        put("tool", "#!/bin/sh\necho old\n");
        ck_assert_int_eq(chmod(P("tool"), 06755), 0);
        /* The fixture really carries the bits (control arm). */
        ck_assert_int_eq(stat(P("tool"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 06755);
        ck_assert_int_eq(wr(b, P("tool"), "#!/bin/sh\necho new\n", 0), 0);
        ck_assert_int_eq(stat(P("tool"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0755);

        ck_assert_int_eq(chmod(P("tool"), 02770 | S_ISVTX), 0);
        size_t n = 0;
        ck_assert_int_eq(
            warder_backend_edit(&n, b, P("tool"), strlen(P("tool")), "new", 3, "newer", 5, 0, NULL),
            0);
        ck_assert_int_eq(stat(P("tool"), &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0770 | S_ISVTX);
        warder_backend_free(b);
}
END_TEST

/* §6.2 edit */
START_TEST(test_edit)
{
        warder_backend *b = backend(_i, true);
        size_t n = 0;
        const char *p = P("a.txt");
        ck_assert_int_eq(chmod(p, 0600), 0);
        ck_assert_int_eq(warder_backend_edit(&n, b, p, strlen(p), "world", 5, "there", 5, 0, NULL),
                         0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(slurp(p), "hello\nthere\n");
        /* an empty old text matches everywhere and nowhere: refused, the file unchanged */
        struct warder_error e = WARDER_ERROR_INIT;
        n = 7;
        ck_assert_int_eq(warder_backend_edit(&n, b, p, strlen(p), "", 0, "x", 1, 0, &e),
                         WARDER_EINVAL);
        ck_assert_int_eq(e.code, WARDER_EINVAL);
        warder_error_clear(&e);
        ck_assert_str_eq(slurp(p), "hello\nthere\n");
        struct stat st;
        ck_assert_int_eq(stat(p, &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0600);
        ck_assert_int_eq(warder_backend_edit(&n, b, p, strlen(p), "nope", 4, "x", 1, 0, NULL),
                         WARDER_ENOMATCH);
        ck_assert_int_eq(warder_backend_edit(&n, b, p, strlen(p), "e", 1, "E", 1, 0, NULL),
                         WARDER_EAMBIGUOUS);
        ck_assert_str_eq(slurp(p), "hello\nthere\n");
        ck_assert_int_eq(
            warder_backend_edit(&n, b, p, strlen(p), "e", 1, "E", 1, WARDER_EDIT_ALL, NULL), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(slurp(p), "hEllo\nthErE\n");
        link_("a.txt", "link");
        const char *lp = P("link");
        ck_assert_int_eq(warder_backend_edit(&n, b, lp, strlen(lp), "hEl", 3, "HEl", 3, 0, NULL),
                         0);
        ck_assert_str_eq(slurp(p), "HEllo\nthErE\n");
        ck_assert_int_eq(
            warder_backend_edit(&n, b, lp, strlen(lp), "HEl", 3, "x", 1, WARDER_NOFOLLOW, NULL),
            WARDER_ESYMLINK);
        warder_backend_free(b);
}
END_TEST

static const struct warder_entry *find(const struct warder_entries *e, const char *name)
{
        for (size_t k = 0; k < e->count; k++)
                if (strcmp(e->items[k].name, name) == 0)
                        return &e->items[k];
        return NULL;
}

/* ls: lstat semantics, raw names, sorted */
START_TEST(test_ls)
{
        link_("src", "src-link");
        put("odd\nname ", "x");
        warder_backend *b = backend(_i, true);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, root, strlen(root), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 4);
        ck_assert_str_eq(e.items[0].name, "a.txt");
        ck_assert_str_eq(e.items[1].name, "odd\nname ");
        ck_assert_str_eq(e.items[1].path, P("odd\nname "));
        ck_assert_int_eq(find(&e, "a.txt")->type, WARDER_ENTRY_FILE);
        ck_assert_uint_eq(find(&e, "a.txt")->size, 12);
        ck_assert(find(&e, "a.txt")->mtime > 0);
        ck_assert_int_eq(find(&e, "src")->type, WARDER_ENTRY_DIR);
        ck_assert_int_eq(find(&e, "src-link")->type, WARDER_ENTRY_SYMLINK);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_ls(&e, b, P("a.txt"), strlen(P("a.txt")), 0, NULL),
                         WARDER_ENOTDIR);
        ck_assert_int_eq(warder_backend_ls(&e, b, P("nope"), strlen(P("nope")), 0, NULL),
                         WARDER_ENOENT);
        ck_assert_int_eq(warder_backend_ls(&e, b, "/", 1, 0, NULL), WARDER_EOUTSIDE);
        ck_assert_int_eq(warder_backend_ls(&e, b, P("src-link"), strlen(P("src-link")), 0, NULL),
                         0);
        ck_assert_ptr_nonnull(find(&e, "main.c"));
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_ls(&e, b, P("src-link"), strlen(P("src-link")), WARDER_NOFOLLOW, NULL),
            WARDER_ESYMLINK);
        warder_backend_free(b);
}
END_TEST

/* glob: a walk that never follows a symlinked directory */
START_TEST(test_glob)
{
        link_("src", "src-link");
        warder_backend *b = backend(_i, true);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "**/*.c", strlen("**/*.c"), root, strlen(root), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 3);
        ck_assert_str_eq(e.items[0].path, P("src/deep/x.c"));
        ck_assert_str_eq(e.items[1].path, P("src/main.c"));
        ck_assert_str_eq(e.items[2].path, P("src/util.c"));
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "src*", strlen("src*"), root, strlen(root), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 2);
        ck_assert_int_eq(find(&e, "src-link")->type, WARDER_ENTRY_SYMLINK);
        warder_entries_free(&e);
        char pat[PATH_MAX];
        snprintf(pat, sizeof(pat), "%s/src/*.c", root);
        ck_assert_int_eq(warder_backend_glob(&e, b, pat, strlen(pat), root, strlen(root), 0, NULL),
                         0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "*.c", strlen("*.c"), P("src"), strlen(P("src")), 0, NULL),
            0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        /* Literal leading directories and a bounded depth narrow the walk, not the result. */
        ck_assert_int_eq(warder_backend_glob(&e, b, "src/deep/*.c", strlen("src/deep/*.c"), root,
                                             strlen(root), 0, NULL),
                         0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, P("src/deep/x.c"));
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "*/*.c", strlen("*/*.c"), root, strlen(root), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_glob(&e, b, "{src,x}/*/*.c", strlen("{src,x}/*/*.c"), root,
                                             strlen(root), 0, NULL),
                         0);
        ck_assert_uint_eq(e.count, 1);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_glob(&e, b, "src-link/*.c", strlen("src-link/*.c"), root,
                                             strlen(root), 0, NULL),
                         0);
        ck_assert_uint_eq(e.count, 0); /* a symlinked directory is not entered */
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "nope/*.c", strlen("nope/*.c"), root, strlen(root), 0, NULL),
            0);
        ck_assert_uint_eq(e.count, 0);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", strlen("*"), "/etc", 4, 0, NULL),
                         WARDER_EOUTSIDE);
        /* `..` in a pattern's leading directories is never opened: the directory above the
         * root (where the fixture's secret really is) is not listed */
        struct stat st;
        ck_assert_int_eq(stat(outside, &st), 0);
        const char *up = strrchr(outside, '/') + 1;
        snprintf(pat, sizeof(pat), "../%s/*", up);
        const char *ups[] = {"../*", pat, "src/../../*"};
        for (size_t i = 0; i < sizeof(ups) / sizeof(ups[0]); i++) {
                ck_assert_int_eq(
                    warder_backend_glob(&e, b, ups[i], strlen(ups[i]), root, strlen(root), 0, NULL),
                    0);
                ck_assert_msg(e.count == 0, "glob '%s': %zu entries", ups[i], e.count);
                warder_entries_free(&e);
        }
        /* a base that is a file, not a directory, is ENOTDIR: never an empty answer */
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", strlen("*"), P("src/main.c"),
                                             strlen(P("src/main.c")), 0, &err),
                         WARDER_ENOTDIR);
        ck_assert_ptr_null(e.items);
        /* the glob slot called directly, as a backend that forwards to this one calls it:
         * no pattern is EINVAL */
        err = (struct warder_error)WARDER_ERROR_INIT;
        ck_assert_int_eq(b->ops->glob(b, NULL, root, 0, &e, &err), WARDER_EINVAL);
        ck_assert_int_eq(err.code, WARDER_EINVAL);
        ck_assert_ptr_null(e.items);
        warder_backend_free(b);
}
END_TEST

/* ls and glob of what is not a directory: ENOTDIR, or nothing, at once — never an open for
 * reading that a FIFO would block. And `err` is left alone when they succeed. */
START_TEST(test_not_directories)
{
        ck_assert_int_eq(mkfifo(P("fifo"), 0644), 0);
        warder_backend *b = backend(_i, true);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        alarm(10);
        ck_assert_int_eq(warder_backend_ls(&e, b, P("fifo"), strlen(P("fifo")), 0, NULL),
                         WARDER_ENOTDIR);
        const char *pats[] = {"fifo/*", "a.txt/*", "src/main.c/*"};
        for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
                ck_assert_int_eq(warder_backend_glob(&e, b, pats[i], strlen(pats[i]), root,
                                                     strlen(root), 0, NULL),
                                 0);
                ck_assert_uint_eq(e.count, 0);
                warder_entries_free(&e);
        }
        alarm(0);
        /* entries that do not match leave no message behind */
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "**/*.c", strlen("**/*.c"), root, strlen(root), 0, &err), 0);
        ck_assert_uint_eq(e.count, 3);
        ck_assert_int_eq(err.code, 0);
        ck_assert_str_eq(err.message, "");
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

/* Names at the edges, through openat2 and through the walk that stands in for it: a component
 * of exactly NAME_MAX bytes is read; one byte more is refused, and the backend keeps working
 * (its root descriptor intact); names that start with dots are names, not `..`. */
START_TEST(test_names_at_the_edges)
{
        char longest[NAME_MAX + 1], over[NAME_MAX + 2], path[NAME_MAX + 8];
        memset(longest, 'n', NAME_MAX);
        longest[NAME_MAX] = '\0';
        memset(over, 'o', NAME_MAX + 1);
        over[NAME_MAX + 1] = '\0';
        put(longest, "LONGEST\n");
        dir(".d");
        put(".d/..x", "DOTS\n");
        put(".d/.x", "DOT\n");
        warder_backend *b = backend(_i, true);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P(longest), 0, &out), 0);
        ck_assert_str_eq(out.data, "LONGEST\n");
        warder_bytes_free(&out);
        /* a regular file on descriptor 0: a name too long is never read from there */
        put("stdin.txt", "STDIN\n");
        int z = open(P("stdin.txt"), O_RDONLY);
        ck_assert_int_ge(z, 0);
        ck_assert_int_eq(dup2(z, 0), 0);
        close(z);
        for (int twice = 0; twice < 2; twice++) {
                snprintf(path, sizeof(path), "%s%s", over, twice ? "/x" : "");
                ck_assert_int_eq(rd(b, P(path), 0, &out), WARDER_EINVAL);
                ck_assert_ptr_null(out.data);
                ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), 0);
                warder_bytes_free(&out);
        }
        ck_assert_int_eq(rd(b, P(".d/..x"), 0, &out), 0);
        ck_assert_str_eq(out.data, "DOTS\n");
        warder_bytes_free(&out);
        ck_assert_int_eq(rd(b, P(".d/.x"), 0, &out), 0);
        ck_assert_str_eq(out.data, "DOT\n");
        warder_bytes_free(&out);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, P(".d"), strlen(P(".d")), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

/* A host whose standard input is closed: the kernel hands out descriptor 0 to the backend,
 * which is a descriptor like any other (ls and glob through literal directories). The test
 * closes its own descriptor 0 (no child process: what runs is the test itself) and puts it
 * back before it asserts anything. */
START_TEST(test_descriptor_zero)
{
        warder_backend *b = backend(_i, true);
        warder_backend *nb = backend(_i, false);
        dir("src/deep/inner");
        put("src/deep/inner/y.c", "int y;\n");
        link_("src", "src-link");
        char secret[PATH_MAX];
        snprintf(secret, sizeof(secret), "%s/secret", outside);
        link_(secret, "out-link");
        FILE *sf = fopen(secret, "r"); /* the fixture really holds the secret */
        char sbuf[32] = "";
        ck_assert_ptr_nonnull(sf);
        ck_assert_ptr_nonnull(fgets(sbuf, sizeof(sbuf), sf));
        fclose(sf);
        ck_assert_str_eq(sbuf, "OUTSIDE-SECRET\n");
        int saved = fcntl(0, F_DUPFD_CLOEXEC, 3);
        ck_assert_int_ge(saved, 3);
        ck_assert_int_eq(close(0), 0);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int bad = 0;
        if (warder_backend_ls(&e, b, P("src"), strlen(P("src")), 0, NULL) != 0 ||
            !find(&e, "main.c"))
                bad |= 1;
        warder_entries_free(&e);
        errno = ENOENT; /* what a host's last failed call left: the root is not missing */
        if (warder_backend_ls(&e, b, root, strlen(root), 0, NULL) != 0 || !find(&e, "a.txt"))
                bad |= 4;
        warder_entries_free(&e);
        /* the root is opened on descriptor 0; "deep" on the 0 that closing it freed */
        if (warder_backend_glob(&e, b, "src/deep/*.c", strlen("src/deep/*.c"), root, strlen(root),
                                0, NULL) != 0 ||
            e.count != 1 || strcmp(e.items[0].path, P("src/deep/x.c")) != 0)
                bad |= 2;
        warder_entries_free(&e);
        /* three literal directories: the walk goes on from descriptor 0 ("deep") */
        if (warder_backend_glob(&e, b, "src/deep/inner/*.c", strlen("src/deep/inner/*.c"), root,
                                strlen(root), 0, NULL) != 0 ||
            e.count != 1 || strcmp(e.items[0].path, P("src/deep/inner/y.c")) != 0)
                bad |= 8;
        warder_entries_free(&e);
        /* no literal directory: the walk starts on descriptor 0 itself */
        if (warder_backend_glob(&e, b, "*.txt", strlen("*.txt"), root, strlen(root), 0, NULL) !=
                0 ||
            e.count != 1 || strcmp(e.items[0].path, P("a.txt")) != 0)
                bad |= 16;
        warder_entries_free(&e);
        /* reads, writes (missing parents made), edits and realpath, at the top and below */
        struct warder_bytes out = WARDER_BYTES_INIT;
        if (warder_backend_read(&out, b, P("a.txt"), strlen(P("a.txt")), 0, 0, 0, NULL) != 0 ||
            !out.data || strcmp(out.data, "hello\nworld\n") != 0)
                bad |= 32;
        warder_bytes_free(&out);
        if (warder_backend_read(&out, b, P("src/deep/x.c"), strlen(P("src/deep/x.c")), 0, 0, 0,
                                NULL) != 0 ||
            !out.data || strcmp(out.data, "int x; /* main */\n") != 0)
                bad |= 64;
        warder_bytes_free(&out);
        if (warder_backend_write(b, P("top.txt"), strlen(P("top.txt")), "T\n", 2, 0, NULL) != 0 ||
            warder_backend_write(b, P("src/deep/w.txt"), strlen(P("src/deep/w.txt")), "W\n", 2, 0,
                                 NULL) != 0 ||
            warder_backend_write(b, P("new/dir/n.txt"), strlen(P("new/dir/n.txt")), "N\n", 2, 0,
                                 NULL) != 0)
                bad |= 128;
        size_t count = 0;
        if (warder_backend_edit(&count, b, P("src/deep/x.c"), strlen(P("src/deep/x.c")), "x;", 2,
                                "z;", 2, 0, NULL) != 0 ||
            count != 1)
                bad |= 256;
        char *real = NULL;
        if (warder_backend_realpath(&real, b, P("src/deep/x.c"), strlen(P("src/deep/x.c")), NULL) !=
                0 ||
            !real || strcmp(real, P("src/deep/x.c")) != 0)
                bad |= 512;
        free(real);
        /* a symlink followed component by component (its real form resolved on descriptor 0),
         * and a walk that descends into a directory opened on descriptor 0 */
        if (warder_backend_read(&out, b, P("src-link/util.c"), strlen(P("src-link/util.c")), 0, 0,
                                0, NULL) != 0 ||
            !out.data || strcmp(out.data, "/* util */\nint util;\n") != 0)
                bad |= 4096;
        warder_bytes_free(&out);
        if (warder_backend_glob(&e, b, "src/**/*.c", strlen("src/**/*.c"), root, strlen(root), 0,
                                NULL) != 0 ||
            e.count != 4)
                bad |= 8192;
        warder_entries_free(&e);
        /* symlinks opened on descriptor 0 are still symlinks: one on the way, and one as the
         * last component of a grep's path (which points out of the root) */
        if (warder_backend_read(&out, nb, P("src-link/main.c"), strlen(P("src-link/main.c")), 0, 0,
                                0, NULL) != WARDER_ESYMLINK ||
            out.data)
                bad |= 1024;
        warder_bytes_free(&out);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        req.pattern = "SECRET";
        req.pattern_len = strlen(req.pattern);
        req.path = P("out-link");
        req.path_len = strlen(req.path);
        int grc = warder_backend_grep(&r, nb, &req, NULL);
        if (grc == 0 || r.count != 0)
                bad |= 2048;
        warder_grep_result_free(&r);
        int zero_was_free = fcntl(0, F_GETFD) < 0;
        ck_assert_int_eq(dup2(saved, 0), 0);
        close(saved);
        ck_assert(zero_was_free); /* the backend left no descriptor behind */
        ck_assert_msg(bad == 0, "failed with descriptor 0 free: %#x", (unsigned)bad);
        /* what was written is where it should be, with its contents */
        char buf[32] = "";
        FILE *f = fopen(P("new/dir/n.txt"), "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
        fclose(f);
        ck_assert_str_eq(buf, "N\n");
        f = fopen(P("src/deep/x.c"), "r");
        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
        fclose(f);
        ck_assert_str_eq(buf, "int z; /* main */\n");
        ck_assert_int_eq(grc, WARDER_ESYMLINK);
        warder_backend_free(nb);
        warder_backend_free(b);
}
END_TEST

/* A backend whose root is `/` itself: the paths it lists are `/name`, not `//name`. */
START_TEST(test_root_is_slash)
{
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = _i;
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, "/", &o, NULL), 0);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, "/", 1, 0, NULL), 0);
        const struct warder_entry *tmp = find(&e, "tmp");
        ck_assert_ptr_nonnull(tmp);
        ck_assert_str_eq(tmp->path, "/tmp");
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_glob(&e, b, "tm?", 3, "/", 1, 0, NULL), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, "/tmp");
        warder_entries_free(&e);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, b, "/tmp", 4, NULL), 0);
        ck_assert_str_eq(real, "/tmp");
        warder_free(real);
        warder_backend_free(b);
}
END_TEST

/* A backend made while the host's descriptors 0 to 2 are closed: its root lands on 0, is
 * moved off the descriptors a child's stdio takes, and works. */
START_TEST(test_new_without_stdio)
{
        int saved[3];
        for (int k = 0; k < 3; k++) {
                saved[k] = fcntl(k, F_DUPFD_CLOEXEC, 10);
                ck_assert_int_ge(saved[k], 10);
        }
        for (int k = 0; k < 3; k++)
                close(k);
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = _i;
        warder_backend *b = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_local_new(&b, root, &o, &err);
        int zero_free = fcntl(0, F_GETFD) < 0;
        for (int k = 0; k < 3; k++) {
                dup2(saved[k], k);
                close(saved[k]);
        }
        ck_assert_msg(rc == 0, "warder_local_new: %s", err.message);
        ck_assert(zero_free); /* the root was moved off descriptor 0 */
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(b, P("a.txt"), 0, &out), 0);
        ck_assert_str_eq(out.data, "hello\nworld\n");
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/* grep: PCRE2 over lines, binary skipped, symlinks not followed, caps */
START_TEST(test_grep)
{
        link_("src", "src-link");
        link_("a.txt", "a-link");
        FILE *f = fopen(P("bin"), "w");
        fwrite("main\0main\n", 1, 10, f);
        fclose(f);
        put("odd\nname ", "int main;\n");
        warder_backend *b = backend(_i, true);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        req.pattern = "main";
        req.pattern_len = strlen(req.pattern);
        req.path = root;
        req.path_len = strlen(root);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 3);
        ck_assert_str_eq(r.items[0].path, P("odd\nname "));
        ck_assert_str_eq(r.items[1].path, P("src/deep/x.c"));
        ck_assert_str_eq(r.items[1].text, "int x; /* main */");
        ck_assert_uint_eq(r.items[1].line, 1);
        ck_assert_str_eq(r.items[2].path, P("src/main.c"));
        ck_assert_uint_eq(r.items[2].line, 1);
        ck_assert(!r.truncated);
        warder_grep_result_free(&r);

        /* The grep slot called directly, as a backend that forwards to this one calls it: no
         * pattern, no path or no request at all is EINVAL, and nothing is searched. */
        struct warder_grep_request bad = req;
        bad.pattern = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(b->ops->grep(b, &bad, &r, &err), WARDER_EINVAL);
        ck_assert_int_eq(err.code, WARDER_EINVAL);
        ck_assert_uint_eq(r.count, 0);
        bad = req;
        bad.path = NULL;
        ck_assert_int_eq(b->ops->grep(b, &bad, &r, NULL), WARDER_EINVAL);
        ck_assert_int_eq(b->ops->grep(b, NULL, &r, NULL), WARDER_EINVAL);
        ck_assert_uint_eq(r.count, 0);

        /* A regex (no literal fast path), line numbers past the first line. */
        req.pattern = "^\\s+return [0-9]+;$";
        req.pattern_len = strlen(req.pattern);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_uint_eq(r.items[0].line, 3);
        ck_assert_str_eq(r.items[0].text, "\treturn 0;");
        warder_grep_result_free(&r);
        req.pattern = "[wr][oe]";
        req.pattern_len = strlen(req.pattern);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2); /* a.txt:2 "world", main.c:3 "return" */
        ck_assert_uint_eq(r.items[0].line, 2);
        warder_grep_result_free(&r);

        req.pattern = "HELLO";
        req.pattern_len = strlen(req.pattern);
        req.flags = WARDER_GREP_CASELESS;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].path, P("a.txt"));
        warder_grep_result_free(&r);
        req.flags = 0;

        req.pattern = "int";
        req.pattern_len = strlen(req.pattern);
        req.glob = "src/**/*.c";
        req.glob_len = strlen(req.glob);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 3);
        warder_grep_result_free(&r);
        req.glob = "*.c"; /* no '/': file names at any depth */
        req.glob_len = strlen(req.glob);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 3);
        warder_grep_result_free(&r);
        req.glob = "src/*.c";
        req.glob_len = strlen(req.glob);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2);
        warder_grep_result_free(&r);
        req.glob = NULL;
        req.max_matches = 2;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2);
        ck_assert(r.truncated);
        warder_grep_result_free(&r);
        req.max_matches = 0;

        /* A file base. */
        req.pattern = "o";
        req.pattern_len = strlen(req.pattern);
        req.path = P("a.txt");
        req.path_len = strlen(req.path);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2);
        warder_grep_result_free(&r);

        struct warder_error e = WARDER_ERROR_INIT;
        req.pattern = "(unclosed";
        req.pattern_len = strlen(req.pattern);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, &e), WARDER_EPARSE);
        req.pattern = "x";
        req.pattern_len = strlen(req.pattern);
        req.path = "/etc";
        req.path_len = 4;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), WARDER_EOUTSIDE);
        warder_backend_free(b);

        /* Binary files searched when asked; per-file byte cap marks the result truncated. */
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.grep_skip_binary = false;
        o.grep_max_file = 4;
        b = backend_opts(_i, &o);
        req.pattern = "main";
        req.pattern_len = strlen(req.pattern);
        req.path = root;
        req.path_len = strlen(root);
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1); /* only "bin" has "main" in its first 4 bytes */
        ck_assert_str_eq(r.items[0].path, P("bin"));
        ck_assert(r.truncated);
        warder_grep_result_free(&r);
        warder_backend_free(b);
}
END_TEST

/* Reference: every line matched on its own with the plain PCRE2 interpreter. */
static size_t ref_grep(const char *pattern, bool caseless, const char *data, size_t len,
                       uint64_t *lines, size_t max)
{
        int ec;
        PCRE2_SIZE eo;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                       caseless ? PCRE2_CASELESS : 0, &ec, &eo, NULL);
        ck_assert_ptr_nonnull(re);
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
        size_t n = 0;
        uint64_t line = 0;
        for (const char *p = data, *end = data + len; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *eol = nl ? nl : end;
                line++;
                if (pcre2_match(re, (PCRE2_SPTR)p, (size_t)(eol - p), 0, 0, md, NULL) >= 0 &&
                    n < max)
                        lines[n++] = line;
                p = eol + 1;
        }
        pcre2_match_data_free(md);
        pcre2_code_free(re);
        return n;
}

/* The grep fast paths (a literal found with memmem, a required byte found with memchr) give
 * exactly the lines a per-line match gives, whatever the pattern. */
START_TEST(test_grep_fast_paths_exact)
{
        static const char *patterns[] = {
            "ab",
            "a",
            "",
            "b$",
            "^a",
            "a\\z",
            "x(?!\\n)",
            "a\\sb",
            "\\bab\\b",
            "(?i)AB",
            "b+a",
            "[ab]x",
            "a.b",
            "ba|xa",
            "a\\n",
            "^$",
            "a b",
            "(?=b)b",
            "x\\Z",
            "a{2}",
            /* no literal and no required byte: searched across lines, confirmed per line */
            "[ab][ab]",
            "[^x]{2}",
            "\\s\\S",
            "(a|b)x",
            "[[:alpha:]]{3}",
            "[^a]*b$",
            "\\d*",
            "^[^b]",
            "[ax] [ab]",
            "\\S$",
            "[^ ]\\n?[^ ]",
        };
        warder_backend *b = backend(_i, true);
        unsigned seed = 12345;
        char data[600];
        uint64_t want[700];
        for (int round = 0; round < 40; round++) {
                size_t len = 50 + (size_t)(rand_r(&seed) % 500);
                for (size_t k = 0; k < len; k++)
                        data[k] = "abAx \n"[rand_r(&seed) % 6];
                FILE *f = fopen(P("g.txt"), "w");
                fwrite(data, 1, len, f);
                fclose(f);
                for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
                        for (int cl = 0; cl < 2; cl++) {
                                size_t n = ref_grep(patterns[p], cl, data, len, want, 700);
                                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                                req.pattern = patterns[p];
                                req.pattern_len = strlen(req.pattern);
                                req.path = P("g.txt");
                                req.path_len = strlen(req.path);
                                req.flags = cl ? WARDER_GREP_CASELESS : 0;
                                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                                ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
                                ck_assert_msg(r.count == n,
                                              "'%s' (caseless %d): %zu lines, want %zu",
                                              patterns[p], cl, r.count, n);
                                for (size_t k = 0; k < n; k++)
                                        ck_assert_uint_eq(r.items[k].line, want[k]);
                                warder_grep_result_free(&r);
                        }
                }
        }
        warder_backend_free(b);
}
END_TEST

/* Walk limits: a tree deeper than the walk may go is an error, never a silently partial
 * answer; so is running out of descriptors. */
START_TEST(test_walk_limits)
{
        char rel[1024] = "";
        for (int k = 0; k < 300; k++) {
                strcat(rel, k ? "/d" : "d");
                ck_assert_int_eq(mkdir(P(rel), 0755), 0);
        }
        warder_backend *b = backend(_i, true);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "**/x", strlen("**/x"), root, strlen(root), 0, &err),
            WARDER_ELIMIT);
        ck_assert_ptr_null(e.items);
        /* A pattern that cannot reach below the top level, or below its literal directories,
         * is not failed by the deep tree beside it: the walk goes only where the pattern can
         * match (a long name is one component, however many bytes it has). */
        char name[NAME_MAX + 1], pat[NAME_MAX + 3];
        memset(name, 'n', NAME_MAX);
        name[NAME_MAX] = '\0';
        put(name, "");
        snprintf(pat, sizeof(pat), "[n]%s", name + 1); /* more bytes than the walk's depth */
        /* literal leading directories deeper than the walk may go: only what is below
         * them is walked (a dot in a name, or a name of one or two bytes, is not `.` or
         * `..`) */
        char deep[1100] = "x.y";
        ck_assert_int_eq(mkdir(P(deep), 0755), 0);
        for (int k = 0; k < LOCAL_MAX_DEPTH; k++) {
                strcat(deep, k ? "/dd" : "/d");
                ck_assert_int_eq(mkdir(P(deep), 0755), 0);
        }
        strcat(deep, "/f");
        put(deep, "");
        char deep_pat[1100];
        snprintf(deep_pat, sizeof(deep_pat), "%.*s*", (int)strlen(deep) - 1, deep);
        /* as deep as the walk may go, and not one level deeper */
        char stars[2 * LOCAL_MAX_DEPTH + 2] = "";
        for (int k = 0; k < LOCAL_MAX_DEPTH; k++)
                strcat(stars, "*/");
        strcat(stars, "*");
        const char *bounded[] = {"*", "a.txt", pat, "src/*.c", "d/d/*", deep_pat, stars};
        const size_t found[] = {5, 1, 1, 2, 1, 1, 2};
        /* the limit is exact: a directory at depth 256 is not entered, even one that holds
         * only a file */
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "x.y/**", strlen("x.y/**"), root, strlen(root), 0, &err),
            WARDER_ELIMIT);
        ck_assert_ptr_null(e.items);
        for (size_t i = 0; i < sizeof(bounded) / sizeof(bounded[0]); i++) {
                ck_assert_msg(warder_backend_glob(&e, b, bounded[i], strlen(bounded[i]), root,
                                                  strlen(root), 0, &err) == 0,
                              "glob '%.20s': %s", bounded[i], err.message);
                ck_assert_uint_eq(e.count, found[i]);
                warder_entries_free(&e);
        }
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                struct rlimit rl = {40, 40};
                if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
                        _exit(10);
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "x";
                req.pattern_len = strlen(req.pattern);
                req.path = root;
                req.path_len = strlen(root);
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                int rc = warder_backend_grep(&r, b, &req, NULL);
                _exit(rc == WARDER_EIO ? 0 : 11);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit %d",
                      WEXITSTATUS(status));
        warder_backend_free(b);
}
END_TEST

/*
 * Property test against the kernel, on random trees of symlinks (relative, absolute, dangling,
 * looping, through `..`, out of the root): whenever our realpath answers with a path, the
 * kernel's own resolution (realpath(3)) lands on the same place, or the path does not exist
 * yet; whatever the kernel resolves to outside the root, we refuse; and a read through the
 * backend returns the very file plain open(2) reads, or is refused.
 */
START_TEST(test_resolution_matches_kernel)
{
        static const char *dirs[] = {"", "a", "a/b", "c"};
        static const char *rel_targets[] = {
            "..",     "../..", "../../..", ".",       "a",        "b",       "c/f",          "../c",
            "a/../c", "s1",    "s2/b",     "missing", "../a/b/f", "s0/../f", "a/b/../../c/f"};
        unsigned seed = 4242;
        char real_root[PATH_MAX];
        ck_assert_ptr_nonnull(realpath(root, real_root));
        warder_backend *b = backend(_i, true);
        unsigned agreed = 0, refused = 0, missing = 0;
        for (int tree = 0; tree < 25; tree++) {
                char cmd[PATH_MAX];
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'/t && mkdir -p '%s'/t/a/b '%s'/t/c", root,
                         root, root);
                ck_assert_int_eq(system(cmd), 0);
                put("t/f", "root-f");
                put("t/a/f", "a-f");
                put("t/a/b/f", "b-f");
                put("t/c/f", "c-f");
                for (int k = 0; k < 8; k++) {
                        char name[PATH_MAX], target[2 * PATH_MAX];
                        const char *d = dirs[rand_r(&seed) % 4];
                        snprintf(name, sizeof(name), "%s/t%s%s/s%d", root, d[0] ? "/" : "", d, k);
                        unsigned pick = rand_r(&seed) % 22;
                        if (pick < 15)
                                snprintf(target, sizeof(target), "%s", rel_targets[pick]);
                        else if (pick < 17)
                                snprintf(target, sizeof(target), "%s/t/%s", real_root,
                                         dirs[rand_r(&seed) % 4]);
                        else if (pick < 18)
                                snprintf(target, sizeof(target), "%s/secret", outside);
                        else if (pick < 19)
                                snprintf(target, sizeof(target), "%s", outside);
                        else if (pick < 20)
                                snprintf(target, sizeof(target), "/etc");
                        else /* absolute, with a `..` through a link after the root */
                                snprintf(target, sizeof(target), "%s//t/./s%u/../f", real_root,
                                         rand_r(&seed) % 8);
                        if (symlink(target, name) != 0 && errno != EEXIST)
                                ck_abort_msg("symlink %s", name);
                }
                static const char *comps[] = {"a",  "b",  "c",  "f",  "s0", "s1",   "s2",    "s3",
                                              "s4", "s5", "s6", "s7", "..", "nope", "passwd"};
                for (int q = 0; q < 40; q++) {
                        char path[PATH_MAX];
                        int n = snprintf(path, sizeof(path), "%s/t", root);
                        int len = 1 + (int)(rand_r(&seed) % 4);
                        for (int c = 0; c < len; c++)
                                n += snprintf(path + n, sizeof(path) - (size_t)n, "/%s",
                                              comps[rand_r(&seed) % 15]);
                        /* `..` is lexical in a target (§3.1): compare with the kernel on the
                         * normalised path */
                        char *norm = NULL;
                        ck_assert_int_eq(warder_path_normalize(&norm, NULL, NULL, NULL, NULL, path,
                                                               strlen(path), NULL),
                                         0);
                        snprintf(path, sizeof(path), "%s", norm);
                        warder_free(norm);
                        char kernel[PATH_MAX];
                        bool k_ok = realpath(path, kernel) != NULL;
                        int k_errno = errno;
                        char *ours = NULL;
                        struct warder_error e = WARDER_ERROR_INIT;
                        int rc = warder_backend_realpath(&ours, b, path, strlen(path), &e);
                        size_t rl = strlen(real_root);
                        bool k_inside = k_ok && strncmp(kernel, real_root, rl) == 0 &&
                                        (kernel[rl] == '/' || kernel[rl] == '\0');
                        if (k_ok && !k_inside)
                                ck_assert_msg(rc != 0, "%s: kernel -> %s (outside), ours -> %s",
                                              path, kernel, ours);
                        if (rc == 0) {
                                char ours_host[2 * PATH_MAX];
                                snprintf(ours_host, sizeof(ours_host), "%s%s", real_root,
                                         ours + strlen(root));
                                if (k_ok)
                                        ck_assert_msg(strcmp(kernel, ours_host) == 0,
                                                      "%s: kernel -> %s, ours -> %s", path, kernel,
                                                      ours_host);
                                else
                                        ck_assert_msg(k_errno == ENOENT || k_errno == ENOTDIR,
                                                      "%s: kernel errno %d, ours -> %s", path,
                                                      k_errno, ours);
                                k_ok ? agreed++ : missing++;
                        } else if (rc == WARDER_ENOENT || rc == WARDER_ENOTDIR) {
                                /* a `..` below something missing, as for the kernel */
                                ck_assert_msg(!k_ok, "%s: kernel -> %s, ours: %s", path, kernel,
                                              e.message);
                                missing++;
                        } else {
                                ck_assert_msg(rc == WARDER_EOUTSIDE || rc == WARDER_ESYMLINK,
                                              "%s: %s", path, e.message);
                                refused++;
                        }
                        warder_free(ours);
                        /* Reads: the same file as plain open(2), or refused. */
                        struct warder_bytes out = WARDER_BYTES_INIT;
                        int rrc = warder_backend_read(&out, b, path, strlen(path), 0, 0, 0, NULL);
                        char *plain = NULL;
                        int fd = open(path, O_RDONLY | O_NONBLOCK);
                        if (fd >= 0) {
                                static char buf[256];
                                ssize_t r = read(fd, buf, sizeof(buf) - 1);
                                buf[r < 0 ? 0 : r] = '\0';
                                plain = r >= 0 ? buf : NULL;
                                close(fd);
                        }
                        if (rrc == 0) {
                                ck_assert_msg(plain && strcmp(plain, out.data) == 0,
                                              "%s: ours read '%s', plain '%s'", path, out.data,
                                              plain ? plain : "(fails)");
                                ck_assert_msg(k_inside, "%s: read outside the root", path);
                        }
                        warder_bytes_free(&out);
                }
        }
        fprintf(stderr, "resolution vs kernel (%s): %u agreed, %u missing tails, %u refused\n",
                _i ? "fallback" : "openat2", agreed, missing, refused);
        ck_assert_uint_gt(agreed, 50);
        ck_assert_uint_gt(refused, 20);
        warder_backend_free(b);
}
END_TEST

/* §6.2 permission denied by the file system is its own error. */
START_TEST(test_eacces)
{
        put("locked", "x");
        ck_assert_int_eq(chmod(P("locked"), 0), 0);
        dir("closed");
        put("closed/f", "x");
        ck_assert_int_eq(chmod(P("closed"), 0), 0);
        warder_backend *b = backend(_i, true);
        /* As root, drop to another user in a child so the file modes apply. */
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (geteuid() == 0 && setresuid(65534, 65534, 65534) != 0)
                        _exit(10);
                struct warder_bytes out = WARDER_BYTES_INIT;
                if (rd(b, P("locked"), 0, &out) != WARDER_EACCES)
                        _exit(11);
                if (rd(b, P("closed/f"), 0, &out) != WARDER_EACCES)
                        _exit(12);
                if (wr(b, P("closed/g"), "x", 0) != WARDER_EACCES)
                        _exit(13);
                _exit(0);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d",
                      WEXITSTATUS(status));
        chmod(P("closed"), 0755);
        warder_backend_free(b);
}
END_TEST

/* ---- confinement on its own ---------------------------------------------------------------
 * The operations normalise every path before it reaches the kernel, and the guard forwards
 * real forms; the tests below take that help away (a raw `..` handed to the confined open, a
 * name planted where the backend will create a file), so each kernel flag has a test that
 * fails without it. A directory or file swapped for a symlink between any two system calls
 * of an operation is tests/test-fault.c's (it needs a fault-injection build to stop there).
 */

/* What a plain open(2) that follows symlinks reads (the control arm). */
static char *plain(const char *path)
{
        static char buf[4096];
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

static const char *outside_rel(const char *tail)
{
        static char buf[PATH_MAX];
        snprintf(buf, sizeof(buf), "../%s%s", strrchr(outside, '/') + 1, tail);
        return buf;
}

/* RESOLVE_BENEATH (and the fallback walk's `..` refusal): a raw `..` never leaves the root;
 * RESOLVE_NO_SYMLINKS (and O_NOFOLLOW in the walk): no symlink is followed, not even one
 * that stays inside. */
START_TEST(test_raw_paths_confined)
{
        link_("a.txt", "in-link");
        link_(outside, "out-link");
        warder_backend *b = backend(_i, true);
        /* control: the same relative paths, opened plainly from the root, reach outside */
        int rfd = open(root, O_PATH | O_DIRECTORY);
        ck_assert_int_ge(rfd, 0);
        int fd = openat(rfd, outside_rel("/secret"), O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = openat(rfd, "out-link/secret", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);
        close(rfd);
        static const char *const escapes[] = {NULL, "src/../..", "src/deep/../../.."};
        for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
                char rel[PATH_MAX];
                if (escapes[i])
                        snprintf(rel, sizeof(rel), "%s/%s/secret", escapes[i],
                                 strrchr(outside, '/') + 1);
                else
                        snprintf(rel, sizeof(rel), "%s", outside_rel("/secret"));
                fd = warder__local_open_raw(b, rel, O_RDONLY);
                ck_assert_msg(fd == -EXDEV, "%s: %d", rel, fd);
        }
        ck_assert_int_lt(warder__local_open_raw(b, "out-link/secret", O_RDONLY), 0);
        ck_assert_int_eq(warder__local_open_raw(b, "in-link", O_RDONLY), -ELOOP);
        ck_assert_int_eq(warder__local_open_raw(b, "in-link", O_PATH), -ELOOP);
        link_("src", "src-link");
        ck_assert_int_eq(warder__local_open_raw(b, "src-link/main.c", O_RDONLY), -ELOOP);
        /* what is not a symlink opens */
        fd = warder__local_open_raw(b, "src/main.c", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);
        warder_backend_free(b);
}
END_TEST

static int temp_calls;

/* The first temporary name is the planted one; later ones are fresh. */
static void planted_name(char *buf, size_t size)
{
        int n = temp_calls++;
        if (n == 0)
                snprintf(buf, size, ".warder-planted.tmp");
        else
                snprintf(buf, size, ".warder-fresh-%d.tmp", n);
}

/* The temporary name, after the write's target was swapped for a directory. */
static void target_becomes_dir(char *buf, size_t size)
{
        temp_calls++;
        ck_assert_int_eq(unlink(P("victim.txt")), 0);
        ck_assert_int_eq(mkdir(P("victim.txt"), 0755), 0);
        snprintf(buf, size, ".warder-swap.tmp");
}

static void always_planted(char *buf, size_t size)
{
        temp_calls++;
        snprintf(buf, size, ".warder-planted.tmp");
}

/* O_EXCL on the temporary file: a hard link planted at its name (to a file outside the root)
 * is never opened, so the write cannot land in the linked file; nor is a planted symlink.
 * Where every name tried is taken, the write fails (WARDER_EEXIST) and changes nothing; where
 * the target becomes a directory meanwhile, it fails with WARDER_EISDIR and leaves nothing. */
START_TEST(test_planted_temp_name)
{
        char secret[PATH_MAX];
        snprintf(secret, sizeof(secret), "%s/secret", outside);
        put("victim.txt", "old\n");
        for (int kind = 0; kind < 2; kind++) {
                if (kind == 0) {
                        if (link(secret, P(".warder-planted.tmp")) != 0) {
                                fprintf(stderr, "note: cannot hard-link across %s and %s: %s\n",
                                        root, outside, strerror(errno));
                                continue;
                        }
                        /* control: opening the planted name to write reaches the secret */
                        int fd = open(P(".warder-planted.tmp"), O_WRONLY | O_TRUNC);
                        ck_assert_int_ge(fd, 0);
                        ck_assert_int_eq(write(fd, "CONTROL", 7), 7);
                        close(fd);
                        ck_assert_str_eq(slurp(secret), "CONTROL");
                        fd = open(secret, O_WRONLY | O_TRUNC);
                        ck_assert_int_eq(write(fd, "OUTSIDE-SECRET\n", 15), 15);
                        close(fd);
                } else {
                        link_(secret, ".warder-planted.tmp");
                }
                warder_backend *b = backend(_i, true);
                temp_calls = 0;
                warder__local_temp_name_hook = planted_name;
                int rc = wr(b, P("victim.txt"), "new\n", 0);
                warder__local_temp_name_hook = NULL;
                ck_assert_int_eq(rc, 0);
                ck_assert_int_ge(temp_calls, 2);
                ck_assert_str_eq(slurp(secret), "OUTSIDE-SECRET\n");
                ck_assert_str_eq(slurp(P("victim.txt")), "new\n");
                struct stat st;
                ck_assert_int_eq(lstat(P("victim.txt"), &st), 0);
                ck_assert(S_ISREG(st.st_mode) && st.st_nlink == 1);
                temp_calls = 0;
                warder__local_temp_name_hook = always_planted;
                struct warder_error e = WARDER_ERROR_INIT;
                rc = warder_backend_write(b, P("victim.txt"), strlen(P("victim.txt")), "newer\n", 6,
                                          0, &e);
                warder__local_temp_name_hook = NULL;
                ck_assert_int_eq(rc, WARDER_EEXIST);
                ck_assert_int_eq(e.code, WARDER_EEXIST);
                warder_error_clear(&e);
                ck_assert_int_eq(temp_calls, 16);
                ck_assert_str_eq(slurp(secret), "OUTSIDE-SECRET\n");
                ck_assert_str_eq(slurp(P("victim.txt")), "new\n");
                ck_assert_int_eq(unlink(P(".warder-planted.tmp")), 0);
                /* the target swapped for a directory while the write runs: the replacement
                 * fails with EISDIR, the directory stays and no temporary file is left */
                temp_calls = 0;
                warder__local_temp_name_hook = target_becomes_dir;
                rc = warder_backend_write(b, P("victim.txt"), strlen(P("victim.txt")), "newest\n",
                                          7, 0, &e);
                warder__local_temp_name_hook = NULL;
                ck_assert_int_eq(rc, WARDER_EISDIR);
                ck_assert_int_eq(e.code, WARDER_EISDIR);
                warder_error_clear(&e);
                struct stat ds;
                ck_assert_int_eq(lstat(P("victim.txt"), &ds), 0);
                ck_assert(S_ISDIR(ds.st_mode));
                ck_assert_int_ne(access(P(".warder-swap.tmp"), F_OK), 0);
                ck_assert_int_eq(rmdir(P("victim.txt")), 0);
                put("victim.txt", "new\n");
                warder_backend_free(b);
        }
}
END_TEST

/* edit resolves once and then never follows: through a link inside the root it edits the
 * target, through one leaving the root or a symlinked parent under NOFOLLOW it refuses, and
 * the file outside is untouched. */
START_TEST(test_edit_through_symlinks)
{
        char secret[PATH_MAX];
        snprintf(secret, sizeof(secret), "%s/secret", outside);
        link_(secret, "out-file");
        link_(outside, "out-dir");
        link_("src", "src-link");
        warder_backend *b = backend(_i, true);
        size_t n = 0;
        static const struct {
                const char *rel;
                unsigned flags;
                int rc;
        } cases[] = {
            {"out-file", 0, WARDER_EOUTSIDE},
            {"out-dir/secret", 0, WARDER_EOUTSIDE},
            {"out-file", WARDER_NOFOLLOW, WARDER_ESYMLINK},
            {"out-dir/secret", WARDER_NOFOLLOW, WARDER_ESYMLINK},
            {"src-link/main.c", WARDER_NOFOLLOW, WARDER_ESYMLINK},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *p = P(cases[i].rel);
                /* control: the path leads to a file with the text */
                if (strcmp(cases[i].rel, "src-link/main.c") != 0)
                        ck_assert_ptr_nonnull(strstr(plain(p), "SECRET"));
                ck_assert_int_eq(warder_backend_edit(&n, b, p, strlen(p), "SECRET", 6, "PWNED", 5,
                                                     cases[i].flags, NULL),
                                 cases[i].rc);
        }
        ck_assert_str_eq(slurp(secret), "OUTSIDE-SECRET\n");
        ck_assert_str_eq(slurp(P("src/main.c")), "int main(void)\n{\n\treturn 0;\n}\n");
        /* inside the root, followed: the target changes, the link stays a link */
        const char *lp = P("src-link/main.c");
        ck_assert_int_eq(
            warder_backend_edit(&n, b, lp, strlen(lp), "return 0", 8, "return 1", 8, 0, NULL), 0);
        ck_assert_str_eq(slurp(P("src/main.c")), "int main(void)\n{\n\treturn 1;\n}\n");
        struct stat st;
        ck_assert_int_eq(lstat(P("src-link"), &st), 0);
        ck_assert(S_ISLNK(st.st_mode));
        warder_backend_free(b);
}
END_TEST

/* warder_local_new() copies every option a child uses: the environment and the Landlock
 * trees reach the command as the host gave them, even after the host reused its arrays. */
START_TEST(test_options_reach_the_child)
{
        if (warder__landlock_abi() <= 0) {
                fprintf(stderr, "note: Landlock unavailable, options test skipped\n");
                return;
        }
        char env0[] = "MARK=copied", env1[] = "PATH=/usr/bin:/bin";
        const char *env[] = {env0, env1, NULL};
        char r0[] = "/bin", r1[] = "/usr", r2[] = "/lib", r3[] = "/lib64";
        const char *reads[] = {r0, r1, r2, r3, NULL};
        char w0[PATH_MAX];
        snprintf(w0, sizeof(w0), "%s", outside);
        const char *writes[] = {w0, NULL};
        for (int declared = 0; declared < 2; declared++) {
                struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
                o.exec = true;
                o.exec_env = env;
                o.landlock = WARDER_LANDLOCK_REQUIRED;
                o.landlock_read = declared ? reads : NULL;
                o.landlock_write = declared ? writes : NULL;
                warder_backend *b = backend_opts(0, &o);
                /* the host reuses its strings right after construction */
                memset(env0, 'X', sizeof(env0) - 1);
                memset(r0, 'X', sizeof(r0) - 1);
                memset(w0, 'X', strlen(w0));
                char cmd[PATH_MAX + 128];
                snprintf(cmd, sizeof(cmd),
                         "echo \"$MARK\"; cat /etc/passwd >/dev/null && echo passwd; "
                         "echo x > %s/made-by-child && echo wrote",
                         outside);
                struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                req.command = cmd;
                req.command_len = strlen(cmd);
                struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                ck_assert_int_eq(warder_backend_execute(&r, b, &req, NULL), 0);
                ck_assert(r.landlock_applied);
                ck_assert_msg(strncmp(r.out.data, "copied\n", 7) == 0, "%s", r.out.data);
                if (declared) {
                        /* /etc/passwd is in the default read list, not in the declared one */
                        ck_assert_msg(!strstr(r.out.data, "passwd"), "%s", r.out.data);
                        ck_assert_msg(strstr(r.out.data, "wrote"), "%s", r.out.data);
                } else { /* control arm: the defaults read /etc/passwd, write nothing outside */
                        ck_assert_msg(strstr(r.out.data, "passwd"), "%s", r.out.data);
                        ck_assert_msg(!strstr(r.out.data, "wrote"), "%s", r.out.data);
                }
                warder_exec_result_free(&r);
                warder_backend_free(b);
                snprintf(env0, sizeof(env0), "MARK=copied");
                snprintf(r0, sizeof(r0), "/bin");
                snprintf(w0, sizeof(w0), "%s", outside);
        }
}
END_TEST

/* The backend contract (tests/contract.h), with openat2 and with the fallback. */
static int contract_setup(struct contract_fixture *f, void *ud)
{
        char *tmp = strdup("/tmp/warder-contract-XXXXXX");
        if (!tmp || !mkdtemp(tmp)) {
                free(tmp);
                return WARDER_EIO;
        }
        f->state = tmp;
        snprintf(f->root, sizeof(f->root), "%s", tmp);
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = (intptr_t)ud & 1;
        int rc = warder_local_new(&f->b, f->root, &o, NULL);
        if (rc || !((intptr_t)ud & 2))
                return rc;
        /* A guard that allows everything is indistinguishable from the backend it wraps. */
        const char *yaml = "warder: 1\ndefault: allow\n";
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = f->root;
        warder_ruleset *rs = NULL;
        warder_backend *g = NULL;
        rc = warder_ruleset_load_string(&rs, yaml, strlen(yaml), "allow.yaml", &ro, NULL);
        if (!rc)
                rc = warder_guard_new(&g, f->b, rs, NULL, NULL);
        warder_ruleset_free(rs);
        if (!rc)
                f->b = g;
        return rc;
}

static void contract_teardown(struct contract_fixture *f, void *ud)
{
        (void)ud;
        warder_backend_free(f->b);
        if (f->state)
                rm_rf(f->state);
        free(f->state);
}

static const struct contract_target targets[] = {
    {"local (openat2)", contract_setup, contract_teardown, (void *)0, NULL},
    {"local (fallback)", contract_setup, contract_teardown, (void *)1, NULL},
    {"guard over local (openat2)", contract_setup, contract_teardown, (void *)2, NULL},
    {"guard over local (fallback)", contract_setup, contract_teardown, (void *)3, NULL},
};

static Suite *suite(void)
{
        Suite *s = suite_create("local");
        TCase *tc = tcase_create("local");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_new_errors);
        tcase_add_test(tc, test_options_copied);
        tcase_add_loop_test(tc, test_mode_selected, 0, 2);
        tcase_add_test(tc, test_enosys_detected);
        tcase_add_loop_test(tc, test_read_basic, 0, 2);
        tcase_add_loop_test(tc, test_read_errors, 0, 2);
        tcase_add_loop_test(tc, test_message_paths, 0, 2);
        tcase_add_test(tc, test_mount_inside_root);
        tcase_add_test(tc, test_case_folding_by_stat);
        tcase_add_test(tc, test_not_a_local_backend);
        tcase_add_loop_test(tc, test_absolute_links_near_the_root, 0, 2);
        tcase_add_loop_test(tc, test_resolution_bounds, 0, 2);
#ifdef WARDER__FAULT_INJECTION
        tcase_add_loop_test(tc, test_descriptors_close_on_exec, 0, 2);
#endif
        tcase_add_loop_test(tc, test_read_cap, 0, 2);
        tcase_add_loop_test(tc, test_read_symlinks, 0, 2);
        tcase_add_loop_test(tc, test_realpath, 0, 2);
        tcase_add_loop_test(tc, test_write, 0, 2);
        tcase_add_loop_test(tc, test_write_clears_setid, 0, 2);
        tcase_add_loop_test(tc, test_edit, 0, 2);
        tcase_add_loop_test(tc, test_ls, 0, 2);
        tcase_add_loop_test(tc, test_glob, 0, 2);
        tcase_add_loop_test(tc, test_not_directories, 0, 2);
        tcase_add_loop_test(tc, test_descriptor_zero, 0, 2);
        tcase_add_loop_test(tc, test_new_without_stdio, 0, 2);
        tcase_add_loop_test(tc, test_root_is_slash, 0, 2);
        tcase_add_loop_test(tc, test_names_at_the_edges, 0, 2);
        tcase_add_loop_test(tc, test_grep, 0, 2);
        tcase_add_loop_test(tc, test_grep_fast_paths_exact, 0, 2);
        tcase_add_loop_test(tc, test_walk_limits, 0, 2);
        tcase_add_loop_test(tc, test_resolution_matches_kernel, 0, 2);
        tcase_add_loop_test(tc, test_eacces, 0, 2);
        tcase_add_loop_test(tc, test_raw_paths_confined, 0, 2);
        tcase_add_loop_test(tc, test_planted_temp_name, 0, 2);
        tcase_add_loop_test(tc, test_edit_through_symlinks, 0, 2);
        tcase_add_test(tc, test_options_reach_the_child);
        suite_add_tcase(s, tc);
        suite_add_tcase(s, contract_tcase(targets, sizeof(targets) / sizeof(targets[0])));
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
