/* SPDX-License-Identifier: MIT */
/*
 * Every command example in the docs runs: each fenced block of the Markdown files in docs/ whose
 * first line starts with "$ warder " is a transcript — lines starting with "$ " are run with
 * /bin/sh in a sample workspace (a source file, a .env, an SSH key, notes.txt -> .env), and the
 * lines that follow them must be exactly what the command printed (stdout and stderr together).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"
#include "workspace.h"

/* Runs `cmd` with the built warder first on PATH; returns its output (stdout + stderr). */
static char *run_shell(const char *cmd)
{
        const char *cli = getenv("WARDER_CLI");
        ck_assert_ptr_nonnull(cli);
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s", cli);
        char *slash = strrchr(dir, '/');
        ck_assert_ptr_nonnull(slash);
        *slash = '\0';
        char *full = NULL;
        ck_assert_int_ge(
            asprintf(&full,
                     "cd '%s' && export HOME=/home/agent PATH='%s':\"$PATH\" && { %s\n} 2>&1", ws,
                     dir, cmd),
            0);
        FILE *p = popen(full, "r");
        ck_assert_ptr_nonnull(p);
        size_t cap = 4096, len = 0;
        char *out = malloc(cap);
        ck_assert_ptr_nonnull(out);
        size_t n;
        while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
                len += n;
                if (len + 1 >= cap) {
                        cap *= 2;
                        out = realloc(out, cap);
                        ck_assert_ptr_nonnull(out);
                }
        }
        out[len] = '\0';
        pclose(p);
        free(full);
        return out;
}

/* Checks every transcript block of one file; returns how many commands ran. */
static int check_file(const char *path)
{
        char *text = warder_test_slurp(path, &(size_t){0});
        ck_assert_ptr_nonnull(text);
        int ran = 0;
        char *p = text;
        while ((p = strstr(p, "```\n$ warder ")) != NULL) {
                char *block = p + 4;
                char *end = strstr(block, "\n```");
                ck_assert_msg(end != NULL, "%s: unclosed block", path);
                *end = '\0';
                char *line = block;
                while (line && *line) {
                        ck_assert(strncmp(line, "$ ", 2) == 0);
                        char *nl = strchr(line, '\n');
                        char *cmd =
                            strndup(line + 2, nl ? (size_t)(nl - line - 2) : strlen(line + 2));
                        char *expect_start = nl ? nl + 1 : line + strlen(line);
                        char *next = expect_start;
                        while (*next && strncmp(next, "$ ", 2) != 0) {
                                char *e = strchr(next, '\n');
                                next = e ? e + 1 : next + strlen(next);
                        }
                        char *expect = strndup(expect_start, (size_t)(next - expect_start));
                        size_t el = strlen(expect);
                        char *got = run_shell(cmd);
                        /* the block's last line has no newline of its own */
                        if (*next == '\0' && (el == 0 || expect[el - 1] != '\n')) {
                                size_t gl = strlen(got);
                                if (gl && got[gl - 1] == '\n')
                                        got[gl - 1] = '\0';
                        }
                        ck_assert_msg(strcmp(got, expect) == 0,
                                      "%s: `%s`\n--- documented ---\n%s\n--- actual ---\n%s", path,
                                      cmd, expect, got);
                        ran++;
                        free(cmd);
                        free(expect);
                        free(got);
                        line = next;
                }
                p = end + 4;
        }
        free(text);
        return ran;
}

/* Blocks marked `<!-- example: PATH -->` must equal the file PATH (built and run as a test). */
static int check_examples(const char *root, const char *path)
{
        char *text = warder_test_slurp(path, &(size_t){0});
        ck_assert_ptr_nonnull(text);
        int n = 0;
        const char *marker = "<!-- example: ";
        for (char *p = strstr(text, marker); p; p = strstr(p + 1, marker)) {
                char *name_end = strstr(p, " -->");
                ck_assert_ptr_nonnull(name_end);
                char *name = strndup(p + strlen(marker), (size_t)(name_end - p - strlen(marker)));
                char *code = strchr(name_end, '\n');
                ck_assert_ptr_nonnull(code);
                code = strchr(code + 1, '\n'); /* skip the ```c line */
                ck_assert_ptr_nonnull(code);
                code++;
                char *end = strstr(code, "```");
                ck_assert_ptr_nonnull(end);
                char file[2048];
                snprintf(file, sizeof(file), "%s/%s", root, name);
                char *want = warder_test_slurp(file, &(size_t){0});
                ck_assert_msg(want != NULL, "%s: example %s is missing", path, name);
                ck_assert_msg(strlen(want) == (size_t)(end - code) &&
                                  memcmp(want, code, (size_t)(end - code)) == 0,
                              "%s: the copy of %s differs from the file", path, name);
                free(want);
                free(name);
                n++;
        }
        free(text);
        return n;
}

START_TEST(doc_transcripts)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_ptr_nonnull(root);
        char docs[1024];
        snprintf(docs, sizeof(docs), "%s/docs", root);
        DIR *d = opendir(docs);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        int total = 0, examples = 0;
        while ((e = readdir(d)) != NULL) {
                size_t n = strlen(e->d_name);
                if (n < 4 || strcmp(e->d_name + n - 3, ".md") != 0)
                        continue;
                char path[2048];
                snprintf(path, sizeof(path), "%s/%s", docs, e->d_name);
                total += check_file(path);
                examples += check_examples(root, path);
        }
        closedir(d);
        /* a broken parser must not pass by finding nothing */
        ck_assert_int_ge(total, 3);
        ck_assert_int_ge(examples, 1);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("docs");
        TCase *tc = tcase_create("transcripts");
        tcase_set_timeout(tc, 120);
        tcase_add_checked_fixture(tc, ws_make, ws_remove);
        tcase_add_test(tc, doc_transcripts);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
