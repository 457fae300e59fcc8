/* SPDX-License-Identifier: MIT */
/* Bracket expressions (§2.5) and brace expansion (§2.6) of the core matcher. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob-impl.h"
#include "glob-internal.h"

int warder__glob_fail(struct warder_error *err, int code, size_t offset, const char *fmt, ...)
{
        if (!warder__err_ok(err))
                return code;
        va_list ap;
        va_start(ap, fmt);
        warder__error_vset(err, code, fmt, ap);
        va_end(ap);
        err->offset = (long)offset;
        return code;
}

/* The 12 POSIX classes in the C locale. */
static const char *const posix_names[] = {
    "alnum", "alpha", "blank", "cntrl", "digit", "graph",
    "lower", "print", "punct", "space", "upper", "xdigit",
};

static bool posix_member(size_t k, unsigned c)
{
        bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
        bool digit = c >= '0' && c <= '9';
        bool graph = c >= 0x21 && c <= 0x7e;
        switch (k) {
        case 0:
                return upper || lower || digit;
        case 1:
                return upper || lower;
        case 2:
                return c == ' ' || c == '\t';
        case 3:
                return c < 0x20 || c == 0x7f;
        case 4:
                return digit;
        case 5:
                return graph;
        case 6:
                return lower;
        case 7:
                return graph || c == ' ';
        case 8:
                return graph && !(upper || lower || digit);
        case 9:
                return c == ' ' || (c >= '\t' && c <= '\r');
        case 10:
                return upper;
        default:
                return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        }
}

/* A byte for a message: printable as is, else as \xHH. */
static const char *show_byte(char buf[8], unsigned char c)
{
        if (c >= 0x21 && c <= 0x7e)
                snprintf(buf, 8, "%c", c);
        else
                snprintf(buf, 8, "\\x%02X", c);
        return buf;
}

int warder__glob_parse_class(const char *p, size_t len, size_t start, unsigned flags,
                             struct warder__glob_set *set, size_t *end, struct warder_error *err)
{
        struct warder__glob_set s = {{0}};
        size_t j = start + 1;
        bool neg = false;
        if (j < len && (p[j] == '!' || p[j] == '^')) {
                neg = true;
                j++;
        }
        int prev = -1; /* the last single byte, which may open a range */
        size_t prev_off = 0;
        for (bool first = true;; first = false) {
                if (j >= len)
                        return warder__glob_fail(err, WARDER_EPARSE, start,
                                                 "unclosed '[' (write '\\[' for a literal '[')");
                unsigned char c = (unsigned char)p[j];
                if (c == ']' && !first) {
                        j++;
                        break;
                }
                if (c == '\\') {
                        if (j + 1 >= len)
                                return warder__glob_fail(err, WARDER_EPARSE, j,
                                                         "trailing '\\' escapes nothing");
                        c = (unsigned char)p[j + 1];
                        warder__glob_set_add(&s, c);
                        prev = c;
                        prev_off = j;
                        j += 2;
                        continue;
                }
                if (c == '-' && prev >= 0 && j + 1 < len && p[j + 1] != ']') {
                        size_t k = j + 1;
                        unsigned char hi = (unsigned char)p[k];
                        if (hi == '\\') {
                                if (k + 1 >= len)
                                        return warder__glob_fail(err, WARDER_EPARSE, k,
                                                                 "trailing '\\' escapes nothing");
                                hi = (unsigned char)p[++k];
                        }
                        if (hi < prev) {
                                char a[8], b[8];
                                return warder__glob_fail(err, WARDER_EPARSE, prev_off,
                                                         "reversed range '%s-%s' in '[...]'",
                                                         show_byte(a, (unsigned char)prev),
                                                         show_byte(b, hi));
                        }
                        for (unsigned x = (unsigned)prev; x <= hi; x++)
                                warder__glob_set_add(&s, x);
                        prev = -1;
                        j = k + 1;
                        continue;
                }
                if (c == '[' && j + 1 < len && p[j + 1] == ':') {
                        size_t name = j + 2, k = name;
                        while (k < len && p[k] != ']')
                                k++;
                        if (k >= len)
                                return warder__glob_fail(
                                    err, WARDER_EPARSE, start,
                                    "unclosed '[' (write '\\[' for a literal '[')");
                        if (k > name && p[k - 1] == ':') {
                                size_t n = k - 1 - name, idx = WARDER__ARRAY_SIZE(posix_names);
                                for (size_t q = 0; q < WARDER__ARRAY_SIZE(posix_names); q++) {
                                        if (strlen(posix_names[q]) == n &&
                                            memcmp(posix_names[q], p + name, n) == 0)
                                                idx = q;
                                }
                                if (n == 0)
                                        return warder__glob_fail(
                                            err, WARDER_EPARSE, j,
                                            "empty character class name '[::]'");
                                if (idx == WARDER__ARRAY_SIZE(posix_names)) {
                                        int shown = n > 32 ? 32 : (int)n;
                                        return warder__glob_fail(
                                            err, WARDER_EPARSE, j,
                                            "unknown character class '[:%.*s:]' (known: alnum "
                                            "alpha "
                                            "blank cntrl digit graph lower print punct space upper "
                                            "xdigit)",
                                            shown, p + name);
                                }
                                for (unsigned x = 0; x < 256; x++) {
                                        if (posix_member(idx, x))
                                                warder__glob_set_add(&s, x);
                                }
                                prev = -1;
                                j = k + 1;
                                continue;
                        }
                        /* no ":]" before the next ']': an ordinary '[' */
                }
                if (c == '\0')
                        return warder__glob_fail(err, WARDER_EPARSE, j,
                                                 "NUL byte in pattern (write '\\' before it)");
                warder__glob_set_add(&s, c);
                prev = c;
                prev_off = j;
                j++;
        }
        if (set) {
                if (flags & WARDER_GLOB_FOLD_CASE) {
                        for (unsigned x = 'A'; x <= 'Z'; x++) {
                                if (warder__glob_set_has(&s, x) ||
                                    warder__glob_set_has(&s, x + 32)) {
                                        warder__glob_set_add(&s, x);
                                        warder__glob_set_add(&s, x + 32);
                                }
                        }
                }
                if (neg) {
                        for (size_t q = 0; q < sizeof(s.bits); q++)
                                s.bits[q] = (uint8_t)~s.bits[q];
                }
                if (!(flags & WARDER_GLOB_COMMAND))
                        s.bits['/' >> 3] &= (uint8_t) ~(1u << ('/' & 7));
                *set = s;
        }
        *end = j;
        return 0;
}

/* ---- brace expansion ---- */

void warder__glob_alts_free(struct warder__glob_alts *a)
{
        if (!a)
                return;
        for (size_t i = 0; i < a->n; i++)
                warder__buf_free(&a->v[i]);
        free(a->v);
        a->v = NULL;
        a->n = 0;
}

static int alts_push_empty(struct warder__glob_alts *a)
{
        struct warder__buf *v = realloc(a->v, (a->n + 1) * sizeof(*v));
        if (!v)
                return WARDER_ENOMEM;
        a->v = v;
        a->v[a->n] = (struct warder__buf)WARDER__BUF_INIT;
        /* make it a valid, NUL-terminated empty string */
        if (warder__buf_reserve(&a->v[a->n], 0))
                return WARDER_ENOMEM;
        a->v[a->n].data[0] = '\0';
        a->n++;
        return 0;
}

static int alts_append(struct warder__glob_alts *a, const void *s, size_t len)
{
        for (size_t i = 0; i < a->n; i++) {
                if (warder__buf_append(&a->v[i], s, len))
                        return WARDER_ENOMEM;
        }
        return 0;
}

/* An escaped NUL, written without a NUL byte: a class matching only NUL. */
static const char escaped_nul[] = {'[', '!', '\x01', '-', '\xff', ']'};

struct expander {
        const char *p;
        size_t len;
        unsigned flags;
        struct warder_error *err;
};

static int oom(struct warder_error *err)
{
        return warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
}

/*
 * Expands a sequence starting at *ip into `out` (which holds one empty alternative on entry).
 * Inside a group it stops before a top-level ',' or '}'.
 */
static int expand_seq(const struct expander *x, size_t *ip, unsigned depth, bool in_group,
                      struct warder__glob_alts *out);

static int expand_group(const struct expander *x, size_t *ip, unsigned depth,
                        struct warder__glob_alts *out)
{
        size_t open = *ip, i = open + 1;
        if (depth + 1 > WARDER_GLOB_MAX_BRACE_DEPTH)
                return warder__glob_fail(x->err, WARDER_ETOOBIG, open,
                                         "braces nested deeper than %d",
                                         WARDER_GLOB_MAX_BRACE_DEPTH);
        struct warder__glob_alts group = {NULL, 0}, sub = {NULL, 0};
        size_t nalt = 0;
        int rc = 0;
        for (;;) {
                warder__glob_alts_free(&sub);
                if (alts_push_empty(&sub)) {
                        rc = oom(x->err);
                        goto out;
                }
                rc = expand_seq(x, &i, depth + 1, true, &sub);
                if (rc)
                        goto out;
                if (i >= x->len) {
                        rc = warder__glob_fail(x->err, WARDER_EPARSE, open,
                                               "unclosed '{' (write '\\{' for a literal '{')");
                        goto out;
                }
                nalt++;
                if (group.n + sub.n > WARDER_GLOB_MAX_EXPANSIONS) {
                        rc = warder__glob_fail(x->err, WARDER_ETOOBIG, open,
                                               "braces expand to more than %d alternatives",
                                               WARDER_GLOB_MAX_EXPANSIONS);
                        goto out;
                }
                struct warder__buf *v = realloc(group.v, (group.n + sub.n) * sizeof(*v));
                if (!v) {
                        rc = oom(x->err);
                        goto out;
                }
                group.v = v;
                memcpy(group.v + group.n, sub.v, sub.n * sizeof(*v));
                group.n += sub.n;
                free(sub.v);
                sub.v = NULL;
                sub.n = 0;
                if (x->p[i] == '}') {
                        i++;
                        break;
                }
                i++; /* ',' */
        }
        if (nalt == 1) {
                /* no top-level comma: literal braces around the (expanded) contents */
                for (size_t k = 0; k < group.n; k++) {
                        struct warder__buf b = WARDER__BUF_INIT;
                        if (warder__buf_putc(&b, '{') ||
                            warder__buf_append(&b, group.v[k].data, group.v[k].len) ||
                            warder__buf_putc(&b, '}')) {
                                warder__buf_free(&b);
                                rc = oom(x->err);
                                goto out;
                        }
                        warder__buf_free(&group.v[k]);
                        group.v[k] = b;
                }
        }
        if (out->n * group.n > WARDER_GLOB_MAX_EXPANSIONS) {
                rc = warder__glob_fail(x->err, WARDER_ETOOBIG, open,
                                       "braces expand to more than %d alternatives",
                                       WARDER_GLOB_MAX_EXPANSIONS);
                goto out;
        }
        /* out := out x group */
        struct warder__glob_alts prod = {NULL, 0};
        for (size_t a = 0; a < out->n; a++) {
                for (size_t g = 0; g < group.n; g++) {
                        if (alts_push_empty(&prod) ||
                            warder__buf_append(&prod.v[prod.n - 1], out->v[a].data,
                                               out->v[a].len) ||
                            warder__buf_append(&prod.v[prod.n - 1], group.v[g].data,
                                               group.v[g].len)) {
                                warder__glob_alts_free(&prod);
                                rc = oom(x->err);
                                goto out;
                        }
                }
        }
        warder__glob_alts_free(out);
        *out = prod;
        *ip = i;
out:
        warder__glob_alts_free(&sub);
        warder__glob_alts_free(&group);
        return rc;
}

static int expand_seq(const struct expander *x, size_t *ip, unsigned depth, bool in_group,
                      struct warder__glob_alts *out)
{
        bool braces = !(x->flags & (WARDER_GLOB_NO_BRACES | WARDER_GLOB_COMMAND));
        size_t i = *ip;
        int rc = 0;
        while (i < x->len) {
                char c = x->p[i];
                if (c == '\\') {
                        if (i + 1 >= x->len)
                                return warder__glob_fail(x->err, WARDER_EPARSE, i,
                                                         "trailing '\\' escapes nothing");
                        if (x->p[i + 1] == '\0')
                                rc = alts_append(out, escaped_nul, sizeof(escaped_nul));
                        else
                                rc = alts_append(out, x->p + i, 2);
                        i += 2;
                } else if (c == '[') {
                        size_t end;
                        rc =
                            warder__glob_parse_class(x->p, x->len, i, x->flags, NULL, &end, x->err);
                        if (rc)
                                return rc;
                        rc = alts_append(out, x->p + i, end - i);
                        i = end;
                } else if (c == '\0') {
                        return warder__glob_fail(x->err, WARDER_EPARSE, i,
                                                 "NUL byte in pattern (write '\\' before it)");
                } else if (braces && c == '{') {
                        rc = expand_group(x, &i, depth, out);
                        if (rc)
                                return rc;
                } else if (braces && in_group && (c == ',' || c == '}')) {
                        break;
                } else if (braces && c == '}') {
                        return warder__glob_fail(x->err, WARDER_EPARSE, i,
                                                 "unmatched '}' (write '\\}' for a literal '}')");
                } else {
                        /* a run of ordinary bytes is appended at once */
                        size_t j = i + 1;
                        while (j < x->len && !strchr("\\[{},", x->p[j]))
                                j++;
                        rc = alts_append(out, x->p + i, j - i);
                        i = j;
                }
                if (rc)
                        return oom(x->err);
        }
        *ip = i;
        return 0;
}

int warder__glob_expand_alts(const char *pattern, size_t len, unsigned flags,
                             struct warder__glob_alts *out, struct warder_error *err)
{
        if (!out || (!pattern && len))
                return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        if (len > WARDER_GLOB_MAX_PATTERN)
                return warder__glob_fail(err, WARDER_ETOOBIG, WARDER_GLOB_MAX_PATTERN,
                                         "pattern longer than %d bytes", WARDER_GLOB_MAX_PATTERN);
        struct expander x = {pattern ? pattern : "", len, flags, err};
        struct warder__glob_alts a = {NULL, 0};
        if (!memchr(x.p, '{', len) && !memchr(x.p, '}', len) && !memchr(x.p, '\0', len)) {
                /* nothing to expand or rewrite: validate, and the pattern is the alternative */
                for (size_t i = 0; i < len; i++) {
                        if (x.p[i] == '\\') {
                                if (++i >= len)
                                        return warder__glob_fail(err, WARDER_EPARSE, i - 1,
                                                                 "trailing '\\' escapes nothing");
                        } else if (x.p[i] == '[') {
                                size_t end;
                                int rc =
                                    warder__glob_parse_class(x.p, len, i, flags, NULL, &end, err);
                                if (rc)
                                        return rc;
                                i = end - 1;
                        }
                }
                if (!(a.v = malloc(sizeof(*a.v))))
                        return oom(err);
                a.v[0] = (struct warder__buf)WARDER__BUF_INIT;
                a.n = 1;
                if (warder__buf_append(&a.v[0], x.p, len)) {
                        warder__glob_alts_free(&a);
                        return oom(err);
                }
                *out = a;
                return 0;
        }
        size_t i = 0;
        int rc = alts_push_empty(&a) ? oom(err) : expand_seq(&x, &i, 0, false, &a);
        if (rc) {
                warder__glob_alts_free(&a);
                return rc;
        }
        *out = a;
        return 0;
}

int warder__glob_expand(const char *pattern, size_t len, unsigned flags, char ***out, size_t *count,
                        struct warder_error *err)
{
        if (!out || !count)
                return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        struct warder__glob_alts a;
        int rc = warder__glob_expand_alts(pattern, len, flags, &a, err);
        if (rc)
                return rc;
        char **v = calloc(a.n + 1, sizeof(*v));
        if (!v) {
                warder__glob_alts_free(&a);
                return oom(err);
        }
        for (size_t i = 0; i < a.n; i++)
                v[i] = warder__buf_steal(&a.v[i]);
        *count = a.n;
        warder__glob_alts_free(&a);
        *out = v;
        return 0;
}

int warder__glob_validate(const char *pattern, size_t len, unsigned flags, struct warder_error *err)
{
        struct warder__glob_alts a;
        int rc = warder__glob_expand_alts(pattern, len, flags, &a, err);
        if (!rc)
                warder__glob_alts_free(&a);
        return rc;
}

void warder__glob_strv_free(char **v, size_t count)
{
        if (!v)
                return;
        for (size_t i = 0; i < count; i++)
                free(v[i]);
        free(v);
}

int warder__glob_escape(struct warder__buf *out, const char *s, size_t len)
{
        if (!out || (!s && len))
                return WARDER_EINVAL;
        if (len > SIZE_MAX / 2 || warder__buf_reserve(out, 2 * len))
                return WARDER_ENOMEM;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '\0') {
                        out->data[out->len] = '\0';
                        return WARDER_EINVAL;
                }
                /* strchr() also finds the terminating NUL, excluded above */
                if (strchr("\\*?[]{},!~ \t", c))
                        out->data[out->len++] = '\\';
                out->data[out->len++] = c;
        }
        out->data[out->len] = '\0';
        return 0;
}
