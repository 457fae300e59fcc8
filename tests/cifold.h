/* SPDX-License-Identifier: MIT */
/*
 * Mounts the case-insensitive FUSE test file system (tests/cifold-fs.c, env WARDER_CIFOLD_FS)
 * over a backing directory. Where the machine cannot (the helper was not built, no
 * /dev/fuse, not allowed to mount), cifold_mount() prints why and returns false: the caller
 * skips. CI runs as root on a machine with /dev/fuse, where the tests run.
 */
#ifndef WARDER_TEST_CIFOLD_H
#define WARDER_TEST_CIFOLD_H

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define CIFOLD_FUSE_MAGIC 0x65735546

struct cifold {
        pid_t pid;
        char mnt[320];
};

static __attribute__((unused)) bool cifold_mount(struct cifold *c, const char *backing,
                                                 const char *mnt)
{
        const char *fs = getenv("WARDER_CIFOLD_FS");
        c->pid = -1;
        snprintf(c->mnt, sizeof(c->mnt), "%s", mnt);
        if (!fs) {
                fprintf(stderr, "skip: the FUSE test file system was not built (no libfuse3)\n");
                return false;
        }
        if (access("/dev/fuse", R_OK | W_OK) != 0) {
                fprintf(stderr, "skip: no usable /dev/fuse here\n");
                return false;
        }
        c->pid = fork();
        ck_assert_int_ge(c->pid, 0);
        if (c->pid == 0) {
                /* If the test dies (a failed assertion), the file system unmounts itself. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                int null = open("/dev/null", O_WRONLY);
                if (null >= 0) {
                        dup2(null, 1);
                        dup2(null, 2);
                }
                execl(fs, fs, backing, mnt, (char *)NULL);
                _exit(127);
        }
        for (int i = 0; i < 500; i++) {
                struct statfs sf;
                if (statfs(mnt, &sf) == 0 && (unsigned long)sf.f_type == CIFOLD_FUSE_MAGIC)
                        return true;
                int st;
                if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
                        c->pid = -1;
                        fprintf(stderr, "skip: cannot mount a FUSE file system here (%s)\n",
                                geteuid() == 0 ? "the helper failed" : "not root");
                        return false;
                }
                usleep(10000);
        }
        kill(c->pid, SIGKILL);
        waitpid(c->pid, NULL, 0);
        c->pid = -1;
        fprintf(stderr, "skip: the FUSE file system did not come up\n");
        return false;
}

static __attribute__((unused)) void cifold_unmount(struct cifold *c)
{
        if (c->pid < 0)
                return;
        if (umount2(c->mnt, MNT_DETACH) != 0) {
                char cmd[400];
                snprintf(cmd, sizeof(cmd), "fusermount3 -u -z '%s' 2>/dev/null", c->mnt);
                if (system(cmd) != 0)
                        kill(c->pid, SIGTERM);
        }
        waitpid(c->pid, NULL, 0);
        c->pid = -1;
}

#endif
