/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_CONFINE_H
#define WARDER_LOCAL_CONFINE_H

/*
 * The local backend's object and its confinement (confine.c): what every other file of
 * src/backends/local/ builds on.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend-internal.h"
#include "backends/creds.h"
#include "util.h"
#include "warder/local.h"
#include "warder/sys/backend.h"

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

/* Messages, paths relative to the root, the kernel-confined open, the real form of a path
 * (§3.2), opening a target and reading it. */
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

/* Opens the directory `path` (absolute) beneath the root of `l`: see warder__local_open_dir(). */
int warder__local_open_in(struct local *l, const char *path, int *fd_out, struct warder_error *err);

#endif
