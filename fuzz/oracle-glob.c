/* SPDX-License-Identifier: MIT */
/*
 * Reference matcher for tests (see oracle-glob.h). Written for clarity, not speed.
 *
 * What the oracle expresses, and what it leaves alone (ORACLE_GLOB_UNKNOWN):
 *  - everything in §2.1–§2.8 and §5.1 for patterns and subjects up to 512 bytes, including
 *    braces (expanded here by recursion) and their errors (unclosed `{`, stray `}`); a
 *    `[:` in a class whose first `]` is not preceded by `:` makes `[` an ordinary member
 *    (git's reading, which the vectors of §2.9 rely on);
 *  - UNKNOWN: a NUL byte in the pattern; more than 256 brace expansions or brace depth over
 *    32 (the §2.13 limits: the matcher must fail there, but which code is its business);
 *    in command mode: an empty pattern after trimming, a
 *    pattern ending in a blank followed by `**`, or whose tail `" *"` leaves another
 *    `" *"` tail, a blank other than space/tab in the pattern, and subjects that are empty or
 *    hold a tab, a run of spaces or a leading/trailing space (callers pass squeezed command
 *    text, §5.1, so the matcher may treat those either way).
 */
#include "oracle-glob.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warder/glob.h"

enum tok_type { T_LIT, T_ANY, T_STAR, T_DSTAR, T_DSTAR_SLASH, T_CLASS };

struct tok {
        enum tok_type type;
        unsigned char c; /* T_LIT */
        bool from_blank; /* T_LIT: an unescaped blank (command mode) */
        int stars;       /* T_STAR/T_DSTAR: length of the run of `*` */
        bool negated;    /* T_CLASS */
        bool set[256];   /* T_CLASS: raw membership */
};

struct toks {
        struct tok *v;
        size_t n, cap;
};

enum { R_OK = 0, R_INVALID = 1, R_UNKNOWN = 2 };

static unsigned char lower(unsigned char c)
{
        return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static unsigned char upper(unsigned char c)
{
        return (c >= 'a' && c <= 'z') ? (unsigned char)(c - 32) : c;
}

static bool is_lower(int c)
{
        return c >= 'a' && c <= 'z';
}

static bool is_upper(int c)
{
        return c >= 'A' && c <= 'Z';
}

static bool is_digit(int c)
{
        return c >= '0' && c <= '9';
}

/* The 12 POSIX classes in the C locale. Returns false for an unknown name. */
static bool posix_class(const char *name, size_t len, bool set[256])
{
        static const char *const names[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph",
                                            "lower", "print", "punct", "space", "upper", "xdigit"};
        int k = -1;
        for (int i = 0; i < 12; i++)
                if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
                        k = i;
        if (k < 0)
                return false;
        for (int c = 0; c < 256; c++) {
                bool alpha = is_lower(c) || is_upper(c);
                bool graph = c >= 33 && c <= 126;
                bool in = false;
                switch (k) {
                case 0:
                        in = alpha || is_digit(c);
                        break;
                case 1:
                        in = alpha;
                        break;
                case 2:
                        in = c == ' ' || c == '\t';
                        break;
                case 3:
                        in = c < 32 || c == 127;
                        break;
                case 4:
                        in = is_digit(c);
                        break;
                case 5:
                        in = graph;
                        break;
                case 6:
                        in = is_lower(c);
                        break;
                case 7:
                        in = c >= 32 && c <= 126;
                        break;
                case 8:
                        in = graph && !alpha && !is_digit(c);
                        break;
                case 9:
                        in = c == ' ' || (c >= '\t' && c <= '\r');
                        break;
                case 10:
                        in = is_upper(c);
                        break;
                case 11:
                        in = is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                        break;
                }
                if (in)
                        set[c] = true;
        }
        return true;
}

/*
 * Parses the class that starts at p[*i] == '['. On R_OK, *i is just past its `]` and `t`
 * (if not NULL) holds the class. §2.5.
 */
static int parse_class(const char *p, size_t len, size_t *i, struct tok *t)
{
        bool set[256] = {false};
        size_t j = *i + 1;
        bool negated = false;
        if (j < len && (p[j] == '!' || p[j] == '^')) {
                negated = true;
                j++;
        }
        bool first = true;
        for (;;) {
                if (j >= len)
                        return R_INVALID; /* unclosed */
                unsigned char c = (unsigned char)p[j];
                if (c == ']' && !first)
                        break;
                first = false;
                if (c == '[' && j + 1 < len && p[j + 1] == ':') {
                        size_t k = j + 2;
                        while (k < len && p[k] != ']')
                                k++;
                        if (k >= len)
                                return R_INVALID; /* unclosed */
                        if (k < j + 3 || p[k - 1] != ':') {
                                /* No `:]` before the first `]`: the `[` is an ordinary member
                                 * (git's reading; the vectors of §2.9 rely on it). */
                                set['['] = true;
                                j++;
                                continue;
                        }
                        if (!posix_class(p + j + 2, k - 1 - (j + 2), set))
                                return R_INVALID; /* unknown or empty class name */
                        j = k + 1;
                        continue;
                }
                unsigned char ch;
                if (c == '\\') {
                        if (j + 1 >= len)
                                return R_INVALID;
                        ch = (unsigned char)p[j + 1];
                        j += 2;
                } else {
                        ch = c;
                        j++;
                }
                if (j + 1 < len && p[j] == '-' && p[j + 1] != ']') {
                        unsigned char hi;
                        if (p[j + 1] == '\\') {
                                if (j + 2 >= len)
                                        return R_INVALID;
                                hi = (unsigned char)p[j + 2];
                                j += 3;
                        } else if (p[j + 1] == '[' && j + 2 < len && p[j + 2] == ':') {
                                return R_UNKNOWN; /* a class as a range end */
                        } else {
                                hi = (unsigned char)p[j + 1];
                                j += 2;
                        }
                        if (ch > hi)
                                return R_INVALID; /* reversed range */
                        for (int x = ch; x <= hi; x++)
                                set[x] = true;
                        continue;
                }
                set[ch] = true;
        }
        *i = j + 1;
        if (t) {
                memset(t, 0, sizeof *t);
                t->type = T_CLASS;
                t->negated = negated;
                memcpy(t->set, set, sizeof set);
        }
        return R_OK;
}

/* ---- brace expansion (§2.6) ---- */

struct strs {
        char **v;
        size_t *len;
        size_t n;
};

static void strs_free(struct strs *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        free(s->len);
        s->v = NULL;
        s->len = NULL;
        s->n = 0;
}

#define MAX_EXPANSIONS 256

static int strs_add(struct strs *s, const char *a, size_t al, const char *b, size_t bl,
                    const char *c, size_t cl)
{
        if (s->n >= MAX_EXPANSIONS)
                return R_UNKNOWN;
        char **v = realloc(s->v, (s->n + 1) * sizeof *v);
        if (!v)
                abort();
        s->v = v;
        size_t *l = realloc(s->len, (s->n + 1) * sizeof *l);
        if (!l)
                abort();
        s->len = l;
        char *x = malloc(al + bl + cl + 1);
        if (!x)
                abort();
        memcpy(x, a, al);
        memcpy(x + al, b, bl);
        memcpy(x + al + bl, c, cl);
        x[al + bl + cl] = '\0';
        s->v[s->n] = x;
        s->len[s->n] = al + bl + cl;
        s->n++;
        return R_OK;
}

/* Skips an escape or a class at p[*i]; returns R_OK and advances, or an error. */
static int skip_opaque(const char *p, size_t len, size_t *i)
{
        if (p[*i] == '\\') {
                if (*i + 1 >= len)
                        return R_INVALID; /* trailing backslash */
                *i += 2;
                return R_OK;
        }
        /* '[' */
        return parse_class(p, len, i, NULL);
}

static int expand(const char *p, size_t len, int depth, struct strs *out)
{
        if (depth > WARDER_GLOB_MAX_BRACE_DEPTH)
                return R_UNKNOWN;
        size_t i = 0;
        while (i < len) {
                if (p[i] == '\\' || p[i] == '[') {
                        int rc = skip_opaque(p, len, &i);
                        if (rc)
                                return rc;
                } else if (p[i] == '}') {
                        return R_INVALID; /* stray */
                } else if (p[i] == '{') {
                        break;
                } else {
                        i++;
                }
        }
        if (i >= len)
                return strs_add(out, p, len, "", 0, "", 0);

        /* The matching `}` and the top-level commas. */
        size_t commas[ORACLE_GLOB_MAX_PATTERN + 1];
        size_t ncommas = 0;
        int level = 1;
        size_t j = i + 1;
        while (j < len) {
                if (p[j] == '\\' || p[j] == '[') {
                        int rc = skip_opaque(p, len, &j);
                        if (rc)
                                return rc;
                        continue;
                }
                if (p[j] == '{') {
                        level++;
                        if (depth + level > WARDER_GLOB_MAX_BRACE_DEPTH + 1)
                                return R_UNKNOWN;
                } else if (p[j] == '}') {
                        if (--level == 0)
                                break;
                } else if (p[j] == ',' && level == 1) {
                        commas[ncommas++] = j;
                }
                j++;
        }
        if (j >= len)
                return R_INVALID; /* unclosed */

        struct strs mids = {0}, rest = {0};
        int rc = expand(p + j + 1, len - j - 1, depth, &rest);
        if (rc)
                goto out;
        if (ncommas == 0) {
                /* Balanced braces without a top-level comma are literal text. */
                struct strs inner = {0};
                rc = expand(p + i + 1, j - i - 1, depth + 1, &inner);
                for (size_t k = 0; !rc && k < inner.n; k++)
                        rc = strs_add(&mids, "{", 1, inner.v[k], inner.len[k], "}", 1);
                strs_free(&inner);
        } else {
                size_t start = i + 1;
                for (size_t k = 0; !rc && k <= ncommas; k++) {
                        size_t end = k < ncommas ? commas[k] : j;
                        struct strs alt = {0};
                        rc = expand(p + start, end - start, depth + 1, &alt);
                        for (size_t a = 0; !rc && a < alt.n; a++)
                                rc = strs_add(&mids, alt.v[a], alt.len[a], "", 0, "", 0);
                        strs_free(&alt);
                        start = end + 1;
                }
        }
        for (size_t m = 0; !rc && m < mids.n; m++)
                for (size_t r = 0; !rc && r < rest.n; r++)
                        rc = strs_add(out, p, i, mids.v[m], mids.len[m], rest.v[r], rest.len[r]);
out:
        strs_free(&mids);
        strs_free(&rest);
        return rc;
}

/* ---- tokens ---- */

static struct tok *push(struct toks *t, enum tok_type type)
{
        if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 16;
                struct tok *v = realloc(t->v, t->cap * sizeof *v);
                if (!v)
                        abort();
                t->v = v;
        }
        struct tok *k = &t->v[t->n++];
        memset(k, 0, sizeof *k);
        k->type = type;
        return k;
}

static bool is_blank(unsigned char c)
{
        return c == ' ' || c == '\t';
}

/*
 * Tokenises one alternative (no alternation braces left). Command mode (§5.1): stars and
 * `?` and classes cross `/` and blanks, unescaped blanks become `from_blank` spaces.
 */
static int tokenize(const char *p, size_t len, unsigned flags, struct toks *t)
{
        bool cmd = flags & WARDER_GLOB_COMMAND;
        bool at_start = true; /* at the start of a path component */
        size_t i = 0;
        while (i < len) {
                unsigned char c = (unsigned char)p[i];
                if (c == '\\') {
                        if (i + 1 >= len)
                                return R_INVALID;
                        struct tok *k = push(t, T_LIT);
                        k->c = (unsigned char)p[i + 1];
                        at_start = k->c == '/';
                        i += 2;
                } else if (c == '*') {
                        size_t k = i;
                        while (k < len && p[k] == '*')
                                k++;
                        int stars = (int)(k - i);
                        if (cmd) {
                                push(t, T_DSTAR)->stars = stars;
                                at_start = false;
                        } else if (stars >= 2 && at_start && k == len) {
                                push(t, T_DSTAR)->stars = stars;
                                at_start = false;
                        } else if (stars >= 2 && at_start && p[k] == '/') {
                                push(t, T_DSTAR_SLASH)->stars = stars;
                                k += 1;
                                at_start = true;
                        } else if (stars >= 2 && at_start && p[k] == '\\' && k + 1 < len &&
                                   p[k + 1] == '/') {
                                push(t, T_DSTAR_SLASH)->stars = stars;
                                k += 2;
                                at_start = true;
                        } else {
                                push(t, T_STAR)->stars = stars;
                                at_start = false;
                        }
                        i = k;
                } else if (c == '?') {
                        push(t, T_ANY);
                        at_start = false;
                        i++;
                } else if (c == '[') {
                        struct tok cls;
                        int rc = parse_class(p, len, &i, &cls);
                        if (rc)
                                return rc;
                        *push(t, T_CLASS) = cls;
                        at_start = false;
                } else if (cmd && is_blank(c)) {
                        struct tok *k = push(t, T_LIT);
                        k->c = ' ';
                        k->from_blank = true;
                        i++;
                } else if (cmd && (c == '\n' || c == '\r' || c == '\v' || c == '\f')) {
                        return R_UNKNOWN;
                } else {
                        push(t, T_LIT)->c = c;
                        at_start = c == '/';
                        i++;
                }
        }
        if (!cmd)
                return R_OK;
        /* Runs of unescaped blanks are one space; leading and trailing ones are dropped. */
        size_t o = 0;
        for (size_t k = 0; k < t->n; k++) {
                bool blank = t->v[k].type == T_LIT && t->v[k].from_blank;
                if (blank && (o == 0 || (t->v[o - 1].type == T_LIT && t->v[o - 1].from_blank)))
                        continue;
                t->v[o++] = t->v[k];
        }
        if (o > 0 && t->v[o - 1].type == T_LIT && t->v[o - 1].from_blank)
                o--;
        t->n = o;
        return t->n == 0 ? R_UNKNOWN : R_OK;
}

static bool has_blank_star_tail(const struct toks *t, size_t n)
{
        return n >= 2 && t->v[n - 1].type == T_DSTAR && t->v[n - 2].type == T_LIT &&
               t->v[n - 2].from_blank;
}

/* ---- matching ---- */

struct matcher {
        const struct toks *t;
        size_t ntok; /* tokens in use */
        const unsigned char *s;
        size_t n;
        bool cmd, fold;
        unsigned char *memo; /* (ntok + 1) * (n + 1): 0 unknown, 1 no, 2 yes */
};

static bool class_has(const struct tok *k, unsigned char c, bool fold)
{
        bool in = k->set[c] || (fold && (k->set[lower(c)] || k->set[upper(c)]));
        return in != k->negated;
}

static bool m(struct matcher *x, size_t i, size_t j)
{
        unsigned char *memo = &x->memo[i * (x->n + 1) + j];
        if (*memo)
                return *memo == 2;
        bool r = false;
        if (i == x->ntok) {
                r = j == x->n;
        } else {
                const struct tok *k = &x->t->v[i];
                switch (k->type) {
                case T_LIT:
                        r = j < x->n &&
                            (x->fold ? lower(x->s[j]) == lower(k->c) : x->s[j] == k->c) &&
                            m(x, i + 1, j + 1);
                        break;
                case T_ANY:
                        r = j < x->n && (x->cmd || x->s[j] != '/') && m(x, i + 1, j + 1);
                        break;
                case T_CLASS:
                        r = j < x->n && (x->cmd || x->s[j] != '/') &&
                            class_has(k, x->s[j], x->fold) && m(x, i + 1, j + 1);
                        break;
                case T_STAR: /* zero or more bytes other than '/' */
                        for (size_t e = j;; e++) {
                                if (m(x, i + 1, e)) {
                                        r = true;
                                        break;
                                }
                                if (e >= x->n || x->s[e] == '/')
                                        break;
                        }
                        break;
                case T_DSTAR: /* anything */
                        for (size_t e = j; e <= x->n && !r; e++)
                                r = m(x, i + 1, e);
                        break;
                case T_DSTAR_SLASH: /* zero or more directories: "" or anything ending in '/' */
                        r = m(x, i + 1, j);
                        for (size_t e = j + 1; e <= x->n && !r; e++)
                                r = x->s[e - 1] == '/' && m(x, i + 1, e);
                        break;
                }
        }
        *memo = r ? 2 : 1;
        return r;
}

static bool run(const struct toks *t, size_t ntok, const char *s, size_t n, unsigned flags)
{
        struct matcher x = {t,
                            ntok,
                            (const unsigned char *)s,
                            n,
                            flags & WARDER_GLOB_COMMAND,
                            flags & WARDER_GLOB_FOLD_CASE,
                            NULL};
        x.memo = calloc((ntok + 1) * (n + 1), 1);
        if (!x.memo)
                abort();
        bool r = m(&x, 0, 0);
        free(x.memo);
        return r;
}

/* Compiles (expands and tokenises) and, when subject is not NULL, matches. */
static int evaluate(const char *pattern, size_t plen, const char *subject, size_t slen,
                    unsigned flags)
{
        bool cmd = flags & WARDER_GLOB_COMMAND;
        if (plen > ORACLE_GLOB_MAX_PATTERN || memchr(pattern, '\0', plen))
                return ORACLE_GLOB_UNKNOWN;
        if (subject) {
                if (slen > ORACLE_GLOB_MAX_SUBJECT)
                        return ORACLE_GLOB_UNKNOWN;
                if (cmd) {
                        if (slen == 0 || subject[0] == ' ' || subject[slen - 1] == ' ' ||
                            memchr(subject, '\t', slen))
                                return ORACLE_GLOB_UNKNOWN;
                        for (size_t i = 0; i + 1 < slen; i++)
                                if (subject[i] == ' ' && subject[i + 1] == ' ')
                                        return ORACLE_GLOB_UNKNOWN;
                }
        }
        struct strs alts = {0};
        int rc;
        if (cmd || (flags & WARDER_GLOB_NO_BRACES))
                rc = strs_add(&alts, pattern, plen, "", 0, "", 0);
        else
                rc = expand(pattern, plen, 0, &alts);
        if (rc) {
                strs_free(&alts);
                return rc == R_INVALID ? ORACLE_GLOB_INVALID : ORACLE_GLOB_UNKNOWN;
        }
        /* Tokenise every alternative first: an error in any one is an error of the pattern. */
        struct toks *toks = calloc(alts.n, sizeof *toks);
        if (!toks)
                abort();
        bool unknown = false, invalid = false;
        for (size_t a = 0; a < alts.n; a++) {
                rc = tokenize(alts.v[a], alts.len[a], flags, &toks[a]);
                if (rc == R_INVALID)
                        invalid = true;
                else if (rc == R_UNKNOWN)
                        unknown = true;
                else if (cmd) {
                        size_t n = toks[a].n;
                        if (n >= 2 && toks[a].v[n - 1].type == T_DSTAR &&
                            toks[a].v[n - 2].type == T_LIT && toks[a].v[n - 2].from_blank &&
                            (toks[a].v[n - 1].stars > 1 || has_blank_star_tail(&toks[a], n - 2)))
                                unknown = true;
                }
        }
        int result;
        if (invalid)
                result = ORACLE_GLOB_INVALID;
        else if (unknown)
                result = ORACLE_GLOB_UNKNOWN;
        else if (!subject)
                result = ORACLE_GLOB_MATCH;
        else {
                bool hit = false;
                for (size_t a = 0; a < alts.n && !hit; a++) {
                        hit = run(&toks[a], toks[a].n, subject, slen, flags);
                        /* §5.1: a trailing blank + `*` may also match nothing. */
                        if (!hit && cmd && has_blank_star_tail(&toks[a], toks[a].n))
                                hit = run(&toks[a], toks[a].n - 2, subject, slen, flags);
                }
                result = hit ? ORACLE_GLOB_MATCH : ORACLE_GLOB_NO_MATCH;
        }
        for (size_t a = 0; a < alts.n; a++)
                free(toks[a].v);
        free(toks);
        strs_free(&alts);
        return result;
}

int oracle_glob_check(const char *pattern, size_t plen, unsigned flags)
{
        return evaluate(pattern, plen, NULL, 0, flags);
}

int oracle_glob_match(const char *pattern, size_t plen, const char *subject, size_t slen,
                      unsigned flags)
{
        return evaluate(pattern, plen, subject, slen, flags);
}
