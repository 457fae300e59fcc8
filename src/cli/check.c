/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void check_help(const char *name)
{
        printf("Usage: warder %s [--rules FILE | --preset NAME] [--root DIR] [--home DIR]\n"
               "       %*s [--real PATH] [--json] [--] OP TARGET\n"
               "\n"
               "Decide whether operation OP (read, write, edit, ls, glob, grep, execute) may\n"
               "touch TARGET, without touching anything. A relative TARGET is taken from the\n"
               "root. --real gives the real form of TARGET (symlinks resolved) to decide as\n"
               "well (semantics §3.3: the stricter form wins). For execute, TARGET is a command\n"
               "line, inspected as in semantics §5 on the literal form of its paths; unquoted\n"
               "globs and unknown variables count as undeterminable ($HOME is declared).\n"
               "\n"
               "Exit status: 0 allow, 1 deny, 3 ask, 2 usage or ruleset error.\n",
               name, (int)strlen(name), "");
}

struct check_args {
        const char *real;
        enum warder_op op;
        const char *target;
};

static int parse(const char *name, int argc, char **argv, struct check_args *a)
{
        int i = 1;
        for (; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--") == 0) {
                        i++;
                        break;
                }
                if (cli_is_help(arg)) {
                        check_help(name);
                        return -1;
                }
                if (strcmp(arg, "--real") == 0) {
                        if (++i >= argc)
                                return cli_usage(name, "option '--real' needs a value");
                        a->real = argv[i];
                } else if (strncmp(arg, "--real=", 7) == 0) {
                        a->real = arg + 7;
                } else if (arg[0] == '-' && arg[1] == '-') {
                        return cli_usage(name, "unknown option '%s'", arg);
                } else {
                        break;
                }
        }
        if (argc - i != 2)
                return cli_usage(name, "expected OP and TARGET");
        if (warder_op_parse(argv[i], &a->op))
                return cli_usage(
                    name, "unknown operation '%s' (read, write, edit, ls, glob, grep, execute)",
                    argv[i]);
        a->target = argv[i + 1];
        if (a->op == WARDER_OP_EXECUTE && a->real)
                return cli_usage(name, "--real does not apply to execute");
        return 0;
}

/* Decides as `warder check` does; fills *d. Prints and returns an exit code on failure. */
static int decide(const char *name, const warder_ruleset *rs, const char *home,
                  const struct check_args *a, struct warder_decision *d)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int rc;
        if (a->op == WARDER_OP_EXECUTE) {
                char *home_var = NULL;
                if (home && asprintf(&home_var, "HOME=%s", home) < 0)
                        home_var = NULL;
                const char *env[] = {home_var, NULL};
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = home_var ? env : NULL;
                rc = warder_ruleset_check_command(rs, a->target, strlen(a->target), &ctx, d, &err);
                free(home_var);
        } else {
                rc = warder_ruleset_check(rs, a->op, a->target, a->real, d, &err);
        }
        if (rc) {
                cli_error(name, "%s", err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                return rc == WARDER_EINVAL ? CLI_USAGE : CLI_ERROR;
        }
        return 0;
}

int cli_cmd_check(int argc, char **argv, struct cli_common *c)
{
        struct check_args a = {0};
        int rc = parse("check", argc, argv, &a);
        if (rc)
                return rc < 0 ? CLI_OK : rc;
        char *root = NULL, *home = NULL;
        if ((rc = cli_common_dirs(c, &root, &home)))
                return rc;
        warder_ruleset *rs = NULL;
        struct warder_decision d = WARDER_DECISION_INIT;
        if (!(rc = cli_load_ruleset(c, root, home, &rs)) &&
            !(rc = decide("check", rs, home, &a, &d))) {
                if (c->json) {
                        fputs("{\"target\":", stdout);
                        cli_write_json_string(stdout, a.target, strlen(a.target));
                        fputs(",\"decision\":", stdout);
                        cli_json_decision(stdout, &d);
                        fputs("}\n", stdout);
                } else {
                        cli_print_decision(stdout, a.target, &d);
                }
                rc = cli_action_exit(d.action);
        }
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        free(root);
        free(home);
        return rc;
}

int cli_cmd_explain(int argc, char **argv, struct cli_common *c)
{
        (void)argc;
        (void)c;
        cli_error(argv[0], "not available in this build yet");
        return CLI_ERROR;
}
