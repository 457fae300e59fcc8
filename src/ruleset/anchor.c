/* SPDX-License-Identifier: MIT */
/*
 * The rule layer (§2.11, §2.12): brace expansion, anchoring of each alternative, directory
 * cover, and the split between alternatives that plain string comparisons decide exactly
 * (kept as `struct warder__alt`, indexed by key) and those that need the core matcher.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob/glob-internal.h"
#include "ruleset-internal.h"

/* Index just past the class that starts at s[i] == '[', or 0 when it is not closed. */
static size_t class_end(const char *s, size_t i, size_t n)
{
        size_t j = i + 1;
        if (j < n && (s[j] == '!' || s[j] == '^'))
                j++;
        if (j < n && s[j] == ']')
                j++;
        while (j < n) {
                if (s[j] == '\\') {
                        j += 2;
                } else if (s[j] == '[' && j + 1 < n && s[j + 1] == ':') {
                        const char *end = NULL;
                        for (size_t k = j + 2; k + 1 < n; k++) {
                                if (s[k] == ':' && s[k + 1] == ']') {
                                        end = s + k;
                                        break;
                                }
                        }
                        j = end ? (size_t)(end - s) + 2 : j + 1;
                } else if (s[j] == ']') {
                        return j + 1;
                } else {
                        j++;
                }
        }
        return 0;
}

/* Copies `s` into `out` with every escaped slash outside classes made a plain slash. */
static int canonicalize(struct warder__buf *out, const char *s, size_t n)
{
        warder__buf_truncate(out, 0);
        int rc = warder__buf_reserve(out, n);
        for (size_t i = 0; i < n && !rc;) {
                if (s[i] == '\\' && i + 1 < n) {
                        if (s[i + 1] == '/')
                                rc = warder__buf_putc(out, '/');
                        else
                                rc = warder__buf_append(out, s + i, 2);
                        i += 2;
                } else if (s[i] == '[') {
                        size_t e = class_end(s, i, n);
                        size_t stop = e ? e : n;
                        rc = warder__buf_append(out, s + i, stop - i);
                        i = stop;
                } else {
                        rc = warder__buf_putc(out, s[i++]);
                }
        }
        if (!rc && !out->data)
                rc = warder__buf_reserve(out, 0);
        return rc;
}

struct comp {
        const char *s;
        size_t n;
        bool literal;       /* no unescaped special byte */
        bool starstar;      /* two or more stars only */
        bool star_lit;      /* '*' followed by a non-empty literal */
        bool lit_star;      /* a non-empty literal followed by '*' */
        bool star_lit_star; /* '*', a non-empty literal, '*' */
};

/* Whether s[0..n) is a non-empty literal (no unescaped special byte, no lone backslash). */
static bool is_literal(const char *s, size_t n)
{
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\') {
                        if (i + 1 >= n)
                                return false;
                        i++;
                } else if (s[i] == '*' || s[i] == '?' || s[i] == '[') {
                        return false;
                }
        }
        return true;
}

/* Splits at slashes outside classes. Returns the count, or -1 when there are too many. */
static long split(const char *s, size_t n, struct comp *c, size_t max)
{
        size_t count = 0, start = 0;
        for (size_t i = 0;; i++) {
                if (i < n && s[i] == '\\') {
                        i++;
                        continue;
                }
                if (i < n && s[i] == '[') {
                        size_t e = class_end(s, i, n);
                        if (e) {
                                i = e - 1;
                                continue;
                        }
                }
                if (i >= n || s[i] == '/') {
                        if (count == max)
                                return -1;
                        c[count].s = s + start;
                        c[count].n = (i < n ? i : n) - start;
                        count++;
                        start = i + 1;
                        if (i >= n)
                                break;
                }
        }
        for (size_t k = 0; k < count; k++) {
                struct comp *p = &c[k];
                bool lit = true;
                for (size_t i = 0; i < p->n; i++) {
                        if (p->s[i] == '\\') {
                                if (i + 1 >= p->n)
                                        lit = false;
                                i++;
                        } else if (p->s[i] == '*' || p->s[i] == '?' || p->s[i] == '[') {
                                lit = false;
                        }
                }
                p->literal = lit;
                bool stars = p->n >= 2;
                for (size_t i = 0; i < p->n && stars; i++)
                        stars = p->s[i] == '*';
                p->starstar = stars;
                p->star_lit = false;
                /* LIT* and *LIT*: the final star must not be escaped */
                bool ends_star = !stars && p->n >= 2 && p->s[p->n - 1] == '*' &&
                                 !(p->n >= 2 && p->s[p->n - 2] == '\\' &&
                                   !(p->n >= 3 && p->s[p->n - 3] == '\\'));
                p->lit_star = ends_star && p->s[0] != '*' && is_literal(p->s, p->n - 1);
                p->star_lit_star =
                    ends_star && p->n >= 3 && p->s[0] == '*' && is_literal(p->s + 1, p->n - 2);
                if (!stars && p->n >= 2 && p->s[0] == '*' && p->s[1] != '*') {
                        struct comp rest = {p->s + 1, p->n - 1, false, false, false, false, false};
                        bool rl = true;
                        for (size_t i = 0; i < rest.n; i++) {
                                if (rest.s[i] == '\\') {
                                        if (i + 1 >= rest.n)
                                                rl = false;
                                        i++;
                                } else if (rest.s[i] == '*' || rest.s[i] == '?' ||
                                           rest.s[i] == '[') {
                                        rl = false;
                                }
                        }
                        p->star_lit = rl;
                }
        }
        return (long)count;
}

/* Appends the unescaped text of s[0..n). */
static int unescape(struct warder__buf *out, const char *s, size_t n)
{
        int rc = warder__buf_reserve(out, n);
        for (size_t i = 0; i < n && !rc; i++) {
                if (s[i] == '\\' && i + 1 < n)
                        i++;
                rc = warder__buf_putc(out, s[i]);
        }
        return rc;
}

/* Memory a rule keeps: in its ruleset's arena, or its own (a rule compiled alone). */
static void *keep(const struct warder__rule *r, size_t n)
{
        return r->arena ? warder__arena_alloc(r->arena, n) : malloc(n ? n : 1);
}

static void drop(const struct warder__rule *r, void *p)
{
        if (!r->arena)
                free(p);
}

/* Writes the unescaped text of s[0..n) to dst (at most n bytes); returns its length. */
static size_t unescape_to(char *dst, const char *s, size_t n)
{
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\' && i + 1 < n)
                        i++;
                dst[k++] = s[i];
        }
        return k;
}

/* The unescaped text of s[0..n), kept by the rule. */
static char *keep_unescaped(const struct warder__rule *r, const char *s, size_t n, uint32_t *len)
{
        char *d = keep(r, n + 1);
        if (!d)
                return NULL;
        *len = (uint32_t)unescape_to(d, s, n);
        d[*len] = '\0';
        return d;
}

static bool dot_component(const struct comp *c)
{
        if (!c->literal)
                return false;
        char v[3];
        size_t k = 0;
        for (size_t i = 0; i < c->n; i++) {
                if (c->s[i] == '\\')
                        i++;
                if (k == 2)
                        return false;
                v[k++] = c->s[i];
        }
        return (k == 1 && v[0] == '.') || (k == 2 && v[0] == '.' && v[1] == '.');
}

struct ctx {
        struct warder__rule *rule;
        struct warder_error *err;
        struct warder__buf anchored; /* every anchored alternative, NUL-separated */
        size_t *offs;
        size_t nalts, cap;
        struct warder__buf canon, out; /* scratch of anchor_one() */
};

static void ctx_free(struct ctx *c)
{
        free(c->offs);
        warder__buf_free(&c->anchored);
        warder__buf_free(&c->canon);
        warder__buf_free(&c->out);
}

/* The pattern as an error quotes it: whole, or a short prefix when it comes from a file the
 * caller did not name (so an error never carries a line of such a file). */
static const char *pattern_shown(const struct warder__rule *r, char *buf, size_t cap)
{
        if (!r->foreign)
                return r->pattern;
        snprintf(buf, cap, "%.6s%s", r->pattern, strlen(r->pattern) > 6 ? "..." : "");
        return buf;
}

/* The matcher's message, without what it quotes from a foreign pattern. */
static const char *message_shown(const struct warder__rule *r, const char *msg, char *buf,
                                 size_t cap)
{
        const char *q = r->foreign ? strchr(msg, '\'') : NULL;
        if (!q)
                return msg;
        size_t n = (size_t)(q - msg);
        while (n && msg[n - 1] == ' ')
                n--;
        snprintf(buf, cap, "%.*s (quoted text withheld)", (int)n, msg);
        return buf;
}

static int fail(struct ctx *c, int code, long offset, const char *fmt, const char *arg)
{
        struct warder__rule *r = c->rule;
        unsigned col = r->pcolumn;
        if (offset >= 0 && r->pcontent_column)
                col = r->pcontent_column + (unsigned)offset;
        return warder__error_set_at(c->err, code, r->file, r->pline, col, fmt, arg);
}

/* Best-effort offsets into the pattern as written, for the error column. */
static long offset_of(const struct ctx *c, const char *needle)
{
        const char *hit = strstr(c->rule->pattern, needle);
        return hit ? (long)(hit - c->rule->pattern) : -1;
}

static long offset_of_dot(const struct ctx *c)
{
        const char *p = c->rule->pattern;
        for (size_t i = 0; p[i]; i++) {
                bool first = i == 0 || p[i - 1] == '{' || p[i - 1] == ',';
                if (p[i] != '.' || !(first || p[i - 1] == '/'))
                        continue;
                size_t j = i + 1 + (p[i + 1] == '.');
                char e = p[j];
                if (e != '/' && e != '\0' && e != ',' && e != '}')
                        continue;
                if (j == i + 1 && e == '/' && first)
                        continue; /* a leading ./ */
                return (long)i;
        }
        return -1;
}

static int push_alt(struct ctx *c, const char *s, size_t n)
{
        if (c->nalts == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 8;
                size_t *o = realloc(c->offs, cap * sizeof(*o));
                if (!o)
                        return WARDER_ENOMEM;
                c->offs = o;
                c->cap = cap;
        }
        c->offs[c->nalts++] = c->anchored.len;
        int rc = warder__buf_append(&c->anchored, s, n);
        return rc ? rc : warder__buf_putc(&c->anchored, '\0');
}

/* Anchors one brace alternative and pushes it (and its directory cover). */
static int anchor_one(struct ctx *c, const char *alt, size_t alt_len, const char *root,
                      const char *home)
{
        struct warder__buf *out = &c->out;
        struct comp stack_comps[64], *comps = NULL;
        int rc = 0;
        const char *s = alt;
        size_t n = alt_len;
        warder__buf_truncate(out, 0);
        if (memchr(alt, '\\', alt_len)) {
                if ((rc = canonicalize(&c->canon, alt, alt_len)))
                        goto done;
                s = c->canon.data;
                n = c->canon.len;
        }
        if (n == 0) {
                rc = fail(c, WARDER_EPARSE, -1,
                          "pattern has an empty alternative%s (it could never match a path)", "");
                goto done;
        }
        if (s[0] == '!') {
                rc = fail(c, WARDER_EPARSE, offset_of(c, "!"),
                          "a leading '!' is not supported%s (express exceptions with rule order "
                          "or actions; write '\\!' for a literal '!')",
                          "");
                goto done;
        }
        const char *base = NULL; /* spliced in escaped; "" for absolute */
        const char *rest = s;
        size_t rest_len = n;
        bool any_depth = false;
        if (s[0] == '~') {
                if (n > 1 && s[1] != '/') {
                        rc = fail(c, WARDER_EPARSE, offset_of(c, "~"),
                                  "'~user' patterns are not supported%s (only '~' and '~/…')", "");
                        goto done;
                }
                if (!home) {
                        rc = fail(c, WARDER_EPARSE, -1,
                                  "pattern uses '~' but no home directory was given%s", "");
                        goto done;
                }
                base = home;
                rest = s + 1;
                rest_len = n - 1;
        } else if (s[0] == '/') {
                base = "";
        } else if (n >= 2 && s[0] == '.' && s[1] == '/') {
                base = root;
                rest = s + 1;
                rest_len = n - 1;
        } else if ((n >= 3 && s[0] == '*' && s[1] == '*' && s[2] == '/') ||
                   (n == 2 && s[0] == '*' && s[1] == '*')) {
                base = NULL;
        } else {
                base = root;
                size_t body = n;
                if (body > 1 && s[body - 1] == '/')
                        body--;
                bool inner = false;
                struct comp tmp[2];
                long k = split(s, body, tmp, 2);
                inner = k < 0 || k > 1;
                any_depth = !inner;
        }
        bool dir = false;
        if (rest_len > 0 && rest[rest_len - 1] == '/') {
                dir = true;
                rest_len--;
        }
        /* Validate the written components (§2.11: empty, '.' and '..' never match). */
        size_t max_comps = 2;
        for (size_t i = 0; i < rest_len; i++)
                max_comps += rest[i] == '/';
        comps = max_comps <= 64 ? stack_comps : malloc(max_comps * sizeof(*comps));
        if (!comps) {
                rc = WARDER_ENOMEM;
                goto done;
        }
        if (rest_len > 0) {
                const char *body = rest;
                size_t body_len = rest_len;
                if (body[0] == '/') {
                        body++;
                        body_len--;
                }
                long k = split(body, body_len, comps, max_comps);
                if (k < 0) {
                        rc = fail(c, WARDER_ETOOBIG, -1, "pattern has too many components%s", "");
                        goto done;
                }
                for (long i = 0; i < k; i++) {
                        if (comps[i].n == 0) {
                                rc = fail(c, WARDER_EPARSE, offset_of(c, "//"),
                                          "pattern has an empty path component%s (it could never "
                                          "match a normalised path)",
                                          "");
                                goto done;
                        }
                        if (dot_component(&comps[i])) {
                                rc = fail(c, WARDER_EPARSE, offset_of_dot(c),
                                          "pattern has a '.' or '..' component%s (it could never "
                                          "match a normalised path)",
                                          "");
                                goto done;
                        }
                }
        }
        /* Splice. */
        if (base && strcmp(base, "/") != 0 && base[0])
                rc = warder__glob_escape(out, base, strlen(base));
        if (!rc && any_depth)
                rc = warder__buf_puts(out, "/**/");
        if (!rc && base && !any_depth && rest_len > 0 && rest[0] != '/')
                rc = warder__buf_putc(out, '/');
        if (!rc)
                rc = warder__buf_append(out, rest, rest_len);
        if (!rc && out->len == 0)
                rc = warder__buf_putc(out, '/');
        if (rc)
                goto done;
        rc = push_alt(c, out->data, out->len);
        if (rc)
                goto done;
        if (dir) {
                if (strcmp(out->data, "/") == 0)
                        rc = push_alt(c, "/**", 3);
                else if (!(rc = warder__buf_puts(out, "/**")))
                        rc = push_alt(c, out->data, out->len);
        } else if (out->len >= 3 && memcmp(out->data + out->len - 3, "/**", 3) == 0) {
                /* A trailing slash-star-star also covers the directory itself (deviation from git).
                 */
                size_t m = out->len - 3;
                rc = m ? push_alt(c, out->data, m) : push_alt(c, "/", 1);
        }
done:
        if (comps != stack_comps)
                free(comps);
        return rc;
}

/* A literal directory prefix that is the root or one of its ancestors would collect every
 * root-relative rule under one key; such prefixes are not used as keys when another fits. */
bool warder__prefix_eligible(const char *p, size_t plen, size_t comps, const char *root)
{
        if (comps == 0)
                return false;
        size_t rl = strlen(root);
        return !(rl >= plen && memcmp(root, p, plen) == 0 && (root[plen] == '/' || !root[plen]));
}

static bool ext_of(const char *s, size_t n, size_t *off)
{
        const char *dot = n ? memrchr(s, '.', n) : NULL;
        if (!dot || (size_t)(dot - s) + 1 == n)
                return false;
        *off = (size_t)(dot - s) + 1;
        return true;
}

/* The literal text after the last special construct of a component (unescaped). */
static bool literal_tail(const struct comp *c, struct warder__buf *out)
{
        size_t lse = 0;
        for (size_t i = 0; i < c->n; i++) {
                if (c->s[i] == '\\') {
                        i++;
                } else if (c->s[i] == '*' || c->s[i] == '?') {
                        lse = i + 1;
                } else if (c->s[i] == '[') {
                        size_t e = class_end(c->s, i, c->n);
                        if (!e)
                                return false;
                        lse = e;
                        i = e - 1;
                }
        }
        warder__buf_truncate(out, 0);
        return unescape(out, c->s + lse, c->n - lse) == 0 && warder__buf_reserve(out, 0) == 0;
}

struct hints {
        struct warder__rule *rule;
        uint32_t group;
};

static int add_hint(struct hints *hs, enum warder__key_kind key, bool weak, const char *s, size_t n)
{
        struct warder__rule *r = hs->rule;
        if (r->nhints == r->hcap) {
                uint32_t cap = r->hcap ? r->hcap * 2 : 4;
                struct warder__hint *v = realloc(r->hints, cap * sizeof(*v));
                if (!v)
                        return WARDER_ENOMEM;
                r->hints = v;
                r->hcap = cap;
        }
        struct warder__hint *v = r->hints;
        struct warder__hint *h = &v[r->nhints];
        h->key = (uint8_t)key;
        h->weak = weak;
        h->group = hs->group;
        h->len = (uint32_t)n;
        h->text = malloc(n + 1);
        if (!h->text)
                return WARDER_ENOMEM;
        memcpy(h->text, s, n);
        h->text[n] = '\0';
        r->nhints++;
        return 0;
}

/* Adds a BSUB/PSUB candidate for every run of literal bytes in component `c` (unescaped). */
static int add_literal_runs(struct hints *hs, enum warder__key_kind key, const struct comp *c,
                            struct warder__buf *run)
{
        int rc = 0;
        warder__buf_truncate(run, 0);
        for (size_t i = 0; i <= c->n && !rc; i++) {
                char ch = i < c->n ? c->s[i] : '*';
                size_t skip = 0;
                if (ch == '\\' && i + 1 < c->n) {
                        rc = warder__buf_putc(run, c->s[++i]);
                        continue;
                }
                if (ch == '[') {
                        size_t e = class_end(c->s, i, c->n);
                        if (!e)
                                return 0; /* not a class we understand: no candidates */
                        skip = e - 1 - i;
                } else if (ch != '*' && ch != '?') {
                        rc = warder__buf_putc(run, ch);
                        continue;
                }
                if (run->len)
                        rc = add_hint(hs, key, false, run->data, run->len);
                warder__buf_truncate(run, 0);
                i += skip;
        }
        return rc;
}

/*
 * Adds the index key candidates of a matcher alternative: its literal directory prefix, a
 * literal basename, an extension, every literal directory component, and every literal run
 * the basename or a directory component must contain. Each is a necessary condition of a
 * match, so the index may file the alternative under any one of them; with none it is run
 * on every check.
 */
static int hints_for(const char *a, size_t n, const char *root, struct hints *hs)
{
        struct comp comps[64];
        bool abs = a[0] == '/';
        long k = abs ? split(a + 1, n - 1, comps, 64) : split(a, n, comps, 64);
        if (k <= 0)
                return 0;
        size_t lead = 0;
        if (abs)
                while (lead < (size_t)k && comps[lead].literal)
                        lead++;
        struct warder__buf p = WARDER__BUF_INIT;
        int rc = warder__buf_reserve(&p, 0);
        for (size_t i = 0; i < lead && !rc; i++) {
                rc = warder__buf_putc(&p, '/');
                if (!rc)
                        rc = unescape(&p, comps[i].s, comps[i].n);
        }
        if (!rc && lead)
                rc = add_hint(hs, WARDER__K_PREFIX,
                              !warder__prefix_eligible(p.data, p.len, lead, root), p.data, p.len);
        const struct comp *last = &comps[k - 1];
        size_t off;
        if (!rc && (size_t)k > lead && last->literal && !last->starstar) {
                warder__buf_truncate(&p, 0);
                rc = unescape(&p, last->s, last->n);
                if (!rc)
                        rc = add_hint(hs, WARDER__K_BASE, false, p.data, p.len);
        }
        if (!rc && (size_t)k > lead && !last->starstar && !last->literal) {
                if (literal_tail(last, &p) && ext_of(p.data, p.len, &off))
                        rc = add_hint(hs, WARDER__K_EXT, false, p.data + off, p.len - off);
                if (!rc)
                        rc = add_literal_runs(hs, WARDER__K_BSUB, last, &p);
        }
        for (size_t i = lead; i + 1 < (size_t)k && !rc; i++) {
                if (comps[i].starstar)
                        continue;
                if (comps[i].literal) {
                        warder__buf_truncate(&p, 0);
                        rc = unescape(&p, comps[i].s, comps[i].n);
                        if (!rc)
                                rc = add_hint(hs, WARDER__K_COMP, false, p.data, p.len);
                } else {
                        rc = add_literal_runs(hs, WARDER__K_PSUB, &comps[i], &p);
                }
        }
        warder__buf_free(&p);
        return rc;
}

/* Turns an anchored alternative into a string-comparison form when it has one. */
static int classify(const struct warder__rule *rule, const char *a, size_t n, const char *root,
                    struct warder__alt *out, bool *exact)
{
        *exact = false;
        struct comp comps[64];
        bool abs = a[0] == '/';
        if (abs && n == 1) {
                out->kind = WARDER__ALT_EXACT;
                out->key = WARDER__K_EXACT;
                out->prefix = keep(rule, 2);
                if (out->prefix)
                        memcpy(out->prefix, "/", 2);
                out->prefix_len = 1;
                out->prefix_comps = 0;
                out->lit = NULL;
                *exact = out->prefix != NULL;
                return out->prefix ? 0 : WARDER_ENOMEM;
        }
        long k = abs ? split(a + 1, n - 1, comps, 64) : split(a, n, comps, 64);
        if (k < 0)
                return 0;
        size_t lead = 0;
        if (abs)
                while (lead < (size_t)k && comps[lead].literal)
                        lead++;
        size_t r = (size_t)k - lead;
        struct comp *R = comps + lead;
        enum warder__alt_kind kind;
        const struct comp *lit = NULL;
        if (r == 0)
                kind = WARDER__ALT_EXACT;
        else if (r == 1 && R[0].starstar)
                kind = WARDER__ALT_UNDER;
        else if (r == 2 && R[0].starstar && R[1].literal)
                kind = WARDER__ALT_BASE, lit = &R[1];
        else if (r == 2 && R[0].starstar && R[1].star_lit)
                kind = WARDER__ALT_SUFFIX, lit = &R[1];
        else if (r == 3 && R[0].starstar && R[1].literal && R[2].starstar)
                kind = WARDER__ALT_COMP, lit = &R[1];
        else if (r == 2 && R[0].starstar && R[1].lit_star)
                kind = WARDER__ALT_BSTART, lit = &R[1];
        else if (r == 2 && R[0].starstar && R[1].star_lit_star)
                kind = WARDER__ALT_BHAS, lit = &R[1];
        else
                return 0;
        /* prefix: "/" + leading literal components, unescaped; "" when there are none */
        size_t room = 1;
        for (size_t i = 0; i < lead; i++)
                room += 1 + comps[i].n;
        char *pre = keep(rule, room);
        if (!pre)
                return WARDER_ENOMEM;
        size_t pl = 0;
        for (size_t i = 0; i < lead; i++) {
                pre[pl++] = '/';
                pl += unescape_to(pre + pl, comps[i].s, comps[i].n);
        }
        pre[pl] = '\0';
        out->kind = (uint8_t)kind;
        out->prefix_len = (uint32_t)pl;
        out->prefix_comps = (uint32_t)lead;
        out->prefix = pre;
        out->lit = NULL;
        out->lit_len = 0;
        if (lit) {
                const char *ls = lit->s;
                size_t ln = lit->n;
                if (kind == WARDER__ALT_SUFFIX)
                        ls++, ln--;
                else if (kind == WARDER__ALT_BSTART)
                        ln--;
                else if (kind == WARDER__ALT_BHAS)
                        ls++, ln -= 2;
                out->lit = keep_unescaped(rule, ls, ln, &out->lit_len);
                if (!out->lit) {
                        drop(rule, out->prefix);
                        return WARDER_ENOMEM;
                }
        }
        size_t off;
        if (kind == WARDER__ALT_EXACT)
                out->key = WARDER__K_EXACT;
        else if (warder__prefix_eligible(out->prefix, out->prefix_len, lead, root))
                out->key = WARDER__K_PREFIX;
        else if (kind == WARDER__ALT_BASE)
                out->key = WARDER__K_BASE;
        else if (kind == WARDER__ALT_COMP)
                out->key = WARDER__K_COMP;
        else if (kind == WARDER__ALT_SUFFIX && ext_of(out->lit, out->lit_len, &off))
                out->key = WARDER__K_EXT;
        else
                out->key = lead ? WARDER__K_PREFIX : WARDER__K_COUNT;
        *exact = true;
        return 0;
}

static int compile_union(struct warder__rule *rule, const char *const *alts, const size_t *lens,
                         size_t n, unsigned flags, warder_glob **out, struct warder_error *err)
{
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder__glob_compile_union(out, alts, lens, n, flags | WARDER__GLOB_LAZY_JIT,
                                            rule->pattern, strlen(rule->pattern), &e);
        if (rc == 0)
                return 0;
        /* Locate the fault in the pattern as written, if the pattern alone shows it. */
        warder_glob *probe = NULL;
        struct warder_error pe = WARDER_ERROR_INIT;
        long offset = -1;
        const char *msg = e.message;
        if (warder_glob_compile(&probe, rule->pattern, strlen(rule->pattern), flags, &pe) != 0) {
                offset = pe.offset;
                msg = pe.message;
        }
        warder_glob_free(probe);
        unsigned col = rule->pcolumn;
        if (offset >= 0 && rule->pcontent_column)
                col = rule->pcontent_column + (unsigned)offset;
        char pb[16], mb[256];
        warder__error_set_at(
            err, rc == WARDER_ENOMEM ? rc : (rc == WARDER_ETOOBIG ? rc : WARDER_EPARSE), rule->file,
            rule->pline, col, "invalid pattern '%s': %s", pattern_shown(rule, pb, sizeof(pb)),
            msg[0] ? message_shown(rule, msg, mb, sizeof(mb)) : warder_strerror(rc));
        warder_error_clear(&pe);
        warder_error_clear(&e);
        return err ? err->code : rc;
}

/* Expands the rule's pattern and anchors every alternative into c->anchored. */
static int expand_anchor(struct ctx *c, const char *root, const char *home)
{
        const char *pat = c->rule->pattern;
        char **alts = NULL;
        size_t nalts = 0;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder__glob_expand(pat, strlen(pat), 0, &alts, &nalts, &e);
        if (rc) {
                char mb[256];
                rc = fail(c, rc == WARDER_ENOMEM ? rc : (rc == WARDER_ETOOBIG ? rc : WARDER_EPARSE),
                          e.offset, "invalid pattern: %s",
                          message_shown(c->rule, e.message, mb, sizeof(mb)));
                warder_error_clear(&e);
                return rc;
        }
        for (size_t i = 0; i < nalts && !rc; i++)
                rc = anchor_one(c, alts[i], strlen(alts[i]), root, home);
        warder__glob_strv_free(alts, nalts);
        return rc;
}

int warder__rule_alternatives(const struct warder__rule *rule, const char *root, const char *home,
                              char ***out, size_t *count, struct warder_error *err)
{
        struct warder__rule copy = *rule;
        struct ctx c = {&copy, err, WARDER__BUF_INIT, NULL,
                        0,     0,   WARDER__BUF_INIT, WARDER__BUF_INIT};
        int rc = expand_anchor(&c, root, home);
        char **v = NULL;
        if (!rc && !(v = calloc(c.nalts ? c.nalts : 1, sizeof(*v))))
                rc = WARDER_ENOMEM;
        for (size_t i = 0; !rc && i < c.nalts; i++)
                if (!(v[i] = strdup(c.anchored.data + c.offs[i])))
                        rc = WARDER_ENOMEM;
        ctx_free(&c);
        if (rc) {
                for (size_t i = 0; v && i < c.nalts; i++)
                        free(v[i]);
                free(v);
                if (rc == WARDER_ENOMEM)
                        warder_error_set(err, rc, "out of memory");
                return rc;
        }
        *out = v;
        *count = c.nalts;
        return 0;
}

/*
 * What compiling `n` bytes of one alternative costs, in bytes of budget: its length, a fixed
 * WARDER__ALT_COST (the structures and index postings each alternative gets), and
 * WARDER__WILDCARD_COST for each unescaped `*`, `?` or `[` (the matcher's work grows with
 * them: a pattern of wildcards compiles about twenty times slower per byte than a literal).
 */
static size_t alt_cost(const char *s, size_t n)
{
        size_t wild = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\')
                        i++;
                else if (s[i] == '*' || s[i] == '?' || s[i] == '[')
                        wild++;
        }
        return n + WARDER__ALT_COST + wild * WARDER__WILDCARD_COST;
}

/* Charges `cost` to *budget (NULL: no limit), or refuses the rule. */
static int charge(const struct warder__rule *rule, size_t *budget, size_t cost,
                  struct warder_error *err)
{
        if (!budget)
                return 0;
        if (cost > *budget)
                return warder__error_set_at(err, WARDER_ETOOBIG, rule->file, rule->line,
                                            rule->column,
                                            "compiling the ruleset would take more than its "
                                            "budget (the patterns expand to too much; an alias "
                                            "counts every time it is used; the host can raise "
                                            "max_compiled_bytes)%s",
                                            "");
        *budget -= cost;
        return 0;
}

int warder__rule_compile_path(struct warder__rule *rule, const char *root, const char *home,
                              bool fold_case, bool full, size_t *budget, struct warder_error *err)
{
        struct ctx c = {rule, err, WARDER__BUF_INIT, NULL,
                        0,    0,   WARDER__BUF_INIT, WARDER__BUF_INIT};
        size_t plen = strlen(rule->pattern);
        int rc;
        if (plen == 0)
                return fail(&c, WARDER_EPARSE, -1, "empty pattern%s", "");
        rc = expand_anchor(&c, root, home);
        if (!rc) {
                /* What compiling costs, paid before any of it is done. */
                size_t cost = 0;
                for (size_t i = 0; i < c.nalts; i++) {
                        const char *a = c.anchored.data + c.offs[i];
                        cost += alt_cost(a, strlen(a));
                }
                if (fold_case && rule->action != WARDER_ALLOW)
                        cost *= 2;
                rc = charge(rule, budget, cost, err);
        }
        const char **glob_alts = NULL;
        size_t *glob_lens = NULL;
        size_t nglob = 0;
        if (!rc) {
                glob_alts = calloc(c.nalts, sizeof(*glob_alts));
                glob_lens = calloc(c.nalts, sizeof(*glob_lens));
                if ((rule->alts = keep(rule, c.nalts * sizeof(*rule->alts))))
                        memset(rule->alts, 0, c.nalts * sizeof(*rule->alts));
                if (!glob_alts || !glob_lens || !rule->alts)
                        rc = WARDER_ENOMEM;
        }
        for (size_t i = 0; i < c.nalts && !rc; i++) {
                const char *a = c.anchored.data + c.offs[i];
                size_t an = strlen(a);
                bool exact = false;
                if (!full)
                        rc = classify(rule, a, an, root, &rule->alts[rule->nalts], &exact);
                if (rc)
                        break;
                if (exact) {
                        rule->nalts++;
                        continue;
                }
                glob_alts[nglob] = a;
                glob_lens[nglob++] = an;
                if (!full) {
                        struct hints hs = {rule, rule->ngroups++};
                        rc = hints_for(a, an, root, &hs);
                }
        }
        rule->fold = fold_case && rule->action != WARDER_ALLOW;
        size_t total = 0;
        for (size_t i = 0; i < nglob; i++)
                total += glob_lens[i] + 1;
        if (!rc && nglob && (full || total > WARDER__LAZY_MAX)) {
                /* a reference, or a matcher large enough that the compiler's own limits
                 * might refuse it: compiled now, so that a refusal is a load error */
                warder_glob *g = NULL, *gf = NULL;
                rc = compile_union(rule, glob_alts, glob_lens, nglob, 0, &g, err);
                if (!rc && rule->fold)
                        rc = compile_union(rule, glob_alts, glob_lens, nglob, WARDER_GLOB_FOLD_CASE,
                                           &gf, err);
                atomic_init(&rule->glob, g);
                atomic_init(&rule->glob_fold, gf);
                rule->nglob = (uint32_t)nglob;
        } else if (!rc && nglob) {
                /* the pattern was validated by the expansion; compiled on first use */
                rule->galts = keep(rule, total);
                if (!rule->galts) {
                        rc = WARDER_ENOMEM;
                } else {
                        char *w = rule->galts;
                        for (size_t i = 0; i < nglob; i++) {
                                memcpy(w, glob_alts[i], glob_lens[i] + 1);
                                w += glob_lens[i] + 1;
                        }
                        rule->nglob = (uint32_t)nglob;
                }
        } else if (!rc && rule->nalts == 0) {
                rc = fail(&c, WARDER_EPARSE, -1, "empty pattern%s", "");
        }
        if (rc == WARDER_ENOMEM && err && err->code != WARDER_ENOMEM)
                warder_error_set(err, rc, "out of memory");
        free(glob_alts);
        free(glob_lens);
        ctx_free(&c);
        return rc;
}

int warder__rule_compile_command(struct warder__rule *rule, bool fold_case, size_t *budget,
                                 struct warder_error *err)
{
        const char *pat = rule->pattern;
        size_t n = strlen(pat);
        size_t blank = 0;
        while (blank < n && (pat[blank] == ' ' || pat[blank] == '\t'))
                blank++;
        if (blank == n) {
                return warder__error_set_at(err, WARDER_EPARSE, rule->file, rule->pline,
                                            rule->pcolumn, "empty command pattern%s", "");
        }
        rule->fold = fold_case && rule->action != WARDER_ALLOW;
        int charged = charge(rule, budget, alt_cost(pat, n) * (rule->fold ? 2 : 1), err);
        if (charged)
                return charged;
        rule->command = true;
        rule->nglob = 1;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc;
        if (n > WARDER__LAZY_MAX) {
                warder_glob *g = NULL, *gf = NULL;
                rc = warder__glob_compile(&g, pat, n, WARDER_GLOB_COMMAND | WARDER__GLOB_LAZY_JIT,
                                          &e);
                if (!rc && rule->fold)
                        rc = warder__glob_compile(&gf, pat, n,
                                                  WARDER_GLOB_COMMAND | WARDER_GLOB_FOLD_CASE |
                                                      WARDER__GLOB_LAZY_JIT,
                                                  &e);
                atomic_init(&rule->glob, g);
                atomic_init(&rule->glob_fold, gf);
        } else {
                /* the checks the compiler starts with (classes, escapes, NUL bytes), with the
                 * same errors; compiled on first use */
                rc = warder__glob_validate(pat, n, WARDER_GLOB_COMMAND, &e);
        }
        if (rc) {
                unsigned col = rule->pcolumn;
                if (e.offset >= 0 && rule->pcontent_column)
                        col = rule->pcontent_column + (unsigned)e.offset;
                char pb[16], mb[256];
                warder__error_set_at(
                    err, rc == WARDER_ENOMEM || rc == WARDER_ETOOBIG ? rc : WARDER_EPARSE,
                    rule->file, rule->pline, col, "invalid command pattern '%s': %s",
                    pattern_shown(rule, pb, sizeof(pb)),
                    e.message[0] ? message_shown(rule, e.message, mb, sizeof(mb))
                                 : warder_strerror(rc));
                warder_error_clear(&e);
                return err ? err->code : rc;
        }
        return 0;
}

void warder__rule_release(struct warder__rule *rule)
{
        for (uint32_t i = 0; i < rule->nhints; i++)
                free(rule->hints[i].text);
        free(rule->hints);
        if (!rule->arena) { /* else the ruleset's arena holds them */
                for (uint32_t i = 0; i < rule->nalts; i++) {
                        free(rule->alts[i].prefix);
                        free(rule->alts[i].lit);
                }
                free(rule->alts);
                free(rule->galts);
                free(rule->id);
                free(rule->pattern);
                free(rule->reason);
        }
        warder_glob_free(atomic_load(&rule->glob));
        warder_glob_free(atomic_load(&rule->glob_fold));
        memset(rule, 0, sizeof(*rule));
}

static inline unsigned char lower(unsigned char ch)
{
        return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch + 32) : ch;
}

/* Compares n bytes; with fold, `a` (the target) is lower case already. */
static inline bool eq(const char *a, const char *b, size_t n, bool fold)
{
        if (!fold)
                return memcmp(a, b, n) == 0;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)a[i] != lower((unsigned char)b[i]))
                        return false;
        return true;
}

static inline bool under(const struct warder__alt *alt, const struct warder__target *t, bool fold)
{
        size_t pl = alt->prefix_len;
        if (pl == 0)
                return true;
        return t->len > pl && t->s[pl] == '/' && eq(t->s, alt->prefix, pl, fold);
}

bool warder__alt_match(const struct warder__alt *alt, const struct warder__target *t, bool fold)
{
        switch ((enum warder__alt_kind)alt->kind) {
        case WARDER__ALT_EXACT:
                return t->len == alt->prefix_len && eq(t->s, alt->prefix, t->len, fold);
        case WARDER__ALT_UNDER:
                return under(alt, t, fold);
        case WARDER__ALT_BASE:
                return t->base_len == alt->lit_len && eq(t->base, alt->lit, alt->lit_len, fold) &&
                       under(alt, t, fold);
        case WARDER__ALT_SUFFIX:
                return t->base_len >= alt->lit_len &&
                       eq(t->base + t->base_len - alt->lit_len, alt->lit, alt->lit_len, fold) &&
                       under(alt, t, fold);
        case WARDER__ALT_BSTART:
                return t->base_len >= alt->lit_len && eq(t->base, alt->lit, alt->lit_len, fold) &&
                       under(alt, t, fold);
        case WARDER__ALT_BHAS:
                if (t->base_len < alt->lit_len || !under(alt, t, fold))
                        return false;
                for (size_t i = 0; i + alt->lit_len <= t->base_len; i++) {
                        const char *hit = memchr(
                            t->base + i, fold ? lower((unsigned char)alt->lit[0]) : alt->lit[0],
                            t->base_len - alt->lit_len - i + 1);
                        if (!hit)
                                return false;
                        i = (size_t)(hit - t->base);
                        if (eq(hit, alt->lit, alt->lit_len, fold))
                                return true;
                }
                return false;
        case WARDER__ALT_COMP:
                if (!under(alt, t, fold) || t->n < 2)
                        return false;
                for (size_t i = alt->prefix_comps; i + 1 < t->n; i++) {
                        size_t start = t->slash[i] + 1;
                        size_t len = t->slash[i + 1] - start;
                        if (len == alt->lit_len && eq(t->s + start, alt->lit, len, fold))
                                return true;
                }
                return false;
        }
        return false;
}

/* `a` (len n) is `b` or lies beneath it; with fold, `a` is in lower case. */
static bool at_or_beneath(const char *a, size_t n, const char *b, size_t bn, bool fold)
{
        if (bn <= 1 && b[0] == '/')
                return true;
        return n >= bn && eq(a, b, bn, fold) && (n == bn || a[bn] == '/');
}

/* Whether some path beneath the directory `dir` (normalised, `len` bytes; lower case when
 * `fold`) meets the alternative (§5.4.1). */
static bool alt_beneath(const struct warder__alt *alt, const char *dir, size_t len, bool fold)
{
        size_t pl = alt->prefix_len;
        if (alt->kind == WARDER__ALT_EXACT)
                return pl > len && (len == 1 || alt->prefix[len] == '/') &&
                       (len == 1 || eq(dir, alt->prefix, len, fold)) && alt->prefix[0] == '/';
        if (pl == 0)
                return true;
        /* paths beneath dir are below the prefix, or the prefix lies beneath dir */
        if (at_or_beneath(dir, len, alt->prefix, pl, fold))
                return true;
        if (pl <= len || (len > 1 && alt->prefix[len] != '/'))
                return false;
        if (len == 1)
                return true;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)alt->prefix[i];
                if ((unsigned char)dir[i] != (fold ? lower(c) : c))
                        return false;
        }
        return true;
}

const warder_glob *warder__rule_glob(const struct warder__rule *rule, bool fold, int *rc)
{
        /* the compiled matcher is a cache, not part of the rule's value */
        struct warder__rule *m = (struct warder__rule *)rule;
        _Atomic(warder_glob *) *slot = fold ? &m->glob_fold : &m->glob;
        warder_glob *g = atomic_load_explicit(slot, memory_order_acquire);
        *rc = 0;
        if (g)
                return g;
        if (!rule->nglob || (fold && !rule->fold) || (!rule->command && !rule->galts)) {
                *rc = WARDER_EINVAL; /* no such matcher: a caller's bug, failed closed */
                return NULL;
        }
        unsigned flags = WARDER__GLOB_LAZY_JIT | (fold ? WARDER_GLOB_FOLD_CASE : 0);
        if (rule->command) {
                *rc = warder__glob_compile(&g, rule->pattern, strlen(rule->pattern),
                                           flags | WARDER_GLOB_COMMAND, NULL);
        } else {
                const char *stack_alts[8];
                size_t stack_lens[8];
                const char **alts = stack_alts;
                size_t *lens = stack_lens;
                if (rule->nglob > 8) {
                        alts = malloc(rule->nglob * sizeof(*alts));
                        lens = malloc(rule->nglob * sizeof(*lens));
                }
                if (!alts || !lens) {
                        *rc = WARDER_ENOMEM;
                } else {
                        const char *a = rule->galts;
                        for (uint32_t i = 0; i < rule->nglob; i++) {
                                alts[i] = a;
                                lens[i] = strlen(a);
                                a += lens[i] + 1;
                        }
                        *rc =
                            warder__glob_compile_union(&g, alts, lens, rule->nglob, flags,
                                                       rule->pattern, strlen(rule->pattern), NULL);
                }
                if (alts != stack_alts) {
                        free(alts);
                        free(lens);
                }
        }
        if (*rc) {
                if (*rc > 0)
                        *rc = WARDER_ENOMEM;
                return NULL;
        }
        warder_glob *none = NULL;
        if (!atomic_compare_exchange_strong_explicit(slot, &none, g, memory_order_acq_rel,
                                                     memory_order_acquire)) {
                warder_glob_free(g); /* another thread compiled it first */
                g = none;
        }
        return g;
}

int warder__ruleset_compile_all(const warder_ruleset *rs)
{
        for (size_t op = 0; op < WARDER_OP_COUNT; op++) {
                const struct warder__opset *o = &rs->ops[op];
                for (size_t i = 0; i < o->n; i++) {
                        const struct warder__rule *r = &o->rules[i];
                        int rc = 0;
                        if (r->nglob && !warder__rule_glob(r, false, &rc))
                                return rc;
                        if (r->nglob && r->fold && !warder__rule_glob(r, true, &rc))
                                return rc;
                }
        }
        return 0;
}

static bool glob_beneath(const struct warder__rule *rule, bool fold, const char *dir, size_t len)
{
        int rc;
        const warder_glob *g = warder__rule_glob(rule, fold, &rc);
        if (g)
                rc = warder__glob_match_prefix(g, dir, len);
        if (rc < 0) /* §2.10: engine errors fail closed */
                return rule->action != WARDER_ALLOW;
        return rc > 0;
}

bool warder__rule_beneath(const struct warder__rule *rule, const char *slashed, size_t len,
                          const char *folded)
{
        /* `slashed` is the directory with a trailing `/` ("/" for the root) */
        size_t dl = len > 1 ? len - 1 : 1;
        for (uint32_t i = 0; i < rule->nalts; i++) {
                if (alt_beneath(&rule->alts[i], slashed, dl, false))
                        return true;
                if (rule->fold && folded && alt_beneath(&rule->alts[i], folded, dl, true))
                        return true;
        }
        if (rule->nglob && glob_beneath(rule, false, slashed, len))
                return true;
        if (rule->nglob && rule->fold && glob_beneath(rule, true, slashed, len))
                return true;
        return false;
}

_Thread_local unsigned warder__match_failures;

static bool glob_hit(const struct warder__rule *rule, bool fold, const struct warder__target *t)
{
        int rc;
        const warder_glob *g = warder__rule_glob(rule, fold, &rc);
        if (g)
                rc = warder_glob_match(g, t->s, t->len);
        if (rc < 0) { /* §2.10: engine errors fail closed */
                warder__match_failures++;
                return rule->action != WARDER_ALLOW;
        }
        return rc > 0;
}

bool warder__rule_match(const struct warder__rule *rule, const struct warder__target *t,
                        const struct warder__target *folded)
{
        for (uint32_t i = 0; i < rule->nalts; i++) {
                if (warder__alt_match(&rule->alts[i], t, false))
                        return true;
                if (rule->fold && folded && warder__alt_match(&rule->alts[i], folded, true))
                        return true;
        }
        if (rule->nglob && glob_hit(rule, false, t))
                return true;
        if (rule->nglob && rule->fold && glob_hit(rule, true, t))
                return true;
        return false;
}
