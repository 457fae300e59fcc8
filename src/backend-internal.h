/* SPDX-License-Identifier: MIT */
#ifndef WARDER_BACKEND_INTERNAL_H
#define WARDER_BACKEND_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"
#include "warder/sys/backend.h"

/* Budget of the library's directory walks (glob and grep fallbacks): WARDER_ELIMIT beyond. */
#define WARDER__WALK_MAX_DEPTH   256
#define WARDER__WALK_MAX_ENTRIES 1000000

/*
 * The replacement step of edit, shared by the fallback and native implementations:
 * replaces `old_text` (old_len > 0) in `data` by `new_text` into `out` (cleared first).
 * WARDER_ENOMATCH when absent, WARDER_EAMBIGUOUS when repeated without WARDER_EDIT_ALL;
 * `path` only names the file in messages. *count receives the number of replacements.
 */
int warder__edit_apply(const char *data, size_t len, const char *old_text, size_t old_len,
                       const char *new_text, size_t new_len, unsigned flags, const char *path,
                       struct warder__buf *out, size_t *count, struct warder_error *err);

/* Whether a backend's ops table has the slots of version `since` (sys/backend.h): a slot is
 * read only from a table of the version that introduced it or later. */
bool warder__ops_has(const struct warder_backend_ops *ops, unsigned since);

/* What backend `b` promises (WARDER_BACKEND_CAP_*; 0 for anything not a backend), and whether
 * it has a grep of its own (without one, the dispatcher's fallback greps, and that fallback
 * honours may_search). A caller asks the dispatcher rather than reading `b->ops`. */
unsigned warder__backend_caps(const warder_backend *b);
bool warder__backend_has_grep(const warder_backend *b);

#endif
