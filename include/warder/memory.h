/* SPDX-License-Identifier: MIT */
#ifndef WARDER_MEMORY_H
#define WARDER_MEMORY_H

#include "backend.h"
#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The in-memory backend (§6.1): a file tree in process memory, in its own absolute namespace
 * (the root directory "/" always exists). All storage operations; no execute, no symlinks.
 * Writing a file creates its missing parent directories. Safe for concurrent use.
 */
WARDER_API int warder_memory_new(warder_backend **out, struct warder_error *err);

/* Creates a directory and its missing parents (a host or test helper). `path` is `path_len`
 * bytes: an embedded NUL or an empty path is WARDER_EINVAL. */
WARDER_API int warder_memory_mkdir(warder_backend *mem, const char *path, size_t path_len,
                                   struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
