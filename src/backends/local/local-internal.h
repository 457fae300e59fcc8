/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_INTERNAL_H
#define WARDER_LOCAL_INTERNAL_H

/*
 * Internal contract between the local backend (local.c: storage, confinement) and its
 * `execute` operation (exec.c, landlock.c: §6.3).
 *
 * local.c owns the backend object. It installs an `execute` slot only when the host set
 * `opts.exec`; that slot calls warder__local_exec() (exec.c).
 */

#include <stdbool.h>

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

#endif
