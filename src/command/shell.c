/* SPDX-License-Identifier: MIT */
/*
 * The shell word splitter (§5.2, §5.7). A recursive-descent reader of the POSIX shell
 * grammar, lenient where leniency cannot hide a command (a stray `}` or `fi`) and strict where
 * it could (an unterminated quote or substitution stops the parse and is reported).
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"
#include "util.h"

/* ---- storage ------------------------------------------------------------------------------ */

struct arena_block {
        struct arena_block *next;
        size_t used, cap;
        char data[];
};

struct warder__sh_arena {
        struct arena_block *head;
};

static char *arena_dup(struct warder__sh_parse *p, const char *s, size_t n)
{
        if (!p->arena) {
                p->arena = calloc(1, sizeof(*p->arena));
                if (!p->arena)
                        return NULL;
        }
        struct arena_block *b = p->arena->head;
        if (!b || b->cap - b->used < n + 1) {
                size_t cap = n + 1 > 4096 ? n + 1 : 4096;
                b = malloc(sizeof(*b) + cap);
                if (!b)
                        return NULL;
                b->used = 0;
                b->cap = cap;
                b->next = p->arena->head;
                p->arena->head = b;
        }
        char *out = b->data + b->used;
        if (n)
                memcpy(out, s, n);
        out[n] = '\0';
        b->used += n + 1;
        return out;
}

#define GROW(arr, cap, need) warder__grow(&(arr), &(cap), (need), sizeof(*(arr)), 8)

void warder__sh_parse_free(struct warder__sh_parse *p)
{
        if (!p)
                return;
        free(p->segments);
        free(p->words);
        free(p->pieces);
        free(p->redirs);
        free(p->scope_parent);
        free(p->arith);
        if (p->arena) {
                struct arena_block *b = p->arena->head;
                while (b) {
                        struct arena_block *next = b->next;
                        free(b);
                        b = next;
                }
                free(p->arena);
        }
        memset(p, 0, sizeof(*p));
}

/* ---- parser state ------------------------------------------------------------------------- */

enum { STOP = 1 }; /* parsing stops; the reason is in out->status */

enum term { T_EOF, T_PAREN, T_BRACE, T_CASE };

struct heredoc {
        const char *delim;
        size_t len;
        bool quoted, strip;
};

#define MAX_PENDING_HEREDOCS 16

struct src {
        const char *s;
        size_t len, i;
        struct heredoc pending[MAX_PENDING_HEREDOCS];
        unsigned npending;
};

struct parser {
        struct warder__sh_parse *out;
        struct warder__sh_limits lim;
        unsigned depth;
        size_t words_seen;
        unsigned ctl, loop;
        bool saw_esac;
};

struct wordb {
        struct warder__buf text;
        struct warder__sh_piece *pc;
        size_t npc, cappc;
        uint32_t flags;
        size_t eq;      /* text length just after a leading `NAME=`, or 0 */
        bool name_only; /* the text so far is a valid NAME prefix, all unquoted */
};

struct pword {
        struct warder__sh_word w;
        struct warder__sh_piece *pc; /* pieces kept aside until the segment is flushed */
};

struct segb {
        struct warder__sh_word *w; /* pieces already in out->pieces */
        size_t nw, capw;
        struct warder__sh_word *rw; /* redirection targets */
        struct warder__sh_redir *r;
        size_t nr, capr, caprw;
        uint32_t scope;
        uint8_t op_before;
        bool ctl, loop;
};

static int fail(struct parser *P, unsigned flag, const char *why, size_t offset)
{
        if (!P->out->why) {
                P->out->why = why;
                P->out->offset = offset;
        }
        P->out->status |= flag;
        return STOP;
}

/* Records a problem like fail() but lets the parse go on (whatever it reads still counts). */
static void note(struct parser *P, unsigned flag, const char *why, size_t offset)
{
        (void)fail(P, flag, why, offset);
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* Byte classes: 1 ends a word (blank, newline, operator), 2 needs a closer look inside one. */
static const unsigned char byte_class[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1,  ['|'] = 1,
    ['('] = 1, [')'] = 1,  ['<'] = 1,  ['>'] = 1, ['\\'] = 2, ['\''] = 2,
    ['"'] = 2, ['$'] = 2,  ['`'] = 2,  ['~'] = 2, ['\0'] = 2,
};

static bool is_meta(char c)
{
        return byte_class[(unsigned char)c] == 1;
}

static bool is_name_start(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
        return is_name_start(c) || (c >= '0' && c <= '9');
}

static int new_scope(struct parser *P, uint32_t parent, uint32_t *out)
{
        struct warder__sh_parse *p = P->out;
        if (GROW(p->scope_parent, p->cap_scopes, (size_t)p->nscopes + 1))
                return WARDER_ENOMEM;
        p->scope_parent[p->nscopes] = parent;
        *out = p->nscopes++;
        return 0;
}

/* ---- word building ------------------------------------------------------------------------ */

static void wordb_reset(struct wordb *wb)
{
        warder__buf_truncate(&wb->text, 0);
        wb->npc = 0;
        wb->flags = 0;
        wb->eq = 0;
        wb->name_only = true;
}

static void wordb_free(struct wordb *wb)
{
        warder__buf_free(&wb->text);
        free(wb->pc);
}

static int add_piece(struct wordb *wb, uint8_t kind, bool quoted, const char *s, size_t n,
                     uint32_t name_skip, uint32_t name_len)
{
        if (GROW(wb->pc, wb->cappc, wb->npc + 1))
                return WARDER_ENOMEM;
        struct warder__sh_piece *pc = &wb->pc[wb->npc++];
        pc->kind = kind;
        pc->quoted = quoted;
        pc->off = (uint32_t)wb->text.len;
        pc->len = (uint32_t)n;
        pc->name_off = pc->off + name_skip;
        pc->name_len = name_len;
        wb->name_only = false;
        if (quoted)
                wb->flags |= WARDER__SH_W_QUOTED;
        return warder__buf_append(&wb->text, s, n);
}

static int add_lit(struct wordb *wb, const char *s, size_t n, bool quoted)
{
        if (n == 0)
                return 0;
        if (quoted) {
                wb->flags |= WARDER__SH_W_QUOTED;
                wb->name_only = false;
        }
        size_t len = wb->text.len;
        for (size_t k = 0; k < n; k++) {
                char c = s[k];
                if (!quoted && (c == '*' || c == '?' || c == '['))
                        wb->flags |= WARDER__SH_W_GLOB;
                if (wb->name_only) {
                        if (c == '=' && len + k > 0) {
                                wb->eq = len + k + 1;
                                wb->name_only = false;
                        } else if (!(len + k ? is_name_char(c) : is_name_start(c))) {
                                wb->name_only = false;
                        }
                }
        }
        struct warder__sh_piece *last = wb->npc ? &wb->pc[wb->npc - 1] : NULL;
        if (last && last->kind == WARDER__SH_LIT && last->quoted == quoted &&
            last->off + last->len == len) {
                last->len += (uint32_t)n;
        } else {
                if (GROW(wb->pc, wb->cappc, wb->npc + 1))
                        return WARDER_ENOMEM;
                struct warder__sh_piece *pc = &wb->pc[wb->npc++];
                memset(pc, 0, sizeof(*pc));
                pc->kind = WARDER__SH_LIT;
                pc->quoted = quoted;
                pc->off = (uint32_t)len;
                pc->len = (uint32_t)n;
        }
        return warder__buf_append(&wb->text, s, n);
}

/* An unquoted `{` followed by an unquoted `,` or `..` and then an unquoted `}`. */
static bool has_brace_expansion(const struct wordb *wb)
{
        int state = 0; /* 0: want `{`, 1: want separator, 2: want `}` */
        for (size_t k = 0; k < wb->npc; k++) {
                const struct warder__sh_piece *pc = &wb->pc[k];
                if (pc->kind != WARDER__SH_LIT || pc->quoted)
                        continue;
                const char *t = wb->text.data + pc->off;
                for (uint32_t j = 0; j < pc->len; j++) {
                        if (state == 0 && t[j] == '{')
                                state = 1;
                        else if (state == 1 && (t[j] == ',' || (t[j] == '.' && j + 1 < pc->len &&
                                                                t[j + 1] == '.')))
                                state = 2;
                        else if (state == 2 && t[j] == '}')
                                return true;
                }
        }
        return false;
}

/* ---- forward declarations ----------------------------------------------------------------- */

static int parse_list(struct parser *P, struct src *S, uint32_t scope, enum term term);
static int read_word(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope);

/* ---- quoting and expansions --------------------------------------------------------------- */

static int utf8_put(struct wordb *wb, unsigned long cp)
{
        char b[4];
        size_t n;
        if (cp < 0x80) {
                b[0] = (char)cp;
                n = 1;
        } else if (cp < 0x800) {
                b[0] = (char)(0xC0 | (cp >> 6));
                b[1] = (char)(0x80 | (cp & 0x3F));
                n = 2;
        } else if (cp < 0x10000) {
                b[0] = (char)(0xE0 | (cp >> 12));
                b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                b[2] = (char)(0x80 | (cp & 0x3F));
                n = 3;
        } else {
                if (cp > 0x10FFFF)
                        cp = 0xFFFD;
                b[0] = (char)(0xF0 | (cp >> 18));
                b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                b[3] = (char)(0x80 | (cp & 0x3F));
                n = 4;
        }
        return add_lit(wb, b, n, true);
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* $'…' (bash, zsh, ksh; POSIX 2024): s[i] is the opening quote. */
static int parse_ansi_c(struct parser *P, struct src *S, struct wordb *wb)
{
        size_t start = S->i - 1;
        S->i++;
        bool cut = false; /* a NUL ends the string (the rest is dropped, as bash does) */
        wb->flags |= WARDER__SH_W_QUOTED;
        while (S->i < S->len && S->s[S->i] != '\'') {
                char c = S->s[S->i++];
                if (c != '\\' || S->i >= S->len) {
                        if (!cut && add_lit(wb, &c, 1, true))
                                return WARDER_ENOMEM;
                        continue;
                }
                char e = S->s[S->i++];
                unsigned long v = 0;
                int rc = 0;
                bool put_byte = true;
                switch (e) {
                case 'a':
                        v = 7;
                        break;
                case 'b':
                        v = 8;
                        break;
                case 'e':
                case 'E':
                        v = 27;
                        break;
                case 'f':
                        v = 12;
                        break;
                case 'n':
                        v = 10;
                        break;
                case 'r':
                        v = 13;
                        break;
                case 't':
                        v = 9;
                        break;
                case 'v':
                        v = 11;
                        break;
                case '\\':
                case '\'':
                case '"':
                case '?':
                        v = (unsigned char)e;
                        break;
                case 'c':
                        if (S->i < S->len) {
                                v = (unsigned char)S->s[S->i++] & 0x1F;
                        } else {
                                v = '\\';
                                if (!cut)
                                        rc = add_lit(wb, "\\", 1, true);
                                v = 'c';
                        }
                        break;
                case 'x':
                case 'u':
                case 'U': {
                        int max = e == 'x' ? 2 : e == 'u' ? 4 : 8, n = 0;
                        while (n < max && S->i < S->len && hexval(S->s[S->i]) >= 0) {
                                v = v * 16 + (unsigned long)hexval(S->s[S->i++]);
                                n++;
                        }
                        if (n == 0) {
                                if (!cut)
                                        rc = add_lit(wb, "\\", 1, true);
                                v = (unsigned char)e;
                        } else if (e != 'x') {
                                put_byte = false;
                                if (v == 0)
                                        cut = true;
                                else if (!cut)
                                        rc = utf8_put(wb, v);
                        }
                        break;
                }
                default:
                        if (e >= '0' && e <= '7') {
                                v = (unsigned long)(e - '0');
                                for (int n = 1; n < 3 && S->i < S->len && S->s[S->i] >= '0' &&
                                                S->s[S->i] <= '7';
                                     n++)
                                        v = v * 8 + (unsigned long)(S->s[S->i++] - '0');
                                v &= 0xFF;
                        } else {
                                if (!cut)
                                        rc = add_lit(wb, "\\", 1, true);
                                v = (unsigned char)e;
                        }
                        break;
                }
                if (rc)
                        return rc;
                if (put_byte) {
                        if (v == 0)
                                cut = true;
                        char b = (char)v;
                        if (!cut && add_lit(wb, &b, 1, true))
                                return WARDER_ENOMEM;
                }
        }
        if (S->i >= S->len)
                return fail(P, WARDER__SH_UNPARSEABLE, "unterminated $'…' string", start);
        S->i++;
        return 0;
}

static int parse_dquote(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope);

/* Backticks: s[i] is the opening backtick. The body is unescaped and parsed as its own
 * command list in a new subshell scope. */
static int parse_backtick(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope,
                          bool in_dq)
{
        size_t start = S->i++;
        struct warder__buf body = WARDER__BUF_INIT;
        int rc = 0;
        while (S->i < S->len && S->s[S->i] != '`') {
                char c = S->s[S->i];
                if (c == '\\' && S->i + 1 < S->len) {
                        char n = S->s[S->i + 1];
                        if (n == '`' || n == '$' || n == '\\' || (in_dq && n == '"')) {
                                rc = warder__buf_putc(&body, n);
                                S->i += 2;
                        } else if (n == '\n') {
                                S->i += 2;
                        } else {
                                rc = warder__buf_append(&body, S->s + S->i, 2);
                                S->i += 2;
                        }
                } else {
                        rc = warder__buf_putc(&body, c);
                        S->i++;
                }
                if (rc)
                        goto out;
        }
        if (S->i >= S->len) {
                rc = fail(P, WARDER__SH_UNPARSEABLE, "unterminated backtick substitution", start);
                goto out;
        }
        S->i++;
        uint32_t sc;
        if ((rc = new_scope(P, scope, &sc)))
                goto out;
        struct src inner = {.s = body.data ? body.data : "", .len = body.len, .i = 0};
        rc = parse_list(P, &inner, sc, T_EOF);
        if (rc == 0) {
                wb->flags |= WARDER__SH_W_SUBST;
                rc = add_piece(wb, WARDER__SH_SUBST, in_dq, S->s + start, S->i - start, 0, 0);
        }
out:
        warder__buf_free(&body);
        return rc;
}

/* Skips a quoted region inside ${…} or $((…)) without building a word, parsing any
 * substitution inside it. s[i] is the quote. */
static int skip_quoted(struct parser *P, struct src *S, uint32_t scope);
static int parse_dollar(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope,
                        bool in_dq);

static int parse_procsubst(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope);

/* Reads the process substitution at s[i] (`<(` or `>(`) for its commands, then goes back to
 * s[i]: the text is read again as the word it also is. A reading that fails is dropped
 * unless a limit stopped it. */
static int tentative_procsubst(struct parser *P, struct src *S, uint32_t scope)
{
        struct warder__sh_parse *p = P->out;
        size_t at = S->i, offset = p->offset;
        unsigned status = p->status, npending = S->npending;
        const char *why = p->why;
        struct wordb scratch = {0};
        wordb_reset(&scratch);
        int rc = parse_procsubst(P, S, &scratch, scope);
        wordb_free(&scratch);
        if (rc == STOP && !(p->status & WARDER__SH_LIMIT)) {
                p->status = status;
                p->why = why;
                p->offset = offset;
                rc = 0;
        }
        S->i = at;
        S->npending = npending;
        return rc;
}

/* What a scan of nested text reads: ${…}, the body of $((…)), or the body of $[…]. */
enum nest { NEST_PARAM, NEST_ARITH, NEST_BRACKET };

/* Records an arithmetic context (§5.5.2): text a shell evaluates as an expression. */
static int add_arith(struct parser *P, const char *s, size_t n)
{
        struct warder__sh_parse *p = P->out;
        if (GROW(p->arith, p->cap_arith, p->narith + 1))
                return WARDER_ENOMEM;
        const char *t = arena_dup(p, s, n);
        if (!t)
                return WARDER_ENOMEM;
        p->arith[p->narith].text = t;
        p->arith[p->narith].len = (uint32_t)n;
        p->narith++;
        return 0;
}

/* The end (index of the matching `]`) of the subscript that opens at s[i] == '[', or 0. */
static size_t subscript_end(const struct src *S, size_t i)
{
        int depth = 0;
        for (; i < S->len; i++) {
                char c = S->s[i];
                if (c == '\\')
                        i++;
                else if (c == '[')
                        depth++;
                else if (c == ']' && --depth == 0)
                        return i;
                else if (c == '}')
                        return 0;
        }
        return 0;
}

/* The kind of word after the parameter of ${…} (§5.5.1, §5.5.2). */
enum param_kind {
        PW_NONE,  /* ${x}, ${#x} */
        PW_VALUE, /* - = + ? (with or without a colon): read with double-quote rules in "…" */
        PW_ARITH, /* ${x:offset[:length]}: an arithmetic expression */
        PW_OTHER, /* patterns (# % / …): quotes inside are quotes */
};

/* S->i is just after `${`. Classifies the word, records a subscript as an arithmetic
 * context and returns where the word starts (*word). */
static int param_word(struct parser *P, const struct src *S, enum param_kind *kind, size_t *word)
{
        const char *s = S->s;
        size_t k = S->i, n = S->len;
        if (k + 1 < n && (s[k] == '#' || s[k] == '!') && s[k + 1] != '}')
                k++;
        if (k < n && is_name_start(s[k])) {
                while (k < n && is_name_char(s[k]))
                        k++;
        } else if (k < n && s[k] >= '0' && s[k] <= '9') {
                while (k < n && s[k] >= '0' && s[k] <= '9')
                        k++;
        } else if (k < n && strchr("@*#?-$!", s[k]) && s[k]) {
                k++;
        }
        if (k < n && s[k] == '[') {
                size_t e = subscript_end(S, k);
                if (e) {
                        int rc = add_arith(P, s + k + 1, e - k - 1);
                        if (rc)
                                return rc;
                        k = e + 1;
                }
        }
        *kind = PW_OTHER;
        if (k >= n || s[k] == '}') {
                *kind = PW_NONE;
        } else if (s[k] == ':' && k + 1 < n && strchr("-=+?", s[k + 1]) && s[k + 1]) {
                *kind = PW_VALUE;
                k += 2;
        } else if (s[k] == ':') {
                *kind = PW_ARITH;
                k++;
        } else if (strchr("-=+?", s[k])) {
                *kind = PW_VALUE;
                k++;
        }
        *word = k;
        return 0;
}

/* Scans ${…} (s[i] is the `{`), the body of $((…)) or of $[…], recording substitutions
 * inside as segments and arithmetic contexts (§5.5.2). `in_dq`: the text is inside double
 * quotes, where the word of ${x-…}, ${x=…}, ${x+…} and ${x?…} is read with double-quote rules
 * (§5.5.1: a `'` there is an ordinary character). Returns with S->i after the closer. */
static int scan_nested(struct parser *P, struct src *S, uint32_t scope, enum nest mode, bool in_dq,
                       size_t start)
{
        if (++P->depth > P->lim.max_depth)
                return fail(P, WARDER__SH_LIMIT, "nesting too deep", S->i);
        struct wordb scratch = {0};
        wordb_reset(&scratch);
        bool arith = mode != NEST_PARAM;
        char open = mode == NEST_PARAM ? '{' : mode == NEST_ARITH ? '(' : '[';
        char close = mode == NEST_PARAM ? '}' : mode == NEST_ARITH ? ')' : ']';
        int depth = mode == NEST_ARITH ? 2 : 1, rc = 0;
        enum param_kind kind = PW_NONE;
        size_t body = S->i, word = 0;
        if (mode == NEST_PARAM) {
                S->i++;
                rc = param_word(P, S, &kind, &word);
        }
        bool dq_word = in_dq && kind == PW_VALUE;
        while (rc == 0) {
                if (S->i >= S->len) {
                        rc = fail(P, WARDER__SH_UNPARSEABLE,
                                  mode == NEST_ARITH     ? "unterminated $((…))"
                                  : mode == NEST_BRACKET ? "unterminated $[…]"
                                                         : "unterminated ${…}",
                                  start);
                        break;
                }
                char c = S->s[S->i];
                if (c == '\\') {
                        S->i += S->i + 1 < S->len ? 2 : 1;
                } else if (c == '\'' && dq_word && S->i >= word) {
                        /* An ordinary character for dash (and for bash after - = +): what lies
                         * up to the next one is read with double-quote rules, so a `$( … )`
                         * there runs. bash reads the pair as quotes after `?`, and ends the
                         * expansion at a `}` between them only for dash: where that changes
                         * how the rest of the line is read, the line cannot be decided. */
                        const char *end = memchr(S->s + S->i + 1, '\'', S->len - S->i - 1);
                        const char *risky = S->s[word - 1] == '?' ? "}\"\\`$" : "}";
                        for (const char *q = S->s + S->i + 1; end && q < end; q++)
                                if (strchr(risky, *q)) {
                                        note(P, WARDER__SH_UNPARSEABLE,
                                             "a `'` inside \"${…}\" that dash and bash read "
                                             "differently",
                                             S->i);
                                        break;
                                }
                        S->i++;
                } else if (c == '\'' && !arith) {
                        rc = skip_quoted(P, S, scope);
                } else if (c == '"') {
                        rc = skip_quoted(P, S, scope);
                } else if (c == '$' || c == '`') {
                        if (c == '`')
                                rc = parse_backtick(P, S, &scratch, scope, in_dq);
                        else
                                rc = parse_dollar(P, S, &scratch, scope, in_dq);
                        wordb_reset(&scratch);
                } else if (mode == NEST_PARAM && (c == '<' || c == '>') && S->i + 1 < S->len &&
                           S->s[S->i + 1] == '(') {
                        /* bash performs a process substitution in the word of ${x+…} (and
                         * inside double quotes after # % ?), dash reads it as text: both
                         * readings count, the first one tentatively */
                        rc = tentative_procsubst(P, S, scope);
                        S->i++;
                } else if (c == open) {
                        depth++;
                        S->i++;
                } else if (c == close) {
                        S->i++;
                        if (--depth == 0)
                                break;
                } else {
                        S->i++;
                }
        }
        if (rc == 0 && mode != NEST_PARAM)
                rc = add_arith(P, S->s + body, S->i - body - (mode == NEST_ARITH ? 2 : 1));
        else if (rc == 0 && kind == PW_ARITH)
                rc = add_arith(P, S->s + word, S->i - 1 - word);
        wordb_free(&scratch);
        P->depth--;
        return rc;
}

static int skip_quoted(struct parser *P, struct src *S, uint32_t scope)
{
        struct wordb scratch = {0};
        wordb_reset(&scratch);
        int rc;
        if (S->s[S->i] == '\'') {
                const char *end = memchr(S->s + S->i + 1, '\'', S->len - S->i - 1);
                if (!end)
                        rc = fail(P, WARDER__SH_UNPARSEABLE, "unterminated single quote", S->i);
                else
                        S->i = (size_t)(end - S->s) + 1, rc = 0;
        } else {
                rc = parse_dquote(P, S, &scratch, scope);
        }
        wordb_free(&scratch);
        return rc;
}

/* Whether s[i] (just after `$((` or `((`) starts an arithmetic expansion or command rather
 * than a substitution or subshell that opens with a subshell: its parentheses, matched the
 * way bash matches them (quoted text skipped), must close with `))` (a `;` is allowed only in
 * a `command`: `for ((i = 0; i < 3; i++))`). Returns the index of that `))`, or 0. */
static size_t arithmetic_end(const struct src *S, size_t i, bool command)
{
        int depth = 2;
        for (; i < S->len; i++) {
                char c = S->s[i];
                if (c == ';' && !command)
                        return 0;
                if (c == '\\') {
                        i++;
                } else if (c == '\'' || c == '`') {
                        const char *end = memchr(S->s + i + 1, c, S->len - i - 1);
                        if (!end)
                                return 0;
                        i = (size_t)(end - S->s);
                } else if (c == '"') {
                        for (i++; i < S->len && S->s[i] != '"'; i++)
                                if (S->s[i] == '\\')
                                        i++;
                        if (i >= S->len)
                                return 0;
                } else if (c == '(') {
                        depth++;
                } else if (c == ')') {
                        if (depth == 2)
                                return i + 1 < S->len && S->s[i + 1] == ')' ? i : 0;
                        depth--;
                }
        }
        return 0;
}

/* s[i] is `$`. */
static int parse_dollar(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope,
                        bool in_dq)
{
        size_t start = S->i;
        if (S->i + 1 >= S->len) {
                S->i++;
                return add_lit(wb, "$", 1, in_dq);
        }
        char n = S->s[S->i + 1];
        if (n == '\'' && !in_dq) {
                S->i++;
                return parse_ansi_c(P, S, wb);
        }
        if (n == '"' && !in_dq) {
                S->i++;
                return parse_dquote(P, S, wb, scope);
        }
        if (n == '{') {
                S->i++;
                size_t open = S->i;
                int rc = scan_nested(P, S, scope, NEST_PARAM, in_dq, start);
                if (rc)
                        return rc;
                /* ${NAME} is a plain variable; anything else (${#x}, ${x:-y}, ${1}) is not. */
                size_t nlen = S->i - open - 2;
                const char *name = S->s + open + 1;
                bool plain = nlen > 0 && is_name_start(name[0]);
                for (size_t k = 1; plain && k < nlen; k++)
                        plain = is_name_char(name[k]);
                bool subst = memchr(name, '$', nlen) || memchr(name, '`', nlen);
                if (subst)
                        wb->flags |= WARDER__SH_W_SUBST;
                if (plain) {
                        wb->flags |= WARDER__SH_W_VAR;
                        return add_piece(wb, WARDER__SH_VAR, in_dq, S->s + start, S->i - start, 2,
                                         (uint32_t)nlen);
                }
                wb->flags |= WARDER__SH_W_SPECIAL;
                return add_piece(wb, WARDER__SH_SPECIAL, in_dq, S->s + start, S->i - start, 0, 0);
        }
        if (n == '(') {
                int rc;
                if (S->i + 2 < S->len && S->s[S->i + 2] == '(' &&
                    arithmetic_end(S, S->i + 3, false)) {
                        S->i += 3;
                        rc = scan_nested(P, S, scope, NEST_ARITH, in_dq, start);
                } else {
                        S->i += 2;
                        uint32_t sc;
                        if ((rc = new_scope(P, scope, &sc)))
                                return rc;
                        rc = parse_list(P, S, sc, T_PAREN);
                }
                if (rc)
                        return rc;
                wb->flags |= WARDER__SH_W_SUBST;
                return add_piece(wb, WARDER__SH_SUBST, in_dq, S->s + start, S->i - start, 0, 0);
        }
        if (n == '[') { /* $[ … ]: bash's old arithmetic expansion */
                S->i += 2;
                int rc = scan_nested(P, S, scope, NEST_BRACKET, in_dq, start);
                if (rc)
                        return rc;
                wb->flags |= WARDER__SH_W_SUBST;
                return add_piece(wb, WARDER__SH_SUBST, in_dq, S->s + start, S->i - start, 0, 0);
        }
        if (is_name_start(n)) {
                size_t k = S->i + 1;
                while (k < S->len && is_name_char(S->s[k]))
                        k++;
                S->i = k;
                wb->flags |= WARDER__SH_W_VAR;
                return add_piece(wb, WARDER__SH_VAR, in_dq, S->s + start, k - start, 1,
                                 (uint32_t)(k - start - 1));
        }
        if ((n >= '0' && n <= '9') || strchr("@*#?-$!", n)) {
                S->i += 2;
                wb->flags |= WARDER__SH_W_SPECIAL;
                return add_piece(wb, WARDER__SH_SPECIAL, in_dq, S->s + start, 2, 0, 0);
        }
        S->i++;
        return add_lit(wb, "$", 1, in_dq);
}

/* s[i] is the opening double quote. */
static int parse_dquote(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope)
{
        size_t start = S->i++;
        wb->flags |= WARDER__SH_W_QUOTED;
        wb->name_only = false;
        while (S->i < S->len && S->s[S->i] != '"') {
                char c = S->s[S->i];
                int rc = 0;
                if (c == '\\' && S->i + 1 < S->len) {
                        char n = S->s[S->i + 1];
                        if (n == '\n') {
                                S->i += 2;
                                continue;
                        }
                        if (n == '$' || n == '`' || n == '"' || n == '\\') {
                                rc = add_lit(wb, &n, 1, true);
                                S->i += 2;
                        } else {
                                rc = add_lit(wb, "\\", 1, true);
                                S->i++;
                        }
                } else if (c == '$') {
                        rc = parse_dollar(P, S, wb, scope, true);
                } else if (c == '`') {
                        rc = parse_backtick(P, S, wb, scope, true);
                } else {
                        rc = add_lit(wb, &c, 1, true);
                        S->i++;
                }
                if (rc)
                        return rc;
        }
        if (S->i >= S->len)
                return fail(P, WARDER__SH_UNPARSEABLE, "unterminated double quote", start);
        S->i++;
        return 0;
}

/* s[i] is an unquoted `~` in a position where the shell expands it. */
static int parse_tilde(struct wordb *wb, struct src *S)
{
        size_t k = S->i + 1;
        while (k < S->len && !is_meta(S->s[k]) && S->s[k] != '/' && S->s[k] != ':')
                k++;
        const char *t = S->s + S->i;
        size_t n = k - S->i;
        for (size_t j = 1; j < n; j++) {
                char c = t[j];
                if (c == '\'' || c == '"' || c == '\\' || c == '$' || c == '`' || c == '*' ||
                    c == '?' || c == '[') {
                        /* a quoted or expanded tilde-prefix is not expanded: a literal `~` */
                        S->i++;
                        return add_lit(wb, "~", 1, false);
                }
        }
        S->i = k;
        wb->flags |= WARDER__SH_W_TILDE;
        return add_piece(wb, n == 1 ? WARDER__SH_TILDE : WARDER__SH_TILDE_USER, false, t, n, 0, 0);
}

static int read_word(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope)
{
        wordb_reset(wb);
        while (S->i < S->len) {
                char c = S->s[S->i];
                if (is_meta(c))
                        break;
                int rc = 0;
                if (c == '\\') {
                        if (S->i + 1 >= S->len) {
                                rc = add_lit(wb, "\\", 1, false);
                                S->i++;
                        } else if (S->s[S->i + 1] == '\n') {
                                S->i += 2;
                        } else {
                                rc = add_lit(wb, S->s + S->i + 1, 1, true);
                                S->i += 2;
                        }
                } else if (c == '\'') {
                        const char *end = memchr(S->s + S->i + 1, '\'', S->len - S->i - 1);
                        if (!end)
                                return fail(P, WARDER__SH_UNPARSEABLE, "unterminated single quote",
                                            S->i);
                        wb->flags |= WARDER__SH_W_QUOTED;
                        wb->name_only = false;
                        rc = add_lit(wb, S->s + S->i + 1, (size_t)(end - S->s) - S->i - 1, true);
                        S->i = (size_t)(end - S->s) + 1;
                } else if (c == '"') {
                        rc = parse_dquote(P, S, wb, scope);
                } else if (c == '$') {
                        rc = parse_dollar(P, S, wb, scope, false);
                } else if (c == '`') {
                        rc = parse_backtick(P, S, wb, scope, false);
                } else if (c == '~' && (wb->text.len == 0 || (wb->eq && wb->text.len == wb->eq) ||
                                        (wb->eq && wb->text.data[wb->text.len - 1] == ':' &&
                                         wb->npc && wb->pc[wb->npc - 1].kind == WARDER__SH_LIT &&
                                         !wb->pc[wb->npc - 1].quoted))) {
                        rc = parse_tilde(wb, S);
                } else {
                        /* a run of plain bytes at once */
                        size_t k = S->i + 1;
                        while (k < S->len && byte_class[(unsigned char)S->s[k]] == 0)
                                k++;
                        rc = add_lit(wb, S->s + S->i, k - S->i, false);
                        S->i = k;
                }
                if (rc)
                        return rc;
        }
        if (has_brace_expansion(wb))
                wb->flags |= WARDER__SH_W_BRACE;
        return 0;
}

/* ---- segments ----------------------------------------------------------------------------- */

static void segb_init(struct segb *sb, uint32_t scope)
{
        memset(sb, 0, sizeof(*sb));
        sb->scope = scope;
        sb->op_before = WARDER__SH_OP_END;
}

static void segb_free(struct segb *sb)
{
        free(sb->w);
        free(sb->rw);
        free(sb->r);
}

/* Moves the built word into the global arrays (pieces now, the word itself into `dst`). */
static int finish_word(struct parser *P, struct wordb *wb, struct warder__sh_word *dst)
{
        struct warder__sh_parse *p = P->out;
        if (++P->words_seen > P->lim.max_words)
                return fail(P, WARDER__SH_LIMIT, "too many words", 0);
        if (GROW(p->pieces, p->cap_pieces, p->npieces + wb->npc))
                return WARDER_ENOMEM;
        const char *text = arena_dup(p, wb->text.data ? wb->text.data : "", wb->text.len);
        if (!text)
                return WARDER_ENOMEM;
        if (wb->npc)
                memcpy(p->pieces + p->npieces, wb->pc, wb->npc * sizeof(*wb->pc));
        dst->text = text;
        dst->len = (uint32_t)wb->text.len;
        dst->flags = wb->flags;
        dst->first_piece = (uint32_t)p->npieces;
        dst->npieces = (uint32_t)wb->npc;
        p->npieces += wb->npc;
        return 0;
}

static int segb_add_word(struct parser *P, struct segb *sb, struct wordb *wb)
{
        if (sb->nw == 0 && sb->nr == 0) {
                sb->ctl = P->ctl > 0;
                sb->loop = P->loop > 0;
        }
        if (GROW(sb->w, sb->capw, sb->nw + 1))
                return WARDER_ENOMEM;
        int rc = finish_word(P, wb, &sb->w[sb->nw]);
        if (rc == 0)
                sb->nw++;
        return rc;
}

/* Ends the segment being built (if it has anything) with operator `op`. */
static int flush(struct parser *P, struct segb *sb, uint8_t op)
{
        struct warder__sh_parse *p = P->out;
        if (sb->nw == 0 && sb->nr == 0) {
                sb->op_before = op;
                return 0;
        }
        if (p->nsegments >= P->lim.max_segments) {
                sb->nw = sb->nr = 0;
                return fail(P, WARDER__SH_LIMIT, "too many commands", 0);
        }
        if (GROW(p->segments, p->cap_segments, p->nsegments + 1) ||
            GROW(p->words, p->cap_words, p->nwords + sb->nw + sb->nr) ||
            GROW(p->redirs, p->cap_redirs, p->nredirs + sb->nr))
                return WARDER_ENOMEM;
        struct warder__sh_segment *seg = &p->segments[p->nsegments++];
        seg->first_word = (uint32_t)p->nwords;
        seg->nwords = (uint32_t)sb->nw;
        if (sb->nw)
                memcpy(p->words + p->nwords, sb->w, sb->nw * sizeof(*sb->w));
        p->nwords += sb->nw;
        seg->first_redir = (uint32_t)p->nredirs;
        seg->nredirs = (uint32_t)sb->nr;
        for (size_t k = 0; k < sb->nr; k++) {
                p->words[p->nwords] = sb->rw[k];
                p->redirs[p->nredirs] = sb->r[k];
                p->redirs[p->nredirs].word = (uint32_t)p->nwords;
                p->nwords++;
                p->nredirs++;
        }
        seg->scope = sb->scope;
        seg->op_before = sb->op_before;
        seg->op_after = op;
        seg->ctl = sb->ctl;
        seg->loop = sb->loop;
        sb->nw = sb->nr = 0;
        sb->op_before = op;
        return 0;
}

static bool all_digits(const struct warder__sh_word *w)
{
        if (w->len == 0 || (w->flags & ~WARDER__SH_W_QUOTED))
                return false;
        for (uint32_t k = 0; k < w->len; k++)
                if (w->text[k] < '0' || w->text[k] > '9')
                        return false;
        return true;
}

/* A process substitution `<( … )` / `>( … )`: s[i] is `<` or `>`, s[i+1] is `(`. */
static int parse_procsubst(struct parser *P, struct src *S, struct wordb *wb, uint32_t scope)
{
        wordb_reset(wb);
        size_t start = S->i;
        S->i += 2;
        uint32_t sc;
        int rc = new_scope(P, scope, &sc);
        if (!rc)
                rc = parse_list(P, S, sc, T_PAREN);
        if (rc)
                return rc;
        wb->flags |= WARDER__SH_W_SUBST | WARDER__SH_W_PROCSUBST;
        return add_piece(wb, WARDER__SH_SUBST, false, S->s + start, S->i - start, 0, 0);
}

static int parse_redirect(struct parser *P, struct src *S, struct segb *sb, struct wordb *wb,
                          int fd)
{
        const char *s = S->s;
        size_t i = S->i, start = S->i;
        uint8_t kind;
        bool dup = false, heredoc_strip = false;
        char c = s[i];
        char n1 = i + 1 < S->len ? s[i + 1] : 0, n2 = i + 2 < S->len ? s[i + 2] : 0;
        if (c == '&') { /* &> and &>> */
                kind = WARDER__SH_R_OUT;
                i += n2 == '>' ? 3 : 2;
        } else if (c == '<') {
                if (n1 == '<' && n2 == '<') {
                        kind = WARDER__SH_R_HERESTR;
                        i += 3;
                } else if (n1 == '<') {
                        kind = WARDER__SH_R_HEREDOC;
                        heredoc_strip = n2 == '-';
                        i += heredoc_strip ? 3 : 2;
                } else if (n1 == '>') {
                        kind = WARDER__SH_R_INOUT;
                        i += 2;
                } else if (n1 == '&') {
                        kind = WARDER__SH_R_IN;
                        dup = true;
                        i += 2;
                } else {
                        kind = WARDER__SH_R_IN;
                        i += 1;
                }
        } else {
                kind = WARDER__SH_R_OUT;
                if (n1 == '>' || n1 == '|') {
                        i += 2;
                } else if (n1 == '&') {
                        dup = true;
                        i += 2;
                } else {
                        i += 1;
                }
        }
        while (i < S->len && is_blank(s[i]))
                i++;
        S->i = i;
        int rc;
        if (i + 1 < S->len && (s[i] == '<' || s[i] == '>') && s[i + 1] == '(')
                rc = parse_procsubst(P, S, wb, sb->scope);
        else if (i >= S->len || is_meta(s[i]))
                return fail(P, WARDER__SH_UNPARSEABLE, "redirection without a target", start);
        else
                rc = read_word(P, S, wb, sb->scope);
        if (rc)
                return rc;
        if (sb->nw == 0 && sb->nr == 0) {
                sb->ctl = P->ctl > 0;
                sb->loop = P->loop > 0;
        }
        if (GROW(sb->rw, sb->caprw, sb->nr + 1) || GROW(sb->r, sb->capr, sb->nr + 1))
                return WARDER_ENOMEM;
        struct warder__sh_word *w = &sb->rw[sb->nr];
        if ((rc = finish_word(P, wb, w)))
                return rc;
        if (dup && (all_digits(w) || (w->len == 1 && w->text[0] == '-' && w->flags == 0)))
                kind = WARDER__SH_R_DUP;
        if (kind == WARDER__SH_R_HEREDOC) {
                struct src *hs = S;
                if (hs->npending >= MAX_PENDING_HEREDOCS)
                        return fail(P, WARDER__SH_LIMIT, "too many here-documents", start);
                struct heredoc *h = &hs->pending[hs->npending++];
                h->delim = w->text;
                h->len = w->len;
                h->quoted = (w->flags & WARDER__SH_W_QUOTED) != 0;
                h->strip = heredoc_strip;
                if (w->flags & (WARDER__SH_W_VAR | WARDER__SH_W_SPECIAL | WARDER__SH_W_SUBST))
                        return fail(P, WARDER__SH_UNPARSEABLE,
                                    "here-document delimiter with an expansion", start);
        }
        sb->r[sb->nr].kind = kind;
        sb->r[sb->nr].fd = fd;
        sb->r[sb->nr].word = 0;
        sb->nr++;
        return 0;
}

/* Reads the bodies of pending here-documents after a newline. */
static int read_heredocs(struct parser *P, struct src *S, uint32_t scope)
{
        for (unsigned k = 0; k < S->npending; k++) {
                const struct heredoc *h = &S->pending[k];
                size_t body = S->i;
                for (;;) {
                        if (S->i >= S->len) {
                                /* Shells accept the end of input as the end of the body; a line
                                 * meant as the delimiter may have been glued to a command
                                 * (`EOF; cat x`). Fail closed: at least ask, and read the body
                                 * as commands too, so nothing in it can hide. */
                                S->npending = 0;
                                fail(P, WARDER__SH_UNPARSEABLE,
                                     "here-document without its end line", body);
                                uint32_t sc;
                                int rc = new_scope(P, scope, &sc);
                                if (rc)
                                        return rc;
                                struct src inner = {.s = S->s + body, .len = S->len - body, .i = 0};
                                rc = parse_list(P, &inner, sc, T_EOF);
                                return rc < 0 ? rc : 0;
                        }
                        const char *line = S->s + S->i;
                        const char *nl = memchr(line, '\n', S->len - S->i);
                        size_t n = nl ? (size_t)(nl - line) : S->len - S->i;
                        size_t next = S->i + n + (nl ? 1 : 0);
                        const char *l = line;
                        size_t ln = n;
                        if (h->strip)
                                while (ln && *l == '\t')
                                        l++, ln--;
                        S->i = next;
                        if (ln == h->len && memcmp(l, h->delim, ln) == 0)
                                break;
                        if (!h->quoted && (memchr(l, '`', ln) || memmem(l, ln, "$(", 2)))
                                fail(P, WARDER__SH_HEREDOC,
                                     "here-document with a command substitution",
                                     (size_t)(line - S->s));
                }
        }
        S->npending = 0;
        return 0;
}

static bool word_is(const struct wordb *wb, const char *kw)
{
        return wb->flags == 0 && wb->text.len == strlen(kw) &&
               memcmp(wb->text.data, kw, wb->text.len) == 0;
}

static void skip_blanks(struct src *S)
{
        while (S->i < S->len) {
                char c = S->s[S->i];
                if (is_blank(c))
                        S->i++;
                else if (c == '\\' && S->i + 1 < S->len && S->s[S->i + 1] == '\n')
                        S->i += 2;
                else
                        break;
        }
}

/* Skips blanks, newlines and comments (where a case item may start). */
static int skip_space(struct parser *P, struct src *S, uint32_t scope)
{
        for (;;) {
                skip_blanks(S);
                if (S->i >= S->len)
                        return 0;
                char c = S->s[S->i];
                if (c == '#') {
                        while (S->i < S->len && S->s[S->i] != '\n')
                                S->i++;
                } else if (c == '\n') {
                        S->i++;
                        int rc = read_heredocs(P, S, scope);
                        if (rc)
                                return rc;
                } else {
                        return 0;
                }
        }
}

/* `case WORD in [(]PAT[|PAT]…) LIST ;; … esac`, after the word `case`. Substitutions in the
 * subject and the patterns are recorded; the patterns themselves are not commands. */
static int parse_case(struct parser *P, struct src *S, uint32_t scope, struct wordb *wb)
{
        size_t start = S->i;
        skip_blanks(S);
        int rc = read_word(P, S, wb, scope);
        if (rc)
                return rc;
        if ((rc = skip_space(P, S, scope)))
                return rc;
        if ((rc = read_word(P, S, wb, scope)))
                return rc;
        if (!word_is(wb, "in"))
                return fail(P, WARDER__SH_UNPARSEABLE, "`case` without `in`", start);
        P->ctl++;
        for (;;) {
                if ((rc = skip_space(P, S, scope)))
                        return rc;
                if (S->i >= S->len)
                        return fail(P, WARDER__SH_UNPARSEABLE, "`case` without `esac`", start);
                if (S->s[S->i] == '(')
                        S->i++;
                skip_blanks(S);
                if ((rc = read_word(P, S, wb, scope)))
                        return rc;
                if (word_is(wb, "esac"))
                        break;
                for (;;) {
                        skip_blanks(S);
                        if (S->i < S->len && S->s[S->i] == '|') {
                                S->i++;
                                skip_blanks(S);
                                if ((rc = read_word(P, S, wb, scope)))
                                        return rc;
                                continue;
                        }
                        break;
                }
                if (S->i >= S->len || S->s[S->i] != ')')
                        return fail(P, WARDER__SH_UNPARSEABLE, "malformed `case` pattern", S->i);
                S->i++;
                P->saw_esac = false;
                if ((rc = parse_list(P, S, scope, T_CASE)))
                        return rc;
                if (P->saw_esac)
                        break;
        }
        P->saw_esac = false;
        if (P->ctl)
                P->ctl--;
        return 0;
}

static int parse_list(struct parser *P, struct src *S, uint32_t scope, enum term term)
{
        size_t start = S->i;
        if (++P->depth > P->lim.max_depth)
                return fail(P, WARDER__SH_LIMIT, "nesting too deep", S->i);
        struct segb sb;
        struct wordb wb = {0};
        segb_init(&sb, scope);
        wordb_reset(&wb);
        bool at_start = true;
        int rc = 0;
        for (;;) {
                skip_blanks(S);
                if (S->i >= S->len) {
                        if (term != T_EOF)
                                rc = fail(P, WARDER__SH_UNPARSEABLE,
                                          term == T_PAREN   ? "unterminated `(` or `$(`"
                                          : term == T_BRACE ? "unterminated `{`"
                                                            : "`case` without `esac`",
                                          start);
                        break;
                }
                const char *s = S->s + S->i;
                size_t left = S->len - S->i;
                char c = s[0], n1 = left > 1 ? s[1] : 0;
                if (c == '#') {
                        while (S->i < S->len && S->s[S->i] != '\n')
                                S->i++;
                        continue;
                }
                if (c == '\n') {
                        S->i++;
                        if ((rc = flush(P, &sb, WARDER__SH_OP_NL)) ||
                            (rc = read_heredocs(P, S, scope)))
                                break;
                        at_start = true;
                        continue;
                }
                if (c == ';') {
                        if (n1 == ';' || n1 == '&') {
                                S->i += 2;
                                if (n1 == ';' && S->i < S->len && S->s[S->i] == '&')
                                        S->i++;
                                if (term == T_CASE)
                                        break;
                        } else {
                                S->i++;
                        }
                        if ((rc = flush(P, &sb, WARDER__SH_OP_SEMI)))
                                break;
                        at_start = true;
                        continue;
                }
                if (c == '&' && n1 != '>') {
                        S->i += n1 == '&' ? 2 : 1;
                        if ((rc = flush(P, &sb, n1 == '&' ? WARDER__SH_OP_AND : WARDER__SH_OP_BG)))
                                break;
                        at_start = true;
                        continue;
                }
                if (c == '|') {
                        S->i += (n1 == '|' || n1 == '&') ? 2 : 1;
                        if ((rc = flush(P, &sb, n1 == '|' ? WARDER__SH_OP_OR : WARDER__SH_OP_PIPE)))
                                break;
                        at_start = true;
                        continue;
                }
                if (c == '(') {
                        /* `(( … ))` is arithmetic for bash and nested subshells for dash:
                         * recorded as the one (§5.5.2) and read as the other. */
                        size_t ae = n1 == '(' ? arithmetic_end(S, S->i + 2, true) : 0;
                        if (ae && (rc = add_arith(P, S->s + S->i + 2, ae - S->i - 2)))
                                break;
                        S->i++;
                        if ((rc = flush(P, &sb, WARDER__SH_OP_END)))
                                break;
                        uint32_t sc;
                        if ((rc = new_scope(P, scope, &sc)) || (rc = parse_list(P, S, sc, T_PAREN)))
                                break;
                        at_start = true;
                        continue;
                }
                if (c == ')') {
                        if (term == T_PAREN) {
                                S->i++;
                                break;
                        }
                        rc = fail(P, WARDER__SH_UNPARSEABLE, "unmatched `)`", S->i);
                        break;
                }
                if ((c == '<' || c == '>') && n1 == '(') {
                        if ((rc = parse_procsubst(P, S, &wb, scope)) ||
                            (rc = segb_add_word(P, &sb, &wb)))
                                break;
                        at_start = false;
                        continue;
                }
                int fd = -1;
                if (c >= '0' && c <= '9') {
                        size_t k = 0;
                        long v = 0;
                        while (k < left && s[k] >= '0' && s[k] <= '9') {
                                if (v < 100000)
                                        v = v * 10 + (s[k] - '0');
                                k++;
                        }
                        if (k < left && (s[k] == '<' || s[k] == '>')) {
                                fd = (int)v;
                                S->i += k;
                                c = s[k];
                        }
                }
                if (c == '<' || c == '>' || c == '&') {
                        if ((rc = parse_redirect(P, S, &sb, &wb, fd)))
                                break;
                        continue;
                }
                if ((rc = read_word(P, S, &wb, scope)))
                        break;
                if (at_start && wb.flags == 0 && wb.text.len > 0 && wb.text.len <= 6 &&
                    strchr("{}iwutedf!cs", wb.text.data[0])) {
                        if (word_is(&wb, "{")) {
                                if ((rc = parse_list(P, S, scope, T_BRACE)))
                                        break;
                                continue;
                        }
                        if (word_is(&wb, "}")) {
                                if (term == T_BRACE)
                                        break;
                                if ((rc = flush(P, &sb, WARDER__SH_OP_END)))
                                        break;
                                continue;
                        }
                        if (word_is(&wb, "if") || word_is(&wb, "while") || word_is(&wb, "until")) {
                                P->ctl++;
                                if (!word_is(&wb, "if"))
                                        P->loop++;
                                continue;
                        }
                        if (word_is(&wb, "then") || word_is(&wb, "else") || word_is(&wb, "elif") ||
                            word_is(&wb, "do") || word_is(&wb, "!"))
                                continue;
                        if (word_is(&wb, "fi") || word_is(&wb, "done") || word_is(&wb, "esac")) {
                                if (term == T_CASE && word_is(&wb, "esac")) {
                                        P->saw_esac = true;
                                        break;
                                }
                                if (P->ctl)
                                        P->ctl--;
                                if (word_is(&wb, "done") && P->loop)
                                        P->loop--;
                                if ((rc = flush(P, &sb, WARDER__SH_OP_END)))
                                        break;
                                continue;
                        }
                        if (word_is(&wb, "case")) {
                                if ((rc = parse_case(P, S, scope, &wb)))
                                        break;
                                continue;
                        }
                        if (word_is(&wb, "for") || word_is(&wb, "select")) {
                                P->ctl++;
                                P->loop++;
                        }
                }
                if ((rc = segb_add_word(P, &sb, &wb)))
                        break;
                at_start = false;
        }
        /* Whatever was read before a problem still counts (§5.7): keep the partial segment. */
        if (rc >= 0) {
                int frc = flush(P, &sb, WARDER__SH_OP_END);
                if (rc == 0)
                        rc = frc;
                else if (frc < 0)
                        rc = frc;
        }
        segb_free(&sb);
        wordb_free(&wb);
        P->depth--;
        return rc;
}

int warder__sh_parse(struct warder__sh_parse *p, const char *s, size_t len,
                     const struct warder__sh_limits *lim)
{
        memset(p, 0, sizeof(*p));
        struct parser P = {.out = p};
        if (lim)
                P.lim = *lim;
        else
                P.lim = (struct warder__sh_limits)WARDER__SH_LIMITS_DEFAULT;
        if (len > P.lim.max_len) {
                fail(&P, WARDER__SH_LIMIT, "command too long", P.lim.max_len);
                len = P.lim.max_len;
        }
        uint32_t sc;
        int rc = new_scope(&P, 0, &sc);
        if (rc)
                return rc;
        struct src S = {.s = s, .len = len, .i = 0};
        rc = parse_list(&P, &S, sc, T_EOF);
        return rc < 0 ? rc : 0;
}
