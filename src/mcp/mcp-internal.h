/* SPDX-License-Identifier: MIT */
/* What the MCP server's files share: the server state, one tool call, text buffers. */
#ifndef WARDER_MCP_INTERNAL_H
#define WARDER_MCP_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/mcp.h"
#include "mcp/tools.h"
#include "rpc/rpc.h"

struct mcp {
        struct warder_session_set *sessions;
        struct warder_rpc *rpc;
        pthread_mutex_t lock; /* phase and what initialize set */
        int phase;            /* 0 new, 1 initialize answered, 2 initialized notified */
        char version[16];     /* the negotiated protocol version */
        bool structured;      /* outputSchema and structuredContent (2025-06-18 on) */
        bool elicitation;     /* the client can be asked (form elicitation) */
        bool execute;         /* the execute tool is listed */
        uint32_t elicitation_ms, progress_ms;
};

/* What became of the last approval asked for during a call. */
enum mcp_ask {
        MCP_ASK_NONE = 0,
        MCP_ASK_ACCEPTED,
        MCP_ASK_DECLINED,
        MCP_ASK_UNAVAILABLE, /* the client cannot be asked (no elicitation capability) */
        MCP_ASK_TIMEOUT,
        MCP_ASK_CANCELLED,
        MCP_ASK_FAILED, /* the client answered the elicitation with an error */
};

struct mcp_call {
        struct mcp *m;
        struct warder_rpc_call *call;
        const struct mcp_tool *tool;
        json_t *args;
        enum mcp_ask ask;
        bool needs_thread; /* an ask met on the reading thread: run again on a thread */
        /* progress notifications (a client's progressToken) */
        json_t *progress_token;
        pthread_t tick_thread;
        pthread_mutex_t tick_lock;
        pthread_cond_t tick_cond;
        bool tick_inited, ticking, tick_stop;
        _Atomic size_t output_bytes;
};

struct sbuf {
        char *p;
        size_t len, cap;
        bool oom;
};

void sb_add(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_safe(struct sbuf *b, const char *s, size_t n);
void sb_safe_str(struct sbuf *b, const char *s);
void sb_free(struct sbuf *b);

/* A tool's answer: the text the model reads and the structuredContent object. */
struct mcp_out {
        struct sbuf text;
        json_t *sc;
        bool error;
};

/* The rule, its source and reason, one "\n  key: value" line each. */
void mcp_describe_decision(struct sbuf *b, const struct warder_decision *d);

/* Runs c->tool with c->args into `o` (tools.c's tools, implemented in ops.c). */
void mcp_run_tool(struct mcp_call *c, struct mcp_out *o);

#endif
