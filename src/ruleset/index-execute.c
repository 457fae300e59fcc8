/* SPDX-License-Identifier: MIT */
/*
 * Execute rules by literal prefix (§5.1, §5.2). Every text a command pattern matches starts
 * with the pattern's literal prefix: the bytes before its first `*`, `?` or `[`, with leading
 * blanks dropped, runs of blanks as one space, escapes resolved, and a trailing blank dropped
 * (`git *` also matches `git`, so its key is "git"). Rules are filed under that prefix in an
 * open-addressing table (fold_case rules under the prefix in lower case, in a second table);
 * a check hashes the text's prefixes of the lengths present, incrementally, and confirms only
 * the rules found there, plus the rules whose pattern starts with a wildcard (the residual
 * list), with their compiled matchers. The result is the one the plain loop over every rule
 * gives: the strictest matching rule, the lowest index among equals.
 */
#include <stdlib.h>
#include <string.h>

#include "ruleset-internal.h"

struct warder__xent {
        uint64_t hash;
        uint32_t len;   /* key length; 0 marks an empty slot */
        uint32_t key;   /* offset of the key in keys */
        uint32_t first; /* postings [first, first + n) */
        uint32_t n;
};

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME  1099511628211ULL

static inline unsigned char lower(unsigned char ch)
{
        return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch + 32) : ch;
}

static inline size_t slot_of(uint64_t h, size_t mask)
{
        return (size_t)(h ^ (h >> 29)) & mask;
}

/*
 * Writes the literal prefix of the command pattern `p` (§5.1) to `out` (room for n bytes)
 * and returns its length, mirroring the tokenizer of WARDER_GLOB_COMMAND: `\x` is `x`, a run
 * of unescaped blanks is one space, `*`, `?` and `[` end the prefix.
 */
static size_t command_prefix(const char *p, size_t n, char *out)
{
        size_t i = 0, k = 0;
        bool blank_last = false;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
                i++;
        while (i < n) {
                char c = p[i];
                if (c == '\\') {
                        if (i + 1 >= n)
                                break;
                        out[k++] = p[i + 1];
                        i += 2;
                        blank_last = false;
                } else if (c == '*' || c == '?' || c == '[') {
                        break;
                } else if (c == ' ' || c == '\t') {
                        while (i < n && (p[i] == ' ' || p[i] == '\t'))
                                i++;
                        out[k++] = ' ';
                        blank_last = true;
                } else {
                        out[k++] = c;
                        i++;
                        blank_last = false;
                }
        }
        /* a trailing blank may be absent from a match: trailing blanks are ignored, and
         * `cmd *` matches `cmd` */
        if (blank_last)
                k--;
        return k;
}

/* ---- building ----------------------------------------------------------------------------- */

struct item {
        uint32_t rule;
        uint32_t action;
        bool fold;
        uint32_t len;
        uint32_t key; /* offset into the shared key buffer */
        uint64_t hash;
};

static int item_cmp_keys(const struct item *x, const struct item *y, const char *keys)
{
        if (x->fold != y->fold)
                return x->fold ? 1 : -1;
        if (x->len != y->len)
                return x->len < y->len ? -1 : 1;
        return memcmp(keys + x->key, keys + y->key, x->len);
}

/* Postings of one key: strictest first, then by rule index (the loop order). */
static int item_cmp(const struct item *x, const struct item *y, const char *keys)
{
        int c = item_cmp_keys(x, y, keys);
        if (c)
                return c;
        if (x->action != y->action)
                return x->action > y->action ? -1 : 1;
        return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
}

/* Residual postings in the same order as a key's. */
static int post_cmp(const void *a, const void *b)
{
        const struct warder__xpost *x = a, *y = b;
        if (x->action != y->action)
                return x->action > y->action ? -1 : 1;
        return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static void merge_sort(struct item *v, struct item *tmp, size_t n, const char *keys)
{
        if (n < 2)
                return;
        size_t h = n / 2;
        merge_sort(v, tmp, h, keys);
        merge_sort(v + h, tmp, n - h, keys);
        size_t i = 0, j = h, k = 0;
        while (i < h && j < n)
                tmp[k++] = item_cmp(&v[j], &v[i], keys) < 0 ? v[j++] : v[i++];
        while (i < h)
                tmp[k++] = v[i++];
        while (j < n)
                tmp[k++] = v[j++];
        memcpy(v, tmp, n * sizeof(*v));
}

static int table_fill(struct warder__xtable *tb, const struct item *v, size_t n, const char *keys)
{
        size_t nkeys = 0, nlens = 0;
        for (size_t i = 0; i < n; i++) {
                if (i == 0 || item_cmp_keys(&v[i - 1], &v[i], keys) != 0)
                        nkeys++;
                if (i == 0 || v[i - 1].len != v[i].len)
                        nlens++;
        }
        if (!nkeys)
                return 0;
        size_t cap = 8, keybytes = 0;
        while (cap < nkeys * 2)
                cap *= 2;
        for (size_t i = 0; i < n; i++)
                keybytes += v[i].len;
        tb->slots = calloc(cap, sizeof(*tb->slots));
        tb->post = malloc(n * sizeof(*tb->post));
        tb->keys = malloc(keybytes + 1);
        tb->lens = malloc(nlens * sizeof(*tb->lens));
        if (!tb->slots || !tb->post || !tb->keys || !tb->lens)
                return WARDER_ENOMEM;
        tb->mask = cap - 1;
        size_t kpos = 0;
        tb->nlens = 0;
        for (size_t i = 0; i < n;) {
                size_t j = i + 1;
                while (j < n && item_cmp_keys(&v[i], &v[j], keys) == 0)
                        j++;
                if (!tb->nlens || tb->lens[tb->nlens - 1] != v[i].len)
                        tb->lens[tb->nlens++] = v[i].len;
                size_t s = slot_of(v[i].hash, tb->mask);
                while (tb->slots[s].len)
                        s = (s + 1) & tb->mask;
                memcpy(tb->keys + kpos, keys + v[i].key, v[i].len);
                tb->slots[s] = (struct warder__xent){v[i].hash, v[i].len, (uint32_t)kpos,
                                                     (uint32_t)i, (uint32_t)(j - i)};
                kpos += v[i].len;
                for (size_t k = i; k < j; k++)
                        tb->post[k] = (struct warder__xpost){v[k].rule, v[k].action};
                i = j;
        }
        /* lens were appended in the sort order, which is by length */
        qsort(tb->lens, tb->nlens, sizeof(*tb->lens), cmp_u32);
        return 0;
}

int warder__xindex_build(struct warder__opset *set)
{
        struct warder__xindex *x = &set->xidx;
        memset(x, 0, sizeof(*x));
        size_t n = set->n, keybytes = 0;
        for (size_t i = 0; i < n; i++)
                keybytes += strlen(set->rules[i].pattern);
        struct item *v = calloc(n ? n : 1, sizeof(*v));
        struct item *tmp = calloc(n ? n : 1, sizeof(*tmp));
        char *keys = malloc(keybytes + 1);
        x->residual = malloc((n ? n : 1) * sizeof(*x->residual));
        int rc = 0;
        if (!v || !tmp || !keys || !x->residual) {
                rc = WARDER_ENOMEM;
                goto out;
        }
        size_t nv = 0, kpos = 0;
        for (size_t i = 0; i < n; i++) {
                const struct warder__rule *r = &set->rules[i];
                size_t plen = strlen(r->pattern);
                size_t len = command_prefix(r->pattern, plen, keys + kpos);
                if (!len) {
                        x->residual[x->nresidual++] =
                            (struct warder__xpost){(uint32_t)i, (uint32_t)r->action};
                        continue;
                }
                uint64_t h = FNV_OFFSET;
                for (size_t k = 0; k < len; k++) {
                        if (r->fold)
                                keys[kpos + k] = (char)lower((unsigned char)keys[kpos + k]);
                        h = (h ^ (unsigned char)keys[kpos + k]) * FNV_PRIME;
                }
                v[nv++] = (struct item){(uint32_t)i,   (uint32_t)r->action, r->fold,
                                        (uint32_t)len, (uint32_t)kpos,      h};
                kpos += len;
        }
        qsort(x->residual, x->nresidual, sizeof(*x->residual), post_cmp);
        merge_sort(v, tmp, nv, keys);
        size_t nexact = 0;
        while (nexact < nv && !v[nexact].fold)
                nexact++;
        rc = table_fill(&x->exact, v, nexact, keys);
        if (!rc)
                rc = table_fill(&x->fold, v + nexact, nv - nexact, keys);
out:
        free(v);
        free(tmp);
        free(keys);
        if (rc)
                warder__xindex_free(x);
        return rc;
}

static void table_free(struct warder__xtable *tb)
{
        free(tb->slots);
        free(tb->post);
        free(tb->keys);
        free(tb->lens);
        memset(tb, 0, sizeof(*tb));
}

void warder__xindex_free(struct warder__xindex *x)
{
        table_free(&x->exact);
        table_free(&x->fold);
        free(x->residual);
        memset(x, 0, sizeof(*x));
}

/* ---- matching ----------------------------------------------------------------------------- */

struct xbest {
        long idx;
        uint32_t action;
};

struct xprobe {
        const struct warder__opset *set;
        const struct warder__target *t;
        bool whole_line;
        struct xbest *best;
};

/* Confirms the postings of one key in order, as long as one could still improve the result. */
static void run(const struct xprobe *pr, const struct warder__xpost *p, size_t n)
{
        struct xbest *b = pr->best;
        for (size_t i = 0; i < n; i++) {
                if (pr->whole_line && p[i].action == WARDER_ALLOW)
                        return; /* §5.2: the whole line meets deny and ask rules only */
                if (b->idx >= 0 && (p[i].action < b->action ||
                                    (p[i].action == b->action && (long)p[i].rule >= b->idx)))
                        return; /* the rest is no stricter, or later among equals */
                /* the rule's matcher, with its fail-closed engine errors (§2.10) */
                if (warder__rule_match(&pr->set->rules[p[i].rule], pr->t, NULL)) {
                        b->idx = p[i].rule;
                        b->action = p[i].action;
                        return;
                }
        }
}

static void probe_table(const struct xprobe *pr, const struct warder__xtable *tb, bool fold)
{
        if (!tb->nlens)
                return;
        const unsigned char *s = (const unsigned char *)pr->t->s;
        size_t n = pr->t->len, pos = 0;
        uint64_t h = FNV_OFFSET;
        for (size_t k = 0; k < tb->nlens; k++) {
                size_t len = tb->lens[k];
                if (len > n)
                        return;
                for (; pos < len; pos++)
                        h = (h ^ (fold ? lower(s[pos]) : s[pos])) * FNV_PRIME;
                for (size_t i = slot_of(h, tb->mask); tb->slots[i].len; i = (i + 1) & tb->mask) {
                        const struct warder__xent *e = &tb->slots[i];
                        if (e->hash != h || e->len != len)
                                continue;
                        const unsigned char *key = (const unsigned char *)tb->keys + e->key;
                        bool same = true;
                        if (fold) {
                                for (size_t j = 0; j < len && same; j++)
                                        same = lower(s[j]) == key[j];
                        } else {
                                same = memcmp(s, key, len) == 0;
                        }
                        if (same) {
                                run(pr, tb->post + e->first, e->n);
                                break;
                        }
                }
        }
}

long warder__xindex_match(const struct warder__opset *set, const char *text, size_t len,
                          bool whole_line)
{
        const struct warder__xindex *x = &set->xidx;
        struct warder__target t = {text, len, NULL, 0, text, len};
        struct xbest b = {-1, 0};
        struct xprobe pr = {set, &t, whole_line, &b};
        probe_table(&pr, &x->exact, false);
        probe_table(&pr, &x->fold, true);
        run(&pr, x->residual, x->nresidual);
        return b.idx;
}
