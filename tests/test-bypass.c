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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mock-backend.h"
#include "fs-fixture.h"
#include "support.h"
#include "util.h"
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

static bool leaks(const char *data, size_t len)
{
        static const char *const secrets[] = {SECRET, SSH_SECRET, OUT_SECRET, NULL};
        return holds_any(data, len, secrets);
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
        int rc = warder_backend_read(out, b, path, len, 0, 0, 0, &e);
        ck_assert_msg(!leaks(e.message, strlen(e.message)), "error message leaked: %s", e.message);
        warder_error_clear(&e);
        return rc;
}

/* A read through `b` that must be refused and leak nothing. */
static __attribute__((unused)) int refused_read(warder_backend *b, const char *path)
{
        struct warder_bytes out = WARDER_BYTES_INIT;
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
        struct warder_bytes out = WARDER_BYTES_INIT;
        int rc = do_read(g, p, strlen(p), &out);
        ck_assert_int_eq(s.swaps, 1);
        /* control: after the swap the decided path leads to the key */
        ck_assert(leaks(plain_read(p), 64));
        ck_assert_msg(!leaks(out.data, out.len), "the swapped-in symlink was followed (rc %d)", rc);
        /* refused either way: the open of the decided form meets the symlink (ESYMLINK), or,
         * for a literal form read first, the long way then decides the new real form (deny) */
        ck_assert_msg(rc == WARDER_ESYMLINK || rc == WARDER_EDENIED, "rc %d", rc);
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
        int rc = warder_backend_edit(&n, g, p, strlen(p), "SSH", 3, "PWN", 3, 0, NULL);
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
        req.pattern_len = strlen(req.pattern);
        req.path = p;
        req.path_len = strlen(p);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        int rc = warder_backend_grep(&r, g, &req, NULL);
        ck_assert_int_eq(s.swaps, 1);
        for (size_t i = 0; rc == 0 && i < r.count; i++)
                ck_assert_msg(!leaks(r.items[i].text, r.items[i].text_len), "grep leaked %s",
                              r.items[i].path);
        warder_grep_result_free(&r);
        ck_assert(leaks(plain_read(p), 64)); /* control */
        warder_backend_free(g);
}
END_TEST

/* ---- §4.3–§4.7: the guard's own answers on denied targets -------------------------------- */

static int grep_at(warder_backend *b, const char *base, const char *pattern, const char *glob,
                   struct warder_grep_result *r)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(req.pattern);
        req.path = base;
        req.path_len = strlen(base);
        req.glob = glob;
        req.glob_len = req.glob ? strlen(req.glob) : 0;
        *r = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        return warder_backend_grep(r, b, &req, NULL);
}

static bool grep_leaks(const struct warder_grep_result *r)
{
        for (size_t i = 0; i < r->count; i++)
                if (leaks(r->items[i].text, r->items[i].text_len))
                        return true;
        return false;
}

/* Every spelling of a denied file, read through the guard: refused, and the unguarded
 * backend reads the same spelling (control). */
START_TEST(test_spellings_of_a_denied_file)
{
        lnk("../.env", at(W, "src/innocent.txt"));
        lnk("../.ssh", at(W, "src/keys"));
        char longp[8192];
        size_t n = (size_t)snprintf(longp, sizeof(longp), "%s/", W);
        while (n < 5000)
                n += (size_t)snprintf(longp + n, sizeof(longp) - n, "src/../");
        snprintf(longp + n, sizeof(longp) - n, ".env");
        char up[PATH_MAX], uprel[PATH_MAX];
        snprintf(up, sizeof(up), "%s/../%s/.env", W, strrchr(W, '/') + 1);
        snprintf(uprel, sizeof(uprel), "../%s/.env", strrchr(W, '/') + 1);
        const char *forms[] = {
            at(W, ".env"),
            at(W, "./.env"),
            at(W, "src/../.env"),
            at(W, "src//..//.env"),
            at(W, ".env/"),
            at(W, ".env/."),
            at(W, "/.env"),
            at(W, "src/innocent.txt"),
            at(W, "src/keys/id_rsa"),
            at(W, "src/keys/../keys/id_rsa"),
            up,
            longp,
            ".env",
            "./.env",
            "src/../.env",
            uprel,
            "src/innocent.txt",
            "src/keys/id_rsa",
        };
        warder_backend *plain = local_at(W, _i & 1);
        warder_backend *g = guarded(_i, NULL);
        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
                const char *f = forms[i];
                /* control: the same spelling, made absolute the way the guard does, reads the
                 * secret from the unguarded backend */
                char *abs = NULL;
                ck_assert_int_eq(
                    warder_path_normalize(&abs, NULL, W, NULL, NULL, f, strlen(f), NULL), 0);
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_int_eq(warder_backend_read(&out, plain, abs, strlen(abs), 0, 0, 0, NULL),
                                 0);
                ck_assert_msg(leaks(out.data, out.len), "control: %s", f);
                warder_bytes_free(&out);
                warder_free(abs);
                ck_assert_int_eq(refused_read(g, f), WARDER_EDENIED);
                /* write and edit are refused too and change nothing */
                ck_assert_int_eq(warder_backend_write(g, f, strlen(f), "x", 1, 0, NULL),
                                 WARDER_EDENIED);
                size_t cnt = 0;
                ck_assert_int_eq(
                    warder_backend_edit(&cnt, g, f, strlen(f), "SECRET", 6, "PWNED!", 6, 0, NULL),
                    WARDER_EDENIED);
                /* with an offset and a limit */
                ck_assert_int_eq(warder_backend_read(&out, g, f, strlen(f), 4, 3, 0, NULL),
                                 WARDER_EDENIED);
                /* WARDER_APPROVED satisfies ask, never deny (§4.4) */
                ck_assert_int_eq(
                    warder_backend_read(&out, g, f, strlen(f), 0, 0, WARDER_APPROVED, NULL),
                    WARDER_EDENIED);
                ck_assert_int_eq(
                    warder_backend_write(g, f, strlen(f), "x", 1, WARDER_APPROVED, NULL),
                    WARDER_EDENIED);
        }
        ck_assert_str_eq(peek(at(W, ".env")), SECRET "\n");
        ck_assert_str_eq(peek(at(W, ".ssh/id_rsa")), SSH_SECRET "\n");
        /* an embedded NUL never truncates to an allowed prefix (§3.1) */
        const char nul[] = "src/ok.txt\0/../../.env";
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(do_read(g, nul, sizeof(nul) - 1, &out), WARDER_EINVAL);
        ck_assert_int_eq(do_read(g, "", 0, &out), WARDER_EINVAL);
        ck_assert_int_eq(do_read(g, "src/ok.txt", strlen("src/ok.txt"), &out), 0); /* not blanket */
        ck_assert_str_eq(out.data, "public\n");
        warder_bytes_free(&out);
        warder_backend_free(g);
        warder_backend_free(plain);
}
END_TEST

/* grep: the denied file as the base, as a glob filter, through a symlink to it, through a
 * symlinked directory, and in a directory walk (§4.7). */
START_TEST(test_grep_around_a_denied_file)
{
        lnk("../.env", at(W, "src/innocent.txt"));
        lnk("../.ssh", at(W, "src/keys"));
        lnk(".ssh", at(W, "keys2"));
        warder_backend *plain = local_at(W, _i & 1);
        warder_backend *g = guarded(_i, NULL);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        /* control: the unguarded backend finds the secrets */
        ck_assert_int_eq(grep_at(plain, W, "SECRET", NULL, &r), 0);
        ck_assert(grep_leaks(&r));
        warder_grep_result_free(&r);
        ck_assert_int_eq(grep_at(plain, at(W, ".env"), "SECRET", NULL, &r), 0);
        ck_assert(grep_leaks(&r));
        warder_grep_result_free(&r);
        ck_assert_int_eq(grep_at(plain, at(W, "src/innocent.txt"), "SECRET", NULL, &r), 0);
        ck_assert(grep_leaks(&r));
        warder_grep_result_free(&r);
        ck_assert_int_eq(grep_at(plain, at(W, "keys2"), "SECRET", NULL, &r), 0);
        ck_assert(grep_leaks(&r));
        warder_grep_result_free(&r);

        /* the base itself */
        const char *bases[] = {at(W, ".env"),  at(W, "src/innocent.txt"), at(W, ".ssh"),
                               at(W, "keys2"), at(W, "src/keys"),         at(W, "src/../.env")};
        for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
                int rc = grep_at(g, bases[i], "SECRET", NULL, &r);
                ck_assert_msg(rc == WARDER_EDENIED, "grep base %s: %d", bases[i], rc);
                warder_grep_result_free(&r);
        }
        /* a walk from the root with filters that name the secret */
        const char *filters[] = {NULL,        ".env",   "*",     "**",  "**/.env",
                                 "**/id_rsa", ".ssh/*", "**/.*", "*env"};
        for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
                ck_assert_int_eq(grep_at(g, W, "SECRET|public", filters[i], &r), 0);
                ck_assert_msg(!grep_leaks(&r), "grep filter %s leaked", filters[i]);
                warder_grep_result_free(&r);
                ck_assert_int_eq(grep_at(plain, W, "SECRET|public", filters[i], &r), 0);
                if (i == 1 || i == 4 || i == 8) /* these name .env, which the walk finds */
                        ck_assert_msg(grep_leaks(&r), "control for filter %s", filters[i]);
                warder_grep_result_free(&r);
        }
        warder_grep_result_free(&r);
        /* caseless and regex spellings of the secret do not matter */
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "(?i)top-secret.*";
        req.pattern_len = strlen(req.pattern);
        req.path = W;
        req.path_len = strlen(W);
        req.flags = WARDER_GREP_CASELESS | WARDER_APPROVED;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert(!grep_leaks(&r));
        ck_assert_uint_ge(r.hidden_files, 1);
        warder_grep_result_free(&r);
        warder_backend_free(g);
        warder_backend_free(plain);
}
END_TEST

static bool has_entry(const struct warder_entries *e, const char *name)
{
        for (size_t i = 0; i < e->count; i++)
                if (strcmp(e->items[i].name, name) == 0)
                        return true;
        return false;
}

static bool any_path_has(const struct warder_entries *e, const char *needle)
{
        for (size_t i = 0; i < e->count; i++)
                if (strstr(e->items[i].path, needle))
                        return true;
        return false;
}

/* ls and glob: names of denied entries are dropped when the ls/glob rules deny them (§4.6). */
START_TEST(test_names_of_denied_entries)
{
        lnk(".ssh", at(W, "keys"));
        mkd(at(W, ".ssh/sub"));
        put(at(W, ".ssh/sub/deep"), SSH_SECRET);
        warder_backend *plain = local_at(W, _i & 1);
        warder_backend *g = guarded(_i, NULL);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* control */
        ck_assert_int_eq(warder_backend_ls(&e, plain, W, strlen(W), 0, NULL), 0);
        ck_assert(has_entry(&e, ".env") && has_entry(&e, ".ssh"));
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_glob(&e, plain, "**", strlen("**"), W, strlen(W), 0, NULL),
                         0);
        ck_assert(any_path_has(&e, "id_rsa") && any_path_has(&e, ".env"));
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, plain, "keys/*", strlen("keys/*"), W, strlen(W), 0, NULL), 0);
        warder_entries_free(&e);

        ck_assert_int_eq(warder_backend_ls(&e, g, W, strlen(W), 0, NULL), 0);
        ck_assert(!has_entry(&e, ".env"));
        ck_assert(has_entry(&e, "src"));
        ck_assert_uint_ge(e.hidden, 2);
        warder_entries_free(&e);
        const char *denied_dirs[] = {at(W, ".ssh"), at(W, "keys"), at(W, ".ssh/sub"),
                                     at(W, "keys/sub"), at(W, "src/../.ssh")};
        for (size_t i = 0; i < sizeof(denied_dirs) / sizeof(denied_dirs[0]); i++) {
                int rc = warder_backend_ls(&e, g, denied_dirs[i], strlen(denied_dirs[i]), 0, NULL);
                ck_assert_msg(rc == WARDER_EDENIED, "ls %s: %d", denied_dirs[i], rc);
                rc = warder_backend_glob(&e, g, "*", strlen("*"), denied_dirs[i],
                                         strlen(denied_dirs[i]), 0, NULL);
                ck_assert_msg(rc == WARDER_EDENIED, "glob in %s: %d", denied_dirs[i], rc);
        }
        const char *patterns[] = {
            "**",     "*",          ".*",        "**/.env",   ".ssh/*",
            "keys/*", "keys/sub/*", "**/id_rsa", "**/*",      "{.env,.ssh/id_rsa}",
            "*/*",    "*/*/*",      "./.env",    "../*/.env", "/**"};
        for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
                int rc = warder_backend_glob(&e, g, patterns[i], strlen(patterns[i]), W, strlen(W),
                                             0, NULL);
                if (rc == 0) {
                        ck_assert_msg(!any_path_has(&e, ".env") && !any_path_has(&e, ".ssh") &&
                                          !any_path_has(&e, "id_rsa") && !any_path_has(&e, "deep"),
                                      "glob %s showed a denied name", patterns[i]);
                        warder_entries_free(&e);
                }
        }
        warder_backend_free(g);
        warder_backend_free(plain);
}
END_TEST

/* Writes that try to land on a denied file or outside the root through a link (§4.2, §6.2). */
START_TEST(test_writes_through_links)
{
        lnk("../.env", at(W, "src/innocent.txt"));
        lnk(at(O, "secret"), at(W, "src/out.txt"));
        lnk(O, at(W, "odir"));
        lnk(".ssh/authorized_keys", at(W, "dangling"));
        warder_backend *g = guarded(_i, NULL);
        const char *targets[] = {at(W, "src/innocent.txt"), at(W, "src/out.txt"),
                                 at(W, "odir/secret"), at(W, "odir/new"), at(W, "dangling")};
        for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
                int rc =
                    warder_backend_write(g, targets[i], strlen(targets[i]), "PWNED", 5, 0, NULL);
                ck_assert_msg(rc != 0, "write through %s succeeded", targets[i]);
                size_t cnt = 0;
                rc = warder_backend_edit(&cnt, g, targets[i], strlen(targets[i]), "SECRET", 6,
                                         "PWNED!", 6, 0, NULL);
                ck_assert_msg(rc != 0, "edit through %s succeeded", targets[i]);
        }
        ck_assert_str_eq(peek(at(W, ".env")), SECRET "\n");
        ck_assert_str_eq(peek(at(O, "secret")), OUT_SECRET "\n");
        ck_assert_int_eq(access(at(O, "new"), F_OK), -1);
        ck_assert_int_eq(access(at(W, ".ssh/authorized_keys"), F_OK), -1);
        /* the dangling link's target appears later: still denied, still not followed */
        put(at(W, ".ssh/authorized_keys"), SSH_SECRET "\n");
        ck_assert(leaks(plain_read(at(W, "dangling")), 64)); /* control */
        ck_assert_int_eq(refused_read(g, at(W, "dangling")), WARDER_EDENIED);
        ck_assert_int_eq(
            warder_backend_write(g, at(W, "dangling"), strlen(at(W, "dangling")), "x", 1, 0, NULL),
            WARDER_EDENIED);
        ck_assert_str_eq(peek(at(W, ".ssh/authorized_keys")), SSH_SECRET "\n");
        warder_backend_free(g);
}
END_TEST

/* fold_case (§2.12): with it, every case spelling of a denied name is denied; without it the
 * spellings are other files (documented) — the control shows they are distinct. */
START_TEST(test_case_spellings)
{
        put(at(W, ".ENV"), SECRET "\n");
        put(at(W, ".Env"), SECRET "\n");
        mkd(at(W, ".SSH"));
        put(at(W, ".SSH/id_rsa"), SSH_SECRET "\n");
        const char *yaml = "warder: 1\n"
                           "default: deny\n"
                           "fold_case: true\n"
                           "read:\n"
                           "  rules:\n"
                           "    - deny: \"**/.env\"\n"
                           "    - deny: \"**/.ssh/**\"\n"
                           "    - allow: \"./**\"\n"
                           "grep:\n"
                           "  rules:\n"
                           "    - allow: \"./**\"\n";
        warder_backend *g = guard_over(local_at(W, _i & 1), yaml, W, NULL);
        const char *forms[] = {".env", ".ENV", ".Env", ".SSH/id_rsa", "src/../.ENV"};
        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
                ck_assert(leaks(plain_read(at(W, forms[i])), 64));
                ck_assert_int_eq(refused_read(g, forms[i]), WARDER_EDENIED);
        }
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(grep_at(g, W, "SECRET", NULL, &r), 0);
        ck_assert(!grep_leaks(&r));
        ck_assert_uint_eq(r.hidden_files, 5);
        warder_grep_result_free(&r);
        warder_backend_free(g);
        /* control: without fold_case, `.ENV` is another name and the rule does not cover it */
        char nofold[1024];
        const char *t = strstr(yaml, "fold_case: true\n");
        ck_assert_ptr_nonnull(t);
        snprintf(nofold, sizeof(nofold), "%.*sfold_case: false\n%s", (int)(t - yaml), yaml,
                 t + strlen("fold_case: true\n"));
        g = guard_over(local_at(W, _i & 1), nofold, W, NULL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(do_read(g, ".ENV", 4, &out), 0);
        ck_assert(leaks(out.data, out.len));
        warder_bytes_free(&out);
        ck_assert_int_eq(refused_read(g, ".env"), WARDER_EDENIED);
        warder_backend_free(g);
}
END_TEST

/* Stacked guards: the stricter answer wins whichever layer is permissive (§4.1). */
START_TEST(test_stacked_guards)
{
        const char *permissive = "warder: 1\ndefault: allow\n";
        lnk("../.env", at(W, "src/innocent.txt"));
        /* control: the permissive guard alone reads the secret */
        warder_backend *p = guard_over(local_at(W, _i & 1), permissive, W, NULL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(do_read(p, ".env", 4, &out), 0);
        ck_assert(leaks(out.data, out.len));
        warder_bytes_free(&out);
        warder_backend_free(p);
        /* strict inside, permissive outside */
        warder_backend *inner = guarded(_i, NULL);
        warder_backend *outer = guard_over(inner, permissive, W, NULL);
        ck_assert_int_eq(refused_read(outer, ".env"), WARDER_EDENIED);
        ck_assert_int_eq(refused_read(outer, "src/innocent.txt"), WARDER_EDENIED);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(grep_at(outer, W, "SECRET", NULL, &r), 0);
        ck_assert(!grep_leaks(&r));
        warder_grep_result_free(&r);
        warder_backend_free(outer);
        /* permissive inside, strict outside */
        inner = guard_over(local_at(W, _i & 1), permissive, W, NULL);
        outer = guard_over(inner, secrets_yaml(), W, NULL);
        ck_assert_int_eq(refused_read(outer, ".env"), WARDER_EDENIED);
        ck_assert_int_eq(refused_read(outer, "src/innocent.txt"), WARDER_EDENIED);
        ck_assert_int_eq(grep_at(outer, W, "SECRET", NULL, &r), 0);
        ck_assert(!grep_leaks(&r));
        warder_grep_result_free(&r);
        warder_backend_free(outer);
}
END_TEST

/* An approval callback is never asked about a deny, and a "yes" cannot turn one into allow. */
static int approvals;
static bool approve_all(void *ud, const struct warder_guard_request *req,
                        const struct warder_decision *d)
{
        (void)ud;
        (void)req;
        (void)d;
        approvals++;
        return true;
}

/* The audit callback sees paths and decisions, never content. */
static bool audit_saw_secret;
static void audit_scan(void *ud, const struct warder_audit_event *ev)
{
        (void)ud;
        const struct warder_guard_request *q = ev->request;
        const char *s[] = {q->target,
                           q->literal,
                           q->real,
                           ev->decision->pattern,
                           ev->decision->reason,
                           ev->decision->segment,
                           ev->decision->candidate,
                           ev->decision->note};
        for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
                if (s[i] && leaks(s[i], strlen(s[i])))
                        audit_saw_secret = true;
}

START_TEST(test_approval_and_audit)
{
        const char *yaml = "warder: 1\n"
                           "default: ask\n"
                           "read:\n"
                           "  rules:\n"
                           "    - deny: \"**/.env\"\n"
                           "    - allow: \"./src/**\"\n"
                           "grep:\n"
                           "  default: allow\n";
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.approve = approve_all;
        go.audit = audit_scan;
        approvals = 0;
        audit_saw_secret = false;
        warder_backend *g = guard_over(local_at(W, _i & 1), yaml, W, &go);
        ck_assert_int_eq(refused_read(g, ".env"), WARDER_EDENIED);
        ck_assert_int_eq(approvals, 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        put(at(W, "notes.txt"), "notes\n");
        ck_assert_int_eq(do_read(g, "notes.txt", 9, &out), 0); /* ask → approved */
        ck_assert_int_eq(approvals, 1);
        warder_bytes_free(&out);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(grep_at(g, W, "SECRET|public", NULL, &r), 0);
        ck_assert(!grep_leaks(&r)); /* read: ask on .ssh/id_rsa drops it too (§4.7) */
        ck_assert_uint_eq(r.count, 1);
        warder_grep_result_free(&r);
        ck_assert(!audit_saw_secret);
        warder_backend_free(g);
}
END_TEST

/* ---- §6.2: the local backend's own confinement ------------------------------------------- */

/*
 * glob's walk starts below the pattern's literal leading directories. Those must be opened
 * like every other path — beneath the root, never through a symlink — or a pattern such as
 * `odir/sub/\*` lists a directory outside the root (or `keys/sub/\*` one the rules deny) by
 * following the link `odir`.
 */
START_TEST(test_glob_prefix_through_a_link)
{
        mkd(at(O, "sub"));
        put(at(O, "sub/outside-name-" OUT_SECRET), "x");
        mkd(at(W, ".ssh/sub"));
        put(at(W, ".ssh/sub/inside-name"), "x");
        lnk(O, at(W, "odir"));
        lnk(".ssh", at(W, "keys"));
        /* control: through the links the names are there */
        ck_assert_int_eq(access(at(W, "odir/sub/outside-name-" OUT_SECRET), F_OK), 0);
        ck_assert_int_eq(access(at(W, "keys/sub/inside-name"), F_OK), 0);
        for (int follow = 0; follow < 2; follow++) {
                struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
                lo.force_fallback = _i & 1;
                lo.follow_symlinks = follow;
                warder_backend *b = NULL;
                ck_assert_int_eq(warder_local_new(&b, W, &lo, NULL), 0);
                const char *pats[] = {"odir/sub/*", "odir/sub/**", "odir/*/*", "keys/sub/*"};
                for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
                        struct warder_entries e = WARDER_ENTRIES_INIT;
                        int rc = warder_backend_glob(&e, b, pats[i], strlen(pats[i]), W, strlen(W),
                                                     0, NULL);
                        ck_assert_msg(rc != 0 || (!any_path_has(&e, "outside-name") &&
                                                  (follow || !any_path_has(&e, "inside-name"))),
                                      "glob %s (follow %d) listed through a symlink: %s", pats[i],
                                      follow, e.count ? e.items[0].path : "");
                        warder_entries_free(&e);
                }
                warder_backend_free(b);
        }
        /* and through the guard: no name of the denied or outside directory */
        warder_backend *g = guarded(_i, NULL);
        const char *pats[] = {"odir/sub/*", "keys/sub/*"};
        for (size_t i = 0; i < 2; i++) {
                struct warder_entries e = WARDER_ENTRIES_INIT;
                if (warder_backend_glob(&e, g, pats[i], strlen(pats[i]), W, strlen(W), 0, NULL) ==
                    0) {
                        ck_assert(!any_path_has(&e, "outside-name"));
                        ck_assert(!any_path_has(&e, "inside-name"));
                }
                warder_entries_free(&e);
        }
        warder_backend_free(g);
}
END_TEST

/* ---- §1.8, §2.11, §2.13: rulesets that look right but would not deny ---------------------- */

/*
 * Each document is what an author might write meaning "deny reading .env"; a slip makes it
 * mean less. Each must either fail to load, or deny `.env` anyway — never load and allow.
 * The control: the same loader and check allow `.env` under `default: allow` alone, and the
 * intended document denies it.
 */
static const char *const slips[] = {
    /* a duplicate key: the second `read` would replace the first */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\nread:\n  default: "
    "allow\n",
    /* YAML 1.1 booleans are strings in 1.2: `fold_case: yes` must not load as false */
    "warder: 1\ndefault: allow\nfold_case: yes\nread:\n  rules:\n    - deny: \"**/.ENV\"\n",
    "warder: 1\ndefault: allow\nfold_case: 'true'\nread:\n  rules:\n    - deny: \"**/.ENV\"\n",
    "warder: 1\ndefault: allow\nfold_case: 1\nread:\n  rules:\n    - deny: \"**/.ENV\"\n",
    /* two actions in one rule */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\n      allow: \"**\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - allow: \"**/x\"\n      deny: \"**/.env\"\n",
    /* duplicate action key in one rule */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/x\"\n      deny: \"**/.env\"\n",
    /* misspellings */
    "warder: 1\ndefault: allow\nreads:\n  rules:\n    - deny: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nRead:\n  rules:\n    - deny: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rule:\n    - deny: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - denny: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - Deny: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\n      reasn: x\n",
    /* a default that is not an action name */
    "warder: 1\ndefault: Deny\n",
    "warder: 1\ndefault: \"deny \"\n",
    "warder: 1\ndefault: no\n",
    "warder: 1\ndefault: false\n",
    "warder: 1\ndefault: ~\n",
    "warder: 1\ndefault: [deny]\n",
    "warder: 1\ndefault: allow\nread:\n  default: \"\"\n  rules:\n    - deny: \"**/.env\"\n",
    /* patterns that are not strings, or null, or empty */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: ~\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny:\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: [\"**/.env\"]\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: {a: b}\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: true\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: 123\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: 0x1F\n",
    "warder: 1\ndefault: allow\nread:\n  rules: ~\n",
    "warder: 1\ndefault: allow\nread:\n  rules: \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - \"**/.env\"\n",
    "warder: 1\ndefault: allow\nread: ~\n",
    "warder: 1\ndefault: allow\nread:\n",
    /* patterns that can never match a normalised target (§2.11) */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"!**/.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**//.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/./.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"src/../.env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"{,**/.env}\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env[\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env{\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env}\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/[[:alfa:]]env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/[z-a]env\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\\\\\"\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"~root/.env\"\n",
    /* an explicit id of the generated form */
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\n      id: \"read:1\"\n",
    /* an alias that is recursive, an alias to nothing, a merge key */
    "warder: 1\ndefault: allow\nread: &r\n  rules:\n    - deny: *r\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: *nothing\n",
    "warder: 1\ndefault: allow\nread:\n  rules:\n    - <<: {deny: \"**/x\"}\n",
    /* a second document */
    "warder: 1\ndefault: allow\n---\nwarder: 1\nread:\n  rules:\n    - deny: \"**/.env\"\n",
    /* a precedence or version the loader does not know */
    "warder: 1\ndefault: allow\nprecedence: strict\nread:\n  rules:\n    - allow: \"**\"\n    - "
    "deny: "
    "\"**/.env\"\n",
    "warder: 2\ndefault: allow\n",
    "default: allow\n",
    /* an unknown operation block or key at the top */
    "warder: 1\ndefault: allow\ncat:\n  default: deny\n",
    "warder: 1\ndefault: allow\nrules:\n  - deny: \"**/.env\"\n",
};

/* Loads `yaml` and decides `read` on W/.env; returns -1 when the document does not load. */
static int read_action(const char *yaml, size_t len, const struct warder_ruleset_options *opts)
{
        warder_ruleset *rs = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        if (opts)
                ro = *opts;
        ro.root = W;
        if (warder_ruleset_load_string(&rs, yaml, len, "slip", &ro, &e) != 0) {
                warder_error_clear(&e);
                return -1;
        }
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, at(W, ".env"),
                                              strlen(at(W, ".env")), NULL, 0, NULL),
                         0);
        int a = (int)d.action;
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        return a;
}

START_TEST(test_ruleset_slips)
{
        const char *y = slips[_i];
        /* control: the loader and the check do allow under a plain `default: allow`, and the
         * intended rule denies */
        const char *allow = "warder: 1\ndefault: allow\n";
        ck_assert_int_eq(read_action(allow, strlen(allow), NULL), WARDER_ALLOW);
        const char *meant = "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\n";
        ck_assert_int_eq(read_action(meant, strlen(meant), NULL), WARDER_DENY);
        int a = read_action(y, strlen(y), NULL);
        ck_assert_msg(a == -1 || a == WARDER_DENY, "slip %d loaded and decides %s on .env:\n%s", _i,
                      warder_action_name((enum warder_action)a), y);
}
END_TEST

/* A limit is a load error, never a truncation that drops the deny (§1.8, §2.13). */
START_TEST(test_ruleset_limits)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        /* the deny comes last, after many allows that do not cover .env */
        char *y = malloc(1 << 20);
        size_t n = (size_t)snprintf(y, 1 << 20, "warder: 1\ndefault: allow\nread:\n  rules:\n");
        for (int i = 0; i < 50; i++)
                n += (size_t)snprintf(y + n, (1 << 20) - n, "    - allow: \"**/f%d\"\n", i);
        n += (size_t)snprintf(y + n, (1 << 20) - n, "    - deny: \"**/.env\"\n");
        ck_assert_int_eq(read_action(y, n, NULL), WARDER_DENY); /* control */
        ro.max_rules = 10;
        ck_assert_int_eq(read_action(y, n, &ro), -1);
        ro = (struct warder_ruleset_options)WARDER_RULESET_OPTIONS_INIT;
        ro.max_nodes = 40;
        ck_assert_int_eq(read_action(y, n, &ro), -1);
        ro = (struct warder_ruleset_options)WARDER_RULESET_OPTIONS_INIT;
        ro.max_file_size = n - 1;
        ck_assert_int_eq(read_action(y, n, &ro), -1);
        /* a pattern over the length limit */
        n = (size_t)snprintf(y, 1 << 20,
                             "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"");
        for (int i = 0; i < 5000; i++)
                y[n++] = 'a';
        n += (size_t)snprintf(y + n, (1 << 20) - n, "{,**/.env}\"\n");
        ck_assert_int_eq(read_action(y, n, NULL), -1);
        /* too many brace expansions */
        n = (size_t)snprintf(y, 1 << 20,
                             "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"");
        for (int i = 0; i < 9; i++)
                n += (size_t)snprintf(y + n, (1 << 20) - n, "{a,b}");
        n += (size_t)snprintf(y + n, (1 << 20) - n, "{x,**/.env}\"\n");
        ck_assert_int_eq(read_action(y, n, NULL), -1);
        /* a deeply nested document */
        n = (size_t)snprintf(y, 1 << 20, "warder: 1\ndefault: allow\nx: ");
        for (int i = 0; i < 100; i++)
                y[n++] = '[';
        for (int i = 0; i < 100; i++)
                y[n++] = ']';
        y[n++] = '\n';
        ck_assert_int_eq(read_action(y, n, NULL), -1);
        /* a NUL inside the document */
        const char nul[] =
            "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.e\0nv\"\n";
        ck_assert_int_ne(read_action(nul, sizeof(nul) - 1, NULL), WARDER_ALLOW);
        free(y);
}
END_TEST

/* ---- §2.11: root and home are escaped before they are spliced into patterns ------------------ */

static int decide_in(const char *yaml, const char *root, const char *home, enum warder_op op,
                     const char *target)
{
        warder_ruleset *rs = load(yaml, root, home);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&d, rs, op, target, strlen(target), NULL, 0, NULL),
                         0);
        int a = (int)d.action;
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        return a;
}

/*
 * A workspace whose name holds glob syntax. If root or home were spliced in unescaped, a
 * rule anchored there would match nothing (or something else) and the deny would be lost.
 */
START_TEST(test_root_with_glob_syntax)
{
        static const char *const odd[] = {"/tmp/ws[ab]",  "/tmp/ws*",   "/tmp/w?s",
                                          "/tmp/ws{x,y}", "/tmp/ws\\",  "/tmp/ws]",
                                          "/tmp/[!a]",    "/tmp/ws\\*", "/tmp/**"};
        const char *yaml = "warder: 1\n"
                           "default: allow\n"
                           "read:\n"
                           "  rules:\n"
                           "    - deny: \"./.env\"\n"
                           "    - deny: \"*.pem\"\n"
                           "    - deny: \"keys/**\"\n"
                           "    - deny: \"~/.ssh/**\"\n"
                           "    - deny: \"build/\"\n";
        const char *plain = "warder: 1\ndefault: allow\n";
        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
                const char *r = odd[i];
                char home[64];
                snprintf(home, sizeof(home), "%s/home", r);
                const char *targets[] = {".env", "a/b/c.pem", "keys/k", "~/.ssh/id_rsa",
                                         "build/x/y"};
                for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
                        /* control: without the rules, the same target is allowed */
                        ck_assert_int_eq(decide_in(plain, r, home, WARDER_OP_READ, targets[t]),
                                         WARDER_ALLOW);
                        ck_assert_msg(decide_in(yaml, r, home, WARDER_OP_READ, targets[t]) ==
                                          WARDER_DENY,
                                      "root '%s': %s not denied", r, targets[t]);
                }
                /* and the escaping does not widen: the same names under a sibling are not
                 * covered by the anchored rules */
                ck_assert_int_eq(decide_in(yaml, r, home, WARDER_OP_READ, "/tmp/wsa/.env"),
                                 WARDER_ALLOW);
        }
}
END_TEST

/* ---- §6.1 and the library fallbacks: the same attacks on a memory tree --------------------- */

static void mem_put(warder_backend *m, const char *path, const char *content)
{
        ck_assert_int_eq(
            warder_backend_write(m, path, strlen(path), content, strlen(content), 0, NULL), 0);
}

/* `_i`: 0 the memory backend's own glob/grep/edit, 1 the library fallbacks over its
 * read/write/ls (a host backend with only the required methods). */
START_TEST(test_memory_and_fallbacks)
{
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        mem_put(mem, "/ws/.env", SECRET "\n");
        mem_put(mem, "/ws/.ssh/id_rsa", SSH_SECRET "\n");
        mem_put(mem, "/ws/src/ok.txt", "public\n");
        mem_put(mem, "/ws/src/.env", SECRET "\n");
        warder_backend *inner = mem;
        if (_i)
                ck_assert_int_eq(mock_backend_new(&inner, mem, MOCK_STORAGE_ONLY), 0);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        /* control: unguarded, the secrets are there to read and to find */
        ck_assert_int_eq(grep_at(inner, "/ws", "SECRET", NULL, &r), 0);
        ck_assert(grep_leaks(&r));
        warder_grep_result_free(&r);
        warder_backend *g = guard_over(inner, secrets_yaml(), "/ws", NULL);
        const char *forms[] = {"/ws/.env",  ".env",       "src/../.env", "/ws//src/./.env",
                               "/ws/.env/", "../ws/.env", ".ssh/id_rsa", "/ws/.ssh/x/../id_rsa"};
        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
                ck_assert_int_eq(refused_read(g, forms[i]), WARDER_EDENIED);
                ck_assert_int_eq(
                    warder_backend_write(g, forms[i], strlen(forms[i]), "x", 1, 0, NULL),
                    WARDER_EDENIED);
                size_t n = 0;
                ck_assert_int_eq(warder_backend_edit(&n, g, forms[i], strlen(forms[i]), "SECRET", 6,
                                                     "PWNED!", 6, 0, NULL),
                                 WARDER_EDENIED);
        }
        const char *filters[] = {NULL, ".env", "**", "**/.env", ".ssh/*", "*"};
        for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
                ck_assert_int_eq(grep_at(g, "/ws", "SECRET|public", filters[i], &r), 0);
                ck_assert_msg(!grep_leaks(&r), "grep filter %s leaked", filters[i]);
                warder_grep_result_free(&r);
        }
        ck_assert_int_eq(grep_at(g, "/ws/src/.env", "SECRET", NULL, &r), WARDER_EDENIED);
        ck_assert_int_eq(grep_at(g, "/", "SECRET", NULL, &r), WARDER_EDENIED); /* outside */
        struct warder_entries e = WARDER_ENTRIES_INIT;
        const char *pats[] = {"**", "**/.env", "*", ".*", "/ws/**", "**/*"};
        for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
                ck_assert_int_eq(
                    warder_backend_glob(&e, g, pats[i], strlen(pats[i]), "/ws", 3, 0, NULL), 0);
                ck_assert_msg(!any_path_has(&e, ".env") && !any_path_has(&e, ".ssh"), "glob %s",
                              pats[i]);
                warder_entries_free(&e);
        }
        ck_assert_int_eq(warder_backend_ls(&e, g, "/ws/.ssh", 8, 0, NULL), WARDER_EDENIED);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, mem, "/ws/.env", 8, 0, 0, 0, NULL), 0);
        ck_assert_str_eq(out.data, SECRET "\n"); /* unchanged */
        warder_bytes_free(&out);
        warder_backend_free(g);
}
END_TEST

/* §4.10: a ruleset swapped while other threads read never lets a request see a mix (here:
 * every ruleset denies .env, by a rule or by its default, so every read is refused). */
struct swap_readers {
        warder_backend *g;
        atomic_bool stop;
        atomic_uint leaked, reads;
};

static void *swap_reader(void *arg)
{
        struct swap_readers *s = arg;
        while (!atomic_load(&s->stop)) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                int rc = warder_backend_read(&out, s->g, ".env", 4, 0, 0, 0, NULL);
                if (rc == 0 || leaks(out.data, out.len))
                        atomic_fetch_add(&s->leaked, 1);
                warder_bytes_free(&out);
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                if (grep_at(s->g, W, "SECRET", NULL, &r) == 0 && grep_leaks(&r))
                        atomic_fetch_add(&s->leaked, 1);
                warder_grep_result_free(&r);
                atomic_fetch_add(&s->reads, 1);
        }
        return NULL;
}

START_TEST(test_ruleset_swap_under_threads)
{
        const char *by_default = "warder: 1\ndefault: deny\nread:\n  rules:\n    - allow: "
                                 "\"./src/**\"\ngrep:\n  default: allow\n";
        const char *permissive = "warder: 1\ndefault: allow\n";
        warder_ruleset *a = load(secrets_yaml(), W, NULL);
        warder_ruleset *b = load(by_default, W, NULL);
        warder_ruleset *p = load(permissive, W, NULL);
        struct swap_readers s;
        s.g = guarded(0, NULL);
        /* control: the permissive ruleset would let the read through */
        ck_assert_int_eq(warder_guard_set_ruleset(s.g, p), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(do_read(s.g, ".env", 4, &out), 0);
        ck_assert(leaks(out.data, out.len));
        warder_bytes_free(&out);
        ck_assert_int_eq(warder_guard_set_ruleset(s.g, a), 0);
        atomic_init(&s.stop, false);
        atomic_init(&s.leaked, 0);
        atomic_init(&s.reads, 0);
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
                ck_assert_int_eq(pthread_create(&t[i], NULL, swap_reader, &s), 0);
        for (int i = 0; i < 2000 || atomic_load(&s.reads) < 300; i++) {
                ck_assert_int_eq(warder_guard_set_ruleset(s.g, (i & 1) ? a : b), 0);
                if (i > 200000)
                        break;
        }
        atomic_store(&s.stop, true);
        for (int i = 0; i < 3; i++)
                pthread_join(t[i], NULL);
        ck_assert_uint_eq(atomic_load(&s.leaked), 0);
        ck_assert_uint_gt(atomic_load(&s.reads), 0);
        warder_backend_free(s.g);
        warder_ruleset_free(a);
        warder_ruleset_free(b);
        warder_ruleset_free(p);
}
END_TEST

/* ---- §5: command lines that read or write a denied file ----------------------------------- */

/* Runs `sh -c cmd` in W (the control arm: what the command does without warder); stdout and
 * stderr are returned (static buffer), "" when nothing came. */
static const char *run_sh(const char *shell, const char *cmd)
{
        static char buf[1 << 16];
        int fds[2];
        buf[0] = '\0';
        ck_assert_int_eq(pipe(fds), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                dup2(fds[1], 1);
                dup2(fds[1], 2);
                close(fds[0]);
                if (chdir(W) != 0)
                        _exit(126);
                alarm(5);
                char home[300];
                snprintf(home, sizeof(home), "HOME=%s", W);
                static char safe[] = "SAFE=src/ok.txt", path[] = "PATH=/usr/bin:/bin",
                            empty[] = "EMPTY=";
                char *envp[] = {home, safe, path, empty, NULL};
                execle(shell, shell, "-c", cmd, (char *)NULL, envp);
                _exit(127);
        }
        close(fds[1]);
        size_t n = 0;
        ssize_t r;
        while (n < sizeof(buf) - 1 && (r = read(fds[0], buf + n, sizeof(buf) - 1 - n)) > 0)
                n += (size_t)r;
        buf[n] = '\0';
        close(fds[0]);
        int st;
        waitpid(pid, &st, 0);
        return buf;
}

/* The execute rules allow everything; read and write deny `.env` anywhere, `.ssh` and an
 * anchored `./secret.txt`, and allow the rest of the workspace. With `reads_only`, writes are
 * allowed everywhere and only reads are denied. */
static warder_backend *command_guard_with(bool reads_only)
{
        char y[4096];
        size_t n = (size_t)snprintf(y, sizeof(y),
                                    "warder: 1\ndefault: deny\nexecute:\n"
                                    "  default: allow\n");
        if (reads_only)
                n += (size_t)snprintf(y + n, sizeof(y) - n, "write:\n  default: allow\n");
        const char *ops[] = {"read", "write"};
        for (size_t i = 0; i < (reads_only ? 1u : 2u); i++)
                n += (size_t)snprintf(y + n, sizeof(y) - n,
                                      "%s:\n  rules:\n"
                                      "    - deny: \"**/.env\"\n"
                                      "    - deny: \"**/.ssh/**\"\n"
                                      "    - deny: \"./secret.txt\"\n"
                                      "    - deny: \"./vault/key\"\n"
                                      "    - allow: \"./**\"\n"
                                      "    - allow: \"/dev/null\"\n",
                                      ops[i]);
        char home[300];
        snprintf(home, sizeof(home), "HOME=%s", W);
        const char *env[] = {home, "SAFE=src/ok.txt", "PATH=/usr/bin:/bin", "EMPTY=", NULL};
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.env = env;
        go.home = W;
        warder_ruleset *rs = load(y, W, W);
        warder_backend *g = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_msg(warder_guard_new(&g, local_at(W, false), rs, &go, &e) == 0, "%s", e.message);
        warder_ruleset_free(rs);
        return g;
}

static warder_backend *command_guard(void)
{
        return command_guard_with(false);
}

static enum warder_action command_action(warder_backend *g, const char *cmd, size_t len)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_guard_check(&d, g, WARDER_OP_EXECUTE, cmd, len, &e);
        ck_assert_msg(rc == 0, "check '%s': %s", cmd, e.message);
        enum warder_action a = d.action;
        warder_decision_clear(&d);
        return a;
}

static void command_fixture(void)
{
        put(at(W, "secret.txt"), OUT_SECRET "\n");
        lnk("../.env", at(W, "src/innocent.txt"));
        mkd(at(W, ".ssh/sub"));
        lnk(".ssh/sub", at(W, "up"));
        /* vault/key is denied by an anchored rule, vault/pub is not; `pub` leads into it */
        mkd(at(W, "vault"));
        mkd(at(W, "vault/pub"));
        mkd(at(W, "vault/pub/sub"));
        put(at(W, "vault/key"), OUT_SECRET "\n");
        lnk("vault/pub", at(W, "pub"));
}

/* Each reads a denied file when /bin/sh (or bash, for the `bash -c` ones) runs it in W. */
/* An attack and the answer the rules give: deny where a rule denies a path the inspection
 * sees, exactly, so a deny weakened to ask fails as surely as an allow; ask where what the
 * shell will do cannot be seen (§5.5-§5.7), or deny (the bracket globs `.[e]nv` turn deny
 * once bracket expressions expand through the backend, §5.5 revised). */
struct attack {
        const char *cmd;
        enum warder_action want;
};

static bool answers(enum warder_action got, enum warder_action want)
{
        return got == want || (want == WARDER_ASK && got == WARDER_DENY);
}

static const struct attack read_attacks[] = {
    {"cat .env", WARDER_DENY},
    {"cat ./.env", WARDER_DENY},
    {"cat src/../.env", WARDER_DENY},
    {"cat .e''nv", WARDER_DENY},
    {"cat .e\"\"nv", WARDER_DENY},
    {"cat .e\\nv", WARDER_DENY},
    {"cat '.env'", WARDER_DENY},
    {"cat .en?", WARDER_DENY},
    {"cat .[e]nv", WARDER_ASK},
    {"cat .*env", WARDER_DENY},
    {"cat .e*", WARDER_DENY},
    {"cat < .env", WARDER_DENY},
    {"cat<.env", WARDER_DENY},
    {"< .env cat", WARDER_DENY},
    {"cat 0<.env", WARDER_DENY},
    {"cat <> .env", WARDER_DENY},
    {"cat src/innocent.txt", WARDER_DENY},
    {"cat secret.txt", WARDER_DENY},
    {"cat ./secret.txt", WARDER_DENY},
    {"cat s*t.txt", WARDER_DENY},
    {"cat /proc/self/cwd/secret.txt", WARDER_DENY},
    {"cd .ssh && cat id_rsa", WARDER_DENY},
    {"cd .ssh; cat *", WARDER_DENY},
    {"cd src; cd ..; cat .env", WARDER_DENY},
    {"cd src && cat ../.env", WARDER_DENY},
    {"cd src && cat ../secret.txt", WARDER_DENY},
    {"cd; cat .env", WARDER_DENY},
    {"cd ~ && cat secret.txt", WARDER_DENY},
    {"cd \"$HOME\" && cat secret.txt", WARDER_DENY},
    {"cd /; cd \"$OLDPWD\"; cat secret.txt", WARDER_DENY},
    {"cd src; cd -; cat secret.txt", WARDER_DENY},
    {"sh -c 'cat .env'", WARDER_DENY},
    {"sh -c \"sh -c 'cat .env'\"", WARDER_DENY},
    {"sh -c 'cd src; cat ../secret.txt'", WARDER_DENY},
    {"eval cat .env", WARDER_DENY},
    {"eval 'cat .env'", WARDER_DENY},
    {"eval \"cat .e\"\"nv\"", WARDER_DENY},
    {"x=.env; cat $x", WARDER_DENY},
    {"x=.env && cat \"$x\"", WARDER_DENY},
    {"export x=secret.txt; cat \"$x\"", WARDER_DENY},
    {"SAFE=.env; cat $SAFE", WARDER_DENY},
    {"cat ${x:-.env}", WARDER_ASK},
    {"cat ${SAFE%ok.txt}../.env", WARDER_ASK},
    {"cat ${SAFE%/*}/../secret.txt", WARDER_ASK},
    {"cat $(echo .env)", WARDER_ASK},
    {"cat `echo .env`", WARDER_ASK},
    {"cat \"$(printf .env)\"", WARDER_ASK},
    {"echo .env | xargs cat", WARDER_ASK},
    {"cat .e\\\nnv", WARDER_DENY},
    {"c\\\nat .env", WARDER_DENY},
    {"cat <<EOF\n$(cat .env)\nEOF", WARDER_ASK},
    {"cat <<'EOF'\nx\nEOF\ncat .env", WARDER_DENY},
    {"{ cat .env; }", WARDER_DENY},
    {"(cat .env)", WARDER_DENY},
    {"true && cat .env", WARDER_DENY},
    {"false || cat .env", WARDER_DENY},
    {"true | cat .env", WARDER_DENY},
    {"cat .env &", WARDER_DENY},
    {"cat\t.env", WARDER_DENY},
    {"cat${IFS}.env", WARDER_ASK},
    {"command cat .env", WARDER_DENY},
    {"env cat .env", WARDER_DENY},
    {"env -i cat .env", WARDER_DENY},
    {"nice -n 1 cat .env", WARDER_DENY},
    {"exec cat .env", WARDER_DENY},
    {"timeout 5 cat .env", WARDER_DENY},
    {"cat -- .env", WARDER_DENY},
    {"head -c 100 .env", WARDER_DENY},
    {"dd if=.env status=none", WARDER_DENY},
    {"sed -n p .env", WARDER_DENY},
    {"awk 1 .env", WARDER_DENY},
    {"cat ~/.env", WARDER_DENY},
    {"cat $HOME/secret.txt", WARDER_DENY},
    {"cat \"$HOME\"/secret.txt", WARDER_DENY},
    {"cat $PWD/secret.txt", WARDER_ASK},
    {"cat ${PWD}/.env", WARDER_ASK},
    {"cd src; cat $OLDPWD/secret.txt", WARDER_ASK},
    {"cat $(pwd)/secret.txt", WARDER_ASK},
    {"for f in .env; do cat $f; done", WARDER_DENY},
    {"for f in .e*; do cat \"$f\"; done", WARDER_DENY},
    {"f() { cat .env; }; f", WARDER_DENY},
    {"alias c='cat .env'\nc", WARDER_DENY},
    {"read x <<EOF\n.env\nEOF\ncat $x", WARDER_ASK},
    {"case x in x) cat .env;; esac", WARDER_DENY},
    {"if true; then cat .env; fi", WARDER_DENY},
    {"while true; do cat .env; break; done", WARDER_DENY},
    {"! cat .env", WARDER_DENY},
    {"time cat .env", WARDER_DENY},
    {"cat .env 2>&1", WARDER_DENY},
    {"cat .env >&2", WARDER_DENY},
    {"cat .env 1>&2 2>/dev/null", WARDER_DENY},
    {"exec 3<.env; cat <&3", WARDER_DENY},
    {"exec 3< .env && cat 0<&3", WARDER_DENY},
    {"bash -c 'cat .{env,x}'", WARDER_ASK},
    {"bash -c 'cat .e{n,}v'", WARDER_ASK},
    {"bash -c \"cat \\$'\\\\x2eenv'\"", WARDER_DENY},
    {"bash -c 'pushd src; popd; cat secret.txt'", WARDER_DENY},
    {"cd src; f() { cat secret.txt; }; cd ..; f", WARDER_DENY},
    {"cd src && f() { cat secret.txt; } && cd .. && f", WARDER_DENY},
    {"cat up/../id_rsa", WARDER_DENY},
    {"cd up && cat ../id_rsa", WARDER_DENY},
    {"cat pub/../key", WARDER_DENY},
    {"cd pub && cat ../key", WARDER_DENY},
    {"cd pub; cat ../key", WARDER_DENY},
    {"cd pub && cd sub && cat ../../key", WARDER_DENY},
    {"cat \"$(readlink -f up)/../id_rsa\"", WARDER_DENY},
    {"bash -c 'cat <(cat .env)'", WARDER_DENY},
    {"bash -c 'cat .env'", WARDER_DENY},
    {"bash -c 'x=.env; cat $x'", WARDER_DENY},
    {"bash -c 'cat <<< \"$(cat .env)\"'", WARDER_DENY},
    {"echo 'cat .env' | sh", WARDER_ASK},
    {"sh < /dev/null -c 'cat .env'", WARDER_DENY},
    {"sh -s <<EOF\ncat .env\nEOF", WARDER_ASK},
    {"echo cat .env | bash", WARDER_ASK},
    {"unset SAFE; cat ${SAFE:-.env}", WARDER_ASK},
    {"SAFE=; cat ${SAFE:-.env}", WARDER_ASK},
    {"read SAFE <<EOF\n.env\nEOF\ncat $SAFE", WARDER_ASK},
    {"for SAFE in .env; do cat $SAFE; done", WARDER_DENY},
    {"export SAFE=.env; cat $SAFE", WARDER_DENY},
    {"set -- .env; cat $1", WARDER_DENY},
    {"SAFE=.env sh -c 'cat $SAFE'", WARDER_DENY},
    {"env SAFE=.env sh -c 'cat \"$SAFE\"'", WARDER_DENY},
    {"export SAFE=.env; sh -c 'cat $SAFE'", WARDER_DENY},
    {"HOME=.ssh; cat ~/id_rsa", WARDER_DENY},
    {"HOME=$PWD/.ssh; cd; cat id_rsa", WARDER_ASK},
    {"IFS=/; x=cat/.env; $x", WARDER_DENY},
    {"cat .?nv", WARDER_DENY},
    {"cat .[d-f]nv", WARDER_ASK},
    {"cat .[!x]nv", WARDER_ASK},
    {"cat .[[:alpha:]]nv", WARDER_ASK},
    {"cat .ss?/id_rsa", WARDER_DENY},
    {"cat .*/id_rsa", WARDER_DENY},
    {"cat */../.env", WARDER_DENY},
    {"cat <<EOF; cat .env\nx\nEOF", WARDER_DENY},
    {"cat <<A <<B\na\nA\n$(cat .env)\nB", WARDER_ASK},
    {"cat <<EOF\n`cat .env`\nEOF", WARDER_ASK},
    {"cat src/ok.txt #\ncat .env", WARDER_DENY},
    {"# x \\\ncat .env", WARDER_DENY},
    {"echo \"$(echo \"$(cat .env)\")\"", WARDER_DENY},
    {": ${x:=$(cat .env)}; echo $x", WARDER_DENY},
    {"trap 'cat .env' EXIT", WARDER_DENY},
    {"command eval 'cat .env'", WARDER_DENY},
    {"exec sh -c 'cat .env'", WARDER_DENY},
    {"echo 'cat .env' > s.sh; . ./s.sh", WARDER_ASK},
    {"echo 'cat .env' > s.sh; sh s.sh", WARDER_ASK},
    {"echo 'cat .env' > s.sh; sh ./s.sh", WARDER_ASK},
    {"echo 'cat .env' > s.sh; env sh s.sh", WARDER_ASK},
    {"bash -c \"echo 'cat .env' > s.sh; source ./s.sh\"", WARDER_ASK},
    {"trap 'cat .env' EXIT; trap - INT", WARDER_DENY},
    {"trap -- 'cat .env' EXIT", WARDER_DENY},
    {"cat $(printf '\\056env')", WARDER_ASK},
    {"x=.e; y=nv; cat $x$y", WARDER_ASK},
    {"x=.e; cat ${x}nv", WARDER_ASK},
    {"cat \"${SAFE%/*}\"/../.env", WARDER_ASK},
    {"cd src && cat \"$OLDPWD/.env\"", WARDER_ASK},
    {"SAFE=.e; cat ${SAFE}nv", WARDER_ASK},
    {"export SAFE=.e; cat ${SAFE}nv", WARDER_ASK},
    {"unset SAFE; cat .env$SAFE", WARDER_ASK},
    {"for SAFE in .e; do cat ${SAFE}nv; done", WARDER_ASK},
    {"SAFE=.e sh -c 'cat ${SAFE}nv'", WARDER_ASK},
    {"SAFE=.e env sh -c 'cat \"$SAFE\"nv'", WARDER_ASK},
    {"HOME=vault; cat ~/key", WARDER_ASK},
    {"HOME=vault; cd; cat key", WARDER_ASK},
    {"HOME=vault; cat $HOME/key", WARDER_ASK},
    {"HOME=vault sh -c 'cat ~/key'", WARDER_ASK},
    {"eval \"SA\"\"FE=.e\"; cat ${SAFE}nv", WARDER_ASK},
    {"eval 'SA''FE=.e'; cat ${SAFE}nv", WARDER_ASK},
    {": ${EMPTY:=.env}; cat $EMPTY", WARDER_ASK},
    {"EMPTY=.e; cat ${EMPTY}nv", WARDER_ASK},
    {"ln -s key vault/k; cat vault/k", WARDER_DENY},
    {"cd src && ln -s vault/key ../k && cat ../k", WARDER_DENY},
    {"bash -c 'cat < <(cat .env)'", WARDER_DENY},
    {"cat /dev/stdin < .env", WARDER_DENY},
    {"cd -P pub && cd .. && cat key", WARDER_DENY},
    {"cd -P pub; cat ../key", WARDER_DENY},
    {"bash -c 'set -P; cd pub; cd ..; cat key'", WARDER_DENY},
    {"bash -c 'set -o physical; cd pub && cd .. && cat key'", WARDER_DENY},
    {"cd pub && cd \"$(pwd -P)\" && cd .. && cat key", WARDER_ASK},
    {"CDPATH=vault cd pub && cd .. && cat key", WARDER_ASK},
    {"bash -c 'echo \"$(<.env)\"'", WARDER_DENY},
    {"exec < .env; cat", WARDER_DENY},
    {"while read l; do echo $l; done < .env", WARDER_DENY},
    {"{ cat; } < .env", WARDER_DENY},
    {"(cat) < .env", WARDER_DENY},
    {"if true; then cat; fi < .env", WARDER_DENY},
    {"for x in 1; do cat; done < .env", WARDER_DENY},
    {"case x in x) cat;; esac < .env", WARDER_DENY},
    {"f() { cat; } < .env; f", WARDER_DENY},
    {"cat /dev/fd/3 3<.env", WARDER_DENY},
    {"cat - < .env", WARDER_DENY},
    {"{ cat; } 0<.env", WARDER_DENY},
    {"( cd .ssh && cat id_rsa )", WARDER_DENY},
    {"{ cd .ssh; }; cat id_rsa", WARDER_DENY},
    {"sudo -n true 2>/dev/null; cat .env", WARDER_DENY},
    {"nice -5 cat .env", WARDER_DENY},
    {"stdbuf -oL cat .env", WARDER_DENY},
    {"command -p cat .env", WARDER_DENY},
};

START_TEST(test_command_reads)
{
        command_fixture();
        const char *cmd = read_attacks[_i].cmd;
        /* decided first, on the tree as it is before the command runs */
        warder_backend *g = command_guard();
        /* control: the ruleset is not a blanket refusal */
        ck_assert_int_eq(command_action(g, "cat src/ok.txt", 14), WARDER_ALLOW);
        enum warder_action a = command_action(g, cmd, strlen(cmd));
        warder_backend_free(g);
        const char *shell = "/bin/sh";
        const char *out = run_sh(shell, cmd);
        ck_assert_msg(leaks(out, strlen(out)), "control: '%s' did not leak under %s: %s", cmd,
                      shell, out);
        ck_assert_msg(answers(a, read_attacks[_i].want), "'%s' is %s, want %s", cmd,
                      warder_action_name(a), warder_action_name(read_attacks[_i].want));
}
END_TEST

/* Each writes a denied file when /bin/sh runs it in W. */
static const struct attack write_attacks[] = {
    {"echo PWNED > .env", WARDER_DENY},
    {"echo PWNED >.env", WARDER_DENY},
    {"echo PWNED>.env", WARDER_DENY},
    {"echo PWNED >> .env", WARDER_DENY},
    {"echo PWNED >| .env", WARDER_DENY},
    {"echo PWNED 1> .env", WARDER_DENY},
    {"echo PWNED &> .env", WARDER_DENY},
    {">.env", WARDER_DENY},
    {"echo PWNED > ./secret.txt", WARDER_DENY},
    {"echo PWNED > src/innocent.txt", WARDER_DENY},
    {"echo PWNED | tee .env", WARDER_DENY},
    {"echo PWNED | tee -a .env", WARDER_DENY},
    {"cp src/ok.txt .env", WARDER_DENY},
    {"cp src/ok.txt secret.txt", WARDER_DENY},
    {"mv src/ok.txt .env", WARDER_DENY},
    {"ln -sf src/ok.txt .env", WARDER_DENY},
    {"dd of=.env status=none < src/ok.txt", WARDER_DENY},
    {"sed -i s/TOP/PWN/ .env", WARDER_DENY},
    {"truncate -s 0 .env", WARDER_DENY},
    {"rm .env", WARDER_DENY},
    {"rm -f secret.txt", WARDER_DENY},
    {"cd .ssh && echo PWNED > id_rsa", WARDER_DENY},
    {"cd src && echo PWNED > ../.env", WARDER_DENY},
    {"sh -c 'echo PWNED > .env'", WARDER_DENY},
    {"x=.env; echo PWNED > $x", WARDER_DENY},
    {"echo PWNED > $(echo .env)", WARDER_ASK},
    {"bash -c 'echo PWNED > .e*'", WARDER_DENY},
    {"echo PWNED > up/../id_rsa", WARDER_DENY},
    {"cd up && echo PWNED > ../id_rsa", WARDER_DENY},
    {"cd pub && echo PWNED > ../key", WARDER_DENY},
    {"echo PWNED | tee pub/../key", WARDER_DENY},
    {"eval 'echo PWNED > .env'", WARDER_DENY},
    {"install src/ok.txt .env", WARDER_DENY},
    {"echo PWNED 2>.env >&2", WARDER_DENY},
    {"chmod 000 .env", WARDER_DENY},
    {"touch -d 2000-01-01 .env", WARDER_DENY},
    {"{ echo PWNED; } > .env", WARDER_DENY},
    {"(echo PWNED) > .env", WARDER_DENY},
    {"if true; then echo PWNED; fi > .env", WARDER_DENY},
    {"for x in 1; do echo PWNED; done > .env", WARDER_DENY},
    {"f() { echo PWNED; } > .env; f", WARDER_DENY},
    {"while false; do :; done > .env", WARDER_DENY},
    {"exec > .env; echo PWNED", WARDER_DENY},
    {"exec 3>.env; echo PWNED >&3", WARDER_DENY},
    {"bash -c 'echo PWNED >& .env'", WARDER_DENY},
    {"bash -c 'echo PWNED &>> .env'", WARDER_DENY},
    {"ln -s key vault/k; echo PWNED > vault/k", WARDER_DENY},
};

START_TEST(test_command_writes)
{
        command_fixture();
        const char *cmd = write_attacks[_i].cmd;
        struct stat before, after;
        ck_assert_int_eq(lstat(at(W, ".env"), &before), 0);
        char *orig_secret = strdup(peek(at(W, "secret.txt")));
        /* decided first, on the tree as it is before the command runs */
        warder_backend *g = command_guard();
        enum warder_action a = command_action(g, cmd, strlen(cmd));
        warder_backend_free(g);
        run_sh("/bin/sh", cmd);
        bool changed =
            lstat(at(W, ".env"), &after) != 0 || !S_ISREG(after.st_mode) ||
            after.st_mode != before.st_mode || after.st_mtime != before.st_mtime ||
            strcmp(peek(at(W, ".env")), SECRET "\n") != 0 ||
            strcmp(peek(at(W, ".ssh/id_rsa")), SSH_SECRET "\n") != 0 ||
            !peek(at(W, "secret.txt")) || strcmp(peek(at(W, "secret.txt")), orig_secret) != 0 ||
            !peek(at(W, "vault/key")) || strcmp(peek(at(W, "vault/key")), OUT_SECRET "\n") != 0;
        free(orig_secret);
        ck_assert_msg(changed, "control: '%s' changed nothing", cmd);
        ck_assert_msg(answers(a, write_attacks[_i].want), "'%s' is %s, want %s", cmd,
                      warder_action_name(a), warder_action_name(write_attacks[_i].want));
}
END_TEST

/* ---- issue 11: seven ways past command inspection ----------------------------------------- */

/* More of the tree for them: symbolic links to directories (sub, the root, .ssh, a directory
 * under vault from d/), a second secret in sub/, and a script named `echo` the agent wrote. */
static void shell_fixture(void)
{
        command_fixture();
        mkd(at(W, "sub"));
        mkd(at(W, "sub/x"));
        put(at(W, "sub/.env"), SECRET "\n");
        put(at(W, "src/main.c"), "int main(void) { return 0; }\n");
        lnk("sub", at(W, "lsub"));
        lnk(".", at(W, "lroot"));
        lnk(".ssh", at(W, "keys"));
        mkd(at(W, "d"));
        lnk("../vault/pub/sub", at(W, "d/lv"));
        put(at(W, "echo"), "#!/bin/sh\ncat \"$@\"\n");
        ck_assert_int_eq(chmod(at(W, "echo"), 0755), 0);
}

static const struct shell_attack {
        const char *cmd;
        bool reads_only;         /* the ruleset denies reads only (writes are allowed) */
        enum warder_action want; /* DENY: exactly; ASK: at least (§5.5 undeterminable) */
} shell_attacks[] = {
    /* 1. single quotes inside "${x<op>…}" are ordinary characters (§5.5.1) */
    {"echo \"${x:-'$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x-'$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x:='$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x='$(cat .env)'}\"", false, WARDER_DENY},
    {"x=1; echo \"${x:+'$(cat .env)'}\"", false, WARDER_DENY},
    {"x=1; echo \"${x+'$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x:?'$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x?'$(cat .env)'}\"", false, WARDER_DENY},
    {"echo \"${x:-'\" $(cat .env) \"'}\"", false, WARDER_DENY},
    {"bash -c \"echo \\\"\\${x:-'\\$(cat .env)'}\\\"\"", false, WARDER_DENY},
    /* 2. bash evaluates the values of variables in arithmetic (§5.5.2) */
    {"bash -c \"x='a[\\$(cat .env >&2)]'; echo \\$((x))\"", false, WARDER_ASK},
    {"bash -c \"x='a[\\$(cat .env >&2)]'; ((x))\"", false, WARDER_ASK},
    {"bash -c \"x='a[\\$(cat .env >&2)]'; let x\"", false, WARDER_ASK},
    {"bash -c \"x='a[\\$(cat .env >&2)]'; declare -i y; y=x\"", false, WARDER_ASK},
    {"bash -c \"x='a[\\$(cat .env >&2)]'; [[ \\$x -eq 1 ]]\"", false, WARDER_ASK},
    {"bash -c \"echo \\${x='a[\\$(cat .env >&2)]'} \\$((x))\"", false, WARDER_ASK},
    {"bash -c \"a=(1); unset 'a[\\$(cat .env >&2)]'\"", false, WARDER_ASK},
    /* 3. globs expanded the way the shell expands them (§5.5) */
    {"cat l*/.e*", false, WARDER_DENY},
    {"cat ls*/.e*", false, WARDER_DENY},
    {"cat lr*/.e*", false, WARDER_DENY},
    {"cat k*/id*", false, WARDER_DENY},
    {"head ./l*/sub/.en?", false, WARDER_DENY},
    {"cat d/lv/../../ke?", false, WARDER_DENY}, /* lexically ./ke?, for the kernel vault/ke? */
    {"cat .[e]nv", false, WARDER_DENY},
    {"cat .[d-f]n[v]", false, WARDER_DENY},
    /* 4. the data-only builtins are the builtins (§5.4.2) */
    {"./echo .env", false, WARDER_DENY},
    {"\"$HOME\"/echo .env", false, WARDER_DENY},
    {"bash -c 'enable -n echo; PATH=.:/usr/bin:/bin; echo .env'", false, WARDER_DENY},
    /* 5. sources of mv, ln, install are decided for read too (§5.4) */
    {"mv .env notes && cat notes", true, WARDER_DENY},
    {"ln .env x && cat x", true, WARDER_DENY},
    {"install -m 644 .env x && cat x", true, WARDER_DENY},
    {"ln -s vault/key v && cat v", true, WARDER_DENY},
    {"ln -sT vault v && cat v/key", true, WARDER_DENY},
    {"mv vault v2 && cat v2/key", true, WARDER_DENY},
};

START_TEST(test_shell_attacks)
{
        const struct shell_attack *t = &shell_attacks[_i];
        shell_fixture();
        /* decided first, on the tree as it is before the command runs */
        warder_backend *g = command_guard_with(t->reads_only);
        ck_assert_int_eq(command_action(g, "cat src/ok.txt", 14), WARDER_ALLOW);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, t->cmd, strlen(t->cmd), NULL),
                         0);
        warder_backend_free(g);
        /* control: without warder the command prints the secret */
        const char *out = run_sh("/bin/sh", t->cmd);
        ck_assert_msg(leaks(out, strlen(out)), "control: '%s' did not leak: %s", t->cmd, out);
        if (t->want == WARDER_DENY)
                ck_assert_msg(d.action == WARDER_DENY, "'%s': %s (%s)", t->cmd,
                              warder_action_name(d.action), d.note ? d.note : "");
        else
                ck_assert_msg(d.action >= t->want && d.note, "'%s': %s", t->cmd,
                              warder_action_name(d.action));
        warder_decision_clear(&d);
}
END_TEST

/* 6. §5.4.1: renaming an ancestor of an anchored deny moves the secret out of its rule. */
START_TEST(test_rename_ancestor)
{
        mkd(at(W, "a"));
        mkd(at(W, "a/vault"));
        put(at(W, "a/vault/key"), OUT_SECRET "\n");
        static const char yaml[] = "warder: 1\ndefault: allow\n"
                                   "read:\n  rules:\n    - deny: './a/vault/**'\n"
                                   "write:\n  rules:\n    - deny: './a/vault/**'\n";
        warder_backend *g = guard_over(local_at(W, false), yaml, W, NULL);
        struct warder_bytes b = WARDER_BYTES_INIT;
        /* the rule holds where the file is */
        ck_assert_int_eq(do_read(g, "a/vault/key", 11, &b), WARDER_EDENIED);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "mv a c", 6, NULL), 0);
        ck_assert_msg(d.action == WARDER_DENY, "mv a c: %s", warder_action_name(d.action));
        ck_assert_str_eq(d.pattern, "./a/vault/**");
        warder_decision_clear(&d);
        /* a renamed file is not a directory: nothing beneath it */
        put(at(W, "a/notes.txt"), "public\n");
        ck_assert_int_eq(command_action(g, "mv a/notes.txt c.txt", 20), WARDER_ALLOW);
        /* control: once the command ran, the secret is out of its rule */
        run_sh("/bin/sh", "mv a c");
        ck_assert_int_eq(do_read(g, "c/vault/key", 11, &b), 0);
        ck_assert(leaks(b.data, b.len));
        warder_bytes_free(&b);
        warder_backend_free(g);
}
END_TEST

/* Parser limits (§5.7): length, nesting and count never turn a deny into anything weaker. */
START_TEST(test_command_limits)
{
        warder_backend *g = command_guard();
        struct warder__buf b = WARDER__BUF_INIT;
        /* many segments before the read */
        for (int i = 0; i < 20000; i++)
                warder__buf_puts(&b, "true; ");
        warder__buf_puts(&b, "cat .env");
        ck_assert_int_ne(command_action(g, b.data, b.len), WARDER_ALLOW);
        /* a very long word before it */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "echo ");
        for (int i = 0; i < 200000; i++)
                warder__buf_putc(&b, 'a');
        warder__buf_puts(&b, "; cat .env");
        ck_assert_int_ne(command_action(g, b.data, b.len), WARDER_ALLOW);
        /* deep nesting of substitutions, subshells, groups and sh -c */
        const char *open[] = {"$(", "(", "{ ", "`", "sh -c '"};
        const char *close[] = {")", ")", "; }", "`", "'"};
        for (size_t k = 0; k < 5; k++) {
                for (int depth = 1; depth < 300; depth *= 3) {
                        warder__buf_truncate(&b, 0);
                        for (int i = 0; i < depth; i++)
                                warder__buf_puts(&b, open[k]);
                        warder__buf_puts(&b, "cat .env");
                        for (int i = 0; i < depth; i++)
                                warder__buf_puts(&b, close[k]);
                        ck_assert_msg(command_action(g, b.data, b.len) != WARDER_ALLOW,
                                      "nesting %s x%d", open[k], depth);
                }
        }
        /* many path candidates before the denied one */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "cat");
        for (int i = 0; i < 10000; i++)
                warder__buf_printf(&b, " src/f%d", i);
        warder__buf_puts(&b, " .env");
        ck_assert_int_ne(command_action(g, b.data, b.len), WARDER_ALLOW);
        /* many cds */
        warder__buf_truncate(&b, 0);
        for (int i = 0; i < 200; i++)
                warder__buf_puts(&b, i % 2 ? "cd ..; " : "cd src; ");
        warder__buf_puts(&b, "cat .env");
        ck_assert_int_ne(command_action(g, b.data, b.len), WARDER_ALLOW);
        /* a NUL is refused */
        const char nul[] = "cat src/ok.txt\0; cat .env";
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, nul, sizeof(nul) - 1, NULL),
                         WARDER_EINVAL);
        warder__buf_free(&b);
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
        tc = tcase_create("guard");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_spellings_of_a_denied_file, 0, 2);
        tcase_add_loop_test(tc, test_grep_around_a_denied_file, 0, 2);
        tcase_add_loop_test(tc, test_names_of_denied_entries, 0, 2);
        tcase_add_loop_test(tc, test_writes_through_links, 0, 2);
        tcase_add_loop_test(tc, test_case_spellings, 0, 2);
        tcase_add_loop_test(tc, test_stacked_guards, 0, 2);
        tcase_add_loop_test(tc, test_approval_and_audit, 0, 2);
        tcase_add_loop_test(tc, test_glob_prefix_through_a_link, 0, 2);
        tcase_add_loop_test(tc, test_memory_and_fallbacks, 0, 2);
        tcase_add_test(tc, test_ruleset_swap_under_threads);
        suite_add_tcase(s, tc);
        tc = tcase_create("rulesets");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_ruleset_slips, 0, (int)(sizeof(slips) / sizeof(slips[0])));
        tcase_add_test(tc, test_ruleset_limits);
        tcase_add_test(tc, test_root_with_glob_syntax);
        suite_add_tcase(s, tc);
        tc = tcase_create("commands");
        tcase_set_timeout(tc, 60);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_command_reads, 0,
                            (int)(sizeof(read_attacks) / sizeof(read_attacks[0])));
        tcase_add_loop_test(tc, test_command_writes, 0,
                            (int)(sizeof(write_attacks) / sizeof(write_attacks[0])));
        tcase_add_test(tc, test_command_limits);
        tcase_add_loop_test(tc, test_shell_attacks, 0,
                            (int)(sizeof(shell_attacks) / sizeof(shell_attacks[0])));
        tcase_add_test(tc, test_rename_ancestor);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
