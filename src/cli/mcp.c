/* SPDX-License-Identifier: MIT */
/* warder mcp: a guarded filesystem and shell MCP server on stdio (docs/mcp.md). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mcp/mcp.h"

static void mcp_help(void)
{
        printf("Usage: warder mcp [--rules FILE | --preset NAME] [--root DIR]... [--home DIR]\n"
               "                  [--audit FILE] [--no-execute] [--timeout S]\n"
               "                  [--landlock required|best-effort|off] [--mask-denied]\n"
               "                  [--elicitation-timeout S] [--max-line BYTES]\n"
               "                  [--max-pending N] [--as-user USER|UID[:GID[:GROUPS]]]\n"
               "                  [DIR...]\n"
               "\n"
               "Serve the Model Context Protocol on stdin/stdout: a drop-in for the reference\n"
               "filesystem server (@modelcontextprotocol/server-filesystem) whose every tool\n"
               "call is decided by warder's rules. The allowed directories are every --root (it\n"
               "may be repeated) and the DIR operands, in the order given (default: the current\n"
               "directory); relative paths in tool calls are\n"
               "taken from the first one, and nothing outside them is reached. Tools:\n"
               "read_text_file, read_multiple_files, write_file, edit_file, list_directory,\n"
               "directory_tree, search_files, list_allowed_directories, grep, and execute\n"
               "(unless --no-execute, or the rules deny every command). A call the rules ask\n"
               "about is put to the user through MCP elicitation when the client supports it;\n"
               "otherwise it fails with \"approval required\". The client's own roots are never\n"
               "used: only these directories are served. Diagnostics go to stderr. See\n"
               "docs/mcp.md.\n"
               "\n"
               "  --no-execute       no execute tool (the backend cannot run commands)\n"
               "  --timeout S        default deadline of a command (default 60)\n"
               "  --landlock MODE    confine commands with Landlock (default off)\n"
               "  --mask-denied      hide files denied for read from commands\n"
               "  --elicitation-timeout S  how long to wait for the user's answer before it\n"
               "                     counts as a decline (default 300)\n"
               "  --max-line BYTES   longest message line (default 16777216)\n"
               "  --max-pending N    tool calls running at once (default 64)\n"
               "\n"
               "Exit status: 0 at end of input, 2 usage or ruleset error, 4 other errors.\n");
}

struct mcp_opts {
        struct warder_local_options lo;
        bool mask;
        uint32_t elicitation_ms;
        unsigned long long max_line, max_pending;
        const char *dirs[WARDER_SESSION_MAX_ROOTS];
        size_t ndirs;
};

static int parse(int argc, char **argv, struct mcp_opts *o)
{
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i];
                if (cli_is_help(arg)) {
                        mcp_help();
                        return -1;
                }
                if (strcmp(arg, "--no-execute") == 0) {
                        o->lo.exec = false;
                        continue;
                }
                if (strcmp(arg, "--mask-denied") == 0) {
                        o->mask = true;
                        continue;
                }
                if (strcmp(arg, "--root") == 0) {
                        /* --root again: one more directory, in the order given */
                        if (i + 1 >= argc)
                                return cli_usage("mcp", "option '--root' needs a value");
                        if (o->ndirs == WARDER_SESSION_MAX_ROOTS)
                                return cli_usage("mcp", "at most %d directories",
                                                 WARDER_SESSION_MAX_ROOTS);
                        o->dirs[o->ndirs++] = argv[++i];
                        continue;
                }
                if (strcmp(arg, "--") == 0 || arg[0] != '-') {
                        bool rest = strcmp(arg, "--") == 0;
                        for (int k = rest ? i + 1 : i; k < (rest ? argc : i + 1); k++) {
                                if (o->ndirs == WARDER_SESSION_MAX_ROOTS)
                                        return cli_usage("mcp", "at most %d directories",
                                                         WARDER_SESSION_MAX_ROOTS);
                                o->dirs[o->ndirs++] = argv[k];
                        }
                        if (rest)
                                break;
                        continue;
                }
                const char *opts[] = {"--timeout", "--landlock", "--elicitation-timeout",
                                      "--max-line", "--max-pending"};
                bool known = false;
                for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
                        known = known || strcmp(arg, opts[k]) == 0;
                if (!known)
                        return cli_usage("mcp", "unknown option '%s'", arg);
                if (i + 1 >= argc)
                        return cli_usage("mcp", "option '%s' needs a value", arg);
                const char *v = argv[++i];
                if (strcmp(arg, "--timeout") == 0) {
                        if (!cli_parse_seconds_ms(v, 86400, &o->lo.exec_timeout_ms))
                                return cli_usage("mcp", "--timeout needs seconds (0 < S <= 86400)");
                } else if (strcmp(arg, "--elicitation-timeout") == 0) {
                        if (!cli_parse_seconds_ms(v, 86400, &o->elicitation_ms))
                                return cli_usage("mcp", "--elicitation-timeout needs seconds "
                                                        "(0 < S <= 86400)");
                } else if (strcmp(arg, "--landlock") == 0) {
                        if (strcmp(v, "required") == 0)
                                o->lo.landlock = WARDER_LANDLOCK_REQUIRED;
                        else if (strcmp(v, "best-effort") == 0)
                                o->lo.landlock = WARDER_LANDLOCK_BEST_EFFORT;
                        else if (strcmp(v, "off") == 0)
                                o->lo.landlock = WARDER_LANDLOCK_OFF;
                        else
                                return cli_usage("mcp",
                                                 "--landlock takes required, best-effort or off");
                } else if (strcmp(arg, "--max-line") == 0) {
                        if (!cli_parse_u64(v, &o->max_line) || o->max_line < 1024 ||
                            o->max_line > ((unsigned long long)1 << 31))
                                return cli_usage("mcp", "--max-line needs bytes from 1024 to "
                                                        "2147483648");
                } else {
                        if (!cli_parse_u64(v, &o->max_pending) || o->max_pending < 1 ||
                            o->max_pending > 4096)
                                return cli_usage("mcp", "--max-pending needs 1 to 4096");
                }
        }
        return 0;
}

/* The roots: --root (or the first DIR, or the current directory) first, then the DIRs, each
 * made absolute. */
static int roots_of(const struct cli_common *c, const struct mcp_opts *o, char **roots, size_t *n,
                    char **home)
{
        struct cli_common first = *c;
        size_t k = 0;
        if (!first.root && o->ndirs)
                first.root = o->dirs[k++];
        char *root = NULL;
        int rc = cli_common_dirs(&first, &root, home);
        if (rc)
                return rc;
        roots[(*n)++] = root;
        char *cwd = getcwd(NULL, 0);
        for (; k < o->ndirs; k++) {
                const char *d = o->dirs[k];
                char *abs = NULL, *norm = NULL, *r = NULL;
                if (d[0] == '/')
                        abs = strdup(d);
                else if (!cwd || asprintf(&abs, "%s/%s", cwd, d) < 0)
                        abs = NULL;
                if (abs && warder_path_normalize(&norm, NULL, "/", NULL, NULL, abs, strlen(abs),
                                                 NULL) == 0)
                        r = strdup(norm);
                warder_free(norm);
                free(abs);
                if (!r) {
                        free(cwd);
                        cli_error("mcp", "cannot use the directory '%s'", d);
                        return CLI_ERROR;
                }
                roots[(*n)++] = r;
        }
        free(cwd);
        return 0;
}

int cli_cmd_mcp(int argc, char **argv, struct cli_common *c)
{
        struct mcp_opts o = {.lo = WARDER_LOCAL_OPTIONS_INIT};
        o.lo.exec = true;
        int rc = parse(argc, argv, &o);
        if (rc)
                return rc < 0 ? CLI_OK : rc;
        if ((rc = cli_as_user(c, "mcp", &o.lo)))
                return rc;
        if (c->interactive || c->approve_token || c->json)
                return cli_usage("mcp", "--interactive, --approve-token and --json do not apply: "
                                        "asks go to the client's user through elicitation");
        char *roots[WARDER_SESSION_MAX_ROOTS + 1] = {NULL};
        size_t nroots = 0;
        char *home = NULL;
        warder_ruleset *rs = NULL;
        FILE *audit = NULL;
        struct warder_session_set *set = NULL;
        if ((rc = roots_of(c, &o, roots, &nroots, &home)))
                goto out;
        if ((rc = cli_load_ruleset(c, roots[0], home, &rs)))
                goto out;
        if (c->audit && !(audit = fopen(c->audit, "ae"))) {
                cli_error("mcp", "cannot open audit file '%s': %s", c->audit, strerror(errno));
                rc = CLI_ERROR;
                goto out;
        }
        struct warder_session_config cfg = {
            .source = {.kind = c->rules ? WARDER_SESSION_FILE : WARDER_SESSION_PRESET,
                       .value = c->rules ? c->rules : c->preset},
            .ruleset = rs,
            .home = home,
            .local = &o.lo,
            .mask_denied = o.mask,
            .audit = audit,
            .approve_ex = warder_mcp_approve,
        };
        struct warder_error err = WARDER_ERROR_INIT;
        rc = warder_session_set_new(&set, &cfg, (const char *const *)roots, nroots, &err);
        if (rc) {
                cli_error("mcp", "%s", err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                rc = CLI_ERROR;
                goto out;
        }
        /* A client that goes away is end of output, not a signal that kills us. */
        signal(SIGPIPE, SIG_IGN);
        struct warder_mcp_config mc = {
            .sessions = set,
            .in_fd = STDIN_FILENO,
            .out_fd = STDOUT_FILENO,
            .max_line = (size_t)o.max_line,
            .max_pending = (size_t)o.max_pending,
            .no_execute = !o.lo.exec,
            .elicitation_timeout_ms = o.elicitation_ms,
        };
        if (warder_mcp_run(&mc)) {
                cli_error("mcp", "cannot read stdin: %s", strerror(errno));
                rc = CLI_ERROR;
        }
out:
        warder_session_set_free(set);
        warder_ruleset_free(rs);
        if (audit)
                fclose(audit);
        for (size_t i = 0; i < nroots; i++)
                free(roots[i]);
        free(home);
        return rc;
}
