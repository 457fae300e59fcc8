/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2): ls and glob, and the walk below a directory they share with grep.
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
#include "walk.h"
#include "util.h"
#include "warder/glob.h"

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
int warder__local_join(struct warder__buf *b, const char *base, size_t base_len, const char *name)
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

int warder__local_ls(warder_backend *b, const char *path, unsigned flags,
                     struct warder_entries *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT, full = WARDER__BUF_INIT;
        struct warder_entries res = WARDER_ENTRIES_INIT;
        struct dent *v = NULL;
        size_t n = 0;
        const char *rel;
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        int fd = warder__local_open_target(l, rel, flags, O_RDONLY | O_DIRECTORY, NULL, norm.data,
                                           "cannot list", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        DIR *d = NULL;
        int e = read_dir(fd, &d, &v, &n);
        if (e) {
                rc = warder__local_fail_errno(err, -e, "cannot list", norm.data);
                goto out;
        }
        int dfd = dirfd(d);
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                if (warder__as_fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                        continue; /* vanished meanwhile */
                if (warder__local_join(&full, norm.data, norm.len, v[i].name) ||
                    warder_entries_add(&res, v[i].name, strlen(v[i].name), full.data,
                                       strlen(full.data), entry_type(st.st_mode),
                                       (uint64_t)st.st_size, (int64_t)st.st_mtime)) {
                        rc = warder__local_fail_oom(err);
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

/* A walk skips what it may not read and what vanished or changed under it; any other failure
 * (an I/O error, no memory, no descriptor left) ends it with an error, never with a result
 * that is silently partial. */
bool warder__local_walk_skips(int e)
{
        return e == EACCES || e == EPERM || e == ENOENT || e == ENOTDIR || e == ELOOP ||
               e == ENXIO || e == ENODEV;
}

int warder__local_walk_dir(struct walk *w, int dirfd_, int depth)
{
        struct dent *v = NULL;
        size_t n = 0;
        DIR *d = NULL;
        int e = read_dir(dirfd_, &d, &v, &n);
        if (e)
                return warder__local_walk_skips(-e)
                           ? 0
                           : warder__local_fail_errno(w->err, -e, "cannot walk", w->rel.data);
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
                        if (warder__as_fstatat(dfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                                continue;
                        type = S_ISDIR(st.st_mode)   ? DT_DIR
                               : S_ISREG(st.st_mode) ? DT_REG
                               : S_ISLNK(st.st_mode) ? DT_LNK
                                                     : DT_UNKNOWN;
                }
                if ((base_len && warder__buf_putc(&w->rel, '/')) ||
                    warder__buf_puts(&w->rel, v[i].name)) {
                        rc = warder__local_fail_oom(w->err);
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
                                int cfd = warder__as_openat(
                                    dfd, v[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                                    0);
                                if (cfd >= 0)
                                        rc = warder__local_walk_dir(w, cfd, depth + 1);
                                else if (!warder__local_walk_skips(errno))
                                        rc = warder__local_fail_errno(
                                            w->err, errno, "cannot walk into", w->rel.data);
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
        if (warder__local_join(&g->full, g->base, g->base_len, w->rel.data))
                return warder__local_fail_oom(w->err);
        const char *subject = g->absolute ? g->full.data : w->rel.data;
        size_t subject_len = g->absolute ? g->full.len : w->rel.len;
        int m = warder_glob_match(g->glob, subject, subject_len);
        if (m < 0)
                return warder_error_set(w->err, m, "glob: the matcher failed");
        if (m == 0)
                return 0;
        struct stat st;
        if (warder__as_fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                return 0;
        if (warder_entries_add(g->res, name, strlen(name), g->full.data, strlen(g->full.data),
                               entry_type(st.st_mode), (uint64_t)st.st_size, (int64_t)st.st_mtime))
                return warder__local_fail_oom(w->err);
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
 * the way is followed (openat(2) with a multi-component path would follow all but the
 * last). `fd` is consumed. Returns the new descriptor or -1.
 */
static int open_below(int fd, char *sub)
{
        for (char *p = sub, *slash; fd >= 0 && p; p = slash ? slash + 1 : NULL) {
                slash = strchr(p, '/');
                if (slash)
                        *slash = '\0';
                int next =
                    warder__as_openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
                if (slash)
                        *slash = '/';
                close(fd);
                fd = next;
        }
        return fd;
}

int warder__local_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
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
        int rc = warder__local_to_rel(l, base, &norm, &rel, err);
        if (rc)
                goto out;
        rc = warder_glob_compile(&g.glob, pattern, strlen(pattern), 0, err);
        if (rc)
                goto out;
        g.absolute = pattern[0] == '/';
        g.base = norm.data;
        g.base_len = norm.len;
        int fd = warder__local_open_target(l, rel, flags, O_RDONLY | O_DIRECTORY, NULL, norm.data,
                                           "cannot walk", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        if (warder__buf_puts(&w.rel, "")) {
                close(fd);
                rc = warder__local_fail_oom(err);
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
                                rc = warder__local_fail_oom(err);
                                goto out;
                        }
                        int sub = open_below(fd, start.data);
                        if (sub < 0)
                                goto done; /* missing, or a symlink (never followed): empty */
                        fd = sub;
                }
        }
        rc = warder__local_walk_dir(&w, fd, depth);
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
