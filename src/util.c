/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uthash-safe.h"

_Thread_local bool warder__hash_oom;

int warder__buf_reserve(struct warder__buf *b, size_t extra)
{
        if (extra > SIZE_MAX - b->len - 1)
                return WARDER_ENOMEM;
        size_t need = b->len + extra + 1;
        if (need <= b->cap)
                return 0;
        size_t cap = b->cap ? b->cap : 64;
        while (cap < need)
                cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        char *p = realloc(b->data, cap);
        if (!p)
                return WARDER_ENOMEM;
        b->data = p;
        b->cap = cap;
        return 0;
}

int warder__buf_append(struct warder__buf *b, const void *data, size_t len)
{
        int rc = warder__buf_reserve(b, len);
        if (rc)
                return rc;
        if (len)
                memcpy(b->data + b->len, data, len);
        b->len += len;
        b->data[b->len] = '\0';
        return 0;
}

int warder__buf_puts(struct warder__buf *b, const char *s)
{
        return warder__buf_append(b, s, strlen(s));
}

int warder__buf_putc(struct warder__buf *b, char c)
{
        return warder__buf_append(b, &c, 1);
}

int warder__buf_printf(struct warder__buf *b, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        va_list ap2;
        va_copy(ap2, ap);
        int n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        int rc = n < 0 ? WARDER_EINVAL : warder__buf_reserve(b, (size_t)n);
        if (rc == 0) {
                vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
                b->len += (size_t)n;
        }
        va_end(ap2);
        return rc;
}

void warder__buf_truncate(struct warder__buf *b, size_t len)
{
        if (len < b->len) {
                b->len = len;
                b->data[len] = '\0';
        }
}

char *warder__buf_steal(struct warder__buf *b)
{
        if (!b->data && warder__buf_reserve(b, 0))
                return NULL;
        b->data[b->len] = '\0';
        char *p = b->data;
        *b = (struct warder__buf)WARDER__BUF_INIT;
        return p;
}

void warder__buf_free(struct warder__buf *b)
{
        free(b->data);
        *b = (struct warder__buf)WARDER__BUF_INIT;
}

void warder__strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

int warder__strv_dup(const char *const *src, char ***out)
{
        *out = NULL;
        if (!src)
                return 0;
        size_t n = 0;
        while (src[n])
                n++;
        char **v = calloc(n + 1, sizeof(*v));
        if (!v)
                return WARDER_ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!(v[i] = strdup(src[i]))) {
                        warder__strv_free(v);
                        return WARDER_ENOMEM;
                }
        }
        *out = v;
        return 0;
}

int warder__grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first)
{
        if (need <= *cap)
                return 0;
        size_t c = *cap ? *cap : (first ? first : 1);
        while (c < need) {
                if (c > SIZE_MAX / 2)
                        return WARDER_ENOMEM;
                c *= 2;
        }
        if (c > SIZE_MAX / size)
                return WARDER_ENOMEM;
        void *p = realloc(*(void **)arrp, c * size);
        if (!p)
                return WARDER_ENOMEM;
        *(void **)arrp = p;
        *cap = c;
        return 0;
}
