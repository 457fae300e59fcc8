/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 over newline-delimited messages on a pair of descriptors (stdio), with jansson:
 * framing, limits, errors, pipelining and cancellation. It knows methods only through the
 * table a door gives it (warder serve, the MCP server).
 *
 * - One message per line; a line longer than max_line is refused with an error as soon as the
 *   limit is crossed and the rest of it is discarded up to the next newline.
 * - Requests are parsed with duplicate keys rejected; more than WARDER_RPC_MAX_VALUES values,
 *   nesting deeper than max_depth, a batch,
 *   an unknown member, a bad `jsonrpc`, `id`, `method` or `params` are refused with the
 *   JSON-RPC codes below and a message that names the member. The session keeps serving.
 * - An INLINE method runs on the reading thread, in order; a THREAD method runs on a thread of
 *   its own, so that later requests are served while it runs (responses carry the id).
 *   At most max_pending THREAD calls are in flight; more are refused with WARDER_RPC_BUSY
 *   (INLINE calls are answered before the next line is read, so cancel always gets through).
 * - Every call has a cancellation flag (warder_rpc_call_cancel()), raised by
 *   warder_rpc_cancel() and for every call in flight at end of input; warder_rpc_run()
 *   returns once they are all done.
 */
#ifndef WARDER_RPC_H
#define WARDER_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "warder/backend.h"

/* JSON-RPC 2.0 codes, and the implementation-defined ones warder uses. */
enum {
        WARDER_RPC_PARSE_ERROR = -32700,
        WARDER_RPC_INVALID_REQUEST = -32600,
        WARDER_RPC_METHOD_NOT_FOUND = -32601,
        WARDER_RPC_INVALID_PARAMS = -32602,
        WARDER_RPC_INTERNAL_ERROR = -32603,
        WARDER_RPC_BUSY = -32000, /* too many requests in flight */
        /* A warder status S (a negative enum warder_status) is reported as -32000 + S:
         * WARDER_EDENIED -32001, WARDER_EASK -32002, … WARDER_ELIMIT -32021. */
        WARDER_RPC_STATUS_BASE = -32000,
};

#define WARDER_RPC_MAX_LINE    ((size_t)16 << 20)
#define WARDER_RPC_MAX_DEPTH   64
#define WARDER_RPC_MAX_PENDING 64
/* JSON values (numbers, strings, arrays, objects…) in one request; a request needs a few. */
#define WARDER_RPC_MAX_VALUES 100000

struct warder_rpc;
struct warder_rpc_call;

/* Handles one call: must end it with warder_rpc_result() or warder_rpc_error() (a call left
 * without an answer gets an internal error). `params` is an object (empty when absent). */
typedef void (*warder_rpc_handler)(struct warder_rpc_call *call, json_t *params, void *ud);

enum warder_rpc_mode {
        WARDER_RPC_INLINE = 0, /* on the reading thread: fast, in order; must not block long */
        WARDER_RPC_THREAD = 1, /* on a thread of its own */
};

struct warder_rpc_method {
        const char *name;
        warder_rpc_handler handler;
        enum warder_rpc_mode mode;
};

struct warder_rpc_config {
        int in_fd, out_fd;
        const struct warder_rpc_method *methods;
        size_t nmethods;
        void *ud;           /* handed to every handler */
        size_t max_line;    /* 0: WARDER_RPC_MAX_LINE */
        size_t max_depth;   /* 0: WARDER_RPC_MAX_DEPTH */
        size_t max_pending; /* 0: WARDER_RPC_MAX_PENDING */
};

int warder_rpc_new(struct warder_rpc **out, const struct warder_rpc_config *cfg);
/* Serves until end of input (or a read error); then cancels what is in flight and waits for
 * it. Returns 0 at end of input, -1 on a read error. */
int warder_rpc_run(struct warder_rpc *rpc);
void warder_rpc_free(struct warder_rpc *rpc);

/* Answers a call (once; `result`/`data` are stolen, `data` may be NULL). */
void warder_rpc_result(struct warder_rpc_call *call, json_t *result);
void warder_rpc_error(struct warder_rpc_call *call, int code, const char *message, json_t *data);

struct warder_rpc *warder_rpc_of(const struct warder_rpc_call *call);
/* The request's id (borrowed; NULL for a notification, which gets no answer). */
const json_t *warder_rpc_call_id(const struct warder_rpc_call *call);
/* The call's cancellation flag (borrowed; NULL when it could not be made). */
warder_cancel *warder_rpc_call_cancel(const struct warder_rpc_call *call);
/* The configured limits. */
size_t warder_rpc_max_line(const struct warder_rpc *rpc);
size_t warder_rpc_max_depth(const struct warder_rpc *rpc);
size_t warder_rpc_max_pending(const struct warder_rpc *rpc);

/* Raises the cancellation flag of the call in flight with this id: 1 found, 0 not. */
int warder_rpc_cancel(struct warder_rpc *rpc, const json_t *id);

/* Sends a notification (`params` stolen, may be NULL). -1 when output failed. */
int warder_rpc_notify(struct warder_rpc *rpc, const char *method, json_t *params);

/*
 * Sends a request to the peer and waits for its answer (for a door whose protocol asks the
 * client, such as MCP's elicitation). Only from a THREAD method. `params` is stolen. On
 * return 0, *result (a new reference) is the peer's result; 1: *error is the peer's error
 * object; -1: no answer within timeout_ms (0: wait until end of input), the call's
 * cancellation or the end of input.
 */
int warder_rpc_request(struct warder_rpc_call *call, const char *method, json_t *params,
                       int timeout_ms, json_t **result, json_t **error);

#endif
