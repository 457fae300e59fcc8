/* SPDX-License-Identifier: MIT */
/*
 * A recording mock backend for tests (header-only; every test is one executable).
 *
 * It counts and logs every call that reaches it, can be told to fail a method with a given
 * status (also an unknown one, to play a broken third-party backend), and otherwise forwards
 * to an inner backend it owns (typically a memory backend), through the public dispatch.
 * Wrapped in a guard, it proves that a denied request never reaches the inner backend:
 *
 *     warder_backend *mem, *mock, *guard;
 *     warder_memory_new(&mem, NULL);
 *     mock_backend_new(&mock, mem, MOCK_CAN_EXECUTE);
 *     warder_guard_new(&guard, mock, rules, &opts, NULL);   // the guard owns mock, mock owns mem
 *     ... warder_backend_read(guard, "/ws/.env", ...) == WARDER_EDENIED ...
 *     ck_assert_uint_eq(mock_calls(mock, MOCK_READ), 0);
 *
 * Execute (when enabled) answers exit status 0 with the command line as stdout. Realpath (when
 * enabled) is the identity unless a realpath hook is set. mock_set_lies() makes ls, glob and
 * grep rewrite what the inner backend answered (a backend that lies, tests/test-liars.c).
 * The mock is thread-safe (its counters sit behind a mutex).
 */
#ifndef WARDER_TEST_MOCK_BACKEND_H
#define WARDER_TEST_MOCK_BACKEND_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warder/sys/backend.h"

#define MOCK_FN static __attribute__((unused))

enum mock_op {
        MOCK_READ = 0,
        MOCK_WRITE,
        MOCK_EDIT,
        MOCK_LS,
        MOCK_GLOB,
        MOCK_GREP,
        MOCK_EXECUTE,
        MOCK_REALPATH,
        MOCK_OP_COUNT
};

/* Capabilities: which optional methods without fallback the mock exposes. */
#define MOCK_CAN_EXECUTE  1u
#define MOCK_CAN_REALPATH 2u
/* Leaves edit, glob and grep NULL, so the library's fallbacks run over the mock's read, write
 * and ls (a host backend that implements only the three required storage methods). */
#define MOCK_STORAGE_ONLY 4u

typedef int (*mock_realpath_fn)(void *ud, const char *path, char **out);

/* A backend that lies (tests/test-liars.c): after a successful forward, the mock hands its
 * result to these hooks (each may be NULL), which may rewrite it with the result helpers. */
struct mock_lies {
        int (*entries)(void *ud, enum mock_op op, const char *base, struct warder_entries *out);
        int (*grep)(void *ud, const struct warder_grep_request *req,
                    struct warder_grep_result *out);
        void *ud;
};

struct mock_backend {
        struct warder_backend base; /* first member */
        warder_backend *inner;      /* owned; NULL: storage calls answer WARDER_ENOENT */
        pthread_mutex_t lock;
        unsigned calls[MOCK_OP_COUNT];
        int fail[MOCK_OP_COUNT]; /* non-zero: returned without forwarding */
        unsigned last_flags;
        char last_target[4096]; /* path, pattern base, or command of the last call */
        char log[16384];        /* "read /a\nls /\n…", truncated when full */
        mock_realpath_fn realpath_hook;
        void *realpath_ud;
        const struct mock_lies *lies;
        int *destroyed; /* incremented by destroy when set */
};

static const char *const mock_op_names[MOCK_OP_COUNT] = {"read", "write", "edit",    "ls",
                                                         "glob", "grep",  "execute", "realpath"};

MOCK_FN struct mock_backend *mock_of(warder_backend *b)
{
        return (struct mock_backend *)b;
}

/* Records the call; returns the status to fail with (0: go on). */
MOCK_FN int mock_record(warder_backend *b, enum mock_op op, const char *target, unsigned flags)
{
        struct mock_backend *m = mock_of(b);
        pthread_mutex_lock(&m->lock);
        m->calls[op]++;
        m->last_flags = flags;
        snprintf(m->last_target, sizeof(m->last_target), "%s", target ? target : "");
        size_t used = strlen(m->log);
        if (used < sizeof(m->log) - 1)
                snprintf(m->log + used, sizeof(m->log) - used, "%s %s\n", mock_op_names[op],
                         target ? target : "");
        int rc = m->fail[op];
        pthread_mutex_unlock(&m->lock);
        return rc;
}

MOCK_FN int mock_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                      unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_READ, path, flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return warder_error_set(err, WARDER_ENOENT, "mock: no such file '%s'", path);
        return warder_backend_read(out, in, path, strlen(path), offset, limit, flags, err);
}

MOCK_FN int mock_write(warder_backend *b, const char *path, const void *data, size_t len,
                       unsigned flags, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_WRITE, path, flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return 0;
        return warder_backend_write(in, path, strlen(path), data, len, flags, err);
}

MOCK_FN int mock_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                      const char *new_text, size_t new_len, unsigned flags, size_t *count,
                      struct warder_error *err)
{
        int rc = mock_record(b, MOCK_EDIT, path, flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return warder_error_set(err, WARDER_ENOENT, "mock: no such file '%s'", path);
        return warder_backend_edit(count, in, path, strlen(path), old_text, old_len, new_text,
                                   new_len, flags, err);
}

MOCK_FN int mock_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                    struct warder_error *err)
{
        int rc = mock_record(b, MOCK_LS, path, flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return warder_error_set(err, WARDER_ENOENT, "mock: no such directory '%s'", path);
        rc = warder_backend_ls(out, in, path, strlen(path), flags, err);
        const struct mock_lies *lies = mock_of(b)->lies;
        if (!rc && lies && lies->entries)
                rc = lies->entries(lies->ud, MOCK_LS, path, out);
        return rc;
}

MOCK_FN int mock_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                      struct warder_entries *out, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_GLOB, base, flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return warder_error_set(err, WARDER_ENOENT, "mock: no such directory '%s'", base);
        rc = warder_backend_glob(out, in, pattern, strlen(pattern), base, strlen(base), flags, err);
        const struct mock_lies *lies = mock_of(b)->lies;
        if (!rc && lies && lies->entries)
                rc = lies->entries(lies->ud, MOCK_GLOB, base, out);
        return rc;
}

MOCK_FN int mock_grep(warder_backend *b, const struct warder_grep_request *req,
                      struct warder_grep_result *out, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_GREP, req->path, req->flags);
        if (rc)
                return rc;
        warder_backend *in = mock_of(b)->inner;
        if (!in)
                return warder_error_set(err, WARDER_ENOENT, "mock: no such path '%s'", req->path);
        struct warder_grep_request copy = *req;
        copy.path_len = strlen(req->path);
        rc = warder_backend_grep(out, in, &copy, err);
        const struct mock_lies *lies = mock_of(b)->lies;
        if (!rc && lies && lies->grep)
                rc = lies->grep(lies->ud, req, out);
        return rc;
}

MOCK_FN int mock_execute(warder_backend *b, const struct warder_exec_request *req,
                         struct warder_exec_result *out, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_EXECUTE, req->command, req->flags);
        if (rc)
                return rc;
        (void)err;
        out->exit_status = 0;
        if (warder_bytes_set(&out->out, req->command, strlen(req->command)) ||
            warder_bytes_set(&out->err, "", 0))
                return WARDER_ENOMEM;
        return 0;
}

MOCK_FN int mock_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        int rc = mock_record(b, MOCK_REALPATH, path, 0);
        if (rc)
                return rc;
        struct mock_backend *m = mock_of(b);
        if (m->realpath_hook)
                return m->realpath_hook(m->realpath_ud, path, out);
        *out = warder_strndup(path, strlen(path));
        return *out ? 0 : warder_error_set(err, WARDER_ENOMEM, "out of memory");
}

MOCK_FN void mock_destroy(warder_backend *b)
{
        struct mock_backend *m = mock_of(b);
        if (m->destroyed)
                (*m->destroyed)++;
        warder_backend_free(m->inner);
        pthread_mutex_destroy(&m->lock);
        free(m);
}

#define MOCK_OPS(exec, rp)                                                                         \
        {                                                                                          \
                WARDER_BACKEND_OPS_VERSION, mock_read, mock_write, mock_edit, mock_ls, mock_glob,  \
                    mock_grep, exec, rp, mock_destroy, 0                                           \
        }

static const struct warder_backend_ops mock_ops_plain = MOCK_OPS(NULL, NULL);
static const struct warder_backend_ops mock_ops_exec = MOCK_OPS(mock_execute, NULL);
static const struct warder_backend_ops mock_ops_realpath = MOCK_OPS(NULL, mock_realpath);
static const struct warder_backend_ops mock_ops_both = MOCK_OPS(mock_execute, mock_realpath);
static const struct warder_backend_ops mock_ops_storage_only = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = mock_read,
    .write = mock_write,
    .ls = mock_ls,
    .destroy = mock_destroy,
};

/* Creates a mock over `inner` (taken over on success; may be NULL). */
MOCK_FN int mock_backend_new(warder_backend **out, warder_backend *inner, unsigned caps)
{
        struct mock_backend *m = calloc(1, sizeof(*m));
        if (!m)
                return WARDER_ENOMEM;
        const struct warder_backend_ops *ops =
            (caps & MOCK_CAN_EXECUTE)
                ? ((caps & MOCK_CAN_REALPATH) ? &mock_ops_both : &mock_ops_exec)
            : (caps & MOCK_CAN_REALPATH) ? &mock_ops_realpath
                                         : &mock_ops_plain;
        if (caps & MOCK_STORAGE_ONLY)
                ops = &mock_ops_storage_only;
        int rc = warder_backend_init(&m->base, ops, NULL);
        if (rc) {
                free(m);
                return rc;
        }
        pthread_mutex_init(&m->lock, NULL);
        m->inner = inner;
        *out = &m->base;
        return 0;
}

MOCK_FN unsigned mock_calls(warder_backend *b, enum mock_op op)
{
        struct mock_backend *m = mock_of(b);
        pthread_mutex_lock(&m->lock);
        unsigned n = m->calls[op];
        pthread_mutex_unlock(&m->lock);
        return n;
}

MOCK_FN unsigned mock_total_calls(warder_backend *b)
{
        unsigned n = 0;
        for (int op = 0; op < MOCK_OP_COUNT; op++)
                n += mock_calls(b, (enum mock_op)op);
        return n;
}

/* Makes `op` return `code` without forwarding (0 restores forwarding). */
MOCK_FN void mock_fail(warder_backend *b, enum mock_op op, int code)
{
        struct mock_backend *m = mock_of(b);
        pthread_mutex_lock(&m->lock);
        m->fail[op] = code;
        pthread_mutex_unlock(&m->lock);
}

/* Clears counters and the log. */
MOCK_FN void mock_reset(warder_backend *b)
{
        struct mock_backend *m = mock_of(b);
        pthread_mutex_lock(&m->lock);
        memset(m->calls, 0, sizeof(m->calls));
        m->log[0] = '\0';
        m->last_target[0] = '\0';
        m->last_flags = 0;
        pthread_mutex_unlock(&m->lock);
}

/* The call log ("read /a\n…"); valid until the next call on the mock. */
MOCK_FN const char *mock_log(warder_backend *b)
{
        return mock_of(b)->log;
}

MOCK_FN void mock_set_realpath(warder_backend *b, mock_realpath_fn fn, void *ud)
{
        mock_of(b)->realpath_hook = fn;
        mock_of(b)->realpath_ud = ud;
}

/* Makes the mock rewrite its results (NULL: tell the truth again). */
MOCK_FN void mock_set_lies(warder_backend *b, const struct mock_lies *lies)
{
        mock_of(b)->lies = lies;
}

#endif
