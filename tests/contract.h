/* SPDX-License-Identifier: MIT */
/*
 * The backend contract suite: one set of assertions that every backend must pass, whatever it
 * is built on (memory, the local file system, a guard with an allow-everything ruleset around
 * either). A test executable describes its backends as targets and adds the suite:
 *
 *     static int memory_setup(struct contract_fixture *f, void *ud)
 *     {
 *             int rc = warder_memory_new(&f->b, NULL);
 *             snprintf(f->root, sizeof(f->root), "/ws");
 *             return rc ? rc : warder_memory_mkdir(f->b, f->root, strlen(f->root), NULL);
 *     }
 *     static const struct contract_target targets[] = {
 *             {"memory", memory_setup, NULL, NULL, NULL}};
 *     suite_add_tcase(s, contract_tcase(targets, 1));
 *
 * Each test runs once per target (a Check loop test: `_i` is the target's index) on a fresh
 * backend, and touches nothing outside `root`. Failures name the target.
 */
#ifndef WARDER_TEST_CONTRACT_H
#define WARDER_TEST_CONTRACT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"
#include "warder/sys/backend.h"

#define CONTRACT_FN static __attribute__((unused))

struct contract_fixture {
        warder_backend *b; /* fresh, owned by the fixture */
        char root[1024];   /* absolute, an existing empty directory in b's namespace */
        void *state;       /* for the target (e.g. a temporary directory to remove) */
        char paths[8][2048];
        unsigned next;
        int target; /* index into the targets */
};

struct contract_target {
        const char *name;
        /* Sets f->b and f->root (and f->state if needed); returns 0 or a status. */
        int (*setup)(struct contract_fixture *f, void *ud);
        /* Releases what setup made; NULL: warder_backend_free(f->b). */
        void (*teardown)(struct contract_fixture *f, void *ud);
        void *ud;
        /* Creates one directory (absolute path; its parent exists; an existing directory is
         * fine). NULL: the backend's write creates missing parents, and the suite relies on
         * it. With a hook, write below a missing directory may create it or fail with
         * WARDER_ENOENT. */
        int (*mkdir)(struct contract_fixture *f, const char *path, void *ud);
};

static const struct contract_target *contract_targets_;
static size_t contract_ntargets_;

CONTRACT_FN void contract_begin(struct contract_fixture *f, int i)
{
        memset(f, 0, sizeof(*f));
        ck_assert_int_lt(i, (int)contract_ntargets_);
        const struct contract_target *t = &contract_targets_[i];
        f->target = i;
        int rc = t->setup(f, t->ud);
        ck_assert_msg(rc == 0 && f->b && f->root[0] == '/', "%s: setup failed (%d)", t->name, rc);
}

CONTRACT_FN void contract_end(struct contract_fixture *f, int i)
{
        const struct contract_target *t = &contract_targets_[i];
        if (t->teardown)
                t->teardown(f, t->ud);
        else
                warder_backend_free(f->b);
        f->b = NULL;
}

/* root + "/" + rel, in one of eight rotating buffers. */
CONTRACT_FN const char *cpath(struct contract_fixture *f, const char *rel)
{
        char *p = f->paths[f->next++ % 8];
        bool slash = rel[0] && strcmp(f->root, "/") != 0;
        snprintf(p, sizeof(f->paths[0]), "%s%s%s", f->root, slash ? "/" : "", rel);
        return p;
}

#define CT_NAME (contract_targets_[_i].name)
#define CT_OK(call)                                                                                \
        do {                                                                                       \
                int ct_rc_ = (call);                                                               \
                ck_assert_msg(ct_rc_ == 0, "%s: %s -> %s", CT_NAME, #call,                         \
                              warder_status_name(ct_rc_));                                         \
        } while (0)
#define CT_RC(expect, call)                                                                        \
        do {                                                                                       \
                int ct_rc_ = (call);                                                               \
                ck_assert_msg(ct_rc_ == (expect), "%s: %s -> %s, expected %s", CT_NAME, #call,     \
                              warder_status_name(ct_rc_), warder_status_name(expect));             \
        } while (0)

CONTRACT_FN int ct_write(struct contract_fixture *f, const char *rel, const void *data, size_t len)
{
        const char *p = cpath(f, rel);
        return warder_backend_write(f->b, p, strlen(p), data, len, 0, NULL);
}

/* Creates the directories above `rel` with the target's hook (when it has one). */
CONTRACT_FN int ct_parents(struct contract_fixture *f, const char *rel)
{
        const struct contract_target *t = &contract_targets_[f->target];
        if (!t->mkdir)
                return 0;
        char buf[2048];
        for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
                snprintf(buf, sizeof(buf), "%.*s", (int)(s - rel), rel);
                int rc = t->mkdir(f, cpath(f, buf), t->ud);
                if (rc)
                        return rc;
        }
        return 0;
}

/* Writes `text` to `rel`, creating its parents first. */
CONTRACT_FN int ct_put(struct contract_fixture *f, const char *rel, const char *text)
{
        int rc = ct_parents(f, rel);
        return rc ? rc : ct_write(f, rel, text, strlen(text));
}

CONTRACT_FN int ct_read(struct contract_fixture *f, const char *rel, uint64_t off, uint64_t lim,
                        struct warder_bytes *out)
{
        const char *p = cpath(f, rel);
        return warder_backend_read(out, f->b, p, strlen(p), off, lim, 0, NULL);
}

CONTRACT_FN int ct_ls(struct contract_fixture *f, const char *rel, struct warder_entries *out)
{
        const char *p = cpath(f, rel);
        return warder_backend_ls(out, f->b, p, strlen(p), 0, NULL);
}

CONTRACT_FN int ct_edit(struct contract_fixture *f, const char *rel, const char *o, const char *n,
                        unsigned flags, size_t *count)
{
        const char *p = cpath(f, rel);
        return warder_backend_edit(count, f->b, p, strlen(p), o, strlen(o), n, strlen(n), flags,
                                   NULL);
}

CONTRACT_FN int ct_glob(struct contract_fixture *f, const char *pattern, const char *rel,
                        struct warder_entries *out)
{
        const char *p = cpath(f, rel);
        return warder_backend_glob(out, f->b, pattern, strlen(pattern), p, strlen(p), 0, NULL);
}

CONTRACT_FN int ct_grep(struct contract_fixture *f, const char *pattern, const char *rel,
                        const char *glob, size_t max, unsigned flags,
                        struct warder_grep_result *out)
{
        const char *p = cpath(f, rel);
        struct warder_grep_request r = WARDER_GREP_REQUEST_INIT;
        r.pattern = pattern;
        r.pattern_len = strlen(r.pattern);
        r.path = p;
        r.path_len = strlen(p);
        r.glob = glob;
        r.glob_len = r.glob ? strlen(r.glob) : 0;
        r.max_matches = max;
        r.flags = flags;
        return warder_backend_grep(out, f->b, &r, NULL);
}

CONTRACT_FN bool ct_has(struct contract_fixture *f, const struct warder_entries *e, const char *rel)
{
        const char *p = cpath(f, rel);
        for (size_t i = 0; i < e->count; i++)
                if (!strcmp(e->items[i].path, p))
                        return true;
        return false;
}

CONTRACT_FN void ct_expect_content(struct contract_fixture *f, int _i, const char *rel,
                                   const char *expect)
{
        struct warder_bytes out = WARDER_BYTES_INIT;
        CT_OK(ct_read(f, rel, 0, 0, &out));
        ck_assert_msg(out.len == strlen(expect) && !memcmp(out.data, expect, out.len),
                      "%s: %s holds '%s', expected '%s'", CT_NAME, rel, out.data, expect);
        warder_bytes_free(&out);
}

/* A small tree under the root used by several assertions. */
CONTRACT_FN void ct_tree(struct contract_fixture *f, int _i)
{
        CT_OK(ct_put(f, "README.md", "# title\nhello world\n"));
        CT_OK(ct_put(f, "notes.txt", "first\nsecond hello\nthird"));
        CT_OK(ct_put(f, "src/main.c", "int main(void)\n{\n\treturn HELLO;\n}\n"));
        CT_OK(ct_put(f, "src/lib/util.txt", "hello util\n"));
        CT_OK(ct_put(f, "docs/a.txt", "nothing\n"));
}

/* ---- the assertions ---------------------------------------------------------------------- */

START_TEST(contract_write_then_read)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        CT_OK(ct_put(&f, "a.txt", "hello"));
        ct_expect_content(&f, _i, "a.txt", "hello");
        /* replace, shorter: nothing of the old content survives */
        CT_OK(ct_put(&f, "a.txt", "hi"));
        ct_expect_content(&f, _i, "a.txt", "hi");
        /* binary, with NUL bytes; data is NUL-terminated past len */
        CT_OK(ct_write(&f, "bin", "a\0b\xff", 4));
        struct warder_bytes out = WARDER_BYTES_INIT;
        CT_OK(ct_read(&f, "bin", 0, 0, &out));
        ck_assert_uint_eq(out.len, 4);
        ck_assert_int_eq(memcmp(out.data, "a\0b\xff", 5), 0);
        ck_assert(!out.truncated);
        warder_bytes_free(&out);
        /* an empty file reads as "" */
        CT_OK(ct_write(&f, "empty", "", 0));
        CT_OK(ct_read(&f, "empty", 0, 0, &out));
        ck_assert_uint_eq(out.len, 0);
        ck_assert_ptr_nonnull(out.data);
        ck_assert_str_eq(out.data, "");
        warder_bytes_free(&out);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_write_missing_parents)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int rc = ct_write(&f, "x/y/z/deep.txt", "deep", 4);
        if (rc == WARDER_ENOENT && contract_targets_[_i].mkdir) {
                /* allowed for a backend that does not create parents: then nothing was made */
                CT_RC(WARDER_ENOENT, ct_ls(&f, "x", &e));
                contract_end(&f, _i);
                return;
        }
        ck_assert_msg(rc == 0, "%s: write below missing directories -> %s", CT_NAME,
                      warder_status_name(rc));
        ct_expect_content(&f, _i, "x/y/z/deep.txt", "deep");
        CT_OK(ct_ls(&f, "x/y", &e));
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].name, "z");
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_DIR);
        warder_entries_free(&e);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_read_offset_limit)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        CT_OK(ct_put(&f, "n", "0123456789"));
        struct warder_bytes out = WARDER_BYTES_INIT;
        CT_OK(ct_read(&f, "n", 2, 3, &out));
        ck_assert_uint_eq(out.len, 3);
        ck_assert_str_eq(out.data, "234");
        ck_assert_msg(out.truncated, "%s: a limit that cuts the file sets truncated", CT_NAME);
        warder_bytes_free(&out);
        CT_OK(ct_read(&f, "n", 7, 0, &out));
        ck_assert_str_eq(out.data, "789");
        ck_assert(!out.truncated);
        warder_bytes_free(&out);
        CT_OK(ct_read(&f, "n", 7, 3, &out));
        ck_assert_str_eq(out.data, "789");
        ck_assert(!out.truncated);
        warder_bytes_free(&out);
        CT_OK(ct_read(&f, "n", 50, 0, &out)); /* past the end: empty, not an error */
        ck_assert_uint_eq(out.len, 0);
        warder_bytes_free(&out);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_storage_errors)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        CT_OK(ct_put(&f, "dir/file", "x"));
        char sentinel[] = "untouched";
        struct warder_bytes out = {WARDER_BYTES_VERSION, sentinel, 9, false};
        struct warder_entry one = {sentinel, sentinel, WARDER_ENTRY_FILE, 0, 0};
        struct warder_entries e = {WARDER_ENTRIES_VERSION, &one, 1, 0};
        CT_RC(WARDER_ENOENT, ct_read(&f, "missing", 0, 0, &out));
        CT_RC(WARDER_ENOENT, ct_read(&f, "nodir/missing", 0, 0, &out));
        CT_RC(WARDER_EISDIR, ct_read(&f, "dir", 0, 0, &out));
        CT_RC(WARDER_ENOTDIR, ct_read(&f, "dir/file/below", 0, 0, &out));
        CT_RC(WARDER_EISDIR, ct_write(&f, "dir", "x", 1));
        CT_RC(WARDER_ENOTDIR, ct_write(&f, "dir/file/below", "x", 1));
        CT_RC(WARDER_ENOENT, ct_ls(&f, "missing", &e));
        CT_RC(WARDER_ENOTDIR, ct_ls(&f, "dir/file", &e));
        /* outputs untouched on failure */
        ck_assert_ptr_eq(out.data, sentinel);
        ck_assert_uint_eq(out.len, 9);
        ck_assert_ptr_eq(e.items, &one);
        ck_assert_uint_eq(e.count, 1);
        /* the failed write below a file changed nothing */
        ct_expect_content(&f, _i, "dir/file", "x");
        /* length-delimited paths: an embedded NUL is refused, never truncated (§3.1) */
        const char *p = cpath(&f, "dir/file");
        char buf[2100];
        size_t len = strlen(p);
        memcpy(buf, p, len);
        memcpy(buf + len, "\0.env", 5);
        struct warder_bytes b2 = WARDER_BYTES_INIT;
        CT_RC(WARDER_EINVAL, warder_backend_read(&b2, f.b, buf, len + 5, 0, 0, 0, NULL));
        CT_RC(WARDER_EINVAL, warder_backend_write(f.b, buf, len + 5, "y", 1, 0, NULL));
        CT_RC(WARDER_EINVAL, warder_backend_read(&b2, f.b, buf, 0, 0, 0, 0, NULL));
        ct_expect_content(&f, _i, "dir/file", "x");
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_ls_entries)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        CT_OK(ct_ls(&f, "", &e)); /* the root starts empty */
        ck_assert_uint_eq(e.count, 0);
        time_t before = time(NULL);
        CT_OK(ct_put(&f, "b.txt", "bbb"));
        CT_OK(ct_put(&f, "a.txt", "a"));
        CT_OK(ct_put(&f, "c/inner", "i"));
        time_t after = time(NULL);
        CT_OK(ct_ls(&f, "", &e));
        ck_assert_msg(e.count == 3, "%s: %zu entries", CT_NAME, e.count);
        ck_assert_uint_eq(e.hidden, 0);
        /* sorted by name; the path is absolute; type, size and mtime are filled in */
        ck_assert_str_eq(e.items[0].name, "a.txt");
        ck_assert_str_eq(e.items[0].path, cpath(&f, "a.txt"));
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_FILE);
        ck_assert_uint_eq(e.items[0].size, 1);
        ck_assert_str_eq(e.items[1].name, "b.txt");
        ck_assert_uint_eq(e.items[1].size, 3);
        ck_assert_str_eq(e.items[2].name, "c");
        ck_assert_str_eq(e.items[2].path, cpath(&f, "c"));
        ck_assert_int_eq(e.items[2].type, WARDER_ENTRY_DIR);
        for (size_t k = 0; k < 2; k++)
                ck_assert_msg(e.items[k].mtime >= (int64_t)before - 2 &&
                                  e.items[k].mtime <= (int64_t)after + 2,
                              "%s: mtime %lld", CT_NAME, (long long)e.items[k].mtime);
        warder_entries_free(&e);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_edit)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        CT_OK(ct_put(&f, "e.txt", "one two one three one"));
        size_t n = 99;
        CT_OK(ct_edit(&f, "e.txt", "two", "2", 0, &n));
        ck_assert_uint_eq(n, 1);
        ct_expect_content(&f, _i, "e.txt", "one 2 one three one");
        n = 99;
        CT_RC(WARDER_ENOMATCH, ct_edit(&f, "e.txt", "four", "4", 0, &n));
        CT_RC(WARDER_EAMBIGUOUS, ct_edit(&f, "e.txt", "one", "1", 0, &n));
        ck_assert_uint_eq(n, 99); /* untouched on failure */
        ct_expect_content(&f, _i, "e.txt", "one 2 one three one");
        CT_OK(ct_edit(&f, "e.txt", "one", "1", WARDER_EDIT_ALL, &n));
        ck_assert_uint_eq(n, 3);
        ct_expect_content(&f, _i, "e.txt", "1 2 1 three 1");
        CT_OK(ct_edit(&f, "e.txt", " three", "", 0, NULL));
        ct_expect_content(&f, _i, "e.txt", "1 2 1 1");
        CT_RC(WARDER_ENOENT, ct_edit(&f, "missing", "a", "b", 0, &n));
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_glob)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        ct_tree(&f, _i);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        CT_OK(ct_glob(&f, "**/*.txt", "", &e));
        ck_assert_msg(e.count == 3, "%s: %zu matches", CT_NAME, e.count);
        ck_assert(ct_has(&f, &e, "notes.txt"));
        ck_assert(ct_has(&f, &e, "docs/a.txt"));
        ck_assert(ct_has(&f, &e, "src/lib/util.txt"));
        warder_entries_free(&e);
        /* `*` does not cross '/' (§2.2): the top level only */
        CT_OK(ct_glob(&f, "*.txt", "", &e));
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, cpath(&f, "notes.txt"));
        ck_assert_str_eq(e.items[0].name, "notes.txt");
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_FILE);
        warder_entries_free(&e);
        /* directories match too; the base may be below the root */
        CT_OK(ct_glob(&f, "*", "src", &e));
        ck_assert_uint_eq(e.count, 2);
        ck_assert(ct_has(&f, &e, "src/lib"));
        ck_assert(ct_has(&f, &e, "src/main.c"));
        warder_entries_free(&e);
        /* an absolute pattern is matched against absolute paths */
        char abs[2100];
        snprintf(abs, sizeof(abs), "%s/*.c", cpath(&f, "src"));
        CT_OK(ct_glob(&f, abs, "", &e));
        ck_assert_uint_eq(e.count, 1);
        warder_entries_free(&e);
        CT_OK(ct_glob(&f, "**/*.nothing", "", &e));
        ck_assert_uint_eq(e.count, 0);
        warder_entries_free(&e);
        CT_RC(WARDER_ENOENT, ct_glob(&f, "*", "missing", &e));
        ck_assert_ptr_null(e.items);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_grep)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        ct_tree(&f, _i);
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        CT_OK(ct_grep(&f, "hello", "", NULL, 0, 0, &g));
        ck_assert_msg(g.count == 3, "%s: %zu matches", CT_NAME, g.count);
        ck_assert_uint_eq(g.hidden_files, 0);
        ck_assert(!g.truncated);
        bool seen_notes = false;
        for (size_t k = 0; k < g.count; k++) {
                ck_assert_uint_eq(g.items[k].text_len, strlen(g.items[k].text));
                if (!strcmp(g.items[k].path, cpath(&f, "notes.txt"))) {
                        seen_notes = true;
                        ck_assert_uint_eq(g.items[k].line, 2); /* 1-based */
                        ck_assert_str_eq(g.items[k].text, "second hello");
                }
        }
        ck_assert(seen_notes);
        warder_grep_result_free(&g);
        /* caseless */
        CT_OK(ct_grep(&f, "hello", "", NULL, 0, WARDER_GREP_CASELESS, &g));
        ck_assert_uint_eq(g.count, 4);
        warder_grep_result_free(&g);
        /* the last line without a newline counts */
        CT_OK(ct_grep(&f, "^third$", "", NULL, 0, 0, &g));
        ck_assert_uint_eq(g.count, 1);
        ck_assert_uint_eq(g.items[0].line, 3);
        warder_grep_result_free(&g);
        /* a glob filter, relative to the base */
        CT_OK(ct_grep(&f, "hello", "", "**/*.txt", 0, 0, &g));
        ck_assert_uint_eq(g.count, 2);
        warder_grep_result_free(&g);
        /* a file as the base */
        CT_OK(ct_grep(&f, "l+", "src/lib/util.txt", NULL, 0, 0, &g));
        ck_assert_uint_eq(g.count, 1);
        ck_assert_str_eq(g.items[0].path, cpath(&f, "src/lib/util.txt"));
        warder_grep_result_free(&g);
        /* max_matches */
        CT_OK(ct_grep(&f, "e", "", NULL, 2, 0, &g));
        ck_assert_uint_eq(g.count, 2);
        ck_assert(g.truncated);
        warder_grep_result_free(&g);
        /* errors */
        CT_RC(WARDER_EPARSE, ct_grep(&f, "(unclosed", "", NULL, 0, 0, &g));
        CT_RC(WARDER_ENOENT, ct_grep(&f, "x", "missing", NULL, 0, 0, &g));
        ck_assert_ptr_null(g.items);
        contract_end(&f, _i);
}
END_TEST

START_TEST(contract_optional_operations)
{
        struct contract_fixture f;
        contract_begin(&f, _i);
        CT_OK(ct_put(&f, "plain.txt", "x"));
        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
        xr.command = "true";
        xr.command_len = 4;
        struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
        if (!warder_backend_can_execute(f.b)) /* §4.8: the answer is ENOTSUP */
                CT_RC(WARDER_ENOTSUP, warder_backend_execute(&xo, f.b, &xr, NULL));
        char *real = NULL;
        const char *p = cpath(&f, "plain.txt");
        if (warder_backend_can_realpath(f.b)) {
                /* no symlinks involved: the real form is the literal form (§3.2) */
                CT_OK(warder_backend_realpath(&real, f.b, p, strlen(p), NULL));
                ck_assert_str_eq(real, p);
                warder_free(real);
        } else {
                CT_RC(WARDER_ENOTSUP, warder_backend_realpath(&real, f.b, p, strlen(p), NULL));
                ck_assert_ptr_null(real);
        }
        contract_end(&f, _i);
}
END_TEST

/* A TCase that runs every contract assertion once per target. `targets` must outlive the
 * run (a static array). */
CONTRACT_FN TCase *contract_tcase(const struct contract_target *targets, size_t n)
{
        contract_targets_ = targets;
        contract_ntargets_ = n;
        TCase *tc = tcase_create("contract");
        tcase_add_loop_test(tc, contract_write_then_read, 0, (int)n);
        tcase_add_loop_test(tc, contract_write_missing_parents, 0, (int)n);
        tcase_add_loop_test(tc, contract_read_offset_limit, 0, (int)n);
        tcase_add_loop_test(tc, contract_storage_errors, 0, (int)n);
        tcase_add_loop_test(tc, contract_ls_entries, 0, (int)n);
        tcase_add_loop_test(tc, contract_edit, 0, (int)n);
        tcase_add_loop_test(tc, contract_glob, 0, (int)n);
        tcase_add_loop_test(tc, contract_grep, 0, (int)n);
        tcase_add_loop_test(tc, contract_optional_operations, 0, (int)n);
        return tc;
}

#endif
