/* SPDX-License-Identifier: MIT */
/*
 * Approval tokens (§7.3; docs/serve.md, "Approvals"): a token approves exactly one request — the
 * same operation on the same literal and real forms, decided by a ruleset with the same digest,
 * with the same door binding (the request's parameters) — once, before it expires. A deny is never
 * put to a token: the guard only asks for approval of an `ask`.
 */
#ifndef WARDER_SESSION_APPROVAL_H
#define WARDER_SESSION_APPROVAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "warder/warder.h"

/* What a token binds. `real` is NULL for execute. */
struct warder_approval_key {
        enum warder_op op;
        const char *literal;
        const char *real;
        const char *digest;
        const void *binding;
        size_t binding_len;
};

struct warder_approval_entry;

struct warder_approvals {
        pthread_mutex_t lock;
        struct warder_approval_entry *head, *tail; /* oldest first */
        size_t count, bytes;
        size_t max_count, max_bytes;
        uint32_t ttl_ms;
        bool stateless;
};

int warder_approvals_init(struct warder_approvals *a, uint32_t ttl_ms, size_t max_count,
                          size_t max_bytes, bool stateless);
void warder_approvals_fini(struct warder_approvals *a);

/* A new token for `key` (free()), or NULL when none could be made (no randomness, memory).
 * The oldest tokens make room when a limit is reached. */
char *warder_approvals_issue(struct warder_approvals *a, const struct warder_approval_key *key);

/* NULL when `token` approves `key` (a stored token is then used up), else why not. */
const char *warder_approvals_redeem(struct warder_approvals *a, const char *token,
                                    const struct warder_approval_key *key);

/* A copy of the binding of a live stored token (free()); -1 when there is none. */
int warder_approvals_binding(struct warder_approvals *a, const char *token, char **out,
                             size_t *len);

#endif
