/* SPDX-License-Identifier: MIT */
/*
 * warder lint: load errors, and warnings about rules that cannot do what they seem to do.
 *
 * Warnings rest on concrete example paths: for every rule, a few paths are built from its
 * anchored alternatives (warder_ruleset_rule_alternatives(): stars, `**` and classes filled
 * in), kept only when the ruleset confirms the rule matches them, and then the ruleset is
 * asked which other rules match them too. A warning is printed only
 * with an example the ruleset itself confirms, so it is never about an imagined path; a
 * "never decides" warning says that no example of the rule escaped an earlier rule.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "warder/tooling.h"

#define MAX_SAMPLES 12

struct samples {
        char *v[MAX_SAMPLES];
        size_t n;
};

struct sbuf {
        char *p;
        size_t len, cap;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 64;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *p = realloc(b->p, cap);
                if (!p)
                        abort();
                b->p = p;
                b->cap = cap;
        }
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
        sb_putn(b, s, strlen(s));
}

/* End of the class starting at p[i] == '[' (index of its ']'), or n when unclosed. */
static size_t class_end(const char *p, size_t n, size_t i)
{
        size_t j = i + 1;
        if (j < n && (p[j] == '!' || p[j] == '^'))
                j++;
        if (j < n && p[j] == ']')
                j++;
        for (; j < n; j++) {
                if (p[j] == '\\' && j + 1 < n)
                        j++;
                else if (p[j] == '[' && j + 1 < n && p[j + 1] == ':') {
                        const char *e = memchr(p + j + 2, ']', n - j - 2);
                        if (e && e > p + j + 2 && e[-1] == ':')
                                j = (size_t)(e - p);
                } else if (p[j] == ']')
                        return j;
        }
        return n;
}

/* A byte the class at p[0..len) (brackets included) matches, or -1. */
static int class_member(const char *cls, size_t len, bool command)
{
        static const char candidates[] = "aqx0Z_-.9A~!+ @#%,:=/";
        warder_glob *g = NULL;
        if (warder_glob_compile(&g, cls, len, command ? WARDER_GLOB_COMMAND : 0, NULL))
                return -1;
        int found = -1;
        for (const char *c = candidates; *c && found < 0; c++)
                if (warder_glob_match(g, c, 1) == 1)
                        found = (unsigned char)*c;
        for (int c = 1; c < 256 && found < 0; c++) {
                char ch = (char)c;
                if (warder_glob_match(g, &ch, 1) == 1)
                        found = c;
        }
        warder_glob_free(g);
        return found;
}

/* One concrete string the brace-free pattern names; `variant` picks the fillings. */
static void fill(const char *p, size_t n, unsigned variant, bool command, struct sbuf *out)
{
        static const char *const stars[] = {"", "x", "x.y", "xq"};
        static const char *const dstars[] = {"", "d/", "d/e/", "d/"};
        for (size_t i = 0; i < n; i++) {
                char c = p[i];
                if (c == '\\' && i + 1 < n) {
                        sb_putn(out, p + i + 1, 1);
                        i++;
                } else if (c == '?') {
                        sb_puts(out, "q");
                } else if (c == '[') {
                        size_t e = class_end(p, n, i);
                        int m = e < n ? class_member(p + i, e + 1 - i, command) : -1;
                        char ch = (char)(m < 0 ? 'q' : m);
                        sb_putn(out, &ch, 1);
                        i = e < n ? e : n;
                } else if (c == '*') {
                        size_t j = i;
                        while (j < n && p[j] == '*')
                                j++;
                        bool component = !command && j - i >= 2 && (i == 0 || p[i - 1] == '/') &&
                                         (j == n || p[j] == '/');
                        if (component && j < n) {
                                sb_puts(out, dstars[variant % 4]);
                                j++; /* the '/' after ** */
                        } else if (component) {
                                sb_puts(out, "f");
                        } else {
                                sb_puts(out, stars[variant % 4]);
                        }
                        i = j - 1;
                } else {
                        sb_putn(out, p + i, 1);
                }
        }
}

static void add_sample(struct samples *s, char *v)
{
        for (size_t i = 0; i < s->n; i++) {
                if (strcmp(s->v[i], v) == 0) {
                        free(v);
                        return;
                }
        }
        if (s->n < MAX_SAMPLES)
                s->v[s->n++] = v;
        else
                free(v);
}

/* Example targets for rule `index`: its anchored alternatives (semantics §2.11, as the
 * ruleset itself anchors them) with stars, classes and `**` filled in. */
static void make_samples(const warder_ruleset *rs, enum warder_op op, size_t index,
                         struct samples *s)
{
        static const unsigned order[] = {1, 2, 0, 3}; /* "x" fillings first: readable examples */
        char **alts = NULL;
        size_t nalts = 0;
        if (warder_ruleset_rule_alternatives(&alts, &nalts, rs, op, index, NULL))
                return;
        for (size_t k = 0; k < nalts; k++) {
                for (size_t o = 0; o < 4; o++) {
                        struct sbuf body = {0};
                        fill(alts[k], strlen(alts[k]), order[o], op == WARDER_OP_EXECUTE, &body);
                        if (body.p && body.len)
                                add_sample(s, body.p);
                        else
                                free(body.p);
                }
        }
        warder_ruleset_strv_free(alts, nalts);
}

static void free_samples(struct samples *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        s->n = 0;
}

/* Rules matching `target` (via explain); NULL when the ruleset refuses the target. */
static struct warder_explanation *matches_of(const warder_ruleset *rs, enum warder_op op,
                                             const char *target)
{
        struct warder_explanation *ex = NULL;
        if (warder_ruleset_explain(&ex, rs, op, target, strlen(target), NULL, 0, NULL))
                return NULL;
        return ex;
}

static bool has_match(const struct warder_explanation *ex, size_t index)
{
        for (size_t i = 0; i < ex->count; i++)
                if (ex->matches[i].rule.index == index)
                        return true;
        return false;
}

struct lint_state {
        const char *file;
        size_t warnings;
        json_t *json; /* the warnings array with --json, else NULL */
};

static void warn(struct lint_state *st, const struct warder_rule_info *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(struct lint_state *st, const struct warder_rule_info *r, const char *fmt, ...)
{
        char *msg = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if (st->json) {
                json_array_append_new(
                    st->json,
                    json_pack("{s:o,s:i,s:i,s:s,s:o,s:o}", "file", warder_json_str(r->file), "line",
                              (int)r->line, "column", (int)r->column, "op", warder_op_name(r->op),
                              "rule", warder_json_str(r->id), "message", warder_json_str(msg)));
        } else {
                cli_write_safe(stdout, r->file, strlen(r->file));
                printf(":%u:%u: warning: %s\n", r->line, r->column, msg);
        }
        free(msg);
        st->warnings++;
}

static void lint_duplicates(struct lint_state *st, const warder_ruleset *rs, enum warder_op op,
                            bool *quiet)
{
        size_t n = warder_ruleset_rule_count(rs, op);
        for (size_t j = 0; j < n; j++) {
                struct warder_rule_info b = WARDER_RULE_INFO_INIT;
                warder_ruleset_rule(&b, rs, op, j);
                for (size_t i = 0; i < j; i++) {
                        struct warder_rule_info a = WARDER_RULE_INFO_INIT;
                        warder_ruleset_rule(&a, rs, op, i);
                        if (a.action == b.action && strcmp(a.pattern, b.pattern) == 0) {
                                quiet[j] = true;
                                warn(st, &b, "%s rule %s duplicates rule %s ('%s', %s:%u)",
                                     warder_op_name(op), b.id, a.id, a.pattern, a.file, a.line);
                                break;
                        }
                }
        }
}

/* A rule none of whose examples it decides: first-match (an earlier rule always matches) or
 * strictness (another rule at least as strict always matches). */
static void lint_shadowed(struct lint_state *st, const warder_ruleset *rs, enum warder_op op,
                          bool *quiet)
{
        bool by_order =
            op != WARDER_OP_EXECUTE && warder_ruleset_precedence(rs) == WARDER_FIRST_MATCH;
        size_t n = warder_ruleset_rule_count(rs, op);
        for (size_t j = 0; j < n; j++) {
                struct warder_rule_info b = WARDER_RULE_INFO_INIT;
                warder_ruleset_rule(&b, rs, op, j);
                struct samples s = {0};
                make_samples(rs, op, j, &s);
                size_t confirmed = 0, covered = 0, cover_rule = SIZE_MAX;
                char *example = NULL;
                for (size_t k = 0; k < s.n; k++) {
                        struct warder_explanation *ex = matches_of(rs, op, s.v[k]);
                        if (!ex || !has_match(ex, j)) {
                                warder_explanation_free(ex);
                                continue;
                        }
                        confirmed++;
                        size_t coverer = SIZE_MAX;
                        for (size_t m = 0; m < ex->count && coverer == SIZE_MAX; m++) {
                                const struct warder_rule_info *r = &ex->matches[m].rule;
                                if (r->index == j)
                                        continue;
                                if (by_order ? r->index < j : r->action >= b.action)
                                        coverer = r->index;
                        }
                        if (coverer != SIZE_MAX) {
                                covered++;
                                if (cover_rule == SIZE_MAX)
                                        cover_rule = coverer;
                                if (!example)
                                        example = strdup(s.v[k]);
                        }
                        warder_explanation_free(ex);
                }
                if (confirmed > 0 && covered == confirmed && cover_rule != SIZE_MAX) {
                        struct warder_rule_info a = WARDER_RULE_INFO_INIT;
                        warder_ruleset_rule(&a, rs, op, cover_rule);
                        quiet[j] = true;
                        if (!(a.action == b.action && strcmp(a.pattern, b.pattern) == 0))
                                warn(st, &b,
                                     "%s rule %s ('%s') can never decide: %s rule %s ('%s', "
                                     "%s:%u)%s "
                                     "matches every %s it names, e.g. '%s'",
                                     warder_op_name(op), b.id, b.pattern,
                                     by_order ? "the earlier" : "the", a.id, a.pattern, a.file,
                                     a.line, by_order ? "" : ", at least as strict,",
                                     op == WARDER_OP_EXECUTE ? "command" : "path", example);
                }
                free(example);
                free_samples(&s);
        }
}

/* Under first-match, an allow rule that decides some (not all) paths of a later deny/ask. */
static void lint_allow_before_deny(struct lint_state *st, const warder_ruleset *rs,
                                   enum warder_op op, const bool *quiet)
{
        if (op == WARDER_OP_EXECUTE || warder_ruleset_precedence(rs) != WARDER_FIRST_MATCH)
                return;
        size_t n = warder_ruleset_rule_count(rs, op);
        for (size_t j = 0; j < n; j++) {
                struct warder_rule_info b = WARDER_RULE_INFO_INIT;
                warder_ruleset_rule(&b, rs, op, j);
                if (b.action == WARDER_ALLOW || quiet[j])
                        continue;
                struct samples sb = {0};
                make_samples(rs, op, j, &sb);
                for (size_t i = 0; i < j; i++) {
                        struct warder_rule_info a = WARDER_RULE_INFO_INIT;
                        warder_ruleset_rule(&a, rs, op, i);
                        if (a.action != WARDER_ALLOW)
                                continue;
                        struct samples sa = {0}, cand = {0};
                        make_samples(rs, op, i, &sa);
                        for (size_t k = 0; k < sb.n; k++)
                                add_sample(&cand, strdup(sb.v[k]));
                        /* paths of b placed inside the directories of a's examples */
                        for (size_t x = 0; x < sa.n; x++) {
                                const char *slash = strrchr(sa.v[x], '/');
                                for (size_t k = 0; slash && k < sb.n; k++) {
                                        char *c = NULL;
                                        const char *tail = strrchr(sb.v[k], '/');
                                        if (asprintf(&c, "%.*s%s", (int)(slash - sa.v[x]), sa.v[x],
                                                     tail ? tail : sb.v[k]) >= 0)
                                                add_sample(&cand, c);
                                }
                        }
                        const char *example = NULL;
                        for (size_t k = 0; k < cand.n && !example; k++) {
                                struct warder_explanation *ex = matches_of(rs, op, cand.v[k]);
                                if (ex && ex->count && ex->matches[0].rule.index == i &&
                                    has_match(ex, j))
                                        example = cand.v[k];
                                warder_explanation_free(ex);
                        }
                        if (example)
                                warn(st, &b,
                                     "%s rule %s (%s '%s') is partly shadowed by the earlier allow "
                                     "rule "
                                     "%s ('%s', %s:%u): under first-match '%s' is allowed although "
                                     "this rule matches it",
                                     warder_op_name(op), b.id, warder_action_name(b.action),
                                     b.pattern, a.id, a.pattern, a.file, a.line, example);
                        free_samples(&sa);
                        free_samples(&cand);
                        if (example)
                                break;
                }
                free_samples(&sb);
        }
}

/* An execute allow rule whose pattern also matches a chained command line (§5.2). */
static void lint_broad_execute(struct lint_state *st, const warder_ruleset *rs)
{
        size_t n = warder_ruleset_rule_count(rs, WARDER_OP_EXECUTE);
        for (size_t j = 0; j < n; j++) {
                struct warder_rule_info r = WARDER_RULE_INFO_INIT;
                warder_ruleset_rule(&r, rs, WARDER_OP_EXECUTE, j);
                if (r.action != WARDER_ALLOW)
                        continue;
                warder_glob *g = NULL;
                if (warder_glob_compile(&g, r.pattern, strlen(r.pattern), WARDER_GLOB_COMMAND,
                                        NULL))
                        continue;
                struct samples s = {0};
                make_samples(rs, WARDER_OP_EXECUTE, j, &s);
                char *best = NULL;
                for (size_t k = 0; k < s.n; k++) {
                        char *chained = NULL;
                        if (asprintf(&chained, "%s; rm -rf ~", s.v[k]) < 0)
                                continue;
                        if (warder_glob_match(g, chained, strlen(chained)) == 1 &&
                            (!best || strlen(chained) < strlen(best))) {
                                free(best);
                                best = chained;
                        } else {
                                free(chained);
                        }
                }
                if (best)
                        warn(st, &r,
                             "execute allow rule %s ('%s') also matches the chained command "
                             "'%s'. warder decides each simple command of a line on its own "
                             "and the line as a whole only against deny and ask rules "
                             "(docs/semantics.md §5.2), so this rule cannot allow it here; "
                             "a checker that takes the first matching rule for the whole line "
                             "would",
                             r.id, r.pattern, best);
                free(best);
                free_samples(&s);
                warder_glob_free(g);
        }
}

/* Above this many, the rules every check runs are worth a warning (each costs a comparison or
 * a pattern match on every target). */
#define LINT_ALWAYS 32

static void lint_index(struct lint_state *st, const warder_ruleset *rs, enum warder_op op)
{
        struct warder_ruleset_index_stats s = WARDER_RULESET_INDEX_STATS_INIT;
        struct warder_rule_info r = WARDER_RULE_INFO_INIT;
        if (warder_ruleset_index_stats(&s, rs, op, NULL) || s.always < LINT_ALWAYS ||
            warder_ruleset_rule(&r, rs, op, s.first_always))
                return;
        warn(st, &r,
             "%s: every check runs %zu of the %zu rules, which name no literal the index can "
             "key on (no fixed directory, basename, extension or text); this is the first",
             warder_op_name(op), s.always, s.rules);
}

static void lint_help(void)
{
        printf("Usage: warder lint [--strict] [--json] [--root DIR] [--home DIR] FILE...\n"
               "\n"
               "Load each ruleset FILE and report load errors as `file:line:col: error: …` and\n"
               "warnings as `file:line:col: warning: …`:\n"
               "  - a rule that can never decide because other rules match every path it names\n"
               "    (with an example path both match);\n"
               "  - a duplicate rule;\n"
               "  - under first-match, an allow rule before a deny or ask rule that it partly\n"
               "    shadows (with an example path);\n"
               "  - an execute allow rule broad enough to match a chained command line;\n"
               "  - more than 32 rules of one operation that every check must run, because\n"
               "    they name nothing the index can key on (with their count).\n"
               "\n"
               "Exit status: 0 (warnings too, unless --strict, then 1), 2 a file did not load.\n");
}

int cli_cmd_lint(int argc, char **argv, struct cli_common *c)
{
        bool strict = false, only_files = false;
        const char **files = calloc((size_t)argc, sizeof(*files));
        size_t nfiles = 0;
        if (!files)
                return CLI_ERROR;
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i];
                if (!only_files && cli_is_help(arg)) {
                        free(files);
                        lint_help();
                        return CLI_OK;
                }
                if (!only_files && strcmp(arg, "--") == 0) {
                        only_files = true;
                } else if (!only_files && strcmp(arg, "--strict") == 0) {
                        strict = true;
                } else if (!only_files && arg[0] == '-' && arg[1] != '\0') {
                        free(files);
                        return cli_usage("lint", "unknown option '%s'", arg);
                } else {
                        files[nfiles++] = arg;
                }
        }
        if (nfiles == 0) {
                free(files);
                return cli_usage("lint", "no FILE given");
        }
        char *root = NULL, *home = NULL;
        int rc = cli_common_dirs(c, &root, &home);
        if (rc) {
                free(files);
                return rc;
        }
        bool load_error = false;
        size_t warnings = 0;
        json_t *list = c->json ? json_array() : NULL;
        for (size_t i = 0; i < nfiles; i++) {
                struct cli_common one = *c;
                one.rules = files[i];
                one.preset = NULL;
                warder_ruleset *rs = NULL;
                if (cli_load_ruleset(&one, root, home, &rs)) {
                        load_error = true;
                        continue;
                }
                struct lint_state st = {.file = files[i], .json = list};
                for (int op = 0; op < WARDER_OP_COUNT; op++) {
                        size_t n = warder_ruleset_rule_count(rs, (enum warder_op)op);
                        bool *quiet = calloc(n + 1, sizeof(*quiet));
                        if (!quiet)
                                break;
                        lint_duplicates(&st, rs, (enum warder_op)op, quiet);
                        lint_shadowed(&st, rs, (enum warder_op)op, quiet);
                        lint_allow_before_deny(&st, rs, (enum warder_op)op, quiet);
                        lint_index(&st, rs, (enum warder_op)op);
                        free(quiet);
                }
                lint_broad_execute(&st, rs);
                warnings += st.warnings;
                warder_ruleset_free(rs);
        }
        free(files);
        free(root);
        free(home);
        if (c->json && (rc = cli_json_print(
                            json_pack("{s:o,s:b}", "warnings", list, "load_errors", load_error))))
                return rc;
        if (load_error)
                return CLI_USAGE;
        return strict && warnings ? CLI_DENY : CLI_OK;
}
