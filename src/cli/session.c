/* SPDX-License-Identifier: MIT */
/* The guarded operations' session (src/session), shared by the operation subcommands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int cli_session_open(struct cli_session *s, const char *name,
                     const struct warder_local_options *local_opts, bool mask_denied,
                     const char *const *env)
{
        int rc = s->root ? 0 : cli_common_dirs(s->c, &s->root, &s->home);
        if (rc)
                return rc;
        if (s->c->interactive && s->c->approve_token)
                return cli_usage(name, "--interactive and --approve-token cannot be combined");
        warder_ruleset *rs = NULL;
        if ((rc = cli_load_ruleset(s->c, s->root, s->home, &rs)))
                return rc;
        if (s->c->audit && !(s->audit = fopen(s->c->audit, "ae"))) {
                warder_ruleset_free(rs);
                cli_error(name, "cannot open audit file '%s': %s", s->c->audit, strerror(errno));
                return CLI_ERROR;
        }
        struct warder_session_config cfg = {
            .source = {.kind = s->c->rules ? WARDER_SESSION_FILE : WARDER_SESSION_PRESET,
                       .value = s->c->rules ? s->c->rules : s->c->preset},
            .ruleset = rs,
            .root = s->root,
            .home = s->home,
            .local = local_opts,
            .mask_denied = mask_denied,
            .env = env,
            .audit = s->audit,
            /* Each call is its own process: a token spells out what it approves. */
            .stateless_approvals = true,
            .approve = s->c->interactive ? approve_on_tty : NULL,
        };
        struct warder_error err = WARDER_ERROR_INIT;
        rc = warder_session_new(&s->session, &cfg, &err);
        warder_ruleset_free(rs);
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
        warder_session_free(s->session);
        if (s->audit)
                fclose(s->audit);
        free(s->root);
        free(s->home);
}

int cli_session_run(struct cli_session *s, struct warder_session_request *req,
                    struct warder_session_result *res, struct warder_error *err)
{
        req->token = s->c->approve_token;
        return warder_session_run(s->session, req, res, err);
}

json_t *cli_json_ok(const char *name, const char *target)
{
        return json_pack("{s:s,s:o,s:s}", "op", name, "target", warder_json_str(target), "status",
                         "ok");
}

/* Prints a failed operation; returns the exit code. */
int cli_report_failure(const struct cli_session *s, const char *name, const char *target, int rc,
                       const struct warder_error *err, const struct warder_session_result *res)
{
        const char *msg = err->message[0] ? err->message : warder_strerror(rc);
        int code = rc == WARDER_EDENIED ? CLI_DENY : rc == WARDER_EASK ? CLI_ASK : CLI_ERROR;
        if (s->c->json) {
                json_t *o = json_pack("{s:s,s:o,s:s,s:o}", "op", name, "target",
                                      warder_json_str(target), "status",
                                      code == CLI_DENY  ? "denied"
                                      : code == CLI_ASK ? "ask"
                                                        : "error",
                                      "error", warder_json_error(rc, msg));
                if (o && warder_session_json_failure(o, rc, err, res)) {
                        json_decref(o);
                        o = NULL;
                }
                int prc = cli_json_print(o);
                return prc ? prc : code;
        }
        if (err->decision && (rc == WARDER_EDENIED || rc == WARDER_EASK)) {
                fprintf(stderr, "warder %s: %s\n", name,
                        rc == WARDER_EDENIED ? "denied by policy" : "approval required");
                cli_print_decision(stderr, target, err->decision);
                if (res && res->token_refused)
                        fprintf(stderr, "  --approve-token refused: %s\n", res->token_refused);
                if (res && res->token)
                        fprintf(stderr,
                                "  to approve this request once: warder --approve-token %s …\n",
                                res->token);
        } else {
                fprintf(stderr, "warder %s: ", name);
                cli_write_safe(stderr, target, strlen(target));
                fprintf(stderr, ": %s\n", msg);
        }
        return code;
}

int cli_resolve_real(const char *root, const char *home, const char *target, char **out, char **why)
{
        char *literal = NULL, *real = NULL;
        warder_backend *local = NULL;
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        *out = NULL;
        *why = NULL;
        if (warder_path_normalize(&literal, NULL, root, home, NULL, target, strlen(target), NULL))
                return 0; /* the decision reports the bad target itself */
        int rc = warder_local_new(&local, root, &lopts, &err);
        /* §3.2: when not even the root exists, nothing of the target does: real == literal */
        bool no_root = rc == WARDER_ENOENT || rc == WARDER_ENOTDIR;
        const char *cannot = rc == 0 || no_root ? NULL
                             : err.message[0]   ? err.message
                                                : warder_strerror(rc);
        int status = warder_session_real_form(local, cannot, root, literal, &real, why);
        if (real && strcmp(real, literal) != 0)
                *out = strdup(real);
        warder_error_clear(&err);
        warder_free(real);
        warder_free(literal);
        warder_backend_free(local);
        return status;
}
