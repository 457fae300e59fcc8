/* SPDX-License-Identifier: MIT */
/* Presets (§1.6): the embedded text equals rules/<name>.yaml, every YAML file in rules/ loads and
 * passes its own inline tests, and each preset makes its documented decisions. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset/ruleset-internal.h"
#include "support.h"
#include "warder/ruleset.h"
#include "warder/tooling.h"

static const char *source_root(void)
{
        const char *s = getenv("WARDER_SOURCE_ROOT");
        ck_assert_msg(s != NULL, "WARDER_SOURCE_ROOT is not set");
        return s;
}

START_TEST(test_embedded_equals_shipped)
{
        const char *const *names = warder_preset_names();
        size_t count = 0;
        for (; names[count]; count++) {
                char path[1024];
                snprintf(path, sizeof(path), "%s/rules/%s.yaml", source_root(), names[count]);
                size_t flen, elen = 0;
                char *file = warder_test_slurp(path, &flen);
                ck_assert_msg(file != NULL, "cannot open %s", path);
                const char *emb = warder_preset_source(names[count], &elen);
                ck_assert_ptr_nonnull(emb);
                ck_assert_uint_eq(flen, elen);
                ck_assert_msg(memcmp(file, emb, flen) == 0, "%s differs from the embedded copy",
                              path);
                free(file);
        }
        ck_assert_uint_eq(count, 4);
        ck_assert_ptr_null(warder_preset_source("nosuch", NULL));
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "strcit", NULL, &err), WARDER_ENOENT);
        ck_assert_msg(strstr(err.message, "did you mean 'strict'?"), "%s", err.message);
        ck_assert_ptr_null(rs);
}
END_TEST

struct tally {
        int failed;
        char msg[512];
};

static void on_case(void *ud, const struct warder_test_result *r)
{
        struct tally *t = ud;
        if (r->passed)
                return;
        t->failed++;
        snprintf(t->msg, sizeof(t->msg), "%s:%u: %s %s: expected %s, got %s", r->file, r->line,
                 warder_op_name(r->op), r->target, warder_action_name(r->expect),
                 r->decision ? warder_action_name(r->decision->action) : "error");
}

START_TEST(test_every_rules_file_passes_its_tests)
{
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s/rules", source_root());
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        int files = 0;
        while ((e = readdir(d))) {
                size_t n = strlen(e->d_name);
                if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
                        continue;
                char path[2048];
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                warder_ruleset *rs = NULL;
                struct warder_error err = WARDER_ERROR_INIT;
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = "/";
                ck_assert_msg(warder_ruleset_load_file(&rs, path, &o, &err) == 0, "%s:%u:%u: %s",
                              err.file, err.line, err.column, err.message);
                ck_assert_msg(warder_ruleset_test_count(rs) > 0, "%s has no tests", path);
                struct tally t = {0, ""};
                size_t passed = 0, failed = 0;
                ck_assert_int_eq(warder_ruleset_run_tests(&passed, &failed, rs, on_case, &t, &err),
                                 0);
                ck_assert_msg(failed == 0, "%s", t.msg);
                ck_assert_uint_eq(passed, warder_ruleset_test_count(rs));
                /* every operation states its default explicitly (§1.6) */
                for (int op = 0; op < WARDER_OP_COUNT; op++)
                        ck_assert_msg(warder_ruleset_operation_has_default(rs, (enum warder_op)op),
                                      "%s: '%s' has no explicit default", path,
                                      warder_op_name((enum warder_op)op));
                warder_ruleset_free(rs);
                files++;
        }
        closedir(d);
        ck_assert_int_ge(files, 4);
}
END_TEST

/* Table tests per preset: the decisions §1.6 documents. */
struct expect {
        const char *preset;
        enum warder_op op;
        const char *target;
        enum warder_action action;
        const char *reason; /* NULL: decided by the default */
};

#define S  "Protect sensitive files"
#define SS "Protect sensitive and system files"
#define D  "Block dangerous commands"
#define PM "Protect process memory and environment"

static const struct expect table[] = {
    /* default: global ask; read allow + secrets; write/edit ask + secrets; execute ask +
     * dangerous; glob/grep/ls allow */
    {"default", WARDER_OP_READ, "/p/src/main.c", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_READ, "/p/.env", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/.env.local", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/tls/server.crt", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/credentials.json", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/secrets.yaml", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/my-secret-notes", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/password.txt", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/u/.aws/config", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/u/.ssh", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/u/.gnupg/pubring.kbx", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/p/.hidden.key", WARDER_DENY, S},
    {"default", WARDER_OP_READ, "/etc/hosts", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_WRITE, "/p/a.c", WARDER_ASK, NULL},
    {"default", WARDER_OP_WRITE, "/p/a.pem", WARDER_DENY, S},
    {"default", WARDER_OP_EDIT, "/p/a.c", WARDER_ASK, NULL},
    {"default", WARDER_OP_EDIT, "/p/x/.env", WARDER_DENY, S},
    {"default", WARDER_OP_LS, "/p/.ssh", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_GLOB, "/p", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_GREP, "/p/.env", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_EXECUTE, "ls -la", WARDER_ASK, NULL},
    {"default", WARDER_OP_EXECUTE, "rm -rf /", WARDER_DENY, D},
    {"default", WARDER_OP_EXECUTE, ":(){:|:&};:", WARDER_DENY, D},
    {"default", WARDER_OP_EXECUTE, "> /dev/sda", WARDER_DENY, D},
    {"default", WARDER_OP_EXECUTE, "chmod -R 777 /", WARDER_DENY, D},
    {"default", WARDER_OP_EXECUTE, "dd if=/dev/zero of=/dev/sda", WARDER_DENY, D},
    {"default", WARDER_OP_EXECUTE, "mkfs.ext4 /dev/sda1", WARDER_DENY, D},
    /* permissive: allow; secrets for read; secrets + system for write/edit */
    {"permissive", WARDER_OP_READ, "/etc/shadow", WARDER_ALLOW, NULL},
    {"permissive", WARDER_OP_READ, "/p/.env", WARDER_DENY, S},
    {"permissive", WARDER_OP_WRITE, "/p/a.c", WARDER_ALLOW, NULL},
    {"permissive", WARDER_OP_WRITE, "/etc/passwd", WARDER_DENY, SS},
    {"permissive", WARDER_OP_WRITE, "/var/log/x", WARDER_DENY, SS},
    {"permissive", WARDER_OP_WRITE, "/usr", WARDER_DENY, SS},
    {"permissive", WARDER_OP_EDIT, "/boot/grub/grub.cfg", WARDER_DENY, SS},
    {"permissive", WARDER_OP_EDIT, "/proc/sys/kernel/x", WARDER_DENY, SS},
    {"permissive", WARDER_OP_EDIT, "/p/id.key", WARDER_DENY, SS},
    {"permissive", WARDER_OP_EDIT, "/p/etc/x", WARDER_ALLOW, NULL},
    {"permissive", WARDER_OP_EXECUTE, "make", WARDER_ALLOW, NULL},
    {"permissive", WARDER_OP_EXECUTE, "rm -rf /", WARDER_DENY, D},
    {"permissive", WARDER_OP_LS, "/etc", WARDER_ALLOW, NULL},
    /* readonly: deny; read allow + secrets; write/edit/execute deny; glob/grep/ls allow */
    {"readonly", WARDER_OP_READ, "/p/a.c", WARDER_ALLOW, NULL},
    {"readonly", WARDER_OP_READ, "/p/.env", WARDER_DENY, S},
    {"readonly", WARDER_OP_WRITE, "/p/a.c", WARDER_DENY, NULL},
    {"readonly", WARDER_OP_EDIT, "/p/a.c", WARDER_DENY, NULL},
    {"readonly", WARDER_OP_EXECUTE, "ls", WARDER_DENY, NULL},
    {"readonly", WARDER_OP_LS, "/p", WARDER_ALLOW, NULL},
    {"readonly", WARDER_OP_GLOB, "/p", WARDER_ALLOW, NULL},
    {"readonly", WARDER_OP_GREP, "/p", WARDER_ALLOW, NULL},
    /* strict: ask; read/write/edit ask + secrets; execute ask + dangerous; ls/glob/grep ask */
    {"strict", WARDER_OP_READ, "/p/a.c", WARDER_ASK, NULL},
    {"strict", WARDER_OP_READ, "/p/.env", WARDER_DENY, S},
    {"strict", WARDER_OP_WRITE, "/p/a.c", WARDER_ASK, NULL},
    {"strict", WARDER_OP_WRITE, "/p/b.key", WARDER_DENY, S},
    {"strict", WARDER_OP_EDIT, "/p/.aws/credentials", WARDER_DENY, S},
    {"strict", WARDER_OP_LS, "/p", WARDER_ASK, NULL},
    {"strict", WARDER_OP_GLOB, "/p", WARDER_ASK, NULL},
    {"strict", WARDER_OP_GREP, "/p", WARDER_ASK, NULL},
    {"strict", WARDER_OP_EXECUTE, "git status", WARDER_ASK, NULL},
    {"strict", WARDER_OP_EXECUTE, "rm -rf /", WARDER_DENY, D},
    /* Beyond the original lists: every preset denies reading another process's environment,
     * memory and the files it holds open (--root / would otherwise reach the host's tokens). */
    {"default", WARDER_OP_READ, "/proc/self/environ", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/1/environ", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/1/task/1/environ", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/thread-self/mem", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/42/root", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/self/root/etc/shadow", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/42/cwd/.bash_history", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/self/fd/3", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/self/map_files/400000-401000", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/kcore", WARDER_DENY, PM},
    {"default", WARDER_OP_READ, "/proc/cpuinfo", WARDER_ALLOW, NULL},
    {"default", WARDER_OP_READ, "/proc/self/status", WARDER_ALLOW, NULL},
    {"permissive", WARDER_OP_READ, "/proc/self/environ", WARDER_DENY, PM},
    {"permissive", WARDER_OP_READ, "/proc/1/mem", WARDER_DENY, PM},
    {"readonly", WARDER_OP_READ, "/proc/self/environ", WARDER_DENY, PM},
    {"readonly", WARDER_OP_READ, "/proc/1/root/home", WARDER_DENY, PM},
    {"strict", WARDER_OP_READ, "/proc/self/environ", WARDER_DENY, PM},
    {"strict", WARDER_OP_READ, "/proc/1/fd/0", WARDER_DENY, PM},
};

START_TEST(test_preset_table)
{
        const struct expect *x = &table[_i];
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/p";
        o.home = "/u";
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, x->preset, &o, &err), 0);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, x->op, x->target, strlen(x->target), NULL, 0, &err), 0);
        ck_assert_msg(d.action == x->action, "%s %s %s: got %s", x->preset, warder_op_name(x->op),
                      x->target, warder_action_name(d.action));
        if (x->reason) {
                ck_assert_ptr_nonnull(d.reason);
                ck_assert_str_eq(d.reason, x->reason);
                ck_assert(!d.by_default);
                char file[64];
                snprintf(file, sizeof(file), "preset:%s", x->preset);
                ck_assert_str_eq(d.file, file);
        } else {
                ck_assert_msg(d.by_default, "%s %s: decided by %s", x->preset, x->target,
                              d.rule_id);
        }
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_preset_lists)
{
        /* the exact pattern lists of §1.6 */
        static const char *const secrets[] = {"**/.env",     "**/.env.*",   "**/*.pem",
                                              "**/*.key",    "**/*.crt",    "**/credentials*",
                                              "**/secrets*", "**/*secret*", "**/*password*",
                                              "**/.aws/**",  "**/.ssh/**",  "**/.gnupg/**"};
        static const char *const dangerous[] = {
            "rm -rf /*", "rm -rf /",   ":(){:|:&};:",   "dd if=*of=/dev/*",
            "mkfs*",     "> /dev/sda", "chmod -R 777 /"};
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "default", NULL, NULL), 0);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 12 + 7);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_EXECUTE), 7);
        /* read: the secrets list, then the process list (beyond the original lists) */
        static const char *const procs[] = {
            "/proc/**/environ", "/proc/**/mem",          "/proc/**/root/**", "/proc/**/cwd/**",
            "/proc/**/fd/**",   "/proc/**/map_files/**", "/proc/kcore"};
        for (size_t i = 0; i < 19; i++) {
                struct warder_rule_info r = WARDER_RULE_INFO_INIT;
                ck_assert_int_eq(warder_ruleset_rule(&r, rs, WARDER_OP_READ, i), 0);
                ck_assert_str_eq(r.pattern, i < 12 ? secrets[i] : procs[i - 12]);
                ck_assert_int_eq(r.action, WARDER_DENY);
        }
        for (size_t i = 0; i < 12; i++) {
                struct warder_rule_info r = WARDER_RULE_INFO_INIT;
                ck_assert_int_eq(warder_ruleset_rule(&r, rs, WARDER_OP_WRITE, i), 0);
                ck_assert_str_eq(r.pattern, secrets[i]);
                ck_assert_int_eq(r.action, WARDER_DENY);
        }
        for (size_t i = 0; i < 7; i++) {
                struct warder_rule_info r = WARDER_RULE_INFO_INIT;
                ck_assert_int_eq(warder_ruleset_rule(&r, rs, WARDER_OP_EXECUTE, i), 0);
                ck_assert_str_eq(r.pattern, dangerous[i]);
        }
        warder_ruleset_free(rs);
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "permissive", NULL, NULL), 0);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_WRITE), 20);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_READ), 12 + 7);
        warder_ruleset_free(rs);
        ck_assert_int_eq(warder_ruleset_load_preset(&rs, "readonly", NULL, NULL), 0);
        ck_assert_uint_eq(warder_ruleset_rule_count(rs, WARDER_OP_WRITE), 0);
        ck_assert_int_eq(warder_ruleset_default(rs, WARDER_OP_WRITE), WARDER_DENY);
        warder_ruleset_free(rs);
}
END_TEST

/* Records every inline test result, for comparing two loads. */
struct results {
        struct warder__buf b;
};

static void record(void *ud, const struct warder_test_result *r)
{
        struct results *res = ud;
        warder__buf_printf(&res->b, "%zu %d %s %s %d %d %u:%u|", r->index, (int)r->op, r->target,
                           r->real ? r->real : "-", (int)r->expect, r->passed, r->line, r->column);
}

/* An embedded preset loads from its generated table (no YAML parser) exactly as its text
 * loads through the parser: the same rules, ids, reasons, sources, defaults and inline tests. */
START_TEST(test_table_equals_text)
{
        const char *const *names = warder_preset_names();
        size_t n = 0;
        for (; names[n]; n++) {
                bool tabulated = false;
                for (size_t i = 0; warder__preset_tables[i]; i++)
                        tabulated |= strcmp(warder__preset_tables[i]->name, names[n]) == 0;
                ck_assert_msg(tabulated, "preset '%s' has no table", names[n]);
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = "/work/project";
                o.home = "/home/user";
                warder_ruleset *a = NULL, *b = NULL;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, NULL), 0);
                size_t len = 0;
                const char *text = warder_preset_source(names[n], &len);
                char display[64];
                snprintf(display, sizeof(display), "preset:%s", names[n]);
                ck_assert_int_eq(warder_ruleset_load_string(&b, text, len, display, &o, NULL), 0);
                ck_assert_int_eq(warder_ruleset_precedence(a), warder_ruleset_precedence(b));
                ck_assert_int_eq(warder_ruleset_fold_case(a), warder_ruleset_fold_case(b));
                size_t rules = 0;
                for (int op = 0; op < WARDER_OP_COUNT; op++) {
                        ck_assert_int_eq(warder_ruleset_default(a, op),
                                         warder_ruleset_default(b, op));
                        ck_assert_int_eq(warder_ruleset_operation_has_default(a, op),
                                         warder_ruleset_operation_has_default(b, op));
                        size_t count = warder_ruleset_rule_count(a, op);
                        ck_assert_uint_eq(count, warder_ruleset_rule_count(b, op));
                        for (size_t i = 0; i < count; i++, rules++) {
                                struct warder_rule_info x = WARDER_RULE_INFO_INIT;
                                struct warder_rule_info y = WARDER_RULE_INFO_INIT;
                                ck_assert_int_eq(warder_ruleset_rule(&x, a, op, i), 0);
                                ck_assert_int_eq(warder_ruleset_rule(&y, b, op, i), 0);
                                ck_assert_int_eq(x.action, y.action);
                                ck_assert_str_eq(x.id, y.id);
                                ck_assert_str_eq(x.pattern, y.pattern);
                                ck_assert_str_eq(x.reason ? x.reason : "-",
                                                 y.reason ? y.reason : "-");
                                ck_assert_str_eq(x.file, y.file);
                                ck_assert_uint_eq(x.line, y.line);
                                ck_assert_uint_eq(x.column, y.column);
                        }
                }
                ck_assert_uint_gt(rules, 10);
                ck_assert_uint_eq(warder_ruleset_test_count(a), warder_ruleset_test_count(b));
                struct results ra = {WARDER__BUF_INIT}, rb = {WARDER__BUF_INIT};
                size_t pa = 0, fa = 0, pb = 0, fb = 0;
                ck_assert_int_eq(warder_ruleset_run_tests(&pa, &fa, a, record, &ra, NULL), 0);
                ck_assert_int_eq(warder_ruleset_run_tests(&pb, &fb, b, record, &rb, NULL), 0);
                ck_assert_uint_gt(pa, 5);
                ck_assert_uint_eq(fa, 0);
                ck_assert_str_eq(ra.b.data, rb.b.data);
                warder__buf_free(&ra.b);
                warder__buf_free(&rb.b);
                warder_ruleset_free(a);
                warder_ruleset_free(b);
                /* limits below what the preset needs refuse it as they refuse its text */
                o.max_rules = 3;
                struct warder_error e = WARDER_ERROR_INIT;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, &e), WARDER_ETOOBIG);
                warder_error_clear(&e);
                o.max_rules = 0;
                o.max_file_size = 100;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, NULL),
                                 WARDER_ETOOBIG);
        }
        ck_assert_uint_ge(n, 4);
}
END_TEST

/* The limits as the table applies them: a preset loads under limits set exactly to what it
 * needs (its size, its rule count, its patterns' bytes), by table as by text, and one pattern
 * byte less refuses it with ETOOBIG at a rule of the preset, as its text is refused. */
START_TEST(test_table_limits)
{
        const char *const *names = warder_preset_names();
        for (size_t n = 0; names[n]; n++) {
                size_t len = 0;
                const char *text = warder_preset_source(names[n], &len);
                char display[64];
                snprintf(display, sizeof(display), "preset:%s", names[n]);
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = "/work/project";
                o.home = "/home/user";
                warder_ruleset *a = NULL, *b = NULL;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, NULL), 0);
                size_t rules = 0, bytes = 0;
                for (int op = 0; op < WARDER_OP_COUNT; op++)
                        for (size_t i = 0; i < warder_ruleset_rule_count(a, op); i++, rules++) {
                                struct warder_rule_info x = WARDER_RULE_INFO_INIT;
                                ck_assert_int_eq(warder_ruleset_rule(&x, a, op, i), 0);
                                bytes += strlen(x.pattern);
                        }
                warder_ruleset_free(a);
                o.max_file_size = len;
                o.max_rules = rules;
                o.max_pattern_bytes = bytes;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, NULL), 0);
                ck_assert_int_eq(warder_ruleset_load_string(&b, text, len, display, &o, NULL), 0);
                ck_assert_uint_eq(warder_ruleset_rule_count(a, WARDER_OP_READ),
                                  warder_ruleset_rule_count(b, WARDER_OP_READ));
                warder_ruleset_free(a);
                warder_ruleset_free(b);
                o.max_pattern_bytes = bytes - 1;
                struct warder_error ea = WARDER_ERROR_INIT, eb = WARDER_ERROR_INIT;
                a = b = NULL;
                ck_assert_int_eq(warder_ruleset_load_preset(&a, names[n], &o, &ea), WARDER_ETOOBIG);
                ck_assert_int_eq(warder_ruleset_load_string(&b, text, len, display, &o, &eb),
                                 WARDER_ETOOBIG);
                ck_assert_ptr_null(a);
                ck_assert_ptr_null(b);
                ck_assert_int_eq(ea.code, WARDER_ETOOBIG);
                ck_assert_str_eq(ea.message, eb.message);
                ck_assert_str_eq(ea.file, display);
                ck_assert_uint_gt(ea.line, 1);
                warder_error_clear(&ea);
                warder_error_clear(&eb);
        }
}
END_TEST

static Suite *suite(void)
{
        Suite *s = suite_create("presets");
        TCase *tc = tcase_create("presets");
        tcase_add_test(tc, test_embedded_equals_shipped);
        tcase_add_test(tc, test_every_rules_file_passes_its_tests);
        tcase_add_test(tc, test_preset_lists);
        tcase_add_test(tc, test_table_equals_text);
        tcase_add_test(tc, test_table_limits);
        tcase_add_loop_test(tc, test_preset_table, 0, (int)WARDER__ARRAY_SIZE(table));
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(suite());
}
