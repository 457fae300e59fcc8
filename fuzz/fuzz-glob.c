/* SPDX-License-Identifier: MIT */
/*
 * The core glob matcher (semantics §2.1–§2.8, §2.13, command patterns §5.1).
 *
 * Input: one mode byte (bit 0 fold case, bit 1 command, bit 2 no braces), then
 * pattern NUL subject. Without a NUL the pattern is also the subject. In command mode the
 * subject is squeezed first (tabs to spaces, runs of spaces to one, trimmed), as command
 * inspection hands it over (§5.1).
 *
 * Properties:
 *  - compile returns a pattern or a clean error: WARDER_EPARSE/ETOOBIG with err filled, an
 *    offset inside the pattern for EPARSE, and the output untouched;
 *  - the differential oracle (oracle-glob.c) agrees: a pattern it calls malformed must fail
 *    to compile, one it calls valid must compile, and on every pair it can express the
 *    compiled matcher's answer equals the oracle's; any disagreement aborts;
 *  - matching is deterministic; a pattern that compiles without WARDER_GLOB_FOLD_CASE
 *    compiles with it, and the folded matcher agrees with the oracle too.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "oracle-glob.h"
#include "warder/error.h"
#include "warder/glob.h"

static const char *mode_name(unsigned flags)
{
        static char buf[64];
        snprintf(buf, sizeof buf, "%s%s%s%s", flags ? "" : "plain",
                 flags & WARDER_GLOB_FOLD_CASE ? "fold " : "",
                 flags & WARDER_GLOB_COMMAND ? "command " : "",
                 flags & WARDER_GLOB_NO_BRACES ? "no-braces" : "");
        return buf;
}

/* Printable form of a byte string for messages (static buffer, one at a time). */
static const char *show(const char *s, size_t len, int slot)
{
        static char bufs[2][2048];
        char *b = bufs[slot];
        size_t o = 0;
        for (size_t i = 0; i < len && o + 5 < sizeof bufs[0]; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c >= 32 && c < 127 && c != '\\')
                        b[o++] = (char)c;
                else
                        o += (size_t)snprintf(b + o, 5, "\\x%02x", c);
        }
        b[o] = '\0';
        return b;
}

static size_t squeeze(char *s, size_t len)
{
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                char c = s[i] == '\t' ? ' ' : s[i];
                if (c == ' ' && (o == 0 || s[o - 1] == ' '))
                        continue;
                s[o++] = c;
        }
        while (o > 0 && s[o - 1] == ' ')
                o--;
        return o;
}

/* Matches and checks determinism; returns 1, 0, or negative (engine error). */
static int match(const warder_glob *g, const char *s, size_t len)
{
        int a = warder_glob_match(g, s, len);
        int b = warder_glob_match(g, s, len);
        FUZZ_CHECK(a == b, "matching twice gave %d then %d", a, b);
        FUZZ_CHECK(a == 0 || a == 1 || a < 0, "match returned %d", a);
        return a;
}

static void differential(const char *pat, size_t plen, const warder_glob *g, const char *s,
                         size_t slen, unsigned flags)
{
        int got = match(g, s, slen);
        if (got < 0)
                return; /* an engine limit: callers fail closed (§2.10) */
        int want = oracle_glob_match(pat, plen, s, slen, flags);
        if (want == ORACLE_GLOB_UNKNOWN || want == ORACLE_GLOB_INVALID)
                return;
        FUZZ_CHECK(got == (want == ORACLE_GLOB_MATCH),
                   "mode %s pattern '%s' subject '%s': matcher %d, oracle %d", mode_name(flags),
                   show(pat, plen, 0), show(s, slen, 1), got, want == ORACLE_GLOB_MATCH);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        unsigned flags = 0;
        if (data[0] & 1)
                flags |= WARDER_GLOB_FOLD_CASE;
        if (data[0] & 2)
                flags |= WARDER_GLOB_COMMAND;
        if (data[0] & 4)
                flags |= WARDER_GLOB_NO_BRACES;
        const char *pat = (const char *)data + 1;
        size_t rest = size - 1;
        const char *nul = memchr(pat, '\0', rest);
        size_t plen = nul ? (size_t)(nul - pat) : rest;
        size_t slen = nul ? rest - plen - 1 : plen;
        char *subject = malloc(slen + 1);
        if (!subject)
                abort();
        memcpy(subject, nul ? nul + 1 : pat, slen);
        if (flags & WARDER_GLOB_COMMAND)
                slen = squeeze(subject, slen);

        warder_glob *sentinel = (warder_glob *)&flags;
        warder_glob *g = sentinel;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_glob_compile(&g, pat, plen, flags, &err);
        int verdict = oracle_glob_check(pat, plen, flags);
        if (rc) {
                FUZZ_CHECK(rc == WARDER_EPARSE || rc == WARDER_ETOOBIG || rc == WARDER_ENOMEM,
                           "compile returned %d", rc);
                FUZZ_CHECK(err.code == rc, "err.code %d, returned %d", err.code, rc);
                FUZZ_CHECK(err.message[0] != '\0', "no error message");
                FUZZ_CHECK(g == sentinel, "output touched on failure");
                if (rc == WARDER_EPARSE)
                        FUZZ_CHECK(err.offset >= 0 && (size_t)err.offset <= plen,
                                   "offset %ld outside the pattern (%zu bytes)", err.offset, plen);
                FUZZ_CHECK(verdict != ORACLE_GLOB_MATCH,
                           "mode %s: valid pattern '%s' refused: %s (offset %ld)", mode_name(flags),
                           show(pat, plen, 0), err.message, err.offset);
                warder_error_clear(&err);
                free(subject);
                return 0;
        }
        FUZZ_CHECK(verdict != ORACLE_GLOB_INVALID, "mode %s: malformed pattern '%s' compiled",
                   mode_name(flags), show(pat, plen, 0));
        size_t shown_len = 0;
        const char *shown = warder_glob_pattern(g, &shown_len);
        FUZZ_CHECK(shown && shown_len == plen && memcmp(shown, pat, plen) == 0,
                   "warder_glob_pattern() does not return the pattern as written");
        FUZZ_CHECK(warder_glob_flags(g) == flags, "flags %u, compiled with %u",
                   warder_glob_flags(g), flags);

        differential(pat, plen, g, subject, slen, flags);
        /* The pattern against itself, and the subject as a directory. */
        differential(pat, plen, g, pat, plen, flags);
        char *dir = malloc(slen + 2);
        if (!dir)
                abort();
        memcpy(dir, subject, slen);
        dir[slen] = '/';
        differential(pat, plen, g, dir, slen + 1, flags);
        free(dir);

        /* The same pattern with case folding, against the oracle too. Folding does not only
         * widen: a negated class can match less (`[!'-c]` folded refuses `d`), which is why
         * §2.12 takes exact OR folded for deny rules; so only the oracle judges it. */
        if (!(flags & WARDER_GLOB_FOLD_CASE)) {
                unsigned ff = flags | WARDER_GLOB_FOLD_CASE;
                warder_glob *f = NULL;
                rc = warder_glob_compile(&f, pat, plen, ff, NULL);
                FUZZ_CHECK(rc == 0, "'%s' compiles without folding but not with it (%d)",
                           show(pat, plen, 0), rc);
                differential(pat, plen, f, subject, slen, ff);
                warder_glob_free(f);
        }
        warder_glob_free(g);
        free(subject);
        return 0;
}
