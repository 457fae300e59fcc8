/* SPDX-License-Identifier: MIT */
/*
 * Path normalisation, the literal form (semantics §3.1).
 *
 * Input: one flag byte, then root NUL home NUL cwd NUL input (the input keeps any further
 * NUL bytes: an embedded NUL must be WARDER_EINVAL, §3.1). Flag bits 0/1/2 pass NULL instead
 * of root/home/cwd. Properties checked on every input:
 *  - success exactly when the arguments are valid, else WARDER_EINVAL with err filled and
 *    the outputs untouched;
 *  - the result is absolute, NUL-free, has no `//`, `/./`, `/../`, no trailing `/` (except
 *    "/"), no `.`/`..` component, so it never names anything above `/`;
 *  - it equals a small independent reference normaliser written here;
 *  - idempotent: normalising the result again (with the same or no bases) changes nothing;
 *  - a relative input without a `..` component stays under its base (root, cwd or home).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "warder/error.h"
#include "warder/path.h"

/* Appends the components of s[0..len) to the absolute path in out (length *olen). */
static void ref_push(char *out, size_t *olen, const char *s, size_t len)
{
        size_t i = 0;
        while (i < len) {
                size_t j = i;
                while (j < len && s[j] != '/')
                        j++;
                size_t n = j - i;
                if (n == 2 && s[i] == '.' && s[i + 1] == '.') {
                        while (*olen > 0 && out[*olen - 1] != '/')
                                (*olen)--;
                        if (*olen > 0)
                                (*olen)--; /* the slash before the popped component */
                } else if (n > 0 && !(n == 1 && s[i] == '.')) {
                        out[(*olen)++] = '/';
                        memcpy(out + *olen, s + i, n);
                        *olen += n;
                }
                i = j + 1;
        }
}

static bool is_abs(const char *s)
{
        return s && s[0] == '/';
}

static bool has_dotdot_component(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                bool start = i == 0 || s[i - 1] == '/';
                if (start && i + 2 <= len && s[i] == '.' && s[i + 1] == '.' &&
                    (i + 2 == len || s[i + 2] == '/'))
                        return true;
        }
        return false;
}

/* True when the normalised base `base` (absolute) contains path `p` or equals it. */
static bool under(const char *p, const char *base)
{
        size_t bl = strlen(base);
        if (strcmp(base, "/") == 0)
                return p[0] == '/';
        return strncmp(p, base, bl) == 0 && (p[bl] == '\0' || p[bl] == '/');
}

static void check_shape(const char *p, size_t len)
{
        FUZZ_CHECK(len > 0 && p[0] == '/', "not absolute: '%s'", p);
        FUZZ_CHECK(strlen(p) == len, "length %zu but strlen %zu", len, strlen(p));
        FUZZ_CHECK(!strstr(p, "//"), "'//' in '%s'", p);
        FUZZ_CHECK(!strstr(p, "/./"), "'/./' in '%s'", p);
        FUZZ_CHECK(!strstr(p, "/../"), "'/../' in '%s'", p);
        FUZZ_CHECK(len == 1 || p[len - 1] != '/', "trailing '/' in '%s'", p);
        bool dot_end = (len >= 2 && strcmp(p + len - 2, "/.") == 0) ||
                       (len >= 3 && strcmp(p + len - 3, "/..") == 0);
        FUZZ_CHECK(!dot_end, "'.' or '..' component at the end of '%s'", p);
}

/* Normalises a base the way §3.1 says (for the containment and reference checks). */
static char *ref_base(const char *base)
{
        size_t len = strlen(base);
        char *out = malloc(len + 2);
        if (!out)
                abort();
        size_t olen = 0;
        ref_push(out, &olen, base, len);
        if (olen == 0)
                out[olen++] = '/';
        out[olen] = '\0';
        return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        unsigned flags = data[0];
        const char *p = (const char *)data + 1;
        size_t left = size - 1;
        char *field[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
                const char *nul = memchr(p, '\0', left);
                size_t n = nul ? (size_t)(nul - p) : left;
                field[k] = malloc(n + 1);
                if (!field[k])
                        abort();
                memcpy(field[k], p, n);
                field[k][n] = '\0';
                p += nul ? n + 1 : n;
                left -= nul ? n + 1 : n;
        }
        const char *root = (flags & 1) ? NULL : field[0];
        const char *home = (flags & 2) ? NULL : field[1];
        const char *cwd = (flags & 4) ? NULL : field[2];
        const char *input = p;
        size_t len = left;

        /* What §3.1 and path.h say must happen. */
        bool tilde = len >= 1 && input[0] == '~' && (len == 1 || input[1] == '/');
        bool relative = len >= 1 && input[0] != '/' && !tilde;
        const char *base = NULL;
        bool valid = len > 0 && !memchr(input, '\0', len);
        if (root && !is_abs(root))
                valid = false;
        if (home && !is_abs(home))
                valid = false;
        if (tilde)
                base = home;
        else if (relative)
                base = cwd ? cwd : root;
        if ((tilde || relative) && !is_abs(base))
                valid = false;
        /* A cwd that is given but unused may be rejected or ignored: path.h says bases must be
         * absolute, so a relative cwd is never asserted to succeed. */
        bool cwd_bad_unused = cwd && !is_abs(cwd) && base != cwd;

        char sentinel = 0;
        char *out = &sentinel;
        size_t out_len = 12345;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_path_normalize(&out, &out_len, root, home, cwd, input, len, &err);
        if (rc) {
                FUZZ_CHECK(rc == WARDER_EINVAL, "unexpected status %d", rc);
                FUZZ_CHECK(!valid || cwd_bad_unused, "valid arguments refused: %s", err.message);
                FUZZ_CHECK(err.code == rc, "err.code %d for status %d", err.code, rc);
                FUZZ_CHECK(out == &sentinel && out_len == 12345, "outputs touched on failure");
                warder_error_clear(&err);
                goto done;
        }
        FUZZ_CHECK(valid, "invalid arguments accepted, result '%s'", out);
        check_shape(out, out_len);

        /* Reference result. */
        size_t cap = len + 2 + (base ? strlen(base) : 0) + 2;
        char *ref = malloc(cap);
        if (!ref)
                abort();
        size_t rlen = 0;
        if (base)
                ref_push(ref, &rlen, base, strlen(base));
        if (tilde)
                ref_push(ref, &rlen, input + 1, len - 1);
        else
                ref_push(ref, &rlen, input, len);
        if (rlen == 0)
                ref[rlen++] = '/';
        ref[rlen] = '\0';
        FUZZ_CHECK(rlen == out_len && memcmp(ref, out, rlen) == 0, "got '%s', reference '%s'", out,
                   ref);
        free(ref);

        /* Idempotent, with the same bases and with none (an absolute input needs none). */
        char *again = NULL;
        size_t again_len = 0;
        rc = warder_path_normalize(&again, &again_len, root, home, cwd, out, out_len, NULL);
        FUZZ_CHECK(rc == 0 || cwd_bad_unused, "normalising '%s' again failed: %d", out, rc);
        if (rc == 0) {
                FUZZ_CHECK(again_len == out_len && memcmp(again, out, out_len) == 0,
                           "not idempotent: '%s' -> '%s'", out, again);
                warder_free(again);
        }
        again = NULL;
        rc = warder_path_normalize(&again, &again_len, NULL, NULL, NULL, out, out_len, NULL);
        FUZZ_CHECK(rc == 0, "normalising absolute '%s' without bases failed: %d", out, rc);
        FUZZ_CHECK(again_len == out_len && memcmp(again, out, out_len) == 0,
                   "not idempotent without bases: '%s' -> '%s'", out, again);
        warder_free(again);

        /* A relative (or ~) input without `..` stays under its base. */
        if ((relative || tilde) && !has_dotdot_component(input, len)) {
                char *nb = ref_base(base);
                FUZZ_CHECK(under(out, nb), "'%.*s' left its base '%s': '%s'", (int)len, input, nb,
                           out);
                free(nb);
        }
        warder_free(out);
done:
        for (int k = 0; k < 3; k++)
                free(field[k]);
        return 0;
}
