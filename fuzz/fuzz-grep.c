/* SPDX-License-Identifier: MIT */
/*
 * The grep engine (src/grep/engine.c): a differential harness.
 *
 * Input: one flag byte (bit 0: ASCII case-insensitive; bit 1: the SSE2 scan where AVX2
 * runs), then the pattern, a NUL, and the
 * bytes searched (any bytes, NUL included). Properties checked on every input:
 *  - compiling succeeds or fails with WARDER_EPARSE and a message;
 *  - the fast paths (literals, alternations of literals, a required byte, the multi-line
 *    candidate search) report exactly the lines of the per-line PCRE2 reference
 *    (WARDER__GREP_PLAIN): same numbers, same bytes, same order — unless either run left a
 *    line undecided at an engine limit (then it says so);
 *  - every reported line lies inside the buffer and holds no newline.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "grep/engine.h"
#include "warder/error.h"

struct hits {
        char *s;
        size_t len, cap;
        const char *buf;
        size_t n;
};

static int collect(void *ud, uint64_t line, const char *text, size_t len)
{
        struct hits *h = ud;
        FUZZ_CHECK(text >= h->buf && text + len <= h->buf + h->n, "a line outside the buffer");
        FUZZ_CHECK(memchr(text, '\n', len) == NULL, "a line with a newline");
        size_t need = h->len + len + 32;
        if (need > h->cap) {
                h->cap = need * 2;
                h->s = realloc(h->s, h->cap);
                if (!h->s)
                        abort();
        }
        h->len += (size_t)snprintf(h->s + h->len, 32, "%llu:", (unsigned long long)line);
        memcpy(h->s + h->len, text, len);
        h->len += len;
        h->s[h->len++] = '\n';
        return 0;
}

/* Runs the engine; false when it could not compile the pattern. */
static bool run(const char *pat, size_t plen, unsigned flags, const char *buf, size_t n,
                struct hits *h, bool *incomplete)
{
        struct warder__grep_engine *e = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder__grep_engine_new(&e, pat, plen, flags, &err);
        if (rc) {
                FUZZ_CHECK(rc == WARDER_EPARSE && err.message[0], "compile failed with %d", rc);
                return false;
        }
        struct warder__grep_scratch *s = warder__grep_scratch_new(e);
        if (!s)
                abort();
        *h = (struct hits){NULL, 0, 0, buf, n};
        *incomplete = false;
        FUZZ_CHECK(warder__grep_search(e, s, buf, n, collect, h, incomplete) == 0,
                   "the search failed");
        warder__grep_scratch_free(s);
        warder__grep_engine_free(e);
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 2)
                return 0;
        unsigned flags = ((data[0] & 1) ? WARDER__GREP_CASELESS : 0) |
                         ((data[0] & 2) ? WARDER__GREP_NO_AVX2 : 0);
        const char *pat = (const char *)data + 1;
        const char *nul = memchr(pat, '\0', size - 1);
        if (!nul)
                return 0;
        size_t plen = (size_t)(nul - pat);
        const char *buf = nul + 1;
        size_t n = size - 1 - plen - 1;
        struct hits fast, ref;
        bool fi, ri;
        bool ok = run(pat, plen, flags, buf, n, &fast, &fi);
        bool ok_ref = run(pat, plen, flags | WARDER__GREP_PLAIN, buf, n, &ref, &ri);
        FUZZ_CHECK(ok == ok_ref, "one compile failed, the other not");
        if (ok && !fi && !ri)
                FUZZ_CHECK(fast.len == ref.len && (!fast.len || !memcmp(fast.s, ref.s, fast.len)),
                           "pattern '%.*s'%s: the fast path differs from the reference", (int)plen,
                           pat, (flags & WARDER__GREP_CASELESS) ? " (caseless)" : "");
        if (ok) {
                free(fast.s);
                free(ref.s);
        }
        return 0;
}
