/* SPDX-License-Identifier: MIT */
/* The grep engine: see engine.h. */
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WARDER__GREP_AVX2 1 /* an AVX2 pair scan, chosen at run time */
#endif

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "grep/engine.h"
#include "util.h"

#define MAX_LITERALS 16 /* literals of an alternation found without the regex */
#define MAX_NEEDLES  8  /* bytes scanned for at once with SIMD */

enum mode {
        MODE_LINE,     /* every line through the regex */
        MODE_LITERALS, /* a set of literals: no regex at all */
        MODE_REQUIRED, /* a scan for a required byte, then the line */
        MODE_MULTI,    /* the multi-line regex finds the next candidate line */
};

struct literal {
        const unsigned char *s;
        size_t len;
        size_t rare_off;  /* offset of the byte scanned for */
        size_t rare_off2; /* offset of the next rarest, checked with it by the pair scan */
};

struct warder__grep_engine {
        pcre2_code *code;
        pcre2_code *code_ml; /* MODE_MULTI */
        bool jit, jit_ml;
        bool caseless;
        enum mode mode;
        char *copy; /* the pattern's bytes, which literals point into */
        struct literal lits[MAX_LITERALS];
        size_t nlits;
        unsigned char needles[MAX_LITERALS * 2]; /* both cases of a letter each */
        size_t nneedles;
        bool table[256]; /* the needles as a table */
        bool avx2;       /* the CPU runs the AVX2 pair scan */
};

struct warder__grep_scratch {
        pcre2_match_data *md;
        pcre2_match_context *mctx;
        pcre2_jit_stack *jstack;
};

static unsigned char fold(unsigned char c)
{
        return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool is_letter(unsigned char c)
{
        return fold(c) >= 'a' && fold(c) <= 'z';
}

/* How common a byte is in text (higher: more common), to scan for the rarest one. */
static int byte_rank(unsigned char c)
{
        static const char freq[] = "etaoinshrdlcumwfgypbvkjxqz";
        if (c >= 'a' && c <= 'z')
                return 250 - 3 * (int)(strchr(freq, c) - freq);
        if (c >= 'A' && c <= 'Z')
                return 120 - 2 * (int)(strchr(freq, c + 32) - freq);
        if (c == ' ' || c == '\t')
                return 255;
        if (c >= '0' && c <= '9')
                return 130;
        if (c < 0x20 || c >= 0x7f)
                return 30;
        return strchr("_.,;:()=-/\"'{}*<>#", c) ? 100 : 60;
}

static int cost(unsigned char c, bool caseless)
{
        if (caseless && is_letter(c))
                return byte_rank(fold(c)) + byte_rank((unsigned char)(fold(c) - 32));
        return byte_rank(c);
}

/* Splits a pattern made of plain literals joined by `|` into e->lits; false when it is not of
 * that form (or holds too many, or an empty one). */
static bool split_literals(struct warder__grep_engine *e, size_t len)
{
        const unsigned char *p = (const unsigned char *)e->copy, *end = p + len;
        if (len == 0)
                return false;
        for (const unsigned char *q = p; q < end; q++)
                if (strchr("\\^$.?*+()[]{}\n", *q) || *q == '\0' || *q == '#')
                        return false; /* `#` and space are syntax under (?x), never set here */
        e->nlits = 0;
        while (p <= end) {
                const unsigned char *bar = memchr(p, '|', (size_t)(end - p));
                const unsigned char *stop = bar ? bar : end;
                if (stop == p || e->nlits == MAX_LITERALS)
                        return false;
                e->lits[e->nlits++] = (struct literal){p, (size_t)(stop - p), 0, 0};
                if (!bar)
                        break;
                p = bar + 1;
        }
        /* The rarest byte of each literal, in both cases when letters fold. */
        memset(e->table, 0, sizeof(e->table));
        e->nneedles = 0;
        for (size_t i = 0; i < e->nlits; i++) {
                struct literal *l = &e->lits[i];
                for (size_t k = 1; k < l->len; k++)
                        if (cost(l->s[k], e->caseless) < cost(l->s[l->rare_off], e->caseless))
                                l->rare_off = k;
                l->rare_off2 = l->rare_off;
                for (size_t k = 0; k < l->len; k++)
                        if (k != l->rare_off &&
                            (l->rare_off2 == l->rare_off ||
                             cost(l->s[k], e->caseless) < cost(l->s[l->rare_off2], e->caseless)))
                                l->rare_off2 = k;
                unsigned char c = l->s[l->rare_off];
                unsigned char both[2] = {c, c};
                if (e->caseless && is_letter(c)) {
                        both[0] = fold(c);
                        both[1] = (unsigned char)(fold(c) - 32);
                }
                for (int k = 0; k < 2; k++)
                        if (!e->table[both[k]]) {
                                e->table[both[k]] = true;
                                e->needles[e->nneedles++] = both[k];
                        }
        }
        return true;
}

/* Whether a pattern may be searched across lines as MODE_MULTI does: it cannot see past a
 * line end but through `$`, which multi-line mode keeps at line ends. */
static bool multiline_safe(const char *pattern)
{
        static const char *const unsafe[] = {"\\z", "\\Z", "\\A", "\\G", "\\K", "(?", "(*"};
        for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
                if (strstr(pattern, unsafe[i]))
                        return false;
        return true;
}

int warder__grep_engine_new(struct warder__grep_engine **out, const char *pattern, size_t len,
                            unsigned flags, struct warder_error *err)
{
        *out = NULL;
        struct warder__grep_engine *e = calloc(1, sizeof(*e));
        if (!e || !(e->copy = malloc(len + 1))) {
                free(e);
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        memcpy(e->copy, pattern, len);
        e->copy[len] = '\0';
        e->caseless = flags & WARDER__GREP_CASELESS;
#ifdef WARDER__GREP_AVX2
        e->avx2 = !(flags & WARDER__GREP_NO_AVX2) && __builtin_cpu_supports("avx2");
#endif
        uint32_t opts = e->caseless ? PCRE2_CASELESS : 0;
        int code;
        PCRE2_SIZE off;
        e->code = pcre2_compile((PCRE2_SPTR)pattern, len, opts, &code, &off, NULL);
        if (!e->code) {
                PCRE2_UCHAR msg[256];
                if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
                        strcpy((char *)msg, "invalid pattern");
                warder__grep_engine_free(e);
                warder_error_set(err, WARDER_EPARSE, "grep: bad pattern at offset %zu: %s",
                                 (size_t)off, (const char *)msg);
                if (warder__err_ok(err))
                        err->offset = (long)off;
                return WARDER_EPARSE;
        }
        e->jit = pcre2_jit_compile(e->code, PCRE2_JIT_COMPLETE) == 0;
        if (flags & WARDER__GREP_PLAIN) {
                e->mode = MODE_LINE;
        } else if (split_literals(e, len)) {
                e->mode = MODE_LITERALS;
        } else {
                /* PCRE2 reports a required unit in one case even where it matches both
                 * (`FOO|foo` requires F or f): a letter is searched in both cases. Under
                 * (*UTF) a caseless letter may also match a non-ASCII character (`s` and
                 * U+017F): no byte search then. */
                uint32_t type = 0, unit = 0;
                if (!strstr(e->copy, "(*") &&
                    ((pcre2_pattern_info(e->code, PCRE2_INFO_LASTCODETYPE, &type) == 0 &&
                      type == 1 &&
                      pcre2_pattern_info(e->code, PCRE2_INFO_LASTCODEUNIT, &unit) == 0) ||
                     (pcre2_pattern_info(e->code, PCRE2_INFO_FIRSTCODETYPE, &type) == 0 &&
                      type == 1 &&
                      pcre2_pattern_info(e->code, PCRE2_INFO_FIRSTCODEUNIT, &unit) == 0)) &&
                    unit < 256) {
                        unsigned char c = (unsigned char)unit;
                        e->mode = MODE_REQUIRED;
                        e->nneedles = 0;
                        memset(e->table, 0, sizeof(e->table));
                        e->needles[e->nneedles++] = c;
                        e->table[c] = true;
                        if (is_letter(c)) {
                                unsigned char o = fold(c) == c ? (unsigned char)(c - 32) : fold(c);
                                e->needles[e->nneedles++] = o;
                                e->table[o] = true;
                        }
                } else if (multiline_safe(e->copy) && memchr(pattern, '\0', len) == NULL) {
                        e->code_ml = pcre2_compile((PCRE2_SPTR)pattern, len, opts | PCRE2_MULTILINE,
                                                   &code, &off, NULL);
                        if (e->code_ml) {
                                e->mode = MODE_MULTI;
                                e->jit_ml = pcre2_jit_compile(e->code_ml, PCRE2_JIT_COMPLETE) == 0;
                        }
                }
        }
        *out = e;
        return 0;
}

void warder__grep_engine_free(struct warder__grep_engine *e)
{
        if (!e)
                return;
        pcre2_code_free(e->code);
        pcre2_code_free(e->code_ml);
        free(e->copy);
        free(e);
}

struct warder__grep_scratch *warder__grep_scratch_new(const struct warder__grep_engine *e)
{
        struct warder__grep_scratch *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->md = pcre2_match_data_create(1, NULL);
        s->mctx = pcre2_match_context_create(NULL);
        if (!s->md || !s->mctx) {
                warder__grep_scratch_free(s);
                return NULL;
        }
        pcre2_set_match_limit(s->mctx, WARDER__GREP_MATCH_LIMIT);
        pcre2_set_depth_limit(s->mctx, WARDER__GREP_DEPTH_LIMIT);
        if (e->jit || e->jit_ml) {
                /* Without a stack of its own, JIT matching uses 32 KiB of the machine stack. */
                s->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
                if (s->jstack)
                        pcre2_jit_stack_assign(s->mctx, NULL, s->jstack);
        }
        return s;
}

void warder__grep_scratch_free(struct warder__grep_scratch *s)
{
        if (!s)
                return;
        pcre2_match_data_free(s->md);
        pcre2_match_context_free(s->mctx);
        pcre2_jit_stack_free(s->jstack);
        free(s);
}

bool warder__grep_is_binary(const char *buf, size_t n)
{
        return memchr(buf, '\0', n < WARDER__GREP_BINARY_PROBE ? n : WARDER__GREP_BINARY_PROBE) !=
               NULL;
}

/* The first position at or after p holding one of the needles, or n. */
static size_t find_needle(const struct warder__grep_engine *e, const unsigned char *b, size_t n,
                          size_t p)
{
        if (e->nneedles == 1) {
                const unsigned char *h = memchr(b + p, e->needles[0], n - p);
                return h ? (size_t)(h - b) : n;
        }
#ifdef __SSE2__
        if (e->nneedles <= MAX_NEEDLES) {
                __m128i v[MAX_NEEDLES];
                size_t k = e->nneedles;
                for (size_t i = 0; i < k; i++)
                        v[i] = _mm_set1_epi8((char)e->needles[i]);
                for (; p + 16 <= n; p += 16) {
                        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + p));
                        __m128i m = _mm_cmpeq_epi8(x, v[0]);
                        for (size_t i = 1; i < k; i++)
                                m = _mm_or_si128(m, _mm_cmpeq_epi8(x, v[i]));
                        int mask = _mm_movemask_epi8(m);
                        if (mask)
                                return p + (size_t)__builtin_ctz((unsigned)mask);
                }
        }
#endif
        for (; p < n; p++)
                if (e->table[b[p]])
                        return p;
        return n;
}

static bool equal_at(const unsigned char *a, const unsigned char *lit, size_t len, bool caseless)
{
        if (!caseless)
                return memcmp(a, lit, len) == 0;
        for (size_t i = 0; i < len; i++)
                if (fold(a[i]) != fold(lit[i]))
                        return false;
        return true;
}

/* The other case of c when letters fold, else c. */
static unsigned char other_case(unsigned char c, bool caseless)
{
        return caseless && is_letter(c) ? (unsigned char)(c ^ 0x20) : c;
}

/* How far past a start the pair scan reads for a block of `width` starts. */
static size_t pair_reach(const struct warder__grep_engine *e, size_t width)
{
        size_t reach = 0;
        for (size_t j = 0; j < e->nlits; j++) {
                const struct literal *l = &e->lits[j];
                size_t r = (l->rare_off > l->rare_off2 ? l->rare_off : l->rare_off2) + width;
                if (r > reach)
                        reach = r;
        }
        return reach;
}

/* The leftmost start among the candidates of `mask` (bit k: start q + k) where a literal is
 * found whole, or NULL. */
static const char *pair_verify(const struct warder__grep_engine *e, const char *buf, size_t n,
                               size_t q, uint64_t mask)
{
        const unsigned char *b = (const unsigned char *)buf;
        for (; mask; mask &= mask - 1) {
                size_t start = q + (size_t)__builtin_ctzll(mask);
                for (size_t j = 0; j < e->nlits; j++) {
                        const struct literal *l = &e->lits[j];
                        if (start + l->len <= n && equal_at(b + start, l->s, l->len, e->caseless))
                                return buf + start;
                }
        }
        return NULL;
}

/*
 * The pair scan: a block of starts at a time, a start is a candidate for a literal when its
 * two rarest bytes (either case, when letters fold) are in place: far fewer candidates than
 * one byte gives when that byte is common. Returns the leftmost start, at or after p, where
 * a literal is found whole, or NULL with *next the first start it did not look at (blocks
 * read past their start, so the last starts are left to the caller).
 */
#ifdef __SSE2__
static const char *pair_scan_sse2(const struct warder__grep_engine *e, const char *buf, size_t n,
                                  size_t p, size_t *next)
{
        const unsigned char *b = (const unsigned char *)buf;
        __m128i v[MAX_LITERALS][4];
        for (size_t j = 0; j < e->nlits; j++) {
                const struct literal *l = &e->lits[j];
                unsigned char c1 = l->s[l->rare_off], c2 = l->s[l->rare_off2];
                v[j][0] = _mm_set1_epi8((char)c1);
                v[j][1] = _mm_set1_epi8((char)other_case(c1, e->caseless));
                v[j][2] = _mm_set1_epi8((char)c2);
                v[j][3] = _mm_set1_epi8((char)other_case(c2, e->caseless));
        }
        size_t reach = pair_reach(e, 16), q = p;
        for (; q + reach <= n; q += 16) {
                __m128i acc = _mm_setzero_si128();
                for (size_t j = 0; j < e->nlits; j++) {
                        const struct literal *l = &e->lits[j];
                        __m128i x1 =
                            _mm_loadu_si128((const __m128i *)(const void *)(b + q + l->rare_off));
                        __m128i x2 =
                            _mm_loadu_si128((const __m128i *)(const void *)(b + q + l->rare_off2));
                        __m128i m1 =
                            _mm_or_si128(_mm_cmpeq_epi8(x1, v[j][0]), _mm_cmpeq_epi8(x1, v[j][1]));
                        __m128i m2 =
                            _mm_or_si128(_mm_cmpeq_epi8(x2, v[j][2]), _mm_cmpeq_epi8(x2, v[j][3]));
                        acc = _mm_or_si128(acc, _mm_and_si128(m1, m2));
                }
                unsigned mask = (unsigned)_mm_movemask_epi8(acc);
                const char *hit = mask ? pair_verify(e, buf, n, q, mask) : NULL;
                if (hit)
                        return hit;
        }
        *next = q;
        return NULL;
}
#endif

#ifdef WARDER__GREP_AVX2
/* The same, 32 starts at a time; called only where the CPU has AVX2. */
__attribute__((target("avx2"))) static const char *
pair_scan_avx2(const struct warder__grep_engine *e, const char *buf, size_t n, size_t p,
               size_t *next)
{
        const unsigned char *b = (const unsigned char *)buf;
        __m256i v[MAX_LITERALS][4];
        for (size_t j = 0; j < e->nlits; j++) {
                const struct literal *l = &e->lits[j];
                unsigned char c1 = l->s[l->rare_off], c2 = l->s[l->rare_off2];
                v[j][0] = _mm256_set1_epi8((char)c1);
                v[j][1] = _mm256_set1_epi8((char)other_case(c1, e->caseless));
                v[j][2] = _mm256_set1_epi8((char)c2);
                v[j][3] = _mm256_set1_epi8((char)other_case(c2, e->caseless));
        }
        size_t reach = pair_reach(e, 32), q = p;
        for (; q + reach <= n; q += 32) {
                __m256i acc = _mm256_setzero_si256();
                for (size_t j = 0; j < e->nlits; j++) {
                        const struct literal *l = &e->lits[j];
                        __m256i x1 = _mm256_loadu_si256(
                            (const __m256i *)(const void *)(b + q + l->rare_off));
                        __m256i x2 = _mm256_loadu_si256(
                            (const __m256i *)(const void *)(b + q + l->rare_off2));
                        __m256i m1 = _mm256_or_si256(_mm256_cmpeq_epi8(x1, v[j][0]),
                                                     _mm256_cmpeq_epi8(x1, v[j][1]));
                        __m256i m2 = _mm256_or_si256(_mm256_cmpeq_epi8(x2, v[j][2]),
                                                     _mm256_cmpeq_epi8(x2, v[j][3]));
                        acc = _mm256_or_si256(acc, _mm256_and_si256(m1, m2));
                }
                uint64_t mask = (uint32_t)_mm256_movemask_epi8(acc);
                const char *hit = mask ? pair_verify(e, buf, n, q, mask) : NULL;
                if (hit)
                        return hit;
        }
        *next = q;
        return NULL;
}
#endif

/* The start of the leftmost literal found in a line at or after p, or NULL. No literal holds a
 * newline, so the first hit found lies in the first line that holds any literal. */
static const char *find_literal(const struct warder__grep_engine *e, const char *buf, size_t n,
                                size_t p)
{
        const unsigned char *b = (const unsigned char *)buf;
#ifdef __SSE2__
        if (e->nneedles > 1) {
                /* Several needle bytes (alternatives, or a letter in both cases): pairs. */
                size_t next = p;
#ifdef WARDER__GREP_AVX2
                const char *hit = e->avx2 ? pair_scan_avx2(e, buf, n, p, &next)
                                          : pair_scan_sse2(e, buf, n, p, &next);
#else
                const char *hit = pair_scan_sse2(e, buf, n, p, &next);
#endif
                if (hit)
                        return hit;
                for (size_t start = next; start < n; start++)
                        for (size_t j = 0; j < e->nlits; j++) {
                                const struct literal *l = &e->lits[j];
                                if (start + l->len <= n &&
                                    equal_at(b + start, l->s, l->len, e->caseless))
                                        return buf + start;
                        }
                return NULL;
        }
#endif
        for (size_t i = p; (i = find_needle(e, b, n, i)) < n; i++) {
                unsigned char c = e->caseless ? fold(b[i]) : b[i];
                for (size_t j = 0; j < e->nlits; j++) {
                        const struct literal *l = &e->lits[j];
                        unsigned char r = l->s[l->rare_off];
                        if ((e->caseless ? fold(r) : r) != c || i < l->rare_off)
                                continue;
                        size_t start = i - l->rare_off;
                        if (start >= p && start + l->len <= n &&
                            equal_at(b + start, l->s, l->len, e->caseless))
                                return buf + start;
                }
        }
        return NULL;
}

/* The leftmost match of the multi-line pattern at or after p: no matching line is skipped
 * (a match of a line is a match of the buffer at the same place); an engine error falls
 * back to the line at p, which is then decided alone. */
static const char *next_candidate(const struct warder__grep_engine *e,
                                  struct warder__grep_scratch *s, const char *buf, size_t n,
                                  size_t p)
{
        int r = e->jit_ml ? pcre2_jit_match(e->code_ml, (PCRE2_SPTR)buf, n, p, 0, s->md, s->mctx)
                          : pcre2_match(e->code_ml, (PCRE2_SPTR)buf, n, p, 0, s->md, s->mctx);
        if (r == PCRE2_ERROR_NOMATCH)
                return NULL;
        if (r < 0)
                return buf + p;
        PCRE2_SIZE at = pcre2_get_ovector_pointer(s->md)[0];
        return at >= p && at <= n ? buf + at : buf + p;
}

/* 1: the line matches, 0: it does not, -1: the engine gave up (a limit). */
static int line_matches(const struct warder__grep_engine *e, struct warder__grep_scratch *s,
                        const char *line, size_t len)
{
        int r = e->jit ? pcre2_jit_match(e->code, (PCRE2_SPTR)line, len, 0, 0, s->md, s->mctx)
                       : pcre2_match(e->code, (PCRE2_SPTR)line, len, 0, 0, s->md, s->mctx);
        return r >= 0 ? 1 : r == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

int warder__grep_search(const struct warder__grep_engine *e, struct warder__grep_scratch *s,
                        const char *buf, size_t n, warder__grep_emit_fn emit, void *ud,
                        bool *incomplete)
{
        size_t p = 0, counted = 0;
        uint64_t lineno = 1;
        while (p < n) {
                const char *hit;
                switch (e->mode) {
                case MODE_LITERALS:
                        hit = find_literal(e, buf, n, p);
                        break;
                case MODE_REQUIRED: {
                        size_t at = find_needle(e, (const unsigned char *)buf, n, p);
                        hit = at < n ? buf + at : NULL;
                        break;
                }
                case MODE_MULTI:
                        hit = next_candidate(e, s, buf, n, p);
                        break;
                case MODE_LINE:
                default:
                        hit = buf + p;
                        break;
                }
                if (!hit)
                        break;
                const char *ls = memrchr(buf + p, '\n', (size_t)(hit - (buf + p)));
                ls = ls ? ls + 1 : buf + p;
                const char *le = memchr(hit, '\n', n - (size_t)(hit - buf));
                if (!le)
                        le = buf + n;
                for (const char *q = buf + counted; (q = memchr(q, '\n', (size_t)(ls - q))); q++)
                        lineno++;
                counted = (size_t)(ls - buf);
                int m = e->mode == MODE_LITERALS ? 1 : line_matches(e, s, ls, (size_t)(le - ls));
                if (m < 0)
                        *incomplete = true;
                if (m > 0) {
                        int rc = emit(ud, lineno, ls, (size_t)(le - ls));
                        if (rc)
                                return rc;
                }
                p = (size_t)(le - buf) + 1;
        }
        return 0;
}
