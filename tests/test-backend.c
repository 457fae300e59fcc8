/* SPDX-License-Identifier: MIT */
/*
 * Backend dispatch (src/backend.c): ops-table validation, argument checks, mapping of unknown
 * status codes, result validation, outputs untouched on failure, and the library fallbacks
 * for edit, glob and grep over a host backend that implements only read, write and ls.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock-backend.h"
#include "support.h"
#include "warder/memory.h"
#include "warder/sys/backend.h"

#define S(lit) lit, sizeof(lit) - 1

/* ------------------------------------------------------------------------------------------ */
/* "tiny": a host backend with only read, write, ls (+ destroy). Files live in a flat table;  */
/* directories are implied by the files below them. Symlink entries can be planted: ls lists */
/* them, and ls *through* one answers as if it had been followed (so a walk that follows it  */
/* shows up).                                                                                 */

#define TINY_MAX 64

struct tiny {
        struct warder_backend base;
        struct {
                char *path;
                char *data;
                size_t len;
        } files[TINY_MAX];
        size_t n;
        const char *link; /* path of a symlink entry to a directory, or NULL */
        unsigned reads, writes, lses;
        bool ls_through_link;
        const char *ls_fail_path; /* ls of this path fails with ls_fail_code */
        int ls_fail_code;
        const char *read_fail_path; /* read of this path fails with read_fail_code */
        int read_fail_code;
};

static struct tiny *tiny_of(warder_backend *b)
{
        return (struct tiny *)b;
}

static bool under(const char *path, const char *dir)
{
        size_t dl = strcmp(dir, "/") ? strlen(dir) : 0;
        return strncmp(path, dir, dl) == 0 && path[dl] == '/';
}

static bool tiny_is_dir(struct tiny *t, const char *path)
{
        if (!strcmp(path, "/"))
                return true;
        for (size_t i = 0; i < t->n; i++)
                if (under(t->files[i].path, path))
                        return true;
        return false;
}

static int tiny_find(struct tiny *t, const char *path)
{
        for (size_t i = 0; i < t->n; i++)
                if (!strcmp(t->files[i].path, path))
                        return (int)i;
        return -1;
}

static int tiny_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                     unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        (void)flags;
        struct tiny *t = tiny_of(b);
        t->reads++;
        if (t->read_fail_code && t->read_fail_path && !strcmp(path, t->read_fail_path))
                return t->read_fail_code;
        int i = tiny_find(t, path);
        if (i < 0)
                return warder_error_set(err, tiny_is_dir(t, path) ? WARDER_EISDIR : WARDER_ENOENT,
                                        "tiny: read %s", path);
        size_t len = t->files[i].len;
        size_t start = offset < len ? (size_t)offset : len;
        size_t take = limit && limit < len - start ? (size_t)limit : len - start;
        if (warder_bytes_set(out, t->files[i].data + start, take))
                return WARDER_ENOMEM;
        out->truncated = start + take < len;
        return 0;
}

static int tiny_write(warder_backend *b, const char *path, const void *data, size_t len,
                      unsigned flags, struct warder_error *err)
{
        (void)flags;
        struct tiny *t = tiny_of(b);
        t->writes++;
        if (tiny_is_dir(t, path))
                return warder_error_set(err, WARDER_EISDIR, "tiny: write %s", path);
        int i = tiny_find(t, path);
        if (i < 0) {
                if (t->n == TINY_MAX)
                        return WARDER_ENOMEM;
                i = (int)t->n++;
                t->files[i].path = strdup(path);
        } else {
                free(t->files[i].data);
        }
        t->files[i].data = malloc(len + 1);
        memcpy(t->files[i].data, data, len);
        t->files[i].data[len] = '\0';
        t->files[i].len = len;
        return 0;
}

static int tiny_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                   struct warder_error *err)
{
        (void)flags;
        struct tiny *t = tiny_of(b);
        t->lses++;
        if (t->ls_fail_code && t->ls_fail_path && !strcmp(path, t->ls_fail_path))
                return t->ls_fail_code;
        if (t->link && !strcmp(path, t->link)) {
                /* what a careless walk would see if it followed the link */
                t->ls_through_link = true;
                char p[512];
                snprintf(p, sizeof(p), "%s/leak.txt", path);
                return warder_entries_add(out, "leak.txt", strlen("leak.txt"), p, strlen(p),
                                          WARDER_ENTRY_FILE, 4, 0);
        }
        if (tiny_find(t, path) >= 0)
                return warder_error_set(err, WARDER_ENOTDIR, "tiny: ls %s", path);
        if (!tiny_is_dir(t, path))
                return warder_error_set(err, WARDER_ENOENT, "tiny: ls %s", path);
        size_t dl = strcmp(path, "/") ? strlen(path) : 0;
        for (size_t i = 0; i < t->n; i++) {
                const char *f = t->files[i].path;
                if (!under(f, path))
                        continue;
                const char *name = f + dl + 1;
                const char *slash = strchr(name, '/');
                size_t nl = slash ? (size_t)(slash - name) : strlen(name);
                char nm[256], p[512];
                snprintf(nm, sizeof(nm), "%.*s", (int)nl, name);
                snprintf(p, sizeof(p), "%.*s", (int)(dl + 1 + nl), f);
                bool seen = false;
                for (size_t k = 0; k < out->count; k++)
                        seen = seen || !strcmp(out->items[k].name, nm);
                if (seen)
                        continue;
                int rc = warder_entries_add(out, nm, strlen(nm), p, strlen(p),
                                            slash ? WARDER_ENTRY_DIR : WARDER_ENTRY_FILE,
                                            slash ? 0 : t->files[i].len, 0);
                if (rc)
                        return rc;
        }
        if (t->link) {
                const char *slash = strrchr(t->link, '/');
                if ((size_t)(slash - t->link) == dl && !strncmp(t->link, path, dl))
                        return warder_entries_add(out, slash + 1, strlen(slash + 1), t->link,
                                                  strlen(t->link), WARDER_ENTRY_SYMLINK, 0, 0);
        }
        return 0;
}

static void tiny_destroy(warder_backend *b)
{
        struct tiny *t = tiny_of(b);
        for (size_t i = 0; i < t->n; i++) {
                free(t->files[i].path);
                free(t->files[i].data);
        }
        free(t);
}

/* Three functions and a destructor: the rest comes from the library. */
static const struct warder_backend_ops tiny_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = tiny_read,
    .write = tiny_write,
    .ls = tiny_ls,
    .destroy = tiny_destroy,
};

static warder_backend *tiny_new(void)
{
        struct tiny *t = calloc(1, sizeof(*t));
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(warder_backend_init(&t->base, &tiny_ops, NULL), 0);
        return &t->base;
}

static void put(warder_backend *b, const char *path, const char *text)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_backend_write(b, path, strlen(path), text, strlen(text), 0, &err);
        ck_assert_msg(rc == 0, "write %s: %s", path, err.message);
}

static char *get(warder_backend *b, const char *path)
{
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, b, path, strlen(path), 0, 0, 0, NULL), 0);
        return out.data;
}

/* A small project tree used by the fallback tests. */
static warder_backend *tiny_tree(void)
{
        warder_backend *b = tiny_new();
        put(b, "/ws/README.md", "# demo\nhello world\n");
        put(b, "/ws/src/main.c", "int main(void)\n{\n\treturn hello();\n}\n");
        put(b, "/ws/src/hello.c", "int hello(void) { return 0; }\n/* Hello again */");
        put(b, "/ws/src/lib/util.c", "/* hello from util */\n");
        put(b, "/ws/notes.txt", "nothing here\n");
        put(b, "/other/hello.txt", "hello outside the base\n");
        return b;
}

/* ------------------------------------------------------------------------------------------ */
/* Ops table validation                                                                       */

static int dummy_read(warder_backend *b, const char *p, uint64_t o, uint64_t l, unsigned f,
                      struct warder_bytes *out, struct warder_error *e)
{
        (void)b, (void)p, (void)o, (void)l, (void)f, (void)out, (void)e;
        return 0;
}
static int dummy_write(warder_backend *b, const char *p, const void *d, size_t n, unsigned f,
                       struct warder_error *e)
{
        (void)b, (void)p, (void)d, (void)n, (void)f, (void)e;
        return 0;
}
static int dummy_ls(warder_backend *b, const char *p, unsigned f, struct warder_entries *out,
                    struct warder_error *e)
{
        (void)b, (void)p, (void)f, (void)out, (void)e;
        return 0;
}
static void dummy_destroy(warder_backend *b)
{
        (void)b;
}

START_TEST(init_rejects_incomplete_tables)
{
        static const struct {
                struct warder_backend_ops ops;
                const char *message;
        } cases[] = {
            {{0, dummy_read, dummy_write, NULL, dummy_ls, NULL, NULL, NULL, NULL, dummy_destroy, 0},
             "version 0"},
            {{WARDER_BACKEND_OPS_VERSION + 1, dummy_read, dummy_write, NULL, dummy_ls, NULL, NULL,
              NULL, NULL, dummy_destroy, 0},
             "newer"},
            {{WARDER_BACKEND_OPS_VERSION, NULL, dummy_write, NULL, dummy_ls, NULL, NULL, NULL, NULL,
              dummy_destroy, 0},
             "incomplete backend: missing 'read'"},
            {{WARDER_BACKEND_OPS_VERSION, dummy_read, NULL, NULL, dummy_ls, NULL, NULL, NULL, NULL,
              dummy_destroy, 0},
             "incomplete backend: missing 'write'"},
            {{WARDER_BACKEND_OPS_VERSION, dummy_read, dummy_write, NULL, NULL, NULL, NULL, NULL,
              NULL, dummy_destroy, 0},
             "incomplete backend: missing 'ls'"},
            {{WARDER_BACKEND_OPS_VERSION, dummy_read, dummy_write, NULL, dummy_ls, NULL, NULL, NULL,
              NULL, NULL, 0},
             "incomplete backend: missing 'destroy'"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct warder_backend b = {NULL, 0};
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_int_eq(warder_backend_init(&b, &cases[i].ops, &err), WARDER_EINVAL);
                ck_assert_int_eq(err.code, WARDER_EINVAL);
                ck_assert_msg(strstr(err.message, cases[i].message), "case %zu: '%s'", i,
                              err.message);
                /* a rejected header stays unusable */
                struct warder_entries out = WARDER_ENTRIES_INIT;
                ck_assert_int_eq(warder_backend_ls(&out, &b, S("/"), 0, NULL), WARDER_EINVAL);
                ck_assert(!warder_backend_can_execute(&b));
        }
        /* the control: the complete table is accepted */
        struct warder_backend_ops ok = {WARDER_BACKEND_OPS_VERSION,
                                        dummy_read,
                                        dummy_write,
                                        NULL,
                                        dummy_ls,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL,
                                        dummy_destroy,
                                        0};
        struct warder_backend b = {NULL, 0};
        ck_assert_int_eq(warder_backend_init(&b, &ok, NULL), 0);
        struct warder_entries out = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&out, &b, S("/"), 0, NULL), 0);
        ck_assert_int_eq(warder_backend_init(NULL, &ok, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_init(&b, NULL, NULL), WARDER_EINVAL);
}
END_TEST

START_TEST(dispatch_rejects_uninitialised)
{
        static const struct warder_backend_ops ok = {WARDER_BACKEND_OPS_VERSION,
                                                     dummy_read,
                                                     dummy_write,
                                                     NULL,
                                                     dummy_ls,
                                                     NULL,
                                                     NULL,
                                                     NULL,
                                                     NULL,
                                                     dummy_destroy,
                                                     0};
        struct warder_backend raw = {&ok, 0}; /* never went through warder_backend_init */
        struct warder_bytes bytes = WARDER_BYTES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_read(&bytes, &raw, S("/a"), 0, 0, 0, &err), WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "not an initialised backend"));
        ck_assert_int_eq(warder_backend_read(&bytes, NULL, S("/a"), 0, 0, 0, NULL), WARDER_EINVAL);
        ck_assert(!warder_backend_can_execute(NULL));
        ck_assert(!warder_backend_can_realpath(&raw));
        warder_backend_free(NULL);
        warder_backend_free(&raw); /* not initialised: destroy is not called, nothing breaks */
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Argument checks                                                                            */

START_TEST(dispatch_argument_checks)
{
        warder_backend *b = tiny_new();
        struct warder_bytes out = WARDER_BYTES_INIT;
        struct warder_entries ents = WARDER_ENTRIES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        /* NULL, empty, embedded NUL: EINVAL before the backend is called */
        ck_assert_int_eq(warder_backend_read(&out, b, NULL, 3, 0, 0, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_read(&out, b, "/a", 0, 0, 0, 0, &err), WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "empty"));
        ck_assert_int_eq(warder_backend_read(&out, b, "/a\0b", 4, 0, 0, 0, &err), WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
        ck_assert_int_eq(warder_backend_read(NULL, b, S("/a"), 0, 0, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_write(b, "/a\0.env", 7, "x", 1, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_write(b, S("/a"), NULL, 1, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_ls(&ents, b, "", 0, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_ls(NULL, b, S("/"), 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/a"), "", 0, "x", 1, 0, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/a"), "x", 1, NULL, 1, 0, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_glob(&ents, b, NULL, 0, S("/"), 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_glob(&ents, b, "", strlen(""), S("/"), 0, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_glob(&ents, b, "*", strlen("*"), "/\0x", 3, 0, &err),
                         WARDER_EINVAL);
        /* the fallbacks walk absolute bases only (their results are absolute paths) */
        ck_assert_int_eq(warder_backend_glob(&ents, b, "*", strlen("*"), S("ws"), 0, &err),
                         WARDER_EINVAL);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        struct warder_grep_result gr = WARDER_GREP_RESULT_INIT;
        req.path = "/";
        req.path_len = 1;
        ck_assert_int_eq(warder_backend_grep(&gr, b, &req, &err), WARDER_EINVAL); /* no pattern */
        req.pattern = "x";
        req.pattern_len = strlen(req.pattern);
        req.version = 0;
        ck_assert_int_eq(warder_backend_grep(&gr, b, &req, &err), WARDER_EINVAL);
        req.version = WARDER_GREP_REQUEST_VERSION + 1;
        ck_assert_int_eq(warder_backend_grep(&gr, b, &req, &err), WARDER_EINVAL);
        req.version = WARDER_GREP_REQUEST_VERSION;
        req.path_len = 0;
        ck_assert_int_eq(warder_backend_grep(&gr, b, &req, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_grep(&gr, b, NULL, &err), WARDER_EINVAL);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(NULL, b, S("/a"), &err), WARDER_EINVAL);
        ck_assert_ptr_null(real);
        /* none of it reached the backend */
        ck_assert_uint_eq(tiny_of(b)->reads + tiny_of(b)->writes + tiny_of(b)->lses, 0);
        ck_assert_ptr_null(out.data);
        ck_assert_ptr_null(ents.items);
        ck_assert_ptr_null(gr.items);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(dispatch_passes_nul_terminated_paths)
{
        warder_backend *b = tiny_new();
        /* length-delimited: the bytes after path_len are not part of the path */
        const char buf[] = "/dir/file.txtGARBAGE";
        ck_assert_int_eq(warder_backend_write(b, buf, 13, S("data"), 0, NULL), 0);
        ck_assert_str_eq(tiny_of(b)->files[0].path, "/dir/file.txt");
        /* a long path goes through the heap copy */
        char longp[1200];
        memset(longp, 'a', sizeof(longp));
        longp[0] = '/';
        ck_assert_int_eq(warder_backend_write(b, longp, 1000, S("x"), 0, NULL), 0);
        ck_assert_uint_eq(strlen(tiny_of(b)->files[1].path), 1000);
        warder_backend_free(b);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* A deliberately broken backend                                                              */

enum broken_mode {
        RET_POSITIVE,
        RET_BELOW_MIN,
        RET_INT_MIN,
        RET_KNOWN_NO_MESSAGE,
        READ_LEN_NO_DATA,
        READ_PARTIAL_THEN_FAIL,
        LS_COUNT_NO_ITEMS,
        LS_NAME_DOTDOT,
        LS_NAME_SLASH,
        LS_NAME_EMPTY,
        LS_PATH_RELATIVE,
        LS_BAD_TYPE,
        LS_PARTIAL_THEN_FAIL,
        GREP_COUNT_NO_ITEMS,
        GREP_LINE_ZERO,
        GREP_TOO_MANY,
        REALPATH_NULL,
        REALPATH_RELATIVE,
        EXEC_PARTIAL_THEN_FAIL,
        EXEC_LEN_NO_DATA,
        BROKEN_MODES
};

struct broken {
        struct warder_backend base;
        enum broken_mode mode;
        int code;
        char *leaked; /* a buffer the dispatch must free */
};

static int broken_status(warder_backend *b)
{
        switch ((int)((struct broken *)b)->mode) {
        case RET_POSITIVE:
                return 1;
        case RET_BELOW_MIN:
                return WARDER_STATUS_MIN - 1;
        case RET_INT_MIN:
                return INT_MIN;
        case RET_KNOWN_NO_MESSAGE:
                return WARDER_EIO;
        default:
                return 0;
        }
}

static int broken_read(warder_backend *b, const char *p, uint64_t o, uint64_t l, unsigned f,
                       struct warder_bytes *out, struct warder_error *e)
{
        (void)p, (void)o, (void)l, (void)f, (void)e;
        struct broken *k = (struct broken *)b;
        if (k->mode == READ_LEN_NO_DATA) {
                out->len = 10;
                return 0;
        }
        if (k->mode == READ_PARTIAL_THEN_FAIL) {
                warder_bytes_set(out, "partial", 7);
                return WARDER_EIO;
        }
        return broken_status(b);
}

static int broken_write(warder_backend *b, const char *p, const void *d, size_t n, unsigned f,
                        struct warder_error *e)
{
        (void)p, (void)d, (void)n, (void)f, (void)e;
        return broken_status(b);
}

static int broken_ls(warder_backend *b, const char *p, unsigned f, struct warder_entries *out,
                     struct warder_error *e)
{
        (void)p, (void)f, (void)e;
        struct broken *k = (struct broken *)b;
        switch ((int)k->mode) {
        case LS_COUNT_NO_ITEMS:
                out->count = 3;
                return 0;
        case LS_NAME_DOTDOT:
                return warder_entries_add(out, "..", strlen(".."), "/..", strlen("/.."),
                                          WARDER_ENTRY_DIR, 0, 0);
        case LS_NAME_SLASH:
                return warder_entries_add(out, "a/b", strlen("a/b"), "/a/b", strlen("/a/b"),
                                          WARDER_ENTRY_FILE, 0, 0);
        case LS_NAME_EMPTY: {
                /* the helper refuses an empty name: a backend can still make one by hand */
                int rc = warder_entries_add(out, "x", 1, "/x", 2, WARDER_ENTRY_DIR, 0, 0);
                if (!rc)
                        out->items[out->count - 1].name[0] = '\0';
                return rc;
        }
        case LS_PATH_RELATIVE:
                return warder_entries_add(out, "a", strlen("a"), "a", strlen("a"),
                                          WARDER_ENTRY_FILE, 0, 0);
        case LS_BAD_TYPE:
                return warder_entries_add(out, "a", strlen("a"), "/a", strlen("/a"),
                                          (enum warder_entry_type)42, 0, 0);
        case LS_PARTIAL_THEN_FAIL:
                warder_entries_add(out, "a", strlen("a"), "/a", strlen("/a"), WARDER_ENTRY_FILE, 0,
                                   0);
                warder_entries_add(out, "b", strlen("b"), "/b", strlen("/b"), WARDER_ENTRY_FILE, 0,
                                   0);
                return WARDER_EIO;
        default:
                return broken_status(b);
        }
}

static int broken_grep(warder_backend *b, const struct warder_grep_request *req,
                       struct warder_grep_result *out, struct warder_error *e)
{
        (void)req, (void)e;
        struct broken *k = (struct broken *)b;
        switch ((int)k->mode) {
        case GREP_COUNT_NO_ITEMS:
                out->count = 2;
                return 0;
        case GREP_LINE_ZERO:
                return warder_grep_add(out, "/a", strlen("/a"), 0, "x", 1);
        case GREP_TOO_MANY:
                warder_grep_add(out, "/a", strlen("/a"), 1, "x", 1);
                return warder_grep_add(out, "/a", strlen("/a"), 2, "x", 1);
        default:
                return broken_status(b);
        }
}

static int broken_realpath(warder_backend *b, const char *p, char **out, struct warder_error *e)
{
        (void)p, (void)e;
        struct broken *k = (struct broken *)b;
        if (k->mode == REALPATH_NULL)
                return 0;
        if (k->mode == REALPATH_RELATIVE) {
                *out = warder_strndup("rel", 3);
                return 0;
        }
        return broken_status(b);
}

static int broken_execute(warder_backend *b, const struct warder_exec_request *req,
                          struct warder_exec_result *out, struct warder_error *e)
{
        (void)req, (void)e;
        struct broken *k = (struct broken *)b;
        if (k->mode == EXEC_PARTIAL_THEN_FAIL) {
                warder_bytes_set(&out->out, "some output", 11);
                return WARDER_ETIMEDOUT;
        }
        if (k->mode == EXEC_LEN_NO_DATA) {
                out->err.len = 5;
                return 0;
        }
        return broken_status(b);
}

static void broken_destroy(warder_backend *b)
{
        free(b);
}

static const struct warder_backend_ops broken_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = broken_read,
    .write = broken_write,
    .ls = broken_ls,
    .grep = broken_grep,
    .execute = broken_execute,
    .realpath = broken_realpath,
    .destroy = broken_destroy,
};

static warder_backend *broken_new(enum broken_mode mode)
{
        struct broken *k = calloc(1, sizeof(*k));
        ck_assert_int_eq(warder_backend_init(&k->base, &broken_ops, NULL), 0);
        k->mode = mode;
        return &k->base;
}

START_TEST(unknown_codes_become_ebackend)
{
        const enum broken_mode modes[] = {RET_POSITIVE, RET_BELOW_MIN, RET_INT_MIN};
        for (size_t i = 0; i < 3; i++) {
                warder_backend *b = broken_new(modes[i]);
                struct warder_error err = WARDER_ERROR_INIT;
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_int_eq(warder_backend_read(&out, b, S("/a"), 0, 0, 0, &err),
                                 WARDER_EBACKEND);
                ck_assert_int_eq(err.code, WARDER_EBACKEND);
                ck_assert_ptr_nonnull(strstr(err.message, "unknown status"));
                ck_assert_int_eq(warder_backend_write(b, S("/a"), "x", 1, 0, &err),
                                 WARDER_EBACKEND);
                /* edit falls back to read, whose unknown code is mapped too */
                ck_assert_int_eq(warder_backend_edit(NULL, b, S("/a"), "x", 1, "y", 1, 0, &err),
                                 WARDER_EBACKEND);
                struct warder_entries e = WARDER_ENTRIES_INIT;
                ck_assert_int_eq(warder_backend_ls(&e, b, S("/"), 0, &err), WARDER_EBACKEND);
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "x";
                req.pattern_len = strlen(req.pattern);
                req.path = "/";
                req.path_len = 1;
                struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
                ck_assert_int_eq(warder_backend_grep(&g, b, &req, &err), WARDER_EBACKEND);
                char *real = NULL;
                ck_assert_int_eq(warder_backend_realpath(&real, b, S("/a"), &err), WARDER_EBACKEND);
                ck_assert_ptr_null(real);
                struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
                xr.command = "true";
                xr.command_len = 4;
                struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
                ck_assert_int_eq(warder_backend_execute(&xo, b, &xr, &err), WARDER_EBACKEND);
                ck_assert_ptr_null(out.data);
                warder_error_clear(&err);
                warder_backend_free(b);
        }
        /* a known code passes through, and gets a message when the backend gave none */
        warder_backend *b = broken_new(RET_KNOWN_NO_MESSAGE);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_write(b, S("/a"), "x", 1, 0, &err), WARDER_EIO);
        ck_assert_int_eq(err.code, WARDER_EIO);
        ck_assert_str_eq(err.message, "write: input/output error");
        /* err may be NULL */
        ck_assert_int_eq(warder_backend_write(b, S("/a"), "x", 1, 0, NULL), WARDER_EIO);
        warder_backend_free(b);
}
END_TEST

START_TEST(bad_results_never_escape)
{
        static const struct {
                enum broken_mode mode;
                char op;
        } cases[] = {
            {READ_LEN_NO_DATA, 'r'}, {LS_COUNT_NO_ITEMS, 'l'},   {LS_NAME_DOTDOT, 'l'},
            {LS_NAME_SLASH, 'l'},    {LS_NAME_EMPTY, 'l'},       {LS_PATH_RELATIVE, 'l'},
            {LS_BAD_TYPE, 'l'},      {GREP_COUNT_NO_ITEMS, 'g'}, {GREP_LINE_ZERO, 'g'},
            {GREP_TOO_MANY, 'g'},    {REALPATH_NULL, 'p'},       {REALPATH_RELATIVE, 'p'},
            {EXEC_LEN_NO_DATA, 'x'},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                warder_backend *b = broken_new(cases[i].mode);
                struct warder_error err = WARDER_ERROR_INIT;
                /* sentinels: outputs must be untouched on failure */
                char sentinel[] = "sentinel";
                struct warder_bytes bytes = {WARDER_BYTES_VERSION, sentinel, 8, false};
                struct warder_entry one = {sentinel, sentinel, WARDER_ENTRY_FILE, 1, 1};
                struct warder_entries ents = {WARDER_ENTRIES_VERSION, &one, 1, 7};
                struct warder_grep_match gm = {sentinel, 1, sentinel, 8};
                struct warder_grep_result gr = {WARDER_GREP_RESULT_VERSION, &gm, 1, 3, true};
                char *real = sentinel;
                struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
                xo.exit_status = 99;
                int rc = 0;
                switch (cases[i].op) {
                case 'r':
                        rc = warder_backend_read(&bytes, b, S("/a"), 0, 0, 0, &err);
                        break;
                case 'l':
                        rc = warder_backend_ls(&ents, b, S("/"), 0, &err);
                        break;
                case 'g': {
                        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                        req.pattern = "x";
                        req.pattern_len = strlen(req.pattern);
                        req.path = "/";
                        req.path_len = 1;
                        req.max_matches = 1;
                        rc = warder_backend_grep(&gr, b, &req, &err);
                        break;
                }
                case 'p':
                        rc = warder_backend_realpath(&real, b, S("/a"), &err);
                        break;
                case 'x': {
                        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
                        xr.command = "true";
                        xr.command_len = 4;
                        rc = warder_backend_execute(&xo, b, &xr, &err);
                        break;
                }
                }
                ck_assert_msg(rc == WARDER_EBACKEND, "case %zu: rc %d", i, rc);
                ck_assert_int_eq(err.code, WARDER_EBACKEND);
                ck_assert_ptr_nonnull(strstr(err.message, "broke its contract"));
                ck_assert_ptr_eq(bytes.data, sentinel);
                ck_assert_uint_eq(bytes.len, 8);
                ck_assert_ptr_eq(ents.items, &one);
                ck_assert_uint_eq(ents.count, 1);
                ck_assert_uint_eq(ents.hidden, 7);
                ck_assert_ptr_eq(gr.items, &gm);
                ck_assert(gr.truncated);
                ck_assert_ptr_eq(real, sentinel);
                ck_assert_int_eq(xo.exit_status, 99);
                warder_error_clear(&err);
                warder_backend_free(b);
        }
}
END_TEST

START_TEST(partial_results_are_freed_on_failure)
{
        /* The backend filled the output and then failed: the caller sees nothing, LSan sees no
         * leak. */
        const enum broken_mode modes[] = {READ_PARTIAL_THEN_FAIL, LS_PARTIAL_THEN_FAIL,
                                          EXEC_PARTIAL_THEN_FAIL};
        for (size_t i = 0; i < 3; i++) {
                warder_backend *b = broken_new(modes[i]);
                struct warder_bytes bytes = WARDER_BYTES_INIT;
                struct warder_entries ents = WARDER_ENTRIES_INIT;
                struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
                struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
                xr.command = "sleep 9";
                xr.command_len = 7;
                ck_assert_int_eq(warder_backend_read(&bytes, b, S("/a"), 0, 0, 0, NULL),
                                 modes[i] == READ_PARTIAL_THEN_FAIL ? WARDER_EIO : 0);
                ck_assert_int_eq(warder_backend_ls(&ents, b, S("/"), 0, NULL),
                                 modes[i] == LS_PARTIAL_THEN_FAIL ? WARDER_EIO : 0);
                ck_assert_int_eq(warder_backend_execute(&xo, b, &xr, NULL),
                                 modes[i] == EXEC_PARTIAL_THEN_FAIL ? WARDER_ETIMEDOUT : 0);
                if (modes[i] == READ_PARTIAL_THEN_FAIL)
                        ck_assert_ptr_null(bytes.data);
                if (modes[i] == LS_PARTIAL_THEN_FAIL)
                        ck_assert_ptr_null(ents.items);
                if (modes[i] == EXEC_PARTIAL_THEN_FAIL)
                        ck_assert_ptr_null(xo.out.data);
                warder_bytes_free(&bytes);
                warder_entries_free(&ents);
                warder_exec_result_free(&xo);
                warder_backend_free(b);
        }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Fallbacks over the three-function backend                                                  */

START_TEST(three_functions_give_six_operations)
{
        warder_backend *b = tiny_tree();
        struct warder_error err = WARDER_ERROR_INIT;
        /* read, write, ls: the backend's own */
        char *s = get(b, "/ws/notes.txt");
        ck_assert_str_eq(s, "nothing here\n");
        warder_free(s);
        struct warder_entries ls = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&ls, b, S("/ws"), 0, &err), 0);
        ck_assert_uint_eq(ls.count, 3);
        ck_assert_str_eq(ls.items[0].name, "README.md"); /* sorted by name */
        ck_assert_str_eq(ls.items[1].name, "notes.txt");
        ck_assert_str_eq(ls.items[2].name, "src");
        ck_assert_int_eq(ls.items[2].type, WARDER_ENTRY_DIR);
        warder_entries_free(&ls);
        /* edit: fallback */
        size_t n = 0;
        ck_assert_int_eq(
            warder_backend_edit(&n, b, S("/ws/notes.txt"), S("nothing"), S("something"), 0, &err),
            0);
        ck_assert_uint_eq(n, 1);
        s = get(b, "/ws/notes.txt");
        ck_assert_str_eq(s, "something here\n");
        warder_free(s);
        /* grep: fallback (no glob filter, so no core matcher needed) */
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "hello";
        req.pattern_len = strlen(req.pattern);
        req.path = "/ws";
        req.path_len = 3;
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&g, b, &req, &err), 0);
        ck_assert_uint_eq(g.count, 4);
        warder_grep_result_free(&g);
        /* glob: fallback */
        struct warder_entries gl = WARDER_ENTRIES_INIT;
        int rc = warder_backend_glob(&gl, b, "**/*.c", strlen("**/*.c"), S("/ws"), 0, &err);
        ck_assert_msg(rc == 0, "glob: %s", err.message);
        ck_assert_uint_eq(gl.count, 3);
        warder_entries_free(&gl);
        /* no fallback: execute and realpath */
        ck_assert(!warder_backend_can_execute(b));
        ck_assert(!warder_backend_can_realpath(b));
        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
        xr.command = "ls";
        xr.command_len = 2;
        struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder_backend_execute(&xo, b, &xr, &err), WARDER_ENOTSUP);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, b, S("/ws"), &err), WARDER_ENOTSUP);
        ck_assert_ptr_null(real);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(edit_fallback_rules)
{
        warder_backend *b = tiny_new();
        struct warder_error err = WARDER_ERROR_INIT;
        put(b, "/f", "a-b-a-b-a");
        size_t n = 77;
        /* absent */
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/f"), S("zzz"), S("y"), 0, &err),
                         WARDER_ENOMATCH);
        ck_assert_int_eq(err.code, WARDER_ENOMATCH);
        ck_assert_uint_eq(n, 77);
        /* repeated: refused, file unchanged, no write happened */
        unsigned writes = tiny_of(b)->writes;
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/f"), S("a"), S("X"), 0, &err),
                         WARDER_EAMBIGUOUS);
        ck_assert_ptr_nonnull(strstr(err.message, "3 times"));
        ck_assert_uint_eq(n, 77);
        ck_assert_uint_eq(tiny_of(b)->writes, writes);
        char *s = get(b, "/f");
        ck_assert_str_eq(s, "a-b-a-b-a");
        warder_free(s);
        /* replace all: count reported */
        ck_assert_int_eq(
            warder_backend_edit(&n, b, S("/f"), S("a"), S("XY"), WARDER_EDIT_ALL, &err), 0);
        ck_assert_uint_eq(n, 3);
        s = get(b, "/f");
        ck_assert_str_eq(s, "XY-b-XY-b-XY");
        warder_free(s);
        /* occurrences do not overlap: "aa" in "aaa" is one */
        put(b, "/g", "aaa");
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/g"), S("aa"), S("b"), 0, &err), 0);
        s = get(b, "/g");
        ck_assert_str_eq(s, "ba");
        warder_free(s);
        /* deletion, count NULL, binary bytes */
        put(b, "/h", "keep");
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/h"), S("ee"), NULL, 0, 0, &err), 0);
        s = get(b, "/h");
        ck_assert_str_eq(s, "kp");
        warder_free(s);
        ck_assert_int_eq(warder_backend_write(b, S("/bin"), "a\0b\0c", 5, 0, &err), 0);
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/bin"), "\0b", 2, "\0\0", 2, 0, &err), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, b, S("/bin"), 0, 0, 0, &err), 0);
        ck_assert_uint_eq(out.len, 5);
        ck_assert_int_eq(memcmp(out.data, "a\0\0\0c", 5), 0);
        warder_bytes_free(&out);
        /* missing file and directory: the read error */
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/nope"), S("a"), S("b"), 0, &err),
                         WARDER_ENOENT);
        put(b, "/d/x", "a");
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/d"), S("a"), S("b"), 0, &err),
                         WARDER_EISDIR);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

static bool has_path(const struct warder_entries *e, const char *path)
{
        for (size_t i = 0; i < e->count; i++)
                if (!strcmp(e->items[i].path, path))
                        return true;
        return false;
}

START_TEST(glob_fallback_walks_with_the_core_matcher)
{
        warder_backend *b = tiny_tree();
        tiny_of(b)->link = "/ws/linkdir";
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* relative to the base, any depth */
        ck_assert_int_eq(warder_backend_glob(&e, b, "**/*.c", strlen("**/*.c"), S("/ws"), 0, &err),
                         0);
        ck_assert_uint_eq(e.count, 3);
        ck_assert_str_eq(e.items[0].path, "/ws/src/hello.c"); /* sorted by path */
        ck_assert_str_eq(e.items[0].name, "hello.c");
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_FILE);
        ck_assert(has_path(&e, "/ws/src/lib/util.c"));
        ck_assert(has_path(&e, "/ws/src/main.c"));
        warder_entries_free(&e);
        /* `*` stays in one directory (§2.2) */
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", strlen("*"), S("/ws/"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 4); /* README.md, linkdir, notes.txt, src */
        ck_assert(has_path(&e, "/ws/src"));
        ck_assert(has_path(&e, "/ws/linkdir"));
        warder_entries_free(&e);
        /* the walk goes no deeper than a pattern without `**` or braces can match */
        tiny_of(b)->lses = 0;
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "src/*.c", strlen("src/*.c"), S("/ws"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 2);
        ck_assert_uint_eq(tiny_of(b)->lses, 2); /* /ws and /ws/src, not /ws/src/lib */
        warder_entries_free(&e);
        tiny_of(b)->lses = 0;
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "src/{*,*/*}.c", strlen("src/{*,*/*}.c"), S("/ws"), 0, &err),
            0);
        ck_assert_uint_eq(e.count, 3); /* braces may hide a '/': no pruning */
        ck_assert_uint_eq(tiny_of(b)->lses, 3);
        warder_entries_free(&e);
        /* an absolute pattern is matched against absolute paths */
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "/ws/src/*.c", strlen("/ws/src/*.c"), S("/ws"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        /* the walk never entered the symlink */
        ck_assert_int_eq(warder_backend_glob(&e, b, "**", strlen("**"), S("/ws"), 0, &err), 0);
        ck_assert(!has_path(&e, "/ws/linkdir/leak.txt"));
        ck_assert(has_path(&e, "/ws/linkdir"));
        ck_assert(!tiny_of(b)->ls_through_link);
        warder_entries_free(&e);
        /* from the root */
        ck_assert_int_eq(
            warder_backend_glob(&e, b, "*/hello.txt", strlen("*/hello.txt"), S("/"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, "/other/hello.txt");
        warder_entries_free(&e);
        /* errors: a bad pattern, a missing base, a file as base */
        ck_assert_int_eq(warder_backend_glob(&e, b, "[z-a]", strlen("[z-a]"), S("/ws"), 0, &err),
                         WARDER_EPARSE);
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", strlen("*"), S("/missing"), 0, &err),
                         WARDER_ENOENT);
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", strlen("*"), S("/ws/notes.txt"), 0, &err),
                         WARDER_ENOTDIR);
        ck_assert_ptr_null(e.items);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(walks_skip_unlistable_subdirectories)
{
        warder_backend *b = tiny_tree();
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        tiny_of(b)->ls_fail_path = "/ws/src";
        /* the control: without the failure the walk finds the files below src */
        ck_assert_int_eq(warder_backend_glob(&e, b, "**/*.c", strlen("**/*.c"), S("/ws"), 0, &err),
                         0);
        ck_assert_uint_eq(e.count, 3);
        warder_entries_free(&e);
        /* a subdirectory that vanished or may not be listed is skipped */
        const int skipped[] = {WARDER_EACCES, WARDER_ENOENT, WARDER_EDENIED};
        for (size_t i = 0; i < 3; i++) {
                tiny_of(b)->ls_fail_code = skipped[i];
                ck_assert_int_eq(warder_backend_glob(&e, b, "**", strlen("**"), S("/ws"), 0, &err),
                                 0);
                ck_assert(has_path(&e, "/ws/src"));
                ck_assert(!has_path(&e, "/ws/src/main.c"));
                warder_entries_free(&e);
                struct warder_grep_request r = WARDER_GREP_REQUEST_INIT;
                r.pattern = "hello";
                r.pattern_len = strlen(r.pattern);
                r.path = "/ws";
                r.path_len = 3;
                struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
                ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
                ck_assert_uint_eq(g.count, 1); /* README.md only */
                warder_grep_result_free(&g);
        }
        /* a file the walk cannot read is skipped; the file named as the base is not */
        tiny_of(b)->ls_fail_code = 0;
        tiny_of(b)->read_fail_path = "/ws/README.md";
        tiny_of(b)->read_fail_code = WARDER_EACCES;
        struct warder_grep_request r = WARDER_GREP_REQUEST_INIT;
        r.pattern = "hello";
        r.pattern_len = strlen(r.pattern);
        r.path = "/ws";
        r.path_len = 3;
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 3); /* the three under src */
        warder_grep_result_free(&g);
        r.path = "/ws/README.md";
        r.path_len = strlen(r.path);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), WARDER_EACCES);
        tiny_of(b)->read_fail_code = WARDER_EIO; /* not skippable: ends the walk */
        r.path = "/ws";
        r.path_len = 3;
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), WARDER_EIO);
        ck_assert_ptr_null(g.items);
        tiny_of(b)->read_fail_code = 0;
        /* other failures end the walk, and nothing is returned */
        tiny_of(b)->ls_fail_code = WARDER_EIO;
        ck_assert_int_eq(warder_backend_glob(&e, b, "**", strlen("**"), S("/ws"), 0, &err),
                         WARDER_EIO);
        ck_assert_ptr_null(e.items);
        tiny_of(b)->ls_fail_code = 99; /* unknown: EBACKEND */
        ck_assert_int_eq(warder_backend_glob(&e, b, "**", strlen("**"), S("/ws"), 0, &err),
                         WARDER_EBACKEND);
        /* the base itself is never skipped */
        tiny_of(b)->ls_fail_path = "/ws";
        tiny_of(b)->ls_fail_code = WARDER_EACCES;
        ck_assert_int_eq(warder_backend_glob(&e, b, "**", strlen("**"), S("/ws"), 0, &err),
                         WARDER_EACCES);
        ck_assert_int_eq(err.code, WARDER_EACCES);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

static struct warder_grep_request grep_req(const char *pattern, const char *path)
{
        struct warder_grep_request r = WARDER_GREP_REQUEST_INIT;
        r.pattern = pattern;
        r.pattern_len = strlen(r.pattern);
        r.path = path;
        r.path_len = strlen(path);
        return r;
}

START_TEST(grep_fallback_lines_and_limits)
{
        warder_backend *b = tiny_tree();
        tiny_of(b)->link = "/ws/linkdir";
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        struct warder_grep_request r = grep_req("hel+o", "/ws");
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        /* walk order: by name, depth-first; 1-based lines, text without the newline */
        ck_assert_uint_eq(g.count, 4);
        ck_assert_str_eq(g.items[0].path, "/ws/README.md");
        ck_assert_uint_eq(g.items[0].line, 2);
        ck_assert_str_eq(g.items[0].text, "hello world");
        ck_assert_uint_eq(g.items[0].text_len, 11);
        ck_assert_str_eq(g.items[1].path, "/ws/src/hello.c");
        ck_assert_uint_eq(g.items[1].line, 1);
        ck_assert_str_eq(g.items[2].path, "/ws/src/lib/util.c");
        ck_assert_str_eq(g.items[3].path, "/ws/src/main.c");
        ck_assert_uint_eq(g.items[3].line, 3);
        ck_assert_str_eq(g.items[3].text, "\treturn hello();");
        ck_assert(!g.truncated);
        ck_assert(!tiny_of(b)->ls_through_link);
        warder_grep_result_free(&g);
        /* caseless; the last line without a newline counts */
        r.flags = WARDER_GREP_CASELESS;
        r.pattern = "^/\\* HELLO";
        r.pattern_len = strlen(r.pattern);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 2);
        ck_assert_str_eq(g.items[0].text, "/* Hello again */");
        ck_assert_uint_eq(g.items[0].line, 2);
        warder_grep_result_free(&g);
        /* max_matches: stops and says so */
        r = grep_req("hello", "/");
        r.max_matches = 2;
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 2);
        ck_assert(g.truncated);
        warder_grep_result_free(&g);
        /* exactly max_matches matches: not truncated */
        r = grep_req("outside", "/");
        r.max_matches = 1;
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 1);
        ck_assert(!g.truncated);
        warder_grep_result_free(&g);
        /* a file as the base */
        r = grep_req("return", "/ws/src/main.c");
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 1);
        ck_assert_str_eq(g.items[0].path, "/ws/src/main.c");
        warder_grep_result_free(&g);
        /* no match is success with nothing */
        r = grep_req("zebra", "/ws");
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 0);
        /* errors: bad pattern (with its offset), missing base */
        r = grep_req("a(b", "/ws");
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), WARDER_EPARSE);
        ck_assert_int_eq(err.offset, 3);
        r = grep_req("a", "/missing");
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), WARDER_ENOENT);
        ck_assert_ptr_null(g.items);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(grep_fallback_glob_filter)
{
        warder_backend *b = tiny_tree();
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        /* a filter without '/' matches file names at any depth */
        struct warder_grep_request r = grep_req("hello", "/ws");
        r.glob = "*.c";
        r.glob_len = strlen(r.glob);
        int rc = warder_backend_grep(&g, b, &r, &err);
        ck_assert_msg(rc == 0, "%s", err.message);
        ck_assert_uint_eq(g.count, 3);
        warder_grep_result_free(&g);
        /* a filter with '/' is matched against the path relative to the base */
        r.glob = "src/*.c";
        r.glob_len = strlen(r.glob);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 2);
        warder_grep_result_free(&g);
        r.glob = "src/**/*.c";
        r.glob_len = strlen(r.glob);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 3);
        warder_grep_result_free(&g);
        /* an absolute filter against absolute paths */
        r.glob = "/ws/*.md";
        r.glob_len = strlen(r.glob);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 1);
        ck_assert_str_eq(g.items[0].path, "/ws/README.md");
        warder_grep_result_free(&g);
        /* a malformed filter is a parse error */
        r.glob = "[";
        r.glob_len = strlen(r.glob);
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), WARDER_EPARSE);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Helpers and execute/realpath dispatch                                                      */

START_TEST(result_helpers)
{
        warder_bytes_free(NULL);
        warder_entries_free(NULL);
        warder_grep_result_free(NULL);
        warder_exec_result_free(NULL);
        struct warder_bytes b = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_bytes_set(&b, "abc", 3), 0);
        ck_assert_int_eq(warder_bytes_set(&b, "de\0f", 4), 0); /* replaces, frees the old */
        ck_assert_uint_eq(b.len, 4);
        ck_assert_int_eq(memcmp(b.data, "de\0f", 5), 0); /* NUL-terminated too */
        ck_assert_int_eq(warder_bytes_set(&b, NULL, 1), WARDER_EINVAL);
        warder_bytes_free(&b);
        ck_assert_ptr_null(b.data);
        ck_assert_uint_eq(b.len, 0);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        char name[32], path[40];
        for (int i = 0; i < 1000; i++) {
                snprintf(name, sizeof(name), "f%d", i);
                snprintf(path, sizeof(path), "/d/f%d", i);
                ck_assert_int_eq(warder_entries_add(&e, name, strlen(name), path, strlen(path),
                                                    WARDER_ENTRY_FILE, (uint64_t)i, i),
                                 0);
        }
        ck_assert_uint_eq(e.count, 1000);
        ck_assert_str_eq(e.items[999].path, "/d/f999");
        ck_assert_uint_eq(e.items[500].size, 500);
        /* a caller that shrinks the list may keep adding */
        for (size_t i = 8; i < e.count; i++) {
                free(e.items[i].name);
                free(e.items[i].path);
        }
        e.count = 8;
        for (int i = 0; i < 100; i++)
                ck_assert_int_eq(warder_entries_add(&e, "x", strlen("x"), "/x", strlen("/x"),
                                                    WARDER_ENTRY_FILE, 0, 0),
                                 0);
        ck_assert_uint_eq(e.count, 108);
        ck_assert_int_eq(
            warder_entries_add(&e, NULL, 0, "/x", strlen("/x"), WARDER_ENTRY_FILE, 0, 0),
            WARDER_EINVAL);
        warder_entries_free(&e);
        /* an array the caller built with malloc, of exactly its size, can be appended to */
        e.items = malloc(sizeof(*e.items));
        e.items[0] = (struct warder_entry){strdup("a"), strdup("/a"), WARDER_ENTRY_FILE, 0, 0};
        e.count = 1;
        for (int i = 0; i < 40; i++)
                ck_assert_int_eq(warder_entries_add(&e, "y", strlen("y"), "/y", strlen("/y"),
                                                    WARDER_ENTRY_FILE, 0, 0),
                                 0);
        ck_assert_uint_eq(e.count, 41);
        ck_assert_str_eq(e.items[0].path, "/a");
        ck_assert_str_eq(e.items[40].path, "/y");
        warder_entries_free(&e);
        ck_assert_ptr_null(e.items);
        ck_assert_uint_eq(e.count, 0);
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        for (int i = 0; i < 20; i++)
                ck_assert_int_eq(
                    warder_grep_add(&g, "/a", strlen("/a"), (uint64_t)i + 1, "li\0ne", 5), 0);
        ck_assert_uint_eq(g.items[19].line, 20);
        ck_assert_uint_eq(g.items[19].text_len, 5);
        ck_assert_int_eq(memcmp(g.items[19].text, "li\0ne", 6), 0);
        g.truncated = true;
        warder_grep_result_free(&g);
        ck_assert(!g.truncated);
        ck_assert_ptr_null(g.items);
        char *s = warder_strndup("hello", 3);
        ck_assert_str_eq(s, "hel");
        warder_free(s);
        s = warder_strndup("a\0bc", 4); /* stops at a NUL, like strndup(3) */
        ck_assert_str_eq(s, "a");
        warder_free(s);
        ck_assert_ptr_null(warder_strndup(NULL, 1));
}
END_TEST

START_TEST(execute_and_realpath_dispatch)
{
        warder_backend *mem = NULL, *m = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert_int_eq(mock_backend_new(&m, mem, MOCK_CAN_EXECUTE | MOCK_CAN_REALPATH), 0);
        ck_assert(warder_backend_can_execute(m));
        ck_assert(warder_backend_can_realpath(m));
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
        struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
        /* length-delimited command, NUL-terminated for the backend */
        xr.command = "echo hiXXX";
        xr.command_len = 7;
        ck_assert_int_eq(warder_backend_execute(&xo, m, &xr, &err), 0);
        ck_assert_str_eq(xo.out.data, "echo hi");
        ck_assert_str_eq(mock_of(m)->last_target, "echo hi");
        warder_exec_result_free(&xo);
        ck_assert_ptr_null(xo.out.data);
        xr.command_len = 0;
        ck_assert_int_eq(warder_backend_execute(&xo, m, &xr, &err), WARDER_EINVAL);
        xr.command = "a\0b";
        xr.command_len = 3;
        ck_assert_int_eq(warder_backend_execute(&xo, m, &xr, &err), WARDER_EINVAL);
        xr.command_len = 1;
        xr.version = 0;
        ck_assert_int_eq(warder_backend_execute(&xo, m, &xr, &err), WARDER_EINVAL);
        ck_assert_uint_eq(mock_calls(m, MOCK_EXECUTE), 1);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, m, S("/a/b"), &err), 0);
        ck_assert_str_eq(real, "/a/b");
        warder_free(real);
        /* a failing execute */
        mock_fail(m, MOCK_EXECUTE, WARDER_ETIMEDOUT);
        xr = (struct warder_exec_request)WARDER_EXEC_REQUEST_INIT;
        xr.command = "x";
        xr.command_len = 1;
        ck_assert_int_eq(warder_backend_execute(&xo, m, &xr, &err), WARDER_ETIMEDOUT);
        warder_error_clear(&err);
        int destroyed = 0;
        mock_of(m)->destroyed = &destroyed;
        warder_backend_free(m);
        ck_assert_int_eq(destroyed, 1);
}
END_TEST

START_TEST(mock_records_and_forwards)
{
        warder_backend *mem = NULL, *m = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert_int_eq(mock_backend_new(&m, mem, 0), 0);
        ck_assert(!warder_backend_can_execute(m));
        put(m, "/a/b.txt", "hello");
        char *s = get(m, "/a/b.txt");
        ck_assert_str_eq(s, "hello");
        warder_free(s);
        ck_assert_uint_eq(mock_calls(m, MOCK_WRITE), 1);
        ck_assert_uint_eq(mock_calls(m, MOCK_READ), 1);
        ck_assert_str_eq(mock_log(m), "write /a/b.txt\nread /a/b.txt\n");
        mock_fail(m, MOCK_READ, 12345); /* an unknown code from the "third party" */
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, m, S("/a/b.txt"), 0, 0, 0, NULL),
                         WARDER_EBACKEND);
        mock_reset(m);
        ck_assert_uint_eq(mock_total_calls(m), 0);
        warder_backend_free(m);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* docs/backends.md shows docs/examples/backend-minimal.c verbatim (the file is built and run   */
/* as the test example-backend-minimal).                                                      */

static char *slurp(const char *root, const char *rel)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        char *text = warder_test_slurp(path, &(size_t){0});
        ck_assert_msg(text != NULL, "cannot open %s", path);
        return text;
}

START_TEST(docs_example_is_the_built_file)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_msg(root != NULL, "WARDER_SOURCE_ROOT is not set");
        char *doc = slurp(root, "docs/backends.md");
        char *file = slurp(root, "docs/examples/backend-minimal.c");
        const char *open_mark = "<!-- example: docs/examples/backend-minimal.c -->\n```c\n";
        const char *close_mark = "```\n<!-- end example -->";
        /* the guide keeps a section for the guard */
        ck_assert_ptr_nonnull(strstr(doc, "\n## The guard\n"));
        char *start = strstr(doc, open_mark);
        ck_assert_msg(start != NULL, "docs/backends.md lacks the example marker");
        start += strlen(open_mark);
        char *end = strstr(start, close_mark);
        ck_assert_ptr_nonnull(end);
        *end = '\0';
        ck_assert_msg(
            strcmp(start, file) == 0,
            "the example in docs/backends.md differs from docs/examples/backend-minimal.c");
        free(doc);
        free(file);
}
END_TEST

static Suite *backend_suite(void)
{
        Suite *s = suite_create("backend");
        TCase *tc = tcase_create("dispatch");
        tcase_add_test(tc, init_rejects_incomplete_tables);
        tcase_add_test(tc, dispatch_rejects_uninitialised);
        tcase_add_test(tc, dispatch_argument_checks);
        tcase_add_test(tc, dispatch_passes_nul_terminated_paths);
        tcase_add_test(tc, unknown_codes_become_ebackend);
        tcase_add_test(tc, bad_results_never_escape);
        tcase_add_test(tc, partial_results_are_freed_on_failure);
        tcase_add_test(tc, result_helpers);
        tcase_add_test(tc, execute_and_realpath_dispatch);
        tcase_add_test(tc, mock_records_and_forwards);
        suite_add_tcase(s, tc);
        tc = tcase_create("fallbacks");
        tcase_add_test(tc, three_functions_give_six_operations);
        tcase_add_test(tc, edit_fallback_rules);
        tcase_add_test(tc, glob_fallback_walks_with_the_core_matcher);
        tcase_add_test(tc, grep_fallback_lines_and_limits);
        tcase_add_test(tc, walks_skip_unlistable_subdirectories);
        tcase_add_test(tc, grep_fallback_glob_filter);
        suite_add_tcase(s, tc);
        tc = tcase_create("docs");
        tcase_add_test(tc, docs_example_is_the_built_file);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(backend_suite());
}
