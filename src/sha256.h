/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), for digests that must change whenever what they cover changes. */
#ifndef WARDER_SHA256_H
#define WARDER_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct warder__sha256 {
        uint32_t h[8];
        uint64_t total; /* bytes fed so far */
        unsigned char block[64];
        size_t fill;
};

void warder__sha256_init(struct warder__sha256 *c);
void warder__sha256_update(struct warder__sha256 *c, const void *data, size_t len);
void warder__sha256_final(struct warder__sha256 *c, unsigned char out[32]);

#endif
