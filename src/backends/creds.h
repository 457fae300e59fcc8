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
#include <sys/types.h>

#include "warder/error.h"

/* The most supplementary groups an agent may be given (and a host may hold to be restored). */
#define WARDER__CREDS_MAX_GROUPS 256

/* Who acts. `groups` (`ngroups` of them, sorted ascending, no duplicates) is borrowed for the
 * call. */
struct warder__creds {
        uint32_t uid;
        uint32_t gid;
        const uint32_t *groups;
        size_t ngroups;
};

/* The host's credentials of the thread, saved by enter(); lives on the caller's stack. */
struct warder__creds_saved {
        bool active;      /* enter() switched: leave() restores */
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

/* Whether this process can act as `c`: enter() then leave() once on the calling thread. */
int warder__creds_probe(const struct warder__creds *c, struct warder_error *err);

#endif
