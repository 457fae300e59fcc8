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
               "root. Its real form (symlinks resolved, semantics §3.2) is decided as well and\n"
               "the stricter form wins (§3.3): it is resolved under the root, or given with\n"
               "--real; a target under the root whose real form cannot be resolved is at least\n"
               "ask; when the root does not exist, the real form is the literal form. For\n"
               "execute, TARGET is a command line, inspected as in semantics §5 exactly as\n"
               "`warder exec` would decide it: paths resolved and globs expanded under the\n"
               "root, with exec's environment (PATH, LANG, HOME) declared. Without a root to\n"
               "open, only literal forms are decided, and the output says so.\n"
               "\n"
               "Exit status: 0 allow, 1 deny, 3 ask, 2 usage or ruleset error.\n"
               "\n" CLI_SECTIONS_NOTE,
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

/* The environment `warder exec` gives a command (its declared variables, §5.5). */
static int exec_env(const char *home, char **home_var, const char *env[4])
{
        size_t n = 0;
        env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
        env[n++] = "LANG=C.UTF-8";
        *home_var = NULL;
        if (home && asprintf(home_var, "HOME=%s", home) < 0)
                return CLI_ERROR;
        if (*home_var)
                env[n++] = *home_var;
        env[n] = NULL;
        return 0;
}

/*
 * Decides a command line as `warder exec` would (semantics §5): through a guard over the local
 * backend rooted at the root, with exec's environment, so that real forms are resolved and
 * globs expanded on the tree. When the root cannot be opened (it does not exist) there is no
 * tree: the command is decided on literal forms (*literal_only is set).
 */
static int decide_execute(warder_ruleset *rs, const char *root, const char *home,
                          const char *command, struct warder_decision *d, bool *literal_only,
                          struct warder_error *err)
{
        char *home_var = NULL;
        const char *env[4];
        if (exec_env(home, &home_var, env))
                return WARDER_ENOMEM;
        warder_backend *local = NULL, *guard = NULL;
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        int rc = warder_local_new(&local, root, &lopts, NULL);
        *literal_only = rc != 0;
        if (rc) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = env;
                rc = warder_ruleset_check_command(d, rs, command, strlen(command), &ctx, err);
        } else {
                struct warder_guard_options gopts = WARDER_GUARD_OPTIONS_INIT;
                gopts.root = root;
                gopts.home = home;
                gopts.env = env;
                rc = warder_guard_new(&guard, local, rs, &gopts, err);
                if (rc)
                        warder_backend_free(local);
                else
                        rc = warder_guard_check(d, guard, WARDER_OP_EXECUTE, command,
                                                strlen(command), err);
                warder_backend_free(guard);
        }
        free(home_var);
        return rc;
}

/* Decides as `warder check` does; fills *d. Prints and returns an exit code on failure. */
static int decide(const char *name, warder_ruleset *rs, const char *root, const char *home,
                  const struct check_args *a, struct warder_decision *d, bool *literal_only)
{
        struct warder_error err = WARDER_ERROR_INIT;
        int rc;
        *literal_only = false;
        if (a->op == WARDER_OP_EXECUTE)
                rc = decide_execute(rs, root, home, a->target, d, literal_only, &err);
        else
                rc = warder_ruleset_check(d, rs, a->op, a->target, strlen(a->target), a->real,
                                          (a->real ? strlen(a->real) : 0), &err);
        if (rc) {
                cli_error(name, "%s", err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                return rc == WARDER_EINVAL ? CLI_USAGE : CLI_ERROR;
        }
        return 0;
}

/* For execute: which forms were decided (the text line and the JSON "forms" field). */
static void print_forms(bool literal_only, const char *root)
{
        if (!literal_only)
                return;
        fputs("  forms:   only literal forms were decided: the root '", stdout);
        cli_write_safe(stdout, root, strlen(root));
        fputs("' cannot be opened, so no symbolic link was resolved and no glob expanded\n",
              stdout);
}

static const char *forms_name(const struct check_args *a, bool literal_only)
{
        return a->op != WARDER_OP_EXECUTE ? NULL : literal_only ? "literal" : "literal and real";
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
        char *real = NULL, *why = NULL;
        int unresolved = 0;
        bool literal_only = false;
        if (a.op != WARDER_OP_EXECUTE && !a.real) {
                unresolved = cli_resolve_real(root, home, a.target, &real, &why);
                a.real = real;
        }
        if (!(rc = cli_load_ruleset(c, root, home, &rs)) &&
            !(rc = decide("check", rs, root, home, &a, &d, &literal_only))) {
                if (unresolved)
                        warder_session_unresolved(&d, why);
                if (c->json) {
                        json_t *v = json_pack("{s:o,s:o}", "target", warder_json_str(a.target),
                                              "decision", warder_json_decision(&d));
                        if (v && a.op == WARDER_OP_EXECUTE)
                                json_object_set_new(v, "forms",
                                                    json_string(forms_name(&a, literal_only)));
                        int prc = cli_json_print(v);
                        if (prc) {
                                rc = prc;
                                goto done;
                        }
                } else {
                        cli_print_decision(stdout, a.target, &d);
                        print_forms(literal_only, root);
                }
                rc = cli_action_exit(d.action);
        }
done:
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        free(real);
        free(why);
        free(root);
        free(home);
        return rc;
}

static void print_rule_line(const struct warder_rule_info *r, enum warder_form form)
{
        fputs("    ", stdout);
        cli_write_safe(stdout, r->id, strlen(r->id));
        printf("  %-5s '", warder_action_name(r->action));
        cli_write_safe(stdout, r->pattern, strlen(r->pattern));
        printf("'  on the %s form  at ",
               form == WARDER_FORM_BOTH ? "literal and real" : warder_form_name(form));
        cli_write_safe(stdout, r->file, strlen(r->file));
        printf(":%u:%u", r->line, r->column);
        if (r->reason) {
                fputs("  (", stdout);
                cli_write_safe(stdout, r->reason, strlen(r->reason));
                fputc(')', stdout);
        }
        fputc('\n', stdout);
}

static void print_explanation(const warder_ruleset *rs, const char *target,
                              const struct warder_explanation *ex)
{
        const struct warder_decision *d = &ex->decision;
        printf("%s ", warder_op_name(ex->op));
        cli_write_safe(stdout, target, strlen(target));
        fputc('\n', stdout);
        if (ex->op == WARDER_OP_EXECUTE) {
                fputs("  command:      ", stdout);
                cli_write_safe(stdout, ex->literal, strlen(ex->literal));
                fputs("\n  precedence:   strictest (execute always decides by strictness, "
                      "docs/semantics.md §5.2)\n",
                      stdout);
        } else {
                fputs("  literal form: ", stdout);
                cli_write_safe(stdout, ex->literal, strlen(ex->literal));
                fputs("\n  real form:    ", stdout);
                if (ex->real)
                        cli_write_safe(stdout, ex->real, strlen(ex->real));
                else
                        fputs("(same as the literal form)", stdout);
                printf("\n  precedence:   %s\n",
                       warder_ruleset_precedence(rs) == WARDER_STRICTEST
                           ? "strictest (the strictest matching rule wins)"
                           : "first-match (the first matching rule wins)");
        }
        size_t nrules = warder_ruleset_rule_count(rs, ex->op);
        printf("  %zu of %zu %s rule%s matched%s\n", ex->count, nrules, warder_op_name(ex->op),
               nrules == 1 ? "" : "s", ex->op == WARDER_OP_EXECUTE ? " the whole line" : "");
        for (size_t i = 0; i < ex->count; i++)
                print_rule_line(&ex->matches[i].rule, ex->matches[i].form);
        printf("  decision:     %s", warder_action_name(d->action));
        if (d->by_default) {
                printf(" (no rule decided: the %s default)\n",
                       warder_op_name(d->candidate ? d->candidate_op : d->op));
        } else if (d->rule_id) {
                fputs(" by rule ", stdout);
                cli_write_safe(stdout, d->rule_id, strlen(d->rule_id));
                if (ex->op != WARDER_OP_EXECUTE && ex->real && d->form != WARDER_FORM_BOTH)
                        printf(" on the %s form (the stricter of the two forms wins, "
                               "docs/semantics.md §3.3)",
                               warder_form_name(d->form));
                fputc('\n', stdout);
        } else {
                fputc('\n', stdout);
        }
        if (d->segment) {
                fputs("  segment:      ", stdout);
                cli_write_safe(stdout, d->segment, strlen(d->segment));
                fputc('\n', stdout);
        }
        if (d->candidate) {
                fputs("  path:         ", stdout);
                cli_write_safe(stdout, d->candidate, strlen(d->candidate));
                printf(" (decided for %s)\n", warder_op_name(d->candidate_op));
        }
        if (d->reason) {
                fputs("  reason:       ", stdout);
                cli_write_safe(stdout, d->reason, strlen(d->reason));
                fputc('\n', stdout);
        }
        if (d->note) {
                fputs("  note:         ", stdout);
                cli_write_safe(stdout, d->note, strlen(d->note));
                fputc('\n', stdout);
        }
}

int cli_cmd_explain(int argc, char **argv, struct cli_common *c)
{
        struct check_args a = {0};
        int rc = parse("explain", argc, argv, &a);
        if (rc)
                return rc < 0 ? CLI_OK : rc;
        char *root = NULL, *home = NULL, *real = NULL, *why = NULL;
        if ((rc = cli_common_dirs(c, &root, &home)))
                return rc;
        warder_ruleset *rs = NULL;
        struct warder_explanation *ex = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        bool literal_only = false;
        if ((rc = cli_load_ruleset(c, root, home, &rs)))
                goto out;
        int unresolved = 0;
        if (a.op != WARDER_OP_EXECUTE && !a.real) {
                unresolved = cli_resolve_real(root, home, a.target, &real, &why);
                a.real = real;
        }
        if (warder_ruleset_explain(&ex, rs, a.op, a.target, strlen(a.target), a.real,
                                   (a.real ? strlen(a.real) : 0), &err)) {
                cli_error("explain", "%s", err.message);
                rc = CLI_USAGE;
                goto out;
        }
        if (a.op == WARDER_OP_EXECUTE) {
                /* The explanation lists whole-line matches; the decision is the full §5 one,
                 * made as `warder check execute` makes it. */
                struct warder_decision d = WARDER_DECISION_INIT;
                if ((rc = decide("explain", rs, root, home, &a, &d, &literal_only)))
                        goto out;
                warder_decision_clear(&ex->decision);
                ex->decision = d;
        }
        if (unresolved)
                warder_session_unresolved(&ex->decision, why);
        if (c->json) {
                json_t *v = warder_json_explanation(a.target, ex);
                if (v && a.op == WARDER_OP_EXECUTE)
                        json_object_set_new(v, "forms", json_string(forms_name(&a, literal_only)));
                rc = cli_json_print(v);
                if (rc)
                        goto out;
        } else {
                print_explanation(rs, a.target, ex);
                print_forms(literal_only, root);
        }
        rc = cli_action_exit(ex->decision.action);
out:
        warder_error_clear(&err);
        warder_explanation_free(ex);
        warder_ruleset_free(rs);
        free(real);
        free(why);
        free(root);
        free(home);
        return rc;
}
