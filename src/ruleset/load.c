/* SPDX-License-Identifier: MIT */
/*
 * The ruleset format, version 1: strict interpretation of the YAML tree into rules (every
 * error names file, line and column), `extends` (§1.7) and the §1.8 limits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load.h"
#include "uthash-safe.h"

#define MAX_EXTENDS 8

static const char *const top_keys[] = {"warder", "default", "precedence", "fold_case", "extends",
                                       "tests",  "read",    "write",      "edit",      "ls",
                                       "glob",   "grep",    "execute"};
static const char *const op_keys[] = {"default", "rules"};
/* A rule's keys, in the order of rule_keys: the long form, then the short forms. */
enum rule_key { RK_PATTERN, RK_ACTION, RK_REASON, RK_ID, RK_ALLOW, RK_DENY, RK_ASK, RK_COUNT };
static const char *const rule_keys[RK_COUNT] = {
    [RK_PATTERN] = "pattern", [RK_ACTION] = "action", [RK_REASON] = "reason", [RK_ID] = "id",
    [RK_ALLOW] = "allow",     [RK_DENY] = "deny",     [RK_ASK] = "ask"};
static const char *const tests_keys[] = {"root", "home", "cases"};
static const char *const case_keys[] = {"op", "target", "expect", "real"};
static const char *const action_names[] = {"allow", "ask", "deny"};
static const char *const prec_names[] = {"first-match", "strictest"};

size_t warder__levenshtein(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        if (la > 64 || lb > 64)
                return SIZE_MAX;
        size_t row[65];
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t prev = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t cur = row[j];
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t best = prev + cost;
                        if (row[j] + 1 < best)
                                best = row[j] + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        prev = cur;
                }
        }
        return row[lb];
}

const char *warder__suggest(const char *word, const char *const *names, size_t n)
{
        const char *best = NULL;
        size_t bd = 3;
        for (size_t i = 0; i < n; i++) {
                size_t d = warder__levenshtein(word, names[i]);
                if (d < bd) {
                        bd = d;
                        best = names[i];
                }
        }
        return best;
}

static int errf(struct loader *L, const char *file, const struct warder__ynode *n, int code,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int errf(struct loader *L, const char *file, const struct warder__ynode *n, int code,
                const char *fmt, ...)
{
        char msg[480];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return warder__error_set_at(L->err, code, file, n ? n->line : 1, n ? n->column : 1, "%s",
                                    msg);
}

static const char *describe(const struct warder__ynode *n)
{
        switch ((enum warder__ynode_type)n->type) {
        case WARDER__Y_SEQ:
                return "a list";
        case WARDER__Y_MAP:
                return "a mapping";
        case WARDER__Y_SCALAR:
                break;
        }
        switch ((enum warder__yscalar)n->stype) {
        case WARDER__YS_NULL:
                return "null";
        case WARDER__YS_BOOL:
                return "a boolean";
        case WARDER__YS_INT:
                return "an integer";
        case WARDER__YS_FLOAT:
                return "a number";
        case WARDER__YS_STR:
                break;
        }
        return "a string";
}

/* Escapes a scalar for a one-line message (control bytes shown as '?'), capped. */
static const char *shown(const char *s, char *buf, size_t cap)
{
        size_t j = 0;
        for (size_t i = 0; s[i] && j + 4 < cap; i++)
                buf[j++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        if (s[j] && j + 4 >= cap) {
                memcpy(buf + j, "...", 3);
                j += 3;
        }
        buf[j] = '\0';
        return buf;
}

/*
 * A file the caller did not name (reached through `extends`, and not a preset) may be one the
 * caller could not otherwise read: an error quotes at most a short prefix of a value from it,
 * so that no load error carries a line of such a file.
 */
#define QUOTE_FOREIGN 6

static bool foreign(const struct loader *L, const char *file)
{
        return L->top && file && file != L->top && strncmp(file, "preset:", 7) != 0;
}

/* shown(), cut to QUOTE_FOREIGN bytes when the value comes from a foreign file. */
static const char *quoted(const struct loader *L, const char *file, const char *s, char *buf,
                          size_t cap)
{
        if (foreign(L, file) && cap > QUOTE_FOREIGN + 4)
                cap = QUOTE_FOREIGN + 4;
        return shown(s, buf, cap);
}

static int want_string(struct loader *L, const char *file, const struct warder__ynode *n,
                       const char *what, const char **out)
{
        if (n->type != WARDER__Y_SCALAR || n->stype != WARDER__YS_STR)
                return errf(
                    L, file, n, WARDER_EPARSE, "'%s' must be a string, not %s%s", what, describe(n),
                    n->type == WARDER__Y_SCALAR && n->stype != WARDER__YS_NULL ? " (quote it)"
                                                                               : "");
        if (strlen(n->value) != n->len)
                return errf(L, file, n, WARDER_EPARSE, "'%s' contains a NUL byte", what);
        *out = n->value;
        return 0;
}

static int want_kind(struct loader *L, const char *file, const struct warder__ynode *n,
                     enum warder__ynode_type type, const char *what)
{
        if (n->type == type)
                return 0;
        return errf(L, file, n, WARDER_EPARSE, "'%s' must be %s, not %s", what,
                    type == WARDER__Y_MAP ? "a mapping" : "a list", describe(n));
}

static int want_name(struct loader *L, const char *file, const struct warder__ynode *n,
                     const char *what, const char *const *names, size_t count, const char *expected,
                     size_t *out)
{
        const char *s;
        int rc = want_string(L, file, n, what, &s);
        if (rc)
                return rc;
        for (size_t i = 0; i < count; i++) {
                if (strcmp(s, names[i]) == 0) {
                        *out = i;
                        return 0;
                }
        }
        char b[80];
        const char *hint = warder__suggest(s, names, count);
        if (hint)
                return errf(L, file, n, WARDER_EPARSE, "unknown %s '%s' (did you mean '%s'?)", what,
                            quoted(L, file, s, b, sizeof(b)), hint);
        return errf(L, file, n, WARDER_EPARSE, "unknown %s '%s' (expected %s)", what,
                    quoted(L, file, s, b, sizeof(b)), expected);
}

static int want_action(struct loader *L, const char *file, const struct warder__ynode *n,
                       enum warder_action *out)
{
        size_t i;
        int rc = want_name(L, file, n, "action", action_names, 3, "allow, ask or deny", &i);
        if (!rc)
                *out = (enum warder_action)i;
        return rc;
}

/*
 * Checks that a mapping's keys are strings, known and unique. Returns the index in `names`
 * of each pair's key through `which`. A mapping with more keys than `names` holds a duplicate
 * or an unknown key, reported where it stands before anything is written past `count`
 * entries: `which` needs `count` entries whatever the mapping's size.
 */
static int check_keys(struct loader *L, const char *file, const struct warder__ynode *map,
                      const char *where, const char *const *names, size_t count, size_t *which)
{
        for (size_t i = 0; i + 1 < map->n; i += 2) {
                const struct warder__ynode *k = map->items[i];
                if (k->type != WARDER__Y_SCALAR || k->stype != WARDER__YS_STR)
                        return errf(L, file, k, WARDER_EPARSE, "keys must be strings, not %s",
                                    describe(k));
                size_t found = count;
                for (size_t j = 0; j < count; j++)
                        if (strcmp(k->value, names[j]) == 0)
                                found = j;
                char b[80];
                if (found == count) {
                        const char *hint = warder__suggest(k->value, names, count);
                        if (hint)
                                return errf(L, file, k, WARDER_EPARSE,
                                            "unknown key '%s' in %s (did you mean '%s'?)",
                                            quoted(L, file, k->value, b, sizeof(b)), where, hint);
                        return errf(L, file, k, WARDER_EPARSE, "unknown key '%s' in %s",
                                    quoted(L, file, k->value, b, sizeof(b)), where);
                }
                for (size_t j = 0; j < i / 2; j++) {
                        if (which[j] == found) {
                                const struct warder__ynode *first = map->items[2 * j];
                                return errf(L, file, k, WARDER_EPARSE,
                                            "duplicate key '%s' in %s (first at line %u)",
                                            names[found], where, first->line);
                        }
                }
                which[i / 2] = found;
        }
        return 0;
}

struct seen_id {
        UT_hash_handle hh;
        unsigned line;
        char id[];
};

static void ids_free(struct seen_id **ids)
{
        struct seen_id *e, *tmp;
        HASH_ITER(hh, *ids, e, tmp)
        {
                HASH_DEL(*ids, e);
                free(e);
        }
}

static bool reserved_id(const char *id)
{
        const char *colon = strchr(id, ':');
        if (!colon || !colon[1])
                return false;
        for (const char *p = colon + 1; *p; p++)
                if (*p < '0' || *p > '9')
                        return false;
        for (size_t i = 0; i < WARDER_OP_COUNT; i++)
                if (strlen(warder__op_names[i]) == (size_t)(colon - id) &&
                    memcmp(id, warder__op_names[i], (size_t)(colon - id)) == 0)
                        return true;
        return false;
}

static int parse_rule(struct loader *L, struct raw *raw, enum warder_op op, size_t index,
                      const struct warder__ynode *m, struct seen_id **ids)
{
        const char *file = raw->file;
        int rc = want_kind(L, file, m, WARDER__Y_MAP, "rule");
        if (rc)
                return rc;
        size_t which[RK_COUNT];
        if ((rc = check_keys(L, file, m, "a rule", rule_keys, RK_COUNT, which)))
                return rc;
        const struct warder__ynode *pattern = NULL, *action = NULL, *reason = NULL, *id = NULL,
                                   *shortv = NULL, *shortk = NULL;
        enum warder_action act = WARDER_ASK;
        for (size_t i = 0; i < m->n / 2; i++) {
                const struct warder__ynode *v = m->items[2 * i + 1];
                switch ((enum rule_key)which[i]) {
                case RK_PATTERN:
                        pattern = v;
                        break;
                case RK_ACTION:
                        action = v;
                        break;
                case RK_REASON:
                        reason = v;
                        break;
                case RK_ID:
                        id = v;
                        break;
                case RK_ALLOW:
                case RK_DENY:
                case RK_ASK:
                case RK_COUNT:
                        if (shortv)
                                return errf(L, file, m->items[2 * i], WARDER_EPARSE,
                                            "a rule has exactly one of 'allow', 'deny' or 'ask' "
                                            "(found '%s' and '%s')",
                                            shortk->value, m->items[2 * i]->value);
                        shortv = v;
                        shortk = m->items[2 * i];
                        act = which[i] == RK_ALLOW  ? WARDER_ALLOW
                              : which[i] == RK_DENY ? WARDER_DENY
                                                    : WARDER_ASK;
                        break;
                }
        }
        if (shortv && (pattern || action))
                return errf(L, file, pattern ? m->items[0] : shortk, WARDER_EPARSE,
                            "a rule is either '%s: PATTERN' or 'pattern:' with 'action:', not both",
                            shortk->value);
        if (!shortv && !pattern)
                return errf(L, file, m, WARDER_EPARSE,
                            "a rule needs a pattern: write '- deny: PATTERN' or 'pattern:' with "
                            "'action:'");
        if (!shortv && !action)
                return errf(L, file, m, WARDER_EPARSE,
                            "a rule with 'pattern:' needs 'action:' (allow, ask or deny)");
        const struct warder__ynode *pv = shortv ? shortv : pattern;
        const char *pat, *why = NULL, *ident = NULL;
        if ((rc = want_string(L, file, pv, "pattern", &pat)))
                return rc;
        if (!pat[0])
                return errf(L, file, pv, WARDER_EPARSE, "empty pattern");
        if (action && (rc = want_action(L, file, action, &act)))
                return rc;
        if (reason && (rc = want_string(L, file, reason, "reason", &why)))
                return rc;
        if (id) {
                if ((rc = want_string(L, file, id, "id", &ident)))
                        return rc;
                char b[80];
                if (!ident[0])
                        return errf(L, file, id, WARDER_EPARSE, "empty rule id");
                if (reserved_id(ident))
                        return errf(L, file, id, WARDER_EPARSE,
                                    "rule id '%s' has the form '<operation>:<number>', which is "
                                    "reserved for generated ids",
                                    quoted(L, file, ident, b, sizeof(b)));
                struct seen_id *s = NULL;
                HASH_FIND_STR(*ids, ident, s);
                if (s)
                        return errf(L, file, id, WARDER_EPARSE,
                                    "duplicate rule id '%s' (first at line %u)",
                                    quoted(L, file, ident, b, sizeof(b)), s->line);
                size_t len = strlen(ident);
                s = malloc(sizeof(*s) + len + 1);
                if (!s)
                        return WARDER_ENOMEM;
                memcpy(s->id, ident, len + 1);
                s->line = id->line;
                warder__hash_oom = false;
                HASH_ADD(hh, *ids, id[0], len, s);
                if (warder__hash_oom) {
                        free(s);
                        return WARDER_ENOMEM;
                }
        }
        if (L->total_rules >= L->max_rules)
                return errf(L, file, m, WARDER_ETOOBIG, "more than %zu rules", L->max_rules);
        /* The copies below, and all the compiling after, grow with the text of every rule:
         * an alias used a thousand times is a thousand patterns. */
        size_t plen = strlen(pat);
        if (plen > L->max_pattern_bytes - L->pattern_bytes)
                return errf(L, file, m, WARDER_ETOOBIG,
                            "the patterns of the ruleset total more than %zu bytes (an alias "
                            "counts every time it is used; the host can raise "
                            "max_pattern_bytes)",
                            L->max_pattern_bytes);
        L->pattern_bytes += plen;
        struct raw_op *o = &raw->ops[op];
        if (o->n == o->cap) {
                size_t cap = o->cap ? o->cap * 2 : 8;
                struct raw_rule *r = realloc(o->rules, cap * sizeof(*r));
                if (!r)
                        return WARDER_ENOMEM;
                o->rules = r;
                o->cap = cap;
        }
        struct raw_rule *r = &o->rules[o->n];
        memset(r, 0, sizeof(*r));
        r->action = act;
        r->file = file;
        r->line = m->line;
        r->column = m->column;
        r->pline = pv->line;
        r->pcolumn = pv->column;
        r->pcontent_column = pv->content_column;
        r->foreign = foreign(L, file);
        r->pattern = warder__arena_strndup(L->arena, pat, plen);
        r->reason = why ? warder__arena_strndup(L->arena, why, strlen(why)) : NULL;
        if (ident) {
                r->id = warder__arena_strndup(L->arena, ident, strlen(ident));
        } else {
                /* "<op>:<index>", without printf (a large ruleset has many) */
                char digits[24], *d = digits + sizeof(digits);
                size_t v = index;
                do
                        *--d = (char)('0' + v % 10);
                while ((v /= 10) != 0);
                size_t on = strlen(warder__op_names[op]),
                       dn = (size_t)(digits + sizeof(digits) - d);
                if ((r->id = warder__arena_alloc(L->arena, on + 1 + dn + 1))) {
                        memcpy(r->id, warder__op_names[op], on);
                        r->id[on] = ':';
                        memcpy(r->id + on + 1, d, dn);
                        r->id[on + 1 + dn] = '\0';
                }
        }
        if (!r->pattern || !r->id || (why && !r->reason))
                return WARDER_ENOMEM;
        o->n++;
        L->total_rules++;
        return 0;
}

static int parse_op(struct loader *L, struct raw *raw, enum warder_op op,
                    const struct warder__ynode *m, struct seen_id **ids)
{
        const char *file = raw->file;
        int rc = want_kind(L, file, m, WARDER__Y_MAP, warder__op_names[op]);
        if (rc)
                return rc;
        size_t which[2];
        char where[64];
        snprintf(where, sizeof(where), "'%s'", warder__op_names[op]);
        if ((rc = check_keys(L, file, m, where, op_keys, 2, which)))
                return rc;
        struct raw_op *o = &raw->ops[op];
        o->present = true;
        for (size_t i = 0; i < m->n / 2; i++) {
                const struct warder__ynode *v = m->items[2 * i + 1];
                if (which[i] == 0) {
                        if ((rc = want_action(L, file, v, &o->def)))
                                return rc;
                        o->has_default = true;
                        continue;
                }
                if ((rc = want_kind(L, file, v, WARDER__Y_SEQ, "rules")))
                        return rc;
                /* room for the whole list at once (no more than the rule limit allows) */
                size_t want = v->n, left = L->max_rules - L->total_rules + 1;
                if (want > left)
                        want = left;
                if (want > o->cap - o->n) {
                        size_t cap = o->n + want;
                        struct raw_rule *r = realloc(o->rules, cap * sizeof(*r));
                        if (!r)
                                return WARDER_ENOMEM;
                        o->rules = r;
                        o->cap = cap;
                }
                for (size_t j = 0; j < v->n; j++)
                        if ((rc = parse_rule(L, raw, op, j, v->items[j], ids)))
                                return rc;
        }
        return 0;
}

static int parse_tests(struct loader *L, struct raw *raw, const struct warder__ynode *m)
{
        const char *file = raw->file;
        int rc = want_kind(L, file, m, WARDER__Y_MAP, "tests");
        size_t which[3];
        if (rc || (rc = check_keys(L, file, m, "'tests'", tests_keys, 3, which)))
                return rc;
        raw->has_tests = true;
        for (size_t i = 0; i < m->n / 2; i++) {
                const struct warder__ynode *v = m->items[2 * i + 1];
                const char *s;
                if (which[i] < 2) {
                        if ((rc = want_string(L, file, v, tests_keys[which[i]], &s)))
                                return rc;
                        if (s[0] != '/')
                                return errf(L, file, v, WARDER_EPARSE,
                                            "'%s' must be an absolute path", tests_keys[which[i]]);
                        char **dst = which[i] == 0 ? &raw->troot : &raw->thome;
                        if (!(*dst = strdup(s)))
                                return WARDER_ENOMEM;
                        continue;
                }
                if ((rc = want_kind(L, file, v, WARDER__Y_SEQ, "cases")))
                        return rc;
                raw->cases = calloc(v->n ? v->n : 1, sizeof(*raw->cases));
                if (!raw->cases)
                        return WARDER_ENOMEM;
                for (size_t j = 0; j < v->n; j++) {
                        const struct warder__ynode *c = v->items[j];
                        size_t cw[4];
                        if ((rc = want_kind(L, file, c, WARDER__Y_MAP, "test case")))
                                return rc;
                        if ((rc = check_keys(L, file, c, "a test case", case_keys, 4, cw)))
                                return rc;
                        struct warder__test_case *tc = &raw->cases[raw->ncases];
                        bool have[4] = {false, false, false, false};
                        for (size_t k = 0; k < c->n / 2; k++) {
                                const struct warder__ynode *cv = c->items[2 * k + 1];
                                size_t idx;
                                have[cw[k]] = true;
                                switch (cw[k]) {
                                case 0:
                                        rc = want_name(
                                            L, file, cv, "operation", warder__op_names,
                                            WARDER_OP_COUNT,
                                            "read, write, edit, ls, glob, grep or execute", &idx);
                                        tc->op = (enum warder_op)idx;
                                        break;
                                case 1:
                                case 3:
                                        rc = want_string(L, file, cv, case_keys[cw[k]], &s);
                                        if (!rc && !s[0])
                                                rc = errf(L, file, cv, WARDER_EPARSE, "empty '%s'",
                                                          case_keys[cw[k]]);
                                        if (!rc &&
                                            !(*(cw[k] == 1 ? &tc->target : &tc->real) = strdup(s)))
                                                rc = WARDER_ENOMEM;
                                        break;
                                default:
                                        rc = want_action(L, file, cv, &tc->expect);
                                        break;
                                }
                                if (rc)
                                        break;
                        }
                        tc->line = c->line;
                        tc->column = c->column;
                        raw->ncases++;
                        if (rc)
                                return rc;
                        if (!have[0] || !have[1] || !have[2])
                                return errf(L, file, c, WARDER_EPARSE,
                                            "a test case needs 'op', 'target' and 'expect'");
                        if (tc->real && tc->op == WARDER_OP_EXECUTE)
                                return errf(L, file, c, WARDER_EPARSE,
                                            "'real' does not apply to 'execute' cases");
                }
        }
        return 0;
}

void warder__raw_free(struct raw *raw)
{
        for (size_t op = 0; op < WARDER_OP_COUNT; op++) {
                struct raw_op *o = &raw->ops[op];
                free(o->rules); /* their strings are in the loader's arena */
        }
        for (size_t i = 0; i < raw->ncases; i++) {
                free(raw->cases[i].target);
                free(raw->cases[i].real);
        }
        free(raw->cases);
        free(raw->troot);
        free(raw->thome);
        free(raw->extends);
        memset(raw, 0, sizeof(*raw));
}

/* Interprets one file's document into `raw` (no extends followed yet). */
static int interpret(struct loader *L, struct raw *raw, const struct warder__ynode *root)
{
        const char *file = raw->file;
        if (!root || (root->type == WARDER__Y_SCALAR && root->stype == WARDER__YS_NULL))
                return errf(L, file, NULL, WARDER_EPARSE,
                            "missing 'warder: 1' (the format version): the file is empty");
        if (root->type != WARDER__Y_MAP)
                return errf(L, file, root, WARDER_EPARSE,
                            "a ruleset is a mapping that starts with 'warder: 1', not %s",
                            describe(root));
        /* The version comes first: a newer format is reported as such, not as unknown keys. */
        const struct warder__ynode *version = NULL;
        for (size_t i = 0; i + 1 < root->n; i += 2) {
                const struct warder__ynode *k = root->items[i];
                if (k->type == WARDER__Y_SCALAR && k->stype == WARDER__YS_STR &&
                    strcmp(k->value, "warder") == 0 && !version)
                        version = root->items[i + 1];
        }
        if (!version)
                return errf(L, file, root, WARDER_EPARSE,
                            "missing 'warder: 1' (the format version) in the top-level mapping");
        if (version->type != WARDER__Y_SCALAR || version->stype != WARDER__YS_INT)
                return errf(L, file, version, WARDER_EPARSE,
                            "'warder' must be the integer format version 1, not %s",
                            describe(version));
        const char *vs = version->value;
        long long num = vs[0] == '0' && vs[1] == 'x'   ? strtoll(vs + 2, NULL, 16)
                        : vs[0] == '0' && vs[1] == 'o' ? strtoll(vs + 2, NULL, 8)
                                                       : strtoll(vs, NULL, 10);
        if (num != 1) {
                char b[40];
                return errf(L, file, version, WARDER_EPARSE,
                            "unsupported format version %s (this library reads version 1)",
                            quoted(L, file, version->value, b, sizeof(b)));
        }
        size_t which[WARDER__ARRAY_SIZE(top_keys)];
        int rc = check_keys(L, file, root, "the top level", top_keys, WARDER__ARRAY_SIZE(top_keys),
                            which);
        if (rc)
                return rc;
        struct seen_id *ids = NULL;
        for (size_t i = 0; i < root->n / 2 && !rc; i++) {
                const struct warder__ynode *v = root->items[2 * i + 1];
                size_t idx;
                const char *s;
                bool b;
                switch (which[i]) {
                case 0:
                        break;
                case 1:
                        rc = want_action(L, file, v, &raw->def);
                        raw->has_default = true;
                        break;
                case 2:
                        rc = want_name(L, file, v, "precedence", prec_names, 2,
                                       "first-match or strictest", &idx);
                        raw->prec = (enum warder_precedence)idx;
                        raw->has_prec = true;
                        break;
                case 3:
                        if (v->type != WARDER__Y_SCALAR || v->stype != WARDER__YS_BOOL) {
                                rc =
                                    errf(L, file, v, WARDER_EPARSE,
                                         "'fold_case' must be true or false, not %s%s", describe(v),
                                         v->type == WARDER__Y_SCALAR && v->stype == WARDER__YS_STR
                                             ? " (yes/no/on/off are strings in YAML 1.2)"
                                             : "");
                                break;
                        }
                        b = v->value[0] == 't' || v->value[0] == 'T';
                        raw->fold = b;
                        raw->has_fold = true;
                        break;
                case 4:
                        rc = want_string(L, file, v, "extends", &s);
                        if (!rc && !s[0])
                                rc = errf(L, file, v, WARDER_EPARSE, "empty 'extends'");
                        if (!rc && !(raw->extends = strdup(s)))
                                rc = WARDER_ENOMEM;
                        raw->ext_line = v->line;
                        raw->ext_column = v->column;
                        break;
                case 5:
                        rc = parse_tests(L, raw, v);
                        break;
                default:
                        rc = parse_op(L, raw, (enum warder_op)(which[i] - 6), v, &ids);
                        break;
                }
        }
        ids_free(&ids);
        return rc;
}

const char *warder__intern(struct loader *L, const char *name)
{
        warder_ruleset *rs = L->rs;
        for (size_t i = 0; i < rs->nfiles; i++)
                if (strcmp(rs->files[i], name) == 0)
                        return rs->files[i];
        char **f = realloc(rs->files, (rs->nfiles + 1) * sizeof(*f));
        if (!f)
                return NULL;
        rs->files = f;
        if (!(f[rs->nfiles] = strdup(name)))
                return NULL;
        return f[rs->nfiles++];
}

/*
 * Reads a ruleset file: regular files only. The file is opened with O_NONBLOCK, so a FIFO,
 * a device or /dev/stdin (a pipe or a terminal) is refused at once instead of blocking the
 * loader, and its type is checked on the open descriptor, not the name.
 */
int warder__read_file(const char *path, size_t max, char **out, size_t *len, const char *shown_as,
                      struct warder_error *err)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                int e = errno;
                return warder__error_set_at(err, e == ENOENT ? WARDER_ENOENT : WARDER_EIO, shown_as,
                                            0, 0, "cannot open '%s': %s", path, strerror(e));
        }
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
                bool dir = S_ISDIR(st.st_mode);
                close(fd);
                return warder__error_set_at(
                    err, WARDER_ENOTREG, shown_as, 0, 0, "cannot read '%s': %s", path,
                    dir ? "it is a directory, not a regular file" : "not a regular file");
        }
        /* room for the size the file has now (it may still change: the loop reads to the
         * end whatever it is, and a larger file still grows the buffer) */
        size_t cap = 4096, n = 0;
        if (st.st_size > 0 && (uintmax_t)st.st_size < (uintmax_t)max + 2)
                cap = (size_t)st.st_size + 1;
        char *buf = malloc(cap + 1);
        int rc = buf ? 0 : WARDER_ENOMEM;
        while (!rc) {
                if (n == cap) {
                        if (cap > max)
                                break;
                        cap *= 2;
                        char *p = realloc(buf, cap + 1);
                        if (!p) {
                                rc = WARDER_ENOMEM;
                                break;
                        }
                        buf = p;
                }
                ssize_t got = read(fd, buf + n, cap - n);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0) {
                        rc = warder__error_set_at(err, WARDER_EIO, shown_as, 0, 0,
                                                  "cannot read '%s': %s", path, strerror(errno));
                        break;
                }
                if (got == 0)
                        break;
                n += (size_t)got;
                if (n > max)
                        break;
        }
        close(fd);
        if (!rc && n > max)
                rc = warder__error_set_at(err, WARDER_ETOOBIG, shown_as, 0, 0,
                                          "'%s' is larger than %zu bytes (the host can raise "
                                          "max_file_size)",
                                          path, max);
        if (rc) {
                if (rc == WARDER_ENOMEM)
                        warder_error_set(err, rc, "out of memory");
                free(buf);
                return rc;
        }
        buf[n] = '\0';
        *out = buf;
        *len = n;
        return 0;
}

static const struct warder__preset *find_preset(const char *name)
{
        for (size_t i = 0; i < warder__npresets; i++)
                if (strcmp(warder__presets[i].name, name) == 0)
                        return &warder__presets[i];
        return NULL;
}

static char *dir_of(const char *path)
{
        const char *slash = strrchr(path, '/');
        if (!slash)
                return strdup(".");
        if (slash == path)
                return strdup("/");
        return strndup(path, (size_t)(slash - path));
}

static bool is_path_ref(const char *s)
{
        size_t n = strlen(s);
        return strchr(s, '/') || (n >= 5 && strcmp(s + n - 5, ".yaml") == 0) ||
               (n >= 4 && strcmp(s + n - 4, ".yml") == 0);
}

/* §1.7: this file's rules first, then the base's; settings are the file's, else the base's. */
static int merge(struct raw *top, struct raw *base)
{
        for (size_t op = 0; op < WARDER_OP_COUNT; op++) {
                struct raw_op *t = &top->ops[op], *b = &base->ops[op];
                if (!t->has_default) {
                        if (top->has_default) {
                                t->def = top->def;
                                t->has_default = true;
                        } else if (b->has_default) {
                                t->def = b->def;
                                t->has_default = true;
                        } else if (base->has_default) {
                                t->def = base->def;
                                t->has_default = true;
                        }
                }
                if (b->n) {
                        struct raw_rule *r = realloc(t->rules, (t->n + b->n) * sizeof(*r));
                        if (!r)
                                return WARDER_ENOMEM;
                        memcpy(r + t->n, b->rules, b->n * sizeof(*r));
                        t->rules = r;
                        t->n += b->n;
                        t->cap = t->n;
                        free(b->rules);
                        b->rules = NULL;
                        b->n = b->cap = 0;
                }
        }
        if (!top->has_default && base->has_default) {
                top->def = base->def;
                top->has_default = true;
        }
        if (!top->has_prec && base->has_prec) {
                top->prec = base->prec;
                top->has_prec = true;
        }
        if (!top->has_fold && base->has_fold) {
                top->fold = base->fold;
                top->has_fold = true;
        }
        return 0;
}

int warder__load_source(struct loader *L, const char *text, size_t len, const char *display,
                        const char *identity, const char *dir, size_t depth, struct raw *out)
{
        struct raw raw;
        memset(&raw, 0, sizeof(raw));
        if (!(raw.file = warder__intern(L, display)))
                return warder_error_set(L->err, WARDER_ENOMEM, "out of memory");
        if (depth == 0)
                L->top = raw.file;
        if (len > L->max_file_size)
                return warder__error_set_at(L->err, WARDER_ETOOBIG, display, 0, 0,
                                            "the ruleset is larger than %zu bytes (the host can "
                                            "raise max_file_size)",
                                            L->max_file_size);
        if (memchr(text, '\0', len))
                return warder__error_set_at(L->err, WARDER_EPARSE, display, 0, 0,
                                            "the ruleset contains a NUL byte");
        struct warder__ydoc doc;
        int rc = warder__yaml_parse(text, len, display, L->max_depth, L->max_nodes,
                                    foreign(L, raw.file) ? QUOTE_FOREIGN : 0, &doc, L->err);
        if (rc)
                return rc;
        rc = interpret(L, &raw, doc.root);
        warder__yaml_free(&doc);
        if (rc == WARDER_ENOMEM && L->err && L->err->code != rc)
                warder_error_set(L->err, rc, "out of memory");
        if (!rc && raw.extends) {
                struct raw base;
                memset(&base, 0, sizeof(base));
                char *btext = NULL, *bdisplay = NULL, *bident = NULL, *bdir = NULL;
                size_t blen = 0;
                const char *e = raw.extends;
                char b[80];
                if (depth + 1 > MAX_EXTENDS) {
                        rc = warder__error_set_at(
                            L->err, WARDER_ETOOBIG, raw.file, raw.ext_line, raw.ext_column,
                            "more than %d nested 'extends' (at '%s')", MAX_EXTENDS,
                            quoted(L, raw.file, e, b, sizeof(b)));
                } else if (is_path_ref(e)) {
                        if (e[0] == '/') {
                                bdisplay = strdup(e);
                        } else if (asprintf(&bdisplay, "%s/%s", dir, e) < 0) {
                                bdisplay = NULL;
                        }
                        if (!bdisplay)
                                rc = WARDER_ENOMEM;
                        char *real = bdisplay ? realpath(bdisplay, NULL) : NULL;
                        bident = real ? real : (bdisplay ? strdup(bdisplay) : NULL);
                        if (!rc && !bident)
                                rc = WARDER_ENOMEM;
                        if (!rc) {
                                struct warder_error fe = WARDER_ERROR_INIT;
                                rc = warder__read_file(bdisplay, L->max_file_size, &btext, &blen,
                                                       raw.file, &fe);
                                if (rc && rc != WARDER_ENOMEM && foreign(L, raw.file))
                                        warder__error_set_at(L->err, rc, raw.file, raw.ext_line,
                                                             raw.ext_column, "extends: '%s': %s",
                                                             quoted(L, raw.file, e, b, sizeof(b)),
                                                             warder_strerror(rc));
                                else if (rc && rc != WARDER_ENOMEM)
                                        warder__error_set_at(L->err, rc, raw.file, raw.ext_line,
                                                             raw.ext_column, "extends: %s",
                                                             fe.message);
                                else if (rc)
                                        warder_error_set(L->err, rc, "out of memory");
                                warder_error_clear(&fe);
                        }
                        if (!rc && !(bdir = dir_of(bdisplay)))
                                rc = WARDER_ENOMEM;
                } else {
                        const struct warder__preset *p = find_preset(e);
                        if (!p) {
                                const char *names[16];
                                size_t np = 0;
                                for (size_t i = 0; i < warder__npresets && np < 16; i++)
                                        names[np++] = warder__presets[i].name;
                                const char *hint = warder__suggest(e, names, np);
                                rc = warder__error_set_at(
                                    L->err, WARDER_EPARSE, raw.file, raw.ext_line, raw.ext_column,
                                    "unknown preset '%s'%s%s%s (a path must contain '/' or end in "
                                    ".yaml)",
                                    quoted(L, raw.file, e, b, sizeof(b)),
                                    hint ? " (did you mean '" : "", hint ? hint : "",
                                    hint ? "'?)" : "");
                        } else if (asprintf(&bdisplay, "preset:%s", p->name) < 0 ||
                                   !(bident = strdup(bdisplay)) ||
                                   !(btext = strndup(p->text, p->len)) || !(bdir = strdup(dir))) {
                                rc = WARDER_ENOMEM;
                        } else {
                                blen = p->len;
                        }
                }
                if (!rc) {
                        for (size_t i = 0; i < L->depth; i++) {
                                if (strcmp(L->chain[i], bident) == 0) {
                                        rc = warder__error_set_at(
                                            L->err, WARDER_EPARSE, raw.file, raw.ext_line,
                                            raw.ext_column,
                                            "'extends' cycle: '%s' is already being loaded",
                                            quoted(L, raw.file, e, b, sizeof(b)));
                                        break;
                                }
                        }
                }
                if (!rc) {
                        L->chain[L->depth++] = bident;
                        rc = warder__load_source(L, btext, blen, bdisplay, bident, bdir, depth + 1,
                                                 &base);
                        L->depth--;
                }
                if (!rc)
                        rc = merge(&raw, &base);
                if (rc == WARDER_ENOMEM && L->err && L->err->code != rc)
                        warder_error_set(L->err, rc, "out of memory");
                warder__raw_free(&base);
                free(btext);
                free(bdisplay);
                free(bident);
                free(bdir);
        }
        (void)identity;
        if (rc) {
                warder__raw_free(&raw);
                return rc;
        }
        *out = raw;
        return 0;
}
