/* SPDX-License-Identifier: MIT */
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util.h"
#include "warder/path.h"

/* Whether the component starting at s[i] (the string is `len` bytes) is "." or "..". */
static inline bool dot_component(const char *s, size_t i, size_t len)
{
        if (s[i] != '.')
                return false;
        if (i + 1 == len || s[i + 1] == '/')
                return true;
        return s[i + 1] == '.' && (i + 2 == len || s[i + 2] == '/');
}

/* Whether s[0..len) (len > 0, s[0] != '/') is already normal: no empty, "." or ".."
 * component and no trailing slash, so it can be appended as it is. */
static bool plain(const char *s, size_t len)
{
        if (s[len - 1] == '/' || dot_component(s, 0, len))
                return false;
        size_t i = 0;
#if defined(__SSE2__)
        /* sixteen separators at a time; only a separator followed by '/' or '.' is looked at */
        const __m128i sep = _mm_set1_epi8('/'), dot = _mm_set1_epi8('.');
        for (; i + 17 <= len; i += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
                __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
                unsigned m = (unsigned)_mm_movemask_epi8(
                    _mm_and_si128(_mm_cmpeq_epi8(v, sep), _mm_or_si128(_mm_cmpeq_epi8(next, sep),
                                                                       _mm_cmpeq_epi8(next, dot))));
                while (m) {
                        size_t at = i + (size_t)__builtin_ctz(m) + 1;
                        if (s[at] == '/' || dot_component(s, at, len))
                                return false;
                        m &= m - 1;
                }
        }
#endif
        for (; i + 1 < len; i++) {
                if (s[i] == '/' && (s[i + 1] == '/' || dot_component(s, i + 1, len)))
                        return false;
        }
        return true;
}

/* Appends the components of `s` (`len` bytes) to the absolute path in `out` (§3.1). */
static int push_components(struct warder__buf *out, const char *s, size_t len)
{
        while (len && s[0] == '/')
                s++, len--;
        if (len && plain(s, len)) {
                /* the common case, in one copy */
                int rc = warder__buf_reserve(out, len + 1);
                if (rc)
                        return rc;
                out->data[out->len++] = '/';
                memcpy(out->data + out->len, s, len);
                out->len += len;
                out->data[out->len] = '\0';
                return 0;
        }
        size_t i = 0;
        while (i < len) {
                while (i < len && s[i] == '/')
                        i++;
                size_t start = i;
                const char *slash = i < len ? memchr(s + i, '/', len - i) : NULL;
                i = slash ? (size_t)(slash - s) : len;
                size_t n = i - start;
                if (n == 0 || (n == 1 && s[start] == '.'))
                        continue;
                if (n == 2 && s[start] == '.' && s[start + 1] == '.') {
                        char *up = out->len ? memrchr(out->data, '/', out->len) : NULL;
                        warder__buf_truncate(out, up ? (size_t)(up - out->data) : 0);
                        continue;
                }
                int rc = warder__buf_reserve(out, n + 1);
                if (rc)
                        return rc;
                out->data[out->len++] = '/';
                memcpy(out->data + out->len, s + start, n);
                out->len += n;
                out->data[out->len] = '\0';
        }
        return 0;
}

static int push_base(struct warder__buf *out, const char *what, const char *base,
                     struct warder_error *err)
{
        if (!base)
                return warder_error_set(err, WARDER_EINVAL, "a relative target needs a %s", what);
        if (base[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the %s must be absolute: '%s'", what,
                                        base);
        return push_components(out, base, strlen(base));
}

int warder__path_normalize_buf(struct warder__buf *out, const char *root, const char *home,
                               const char *cwd, const char *input, size_t len,
                               struct warder_error *err)
{
        if (!out || (!input && len))
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        warder__buf_truncate(out, 0);
        if (len == 0)
                return warder_error_set(err, WARDER_EINVAL, "empty target");
        if (memchr(input, '\0', len))
                return warder_error_set(err, WARDER_EINVAL, "target contains a NUL byte");
        /* Root, home and cwd are validated even when unused, so misuse shows up at once. */
        if (root && root[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the root must be absolute: '%s'",
                                        root);
        if (home && home[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the home must be absolute: '%s'",
                                        home);
        int rc = 0;
        const char *rest = input;
        size_t rest_len = len;
        if (input[0] == '/') {
                /* absolute: nothing to prepend */
        } else if (input[0] == '~' && (len == 1 || input[1] == '/')) {
                rc = push_base(out, "home directory", home, err);
                rest++;
                rest_len--;
        } else if (cwd) {
                rc = push_base(out, "current directory", cwd, err);
        } else {
                rc = push_base(out, "root", root, err);
        }
        if (!rc)
                rc = push_components(out, rest, rest_len);
        if (!rc && out->len == 0)
                rc = warder__buf_putc(out, '/');
        if (rc == WARDER_ENOMEM)
                warder_error_set(err, rc, "out of memory");
        return rc;
}

WARDER_API int warder_path_normalize(char **out, size_t *out_len, const char *root,
                                     const char *home, const char *cwd, const char *input,
                                     size_t len, struct warder_error *err)
{
        if (!out)
                return warder_error_set(err, WARDER_EINVAL, "out is NULL");
        struct warder__buf b = WARDER__BUF_INIT;
        int rc = warder__path_normalize_buf(&b, root, home, cwd, input, len, err);
        if (rc) {
                warder__buf_free(&b);
                return rc;
        }
        if (out_len)
                *out_len = b.len;
        *out = warder__buf_steal(&b);
        return 0;
}
