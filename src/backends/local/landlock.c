/* SPDX-License-Identifier: MIT */
/*
 * Landlock confinement for the exec backend (§6.3, landlock(7)). The ruleset is built in the
 * parent, before fork, so the child only has to call prctl() and landlock_restrict_self().
 * Access rights are masked to the ABI version the running kernel reports; the definitions
 * below are kept here so an old <linux/landlock.h> (or none) does not matter.
 */
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"
#include "warder/sys/backend.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH      1

/* File system rights, by the ABI version that introduced them. */
#define LL_FS_EXECUTE    (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE  (1ull << 2)
#define LL_FS_READ_DIR   (1ull << 3)
#define LL_FS_ABI1_ALL   ((1ull << 13) - 1) /* EXECUTE … MAKE_SYM */
#define LL_FS_REFER      (1ull << 13)       /* ABI 2 */
#define LL_FS_TRUNCATE   (1ull << 14)       /* ABI 3 */
#define LL_FS_IOCTL_DEV  (1ull << 15)       /* ABI 5 */
/* Rights that may be granted on a non-directory. */
#define LL_FS_FILE_RIGHTS                                                                          \
        (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* Scopes (ABI 6): no signals to, no abstract sockets of, processes outside the sandbox. */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)
#define LL_SCOPE_SIGNAL               (1ull << 1)

struct ll_ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net; /* ABI 4 */
        uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
        uint64_t allowed_access;
        int32_t parent_fd;
} __attribute__((packed));

const char *const warder__landlock_default_read[] = {
    "/bin",
    "/sbin",
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/proc",
    NULL,
};

/* Device files a shell expects to use: read and write (redirections to /dev/null). */
static const char *const default_devices_rw[] = {"/dev/null", "/dev/zero", "/dev/full", NULL};
static const char *const default_devices_ro[] = {"/dev/random", "/dev/urandom", NULL};

int warder__landlock_abi_override = -1;

int warder__landlock_abi(void)
{
        if (warder__landlock_abi_override >= 0) {
                errno = ENOSYS;
                return warder__landlock_abi_override;
        }
        long abi =
            syscall(__NR_landlock_create_ruleset, NULL, (size_t)0, LL_CREATE_RULESET_VERSION);
        return abi > 0 ? (int)abi : 0;
}

static uint64_t fs_rights(int abi)
{
        uint64_t r = LL_FS_ABI1_ALL;
        if (abi >= 2)
                r |= LL_FS_REFER;
        if (abi >= 3)
                r |= LL_FS_TRUNCATE;
        if (abi >= 5)
                r |= LL_FS_IOCTL_DEV;
        return r;
}

/*
 * Grants `access` beneath `path`. A path that does not exist is skipped (granting nothing is
 * never weaker); any other failure is an error.
 */
static int add_path(int ruleset_fd, const char *path, uint64_t access, uint64_t handled,
                    struct warder_error *err)
{
        if (!path || path[0] != '/')
                return warder_error_set(err, WARDER_EINVAL,
                                        "landlock: directories must be absolute: '%s'",
                                        path ? path : "(null)");
        int fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return warder_error_set(err, errno == EACCES ? WARDER_EACCES : WARDER_EIO,
                                        "landlock: cannot open '%s': %s", path, strerror(errno));
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                int e = errno;
                close(fd);
                return warder_error_set(err, WARDER_EIO, "landlock: cannot stat '%s': %s", path,
                                        strerror(e));
        }
        access &= handled;
        if (!S_ISDIR(st.st_mode))
                access &= LL_FS_FILE_RIGHTS;
        struct ll_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
        long rc =
            access ? syscall(__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &pb, 0) : 0;
        int e = errno;
        close(fd);
        if (rc != 0)
                return warder_error_set(err, WARDER_EIO, "landlock: cannot add a rule for '%s': %s",
                                        path, strerror(e));
        return 0;
}

static int add_list(int ruleset_fd, const char *const *paths, uint64_t access, uint64_t handled,
                    struct warder_error *err)
{
        for (size_t i = 0; paths && paths[i]; i++) {
                int rc = add_path(ruleset_fd, paths[i], access, handled, err);
                if (rc)
                        return rc;
        }
        return 0;
}

int warder__landlock_build(const char *root, const char *const *read, const char *const *write,
                           int *out_fd, struct warder_error *err)
{
        if (!root || root[0] != '/' || !out_fd)
                return warder_error_set(err, WARDER_EINVAL, "landlock: invalid argument");
        int abi = warder__landlock_abi();
        if (abi <= 0)
                return warder_error_set(err, WARDER_ENOTSUP,
                                        "landlock is not available on this kernel (%s)",
                                        errno == EOPNOTSUPP ? "disabled at boot" : strerror(errno));
        uint64_t handled = fs_rights(abi);
        struct ll_ruleset_attr attr = {.handled_access_fs = handled};
        size_t attr_size = sizeof(attr.handled_access_fs);
        if (abi >= 6) {
                attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
                attr_size = sizeof(attr);
        }
        long fd = syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0u);
        if (fd < 0)
                return warder_error_set(err, WARDER_ENOTSUP,
                                        "landlock: cannot create a ruleset: %s", strerror(errno));
        int rfd = (int)fd;
        const uint64_t ro = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
        const uint64_t devrw = LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE;
        const char *const root_list[] = {root, NULL};
        int rc = add_list(rfd, root_list, handled, handled, err);
        if (!rc)
                rc = add_list(rfd, write, handled, handled, err);
        if (!rc)
                rc = add_list(rfd, read ? read : warder__landlock_default_read, ro, handled, err);
        if (!rc)
                rc = add_list(rfd, default_devices_rw, devrw, handled, err);
        if (!rc)
                rc = add_list(rfd, default_devices_ro, LL_FS_READ_FILE, handled, err);
        if (rc) {
                close(rfd);
                return rc;
        }
        *out_fd = rfd;
        return 0;
}

int warder__landlock_restrict(int ruleset_fd)
{
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
                return errno;
        if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0u) != 0)
                return errno;
        return 0;
}

uint64_t warder__landlock_read_access(const char *const *read, const char *path)
{
        const char *const *list = read ? read : warder__landlock_default_read;
        int abi = warder__landlock_abi();
        if (abi <= 0)
                return 0;
        for (size_t i = 0; list[i]; i++)
                if (strcmp(list[i], path) == 0)
                        return (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR) & fs_rights(abi);
        return 0;
}

int warder__landlock_add_fd(int ruleset_fd, int fd, uint64_t access)
{
        struct ll_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
        if (syscall(__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &pb, 0) != 0)
                return errno;
        return 0;
}
