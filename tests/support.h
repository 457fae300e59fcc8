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

/* The descriptors 0 to WARDER_TEST_MAX_FD - 1 at one moment: closed, open without
 * close-on-exec (inheritable), or open with it. */
#define WARDER_TEST_MAX_FD 1024
struct warder_test_fds {
        signed char state[WARDER_TEST_MAX_FD]; /* -1 closed, 0 inheritable, 1 close-on-exec */
};
void warder_test_fds_take(struct warder_test_fds *at);
/* The first descriptor open now without close-on-exec that was not so at `at`, or -1: what a
 * command that another thread starts now would inherit beyond what it inherited before. */
int warder_test_fds_new_inheritable(const struct warder_test_fds *at);
/* The first descriptor open now that was closed at `at`, or closed now that was open, or -1:
 * a leak, or a descriptor of the caller's closed. */
int warder_test_fds_changed(const struct warder_test_fds *at);

/* A fault hook (src/fault.h) for the check that every descriptor an operation holds is
 * close-on-exec at each of its points: fails the test when a descriptor is open without
 * close-on-exec that was not so at `before`, and counts its calls. */
struct warder_test_cloexec {
        struct warder_test_fds before; /* the test's own descriptors */
        unsigned checks;
};
void warder_test_no_new_inheritable(void *cloexec);
/* The control arm of that check: a descriptor opened now without close-on-exec is seen. */
void warder_test_cloexec_control(const struct warder_test_fds *before);

/* Exit status meson reads as "skipped". */
#define WARDER_TEST_SKIP 77

#endif
