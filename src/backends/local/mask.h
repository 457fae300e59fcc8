/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_MASK_H
#define WARDER_LOCAL_MASK_H

/*
 * The masking walk of execute (mask.c, §6.5), run in the parent before the child is spawned.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "warder/backend.h"
#include "warder/error.h"

/*
 * One thing to cover (§6.5). The walk decides on the name it meets, opens the file or
 * directory there (O_PATH, no symlink followed) and keeps that descriptor: the child mounts on
 * the file it names, wherever a rename has taken it since, never on whatever holds the name
 * by then (which it covers too).
 */
struct mask_entry {
        char *path; /* the name the walk met (mount target of the by-name control arm) */
        int fd;     /* O_PATH descriptor of what the walk decided on */
        dev_t dev;
        ino_t ino;
        bool dir;
        unsigned flags; /* WARDER_MASK_HIDE, WARDER_MASK_READONLY */
};

struct mask_list {
        struct mask_entry *items;
        size_t count, cap;
};

/* The monotonic clock in milliseconds. */
int64_t warder__exec_now_ms(void);
void warder__exec_mask_list_free(struct mask_list *l);
/*
 * Walks the tree at `root` (absolute, normalised) and collects what `fn` hides or makes
 * read-only (§6.5), each pinned by an O_PATH descriptor, in `masks` (freed with
 * warder__exec_mask_list_free()). Visits at most `max_entries` entries within `budget_ms`,
 * else WARDER_ELIMIT; WARDER_EACCES when the root cannot be examined.
 */
int warder__exec_collect_masks(const char *root, size_t max_entries, uint32_t budget_ms,
                               warder_exec_mask_fn fn, void *ud, struct mask_list *masks,
                               struct warder_error *err);

#endif
