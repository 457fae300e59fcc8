/* SPDX-License-Identifier: MIT */
#define WARDER_TEST_SUPPORT_C
#include "support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/creds.h"

static int listing(void)
{
        const char *l = getenv("WARDER_TEST_LIST");
        return l && *l && strcmp(l, "0") != 0;
}

/* A loop test of more iterations than this is listed in as many chunks. */
#define LIST_CHUNKS 64

/* Adds the iterations [a, b) of [start, end) that WARDER_TEST_ONLY names: "name" is every
 * iteration, "name@i" the i-th, "name@i-j" those from i to j - 1. */
static void add_chosen(TCase *tc, const TTest *tt, int signal, int allowed_exit_value, int start,
                       int end)
{
        const char *only = getenv("WARDER_TEST_ONLY");
        if (!only) {
                _tcase_add_test(tc, tt, signal, allowed_exit_value, start, end);
                return;
        }
        size_t n = strlen(tt->name);
        for (const char *p = only; *p;) {
                const char *e = strchr(p, ',');
                size_t len = e ? (size_t)(e - p) : strlen(p);
                if (len >= n && memcmp(p, tt->name, n) == 0) {
                        long a = start, b = end;
                        char spec[64] = "";
                        if (len - n < sizeof(spec))
                                memcpy(spec, p + n, len - n);
                        char *rest = spec;
                        int ok = len == n;
                        if (!ok && spec[0] == '@' && len - n < sizeof(spec)) {
                                a = strtol(spec + 1, &rest, 10);
                                b = a + 1;
                                if (*rest == '-')
                                        b = strtol(rest + 1, &rest, 10);
                                ok = rest > spec + 1 && *rest == '\0';
                        }
                        if (ok && a < start)
                                a = start;
                        if (ok && b > end)
                                b = end;
                        if (ok && a < b)
                                _tcase_add_test(tc, tt, signal, allowed_exit_value, (int)a, (int)b);
                }
                p += len + (e != NULL);
        }
}

void warder_test_add(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                     int end)
{
        if (!listing()) {
                add_chosen(tc, ttest, signal, allowed_exit_value, start, end);
                return;
        }
        int n = end - start;
        if (n == 1 && start == 0) {
                printf("%s\n", ttest->name);
                return;
        }
        int step = (n + LIST_CHUNKS - 1) / LIST_CHUNKS;
        for (int i = start; i < end; i += step) {
                if (step == 1)
                        printf("%s@%d\n", ttest->name, i);
                else
                        printf("%s@%d-%d\n", ttest->name, i, i + step < end ? i + step : end);
        }
}

int warder_test_run(Suite *s)
{
        if (listing()) {
                srunner_free(srunner_create(s));
                fflush(stdout);
                return EXIT_SUCCESS;
        }
        /* WARDER_TEST_AGENT_IO=switch: a backend acting as the agent (§6.6) switches the
         * thread's credentials for every operation, reads included, so that a suite run both
         * ways covers both (tests/meson.build). */
        const char *io = getenv("WARDER_TEST_AGENT_IO");
        if (io && strcmp(io, "switch") == 0)
                warder__creds_mode = 1;
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

char *warder_test_slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "rb");
        if (!f)
                return NULL;
        size_t cap = 8192, n = 0;
        char *buf = malloc(cap);
        ck_assert_ptr_nonnull(buf);
        size_t got;
        while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
                n += got;
                if (n + 1 >= cap) {
                        cap *= 2;
                        buf = realloc(buf, cap);
                        ck_assert_ptr_nonnull(buf);
                }
        }
        fclose(f);
        buf[n] = '\0';
        *len = n;
        return buf;
}

static signed char fd_state(int fd)
{
        int f = fcntl(fd, F_GETFD);
        return f == -1 ? -1 : (f & FD_CLOEXEC) ? 1 : 0;
}

void warder_test_fds_take(struct warder_test_fds *at)
{
        for (int fd = 0; fd < WARDER_TEST_MAX_FD; fd++)
                at->state[fd] = fd_state(fd);
}

int warder_test_fds_new_inheritable(const struct warder_test_fds *at)
{
        for (int fd = 0; fd < WARDER_TEST_MAX_FD; fd++)
                if (fd_state(fd) == 0 && at->state[fd] != 0)
                        return fd;
        return -1;
}

int warder_test_fds_changed(const struct warder_test_fds *at)
{
        for (int fd = 0; fd < WARDER_TEST_MAX_FD; fd++)
                if ((fd_state(fd) == -1) != (at->state[fd] == -1))
                        return fd;
        return -1;
}

void warder_test_no_new_inheritable(void *cloexec)
{
        struct warder_test_cloexec *c = cloexec;
        int fd = warder_test_fds_new_inheritable(&c->before);
        ck_assert_msg(fd < 0, "descriptor %d would reach a command another thread starts", fd);
        c->checks++;
}

void warder_test_cloexec_control(const struct warder_test_fds *before)
{
        int fd = open("/dev/null", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(warder_test_fds_new_inheritable(before), fd);
        close(fd);
}
