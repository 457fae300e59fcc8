/* SPDX-License-Identifier: MIT */
#ifndef WARDER_UTIL_H
#define WARDER_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "warder/error.h"

#define WARDER__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The operations' names, indexed by enum warder_op (decision.c; warder_op_name() checks the
 * index). */
extern const char *const warder__op_names[];

/* Makes room in the array `*(T **)arrp` of *cap elements of `size` bytes for `need` of them:
 * doubles the capacity (from `first` when it is 0) until they fit. WARDER_ENOMEM, with the
 * array untouched, when out of memory or when the size would overflow. */
int warder__grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first);

/* A deep copy of the NULL-terminated string array `src` into *out (NULL for a NULL `src`);
 * WARDER_ENOMEM, with *out NULL, when out of memory. */
int warder__strv_dup(const char *const *src, char ***out);
/* Frees such a copy (NULL is accepted). */
void warder__strv_free(char **v);

/* A growable byte buffer, always NUL-terminated once anything was appended. */
struct warder__buf {
        char *data;
        size_t len;
        size_t cap;
};

#define WARDER__BUF_INIT                                                                           \
        {                                                                                          \
                NULL, 0, 0                                                                         \
        }

int warder__buf_reserve(struct warder__buf *b, size_t extra);
int warder__buf_append(struct warder__buf *b, const void *data, size_t len);
int warder__buf_puts(struct warder__buf *b, const char *s);
int warder__buf_putc(struct warder__buf *b, char c);
int warder__buf_printf(struct warder__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void warder__buf_truncate(struct warder__buf *b, size_t len);
/* Hands the data over (NUL-terminated, never NULL on success) and resets the buffer. */
char *warder__buf_steal(struct warder__buf *b);
void warder__buf_free(struct warder__buf *b);

/* Whether the library may write to `err`: present, and of the version it knows. */
static inline bool warder__err_ok(const struct warder_error *err)
{
        return err && err->version == WARDER_ERROR_VERSION;
}

/* Fills err with a location (ruleset errors); returns code. */
int warder__error_set_at(struct warder_error *err, int code, const char *file, unsigned line,
                         unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
int warder__error_vset(struct warder_error *err, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Moves the temporary error `from` into the caller's `err` (which may be NULL: `from` is
 * then cleared); `from` is left as WARDER_ERROR_INIT. */
void warder__error_move(struct warder_error *err, struct warder_error *from);

/*
 * Normalises into `out` (cleared first) as warder_path_normalize() does (§3.1).
 * `root`/`home`/`cwd` may be NULL; see the public function for the rules.
 */
int warder__path_normalize_buf(struct warder__buf *out, const char *root, const char *home,
                               const char *cwd, const char *input, size_t len,
                               struct warder_error *err);

#endif
