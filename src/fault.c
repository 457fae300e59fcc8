/* SPDX-License-Identifier: MIT */
/*
 * The counting wrappers of a fault-injection build (see fault.h). This file is compiled with
 * fault-inject.h included first like every library source, so it undoes the routing before
 * it calls the real functions.
 */
#include "fault-inject.h"

#undef malloc
#undef calloc
#undef realloc
#undef strdup
#undef strndup
#undef asprintf
#undef pcre2_compile
#undef pcre2_match
#undef pcre2_jit_match
#undef pcre2_jit_compile
#undef pcre2_match_data_create
#undef pcre2_match_data_create_from_pattern
#undef pcre2_match_context_create
#undef pcre2_jit_stack_create
#undef openat
#undef fstat
#undef fstatat
#undef readlinkat
#undef fdopendir
#undef readdir
#undef pread
#undef fsync
#undef mkdirat
#undef renameat

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

enum { OFF, COUNTING, ARMED, HOOKED };

/* One process-wide state: the walking test is single-threaded, and other threads of a
 * fault-injection build see OFF (one relaxed load per point). */
static int state = OFF;
static unsigned kinds_on;
static unsigned long points, target;
static bool sticky, fired;
static char where[160];
static void (*hook_fn)(void *);
static void *hook_ud;

static const char *kind_name(unsigned kind)
{
        switch (kind) {
        case WARDER__FAULT_ALLOC:
                return "alloc";
        case WARDER__FAULT_PCRE2:
                return "pcre2";
        case WARDER__FAULT_JIT:
                return "jit";
        case WARDER__FAULT_BACKEND:
                return "backend";
        case WARDER__FAULT_KERNEL:
                return "kernel";
        default:
                return "?";
        }
}

bool warder__fault_hit(unsigned kind, const char *file, int line)
{
        int m = __atomic_load_n(&state, __ATOMIC_RELAXED);
        if (m == OFF || !(kind & kinds_on))
                return false;
        unsigned long n = __atomic_add_fetch(&points, 1, __ATOMIC_RELAXED);
        if (m == HOOKED && n == target && !fired) {
                fired = true;
                snprintf(where, sizeof(where), "%s %s:%d (point %lu)", kind_name(kind), file, line,
                         n);
                int saved = errno; /* the call proceeds as if nothing had run before it */
                hook_fn(hook_ud);
                errno = saved;
                return false;
        }
        if (m != ARMED || n < target || (n > target && !sticky))
                return false;
        if (!fired) {
                fired = true;
                /* No allocation here: this may run in a forked child. */
                snprintf(where, sizeof(where), "%s %s:%d (point %lu)", kind_name(kind), file, line,
                         n);
        }
        return true;
}

void warder__fault_count(unsigned kinds)
{
        __atomic_store_n(&state, OFF, __ATOMIC_SEQ_CST);
        kinds_on = kinds;
        points = 0;
        target = 0;
        sticky = false;
        fired = false;
        where[0] = '\0';
        __atomic_store_n(&state, COUNTING, __ATOMIC_SEQ_CST);
}

void warder__fault_arm(unsigned long n, bool stick, unsigned kinds)
{
        warder__fault_count(kinds);
        __atomic_store_n(&state, OFF, __ATOMIC_SEQ_CST);
        target = n;
        sticky = stick;
        __atomic_store_n(&state, ARMED, __ATOMIC_SEQ_CST);
}

void warder__fault_hook(unsigned long n, unsigned kinds, void (*fn)(void *ud), void *ud)
{
        warder__fault_count(kinds);
        __atomic_store_n(&state, OFF, __ATOMIC_SEQ_CST);
        target = n;
        hook_fn = fn;
        hook_ud = ud;
        __atomic_store_n(&state, HOOKED, __ATOMIC_SEQ_CST);
}

void warder__fault_off(void)
{
        __atomic_store_n(&state, OFF, __ATOMIC_SEQ_CST);
}

unsigned long warder__fault_points(void)
{
        return __atomic_load_n(&points, __ATOMIC_RELAXED);
}

bool warder__fault_fired(void)
{
        return fired;
}

const char *warder__fault_where(void)
{
        return where;
}

#define HIT(kind) warder__fault_hit((kind), f, l)

/* ---- allocation ---- */

void *warder__fi_malloc(const char *f, int l, size_t n)
{
        return HIT(WARDER__FAULT_ALLOC) ? NULL : malloc(n);
}

void *warder__fi_calloc(const char *f, int l, size_t n, size_t size)
{
        return HIT(WARDER__FAULT_ALLOC) ? NULL : calloc(n, size);
}

void *warder__fi_realloc(const char *f, int l, void *p, size_t n)
{
        return HIT(WARDER__FAULT_ALLOC) ? NULL : realloc(p, n);
}

char *warder__fi_strdup(const char *f, int l, const char *s)
{
        return HIT(WARDER__FAULT_ALLOC) ? NULL : strdup(s);
}

char *warder__fi_strndup(const char *f, int l, const char *s, size_t n)
{
        return HIT(WARDER__FAULT_ALLOC) ? NULL : strndup(s, n);
}

int warder__fi_asprintf(const char *f, int l, char **out, const char *fmt, ...)
{
        if (HIT(WARDER__FAULT_ALLOC))
                return -1;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(out, fmt, ap);
        va_end(ap);
        return r;
}

/* ---- PCRE2 ---- */

pcre2_code *warder__fi_pcre2_compile(const char *f, int l, PCRE2_SPTR pattern, PCRE2_SIZE len,
                                     uint32_t options, int *errorcode, PCRE2_SIZE *erroroffset,
                                     pcre2_compile_context *ctx)
{
        if (HIT(WARDER__FAULT_PCRE2)) {
                *errorcode = PCRE2_ERROR_HEAP_FAILED;
                *erroroffset = 0;
                return NULL;
        }
        return pcre2_compile_8(pattern, len, options, errorcode, erroroffset, ctx);
}

int warder__fi_pcre2_match(const char *f, int l, const pcre2_code *code, PCRE2_SPTR subject,
                           PCRE2_SIZE len, PCRE2_SIZE start, uint32_t options, pcre2_match_data *md,
                           pcre2_match_context *mctx)
{
        if (HIT(WARDER__FAULT_PCRE2))
                return PCRE2_ERROR_MATCHLIMIT;
        return pcre2_match_8(code, subject, len, start, options, md, mctx);
}

int warder__fi_pcre2_jit_match(const char *f, int l, const pcre2_code *code, PCRE2_SPTR subject,
                               PCRE2_SIZE len, PCRE2_SIZE start, uint32_t options,
                               pcre2_match_data *md, pcre2_match_context *mctx)
{
        if (HIT(WARDER__FAULT_PCRE2))
                return PCRE2_ERROR_JIT_STACKLIMIT;
        return pcre2_jit_match_8(code, subject, len, start, options, md, mctx);
}

int warder__fi_pcre2_jit_compile(const char *f, int l, pcre2_code *code, uint32_t options)
{
        if (HIT(WARDER__FAULT_JIT))
                return PCRE2_ERROR_NOMEMORY;
        return pcre2_jit_compile_8(code, options);
}

pcre2_match_data *warder__fi_pcre2_match_data_create(const char *f, int l, uint32_t n,
                                                     pcre2_general_context *gctx)
{
        return HIT(WARDER__FAULT_PCRE2) ? NULL : pcre2_match_data_create_8(n, gctx);
}

pcre2_match_data *warder__fi_pcre2_match_data_create_from_pattern(const char *f, int l,
                                                                  const pcre2_code *code,
                                                                  pcre2_general_context *gctx)
{
        return HIT(WARDER__FAULT_PCRE2) ? NULL : pcre2_match_data_create_from_pattern_8(code, gctx);
}

pcre2_match_context *warder__fi_pcre2_match_context_create(const char *f, int l,
                                                           pcre2_general_context *gctx)
{
        return HIT(WARDER__FAULT_PCRE2) ? NULL : pcre2_match_context_create_8(gctx);
}

pcre2_jit_stack *warder__fi_pcre2_jit_stack_create(const char *f, int l, size_t start, size_t max,
                                                   pcre2_general_context *gctx)
{
        return HIT(WARDER__FAULT_PCRE2) ? NULL : pcre2_jit_stack_create_8(start, max, gctx);
}

/* ---- kernel calls (EIO: something broke underneath) ---- */

#define KERNEL_FAIL(ret)                                                                           \
        do {                                                                                       \
                if (HIT(WARDER__FAULT_KERNEL)) {                                                   \
                        errno = EIO;                                                               \
                        return ret;                                                                \
                }                                                                                  \
        } while (0)

int warder__fi_openat(const char *f, int l, int dfd, const char *path, int flags, ...)
{
        mode_t m = 0;
        if (flags & (O_CREAT | O_TMPFILE)) {
                va_list ap;
                va_start(ap, flags);
                m = (mode_t)va_arg(ap, int);
                va_end(ap);
        }
        KERNEL_FAIL(-1);
        return openat(dfd, path, flags, m);
}

int warder__fi_fstat(const char *f, int l, int fd, struct stat *st)
{
        KERNEL_FAIL(-1);
        return fstat(fd, st);
}

int warder__fi_fstatat(const char *f, int l, int dfd, const char *path, struct stat *st, int flags)
{
        KERNEL_FAIL(-1);
        return fstatat(dfd, path, st, flags);
}

ssize_t warder__fi_readlinkat(const char *f, int l, int dfd, const char *path, char *buf, size_t n)
{
        KERNEL_FAIL(-1);
        return readlinkat(dfd, path, buf, n);
}

DIR *warder__fi_fdopendir(const char *f, int l, int fd)
{
        KERNEL_FAIL(NULL);
        return fdopendir(fd);
}

struct dirent *warder__fi_readdir(const char *f, int l, DIR *d)
{
        KERNEL_FAIL(NULL);
        return readdir(d);
}

ssize_t warder__fi_pread(const char *f, int l, int fd, void *buf, size_t n, off_t off)
{
        KERNEL_FAIL(-1);
        return pread(fd, buf, n, off);
}

int warder__fi_fsync(const char *f, int l, int fd)
{
        KERNEL_FAIL(-1);
        return fsync(fd);
}

int warder__fi_mkdirat(const char *f, int l, int dfd, const char *path, mode_t mode)
{
        KERNEL_FAIL(-1);
        return mkdirat(dfd, path, mode);
}

int warder__fi_renameat(const char *f, int l, int od, const char *op, int nd, const char *np)
{
        KERNEL_FAIL(-1);
        return renameat(od, op, nd, np);
}
