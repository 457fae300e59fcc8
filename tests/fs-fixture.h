/* SPDX-License-Identifier: MIT */
/* Fixture helpers for tests against the real file system (attacks, bypasses). */
#ifndef WARDER_TEST_FS_FIXTURE_H
#define WARDER_TEST_FS_FIXTURE_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_FIXTURE_FN static __attribute__((unused))

/* base/rel in one of 16 rotating buffers (enough for the paths of one statement). */
FS_FIXTURE_FN const char *at(const char *base, const char *rel)
{
        static char buf[16][PATH_MAX];
        static int n;
        char *b = buf[n++ % 16];
        snprintf(b, PATH_MAX, "%s/%s", base, rel);
        return b;
}

FS_FIXTURE_FN void rm_rf(const char *dir)
{
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
}

/* Whether `len` bytes of `data` hold any of the NULL-terminated `secrets`. */
FS_FIXTURE_FN bool holds_any(const char *data, size_t len, const char *const *secrets)
{
        for (size_t i = 0; data && secrets[i]; i++)
                if (memmem(data, len, secrets[i], strlen(secrets[i])))
                        return true;
        return false;
}

/* Creates or replaces a regular file (never through a final symlink). */
FS_FIXTURE_FN void put(const char *path, const char *content)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        ck_assert_msg(fd >= 0, "cannot create %s: %s", path, strerror(errno));
        ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
        close(fd);
}

FS_FIXTURE_FN void lnk(const char *target, const char *path)
{
        ck_assert_msg(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));
}

FS_FIXTURE_FN void mkd(const char *path)
{
        ck_assert_msg(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

/* Plain open(2) + read: what a program without warder gets (the control arm). */
FS_FIXTURE_FN char *plain_read(const char *path)
{
        static char buf[1 << 16];
        int fd = open(path, O_RDONLY | O_NONBLOCK);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return buf;
}

/* The file's contents without following a final symlink (to inspect the fixture). */
FS_FIXTURE_FN char *peek(const char *path)
{
        static char buf[4096];
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n < 0 ? 0 : n] = '\0';
        return buf;
}

#endif
