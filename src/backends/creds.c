/* SPDX-License-Identifier: MIT */
/*
 * Acting as the agent (§6.6): per-thread filesystem credentials, see creds.h.
 *
 * Order. Entering sets the groups first, then the fsgid, then the fsuid (setgroups and
 * setfsgid need CAP_SETGID, which a change of fsuid leaves alone, but the last step is the one
 * that drops the file system capabilities). Leaving undoes it in reverse: the fsuid first (the
 * kernel gives the file system capabilities back when the fsuid returns to 0), then the fsgid,
 * then the groups. setfsuid and setfsgid never report an error: each change is verified by
 * asking again (an id of -1 is never valid, so the call changes nothing and returns the
 * current value).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/creds.h"
#include "backends/ring.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#include "util.h"

#ifdef SYS_setfsuid32
#define SYS_SETFSUID  SYS_setfsuid32
#define SYS_SETFSGID  SYS_setfsgid32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_GETGROUPS SYS_getgroups32
#else
#define SYS_SETFSUID  SYS_setfsuid
#define SYS_SETFSGID  SYS_setfsgid
#define SYS_SETGROUPS SYS_setgroups
#define SYS_GETGROUPS SYS_getgroups
#endif

/* This thread's state: 0 the host's credentials, 1 acting as an agent, 2 a restore failed. */
static _Thread_local int thread_state;

/* While the thread acts through its ring: the personality the warder__as_* calls carry. */
static _Thread_local int acting_personality;

/* For tests (creds.h users never set it): 1 makes the next switch fail its verification, 2
 * the next restore. Reset once used. */
unsigned warder__creds_test_fail;

unsigned warder__creds_mode;
_Atomic unsigned long warder__creds_ring_ops, warder__creds_switch_ops;

uint64_t warder__creds_new_id(void)
{
        static _Atomic uint64_t last;
        return atomic_fetch_add(&last, 1) + 1;
}

static uint32_t set_fsuid(uint32_t id)
{
        return (uint32_t)syscall(SYS_SETFSUID, id);
}

static uint32_t set_fsgid(uint32_t id)
{
        return (uint32_t)syscall(SYS_SETFSGID, id);
}

static uint32_t fsuid_now(void)
{
        return set_fsuid((uint32_t)-1);
}

static uint32_t fsgid_now(void)
{
        return set_fsgid((uint32_t)-1);
}

static bool set_groups(size_t n, const gid_t *g)
{
        return syscall(SYS_SETGROUPS, n, g) == 0;
}

/* The file system capabilities (capabilities(7), "Effect of user ID changes on
 * capabilities"): with any of them effective the kernel would let the agent past its own
 * permissions. The kernel drops them when the fsuid goes from 0 to another id; a host that
 * holds them without being root keeps them, and is refused. */
static bool fs_caps_effective(void)
{
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
        memset(d, 0, sizeof(d));
        if (syscall(SYS_capget, &h, d) != 0)
                return true; /* cannot tell: fail closed */
        const int caps[] = {CAP_CHOWN,  CAP_DAC_OVERRIDE,    CAP_DAC_READ_SEARCH, CAP_FOWNER,
                            CAP_FSETID, CAP_LINUX_IMMUTABLE, CAP_MAC_OVERRIDE,    CAP_MKNOD};
        for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
                if (d[CAP_TO_INDEX(caps[i])].effective & CAP_TO_MASK(caps[i]))
                        return true;
        return false;
}

enum { CHANGED_GROUPS = 1, CHANGED_FSGID = 2, CHANGED_FSUID = 4 };

/* Puts back what enter() changed; true when verified. */
static bool restore(const struct warder__creds_saved *sv)
{
        bool ok = true;
        if (sv->changed & CHANGED_FSUID) {
                set_fsuid(sv->fsuid);
                ok = fsuid_now() == sv->fsuid;
        }
        if (sv->changed & CHANGED_FSGID) {
                set_fsgid(sv->fsgid);
                ok = ok && fsgid_now() == sv->fsgid;
        }
        if (sv->changed & CHANGED_GROUPS)
                ok = ok && set_groups((size_t)sv->ngroups, sv->groups);
        return ok;
}

/* Whether the thread's groups (as getgroups gave them: sorted) are the agent's (sorted). */
static bool same_groups(const struct warder__creds_saved *sv, const struct warder__creds *c)
{
        if ((size_t)sv->ngroups != c->ngroups)
                return false;
        for (size_t i = 0; i < c->ngroups; i++)
                if ((uint32_t)sv->groups[i] != c->groups[i])
                        return false;
        return true;
}

int warder__creds_enter(struct warder__creds_saved *sv, const struct warder__creds *c,
                        struct warder_error *err)
{
        sv->active = false;
        sv->ring = false;
        if (!c)
                return 0;
        if (thread_state != 0)
                return warder_error_set(err, WARDER_EIO,
                                        thread_state == 1
                                            ? "this thread already acts as the agent"
                                            : "this thread's credentials could not be restored "
                                              "earlier: refusing to act on it");
        if (c->ngroups > WARDER__CREDS_MAX_GROUPS)
                return warder_error_set(err, WARDER_EINVAL, "more than %d groups",
                                        WARDER__CREDS_MAX_GROUPS);
        int n = (int)syscall(SYS_GETGROUPS, WARDER__CREDS_MAX_GROUPS, sv->groups);
        if (n < 0)
                return warder_error_set(err, WARDER_EIO, "cannot read this thread's groups: %s%s",
                                        strerror(errno), errno == EINVAL ? " (more than 256)" : "");
        sv->ngroups = n;
        thread_state = 1;
        sv->active = true;
        sv->changed = 0;
        const char *why = NULL;
        int e = 0;
        /* Each change costs the kernel a new set of credentials (commit_creds): what already
         * holds is left alone. leave() undoes whatever was changed. */
        if (!same_groups(sv, c)) {
                gid_t groups[WARDER__CREDS_MAX_GROUPS];
                for (size_t i = 0; i < c->ngroups; i++)
                        groups[i] = (gid_t)c->groups[i];
                if (!set_groups(c->ngroups, groups)) {
                        e = errno;
                        why = "setgroups failed";
                } else {
                        sv->changed |= CHANGED_GROUPS;
                }
        }
        /* setfsgid and setfsuid return the previous id, which is the host's to restore (a call
         * that changes nothing, same id or no permission, costs no commit). */
        if (!why) {
                sv->fsgid = set_fsgid(c->gid);
                if (sv->fsgid != c->gid)
                        sv->changed |= CHANGED_FSGID;
                if (fsgid_now() != c->gid)
                        why = "setfsgid failed";
        }
        if (!why) {
                sv->fsuid = set_fsuid(c->uid);
                if (sv->fsuid != c->uid)
                        sv->changed |= CHANGED_FSUID;
                if (fsuid_now() != c->uid)
                        why = "setfsuid failed";
        }
        if (!why && warder__creds_test_fail == 1) {
                warder__creds_test_fail = 0;
                why = "setfsuid (test) failed";
        }
        if (!why && fs_caps_effective())
                why = "the file system capabilities are still effective";
        if (!why) {
                atomic_fetch_add_explicit(&warder__creds_switch_ops, 1, memory_order_relaxed);
                return 0;
        }
        int rc = warder__creds_leave(sv, 0, err);
        if (rc)
                return rc;
        return warder_error_set(err, WARDER_EIO, "cannot act as uid %u gid %u: %s%s%s",
                                (unsigned)c->uid, (unsigned)c->gid, why, e ? ": " : "",
                                e ? strerror(e) : "");
}

int warder__creds_leave(struct warder__creds_saved *sv, int rc, struct warder_error *err)
{
        if (!sv->active)
                return rc;
        sv->active = false;
        if (sv->ring) {
                sv->ring = false;
                acting_personality = 0;
                thread_state = 0;
                return rc;
        }
        bool ok = restore(sv) || restore(sv);
        if (warder__creds_test_fail == 2) {
                warder__creds_test_fail = 0;
                ok = false;
        }
        if (!ok) {
                thread_state = 2;
                return warder_error_set(err, WARDER_EIO,
                                        "cannot restore the host's credentials after acting as "
                                        "the agent");
        }
        thread_state = 0;
        return rc;
}

int warder__creds_probe(const struct warder__creds *c, struct warder_error *err)
{
        struct warder__creds_saved sv;
        int rc = warder__creds_enter(&sv, c, err);
        return rc ? rc : warder__creds_leave(&sv, 0, err);
}

/* ---- acting through the ring ------------------------------------------------------- */

/* The personalities this thread's ring holds, by credentials id; the oldest is replaced. A
 * ring that is not the thread's any more (after fork(), or one that broke) voids them. */
#define PERSONALITIES 4
static _Thread_local struct {
        uint64_t id, ring;
        int personality;
} registered[PERSONALITIES];
static _Thread_local unsigned registered_next;
/* The kernel refused a personality on this thread's ring: its reads switch from then on. */
static _Thread_local bool personalities_refused;

/* The personality of `c` on this thread's ring in `*p`, registered now if needed (while the
 * thread acts as `c` by a switch, so that it is exactly what enter() gives); 0 there when the
 * ring is unavailable (the caller switches instead). Returns 0, or the status of a switch
 * that failed (err set). */
static int personality_of(const struct warder__creds *c, int *p, struct warder_error *err)
{
        *p = 0;
        if (personalities_refused || warder__ring_ready() != 0)
                return 0;
        uint64_t ring = warder__ring_serial();
        for (unsigned i = 0; i < PERSONALITIES; i++)
                if (registered[i].ring == ring && registered[i].id == c->id) {
                        *p = registered[i].personality;
                        return 0;
                }
        struct warder__creds_saved sv;
        int rc = warder__creds_enter(&sv, c, err);
        if (rc)
                return rc;
        int got = warder__ring_register();
        rc = warder__creds_leave(&sv, 0, err);
        if (rc || got <= 0) {
                if (got > 0)
                        warder__ring_unregister(got);
                personalities_refused = !rc;
                return rc;
        }
        unsigned i = registered_next++ % PERSONALITIES;
        if (registered[i].ring == ring)
                warder__ring_unregister(registered[i].personality);
        registered[i].id = c->id;
        registered[i].ring = ring;
        registered[i].personality = *p = got;
        return 0;
}

int warder__creds_enter_lookup(struct warder__creds_saved *sv, const struct warder__creds *c,
                               struct warder_error *err)
{
        sv->active = false;
        sv->ring = false;
        if (!c)
                return 0;
        if (warder__creds_mode == 1 || c->id == 0 || thread_state != 0)
                return warder__creds_enter(sv, c, err);
        int p = 0;
        int rc = personality_of(c, &p, err);
        if (rc)
                return rc;
        if (p == 0)
                return warder__creds_enter(sv, c, err);
        thread_state = 1;
        acting_personality = p;
        sv->active = true;
        sv->ring = true;
        atomic_fetch_add_explicit(&warder__creds_ring_ops, 1, memory_order_relaxed);
        return 0;
}

/* A system call's result: the value, or -1 with errno set from a ring's -errno. */
static long sys_result(long r)
{
        if (r >= 0)
                return r;
        errno = (int)-r;
        return -1;
}

static int ring_open(int dfd, const char *path, int flags, mode_t mode)
{
        struct io_uring_sqe sqe;
        memset(&sqe, 0, sizeof(sqe));
        sqe.opcode = IORING_OP_OPENAT;
        sqe.fd = dfd;
        sqe.addr = (uint64_t)(uintptr_t)path;
        sqe.len = mode;
        sqe.open_flags = (uint32_t)flags;
        return (int)sys_result(warder__ring_call(&sqe, acting_personality));
}

int warder__as_openat(int dfd, const char *path, int flags, mode_t mode)
{
        if (!acting_personality)
                return openat(dfd, path, flags, mode);
        return ring_open(dfd, path, flags, mode);
}

long warder__as_openat2(int dfd, const char *path, struct open_how *how)
{
        if (!acting_personality)
                return syscall(SYS_openat2, dfd, path, how, sizeof(*how));
        struct io_uring_sqe sqe;
        memset(&sqe, 0, sizeof(sqe));
        sqe.opcode = IORING_OP_OPENAT2;
        sqe.fd = dfd;
        sqe.addr = (uint64_t)(uintptr_t)path;
        sqe.len = sizeof(*how);
        sqe.off = (uint64_t)(uintptr_t)how;
        return sys_result(warder__ring_call(&sqe, acting_personality));
}

/* The name's own descriptor, looked up through the ring (O_PATH: no permission on the file
 * itself is needed or given, as for stat and readlink). */
static int ring_path(int dfd, const char *path, bool follow)
{
        return ring_open(dfd, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0);
}

int warder__as_fstatat(int dfd, const char *path, struct stat *st, int flags)
{
        if (!acting_personality || ((flags & AT_EMPTY_PATH) && !*path))
                return fstatat(dfd, path, st, flags);
        if (flags & ~AT_SYMLINK_NOFOLLOW) {
                errno = EINVAL;
                return -1;
        }
        int fd = ring_path(dfd, path, !(flags & AT_SYMLINK_NOFOLLOW));
        if (fd < 0)
                return -1;
        int rc = fstat(fd, st);
        int e = errno;
        close(fd);
        errno = e;
        return rc;
}

ssize_t warder__as_readlinkat(int dfd, const char *path, char *buf, size_t len)
{
        if (!acting_personality || !*path)
                return readlinkat(dfd, path, buf, len);
        int fd = ring_path(dfd, path, false);
        if (fd < 0)
                return -1;
        ssize_t n = readlinkat(fd, "", buf, len);
        int e = errno;
        close(fd);
        errno = e;
        return n;
}

/* Creating, renaming and removing are for operations that switch (enter()). */
static int refused_here(void)
{
        errno = EIO;
        return -1;
}

int warder__as_mkdirat(int dfd, const char *path, mode_t mode)
{
        return acting_personality ? refused_here() : mkdirat(dfd, path, mode);
}

int warder__as_renameat(int odfd, const char *from, int ndfd, const char *to)
{
        return acting_personality ? refused_here() : renameat(odfd, from, ndfd, to);
}

int warder__as_unlinkat(int dfd, const char *path, int flags)
{
        return acting_personality ? refused_here() : unlinkat(dfd, path, flags);
}
