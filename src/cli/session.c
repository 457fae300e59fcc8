/* SPDX-License-Identifier: MIT */
/* A guarded session over the local backend, shared by the operation subcommands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static bool approve_on_tty(void *ud, const struct warder_guard_request *req,
                           const struct warder_decision *d)
{
        (void)ud;
        FILE *tty = fopen("/dev/tty", "r+");
        if (!tty)
                return false;
        cli_print_decision(tty, req->literal ? req->literal : req->target, d);
        fputs("Allow this once? [y/N] ", tty);
        fflush(tty);
        char line[16] = "";
        bool yes = fgets(line, sizeof(line), tty) && (line[0] == 'y' || line[0] == 'Y');
        fclose(tty);
        return yes;
}

void cli_json_field(FILE *f, const char *key, const char *value)
{
        fprintf(f, ",\"%s\":", key);
        if (value)
                cli_write_json_string(f, value, strlen(value));
        else
                fputs("null", f);
}

static void audit_line(void *ud, const struct warder_audit_event *ev)
{
        FILE *f = ud;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(f, "{\"time\":%lld.%03ld", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
        cli_json_field(f, "op", warder_op_name(ev->request->op));
        cli_json_field(f, "target", ev->request->target);
        cli_json_field(f, "literal", ev->request->literal);
        cli_json_field(f, "real", ev->request->real);
        cli_json_field(f, "action", warder_action_name(ev->decision->action));
        cli_json_field(f, "final_action", warder_action_name(ev->final_action));
        fprintf(f, ",\"approval_asked\":%s,\"approved\":%s,\"filtered\":%s,\"decision\":",
                ev->approval_asked ? "true" : "false", ev->approved ? "true" : "false",
                ev->filtered ? "true" : "false");
        cli_json_decision(f, ev->decision);
        fputs("}\n", f);
        fflush(f);
}

int cli_session_open(struct cli_session *s, const char *name,
                     const struct warder_local_options *local_opts, bool mask_denied)
{
        int rc = s->root ? 0 : cli_common_dirs(s->c, &s->root, &s->home);
        if (rc)
                return rc;
        if ((rc = cli_load_ruleset(s->c, s->root, s->home, &s->rs)))
                return rc;
        if (s->c->audit && !(s->audit = fopen(s->c->audit, "ae"))) {
                cli_error(name, "cannot open audit file '%s': %s", s->c->audit, strerror(errno));
                return CLI_ERROR;
        }
        struct warder_error err = WARDER_ERROR_INIT;
        warder_backend *local = NULL;
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        if (local_opts)
                lopts = *local_opts;
        if (mask_denied)
                lopts.mask_denied = true; /* the guard says what to mask, per command */
        rc = warder_local_new(&local, s->root, &lopts, &err);
        if (!rc) {
                struct warder_guard_options gopts = WARDER_GUARD_OPTIONS_INIT;
                gopts.root = s->root;
                gopts.home = s->home;
                if (s->c->interactive)
                        gopts.approve = approve_on_tty;
                if (s->audit) {
                        gopts.audit = audit_line;
                        gopts.audit_ud = s->audit;
                }
                rc = warder_guard_new(&s->guard, local, s->rs, &gopts, &err);
                if (rc)
                        warder_backend_free(local);
        }
        if (rc) {
                cli_error(name, "%s", err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                return CLI_ERROR;
        }
        s->tty = isatty(STDOUT_FILENO);
        return 0;
}

void cli_session_close(struct cli_session *s)
{
        warder_backend_free(s->guard);
        warder_ruleset_free(s->rs);
        if (s->audit)
                fclose(s->audit);
        free(s->root);
        free(s->home);
}

/* Prints a failed operation; returns the exit code. */
int cli_report_failure(const struct cli_session *s, const char *name, const char *target, int rc,
                       const struct warder_error *err)
{
        const char *msg = err->message[0] ? err->message : warder_strerror(rc);
        int code = rc == WARDER_EDENIED ? CLI_DENY : rc == WARDER_EASK ? CLI_ASK : CLI_ERROR;
        if (s->c->json) {
                fputs("{\"op\":", stdout);
                cli_write_json_string(stdout, name, strlen(name));
                cli_json_field(stdout, "target", target);
                cli_json_field(stdout, "status",
                               code == CLI_DENY  ? "denied"
                               : code == CLI_ASK ? "ask"
                                                 : "error");
                fputs(",\"error\":{", stdout);
                fprintf(stdout, "\"code\":\"%s\"", warder_status_name(rc));
                cli_json_field(stdout, "message", msg);
                fputs("},\"decision\":", stdout);
                if (err->decision)
                        cli_json_decision(stdout, err->decision);
                else
                        fputs("null", stdout);
                fputs("}\n", stdout);
                return code;
        }
        if (err->decision && (rc == WARDER_EDENIED || rc == WARDER_EASK)) {
                fprintf(stderr, "warder %s: %s\n", name,
                        rc == WARDER_EDENIED ? "denied by policy" : "approval required");
                cli_print_decision(stderr, target, err->decision);
        } else {
                fprintf(stderr, "warder %s: ", name);
                cli_write_safe(stderr, target, strlen(target));
                fprintf(stderr, ": %s\n", msg);
        }
        return code;
}

int cli_resolve_real(const char *root, const char *home, const char *target, char **out)
{
        char *literal = NULL, *real = NULL;
        warder_backend *local = NULL;
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        *out = NULL;
        if (warder_path_normalize(&literal, NULL, root, home, NULL, target, strlen(target), NULL))
                return 0; /* the decision reports the bad target itself */
        size_t n = strlen(root);
        bool inside = strcmp(root, "/") == 0 ||
                      (strncmp(literal, root, n) == 0 && (literal[n] == '/' || !literal[n]));
        int rc = warder_local_new(&local, root, &lopts, NULL);
        if (rc == 0)
                rc = warder_backend_realpath(local, literal, strlen(literal), &real, NULL);
        int status = 0;
        if (rc == 0 && strcmp(real, literal) != 0)
                *out = strdup(real);
        else if (rc != 0 && inside)
                status = 1;
        warder_free(real);
        warder_free(literal);
        warder_backend_free(local);
        return status;
}
