/* SPDX-License-Identifier: MIT */
#ifndef WARDER_GLOB_IMPL_H
#define WARDER_GLOB_IMPL_H

/* Shared between the files of the core matcher only (src/glob/). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "warder/glob.h"

/* A set of bytes (a bracket expression after folding and negation). */
struct warder__glob_set {
        uint8_t bits[32];
};

static inline void warder__glob_set_add(struct warder__glob_set *s, unsigned c)
{
        s->bits[(c & 0xffu) >> 3] |= (uint8_t)(1u << (c & 7u));
}

static inline bool warder__glob_set_has(const struct warder__glob_set *s, unsigned c)
{
        return (s->bits[(c & 0xffu) >> 3] >> (c & 7u)) & 1u;
}

/* Sets err (may be NULL) with code, message and err->offset; returns code. */
int warder__glob_fail(struct warder_error *err, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Parses the bracket expression that starts at p[start] == '[' (§2.5). On success stores the
 * index just after its closing ']' in *end and, when `set` is not NULL, the bytes it matches
 * with `flags` applied (folding; `/` excluded unless WARDER_GLOB_COMMAND).
 */
int warder__glob_parse_class(const char *p, size_t len, size_t start, unsigned flags,
                             struct warder__glob_set *set, size_t *end, struct warder_error *err);

/* The alternatives of a brace expansion, with their lengths. */
struct warder__glob_alts {
        struct warder__buf *v;
        size_t n;
};

/* As warder__glob_expand(), but keeps lengths; free with warder__glob_alts_free(). */
int warder__glob_expand_alts(const char *pattern, size_t len, unsigned flags,
                             struct warder__glob_alts *out, struct warder_error *err);
void warder__glob_alts_free(struct warder__glob_alts *a);

/* warder_glob_match() without the JIT, as on a system where the JIT is unavailable (tests). */
int warder__glob_match_interpreted(const warder_glob *glob, const char *subject, size_t len);

#endif
