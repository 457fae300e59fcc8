/* SPDX-License-Identifier: MIT */
/*
 * Fault injection (built with -Dfault_injection=true only; src/fault.h): every failure point
 * a guarded operation meets — each allocation, PCRE2 compile/match/JIT, backend call through
 * the dispatch and kernel call of the local backend — is made to fail in turn (once, and from
 * there on), and the outcome must be an error or the stricter decision (fail closed, §2.10,
 * §4.3, §5.7): never a denied file's bytes, a denied entry in a listing, a denied file's line
 * in grep, a denied command run, an edit or write reaching a protected file, an ask turned
 * into allow.
 *
 * Each case first runs without a fault and must give the exact correct result (so a broken
 * fixture cannot pass as a defence), with a control arm showing the secret is there to leak.
 * The guard runs over the local backend (openat2 and the O_NOFOLLOW fallback, with execute),
 * over a recording mock of the memory backend with realpath and execute, and over a mock that
 * has only read, write and ls (the library's fallbacks do edit, glob and grep).
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "fs-fixture.h"
#include "mock-backend.h"
#include "ruleset/ruleset-internal.h"
#include "support.h"
#include "util.h"
#include "warder/tooling.h"
#include "warder/warder.h"

#define SECRET "hunter2"

static char ws[64];

enum fx_kind { FX_LOCAL, FX_LOCAL_FALLBACK, FX_MEMORY, FX_STORAGE_ONLY, FX_COUNT };
static const char *const fx_names[FX_COUNT] = {"local (openat2)", "local (fallback walk)",
                                               "mock over memory", "storage-only mock (fallbacks)"};
#define FX_ALL    0xfu
#define FX_LOCALS ((1u << FX_LOCAL) | (1u << FX_LOCAL_FALLBACK))
#define FX_EXEC   (FX_LOCALS | (1u << FX_MEMORY))

struct fx {
        enum fx_kind kind;
        warder_ruleset *rs;
        warder_backend *guard;
        warder_backend *mock; /* memory kinds: the recording mock under the guard (borrowed) */
        warder_backend *mem;  /* memory kinds: the memory backend under the mock (borrowed) */
};

static const char rules_yaml[] = "warder: 1\n"
                                 "default: allow\n"
                                 "read:\n"
                                 "  rules:\n"
                                 "    - {pattern: '**/.env', action: deny, reason: secret}\n"
                                 "    - {pattern: 'vault/**', action: deny}\n"
                                 "    - {pattern: 'maybe/**', action: ask}\n"
                                 "    - {pattern: aliases/sub-alias/a.txt, action: deny}\n"
                                 "write:\n"
                                 "  rules:\n"
                                 "    - {pattern: '**/.env', action: deny}\n"
                                 "    - {pattern: 'vault/**', action: deny}\n"
                                 "    - {pattern: 'maybe/**', action: ask}\n"
                                 "    - {pattern: locked.txt, action: deny}\n"
                                 "edit:\n"
                                 "  rules:\n"
                                 "    - {pattern: '**/.env', action: deny}\n"
                                 "ls:\n"
                                 "  rules:\n"
                                 "    - {pattern: '**/.env', action: deny}\n"
                                 "    - {pattern: 'vault/**', action: deny}\n"
                                 "    - {pattern: aliases/sub-alias/a.txt, action: deny}\n"
                                 "glob:\n"
                                 "  rules:\n"
                                 "    - {pattern: '**/.env', action: deny}\n"
                                 "    - {pattern: 'vault/**', action: deny}\n"
                                 "    - {pattern: aliases/sub-alias/a.txt, action: deny}\n"
                                 "execute:\n"
                                 "  rules:\n"
                                 "    - {pattern: 'rm *', action: deny}\n"
                                 "    - {pattern: 'curl *', action: ask}\n";

static const struct {
        const char *rel, *data;
} files[] = {
    {"pub.txt", "public line\n"},     {".env", "TOKEN=" SECRET "\n"},
    {"vault/key", SECRET " key\n"},   {"maybe/x.txt", "maybe " SECRET "\n"},
    {"sub/a.txt", "a public note\n"}, {"sub/.env", "SUB=" SECRET "\n"},
    {"sub/new.txt", "OLD"},           {"locked.txt", "locked\n"},
};

static const char *W(const char *rel)
{
        return at(ws, rel);
}

/* ---- the fixture ----------------------------------------------------------------------- */

static void fs_populate(void)
{
        mkd(W("vault"));
        mkd(W("maybe"));
        mkd(W("sub"));
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                put(W(files[i].rel), files[i].data);
        lnk(".env", W("pub-link"));
        lnk("../vault", W("sub/vault-link"));
        /* an allowed directory link: results through it are decided under this spelling too */
        mkd(W("aliases"));
        lnk("../sub", W("aliases/sub-alias"));
}

static void setup(void)
{
        snprintf(ws, sizeof(ws), "/tmp/warder-fault-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(ws));
        fs_populate();
}

static void teardown(void)
{
        warder__fault_off();
        rm_rf(ws);
}

/* Puts every file back as it was (between runs: writes and edits may have landed). */
static void fx_reset(struct fx *fx)
{
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                if (fx->kind == FX_MEMORY || fx->kind == FX_STORAGE_ONLY)
                        ck_assert_int_eq(
                            warder_backend_write(fx->mem, W(files[i].rel), strlen(W(files[i].rel)),
                                                 files[i].data, strlen(files[i].data), 0, NULL),
                            0);
                else
                        put(W(files[i].rel), files[i].data);
        }
        if (fx->mock)
                mock_reset(fx->mock);
}

/* The file's contents as the backend holds them (read beside the guard). */
static char *fx_peek(struct fx *fx, const char *rel)
{
        static char buf[256];
        if (fx->kind == FX_MEMORY || fx->kind == FX_STORAGE_ONLY) {
                struct warder_bytes b = WARDER_BYTES_INIT;
                if (warder_backend_read(&b, fx->mem, W(rel), strlen(W(rel)), 0, 0, 0, NULL))
                        return NULL;
                snprintf(buf, sizeof(buf), "%s", b.data);
                warder_bytes_free(&b);
                return buf;
        }
        return peek(W(rel));
}

static void fx_open(struct fx *fx, enum fx_kind kind)
{
        *fx = (struct fx){.kind = kind};
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = ws;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_load_string(&fx->rs, rules_yaml, strlen(rules_yaml), "fault",
                                                 &ro, &err) == 0,
                      "%s", err.message);
        warder_backend *inner = NULL;
        if (kind == FX_LOCAL || kind == FX_LOCAL_FALLBACK) {
                struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
                o.force_fallback = kind == FX_LOCAL_FALLBACK;
                o.exec = true;
                o.exec_timeout_ms = 10000;
                ck_assert_int_eq(warder_local_new(&inner, ws, &o, NULL), 0);
        } else {
                ck_assert_int_eq(warder_memory_new(&fx->mem, NULL), 0);
                unsigned caps =
                    kind == FX_MEMORY ? MOCK_CAN_EXECUTE | MOCK_CAN_REALPATH : MOCK_STORAGE_ONLY;
                ck_assert_int_eq(mock_backend_new(&fx->mock, fx->mem, caps), 0);
                inner = fx->mock;
        }
        ck_assert_int_eq(warder_guard_new(&fx->guard, inner, fx->rs, NULL, NULL), 0);
        fx_reset(fx);
}

static void fx_close(struct fx *fx)
{
        warder_backend_free(fx->guard);
        warder_ruleset_free(fx->rs);
}

/* ---- one run's outcome ------------------------------------------------------------------ */

struct res {
        int rc;
        struct warder_error err;
        struct warder_bytes bytes;
        struct warder_entries ents;
        struct warder_grep_result grep;
        struct warder_exec_result exec;
        size_t count;
        unsigned inner_calls[MOCK_OP_COUNT]; /* memory kinds: calls that reached the mock */
};

/* An empty result: every struct the library is handed initialised (versions are checked). */
static void res_init(struct res *r)
{
        memset(r, 0, sizeof(*r));
        r->err = (struct warder_error)WARDER_ERROR_INIT;
        r->bytes = (struct warder_bytes)WARDER_BYTES_INIT;
        r->ents = (struct warder_entries)WARDER_ENTRIES_INIT;
        r->grep = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        r->exec = (struct warder_exec_result)WARDER_EXEC_RESULT_INIT;
}

static void res_free(struct res *r)
{
        warder_error_clear(&r->err);
        warder_bytes_free(&r->bytes);
        warder_entries_free(&r->ents);
        warder_grep_result_free(&r->grep);
        warder_exec_result_free(&r->exec);
}

/* What the current run is, for assertion messages: the case, the fixture and the point. */
static char run_desc[512];

struct fcase {
        const char *name;
        unsigned fixtures;
        void (*op)(struct fx *fx, struct res *r);
        void (*check)(struct fx *fx, const struct res *r, bool clean);
        bool fresh; /* run on a thread of its own: its first-use buffers are points too */
};

struct op_call {
        const struct fcase *c;
        struct fx *fx;
        struct res *r;
};

static void *op_thread(void *p)
{
        struct op_call *call = p;
        call->c->op(call->fx, call->r);
        return NULL;
}

static void run_op(const struct fcase *c, struct fx *fx, struct res *r)
{
        if (!c->fresh) {
                c->op(fx, r);
                return;
        }
        struct op_call call = {c, fx, r};
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, op_thread, &call), 0);
        ck_assert_int_eq(pthread_join(th, NULL), 0);
}

/* ---- storage operations ----------------------------------------------------------------- */

static int g_read(struct fx *fx, const char *target, struct res *r)
{
        return warder_backend_read(&r->bytes, fx->guard, target, strlen(target), 0, 0, 0, &r->err);
}

static void no_secret_bytes(const struct res *r)
{
        ck_assert_msg(!r->bytes.data || !strstr(r->bytes.data, SECRET), "%s: the secret leaked",
                      run_desc);
}

/* A refused request: never 0, no bytes, and (mock) the inner backend never saw it. */
static void refused(struct fx *fx, const struct res *r, bool clean, int clean_rc, enum mock_op op)
{
        (void)fx;
        if (clean)
                ck_assert_msg(r->rc == clean_rc, "%s: rc %d, want %d", run_desc, r->rc, clean_rc);
        ck_assert_msg(r->rc != 0, "%s: a refused request succeeded", run_desc);
        ck_assert_msg(r->bytes.data == NULL, "%s: bytes returned with an error", run_desc);
        no_secret_bytes(r);
        if ((unsigned)op < MOCK_OP_COUNT)
                ck_assert_msg(r->inner_calls[op] == 0, "%s: the inner backend was called",
                              run_desc);
}

/* What the rules allow is never reported as their refusal: a failure is a failure, not a
 * deny or an ask (a decision left undecided by a failure denies, but must not be reported). */
static void not_refused(const struct res *r)
{
        ck_assert_msg(r->rc != WARDER_EDENIED && r->rc != WARDER_EASK,
                      "%s: an allowed request reported as refused by the rules", run_desc);
}

static void op_read_pub(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("pub.txt"), r);
}

static void ck_read_pub(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        (void)fx;
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        if (r->rc == 0)
                ck_assert_msg(r->bytes.data && strcmp(r->bytes.data, "public line\n") == 0,
                              "%s: wrong bytes", run_desc);
        else
                ck_assert_ptr_null(r->bytes.data);
}

static void op_read_env(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W(".env"), r);
}

static void op_read_sub_env(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("sub/.env"), r);
}

static void op_read_dotdot(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("sub/../vault/key"), r);
}

static void op_read_relative(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, "vault/key", r);
}

static void op_read_link(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("pub-link"), r);
}

static void op_read_link_dir(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("sub/vault-link/key"), r);
}

static void ck_read_denied(struct fx *fx, const struct res *r, bool clean)
{
        refused(fx, r, clean, WARDER_EDENIED, MOCK_READ);
}

static void op_read_ask(struct fx *fx, struct res *r)
{
        r->rc = g_read(fx, W("maybe/x.txt"), r);
}

static void ck_read_ask(struct fx *fx, const struct res *r, bool clean)
{
        refused(fx, r, clean, WARDER_EASK, MOCK_READ);
}

static void op_write_new(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_write(fx->guard, W("sub/new.txt"), strlen(W("sub/new.txt")), "NEW",
                                     3, 0, &r->err);
}

static void ck_write_new(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        const char *now = fx_peek(fx, "sub/new.txt");
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        if (r->rc == 0)
                ck_assert_msg(now && strcmp(now, "NEW") == 0, "%s: written but not there",
                              run_desc);
        else
                ck_assert_msg(now && (strcmp(now, "OLD") == 0 || strcmp(now, "NEW") == 0),
                              "%s: the file was damaged", run_desc);
}

static void write_refused(struct fx *fx, const struct res *r, bool clean, int clean_rc,
                          const char *rel)
{
        refused(fx, r, clean, clean_rc, MOCK_WRITE);
        const char *now = fx_peek(fx, rel);
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                if (strcmp(files[i].rel, rel) == 0)
                        ck_assert_msg(now && strcmp(now, files[i].data) == 0,
                                      "%s: a refused write changed %s", run_desc, rel);
}

static void op_write_env(struct fx *fx, struct res *r)
{
        r->rc =
            warder_backend_write(fx->guard, W(".env"), strlen(W(".env")), "PWNED", 5, 0, &r->err);
}

static void ck_write_env(struct fx *fx, const struct res *r, bool clean)
{
        write_refused(fx, r, clean, WARDER_EDENIED, ".env");
}

static void op_write_locked(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_write(fx->guard, W("locked.txt"), strlen(W("locked.txt")), "PWNED",
                                     5, 0, &r->err);
}

static void ck_write_locked(struct fx *fx, const struct res *r, bool clean)
{
        write_refused(fx, r, clean, WARDER_EDENIED, "locked.txt");
}

static void op_write_link(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_write(fx->guard, W("pub-link"), strlen(W("pub-link")), "PWNED", 5, 0,
                                     &r->err);
}

static void op_write_ask(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_write(fx->guard, W("maybe/x.txt"), strlen(W("maybe/x.txt")), "PWNED",
                                     5, 0, &r->err);
}

static void ck_write_ask(struct fx *fx, const struct res *r, bool clean)
{
        write_refused(fx, r, clean, WARDER_EASK, "maybe/x.txt");
}

static void op_edit_pub(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_edit(&r->count, fx->guard, W("sub/a.txt"), strlen(W("sub/a.txt")),
                                    "public", 6, "PUBLIC", 6, 0, &r->err);
}

static void ck_edit_pub(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        const char *now = fx_peek(fx, "sub/a.txt");
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        if (r->rc == 0) {
                ck_assert_msg(r->count == 1, "%s: count %zu", run_desc, r->count);
                ck_assert_msg(now && strcmp(now, "a PUBLIC note\n") == 0, "%s: not edited",
                              run_desc);
        } else {
                ck_assert_msg(now && (strcmp(now, "a public note\n") == 0 ||
                                      strcmp(now, "a PUBLIC note\n") == 0),
                              "%s: the file was damaged", run_desc);
        }
}

/* An edit of a denied file is refused, both when the old text is there (the file would
 * change) and when it is not (the answer would say what the file holds). */
static void op_edit_env_present(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_edit(&r->count, fx->guard, W(".env"), strlen(W(".env")), SECRET,
                                    strlen(SECRET), "x", 1, 0, &r->err);
}

static void op_edit_env_absent(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_edit(&r->count, fx->guard, W(".env"), strlen(W(".env")), "zzz", 3,
                                    "x", 1, 0, &r->err);
}

static void op_edit_link(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_edit(&r->count, fx->guard, W("pub-link"), strlen(W("pub-link")),
                                    SECRET, strlen(SECRET), "x", 1, 0, &r->err);
}

static void ck_edit_env(struct fx *fx, const struct res *r, bool clean)
{
        refused(fx, r, clean, WARDER_EDENIED, MOCK_EDIT);
        ck_assert_msg(r->rc != WARDER_ENOMATCH, "%s: the edit answered about the contents",
                      run_desc);
        if (fx->mock)
                ck_assert_msg(r->inner_calls[MOCK_READ] == 0 && r->inner_calls[MOCK_WRITE] == 0,
                              "%s: the edit reached the inner backend", run_desc);
        const char *now = fx_peek(fx, ".env");
        ck_assert_msg(now && strcmp(now, "TOKEN=" SECRET "\n") == 0, "%s: .env was edited",
                      run_desc);
}

/* ---- listings and grep ------------------------------------------------------------------ */

/* Names a correct listing never shows: the secrets, the vault and links that lead there. */
static bool forbidden(const char *path)
{
        return strstr(path, ".env") || strstr(path, "vault") || strstr(path, "link");
}

/* The local fixtures also hold aliases/ (a directory link): it is listed there. */
static void entries_safe_fx(const struct fx *fx, const struct res *r, const char *const *want,
                            const char *const *local_extra, bool clean);

/* Whether the point that failed is an allocation: the request then fails, or its answer is
 * the whole answer (out of memory is reported, never turned into a shorter listing). */
static bool alloc_failed(void)
{
        return warder__fault_fired() && strncmp(warder__fault_where(), "alloc ", 6) == 0;
}

static void entries_safe(const struct res *r, const char *const *want, bool clean)
{
        if (r->rc != 0) {
                ck_assert_msg(r->ents.items == NULL && r->ents.count == 0,
                              "%s: entries returned with an error", run_desc);
                return;
        }
        size_t nwant = 0;
        while (want[nwant])
                nwant++;
        for (size_t i = 0; i < r->ents.count; i++) {
                const char *p = r->ents.items[i].path;
                ck_assert_msg(!forbidden(p), "%s: '%s' listed", run_desc, p);
                bool known = false;
                for (size_t k = 0; k < nwant && !known; k++)
                        known = strcmp(p, W(want[k])) == 0;
                ck_assert_msg(known, "%s: unexpected entry '%s'", run_desc, p);
        }
        if (clean || alloc_failed())
                ck_assert_msg(r->ents.count == nwant, "%s: %zu entries, want %zu", run_desc,
                              r->ents.count, nwant);
}

static void entries_safe_fx(const struct fx *fx, const struct res *r, const char *const *want,
                            const char *const *local_extra, bool clean)
{
        const char *all[32];
        size_t n = 0;
        for (size_t i = 0; want[i]; i++)
                all[n++] = want[i];
        for (size_t i = 0; !fx->mem && local_extra[i]; i++)
                all[n++] = local_extra[i];
        all[n] = NULL;
        entries_safe(r, all, clean);
}

static void op_ls_root(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_ls(&r->ents, fx->guard, ws, strlen(ws), 0, &r->err);
}

static void ck_ls_root(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        (void)fx;
        static const char *const want[] = {"locked.txt", "maybe", "pub.txt", "sub", NULL};
        static const char *const local[] = {"aliases", NULL};
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        entries_safe_fx(fx, r, want, local, clean);
}

static void op_ls_vault(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_ls(&r->ents, fx->guard, W("vault"), strlen(W("vault")), 0, &r->err);
}

static void ck_ls_vault(struct fx *fx, const struct res *r, bool clean)
{
        refused(fx, r, clean, WARDER_EDENIED, MOCK_LS);
        ck_assert_ptr_null(r->ents.items);
}

static void op_glob_all(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_glob(&r->ents, fx->guard, "**", strlen("**"), ws, strlen(ws), 0,
                                    &r->err);
}

static void ck_glob_all(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        (void)fx;
        static const char *const want[] = {"locked.txt", "maybe",     "maybe/x.txt", "pub.txt",
                                           "sub",        "sub/a.txt", "sub/new.txt", NULL};
        static const char *const local[] = {"aliases", "aliases/sub-alias", NULL};
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        entries_safe_fx(fx, r, want, local, clean);
}

static void op_glob_sub(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_glob(&r->ents, fx->guard, "*", strlen("*"), W("sub"),
                                    strlen(W("sub")), 0, &r->err);
}

static void ck_glob_sub(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        (void)fx;
        static const char *const want[] = {"sub/a.txt", "sub/new.txt", NULL};
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        entries_safe(r, want, clean);
}

/* Through the directory link: entries are decided under the caller's spelling too, where
 * aliases/sub-alias/a.txt is denied although sub/a.txt is not. */
static void op_ls_alias(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_ls(&r->ents, fx->guard, W("aliases/sub-alias"),
                                  strlen(W("aliases/sub-alias")), 0, &r->err);
}

static void op_glob_alias(struct fx *fx, struct res *r)
{
        r->rc = warder_backend_glob(&r->ents, fx->guard, "*", strlen("*"), W("aliases/sub-alias"),
                                    strlen(W("aliases/sub-alias")), 0, &r->err);
}

static void ck_alias_listing(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        (void)fx;
        static const char *const want[] = {"sub/new.txt", NULL};
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        entries_safe(r, want, clean);
}

static int g_grep(struct fx *fx, const char *pattern, const char *base, unsigned flags,
                  struct res *r)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(req.pattern);
        req.path = base;
        req.path_len = strlen(base);
        req.flags = flags;
        return warder_backend_grep(&r->grep, fx->guard, &req, &r->err);
}

static void grep_safe(const struct res *r, bool clean, size_t clean_count)
{
        if (r->rc != 0) {
                ck_assert_msg(r->grep.items == NULL && r->grep.count == 0,
                              "%s: matches returned with an error", run_desc);
                return;
        }
        for (size_t i = 0; i < r->grep.count; i++) {
                const struct warder_grep_match *m = &r->grep.items[i];
                ck_assert_msg(!strstr(m->text, SECRET), "%s: a secret line in %s", run_desc,
                              m->path);
                ck_assert_msg(!forbidden(m->path) && !strstr(m->path, "maybe"), "%s: a match in %s",
                              run_desc, m->path);
                ck_assert_msg(strcmp(m->path, W("pub.txt")) == 0 ||
                                  strcmp(m->path, W("sub/a.txt")) == 0,
                              "%s: a match in %s", run_desc, m->path);
        }
        if (clean || alloc_failed())
                ck_assert_msg(r->grep.count == clean_count, "%s: %zu matches, want %zu", run_desc,
                              r->grep.count, clean_count);
}

static void op_grep_regex(struct fx *fx, struct res *r)
{
        r->rc = g_grep(fx, SECRET "|public", ws, 0, r);
}

static void op_grep_caseless(struct fx *fx, struct res *r)
{
        r->rc = g_grep(fx, "HUNTER2|PUBLIC", ws, WARDER_GREP_CASELESS, r);
}

static void ck_grep_all(struct fx *fx, const struct res *r, bool clean)
{
        not_refused(r);
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        /* .env, sub/.env, vault/key and maybe/x.txt are in scope but not searched; the mock's
         * own grep does not honour the guard's skip predicate, so the guard drops their
         * matches itself and counts nothing it dropped (§4.7) */
        size_t hidden = fx->kind == FX_MEMORY ? 0 : 4;
        if (clean || (r->rc == 0 && alloc_failed()))
                ck_assert_msg(r->grep.hidden_files == hidden, "%s: %zu files hidden, want %zu",
                              run_desc, r->grep.hidden_files, hidden);
        grep_safe(r, clean, 2);
}

static void op_grep_alias(struct fx *fx, struct res *r)
{
        r->rc = g_grep(fx, "public", W("aliases/sub-alias"), 0, r);
}

static void op_grep_alias_file(struct fx *fx, struct res *r)
{
        r->rc = g_grep(fx, "public", W("aliases/sub-alias/a.txt"), 0, r);
}

/* The only match is in a.txt, whose spelling through the alias is denied for read; the
 * alias's .env is in scope too: both are skipped and counted, whatever they hold (§4.7). */
static void ck_grep_alias(struct fx *fx, const struct res *r, bool clean)
{
        (void)fx;
        if (clean) {
                ck_assert_int_eq(r->rc, 0);
                ck_assert_uint_eq(r->grep.hidden_files, strstr(run_desc, "a file through") ? 1 : 2);
        }
        ck_assert_msg(r->rc != 0 || r->grep.count == 0, "%s: %zu matches through the alias",
                      run_desc, r->grep.count);
}

static void op_grep_literal_file(struct fx *fx, struct res *r)
{
        r->rc = g_grep(fx, SECRET, W(".env"), 0, r);
}

static void ck_grep_file(struct fx *fx, const struct res *r, bool clean)
{
        if (clean) {
                ck_assert_int_eq(r->rc, 0);
                /* counted where the backend honours the skip predicate, never where the guard
                 * drops the matches itself (§4.7) */
                ck_assert_uint_eq(r->grep.hidden_files, fx->kind == FX_MEMORY ? 0 : 1);
        }
        grep_safe(r, clean, 0);
}

/* ---- execute ---------------------------------------------------------------------------- */

static int g_exec(struct fx *fx, const char *cmd, struct res *r)
{
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        req.command = cmd;
        req.command_len = strlen(cmd);
        return warder_backend_execute(&r->exec, fx->guard, &req, &r->err);
}

static void op_exec_pub(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cat pub.txt", r);
}

static void ck_exec_pub(struct fx *fx, const struct res *r, bool clean)
{
        /* (a path whose real form cannot be resolved makes a command ask, §5.5: ask is fine) */
        ck_assert_msg(r->rc != WARDER_EDENIED, "%s: an allowed command reported as denied",
                      run_desc);
        if (clean)
                ck_assert_int_eq(r->rc, 0);
        ck_assert_msg(!r->exec.out.data || !strstr(r->exec.out.data, SECRET), "%s: leaked",
                      run_desc);
        if (r->rc == 0 && clean)
                ck_assert_str_eq(r->exec.out.data,
                                 fx->mock ? "cat pub.txt" : "public line\n"); /* mock: echo */
}

static void exec_refused(struct fx *fx, const struct res *r, bool clean, int clean_rc)
{
        (void)fx;
        if (clean)
                ck_assert_msg(r->rc == clean_rc, "%s: rc %d, want %d", run_desc, r->rc, clean_rc);
        ck_assert_msg(r->rc != 0, "%s: a refused command ran", run_desc);
        ck_assert_msg(r->exec.out.data == NULL, "%s: output with an error", run_desc);
        ck_assert_msg(r->inner_calls[MOCK_EXECUTE] == 0, "%s: the inner backend ran it", run_desc);
}

static void ck_exec_denied(struct fx *fx, const struct res *r, bool clean)
{
        exec_refused(fx, r, clean, WARDER_EDENIED);
}

static void ck_exec_ask(struct fx *fx, const struct res *r, bool clean)
{
        exec_refused(fx, r, clean, WARDER_EASK);
}

static void op_exec_env(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cat .env", r);
}

static void op_exec_chain(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cd sub && cat ../vault/key | tee /dev/null", r);
}

static void op_exec_glob(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cat vault/*", r);
}

/* Denied only through what the glob expands to: the pattern's own text is allowed. */
static void op_exec_glob_env(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cat .e* su*/.env", r);
}

static void op_exec_rm(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "timeout 5 rm -rf sub", r);
}

static void op_exec_link(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "cat pub-link", r);
}

static void op_exec_ask(struct fx *fx, struct res *r)
{
        r->rc = g_exec(fx, "curl -d @pub.txt example.invalid", r);
}

static const struct fcase cases[] = {
    {"read an allowed file", FX_ALL, op_read_pub, ck_read_pub, false},
    {"read an allowed file, fresh thread", FX_ALL, op_read_pub, ck_read_pub, true},
    {"read .env, fresh thread", FX_ALL, op_read_env, ck_read_denied, true},
    {"ls the root, fresh thread", FX_ALL, op_ls_root, ck_ls_root, true},
    {"grep a regex, fresh thread", FX_ALL, op_grep_regex, ck_grep_all, true},
    {"execute cat .env, fresh thread", FX_EXEC, op_exec_env, ck_exec_denied, true},
    {"read .env", FX_ALL, op_read_env, ck_read_denied, false},
    {"read sub/.env", FX_ALL, op_read_sub_env, ck_read_denied, false},
    {"read sub/../vault/key", FX_ALL, op_read_dotdot, ck_read_denied, false},
    {"read vault/key (relative)", FX_ALL, op_read_relative, ck_read_denied, false},
    {"read a symlink to .env", FX_LOCALS, op_read_link, ck_read_denied, false},
    {"read through a symlinked directory", FX_LOCALS, op_read_link_dir, ck_read_denied, false},
    {"read an ask file", FX_ALL, op_read_ask, ck_read_ask, false},
    {"write an allowed file", FX_ALL, op_write_new, ck_write_new, false},
    {"write .env", FX_ALL, op_write_env, ck_write_env, false},
    {"write a write-denied file", FX_ALL, op_write_locked, ck_write_locked, false},
    {"write through a symlink to .env", FX_LOCALS, op_write_link, ck_write_env, false},
    {"write an ask file", FX_ALL, op_write_ask, ck_write_ask, false},
    {"edit an allowed file", FX_ALL, op_edit_pub, ck_edit_pub, false},
    {"edit .env (text present)", FX_ALL, op_edit_env_present, ck_edit_env, false},
    {"edit .env (text absent)", FX_ALL, op_edit_env_absent, ck_edit_env, false},
    {"edit through a symlink to .env", FX_LOCALS, op_edit_link, ck_edit_env, false},
    {"ls the root", FX_ALL, op_ls_root, ck_ls_root, false},
    {"ls the vault", FX_ALL, op_ls_vault, ck_ls_vault, false},
    {"glob **", FX_ALL, op_glob_all, ck_glob_all, false},
    {"glob sub/*", FX_ALL, op_glob_sub, ck_glob_sub, false},
    {"grep a regex", FX_ALL, op_grep_regex, ck_grep_all, false},
    {"grep caseless", FX_ALL, op_grep_caseless, ck_grep_all, false},
    {"grep a denied file", FX_ALL, op_grep_literal_file, ck_grep_file, false},
    {"ls through a directory link", FX_LOCALS, op_ls_alias, ck_alias_listing, false},
    {"glob through a directory link", FX_LOCALS, op_glob_alias, ck_alias_listing, false},
    {"grep through a directory link", FX_LOCALS, op_grep_alias, ck_grep_alias, false},
    {"grep a file through a directory link", FX_LOCALS, op_grep_alias_file, ck_grep_alias, false},
    {"execute cat pub.txt", FX_EXEC, op_exec_pub, ck_exec_pub, false},
    {"execute cat .env", FX_EXEC, op_exec_env, ck_exec_denied, false},
    {"execute cd sub && cat ../vault/key", FX_EXEC, op_exec_chain, ck_exec_denied, false},
    {"execute cat vault/*", FX_EXEC, op_exec_glob, ck_exec_denied, false},
    {"execute timeout 5 rm -rf sub", FX_EXEC, op_exec_rm, ck_exec_denied, false},
    {"execute cat .e* su*/.env", FX_LOCALS, op_exec_glob_env, ck_exec_denied, false},
    {"execute cat pub-link", FX_LOCALS, op_exec_link, ck_exec_denied, false},
    {"execute curl (ask)", FX_EXEC, op_exec_ask, ck_exec_ask, false},
};

/* ---- the walk --------------------------------------------------------------------------- */

static void run_once(struct fx *fx, const struct fcase *c, bool armed, unsigned long n, bool sticky,
                     bool clean)
{
        struct res r;
        res_init(&r);
        fx_reset(fx);
        if (armed)
                warder__fault_arm(n, sticky, WARDER__FAULT_ALL);
        run_op(c, fx, &r);
        if (armed)
                warder__fault_off();
        if (fx->mock)
                for (int k = 0; k < MOCK_OP_COUNT; k++)
                        r.inner_calls[k] = mock_calls(fx->mock, (enum mock_op)k);
        snprintf(run_desc, sizeof(run_desc), "%s on %s, %s point %lu%s: %s (rc %d)", c->name,
                 fx_names[fx->kind], sticky ? "every point from" : "only", n,
                 armed ? "" : " (unarmed)", armed ? warder__fault_where() : "-", r.rc);
        /* an error comes with its detail: the same code, and a message (architecture.md); a
         * failing backend call's own message reaches the caller, not a generic one */
        if (r.rc)
                ck_assert_msg(r.err.code == r.rc && r.err.message[0], "%s: error detail %d '%s'",
                              run_desc, r.err.code, r.err.message);
        if (r.rc == WARDER_EIO && strncmp(warder__fault_where(), "backend ", 8) == 0)
                ck_assert_msg(strstr(r.err.message, "injected failure"),
                              "%s: the backend's message was lost: '%s'", run_desc, r.err.message);
        c->check(fx, &r, clean);
        res_free(&r);
}

/* Walks every failure point of one case, once-only and sticky; returns the points. */
static unsigned long walk_case(struct fx *fx, const struct fcase *c)
{
        /* Clean: the exact right answer (also warms per-thread caches up). */
        run_once(fx, c, false, 0, false, true);
        /* Counting: still the right answer, and how many points there are. */
        fx_reset(fx);
        struct res r;
        res_init(&r);
        warder__fault_count(WARDER__FAULT_ALL);
        run_op(c, fx, &r);
        unsigned long total = warder__fault_points();
        warder__fault_off();
        res_free(&r);
        ck_assert_msg(total > 0, "%s on %s: no failure point met", c->name, fx_names[fx->kind]);
        unsigned long fired = 0;
        for (int sticky = 0; sticky < 2; sticky++) {
                for (unsigned long n = 1; n <= total; n++) {
                        run_once(fx, c, true, n, sticky, false);
                        fired += warder__fault_fired();
                }
        }
        ck_assert_msg(fired >= total, "%s on %s: only %lu of %lu points were reached", c->name,
                      fx_names[fx->kind], fired, 2 * total);
        return total;
}

/* Control arm: without warder the secrets are there to be read. */
static void control_arm(void)
{
        const char *const secrets[] = {SECRET, NULL};
        const char *plain = plain_read(W("pub-link"));
        ck_assert(plain && holds_any(plain, strlen(plain), secrets));
        plain = plain_read(W("sub/vault-link/key"));
        ck_assert(plain && holds_any(plain, strlen(plain), secrets));
}

START_TEST(walk_every_point)
{
        control_arm();
        struct fx fx;
        fx_open(&fx, (enum fx_kind)_i);
        if (fx.mem) {
                /* Control arm: the inner backend alone hands the secret out. */
                struct warder_bytes b = WARDER_BYTES_INIT;
                ck_assert_int_eq(
                    warder_backend_read(&b, fx.mem, W(".env"), strlen(W(".env")), 0, 0, 0, NULL),
                    0);
                ck_assert_ptr_nonnull(strstr(b.data, SECRET));
                warder_bytes_free(&b);
        }
        unsigned long points = 0;
        size_t ncases = 0;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                if (!(cases[i].fixtures & (1u << _i)))
                        continue;
                points += walk_case(&fx, &cases[i]);
                ncases++;
        }
        fprintf(stderr, "fault walk over %s: %zu cases, %lu failure points, %lu runs\n",
                fx_names[_i], ncases, points, 2 * points);
        fx_close(&fx);
}
END_TEST

/* ---- decisions without a backend, and loading --------------------------------------------- */

struct dcase {
        enum warder_op op;
        const char *target, *real;
        enum warder_action at_least;
};

static const struct dcase dcases[] = {
    {WARDER_OP_READ, ".env", NULL, WARDER_DENY},
    {WARDER_OP_READ, "pub.txt", ".env", WARDER_DENY},
    {WARDER_OP_READ, "sub/../vault/key", NULL, WARDER_DENY},
    {WARDER_OP_READ, "maybe/x.txt", NULL, WARDER_ASK},
    {WARDER_OP_WRITE, "locked.txt", NULL, WARDER_DENY},
    {WARDER_OP_LS, "vault", NULL, WARDER_DENY},
    {WARDER_OP_EXECUTE, "cat .env", NULL, WARDER_DENY},
    {WARDER_OP_EXECUTE, "X=1 nice -n 5 rm -rf sub", NULL, WARDER_DENY},
    {WARDER_OP_EXECUTE, "sh -c 'cd sub; cat ../vault/key'", NULL, WARDER_DENY},
    {WARDER_OP_EXECUTE, "echo ok; curl example.invalid", NULL, WARDER_ASK},
    {WARDER_OP_EXECUTE, "cat $(echo pub.txt)", NULL, WARDER_ASK},
};

/* Decides, and checks that a failure comes with its detail. */
static int decide(warder_ruleset *rs, const struct dcase *c, struct warder_decision *d)
{
        char lit[PATH_MAX], real[PATH_MAX];
        struct warder_error err = WARDER_ERROR_INIT;
        int rc;
        if (c->op == WARDER_OP_EXECUTE) {
                rc =
                    warder_ruleset_check(d, rs, c->op, c->target, strlen(c->target), NULL, 0, &err);
        } else {
                snprintf(lit, sizeof(lit), "%s/%s", ws, c->target);
                if (c->real)
                        snprintf(real, sizeof(real), "%s/%s", ws, c->real);
                rc = warder_ruleset_check(d, rs, c->op, lit, strlen(lit), c->real ? real : NULL,
                                          c->real ? strlen(real) : 0, &err);
        }
        ck_assert_msg(!rc || (err.code == rc && err.message[0]), "%s: error detail %d for %d",
                      c->target, err.code, rc);
        /* a path decision that succeeded was made: it names its rule or the default */
        ck_assert_msg(rc || c->op == WARDER_OP_EXECUTE || d->rule_id || d->by_default,
                      "%s: a decision that names neither a rule nor the default", c->target);
        warder_error_clear(&err);
        return rc;
}

/* A decision made on a thread of its own, so its first-use per-thread buffers (scratch,
 * match data) are allocated during the decision, each a failure point too. */
struct dthread {
        warder_ruleset *rs;
        const struct dcase *c;
        int rc, err_code;
        bool err_message;
        enum warder_action action;
};

static void *dthread_run(void *p)
{
        struct dthread *t = p;
        char lit[PATH_MAX], real[PATH_MAX];
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_decision d = WARDER_DECISION_INIT;
        if (t->c->op == WARDER_OP_EXECUTE) {
                t->rc = warder_ruleset_check(&d, t->rs, t->c->op, t->c->target,
                                             strlen(t->c->target), NULL, 0, &err);
        } else {
                snprintf(lit, sizeof(lit), "%s/%s", ws, t->c->target);
                if (t->c->real)
                        snprintf(real, sizeof(real), "%s/%s", ws, t->c->real);
                t->rc = warder_ruleset_check(&d, t->rs, t->c->op, lit, strlen(lit),
                                             t->c->real ? real : NULL,
                                             t->c->real ? strlen(real) : 0, &err);
        }
        t->action = d.action;
        t->err_code = err.code;
        t->err_message = err.message[0] != '\0';
        warder_decision_clear(&d);
        warder_error_clear(&err);
        return NULL;
}

static void decide_on_a_new_thread(struct dthread *t)
{
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, dthread_run, t), 0);
        ck_assert_int_eq(pthread_join(th, NULL), 0);
}

/* Walks every point of each decision: on this thread (once and sticky), then each run on a
 * fresh thread. Returns the points. */
static unsigned long walk_dcases(warder_ruleset *rs, const struct dcase *list, size_t ncases)
{
        unsigned long points = 0;
        for (size_t i = 0; i < ncases; i++) {
                const struct dcase *c = &list[i];
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(decide(rs, c, &d), 0);
                ck_assert_msg(d.action >= c->at_least, "%s: clean decision too weak", c->target);
                warder_decision_clear(&d);
                warder__fault_count(WARDER__FAULT_ALL);
                ck_assert_int_eq(decide(rs, c, &d), 0);
                unsigned long total = warder__fault_points();
                warder__fault_off();
                warder_decision_clear(&d);
                points += total;
                for (int sticky = 0; sticky < 2; sticky++) {
                        for (unsigned long n = 1; n <= total; n++) {
                                warder__fault_arm(n, sticky, WARDER__FAULT_ALL);
                                int rc = decide(rs, c, &d);
                                warder__fault_off();
                                ck_assert_msg(rc != 0 || d.action >= c->at_least,
                                              "%s for %s: %s after %s", warder_op_name(c->op),
                                              c->target, warder_action_name(d.action),
                                              warder__fault_where());
                                warder_decision_clear(&d);
                        }
                }
                struct dthread t = {rs, c, 0, 0, false, WARDER_ALLOW};
                warder__fault_count(WARDER__FAULT_ALL);
                decide_on_a_new_thread(&t);
                unsigned long fresh = warder__fault_points();
                warder__fault_off();
                ck_assert_int_eq(t.rc, 0);
                points += fresh;
                for (unsigned long n = 1; n <= fresh; n++) {
                        warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        decide_on_a_new_thread(&t);
                        warder__fault_off();
                        ck_assert_msg(t.rc != 0 || t.action >= c->at_least,
                                      "%s for %s on a new thread: %s after %s",
                                      warder_op_name(c->op), c->target,
                                      warder_action_name(t.action), warder__fault_where());
                        ck_assert_msg(!t.rc || (t.err_code == t.rc && t.err_message),
                                      "%s on a new thread: error detail %d for %d after %s",
                                      c->target, t.err_code, t.rc, warder__fault_where());
                }
        }
        return points;
}

START_TEST(walk_decisions)
{
        struct fx fx;
        fx_open(&fx, FX_MEMORY);
        unsigned long points = walk_dcases(fx.rs, dcases, sizeof(dcases) / sizeof(dcases[0]));
        /* with fold_case, targets are folded into a per-thread buffer too */
        static const char fold_yaml[] = "warder: 1\ndefault: allow\nfold_case: true\n"
                                        "read:\n  rules:\n    - deny: '**/.ENV'\n"
                                        "    - deny: 'VAULT/**'\n";
        static const struct dcase fold_cases[] = {{WARDER_OP_READ, ".env", NULL, WARDER_DENY},
                                                  {WARDER_OP_READ, "vault/key", NULL, WARDER_DENY},
                                                  {WARDER_OP_READ, "pub.txt", ".Env", WARDER_DENY}};
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = ws;
        warder_ruleset *fold = NULL;
        ck_assert_int_eq(
            warder_ruleset_load_string(&fold, fold_yaml, strlen(fold_yaml), "fold", &ro, NULL), 0);
        points += walk_dcases(fold, fold_cases, sizeof(fold_cases) / sizeof(fold_cases[0]));
        warder_ruleset_free(fold);
        /* §2.10 under first match: a failed `ask` rule taken to match must not hide the deny
         * after it (the clean answer for secret.txt is deny, from the second rule) */
        static const char ask_yaml[] = "warder: 1\ndefault: allow\n"
                                       "read:\n  rules:\n    - ask: '**/*.lo[g]'\n"
                                       "    - deny: '**/secret*'\n";
        static const struct dcase ask_cases[] = {
            {WARDER_OP_READ, "secret.txt", NULL, WARDER_DENY},
            {WARDER_OP_READ, "a.txt", "secret.txt", WARDER_DENY}};
        warder_ruleset *ask = NULL;
        ck_assert_int_eq(
            warder_ruleset_load_string(&ask, ask_yaml, strlen(ask_yaml), "ask", &ro, NULL), 0);
        points += walk_dcases(ask, ask_cases, sizeof(ask_cases) / sizeof(ask_cases[0]));
        warder_ruleset_free(ask);
        fprintf(stderr, "fault walk over decisions: %zu cases, %lu failure points\n",
                sizeof(dcases) / sizeof(dcases[0]) + 5, points);
        fx_close(&fx);
}
END_TEST

/* A context that expands globs itself (`glob`, no `ls`): fnmatch over a fixed list of files. */
static const char *const glob_files[] = {"/ws/.env", "/ws/a.txt", "/ws/*a.key", "/ws/d/.env", NULL};

static int files_glob(void *ud, const char *pattern, char ***out, size_t *count)
{
        (void)ud;
        char **v = calloc(sizeof(glob_files) / sizeof(glob_files[0]), sizeof(*v));
        ck_assert_ptr_nonnull(v);
        size_t n = 0;
        for (size_t i = 0; glob_files[i]; i++)
                if (fnmatch(pattern, glob_files[i], FNM_PATHNAME | FNM_PERIOD) == 0)
                        ck_assert_ptr_nonnull(v[n++] = strdup(glob_files[i]));
        *out = v;
        *count = n;
        return 0;
}

/* The context's real forms: /ws/link is a symbolic link to /ws/vault/pub. */
static int link_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        size_t n = strlen("/ws/link");
        if (strncmp(literal, "/ws/link", n) == 0 && (!literal[n] || literal[n] == '/')) {
                ck_assert_int_ge(asprintf(out, "/ws/vault/pub%s", literal + n), 0);
                return 0;
        }
        *out = NULL; /* the real form is the literal one */
        return 0;
}

/* Commands whose globs the context expands (§5.5), quoted pattern bytes escaped on the way,
 * and a `..` after a link, decided where the kernel takes it (the link's target's parent):
 * under a fault at any point of the decision, an error with detail, or deny or ask — never
 * allow, which the execute default would give a command whose expansion was lost — and a
 * success is a decision made for the command, never the untouched initial one. */
START_TEST(walk_command_glob_context)
{
        static const char yaml[] = "warder: 1\ndefault: allow\n"
                                   "read:\n  rules:\n    - deny: '**/.env'\n"
                                   "    - deny: '**/*.key'\n"
                                   "    - deny: '/ws/vault/**'\n";
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = "/ws";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, yaml, strlen(yaml), "glob", &ro, NULL), 0);
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.glob = files_glob;
        ctx.realpath = link_realpath;
        static const char *const env[] = {"HOME=/ws/home", "N=5", NULL};
        ctx.env = env;
        /* and the texts a shell runs later, wrappers after an assignment, `~` from the
         * context's HOME, a cd, an integer declaration and a symbolic link's target */
        static const char *const cmds[] = {"cat .e*",
                                           "cat '*'*.key",
                                           "cat d/.e?v",
                                           "cat a.t* .e*",
                                           "cat link/../secret",
                                           "trap 'cat .env' EXIT",
                                           "alias x='cat .env'",
                                           "eval cat .env",
                                           "bash -s x <<< 'cat .env'",
                                           "cat ~/.env",
                                           "X=1 sudo cat .env",
                                           "cd d && cat .env",
                                           "declare -i n; cat .env",
                                           "ln -s .env d/k"};
        unsigned long points = 0;
        for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
                for (unsigned long n = 0;; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (n)
                                warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        int rc = warder_ruleset_check_command(&d, rs, cmds[c], strlen(cmds[c]),
                                                              &ctx, &err);
                        bool reached = n == 0 || warder__fault_fired();
                        const char *where = n ? warder__fault_where() : "no fault";
                        warder__fault_off();
                        if (rc)
                                ck_assert_msg(n > 0 && err.code == rc && err.message[0],
                                              "'%s' after %s: error detail %d for %d", cmds[c],
                                              where, err.code, rc);
                        else if (n == 0)
                                ck_assert_msg(d.action == WARDER_DENY, "'%s': %s (%s)", cmds[c],
                                              warder_action_name(d.action), d.note ? d.note : "");
                        else
                                ck_assert_msg(d.action != WARDER_ALLOW, "'%s' after %s: allow",
                                              cmds[c], where);
                        /* a success hands back a decision made for the command */
                        ck_assert_msg(rc || d.op == WARDER_OP_EXECUTE, "'%s' after %s: op %s",
                                      cmds[c], where, warder_op_name(d.op));
                        warder_decision_clear(&d);
                        warder_error_clear(&err);
                        if (!reached)
                                break;
                        points += n > 0;
                }
        }
        ck_assert_uint_gt(points, 0);
        warder_ruleset_free(rs);
}
END_TEST

/* Building a guard (root, home and environment copied) and asking it to decide: an error
 * with detail, or a guard that denies what the rules deny. */
START_TEST(walk_guard_setup)
{
        struct fx fx;
        fx_open(&fx, FX_MEMORY);
        static const char *const env[] = {"SAFE=sub", "B=2", NULL};
        struct warder_guard_options o = WARDER_GUARD_OPTIONS_INIT;
        o.root = ws;
        o.home = "/home/u";
        o.env = env;
        unsigned long points = 0;
        for (int what = 0; what < 4; what++) {
                for (unsigned long n = 0;; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        struct warder_decision d = WARDER_DECISION_INIT;
                        warder_backend *g = NULL, *mem = NULL;
                        if (what == 0)
                                ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
                        if (n)
                                warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        int rc;
                        if (what == 0)
                                rc = warder_guard_new(&g, mem, fx.rs, &o, &err);
                        else if (what == 1)
                                rc = warder_guard_check(&d, fx.guard, WARDER_OP_READ, "sub/../.env",
                                                        11, &err);
                        else if (what == 2)
                                rc = warder_guard_check(&d, fx.guard, WARDER_OP_EXECUTE,
                                                        "cd sub && cat ../.env", 21, &err);
                        else /* a glob expanded through a listing of the inner backend */
                                rc = warder_guard_check(&d, fx.guard, WARDER_OP_EXECUTE, "cat .e*",
                                                        7, &err);
                        bool reached = n == 0 || warder__fault_fired();
                        warder__fault_off();
                        if (rc) {
                                ck_assert_msg(n > 0 && err.code == rc && err.message[0],
                                              "%d after %s: error detail %d for %d", what,
                                              warder__fault_where(), err.code, rc);
                                ck_assert_ptr_null(g);
                                warder_backend_free(mem);
                        } else if (what == 0) {
                                struct warder_bytes b = WARDER_BYTES_INIT;
                                ck_assert_int_eq(
                                    warder_backend_read(&b, g, ".env", 4, 0, 0, 0, NULL),
                                    WARDER_EDENIED);
                                warder_backend_free(g);
                        } else if (what == 3 && n > 0) {
                                /* §5.5: an expansion that cannot be completed (the listing
                                 * failed) leaves the candidate at least ask; never allow */
                                ck_assert_msg(d.action == WARDER_DENY || d.action == WARDER_ASK,
                                              "%d after %s: %s", what, warder__fault_where(),
                                              warder_action_name(d.action));
                        } else {
                                ck_assert_msg(d.action == WARDER_DENY, "%d after %s: %s", what,
                                              warder__fault_where(), warder_action_name(d.action));
                        }
                        warder_decision_clear(&d);
                        warder_error_clear(&err);
                        if (!reached)
                                break;
                        points += n > 0;
                }
        }
        fprintf(stderr, "fault walk over guard setup and checks: %lu failure points\n", points);
        fx_close(&fx);
}
END_TEST

/* Explanations and single-rule matches (lint, `warder explain`): an error with detail, or
 * the same answer as without a fault. */
START_TEST(walk_explain)
{
        struct fx fx;
        fx_open(&fx, FX_MEMORY);
        char env_path[PATH_MAX];
        snprintf(env_path, sizeof(env_path), "%s/sub/.env", ws);
        unsigned long points = 0;
        for (int what = 0; what < 3; what++) {
                for (unsigned long n = 0;; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        struct warder_explanation *ex = NULL;
                        bool matched = false;
                        if (n)
                                warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        int rc = what == 0
                                     ? warder_ruleset_explain(&ex, fx.rs, WARDER_OP_READ, env_path,
                                                              strlen(env_path), NULL, 0, &err)
                                 : what == 1
                                     ? warder_ruleset_explain(&ex, fx.rs, WARDER_OP_EXECUTE,
                                                              "rm -rf sub", strlen("rm -rf sub"),
                                                              NULL, 0, &err)
                                     : warder_ruleset_rule_match(&matched, fx.rs, WARDER_OP_READ, 0,
                                                                 env_path, strlen(env_path), &err);
                        bool reached = n == 0 || warder__fault_fired();
                        warder__fault_off();
                        if (rc) {
                                ck_assert_msg(n > 0 && err.code == rc && err.message[0],
                                              "%d after %s: error detail %d for %d", what,
                                              warder__fault_where(), err.code, rc);
                        } else if (what < 2) {
                                ck_assert_int_eq(ex->decision.action, WARDER_DENY);
                                ck_assert_uint_ge(ex->count, 1);
                                ck_assert_ptr_nonnull(ex->literal);
                        } else {
                                ck_assert(matched);
                        }
                        warder_explanation_free(ex);
                        warder_error_clear(&err);
                        if (!reached)
                                break;
                        points += n > 0;
                }
        }
        fprintf(stderr, "fault walk over explanations: %lu failure points\n", points);
        fx_close(&fx);
}
END_TEST

/* A ruleset loaded while a point fails is a load error or the whole ruleset: never one that
 * lost a rule (a malformed rule is a load error, never an inert one). */
START_TEST(walk_loading)
{
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = ws;
        /* the fixture's rules, plus rules whose index keys are longer than a stack key */
        char longname[301];
        memset(longname, 'n', 300);
        longname[300] = '\0';
        struct warder__buf doc = WARDER__BUF_INIT;
        const char *at_read = strstr(rules_yaml, "read:\n  rules:\n") + strlen("read:\n  rules:\n");
        warder__buf_append(&doc, rules_yaml, (size_t)(at_read - rules_yaml));
        warder__buf_printf(&doc,
                           "    - {pattern: '/%s/%s', action: deny}\n"
                           "    - {pattern: '/%s/d%s/**', action: deny}\n",
                           ws + 1, longname, ws + 1, longname);
        warder__buf_puts(&doc, at_read);
        char exact[512], below[512];
        snprintf(exact, sizeof(exact), "%s/%s", ws, longname);
        snprintf(below, sizeof(below), "%s/d%s/x", ws, longname);
        warder_ruleset *rs = NULL;
        warder__fault_count(WARDER__FAULT_ALL);
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc.data, doc.len, "fault", &ro, NULL), 0);
        unsigned long total = warder__fault_points();
        warder__fault_off();
        warder_ruleset_free(rs);
        for (unsigned long n = 1; n <= total; n++) {
                rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                warder__fault_arm(n, false, WARDER__FAULT_ALL);
                int rc = warder_ruleset_load_string(&rs, doc.data, doc.len, "fault", &ro, &err);
                warder__fault_off();
                if (rc) {
                        ck_assert_ptr_null(rs);
                        ck_assert_msg(err.code == rc && err.message[0],
                                      "load with point %lu failed (%s): error detail %d for %d", n,
                                      warder__fault_where(), err.code, rc);
                        warder_error_clear(&err);
                        continue;
                }
                for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        ck_assert_int_eq(decide(rs, &dcases[i], &d), 0);
                        ck_assert_msg(d.action >= dcases[i].at_least,
                                      "loaded with point %lu failed (%s): %s is %s", n,
                                      warder__fault_where(), dcases[i].target,
                                      warder_action_name(d.action));
                        warder_decision_clear(&d);
                }
                const char *longs[] = {exact, below};
                for (size_t i = 0; i < 2; i++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, longs[i],
                                                              strlen(longs[i]), NULL, 0, NULL),
                                         0);
                        ck_assert_msg(d.action == WARDER_DENY,
                                      "loaded with point %lu failed (%s): a long key is %s", n,
                                      warder__fault_where(), warder_action_name(d.action));
                        warder_decision_clear(&d);
                }
                warder_ruleset_free(rs);
        }
        warder__buf_free(&doc);
        fprintf(stderr, "fault walk over loading: %lu failure points\n", total);
}
END_TEST

/* A ruleset whose tests name their own root keeps its source to be reloaded for them: loaded
 * from a string and from a file with a point failing, it is an error or whole; and running its
 * tests with a point failing is an error or an honest count (a case never passes wrongly). */
START_TEST(walk_loading_with_tests)
{
        static const char doc[] = "warder: 1\n"
                                  "default: allow\n"
                                  "read:\n  rules:\n    - deny: '**/.env'\n"
                                  "tests:\n"
                                  "  root: /elsewhere\n"
                                  "  home: /h\n"
                                  "  cases:\n"
                                  "    - {op: read, target: .env, expect: deny}\n"
                                  "    - {op: read, target: /elsewhere/.env, expect: deny}\n"
                                  "    - {op: read, target: a.txt, expect: allow}\n";
        put(W("rules.yaml"), doc);
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = ws;
        char env_path[PATH_MAX];
        snprintf(env_path, sizeof(env_path), "%s/.env", ws);
        unsigned long points = 0;
        for (int from_file = 0; from_file < 2; from_file++) {
                warder_ruleset *rs = NULL;
                warder__fault_count(WARDER__FAULT_ALL);
                int rc = from_file
                             ? warder_ruleset_load_file(&rs, W("rules.yaml"), &ro, NULL)
                             : warder_ruleset_load_string(&rs, doc, strlen(doc), "t", &ro, NULL);
                unsigned long total = warder__fault_points();
                warder__fault_off();
                ck_assert_int_eq(rc, 0);
                warder_ruleset_free(rs);
                points += total;
                for (unsigned long n = 1; n <= total; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        rs = NULL;
                        warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        rc = from_file ? warder_ruleset_load_file(&rs, W("rules.yaml"), &ro, &err)
                                       : warder_ruleset_load_string(&rs, doc, strlen(doc), "t", &ro,
                                                                    &err);
                        warder__fault_off();
                        if (rc) {
                                ck_assert_ptr_null(rs);
                                ck_assert_msg(err.code == rc && err.message[0],
                                              "load (%s) after %s: error detail %d for %d",
                                              from_file ? "file" : "string", warder__fault_where(),
                                              err.code, rc);
                                warder_error_clear(&err);
                                continue;
                        }
                        struct warder_decision d = WARDER_DECISION_INIT;
                        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, env_path,
                                                              strlen(env_path), NULL, 0, NULL),
                                         0);
                        ck_assert_int_eq(d.action, WARDER_DENY);
                        warder_decision_clear(&d);
                        /* its tests still run against the source it kept */
                        size_t passed = 0, failed = 0;
                        ck_assert_int_eq(
                            warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, NULL), 0);
                        ck_assert_msg(passed == 3 && failed == 0,
                                      "tests after loading with %s failed: %zu passed, %zu failed",
                                      warder__fault_where(), passed, failed);
                        warder_ruleset_free(rs);
                }
                /* running the tests, each point failing in turn */
                ck_assert_int_eq(
                    from_file ? warder_ruleset_load_file(&rs, W("rules.yaml"), &ro, NULL)
                              : warder_ruleset_load_string(&rs, doc, strlen(doc), "t", &ro, NULL),
                    0);
                size_t passed = 0, failed = 0;
                warder__fault_count(WARDER__FAULT_ALL);
                ck_assert_int_eq(warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, NULL),
                                 0);
                total = warder__fault_points();
                warder__fault_off();
                ck_assert_uint_eq(passed, 3);
                points += total;
                for (unsigned long n = 1; n <= total; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        passed = failed = 0;
                        warder__fault_arm(n, false, WARDER__FAULT_ALL);
                        rc = warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, &err);
                        warder__fault_off();
                        if (rc) {
                                ck_assert_msg(err.code == rc && err.message[0],
                                              "run_tests after %s: error detail %d for %d",
                                              warder__fault_where(), err.code, rc);
                                warder_error_clear(&err);
                                continue;
                        }
                        ck_assert_uint_eq(passed + failed, 3);
                }
                warder_ruleset_free(rs);
        }
        fprintf(stderr, "fault walk over loading with tests: %lu failure points\n", points);
}
END_TEST

/* ---- races made deterministic ------------------------------------------------------------
 * A directory, or a file, is swapped with a symlink to the outside (renameat2
 * RENAME_EXCHANGE) right before the N-th system call or backend call of an operation, for
 * every N: whatever the interleaving, nothing outside the root is read, listed, created or
 * changed. The local backend is used alone (follow on and off) and under an allow-all guard.
 */

static char out_dir[64];

struct swap {
        char a[PATH_MAX], b[PATH_MAX];
        int done;
};

static void swap_init(struct swap *s, const char *a, const char *b)
{
        snprintf(s->a, sizeof(s->a), "%s", W(a));
        snprintf(s->b, sizeof(s->b), "%s", W(b));
        s->done = 0;
}

static void swap_now(void *ud)
{
        struct swap *s = ud;
        if (syscall(SYS_renameat2, AT_FDCWD, s->a, AT_FDCWD, s->b, 2 /* EXCHANGE */) == 0)
                s->done++;
}

/* A directory the operation just created is replaced by a symlink to the outside. */
static void plant_now(void *ud)
{
        struct swap *s = ud;
        struct stat st;
        if (lstat(s->a, &st) == 0 && S_ISDIR(st.st_mode) && rmdir(s->a) == 0 &&
            symlink(s->b, s->a) == 0)
                s->done++;
}

static void swap_fixture(void)
{
        snprintf(out_dir, sizeof(out_dir), "/tmp/warder-fault-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(out_dir));
        put(at(out_dir, "file"), "OUTSIDE " SECRET "\n");
        rm_rf(ws);
        mkd(ws);
        mkd(W("a"));
        mkd(W("a/b"));
        put(W("a/b/file"), "inside b\n");
        lnk(out_dir, W("a/b-link"));
        mkd(W("c"));
        put(W("c/file"), "inside c\n");
        lnk(at(out_dir, "file"), W("c/link"));
}

/* Puts the real directory and file back where they were. */
static void swap_restore(void)
{
        struct stat st;
        ck_assert_int_eq(lstat(W("a/b"), &st), 0);
        if (S_ISLNK(st.st_mode))
                ck_assert_int_eq(
                    syscall(SYS_renameat2, AT_FDCWD, W("a/b"), AT_FDCWD, W("a/b-link"), 2), 0);
        ck_assert_int_eq(lstat(W("c/file"), &st), 0);
        if (S_ISLNK(st.st_mode))
                ck_assert_int_eq(
                    syscall(SYS_renameat2, AT_FDCWD, W("c/file"), AT_FDCWD, W("c/link"), 2), 0);
        put(W("c/file"), "inside c\n");
        /* a write that met the swapped name replaced the link by a file */
        ck_assert_int_eq(lstat(W("c/link"), &st), 0);
        if (!S_ISLNK(st.st_mode)) {
                ck_assert_int_eq(unlink(W("c/link")), 0);
                lnk(at(out_dir, "file"), W("c/link"));
        }
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'/made* '%s'/.warder-*", W("a/b"), W("c"));
        ck_assert_int_eq(system(cmd), 0);
}

/* Nothing outside changed: the one file is intact and nothing was created beside it. */
static void outside_intact(const char *what)
{
        char *now = peek(at(out_dir, "file"));
        ck_assert_msg(now && strcmp(now, "OUTSIDE " SECRET "\n") == 0, "%s: outside changed: '%s'",
                      what, now ? now : "(gone)");
        DIR *d = opendir(out_dir);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *e; (e = readdir(d));)
                ck_assert_msg(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
                                  !strcmp(e->d_name, "file"),
                              "%s: '%s' created outside", what, e->d_name);
        closedir(d);
}

enum swap_op { SW_READ, SW_WRITE_MKDIR, SW_WRITE_FILE, SW_EDIT, SW_LS, SW_GLOB, SW_GREP, SW_N };
static const char *const swap_op_names[SW_N] = {
    "read a/b/file", "write a/b/made/sub/f", "write c/file", "edit c/file", "ls a/b", "glob **",
    "grep"};

static int swap_run(warder_backend *b, enum swap_op op, unsigned flags, struct res *r)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        switch (op) {
        case SW_READ:
                return warder_backend_read(&r->bytes, b, W("a/b/file"), strlen(W("a/b/file")), 0, 0,
                                           flags, &r->err);
        case SW_WRITE_MKDIR:
                return warder_backend_write(b, W("a/b/made/sub/f"), strlen(W("a/b/made/sub/f")),
                                            "x", 1, flags, &r->err);
        case SW_WRITE_FILE:
                return warder_backend_write(b, W("c/file"), strlen(W("c/file")), "new\n", 4, flags,
                                            &r->err);
        case SW_EDIT:
                return warder_backend_edit(&r->count, b, W("c/file"), strlen(W("c/file")), SECRET,
                                           strlen(SECRET), "x", 1, flags, &r->err);
        case SW_LS:
                return warder_backend_ls(&r->ents, b, W("a/b"), strlen(W("a/b")), flags, &r->err);
        case SW_GLOB:
                return warder_backend_glob(&r->ents, b, "**", strlen("**"), ws, strlen(ws), flags,
                                           &r->err);
        case SW_GREP:
                req.pattern = "inside|" SECRET;
                req.pattern_len = strlen(req.pattern);
                req.path = ws;
                req.path_len = strlen(ws);
                req.flags = flags;
                return warder_backend_grep(&r->grep, b, &req, &r->err);
        case SW_N:
                break;
        }
        return WARDER_EINVAL;
}

static void swap_check(const struct res *r, const char *what)
{
        ck_assert_msg(!r->bytes.data || !strstr(r->bytes.data, SECRET), "%s: read outside", what);
        for (size_t i = 0; i < r->ents.count; i++)
                ck_assert_msg(strncmp(r->ents.items[i].path, ws, strlen(ws)) == 0 &&
                                  !strstr(r->ents.items[i].path, "/a/b/file/"),
                              "%s: listed '%s'", what, r->ents.items[i].path);
        for (size_t i = 0; i < r->ents.count; i++)
                ck_assert_msg(strcmp(r->ents.items[i].name, "file") != 0 ||
                                  strncmp(r->ents.items[i].path, ws, strlen(ws)) == 0,
                              "%s", what);
        for (size_t i = 0; i < r->grep.count; i++)
                ck_assert_msg(!strstr(r->grep.items[i].text, SECRET), "%s: grep read outside in %s",
                              what, r->grep.items[i].path);
        ck_assert_msg(r->count == 0, "%s: edited the outside file", what);
        outside_intact(what);
}

/* _i: bit 0 fallback walk, bit 1 follow symlinks, bit 2 under a guard. */
START_TEST(swap_at_every_point)
{
        swap_fixture();
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = _i & 1;
        o.follow_symlinks = _i & 2;
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, ws, &o, NULL), 0);
        warder_ruleset *rs = NULL;
        if (_i & 4) {
                static const char allow[] = "warder: 1\ndefault: allow\n";
                struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
                ro.root = ws;
                ck_assert_int_eq(
                    warder_ruleset_load_string(&rs, allow, strlen(allow), "allow", &ro, NULL), 0);
                warder_backend *g = NULL;
                ck_assert_int_eq(warder_guard_new(&g, b, rs, NULL, NULL), 0);
                b = g;
        }
        /* control: through the swapped names, a plain open reaches outside */
        struct swap sw_dir;
        swap_init(&sw_dir, "a/b", "a/b-link");
        swap_now(&sw_dir);
        ck_assert_ptr_nonnull(strstr(plain_read(W("a/b/file")), SECRET));
        swap_restore();
        unsigned long total_points = 0, swaps = 0;
        for (int op = 0; op < SW_N; op++) {
                for (int which = 0; which < (op == SW_WRITE_MKDIR ? 3 : 2); which++) {
                        unsigned flags = (_i & 4) ? 0 : WARDER_NOFOLLOW * !(_i & 2);
                        struct swap sw;
                        void (*fn)(void *) = swap_now;
                        if (which == 2) {
                                swap_init(&sw, "a/b/made", "-");
                                snprintf(sw.b, sizeof(sw.b), "%s", out_dir);
                                fn = plant_now;
                        } else if (which) {
                                swap_init(&sw, "c/file", "c/link");
                        } else {
                                swap_init(&sw, "a/b", "a/b-link");
                        }
                        struct res r;
                        res_init(&r);
                        swap_restore();
                        warder__fault_count(WARDER__FAULT_KERNEL | WARDER__FAULT_BACKEND);
                        swap_run(b, (enum swap_op)op, flags, &r);
                        unsigned long total = warder__fault_points();
                        warder__fault_off();
                        res_free(&r);
                        total_points += total;
                        for (unsigned long n = 1; n <= total + 1; n++) {
                                char what[160];
                                static const char *const swapped[] = {
                                    "swap of a/b", "swap of c/file", "a/b/made replaced by a link"};
                                snprintf(what, sizeof(what), "%s, %s before point %lu",
                                         swap_op_names[op], swapped[which], n);
                                res_init(&r);
                                swap_restore();
                                sw.done = 0;
                                warder__fault_hook(n, WARDER__FAULT_KERNEL | WARDER__FAULT_BACKEND,
                                                   fn, &sw);
                                int rc = swap_run(b, (enum swap_op)op, flags, &r);
                                warder__fault_off();
                                swaps += sw.done;
                                ck_assert_msg(!rc || (r.err.code == rc && r.err.message[0]),
                                              "%s: error detail %d '%s' for %d", what, r.err.code,
                                              r.err.message, rc);
                                swap_check(&r, what);
                                res_free(&r);
                        }
                }
        }
        swap_restore();
        fprintf(stderr, "swap walk (%s, follow %s%s): %lu points, %lu swaps\n",
                (_i & 1) ? "fallback" : "openat2", (_i & 2) ? "on" : "off",
                (_i & 4) ? ", guarded" : "", total_points, swaps);
        ck_assert_uint_gt(swaps, 0);
        warder_backend_free(b);
        warder_ruleset_free(rs);
        rm_rf(out_dir);
}
END_TEST

/* ---- descriptors across a concurrent exec ----------------------------------------------
 * A multi-threaded host may fork and exec in another thread while an operation holds a
 * descriptor open: every descriptor the local backend opens is close-on-exec, so a program
 * started at any point of an operation inherits none of them. Here a program that lists its
 * descriptors is started right before each system call of each operation. */

static int spawned_fds(void)
{
        int p[2];
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, p[1], 1);
        char *argv[] = {(char *)"/bin/ls", (char *)"-1", (char *)"/proc/self/fd", NULL};
        char *envp[] = {NULL};
        pid_t pid;
        ck_assert_int_eq(posix_spawn(&pid, "/bin/ls", &fa, NULL, argv, envp), 0);
        posix_spawn_file_actions_destroy(&fa);
        close(p[1]);
        char buf[4096];
        size_t n = 0;
        for (ssize_t r; (r = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0;)
                n += (size_t)r;
        close(p[0]);
        int status;
        waitpid(pid, &status, 0);
        int lines = 0;
        for (size_t i = 0; i < n; i++)
                lines += buf[i] == '\n';
        return lines;
}

struct fd_probe {
        int baseline, worst;
};

static void probe_now(void *ud)
{
        struct fd_probe *f = ud;
        int n = spawned_fds();
        if (n > f->worst)
                f->worst = n;
}

START_TEST(no_descriptor_reaches_a_child)
{
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.force_fallback = _i;
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, ws, &o, NULL), 0);
        struct fd_probe f = {spawned_fds(), 0};
        /* control: a descriptor opened without O_CLOEXEC does reach the child */
        int leak = open(W("pub.txt"), O_RDONLY);
        ck_assert_int_gt(spawned_fds(), f.baseline);
        close(leak);
        ck_assert_int_eq(spawned_fds(), f.baseline);
        unsigned long points = 0;
        for (int op = 0; op < 7; op++) {
                for (unsigned long n = 1;; n++) {
                        struct res r;
                        res_init(&r);
                        rm_rf(W("sub/made")); /* the write creates its parent every time */
                        warder__fault_hook(n, WARDER__FAULT_KERNEL, probe_now, &f);
                        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                        char *real = NULL;
                        switch (op) {
                        case 0:
                                warder_backend_read(&r.bytes, b, W("pub-link"),
                                                    strlen(W("pub-link")), 0, 0, 0, NULL);
                                break;
                        case 1:
                                warder_backend_write(b, W("sub/made/new.txt"),
                                                     strlen(W("sub/made/new.txt")), "x", 1, 0,
                                                     NULL);
                                break;
                        case 2:
                                warder_backend_ls(&r.ents, b, W("sub"), strlen(W("sub")), 0, NULL);
                                break;
                        case 3:
                                warder_backend_glob(&r.ents, b, "**", strlen("**"), ws, strlen(ws),
                                                    0, NULL);
                                break;
                        case 4:
                                req.pattern = "public";
                                req.pattern_len = strlen(req.pattern);
                                req.path = ws;
                                req.path_len = strlen(ws);
                                warder_backend_grep(&r.grep, b, &req, NULL);
                                break;
                        case 5: /* through a literal directory, opened on its own */
                                warder_backend_glob(&r.ents, b, "sub/*", strlen("sub/*"), ws,
                                                    strlen(ws), 0, NULL);
                                break;
                        default:
                                warder_backend_realpath(&real, b, W("sub/vault-link/key"),
                                                        strlen(W("sub/vault-link/key")), NULL);
                                break;
                        }
                        bool reached = warder__fault_fired();
                        warder__fault_off();
                        res_free(&r);
                        free(real);
                        ck_assert_msg(f.worst <= f.baseline,
                                      "operation %d: a child started before point %lu (%s) "
                                      "inherited %d descriptors more",
                                      op, n, warder__fault_where(), f.worst - f.baseline);
                        if (!reached)
                                break;
                        points++;
                }
        }
        fprintf(stderr, "descriptor walk (%s): %lu points\n", _i ? "fallback" : "openat2", points);
        warder_backend_free(b);
}
END_TEST

/* A glob whose matcher fails on some name (PCRE2 at its limits) fails as a whole: never a
 * shorter list that looks complete. */
START_TEST(glob_matcher_failures)
{
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, ws, NULL, NULL), 0);
        static const char pat[] = "**/*.{txt,env}";
        struct warder_entries clean = WARDER_ENTRIES_INIT, e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_glob(&clean, b, pat, strlen(pat), ws, strlen(ws), 0, NULL),
                         0);
        ck_assert_uint_gt(clean.count, 2);
        unsigned long failed = 0;
        for (unsigned long n = 1;; n++) {
                warder__fault_arm(n, false, WARDER__FAULT_PCRE2);
                int rc = warder_backend_glob(&e, b, pat, strlen(pat), ws, strlen(ws), 0, NULL);
                bool reached = warder__fault_fired();
                warder__fault_off();
                if (rc) {
                        ck_assert_int_lt(rc, 0);
                        ck_assert_uint_eq(e.count, 0);
                        failed++;
                } else {
                        ck_assert_msg(e.count == clean.count,
                                      "point %lu: %zu entries of %zu, and no error", n, e.count,
                                      clean.count);
                }
                warder_entries_free(&e);
                if (!reached)
                        break;
        }
        ck_assert_uint_gt(failed, 0);
        warder_entries_free(&clean);
        warder_backend_free(b);
}
END_TEST

/* §6.6 under failures: a backend asked to act as the agent, created while the n-th allocation
 * or kernel call fails, is either refused or acts as the agent — never one that acts as the
 * host. Root only (acting as the agent needs CAP_SETUID and CAP_SETGID). */
START_TEST(agent_backend_under_faults)
{
        if (geteuid() != 0) {
                fprintf(stderr, "agent_backend_under_faults: skipped (not root)\n");
                return;
        }
        const char *theirs = W("theirs.txt");
        put(theirs, "THEIRS\n");
        ck_assert_int_eq(chown(theirs, 40002, 40002), 0);
        ck_assert_int_eq(chmod(theirs, 0600), 0);
        static const uint32_t groups[] = {40010, 100, 40010}; /* sorted and deduplicated */
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.act_as_agent = true;
        lo.agent_uid = 40001;
        lo.agent_gid = 40001;
        lo.agent_groups = groups;
        lo.agent_ngroups = 3;
        /* control arm: the same backend without the option reads the file */
        warder_backend *b = NULL;
        lo.act_as_agent = false;
        ck_assert_int_eq(warder_local_new(&b, ws, &lo, NULL), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, b, theirs, strlen(theirs), 0, 0, 0, NULL), 0);
        warder_bytes_free(&out);
        warder_backend_free(b);
        lo.act_as_agent = true;
        unsigned long created = 0, refused = 0;
        for (unsigned long n = 1;; n++) {
                b = NULL;
                warder__fault_arm(n, false, WARDER__FAULT_ALLOC | WARDER__FAULT_KERNEL);
                int rc = warder_local_new(&b, ws, &lo, NULL);
                bool reached = warder__fault_fired();
                warder__fault_off();
                if (rc) {
                        ck_assert_ptr_null(b);
                        refused++;
                } else {
                        created++;
                        int r = warder_backend_read(&out, b, theirs, strlen(theirs), 0, 0, 0, NULL);
                        ck_assert_msg(r == WARDER_EACCES && !out.data,
                                      "point %lu: a backend that reads as the host (%d)", n, r);
                        warder_backend_free(b);
                }
                if (!reached)
                        break;
        }
        ck_assert_uint_gt(refused, 0);
        ck_assert_uint_gt(created, 0);
}
END_TEST

/* The counter itself: the n-th point fails once, or from there on. */
/* §3.1 under allocation failure: every point of a normalisation that needs several copies
 * (a relative input with `.`, `..` and runs of `/`, under a cwd) ends in the right path or in
 * WARDER_ENOMEM with the error filled in to match, never in a truncated path or a bare code. */
START_TEST(path_out_of_memory)
{
        static const char in[] = "a//./b/../c/";
        char *out = NULL;
        size_t len = 0;
        ck_assert_int_eq(
            warder_path_normalize(&out, &len, "/r", "/h", "/ws/sub", in, strlen(in), NULL), 0);
        ck_assert_str_eq(out, "/ws/sub/a/c");
        warder_free(out);
        warder__fault_count(WARDER__FAULT_ALLOC);
        ck_assert_int_eq(
            warder_path_normalize(&out, &len, "/r", "/h", "/ws/sub", in, strlen(in), NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        warder_free(out);
        ck_assert_uint_ge(points, 1);
        for (int sticky = 0; sticky < 2; sticky++)
                for (unsigned long n = 1; n <= points; n++) {
                        struct warder_error err = WARDER_ERROR_INIT;
                        out = (char *)"untouched";
                        warder__fault_arm(n, sticky, WARDER__FAULT_ALLOC);
                        int rc = warder_path_normalize(&out, &len, "/r", "/h", "/ws/sub", in,
                                                       strlen(in), &err);
                        warder__fault_off();
                        if (rc == 0) {
                                ck_assert_str_eq(out, "/ws/sub/a/c");
                                warder_free(out);
                                continue;
                        }
                        ck_assert_int_eq(rc, WARDER_ENOMEM);
                        ck_assert_int_eq(err.code, WARDER_ENOMEM);
                        ck_assert_ptr_nonnull(strstr(err.message, "out of memory"));
                        ck_assert_str_eq(out, "untouched");
                        warder_error_clear(&err);
                }
}
END_TEST

/* §5.4.1 under allocation failure: a directory too long for the stack buffers needs two heap
 * copies (with its trailing slash, and folded); when either cannot be made, the question
 * "can a deny rule match beneath?" is answered with the first deny rule, whatever the
 * directory — never "no rule", never an allow or ask rule. */
START_TEST(subtree_out_of_memory)
{
        warder_ruleset *rs = NULL;
        static const char doc[] = "warder: 1\nfold_case: true\nread:\n  rules:\n"
                                  "    - allow: '/open/**'\n    - ask: '/maybe/**'\n"
                                  "    - deny: '/vault/**'\n    - deny: '/keys/**'\n";
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), "fault", NULL, NULL), 0);
        char dir[600];
        memset(dir, 'q', sizeof(dir) - 1);
        dir[0] = '/';
        dir[sizeof(dir) - 1] = '\0';
        size_t len = strlen(dir);
        struct warder_decision d = WARDER_DECISION_INIT;
        /* control: with memory, no rule can match beneath the long directory */
        warder__fault_count(WARDER__FAULT_ALLOC);
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, dir, len, &d));
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_eq(points, 2);
        for (int sticky = 0; sticky < 2; sticky++)
                for (unsigned long n = 1; n <= points; n++) {
                        d = (struct warder_decision)WARDER_DECISION_INIT;
                        warder__fault_arm(n, sticky, WARDER__FAULT_ALLOC);
                        bool hit = warder__ruleset_subtree(rs, WARDER_OP_READ, dir, len, &d);
                        warder__fault_off();
                        ck_assert_msg(hit, "point %lu failed: no rule", n);
                        ck_assert_int_eq(d.action, WARDER_DENY);
                        ck_assert_uint_eq(d.rule_index, 2);
                        ck_assert_str_eq(d.pattern, "/vault/**");
                }
        warder_ruleset_free(rs);
        /* the first deny rule is rule 0: it is the answer, not a later one */
        static const char first[] = "warder: 1\nread:\n  rules:\n    - deny: '/a/**'\n"
                                    "    - deny: '/b/**'\n";
        ck_assert_int_eq(warder_ruleset_load_string(&rs, first, strlen(first), "fault", NULL, NULL),
                         0);
        d = (struct warder_decision)WARDER_DECISION_INIT;
        warder__fault_arm(1, true, WARDER__FAULT_ALLOC);
        bool hit = warder__ruleset_subtree(rs, WARDER_OP_READ, dir, len, &d);
        warder__fault_off();
        ck_assert(hit);
        ck_assert_uint_eq(d.rule_index, 0);
        warder_ruleset_free(rs);
}
END_TEST

/* Each preset loads from its table (src/ruleset/ruleset.c): with any allocation failing, the
 * load is an error with its detail, the output untouched, or the whole preset — every rule of
 * every operation, and its inline tests passing — never a preset with rules missing. */
START_TEST(walk_loading_presets)
{
        const char *const *names = warder_preset_names();
        for (size_t p = 0; names[p]; p++) {
                struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
                ro.root = ws;
                ro.home = "/home/agent";
                ro.base_dir = ws;
                warder_ruleset *rs = NULL;
                warder__fault_count(WARDER__FAULT_ALLOC);
                ck_assert_int_eq(warder_ruleset_load_preset(&rs, names[p], &ro, NULL), 0);
                unsigned long total = warder__fault_points();
                warder__fault_off();
                size_t want[WARDER_OP_COUNT], rules = 0;
                for (int op = 0; op < WARDER_OP_COUNT; op++)
                        rules += want[op] = warder_ruleset_rule_count(rs, (enum warder_op)op);
                size_t ncases = warder_ruleset_test_count(rs);
                ck_assert_uint_gt(rules, 10);
                ck_assert_uint_gt(ncases, 5);
                warder_ruleset_free(rs);
                fprintf(stderr, "fault walk over preset %s: %lu allocations\n", names[p], total);
                for (unsigned long n = 1; n <= total; n++) {
                        rs = (warder_ruleset *)(uintptr_t)0x1;
                        struct warder_error err = WARDER_ERROR_INIT;
                        warder__fault_arm(n, false, WARDER__FAULT_ALLOC);
                        int rc = warder_ruleset_load_preset(&rs, names[p], &ro, &err);
                        warder__fault_off();
                        if (rc) {
                                ck_assert_ptr_eq(rs, (warder_ruleset *)(uintptr_t)0x1);
                                ck_assert_msg(err.code == rc && err.message[0],
                                              "%s with point %lu failed (%s): error detail %d "
                                              "for %d",
                                              names[p], n, warder__fault_where(), err.code, rc);
                                warder_error_clear(&err);
                                continue;
                        }
                        for (int op = 0; op < WARDER_OP_COUNT; op++)
                                ck_assert_msg(
                                    warder_ruleset_rule_count(rs, (enum warder_op)op) == want[op],
                                    "%s with point %lu failed (%s): %s has %zu rules", names[p], n,
                                    warder__fault_where(), warder_op_name((enum warder_op)op),
                                    warder_ruleset_rule_count(rs, (enum warder_op)op));
                        size_t passed = 0, failed = 0;
                        ck_assert_int_eq(
                            warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, NULL), 0);
                        ck_assert_msg(passed == ncases && failed == 0,
                                      "%s with point %lu failed (%s): %zu of %zu cases pass",
                                      names[p], n, warder__fault_where(), passed, ncases);
                        warder_ruleset_free(rs);
                }
        }
}
END_TEST

/* An execute rule's one alternative is a copy of its pattern: when that copy cannot be made,
 * the call says so and leaves the outputs alone. */
START_TEST(alternatives_out_of_memory)
{
        static const char doc[] = "warder: 1\nexecute:\n  rules:\n    - deny: 'rm *'\n";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), "fault", NULL, NULL), 0);
        char **v = NULL;
        size_t count = 0;
        warder__fault_count(WARDER__FAULT_ALLOC);
        ck_assert_int_eq(
            warder_ruleset_rule_alternatives(&v, &count, rs, WARDER_OP_EXECUTE, 0, NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_eq(count, 1);
        ck_assert_str_eq(v[0], "rm *");
        warder_ruleset_strv_free(v, count);
        ck_assert_uint_eq(points, 2);
        for (unsigned long n = 1; n <= points; n++) {
                struct warder_error err = WARDER_ERROR_INIT;
                v = (char **)(uintptr_t)0x1;
                count = 7;
                warder__fault_arm(n, false, WARDER__FAULT_ALLOC);
                int rc =
                    warder_ruleset_rule_alternatives(&v, &count, rs, WARDER_OP_EXECUTE, 0, &err);
                warder__fault_off();
                ck_assert_int_eq(rc, WARDER_ENOMEM);
                ck_assert_int_eq(err.code, WARDER_ENOMEM);
                ck_assert_str_eq(err.message, "out of memory");
                ck_assert(v == (char **)(uintptr_t)0x1 && count == 7);
        }
        /* an operation that does not exist is refused before anything is allocated */
        struct warder_explanation *ex = (struct warder_explanation *)(uintptr_t)0x1;
        struct warder_error err = WARDER_ERROR_INIT;
        warder__fault_arm(1, true, WARDER__FAULT_ALLOC);
        int rc = warder_ruleset_explain(&ex, rs, (enum warder_op)WARDER_OP_COUNT, "/x", 2, NULL, 0,
                                        &err);
        warder__fault_off();
        ck_assert_int_eq(rc, WARDER_EINVAL);
        ck_assert_str_eq(err.message, "invalid argument");
        ck_assert(ex == (struct warder_explanation *)(uintptr_t)0x1);
        warder_ruleset_free(rs);
}
END_TEST

/* §2.10 in a decision: an `ask` rule whose pattern cannot be matched (the engine failed) is
 * taken to match, but under first match it may hide a later deny rule — so the answer is
 * deny, never an ask a user could approve, never allow. */
START_TEST(ask_rule_match_failure)
{
        static const char doc[] = "warder: 1\ndefault: allow\nread:\n  rules:\n"
                                  "    - ask: '**/[a-z]*.{txt,md}'\n    - deny: 'secret/**'\n";
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = "/ws";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), "fault", &ro, NULL), 0);
        static const char target[] = "/ws/secret/a.txt";
        struct warder_decision d = WARDER_DECISION_INIT;
        /* control: the ask rule hides the deny rule, and the deny rule is there */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, target, strlen(target), NULL, 0, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert_uint_eq(d.rule_index, 0);
        ck_assert_ptr_null(d.note);
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "/ws/secret/a.bin",
                                              strlen("/ws/secret/a.bin"), NULL, 0, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        unsigned long denied = 0;
        for (unsigned long n = 1;; n++) {
                warder__fault_arm(n, false, WARDER__FAULT_PCRE2);
                int rc = warder_ruleset_check(&d, rs, WARDER_OP_READ, target, strlen(target), NULL,
                                              0, NULL);
                bool reached = warder__fault_fired();
                warder__fault_off();
                ck_assert_int_eq(rc, 0);
                if (!reached) {
                        ck_assert_int_eq(d.action, WARDER_ASK);
                        warder_decision_clear(&d);
                        break;
                }
                ck_assert_msg(d.action == WARDER_DENY, "point %lu (%s): %s", n,
                              warder__fault_where(), warder_action_name(d.action));
                ck_assert_ptr_nonnull(d.note);
                warder_decision_clear(&d);
                denied++;
        }
        ck_assert_uint_gt(denied, 0);
        warder_ruleset_free(rs);
}
END_TEST

/* A path of many components needs a larger table of separators than a thread starts with.
 * When it cannot be had — deciding the real form of a check, or matching one rule — the call
 * fails with ENOMEM and says so; it never returns success with the decision left as it was
 * (here an allow from an earlier call). Each attempt runs on a new thread, whose tables start
 * small. */
struct long_job {
        const warder_ruleset *rs;
        const char *real;
        bool match; /* warder_ruleset_rule_match() instead of a check */
        unsigned long n;
        bool fired, matched;
        int rc;
        struct warder_decision d;
        struct warder_error err;
};

static void *long_job_run(void *arg)
{
        struct long_job *j = arg;
        j->d = (struct warder_decision)WARDER_DECISION_INIT;
        j->d.action = WARDER_ALLOW;
        warder__fault_arm(j->n, false, WARDER__FAULT_ALLOC);
        if (j->match)
                j->rc = warder_ruleset_rule_match(&j->matched, j->rs, WARDER_OP_READ, 0, j->real,
                                                  strlen(j->real), &j->err);
        else
                j->rc = warder_ruleset_check(&j->d, j->rs, WARDER_OP_READ, "/ws/a", 5, j->real,
                                             strlen(j->real), &j->err);
        j->fired = warder__fault_fired();
        warder__fault_off();
        return NULL;
}

START_TEST(long_paths_out_of_memory)
{
        static const char doc[] = "warder: 1\ndefault: allow\nread:\n  rules:\n"
                                  "    - ask: '/ws/deep/**'\n";
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = "/ws";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), "fault", &ro, NULL), 0);
        struct warder__buf real = WARDER__BUF_INIT;
        warder__buf_puts(&real, "/ws/deep");
        for (int i = 0; i < 300; i++)
                warder__buf_puts(&real, "/d");
        for (int match = 0; match < 2; match++) {
                unsigned long failed = 0;
                for (unsigned long n = 1;; n++) {
                        struct long_job j = {rs,
                                             real.data,
                                             match != 0,
                                             n,
                                             false,
                                             false,
                                             0,
                                             WARDER_DECISION_INIT,
                                             WARDER_ERROR_INIT};
                        pthread_t t;
                        ck_assert_int_eq(pthread_create(&t, NULL, long_job_run, &j), 0);
                        ck_assert_int_eq(pthread_join(t, NULL), 0);
                        if (j.rc == 0) {
                                if (match)
                                        ck_assert_msg(j.matched, "point %lu: no match", n);
                                else
                                        ck_assert_msg(j.d.action == WARDER_ASK &&
                                                          j.d.form == WARDER_FORM_REAL,
                                                      "point %lu: %s", n,
                                                      warder_action_name(j.d.action));
                                warder_decision_clear(&j.d);
                                if (!j.fired)
                                        break;
                                continue;
                        }
                        ck_assert_msg(j.fired, "point %lu: %d without a fault", n, j.rc);
                        ck_assert_int_eq(j.rc, WARDER_ENOMEM);
                        ck_assert_int_eq(j.err.code, WARDER_ENOMEM);
                        ck_assert_str_eq(j.err.message, "out of memory");
                        failed++;
                }
                ck_assert_uint_gt(failed, 2);
        }
        warder__buf_free(&real);
        warder_ruleset_free(rs);
}
END_TEST

/* Rule i of walk_loading_unkeyed, and a target only it denies: _i 0, nine rules with nothing
 * to key on (run on every check from one list, which grows as they are filed); _i 1, seventy
 * rules keyed by grams of a 20-letter word each, which the index counts first (over a
 * thousand grams: the count table grows). */
static void unkeyed_rule(int variant, int i, char *rule, char *target, size_t size)
{
        if (!variant) {
                snprintf(rule, size, "**/[a-c]?%d[!x]*", i);
                snprintf(target, size, "/ws/q/ab%dy", i);
                return;
        }
        char word[21];
        unsigned x = 2654435761u * (unsigned)(i + 1);
        for (int k = 0; k < 20; k++) {
                x = x * 1103515245u + 12345u;
                word[k] = (char)('a' + (x >> 16) % 26);
        }
        word[20] = '\0';
        snprintf(rule, size, "/**/*%s*", word);
        snprintf(target, size, "/ws/q/9%s9", word);
}

START_TEST(walk_loading_unkeyed)
{
        const int nrules = _i ? 70 : 9;
        char rule[64], t[64];
        struct warder__buf doc = WARDER__BUF_INIT;
        warder__buf_puts(&doc, "warder: 1\ndefault: allow\nread:\n  rules:\n");
        for (int i = 0; i < nrules; i++) {
                unkeyed_rule(_i, i, rule, t, sizeof(rule));
                warder__buf_printf(&doc, "    - deny: '%s'\n", rule);
        }
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = "/ws";
        warder_ruleset *rs = NULL;
        warder__fault_count(WARDER__FAULT_ALLOC);
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc.data, doc.len, "fault", &ro, NULL), 0);
        unsigned long total = warder__fault_points();
        warder__fault_off();
        /* control: each target is denied, by its own rule */
        for (int i = 0; i < nrules; i++) {
                unkeyed_rule(_i, i, rule, t, sizeof(rule));
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(
                    warder_ruleset_check(&d, rs, WARDER_OP_READ, t, strlen(t), NULL, 0, NULL), 0);
                ck_assert_int_eq(d.action, WARDER_DENY);
                ck_assert_uint_eq(d.rule_index, (size_t)i);
        }
        warder_ruleset_free(rs);
        for (int sticky = 0; sticky < 2; sticky++)
                for (unsigned long n = 1; n <= total; n++) {
                        rs = NULL;
                        struct warder_error err = WARDER_ERROR_INIT;
                        warder__fault_arm(n, sticky, WARDER__FAULT_ALLOC);
                        int rc =
                            warder_ruleset_load_string(&rs, doc.data, doc.len, "fault", &ro, &err);
                        warder__fault_off();
                        if (rc) {
                                ck_assert_ptr_null(rs);
                                ck_assert_int_eq(err.code, rc);
                                warder_error_clear(&err);
                                continue;
                        }
                        for (int i = 0; i < nrules; i++) {
                                unkeyed_rule(_i, i, rule, t, sizeof(rule));
                                struct warder_decision d = WARDER_DECISION_INIT;
                                ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, t,
                                                                      strlen(t), NULL, 0, NULL),
                                                 0);
                                ck_assert_msg(d.action == WARDER_DENY,
                                              "loaded with point %lu failed (%s): %s is %s", n,
                                              warder__fault_where(), t,
                                              warder_action_name(d.action));
                        }
                        warder_ruleset_free(rs);
                }
        warder__buf_free(&doc);
}
END_TEST

START_TEST(counter_semantics)
{
        warder__fault_count(WARDER__FAULT_ALLOC);
        char *a = warder_strndup("abc", 3);
        ck_assert_ptr_nonnull(a);
        ck_assert_uint_eq(warder__fault_points(), 1);
        free(a);
        warder__fault_arm(2, false, WARDER__FAULT_ALLOC);
        char *p[4];
        for (int i = 0; i < 4; i++)
                p[i] = warder_strndup("abc", 3);
        warder__fault_off();
        ck_assert(p[0] && !p[1] && p[2] && p[3]);
        ck_assert(warder__fault_fired());
        ck_assert_ptr_nonnull(strstr(warder__fault_where(), "alloc"));
        for (int i = 0; i < 4; i++)
                free(p[i]);
        warder__fault_arm(2, true, WARDER__FAULT_ALLOC);
        for (int i = 0; i < 4; i++)
                p[i] = warder_strndup("abc", 3);
        warder__fault_off();
        ck_assert(p[0] && !p[1] && !p[2] && !p[3]);
        free(p[0]);
        /* Kinds not armed are not counted. */
        warder__fault_arm(1, false, WARDER__FAULT_BACKEND);
        a = warder_strndup("abc", 3);
        warder__fault_off();
        ck_assert_ptr_nonnull(a);
        ck_assert_uint_eq(warder__fault_points(), 0);
        free(a);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("fault");
        TCase *tc = tcase_create("core");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 900);
        tcase_add_test(tc, counter_semantics);
        tcase_add_test(tc, path_out_of_memory);
        tcase_add_loop_test(tc, walk_every_point, 0, FX_COUNT);
        tcase_add_test(tc, walk_decisions);
        tcase_add_test(tc, walk_explain);
        tcase_add_test(tc, walk_guard_setup);
        tcase_add_test(tc, walk_command_glob_context);
        tcase_add_test(tc, walk_loading);
        tcase_add_test(tc, walk_loading_with_tests);
        tcase_add_loop_test(tc, swap_at_every_point, 0, 8);
        tcase_add_loop_test(tc, no_descriptor_reaches_a_child, 0, 2);
        tcase_add_test(tc, agent_backend_under_faults);
        tcase_add_test(tc, glob_matcher_failures);
        tcase_add_test(tc, subtree_out_of_memory);
        tcase_add_test(tc, walk_loading_presets);
        tcase_add_test(tc, alternatives_out_of_memory);
        tcase_add_test(tc, ask_rule_match_failure);
        tcase_add_test(tc, long_paths_out_of_memory);
        tcase_add_loop_test(tc, walk_loading_unkeyed, 0, 2);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
