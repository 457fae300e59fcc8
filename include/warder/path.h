/* SPDX-License-Identifier: MIT */
#ifndef WARDER_PATH_H
#define WARDER_PATH_H

#include <stddef.h>

#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Produces the literal form of a target (semantics §3.1).
 *
 * `input` is `len` bytes and length-delimited: an empty input or an embedded NUL is
 * WARDER_EINVAL. A relative input is joined to `cwd` (or to `root` when `cwd` is NULL); `~`
 * and `~/…` expand to `home` (WARDER_EINVAL when `home` is NULL); `~user` is a relative name.
 * Runs of `/` collapse, `.` vanishes, `..` pops lexically and stops at `/`, a trailing `/` is
 * dropped. `root`, `home` and `cwd` must be absolute (WARDER_EINVAL otherwise) and are
 * normalised the same way. The result is absolute, NUL-terminated, and freed with
 * warder_free(); *out_len (may be NULL) receives its length.
 */
WARDER_API int warder_path_normalize(char **out, size_t *out_len, const char *root,
                                     const char *home, const char *cwd, const char *input,
                                     size_t len, struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
