/* SPDX-License-Identifier: MIT */
#ifndef WARDER_CREDS_H
#define WARDER_CREDS_H

/*
 * Acting as the agent (§6.6): the filesystem credentials of the calling THREAD — fsuid, fsgid
 * and supplementary groups — switched for the duration of one operation and restored after it.
 *
 * The raw system calls (setfsuid, setfsgid, setgroups) change the credentials of the calling
 * thread only; glibc's setgroups() would broadcast to every thread of the process and is never
 * used. Other threads never see the agent's credentials.
 *
 * Use, on the thread that does the file system calls (a worker thread included):
 *
 *     struct warder__creds_saved sv;
 *     int rc = warder__creds_enter(&sv, creds, err);   // creds NULL: nothing to switch
 *     if (rc)
 *             return rc;                               // nothing was switched
 *     rc = <the operation's system calls>;
 *     rc = warder__creds_leave(&sv, rc, err);          // ALWAYS, on every exit path
 *
 * enter() saves the thread's credentials in `sv` (on the caller's stack: it is per thread) and
 * switches; it fails (WARDER_EIO, nothing switched, the thread restored) when a switch does not
 * take, when the thread is already acting as someone or when the host kept file system
 * capabilities the kernel would let override the agent's permissions. leave() restores and
 * verifies; when the restore fails the thread is marked so that every later enter() on it fails
 * (it never takes the agent's credentials for the host's), and the operation's status becomes
 * WARDER_EIO. A thread must not nest enter() calls.
 *
 * Worker threads (a parallel grep): each worker calls enter() with the SAME `creds` pointer
 * the operation was given (the backend's, `l->as`; NULL when it does not act as the agent)
 * before its first system call on a path or a descriptor it opens, and leave() before it
 * returns or parks, with its own `sv` on its own stack; a worker whose enter() fails reports
 * that status and opens nothing. A new thread inherits the credentials of the thread that
 * creates it: workers created inside an operation start as the agent already (enter() then
 * changes nothing, and leave() restores nothing), but a pool that outlives the operation must
 * be created outside enter()/leave(), so that its idle threads hold the host's credentials.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "warder/error.h"

/* The most supplementary groups an agent may be given (and a host may hold to be restored). */
#define WARDER__CREDS_MAX_GROUPS 256

/* Who acts. `groups` (`ngroups` of them, sorted ascending, no duplicates) is borrowed for the
 * call. `id` names these credentials for the lifetime of the process (warder__creds_new_id):
 * a thread's ring keeps the personality registered for an id (below). */
struct warder__creds {
        uint32_t uid;
        uint32_t gid;
        const uint32_t *groups;
        size_t ngroups;
        uint64_t id;
};

/* A new id, never given before in this process. */
uint64_t warder__creds_new_id(void);

/* The host's credentials of the thread, saved by enter(); lives on the caller's stack. */
struct warder__creds_saved {
        bool active;      /* enter() switched: leave() restores */
        bool ring;        /* enter_lookup() acts through the ring: leave() switches nothing */
        unsigned changed; /* which of the groups, fsgid and fsuid enter() changed */
        uint32_t fsuid;
        uint32_t fsgid;
        int ngroups;
        gid_t groups[WARDER__CREDS_MAX_GROUPS];
};

int warder__creds_enter(struct warder__creds_saved *sv, const struct warder__creds *c,
                        struct warder_error *err);

/* Restores what enter() saved; returns `rc`, or WARDER_EIO (err set) when the restore failed. */
int warder__creds_leave(struct warder__creds_saved *sv, int rc, struct warder_error *err);

/*
 * Lookups and opens without switching (Linux 5.6 io_uring, ring.h). enter_lookup() is enter()
 * for an operation whose every system call on a path is one of the warder__as_* calls below
 * and that starts no thread: a read, a realpath. It leaves the thread's credentials alone;
 * the calls below then go through the thread's ring with a personality registered (once per
 * thread and id, by a switch) while the thread acted as `c`, so the kernel makes each
 * lookup with the agent's credentials — the same credentials enter() gives the thread. Where
 * the ring is unavailable, enter_lookup() is enter(). leave() ends either.
 */
int warder__creds_enter_lookup(struct warder__creds_saved *sv, const struct warder__creds *c,
                               struct warder_error *err);

/*
 * The system calls on paths that an operation between enter*() and leave() may make: each is
 * the plain system call (errno set, -1 on failure), made through the ring when the thread acts
 * through it. What the ring cannot do that way — create, rename, remove — fails with EIO
 * there (fail closed: it never runs with the host's credentials); the operations that do it
 * use enter(). fstatat and readlinkat on a name are an O_PATH open through the ring, then the
 * call on that descriptor (which checks no permission of its own).
 */
int warder__as_openat(int dfd, const char *path, int flags, mode_t mode);
struct open_how;
long warder__as_openat2(int dfd, const char *path, struct open_how *how);
int warder__as_fstatat(int dfd, const char *path, struct stat *st, int flags);
ssize_t warder__as_readlinkat(int dfd, const char *path, char *buf, size_t len);
int warder__as_mkdirat(int dfd, const char *path, mode_t mode);
int warder__as_renameat(int odfd, const char *from, int ndfd, const char *to);
int warder__as_unlinkat(int dfd, const char *path, int flags);

/* For tests: 0 (the default) acts through the ring where enter_lookup() is used and it is
 * available; 1 always switches. Counters of the operations that acted each way. */
extern unsigned warder__creds_mode;
extern _Atomic unsigned long warder__creds_ring_ops, warder__creds_switch_ops;

/* Whether this process can act as `c`: enter() then leave() once on the calling thread. */
int warder__creds_probe(const struct warder__creds *c, struct warder_error *err);

#endif
