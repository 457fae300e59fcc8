/* SPDX-License-Identifier: MIT */
/*
 * The core matcher (§2.1–§2.10, §5.1): a glob is translated to one PCRE2 pattern, compiled
 * with the JIT, and matched against bytes.
 *
 * Linear-time translation. A component of a path pattern (the text between two slashes) is a
 * chain C0 * C1 * ... * Ck of fixed-width chunks. Within one component of the subject, taking
 * each middle chunk at its leftmost occurrence never loses a match (a later occurrence leaves
 * less room to the rest, and the stars absorb the difference), so middle chunks are atomic
 * lazy searches `(?>[^/]*?Ci)`; only the last chunk is placed by backtracking, at the fixed
 * end of the component. Likewise a run of components X between two `**` is taken at the
 * leftmost position where all of X matches: `(?>(?:[^/]*[/])*?X[/])`. Nothing is ever retried
 * combinatorially, so `*a*a*a…` or chains of globstars cost at most pattern × subject steps.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "glob-impl.h"
#include "glob-internal.h"

/* Rule globs are compiled by the JIT only once they have been matched a few times: a
 * ruleset of 10,000 rules mostly holds rules that a given process never tries, and a one-shot
 * `warder check` matches each of a handful once. The JIT works on a copy published through
 * `jre`, so threads matching with the interpreter meanwhile read an unchanged `re`. */
#define LAZY_JIT_AFTER 4u

struct glob_code {
        pcre2_code *re;
        bool jit;                  /* `re` itself is JIT-compiled (eager) */
        bool lazy;                 /* compile a JIT copy after LAZY_JIT_AFTER matches */
        _Atomic(pcre2_code *) jre; /* the JIT-compiled copy, once there is one */
        atomic_uint uses;          /* interpreted matches so far (lazy only) */
};

struct warder_glob {
        struct glob_code *codes; /* one alternation, or one per alternative if too large */
        size_t ncodes;
        unsigned flags;
        char *pattern;
        size_t len;
};

/* ---- tokens ---- */

enum tok_kind {
        TOK_LIT,   /* one byte */
        TOK_ANY,   /* ? */
        TOK_CLASS, /* [...] */
        TOK_STAR,  /* a run of unescaped stars */
        TOK_SLASH, /* a separator (path mode) */
        TOK_BLANK, /* a run of unescaped blanks (command mode) */
};

struct tok {
        enum tok_kind kind;
        unsigned char byte; /* TOK_LIT */
        unsigned stars;     /* TOK_STAR */
        size_t cls;         /* TOK_CLASS: index into the class table */
};

struct toks {
        struct tok *t;
        size_t n;
        struct warder__glob_set *cls;
        size_t ncls;
};

static void toks_free(struct toks *t)
{
        free(t->t);
        free(t->cls);
}

static int tokenize(const char *p, size_t len, unsigned flags, struct toks *out,
                    struct warder_error *err)
{
        bool cmd = flags & WARDER_GLOB_COMMAND;
        struct toks t = {calloc(len + 1, sizeof(struct tok)), 0, NULL, 0};
        size_t nbr = 0;
        for (size_t i = 0; i < len; i++)
                nbr += p[i] == '[';
        t.cls = calloc(nbr + 1, sizeof(*t.cls));
        if (!t.t || !t.cls) {
                toks_free(&t);
                return warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
        }
        size_t i = 0;
        while (i < len) {
                unsigned char c = (unsigned char)p[i];
                struct tok *k = &t.t[t.n];
                if (c == '\\') {
                        if (i + 1 >= len) {
                                toks_free(&t);
                                return warder__glob_fail(err, WARDER_EPARSE, i,
                                                         "trailing '\\' escapes nothing");
                        }
                        c = (unsigned char)p[i + 1];
                        /* §2.4: an escaped slash is an ordinary slash */
                        *k = (struct tok){.kind = (c == '/' && !cmd) ? TOK_SLASH : TOK_LIT,
                                          .byte = c};
                        i += 2;
                } else if (c == '[') {
                        size_t end;
                        int rc =
                            warder__glob_parse_class(p, len, i, flags, &t.cls[t.ncls], &end, err);
                        if (rc) {
                                toks_free(&t);
                                return rc;
                        }
                        *k = (struct tok){.kind = TOK_CLASS, .cls = t.ncls++};
                        i = end;
                } else if (c == '*') {
                        size_t j = i;
                        while (j < len && p[j] == '*')
                                j++;
                        *k = (struct tok){.kind = TOK_STAR, .stars = (unsigned)(j - i)};
                        i = j;
                } else if (c == '?') {
                        *k = (struct tok){.kind = TOK_ANY};
                        i++;
                } else if (c == '/' && !cmd) {
                        *k = (struct tok){.kind = TOK_SLASH};
                        i++;
                } else if (cmd && (c == ' ' || c == '\t')) {
                        while (i < len && (p[i] == ' ' || p[i] == '\t'))
                                i++;
                        *k = (struct tok){.kind = TOK_BLANK};
                } else if (c == '\0') {
                        toks_free(&t);
                        return warder__glob_fail(err, WARDER_EPARSE, i,
                                                 "NUL byte in pattern (write '\\' before it)");
                } else {
                        *k = (struct tok){.kind = TOK_LIT, .byte = c};
                        i++;
                }
                t.n++;
        }
        *out = t;
        return 0;
}

/* ---- emission ---- */

struct emitter {
        struct warder__buf b;
        int rc;
        const struct toks *t;
        const char *any; /* what a star repeats and `?` matches */
};

static void put(struct emitter *e, const char *s)
{
        if (!e->rc)
                e->rc = warder__buf_puts(&e->b, s);
}

static void put_byte(struct emitter *e, unsigned c)
{
        static const char hex[] = "0123456789abcdef";
        char s[5] = {'\\', 'x', hex[(c >> 4) & 15], hex[c & 15], '\0'};
        put(e, s);
}

static void emit_lit(struct emitter *e, unsigned char c)
{
        if (c >= 0x20 && c <= 0x7e) {
                char s[3] = {'\\', (char)c, '\0'};
                bool alnum = (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
                put(e, alnum ? s + 1 : (strchr("\\^$.[]|()?*+{}#", c) ? s : s + 1));
        } else {
                put_byte(e, c);
        }
}

static void emit_class(struct emitter *e, const struct warder__glob_set *s)
{
        unsigned n = 0;
        for (unsigned c = 0; c < 256; c++)
                n += warder__glob_set_has(s, c);
        if (n == 0) {
                put(e, "(*FAIL)");
                return;
        }
        if (n == 1) {
                for (unsigned c = 0; c < 256; c++) {
                        if (warder__glob_set_has(s, c))
                                emit_lit(e, (unsigned char)c);
                }
                return;
        }
        put(e, "[");
        for (unsigned c = 0; c < 256;) {
                if (!warder__glob_set_has(s, c)) {
                        c++;
                        continue;
                }
                unsigned d = c;
                while (d + 1 < 256 && warder__glob_set_has(s, d + 1))
                        d++;
                put_byte(e, c);
                if (d > c) {
                        if (d > c + 1)
                                put(e, "-");
                        put_byte(e, d);
                }
                c = d + 1;
        }
        put(e, "]");
}

static void emit_tok(struct emitter *e, const struct tok *k)
{
        switch (k->kind) {
        case TOK_LIT:
                emit_lit(e, k->byte);
                break;
        case TOK_ANY:
                put(e, e->any);
                break;
        case TOK_CLASS:
                emit_class(e, &e->t->cls[k->cls]);
                break;
        case TOK_BLANK:
                put(e, " ");
                break;
        case TOK_SLASH:
                put(e, "/");
                break;
        case TOK_STAR:
                put(e, e->any);
                put(e, "*");
                break;
        }
}

/*
 * Emits tokens [a, b) (no separator among them) followed by `term`. Middle chunks between
 * stars are atomic leftmost searches; the whole run with its terminator is atomic, since the
 * terminator fixes where it ends.
 */
static void emit_run(struct emitter *e, size_t a, size_t b, const char *term)
{
        const struct tok *t = e->t->t;
        size_t i = a;
        while (i < b && t[i].kind != TOK_STAR)
                emit_tok(e, &t[i++]);
        if (i == b) {
                put(e, term);
                return;
        }
        /* wrap what was emitted so far (C0) together with the rest in one atomic group */
        struct emitter inner = {WARDER__BUF_INIT, 0, e->t, e->any};
        for (;;) {
                while (i < b && t[i].kind == TOK_STAR)
                        i++;
                size_t c = i;
                while (c < b && t[c].kind != TOK_STAR)
                        c++;
                if (c == b) {
                        put(&inner, e->any);
                        put(&inner, i == b ? "*+" : "*");
                        while (i < b)
                                emit_tok(&inner, &t[i++]);
                        break;
                }
                put(&inner, "(?>");
                put(&inner, e->any);
                put(&inner, "*?");
                while (i < c)
                        emit_tok(&inner, &t[i++]);
                put(&inner, ")");
        }
        put(&inner, term);
        if (inner.rc && !e->rc)
                e->rc = inner.rc;
        put(e, "(?>");
        put(e, inner.b.data ? inner.b.data : "");
        put(e, ")");
        warder__buf_free(&inner.b);
}

/* Emits one path alternative (§2.1–§2.5) after \A. */
static int emit_path(struct emitter *e)
{
        const struct toks *tk = e->t;
        size_t ncomp = 1;
        for (size_t i = 0; i < tk->n; i++)
                ncomp += tk->t[i].kind == TOK_SLASH;
        size_t *start = calloc(ncomp + 1, sizeof(*start));
        bool *glob = calloc(ncomp, sizeof(*glob));
        if (!start || !glob) {
                free(start);
                free(glob);
                return WARDER_ENOMEM;
        }
        /* start[c] .. start[c+1]-1 are component c's tokens, the last being its slash */
        size_t c = 0;
        start[0] = 0;
        for (size_t i = 0; i < tk->n; i++) {
                if (tk->t[i].kind == TOK_SLASH)
                        start[++c] = i + 1;
        }
        start[ncomp] = tk->n + 1;
#define CEND(c) (start[(c) + 1] - 1)
        for (c = 0; c < ncomp; c++) {
                /* §2.4: a component that is only two or more stars is a globstar */
                glob[c] = CEND(c) == start[c] + 1 && tk->t[start[c]].kind == TOK_STAR &&
                          tk->t[start[c]].stars >= 2;
        }
        size_t i = 0;
        for (; i < ncomp && !glob[i]; i++)
                emit_run(e, start[i], CEND(i), i + 1 == ncomp ? "\\z" : "/");
        while (i < ncomp) {
                size_t j = i;
                while (j < ncomp && glob[j])
                        j++;
                if (j == ncomp)
                        break; /* a trailing globstar or a lone `**`: anything follows */
                size_t k = j;
                while (k < ncomp && !glob[k])
                        k++;
                if (k == ncomp) {
                        /* the tail after the last `**` must match the last components */
                        put(e, k - j == 1 ? "(?:[^/]*+/)*+" : "(?:[^/]*/)*");
                        for (size_t m = j; m < ncomp; m++)
                                emit_run(e, start[m], CEND(m), m + 1 == ncomp ? "\\z" : "/");
                        break;
                }
                /* globstar, X, globstar: take the leftmost place where X matches */
                put(e, "(?>(?:[^/]*/)*?");
                for (size_t m = j; m < k; m++)
                        emit_run(e, start[m], CEND(m), "/");
                put(e, ")");
                i = k;
        }
#undef CEND
        free(start);
        free(glob);
        return 0;
}

/* Emits one command alternative (§5.1) after \A. */
static void emit_command(struct emitter *e)
{
        const struct tok *t = e->t->t;
        size_t a = 0, b = e->t->n;
        while (a < b && t[a].kind == TOK_BLANK)
                a++;
        while (b > a && t[b - 1].kind == TOK_BLANK)
                b--;
        const char *term = "\\z";
        if (b - a >= 2 && t[b - 1].kind == TOK_STAR && t[b - 2].kind == TOK_BLANK) {
                /* `cmd *` also matches `cmd` */
                term = "(?: .*)?\\z";
                b -= 2;
        }
        emit_run(e, a, b, term);
}

static int translate(struct warder__buf *re, const char *p, size_t len, unsigned flags,
                     struct warder_error *err)
{
        struct toks t;
        int rc = tokenize(p, len, flags, &t, err);
        if (rc)
                return rc;
        struct emitter e = {*re, 0, &t, (flags & WARDER_GLOB_COMMAND) ? "." : "[^/]"};
        if (flags & WARDER_GLOB_COMMAND)
                emit_command(&e);
        else if (!e.rc)
                e.rc = emit_path(&e);
        *re = e.b;
        toks_free(&t);
        if (e.rc)
                return warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
        return 0;
}

#define KNOWN_FLAGS                                                                                \
        (WARDER_GLOB_FOLD_CASE | WARDER_GLOB_COMMAND | WARDER_GLOB_NO_BRACES |                     \
         WARDER__GLOB_LAZY_JIT)

/* Compiles "\A" + bodies[a..b) as one alternation; NULL with *ec set on failure. */
static pcre2_code *compile_bodies(const struct warder__buf *bodies, size_t a, size_t b,
                                  unsigned flags, int *ec)
{
        struct warder__buf re = WARDER__BUF_INIT;
        int rc = warder__buf_puts(&re, b - a > 1 ? "\\A(?:" : "\\A");
        for (size_t i = a; !rc && i < b; i++) {
                if (i > a)
                        rc = warder__buf_putc(&re, '|');
                if (!rc)
                        rc = warder__buf_append(&re, bodies[i].data, bodies[i].len);
        }
        if (!rc && b - a > 1)
                rc = warder__buf_putc(&re, ')');
        if (rc) {
                warder__buf_free(&re);
                *ec = PCRE2_ERROR_NOMEMORY;
                return NULL;
        }
        uint32_t opts = PCRE2_DOTALL | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | PCRE2_NO_AUTO_CAPTURE |
                        PCRE2_NEVER_BACKSLASH_C;
        if (flags & WARDER_GLOB_FOLD_CASE)
                opts |= PCRE2_CASELESS;
        PCRE2_SIZE eo;
        pcre2_code *code = pcre2_compile((PCRE2_SPTR)re.data, re.len, opts, ec, &eo, NULL);
        warder__buf_free(&re);
        return code;
}

static void glob_release(struct warder_glob *g)
{
        for (size_t i = 0; i < g->ncodes; i++) {
                pcre2_code_free(g->codes[i].re);
                pcre2_code_free(atomic_load(&g->codes[i].jre));
        }
        free(g->codes);
        free(g->pattern);
        free(g);
}

int warder__glob_compile_union(warder_glob **out, const char *const *alts, const size_t *lens,
                               size_t n, unsigned flags, const char *display, size_t display_len,
                               struct warder_error *err)
{
        if (!out || !alts || !lens || n == 0 || (flags & ~KNOWN_FLAGS) || (!display && display_len))
                return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        for (size_t i = 0; i < n; i++) {
                if (!alts[i] && lens[i])
                        return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        }
        struct warder__buf *bodies = calloc(n, sizeof(*bodies));
        struct warder_glob *g = calloc(1, sizeof(*g));
        int rc = 0;
        if (!bodies || !g || !(g->pattern = malloc(display_len + 1)) ||
            !(g->codes = calloc(n, sizeof(*g->codes)))) {
                rc = warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                rc = translate(&bodies[i], alts[i] ? alts[i] : "", lens[i],
                               flags | WARDER_GLOB_NO_BRACES, err);
                if (rc)
                        goto out;
        }
        /* one alternation; if the engine finds it too large, one pattern per alternative */
        int ec = 0;
        pcre2_code *code = compile_bodies(bodies, 0, n, flags, &ec);
        if (code) {
                g->codes[g->ncodes++].re = code;
        } else if (ec == PCRE2_ERROR_PATTERN_TOO_LARGE && n > 1) {
                for (size_t i = 0; i < n; i++) {
                        code = compile_bodies(bodies, i, i + 1, flags, &ec);
                        if (!code)
                                break;
                        g->codes[g->ncodes++].re = code;
                }
        }
        if (!code) {
                if (ec == PCRE2_ERROR_NOMEMORY || ec == PCRE2_ERROR_HEAPLIMIT) {
                        rc = warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
                } else {
                        PCRE2_UCHAR msg[160];
                        if (pcre2_get_error_message(ec, msg, sizeof(msg)) < 0)
                                strcpy((char *)msg, "unknown error");
                        rc = warder__glob_fail(err, WARDER_ETOOBIG, 0, "pattern too complex: %s",
                                               (const char *)msg);
                }
                goto out;
        }
        for (size_t i = 0; i < g->ncodes; i++) {
                atomic_init(&g->codes[i].jre, NULL);
                atomic_init(&g->codes[i].uses, 0);
                if (flags & WARDER__GLOB_LAZY_JIT)
                        g->codes[i].lazy = true;
                else
                        g->codes[i].jit =
                            pcre2_jit_compile(g->codes[i].re, PCRE2_JIT_COMPLETE) == 0;
        }
        flags &= ~(unsigned)WARDER__GLOB_LAZY_JIT;
        if (display_len)
                memcpy(g->pattern, display, display_len);
        g->pattern[display_len] = '\0';
        g->len = display_len;
        g->flags = flags;
        *out = g;
        g = NULL;
out:
        for (size_t i = 0; bodies && i < n; i++)
                warder__buf_free(&bodies[i]);
        free(bodies);
        if (g)
                glob_release(g);
        return rc;
}

WARDER_API int warder_glob_compile(warder_glob **out, const char *pattern, size_t len,
                                   unsigned flags, struct warder_error *err)
{
        if (flags & WARDER__GLOB_LAZY_JIT) /* internal */
                return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        return warder__glob_compile(out, pattern, len, flags, err);
}

int warder__glob_compile(warder_glob **out, const char *pattern, size_t len, unsigned flags,
                         struct warder_error *err)
{
        if (!out || (!pattern && len) || (flags & ~KNOWN_FLAGS))
                return warder__glob_fail(err, WARDER_EINVAL, 0, "invalid argument");
        struct warder__glob_alts a;
        int rc = warder__glob_expand_alts(pattern, len, flags, &a, err);
        if (rc)
                return rc;
        const char **v = calloc(a.n, sizeof(*v));
        size_t *l = calloc(a.n, sizeof(*l));
        if (!v || !l) {
                rc = warder__glob_fail(err, WARDER_ENOMEM, 0, "out of memory");
        } else {
                for (size_t i = 0; i < a.n; i++) {
                        v[i] = a.v[i].data;
                        l[i] = a.v[i].len;
                }
                rc = warder__glob_compile_union(out, v, l, a.n, flags, pattern, len, err);
        }
        free(v);
        free(l);
        warder__glob_alts_free(&a);
        return rc;
}

/* ---- matching ---- */

/* Per-thread scratch: match data, a match context with limits, and a JIT stack. */
struct scratch {
        pcre2_match_data *md;
        pcre2_match_context *mc;
        pcre2_jit_stack *js;
};

/* Far above what any linear-time translation needs, far below a denial of service. */
#define MATCH_LIMIT     10000000u
#define DEPTH_LIMIT     100000u
#define HEAP_LIMIT_KIB  65536u
#define JIT_STACK_START (32 * 1024)
#define JIT_STACK_MAX   (1024 * 1024)

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ok;
static _Thread_local struct scratch *scratch_cache;

static void scratch_free(void *p)
{
        struct scratch *s = p;
        if (!s)
                return;
        pcre2_match_data_free(s->md);
        pcre2_match_context_free(s->mc);
        pcre2_jit_stack_free(s->js);
        free(s);
        scratch_cache = NULL;
}

static void scratch_init(void)
{
        scratch_key_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

static struct scratch *scratch_get(void)
{
        if (scratch_cache)
                return scratch_cache;
        if (pthread_once(&scratch_once, scratch_init) || !scratch_key_ok)
                return NULL;
        struct scratch *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->md = pcre2_match_data_create(1, NULL);
        s->mc = pcre2_match_context_create(NULL);
        s->js = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL);
        if (!s->md || !s->mc || pthread_setspecific(scratch_key, s)) {
                scratch_free(s);
                return NULL;
        }
        pcre2_set_match_limit(s->mc, MATCH_LIMIT);
        pcre2_set_depth_limit(s->mc, DEPTH_LIMIT);
        pcre2_set_heap_limit(s->mc, HEAP_LIMIT_KIB);
        if (s->js)
                pcre2_jit_stack_assign(s->mc, NULL, s->js);
        scratch_cache = s;
        return s;
}

/* Counts an interpreted match; the one that reaches LAZY_JIT_AFTER compiles and publishes
 * the JIT copy (a copy that cannot be JIT-compiled leaves the interpreter in charge). */
static void lazy_jit(struct glob_code *c)
{
        if (atomic_fetch_add_explicit(&c->uses, 1, memory_order_relaxed) + 1 != LAZY_JIT_AFTER)
                return;
        pcre2_code *copy = pcre2_code_copy(c->re);
        if (copy && pcre2_jit_compile(copy, PCRE2_JIT_COMPLETE) == 0)
                atomic_store_explicit(&c->jre, copy, memory_order_release);
        else
                pcre2_code_free(copy);
}

static int match_impl(const warder_glob *glob, const char *subject, size_t len, bool use_jit)
{
        if (!glob || (!subject && len))
                return WARDER_EINVAL;
        struct scratch *s = scratch_get();
        if (!s)
                return WARDER_ENOMEM;
        PCRE2_SPTR subj = (PCRE2_SPTR)(subject ? subject : "");
        int failed = 0;
        for (size_t i = 0; i < glob->ncodes; i++) {
                struct glob_code *c = &glob->codes[i];
                const pcre2_code *jre =
                    c->jit ? c->re : atomic_load_explicit(&c->jre, memory_order_acquire);
                int rc;
                if (jre && use_jit) {
                        rc = pcre2_jit_match(jre, subj, len, 0, 0, s->md, s->mc);
                } else {
                        if (c->lazy && use_jit)
                                lazy_jit(c);
                        rc = pcre2_match(c->re, subj, len, 0, PCRE2_NO_JIT, s->md, s->mc);
                }
                if (rc >= 0)
                        return 1;
                if (rc != PCRE2_ERROR_NOMATCH && !failed)
                        failed = rc == PCRE2_ERROR_NOMEMORY ? WARDER_ENOMEM : WARDER_ELIMIT;
        }
        /* §2.10: an engine error is never "no match"; the caller fails closed */
        return failed;
}

WARDER_API int warder_glob_match(const warder_glob *glob, const char *subject, size_t len)
{
        return match_impl(glob, subject, len, true);
}

int warder__glob_match_interpreted(const warder_glob *glob, const char *subject, size_t len)
{
        return match_impl(glob, subject, len, false);
}

WARDER_API const char *warder_glob_pattern(const warder_glob *glob, size_t *len)
{
        if (!glob) {
                if (len)
                        *len = 0;
                return NULL;
        }
        if (len)
                *len = glob->len;
        return glob->pattern;
}

WARDER_API unsigned warder_glob_flags(const warder_glob *glob)
{
        return glob ? glob->flags : 0;
}

WARDER_API void warder_glob_free(warder_glob *glob)
{
        if (!glob)
                return;
        glob_release(glob);
}
