/* SPDX-License-Identifier: MIT */
/*
 * Command inspection (§5): every simple command of a line is decided against the execute
 * rules in each of its forms, every path it names is decided for read or write, and the
 * strictest answer over everything wins. A guard rail, not a boundary (§5.8).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "ruleset/ruleset-internal.h"
#include "shell.h"
#include "util.h"
#include "wrappers.h"
#include "warder/sys/backend.h"

#define MAX_SHELL_DEPTH  4      /* sh -c nesting (§5.3) */
#define MAX_CWDS         8      /* possible current directories tracked at once (§5.6) */
#define MAX_CHECKS       4096   /* path decisions per command line */
#define MAX_GLOB         1024   /* results of one glob expansion */
#define MAX_GLOB_LISTS   512    /* directories listed for globs per command line */
#define MAX_GLOB_ENTRIES 100000 /* directory entries read for globs per command line */

struct cwdset {
        char *dirs[MAX_CWDS];
        size_t n;
        bool uncertain; /* an undeterminable cd happened: relative paths are unknown */
};

struct scope_state {
        bool inited, has_ovr, impure;
        struct cwdset set; /* every directory the scope may be in */
        struct cwdset ovr; /* where it certainly is inside a pure `&&` chain after a cd */
};

/* Whether a candidate's subtree counts (§5.4.1). */
enum subtree {
        ST_NONE,       /* no: a file's contents or a name only */
        ST_IF_DIR,     /* when it is known to be a directory (write candidates, sources) */
        ST_EXPECT_DIR, /* an argument of a recursive command: a directory unless known not */
};

struct insp {
        const warder_ruleset *rs;
        const struct warder_command_context *ctx;
        const char *root, *home, *env_home, *cdpath;
        bool *env_rebound; /* per ctx->env entry: the line may give it another value */
        size_t nenv;
        bool home_rebound;       /* HOME may be set by the line: `~` and a bare `cd` are unknown */
        bool cdpath_rebound;     /* CDPATH may be set by the line */
        bool builtins_redefined; /* the line may give echo, printf, … another meaning */
        struct warder_decision best;
        bool have_best;
        size_t checks;
        bool checks_exhausted;
        bool dbracket;                /* some inspected text holds `[[` (§5.5.2) */
        enum subtree seg_subtree;     /* how the segment's arguments meet §5.4.1 */
        bool glob_opts;               /* the line may change how globs expand (§5.5) */
        struct warder__expand_io xio; /* realpath and ls of the context, and the glob budget */
        int (*ls)(void *ud, const char *dir, char ***names, size_t *count); /* ctx->ls or NULL */
        struct warder__buf path, pat, tmp;
};

/* ---- decisions ---------------------------------------------------------------------------- */

static bool is_final(const struct insp *I)
{
        return I->have_best && I->best.action == WARDER_DENY;
}

/* Takes `d` as the answer if it is stricter than the one so far (the first of equals stays). */
static int consider(struct insp *I, struct warder_decision *d, const char *segment,
                    const char *candidate, enum warder_op cop)
{
        if (I->have_best && d->action <= I->best.action)
                return 0;
        struct warder_decision tmp = *d;
        tmp.owned_ = NULL;
        tmp.candidate_op = cop;
        tmp.op = WARDER_OP_EXECUTE;
        tmp.segment = segment;
        tmp.candidate = candidate;
        struct warder_decision copy = WARDER_DECISION_INIT;
        int rc = warder_decision_copy(&copy, &tmp);
        if (rc)
                return rc;
        warder_decision_clear(&I->best);
        I->best = copy;
        I->have_best = true;
        return 0;
}

/* Raises to at least `action` for a reason no rule states (§5.3, §5.5–§5.7). */
static int raise_to(struct insp *I, enum warder_action action, const char *segment,
                    const char *candidate, enum warder_op cop, const char *note)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        d.action = action;
        d.op = WARDER_OP_EXECUTE;
        d.undeterminable = true;
        d.note = note;
        return consider(I, &d, segment, candidate, cop);
}

/* ---- the current directory (§5.6) --------------------------------------------------------- */

static void cwdset_clear(struct cwdset *c)
{
        for (size_t k = 0; k < c->n; k++)
                free(c->dirs[k]);
        c->n = 0;
        c->uncertain = false;
}

static int cwdset_add(struct cwdset *c, const char *dir)
{
        for (size_t k = 0; k < c->n; k++)
                if (strcmp(c->dirs[k], dir) == 0)
                        return 0;
        if (c->n == MAX_CWDS) {
                c->uncertain = true;
                return 0;
        }
        char *d = strdup(dir);
        if (!d)
                return WARDER_ENOMEM;
        c->dirs[c->n++] = d;
        return 0;
}

static int cwdset_copy(struct cwdset *dst, const struct cwdset *src)
{
        cwdset_clear(dst);
        dst->uncertain = src->uncertain;
        for (size_t k = 0; k < src->n; k++) {
                int rc = cwdset_add(dst, src->dirs[k]);
                if (rc)
                        return rc;
        }
        return 0;
}

static int cwdset_merge(struct cwdset *dst, const struct cwdset *src)
{
        dst->uncertain |= src->uncertain;
        for (size_t k = 0; k < src->n; k++) {
                int rc = cwdset_add(dst, src->dirs[k]);
                if (rc)
                        return rc;
        }
        return 0;
}

/* ---- expansions (§5.5) -------------------------------------------------------------------- */

static const char *env_lookup(const struct warder_command_context *ctx, const char *name, size_t n)
{
        if (!ctx || !ctx->env)
                return NULL;
        for (const char *const *e = ctx->env; *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

static bool ident_char(char c)
{
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9');
}

/*
 * Whether `s` (quotes and backslashes already removed) may give variable `name` another value
 * than the host declared: the name appears other than right after `$` or `${` (`NAME=…`,
 * `export NAME`, `read NAME`, `for NAME in`, `unset NAME`, …), or as `${NAME=…}`/`${NAME:=…}`.
 */
static bool names_var(const char *s, size_t len, const char *name, size_t n)
{
        const char *end = s + len;
        for (const char *p = s; n && (p = memmem(p, (size_t)(end - p), name, n)); p++) {
                const char *q = p + n;
                if ((p > s && ident_char(p[-1])) || (q < end && ident_char(*q)))
                        continue;
                if (p > s && p[-1] == '$')
                        continue;
                if (p > s + 1 && p[-1] == '{' && p[-2] == '$' &&
                    !(q < end && (*q == '=' || (*q == ':' && q + 1 < end && q[1] == '='))))
                        continue;
                return true;
        }
        return false;
}

/* Whether `word` appears in `s` as a whole word (not inside a longer name). */
/*
 * One pass over the words of `s` (quotes removed) for what changes the meaning of later
 * commands: *redefined when a data-only builtin may mean something else (§5.4.2) — `enable`
 * (bash turns builtins off), `hash` (bash binds a name to a path), `alias` (dash expands
 * aliases in scripts), a function of that name (`echo() …`, `function echo`, `:() …`), or a
 * new PATH (a disabled builtin, or a wrapper such as `env`, looks the name up there);
 * *globs when globs may expand otherwise (§5.5) — `shopt` (dotglob, nocaseglob, globstar,
 * extglob …), zsh's `setopt`, a new GLOBIGNORE or BASHOPTS. A variable counts as set where
 * names_var() says so.
 */
static void scan_redefinitions(const char *s, size_t len, bool *redefined, bool *globs)
{
        enum { REDEF, REDEF_IF_SET, GLOBS, GLOBS_IF_SET, BUILTIN, FUNCTION };
        static const struct {
                const char *word;
                unsigned char len, kind;
        } words[] = {
            {"enable", 6, REDEF},
            {"hash", 4, REDEF},
            {"alias", 5, REDEF},
            {"PATH", 4, REDEF_IF_SET},
            {"shopt", 5, GLOBS},
            {"setopt", 6, GLOBS},
            {"GLOBIGNORE", 10, GLOBS_IF_SET},
            {"BASHOPTS", 8, GLOBS_IF_SET},
            {"echo", 4, BUILTIN},
            {"printf", 6, BUILTIN},
            {"true", 4, BUILTIN},
            {"false", 5, BUILTIN},
            {"function", 8, FUNCTION},
        };
        bool after_function = false;
        for (size_t i = 0; i < len;) {
                if (!ident_char(s[i])) {
                        if (s[i] == ':') { /* :() { … } */
                                size_t q = i + 1;
                                while (q < len && (s[q] == ' ' || s[q] == '\t'))
                                        q++;
                                if (q < len && s[q] == '(')
                                        *redefined = true;
                        }
                        i++;
                        continue;
                }
                size_t j = i;
                while (j < len && ident_char(s[j]))
                        j++;
                bool function = false;
                /* most words are none of these: their length or first letter tells */
                const unsigned lens = 1u << 4 | 1u << 5 | 1u << 6 | 1u << 8 | 1u << 10;
                if (j - i > 10 || !(lens >> (j - i) & 1u) || !strchr("ehaPsGBptf", s[i])) {
                        after_function = false;
                        i = j;
                        continue;
                }
                for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
                        if (words[w].len != j - i || words[w].word[0] != s[i] ||
                            memcmp(s + i, words[w].word, j - i) != 0)
                                continue;
                        /* as names_var(): not set right after `$`, nor inside `${…}` unless
                         * that assigns */
                        bool set =
                            !(i > 0 && s[i - 1] == '$') &&
                            !(i > 1 && s[i - 1] == '{' && s[i - 2] == '$' &&
                              !(j < len &&
                                (s[j] == '=' || (s[j] == ':' && j + 1 < len && s[j + 1] == '='))));
                        size_t q = j;
                        while (q < len && (s[q] == ' ' || s[q] == '\t'))
                                q++;
                        switch (words[w].kind) {
                        case REDEF_IF_SET:
                                if (!set)
                                        break;
                                /* fall through */
                        case REDEF:
                                *redefined = true;
                                break;
                        case GLOBS_IF_SET:
                                if (!set)
                                        break;
                                /* fall through */
                        case GLOBS:
                                *globs = true;
                                break;
                        case BUILTIN:
                                if (after_function || (q < len && s[q] == '('))
                                        *redefined = true;
                                break;
                        default:
                                function = true;
                                break;
                        }
                        break;
                }
                after_function = function;
                i = j;
        }
}

/*
 * Marks the declared variables (and HOME and CDPATH) that the text of a line about to be
 * inspected may rebind. Called for the whole line first and again for every script inspected
 * inside it (sh -c, eval, …), so a name spelled with quotes (`SA""FE=x`) or built by an inner
 * script is seen too. Such variables are then not expanded from their declaration (§5.5).
 */
static int mark_rebound(struct insp *I, const char *text, size_t len)
{
        struct warder__buf b = WARDER__BUF_INIT;
        if (warder__buf_reserve(&b, len + 1))
                return WARDER_ENOMEM;
        for (size_t i = 0; i < len; i++)
                if (text[i] != '\'' && text[i] != '"' && text[i] != '\\')
                        b.data[b.len++] = text[i];
        b.data[b.len] = '\0';
        for (size_t i = 0; i < I->nenv; i++) {
                const char *e = I->ctx->env[i];
                const char *eq = strchr(e, '=');
                if (!I->env_rebound[i] && eq && names_var(b.data, b.len, e, (size_t)(eq - e)))
                        I->env_rebound[i] = true;
        }
        I->home_rebound = I->home_rebound || names_var(b.data, b.len, "HOME", 4);
        I->cdpath_rebound = I->cdpath_rebound || names_var(b.data, b.len, "CDPATH", 6);
        scan_redefinitions(b.data, b.len, &I->builtins_redefined, &I->glob_opts);
        warder__buf_free(&b);
        return 0;
}

/* A declared variable's value, or NULL when it is not declared or the line may rebind it. */
static const char *var_lookup(const struct insp *I, const char *name, size_t n)
{
        for (size_t i = 0; i < I->nenv; i++) {
                const char *e = I->ctx->env[i];
                if (strncmp(e, name, n) == 0 && e[n] == '=')
                        return I->env_rebound[i] ? NULL : e + n + 1;
        }
        return NULL;
}

/* ---- arithmetic (§5.5.2) ------------------------------------------------------------------ */

/* A declared variable whose value is a literal number and that the line does not rebind. */
static bool known_number(const struct insp *I, const char *name, size_t n)
{
        const char *v = var_lookup(I, name, n);
        if (!v)
                return false;
        if (*v == '+' || *v == '-')
                v++;
        if (!*v)
                return false;
        for (; *v; v++)
                if (*v < '0' || *v > '9')
                        return false;
        return true;
}

/*
 * Whether a shell evaluating `s` as an arithmetic expression would evaluate something this
 * inspector cannot know: a variable (named bare or with `$`) whose value is not a known
 * literal number — bash evaluates that value as an expression in turn, and an array
 * subscript in it runs `$( … )` — or the result of a substitution or a special parameter.
 * `what` and `what_len` name the first such item.
 */
static bool arith_unknown(const struct insp *I, const char *s, size_t n, const char **what,
                          size_t *what_len)
{
        for (size_t i = 0; i < n;) {
                char c = s[i];
                size_t j = i + 1;
                if (c >= '0' && c <= '9') { /* 12, 0x1f, 2#101, 64#@_ */
                        while (j < n && (ident_char(s[j]) || s[j] == '#' || s[j] == '@'))
                                j++;
                        i = j;
                        continue;
                }
                if (c == '$' && j < n && strchr("#?$!", s[j]) && s[j]) {
                        i = j + 1; /* numbers by construction */
                        continue;
                }
                size_t ns = i, nl = 0;
                if (ident_char(c)) {
                        while (j < n && ident_char(s[j]))
                                j++;
                        nl = j - i;
                } else if (c == '$' && j < n && ident_char(s[j]) && !(s[j] >= '0' && s[j] <= '9')) {
                        ns = j;
                        while (j < n && ident_char(s[j]))
                                j++;
                        nl = j - ns;
                } else if (c == '$' && j < n && s[j] == '{') {
                        const char *close = memchr(s + j, '}', n - j);
                        ns = j + 1;
                        nl = close ? (size_t)(close - s) - ns : 0;
                        for (size_t k = 0; k < nl; k++)
                                if (!ident_char(s[ns + k]) ||
                                    (k == 0 && s[ns] >= '0' && s[ns] <= '9'))
                                        nl = 0;
                        if (!nl) {
                                *what = s + i;
                                *what_len = close ? (size_t)(close - s) + 1 - i : n - i;
                                return true;
                        }
                        j = (size_t)(close - s) + 1;
                } else if (c == '$' || c == '`') {
                        *what = s + i;
                        *what_len = n - i < 16 ? n - i : 16;
                        return true;
                } else {
                        i = j;
                        continue;
                }
                if (!known_number(I, s + ns, nl)) {
                        *what = s + ns;
                        *what_len = nl;
                        return true;
                }
                i = j;
        }
        return false;
}

/* Raises to ask when `s` is an arithmetic expression arith_unknown() says cannot be known. */
static int decide_arith(struct insp *I, const char *s, size_t n, const char *segment)
{
        const char *what = NULL;
        size_t wl = 0;
        if (!arith_unknown(I, s, n, &what, &wl))
                return 0;
        char note[160];
        snprintf(note, sizeof(note),
                 "an arithmetic expression evaluates '%.*s', whose value is not a known number",
                 (int)(wl > 40 ? 40 : wl), what);
        return raise_to(I, WARDER_ASK, segment, NULL, WARDER_OP_EXECUTE, note);
}

static bool is_glob_char(char c)
{
        return c == '*' || c == '?' || c == '[';
}

/* Whether `s`, whose unquoted bytes are marked in `g` (NULL: none), is a pattern for
 * pathname expansion: an unquoted `*` or `?`, or an unquoted `[` closed by a later unquoted
 * `]` in the same component (a lone `[`, as in `[ -f x ]`, is an ordinary character). */
static bool has_glob(const char *s, size_t len, const unsigned char *g)
{
        for (size_t k = 0; g && k < len; k++) {
                if (!g[k] || !is_glob_char(s[k]))
                        continue;
                if (s[k] != '[')
                        return true;
                for (size_t j = k + 2; j < len && s[j] != '/'; j++)
                        if (g[j] && s[j] == ']')
                                return true;
        }
        return false;
}

static void xword_free(struct xword *x)
{
        free(x->owned);
        free(x->g);
        memset(x, 0, sizeof(*x));
}

static int expand_word(struct insp *I, const struct warder__sh_parse *p,
                       const struct warder__sh_word *w, struct xword *x)
{
        memset(x, 0, sizeof(*x));
        if (w->flags & WARDER__SH_W_SUBST) {
                x->undet = "a command substitution";
                return 0;
        }
        if (w->flags & WARDER__SH_W_SPECIAL) {
                x->undet = "a special or modified parameter";
                return 0;
        }
        if (!(w->flags & (WARDER__SH_W_VAR | WARDER__SH_W_TILDE | WARDER__SH_W_GLOB))) {
                x->s = w->text;
                x->len = w->len;
                return 0;
        }
        struct warder__buf b = WARDER__BUF_INIT, g = WARDER__BUF_INIT;
        int rc = 0;
        for (uint32_t k = 0; k < w->npieces && !rc && !x->undet; k++) {
                const struct warder__sh_piece *pc = &p->pieces[w->first_piece + k];
                const char *val = w->text + pc->off;
                size_t vlen = pc->len;
                bool active_ok = !pc->quoted;
                if (pc->kind == WARDER__SH_VAR) {
                        val = var_lookup(I, w->text + pc->name_off, pc->name_len);
                        if (!val) {
                                x->undet = "a variable the host did not declare, or one the "
                                           "command line sets";
                                break;
                        }
                        vlen = strlen(val);
                        if (!pc->quoted && strpbrk(val, " \t\n")) {
                                x->undet = "an unquoted variable that splits into several words";
                                break;
                        }
                } else if (pc->kind == WARDER__SH_TILDE) {
                        val = I->home_rebound ? NULL : I->env_home ? I->env_home : I->home;
                        if (!val) {
                                x->undet = "`~` without a home directory";
                                break;
                        }
                        vlen = strlen(val);
                        active_ok = false;
                } else if (pc->kind == WARDER__SH_TILDE_USER) {
                        x->undet = "`~user`";
                        break;
                } else if (pc->kind != WARDER__SH_LIT) {
                        x->undet = "an expansion";
                        break;
                }
                rc = warder__buf_append(&b, val, vlen);
                for (size_t j = 0; j < vlen && !rc; j++)
                        rc = warder__buf_putc(&g, active_ok ? 1 : 0);
        }
        if (rc || x->undet) {
                warder__buf_free(&b);
                warder__buf_free(&g);
                return rc;
        }
        x->len = b.len;
        x->owned = warder__buf_steal(&b);
        x->s = x->owned;
        x->glob = x->owned && has_glob(x->s, x->len, (const unsigned char *)g.data);
        if (x->glob)
                x->g = (unsigned char *)warder__buf_steal(&g);
        warder__buf_free(&g);
        if (!x->owned || (x->glob && !x->g))
                return WARDER_ENOMEM;
        return 0;
}

/* ---- paths (§5.4) ------------------------------------------------------------------------- */

/* /proc/<pid>/root/… and /proc/<pid>/cwd/… name other paths than they spell (§3.2): the
 * real form can follow them only where the backend resolves them. */
static bool through_proc(const char *p)
{
        if (strncmp(p, "/proc/", 6) != 0)
                return false;
        const char *c = strchr(p + 6, '/');
        if (!c)
                return false;
        c++;
        size_t n = strcspn(c, "/");
        return (n == 4 && strncmp(c, "root", 4) == 0) || (n == 3 && strncmp(c, "cwd", 3) == 0);
}

static bool in_list(const char *s, const char *const *list);

/* Devices every shell line uses (`2>/dev/null`): no file behind them, so a backend that
 * cannot resolve them (outside its root) leaves nothing unknown. */
static bool is_std_device(const char *p)
{
        static const char *const dev[] = {"/dev/null",    "/dev/zero", "/dev/full",  "/dev/random",
                                          "/dev/urandom", "/dev/tty",  "/dev/stdin", "/dev/stdout",
                                          "/dev/stderr",  NULL};
        if (in_list(p, dev))
                return true;
        if (strncmp(p, "/dev/fd/", 8) != 0 || !p[8])
                return false;
        for (p += 8; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        return true;
}

static void strv_free(char **v, size_t n)
{
        for (size_t k = 0; v && k < n; k++)
                warder_free(v[k]);
        warder_free(v);
}

/* 1 when `path` (a real form) is a directory, 0 when it is not or does not exist, -1 when
 * that cannot be known here (no `ls` in the context, or the listing failed otherwise). */
static int dir_type(struct insp *I, const char *path)
{
        if (!I->ls)
                return -1;
        char **names = NULL;
        size_t count = 0;
        int rc = I->ls(I->ctx->ud, path, &names, &count);
        if (rc == 0) {
                strv_free(names, count);
                return 1;
        }
        return rc == WARDER_ENOENT || rc == WARDER_ENOTDIR ? 0 : -1;
}

/*
 * §5.4.1: a candidate that is a directory is also decided by the strictest rule that can match
 * a path beneath it, on either form. For ST_EXPECT_DIR (an argument of a recursive command)
 * a candidate whose type cannot be known counts as a directory, but only up to ask.
 */
static int decide_subtree(struct insp *I, enum warder_op op, const char *segment, const char *real,
                          enum subtree st)
{
        if (st == ST_IF_DIR && !I->ls)
                return 0; /* whether it is a directory cannot be known: nothing to add */
        /* nothing the rules beneath say can raise the answer further */
        if (I->have_best && I->best.action >= (I->ls ? WARDER_DENY : WARDER_ASK))
                return 0;
        int type = -2; /* not looked at yet */
        const char *forms[2] = {I->path.data, real && strcmp(real, I->path.data) ? real : NULL};
        int rc = 0;
        for (int f = 0; f < 2 && !rc && forms[f] && !is_final(I); f++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                if (!warder__ruleset_subtree(I->rs, op, forms[f], strlen(forms[f]), &d))
                        continue;
                if (I->have_best && d.action <= I->best.action)
                        continue;
                if (type == -2)
                        type = dir_type(I, real ? real : I->path.data);
                if (type == 0 || (type < 0 && st != ST_EXPECT_DIR))
                        return 0;
                if (type < 0 && d.action > WARDER_ASK) {
                        d.action = WARDER_ASK;
                        d.undeterminable = true;
                        d.note = "a directory whose contents cannot be seen here, beneath which "
                                 "this rule can match (§5.4.1)";
                } else {
                        d.note = "a rule that can match a path beneath this directory (§5.4.1)";
                }
                rc = consider(I, &d, segment, I->path.data, op);
        }
        return rc;
}

/* Decides the normalised absolute path in I->path, in its literal and real forms. */
static int decide_normalised(struct insp *I, enum warder_op op, const char *segment)
{
        int rc;
        char *real = NULL;
        const char *note = NULL;
        char why[96];
        if (through_proc(I->path.data))
                note = "a path through /proc/<pid>/root or /cwd";
        if (I->ctx && I->ctx->realpath) {
                rc = I->ctx->realpath(I->ctx->ud, I->path.data, &real);
                if (rc == WARDER_ENOMEM)
                        return rc;
                if (rc) {
                        real = NULL;
                        snprintf(why, sizeof(why), "the real path could not be resolved (%s)",
                                 warder_strerror(rc));
                        if (!is_std_device(I->path.data))
                                note = why;
                }
        }
        struct warder_decision d = WARDER_DECISION_INIT;
        rc = warder__ruleset_check_path(&d, I->rs, op, I->path.data, strlen(I->path.data), real,
                                        (real ? strlen(real) : 0), NULL);
        if (rc == WARDER_ENOMEM) {
                warder_free(real);
                return rc;
        }
        if (rc) {
                warder_free(real);
                return raise_to(I, WARDER_ASK, segment, I->path.data, op,
                                "a path that cannot be decided");
        }
        rc = consider(I, &d, segment, I->path.data, op);
        warder_decision_clear(&d);
        enum subtree st = I->seg_subtree;
        if (op == WARDER_OP_WRITE && st == ST_NONE)
                st = ST_IF_DIR; /* a directory written to (§5.4.1) */
        if (!rc && st != ST_NONE)
                rc = decide_subtree(I, op, segment, real, st);
        warder_free(real);
        if (!rc && note)
                rc = raise_to(I, WARDER_ASK, segment, I->path.data, op, note);
        return rc;
}

static bool has_dotdot(const char *s, size_t n)
{
        for (size_t i = 0; i + 1 < n; i++)
                if (s[i] == '.' && s[i + 1] == '.' && (i == 0 || s[i - 1] == '/') &&
                    (i + 2 == n || s[i + 2] == '/'))
                        return true;
        return false;
}

/*
 * The path the kernel opens for the absolute, unnormalised `s`: components are taken left to
 * right, and a `..` pops from the real form (ctx->realpath) of what precedes it. Normalised,
 * into `out`.
 */
static int physical_form(struct insp *I, const char *s, size_t n, struct warder__buf *out)
{
        return warder__expand_physical(&I->xio, s, n, out);
}

static int decide_literal(struct insp *I, const char *str, size_t len, const char *cwd,
                          enum warder_op op, const char *segment)
{
        if (is_final(I))
                return 0;
        if (++I->checks > MAX_CHECKS) {
                if (I->checks_exhausted)
                        return 0;
                I->checks_exhausted = true;
                return raise_to(I, WARDER_ASK, segment, NULL, op,
                                "too many paths to decide in one command");
        }
        int rc;
        if (str[0] == '/') {
                rc = warder__path_normalize_buf(&I->path, NULL, NULL, NULL, str, len, NULL);
        } else {
                /* Joined by hand so that a quoted `~` stays a name (the shell expanded it already).
                 */
                warder__buf_truncate(&I->tmp, 0);
                rc = warder__buf_puts(&I->tmp, cwd);
                if (!rc)
                        rc = warder__buf_putc(&I->tmp, '/');
                if (!rc)
                        rc = warder__buf_append(&I->tmp, str, len);
                if (!rc)
                        rc = warder__path_normalize_buf(&I->path, NULL, NULL, NULL, I->tmp.data,
                                                        I->tmp.len, NULL);
        }
        if (rc == WARDER_ENOMEM)
                return rc;
        if (rc)
                return raise_to(I, WARDER_ASK, segment, NULL, op,
                                "a path that cannot be normalised");
        rc = decide_normalised(I, op, segment);
        if (rc || is_final(I) || !I->ctx || !I->ctx->realpath || !has_dotdot(str, len))
                return rc;
        /* The shell hands the path to the kernel as written, and the kernel climbs a `..` from
         * where the symlinks before it lead, not from their spelling: `link/../key` with
         * `link -> vault/pub` opens vault/key. That path is decided too. */
        struct warder__buf phys = WARDER__BUF_INIT;
        if (str[0] == '/')
                rc = physical_form(I, str, len, &phys);
        else
                rc = physical_form(I, I->tmp.data, I->tmp.len, &phys);
        if (rc == WARDER_ENOMEM) {
                warder__buf_free(&phys);
                return rc;
        }
        if (rc) {
                warder__buf_free(&phys);
                return raise_to(I, WARDER_ASK, segment, I->path.data, op,
                                "the real path could not be resolved");
        }
        if (strcmp(phys.data, I->path.data) != 0) {
                warder__buf_truncate(&I->path, 0);
                rc = warder__buf_append(&I->path, phys.data, phys.len);
                if (!rc)
                        rc = decide_normalised(I, op, segment);
        }
        warder__buf_free(&phys);
        return rc;
}

static int escape_into(struct warder__buf *b, const char *s, size_t n, const unsigned char *g)
{
        for (size_t k = 0; k < n; k++) {
                char c = s[k];
                bool active = g && g[k] && strchr("*?[]", c) && c;
                if (!active && strchr("*?[]\\{}", c) && c)
                        if (warder__buf_putc(b, '\\'))
                                return WARDER_ENOMEM;
                if (warder__buf_putc(b, c))
                        return WARDER_ENOMEM;
        }
        return 0;
}

/* §5.5: the glob expanded by the inspector itself through the context's `ls`, as the shell
 * expands it; each result is decided in both forms (and physically, for a `..`). */
static int decide_glob_shell(struct insp *I, const char *str, size_t len, const unsigned char *g,
                             const char *cwd, enum warder_op op, const char *segment)
{
        if (I->glob_opts)
                return raise_to(I, WARDER_ASK, segment, str, op,
                                "a glob after the line changes how globs expand (shopt, "
                                "GLOBIGNORE, bash -O)");
        struct warder__buf pat = WARDER__BUF_INIT, unq = WARDER__BUF_INIT;
        int rc = 0;
        if (str[0] != '/') {
                rc = warder__buf_puts(&pat, cwd);
                if (!rc)
                        rc = warder__buf_putc(&pat, '/');
                for (size_t k = 0; k < pat.len && !rc; k++)
                        rc = warder__buf_putc(&unq, 0);
        }
        if (!rc)
                rc = warder__buf_append(&pat, str, len);
        if (!rc)
                rc = warder__buf_append(&unq, g, len);
        char **res = NULL;
        size_t count = 0;
        bool incomplete = false;
        if (!rc)
                rc = warder__expand_glob(&I->xio, pat.data, (const unsigned char *)unq.data,
                                         pat.len, &res, &count, &incomplete);
        for (size_t k = 0; k < count && !rc && !is_final(I); k++)
                rc = decide_literal(I, res[k], strlen(res[k]), cwd, op, segment);
        if (!rc && incomplete)
                rc = raise_to(I, WARDER_ASK, segment, pat.data, op,
                              "a glob whose expansion is incomplete (a directory that cannot be "
                              "listed, or too many entries)");
        warder__expand_free(res, count);
        warder__buf_free(&pat);
        warder__buf_free(&unq);
        return rc;
}

static int decide_glob(struct insp *I, const char *str, size_t len, const unsigned char *g,
                       const char *cwd, enum warder_op op, const char *segment)
{
        if (I->ls)
                return decide_glob_shell(I, str, len, g, cwd, op, segment);
        warder__buf_truncate(&I->pat, 0);
        int rc = 0;
        if (str[0] != '/') {
                rc = escape_into(&I->pat, cwd, strlen(cwd), NULL);
                if (!rc)
                        rc = warder__buf_putc(&I->pat, '/');
        }
        if (!rc)
                rc = escape_into(&I->pat, str, len, g);
        if (rc)
                return rc;
        /* Lexical clean-up only: escapes never touch `/` or `.`, so components survive. */
        struct warder__buf norm = WARDER__BUF_INIT;
        rc = warder__path_normalize_buf(&norm, NULL, NULL, NULL, I->pat.data, I->pat.len, NULL);
        if (rc) {
                warder__buf_free(&norm);
                return rc == WARDER_ENOMEM ? rc
                                           : raise_to(I, WARDER_ASK, segment, NULL, op,
                                                      "a glob that cannot be normalised");
        }
        char **res = NULL;
        size_t count = 0;
        rc = I->ctx->glob(I->ctx->ud, norm.data, &res, &count);
        if (rc == WARDER_ENOMEM) {
                warder__buf_free(&norm);
                return rc;
        }
        if (rc) {
                rc = raise_to(I, WARDER_ASK, segment, norm.data, op,
                              "a glob that could not be expanded");
        } else if (count > MAX_GLOB) {
                rc =
                    raise_to(I, WARDER_ASK, segment, norm.data, op, "a glob with too many matches");
        }
        for (size_t k = 0; k < count && !rc && res; k++)
                if (res[k] && res[k][0])
                        rc = decide_literal(I, res[k], strlen(res[k]), cwd, op, segment);
        for (size_t k = 0; k < count && res; k++)
                warder_free(res[k]);
        warder_free(res);
        warder__buf_free(&norm);
        return rc;
}

/* Decides one candidate against every directory the command may be in. */
static int decide_path(struct insp *I, const char *str, size_t len, const unsigned char *g,
                       const struct cwdset *cwd, enum warder_op op, const char *segment)
{
        if (len == 0 || is_final(I))
                return 0;
        if (memchr(str, '\0', len))
                return raise_to(I, WARDER_ASK, segment, NULL, op, "a path with a NUL byte");
        bool glob = has_glob(str, len, g);
        int rc = 0;
        bool relative = str[0] != '/';
        size_t ncwd = relative ? cwd->n : 1;
        for (size_t k = 0; k < ncwd && !rc; k++) {
                const char *dir = relative ? cwd->dirs[k] : "/";
                /* The pattern's own text is a name the command may use (no match: the shell
                 * passes it on literally). */
                rc = decide_literal(I, str, len, dir, op, segment);
                if (!rc && glob) {
                        if (I->ls || (I->ctx && I->ctx->glob))
                                rc = decide_glob(I, str, len, g, dir, op, segment);
                        else
                                rc = raise_to(I, WARDER_ASK, segment, str, op,
                                              "an unquoted glob that cannot be expanded here");
                }
        }
        if (!rc && relative && cwd->uncertain)
                rc = raise_to(I, WARDER_ASK, segment, str, op,
                              "a relative path after a `cd` that cannot be followed");
        return rc;
}

/* ---- simple commands ---------------------------------------------------------------------- */

static bool in_list(const char *s, const char *const *list)
{
        for (; *list; list++)
                if (streq(s, *list))
                        return true;
        return false;
}

/* `NAME=…` with an unquoted NAME. */
static bool is_assignment(const struct warder__sh_parse *p, const struct warder__sh_word *w)
{
        if (w->npieces == 0)
                return false;
        const struct warder__sh_piece *pc = &p->pieces[w->first_piece];
        if (pc->kind != WARDER__SH_LIT || pc->quoted)
                return false;
        const char *t = w->text;
        uint32_t k = 0;
        if (!((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z') || t[0] == '_'))
                return false;
        while (k < pc->len && t[k] != '=') {
                char c = t[k];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                      (c >= '0' && c <= '9')))
                        return false;
                k++;
        }
        return k < pc->len && t[k] == '=';
}

struct segctx {
        const struct warder__sh_parse *p;
        const struct warder__sh_segment *seg;
        const struct warder__sh_word *w;
        struct xword *x;
        size_t n;
        const char *text; /* the segment as written (its name in decisions) */
        const struct cwdset *cwd;
};

static int inspect_line(struct insp *I, const char *line, size_t len, unsigned depth,
                        const struct cwdset *cwd);

static bool is_numeric_test_op(const struct warder__sh_word *w)
{
        static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL};
        return !(w->flags & ~WARDER__SH_W_QUOTED) && in_list(w->text, ops);
}

/*
 * Builtins that evaluate arithmetic in their arguments (§5.5.2): `let`, integer variables
 * (`declare -i` and its kin), array subscripts in the names that `unset`, `read`, `declare`,
 * `printf -v`, `test -v` and the like assign or test, and the operands of the numeric
 * operators of `[[ … ]]` (which the splitter may have cut at `&&` or `||`).
 */
static int decide_arith_builtins(struct insp *I, const struct segctx *C, size_t name,
                                 const char *cmd, const struct cmd_info *info)
{
        const struct warder__sh_word *w = C->w;
        size_t n = C->n;
        int rc = 0;
        unsigned f = info->flags;
        if (!(f & (C_DECL | C_NAMES | C_VOPT | C_LET)) && !I->dbracket)
                return 0;
        bool is_decl = f & C_DECL, names = f & (C_DECL | C_NAMES), after_v = f & C_VOPT;
        for (size_t k = name + 1; cmd && k < n && !rc && !is_final(I); k++) {
                const char *t = w[k].text;
                size_t tl = w[k].len;
                if (f & C_LET) {
                        rc = decide_arith(I, t, tl, C->text);
                        continue;
                }
                if (is_decl && t[0] == '-' && !(w[k].flags & ~WARDER__SH_W_QUOTED) &&
                    memchr(t, 'i', tl)) {
                        rc = raise_to(I, WARDER_ASK, C->text, NULL, WARDER_OP_EXECUTE,
                                      "an integer variable: every value given to it is "
                                      "evaluated as an arithmetic expression");
                        continue;
                }
                if (names || (after_v && k > name + 1 && streq(w[k - 1].text, "-v"))) {
                        const char *lb = memchr(t, '[', tl);
                        const char *rb = memrchr(t, ']', tl);
                        if (lb && rb > lb)
                                rc = decide_arith(I, lb + 1, (size_t)(rb - lb - 1), C->text);
                }
        }
        for (size_t k = 1; I->dbracket && k + 1 < n && !rc; k++)
                if (is_numeric_test_op(&w[k])) {
                        rc = decide_arith(I, w[k - 1].text, w[k - 1].len, C->text);
                        if (!rc)
                                rc = decide_arith(I, w[k + 1].text, w[k + 1].len, C->text);
                }
        return rc;
}

/* Candidates from one argument word (§5.4): the word, the value after its first `=`, and the
 * remainder of a glued short option. */
static int word_candidates(struct insp *I, struct segctx *C, size_t k, enum warder_op op,
                           bool options, bool assignment)
{
        const struct warder__sh_word *w = &C->w[k];
        const struct xword *x = &C->x[k];
        if (w->flags & WARDER__SH_W_PROCSUBST)
                return 0;
        if (x->undet) {
                char note[128];
                snprintf(note, sizeof(note), "an argument that cannot be determined (%s)",
                         x->undet);
                return raise_to(I, WARDER_ASK, C->text, w->text, op, note);
        }
        const char *s = x->s;
        size_t len = x->len;
        const unsigned char *g = x->g;
        int rc = 0;
        const char *eq = memchr(s, '=', len);
        if (assignment)
                return eq ? decide_path(I, eq + 1, len - (size_t)(eq + 1 - s),
                                        g ? g + (eq + 1 - s) : NULL, C->cwd, op, C->text)
                          : 0;
        if (options && len > 1 && s[0] == '-') {
                if (s[1] == '-') {
                        if (eq)
                                rc = decide_path(I, eq + 1, len - (size_t)(eq + 1 - s),
                                                 g ? g + (eq + 1 - s) : NULL, C->cwd, op, C->text);
                        return rc;
                }
                /* -o/etc/x, -xzf.env: every remainder after a run of option letters */
                for (size_t j = 1; j + 1 < len && !rc; j++) {
                        char c = s[j];
                        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9');
                        if (!alnum)
                                break;
                        rc = decide_path(I, s + j + 1, len - j - 1, g ? g + j + 1 : NULL, C->cwd,
                                         op, C->text);
                }
                if (!rc && eq)
                        rc = decide_path(I, eq + 1, len - (size_t)(eq + 1 - s),
                                         g ? g + (eq + 1 - s) : NULL, C->cwd, op, C->text);
                return rc;
        }
        rc = decide_path(I, s, len, g, C->cwd, op, C->text);
        if (!rc && eq && eq != s)
                rc = decide_path(I, eq + 1, len - (size_t)(eq + 1 - s), g ? g + (eq + 1 - s) : NULL,
                                 C->cwd, op, C->text);
        return rc;
}

/* Decides `base`/`rel` (base may be NULL: `rel` alone) for read and for write. */
static int decide_joined(struct insp *I, struct segctx *C, const struct xword *base,
                         size_t base_len, const struct xword *rel)
{
        struct warder__buf b = WARDER__BUF_INIT;
        int rc = warder__buf_append(&b, base->s, base_len);
        if (!rc)
                rc = warder__buf_putc(&b, '/');
        if (!rc)
                rc = warder__buf_append(&b, rel->s, rel->len);
        if (!rc)
                rc = decide_path(I, b.data, b.len, NULL, C->cwd, WARDER_OP_READ, C->text);
        if (!rc)
                rc = decide_path(I, b.data, b.len, NULL, C->cwd, WARDER_OP_WRITE, C->text);
        warder__buf_free(&b);
        return rc;
}

/*
 * `ln -s TARGET… LINK` (or `-t DIR`): a relative TARGET is what the link will lead to, and
 * it is resolved from the link's directory, not from the current one — `ln -s key vault/k`
 * makes `vault/k` lead to `vault/key`. Each TARGET is decided from there too (for read and
 * write, as a later command reads or writes through the link), both from LINK's directory and
 * from LINK itself in case it is a directory.
 */
static int ln_targets(struct insp *I, struct segctx *C, size_t name)
{
        const struct xword *x = C->x;
        size_t n = C->n, last = n, count = 0, dir = n;
        bool symbolic = false, opts = true;
        for (size_t k = name + 1; k < n; k++) {
                const char *s = x[k].s;
                if (!s)
                        continue; /* undeterminable: already at least ask */
                if (opts && streq(s, "--")) {
                        opts = false;
                        continue;
                }
                if (opts && s[0] == '-' && s[1]) {
                        if (streq(s, "--symbolic") || (s[1] != '-' && strchr(s + 1, 's')))
                                symbolic = true;
                        if (streq(s, "-t") && k + 1 < n)
                                dir = ++k;
                        else if (strncmp(s, "--target-directory=", 19) == 0)
                                return 0; /* rare; its value was decided as a path already */
                        continue;
                }
                last = k;
                count++;
        }
        if (!symbolic || count == 0 || (dir == n && count < 2))
                return 0;
        int rc = 0;
        for (size_t k = name + 1; k < n && !rc; k++) {
                const struct xword *t = &x[k];
                if (k == dir || (dir == n && k == last) || !t->s || t->glob || !t->len ||
                    t->s[0] == '/' || t->s[0] == '-')
                        continue;
                const struct xword *l = &x[dir != n ? dir : last];
                if (!l->s || l->glob || !l->len)
                        continue;
                rc = decide_joined(I, C, l, l->len, t);
                const char *slash = memrchr(l->s, '/', l->len);
                if (!rc && slash && dir == n)
                        rc = decide_joined(I, C, l, (size_t)(slash - l->s), t);
        }
        return rc;
}

static int match_form(struct insp *I, const char *text, size_t len, bool whole_line,
                      struct warder_decision *seg_best, bool *matched)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        if (!warder__ruleset_match_execute(I->rs, text, len, whole_line, &d))
                return 0;
        if (!*matched || d.action > seg_best->action)
                *seg_best = d;
        *matched = true;
        return 0;
}

static int join_words(struct warder__buf *b, const struct xword *x, const struct warder__sh_word *w,
                      size_t from, size_t n)
{
        warder__buf_truncate(b, 0);
        int rc = warder__buf_putc(b, '\0');
        warder__buf_truncate(b, 0);
        for (size_t k = from; k < n && !rc; k++) {
                if (k > from)
                        rc = warder__buf_putc(b, ' ');
                if (!rc)
                        rc = x ? warder__buf_append(b, x[k].s, x[k].len)
                               : warder__buf_append(b, w[k].text, w[k].len);
        }
        return rc;
}

/* The forms of a simple command and their execute decision (§5.2, §5.3). Returns the index
 * of the command name in the last form (n when there is none). */
static int decide_forms(struct insp *I, struct segctx *C, size_t *name_out, bool *wrapper,
                        bool *stopped)
{
        size_t n = C->n, starts[64], nstarts = 0, i = 0;
        bool unknown = false, expandable = false, determinable = true, from_input = false;
        for (size_t k = 0; k < n; k++) {
                if (C->w[k].flags & (WARDER__SH_W_VAR | WARDER__SH_W_TILDE))
                        expandable = true;
                if (!C->x[k].s)
                        determinable = false;
        }
        starts[nstarts++] = 0;
        while (i < n) {
                size_t i0 = i;
                while (i < n && is_assignment(C->p, &C->w[i]))
                        i++;
                if (i >= n)
                        break;
                /* §5.3: a form after the assignments, before a wrapper is removed too, so
                 * that `A=1 sudo id` meets `sudo *` */
                if (i != i0 && nstarts < 64)
                        starts[nstarts++] = i;
                else if (i != i0)
                        unknown = true;
                size_t next;
                enum warder__wrap r = warder__unwrap(C->x, i, n, &next, &unknown);
                if (r != W_YES) {
                        if (r == W_STOP) {
                                wrapper[i] = false;
                                *stopped = true;
                        }
                        break;
                }
                wrapper[i] = true;
                from_input |= streq(base_name(C->x[i].s), "xargs");
                i = next;
                if (nstarts < 64)
                        starts[nstarts++] = i;
                else
                        unknown = true;
        }
        *name_out = i;
        struct warder__buf b = WARDER__BUF_INIT;
        struct warder_decision seg_best = WARDER_DECISION_INIT;
        bool matched = false;
        int rc = 0;
        for (size_t s = 0; s < nstarts && !rc; s++) {
                if (starts[s] >= n)
                        continue;
                rc = join_words(&b, NULL, C->w, starts[s], n);
                if (!rc)
                        rc = match_form(I, b.data, b.len, false, &seg_best, &matched);
                /* Expanded forms (declared variables, `~`) can only raise (§5.5). */
                if (!rc && expandable && determinable) {
                        rc = join_words(&b, C->x, C->w, starts[s], n);
                        if (!rc)
                                rc = match_form(I, b.data, b.len, true, &seg_best, &matched);
                }
                /* A command named by its path (`/sbin/mkfs.ext4`) also meets the deny and ask
                 * rules written for its name; never the allow rules (`/tmp/x/ls` is not `ls`). */
                size_t cw = starts[s];
                while (cw < n && is_assignment(C->p, &C->w[cw]))
                        cw++;
                const struct warder__sh_word *cmdw = cw < n ? &C->w[cw] : NULL;
                const char *slash = cmdw ? memrchr(cmdw->text, '/', cmdw->len) : NULL;
                if (!rc && slash && slash + 1 < cmdw->text + cmdw->len) {
                        rc = join_words(&b, NULL, C->w, starts[s], cw);
                        if (!rc && cw > starts[s])
                                rc = warder__buf_putc(&b, ' ');
                        if (!rc)
                                rc = warder__buf_append(
                                    &b, slash + 1, (size_t)(cmdw->text + cmdw->len - slash - 1));
                        for (size_t k = cw + 1; k < n && !rc; k++) {
                                rc = warder__buf_putc(&b, ' ');
                                if (!rc)
                                        rc = warder__buf_append(&b, C->w[k].text, C->w[k].len);
                        }
                        if (!rc)
                                rc = match_form(I, b.data, b.len, true, &seg_best, &matched);
                }
        }
        warder__buf_free(&b);
        if (rc)
                return rc;
        if (!matched) {
                seg_best.by_default = true;
                seg_best.action = warder_ruleset_default(I->rs, WARDER_OP_EXECUTE);
                seg_best.op = WARDER_OP_EXECUTE;
        }
        rc = consider(I, &seg_best, C->text, NULL, WARDER_OP_EXECUTE);
        if (!rc && unknown)
                rc = raise_to(I, WARDER_ASK, C->text, NULL, WARDER_OP_EXECUTE,
                              "a wrapper option that is not understood");
        /* xargs appends arguments read from its input: candidates nobody can see (§5.5). */
        if (!rc && from_input)
                rc = raise_to(I, WARDER_ASK, C->text, NULL, WARDER_OP_EXECUTE,
                              "xargs adds arguments read from its input");
        return rc;
}

/* `cd` / `pushd` / `popd` (§5.6). */
static int track_cd(struct insp *I, struct segctx *C, size_t name, struct scope_state *st)
{
        const char *cmd = base_name(C->x[name].s);
        const struct cwdset *eff = st->has_ovr ? &st->ovr : &st->set;
        const struct warder__sh_segment *seg = C->seg;
        bool certain = !seg->ctl && !st->impure && seg->op_after == WARDER__SH_OP_AND &&
                       seg->op_before != WARDER__SH_OP_PIPE;
        if (streq(cmd, "popd") ||
            (C->n > name + 1 && C->x[name + 1].s && streq(C->x[name + 1].s, "-"))) {
                /* back to a directory already in the set */
                st->has_ovr = false;
                return 0;
        }
        size_t j = name + 1;
        while (j < C->n && C->x[j].s && C->x[j].s[0] == '-' && C->x[j].s[1] &&
               !(C->x[j].s[1] >= '0' && C->x[j].s[1] <= '9')) {
                if (streq(C->x[j].s, "--")) {
                        j++;
                        break;
                }
                j++;
        }
        struct cwdset next = {0};
        int rc = 0;
        if (j >= C->n) {
                const char *home = I->home_rebound ? NULL : I->env_home ? I->env_home : I->home;
                if (home)
                        rc = cwdset_add(&next, home);
                else
                        next.uncertain = true;
        } else {
                const struct xword *x = &C->x[j];
                bool digits_stack =
                    streq(cmd, "pushd") && x->s && (x->s[0] == '+' || x->s[0] == '-');
                bool glob = x->glob;
                bool cdpath =
                    (I->cdpath || I->cdpath_rebound) && x->s && x->s[0] != '/' && x->s[0] != '.';
                if (!x->s || glob || digits_stack || cdpath || x->len == 0 ||
                    memchr(x->s, 0, x->len) || (seg->loop && x->s[0] != '/')) {
                        next.uncertain = true;
                } else {
                        size_t nd = x->s[0] == '/' ? 1 : eff->n;
                        for (size_t k = 0; k < nd && !rc; k++) {
                                const char *base = x->s[0] == '/' ? "/" : eff->dirs[k];
                                warder__buf_truncate(&I->tmp, 0);
                                rc = warder__buf_puts(&I->tmp, base);
                                if (!rc)
                                        rc = warder__buf_putc(&I->tmp, '/');
                                if (!rc)
                                        rc = warder__buf_append(&I->tmp, x->s, x->len);
                                if (!rc)
                                        rc = warder__path_normalize_buf(&I->path, NULL, NULL, NULL,
                                                                        I->tmp.data, I->tmp.len,
                                                                        NULL);
                                if (!rc)
                                        rc = cwdset_add(&next, I->path.data);
                                /* `cd link/..` (or `cd ..` in a linked directory, `cd -P`,
                                 * `set -o physical`) may land where the link leads: the
                                 * physical form is a possible directory too. */
                                if (!rc && I->ctx && I->ctx->realpath &&
                                    has_dotdot(I->tmp.data, I->tmp.len)) {
                                        struct warder__buf phys = WARDER__BUF_INIT;
                                        int prc = physical_form(I, I->tmp.data, I->tmp.len, &phys);
                                        if (prc == WARDER_ENOMEM)
                                                rc = prc;
                                        else if (prc)
                                                next.uncertain = true;
                                        else
                                                rc = cwdset_add(&next, phys.data);
                                        warder__buf_free(&phys);
                                }
                        }
                        if (x->s[0] != '/' && eff->uncertain)
                                next.uncertain = true;
                }
        }
        if (!rc)
                rc = cwdset_merge(&st->set, &next);
        if (!rc && certain) {
                rc = cwdset_copy(&st->ovr, &next);
                st->has_ovr = true;
        }
        cwdset_clear(&next);
        return rc == WARDER_ENOMEM ? rc : 0;
}

static int decide_segment(struct insp *I, const struct warder__sh_parse *p,
                          const struct warder__sh_segment *seg, struct scope_state *st,
                          unsigned depth)
{
        size_t n = seg->nwords;
        const struct warder__sh_word *w = p->words + seg->first_word;
        const struct cwdset *cwd = st->has_ovr ? &st->ovr : &st->set;
        struct xword *x = calloc(n + 1, sizeof(*x));
        bool *wrapper = calloc(n + 1, sizeof(*wrapper));
        struct warder__buf text = WARDER__BUF_INIT, script = WARDER__BUF_INIT;
        int rc = (!x || !wrapper) ? WARDER_ENOMEM : 0;
        for (size_t k = 0; k < n && !rc; k++)
                rc = expand_word(I, p, &w[k], &x[k]);
        if (!rc)
                rc = join_words(&text, NULL, w, 0, n);
        if (!rc && n == 0) {
                /* redirections only: name it by its first target */
                const struct warder__sh_word *t = &p->words[p->redirs[seg->first_redir].word];
                rc = warder__buf_append(&text, t->text, t->len);
        }
        if (rc)
                goto out;
        struct segctx C = {p, seg, w, x, n, text.data, cwd};
        size_t name = n;
        bool stopped = false;
        if (n > 0)
                rc = decide_forms(I, &C, &name, wrapper, &stopped);
        for (size_t k = 0; k < n && !rc; k++)
                if (w[k].flags & WARDER__SH_W_BRACE)
                        rc = raise_to(I, WARDER_ASK, text.data, w[k].text, WARDER_OP_EXECUTE,
                                      "a brace expansion");
        if (rc)
                goto out;
        const char *cmd = NULL;
        if (name < n) {
                if (!x[name].s || x[name].glob)
                        rc = raise_to(I, WARDER_ASK, text.data, w[name].text, WARDER_OP_EXECUTE,
                                      "a command name that cannot be determined");
                else
                        cmd = base_name(x[name].s);
        }
        const struct cmd_info *info = warder__cmd_info(cmd);
        /* Arguments before the command name: assignments and wrapper options. */
        for (size_t k = 0; k < name && k < n && !rc; k++) {
                if (k == 0 && !is_assignment(p, &w[k]))
                        continue;
                if (wrapper[k])
                        continue;
                rc = word_candidates(I, &C, k, WARDER_OP_READ, true, is_assignment(p, &w[k]));
        }
        if (rc || is_final(I))
                goto out;
        if (cmd && !is_final(I)) {
                /* sh -c SCRIPT and eval (§5.3) first: a denial inside names the inner command. */
                const char *body = NULL;
                size_t body_len = 0;
                bool body_unknown = false;
                if (info->flags & C_SHELL) {
                        bool c_flag = false, s_flag = false;
                        size_t k = name + 1;
                        for (; k < n; k++) {
                                const char *s = x[k].s;
                                if (!s) {
                                        if (c_flag)
                                                break;
                                        body_unknown = true;
                                        break;
                                }
                                if (streq(s, "--")) {
                                        k++;
                                        break;
                                }
                                if ((s[0] == '-' || s[0] == '+') && s[1]) {
                                        if (s[1] != '-' && strchr(s + 1, 'c'))
                                                c_flag = true;
                                        if (s[1] != '-' && strchr(s + 1, 'O'))
                                                I->glob_opts = true; /* bash -O extglob … */
                                        if (s[1] != '-' && strchr(s + 1, 's'))
                                                s_flag = true;
                                        if ((streq(s, "-o") || streq(s, "+o") || streq(s, "-O") ||
                                             streq(s, "+O") || streq(s, "--rcfile") ||
                                             streq(s, "--init-file")) &&
                                            k + 1 < n)
                                                k++;
                                        continue;
                                }
                                break;
                        }
                        if (streq(cmd, "zsh"))
                                I->glob_opts = true; /* `**` recurses, `*(D)` qualifies … */
                        if (c_flag) {
                                if (k >= n || !x[k].s || x[k].glob) {
                                        body_unknown = true;
                                } else {
                                        body = x[k].s;
                                        body_len = x[k].len;
                                }
                        } else if (!body_unknown && (k >= n || s_flag)) {
                                /* The shell reads its commands from its input: a here-string
                                 * is inspected, anything else cannot be seen. */
                                const struct warder__sh_word *hw = NULL;
                                for (uint32_t r = 0; r < seg->nredirs; r++)
                                        if (p->redirs[seg->first_redir + r].kind ==
                                            WARDER__SH_R_HERESTR)
                                                hw =
                                                    &p->words[p->redirs[seg->first_redir + r].word];
                                struct xword hx = {0};
                                if (hw)
                                        rc = expand_word(I, p, hw, &hx);
                                if (!rc && hw && !hx.undet && !hx.glob)
                                        rc = warder__buf_append(&script, hx.s, hx.len);
                                if (!rc && hw && !hx.undet && !hx.glob)
                                        body = script.data, body_len = script.len;
                                else
                                        body_unknown = true;
                                xword_free(&hx);
                        } else if (!c_flag) {
                                body_unknown = true; /* `sh FILE`: a script nobody has seen */
                        }
                } else if (streq(cmd, "eval")) {
                        for (size_t k = name + 1; k < n && !rc; k++) {
                                if (!x[k].s || x[k].glob) {
                                        body_unknown = true;
                                        break;
                                }
                                if (k > name + 1)
                                        rc = warder__buf_putc(&script, ' ');
                                if (!rc)
                                        rc = warder__buf_append(&script, x[k].s, x[k].len);
                        }
                        if (!body_unknown && script.len) {
                                body = script.data;
                                body_len = script.len;
                        }
                } else if (streq(cmd, ".") || streq(cmd, "source")) {
                        body_unknown = name + 1 < n; /* commands read from a file */
                } else if (streq(cmd, "trap")) {
                        /* `trap ACTION SIG…`: ACTION runs later, wherever the shell is then */
                        size_t k = name + 1;
                        if (k < n && x[k].s && streq(x[k].s, "--"))
                                k++;
                        if (k + 1 < n && (!x[k].s || (x[k].s[0] != '-' && x[k].len))) {
                                rc = raise_to(I, WARDER_ASK, text.data, NULL, WARDER_OP_EXECUTE,
                                              "a trap action");
                                if (!rc && (!x[k].s || x[k].glob))
                                        body_unknown = true;
                                else if (!rc && depth + 1 <= MAX_SHELL_DEPTH)
                                        rc = inspect_line(I, x[k].s, x[k].len, depth + 1, cwd);
                        }
                } else if (streq(cmd, "alias")) {
                        /* An alias definition is a command run wherever the name is used
                         * later (in another directory, too): its text is decided here, and
                         * the line is at least ask. */
                        for (size_t k = name + 1; k < n && !rc; k++) {
                                const char *eq = x[k].s ? memchr(x[k].s, '=', x[k].len) : NULL;
                                if (x[k].s && !eq)
                                        continue;
                                rc = raise_to(I, WARDER_ASK, text.data, NULL, WARDER_OP_EXECUTE,
                                              "an alias definition");
                                if (!rc && !eq)
                                        body_unknown = true;
                                else if (!rc && depth + 1 <= MAX_SHELL_DEPTH)
                                        rc = inspect_line(I, eq + 1,
                                                          x[k].len - (size_t)(eq + 1 - x[k].s),
                                                          depth + 1, cwd);
                        }
                }
                if (!rc && body_unknown)
                        rc = raise_to(I, WARDER_ASK, text.data, NULL, WARDER_OP_EXECUTE,
                                      "a shell script whose text cannot be seen");
                if (!rc && body) {
                        if (depth + 1 > MAX_SHELL_DEPTH)
                                rc = raise_to(I, WARDER_ASK, text.data, NULL, WARDER_OP_EXECUTE,
                                              "shell commands nested too deeply");
                        else if (body_len)
                                rc = inspect_line(I, body, body_len, depth + 1, cwd);
                }
        }
        if (!rc && n > 0)
                rc = decide_arith_builtins(I, &C, name, cmd, info);
        /* §5.4.2: data only when the shell runs its own builtin of that exact name */
        bool builtin_run =
            (info->flags & C_DATA) && name < n && x[name].s && !memchr(x[name].s, '/', x[name].len);
        for (size_t k = 0; k < name && builtin_run; k++)
                if (wrapper[k] && !streq(x[k].s, "command") && !streq(x[k].s, "builtin") &&
                    !streq(x[k].s, "time"))
                        builtin_run = false; /* env, nice, exec, xargs, sudo … run a program */
        bool no_path = builtin_run && !I->builtins_redefined && (info->flags & C_DATA);
        bool all_write = info->flags & C_WRITE;
        /* §5.4: moving, linking or copying a file makes its contents readable under the new
         * name, so the sources of these are decided for read and for write */
        bool two_way = info->flags & C_TWO_WAY;
        bool is_dd = cmd && streq(cmd, "dd");
        bool is_sed_i = false, target_dir = false;
        /* §5.4.1: commands that act on everything beneath a directory argument */
        bool recursive = info->flags & C_RECURSIVE;
        const char *rflags = info->rflags;
        size_t last_operand = n, noperands = 0;
        bool opts = true;
        for (size_t k = name + 1; k < n && cmd; k++) {
                const char *s = x[k].s;
                if (!s)
                        continue;
                if (opts && streq(s, "--")) {
                        opts = false;
                        continue;
                }
                if (opts && s[0] == '-' && s[1]) {
                        if (rflags && (s[1] == '-' ? strncmp(s, "--recursive", 11) == 0 ||
                                                         streq(s, "--archive") ||
                                                         streq(s, "--dereference-recursive")
                                                   : strpbrk(s + 1, rflags) != NULL))
                                recursive = true;
                        if (streq(cmd, "sed") &&
                            (strncmp(s, "--in-place", 10) == 0 || (s[1] != '-' && strchr(s, 'i'))))
                                is_sed_i = true;
                        /* -t DIR, --target-directory=DIR: every operand is a source; install
                         * -d: every operand is a directory to create */
                        if (two_way && (strncmp(s, "--target-directory", 18) == 0 ||
                                        (s[1] != '-' && strchr(s, 't')) ||
                                        (streq(cmd, "install") && s[1] != '-' && strchr(s, 'd'))))
                                target_dir = true;
                        if (two_way && streq(s, "-t") && k + 1 < n)
                                k++;
                        continue;
                }
                last_operand = k;
                noperands++;
        }
        I->seg_subtree = recursive ? ST_EXPECT_DIR : two_way ? ST_IF_DIR : ST_NONE;
        opts = true;
        for (size_t k = name + 1; k < n && !rc && !no_path; k++) {
                enum warder_op op = WARDER_OP_READ;
                if (all_write || is_sed_i || two_way)
                        op = WARDER_OP_WRITE;
                if (is_dd && x[k].s && strncmp(x[k].s, "of=", 3) == 0)
                        op = WARDER_OP_WRITE;
                bool was_opts = opts;
                if (opts && x[k].s && streq(x[k].s, "--"))
                        opts = false;
                if (two_way && was_opts && x[k].s && streq(x[k].s, "-t")) {
                        /* -t DIR: the destination is the option's value */
                        rc = word_candidates(I, &C, k, WARDER_OP_WRITE, true, false);
                        if (!rc && k + 1 < n)
                                rc = word_candidates(I, &C, ++k, WARDER_OP_WRITE, false, false);
                        continue;
                }
                bool option = was_opts && x[k].s && x[k].s[0] == '-' && x[k].s[1];
                bool source =
                    two_way && !option && (target_dir || noperands < 2 || k != last_operand);
                if (source)
                        rc = word_candidates(I, &C, k, WARDER_OP_READ, was_opts, false);
                if (!rc)
                        rc = word_candidates(I, &C, k, op, was_opts, false);
        }
        if (!rc && cmd && streq(cmd, "ln"))
                rc = ln_targets(I, &C, name);
        /* Redirections (§5.4). */
        for (uint32_t r = 0; r < seg->nredirs && !rc; r++) {
                const struct warder__sh_redir *rd = &p->redirs[seg->first_redir + r];
                enum warder_op op;
                if (rd->kind == WARDER__SH_R_IN)
                        op = WARDER_OP_READ;
                else if (rd->kind == WARDER__SH_R_OUT || rd->kind == WARDER__SH_R_INOUT)
                        op = WARDER_OP_WRITE;
                else
                        continue;
                const struct warder__sh_word *t = &p->words[rd->word];
                if (t->flags & WARDER__SH_W_PROCSUBST)
                        continue;
                struct xword tx;
                rc = expand_word(I, p, t, &tx);
                if (!rc) {
                        if (tx.undet) {
                                char note[128];
                                snprintf(note, sizeof(note),
                                         "a redirection target that cannot be determined (%s)",
                                         tx.undet);
                                rc = raise_to(I, WARDER_ASK, text.data, t->text, op, note);
                        } else
                                rc = decide_path(I, tx.s, tx.len, tx.g, cwd, op, text.data);
                }
                xword_free(&tx);
        }
        I->seg_subtree = ST_NONE;
        if (rc || is_final(I) || !cmd)
                goto out;
        if (!rc && (streq(cmd, "cd") || streq(cmd, "pushd") || streq(cmd, "popd")) && !stopped)
                rc = track_cd(I, &C, name, st);
out:
        for (size_t k = 0; x && k < n; k++)
                xword_free(&x[k]);
        free(x);
        free(wrapper);
        warder__buf_free(&text);
        warder__buf_free(&script);
        return rc;
}

/* ---- lines -------------------------------------------------------------------------------- */

/* The whole line for §5.2: trimmed, runs of blanks outside quotes squeezed to one space. */
static int squeeze(struct warder__buf *b, const char *s, size_t len)
{
        warder__buf_truncate(b, 0);
        int rc = warder__buf_reserve(b, len);
        if (rc)
                return rc;
        size_t i = 0;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
                       s[len - 1] == '\r'))
                len--;
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
                i++;
        char q = 0;
        for (; i < len; i++) {
                char c = s[i];
                if (q) {
                        if (c == q)
                                q = 0;
                        else if (c == '\\' && q == '"' && i + 1 < len)
                                b->data[b->len++] = s[i++];
                        b->data[b->len++] = s[i];
                        continue;
                }
                if (c == '\\' && i + 1 < len) {
                        b->data[b->len++] = c;
                        b->data[b->len++] = s[++i];
                        continue;
                }
                if (c == '\'' || c == '"')
                        q = c;
                if (c == ' ' || c == '\t') {
                        while (i + 1 < len && (s[i + 1] == ' ' || s[i + 1] == '\t'))
                                i++;
                        c = ' ';
                }
                b->data[b->len++] = c;
        }
        b->data[b->len] = '\0';
        return 0;
}

static int scope_init(struct scope_state *sc, const struct warder__sh_parse *p, uint32_t s,
                      const struct cwdset *initial)
{
        if (sc[s].inited)
                return 0;
        int rc;
        if (s == 0) {
                rc = cwdset_copy(&sc[0].set, initial);
        } else {
                uint32_t parent = p->scope_parent[s];
                if (parent >= s)
                        parent = 0;
                rc = scope_init(sc, p, parent, initial);
                if (!rc)
                        rc = cwdset_copy(&sc[s].set,
                                         sc[parent].has_ovr ? &sc[parent].ovr : &sc[parent].set);
        }
        sc[s].inited = true;
        return rc;
}

/* Whether the line is one simple command without redirections whose written form (words
 * joined by single spaces) is the squeezed line itself. */
static bool same_as_only_form(const struct warder__sh_parse *p, const char *sq, size_t n)
{
        if (p->status || p->nsegments != 1 || p->segments[0].nredirs || !p->segments[0].nwords)
                return false;
        const struct warder__sh_segment *seg = &p->segments[0];
        size_t off = 0;
        for (uint32_t k = 0; k < seg->nwords; k++) {
                const struct warder__sh_word *w = &p->words[seg->first_word + k];
                if (k) {
                        if (off >= n || sq[off] != ' ')
                                return false;
                        off++;
                }
                if (off + w->len > n || memcmp(sq + off, w->text, w->len) != 0)
                        return false;
                off += w->len;
        }
        return off == n;
}

static int inspect_line(struct insp *I, const char *line, size_t len, unsigned depth,
                        const struct cwdset *cwd)
{
        struct warder__buf sq = WARDER__BUF_INIT;
        int rc = mark_rebound(I, line, len);
        if (!rc)
                rc = squeeze(&sq, line, len);
        if (rc)
                return rc;
        struct warder__sh_parse p;
        rc = warder__sh_parse(&p, line, len, NULL);
        /* §5.2: the whole line against deny and ask rules, unless it is exactly the one
         * simple command's written form, which meets every rule below anyway. */
        if (!rc && !same_as_only_form(&p, sq.data, sq.len)) {
                struct warder_decision d = WARDER_DECISION_INIT;
                if (warder__ruleset_match_execute(I->rs, sq.data, sq.len, true, &d))
                        rc = consider(I, &d, sq.data, NULL, WARDER_OP_EXECUTE);
        }
        for (const char *b = line;
             !rc && !I->dbracket && (b = memchr(b, '[', len - (size_t)(b - line))); b++)
                I->dbracket = b + 1 < line + len && b[1] == '[';
        for (size_t k = 0; !rc && k < p.narith && !is_final(I); k++)
                rc = decide_arith(I, p.arith[k].text, p.arith[k].len, sq.data);
        if (!rc && p.status) {
                const char *note =
                    (p.status & WARDER__SH_LIMIT)         ? "the command exceeds a parser limit"
                    : (p.status & WARDER__SH_UNPARSEABLE) ? "the command cannot be parsed"
                                                          : "a here-document that may run commands";
                rc = raise_to(I, WARDER_ASK, sq.data, NULL, WARDER_OP_EXECUTE, note);
        }
        struct scope_state *sc = NULL;
        if (!rc && p.nsegments) {
                sc = calloc(p.nscopes ? p.nscopes : 1, sizeof(*sc));
                if (!sc)
                        rc = WARDER_ENOMEM;
        }
        for (size_t k = 0; k < p.nsegments && !rc && !is_final(I); k++) {
                const struct warder__sh_segment *seg = &p.segments[k];
                uint32_t s = seg->scope < p.nscopes ? seg->scope : 0;
                rc = scope_init(sc, &p, s, cwd);
                if (!rc)
                        rc = decide_segment(I, &p, seg, &sc[s], depth);
                if (rc)
                        break;
                /* and-or chains: a cd followed by && is certain until the chain ends (§5.6) */
                switch (seg->op_after) {
                case WARDER__SH_OP_AND:
                case WARDER__SH_OP_PIPE:
                        break;
                case WARDER__SH_OP_OR:
                        sc[s].impure = true;
                        sc[s].has_ovr = false;
                        break;
                case WARDER__SH_OP_END:
                case WARDER__SH_OP_SEMI:
                case WARDER__SH_OP_NL:
                case WARDER__SH_OP_BG:
                default:
                        sc[s].impure = false;
                        sc[s].has_ovr = false;
                        break;
                }
        }
        for (size_t k = 0; sc && k < (p.nscopes ? p.nscopes : 1); k++) {
                cwdset_clear(&sc[k].set);
                cwdset_clear(&sc[k].ovr);
        }
        free(sc);
        warder__sh_parse_free(&p);
        warder__buf_free(&sq);
        return rc;
}

WARDER_API int warder_ruleset_check_command(struct warder_decision *out, const warder_ruleset *rs,
                                            const char *command, size_t len,
                                            const struct warder_command_context *ctx,
                                            struct warder_error *err)
{
        if (!rs || !command || !out || out->version != WARDER_DECISION_VERSION)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        if (len == 0 || memchr(command, '\0', len))
                return warder_error_set(err, WARDER_EINVAL, "empty command or NUL byte");
        if (ctx && (ctx->version == 0 || ctx->version > WARDER_COMMAND_CONTEXT_VERSION))
                return warder_error_set(err, WARDER_EINVAL, "unknown command context version %u",
                                        ctx->version);
        struct insp I = {.rs = rs, .ctx = ctx};
        if (ctx && ctx->version >= 2) /* `ls` came with version 2 */
                I.ls = ctx->ls;
        I.xio = (struct warder__expand_io){
            .realpath = ctx ? ctx->realpath : NULL,
            .ls = I.ls,
            .ud = ctx ? ctx->ud : NULL,
            .max_lists = MAX_GLOB_LISTS,
            .max_entries = MAX_GLOB_ENTRIES,
            .max_results = MAX_GLOB,
        };
        I.root = warder_ruleset_root(rs);
        I.home = warder_ruleset_home(rs);
        I.env_home = env_lookup(ctx, "HOME", 4);
        if (I.env_home && I.env_home[0] != '/')
                I.env_home = NULL;
        I.cdpath = env_lookup(ctx, "CDPATH", 6);
        while (ctx && ctx->env && ctx->env[I.nenv])
                I.nenv++;
        if (I.nenv && !(I.env_rebound = calloc(I.nenv, sizeof(*I.env_rebound))))
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        I.best = (struct warder_decision)WARDER_DECISION_INIT;
        struct cwdset start = {0};
        int rc = 0;
        const char *cwd = ctx && ctx->cwd ? ctx->cwd : I.root;
        if (!cwd || cwd[0] != '/') {
                rc = warder_error_set(err, WARDER_EINVAL, "the current directory must be absolute");
                goto out;
        }
        rc = warder__path_normalize_buf(&I.path, NULL, NULL, NULL, cwd, strlen(cwd), err);
        if (!rc)
                rc = cwdset_add(&start, I.path.data);
        if (!rc)
                rc = inspect_line(&I, command, len, 0, &start);
        if (rc) {
                if (rc == WARDER_ENOMEM)
                        warder_error_set(err, rc, "out of memory");
                goto out;
        }
        if (!I.have_best) { /* nothing at all (a comment only): the default decides */
                struct warder_decision d = WARDER_DECISION_INIT;
                d.by_default = true;
                d.action = warder_ruleset_default(rs, WARDER_OP_EXECUTE);
                rc = consider(&I, &d, NULL, NULL, WARDER_OP_EXECUTE);
                if (rc)
                        goto out;
        }
        I.best.op = WARDER_OP_EXECUTE;
        *out = I.best;
        I.best = (struct warder_decision)WARDER_DECISION_INIT;
out:
        warder_decision_clear(&I.best);
        cwdset_clear(&start);
        warder__buf_free(&I.path);
        warder__buf_free(&I.pat);
        warder__buf_free(&I.tmp);
        free(I.env_rebound);
        return rc;
}
