/* SPDX-License-Identifier: MIT */
/*
 * The in-memory backend (§6.1): a tree of directories and files in process memory, each
 * directory a uthash table of its children. Its namespace is its own: paths are normalised
 * lexically against "/" (there are no symlinks, so the literal form is the real form).
 * All storage operations; edit is native (atomic under the write lock); glob and grep use the
 * library's fallbacks over ls and read. No execute, no realpath. A read-write lock makes it
 * safe for concurrent use.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend-internal.h"
#include "util.h"
#include "warder/memory.h"
#include "warder/sys/backend.h"

/* uthash reports allocation failures through this flag instead of exiting. */
static _Thread_local bool hash_oom;
#define HASH_NONFATAL_OOM        1
#define uthash_nonfatal_oom(obj) (hash_oom = true)
#include <uthash.h>

struct mnode {
        char *name; /* component; "" for the root */
        size_t name_len;
        bool dir;
        struct mnode *children; /* directories: uthash head keyed by name */
        char *data;             /* files */
        size_t len;
        int64_t mtime;
        UT_hash_handle hh;
};

struct memory {
        struct warder_backend base; /* first member */
        pthread_rwlock_t lock;
        struct mnode *root;
};

static const struct warder_backend_ops memory_ops;

static struct memory *mem_of(warder_backend *b)
{
        return (struct memory *)b;
}

static int64_t now(void)
{
        return (int64_t)time(NULL);
}

static struct mnode *node_new(const char *name, size_t len, bool dir)
{
        struct mnode *n = calloc(1, sizeof(*n));
        if (!n)
                return NULL;
        n->name = warder_strndup(name, len);
        if (!n->name) {
                free(n);
                return NULL;
        }
        n->name_len = len;
        n->dir = dir;
        n->mtime = now();
        return n;
}

static void node_free(struct mnode *n)
{
        if (!n)
                return;
        struct mnode *c, *tmp;
        HASH_ITER(hh, n->children, c, tmp)
        {
                HASH_DEL(n->children, c);
                node_free(c);
        }
        free(n->data);
        free(n->name);
        free(n);
}

static struct mnode *child_find(struct mnode *dir, const char *name, size_t len)
{
        struct mnode *c = NULL;
        HASH_FIND(hh, dir->children, name, len, c);
        return c;
}

static int child_add(struct mnode *dir, struct mnode *c)
{
        hash_oom = false;
        HASH_ADD_KEYPTR(hh, dir->children, c->name, c->name_len, c);
        if (hash_oom)
                return WARDER_ENOMEM;
        dir->mtime = c->mtime;
        return 0;
}

/* A path in normal form (§3.1): the caller's string when it already is, else a copy. */
struct npath {
        const char *data;
        size_t len;
        struct warder__buf buf;
};

#define NPATH_INIT                                                                                 \
        {                                                                                          \
                NULL, 0, WARDER__BUF_INIT                                                          \
        }

/* True when `p` is absolute with no empty, "." or ".." component and no trailing '/'. */
static bool is_normal(const char *p, size_t *len)
{
        if (p[0] != '/')
                return false;
        const char *s = p;
        while (*s) {
                const char *c = s + 1; /* component start */
                const char *e = c;
                while (*e && *e != '/')
                        e++;
                size_t n = (size_t)(e - c);
                if (n == 0 && (s != p || *e)) /* "//", trailing '/' (but "/" is fine) */
                        return false;
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                s = e;
        }
        *len = (size_t)(s - p);
        return true;
}

/* Normalises `path` in the backend's own namespace (lexically against "/"). */
static int normalise(struct npath *out, const char *path, struct warder_error *err)
{
        if (is_normal(path, &out->len)) {
                out->data = path;
                return 0;
        }
        int rc = warder__path_normalize_buf(&out->buf, "/", NULL, NULL, path, strlen(path), err);
        out->data = out->buf.data;
        out->len = out->buf.len;
        return rc;
}

static void npath_free(struct npath *np)
{
        warder__buf_free(&np->buf);
}

/*
 * Walks the directories of normalised `path` except the last component, creating missing
 * ones when `create`. Sets *dir and the last component (*leaf, *leaf_len; empty for "/").
 */
static int walk_parent(struct memory *m, const char *path, bool create, struct mnode **dir,
                       const char **leaf, size_t *leaf_len, struct warder_error *err)
{
        struct mnode *cur = m->root;
        const char *p = path + 1;
        for (;;) {
                const char *slash = strchr(p, '/');
                if (!slash) {
                        *dir = cur;
                        *leaf = p;
                        *leaf_len = strlen(p);
                        return 0;
                }
                size_t len = (size_t)(slash - p);
                struct mnode *next = child_find(cur, p, len);
                if (!next) {
                        if (!create)
                                return warder_error_set(err, WARDER_ENOENT, "'%s': not found",
                                                        path);
                        next = node_new(p, len, true);
                        if (!next || child_add(cur, next)) {
                                node_free(next);
                                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                        }
                } else if (!next->dir) {
                        return warder_error_set(err, WARDER_ENOTDIR,
                                                "'%s': a parent component is not a directory",
                                                path);
                }
                cur = next;
                p = slash + 1;
        }
}

/* Finds the node of normalised `path`. */
static int lookup(struct memory *m, const char *path, struct mnode **out, struct warder_error *err)
{
        struct mnode *dir;
        const char *leaf;
        size_t leaf_len;
        int rc = walk_parent(m, path, false, &dir, &leaf, &leaf_len, err);
        if (rc)
                return rc;
        if (leaf_len == 0) {
                *out = dir; /* the root */
                return 0;
        }
        *out = child_find(dir, leaf, leaf_len);
        if (!*out)
                return warder_error_set(err, WARDER_ENOENT, "'%s': not found", path);
        return 0;
}

static int memory_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                       unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        (void)flags;
        struct memory *m = mem_of(b);
        struct npath norm = NPATH_INIT;
        int rc = normalise(&norm, path, err);
        if (rc)
                goto out;
        pthread_rwlock_rdlock(&m->lock);
        struct mnode *n = NULL;
        rc = lookup(m, norm.data, &n, err);
        if (!rc && n->dir)
                rc = warder_error_set(err, WARDER_EISDIR, "read '%s': is a directory", norm.data);
        if (!rc) {
                size_t start = offset < n->len ? (size_t)offset : n->len;
                size_t avail = n->len - start;
                size_t take = (limit && limit < avail) ? (size_t)limit : avail;
                rc = warder_bytes_set(out, n->data ? n->data + start : "", take);
                if (rc)
                        warder_error_set(err, rc, "out of memory");
                else
                        out->truncated = start + take < n->len;
        }
        pthread_rwlock_unlock(&m->lock);
out:
        npath_free(&norm);
        return rc;
}

/* Stores `data` (taken over) as the content of normalised `path`, creating parents. */
static int store(struct memory *m, const char *path, char *data, size_t len,
                 struct warder_error *err)
{
        struct mnode *dir;
        const char *leaf;
        size_t leaf_len;
        int rc = walk_parent(m, path, true, &dir, &leaf, &leaf_len, err);
        if (rc)
                return rc;
        if (leaf_len == 0)
                return warder_error_set(err, WARDER_EISDIR, "write '%s': is a directory", path);
        struct mnode *n = child_find(dir, leaf, leaf_len);
        if (n && n->dir)
                return warder_error_set(err, WARDER_EISDIR, "write '%s': is a directory", path);
        if (!n) {
                n = node_new(leaf, leaf_len, false);
                if (!n || child_add(dir, n)) {
                        node_free(n);
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                }
        }
        free(n->data);
        n->data = data;
        n->len = len;
        n->mtime = now();
        return 0;
}

static int memory_write(warder_backend *b, const char *path, const void *data, size_t len,
                        unsigned flags, struct warder_error *err)
{
        (void)flags;
        struct memory *m = mem_of(b);
        struct npath norm = NPATH_INIT;
        int rc = normalise(&norm, path, err);
        if (rc) {
                npath_free(&norm);
                return rc;
        }
        char *copy = len < SIZE_MAX ? malloc(len + 1) : NULL;
        if (!copy) {
                npath_free(&norm);
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        if (len)
                memcpy(copy, data, len);
        copy[len] = '\0';
        pthread_rwlock_wrlock(&m->lock);
        rc = store(m, norm.data, copy, len, err);
        pthread_rwlock_unlock(&m->lock);
        if (rc)
                free(copy);
        npath_free(&norm);
        return rc;
}

static int memory_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                       const char *new_text, size_t new_len, unsigned flags, size_t *count,
                       struct warder_error *err)
{
        struct memory *m = mem_of(b);
        struct npath norm = NPATH_INIT;
        struct warder__buf next = WARDER__BUF_INIT;
        int rc = normalise(&norm, path, err);
        if (rc)
                goto out;
        pthread_rwlock_wrlock(&m->lock);
        struct mnode *n = NULL;
        rc = lookup(m, norm.data, &n, err);
        if (!rc && n->dir)
                rc = warder_error_set(err, WARDER_EISDIR, "edit '%s': is a directory", norm.data);
        if (!rc)
                rc = warder__edit_apply(n->data ? n->data : "", n->len, old_text, old_len, new_text,
                                        new_len, flags, norm.data, &next, count, err);
        if (!rc) {
                size_t len = next.len;
                char *data = warder__buf_steal(&next);
                if (!data) {
                        rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
                } else {
                        free(n->data);
                        n->data = data;
                        n->len = len;
                        n->mtime = now();
                }
        }
        pthread_rwlock_unlock(&m->lock);
out:
        warder__buf_free(&next);
        npath_free(&norm);
        return rc;
}

static int memory_ls(warder_backend *b, const char *path, unsigned flags,
                     struct warder_entries *out, struct warder_error *err)
{
        (void)flags;
        struct memory *m = mem_of(b);
        struct npath norm = NPATH_INIT;
        struct warder__buf child = WARDER__BUF_INIT;
        int rc = normalise(&norm, path, err);
        if (rc)
                goto out;
        pthread_rwlock_rdlock(&m->lock);
        struct mnode *n = NULL;
        rc = lookup(m, norm.data, &n, err);
        if (!rc && !n->dir)
                rc = warder_error_set(err, WARDER_ENOTDIR, "ls '%s': not a directory", norm.data);
        if (!rc) {
                size_t dir_len = norm.len == 1 ? 0 : norm.len;
                for (struct mnode *c = n->children; c && !rc; c = c->hh.next) {
                        warder__buf_truncate(&child, 0);
                        rc = warder__buf_append(&child, norm.data, dir_len);
                        if (!rc)
                                rc = warder__buf_putc(&child, '/');
                        if (!rc)
                                rc = warder__buf_append(&child, c->name, c->name_len);
                        if (!rc)
                                rc = warder_entries_add(
                                    out, c->name, strlen(c->name), child.data, strlen(child.data),
                                    c->dir ? WARDER_ENTRY_DIR : WARDER_ENTRY_FILE,
                                    c->dir ? 0 : c->len, c->mtime);
                        if (rc)
                                rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
                }
        }
        pthread_rwlock_unlock(&m->lock);
out:
        warder__buf_free(&child);
        npath_free(&norm);
        return rc;
}

static void memory_destroy(warder_backend *b)
{
        struct memory *m = mem_of(b);
        node_free(m->root);
        pthread_rwlock_destroy(&m->lock);
        free(m);
}

static const struct warder_backend_ops memory_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = memory_read,
    .write = memory_write,
    .edit = memory_edit,
    .ls = memory_ls,
    .destroy = memory_destroy,
};

WARDER_API int warder_memory_new(warder_backend **out, struct warder_error *err)
{
        if (!out)
                return warder_error_set(err, WARDER_EINVAL, "out is NULL");
        struct memory *m = calloc(1, sizeof(*m));
        if (!m)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        m->root = node_new("", 0, true);
        if (!m->root || pthread_rwlock_init(&m->lock, NULL)) {
                node_free(m->root);
                free(m);
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        int rc = warder_backend_init(&m->base, &memory_ops, err);
        if (rc) {
                memory_destroy(&m->base);
                return rc;
        }
        *out = &m->base;
        return 0;
}

static int memory_mkdir(warder_backend *mem, const char *path, struct warder_error *err)
{
        if (!mem || mem->ops != &memory_ops)
                return warder_error_set(err, WARDER_EINVAL, "not a memory backend");
        if (!path)
                return warder_error_set(err, WARDER_EINVAL, "path is NULL");
        struct memory *m = mem_of(mem);
        struct npath norm = NPATH_INIT;
        int rc = normalise(&norm, path, err);
        if (rc) {
                npath_free(&norm);
                return rc;
        }
        pthread_rwlock_wrlock(&m->lock);
        struct mnode *dir;
        const char *leaf;
        size_t leaf_len;
        rc = walk_parent(m, norm.data, true, &dir, &leaf, &leaf_len, err);
        if (!rc && leaf_len) {
                struct mnode *n = child_find(dir, leaf, leaf_len);
                if (n && !n->dir) {
                        rc = warder_error_set(err, WARDER_EEXIST, "mkdir '%s': a file exists there",
                                              norm.data);
                } else if (!n) {
                        n = node_new(leaf, leaf_len, true);
                        if (!n || child_add(dir, n)) {
                                node_free(n);
                                rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
                        }
                }
        }
        pthread_rwlock_unlock(&m->lock);
        npath_free(&norm);
        return rc;
}

WARDER_API int warder_memory_mkdir(warder_backend *mem, const char *path, size_t path_len,
                                   struct warder_error *err)
{
        if (!path || !path_len || memchr(path, '\0', path_len))
                return warder_error_set(err, WARDER_EINVAL, "mkdir: empty path or NUL byte");
        char *p = strndup(path, path_len);
        if (!p)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        int rc = memory_mkdir(mem, p, err);
        free(p);
        return rc;
}
