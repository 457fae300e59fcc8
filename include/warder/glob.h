/* SPDX-License-Identifier: MIT */
#ifndef WARDER_GLOB_H
#define WARDER_GLOB_H

#include <stddef.h>

#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The core matcher (semantics §2.1–§2.10): git's wildmatch with WM_PATHNAME, plus braces.
 * A pattern is compiled once and matched many times. A compiled pattern is immutable and may
 * be shared between threads; scratch space for matching is per thread.
 */
typedef struct warder_glob warder_glob;

enum warder_glob_flags {
        /* ASCII case folding on both sides, inside classes and after escapes too (§2.8). */
        WARDER_GLOB_FOLD_CASE = 1u << 0,
        /* Command patterns (§5.1): `*`, `?` and classes cross `/` and blanks, braces are
         * literal, runs of blanks compare as one space, a trailing " *" may match nothing. */
        WARDER_GLOB_COMMAND = 1u << 1,
        /* Treat braces as literal text (used after brace expansion has been done). */
        WARDER_GLOB_NO_BRACES = 1u << 2,
};

/* Limits of §2.13, enforced at compile time. */
#define WARDER_GLOB_MAX_PATTERN     4096
#define WARDER_GLOB_MAX_BRACE_DEPTH 32
#define WARDER_GLOB_MAX_EXPANSIONS  256

/*
 * Compiles `pattern` (`len` bytes; it may contain NUL only as an escaped literal) with `flags`.
 * On a malformed pattern returns WARDER_EPARSE with err->offset naming the offending byte and
 * err->message saying what is wrong; WARDER_ETOOBIG for a §2.13 limit.
 */
WARDER_API int warder_glob_compile(warder_glob **out, const char *pattern, size_t len,
                                   unsigned flags, struct warder_error *err);

/*
 * Matches `subject` (`len` bytes). Returns 1 on a match, 0 on no match, or a negative
 * status when the engine failed (match limit, JIT stack, memory): callers fail closed (§2.10).
 */
WARDER_API int warder_glob_match(const warder_glob *glob, const char *subject, size_t len);

/* The pattern as written, and the flags it was compiled with. */
WARDER_API const char *warder_glob_pattern(const warder_glob *glob, size_t *len);
WARDER_API unsigned warder_glob_flags(const warder_glob *glob);

/* Frees a compiled pattern; NULL is accepted. */
WARDER_API void warder_glob_free(warder_glob *glob);

#ifdef __cplusplus
}
#endif

#endif
