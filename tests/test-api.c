/* SPDX-License-Identifier: MIT */
/*
 * The C API as a binding sees it: every string that is decided or matched is length-delimited
 * (an embedded NUL is WARDER_EINVAL, never a decision on a shorter string), every struct has
 * an initialiser function, backends can set an error without a variadic call, the allocator
 * pair is exported, and the dispatcher reads an ops-table slot only from a table of the
 * version that introduced it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "support.h"
#include "warder/sys/backend.h"
#include "warder/tooling.h"
#include "warder/warder.h"

static const char RULES[] = "warder: 1\n"
                            "default: allow\n"
                            "read:\n"
                            "  rules:\n"
                            "    - deny: \"**/.env\"\n"
                            "grep:\n"
                            "  rules:\n"
                            "    - deny: \"**/.env\"\n"
                            "glob:\n"
                            "  rules:\n"
                            "    - deny: \"**/.env\"\n"
                            "execute:\n"
                            "  rules:\n"
                            "    - deny: \"cat *\"\n";

static warder_ruleset *rules(void)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/w";
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_load_string(&rs, RULES, strlen(RULES), "api.yaml", &o, &err);
        ck_assert_msg(rc == 0, "%s", err.message);
        return rs;
}

/* A memory backend holding /w/notes.txt ("hello\nNOPE\n") and /w/.env. */
static warder_backend *memory(void)
{
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_memory_new(&b, NULL), 0);
        ck_assert_int_eq(warder_backend_write(b, "/w/notes.txt", 12, "hello\nNOPE\n", 11, 0, NULL),
                         0);
        ck_assert_int_eq(warder_backend_write(b, "/w/.env", 7, "KEY=1\n", 6, 0, NULL), 0);
        return b;
}

/* A literal with a NUL: the NUL-terminated form decides the prefix (the truncation the
 * length-delimited form exists for); the length-delimited form refuses it. */
START_TEST(check_refuses_an_embedded_nul)
{
        warder_ruleset *rs = rules();
        static const char target[] = "notes\0/../.env";
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;

        /* control arm: the C string ends at the NUL and "notes" is allowed */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, target, strlen(target), NULL, 0, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        warder_decision_clear(&d);

        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, target, sizeof(target) - 1, NULL, 0, &err),
            WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
        warder_error_clear(&err);
        /* in the real form too */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "notes", 5, target,
                                              sizeof(target) - 1, NULL),
                         WARDER_EINVAL);
        /* an empty target */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "x", 0, NULL, 0, NULL),
                         WARDER_EINVAL);
        /* execute: "cat .env\0" ... */
        static const char cmd[] = "echo hi\0; cat .env";
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_EXECUTE, cmd, sizeof(cmd) - 1, NULL, 0, NULL),
            WARDER_EINVAL);

        /* Without a NUL the two forms agree, and the length bounds the target. */
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "a/.env-and-more", 6, NULL, 0, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_READ, "notes", 5, "/w/.env", 7, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        ck_assert_int_eq(
            warder_ruleset_check(&d, rs, WARDER_OP_EXECUTE, "cat .env; ls", 8, NULL, 0, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(explain_and_rule_match_refuse_an_embedded_nul)
{
        warder_ruleset *rs = rules();
        static const char target[] = "x\0.env";
        struct warder_explanation *ex = NULL;
        ck_assert_int_eq(warder_ruleset_explain(&ex, rs, WARDER_OP_READ, target, sizeof(target) - 1,
                                                NULL, 0, NULL),
                         WARDER_EINVAL);
        ck_assert_ptr_null(ex);
        ck_assert_int_eq(warder_ruleset_explain(&ex, rs, WARDER_OP_READ, "x", 1, target,
                                                sizeof(target) - 1, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(
            warder_ruleset_explain(&ex, rs, WARDER_OP_READ, "a/.envelope", 6, NULL, 0, NULL), 0);
        ck_assert_str_eq(ex->literal, "/w/a/.env");
        ck_assert_int_eq(ex->decision.action, WARDER_DENY);
        ck_assert_uint_eq(ex->count, 1);
        warder_explanation_free(ex);
        ck_assert_int_eq(
            warder_ruleset_explain(&ex, rs, WARDER_OP_EXECUTE, "cat a\0b", 7, NULL, 0, NULL),
            WARDER_EINVAL);
        ck_assert_int_eq(
            warder_ruleset_explain(&ex, rs, WARDER_OP_EXECUTE, "cat a; b", 5, NULL, 0, NULL), 0);
        ck_assert_str_eq(ex->literal, "cat a");
        warder_explanation_free(ex);

        bool m = false;
        ck_assert_int_eq(
            warder_ruleset_rule_match(&m, rs, WARDER_OP_READ, 0, target, sizeof(target) - 1, NULL),
            WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_READ, 0, "/w/.env", 7, NULL),
                         0);
        ck_assert(m);
        ck_assert_int_eq(warder_ruleset_rule_match(&m, rs, WARDER_OP_READ, 0, "/w/.envy", 8, NULL),
                         0);
        ck_assert(!m);
        ck_assert_int_eq(
            warder_ruleset_rule_match(&m, rs, WARDER_OP_EXECUTE, 0, "cat x\0y", 7, NULL),
            WARDER_EINVAL);
        ck_assert_int_eq(
            warder_ruleset_rule_match(&m, rs, WARDER_OP_EXECUTE, 0, "cat x; y", 5, NULL), 0);
        ck_assert(m);
        warder_ruleset_free(rs);
}
END_TEST

/* The guard's own check, the command decision and path normalisation were length-delimited
 * before: the same property, held here next to the others. */
START_TEST(older_length_delimited_entry_points)
{
        warder_ruleset *rs = rules();
        warder_backend *g = NULL;
        ck_assert_int_eq(warder_guard_new(&g, memory(), rs, NULL, NULL), 0);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_READ, "x\0.env", 6, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_guard_check(&d, g, WARDER_OP_EXECUTE, "ls\0cat .env", 11, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "ls\0cat .env", 11, NULL, NULL),
                         WARDER_EINVAL);
        char *out = NULL;
        ck_assert_int_eq(warder_path_normalize(&out, NULL, "/w", NULL, NULL, "a\0b", 3, NULL),
                         WARDER_EINVAL);
        ck_assert_ptr_null(out);
        warder_glob *glob = NULL;
        ck_assert_int_eq(warder_glob_compile(&glob, "a\0b", 3, 0, NULL), WARDER_EPARSE);
        ck_assert_ptr_null(glob);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(backend_paths_refuse_an_embedded_nul)
{
        warder_backend *b = memory();
        static const char path[] = "/w/notes.txt\0x";
        const size_t n = sizeof(path) - 1;
        struct warder_bytes bytes = WARDER_BYTES_INIT;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        char *real = NULL;
        ck_assert_int_eq(warder_backend_read(&bytes, b, path, n, 0, 0, 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_write(b, path, n, "x", 1, 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_edit(NULL, b, path, n, "hello", 5, "bye", 3, 0, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_ls(&e, b, "/w\0x", 4, 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_realpath(&real, b, path, n, NULL), WARDER_ENOTSUP);
        ck_assert_int_eq(warder_memory_mkdir(b, "/w/d\0e", 6, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_memory_mkdir(b, "/w/d", 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_memory_mkdir(b, "/w/dir-and-more", 6, NULL), 0);
        ck_assert_int_eq(warder_backend_ls(&e, b, "/w/dir", 6, 0, NULL), 0);
        warder_entries_free(&e);
        /* the control arm: the same path without the tail is there */
        ck_assert_int_eq(warder_backend_read(&bytes, b, path, n - 2, 0, 0, 0, NULL), 0);
        ck_assert_str_eq(bytes.data, "hello\nNOPE\n");
        warder_bytes_free(&bytes);
        warder_backend_free(b);
}
END_TEST

START_TEST(glob_pattern_is_length_delimited)
{
        warder_ruleset *rs = rules();
        warder_backend *g = NULL;
        ck_assert_int_eq(warder_guard_new(&g, memory(), rs, NULL, NULL), 0);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        warder_backend *targets[] = {g, NULL};
        ck_assert_int_eq(warder_memory_new(&targets[1], NULL), 0);
        ck_assert_int_eq(warder_backend_write(targets[1], "/w/notes.txt", 12, "x", 1, 0, NULL), 0);
        for (size_t i = 0; i < 2; i++) {
                warder_backend *b = targets[i];
                ck_assert_int_eq(warder_backend_glob(&e, b, "*.txt\0/../**", 12, "/w", 2, 0, &err),
                                 WARDER_EINVAL);
                ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
                warder_error_clear(&err);
                ck_assert_int_eq(warder_backend_glob(&e, b, "*.txt", 0, "/w", 2, 0, NULL),
                                 WARDER_EINVAL);
                ck_assert_int_eq(warder_backend_glob(&e, b, "*.txt-more", 5, "/w", 2, 0, NULL), 0);
                ck_assert_uint_eq(e.count, 1);
                ck_assert_str_eq(e.items[0].path, "/w/notes.txt");
                warder_entries_free(&e);
        }
        warder_backend_free(targets[1]);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(grep_pattern_and_glob_are_length_delimited)
{
        warder_ruleset *rs = rules();
        warder_backend *g = NULL;
        ck_assert_int_eq(warder_guard_new(&g, memory(), rs, NULL, NULL), 0);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_error err = WARDER_ERROR_INIT;

        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.path = "/w";
        req.path_len = 2;
        req.pattern = "hello\0NOPE";
        /* control arm: measured as a C string would be, the pattern is "hello" (line 1) */
        req.pattern_len = strlen(req.pattern);
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].text, "hello");
        warder_grep_result_free(&r);
        /* with its length, the NUL is refused */
        req.pattern_len = 10;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
        warder_error_clear(&err);
        /* a length shorter than the string bounds it */
        req.pattern = "NOPE-and-more";
        req.pattern_len = 4;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].text, "NOPE");
        warder_grep_result_free(&r);
        /* an empty pattern is a pattern (it matches every line of every allowed file) */
        req.pattern = "";
        req.pattern_len = 0;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 2);
        warder_grep_result_free(&r);
        /* but a length left at 0 for a pattern that is not empty is refused, never taken for
         * the empty pattern */
        req.pattern = "NOPE";
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, &err), WARDER_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, "pattern_len"));
        warder_error_clear(&err);
        /* the glob filter */
        req.pattern_len = 4;
        req.glob = "*.txt\0*";
        req.glob_len = 7;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), WARDER_EINVAL);
        req.glob_len = 0;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), WARDER_EINVAL);
        req.glob_len = 5;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        warder_grep_result_free(&r);
        req.glob = "*.md-and-more";
        req.glob_len = 4;
        ck_assert_int_eq(warder_backend_grep(&r, g, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 0);
        warder_grep_result_free(&r);

        /* a version 1 request had no lengths: it is refused, and nothing past it is read */
        struct v1 {
                unsigned version;
                const char *pattern, *path;
                size_t path_len;
                const char *glob;
                unsigned flags;
                size_t max_matches;
        };
        ck_assert_uint_eq(sizeof(struct v1), offsetof(struct warder_grep_request, may_search));
        struct v1 *old = malloc(sizeof(*old)); /* ASan catches a read past its end */
        ck_assert_ptr_nonnull(old);
        *old = (struct v1){1, "NOPE", "/w", 2, NULL, 0, 0};
        ck_assert_int_eq(
            warder_backend_grep(&r, g, (const struct warder_grep_request *)(void *)old, NULL),
            WARDER_EINVAL);
        ck_assert_uint_eq(r.count, 0);
        free(old);
        warder_backend_free(g);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(execute_command_is_length_delimited)
{
        /* A backend that can execute: the dispatcher refuses the NUL before calling it. */
        warder_backend *l = NULL;
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.exec = true;
        ck_assert_int_eq(warder_local_new(&l, "/tmp", &o, NULL), 0);
        struct warder_exec_request req = WARDER_EXEC_REQUEST_INIT;
        struct warder_exec_result res = WARDER_EXEC_RESULT_INIT;
        warder_exec_result_init(&res);
        req.command = "echo one\0; echo two";
        req.command_len = 19;
        ck_assert_int_eq(warder_backend_execute(&res, l, &req, NULL), WARDER_EINVAL);
        req.command_len = 8;
        ck_assert_int_eq(warder_backend_execute(&res, l, &req, NULL), 0);
        ck_assert_str_eq(res.out.data, "one\n");
        warder_exec_result_free(&res);
        warder_backend_free(l);
}
END_TEST

START_TEST(result_helpers_refuse_an_embedded_nul)
{
        struct warder_entries e = WARDER_ENTRIES_INIT;
        warder_entries_init(&e);
        ck_assert_int_eq(warder_entries_add(&e, "a\0b", 3, "/a", 2, WARDER_ENTRY_FILE, 0, 0),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_entries_add(&e, "a", 1, "/a\0/b", 5, WARDER_ENTRY_FILE, 0, 0),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_entries_add(&e, "a", 0, "/a", 2, WARDER_ENTRY_FILE, 0, 0),
                         WARDER_EINVAL);
        ck_assert_uint_eq(e.count, 0);
        ck_assert_int_eq(warder_entries_add(&e, "ab", 1, "/ab", 2, WARDER_ENTRY_DIR, 3, 4), 0);
        ck_assert_uint_eq(e.count, 1);
        ck_assert_str_eq(e.items[0].name, "a");
        ck_assert_str_eq(e.items[0].path, "/a");
        warder_entries_free(&e);

        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        warder_grep_result_init(&g);
        ck_assert_int_eq(warder_grep_add(&g, "/a\0b", 4, 1, "x", 1), WARDER_EINVAL);
        ck_assert_int_eq(warder_grep_add(&g, "/a", 0, 1, "x", 1), WARDER_EINVAL);
        ck_assert_uint_eq(g.count, 0);
        /* the text is bytes: a NUL in a matched line is kept */
        ck_assert_int_eq(warder_grep_add(&g, "/ab", 2, 1, "x\0y", 3), 0);
        ck_assert_str_eq(g.items[0].path, "/a");
        ck_assert_uint_eq(g.items[0].text_len, 3);
        ck_assert_int_eq(memcmp(g.items[0].text, "x\0y", 3), 0);
        warder_grep_result_free(&g);
}
END_TEST

/* Every initialiser gives what its macro gives, for the current version. */
START_TEST(initialisers_match_their_macros)
{
        struct warder_ruleset_options ro;
        ck_assert_int_eq(warder_ruleset_options_init(&ro, WARDER_RULESET_OPTIONS_VERSION), 0);
        ck_assert_uint_eq(ro.version, WARDER_RULESET_OPTIONS_VERSION);
        ck_assert_ptr_null(ro.root);
        ck_assert_uint_eq(ro.max_rules, 0);

        struct warder_guard_options go;
        ck_assert_int_eq(warder_guard_options_init(&go, WARDER_GUARD_OPTIONS_VERSION), 0);
        ck_assert_uint_eq(go.version, WARDER_GUARD_OPTIONS_VERSION);
        ck_assert_ptr_null(go.approve);
        ck_assert_ptr_null(go.approve_ex);

        struct warder_local_options lo;
        ck_assert_int_eq(warder_local_options_init(&lo, WARDER_LOCAL_OPTIONS_VERSION), 0);
        struct warder_local_options lw = WARDER_LOCAL_OPTIONS_INIT;
        ck_assert_uint_eq(lo.version, lw.version);
        ck_assert(lo.follow_symlinks && lw.follow_symlinks);
        ck_assert(lo.grep_skip_binary && lw.grep_skip_binary);
        ck_assert(!lo.exec);
        ck_assert_int_eq(lo.landlock, WARDER_LANDLOCK_OFF);
        ck_assert(!lo.mask_denied);

        struct warder_grep_request gr;
        ck_assert_int_eq(warder_grep_request_init(&gr, WARDER_GREP_REQUEST_VERSION), 0);
        ck_assert_uint_eq(gr.version, WARDER_GREP_REQUEST_VERSION);
        ck_assert_uint_eq(gr.pattern_len, 0);
        ck_assert_uint_eq(gr.glob_len, 0);

        struct warder_exec_request er;
        ck_assert_int_eq(warder_exec_request_init(&er, WARDER_EXEC_REQUEST_VERSION), 0);
        ck_assert_uint_eq(er.version, WARDER_EXEC_REQUEST_VERSION);
        ck_assert_ptr_null(er.cancel);
        ck_assert_ptr_null(er.env);

        struct warder_command_context cc;
        ck_assert_int_eq(warder_command_context_init(&cc, WARDER_COMMAND_CONTEXT_VERSION), 0);
        ck_assert_uint_eq(cc.version, WARDER_COMMAND_CONTEXT_VERSION);
        ck_assert_ptr_null(cc.realpath);

        struct warder_error e;
        memset(&e, 0x5a, sizeof(e));
        warder_error_init(&e);
        ck_assert_int_eq(e.code, 0);
        ck_assert_int_eq(e.offset, -1);
        ck_assert_str_eq(e.message, "");
        ck_assert_ptr_null(e.decision);

        struct warder_decision d = WARDER_DECISION_INIT;
        memset(&d, 0x5a, sizeof(d));
        warder_decision_init(&d);
        struct warder_decision dw = WARDER_DECISION_INIT;
        ck_assert_int_eq(d.action, dw.action);
        ck_assert_ptr_null(d.rule_id);
        ck_assert_ptr_null(d.owned_);

        struct warder_bytes by = WARDER_BYTES_INIT;
        memset(&by, 0x5a, sizeof(by));
        warder_bytes_init(&by);
        ck_assert(!by.data && !by.len && !by.truncated);
        struct warder_entries en = WARDER_ENTRIES_INIT;
        memset(&en, 0x5a, sizeof(en));
        warder_entries_init(&en);
        ck_assert(!en.items && !en.count && !en.hidden);
        struct warder_grep_result gres = WARDER_GREP_RESULT_INIT;
        memset(&gres, 0x5a, sizeof(gres));
        warder_grep_result_init(&gres);
        ck_assert(!gres.items && !gres.count && !gres.hidden_files && !gres.truncated);
        struct warder_exec_result xr = WARDER_EXEC_RESULT_INIT;
        memset(&xr, 0x5a, sizeof(xr));
        warder_exec_result_init(&xr);
        ck_assert_int_eq(xr.exit_status, 0);
        ck_assert_ptr_null(xr.out.data);
        ck_assert(!xr.cancelled);
        /* NULL is accepted by the unversioned ones, refused by the versioned ones */
        warder_error_init(NULL);
        warder_bytes_init(NULL);
        ck_assert_int_eq(warder_exec_request_init(NULL, 1), WARDER_EINVAL);
}
END_TEST

/* An older caller's struct is shorter: only its own members are written. */
START_TEST(initialisers_write_only_the_callers_version)
{
        unsigned char buf[sizeof(struct warder_exec_request) + 16];
        memset(buf, 0xee, sizeof(buf));
        ck_assert_int_eq(warder_exec_request_init((struct warder_exec_request *)(void *)buf, 1), 0);
        const size_t v1 = offsetof(struct warder_exec_request, cancel);
        for (size_t i = v1; i < sizeof(buf); i++)
                ck_assert_msg(buf[i] == 0xee, "byte %zu past a version-1 request was written", i);
        ck_assert_uint_eq(((struct warder_exec_request *)(void *)buf)->version, 1);

        memset(buf, 0xee, sizeof(buf));
        ck_assert_int_eq(warder_grep_request_init((struct warder_grep_request *)(void *)buf, 1), 0);
        for (size_t i = offsetof(struct warder_grep_request, pattern_len); i < sizeof(buf); i++)
                ck_assert_msg(buf[i] == 0xee, "byte %zu past a version-1 request was written", i);

        struct warder_guard_options go;
        memset(&go, 0xee, sizeof(go));
        ck_assert_int_eq(warder_guard_options_init(&go, 1), 0);
        ck_assert_uint_eq(go.version, 1);
        ck_assert_ptr_null(go.env);
        const unsigned char *gb = (const unsigned char *)&go;
        for (size_t i = offsetof(struct warder_guard_options, approve_ex); i < sizeof(go); i++)
                ck_assert_uint_eq(gb[i], 0xee);

        /* unknown versions: 0 and one past the current */
        struct warder_local_options lo;
        ck_assert_int_eq(warder_local_options_init(&lo, 0), WARDER_EINVAL);
        ck_assert_int_eq(warder_local_options_init(&lo, WARDER_LOCAL_OPTIONS_VERSION + 1),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_options_init(NULL, 1), WARDER_EINVAL);
        struct warder_command_context cc;
        ck_assert_int_eq(warder_command_context_init(&cc, WARDER_COMMAND_CONTEXT_VERSION + 1),
                         WARDER_EINVAL);
}
END_TEST

START_TEST(error_set_message_and_allocator)
{
        struct warder_error err = WARDER_ERROR_INIT;
        /* a message with printf syntax is taken as it is */
        ck_assert_int_eq(warder_error_set_message(&err, WARDER_EIO, "disk %s 100%"), WARDER_EIO);
        ck_assert_int_eq(err.code, WARDER_EIO);
        ck_assert_str_eq(err.message, "disk %s 100%");
        ck_assert_int_eq(warder_error_set_message(&err, WARDER_ENOENT, NULL), WARDER_ENOENT);
        ck_assert_str_eq(err.message, warder_strerror(WARDER_ENOENT));
        char big[2000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        ck_assert_int_eq(warder_error_set_message(&err, WARDER_EIO, big), WARDER_EIO);
        ck_assert_uint_eq(strlen(err.message), sizeof(err.message) - 1);
        ck_assert_int_eq(warder_error_set_message(NULL, WARDER_EIO, "x"), WARDER_EIO);
        warder_error_clear(&err);

        /* memory from warder_malloc is the library's to free */
        char *p = warder_malloc(6);
        ck_assert_ptr_nonnull(p);
        memcpy(p, "/tmp/", 6);
        warder_free(p);
        void *z = warder_malloc(0);
        ck_assert_ptr_nonnull(z);
        warder_free(z);
        warder_free(NULL);
}
END_TEST

/* Every struct the library is handed carries a version, checked on entry: an output of
 * another version is refused and left untouched, an error of another version never written. */
START_TEST(versions_are_checked_on_entry)
{
        warder_ruleset *rs = rules();
        warder_backend *b = memory();
        struct warder_error err = WARDER_ERROR_INIT;

        struct warder_decision d = WARDER_DECISION_INIT;
        d.version = 0; /* as `struct warder_decision d = WARDER_DECISION_INIT` would be */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, ".env", 4, NULL, 0, &err),
                         WARDER_EINVAL);
        ck_assert_ptr_null(d.rule_id);
        warder_error_clear(&err);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "ls", 2, NULL, NULL), WARDER_EINVAL);
        d.version = WARDER_DECISION_VERSION; /* control arm */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, ".env", 4, NULL, 0, &err), 0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);

        struct warder_bytes bytes = WARDER_BYTES_INIT;
        bytes.version = 2;
        ck_assert_int_eq(warder_backend_read(&bytes, b, "/w/notes.txt", 12, 0, 0, 0, &err),
                         WARDER_EINVAL);
        ck_assert_ptr_null(bytes.data);
        ck_assert_ptr_nonnull(strstr(err.message, "version"));
        warder_error_clear(&err);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        e.version = 0;
        ck_assert_int_eq(warder_backend_ls(&e, b, "/w", 2, 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_backend_glob(&e, b, "*", 1, "/w", 2, 0, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_entries_add(&e, "a", 1, "/a", 2, WARDER_ENTRY_FILE, 0, 0),
                         WARDER_EINVAL);
        ck_assert_ptr_null(e.items);
        struct warder_grep_result g = WARDER_GREP_RESULT_INIT;
        g.version = 0;
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "h";
        req.pattern_len = 1;
        req.path = "/w";
        req.path_len = 2;
        ck_assert_int_eq(warder_backend_grep(&g, b, &req, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_grep_add(&g, "/a", 2, 1, "x", 1), WARDER_EINVAL);
        struct warder_rule_info info = WARDER_RULE_INFO_INIT;
        info.version = 0;
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 0), WARDER_EINVAL);
        warder_rule_info_init(&info);
        ck_assert_int_eq(warder_ruleset_rule(&info, rs, WARDER_OP_READ, 0), 0);
        ck_assert_str_eq(info.pattern, "**/.env");
        struct warder_ruleset_index_stats st;
        memset(&st, 0, sizeof(st)); /* as `= {0}` would be */
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), WARDER_EINVAL);
        warder_ruleset_index_stats_init(&st);
        ck_assert_int_eq(warder_ruleset_index_stats(&st, rs, WARDER_OP_READ, NULL), 0);
        ck_assert_uint_eq(st.rules, 1);

        /* an error of a version the library does not know is never written, but the call
         * still fails with its status */
        struct warder_error other = WARDER_ERROR_INIT;
        other.version = 99;
        memset(other.message, 'Z', sizeof(other.message) - 1);
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_READ, "", 0, NULL, 0, &other),
                         WARDER_EINVAL);
        ck_assert_int_eq(other.code, 0);
        ck_assert_int_eq(other.message[0], 'Z');
        warder_error_clear(&other); /* left alone too */
        ck_assert_int_eq(other.version, 99);
        /* a denial does not attach its decision to such an error either */
        warder_backend *guard = NULL;
        ck_assert_int_eq(warder_guard_new(&guard, b, rs, NULL, NULL), 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(warder_backend_read(&out, guard, "/w/.env", 7, 0, 0, 0, &other),
                         WARDER_EDENIED);
        ck_assert_ptr_null(other.decision);
        ck_assert_int_eq(warder_backend_read(&out, guard, "/w/.env", 7, 0, 0, 0, &err),
                         WARDER_EDENIED);
        ck_assert_ptr_nonnull(err.decision); /* control arm */
        warder_error_clear(&err);
        warder_backend_free(guard);
        warder_ruleset_free(rs);
}
END_TEST

/* The dispatcher reads a slot only from a table of the version that introduced it. */
START_TEST(ops_slots_are_read_by_version)
{
        static const struct warder_backend_ops v1 = {.version = 1};
        ck_assert(warder__ops_has(&v1, 1));
        ck_assert(!warder__ops_has(&v1, 2));
        ck_assert(!warder__ops_has(NULL, 1));
        /* every slot of this library is of a version it declares (also checked at compile
         * time in backend.c) */
        ck_assert_int_ge(WARDER_BACKEND_OPS_VERSION, 1);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("api");
        TCase *tc = tcase_create("strings");
        tcase_add_test(tc, check_refuses_an_embedded_nul);
        tcase_add_test(tc, explain_and_rule_match_refuse_an_embedded_nul);
        tcase_add_test(tc, older_length_delimited_entry_points);
        tcase_add_test(tc, backend_paths_refuse_an_embedded_nul);
        tcase_add_test(tc, glob_pattern_is_length_delimited);
        tcase_add_test(tc, grep_pattern_and_glob_are_length_delimited);
        tcase_add_test(tc, execute_command_is_length_delimited);
        tcase_add_test(tc, result_helpers_refuse_an_embedded_nul);
        suite_add_tcase(s, tc);
        tc = tcase_create("structs");
        tcase_add_test(tc, initialisers_match_their_macros);
        tcase_add_test(tc, initialisers_write_only_the_callers_version);
        tcase_add_test(tc, error_set_message_and_allocator);
        tcase_add_test(tc, ops_slots_are_read_by_version);
        tcase_add_test(tc, versions_are_checked_on_entry);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
