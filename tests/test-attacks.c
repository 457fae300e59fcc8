/* SPDX-License-Identifier: MIT */
/*
 * The attack battery (§4.2, §6.2) against the real kernel. Each attack runs against
 *   - the guard over the local backend (symlinks followed inside the root, the default),
 *     under a ruleset that denies every `.env` file, everything in a `.ssh` directory and all
 *     of `/etc`, and allows the workspace (see ruleset_yaml()), and
 *   - the local backend alone with symlinks refused (what the kernel confinement gives
 *     without any ruleset),
 * each with openat2 and with the forced O_NOFOLLOW fallback, and — as root — each once more with
 * the local backend acting as the agent (§6.6). Every attack has a control arm:
 * the same fixture, opened with plain open(2), leaks — so a broken fixture cannot pass for a
 * working defence.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends/local/local-internal.h"
#include "cifold.h"
#include "fs-fixture.h"
#include "support.h"
#include "warder/backend.h"
#include "warder/glob.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/memory.h"
#include "warder/ruleset.h"

#define ENV_SECRET  "ENV-SECRET-7f3a"
#define SSH_SECRET  "SSH-SECRET-91c2"
#define OUT_SECRET  "OUT-SECRET-5d0e"
#define RACE_SECRET "RACE-SECRET-c0de"

static char W[256]; /* the workspace: the backend's root */
static char O[256]; /* a directory outside it */

/* Arms: bit 0 = fallback; bit 1 = the local backend alone (no guard); bit 2 = the local
 * backend acting as the agent (§6.6), a uid that owns the workspace: root only, so that the
 * battery runs once more with the option on and still passes. */
#define ARMS       4
#define AGENT_ARMS 8
#define AGENT_ID   40001u
static int arms = ARMS;
static bool arm_guard(int i)
{
        return !(i & 2);
}

static bool leaks(const char *data, size_t len)
{
        static const char *const secrets[] = {ENV_SECRET,  SSH_SECRET,   OUT_SECRET,
                                              RACE_SECRET, "root:x:0:0", NULL};
        return holds_any(data, len, secrets);
}

static void setup(void)
{
        strcpy(W, "/tmp/warder-attack-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(W));
        strcpy(O, "/tmp/warder-attack-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(O));
        put(at(W, ".env"), ENV_SECRET "\n");
        ck_assert_int_eq(mkdir(at(W, ".ssh"), 0700), 0);
        put(at(W, ".ssh/id_rsa"), SSH_SECRET "\n");
        ck_assert_int_eq(mkdir(at(W, "src"), 0755), 0);
        put(at(W, "src/ok.txt"), "public\n");
        put(at(O, "secret"), OUT_SECRET "\n");
}

static void teardown(void)
{
        rm_rf(W);
        rm_rf(O);
}

static const char *ruleset_yaml(void)
{
        static char y[2048];
        const char *ops[] = {"read", "write", "edit", "ls", "glob", "grep"};
        size_t n =
            (size_t)snprintf(y, sizeof(y), "warder: 1\ndefault: deny\nprecedence: strictest\n");
        for (size_t i = 0; i < 6; i++)
                n += (size_t)snprintf(y + n, sizeof(y) - n,
                                      "%s:\n"
                                      "  rules:\n"
                                      "    - deny: \"**/.env\"\n"
                                      "      reason: environment secrets\n"
                                      "    - deny: \"**/.ssh/**\"\n"
                                      "    - deny: \"/etc/**\"\n"
                                      "    - allow: \"./**\"\n",
                                      ops[i]);
        return y;
}

/* The subject of an arm; `o` may be NULL for the defaults. */
static warder_backend *subject(int arm, const struct warder_local_options *o)
{
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        if (o)
                lo = *o;
        lo.force_fallback = arm & 1;
        lo.follow_symlinks = arm_guard(arm);
        if (arm & 4) {
                /* The workspace as it is now becomes the agent's (not a procfs mounted in it).
                 * A racer may be renaming in it (test_race): a name that moves away is missed,
                 * and left as it is (root's, 0644 or 0755: readable by the agent). */
                char cmd[PATH_MAX + 128];
                snprintf(cmd, sizeof(cmd),
                         "find '%s' -ignore_readdir_race -xdev ! -fstype proc -exec chown -h "
                         "%u:%u {} + 2>/dev/null",
                         W, AGENT_ID, AGENT_ID);
                if (system(cmd) != 0)
                        fprintf(stderr, "attacks: some names moved while the workspace was "
                                        "given to the agent\n");
                struct stat wst;
                ck_assert_int_eq(lstat(W, &wst), 0);
                ck_assert_uint_eq(wst.st_uid, AGENT_ID);
                lo.act_as_agent = true;
                lo.agent_uid = AGENT_ID;
                lo.agent_gid = AGENT_ID;
        }
        warder_backend *local = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_local_new(&local, W, &lo, &e);
        ck_assert_msg(rc == 0, "local: %s", e.message);
        if (!arm_guard(arm))
                return local;
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = W;
        warder_ruleset *rs = NULL;
        const char *y = ruleset_yaml();
        rc = warder_ruleset_load_string(&rs, y, strlen(y), "attacks", &ro, &e);
        ck_assert_msg(rc == 0, "ruleset: %s", e.message);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = W;
        warder_backend *g = NULL;
        rc = warder_guard_new(&g, local, rs, &go, &e);
        ck_assert_msg(rc == 0, "guard: %s", e.message);
        warder_ruleset_free(rs);
        return g;
}

/* A read through the subject; asserts it was refused and leaked nothing. */
static int refused_read(warder_backend *b, const char *path)
{
        struct warder_bytes out = WARDER_BYTES_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_backend_read(&out, b, path, strlen(path), 0, 0, 0, &e);
        ck_assert_msg(rc != 0, "read of '%s' succeeded", path);
        ck_assert_msg(!leaks(out.data, out.len), "read of '%s' leaked", path);
        ck_assert_ptr_null(out.data);
        warder_error_clear(&e);
        return rc;
}

static int refused_write(warder_backend *b, const char *path, const char *data)
{
        int rc = warder_backend_write(b, path, strlen(path), data, strlen(data), 0, NULL);
        ck_assert_msg(rc != 0, "write of '%s' succeeded", path);
        return rc;
}

/* The codes a refusal may carry: the guard denies (EDENIED) or the backend refuses. */
static void ck_refusal(int arm, int rc, int kernel_code)
{
        if (arm_guard(arm))
                ck_assert_msg(rc == WARDER_EDENIED || rc == kernel_code, "rc %s",
                              warder_status_name(rc));
        else
                ck_assert_msg(rc == kernel_code, "rc %s, want %s", warder_status_name(rc),
                              warder_status_name(kernel_code));
}

/* A symlink to a denied file: read. */
/*
 * §4.7 (revised): nothing in a grep result depends on the contents of a file the rules hide.
 * Two different .env contents give byte-identical results — matches, the count of hidden
 * files, `truncated` — for every pattern, with and without a match limit, with a filter that
 * selects the hidden file alone, through the local backend (openat2 and the fallback walk)
 * and through the library's grep fallback (the memory backend). So no sequence of guesses
 * (`^API_KEY=a`, `^API_KEY=b`, …) learns anything. Control arm: the same greps on the
 * unguarded backend differ between the two contents.
 */
struct grep_log {
        char buf[1 << 16];
        size_t len;
};

static void log_add(struct grep_log *log, const char *s, size_t n)
{
        ck_assert(log->len + n < sizeof(log->buf));
        memcpy(log->buf + log->len, s, n);
        log->len += n;
}

static void grep_transcript(warder_backend *b, const char *base, struct grep_log *log)
{
        static const char *const patterns[] = {"API_KEY", "^API_KEY=a", "^API_KEY=z", "a",
                                               "[0-9]",   ".",          "zzzz",       "^$"};
        static const char *const globs[] = {NULL, ".env", "*"};
        log->len = 0;
        for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
                for (size_t gi = 0; gi < 3; gi++) {
                        for (size_t max = 0; max < 3; max++) {
                                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                                req.pattern = patterns[p];
                                req.pattern_len = strlen(req.pattern);
                                req.path = base;
                                req.path_len = strlen(base);
                                req.glob = globs[gi];
                                req.glob_len = req.glob ? strlen(req.glob) : 0;
                                req.max_matches = max;
                                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                                struct warder_error e = WARDER_ERROR_INIT;
                                int rc = warder_backend_grep(&r, b, &req, &e);
                                char line[512];
                                int n = snprintf(line, sizeof(line),
                                                 "[%s|%s|%zu] rc=%d n=%zu "
                                                 "hidden=%zu truncated=%d\n",
                                                 patterns[p], globs[gi] ? globs[gi] : "-", max, rc,
                                                 r.count, r.hidden_files, (int)r.truncated);
                                log_add(log, line, (size_t)n);
                                for (size_t i = 0; i < r.count; i++) {
                                        n = snprintf(line, sizeof(line),
                                                     "  %s:%llu:", r.items[i].path,
                                                     (unsigned long long)r.items[i].line);
                                        log_add(log, line, (size_t)n);
                                        log_add(log, r.items[i].text, r.items[i].text_len);
                                        log_add(log, "\n", 1);
                                }
                                warder_grep_result_free(&r);
                                warder_error_clear(&e);
                        }
                }
        }
}

static const char *const two_contents[] = {"API_KEY=aaaa1111\nline two\n",
                                           "API_KEY=zzzz9999\n\nx\nmore\nlines\n"};

START_TEST(test_grep_result_independent_of_hidden_contents)
{
        put(at(W, "src/a.txt"), "API_KEY is read from .env\nsome 1 digit\n");
        put(at(W, "src/b.txt"), "nothing here\n");
        static struct grep_log logs[2][2]; /* [guarded][content] */
        for (int c = 0; c < 2; c++) {
                put(at(W, ".env"), two_contents[c]);
                for (int guarded = 0; guarded < 2; guarded++) {
                        /* arm 0/1: the guard over local (openat2/fallback); 2/3: local alone */
                        warder_backend *b = subject((_i & 1) | (guarded ? 0 : 2), NULL);
                        grep_transcript(b, W, &logs[guarded][c]);
                        warder_backend_free(b);
                }
        }
        /* Control arm: unguarded, what grep says depends on the secret. */
        ck_assert(logs[0][0].len != logs[0][1].len ||
                  memcmp(logs[0][0].buf, logs[0][1].buf, logs[0][0].len) != 0);
        ck_assert(memmem(logs[0][0].buf, logs[0][0].len, "aaaa1111", 8));
        /* Guarded: byte for byte the same, and the hidden file is counted. */
        ck_assert_msg(logs[1][0].len == logs[1][1].len &&
                          memcmp(logs[1][0].buf, logs[1][1].buf, logs[1][0].len) == 0,
                      "the results differ:\n%.*s\n----\n%.*s", (int)logs[1][0].len, logs[1][0].buf,
                      (int)logs[1][1].len, logs[1][1].buf);
        ck_assert(!memmem(logs[1][0].buf, logs[1][0].len, "aaaa", 4));
        ck_assert(memmem(logs[1][0].buf, logs[1][0].len, "[API_KEY|-|0] rc=0 n=1 hidden=2", 31));
}
END_TEST

/* The same through the library's grep fallback (a backend without grep of its own). */
START_TEST(test_grep_fallback_independent_of_hidden_contents)
{
        static struct grep_log logs[2][2];
        for (int c = 0; c < 2; c++) {
                warder_backend *mem = NULL;
                ck_assert_int_eq(warder_memory_new(&mem, NULL), 0);
                const char *files[][2] = {{"/m/.env", two_contents[c]},
                                          {"/m/.ssh/id_rsa", SSH_SECRET "\n"},
                                          {"/m/src/a.txt", "API_KEY is read from .env\n1\n"},
                                          {"/m/src/b.txt", "nothing here\n"}};
                for (size_t i = 0; i < 4; i++)
                        ck_assert_int_eq(warder_backend_write(mem, files[i][0], strlen(files[i][0]),
                                                              files[i][1], strlen(files[i][1]), 0,
                                                              NULL),
                                         0);
                grep_transcript(mem, "/m", &logs[0][c]);
                struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
                ro.root = "/m";
                warder_ruleset *rs = NULL;
                const char *y = ruleset_yaml();
                ck_assert_int_eq(warder_ruleset_load_string(&rs, y, strlen(y), "a", &ro, NULL), 0);
                warder_backend *g = NULL;
                ck_assert_int_eq(warder_guard_new(&g, mem, rs, NULL, NULL), 0);
                warder_ruleset_free(rs);
                grep_transcript(g, "/m", &logs[1][c]);
                warder_backend_free(g);
        }
        ck_assert(logs[0][0].len != logs[0][1].len ||
                  memcmp(logs[0][0].buf, logs[0][1].buf, logs[0][0].len) != 0);
        ck_assert_msg(logs[1][0].len == logs[1][1].len &&
                          memcmp(logs[1][0].buf, logs[1][1].buf, logs[1][0].len) == 0,
                      "the results differ:\n%.*s\n----\n%.*s", (int)logs[1][0].len, logs[1][0].buf,
                      (int)logs[1][1].len, logs[1][1].buf);
        ck_assert(memmem(logs[1][0].buf, logs[1][0].len, "[API_KEY|-|0] rc=0 n=1 hidden=2", 31));
}
END_TEST

/*
 * §3.2 (revised): on a case-insensitive directory the real form spells every existing
 * component as it is stored. Here a FUSE file system that folds case like vfat, NTFS or
 * CIFS (Unicode included: the Kelvin sign is a `k`) serves a workspace; `.ENV` opens `.env`
 * and `server.\u212Aey` opens `server.key`, so a rule on `.env` must still deny them, even with
 * fold_case off. Control arm: plain open(2) of those spellings reads the secrets.
 */
#define KELVIN "\xE2\x84\xAA"

START_TEST(test_case_insensitive_fs)
{
        char back[300], mnt[300];
        snprintf(back, sizeof(back), "%s/back", O);
        snprintf(mnt, sizeof(mnt), "%s/mnt", O);
        mkd(back);
        mkd(mnt);
        put(at(back, ".env"), ENV_SECRET "\n");
        put(at(back, "server.key"), SSH_SECRET "\n");
        mkd(at(back, "src"));
        put(at(back, "src/main.c"), "int main;\n");
        struct cifold fs;
        if (!cifold_mount(&fs, back, mnt))
                return;
        /* Control arm: the file system folds, ASCII and Unicode. */
        ck_assert(leaks(plain_read(at(mnt, ".ENV")), strlen(ENV_SECRET)));
        ck_assert(leaks(plain_read(at(mnt, "server." KELVIN "ey")), strlen(SSH_SECRET)));
        ck_assert_ptr_nonnull(plain_read(at(mnt, "SRC/MAIN.C")));

        /* The local backend's real form is the stored spelling. */
        for (int fallback = 0; fallback < 2; fallback++) {
                struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
                lo.force_fallback = fallback;
                warder_backend *local = NULL;
                ck_assert_int_eq(warder_local_new(&local, mnt, &lo, NULL), 0);
                static const char *const cases[][2] = {
                    {".ENV", ".env"},
                    {"server." KELVIN "ey", "server.key"},
                    {"SERVER.KEY", "server.key"},
                    {"SRC/Main.C", "src/main.c"},
                    {"Src/New.TXT", "src/New.TXT"}, /* a missing tail stays as written */
                    {"src/main.c", "src/main.c"},
                };
                for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                        char *real = NULL;
                        const char *p = at(mnt, cases[i][0]);
                        struct warder_error e = WARDER_ERROR_INIT;
                        ck_assert_msg(warder_backend_realpath(&real, local, p, strlen(p), &e) == 0,
                                      "%s: %s", cases[i][0], e.message);
                        ck_assert_str_eq(real, at(mnt, cases[i][1]));
                        warder_free(real);
                }
                /* A read that follows nothing refuses a spelling that is not stored. */
                struct warder_bytes out = WARDER_BYTES_INIT;
                const char *p = at(mnt, ".ENV");
                ck_assert_int_eq(
                    warder_backend_read(&out, local, p, strlen(p), 0, 0, WARDER_NOFOLLOW, NULL),
                    WARDER_ESYMLINK);
                ck_assert_ptr_null(out.data);
                warder_backend_free(local);
        }

        /* Through a guard under the default preset (fold_case off): denied on the real form. */
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = mnt;
        ro.home = "/home/nobody";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "default", &ro, NULL), 0);
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.exec = true;
        warder_backend *local = NULL, *g = NULL;
        ck_assert_int_eq(warder_local_new(&local, mnt, &lo, NULL), 0);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = mnt;
        ck_assert_int_eq(warder_guard_new(&g, local, rs, &go, NULL), 0);
        static const char *const denied[] = {".ENV", ".Env", "server." KELVIN "ey", "SERVER.KEY",
                                             ".env"};
        for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
                struct warder_error e = WARDER_ERROR_INIT;
                ck_assert_msg(refused_read(g, denied[i]) == WARDER_EDENIED, "%s", denied[i]);
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(
                    warder_guard_check(&d, g, WARDER_OP_READ, denied[i], strlen(denied[i]), &e), 0);
                ck_assert_int_eq(d.action, WARDER_DENY);
                warder_decision_clear(&d);
        }
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, g, "SRC/MAIN.C", 10, 0, 0, 0, NULL), 0);
        ck_assert_str_eq(out.data, "int main;\n");
        warder_bytes_free(&out);
        /* A command that names the file in another case is decided on the stored name. */
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "cat .ENV", 8, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        warder_backend_free(g);
        warder_ruleset_free(rs);
        cifold_unmount(&fs);
}
END_TEST

START_TEST(test_symlink_read)
{
        lnk(".env", at(W, "innocent.txt"));
        lnk(at(O, "secret"), at(W, "out.txt"));
        /* control */
        ck_assert(leaks(plain_read(at(W, "innocent.txt")), 64));
        ck_assert(leaks(plain_read(at(W, "out.txt")), 64));
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_read(b, at(W, "innocent.txt")), WARDER_ESYMLINK);
        ck_refusal(_i, refused_read(b, at(W, "out.txt")),
                   arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        if (arm_guard(_i)) {
                ck_assert_int_eq(refused_read(b, at(W, ".env")), WARDER_EDENIED);
                /* the workspace itself is readable */
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_int_eq(warder_backend_read(&out, b, at(W, "src/ok.txt"),
                                                     strlen(at(W, "src/ok.txt")), 0, 0, 0, NULL),
                                 0);
                ck_assert_str_eq(out.data, "public\n");
                warder_bytes_free(&out);
                /* listings and searches do not show the link or the secret either (§4.6,
                 * §4.7) */
                struct warder_entries e = WARDER_ENTRIES_INIT;
                ck_assert_int_eq(warder_backend_ls(&e, b, W, strlen(W), 0, NULL), 0);
                for (size_t k = 0; k < e.count; k++)
                        ck_assert_msg(strcmp(e.items[k].name, "innocent.txt") &&
                                          strcmp(e.items[k].name, ".env"),
                                      "ls shows %s", e.items[k].name);
                ck_assert_uint_ge(e.hidden, 2);
                warder_entries_free(&e);
                ck_assert_int_eq(
                    warder_backend_glob(&e, b, "**", strlen("**"), W, strlen(W), 0, NULL), 0);
                for (size_t k = 0; k < e.count; k++)
                        ck_assert_msg(strcmp(e.items[k].name, "innocent.txt") &&
                                          strcmp(e.items[k].name, ".env") &&
                                          strcmp(e.items[k].name, "id_rsa"),
                                      "glob shows %s", e.items[k].path);
                warder_entries_free(&e);
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "SECRET";
                req.pattern_len = strlen(req.pattern);
                req.path = W;
                req.path_len = strlen(W);
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
                ck_assert_uint_eq(r.count, 0);
                ck_assert_uint_ge(r.hidden_files, 2);
                warder_grep_result_free(&r);
        }
        /* control: an unguarded grep finds the secrets */
        warder_backend *plain = NULL;
        ck_assert_int_eq(warder_local_new(&plain, W, NULL, NULL), 0);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "SECRET";
        req.pattern_len = strlen(req.pattern);
        req.path = W;
        req.path_len = strlen(W);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, plain, &req, NULL), 0);
        ck_assert_uint_ge(r.count, 2);
        warder_grep_result_free(&r);
        warder_backend_free(plain);
        warder_backend_free(b);
}
END_TEST

/* A symlink to a denied file: write. */
START_TEST(test_symlink_write)
{
        lnk(".env", at(W, "innocent.txt"));
        lnk(at(O, "secret"), at(W, "out.txt"));
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_write(b, at(W, "innocent.txt"), "PWNED"), WARDER_ESYMLINK);
        ck_refusal(_i, refused_write(b, at(W, "out.txt"), "PWNED"),
                   arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        size_t n = 0;
        int rc = warder_backend_edit(&n, b, at(W, "innocent.txt"), strlen(at(W, "innocent.txt")),
                                     "ENV", 3, "PWN", 3, 0, NULL);
        ck_refusal(_i, rc, WARDER_ESYMLINK);
        warder_backend_free(b);
        ck_assert_str_eq(peek(at(W, ".env")), ENV_SECRET "\n");
        ck_assert_str_eq(peek(at(O, "secret")), OUT_SECRET "\n");
        /* control: a plain write through the same link lands in the secret */
        int fd = open(at(W, "innocent.txt"), O_WRONLY | O_TRUNC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "PWNED", 5), 5);
        close(fd);
        ck_assert_str_eq(peek(at(W, ".env")), "PWNED");
}
END_TEST

/* A symlinked parent directory. */
START_TEST(test_symlinked_parent)
{
        lnk(".ssh", at(W, "keys"));
        lnk(O, at(W, "odir"));
        ck_assert(leaks(plain_read(at(W, "keys/id_rsa")), 64));
        ck_assert(leaks(plain_read(at(W, "odir/secret")), 64));
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_read(b, at(W, "keys/id_rsa")), WARDER_ESYMLINK);
        ck_refusal(_i, refused_read(b, at(W, "odir/secret")),
                   arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        ck_refusal(_i, refused_write(b, at(W, "keys/authorized_keys"), "ssh-ed25519 AAAA"),
                   WARDER_ESYMLINK);
        ck_assert_int_eq(access(at(W, ".ssh/authorized_keys"), F_OK), -1);
        warder_backend_free(b);
}
END_TEST

/* A dangling symlink as a write target. */
START_TEST(test_dangling_write)
{
        lnk(".ssh/authorized_keys", at(W, "drop"));
        lnk(at(O, "planted"), at(W, "drop-out"));
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_write(b, at(W, "drop"), "ssh-ed25519 AAAA"), WARDER_ESYMLINK);
        ck_refusal(_i, refused_write(b, at(W, "drop-out"), "x"),
                   arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        warder_backend_free(b);
        ck_assert_int_eq(access(at(W, ".ssh/authorized_keys"), F_OK), -1);
        ck_assert_int_eq(access(at(O, "planted"), F_OK), -1);
        /* control: a plain create through the link plants the file outside */
        int fd = open(at(W, "drop-out"), O_WRONLY | O_CREAT, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(access(at(O, "planted"), F_OK), 0);
}
END_TEST

/* `..` traversal and absolute paths out of the root. */
START_TEST(test_traversal_and_absolute)
{
        char up[PATH_MAX];
        snprintf(up, sizeof(up), "%s/src/../../%s/secret", W, strrchr(O, '/') + 1);
        char etc[PATH_MAX];
        snprintf(etc, sizeof(etc), "%s/src/../../../../../../etc/passwd", W);
        const char *paths[] = {up, etc, "/etc/passwd", at(O, "secret")};
        for (size_t i = 0; i < 4; i++) {
                ck_assert_msg(leaks(plain_read(paths[i]), 1 << 15), "control %zu", i);
                warder_backend *b = subject(_i, NULL);
                ck_refusal(_i, refused_read(b, paths[i]), WARDER_EOUTSIDE);
                ck_refusal(_i, refused_write(b, paths[i], "x"), WARDER_EOUTSIDE);
                warder_backend_free(b);
        }
        ck_assert_str_eq(peek(at(O, "secret")), OUT_SECRET "\n");
}
END_TEST

/* `/proc/self/root` and `/proc/self/fd` magic links planted inside the root. */
START_TEST(test_magic_links)
{
        int fd_out = open(at(O, "secret"), O_RDONLY);
        int fd_env = open(at(W, ".env"), O_RDONLY);
        ck_assert_int_ge(fd_out, 0);
        ck_assert_int_ge(fd_env, 0);
        char p1[64], p2[64];
        snprintf(p1, sizeof(p1), "/proc/self/fd/%d", fd_out);
        snprintf(p2, sizeof(p2), "/proc/self/fd/%d", fd_env);
        lnk("/proc/self/root", at(W, "proc-root"));
        lnk(p1, at(W, "fd-out"));
        lnk(p2, at(W, "fd-env"));
        lnk("/proc/self", at(W, "self"));
        const char *paths[] = {at(W, "proc-root/etc/passwd"), at(W, "fd-out"), at(W, "fd-env"),
                               at(W, "self/root/etc/passwd")};
        for (size_t i = 0; i < 4; i++)
                ck_assert_msg(leaks(plain_read(paths[i]), 1 << 15), "control %s", paths[i]);
        warder_backend *b = subject(_i, NULL);
        for (size_t i = 0; i < 4; i++)
                ck_refusal(_i, refused_read(b, paths[i]),
                           arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        warder_backend_free(b);
        close(fd_out);
        close(fd_env);
}
END_TEST

/*
 * Magic links proper: a procfs mounted inside the root (in a private mount namespace of a
 * child process). /proc/self/root and /proc/self/fd/N are magic links: the kernel would jump
 * through them without looking at their text.
 */
START_TEST(test_procfs_inside)
{
        ck_assert_int_eq(mkdir(at(W, "proc"), 0755), 0);
        int fd_out = open(at(O, "secret"), O_RDONLY);
        int fd_env = open(at(W, ".env"), O_RDONLY);
        ck_assert_int_ge(fd_out, 0);
        ck_assert_int_ge(fd_env, 0);
        char fdp[64], fde[64];
        snprintf(fdp, sizeof(fdp), "proc/self/fd/%d", fd_out);
        snprintf(fde, sizeof(fde), "proc/self/fd/%d", fd_env);
        const char *paths[] = {at(W, "proc/self/root/etc/passwd"), at(W, fdp), at(W, fde),
                               at(W, "proc/thread-self/root/etc/passwd")};
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) != 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                    mount("proc", at(W, "proc"), "proc", 0, NULL) != 0) {
                        fprintf(stderr, "note: cannot mount procfs here (%s)\n", strerror(errno));
                        _exit(77);
                }
                for (size_t i = 0; i < 4; i++) /* control */
                        if (!leaks(plain_read(paths[i]), 1 << 15)) {
                                fprintf(stderr, "control failed: %s\n", paths[i]);
                                _exit(2);
                        }
                warder_backend *b = subject(_i, NULL);
                for (size_t i = 0; i < 4; i++) {
                        struct warder_bytes out = WARDER_BYTES_INIT;
                        int rc =
                            warder_backend_read(&out, b, paths[i], strlen(paths[i]), 0, 0, 0, NULL);
                        if (rc == 0 || leaks(out.data, out.len)) {
                                fprintf(stderr, "leak: %s\n", paths[i]);
                                _exit(3);
                        }
                        fprintf(stderr, "procfs inside the root (arm %d): %s -> %s\n", _i,
                                strrchr(paths[i], '/') ? paths[i] + strlen(W) : paths[i],
                                warder_status_name(rc));
                }
                warder_backend_free(b);
                _exit(0);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        close(fd_out);
        close(fd_env);
        ck_assert(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
                return;
        ck_assert_msg(WEXITSTATUS(status) == 0, "child exit %d", WEXITSTATUS(status));
}
END_TEST

/* A FIFO answers at once (no hang), for read, write and grep. */
START_TEST(test_fifo)
{
        ck_assert_int_eq(mkfifo(at(W, "pipe"), 0644), 0);
        /* control: a plain blocking open of the FIFO does not return */
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int fd = open(at(W, "pipe"), O_RDONLY);
                _exit(fd >= 0 ? 0 : 1);
        }
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
        int status;
        ck_assert_int_eq(waitpid(pid, &status, WNOHANG), 0); /* still blocked */
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);

        alarm(20);
        warder_backend *b = subject(_i, NULL);
        ck_assert_int_eq(refused_read(b, at(W, "pipe")), WARDER_ENOTREG);
        ck_assert_int_eq(refused_write(b, at(W, "pipe"), "x"), WARDER_ENOTREG);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "public";
        req.pattern_len = strlen(req.pattern);
        req.path = W;
        req.path_len = strlen(W);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        warder_grep_result_free(&r);
        warder_backend_free(b);
        alarm(0);
}
END_TEST

/* A device file: a device node inside the root, and a symlink to /dev/zero. */
START_TEST(test_device)
{
        lnk("/dev/zero", at(W, "zero-link"));
        char *c = plain_read(at(W, "zero-link")); /* control: an endless source of bytes */
        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(c[0], 0);
        alarm(20);
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_read(b, at(W, "zero-link")),
                   arm_guard(_i) ? WARDER_EOUTSIDE : WARDER_ESYMLINK);
        if (mknod(at(W, "zero"), S_IFCHR | 0666, makedev(1, 5)) == 0) {
                ck_assert_ptr_nonnull(plain_read(at(W, "zero")));
                ck_assert_int_eq(refused_read(b, at(W, "zero")), WARDER_ENOTREG);
        } else {
                fprintf(stderr, "note: mknod not permitted (%s); device node checked under /dev\n",
                        strerror(errno));
        }
        warder_backend_free(b);
        /* The real /dev/zero through a backend rooted at /dev: not a regular file. */
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.force_fallback = _i & 1;
        warder_backend *dev = NULL;
        ck_assert_int_eq(warder_local_new(&dev, "/dev", &lo, NULL), 0);
        ck_assert_int_eq(refused_read(dev, "/dev/zero"), WARDER_ENOTREG);
        ck_assert_int_eq(refused_read(dev, "/dev/null"), WARDER_ENOTREG);
        warder_backend_free(dev);
        alarm(0);
}
END_TEST

/* A file above the cap. */
START_TEST(test_cap)
{
        size_t big = 2u << 20;
        char *data = malloc(big);
        memset(data, 'a', big);
        memcpy(data + big - 64, OUT_SECRET, strlen(OUT_SECRET));
        int fd = open(at(W, "big.txt"), O_WRONLY | O_CREAT, 0644);
        ck_assert_int_eq(write(fd, data, big), (ssize_t)big);
        close(fd);
        free(data);
        struct stat st; /* control: the file is there, whole */
        ck_assert_int_eq(stat(at(W, "big.txt"), &st), 0);
        ck_assert_int_eq(st.st_size, (off_t)big);
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.max_read = 1u << 20;
        lo.grep_max_file = 1u << 20;
        warder_backend *b = subject(_i, &lo);
        ck_assert_int_eq(refused_read(b, at(W, "big.txt")), WARDER_ETOOBIG);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = OUT_SECRET;
        req.pattern_len = strlen(req.pattern);
        req.path = W;
        req.path_len = strlen(W);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 0);
        ck_assert(r.truncated);
        warder_grep_result_free(&r);
        warder_backend_free(b);
}
END_TEST

/* A name with a newline: refused when it is a link to a secret, reported raw otherwise. */
START_TEST(test_newline_name)
{
        lnk(".env", at(W, "ok.txt\n"));
        put(at(W, "notes\nx.txt "), "needle\n");
        ck_assert(leaks(plain_read(at(W, "ok.txt\n")), 64));
        warder_backend *b = subject(_i, NULL);
        ck_refusal(_i, refused_read(b, at(W, "ok.txt\n")), WARDER_ESYMLINK);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "needle|SECRET";
        req.pattern_len = strlen(req.pattern);
        req.path = W;
        req.path_len = strlen(W);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        bool raw = false;
        for (size_t i = 0; i < r.count; i++) {
                if (strcmp(r.items[i].path, at(W, "notes\nx.txt ")) == 0)
                        raw = true;
                if (arm_guard(_i))
                        ck_assert_msg(!leaks(r.items[i].text, r.items[i].text_len),
                                      "grep leaked %s", r.items[i].path);
        }
        ck_assert(raw);
        if (arm_guard(_i)) {
                ck_assert_uint_eq(r.count, 1);
                ck_assert_uint_ge(r.hidden_files, 2); /* .env and .ssh/id_rsa */
        }
        warder_grep_result_free(&r);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, b, W, strlen(W), 0, NULL), 0);
        raw = false;
        for (size_t i = 0; i < e.count; i++)
                raw |= strcmp(e.items[i].name, "notes\nx.txt ") == 0 &&
                       strcmp(e.items[i].path, at(W, "notes\nx.txt ")) == 0;
        ck_assert(raw);
        warder_entries_free(&e);
        warder_backend_free(b);
}
END_TEST

/* `//etc/passwd`, `/./etc/passwd`, `/.env/` and friends: normalised before the decision. */
START_TEST(test_slash_forms)
{
        /* the last two have no control: "/etc/passwd/" is ENOTDIR for the kernel, and "/.env"
         * does not exist on the host; what matters is that they are refused before any open */
        const char *outside_forms[] = {"//etc/passwd", "/./etc/passwd", "///etc//passwd",
                                       "/etc/./passwd/", "/.env/"};
        warder_backend *b = subject(_i, NULL);
        for (size_t i = 0; i < 5; i++) {
                if (i < 3)
                        ck_assert_msg(leaks(plain_read(outside_forms[i]), 1 << 15), "control %s",
                                      outside_forms[i]);
                ck_refusal(_i, refused_read(b, outside_forms[i]), WARDER_EOUTSIDE);
        }
        if (arm_guard(_i)) {
                char f[4][PATH_MAX];
                snprintf(f[0], PATH_MAX, "%s//.env", W);
                snprintf(f[1], PATH_MAX, "%s/./.env", W);
                snprintf(f[2], PATH_MAX, "%s/.env/", W);
                snprintf(f[3], PATH_MAX, "%s/src/../.ssh//id_rsa", W);
                for (size_t i = 0; i < 4; i++)
                        ck_assert_int_eq(refused_read(b, f[i]), WARDER_EDENIED);
                /* control: the raw string `<root>/.env/` is no match for `**` + `/.env`, so a
                 * string check on the unnormalised target would have let it through */
                warder_glob *g = NULL;
                ck_assert_int_eq(warder_glob_compile(&g, "**/.env", 7, 0, NULL), 0);
                ck_assert_int_eq(warder_glob_match(g, f[2], strlen(f[2])), 0);
                ck_assert_int_eq(warder_glob_match(g, f[0], strlen(f[0])), 1);
                warder_glob_free(g);
        }
        warder_backend_free(b);
}
END_TEST

/*
 * A hard link is the same inode under another name: a path-based decision cannot tell it
 * apart, and warder does not try. Documented (docs/security.md); this test pins the
 * behaviour so the documentation stays true.
 */
START_TEST(test_hardlink)
{
        if (link(at(O, "secret"), at(W, "src/hard.txt")) != 0) {
                fprintf(stderr, "note: hard link not possible here (%s)\n", strerror(errno));
                return;
        }
        ck_assert(leaks(plain_read(at(W, "src/hard.txt")), 64));
        warder_backend *b = subject(_i, NULL);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, b, at(W, "src/hard.txt"),
                                             strlen(at(W, "src/hard.txt")), 0, 0, 0, NULL),
                         0);
        ck_assert_str_eq(out.data, OUT_SECRET "\n"); /* same inode: readable, as documented */
        warder_bytes_free(&out);
        /* Writes replace the name (rename), so the linked file outside is left alone. */
        ck_assert_int_eq(warder_backend_write(b, at(W, "src/hard.txt"),
                                              strlen(at(W, "src/hard.txt")), "new", 3, 0, NULL),
                         0);
        ck_assert_str_eq(peek(at(O, "secret")), OUT_SECRET "\n");
        warder_backend_free(b);
}
END_TEST

/*
 * The race: one thread swaps a real directory and a symlink to the secret directory
 * (renameat2 RENAME_EXCHANGE) while another reads through the subject. Zero reads of the
 * secret. The guard decides on the real form and forwards it with WARDER_NOFOLLOW, so a swap
 * after the decision makes the open fail instead of following the new link.
 */
struct swapper {
        atomic_bool stop;
        atomic_ulong swaps;
        char a[PATH_MAX], b[PATH_MAX]; /* own copies: at() is not thread-safe */
};

static void *swap_loop(void *arg)
{
        struct swapper *s = arg;
        while (!atomic_load(&s->stop)) {
                if (syscall(SYS_renameat2, AT_FDCWD, s->a, AT_FDCWD, s->b,
                            2 /* RENAME_EXCHANGE */) == 0)
                        atomic_fetch_add(&s->swaps, 1);
        }
        return NULL;
}

#define RACE_READS 3000

START_TEST(test_race)
{
        ck_assert_int_eq(mkdir(at(W, "box"), 0755), 0);
        put(at(W, "box/f"), "public\n");
        put(at(W, ".ssh/f"), RACE_SECRET "\n");
        lnk(".ssh", at(W, "lnk"));
        /* control (static): the symlinked path leads to the secret */
        ck_assert(leaks(plain_read(at(W, "lnk/f")), 64));

        struct swapper s;
        atomic_init(&s.stop, false);
        atomic_init(&s.swaps, 0);
        snprintf(s.a, sizeof(s.a), "%s/box", W);
        snprintf(s.b, sizeof(s.b), "%s/lnk", W);
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/box/f", W);
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, swap_loop, &s), 0);

        /* control (dynamic): plain open() under the race reads the secret at times */
        unsigned plain_leaks = 0;
        for (int i = 0; i < RACE_READS; i++)
                plain_leaks += leaks(plain_read(p), 64);

        warder_backend *b = subject(_i, NULL);
        unsigned ok = 0, refused = 0, leaked = 0;
        for (int i = 0; i < RACE_READS; i++) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                int rc = warder_backend_read(&out, b, p, strlen(p), 0, 0, 0, NULL);
                if (rc == 0) {
                        ok++;
                        leaked += leaks(out.data, out.len);
                } else {
                        refused++;
                }
                warder_bytes_free(&out);
        }
        /* Writes under the same race never land in the secret directory. */
        unsigned written = 0;
        for (int i = 0; i < RACE_READS / 3; i++)
                written += warder_backend_write(b, p, strlen(p), "owned\n", 6, 0, NULL) == 0;
        char *secret_now = peek(at(W, ".ssh/f"));
        bool secret_intact = secret_now && strcmp(secret_now, RACE_SECRET "\n") == 0;
        /* control (dynamic, writes): plain open() under the race writes into it at times */
        unsigned plain_writes_in = 0;
        for (int i = 0; i < RACE_READS / 3 && !plain_writes_in; i++) {
                int fd = open(p, O_WRONLY | O_TRUNC);
                if (fd >= 0) {
                        if (write(fd, "owned\n", 6) != 6)
                                fprintf(stderr, "short write\n");
                        close(fd);
                }
                char *now = peek(at(W, ".ssh/f"));
                plain_writes_in += now && strcmp(now, "owned\n") == 0;
        }
        atomic_store(&s.stop, true);
        pthread_join(t, NULL);
        fprintf(stderr,
                "race (%s, %s%s): %lu swaps; plain open leaked %u/%d; subject: %u ok, %u refused, "
                "%u leaked; %u writes, secret %s; plain writes reached it: %s\n",
                arm_guard(_i) ? "guard" : "local alone", (_i & 1) ? "fallback" : "openat2",
                (_i & 4) ? ", as the agent" : "", (unsigned long)atomic_load(&s.swaps), plain_leaks,
                RACE_READS, ok, refused, leaked, written, secret_intact ? "intact" : "MODIFIED",
                plain_writes_in ? "yes" : "no");
        ck_assert_uint_eq(leaked, 0);
        ck_assert(secret_intact);
        ck_assert_uint_gt(atomic_load(&s.swaps), 0);
        /* Not a blanket refusal: with the directory back in place, the public file reads. */
        struct stat st;
        ck_assert_int_eq(lstat(at(W, "box"), &st), 0);
        if (S_ISLNK(st.st_mode))
                ck_assert_int_eq(
                    syscall(SYS_renameat2, AT_FDCWD, at(W, "box"), AT_FDCWD, at(W, "lnk"), 2), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, b, p, strlen(p), 0, 0, 0, NULL), 0);
        ck_assert_msg(strcmp(out.data, "public\n") == 0 || strcmp(out.data, "owned\n") == 0,
                      "read '%s'", out.data);
        warder_bytes_free(&out);
        warder_backend_free(b);
}
END_TEST

/*
 * The race made deterministic: the approval callback runs after the decision and before the
 * guard forwards, so swapping the directory for a symlink inside it is exactly the attack.
 */
static bool swap_and_approve(void *ud, const struct warder_guard_request *req,
                             const struct warder_decision *d)
{
        (void)req;
        (void)d;
        int *swapped = ud;
        *swapped += syscall(SYS_renameat2, AT_FDCWD, at(W, "box"), AT_FDCWD, at(W, "lnk"), 2) == 0;
        return true;
}

START_TEST(test_swap_during_approval)
{
        ck_assert_int_eq(mkdir(at(W, "box"), 0755), 0);
        put(at(W, "box/f"), "public\n");
        put(at(W, ".ssh/f"), RACE_SECRET "\n");
        lnk(".ssh", at(W, "lnk"));
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.force_fallback = _i & 1;
        warder_backend *local = NULL;
        ck_assert_int_eq(warder_local_new(&local, W, &lo, NULL), 0);
        char y[512];
        snprintf(y, sizeof(y),
                 "warder: 1\ndefault: deny\n"
                 "read:\n  rules:\n    - deny: \"**/.ssh/**\"\n    - ask: \"./box/**\"\n"
                 "write:\n  rules:\n    - deny: \"**/.ssh/**\"\n    - ask: \"./box/**\"\n");
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = W;
        warder_ruleset *rs = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_load_string(&rs, y, strlen(y), "toctou", &ro, &e) == 0, "%s",
                      e.message);
        int swapped = 0;
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = W;
        go.approve = swap_and_approve;
        go.approve_ud = &swapped;
        warder_backend *g = NULL;
        ck_assert_int_eq(warder_guard_new(&g, local, rs, &go, NULL), 0);
        warder_ruleset_free(rs);
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/box/f", W);
        struct warder_bytes out = WARDER_BYTES_INIT;
        int rc = warder_backend_read(&out, g, p, strlen(p), 0, 0, 0, NULL);
        ck_assert_int_ge(swapped, 1); /* the swap happened between decision and open */
        ck_assert_msg(rc == WARDER_ESYMLINK, "read after the swap: %s", warder_status_name(rc));
        ck_assert(!leaks(out.data, out.len));
        /* the same for a write: put the directory back, let the callback swap again */
        ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, at(W, "box"), AT_FDCWD, at(W, "lnk"), 2),
                         0);
        rc = warder_backend_write(g, p, strlen(p), "owned\n", 6, 0, NULL);
        ck_assert_int_eq(swapped, 2);
        ck_assert_msg(rc == WARDER_ESYMLINK, "write after the swap: %s", warder_status_name(rc));
        ck_assert_str_eq(peek(at(W, ".ssh/f")), RACE_SECRET "\n");
        /* with the symlink in place before the decision, the real form is denied outright */
        ck_assert_int_eq(warder_backend_read(&out, g, p, strlen(p), 0, 0, 0, NULL), WARDER_EDENIED);
        ck_assert_int_eq(swapped, 2);
        /* control: the path the guard decided now leads to the secret, and a backend that
         * follows symlinks (a real form forwarded without WARDER_NOFOLLOW) reads it */
        ck_assert(leaks(plain_read(p), 64));
        warder_backend *follow = NULL;
        ck_assert_int_eq(warder_local_new(&follow, W, &lo, NULL), 0);
        ck_assert_int_eq(warder_backend_read(&out, follow, p, strlen(p), 0, 0, 0, NULL), 0);
        ck_assert(leaks(out.data, out.len));
        warder_bytes_free(&out);
        warder_backend_free(follow);
        warder_backend_free(g);
}
END_TEST

/* The backend half of the race, without the swapping thread: a real form checked and then
 * swapped for a symlink is refused, never followed. */
START_TEST(test_swap_after_check)
{
        ck_assert_int_eq(mkdir(at(W, "box"), 0755), 0);
        put(at(W, "box/f"), "public\n");
        put(at(W, ".ssh/f"), RACE_SECRET "\n");
        lnk(".ssh", at(W, "lnk"));
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.force_fallback = _i & 1;
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, W, &lo, NULL), 0);
        char *real = NULL;
        const char *p = at(W, "box/f");
        ck_assert_int_eq(warder_backend_realpath(&real, b, p, strlen(p), NULL), 0);
        ck_assert_str_eq(real, p); /* decided: not under .ssh */
        ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, at(W, "box"), AT_FDCWD, at(W, "lnk"), 2),
                         0);
        ck_assert(leaks(plain_read(p), 64)); /* control: the checked path now leads to the secret */
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(
            warder_backend_read(&out, b, real, strlen(real), 0, 0, WARDER_NOFOLLOW, NULL),
            WARDER_ESYMLINK);
        ck_assert_int_eq(warder_backend_write(b, real, strlen(real), "x", 1, WARDER_NOFOLLOW, NULL),
                         WARDER_ESYMLINK);
        ck_assert_str_eq(peek(at(W, ".ssh/f")), RACE_SECRET "\n");
        warder_free(real);
        warder_backend_free(b);
}
END_TEST

static Suite *suite(void)
{
        Suite *s = suite_create("attacks");
        TCase *tc = tcase_create("attacks");
        tcase_set_timeout(tc, 120);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_loop_test(tc, test_symlink_read, 0, arms);
        tcase_add_loop_test(tc, test_symlink_write, 0, arms);
        tcase_add_loop_test(tc, test_symlinked_parent, 0, arms);
        tcase_add_loop_test(tc, test_dangling_write, 0, arms);
        tcase_add_loop_test(tc, test_traversal_and_absolute, 0, arms);
        tcase_add_loop_test(tc, test_magic_links, 0, arms);
        tcase_add_loop_test(tc, test_procfs_inside, 0, arms);
        tcase_add_loop_test(tc, test_fifo, 0, arms);
        tcase_add_loop_test(tc, test_device, 0, arms);
        tcase_add_loop_test(tc, test_cap, 0, arms);
        tcase_add_loop_test(tc, test_newline_name, 0, arms);
        tcase_add_loop_test(tc, test_slash_forms, 0, arms);
        tcase_add_loop_test(tc, test_hardlink, 0, arms);
        tcase_add_loop_test(tc, test_race, 0, arms);
        tcase_add_loop_test(tc, test_grep_result_independent_of_hidden_contents, 0, 2);
        tcase_add_test(tc, test_grep_fallback_independent_of_hidden_contents);
        tcase_add_test(tc, test_case_insensitive_fs);
        tcase_add_loop_test(tc, test_swap_after_check, 0, 2);
        tcase_add_loop_test(tc, test_swap_during_approval, 0, 2);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        if (geteuid() == 0)
                arms = AGENT_ARMS;
        else
                fprintf(stderr, "attacks: not root, the arms acting as the agent are skipped\n");
        return warder_test_run(suite());
}
