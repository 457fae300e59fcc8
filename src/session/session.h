/* SPDX-License-Identifier: MIT */
/*
 * One guarded session: a ruleset (file, preset or text), root and home, the local backend
 * (with the exec backend when execute is enabled), the guard over it, an audit sink and the
 * approvals. Every door (the CLI, `warder serve`, the MCP server, the hooks) reaches the guard
 * through this object, so that a request takes the same path whichever door it came in by:
 * door → session → guard → backend.
 *
 * It is built on libwarder's public API only (what a host could write) and does no I/O of its
 * own besides the audit lines it is given a stream for: it never prints, never reads stdin.
 * All functions are safe to call from several threads at once on one session.
 */
#ifndef WARDER_SESSION_H
#define WARDER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "warder/warder.h"

/* Where a ruleset comes from. */
enum warder_session_source_kind {
        WARDER_SESSION_PRESET = 0, /* value: a preset name (NULL: "default") */
        WARDER_SESSION_FILE,       /* value: a file path */
        WARDER_SESSION_TEXT,       /* value/len: YAML (or JSON, a subset of YAML) text */
};

struct warder_session_source {
        enum warder_session_source_kind kind;
        const char *value;
        size_t len;       /* TEXT only */
        const char *name; /* TEXT only: the name in messages (NULL: "<string>") */
};

/* Approval tokens (semantics §7.3): defaults and limits. */
#define WARDER_SESSION_APPROVAL_TTL_MS    300000u
#define WARDER_SESSION_MAX_APPROVALS      1024u
#define WARDER_SESSION_MAX_APPROVAL_BYTES ((size_t)64 << 20)

struct warder_session_config {
        struct warder_session_source source;
        /* A ruleset the door loaded itself from `source` (the session takes its own
         * reference); NULL: the session loads `source`. Reloads read `source` again. */
        warder_ruleset *ruleset;
        const char *root; /* absolute; NULL: the current directory */
        const char *home; /* absolute, or NULL (then `~` patterns do not load) */
        /* The local backend's options (NULL: defaults). `exec` in them enables execute;
         * their mask_denied is ignored: set mask_denied here to mask what the session's
         * ruleset of the moment denies (a reload reaches the next command, §6.5). */
        const struct warder_local_options *local;
        bool mask_denied;
        /* The environment commands run with and that §5.5 declares ("NAME=VALUE", NULL-
         * terminated); copied. NULL: PATH, HOME (when home is set) and LANG=C.UTF-8. */
        const char *const *env;
        FILE *audit;               /* borrowed: one JSON line per decision; NULL: none */
        uint32_t approval_ttl_ms;  /* 0: WARDER_SESSION_APPROVAL_TTL_MS */
        size_t max_approvals;      /* tokens kept at once (0: WARDER_SESSION_MAX_APPROVALS) */
        size_t max_approval_bytes; /* bytes of bindings kept (0: ..._MAX_APPROVAL_BYTES) */
        /*
         * Stateless tokens, for a door without memory between requests (the CLI): the token
         * spells out what it binds (operation, both forms, ruleset digest, expiry) and is
         * checked against the request it comes back with. It is not a secret and cannot be
         * single-use; it cannot approve anything but the request it was issued for.
         */
        bool stateless_approvals;
        /* A door that can ask a person right now (the CLI's --interactive): consulted when no
         * valid token came with the request; false declines (WARDER_EDENIED). */
        warder_approve_fn approve;
        void *approve_ud;
        /* Like approve, with a third answer (used instead of it when set): DEFER fails the
         * request with WARDER_EASK and issues no token, for a door that will retry the
         * request where it can ask (the MCP server, from a thread of its own). */
        warder_approve_ex_fn approve_ex;
};

struct warder_session;

/* Loads the ruleset and builds the backend and the guard. Errors carry the ruleset's
 * file:line:column. */
int warder_session_new(struct warder_session **out, const struct warder_session_config *cfg,
                       struct warder_error *err);
void warder_session_free(struct warder_session *s);

/* The guard (borrowed; valid while the session lives). */
warder_backend *warder_session_backend(struct warder_session *s);
/* A new reference to the current ruleset. */
warder_ruleset *warder_session_ruleset(struct warder_session *s);
const char *warder_session_root(const struct warder_session *s);
const char *warder_session_home(const struct warder_session *s);
bool warder_session_can_execute(const struct warder_session *s);
uint32_t warder_session_approval_ttl_ms(const struct warder_session *s);
/* The current source as text ("preset:default", a file path, or the text's name) into buf. */
void warder_session_source_name(struct warder_session *s, char *buf, size_t size);

/*
 * Loads a ruleset (from `src`, or NULL: the current source again) with the session's root
 * and home and swaps it in atomically (§4.10): requests in flight keep the one they started
 * with. On failure the session keeps its ruleset. *changed (may be NULL) says whether the
 * digest differs. Approvals issued under another digest stop working (§7.3).
 */
int warder_session_reload(struct warder_session *s, const struct warder_session_source *src,
                          bool *changed, struct warder_error *err);

/*
 * Decides without touching anything, as the guard would (§3.3): the real form is resolved
 * through the backend unless `real` is given. A target under the root whose real form cannot
 * be resolved (a symlink leaving the root, a loop) is at least ask; one outside the root is
 * decided on its literal form. execute: the command line, inspected as in §5 with the
 * session's environment, real forms and glob expansion.
 */
int warder_session_check(struct warder_session *s, enum warder_op op, const char *target,
                         size_t len, const char *real, struct warder_decision *out,
                         struct warder_error *err);
/* Decides a command line (§5) as an execute from `cwd` would be decided (NULL: the root;
 * relative: from the root), without running it. */
int warder_session_check_command(struct warder_session *s, const char *command, size_t len,
                                 const char *cwd, struct warder_decision *out,
                                 struct warder_error *err);
/* The same as an explanation (free with warder_explanation_free()). */
int warder_session_explain(struct warder_session *s, enum warder_op op, const char *target,
                           size_t len, const char *real, struct warder_explanation **out,
                           struct warder_error *err);

/* One guarded operation. Unused members stay zero. */
struct warder_session_request {
        enum warder_op op;
        const char *target; /* path; glob/grep: the base (NULL: the root); execute: command */
        size_t target_len;
        const char *pattern;    /* glob: the pattern; grep: the regex (NUL-terminated) */
        const char *include;    /* grep: a glob filter on file paths, or NULL */
        uint64_t offset, limit; /* read */
        const char *text;       /* write: the content; edit: the old text */
        size_t text_len;
        const char *text2; /* edit: the new text */
        size_t text2_len;
        unsigned flags;     /* WARDER_EDIT_ALL, WARDER_GREP_CASELESS (never WARDER_APPROVED) */
        size_t max_matches; /* grep, 0: the backend's cap */
        unsigned threads;   /* grep, 0: one per online CPU (the result is the same) */
        const char *cwd;    /* execute */
        uint32_t timeout_ms;
        size_t max_output;
        warder_exec_stream_fn stream;
        void *stream_ud;
        warder_cancel *cancel;
        /* Approval (§7.3): a token from an earlier WARDER_EASK, and what the door binds besides
         * the forms (e.g. the request's parameters), compared byte for byte. */
        const char *token;
        const void *binding;
        size_t binding_len;
};

struct warder_session_result {
        struct warder_bytes bytes;     /* read */
        struct warder_entries entries; /* ls, glob */
        struct warder_grep_result grep;
        struct warder_exec_result exec;
        size_t count; /* write: bytes written; edit: replacements */
        /* WARDER_EASK: a token that approves exactly this request, and for how long. */
        char *token;
        uint32_t token_ttl_ms;
        /* Why the token that came with the request did not approve it (static), or NULL. */
        const char *token_refused;
};

/* Runs the request. On WARDER_EDENIED/WARDER_EASK err->decision holds the decision; on
 * WARDER_EASK res->token a fresh approval token. Free `res` in every case. */
int warder_session_run(struct warder_session *s, const struct warder_session_request *req,
                       struct warder_session_result *res, struct warder_error *err);
void warder_session_result_free(struct warder_session_result *res);

/* A copy of the binding an unused, unexpired token was issued with (free()); WARDER_ENOENT
 * when there is no such token (never consumes it). */
int warder_session_approval_binding(struct warder_session *s, const char *token, char **binding,
                                    size_t *len);

/*
 * The real form of `literal` (absolute, normalised) as backend `b` resolves it (§3.2), for
 * check and explain: the session's and `warder check`'s one implementation. Returns 0 with
 * *real set (warder_free() it), or NULL when `b` and `no_backend` are NULL (the root does not
 * exist, so nothing of the target does: real == literal) or when a target outside `root`
 * cannot be resolved (it is decided on its literal form). With `b` NULL and `no_backend` set
 * (why no backend could be opened on the root), nothing under the root can be resolved. Returns 1
 * when `literal` lies under `root` but cannot be resolved (a symlink leaving the root, a loop, a
 * directory that cannot be searched), with *why (free() it; NULL when out of memory) naming the
 * actual cause: the decision must then be at least ask (warder_session_unresolved()).
 */
int warder_session_real_form(warder_backend *b, const char *no_backend, const char *root,
                             const char *literal, char **real, char **why);
/* Raises an allow to ask for such a target, with a note saying `why` (owned by `d`, which
 * becomes a deep copy of itself: clear it with warder_decision_clear()); other actions
 * stay. */
void warder_session_unresolved(struct warder_decision *d, const char *why);

#endif
