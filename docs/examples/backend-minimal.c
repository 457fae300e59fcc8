/* SPDX-License-Identifier: MIT */
/*
 * A complete backend in three functions (read, write, ls) and a destructor: a flat store of
 * named notes, all directly under "/". The library adds edit, glob and grep by fallback.
 * Build: cc backend-minimal.c $(pkg-config --cflags --libs warder)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warder/sys/backend.h>
#include <warder/warder.h>

struct note {
        char *name;
        char *text;
        size_t len;
        struct note *next;
};

struct notes {
        struct warder_backend base; /* first member: the library's header */
        struct note *list;
};

static struct note *find(struct notes *n, const char *path)
{
        for (struct note *it = n->list; it; it = it->next)
                if (path[0] == '/' && strcmp(it->name, path + 1) == 0)
                        return it;
        return NULL;
}

static int notes_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                      unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        (void)flags;
        if (strcmp(path, "/") == 0)
                return warder_error_set(err, WARDER_EISDIR, "'%s' is a directory", path);
        struct note *it = find((struct notes *)b, path);
        if (!it)
                return warder_error_set(err, WARDER_ENOENT, "no note '%s'", path);
        size_t start = offset < it->len ? (size_t)offset : it->len;
        size_t take = it->len - start;
        if (limit && limit < take)
                take = (size_t)limit;
        int rc = warder_bytes_set(out, it->text + start, take); /* the library's allocator */
        if (rc == 0)
                out->truncated = start + take < it->len;
        return rc;
}

static int notes_write(warder_backend *b, const char *path, const void *data, size_t len,
                       unsigned flags, struct warder_error *err)
{
        (void)flags;
        struct notes *n = (struct notes *)b;
        if (strcmp(path, "/") == 0)
                return warder_error_set(err, WARDER_EISDIR, "'%s' is a directory", path);
        if (path[0] != '/' || strchr(path + 1, '/'))
                return warder_error_set(err, WARDER_ENOTSUP, "notes live directly under /");
        char *text = malloc(len + 1);
        if (!text)
                return WARDER_ENOMEM;
        memcpy(text, data, len);
        text[len] = '\0';
        struct note *it = find(n, path);
        if (!it) {
                it = calloc(1, sizeof(*it));
                if (!it || !(it->name = strdup(path + 1))) {
                        free(it);
                        free(text);
                        return WARDER_ENOMEM;
                }
                it->next = n->list;
                n->list = it;
        }
        free(it->text);
        it->text = text;
        it->len = len;
        return 0;
}

static int notes_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                    struct warder_error *err)
{
        (void)flags;
        struct notes *n = (struct notes *)b;
        if (find(n, path))
                return warder_error_set(err, WARDER_ENOTDIR, "'%s' is a note", path);
        if (strcmp(path, "/") != 0)
                return warder_error_set(err, WARDER_ENOENT, "no directory '%s'", path);
        for (struct note *it = n->list; it; it = it->next) {
                char full[1024];
                snprintf(full, sizeof(full), "/%s", it->name);
                /* On failure the library frees what was added so far. */
                int rc = warder_entries_add(out, it->name, strlen(it->name), full, strlen(full),
                                            WARDER_ENTRY_FILE, it->len, 0);
                if (rc)
                        return rc;
        }
        return 0;
}

static void notes_destroy(warder_backend *b)
{
        struct notes *n = (struct notes *)b;
        while (n->list) {
                struct note *next = n->list->next;
                free(n->list->name);
                free(n->list->text);
                free(n->list);
                n->list = next;
        }
        free(n);
}

/* One static table for all instances; the slots left out are NULL. */
static const struct warder_backend_ops notes_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = notes_read,
    .write = notes_write,
    .ls = notes_ls,
    .destroy = notes_destroy,
};

static int notes_new(warder_backend **out, struct warder_error *err)
{
        struct notes *n = calloc(1, sizeof(*n));
        if (!n)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        int rc = warder_backend_init(&n->base, &notes_ops, err); /* checks the table once */
        if (rc) {
                free(n);
                return rc;
        }
        *out = &n->base;
        return 0;
}

static int fail(const char *what, struct warder_error *err)
{
        fprintf(stderr, "%s: %s (%s)\n", what, err->message, warder_status_name(err->code));
        return 1;
}

int main(void)
{
        struct warder_error err = WARDER_ERROR_INIT;
        warder_backend *b = NULL;
        if (notes_new(&b, &err))
                return fail("notes_new", &err);

        const char todo[] = "buy milk\nTODO: write the docs\nTODO: test them\n";
        if (warder_backend_write(b, "/todo.txt", 9, todo, sizeof(todo) - 1, 0, &err) ||
            warder_backend_write(b, "/ideas.md", 9, "a backend in 3 functions\n", 25, 0, &err))
                return fail("write", &err);

        /* edit: read + replace + write, done by the library */
        size_t count = 0;
        if (warder_backend_edit(&count, b, "/todo.txt", 9, "milk", 4, "oat milk", 8, 0, &err))
                return fail("edit", &err);
        /* "TODO" occurs twice: refused unless every occurrence is to be replaced */
        if (warder_backend_edit(NULL, b, "/todo.txt", 9, "TODO", 4, "DONE", 4, 0, &err) !=
            WARDER_EAMBIGUOUS)
                return fail("edit (ambiguous)", &err);

        /* glob: a walk over ls with the core matcher */
        struct warder_entries found = WARDER_ENTRIES_INIT;
        if (warder_backend_glob(&found, b, "*.txt", strlen("*.txt"), "/", 1, 0, &err))
                return fail("glob", &err);
        for (size_t i = 0; i < found.count; i++)
                printf("glob: %s (%llu bytes)\n", found.items[i].path,
                       (unsigned long long)found.items[i].size);

        /* grep: a walk over ls + read, with PCRE2 */
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "^TODO:";
        req.pattern_len = strlen(req.pattern);
        req.path = "/";
        req.path_len = 1;
        struct warder_grep_result hits = WARDER_GREP_RESULT_INIT;
        if (warder_backend_grep(&hits, b, &req, &err))
                return fail("grep", &err);
        for (size_t i = 0; i < hits.count; i++)
                printf("grep: %s:%llu: %s\n", hits.items[i].path,
                       (unsigned long long)hits.items[i].line, hits.items[i].text);

        int ok = count == 1 && found.count == 1 && hits.count == 2 && hits.items[1].line == 3 &&
                 !warder_backend_can_execute(b);
        warder_entries_free(&found);
        warder_grep_result_free(&hits);
        warder_backend_free(b); /* calls notes_destroy */
        warder_error_clear(&err);
        return ok ? 0 : 1;
}
