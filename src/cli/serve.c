/* SPDX-License-Identifier: MIT */
/* warder serve: one guarded session over JSON-RPC 2.0 on stdin/stdout (docs/serve.md). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "serve/serve.h"

static void serve_help(void)
{
        printf("Usage: warder serve [--rules FILE | --preset NAME] [--root DIR] [--home DIR]\n"
               "                    [--audit FILE] [--no-execute] [--timeout S]\n"
               "                    [--landlock required|best-effort|off] [--mask-denied]\n"
               "                    [--approval-ttl S] [--max-line BYTES] [--max-pending N]\n"
               "                    [--as-user USER|UID[:GID[:GROUPS]]]\n"
               "\n"
               "Hold one guarded session (the ruleset, the guard and the local backend confined\n"
               "to --root) and answer JSON-RPC 2.0 requests, one per line, on stdin; answers go\n"
               "to stdout, diagnostics to stderr. Methods: session.info, check, explain, read,\n"
               "write, edit, ls, glob, grep, execute (unless --no-execute), approve,\n"
               "ruleset.reload, cancel. A request the rules answer with ask fails with code\n"
               "-32002 and an approval token bound to that exact request; send it again with\n"
               "\"approval\": TOKEN (or call approve) once the user agreed. See docs/serve.md.\n"
               "\n"
               "  --no-execute       no execute method (the backend cannot run commands)\n"
               "  --timeout S        default deadline of a command (default 60)\n"
               "  --landlock MODE    confine commands with Landlock (default off)\n"
               "  --mask-denied      hide files denied for read from commands\n"
               "  --approval-ttl S   how long an approval token lives (default 300)\n"
               "  --max-line BYTES   longest request line (default 16777216)\n"
               "  --max-pending N    requests in flight at once (default 64)\n"
               "\n"
               "Exit status: 0 at end of input, 2 usage or ruleset error, 4 other errors.\n");
}

int cli_cmd_serve(int argc, char **argv, struct cli_common *c)
{
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.exec = true;
        bool mask = false;
        uint32_t ttl = 0;
        unsigned long long max_line = 0, max_pending = 0;
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i];
                if (cli_is_help(arg)) {
                        serve_help();
                        return CLI_OK;
                }
                if (strcmp(arg, "--no-execute") == 0) {
                        lo.exec = false;
                        continue;
                }
                if (strcmp(arg, "--mask-denied") == 0) {
                        mask = true;
                        continue;
                }
                const char *opts[] = {"--timeout", "--landlock", "--approval-ttl", "--max-line",
                                      "--max-pending"};
                bool known = false;
                for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
                        known = known || strcmp(arg, opts[k]) == 0;
                if (!known)
                        return cli_usage("serve", "unknown %s '%s'",
                                         arg[0] == '-' ? "option" : "argument", arg);
                if (i + 1 >= argc)
                        return cli_usage("serve", "option '%s' needs a value", arg);
                const char *v = argv[++i];
                if (strcmp(arg, "--timeout") == 0) {
                        if (!cli_parse_seconds_ms(v, 86400, &lo.exec_timeout_ms))
                                return cli_usage("serve",
                                                 "--timeout needs seconds (0 < S <= 86400)");
                } else if (strcmp(arg, "--approval-ttl") == 0) {
                        if (!cli_parse_seconds_ms(v, 86400, &ttl))
                                return cli_usage("serve",
                                                 "--approval-ttl needs seconds (0 < S <= 86400)");
                } else if (strcmp(arg, "--landlock") == 0) {
                        if (strcmp(v, "required") == 0)
                                lo.landlock = WARDER_LANDLOCK_REQUIRED;
                        else if (strcmp(v, "best-effort") == 0)
                                lo.landlock = WARDER_LANDLOCK_BEST_EFFORT;
                        else if (strcmp(v, "off") == 0)
                                lo.landlock = WARDER_LANDLOCK_OFF;
                        else
                                return cli_usage("serve",
                                                 "--landlock takes required, best-effort or off");
                } else if (strcmp(arg, "--max-line") == 0) {
                        if (!cli_parse_u64(v, &max_line) || max_line < 1024 ||
                            max_line > ((unsigned long long)1 << 31))
                                return cli_usage("serve", "--max-line needs bytes from 1024 to "
                                                          "2147483648");
                } else {
                        if (!cli_parse_u64(v, &max_pending) || max_pending < 1 ||
                            max_pending > 4096)
                                return cli_usage("serve", "--max-pending needs 1 to 4096");
                }
        }
        int urc = cli_as_user(c, "serve", &lo);
        if (urc)
                return urc;
        if (c->interactive)
                return cli_usage("serve", "--interactive does not apply: asks are answered with "
                                          "approval tokens");
        char *root = NULL, *home = NULL;
        int rc = cli_common_dirs(c, &root, &home);
        if (rc)
                return rc;
        warder_ruleset *rs = NULL;
        FILE *audit = NULL;
        if ((rc = cli_load_ruleset(c, root, home, &rs))) {
                free(root);
                free(home);
                return rc;
        }
        if (c->audit && !(audit = fopen(c->audit, "ae"))) {
                cli_error("serve", "cannot open audit file '%s': %s", c->audit, strerror(errno));
                warder_ruleset_free(rs);
                free(root);
                free(home);
                return CLI_ERROR;
        }
        struct warder_session_config cfg = {
            .source = {.kind = c->rules ? WARDER_SESSION_FILE : WARDER_SESSION_PRESET,
                       .value = c->rules ? c->rules : c->preset},
            .ruleset = rs,
            .root = root,
            .home = home,
            .local = &lo,
            .mask_denied = mask,
            .audit = audit,
            .approval_ttl_ms = ttl,
        };
        struct warder_session *s = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        rc = warder_session_new(&s, &cfg, &err);
        warder_ruleset_free(rs);
        if (rc) {
                cli_error("serve", "%s", err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                rc = CLI_ERROR;
        } else {
                /* A peer that goes away is end of output, not a signal that kills us. */
                signal(SIGPIPE, SIG_IGN);
                struct warder_serve_config sc = {
                    .session = s,
                    .in_fd = STDIN_FILENO,
                    .out_fd = STDOUT_FILENO,
                    .max_line = (size_t)max_line,
                    .max_pending = (size_t)max_pending,
                };
                if (warder_serve_run(&sc)) {
                        cli_error("serve", "cannot read stdin: %s", strerror(errno));
                        rc = CLI_ERROR;
                }
        }
        warder_session_free(s);
        if (audit)
                fclose(audit);
        free(root);
        free(home);
        return rc;
}
