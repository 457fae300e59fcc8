/* SPDX-License-Identifier: MIT */
/* warder serve: the session's operations as JSON-RPC methods (docs/serve.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "rpc/rpc.h"
#include "serve/serve.h"
#include "session/session-json.h"

struct serve {
        struct warder_session *session;
        struct warder_rpc *rpc;
        const struct warder_rpc_method *methods;
        size_t nmethods;
};

/* ---- parameters --------------------------------------------------------------------------- */

struct params {
        struct warder_rpc_call *call;
        json_t *obj;
        bool failed;
        char *owned[8];
        size_t nowned;
};

static bool refuse(struct params *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool refuse(struct params *p, const char *fmt, ...)
{
        if (p->failed)
                return false;
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        p->failed = true;
        warder_rpc_error(p->call, WARDER_RPC_INVALID_PARAMS, msg, NULL);
        return false;
}

static void params_free(struct params *p)
{
        for (size_t i = 0; i < p->nowned; i++)
                free(p->owned[i]);
        p->nowned = 0;
}

/* Every member must be one of `names` (NULL-terminated). */
static bool p_known(struct params *p, const char *const *names)
{
        const char *key;
        json_t *v;
        json_object_foreach(p->obj, key, v)
        {
                bool ok = false;
                for (size_t i = 0; names[i] && !ok; i++)
                        ok = strcmp(names[i], key) == 0;
                if (!ok)
                        return refuse(p, "invalid params: unknown parameter \"%s\"", key);
        }
        return true;
}

/* Bytes (a string or a base64 object). *data is NULL when absent and not required. */
static bool p_bytes(struct params *p, const char *name, bool required, const char **data,
                    size_t *len)
{
        *data = NULL;
        *len = 0;
        if (p->failed)
                return false;
        json_t *v = json_object_get(p->obj, name);
        if (!v) {
                if (required)
                        return refuse(p, "invalid params: \"%s\" is required", name);
                return true;
        }
        const char *why = NULL;
        char *owned = NULL;
        if (warder_json_get_bytes(v, data, len, &owned, &why))
                return refuse(p, "invalid params: \"%s\": %s", name, why);
        if (owned) {
                if (p->nowned == sizeof(p->owned) / sizeof(p->owned[0])) {
                        free(owned);
                        return refuse(p, "invalid params: too many byte values");
                }
                p->owned[p->nowned++] = owned;
        }
        return true;
}

/* Bytes that are used as a C string (patterns): no NUL inside. */
static bool p_cstr(struct params *p, const char *name, bool required, const char **out)
{
        size_t len = 0;
        if (!p_bytes(p, name, required, out, &len))
                return false;
        if (*out && memchr(*out, '\0', len))
                return refuse(p, "invalid params: \"%s\" contains a NUL byte", name);
        return true;
}

static bool p_uint(struct params *p, const char *name, uint64_t max, uint64_t *out)
{
        if (p->failed)
                return false;
        json_t *v = json_object_get(p->obj, name);
        if (!v)
                return true;
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (uint64_t)json_integer_value(v) > max)
                return refuse(p, "invalid params: \"%s\" must be an integer from 0 to %llu", name,
                              (unsigned long long)max);
        *out = (uint64_t)json_integer_value(v);
        return true;
}

static bool p_bool(struct params *p, const char *name, bool *out)
{
        if (p->failed)
                return false;
        json_t *v = json_object_get(p->obj, name);
        if (!v)
                return true;
        if (!json_is_boolean(v))
                return refuse(p, "invalid params: \"%s\" must be true or false", name);
        *out = json_is_true(v);
        return true;
}

static bool p_op(struct params *p, enum warder_op *op)
{
        if (p->failed)
                return false;
        json_t *v = json_object_get(p->obj, "op");
        if (!v)
                return refuse(p, "invalid params: \"op\" is required");
        if (!json_is_string(v) || warder_op_parse(json_string_value(v), op) ||
            strlen(json_string_value(v)) != json_string_length(v))
                return refuse(p, "invalid params: \"op\" must be one of read, write, edit, ls, "
                                 "glob, grep, execute");
        return true;
}

static bool p_token(struct params *p, const char **token)
{
        *token = NULL;
        if (p->failed)
                return false;
        json_t *v = json_object_get(p->obj, "approval");
        if (!v)
                return true;
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
                return refuse(p, "invalid params: \"approval\" must be a token string");
        *token = json_string_value(v);
        return true;
}

/* ---- answers ------------------------------------------------------------------------------ */

/* A warder failure as a JSON-RPC error: code -32000 + status, the library's message, and in
 * data the status name, the decision and, for an ask, the approval token. */
static void fail(struct warder_rpc_call *call, int status, const struct warder_error *err,
                 const struct warder_session_result *res)
{
        json_t *data = json_object();
        bool bad = !data;
        if (data) {
                warder_json_set(data, "code", json_string(warder_status_name(status)), &bad);
                if (warder_session_json_failure(data, status, err, res))
                        bad = true;
                if (err && err->file[0]) {
                        warder_json_set(data, "file", warder_json_str(err->file), &bad);
                        warder_json_set(data, "line", json_integer(err->line), &bad);
                        warder_json_set(data, "column", json_integer(err->column), &bad);
                }
        }
        if (bad) {
                json_decref(data);
                data = NULL;
        }
        const char *msg = err && err->message[0] ? err->message : warder_strerror(status);
        if (status < WARDER_STATUS_MIN || status >= 0)
                status = WARDER_EBACKEND;
        warder_rpc_error(call, WARDER_RPC_STATUS_BASE + status, msg, data);
}

static void answer(struct warder_rpc_call *call, json_t *result)
{
        if (!result)
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "out of memory", NULL);
        else
                warder_rpc_result(call, result);
}

/* ---- operations --------------------------------------------------------------------------- */

struct stream_state {
        struct warder_rpc_call *call;
        size_t sent[2], cap;
};

static void stream_out(void *ud, int stream, const char *data, size_t len)
{
        struct stream_state *st = ud;
        size_t *sent = &st->sent[stream == 2];
        if (*sent >= st->cap)
                return;
        if (len > st->cap - *sent)
                len = st->cap - *sent;
        *sent += len;
        const json_t *id = warder_rpc_call_id(st->call);
        json_t *params =
            json_pack("{s:O,s:s,s:o}", "id", id ? (json_t *)id : json_null(), "stream",
                      stream == 2 ? "stderr" : "stdout", "data", warder_json_bytes(data, len));
        if (params)
                warder_rpc_notify(warder_rpc_of(st->call), "execute.output", params);
}

/* What an approval of this call binds besides the forms: the method and its parameters
 * without the token, in a canonical spelling. */
static char *binding_of(const char *method, json_t *params, size_t *len)
{
        json_t *copy = json_copy(params);
        json_t *b = copy ? json_pack("{s:s,s:o}", "method", method, "params", copy) : NULL;
        if (!b)
                return NULL;
        json_object_del(json_object_get(b, "params"), "approval");
        char *text = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(b);
        if (text)
                *len = strlen(text);
        return text;
}

static const char *const op_params[WARDER_OP_COUNT][10] = {
    [WARDER_OP_READ] = {"path", "offset", "limit", "approval", NULL},
    [WARDER_OP_WRITE] = {"path", "content", "approval", NULL},
    [WARDER_OP_EDIT] = {"path", "old", "new", "all", "approval", NULL},
    [WARDER_OP_LS] = {"path", "approval", NULL},
    [WARDER_OP_GLOB] = {"pattern", "path", "approval", NULL},
    [WARDER_OP_GREP] = {"pattern", "path", "include", "ignore_case", "max_matches", "approval",
                        NULL},
    [WARDER_OP_EXECUTE] = {"command", "cwd", "timeout_ms", "max_output", "stream", "approval",
                           NULL},
};

/* Runs operation `op` of `method` with `params`; `token` (when not NULL) overrides
 * params.approval (the approve method). */
static void run_op(struct warder_rpc_call *call, struct serve *sv, enum warder_op op,
                   json_t *params, const char *token)
{
        struct params p = {.call = call, .obj = params};
        struct warder_session_request req = {.op = op};
        bool all = false, caseless = false, stream = false;
        uint64_t n = 0;
        const char *given_token = NULL;
        p_known(&p, op_params[op]);
        p_token(&p, &given_token);
        req.token = token ? token : given_token;
        switch (op) {
        case WARDER_OP_READ:
                p_bytes(&p, "path", true, &req.target, &req.target_len);
                p_uint(&p, "offset", INT64_MAX, &req.offset);
                p_uint(&p, "limit", INT64_MAX, &req.limit);
                break;
        case WARDER_OP_WRITE:
                p_bytes(&p, "path", true, &req.target, &req.target_len);
                p_bytes(&p, "content", true, &req.text, &req.text_len);
                break;
        case WARDER_OP_EDIT:
                p_bytes(&p, "path", true, &req.target, &req.target_len);
                p_bytes(&p, "old", true, &req.text, &req.text_len);
                p_bytes(&p, "new", true, &req.text2, &req.text2_len);
                p_bool(&p, "all", &all);
                if (!p.failed && req.text_len == 0)
                        refuse(&p, "invalid params: \"old\" must not be empty");
                req.flags = all ? WARDER_EDIT_ALL : 0;
                break;
        case WARDER_OP_LS:
                p_bytes(&p, "path", false, &req.target, &req.target_len);
                break;
        case WARDER_OP_GLOB:
                p_cstr(&p, "pattern", true, &req.pattern);
                p_bytes(&p, "path", false, &req.target, &req.target_len);
                break;
        case WARDER_OP_GREP:
                p_cstr(&p, "pattern", true, &req.pattern);
                p_bytes(&p, "path", false, &req.target, &req.target_len);
                p_cstr(&p, "include", false, &req.include);
                p_bool(&p, "ignore_case", &caseless);
                p_uint(&p, "max_matches", SIZE_MAX, &n);
                req.max_matches = (size_t)n;
                req.flags = caseless ? WARDER_GREP_CASELESS : 0;
                break;
        case WARDER_OP_EXECUTE:
                p_bytes(&p, "command", true, &req.target, &req.target_len);
                p_cstr(&p, "cwd", false, &req.cwd);
                n = 0;
                p_uint(&p, "timeout_ms", 86400000, &n);
                req.timeout_ms = (uint32_t)n;
                n = 0;
                p_uint(&p, "max_output", (uint64_t)1 << 30, &n);
                req.max_output = (size_t)n;
                p_bool(&p, "stream", &stream);
                break;
        }
        if (p.failed) {
                params_free(&p);
                return;
        }
        struct stream_state st = {.call = call,
                                  .cap = req.max_output ? req.max_output : (size_t)1 << 20};
        if (stream) {
                req.stream = stream_out;
                req.stream_ud = &st;
        }
        req.cancel = warder_rpc_call_cancel(call);
        size_t blen = 0;
        char *binding = binding_of(warder_op_name(op), params, &blen);
        if (!binding) {
                params_free(&p);
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "out of memory", NULL);
                return;
        }
        req.binding = binding;
        req.binding_len = blen;
        struct warder_session_result res;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_session_run(sv->session, &req, &res, &err);
        if (rc) {
                fail(call, rc, &err, &res);
        } else {
                json_t *out = json_object();
                if (out && warder_session_json_result(out, op, &res)) {
                        json_decref(out);
                        out = NULL;
                }
                answer(call, out);
        }
        warder_error_clear(&err);
        warder_session_result_free(&res);
        free(binding);
        params_free(&p);
}

#define OP_HANDLER(name, op)                                                                       \
        static void h_##name(struct warder_rpc_call *call, json_t *params, void *ud)               \
        {                                                                                          \
                run_op(call, ud, op, params, NULL);                                                \
        }
OP_HANDLER(read, WARDER_OP_READ)
OP_HANDLER(write, WARDER_OP_WRITE)
OP_HANDLER(edit, WARDER_OP_EDIT)
OP_HANDLER(ls, WARDER_OP_LS)
OP_HANDLER(glob, WARDER_OP_GLOB)
OP_HANDLER(grep, WARDER_OP_GREP)
OP_HANDLER(execute, WARDER_OP_EXECUTE)

/* approve: performs the request a token was issued for, exactly as it was sent. */
static void h_approve(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct serve *sv = ud;
        struct params p = {.call = call, .obj = params};
        static const char *const names[] = {"token", NULL};
        const char *token = NULL;
        p_known(&p, names);
        p_cstr(&p, "token", true, &token);
        char *binding = NULL;
        size_t len = 0;
        if (!p.failed && warder_session_approval_binding(sv->session, token, &binding, &len) != 0)
                refuse(&p, "invalid params: \"token\": unknown token (never issued, already "
                           "used, or expired)");
        json_t *b = p.failed ? NULL : json_loadb(binding, len, JSON_ALLOW_NUL, NULL);
        const char *method = json_string_value(json_object_get(b, "method"));
        json_t *args = json_object_get(b, "params");
        enum warder_op op;
        if (!p.failed && (!method || !json_is_object(args) || warder_op_parse(method, &op)))
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "a token with a bad binding",
                                 NULL);
        else if (!p.failed)
                run_op(call, sv, op, args, token);
        json_decref(b);
        free(binding);
        params_free(&p);
}

static void h_info(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct serve *sv = ud;
        struct params p = {.call = call, .obj = params};
        static const char *const names[] = {NULL};
        if (!p_known(&p, names))
                return;
        char source[4096];
        warder_session_source_name(sv->session, source, sizeof(source));
        warder_ruleset *rs = warder_session_ruleset(sv->session);
        json_t *ops = json_array(), *methods = json_array();
        bool bad = !ops || !methods;
        for (int op = 0; op < WARDER_OP_COUNT && !bad; op++)
                if (op != WARDER_OP_EXECUTE || warder_session_can_execute(sv->session))
                        bad = json_array_append_new(ops, json_string(warder_op_name(op))) != 0;
        for (size_t i = 0; i < sv->nmethods && !bad; i++)
                bad = json_array_append_new(methods, json_string(sv->methods[i].name)) != 0;
        json_t *o = json_object();
        bad = bad || !o;
        if (o) {
                warder_json_set(o, "name", json_string("warder"), &bad);
                warder_json_set(o, "version", json_string(warder_version()), &bad);
                warder_json_set(o, "root", warder_json_str(warder_session_root(sv->session)), &bad);
                warder_json_set(o, "home", warder_json_str(warder_session_home(sv->session)), &bad);
                warder_json_set(o, "ruleset",
                                json_pack("{s:o,s:s?}", "source", warder_json_str(source), "digest",
                                          warder_ruleset_digest(rs)),
                                &bad);
                warder_json_set(o, "operations", ops, &bad);
                warder_json_set(o, "methods", methods, &bad);
                ops = methods = NULL;
                warder_json_set(o, "limits",
                                json_pack("{s:I,s:I,s:I}", "max_line",
                                          (json_int_t)warder_rpc_max_line(sv->rpc), "max_depth",
                                          (json_int_t)warder_rpc_max_depth(sv->rpc), "max_pending",
                                          (json_int_t)warder_rpc_max_pending(sv->rpc)),
                                &bad);
                warder_json_set(
                    o, "approval_ttl_ms",
                    json_integer((json_int_t)warder_session_approval_ttl_ms(sv->session)), &bad);
        }
        json_decref(ops);
        json_decref(methods);
        warder_ruleset_free(rs);
        if (bad) {
                json_decref(o);
                o = NULL;
        }
        answer(call, o);
}

static void check_or_explain(struct warder_rpc_call *call, json_t *params, struct serve *sv,
                             bool explain)
{
        struct params p = {.call = call, .obj = params};
        static const char *const names[] = {"op", "target", "real", NULL};
        enum warder_op op = WARDER_OP_READ;
        const char *target = NULL, *real = NULL;
        size_t len = 0;
        p_known(&p, names);
        p_op(&p, &op);
        p_bytes(&p, "target", true, &target, &len);
        p_cstr(&p, "real", false, &real);
        if (p.failed) {
                params_free(&p);
                return;
        }
        struct warder_error err = WARDER_ERROR_INIT;
        json_t *out = NULL;
        int rc;
        if (explain) {
                struct warder_explanation *ex = NULL;
                rc = warder_session_explain(sv->session, op, target, len, real, &ex, &err);
                if (!rc) {
                        /* the target as given, in its own bytes */
                        out = warder_json_explanation("", ex);
                        if (out &&
                            json_object_set_new(out, "target", warder_json_bytes(target, len))) {
                                json_decref(out);
                                out = NULL;
                        }
                }
                warder_explanation_free(ex);
        } else {
                struct warder_decision d = WARDER_DECISION_INIT;
                rc = warder_session_check(sv->session, op, target, len, real, &d, &err);
                if (!rc)
                        out = json_pack("{s:o,s:o}", "target", warder_json_bytes(target, len),
                                        "decision", warder_json_decision(&d));
                warder_decision_clear(&d);
        }
        if (rc)
                fail(call, rc, &err, NULL);
        else
                answer(call, out);
        warder_error_clear(&err);
        params_free(&p);
}

static void h_check(struct warder_rpc_call *call, json_t *params, void *ud)
{
        check_or_explain(call, params, ud, false);
}

static void h_explain(struct warder_rpc_call *call, json_t *params, void *ud)
{
        check_or_explain(call, params, ud, true);
}

static void h_reload(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct serve *sv = ud;
        struct params p = {.call = call, .obj = params};
        static const char *const names[] = {"rules", "preset", "yaml", NULL};
        const char *rules = NULL, *preset = NULL, *yaml = NULL;
        size_t yaml_len = 0;
        p_known(&p, names);
        p_cstr(&p, "rules", false, &rules);
        p_cstr(&p, "preset", false, &preset);
        p_bytes(&p, "yaml", false, &yaml, &yaml_len);
        if (!p.failed && (!!rules + !!preset + !!yaml) > 1)
                refuse(&p, "invalid params: give at most one of \"rules\", \"preset\", \"yaml\"");
        if (p.failed) {
                params_free(&p);
                return;
        }
        struct warder_session_source src = {0};
        if (rules)
                src = (struct warder_session_source){.kind = WARDER_SESSION_FILE, .value = rules};
        else if (preset)
                src =
                    (struct warder_session_source){.kind = WARDER_SESSION_PRESET, .value = preset};
        else if (yaml)
                src = (struct warder_session_source){.kind = WARDER_SESSION_TEXT,
                                                     .value = yaml,
                                                     .len = yaml_len,
                                                     .name = "<reload>"};
        struct warder_error err = WARDER_ERROR_INIT;
        bool changed = false;
        int rc = warder_session_reload(sv->session, rules || preset || yaml ? &src : NULL, &changed,
                                       &err);
        if (rc) {
                fail(call, rc, &err, NULL);
        } else {
                char source[4096];
                warder_session_source_name(sv->session, source, sizeof(source));
                warder_ruleset *rs = warder_session_ruleset(sv->session);
                answer(call, json_pack("{s:o,s:s?,s:b}", "source", warder_json_str(source),
                                       "digest", warder_ruleset_digest(rs), "changed", changed));
                warder_ruleset_free(rs);
        }
        warder_error_clear(&err);
        params_free(&p);
}

static void h_cancel(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct serve *sv = ud;
        struct params p = {.call = call, .obj = params};
        static const char *const names[] = {"id", NULL};
        if (!p_known(&p, names))
                return;
        json_t *id = json_object_get(params, "id");
        if (!json_is_string(id) && !json_is_integer(id)) {
                refuse(&p, "invalid params: \"id\" must be the string or integer id of a "
                           "request in flight");
                return;
        }
        answer(call, json_pack("{s:b}", "cancelled", warder_rpc_cancel(sv->rpc, id) == 1));
}

int warder_serve_run(const struct warder_serve_config *cfg)
{
        /* glob and grep walk trees and execute waits for a command: they get threads of
         * their own so that the session keeps answering; the rest is quick and in order. */
        static const struct warder_rpc_method all[] = {
            {"session.info", h_info, WARDER_RPC_INLINE},
            {"check", h_check, WARDER_RPC_INLINE},
            {"explain", h_explain, WARDER_RPC_INLINE},
            {"read", h_read, WARDER_RPC_INLINE},
            {"write", h_write, WARDER_RPC_INLINE},
            {"edit", h_edit, WARDER_RPC_INLINE},
            {"ls", h_ls, WARDER_RPC_INLINE},
            {"glob", h_glob, WARDER_RPC_THREAD},
            {"grep", h_grep, WARDER_RPC_THREAD},
            {"approve", h_approve, WARDER_RPC_THREAD},
            {"ruleset.reload", h_reload, WARDER_RPC_INLINE},
            {"cancel", h_cancel, WARDER_RPC_INLINE},
            {"execute", h_execute, WARDER_RPC_THREAD}, /* last: only with an exec backend */
        };
        struct serve sv = {.session = cfg->session, .methods = all};
        sv.nmethods = sizeof(all) / sizeof(all[0]);
        if (!warder_session_can_execute(cfg->session))
                sv.nmethods--;
        struct warder_rpc_config rc = {
            .in_fd = cfg->in_fd,
            .out_fd = cfg->out_fd,
            .methods = all,
            .nmethods = sv.nmethods,
            .ud = &sv,
            .max_line = cfg->max_line,
            .max_depth = cfg->max_depth,
            .max_pending = cfg->max_pending,
        };
        if (warder_rpc_new(&sv.rpc, &rc))
                return -1;
        int status = warder_rpc_run(sv.rpc);
        warder_rpc_free(sv.rpc);
        return status;
}
