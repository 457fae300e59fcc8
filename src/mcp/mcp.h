/* SPDX-License-Identifier: MIT */
/*
 * warder mcp: a Model Context Protocol server over stdio (docs/mcp.md, semantics §8) on the
 * JSON-RPC layer (src/rpc), serving a set of sessions (src/session/roots.h), one per root.
 *
 * Lifecycle: initialize (protocol versions 2025-11-25, 2025-06-18, 2025-03-26), the
 * notifications/initialized notification, ping, tools/list, tools/call and
 * notifications/cancelled. The tools carry the reference filesystem server's names and
 * argument names (read_text_file, read_multiple_files, write_file, edit_file,
 * list_directory, directory_tree, search_files, list_allowed_directories) plus grep and,
 * when the sessions can run commands and the rules can ever allow or ask one, execute.
 * A request through a tool takes the one path: tool → session → guard → backend.
 *
 * Nothing here prints: diagnostics are the door's (the CLI's stderr).
 */
#ifndef WARDER_MCP_H
#define WARDER_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/roots.h"

/* How long an elicitation may wait for the user before it counts as a decline. */
#define WARDER_MCP_ELICITATION_TIMEOUT_MS 300000u
/* How often a running tool called with a progress token reports that it is still running. */
#define WARDER_MCP_PROGRESS_INTERVAL_MS 1000u

struct warder_mcp_config {
        struct warder_session_set *sessions; /* borrowed; built with warder_mcp_approve */
        int in_fd, out_fd;
        size_t max_line, max_depth, max_pending; /* 0: the rpc layer's defaults */
        bool no_execute;                         /* never list execute */
        uint32_t elicitation_timeout_ms;         /* 0: WARDER_MCP_ELICITATION_TIMEOUT_MS */
        uint32_t progress_interval_ms;           /* 0: WARDER_MCP_PROGRESS_INTERVAL_MS */
};

/* Serves until end of input; running commands are then cancelled and waited for.
 * 0 at end of input, -1 on a read or set-up error. */
int warder_mcp_run(const struct warder_mcp_config *cfg);

/*
 * The sessions' approval callback (struct warder_session_config.approve_ex, approve_ud NULL).
 * For the tool call served on this thread: when its client declared the elicitation
 * capability, asks the user through elicitation/create (from a thread of its own; a call
 * served in order on the reading thread is deferred — DEFER — and run again on one) and
 * answers GRANT on an accept with approve true, DECLINE otherwise, on a timeout or on
 * cancellation; without the capability, DEFER (the request fails with WARDER_EASK:
 * "approval required"). Outside a tool call: DECLINE.
 */
enum warder_approval warder_mcp_approve(void *ud, const struct warder_guard_request *req,
                                        const struct warder_decision *d);

/* True when `rs` can ever allow or ask an execute (its default or one of its rules). */
bool warder_mcp_rules_may_execute(const warder_ruleset *rs);

#endif
