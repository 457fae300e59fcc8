/* SPDX-License-Identifier: MIT */
/* Approval tokens: a store of single-use random tokens, or self-describing stateless ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "session/approval.h"

#define STORED_PREFIX    "wt1_"
#define STATELESS_PREFIX "wa1_"
#define TOKEN_BYTES      16 /* 128 bits from the kernel's CSPRNG */

struct warder_approval_entry {
        char token[sizeof(STORED_PREFIX) + 2 * TOKEN_BYTES];
        enum warder_op op;
        char *literal, *real, *digest;
        char *binding;
        size_t binding_len;
        int64_t expires_ms; /* CLOCK_MONOTONIC */
        struct warder_approval_entry *next;
};

static int64_t clock_ms(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int warder_approvals_init(struct warder_approvals *a, uint32_t ttl_ms, size_t max_count,
                          size_t max_bytes, bool stateless)
{
        memset(a, 0, sizeof(*a));
        a->ttl_ms = ttl_ms;
        a->max_count = max_count;
        a->max_bytes = max_bytes;
        a->stateless = stateless;
        return pthread_mutex_init(&a->lock, NULL) ? -1 : 0;
}

static void entry_free(struct warder_approval_entry *e)
{
        if (!e)
                return;
        free(e->literal);
        free(e->real);
        free(e->digest);
        free(e->binding);
        free(e);
}

static size_t entry_bytes(const struct warder_approval_entry *e)
{
        return sizeof(*e) + strlen(e->literal) + (e->real ? strlen(e->real) : 0) + e->binding_len;
}

void warder_approvals_fini(struct warder_approvals *a)
{
        struct warder_approval_entry *e = a->head;
        while (e) {
                struct warder_approval_entry *next = e->next;
                entry_free(e);
                e = next;
        }
        a->head = a->tail = NULL;
        pthread_mutex_destroy(&a->lock);
}

static void hex(char *out, const unsigned char *p, size_t n)
{
        static const char digits[] = "0123456789abcdef";
        for (size_t i = 0; i < n; i++) {
                out[2 * i] = digits[p[i] >> 4];
                out[2 * i + 1] = digits[p[i] & 15];
        }
        out[2 * n] = '\0';
}

/* ---- stateless tokens: "wa1_" + hex(expiry, op, literal, real, digest) -------------------- */

struct wire {
        unsigned char *p;
        size_t len, cap;
        bool bad;
};

static void wire_put(struct wire *w, const void *data, size_t n)
{
        if (w->bad)
                return;
        if (w->len + n > w->cap) {
                size_t cap = (w->cap ? w->cap * 2 : 256) + n;
                unsigned char *p = realloc(w->p, cap);
                if (!p) {
                        w->bad = true;
                        return;
                }
                w->p = p;
                w->cap = cap;
        }
        memcpy(w->p + w->len, data, n);
        w->len += n;
}

static void wire_u64(struct wire *w, uint64_t v)
{
        unsigned char b[8];
        for (int i = 0; i < 8; i++)
                b[i] = (unsigned char)(v >> (56 - 8 * i));
        wire_put(w, b, 8);
}

static void wire_str(struct wire *w, const char *s, size_t n)
{
        wire_u64(w, s ? (uint64_t)n + 1 : 0);
        if (s)
                wire_put(w, s, n);
}

/* The bytes a stateless token spells out for `key`, expiring at `expires` (realtime ms). */
static int stateless_body(const struct warder_approval_key *key, uint64_t expires, struct wire *w)
{
        wire_u64(w, expires);
        wire_u64(w, (uint64_t)key->op);
        wire_str(w, key->literal, strlen(key->literal));
        wire_str(w, key->real, key->real ? strlen(key->real) : 0);
        wire_str(w, key->digest, strlen(key->digest));
        wire_str(w, key->binding, key->binding_len);
        return w->bad ? -1 : 0;
}

static char *stateless_issue(struct warder_approvals *a, const struct warder_approval_key *key)
{
        struct wire w = {0};
        uint64_t expires = (uint64_t)clock_ms(CLOCK_REALTIME) + a->ttl_ms;
        char *token = NULL;
        if (stateless_body(key, expires, &w) == 0 &&
            (token = malloc(strlen(STATELESS_PREFIX) + 2 * w.len + 1))) {
                strcpy(token, STATELESS_PREFIX);
                hex(token + strlen(STATELESS_PREFIX), w.p, w.len);
        }
        free(w.p);
        return token;
}

static const char *stateless_redeem(const char *token, const struct warder_approval_key *key)
{
        size_t plen = strlen(STATELESS_PREFIX);
        size_t n = strlen(token);
        if (n < plen + 16 || strncmp(token, STATELESS_PREFIX, plen) != 0)
                return "not an approval token";
        const char *h = token + plen;
        char exp_hex[17];
        memcpy(exp_hex, h, 16);
        exp_hex[16] = '\0';
        char *end = NULL;
        errno = 0;
        unsigned long long expires = strtoull(exp_hex, &end, 16);
        if (errno || *end)
                return "not an approval token";
        struct wire w = {0};
        const char *why = NULL;
        if (stateless_body(key, expires, &w) != 0) {
                why = "out of memory";
        } else {
                char *want = malloc(2 * w.len + 1);
                if (!want) {
                        why = "out of memory";
                } else {
                        hex(want, w.p, w.len);
                        if (strcmp(want, h) != 0) {
                                /* Same expiry prefix; tell a stale digest from another request. */
                                why = "the token was issued for another request (another "
                                      "operation, target, real form or ruleset)";
                        } else if ((int64_t)expires < clock_ms(CLOCK_REALTIME)) {
                                why = "the token has expired";
                        }
                        free(want);
                }
        }
        free(w.p);
        return why;
}

/* ---- stored tokens ------------------------------------------------------------------------ */

static void unlink_entry(struct warder_approvals *a, struct warder_approval_entry *prev,
                         struct warder_approval_entry *e)
{
        if (prev)
                prev->next = e->next;
        else
                a->head = e->next;
        if (a->tail == e)
                a->tail = prev;
        a->count--;
        a->bytes -= entry_bytes(e);
}

/* Drops expired entries (caller holds the lock). */
static void sweep(struct warder_approvals *a, int64_t now)
{
        struct warder_approval_entry *prev = NULL, *e = a->head;
        while (e) {
                struct warder_approval_entry *next = e->next;
                if (e->expires_ms <= now) {
                        unlink_entry(a, prev, e);
                        entry_free(e);
                } else {
                        prev = e;
                }
                e = next;
        }
}

static char *dup_or_null(const char *s, bool *bad)
{
        if (!s)
                return NULL;
        char *d = strdup(s);
        if (!d)
                *bad = true;
        return d;
}

char *warder_approvals_issue(struct warder_approvals *a, const struct warder_approval_key *key)
{
        if (a->stateless)
                return stateless_issue(a, key);
        unsigned char rnd[TOKEN_BYTES];
        size_t got = 0;
        while (got < sizeof(rnd)) {
                ssize_t n = getrandom(rnd + got, sizeof(rnd) - got, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return NULL; /* no token rather than a guessable one */
                got += (size_t)n;
        }
        struct warder_approval_entry *e = calloc(1, sizeof(*e));
        if (!e)
                return NULL;
        bool bad = false;
        strcpy(e->token, STORED_PREFIX);
        hex(e->token + strlen(STORED_PREFIX), rnd, sizeof(rnd));
        e->op = key->op;
        e->literal = dup_or_null(key->literal, &bad);
        e->real = dup_or_null(key->real, &bad);
        e->digest = dup_or_null(key->digest, &bad);
        if (key->binding_len) {
                e->binding = malloc(key->binding_len);
                if (e->binding)
                        memcpy(e->binding, key->binding, key->binding_len);
                else
                        bad = true;
        }
        e->binding_len = key->binding_len;
        char *token = bad || !e->literal ? NULL : strdup(e->token);
        if (!token) {
                entry_free(e);
                return NULL;
        }
        size_t size = entry_bytes(e);
        pthread_mutex_lock(&a->lock);
        int64_t now = clock_ms(CLOCK_MONOTONIC);
        e->expires_ms = now + a->ttl_ms;
        sweep(a, now);
        while (a->head && (a->count + 1 > a->max_count || a->bytes + size > a->max_bytes)) {
                struct warder_approval_entry *old = a->head;
                unlink_entry(a, NULL, old);
                entry_free(old);
        }
        if (size > a->max_bytes) {
                pthread_mutex_unlock(&a->lock);
                entry_free(e);
                free(token);
                return NULL;
        }
        if (a->tail)
                a->tail->next = e;
        else
                a->head = e;
        a->tail = e;
        a->count++;
        a->bytes += size;
        pthread_mutex_unlock(&a->lock);
        return token;
}

/* Compares without an early exit, so the time taken does not tell how much of a guess was
 * right. */
static bool same_token(const char *a, const char *b)
{
        size_t n = strlen(a);
        if (n != strlen(b))
                return false;
        unsigned char diff = 0;
        for (size_t i = 0; i < n; i++)
                diff |= (unsigned char)(a[i] ^ b[i]);
        return diff == 0;
}

static bool same_str(const char *a, const char *b)
{
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static struct warder_approval_entry *find(struct warder_approvals *a, const char *token,
                                          struct warder_approval_entry **prev_out)
{
        struct warder_approval_entry *prev = NULL;
        for (struct warder_approval_entry *e = a->head; e; prev = e, e = e->next) {
                if (same_token(e->token, token)) {
                        *prev_out = prev;
                        return e;
                }
        }
        return NULL;
}

const char *warder_approvals_redeem(struct warder_approvals *a, const char *token,
                                    const struct warder_approval_key *key)
{
        if (a->stateless)
                return stateless_redeem(token, key);
        const char *why = NULL;
        pthread_mutex_lock(&a->lock);
        int64_t now = clock_ms(CLOCK_MONOTONIC);
        struct warder_approval_entry *prev = NULL;
        struct warder_approval_entry *e = find(a, token, &prev);
        if (!e) {
                why = "unknown token (never issued, already used, or expired)";
        } else if (e->expires_ms <= now) {
                unlink_entry(a, prev, e);
                entry_free(e);
                why = "the token has expired";
        } else if (e->op != key->op || !same_str(e->literal, key->literal) ||
                   !same_str(e->real, key->real)) {
                why = "the token was issued for another request (another operation, target or "
                      "real form)";
        } else if (!same_str(e->digest, key->digest)) {
                why = "the ruleset changed since the token was issued";
        } else if (e->binding_len != key->binding_len ||
                   (e->binding_len && memcmp(e->binding, key->binding, e->binding_len) != 0)) {
                why = "the token was issued for another request (other parameters)";
        } else {
                unlink_entry(a, prev, e); /* single use */
                entry_free(e);
        }
        pthread_mutex_unlock(&a->lock);
        return why;
}

int warder_approvals_binding(struct warder_approvals *a, const char *token, char **out, size_t *len)
{
        if (a->stateless)
                return -1;
        int rc = -1;
        pthread_mutex_lock(&a->lock);
        struct warder_approval_entry *prev = NULL;
        struct warder_approval_entry *e = find(a, token, &prev);
        if (e && e->expires_ms > clock_ms(CLOCK_MONOTONIC)) {
                char *copy = malloc(e->binding_len + 1);
                if (copy) {
                        if (e->binding_len)
                                memcpy(copy, e->binding, e->binding_len);
                        copy[e->binding_len] = '\0';
                        *out = copy;
                        *len = e->binding_len;
                        rc = 0;
                }
        }
        pthread_mutex_unlock(&a->lock);
        return rc;
}
