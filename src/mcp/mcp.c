/* SPDX-License-Identifier: MIT */
/* warder mcp: the MCP lifecycle, tools/list and tools/call over the sessions (see mcp.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json/json.h"
#include "mcp/mcp.h"
#include "mcp/mcp-internal.h"
#include "mcp/tools.h"
#include "rpc/rpc.h"

/* The protocol versions spoken, newest first (the answer to an unknown one is the first). */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

/* ---- text buffers ------------------------------------------------------------------------- */

void sb_add(struct sbuf *b, const char *s, size_t n)
{
        if (b->oom)
                return;
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 256;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *p = realloc(b->p, cap);
                if (!p) {
                        b->oom = true;
                        return;
                }
                b->p = p;
                b->cap = cap;
        }
        if (n)
                memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
}

void sb_puts(struct sbuf *b, const char *s)
{
        sb_add(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
        char tmp[1024];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
        va_end(ap);
        if (n > 0)
                sb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Bytes for a person or a model to read: valid UTF-8 passes, control bytes, DEL and bytes
 * that are not UTF-8 become \xHH (a name can hold anything but '/' and NUL). */
void sb_safe(struct sbuf *b, const char *s, size_t n)
{
        size_t i = 0;
        while (i < n) {
                unsigned char c = (unsigned char)s[i];
                size_t k = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
                if (c >= 0x20 && c != 0x7f &&
                    (k == 1 || (i + k <= n && c >= 0xc2 && warder_json_utf8_valid(s + i, k)))) {
                        sb_add(b, s + i, k);
                        i += k;
                        continue;
                }
                sb_printf(b, "\\x%02x", c);
                i++;
        }
}

void sb_safe_str(struct sbuf *b, const char *s)
{
        sb_safe(b, s ? s : "", s ? strlen(s) : 0);
}

void sb_free(struct sbuf *b)
{
        free(b->p);
        memset(b, 0, sizeof(*b));
}

/* ---- decisions in words ------------------------------------------------------------------- */

void mcp_describe_decision(struct sbuf *b, const struct warder_decision *d)
{
        if (d->segment) {
                sb_puts(b, "\n  command: ");
                sb_safe_str(b, d->segment);
        }
        if (d->candidate) {
                sb_puts(b, "\n  path: ");
                sb_safe_str(b, d->candidate);
                sb_printf(b, " (decided for %s)", warder_op_name(d->candidate_op));
        }
        if (d->by_default) {
                sb_printf(b, "\n  no rule matched: the %s default (%s) decided",
                          warder_op_name(d->candidate ? d->candidate_op : d->op),
                          warder_action_name(d->action));
        } else if (d->rule_id) {
                sb_puts(b, "\n  rule: ");
                sb_safe_str(b, d->rule_id);
                sb_printf(b, " %s '", warder_action_name(d->action));
                sb_safe_str(b, d->pattern);
                sb_puts(b, "'");
                if (d->form != WARDER_FORM_NONE)
                        sb_printf(b, ", matched the %s",
                                  d->form == WARDER_FORM_BOTH   ? "literal and real forms"
                                  : d->form == WARDER_FORM_REAL ? "real form (where links lead)"
                                                                : "literal form");
                if (d->file) {
                        sb_puts(b, "\n  source: ");
                        sb_safe_str(b, d->file);
                        sb_printf(b, ":%u:%u", d->line, d->column);
                }
        }
        if (d->reason) {
                sb_puts(b, "\n  reason: ");
                sb_safe_str(b, d->reason);
        }
        if (d->note) {
                sb_puts(b, "\n  note: ");
                sb_safe_str(b, d->note);
        }
}

/* ---- the server --------------------------------------------------------------------------- */

static _Thread_local struct mcp_call *current_call;

static bool rules_may(const warder_ruleset *rs)
{
        if (warder_ruleset_default(rs, WARDER_OP_EXECUTE) != WARDER_DENY)
                return true;
        size_t n = warder_ruleset_rule_count(rs, WARDER_OP_EXECUTE);
        for (size_t i = 0; i < n; i++) {
                struct warder_rule_info r = WARDER_RULE_INFO_INIT;
                if (warder_ruleset_rule(&r, rs, WARDER_OP_EXECUTE, i) == 0 &&
                    r.action != WARDER_DENY)
                        return true;
        }
        return false;
}

bool warder_mcp_rules_may_execute(const warder_ruleset *rs)
{
        return rs && rules_may(rs);
}

static bool initialized(struct mcp *m)
{
        pthread_mutex_lock(&m->lock);
        bool yes = m->phase >= 1;
        pthread_mutex_unlock(&m->lock);
        return yes;
}

static bool before_initialize(struct warder_rpc_call *call, struct mcp *m)
{
        if (initialized(m))
                return false;
        warder_rpc_error(call, WARDER_RPC_INVALID_REQUEST,
                         "not initialized: send initialize first (MCP lifecycle)", NULL);
        return true;
}

static void h_ping(struct warder_rpc_call *call, json_t *params, void *ud)
{
        (void)params;
        (void)ud;
        warder_rpc_result(call, json_object());
}

/* The client's form elicitation: "elicitation": {} (form implied) or with "form". */
static bool client_can_elicit(const json_t *caps)
{
        const json_t *e = json_object_get(caps, "elicitation");
        if (!json_is_object(e))
                return false;
        return json_object_size(e) == 0 || json_is_object(json_object_get(e, "form"));
}

static void h_initialize(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct mcp *m = ud;
        const json_t *pv = json_object_get(params, "protocolVersion");
        const json_t *caps = json_object_get(params, "capabilities");
        const json_t *info = json_object_get(params, "clientInfo");
        if (!json_is_string(pv) || !json_is_object(caps) || (info && !json_is_object(info))) {
                warder_rpc_error(call, WARDER_RPC_INVALID_PARAMS,
                                 "invalid params: initialize needs \"protocolVersion\" (a "
                                 "string), \"capabilities\" and \"clientInfo\" (objects)",
                                 NULL);
                return;
        }
        pthread_mutex_lock(&m->lock);
        if (m->phase != 0) {
                pthread_mutex_unlock(&m->lock);
                warder_rpc_error(call, WARDER_RPC_INVALID_REQUEST,
                                 "invalid request: already initialized", NULL);
                return;
        }
        const char *chosen = versions[0];
        for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
                if (strcmp(json_string_value(pv), versions[i]) == 0 &&
                    strlen(versions[i]) == json_string_length(pv))
                        chosen = versions[i];
        snprintf(m->version, sizeof(m->version), "%s", chosen);
        /* outputSchema, structuredContent and elicitation came with 2025-06-18 */
        m->structured = strcmp(chosen, "2025-03-26") != 0;
        m->elicitation = m->structured && client_can_elicit(caps);
        m->phase = 1;
        pthread_mutex_unlock(&m->lock);
        json_t *result = json_pack(
            "{s:s,s:{s:{s:b}},s:{s:s,s:s,s:s},s:s}", "protocolVersion", chosen, "capabilities",
            "tools", "listChanged", 0, "serverInfo", "name", "warder", "title", "warder", "version",
            warder_version(), "instructions",
            "Every tool call is decided by warder's rules (allow, deny, ask) before it touches "
            "anything. A refused call returns an error naming the rule, its reason and its "
            "source: do not try to reach the same target another way (another path, a link, a "
            "command); choose something else or ask the user.");
        if (!result)
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "out of memory", NULL);
        else
                warder_rpc_result(call, result);
}

/* A notification sent with an id is a request nobody may leave unanswered. */
static bool not_a_notification(struct warder_rpc_call *call)
{
        if (!warder_rpc_call_id(call))
                return false;
        warder_rpc_error(call, WARDER_RPC_INVALID_REQUEST,
                         "invalid request: a notification carries no \"id\"", NULL);
        return true;
}

static void h_initialized(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct mcp *m = ud;
        (void)params;
        if (not_a_notification(call))
                return;
        pthread_mutex_lock(&m->lock);
        if (m->phase == 1)
                m->phase = 2;
        pthread_mutex_unlock(&m->lock);
        warder_rpc_drop(call);
}

static void h_cancelled(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct mcp *m = ud;
        if (not_a_notification(call))
                return;
        const json_t *id = json_object_get(params, "requestId");
        if (json_is_string(id) || json_is_integer(id))
                warder_rpc_cancel(m->rpc, id);
        warder_rpc_drop(call);
}

static void h_tools_list(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct mcp *m = ud;
        (void)params;
        if (before_initialize(call, m))
                return;
        json_t *tools = json_array();
        bool bad = !tools;
        for (size_t i = 0; i < MCP_TOOL_COUNT && !bad; i++) {
                if (mcp_tools[i].id == MCP_EXECUTE && !m->execute)
                        continue;
                json_t *t = mcp_tool_json(&mcp_tools[i], m->structured);
                bad = !t || json_array_append_new(tools, t);
        }
        json_t *result = bad ? NULL : json_pack("{s:o}", "tools", tools);
        if (!result) {
                if (!bad)
                        tools = NULL;
                json_decref(tools);
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "out of memory", NULL);
                return;
        }
        warder_rpc_result(call, result);
}

/* ---- progress ----------------------------------------------------------------------------- */

static void *ticker_main(void *arg)
{
        struct mcp_call *c = arg;
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        unsigned n = 0;
        pthread_mutex_lock(&c->tick_lock);
        for (;;) {
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)c->m->progress_ms * 1000000u;
                until.tv_sec += (time_t)(ns / 1000000000u);
                until.tv_nsec = (long)(ns % 1000000000u);
                while (!c->tick_stop &&
                       pthread_cond_timedwait(&c->tick_cond, &c->tick_lock, &until) == 0)
                        ;
                if (c->tick_stop)
                        break;
                n++;
                char msg[160];
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                double secs = (double)(now.tv_sec - start.tv_sec) +
                              (double)(now.tv_nsec - start.tv_nsec) / 1e9;
                size_t bytes = atomic_load(&c->output_bytes);
                if (c->tool->id == MCP_EXECUTE)
                        snprintf(msg, sizeof(msg), "%s: running for %.0f s, %zu bytes of output",
                                 c->tool->name, secs, bytes);
                else
                        snprintf(msg, sizeof(msg), "%s: running for %.0f s", c->tool->name, secs);
                json_t *p = json_pack("{s:O,s:i,s:s}", "progressToken", c->progress_token,
                                      "progress", (int)n, "message", msg);
                pthread_mutex_unlock(&c->tick_lock);
                if (p)
                        warder_rpc_notify(c->m->rpc, "notifications/progress", p);
                pthread_mutex_lock(&c->tick_lock);
        }
        pthread_mutex_unlock(&c->tick_lock);
        return NULL;
}

static void ticker_start(struct mcp_call *c)
{
        pthread_mutex_init(&c->tick_lock, NULL);
        pthread_cond_init(&c->tick_cond, NULL);
        c->tick_inited = true;
        c->ticking = pthread_create(&c->tick_thread, NULL, ticker_main, c) == 0;
}

/* Stops the progress notifications: none is sent after this returns (so none follows the
 * result, as the specification requires). */
static void ticker_stop(struct mcp_call *c)
{
        if (!c->tick_inited)
                return;
        pthread_mutex_lock(&c->tick_lock);
        c->tick_stop = true;
        pthread_cond_broadcast(&c->tick_cond);
        pthread_mutex_unlock(&c->tick_lock);
        if (c->ticking)
                pthread_join(c->tick_thread, NULL);
        pthread_mutex_destroy(&c->tick_lock);
        pthread_cond_destroy(&c->tick_cond);
        c->tick_inited = false;
}

/* ---- asking the user (elicitation) -------------------------------------------------------- */

enum warder_approval warder_mcp_approve(void *ud, const struct warder_guard_request *req,
                                        const struct warder_decision *d)
{
        (void)ud;
        struct mcp_call *c = current_call;
        if (!c)
                return WARDER_APPROVAL_DECLINE;
        if (!c->m->elicitation) {
                c->ask = MCP_ASK_UNAVAILABLE;
                return WARDER_APPROVAL_DEFER;
        }
        if (!warder_rpc_call_threaded(c->call)) {
                c->needs_thread = true; /* nothing was done: the call runs again on a thread */
                return WARDER_APPROVAL_DEFER;
        }
        struct sbuf msg = {0};
        sb_printf(&msg, "The agent asks to %s ",
                  req->op == WARDER_OP_EXECUTE ? "run" : warder_op_name(req->op));
        sb_safe_str(&msg, req->op == WARDER_OP_EXECUTE ? req->literal : req->literal);
        if (req->real && req->literal && strcmp(req->real, req->literal) != 0) {
                sb_puts(&msg, " (which leads to ");
                sb_safe_str(&msg, req->real);
                sb_puts(&msg, ")");
        }
        sb_printf(&msg, " through the MCP tool %s. warder's rules ask you first:", c->tool->name);
        mcp_describe_decision(&msg, d);
        sb_puts(&msg, "\nAllow it this once?");
        json_t *params =
            msg.oom ? NULL
                    : json_pack("{s:s,s:{s:s,s:{s:{s:s,s:s,s:s,s:b}},s:[s]}}", "message", msg.p,
                                "requestedSchema", "type", "object", "properties", "approve",
                                "type", "boolean", "title", "Allow this once", "description",
                                "Perform this operation once; anything else is a decline",
                                "default", 0, "required", "approve");
        sb_free(&msg);
        if (!params) {
                c->ask = MCP_ASK_FAILED;
                return WARDER_APPROVAL_DECLINE;
        }
        if (strcmp(c->m->version, "2025-11-25") == 0)
                json_object_set_new(params, "mode", json_string("form"));
        json_t *result = NULL, *error = NULL;
        int rc = warder_rpc_request(c->call, "elicitation/create", params,
                                    (int)c->m->elicitation_ms, &result, &error);
        bool yes = false;
        if (rc < 0) {
                c->ask = warder_rpc_call_cancelled(c->call) ? MCP_ASK_CANCELLED
                         : warder_cancel_triggered(warder_rpc_call_cancel(c->call))
                             ? MCP_ASK_FAILED /* the end of input */
                             : MCP_ASK_TIMEOUT;
        } else if (rc > 0) {
                c->ask = MCP_ASK_FAILED;
        } else {
                const json_t *action = json_object_get(result, "action");
                const json_t *content = json_object_get(result, "content");
                yes = json_is_string(action) && strcmp(json_string_value(action), "accept") == 0 &&
                      json_is_true(json_object_get(content, "approve"));
                c->ask = yes ? MCP_ASK_ACCEPTED : MCP_ASK_DECLINED;
        }
        json_decref(result);
        json_decref(error);
        return yes ? WARDER_APPROVAL_GRANT : WARDER_APPROVAL_DECLINE;
}

/* ---- tools/call --------------------------------------------------------------------------- */

static json_t *finish_result(struct mcp_call *c, struct mcp_out *o)
{
        if (o->text.oom)
                return NULL;
        const char *text = o->text.p ? o->text.p : "";
        json_t *r =
            json_pack("{s:[{s:s,s:s%}]}", "content", "type", "text", "text", text, o->text.len);
        if (!r)
                return NULL;
        bool bad = false;
        if (o->error)
                warder_json_set(r, "isError", json_true(), &bad);
        if (c->m->structured && o->sc) {
                if (!json_object_get(o->sc, "content")) /* read: the file's own content */
                        warder_json_set(o->sc, "content", json_stringn(text, o->text.len), &bad);
                warder_json_set(r, "structuredContent", json_incref(o->sc), &bad);
        }
        if (bad) {
                json_decref(r);
                return NULL;
        }
        return r;
}

static void h_tools_call(struct warder_rpc_call *call, json_t *params, void *ud)
{
        struct mcp *m = ud;
        if (before_initialize(call, m))
                return;
        const json_t *name = json_object_get(params, "name");
        json_t *args = json_object_get(params, "arguments");
        if (!json_is_string(name)) {
                warder_rpc_error(call, WARDER_RPC_INVALID_PARAMS,
                                 "invalid params: \"name\" (a string) is required", NULL);
                return;
        }
        const struct mcp_tool *tool =
            mcp_tool_find(json_string_value(name), json_string_length(name));
        if (!tool || (tool->id == MCP_EXECUTE && !m->execute)) {
                struct sbuf msg = {0};
                sb_puts(&msg, "Unknown tool: ");
                sb_safe(&msg, json_string_value(name), json_string_length(name));
                warder_rpc_error(call, WARDER_RPC_INVALID_PARAMS, msg.oom ? "Unknown tool" : msg.p,
                                 NULL);
                sb_free(&msg);
                return;
        }
        if (args && !json_is_object(args)) {
                warder_rpc_error(call, WARDER_RPC_INVALID_PARAMS,
                                 "invalid params: \"arguments\" must be an object", NULL);
                return;
        }
        /* commands and walks may take long: on a thread of their own from the start; the
         * rest is answered in order unless it must ask the user (then it runs again on one) */
        bool slow = tool->id == MCP_GREP || tool->id == MCP_EXECUTE ||
                    tool->id == MCP_DIRECTORY_TREE || tool->id == MCP_SEARCH_FILES;
        if (slow && !warder_rpc_call_threaded(call)) {
                warder_rpc_defer(call);
                return;
        }
        json_t *empty = args ? NULL : json_object();
        struct mcp_call c = {.m = m, .call = call, .tool = tool, .args = args ? args : empty};
        const json_t *meta = json_object_get(params, "_meta");
        const json_t *token = json_object_get(meta, "progressToken");
        if ((json_is_string(token) || json_is_integer(token)) &&
            (tool->id == MCP_GREP || tool->id == MCP_EXECUTE || tool->id == MCP_DIRECTORY_TREE ||
             tool->id == MCP_SEARCH_FILES)) {
                c.progress_token = (json_t *)token;
                ticker_start(&c);
        }
        struct mcp_out out = {0};
        out.sc = json_object();
        struct mcp_call *outer = current_call;
        current_call = &c;
        if (out.sc)
                mcp_run_tool(&c, &out);
        current_call = outer;
        ticker_stop(&c);
        if (c.needs_thread) {
                json_decref(out.sc);
                sb_free(&out.text);
                json_decref(empty);
                warder_rpc_defer(call);
                return;
        }
        json_t *result = out.sc ? finish_result(&c, &out) : NULL;
        json_decref(out.sc);
        sb_free(&out.text);
        json_decref(empty);
        /* a request the client cancelled gets no answer (notifications/cancelled) */
        if (warder_rpc_call_cancelled(call)) {
                json_decref(result);
                warder_rpc_drop(call);
        } else if (!result) {
                warder_rpc_error(call, WARDER_RPC_INTERNAL_ERROR, "out of memory", NULL);
        } else {
                warder_rpc_result(call, result);
        }
}

int warder_mcp_run(const struct warder_mcp_config *cfg)
{
        /* A tools/call that may wait for a command or for the user (elicitation) runs on a
         * thread of its own, so that cancellations get through meanwhile. */
        static const struct warder_rpc_method methods[] = {
            {"initialize", h_initialize, WARDER_RPC_INLINE},
            {"notifications/initialized", h_initialized, WARDER_RPC_INLINE},
            {"notifications/cancelled", h_cancelled, WARDER_RPC_INLINE},
            {"ping", h_ping, WARDER_RPC_INLINE},
            {"tools/list", h_tools_list, WARDER_RPC_INLINE},
            {"tools/call", h_tools_call, WARDER_RPC_INLINE}, /* or deferred to a thread */
        };
        if (!cfg || !cfg->sessions || warder_session_set_count(cfg->sessions) == 0)
                return -1;
        struct mcp m = {
            .sessions = cfg->sessions,
            .elicitation_ms = cfg->elicitation_timeout_ms ? cfg->elicitation_timeout_ms
                                                          : WARDER_MCP_ELICITATION_TIMEOUT_MS,
            .progress_ms = cfg->progress_interval_ms ? cfg->progress_interval_ms
                                                     : WARDER_MCP_PROGRESS_INTERVAL_MS,
        };
        struct warder_session *first = warder_session_set_at(cfg->sessions, 0);
        warder_ruleset *rs = warder_session_ruleset(first);
        m.execute = !cfg->no_execute && warder_session_can_execute(first) && rules_may(rs);
        warder_ruleset_free(rs);
        pthread_mutex_init(&m.lock, NULL);
        struct warder_rpc_config rc = {
            .in_fd = cfg->in_fd,
            .out_fd = cfg->out_fd,
            .methods = methods,
            .nmethods = sizeof(methods) / sizeof(methods[0]),
            .ud = &m,
            .max_line = cfg->max_line,
            .max_depth = cfg->max_depth,
            .max_pending = cfg->max_pending,
        };
        int status = -1;
        if (warder_rpc_new(&m.rpc, &rc) == 0) {
                status = warder_rpc_run(m.rpc);
                warder_rpc_free(m.rpc);
        }
        pthread_mutex_destroy(&m.lock);
        return status;
}
