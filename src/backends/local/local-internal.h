/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_INTERNAL_H
#define WARDER_LOCAL_INTERNAL_H

/*
 * Internal contract between the files of the local backend (§6.2, §6.3), all in
 * src/backends/local/: local.c owns the backend object (constructor, operations table, read,
 * write, edit, acting as the agent); confine.c opens beneath the root; walk.c lists and
 * globs; grep.c greps; exec.c and mask.c run `execute` (with ../landlock.c).
 *
 * local.c installs an `execute` slot only when the host set `opts.exec`; that slot calls
 * warder__local_exec() (exec.c).
 */

#include <stdbool.h>
#include <sys/types.h>

#include "backend-internal.h"
#include "backends/creds.h"
#include "util.h"

#include "warder/local.h"
#include "warder/sys/backend.h"

/*
 * Runs `req` (§6.3). `root_fd` is an O_PATH|O_DIRECTORY descriptor of the root, owned by
 * the backend (do not close it); `root` is the root as the host gave it, normalised (§3.1).
 * `opts` is the backend's private deep copy of the host's options: its string arrays live
 * as long as the backend (which holds no ruleset: what to mask comes with `req`). `req` and
 * `out` are as warder_backend_execute() hands them over (`out` is zeroed; fill it with the
 * result helpers; outputs untouched on failure).
 */
int warder__local_exec(warder_backend *b, int root_fd, const char *root,
                       const struct warder_local_options *opts,
                       const struct warder_exec_request *req, struct warder_exec_result *out,
                       struct warder_error *err);

/*
 * Opens the directory `path` (an absolute host path, e.g. an exec request's cwd) beneath the
 * root of local backend `b`, with the backend's confinement (no escape through `..`,
 * symlinks or magic links; symlinks inside the root are followed only as the backend's
 * options allow). On success *fd_out is an O_PATH|O_DIRECTORY|O_CLOEXEC descriptor the
 * caller closes. Errors: WARDER_EOUTSIDE, WARDER_ENOENT, WARDER_ENOTDIR, WARDER_ESYMLINK,
 * WARDER_EACCES, WARDER_EINVAL.
 */
int warder__local_open_dir(warder_backend *b, const char *path, int *fd_out,
                           struct warder_error *err);

/* True when `b` is a local backend. */
bool warder__local_is(const warder_backend *b);

/* True when `b` (a local backend) opens through openat2, false when it walks with
 * O_NOFOLLOW (openat2 missing, or opts.force_fallback). For tests. */
bool warder__local_uses_openat2(const warder_backend *b);

/*
 * For tests of the confinement on its own: opens `rel` (relative to the root, NOT normalised,
 * so a raw `..` reaches the kernel) with the backend's kernel-confined open, as every
 * operation does after normalising. Returns a descriptor (the caller closes it) or -errno.
 */
int warder__local_open_raw(warder_backend *b, const char *rel, int oflags);

/*
 * For tests: when set, names the temporary file of the next write (`size` bytes of `buf`)
 * instead of a random name, so a test can plant something at that name first.
 */
extern void (*warder__local_temp_name_hook)(char *buf, size_t size);

/* ---- shared between the files of src/backends/local/ ---------------------------- */

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

static inline struct local *to_local(warder_backend *b)
{
        return (struct local *)b;
}

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

/* confine.c: messages, paths relative to the root, the kernel-confined open, the real form of
 * a path (§3.2), opening a target and reading it. */
const char *warder__local_shown(const char *s, char tmp[static 256]);
int warder__local_fail_errno(struct warder_error *err, int e, const char *what, const char *path);
int warder__local_fail_oom(struct warder_error *err);
int warder__local_to_rel(struct local *l, const char *path, struct warder__buf *norm,
                         const char **rel, struct warder_error *err);
int warder__local_abs_of(const struct local *l, const char *rel, struct warder__buf *out);
struct open_how;
long warder__local_sys_openat2(int dfd, const char *path, struct open_how *how);
int warder__local_kopen(const struct local *l, const char *rel, int oflags, mode_t mode);
enum fold_class warder__local_fold_class(unsigned long type);
int warder__local_real_rel(const struct local *l, const char *rel, struct warder__buf *out,
                           const char *shown_path, struct warder_error *err);
bool warder__local_follows(const struct local *l, unsigned flags);
int warder__local_open_target(const struct local *l, const char *rel, unsigned flags, int oflags,
                              struct warder__buf *resolved, const char *shown_path,
                              const char *what, struct warder_error *err);
ssize_t warder__local_read_full(int fd, char *buf, size_t want, uint64_t offset);
int warder__local_read_rel(const struct local *l, const char *rel, unsigned flags, uint64_t offset,
                           uint64_t limit, uint64_t cap, const char *shown_path, char **data,
                           size_t *len, bool *more, struct warder_error *err);
uint64_t warder__local_cap_or(uint64_t v, uint64_t def);

/* walk.c: the walk below a directory (shared with grep), ls and glob. */
int warder__local_join(struct warder__buf *b, const char *base, size_t base_len, const char *name);
bool warder__local_walk_skips(int e);
int warder__local_walk_dir(struct walk *w, int dirfd_, int depth);
int warder__local_ls(warder_backend *b, const char *path, unsigned flags,
                     struct warder_entries *out, struct warder_error *err);
int warder__local_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                       struct warder_entries *out, struct warder_error *err);

/* grep.c: grep over the walk and a pool of workers. */
int warder__local_grep(warder_backend *b, const struct warder_grep_request *req,
                       struct warder_grep_result *out, struct warder_error *err);

#endif
