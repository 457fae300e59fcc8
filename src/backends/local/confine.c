/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2): confinement and opening targets.
 *
 * Confinement. Every path is made relative to a descriptor of the root and opened with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS): the kernel never
 * follows a symlink for us, never resolves `..` above the root and never crosses a magic
 * link. Where openat2 is missing, a component-by-component walk with O_NOFOLLOW gives the
 * same guarantees (paths are normalised first, so no `..` is left to resolve).
 *
 * Symlinks. When the host lets symlinks be followed (the default) and the request does not
 * carry WARDER_NOFOLLOW, an open that meets a symlink is retried on the path's real form,
 * computed by our own walk (realpath below: readlink component by component from the root,
 * a link that leaves the root is WARDER_EOUTSIDE) and opened again without following. So
 * symlinks are only ever resolved in one place, under the same rules as realpath, and the
 * guard, which forwards real forms with WARDER_NOFOLLOW, opens exactly what it checked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend-internal.h"
#include "backends/creds.h"
#include "grep/engine.h"
#include "confine.h"
#include "util.h"
#include "warder/glob.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* ---- messages ----------------------------------------------------------------------- */

/* A path made safe for a one-line message: control bytes become '?', long ones are cut. */
const char *warder__local_shown(const char *s, char tmp[static 256])
{
        size_t i = 0;
        for (; s[i] && i < 250; i++) {
                unsigned char c = (unsigned char)s[i];
                tmp[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        }
        if (s[i]) {
                memcpy(tmp + i, "...", 3);
                i += 3;
        }
        tmp[i] = '\0';
        return tmp;
}

static int status_of_errno(int e)
{
        switch (e) {
        case ENOENT:
                return WARDER_ENOENT;
        case ELOOP:
                return WARDER_ESYMLINK;
        case EXDEV:
                return WARDER_EOUTSIDE;
        case EACCES:
        case EPERM:
        case EROFS:
                return WARDER_EACCES;
        case ENOTDIR:
                return WARDER_ENOTDIR;
        case EISDIR:
                return WARDER_EISDIR;
        case ENOMEM:
                return WARDER_ENOMEM;
        case EEXIST:
                return WARDER_EEXIST;
        case ENXIO:
        case ENODEV:
        case ETXTBSY:
                return WARDER_ENOTREG;
        case ENAMETOOLONG:
                return WARDER_EINVAL;
        default:
                return WARDER_EIO;
        }
}

/* Sets err from an errno value met while doing `what` on `path`; returns the status. */
int warder__local_fail_errno(struct warder_error *err, int e, const char *what, const char *path)
{
        char tmp[256];
        int code = status_of_errno(e);
        const char *why = strerror(e);
        if (e == ELOOP)
                why = "symbolic link refused";
        else if (e == EXDEV)
                why = "outside the root";
        return warder_error_set(err, code, "%s '%s': %s", what, warder__local_shown(path, tmp),
                                why);
}

int warder__local_fail_oom(struct warder_error *err)
{
        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
}

/* ---- paths ------------------------------------------------------------------------- */

/* If `abs` (normalised, `len` bytes) is the root or below it, sets *rel to the part below
 * ("." for the root itself) and returns true. Accepts the host's real path of the root too. */
static bool strip_root(const struct local *l, const char *abs, size_t len, const char **rel)
{
        const char *roots[2] = {l->root, l->host_root};
        size_t lens[2] = {l->root_len, l->host_root_len};
        for (int i = 0; i < 2; i++) {
                const char *r = roots[i];
                size_t n = lens[i];
                if (!r)
                        continue;
                if (n == 1) { /* the root is "/" */
                        *rel = len == 1 ? "." : abs + 1;
                        return true;
                }
                if (len < n || memcmp(abs, r, n) != 0)
                        continue;
                if (len == n) {
                        *rel = ".";
                        return true;
                }
                if (abs[n] == '/') {
                        *rel = abs + n + 1;
                        return true;
                }
        }
        return false;
}

/*
 * Normalises the absolute host path `path` into `norm` and points *rel into it (the part
 * below the root, "." for the root). WARDER_EOUTSIDE when it is not under the root.
 */
int warder__local_to_rel(struct local *l, const char *path, struct warder__buf *norm,
                         const char **rel, struct warder_error *err)
{
        char tmp[256];
        if (!path || path[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "not an absolute path: '%s'",
                                        path ? warder__local_shown(path, tmp) : "(null)");
        int rc = warder__path_normalize_buf(norm, NULL, NULL, NULL, path, strlen(path), err);
        if (rc)
                return rc;
        if (!strip_root(l, norm->data, norm->len, rel))
                return warder_error_set(err, WARDER_EOUTSIDE, "'%s' is outside the root '%s'",
                                        warder__local_shown(norm->data, tmp), l->root);
        return 0;
}

/* Appends the absolute form of `rel` (relative to the root) to `out`. */
int warder__local_abs_of(const struct local *l, const char *rel, struct warder__buf *out)
{
        if (strcmp(rel, ".") == 0)
                return warder__buf_append(out, l->root, l->root_len);
        int rc = 0;
        if (l->root_len > 1)
                rc = warder__buf_append(out, l->root, l->root_len);
        if (!rc)
                rc = warder__buf_putc(out, '/');
        if (!rc)
                rc = warder__buf_puts(out, rel);
        return rc;
}

/* ---- kernel-confined open ----------------------------------------------------------- */

long warder__local_sys_openat2(int dfd, const char *path, struct open_how *how)
{
        return warder__as_openat2(dfd, path, how);
}

/*
 * Fallback: walk `rel` one component at a time from the root with O_NOFOLLOW. Intermediate
 * components must be real directories (a symlink is ELOOP, anything else ENOTDIR). Paths
 * are normalised before they get here; a `..` that got here anyway is refused (EXDEV) as
 * RESOLVE_BENEATH would refuse one that climbs above the root.
 */
static int walk_open(const struct local *l, const char *rel, int oflags, mode_t mode)
{
        oflags |= O_CLOEXEC;
        if (strcmp(rel, ".") == 0) {
                int fd = warder__as_openat(l->root_fd, ".", oflags, mode);
                return fd >= 0 ? fd : -errno;
        }
        int dfd = l->root_fd;
        const char *p = rel;
        char comp[NAME_MAX + 1];
        for (;;) {
                const char *slash = strchr(p, '/');
                size_t n = slash ? (size_t)(slash - p) : strlen(p);
                if (n > NAME_MAX) {
                        if (dfd != l->root_fd)
                                close(dfd);
                        return -ENAMETOOLONG;
                }
                memcpy(comp, p, n);
                comp[n] = '\0';
                if (n == 2 && comp[0] == '.' && comp[1] == '.') {
                        if (dfd != l->root_fd)
                                close(dfd);
                        return -EXDEV;
                }
                if (!slash) {
                        int fd = warder__as_openat(dfd, comp, oflags | O_NOFOLLOW, mode);
                        int e = errno;
                        if (fd >= 0 && (oflags & O_PATH)) {
                                /* O_PATH | O_NOFOLLOW opens a symlink itself: refuse it, and
                                 * refuse what cannot be told apart from one. */
                                struct stat st;
                                bool lnk = true;
                                if (fstat(fd, &st) != 0)
                                        e = errno;
                                else if (!(lnk = S_ISLNK(st.st_mode)))
                                        e = 0;
                                else
                                        e = ELOOP;
                                if (lnk) {
                                        close(fd);
                                        fd = -1;
                                }
                        } else if (fd < 0 && e == ENOTDIR && (oflags & O_DIRECTORY)) {
                                struct stat st;
                                if (warder__as_fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                                    S_ISLNK(st.st_mode))
                                        e = ELOOP;
                        }
                        if (dfd != l->root_fd)
                                close(dfd);
                        return fd >= 0 ? fd : -e;
                }
                int fd = warder__as_openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
                int e = errno;
                if (fd >= 0) {
                        struct stat st;
                        if (fstat(fd, &st) != 0) {
                                e = errno;
                                close(fd);
                                fd = -1;
                        } else if (!S_ISDIR(st.st_mode)) {
                                e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
                                close(fd);
                                fd = -1;
                        }
                }
                if (dfd != l->root_fd)
                        close(dfd);
                if (fd < 0)
                        return -e;
                dfd = fd;
                p = slash + 1;
        }
}

/* Opens `rel` beneath the root without following any symlink. Returns fd or -errno. With
 * `same_fs`, a path that leaves the root's file system (a mount point) is -EXDEV. */
static int kopen_x(const struct local *l, const char *rel, int oflags, mode_t mode, bool same_fs)
{
        if (!l->use_openat2) {
                if (same_fs)
                        return -EXDEV; /* the walk cannot tell: the callers look closer */
                return walk_open(l, rel, oflags, mode);
        }
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = (uint64_t)(oflags | O_CLOEXEC);
        how.mode = (oflags & O_CREAT) ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
        if (same_fs)
                how.resolve |= RESOLVE_NO_XDEV;
        for (int tries = 0;; tries++) {
                long fd = warder__local_sys_openat2(l->root_fd, rel, &how);
                if (fd >= 0)
                        return (int)fd;
                /* EAGAIN: a concurrent rename raced the resolution; try again a few times. */
                if (errno != EAGAIN || tries >= 16)
                        return -errno;
        }
}

int warder__local_kopen(const struct local *l, const char *rel, int oflags, mode_t mode)
{
        return kopen_x(l, rel, oflags, mode, false);
}

/* ---- realpath (our own, confined walk) ------------------------------------------------ */

struct fdstack {
        int *fds;
        size_t len, cap;
};

static void fdstack_reset(struct fdstack *s)
{
        for (size_t i = 0; i < s->len; i++)
                close(s->fds[i]);
        s->len = 0;
}

static int fdstack_push(struct fdstack *s, int fd)
{
        if (s->len == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                int *n = realloc(s->fds, cap * sizeof(*n));
                if (!n)
                        return WARDER_ENOMEM;
                s->fds = n;
                s->cap = cap;
        }
        s->fds[s->len++] = fd;
        return 0;
}

/* Drops the last component of the relative path in `b` ("" is the root). */
static void pop_component(struct warder__buf *b)
{
        char *slash = b->len ? memrchr(b->data, '/', b->len) : NULL;
        warder__buf_truncate(b, slash ? (size_t)(slash - b->data) : 0);
}

static int push_component(struct warder__buf *b, const char *c, size_t n)
{
        int rc = 0;
        if (b->len)
                rc = warder__buf_putc(b, '/');
        if (!rc)
                rc = warder__buf_append(b, c, n);
        return rc;
}

/* The next component of the absolute path t[*i..len), skipping empty and `.` components;
 * false at the end. */
static bool next_component(const char *t, size_t len, size_t *i, const char **c, size_t *n)
{
        while (*i < len) {
                while (*i < len && t[*i] == '/')
                        (*i)++;
                size_t start = *i;
                while (*i < len && t[*i] != '/')
                        (*i)++;
                if (*i - start == 0 || (*i - start == 1 && t[start] == '.'))
                        continue;
                *c = t + start;
                *n = *i - start;
                return true;
        }
        return false;
}

/* True when the absolute link target t (`len` bytes) starts with the root's components (as
 * given, or its real path on the host); *rest is where the part below the root begins. A
 * `..` before the root is complete counts as leaving it. */
static bool abs_under_root(const struct local *l, const char *t, size_t len, size_t *rest)
{
        const char *roots[2] = {l->root, l->host_root};
        for (int k = 0; k < 2; k++) {
                const char *r = roots[k];
                if (!r)
                        continue;
                size_t rl = strlen(r), ri = 0, ti = 0;
                const char *rc, *tc;
                size_t rn, tn;
                bool ok = true;
                while (next_component(r, rl, &ri, &rc, &rn)) {
                        if (!next_component(t, len, &ti, &tc, &tn) || tn != rn ||
                            memcmp(tc, rc, rn) != 0) {
                                ok = false;
                                break;
                        }
                }
                if (ok) {
                        *rest = ti;
                        return true;
                }
        }
        return false;
}

/* ---- case-insensitive directories (§3.2) ------------------------------------------------- */

#ifndef FS_IOC_GETFLAGS
#define FS_IOC_GETFLAGS _IOR('f', 1, long)
#endif
#define WARDER__FS_CASEFOLD_FL 0x40000000

/* Whether the running kernel can fold case on `fs` at all (its sysfs feature file). */
static bool kernel_casefolds(const char *fs)
{
        char path[64];
        snprintf(path, sizeof(path), "/sys/fs/%s/features/casefold", fs);
        return access(path, F_OK) == 0;
}

enum fold_class warder__local_fold_class(unsigned long type)
{
        static int ext4 = -1, f2fs = -1, tmpfs = -1; /* cached kernel features */
        switch (type) {
        case 0x4d44:     /* vfat, msdos */
        case 0x2011BAB0: /* exfat */
        case 0x5346544e: /* ntfs */
        case 0x7366746e: /* ntfs3 */
        case 0xFF534D42: /* cifs */
        case 0xFE534D42: /* smb2 */
        case 0x517B:     /* smb */
        case 0x482b:     /* hfsplus */
        case 0x4244:     /* hfs */
                return FOLD_ALWAYS;
        case 0xEF53: /* ext2/3/4 */
                if (ext4 < 0)
                        ext4 = kernel_casefolds("ext4");
                return ext4 ? FOLD_FLAG : FOLD_NEVER;
        case 0xF2F52010: /* f2fs */
                if (f2fs < 0)
                        f2fs = kernel_casefolds("f2fs");
                return f2fs ? FOLD_FLAG : FOLD_NEVER;
        case 0x01021994: /* tmpfs */
                if (tmpfs < 0)
                        tmpfs = kernel_casefolds("tmpfs");
                return tmpfs ? FOLD_FLAG : FOLD_NEVER;
        case 0xca451a4e: /* bcachefs */
                return FOLD_FLAG;
        case 0x58465342: /* xfs */
        case 0x9123683E: /* btrfs */
        case 0x9fa0:     /* proc */
        case 0x62656572: /* sysfs */
        case 0x1cd1:     /* devpts */
        case 0x858458f6: /* ramfs */
        case 0x73717368: /* squashfs */
        case 0x64626720: /* debugfs */
        case 0x27e0eb:   /* cgroup */
        case 0x63677270: /* cgroup2 */
                return FOLD_NEVER;
        default:
                return FOLD_PROBE;
        }
}

/* ASCII case of every letter flipped; false when `name` has no ASCII letter. */
static bool flip_case(const char *name, char out[static NAME_MAX + 1])
{
        bool letters = false;
        size_t i = 0;
        for (; name[i] && i < NAME_MAX; i++) {
                char ch = name[i];
                if (ch >= 'a' && ch <= 'z') {
                        ch = (char)(ch - 32);
                        letters = true;
                } else if (ch >= 'A' && ch <= 'Z') {
                        ch = (char)(ch + 32);
                        letters = true;
                }
                out[i] = ch;
        }
        out[i] = '\0';
        return letters;
}

/*
 * Whether the directory `dfd` folds the case of names (`name`, which exists there as
 * `child`, is what a probe looks up). Any doubt answers yes: the caller then looks up the
 * stored name, which costs time but never decides on a wrong spelling.
 */
static bool dir_folds(int dfd, const char *name, const struct stat *child)
{
        struct statfs sf;
        if (fstatfs(dfd, &sf) != 0)
                return true;
        switch (warder__local_fold_class((unsigned long)sf.f_type)) {
        case FOLD_NEVER:
                return false;
        case FOLD_ALWAYS:
                return true;
        case FOLD_FLAG: {
                int fd = warder__as_openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
                unsigned flags = 0;
                bool ok = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
                if (fd >= 0)
                        close(fd);
                return !ok || (flags & WARDER__FS_CASEFOLD_FL);
        }
        case FOLD_PROBE:
                break;
        }
        char flipped[NAME_MAX + 1];
        if (!flip_case(name, flipped))
                return true; /* nothing to probe with (no ASCII letter) */
        struct stat st;
        if (warder__as_fstatat(dfd, flipped, &st, AT_SYMLINK_NOFOLLOW) != 0)
                return errno != ENOENT;
        return st.st_dev == child->st_dev && st.st_ino == child->st_ino;
}

/*
 * The name under which `child` (opened as `name`) is stored in the directory `dfd`, into
 * `out`: `name` itself when the directory holds that exact name, else the entry with the
 * same inode. 0 on success, or a negative errno (nothing found: the caller cannot tell how
 * the file is spelled, and fails closed).
 */
static int stored_name(int dfd, const char *name, const struct stat *child,
                       char out[static NAME_MAX + 1])
{
        int fd = warder__as_openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        bool exact = false, found = false;
        struct dirent *de;
        for (int pass = 0; pass < 2 && !exact && !found; pass++) {
                /* First by the inode readdir reports; then, for file systems whose readdir
                 * numbers differ from stat's, by stat'ing every entry. */
                rewinddir(d);
                while ((de = readdir(d))) {
                        if (strcmp(de->d_name, name) == 0) {
                                exact = true;
                                break;
                        }
                        if (found || (pass == 0 && de->d_ino != child->st_ino))
                                continue;
                        struct stat st;
                        if (warder__as_fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
                                0 &&
                            st.st_dev == child->st_dev && st.st_ino == child->st_ino) {
                                snprintf(out, NAME_MAX + 1, "%s", de->d_name);
                                found = true;
                        }
                }
        }
        closedir(d);
        if (exact)
                snprintf(out, NAME_MAX + 1, "%s", name);
        return exact || found ? 0 : -ENOENT;
}

/*
 * Whether every existing component of `rel` is spelled as stored: what a read that is not
 * to follow anything (WARDER_NOFOLLOW) requires, so that `.ENV` on a folding directory is not
 * taken for its own real form. A missing component ends the check (nothing is stored).
 */
static bool spelled_as_stored(const struct local *l, const char *rel)
{
        if (strcmp(rel, ".") == 0)
                return true;
        int dfd = l->root_fd;
        const char *p = rel;
        bool ok = true;
        while (ok) {
                const char *slash = strchr(p, '/');
                size_t n = slash ? (size_t)(slash - p) : strlen(p);
                char name[NAME_MAX + 1], stored[NAME_MAX + 1];
                if (n > NAME_MAX) {
                        ok = false;
                        break;
                }
                memcpy(name, p, n);
                name[n] = '\0';
                int fd = warder__as_openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) != 0) {
                        if (fd >= 0)
                                close(fd);
                        break;
                }
                if (dir_folds(dfd, name, &st))
                        ok = stored_name(dfd, name, &st, stored) == 0 && strcmp(stored, name) == 0;
                if (dfd != l->root_fd)
                        close(dfd);
                dfd = fd;
                if (!slash || !S_ISDIR(st.st_mode))
                        break;
                p = slash + 1;
        }
        if (dfd != l->root_fd)
                close(dfd);
        return ok;
}

/*
 * Resolves every symlink of `rel` inside the root (§3.2) into `out` (relative, "." for the
 * root). A missing tail is appended lexically after the longest existing prefix. A link
 * that leaves the root is WARDER_EOUTSIDE; more than LOCAL_MAX_HOPS links WARDER_ESYMLINK.
 * `shown_path` is used in messages.
 */
int warder__local_real_rel(const struct local *l, const char *rel, struct warder__buf *out,
                           const char *shown_path, struct warder_error *err)
{
        char tmp[256];
        warder__buf_truncate(out, 0);
        /* Fast path: the whole path exists, contains no symlink and stays on the root's file
         * system, which never folds case: it is its own real form. */
        int fd = l->plain ? kopen_x(l, rel, O_PATH, 0, true) : -EXDEV;
        if (fd >= 0) {
                close(fd);
                return warder__buf_puts(out, rel) ? warder__local_fail_oom(err) : 0;
        }
        struct warder__buf todo = WARDER__BUF_INIT, next = WARDER__BUF_INIT, res = WARDER__BUF_INIT;
        struct fdstack st = {NULL, 0, 0};
        char *link = NULL;
        int rc = 0, hops = 0;
        bool missing = false; /* the rest is lexical: `why` says what was missing */
        int why = 0;
        size_t depth = 0; /* components in res; the first st.len of them are open in st */
        if (strcmp(rel, ".") != 0 && warder__buf_puts(&todo, rel)) {
                rc = warder__local_fail_oom(err);
                goto out;
        }
        link = malloc(PATH_MAX + 1);
        if (!link) {
                rc = warder__local_fail_oom(err);
                goto out;
        }
        size_t pos = 0;
        while (pos < todo.len) {
                const char *c = todo.data + pos;
                const char *slash = memchr(c, '/', todo.len - pos);
                size_t n = slash ? (size_t)(slash - c) : todo.len - pos;
                size_t after = slash ? pos + n + 1 : todo.len;
                if (n == 0 || (n == 1 && c[0] == '.')) {
                        pos = after;
                        continue;
                }
                if (n == 2 && c[0] == '.' && c[1] == '.') {
                        if (depth == 0) {
                                rc = warder_error_set(
                                    err, WARDER_EOUTSIDE, "'%s' resolves outside the root '%s'",
                                    warder__local_shown(shown_path, tmp), l->root);
                                goto out;
                        }
                        if (missing) {
                                /* `..` below a missing directory or a file (from a link's
                                 * target): the kernel cannot resolve it, nor do we. */
                                rc = warder__local_fail_errno(err, why, "cannot resolve",
                                                              shown_path);
                                goto out;
                        }
                        pop_component(&res);
                        depth--;
                        close(st.fds[st.len - 1]);
                        st.len--;
                        pos = after;
                        continue;
                }
                if (n > NAME_MAX) {
                        rc = warder_error_set(err, WARDER_EINVAL, "a component of '%s' is too long",
                                              warder__local_shown(shown_path, tmp));
                        goto out;
                }
                if (missing) {
                        if (push_component(&res, c, n)) {
                                rc = warder__local_fail_oom(err);
                                goto out;
                        }
                        depth++;
                        pos = after;
                        continue;
                }
                char name[NAME_MAX + 1];
                memcpy(name, c, n);
                name[n] = '\0';
                int dfd = st.len ? st.fds[st.len - 1] : l->root_fd;
                int cfd = warder__as_openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
                struct stat sb;
                if (cfd < 0 || fstat(cfd, &sb) != 0) {
                        int e = errno;
                        if (cfd >= 0)
                                close(cfd);
                        if (e == ENOENT) {
                                missing = true;
                                why = ENOENT;
                                continue; /* the same component, now appended lexically */
                        }
                        rc = warder__local_fail_errno(err, e, "cannot resolve", shown_path);
                        goto out;
                }
                if (S_ISLNK(sb.st_mode)) {
                        ssize_t len = warder__as_readlinkat(cfd, "", link, PATH_MAX);
                        int e = errno;
                        close(cfd);
                        if (len < 0) {
                                rc = warder__local_fail_errno(err, e, "cannot read link in",
                                                              shown_path);
                                goto out;
                        }
                        if (++hops > LOCAL_MAX_HOPS) {
                                rc = warder_error_set(err, WARDER_ESYMLINK,
                                                      "'%s': too many levels of symbolic links",
                                                      warder__local_shown(shown_path, tmp));
                                goto out;
                        }
                        if (len == 0 || memchr(link, '\0', (size_t)len)) {
                                rc = warder_error_set(err, WARDER_ENOENT,
                                                      "'%s': empty symbolic link",
                                                      warder__local_shown(shown_path, tmp));
                                goto out;
                        }
                        warder__buf_truncate(&next, 0);
                        if (link[0] == '/') {
                                /* Absolute: it must name the root before anything else;
                                 * resolution restarts there and goes on like a relative
                                 * target (a `..` after the root is resolved, not lexical). */
                                size_t rest;
                                if (!abs_under_root(l, link, (size_t)len, &rest)) {
                                        rc = warder_error_set(err, WARDER_EOUTSIDE,
                                                              "'%s' resolves outside the root '%s' "
                                                              "through a symbolic link",
                                                              warder__local_shown(shown_path, tmp),
                                                              l->root);
                                        goto out;
                                }
                                if (warder__buf_append(&next, link + rest, (size_t)len - rest)) {
                                        rc = warder__local_fail_oom(err);
                                        goto out;
                                }
                                warder__buf_truncate(&res, 0);
                                fdstack_reset(&st);
                                depth = 0;
                                missing = false;
                        } else if (warder__buf_append(&next, link, (size_t)len)) {
                                rc = warder__local_fail_oom(err);
                                goto out;
                        }
                        if (after < todo.len &&
                            (warder__buf_putc(&next, '/') ||
                             warder__buf_append(&next, todo.data + after, todo.len - after))) {
                                rc = warder__local_fail_oom(err);
                                goto out;
                        }
                        struct warder__buf swap = todo;
                        todo = next;
                        next = swap;
                        pos = 0;
                        continue;
                }
                /* On a directory that folds case, the component as it is stored (§3.2). */
                char stored[NAME_MAX + 1];
                if (dir_folds(dfd, name, &sb)) {
                        int e = stored_name(dfd, name, &sb, stored);
                        if (e) {
                                close(cfd);
                                rc = warder_error_set(err, WARDER_EIO,
                                                      "cannot tell how '%s' is stored in its "
                                                      "case-insensitive directory",
                                                      warder__local_shown(shown_path, tmp));
                                goto out;
                        }
                        c = stored;
                        n = strlen(stored);
                }
                if (push_component(&res, c, n)) {
                        close(cfd);
                        rc = warder__local_fail_oom(err);
                        goto out;
                }
                depth++;
                if (S_ISDIR(sb.st_mode)) {
                        if (fdstack_push(&st, cfd)) {
                                close(cfd);
                                rc = warder__local_fail_oom(err);
                                goto out;
                        }
                } else {
                        close(cfd);
                        missing = true; /* a non-directory: the rest is lexical */
                        why = ENOTDIR;
                }
                pos = after;
        }
        if (res.len == 0)
                rc = warder__buf_puts(out, ".");
        else
                rc = warder__buf_append(out, res.data, res.len);
        if (rc)
                rc = warder__local_fail_oom(err);
out:
        fdstack_reset(&st);
        free(st.fds);
        free(link);
        warder__buf_free(&todo);
        warder__buf_free(&next);
        warder__buf_free(&res);
        return rc;
}

bool warder__local_follows(const struct local *l, unsigned flags)
{
        return l->opts.follow_symlinks && !(flags & WARDER_NOFOLLOW);
}

/*
 * Opens `rel` with `oflags`. When symlinks may be followed and the open met one, the path's
 * real form (real_rel) is opened instead, again without following. `resolved` (may be NULL)
 * receives the relative path actually opened. Returns an fd or a negative status.
 */
int warder__local_open_target(const struct local *l, const char *rel, unsigned flags, int oflags,
                              struct warder__buf *resolved, const char *shown_path,
                              const char *what, struct warder_error *err)
{
        int fd;
        if (flags & WARDER_NOFOLLOW) {
                /* Nothing is followed, and nothing is taken for its own real form unless it is
                 * spelled as stored: on a directory that folds case, `.ENV` is not `.env`'s real
                 * form (§3.2) and is refused like a symlink (the guard then resolves it). */
                fd = l->plain ? kopen_x(l, rel, oflags, 0, true) : -EXDEV;
                if (fd == -EXDEV) {
                        fd = warder__local_kopen(l, rel, oflags, 0);
                        if (fd >= 0 && !spelled_as_stored(l, rel)) {
                                char tmp[256];
                                close(fd);
                                return warder_error_set(err, WARDER_ESYMLINK,
                                                        "%s '%s': not spelled as stored (a "
                                                        "case-insensitive directory)",
                                                        what, warder__local_shown(shown_path, tmp));
                        }
                }
                if (fd < 0)
                        return warder__local_fail_errno(err, -fd, what, shown_path);
                if (resolved) {
                        warder__buf_truncate(resolved, 0);
                        if (warder__buf_puts(resolved, rel)) {
                                close(fd);
                                return warder__local_fail_oom(err);
                        }
                }
                return fd;
        }
        fd = warder__local_kopen(l, rel, oflags, 0);
        if (fd == -ELOOP && warder__local_follows(l, flags)) {
                struct warder__buf real = WARDER__BUF_INIT;
                for (int tries = 0; tries < 4 && fd == -ELOOP; tries++) {
                        int rc = warder__local_real_rel(l, rel, &real, shown_path, err);
                        if (rc) {
                                warder__buf_free(&real);
                                return rc;
                        }
                        fd = warder__local_kopen(l, real.data, oflags, 0);
                }
                if (fd >= 0 && resolved) {
                        warder__buf_truncate(resolved, 0);
                        if (warder__buf_append(resolved, real.data, real.len)) {
                                close(fd);
                                fd = -ENOMEM;
                        }
                }
                warder__buf_free(&real);
        } else if (fd >= 0 && resolved) {
                warder__buf_truncate(resolved, 0);
                if (warder__buf_puts(resolved, rel)) {
                        close(fd);
                        fd = -ENOMEM;
                }
        }
        if (fd < 0)
                return warder__local_fail_errno(err, -fd, what, shown_path);
        return fd;
}

/* ---- read ------------------------------------------------------------------------- */

/* Reads up to `want` bytes at `offset` into buf; returns bytes read or -errno. */
ssize_t warder__local_read_full(int fd, char *buf, size_t want, uint64_t offset)
{
        size_t got = 0;
        while (got < want) {
                ssize_t r = pread(fd, buf + got, want - got, (off_t)(offset + got));
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (r == 0)
                        break;
                got += (size_t)r;
        }
        return (ssize_t)got;
}

/* Checks that fd is a regular file; fills *st. */
static int check_regular(int fd, struct stat *st, const char *shown_path, struct warder_error *err)
{
        char tmp[256];
        if (fstat(fd, st) != 0)
                return warder__local_fail_errno(err, errno, "cannot stat", shown_path);
        if (S_ISDIR(st->st_mode))
                return warder_error_set(err, WARDER_EISDIR, "'%s' is a directory",
                                        warder__local_shown(shown_path, tmp));
        if (!S_ISREG(st->st_mode))
                return warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                        warder__local_shown(shown_path, tmp));
        return 0;
}

/*
 * Reads the regular file at `rel` (capped at `cap`, WARDER_ETOOBIG beyond) into a malloc'd
 * buffer (NUL-terminated). `limit` 0 means to the end. *more tells whether bytes follow.
 */
int warder__local_read_rel(const struct local *l, const char *rel, unsigned flags, uint64_t offset,
                           uint64_t limit, uint64_t cap, const char *shown_path, char **data,
                           size_t *len, bool *more, struct warder_error *err)
{
        char tmp[256];
        int fd = warder__local_open_target(l, rel, flags, O_RDONLY | O_NONBLOCK | O_NOCTTY, NULL,
                                           shown_path, "cannot open", err);
        if (fd < 0)
                return fd;
        struct stat st;
        int rc = check_regular(fd, &st, shown_path, err);
        if (rc) {
                close(fd);
                return rc;
        }
        uint64_t size = (uint64_t)st.st_size;
        uint64_t avail = offset >= size ? 0 : size - offset;
        uint64_t want = limit ? (limit < avail ? limit : avail) : avail;
        /* A file whose size says nothing (some pseudo files) is read to its end, capped. */
        bool unsized = size == 0;
        if (unsized)
                want = limit ? limit : cap + 1;
        if (want > cap) {
                if (!unsized) {
                        close(fd);
                        return warder_error_set(err, WARDER_ETOOBIG,
                                                "'%s' is too large: %llu bytes, the cap is %llu",
                                                warder__local_shown(shown_path, tmp),
                                                (unsigned long long)want, (unsigned long long)cap);
                }
                want = cap + 1;
        }
        char *buf = malloc((size_t)want + 1);
        if (!buf) {
                close(fd);
                return warder__local_fail_oom(err);
        }
        ssize_t got = warder__local_read_full(fd, buf, (size_t)want, offset);
        if (got < 0) {
                int e = (int)-got;
                free(buf);
                close(fd);
                if (e == EAGAIN)
                        return warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                                warder__local_shown(shown_path, tmp));
                return warder__local_fail_errno(err, e, "cannot read", shown_path);
        }
        close(fd);
        if ((uint64_t)got > cap) {
                free(buf);
                return warder_error_set(
                    err, WARDER_ETOOBIG, "'%s' is larger than the cap of %llu bytes",
                    warder__local_shown(shown_path, tmp), (unsigned long long)cap);
        }
        if ((uint64_t)got < want) {
                /* a short read (a file that shrank, an unsized one): give back the rest */
                char *fit = realloc(buf, (size_t)got + 1);
                if (fit)
                        buf = fit;
        }
        buf[got] = '\0';
        *data = buf;
        *len = (size_t)got;
        *more = !unsized && offset + (uint64_t)got < size;
        return 0;
}

uint64_t warder__local_cap_or(uint64_t v, uint64_t def)
{
        return v ? v : def;
}

int warder__local_open_in(struct local *l, const char *path, int *fd_out, struct warder_error *err)
{
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
        if (!rc) {
                int fd = warder__local_open_target(l, rel, 0, O_PATH | O_DIRECTORY, NULL, norm.data,
                                                   "cannot open the directory", err);
                if (fd < 0)
                        rc = fd;
                else
                        *fd_out = fd;
        }
        warder__buf_free(&norm);
        return rc;
}
