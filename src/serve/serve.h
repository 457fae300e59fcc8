/* SPDX-License-Identifier: MIT */
/*
 * warder's own JSON-RPC methods over a session (docs/serve.md): session.info, check, explain,
 * read, write, edit, ls, glob, grep, execute (when the session can execute), approve,
 * ruleset.reload and cancel.
 */
#ifndef WARDER_SERVE_H
#define WARDER_SERVE_H

#include <stddef.h>

#include "session/session.h"

struct warder_serve_config {
        struct warder_session *session; /* borrowed */
        int in_fd, out_fd;
        size_t max_line, max_depth, max_pending; /* 0: the rpc layer's defaults */
};

/* Serves until end of input; running executes are then cancelled (their process groups
 * killed) and waited for. 0 at end of input, -1 on a read or set-up error. */
int warder_serve_run(const struct warder_serve_config *cfg);

#endif
