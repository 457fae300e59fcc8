/* SPDX-License-Identifier: MIT */
/*
 * Bypass attempts: ways an agent might read a denied file's content, or write a denied path,
 * through a guarded backend (§3, §4, §5, §6). Every attack is run against the real library —
 * the local backend on a real temporary tree (real symlinks, FIFOs, renames), or the memory
 * backend — and each has a control arm that shows the same fixture leaks without the guard
 * (plain open(2), the unguarded backend, or a permissive ruleset), so a broken fixture cannot
 * pass for a working defence.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support.h"
#include "warder/backend.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/memory.h"
#include "warder/path.h"
#include "warder/ruleset.h"

#define SECRET     "TOP-SECRET-a1b2c3"
#define SSH_SECRET "SSH-SECRET-d4e5f6"
#define OUT_SECRET "OUT-SECRET-778899"

static char W[256]; /* the workspace: the local backend's root and the ruleset's root */
static char O[256]; /* a directory outside it */

/* ---- fixture ------------------------------------------------------------------------- */

static const char *at(const char *base, const char *rel)
{
        static char buf[16][PATH_MAX];
        static int n;
        char *b = buf[n++ % 16];
        snprintf(b, PATH_MAX, "%s/%s", base, rel);
        return b;
}

static void put(const char *path, const char *content)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        ck_assert_msg(fd >= 0, "cannot create %s: %s", path, strerror(errno));
        ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
        close(fd);
}

static void lnk(const char *target, const char *path)
{
        ck_assert_msg(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));
}

static void mkd(const char *path)
{
        ck_assert_msg(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

/* What a program without warder reads (the control arm). */
static char *plain_read(const char *path)
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

/* The file's content without following a final symlink. */
static char *peek(const char *path)
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

static bool leaks(const char *data, size_t len)
{
        const char *secrets[] = {SECRET, SSH_SECRET, OUT_SECRET};
        for (size_t i = 0; data && i < sizeof(secrets) / sizeof(secrets[0]); i++)
                if (memmem(data, len, secrets[i], strlen(secrets[i])))
                        return true;
        return false;
}

static void rm_rf(const char *dir)
{
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
}

static void setup(void)
{
        strcpy(W, "/tmp/warder-bypass-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(W));
        strcpy(O, "/tmp/warder-bypass-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(O));
        put(at(W, ".env"), SECRET "\n");
        mkd(at(W, ".ssh"));
        put(at(W, ".ssh/id_rsa"), SSH_SECRET "\n");
        mkd(at(W, "src"));
        put(at(W, "src/ok.txt"), "public\n");
        put(at(O, "secret"), OUT_SECRET "\n");
}

static void teardown(void)
{
        rm_rf(W);
        rm_rf(O);
}

/* ---- subjects ------------------------------------------------------------------------ */

/* Every path operation: deny `.env` anywhere and everything under `.ssh`, allow the rest of
 * the workspace, deny everything else (the global default). */
static const char *secrets_yaml(void)
{
        static char y[4096];
        const char *ops[] = {"read", "write", "edit", "ls", "glob", "grep"};
        size_t n = (size_t)snprintf(y, sizeof(y), "warder: 1\ndefault: deny\n");
        for (size_t i = 0; i < 6; i++)
                n += (size_t)snprintf(y + n, sizeof(y) - n,
                                      "%s:\n"
                                      "  rules:\n"
                                      "    - deny: \"**/.env\"\n"
                                      "    - deny: \"**/.ssh/**\"\n"
                                      "    - allow: \"./**\"\n",
                                      ops[i]);
        return y;
}

static warder_ruleset *load(const char *yaml, const char *root, const char *home)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        ro.home = home;
        warder_ruleset *rs = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_ruleset_load_string(&rs, yaml, strlen(yaml), "bypass", &ro, &e);
        ck_assert_msg(rc == 0, "ruleset: %s", e.message);
        warder_error_clear(&e);
        return rs;
}

static warder_backend *local_at(const char *root, bool fallback)
{
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.force_fallback = fallback;
        warder_backend *b = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_local_new(&b, root, &lo, &e);
        ck_assert_msg(rc == 0, "local: %s", e.message);
        return b;
}

static warder_backend *guard_over(warder_backend *inner, const char *yaml, const char *root,
                                  const struct warder_guard_options *opts)
{
        warder_ruleset *rs = load(yaml, root, "/home/u");
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        if (opts)
                go = *opts;
        warder_backend *g = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_guard_new(&g, inner, rs, &go, &e);
        ck_assert_msg(rc == 0, "guard: %s", e.message);
        warder_ruleset_free(rs);
        return g;
}

/* The guard over the local backend on W (`_i & 1`: the O_NOFOLLOW walk instead of openat2). */
static warder_backend *guarded(int arm, const struct warder_guard_options *opts)
{
        return guard_over(local_at(W, arm & 1), secrets_yaml(), W, opts);
}

static int do_read(warder_backend *b, const char *path, size_t len, struct warder_bytes *out)
{
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_backend_read(b, path, len, 0, 0, 0, out, &e);
        ck_assert_msg(!leaks(e.message, strlen(e.message)), "error message leaked: %s", e.message);
        warder_error_clear(&e);
        return rc;
}

/* A read through `b` that must be refused and leak nothing. */
static __attribute__((unused)) int refused_read(warder_backend *b, const char *path)
{
        struct warder_bytes out = {NULL, 0, false};
        int rc = do_read(b, path, strlen(path), &out);
        ck_assert_msg(rc != 0, "read of '%s' succeeded: %s", path, out.data);
        ck_assert_msg(!leaks(out.data, out.len), "read of '%s' leaked", path);
        ck_assert_ptr_null(out.data);
        return rc;
}

/* ---- §4.2: a symlink swapped in between the decision and the open ----------------------- */

/*
 * The audit callback runs after the decision and before the guard forwards the request, so
 * a swap made there is exactly the check-then-use window, hit every time. The guard decided
 * `box/f` (a plain file in a plain directory); by the time the inner backend opens it, `box`
 * is a symlink to `.ssh`. §4.2: the local backend must open the forwarded real form without
 * following symlinks, so the open fails instead of reading the key.
 */
struct swap_on_audit {
        char a[PATH_MAX], b[PATH_MAX];
        int swaps;
        enum warder_op op;
};

static void swap_audit(void *ud, const struct warder_audit_event *ev)
{
        struct swap_on_audit *s = ud;
        if (ev->filtered || ev->request->op != s->op || ev->final_action != WARDER_ALLOW ||
            s->swaps)
                return;
        if (syscall(SYS_renameat2, AT_FDCWD, s->a, AT_FDCWD, s->b, 2 /* RENAME_EXCHANGE */) == 0)
                s->swaps++;
}

static void swap_fixture(struct swap_on_audit *s, enum warder_op op)
{
        mkd(at(W, "box"));
        put(at(W, "box/f"), "public\n");
        put(at(W, ".ssh/f"), SSH_SECRET "\n");
        lnk(".ssh", at(W, "lnk"));
        memset(s, 0, sizeof(*s));
        snprintf(s->a, sizeof(s->a), "%s/box", W);
        snprintf(s->b, sizeof(s->b), "%s/lnk", W);
        s->op = op;
}

START_TEST(test_swap_between_check_and_read)
{
        struct swap_on_audit s;
        swap_fixture(&s, WARDER_OP_READ);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.audit = swap_audit;
        go.audit_ud = &s;
        warder_backend *g = guarded(_i, &go);
        const char *p = at(W, "box/f");
        struct warder_bytes out = {NULL, 0, false};
        int rc = do_read(g, p, strlen(p), &out);
        ck_assert_int_eq(s.swaps, 1);
        /* control: after the swap the decided path leads to the key */
        ck_assert(leaks(plain_read(p), 64));
        ck_assert_msg(!leaks(out.data, out.len), "the swapped-in symlink was followed (rc %d)", rc);
        ck_assert_int_eq(rc, WARDER_ESYMLINK);
        warder_bytes_free(&out);
        warder_backend_free(g);
}
END_TEST

START_TEST(test_swap_between_check_and_write)
{
        struct swap_on_audit s;
        swap_fixture(&s, WARDER_OP_WRITE);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.audit = swap_audit;
        go.audit_ud = &s;
        warder_backend *g = guarded(_i, &go);
        const char *p = at(W, "box/f");
        int rc = warder_backend_write(g, p, strlen(p), "PWNED", 5, 0, NULL);
        ck_assert_int_eq(s.swaps, 1);
        ck_assert_str_eq(peek(at(W, ".ssh/f")), SSH_SECRET "\n");
        ck_assert_int_eq(rc, WARDER_ESYMLINK);
        /* control: a plain write through the decided path now lands in .ssh */
        int fd = open(p, O_WRONLY | O_TRUNC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "PWNED", 5), 5);
        close(fd);
        ck_assert_str_eq(peek(at(W, ".ssh/f")), "PWNED");
        warder_backend_free(g);
}
END_TEST

START_TEST(test_swap_between_check_and_edit)
{
        struct swap_on_audit s;
        swap_fixture(&s, WARDER_OP_EDIT);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.audit = swap_audit;
        go.audit_ud = &s;
        warder_backend *g = guarded(_i, &go);
        const char *p = at(W, "box/f");
        size_t n = 0;
        int rc = warder_backend_edit(g, p, strlen(p), "SSH", 3, "PWN", 3, 0, &n, NULL);
        ck_assert_int_eq(s.swaps, 1);
        ck_assert_str_eq(peek(at(W, ".ssh/f")), SSH_SECRET "\n");
        ck_assert_int_eq(rc, WARDER_ESYMLINK);
        ck_assert(leaks(plain_read(p), 64)); /* control */
        warder_backend_free(g);
}
END_TEST

START_TEST(test_swap_between_check_and_grep)
{
        struct swap_on_audit s;
        swap_fixture(&s, WARDER_OP_GREP);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.audit = swap_audit;
        go.audit_ud = &s;
        warder_backend *g = guarded(_i, &go);
        const char *p = at(W, "box/f");
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "SECRET";
        req.path = p;
        req.path_len = strlen(p);
        struct warder_grep_result r = {NULL, 0, 0, false};
        int rc = warder_backend_grep(g, &req, &r, NULL);
        ck_assert_int_eq(s.swaps, 1);
        for (size_t i = 0; rc == 0 && i < r.count; i++)
                ck_assert_msg(!leaks(r.items[i].text, r.items[i].text_len), "grep leaked %s",
                              r.items[i].path);
        warder_grep_result_free(&r);
        ck_assert(leaks(plain_read(p), 64)); /* control */
        warder_backend_free(g);
}
END_TEST

static Suite *suite(void)
{
        Suite *s = suite_create("bypass");
        TCase *tc = tcase_create("toctou");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_swap_between_check_and_read, 0, 2);
        tcase_add_loop_test(tc, test_swap_between_check_and_write, 0, 2);
        tcase_add_loop_test(tc, test_swap_between_check_and_edit, 0, 2);
        tcase_add_loop_test(tc, test_swap_between_check_and_grep, 0, 2);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
