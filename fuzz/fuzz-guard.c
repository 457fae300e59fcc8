/* SPDX-License-Identifier: MIT */
/*
 * The guarded backend (semantics §4) over the memory backend (§6.1).
 *
 * Input: a program of up to 64 operations, each decoded from a few bytes: an opcode, a
 * path built from a fixed alphabet of components (".env", "Secret", "secrets", "..", "." and
 * plain names; absolute under the root or relative to it), and small arguments chosen from
 * fixed lists. Opcodes: write through the UNGUARDED inner backend (a file the ruleset denies
 * for read gets marker content "SECRET-<n>"), and read, write, edit, ls, glob, grep, execute
 * through the guard.
 * Fixture ruleset (fold_case): the patterns ".env" and "secret*" at any depth are denied for
 * read, edit, ls, glob and grep; writes are allowed, execute denied (see `fixture` below).
 * Invariants:
 *  - no operation through the guard ever returns marker content: not in read bytes, not in
 *    a grep line;
 *  - a target the ruleset denies is refused with WARDER_EDENIED whether or not it exists
 *    (§4.3); no ls/glob entry and no grep match names a denied file (§4.6, §4.7);
 *  - the fixture itself is checked independently: a file whose name is ".env" or starts with
 *    "secret" (any case) is denied for read, so a ruleset bug cannot hide the marker;
 *  - execute is WARDER_ENOTSUP (the memory backend has no shell, §4.8).
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "fixture-rules.h"
#include "fuzz.h"
#include "warder/backend.h"
#include "warder/error.h"
#include "warder/guard.h"
#include "warder/memory.h"
#include "warder/path.h"
#include "warder/ruleset.h"

#define ROOT   "/work/project"
#define MARKER "SECRET-"

#define DENY_SECRETS                                                                               \
        "  default: allow\n"                                                                       \
        "  rules:\n"                                                                               \
        "    - pattern: \"**/.env\"\n"                                                             \
        "      action: deny\n"                                                                     \
        "    - pattern: \"**/secret*\"\n"                                                          \
        "      action: deny\n"

static const char fixture[] = "warder: 1\n"
                              "default: allow\n"
                              "fold_case: true\n"
                              "read:\n" DENY_SECRETS "edit:\n" DENY_SECRETS "ls:\n" DENY_SECRETS
                              "glob:\n" DENY_SECRETS "grep:\n" DENY_SECRETS "write:\n"
                              "  default: allow\n"
                              "execute:\n"
                              "  default: deny\n";

static warder_ruleset *rules;

static const char *const components[] = {
    "a", "b", ".env", "secret.txt", "Secret", "secrets", "x.env", ".ENV", "..", ".", "", "c.txt",
};
static const char *const glob_patterns[] = {
    "*", "**", "**/*", "**/.env", "*/secret*", "**/*.txt", "{a,b}/*", "**/[sS]*",
};
static const char *const grep_patterns[] = {
    "SECRET", "SECRET-[0-9]+", "(?i)secret", ".", "public", "e", "^", "S.C",
};
static const char *const grep_globs[] = {NULL, "*", "**/.env", "*.txt", "**/*"};
static const char *const edit_old[] = {"public", "SECRET", "line", "x"};
static const char *const edit_new[] = {"edited", "", "line2"};

#define PICK(list, r) list[next(r) % (sizeof list / sizeof *list)]

struct reader {
        const uint8_t *p;
        size_t n;
};

static unsigned next(struct reader *r)
{
        if (r->n == 0)
                return 0;
        r->n--;
        return *r->p++;
}

/* A path from the fixed alphabet: 1 to 3 components, absolute under the root or relative. */
static void decode_path(struct reader *r, char *out, size_t cap)
{
        unsigned head = next(r);
        size_t o = 0;
        out[0] = '\0';
        if (head & 1)
                o = (size_t)snprintf(out, cap, "%s/", ROOT);
        unsigned n = 1 + (head >> 1) % 3;
        for (unsigned i = 0; i < n && o < cap; i++)
                o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? "/" : "", PICK(components, r));
        if (out[0] == '\0')
                snprintf(out, cap, ".");
}

static bool denied(enum warder_op op, const char *path)
{
        return fuzz_decide(rules, op, path, NULL) == WARDER_DENY;
}

static bool has_marker(const char *s, size_t len)
{
        return s && memmem(s, len, MARKER, strlen(MARKER)) != NULL;
}

static bool name_is_secret(const char *path)
{
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        return strcasecmp(base, ".env") == 0 || strncasecmp(base, "secret", 6) == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        rules = fuzz_fixture_rules(fixture);
        /* Control arm: the fixture denies what it says, and allows the rest. */
        FUZZ_CHECK(denied(WARDER_OP_READ, ROOT "/.env"), "fixture: .env readable");
        FUZZ_CHECK(denied(WARDER_OP_GREP, ROOT "/a/Secret"), "fixture: Secret greppable");
        FUZZ_CHECK(!denied(WARDER_OP_READ, ROOT "/a/c.txt"), "fixture: c.txt denied");
        return 0;
}

static void check_entries(const struct warder_entries *e, enum warder_op op)
{
        for (size_t i = 0; i < e->count; i++) {
                const struct warder_entry *it = &e->items[i];
                FUZZ_CHECK(it->name && it->path, "entry without name or path");
                FUZZ_CHECK(!denied(op, it->path), "%s returned the denied entry '%s'",
                           warder_op_name(op), it->path);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!rules)
                LLVMFuzzerInitialize(NULL, NULL);
        struct reader r = {data, size};
        warder_backend *inner = NULL, *guard = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_memory_new(&inner, &err);
        FUZZ_CHECK(rc == 0, "memory backend: %s", err.message);
        rc = warder_memory_mkdir(inner, ROOT, strlen(ROOT), &err);
        FUZZ_CHECK(rc == 0, "mkdir root: %s", err.message);
        rc = warder_guard_new(&guard, inner, rules, NULL, &err);
        FUZZ_CHECK(rc == 0, "guard: %s", err.message);
        FUZZ_CHECK(!warder_backend_can_execute(guard), "a guard over memory can execute");

        char path[256], msg[64];
        for (unsigned step = 0; step < 64 && r.n > 0; step++) {
                unsigned op = next(&r) % 8;
                decode_path(&r, path, sizeof path);
                size_t plen = strlen(path);
                char *lit = NULL;
                bool ok_path = warder_path_normalize(&lit, NULL, ROOT, "/home/agent", NULL, path,
                                                     plen, NULL) == 0;
                struct warder_error e = WARDER_ERROR_INIT;
                switch (op) {
                case 0: { /* unguarded write: plant a file, secret or public */
                        if (!ok_path)
                                break;
                        bool secret = denied(WARDER_OP_READ, lit);
                        if (name_is_secret(lit))
                                FUZZ_CHECK(secret, "fixture: '%s' is not denied for read", lit);
                        int n = secret ? snprintf(msg, sizeof msg, MARKER "%u\nmore " MARKER "%u\n",
                                                  step, step)
                                       : snprintf(msg, sizeof msg, "public %u\nline\n", step);
                        if (warder_backend_write(inner, lit, strlen(lit), msg, (size_t)n, 0, NULL))
                                break;
                        /* Control arm: without the guard the content is there to be read. */
                        struct warder_bytes raw = WARDER_BYTES_INIT;
                        rc = warder_backend_read(&raw, inner, lit, strlen(lit), 0, 0, 0, NULL);
                        FUZZ_CHECK(rc == 0 && has_marker(raw.data, raw.len) == secret,
                                   "planted '%s' does not read back (%d)", lit, rc);
                        warder_bytes_free(&raw);
                        break;
                }
                case 1: { /* read */
                        struct warder_bytes b = WARDER_BYTES_INIT;
                        rc = warder_backend_read(&b, guard, path, plen, 0, 0, 0, &e);
                        if (rc == 0)
                                FUZZ_CHECK(!has_marker(b.data, b.len), "read '%s' leaked: %.*s",
                                           path, (int)b.len, b.data);
                        if (ok_path && denied(WARDER_OP_READ, lit))
                                FUZZ_CHECK(rc == WARDER_EDENIED, "read of denied '%s' gave %d",
                                           path, rc);
                        warder_bytes_free(&b);
                        break;
                }
                case 2: { /* guarded write of public content */
                        int n = snprintf(msg, sizeof msg, "public-w %u\n", step);
                        rc = warder_backend_write(guard, path, plen, msg, (size_t)n, 0, &e);
                        break;
                }
                case 3: { /* edit */
                        const char *o = PICK(edit_old, &r), *nw = PICK(edit_new, &r);
                        size_t count = 0;
                        unsigned flags = (next(&r) & 1) ? WARDER_EDIT_ALL : 0;
                        rc = warder_backend_edit(&count, guard, path, plen, o, strlen(o), nw,
                                                 strlen(nw), flags, &e);
                        if (ok_path && denied(WARDER_OP_EDIT, lit))
                                FUZZ_CHECK(rc == WARDER_EDENIED, "edit of denied '%s' gave %d",
                                           path, rc);
                        break;
                }
                case 4: { /* ls */
                        struct warder_entries ents = WARDER_ENTRIES_INIT;
                        rc = warder_backend_ls(&ents, guard, path, plen, 0, &e);
                        if (rc == 0)
                                check_entries(&ents, WARDER_OP_LS);
                        if (ok_path && denied(WARDER_OP_LS, lit))
                                FUZZ_CHECK(rc == WARDER_EDENIED, "ls of denied '%s' gave %d", path,
                                           rc);
                        warder_entries_free(&ents);
                        break;
                }
                case 5: { /* glob */
                        struct warder_entries ents = WARDER_ENTRIES_INIT;
                        const char *pat = PICK(glob_patterns, &r);
                        rc = warder_backend_glob(&ents, guard, pat, strlen(pat), path, plen, 0, &e);
                        if (rc == 0)
                                check_entries(&ents, WARDER_OP_GLOB);
                        warder_entries_free(&ents);
                        break;
                }
                case 6: { /* grep */
                        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                        struct warder_grep_result res = WARDER_GREP_RESULT_INIT;
                        req.pattern = PICK(grep_patterns, &r);
                        req.pattern_len = strlen(req.pattern);
                        req.path = path;
                        req.path_len = plen;
                        req.glob = PICK(grep_globs, &r);
                        req.glob_len = req.glob ? strlen(req.glob) : 0;
                        req.flags = (next(&r) & 1) ? WARDER_GREP_CASELESS : 0;
                        rc = warder_backend_grep(&res, guard, &req, &e);
                        for (size_t i = 0; rc == 0 && i < res.count; i++) {
                                const struct warder_grep_match *m = &res.items[i];
                                FUZZ_CHECK(!has_marker(m->text, m->text_len),
                                           "grep '%s' in '%s' leaked line %llu of '%s'",
                                           req.pattern, path, (unsigned long long)m->line, m->path);
                                FUZZ_CHECK(!denied(WARDER_OP_READ, m->path) &&
                                               !denied(WARDER_OP_GREP, m->path),
                                           "grep returned a match in denied '%s'", m->path);
                        }
                        warder_grep_result_free(&res);
                        break;
                }
                case 7: { /* execute: not offered */
                        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
                        struct warder_exec_result res = WARDER_EXEC_RESULT_INIT;
                        req.command = "cat .env";
                        req.command_len = strlen(req.command);
                        rc = warder_backend_execute(&res, guard, &req, &e);
                        FUZZ_CHECK(rc == WARDER_ENOTSUP, "execute gave %d", rc);
                        break;
                }
                }
                warder_error_clear(&e);
                warder_free(lit);
        }
        warder_backend_free(guard);
        return 0;
}
