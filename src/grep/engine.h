/* SPDX-License-Identifier: MIT */
/*
 * The grep engine (internal): one matcher for every grep of the library — the local
 * backend's and the fallback over ls + read (src/backend.c) — so both apply the same PCRE2
 * limits, the same binary-file test and the same fast paths.
 *
 * A compiled engine is immutable and shared by every thread of a grep; each thread searches
 * with its own scratch (match data, match context, JIT stack). A search reports every line
 * of a buffer that the pattern matches, in line order, exactly as the plain per-line PCRE2
 * loop would (WARDER__GREP_PLAIN forces that loop, the reference the fast paths are tested
 * against):
 *   - a plain literal or an alternation of plain literals (`a|b|c`), case-sensitive or
 *     ASCII case-insensitive: found without the regex, by a scan for the rarest byte of each
 *     literal (with several such bytes, for the two rarest of each literal at once, 16
 *     positions at a time) and a comparison around each hit;
 *   - a pattern with a byte every match contains: a scan for that byte (both cases of a
 *     letter), then the line;
 *   - any other pattern that cannot see across a line end: the same pattern in multi-line
 *     mode over the whole buffer finds the next candidate line, which is confirmed alone.
 */
#ifndef WARDER_GREP_ENGINE_H
#define WARDER_GREP_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "warder/error.h"

#define WARDER__GREP_BINARY_PROBE 8192 /* a NUL in these first bytes means binary */
#define WARDER__GREP_MATCH_LIMIT  10000000u
#define WARDER__GREP_DEPTH_LIMIT  100000u

enum {
        WARDER__GREP_CASELESS = 1u << 0, /* ASCII letters fold */
        WARDER__GREP_PLAIN = 1u << 1,    /* no fast path: the per-line reference */
        WARDER__GREP_NO_AVX2 = 1u << 2,  /* the SSE2 scan even where AVX2 runs (tests) */
};

struct warder__grep_engine;
struct warder__grep_scratch;

/* Compiles `pattern` (`len` bytes, no NUL) with the engine's limits. WARDER_EPARSE (with the
 * offset in err) for a bad pattern, WARDER_ENOMEM. */
int warder__grep_engine_new(struct warder__grep_engine **out, const char *pattern, size_t len,
                            unsigned flags, struct warder_error *err);
void warder__grep_engine_free(struct warder__grep_engine *e);

/* A thread's scratch for `e`, or NULL when out of memory. */
struct warder__grep_scratch *warder__grep_scratch_new(const struct warder__grep_engine *e);
void warder__grep_scratch_free(struct warder__grep_scratch *s);

/* Whether a file whose first bytes are `buf` is binary (a NUL among the first
 * WARDER__GREP_BINARY_PROBE bytes). */
bool warder__grep_is_binary(const char *buf, size_t n);

/* Called for each matching line: its 1-based number, its bytes without the newline. Returns 0
 * to go on, 1 to stop the search, or a negative status (returned by the search). */
typedef int (*warder__grep_emit_fn)(void *ud, uint64_t line, const char *text, size_t len);

/*
 * Searches the `n` bytes of `buf`. Returns 0 when the buffer was searched, or what emit
 * returned to stop. A line the regex could not decide within the limits is not reported and
 * sets *incomplete (the caller reports the result truncated: never silently partial).
 */
int warder__grep_search(const struct warder__grep_engine *e, struct warder__grep_scratch *s,
                        const char *buf, size_t n, warder__grep_emit_fn emit, void *ud,
                        bool *incomplete);

/*
 * What each worker thread of a multi-threaded grep runs when it starts and before it ends,
 * on that thread: per-thread state such as file-system credentials (setfsuid) that must hold
 * on every thread that touches files. NULL members: nothing to run.
 */
struct warder__grep_hooks {
        void (*worker_enter)(void *ud);
        void (*worker_leave)(void *ud);
        void *ud;
};

#endif
