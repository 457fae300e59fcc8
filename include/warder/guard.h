/* SPDX-License-Identifier: MIT */
#ifndef WARDER_GUARD_H
#define WARDER_GUARD_H

#include <stdbool.h>

#include "backend.h"
#include "error.h"
#include "export.h"
#include "ruleset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a guard is about to do, as shown to the approval and audit callbacks (made by the
 * library: `version` is WARDER_GUARD_REQUEST_VERSION). */
#define WARDER_GUARD_REQUEST_VERSION 1
struct warder_guard_request {
        unsigned version;
        enum warder_op op;
        const char *target;  /* the target as the caller gave it (path, pattern or command) */
        const char *literal; /* literal form (§3.1); the command line for execute */
        const char *real;    /* real form (§3.2); NULL for execute */
        /* The ruleset that made the decision (the request's own reference, §4.10): bind an
         * approval to warder_ruleset_digest() of it. Valid during the callback. */
        const warder_ruleset *rules;
};

/* Returns true to approve an `ask` (§4.4). Called synchronously, on the calling thread. */
typedef bool (*warder_approve_fn)(void *ud, const struct warder_guard_request *req,
                                  const struct warder_decision *decision);

/* The answers of an approve_ex callback. */
enum warder_approval {
        WARDER_APPROVAL_DECLINE = 0, /* refused: the operation fails with WARDER_EDENIED */
        WARDER_APPROVAL_GRANT = 1,   /* approved: the operation goes on */
        WARDER_APPROVAL_DEFER = 2,   /* not answered now: WARDER_EASK, as without a callback
                                      * (a host that asks its user out of band and retries) */
};

/* Like warder_approve_fn with a third answer; any other value is a decline. */
typedef enum warder_approval (*warder_approve_ex_fn)(void *ud,
                                                     const struct warder_guard_request *req,
                                                     const struct warder_decision *decision);

/* One decision, as reported to the audit callback (§4.9); `version` is
 * WARDER_AUDIT_EVENT_VERSION. */
#define WARDER_AUDIT_EVENT_VERSION 1
struct warder_audit_event {
        unsigned version;
        const struct warder_guard_request *request;
        const struct warder_decision *decision;
        bool approval_asked; /* the approval callback was called */
        bool approved;       /* …and approved (or the request carried WARDER_APPROVED) */
        bool filtered;       /* a result entry (ls/glob/grep) rather than the request itself */
        enum warder_action final_action; /* after approval */
};

typedef void (*warder_audit_fn)(void *ud, const struct warder_audit_event *event);

struct warder_guard_options {
        unsigned version;
        const char *root; /* NULL: the ruleset's root */
        const char *home; /* NULL: the ruleset's home */
        warder_approve_fn approve;
        void *approve_ud;
        warder_audit_fn audit;
        void *audit_ud;
        /* The environment commands will run with ("NAME=VALUE", NULL-terminated): declared
         * variables for §5.5 and the default env of execute requests. Copied. */
        const char *const *env;
        /* Version 2: the approval callback with a third answer, DEFER (§4.4); it is called
         * with approve_ud. Set approve or approve_ex, not both (WARDER_EINVAL). */
        warder_approve_ex_fn approve_ex;
};

#define WARDER_GUARD_OPTIONS_VERSION 2
#define WARDER_GUARD_OPTIONS_INIT                                                                  \
        {                                                                                          \
                WARDER_GUARD_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL       \
        }

/* Initialises `opts` as WARDER_GUARD_OPTIONS_INIT does, for a caller built against `version`
 * of the struct (only that version's members are written); WARDER_EINVAL for an unknown one. */
WARDER_API int warder_guard_options_init(struct warder_guard_options *opts, unsigned version);

/*
 * Wraps `inner` (§4.1). On success the guard owns `inner` and takes its own reference to
 * `rules`; on failure the caller still owns both. The guard is a backend: use the
 * warder_backend_<verb>() functions on it, and warder_backend_free() to free it (and inner).
 */
WARDER_API int warder_guard_new(warder_backend **out, warder_backend *inner, warder_ruleset *rules,
                                const struct warder_guard_options *opts, struct warder_error *err);

/* True when `b` is a guard. */
WARDER_API bool warder_guard_is(const warder_backend *b);

/* Replaces the ruleset atomically (§4.10): a request in flight keeps the one it started
 * with. Takes a new reference to `rules`. WARDER_EINVAL when `guard` is not a guard. */
WARDER_API int warder_guard_set_ruleset(warder_backend *guard, warder_ruleset *rules);

/* A new reference to the current ruleset in *out (release it with warder_ruleset_free()).
 * WARDER_EINVAL when `guard` is not a guard. */
WARDER_API int warder_guard_ruleset(warder_ruleset **out, const warder_backend *guard);

/* Decides without forwarding: what the guard would decide for `op` on `target`. */
WARDER_API int warder_guard_check(struct warder_decision *out, warder_backend *guard,
                                  enum warder_op op, const char *target, size_t target_len,
                                  struct warder_error *err);

/*
 * Decides a command line as warder_backend_execute() on the guard would decide it when run
 * from `cwd` (normalised against the root the way an execute request's cwd is; NULL: the
 * root), without running anything: the inspection of §5 with the guard's environment, path
 * candidates resolved and globs expanded through the inner backend. WARDER_EINVAL for an
 * empty command or one holding a NUL byte.
 */
WARDER_API int warder_guard_check_command(warder_backend *guard, const char *command, size_t len,
                                          const char *cwd, struct warder_decision *out,
                                          struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
