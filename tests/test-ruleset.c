/* SPDX-License-Identifier: MIT */
/* Rulesets: the YAML format (§1.8), loading errors, anchoring (§2.11), decisions (§1.5,
 * §3.3), fold_case (§2.12), extends (§1.7), explanations, inline tests, and docs/rules.md. */
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ruleset/ruleset-internal.h"
#include "sha256.h"
#include "support.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"

static int load_opts(warder_ruleset **rs, const char *yaml, const char *root, const char *home,
                     struct warder_error *err)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = root;
        o.home = home;
        return warder_ruleset_load_string(rs, yaml, strlen(yaml), "t.yaml", &o, err);
}

static warder_ruleset *load_ok(const char *yaml)
{
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = load_opts(&rs, yaml, "/r", "/h", &err);
        ck_assert_msg(rc == 0, "load failed: %s:%u:%u: %s", err.file, err.line, err.column,
                      err.message);
        return rs;
}

/* Loads a document that must fail; returns the error (message, line, column). */
static struct warder_error load_bad(const char *yaml, int code)
{
        warder_ruleset *rs = (warder_ruleset *)(uintptr_t)0x1; /* must stay untouched */
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = load_opts(&rs, yaml, "/r", "/h", &err);
        ck_assert_msg(rc == code, "expected %d, got %d (%s) for:\n%s", code, rc, err.message, yaml);
        ck_assert_msg(rs == (warder_ruleset *)(uintptr_t)0x1, "output touched on failure");
        ck_assert_int_eq(err.code, code);
        return err;
}

static enum warder_action act(const warder_ruleset *rs, enum warder_op op, const char *t,
                              const char *real)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc =
            warder_ruleset_check(&d, rs, op, t, strlen(t), real, (real ? strlen(real) : 0), &err);
        ck_assert_msg(rc == 0, "check %s failed: %s", t, err.message);
        enum warder_action a = d.action;
        warder_decision_clear(&d);
        return a;
}

/* ---- format and errors (§1.8) --------------------------------------------------------- */

struct bad_case {
        const char *yaml;
        int code;
        unsigned line, column;
        const char *needle;
};

static const struct bad_case bad_cases[] = {
    {"", WARDER_EPARSE, 1, 1, "missing 'warder: 1'"},
    {"default: deny\n", WARDER_EPARSE, 1, 1, "missing 'warder: 1'"},
    {"warder: 2\n", WARDER_EPARSE, 1, 9, "unsupported format version 2"},
    {"warder: \"1\"\n", WARDER_EPARSE, 1, 9, "integer format version"},
    {"- warder: 1\n", WARDER_EPARSE, 1, 1, "mapping"},
    {"warder: 1\ndefualt: deny\n", WARDER_EPARSE, 2, 1, "did you mean 'default'?"},
    /* too many keys: every mapping names the first duplicate (or unknown) key where it stands */
    {"warder: 1\nread:\n  rules:\n    - pattern: a\n      action: deny\n      reason: r\n"
     "      id: x\n      allow: b\n      deny: c\n      ask: d\n      pattern: e\n",
     WARDER_EPARSE, 11, 7, "duplicate key 'pattern' in a rule (first at line 4)"},
    {"warder: 1\nread:\n  default: deny\n  rules: []\n  default: allow\n  rules: []\n"
     "  default: ask\n  rules: []\n  default: deny\n  rules: []\n  default: deny\n",
     WARDER_EPARSE, 5, 3, "duplicate key 'default' in 'read' (first at line 3)"},
    {"warder: 1\ntests:\n  root: /r\n  home: /h\n  cases: []\n  root: /x\n", WARDER_EPARSE, 6, 3,
     "duplicate key 'root' in 'tests' (first at line 3)"},
    {"warder: 1\ntests:\n  cases:\n    - op: read\n      target: /a\n      expect: allow\n"
     "      real: /b\n      op: write\n",
     WARDER_EPARSE, 8, 7, "duplicate key 'op' in a test case (first at line 4)"},
    {"warder: 1\nbanana: deny\n", WARDER_EPARSE, 2, 1, "unknown key 'banana'"},
    {"warder: 1\ndefault: deny\ndefault: allow\n", WARDER_EPARSE, 3, 1, "duplicate key"},
    {"warder: 1\ndefault: 1\n", WARDER_EPARSE, 2, 10, "must be a string, not an integer"},
    {"warder: 1\ndefault: dney\n", WARDER_EPARSE, 2, 10, "did you mean 'deny'?"},
    {"warder: 1\ndefault: maybe\n", WARDER_EPARSE, 2, 10, "unknown action 'maybe'"},
    {"warder: 1\nprecedence: first\n", WARDER_EPARSE, 2, 13, "unknown precedence"},
    {"warder: 1\nfold_case: yes\n", WARDER_EPARSE, 2, 12, "yes/no/on/off are strings"},
    {"warder: 1\nread:\n", WARDER_EPARSE, 2, 6, "'read' must be a mapping, not null"},
    {"warder: 1\nread: {rules: [{deny: ~}]}\n", WARDER_EPARSE, 2, 23, "not null"},
    {"warder: 1\nread: {rules: [{deny: 12}]}\n", WARDER_EPARSE, 2, 23, "(quote it)"},
    {"warder: 1\nread: {rules: [{deny: a, allow: b}]}\n", WARDER_EPARSE, 2, 26, "exactly one of"},
    {"warder: 1\nread: {rules: [{pattern: a}]}\n", WARDER_EPARSE, 2, 16, "needs 'action:'"},
    {"warder: 1\nread: {rules: [{reason: x}]}\n", WARDER_EPARSE, 2, 16, "needs a pattern"},
    {"warder: 1\nread: {rules: [{pattern: a, deny: b}]}\n", WARDER_EPARSE, 2, 17, "not both"},
    {"warder: 1\nread: {rules: [{deny: a, reasn: x}]}\n", WARDER_EPARSE, 2, 26,
     "did you mean 'reason'?"},
    {"warder: 1\nread: {rules: [{pattern: a, action: nope}]}\n", WARDER_EPARSE, 2, 37,
     "unknown action"},
    {"warder: 1\nread: {defaults: deny}\n", WARDER_EPARSE, 2, 8, "did you mean 'default'?"},
    {"warder: 1\nreed: {default: deny}\n", WARDER_EPARSE, 2, 1, "did you mean 'read'?"},
    {"warder: 1\nread: {rules: [{deny: a, id: 'read:3'}]}\n", WARDER_EPARSE, 2, 30,
     "reserved for generated ids"},
    {"warder: 1\nread: {rules: [{deny: a, id: x}]}\nwrite: {rules: [{deny: b, id: x}]}\n",
     WARDER_EPARSE, 3, 31, "duplicate rule id 'x' (first at line 2)"},
    {"warder: 1\nread: {rules: [{deny: ''}]}\n", WARDER_EPARSE, 2, 23, "empty pattern"},
    {"warder: 1\nread:\n  rules:\n    - deny: 'src/[a'\n", WARDER_EPARSE, 4, 18, "invalid"},
    {"warder: 1\nread:\n  rules:\n    - deny: 'src/{a,b'\n", WARDER_EPARSE, 4, 18, "invalid"},
    {"warder: 1\nread:\n  rules:\n    - deny: '{,*.c}'\n", WARDER_EPARSE, 4, 13,
     "empty alternative"},
    {"warder: 1\nread:\n  rules:\n    - deny: 'src//a.c'\n", WARDER_EPARSE, 4, 17,
     "empty path component"},
    {"warder: 1\nread:\n  rules:\n    - deny: 'a/../b'\n", WARDER_EPARSE, 4, 16, "'..'"},
    {"warder: 1\nread:\n  rules:\n    - deny: '/a/./b'\n", WARDER_EPARSE, 4, 17, "'.'"},
    {"warder: 1\nread:\n  rules:\n    - deny: '{a,!b}'\n", WARDER_EPARSE, 4, 17, "leading '!'"},
    {"warder: 1\nread:\n  rules:\n    - deny: '{./a,b/..}'\n", WARDER_EPARSE, 4, 21, "'..'"},
    {"warder: 1\nread:\n  rules:\n    - deny: '!secret'\n", WARDER_EPARSE, 4, 14, "leading '!'"},
    {"warder: 1\nread:\n  rules:\n    - deny: '~bob/x'\n", WARDER_EPARSE, 4, 14, "'~user'"},
    {"warder: 1\nread:\n  rules:\n    - deny: **/.env\n", WARDER_EPARSE, 4, 14, "quote a pattern"},
    {"warder: 1\nexecute:\n  rules:\n    - deny: '   '\n", WARDER_EPARSE, 4, 13,
     "empty command pattern"},
    {"warder: 1\ntests: {cases: [{op: raed, target: x, expect: deny}]}\n", WARDER_EPARSE, 2, 22,
     "did you mean 'read'?"},
    {"warder: 1\ntests: {cases: [{op: read, target: x}]}\n", WARDER_EPARSE, 2, 17,
     "needs 'op', 'target' and 'expect'"},
    {"warder: 1\ntests: {root: relative}\n", WARDER_EPARSE, 2, 15, "absolute"},
    {"warder: 1\nextends: nosuch\n", WARDER_EPARSE, 2, 10, "unknown preset 'nosuch'"},
    {"warder: 1\nextends: defualt\n", WARDER_EPARSE, 2, 10, "did you mean 'default'?"},
    {"warder: 1\n---\nwarder: 1\n", WARDER_EPARSE, 2, 1, "one YAML document"},
    {"warder: 1\nread: !!binary abc\n", WARDER_EPARSE, 2, 7, "unsupported tag"},
    {"warder: 1\nread: [\n", WARDER_EPARSE, 3, 1, "invalid YAML"},
    {"warder: 1\na: &x [*x]\n", WARDER_EPARSE, 2, 8, "recursive alias"},
    {"warder: 1\na: *nothing\n", WARDER_EPARSE, 2, 4, "unknown alias"},
};

START_TEST(test_load_errors)
{
        const struct bad_case *c = &bad_cases[_i];
        struct warder_error err = load_bad(c->yaml, c->code);
        ck_assert_msg(strstr(err.message, c->needle), "message '%s' lacks '%s'", err.message,
                      c->needle);
        ck_assert_str_eq(err.file, "t.yaml");
        ck_assert_msg(err.line == c->line && err.column == c->column,
                      "'%s': at %u:%u, expected %u:%u", err.message, err.line, err.column, c->line,
                      c->column);
        ck_assert_msg(!strchr(err.message, '\n'), "message is one line");
}
END_TEST

START_TEST(test_pattern_error_points_into_pattern)
{
        /* the caret points at the offending byte of the pattern (§1.8, issue: caret) */
        struct warder_error err =
            load_bad("warder: 1\nread:\n  rules:\n    - deny: \"abc/[z-a]\"\n", WARDER_EPARSE);
        ck_assert_uint_eq(err.line, 4);
        ck_assert_uint_gt(err.column, 13);
        ck_assert_uint_le(err.column, 13 + 9);
}
END_TEST

/* A UTF-8 byte order mark before the document is not content: the file loads and decides as
 * it would without one, and error positions count from after it. */
START_TEST(test_byte_order_mark)
{
        static const char doc[] = "warder: 1\nread:\n  rules:\n    - deny: '**/.env'\n";
        warder_ruleset *plain = load_ok(doc);
        warder_ruleset *bom = load_ok("\xEF\xBB\xBF"
                                      "warder: 1\nread:\n  rules:\n"
                                      "    - deny: '**/.env'\n");
        struct warder_decision a = WARDER_DECISION_INIT, b = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&a, plain, WARDER_OP_READ, "/r/.env",
                                              strlen("/r/.env"), NULL, 0, NULL),
                         0);
        ck_assert_int_eq(warder_ruleset_check(&b, bom, WARDER_OP_READ, "/r/.env", strlen("/r/.env"),
                                              NULL, 0, NULL),
                         0);
        ck_assert_int_eq(a.action, WARDER_DENY);
        ck_assert_int_eq(b.action, WARDER_DENY);
        ck_assert_uint_eq(a.line, b.line);
        ck_assert_uint_eq(a.column, b.column);
        warder_decision_clear(&a);
        warder_decision_clear(&b);
        warder_ruleset_free(plain);
        warder_ruleset_free(bom);
        struct warder_error err = load_bad("\xEF\xBB\xBF"
                                           "warder: 1\nbogus: 1\n",
                                           WARDER_EPARSE);
        ck_assert_uint_eq(err.line, 2);
        ck_assert_uint_eq(err.column, 1);
        warder_error_clear(&err);
}
END_TEST

START_TEST(test_core_schema)
{
        /* §1.8: True/TRUE are booleans; a quoted "1" is a string; yes is a string */
        warder_ruleset *rs = load_ok("warder: 1\nfold_case: TRUE\nread: {rules: [{deny: '1'}]}\n");
        ck_assert(warder_ruleset_fold_case(rs));
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/x/1", NULL), WARDER_DENY);
        warder_ruleset_free(rs);
        rs = load_ok("warder: 1\nfold_case: False\nread: {rules: [{deny: yes}, {deny: 'on'}]}\n");
        ck_assert(!warder_ruleset_fold_case(rs));
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/yes", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/on", NULL), WARDER_DENY);
        warder_ruleset_free(rs);
        /* an explicitly tagged string is a string; an alias to a string is fine */
        rs = load_ok("warder: 1\nread: {rules: [{deny: !!str 12}, {deny: &p '*.pem'}, "
                     "{ask: *p}]}\n");
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 3);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/12", NULL), WARDER_DENY);
        warder_ruleset_free(rs);
        /* the version is the integer 1 in any core-schema spelling */
        warder_ruleset_free(load_ok("warder: 0x1\n"));
        warder_ruleset_free(load_ok("warder: +1\n"));
        load_bad("warder: 99999999999999999999999\n", WARDER_EPARSE);
        load_bad("warder: 1.0\n", WARDER_EPARSE);
        load_bad("warder: 1\nfold_case: 1\n", WARDER_EPARSE);
        load_bad("warder: 1\nfold_case: 'true'\n", WARDER_EPARSE);
        load_bad("warder: 1\nread: {rules: [{deny: true}]}\n", WARDER_EPARSE);
        load_bad("warder: 1\nread: {rules: [{deny: 1.5}]}\n", WARDER_EPARSE);
        load_bad("warder: 1\nread: {rules: [{deny: null}]}\n", WARDER_EPARSE);
        load_bad("warder: 1\nwarder: 1\n", WARDER_EPARSE);
}
END_TEST

START_TEST(test_limits)
{
        /* billion laughs: refused in bounded time, before any expansion is materialised */
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "warder: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 12; i++)
                warder__buf_printf(&b,
                                   "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
                                   "*a%d, *a%d]\n",
                                   i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
                                   i - 1, i - 1);
        clock_t t0 = clock();
        struct warder_error err = load_bad(b.data, WARDER_ETOOBIG);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        ck_assert_msg(strstr(err.message, "nodes"), "%s", err.message);
        ck_assert_msg(secs < 5.0, "took %.2fs", secs); /* a generous bound, not a benchmark */
        warder__buf_free(&b);
        /* nesting depth 64 */
        warder__buf_puts(&b, "warder: 1\nx: ");
        for (int i = 0; i < 70; i++)
                warder__buf_putc(&b, '[');
        for (int i = 0; i < 70; i++)
                warder__buf_putc(&b, ']');
        err = load_bad(b.data, WARDER_ETOOBIG);
        ck_assert_msg(strstr(err.message, "deeper than 64"), "%s", err.message);
        warder__buf_free(&b);
        /* depth after alias expansion */
        warder__buf_puts(&b, "warder: 1\na: &a ");
        for (int i = 0; i < 40; i++)
                warder__buf_putc(&b, '[');
        for (int i = 0; i < 40; i++)
                warder__buf_putc(&b, ']');
        warder__buf_puts(&b, "\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n");
        err = load_bad(b.data, WARDER_ETOOBIG);
        ck_assert_msg(strstr(err.message, "after alias expansion"), "%s", err.message);
        warder__buf_free(&b);
        /* file size, node count and rule count are host-adjustable */
        const char *doc = "warder: 1\nread: {rules: [{deny: a}, {deny: b}, {deny: c}]}\n";
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        warder_ruleset *rs = NULL;
        o.root = "/r";
        o.max_file_size = 20;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err),
                         WARDER_ETOOBIG);
        ck_assert_ptr_null(rs);
        o.max_file_size = 0;
        o.max_rules = 2;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err),
                         WARDER_ETOOBIG);
        ck_assert_msg(strstr(err.message, "more than 2 rules"), "%s", err.message);
        ck_assert_str_eq(err.file, "<string>");
        o.max_rules = 0;
        o.max_nodes = 5;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err),
                         WARDER_ETOOBIG);
        o.max_nodes = 0;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err), 0);
        warder_ruleset_free(rs);
        /* an embedded NUL is refused, never truncated */
        ck_assert_int_eq(warder_ruleset_load_string(&rs, "warder: 1\n\0x", 12, NULL, &o, &err),
                         WARDER_EPARSE);
        /* many components are fine within the length limit */
        warder__buf_puts(&b, "warder: 1\nread: {rules: [{deny: '");
        for (int i = 0; i < 1500; i++)
                warder__buf_puts(&b, "/a");
        warder__buf_puts(&b, "'}]}\n");
        warder_ruleset_free(load_ok(b.data));
        warder__buf_free(&b);
        /* a pattern over the §2.13 length limit */
        warder__buf_puts(&b, "warder: 1\nread: {rules: [{deny: '");
        for (int i = 0; i < 5000; i++)
                warder__buf_putc(&b, 'a');
        warder__buf_puts(&b, "'}]}\n");
        err = load_bad(b.data, WARDER_ETOOBIG);
        warder__buf_free(&b);
}
END_TEST

START_TEST(test_mutated_documents)
{
        /* malformed input of every kind either loads or fails with a located error; never a
         * crash, a leak (ASan build) or a partial ruleset */
        size_t len = 0;
        const char *base = warder_preset_source("permissive", &len);
        ck_assert_ptr_nonnull(base);
        static const char junk[] = "*&!{}[]:,-?|>'\"#%@`~\n\t \\0";
        char *doc = malloc(len + 64);
        unsigned long long st = 12345;
        int loaded = 0, failed = 0;
        for (int iter = 0; iter < 1500; iter++) {
                memcpy(doc, base, len);
                size_t n = len;
                int edits = 1 + iter % 4;
                for (int e = 0; e < edits; e++) {
                        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                        size_t at = (size_t)(st >> 33) % n;
                        char ch = junk[(st >> 20) % (sizeof(junk) - 1)];
                        switch ((st >> 10) % 3) {
                        case 0:
                                doc[at] = ch;
                                break;
                        case 1:
                                memmove(doc + at, doc + at + 1, n - at - 1);
                                n--;
                                break;
                        default:
                                memmove(doc + at + 1, doc + at, n - at);
                                doc[at] = ch;
                                n++;
                                break;
                        }
                }
                warder_ruleset *rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = "/r";
                o.home = "/h";
                int rc = warder_ruleset_load_string(&rs, doc, n, "m.yaml", &o, &err);
                if (rc == 0) {
                        loaded++;
                        ck_assert_ptr_nonnull(rs);
                        struct warder_decision d = WARDER_DECISION_INIT;
                        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_WRITE, "/etc/x",
                                                              strlen("/etc/x"), NULL, 0, NULL),
                                         0);
                        warder_decision_clear(&d);
                        warder_ruleset_free(rs);
                } else {
                        failed++;
                        ck_assert_ptr_null(rs);
                        ck_assert_msg(err.message[0], "error without a message");
                        if (rc == WARDER_EPARSE)
                                ck_assert_msg(err.line > 0 && err.column > 0 &&
                                                  !strcmp(err.file, "m.yaml"),
                                              "unlocated error: %s", err.message);
                }
        }
        free(doc);
        ck_assert_int_gt(loaded, 10);
        ck_assert_int_gt(failed, 100);
}
END_TEST

/* ---- anchoring (§2.11) ---------------------------------------------------------------- */

struct anchor_case {
        const char *pattern;
        const char *target;
        bool match;
};

static const struct anchor_case anchor_cases[] = {
    /* absolute */
    {"/etc/passwd", "/etc/passwd", true},
    {"/etc/passwd", "/r/etc/passwd", false},
    /* trailing slash-star-star also covers the directory itself */
    {"/etc/**", "/etc", true},
    {"/etc/**", "/etc/a/b", true},
    {"/etc/**", "/etcx", false},
    {"/etc/**", "/", false},
    /* trailing slash: the directory and everything below */
    {"build/", "/r/build", true},
    {"build/", "/r/x/build/y/z", true},
    {"build/", "/r/buildx", false},
    {"build/", "/elsewhere/build", false},
    /* relative without inner slash: any depth under the root */
    {"*.log", "/r/a.log", true},
    {"*.log", "/r/x/y/a.log", true},
    {"*.log", "/var/a.log", false},
    {".env", "/r/.env", true},
    {".env", "/r/sub/.env", true},
    {".env", "/r/sub/.envx", false},
    /* relative with inner slash: anchored at the root */
    {"src/**/*.c", "/r/src/a.c", true},
    {"src/**/*.c", "/r/src/x/y/a.c", true},
    {"src/**/*.c", "/r/lib/src/a.c", false},
    {"src/*.c", "/r/src/a.c", true},
    {"src/*.c", "/r/src/x/a.c", false},
    /* ./ anchors at the root */
    {"./.env", "/r/.env", true},
    {"./.env", "/r/sub/.env", false},
    {"./src/*.c", "/r/src/a.c", true},
    /* ~ is the home given at load */
    {"~/.ssh/**", "/h/.ssh/id_rsa", true},
    {"~/.ssh/**", "/h/.ssh", true},
    {"~/.ssh/**", "/r/.ssh/id_rsa", false},
    {"~", "/h", true},
    {"~", "/h/x", false},
    /* ** anywhere */
    {"**/.git/**", "/a/.git/config", true},
    {"**/.git/**", "/.git", true},
    {"**/.git/**", "/a/.gitx/config", false},
    {"**/*.pem", "/x.pem", true},
    {"**/*.pem", "/a/b/.pem", true},
    {"**/*.pem", "/a/b/x.pem.bak", false},
    {"**", "/", true},
    {"**", "/anything/at/all", true},
    {"/**", "/", true},
    {"/", "/", true},
    {"/", "/x/y", true},
    /* braces: each alternative anchors on its own */
    {"{/etc,/var}/**", "/var/log/x", true},
    {"{/etc,/var}/**", "/etc", true},
    {"{a,b/c}", "/r/x/a", true},
    {"{a,b/c}", "/r/b/c", true},
    {"{a,b/c}", "/r/x/b/c", false},
    {"a{,bc}", "/r/x/abc", true},
    /* an escaped slash is a slash */
    {"\\/etc/**", "/etc/x", true},
    {"src\\/a.c", "/r/src/a.c", true},
    {"src\\/a.c", "/r/x/src/a.c", false},
    /* root and home are escaped before they are spliced in: see test_escaped_root */
    {"[ab].txt", "/r/q/a.txt", true},
    {"x/!b", "/r/x/!b", true}, /* '!' is special only as the first byte */
    {"\\!b", "/r/q/!b", true},
    {"*", "/r/a", true},
    {"*", "/r/a/b", true},
    {"*", "/other", false},
};

START_TEST(test_anchoring)
{
        const struct anchor_case *c = &anchor_cases[_i];
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_printf(&b, "warder: 1\ndefault: allow\nread: {rules: [{deny: '%s'}]}\n",
                           c->pattern);
        warder_ruleset *rs = load_ok(b.data);
        enum warder_action a = act(rs, WARDER_OP_READ, c->target, NULL);
        ck_assert_msg((a == WARDER_DENY) == c->match, "'%s' vs '%s': expected %s", c->pattern,
                      c->target, c->match ? "match" : "no match");
        warder_ruleset_free(rs);
        warder__buf_free(&b);
}
END_TEST

START_TEST(test_escaped_root)
{
        /* glob bytes in the root and home are literal (§2.11) */
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        const char *doc = "warder: 1\ndefault: allow\nread: {rules: [{deny: '*.c'}, "
                          "{deny: '~/k'}]}\n";
        ck_assert_int_eq(load_opts(&rs, doc, "/w[x]*", "/h?{a,b}", &err), 0);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/w[x]*/d/a.c", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/wx/d/a.c", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/wxyz/a.c", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/h?{a,b}/k", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/hx{a,b}/k", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/hxa/k", NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
        /* without a home, '~' is a load error */
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err),
                         WARDER_EPARSE);
        ck_assert_msg(strstr(err.message, "home"), "%s", err.message);
        /* root must be absolute */
        o.root = "rel";
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc, strlen(doc), NULL, &o, &err),
                         WARDER_EINVAL);
}
END_TEST

START_TEST(test_execute_patterns_are_commands)
{
        /* §2.11 last item: no anchoring, no ~, '!' ordinary; braces literal (§5.1) */
        warder_ruleset *rs = load_ok("warder: 1\ndefault: allow\nexecute:\n  rules:\n"
                                     "    - deny: '!ls'\n    - ask: 'echo {a,b}'\n"
                                     "    - allow: 'git status*'\n");
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert(warder__ruleset_match_execute(rs, "!ls", 3, false, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(warder__ruleset_match_execute(rs, "echo {a,b}", 10, false, &d));
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert(!warder__ruleset_match_execute(rs, "echo a", 6, false, &d));
        /* the whole line consults deny and ask rules only (§5.2) */
        ck_assert(warder__ruleset_match_execute(rs, "git status -s", 13, false, &d));
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        ck_assert_str_eq(d.rule_id, "execute:2");
        d = (struct warder_decision)WARDER_DECISION_INIT;
        ck_assert(!warder__ruleset_match_execute(rs, "git status -s", 13, true, &d));
        ck_assert_ptr_null(d.rule_id);
        warder_ruleset_free(rs);
        /* the strictest matching rule wins whatever the order */
        rs = load_ok("warder: 1\nexecute:\n  rules:\n    - allow: 'git *'\n"
                     "    - deny: 'git push*'\n");
        ck_assert(warder__ruleset_match_execute(rs, "git push origin", 15, false, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_uint_eq(d.rule_index, 1);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- decisions ------------------------------------------------------------------------ */

/* Two forms of one target: the real form is decided on its own whenever its bytes differ
 * (a literal that is a prefix of the real form included), and a rule found on one form is
 * named even when the other form's default answers the same. */
START_TEST(test_forms_decided_apart)
{
        warder_ruleset *rs = load_ok("warder: 1\n"
                                     "default: deny\n"
                                     "read:\n"
                                     "  rules:\n"
                                     "    - deny: '**/*.env'\n"
                                     "      id: no-env\n"
                                     "    - allow: 'pub/**'\n");
        struct warder_decision d = WARDER_DECISION_INIT;
        /* literal /r/pub/a, real /r/pub/a.env: the real form's deny wins */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "pub/a", 5, "pub/a.env", 9, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_str_eq(d.rule_id, "no-env");
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        /* control: the literal alone is allowed */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "pub/a", 5, NULL, 0, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        warder_decision_clear(&d);
        /* literal denied by default, real denied by a rule: the rule is named */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "x/link", 6, "x/b.env", 7, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(!d.by_default);
        ck_assert_str_eq(d.rule_id, "no-env");
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_decision_fields)
{
        warder_ruleset *rs = load_ok("warder: 1\n"
                                     "read:\n"
                                     "  rules:\n"
                                     "    - allow: 'src/**'\n"
                                     "    - pattern: '**/*.key'\n"
                                     "      action: deny\n"
                                     "      reason: keys stay private\n"
                                     "      id: no-keys\n");
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "x/id.key",
                                              strlen("x/id.key"), NULL, 0, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.op, WARDER_OP_READ);
        ck_assert(!d.by_default);
        ck_assert_int_eq(d.form, WARDER_FORM_BOTH);
        ck_assert_str_eq(d.rule_id, "no-keys");
        ck_assert_uint_eq(d.rule_index, 1);
        ck_assert_str_eq(d.pattern, "**/*.key");
        ck_assert_str_eq(d.reason, "keys stay private");
        ck_assert_str_eq(d.file, "t.yaml");
        ck_assert_uint_eq(d.line, 5);
        ck_assert_uint_eq(d.column, 7);
        /* a copy outlives the ruleset */
        struct warder_decision copy = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_decision_copy(&copy, &d), 0);
        warder_decision_clear(&d);
        /* generated id; first-match: the src rule decides before the key rule */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "src/id.key",
                                              strlen("src/id.key"), NULL, 0, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        ck_assert_str_eq(d.rule_id, "read:0");
        ck_assert_ptr_null(d.reason);
        warder_decision_clear(&d);
        /* nothing matches: the default decides (global default absent → ask, §1.3) */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "/x", strlen("/x"), NULL, 0, NULL), 0);
        ck_assert(d.by_default);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert_int_eq(d.form, WARDER_FORM_NONE);
        ck_assert_ptr_null(d.rule_id);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        ck_assert_str_eq(copy.rule_id, "no-keys");
        ck_assert_str_eq(copy.file, "t.yaml");
        warder_decision_clear(&copy);
}
END_TEST

START_TEST(test_precedence)
{
        const char *rules = "read:\n  rules:\n    - allow: 'src/**'\n    - deny: '**/*.key'\n"
                            "    - ask: 'src/gen/**'\n";
        char doc[512];
        snprintf(doc, sizeof(doc), "warder: 1\n%s", rules);
        warder_ruleset *rs = load_ok(doc);
        ck_assert_int_eq(warder_ruleset_precedence(rs), WARDER_FIRST_MATCH);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "src/a.key", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "src/gen/a.c", NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
        snprintf(doc, sizeof(doc), "warder: 1\nprecedence: strictest\n%s", rules);
        rs = load_ok(doc);
        ck_assert_int_eq(warder_ruleset_precedence(rs), WARDER_STRICTEST);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "src/a.key", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "src/gen/a.c", NULL), WARDER_ASK);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "src/a.c", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "lib/a.c", NULL), WARDER_ASK);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "src/gen/x.key",
                                              strlen("src/gen/x.key"), NULL, 0, NULL),
                         0);
        ck_assert_str_eq(d.rule_id, "read:1");
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_defaults)
{
        /* §1.3: a block without default inherits the global default; no global → ask */
        warder_ruleset *rs = load_ok("warder: 1\ndefault: deny\nread: {rules: []}\n"
                                     "write: {default: allow}\n");
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_READ), WARDER_DENY);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_WRITE), WARDER_ALLOW);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_GREP), WARDER_DENY);
        ck_assert(warder_ruleset_operation_has_default(rs, WARDER_OP_WRITE));
        ck_assert(!warder_ruleset_operation_has_default(rs, WARDER_OP_READ));
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/a", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_EXECUTE, "ls", NULL), WARDER_DENY);
        warder_ruleset_free(rs);
        rs = load_ok("warder: 1\nls: {}\n");
        for (int op = 0; op < WARDER_OP_COUNT; op++)
                ck_assert_int_eq(warder_ruleset_default(rs, (enum warder_op)op), WARDER_ASK);
        ck_assert_str_eq(warder_ruleset_root(rs), "/r");
        ck_assert_str_eq(warder_ruleset_home(rs), "/h");
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_two_forms)
{
        /* §3.3: the stricter of the literal and the real form wins; form says which */
        warder_ruleset *rs = load_ok("warder: 1\ndefault: allow\nread:\n  rules:\n"
                                     "    - deny: '~/.ssh/**'\n    - ask: '/tmp/**'\n"
                                     "    - allow: '/safe/**'\n");
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "link", strlen("link"),
                                              "/h/.ssh/id_rsa", strlen("/h/.ssh/id_rsa"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        /* a link allowed by a rule of its own, whose real form rule 0 denies: still denied */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "/safe/link",
                                              strlen("/safe/link"), "/h/.ssh/id_rsa",
                                              strlen("/h/.ssh/id_rsa"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        ck_assert_uint_eq(d.rule_index, 0);
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "~/.ssh/x",
                                              strlen("~/.ssh/x"), "/safe/x", strlen("/safe/x"),
                                              NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_LITERAL);
        warder_decision_clear(&d);
        /* rule 0 denies the literal form, a later ask rule takes the real one: the deny wins
         * (rule 0's action counts like any other's) */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "~/.ssh/x",
                                              strlen("~/.ssh/x"), "/tmp/x", strlen("/tmp/x"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_LITERAL);
        ck_assert_uint_eq(d.rule_index, 0);
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "/tmp/x", strlen("/tmp/x"),
                                              "~/.ssh/x", strlen("~/.ssh/x"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        ck_assert_uint_eq(d.rule_index, 0);
        warder_decision_clear(&d);
        /* two paths, both under rule 0: the one rule decides both forms */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "~/.ssh/a",
                                              strlen("~/.ssh/a"), "~/.ssh/b", strlen("~/.ssh/b"),
                                              NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_BOTH);
        ck_assert_uint_eq(d.rule_index, 0);
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "/safe/a", strlen("/safe/a"),
                                              "/tmp/a", strlen("/tmp/a"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        /* allow needs both forms allowed; a real form equal to the literal one is "both" */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "/safe/a", strlen("/safe/a"),
                                              "/safe/./a", strlen("/safe/./a"), NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        ck_assert_int_eq(d.form, WARDER_FORM_BOTH);
        warder_decision_clear(&d);
        /* `..` is lexical (§3.1): /safe/../h/.ssh/k is ~/.ssh/k */
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/safe/../h/.ssh/k", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "//h//.ssh/k/", NULL), WARDER_DENY);
        /* bad targets */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "", strlen(""), NULL, 0, NULL),
            WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_EXECUTE, "ls", strlen("ls"), "/x",
                                              strlen("/x"), NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, (enum warder_op)9, "/x", strlen("/x"), NULL, 0, NULL),
            WARDER_EINVAL);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_fold_case)
{
        /* §2.12: deny/ask match exact OR folded; allow stays exact */
        const char *rules = "read:\n  rules:\n    - allow: 'Public/**'\n"
                            "    - deny: '**/.env'\n    - deny: '**/[!s]*.txt'\n"
                            "    - ask: '/Data/*.CSV'\n";
        char doc[512];
        snprintf(doc, sizeof(doc), "warder: 1\ndefault: allow\nfold_case: true\n%s", rules);
        warder_ruleset *rs = load_ok(doc);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/x/.ENV", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/x/.Env", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/data/a.csv", NULL), WARDER_ASK);
        /* the negated class keeps denying Secret.txt through its exact match */
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/q/Secret.txt", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/q/secret.txt", NULL), WARDER_ALLOW);
        /* allow rules never widen: public/.env is not allowed by the Public rule */
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/public/.env", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/Public/.env", NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
        snprintf(doc, sizeof(doc), "warder: 1\ndefault: allow\n%s", rules);
        rs = load_ok(doc);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/x/.ENV", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/x/.env", NULL), WARDER_DENY);
        warder_ruleset_free(rs);
        /* every letter folds, A and Z included, in keys the index files (exact name, extension,
         * directory) as in what is checked */
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "warder: 1\ndefault: allow\nfold_case: true\nread:\n  rules:\n");
        for (char c = 'a'; c <= 'z'; c++)
                warder__buf_printf(&b,
                                   "    - deny: '**/k%c'\n    - deny: '**/*.%cx'\n"
                                   "    - deny: '/D%c/**'\n",
                                   c, c - 32, c - 32);
        rs = load_ok(b.data);
        for (char c = 'a'; c <= 'z'; c++) {
                char t[64];
                snprintf(t, sizeof(t), "/q/K%c", c - 32);
                ck_assert_msg(act(rs, WARDER_OP_READ, t, NULL) == WARDER_DENY, "%s", t);
                snprintf(t, sizeof(t), "/q/f.%cX", c);
                ck_assert_msg(act(rs, WARDER_OP_READ, t, NULL) == WARDER_DENY, "%s", t);
                snprintf(t, sizeof(t), "/d%c/f", c);
                ck_assert_msg(act(rs, WARDER_OP_READ, t, NULL) == WARDER_DENY, "%s", t);
        }
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/q/K@", NULL), WARDER_ALLOW); /* '@' + 32 */
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/q/K[", NULL), WARDER_ALLOW); /* 'Z' + 1 */
        warder_ruleset_free(rs);
        warder__buf_free(&b);
}
END_TEST

/* §5.4.1's question "can a rule of this action match beneath this directory?": an operation
 * without directories (execute), a missing ruleset, an empty or relative directory are never
 * asked, even when a rule would match anything; A and Z fold like every other letter; the
 * root's answer is the first rule that can match anywhere. */
START_TEST(test_subtree)
{
        warder_ruleset *rs = load_ok("warder: 1\ndefault: allow\nfold_case: true\n"
                                     "read:\n  rules:\n    - deny: '/vault/az/**'\n"
                                     "    - ask: '/etc/**'\n"
                                     "execute:\n  rules:\n    - deny: '**'\n    - deny: '*'\n");
        struct warder_decision d = WARDER_DECISION_INIT;
        /* control: the read rules answer beneath their directories and the root */
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/vault/az", 9, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_uint_eq(d.rule_index, 0);
        ck_assert_int_eq(d.op, WARDER_OP_READ);
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/", 1, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_uint_eq(d.rule_index, 0);
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/etc", 4, &d));
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/srv", 4, &d));
        /* folded: both ends of the alphabet */
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/vault/AZ", 9, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/VAULT/aZ/x", 11, &d));
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/Vault/Az", 9, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/vault/a", 8, &d));
        /* never asked */
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_EXECUTE, "/", 1, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_EXECUTE, "/vault/az", 9, &d));
        ck_assert(!warder__ruleset_subtree(NULL, WARDER_OP_READ, "/vault/az", 9, &d));
        ck_assert(!warder__ruleset_subtree(rs, (enum warder_op)WARDER_OP_COUNT, "/", 1, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/vault/az", 0, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "vault/az", 8, &d));
        warder_ruleset_free(rs);
        /* allow rules are not asked about, and a relative directory is never asked, even
         * under a rule that matches everywhere */
        rs = load_ok("warder: 1\nread:\n  rules:\n    - allow: '/open/**'\n"
                     "write:\n  rules:\n    - deny: '/**'\n");
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/open", 5, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/", 1, &d));
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_WRITE, "/open", 5, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_WRITE, "open", 4, &d));
        warder_ruleset_free(rs);
        /* the root is "/", not "//": a glob whose first component starts with a letter still
         * matches beneath it */
        rs = load_ok("warder: 1\nread:\n  rules:\n    - deny: '/[a-z]*/key'\n");
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/", 1, &d));
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert(warder__ruleset_subtree(rs, WARDER_OP_READ, "/etc", 4, &d));
        ck_assert(!warder__ruleset_subtree(rs, WARDER_OP_READ, "/etc/x", 6, &d));
        warder_ruleset_free(rs);
}
END_TEST

/* Options from a newer or a broken caller are refused before anything loads: version 0 (a
 * struct never initialised) and a version this library does not know. */
START_TEST(test_options_version)
{
        static const unsigned bad[] = {0, WARDER_RULESET_OPTIONS_VERSION + 1};
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(bad); i++) {
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.version = bad[i];
                o.root = "/r";
                warder_ruleset *rs = (warder_ruleset *)(uintptr_t)0x1;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_int_eq(warder_ruleset_load_string(&rs, "warder: 1\n", 10, NULL, &o, &err),
                                 WARDER_EINVAL);
                ck_assert_int_eq(err.code, WARDER_EINVAL);
                char want[64];
                snprintf(want, sizeof(want), "unsupported ruleset options version %u", bad[i]);
                ck_assert_str_eq(err.message, want);
                ck_assert_ptr_eq(rs, (warder_ruleset *)(uintptr_t)0x1);
                warder_error_clear(&err);
        }
        /* control: the versions it knows load */
        for (unsigned v = 1; v <= WARDER_RULESET_OPTIONS_VERSION; v++) {
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.version = v;
                o.root = "/r";
                warder_ruleset *rs = NULL;
                ck_assert_int_eq(warder_ruleset_load_string(&rs, "warder: 1\n", 10, NULL, &o, NULL),
                                 0);
                warder_ruleset_free(rs);
        }
}
END_TEST

/* A working directory whose path is longer than PATH_MAX (getcwd() fails; the directory is
 * there): a ruleset that needs the current directory as its root is refused with EIO, and a
 * string's relative `extends` is found in "." — not in whatever the failed getcwd() left. */
START_TEST(test_unnamed_cwd)
{
        int back = open(".", O_RDONLY | O_DIRECTORY);
        ck_assert_int_ge(back, 0);
        char top[] = "/tmp/warder-cwd-XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(top));
        ck_assert_int_eq(chdir(top), 0);
        char name[201];
        memset(name, 'd', 200);
        name[200] = '\0';
        int depth = 0;
        for (; depth < (PATH_MAX / 200) + 2; depth++) {
                ck_assert_int_eq(mkdir(name, 0700), 0);
                ck_assert_int_eq(chdir(name), 0);
        }
        char cwd[PATH_MAX];
        ck_assert_ptr_null(getcwd(cwd, sizeof(cwd)));
        FILE *f = fopen("base.yaml", "w");
        ck_assert_ptr_nonnull(f);
        fputs("warder: 1\nread:\n  rules:\n    - deny: '**/.env'\n", f);
        ck_assert_int_eq(fclose(f), 0);
        /* no root given: the current directory would be it */
        warder_ruleset *rs = (warder_ruleset *)(uintptr_t)0x1;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, "warder: 1\n", 10, NULL, NULL, &err),
                         WARDER_EIO);
        ck_assert_int_eq(err.code, WARDER_EIO);
        ck_assert_ptr_nonnull(strstr(err.message, "current directory"));
        ck_assert_ptr_eq(rs, (warder_ruleset *)(uintptr_t)0x1);
        warder_error_clear(&err);
        /* a root given: the relative extends is read from "." */
        static const char doc[] = "warder: 1\ndefault: allow\nextends: ./base.yaml\n";
        rs = NULL;
        ck_assert_int_eq(load_opts(&rs, doc, "/r", "/h", &err), 0);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/.env", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "/r/a.txt", NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
        ck_assert_int_eq(unlink("base.yaml"), 0);
        for (; depth > 0; depth--) {
                ck_assert_int_eq(chdir(".."), 0);
                ck_assert_int_eq(rmdir(name), 0);
        }
        ck_assert_int_eq(fchdir(back), 0);
        close(back);
        ck_assert_int_eq(rmdir(top), 0);
}
END_TEST

/* Misuse of the API: every entry point refuses NULL and out-of-range arguments with EINVAL
 * (and its message) or a safe answer, never touching its outputs; an operation that does not
 * exist defaults to deny. */
START_TEST(test_misuse)
{
        warder_ruleset *sentinel = (warder_ruleset *)(uintptr_t)0x1, *rs = sentinel;
        struct warder_error err = WARDER_ERROR_INIT;
#define REFUSED(call)                                                                              \
        do {                                                                                       \
                ck_assert_int_eq((call), WARDER_EINVAL);                                           \
                ck_assert_int_eq(err.code, WARDER_EINVAL);                                         \
                ck_assert_str_eq(err.message, "invalid argument");                                 \
                warder_error_clear(&err);                                                          \
        } while (0)
        REFUSED(warder_ruleset_load_string(NULL, "warder: 1\n", 10, NULL, NULL, &err));
        REFUSED(warder_ruleset_load_string(&rs, NULL, 3, NULL, NULL, &err));
        REFUSED(warder_ruleset_load_file(NULL, "/x.yaml", NULL, &err));
        REFUSED(warder_ruleset_load_file(&rs, NULL, NULL, &err));
        REFUSED(warder_ruleset_load_preset(NULL, "default", NULL, &err));
        REFUSED(warder_ruleset_load_preset(&rs, NULL, NULL, &err));
        ck_assert_ptr_eq(rs, sentinel);
        /* an unknown preset names the known ones, and the nearest */
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "strikt", NULL, &err), WARDER_ENOENT);
        ck_assert_ptr_nonnull(strstr(err.message, "did you mean 'strict'"));
        ck_assert_ptr_nonnull(strstr(err.message, "readonly"));
        warder_error_clear(&err);
        ck_assert_ptr_null(warder_preset_source("nope", NULL));
        ck_assert_ptr_null(warder_preset_source(NULL, NULL));
        ck_assert_ptr_eq(rs, sentinel);

        rs = load_ok("warder: 1\ndefault: allow\nread:\n  default: ask\n  rules:\n"
                     "    - deny: '**/.env'\n");
        const enum warder_op bad = (enum warder_op)WARDER_OP_COUNT;
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_READ), WARDER_ASK);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_WRITE), WARDER_ALLOW);
        ck_assert_int_eq(warder_ruleset_default(rs, bad), WARDER_DENY);
        ck_assert_int_eq(warder_ruleset_default(NULL, WARDER_OP_READ), WARDER_DENY);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 1);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, bad), 0);
        ck_assert_uint_eq(warder_ruleset_rule_count(NULL, WARDER_OP_READ), 0);
        ck_assert(warder_ruleset_operation_has_default(rs, WARDER_OP_READ));
        ck_assert(!warder_ruleset_operation_has_default(rs, WARDER_OP_WRITE));
        ck_assert(!warder_ruleset_operation_has_default(rs, bad));
        ck_assert(!warder_ruleset_operation_has_default(NULL, WARDER_OP_READ));
        struct warder_rule_info info = WARDER_RULE_INFO_INIT;
        memset(&info, 0x5a, sizeof(info));
        info.version = WARDER_RULE_INFO_VERSION;
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 1), WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, bad, 0), WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_rule(&info, NULL, WARDER_OP_READ, 0), WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_rule(NULL, rs, WARDER_OP_READ, 0), WARDER_EINVAL);
        ck_assert_int_eq(info.line, 0x5a5a5a5au); /* untouched */
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 0), 0);
        ck_assert_str_eq(info.pattern, "**/.env");
        char **v = (char **)(uintptr_t)0x1;
        size_t count = 7;
        REFUSED(warder_ruleset_rule_alternatives(&v, &count, rs, WARDER_OP_READ, 1, &err));
        REFUSED(warder_ruleset_rule_alternatives(&v, &count, rs, bad, 0, &err));
        REFUSED(warder_ruleset_rule_alternatives(&v, &count, NULL, WARDER_OP_READ, 0, &err));
        REFUSED(warder_ruleset_rule_alternatives(NULL, &count, rs, WARDER_OP_READ, 0, &err));
        REFUSED(warder_ruleset_rule_alternatives(&v, NULL, rs, WARDER_OP_READ, 0, &err));
        ck_assert(v == (char **)(uintptr_t)0x1 && count == 7);
        bool matched = true;
        REFUSED(warder_ruleset_rule_match(&matched, rs, WARDER_OP_READ, 1, "/r/.env",
                                          strlen("/r/.env"), &err));
        REFUSED(
            warder_ruleset_rule_match(&matched, rs, bad, 0, "/r/.env", strlen("/r/.env"), &err));
        REFUSED(warder_ruleset_rule_match(&matched, NULL, WARDER_OP_READ, 0, "/r/.env",
                                          strlen("/r/.env"), &err));
        REFUSED(warder_ruleset_rule_match(&matched, rs, WARDER_OP_READ, 0, NULL, 0, &err));
        REFUSED(warder_ruleset_rule_match(NULL, rs, WARDER_OP_READ, 0, "/r/.env", strlen("/r/.env"),
                                          &err));
        ck_assert(matched);
        struct warder_decision d = WARDER_DECISION_INIT;
        REFUSED(warder_ruleset_check(&d, rs, bad, "/r/x", strlen("/r/x"), NULL, 0, &err));
        REFUSED(
            warder_ruleset_check(&d, NULL, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL, 0, &err));
        REFUSED(warder_ruleset_check(&d, rs, WARDER_OP_READ, NULL, 0, NULL, 0, &err));
        REFUSED(
            warder_ruleset_check(NULL, rs, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL, 0, &err));
        /* the path decision that guard, command inspection and check share refuses alike:
         * execute is not a path operation */
        REFUSED(warder__ruleset_check_path(&d, rs, WARDER_OP_EXECUTE, "/r/x", strlen("/r/x"), NULL,
                                           0, &err));
        REFUSED(warder__ruleset_check_path(&d, rs, bad, "/r/x", strlen("/r/x"), NULL, 0, &err));
        REFUSED(warder__ruleset_check_path(&d, NULL, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL,
                                           0, &err));
        REFUSED(warder__ruleset_check_path(&d, rs, WARDER_OP_READ, NULL, 0, NULL, 0, &err));
        d.version = 0;
        REFUSED(warder__ruleset_check_path(&d, rs, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL, 0,
                                           &err));
        d = (struct warder_decision)WARDER_DECISION_INIT;
        struct warder_explanation *ex = (struct warder_explanation *)(uintptr_t)0x1;
        REFUSED(warder_ruleset_explain(&ex, rs, bad, "/r/x", strlen("/r/x"), NULL, 0, &err));
        REFUSED(warder_ruleset_explain(&ex, NULL, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL, 0,
                                       &err));
        REFUSED(warder_ruleset_explain(&ex, rs, WARDER_OP_READ, NULL, 0, NULL, 0, &err));
        REFUSED(warder_ruleset_explain(NULL, rs, WARDER_OP_READ, "/r/x", strlen("/r/x"), NULL, 0,
                                       &err));
        ck_assert(ex == (struct warder_explanation *)(uintptr_t)0x1);
        REFUSED(warder_ruleset_run_tests(NULL, NULL, NULL, NULL, NULL, &err));
        ck_assert_ptr_null(warder_ruleset_root(NULL));
        ck_assert_ptr_null(warder_ruleset_home(NULL));
        ck_assert_int_eq(warder_ruleset_precedence(NULL), WARDER_FIRST_MATCH);
        ck_assert(!warder_ruleset_fold_case(NULL));
        ck_assert_uint_eq(warder_ruleset_test_count(NULL), 0);
        ck_assert_ptr_null(warder_ruleset_ref(NULL));
        warder_ruleset_free(NULL);
        warder_ruleset_free(rs);
        /* the first operation past the last is refused with a ruleset of any shape (one with
         * inline tests and an extended preset holds more than rules after them) */
        rs = load_ok("warder: 1\nextends: strict\nread:\n  default: ask\n"
                     "tests:\n  cases:\n    - {op: read, target: /r/.env, expect: deny}\n");
        ck_assert(!warder_ruleset_operation_has_default(rs, bad));
        REFUSED(warder_ruleset_rule_alternatives(&v, &count, rs, bad, 0, &err));
        ck_assert(v == (char **)(uintptr_t)0x1 && count == 7);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, bad), 0);
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, bad, 0), WARDER_EINVAL);
        REFUSED(
            warder_ruleset_rule_match(&matched, rs, bad, 0, "/r/.env", strlen("/r/.env"), &err));
        ck_assert(!warder__ruleset_subtree(rs, bad, "/", 1, &d));
        warder_ruleset_free(rs);
#undef REFUSED
}
END_TEST

/*
 * Pattern amplification: a file under 1 MiB whose rules, once aliases are counted and braces
 * expanded, would take minutes and gigabytes to compile (one 4,096-byte pattern with 256
 * alternatives aliased 66,000 times; 255 distinct such patterns; a 4,000-byte execute
 * pattern aliased 66,000 times; a wildcard-dense pattern aliased 4,000 times). Each is refused
 * with WARDER_ETOOBIG, at the rule that crossed a budget, in bounded time (a generous bound
 * against a hang, not a benchmark: the figures are in the issue's closing note). The files are
 * generated here, not committed.
 */
static void brace_pattern(struct warder__buf *b, size_t total, int seed)
{
        /* any depth, 9 literal runs joined by 8 `{b,c}` groups, a star: 256 alternatives */
        size_t filler = (total - 3 - 8 * 5 - 1) / 9;
        warder__buf_puts(b, "**/");
        for (int g = 0; g < 9; g++) {
                size_t start = b->len;
                warder__buf_printf(b, "x%d_%d", seed, g);
                while (b->len - start < filler)
                        warder__buf_putc(b, 'a');
                if (g < 8)
                        warder__buf_puts(b, "{b,c}");
        }
        warder__buf_putc(b, '*');
}

static void aliased(struct warder__buf *b, const char *op, const char *pattern, int times)
{
        warder__buf_printf(b, "warder: 1\n%s:\n  rules:\n    - deny: &p '%s'\n", op, pattern);
        for (int i = 1; i < times; i++)
                warder__buf_puts(b, "    - deny: *p\n");
}

START_TEST(test_compile_budget)
{
        struct warder__buf pat = WARDER__BUF_INIT, doc = WARDER__BUF_INIT;
        struct {
                const char *what;
                int kind;
        } files[] = {
            {"4096-byte pattern, 256 alternatives, 66,000 aliases", 0},
            {"255 distinct such patterns", 1},
            {"4000-byte execute pattern, 66,000 aliases", 2},
            {"wildcard-dense pattern, 4,000 aliases", 3},
            {"the brace pattern aliased 66,000 times under fold_case", 4},
        };
        for (size_t f = 0; f < WARDER__ARRAY_SIZE(files); f++) {
                warder__buf_truncate(&doc, 0);
                warder__buf_truncate(&pat, 0);
                switch (files[f].kind) {
                case 0:
                case 4:
                        brace_pattern(&pat, 4096, 0);
                        if (files[f].kind == 4)
                                warder__buf_puts(&doc, "fold_case: true\n");
                        aliased(&doc, "read", pat.data, 66000);
                        if (files[f].kind == 4) { /* the version line first */
                                struct warder__buf t = WARDER__BUF_INIT;
                                warder__buf_puts(&t, "warder: 1\nfold_case: true\n");
                                warder__buf_puts(&t, doc.data + strlen("fold_case: true\n") +
                                                         strlen("warder: 1\n"));
                                warder__buf_free(&doc);
                                doc = t;
                        }
                        break;
                case 1:
                        warder__buf_puts(&doc, "warder: 1\nread:\n  rules:\n");
                        for (int i = 0; i < 255; i++) {
                                warder__buf_truncate(&pat, 0);
                                brace_pattern(&pat, 4000, i);
                                warder__buf_printf(&doc, "    - deny: '%s'\n", pat.data);
                        }
                        break;
                case 2:
                        warder__buf_puts(&pat, "rm -rf *");
                        while (pat.len < 4000)
                                warder__buf_putc(&pat, 'x');
                        aliased(&doc, "execute", pat.data, 66000);
                        break;
                case 3:
                        warder__buf_puts(&pat, "**/");
                        while (pat.len < 4094)
                                warder__buf_puts(&pat, "q*");
                        aliased(&doc, "read", pat.data, 4000);
                        break;
                }
                ck_assert_uint_lt(doc.len, 1u << 20);
                clock_t t0 = clock();
                struct warder_error err = load_bad(doc.data, WARDER_ETOOBIG);
                double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
                ck_assert_msg(strstr(err.message, "max_pattern_bytes") ||
                                  strstr(err.message, "max_compiled_bytes"),
                              "%s: %s", files[f].what, err.message);
                ck_assert_msg(err.line > 4, "%s: reported at line %u", files[f].what, err.line);
                ck_assert_msg(secs < 10.0, "%s took %.2fs", files[f].what, secs);
                warder_error_clear(&err);
        }
        /* Within the budgets the same pattern loads (control arm: the budget is what refused),
         * and a host can lower (or raise) them. */
        warder__buf_truncate(&doc, 0);
        warder__buf_truncate(&pat, 0);
        brace_pattern(&pat, 4096, 0);
        aliased(&doc, "read", pat.data, 4);
        warder_ruleset *rs = load_ok(doc.data);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 4);
        warder_ruleset_free(rs);
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.max_compiled_bytes = 3 << 20; /* two rules' worth (each about 1.1 MiB) */
        struct warder_error err = WARDER_ERROR_INIT;
        rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc.data, doc.len, NULL, &o, &err),
                         WARDER_ETOOBIG);
        ck_assert_uint_eq(err.line, 6); /* the third rule */
        o.max_compiled_bytes = 0;
        o.max_pattern_bytes = 3 * 4096;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc.data, doc.len, NULL, &o, &err),
                         WARDER_ETOOBIG);
        ck_assert_uint_eq(err.line, 7); /* the fourth rule */
        /* A caller compiled against version 1 of the options (without the budgets) loads. */
        o.max_pattern_bytes = 1;
        o.version = 1;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, doc.data, doc.len, NULL, &o, &err), 0);
        warder_ruleset_free(rs);
        warder_error_clear(&err);
        warder__buf_free(&pat);
        warder__buf_free(&doc);
}
END_TEST

/* ---- extends (§1.7) ------------------------------------------------------------------- */

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
}

static void make_tmp(void)
{
        strcpy(tmpdir, "/tmp/warder-rs-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

START_TEST(test_extends_preset)
{
        /* a file that says default: deny keeps the preset's rules but denies what none decides */
        warder_ruleset *rs = load_ok("warder: 1\ndefault: deny\nextends: default\n"
                                     "read:\n  rules:\n    - allow: '**/.env.example'\n");
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 20);
        struct warder_rule_info info = WARDER_RULE_INFO_INIT;
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 1), 0);
        ck_assert_str_eq(info.file, "preset:default");
        ck_assert_str_eq(info.id, "read:0");
        ck_assert_str_eq(info.pattern, "**/.env");
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "a/.env.example", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "a/.env.local", NULL), WARDER_DENY);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "a/b.c", NULL), WARDER_DENY);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_LS), WARDER_DENY);
        warder_ruleset_free(rs);
        /* without its own default, the preset's operation defaults stay */
        rs = load_ok("warder: 1\nextends: default\nprecedence: strictest\n");
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_READ), WARDER_ALLOW);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_WRITE), WARDER_ASK);
        ck_assert_int_eq(warder_ruleset_precedence(rs), WARDER_STRICTEST);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "a/b.c", NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_extends_files)
{
        make_tmp();
        write_file("base.yaml", "warder: 1\ndefault: allow\nfold_case: true\n"
                                "read:\n  default: ask\n  rules:\n    - deny: '*.key'\n");
        write_file("mid.yaml", "warder: 1\nextends: ./base.yaml\nread:\n  rules:\n"
                               "    - allow: 'pub/**'\n");
        write_file("top.yaml", "warder: 1\nextends: mid.yaml\n");
        char path[256];
        snprintf(path, sizeof(path), "%s/top.yaml", tmpdir);
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), 0);
        ck_assert(warder_ruleset_fold_case(rs));
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_READ), WARDER_ASK);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_WRITE), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "pub/a.key", NULL), WARDER_ALLOW);
        ck_assert_int_eq(act(rs, WARDER_OP_READ, "x/A.KEY", NULL), WARDER_DENY);
        struct warder_rule_info info = WARDER_RULE_INFO_INIT;
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 1), 0);
        ck_assert_msg(strstr(info.file, "base.yaml"), "%s", info.file);
        ck_assert_uint_eq(info.line, 7);
        warder_ruleset_free(rs);
        /* a cycle is reported at the extends line that closes it */
        write_file("c1.yaml", "warder: 1\nextends: c2.yaml\n");
        write_file("c2.yaml", "warder: 1\n\nextends: ./c1.yaml\n");
        snprintf(path, sizeof(path), "%s/c1.yaml", tmpdir);
        rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), WARDER_EPARSE);
        ck_assert_ptr_null(rs);
        ck_assert_msg(strstr(err.message, "cycle"), "%s", err.message);
        ck_assert_msg(strstr(err.file, "c2.yaml"), "%s", err.file);
        ck_assert_uint_eq(err.line, 3);
        ck_assert_uint_eq(err.column, 10);
        /* a ninth extends is an error */
        for (int i = 0; i < 10; i++) {
                char name[32], text[96];
                snprintf(name, sizeof(name), "d%d.yaml", i);
                if (i < 9)
                        snprintf(text, sizeof(text), "warder: 1\nextends: d%d.yaml\n", i + 1);
                else
                        snprintf(text, sizeof(text), "warder: 1\n");
                write_file(name, text);
        }
        snprintf(path, sizeof(path), "%s/d1.yaml", tmpdir);
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), 0); /* 8 extends */
        warder_ruleset_free(rs);
        snprintf(path, sizeof(path), "%s/d0.yaml", tmpdir);
        rs = NULL;
        ck_assert_int_ne(warder_ruleset_load_file(&rs, path, &o, &err), 0); /* 9 extends */
        ck_assert_ptr_null(rs);
        ck_assert_msg(strstr(err.message, "more than 8"), "%s", err.message);
        /* an error in a base file names the base file */
        write_file("broken.yaml", "warder: 1\nread: {rules: [{deny: 'a//b'}]}\n");
        write_file("user.yaml", "warder: 1\nextends: broken.yaml\n");
        snprintf(path, sizeof(path), "%s/user.yaml", tmpdir);
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), WARDER_EPARSE);
        ck_assert_msg(strstr(err.file, "broken.yaml"), "%s", err.file);
        /* a missing file */
        snprintf(path, sizeof(path), "%s/none.yaml", tmpdir);
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), WARDER_ENOENT);
        write_file("missing.yaml", "warder: 1\nextends: nowhere.yaml\n");
        snprintf(path, sizeof(path), "%s/missing.yaml", tmpdir);
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, &o, &err), WARDER_ENOENT);
        ck_assert_uint_eq(err.line, 2);
        /* a string extends relative to base_dir */
        const char *s = "warder: 1\nextends: base.yaml\n";
        o.base_dir = tmpdir;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, s, strlen(s), NULL, &o, &err), 0);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 1);
        warder_ruleset_free(rs);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * The loader reads regular files only, opened without blocking: a FIFO, a device or
 * /dev/stdin given as --rules, to lint, or reached through `extends` is refused at once
 * (WARDER_ENOTREG) instead of hanging. Each load runs in a child under alarm(): a hang is a
 * test failure, not a stuck suite. The control arm shows that an ordinary open of the FIFO
 * blocks.
 */
static int load_in_child(const char *path, int stdin_fd, unsigned seconds)
{
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (stdin_fd >= 0)
                        dup2(stdin_fd, 0);
                signal(SIGALRM, SIG_DFL); /* Check's own handler kills the whole group */
                alarm(seconds);
                if (!path) { /* control arm: what fopen() does with the FIFO */
                        char fifo[256];
                        snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
                        FILE *f = fopen(fifo, "rb");
                        _exit(f ? 0 : 1);
                }
                warder_ruleset *rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                int rc = warder_ruleset_load_file(&rs, path, NULL, &err);
                _exit(rc == WARDER_ENOTREG && strstr(err.message, "not a regular file") ? 0 : 10);
        }
        int ws = 0;
        ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
        return ws;
}

START_TEST(test_loader_refuses_special_files)
{
        make_tmp();
        char fifo[256], path[256];
        snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        /* Control arm: opening the FIFO the ordinary way blocks until the alarm kills it. */
        int ws = load_in_child(NULL, -1, 1);
        ck_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM);
        /* The loader answers at once, directly and through extends. */
        write_file("via-fifo.yaml", "warder: 1\nextends: ./fifo\n");
        write_file("via-stdin.yaml", "warder: 1\nextends: /dev/stdin\n");
        write_file("via-null.yaml", "warder: 1\nextends: /dev/null\n");
        write_file("via-dir.yaml", "warder: 1\nextends: ./\n");
        const char *const direct[] = {fifo, "/dev/null", "/dev/stdin", tmpdir};
        int pipefd[2];
        ck_assert_int_eq(pipe(pipefd), 0); /* stdin: a pipe nobody writes to */
        for (size_t i = 0; i < 4; i++) {
                ws = load_in_child(direct[i], pipefd[0], 5);
                ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s: status %d", direct[i],
                              ws);
        }
        const char *const via[] = {"via-fifo.yaml", "via-stdin.yaml", "via-null.yaml",
                                   "via-dir.yaml"};
        for (size_t i = 0; i < 4; i++) {
                snprintf(path, sizeof(path), "%s/%s", tmpdir, via[i]);
                ws = load_in_child(path, pipefd[0], 5);
                ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s: status %d", via[i], ws);
        }
        close(pipefd[0]);
        close(pipefd[1]);
        /* The error names the extends line of the file that reached it. */
        snprintf(path, sizeof(path), "%s/via-fifo.yaml", tmpdir);
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_load_file(&rs, path, NULL, &err), WARDER_ENOTREG);
        ck_assert_msg(strstr(err.file, "via-fifo.yaml") && err.line == 2, "%s:%u: %s", err.file,
                      err.line, err.message);
        warder_error_clear(&err);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * A load error quotes values from the file the caller named, but at most a short prefix of a
 * value from a file reached through `extends`: the caller may be unable to read that file, and
 * an error message must not hand them a line of it. Control arm: loaded directly (as the
 * caller's own file), the same file's error quotes the whole value.
 */
START_TEST(test_errors_quote_little_of_extended_files)
{
        static const char *const secret_files[] = {
            "warder: 1\nprecedence: SECRETVALUE-0123456789\n",
            "warder: 1\nSECRETVALUE-0123456789: x\n",
            "warder: 1\ndefault: SECRETVALUE-0123456789\n",
            "warder: 1\nread:\n  rules:\n    - deny: '[[:SECRETVALUE0123456789:]]'\n",
            "warder: 1\nexecute:\n  rules:\n    - deny: 'SECRETVALUE-0123456789 ['\n",
            "warder: 1\nextends: SECRETVALUE-0123456789\n",
            "warder: 1\nextends: ./SECRETVALUE-0123456789/x.yaml\n",
            "warder: 1\nread: !SECRETVALUE-0123456789 {}\n",
            "warder: 1\nread: *SECRETVALUE-0123456789\n",
            "warder: 1\nread:\n  rules:\n    - {deny: a, id: SECRETVALUE-0123456789}\n"
            "    - {deny: b, id: SECRETVALUE-0123456789}\n",
            "warder: 1\nread:\n  rules:\n    - {deny: a, id: 'read:0123456789'}\n",
            "warder: 1\ntests:\n  cases:\n    - {op: SECRETVALUE-0123456789, target: a, "
            "expect: deny}\n",
            "warder: 0123456789123\n",
        };
        make_tmp();
        write_file("top.yaml", "warder: 1\nextends: ./secret.yaml\n");
        char top[256], secret[256];
        snprintf(top, sizeof(top), "%s/top.yaml", tmpdir);
        snprintf(secret, sizeof(secret), "%s/secret.yaml", tmpdir);
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(secret_files); i++) {
                write_file("secret.yaml", secret_files[i]);
                warder_ruleset *rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                /* Control arm: the caller's own file is quoted in full. */
                ck_assert_int_ne(warder_ruleset_load_file(&rs, secret, &o, &err), 0);
                ck_assert_msg(strstr(err.message, "0123456789"), "file %zu direct: %s", i,
                              err.message);
                warder_error_clear(&err);
                /* Reached through extends: a prefix at most, and still the right place. */
                ck_assert_int_ne(warder_ruleset_load_file(&rs, top, &o, &err), 0);
                ck_assert_ptr_null(rs);
                ck_assert_msg(!strstr(err.message, "3456") && !strstr(err.message, "VALUE"),
                              "file %zu via extends: %s", i, err.message);
                ck_assert_msg(err.line >= 1, "file %zu: no line", i);
                warder_error_clear(&err);
        }
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- explain and inline tests -------------------------------------------------------- */

START_TEST(test_explain)
{
        warder_ruleset *rs = load_ok("warder: 1\nread:\n  rules:\n    - allow: 'src/**'\n"
                                     "    - deny: '**/*.key'\n    - ask: '/h/**'\n");
        struct warder_explanation *ex = NULL;
        ck_assert_int_eq(warder_ruleset_explain(&ex, rs, WARDER_OP_READ, "src/a.key",
                                                strlen("src/a.key"), "/h/a.key", strlen("/h/a.key"),
                                                NULL),
                         0);
        ck_assert_str_eq(ex->literal, "/r/src/a.key");
        ck_assert_str_eq(ex->real, "/h/a.key");
        ck_assert_uint_eq(ex->count, 3);
        ck_assert_uint_eq(ex->matches[0].rule.index, 0);
        ck_assert_int_eq(ex->matches[0].form, WARDER_FORM_LITERAL);
        ck_assert_int_eq(ex->matches[1].form, WARDER_FORM_BOTH);
        ck_assert_int_eq(ex->matches[2].form, WARDER_FORM_REAL);
        /* first-match per form: literal → allow (rule 0), real → deny (rule 1); deny wins */
        ck_assert_int_eq(ex->decision.action, WARDER_DENY);
        ck_assert_int_eq(ex->decision.form, WARDER_FORM_REAL);
        ck_assert_str_eq(ex->decision.rule_id, "read:1");
        warder_explanation_free(ex);
        warder_explanation_free(NULL);
        /* a target the check refuses: its error is passed on as it is, not called a lack of
         * memory */
        struct warder_error err = WARDER_ERROR_INIT;
        ex = (struct warder_explanation *)(uintptr_t)0x1;
        ck_assert_int_eq(warder_ruleset_explain(&ex, rs, WARDER_OP_READ, "", 0, NULL, 0, &err),
                         WARDER_EINVAL);
        ck_assert_int_eq(err.code, WARDER_EINVAL);
        ck_assert_msg(strstr(err.message, "out of memory") == NULL, "%s", err.message);
        ck_assert(ex == (struct warder_explanation *)(uintptr_t)0x1);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_lint_accessors)
{
        warder_ruleset *rs = load_ok("warder: 1\nread:\n  rules:\n    - deny: '{*.key,/etc/**}'\n"
                                     "    - deny: 'build/'\nexecute: {rules: [{deny: 'rm *'}]}\n");
        char **v = NULL;
        size_t n = 0;
        ck_assert_int_eq(warder_ruleset_rule_alternatives(&v, &n, rs, WARDER_OP_READ, 0, NULL), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(v[0], "/r/**/*.key");
        ck_assert_str_eq(v[1], "/etc/**");
        ck_assert_str_eq(v[2], "/etc");
        warder_ruleset_strv_free(v, n);
        ck_assert_int_eq(warder_ruleset_rule_alternatives(&v, &n, rs, WARDER_OP_READ, 1, NULL), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(v[0], "/r/**/build");
        ck_assert_str_eq(v[1], "/r/**/build/**");
        warder_ruleset_strv_free(v, n);
        ck_assert_int_eq(warder_ruleset_rule_alternatives(&v, &n, rs, WARDER_OP_EXECUTE, 0, NULL),
                         0);
        ck_assert_str_eq(v[0], "rm *");
        warder_ruleset_strv_free(v, n);
        ck_assert_int_eq(warder_ruleset_rule_alternatives(&v, &n, rs, WARDER_OP_READ, 2, NULL),
                         WARDER_EINVAL);
        bool m = false;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_READ, 0, "a/b.key",
                                                   strlen("a/b.key"), &err),
                         0);
        ck_assert(m);
        /* a match that succeeded reports no error */
        ck_assert_int_eq(err.code, 0);
        ck_assert_str_eq(err.message, "");
        ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_READ, 1, "a/b.key",
                                                   strlen("a/b.key"), NULL),
                         0);
        ck_assert(!m);
        ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_EXECUTE, 0, "rm -f x",
                                                   strlen("rm -f x"), NULL),
                         0);
        ck_assert(m);
        warder_ruleset_free(rs);
}
END_TEST

struct tally {
        int calls, failed;
        char last_fail[256];
};

static void on_case(void *ud, const struct warder_test_result *r)
{
        struct tally *t = ud;
        t->calls++;
        if (!r->passed) {
                t->failed++;
                snprintf(t->last_fail, sizeof(t->last_fail), "%s:%u %s %s expected %s got %s",
                         r->file, r->line, warder_op_name(r->op), r->target,
                         warder_action_name(r->expect),
                         r->decision ? warder_action_name(r->decision->action) : "error");
        }
}

START_TEST(test_inline_tests)
{
        /* tests.root/home differ from the load's: the ruleset is reloaded with them */
        const char *doc = "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: '.env'\n"
                          "    - deny: '~/.ssh/**'\n"
                          "tests:\n  root: /proj\n  home: /home/me\n  cases:\n"
                          "    - {op: read, target: .env, expect: deny}\n"
                          "    - {op: read, target: /proj/a/.env, expect: deny}\n"
                          "    - {op: read, target: /r/.env, expect: allow}\n"
                          "    - {op: read, target: ok, real: /home/me/.ssh/k, expect: deny}\n"
                          "    - {op: read, target: ok, expect: deny}\n";
        warder_ruleset *rs = load_ok(doc);
        ck_assert_uint_eq(warder_ruleset_test_count(rs), 5);
        struct tally t = {0, 0, ""};
        size_t passed = 0, failed = 0;
        ck_assert_int_eq(warder_ruleset_run_tests(&passed, &failed, rs, on_case, &t, NULL), 0);
        ck_assert_int_eq(t.calls, 5);
        ck_assert_uint_eq(passed, 4);
        ck_assert_uint_eq(failed, 1);
        ck_assert_msg(strstr(t.last_fail, "t.yaml:15 read ok expected deny got allow"), "%s",
                      t.last_fail);
        warder_ruleset_free(rs);
        /* a root of their own and the load's home: reloaded for the root alone */
        rs = load_ok("warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: '.env'\n"
                     "tests:\n  root: /proj\n  cases:\n"
                     "    - {op: read, target: /proj/.env, expect: deny}\n"
                     "    - {op: read, target: /r/.env, expect: allow}\n");
        ck_assert_int_eq(warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, NULL), 0);
        ck_assert_uint_eq(passed, 2);
        ck_assert_uint_eq(failed, 0);
        warder_ruleset_free(rs);
        /* a preset loaded under another root reloads itself, by name, for its tests */
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/elsewhere";
        o.home = "/home/other";
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "default", &o, NULL), 0);
        ck_assert_int_eq(warder_ruleset_run_tests(&passed, &failed, rs, NULL, NULL, NULL), 0);
        ck_assert_uint_eq(passed, warder_ruleset_test_count(rs));
        ck_assert_uint_gt(passed, 5);
        ck_assert_uint_eq(failed, 0);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- threads -------------------------------------------------------------------------- */

static void *hammer(void *arg)
{
        const warder_ruleset *rs = arg;
        long bad = 0;
        for (int i = 0; i < 2000; i++) {
                char t[64];
                snprintf(t, sizeof(t), "/r/d%d/f%d.%s", i % 7, i, i % 3 ? "c" : "key");
                struct warder_decision d = WARDER_DECISION_INIT;
                if (warder_ruleset_check(&d, rs, WARDER_OP_READ, t, strlen(t), NULL, 0, NULL) != 0)
                        bad++;
                else if (d.action != (i % 3 ? WARDER_ALLOW : WARDER_DENY))
                        bad++;
                warder_decision_clear(&d);
        }
        return (void *)bad;
}

START_TEST(test_threads)
{
        warder_ruleset *rs = load_ok("warder: 1\ndefault: allow\nfold_case: true\n"
                                     "read: {rules: [{deny: '**/*.key'}, {deny: 'd*/**/x?.c'}]}\n");
        pthread_t th[4];
        for (int i = 0; i < 4; i++)
                ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, warder_ruleset_ref(rs)), 0);
        for (int i = 0; i < 4; i++) {
                void *bad;
                pthread_join(th[i], &bad);
                ck_assert_int_eq((long)bad, 0);
                warder_ruleset_free(rs);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* ---- docs/rules.md examples ---------------------------------------------------------- */

START_TEST(test_docs_examples)
{
        const char *src = getenv("WARDER_SOURCE_ROOT");
        if (!src)
                return;
        char path[1024];
        snprintf(path, sizeof(path), "%s/docs/rules.md", src);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        struct warder__buf block = WARDER__BUF_INIT;
        char line[4096];
        bool in = false;
        int blocks = 0, failing = 0;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/work/project";
        o.home = "/home/user";
        o.base_dir = src;
        unsigned lineno = 0, start = 0;
        while (fgets(line, sizeof(line), f)) {
                lineno++;
                if (!in && strncmp(line, "```yaml", 7) == 0) {
                        in = true;
                        start = lineno;
                        warder__buf_truncate(&block, 0);
                        warder__buf_puts(&block, "");
                        continue;
                }
                if (in && strncmp(line, "```", 3) == 0) {
                        in = false;
                        blocks++;
                        const char *want_err = strstr(block.data, "# error: ");
                        warder_ruleset *rs = NULL;
                        struct warder_error err = WARDER_ERROR_INIT;
                        int rc = warder_ruleset_load_string(&rs, block.data, block.len, "example",
                                                            &o, &err);
                        if (want_err) {
                                failing++;
                                char expect[256];
                                sscanf(want_err + 9, "%255[^\n]", expect);
                                ck_assert_msg(rc != 0, "docs/rules.md:%u: example should fail",
                                              start);
                                char got[1700];
                                snprintf(got, sizeof(got), "%s:%u:%u: %s", err.file, err.line,
                                         err.column, err.message);
                                ck_assert_msg(strstr(got, expect),
                                              "docs/rules.md:%u: got '%s', want '%s'", start, got,
                                              expect);
                                continue;
                        }
                        ck_assert_msg(rc == 0, "docs/rules.md:%u: %s:%u:%u: %s", start, err.file,
                                      err.line, err.column, err.message);
                        struct tally t = {0, 0, ""};
                        ck_assert_int_eq(
                            warder_ruleset_run_tests(NULL, NULL, rs, on_case, &t, &err), 0);
                        ck_assert_msg(t.failed == 0, "docs/rules.md:%u: %s", start, t.last_fail);
                        warder_ruleset_free(rs);
                        continue;
                }
                if (in)
                        warder__buf_puts(&block, line);
        }
        fclose(f);
        warder__buf_free(&block);
        ck_assert_int_gt(blocks, 5);
        ck_assert_int_gt(failing, 2);
}
END_TEST

/* ---- digest --------------------------------------------------------------------------- */

static void sha256_hex(const void *data, size_t len, char out[65])
{
        struct warder__sha256 c;
        unsigned char sum[32];
        warder__sha256_init(&c);
        /* fed in uneven pieces, so that block boundaries fall everywhere */
        const unsigned char *p = data;
        for (size_t step = 1; len; step = step * 2 + 1) {
                size_t n = step < len ? step : len;
                warder__sha256_update(&c, p, n);
                p += n;
                len -= n;
        }
        warder__sha256_final(&c, sum);
        for (int i = 0; i < 32; i++)
                snprintf(out + 2 * i, 3, "%02x", sum[i]);
}

/* FIPS 180-4 examples (NIST's "SHA256.pdf" and the one-million-a test). */
START_TEST(test_sha256_vectors)
{
        char hex[65];
        sha256_hex("", 0, hex);
        ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        sha256_hex("abc", 3, hex);
        ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        sha256_hex(two, strlen(two), hex);
        ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        char *million = malloc(1000000);
        ck_assert_ptr_nonnull(million);
        memset(million, 'a', 1000000);
        sha256_hex(million, 1000000, hex);
        free(million);
        ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* The digest changes with anything that decides, and only with that. */
START_TEST(test_digest)
{
        const char *base = "warder: 1\nread:\n  rules:\n    - deny: \"**/.env\"\n";
        warder_ruleset *a = load_ok(base), *b = load_ok(base);
        const char *da = warder_ruleset_digest(a);
        ck_assert_ptr_nonnull(da);
        ck_assert_uint_eq(strlen(da), 7 + 64);
        ck_assert(strncmp(da, "sha256:", 7) == 0);
        ck_assert_str_eq(da, warder_ruleset_digest(b));
        ck_assert_ptr_eq(da, warder_ruleset_digest(a)); /* made once */
        const char *variants[] = {
            "warder: 1\nread:\n  rules:\n    - ask: \"**/.env\"\n",
            "warder: 1\nread:\n  rules:\n    - deny: \"**/.env*\"\n",
            "warder: 1\nread:\n  rules:\n    - deny: \"**/.env\"\n      reason: r\n",
            "warder: 1\ndefault: deny\nread:\n  rules:\n    - deny: \"**/.env\"\n",
            "warder: 1\nfold_case: true\nread:\n  rules:\n    - deny: \"**/.env\"\n",
            "warder: 1\nwrite:\n  rules:\n    - deny: \"**/.env\"\n",
        };
        for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
                warder_ruleset *v = load_ok(variants[i]);
                ck_assert_msg(strcmp(warder_ruleset_digest(v), da) != 0, "variant %zu", i);
                warder_ruleset_free(v);
        }
        /* another root anchors the same text elsewhere */
        warder_ruleset *r = NULL;
        ck_assert_int_eq(load_opts(&r, base, "/elsewhere", "/h", NULL), 0);
        ck_assert_str_ne(warder_ruleset_digest(r), da);
        warder_ruleset_free(r);
        ck_assert_ptr_null(warder_ruleset_digest(NULL));
        warder_ruleset_free(a);
        warder_ruleset_free(b);
}
END_TEST

/* The fields the digest covers beyond the rules' actions and patterns: each one, changed
 * alone, changes it — else an approval given under one ruleset would be honoured under
 * another that decides otherwise (home anchors `~/`, precedence combines rules) or that
 * names another source for the same rule. */
START_TEST(test_digest_fields)
{
        /* every variant keeps each rule on its line */
        const char *base = "warder: 1\nprecedence: first-match\nread:\n  default: deny\n  rules:\n"
                           "    - deny: \"~/.ssh/**\"\n    - allow: \"**\"\n";
        warder_ruleset *a = load_ok(base);
        const char *da = warder_ruleset_digest(a);
        ck_assert_ptr_nonnull(da);
        warder_ruleset *v[6] = {NULL};
        ck_assert_int_eq(load_opts(&v[0], base, "/r", "/h2", NULL), 0);
        v[1] = load_ok("warder: 1\nprecedence: strictest\nread:\n  default: deny\n  rules:\n"
                       "    - deny: \"~/.ssh/**\"\n    - allow: \"**\"\n");
        /* the same rules, named by another file */
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/r";
        o.home = "/h";
        ck_assert_int_eq(warder_ruleset_load_string(&v[2], base, strlen(base), "u.yaml", &o, NULL),
                         0);
        /* the same rules, two columns further right */
        v[3] = load_ok("warder: 1\nprecedence: first-match\nread:\n  default: deny\n  rules:\n"
                       "      - deny: \"~/.ssh/**\"\n      - allow: \"**\"\n");
        /* read's default written out or inherited: the same default, the same decisions,
         * but not the same ruleset text (warder_ruleset_operation_has_default) */
        v[4] = load_ok("warder: 1\ndefault: deny\nread:\n  # inherited\n  rules:\n"
                       "    - deny: \"~/.ssh/**\"\n    - allow: \"**\"\n");
        v[5] = load_ok("warder: 1\ndefault: deny\nread:\n  default: deny\n  rules:\n"
                       "    - deny: \"~/.ssh/**\"\n    - allow: \"**\"\n");
        ck_assert_int_eq(warder_ruleset_default(v[4], WARDER_OP_READ),
                         warder_ruleset_default(v[5], WARDER_OP_READ));
        ck_assert_uint_eq(warder_ruleset_rule_count(v[4], WARDER_OP_READ),
                          warder_ruleset_rule_count(v[5], WARDER_OP_READ));
        for (size_t i = 0; i < 4; i++)
                ck_assert_msg(strcmp(warder_ruleset_digest(v[i]), da) != 0, "variant %zu", i);
        ck_assert_str_ne(warder_ruleset_digest(v[4]), warder_ruleset_digest(v[5]));
        for (size_t i = 0; i < 6; i++)
                warder_ruleset_free(v[i]);
        warder_ruleset_free(a);
        /* fields are delimited: moving bytes from a rule's id to its pattern changes it */
        warder_ruleset *x = load_ok("warder: 1\nread:\n  rules:\n    - {deny: '**/a', id: k}\n");
        warder_ruleset *y = load_ok("warder: 1\nread:\n  rules:\n    - {deny: '*/a', id: 'k*'}\n");
        ck_assert_str_ne(warder_ruleset_digest(x), warder_ruleset_digest(y));
        warder_ruleset_free(x);
        warder_ruleset_free(y);
}
END_TEST

/* Feeds one field of the digest's stream: its length + 1 (0 for none) in 8 little-endian
 * bytes and 0xff, then its bytes. */
static void stream_field(struct warder__sha256 *c, const char *s)
{
        unsigned char tag[9];
        uint64_t n = s ? (uint64_t)strlen(s) + 1 : 0;
        for (int i = 0; i < 8; i++)
                tag[i] = (unsigned char)(n >> (8 * i));
        tag[8] = 0xff;
        warder__sha256_update(c, tag, sizeof(tag));
        if (s)
                warder__sha256_update(c, s, strlen(s));
}

static void stream_num(struct warder__sha256 *c, unsigned long long v)
{
        char buf[24];
        snprintf(buf, sizeof(buf), "%llu", v);
        stream_field(c, buf);
}

/* The digest is one stream, versioned by its first field: a host may keep digests beside the
 * approvals it gave, so the same ruleset digests the same way in every build, and a change to
 * what is hashed comes with a new version tag. Rebuilt here from the public accessors. */
START_TEST(test_digest_stream)
{
        warder_ruleset *rs = load_ok("warder: 1\ndefault: deny\nfold_case: true\n"
                                     "read:\n  default: allow\n  rules:\n"
                                     "    - {deny: '**/.env', reason: secrets}\n"
                                     "    - {ask: 'docs/**', id: docs}\n"
                                     "execute:\n  rules:\n    - allow: 'ls *'\n");
        struct warder__sha256 c;
        warder__sha256_init(&c);
        stream_field(&c, "warder-ruleset-digest-1");
        stream_field(&c, warder_ruleset_root(rs));
        stream_field(&c, warder_ruleset_home(rs));
        stream_num(&c, WARDER_DENY); /* the top-level default (no accessor) */
        stream_num(&c, (unsigned long long)warder_ruleset_precedence(rs));
        stream_num(&c, warder_ruleset_fold_case(rs));
        size_t total = 0;
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                size_t n = warder_ruleset_rule_count(rs, (enum warder_op)op);
                stream_num(&c, (unsigned long long)op);
                stream_num(&c, warder_ruleset_operation_has_default(rs, (enum warder_op)op));
                stream_num(&c, (unsigned long long)warder_ruleset_default(rs, (enum warder_op)op));
                stream_num(&c, n);
                for (size_t i = 0; i < n; i++) {
                        struct warder_rule_info info = WARDER_RULE_INFO_INIT;
                        ck_assert_int_eq(warder_ruleset_rule(&info, rs, (enum warder_op)op, i), 0);
                        stream_num(&c, (unsigned long long)info.action);
                        stream_field(&c, info.id);
                        stream_field(&c, info.pattern);
                        stream_field(&c, info.reason);
                        stream_field(&c, info.file);
                        stream_num(&c, info.line);
                        stream_num(&c, info.column);
                }
                total += n;
        }
        ck_assert_uint_eq(total, 3);
        unsigned char sum[32];
        warder__sha256_final(&c, sum);
        char want[7 + 64 + 1] = "sha256:";
        for (int i = 0; i < 32; i++)
                snprintf(want + 7 + 2 * i, 3, "%02x", sum[i]);
        ck_assert_str_eq(warder_ruleset_digest(rs), want);
        warder_ruleset_free(rs);
}
END_TEST

static Suite *suite(void)
{
        Suite *s = suite_create("ruleset");
        TCase *tc = tcase_create("format");
        tcase_add_loop_test(tc, test_load_errors, 0, (int)WARDER__ARRAY_SIZE(bad_cases));
        tcase_add_test(tc, test_pattern_error_points_into_pattern);
        tcase_add_test(tc, test_core_schema);
        tcase_add_test(tc, test_byte_order_mark);
        tcase_add_test(tc, test_limits);
        tcase_add_test(tc, test_compile_budget);
        tcase_add_test(tc, test_mutated_documents);
        suite_add_tcase(s, tc);
        tc = tcase_create("anchoring");
        tcase_add_loop_test(tc, test_anchoring, 0, (int)WARDER__ARRAY_SIZE(anchor_cases));
        tcase_add_test(tc, test_escaped_root);
        tcase_add_test(tc, test_execute_patterns_are_commands);
        suite_add_tcase(s, tc);
        tc = tcase_create("decisions");
        tcase_add_test(tc, test_decision_fields);
        tcase_add_test(tc, test_forms_decided_apart);
        tcase_add_test(tc, test_precedence);
        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_two_forms);
        tcase_add_test(tc, test_misuse);
        tcase_add_test(tc, test_options_version);
        tcase_add_test(tc, test_fold_case);
        tcase_add_test(tc, test_subtree);
        tcase_add_test(tc, test_threads);
        suite_add_tcase(s, tc);
        tc = tcase_create("extends");
        tcase_add_test(tc, test_extends_preset);
        tcase_add_test(tc, test_extends_files);
        tcase_add_test(tc, test_loader_refuses_special_files);
        tcase_add_test(tc, test_errors_quote_little_of_extended_files);
        tcase_add_test(tc, test_unnamed_cwd);
        suite_add_tcase(s, tc);
        tc = tcase_create("tools");
        tcase_add_test(tc, test_explain);
        tcase_add_test(tc, test_lint_accessors);
        tcase_add_test(tc, test_inline_tests);
        tcase_add_test(tc, test_docs_examples);
        tcase_add_test(tc, test_sha256_vectors);
        tcase_add_test(tc, test_digest);
        tcase_add_test(tc, test_digest_fields);
        tcase_add_test(tc, test_digest_stream);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
