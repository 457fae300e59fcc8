/* SPDX-License-Identifier: MIT */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/creds.h"

int warder_test_run(Suite *s)
{
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
