/* SPDX-License-Identifier: MIT */
/*
 * Several roots (semantics §8.2): one session per root behind a small dispatcher, for a door
 * that serves several workspaces at once (the MCP server, as the reference filesystem server
 * serves several "allowed directories").
 *
 * Each session is an ordinary one-root session (session.h): its ruleset is loaded with that
 * root (patterns anchor there, §2.11), its local backend is confined to that root, its guard
 * decides everything. The dispatcher only chooses which session gets a request, by the
 * literal form of its target (§3.1): the session of the longest root that holds it. A target
 * that no root holds goes to the first session, which refuses it as it refuses any target
 * outside its root. A symbolic link from one root into another leaves the root of the session
 * that serves it, so that session's backend cannot resolve it and the guard refuses it
 * (§3.3): a link is never followed into another root's session.
 */
#ifndef WARDER_SESSION_ROOTS_H
#define WARDER_SESSION_ROOTS_H

#include <stddef.h>

#include "session/session.h"

#define WARDER_SESSION_MAX_ROOTS 64

struct warder_session_set;

/*
 * One session per root of `roots` (absolute directories; duplicates after normalisation are
 * dropped, the first spelling stays). `cfg` is used for every session with its `root`
 * replaced; cfg->ruleset, when given, must have been loaded with the first root and is used
 * for the first session only (the others load cfg->source with their own root).
 */
int warder_session_set_new(struct warder_session_set **out, const struct warder_session_config *cfg,
                           const char *const *roots, size_t nroots, struct warder_error *err);
void warder_session_set_free(struct warder_session_set *set);

size_t warder_session_set_count(const struct warder_session_set *set);
/* The i-th session (0 is the first root's), borrowed. */
struct warder_session *warder_session_set_at(struct warder_session_set *set, size_t i);

/*
 * The session that serves `target` (`len` bytes): relative targets are joined to the first
 * root, then the longest root holding the literal form wins; the first session when none
 * does. *literal (may be NULL) receives the literal form (free with warder_free()). Errors:
 * those of warder_path_normalize() (an empty target, a NUL byte: WARDER_EINVAL).
 */
int warder_session_set_pick(struct warder_session_set *set, const char *target, size_t len,
                            struct warder_session **out, char **literal, struct warder_error *err);

/* True when `path` (absolute, normalised) is `root` or lies beneath it. */
bool warder_session_path_under(const char *path, const char *root);

#endif
