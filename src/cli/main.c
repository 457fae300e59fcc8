/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct subcommand {
        const char *name;
        int (*run)(int argc, char **argv, struct cli_common *c);
        const char *summary;
};

static const struct subcommand subcommands[] = {
    {"match", cli_cmd_match, "test paths against a glob pattern"},
    {"normalize", cli_cmd_normalize, "print the literal form of paths"},
    {"check", cli_cmd_check, "decide one operation on one target"},
    {"explain", cli_cmd_explain, "explain a decision rule by rule"},
    {"lint", cli_cmd_lint, "report errors and warnings in ruleset files"},
    {"test", cli_cmd_test, "run the inline tests of ruleset files"},
    {"read", cli_cmd_op, "read a file through the guard"},
    {"write", cli_cmd_op, "write stdin to a file through the guard"},
    {"edit", cli_cmd_op, "replace text in a file through the guard"},
    {"ls", cli_cmd_op, "list a directory through the guard"},
    {"glob", cli_cmd_op, "find paths matching a pattern through the guard"},
    {"grep", cli_cmd_op, "search file contents through the guard"},
    {"exec", cli_cmd_exec, "inspect and run a shell command through the guard"},
    {"serve", cli_cmd_serve, "serve one guarded session over JSON-RPC on stdio"},
    {"mcp", cli_cmd_mcp, "serve guarded file and shell tools over MCP on stdio"},
    {"hook", cli_cmd_hook, "decide the tool calls of Claude Code or Gemini CLI"},
    {"import", cli_cmd_import, "translate Claude Code permission rules into a ruleset"},
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: warder [OPTIONS] COMMAND [ARGS...]\n"
                   "\n"
                   "Decide and perform the file and shell operations of an AI agent's tools\n"
                   "against permission rules (allow, deny, ask).\n"
                   "\n"
                   "Commands:\n");
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
                fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
        fprintf(f, "\n"
                   "Options (each given once, before the command; after it and before its first\n"
                   "operand only for match, normalize, check, explain, lint, test, and --json):\n"
                   "  --rules FILE     load the ruleset from FILE\n"
                   "  --preset NAME    use an embedded preset (default: default)\n"
                   "  --root DIR       root of relative targets and patterns (default: .)\n"
                   "  --home DIR       home directory for `~` (default: $HOME)\n"
                   "  --json           machine-readable output\n"
                   "  --audit FILE     append one JSON line per decision to FILE\n"
                   "  --interactive    ask on the terminal when a rule says ask\n"
                   "  --approve-token T  approve the one request an earlier ask issued T for\n"
                   "  --as-user USER|UID[:GID[:GROUP,...]]\n"
                   "                   file operations (and commands) with that user's\n"
                   "                   credentials, so the kernel's permissions apply too (root\n"
                   "                   only; see docs/cli.md, semantics §6.6)\n"
                   "  -h, --help       show help (for a command: warder COMMAND --help)\n"
                   "  --version        show the version\n"
                   "\n"
                   "Exit status: 0 allowed/ok, 1 denied (or no match), 2 usage or ruleset error,\n"
                   "3 approval required, 4 other errors.\n"
                   "\n"
                   "Decisions follow warder's semantics, docs/semantics.md (installed in\n"
                   "share/doc/warder/); help texts cite its sections by number, such as §3.2.\n");
}

static int run(int argc, char **argv)
{
        struct cli_common common = {0};
        int first = 1;
        if (cli_common_parse(argc, argv, &common, &first))
                return CLI_USAGE;
        if (first >= argc) {
                usage(stderr);
                return CLI_USAGE;
        }
        const char *name = argv[first];
        if (cli_is_help(name)) {
                usage(stdout);
                return CLI_OK;
        }
        if (strcmp(name, "--version") == 0) {
                printf("warder %s\n", warder_version());
                return CLI_OK;
        }
        for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
                if (strcmp(name, subcommands[i].name) != 0)
                        continue;
                char **args = NULL;
                int nargs = 0;
                int rc = cli_command_args(argc - first, argv + first, &common, &nargs, &args);
                if (rc)
                        return rc;
                /* What the parse found decides (a `--json` among the operands is one). */
                cli_json_mode = common.json;
                /* --as-user changes who acts: never silently ignored by a command that acts
                 * on nothing (§6.6). */
                static const char *const acting[] = {"read", "write", "edit",  "ls", "glob",
                                                     "grep", "exec",  "serve", "mcp"};
                bool acts = false;
                for (size_t k = 0; k < sizeof(acting) / sizeof(acting[0]); k++)
                        acts = acts || strcmp(name, acting[k]) == 0;
                if (common.as_user && !acts) {
                        free(args);
                        return cli_usage(name,
                                         "--as-user does not apply: %s reads and writes no "
                                         "file as the agent",
                                         name);
                }
                rc = subcommands[i].run(nargs, args, &common);
                free(args);
                return rc;
        }
        if (name[0] == '-')
                return cli_usage("", "unknown option '%s'", name);
        return cli_usage("", "unknown command '%s'", name);
}

int main(int argc, char **argv)
{
        /* --json anywhere before `--`: every exit path answers in JSON, usage errors too */
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
                if (strcmp(argv[i], "--json") == 0)
                        cli_json_mode = true;
        int rc = run(argc, argv);
        cli_json_fail(rc);
        return rc;
}
