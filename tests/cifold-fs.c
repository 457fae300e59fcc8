/* SPDX-License-Identifier: MIT */
/*
 * A small case-insensitive FUSE file system for the tests of §3.2 (real forms on
 * case-insensitive directories): it serves a backing directory read-only, and looks every
 * name up the way vfat, exFAT, NTFS, CIFS or an ext4 casefold directory does — without
 * regard to case, Unicode included (the Kelvin sign K, U+212A, is a `k`; the long s, U+017F,
 * an `s`; the Latin-1 capitals their small letters). Names are reported as stored; inode
 * numbers are the backing files' own (in readdir skewed from stat's when the environment has
 * WARDER_CIFOLD_SKEW_INO).
 *
 * Usage: cifold-fs BACKING MOUNTPOINT   (stays in the foreground; unmount to stop it)
 * Test-only: built when libfuse3 is available.
 */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char backing[PATH_MAX];

/* Appends the case fold of the UTF-8 name `s` to out (at most cap - 1 bytes). */
static void fold(const char *s, char *out, size_t cap)
{
        size_t n = 0;
        const unsigned char *p = (const unsigned char *)s;
        while (*p && n + 4 < cap) {
                if (*p < 0x80) {
                        out[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
                        p++;
                } else if (p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA) { /* KELVIN SIGN */
                        out[n++] = 'k';
                        p += 3;
                } else if (p[0] == 0xC5 && p[1] == 0xBF) { /* LATIN SMALL LETTER LONG S */
                        out[n++] = 's';
                        p += 2;
                } else if (p[0] == 0xC3 && p[1] >= 0x80 && p[1] <= 0x9E && p[1] != 0x97) {
                        out[n++] = (char)0xC3; /* Latin-1 capitals */
                        out[n++] = (char)(p[1] + 0x20);
                        p += 2;
                } else {
                        out[n++] = (char)*p++;
                }
        }
        out[n] = '\0';
}

/*
 * Maps `path` (as the caller spelled it) to the backing path: each component is matched
 * against the stored names by their folds, an exact match first. Returns 0 or -ENOENT.
 */
static int resolve(const char *path, char *out, size_t cap)
{
        snprintf(out, cap, "%s", backing);
        const char *p = path;
        while (*p) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *end = strchr(p, '/');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                char want[NAME_MAX + 1], fw[4 * NAME_MAX], fe[4 * NAME_MAX];
                if (len > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(want, p, len);
                want[len] = '\0';
                size_t base = strlen(out);
                snprintf(out + base, cap - base, "/%s", want);
                struct stat st;
                if (lstat(out, &st) != 0) {
                        out[base] = '\0';
                        DIR *d = opendir(out);
                        if (!d)
                                return -ENOENT;
                        fold(want, fw, sizeof(fw));
                        struct dirent *de;
                        bool found = false;
                        while ((de = readdir(d))) {
                                fold(de->d_name, fe, sizeof(fe));
                                if (strcmp(fe, fw) == 0) {
                                        snprintf(out + base, cap - base, "/%s", de->d_name);
                                        found = true;
                                        break;
                                }
                        }
                        closedir(d);
                        if (!found)
                                return -ENOENT;
                }
                p += len;
        }
        return 0;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
        (void)fi;
        char real[PATH_MAX];
        int rc = resolve(path, real, sizeof(real));
        if (rc)
                return rc;
        return lstat(real, st) == 0 ? 0 : -errno;
}

static int fs_readlink(const char *path, char *buf, size_t size)
{
        char real[PATH_MAX];
        int rc = resolve(path, real, sizeof(real));
        if (rc)
                return rc;
        ssize_t n = readlink(real, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

static bool skew_ino;

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t offset,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
        (void)offset, (void)fi, (void)flags;
        char real[PATH_MAX];
        int rc = resolve(path, real, sizeof(real));
        if (rc)
                return rc;
        DIR *d = opendir(real);
        if (!d)
                return -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                memset(&st, 0, sizeof(st));
                /* WARDER_CIFOLD_SKEW_INO: readdir reports other inode numbers than stat, as
                 * some file systems do (the lookup by inode then has to stat every entry). */
                st.st_ino = skew_ino ? de->d_ino ^ 0x5a5a5aULL : de->d_ino;
                st.st_mode = (mode_t)DTTOIF(de->d_type);
                if (filler(buf, de->d_name, &st, 0, 0))
                        break;
        }
        closedir(d);
        return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
        if ((fi->flags & O_ACCMODE) != O_RDONLY)
                return -EROFS;
        char real[PATH_MAX];
        int rc = resolve(path, real, sizeof(real));
        if (rc)
                return rc;
        int fd = open(real, O_RDONLY | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        fi->fh = (uint64_t)fd;
        return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        (void)path;
        ssize_t n = pread((int)fi->fh, buf, size, off);
        return n < 0 ? -errno : (int)n;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
        (void)path;
        close((int)fi->fh);
        return 0;
}

static int fs_statfs(const char *path, struct statvfs *st)
{
        (void)path;
        return statvfs(backing, st) == 0 ? 0 : -errno;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
        (void)conn;
        skew_ino = getenv("WARDER_CIFOLD_SKEW_INO") != NULL;
        cfg->use_ino = 1; /* the backing files' inode numbers, in stat and readdir */
        cfg->readdir_ino = 1;
        cfg->entry_timeout = 0; /* every spelling is looked up afresh */
        cfg->attr_timeout = 0;
        cfg->negative_timeout = 0;
        return NULL;
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr,
    .readlink = fs_readlink,
    .readdir = fs_readdir,
    .open = fs_open,
    .read = fs_read,
    .release = fs_release,
    .statfs = fs_statfs,
    .init = fs_init,
};

int main(int argc, char **argv)
{
        if (argc != 3) {
                fprintf(stderr, "usage: cifold-fs BACKING MOUNTPOINT\n");
                return 2;
        }
        if (!realpath(argv[1], backing)) {
                perror(argv[1]);
                return 2;
        }
        static char f[] = "-f", single[] = "-s", o[] = "-o", opts[] = "ro,default_permissions";
        char *fargv[] = {argv[0], f, single, o, opts, argv[2], NULL};
        return fuse_main(6, fargv, &ops, NULL);
}
