/* SPDX-License-Identifier: MIT */
/* The `warder` command: exit codes, output formats, usage errors (docs/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <jansson.h>

#include "cli-run.h"
#include "support.h"
#include "workspace.h"

START_TEST(help_and_version)
{
        struct cli_result r = cli_run("--help");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "Usage: warder"));
        cli_result_free(&r);
        r = cli_run("--version");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "warder 0."));
        cli_result_free(&r);
        static const char *const subs[] = {"match", "normalize", "check", "explain", "lint",
                                           "test",  "read",      "write", "edit",    "ls",
                                           "glob",  "grep",      "exec",  "serve"};
        for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
                r = cli_run(subs[i], "--help");
                ck_assert_msg(r.status == 0, "%s --help exited %d: %s", subs[i], r.status, r.err);
                ck_assert_msg(strstr(r.out, "Usage: warder") != NULL, "%s --help: %s", subs[i],
                              r.out);
                cli_result_free(&r);
        }
}
END_TEST

START_TEST(usage_errors_exit_2_with_a_hint)
{
        const char *const *const cases[] = {
            (const char *const[]){"warder", NULL},
            (const char *const[]){"warder", "frobnicate", NULL},
            (const char *const[]){"warder", "--bogus", NULL},
            (const char *const[]){"warder", "normalize", NULL},
            (const char *const[]){"warder", "normalize", "--cwd", NULL},
            (const char *const[]){"warder", "check", "read", NULL},
            (const char *const[]){"warder", "check", "delete", "x", NULL},
            (const char *const[]){"warder", "--root", NULL},
            (const char *const[]){"warder", "--rules", "a", "--preset", "b", "check", "read", "x",
                                  NULL},
            (const char *const[]){"warder", "read", NULL},
            (const char *const[]){"warder", "read", "--offset", "x", "f", NULL},
            (const char *const[]){"warder", "edit", "f", "--old", "a", NULL},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cli_result r = cli_run_in(NULL, NULL, cases[i]);
                ck_assert_msg(r.status == 2, "case %zu exited %d: %s", i, r.status, r.err);
                ck_assert_msg(strstr(r.err, "warder") != NULL, "case %zu: no message", i);
                cli_result_free(&r);
        }
}
END_TEST

START_TEST(normalize_prints_literal_forms)
{
        struct cli_result r =
            cli_run("normalize", "--root", "/ws", "--home", "/home/u", "--", ".env",
                    "//etc/./passwd", "~/.ssh/id_rsa", "a/../../..", "/.env/");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "/ws/.env\n/etc/passwd\n/home/u/.ssh/id_rsa\n/\n/.env\n");
        cli_result_free(&r);
        /* common options after the subcommand, --cwd, and JSON */
        r = cli_run("normalize", "--json", "--cwd", "/ws/sub", "--root=/ws", "x", "../y");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "[\"/ws/sub/x\",\"/ws/y\"]\n");
        cli_result_free(&r);
        /* names with control bytes are escaped, never raw */
        r = cli_run("normalize", "--root", "/ws", "a\nb\x1b[31m");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "/ws/a\\nb\\x1b[31m\n");
        cli_result_free(&r);
        /* a relative --home is a usage error */
        r = cli_run("normalize", "--home", "rel", "x");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
}
END_TEST

#define ws_run(...) cli_run_in(ws, NULL, (const char *const[]){"warder", __VA_ARGS__, NULL})

START_TEST(check_exit_codes_follow_the_action)
{
        /* §1.6 default preset: read allow + secrets deny; write ask. */
        struct cli_result r = ws_run("check", "read", "src/main.c");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "allow: read src/main.c"));
        cli_result_free(&r);
        r = ws_run("check", "read", ".env");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "'**/.env'"));
        ck_assert_ptr_nonnull(strstr(r.out, "Protect sensitive files"));
        cli_result_free(&r);
        r = ws_run("check", "write", "src/main.c");
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        /* §3.3: the symlink's real form is resolved under the root and decides */
        r = ws_run("check", "read", "notes.txt");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "real form"));
        cli_result_free(&r);
        /* control: an explicit --real naming an allowed file makes the symlink's literal form
         * decide alone — the fixture's denial really came from the real form */
        r = ws_run("check", "--real", "src/main.c", "read", "notes.txt");
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        r = ws_run("check", "--preset", "readonly", "write", "src/main.c");
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        r = ws_run("--json", "check", "read", ".env");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "\"action\":\"deny\""));
        ck_assert_ptr_nonnull(strstr(r.out, "\"pattern\":\"**/.env\""));
        cli_result_free(&r);
}
END_TEST

/* §3.3: a symlink inside the root whose real form cannot be resolved (it leaves the root)
 * cannot be allowed on its literal form alone; the same target written as its outside path
 * is an ordinary offline check (the control arm). */
START_TEST(check_unresolvable_real_form_asks)
{
        char link[600];
        snprintf(link, sizeof(link), "%s/hosts-link", ws);
        ck_assert_int_eq(symlink("/etc/hostname", link), 0);
        struct cli_result r = ws_run("check", "read", "/etc/hostname");
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        r = ws_run("check", "read", "hosts-link");
        ck_assert_msg(r.status == 3, "exit %d: %s", r.status, r.out);
        ck_assert_ptr_nonnull(strstr(r.out, "real form"));
        cli_result_free(&r);
        r = ws_run("explain", "read", "hosts-link");
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
}
END_TEST

/* §3.2: when nothing of the target exists, not even the root, the real form is the literal
 * form: an offline check of a ruleset against a tree that is not there decides, it does not
 * ask. When resolution does fail, the note names what failed. */
START_TEST(check_without_a_root_decides_the_literal_form)
{
        struct cli_result r =
            cli_run("--root", "/nonexistent-warder-root", "check", "read", "src/app.py");
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.out);
        ck_assert_ptr_null(strstr(r.out, "symlink"));
        cli_result_free(&r);
        /* control: the same check still denies what a rule denies */
        r = cli_run("--root", "/nonexistent-warder-root", "check", "read", "config/.env");
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        r = cli_run("--root", "/nonexistent-warder-root", "explain", "read", "src/app.py");
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        /* a loop is named as a loop, a link out of the root as one */
        char path[600];
        snprintf(path, sizeof(path), "%s/loop", ws);
        ck_assert_int_eq(symlink("loop", path), 0);
        snprintf(path, sizeof(path), "%s/out", ws);
        ck_assert_int_eq(symlink("/etc", path), 0);
        r = ws_run("check", "read", "loop/x");
        ck_assert_int_eq(r.status, 3);
        ck_assert_msg(strstr(r.out, "symbolic links") && !strstr(r.out, "leaves the root"), "%s",
                      r.out);
        cli_result_free(&r);
        r = ws_run("check", "read", "out/hostname");
        ck_assert_int_eq(r.status, 3);
        ck_assert_msg(strstr(r.out, "outside the root"), "%s", r.out);
        cli_result_free(&r);
}
END_TEST

/* A host's pre-flight `check execute` decides what `exec` decides: with an existing root, real
 * forms are resolved and globs expanded through the same guard over the local backend; without
 * one, the output says that only literal forms were decided. */
START_TEST(check_execute_resolves_like_exec)
{
        /* control arm: without warder the command prints the key */
        char sh[700];
        snprintf(sh, sizeof(sh), "cd '%s' && cat notes.txt", ws);
        FILE *p = popen(sh, "r");
        ck_assert_ptr_nonnull(p);
        char buf[256] = "";
        size_t n = fread(buf, 1, sizeof(buf) - 1, p);
        buf[n] = '\0';
        pclose(p);
        ck_assert_ptr_nonnull(strstr(buf, WS_SECRET));
        struct cli_result r = ws_run("--preset", "permissive", "exec", "--", "cat notes.txt");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_null(strstr(r.out, WS_SECRET));
        cli_result_free(&r);
        static const char *const cmds[] = {"cat notes.txt", "cat note*", "cat ./n[o]tes.txt"};
        for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
                r = ws_run("--preset", "permissive", "check", "execute", cmds[i]);
                ck_assert_msg(r.status == 1, "check execute '%s': exit %d: %s", cmds[i], r.status,
                              r.out);
                ck_assert_ptr_nonnull(strstr(r.out, "real form"));
                cli_result_free(&r);
                r = ws_run("--preset", "permissive", "explain", "execute", cmds[i]);
                ck_assert_msg(r.status == 1, "explain execute '%s': exit %d", cmds[i], r.status);
                cli_result_free(&r);
        }
        r = ws_run("--preset", "permissive", "--json", "check", "execute", "cat notes.txt");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "\"forms\":\"literal and real\""));
        cli_result_free(&r);
        /* without a root there is nothing to resolve: decided on literal forms, and said so */
        r = cli_run("--preset", "permissive", "--root", "/nonexistent-warder-root", "check",
                    "execute", "cat notes.txt");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "only literal forms"));
        cli_result_free(&r);
        r = cli_run("--preset", "permissive", "--root", "/nonexistent-warder-root", "--json",
                    "check", "execute", "cat notes.txt");
        ck_assert_ptr_nonnull(strstr(r.out, "\"forms\":\"literal\""));
        cli_result_free(&r);
}
END_TEST

START_TEST(explain_shows_both_forms_and_every_match)
{
        struct cli_result r = ws_run("explain", "read", "notes.txt");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "literal form: "));
        ck_assert_ptr_nonnull(strstr(r.out, "/notes.txt"));
        ck_assert_ptr_nonnull(strstr(r.out, "real form:    "));
        ck_assert_ptr_nonnull(strstr(r.out, "/.env"));
        ck_assert_ptr_nonnull(strstr(r.out, "read:0"));
        ck_assert_ptr_nonnull(strstr(r.out, "decision:     deny"));
        cli_result_free(&r);
        r = ws_run("explain", "--json", "read", "src/main.c");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "\"matches\":[]"));
        cli_result_free(&r);
}
END_TEST

START_TEST(guarded_operations)
{
        struct cli_result r = ws_run("read", "src/main.c");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, WS_MAIN_C);
        cli_result_free(&r);
        /* §4.3: a denial names the rule, its reason and source, and leaks nothing */
        static const char *const secrets[] = {".env", "notes.txt", "./src/../.env/",
                                              ".ssh/id_ed25519"};
        for (size_t i = 0; i < 4; i++) {
                r = ws_run("read", secrets[i]);
                ck_assert_msg(r.status == 1, "%s: exit %d", secrets[i], r.status);
                ck_assert_ptr_null(strstr(r.out, WS_SECRET));
                ck_assert_ptr_null(strstr(r.out, "PRIVATE KEY"));
                ck_assert_ptr_nonnull(strstr(r.err, "denied by policy"));
                ck_assert_ptr_nonnull(strstr(r.err, "reason:  Protect sensitive files"));
                cli_result_free(&r);
        }
        /* control arm: the same files are readable without the secret rules */
        char rules[600];
        snprintf(rules, sizeof(rules), "%s/open.yaml", ws);
        ws_put("open.yaml", "warder: 1\ndefault: allow\n");
        r = ws_run("--rules", rules, "read", "notes.txt");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, WS_SECRET));
        cli_result_free(&r);
        /* §4.7: grep skips the files the rules hide, and counts them */
        r = ws_run("grep", "API_KEY");
        ck_assert_int_eq(r.status, 0);
        ck_assert_int_eq(strncmp(r.out, "src/main.c:1:", 13), 0);
        ck_assert_ptr_null(strstr(r.out, WS_SECRET));
        ck_assert_ptr_nonnull(strstr(r.err, "hidden by the rules"));
        cli_result_free(&r);
        r = ws_run("grep", "--json", "API_KEY");
        ck_assert_int_eq(r.status, 0);
        /* .env and .ssh/id_ed25519, skipped by name (notes.txt is a symlink: never searched) */
        ck_assert_ptr_nonnull(strstr(r.out, "\"hidden_files\":2"));
        cli_result_free(&r);
        /* write asks under the default preset, does nothing, and works under permissive */
        r = cli_run_in(ws, "hello\n", (const char *const[]){"warder", "write", "new.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        struct stat st;
        char path[600];
        snprintf(path, sizeof(path), "%s/new.txt", ws);
        ck_assert_int_ne(stat(path, &st), 0);
        r = cli_run_in(
            ws, "hello\n",
            (const char *const[]){"warder", "--preset", "permissive", "write", "new.txt", NULL});
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        ck_assert_int_eq(stat(path, &st), 0);
        r = ws_run("--preset", "permissive", "edit", "--old", "hello", "--new", "bye", "new.txt");
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        r = ws_run("read", "new.txt");
        ck_assert_str_eq(r.out, "bye\n");
        cli_result_free(&r);
        r = ws_run("ls");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "src/\n"));
        ck_assert_ptr_nonnull(strstr(r.out, "notes.txt@\n"));
        cli_result_free(&r);
        r = ws_run("glob", "**/*.c");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "src/main.c\n");
        cli_result_free(&r);
        /* other errors exit 4 */
        r = ws_run("read", "missing.txt");
        ck_assert_int_eq(r.status, 4);
        cli_result_free(&r);
}
END_TEST

/* Every preset denies the host's own environment and memory under --root / (docs/rules.md:
 * beyond the original lists), with the control arm: the file really holds our environment. */
START_TEST(presets_deny_process_secrets)
{
        setenv("WARDER_TEST_TOKEN", "tok-5ec2e7", 1);
        /* Control arm: under a ruleset that allows everything, the command prints its own
         * environment, token included. */
        char rules[600];
        snprintf(rules, sizeof(rules), "%s/open.yaml", ws);
        ws_put("open.yaml", "warder: 1\ndefault: allow\n");
        struct cli_result c = ws_run("--rules", rules, "--root", "/", "read", "/proc/self/environ");
        ck_assert_int_eq(c.status, 0);
        ck_assert(memmem(c.out, c.out_len, "tok-5ec2e7", 10) != NULL);
        cli_result_free(&c);
        static const char *const presets[] = {"default", "permissive", "readonly", "strict"};
        static const char *const targets[] = {"/proc/self/environ", "/proc/self/root/etc/hostname",
                                              "/proc/self/mem", "/proc/self/fd/0"};
        for (size_t i = 0; i < 4; i++) {
                for (size_t j = 0; j < 4; j++) {
                        struct cli_result r =
                            ws_run("--preset", presets[i], "--root", "/", "read", targets[j]);
                        ck_assert_msg(r.status == 1, "%s %s: exit %d: %s", presets[i], targets[j],
                                      r.status, r.err);
                        ck_assert_ptr_null(strstr(r.out, "tok-5ec2e7"));
                        ck_assert_ptr_nonnull(strstr(r.err, "Protect process memory"));
                        cli_result_free(&r);
                }
        }
        unsetenv("WARDER_TEST_TOKEN");
}
END_TEST

/*
 * The agent controls operands: an operand never sets an option. A common option is given once
 * (a second one is a usage error); the policy options (--rules, --preset, --root, --home,
 * --audit, --interactive) of a guarded operation go before its name; and nothing after the
 * first operand (or `--`) is read as an option.
 */
START_TEST(operands_never_set_options)
{
        char outside[] = "/tmp/warder-cli-out.XXXXXX", marker[600];
        ck_assert_ptr_nonnull(mkdtemp(outside));
        snprintf(marker, sizeof(marker), "%s/marker.txt", outside);
        FILE *f = fopen(marker, "w");
        ck_assert_ptr_nonnull(f);
        fputs("OUTSIDE-MARK\n", f);
        fclose(f);
        /* Control arm: the root option really widens what grep searches. */
        struct cli_result r =
            ws_run("--preset", "readonly", "--root", outside, "grep", "OUTSIDE-MARK");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "OUTSIDE-MARK"));
        cli_result_free(&r);
        /* After the command's name, a policy option is refused... */
        char root_opt[600];
        snprintf(root_opt, sizeof(root_opt), "--root=%s", outside);
        const char *const *const refused[] = {
            (const char *const[]){"warder", "--preset", "readonly", "--root", ".", "grep", root_opt,
                                  "OUTSIDE-MARK", NULL},
            (const char *const[]){"warder", "--preset", "readonly", "grep", root_opt,
                                  "OUTSIDE-MARK", NULL},
            (const char *const[]){"warder", "--preset", "strict", "read", "--preset=permissive",
                                  "src/main.c", NULL},
            (const char *const[]){"warder", "read", "--audit=/tmp/warder-cli-audit", "src/main.c",
                                  NULL},
            /* ...an option given twice is a usage error, wherever it is... */
            (const char *const[]){"warder", "--preset", "strict", "--preset=permissive", "read",
                                  "src/main.c", NULL},
            (const char *const[]){"warder", "--preset", "readonly", "check", "--preset",
                                  "permissive", "write", "x", NULL},
            (const char *const[]){"warder", "--json", "read", "--json", "src/main.c", NULL},
        };
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                r = cli_run_in(ws, NULL, refused[i]);
                ck_assert_msg(r.status == 2, "case %zu: exit %d: %s", i, r.status, r.err);
                ck_assert_ptr_null(strstr(r.out, "OUTSIDE-MARK"));
                cli_result_free(&r);
        }
        ck_assert_int_ne(access("/tmp/warder-cli-audit", F_OK), 0);
        /* ...and after the first operand, everything is an operand (here a missing PATH). */
        r = ws_run("--preset", "readonly", "grep", "OUTSIDE-MARK", root_opt);
        ck_assert_msg(r.status != 0 && !strstr(r.out, "OUTSIDE-MARK"), "exit %d: %s", r.status,
                      r.out);
        cli_result_free(&r);
        r = ws_run("--preset", "readonly", "read", "src/main.c", "--preset=permissive");
        ck_assert_int_eq(r.status, 2); /* two operands: too many arguments */
        cli_result_free(&r);
        /* Texts that look like options pass as values, `--opt=TEXT` too. */
        ws_put("opts.txt", "--json and --root=/ here\n");
        r = ws_run("--preset", "permissive", "edit", "--old", "--json", "--new", "--old",
                   "opts.txt");
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
        cli_result_free(&r);
        r = ws_run("--preset", "permissive", "edit", "--old=--root=/", "--new=--x", "--",
                   "opts.txt");
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
        cli_result_free(&r);
        r = ws_run("read", "--", "opts.txt");
        ck_assert_str_eq(r.out, "--old and --x here\n");
        cli_result_free(&r);
        /* A file whose name begins with dashes is reached after `--`. */
        ws_put("--json", "dash\n");
        r = ws_run("read", "--json", "--", "--json");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "\"status\":\"ok\""));
        cli_result_free(&r);
        /* The commands that touch no file still take the options after their name. */
        r = ws_run("check", "--preset", "readonly", "write", "src/main.c");
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        char cmd[700];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outside);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(audit_log_has_one_line_per_decision)
{
        char audit[600];
        snprintf(audit, sizeof(audit), "%s/audit.jsonl", ws);
        struct cli_result r = ws_run("--audit", audit, "read", ".env");
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        r = ws_run("--audit", audit, "read", "src/main.c");
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        FILE *f = fopen(audit, "r");
        ck_assert_ptr_nonnull(f);
        char line[4096];
        int n = 0;
        while (fgets(line, sizeof(line), f)) {
                ck_assert_ptr_nonnull(strstr(line, "\"op\":\"read\""));
                ck_assert_ptr_nonnull(
                    strstr(line, n == 0 ? "\"action\":\"deny\"" : "\"action\":\"allow\""));
                n++;
        }
        fclose(f);
        ck_assert_int_eq(n, 2);
}
END_TEST

START_TEST(lint_and_test)
{
        ws_put("shadow.yaml", "warder: 1\n"
                              "read:\n"
                              "  rules:\n"
                              "    - allow: 'src/**'\n"
                              "    - deny: 'src/*.c'\n"
                              "execute:\n"
                              "  rules:\n"
                              "    - allow: 'git status*'\n");
        char file[600];
        snprintf(file, sizeof(file), "%s/shadow.yaml", ws);
        struct cli_result r = ws_run("lint", file);
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "shadow.yaml:5:7: warning: read rule read:1"));
        ck_assert_ptr_nonnull(strstr(r.out, "can never decide"));
        ck_assert_ptr_nonnull(strstr(r.out, "'git status; rm -rf ~'"));
        cli_result_free(&r);
        r = ws_run("lint", "--strict", file);
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        r = ws_run("lint", "--json", file);
        ck_assert_int_eq(r.status, 0);
        ck_assert_int_eq(strncmp(r.out, "{\"warnings\":[{\"file\":", 21), 0);
        ck_assert_ptr_nonnull(strstr(r.out, "\"rule\":\"read:1\""));
        ck_assert_ptr_nonnull(strstr(r.out, "],\"load_errors\":false}\n"));
        cli_result_free(&r);
        /* a clean file has no warnings: the control for the warnings above */
        ws_put("clean.yaml", "warder: 1\nread:\n  rules:\n    - deny: '**/.env'\n");
        snprintf(file, sizeof(file), "%s/clean.yaml", ws);
        r = ws_run("lint", "--strict", file);
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "");
        cli_result_free(&r);
        /* load errors: file:line:col, exit 2 */
        ws_put("bad.yaml", "warder: 1\nread:\n  rulez: []\n");
        snprintf(file, sizeof(file), "%s/bad.yaml", ws);
        r = ws_run("lint", file);
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "bad.yaml:3:3: error:"));
        cli_result_free(&r);
        /* inline tests: the last line is exactly "N passed, N failed" */
        ws_put("cases.yaml", "warder: 1\n"
                             "read:\n"
                             "  default: allow\n"
                             "  rules:\n"
                             "    - deny: '**/.env'\n"
                             "tests:\n"
                             "  root: /ws\n"
                             "  cases:\n"
                             "    - {op: read, target: .env, expect: deny}\n"
                             "    - {op: read, target: src/a.c, expect: allow}\n"
                             "    - {op: read, target: a/.env, expect: allow}\n");
        snprintf(file, sizeof(file), "%s/cases.yaml", ws);
        r = ws_run("test", file);
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "FAIL: read a/.env: expected allow, got deny"));
        ck_assert_ptr_nonnull(strstr(r.out, "\n2 passed, 1 failed\n"));
        cli_result_free(&r);
}
END_TEST

START_TEST(exec_decides_then_runs)
{
        /* allowed: runs in the root, output streamed, exit status passed through */
        struct cli_result r = ws_run("--preset", "permissive", "exec", "--", "echo hi; exit 7");
        ck_assert_int_eq(r.status, 7);
        ck_assert_str_eq(r.out, "hi\n");
        cli_result_free(&r);
        /* denied: names the command, the path and the rule; nothing runs */
        r = ws_run("--preset", "permissive", "exec", "--", "touch ran; cat notes.txt");
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_null(strstr(r.out, WS_SECRET));
        ck_assert_ptr_nonnull(strstr(r.err, "command: cat notes.txt"));
        ck_assert_ptr_nonnull(strstr(r.err, "'**/.env'"));
        cli_result_free(&r);
        char ran[600];
        snprintf(ran, sizeof(ran), "%s/ran", ws);
        ck_assert_int_ne(access(ran, F_OK), 0);
        /* the default preset asks before any command */
        r = ws_run("exec", "--", "echo hi");
        ck_assert_int_eq(r.status, 3);
        ck_assert_str_eq(r.out, "");
        cli_result_free(&r);
        /* a fresh environment: nothing of ours leaks unless declared */
        setenv("WARDER_TEST_LEAK", "leaked", 1);
        r = ws_run("--preset", "permissive", "exec", "--env", "DECLARED=yes", "--",
                   "echo \"${WARDER_TEST_LEAK:-none} $DECLARED\"");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "none yes\n");
        cli_result_free(&r);
        /* the deadline kills the command: exit 124 */
        r = ws_run("--preset", "permissive", "exec", "--timeout", "0.3", "--", "sleep 5");
        ck_assert_int_eq(r.status, 124);
        cli_result_free(&r);
        r = ws_run("--preset", "permissive", "--json", "exec", "--", "printf x");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "\"exit_status\":0"));
        ck_assert_ptr_nonnull(strstr(r.out, "\"stdout\":\"x\""));
        cli_result_free(&r);
}
END_TEST

/* §6.3 masking, with its control arm: grep opens .env by itself unless it is masked. (`grep
 * -r` itself is denied by inspection, §5.4.1; under find the names are not on the line.) */
START_TEST(exec_mask_denied)
{
        struct cli_result r = ws_run("--preset", "permissive", "exec", "--",
                                     "find . -type f -exec grep -l API_KEY {} + | sort");
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "./.env\n"));
        cli_result_free(&r);
        /* §6.5, issue item: as root, masking without Landlock is refused (a root command could
         * read the disk device under the masks); nothing runs. */
        if (geteuid() == 0) {
                r = ws_run("--preset", "permissive", "exec", "--mask-denied", "--",
                           "touch ran; find . -type f -exec grep -l API_KEY {} + | sort");
                ck_assert_int_eq(r.status, 2);
                ck_assert_ptr_nonnull(strstr(r.err, "--landlock required"));
                cli_result_free(&r);
                char ran[600];
                snprintf(ran, sizeof(ran), "%s/ran", ws);
                ck_assert_int_ne(access(ran, F_OK), 0);
        }
        const char *landlock = geteuid() == 0 ? "required" : "off";
        r = ws_run("--preset", "permissive", "exec", "--mask-denied", "--landlock", landlock, "--",
                   "find . -type f -exec grep -l API_KEY {} + | sort");
        if (r.status == 4 && (strstr(r.err, "namespace") || strstr(r.err, "andlock"))) {
                /* no mount namespace or no Landlock here: nothing ran */
                cli_result_free(&r);
                return;
        }
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
        ck_assert_ptr_null(strstr(r.out, ".env"));
        ck_assert_ptr_nonnull(strstr(r.out, "./src/main.c\n"));
        cli_result_free(&r);
}
END_TEST

/* --interactive asks on the terminal (a pseudo-terminal from script(1) here): "y" performs an
 * ask operation once, "n" declines it (exit 1) and nothing is written. */
START_TEST(interactive_approval)
{
        if (system("command -v script >/dev/null 2>&1") != 0)
                return; /* no script(1): nothing to drive a terminal with */
        const char *cli = getenv("WARDER_CLI");
        ck_assert_ptr_nonnull(cli);
        for (int yes = 0; yes < 2; yes++) {
                char cmd[2048], path[600];
                snprintf(path, sizeof(path), "%s/asked-%d.txt", ws, yes);
                snprintf(cmd, sizeof(cmd),
                         "cd '%s' && printf '%s\\n' | script -qec \"'%s' --interactive write "
                         "asked-%d.txt < /dev/null\" /dev/null > prompt.txt 2>&1",
                         ws, yes ? "y" : "n", cli, yes);
                int st = system(cmd);
                ck_assert(WIFEXITED(st));
                ck_assert_int_eq(WEXITSTATUS(st), yes ? 0 : 1);
                ck_assert_int_eq(access(path, F_OK), yes ? 0 : -1);
                char prompt[600];
                snprintf(prompt, sizeof(prompt), "%s/prompt.txt", ws);
                FILE *f = fopen(prompt, "r");
                ck_assert_ptr_nonnull(f);
                char buf[4096] = "";
                size_t n = fread(buf, 1, sizeof(buf) - 1, f);
                buf[n] = '\0';
                fclose(f);
                ck_assert_ptr_nonnull(strstr(buf, "Allow this once? [y/N]"));
        }
}
END_TEST

/* ---- --json on every exit path, exec's status, approval tokens, grep and edit options ---- */

/* The one JSON document a --json call printed (the test fails on anything else). */
static json_t *one_json(const struct cli_result *r)
{
        json_error_t e;
        json_t *v = json_loads(r->out, JSON_REJECT_DUPLICATES, &e);
        ck_assert_msg(json_is_object(v), "not one JSON object (%s): %s", e.text, r->out);
        return v;
}

static const char *jstr(json_t *o, const char *path)
{
        char key[64];
        const char *dot = strchr(path, '.');
        if (dot) {
                snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
                return jstr(json_object_get(o, key), dot + 1);
        }
        json_t *v = json_object_get(o, path);
        ck_assert_msg(json_is_string(v), "%s is not a string", path);
        return json_string_value(v);
}

START_TEST(json_on_every_exit_path)
{
        ws_put("bad.yaml", "warder: 1\nread:\n  rulez: []\n");
        char bad[600];
        snprintf(bad, sizeof(bad), "%s/bad.yaml", ws);
        struct {
                const char *const *argv;
                const char *code;
        } cases[] = {
            {(const char *const[]){"warder", "--json", "read", NULL}, "usage"},
            {(const char *const[]){"warder", "--json", "frobnicate", NULL}, "usage"},
            {(const char *const[]){"warder", "read", "--json", "--bogus", "x", NULL}, "usage"},
            {(const char *const[]){"warder", "--json", "check", "delete", "x", NULL}, "usage"},
            {(const char *const[]){"warder", "--json", "--rules", bad, "read", "x", NULL},
             "WARDER_EPARSE"},
            {(const char *const[]){"warder", "--json", "--rules", bad, "check", "read", "x", NULL},
             "WARDER_EPARSE"},
            {(const char *const[]){"warder", "--json", "--rules", bad, "serve", NULL},
             "WARDER_EPARSE"},
            {(const char *const[]){"warder", "--json", "--preset", "nope", "ls", NULL},
             "WARDER_ENOENT"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct cli_result r = cli_run_in(ws, "", cases[i].argv);
                ck_assert_msg(r.status == 2, "case %zu: exit %d", i, r.status);
                json_t *o = one_json(&r);
                ck_assert_str_eq(jstr(o, "status"), "error");
                ck_assert_str_eq(jstr(o, "error.code"), cases[i].code);
                ck_assert_int_eq(json_integer_value(json_object_get(o, "exit_status")), 2);
                if (strcmp(cases[i].code, "WARDER_EPARSE") == 0) {
                        json_t *e = json_object_get(o, "error");
                        ck_assert_int_eq(json_integer_value(json_object_get(e, "line")), 3);
                        ck_assert_int_eq(json_integer_value(json_object_get(e, "column")), 3);
                        ck_assert_ptr_nonnull(strstr(jstr(o, "error.file"), "bad.yaml"));
                }
                /* the people's message is still on stderr */
                ck_assert_ptr_nonnull(strstr(r.err, "warder"));
                json_decref(o);
                cli_result_free(&r);
        }
        /* control: without --json, stdout stays empty on the same errors */
        struct cli_result r = ws_run("read");
        ck_assert_int_eq(r.status, 2);
        ck_assert_str_eq(r.out, "");
        cli_result_free(&r);
        /* other errors (exit 4) answer in JSON too */
        r = ws_run("--json", "read", "missing.txt");
        ck_assert_int_eq(r.status, 4);
        json_t *o = one_json(&r);
        ck_assert_str_eq(jstr(o, "error.code"), "WARDER_ENOENT");
        json_decref(o);
        cli_result_free(&r);
        /* read says whether it stopped short */
        r = ws_run("--json", "read", "--limit", "3", "src/main.c");
        o = one_json(&r);
        ck_assert(json_is_true(json_object_get(o, "truncated")));
        ck_assert_str_eq(jstr(o, "content"), "int");
        json_decref(o);
        cli_result_free(&r);
        r = ws_run("--json", "read", "src/main.c");
        o = one_json(&r);
        ck_assert(json_is_false(json_object_get(o, "truncated")));
        json_decref(o);
        cli_result_free(&r);
}
END_TEST

/* A command that exits 3 is not "approval required": with --json warder exits 0 once the
 * command ran, and the fields say how it ended. */
START_TEST(exec_json_reports_the_command_status)
{
        struct cli_result r =
            ws_run("--preset", "permissive", "--json", "exec", "--", "echo out; exit 3");
        ck_assert_int_eq(r.status, 0);
        json_t *o = one_json(&r);
        ck_assert_str_eq(jstr(o, "status"), "ok");
        ck_assert_int_eq(json_integer_value(json_object_get(o, "exit_status")), 3);
        ck_assert(json_is_null(json_object_get(o, "signal")));
        ck_assert(json_is_false(json_object_get(o, "timed_out")));
        ck_assert(json_is_false(json_object_get(o, "cancelled")));
        ck_assert_str_eq(jstr(o, "stdout"), "out\n");
        json_decref(o);
        cli_result_free(&r);
        /* control: without --json the status is the command's own, the same 3 as an ask */
        r = ws_run("--preset", "permissive", "exec", "--", "exit 3");
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        r = ws_run("--preset", "permissive", "--json", "exec", "--timeout", "0.2", "--", "sleep 5");
        ck_assert_int_eq(r.status, 0);
        o = one_json(&r);
        ck_assert(json_is_true(json_object_get(o, "timed_out")));
        ck_assert_int_eq(json_integer_value(json_object_get(o, "signal")), 9);
        ck_assert(json_is_null(json_object_get(o, "exit_status")));
        json_decref(o);
        cli_result_free(&r);
        /* not run: 1 and 3 keep their meaning */
        r = ws_run("--json", "exec", "--", "cat .env");
        ck_assert_int_eq(r.status, 1);
        o = one_json(&r);
        ck_assert_str_eq(jstr(o, "status"), "denied");
        json_decref(o);
        cli_result_free(&r);
        r = ws_run("--json", "exec", "--", "exit 3");
        ck_assert_int_eq(r.status, 3);
        o = one_json(&r);
        ck_assert_str_eq(jstr(o, "status"), "ask");
        json_decref(o);
        cli_result_free(&r);
}
END_TEST

/* --approve-token: the token an ask printed approves that request, and nothing else. */
START_TEST(approve_token)
{
        struct cli_result r = cli_run_in(
            ws, "hello\n", (const char *const[]){"warder", "--json", "write", "new.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        json_t *o = one_json(&r);
        char *token = strdup(jstr(o, "approval.token"));
        json_decref(o);
        cli_result_free(&r);
        char path[600];
        snprintf(path, sizeof(path), "%s/new.txt", ws);
        struct stat st;
        ck_assert_int_ne(stat(path, &st), 0);
        /* another target: refused, nothing written */
        r = cli_run_in(ws, "x\n",
                       (const char *const[]){"warder", "--json", "--approve-token", token, "write",
                                             "other.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        o = one_json(&r);
        ck_assert_ptr_nonnull(strstr(jstr(o, "token_refused"), "another request"));
        json_decref(o);
        cli_result_free(&r);
        /* another operation on the same target */
        r = ws_run("--approve-token", token, "edit", "--old", "a", "--new", "b", "new.txt");
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        /* an expired spelling of the same token */
        char *expired = strdup(token);
        memcpy(expired + 4, "0000000000000001", 16);
        r = cli_run_in(
            ws, "x\n",
            (const char *const[]){"warder", "--approve-token", expired, "write", "new.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        ck_assert_ptr_nonnull(strstr(r.err, "expired"));
        cli_result_free(&r);
        /* another ruleset (same decision, other digest) */
        ws_put("other.yaml", "warder: 1\ndefault: ask\n");
        char rules[600];
        snprintf(rules, sizeof(rules), "%s/other.yaml", ws);
        r = cli_run_in(ws, "x\n",
                       (const char *const[]){"warder", "--rules", rules, "--approve-token", token,
                                             "write", "new.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        ck_assert_int_ne(stat(path, &st), 0);
        /* a deny is never approved */
        r = ws_run("--approve-token", token, "read", ".env");
        ck_assert_int_eq(r.status, 1);
        cli_result_free(&r);
        /* the request it was issued for goes through */
        r = cli_run_in(
            ws, "hello\n",
            (const char *const[]){"warder", "--approve-token", token, "write", "new.txt", NULL});
        ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
        cli_result_free(&r);
        r = ws_run("read", "new.txt");
        ck_assert_str_eq(r.out, "hello\n");
        cli_result_free(&r);
        r = ws_run("--interactive", "--approve-token", token, "read", "x");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        free(expired);
        free(token);
}
END_TEST

START_TEST(grep_options)
{
        ws_put("three.txt", "Needle one\nneedle two\nNEEDLE three\n");
        struct cli_result r = ws_run("grep", "needle", "three.txt");
        ck_assert_str_eq(r.out, "three.txt:2:needle two\n");
        cli_result_free(&r);
        r = ws_run("grep", "--ignore-case", "needle", "three.txt");
        ck_assert_str_eq(
            r.out, "three.txt:1:Needle one\nthree.txt:2:needle two\nthree.txt:3:NEEDLE three\n");
        cli_result_free(&r);
        r = ws_run("--json", "grep", "-i", "--max-matches", "2", "needle", "three.txt");
        ck_assert_int_eq(r.status, 0);
        json_t *o = one_json(&r);
        ck_assert_uint_eq(json_array_size(json_object_get(o, "matches")), 2);
        ck_assert(json_is_true(json_object_get(o, "truncated")));
        json_decref(o);
        cli_result_free(&r);
        r = ws_run("grep", "--max-matches", "x", "needle");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        /* caseless grep still never searches .env (§4.7) */
        r = ws_run("grep", "-i", "api_key");
        ck_assert_ptr_null(strstr(r.out, WS_SECRET));
        ck_assert_ptr_nonnull(strstr(r.out, "src/main.c:1:"));
        cli_result_free(&r);
        /* --threads: the same output, in path order, for every count */
        char dir[512];
        snprintf(dir, sizeof(dir), "%s/many", ws);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        for (int i = 0; i < 30; i++) {
                char name[32], text[64];
                snprintf(name, sizeof(name), "many/f%02d.txt", i);
                snprintf(text, sizeof(text), "x\nneedle %d\n", i);
                ws_put(name, text);
        }
        r = ws_run("grep", "--threads", "1", "needle", "many");
        ck_assert_int_eq(r.status, 0);
        ck_assert(strncmp(r.out, "many/f00.txt:2:needle 0\nmany/f01.txt:2:needle 1\n", 48) == 0);
        for (int t = 0; t < 3; t++) {
                const char *n = t == 0 ? "0" : t == 1 ? "2" : "8";
                struct cli_result m = ws_run("grep", "--threads", n, "-i", "NEEDLE", "many");
                ck_assert_int_eq(m.status, 0);
                ck_assert_str_eq(m.out, r.out);
                cli_result_free(&m);
        }
        cli_result_free(&r);
        r = ws_run("grep", "--threads", "-1", "needle");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
}
END_TEST

/* edit takes its texts from files or stdin, byte for byte: a 200 kB old text works. */
START_TEST(edit_texts_from_files)
{
        size_t big = 200 * 1024;
        char *block = malloc(big + 1);
        for (size_t i = 0; i < big; i++)
                block[i] = (char)('a' + (i * 7 + i / 26) % 26);
        block[big] = '\0';
        block[0] = 'Z'; /* occurs once in the file below */
        char *file = malloc(2 * big + 64);
        snprintf(file, 2 * big + 64, "head\n%s\ntail\n", block);
        ws_put("big.txt", file);
        ws_put("old.txt", block);
        char old_path[600], big_path[600];
        snprintf(old_path, sizeof(old_path), "%s/old.txt", ws);
        snprintf(big_path, sizeof(big_path), "%s/big.txt", ws);
        struct cli_result r = cli_run_in(
            ws, "NEW",
            (const char *const[]){"warder", "--preset", "permissive", "--json", "edit",
                                  "--old-file", old_path, "--new-file", "-", "big.txt", NULL});
        ck_assert_msg(r.status == 0, "exit %d: %s %s", r.status, r.out, r.err);
        json_t *o = one_json(&r);
        ck_assert_int_eq(json_integer_value(json_object_get(o, "replacements")), 1);
        json_decref(o);
        cli_result_free(&r);
        r = ws_run("read", "big.txt");
        ck_assert_str_eq(r.out, "head\nNEW\ntail\n");
        cli_result_free(&r);
        /* stdin for the old text, a file for the new; both from stdin is a usage error */
        ws_put("new.txt", "tail-2");
        char new_path[600];
        snprintf(new_path, sizeof(new_path), "%s/new.txt", ws);
        r = cli_run_in(ws, "tail",
                       (const char *const[]){"warder", "--preset", "permissive", "edit",
                                             "--old-file", "-", "--new-file", new_path, "big.txt",
                                             NULL});
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        r = ws_run("read", "big.txt");
        ck_assert_str_eq(r.out, "head\nNEW\ntail-2\n");
        cli_result_free(&r);
        r = ws_run("edit", "--old-file", "-", "--new-file", "-", "big.txt");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        r = ws_run("edit", "--old", "a", "--old-file", old_path, "--new", "b", "big.txt");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        /* the default preset asks before an edit: nothing changes without approval */
        r = cli_run_in(ws, "x",
                       (const char *const[]){"warder", "edit", "--old", "NEW", "--new-file", "-",
                                             "big.txt", NULL});
        ck_assert_int_eq(r.status, 3);
        cli_result_free(&r);
        free(block);
        free(file);
        (void)big_path;
}
END_TEST

START_TEST(shipped_rulesets_pass_their_tests)
{
        const char *src = getenv("WARDER_SOURCE_ROOT");
        ck_assert_ptr_nonnull(src);
        static const char *const names[] = {"default", "permissive", "readonly", "strict"};
        for (size_t i = 0; i < 4; i++) {
                char file[1024];
                snprintf(file, sizeof(file), "%s/rules/%s.yaml", src, names[i]);
                struct cli_result r = ws_run("test", file);
                ck_assert_msg(r.status == 0, "%s: %s%s", file, r.out, r.err);
                ck_assert_ptr_nonnull(strstr(r.out, " passed, 0 failed\n"));
                cli_result_free(&r);
        }
}
END_TEST

/* -0: names end with NUL, raw, so a newline or a trailing space survives a pipeline. */
START_TEST(nul_delimited_names)
{
        ws_put("src/new\nline.txt", "needle\n");
        ws_put("src/space .txt", "needle\n");
        struct cli_result r = ws_run("ls", "-0", "src");
        ck_assert_int_eq(r.status, 0);
        const char want_ls[] = "main.c\0new\nline.txt\0space .txt\0";
        ck_assert_uint_eq(r.out_len, sizeof(want_ls) - 1);
        ck_assert_int_eq(memcmp(r.out, want_ls, sizeof(want_ls) - 1), 0);
        cli_result_free(&r);
        r = ws_run("glob", "--null", "src/*.txt");
        ck_assert_int_eq(r.status, 0);
        const char want_glob[] = "src/new\nline.txt\0src/space .txt\0";
        ck_assert_uint_eq(r.out_len, sizeof(want_glob) - 1);
        ck_assert_int_eq(memcmp(r.out, want_glob, sizeof(want_glob) - 1), 0);
        cli_result_free(&r);
        /* grep -l: each matching file once (two matches in one file) */
        ws_put("src/two.txt", "needle\nneedle\n");
        r = ws_run("grep", "-l", "-0", "needle", "src");
        ck_assert_int_eq(r.status, 0);
        const char want_grep[] = "src/new\nline.txt\0src/space .txt\0src/two.txt\0";
        ck_assert_uint_eq(r.out_len, sizeof(want_grep) - 1);
        ck_assert_int_eq(memcmp(r.out, want_grep, sizeof(want_grep) - 1), 0);
        cli_result_free(&r);
        r = ws_run("grep", "--files-with-matches", "needle", "src/two.txt");
        ck_assert_str_eq(r.out, "src/two.txt\n");
        cli_result_free(&r);
        /* grep -l still never searches what the rules hide (§4.7) */
        r = ws_run("grep", "-l", "API_KEY");
        ck_assert_str_eq(r.out, "src/main.c\n");
        cli_result_free(&r);
        /* -0 without -l: lines may hold any byte, refused; -0 elsewhere: unknown */
        r = ws_run("grep", "-0", "needle");
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "-0 needs -l"));
        cli_result_free(&r);
        r = ws_run("read", "-0", "src/main.c");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
}
END_TEST

/* --as-user (§6.6): the kernel's permissions of that user back the rules (root only). */
START_TEST(as_user)
{
        /* the values refused whoever runs it */
        static const char *const bad[][2] = {
            {"0", "refusing to act as root"},
            {"root", "refusing to act as root"},
            {"-1", "not a valid uid"},
            {"+5", "not a valid uid"},
            {"4294967295", "not a valid uid"},
            {"99999999999", "not a valid uid"},
            {"", "needs USER or UID"},
            {"no-such-user-x9q", "no such user"},
            {"40001:0", "group 0"},
            {"40001:40001:0", "supplementary group 0"},
            {"40001:x", "numeric gid"},
            {"40001:40001:1,,2", "numeric gids"},
            {"40001:-1", "numeric gid"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct cli_result r = ws_run("--as-user", bad[i][0], "ls");
                ck_assert_msg(r.status == 2, "%s: exit %d", bad[i][0], r.status);
                ck_assert_msg(strstr(r.err, bad[i][1]), "%s: %s", bad[i][0], r.err);
                cli_result_free(&r);
        }
        char long_name[400];
        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        struct cli_result r = ws_run("--as-user", long_name, "ls");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        /* never silently ignored by a command that opens nothing as the agent */
        r = ws_run("--as-user", "40001:40001", "check", "read", "src/main.c");
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "--as-user does not apply"));
        cli_result_free(&r);
        /* a policy option: never after the command's name */
        r = ws_run("ls", "--as-user", "40001:40001");
        ck_assert_int_eq(r.status, 2);
        cli_result_free(&r);
        if (geteuid() != 0) {
                fprintf(stderr, "as_user: not root, the switching cases are skipped\n");
                return;
        }
        ck_assert_int_eq(chmod(ws, 0755), 0);
        char path[600];
        snprintf(path, sizeof(path), "%s/src/theirs.txt", ws);
        ws_put("src/theirs.txt", "THEIR-SECRET\n");
        ck_assert_int_eq(chown(path, 40002, 40002), 0);
        ck_assert_int_eq(chmod(path, 0600), 0);
        /* control arm: the host reads it */
        r = ws_run("read", "src/theirs.txt");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "THEIR-SECRET\n");
        cli_result_free(&r);
        /* a name: its uid and primary group (nobody is in every Debian passwd) */
        r = ws_run("--as-user", "nobody", "read", "src/main.c");
        ck_assert_msg(r.status == 0, "%s", r.err);
        ck_assert_str_eq(r.out, WS_MAIN_C);
        cli_result_free(&r);
        r = ws_run("--as-user", "nobody", "read", "src/theirs.txt");
        ck_assert_int_eq(r.status, 4);
        cli_result_free(&r);
        /* as the agent: EACCES with the path, in text and JSON */
        r = ws_run("--as-user", "40001:40001", "read", "src/theirs.txt");
        ck_assert_int_eq(r.status, 4);
        ck_assert_uint_eq(r.out_len, 0);
        ck_assert_ptr_nonnull(strstr(r.err, "src/theirs.txt': Permission denied"));
        cli_result_free(&r);
        r = ws_run("--json", "--as-user", "40001:40001", "read", "src/theirs.txt");
        ck_assert_int_eq(r.status, 4);
        json_t *o = one_json(&r);
        json_t *e = json_object_get(o, "error");
        ck_assert_str_eq(json_string_value(json_object_get(e, "code")), "WARDER_EACCES");
        ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), "theirs"));
        json_decref(o);
        cli_result_free(&r);
        /* grep as the agent finds what it may read only */
        r = ws_run("--as-user", "40001:40001", "grep", "-l", "SECRET|API_KEY", "src");
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "src/main.c\n");
        cli_result_free(&r);
        /* writes: the agent cannot write into src (root's 0755), can into its own dir */
        r = cli_run_in(ws, "x\n",
                       (const char *const[]){"warder", "--preset", "permissive", "--as-user",
                                             "40001:40001", "write", "src/new.txt", NULL});
        ck_assert_int_eq(r.status, 4);
        ck_assert_ptr_nonnull(strstr(r.err, "Permission denied"));
        cli_result_free(&r);
        snprintf(path, sizeof(path), "%s/mine", ws);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(chown(path, 40001, 40001), 0);
        r = cli_run_in(ws, "x\n",
                       (const char *const[]){"warder", "--preset", "permissive", "--as-user",
                                             "40001:40001", "write", "mine/new.txt", NULL});
        ck_assert_int_eq(r.status, 0);
        cli_result_free(&r);
        struct stat st;
        snprintf(path, sizeof(path), "%s/mine/new.txt", ws);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq(st.st_uid, 40001);
        ck_assert_uint_eq(st.st_gid, 40001);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("cli");
        TCase *tc = tcase_create("basics");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, help_and_version);
        tcase_add_test(tc, usage_errors_exit_2_with_a_hint);
        tcase_add_test(tc, normalize_prints_literal_forms);
        suite_add_tcase(s, tc);
        TCase *ops = tcase_create("workspace");
        tcase_set_timeout(ops, 120);
        tcase_add_checked_fixture(ops, ws_make, ws_remove);
        tcase_add_test(ops, check_exit_codes_follow_the_action);
        tcase_add_test(ops, check_unresolvable_real_form_asks);
        tcase_add_test(ops, check_without_a_root_decides_the_literal_form);
        tcase_add_test(ops, check_execute_resolves_like_exec);
        tcase_add_test(ops, explain_shows_both_forms_and_every_match);
        tcase_add_test(ops, guarded_operations);
        tcase_add_test(ops, operands_never_set_options);
        tcase_add_test(ops, presets_deny_process_secrets);
        tcase_add_test(ops, audit_log_has_one_line_per_decision);
        tcase_add_test(ops, lint_and_test);
        tcase_add_test(ops, shipped_rulesets_pass_their_tests);
        tcase_add_test(ops, interactive_approval);
        tcase_add_test(ops, exec_decides_then_runs);
        tcase_add_test(ops, exec_mask_denied);
        tcase_add_test(ops, json_on_every_exit_path);
        tcase_add_test(ops, exec_json_reports_the_command_status);
        tcase_add_test(ops, approve_token);
        tcase_add_test(ops, grep_options);
        tcase_add_test(ops, edit_texts_from_files);
        tcase_add_test(ops, nul_delimited_names);
        tcase_add_test(ops, as_user);
        suite_add_tcase(s, ops);
        return warder_test_run(s);
}
