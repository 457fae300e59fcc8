/* SPDX-License-Identifier: MIT */
/* Several roots: one session per root behind a dispatcher (see roots.h). */
#include <stdlib.h>
#include <string.h>

#include "session/roots.h"

struct warder_session_set {
        size_t count;
        struct warder_session *sessions[WARDER_SESSION_MAX_ROOTS];
};

bool warder_session_path_under(const char *path, const char *root)
{
        size_t n = strlen(root);
        if (strcmp(root, "/") == 0)
                return path[0] == '/';
        return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int warder_session_set_new(struct warder_session_set **out, const struct warder_session_config *cfg,
                           const char *const *roots, size_t nroots, struct warder_error *err)
{
        if (!out || !cfg || !roots || nroots == 0)
                return warder_error_set(err, WARDER_EINVAL, "session set: no roots");
        if (nroots > WARDER_SESSION_MAX_ROOTS)
                return warder_error_set(err, WARDER_ELIMIT, "more than %d roots",
                                        WARDER_SESSION_MAX_ROOTS);
        struct warder_session_set *set = calloc(1, sizeof(*set));
        if (!set)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        int rc = 0;
        for (size_t i = 0; i < nroots && !rc; i++) {
                if (!roots[i] || roots[i][0] != '/') {
                        rc = warder_error_set(err, WARDER_EINVAL, "a root must be absolute: '%s'",
                                              roots[i] ? roots[i] : "(null)");
                        break;
                }
                bool dup = false;
                for (size_t k = 0; k < set->count && !dup; k++) {
                        char *a = NULL;
                        if (warder_path_normalize(&a, NULL, "/", NULL, NULL, roots[i],
                                                  strlen(roots[i]), NULL) == 0)
                                dup = strcmp(a, warder_session_root(set->sessions[k])) == 0;
                        warder_free(a);
                }
                if (dup)
                        continue;
                struct warder_session_config c = *cfg;
                c.root = roots[i];
                if (i > 0)
                        c.ruleset = NULL; /* loaded again, anchored at this root */
                rc = warder_session_new(&set->sessions[set->count], &c, err);
                if (!rc)
                        set->count++;
        }
        if (rc) {
                warder_session_set_free(set);
                return rc;
        }
        *out = set;
        return 0;
}

void warder_session_set_free(struct warder_session_set *set)
{
        if (!set)
                return;
        for (size_t i = 0; i < set->count; i++)
                warder_session_free(set->sessions[i]);
        free(set);
}

size_t warder_session_set_count(const struct warder_session_set *set)
{
        return set->count;
}

struct warder_session *warder_session_set_at(struct warder_session_set *set, size_t i)
{
        return i < set->count ? set->sessions[i] : NULL;
}

int warder_session_set_pick(struct warder_session_set *set, const char *target, size_t len,
                            struct warder_session **out, char **literal, struct warder_error *err)
{
        struct warder_session *first = set->sessions[0];
        char *lit = NULL;
        int rc = warder_path_normalize(&lit, NULL, warder_session_root(first),
                                       warder_session_home(first), NULL, target, len, err);
        if (rc)
                return rc;
        struct warder_session *best = first;
        size_t best_len = 0;
        for (size_t i = 0; i < set->count; i++) {
                const char *root = warder_session_root(set->sessions[i]);
                size_t n = strlen(root);
                if (warder_session_path_under(lit, root) && n > best_len) {
                        best = set->sessions[i];
                        best_len = n;
                }
        }
        *out = best;
        if (literal)
                *literal = lit;
        else
                warder_free(lit);
        return 0;
}
