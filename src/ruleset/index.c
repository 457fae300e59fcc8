/* SPDX-License-Identifier: MIT */
/*
 * Set matching: each operation's rules are filed under cheap exact keys in hash tables. A
 * check looks up the target's keys, evaluates only the postings found there (string
 * comparisons, or the rule's matcher for the rest) and the residual rules that fit no key.
 *
 * Keys: the exact path, a literal directory prefix, the basename, the extension, a directory
 * component, and a 1-4 byte gram of a literal that the basename (BSUB) or a directory
 * component (PSUB) must contain. Every alternative of a rule offers each key it requires
 * (a rule for `.tmp` files below any `cache7` directory offers the component `cache7` and the
 * extension `tmp`); the index learns from the ruleset itself how many alternatives share each
 * key and files every alternative under its rarest one, so a family of a thousand rules that
 * share `.tmp` but not their directory is filed a thousand ways. Grams are used only when many
 * alternatives would otherwise be residual: a short residual list is cheaper than sliding over the
 * target.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ruleset-internal.h"

/* A fast hash for the key tables and filters (keys come from the ruleset; a target can only
 * make a filter bit or a bucket collide, never a list longer). */
static inline uint32_t key_hash(const void *p, size_t n)
{
        const unsigned char *s = p;
        uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
        while (n >= 8) {
                uint64_t v;
                memcpy(&v, s, 8);
                h = (h ^ v) * 0xff51afd7ed558ccdull;
                h ^= h >> 32;
                s += 8;
                n -= 8;
        }
        uint64_t v = 0;
        if (n >= 4) {
                uint32_t a, b;
                memcpy(&a, s, 4);
                memcpy(&b, s + n - 4, 4);
                v = (uint64_t)a << 32 | b;
        } else if (n) {
                v = (uint64_t)s[0] << 16 | (uint64_t)s[n >> 1] << 8 | s[n - 1];
        }
        h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
        return (uint32_t)h;
}

static int plist_add(struct warder__plist *l, uint32_t rule, uint32_t alt, uint8_t action)
{
        /* one rule's matcher alternatives may choose the same key: one posting is enough */
        if (alt == WARDER__CONFIRM && l->n && l->p[l->n - 1].rule == rule &&
            l->p[l->n - 1].alt == WARDER__CONFIRM)
                return 0;
        if (warder__grow(&l->p, &l->cap, l->n + 1, sizeof(*l->p), 2))
                return WARDER_ENOMEM;
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

/* Notes what a key of `kind` tells the lookups (which prefix depths, component lengths and
 * gram lengths exist). */
static void note_key(struct warder__index *idx, enum warder__key_kind kind, size_t len,
                     uint32_t prefix_comps)
{
        if (kind == WARDER__K_PREFIX) {
                if (prefix_comps < idx->prefix_min)
                        idx->prefix_min = prefix_comps;
                if (prefix_comps > idx->prefix_max)
                        idx->prefix_max = prefix_comps;
        } else if (kind == WARDER__K_COMP) {
                idx->comp_lens |= 1ull << (len < 63 ? len : 63);
        } else if (kind == WARDER__K_BSUB || kind == WARDER__K_PSUB) {
                idx->gram_lens[kind - WARDER__K_BSUB] |= (uint8_t)(1u << len);
        }
}

/* The entry of `key` in `t`, or UINT32_MAX. */
static uint32_t ktab_find(const struct warder__ktab *t, const char *key, size_t len, uint32_t h)
{
        for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
                uint32_t s = t->slots[i];
                if (!s)
                        return UINT32_MAX;
                const struct warder__kent *e = &t->ent[s - 1];
                if (e->hash == h && e->len == len && memcmp(t->keys + e->key, key, len) == 0)
                        return s - 1;
        }
}

/* Adds `key` to `t` (room was made for it); returns its entry. */
static uint32_t ktab_add(struct warder__ktab *t, const char *key, size_t len, uint32_t h,
                         size_t *keys_used)
{
        uint32_t i = h & t->mask;
        while (t->slots[i])
                i = (i + 1) & t->mask;
        struct warder__kent *e = &t->ent[t->n];
        *e = (struct warder__kent){h, (uint32_t)*keys_used, (uint32_t)len, 0, 0};
        memcpy(t->keys + *keys_used, key, len);
        *keys_used += len;
        t->slots[i] = ++t->n;
        return t->n - 1;
}

static void ktab_free(struct warder__ktab *t)
{
        free(t->slots);
        free(t->ent);
        free(t->keys);
        free(t->post);
        memset(t, 0, sizeof(*t));
}

static uint32_t comps_of(const char *s, size_t n)
{
        uint32_t c = 0;
        for (size_t i = 0; i < n; i++)
                c += s[i] == '/';
        return c;
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
                const struct warder__ktab *t = &idx->tab[k];
                size_t count = t->n;
                if (!count)
                        continue;
                size_t bits = 1024;
                while (bits < count * 16 && bits < (1u << 30))
                        bits *= 2;
                idx->filter[k] = calloc(bits / 64, sizeof(uint64_t));
                if (!idx->filter[k])
                        return WARDER_ENOMEM;
                idx->fmask[k] = (uint32_t)(bits - 1);
                for (uint32_t e = 0; e < t->n; e++) {
                        uint32_t b = t->ent[e].hash & idx->fmask[k];
                        idx->filter[k][b >> 6] |= 1ull << (b & 63);
                }
        }
        return 0;
}

/* ---- choosing keys ------------------------------------------------------------------------ */

#define GRAM_MAX 4
/* Up to this many residual alternatives run on every check before grams are worth sliding. */
#define RESIDUAL_CHEAP 16
/* Below this many alternatives keys are not counted. */
#define SMALL_SET 64

/* An index key an alternative offers. */
struct cand {
        const char *text;
        uint32_t len;
        uint8_t kind;
        bool weak;
        uint32_t hash; /* of the key (strong and weak keys), for counting */
};

/* One alternative of a rule: an exact one (alt < nalts) or a matcher group (CONFIRM). */
struct unit {
        uint32_t rule, alt;
        uint32_t first, n; /* its candidates */
        struct cand chosen;
};

/* How many units offer each key: open addressing over keys borrowed from the rules. */
struct counter {
        const char *text; /* NULL: a free slot */
        uint32_t len, hash, count;
        uint8_t kind;
};

struct chooser {
        struct cand *c;
        size_t nc, capc;
        struct unit *u;
        size_t nu, capu;
        /* strong and weak keys: slots of (count << 32 | index of the first candidate + 1) */
        uint64_t *kslots;
        size_t kmask;
        /* grams */
        struct counter *counts;
        size_t cmask, ncounts;
};

static uint32_t counter_hash(uint8_t kind, const char *text, size_t len)
{
        return key_hash(text, len) ^ (uint32_t)kind * 0x9e3779b9u;
}

static struct counter *counter_slot(struct counter *tab, size_t mask, uint8_t kind,
                                    const char *text, size_t len, uint32_t h)
{
        for (size_t i = h & mask;; i = (i + 1) & mask) {
                struct counter *c = &tab[i];
                if (!c->text || (c->hash == h && c->kind == kind && c->len == len &&
                                 memcmp(c->text, text, len) == 0))
                        return c;
        }
}

static int counts_grow(struct chooser *ch)
{
        size_t cap = ch->counts ? (ch->cmask + 1) * 2 : 1024;
        struct counter *tab = calloc(cap, sizeof(*tab));
        if (!tab)
                return WARDER_ENOMEM;
        for (size_t i = 0; ch->counts && i <= ch->cmask; i++) {
                const struct counter *c = &ch->counts[i];
                if (c->text)
                        *counter_slot(tab, cap - 1, c->kind, c->text, c->len, c->hash) = *c;
        }
        free(ch->counts);
        ch->counts = tab;
        ch->cmask = cap - 1;
        return 0;
}

static bool is_sub(uint8_t kind)
{
        return kind == WARDER__K_BSUB || kind == WARDER__K_PSUB;
}

static int push_cand(struct chooser *ch, enum warder__key_kind kind, const char *text, size_t len,
                     bool weak, uint32_t pcomps)
{
        if (warder__grow(&ch->c, &ch->capc, ch->nc + 1, sizeof(*ch->c), 256))
                return WARDER_ENOMEM;
        (void)pcomps;
        ch->c[ch->nc++] =
            (struct cand){text, (uint32_t)len, (uint8_t)kind, weak,
                          is_sub((uint8_t)kind) ? 0 : counter_hash((uint8_t)kind, text, len)};
        ch->u[ch->nu - 1].n++;
        return 0;
}

static int push_unit(struct chooser *ch, uint32_t rule, uint32_t alt)
{
        if (warder__grow(&ch->u, &ch->capu, ch->nu + 1, sizeof(*ch->u), 256))
                return WARDER_ENOMEM;
        ch->u[ch->nu++] =
            (struct unit){rule, alt, (uint32_t)ch->nc, 0, {"", 0, WARDER__K_COUNT, false, 0}};
        return 0;
}

/* The candidates of an exact alternative, from its kind, prefix and literal. */
static int exact_cands(struct chooser *ch, const struct warder__alt *a, const char *root)
{
        if (a->kind == WARDER__ALT_EXACT)
                return push_cand(ch, WARDER__K_EXACT, a->prefix, a->prefix_len, false, 0);
        int rc = 0;
        if (a->prefix_comps)
                rc = push_cand(
                    ch, WARDER__K_PREFIX, a->prefix, a->prefix_len,
                    !warder__prefix_eligible(a->prefix, a->prefix_len, a->prefix_comps, root),
                    a->prefix_comps);
        const char *dot;
        switch ((enum warder__alt_kind)a->kind) {
        case WARDER__ALT_BASE:
                return rc ? rc : push_cand(ch, WARDER__K_BASE, a->lit, a->lit_len, false, 0);
        case WARDER__ALT_COMP:
                return rc ? rc : push_cand(ch, WARDER__K_COMP, a->lit, a->lit_len, false, 0);
        case WARDER__ALT_SUFFIX:
                dot = a->lit_len ? memrchr(a->lit, '.', a->lit_len) : NULL;
                if (!rc && dot && dot + 1 < a->lit + a->lit_len)
                        rc = push_cand(ch, WARDER__K_EXT, dot + 1,
                                       a->lit_len - (size_t)(dot + 1 - a->lit), false, 0);
                return rc ? rc : push_cand(ch, WARDER__K_BSUB, a->lit, a->lit_len, false, 0);
        case WARDER__ALT_BSTART:
        case WARDER__ALT_BHAS:
                return rc ? rc : push_cand(ch, WARDER__K_BSUB, a->lit, a->lit_len, false, 0);
        case WARDER__ALT_EXACT:
        case WARDER__ALT_UNDER:
                break;
        }
        return rc;
}

/* Counts under (kind, text); `delta` 0 only reads. */
static int count_key(struct chooser *ch, uint8_t kind, const char *text, size_t len, size_t delta,
                     size_t *out)
{
        if ((!ch->counts || (ch->ncounts + 1) * 2 > ch->cmask + 1) && delta && counts_grow(ch))
                return WARDER_ENOMEM;
        if (!ch->counts) {
                if (out)
                        *out = 0;
                return 0;
        }
        uint32_t h = counter_hash(kind, text, len);
        struct counter *c = counter_slot(ch->counts, ch->cmask, kind, text, len, h);
        if (!c->text && delta) {
                *c = (struct counter){text, (uint32_t)len, h, 0, kind};
                ch->ncounts++;
        }
        c->count += (uint32_t)delta;
        if (out)
                *out = c->text ? c->count : 0;
        return 0;
}

/* Calls fn on every gram of a literal: the literal itself when short, else each 4-byte run. */
#define FOR_GRAMS(text, len, g, glen)                                                              \
        for (size_t g##_i = 0, glen = (len) < GRAM_MAX ? (len) : GRAM_MAX;                         \
             g##_i + glen <= (len) && glen; g##_i++)                                               \
                for (const char *g = (text) + g##_i; g; g = NULL)

static bool same_key(const struct cand *a, const struct cand *b)
{
        return a->hash == b->hash && a->kind == b->kind && a->len == b->len &&
               memcmp(a->text, b->text, a->len) == 0;
}

/* The slot of candidate i's key: its count, or a free slot. */
static uint64_t *key_slot(const struct chooser *ch, size_t i)
{
        const struct cand *c = &ch->c[i];
        for (size_t k = c->hash & ch->kmask;; k = (k + 1) & ch->kmask) {
                uint64_t v = ch->kslots[k];
                if (!v || same_key(&ch->c[(uint32_t)v - 1], c))
                        return &ch->kslots[k];
        }
}

/* Counts the strong and weak keys every unit offers. */
static int count_keys(struct chooser *ch)
{
        size_t n = 0, cap = 16;
        for (size_t i = 0; i < ch->nc; i++)
                n += !is_sub(ch->c[i].kind);
        while (cap < n + n / 2 + 1)
                cap *= 2;
        if (!(ch->kslots = calloc(cap, sizeof(*ch->kslots))))
                return WARDER_ENOMEM;
        ch->kmask = cap - 1;
        for (size_t i = 0; i < ch->nc; i++) {
                if (is_sub(ch->c[i].kind))
                        continue;
                uint64_t *slot = key_slot(ch, i);
                *slot = *slot ? *slot + ((uint64_t)1 << 32) : ((uint64_t)1 << 32 | (i + 1));
        }
        return 0;
}

/* How many units offer candidate i's key (0 when keys were not counted). */
static size_t key_count(const struct chooser *ch, size_t i)
{
        return ch->kslots ? (size_t)(*key_slot(ch, i) >> 32) : 0;
}

/* Counts the grams of the units left without a strong key: the lists they would join. */
static int count_grams(struct chooser *ch)
{
        for (size_t u = 0; u < ch->nu; u++) {
                const struct unit *un = &ch->u[u];
                if (un->chosen.kind != WARDER__K_COUNT)
                        continue;
                for (size_t i = un->first; i < un->first + un->n; i++) {
                        const struct cand *c = &ch->c[i];
                        int rc = 0;
                        if (!is_sub(c->kind))
                                continue;
                        FOR_GRAMS(c->text, c->len, g, glen)
                        {
                                if (!rc)
                                        rc = count_key(ch, WARDER__K_BSUB, g, glen, 1, NULL);
                        }
                        if (rc)
                                return rc;
                }
        }
        return 0;
}

/* Chooses each unit's key: its rarest strong key; else, when many units are left without
 * one, its rarest gram among theirs; else a weak prefix; else none (residual). Keys are
 * counted only in a large set (`count`): in a small one the order of kinds decides. */
static int choose(struct chooser *ch, bool count)
{
        if (count && count_keys(ch))
                return WARDER_ENOMEM;
        size_t weakless = 0;
        for (size_t u = 0; u < ch->nu; u++) {
                struct unit *un = &ch->u[u];
                size_t best = SIZE_MAX;
                for (size_t i = un->first; i < un->first + un->n; i++) {
                        const struct cand *c = &ch->c[i];
                        if (is_sub(c->kind) || c->weak)
                                continue;
                        size_t n = key_count(ch, i);
                        /* ties: the key that is cheaper to look up (enum order) */
                        if (n < best || (n == best && c->kind < un->chosen.kind)) {
                                best = n;
                                un->chosen = *c;
                        }
                }
                if (best == SIZE_MAX)
                        weakless++;
        }
        bool grams = weakless > RESIDUAL_CHEAP;
        if (grams && count && count_grams(ch))
                return WARDER_ENOMEM;
        for (size_t u = 0; u < ch->nu; u++) {
                struct unit *un = &ch->u[u];
                if (un->chosen.kind != WARDER__K_COUNT)
                        continue;
                size_t best = SIZE_MAX;
                for (size_t i = un->first; grams && i < un->first + un->n; i++) {
                        const struct cand *c = &ch->c[i];
                        if (!is_sub(c->kind))
                                continue;
                        FOR_GRAMS(c->text, c->len, g, glen)
                        {
                                size_t n = 0;
                                if (count_key(ch, WARDER__K_BSUB, g, glen, 0, &n))
                                        return WARDER_ENOMEM;
                                if (n < best || (n == best && (glen > un->chosen.len ||
                                                               (glen == un->chosen.len &&
                                                                c->kind < un->chosen.kind)))) {
                                        best = n;
                                        un->chosen =
                                            (struct cand){g, (uint32_t)glen, c->kind, false, 0};
                                }
                        }
                }
                for (size_t i = un->first; best == SIZE_MAX && i < un->first + un->n; i++)
                        if (ch->c[i].weak)
                                un->chosen = ch->c[i];
        }
        return 0;
}

static void chooser_free(struct chooser *ch)
{
        free(ch->kslots);
        free(ch->counts);
        free(ch->c);
        free(ch->u);
}

/* Files every unit (the fold rules' only, in lower case, when `fold`) under its chosen key:
 * counts first, then every key's postings in one array, in unit (so rule) order. */
static int file_all(struct warder__index *idx, const struct chooser *ch,
                    const struct warder__opset *set, bool fold)
{
        size_t units[WARDER__K_COUNT] = {0}, bytes[WARDER__K_COUNT] = {0};
        for (size_t u = 0; u < ch->nu; u++) {
                const struct unit *un = &ch->u[u];
                if ((fold && !set->rules[un->rule].fold) || un->chosen.kind == WARDER__K_COUNT)
                        continue;
                units[un->chosen.kind]++;
                bytes[un->chosen.kind] += un->chosen.len;
        }
        for (int k = 0; k < WARDER__K_COUNT; k++) {
                struct warder__ktab *t = &idx->tab[k];
                if (!units[k])
                        continue;
                size_t cap = 16;
                while (cap < 2 * units[k])
                        cap *= 2;
                if (cap > UINT32_MAX)
                        return WARDER_ENOMEM;
                t->slots = calloc(cap, sizeof(*t->slots));
                t->ent = malloc(units[k] * sizeof(*t->ent));
                t->keys = malloc(bytes[k] ? bytes[k] : 1);
                if (!t->slots || !t->ent || !t->keys)
                        return WARDER_ENOMEM;
                t->mask = (uint32_t)(cap - 1);
        }
        uint32_t *which = malloc((ch->nu ? ch->nu : 1) * sizeof(*which));
        char *low = NULL;
        size_t lowcap = 0, used[WARDER__K_COUNT] = {0};
        int rc = which ? 0 : WARDER_ENOMEM;
        for (size_t u = 0; u < ch->nu && !rc; u++) {
                const struct unit *un = &ch->u[u];
                const struct warder__rule *r = &set->rules[un->rule];
                const struct cand *c = &un->chosen;
                which[u] = UINT32_MAX;
                if (fold && !r->fold)
                        continue;
                idx->empty = false;
                idx->postings++;
                if (c->kind == WARDER__K_COUNT) {
                        rc = plist_add(&idx->residual, un->rule, un->alt, (uint8_t)r->action);
                        continue;
                }
                const char *key = c->text;
                if (fold) {
                        if (c->len > lowcap) {
                                char *p = realloc(low, c->len);
                                if (!p) {
                                        rc = WARDER_ENOMEM;
                                        break;
                                }
                                low = p;
                                lowcap = c->len;
                        }
                        lower_copy(low, c->text, c->len);
                        key = low;
                }
                struct warder__ktab *t = &idx->tab[c->kind];
                uint32_t h = key_hash(key, c->len);
                uint32_t e = ktab_find(t, key, c->len, h);
                if (e == UINT32_MAX)
                        e = ktab_add(t, key, c->len, h, &used[c->kind]);
                note_key(idx, (enum warder__key_kind)c->kind, c->len,
                         c->kind == WARDER__K_PREFIX ? comps_of(c->text, c->len) : 0);
                /* one rule's matcher alternatives may choose the same key: one posting is
                 * enough (`first` remembers, until the postings are laid out, the rule whose
                 * matcher was filed last, plus one) */
                struct warder__kent *ent = &t->ent[e];
                if (un->alt == WARDER__CONFIRM && ent->first == un->rule + 1)
                        continue;
                ent->first = un->alt == WARDER__CONFIRM ? un->rule + 1 : 0;
                ent->n++;
                which[u] = e;
        }
        free(low);
        for (int k = 0; k < WARDER__K_COUNT && !rc; k++) {
                struct warder__ktab *t = &idx->tab[k];
                size_t total = 0;
                for (uint32_t e = 0; e < t->n; e++) {
                        t->ent[e].first = (uint32_t)total;
                        total += t->ent[e].n;
                        t->ent[e].n = 0;
                }
                if (t->n && !(t->post = malloc(total * sizeof(*t->post))))
                        rc = WARDER_ENOMEM;
        }
        for (size_t u = 0; u < ch->nu && !rc; u++) {
                if (which[u] == UINT32_MAX)
                        continue;
                const struct unit *un = &ch->u[u];
                struct warder__ktab *t = &idx->tab[un->chosen.kind];
                struct warder__kent *ent = &t->ent[which[u]];
                t->post[ent->first + ent->n++] = (struct warder__posting){
                    un->rule, un->alt, (uint8_t)set->rules[un->rule].action};
        }
        free(which);
        return rc;
}

int warder__index_build(struct warder__opset *set, const char *root, bool fold_case)
{
        (void)fold_case;
        index_init(&set->idx);
        index_init(&set->fidx);
        struct chooser ch;
        memset(&ch, 0, sizeof(ch));
        int rc = 0;
        /* room for every unit and candidate at once (an exact alternative offers at most 3) */
        for (size_t i = 0; i < set->n; i++) {
                ch.capu += set->rules[i].nalts + set->rules[i].ngroups;
                ch.capc += 3 * (size_t)set->rules[i].nalts + set->rules[i].nhints;
        }
        ch.u = malloc((ch.capu ? ch.capu : 1) * sizeof(*ch.u));
        ch.c = malloc((ch.capc ? ch.capc : 1) * sizeof(*ch.c));
        if (!ch.u || !ch.c)
                rc = WARDER_ENOMEM;
        for (size_t i = 0; i < set->n && !rc; i++) {
                const struct warder__rule *r = &set->rules[i];
                for (uint32_t j = 0; j < r->nalts && !rc; j++) {
                        rc = push_unit(&ch, (uint32_t)i, j);
                        if (!rc)
                                rc = exact_cands(&ch, &r->alts[j], root);
                }
                for (uint32_t g = 0; g < r->ngroups && !rc; g++) {
                        rc = push_unit(&ch, (uint32_t)i, WARDER__CONFIRM);
                        for (uint32_t j = 0; j < r->nhints && !rc; j++) {
                                const struct warder__hint *h = &r->hints[j];
                                if (h->group == g)
                                        rc = push_cand(&ch, (enum warder__key_kind)h->key, h->text,
                                                       h->len, h->weak, 0);
                        }
                }
        }
        /* a small set has few keys to share: counting costs more than it saves (a preset
         * loads in microseconds) and the order of kinds decides */
        if (!rc)
                rc = choose(&ch, ch.nu > SMALL_SET);
        for (size_t u = 0; u < ch.nu && !rc; u++) {
                if (ch.u[u].chosen.weak &&
                    (u == 0 || ch.u[u - 1].rule != ch.u[u].rule || !ch.u[u - 1].chosen.weak))
                        set->idx.weak_rules++;
        }
        if (!rc)
                rc = file_all(&set->idx, &ch, set, false);
        if (!rc)
                rc = file_all(&set->fidx, &ch, set, true);
        chooser_free(&ch);
        for (size_t i = 0; i < set->n; i++) {
                struct warder__rule *r = &set->rules[i];
                for (uint32_t j = 0; j < r->nhints; j++)
                        free(r->hints[j].text);
                free(r->hints);
                r->hints = NULL;
                r->nhints = r->hcap = 0;
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
                ktab_free(&idx->tab[k]);
                free(idx->filter[k]);
        }
        free(idx->residual.p);
        memset(idx, 0, sizeof(*idx));
}

void warder__index_stats(const struct warder__index *idx, size_t *residual_rules,
                         size_t *largest_list)
{
        size_t largest = 0, res = 0;
        for (size_t i = 0; i < idx->residual.n; i++)
                res += i == 0 || idx->residual.p[i].rule != idx->residual.p[i - 1].rule;
        for (int k = 0; k < WARDER__K_COUNT; k++) {
                const struct warder__ktab *t = &idx->tab[k];
                for (uint32_t e = 0; e < t->n; e++)
                        if (t->ent[e].n > largest)
                                largest = t->ent[e].n;
        }
        *residual_rules = res + idx->weak_rules;
        *largest_list = largest;
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

/* Makes room for `need` separator offsets. */
static int slash_reserve(struct scratch *sc, size_t need)
{
        if (need <= sc->cap)
                return 0;
        size_t cap = sc->cap ? sc->cap : 64;
        while (cap < need)
                cap *= 2;
        uint32_t *p = realloc(sc->slash, cap * sizeof(*p));
        if (!p)
                return WARDER_ENOMEM;
        sc->slash = p;
        sc->cap = cap;
        return 0;
}

int warder__target_split(const char *s, size_t len, struct warder__target *t,
                         struct warder__target *folded)
{
        struct scratch *sc = scratch_get();
        if (!sc || slash_reserve(sc, 64))
                return WARDER_ENOMEM;
        size_t n = 0, i = 0;
#if defined(__SSE2__)
        /* sixteen bytes at a time: a deep path is mostly bytes that are not separators */
        const __m128i sep = _mm_set1_epi8('/');
        for (; i + 16 <= len; i += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
                unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, sep));
                if (!m)
                        continue;
                if (slash_reserve(sc, n + 16))
                        return WARDER_ENOMEM;
                while (m) {
                        sc->slash[n++] = (uint32_t)(i + (size_t)__builtin_ctz(m));
                        m &= m - 1;
                }
        }
#endif
        for (; i < len; i++) {
                if (s[i] != '/')
                        continue;
                if (slash_reserve(sc, n + 1))
                        return WARDER_ENOMEM;
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

static void run(const struct probe *pr, const struct warder__posting *list, size_t n, bool folded)
{
        struct best *b = pr->best;
        for (size_t i = 0; i < n; i++) {
                const struct warder__posting *p = &list[i];
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

/* The postings under a key (*n of them), or NULL. */
static const struct warder__posting *find(const struct warder__index *idx,
                                          enum warder__key_kind kind, const char *key, size_t len,
                                          size_t *n)
{
        uint32_t h = key_hash(key, len);
        uint32_t b = h & idx->fmask[kind];
        if (!(idx->filter[kind][b >> 6] >> (b & 63) & 1))
                return NULL;
        const struct warder__ktab *t = &idx->tab[kind];
        uint32_t e = ktab_find(t, key, len, h);
        if (e == UINT32_MAX)
                return NULL;
        *n = t->ent[e].n;
        return t->post + t->ent[e].first;
}

static void lookup(const struct probe *pr, const struct warder__index *idx,
                   enum warder__key_kind kind, const char *key, size_t len, bool folded)
{
        size_t n = 0;
        const struct warder__posting *l = find(idx, kind, key, len, &n);
        if (l)
                run(pr, l, n, folded);
}

/* Every gram of s[0..n) that is a key: each distinct list runs once. */
static void slide(const struct probe *pr, const struct warder__index *idx,
                  enum warder__key_kind kind, const char *s, size_t n, bool folded)
{
        const struct warder__posting *seen[16];
        size_t nseen = 0;
        unsigned lens = idx->gram_lens[kind - WARDER__K_BSUB];
        for (size_t g = 1; g <= GRAM_MAX; g++) {
                if (!(lens >> g & 1))
                        continue;
                for (size_t i = 0; i + g <= n; i++) {
                        size_t ln = 0;
                        const struct warder__posting *l = find(idx, kind, s + i, g, &ln);
                        if (!l)
                                continue;
                        bool dup = false;
                        for (size_t k = 0; k < nseen && !dup; k++)
                                dup = seen[k] == l;
                        if (dup)
                                continue;
                        if (nseen < WARDER__ARRAY_SIZE(seen))
                                seen[nseen++] = l;
                        run(pr, l, ln, folded);
                }
        }
}

static void decide_index(const struct probe *pr, const struct warder__index *idx, bool folded)
{
        if (idx->empty)
                return;
        const struct warder__target *t = folded ? pr->ft : pr->t;
        if (idx->tab[WARDER__K_EXACT].n)
                lookup(pr, idx, WARDER__K_EXACT, t->s, t->len, folded);
        if (idx->tab[WARDER__K_PREFIX].n && t->n > 1) {
                size_t lo = idx->prefix_min < 1 ? 1 : idx->prefix_min;
                size_t hi = idx->prefix_max < t->n - 1 ? idx->prefix_max : t->n - 1;
                for (size_t k = lo; k <= hi; k++)
                        lookup(pr, idx, WARDER__K_PREFIX, t->s, t->slash[k], folded);
        }
        if (t->n) {
                if (idx->tab[WARDER__K_BASE].n)
                        lookup(pr, idx, WARDER__K_BASE, t->base, t->base_len, folded);
                if (idx->tab[WARDER__K_EXT].n) {
                        const char *dot = memrchr(t->base, '.', t->base_len);
                        if (dot && (size_t)(dot - t->base) + 1 < t->base_len)
                                lookup(pr, idx, WARDER__K_EXT, dot + 1,
                                       t->base_len - (size_t)(dot + 1 - t->base), folded);
                }
                if (idx->tab[WARDER__K_COMP].n) {
                        uint64_t lens = idx->comp_lens;
                        for (size_t i = 0; i + 1 < t->n; i++) {
                                size_t start = t->slash[i] + 1;
                                size_t len = t->slash[i + 1] - start;
                                if (lens >> (len < 63 ? len : 63) & 1)
                                        lookup(pr, idx, WARDER__K_COMP, t->s + start, len, folded);
                        }
                }
                if (idx->tab[WARDER__K_BSUB].n)
                        slide(pr, idx, WARDER__K_BSUB, t->base, t->base_len, folded);
                if (idx->tab[WARDER__K_PSUB].n)
                        slide(pr, idx, WARDER__K_PSUB, t->s, (size_t)(t->base - t->s), folded);
        }
        run(pr, idx->residual.p, idx->residual.n, folded);
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
