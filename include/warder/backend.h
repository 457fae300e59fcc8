/* SPDX-License-Identifier: MIT */
#ifndef WARDER_BACKEND_H
#define WARDER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A backend: storage (read, write, edit, ls, glob, grep) and optionally a shell (execute).
 * Users call the warder_backend_<verb>() functions below; implementers see sys/backend.h.
 * Paths are absolute in the backend's namespace; they are length-delimited (`path_len`
 * bytes), an embedded NUL or an empty path is WARDER_EINVAL.
 */
typedef struct warder_backend warder_backend;

/* Request flags. */
enum warder_request_flags {
        /* The host approved this request: satisfies `ask`, never `deny` (§4.4). */
        WARDER_APPROVED = 1u << 0,
        /* edit: replace every occurrence instead of requiring exactly one. */
        WARDER_EDIT_ALL = 1u << 1,
        /* grep: ASCII case-insensitive pattern. */
        WARDER_GREP_CASELESS = 1u << 2,
        /* The path is a real form (§3.2) the caller obtained from this backend's realpath: open
         * it without following any symlink (one met is WARDER_ESYMLINK; one planted at a write's
         * destination is replaced, never followed). The guard sets it on every path operation it
         * forwards to a backend that has realpath (§4.2), so a symlink swapped in after the
         * decision is an error, not an escape. Backends that do not follow symlinks ignore it. */
        WARDER_NOFOLLOW = 1u << 3,
};

/*
 * Results. A function that fills one wants it initialised (its `version` is checked,
 * WARDER_EINVAL otherwise): with the _INIT macro, or the _init() function below.
 */

/* Bytes returned by read and exec. `data` is NUL-terminated for convenience (not counted). */
struct warder_bytes {
        unsigned version; /* WARDER_BYTES_VERSION */
        char *data;
        size_t len;
        bool truncated;
};

#define WARDER_BYTES_VERSION 1
#define WARDER_BYTES_INIT                                                                          \
        {                                                                                          \
                WARDER_BYTES_VERSION, NULL, 0, false                                               \
        }

enum warder_entry_type {
        WARDER_ENTRY_FILE = 0,
        WARDER_ENTRY_DIR,
        WARDER_ENTRY_SYMLINK,
        WARDER_ENTRY_OTHER,
};

struct warder_entry {
        char *name; /* last component, raw bytes, NUL-terminated */
        char *path; /* absolute path in the backend's namespace */
        enum warder_entry_type type;
        uint64_t size;
        int64_t mtime; /* seconds since the epoch */
};

/* ls and glob results. `hidden` counts entries a guard dropped. The items are versioned by
 * their container. */
struct warder_entries {
        unsigned version; /* WARDER_ENTRIES_VERSION */
        struct warder_entry *items;
        size_t count;
        size_t hidden;
};

#define WARDER_ENTRIES_VERSION 1
#define WARDER_ENTRIES_INIT                                                                        \
        {                                                                                          \
                WARDER_ENTRIES_VERSION, NULL, 0, 0                                                 \
        }

struct warder_grep_match {
        char *path;    /* absolute */
        uint64_t line; /* 1-based */
        char *text;    /* the line without its newline, NUL-terminated */
        size_t text_len;
};

/* grep results (items versioned by their container). */
struct warder_grep_result {
        unsigned version; /* WARDER_GREP_RESULT_VERSION */
        struct warder_grep_match *items;
        size_t count;
        /* Files in scope that were skipped unsearched because the request's may_search refused
         * them (§4.7): a guard refuses every file that is deny or ask for grep or read. The
         * count depends on names only (never on what the files contain). */
        size_t hidden_files;
        bool truncated; /* stopped at max_matches or a byte cap (searched files only) */
};

#define WARDER_GREP_RESULT_VERSION 1
#define WARDER_GREP_RESULT_INIT                                                                    \
        {                                                                                          \
                WARDER_GREP_RESULT_VERSION, NULL, 0, 0, false                                      \
        }

/*
 * Asked by grep before it opens a file in scope (§4.7): true to search it, false to skip it
 * unopened and count it in hidden_files. `path` is the file's absolute path in the backend's
 * namespace, NUL-terminated, as a match in that file would carry it (`path_len` bytes).
 * Called during the grep, before the file is opened. The library's backends call it on the
 * calling thread (a multi-threaded local grep walks there and searches on workers); another
 * backend may call it from its own threads, so a guard's predicate is thread-safe.
 */
typedef bool (*warder_grep_filter_fn)(void *ud, const char *path, size_t path_len);

/*
 * A grep. `pattern` is `pattern_len` bytes and `glob` (optional) `glob_len` bytes: an embedded
 * NUL is WARDER_EINVAL, never a search for a shorter pattern. A `pattern_len` of 0 with a
 * pattern that does not start with NUL is WARDER_EINVAL too (a length left unset is refused,
 * not taken for the empty pattern, which matches every line). Only version 3 is accepted: the
 * earlier ones carried C strings.
 */
struct warder_grep_request {
        unsigned version;
        const char *pattern; /* PCRE2 pattern */
        const char *path;    /* base path (file or directory) */
        size_t path_len;
        const char *glob; /* optional filter on file paths (core glob, relative to base), or NULL */
        unsigned flags;   /* WARDER_GREP_CASELESS, WARDER_APPROVED */
        size_t max_matches; /* 0: no limit */
        /* Version 2. Which files may be searched; NULL: every file. A guard sets it (and keeps
         * the caller's own: a file must pass both). */
        warder_grep_filter_fn may_search;
        void *may_search_ud;
        size_t pattern_len; /* version 3 */
        size_t glob_len;    /* version 3 */
        /* Version 4. Threads that search (0: one per online CPU; 1: the calling thread only).
         * The result is the same for every value: files in the walk's path order (bytewise
         * name order, depth first), lines in file order. A version 3 request searches with
         * the default. */
        unsigned threads;
};

#define WARDER_GREP_REQUEST_VERSION 4
#define WARDER_GREP_REQUEST_INIT                                                                   \
        {                                                                                          \
                WARDER_GREP_REQUEST_VERSION, NULL, NULL, 0, NULL, 0, 0, NULL, NULL, 0, 0, 0        \
        }

/* Initialises `req` as WARDER_GREP_REQUEST_INIT does, for a caller built against `version`
 * of the struct (only that version's members are written). WARDER_EINVAL for a version this
 * library does not know. */
WARDER_API int warder_grep_request_init(struct warder_grep_request *req, unsigned version);

/*
 * A cancellation flag for a running operation, raised from any thread (or a signal handler)
 * with warder_cancel_trigger(). execute watches it: the command's process group is killed
 * and the result says `cancelled`. Once raised it stays raised; use one per operation.
 */
typedef struct warder_cancel warder_cancel;

WARDER_API int warder_cancel_new(warder_cancel **out);   /* WARDER_ENOMEM, WARDER_EIO */
WARDER_API void warder_cancel_trigger(warder_cancel *c); /* async-signal-safe; NULL ignored */
WARDER_API bool warder_cancel_triggered(const warder_cancel *c); /* false for NULL */
/* A descriptor that polls readable once the flag is raised (for backends that wait in
 * poll()); it belongs to the flag. -1 for NULL. */
WARDER_API int warder_cancel_fd(const warder_cancel *c);
WARDER_API void warder_cancel_free(warder_cancel *c);

/* Called with output as it is produced; stream 1 = stdout, 2 = stderr. */
typedef void (*warder_exec_stream_fn)(void *ud, int stream, const char *data, size_t len);

/* How a backend that masks (§6.5) covers a file or directory its walk meets. */
enum warder_mask_flags {
        WARDER_MASK_HIDE = 1u << 0,     /* denied for read: an empty, unreadable stand-in */
        WARDER_MASK_READONLY = 1u << 1, /* denied for write: bound read-only */
};

/*
 * Decides how to mask `literal` (absolute in the backend's namespace, NUL-terminated); `real`
 * is the file a symbolic link at `literal` leads to, else NULL. Returns WARDER_MASK_* flags
 * (0: leave it). A predicate that cannot decide returns WARDER_MASK_HIDE (fail closed).
 * Called on the calling thread, before the command starts.
 */
typedef unsigned (*warder_exec_mask_fn)(void *ud, const char *literal, const char *real);

struct warder_exec_request {
        unsigned version;
        const char *command; /* the shell command line */
        size_t command_len;
        const char *cwd;        /* absolute, inside the root; NULL: the root */
        uint32_t timeout_ms;    /* 0: the backend's default */
        const char *const *env; /* "NAME=VALUE", NULL-terminated; NULL: the backend's list */
        size_t max_output;      /* per stream; 0: the backend's default */
        warder_exec_stream_fn stream;
        void *stream_ud;
        unsigned flags; /* WARDER_APPROVED */
        /* Version 2: raised while the command runs, its process group is killed and the
         * result says `cancelled`. NULL: not cancellable. Borrowed for the call. */
        warder_cancel *cancel;
        /* Version 3. What to mask (§6.5), for a backend whose masking is enabled: a guard sets
         * it from its ruleset at the time of the request (keeping a predicate the caller gave:
         * the union of both is masked). A backend with masking enabled refuses a request
         * without one. */
        warder_exec_mask_fn mask;
        void *mask_ud;
};

#define WARDER_EXEC_REQUEST_VERSION 3
#define WARDER_EXEC_REQUEST_INIT                                                                   \
        {                                                                                          \
                WARDER_EXEC_REQUEST_VERSION, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, NULL, NULL, \
                    NULL                                                                           \
        }

/* Initialises `req` as WARDER_EXEC_REQUEST_INIT does, for a caller built against `version`. */
WARDER_API int warder_exec_request_init(struct warder_exec_request *req, unsigned version);

struct warder_exec_result {
        unsigned version; /* WARDER_EXEC_RESULT_VERSION */
        int exit_status;  /* exit code when the command exited, else -1 */
        int signal;       /* terminating signal, else 0 */
        bool timed_out;   /* the deadline passed and the process group was killed */
        struct warder_bytes out;
        struct warder_bytes err;
        bool landlock_applied;
        bool masked; /* denied files were masked in the child's mount namespace */
        /* Filled for requests of version 2 and later (an older caller's struct ends above). */
        bool cancelled; /* the request's cancel flag was raised and the group was killed */
        /* Filled for requests of version 3 and later. */
        bool pid_namespace; /* the command ran in a PID namespace of its own (§6.4) */
};

#define WARDER_EXEC_RESULT_VERSION 1
#define WARDER_EXEC_RESULT_INIT                                                                    \
        {                                                                                          \
                WARDER_EXEC_RESULT_VERSION, 0, 0, false, WARDER_BYTES_INIT, WARDER_BYTES_INIT,     \
                    false, false, false, false                                                     \
        }

/* Dispatch: what every caller uses. Results come first and are untouched on failure. */
WARDER_API int warder_backend_read(struct warder_bytes *out, warder_backend *b, const char *path,
                                   size_t path_len, uint64_t offset, uint64_t limit, unsigned flags,
                                   struct warder_error *err);
WARDER_API int warder_backend_write(warder_backend *b, const char *path, size_t path_len,
                                    const void *data, size_t len, unsigned flags,
                                    struct warder_error *err);
/* Replaces `old_text` by `new_text`; *count (may be NULL) receives the replacements made.
 * WARDER_ENOMATCH when absent, WARDER_EAMBIGUOUS when repeated without WARDER_EDIT_ALL. */
WARDER_API int warder_backend_edit(size_t *count, warder_backend *b, const char *path,
                                   size_t path_len, const char *old_text, size_t old_len,
                                   const char *new_text, size_t new_len, unsigned flags,
                                   struct warder_error *err);
WARDER_API int warder_backend_ls(struct warder_entries *out, warder_backend *b, const char *path,
                                 size_t path_len, unsigned flags, struct warder_error *err);
/* `pattern` is `pattern_len` bytes: an embedded NUL or an empty pattern is WARDER_EINVAL. */
WARDER_API int warder_backend_glob(struct warder_entries *out, warder_backend *b,
                                   const char *pattern, size_t pattern_len, const char *base,
                                   size_t base_len, unsigned flags, struct warder_error *err);
WARDER_API int warder_backend_grep(struct warder_grep_result *out, warder_backend *b,
                                   const struct warder_grep_request *req, struct warder_error *err);
WARDER_API int warder_backend_execute(struct warder_exec_result *out, warder_backend *b,
                                      const struct warder_exec_request *req,
                                      struct warder_error *err);
/* Real form (§3.2); *out is freed with warder_free(). WARDER_ENOTSUP without realpath. */
WARDER_API int warder_backend_realpath(char **out, warder_backend *b, const char *path,
                                       size_t path_len, struct warder_error *err);
WARDER_API bool warder_backend_can_execute(const warder_backend *b);
WARDER_API bool warder_backend_can_realpath(const warder_backend *b);
WARDER_API void warder_backend_free(warder_backend *b);

/* Result containers: initialise them empty (as their _INIT macros do), and release what they
 * own and reset them. NULL is accepted by the _free functions, and a container whose version
 * the library does not know is left alone. */
WARDER_API void warder_bytes_init(struct warder_bytes *bytes);
WARDER_API void warder_entries_init(struct warder_entries *entries);
WARDER_API void warder_grep_result_init(struct warder_grep_result *result);
WARDER_API void warder_exec_result_init(struct warder_exec_result *result);
WARDER_API void warder_bytes_free(struct warder_bytes *bytes);
WARDER_API void warder_entries_free(struct warder_entries *entries);
WARDER_API void warder_grep_result_free(struct warder_grep_result *result);
WARDER_API void warder_exec_result_free(struct warder_exec_result *result);

#ifdef __cplusplus
}
#endif

#endif
