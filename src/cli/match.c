/* SPDX-License-Identifier: MIT */
/* warder match: test paths (or commands) against one glob pattern (semantics §2, §5.1). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(void)
{
        printf("Usage: warder match [--fold-case] [--command] [--] PATTERN PATH...\n"
               "\n"
               "Match each PATH against the glob PATTERN with the core matcher (semantics §2):\n"
               "`*` and `?` stay within one path component, `**` as a whole component spans\n"
               "directories, `[...]` classes, `{a,b}` alternation, `\\` escapes. PATHs are\n"
               "compared byte for byte as given; they are not normalised and the pattern is not\n"
               "anchored to a root (`warder check` does that).\n"
               "\n"
               "Options:\n"
               "  --fold-case  compare ASCII letters case-insensitively (§2.8)\n"
               "  --command    PATTERN is a command pattern (§5.1): `*` crosses `/` and blanks,\n"
               "               braces are literal, `git *` also matches `git`\n"
               "  --json       print a JSON object with the result of every PATH\n"
               "  --           end of options (PATTERN and PATHs may then begin with `-`)\n"
               "\n"
               "Prints `match: PATH` or `no match: PATH` for each PATH.\n"
               "Exit status: 0 when every PATH matches, 1 when one does not, 2 on a usage\n"
               "error or a malformed pattern (shown with a caret under the offending byte),\n"
               "4 when the matching engine failed.\n"
               "\n" CLI_SECTIONS_NOTE);
}

/* Columns that cli_write_safe() uses for s[0..len). */
static size_t safe_width(const char *s, size_t len)
{
        size_t w = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)s[i];
                if (ch == '\n' || ch == '\t' || ch == '\\')
                        w += 2;
                else if (ch < 0x20 || ch == 0x7f)
                        w += 4;
                else if (ch < 0x80 || ch >= 0xc0)
                        w += 1; /* UTF-8 continuation bytes take no column of their own */
        }
        return w;
}

static bool has_control(const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                        return true;
        }
        return false;
}

/* Prints the pattern and a caret under byte `offset`. */
static void show_caret(const char *pattern, size_t len, long offset)
{
        size_t col;
        fputs("  ", stderr);
        if (has_control(pattern, len)) {
                cli_write_safe(stderr, pattern, len);
                col = offset < 0 ? 0
                                 : safe_width(pattern, (size_t)offset > len ? len : (size_t)offset);
        } else {
                fwrite(pattern, 1, len, stderr);
                col = 0;
                for (size_t i = 0; offset > 0 && i < (size_t)offset && i < len; i++) {
                        unsigned char ch = (unsigned char)pattern[i];
                        col += ch < 0x80 || ch >= 0xc0;
                }
                if (offset > 0 && (size_t)offset > len)
                        col += (size_t)offset - len;
        }
        fputs("\n  ", stderr);
        for (size_t i = 0; i < col; i++)
                fputc(' ', stderr);
        fputs("^\n", stderr);
}

int cli_cmd_match(int argc, char **argv, struct cli_common *c)
{
        unsigned flags = 0;
        int i = 1;
        for (; i < argc; i++) {
                const char *a = argv[i];
                if (strcmp(a, "--") == 0) {
                        i++;
                        break;
                }
                if (cli_is_help(a)) {
                        help();
                        return CLI_OK;
                }
                if (strcmp(a, "--fold-case") == 0)
                        flags |= WARDER_GLOB_FOLD_CASE;
                else if (strcmp(a, "--command") == 0)
                        flags |= WARDER_GLOB_COMMAND;
                else if (a[0] == '-' && a[1] != '\0')
                        return cli_usage("match", "unknown option '%s'", a);
                else
                        break;
        }
        if (i >= argc)
                return cli_usage("match", "no PATTERN given");
        if (i + 1 >= argc)
                return cli_usage("match", "no PATH given");
        const char *pattern = argv[i++];
        size_t plen = strlen(pattern);
        warder_glob *g = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_glob_compile(&g, pattern, plen, flags, &err);
        if (rc) {
                if (err.offset >= 0)
                        cli_error("match", "bad pattern at byte %ld: %s", err.offset, err.message);
                else
                        cli_error("match", "bad pattern: %s", err.message);
                if (err.offset >= 0)
                        show_caret(pattern, plen, err.offset);
                warder_error_clear(&err);
                return CLI_USAGE;
        }
        int status = CLI_OK;
        json_t *results = c->json ? json_array() : NULL;
        for (int k = i; k < argc; k++) {
                size_t len = strlen(argv[k]);
                int m = warder_glob_match(g, argv[k], len);
                if (m < 0) {
                        json_decref(results);
                        cli_error("match", "matching '%s' failed: %s", argv[k], warder_strerror(m));
                        warder_glob_free(g);
                        return CLI_ERROR;
                }
                if (!m)
                        status = CLI_DENY;
                if (c->json) {
                        json_array_append_new(results, json_pack("{s:o,s:b}", "path",
                                                                 warder_json_bytes(argv[k], len),
                                                                 "match", m > 0));
                } else {
                        fputs(m ? "match: " : "no match: ", stdout);
                        cli_write_safe(stdout, argv[k], len);
                        fputc('\n', stdout);
                }
        }
        warder_glob_free(g);
        if (c->json) {
                int prc = cli_json_print(json_pack(
                    "{s:o,s:o}", "pattern", warder_json_bytes(pattern, plen), "results", results));
                if (prc)
                        return prc;
        }
        return status;
}
