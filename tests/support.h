/* SPDX-License-Identifier: MIT */
#ifndef WARDER_TEST_SUPPORT_H
#define WARDER_TEST_SUPPORT_H

#include <check.h>

/* Runs the suite, prints Check's summary, and returns the process exit status. */
int warder_test_run(Suite *s);

/* Exit status meson reads as "skipped". */
#define WARDER_TEST_SKIP 77

#endif
