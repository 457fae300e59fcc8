/* SPDX-License-Identifier: MIT */
/* JSON-RPC 2.0 over newline-delimited stdio (see rpc.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "rpc/rpc.h"

struct warder_rpc_call {
        struct warder_rpc *rpc;
        json_t *id; /* NULL: a notification */
        const struct warder_rpc_method *method;
        json_t *params;
        warder_cancel *cancel;
        bool answered;
        bool counted; /* holds one of the max_pending slots */
        struct warder_rpc_call *prev, *next;
};

/* A call thread that has finished and waits to be joined. */
struct ended {
        pthread_t thread;
        struct ended *next;
};

/* A request warder sent to the peer, waiting for its answer. */
struct outgoing {
        char id[32];
        json_t *result, *error;
        bool done;
        struct outgoing *next;
};

struct warder_rpc {
        struct warder_rpc_config cfg;
        pthread_mutex_t lock; /* calls, inflight, eof, outgoing */
        pthread_cond_t cond;
        struct warder_rpc_call *calls;
        size_t inflight; /* calls not finished */
        size_t threads;  /* THREAD calls among them */
        size_t alive;    /* call threads not joined yet */
        struct ended *ended;
        bool eof;
        struct outgoing *outgoing;
        unsigned long next_out_id;
        pthread_mutex_t out_lock; /* one line at a time on out_fd */
        bool out_broken;
};

/* ---- output ------------------------------------------------------------------------------- */

static int send_msg(struct warder_rpc *rpc, json_t *msg)
{
        size_t len = 0;
        char *line = msg ? warder_json_line(msg, &len) : NULL;
        json_decref(msg);
        if (!line)
                return -1;
        int rc = 0;
        pthread_mutex_lock(&rpc->out_lock);
        for (size_t off = 0; !rpc->out_broken && off < len;) {
                ssize_t n = write(rpc->cfg.out_fd, line + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        rpc->out_broken = true; /* the peer is gone: keep serving nothing */
                        break;
                }
                off += (size_t)n;
        }
        rc = rpc->out_broken ? -1 : 0;
        pthread_mutex_unlock(&rpc->out_lock);
        free(line);
        return rc;
}

static json_t *envelope(const json_t *id)
{
        return json_pack("{s:s,s:O}", "jsonrpc", "2.0", "id", id ? (json_t *)id : json_null());
}

static void send_error(struct warder_rpc *rpc, const json_t *id, int code, json_t *data,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void send_error(struct warder_rpc *rpc, const json_t *id, int code, json_t *data,
                       const char *fmt, ...)
{
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        json_t *env = envelope(id);
        json_t *err = json_object();
        bool bad = !env || !err;
        if (err) {
                warder_json_set(err, "code", json_integer(code), &bad);
                /* jansson refuses invalid UTF-8: a message quoting raw input is made safe */
                warder_json_set(err, "message",
                                warder_json_utf8_valid(msg, strlen(msg))
                                    ? json_string(msg)
                                    : json_string("invalid request (the message quoted bytes "
                                                  "that are not UTF-8)"),
                                &bad);
                if (data)
                        warder_json_set(err, "data", data, &bad);
                data = NULL;
        }
        json_decref(data);
        if (env)
                warder_json_set(env, "error", err, &bad);
        else
                json_decref(err);
        send_msg(rpc, bad ? NULL : env);
        if (bad)
                json_decref(env);
}

/* ---- calls -------------------------------------------------------------------------------- */

struct warder_rpc *warder_rpc_of(const struct warder_rpc_call *call)
{
        return call->rpc;
}

const json_t *warder_rpc_call_id(const struct warder_rpc_call *call)
{
        return call->id;
}

warder_cancel *warder_rpc_call_cancel(const struct warder_rpc_call *call)
{
        return call->cancel;
}

size_t warder_rpc_max_line(const struct warder_rpc *rpc)
{
        return rpc->cfg.max_line;
}

size_t warder_rpc_max_depth(const struct warder_rpc *rpc)
{
        return rpc->cfg.max_depth;
}

size_t warder_rpc_max_pending(const struct warder_rpc *rpc)
{
        return rpc->cfg.max_pending;
}

/*
 * Marks the call answered; false when it already was. A call gives its slot back and leaves
 * the ids that cancel and the duplicate check see as it answers, so that a client holding its
 * answer may reuse the id or send the next request at once (the thread then only ends).
 */
static bool claim_answer(struct warder_rpc_call *call)
{
        struct warder_rpc *rpc = call->rpc;
        pthread_mutex_lock(&rpc->lock);
        bool first = !call->answered;
        call->answered = true;
        if (call->counted) {
                call->counted = false;
                rpc->threads--;
        }
        pthread_mutex_unlock(&rpc->lock);
        return first;
}

static void send_result(struct warder_rpc_call *call, json_t *result);

void warder_rpc_result(struct warder_rpc_call *call, json_t *result)
{
        if (!claim_answer(call) || !call->id) {
                json_decref(result);
                return;
        }
        send_result(call, result);
}

static void send_result(struct warder_rpc_call *call, json_t *result)
{
        json_t *env = envelope(call->id);
        if (!result || !env || json_object_set_new(env, "result", result)) {
                json_decref(env);
                send_error(call->rpc, call->id, WARDER_RPC_INTERNAL_ERROR, NULL, "out of memory");
                return;
        }
        send_msg(call->rpc, env);
}

void warder_rpc_error(struct warder_rpc_call *call, int code, const char *message, json_t *data)
{
        if (!claim_answer(call) || !call->id) {
                json_decref(data);
                return;
        }
        send_error(call->rpc, call->id, code, data, "%s", message);
}

static void call_free(struct warder_rpc_call *c)
{
        json_decref(c->id);
        json_decref(c->params);
        warder_cancel_free(c->cancel);
        free(c);
}

static void call_finish(struct warder_rpc_call *c)
{
        /* (only this thread answers the call: reading the flag here needs no lock) */
        if (!c->answered)
                warder_rpc_error(c, WARDER_RPC_INTERNAL_ERROR, "the method gave no answer", NULL);
        struct warder_rpc *rpc = c->rpc;
        pthread_mutex_lock(&rpc->lock);
        if (c->prev)
                c->prev->next = c->next;
        else
                rpc->calls = c->next;
        if (c->next)
                c->next->prev = c->prev;
        rpc->inflight--;
        if (c->counted)
                rpc->threads--;
        pthread_cond_broadcast(&rpc->cond);
        pthread_mutex_unlock(&rpc->lock);
        call_free(c);
}

static void *call_thread(void *arg)
{
        struct warder_rpc_call *c = arg;
        struct warder_rpc *rpc = c->rpc;
        struct ended *e = malloc(sizeof(*e)); /* before the call ends: the reader may be done */
        c->method->handler(c, c->params, rpc->cfg.ud);
        call_finish(c);
        pthread_mutex_lock(&rpc->lock);
        if (e) {
                e->thread = pthread_self();
                e->next = rpc->ended;
                rpc->ended = e;
        } else {
                pthread_detach(pthread_self());
                rpc->alive--;
        }
        pthread_cond_broadcast(&rpc->cond);
        pthread_mutex_unlock(&rpc->lock);
        return NULL;
}

/* Joins the call threads that have ended; with `all`, waits for every one (end of input),
 * so that nothing of theirs (thread-local storage included) outlives warder_rpc_run(). */
static void join_ended(struct warder_rpc *rpc, bool all)
{
        pthread_mutex_lock(&rpc->lock);
        for (;;) {
                while (rpc->ended) {
                        struct ended *e = rpc->ended;
                        rpc->ended = e->next;
                        rpc->alive--;
                        pthread_mutex_unlock(&rpc->lock);
                        pthread_join(e->thread, NULL);
                        free(e);
                        pthread_mutex_lock(&rpc->lock);
                }
                if (!all || !rpc->alive)
                        break;
                pthread_cond_wait(&rpc->cond, &rpc->lock);
        }
        pthread_mutex_unlock(&rpc->lock);
}

int warder_rpc_cancel(struct warder_rpc *rpc, const json_t *id)
{
        int found = 0;
        pthread_mutex_lock(&rpc->lock);
        for (struct warder_rpc_call *c = rpc->calls; c; c = c->next) {
                if (!c->answered && c->id && json_equal(c->id, (json_t *)id)) {
                        warder_cancel_trigger(c->cancel);
                        found = 1;
                }
        }
        pthread_cond_broadcast(&rpc->cond);
        pthread_mutex_unlock(&rpc->lock);
        return found;
}

int warder_rpc_notify(struct warder_rpc *rpc, const char *method, json_t *params)
{
        json_t *msg = json_pack("{s:s,s:s}", "jsonrpc", "2.0", "method", method);
        if (!msg) {
                json_decref(params);
                return -1;
        }
        if (params && json_object_set_new(msg, "params", params)) {
                json_decref(msg);
                return -1;
        }
        return send_msg(rpc, msg);
}

/* ---- requests to the peer ----------------------------------------------------------------- */

int warder_rpc_request(struct warder_rpc_call *call, const char *method, json_t *params,
                       int timeout_ms, json_t **result, json_t **error)
{
        struct warder_rpc *rpc = call->rpc;
        struct outgoing o = {.done = false};
        *result = *error = NULL;
        pthread_mutex_lock(&rpc->lock);
        snprintf(o.id, sizeof(o.id), "warder-%lu", ++rpc->next_out_id);
        o.next = rpc->outgoing;
        rpc->outgoing = &o;
        bool eof = rpc->eof;
        pthread_mutex_unlock(&rpc->lock);
        json_t *msg = json_pack("{s:s,s:s,s:s}", "jsonrpc", "2.0", "id", o.id, "method", method);
        bool bad = !msg || eof;
        if (msg && params && json_object_set_new(msg, "params", params))
                bad = true;
        else if (!msg)
                json_decref(params);
        if (bad)
                json_decref(msg);
        else if (send_msg(rpc, msg))
                bad = true;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t end_ms = timeout_ms > 0
                             ? (int64_t)until.tv_sec * 1000 + until.tv_nsec / 1000000 + timeout_ms
                             : INT64_MAX;
        pthread_mutex_lock(&rpc->lock);
        while (!bad && !o.done && !rpc->eof && !warder_cancel_triggered(call->cancel)) {
                /* wake now and then to look at the cancellation flag and the deadline */
                clock_gettime(CLOCK_REALTIME, &until);
                int64_t now = (int64_t)until.tv_sec * 1000 + until.tv_nsec / 1000000;
                if (now >= end_ms)
                        break;
                int64_t wake = now + 100 < end_ms ? now + 100 : end_ms;
                until.tv_sec = (time_t)(wake / 1000);
                until.tv_nsec = (long)(wake % 1000) * 1000000;
                pthread_cond_timedwait(&rpc->cond, &rpc->lock, &until);
        }
        for (struct outgoing **p = &rpc->outgoing; *p; p = &(*p)->next) {
                if (*p == &o) {
                        *p = o.next;
                        break;
                }
        }
        pthread_mutex_unlock(&rpc->lock);
        if (!o.done)
                return -1;
        *result = o.result;
        *error = o.error;
        return o.error ? 1 : 0;
}

/* An answer from the peer to one of our requests. */
static void route_answer(struct warder_rpc *rpc, json_t *msg)
{
        const json_t *id = json_object_get(msg, "id");
        if (!json_is_string(id))
                return;
        pthread_mutex_lock(&rpc->lock);
        for (struct outgoing *o = rpc->outgoing; o; o = o->next) {
                if (!o->done && strcmp(o->id, json_string_value(id)) == 0) {
                        json_t *r = json_object_get(msg, "result");
                        json_t *e = json_object_get(msg, "error");
                        o->result = r ? json_incref(r) : NULL;
                        o->error = e ? json_incref(e) : NULL;
                        if (!o->result && !o->error)
                                o->error =
                                    json_pack("{s:i,s:s}", "code", WARDER_RPC_INVALID_REQUEST,
                                              "message", "an answer without result or error");
                        o->done = true;
                        pthread_cond_broadcast(&rpc->cond);
                        break;
                }
        }
        pthread_mutex_unlock(&rpc->lock);
}

/* ---- input -------------------------------------------------------------------------------- */

static size_t depth_of(const json_t *v)
{
        size_t deepest = 0;
        if (json_is_object(v)) {
                const char *k;
                json_t *m;
                json_object_foreach((json_t *)v, k, m)
                {
                        size_t d = depth_of(m);
                        if (d > deepest)
                                deepest = d;
                }
                return deepest + 1;
        }
        if (json_is_array(v)) {
                size_t i;
                json_t *m;
                json_array_foreach(v, i, m)
                {
                        size_t d = depth_of(m);
                        if (d > deepest)
                                deepest = d;
                }
                return deepest + 1;
        }
        return 0;
}

static const struct warder_rpc_method *find_method(const struct warder_rpc *rpc, const json_t *m)
{
        const char *name = json_string_value(m);
        if (strlen(name) != json_string_length(m))
                return NULL; /* a NUL inside: no such method */
        for (size_t i = 0; i < rpc->cfg.nmethods; i++)
                if (strcmp(rpc->cfg.methods[i].name, name) == 0)
                        return &rpc->cfg.methods[i];
        return NULL;
}

static void dispatch(struct warder_rpc *rpc, json_t *msg)
{
        const json_t *id = json_object_get(msg, "id");
        bool has_id = id != NULL;
        if (has_id && !json_is_string(id) && !json_is_integer(id)) {
                send_error(rpc, NULL, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: \"id\" must be a string or an integer");
                return;
        }
        const json_t *version = json_object_get(msg, "jsonrpc");
        if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0 ||
            json_string_length(version) != 3) {
                send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: \"jsonrpc\" must be \"2.0\"");
                return;
        }
        const json_t *method = json_object_get(msg, "method");
        const char *allowed[] = {"jsonrpc", "id", "method", "params"};
        const char *answer[] = {"jsonrpc", "id", "result", "error"};
        const char *const *members = method ? allowed : answer;
        const char *key;
        json_t *value;
        json_object_foreach(msg, key, value)
        {
                bool known = false;
                for (size_t i = 0; i < 4; i++)
                        known = known || strcmp(key, members[i]) == 0;
                if (!known) {
                        send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                                   "invalid request: unknown member \"%s\"", key);
                        return;
                }
        }
        if (!method) {
                if (has_id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
                        route_answer(rpc, msg);
                else
                        send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                                   "invalid request: \"method\" is missing");
                return;
        }
        if (!json_is_string(method)) {
                send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: \"method\" must be a string");
                return;
        }
        json_t *params = json_object_get(msg, "params");
        if (params && !json_is_object(params)) {
                if (has_id)
                        send_error(rpc, id, WARDER_RPC_INVALID_PARAMS, NULL,
                                   "invalid params: \"params\" must be an object");
                return;
        }
        const struct warder_rpc_method *m = find_method(rpc, method);
        if (!m) {
                if (has_id)
                        send_error(rpc, id, WARDER_RPC_METHOD_NOT_FOUND, NULL,
                                   "method not found: \"%s\"", json_string_value(method));
                return;
        }
        struct warder_rpc_call *c = calloc(1, sizeof(*c));
        if (!c) {
                send_error(rpc, id, WARDER_RPC_INTERNAL_ERROR, NULL, "out of memory");
                return;
        }
        c->rpc = rpc;
        c->method = m;
        c->id = has_id ? json_incref((json_t *)id) : NULL;
        c->params = params ? json_incref(params) : json_object();
        if (!c->params || warder_cancel_new(&c->cancel)) {
                call_free(c);
                send_error(rpc, id, WARDER_RPC_INTERNAL_ERROR, NULL, "out of memory");
                return;
        }
        pthread_mutex_lock(&rpc->lock);
        const char *refusal = NULL;
        /* An inline call is answered before the next line is read: only calls that stay in
         * flight count against the limit (so that cancel always gets through). */
        if (m->mode == WARDER_RPC_THREAD && rpc->threads >= rpc->cfg.max_pending)
                refusal = "busy";
        for (struct warder_rpc_call *o = rpc->calls; !refusal && has_id && o; o = o->next)
                if (!o->answered && o->id && json_equal(o->id, (json_t *)id))
                        refusal = "id";
        if (!refusal) {
                c->next = rpc->calls;
                if (rpc->calls)
                        rpc->calls->prev = c;
                rpc->calls = c;
                rpc->inflight++;
                if (m->mode == WARDER_RPC_THREAD) {
                        rpc->threads++;
                        c->counted = true;
                }
        }
        pthread_mutex_unlock(&rpc->lock);
        if (refusal) {
                if (strcmp(refusal, "busy") == 0)
                        send_error(rpc, id, WARDER_RPC_BUSY, NULL,
                                   "too many requests in flight (the limit is %zu)",
                                   rpc->cfg.max_pending);
                else
                        send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                                   "invalid request: \"id\" is already used by a request in "
                                   "flight");
                call_free(c);
                return;
        }
        if (m->mode == WARDER_RPC_INLINE) {
                m->handler(c, c->params, rpc->cfg.ud);
                call_finish(c);
                return;
        }
        join_ended(rpc, false);
        pthread_t t;
        pthread_mutex_lock(&rpc->lock);
        rpc->alive++;
        pthread_mutex_unlock(&rpc->lock);
        int rc = pthread_create(&t, NULL, call_thread, c);
        if (rc) {
                pthread_mutex_lock(&rpc->lock);
                rpc->alive--;
                pthread_mutex_unlock(&rpc->lock);
                warder_rpc_error(c, WARDER_RPC_INTERNAL_ERROR, "cannot start a thread", NULL);
                call_finish(c);
        }
}

/*
 * An upper bound on the number of JSON values in a line, without parsing it: the commas,
 * brackets and braces outside strings, plus one. A line at the length limit could otherwise
 * hold eight million values and cost jansson some 350 MB; this keeps the cost of a request
 * in proportion to what a request can mean. (jansson still parses and judges the line.)
 */
static size_t count_values(const char *p, size_t len)
{
        size_t n = 1;
        bool in_string = false;
        for (size_t i = 0; i < len; i++) {
                char c = p[i];
                if (in_string) {
                        if (c == '\\')
                                i++;
                        else if (c == '"')
                                in_string = false;
                } else if (c == '"') {
                        in_string = true;
                } else if (c == ',' || c == '[' || c == '{') {
                        n++;
                }
        }
        return n;
}

static void process_line(struct warder_rpc *rpc, const char *line, size_t len)
{
        if (len && line[len - 1] == '\r')
                len--;
        size_t blank = 0;
        while (blank < len && (line[blank] == ' ' || line[blank] == '\t'))
                blank++;
        if (blank == len)
                return; /* an empty line is no message */
        size_t values = count_values(line, len);
        if (values > WARDER_RPC_MAX_VALUES) {
                send_error(rpc, NULL, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: more than %zu values in one request",
                           (size_t)WARDER_RPC_MAX_VALUES);
                return;
        }
        json_error_t jerr;
        json_t *msg =
            json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);
        if (!msg) {
                send_error(rpc, NULL, WARDER_RPC_PARSE_ERROR, NULL, "parse error at byte %d: %s",
                           jerr.position, jerr.text);
                return;
        }
        const json_t *id = json_is_object(msg) ? json_object_get(msg, "id") : NULL;
        if (id && !json_is_string(id) && !json_is_integer(id))
                id = NULL;
        size_t depth = depth_of(msg);
        if (depth > rpc->cfg.max_depth)
                send_error(rpc, id, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: nested %zu levels deep (the limit is %zu)", depth,
                           rpc->cfg.max_depth);
        else if (json_is_array(msg))
                send_error(rpc, NULL, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: batches are not supported; send one request per "
                           "line");
        else if (!json_is_object(msg))
                send_error(rpc, NULL, WARDER_RPC_INVALID_REQUEST, NULL,
                           "invalid request: a request is a JSON object");
        else
                dispatch(rpc, msg);
        json_decref(msg);
}

int warder_rpc_run(struct warder_rpc *rpc)
{
        char chunk[65536];
        char *line = NULL;
        size_t len = 0, cap = 0;
        bool discarding = false;
        int status = 0;
        for (;;) {
                ssize_t n = read(rpc->cfg.in_fd, chunk, sizeof(chunk));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        status = -1;
                        break;
                }
                if (n == 0)
                        break;
                size_t i = 0;
                while (i < (size_t)n) {
                        char *nl = memchr(chunk + i, '\n', (size_t)n - i);
                        size_t seg = nl ? (size_t)(nl - (chunk + i)) : (size_t)n - i;
                        if (!discarding && len + seg > rpc->cfg.max_line) {
                                send_error(rpc, NULL, WARDER_RPC_INVALID_REQUEST, NULL,
                                           "invalid request: a line longer than %zu bytes (the "
                                           "limit); the rest of it is discarded",
                                           rpc->cfg.max_line);
                                discarding = true;
                                len = 0;
                        }
                        if (!discarding && seg) {
                                if (len + seg > cap) {
                                        size_t ncap = cap ? cap : 65536;
                                        while (ncap < len + seg)
                                                ncap *= 2;
                                        char *p = realloc(line, ncap);
                                        if (!p) {
                                                send_error(rpc, NULL, WARDER_RPC_INTERNAL_ERROR,
                                                           NULL, "out of memory");
                                                discarding = true;
                                                len = 0;
                                        } else {
                                                line = p;
                                                cap = ncap;
                                        }
                                }
                                if (!discarding) {
                                        memcpy(line + len, chunk + i, seg);
                                        len += seg;
                                }
                        }
                        i += seg;
                        if (nl) {
                                i++;
                                if (!discarding)
                                        process_line(rpc, line, len);
                                discarding = false;
                                len = 0;
                                if (cap > ((size_t)1 << 20)) { /* do not keep a big buffer */
                                        free(line);
                                        line = NULL;
                                        cap = 0;
                                }
                        }
                }
        }
        if (len && !discarding)
                process_line(rpc, line, len);
        free(line);
        /* End of input: cancel what is in flight and wait for it. */
        pthread_mutex_lock(&rpc->lock);
        rpc->eof = true;
        for (struct warder_rpc_call *c = rpc->calls; c; c = c->next)
                warder_cancel_trigger(c->cancel);
        pthread_cond_broadcast(&rpc->cond);
        while (rpc->inflight)
                pthread_cond_wait(&rpc->cond, &rpc->lock);
        pthread_mutex_unlock(&rpc->lock);
        join_ended(rpc, true);
        return status;
}

int warder_rpc_new(struct warder_rpc **out, const struct warder_rpc_config *cfg)
{
        struct warder_rpc *rpc = calloc(1, sizeof(*rpc));
        if (!rpc)
                return -1;
        rpc->cfg = *cfg;
        if (!rpc->cfg.max_line)
                rpc->cfg.max_line = WARDER_RPC_MAX_LINE;
        if (!rpc->cfg.max_depth)
                rpc->cfg.max_depth = WARDER_RPC_MAX_DEPTH;
        if (!rpc->cfg.max_pending)
                rpc->cfg.max_pending = WARDER_RPC_MAX_PENDING;
        pthread_mutex_init(&rpc->lock, NULL);
        pthread_mutex_init(&rpc->out_lock, NULL);
        pthread_cond_init(&rpc->cond, NULL);
        *out = rpc;
        return 0;
}

void warder_rpc_free(struct warder_rpc *rpc)
{
        if (!rpc)
                return;
        pthread_mutex_destroy(&rpc->lock);
        pthread_mutex_destroy(&rpc->out_lock);
        pthread_cond_destroy(&rpc->cond);
        free(rpc);
}
