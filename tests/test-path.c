/* SPDX-License-Identifier: MIT */
/* Path normalisation, the literal form (semantics §3.1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "support.h"
#include "util.h"
#include "warder/warder.h"

static char *norm(const char *root, const char *home, const char *cwd, const char *in, size_t len,
                  int *rc)
{
        char *out = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        *rc = warder_path_normalize(&out, NULL, root, home, cwd, in, len, &err);
        if (*rc)
                ck_assert_int_eq(err.code, *rc);
        warder_error_clear(&err);
        return out;
}

static const struct {
        const char *cwd, *input, *expect;
} table[] = {
    /* §3.1: relative joins the root (or the cwd) */
    {NULL, "src/main.c", "/ws/src/main.c"},
    {NULL, ".env", "/ws/.env"},
    {NULL, ".", "/ws"},
    {"/ws/sub", "x", "/ws/sub/x"},
    {"/ws/sub", "../.env", "/ws/.env"},
    /* absolute stays absolute */
    {NULL, "/etc/passwd", "/etc/passwd"},
    /* every run of / collapses, a leading // too */
    {NULL, "//etc/passwd", "/etc/passwd"},
    {NULL, "///etc///passwd", "/etc/passwd"},
    {NULL, "a//b", "/ws/a/b"},
    /* . vanishes */
    {NULL, "/./etc/passwd", "/etc/passwd"},
    {NULL, "./a/./b/.", "/ws/a/b"},
    /* .. pops lexically and stops at / */
    {NULL, "a/../.env", "/ws/.env"},
    {NULL, "/..", "/"},
    {NULL, "/../../etc", "/etc"},
    {NULL, "../../../../etc/passwd", "/etc/passwd"},
    {NULL, "a/b/../../..", "/"},
    /* a trailing / is dropped */
    {NULL, "/.env/", "/.env"},
    {NULL, "dir/", "/ws/dir"},
    {NULL, "/", "/"},
    {NULL, "//", "/"},
    /* ~ expands to home; ~user is a relative name */
    {NULL, "~", "/home/u"},
    {NULL, "~/", "/home/u"},
    {NULL, "~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
    {NULL, "~root/x", "/ws/~root/x"},
    {NULL, "a/~", "/ws/a/~"},
    /* dots that are names */
    {NULL, "...", "/ws/..."},
    {NULL, "..a", "/ws/..a"},
    {NULL, ".../..", "/ws"},
    /* bytes are bytes */
    {NULL, "a\nb", "/ws/a\nb"},
    {NULL, "trailing ", "/ws/trailing "},
};

START_TEST(table_cases)
{
        int rc;
        char *out =
            norm("/ws", "/home/u", table[_i].cwd, table[_i].input, strlen(table[_i].input), &rc);
        ck_assert_msg(rc == 0, "input '%s': rc %d", table[_i].input, rc);
        ck_assert_msg(strcmp(out, table[_i].expect) == 0, "input '%s': got '%s', want '%s'",
                      table[_i].input, out, table[_i].expect);
        warder_free(out);
}
END_TEST

START_TEST(root_and_home_are_normalised)
{
        int rc;
        char *out = norm("//ws/./a/../", "/home//u/", NULL, "x", 1, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(out, "/ws/x");
        warder_free(out);
        out = norm("/ws", "/home//u/", NULL, "~/x", 3, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(out, "/home/u/x");
        warder_free(out);
}
END_TEST

START_TEST(invalid_inputs)
{
        int rc;
        /* empty */
        ck_assert_ptr_null(norm("/ws", "/h", NULL, "", 0, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        /* an embedded NUL is EINVAL, never a truncation */
        ck_assert_ptr_null(norm("/ws", "/h", NULL, "/etc\0/x", 7, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        ck_assert_ptr_null(norm("/ws", "/h", NULL, "ok\0", 3, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        /* each refusal says what was wrong */
        static const struct {
                const char *in;
                size_t len;
                const char *why;
        } whys[] = {{"", 0, "empty target"}, {"a\0b", 3, "NUL"}, {"~/x", 3, "home"}};
        for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
                struct warder_error e = WARDER_ERROR_INIT;
                char *o = NULL;
                ck_assert_int_eq(
                    warder_path_normalize(&o, NULL, "/ws", NULL, NULL, whys[i].in, whys[i].len, &e),
                    WARDER_EINVAL);
                ck_assert_int_eq(e.code, WARDER_EINVAL);
                ck_assert_msg(strstr(e.message, whys[i].why), "'%s'", e.message);
                warder_error_clear(&e);
        }
        /* relative root, home or cwd */
        ck_assert_ptr_null(norm("ws", "/h", NULL, "x", 1, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        ck_assert_ptr_null(norm("/ws", "h", NULL, "x", 1, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        ck_assert_ptr_null(norm("/ws", "/h", "sub", "x", 1, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        /* ~ without a home, relative without a root */
        ck_assert_ptr_null(norm("/ws", NULL, NULL, "~/x", 3, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        ck_assert_ptr_null(norm(NULL, NULL, NULL, "x", 1, &rc));
        ck_assert_int_eq(rc, WARDER_EINVAL);
        /* but an absolute input needs neither */
        char *out = norm(NULL, NULL, NULL, "/a/../b", 7, &rc);
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(out, "/b");
        warder_free(out);
        /* outputs untouched on failure */
        char *sentinel = (char *)"untouched";
        char *p = sentinel;
        size_t len = 42;
        ck_assert_int_eq(warder_path_normalize(&p, &len, "/ws", NULL, NULL, "", 0, NULL),
                         WARDER_EINVAL);
        ck_assert_ptr_eq(p, sentinel);
        ck_assert_uint_eq(len, 42);
        ck_assert_int_eq(warder_path_normalize(NULL, NULL, "/ws", NULL, NULL, "x", 1, NULL),
                         WARDER_EINVAL);
        /* no input but a length; no output buffer (internal) */
        ck_assert_int_eq(warder_path_normalize(&p, &len, "/ws", NULL, NULL, NULL, 3, NULL),
                         WARDER_EINVAL);
        ck_assert_ptr_eq(p, sentinel);
        ck_assert_int_eq(warder__path_normalize_buf(NULL, "/ws", NULL, NULL, "x", 1, NULL),
                         WARDER_EINVAL);
}
END_TEST

/* §3.1 targets are length-delimited: nothing past the length is read, not even when the input
 * ends right before an unmapped page (a read there faults). */
START_TEST(never_reads_past_the_length)
{
        long page = sysconf(_SC_PAGESIZE);
        char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ck_assert_ptr_ne(map, MAP_FAILED);
        ck_assert_int_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
        static const char *const inputs[] = {"a//", "a/",    "//", "/", "/..", "a/.", "./",
                                             "~/",  "x/../", "..", ".", "a",   "~",   "/a/b/"};
        for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
                size_t n = strlen(inputs[i]);
                char *at_end = map + page - n;
                memcpy(at_end, inputs[i], n);
                char *want = NULL, *got = NULL;
                ck_assert_int_eq(
                    warder_path_normalize(&want, NULL, "/r", "/h", NULL, inputs[i], n, NULL), 0);
                ck_assert_int_eq(
                    warder_path_normalize(&got, NULL, "/r", "/h", NULL, at_end, n, NULL), 0);
                ck_assert_str_eq(got, want);
                warder_free(want);
                warder_free(got);
        }
        munmap(map, 2 * (size_t)page);
}
END_TEST

START_TEST(length_is_reported)
{
        char *out = NULL;
        size_t len = 0;
        ck_assert_int_eq(warder_path_normalize(&out, &len, "/ws", NULL, NULL, "abc/", 4, NULL), 0);
        ck_assert_str_eq(out, "/ws/abc");
        ck_assert_uint_eq(len, 7);
        warder_free(out);
}
END_TEST

/* xorshift: reproducible inputs without libc's rand() state. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return rng_state;
}

static void assert_properties(const char *in, size_t in_len, const char *out, size_t len)
{
        ck_assert_msg(out[0] == '/', "not absolute: '%s'", out);
        ck_assert_msg(strstr(out, "//") == NULL, "'//' in '%s'", out);
        ck_assert_msg(strstr(out, "/./") == NULL, "'/./' in '%s'", out);
        ck_assert_msg(strstr(out, "/../") == NULL, "'/../' in '%s'", out);
        ck_assert_msg(len == 1 || out[len - 1] != '/', "trailing '/' in '%s'", out);
        ck_assert_msg(!(len >= 2 && strcmp(out + len - 2, "/.") == 0), "ends in '/.': '%s'", out);
        ck_assert_msg(!(len >= 3 && strcmp(out + len - 3, "/..") == 0), "ends in '/..': '%s'", out);
        ck_assert_uint_eq(strlen(out), len);
        /* idempotent: normalising twice changes nothing */
        char *again = NULL;
        size_t again_len = 0;
        ck_assert_int_eq(
            warder_path_normalize(&again, &again_len, "/r", "/h", NULL, out, len, NULL), 0);
        ck_assert_msg(strcmp(again, out) == 0, "not idempotent: '%.*s' -> '%s' -> '%s'",
                      (int)in_len, in, out, again);
        warder_free(again);
}

START_TEST(generated_properties)
{
        static const char alphabet[] = {'/', '/', '/', '.', '.', '.', 'a', 'b', '~', ' ', '\n'};
        char in[40];
        for (int n = 0; n < 200000; n++) {
                size_t len = 1 + rng() % (sizeof(in) - 1);
                for (size_t i = 0; i < len; i++)
                        in[i] = alphabet[rng() % sizeof(alphabet)];
                char *out = NULL;
                size_t out_len = 0;
                ck_assert_int_eq(
                    warder_path_normalize(&out, &out_len, "/r/s", "/h", NULL, in, len, NULL), 0);
                assert_properties(in, len, out, out_len);
                /* never escapes above /: a relative input that keeps no `..` stays under root */
                if (in[0] != '/' && in[0] != '~' && memmem(in, len, "..", 2) == NULL)
                        ck_assert_msg(strncmp(out, "/r/s", 4) == 0, "escaped root: '%s'", out);
                warder_free(out);
        }
}
END_TEST

/* §3.1 the plain way: a stack of components, one byte at a time (the reference). */
static char *reference(const char *base, const char *in, size_t len)
{
        size_t cap = strlen(base) + len + 2;
        char *out = malloc(cap), *all = malloc(cap);
        snprintf(all, cap, "%s/%.*s", in[0] == '/' ? "" : base, (int)len, in);
        size_t n = 0, alen = strlen(all);
        for (size_t i = 0; i <= alen;) {
                size_t j = i;
                while (j < alen && all[j] != '/')
                        j++;
                size_t c = j - i;
                if (c == 2 && all[i] == '.' && all[i + 1] == '.') {
                        while (n > 0 && out[n - 1] != '/')
                                n--;
                        if (n > 0)
                                n--;
                } else if (c > 0 && !(c == 1 && all[i] == '.')) {
                        out[n++] = '/';
                        for (size_t k = i; k < j; k++)
                                out[n++] = all[k];
                }
                i = j + 1;
        }
        if (n == 0)
                out[n++] = '/';
        out[n] = '\0';
        free(all);
        return out;
}

START_TEST(generated_against_reference)
{
        /* long inputs too: the sixteen-byte scan and its tail, dots next to separators */
        static const char *const pieces[] = {"/",
                                             "/",
                                             "//",
                                             ".",
                                             "..",
                                             "a",
                                             "bc",
                                             ".env",
                                             "..x",
                                             "x..",
                                             "/./",
                                             "/../",
                                             "0123456789abcdef",
                                             "..."};
        struct warder__buf in = WARDER__BUF_INIT;
        for (int n = 0; n < 60000; n++) {
                warder__buf_truncate(&in, 0);
                size_t count = 1 + rng() % (n % 10 == 0 ? 400 : 24);
                for (size_t i = 0; i < count; i++)
                        warder__buf_puts(&in, pieces[rng() % WARDER__ARRAY_SIZE(pieces)]);
                char *out = NULL;
                size_t out_len = 0;
                ck_assert_int_eq(warder_path_normalize(&out, &out_len, "/r/s", "/h", NULL, in.data,
                                                       in.len, NULL),
                                 0);
                char *want = reference("/r/s", in.data, in.len);
                ck_assert_msg(strcmp(out, want) == 0, "'%s': '%s', reference '%s'", in.data, out,
                              want);
                ck_assert_uint_eq(out_len, strlen(want));
                free(want);
                warder_free(out);
        }
        warder__buf_free(&in);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("path");
        TCase *tc = tcase_create("normalise");
        tcase_add_loop_test(tc, table_cases, 0, (int)(sizeof(table) / sizeof(table[0])));
        tcase_add_test(tc, root_and_home_are_normalised);
        tcase_add_test(tc, invalid_inputs);
        tcase_add_test(tc, never_reads_past_the_length);
        tcase_add_test(tc, length_is_reported);
        tcase_add_test(tc, generated_properties);
        tcase_add_test(tc, generated_against_reference);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
