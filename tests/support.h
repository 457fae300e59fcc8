/* SPDX-License-Identifier: MIT */
#ifndef WARDER_TEST_SUPPORT_H
#define WARDER_TEST_SUPPORT_H

#include <check.h>

/* Runs the suite, prints Check's summary, and returns the process exit status.
 * Two variables serve the mutation runner (scripts/mutate.py), which runs each test on its
 * own: WARDER_TEST_LIST=1 prints every test, one per line, and runs none — a loop test as
 * "name@i" per iteration (or "name@i-j" for the iterations i to j - 1, in at most 64 chunks);
 * WARDER_TEST_ONLY=name[,name@i[-j]...] runs only those: a bare name, every iteration. */
int warder_test_run(Suite *s);

/* Check's _tcase_add_test behind the filter above; every tcase_add_*test macro of a file
 * that includes this header goes through it. */
void warder_test_add(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                     int end);
#ifndef WARDER_TEST_SUPPORT_C
#define _tcase_add_test warder_test_add
#endif

/* The whole file at `path`, NUL-terminated, its length in *len; NULL when it cannot be
 * opened. Free with free(). */
char *warder_test_slurp(const char *path, size_t *len);

/* Exit status meson reads as "skipped". */
#define WARDER_TEST_SKIP 77

#endif
