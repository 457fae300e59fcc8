/* SPDX-License-Identifier: MIT */
#ifndef WARDER_BACKENDS_EXEC_H
#define WARDER_BACKENDS_EXEC_H

/*
 * The exec backend (§6.3): runs `/bin/sh -c COMMAND` confined to a root. The local backend
 * builds a configuration from its options and calls warder__exec_run(); tests call it
 * directly.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "warder/backend.h"
#include "warder/error.h"
#include "warder/local.h"

#include "landlock.h"

/* Defaults (also documented in docs/execute.md). */
#define WARDER__EXEC_TIMEOUT_MS          60000u
#define WARDER__EXEC_MAX_OUTPUT          ((size_t)1 << 20)
#define WARDER__EXEC_MASK_BUDGET_MS      2000u
#define WARDER__EXEC_MASK_BUDGET_ENTRIES ((size_t)100000)
#define WARDER__EXEC_DEFAULT_PATH        "PATH=/usr/local/bin:/usr/bin:/bin"

struct warder__exec_config {
        const char *root; /* absolute, normalised, an existing directory */
        int root_fd;      /* an open descriptor of the root, or -1 */
        /* The child's whole environment; NULL: only WARDER__EXEC_DEFAULT_PATH. */
        const char *const *env;
        uint32_t timeout_ms; /* 0: WARDER__EXEC_TIMEOUT_MS */
        size_t max_output;   /* per stream; 0: WARDER__EXEC_MAX_OUTPUT */
        bool drop_privileges;
        uid_t uid;
        gid_t gid;
        enum warder_landlock_mode landlock;
        const char *const *landlock_read;  /* NULL: the system defaults */
        const char *const *landlock_write; /* besides the root */
        /*
         * Masking (§6.5): `mask` decides every request (tests), or with `mask_requests` each
         * request's own predicate does (a request without one is refused). The backend never
         * holds a ruleset: a guard passes its current ruleset's answer with each request.
         */
        warder_exec_mask_fn mask;
        void *mask_ud;
        bool mask_requests;
        uint32_t mask_budget_ms;    /* 0: WARDER__EXEC_MASK_BUDGET_MS */
        size_t mask_budget_entries; /* 0: WARDER__EXEC_MASK_BUDGET_ENTRIES */
        /*
         * Opens the working directory (absolute, normalised) beneath the root as an
         * O_PATH|O_DIRECTORY|O_CLOEXEC descriptor. NULL: openat2(RESOLVE_BENEATH) on the root.
         */
        int (*open_dir)(void *ud, const char *path, int *fd_out, struct warder_error *err);
        void *open_dir_ud;
};

/* Fills `cfg` from the local backend's options (no allocation; pointers are borrowed). */
void warder__exec_config_from_options(struct warder__exec_config *cfg, const char *root,
                                      int root_fd, const struct warder_local_options *opts);

/*
 * Runs the request. Returns 0 when the command ran (whatever its exit status; see
 * out->exit_status, out->signal, out->timed_out), or a negative status when it was not run:
 * WARDER_EINVAL (bad request), WARDER_EOUTSIDE (cwd outside the root), WARDER_ENOTSUP
 * (Landlock required but unavailable), WARDER_ELIMIT (masking walk over budget),
 * WARDER_EACCES/WARDER_EIO (set-up failed in the child). `out` is untouched on failure;
 * on success its buffers are freed with free() (warder_exec_result_free()).
 */
int warder__exec_run(const struct warder__exec_config *cfg, const struct warder_exec_request *req,
                     struct warder_exec_result *out, struct warder_error *err);

/*
 * Tests only. `warder__exec_test_hook` (when set) is called in the parent with stage 0 after
 * the masking walk, before the child starts, and with stage 1 once the child has started the
 * command. `warder__exec_test_mask_by_name` mounts each mask on the name the walk met instead
 * of on the file it opened (what the fd binding replaced: a control arm for the rename race).
 */
extern void (*warder__exec_test_hook)(int stage);
extern bool warder__exec_test_mask_by_name;

/*
 * The local backend's execute operation (§6.3): runs `req` in the root of `l` (its root
 * descriptor and options; what to mask comes with `req`: the backend holds no ruleset), the
 * working directory opened with the backend's confinement. `req` and `out` are as
 * warder_backend_execute() hands them over (`out` is zeroed; fill it with the result helpers;
 * outputs untouched on failure).
 */
struct local;
int warder__local_exec(struct local *l, const struct warder_exec_request *req,
                       struct warder_exec_result *out, struct warder_error *err);

#endif
