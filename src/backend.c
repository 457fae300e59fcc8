/* SPDX-License-Identifier: MIT */
/*
 * Backend dispatch: argument checks, the NULL-slot policy (fallback or WARDER_ENOTSUP),
 * mapping of unknown status codes to WARDER_EBACKEND, result validation, and the library
 * fallbacks for edit (read + replace + write), glob (walk over ls + the core matcher) and
 * grep (walk over ls + read + PCRE2).
 */

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "fault.h"
#include "grep/engine.h"
#include "util.h"
#include "warder/glob.h"
#include "warder/sys/backend.h"

#define BACKEND_MAGIC 0x57424b31u /* "WBK1" */

/*
 * The ops-table version that introduced each optional slot (sys/backend.h). A slot is read
 * only from a table of that version or later, since an older table ends before it: SLOT()
 * gives NULL otherwise, which means the fallback or WARDER_ENOTSUP as for a NULL slot. The
 * required slots (read, write, ls, destroy) are version 1, checked by warder_backend_init().
 */
#define SLOT_SINCE_edit     1
#define SLOT_SINCE_glob     1
#define SLOT_SINCE_grep     1
#define SLOT_SINCE_execute  1
#define SLOT_SINCE_realpath 1
#define SLOT(b, name)       (warder__ops_has((b)->ops, SLOT_SINCE_##name) ? (b)->ops->name : NULL)
_Static_assert(SLOT_SINCE_edit <= WARDER_BACKEND_OPS_VERSION &&
                   SLOT_SINCE_glob <= WARDER_BACKEND_OPS_VERSION &&
                   SLOT_SINCE_grep <= WARDER_BACKEND_OPS_VERSION &&
                   SLOT_SINCE_execute <= WARDER_BACKEND_OPS_VERSION &&
                   SLOT_SINCE_realpath <= WARDER_BACKEND_OPS_VERSION,
               "a slot of an ops-table version this library does not declare");

bool warder__ops_has(const struct warder_backend_ops *ops, unsigned since)
{
        return ops && ops->version >= since;
}

static int glob_compile(warder_glob **out, const char *pattern, struct warder_error *err)
{
        return warder_glob_compile(out, pattern, strlen(pattern), 0, err);
}

/* ------------------------------------------------------------------------------------------ */
/* Result helpers                                                                             */

WARDER_API char *warder_strndup(const char *s, size_t len)
{
        if (!s)
                return NULL;
        const char *nul = memchr(s, '\0', len);
        if (nul)
                len = (size_t)(nul - s);
        if (len == SIZE_MAX)
                return NULL;
        char *p = malloc(len + 1);
        if (!p)
                return NULL;
        memcpy(p, s, len);
        p[len] = '\0';
        return p;
}

WARDER_API int warder_bytes_set(struct warder_bytes *out, const void *data, size_t len)
{
        if (!out || out->version != WARDER_BYTES_VERSION || (!data && len))
                return WARDER_EINVAL;
        if (len == SIZE_MAX)
                return WARDER_ENOMEM;
        char *p = malloc(len + 1);
        if (!p)
                return WARDER_ENOMEM;
        if (len)
                memcpy(p, data, len);
        p[len] = '\0';
        free(out->data);
        out->data = p;
        out->len = len;
        return 0;
}

/*
 * Makes room for one more item. The capacity is the allocation's own size, so an array the
 * caller allocated, shrank or filtered in place (with malloc) can still be appended to.
 */
static int grow_array(void **items, size_t count, size_t size)
{
        if (*items && malloc_usable_size(*items) / size > count)
                return 0;
        size_t cap = count < 8 ? 8 : count * 2;
        if (count > SIZE_MAX / 2 || cap > SIZE_MAX / size)
                return WARDER_ENOMEM;
        void *p = realloc(*items, cap * size);
        if (!p)
                return WARDER_ENOMEM;
        *items = p;
        return 0;
}

/* A length-delimited string the result helpers store: not empty, no NUL byte. */
static bool bounded_ok(const char *s, size_t len)
{
        return s && len && len != SIZE_MAX && !memchr(s, '\0', len);
}

WARDER_API int warder_entries_add(struct warder_entries *out, const char *name, size_t name_len,
                                  const char *path, size_t path_len, enum warder_entry_type type,
                                  uint64_t size, int64_t mtime)
{
        if (!out || out->version != WARDER_ENTRIES_VERSION || (out->count && !out->items) ||
            !bounded_ok(name, name_len) || !bounded_ok(path, path_len))
                return WARDER_EINVAL;
        void *items = out->items;
        if (grow_array(&items, out->count, sizeof(*out->items)))
                return WARDER_ENOMEM;
        out->items = items;
        char *n = warder_strndup(name, name_len);
        char *p = warder_strndup(path, path_len);
        if (!n || !p) {
                free(n);
                free(p);
                return WARDER_ENOMEM;
        }
        out->items[out->count++] = (struct warder_entry){n, p, type, size, mtime};
        return 0;
}

WARDER_API int warder_grep_add(struct warder_grep_result *out, const char *path, size_t path_len,
                               uint64_t line, const char *text, size_t text_len)
{
        if (!out || out->version != WARDER_GREP_RESULT_VERSION || !bounded_ok(path, path_len) ||
            (!text && text_len) || (out->count && !out->items))
                return WARDER_EINVAL;
        void *items = out->items;
        if (grow_array(&items, out->count, sizeof(*out->items)))
                return WARDER_ENOMEM;
        out->items = items;
        char *p = warder_strndup(path, path_len);
        char *t = text_len < SIZE_MAX ? malloc(text_len + 1) : NULL;
        if (!p || !t) {
                free(p);
                free(t);
                return WARDER_ENOMEM;
        }
        if (text_len)
                memcpy(t, text, text_len);
        t[text_len] = '\0';
        out->items[out->count++] = (struct warder_grep_match){p, line, t, text_len};
        return 0;
}

WARDER_API void warder_bytes_free(struct warder_bytes *bytes)
{
        if (!bytes || bytes->version != WARDER_BYTES_VERSION)
                return;
        free(bytes->data);
        *bytes = (struct warder_bytes)WARDER_BYTES_INIT;
}

WARDER_API void warder_entries_free(struct warder_entries *entries)
{
        if (!entries || entries->version != WARDER_ENTRIES_VERSION)
                return;
        if (entries->items) {
                for (size_t i = 0; i < entries->count; i++) {
                        free(entries->items[i].name);
                        free(entries->items[i].path);
                }
                free(entries->items);
        }
        *entries = (struct warder_entries)WARDER_ENTRIES_INIT;
}

WARDER_API void warder_grep_result_free(struct warder_grep_result *result)
{
        if (!result || result->version != WARDER_GREP_RESULT_VERSION)
                return;
        if (result->items) {
                for (size_t i = 0; i < result->count; i++) {
                        free(result->items[i].path);
                        free(result->items[i].text);
                }
                free(result->items);
        }
        *result = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
}

WARDER_API void warder_exec_result_free(struct warder_exec_result *result)
{
        if (!result || result->version != WARDER_EXEC_RESULT_VERSION)
                return;
        warder_bytes_free(&result->out);
        warder_bytes_free(&result->err);
        *result = (struct warder_exec_result)WARDER_EXEC_RESULT_INIT;
}

/* ------------------------------------------------------------------------------------------ */
/* Initialisation and argument checks                                                         */

WARDER_API int warder_backend_init(warder_backend *b, const struct warder_backend_ops *ops,
                                   struct warder_error *err)
{
        if (!b || !ops)
                return warder_error_set(err, WARDER_EINVAL, "backend or ops table is NULL");
        if (ops->version == 0)
                return warder_error_set(err, WARDER_EINVAL,
                                        "backend ops table has version 0 (not initialised)");
        if (ops->version > WARDER_BACKEND_OPS_VERSION)
                return warder_error_set(err, WARDER_EINVAL,
                                        "backend ops version %u is newer than this library's (%d)",
                                        ops->version, WARDER_BACKEND_OPS_VERSION);
        const char *missing = !ops->read      ? "read"
                              : !ops->write   ? "write"
                              : !ops->ls      ? "ls"
                              : !ops->destroy ? "destroy"
                                              : NULL;
        if (missing)
                return warder_error_set(err, WARDER_EINVAL, "incomplete backend: missing '%s'",
                                        missing);
        b->ops = ops;
        b->magic_ = BACKEND_MAGIC;
        return 0;
}

static bool backend_ok(const warder_backend *b)
{
        return b && b->magic_ == BACKEND_MAGIC && b->ops;
}

static int check_backend(const warder_backend *b, struct warder_error *err)
{
        if (!b)
                return warder_error_set(err, WARDER_EINVAL, "backend is NULL");
        if (!backend_ok(b))
                return warder_error_set(err, WARDER_EINVAL,
                                        "not an initialised backend (warder_backend_init)");
        return 0;
}

/* A length-delimited string made NUL-terminated, on the stack when short. */
struct cstr {
        char *p;
        char small[256];
};

/* The same, where an empty string is allowed (a grep pattern). */
static int cstr_copy(struct cstr *s, const char *what, const char *in, size_t len,
                     struct warder_error *err)
{
        s->p = NULL;
        if (!in)
                return warder_error_set(err, WARDER_EINVAL, "%s is NULL", what);
        if (memchr(in, '\0', len))
                return warder_error_set(err, WARDER_EINVAL, "%s contains a NUL byte", what);
        if (len < sizeof(s->small)) {
                s->p = s->small;
        } else {
                s->p = len < SIZE_MAX ? malloc(len + 1) : NULL;
                if (!s->p)
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        memcpy(s->p, in, len);
        s->p[len] = '\0';
        return 0;
}

static int cstr_set(struct cstr *s, const char *what, const char *in, size_t len,
                    struct warder_error *err)
{
        s->p = NULL;
        if (in && len == 0)
                return warder_error_set(err, WARDER_EINVAL, "%s is empty", what);
        return cstr_copy(s, what, in, len, err);
}

static void cstr_free(struct cstr *s)
{
        if (s->p != s->small)
                free(s->p);
        s->p = NULL;
}

/* A failure point of fault-injection builds (fault.h): the method fails before it runs. In
 * a normal build WARDER__FAULT is false and this is never called. */
static int injected(const char *what, struct warder_error *err)
{
        return warder_error_set(err, WARDER_EIO, "%s: injected failure", what);
}

#define CALL(what, err, call) (WARDER__FAULT(WARDER__FAULT_BACKEND) ? injected(what, err) : (call))

/* Maps what a backend method returned: unknown codes become WARDER_EBACKEND, and a failure
 * without detail gets a generic message. */
static int map_status(int rc, const char *what, struct warder_error *err)
{
        if (rc == 0)
                return 0;
        if (rc > 0 || rc < WARDER_STATUS_MIN)
                return warder_error_set(err, WARDER_EBACKEND,
                                        "backend %s returned unknown status %d", what, rc);
        if (err && err->code != rc)
                warder_error_set(err, rc, "%s: %s", what, warder_strerror(rc));
        return rc;
}

static int broken(struct warder_error *err, const char *what, const char *why)
{
        return warder_error_set(err, WARDER_EBACKEND, "backend %s broke its contract: %s", what,
                                why);
}

/* Moves a detailed error into the caller's (which may be NULL). */
/* An output container: present and of the version this library writes. */
static int check_out(const void *out, unsigned version, unsigned want, const char *what,
                     struct warder_error *err)
{
        if (!out)
                return warder_error_set(err, WARDER_EINVAL, "%s: out is NULL", what);
        if (version != want)
                return warder_error_set(err, WARDER_EINVAL,
                                        "%s: out has version %u, not %u (initialise it with its "
                                        "_INIT macro)",
                                        what, version, want);
        return 0;
}

static int check_bytes(struct warder_bytes *bytes, const char *what, struct warder_error *err)
{
        if (!bytes->data) {
                if (bytes->len)
                        return broken(err, what, "a length without data");
                if (warder_bytes_set(bytes, "", 0))
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        return 0;
}

/* Whether `count` items of `size` bytes fit in `items`. Results are allocated with the result
 * helpers (malloc), so the allocation says how many it holds: a count beyond that would make
 * every reader, the guard first, run off the end. */
static bool count_fits(const void *items, size_t count, size_t size)
{
        return !count || malloc_usable_size((void *)items) / size >= count;
}

static bool name_ok(const char *name)
{
        return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static int check_entries(struct warder_entries *e, const char *what, struct warder_error *err)
{
        if (e->count && !e->items)
                return broken(err, what, "a count without entries");
        if (!count_fits(e->items, e->count, sizeof(*e->items))) {
                /* Which items are real cannot be told: only the array is freed. */
                e->count = 0;
                return broken(err, what, "a count larger than its entries");
        }
        for (size_t i = 0; i < e->count; i++) {
                const struct warder_entry *it = &e->items[i];
                if (!it->name || !it->path)
                        return broken(err, what, "an entry without name or path");
                if (!name_ok(it->name))
                        return broken(err, what,
                                      "an entry name that is empty, '.', '..' or has '/'");
                if (it->path[0] != '/')
                        return broken(err, what, "an entry path that is not absolute");
                if ((unsigned)it->type > (unsigned)WARDER_ENTRY_OTHER)
                        return broken(err, what, "an unknown entry type");
        }
        return 0;
}

static int cmp_entry_name(const void *a, const void *b)
{
        return strcmp(((const struct warder_entry *)a)->name,
                      ((const struct warder_entry *)b)->name);
}

static int cmp_entry_path(const void *a, const void *b)
{
        return strcmp(((const struct warder_entry *)a)->path,
                      ((const struct warder_entry *)b)->path);
}

static int check_grep(struct warder_grep_result *g, struct warder_error *err)
{
        if (g->count && !g->items)
                return broken(err, "grep", "a count without matches");
        if (!count_fits(g->items, g->count, sizeof(*g->items))) {
                g->count = 0; /* as for entries */
                return broken(err, "grep", "a count larger than its matches");
        }
        for (size_t i = 0; i < g->count; i++) {
                const struct warder_grep_match *m = &g->items[i];
                if (!m->path || !m->text)
                        return broken(err, "grep", "a match without path or text");
                if (m->path[0] != '/')
                        return broken(err, "grep", "a match path that is not absolute");
                if (m->line == 0)
                        return broken(err, "grep", "a match on line 0");
        }
        return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Calls into the backend (paths already NUL-terminated), shared by dispatch and fallbacks    */

static int call_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                     unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        struct warder_bytes tmp = WARDER_BYTES_INIT;
        int rc = map_status(
            CALL("read", err, b->ops->read(b, path, offset, limit, flags, &tmp, err)), "read", err);
        if (!rc)
                rc = check_bytes(&tmp, "read", err);
        if (rc) {
                warder_bytes_free(&tmp);
                return rc;
        }
        *out = tmp;
        return 0;
}

static int call_write(warder_backend *b, const char *path, const void *data, size_t len,
                      unsigned flags, struct warder_error *err)
{
        return map_status(CALL("write", err, b->ops->write(b, path, data, len, flags, err)),
                          "write", err);
}

static int call_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                   struct warder_error *err)
{
        struct warder_entries tmp = WARDER_ENTRIES_INIT;
        int rc = map_status(CALL("ls", err, b->ops->ls(b, path, flags, &tmp, err)), "ls", err);
        if (!rc)
                rc = check_entries(&tmp, "ls", err);
        if (rc) {
                warder_entries_free(&tmp);
                return rc;
        }
        if (tmp.count > 1)
                qsort(tmp.items, tmp.count, sizeof(*tmp.items), cmp_entry_name);
        *out = tmp;
        return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* edit fallback                                                                              */

int warder__edit_apply(const char *data, size_t len, const char *old_text, size_t old_len,
                       const char *new_text, size_t new_len, unsigned flags, const char *path,
                       struct warder__buf *out, size_t *count, struct warder_error *err)
{
        warder__buf_truncate(out, 0);
        size_t n = 0;
        const char *end = data + len;
        for (const char *p = data; (size_t)(end - p) >= old_len;) {
                const char *hit = memmem(p, (size_t)(end - p), old_text, old_len);
                if (!hit)
                        break;
                n++;
                p = hit + old_len;
        }
        if (n == 0)
                return warder_error_set(err, WARDER_ENOMATCH,
                                        "edit '%s': text to replace not found", path);
        if (n > 1 && !(flags & WARDER_EDIT_ALL))
                return warder_error_set(err, WARDER_EAMBIGUOUS,
                                        "edit '%s': text to replace occurs %zu times (replace all "
                                        "or give more context)",
                                        path, n);
        int rc = warder__buf_reserve(out, len - n * old_len + n * new_len);
        const char *p = data;
        for (size_t i = 0; !rc && i < n; i++) {
                const char *hit = memmem(p, (size_t)(end - p), old_text, old_len);
                rc = warder__buf_append(out, p, (size_t)(hit - p));
                if (!rc)
                        rc = warder__buf_append(out, new_text, new_len);
                p = hit + old_len;
        }
        if (!rc)
                rc = warder__buf_append(out, p, (size_t)(end - p));
        if (rc)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        *count = n;
        return 0;
}

static int edit_fallback(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                         const char *new_text, size_t new_len, unsigned flags, size_t *count,
                         struct warder_error *err)
{
        struct warder_bytes cur = WARDER_BYTES_INIT;
        unsigned io_flags = flags & ~(unsigned)WARDER_EDIT_ALL;
        int rc = call_read(b, path, 0, 0, io_flags, &cur, err);
        if (rc)
                return rc;
        if (cur.truncated) {
                warder_bytes_free(&cur);
                return warder_error_set(err, WARDER_ETOOBIG,
                                        "edit '%s': the backend returned the file truncated", path);
        }
        struct warder__buf next = WARDER__BUF_INIT;
        size_t n = 0;
        rc = warder__edit_apply(cur.data, cur.len, old_text, old_len, new_text, new_len, flags,
                                path, &next, &n, err);
        warder_bytes_free(&cur);
        if (!rc)
                rc = call_write(b, path, next.data, next.len, io_flags, err);
        warder__buf_free(&next);
        if (!rc)
                *count = n;
        return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Directory walk over ls (glob and grep fallbacks)                                           */

#define WALK_STOP 1 /* a visitor asks to stop early: not an error */

/* Statuses that make a walk skip one file or subdirectory rather than fail: what vanished or
 * may not be opened. Anything else (memory, a broken backend, a budget) ends the walk. */
static bool skippable(int rc)
{
        return rc == WARDER_ENOENT || rc == WARDER_EACCES || rc == WARDER_ENOTREG ||
               rc == WARDER_ENOTDIR || rc == WARDER_ESYMLINK || rc == WARDER_EISDIR ||
               rc == WARDER_ETOOBIG || rc == WARDER_EDENIED || rc == WARDER_EASK ||
               rc == WARDER_EOUTSIDE;
}

struct walk {
        warder_backend *b;
        unsigned flags;
        size_t visited;
        struct warder__buf path; /* absolute path of the entry being visited */
        size_t rel_off;          /* where the path relative to the base starts */
        unsigned max_depth;      /* entries deeper than this cannot match (0: no limit) */
        int (*visit)(struct walk *w, const struct warder_entry *e, struct warder_error *err);
        void *ud;
};

static int walk_init(struct walk *w, warder_backend *b, const char *base, unsigned flags,
                     struct warder_error *err)
{
        memset(w, 0, sizeof(*w));
        w->b = b;
        w->flags = flags;
        if (base[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "'%s': the base must be absolute",
                                        base);
        size_t len = strlen(base);
        while (len > 1 && base[len - 1] == '/')
                len--;
        if (warder__buf_append(&w->path, base, len))
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        w->rel_off = len == 1 ? 1 : len + 1;
        return 0;
}

static int walk_dir(struct walk *w, unsigned depth, struct warder_error *err);

/* Visits the entries of the directory at w->path, depth-first, in name order. Symlink entries
 * are never followed as directories. */
static int walk_list(struct walk *w, const struct warder_entries *list, unsigned depth,
                     struct warder_error *err)
{
        size_t dir_len = w->path.len;
        int rc = 0;
        for (size_t i = 0; !rc && i < list->count; i++) {
                const struct warder_entry *e = &list->items[i];
                if (++w->visited > WARDER__WALK_MAX_ENTRIES) {
                        rc = warder_error_set(err, WARDER_ELIMIT,
                                              "walk budget exhausted (%d entries)",
                                              WARDER__WALK_MAX_ENTRIES);
                        break;
                }
                warder__buf_truncate(&w->path, dir_len);
                if ((dir_len != 1 && warder__buf_putc(&w->path, '/')) ||
                    warder__buf_puts(&w->path, e->name)) {
                        rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
                        break;
                }
                rc = w->visit(w, e, err);
                if (!rc && e->type == WARDER_ENTRY_DIR &&
                    (!w->max_depth || depth + 1 < w->max_depth))
                        rc = walk_dir(w, depth + 1, err);
        }
        warder__buf_truncate(&w->path, dir_len);
        return rc;
}

static int walk_dir(struct walk *w, unsigned depth, struct warder_error *err)
{
        if (depth > WARDER__WALK_MAX_DEPTH)
                return warder_error_set(err, WARDER_ELIMIT, "walk deeper than %d directories",
                                        WARDER__WALK_MAX_DEPTH);
        struct warder_entries list = WARDER_ENTRIES_INIT;
        struct warder_error probe = WARDER_ERROR_INIT;
        int rc = call_ls(w->b, w->path.data, w->flags, &list, &probe);
        if (rc && depth > 0 && skippable(rc)) {
                /* a subdirectory that went away or cannot be listed: skipped, as find(1) does */
                warder_error_clear(&probe);
                return 0;
        }
        if (rc)
                warder__error_move(err, &probe);
        else
                rc = walk_list(w, &list, depth, err);
        warder_entries_free(&list);
        return rc;
}

static const char *walk_rel(const struct walk *w, size_t *len)
{
        *len = w->path.len - w->rel_off;
        return w->path.data + w->rel_off;
}

/* ------------------------------------------------------------------------------------------ */
/* glob fallback                                                                              */

struct glob_ctx {
        warder_glob *glob;
        bool absolute;
        struct warder_entries *out;
};

static int glob_visit(struct walk *w, const struct warder_entry *e, struct warder_error *err)
{
        struct glob_ctx *g = w->ud;
        size_t len = w->path.len;
        const char *subject = g->absolute ? w->path.data : walk_rel(w, &len);
        int m = warder_glob_match(g->glob, subject, len);
        if (m < 0)
                return warder_error_set(err, m, "glob: matching '%s' failed: %s", w->path.data,
                                        warder_strerror(m));
        if (m == 0)
                return 0;
        if (warder_entries_add(g->out, e->name, strlen(e->name), w->path.data, strlen(w->path.data),
                               e->type, e->size, e->mtime))
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        return 0;
}

/*
 * How deep below the base a relative pattern can match: one level per '/' plus one, unless it
 * has `**` or braces (which may hide a '/'). `*`, `?` and classes never match '/' (§2.2–§2.5),
 * so no match lies deeper; a '/' inside a class only overestimates. 0: no limit.
 */
static unsigned pattern_depth(const char *pattern)
{
        if (strstr(pattern, "**") || strchr(pattern, '{'))
                return 0;
        unsigned depth = 1;
        for (const char *p = pattern; *p; p++)
                if (*p == '/' && depth < WARDER__WALK_MAX_DEPTH)
                        depth++;
        return depth;
}

static int glob_fallback(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                         struct warder_entries *out, struct warder_error *err)
{
        struct glob_ctx g = {NULL, pattern[0] == '/', out};
        int rc = glob_compile(&g.glob, pattern, err);
        if (rc)
                return rc;
        struct walk w;
        rc = walk_init(&w, b, base, flags, err);
        if (!rc) {
                w.visit = glob_visit;
                w.ud = &g;
                w.max_depth = g.absolute ? 0 : pattern_depth(pattern);
                rc = walk_dir(&w, 0, err);
        }
        warder__buf_free(&w.path);
        warder_glob_free(g.glob);
        return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* grep fallback                                                                              */

struct grep_ctx {
        const struct warder_grep_request *req;
        struct warder__grep_engine *engine; /* the local backend's matcher (src/grep) */
        struct warder__grep_scratch *scratch;
        warder_glob *filter;
        bool filter_abs;  /* the filter is absolute: match absolute paths */
        bool filter_name; /* the filter has no '/': match file names at any depth */
        struct warder_grep_result *out;
        const char *path; /* the file being searched */
        struct warder_error *err;
};

static int grep_filter(struct grep_ctx *g, const char *abs, size_t abs_len, const char *rel,
                       size_t rel_len, const char *name, struct warder_error *err)
{
        if (!g->filter)
                return 1;
        const char *s = g->filter_abs ? abs : g->filter_name ? name : rel;
        size_t len = g->filter_abs ? abs_len : g->filter_name ? strlen(name) : rel_len;
        int m = warder_glob_match(g->filter, s, len);
        if (m < 0)
                return warder_error_set(err, m, "grep: glob filter failed on '%s': %s", abs,
                                        warder_strerror(m));
        return m;
}

static int grep_emit(void *ud, uint64_t line, const char *text, size_t len)
{
        struct grep_ctx *g = ud;
        size_t max = g->req->max_matches;
        if (max && g->out->count >= max) {
                g->out->truncated = true;
                return WALK_STOP;
        }
        if (warder_grep_add(g->out, g->path, strlen(g->path), line, text, len))
                return warder_error_set(g->err, WARDER_ENOMEM, "out of memory");
        return 0;
}

/* Searches one file. A file found by the walk is skipped when it cannot be read (see
 * skippable()); the file the caller named as the base is not. Binary files are searched
 * too: skipping them is a choice of the local backend (grep_skip_binary, §6.2), and a backend
 * that wants it implements grep with the same engine. */
static int grep_file(struct grep_ctx *g, warder_backend *b, const char *path, unsigned flags,
                     bool named, struct warder_error *err)
{
        struct warder_error probe = WARDER_ERROR_INIT;
        struct warder_bytes data = WARDER_BYTES_INIT;
        int rc = call_read(b, path, 0, 0, flags, &data, &probe);
        if (rc) {
                if (!named && skippable(rc)) {
                        if (rc == WARDER_ETOOBIG)
                                g->out->truncated = true;
                        warder_error_clear(&probe);
                        return 0;
                }
                warder__error_move(err, &probe);
                return rc;
        }
        if (data.truncated)
                g->out->truncated = true;
        if (data.len) {
                bool incomplete = false;
                g->path = path;
                g->err = err;
                rc = warder__grep_search(g->engine, g->scratch, data.data, data.len, grep_emit, g,
                                         &incomplete);
                if (incomplete)
                        g->out->truncated = true; /* a line the engine could not decide */
        }
        warder_bytes_free(&data);
        return rc;
}

/* §4.7: the request's may_search is asked before a file is opened; a refused file is counted
 * (by name: whatever it holds) and never read. */
static bool grep_may_search(struct grep_ctx *g, const char *path, size_t len)
{
        if (!g->req->may_search || g->req->may_search(g->req->may_search_ud, path, len))
                return true;
        g->out->hidden_files++;
        return false;
}

static int grep_visit(struct walk *w, const struct warder_entry *e, struct warder_error *err)
{
        struct grep_ctx *g = w->ud;
        if (e->type != WARDER_ENTRY_FILE)
                return 0;
        size_t rel_len;
        const char *rel = walk_rel(w, &rel_len);
        int m = grep_filter(g, w->path.data, w->path.len, rel, rel_len, e->name, err);
        if (m <= 0 || !grep_may_search(g, w->path.data, w->path.len))
                return m < 0 ? m : 0;
        return grep_file(g, w->b, w->path.data, w->flags, false, err);
}

static int grep_compile(struct grep_ctx *g, const struct warder_grep_request *req,
                        struct warder_error *err)
{
        int rc = warder__grep_engine_new(
            &g->engine, req->pattern, strlen(req->pattern),
            (req->flags & WARDER_GREP_CASELESS) ? WARDER__GREP_CASELESS : 0, err);
        if (rc)
                return rc;
        if (!(g->scratch = warder__grep_scratch_new(g->engine)))
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        if (req->glob) {
                size_t len = strlen(req->glob);
                rc = glob_compile(&g->filter, req->glob, err);
                if (rc)
                        return rc;
                g->filter_abs = req->glob[0] == '/';
                g->filter_name = !memchr(req->glob, '/', len);
        }
        return 0;
}

static int grep_fallback(warder_backend *b, const struct warder_grep_request *req,
                         struct warder_grep_result *out, struct warder_error *err)
{
        struct grep_ctx g = {req, NULL, NULL, NULL, false, false, out, NULL, NULL};
        struct walk w;
        memset(&w, 0, sizeof(w));
        int rc = grep_compile(&g, req, err);
        if (!rc)
                rc = walk_init(&w, b, req->path, req->flags & ~(unsigned)WARDER_GREP_CASELESS, err);
        if (!rc) {
                w.visit = grep_visit;
                w.ud = &g;
                struct warder_error probe = WARDER_ERROR_INIT;
                struct warder_entries list = WARDER_ENTRIES_INIT;
                rc = call_ls(b, w.path.data, w.flags, &list, &probe);
                if (rc == WARDER_ENOTDIR) {
                        /* The base is a file: the filter sees its name. */
                        warder_error_clear(&probe);
                        const char *slash = strrchr(w.path.data, '/');
                        const char *name = slash ? slash + 1 : w.path.data;
                        rc =
                            grep_filter(&g, w.path.data, w.path.len, name, strlen(name), name, err);
                        if (rc > 0 && grep_may_search(&g, w.path.data, w.path.len))
                                rc = grep_file(&g, b, w.path.data, w.flags, true, err);
                        else if (rc > 0)
                                rc = 0;
                } else if (rc) {
                        warder__error_move(err, &probe);
                } else {
                        rc = walk_list(&w, &list, 0, err);
                }
                warder_entries_free(&list);
        }
        warder__buf_free(&w.path);
        warder_glob_free(g.filter);
        warder__grep_scratch_free(g.scratch);
        warder__grep_engine_free(g.engine);
        return rc == WALK_STOP ? 0 : rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Dispatch                                                                                   */

WARDER_API int warder_backend_read(struct warder_bytes *out, warder_backend *b, const char *path,
                                   size_t path_len, uint64_t offset, uint64_t limit, unsigned flags,
                                   struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if ((rc = check_out(out, out ? out->version : 0, WARDER_BYTES_VERSION, "read", err)))
                return rc;
        struct cstr p;
        rc = cstr_set(&p, "path", path, path_len, err);
        if (!rc)
                rc = call_read(b, p.p, offset, limit, flags, out, err);
        cstr_free(&p);
        return rc;
}

WARDER_API int warder_backend_write(warder_backend *b, const char *path, size_t path_len,
                                    const void *data, size_t len, unsigned flags,
                                    struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if (!data && len)
                return warder_error_set(err, WARDER_EINVAL, "write: data is NULL");
        struct cstr p;
        rc = cstr_set(&p, "path", path, path_len, err);
        if (!rc)
                rc = call_write(b, p.p, data ? data : "", len, flags, err);
        cstr_free(&p);
        return rc;
}

WARDER_API int warder_backend_edit(size_t *count, warder_backend *b, const char *path,
                                   size_t path_len, const char *old_text, size_t old_len,
                                   const char *new_text, size_t new_len, unsigned flags,
                                   struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if (!old_text || old_len == 0)
                return warder_error_set(err, WARDER_EINVAL, "edit: the text to replace is empty");
        if (!new_text && new_len)
                return warder_error_set(err, WARDER_EINVAL, "edit: new text is NULL");
        if (!new_text)
                new_text = "";
        struct cstr p;
        rc = cstr_set(&p, "path", path, path_len, err);
        if (rc) {
                cstr_free(&p);
                return rc;
        }
        size_t n = 0;
        if (SLOT(b, edit))
                rc = map_status(CALL("edit", err,
                                     b->ops->edit(b, p.p, old_text, old_len, new_text, new_len,
                                                  flags, &n, err)),
                                "edit", err);
        else
                rc = edit_fallback(b, p.p, old_text, old_len, new_text, new_len, flags, &n, err);
        cstr_free(&p);
        if (!rc && count)
                *count = n;
        return rc;
}

WARDER_API int warder_backend_ls(struct warder_entries *out, warder_backend *b, const char *path,
                                 size_t path_len, unsigned flags, struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if ((rc = check_out(out, out ? out->version : 0, WARDER_ENTRIES_VERSION, "ls", err)))
                return rc;
        struct cstr p;
        rc = cstr_set(&p, "path", path, path_len, err);
        if (!rc)
                rc = call_ls(b, p.p, flags, out, err);
        cstr_free(&p);
        return rc;
}

WARDER_API int warder_backend_glob(struct warder_entries *out, warder_backend *b,
                                   const char *pattern, size_t pattern_len, const char *base,
                                   size_t base_len, unsigned flags, struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if ((rc = check_out(out, out ? out->version : 0, WARDER_ENTRIES_VERSION, "glob", err)))
                return rc;
        if (!pattern || !pattern_len)
                return warder_error_set(err, WARDER_EINVAL, "glob: the pattern is empty");
        struct cstr pat, p;
        rc = cstr_set(&pat, "glob: the pattern", pattern, pattern_len, err);
        if (!rc)
                rc = cstr_set(&p, "base", base, base_len, err);
        else
                p.p = NULL;
        if (rc) {
                cstr_free(&pat);
                cstr_free(&p);
                return rc;
        }
        struct warder_entries tmp = WARDER_ENTRIES_INIT;
        if (SLOT(b, glob))
                rc = map_status(CALL("glob", err, b->ops->glob(b, pat.p, p.p, flags, &tmp, err)),
                                "glob", err);
        else
                rc = glob_fallback(b, pat.p, p.p, flags, &tmp, err);
        cstr_free(&pat);
        cstr_free(&p);
        if (!rc)
                rc = check_entries(&tmp, "glob", err);
        if (rc) {
                warder_entries_free(&tmp);
                return rc;
        }
        if (tmp.count > 1)
                qsort(tmp.items, tmp.count, sizeof(*tmp.items), cmp_entry_path);
        *out = tmp;
        return 0;
}

WARDER_API int warder_backend_grep(struct warder_grep_result *out, warder_backend *b,
                                   const struct warder_grep_request *req, struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if ((rc = check_out(out, out ? out->version : 0, WARDER_GREP_RESULT_VERSION, "grep", err)))
                return rc;
        if (!req)
                return warder_error_set(err, WARDER_EINVAL, "grep: the request is NULL");
        /* Versions 1 and 2 carried C strings: one string convention, so they are refused.
         * Version 3 lacks `threads` (the default). */
        if (req->version != 3 && req->version != WARDER_GREP_REQUEST_VERSION)
                return warder_error_set(err, WARDER_EINVAL, "grep: unknown request version %u",
                                        req->version);
        if (!req->pattern)
                return warder_error_set(err, WARDER_EINVAL, "grep: the pattern is NULL");
        struct warder_grep_request copy = WARDER_GREP_REQUEST_INIT;
        memcpy(&copy, req,
               req->version == 3 ? offsetof(struct warder_grep_request, threads) : sizeof(copy));
        copy.version = WARDER_GREP_REQUEST_VERSION;
        if (!copy.pattern_len && copy.pattern[0])
                return warder_error_set(err, WARDER_EINVAL,
                                        "grep: pattern_len is 0 for a pattern that is not empty");
        if (copy.glob && !copy.glob_len)
                return warder_error_set(err, WARDER_EINVAL, "grep: the glob filter is empty");
        struct cstr p, pat, glob = {NULL, {0}};
        rc = cstr_copy(&pat, "grep: the pattern", copy.pattern, copy.pattern_len, err);
        if (!rc && copy.glob)
                rc = cstr_set(&glob, "grep: the glob filter", copy.glob, copy.glob_len, err);
        if (!rc)
                rc = cstr_set(&p, "path", req->path, req->path_len, err);
        else
                p.p = NULL;
        if (rc) {
                cstr_free(&pat);
                cstr_free(&glob);
                cstr_free(&p);
                return rc;
        }
        copy.path = p.p;
        copy.pattern = pat.p;
        copy.glob = glob.p;
        struct warder_grep_result tmp = WARDER_GREP_RESULT_INIT;
        if (SLOT(b, grep))
                rc = map_status(CALL("grep", err, b->ops->grep(b, &copy, &tmp, err)), "grep", err);
        else
                rc = grep_fallback(b, &copy, &tmp, err);
        cstr_free(&p);
        cstr_free(&pat);
        cstr_free(&glob);
        if (!rc)
                rc = check_grep(&tmp, err);
        if (!rc && req->max_matches && tmp.count > req->max_matches)
                rc = broken(err, "grep", "more matches than max_matches");
        if (rc) {
                warder_grep_result_free(&tmp);
                return rc;
        }
        *out = tmp;
        return 0;
}

WARDER_API int warder_backend_execute(struct warder_exec_result *out, warder_backend *b,
                                      const struct warder_exec_request *req,
                                      struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if (!SLOT(b, execute))
                return warder_error_set(err, WARDER_ENOTSUP,
                                        "this backend cannot execute commands");
        if ((rc = check_out(out, out ? out->version : 0, WARDER_EXEC_RESULT_VERSION, "execute",
                            err)))
                return rc;
        if (!req)
                return warder_error_set(err, WARDER_EINVAL, "execute: the request is NULL");
        if (req->version == 0 || req->version > WARDER_EXEC_REQUEST_VERSION)
                return warder_error_set(err, WARDER_EINVAL, "execute: unknown request version %u",
                                        req->version);
        if (req->cwd && !req->cwd[0])
                return warder_error_set(err, WARDER_EINVAL, "execute: cwd is empty");
        struct cstr c;
        rc = cstr_set(&c, "command", req->command, req->command_len, err);
        if (rc) {
                cstr_free(&c);
                return rc;
        }
        /* The backend always sees the newest request: an older caller's struct is shorter
         * (version 1 ends before `cancel`, version 2 before `mask`). */
        struct warder_exec_request copy = WARDER_EXEC_REQUEST_INIT;
        memcpy(&copy, req,
               req->version >= 3   ? sizeof(copy)
               : req->version == 2 ? offsetof(struct warder_exec_request, mask)
                                   : offsetof(struct warder_exec_request, cancel));
        copy.version = WARDER_EXEC_REQUEST_VERSION;
        copy.command = c.p;
        struct warder_exec_result tmp = WARDER_EXEC_RESULT_INIT;
        rc = map_status(CALL("execute", err, b->ops->execute(b, &copy, &tmp, err)), "execute", err);
        cstr_free(&c);
        if (!rc)
                rc = check_bytes(&tmp.out, "execute", err);
        if (!rc)
                rc = check_bytes(&tmp.err, "execute", err);
        if (rc) {
                warder_exec_result_free(&tmp);
                return rc;
        }
        /* An older caller's result ends before the fields its request version did not know. */
        memcpy(out, &tmp,
               req->version >= 3   ? sizeof(tmp)
               : req->version == 2 ? offsetof(struct warder_exec_result, pid_namespace)
                                   : offsetof(struct warder_exec_result, cancelled));
        return 0;
}

WARDER_API int warder_backend_realpath(char **out, warder_backend *b, const char *path,
                                       size_t path_len, struct warder_error *err)
{
        int rc = check_backend(b, err);
        if (rc)
                return rc;
        if (!out)
                return warder_error_set(err, WARDER_EINVAL, "realpath: out is NULL");
        if (!SLOT(b, realpath))
                return warder_error_set(err, WARDER_ENOTSUP, "this backend has no realpath");
        struct cstr p;
        rc = cstr_set(&p, "path", path, path_len, err);
        if (rc) {
                cstr_free(&p);
                return rc;
        }
        char *tmp = NULL;
        rc =
            map_status(CALL("realpath", err, b->ops->realpath(b, p.p, &tmp, err)), "realpath", err);
        cstr_free(&p);
        if (!rc && (!tmp || tmp[0] != '/'))
                rc = broken(err, "realpath", "no absolute path");
        if (rc) {
                free(tmp);
                return rc;
        }
        *out = tmp;
        return 0;
}

WARDER_API bool warder_backend_can_execute(const warder_backend *b)
{
        return backend_ok(b) && SLOT(b, execute);
}

WARDER_API bool warder_backend_can_realpath(const warder_backend *b)
{
        return backend_ok(b) && SLOT(b, realpath);
}

unsigned warder__backend_caps(const warder_backend *b)
{
        return backend_ok(b) ? b->ops->caps : 0;
}

bool warder__backend_has_grep(const warder_backend *b)
{
        return backend_ok(b) && SLOT(b, grep);
}

WARDER_API void warder_backend_free(warder_backend *b)
{
        if (!backend_ok(b))
                return;
        b->magic_ = 0;
        b->ops->destroy(b);
}
