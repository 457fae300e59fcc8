/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "util.h"
#include "warder/path.h"

/* Appends the components of `s` (`len` bytes) to the absolute path in `out` (§3.1). */
static int push_components(struct warder__buf *out, const char *s, size_t len)
{
        size_t i = 0;
        while (i < len) {
                while (i < len && s[i] == '/')
                        i++;
                size_t start = i;
                while (i < len && s[i] != '/')
                        i++;
                size_t n = i - start;
                if (n == 0 || (n == 1 && s[start] == '.'))
                        continue;
                if (n == 2 && s[start] == '.' && s[start + 1] == '.') {
                        char *slash = out->len ? memrchr(out->data, '/', out->len) : NULL;
                        warder__buf_truncate(out, slash ? (size_t)(slash - out->data) : 0);
                        continue;
                }
                int rc = warder__buf_putc(out, '/');
                if (!rc)
                        rc = warder__buf_append(out, s + start, n);
                if (rc)
                        return rc;
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
