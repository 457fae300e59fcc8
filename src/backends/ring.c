/* SPDX-License-Identifier: MIT */
/*
 * A per-thread io_uring for lookups and opens as the agent (§6.6): see ring.h.
 *
 * The raw system calls (io_uring_setup, io_uring_enter, io_uring_register) and the shared ring
 * layout of io_uring(7); no library. The submission queue and the completion queue are shared
 * with the kernel: this thread is their only user-space writer, so a release store publishes a
 * submission and an acquire load reads a completion.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/ring.h"

#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

struct ring {
        int fd;
        void *sq_map, *cq_map;
        size_t sq_len, cq_len;
        struct io_uring_sqe *sqes;
        size_t sqes_len;
        unsigned *sq_tail, *sq_head, *sq_array, sq_mask;
        unsigned *cq_head, *cq_tail, cq_mask;
        struct io_uring_cqe *cqes;
        uint64_t seq;
        uint64_t serial;
};

static _Thread_local struct ring *thread_ring;
/* 0 until tried; then 0 again when the ring works, or the -errno that made it unavailable. */
static _Thread_local int thread_ring_error;
static _Thread_local bool thread_ring_tried;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;

static void ring_free(struct ring *r)
{
        if (!r)
                return;
        if (r->sqes)
                munmap(r->sqes, r->sqes_len);
        if (r->cq_map && r->cq_map != r->sq_map)
                munmap(r->cq_map, r->cq_len);
        if (r->sq_map)
                munmap(r->sq_map, r->sq_len);
        if (r->fd >= 0)
                close(r->fd);
        free(r);
}

static void at_thread_exit(void *p)
{
        ring_free(p);
}

/* A child made by fork() has copies of the forking thread's ring and of its state, but the
 * ring accepts requests from the thread that set it up only: the child starts afresh. */
static void at_fork_child(void)
{
        ring_free(thread_ring);
        thread_ring = NULL;
        thread_ring_tried = false;
        thread_ring_error = 0;
}

static void init_once(void)
{
        key_ok = pthread_key_create(&key, at_thread_exit) == 0;
        pthread_atfork(NULL, NULL, at_fork_child);
}

static void *map(int fd, size_t len, off_t off)
{
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);
        return p == MAP_FAILED ? NULL : p;
}

/* Whether the kernel knows the operations the wrappers of creds.c use. */
static bool has_ops(int fd)
{
        static const unsigned char ops[] = {IORING_OP_OPENAT, IORING_OP_OPENAT2};
        size_t n = IORING_OP_LAST + 1;
        struct io_uring_probe *p = calloc(1, sizeof(*p) + n * sizeof(struct io_uring_probe_op));
        if (!p)
                return false;
        bool ok = syscall(SYS_io_uring_register, fd, IORING_REGISTER_PROBE, p, (unsigned)n) == 0;
        for (size_t i = 0; ok && i < sizeof(ops); i++)
                ok = ops[i] <= p->last_op && (p->ops[ops[i]].flags & IO_URING_OP_SUPPORTED);
        free(p);
        return ok;
}

static int ring_setup(struct ring **out)
{
        struct ring *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->fd = -1;
        struct io_uring_params p;
        /* A single issuer whose completions run when it waits for them (Linux 6.1); older
         * kernels refuse the flags with EINVAL and get a plain ring. */
        const unsigned flags[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0};
        for (size_t i = 0; i < 2 && r->fd < 0; i++) {
                memset(&p, 0, sizeof(p));
                p.flags = flags[i];
                r->fd = (int)syscall(SYS_io_uring_setup, 2u, &p);
                if (r->fd < 0 && errno != EINVAL)
                        break;
        }
        int e = errno;
        if (r->fd < 0) {
                free(r);
                return -e;
        }
        r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
        r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
        if (p.features & IORING_FEAT_SINGLE_MMAP) {
                if (r->cq_len > r->sq_len)
                        r->sq_len = r->cq_len;
                r->cq_len = r->sq_len;
        }
        r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
        r->sq_map = map(r->fd, r->sq_len, IORING_OFF_SQ_RING);
        r->cq_map = !r->sq_map ? NULL
                    : (p.features & IORING_FEAT_SINGLE_MMAP)
                        ? r->sq_map
                        : map(r->fd, r->cq_len, IORING_OFF_CQ_RING);
        r->sqes = r->cq_map ? map(r->fd, r->sqes_len, IORING_OFF_SQES) : NULL;
        if (!r->sqes || !has_ops(r->fd)) {
                e = r->sqes ? EOPNOTSUPP : ENOMEM;
                ring_free(r);
                return -e;
        }
        char *sq = r->sq_map, *cq = r->cq_map;
        r->sq_head = (unsigned *)(sq + p.sq_off.head);
        r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
        r->sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
        r->sq_array = (unsigned *)(sq + p.sq_off.array);
        r->cq_head = (unsigned *)(cq + p.cq_off.head);
        r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
        r->cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
        r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
        static _Atomic uint64_t serials;
        r->serial = atomic_fetch_add(&serials, 1) + 1;
        *out = r;
        return 0;
}

int warder__ring_ready(void)
{
        if (thread_ring)
                return 0;
        if (thread_ring_tried)
                return thread_ring_error;
        pthread_once(&once, init_once);
        thread_ring_tried = true;
        struct ring *r = NULL;
        int rc = key_ok ? ring_setup(&r) : -ENOMEM;
        if (rc == 0 && pthread_setspecific(key, r) != 0) {
                ring_free(r);
                rc = -ENOMEM;
        }
        /* Out of memory may pass; anything else is how this kernel is. */
        if (rc == -ENOMEM) {
                thread_ring_tried = false;
                return rc;
        }
        thread_ring_error = rc;
        thread_ring = rc ? NULL : r;
        return rc;
}

uint64_t warder__ring_serial(void)
{
        return thread_ring ? thread_ring->serial : 0;
}

int warder__ring_register(void)
{
        int rc = warder__ring_ready();
        if (rc)
                return rc;
        long id =
            syscall(SYS_io_uring_register, thread_ring->fd, IORING_REGISTER_PERSONALITY, NULL, 0u);
        return id > 0 ? (int)id : id == 0 ? -EINVAL : -errno;
}

void warder__ring_unregister(int personality)
{
        if (thread_ring && personality > 0)
                syscall(SYS_io_uring_register, thread_ring->fd, IORING_UNREGISTER_PERSONALITY, NULL,
                        (unsigned)personality);
}

/* A ring that lost track of a request is never used again on this thread. */
static long ring_broken(void)
{
        pthread_setspecific(key, NULL);
        ring_free(thread_ring);
        thread_ring = NULL;
        thread_ring_error = -EIO;
        return -EIO;
}

long warder__ring_call(const struct io_uring_sqe *sqe, int personality)
{
        struct ring *r = thread_ring;
        if (!r || personality <= 0)
                return -EIO;
        unsigned tail = *r->sq_tail;
        unsigned i = tail & r->sq_mask;
        r->sqes[i] = *sqe;
        r->sqes[i].personality = (uint16_t)personality;
        r->sqes[i].user_data = ++r->seq;
        r->sq_array[i] = i;
        atomic_store_explicit((_Atomic unsigned *)r->sq_tail, tail + 1, memory_order_release);
        unsigned submit = 1;
        for (;;) {
                unsigned head = *r->cq_head;
                if (head !=
                    atomic_load_explicit((_Atomic unsigned *)r->cq_tail, memory_order_acquire)) {
                        struct io_uring_cqe c = r->cqes[head & r->cq_mask];
                        atomic_store_explicit((_Atomic unsigned *)r->cq_head, head + 1,
                                              memory_order_release);
                        if (c.user_data == r->seq)
                                return c.res;
                        continue; /* not ours: cannot happen with one request at a time */
                }
                long n =
                    syscall(SYS_io_uring_enter, r->fd, submit, 1u, IORING_ENTER_GETEVENTS, NULL, 0);
                if (n < 0 && errno == EINTR)
                        n = 0;
                if (n < 0) {
                        int e = errno;
                        /* Never taken by the kernel: nothing is in flight. */
                        if (submit && atomic_load_explicit((_Atomic unsigned *)r->sq_head,
                                                           memory_order_acquire) == tail) {
                                *r->sq_tail = tail;
                                return -e;
                        }
                        return ring_broken();
                }
                if (submit && atomic_load_explicit((_Atomic unsigned *)r->sq_head,
                                                   memory_order_acquire) != tail)
                        submit = 0;
        }
}
