/* SPDX-License-Identifier: MIT */
#ifndef WARDER_SYS_BACKEND_H
#define WARDER_SYS_BACKEND_H

#include "../backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * For backend implementers. A backend is a struct that embeds `struct warder_backend` as its
 * first member and points it at a static, never per-instance, ops table. Paths, patterns and
 * commands handed to the methods are NUL-terminated and contain no NUL (the dispatch layer
 * checks that); the guard hands over absolute, normalised paths, while a caller of an
 * unguarded backend may not. Results must be built with the helpers below (the library frees
 * them). Methods return 0 or a negative warder_status; an unknown code becomes
 * WARDER_EBACKEND.
 *
 * Versions of the ops table. The table only grows by appending slots; each slot below is
 * marked with the version that introduced it ("v1"). A table declares the version it was
 * written for in `version`, and the library reads a slot only when `version` is at least the
 * slot's version: a slot appended in version 2 is never read from a version-1 table (it would
 * lie past the end of the table), and counts as NULL there (fallback or WARDER_ENOTSUP), as
 * SQLite does with `sqlite3_io_methods.iVersion`.
 *
 *   version 1: read write edit ls glob grep execute realpath destroy caps
 */
#define WARDER_BACKEND_OPS_VERSION 1

struct warder_backend_ops {
        /* The version the table was written for, 1 to WARDER_BACKEND_OPS_VERSION. */
        unsigned version;

        /* v1. Required. Up to `limit` bytes (0: all) from `offset`. */
        int (*read)(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                    unsigned flags, struct warder_bytes *out, struct warder_error *err);
        /* v1. Required. Create or replace. */
        int (*write)(warder_backend *b, const char *path, const void *data, size_t len,
                     unsigned flags, struct warder_error *err);
        /* v1. Optional; fallback: read, replace, write. */
        int (*edit)(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                    const char *new_text, size_t new_len, unsigned flags, size_t *count,
                    struct warder_error *err);
        /* v1. Required. Entries of a directory (not recursive). */
        int (*ls)(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                  struct warder_error *err);
        /* v1. Optional; fallback: a walk over ls with the core matcher. `pattern` is relative to
         * `base` (an absolute pattern is matched against absolute paths). */
        int (*glob)(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                    struct warder_entries *out, struct warder_error *err);
        /* v1. Optional; fallback: a walk over ls + read + PCRE2. req->path, req->pattern and
         * req->glob are NUL-terminated (req->pattern_len and req->glob_len are their lengths);
         * req is always the newest version (the dispatch layer fills what an older caller left
         * out). See WARDER_BACKEND_CAP_GREP_FILTER for req->may_search. */
        int (*grep)(warder_backend *b, const struct warder_grep_request *req,
                    struct warder_grep_result *out, struct warder_error *err);
        /* v1. Optional, no fallback: WARDER_ENOTSUP when NULL. */
        int (*execute)(warder_backend *b, const struct warder_exec_request *req,
                       struct warder_exec_result *out, struct warder_error *err);
        /* v1. Optional, no fallback: without it real form == literal form. */
        int (*realpath)(warder_backend *b, const char *path, char **out, struct warder_error *err);
        /* v1. Required. Frees the backend (the struct that embeds the header too). */
        void (*destroy)(warder_backend *b);
        /* v1. What the backend promises (WARDER_BACKEND_CAP_*); 0 promises nothing. */
        unsigned caps;
};

/*
 * Under WARDER_NOFOLLOW, grep never passes through a symlink: the walk neither enters a
 * symlinked directory nor reads a symlinked file, so every path in its results is its own
 * real form and a guard does not resolve it again (§4.7). And ls reports every entry's own
 * type (a symlink as WARDER_ENTRY_SYMLINK), so a guard resolves only the symlinks it lists;
 * without this promise it resolves every entry (§4.6). A guard trusts this promise: a backend
 * that makes it and reports a hit through a symlink, or a symlink as a file, leaks that file.
 */
#define WARDER_BACKEND_CAP_REAL_RESULTS (1u << 0)

/*
 * Under WARDER_NOFOLLOW, read refuses with WARDER_ESYMLINK, having read nothing, any path with
 * a symlink in any component (the last one included), or with a component that is not
 * spelled as stored (a case-insensitive directory, §3.2). A guard may then forward an allowed
 * literal form without resolving it first: if the read succeeds, the path was its own real
 * form. A backend that makes this promise and follows a symlink (or a case-folded name) leaks
 * its target.
 */
#define WARDER_BACKEND_CAP_STRICT_NOFOLLOW (1u << 1)

/*
 * grep honours the request's may_search (§4.7): it asks before opening each file in scope
 * (the base too, when it is a file), never opens a file it refuses, counts those in
 * hidden_files, and lets only searched files count towards max_matches and `truncated`. A
 * guard over a backend without this promise still drops refused files' matches, but cannot
 * count skipped files (it reports 0) nor keep them out of `truncated`. The library's grep
 * fallback keeps the promise.
 */
#define WARDER_BACKEND_CAP_GREP_FILTER (1u << 2)

struct warder_backend {
        const struct warder_backend_ops *ops;
        unsigned magic_; /* library-private */
};

/*
 * Checks `ops` once (version 0, a newer version, or a missing required method is
 * WARDER_EINVAL naming the method: "incomplete backend: missing 'ls'") and initialises the
 * header. Call it from the backend's constructor before handing the backend out.
 */
WARDER_API int warder_backend_init(warder_backend *b, const struct warder_backend_ops *ops,
                                   struct warder_error *err);

/* Result helpers: they allocate with the library's allocator. WARDER_ENOMEM on failure. */
WARDER_API int warder_bytes_set(struct warder_bytes *out, const void *data, size_t len);
/* Appends one entry (copies of `name_len` bytes of name and `path_len` of path): a name or
 * path that is empty or holds a NUL byte is WARDER_EINVAL, and nothing is added. */
WARDER_API int warder_entries_add(struct warder_entries *out, const char *name, size_t name_len,
                                  const char *path, size_t path_len, enum warder_entry_type type,
                                  uint64_t size, int64_t mtime);
/* Appends one match: `path` as for an entry; `text` is bytes (it may hold NUL). */
WARDER_API int warder_grep_add(struct warder_grep_result *out, const char *path, size_t path_len,
                               uint64_t line, const char *text, size_t text_len);
WARDER_API char *warder_strndup(const char *s, size_t len); /* NULL on ENOMEM */
/* warder_error_set() and warder_error_set_message() fill a method's `err`: see error.h. */

#ifdef __cplusplus
}
#endif

#endif
