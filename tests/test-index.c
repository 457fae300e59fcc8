/* SPDX-License-Identifier: MIT */
/* The keyed index decides exactly as a plain loop over every rule's full compiled matcher
 * (§1.5 both precedence modes, §2.11 anchoring, §2.12 fold_case), on generated rules; so does
 * the execute index (§5.1 literal prefixes, §5.2 strictest rule, whole line). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "ruleset/ruleset-internal.h"
#include "support.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
        rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned)((rng_state >> 33) % n);
}

static const char *const names[] = {
    "a", "b",      "src",      ".env", "x.c", "y.h",  "key",  ".git", "lib",  "A",  "Src", "r",
    "h", "id.KEY", "x.tar.gz", "e[1]", "q*",  "data", "svc1", ".ssh", "x12y", "c7", "X12", "ax1"};
static const char *const exts[] = {"c", "h", "pem", "key", "gz", "tar.gz", "KEY", "txt"};

static const char *pick(const char *const *v, size_t n)
{
        return v[rnd((unsigned)n)];
}

#define NAME pick(names, WARDER__ARRAY_SIZE(names))
#define EXT  pick(exts, WARDER__ARRAY_SIZE(exts))

/* A literal name made safe for a pattern. */
static void put_lit(struct warder__buf *b, const char *s)
{
        for (; *s; s++) {
                if (strchr("*?[]{}\\", *s))
                        warder__buf_putc(b, '\\');
                warder__buf_putc(b, *s);
        }
}

static void gen_pattern(struct warder__buf *b)
{
        switch (rnd(30)) {
        case 0:
                warder__buf_puts(b, "**/"), put_lit(b, NAME);
                break;
        case 1:
                warder__buf_printf(b, "**/*.%s", EXT);
                break;
        case 2:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/**");
                break;
        case 3:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/"),
                    put_lit(b, NAME);
                break;
        case 4:
                put_lit(b, NAME);
                break;
        case 5:
                put_lit(b, NAME), warder__buf_printf(b, "/**/*.%s", EXT);
                break;
        case 6:
                warder__buf_puts(b, "**/"), put_lit(b, NAME), warder__buf_puts(b, "/**");
                break;
        case 7:
                put_lit(b, NAME), warder__buf_puts(b, "/");
                break;
        case 8:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/*/"),
                    put_lit(b, NAME), warder__buf_puts(b, "/**");
                break;
        case 9:
                warder__buf_puts(b, "*"), put_lit(b, NAME), warder__buf_puts(b, "*");
                break;
        case 10:
                warder__buf_puts(b, "{/a,/b/"), put_lit(b, NAME), warder__buf_puts(b, "}/**");
                break;
        case 11:
                warder__buf_puts(b, "?.c");
                break;
        case 12:
                warder__buf_puts(b, "[ab]*");
                break;
        case 13:
                warder__buf_puts(b, "~/"), put_lit(b, NAME);
                break;
        case 14:
                warder__buf_puts(b, "./"), put_lit(b, NAME);
                break;
        case 15:
                put_lit(b, NAME), warder__buf_puts(b, "/**/"), put_lit(b, NAME);
                break;
        case 16:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/**/"),
                    put_lit(b, NAME);
                break;
        case 17:
                warder__buf_puts(b, "**/"), put_lit(b, NAME), warder__buf_puts(b, "/*");
                break;
        case 18:
                warder__buf_printf(b, "/r/%s/*.{c,h}", NAME[0] == '.' ? "d" : "e");
                break;
        case 19:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/"),
                    put_lit(b, NAME), warder__buf_printf(b, "/**/*.%s", EXT);
                break;
        case 20:
                warder__buf_puts(b, rnd(4) ? "**/.env.*" : "**");
                break;
        case 21:
                put_lit(b, NAME), warder__buf_puts(b, "*");
                break;
        case 22:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/**/*"),
                    put_lit(b, NAME), warder__buf_puts(b, "*");
                break;
        case 24: /* a directory component or an extension: the rarer one is the key */
                warder__buf_puts(b, "**/"), put_lit(b, NAME),
                    warder__buf_printf(b, "/**/*.%s", EXT);
                break;
        case 25: /* literals the basename must contain (BSUB grams) */
                warder__buf_puts(b, "**/*"), put_lit(b, NAME), warder__buf_puts(b, "*y");
                break;
        case 26: /* a literal a directory component must contain (PSUB grams) */
                warder__buf_puts(b, "**/[a-z]"), put_lit(b, NAME), warder__buf_puts(b, "*/**");
                break;
        case 27:
                warder__buf_puts(b, "**/?"), put_lit(b, NAME);
                break;
        case 28:
                warder__buf_puts(b, "/"), put_lit(b, NAME), warder__buf_puts(b, "/*"),
                    put_lit(b, NAME), warder__buf_puts(b, "?/**");
                break;
        default:
                warder__buf_printf(b, "**/test_*.%s", EXT);
                break;
        }
}

static void gen_path(struct warder__buf *b)
{
        warder__buf_truncate(b, 0);
        switch (rnd(4)) {
        case 0:
                warder__buf_puts(b, "/r");
                break;
        case 1:
                warder__buf_puts(b, "/h");
                break;
        default:
                break;
        }
        unsigned depth = 1 + rnd(5);
        for (unsigned i = 0; i < depth; i++) {
                warder__buf_putc(b, '/');
                if (rnd(6) == 0)
                        warder__buf_printf(b, "test_%s.%s", NAME, EXT);
                else if (rnd(5) == 0)
                        warder__buf_printf(b, "f.%s", EXT);
                else
                        warder__buf_puts(b, NAME);
        }
        if (rnd(50) == 0)
                warder__buf_truncate(b, 0), warder__buf_puts(b, "/");
}

static const char *const actions[] = {"allow", "ask", "deny"};

/* A rule compiled with every alternative in the matcher: the reference. */
static bool ref_match(const struct warder__rule *r, const char *t)
{
        int rc = warder_glob_match(r->glob, t, strlen(t));
        if (rc < 0)
                return r->action != WARDER_ALLOW;
        if (rc > 0)
                return true;
        if (r->glob_fold) {
                rc = warder_glob_match(r->glob_fold, t, strlen(t));
                if (rc < 0)
                        return r->action != WARDER_ALLOW;
                return rc > 0;
        }
        return false;
}

static void run_round(unsigned long long seed, bool strictest, bool fold, size_t nrules)
{
        rng_state = seed;
        struct warder__buf y = WARDER__BUF_INIT, p = WARDER__BUF_INIT;
        warder__buf_printf(&y, "warder: 1\nprecedence: %s\nfold_case: %s\nread:\n  rules:\n",
                           strictest ? "strictest" : "first-match", fold ? "true" : "false");
        for (size_t i = 0; i < nrules; i++) {
                warder__buf_truncate(&p, 0);
                gen_pattern(&p);
                warder__buf_printf(&y, "    - %s: '%s'\n", actions[rnd(3)], p.data);
        }
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.home = "/h";
        ck_assert_msg(warder_ruleset_load_string(&rs, y.data, y.len, "gen", &o, &err) == 0,
                      "%s:%u:%u: %s", err.file, err.line, err.column, err.message);
        const struct warder__opset *set = &rs->ops[WARDER_OP_READ];
        ck_assert_uint_eq(set->n, nrules);
        /* the reference: each rule again, every alternative in one matcher */
        struct warder__rule *ref = calloc(nrules, sizeof(*ref));
        for (size_t i = 0; i < nrules; i++) {
                ref[i].action = set->rules[i].action;
                ref[i].pattern = strdup(set->rules[i].pattern);
                ref[i].file = "gen";
                ck_assert_int_eq(
                    warder__rule_compile_path(&ref[i], "/r", "/h", fold, true, NULL, &err), 0);
                ck_assert_ptr_nonnull(ref[i].glob);
                ck_assert_uint_eq(ref[i].nalts, 0);
        }
        size_t keyed = 0;
        for (int k = 0; k < WARDER__K_COUNT; k++)
                keyed += set->idx.tab[k].n != 0;
        if (nrules >= 40)
                ck_assert_uint_gt(keyed, 2); /* the index is in use, not only the residual list */
        for (int i = 0; i < 3000; i++) {
                gen_path(&p);
                long want = -1;
                for (size_t r = 0; r < nrules; r++) {
                        if (want >= 0 && strictest && ref[r].action <= ref[want].action)
                                continue;
                        if (!ref_match(&ref[r], p.data))
                                continue;
                        want = (long)r;
                        if (!strictest)
                                break;
                }
                long got = warder__index_decide(rs, WARDER_OP_READ, p.data, p.len);
                long lin = warder__linear_decide(rs, WARDER_OP_READ, p.data, p.len);
                ck_assert_msg(got == want,
                              "seed %llu %s fold=%d: '%s': index %ld (%s), reference %ld (%s)",
                              seed, strictest ? "strictest" : "first-match", fold, p.data, got,
                              got >= 0 ? set->rules[got].pattern : "-", want,
                              want >= 0 ? set->rules[want].pattern : "-");
                ck_assert_int_eq(lin, want);
        }
        for (size_t i = 0; i < nrules; i++) {
                free(ref[i].pattern);
                ref[i].pattern = NULL;
                warder__rule_release(&ref[i]);
        }
        free(ref);
        warder_ruleset_free(rs);
        warder__buf_free(&y);
        warder__buf_free(&p);
}

START_TEST(test_index_equals_linear)
{
        for (unsigned long long seed = 1; seed <= 4; seed++) {
                run_round(seed * 7919 + (unsigned)_i, _i & 1, (_i >> 1) & 1, 40 + 60 * seed);
        }
}
END_TEST

START_TEST(test_index_small_sets)
{
        /* tiny rule sets stress the order between keyed and residual postings */
        for (unsigned long long seed = 100; seed < 160; seed++)
                run_round(seed, seed & 1, (seed >> 1) & 1, 1 + seed % 6);
}
END_TEST

/* ---- execute rules (§5.1, §5.2, §2.10, §2.12) ------------------------------------------- */

static const char *const words[] = {
    "git",  "Git",       "push", "status",       "rm",          "-rf",     "/",    "/etc",
    "mkfs", "mkfs.ext4", "dd",   "if=/dev/zero", "of=/dev/sda", "sudo",    "a",    "A",
    "ab",   "{a,b}",     "!ls",  "x=1",          "\xc3\xa9",    "--force", "Push", "s"};
static const char *const seps[] = {" ", " ", " ", "  ", "\t", " \t ", "\\ ", ""};
static const char *const wilds[] = {"*", "*", "?", "[a-c]", "[!s]", "**", "[ ]", "[gG]", "*?"};

#define WORD pick(words, WARDER__ARRAY_SIZE(words))

/* A word made literal for a command pattern, with the odd needless escape. */
static void put_cmd_lit(struct warder__buf *b, const char *s)
{
        for (; *s; s++) {
                if (strchr("*?[]\\", *s) || ((unsigned char)*s < 0x80 && rnd(12) == 0))
                        warder__buf_putc(b, '\\');
                warder__buf_putc(b, *s);
        }
}

static void gen_command_pattern(struct warder__buf *b)
{
        warder__buf_truncate(b, 0);
        if (rnd(5) == 0)
                warder__buf_puts(b, rnd(2) ? " " : "\t  ");
        if (rnd(6) == 0) /* residual: a wildcard first */
                warder__buf_puts(b, pick(wilds, WARDER__ARRAY_SIZE(wilds)));
        unsigned n = 1 + rnd(3);
        for (unsigned i = 0; i < n; i++) {
                if (i)
                        warder__buf_puts(b, pick(seps, WARDER__ARRAY_SIZE(seps)));
                put_cmd_lit(b, WORD);
                if (rnd(6) == 0)
                        warder__buf_puts(b, pick(wilds, WARDER__ARRAY_SIZE(wilds)));
        }
        switch (rnd(6)) {
        case 0:
        case 1:
                warder__buf_puts(b, rnd(3) ? " *" : "  \t*"); /* also matches without the tail */
                break;
        case 2:
                warder__buf_puts(b, "*");
                break;
        case 3:
                warder__buf_puts(b, rnd(2) ? "\\ *" : " ");
                break;
        default:
                break;
        }
}

static void gen_command_text(struct warder__buf *b)
{
        warder__buf_truncate(b, 0);
        unsigned n = rnd(5);
        for (unsigned i = 0; i < n; i++) {
                if (i)
                        warder__buf_puts(b, rnd(10) ? " " : rnd(2) ? "  " : "\t");
                const char *w = WORD;
                for (; *w; w++) {
                        char c = *w;
                        if (rnd(8) == 0 && ((c | 32) >= 'a' && (c | 32) <= 'z'))
                                c ^= 32;
                        warder__buf_putc(b, c);
                }
        }
        if (rnd(8) == 0)
                warder__buf_putc(b, ' ');
        if (rnd(10) == 0 && b->len) /* cut anywhere */
                warder__buf_truncate(b, rnd((unsigned)b->len));
}

/* The reference: each rule's compiled matcher in turn; the strictest match, the first among
 * equals; the whole line against deny and ask rules only. */
static long execute_reference(const warder_ruleset *rs, const char *text, bool whole_line)
{
        long best = -1;
        enum warder_action ba = WARDER_ALLOW;
        for (size_t i = 0; i < warder_ruleset_rule_count(rs, WARDER_OP_EXECUTE); i++) {
                struct warder_rule_info info = WARDER_RULE_INFO_INIT;
                ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_EXECUTE, i), 0);
                if (whole_line && info.action == WARDER_ALLOW)
                        continue;
                if (best >= 0 && info.action <= ba)
                        continue;
                bool m = false;
                ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_EXECUTE, i, text,
                                                           strlen(text), NULL),
                                 0);
                if (m) {
                        best = (long)i;
                        ba = info.action;
                }
        }
        return best;
}

static void run_execute_round(unsigned long long seed, bool fold, size_t nrules, size_t ntexts,
                              size_t *hits)
{
        rng_state = seed;
        struct warder__buf y = WARDER__BUF_INIT, p = WARDER__BUF_INIT;
        warder__buf_printf(&y, "warder: 1\nfold_case: %s\nexecute:\n  rules:\n",
                           fold ? "true" : "false");
        for (size_t i = 0; i < nrules; i++) {
                gen_command_pattern(&p);
                warder__buf_printf(&y, "    - %s: '%s'\n", actions[rnd(3)], p.data);
        }
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_load_string(&rs, y.data, y.len, "gen", NULL, &err) == 0,
                      "%s:%u:%u: %s", err.file, err.line, err.column, err.message);
        const struct warder__opset *set = &rs->ops[WARDER_OP_EXECUTE];
        ck_assert_uint_eq(set->n, nrules);
        if (nrules >= 40) { /* the index is in use, not only the residual list */
                ck_assert_uint_gt(set->xidx.exact.nlens + set->xidx.fold.nlens, 2);
                ck_assert_uint_gt(set->xidx.nresidual, 0);
                ck_assert(!fold || set->xidx.fold.nlens > 0);
        }
        for (size_t i = 0; i < ntexts; i++) {
                gen_command_text(&p);
                for (int whole = 0; whole < 2; whole++) {
                        long want = execute_reference(rs, p.data, whole);
                        struct warder_decision d = WARDER_DECISION_INIT;
                        bool got = warder__ruleset_match_execute(rs, p.data, p.len, whole, &d);
                        long gi = got ? (long)d.rule_index : -1;
                        ck_assert_msg(gi == want,
                                      "seed %llu fold=%d whole=%d: '%s': index %ld (%s), "
                                      "reference %ld (%s)",
                                      seed, fold, whole, p.data, gi,
                                      gi >= 0 ? set->rules[gi].pattern : "-", want,
                                      want >= 0 ? set->rules[want].pattern : "-");
                        if (got) {
                                ck_assert_int_eq(d.action, set->rules[gi].action);
                                ck_assert_int_eq(d.op, WARDER_OP_EXECUTE);
                                hits[d.action]++;
                        }
                        struct warder_decision l = WARDER_DECISION_INIT;
                        bool lin =
                            warder__ruleset_match_execute_linear(rs, p.data, p.len, whole, &l);
                        ck_assert_int_eq(lin, want >= 0);
                        ck_assert_int_eq(lin ? (long)l.rule_index : -1, want);
                }
        }
        warder_ruleset_free(rs);
        warder__buf_free(&y);
        warder__buf_free(&p);
}

START_TEST(test_execute_index_equals_linear)
{
        size_t hits[3] = {0, 0, 0};
        for (unsigned long long seed = 1; seed <= 4; seed++)
                run_execute_round(seed * 104729 + (unsigned)_i, _i & 1, 20 + 50 * seed, 300, hits);
        /* control: the generated texts do meet rules of every action */
        ck_assert_uint_gt(hits[WARDER_ALLOW], 20);
        ck_assert_uint_gt(hits[WARDER_ASK], 20);
        ck_assert_uint_gt(hits[WARDER_DENY], 20);
}
END_TEST

START_TEST(test_execute_index_small_sets)
{
        /* a handful of rules: many ties between keyed and residual postings */
        size_t hits[3] = {0, 0, 0};
        for (unsigned long long seed = 500; seed < 580; seed++)
                run_execute_round(seed, seed & 1, 1 + seed % 7, 50, hits);
        ck_assert_uint_gt(hits[WARDER_ALLOW] + hits[WARDER_ASK] + hits[WARDER_DENY], 100);
}
END_TEST

START_TEST(test_execute_index_examples)
{
        /* §5.1 by hand: the key of `git *` is "git"; blanks squeeze; escapes resolve; §2.12 */
        warder_ruleset *rs = NULL;
        const char *doc = "warder: 1\nfold_case: true\nexecute:\n  rules:\n"
                          "    - allow: 'git *'\n"        /* 0 */
                          "    - deny: '  git   push*'\n" /* 1 */
                          "    - ask: 'r\\m -rf /*'\n"    /* 2 */
                          "    - deny: '*mkfs*'\n"        /* 3 */
                          "    - allow: 'ls'\n"           /* 4 */
                          "    - ask: 'git\\ *'\n"        /* 5 */
                          "    - deny: 'DD if=*'\n";      /* 6 */
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, NULL, NULL), 0);
        static const struct {
                const char *text;
                long line, whole;
        } cases[] = {
            {"git", 0, -1},           {"git status", 5, 5},
            {"git push", 1, 1},       {"GIT PUSH -f", 1, 1},
            {"Git status", 5, 5},     {"rm -rf /x", 2, 2},
            {"sudo mkfs.ext4", 3, 3}, {"ls", 4, -1},
            {"ls -l", -1, -1},        {"dd if=/dev/zero", 6, 6},
            {"gitx", -1, -1},         {"", -1, -1},
        };
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                for (int whole = 0; whole < 2; whole++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        const char *t = cases[i].text;
                        bool got = warder__ruleset_match_execute(rs, t, strlen(t), whole, &d);
                        long want = whole ? cases[i].whole : cases[i].line;
                        ck_assert_msg((got ? (long)d.rule_index : -1) == want, "'%s' whole=%d", t,
                                      whole);
                        ck_assert_int_eq(want, execute_reference(rs, t, whole));
                        struct warder_decision l = WARDER_DECISION_INIT;
                        ck_assert_int_eq(
                            warder__ruleset_match_execute_linear(rs, t, strlen(t), whole, &l),
                            want >= 0);
                }
        }
        warder_ruleset_free(rs);
        /* no ruleset, no rule: neither matcher names one */
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert(!warder__ruleset_match_execute(NULL, "ls", 2, false, &d));
        ck_assert(!warder__ruleset_match_execute_linear(NULL, "ls", 2, false, &d));
}
END_TEST

/* ---- adversarial sets: no selective key, grams, the residual list ------------------------- */

/* Loads `nrules` rules made by fmt (one %u: the rule number) and checks the index against the
 * plain loop over the compiled rules on generated paths. */
static warder_ruleset *adversarial(const char *fmt, size_t nrules, bool strictest, bool fold,
                                   size_t npaths)
{
        struct warder__buf y = WARDER__BUF_INIT, p = WARDER__BUF_INIT;
        warder__buf_printf(&y, "warder: 1\nprecedence: %s\nfold_case: %s\nread:\n  rules:\n",
                           strictest ? "strictest" : "first-match", fold ? "true" : "false");
        for (size_t i = 0; i < nrules; i++) {
                warder__buf_printf(&y, "    - %s: '", actions[rnd(3)]);
                warder__buf_printf(&y, fmt, (unsigned)i);
                warder__buf_puts(&y, "'\n");
        }
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.home = "/h";
        ck_assert_msg(warder_ruleset_load_string(&rs, y.data, y.len, "adv", &o, &err) == 0,
                      "%s:%u:%u: %s", err.file, err.line, err.column, err.message);
        static const char *const parts[] = {"x%uy", "x%u.y", "a%u",   "%u",  "z%uq",  "X%uY",
                                            "y",    "ab%uz", "cq%u-", "x%u", "B%uy/", "%u/"};
        size_t matched = 0;
        for (size_t i = 0; i < npaths; i++) {
                warder__buf_truncate(&p, 0);
                warder__buf_puts(&p, "/r");
                unsigned n = 1 + rnd(6);
                for (unsigned k = 0; k < n; k++) {
                        warder__buf_putc(&p, rnd(3) ? '/' : '_');
                        warder__buf_printf(&p, parts[rnd(WARDER__ARRAY_SIZE(parts))],
                                           rnd(rnd(2) ? 12000 : 40));
                }
                if (p.data[p.len - 1] == '/')
                        warder__buf_putc(&p, 'f');
                struct warder__buf q = WARDER__BUF_INIT;
                warder__path_normalize_buf(&q, "/", NULL, NULL, p.data, p.len, NULL);
                long got = warder__index_decide(rs, WARDER_OP_READ, q.data, q.len);
                long want = warder__linear_decide(rs, WARDER_OP_READ, q.data, q.len);
                ck_assert_msg(got == want, "%s: '%s': index %ld, loop %ld", fmt, q.data, got, want);
                matched += want >= 0;
                warder__buf_free(&q);
        }
        ck_assert_uint_gt(matched, npaths / 50); /* control: the paths do meet the rules */
        warder__buf_free(&y);
        warder__buf_free(&p);
        return rs;
}

START_TEST(test_index_adversarial)
{
        /* the shapes: no whole-component key, only literals inside components */
        static const char *const fmts[] = {"**/*x%u*y", "**/[a-z]%u*/**", "**/*%u?y*"};
        rng_state = 7 + (unsigned)_i;
        const char *fmt = fmts[_i % 3];
        warder_ruleset *rs = adversarial(fmt, 10000, _i & 1, _i >= 3, 300);
        size_t residual = 0, largest = 0;
        warder__index_stats(&rs->ops[WARDER_OP_READ].idx, &residual, &largest);
        ck_assert_uint_eq(residual, 0);   /* every rule has a gram */
        ck_assert_uint_lt(largest, 2000); /* and no gram holds most of them */
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_index_no_literal)
{
        /* nothing to key on: every check runs every rule, and the index says so */
        rng_state = 99;
        warder_ruleset *rs = adversarial("**/[a-c]?%u[!x]*", 400, false, false, 300);
        warder_ruleset_free(rs);
        rs = adversarial("**/*[0-9]*[!%u]", 400, true, true, 300);
        size_t residual = 0, largest = 0;
        warder__index_stats(&rs->ops[WARDER_OP_READ].idx, &residual, &largest);
        ck_assert_uint_eq(residual, 400);
        /* the public report `warder lint` prints */
        struct warder_ruleset_index_stats st = WARDER_RULESET_INDEX_STATS_INIT;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), 0);
        ck_assert_uint_eq(st.rules, 400);
        ck_assert_uint_eq(st.always, 400);
        ck_assert_uint_eq(st.first_always, 0);
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_WRITE, NULL), 0);
        ck_assert_uint_eq(st.always, 0);
        ck_assert_uint_eq(st.first_always, SIZE_MAX);
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_COUNT, NULL), WARDER_EINVAL);
        warder_ruleset_free(rs);
}
END_TEST

/* A rule whose exact alternative and matcher alternative both have nothing to key on: both
 * are run on every check, the matcher too — a path only the matcher's alternative names is
 * still found. */
START_TEST(test_index_residual_parts)
{
        static const char *const patterns[] = {"{**/*q*,**/[0-9]*}", "{**/q*,**/[0-9]*}",
                                               "{**/*q,**/[0-9]*}", "{**/*q*,**/?[0-9]}"};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(patterns); i++) {
                char doc[256];
                snprintf(doc, sizeof(doc),
                         "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: '%s'\n",
                         patterns[i]);
                warder_ruleset *rs = NULL;
                ck_assert_int_eq(
                    warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, NULL, NULL), 0);
                /* control: the matcher's alternative alone names the first path */
                const char *only = i == 3 ? "/r/x5" : "/r/5";
                ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, only, strlen(only)), 0);
                static const char *const targets[] = {"/r/5", "/r/d/x5", "/r/q", "/r/xqx", "/r/ab"};
                for (size_t c = 0; c < WARDER__ARRAY_SIZE(targets); c++) {
                        const char *t = targets[c];
                        long lin = warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t));
                        long got = warder__index_decide(rs, WARDER_OP_READ, t, strlen(t));
                        ck_assert_msg(got == lin, "%s %s: index %ld, linear %ld", patterns[i], t,
                                      got, lin);
                }
                warder_ruleset_free(rs);
        }
}
END_TEST

/* The execute report `warder lint` prints: commands that start with a wildcard have no key and
 * run on every check; the first of them is named. Bad arguments are refused. */
START_TEST(test_execute_index_stats)
{
        static const char doc[] = "warder: 1\nexecute:\n  rules:\n    - allow: 'git *'\n"
                                  "    - deny: '*mkfs*'\n    - ask: '*curl *'\n"
                                  "    - deny: 'rm -rf *'\n";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, NULL, NULL), 0);
        struct warder_ruleset_index_stats st = WARDER_RULESET_INDEX_STATS_INIT;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_EXECUTE, NULL), 0);
        ck_assert_uint_eq(st.rules, 4);
        ck_assert_uint_eq(st.always, 2);
        ck_assert_uint_eq(st.first_always, 1);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, NULL, WARDER_OP_READ, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(err.code, WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_index_stats(NULL, rs, WARDER_OP_READ, NULL), WARDER_EINVAL);
        st.version = 0;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), WARDER_EINVAL);
        ck_assert_int_eq(st.version, 0); /* untouched */
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_index_rarest_key)
{
        /* 1,000 rules share the extension `tmp`, each has its own directory component: each is
         * filed under its component, so a `.tmp` path runs one rule, not a thousand */
        struct warder__buf y = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
        for (unsigned i = 0; i < 1000; i++)
                warder__buf_printf(&y, "    - deny: '**/cache%u/**/*.tmp'\n", i);
        warder__buf_puts(&y, "    - ask: '**/*.tmp'\n");
        warder_ruleset *rs = NULL;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        ck_assert_int_eq(warder_ruleset_load_string(&rs, y.data, y.len, "k", &o, NULL), 0);
        size_t residual = 0, largest = 0;
        warder__index_stats(&rs->ops[WARDER_OP_READ].idx, &residual, &largest);
        ck_assert_uint_eq(residual, 0);
        ck_assert_uint_le(largest, 1);
        struct warder_ruleset_index_stats st = WARDER_RULESET_INDEX_STATS_INIT;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), 0);
        ck_assert_uint_eq(st.always, 0);
        ck_assert_uint_eq(st.largest_key, 1);
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/a/cache7/b/x.tmp", 7}, {"/r/cache999/x.tmp", 999},
                     {"/r/cache7.tmp", 1000},    {"/r/a/cache7/b/x.tmpx", -1},
                     {"/r/x/y.tmp", 1000},       {"/r/cache7", -1}};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                const char *t = cases[i].path;
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
                ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
        }
        warder_ruleset_free(rs);
        warder__buf_free(&y);
}
END_TEST

/* ---- where each rule shape is filed ------------------------------------------------------- */

static warder_ruleset *load_rules(const char *yaml);

static const char *const kind_names[] = {"exact", "prefix", "base", "ext",
                                         "comp",  "bsub",   "psub", "residual"};

/* Where rule `rule` is filed in idx: "kind key" for each of its postings, in the order of the
 * kinds ("residual" for the residual list), joined by ", ". */
static void filed(const struct warder__index *idx, uint32_t rule, struct warder__buf *out)
{
        warder__buf_truncate(out, 0);
        warder__buf_reserve(out, 0);
        for (int k = 0; k < WARDER__K_COUNT; k++) {
                const struct warder__ktab *t = &idx->tab[k];
                for (uint32_t e = 0; e < t->n; e++)
                        for (uint32_t i = 0; i < t->ent[e].n; i++)
                                if (t->post[t->ent[e].first + i].rule == rule)
                                        warder__buf_printf(out, "%s%s %.*s", out->len ? ", " : "",
                                                           kind_names[k], (int)t->ent[e].len,
                                                           t->keys + t->ent[e].key);
        }
        for (size_t i = 0; i < idx->residual.n; i++)
                if (idx->residual.p[i].rule == rule)
                        warder__buf_printf(out, "%sresidual", out->len ? ", " : "");
}

struct shape {
        const char *pattern;
        const char *where; /* as filed() says */
};

/* Loads `pre` rules made by `pre_fmt` (one %u: the rule number; NULL for none), then the
 * shapes; asserts where every shape is filed and that the index decides as the plain loop on
 * the paths given, in either precedence mode. */
static warder_ruleset *load_filed(const char *pre_fmt, size_t pre, const struct shape *sh,
                                  size_t nsh, const char *const *paths, size_t npaths,
                                  bool strictest)
{
        struct warder__buf y = WARDER__BUF_INIT;
        warder__buf_printf(&y, "warder: 1\nprecedence: %s\nread:\n  rules:\n",
                           strictest ? "strictest" : "first-match");
        for (size_t i = 0; i < pre; i++) {
                warder__buf_puts(&y, "    - deny: '");
                warder__buf_printf(&y, pre_fmt, (unsigned)i);
                warder__buf_puts(&y, "'\n");
        }
        for (size_t i = 0; i < nsh; i++)
                warder__buf_printf(&y, "    - %s: '%s'\n", actions[i % 3], sh[i].pattern);
        warder_ruleset *rs = load_rules(y.data);
        const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
        for (size_t i = 0; i < nsh; i++) {
                filed(idx, (uint32_t)(pre + i), &y);
                ck_assert_msg(strcmp(y.data, sh[i].where) == 0,
                              "%s (%zu rules before): filed as '%s', want '%s'", sh[i].pattern, pre,
                              y.data, sh[i].where);
        }
        warder__buf_free(&y);
        for (size_t i = 0; i < npaths; i++) {
                const char *t = paths[i];
                long got = warder__index_decide(rs, WARDER_OP_READ, t, strlen(t));
                long lin = warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t));
                ck_assert_msg(got == lin, "%s: index %ld, linear %ld", t, got, lin);
        }
        return rs;
}

/* One of each shape of rule, and the paths that hit and miss each. */
static const char *const shape_paths[] = {
    "/r/a/b",
    "/r/a/b/c",
    "/r/src/x",
    "/r/src",
    "/r/q/.env",
    "/r/q/.envx",
    "/r/q/x.env",
    "/r/node_modules/x",
    "/r/node_modules",
    "/r/x.pem",
    "/r/x.pemx",
    "/r/afoo.",
    "/r/afoo.x",
    "/r/foo.",
    "/r/id_rsa",
    "/r/xid_rsa",
    "/r/lib/z/y.c",
    "/r/lib/y.h",
    "/r/y.c",
    "/r/cache/d/x5.tmp",
    "/r/cache/x5.tmp",
    "/r/x5.tmp",
    "/r/d/cache",
    "/r/a1/z/b1/f",
    "/r/a1/b1/f",
    "/r/b1/z/a1/f",
    "/r/7",
    "/r/d/7",
    "/r/x",
    "/r/k9/x1",
    "/r/k9/y2",
    "/r/k9/z3",
    "/r/q/wxyzvuts",
    "/r/q/wxyzvut",
    "/r/q/1ab2cdef",
    "/r/q/cdef",
    "/r/q/ab",
    "/r/q/xghymnop",
    "/r/q/mnop",
    "/x/y",
    "/r",
    "/",
    "/r/8/9",
};

START_TEST(test_index_filed_small)
{
        /* §1.5: a small set is not counted: each alternative goes under the first key of the
         * cheapest kind it offers (exact path, prefix, basename, extension, component); only
         * basename or component literals and nothing else: the residual list; only the root
         * or an ancestor as a prefix: filed there (weak), and reported as run on every check.
         * A rule's matcher alternatives that choose one key are one posting. */
        static const struct shape sh[] = {
            {"/r/a/b", "exact /r/a/b"},
            {"/r/src/**", "exact /r/src, prefix /r/src"},
            {"**/.env", "base .env"},
            {"**/node_modules/**", "base node_modules, comp node_modules"},
            {"**/*.pem", "ext pem"},
            {"**/*foo.", "residual"},
            {"**/id_*", "residual"},
            {"/r/lib/**/*.c", "prefix /r/lib"},
            {"**/cache/**/x[0-9].tmp", "ext tmp"},
            {"**/a1/*/b1/*", "comp a1"},
            {"/r/*[0-9]", "prefix /r"},
            {"**/[0-9]*", "residual"},
            {"{**/k9/**/x[0-9],**/k9/**/y[0-9]}", "comp k9"},
        };
        for (int strictest = 0; strictest < 2; strictest++) {
                warder_ruleset *rs = load_filed(NULL, 0, sh, WARDER__ARRAY_SIZE(sh), shape_paths,
                                                WARDER__ARRAY_SIZE(shape_paths), strictest);
                size_t residual = 0, largest = 0;
                warder__index_stats(&rs->ops[WARDER_OP_READ].idx, &residual, &largest);
                ck_assert_uint_eq(residual, 4); /* three without a key, one weak */
                ck_assert_uint_eq(largest, 1);
                struct warder_ruleset_index_stats st = WARDER_RULESET_INDEX_STATS_INIT;
                ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), 0);
                ck_assert_uint_eq(st.always, 4);
                ck_assert_uint_eq(st.largest_key, 1);
                ck_assert_uint_eq(st.first_always, 5);
                warder_ruleset_free(rs);
        }
}
END_TEST

START_TEST(test_index_filed_small_grams)
{
        /* Up to 16 alternatives with nothing but basename or component literals are cheaper to
         * run on every check than grams; from 17 on each is filed under a gram, in a small set
         * the first of the longest (nothing is counted): alternatives with a strong key do not
         * count towards the 16. */
        static const struct shape gram17[] = {{"**/*wxyz17*", "bsub wxyz"}};
        static const struct shape res[] = {{"**/*wxyz16*", "residual"}, {"**/*ab", "residual"}};
        static const char *const paths[] = {"/r/wxyz16",  "/r/q/awxyz1",   "/r/wxyz17", "/r/ab",
                                            "/r/e03.txt", "/r/x/e03.txtx", "/r/wxyz"};
        for (int strictest = 0; strictest < 2; strictest++) {
                /* 16 + 1 */
                warder_ruleset *rs = load_filed("**/*wxyz%02u*", 16, gram17, 1, paths,
                                                WARDER__ARRAY_SIZE(paths), strictest);
                const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
                size_t residual = 0, largest = 0;
                warder__index_stats(idx, &residual, &largest);
                ck_assert_uint_eq(residual, 0);
                ck_assert_uint_eq(largest, 17); /* all under the first gram: not counted */
                warder_ruleset_free(rs);
                /* 14 + 1 + `*ab` */
                rs = load_filed("**/*wxyz%02u*", 14, res, 2, paths, WARDER__ARRAY_SIZE(paths),
                                strictest);
                idx = &rs->ops[WARDER_OP_READ].idx;
                warder__index_stats(idx, &residual, &largest);
                ck_assert_uint_eq(residual, 16);
                ck_assert_uint_eq(largest, 0);
                warder_ruleset_free(rs);
                /* 17 basenames with a key of their own do not make 16 without one 17 */
                struct warder__buf y = WARDER__BUF_INIT;
                warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
                for (unsigned i = 0; i < 17; i++)
                        warder__buf_printf(&y, "    - deny: '**/e%02u.txt'\n", i);
                for (unsigned i = 0; i < 16; i++)
                        warder__buf_printf(&y, "    - ask: '**/*wxyz%02u*'\n", i);
                rs = load_rules(y.data);
                warder__buf_free(&y);
                idx = &rs->ops[WARDER_OP_READ].idx;
                warder__index_stats(idx, &residual, &largest);
                ck_assert_uint_eq(residual, 16);
                ck_assert_uint_eq(largest, 1);
                ck_assert_uint_eq(idx->tab[WARDER__K_BASE].n, 17);
                for (size_t i = 0; i < WARDER__ARRAY_SIZE(paths); i++) {
                        const char *t = paths[i];
                        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                         warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)));
                }
                warder_ruleset_free(rs);
        }
}
END_TEST

START_TEST(test_index_filed_large)
{
        /* §1.5: in a large set every alternative goes under its rarest key: 1,000 rules whose
         * literals share their first grams are each filed under the gram only it has (the
         * counts survive the count table growing), 100 rules that share `.tmp` under their own
         * component; among grams as rare, the longest, then the first. */
        static const struct shape sh[] = {
            {"/r/a/b", "exact /r/a/b"},
            {"/r/src/**", "exact /r/src, prefix /r/src"},
            {"**/.env", "base .env"},
            {"**/node_modules/**", "base node_modules, comp node_modules"},
            {"**/*.pem", "ext pem"},
            {"**/*foo.", "bsub foo."},
            {"**/id_*", "bsub id_"},
            {"/r/lib/**/*.c", "prefix /r/lib"},
            {"**/cache/**/x[0-9].tmp", "comp cache"},
            {"**/a1/*/b1/*", "comp a1"},
            {"/r/*[0-9]", "prefix /r"},
            {"**/[0-9]*", "residual"},
            {"{**/k9/**/x[0-9],**/k9/**/y[0-9]}", "comp k9"},
            {"**/*wxyzvuts*", "bsub wxyz"}, /* all as rare: the first */
            {"**/*ab*cdef*", "bsub cdef"},  /* as rare: the longer */
            {"**/*gh*mnop*", "bsub gh"},    /* rarer, if shorter */
            {"**/mnop*", "bsub mnop"},
            {"**/*mnop", "bsub mnop"},
            {"**/*zzzz*", "bsub zzzz"},
            {"**/*zzzz*yyyy*", "bsub zzzz"}, /* as common: the first */
            {"**/*yyyy*", "bsub yyyy"},
        };
        /* and enough alternatives without a strong key for grams to be worth it */
        struct shape all[WARDER__ARRAY_SIZE(sh) + 20];
        char pats[20][16], keys[20][16];
        memcpy(all, sh, sizeof(sh));
        for (unsigned i = 0; i < 20; i++) {
                snprintf(pats[i], sizeof(pats[i]), "**/*vw%02u*", i);
                snprintf(keys[i], sizeof(keys[i]), "bsub vw%02u", i);
                all[WARDER__ARRAY_SIZE(sh) + i] = (struct shape){pats[i], keys[i]};
        }
        static const char *const family[] = {"/r/q/qqqq0123",     "/r/q/xqqqq0999y",
                                             "/r/q/qqqq012",      "/r/cache7/q/x.tmp",
                                             "/r/cache77/x.tmpx", "/r/x.tmp"};
        struct warder__buf w = WARDER__BUF_INIT;
        for (int strictest = 0; strictest < 2; strictest++) {
                /* 1,000 gram rules; 100 component rules, then the shapes */
                warder_ruleset *rs = load_filed("**/*qqqq%04u*", 1000, NULL, 0, family,
                                                WARDER__ARRAY_SIZE(family), strictest);
                const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
                for (uint32_t i = 0; i < 1000; i++) {
                        char want[32];
                        snprintf(want, sizeof(want), "bsub %04u", i);
                        filed(idx, i, &w);
                        ck_assert_msg(strcmp(w.data, want) == 0, "rule %u: '%s'", i, w.data);
                }
                size_t residual = 0, largest = 0;
                warder__index_stats(idx, &residual, &largest);
                ck_assert_uint_eq(residual, 0);
                ck_assert_uint_eq(largest, 1);
                warder_ruleset_free(rs);
                rs = load_filed("**/cache%u/**/*.tmp", 100, all, WARDER__ARRAY_SIZE(all),
                                shape_paths, WARDER__ARRAY_SIZE(shape_paths), strictest);
                idx = &rs->ops[WARDER_OP_READ].idx;
                for (uint32_t i = 0; i < 100; i++) {
                        char want[32];
                        snprintf(want, sizeof(want), "comp cache%u", i);
                        filed(idx, i, &w);
                        ck_assert_msg(strcmp(w.data, want) == 0, "rule %u: '%s'", i, w.data);
                }
                warder__index_stats(idx, &residual, &largest);
                ck_assert_uint_eq(residual, 2); /* `[0-9]*` anywhere, and the weak one */
                ck_assert_uint_eq(largest, 2);  /* `mnop` */
                for (size_t i = 0; i < WARDER__ARRAY_SIZE(family); i++) {
                        const char *t = family[i];
                        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                         warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)));
                }
                warder_ruleset_free(rs);
        }
        warder__buf_free(&w);
}
END_TEST

START_TEST(test_index_key_counts)
{
        /* §1.5: keys are counted by kind and text. Each extension shared by two rules loses to
         * the component each rule has alone; an extension and a basename of the same text
         * are two keys, so the extension each rule has alone stays as rare as its component
         * and the cheaper kind decides. */
        struct warder__buf y = WARDER__BUF_INIT, w = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
        for (unsigned j = 0; j < 100; j++)
                warder__buf_printf(&y, "    - deny: '**/d%u/**/*.x%u'\n", j, j / 2);
        for (unsigned j = 0; j < 60; j++)
                warder__buf_printf(&y, "    - ask: '**/q%u/**/*.t%u'\n", j, j);
        for (unsigned j = 0; j < 60; j++)
                warder__buf_printf(&y, "    - allow: '**/t%u'\n", j);
        warder_ruleset *rs = load_rules(y.data);
        const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
        for (uint32_t r = 0; r < 220; r++) {
                char want[32];
                if (r < 100)
                        snprintf(want, sizeof(want), "comp d%u", r);
                else if (r < 160)
                        snprintf(want, sizeof(want), "ext t%u", r - 100);
                else
                        snprintf(want, sizeof(want), "base t%u", r - 160);
                filed(idx, r, &w);
                ck_assert_msg(strcmp(w.data, want) == 0, "rule %u: '%s', want '%s'", r, w.data,
                              want);
        }
        size_t residual = 0, largest = 0;
        warder__index_stats(idx, &residual, &largest);
        ck_assert_uint_eq(residual, 0);
        ck_assert_uint_eq(largest, 1);
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/d7/a/b.x3", 7}, {"/r/d7/b.x4", -1}, {"/r/q5/z.t5", 105},
                     {"/r/t5", 165},      {"/r/q5/t5", 165},  {"/r/q5/t6.t5", 105}};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                const char *t = cases[i].path;
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
                ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
        }
        warder_ruleset_free(rs);
        warder__buf_free(&y);
        warder__buf_free(&w);
}
END_TEST

START_TEST(test_index_gram_counts_grow)
{
        /* §1.5: gram counts survive the count table growing, whichever slot a gram sits in:
         * `admi` (3 rules) is counted first, in the last slot of the first table (its hash);
         * 510 rules of their own grams fill the table to half; the rule counted next, after
         * the growth, has `admi` and the rarer `hzzq` (2 rules) and is filed under `hzzq`. */
        struct warder__buf y = WARDER__BUF_INIT, w = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
        for (unsigned j = 0; j < 3; j++)
                warder__buf_puts(&y, "    - deny: '**/*admi*'\n");
        for (unsigned j = 0; j < 2; j++)
                warder__buf_puts(&y, "    - deny: '**/*hzzq*'\n");
        for (unsigned j = 0; j < 510; j++)
                warder__buf_printf(&y, "    - deny: '**/*f%03u*'\n", j);
        warder__buf_puts(&y, "    - ask: '**/*admi*hzzq*'\n");
        warder_ruleset *rs = load_rules(y.data);
        const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
        filed(idx, 515, &w);
        ck_assert_str_eq(w.data, "bsub hzzq");
        filed(idx, 0, &w);
        ck_assert_str_eq(w.data, "bsub admi");
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/xadmiyhzzq", 0}, {"/r/hzzqadmi", 0}, {"/r/hzzq", 3}, {"/r/f509", 514}};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                const char *t = cases[i].path;
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
                ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
        }
        warder_ruleset_free(rs);
        warder__buf_free(&y);
        warder__buf_free(&w);
}
END_TEST

START_TEST(test_index_hash_collisions)
{
        /* Keys whose hashes are equal stay apart: `d8` and `d89` hash alike (a 2-byte key's
         * hash mixes its last byte twice, a 3-byte key's its middle and last bytes, and the
         * length), as basenames and as grams; each is filed under its own key, and counted
         * apart, so the rule with the grams `d8` and `zzkq` is filed under `d8`, the rarer. */
        struct warder__buf y = WARDER__BUF_INIT, w = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n"
                             "    - deny: '**/d8'\n"        /* 0 */
                             "    - deny: '**/d89'\n"       /* 1 */
                             "    - deny: '**/*d89*'\n"     /* 2 */
                             "    - deny: '**/*d89*'\n"     /* 3 */
                             "    - deny: '**/*d89*'\n"     /* 4 */
                             "    - ask: '**/*d8*zzkq*'\n"  /* 5 */
                             "    - allow: '**/*zzkq*'\n"); /* 6 */
        for (unsigned j = 0; j < 70; j++) /* enough rules for keys and grams to be counted */
                warder__buf_printf(&y, "    - deny: '**/*f%03u*'\n", j);
        warder_ruleset *rs = load_rules(y.data);
        const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
        static const char *const where[] = {"base d8",  "base d89", "bsub d89", "bsub d89",
                                            "bsub d89", "bsub d8",  "bsub zzkq"};
        for (uint32_t r = 0; r < WARDER__ARRAY_SIZE(where); r++) {
                filed(idx, r, &w);
                ck_assert_msg(strcmp(w.data, where[r]) == 0, "rule %u: '%s', want '%s'", r, w.data,
                              where[r]);
        }
        size_t residual = 0, largest = 0;
        warder__index_stats(idx, &residual, &largest);
        ck_assert_uint_eq(residual, 0);
        ck_assert_uint_eq(largest, 3);
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/d8", 0},     {"/r/d89", 1},  {"/r/ad89", 2},
                     {"/r/d8zzkq", 5}, {"/r/zzkq", 6}, {"/r/d9", -1}};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                const char *t = cases[i].path;
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
                ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                 cases[i].want);
        }
        warder_ruleset_free(rs);
        warder__buf_free(&y);
        warder__buf_free(&w);
}
END_TEST

START_TEST(test_index_small_set_bound)
{
        /* Up to 64 alternatives the order of kinds decides: all share the extension; from 65
         * on keys are counted and each is filed under its own component. */
        struct warder__buf w = WARDER__BUF_INIT;
        for (unsigned n = 64; n <= 65; n++) {
                struct warder__buf y = WARDER__BUF_INIT;
                warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
                for (unsigned j = 0; j < n; j++)
                        warder__buf_printf(&y, "    - deny: '**/c%u/**/*.tmp'\n", j);
                warder_ruleset *rs = load_rules(y.data);
                const struct warder__index *idx = &rs->ops[WARDER_OP_READ].idx;
                for (uint32_t r = 0; r < n; r++) {
                        char want[32];
                        if (n == 64)
                                snprintf(want, sizeof(want), "ext tmp");
                        else
                                snprintf(want, sizeof(want), "comp c%u", r);
                        filed(idx, r, &w);
                        ck_assert_msg(strcmp(w.data, want) == 0, "%u rules: rule %u: '%s'", n, r,
                                      w.data);
                }
                const char *t = "/r/c7/x.tmp";
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), 7);
                warder_ruleset_free(rs);
                warder__buf_free(&y);
        }
        warder__buf_free(&w);
}
END_TEST

START_TEST(test_index_weak_rules)
{
        /* Rules filed only under the root (weak) run on almost every check and are reported
         * with the residual ones: each rule once, however many of its alternatives are weak
         * or residual, and rules next to each other each. */
        static const struct shape sh[] = {
            {"**/.env", "base .env"},   {"/r/*[0-9]", "prefix /r"},
            {"/r/*[a-c]", "prefix /r"}, {"{/r/[0-9]*,/r/[d-f]*}", "prefix /r"},
            {"**/id_*", "residual"},    {"{**/*q*,**/[0-9]*}", "residual, residual"},
        };
        static const char *const paths[] = {"/r/.env", "/r/x1",   "/r/xa", "/r/5q", "/r/eq",
                                            "/r/id_x", "/r/q/x1", "/r/xz", "/r/zq"};
        warder_ruleset *rs = load_filed(NULL, 0, sh, WARDER__ARRAY_SIZE(sh), paths,
                                        WARDER__ARRAY_SIZE(paths), false);
        size_t residual = 0, largest = 0;
        warder__index_stats(&rs->ops[WARDER_OP_READ].idx, &residual, &largest);
        ck_assert_uint_eq(residual, 5);
        ck_assert_uint_eq(largest, 3);
        struct warder_ruleset_index_stats st = WARDER_RULESET_INDEX_STATS_INIT;
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), 0);
        ck_assert_uint_eq(st.always, 5);
        ck_assert_uint_eq(st.first_always, 4);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_index_split_bounds)
{
        /* A target is split within its length, whatever its buffer holds after it and
         * whatever the targets split before it left in the separator scratch: `/r/a` of
         * `/r/a/b` has the basename `a`; `/xxxxxxxx/yyyy` after `/a/b/c/d` has one directory
         * component, `xxxxxxxx`, not one running to the end of a component key's length. */
        char name[80];
        memset(name, 'n', 70);
        name[70] = '\0';
        char doc[256];
        snprintf(doc, sizeof(doc),
                 "warder: 1\nread:\n  rules:\n    - deny: '**/a'\n    - deny: '**/%s/**'\n"
                 "    - deny: '**/xxxxxxxx/**'\n",
                 name);
        warder_ruleset *rs = load_rules(doc);
        ck_assert_uint_ne(rs->ops[WARDER_OP_READ].idx.comp_lens >> 63 & 1, 0);
        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, "/r/a/b", 4), 0);
        ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, "/r/a/b", 4), 0);
        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, "/r/a/b", 6), -1);
        for (int i = 0; i < 2; i++) {
                const char *t = i ? "/a/b/c/d/e/f/g" : "/a/b/c/d";
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), -1);
                t = "/xxxxxxxx/yyyy";
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), 2);
                t = "/yyyyyyyy/xxxx";
                ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), -1);
        }
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_index_slide_repeat)
{
        /* The same target checked again, and targets whose grams reach the same list
         * several times, find the rules filed under grams each time: the lists already run
         * in one check are remembered for that check only. */
        struct warder__buf y = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nread:\n  rules:\n");
        for (unsigned j = 0; j < 17; j++)
                warder__buf_printf(&y, "    - deny: '**/*wxyz%02u*'\n", j);
        warder_ruleset *rs = load_rules(y.data);
        warder__buf_free(&y);
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/wxyz03", 3},  {"/r/wxyz03", 3}, {"/r/wxyzwxyz16", 16},
                     {"/r/wxyz16", 16}, {"/r/wxyz", -1},  {"/r/wxyz03", 3}};
        for (int round = 0; round < 2; round++) {
                for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                        const char *t = cases[i].path;
                        ck_assert_msg(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)) ==
                                          cases[i].want,
                                      "%s", t);
                        ck_assert_int_eq(warder__linear_decide(rs, WARDER_OP_READ, t, strlen(t)),
                                         cases[i].want);
                }
        }
        warder_ruleset_free(rs);
}
END_TEST

#ifdef WARDER__FAULT_INJECTION
START_TEST(test_index_build_fault)
{
        /* Building the index of a large set (keys and grams counted, a fold_case copy) runs
         * out of memory at any of its allocations: the load fails with WARDER_ENOMEM, it never
         * goes on with a key table or count missing. */
        struct warder__buf y = WARDER__BUF_INIT;
        warder__buf_puts(&y, "warder: 1\nfold_case: true\nread:\n  rules:\n");
        for (unsigned i = 0; i < 40; i++)
                warder__buf_printf(&y, "    - deny: '**/*qqqq%04u*'\n", i);
        for (unsigned i = 0; i < 30; i++)
                warder__buf_printf(&y, "    - ask: '**/cache%u/**/*.tmp'\n", i);
        warder__buf_puts(&y, "    - deny: '/r/*[0-9]'\n    - deny: '**/[0-9]*'\n"
                             "    - allow: '/r/a/b'\n    - deny: '**/.ENV'\n");
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.home = "/h";
        warder_ruleset *rs = NULL;
        warder__fault_count(WARDER__FAULT_ALLOC);
        ck_assert_int_eq(warder_ruleset_load_string(&rs, y.data, y.len, "f", &o, NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        warder_ruleset_free(rs);
        size_t in_index = 0;
        for (unsigned long n = 1; n <= points; n++) {
                rs = NULL;
                warder__fault_arm(n, false, WARDER__FAULT_ALLOC);
                int rc = warder_ruleset_load_string(&rs, y.data, y.len, "f", &o, NULL);
                bool fired = warder__fault_fired();
                const char *where = fired ? warder__fault_where() : "-";
                bool index = fired && strstr(where, "ruleset/index.c") != NULL;
                warder__fault_off();
                in_index += index;
                ck_assert_msg(!index || rc == WARDER_ENOMEM, "fault %lu at %s: load returned %d", n,
                              where, rc);
                ck_assert_msg(fired || rc == 0, "fault %lu not reached: %d", n, rc);
                warder_ruleset_free(rs);
        }
        ck_assert_uint_gt(in_index, 10); /* control: the walk reaches the index build */
        warder__buf_free(&y);
}
END_TEST

struct split_job {
        const warder_ruleset *rs;
        const char *target;
        unsigned long n; /* the allocation to fail (0: none; count them) */
        long got;
        unsigned long points;
        bool fired;
};

static void *split_thread(void *p)
{
        struct split_job *j = p;
        if (j->n)
                warder__fault_arm(j->n, false, WARDER__FAULT_ALLOC);
        else
                warder__fault_count(WARDER__FAULT_ALLOC);
        j->got = warder__index_decide(j->rs, WARDER_OP_READ, j->target, strlen(j->target));
        j->points = warder__fault_points();
        j->fired = j->n && warder__fault_fired();
        warder__fault_off();
        return NULL;
}

START_TEST(test_index_split_fault)
{
        /* A check in a thread of its own (its scratch buffers allocated on first use) that
         * runs out of memory at any allocation fails (-2: out of memory), never decides on a
         * target split in part: a short target, one with more separators than the first
         * scratch holds (it grows in the 16-byte scan), and one that fills the scratch exactly
         * in that scan and grows it in the bytes after. */
        warder_ruleset *rs = load_rules("warder: 1\nfold_case: true\nread:\n  rules:\n"
                                        "    - deny: '**/a'\n");
        struct warder__buf deep = WARDER__BUF_INIT, exact = WARDER__BUF_INIT;
        for (int i = 0; i < 100; i++)
                warder__buf_puts(&deep, "/a");
        for (int i = 0; i < 48; i++) /* 6 blocks of 16 bytes, 48 separators */
                warder__buf_puts(&exact, "/a");
        warder__buf_puts(&exact, "////////////////"
                                 "/b/A");
        const struct {
                const char *target;
                long want;
                unsigned long points; /* at least */
        } cases[] = {{"/r/q/x/A", 0, 3}, {deep.data, 0, 4}, {exact.data, 0, 4}};
        for (size_t c = 0; c < WARDER__ARRAY_SIZE(cases); c++) {
                struct split_job j = {rs, cases[c].target, 0, 0, 0, false};
                pthread_t th;
                ck_assert_int_eq(pthread_create(&th, NULL, split_thread, &j), 0);
                pthread_join(th, NULL);
                ck_assert_int_eq(j.got, cases[c].want); /* control: the folded basename `a` */
                unsigned long points = j.points;
                /* the scratch, its separators (grown), its lower-case copy */
                ck_assert_msg(points >= cases[c].points, "%zu: %lu points", c, points);
                for (unsigned long n = 1; n <= points; n++) {
                        j = (struct split_job){rs, cases[c].target, n, 0, 0, false};
                        ck_assert_int_eq(pthread_create(&th, NULL, split_thread, &j), 0);
                        pthread_join(th, NULL);
                        ck_assert_msg(j.fired && j.got == -2,
                                      "%zu: fault %lu: fired %d, decided %ld", c, n, j.fired,
                                      j.got);
                }
        }
        warder__buf_free(&deep);
        warder__buf_free(&exact);
        warder_ruleset_free(rs);
}
END_TEST
#endif

/* ---- matchers compiled on first use ------------------------------------------------------- */

static warder_ruleset *load_rules(const char *yaml)
{
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.home = "/h";
        ck_assert_msg(warder_ruleset_load_string(&rs, yaml, strlen(yaml), "lazy", &o, &err) == 0,
                      "%s:%u:%u: %s", err.file, err.line, err.column, err.message);
        return rs;
}

static bool compiled(const struct warder__rule *r)
{
        return atomic_load(&r->glob) != NULL;
}

START_TEST(test_lazy_compile_on_demand)
{
        /* three matcher rules filed under three different keys, and one the index decides
         * by string comparison alone */
        warder_ruleset *rs = load_rules("warder: 1\nfold_case: true\nread:\n  rules:\n"
                                        "    - deny: '**/cache7/**/*.t?p'\n"
                                        "    - ask: 'src/**/x[0-9].c'\n"
                                        "    - deny: '**/*secret*.{pem,key}'\n"
                                        "    - deny: '**/.env'\n"
                                        "execute:\n  rules:\n    - deny: 'rm -rf *'\n");
        const struct warder__opset *set = &rs->ops[WARDER_OP_READ];
        for (size_t i = 0; i < 3; i++) {
                ck_assert_uint_gt(set->rules[i].nglob, 0);
                ck_assert_ptr_nonnull(set->rules[i].galts);
                ck_assert(!compiled(&set->rules[i]));
                ck_assert_ptr_null(atomic_load(&set->rules[i].glob_fold));
        }
        ck_assert_uint_eq(set->rules[3].nglob, 0);
        ck_assert(!compiled(&rs->ops[WARDER_OP_EXECUTE].rules[0]));
        /* a check compiles the rules the index reaches, and only those */
        const char *t = "/r/a/cache7/b/x.tmp";
        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), 0);
        ck_assert(compiled(&set->rules[0]));
        ck_assert(!compiled(&set->rules[1]) && !compiled(&set->rules[2]));
        /* its folding matcher (deny with fold_case) only when the exact one does not match */
        ck_assert_ptr_null(atomic_load(&set->rules[0].glob_fold));
        t = "/r/a/CACHE7/b/x.TMP";
        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), 0);
        ck_assert_ptr_nonnull(atomic_load(&set->rules[0].glob_fold));
        /* folding: the lazily compiled folding matcher decides too */
        t = "/r/SRC/q/X7.C";
        ck_assert_int_eq(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)), 1);
        ck_assert(compiled(&set->rules[1]));
        ck_assert(!compiled(&set->rules[2]));
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_EXECUTE, "rm -rf /tmp/x", 13, NULL, 0, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        ck_assert(compiled(&rs->ops[WARDER_OP_EXECUTE].rules[0]));
        /* compiling the rest changes no decision */
        static const struct {
                const char *path;
                long want;
        } cases[] = {{"/r/a/cache7/b/x.tmp", 0}, {"/r/src/x1.c", 1},      {"/q/my-secret.pem", 2},
                     {"/q/MY-SECRET.KEY", 2},    {"/r/.env", 3},          {"/r/src/x.c", -1},
                     {"/r/cache8/x.tmp", -1},    {"/r/Cache7/y/z.TAP", 0}};
        for (int round = 0; round < 2; round++) {
                for (size_t i = 0; i < WARDER__ARRAY_SIZE(cases); i++) {
                        t = cases[i].path;
                        ck_assert_msg(warder__index_decide(rs, WARDER_OP_READ, t, strlen(t)) ==
                                          cases[i].want,
                                      "round %d: %s", round, t);
                }
                if (round == 0) {
                        ck_assert_int_eq(warder__ruleset_compile_all(rs), 0);
                        for (size_t i = 0; i < 3; i++)
                                ck_assert(compiled(&set->rules[i]));
                }
        }
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_lazy_fail_closed)
{
        /* §2.10: a matcher that cannot be compiled when first needed counts as matching for a
         * deny or ask rule and as not matching for an allow rule, for a path and beneath a
         * directory. An unclosed class stands in for any compile failure (running out of
         * memory, in practice); the loader never stores one. */
        static const enum warder_action acts[] = {WARDER_ALLOW, WARDER_ASK, WARDER_DENY};
        char broken[] = "/x/[\0";
        char fine[] = "/never/here\0";
        for (int b = 0; b < 2; b++) {
                for (size_t a = 0; a < WARDER__ARRAY_SIZE(acts); a++) {
                        struct warder__rule r;
                        memset(&r, 0, sizeof(r));
                        r.action = acts[a];
                        r.pattern = (char *)(b ? "/x/[" : "/never/here");
                        r.nglob = 1;
                        r.galts = b ? broken : fine;
                        struct warder__target tg;
                        ck_assert_int_eq(warder__target_split("/t/u", 4, &tg, NULL), 0);
                        /* control arm (b == 0): the same rule that compiles does not match */
                        bool want = b && acts[a] != WARDER_ALLOW;
                        ck_assert_int_eq(warder__rule_match(&r, &tg, NULL), want);
                        ck_assert_int_eq(warder__rule_beneath(&r, "/t/", 3, NULL), want);
                        int rc = 0;
                        const warder_glob *g = warder__rule_glob(&r, false, &rc);
                        ck_assert_int_eq(g == NULL, b);
                        ck_assert_int_eq(rc < 0, b);
                        r.galts = NULL; /* borrowed */
                        r.pattern = NULL;
                        warder__rule_release(&r);
                }
        }
}
END_TEST

START_TEST(test_lazy_limit)
{
        /* The largest matchers stored for later, of the shapes that compile to the most code
         * per byte, compile (so only memory can fail later); one byte more and the matcher is
         * compiled at load, where an engine refusal is a load error with its position. */
        static const char *const units[] = {"[ab]", "?", "*x", "[!a-c]/", "*[0-9]?/", "**/q/"};
        for (size_t u = 0; u < WARDER__ARRAY_SIZE(units); u++) {
                for (int over = 0; over < 2; over++) {
                        /* the stored alternative and its NUL: `/r/` `**` `/` and the pattern
                         * for a pattern without a slash, the pattern itself after `**` `/` */
                        bool slash = strchr(units[u], '/') != NULL;
                        size_t room = WARDER__LAZY_MAX - 1 - (slash ? 0 : 6) + (size_t)over;
                        struct warder__buf pat = WARDER__BUF_INIT, y = WARDER__BUF_INIT;
                        if (slash)
                                warder__buf_puts(&pat, "**/");
                        while (pat.len + strlen(units[u]) <= room - 1)
                                warder__buf_puts(&pat, units[u]);
                        while (pat.len < room)
                                warder__buf_putc(&pat, 'z');
                        warder__buf_printf(&y,
                                           "warder: 1\nfold_case: true\nread:\n  rules:\n"
                                           "    - deny: '%s'\n",
                                           pat.data);
                        warder_ruleset *rs = load_rules(y.data);
                        const struct warder__rule *r = &rs->ops[WARDER_OP_READ].rules[0];
                        ck_assert_uint_eq(r->nglob, 1);
                        if (!over)
                                ck_assert_uint_eq(strlen(r->galts) + 1, WARDER__LAZY_MAX);
                        ck_assert_msg(compiled(r) == (bool)over, "%s over=%d", units[u], over);
                        ck_assert_int_eq(warder__ruleset_compile_all(rs), 0);
                        ck_assert(compiled(r));
                        ck_assert_ptr_nonnull(atomic_load(&r->glob_fold));
                        warder_ruleset_free(rs);
                        warder__buf_free(&pat);
                        warder__buf_free(&y);
                }
        }
}
END_TEST

struct lazy_job {
        const warder_ruleset *rs;
        const char *const *paths;
        size_t n;
        long *got;
};

static void *lazy_thread(void *p)
{
        struct lazy_job *j = p;
        for (size_t i = 0; i < j->n; i++)
                j->got[i] =
                    warder__index_decide(j->rs, WARDER_OP_READ, j->paths[i], strlen(j->paths[i]));
        return NULL;
}

START_TEST(test_lazy_threads)
{
        /* threads that reach the same uncompiled rules at once all decide as one thread does
         * on a ruleset whose every matcher was compiled first */
        struct warder__buf y = WARDER__BUF_INIT, p = WARDER__BUF_INIT;
        rng_state = 4242;
        warder__buf_puts(&y, "warder: 1\nprecedence: strictest\nfold_case: true\nread:\n"
                             "  rules:\n");
        for (size_t i = 0; i < 300; i++) {
                warder__buf_truncate(&p, 0);
                gen_pattern(&p);
                warder__buf_printf(&y, "    - %s: '%s'\n", actions[rnd(3)], p.data);
        }
        enum { NPATHS = 2000, NTHREADS = 4 };
        char **paths = calloc(NPATHS, sizeof(*paths));
        for (size_t i = 0; i < NPATHS; i++) {
                gen_path(&p);
                paths[i] = strdup(p.data);
        }
        warder_ruleset *ref = load_rules(y.data);
        ck_assert_int_eq(warder__ruleset_compile_all(ref), 0);
        long *want = calloc(NPATHS, sizeof(*want));
        for (size_t i = 0; i < NPATHS; i++)
                want[i] = warder__index_decide(ref, WARDER_OP_READ, paths[i], strlen(paths[i]));
        for (int round = 0; round < 5; round++) {
                warder_ruleset *rs = load_rules(y.data);
                pthread_t th[NTHREADS];
                struct lazy_job jobs[NTHREADS];
                for (int k = 0; k < NTHREADS; k++) {
                        jobs[k] = (struct lazy_job){rs, (const char *const *)paths, NPATHS,
                                                    calloc(NPATHS, sizeof(long))};
                        ck_assert_int_eq(pthread_create(&th[k], NULL, lazy_thread, &jobs[k]), 0);
                }
                for (int k = 0; k < NTHREADS; k++) {
                        pthread_join(th[k], NULL);
                        for (size_t i = 0; i < NPATHS; i++)
                                ck_assert_msg(jobs[k].got[i] == want[i], "%s: %ld, want %ld",
                                              paths[i], jobs[k].got[i], want[i]);
                        free(jobs[k].got);
                }
                warder_ruleset_free(rs);
        }
        for (size_t i = 0; i < NPATHS; i++)
                free(paths[i]);
        free(paths);
        free(want);
        warder_ruleset_free(ref);
        warder__buf_free(&y);
        warder__buf_free(&p);
}
END_TEST

static Suite *suite(void)
{
        Suite *s = suite_create("index");
        TCase *tc = tcase_create("differential");
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, test_index_equals_linear, 0, 4);
        tcase_add_test(tc, test_index_small_sets);
        suite_add_tcase(s, tc);
        TCase *ta = tcase_create("adversarial");
        tcase_set_timeout(ta, 300);
        tcase_add_loop_test(ta, test_index_adversarial, 0, 6);
        tcase_add_test(ta, test_index_no_literal);
        tcase_add_test(ta, test_index_residual_parts);
        tcase_add_test(ta, test_index_rarest_key);
        tcase_add_test(ta, test_index_filed_small);
        tcase_add_test(ta, test_index_filed_small_grams);
        tcase_add_test(ta, test_index_filed_large);
        tcase_add_test(ta, test_index_key_counts);
        tcase_add_test(ta, test_index_gram_counts_grow);
        tcase_add_test(ta, test_index_hash_collisions);
        tcase_add_test(ta, test_index_small_set_bound);
        tcase_add_test(ta, test_index_weak_rules);
        tcase_add_test(ta, test_index_split_bounds);
        tcase_add_test(ta, test_index_slide_repeat);
#ifdef WARDER__FAULT_INJECTION
        tcase_add_test(ta, test_index_build_fault);
        tcase_add_test(ta, test_index_split_fault);
#endif
        suite_add_tcase(s, ta);
        TCase *tx = tcase_create("execute");
        tcase_set_timeout(tx, 120);
        tcase_add_loop_test(tx, test_execute_index_equals_linear, 0, 2);
        tcase_add_test(tx, test_execute_index_small_sets);
        tcase_add_test(tx, test_execute_index_examples);
        tcase_add_test(tx, test_execute_index_stats);
        suite_add_tcase(s, tx);
        TCase *tl = tcase_create("lazy");
        tcase_set_timeout(tl, 120);
        tcase_add_test(tl, test_lazy_compile_on_demand);
        tcase_add_test(tl, test_lazy_fail_closed);
        tcase_add_test(tl, test_lazy_limit);
        tcase_add_test(tl, test_lazy_threads);
        suite_add_tcase(s, tl);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
