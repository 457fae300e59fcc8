/* SPDX-License-Identifier: MIT */
#define WARDER_TEST_SUPPORT_C
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/creds.h"

static int listing(void)
{
        const char *l = getenv("WARDER_TEST_LIST");
        return l && *l && strcmp(l, "0") != 0;
}

static int chosen(const char *name)
{
        const char *only = getenv("WARDER_TEST_ONLY");
        if (!only)
                return 1;
        size_t n = strlen(name);
        for (const char *p = only; *p;) {
                const char *e = strchr(p, ',');
                size_t len = e ? (size_t)(e - p) : strlen(p);
                if (len == n && memcmp(p, name, n) == 0)
                        return 1;
                p += len + (e != NULL);
        }
        return 0;
}

void warder_test_add(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                     int end)
{
        if (listing())
                printf("%s\n", ttest->name);
        else if (chosen(ttest->name))
                _tcase_add_test(tc, ttest, signal, allowed_exit_value, start, end);
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
