/* SPDX-License-Identifier: MIT */
/*
 * git's wildmatch conformance vectors (semantics §2.9): 190 rows of pattern, text and the
 * answers of git's `wildmatch` and `iwildmatch`. The core matcher must agree with every row in
 * both columns; the fuzzers' glob oracle (fuzz/oracle-glob.c) must agree wherever it answers.
 *
 * The vectors are git's data and live outside the repository (meson option
 * `wildmatch_vectors`, passed as WARDER_VECTORS). Without the file this test alone exits 77
 * with the reason, so meson reports it as skipped; every other glob check runs in test-glob.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob-match.h"
#include "oracle-glob.h"
#include "support.h"

#define FOLD WARDER_GLOB_FOLD_CASE

struct row {
        int want[2]; /* wildmatch, iwildmatch */
        char *text, *pattern;
};

static struct row *rows;
static size_t nrows;

/* Reads the vectors: '#' comments, then tab-separated rows whose columns 0 and 1 are the
 * wildmatch and iwildmatch answers, 4 the text and 5 the pattern. Returns 0, or -1 after
 * saying what is wrong (before any Check test runs, so no ck_assert here). */
static int load(FILE *f)
{
        char line[8192];
        size_t cap = 0;
        while (fgets(line, sizeof(line), f)) {
                if (line[0] == '#' || line[0] == '\n')
                        continue;
                line[strcspn(line, "\n")] = '\0';
                char *col[6];
                size_t n = 0;
                for (char *p = line; p && n < 6; n++) {
                        col[n] = p;
                        p = strchr(p, '\t');
                        if (p)
                                *p++ = '\0';
                }
                if (n != 6) {
                        printf("malformed row: %s\n", line);
                        return -1;
                }
                if (nrows == cap) {
                        cap = cap ? 2 * cap : 256;
                        struct row *grown = realloc(rows, cap * sizeof(*rows));
                        if (!grown)
                                return -1;
                        rows = grown;
                }
                struct row *r = &rows[nrows++];
                r->want[0] = col[0][0] == '1';
                r->want[1] = col[1][0] == '1';
                r->text = strdup(col[4]);
                r->pattern = strdup(col[5]);
                if (!r->text || !r->pattern)
                        return -1;
        }
        return 0;
}

START_TEST(core_agrees)
{
        size_t agree = 0;
        for (size_t i = 0; i < nrows; i++) {
                const struct row *r = &rows[i];
                int got[2];
                for (int mode = 0; mode < 2; mode++) {
                        got[mode] = match(r->pattern, r->text, mode ? FOLD : 0);
                        /* a compile error counts as no match (§2.9); an engine error fails */
                        ck_assert_int_ne(got[mode], WARDER_ELIMIT);
                        got[mode] = got[mode] == 1;
                }
                if (got[0] == r->want[0] && got[1] == r->want[1])
                        agree++;
                else
                        fprintf(stderr,
                                "vector mismatch: text '%s' pattern '%s': got %d/%d want %d/%d\n",
                                r->text, r->pattern, got[0], got[1], r->want[0], r->want[1]);
        }
        fprintf(stderr, "core: %zu/%zu rows agree in both columns\n", agree, nrows);
        ck_assert_uint_eq(nrows, 190);
        ck_assert_uint_eq(agree, nrows);
}
END_TEST

START_TEST(oracle_agrees)
{
        size_t checked = 0, unknown = 0, bad = 0;
        for (size_t i = 0; i < nrows; i++) {
                const struct row *r = &rows[i];
                for (int mode = 0; mode < 2; mode++) {
                        int got = oracle_glob_match(r->pattern, strlen(r->pattern), r->text,
                                                    strlen(r->text), mode ? FOLD : 0);
                        if (got == ORACLE_GLOB_UNKNOWN) {
                                unknown++;
                                continue;
                        }
                        checked++;
                        if ((got == ORACLE_GLOB_MATCH) != r->want[mode]) {
                                bad++;
                                fprintf(stderr, "oracle mismatch: %s pattern '%s' text '%s'\n",
                                        mode ? "iwildmatch" : "wildmatch", r->pattern, r->text);
                        }
                }
        }
        fprintf(stderr, "oracle: %zu checks, %zu unknown, %zu mismatches\n", checked, unknown, bad);
        ck_assert_uint_eq(bad, 0);
        /* the oracle answers nearly everything; a broken one must not pass by abstaining */
        ck_assert_uint_ge(checked, 2 * nrows - 10);
}
END_TEST

int main(void)
{
        const char *path = getenv("WARDER_VECTORS");
        FILE *f = path && path[0] ? fopen(path, "r") : NULL;
        if (!f) {
                printf("SKIP: git's wildmatch vectors not found at '%s' (meson option "
                       "wildmatch_vectors): semantics §2.9 is unchecked\n",
                       path && path[0] ? path : "(not set)");
                return WARDER_TEST_SKIP;
        }
        int bad = load(f);
        fclose(f);
        if (bad)
                return EXIT_FAILURE;
        Suite *s = suite_create("wildmatch-vectors");
        TCase *tc = tcase_create("vectors");
        tcase_add_test(tc, core_agrees);
        tcase_add_test(tc, oracle_agrees);
        suite_add_tcase(s, tc);
        int rc = warder_test_run(s);
        for (size_t i = 0; i < nrows; i++) {
                free(rows[i].text);
                free(rows[i].pattern);
        }
        free(rows);
        return rc;
}
