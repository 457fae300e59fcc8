/* SPDX-License-Identifier: MIT */
/*
 * The exec backend (§6.3, §6.5): the masking walk, in the parent, over what the guard's
 * callback hides.
 */
#include "mask.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "warder/sys/backend.h"

/* ---- time ---- */

int64_t warder__exec_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the masking walk (parent side) ---- */

void warder__exec_mask_list_free(struct mask_list *l)
{
        for (size_t i = 0; i < l->count; i++) {
                free(l->items[i].path);
                if (l->items[i].fd >= 0)
                        close(l->items[i].fd);
        }
        free(l->items);
        *l = (struct mask_list){0};
}

/* Takes `fd` (closed on failure too). */
static int mask_list_add(struct mask_list *l, const char *path, int fd, const struct stat *st,
                         unsigned flags)
{
        for (size_t i = 0; i < l->count; i++) {
                struct mask_entry *e = &l->items[i];
                if (e->dev == st->st_dev && e->ino == st->st_ino && strcmp(e->path, path) == 0) {
                        e->flags |= flags; /* met twice (a hard link pass): one mask */
                        close(fd);
                        return 0;
                }
        }
        if (l->count == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                struct mask_entry *p = realloc(l->items, cap * sizeof(*p));
                if (!p) {
                        close(fd);
                        return WARDER_ENOMEM;
                }
                l->items = p;
                l->cap = cap;
        }
        char *copy = strdup(path);
        if (!copy) {
                close(fd);
                return WARDER_ENOMEM;
        }
        l->items[l->count++] =
            (struct mask_entry){copy, fd, st->st_dev, st->st_ino, S_ISDIR(st->st_mode), flags};
        return 0;
}

/* Files denied for read or write that have other names (st_nlink > 1): every name of such an
 * inode that the walk meets is masked too (a second pass finds them). */
struct inode_set {
        struct {
                dev_t dev;
                ino_t ino;
                unsigned flags;
        } * items;
        size_t count, cap;
};

static unsigned inode_flags(const struct inode_set *s, dev_t dev, ino_t ino)
{
        for (size_t i = 0; i < s->count; i++)
                if (s->items[i].dev == dev && s->items[i].ino == ino)
                        return s->items[i].flags;
        return 0;
}

static int inode_add(struct inode_set *s, const struct stat *st, unsigned flags)
{
        for (size_t i = 0; i < s->count; i++) {
                if (s->items[i].dev == st->st_dev && s->items[i].ino == st->st_ino) {
                        s->items[i].flags |= flags;
                        return 0;
                }
        }
        if (s->count == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 8;
                void *p = realloc(s->items, cap * sizeof(*s->items));
                if (!p)
                        return WARDER_ENOMEM;
                s->items = p;
                s->cap = cap;
        }
        s->items[s->count].dev = st->st_dev;
        s->items[s->count].ino = st->st_ino;
        s->items[s->count].flags = flags;
        s->count++;
        return 0;
}

/* Where the walk is: deciding, inside a hidden directory (collecting the inodes of files with
 * other names only), inside a read-only directory (its files need no read-only bind of their
 * own), or looking for the other names of denied inodes (the second pass). */
enum walk_mode {
        WALK_DECIDE,
        WALK_HIDDEN,
        WALK_READONLY,
        WALK_LINKS,
};

struct walk {
        const char *root;
        warder_exec_mask_fn fn;
        void *ud;
        struct mask_list *masks;
        struct inode_set linked;
        size_t entries, max_entries;
        int64_t deadline;
        uint32_t budget_ms;
        struct warder_error *err;
};

static int walk_budget(struct walk *w)
{
        w->entries++;
        if (w->entries > w->max_entries)
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: the walk of '%s' exceeded its budget of %zu entries; "
                    "the command was not run",
                    w->root, w->max_entries);
        if (warder__exec_now_ms() > w->deadline)
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: the walk of '%s' exceeded its budget of %u ms; the "
                    "command was not run",
                    w->root, (unsigned)w->budget_ms);
        return 0;
}

static int walk_oom(struct walk *w, int rc)
{
        if (rc == WARDER_ENOMEM)
                return warder_error_set(w->err, rc, "masking: out of memory");
        return rc;
}

/* Records `fd` (consumed) as a mask; a descriptor shortage fails closed. */
static int walk_record(struct walk *w, const char *path, int fd, const struct stat *st,
                       unsigned flags)
{
        int rc = mask_list_add(w->masks, path, fd, st, flags);
        return walk_oom(w, rc);
}

static int walk_dir(struct walk *w, struct warder__buf *path, int pin, enum walk_mode mode,
                    size_t depth);

static bool hidden_dir(const struct mask_list *l, const struct stat *st)
{
        for (size_t i = 0; i < l->count; i++)
                if (l->items[i].dir && (l->items[i].flags & WARDER_MASK_HIDE) &&
                    l->items[i].dev == st->st_dev && l->items[i].ino == st->st_ino)
                        return true;
        return false;
}

static int out_of_fds(struct walk *w, const char *path)
{
        return warder_error_set(w->err, WARDER_ELIMIT,
                                "masking: out of descriptors at '%s'; the command was not run",
                                path);
}

/*
 * Opens `name` in `dfd` without following it (a directory for reading, anything else
 * O_PATH) and checks it is still of type `type` (a DT_* value). Returns the descriptor, -1
 * when it vanished, -2 when it cannot be examined (or changed type), -3 out of descriptors.
 */
static int pin_entry(int dfd, const char *name, unsigned char type, struct stat *st)
{
        int flags = type == DT_DIR ? O_RDONLY | O_DIRECTORY : O_PATH;
        int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -1 : errno == EMFILE || errno == ENFILE ? -3 : -2;
        if (fstat(fd, st) != 0 || (type == DT_DIR) != S_ISDIR(st->st_mode) ||
            S_ISLNK(st->st_mode)) {
                close(fd);
                return -2;
        }
        return fd;
}

static unsigned char dtype_of(mode_t m)
{
        return S_ISDIR(m) ? DT_DIR : S_ISLNK(m) ? DT_LNK : S_ISREG(m) ? DT_REG : DT_UNKNOWN;
}

/*
 * Decides the entry `name` (of type `type`, DT_UNKNOWN to look) of the directory `dfd` (the
 * root itself when dfd is AT_FDCWD and name its absolute path), records what to mask, and
 * walks on into directories. Only what is masked, and directories, are opened: an entry left
 * alone costs the predicate and nothing else. A name that vanished is skipped; one that
 * cannot be examined makes *unknown true (the caller masks the directory holding it).
 */
static int walk_entry(struct walk *w, int dfd, const char *name, unsigned char type,
                      struct warder__buf *path, enum walk_mode mode, size_t depth, bool *unknown)
{
        struct stat st;
        if (type == DT_UNKNOWN) {
                if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                        if (errno != ENOENT)
                                *unknown = true; /* (set only: an earlier entry's stays) */
                        return 0;
                }
                type = dtype_of(st.st_mode);
        }
        if (mode == WALK_HIDDEN || mode == WALK_LINKS) {
                if (type == DT_REG) {
                        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                                if (errno != ENOENT)
                                        *unknown = true;
                                return 0;
                        }
                        if (st.st_nlink < 2)
                                return 0;
                        if (mode == WALK_HIDDEN)
                                return walk_oom(w, inode_add(&w->linked, &st, WARDER_MASK_HIDE));
                        unsigned f = inode_flags(&w->linked, st.st_dev, st.st_ino);
                        if (!f)
                                return 0;
                        int fd = pin_entry(dfd, name, DT_REG, &st);
                        if (fd == -3)
                                return out_of_fds(w, path->data);
                        if (fd == -2)
                                *unknown = true;
                        return fd < 0 ? 0 : walk_record(w, path->data, fd, &st, f);
                }
                if (type != DT_DIR)
                        return 0;
                int fd = pin_entry(dfd, name, DT_DIR, &st);
                if (fd == -3)
                        return out_of_fds(w, path->data);
                if (fd == -2)
                        *unknown = true;
                if (fd < 0)
                        return 0;
                /* The names inside a hidden directory are covered with it. */
                if (mode == WALK_LINKS && hidden_dir(w->masks, &st)) {
                        close(fd);
                        return 0;
                }
                return walk_dir(w, path, fd, mode, depth + 1);
        }
        if (type == DT_LNK) {
                /* A link is decided on its name and on where it leads; what is masked is the
                 * file it leads to (a mount lands there anyway). */
                char *real = realpath(path->data, NULL);
                if (!real) {
                        /* Dangling (or a loop): nothing to read through it. Anything else
                         * leaves where it leads unknown. */
                        if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
                                *unknown = true;
                        return 0;
                }
                unsigned flags = w->fn(w->ud, path->data, real);
                int rc = 0;
                if (flags) {
                        /* What the link leads to is pinned, or the walk fails, or the
                         * directory holding the link is hidden: never a link left open. */
                        int tfd = open(real, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                        struct stat tst;
                        if (tfd < 0) {
                                if (errno == EMFILE || errno == ENFILE)
                                        rc = out_of_fds(w, path->data);
                                else if (errno != ENOENT) /* (vanished: nothing to read) */
                                        *unknown = true;
                        } else if (fstat(tfd, &tst) != 0 || S_ISLNK(tst.st_mode)) {
                                close(tfd); /* a link in its place: it cannot be pinned */
                                *unknown = true;
                        } else {
                                if (S_ISREG(tst.st_mode) && tst.st_nlink > 1)
                                        rc = walk_oom(w, inode_add(&w->linked, &tst, flags));
                                if (!rc)
                                        rc = walk_record(w, real, tfd, &tst, flags);
                                else
                                        close(tfd);
                        }
                }
                free(real);
                return rc;
        }
        unsigned flags = w->fn(w->ud, path->data, NULL);
        if (flags & WARDER_MASK_HIDE)
                flags = WARDER_MASK_HIDE; /* an empty stand-in is read-only anyway */
        /* Inside a read-only directory a read-only entry is covered already. */
        if (mode == WALK_READONLY && flags == WARDER_MASK_READONLY)
                flags = 0;
        if (type != DT_DIR && !flags)
                return 0;
        int fd = pin_entry(dfd, name, type == DT_DIR ? DT_DIR : DT_REG, &st);
        if (fd == -3)
                return out_of_fds(w, path->data);
        if (fd == -1)
                return 0;
        if (fd == -2 && flags)
                /* What the rules deny must be pinned, and a directory listed: else the other
                 * names of its files (the second pass) are unknown. */
                return warder_error_set(w->err, WARDER_EACCES,
                                        "masking: cannot examine '%s', which the rules deny; the "
                                        "command was not run",
                                        path->data);
        if (fd == -2 && type == DT_DIR) {
                /* A directory that cannot be listed is hidden whole (see walk_dir). */
                fd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0 && fstat(fd, &st) == 0)
                        return walk_record(w, path->data, fd, &st, WARDER_MASK_HIDE);
                if (fd >= 0)
                        close(fd);
                fd = -1;
        }
        if (fd < 0) {
                *unknown = true;
                return 0;
        }
        int rc = 0;
        if (S_ISREG(st.st_mode) && flags && st.st_nlink > 1)
                rc = walk_oom(w, inode_add(&w->linked, &st, flags));
        if (rc) {
                close(fd);
                return rc;
        }
        if (type != DT_DIR)
                return walk_record(w, path->data, fd, &st, flags);
        if (flags) {
                int keep = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                if (keep < 0) {
                        close(fd);
                        return out_of_fds(w, path->data);
                }
                rc = walk_record(w, path->data, keep, &st, flags);
                if (rc) {
                        close(fd);
                        return rc;
                }
        }
        /* A hidden directory is walked only to learn which of its files have other names. */
        enum walk_mode next = flags & WARDER_MASK_HIDE       ? WALK_HIDDEN
                              : flags & WARDER_MASK_READONLY ? WALK_READONLY
                                                             : mode;
        return walk_dir(w, path, fd, next, depth + 1);
}

/*
 * Walks the directory open (for reading) on `fd`, consumed, whose path is in `path`. A
 * directory that cannot be listed is masked whole: the child may be able to open it up
 * (chmod as the same user), and it must not find anything unchecked there.
 */
static int walk_dir(struct walk *w, struct warder__buf *path, int fd, enum walk_mode mode,
                    size_t depth)
{
        if (depth > 256) {
                close(fd);
                return warder_error_set(
                    w->err, WARDER_ELIMIT,
                    "masking: '%s' is nested too deeply; the command was not run", path->data);
        }
        int pin = fcntl(fd, F_DUPFD_CLOEXEC, 3); /* kept in case the listing fails */
        DIR *d = pin >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                if (pin >= 0)
                        close(pin);
                close(fd);
                return pin < 0 ? out_of_fds(w, path->data)
                               : warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
        }
        int dfd = dirfd(d);
        size_t base = path->len;
        int rc = 0;
        bool unknown = false;
        struct dirent *de = NULL;
        while (!rc && (errno = 0, de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                rc = walk_budget(w);
                if (rc)
                        break;
                warder__buf_truncate(path, base);
                if ((base > 1 && warder__buf_putc(path, '/')) ||
                    warder__buf_puts(path, de->d_name)) {
                        rc = warder_error_set(w->err, WARDER_ENOMEM, "masking: out of memory");
                        break;
                }
                rc = walk_entry(w, dfd, de->d_name, de->d_type, path, mode, depth, &unknown);
        }
        if (!rc && !de && errno != 0)
                unknown = true; /* readdir failed part-way */
        closedir(d);
        warder__buf_truncate(path, base);
        /* Something here could not be examined. Hidden whole, the directory keeps it from
         * the command. Inside a hidden directory, it may be a file with another name that
         * the second pass would have to find: the walk fails. */
        struct stat st;
        if (!rc && unknown) {
                if (mode != WALK_HIDDEN && fstat(pin, &st) == 0)
                        return walk_record(w, path->data, pin, &st, WARDER_MASK_HIDE);
                rc = warder_error_set(w->err, WARDER_EACCES,
                                      "masking: cannot examine everything in '%s'; the command "
                                      "was not run",
                                      path->data);
        }
        close(pin);
        return rc;
}

int warder__exec_collect_masks(const char *root, size_t max_entries, uint32_t budget_ms,
                               warder_exec_mask_fn fn, void *ud, struct mask_list *masks,
                               struct warder_error *err)
{
        struct walk w = {
            .root = root,
            .fn = fn,
            .ud = ud,
            .masks = masks,
            .max_entries = max_entries,
            .budget_ms = budget_ms,
            .err = err,
        };
        w.deadline = warder__exec_now_ms() + w.budget_ms;
        struct warder__buf path = WARDER__BUF_INIT;
        if (warder__buf_puts(&path, root))
                return warder_error_set(err, WARDER_ENOMEM, "masking: out of memory");
        bool unknown = false;
        int rc = walk_entry(&w, AT_FDCWD, root, DT_UNKNOWN, &path, WALK_DECIDE, 0, &unknown);
        if (!rc && unknown)
                rc = warder_error_set(err, WARDER_EACCES,
                                      "masking: cannot examine the root '%s'; the command was "
                                      "not run",
                                      root);
        /* Other names of denied files (hard links): a second pass looks for their inodes. */
        if (!rc && w.linked.count) {
                warder__buf_truncate(&path, 0);
                int pin = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                struct stat rst;
                if (pin < 0 || fstat(pin, &rst) != 0) {
                        rc = warder_error_set(err, WARDER_EACCES,
                                              "masking: cannot examine the root '%s'; the "
                                              "command was not run",
                                              root);
                        if (pin >= 0)
                                close(pin);
                } else if (hidden_dir(masks, &rst)) {
                        close(pin); /* everything is hidden with the root */
                } else if (warder__buf_puts(&path, root)) {
                        close(pin);
                        rc = warder_error_set(err, WARDER_ENOMEM, "masking: out of memory");
                } else {
                        rc = walk_dir(&w, &path, pin, WALK_LINKS, 0);
                }
        }
        if (!rc && warder__exec_now_ms() > w.deadline)
                rc = warder_error_set(err, WARDER_ELIMIT,
                                      "masking: the walk of '%s' exceeded its budget of %u ms; the "
                                      "command was not run",
                                      root, (unsigned)w.budget_ms);
        free(w.linked.items);
        warder__buf_free(&path);
        return rc;
}
