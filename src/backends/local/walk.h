/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_WALK_H
#define WARDER_LOCAL_WALK_H

/*
 * The local backend's walks (walk.c): the walk below a directory that grep shares, ls and glob.
 */

#include "confine.h"

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

int warder__local_join(struct warder__buf *b, const char *base, size_t base_len, const char *name);
bool warder__local_walk_skips(int e);
int warder__local_walk_dir(struct walk *w, int dirfd_, int depth);
int warder__local_ls(warder_backend *b, const char *path, unsigned flags,
                     struct warder_entries *out, struct warder_error *err);
int warder__local_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                       struct warder_entries *out, struct warder_error *err);

#endif
