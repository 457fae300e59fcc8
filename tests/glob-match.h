/* SPDX-License-Identifier: MIT */
/* Compile-and-match helpers shared by the core matcher's tests. */
#ifndef WARDER_TEST_GLOB_MATCH_H
#define WARDER_TEST_GLOB_MATCH_H

#include <check.h>
#include <string.h>

#include "glob/glob-impl.h"
#include "warder/warder.h"

/* Compiles and matches; a compile error counts as "no match" (§2.9) and returns -100. The
 * interpreter (used where the JIT is unavailable) must give the same answer. */
static int try_match(const char *pat, size_t plen, const char *s, size_t slen, unsigned flags)
{
        warder_glob *g = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_glob_compile(&g, pat, plen, flags, &err);
        if (rc) {
                ck_assert_int_eq(err.code, rc);
                ck_assert_ptr_null(g);
                warder_error_clear(&err);
                return -100;
        }
        int m = warder_glob_match(g, s, slen);
        ck_assert_msg(warder__glob_match_interpreted(g, s, slen) == m,
                      "interpreter disagrees on '%.*s' vs '%.*s'", (int)plen, pat, (int)slen, s);
        warder_glob_free(g);
        return m;
}

static int match(const char *pat, const char *s, unsigned flags)
{
        return try_match(pat, strlen(pat), s, strlen(s), flags);
}

#endif
