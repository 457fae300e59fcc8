/* SPDX-License-Identifier: MIT */
#ifndef WARDER_RING_H
#define WARDER_RING_H

/*
 * A small io_uring of the calling thread, used for one purpose: to make a lookup or an open as
 * the agent without changing the thread's credentials (§6.6). A request carries a
 * "personality" — a set of credentials registered with the ring once — and the kernel performs
 * it with those credentials; the thread itself keeps the host's throughout.
 *
 * One ring per thread, set up on first use (never shared: each is set up for a single issuer)
 * and released when the thread exits; a child made by fork() starts without one. Requests are
 * made one at a time: submit, wait for its completion, return its result.
 */

#include <stdint.h>

struct io_uring_sqe;

/* The calling thread's ring, set up now if needed: 0, or -errno when io_uring is unavailable
 * (not built into the kernel, disabled, refused by a seccomp filter, lacking the operations). */
int warder__ring_ready(void);

/* Which ring the calling thread has (a number no other ring of this process had), 0 for none:
 * a personality is only valid on the ring that registered it. */
uint64_t warder__ring_serial(void);

/* Registers the calling thread's current credentials with its ring: the personality's id
 * (> 0), or -errno. */
int warder__ring_register(void);

/* Forgets a personality of the calling thread's ring. */
void warder__ring_unregister(int personality);

/* Performs `sqe` (copied; its personality field is set from `personality`) on the calling
 * thread's ring and waits for it: the operation's result, or -errno when the ring failed. */
long warder__ring_call(const struct io_uring_sqe *sqe, int personality);

#endif
