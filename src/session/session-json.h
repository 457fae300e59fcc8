/* SPDX-License-Identifier: MIT */
#ifndef WARDER_SESSION_JSON_H
#define WARDER_SESSION_JSON_H

/* A session's results as JSON, for the doors and the CLI (session-json.c); the encoder of
 * decisions and of the library's results is json/json.h, below the session. */

#include "json/json.h"
#include "session/session.h"

/* The result of a session operation, by operation: read "content","bytes","truncated";
 * write "bytes"; edit "replacements"; ls/glob "entries","hidden"; grep "matches",
 * "hidden_files","truncated"; execute as warder_json_put_exec(). */
int warder_session_json_result(json_t *obj, enum warder_op op,
                               const struct warder_session_result *r);
/* What a failed operation carries besides its code and message: "decision" (or null), and on
 * WARDER_EASK "approval": {"token","expires_in_ms"} when a token was issued, and
 * "token_refused" when the token that came with the request did not approve it. */
int warder_session_json_failure(json_t *obj, int status, const struct warder_error *err,
                                const struct warder_session_result *r);

#endif
