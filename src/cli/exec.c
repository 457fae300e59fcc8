/* SPDX-License-Identifier: MIT */
/* warder exec: decide a command line (semantics §5), then run it on the local backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void exec_help(void)
{
        printf(
            "Usage: warder [--rules FILE | --preset NAME] [--root DIR] [--home DIR] [--json]\n"
            "              [--audit FILE] [--interactive | --approve-token T]\n"
            "              [--as-user USER|UID[:GID[:GROUPS]]] exec\n"
            "              [--timeout S] [--cwd DIR]\n"
            "              [--landlock required|best-effort|off] [--mask-denied]\n"
            "              [--env NAME=VALUE]... [--pass-env NAME]... -- COMMAND\n"
            "\n"
            "Inspect COMMAND as a shell would read it (semantics §5) and decide it; if allowed,\n"
            "run it with /bin/sh -c in --cwd (default: the root) inside the root, in its own\n"
            "process group, with a fresh environment: PATH=/usr/local/bin:/usr/bin:/bin,\n"
            "HOME=<home>, LANG=C.UTF-8, plus --env and --pass-env (nothing else of this\n"
            "process's environment). --timeout kills the whole process group (default 60 s).\n"
            "--landlock confines the command with the kernel's Landlock LSM (writes only\n"
            "beneath the root); --mask-denied hides every file the ruleset denies for read\n"
            "and makes every file it denies for write read-only, in the command's own mount\n"
            "namespace (as root it needs --landlock required). The command and everything it\n"
            "starts run in a PID namespace of their own and die with it.\n"
            "\n"
            "Exit status: the command's own (128+N when killed by signal N, 124 when timed\n"
            "out); before it runs: 1 denied, 3 approval required, 2 usage error, 4 other.\n"
            "These can meet (a command may exit 3): with --json, warder exits 0 once the\n"
            "command ran and the JSON says how it ended (exit_status, signal, timed_out);\n"
            "1, 2, 3 and 4 then always mean it did not run.\n"
            "\n" CLI_SECTIONS_NOTE);
}

struct exec_args {
        double timeout;
        const char *cwd;
        enum warder_landlock_mode landlock;
        bool mask;
        const char **env;
        size_t nenv;
        const char *command;
};

static int add_env(struct exec_args *a, const char *entry)
{
        const char **p = realloc(a->env, (a->nenv + 2) * sizeof(*p));
        if (!p)
                return -1;
        a->env = p;
        a->env[a->nenv++] = entry;
        a->env[a->nenv] = NULL;
        return 0;
}

static int parse(int argc, char **argv, struct exec_args *a, char ***owned, size_t *nowned)
{
        int i = 1;
        for (; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--") == 0) {
                        i++;
                        break;
                }
                if (cli_is_help(arg)) {
                        exec_help();
                        return -1;
                }
                if (arg[0] != '-')
                        break;
                if (strcmp(arg, "--mask-denied") == 0) {
                        a->mask = true;
                        continue;
                }
                /* `--opt VALUE` or `--opt=VALUE` */
                char name[16];
                const char *v = NULL, *eq = strchr(arg, '=');
                if (eq && (size_t)(eq - arg) < sizeof(name)) {
                        memcpy(name, arg, (size_t)(eq - arg));
                        name[eq - arg] = '\0';
                        arg = name;
                        v = eq + 1;
                } else if (i + 1 >= argc) {
                        return cli_usage("exec", "option '%s' needs a value", arg);
                } else {
                        v = argv[++i];
                }
                if (strcmp(arg, "--timeout") == 0) {
                        char *end = NULL;
                        errno = 0;
                        a->timeout = strtod(v, &end);
                        if (errno || *end || !(a->timeout > 0) || a->timeout > 86400)
                                return cli_usage("exec",
                                                 "--timeout needs seconds (0 < S <= 86400)");
                } else if (strcmp(arg, "--cwd") == 0) {
                        a->cwd = v;
                } else if (strcmp(arg, "--landlock") == 0) {
                        if (strcmp(v, "required") == 0)
                                a->landlock = WARDER_LANDLOCK_REQUIRED;
                        else if (strcmp(v, "best-effort") == 0)
                                a->landlock = WARDER_LANDLOCK_BEST_EFFORT;
                        else if (strcmp(v, "off") == 0)
                                a->landlock = WARDER_LANDLOCK_OFF;
                        else
                                return cli_usage("exec",
                                                 "--landlock takes required, best-effort or off");
                } else if (strcmp(arg, "--env") == 0) {
                        if (!strchr(v, '=') || v[0] == '=')
                                return cli_usage("exec", "--env needs NAME=VALUE, not '%s'", v);
                        if (add_env(a, v))
                                return CLI_ERROR;
                } else if (strcmp(arg, "--pass-env") == 0) {
                        const char *value = getenv(v);
                        if (!value)
                                continue;
                        char *entry = NULL;
                        char **o = realloc(*owned, (*nowned + 1) * sizeof(*o));
                        if (!o || asprintf(&entry, "%s=%s", v, value) < 0) {
                                if (o)
                                        *owned = o;
                                return CLI_ERROR;
                        }
                        *owned = o;
                        (*owned)[(*nowned)++] = entry;
                        if (add_env(a, entry))
                                return CLI_ERROR;
                } else {
                        return cli_usage("exec", "unknown option '%s'", arg);
                }
        }
        if (argc - i != 1)
                return cli_usage("exec", "expected one COMMAND after the options (quote it)");
        a->command = argv[i];
        /* §6.5: a command running as root can get under the masks by reading the disk device
         * itself; only Landlock keeps it from the device. The library takes the mount
         * capabilities away, but this is refused rather than run with a false promise. */
        if (a->mask && geteuid() == 0 && a->landlock != WARDER_LANDLOCK_REQUIRED)
                return cli_usage("exec",
                                 "--mask-denied as root needs --landlock required (a root command "
                                 "could read a masked file from the disk device itself)");
        return 0;
}

struct stream_state {
        bool live;
};

static void stream_out(void *ud, int stream, const char *data, size_t len)
{
        struct stream_state *st = ud;
        if (!st->live)
                return;
        FILE *f = stream == 2 ? stderr : stdout;
        fwrite(data, 1, len, f);
        fflush(f);
}

int cli_cmd_exec(int argc, char **argv, struct cli_common *c)
{
        struct exec_args a = {.timeout = 60, .landlock = WARDER_LANDLOCK_OFF};
        char **owned = NULL;
        size_t nowned = 0;
        int rc = parse(argc, argv, &a, &owned, &nowned);
        struct cli_session s = {.c = c};
        char *home_var = NULL;
        if (rc)
                goto out;
        rc = cli_common_dirs(c, &s.root, &s.home);
        if (rc)
                goto out;
        if (add_env(&a, "PATH=/usr/local/bin:/usr/bin:/bin") || add_env(&a, "LANG=C.UTF-8") ||
            (s.home && (asprintf(&home_var, "HOME=%s", s.home) < 0 || add_env(&a, home_var)))) {
                rc = CLI_ERROR;
                goto out;
        }
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        lopts.exec = true;
        lopts.exec_timeout_ms = (uint32_t)(a.timeout * 1000);
        lopts.landlock = a.landlock;
        rc = cli_as_user(c, "exec", &lopts);
        if (rc)
                goto out;
        rc = cli_session_open(&s, "exec", &lopts, a.mask, a.env);
        if (rc)
                goto out;
        struct stream_state st = {.live = !c->json};
        struct warder_session_request req = {.op = WARDER_OP_EXECUTE};
        req.target = a.command;
        req.target_len = strlen(a.command);
        req.timeout_ms = lopts.exec_timeout_ms;
        req.stream = stream_out;
        req.stream_ud = &st;
        char *cwd_abs = NULL;
        if (a.cwd) {
                struct warder_error perr = WARDER_ERROR_INIT;
                if (warder_path_normalize(&cwd_abs, NULL, s.root, s.home, NULL, a.cwd,
                                          strlen(a.cwd), &perr)) {
                        rc = cli_usage("exec", "--cwd: %s", perr.message);
                        warder_error_clear(&perr);
                        goto out;
                }
                req.cwd = cwd_abs;
        }
        struct warder_session_result res;
        struct warder_error err = WARDER_ERROR_INIT;
        rc = cli_session_run(&s, &req, &res, &err);
        warder_free(cwd_abs);
        if (rc) {
                rc = cli_report_failure(&s, "exec", a.command, rc, &err, &res);
                warder_error_clear(&err);
                warder_session_result_free(&res);
                goto out;
        }
        const struct warder_exec_result *r = &res.exec;
        if (a.landlock == WARDER_LANDLOCK_BEST_EFFORT && !r->landlock_applied)
                fprintf(stderr, "warder exec: note: Landlock is not available here; the command "
                                "ran without it\n");
        if (c->json) {
                /* The command ran: warder's own status is 0, the fields say how it ended. */
                json_t *o = cli_json_ok("exec", a.command);
                if (o && warder_json_put_exec(o, r)) {
                        json_decref(o);
                        o = NULL;
                }
                rc = cli_json_print(o);
        } else {
                rc = r->timed_out ? 124 : r->signal ? 128 + r->signal : r->exit_status;
        }
        warder_session_result_free(&res);
out:
        cli_session_close(&s);
        free(home_var);
        for (size_t k = 0; k < nowned; k++)
                free(owned[k]);
        free(owned);
        free(a.env);
        return rc < 0 ? CLI_OK : rc;
}
