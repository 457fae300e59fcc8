/* SPDX-License-Identifier: MIT */
#ifndef WARDER_TEST_SUPPORT_H
#define WARDER_TEST_SUPPORT_H

#include <check.h>

/* Runs the suite, prints Check's summary, and returns the process exit status. */
int warder_test_run(Suite *s);

/* The whole file at `path`, NUL-terminated, its length in *len; NULL when it cannot be
 * opened. Free with free(). */
char *warder_test_slurp(const char *path, size_t *len);

/* Exit status meson reads as "skipped". */
#define WARDER_TEST_SKIP 77

#endif
