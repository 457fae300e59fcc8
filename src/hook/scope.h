/* SPDX-License-Identifier: MIT */
/*
 * What an agent's own tool will touch, seen from a hook (semantics §9.2): the path the kernel
 * opens for a spelling, and every name a listing, a glob or a search reaches beneath a
 * directory. A hook cannot filter what the agent's tool returns, so the scope of such a tool is
 * decided as a whole: its strictest entry decides.
 */
#ifndef WARDER_HOOK_SCOPE_H
#define WARDER_HOOK_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "warder/warder.h"

/*
 * The path the kernel opens for `abs` (absolute, as spelled, not normalised): every symbolic
 * link followed the way the kernel follows it (a `..` after a link from the link's target, the
 * magic links of /proc included); a tail that does not exist is appended as written, `.` and
 * `..` in it applied lexically. *out is freed with free(). Returns 0 or a negative errno.
 */
int warder_hook_kernel_real(const char *abs, char **out);

/* True for a path through /proc/<pid>/root, cwd, fd or map_files, or /dev/fd, which names
 * something other than what it spells (as §5.4 says of command arguments). */
bool warder_hook_proc_path(const char *literal);

/* A filter on names built from a simple pattern: `*.E`, `*.{E1,E2,...}`, each with any number
 * of leading `**` components. Names are compared without regard to case, at any depth, which
 * keeps at least every name the agent's tool can match. */
#define WARDER_HOOK_FILTER_MAX 16
struct warder_hook_filter {
        size_t n;
        char ext[WARDER_HOOK_FILTER_MAX][32];
};

/* Parses `pattern` (NUL-terminated); false when it is not of a simple form (then nothing is
 * filtered). */
bool warder_hook_filter_parse(const char *pattern, struct warder_hook_filter *f);
bool warder_hook_filter_match(const struct warder_hook_filter *f, const char *name);

/* The length of the leading components of `pattern` that hold no glob syntax, through the
 * last `/` before the first component that does; *literal is set (and the whole length
 * returned) when no component does. */
size_t warder_hook_pattern_prefix(const char *pattern, bool *literal);

/* One walk of a scope. */
struct warder_hook_scan {
        /* in */
        const warder_ruleset *rs;
        enum warder_op ops[2];
        size_t nops;
        bool files_only; /* read and grep: directories themselves are not decided */
        int max_depth;   /* 1: the directory's own entries only */
        const struct warder_hook_filter *filter; /* NULL: every name */
        size_t *budget;                          /* entries left, shared by an event's scans */
        /* out: the strictest decision of an entry, and its literal path (free()) */
        bool have;
        struct warder_decision decision;
        char *culprit;
        bool over_budget; /* the budget ran out before the walk ended */
        char *unreadable; /* a directory that could not be read (free()), or NULL */
};

/*
 * Walks the directory whose literal form is `literal` and whose kernel real form is `real`
 * (see above), deciding every entry beneath it for each of `ops` on its literal form (the
 * directory's spelling and the entry's names) and its real form. Symbolic links are decided on
 * their target, and a link to a directory is walked as the kernel would follow it. A scope
 * that is not a directory walks nothing. Returns 0 or WARDER_ENOMEM.
 */
int warder_hook_scan(struct warder_hook_scan *sc, const char *literal, const char *real);
/* Releases the results. */
void warder_hook_scan_clear(struct warder_hook_scan *sc);

#endif
