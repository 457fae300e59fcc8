/* SPDX-License-Identifier: MIT */
/* The keyed index decides exactly as a plain loop over every rule's full compiled matcher
 * (§1.5 both precedence modes, §2.11 anchoring, §2.12 fold_case), on generated rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset/ruleset-internal.h"
#include "support.h"
#include "warder/ruleset.h"

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
        rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned)((rng_state >> 33) % n);
}

static const char *const names[] = {"a",        "b",    "src", ".env", "x.c",  "y.h", "key",
                                    ".git",     "lib",  "A",   "Src",  "r",    "h",   "id.KEY",
                                    "x.tar.gz", "e[1]", "q*",  "data", "svc1", ".ssh"};
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
        switch (rnd(24)) {
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
                ck_assert_int_eq(warder__rule_compile_path(&ref[i], "/r", "/h", fold, true, &err),
                                 0);
                ck_assert_ptr_nonnull(ref[i].glob);
                ck_assert_uint_eq(ref[i].nalts, 0);
        }
        size_t keyed = 0;
        for (int k = 0; k < WARDER__K_COUNT; k++)
                keyed += set->idx.tab[k] != NULL;
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

static Suite *suite(void)
{
        Suite *s = suite_create("index");
        TCase *tc = tcase_create("differential");
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, test_index_equals_linear, 0, 4);
        tcase_add_test(tc, test_index_small_sets);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
