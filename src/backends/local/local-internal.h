/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_INTERNAL_H
#define WARDER_LOCAL_INTERNAL_H

/*
 * What local.c (the local backend's object: constructor, operations table, read, write, edit,
 * acting as the agent) offers the rest of the library and the tests. The backend's other
 * files, each with its own header, sit beneath it: confine.h (the backend object, opening
 * beneath the root), walk.h (ls, glob), grep.h, exec.h and mask.h (execute).
 */

#include <stdbool.h>

#include "warder/local.h"
#include "warder/sys/backend.h"

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

#endif
