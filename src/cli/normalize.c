/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(void)
{
        printf("Usage: warder normalize [--root DIR] [--home DIR] [--cwd DIR] [--] PATH...\n"
               "\n"
               "Print the literal form (semantics §3.1) of each PATH, one per line: relative\n"
               "paths are joined to --cwd (default: the root), `~` expands to the home\n"
               "directory, runs of `/` collapse, `.` vanishes, `..` pops lexically and stops at\n"
               "`/`, a trailing `/` is dropped.\n"
               "\n"
               "Options:\n"
               "  --root DIR   root directory (default: the current directory)\n"
               "  --home DIR   home directory for `~` (default: $HOME)\n"
               "  --cwd DIR    current directory for relative paths (default: the root)\n"
               "  --json       print a JSON array of strings\n"
               "\n"
               "Exit status: 0 on success, 2 on a usage error or an invalid path.\n"
               "\n" CLI_SECTIONS_NOTE);
}

int cli_cmd_normalize(int argc, char **argv, struct cli_common *c)
{
        const char *cwd = NULL;
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
                if (strcmp(a, "--cwd") == 0) {
                        if (++i >= argc)
                                return cli_usage("normalize", "option '--cwd' needs a value");
                        cwd = argv[i];
                } else if (strncmp(a, "--cwd=", 6) == 0) {
                        cwd = a + 6;
                } else if (a[0] == '-' && a[1] != '\0') {
                        return cli_usage("normalize", "unknown option '%s'", a);
                } else {
                        break;
                }
        }
        if (i >= argc)
                return cli_usage("normalize", "no PATH given");
        char *root = NULL, *home = NULL;
        int rc = cli_common_dirs(c, &root, &home);
        if (rc)
                return rc;
        char *ncwd = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        if (cwd && warder_path_normalize(&ncwd, NULL, root, home, NULL, cwd, strlen(cwd), &err)) {
                cli_error("normalize", "--cwd: %s", err.message);
                rc = CLI_USAGE;
        }
        json_t *list = c->json ? json_array() : NULL;
        for (int k = i; !rc && k < argc; k++) {
                char *out = NULL;
                size_t len = 0;
                if (warder_path_normalize(&out, &len, root, home, ncwd, argv[k], strlen(argv[k]),
                                          &err)) {
                        cli_error("normalize", "'%s': %s", argv[k], err.message);
                        rc = CLI_USAGE;
                        break;
                }
                if (c->json) {
                        json_array_append_new(list, warder_json_bytes(out, len));
                } else {
                        cli_write_safe(stdout, out, len);
                        fputc('\n', stdout);
                }
                warder_free(out);
        }
        if (!rc && c->json)
                rc = cli_json_print(list);
        else
                json_decref(list);
        warder_error_clear(&err);
        warder_free(ncwd);
        free(root);
        free(home);
        return rc;
}
