/* SPDX-License-Identifier: MIT */
/*
 * Pathname expansion as the shell does it (§5.5): see expand.h. The matching of one component
 * against one name is fnmatch(3) without flags (names hold no `/`; the rule for a leading `.`
 * is applied here), with every quoted byte escaped.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"

int warder__expand_physical(const struct warder__expand_io *io, const char *s, size_t n,
                            struct warder__buf *out)
{
        warder__buf_truncate(out, 0);
        int rc = 0;
        for (size_t i = 0; i < n && !rc;) {
                while (i < n && s[i] == '/')
                        i++;
                size_t start = i;
                while (i < n && s[i] != '/')
                        i++;
                size_t c = i - start;
                if (c == 0 || (c == 1 && s[start] == '.'))
                        continue;
                if (c == 2 && s[start] == '.' && s[start + 1] == '.') {
                        if (!out->len)
                                continue;
                        if (io->realpath) {
                                char *real = NULL;
                                rc = io->realpath(io->ud, out->data, &real);
                                if (!rc && (!real || real[0] != '/'))
                                        rc = WARDER_EBACKEND;
                                if (!rc)
                                        rc = warder__path_normalize_buf(out, NULL, NULL, NULL, real,
                                                                        strlen(real), NULL);
                                warder_free(real);
                        }
                        if (!rc) {
                                char *slash = memrchr(out->data, '/', out->len);
                                warder__buf_truncate(out, slash ? (size_t)(slash - out->data) : 0);
                        }
                        continue;
                }
                rc = warder__buf_putc(out, '/');
                if (!rc)
                        rc = warder__buf_append(out, s + start, c);
        }
        if (!rc && !out->len)
                rc = warder__buf_putc(out, '/');
        return rc;
}

void warder__expand_free(char **v, size_t count)
{
        for (size_t i = 0; v && i < count; i++)
                free(v[i]);
        free(v);
}

struct walk {
        struct warder__expand_io *io;
        const char *pat;
        const unsigned char *unq;
        size_t len;
        char **v;
        size_t n, cap;
        bool incomplete;
        struct warder__buf prefix, phys, fn;
};

/* Component [a, b) is a pattern: an unquoted `*` or `?`, or an unquoted `[` closed by a later
 * unquoted `]` (the same rule as the inspector's). */
static bool is_pattern(const struct walk *w, size_t a, size_t b)
{
        for (size_t k = a; k < b; k++) {
                char c = w->pat[k];
                if (!w->unq[k] || (c != '*' && c != '?' && c != '['))
                        continue;
                if (c != '[')
                        return true;
                for (size_t j = k + 2; j < b; j++)
                        if (w->unq[j] && w->pat[j] == ']')
                                return true;
        }
        return false;
}

static int add_result(struct walk *w)
{
        if (w->n >= w->io->max_results) {
                w->incomplete = true;
                return 0;
        }
        if (w->n == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 8;
                char **v = realloc(w->v, cap * sizeof(*v));
                if (!v)
                        return WARDER_ENOMEM;
                w->v = v;
                w->cap = cap;
        }
        const char *s = w->prefix.len ? w->prefix.data : "/";
        if (!(w->v[w->n] = strdup(s)))
                return WARDER_ENOMEM;
        w->n++;
        return 0;
}

/* The fnmatch(3) pattern of component [a, b): quoted bytes escaped. */
static int fn_pattern(struct walk *w, size_t a, size_t b)
{
        warder__buf_truncate(&w->fn, 0);
        int rc = warder__buf_putc(&w->fn, '\0');
        warder__buf_truncate(&w->fn, 0);
        for (size_t k = a; k < b && !rc; k++) {
                if (!w->unq[k])
                        rc = warder__buf_putc(&w->fn, '\\');
                if (!rc)
                        rc = warder__buf_putc(&w->fn, w->pat[k]);
        }
        return rc;
}

static int walk_from(struct walk *w, size_t i);

/* Descends into `name` (n bytes) from the current prefix: the next components from `next`. */
static int step(struct walk *w, const char *name, size_t n, size_t next)
{
        size_t keep = w->prefix.len;
        int rc = warder__buf_putc(&w->prefix, '/');
        if (!rc)
                rc = warder__buf_append(&w->prefix, name, n);
        if (!rc)
                rc = walk_from(w, next);
        warder__buf_truncate(&w->prefix, keep);
        return rc;
}

/* Lists the directory the prefix names, the way the kernel finds it. Returns 0 with the
 * names, 1 when it is missing or no directory (no match), or a negative code. */
static int list_prefix(struct walk *w, char ***names, size_t *count)
{
        struct warder__expand_io *io = w->io;
        if (++io->lists > io->max_lists) {
                w->incomplete = true;
                return 1;
        }
        int rc = warder__expand_physical(io, w->prefix.data ? w->prefix.data : "", w->prefix.len,
                                         &w->phys);
        char *real = NULL;
        if (!rc && io->realpath) {
                rc = io->realpath(io->ud, w->phys.data, &real);
                if (!rc && (!real || real[0] != '/'))
                        rc = WARDER_EBACKEND;
        }
        if (!rc)
                rc = io->ls(io->ud, real ? real : w->phys.data, names, count);
        warder_free(real);
        if (rc == WARDER_ENOMEM)
                return rc;
        if (rc == WARDER_ENOENT || rc == WARDER_ENOTDIR)
                return 1;
        if (rc) {
                w->incomplete = true;
                return 1;
        }
        io->entries += *count;
        if (io->entries > io->max_entries)
                w->incomplete = true;
        return 0;
}

static int walk_from(struct walk *w, size_t i)
{
        while (i < w->len && w->pat[i] == '/')
                i++;
        if (i >= w->len)
                return add_result(w);
        if (w->incomplete && w->n >= w->io->max_results)
                return 0;
        size_t end = i;
        while (end < w->len && w->pat[end] != '/')
                end++;
        bool last = end >= w->len;
        if (!is_pattern(w, i, end))
                return step(w, w->pat + i, end - i, end);
        char **names = NULL;
        size_t count = 0;
        int rc = list_prefix(w, &names, &count);
        if (rc)
                return rc < 0 ? rc : 0;
        rc = fn_pattern(w, i, end);
        /* a leading `.` is matched only explicitly, and then `.` and `..` are names too */
        bool dot = w->pat[i] == '.';
        static const char *const dots[] = {".", ".."};
        for (int k = 0; dot && k < 2 && !rc; k++)
                if (fnmatch(w->fn.data, dots[k], 0) == 0)
                        rc = step(w, dots[k], strlen(dots[k]), end);
        for (size_t k = 0; k < count && !rc && !w->incomplete; k++) {
                char *name = names[k];
                size_t n = strlen(name);
                bool dirish = n > 0 && name[n - 1] == '/';
                if (dirish)
                        name[--n] = '\0';
                if (!n || (name[0] == '.' && !dot) || (!last && !dirish))
                        continue;
                if (fnmatch(w->fn.data, name, 0) == 0)
                        rc = step(w, name, n, end);
        }
        for (size_t k = 0; k < count; k++)
                warder_free(names[k]);
        warder_free(names);
        return rc;
}

int warder__expand_glob(struct warder__expand_io *io, const char *pat, const unsigned char *unq,
                        size_t len, char ***out, size_t *count, bool *incomplete)
{
        struct walk w = {.io = io, .pat = pat, .unq = unq, .len = len};
        *out = NULL;
        *count = 0;
        int rc = len && pat[0] == '/' && io->ls ? walk_from(&w, 0) : WARDER_EINVAL;
        warder__buf_free(&w.prefix);
        warder__buf_free(&w.phys);
        warder__buf_free(&w.fn);
        if (rc) {
                warder__expand_free(w.v, w.n);
                return rc;
        }
        *out = w.v;
        *count = w.n;
        *incomplete = w.incomplete;
        return 0;
}
