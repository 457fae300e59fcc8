/* SPDX-License-Identifier: MIT */
/* The in-memory backend (§6.1). The behaviour every backend shares is in test-contract.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"
#include "warder/memory.h"
#include "warder/sys/backend.h"

#define S(lit) lit, sizeof(lit) - 1

static warder_backend *mem_new(void)
{
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_memory_new(&b, NULL), 0);
        ck_assert_ptr_nonnull(b);
        return b;
}

static void put(warder_backend *b, const char *path, const char *text)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_backend_write(b, path, strlen(path), text, strlen(text), 0, &err);
        ck_assert_msg(rc == 0, "write %s: %s", path, err.message);
}

static int read_rc(warder_backend *b, const char *path, struct warder_bytes *out)
{
        return warder_backend_read(out, b, path, strlen(path), 0, 0, 0, NULL);
}

START_TEST(root_exists_and_is_empty)
{
        warder_backend *b = mem_new();
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/"), 0, NULL), 0);
        ck_assert_uint_eq(e.count, 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(read_rc(b, "/", &out), WARDER_EISDIR);
        ck_assert_int_eq(warder_backend_write(b, S("/"), "x", 1, 0, NULL), WARDER_EISDIR);
        ck_assert_int_eq(warder_memory_mkdir(b, "/", strlen("/"), NULL), 0);
        warder_backend_free(b);
}
END_TEST

START_TEST(write_creates_parents_and_ls_describes_entries)
{
        warder_backend *b = mem_new();
        time_t before = time(NULL);
        put(b, "/ws/src/deep/er/main.c", "int main;\n");
        put(b, "/ws/b.txt", "bb");
        put(b, "/ws/a.txt", "a");
        struct warder_entries e = WARDER_ENTRIES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/ws"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 3);
        /* sorted by name, absolute paths, types and sizes */
        ck_assert_str_eq(e.items[0].name, "a.txt");
        ck_assert_str_eq(e.items[0].path, "/ws/a.txt");
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_FILE);
        ck_assert_uint_eq(e.items[0].size, 1);
        ck_assert_str_eq(e.items[1].name, "b.txt");
        ck_assert_uint_eq(e.items[1].size, 2);
        ck_assert_str_eq(e.items[2].name, "src");
        ck_assert_str_eq(e.items[2].path, "/ws/src");
        ck_assert_int_eq(e.items[2].type, WARDER_ENTRY_DIR);
        ck_assert_uint_eq(e.items[2].size, 0);
        for (size_t i = 0; i < e.count; i++)
                ck_assert_int_ge(e.items[i].mtime, (int64_t)before);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/ws/src/deep/er"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, "/ws/src/deep/er/main.c");
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].path, "/ws");
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

START_TEST(file_and_directory_errors)
{
        warder_backend *b = mem_new();
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_bytes out = WARDER_BYTES_INIT;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        put(b, "/d/f", "x");
        /* a parent that is a file */
        ck_assert_int_eq(warder_backend_write(b, S("/d/f/g"), "y", 1, 0, &err), WARDER_ENOTDIR);
        ck_assert_int_eq(err.code, WARDER_ENOTDIR);
        ck_assert_int_eq(read_rc(b, "/d/f/g", &out), WARDER_ENOTDIR);
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/d/f/g"), 0, &err), WARDER_ENOTDIR);
        /* ls of a file, read and write of a directory */
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/d/f"), 0, &err), WARDER_ENOTDIR);
        ck_assert_int_eq(read_rc(b, "/d", &out), WARDER_EISDIR);
        ck_assert_int_eq(warder_backend_write(b, S("/d"), "y", 1, 0, &err), WARDER_EISDIR);
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/d"), S("x"), S("y"), 0, &err),
                         WARDER_EISDIR);
        /* missing */
        ck_assert_int_eq(read_rc(b, "/nope", &out), WARDER_ENOENT);
        ck_assert_int_eq(read_rc(b, "/nope/deeper", &out), WARDER_ENOENT);
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/nope"), 0, &err), WARDER_ENOENT);
        ck_assert_int_eq(warder_backend_edit(NULL, b, S("/nope"), S("x"), S("y"), 0, &err),
                         WARDER_ENOENT);
        ck_assert_ptr_null(out.data);
        ck_assert_ptr_null(e.items);
        /* the failed write under a file created nothing */
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/d"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 1);
        warder_entries_free(&e);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(read_offset_and_limit)
{
        warder_backend *b = mem_new();
        put(b, "/f", "0123456789");
        static const struct {
                uint64_t offset, limit;
                const char *expect;
                bool truncated;
        } cases[] = {
            {0, 0, "0123456789", false}, {0, 4, "0123", true},
            {3, 0, "3456789", false},    {3, 4, "3456", true},
            {6, 4, "6789", false},       {8, 100, "89", false},
            {10, 0, "", false},          {11, 0, "", false},
            {UINT64_MAX, 1, "", false},  {0, UINT64_MAX, "0123456789", false},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_int_eq(
                    warder_backend_read(&out, b, S("/f"), cases[i].offset, cases[i].limit, 0, NULL),
                    0);
                ck_assert_msg(out.len == strlen(cases[i].expect) &&
                                  !memcmp(out.data, cases[i].expect, out.len),
                              "case %zu: got '%s'", i, out.data);
                ck_assert_int_eq(out.data[out.len], '\0');
                ck_assert_int_eq(out.truncated, cases[i].truncated);
                warder_bytes_free(&out);
        }
        warder_backend_free(b);
}
END_TEST

START_TEST(paths_are_normalised_in_its_own_namespace)
{
        warder_backend *b = mem_new();
        put(b, "/a/b/c.txt", "c");
        const char *spellings[] = {"/a/b/c.txt",      "//a//b/c.txt", "/a/./b/c.txt",
                                   "/a/x/../b/c.txt", "a/b/c.txt",    "/../../a/b/c.txt",
                                   "/a/b/c.txt/",     "/a/b/c.txt/."};
        for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_msg(read_rc(b, spellings[i], &out) == 0, "%s", spellings[i]);
                ck_assert_str_eq(out.data, "c");
                warder_bytes_free(&out);
        }
        /* the control: a different name is not found */
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(read_rc(b, "/a/b/C.txt", &out), WARDER_ENOENT);
        warder_backend_free(b);
}
END_TEST

START_TEST(binary_and_empty_content)
{
        warder_backend *b = mem_new();
        char data[4096];
        for (size_t i = 0; i < sizeof(data); i++)
                data[i] = (char)(i * 7);
        ck_assert_int_eq(warder_backend_write(b, S("/bin"), data, sizeof(data), 0, NULL), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(read_rc(b, "/bin", &out), 0);
        ck_assert_uint_eq(out.len, sizeof(data));
        ck_assert_int_eq(memcmp(out.data, data, sizeof(data)), 0);
        warder_bytes_free(&out);
        ck_assert_int_eq(warder_backend_write(b, S("/bin"), NULL, 0, 0, NULL), 0);
        ck_assert_int_eq(read_rc(b, "/bin", &out), 0);
        ck_assert_uint_eq(out.len, 0);
        ck_assert_str_eq(out.data, "");
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

START_TEST(mkdir_helper)
{
        warder_backend *b = mem_new();
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_memory_mkdir(b, "/x/y/z", strlen("/x/y/z"), &err), 0);
        ck_assert_int_eq(warder_memory_mkdir(b, "/x/y/z", strlen("/x/y/z"), &err),
                         0); /* exists: fine */
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/x/y/z"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 0);
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/x/y"), 0, &err), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_DIR);
        warder_entries_free(&e);
        put(b, "/x/f", "1");
        ck_assert_int_eq(warder_memory_mkdir(b, "/x/f", strlen("/x/f"), &err), WARDER_EEXIST);
        ck_assert_int_eq(warder_memory_mkdir(b, "/x/f/g", strlen("/x/f/g"), &err), WARDER_ENOTDIR);
        ck_assert_int_eq(warder_memory_mkdir(b, "", strlen(""), &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_memory_mkdir(b, NULL, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_memory_mkdir(NULL, "/a", strlen("/a"), &err), WARDER_EINVAL);
        /* only on a memory backend */
        struct warder_backend not_memory = {NULL, 0};
        ck_assert_int_eq(warder_memory_mkdir(&not_memory, "/a", strlen("/a"), &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_memory_new(NULL, &err), WARDER_EINVAL);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

START_TEST(no_execute_no_symlinks_no_realpath)
{
        warder_backend *b = mem_new();
        ck_assert(!warder_backend_can_execute(b));
        ck_assert(!warder_backend_can_realpath(b));
        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
        xr.command = "true";
        xr.command_len = 4;
        struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
        ck_assert_int_eq(warder_backend_execute(&xo, b, &xr, NULL), WARDER_ENOTSUP);
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, b, S("/"), NULL), WARDER_ENOTSUP);
        /* every entry is a file or a directory */
        put(b, "/d/f", "x");
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/"), 0, NULL), 0);
        ck_assert_int_eq(e.items[0].type, WARDER_ENTRY_DIR);
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

START_TEST(edit_and_search)
{
        warder_backend *b = mem_new();
        struct warder_error err = WARDER_ERROR_INIT;
        put(b, "/p/a.py", "import os\nprint(os.environ)\n");
        put(b, "/p/sub/b.py", "import sys\n");
        size_t n = 0;
        ck_assert_int_eq(warder_backend_edit(&n, b, S("/p/a.py"), S("os"), S("OS"), 0, &err),
                         WARDER_EAMBIGUOUS);
        ck_assert_int_eq(
            warder_backend_edit(&n, b, S("/p/a.py"), S("os"), S("OS"), WARDER_EDIT_ALL, &err), 0);
        ck_assert_uint_eq(n, 2);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(read_rc(b, "/p/a.py", &out), 0);
        ck_assert_str_eq(out.data, "import OS\nprint(OS.environ)\n");
        warder_bytes_free(&out);
        struct warder_grep_request r = WARDER_GREP_REQUEST_INIT;
        r.pattern = "^import";
        r.pattern_len = strlen(r.pattern);
        r.path = "/p";
        r.path_len = 2;
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&g, b, &r, &err), 0);
        ck_assert_uint_eq(g.count, 2);
        ck_assert_str_eq(g.items[0].path, "/p/a.py");
        ck_assert_str_eq(g.items[1].path, "/p/sub/b.py");
        ck_assert_str_eq(g.items[1].text, "import sys");
        warder_grep_result_free(&g);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int rc = warder_backend_glob(&e, b, "**/*.py", strlen("**/*.py"), S("/p"), 0, &err);
        ck_assert_msg(rc == 0, "%s", err.message);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        warder_error_clear(&err);
        warder_backend_free(b);
}
END_TEST

/* Concurrency: edits are atomic (no lost update), reads never see torn data. */
#define THREADS 4
#define ROUNDS  300

static void *edit_worker(void *arg)
{
        warder_backend *b = arg;
        for (int i = 0; i < ROUNDS; i++) {
                if (warder_backend_edit(NULL, b, S("/counter"), S("END"), S("xEND"), 0, NULL))
                        return (void *)1;
                char path[64];
                snprintf(path, sizeof(path), "/t/%lx/%d", (unsigned long)pthread_self(), i % 7);
                if (warder_backend_write(b, path, strlen(path), "abcdef", 6, 0, NULL))
                        return (void *)1;
                struct warder_bytes out = WARDER_BYTES_INIT;
                if (warder_backend_read(&out, b, S("/fixed"), 0, 0, 0, NULL) ||
                    strcmp(out.data, "constant"))
                        return (void *)1;
                warder_bytes_free(&out);
                struct warder_entries e = WARDER_ENTRIES_INIT;
                if (warder_backend_ls(&e, b, S("/t"), 0, NULL))
                        return (void *)1;
                warder_entries_free(&e);
        }
        return NULL;
}

START_TEST(concurrent_use)
{
        warder_backend *b = mem_new();
        put(b, "/counter", "END");
        put(b, "/fixed", "constant");
        warder_memory_mkdir(b, "/t", strlen("/t"), NULL);
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++)
                ck_assert_int_eq(pthread_create(&t[i], NULL, edit_worker, b), 0);
        for (int i = 0; i < THREADS; i++) {
                void *res = NULL;
                pthread_join(t[i], &res);
                ck_assert_ptr_null(res);
        }
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(read_rc(b, "/counter", &out), 0);
        ck_assert_uint_eq(out.len, THREADS * ROUNDS + 3);
        warder_bytes_free(&out);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, S("/t"), 0, NULL), 0);
        ck_assert_uint_eq(e.count, THREADS);
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

static Suite *memory_suite(void)
{
        Suite *s = suite_create("memory");
        TCase *tc = tcase_create("memory");
        tcase_add_test(tc, root_exists_and_is_empty);
        tcase_add_test(tc, write_creates_parents_and_ls_describes_entries);
        tcase_add_test(tc, file_and_directory_errors);
        tcase_add_test(tc, read_offset_and_limit);
        tcase_add_test(tc, paths_are_normalised_in_its_own_namespace);
        tcase_add_test(tc, binary_and_empty_content);
        tcase_add_test(tc, mkdir_helper);
        tcase_add_test(tc, no_execute_no_symlinks_no_realpath);
        tcase_add_test(tc, edit_and_search);
        tcase_add_test(tc, concurrent_use);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(memory_suite());
}
