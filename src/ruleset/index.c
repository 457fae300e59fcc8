/* SPDX-License-Identifier: MIT */
/*
 * Set matching: each operation's rules are filed under cheap exact keys (exact path,
 * literal directory prefix, basename, extension, directory component) in hash tables. A
 * check looks up the target's keys, evaluates only the postings found there (string
 * comparisons, or the rule's matcher for the rest) and the residual rules that fit no key.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset-internal.h"
#include "uthash-safe.h"

struct warder__key_entry {
        UT_hash_handle hh;
        struct warder__plist list;
        size_t len;
        char key[];
};

static int plist_add(struct warder__plist *l, uint32_t rule, uint32_t alt, uint8_t action)
{
        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 2;
                struct warder__posting *p = realloc(l->p, cap * sizeof(*p));
                if (!p)
                        return WARDER_ENOMEM;
                l->p = p;
                l->cap = cap;
        }
        l->p[l->n++] = (struct warder__posting){rule, alt, action};
        return 0;
}

static void lower_copy(char *dst, const char *src, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)src[i];
                dst[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
}

static int add(struct warder__index *idx, enum warder__key_kind kind, const char *key, size_t len,
               bool fold, uint32_t rule, uint32_t alt, uint8_t action, uint32_t prefix_comps)
{
        idx->empty = false;
        if (kind == WARDER__K_COUNT)
                return plist_add(&idx->residual, rule, alt, action);
        struct warder__key_entry *e = NULL;
        char small[256];
        char *k = len <= sizeof(small) ? small : malloc(len);
        if (!k)
                return WARDER_ENOMEM;
        if (fold)
                lower_copy(k, key, len);
        else
                memcpy(k, key, len);
        HASH_FIND(hh, idx->tab[kind], k, len, e);
        if (!e) {
                e = calloc(1, sizeof(*e) + len + 1);
                if (!e) {
                        if (k != small)
                                free(k);
                        return WARDER_ENOMEM;
                }
                memcpy(e->key, k, len);
                e->len = len;
                warder__hash_oom = false;
                HASH_ADD(hh, idx->tab[kind], key[0], len, e);
                if (warder__hash_oom) {
                        free(e);
                        if (k != small)
                                free(k);
                        return WARDER_ENOMEM;
                }
        }
        if (k != small)
                free(k);
        if (kind == WARDER__K_PREFIX) {
                if (prefix_comps < idx->prefix_min)
                        idx->prefix_min = prefix_comps;
                if (prefix_comps > idx->prefix_max)
                        idx->prefix_max = prefix_comps;
        }
        return plist_add(&e->list, rule, alt, action);
}

static uint32_t comps_of(const char *s, size_t n)
{
        uint32_t c = 0;
        for (size_t i = 0; i < n; i++)
                c += s[i] == '/';
        return c;
}

static int file_alt(struct warder__index *idx, const struct warder__alt *a, bool fold,
                    uint32_t rule, uint32_t alt, uint8_t action)
{
        const char *key = "";
        size_t len = 0;
        switch ((enum warder__key_kind)a->key) {
        case WARDER__K_EXACT:
        case WARDER__K_PREFIX:
                key = a->prefix;
                len = a->prefix_len;
                break;
        case WARDER__K_BASE:
        case WARDER__K_COMP:
                key = a->lit;
                len = a->lit_len;
                break;
        case WARDER__K_EXT: {
                const char *dot = memrchr(a->lit, '.', a->lit_len);
                key = dot + 1;
                len = a->lit_len - (size_t)(dot + 1 - a->lit);
                break;
        }
        case WARDER__K_COUNT:
                break;
        }
        return add(idx, (enum warder__key_kind)a->key, key, len, fold, rule, alt, action,
                   a->prefix_comps);
}

static void index_init(struct warder__index *idx)
{
        memset(idx, 0, sizeof(*idx));
        idx->prefix_min = UINT32_MAX;
        idx->empty = true;
}

static int build_filters(struct warder__index *idx)
{
        for (int k = 0; k < WARDER__K_COUNT; k++) {
                size_t count = HASH_COUNT(idx->tab[k]);
                if (!count)
                        continue;
                size_t bits = 1024;
                while (bits < count * 16 && bits < (1u << 30))
                        bits *= 2;
                idx->filter[k] = calloc(bits / 64, sizeof(uint64_t));
                if (!idx->filter[k])
                        return WARDER_ENOMEM;
                idx->fmask[k] = (uint32_t)(bits - 1);
                struct warder__key_entry *e, *tmp;
                HASH_ITER(hh, idx->tab[k], e, tmp)
                {
                        uint32_t b = e->hh.hashv & idx->fmask[k];
                        idx->filter[k][b >> 6] |= 1ull << (b & 63);
                }
        }
        return 0;
}

int warder__index_build(struct warder__opset *set, const char *root, bool fold_case)
{
        (void)root;
        (void)fold_case;
        index_init(&set->idx);
        index_init(&set->fidx);
        int rc = 0;
        for (size_t i = 0; i < set->n && !rc; i++) {
                struct warder__rule *r = &set->rules[i];
                uint8_t action = (uint8_t)r->action;
                for (uint32_t j = 0; j < r->nalts && !rc; j++) {
                        rc = file_alt(&set->idx, &r->alts[j], false, (uint32_t)i, j, action);
                        if (!rc && r->fold)
                                rc =
                                    file_alt(&set->fidx, &r->alts[j], true, (uint32_t)i, j, action);
                }
                for (uint32_t j = 0; j < r->nhints && !rc; j++) {
                        struct warder__hint *h = &r->hints[j];
                        uint32_t pc = h->key == WARDER__K_PREFIX ? comps_of(h->text, h->len) : 0;
                        rc = add(&set->idx, (enum warder__key_kind)h->key, h->text, h->len, false,
                                 (uint32_t)i, WARDER__CONFIRM, action, pc);
                        if (!rc && r->fold)
                                rc = add(&set->fidx, (enum warder__key_kind)h->key, h->text, h->len,
                                         true, (uint32_t)i, WARDER__CONFIRM, action, pc);
                }
                if (rc)
                        break;
                for (uint32_t j = 0; j < r->nhints; j++)
                        free(r->hints[j].text);
                free(r->hints);
                r->hints = NULL;
                r->nhints = 0;
        }
        if (!rc)
                rc = build_filters(&set->idx);
        if (!rc)
                rc = build_filters(&set->fidx);
        return rc;
}

void warder__index_free(struct warder__index *idx)
{
        for (int k = 0; k < WARDER__K_COUNT; k++) {
                struct warder__key_entry *e, *tmp;
                HASH_ITER(hh, idx->tab[k], e, tmp)
                {
                        HASH_DEL(idx->tab[k], e);
                        free(e->list.p);
                        free(e);
                }
        }
        for (int k = 0; k < WARDER__K_COUNT; k++)
                free(idx->filter[k]);
        free(idx->residual.p);
        memset(idx, 0, sizeof(*idx));
}

/* ---- per-thread scratch ------------------------------------------------------------------ */

struct scratch {
        struct warder__buf low;
        uint32_t *slash;
        size_t cap;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static _Thread_local struct scratch *tls_scratch;

static void scratch_destroy(void *p)
{
        struct scratch *s = p;
        if (!s)
                return;
        warder__buf_free(&s->low);
        free(s->slash);
        free(s);
}

static void scratch_key_make(void)
{
        (void)pthread_key_create(&scratch_key, scratch_destroy);
}

static struct scratch *scratch_get(void)
{
        if (tls_scratch)
                return tls_scratch;
        pthread_once(&scratch_once, scratch_key_make);
        struct scratch *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        pthread_setspecific(scratch_key, s);
        tls_scratch = s;
        return s;
}

int warder__target_split(const char *s, size_t len, struct warder__target *t,
                         struct warder__target *folded)
{
        struct scratch *sc = scratch_get();
        if (!sc)
                return WARDER_ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
                if (s[i] != '/')
                        continue;
                if (n == sc->cap) {
                        size_t cap = sc->cap ? sc->cap * 2 : 64;
                        uint32_t *p = realloc(sc->slash, cap * sizeof(*p));
                        if (!p)
                                return WARDER_ENOMEM;
                        sc->slash = p;
                        sc->cap = cap;
                }
                sc->slash[n++] = (uint32_t)i;
        }
        if (len == 1) /* "/" has no component */
                n = 0;
        t->s = s;
        t->len = len;
        t->slash = sc->slash;
        t->n = n;
        t->base = n ? s + sc->slash[n - 1] + 1 : s + len;
        t->base_len = n ? len - sc->slash[n - 1] - 1 : 0;
        if (folded) {
                warder__buf_truncate(&sc->low, 0);
                if (warder__buf_reserve(&sc->low, len))
                        return WARDER_ENOMEM;
                lower_copy(sc->low.data, s, len);
                sc->low.len = len;
                sc->low.data[len] = '\0';
                *folded = *t;
                folded->s = sc->low.data;
                folded->base = sc->low.data + (t->base - s);
        }
        return 0;
}

/* ---- deciding ----------------------------------------------------------------------------- */

struct best {
        long idx;
        enum warder_action action;
        enum warder_precedence prec;
};

struct probe {
        const struct warder__opset *set;
        const struct warder__target *t;  /* as given */
        const struct warder__target *ft; /* lower case (NULL without fold rules) */
        struct best *best;
};

static bool eval(const struct probe *pr, const struct warder__posting *p, bool folded)
{
        const struct warder__rule *r = &pr->set->rules[p->rule];
        if (p->alt != WARDER__CONFIRM)
                return warder__alt_match(&r->alts[p->alt], folded ? pr->ft : pr->t, folded);
        return warder__rule_match(r, pr->t, pr->ft);
}

static void run(const struct probe *pr, const struct warder__plist *l, bool folded)
{
        struct best *b = pr->best;
        for (size_t i = 0; i < l->n; i++) {
                const struct warder__posting *p = &l->p[i];
                if (b->idx >= 0) {
                        if (b->prec == WARDER_FIRST_MATCH) {
                                if ((long)p->rule >= b->idx)
                                        return;
                        } else {
                                if (p->action < b->action)
                                        continue;
                                if (p->action == b->action && (long)p->rule >= b->idx) {
                                        if (p->action == WARDER_DENY)
                                                return;
                                        continue;
                                }
                        }
                }
                if (eval(pr, p, folded)) {
                        b->idx = p->rule;
                        b->action = (enum warder_action)p->action;
                        if (b->prec == WARDER_FIRST_MATCH || b->action == WARDER_DENY)
                                return;
                }
        }
}

static void lookup(const struct probe *pr, const struct warder__index *idx,
                   enum warder__key_kind kind, const char *key, size_t len, bool folded)
{
        struct warder__key_entry *e = NULL;
        unsigned hv;
        HASH_VALUE(key, len, hv);
        uint32_t b = hv & idx->fmask[kind];
        if (!(idx->filter[kind][b >> 6] >> (b & 63) & 1))
                return;
        HASH_FIND_BYHASHVALUE(hh, idx->tab[kind], key, len, hv, e);
        if (e)
                run(pr, &e->list, folded);
}

static void decide_index(const struct probe *pr, const struct warder__index *idx, bool folded)
{
        if (idx->empty)
                return;
        const struct warder__target *t = folded ? pr->ft : pr->t;
        if (idx->tab[WARDER__K_EXACT])
                lookup(pr, idx, WARDER__K_EXACT, t->s, t->len, folded);
        if (idx->tab[WARDER__K_PREFIX] && t->n > 1) {
                size_t lo = idx->prefix_min < 1 ? 1 : idx->prefix_min;
                size_t hi = idx->prefix_max < t->n - 1 ? idx->prefix_max : t->n - 1;
                for (size_t k = lo; k <= hi; k++)
                        lookup(pr, idx, WARDER__K_PREFIX, t->s, t->slash[k], folded);
        }
        if (t->n) {
                if (idx->tab[WARDER__K_BASE])
                        lookup(pr, idx, WARDER__K_BASE, t->base, t->base_len, folded);
                if (idx->tab[WARDER__K_EXT]) {
                        const char *dot = memrchr(t->base, '.', t->base_len);
                        if (dot && (size_t)(dot - t->base) + 1 < t->base_len)
                                lookup(pr, idx, WARDER__K_EXT, dot + 1,
                                       t->base_len - (size_t)(dot + 1 - t->base), folded);
                }
                if (idx->tab[WARDER__K_COMP]) {
                        for (size_t i = 0; i + 1 < t->n; i++) {
                                size_t start = t->slash[i] + 1;
                                lookup(pr, idx, WARDER__K_COMP, t->s + start,
                                       t->slash[i + 1] - start, folded);
                        }
                }
        }
        run(pr, &idx->residual, folded);
}

long warder__index_decide(const warder_ruleset *rs, enum warder_op op, const char *target,
                          size_t len)
{
        const struct warder__opset *set = &rs->ops[op];
        struct best b = {-1, WARDER_ALLOW, rs->prec};
        struct warder__target t, ft;
        bool fold = !set->fidx.empty;
        if (warder__target_split(target, len, &t, fold ? &ft : NULL) != 0)
                return -2;
        struct probe pr = {set, &t, fold ? &ft : NULL, &b};
        decide_index(&pr, &set->idx, false);
        if (fold)
                decide_index(&pr, &set->fidx, true);
        return b.idx;
}

long warder__linear_decide(const warder_ruleset *rs, enum warder_op op, const char *target,
                           size_t len)
{
        const struct warder__opset *set = &rs->ops[op];
        struct warder__target t, ft;
        bool fold = !set->fidx.empty;
        if (warder__target_split(target, len, &t, fold ? &ft : NULL) != 0)
                return -2;
        long best = -1;
        for (size_t i = 0; i < set->n; i++) {
                const struct warder__rule *r = &set->rules[i];
                if (best >= 0 && r->action <= set->rules[best].action)
                        continue;
                if (!warder__rule_match(r, &t, fold ? &ft : NULL))
                        continue;
                if (rs->prec == WARDER_FIRST_MATCH)
                        return (long)i;
                best = (long)i;
                if (r->action == WARDER_DENY)
                        break;
        }
        return best;
}
