/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator for what a ruleset keeps for its whole life (rule strings, alternatives)
 * and for a YAML tree: one allocation per chunk instead of one per string, freed at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset-internal.h"

struct warder__arena_chunk {
        struct warder__arena_chunk *next;
        size_t cap, used;
        _Alignas(max_align_t) char data[];
};

#define FIRST_CHUNK 4096u
#define MAX_CHUNK   (64u * 1024u)

void *warder__arena_alloc(struct warder__arena *a, size_t n)
{
        if (n > SIZE_MAX - 8)
                return NULL;
        n = n ? (n + 7) & ~(size_t)7 : 8;
        struct warder__arena_chunk *c = a->head;
        if (!c || c->cap - c->used < n) {
                size_t cap = a->next ? a->next : FIRST_CHUNK;
                if (cap < MAX_CHUNK)
                        a->next = cap * 2;
                if (cap < n)
                        cap = n;
                if (cap > SIZE_MAX - sizeof(*c))
                        return NULL;
                struct warder__arena_chunk *fresh = malloc(sizeof(*c) + cap);
                if (!fresh)
                        return NULL;
                fresh->cap = cap;
                fresh->used = 0;
                if (c && c->cap - c->used >= FIRST_CHUNK / 4 && cap == n) {
                        /* a large block: keep filling the current chunk after it */
                        fresh->next = c->next;
                        c->next = fresh;
                        fresh->used = n;
                        return fresh->data;
                }
                fresh->next = c;
                a->head = c = fresh;
        }
        void *p = c->data + c->used;
        c->used += n;
        return p;
}

char *warder__arena_strndup(struct warder__arena *a, const char *s, size_t n)
{
        char *p = warder__arena_alloc(a, n + 1);
        if (p) {
                if (n)
                        memcpy(p, s, n);
                p[n] = '\0';
        }
        return p;
}

void warder__arena_free(struct warder__arena *a)
{
        struct warder__arena_chunk *c = a->head;
        while (c) {
                struct warder__arena_chunk *next = c->next;
                free(c);
                c = next;
        }
        a->head = NULL;
        a->next = 0;
}
