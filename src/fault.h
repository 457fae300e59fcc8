/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for tests (meson -Dfault_injection=true; never in a normal build).
 *
 * A fault-injection build numbers every failure point the library meets at run time and can
 * make the N-th one fail, so a test can walk N over every point of an operation and check
 * that each ends in an error or in the stricter decision (tests/test-fault.c). The points:
 *
 *   ALLOC    malloc, calloc, realloc, strdup, strndup, asprintf (returns NULL / -1)
 *   PCRE2    pcre2_compile, pcre2_match, pcre2_jit_match and their match data, contexts and
 *            JIT stacks (a compile error, an engine limit at match time, NULL)
 *   JIT      pcre2_jit_compile (JIT unavailable: the interpreter must take over)
 *   BACKEND  every backend method called through the dispatch (the call fails with
 *            WARDER_EIO before the method runs)
 *   KERNEL   openat, fstat, fstatat, readlinkat, fdopendir, readdir, pread, fsync, mkdirat,
 *            renameat (fails with EIO; `write` and `read` stay unwrapped, as they name backend
 *            methods too)
 *
 * ALLOC, PCRE2, JIT and KERNEL points need no change to the code: fault-inject.h is
 * included first into every library source of such a build and routes those calls through
 * the counting wrappers in fault.c. BACKEND points are explicit (WARDER__FAULT below).
 *
 * Points are counted per process (a forked child continues from its parent's count). The
 * control functions exist only in a fault-injection build; tests that use them are built
 * only there.
 *
 * Instead of failing the N-th point, a test may run a function of its own there (and let the
 * call proceed): a race made deterministic, e.g. a directory swapped for a symlink between
 * any two system calls of an operation.
 */
#ifndef WARDER_FAULT_H
#define WARDER_FAULT_H

#include <stdbool.h>

enum warder__fault_kind {
        WARDER__FAULT_ALLOC = 1u << 0,
        WARDER__FAULT_PCRE2 = 1u << 1,
        WARDER__FAULT_JIT = 1u << 2,
        WARDER__FAULT_BACKEND = 1u << 3,
        WARDER__FAULT_KERNEL = 1u << 4,
        WARDER__FAULT_ALL = (1u << 5) - 1,
};

#ifdef WARDER__FAULT_INJECTION
/* Counts a point of `kind`; true when it is the one to fail. */
bool warder__fault_hit(unsigned kind, const char *file, int line);
#define WARDER__FAULT(kind) warder__fault_hit((kind), __FILE__, __LINE__)
#else
#define WARDER__FAULT(kind) false
#endif

/* Counts the points of `kinds` from now on without failing any. */
void warder__fault_count(unsigned kinds);
/* Fails the n-th point (1-based) of `kinds` from now on; with `sticky`, every later one too. */
void warder__fault_arm(unsigned long n, bool sticky, unsigned kinds);
/* Runs fn(ud) at the n-th point (1-based) of `kinds`, once, before that call proceeds. */
void warder__fault_hook(unsigned long n, unsigned kinds, void (*fn)(void *ud), void *ud);
/* Stops counting and failing. */
void warder__fault_off(void);
/* Points met since the last count/arm. */
unsigned long warder__fault_points(void);
/* Whether the armed point was reached, and what it was ("alloc src/guard.c:123"). */
bool warder__fault_fired(void);
const char *warder__fault_where(void);

#endif
