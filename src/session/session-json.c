/* SPDX-License-Identifier: MIT */
/* A session's results as JSON (session-json.h). */
#include "session/session-json.h"

int warder_session_json_result(json_t *obj, enum warder_op op,
                               const struct warder_session_result *r)
{
        bool bad = false;
        switch (op) {
        case WARDER_OP_READ:
                return warder_json_put_read(obj, &r->bytes);
        case WARDER_OP_WRITE:
                warder_json_set(obj, "bytes", json_integer((json_int_t)r->count), &bad);
                break;
        case WARDER_OP_EDIT:
                warder_json_set(obj, "replacements", json_integer((json_int_t)r->count), &bad);
                break;
        case WARDER_OP_LS:
        case WARDER_OP_GLOB:
                return warder_json_put_entries(obj, &r->entries);
        case WARDER_OP_GREP:
                return warder_json_put_grep(obj, &r->grep);
        case WARDER_OP_EXECUTE:
                return warder_json_put_exec(obj, &r->exec);
        }
        return bad ? -1 : 0;
}

int warder_session_json_failure(json_t *obj, int status, const struct warder_error *err,
                                const struct warder_session_result *r)
{
        bool bad = false;
        warder_json_set(obj, "decision",
                        err && err->decision ? warder_json_decision(err->decision) : json_null(),
                        &bad);
        if (status == WARDER_EASK && r && r->token)
                warder_json_set(obj, "approval",
                                json_pack("{s:s,s:I}", "token", r->token, "expires_in_ms",
                                          (json_int_t)r->token_ttl_ms),
                                &bad);
        if (r && r->token_refused)
                warder_json_set(obj, "token_refused", json_string(r->token_refused), &bad);
        return bad ? -1 : 0;
}
