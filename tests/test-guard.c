/* SPDX-License-Identifier: MIT */
/* The guarded backend (semantics §3, §4). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "support.h"
#include "warder/sys/backend.h"
#include "warder/warder.h"

/* ---- a recording mock backend ---------------------------------------------------------- */

/* A tiny file table with symlinks that only its realpath knows about (the mock's ls reports
 * them as symlinks), and optionally an execute method. Every call except realpath is recorded
 * so a test can prove that a refused request never reached it. */
struct mock_file {
        const char *path;
        const char *data; /* NULL: a directory */
};

struct mock_link {
        const char *from, *to;
};

struct mock {
        struct warder_backend base;
        const struct mock_file *files;
        const struct mock_link *links;
        int calls;     /* every method except realpath and destroy */
        int realpaths; /* realpath calls */
        int *destroyed;
        char last_op[16];
        char last_path[256];
        char last_cwd[256];
        char last_env[64];
        unsigned last_flags;
        /* what the guard's mask predicate answered in the last execute: for /w/.env, for
         * /w/ok.txt and for a relative name */
        bool masked;
        unsigned mask_env, mask_ok, mask_relative;
};

static void record(struct mock *m, const char *op, const char *path, unsigned flags)
{
        m->calls++;
        m->last_flags = flags;
        snprintf(m->last_op, sizeof(m->last_op), "%s", op);
        snprintf(m->last_path, sizeof(m->last_path), "%s", path ? path : "");
}

static const struct mock_file *mock_find(struct mock *m, const char *path)
{
        for (const struct mock_file *f = m->files; f && f->path; f++)
                if (strcmp(f->path, path) == 0)
                        return f;
        return NULL;
}

static int mock_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                     unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        (void)offset, (void)limit, (void)flags;
        struct mock *m = (struct mock *)b;
        record(m, "read", path, flags);
        const struct mock_file *f = mock_find(m, path);
        if (!f)
                return warder_error_set(err, WARDER_ENOENT, "no such file");
        if (!f->data)
                return warder_error_set(err, WARDER_EISDIR, "a directory");
        return warder_bytes_set(out, f->data, strlen(f->data));
}

static int mock_write(warder_backend *b, const char *path, const void *data, size_t len,
                      unsigned flags, struct warder_error *err)
{
        (void)data, (void)len, (void)flags, (void)err;
        record((struct mock *)b, "write", path, flags);
        return 0;
}

static int mock_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                     const char *new_text, size_t new_len, unsigned flags, size_t *count,
                     struct warder_error *err)
{
        (void)old_text, (void)old_len, (void)new_text, (void)new_len, (void)flags, (void)err;
        record((struct mock *)b, "edit", path, flags);
        if (count)
                *count = 1;
        return 0;
}

static bool child_of(const char *dir, const char *path, const char **name)
{
        size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
        if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1])
                return false;
        if (strchr(path + n + 1, '/'))
                return false;
        *name = path + n + 1;
        return true;
}

static int mock_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                   struct warder_error *err)
{
        (void)flags, (void)err;
        struct mock *m = (struct mock *)b;
        record(m, "ls", path, flags);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        const char *name;
        int rc = 0;
        for (const struct mock_file *f = m->files; !rc && f && f->path; f++)
                if (child_of(path, f->path, &name))
                        rc = warder_entries_add(&e, name, strlen(name), f->path, strlen(f->path),
                                                f->data ? WARDER_ENTRY_FILE : WARDER_ENTRY_DIR,
                                                f->data ? strlen(f->data) : 0, 0);
        for (const struct mock_link *l = m->links; !rc && l && l->from; l++)
                if (child_of(path, l->from, &name))
                        rc = warder_entries_add(&e, name, strlen(name), l->from, strlen(l->from),
                                                WARDER_ENTRY_SYMLINK, 0, 0);
        if (rc) {
                warder_entries_free(&e);
                return rc;
        }
        *out = e;
        return 0;
}

/* Glob: the mock returns every file and link whose path starts with the base. */
static int mock_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                     struct warder_entries *out, struct warder_error *err)
{
        (void)pattern, (void)flags, (void)err;
        struct mock *m = (struct mock *)b;
        record(m, "glob", base, flags);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        size_t n = strlen(base);
        int rc = 0;
        for (const struct mock_file *f = m->files; !rc && f && f->path; f++)
                if (strncmp(f->path, base, n) == 0 && f->path[n] == '/')
                        rc = warder_entries_add(
                            &e, strrchr(f->path, '/') + 1, strlen(strrchr(f->path, '/') + 1),
                            f->path, strlen(f->path),
                            f->data ? WARDER_ENTRY_FILE : WARDER_ENTRY_DIR, 0, 0);
        for (const struct mock_link *l = m->links; !rc && l && l->from; l++)
                if (strncmp(l->from, base, n) == 0 && l->from[n] == '/')
                        rc = warder_entries_add(&e, strrchr(l->from, '/') + 1,
                                                strlen(strrchr(l->from, '/') + 1), l->from,
                                                strlen(l->from), WARDER_ENTRY_SYMLINK, 0, 0);
        if (rc) {
                warder_entries_free(&e);
                return rc;
        }
        *out = e;
        return 0;
}

/* Grep: every file under the base whose content contains the pattern (a plain substring);
 * symlinks under the base are followed, as a careless backend would. With
 * WARDER_GREP_CASELESS (which it otherwise ignores) it reports everything twice over, so a
 * file's matches are not consecutive. When its ops table promises
 * WARDER_BACKEND_CAP_GREP_FILTER it asks req->may_search before looking into a file (and
 * counts the refusals); otherwise it ignores it, as a backend written before it would. */
static bool mock_may_search(struct mock *m, const struct warder_grep_request *req, const char *path,
                            struct warder_grep_result *r, int pass)
{
        if (!(m->base.ops->caps & WARDER_BACKEND_CAP_GREP_FILTER) || !req->may_search ||
            req->may_search(req->may_search_ud, path, strlen(path)))
                return true;
        if (pass == 0)
                r->hidden_files++;
        return false;
}

static int mock_grep(warder_backend *b, const struct warder_grep_request *req,
                     struct warder_grep_result *out, struct warder_error *err)
{
        (void)err;
        struct mock *m = (struct mock *)b;
        record(m, "grep", req->path, req->flags);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        size_t n = strlen(req->path);
        int rc = 0;
        for (int pass = 0; pass < (req->flags & WARDER_GREP_CASELESS ? 2 : 1); pass++) {
                for (const struct mock_file *f = m->files; !rc && f && f->path; f++)
                        if (f->data && strncmp(f->path, req->path, n) == 0 && f->path[n] == '/' &&
                            mock_may_search(m, req, f->path, &r, pass) &&
                            strstr(f->data, req->pattern))
                                rc = warder_grep_add(&r, f->path, strlen(f->path), 1, f->data,
                                                     strlen(f->data));
                for (const struct mock_link *l = m->links; !rc && l && l->from; l++) {
                        const struct mock_file *f = mock_find(m, l->to);
                        if (f && f->data && strncmp(l->from, req->path, n) == 0 &&
                            l->from[n] == '/' && mock_may_search(m, req, l->from, &r, pass) &&
                            strstr(f->data, req->pattern))
                                rc = warder_grep_add(&r, l->from, strlen(l->from), 1, f->data,
                                                     strlen(f->data));
                }
        }
        if (rc) {
                warder_grep_result_free(&r);
                return rc;
        }
        *out = r;
        return 0;
}

static int mock_execute(warder_backend *b, const struct warder_exec_request *req,
                        struct warder_exec_result *out, struct warder_error *err)
{
        (void)err;
        struct mock *m = (struct mock *)b;
        record(m, "execute", req->command, req->flags);
        snprintf(m->last_cwd, sizeof(m->last_cwd), "%s", req->cwd ? req->cwd : "");
        snprintf(m->last_env, sizeof(m->last_env), "%s",
                 req->env && req->env[0] ? req->env[0] : "");
        if ((m->masked = req->mask != NULL)) {
                m->mask_env = req->mask(req->mask_ud, "/w/.env", NULL);
                m->mask_ok = req->mask(req->mask_ud, "/w/ok.txt", NULL);
                m->mask_relative = req->mask(req->mask_ud, "ok.txt", NULL);
        }
        out->exit_status = 0; /* `out` arrives initialised: never zero it (its version) */
        return warder_bytes_set(&out->out, "ran", 3);
}

/* Resolves the mock's links: a link as a whole path or as a leading directory. */
static int mock_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        struct mock *m = (struct mock *)b;
        m->realpaths++;
        if (strstr(path, "/broken"))
                return warder_error_set(err, WARDER_EIO, "cannot resolve");
        char buf[512];
        snprintf(buf, sizeof(buf), "%s", path);
        for (int hops = 0; hops < 8; hops++) {
                bool changed = false;
                for (const struct mock_link *l = m->links; l && l->from; l++) {
                        size_t n = strlen(l->from);
                        if (strncmp(buf, l->from, n) == 0 && (buf[n] == '/' || buf[n] == '\0')) {
                                char rest[512];
                                snprintf(rest, sizeof(rest), "%s", buf + n);
                                snprintf(buf, sizeof(buf), "%s%s", l->to, rest);
                                changed = true;
                                break;
                        }
                }
                if (!changed)
                        break;
        }
        char *s = warder_strndup(buf, strlen(buf));
        if (!s)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        *out = s;
        return 0;
}

static void mock_destroy(warder_backend *b)
{
        struct mock *m = (struct mock *)b;
        if (m->destroyed)
                (*m->destroyed)++;
        free(m);
}

static const struct warder_backend_ops mock_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = mock_read,
    .write = mock_write,
    .edit = mock_edit,
    .ls = mock_ls,
    .glob = mock_glob,
    .grep = mock_grep,
    .realpath = mock_realpath,
    .destroy = mock_destroy,
};

static const struct warder_backend_ops mock_exec_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = mock_read,
    .write = mock_write,
    .edit = mock_edit,
    .ls = mock_ls,
    .glob = mock_glob,
    .grep = mock_grep,
    .execute = mock_execute,
    .realpath = mock_realpath,
    .destroy = mock_destroy,
};

/* The fixture: /w is the root. */
static const struct mock_file fixture_files[] = {
    {"/w", NULL},
    {"/w/ok.txt", "fine TOKEN"},
    {"/w/.env", "SECRET=hunter2 TOKEN"},
    {"/w/q.ask", "question TOKEN"},
    {"/w/sub", NULL},
    {"/w/sub/a.txt", "sub TOKEN"},
    {"/etc", NULL},
    {"/etc/passwd", "root:x:0:0 TOKEN"},
    {NULL, NULL},
};

static const struct mock_link fixture_links[] = {
    {"/w/link-env", "/w/.env"},        /* a link to a denied file */
    {"/w/link-ask", "/w/q.ask"},       /* a link to an ask file */
    {"/w/link-ok", "/w/ok.txt"},       /* a link to an allowed file */
    {"/w/etc-link", "/etc"},           /* a directory link into a denied tree */
    {"/w/sub-link", "/w/sub"},         /* a directory link to an allowed tree */
    {"/w/broken-link", "/w/broken/x"}, /* its real form cannot be computed */
    {NULL, NULL},
};

static struct mock *mock_new(bool exec, int *destroyed)
{
        struct mock *m = calloc(1, sizeof(*m));
        ck_assert_ptr_nonnull(m);
        m->files = fixture_files;
        m->links = fixture_links;
        m->destroyed = destroyed;
        ck_assert_int_eq(warder_backend_init(&m->base, exec ? &mock_exec_ops : &mock_ops, NULL), 0);
        return m;
}

/* ---- rulesets ---------------------------------------------------------------------------- */

static warder_ruleset *load(const char *yaml, const char *root)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = root;
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        /* every ruleset here is format version 1 */
        char *text = NULL;
        ck_assert_int_ge(asprintf(&text, "warder: 1\n%s", yaml), 0);
        int rc = warder_ruleset_load_string(&rs, text, strlen(text), "test.yaml", &o, &err);
        free(text);
        ck_assert_msg(rc == 0, "ruleset: %s (line %u)", err.message, err.line);
        warder_error_clear(&err);
        return rs;
}

/* The same three rules for every path operation: the /etc tree and any .env deny, *.ask asks. */
#define PATH_BLOCK(op)                                                                             \
        op ":\n"                                                                                   \
           "  default: allow\n"                                                                    \
           "  rules:\n"                                                                            \
           "    - pattern: \"/etc/**\"\n"                                                          \
           "      action: deny\n"                                                                  \
           "      reason: System files\n"                                                          \
           "    - pattern: \"**/.env\"\n"                                                          \
           "      action: deny\n"                                                                  \
           "      reason: Protect sensitive files\n"                                               \
           "    - pattern: \"**/*.ask\"\n"                                                         \
           "      action: ask\n"

static const char *const all_ops_yaml =
    "default: allow\n" PATH_BLOCK("read") PATH_BLOCK("write") PATH_BLOCK("edit") PATH_BLOCK("ls")
        PATH_BLOCK("glob") PATH_BLOCK("grep") "execute:\n"
                                              "  default: allow\n"
                                              "  rules:\n"
                                              "    - pattern: \"rm *\"\n"
                                              "      action: deny\n"
                                              "    - pattern: \"make *\"\n"
                                              "      action: ask\n";

static warder_backend *guard_over(warder_backend *inner, warder_ruleset *rs,
                                  const struct warder_guard_options *opts)
{
        warder_backend *g = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_guard_new(&g, inner, rs, opts, &err);
        ck_assert_msg(rc == 0, "guard: %s", err.message);
        warder_error_clear(&err);
        return g;
}

/* ---- one call per operation, so the table can drive all of them ------------------------ */

static int do_op(warder_backend *b, enum warder_op op, const char *target, unsigned flags,
                 struct warder_error *err, char **content)
{
        size_t len = strlen(target);
        int rc = WARDER_EINVAL;
        *content = NULL;
        switch (op) {
        case WARDER_OP_READ: {
                struct warder_bytes out = WARDER_BYTES_INIT;
                rc = warder_backend_read(&out, b, target, len, 0, 0, flags, err);
                if (rc == 0)
                        *content = strdup(out.data ? out.data : "");
                warder_bytes_free(&out);
                break;
        }
        case WARDER_OP_WRITE:
                rc = warder_backend_write(b, target, len, "new", 3, flags, err);
                break;
        case WARDER_OP_EDIT: {
                size_t count = 0;
                rc =
                    warder_backend_edit(&count, b, target, len, "TOKEN", 5, "token", 5, flags, err);
                break;
        }
        case WARDER_OP_LS: {
                struct warder_entries out = WARDER_ENTRIES_INIT;
                rc = warder_backend_ls(&out, b, target, len, flags, err);
                warder_entries_free(&out);
                break;
        }
        case WARDER_OP_GLOB: {
                struct warder_entries out = WARDER_ENTRIES_INIT;
                rc = warder_backend_glob(&out, b, "*", strlen("*"), target, len, flags, err);
                warder_entries_free(&out);
                break;
        }
        case WARDER_OP_GREP: {
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "TOKEN";
                req.pattern_len = strlen(req.pattern);
                req.path = target;
                req.path_len = len;
                req.flags = flags;
                struct warder_grep_result out = WARDER_GREP_RESULT_INIT;
                rc = warder_backend_grep(&out, b, &req, err);
                warder_grep_result_free(&out);
                break;
        }
        case WARDER_OP_EXECUTE: {
                struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                req.command = target;
                req.command_len = len;
                req.flags = flags;
                struct warder_exec_result out = WARDER_EXEC_RESULT_INIT;
                rc = warder_backend_execute(&out, b, &req, err);
                if (rc == 0)
                        warder_exec_result_free(&out);
                break;
        }
        }
        return rc;
}

/* ---- §4.3–§4.5: per operation × allow/deny/ask × literal/real form --------------------- */

struct op_case {
        const char *target;
        int expect;            /* 0, WARDER_EDENIED or WARDER_EASK */
        enum warder_form form; /* which form decided (for refusals) */
        const char *forwarded; /* the real form the inner backend must see (for allows) */
};

static const struct op_case op_cases[] = {
    /* allowed: the literal form is forwarded as is */
    {"/w/ok.txt", 0, WARDER_FORM_NONE, "/w/ok.txt"},
    {"ok.txt", 0, WARDER_FORM_NONE, "/w/ok.txt"},
    /* allowed through a link: the REAL form is forwarded (§4.2) */
    {"/w/link-ok", 0, WARDER_FORM_NONE, "/w/ok.txt"},
    {"/w/sub-link/a.txt", 0, WARDER_FORM_NONE, "/w/sub/a.txt"},
    /* denied on the literal form */
    {"/w/.env", WARDER_EDENIED, WARDER_FORM_LITERAL, NULL},
    {"/etc/passwd", WARDER_EDENIED, WARDER_FORM_LITERAL, NULL},
    {"/w/missing/.env", WARDER_EDENIED, WARDER_FORM_LITERAL, NULL}, /* no existence oracle */
    /* denied on the real form only (§3.3) */
    {"/w/link-env", WARDER_EDENIED, WARDER_FORM_REAL, NULL},
    {"/w/etc-link/passwd", WARDER_EDENIED, WARDER_FORM_REAL, NULL},
    {"/w/etc-link/missing", WARDER_EDENIED, WARDER_FORM_REAL, NULL},
    /* ask on the literal form, and on the real form */
    {"/w/q.ask", WARDER_EASK, WARDER_FORM_LITERAL, NULL},
    {"/w/link-ask", WARDER_EASK, WARDER_FORM_REAL, NULL},
};

#define N_OP_CASES (sizeof(op_cases) / sizeof(op_cases[0]))
static const enum warder_op path_ops[] = {WARDER_OP_READ, WARDER_OP_WRITE, WARDER_OP_EDIT,
                                          WARDER_OP_LS,   WARDER_OP_GLOB,  WARDER_OP_GREP};
#define N_PATH_OPS (sizeof(path_ops) / sizeof(path_ops[0]))

START_TEST(op_table)
{
        enum warder_op op = path_ops[_i / N_OP_CASES];
        const struct op_case *c = &op_cases[_i % N_OP_CASES];
        struct mock *m = mock_new(false, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        char *content = NULL;
        int rc = do_op(g, op, c->target, 0, &err, &content);
        if (c->expect == 0) {
                /* The inner backend saw exactly the real form. (Its own answer may be an error,
                 * e.g. ls on a file; what counts here is what reached it.) */
                ck_assert_msg(rc != WARDER_EDENIED && rc != WARDER_EASK, "%s %s: rc %s",
                              warder_op_name(op), c->target, warder_status_name(rc));
                ck_assert_int_ge(m->calls, 1);
                ck_assert_msg(strcmp(m->last_path, c->forwarded) == 0 ||
                                  strncmp(m->last_path, c->forwarded, strlen(c->forwarded)) == 0,
                              "%s %s: inner saw '%s', want '%s'", warder_op_name(op), c->target,
                              m->last_path, c->forwarded);
                /* §4.2: the real form is opened without following symlinks */
                ck_assert_msg(m->last_flags & WARDER_NOFOLLOW, "%s %s: forwarded without NOFOLLOW",
                              warder_op_name(op), c->target);
        } else {
                ck_assert_msg(rc == c->expect, "%s %s: rc %s, want %s", warder_op_name(op),
                              c->target, warder_status_name(rc), warder_status_name(c->expect));
                /* §4.3: the inner backend was never called (realpath aside) */
                ck_assert_msg(m->calls == 0, "%s %s reached the inner backend (%s %s)",
                              warder_op_name(op), c->target, m->last_op, m->last_path);
                ck_assert_ptr_null(content);
                ck_assert_int_eq(err.code, c->expect);
                ck_assert_ptr_nonnull(err.decision);
                ck_assert_int_eq(err.decision->op, op);
                ck_assert_int_eq(err.decision->action,
                                 c->expect == WARDER_EDENIED ? WARDER_DENY : WARDER_ASK);
                ck_assert_msg(err.decision->form == c->form ||
                                  err.decision->form == WARDER_FORM_BOTH,
                              "%s %s: form %s", warder_op_name(op), c->target,
                              warder_form_name(err.decision->form));
                ck_assert_ptr_nonnull(err.decision->rule_id);
                ck_assert_ptr_nonnull(strstr(err.message, err.decision->rule_id));
        }
        free(content);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* The denial message names the rule, its reason and where it was written (§4.3). */
START_TEST(deny_message)
{
        struct mock *m = mock_new(false, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "/w/.env", 7, 0, 0, 0, &err), WARDER_EDENIED);
        ck_assert_ptr_null(out.data);
        ck_assert_msg(strstr(err.message, "read denied by rule read:1 '**/.env'") &&
                          strstr(err.message, "(Protect sensitive files)") &&
                          strstr(err.message, "test.yaml:"),
                      "message: %s", err.message);
        /* the decision is a heap copy: it outlives the ruleset and the guard */
        warder_backend_free(g);
        warder_ruleset_free(rs);
        ck_assert_str_eq(err.decision->pattern, "**/.env");
        ck_assert_str_eq(err.decision->reason, "Protect sensitive files");
        ck_assert_str_eq(err.decision->file, "test.yaml");
        ck_assert_uint_gt(err.decision->line, 0);
        warder_error_clear(&err);
}
END_TEST

/*
 * §4.5 (revised): edit is decided on the edit rules AND the read rules, the stricter wins. An
 * edit's answer ("1 replacement" or "old text not found") says whether a text is in the file,
 * so an edit allowed on a read-denied file would be a content oracle.
 */
START_TEST(edit_is_decided_as_read)
{
        static const char yaml[] = "default: allow\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: .env\n"
                                   "      reason: secrets\n"
                                   "    - ask: \"*.ask\"\n"
                                   "edit:\n"
                                   "  default: allow\n";
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert_int_eq(warder_backend_write(mem, "/w/.env", 7, "API_KEY=abc", 11, 0, NULL), 0);
        ck_assert_int_eq(warder_backend_write(mem, "/w/q.ask", 8, "API_KEY=abc", 11, 0, NULL), 0);
        /* Control arm: without the guard, edit answers whether a guess is in the file. */
        size_t n = 0;
        ck_assert_int_eq(
            warder_backend_edit(&n, mem, "/w/.env", 7, "API_KEY=x", 9, "API_KEY=x", 9, 0, NULL),
            WARDER_ENOMATCH);
        ck_assert_int_eq(
            warder_backend_edit(&n, mem, "/w/.env", 7, "API_KEY=a", 9, "API_KEY=a", 9, 0, NULL), 0);
        ck_assert_uint_eq(n, 1);

        warder_ruleset *rs = load(yaml, "/w");
        warder_backend *g = guard_over(mem, rs, NULL);
        const char *guesses[] = {"API_KEY=x", "API_KEY=a"};
        for (size_t i = 0; i < 2; i++) {
                struct warder_error err = WARDER_ERROR_INIT;
                const char *t = guesses[i];
                ck_assert_int_eq(
                    warder_backend_edit(&n, g, ".env", 4, t, strlen(t), t, strlen(t), 0, &err),
                    WARDER_EDENIED);
                /* The read rule decided, and the explanation says so. */
                ck_assert_ptr_nonnull(err.decision);
                ck_assert_int_eq(err.decision->op, WARDER_OP_READ);
                ck_assert_str_eq(err.decision->rule_id, "read:0");
                ck_assert_msg(strstr(err.message, "read denied by rule read:0"), "%s", err.message);
                warder_error_clear(&err);
                err = (struct warder_error)WARDER_ERROR_INIT;
                /* ask on read makes the edit ask */
                ck_assert_int_eq(
                    warder_backend_edit(&n, g, "q.ask", 5, t, strlen(t), t, strlen(t), 0, &err),
                    WARDER_EASK);
                ck_assert_int_eq(err.decision->op, WARDER_OP_READ);
                warder_error_clear(&err);
        }
        /* An allowed edit still works, and the guard's own check agrees. */
        ck_assert_int_eq(warder_backend_write(mem, "/w/ok.txt", 9, "v=1", 3, 0, NULL), 0);
        ck_assert_int_eq(warder_backend_edit(&n, g, "ok.txt", 6, "v=1", 3, "v=2", 3, 0, NULL), 0);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EDIT, ".env", 4, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.op, WARDER_OP_READ);
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EDIT, "ok.txt", 6, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        warder_decision_clear(&d);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* The refusal says exactly what decided, in every shape a decision takes: a rule with a
 * reason, one without, the operation's default, the real form, a command's segment and
 * candidate, a raise's note, and ask. */
START_TEST(refusal_messages)
{
        struct mock *m = mock_new(true, NULL);
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - {deny: '**/.env', reason: secrets here}\n"
                                  "    - deny: '/etc/**'\n"
                                  "    - ask: '**/*.ask'\n"
                                  "write: {default: deny}\n"
                                  "execute:\n"
                                  "  rules:\n"
                                  "    - deny: 'rm *'\n",
                                  "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_bytes out = WARDER_BYTES_INIT;
        static const struct {
                int op; /* 0 read, 1 write, 2 execute */
                const char *target;
                int rc;
                const char *message;
        } rows[] = {
            {0, "/w/.env", WARDER_EDENIED,
             "read denied by rule read:0 '**/.env' (secrets here) at test.yaml:5:7"},
            {0, "/etc/passwd", WARDER_EDENIED,
             "read denied by rule read:1 '/etc/**' at test.yaml:6:7"},
            {0, "/w/link-env", WARDER_EDENIED,
             "read denied by rule read:0 '**/.env' (secrets here) at test.yaml:5:7 [real form]"},
            {0, "/w/q.ask", WARDER_EASK,
             "read needs approval by rule read:2 '**/*.ask' at test.yaml:7:7"},
            {1, "/w/ok.txt", WARDER_EDENIED, "write denied by the write default"},
            {2, "ls; rm -rf x", WARDER_EDENIED,
             "execute denied by rule execute:0 'rm *' at test.yaml:11:7 in 'rm -rf x'"},
            {2, "cat .env", WARDER_EDENIED,
             "execute denied by rule read:0 '**/.env' (secrets here) at test.yaml:5:7 in "
             "'cat .env' for read of '/w/.env'"},
            {2, "cat $NOPE", WARDER_EASK,
             "execute needs approval in 'cat $NOPE' for read of '$NOPE'; "
             "an argument that cannot be determined (a variable the host did not declare, or one "
             "the command line sets)"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                int rc;
                if (rows[i].op == 0) {
                        rc = warder_backend_read(&out, g, rows[i].target, strlen(rows[i].target), 0,
                                                 0, 0, &err);
                } else if (rows[i].op == 1) {
                        rc = warder_backend_write(g, rows[i].target, strlen(rows[i].target), "x", 1,
                                                  0, &err);
                } else {
                        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                        req.command = rows[i].target;
                        req.command_len = strlen(rows[i].target);
                        struct warder_exec_result r = WARDER_EXEC_RESULT_INIT;
                        rc = warder_backend_execute(&r, g, &req, &err);
                        warder_exec_result_free(&r);
                }
                ck_assert_msg(rc == rows[i].rc, "%s: rc %d", rows[i].target, rc);
                ck_assert_int_eq(err.code, rows[i].rc);
                ck_assert_msg(strcmp(err.message, rows[i].message) == 0, "%s:\n got  %s\n want %s",
                              rows[i].target, err.message, rows[i].message);
                ck_assert_ptr_nonnull(err.decision);
                warder_error_clear(&err);
        }
        ck_assert_int_eq(m->calls, 0);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §3.1 bypass spellings, against the memory backend, each with a control arm -------- */

static const char *const bypass[] = {"etc/passwd",   "/./etc/passwd", "//etc/passwd",
                                     "/etc//passwd", "/.env/",        "a/../.env",
                                     "/tmp/../.env", "./.env",        "/etc/./passwd"};

static warder_backend *secret_memory(void)
{
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert_int_eq(warder_backend_write(mem, "/etc/passwd", 11, "root:x:0:0", 10, 0, NULL),
                         0);
        ck_assert_int_eq(warder_backend_write(mem, "/.env", 5, "SECRET=hunter2", 14, 0, NULL), 0);
        return mem;
}

START_TEST(bypass_spellings)
{
        const char *spelling = bypass[_i];
        /* control arm: the secret is there, and the spelling names it */
        char *lit = NULL;
        ck_assert_int_eq(
            warder_path_normalize(&lit, NULL, "/", NULL, NULL, spelling, strlen(spelling), NULL),
            0);
        warder_backend *plain = secret_memory();
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, plain, lit, strlen(lit), 0, 0, 0, NULL), 0);
        ck_assert_msg(strstr(out.data, "root:x") || strstr(out.data, "SECRET"),
                      "control: %s gave '%s'", lit, out.data);
        warder_bytes_free(&out);
        warder_backend_free(plain);

        /* the guard denies every spelling */
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"/etc/**\"\n"
                                  "      action: deny\n"
                                  "    - pattern: \"**/.env\"\n"
                                  "      action: deny\n",
                                  "/");
        warder_backend *g = guard_over(secret_memory(), rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_backend_read(&out, g, spelling, strlen(spelling), 0, 0, 0, &err);
        ck_assert_msg(rc == WARDER_EDENIED, "%s: %s", spelling, warder_status_name(rc));
        ck_assert_ptr_null(out.data);
        ck_assert_ptr_nonnull(err.decision);
        warder_error_clear(&err);
        /* …and says so without forwarding */
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(
            warder_guard_check(&d, g, WARDER_OP_READ, spelling, strlen(spelling), NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        warder_backend_free(g);
        warder_ruleset_free(rs);
        warder_free(lit);
}
END_TEST

/* An embedded NUL or an empty target is EINVAL, never a truncation to an allowed path. */
START_TEST(bad_targets)
{
        struct mock *m = mock_new(false, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, "/w/ok.txt\0/.env", 15, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, "", 0, NULL), WARDER_EINVAL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "/w/ok.txt\0x", 11, 0, 0, 0, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(m->calls, 0);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* When the real form cannot be computed nothing is forwarded; a literal deny still reads as
 * a deny (§4.3: no existence oracle). */
START_TEST(realpath_failure)
{
        struct mock *m = mock_new(false, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        for (size_t i = 0; i < N_PATH_OPS; i++) {
                char *content = NULL;
                ck_assert_int_eq(do_op(g, path_ops[i], "/w/broken/.env", 0, &err, &content),
                                 WARDER_EDENIED);
                ck_assert_int_eq(do_op(g, path_ops[i], "/w/broken/ok", 0, &err, &content),
                                 WARDER_EIO);
                ck_assert_int_eq(
                    do_op(g, path_ops[i], "/w/broken/q.ask", WARDER_APPROVED, &err, &content),
                    WARDER_EIO);
                ck_assert_ptr_null(err.decision);
        }
        ck_assert_int_eq(m->calls, 0);
        ck_assert_int_gt(m->realpaths, 0);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, "/w/broken/ok", 12, &err),
                         WARDER_EIO);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* `~` in a target expands to the home (the guard's, else the ruleset's), §3.1. */
START_TEST(home_targets)
{
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"~/.ssh/**\"\n"
                                  "      action: deny\n",
                                  "/w");
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "~/.ssh/id_rsa", 13, 0, 0, 0, NULL),
                         WARDER_EDENIED);
        ck_assert_int_eq(warder_backend_read(&out, g, "/home/u/.ssh/id_rsa", 19, 0, 0, 0, NULL),
                         WARDER_EDENIED);
        ck_assert_int_eq(warder_backend_read(&out, g, "~/notes", 7, 0, 0, 0, NULL), WARDER_ENOENT);
        ck_assert_str_eq(m->last_path, "/home/u/notes");
        warder_backend_free(g);
        /* a guard home of its own */
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.home = "/home/other/";
        m = mock_new(false, NULL);
        g = guard_over(&m->base, rs, &o);
        ck_assert_int_eq(warder_backend_read(&out, g, "~/notes", 7, 0, 0, 0, NULL), WARDER_ENOENT);
        ck_assert_str_eq(m->last_path, "/home/other/notes");
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §4.7 grep filtering ----------------------------------------------------------------- */

static warder_backend *grep_memory(void)
{
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        const char *files[][2] = {
            {"/w/a.txt", "hello TOKEN public\n"},
            {"/w/.env", "TOKEN=hunter2\n"},
            {"/w/sub/.env", "line\nTOKEN=swordfish\nTOKEN again\n"},
            {"/w/q.ask", "TOKEN asked\n"},
            {"/w/g.nogrep", "TOKEN grep-denied\n"},
            {"/w/b.txt", "other TOKEN\n"},
        };
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                ck_assert_int_eq(warder_backend_write(mem, files[i][0], strlen(files[i][0]),
                                                      files[i][1], strlen(files[i][1]), 0, NULL),
                                 0);
        return mem;
}

static const char *const grep_yaml = "default: allow\n"
                                     "read:\n"
                                     "  rules:\n"
                                     "    - pattern: \"**/.env\"\n"
                                     "      action: deny\n"
                                     "    - pattern: \"**/*.ask\"\n"
                                     "      action: ask\n"
                                     "grep:\n"
                                     "  rules:\n"
                                     "    - pattern: \"**/*.nogrep\"\n"
                                     "      action: deny\n";

static bool grep_has(const struct warder_grep_result *r, const char *needle)
{
        for (size_t i = 0; i < r->count; i++)
                if (strstr(r->items[i].text, needle) || strstr(r->items[i].path, needle))
                        return true;
        return false;
}

START_TEST(grep_filtering)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "TOKEN";
        req.pattern_len = strlen(req.pattern);
        req.path = "/w";
        req.path_len = 2;
        /* control arm: unguarded, the secrets match */
        warder_backend *plain = grep_memory();
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, plain, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 7);
        ck_assert(grep_has(&r, "hunter2") && grep_has(&r, "swordfish") && grep_has(&r, "asked"));
        warder_grep_result_free(&r);
        warder_backend_free(plain);

        warder_ruleset *rs = load(grep_yaml, "/w");
        warder_backend *g = guard_over(grep_memory(), rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), 0);
        /* §4.7: denied-for-read, ask-for-read and denied-for-grep files are hidden, the rest
         * stays; the search as a whole is not refused */
        ck_assert_uint_eq(r.count, 2);
        ck_assert(grep_has(&r, "public") && grep_has(&r, "other"));
        ck_assert(!grep_has(&r, "hunter2") && !grep_has(&r, "swordfish"));
        ck_assert(!grep_has(&r, "asked") && !grep_has(&r, "grep-denied"));
        ck_assert_uint_eq(r.hidden_files, 4);
        warder_grep_result_free(&r);
        /* the request's approval approves the request, not the files it finds */
        req.flags = WARDER_APPROVED;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), 0);
        ck_assert_uint_eq(r.count, 2);
        ck_assert(!grep_has(&r, "asked"));
        warder_grep_result_free(&r);
        req.flags = 0;
        /* grepping the secret file itself: the base is allowed for grep, the match is dropped */
        req.path = "/w/.env";
        req.path_len = 7;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), 0);
        ck_assert_uint_eq(r.count, 0);
        ck_assert_uint_eq(r.hidden_files, 1);
        warder_grep_result_free(&r);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* grep through a link: the match's file is decided on its real form too (§4.7, either form) */
/* WARDER_BACKEND_CAP_REAL_RESULTS: the guard resolves the grep base, and each hit only when
 * the backend does not promise real results. */
START_TEST(grep_real_results_capability)
{
        static struct warder_backend_ops promising;
        promising = mock_ops;
        promising.caps = WARDER_BACKEND_CAP_REAL_RESULTS;
        for (int promise = 0; promise < 2; promise++) {
                struct mock *m = mock_new(false, NULL);
                if (promise)
                        m->base.ops = &promising;
                warder_ruleset *rs = load(all_ops_yaml, "/w");
                warder_backend *g = guard_over(&m->base, rs, NULL);
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "TOKEN";
                req.pattern_len = strlen(req.pattern);
                req.path = "/w";
                req.path_len = 2;
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                int before = m->realpaths;
                ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
                int resolved = m->realpaths - before;
                ck_assert_uint_eq(m->last_flags & WARDER_NOFOLLOW, WARDER_NOFOLLOW);
                /* .env itself is hidden either way: its literal form is denied */
                ck_assert(!grep_has(&r, "hunter2") || grep_has(&r, "hunter2") == promise);
                if (promise)
                        ck_assert_int_eq(resolved, 1); /* the base only */
                else
                        ck_assert_int_gt(resolved, 3); /* the base and every file hit */
                warder_grep_result_free(&r);
                warder_backend_free(g);
                warder_ruleset_free(rs);
        }
}
END_TEST

START_TEST(grep_real_form)
{
        struct mock *m = mock_new(false, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "TOKEN";
        req.pattern_len = strlen(req.pattern);
        req.path = "/w";
        req.path_len = 2;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        /* control: the mock itself reports the secret through /w/link-env */
        ck_assert_int_eq(warder_backend_grep(&r, &m->base, &req, NULL), 0);
        ck_assert(grep_has(&r, "hunter2"));
        warder_grep_result_free(&r);
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert(!grep_has(&r, "hunter2"));
        ck_assert(!grep_has(&r, "question"));
        ck_assert(grep_has(&r, "fine") && grep_has(&r, "sub TOKEN"));
        /* The mock does not honour may_search: the guard drops the hidden files' matches and,
         * since a count of dropped files would say which of them matched (§4.7), counts none. */
        ck_assert_uint_eq(r.hidden_files, 0);
        size_t kept = r.count;
        warder_grep_result_free(&r);
        /* matches of one file that are not consecutive */
        req.flags = WARDER_GREP_CASELESS;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2 * kept);
        ck_assert(!grep_has(&r, "hunter2"));
        warder_grep_result_free(&r);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* §4.7 with a backend that honours may_search: hidden files are skipped before they are
 * looked into and counted by name, so the count is the same whatever the pattern finds. */
START_TEST(grep_skips_before_searching)
{
        static struct warder_backend_ops filtering;
        filtering = mock_ops;
        filtering.caps = WARDER_BACKEND_CAP_GREP_FILTER;
        struct mock *m = mock_new(false, NULL);
        m->base.ops = &filtering;
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        static const char *const patterns[] = {"TOKEN", "hunter2", "question", "no-such-text"};
        for (size_t i = 0; i < 4; i++) {
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = patterns[i];
                req.pattern_len = strlen(req.pattern);
                req.path = "/w";
                req.path_len = 2;
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
                ck_assert(!grep_has(&r, "hunter2") && !grep_has(&r, "question"));
                /* .env, q.ask, link-env, link-ask: skipped whatever they contain */
                ck_assert_uint_eq(r.hidden_files, 4);
                warder_grep_result_free(&r);
        }
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* A grep for TOKEN under the fixture's root. */
static struct warder_grep_request grep_token_under_w(void)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "TOKEN";
        req.pattern_len = 5;
        req.path = "/w";
        req.path_len = 2;
        return req;
}

/* The host's own may_search is obeyed by the guard even when the inner backend ignores it:
 * the hits of a file the host refused are dropped after the fact. */
static bool host_refuses_sub(void *ud, const char *path, size_t len)
{
        (void)ud;
        return !(len >= 7 && strncmp(path, "/w/sub/", 7) == 0);
}

START_TEST(grep_host_filter_without_backend_help)
{
        struct mock *m = mock_new(false, NULL); /* ignores may_search */
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_grep_request req = grep_token_under_w();
        for (int with_filter = 0; with_filter < 2; with_filter++) {
                req.may_search = with_filter ? host_refuses_sub : NULL;
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
                ck_assert(grep_has(&r, "fine TOKEN"));
                /* control: without the host's filter /w/sub/a.txt is found */
                ck_assert_msg(grep_has(&r, "sub TOKEN") == !with_filter, "filter %d", with_filter);
                warder_grep_result_free(&r);
        }
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* may_search takes a length-delimited name: the gate decides exactly those `len` bytes or
 * refuses. A name with a NUL inside, or one whose byte at `len` is not the terminator (the
 * backend means a prefix of the buffer: "/w/.env" out of "/w/.env-public"), cannot be decided
 * as the C string it starts with, which names another file; the gate says no. */
static bool gate_answers[8];

static int asking_grep(warder_backend *b, const struct warder_grep_request *req,
                       struct warder_grep_result *out, struct warder_error *err)
{
        (void)b;
        (void)err;
        static const char with_nul[] = "/w/ok.txt\0/w/.env";
        static const char longer[] = "/w/.env-public";
        bool *a = gate_answers;
        a[0] = req->may_search(req->may_search_ud, "/w/ok.txt", 9);       /* control: allowed */
        a[1] = req->may_search(req->may_search_ud, "/w/.env", 7);         /* control: denied */
        a[2] = req->may_search(req->may_search_ud, "/w/.env-public", 14); /* control: allowed */
        a[3] = req->may_search(req->may_search_ud, with_nul, sizeof(with_nul) - 1);
        a[4] = req->may_search(req->may_search_ud, longer, 7); /* "/w/.env", not terminated */
        a[5] = req->may_search(req->may_search_ud, NULL, 0);
        /* its real form cannot be resolved: undecidable, so skipped, and the grep goes on */
        a[6] = req->may_search(req->may_search_ud, "/w/broken.txt", 13);
        *out = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        return 0;
}

START_TEST(grep_gate_takes_exact_names)
{
        static struct warder_backend_ops asking;
        asking = mock_ops;
        asking.caps = WARDER_BACKEND_CAP_GREP_FILTER;
        asking.grep = asking_grep;
        struct mock *m = mock_new(false, NULL);
        m->base.ops = &asking;
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_grep_request req = grep_token_under_w();
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        memset(gate_answers, 0xff, sizeof(gate_answers));
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert(gate_answers[0] && !gate_answers[1] && gate_answers[2]);
        ck_assert_msg(!gate_answers[3], "a name with a NUL inside was decided as its prefix");
        ck_assert_msg(!gate_answers[4], "an unterminated name was decided as the longer string");
        ck_assert(!gate_answers[5]);
        ck_assert_msg(!gate_answers[6], "a file whose real form is unknown was searched");
        warder_grep_result_free(&r);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §4.6 ls / glob filtering ------------------------------------------------------------ */

static bool entries_have(const struct warder_entries *e, const char *name)
{
        for (size_t i = 0; i < e->count; i++)
                if (strcmp(e->items[i].name, name) == 0)
                        return true;
        return false;
}

START_TEST(ls_filtering)
{
        /* ls rules hide .env; read rules (which ask for *.ask) play no part (§4.6) */
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/*.txt\"\n"
                                  "      action: deny\n"
                                  "ls:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/.env\"\n"
                                  "      action: deny\n"
                                  "    - pattern: \"**/*.ask\"\n"
                                  "      action: ask\n",
                                  "/w");
        struct mock *m = mock_new(false, NULL);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* control: the mock lists everything */
        ck_assert_int_eq(warder_backend_ls(&e, &m->base, "/w", 2, 0, NULL), 0);
        ck_assert(entries_have(&e, ".env") && entries_have(&e, "link-env"));
        size_t all = e.count;
        warder_entries_free(&e);
        warder_backend *g = guard_over(&m->base, rs, NULL);
        ck_assert_int_eq(warder_backend_ls(&e, g, "/w", 2, 0, NULL), 0);
        ck_assert(!entries_have(&e, ".env"));
        ck_assert(!entries_have(&e, "q.ask"));    /* ask is dropped too */
        ck_assert(!entries_have(&e, "link-env")); /* a symlink entry: its real form is .env */
        ck_assert(!entries_have(&e, "link-ask"));
        ck_assert(entries_have(&e, "ok.txt")); /* read rules do not hide names */
        ck_assert(entries_have(&e, "link-ok"));
        ck_assert(!entries_have(&e, "broken-link")); /* undecidable: dropped */
        ck_assert_uint_eq(e.hidden, 5);
        ck_assert_uint_eq(e.count + e.hidden, all);
        warder_entries_free(&e);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(glob_filtering)
{
        warder_ruleset *rs = load("default: allow\n"
                                  "ls:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/ok.txt\"\n"
                                  "      action: deny\n"
                                  "glob:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/.env\"\n"
                                  "      action: deny\n",
                                  "/w");
        /* over the memory backend (library or backend glob) */
        warder_backend *plain = grep_memory();
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_glob(&e, plain, "**", strlen("**"), "/w", 2, 0, NULL), 0);
        ck_assert(entries_have(&e, ".env"));
        warder_entries_free(&e);
        warder_backend_free(plain);
        warder_backend *g = guard_over(grep_memory(), rs, NULL);
        ck_assert_int_eq(warder_backend_glob(&e, g, "**", strlen("**"), "/w", 2, 0, NULL), 0);
        ck_assert(!entries_have(&e, ".env"));
        ck_assert(entries_have(&e, "a.txt") && entries_have(&e, "q.ask"));
        ck_assert_uint_eq(e.hidden, 2); /* /w/.env and /w/sub/.env */
        warder_entries_free(&e);
        warder_backend_free(g);

        /* over the mock: a symlink entry is decided on its real form as well */
        struct mock *m = mock_new(false, NULL);
        g = guard_over(&m->base, rs, NULL);
        ck_assert_int_eq(warder_backend_glob(&e, g, "*", strlen("*"), "/w", 2, 0, NULL), 0);
        ck_assert(!entries_have(&e, ".env") && !entries_have(&e, "link-env"));
        ck_assert(entries_have(&e, "ok.txt")); /* ls rules play no part */
        ck_assert_uint_eq(e.hidden, 3);        /* .env, link-env, broken-link */
        warder_entries_free(&e);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ls through a directory link: entries are decided under both spellings of their parent. */
START_TEST(ls_through_link)
{
        warder_ruleset *rs = load("default: allow\n"
                                  "ls:\n"
                                  "  rules:\n"
                                  "    - pattern: \"/w/sub-link/a.txt\"\n"
                                  "      action: deny\n",
                                  "/w");
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, g, "/w/sub-link", 11, 0, NULL), 0);
        ck_assert_str_eq(m->last_path, "/w/sub"); /* the real form was listed */
        ck_assert(!entries_have(&e, "a.txt"));
        ck_assert_uint_eq(e.hidden, 1);
        warder_entries_free(&e);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- the real kernel: a guard over the local backend with real symlinks (§3.2, §4.2) ---- */

struct tree {
        char root[256];
};

static void tree_put(const struct tree *t, const char *rel, const char *text)
{
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", t->root, rel);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
}

static void tree_link(const struct tree *t, const char *to, const char *rel)
{
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", t->root, rel);
        ck_assert_int_eq(symlink(to, p), 0);
}

static void tree_rm(const char *dir)
{
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        ck_assert_int_eq(system(cmd), 0);
}

START_TEST(local_symlinks)
{
        struct tree t;
        snprintf(t.root, sizeof(t.root), "/tmp/warder-guard-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(t.root));
        char sub[512];
        snprintf(sub, sizeof(sub), "%s/sub", t.root);
        ck_assert_int_eq(mkdir(sub, 0700), 0);
        tree_put(&t, ".env", "SECRET=hunter2\n");
        tree_put(&t, "sub/notes.txt", "plain notes\n");
        tree_link(&t, ".env", "innocent.txt"); /* a file link to the secret */
        tree_link(&t, "..", "sub/up");         /* a directory link back to the root */
        char path[512];

        /* control arm: the local backend itself follows the links to the secret */
        warder_backend *plain = NULL;
        ck_assert_int_eq(warder_local_new(&plain, t.root, NULL, NULL), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        snprintf(path, sizeof(path), "%s/innocent.txt", t.root);
        ck_assert_int_eq(warder_backend_read(&out, plain, path, strlen(path), 0, 0, 0, NULL), 0);
        ck_assert_ptr_nonnull(strstr(out.data, "hunter2"));
        warder_bytes_free(&out);
        snprintf(path, sizeof(path), "%s/sub/up/.env", t.root);
        ck_assert_int_eq(warder_backend_read(&out, plain, path, strlen(path), 0, 0, 0, NULL), 0);
        ck_assert_ptr_nonnull(strstr(out.data, "hunter2"));
        warder_bytes_free(&out);
        warder_backend_free(plain);

        /* guarded: both links are decided on their real form and denied */
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/.env\"\n"
                                  "      action: deny\n"
                                  "ls:\n"
                                  "  rules:\n"
                                  "    - pattern: \"**/.env\"\n"
                                  "      action: deny\n",
                                  t.root);
        warder_backend *local = NULL;
        ck_assert_int_eq(warder_local_new(&local, t.root, NULL, NULL), 0);
        warder_backend *g = guard_over(local, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "innocent.txt", 12, 0, 0, 0, &err),
                         WARDER_EDENIED);
        ck_assert_int_eq(err.decision->form, WARDER_FORM_REAL);
        ck_assert_ptr_null(out.data);
        ck_assert_int_eq(warder_backend_read(&out, g, "sub/up/.env", 11, 0, 0, 0, &err),
                         WARDER_EDENIED);
        ck_assert_int_eq(warder_backend_read(&out, g, "sub/up/sub/notes.txt", 20, 0, 0, 0, &err),
                         0);
        ck_assert_ptr_nonnull(strstr(out.data, "plain notes"));
        warder_bytes_free(&out);
        /* grep: the secret's line never appears, under any name */
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "hunter2|notes";
        req.pattern_len = strlen(req.pattern);
        req.path = t.root;
        req.path_len = strlen(t.root);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), 0);
        ck_assert(!grep_has(&r, "hunter2"));
        ck_assert(grep_has(&r, "plain notes"));
        ck_assert_uint_ge(r.hidden_files, 1);
        warder_grep_result_free(&r);
        /* ls: the link entry whose real form is .env is hidden */
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, g, t.root, strlen(t.root), 0, &err), 0);
        ck_assert(!entries_have(&e, ".env") && !entries_have(&e, "innocent.txt"));
        ck_assert(entries_have(&e, "sub"));
        ck_assert_uint_eq(e.hidden, 2);
        warder_entries_free(&e);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
        tree_rm(t.root);
}
END_TEST

/* §5.5: an unquoted glob in a command is expanded through the inner backend, so over the
 * local backend `cat .e*` is decided on `.env` itself, not left undeterminable. */
START_TEST(command_globs_expand_through_local)
{
        struct tree t;
        snprintf(t.root, sizeof(t.root), "/tmp/warder-guard-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(t.root));
        char sub[512];
        snprintf(sub, sizeof(sub), "%s/sub", t.root);
        ck_assert_int_eq(mkdir(sub, 0700), 0);
        tree_put(&t, ".env", "SECRET=hunter2\n");
        tree_put(&t, "sub/a.txt", "plain\n");
        snprintf(sub, sizeof(sub), "%s/vault", t.root);
        ck_assert_int_eq(mkdir(sub, 0700), 0);
        tree_put(&t, "vault/.env", "SECRET=swordfish\n");
        tree_link(&t, "vault", "keys"); /* a directory link: the shell follows it, a walk not */
        static const char *const yaml[2] = {"default: allow\n"
                                            "read:\n"
                                            "  rules:\n"
                                            "    - deny: '**/.env'\n",
                                            "default: allow\n"};
        for (int arm = 0; arm < 2; arm++) {
                warder_ruleset *rs = load(yaml[arm], t.root);
                warder_backend *local = NULL;
                ck_assert_int_eq(warder_local_new(&local, t.root, NULL, NULL), 0);
                warder_backend *g = guard_over(local, rs, NULL);
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "cat .e*", 7, NULL),
                                 0);
                /* arm 0 denies on the expanded .env; arm 1 (no .env rule, the control) allows:
                 * an unexpanded glob would have been at least ask in both */
                ck_assert_int_eq(d.action, (arm == 0 ? WARDER_DENY : WARDER_ALLOW));
                warder_decision_clear(&d);
                ck_assert_int_eq(
                    warder_guard_check(&d, g, WARDER_OP_EXECUTE, "cat keys/.e*", 12, NULL), 0);
                ck_assert_int_eq(d.action, (arm == 0 ? WARDER_DENY : WARDER_ALLOW));
                warder_decision_clear(&d);
                ck_assert_int_eq(
                    warder_guard_check(&d, g, WARDER_OP_EXECUTE, "cat sub/*.txt", 13, NULL), 0);
                ck_assert_int_eq(d.action, WARDER_ALLOW);
                warder_decision_clear(&d);
                warder_backend_free(g);
                warder_ruleset_free(rs);
        }
        tree_rm(t.root);
}
END_TEST

/* A pass-through backend over the local one that counts realpath calls and inner reads, and
 * states (or not) the local backend's promise WARDER_BACKEND_CAP_STRICT_NOFOLLOW. */
struct counting {
        struct warder_backend base;
        warder_backend *inner;
        int realpaths, reads;
};

static int counting_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                         unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        struct counting *c = (struct counting *)b;
        c->reads++;
        return warder_backend_read(out, c->inner, path, strlen(path), offset, limit, flags, err);
}

static int counting_write(warder_backend *b, const char *path, const void *data, size_t len,
                          unsigned flags, struct warder_error *err)
{
        struct counting *c = (struct counting *)b;
        return warder_backend_write(c->inner, path, strlen(path), data, len, flags, err);
}

static int counting_ls(warder_backend *b, const char *path, unsigned flags,
                       struct warder_entries *out, struct warder_error *err)
{
        struct counting *c = (struct counting *)b;
        return warder_backend_ls(out, c->inner, path, strlen(path), flags, err);
}

static int counting_realpath(warder_backend *b, const char *path, char **out,
                             struct warder_error *err)
{
        struct counting *c = (struct counting *)b;
        c->realpaths++;
        return warder_backend_realpath(out, c->inner, path, strlen(path), err);
}

static void counting_destroy(warder_backend *b)
{
        struct counting *c = (struct counting *)b;
        warder_backend_free(c->inner);
        free(c);
}

static const struct warder_backend_ops counting_plain_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = counting_read,
    .write = counting_write,
    .ls = counting_ls,
    .realpath = counting_realpath,
    .destroy = counting_destroy,
};

/* §3.3 with WARDER_BACKEND_CAP_STRICT_NOFOLLOW: an allowed literal form is read without a
 * realpath; a symlink still has its real form decided; a denied literal never reaches the
 * backend. Without the promise every read resolves first. */
START_TEST(read_literal_first)
{
        struct tree t;
        snprintf(t.root, sizeof(t.root), "/tmp/warder-guard-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(t.root));
        tree_put(&t, ".env", "SECRET=hunter2\n");
        tree_put(&t, "notes.txt", "plain notes\n");
        tree_link(&t, ".env", "innocent.txt");
        warder_ruleset *rs = load("default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - deny: '**/.env'\n",
                                  t.root);
        static struct warder_backend_ops counting_strict_ops;
        counting_strict_ops = counting_plain_ops;
        counting_strict_ops.caps = WARDER_BACKEND_CAP_STRICT_NOFOLLOW;
        for (int strict = 0; strict < 2; strict++) {
                struct counting *c = calloc(1, sizeof(*c));
                ck_assert_ptr_nonnull(c);
                ck_assert_int_eq(warder_local_new(&c->inner, t.root, NULL, NULL), 0);
                ck_assert_int_eq(
                    warder_backend_init(&c->base,
                                        strict ? &counting_strict_ops : &counting_plain_ops, NULL),
                    0);
                warder_backend *g = guard_over(&c->base, rs, NULL);
                struct warder_bytes out = WARDER_BYTES_INIT;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_int_eq(warder_backend_read(&out, g, "notes.txt", 9, 0, 0, 0, &err), 0);
                ck_assert_ptr_nonnull(strstr(out.data, "plain notes"));
                warder_bytes_free(&out);
                ck_assert_int_eq(c->realpaths, strict ? 0 : 1);
                ck_assert_int_eq(c->reads, 1);
                /* the symlink: the literal read meets it, then the real form denies */
                ck_assert_int_eq(warder_backend_read(&out, g, "innocent.txt", 12, 0, 0, 0, &err),
                                 WARDER_EDENIED);
                ck_assert_ptr_null(out.data);
                ck_assert_int_eq(err.decision->form, WARDER_FORM_REAL);
                ck_assert_int_eq(c->realpaths, strict ? 1 : 2);
                ck_assert_int_eq(c->reads, strict ? 2 : 1);
                /* a denied literal form: nothing is forwarded */
                ck_assert_int_eq(warder_backend_read(&out, g, ".env", 4, 0, 0, 0, &err),
                                 WARDER_EDENIED);
                ck_assert_int_eq(c->reads, strict ? 2 : 1);
                warder_error_clear(&err);
                warder_backend_free(g);
        }
        warder_ruleset_free(rs);
        tree_rm(t.root);
}
END_TEST

/* ---- §4.8 execute exposure ----------------------------------------------------------------- */

START_TEST(execute_exposure)
{
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        /* memory has no execute: neither has its guard, and both answer ENOTSUP */
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert(!warder_backend_can_execute(mem));
        struct warder_error err = WARDER_ERROR_INIT;
        char *content;
        ck_assert_int_eq(do_op(mem, WARDER_OP_EXECUTE, "echo hi", 0, &err, &content),
                         WARDER_ENOTSUP);
        warder_backend *g = guard_over(mem, rs, NULL);
        ck_assert(!warder_backend_can_execute(g));
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "echo hi", 0, &err, &content), WARDER_ENOTSUP);
        warder_backend_free(g);

        /* a backend with execute: the guard has it, decides, and forwards */
        struct mock *m = mock_new(true, NULL);
        const char *const env[] = {"LANG=C", NULL};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.env = env;
        g = guard_over(&m->base, rs, &o);
        ck_assert(warder_backend_can_execute(g));
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "echo hi", 0, &err, &content), 0);
        ck_assert_str_eq(m->last_op, "execute");
        ck_assert_str_eq(m->last_path, "echo hi");
        ck_assert_str_eq(m->last_cwd, "/w");     /* the root when the request names none */
        ck_assert_str_eq(m->last_env, "LANG=C"); /* the guard's environment */
        /* §6.5: the guard's mask hides what is denied, leaves what is allowed, and hides a
         * name it cannot place (not absolute) */
        ck_assert(m->masked);
        ck_assert_uint_eq(m->mask_env & WARDER_MASK_HIDE, WARDER_MASK_HIDE);
        ck_assert_uint_eq(m->mask_ok, 0);
        ck_assert_uint_eq(m->mask_relative, WARDER_MASK_HIDE);
        struct warder_exec_request xr = WARDER_EXEC_REQUEST_INIT;
        struct warder_exec_result xo = WARDER_EXEC_RESULT_INIT;
        const char *const env2[] = {"A=1", NULL};
        xr.command = "ls";
        xr.command_len = 2;
        xr.cwd = "sub-link"; /* relative to the root, and a link: its real form is forwarded */
        xr.env = env2;
        ck_assert_int_eq(warder_backend_execute(&xo, g, &xr, NULL), 0);
        warder_exec_result_free(&xo);
        ck_assert_str_eq(m->last_cwd, "/w/sub");
        ck_assert_str_eq(m->last_env, "A=1");
        m->calls = 0;
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "rm -rf /tmp/x", 0, &err, &content),
                         WARDER_EDENIED);
        ck_assert_ptr_nonnull(err.decision);
        ck_assert_int_eq(err.decision->op, WARDER_OP_EXECUTE);
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "echo a; rm -rf /tmp/x", 0, &err, &content),
                         WARDER_EDENIED);
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "make all", 0, &err, &content), WARDER_EASK);
        /* path candidates are decided on their real form, resolved through the inner
         * backend (§5.4 with §3.2): the literal names are allowed, their targets are not */
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "cat link-env", 0, &err, &content),
                         WARDER_EDENIED);
        ck_assert_ptr_nonnull(err.decision->candidate);
        ck_assert_int_eq(err.decision->candidate_op, WARDER_OP_READ);
        ck_assert_int_eq(
            do_op(g, WARDER_OP_EXECUTE, "cd etc-link && cat passwd", 0, &err, &content),
            WARDER_EDENIED);
        ck_assert_int_eq(m->realpaths > 0, 1);
        ck_assert_int_eq(
            do_op(g, WARDER_OP_EXECUTE, "rm -rf /tmp/x", WARDER_APPROVED, &err, &content),
            WARDER_EDENIED);
        ck_assert_int_eq(m->calls, 0);
        ck_assert_int_eq(do_op(g, WARDER_OP_EXECUTE, "make all", WARDER_APPROVED, &err, &content),
                         0);
        ck_assert_int_eq(m->calls, 1);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §4.4 approval ------------------------------------------------------------------------ */

struct approver {
        bool answer;
        int calls;
        enum warder_op op;
        char literal[256], real[256], target[256];
        enum warder_action action;
};

static bool approve_cb(void *ud, const struct warder_guard_request *req,
                       const struct warder_decision *d)
{
        struct approver *a = ud;
        a->calls++;
        a->op = req->op;
        snprintf(a->literal, sizeof(a->literal), "%s", req->literal);
        snprintf(a->real, sizeof(a->real), "%s", req->real ? req->real : "");
        snprintf(a->target, sizeof(a->target), "%s", req->target);
        a->action = d->action;
        return a->answer;
}

START_TEST(approval_callback)
{
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        struct approver a = {.answer = true};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.approve = approve_cb;
        o.approve_ud = &a;
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, rs, &o);
        struct warder_error err = WARDER_ERROR_INIT;
        char *content = NULL;
        /* yes: forwarded (the real form) */
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "link-ask", 0, &err, &content), 0);
        ck_assert_str_eq(content, "question TOKEN");
        free(content);
        ck_assert_int_eq(a.calls, 1);
        ck_assert_int_eq(a.op, WARDER_OP_READ);
        ck_assert_str_eq(a.target, "link-ask");
        ck_assert_str_eq(a.literal, "/w/link-ask");
        ck_assert_str_eq(a.real, "/w/q.ask");
        ck_assert_int_eq(a.action, WARDER_ASK);
        ck_assert_str_eq(m->last_path, "/w/q.ask");
        /* no: refused, not forwarded */
        a.answer = false;
        m->calls = 0;
        ck_assert_int_eq(do_op(g, WARDER_OP_WRITE, "/w/q.ask", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(a.calls, 2);
        ck_assert_int_eq(m->calls, 0);
        ck_assert_ptr_nonnull(err.decision);
        ck_assert_int_eq(err.decision->action, WARDER_ASK);
        /* deny never asks */
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "/w/.env", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(a.calls, 2);
        /* allow never asks */
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "/w/ok.txt", 0, &err, &content), 0);
        free(content);
        ck_assert_int_eq(a.calls, 2);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(approved_flag)
{
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        for (size_t i = 0; i < N_PATH_OPS; i++) {
                enum warder_op op = path_ops[i];
                struct mock *m = mock_new(false, NULL);
                warder_backend *g = guard_over(&m->base, rs, NULL);
                struct warder_error err = WARDER_ERROR_INIT;
                char *content = NULL;
                /* without the flag: EASK; with it: forwarded */
                ck_assert_int_eq(do_op(g, op, "/w/q.ask", 0, &err, &content), WARDER_EASK);
                ck_assert_int_eq(m->calls, 0);
                int rc = do_op(g, op, "/w/q.ask", WARDER_APPROVED, &err, &content);
                ck_assert_msg(rc != WARDER_EASK && rc != WARDER_EDENIED, "%s: %s",
                              warder_op_name(op), warder_status_name(rc));
                ck_assert_int_ge(m->calls, 1);
                free(content);
                /* the flag never satisfies deny, literal or real */
                m->calls = 0;
                ck_assert_int_eq(do_op(g, op, "/w/.env", WARDER_APPROVED, &err, &content),
                                 WARDER_EDENIED);
                ck_assert_int_eq(do_op(g, op, "/w/link-env", WARDER_APPROVED, &err, &content),
                                 WARDER_EDENIED);
                ck_assert_int_eq(m->calls, 0);
                warder_error_clear(&err);
                warder_backend_free(g);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §4.9 audit ---------------------------------------------------------------------------- */

struct auditor {
        int events, filtered, asked;
        bool last_asked, last_approved;
        int filtered_refused; /* result entries reported with a final action other than allow */
        enum warder_op last_filtered_op;
        enum warder_action last_final;
        char last_rule[64];
        char last_literal[256];
        enum warder_op last_op;
};

static void audit_cb(void *ud, const struct warder_audit_event *ev)
{
        struct auditor *a = ud;
        a->events++;
        if (ev->filtered) {
                a->filtered++;
                a->filtered_refused += ev->final_action != WARDER_ALLOW;
                a->last_filtered_op = ev->request->op;
        } else {
                a->last_final = ev->final_action;
                a->last_asked = ev->approval_asked;
                a->last_approved = ev->approved;
                a->last_op = ev->request->op;
                snprintf(a->last_rule, sizeof(a->last_rule), "%s",
                         ev->decision->rule_id ? ev->decision->rule_id : "");
                snprintf(a->last_literal, sizeof(a->last_literal), "%s", ev->request->literal);
        }
        if (ev->approval_asked)
                a->asked++;
}

START_TEST(audit_events)
{
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        struct auditor au = {0};
        struct approver ap = {.answer = true};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.audit = audit_cb;
        o.audit_ud = &au;
        o.approve = approve_cb;
        o.approve_ud = &ap;
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, rs, &o);
        struct warder_error err = WARDER_ERROR_INIT;
        char *content = NULL;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "/w/.env", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(au.events, 1);
        ck_assert_int_eq(au.last_final, WARDER_DENY);
        ck_assert_str_eq(au.last_rule, "read:1");
        ck_assert_str_eq(au.last_literal, "/w/.env");
        ck_assert_int_eq(do_op(g, WARDER_OP_WRITE, "q.ask", 0, &err, &content), 0);
        ck_assert_int_eq(au.events, 2);
        ck_assert_int_eq(au.asked, 1);
        ck_assert_int_eq(au.last_final, WARDER_ALLOW);
        ck_assert_int_eq(au.last_op, WARDER_OP_WRITE);
        ck_assert(au.last_asked && au.last_approved);
        /* declined: asked, not approved, final deny */
        ap.answer = false;
        ck_assert_int_eq(do_op(g, WARDER_OP_WRITE, "q.ask", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(au.last_final, WARDER_DENY);
        ck_assert(au.last_asked && !au.last_approved);
        ap.answer = true;
        /* approved by the request's flag: not asked, approved, final allow */
        int asked_before = au.asked;
        ck_assert_int_eq(do_op(g, WARDER_OP_WRITE, "q.ask", WARDER_APPROVED, &err, &content), 0);
        ck_assert_int_eq(au.last_final, WARDER_ALLOW);
        ck_assert(!au.last_asked && au.last_approved);
        ck_assert_int_eq(au.asked, asked_before);
        /* allowed outright: neither asked nor approved */
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "/w/ok.txt", 0, &err, &content), 0);
        free(content);
        content = NULL;
        ck_assert_int_eq(au.last_final, WARDER_ALLOW);
        ck_assert(!au.last_asked && !au.last_approved);
        {
                /* without an approval callback: the ask is reported as ask */
                struct auditor au2 = {0};
                struct warder_guard_options o2 = WARDER_GUARD_OPTIONS_INIT;
                o2.audit = audit_cb;
                o2.audit_ud = &au2;
                struct mock *m2 = mock_new(false, NULL);
                warder_backend *g2 = guard_over(&m2->base, rs, &o2);
                ck_assert_int_eq(do_op(g2, WARDER_OP_WRITE, "q.ask", 0, &err, &content),
                                 WARDER_EASK);
                ck_assert_int_eq(au2.events, 1);
                ck_assert_int_eq(au2.last_final, WARDER_ASK);
                ck_assert(!au2.last_asked && !au2.last_approved);
                warder_backend_free(g2);
        }
        int events_before = au.events;
        /* ls: one event for the request, one per decided entry (flagged filtered); the
         * entry whose real form cannot be computed is dropped without a decision */
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, g, "/w", 2, 0, NULL), 0);
        ck_assert_int_eq(au.events, events_before + 1 + (int)(e.count + e.hidden) - 1);
        ck_assert_int_eq(au.filtered, (int)(e.count + e.hidden) - 1);
        ck_assert_uint_gt(e.hidden, 0);
        warder_entries_free(&e);
        /* grep: one event for the request, one per file of the raw results (flagged filtered);
         * the files whose matches were dropped are reported refused */
        int before = au.events, before_filtered = au.filtered;
        int before_refused = au.filtered_refused;
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "TOKEN";
        req.pattern_len = strlen(req.pattern);
        req.path = "/w";
        req.path_len = 2;
        struct warder_grep_result gr = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&gr, g, &req, NULL), 0);
        ck_assert_uint_gt(gr.count, 0);
        /* the mock's grep does not honour the guard's skip predicate: the guard drops the
         * refused files' matches itself and counts none of them (§4.7) */
        ck_assert_uint_eq(gr.hidden_files, 0);
        int refused = au.filtered_refused - before_refused;
        ck_assert_int_gt(refused, 0);
        size_t kept_files = 0;
        for (size_t i = 0; i < gr.count; i++)
                kept_files += i == 0 || strcmp(gr.items[i].path, gr.items[i - 1].path) != 0;
        ck_assert_int_eq(au.filtered - before_filtered, (int)kept_files + refused);
        ck_assert_int_eq(au.events - before, 1 + au.filtered - before_filtered);
        ck_assert_int_eq(au.last_filtered_op, WARDER_OP_GREP);
        warder_grep_result_free(&gr);
        /* warder_guard_check decides quietly: no audit, no approval */
        int events = au.events, asked = ap.calls;
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, "q.ask", 5, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        warder_decision_clear(&d);
        ck_assert_int_eq(au.events, events);
        ck_assert_int_eq(ap.calls, asked);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

struct approver_ex {
        enum warder_approval answer;
        int calls;
        char digest[80];
};

static enum warder_approval approve_ex_cb(void *ud, const struct warder_guard_request *req,
                                          const struct warder_decision *d)
{
        struct approver_ex *a = ud;
        a->calls++;
        ck_assert_int_eq(d->action, WARDER_ASK);
        ck_assert_ptr_nonnull(req->rules);
        snprintf(a->digest, sizeof(a->digest), "%s", warder_ruleset_digest(req->rules));
        return a->answer;
}

/* approve_ex: grant goes on, decline is EDENIED, defer is EASK without forwarding; the
 * callback sees the ruleset that decided. */
START_TEST(approval_ex_callback)
{
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        struct approver_ex a = {.answer = WARDER_APPROVAL_GRANT};
        struct auditor au = {0};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.approve_ex = approve_ex_cb;
        o.approve_ud = &a;
        o.audit = audit_cb;
        o.audit_ud = &au;
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, rs, &o);
        struct warder_error err = WARDER_ERROR_INIT;
        char *content = NULL;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "q.ask", 0, &err, &content), 0);
        free(content);
        content = NULL;
        ck_assert_int_eq(a.calls, 1);
        ck_assert_str_eq(a.digest, warder_ruleset_digest(rs));
        ck_assert_int_eq(au.last_final, WARDER_ALLOW);
        a.answer = WARDER_APPROVAL_DEFER;
        m->calls = 0;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "q.ask", 0, &err, &content), WARDER_EASK);
        ck_assert_int_eq(m->calls, 0);
        ck_assert_ptr_nonnull(err.decision);
        ck_assert_int_eq(err.decision->action, WARDER_ASK);
        ck_assert_int_eq(au.last_final, WARDER_ASK);
        a.answer = WARDER_APPROVAL_DECLINE;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "q.ask", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(au.last_final, WARDER_DENY);
        a.answer = (enum warder_approval)7; /* not an answer: declined */
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "q.ask", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(m->calls, 0);
        /* deny is never put to the callback */
        a.calls = 0;
        a.answer = WARDER_APPROVAL_GRANT;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "/w/.env", 0, &err, &content), WARDER_EDENIED);
        ck_assert_int_eq(a.calls, 0);
        /* after a swap the callback sees the new ruleset */
        warder_ruleset *other = load("default: ask\n", "/w");
        ck_assert_str_ne(warder_ruleset_digest(other), warder_ruleset_digest(rs));
        ck_assert_int_eq(warder_guard_set_ruleset(g, other), 0);
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "q.ask", 0, &err, &content), 0);
        free(content);
        ck_assert_str_eq(a.digest, warder_ruleset_digest(other));
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(other);
        /* approve and approve_ex together are a misuse; a version 1 options struct has no
         * approve_ex (its value is not read) */
        struct mock *m2 = mock_new(false, NULL);
        warder_backend *g2 = NULL;
        o.approve = approve_cb;
        ck_assert_int_eq(warder_guard_new(&g2, &m2->base, rs, &o, NULL), WARDER_EINVAL);
        o.version = 1;
        ck_assert_int_eq(warder_guard_new(&g2, &m2->base, rs, &o, NULL), 0);
        warder_backend_free(g2);
        warder_ruleset_free(rs);
}
END_TEST

/* §4.7: a file's consecutive matches share one decision, so one audit event per file of the
 * results, whatever its number of matching lines; the dropped ones are reported refused. */
START_TEST(grep_audit_once_per_file)
{
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        static const struct {
                const char *path, *text;
        } files[] = {{"/w/a.txt", "TOKEN 1\nTOKEN 2\nTOKEN 3\n"},
                     {"/w/b.txt", "TOKEN 4\n"},
                     {"/w/.env", "TOKEN 5\nTOKEN 6\n"},
                     {"/w/c.txt", "TOKEN 7\nnothing\nTOKEN 8\n"}};
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                ck_assert_int_eq(warder_backend_write(mem, files[i].path, strlen(files[i].path),
                                                      files[i].text, strlen(files[i].text), 0,
                                                      NULL),
                                 0);
        warder_ruleset *rs = load("default: allow\nread:\n  rules:\n    - deny: '**/.env'\n", "/w");
        struct auditor au = {0};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.audit = audit_cb;
        o.audit_ud = &au;
        warder_backend *g = guard_over(mem, rs, &o);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "TOKEN";
        req.pattern_len = strlen(req.pattern);
        req.path = "/w";
        req.path_len = 2;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 6);
        ck_assert_uint_eq(r.hidden_files, 1);
        ck_assert_int_eq(au.events, 1 + 4);
        ck_assert_int_eq(au.filtered, 4);
        ck_assert_int_eq(au.filtered_refused, 1);
        warder_grep_result_free(&r);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* Misuse of the guard's own entry points: EINVAL with its message, outputs untouched. */
START_TEST(guard_misuse)
{
        struct mock *m = mock_new(true, NULL);
        warder_ruleset *rs = load("default: allow\n", "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_decision d = WARDER_DECISION_INIT;
        d.rule_id = "untouched";
        ck_assert_int_eq(warder_guard_check(&d, &m->base, WARDER_OP_READ, "/w/a", 4, &err),
                         WARDER_EINVAL);
        ck_assert_str_eq(err.message, "guard check: invalid argument");
        ck_assert_int_eq(warder_guard_check(NULL, g, WARDER_OP_READ, "/w/a", 4, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(
            warder_guard_check(&d, g, (enum warder_op)WARDER_OP_COUNT, "/w/a", 4, &err),
            WARDER_EINVAL);
        ck_assert_str_eq(err.message, "guard check: invalid argument");
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, NULL, 4, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "guard check: target is NULL");
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "ls", 0, &err),
                         WARDER_EINVAL);
        ck_assert_str_eq(err.message, "execute: empty command");
        ck_assert_str_eq(d.rule_id, "untouched");
        /* the last valid operation works */
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "ls", 2, &err), 0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        warder_decision_clear(&d);
        /* a relative root or home is refused by name */
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        warder_backend *g2 = (warder_backend *)(uintptr_t)0x1;
        struct mock *m2 = mock_new(false, NULL);
        o.root = "rel";
        ck_assert_int_eq(warder_guard_new(&g2, &m2->base, rs, &o, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "the guard's root must be absolute: 'rel'");
        o.root = NULL;
        o.home = "h";
        ck_assert_int_eq(warder_guard_new(&g2, &m2->base, rs, &o, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "the guard's home must be absolute: 'h'");
        ck_assert_ptr_eq(g2, (warder_backend *)(uintptr_t)0x1);
        ck_assert_int_eq(warder_guard_new(NULL, &m2->base, rs, NULL, &err), WARDER_EINVAL);
        ck_assert_str_eq(err.message, "guard: out, inner and rules are required");
        /* the root, home and environment given are normalised and copied */
        char root[] = "/w//./sub/..", home[] = "/home//u", env0[] = "A=1";
        const char *env[] = {env0, NULL};
        o.root = root;
        o.home = home;
        o.env = env;
        ck_assert_int_eq(warder_guard_new(&g2, &m2->base, rs, &o, &err), 0);
        memset(root, 'x', sizeof(root) - 1);
        memset(home, 'x', sizeof(home) - 1);
        memset(env0, 'x', sizeof(env0) - 1);
        ck_assert_int_eq(warder_guard_check(&d, g2, WARDER_OP_EXECUTE, "cat $A", 6, &err), 0);
        ck_assert_int_eq(d.action, WARDER_ALLOW); /* $A is declared: determinable */
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_guard_check(&d, g2, WARDER_OP_READ, "x", 1, &err), 0);
        warder_decision_clear(&d);
        warder_backend_free(g2);
        /* realpath of a guard whose inner backend has none is the path itself */
        char *real = NULL;
        ck_assert_int_eq(warder_backend_realpath(&real, g, "/w/a/../b", 9, &err), 0);
        ck_assert_str_eq(real, "/w/a/../b");
        warder_free(real);
        warder_error_clear(&err);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- §4.1 guard over guard ------------------------------------------------------------------ */

START_TEST(guard_over_guard)
{
        warder_ruleset *inner_rs = load("default: allow\n"
                                        "read:\n"
                                        "  rules:\n"
                                        "    - pattern: \"**/.env\"\n"
                                        "      action: deny\n",
                                        "/w");
        warder_ruleset *outer_rs = load("default: allow\n"
                                        "read:\n"
                                        "  rules:\n"
                                        "    - pattern: \"**/ok.txt\"\n"
                                        "      action: deny\n"
                                        "    - pattern: \"**/*.env\"\n"
                                        "      action: ask\n",
                                        "/w");
        struct mock *m = mock_new(false, NULL);
        warder_backend *inner = guard_over(&m->base, inner_rs, NULL);
        warder_backend *outer = guard_over(inner, outer_rs, NULL);
        ck_assert(warder_guard_is(outer) && warder_guard_is(inner) && !warder_guard_is(&m->base));
        ck_assert(warder_backend_can_realpath(outer));
        struct warder_error err = WARDER_ERROR_INIT;
        char *content = NULL;
        /* outer denies, inner would allow */
        ck_assert_int_eq(do_op(outer, WARDER_OP_READ, "/w/ok.txt", 0, &err, &content),
                         WARDER_EDENIED);
        /* outer asks: the host's approval satisfies it, then the inner's deny still holds */
        ck_assert_int_eq(do_op(outer, WARDER_OP_READ, "/w/.env", 0, &err, &content), WARDER_EASK);
        ck_assert_int_eq(do_op(outer, WARDER_OP_READ, "/w/.env", WARDER_APPROVED, &err, &content),
                         WARDER_EDENIED);
        /* the real form is resolved through both guards: the inner denies the link */
        ck_assert_int_eq(
            do_op(outer, WARDER_OP_READ, "/w/link-env", WARDER_APPROVED, &err, &content),
            WARDER_EDENIED);
        ck_assert_int_eq(m->calls, 0);
        /* both allow */
        ck_assert_int_eq(do_op(outer, WARDER_OP_READ, "/w/sub/a.txt", 0, &err, &content), 0);
        ck_assert_str_eq(content, "sub TOKEN");
        free(content);
        warder_error_clear(&err);
        warder_backend_free(outer);
        warder_ruleset_free(inner_rs);
        warder_ruleset_free(outer_rs);
}
END_TEST

/* ---- ownership --------------------------------------------------------------------------------
 */

START_TEST(ownership)
{
        int destroyed = 0;
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        struct mock *m = mock_new(false, &destroyed);
        warder_backend *g = NULL;
        /* failures leave inner with the caller */
        struct warder_guard_options bad = WARDER_GUARD_OPTIONS_INIT;
        bad.version = 99;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_guard_new(&g, &m->base, rs, &bad, &err), WARDER_EINVAL);
        ck_assert_ptr_null(g);
        bad.version = WARDER_GUARD_OPTIONS_VERSION;
        bad.root = "relative/root";
        ck_assert_int_eq(warder_guard_new(&g, &m->base, rs, &bad, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_new(&g, &m->base, NULL, NULL, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_new(&g, NULL, rs, NULL, &err), WARDER_EINVAL);
        ck_assert_ptr_null(g);
        ck_assert_int_eq(destroyed, 0);
        /* the ruleset reference is the guard's own: the caller may drop theirs at once */
        const char *const env[] = {"HOME=/home/u", "LANG=C", NULL};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.env = env;
        o.root = "/w/";
        ck_assert_int_eq(warder_guard_new(&g, &m->base, rs, &o, &err), 0);
        warder_ruleset_free(rs);
        warder_ruleset *cur = NULL;
        ck_assert_int_eq(warder_guard_ruleset(&cur, g), 0);
        ck_assert_ptr_nonnull(cur);
        warder_ruleset_free(cur);
        warder_ruleset *none = NULL;
        ck_assert_int_eq(warder_guard_ruleset(&none, &m->base), WARDER_EINVAL);
        ck_assert_ptr_null(none);
        ck_assert_int_eq(warder_guard_set_ruleset(&m->base, cur), WARDER_EINVAL);
        char *content = NULL;
        ck_assert_int_eq(do_op(g, WARDER_OP_READ, "ok.txt", 0, &err, &content), 0);
        free(content);
        ck_assert_int_eq(destroyed, 0);
        warder_backend_free(g);
        ck_assert_int_eq(destroyed, 1);
        warder_error_clear(&err);
}
END_TEST

/* ---- §4.10 swapping rulesets under load ------------------------------------------------------ */

static const char *const swap_a = "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"/w/x\"\n"
                                  "      action: deny\n"
                                  "      reason: ruleset A\n"
                                  "    - pattern: \"/w/y\"\n"
                                  "      action: allow\n"
                                  "      reason: ruleset A\n";
static const char *const swap_b = "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - pattern: \"/w/x\"\n"
                                  "      action: allow\n"
                                  "      reason: ruleset B\n"
                                  "    - pattern: \"/w/y\"\n"
                                  "      action: deny\n"
                                  "      reason: ruleset B\n";

START_TEST(set_ruleset_takes_effect)
{
        warder_ruleset *a = load(swap_a, "/w"), *b = load(swap_b, "/w");
        struct mock *m = mock_new(false, NULL);
        warder_backend *g = guard_over(&m->base, a, NULL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "x", 1, 0, 0, 0, NULL), WARDER_EDENIED);
        ck_assert_int_eq(warder_guard_set_ruleset(g, b), 0);
        warder_ruleset_free(b); /* the guard's reference keeps it */
        ck_assert_int_eq(warder_backend_read(&out, g, "x", 1, 0, 0, 0, NULL), WARDER_ENOENT);
        ck_assert_str_eq(m->last_path, "/w/x");
        ck_assert_int_eq(warder_backend_read(&out, g, "y", 1, 0, 0, 0, NULL), WARDER_EDENIED);
        ck_assert_int_eq(warder_guard_set_ruleset(g, NULL), WARDER_EINVAL);
        warder_ruleset *cur = NULL;
        ck_assert_int_eq(warder_guard_ruleset(&cur, g), 0);
        ck_assert_ptr_nonnull(cur);
        ck_assert_ptr_ne(cur, a);
        warder_ruleset_free(cur);
        warder_backend_free(g);
        warder_ruleset_free(a);
}
END_TEST

struct stress {
        warder_backend *g;
        warder_ruleset *a, *b;
        int torn;
        int seen_a, seen_b;
        int iterations;
};

/* A decision is consistent when the action agrees with the ruleset its reason names. */
static bool consistent(const char *target, const struct warder_decision *d)
{
        if (!d->reason)
                return false;
        bool a = strcmp(d->reason, "ruleset A") == 0;
        bool deny_x = strcmp(target, "/w/x") == 0;
        return (d->action == WARDER_DENY) == (a == deny_x);
}

static void *stress_checker(void *arg)
{
        struct stress *s = arg;
        int torn = 0, seen_a = 0, seen_b = 0;
        for (int i = 0; i < s->iterations; i++) {
                const char *t = i & 1 ? "/w/x" : "/w/y";
                struct warder_decision d = WARDER_DECISION_INIT;
                if (warder_guard_check(&d, s->g, WARDER_OP_READ, t, 4, NULL) != 0 ||
                    !consistent(t, &d))
                        torn++;
                else if (strcmp(d.reason, "ruleset A") == 0)
                        seen_a++;
                else
                        seen_b++;
                warder_decision_clear(&d);
                /* a real request: refused with a consistent decision, or served */
                struct warder_error err = WARDER_ERROR_INIT;
                struct warder_bytes out = WARDER_BYTES_INIT;
                int rc = warder_backend_read(&out, s->g, t, 4, 0, 0, 0, &err);
                if (rc == WARDER_EDENIED) {
                        if (!err.decision || !consistent(t, err.decision))
                                torn++;
                } else if (rc != 0) {
                        torn++;
                }
                warder_bytes_free(&out);
                warder_error_clear(&err);
        }
        __atomic_add_fetch(&s->torn, torn, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&s->seen_a, seen_a, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&s->seen_b, seen_b, __ATOMIC_SEQ_CST);
        return NULL;
}

static void *stress_swapper(void *arg)
{
        struct stress *s = arg;
        for (int i = 0; i < s->iterations; i++) {
                ck_assert_int_eq(warder_guard_set_ruleset(s->g, i & 1 ? s->a : s->b), 0);
                warder_ruleset *cur = NULL;
                ck_assert_int_eq(warder_guard_ruleset(&cur, s->g), 0);
                ck_assert(cur == s->a || cur == s->b);
                warder_ruleset_free(cur);
        }
        return NULL;
}

START_TEST(swap_under_load)
{
        struct stress s = {.iterations = 3000};
        s.a = load(swap_a, "/w");
        s.b = load(swap_b, "/w");
        warder_backend *mem = NULL;
        ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
        ck_assert_int_eq(warder_backend_write(mem, "/w/x", 4, "x", 1, 0, NULL), 0);
        ck_assert_int_eq(warder_backend_write(mem, "/w/y", 4, "y", 1, 0, NULL), 0);
        /* the guard holds the only lasting references to a and b besides ours */
        s.g = guard_over(mem, s.a, NULL);
        pthread_t th[5];
        for (int i = 0; i < 4; i++)
                ck_assert_int_eq(pthread_create(&th[i], NULL, stress_checker, &s), 0);
        ck_assert_int_eq(pthread_create(&th[4], NULL, stress_swapper, &s), 0);
        for (int i = 0; i < 5; i++)
                pthread_join(th[i], NULL);
        ck_assert_int_eq(s.torn, 0);
        ck_assert_int_eq(s.seen_a + s.seen_b, 4 * s.iterations);
        /* drop our references first: the guard's own keep the current one alive */
        warder_ruleset_free(s.a);
        warder_ruleset_free(s.b);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, s.g, WARDER_OP_READ, "/w/x", 4, NULL), 0);
        ck_assert(consistent("/w/x", &d));
        warder_decision_clear(&d);
        warder_backend_free(s.g);
}
END_TEST

/* warder_guard_check decides without forwarding, for every operation. */
START_TEST(check_does_not_forward)
{
        struct mock *m = mock_new(true, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        for (size_t i = 0; i < N_PATH_OPS; i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(warder_guard_check(&d, g, path_ops[i], "link-env", 8, NULL), 0);
                ck_assert_int_eq(d.action, WARDER_DENY);
                ck_assert_int_eq(d.form, WARDER_FORM_REAL);
                warder_decision_clear(&d);
                ck_assert_int_eq(warder_guard_check(&d, g, path_ops[i], "ok.txt", 6, NULL), 0);
                ck_assert_int_eq(d.action, WARDER_ALLOW);
                warder_decision_clear(&d);
        }
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "rm -rf x", 8, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        ck_assert_int_eq(m->calls, 0);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* warder_guard_check_command decides a command line from its working directory (§5.6), as
 * execute would, without running or forwarding anything. */
START_TEST(check_command_from_cwd)
{
        struct mock *m = mock_new(true, NULL);
        warder_ruleset *rs = load(all_ops_yaml, "/w");
        warder_backend *g = guard_over(&m->base, rs, NULL);
        static const struct {
                const char *cwd;
                enum warder_action want;
        } cases[] = {
            {NULL, WARDER_ALLOW},  /* from the root: /w/passwd */
            {"/etc", WARDER_DENY}, /* /etc/passwd */
            {"/w/sub/../../etc", WARDER_DENY},
            {"sub", WARDER_ALLOW}, /* relative to the root: /w/sub/passwd */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(
                    warder_guard_check_command(g, "cat passwd", 10, cases[i].cwd, &d, NULL), 0);
                ck_assert_msg(d.action == cases[i].want, "cwd %s: %s", cases[i].cwd,
                              warder_action_name(d.action));
                warder_decision_clear(&d);
        }
        /* the same decision as warder_guard_check() without a cwd */
        struct warder_decision a = WARDER_DECISION_INIT, b = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check_command(g, "cat ../etc/x", 12, NULL, &a, NULL), 0);
        ck_assert_int_eq(warder_guard_check(&b, g, WARDER_OP_EXECUTE, "cat ../etc/x", 12, NULL), 0);
        ck_assert_int_eq(a.action, WARDER_DENY);
        ck_assert_int_eq(a.action, b.action);
        ck_assert_str_eq(a.candidate, b.candidate);
        warder_decision_clear(&a);
        warder_decision_clear(&b);
        ck_assert_int_eq(warder_guard_check_command(g, "", 0, NULL, &a, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_check_command(g, "ls\0rm -rf /", 12, NULL, &a, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_check_command(&m->base, "ls", 2, NULL, &a, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(m->calls, 0);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- the example in docs/backends.md ---------------------------------- */

/* Compiled here; doc_example_matches checks the doc still shows exactly this code (comments
 * and whitespace aside). */
#define DOC_EXAMPLE(...) __VA_ARGS__ static const char doc_example_text[] = #__VA_ARGS__;

// clang-format off
DOC_EXAMPLE(
static bool decline_all(void *ud, const struct warder_guard_request *req,
			const struct warder_decision *decision)
{
	(void)ud;
	(void)req;
	(void)decision;
	return false;
}

static int make_guard(warder_backend **out, struct warder_error *err)
{
	warder_ruleset *rules = NULL;
	warder_backend *inner = NULL;
	struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
	ro.root = "/project";
	int rc = warder_ruleset_load_preset(&rules, "default", &ro, err);
	if (rc == 0)
		rc = warder_memory_new(&inner, err);
	struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
	go.approve = decline_all;
	if (rc == 0)
		rc = warder_guard_new(out, inner, rules, &go, err);
	if (rc != 0)
		warder_backend_free(inner); /* still ours: the guard takes it only on success */
	warder_ruleset_free(rules);         /* the guard holds its own reference */
	return rc;
}

static int read_env(warder_backend *guard, struct warder_error *err)
{
	struct warder_bytes data = WARDER_BYTES_INIT;
	int rc = warder_backend_read(&data, guard, ".env", 4, 0, 0, 0, err);
	if (rc == WARDER_EDENIED && err->decision)
		printf("refused by %s: %s\n", err->decision->rule_id, err->message);
	warder_bytes_free(&data);
	return rc;
}
)
// clang-format on

/* Drops comments, collapses whitespace runs to one space, trims. */
static char *squeeze(const char *s, size_t n)
{
        char *out = malloc(n + 1);
        ck_assert_ptr_nonnull(out);
        size_t k = 0;
        bool space = false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
                        const char *e = strstr(s + i + 2, "*/");
                        ck_assert_ptr_nonnull(e);
                        i = (size_t)(e - s) + 1;
                        space = true;
                        continue;
                }
                if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
                        space = true;
                        continue;
                }
                if (space && k)
                        out[k++] = ' ';
                space = false;
                out[k++] = s[i];
        }
        out[k] = '\0';
        return out;
}

START_TEST(doc_example_matches)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_msg(root != NULL, "WARDER_SOURCE_ROOT is not set");
        char path[1024];
        snprintf(path, sizeof(path), "%s/docs/backends.md", root);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        static char doc[1 << 17];
        size_t n = fread(doc, 1, sizeof(doc) - 1, f);
        fclose(f);
        doc[n] = '\0';
        const char *sec = strstr(doc, "\n### Creating one, and who owns what\n");
        ck_assert_ptr_nonnull(sec);
        const char *start = strstr(sec, "```c\n");
        ck_assert_ptr_nonnull(start);
        start += 5;
        const char *end = strstr(start, "```\n");
        ck_assert_ptr_nonnull(end);
        char *a = squeeze(start, (size_t)(end - start));
        char *b = squeeze(doc_example_text, strlen(doc_example_text));
        ck_assert_str_eq(a, b);
        free(a);
        free(b);
}
END_TEST

START_TEST(doc_example_runs)
{
        struct warder_error err = WARDER_ERROR_INIT;
        warder_backend *guard = NULL;
        ck_assert_int_eq(make_guard(&guard, &err), 0);
        /* .env does not even exist: still EDENIED, never ENOENT (§4.3) */
        ck_assert_int_eq(read_env(guard, &err), WARDER_EDENIED);
        ck_assert_ptr_nonnull(err.decision);
        ck_assert_int_eq(err.decision->action, WARDER_DENY);
        warder_error_clear(&err);
        /* writes ask in the default preset; the example's callback declines */
        ck_assert_int_eq(warder_backend_write(guard, "notes.txt", 9, "x", 1, 0, &err),
                         WARDER_EDENIED);
        ck_assert_int_eq(err.decision->action, WARDER_ASK);
        warder_error_clear(&err);
        warder_backend_free(guard);
}
END_TEST

/* ---- the backend contract through guards (allow-everything rulesets) ------------------ */

/* A guard that allows everything must be indistinguishable from the backend it wraps. */
static int guarded_memory_setup(struct contract_fixture *f, void *ud)
{
        int depth = (int)(intptr_t)ud;
        const char *yaml = "warder: 1\ndefault: allow\n";
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/";
        warder_ruleset *rs = NULL;
        warder_backend *b = NULL;
        int rc = warder_ruleset_load_string(&rs, yaml, strlen(yaml), "allow.yaml", &o, NULL);
        if (!rc)
                rc = warder_memory_new(&b, NULL);
        if (!rc)
                rc = warder_memory_mkdir(b, "/ws", strlen("/ws"), NULL);
        for (int i = 0; !rc && i < depth; i++) {
                warder_backend *g = NULL;
                rc = warder_guard_new(&g, b, rs, NULL, NULL);
                if (!rc)
                        b = g;
        }
        warder_ruleset_free(rs);
        if (rc) {
                warder_backend_free(b);
                return rc;
        }
        f->b = b;
        snprintf(f->root, sizeof(f->root), "/ws");
        return 0;
}

static const struct contract_target guarded_targets[] = {
    {"guard-over-memory", guarded_memory_setup, NULL, (void *)(intptr_t)1, NULL},
    {"guard-over-guard-over-memory", guarded_memory_setup, NULL, (void *)(intptr_t)2, NULL},
};

static Suite *guard_suite(void)
{
        Suite *s = suite_create("guard");
        TCase *tc = tcase_create("core");
        tcase_add_loop_test(tc, op_table, 0, (int)(N_PATH_OPS * N_OP_CASES));
        tcase_add_test(tc, deny_message);
        tcase_add_test(tc, refusal_messages);
        tcase_add_test(tc, edit_is_decided_as_read);
        tcase_add_loop_test(tc, bypass_spellings, 0, (int)(sizeof(bypass) / sizeof(bypass[0])));
        tcase_add_test(tc, bad_targets);
        tcase_add_test(tc, realpath_failure);
        tcase_add_test(tc, home_targets);
        tcase_add_test(tc, set_ruleset_takes_effect);
        tcase_add_test(tc, grep_filtering);
        tcase_add_test(tc, grep_real_form);
        tcase_add_test(tc, grep_skips_before_searching);
        tcase_add_test(tc, grep_gate_takes_exact_names);
        tcase_add_test(tc, grep_host_filter_without_backend_help);
        tcase_add_test(tc, ls_filtering);
        tcase_add_test(tc, glob_filtering);
        tcase_add_test(tc, ls_through_link);
        tcase_add_test(tc, local_symlinks);
        tcase_add_test(tc, execute_exposure);
        tcase_add_test(tc, approval_callback);
        tcase_add_test(tc, approved_flag);
        tcase_add_test(tc, approval_ex_callback);
        tcase_add_test(tc, audit_events);
        tcase_add_test(tc, grep_audit_once_per_file);
        tcase_add_test(tc, guard_misuse);
        tcase_add_test(tc, guard_over_guard);
        tcase_add_test(tc, ownership);
        tcase_add_test(tc, check_does_not_forward);
        tcase_add_test(tc, check_command_from_cwd);
        tcase_add_test(tc, command_globs_expand_through_local);
        tcase_add_test(tc, grep_real_results_capability);
        tcase_add_test(tc, read_literal_first);
        tcase_add_test(tc, doc_example_matches);
        tcase_add_test(tc, doc_example_runs);
        suite_add_tcase(s, tc);
        TCase *st = tcase_create("stress");
        tcase_set_timeout(st, 120);
        tcase_add_test(st, swap_under_load);
        suite_add_tcase(s, st);
        suite_add_tcase(s, contract_tcase(guarded_targets,
                                          sizeof(guarded_targets) / sizeof(guarded_targets[0])));
        return s;
}

int main(void)
{
        return warder_test_run(guard_suite());
}
