/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2): a real directory tree confined to a root by the kernel.
 *
 * This file holds the constructor, the operations table, read, write and edit, and acting as
 * the agent (§6.6). The rest of the backend sits beside it: confinement and opening targets
 * (confine.c), ls and glob (walk.c), grep (grep.c), execute (exec.c, mask.c), each with its
 * own header; local-internal.h is what this file offers the library and the tests.
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
#include "exec.h"
#include "grep.h"
#include "local-internal.h"
#include "walk.h"
#include "util.h"
#include "warder/glob.h"

static const struct warder_backend_ops local_ops;
static const struct warder_backend_ops local_exec_ops;

static int local_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                      unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
        if (rc) {
                warder__buf_free(&norm);
                return rc;
        }
        char *data = NULL;
        size_t len = 0;
        bool more = false;
        rc = warder__local_read_rel(l, rel, flags, offset, limit,
                                    warder__local_cap_or(l->opts.max_read, LOCAL_DEFAULT_CAP),
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
        if (warder__local_follows(l, flags)) {
                int rc = warder__local_real_rel(l, parent, scratch, shown_path, err);
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
                        rc = warder__local_fail_errno(err, ENAMETOOLONG,
                                                      "cannot create the directory of", shown_path);
                        break;
                }
                memcpy(comp, p, n);
                comp[n] = '\0';
                int fd =
                    warder__as_openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
                if (fd < 0 && errno == ENOENT) {
                        if (warder__as_mkdirat(dfd, comp, 0777) != 0 && errno != EEXIST) {
                                rc = warder__local_fail_errno(
                                    err, errno, "cannot create the directory of", shown_path);
                                break;
                        }
                        fd = warder__as_openat(dfd, comp,
                                               O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
                }
                if (fd < 0) {
                        int e = errno;
                        struct stat st;
                        if (e == ENOTDIR &&
                            warder__as_fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISLNK(st.st_mode))
                                e = ELOOP;
                        rc = warder__local_fail_errno(err, e, "cannot create the directory of",
                                                      shown_path);
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
                                              warder__local_shown(shown_path, tmp));
                        goto out;
                }
                if (split_rel(rel, &parent, &name)) {
                        rc = warder__local_fail_oom(err);
                        goto out;
                }
                dfd = warder__local_open_target(l, parent.data, flags, O_PATH | O_DIRECTORY, NULL,
                                                shown_path, "cannot open the directory of", err);
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
                if (warder__as_fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                        exists = true;
                        if (S_ISLNK(st.st_mode)) {
                                if (!warder__local_follows(l, flags) || attempt >= 4) {
                                        rc = warder_error_set(err, WARDER_ESYMLINK,
                                                              "'%s': symbolic link refused",
                                                              warder__local_shown(shown_path, tmp));
                                        goto out;
                                }
                                /* Follow it: write to the link's real form instead. */
                                rc = warder__local_real_rel(l, rel, &real, shown_path, err);
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
                                                      warder__local_shown(shown_path, tmp));
                                goto out;
                        }
                        if (!S_ISREG(st.st_mode)) {
                                rc = warder_error_set(err, WARDER_ENOTREG,
                                                      "'%s' is not a regular file",
                                                      warder__local_shown(shown_path, tmp));
                                goto out;
                        }
                        /* Set-user-ID and set-group-ID never survive a replacement (the
                         * kernel clears them on an ordinary write by an unprivileged user). */
                        mode = st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
                } else if (errno != ENOENT) {
                        rc = warder__local_fail_errno(err, errno, "cannot stat", shown_path);
                        goto out;
                }
                for (int i = 0; i < 16; i++) {
                        temp_name(tname);
                        /* New files get 0666 minus the umask, as open(2) would give them. */
                        fd = warder__as_openat(dfd, tname,
                                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                               exists ? 0600 : 0666);
                        if (fd >= 0 || errno != EEXIST)
                                break;
                }
                if (fd < 0) {
                        rc = warder__local_fail_errno(
                            err, errno, "cannot create a temporary file beside", shown_path);
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
                        rc = warder__local_fail_errno(err, -e, "cannot write", shown_path);
                        goto out;
                }
                if (warder__as_renameat(dfd, tname, dfd, name) != 0) {
                        e = errno;
                        rc = warder__local_fail_errno(err, e == ENOTDIR || e == EISDIR ? EISDIR : e,
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
                warder__as_unlinkat(dfd, tname, 0);
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
        uint64_t cap = warder__local_cap_or(l->opts.max_write, LOCAL_DEFAULT_CAP);
        if ((uint64_t)len > cap)
                return warder_error_set(err, WARDER_ETOOBIG,
                                        "%zu bytes exceed the write cap of %llu bytes", len,
                                        (unsigned long long)cap);
        struct warder__buf norm = WARDER__BUF_INIT;
        const char *rel;
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
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
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        /* Read and write the same file: resolve symlinks once, then never follow. */
        if (warder__local_follows(l, flags)) {
                rc = warder__local_real_rel(l, rel, &real, norm.data, err);
                if (rc)
                        goto out;
                rel = real.data;
        }
        flags |= WARDER_NOFOLLOW;
        rc = warder__local_read_rel(l, rel, flags, 0, 0,
                                    warder__local_cap_or(l->opts.max_read, LOCAL_DEFAULT_CAP),
                                    norm.data, &data, &len, &more, err);
        if (rc)
                goto out;
        size_t n = 0;
        rc = warder__edit_apply(data, len, old_text, old_len, new_text, new_len, flags,
                                warder__local_shown(norm.data, tmp), &next, &n, err);
        if (rc)
                goto out;
        uint64_t cap = warder__local_cap_or(l->opts.max_write, LOCAL_DEFAULT_CAP);
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

/* ---- realpath, execute, lifecycle ------------------------------------------------------- */

static int local_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT, real = WARDER__BUF_INIT, abs = WARDER__BUF_INIT;
        const char *rel;
        int rc = warder__local_to_rel(l, path, &norm, &rel, err);
        if (rc)
                goto out;
        if (!l->opts.follow_symlinks) {
                /* Nothing is ever followed, so the real form is the literal form; any symlink on
                 * the path makes the operation itself fail with WARDER_ESYMLINK. */
                rc = warder__local_abs_of(l, rel, &abs);
        } else {
                rc = warder__local_real_rel(l, rel, &real, norm.data, err);
                if (rc)
                        goto out;
                rc = warder__local_abs_of(l, real.data, &abs);
        }
        if (rc) {
                rc = warder__local_fail_oom(err);
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
        return warder__local_exec(to_local(b), req, out, err);
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
 * the agent's file system credentials when the host asked for them, else unchanged. A read
 * and a realpath only look up and open, on this thread: they act through the thread's ring
 * (creds_enter_lookup), the others switch. */
#define AS_AGENT_BY(enter, b, err, call)                                                           \
        do {                                                                                       \
                struct warder__creds_saved sv_;                                                    \
                int rc_ = enter(&sv_, to_local(b)->as, (err));                                     \
                if (rc_)                                                                           \
                        return rc_;                                                                \
                rc_ = (call);                                                                      \
                return warder__creds_leave(&sv_, rc_, (err));                                      \
        } while (0)
#define AS_AGENT(b, err, call)        AS_AGENT_BY(warder__creds_enter, b, err, call)
#define AS_AGENT_LOOKUP(b, err, call) AS_AGENT_BY(warder__creds_enter_lookup, b, err, call)

static int as_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                   unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        AS_AGENT_LOOKUP(b, err, local_read(b, path, offset, limit, flags, out, err));
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
        AS_AGENT(b, err, warder__local_ls(b, path, flags, out, err));
}

static int as_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                   struct warder_entries *out, struct warder_error *err)
{
        AS_AGENT(b, err, warder__local_glob(b, pattern, base, flags, out, err));
}

static int as_grep(warder_backend *b, const struct warder_grep_request *req,
                   struct warder_grep_result *out, struct warder_error *err)
{
        AS_AGENT(b, err, warder__local_grep(b, req, out, err));
}

static int as_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        AS_AGENT_LOOKUP(b, err, local_realpath(b, path, out, err));
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
        return warder__local_is(b) ? warder__local_kopen(to_local(b), rel, oflags, 0) : -EINVAL;
}

int warder__local_open_dir(warder_backend *b, const char *path, int *fd_out,
                           struct warder_error *err)
{
        if (!warder__local_is(b) || !fd_out)
                return warder_error_set(err, WARDER_EINVAL, "not a local backend");
        return warder__local_open_in(to_local(b), path, fd_out, err);
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
                        return warder__local_fail_oom(err);
                memcpy(l->agent_groups, o->agent_groups, n * sizeof(*l->agent_groups));
                /* Sorted without duplicates, as the kernel keeps them (creds.h). */
                qsort(l->agent_groups, n, sizeof(*l->agent_groups), cmp_u32);
                size_t k = 0;
                for (size_t i = 0; i < n; i++)
                        if (!k || l->agent_groups[k - 1] != l->agent_groups[i])
                                l->agent_groups[k++] = l->agent_groups[i];
                n = k;
        }
        l->agent = (struct warder__creds){o->agent_uid, o->agent_gid, l->agent_groups, n,
                                          warder__creds_new_id()};
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
                                        "local: the root must be absolute: '%s'",
                                        warder__local_shown(root, tmp));
        struct local *l = calloc(1, sizeof(*l));
        if (!l)
                return warder__local_fail_oom(err);
        l->root_fd = -1;
        struct warder__buf norm = WARDER__BUF_INIT;
        rc = warder__path_normalize_buf(&norm, NULL, NULL, NULL, root, strlen(root), err);
        if (rc)
                goto fail;
        l->root_len = norm.len;
        l->root = warder__buf_steal(&norm);
        l->root_fd = open(l->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (l->root_fd < 0) {
                rc = warder__local_fail_errno(err, errno, "local: cannot open the root", l->root);
                goto fail;
        }
        if (l->root_fd < 3) {
                /* A host without stdio: keep the root off 0-2, which a child's stdio takes. */
                int fd = fcntl(l->root_fd, F_DUPFD_CLOEXEC, 3);
                if (fd < 0) {
                        rc = warder__local_fail_errno(err, errno, "local: cannot open the root",
                                                      l->root);
                        goto fail;
                }
                close(l->root_fd);
                l->root_fd = fd;
        }
        struct stat rst;
        struct statfs rsf;
        if (fstat(l->root_fd, &rst) == 0 && fstatfs(l->root_fd, &rsf) == 0) {
                l->root_dev = rst.st_dev;
                l->plain = warder__local_fold_class((unsigned long)rsf.f_type) == FOLD_NEVER;
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
                rc = warder__local_fail_oom(err);
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
                long fd = warder__local_sys_openat2(l->root_fd, ".", &how);
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
