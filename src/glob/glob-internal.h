/* SPDX-License-Identifier: MIT */
#ifndef WARDER_GLOB_INTERNAL_H
#define WARDER_GLOB_INTERNAL_H

#include <stddef.h>

#include "util.h"
#include "warder/glob.h"

/*
 * Internal API of the core matcher, for the rule layer (§2.11): braces are expanded first,
 * each alternative is anchored by the rule layer, and the union is compiled as one pattern.
 */

/* Expands braces (§2.6) into alternatives with no alternation braces left (escapes are
 * kept, literal `{a}` stays). Enforces the §2.13 limits and validates the whole pattern
 * (classes, escapes) at its original offsets; errors carry err->offset like
 * warder_glob_compile(). With WARDER_GLOB_NO_BRACES or WARDER_GLOB_COMMAND the result is
 * the pattern itself. The strings are NUL-terminated: an escaped NUL byte (`\` NUL) comes
 * out as the equivalent class `[!\x01-\xff]` written with raw bytes, so strlen() is the
 * length. Free the result with warder__glob_strv_free(). */
int warder__glob_expand(const char *pattern, size_t len, unsigned flags, char ***out, size_t *count,
                        struct warder_error *err);
void warder__glob_strv_free(char **v, size_t count);

/* The checks warder_glob_compile() starts with (the §2.13 limits, braces, classes, escapes,
 * NUL bytes), with the same errors, without compiling: 0 when only the engine itself could
 * still refuse the pattern. */
int warder__glob_validate(const char *pattern, size_t len, unsigned flags,
                          struct warder_error *err);

/* Internal flag: JIT-compile only after a few matches (rule globs, see glob.c). */
#define WARDER__GLOB_LAZY_JIT (1u << 30)

/* warder_glob_compile() that also takes WARDER__GLOB_LAZY_JIT. */
int warder__glob_compile(warder_glob **out, const char *pattern, size_t len, unsigned flags,
                         struct warder_error *err);

/* Compiles the union of `n` (>= 1) alternatives, each as with WARDER_GLOB_NO_BRACES | flags.
 * `display` is what warder_glob_pattern() reports; warder_glob_flags() reports `flags`.
 * Errors inside an alternative carry err->offset relative to that alternative. */
int warder__glob_compile_union(warder_glob **out, const char *const *alts, const size_t *lens,
                               size_t n, unsigned flags, const char *display, size_t display_len,
                               struct warder_error *err);

/* Whether `subject` followed by some bytes (possibly none) matches: 1 when it does, 0 when no
 * extension can, negative on an engine error (the caller fails closed, §2.10). */
int warder__glob_match_prefix(const warder_glob *glob, const char *subject, size_t len);

/* Appends `s` to `out` with every glob-special byte escaped (`\ * ? [ ] { } , ! ~`, space
 * and tab; `/` is left alone so that it stays a separator), so it matches only itself, in
 * path and command patterns alike. A NUL byte in `s` is WARDER_EINVAL. */
int warder__glob_escape(struct warder__buf *out, const char *s, size_t len);

#endif
