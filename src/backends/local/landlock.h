/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_LANDLOCK_H
#define WARDER_LOCAL_LANDLOCK_H

/*
 * Landlock for execute (landlock.c, §6.3): the ruleset is built in the parent, the child
 * restricts itself with it.
 */

#include <stdint.h>

#include "warder/error.h"

/* The kernel's Landlock ABI version, or 0 when Landlock is unavailable or disabled. */
int warder__landlock_abi(void);
/* Tests: when >= 0, the ABI version warder__landlock_abi() reports (0: unavailable). */
extern int warder__landlock_abi_override;

/*
 * Builds a Landlock ruleset in the caller (before fork): everything beneath `root` and the
 * `write` trees, read/execute beneath the `read` trees (NULL: the system defaults), rights
 * masked to the kernel's ABI. *out_fd receives a close-on-exec descriptor for
 * warder__landlock_restrict(). WARDER_ENOTSUP when Landlock is unavailable.
 */
int warder__landlock_build(const char *root, const char *const *read, const char *const *write,
                           int *out_fd, struct warder_error *err);

/* In the child: no_new_privs, then restrict itself. Async-signal-safe; 0 or an errno. */
int warder__landlock_restrict(int ruleset_fd);

/*
 * The rights the ruleset built from `read` (NULL: the defaults) grants beneath `path` when
 * `path` is one of its readable trees, else 0. The child grants them again on a file system
 * it mounts there itself (a fresh /proc) with warder__landlock_add_fd().
 */
uint64_t warder__landlock_read_access(const char *const *read, const char *path);
/* In the child: grants `access` beneath the directory `fd`. Async-signal-safe; 0 or an errno. */
int warder__landlock_add_fd(int ruleset_fd, int fd, uint64_t access);

/* The default readable trees and files (NULL-terminated), for the docs and tests. */
extern const char *const warder__landlock_default_read[];

#endif
