/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_H
#define WARDER_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "error.h"
#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum warder_landlock_mode {
        WARDER_LANDLOCK_OFF = 0,
        WARDER_LANDLOCK_BEST_EFFORT,
        WARDER_LANDLOCK_REQUIRED,
};

struct warder_local_options {
        unsigned version;
        bool follow_symlinks;    /* follow symlinks that stay inside the root (default true) */
        uint64_t max_read;       /* read cap in bytes (0: 16 MiB) */
        uint64_t max_write;      /* write cap in bytes (0: 16 MiB) */
        uint64_t grep_max_file;  /* bytes scanned per file (0: 16 MiB) */
        size_t grep_max_matches; /* total matches (0: 10,000) */
        bool grep_skip_binary;   /* default true */
        bool force_fallback;     /* tests: behave as if openat2 were missing */

        /* execute (§6.3): off unless `exec` is true. */
        bool exec;
        const char *const *exec_env; /* the child's whole environment, NULL-terminated */
        uint32_t exec_timeout_ms;    /* default deadline (0: 60 s) */
        size_t exec_max_output;      /* per stream (0: 1 MiB) */
        bool drop_privileges;        /* setgroups/setgid/setuid to the ids below */
        uint32_t uid;
        uint32_t gid;
        enum warder_landlock_mode landlock;
        const char *const *landlock_read;  /* extra readable trees (NULL: system defaults) */
        const char *const *landlock_write; /* extra writable trees besides the root */
        /* Masking (§6.5): before each command, walk the root and cover in the command's own
         * mount namespace what the request's `mask` predicate says — files denied for read
         * by empty stand-ins, files denied for write by read-only binds. A guard passes the
         * predicate of its ruleset at the time of the request; the backend holds no ruleset.
         * A request without a predicate is refused. The string arrays above are copied. */
        bool mask_denied;
        uint32_t mask_budget_ms;    /* walk budget (0: 2 s) */
        size_t mask_budget_entries; /* walk budget (0: 100,000) */

        /* Version 3. Acting as the agent (§6.6): when `act_as_agent` is true, every file
         * operation (read, write, edit, ls, glob, grep, realpath) runs with these file system
         * credentials on the calling thread — fsuid `agent_uid`, fsgid `agent_gid` and exactly
         * the `agent_ngroups` supplementary groups of `agent_groups` (copied; at most 256) —
         * so the kernel's permission checks apply to the agent as well as the rules. The
         * host's credentials are restored after each operation; a switch or restore that fails
         * fails the operation (WARDER_EIO), never proceeds with the wrong credentials.
         * warder_local_new() refuses (WARDER_EACCES) when this process cannot switch (it needs
         * CAP_SETUID and CAP_SETGID, and no file system capability left once the fsuid is the
         * agent's), and refuses uid 0 or gid 0 (WARDER_EINVAL): acting as root adds nothing.
         * It changes nothing for execute: set drop_privileges, uid and gid for commands. */
        bool act_as_agent;
        uint32_t agent_uid;
        uint32_t agent_gid;
        const uint32_t *agent_groups;
        size_t agent_ngroups;
};

#define WARDER_LOCAL_OPTIONS_VERSION 3
#define WARDER_LOCAL_OPTIONS_INIT                                                                  \
        {                                                                                          \
                WARDER_LOCAL_OPTIONS_VERSION, true, 0, 0, 0, 0, true, false, false, NULL, 0, 0,    \
                    false, 0, 0, WARDER_LANDLOCK_OFF, NULL, NULL, false, 0, 0, false, 0, 0, NULL,  \
                    0                                                                              \
        }

/* Initialises `opts` as WARDER_LOCAL_OPTIONS_INIT does (its defaults are not all zero), for a
 * caller built against `version` of the struct; WARDER_EINVAL for an unknown one. */
WARDER_API int warder_local_options_init(struct warder_local_options *opts, unsigned version);

/*
 * A real directory tree confined to `root` (§6.2), which must be an absolute path to an
 * existing directory. Paths handed to the backend are absolute host paths; one outside the
 * root is WARDER_EOUTSIDE.
 */
WARDER_API int warder_local_new(warder_backend **out, const char *root,
                                const struct warder_local_options *opts, struct warder_error *err);

#ifdef __cplusplus
}
#endif

#endif
