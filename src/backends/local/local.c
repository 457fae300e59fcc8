/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2): a real directory tree confined to a root by the kernel.
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
#include "local-internal.h"
#include "util.h"
#include "warder/glob.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define LOCAL_MAX_HOPS        40 /* symlinks followed while resolving one path */
#define LOCAL_MAX_DEPTH       WARDER__WALK_MAX_DEPTH   /* depth of a glob or grep walk */
#define LOCAL_MAX_VISITS      WARDER__WALK_MAX_ENTRIES /* entries a walk may visit */
#define LOCAL_DEFAULT_CAP     (16u << 20)              /* 16 MiB */
#define LOCAL_DEFAULT_MATCHES 10000

struct local {
        struct warder_backend base;
        int root_fd;
        char *root; /* normalised */
        size_t root_len;
        char *host_root; /* realpath(3) of the root when it differs, else NULL */
        size_t host_root_len;
        bool use_openat2;
        bool plain; /* the root's file system never folds case (see fold_class) */
        dev_t root_dev;
        struct warder_local_options opts; /* private deep copy */
        char **exec_env;
        char **landlock_read;
        char **landlock_write;
        /* Acting as the agent (§6.6): the credentials of every file operation, else NULL. */
        struct warder__creds agent;
        const struct warder__creds *as;
        uint32_t *agent_groups;
};

static const struct warder_backend_ops local_ops;
static const struct warder_backend_ops local_exec_ops;

static struct local *to_local(warder_backend *b)
{
        return (struct local *)b;
}

/* ---- messages ----------------------------------------------------------------------- */

/* A path made safe for a one-line message: control bytes become '?', long ones are cut. */
static const char *shown(const char *s, char tmp[static 256])
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
static int fail_errno(struct warder_error *err, int e, const char *what, const char *path)
{
        char tmp[256];
        int code = status_of_errno(e);
        const char *why = strerror(e);
        if (e == ELOOP)
                why = "symbolic link refused";
        else if (e == EXDEV)
                why = "outside the root";
        return warder_error_set(err, code, "%s '%s': %s", what, shown(path, tmp), why);
}

static int fail_oom(struct warder_error *err)
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
static int to_rel(struct local *l, const char *path, struct warder__buf *norm, const char **rel,
                  struct warder_error *err)
{
        char tmp[256];
        if (!path || path[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "not an absolute path: '%s'",
                                        path ? shown(path, tmp) : "(null)");
        int rc = warder__path_normalize_buf(norm, NULL, NULL, NULL, path, strlen(path), err);
        if (rc)
                return rc;
        if (!strip_root(l, norm->data, norm->len, rel))
                return warder_error_set(err, WARDER_EOUTSIDE, "'%s' is outside the root '%s'",
                                        shown(norm->data, tmp), l->root);
        return 0;
}

/* Appends the absolute form of `rel` (relative to the root) to `out`. */
static int abs_of(const struct local *l, const char *rel, struct warder__buf *out)
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

static long sys_openat2(int dfd, const char *path, struct open_how *how)
{
        return syscall(SYS_openat2, dfd, path, how, sizeof(*how));
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
                int fd = openat(l->root_fd, ".", oflags, mode);
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
                        int fd = openat(dfd, comp, oflags | O_NOFOLLOW, mode);
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
                                if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                                    S_ISLNK(st.st_mode))
                                        e = ELOOP;
                        }
                        if (dfd != l->root_fd)
                                close(dfd);
                        return fd >= 0 ? fd : -e;
                }
                int fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
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
                long fd = sys_openat2(l->root_fd, rel, &how);
                if (fd >= 0)
                        return (int)fd;
                /* EAGAIN: a concurrent rename raced the resolution; try again a few times. */
                if (errno != EAGAIN || tries >= 16)
                        return -errno;
        }
}

static int kopen(const struct local *l, const char *rel, int oflags, mode_t mode)
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

/*
 * On a directory that folds case (vfat, exFAT, NTFS, CIFS, an ext4/f2fs/tmpfs casefold
 * directory, a FUSE or 9p file system that does it), `.ENV` opens `.env` and
 * `server.\u212Aey` (Kelvin sign) opens `server.key`. The real form spells every existing
 * component as it is stored (§3.2), so such a component is looked up in its directory by
 * inode and respelled. How a directory is known to fold, by the file system's type:
 */
enum fold_class {
        FOLD_NEVER,  /* case-sensitive everywhere */
        FOLD_ALWAYS, /* folds everywhere */
        FOLD_FLAG,   /* per directory: the casefold inode flag (FS_IOC_GETFLAGS) */
        FOLD_PROBE,  /* unknown (FUSE, 9p, NFS, overlay, ...): look the name up case-flipped */
};

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

static enum fold_class fold_class(unsigned long type)
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
        switch (fold_class((unsigned long)sf.f_type)) {
        case FOLD_NEVER:
                return false;
        case FOLD_ALWAYS:
                return true;
        case FOLD_FLAG: {
                int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
        if (fstatat(dfd, flipped, &st, AT_SYMLINK_NOFOLLOW) != 0)
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
        int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
                        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
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
                int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
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
static int real_rel(const struct local *l, const char *rel, struct warder__buf *out,
                    const char *shown_path, struct warder_error *err)
{
        char tmp[256];
        warder__buf_truncate(out, 0);
        /* Fast path: the whole path exists, contains no symlink and stays on the root's file
         * system, which never folds case: it is its own real form. */
        int fd = l->plain ? kopen_x(l, rel, O_PATH, 0, true) : -EXDEV;
        if (fd >= 0) {
                close(fd);
                return warder__buf_puts(out, rel) ? fail_oom(err) : 0;
        }
        struct warder__buf todo = WARDER__BUF_INIT, next = WARDER__BUF_INIT, res = WARDER__BUF_INIT;
        struct fdstack st = {NULL, 0, 0};
        char *link = NULL;
        int rc = 0, hops = 0;
        bool missing = false; /* the rest is lexical: `why` says what was missing */
        int why = 0;
        size_t depth = 0; /* components in res; the first st.len of them are open in st */
        if (strcmp(rel, ".") != 0 && warder__buf_puts(&todo, rel)) {
                rc = fail_oom(err);
                goto out;
        }
        link = malloc(PATH_MAX + 1);
        if (!link) {
                rc = fail_oom(err);
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
                                rc = warder_error_set(err, WARDER_EOUTSIDE,
                                                      "'%s' resolves outside the root '%s'",
                                                      shown(shown_path, tmp), l->root);
                                goto out;
                        }
                        if (missing) {
                                /* `..` below a missing directory or a file (from a link's
                                 * target): the kernel cannot resolve it, nor do we. */
                                rc = fail_errno(err, why, "cannot resolve", shown_path);
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
                                              shown(shown_path, tmp));
                        goto out;
                }
                if (missing) {
                        if (push_component(&res, c, n)) {
                                rc = fail_oom(err);
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
                int cfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
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
                        rc = fail_errno(err, e, "cannot resolve", shown_path);
                        goto out;
                }
                if (S_ISLNK(sb.st_mode)) {
                        ssize_t len = readlinkat(cfd, "", link, PATH_MAX);
                        int e = errno;
                        close(cfd);
                        if (len < 0) {
                                rc = fail_errno(err, e, "cannot read link in", shown_path);
                                goto out;
                        }
                        if (++hops > LOCAL_MAX_HOPS) {
                                rc = warder_error_set(err, WARDER_ESYMLINK,
                                                      "'%s': too many levels of symbolic links",
                                                      shown(shown_path, tmp));
                                goto out;
                        }
                        if (len == 0 || memchr(link, '\0', (size_t)len)) {
                                rc = warder_error_set(err, WARDER_ENOENT,
                                                      "'%s': empty symbolic link",
                                                      shown(shown_path, tmp));
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
                                                              shown(shown_path, tmp), l->root);
                                        goto out;
                                }
                                if (warder__buf_append(&next, link + rest, (size_t)len - rest)) {
                                        rc = fail_oom(err);
                                        goto out;
                                }
                                warder__buf_truncate(&res, 0);
                                fdstack_reset(&st);
                                depth = 0;
                                missing = false;
                        } else if (warder__buf_append(&next, link, (size_t)len)) {
                                rc = fail_oom(err);
                                goto out;
                        }
                        if (after < todo.len &&
                            (warder__buf_putc(&next, '/') ||
                             warder__buf_append(&next, todo.data + after, todo.len - after))) {
                                rc = fail_oom(err);
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
                                                      shown(shown_path, tmp));
                                goto out;
                        }
                        c = stored;
                        n = strlen(stored);
                }
                if (push_component(&res, c, n)) {
                        close(cfd);
                        rc = fail_oom(err);
                        goto out;
                }
                depth++;
                if (S_ISDIR(sb.st_mode)) {
                        if (fdstack_push(&st, cfd)) {
                                close(cfd);
                                rc = fail_oom(err);
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
                rc = fail_oom(err);
out:
        fdstack_reset(&st);
        free(st.fds);
        free(link);
        warder__buf_free(&todo);
        warder__buf_free(&next);
        warder__buf_free(&res);
        return rc;
}

static bool follows(const struct local *l, unsigned flags)
{
        return l->opts.follow_symlinks && !(flags & WARDER_NOFOLLOW);
}

/*
 * Opens `rel` with `oflags`. When symlinks may be followed and the open met one, the path's
 * real form (real_rel) is opened instead, again without following. `resolved` (may be NULL)
 * receives the relative path actually opened. Returns an fd or a negative status.
 */
static int open_target(const struct local *l, const char *rel, unsigned flags, int oflags,
                       struct warder__buf *resolved, const char *shown_path, const char *what,
                       struct warder_error *err)
{
        int fd;
        if (flags & WARDER_NOFOLLOW) {
                /* Nothing is followed, and nothing is taken for its own real form unless it is
                 * spelled as stored: on a directory that folds case, `.ENV` is not `.env`'s real
                 * form (§3.2) and is refused like a symlink (the guard then resolves it). */
                fd = l->plain ? kopen_x(l, rel, oflags, 0, true) : -EXDEV;
                if (fd == -EXDEV) {
                        fd = kopen(l, rel, oflags, 0);
                        if (fd >= 0 && !spelled_as_stored(l, rel)) {
                                char tmp[256];
                                close(fd);
                                return warder_error_set(err, WARDER_ESYMLINK,
                                                        "%s '%s': not spelled as stored (a "
                                                        "case-insensitive directory)",
                                                        what, shown(shown_path, tmp));
                        }
                }
                if (fd < 0)
                        return fail_errno(err, -fd, what, shown_path);
                if (resolved) {
                        warder__buf_truncate(resolved, 0);
                        if (warder__buf_puts(resolved, rel)) {
                                close(fd);
                                return fail_oom(err);
                        }
                }
                return fd;
        }
        fd = kopen(l, rel, oflags, 0);
        if (fd == -ELOOP && follows(l, flags)) {
                struct warder__buf real = WARDER__BUF_INIT;
                for (int tries = 0; tries < 4 && fd == -ELOOP; tries++) {
                        int rc = real_rel(l, rel, &real, shown_path, err);
                        if (rc) {
                                warder__buf_free(&real);
                                return rc;
                        }
                        fd = kopen(l, real.data, oflags, 0);
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
                return fail_errno(err, -fd, what, shown_path);
        return fd;
}

/* ---- read ------------------------------------------------------------------------- */

/* Reads up to `want` bytes at `offset` into buf; returns bytes read or -errno. */
static ssize_t read_full(int fd, char *buf, size_t want, uint64_t offset)
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
                return fail_errno(err, errno, "cannot stat", shown_path);
        if (S_ISDIR(st->st_mode))
                return warder_error_set(err, WARDER_EISDIR, "'%s' is a directory",
                                        shown(shown_path, tmp));
        if (!S_ISREG(st->st_mode))
                return warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                        shown(shown_path, tmp));
        return 0;
}

/*
 * Reads the regular file at `rel` (capped at `cap`, WARDER_ETOOBIG beyond) into a malloc'd
 * buffer (NUL-terminated). `limit` 0 means to the end. *more tells whether bytes follow.
 */
static int read_rel(const struct local *l, const char *rel, unsigned flags, uint64_t offset,
                    uint64_t limit, uint64_t cap, const char *shown_path, char **data, size_t *len,
                    bool *more, struct warder_error *err)
{
        char tmp[256];
        int fd = open_target(l, rel, flags, O_RDONLY | O_NONBLOCK | O_NOCTTY, NULL, shown_path,
                             "cannot open", err);
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
                                                shown(shown_path, tmp), (unsigned long long)want,
                                                (unsigned long long)cap);
                }
                want = cap + 1;
        }
        char *buf = malloc((size_t)want + 1);
        if (!buf) {
                close(fd);
                return fail_oom(err);
        }
        ssize_t got = read_full(fd, buf, (size_t)want, offset);
        if (got < 0) {
                int e = (int)-got;
                free(buf);
                close(fd);
                if (e == EAGAIN)
                        return warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                                shown(shown_path, tmp));
                return fail_errno(err, e, "cannot read", shown_path);
        }
        close(fd);
        if ((uint64_t)got > cap) {
                free(buf);
                return warder_error_set(err, WARDER_ETOOBIG,
                                        "'%s' is larger than the cap of %llu bytes",
                                        shown(shown_path, tmp), (unsigned long long)cap);
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

static uint64_t cap_or(uint64_t v, uint64_t def)
{
        return v ? v : def;
}

static int local_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                      unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (rc) {
                warder__buf_free(&norm);
                return rc;
        }
        char *data = NULL;
        size_t len = 0;
        bool more = false;
        rc = read_rel(l, rel, flags, offset, limit, cap_or(l->opts.max_read, LOCAL_DEFAULT_CAP),
                      norm.data, &data, &len, &more, err);
        if (!rc) {
                /* The buffer is NUL-terminated and malloc'd, as warder_bytes_free() expects:
                 * handed over, not copied. */
                struct warder_bytes tmp = WARDER_BYTES_INIT;
                tmp.data = data;
                tmp.len = len;
                tmp.truncated = more;
                *out = tmp;
        }
        warder__buf_free(&norm);
        return rc;
}

/* ---- write and edit ------------------------------------------------------------------- */

/* Splits `rel` (not ".") into its parent directory (relative, "." for the root) and name. */
static int split_rel(const char *rel, struct warder__buf *parent, const char **name)
{
        const char *slash = strrchr(rel, '/');
        warder__buf_truncate(parent, 0);
        if (!slash) {
                *name = rel;
                return warder__buf_puts(parent, ".");
        }
        *name = slash + 1;
        return warder__buf_append(parent, rel, (size_t)(slash - rel));
}

void (*warder__local_temp_name_hook)(char *buf, size_t size);

static int temp_name(char buf[static 40])
{
        if (warder__local_temp_name_hook) {
                warder__local_temp_name_hook(buf, 40);
                return 0;
        }
        unsigned char r[8];
        if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                unsigned long long v = (unsigned long long)ts.tv_nsec ^
                                       ((unsigned long long)getpid() << 32) ^ (uintptr_t)buf;
                memcpy(r, &v, sizeof(r));
        }
        snprintf(buf, 40, ".warder-%02x%02x%02x%02x%02x%02x%02x%02x.tmp", r[0], r[1], r[2], r[3],
                 r[4], r[5], r[6], r[7]);
        return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len) {
                ssize_t w = write(fd, data, len);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                data += w;
                len -= (size_t)w;
        }
        return 0;
}

/*
 * Creates the missing directories of `parent` (relative to the root). Symlinks on the
 * existing part are resolved first when they may be followed (`scratch` holds the real
 * form); the walk itself never follows one.
 */
static int make_parents(const struct local *l, const char *parent, unsigned flags,
                        struct warder__buf *scratch, const char *shown_path,
                        struct warder_error *err)
{
        if (follows(l, flags)) {
                int rc = real_rel(l, parent, scratch, shown_path, err);
                if (rc)
                        return rc;
                parent = scratch->data;
        }
        if (strcmp(parent, ".") == 0)
                return 0;
        int dfd = l->root_fd;
        const char *p = parent;
        char comp[NAME_MAX + 1];
        int rc = 0;
        for (;;) {
                const char *slash = strchr(p, '/');
                size_t n = slash ? (size_t)(slash - p) : strlen(p);
                if (n > NAME_MAX) {
                        rc = fail_errno(err, ENAMETOOLONG, "cannot create the directory of",
                                        shown_path);
                        break;
                }
                memcpy(comp, p, n);
                comp[n] = '\0';
                int fd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT) {
                        if (mkdirat(dfd, comp, 0777) != 0 && errno != EEXIST) {
                                rc = fail_errno(err, errno, "cannot create the directory of",
                                                shown_path);
                                break;
                        }
                        fd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                }
                if (fd < 0) {
                        int e = errno;
                        struct stat st;
                        if (e == ENOTDIR && fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISLNK(st.st_mode))
                                e = ELOOP;
                        rc = fail_errno(err, e, "cannot create the directory of", shown_path);
                        break;
                }
                if (dfd != l->root_fd)
                        close(dfd);
                dfd = fd;
                if (!slash)
                        break;
                p = slash + 1;
        }
        if (dfd != l->root_fd)
                close(dfd);
        return rc;
}

/*
 * Atomically replaces `rel` by `data`: a temporary file created with O_EXCL in the target's
 * directory, written, synced, renamed over the target (a link planted at the destination is
 * replaced, never followed). The mode of an existing target is kept, without its set-user-ID
 * and set-group-ID bits.
 */
static int write_rel(const struct local *l, const char *rel, unsigned flags, const void *data,
                     size_t len, const char *shown_path, struct warder_error *err)
{
        char tmp[256];
        struct warder__buf parent = WARDER__BUF_INIT, real = WARDER__BUF_INIT,
                           cur = WARDER__BUF_INIT;
        int rc = 0, dfd = -1, fd = -1;
        char tname[40];
        bool created = false;
        for (int attempt = 0;; attempt++) {
                const char *name;
                if (strcmp(rel, ".") == 0) {
                        rc = warder_error_set(err, WARDER_EISDIR, "'%s' is a directory",
                                              shown(shown_path, tmp));
                        goto out;
                }
                if (split_rel(rel, &parent, &name)) {
                        rc = fail_oom(err);
                        goto out;
                }
                dfd = open_target(l, parent.data, flags, O_PATH | O_DIRECTORY, NULL, shown_path,
                                  "cannot open the directory of", err);
                if (dfd == WARDER_ENOENT && attempt < 4) {
                        /* Missing parents are created, beneath the root, never through a
                         * symlink (in follow mode: below the parent's real form). */
                        if (err)
                                warder_error_clear(err);
                        rc = make_parents(l, parent.data, flags, &real, shown_path, err);
                        if (rc)
                                goto out;
                        dfd = -1;
                        continue;
                }
                if (dfd < 0) {
                        rc = dfd;
                        dfd = -1;
                        goto out;
                }
                struct stat st;
                mode_t mode = 0;
                bool exists = false;
                if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                        exists = true;
                        if (S_ISLNK(st.st_mode)) {
                                if (!follows(l, flags) || attempt >= 4) {
                                        rc = warder_error_set(err, WARDER_ESYMLINK,
                                                              "'%s': symbolic link refused",
                                                              shown(shown_path, tmp));
                                        goto out;
                                }
                                /* Follow it: write to the link's real form instead. */
                                rc = real_rel(l, rel, &real, shown_path, err);
                                if (rc)
                                        goto out;
                                close(dfd);
                                dfd = -1;
                                struct warder__buf swap = cur;
                                cur = real;
                                real = swap;
                                rel = cur.data;
                                continue;
                        }
                        if (S_ISDIR(st.st_mode)) {
                                rc = warder_error_set(err, WARDER_EISDIR, "'%s' is a directory",
                                                      shown(shown_path, tmp));
                                goto out;
                        }
                        if (!S_ISREG(st.st_mode)) {
                                rc = warder_error_set(err, WARDER_ENOTREG,
                                                      "'%s' is not a regular file",
                                                      shown(shown_path, tmp));
                                goto out;
                        }
                        /* Set-user-ID and set-group-ID never survive a replacement (the
                         * kernel clears them on an ordinary write by an unprivileged user). */
                        mode = st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
                } else if (errno != ENOENT) {
                        rc = fail_errno(err, errno, "cannot stat", shown_path);
                        goto out;
                }
                for (int i = 0; i < 16; i++) {
                        temp_name(tname);
                        /* New files get 0666 minus the umask, as open(2) would give them. */
                        fd =
                            openat(dfd, tname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                   exists ? 0600 : 0666);
                        if (fd >= 0 || errno != EEXIST)
                                break;
                }
                if (fd < 0) {
                        rc = fail_errno(err, errno, "cannot create a temporary file beside",
                                        shown_path);
                        goto out;
                }
                created = true;
                int e = write_all(fd, data, len);
                if (!e && exists && fchmod(fd, mode) != 0)
                        e = -errno;
                if (!e && fsync(fd) != 0)
                        e = -errno;
                if (close(fd) != 0 && !e)
                        e = -errno;
                fd = -1;
                if (e) {
                        rc = fail_errno(err, -e, "cannot write", shown_path);
                        goto out;
                }
                if (renameat(dfd, tname, dfd, name) != 0) {
                        e = errno;
                        rc = fail_errno(err, e == ENOTDIR || e == EISDIR ? EISDIR : e,
                                        "cannot replace", shown_path);
                        goto out;
                }
                created = false;
                break;
        }
out:
        if (fd >= 0)
                close(fd);
        if (created)
                unlinkat(dfd, tname, 0);
        if (dfd >= 0)
                close(dfd);
        warder__buf_free(&parent);
        warder__buf_free(&real);
        warder__buf_free(&cur);
        return rc;
}

static int local_write(warder_backend *b, const char *path, const void *data, size_t len,
                       unsigned flags, struct warder_error *err)
{
        struct local *l = to_local(b);
        uint64_t cap = cap_or(l->opts.max_write, LOCAL_DEFAULT_CAP);
        if ((uint64_t)len > cap)
                return warder_error_set(err, WARDER_ETOOBIG,
                                        "%zu bytes exceed the write cap of %llu bytes", len,
                                        (unsigned long long)cap);
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (!rc)
                rc = write_rel(l, rel, flags, data, len, norm.data, err);
        warder__buf_free(&norm);
        return rc;
}

static int local_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                      const char *new_text, size_t new_len, unsigned flags, size_t *count,
                      struct warder_error *err)
{
        struct local *l = to_local(b);
        char tmp[256];
        if (old_len == 0)
                return warder_error_set(err, WARDER_EINVAL, "edit: the old text is empty");
        struct warder__buf norm = WARDER__BUF_INIT, real = WARDER__BUF_INIT,
                           next = WARDER__BUF_INIT;
        char *data = NULL;
        size_t len = 0;
        bool more = false;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        /* Read and write the same file: resolve symlinks once, then never follow. */
        if (follows(l, flags)) {
                rc = real_rel(l, rel, &real, norm.data, err);
                if (rc)
                        goto out;
                rel = real.data;
        }
        flags |= WARDER_NOFOLLOW;
        rc = read_rel(l, rel, flags, 0, 0, cap_or(l->opts.max_read, LOCAL_DEFAULT_CAP), norm.data,
                      &data, &len, &more, err);
        if (rc)
                goto out;
        size_t n = 0;
        rc = warder__edit_apply(data, len, old_text, old_len, new_text, new_len, flags,
                                shown(norm.data, tmp), &next, &n, err);
        if (rc)
                goto out;
        uint64_t cap = cap_or(l->opts.max_write, LOCAL_DEFAULT_CAP);
        if ((uint64_t)next.len > cap) {
                rc = warder_error_set(err, WARDER_ETOOBIG,
                                      "the edited file would exceed the write cap of %llu bytes",
                                      (unsigned long long)cap);
                goto out;
        }
        rc = write_rel(l, rel, flags, next.data ? next.data : "", next.len, norm.data, err);
        if (!rc && count)
                *count = n;
out:
        free(data);
        warder__buf_free(&norm);
        warder__buf_free(&real);
        warder__buf_free(&next);
        return rc;
}

/* ---- directory listing and walks -------------------------------------------------------- */

struct dent {
        char *name;
        unsigned char type; /* DT_* */
};

static int dent_cmp(const void *a, const void *b)
{
        return strcmp(((const struct dent *)a)->name, ((const struct dent *)b)->name);
}

static void dents_free(struct dent *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i].name);
        free(v);
}

/* Reads the names in the directory `fd` (consumed), sorted bytewise. The directory stays
 * open in *dp (its descriptor: dirfd(*dp)) for the caller to closedir(). */
static int read_dir(int fd, DIR **dp, struct dent **out, size_t *count)
{
        DIR *d = fdopendir(fd);
        if (!d) {
                int e = errno;
                close(fd);
                return -e;
        }
        struct dent *v = NULL;
        size_t n = 0, cap = 0;
        int rc = 0;
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        rc = errno ? -errno : 0;
                        break;
                }
                if (de->d_name[0] == '.' &&
                    (de->d_name[1] == '\0' || (de->d_name[1] == '.' && de->d_name[2] == '\0')))
                        continue;
                if (n == cap) {
                        size_t nc = cap ? cap * 2 : 32;
                        struct dent *nv = realloc(v, nc * sizeof(*nv));
                        if (!nv) {
                                rc = -ENOMEM;
                                break;
                        }
                        v = nv;
                        cap = nc;
                }
                v[n].name = strdup(de->d_name);
                if (!v[n].name) {
                        rc = -ENOMEM;
                        break;
                }
                v[n].type = de->d_type;
                n++;
        }
        if (rc) {
                closedir(d);
                dents_free(v, n);
                return rc;
        }
        *dp = d;
        if (n > 1)
                qsort(v, n, sizeof(*v), dent_cmp);
        *out = v;
        *count = n;
        return 0;
}

static enum warder_entry_type entry_type(mode_t m)
{
        if (S_ISREG(m))
                return WARDER_ENTRY_FILE;
        if (S_ISDIR(m))
                return WARDER_ENTRY_DIR;
        if (S_ISLNK(m))
                return WARDER_ENTRY_SYMLINK;
        return WARDER_ENTRY_OTHER;
}

/* Appends `base`/`name` to b (cleared first); base "/" gives "/name". */
static int join(struct warder__buf *b, const char *base, size_t base_len, const char *name)
{
        warder__buf_truncate(b, 0);
        int rc = 0;
        if (!(base_len == 1 && base[0] == '/'))
                rc = warder__buf_append(b, base, base_len);
        if (!rc)
                rc = warder__buf_putc(b, '/');
        if (!rc)
                rc = warder__buf_puts(b, name);
        return rc;
}

static int local_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                    struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT, full = WARDER__BUF_INIT;
        struct warder_entries res = WARDER_ENTRIES_INIT;
        struct dent *v = NULL;
        size_t n = 0;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        int fd =
            open_target(l, rel, flags, O_RDONLY | O_DIRECTORY, NULL, norm.data, "cannot list", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        DIR *d = NULL;
        int e = read_dir(fd, &d, &v, &n);
        if (e) {
                rc = fail_errno(err, -e, "cannot list", norm.data);
                goto out;
        }
        int dfd = dirfd(d);
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                if (fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                        continue; /* vanished meanwhile */
                if (join(&full, norm.data, norm.len, v[i].name) ||
                    warder_entries_add(&res, v[i].name, strlen(v[i].name), full.data,
                                       strlen(full.data), entry_type(st.st_mode),
                                       (uint64_t)st.st_size, (int64_t)st.st_mtime)) {
                        rc = fail_oom(err);
                        break;
                }
        }
        closedir(d);
        if (!rc) {
                *out = res;
                res = (struct warder_entries)WARDER_ENTRIES_INIT;
        }
out:
        warder_entries_free(&res);
        dents_free(v, n);
        warder__buf_free(&norm);
        warder__buf_free(&full);
        return rc;
}

/*
 * A depth-first walk below an open directory, in bytewise name order, that never follows a
 * symlink. `visit` is called for every entry with the directory fd, the entry's name, its
 * path relative to the walk's start (in w->rel) and its d_type (resolved with fstatat when
 * the file system does not say). It returns 0 to go on, 1 to stop, or a negative status.
 */
struct walk {
        const struct local *l;
        struct warder__buf rel;
        size_t visits;
        int (*visit)(struct walk *w, int dfd, const char *name, unsigned char type);
        void *ud;
        struct warder_error *err;
        int max_depth;        /* deepest directory level entered (0: the start only), -1: any */
        unsigned long dirs;   /* directories entered so far */
        unsigned long dir_id; /* which of them holds the entry being visited (1: the first) */
};

/* A walk skips what it may not read and what vanished or changed under it; any other failure
 * (an I/O error, no memory, no descriptor left) ends it with an error, never with a result
 * that is silently partial. */
static bool walk_skips(int e)
{
        return e == EACCES || e == EPERM || e == ENOENT || e == ENOTDIR || e == ELOOP ||
               e == ENXIO || e == ENODEV;
}

static int walk_dir(struct walk *w, int dirfd_, int depth)
{
        struct dent *v = NULL;
        size_t n = 0;
        DIR *d = NULL;
        int e = read_dir(dirfd_, &d, &v, &n);
        if (e)
                return walk_skips(-e) ? 0 : fail_errno(w->err, -e, "cannot walk", w->rel.data);
        int dfd = dirfd(d);
        int rc = 0;
        size_t base_len = w->rel.len;
        unsigned long id = ++w->dirs;
        for (size_t i = 0; i < n && !rc; i++) {
                if (++w->visits > LOCAL_MAX_VISITS) {
                        rc = warder_error_set(w->err, WARDER_ELIMIT, "the walk exceeded %d entries",
                                              LOCAL_MAX_VISITS);
                        break;
                }
                unsigned char type = v[i].type;
                if (type == DT_UNKNOWN) {
                        struct stat st;
                        if (fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                                continue;
                        type = S_ISDIR(st.st_mode)   ? DT_DIR
                               : S_ISREG(st.st_mode) ? DT_REG
                               : S_ISLNK(st.st_mode) ? DT_LNK
                                                     : DT_UNKNOWN;
                }
                if ((base_len && warder__buf_putc(&w->rel, '/')) ||
                    warder__buf_puts(&w->rel, v[i].name)) {
                        rc = fail_oom(w->err);
                        break;
                }
                w->dir_id = id;
                rc = w->visit(w, dfd, v[i].name, type);
                if (!rc && type == DT_DIR && (w->max_depth < 0 || depth < w->max_depth)) {
                        if (depth >= LOCAL_MAX_DEPTH) {
                                rc = warder_error_set(w->err, WARDER_ELIMIT,
                                                      "the walk exceeded a depth of %d",
                                                      LOCAL_MAX_DEPTH);
                        } else {
                                int cfd = openat(dfd, v[i].name,
                                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                                if (cfd >= 0)
                                        rc = walk_dir(w, cfd, depth + 1);
                                else if (!walk_skips(errno))
                                        rc = fail_errno(w->err, errno, "cannot walk into",
                                                        w->rel.data);
                        }
                }
                warder__buf_truncate(&w->rel, base_len);
        }
        closedir(d);
        dents_free(v, n);
        return rc;
}

/* ---- glob ------------------------------------------------------------------------- */

struct glob_ud {
        warder_glob *glob;
        bool absolute;
        const char *base; /* normalised absolute base */
        size_t base_len;
        struct warder__buf full;
        struct warder_entries *res;
};

static int glob_visit(struct walk *w, int dfd, const char *name, unsigned char type)
{
        (void)type;
        struct glob_ud *g = w->ud;
        if (join(&g->full, g->base, g->base_len, w->rel.data))
                return fail_oom(w->err);
        const char *subject = g->absolute ? g->full.data : w->rel.data;
        size_t subject_len = g->absolute ? g->full.len : w->rel.len;
        int m = warder_glob_match(g->glob, subject, subject_len);
        if (m < 0)
                return warder_error_set(w->err, m, "glob: the matcher failed");
        if (m == 0)
                return 0;
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                return 0;
        if (warder_entries_add(g->res, name, strlen(name), g->full.data, strlen(g->full.data),
                               entry_type(st.st_mode), (uint64_t)st.st_size, (int64_t)st.st_mtime))
                return fail_oom(w->err);
        return 0;
}

/* Length of the pattern's leading directories without glob syntax ("src/lib/" of
 * "src/lib/x*.c" gives 7, without the final slash); *depth receives their number. */
static size_t glob_literal_prefix(const char *pattern, int *depth)
{
        size_t keep = 0;
        int n = 0;
        const char *p = pattern;
        for (;;) {
                const char *slash = strchr(p, '/');
                if (!slash)
                        break;
                for (const char *q = p; q < slash; q++)
                        if (strchr("*?[]{}\\", *q))
                                goto end;
                if (slash == p || (slash - p == 1 && p[0] == '.') ||
                    (slash - p == 2 && p[0] == '.' && p[1] == '.'))
                        break;
                keep = (size_t)(slash - pattern);
                n++;
                p = slash + 1;
        }
end:
        *depth = n;
        return keep;
}

/* The deepest directory level a relative pattern can reach, or -1 when unbounded (`**`, or
 * braces, whose alternatives may hold any number of slashes). */
static int glob_max_depth(const char *pattern)
{
        if (strstr(pattern, "**") || strchr(pattern, '{'))
                return -1;
        int slashes = 0;
        for (const char *p = pattern; *p; p++)
                if (*p == '/')
                        slashes++;
        return slashes;
}

/*
 * Opens the directory `sub` (components without `.` or `..`, as glob_literal_prefix() gives
 * them) below the directory `fd`, one component at a time with O_NOFOLLOW, so no symlink on
 * the way is followed (openat(2) with a multi-component path would follow all but the last).
 * `fd` is consumed. Returns the new descriptor or -1.
 */
static int open_below(int fd, char *sub)
{
        for (char *p = sub, *slash; fd >= 0 && p; p = slash ? slash + 1 : NULL) {
                slash = strchr(p, '/');
                if (slash)
                        *slash = '\0';
                int next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (slash)
                        *slash = '/';
                close(fd);
                fd = next;
        }
        return fd;
}

static int local_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                      struct warder_entries *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        struct warder_entries res = WARDER_ENTRIES_INIT;
        struct glob_ud g = {NULL, false, NULL, 0, WARDER__BUF_INIT, &res};
        struct walk w = {l, WARDER__BUF_INIT, 0, glob_visit, &g, err, -1, 0, 0};
        struct warder__buf start = WARDER__BUF_INIT;
        const char *rel;
        if (!pattern)
                return warder_error_set(err, WARDER_EINVAL, "glob: no pattern");
        int rc = to_rel(l, base, &norm, &rel, err);
        if (rc)
                goto out;
        rc = warder_glob_compile(&g.glob, pattern, strlen(pattern), 0, err);
        if (rc)
                goto out;
        g.absolute = pattern[0] == '/';
        g.base = norm.data;
        g.base_len = norm.len;
        int fd =
            open_target(l, rel, flags, O_RDONLY | O_DIRECTORY, NULL, norm.data, "cannot walk", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        if (warder__buf_puts(&w.rel, "")) {
                close(fd);
                rc = fail_oom(err);
                goto out;
        }
        int depth = 0;
        if (!g.absolute) {
                /* Only walk where the pattern can match: below its leading literal
                 * directories, and no deeper than its number of components. */
                size_t plen = glob_literal_prefix(pattern, &depth);
                w.max_depth = glob_max_depth(pattern);
                if (plen) {
                        if (warder__buf_append(&start, pattern, plen) ||
                            warder__buf_append(&w.rel, pattern, plen)) {
                                close(fd);
                                rc = fail_oom(err);
                                goto out;
                        }
                        int sub = open_below(fd, start.data);
                        if (sub < 0)
                                goto done; /* missing, or a symlink (never followed): empty */
                        fd = sub;
                }
        }
        rc = walk_dir(&w, fd, depth);
done:
        if (rc > 0)
                rc = 0;
        if (!rc) {
                *out = res;
                res = (struct warder_entries)WARDER_ENTRIES_INIT;
        }
out:
        warder_entries_free(&res);
        warder_glob_free(g.glob);
        warder__buf_free(&g.full);
        warder__buf_free(&w.rel);
        warder__buf_free(&start);
        warder__buf_free(&norm);
        return rc;
}

/* ---- grep ------------------------------------------------------------------------- */

/*
 * grep walks on the calling thread and searches on a pool of workers. The walk (in bytewise
 * name order, as every walk) asks the glob filter and the request's may_search for each file
 * — so may_search is only ever called on the calling thread, and a file it refuses is never
 * opened — then queues the file as the next job, with a descriptor of its directory. Workers
 * open each job's file there (O_NOFOLLOW), read and search it; each job keeps its own
 * matches. At the end the jobs' matches are joined in
 * job order, that is in walk order (path order), and within a file in line order, so the
 * result is the same whatever the number of threads. The match cap cuts that order: once the
 * jobs done without a gap from the first hold more than max_matches, the rest are not
 * searched (the walk still goes on, by names only, so hidden_files counts the whole scope).
 * Any failure of a job (no memory, an I/O error) fails the whole grep.
 */

#define GREP_MAX_THREADS 64
#define GREP_MAX_QUEUED  128 /* files waiting for a worker; at most as many directories open */
#define GREP_WAKE_BATCH  8   /* files queued per wake-up of an idle worker */

/* A directory of the walk, kept open while jobs in it wait: a worker opens each file in its
 * directory as the walk found it (openat, O_NOFOLLOW). References are counted under the
 * lock; the walk holds one while it lists the directory. */
struct grep_dir {
        int fd;
        size_t refs;
};

struct grep_job {
        char *path;           /* absolute */
        const char *name;     /* its last component, opened in dir */
        struct grep_dir *dir; /* NULL: fd is already open */
        int fd;               /* consumed by the worker */
        bool done, truncated;
        struct warder_grep_result res;
};

struct grep_ud {
        const struct local *l;
        const struct warder_grep_request *req;
        const struct warder__grep_engine *engine;
        warder_glob *filter;
        bool filter_absolute; /* an absolute filter sees absolute paths */
        bool filter_name;     /* a filter without '/' sees file names at any depth */
        const char *base;
        size_t base_len;
        size_t max_matches; /* 0: none */
        uint64_t max_file;
        bool skip_binary;
        struct warder__buf full;
        size_t hidden;
        /* The hook each worker runs when it starts and before it ends (per-thread state such
         * as file-system credentials); NULL: none. */
        struct warder__grep_hooks hooks;
        /* The jobs, in walk order, and the queue between the walk and the workers. */
        pthread_mutex_t mu;
        pthread_cond_t cv_work, cv_space;
        struct grep_job **jobs;
        size_t njobs, cap_jobs;
        size_t next;       /* the next job to hand to a worker */
        size_t prefix;     /* jobs done without a gap from the first */
        size_t prefix_sum; /* their matches */
        bool walk_done, stop;
        bool walk_waits; /* the walk waits for the queue to drain to half */
        int failed;      /* the first failure of a job */
        char fail_msg[512];
        unsigned threads;     /* workers (0: the walk searches each job itself) */
        struct grep_dir *dir; /* the directory the walk is in */
        unsigned long dir_id;
};

struct grep_worker {
        struct grep_ud *g;
        struct warder__grep_scratch *scratch;
        char *buf;
        size_t buf_cap;
        struct grep_job *job;
        struct warder_error err;
};

static int grep_emit(void *ud, uint64_t line, const char *text, size_t len)
{
        struct grep_worker *w = ud;
        struct grep_job *j = w->job;
        size_t max = w->g->max_matches;
        if (max && j->res.count >= max) {
                j->truncated = true; /* one more than the cap: this file alone reaches it */
                return 1;
        }
        if (warder_grep_add(&j->res, j->path, strlen(j->path), line, text, len))
                return fail_oom(&w->err);
        return 0;
}

/* Reads and searches one job's file (its descriptor is consumed). */
static int grep_job_run(struct grep_worker *w, struct grep_job *j)
{
        struct grep_ud *g = w->g;
        int fd = j->fd;
        j->fd = -1;
        if (j->dir) {
                fd = openat(j->dir->fd, j->name,
                            O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
                if (fd < 0)
                        return walk_skips(errno)
                                   ? 0
                                   : fail_errno(&w->err, errno, "cannot search", j->path);
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                int e = errno;
                close(fd);
                return walk_skips(e) ? 0 : fail_errno(&w->err, e, "cannot search", j->path);
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return 0; /* replaced by something else since the walk saw it */
        }
        uint64_t want = (uint64_t)st.st_size;
        if (want > g->max_file) {
                want = g->max_file;
                j->truncated = true;
        }
        if (want == 0) {
                close(fd);
                return 0;
        }
        if (want + 1 > w->buf_cap) {
                char *nb = realloc(w->buf, (size_t)want + 1);
                if (!nb) {
                        close(fd);
                        return fail_oom(&w->err);
                }
                w->buf = nb;
                w->buf_cap = (size_t)want + 1;
        }
        ssize_t got = read_full(fd, w->buf, (size_t)want, 0);
        close(fd);
        if (got < 0)
                return walk_skips((int)-got)
                           ? 0
                           : fail_errno(&w->err, (int)-got, "cannot search", j->path);
        size_t n = (size_t)got;
        if (n == 0 || (g->skip_binary && warder__grep_is_binary(w->buf, n)))
                return 0;
        w->job = j;
        bool incomplete = false;
        int rc = warder__grep_search(g->engine, w->scratch, w->buf, n, grep_emit, w, &incomplete);
        if (incomplete)
                j->truncated = true; /* a line the engine could not decide */
        return rc < 0 ? rc : 0;
}

/* Drops a reference to a directory (under the lock). */
static void grep_dir_release(struct grep_dir *d)
{
        if (d && --d->refs == 0) {
                close(d->fd);
                free(d);
        }
}

/* Records a job's end (under the lock): a failure stops the grep, and so does a prefix of
 * done jobs that holds more matches than the cap. */
static void grep_job_done(struct grep_ud *g, struct grep_job *j, int rc, struct warder_error *err)
{
        j->done = true;
        grep_dir_release(j->dir);
        j->dir = NULL;
        if (rc < 0 && !g->failed) {
                g->failed = rc;
                snprintf(g->fail_msg, sizeof(g->fail_msg), "%s",
                         err->message[0] ? err->message : warder_strerror(rc));
                g->stop = true;
        }
        while (g->prefix < g->njobs && g->jobs[g->prefix]->done)
                g->prefix_sum += g->jobs[g->prefix++]->res.count;
        if (g->max_matches && g->prefix_sum > g->max_matches)
                g->stop = true;
        if (g->stop && g->walk_waits)
                pthread_cond_signal(&g->cv_space);
}

/* Takes the next job and searches it, or only closes it once the grep has stopped. Called,
 * and returns, with the lock held. */
static void grep_take(struct grep_ud *g, struct grep_worker *w)
{
        struct grep_job *j = g->jobs[g->next++];
        bool skip = g->stop;
        /* The walk sleeps until half the queue is taken, not for each job. */
        if (g->walk_waits && g->njobs - g->next <= GREP_MAX_QUEUED / 2)
                pthread_cond_signal(&g->cv_space);
        pthread_mutex_unlock(&g->mu);
        int rc = 0;
        if (skip) {
                if (j->fd >= 0)
                        close(j->fd);
                j->fd = -1;
        } else {
                rc = grep_job_run(w, j);
        }
        pthread_mutex_lock(&g->mu);
        grep_job_done(g, j, rc, &w->err);
}

static void *grep_worker_main(void *arg)
{
        struct grep_worker *w = arg;
        struct grep_ud *g = w->g;
        if (g->hooks.worker_enter)
                g->hooks.worker_enter(g->hooks.ud);
        pthread_mutex_lock(&g->mu);
        for (;;) {
                while (g->next == g->njobs && !g->walk_done)
                        pthread_cond_wait(&g->cv_work, &g->mu);
                if (g->next == g->njobs)
                        break;
                grep_take(g, w);
        }
        pthread_mutex_unlock(&g->mu);
        if (g->hooks.worker_leave)
                g->hooks.worker_leave(g->hooks.ud);
        return NULL;
}

/* Queues the open file `fd` (consumed) as the next job, or searches it now without workers. */
static int grep_enqueue(struct grep_ud *g, struct grep_worker *self, int fd, struct grep_dir *dir,
                        const char *path, struct warder_error *err)
{
        struct grep_job *j = calloc(1, sizeof(*j));
        char *p = strdup(path);
        if (!j || !p) {
                free(j);
                free(p);
                if (fd >= 0)
                        close(fd);
                return fail_oom(err);
        }
        j->path = p;
        j->name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
        j->fd = fd;
        j->res = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        pthread_mutex_lock(&g->mu);
        if (g->threads && g->njobs - g->next >= GREP_MAX_QUEUED) {
                g->walk_waits = true;
                while (g->njobs - g->next > GREP_MAX_QUEUED / 2 && !g->stop)
                        pthread_cond_wait(&g->cv_space, &g->mu);
                g->walk_waits = false;
        }
        if (g->njobs == g->cap_jobs) {
                size_t cap = g->cap_jobs ? g->cap_jobs * 2 : 256;
                struct grep_job **nv = realloc(g->jobs, cap * sizeof(*nv));
                if (!nv) {
                        pthread_mutex_unlock(&g->mu);
                        free(j->path);
                        free(j);
                        if (fd >= 0)
                                close(fd);
                        return fail_oom(err);
                }
                g->jobs = nv;
                g->cap_jobs = cap;
        }
        g->jobs[g->njobs++] = j;
        if (dir) {
                j->dir = dir;
                dir->refs++;
        }
        if (g->threads) {
                /* Idle workers are woken by batches: one wake-up per file costs more than
                 * searching a small one. The end of the walk wakes them all. */
                if ((g->njobs - g->next) % GREP_WAKE_BATCH == 0)
                        pthread_cond_signal(&g->cv_work);
                pthread_mutex_unlock(&g->mu);
                return 0;
        }
        /* No workers: the walk searches the job itself, in the same order. */
        grep_take(g, self);
        pthread_mutex_unlock(&g->mu);
        return 0;
}

/* The request's glob filter: 1 to search the file, 0 to skip it, <0 on a matcher failure. */
static int grep_filter(struct grep_ud *g, const char *abs, size_t abs_len, const char *rel,
                       size_t rel_len, const char *name, struct warder_error *err)
{
        if (!g->filter)
                return 1;
        const char *s = g->filter_absolute ? abs : g->filter_name ? name : rel;
        size_t len = g->filter_absolute ? abs_len : g->filter_name ? strlen(name) : rel_len;
        int m = warder_glob_match(g->filter, s, len);
        if (m < 0)
                return warder_error_set(err, m, "grep: the glob filter failed");
        return m;
}

/* §4.7: the request's may_search decides before the file is opened; a refused file is
 * counted (its name decided that, never its contents) and skipped unopened. */
static bool grep_may_search(struct grep_ud *g, const char *path, size_t len)
{
        if (!g->req->may_search || g->req->may_search(g->req->may_search_ud, path, len))
                return true;
        g->hidden++;
        return false;
}

/* 0: go on searching; 1: the cap is reached (names only from here); -1: a job failed. */
static int grep_stopped(struct grep_ud *g)
{
        pthread_mutex_lock(&g->mu);
        int stop = g->failed ? -1 : g->stop ? 1 : 0;
        pthread_mutex_unlock(&g->mu);
        return stop;
}

struct grep_walk {
        struct grep_ud *g;
        struct grep_worker *self;
};

static int grep_visit(struct walk *w, int dfd, const char *name, unsigned char type)
{
        struct grep_walk *gw = w->ud;
        struct grep_ud *g = gw->g;
        if (type != DT_REG)
                return 0; /* directories are walked, symlinks and special files skipped */
        if (join(&g->full, g->base, g->base_len, w->rel.data))
                return fail_oom(w->err);
        int m = grep_filter(g, g->full.data, g->full.len, w->rel.data, w->rel.len, name, w->err);
        if (m <= 0 || !grep_may_search(g, g->full.data, g->full.len))
                return m < 0 ? m : 0;
        int stop = grep_stopped(g);
        if (stop)
                return stop < 0 ? 1 : 0; /* a failure ends the walk; the cap, the search */
        if (!g->dir || g->dir_id != w->dir_id) {
                /* A new directory: a descriptor of its own, which the jobs in it share. */
                struct grep_dir *d = malloc(sizeof(*d));
                int fd = d ? fcntl(dfd, F_DUPFD_CLOEXEC, 0) : -1;
                int e = errno;
                if (fd < 0) {
                        free(d);
                        return d ? fail_errno(w->err, e, "cannot search", w->rel.data)
                                 : fail_oom(w->err);
                }
                *d = (struct grep_dir){fd, 1};
                pthread_mutex_lock(&g->mu);
                grep_dir_release(g->dir);
                pthread_mutex_unlock(&g->mu);
                g->dir = d;
                g->dir_id = w->dir_id;
        }
        return grep_enqueue(g, gw->self, -1, g->dir, g->full.data, w->err);
}

/* The number of workers for a request: `threads`, 0 for the online CPUs, at most
 * GREP_MAX_THREADS; 1 searches on the calling thread. */
static unsigned grep_threads(const struct warder_grep_request *req)
{
        unsigned n = req->version >= 4 ? req->threads : 0;
        if (n == 0) {
#ifdef WARDER__FAULT_INJECTION
                n = 1; /* the fault walk counts its points in one order */
#else
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                n = cpus > 0 ? (unsigned)cpus : 1;
#endif
        }
        return n > GREP_MAX_THREADS ? GREP_MAX_THREADS : n;
}

/* Moves the jobs' matches in job order into res, up to the cap (the jobs before the cut
 * were all searched: the grep stops only once a prefix of done jobs passes the cap). */
static int grep_join(struct grep_ud *g, struct warder_grep_result *res, struct warder_error *err)
{
        size_t want = 0, last = g->njobs;
        for (size_t i = 0; i < g->njobs; i++) {
                const struct grep_job *j = g->jobs[i];
                if (j->truncated)
                        res->truncated = true;
                want += j->res.count;
                if (g->max_matches && want > g->max_matches) {
                        res->truncated = true; /* more matches than the cap, in walk order */
                        want = g->max_matches;
                        last = i + 1;
                        break;
                }
        }
        if (want && !(res->items = malloc(want * sizeof(*res->items))))
                return fail_oom(err);
        for (size_t i = 0; i < last && res->count < want; i++) {
                struct grep_job *j = g->jobs[i];
                size_t take = j->res.count;
                if (take > want - res->count)
                        take = want - res->count;
                if (!take)
                        continue;
                memcpy(res->items + res->count, j->res.items, take * sizeof(*res->items));
                res->count += take;
                /* what moved is no longer the job's; the rest is freed with the job */
                if (j->res.count > take)
                        memmove(j->res.items, j->res.items + take,
                                (j->res.count - take) * sizeof(*j->res.items));
                j->res.count -= take;
        }
        res->hidden_files = g->hidden;
        return 0;
}

static void grep_jobs_free(struct grep_ud *g)
{
        for (size_t i = 0; i < g->njobs; i++) {
                struct grep_job *j = g->jobs[i];
                if (j->fd >= 0)
                        close(j->fd);
                grep_dir_release(j->dir); /* a job never taken (no lock: the workers ended) */
                warder_grep_result_free(&j->res);
                free(j->path);
                free(j);
        }
        free(g->jobs);
}

static int local_grep(warder_backend *b, const struct warder_grep_request *req,
                      struct warder_grep_result *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        struct warder_grep_result res = WARDER_GREP_RESULT_INIT;
        struct warder__grep_engine *engine = NULL;
        struct grep_ud g;
        memset(&g, 0, sizeof(g));
        g.l = l;
        g.req = req;
        g.full = (struct warder__buf)WARDER__BUF_INIT;
        struct grep_worker self = {&g, NULL, NULL, 0, NULL, WARDER_ERROR_INIT};
        struct grep_walk gw = {&g, &self};
        struct walk w = {l, WARDER__BUF_INIT, 0, grep_visit, &gw, err, -1, 0, 0};
        pthread_t tids[GREP_MAX_THREADS];
        struct grep_worker workers[GREP_MAX_THREADS];
        unsigned started = 0;
        bool sync = false;
        const char *rel;
        int rc;
        if (!req || !req->pattern || !req->path)
                return warder_error_set(err, WARDER_EINVAL, "grep: no pattern or path");
        rc = to_rel(l, req->path, &norm, &rel, err);
        if (rc)
                goto out;
        rc = warder__grep_engine_new(
            &engine, req->pattern, strlen(req->pattern),
            (req->flags & WARDER_GREP_CASELESS) ? WARDER__GREP_CASELESS : 0, err);
        if (rc)
                goto out;
        g.engine = engine;
        if (!(self.scratch = warder__grep_scratch_new(engine))) {
                rc = fail_oom(err);
                goto out;
        }
        if (req->glob && req->glob[0]) {
                rc = warder_glob_compile(&g.filter, req->glob, strlen(req->glob), 0, err);
                if (rc)
                        goto out;
                g.filter_absolute = req->glob[0] == '/';
                g.filter_name = !strchr(req->glob, '/');
        }
        size_t cap_matches =
            l->opts.grep_max_matches ? l->opts.grep_max_matches : LOCAL_DEFAULT_MATCHES;
        g.max_matches =
            req->max_matches && req->max_matches < cap_matches ? req->max_matches : cap_matches;
        g.max_file = cap_or(l->opts.grep_max_file, LOCAL_DEFAULT_CAP);
        g.skip_binary = l->opts.grep_skip_binary;
        g.base = norm.data;
        g.base_len = norm.len;
        if (pthread_mutex_init(&g.mu, NULL) || pthread_cond_init(&g.cv_work, NULL) ||
            pthread_cond_init(&g.cv_space, NULL)) {
                rc = warder_error_set(err, WARDER_ENOMEM, "grep: cannot set up its threads");
                goto out;
        }
        sync = true;

        /* The base: a directory is walked, a regular file searched. It is looked at through an
         * O_PATH descriptor first, so that a file may_search refuses is never opened. */
        int fd = open_target(l, rel, req->flags, O_PATH, NULL, norm.data, "cannot search", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                rc = fail_errno(err, errno, "cannot search", norm.data);
                close(fd);
                goto out;
        }
        if (S_ISDIR(st.st_mode)) {
                int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                int e = errno;
                close(fd);
                if (dfd < 0) {
                        rc = fail_errno(err, e, "cannot search", norm.data);
                        goto out;
                }
                if (warder__buf_puts(&w.rel, "")) {
                        close(dfd);
                        rc = fail_oom(err);
                        goto out;
                }
                unsigned n = grep_threads(req);
                for (; n > 1 && started < n; started++) {
                        workers[started] =
                            (struct grep_worker){&g, NULL, NULL, 0, NULL, WARDER_ERROR_INIT};
                        workers[started].scratch = warder__grep_scratch_new(engine);
                        if (!workers[started].scratch ||
                            pthread_create(&tids[started], NULL, grep_worker_main,
                                           &workers[started])) {
                                warder__grep_scratch_free(workers[started].scratch);
                                break;
                        }
                }
                g.threads = started; /* fewer workers than asked: slower, never wrong */
                rc = walk_dir(&w, dfd, 0);
        } else if (S_ISREG(st.st_mode)) {
                /* A file base: the filter sees its name. */
                close(fd);
                const char *name = strrchr(norm.data, '/') + 1;
                rc = grep_filter(&g, norm.data, norm.len, name, strlen(name), name, err);
                if (rc > 0 && grep_may_search(&g, norm.data, norm.len)) {
                        fd = open_target(l, rel, req->flags, O_RDONLY | O_NONBLOCK | O_NOCTTY, NULL,
                                         norm.data, "cannot search", err);
                        struct stat now;
                        if (fd < 0) {
                                rc = fd;
                        } else if (fstat(fd, &now) != 0 || now.st_dev != st.st_dev ||
                                   now.st_ino != st.st_ino) {
                                char tmp[256];
                                close(fd);
                                rc = warder_error_set(err, WARDER_EIO,
                                                      "'%s' changed while it was being searched",
                                                      shown(norm.data, tmp));
                        } else {
                                rc = grep_enqueue(&g, &self, fd, NULL, norm.data, err);
                        }
                } else if (rc > 0) {
                        rc = 0;
                }
        } else {
                close(fd);
                char tmp[256];
                rc = warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                      shown(norm.data, tmp));
        }
out:
        if (sync) {
                pthread_mutex_lock(&g.mu);
                grep_dir_release(g.dir);
                g.dir = NULL;
                g.walk_done = true;
                if (rc < 0)
                        g.stop = true; /* the walk failed: what is queued is not searched */
                pthread_cond_broadcast(&g.cv_work);
                pthread_mutex_unlock(&g.mu);
        }
        for (unsigned i = 0; i < started; i++) {
                pthread_join(tids[i], NULL);
                warder__grep_scratch_free(workers[i].scratch);
                free(workers[i].buf);
        }
        if (rc > 0)
                rc = 0;
        if (!rc && g.failed)
                rc = warder_error_set(err, g.failed, "%s", g.fail_msg);
        if (!rc)
                rc = grep_join(&g, &res, err);
        if (!rc) {
                *out = res;
                res = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        }
        if (sync) {
                pthread_cond_destroy(&g.cv_space);
                pthread_cond_destroy(&g.cv_work);
                pthread_mutex_destroy(&g.mu);
        }
        grep_jobs_free(&g);
        warder_grep_result_free(&res);
        warder__grep_scratch_free(self.scratch);
        free(self.buf);
        warder__grep_engine_free(engine);
        warder_glob_free(g.filter);
        warder__buf_free(&g.full);
        warder__buf_free(&w.rel);
        warder__buf_free(&norm);
        return rc;
}

/* ---- realpath, execute, lifecycle ------------------------------------------------------- */

static int local_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT, real = WARDER__BUF_INIT, abs = WARDER__BUF_INIT;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        if (!l->opts.follow_symlinks) {
                /* Nothing is ever followed, so the real form is the literal form; any symlink on
                 * the path makes the operation itself fail with WARDER_ESYMLINK. */
                rc = abs_of(l, rel, &abs);
        } else {
                rc = real_rel(l, rel, &real, norm.data, err);
                if (rc)
                        goto out;
                rc = abs_of(l, real.data, &abs);
        }
        if (rc) {
                rc = fail_oom(err);
                goto out;
        }
        *out = warder__buf_steal(&abs);
out:
        warder__buf_free(&norm);
        warder__buf_free(&real);
        warder__buf_free(&abs);
        return rc;
}

static int local_execute(warder_backend *b, const struct warder_exec_request *req,
                         struct warder_exec_result *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        return warder__local_exec(b, l->root_fd, l->root, &l->opts, req, out, err);
}

static void local_destroy(warder_backend *b)
{
        struct local *l = to_local(b);
        if (!l)
                return;
        if (l->root_fd >= 0)
                close(l->root_fd);
        free(l->root);
        free(l->host_root);
        warder__strv_free(l->exec_env);
        warder__strv_free(l->landlock_read);
        warder__strv_free(l->landlock_write);
        free(l->agent_groups);
        free(l);
}

/* ---- acting as the agent (§6.6) ---------------------------------------------------- */

/* Each file operation runs between creds_enter and creds_leave on the calling thread: with
 * the agent's file system credentials when the host asked for them, else unchanged. */
#define AS_AGENT(b, err, call)                                                                     \
        do {                                                                                       \
                struct warder__creds_saved sv_;                                                    \
                int rc_ = warder__creds_enter(&sv_, to_local(b)->as, (err));                       \
                if (rc_)                                                                           \
                        return rc_;                                                                \
                rc_ = (call);                                                                      \
                return warder__creds_leave(&sv_, rc_, (err));                                      \
        } while (0)

static int as_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                   unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        AS_AGENT(b, err, local_read(b, path, offset, limit, flags, out, err));
}

static int as_write(warder_backend *b, const char *path, const void *data, size_t len,
                    unsigned flags, struct warder_error *err)
{
        AS_AGENT(b, err, local_write(b, path, data, len, flags, err));
}

static int as_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                   const char *new_text, size_t new_len, unsigned flags, size_t *count,
                   struct warder_error *err)
{
        AS_AGENT(b, err,
                 local_edit(b, path, old_text, old_len, new_text, new_len, flags, count, err));
}

static int as_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                 struct warder_error *err)
{
        AS_AGENT(b, err, local_ls(b, path, flags, out, err));
}

static int as_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                   struct warder_entries *out, struct warder_error *err)
{
        AS_AGENT(b, err, local_glob(b, pattern, base, flags, out, err));
}

static int as_grep(warder_backend *b, const struct warder_grep_request *req,
                   struct warder_grep_result *out, struct warder_error *err)
{
        AS_AGENT(b, err, local_grep(b, req, out, err));
}

static int as_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        AS_AGENT(b, err, local_realpath(b, path, out, err));
}

static const struct warder_backend_ops local_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = as_read,
    .write = as_write,
    .edit = as_edit,
    .ls = as_ls,
    .glob = as_glob,
    .grep = as_grep,
    .execute = NULL,
    .realpath = as_realpath,
    .destroy = local_destroy,
    .caps = WARDER_BACKEND_CAP_REAL_RESULTS | WARDER_BACKEND_CAP_STRICT_NOFOLLOW |
            WARDER_BACKEND_CAP_GREP_FILTER,
};

static const struct warder_backend_ops local_exec_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = as_read,
    .write = as_write,
    .edit = as_edit,
    .ls = as_ls,
    .glob = as_glob,
    .grep = as_grep,
    .execute = local_execute,
    .realpath = as_realpath,
    .destroy = local_destroy,
    .caps = WARDER_BACKEND_CAP_REAL_RESULTS | WARDER_BACKEND_CAP_STRICT_NOFOLLOW |
            WARDER_BACKEND_CAP_GREP_FILTER,
};

bool warder__local_is(const warder_backend *b)
{
        return b && (b->ops == &local_ops || b->ops == &local_exec_ops);
}

bool warder__local_uses_openat2(const warder_backend *b)
{
        return warder__local_is(b) && ((const struct local *)b)->use_openat2;
}

int warder__local_open_raw(warder_backend *b, const char *rel, int oflags)
{
        return warder__local_is(b) ? kopen(to_local(b), rel, oflags, 0) : -EINVAL;
}

int warder__local_open_dir(warder_backend *b, const char *path, int *fd_out,
                           struct warder_error *err)
{
        if (!warder__local_is(b) || !fd_out)
                return warder_error_set(err, WARDER_EINVAL, "not a local backend");
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = to_rel(l, path, &norm, &rel, err);
        if (!rc) {
                int fd = open_target(l, rel, 0, O_PATH | O_DIRECTORY, NULL, norm.data,
                                     "cannot open the directory", err);
                if (fd < 0)
                        rc = fd;
                else
                        *fd_out = fd;
        }
        warder__buf_free(&norm);
        return rc;
}

/* The agent's credentials (§6.6): refused when they are not ids a process can hold, or are
 * root's (acting as root would add no permission check). */
static int check_agent(const struct warder_local_options *o, struct warder_error *err)
{
        if (!o->act_as_agent)
                return 0;
        if (o->agent_uid == 0 || o->agent_gid == 0)
                return warder_error_set(err, WARDER_EINVAL,
                                        "local: refusing to act as uid 0 or gid 0 (root's "
                                        "credentials add no permission check)");
        if (o->agent_uid == UINT32_MAX || o->agent_gid == UINT32_MAX)
                return warder_error_set(err, WARDER_EINVAL,
                                        "local: %u is not a valid user or group id", UINT32_MAX);
        if (o->agent_ngroups > WARDER__CREDS_MAX_GROUPS || (o->agent_ngroups && !o->agent_groups))
                return warder_error_set(err, WARDER_EINVAL,
                                        "local: agent_groups: at most %d groups, and a count "
                                        "needs an array",
                                        WARDER__CREDS_MAX_GROUPS);
        for (size_t i = 0; i < o->agent_ngroups; i++)
                if (o->agent_groups[i] == 0 || o->agent_groups[i] == UINT32_MAX)
                        return warder_error_set(err, WARDER_EINVAL,
                                                "local: agent_groups: group %u refused",
                                                o->agent_groups[i]);
        return 0;
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return (x > y) - (x < y);
}

/* Copies the agent's credentials into `l` and checks, on this thread, that this process can
 * take them and give them back: never a backend that would act as the host by surprise. */
static int set_agent(struct local *l, const struct warder_local_options *o,
                     struct warder_error *err)
{
        size_t n = o->agent_ngroups;
        if (n) {
                l->agent_groups = malloc(n * sizeof(*l->agent_groups));
                if (!l->agent_groups)
                        return fail_oom(err);
                memcpy(l->agent_groups, o->agent_groups, n * sizeof(*l->agent_groups));
                /* Sorted without duplicates, as the kernel keeps them (creds.h). */
                qsort(l->agent_groups, n, sizeof(*l->agent_groups), cmp_u32);
                size_t k = 0;
                for (size_t i = 0; i < n; i++)
                        if (!k || l->agent_groups[k - 1] != l->agent_groups[i])
                                l->agent_groups[k++] = l->agent_groups[i];
                n = k;
        }
        l->agent = (struct warder__creds){o->agent_uid, o->agent_gid, l->agent_groups, n};
        l->opts.agent_groups = l->agent_groups;
        l->opts.agent_ngroups = n;
        struct warder_error probe = WARDER_ERROR_INIT;
        int rc = warder__creds_probe(&l->agent, &probe);
        if (rc) {
                rc = warder_error_set(err, WARDER_EACCES,
                                      "local: this process cannot act as the agent (it needs "
                                      "CAP_SETUID and CAP_SETGID, and no file system capability "
                                      "once the fsuid is the agent's): %s",
                                      probe.message);
                warder_error_clear(&probe);
                return rc;
        }
        l->as = &l->agent;
        return 0;
}

WARDER_API int warder_local_new(warder_backend **out, const char *root,
                                const struct warder_local_options *opts, struct warder_error *err)
{
        char tmp[256];
        struct warder_local_options defaults = WARDER_LOCAL_OPTIONS_INIT;
        if (!out || !root)
                return warder_error_set(err, WARDER_EINVAL, "local: out and root are required");
        if (opts) {
                /* Version 2 ends where version 3 starts: the rest keeps its defaults. */
                if (opts->version == 2)
                        memcpy(&defaults, opts,
                               offsetof(struct warder_local_options, act_as_agent));
                else if (opts->version == WARDER_LOCAL_OPTIONS_VERSION)
                        defaults = *opts;
                else
                        return warder_error_set(err, WARDER_EINVAL,
                                                "local: unknown options version %u", opts->version);
        }
        opts = &defaults;
        int rc = check_agent(opts, err);
        if (rc)
                return rc;
        if (root[0] != '/')
                return warder_error_set(err, WARDER_EINVAL,
                                        "local: the root must be absolute: '%s'", shown(root, tmp));
        struct local *l = calloc(1, sizeof(*l));
        if (!l)
                return fail_oom(err);
        l->root_fd = -1;
        struct warder__buf norm = WARDER__BUF_INIT;
        rc = warder__path_normalize_buf(&norm, NULL, NULL, NULL, root, strlen(root), err);
        if (rc)
                goto fail;
        l->root_len = norm.len;
        l->root = warder__buf_steal(&norm);
        l->root_fd = open(l->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (l->root_fd < 0) {
                rc = fail_errno(err, errno, "local: cannot open the root", l->root);
                goto fail;
        }
        if (l->root_fd < 3) {
                /* A host without stdio: keep the root off 0-2, which a child's stdio takes. */
                int fd = fcntl(l->root_fd, F_DUPFD_CLOEXEC, 3);
                if (fd < 0) {
                        rc = fail_errno(err, errno, "local: cannot open the root", l->root);
                        goto fail;
                }
                close(l->root_fd);
                l->root_fd = fd;
        }
        struct stat rst;
        struct statfs rsf;
        if (fstat(l->root_fd, &rst) == 0 && fstatfs(l->root_fd, &rsf) == 0) {
                l->root_dev = rst.st_dev;
                l->plain = fold_class((unsigned long)rsf.f_type) == FOLD_NEVER;
        }
        char *host = realpath(l->root, NULL);
        if (host && strcmp(host, l->root) != 0) {
                l->host_root = host;
                l->host_root_len = strlen(host);
        } else {
                free(host);
        }
        l->opts = *opts;
        if (warder__strv_dup(opts->exec_env, &l->exec_env) ||
            warder__strv_dup(opts->landlock_read, &l->landlock_read) ||
            warder__strv_dup(opts->landlock_write, &l->landlock_write)) {
                rc = fail_oom(err);
                goto fail;
        }
        l->opts.exec_env = (const char *const *)l->exec_env;
        l->opts.landlock_read = (const char *const *)l->landlock_read;
        l->opts.landlock_write = (const char *const *)l->landlock_write;
        if (opts->act_as_agent) {
                rc = set_agent(l, opts, err);
                if (rc)
                        goto fail;
        }

        l->use_openat2 = false;
        if (!opts->force_fallback) {
                struct open_how how;
                memset(&how, 0, sizeof(how));
                how.flags = O_PATH | O_CLOEXEC;
                how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
                long fd = sys_openat2(l->root_fd, ".", &how);
                if (fd >= 0) {
                        close((int)fd);
                        l->use_openat2 = true;
                }
        }
        rc = warder_backend_init(&l->base, opts->exec ? &local_exec_ops : &local_ops, err);
        if (rc)
                goto fail;
        *out = &l->base;
        return 0;
fail:
        warder__buf_free(&norm);
        local_destroy(&l->base);
        return rc;
}
