/* SPDX-License-Identifier: MIT */
/* One guarded session (see session.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "session/approval.h"
#include "session/session.h"

/* The note of an unresolved real form when its cause cannot be kept (out of memory). */
static const char unresolved_note[] =
    "the real form could not be resolved, so the literal form alone cannot allow it";

struct warder_session {
        char *root, *home;
        char **env;
        warder_backend *guard;
        bool exec;
        pthread_mutex_t lock; /* rs and the source */
        warder_ruleset *rs;
        struct warder_session_source src; /* owned copies */
        pthread_mutex_t reload_lock;      /* one reload at a time */
        FILE *audit;
        pthread_mutex_t audit_lock;
        struct warder_approvals approvals;
        warder_approve_fn approve;
        warder_approve_ex_fn approve_ex;
        void *approve_ud;
};

/* The request being run on this thread, for the approval callback. */
struct run_ctx {
        struct warder_session *s;
        const struct warder_session_request *req;
        struct warder_session_result *res;
};
static _Thread_local struct run_ctx *current_run;

/* ---- sources ------------------------------------------------------------------------------ */

static void source_free(struct warder_session_source *src)
{
        free((char *)src->value);
        free((char *)src->name);
        memset(src, 0, sizeof(*src));
}

static int source_copy(struct warder_session_source *dst, const struct warder_session_source *src)
{
        struct warder_session_source c = {.kind = src->kind, .len = src->len};
        const char *value = src->value;
        if (src->kind == WARDER_SESSION_PRESET && !value)
                value = "default";
        if (src->kind == WARDER_SESSION_TEXT) {
                char *t = malloc(src->len + 1);
                if (!t)
                        return WARDER_ENOMEM;
                if (src->len)
                        memcpy(t, src->value, src->len);
                t[src->len] = '\0';
                c.value = t;
        } else if (!value || !(c.value = strdup(value))) {
                return value ? WARDER_ENOMEM : WARDER_EINVAL;
        }
        if (src->name && !(c.name = strdup(src->name))) {
                free((char *)c.value);
                return WARDER_ENOMEM;
        }
        *dst = c;
        return 0;
}

static int load_source(struct warder_session *s, const struct warder_session_source *src,
                       warder_ruleset **out, struct warder_error *err)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = s->root;
        o.home = s->home;
        switch (src->kind) {
        case WARDER_SESSION_PRESET:
                return warder_ruleset_load_preset(out, src->value ? src->value : "default", &o,
                                                  err);
        case WARDER_SESSION_FILE:
                if (!src->value)
                        return warder_error_set(err, WARDER_EINVAL, "no ruleset file given");
                return warder_ruleset_load_file(out, src->value, &o, err);
        case WARDER_SESSION_TEXT:
                if (!src->value && src->len)
                        return warder_error_set(err, WARDER_EINVAL, "no ruleset text given");
                return warder_ruleset_load_string(out, src->value ? src->value : "", src->len,
                                                  src->name, &o, err);
        }
        return warder_error_set(err, WARDER_EINVAL, "unknown ruleset source");
}

/* ---- callbacks from the guard ------------------------------------------------------------- */

static void audit_event(void *ud, const struct warder_audit_event *ev)
{
        struct warder_session *s = ud;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        json_t *o = warder_json_audit(ev, &now);
        size_t len = 0;
        char *line = o ? warder_json_line(o, &len) : NULL;
        json_decref(o);
        if (!line)
                return; /* out of memory: the decision stands, the line is lost */
        pthread_mutex_lock(&s->audit_lock);
        fwrite(line, 1, len, s->audit);
        fflush(s->audit);
        pthread_mutex_unlock(&s->audit_lock);
        free(line);
}

static enum warder_approval approve_event(void *ud, const struct warder_guard_request *greq,
                                          const struct warder_decision *d)
{
        struct warder_session *s = ud;
        struct run_ctx *ctx = current_run;
        if (!ctx || ctx->s != s)
                return WARDER_APPROVAL_DEFER;
        const char *digest = warder_ruleset_digest(greq->rules);
        if (!digest)
                return WARDER_APPROVAL_DEFER;
        struct warder_approval_key key = {
            .op = greq->op,
            .literal = greq->literal ? greq->literal : "",
            .real = greq->real,
            .digest = digest,
            .binding = ctx->req->binding,
            .binding_len = ctx->req->binding ? ctx->req->binding_len : 0,
        };
        if (ctx->req->token) {
                const char *why = warder_approvals_redeem(&s->approvals, ctx->req->token, &key);
                if (!why)
                        return WARDER_APPROVAL_GRANT;
                ctx->res->token_refused = why;
        }
        if (s->approve_ex) {
                enum warder_approval a = s->approve_ex(s->approve_ud, greq, d);
                return a == WARDER_APPROVAL_GRANT || a == WARDER_APPROVAL_DEFER
                           ? a
                           : WARDER_APPROVAL_DECLINE;
        }
        if (s->approve)
                return s->approve(s->approve_ud, greq, d) ? WARDER_APPROVAL_GRANT
                                                          : WARDER_APPROVAL_DECLINE;
        free(ctx->res->token);
        ctx->res->token = warder_approvals_issue(&s->approvals, &key);
        ctx->res->token_ttl_ms = s->approvals.ttl_ms;
        return WARDER_APPROVAL_DEFER;
}

/* ---- construction ------------------------------------------------------------------------- */

static void free_env(char **env)
{
        for (size_t i = 0; env && env[i]; i++)
                free(env[i]);
        free(env);
}

static int make_env(struct warder_session *s, const char *const *given)
{
        size_t n = 0;
        while (given && given[n])
                n++;
        char **v = calloc(n + 4, sizeof(*v));
        if (!v)
                return WARDER_ENOMEM;
        size_t k = 0;
        if (given) {
                for (; k < n; k++)
                        if (!(v[k] = strdup(given[k])))
                                goto oom;
        } else {
                if (!(v[k++] = strdup("PATH=/usr/local/bin:/usr/bin:/bin")))
                        goto oom;
                if (s->home && asprintf(&v[k++], "HOME=%s", s->home) < 0) {
                        v[--k] = NULL;
                        goto oom;
                }
                if (!(v[k++] = strdup("LANG=C.UTF-8")))
                        goto oom;
        }
        s->env = v;
        return 0;
oom:
        free_env(v);
        return WARDER_ENOMEM;
}

static int normalize_dir(const char *dir, char **out, struct warder_error *err)
{
        char *cwd = NULL;
        if (!dir) {
                cwd = getcwd(NULL, 0);
                if (!cwd)
                        return warder_error_set(err, WARDER_EIO,
                                                "cannot determine the current directory: %s",
                                                strerror(errno));
                dir = cwd;
        }
        int rc = warder_path_normalize(out, NULL, "/", NULL, NULL, dir, strlen(dir), err);
        free(cwd);
        return rc;
}

int warder_session_new(struct warder_session **out, const struct warder_session_config *cfg,
                       struct warder_error *err)
{
        if (!out || !cfg)
                return warder_error_set(err, WARDER_EINVAL, "session: no configuration");
        if (cfg->root && cfg->root[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the root must be absolute: '%s'",
                                        cfg->root);
        if (cfg->home && cfg->home[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the home must be absolute: '%s'",
                                        cfg->home);
        struct warder_session *s = calloc(1, sizeof(*s));
        if (!s)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        pthread_mutex_init(&s->lock, NULL);
        pthread_mutex_init(&s->reload_lock, NULL);
        pthread_mutex_init(&s->audit_lock, NULL);
        int rc = warder_approvals_init(
            &s->approvals,
            cfg->approval_ttl_ms ? cfg->approval_ttl_ms : WARDER_SESSION_APPROVAL_TTL_MS,
            cfg->max_approvals ? cfg->max_approvals : WARDER_SESSION_MAX_APPROVALS,
            cfg->max_approval_bytes ? cfg->max_approval_bytes : WARDER_SESSION_MAX_APPROVAL_BYTES,
            cfg->stateless_approvals);
        if (rc) {
                pthread_mutex_destroy(&s->lock);
                pthread_mutex_destroy(&s->reload_lock);
                pthread_mutex_destroy(&s->audit_lock);
                free(s);
                return warder_error_set(err, WARDER_ENOMEM, "session: cannot create a mutex");
        }
        s->audit = cfg->audit;
        s->approve = cfg->approve;
        s->approve_ex = cfg->approve_ex;
        s->approve_ud = cfg->approve_ud;
        rc = normalize_dir(cfg->root, &s->root, err);
        if (!rc && cfg->home)
                rc = normalize_dir(cfg->home, &s->home, err);
        if (!rc && (rc = make_env(s, cfg->env)))
                warder_error_set(err, rc, "out of memory");
        if (!rc && (rc = source_copy(&s->src, &cfg->source)))
                warder_error_set(err, rc, "session: bad ruleset source");
        if (!rc && cfg->ruleset)
                s->rs = warder_ruleset_ref(cfg->ruleset);
        else if (!rc)
                rc = load_source(s, &s->src, &s->rs, err);
        warder_backend *local = NULL;
        if (!rc) {
                struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
                if (cfg->local)
                        lo = *cfg->local;
                /* The guard passes what to mask with each command, from its ruleset of the
                 * moment: a reload reaches the masks (§6.5). */
                lo.mask_denied = cfg->mask_denied;
                if (lo.exec && !lo.exec_env)
                        lo.exec_env = (const char *const *)s->env;
                s->exec = lo.exec;
                rc = warder_local_new(&local, s->root, &lo, err);
        }
        if (!rc) {
                struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
                go.root = s->root;
                go.home = s->home;
                go.env = (const char *const *)s->env;
                go.approve_ex = approve_event;
                go.approve_ud = s;
                if (s->audit) {
                        go.audit = audit_event;
                        go.audit_ud = s;
                }
                rc = warder_guard_new(&s->guard, local, s->rs, &go, err);
                if (rc)
                        warder_backend_free(local);
        }
        if (rc) {
                warder_session_free(s);
                return rc;
        }
        *out = s;
        return 0;
}

void warder_session_free(struct warder_session *s)
{
        if (!s)
                return;
        warder_backend_free(s->guard);
        warder_ruleset_free(s->rs);
        source_free(&s->src);
        warder_approvals_fini(&s->approvals);
        free_env(s->env);
        free(s->root);
        free(s->home);
        pthread_mutex_destroy(&s->lock);
        pthread_mutex_destroy(&s->reload_lock);
        pthread_mutex_destroy(&s->audit_lock);
        free(s);
}

/* ---- accessors ---------------------------------------------------------------------------- */

warder_backend *warder_session_backend(struct warder_session *s)
{
        return s->guard;
}

warder_ruleset *warder_session_ruleset(struct warder_session *s)
{
        pthread_mutex_lock(&s->lock);
        warder_ruleset *rs = warder_ruleset_ref(s->rs);
        pthread_mutex_unlock(&s->lock);
        return rs;
}

const char *warder_session_root(const struct warder_session *s)
{
        return s->root;
}

const char *warder_session_home(const struct warder_session *s)
{
        return s->home;
}

bool warder_session_can_execute(const struct warder_session *s)
{
        return s->exec;
}

uint32_t warder_session_approval_ttl_ms(const struct warder_session *s)
{
        return s->approvals.ttl_ms;
}

void warder_session_source_name(struct warder_session *s, char *buf, size_t size)
{
        pthread_mutex_lock(&s->lock);
        switch (s->src.kind) {
        case WARDER_SESSION_PRESET:
                snprintf(buf, size, "preset:%s", s->src.value);
                break;
        case WARDER_SESSION_FILE:
                snprintf(buf, size, "%s", s->src.value);
                break;
        case WARDER_SESSION_TEXT:
                snprintf(buf, size, "%s", s->src.name ? s->src.name : "<string>");
                break;
        }
        pthread_mutex_unlock(&s->lock);
}

/* ---- reload (§4.10) ----------------------------------------------------------------------- */

int warder_session_reload(struct warder_session *s, const struct warder_session_source *src,
                          bool *changed, struct warder_error *err)
{
        pthread_mutex_lock(&s->reload_lock);
        struct warder_session_source copy = {0};
        int rc = 0;
        if (src && (rc = source_copy(&copy, src))) {
                pthread_mutex_unlock(&s->reload_lock);
                return warder_error_set(err, rc, "reload: bad ruleset source");
        }
        /* Only reloads change the source, and they are serialised by reload_lock. */
        const struct warder_session_source *use = src ? &copy : &s->src;
        warder_ruleset *fresh = NULL;
        rc = load_source(s, use, &fresh, err);
        if (!rc && (!warder_ruleset_digest(fresh) || warder_guard_set_ruleset(s->guard, fresh)))
                rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
        if (rc) {
                warder_ruleset_free(fresh);
                source_free(&copy);
                pthread_mutex_unlock(&s->reload_lock);
                return rc;
        }
        pthread_mutex_lock(&s->lock);
        warder_ruleset *old = s->rs;
        s->rs = fresh;
        if (src) {
                source_free(&s->src);
                s->src = copy;
        }
        pthread_mutex_unlock(&s->lock);
        const char *a = warder_ruleset_digest(old), *b = warder_ruleset_digest(fresh);
        if (changed)
                *changed = !a || !b || strcmp(a, b) != 0;
        warder_ruleset_free(old);
        pthread_mutex_unlock(&s->reload_lock);
        return 0;
}

/* ---- check and explain -------------------------------------------------------------------- */

void warder_session_unresolved(struct warder_decision *d, const char *why)
{
        if (d->action != WARDER_ALLOW)
                return;
        d->action = WARDER_ASK;
        d->by_default = false; /* what decided is the note, not the default */
        d->note = unresolved_note;
        char note[512];
        snprintf(note, sizeof(note),
                 "the real form could not be resolved (%s), so the literal form alone cannot "
                 "allow it",
                 why ? why : "unknown error");
        /* the decision owns its note: a deep copy of it with the note in place */
        struct warder_decision with = *d, copy = WARDER_DECISION_INIT;
        with.note = note;
        if (warder_decision_copy(&copy, &with) == 0) {
                warder_decision_clear(d);
                *d = copy;
        }
}

int warder_session_real_form(warder_backend *b, const char *no_backend, const char *root,
                             const char *literal, char **real, char **why)
{
        *real = *why = NULL;
        if (!b && !no_backend)
                return 0; /* §3.2: no root, so nothing of the target exists: real == literal */
        struct warder_error err = WARDER_ERROR_INIT;
        int rc =
            b ? warder_backend_realpath(real, b, literal, strlen(literal), &err) : WARDER_EBACKEND;
        if (rc == 0)
                return 0;
        *real = NULL;
        size_t n = strlen(root);
        bool inside = strcmp(root, "/") == 0 ||
                      (strncmp(literal, root, n) == 0 && (literal[n] == '/' || !literal[n]));
        if (inside)
                *why = strdup(!b ? no_backend : err.message[0] ? err.message : warder_strerror(rc));
        warder_error_clear(&err);
        return inside ? 1 : 0;
}

/* The literal form, and the real form (or NULL) unless `real` was given; *unresolved is set
 * (with *why) for a target under the root whose real form cannot be resolved. */
static int forms(struct warder_session *s, const char *target, size_t len, const char *real,
                 char **lit, char **rf, bool *unresolved, char **why, struct warder_error *err)
{
        *lit = *rf = *why = NULL;
        *unresolved = false;
        int rc = warder_path_normalize(lit, NULL, s->root, s->home, NULL, target, len, err);
        if (rc || real)
                return rc;
        *unresolved = warder_session_real_form(s->guard, NULL, s->root, *lit, rf, why) == 1;
        return 0;
}

static int check_command(struct warder_session *s, const char *target, size_t len,
                         struct warder_decision *out, struct warder_error *err)
{
        if (!len)
                return warder_error_set(err, WARDER_EINVAL, "execute: empty command");
        return warder_guard_check(out, s->guard, WARDER_OP_EXECUTE, target, len, err);
}

int warder_session_check_command(struct warder_session *s, const char *command, size_t len,
                                 const char *cwd, struct warder_decision *out,
                                 struct warder_error *err)
{
        if (!s || !command || !out)
                return warder_error_set(err, WARDER_EINVAL, "check: invalid argument");
        return warder_guard_check_command(s->guard, command, len, cwd, out, err);
}

int warder_session_check(struct warder_session *s, enum warder_op op, const char *target,
                         size_t len, const char *real, struct warder_decision *out,
                         struct warder_error *err)
{
        if ((unsigned)op >= WARDER_OP_COUNT || !target || !out)
                return warder_error_set(err, WARDER_EINVAL, "check: invalid argument");
        if (op == WARDER_OP_EXECUTE) {
                if (real)
                        return warder_error_set(err, WARDER_EINVAL,
                                                "a real form does not apply to execute");
                return check_command(s, target, len, out, err);
        }
        char *lit = NULL, *rf = NULL, *why = NULL;
        bool unresolved = false;
        int rc = forms(s, target, len, real, &lit, &rf, &unresolved, &why, err);
        warder_ruleset *rs = rc ? NULL : warder_session_ruleset(s);
        if (!rc)
                rc = warder_ruleset_check(out, rs, op, lit, strlen(lit), real ? real : rf,
                                          real ? strlen(real)
                                          : rf ? strlen(rf)
                                               : 0,
                                          err);
        if (!rc && unresolved)
                warder_session_unresolved(out, why);
        warder_ruleset_free(rs);
        warder_free(lit);
        warder_free(rf);
        free(why);
        return rc;
}

int warder_session_explain(struct warder_session *s, enum warder_op op, const char *target,
                           size_t len, const char *real, struct warder_explanation **out,
                           struct warder_error *err)
{
        if ((unsigned)op >= WARDER_OP_COUNT || !target || !out)
                return warder_error_set(err, WARDER_EINVAL, "explain: invalid argument");
        warder_ruleset *rs = warder_session_ruleset(s);
        struct warder_explanation *ex = NULL;
        int rc;
        if (op == WARDER_OP_EXECUTE) {
                char *line = NULL;
                if (real)
                        rc = warder_error_set(err, WARDER_EINVAL,
                                              "a real form does not apply to execute");
                else if (!len || memchr(target, '\0', len))
                        rc = warder_error_set(err, WARDER_EINVAL,
                                              "execute: empty command or a NUL byte in it");
                else if (!(line = strndup(target, len)))
                        rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
                else
                        rc = warder_ruleset_explain(&ex, rs, op, line, strlen(line), NULL, 0, err);
                /* The explanation lists whole-line matches; the decision is the full §5 one,
                 * with the session's environment, real forms and glob expansion. */
                struct warder_decision d = WARDER_DECISION_INIT;
                if (!rc && !(rc = check_command(s, target, len, &d, err))) {
                        warder_decision_clear(&ex->decision);
                        ex->decision = d;
                }
                free(line);
        } else {
                char *lit = NULL, *rf = NULL, *why = NULL;
                bool unresolved = false;
                rc = forms(s, target, len, real, &lit, &rf, &unresolved, &why, err);
                if (!rc)
                        rc = warder_ruleset_explain(&ex, rs, op, lit, strlen(lit), real ? real : rf,
                                                    real ? strlen(real)
                                                    : rf ? strlen(rf)
                                                         : 0,
                                                    err);
                if (!rc && unresolved)
                        warder_session_unresolved(&ex->decision, why);
                warder_free(lit);
                warder_free(rf);
                free(why);
        }
        warder_ruleset_free(rs);
        if (rc) {
                warder_explanation_free(ex);
                return rc;
        }
        *out = ex;
        return 0;
}

/* ---- operations --------------------------------------------------------------------------- */

/* An empty result: every container initialised (their versions are checked on entry). */
static void result_reset(struct warder_session_result *res)
{
        memset(res, 0, sizeof(*res));
        res->bytes = (struct warder_bytes)WARDER_BYTES_INIT;
        res->entries = (struct warder_entries)WARDER_ENTRIES_INIT;
        res->grep = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        res->exec = (struct warder_exec_result)WARDER_EXEC_RESULT_INIT;
}

int warder_session_run(struct warder_session *s, const struct warder_session_request *req,
                       struct warder_session_result *res, struct warder_error *err)
{
        result_reset(res);
        if (!s || !req)
                return warder_error_set(err, WARDER_EINVAL, "session: invalid request");
        struct run_ctx ctx = {.s = s, .req = req, .res = res};
        struct run_ctx *outer = current_run;
        current_run = &ctx;
        warder_backend *g = s->guard;
        unsigned flags = req->flags & (WARDER_EDIT_ALL | WARDER_GREP_CASELESS);
        const char *base = req->target ? req->target : s->root;
        size_t base_len = req->target ? req->target_len : strlen(s->root);
        int rc;
        switch (req->op) {
        case WARDER_OP_READ:
                rc = warder_backend_read(&res->bytes, g, req->target, req->target_len, req->offset,
                                         req->limit, 0, err);
                break;
        case WARDER_OP_WRITE:
                rc = warder_backend_write(g, req->target, req->target_len,
                                          req->text ? req->text : "", req->text_len, 0, err);
                if (!rc)
                        res->count = req->text_len;
                break;
        case WARDER_OP_EDIT:
                rc = warder_backend_edit(&res->count, g, req->target, req->target_len, req->text,
                                         req->text_len, req->text2 ? req->text2 : "",
                                         req->text2_len, flags & WARDER_EDIT_ALL, err);
                break;
        case WARDER_OP_LS:
                rc = warder_backend_ls(&res->entries, g, base, base_len, 0, err);
                break;
        case WARDER_OP_GLOB:
                rc = warder_backend_glob(&res->entries, g, req->pattern, strlen(req->pattern), base,
                                         base_len, 0, err);
                break;
        case WARDER_OP_GREP: {
                struct warder_grep_request gr = WARDER_GREP_REQUEST_INIT;
                gr.pattern = req->pattern;
                gr.pattern_len = strlen(gr.pattern);
                gr.path = base;
                gr.path_len = base_len;
                gr.glob = req->include;
                gr.glob_len = gr.glob ? strlen(gr.glob) : 0;
                gr.flags = flags & WARDER_GREP_CASELESS;
                gr.max_matches = req->max_matches;
                gr.threads = req->threads;
                rc = warder_backend_grep(&res->grep, g, &gr, err);
                break;
        }
        case WARDER_OP_EXECUTE: {
                struct warder_exec_request er = WARDER_EXEC_REQUEST_INIT;
                er.command = req->target;
                er.command_len = req->target_len;
                er.cwd = req->cwd;
                er.timeout_ms = req->timeout_ms;
                er.max_output = req->max_output;
                er.stream = req->stream;
                er.stream_ud = req->stream_ud;
                er.cancel = req->cancel;
                rc = warder_backend_execute(&res->exec, g, &er, err);
                break;
        }
        default:
                rc = warder_error_set(err, WARDER_EINVAL, "unknown operation");
                break;
        }
        current_run = outer;
        if (rc != WARDER_EASK) {
                free(res->token);
                res->token = NULL;
        }
        return rc;
}

void warder_session_result_free(struct warder_session_result *res)
{
        if (!res)
                return;
        warder_bytes_free(&res->bytes);
        warder_entries_free(&res->entries);
        warder_grep_result_free(&res->grep);
        warder_exec_result_free(&res->exec);
        free(res->token);
        result_reset(res);
}

int warder_session_approval_binding(struct warder_session *s, const char *token, char **binding,
                                    size_t *len)
{
        if (!s || !token || !binding || !len)
                return WARDER_EINVAL;
        return warder_approvals_binding(&s->approvals, token, binding, len) ? WARDER_ENOENT : 0;
}
