/* SPDX-License-Identifier: MIT */
/*
 * The guarded backend (§4): a backend that wraps another one and puts every operation through
 * a ruleset. Order inside every operation (§4.2): normalise → both path forms → decide →
 * forward the real form to the inner backend → filter the results.
 *
 * The guard keeps two static ops tables, with and without `execute`, chosen at construction
 * from the inner backend (§4.8). The ruleset pointer is swapped under a mutex and every
 * request works on its own reference, so a request sees one ruleset from start to end
 * (§4.10).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "util.h"
#include "warder/guard.h"
#include "warder/sys/backend.h"

struct guard {
        struct warder_backend base; /* first member: the backend header */
        warder_backend *inner;
        pthread_mutex_t lock; /* protects `rules` (the pointer, not the ruleset) */
        warder_ruleset *rules;
        char *root; /* normalised, or NULL: the ruleset's */
        char *home; /* normalised, or NULL: the ruleset's */
        warder_approve_fn approve;
        warder_approve_ex_fn approve_ex;
        void *approve_ud;
        warder_audit_fn audit;
        void *audit_ud;
        char **env;          /* NULL-terminated copy, or NULL */
        bool inner_realpath; /* the inner backend has realpath (its ops never change) */
        unsigned inner_caps; /* what the inner backend promises (WARDER_BACKEND_CAP_*) */
};

/* What one request works with: its own ruleset reference, and the root and home in force. */
struct request {
        struct guard *g;
        warder_ruleset *rs;
        const char *root;
        const char *home;
};

static const struct warder_backend_ops guard_ops;
static const struct warder_backend_ops guard_ops_exec;

static struct guard *guard_of(warder_backend *b)
{
        return (struct guard *)b;
}

WARDER_API bool warder_guard_is(const warder_backend *b)
{
        return b && (b->ops == &guard_ops || b->ops == &guard_ops_exec);
}

/* ---- ruleset references (§4.10) ---------------------------------------------------------- */

static warder_ruleset *acquire_rules(struct guard *g)
{
        pthread_mutex_lock(&g->lock);
        warder_ruleset *rs = warder_ruleset_ref(g->rules);
        pthread_mutex_unlock(&g->lock);
        return rs;
}

static void request_begin(struct request *r, struct guard *g)
{
        r->g = g;
        r->rs = acquire_rules(g);
        r->root = g->root ? g->root : warder_ruleset_root(r->rs);
        r->home = g->home ? g->home : warder_ruleset_home(r->rs);
}

static void request_end(struct request *r)
{
        warder_ruleset_free(r->rs);
        r->rs = NULL;
}

/* ---- errors ------------------------------------------------------------------------------ */

/* "read denied by rule read:0 '**\/.env' (Protect sensitive files) at rules/x.yaml:12:7" */
static int refuse(struct warder_error *err, int code, const struct warder_decision *d,
                  const char *what)
{
        if (!warder__err_ok(err))
                return code;
        struct warder__buf m = WARDER__BUF_INIT;
        int rc = warder__buf_printf(&m, "%s %s", warder_op_name(d->op), what);
        if (!rc && d->by_default) {
                rc = warder__buf_printf(&m, " by the %s default", warder_op_name(d->op));
        } else if (!rc && d->rule_id) { /* (a raise names no rule: its note says why) */
                rc = warder__buf_printf(&m, " by rule %s '%s'", d->rule_id,
                                        d->pattern ? d->pattern : "");
                if (!rc && d->reason)
                        rc = warder__buf_printf(&m, " (%s)", d->reason);
                if (!rc && d->file)
                        rc = warder__buf_printf(&m, " at %s:%u:%u", d->file, d->line, d->column);
                if (!rc && d->form == WARDER_FORM_REAL)
                        rc = warder__buf_puts(&m, " [real form]");
        }
        if (!rc && d->segment && d->segment[0])
                rc = warder__buf_printf(&m, " in '%s'", d->segment);
        if (!rc && d->candidate)
                rc = warder__buf_printf(&m, " for %s of '%s'", warder_op_name(d->candidate_op),
                                        d->candidate);
        if (!rc && d->note)
                rc = warder__buf_printf(&m, "; %s", d->note);
        warder_error_set(err, code, "%s", rc ? what : m.data);
        warder__buf_free(&m);
        struct warder_decision *copy = malloc(sizeof(*copy));
        if (copy)
                *copy = (struct warder_decision)WARDER_DECISION_INIT;
        if (copy && warder_decision_copy(copy, d) == 0) {
                err->decision = copy;
        } else {
                free(copy);
                /* The status still says what happened; only the detail is missing. */
        }
        return code;
}

/* ---- the gate: deny / ask / allow for the request itself (§4.3, §4.4, §4.9) -------------- */

static void audit(struct guard *g, const struct warder_guard_request *req,
                  const struct warder_decision *d, bool asked, bool approved, bool filtered,
                  enum warder_action final_action)
{
        if (!g->audit)
                return;
        struct warder_audit_event ev = {
            .version = WARDER_AUDIT_EVENT_VERSION,
            .request = req,
            .decision = d,
            .approval_asked = asked,
            .approved = approved,
            .filtered = filtered,
            .final_action = final_action,
        };
        g->audit(g->audit_ud, &ev);
}

/* Returns 0 when the request may go on, else EDENIED or EASK with the decision in err. */
static int gate(struct guard *g, const struct warder_guard_request *req,
                const struct warder_decision *d, unsigned flags, struct warder_error *err)
{
        switch (d->action) {
        case WARDER_ALLOW:
                audit(g, req, d, false, false, false, WARDER_ALLOW);
                return 0;
        case WARDER_DENY:
                audit(g, req, d, false, false, false, WARDER_DENY);
                return refuse(err, WARDER_EDENIED, d, "denied");
        case WARDER_ASK:
                break;
        }
        if (d->action != WARDER_ASK) /* not an action: fail closed */
                return refuse(err, WARDER_EDENIED, d, "denied");
        if (flags & WARDER_APPROVED) {
                audit(g, req, d, false, true, false, WARDER_ALLOW);
                return 0;
        }
        if (g->approve_ex) {
                enum warder_approval a = g->approve_ex(g->approve_ud, req, d);
                if (a == WARDER_APPROVAL_GRANT) {
                        audit(g, req, d, true, true, false, WARDER_ALLOW);
                        return 0;
                }
                if (a == WARDER_APPROVAL_DEFER) {
                        audit(g, req, d, true, false, false, WARDER_ASK);
                        return refuse(err, WARDER_EASK, d, "needs approval");
                }
                /* DECLINE, or not an answer: fail closed */
                audit(g, req, d, true, false, false, WARDER_DENY);
                return refuse(err, WARDER_EDENIED, d, "not approved, asked");
        }
        if (!g->approve) {
                audit(g, req, d, false, false, false, WARDER_ASK);
                return refuse(err, WARDER_EASK, d, "needs approval");
        }
        bool yes = g->approve(g->approve_ud, req, d);
        audit(g, req, d, true, yes, false, yes ? WARDER_ALLOW : WARDER_DENY);
        return yes ? 0 : refuse(err, WARDER_EDENIED, d, "not approved, asked");
}

/* ---- path forms (§3) --------------------------------------------------------------------- */

/* The real form of an absolute, normalised path through the inner backend (§3.2), or NULL in
 * *out when the inner backend has no realpath (real == literal). */
static int real_form(struct request *r, const char *lit, size_t lit_len, char **out,
                     struct warder_error *err)
{
        *out = NULL;
        if (!r->g->inner_realpath)
                return 0;
        char *real = NULL;
        int rc = warder_backend_realpath(&real, r->g->inner, lit, lit_len, err);
        if (rc)
                return rc;
        if (!real || real[0] != '/') {
                free(real);
                return warder_error_set(err, WARDER_EBACKEND,
                                        "the inner backend returned a bad real form");
        }
        /* What is decided and what is forwarded is one normalised string. */
        struct warder__buf b = WARDER__BUF_INIT;
        rc = warder__path_normalize_buf(&b, NULL, NULL, NULL, real, strlen(real), err);
        free(real);
        if (rc) {
                warder__buf_free(&b);
                return rc;
        }
        if (strcmp(b.data, lit) == 0) {
                warder__buf_free(&b);
                return 0;
        }
        *out = warder__buf_steal(&b);
        return 0;
}

/*
 * §4.5: an edit is also decided on the read rules (its answer says whether a text is in the
 * file); the stricter decision wins, and a read decision that is stricter names the read rule.
 */
static int also_read(struct request *r, const char *lit, const char *real,
                     struct warder_decision *d, struct warder_error *err)
{
        struct warder_decision rd = WARDER_DECISION_INIT;
        int rc = warder_ruleset_check(&rd, r->rs, WARDER_OP_READ, lit, strlen(lit), real,
                                      (real ? strlen(real) : 0), err);
        if (rc) {
                warder_decision_clear(d);
                return rc;
        }
        if (rd.action > d->action) {
                warder_decision_clear(d);
                *d = rd;
        } else {
                warder_decision_clear(&rd);
        }
        return 0;
}

/*
 * Normalises `target`, computes its real form and decides `op` on both (§3.3). On success the
 * literal form is in `lit`, the real form (or NULL) in *real, the decision in *d (strings
 * borrowed from r->rs). When the real form cannot be computed the literal form alone is
 * decided: a deny there still wins (no existence oracle), otherwise the error stands.
 */
static int decide_path(struct request *r, enum warder_op op, const char *target, size_t len,
                       struct warder__buf *lit, char **real, struct warder_decision *d,
                       struct warder_error *err)
{
        *real = NULL;
        int rc = warder__path_normalize_buf(lit, r->root, r->home, NULL, target, len, err);
        if (rc)
                return rc;
        /* (An error is large: only a backend with realpath needs one here.) */
        struct warder_error rerr;
        int real_rc = 0;
        if (r->g->inner_realpath) {
                rerr = (struct warder_error)WARDER_ERROR_INIT;
                real_rc = real_form(r, lit->data, lit->len, real, &rerr);
        }
        rc = warder_ruleset_check(d, r->rs, op, lit->data, lit->len, *real,
                                  (*real ? strlen(*real) : 0), err);
        if (!rc && op == WARDER_OP_EDIT)
                rc = also_read(r, lit->data, *real, d, err);
        if (rc) {
                if (real_rc)
                        warder_error_clear(&rerr);
                free(*real);
                *real = NULL;
                return rc;
        }
        if (real_rc) {
                /* Without a real form nothing can be forwarded; only a deny may still be
                 * reported, so that a denied target answers the same whatever exists. */
                if (d->action == WARDER_DENY) {
                        warder_error_clear(&rerr);
                        return 0;
                }
                warder_decision_clear(d);
                warder__error_move(err, &rerr);
                return real_rc;
        }
        return 0;
}

/* Normalise + both forms + decide + gate: what every path operation starts with. */
static int admit_path(struct request *r, enum warder_op op, const char *target, unsigned flags,
                      struct warder__buf *lit, char **real, struct warder_error *err)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        if (!target)
                return warder_error_set(err, WARDER_EINVAL, "%s: no target", warder_op_name(op));
        size_t len = strlen(target);
        int rc = decide_path(r, op, target, len, lit, real, &d, err);
        if (rc)
                return rc;
        struct warder_guard_request req = {
            .version = WARDER_GUARD_REQUEST_VERSION,
            .op = op,
            .target = target,
            .literal = lit->data,
            .real = *real ? *real : lit->data,
            .rules = r->rs,
        };
        rc = gate(r->g, &req, &d, flags, err);
        warder_decision_clear(&d);
        if (rc) {
                free(*real);
                *real = NULL;
        }
        return rc;
}

/* The path to forward: the real form when there is one. */
static const char *fwd(const struct warder__buf *lit, const char *real)
{
        return real ? real : lit->data;
}

static size_t fwd_len(const struct warder__buf *lit, const char *real)
{
        return real ? strlen(real) : lit->len;
}

/* §4.2: what is forwarded is a real form whenever the inner backend has realpath (also when it
 * equals the literal form), so the inner backend must open it without following symlinks: a
 * symlink swapped in after the decision is then an error, not an escape. */
static unsigned fwd_flags(const struct request *r, unsigned flags)
{
        return r->g->inner_realpath ? flags | WARDER_NOFOLLOW : flags;
}

/* ---- storage operations (§4.5) ----------------------------------------------------------- */

/*
 * A read whose literal form is allowed, from a backend that refuses every symlink under
 * WARDER_NOFOLLOW (WARDER_BACKEND_CAP_STRICT_NOFOLLOW): the literal form is forwarded as it
 * is. If the backend opened it, no component was a symlink, so it was its own real form and
 * the decision was complete (§3.3). If it met a symlink it answers WARDER_ESYMLINK having read
 * nothing, and the read goes the long way (*done false). Deny and ask always go the long way.
 */
static int read_literal_first(struct request *r, const char *path, uint64_t offset, uint64_t limit,
                              unsigned flags, struct warder_bytes *out, struct warder_error *err,
                              bool *done)
{
        *done = false;
        struct warder__buf lit = WARDER__BUF_INIT;
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = warder__path_normalize_buf(&lit, r->root, r->home, NULL, path, strlen(path), NULL);
        if (!rc)
                rc = warder_ruleset_check(&d, r->rs, WARDER_OP_READ, lit.data, lit.len, NULL, 0,
                                          NULL);
        if (!rc && d.action == WARDER_ALLOW) {
                /* Audited before forwarding, like every decision; a read that then meets a
                 * symlink is decided and audited again the long way. */
                struct warder_guard_request req = {
                    WARDER_GUARD_REQUEST_VERSION, WARDER_OP_READ, path, lit.data, lit.data, r->rs};
                audit(r->g, &req, &d, false, false, false, WARDER_ALLOW);
                struct warder_error attempt = WARDER_ERROR_INIT;
                rc = warder_backend_read(out, r->g->inner, lit.data, lit.len, offset, limit,
                                         flags | WARDER_NOFOLLOW, &attempt);
                if (rc != WARDER_ESYMLINK) {
                        if (rc)
                                warder__error_move(err, &attempt);
                        *done = true;
                }
                warder_error_clear(&attempt);
        }
        warder_decision_clear(&d);
        warder__buf_free(&lit);
        return *done ? rc : 0;
}

static int guard_read(warder_backend *b, const char *path, uint64_t offset, uint64_t limit,
                      unsigned flags, struct warder_bytes *out, struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        bool done = false;
        int rc = 0;
        if (path && r.g->inner_realpath && (r.g->inner_caps & WARDER_BACKEND_CAP_STRICT_NOFOLLOW))
                rc = read_literal_first(&r, path, offset, limit, flags, out, err, &done);
        if (!done) {
                rc = admit_path(&r, WARDER_OP_READ, path, flags, &lit, &real, err);
                if (!rc)
                        rc = warder_backend_read(out, r.g->inner, fwd(&lit, real),
                                                 fwd_len(&lit, real), offset, limit,
                                                 fwd_flags(&r, flags), err);
        }
        free(real);
        warder__buf_free(&lit);
        request_end(&r);
        return rc;
}

static int guard_write(warder_backend *b, const char *path, const void *data, size_t len,
                       unsigned flags, struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        int rc = admit_path(&r, WARDER_OP_WRITE, path, flags, &lit, &real, err);
        if (!rc)
                rc = warder_backend_write(r.g->inner, fwd(&lit, real), fwd_len(&lit, real), data,
                                          len, fwd_flags(&r, flags), err);
        free(real);
        warder__buf_free(&lit);
        request_end(&r);
        return rc;
}

static int guard_edit(warder_backend *b, const char *path, const char *old_text, size_t old_len,
                      const char *new_text, size_t new_len, unsigned flags, size_t *count,
                      struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        int rc = admit_path(&r, WARDER_OP_EDIT, path, flags, &lit, &real, err);
        if (!rc)
                rc = warder_backend_edit(count, r.g->inner, fwd(&lit, real), fwd_len(&lit, real),
                                         old_text, old_len, new_text, new_len, fwd_flags(&r, flags),
                                         err);
        free(real);
        warder__buf_free(&lit);
        request_end(&r);
        return rc;
}

/* ---- result filtering (§4.6, §4.7) ------------------------------------------------------- */

/* Where the caller's spelling of the base differs from its real form, a result path under the
 * real base has a second literal spelling under the literal base; it is decided too. */
static int alt_spelling(struct warder__buf *out, const char *base_lit, const char *base_real,
                        const char *path)
{
        warder__buf_truncate(out, 0);
        if (!base_real || strcmp(base_lit, base_real) == 0)
                return 0;
        size_t n = strlen(base_real);
        const char *tail;
        if (n == 1 && base_real[0] == '/')
                tail = path; /* keeps its leading '/' */
        else if (strncmp(path, base_real, n) == 0 && (path[n] == '/' || path[n] == '\0'))
                tail = path + n;
        else
                return 0;
        int rc = warder__buf_puts(out, base_lit);
        if (!rc && strcmp(base_lit, "/") == 0)
                warder__buf_truncate(out, 0);
        if (!rc)
                rc = warder__buf_puts(out, tail);
        if (!rc && out->len == 0)
                rc = warder__buf_putc(out, '/');
        return rc;
}

static void keep_stricter(struct warder_decision *acc, bool *have, struct warder_decision *d)
{
        if (!*have || d->action > acc->action) {
                if (*have)
                        warder_decision_clear(acc);
                *acc = *d;
                *have = true;
        } else {
                warder_decision_clear(d);
        }
        *d = (struct warder_decision)WARDER_DECISION_INIT;
}

/*
 * Decides one result path for `op` (and `op2` unless it equals `op`): its own literal form,
 * its real form (through the inner backend when `resolve`), and its spelling under the
 * caller's base. The strictest decision lands in *out. Any failure to decide is a refusal:
 * returns 1 (drop the entry) except for ENOMEM, which is returned.
 */
static int decide_result(struct request *r, enum warder_op op, enum warder_op op2, const char *path,
                         bool resolve, const char *base_lit, const char *base_real,
                         struct warder__buf *lit, struct warder__buf *alt,
                         struct warder_decision *out, char **real_out)
{
        *real_out = NULL;
        int rc = warder__path_normalize_buf(lit, r->root, r->home, NULL, path, strlen(path), NULL);
        if (rc)
                return rc == WARDER_ENOMEM ? rc : 1;
        char *real = NULL;
        if (resolve) {
                rc = real_form(r, lit->data, lit->len, &real, NULL);
                if (rc)
                        return rc == WARDER_ENOMEM ? rc : 1;
        }
        rc = alt_spelling(alt, base_lit, base_real, lit->data);
        if (rc) {
                free(real);
                return rc;
        }
        bool have = false;
        enum warder_op ops[2] = {op, op2};
        size_t nops = op2 == op ? 1 : 2;
        for (size_t i = 0; i < nops && rc == 0; i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                rc = warder_ruleset_check(&d, r->rs, ops[i], lit->data, lit->len, real,
                                          (real ? strlen(real) : 0), NULL);
                if (!rc)
                        keep_stricter(out, &have, &d);
                if (!rc && alt->len) {
                        rc = warder_ruleset_check(&d, r->rs, ops[i], alt->data, alt->len, NULL, 0,
                                                  NULL);
                        if (!rc)
                                keep_stricter(out, &have, &d);
                }
        }
        if (rc) {
                if (have)
                        warder_decision_clear(out);
                free(real);
                return rc == WARDER_ENOMEM ? rc : 1;
        }
        *real_out = real;
        return 0;
}

/* Reports a result entry's decision to the audit callback. */
static void audit_result(struct request *r, enum warder_op op, const char *path,
                         const struct warder__buf *lit, const char *real,
                         const struct warder_decision *d)
{
        if (!r->g->audit)
                return;
        struct warder_guard_request req = {
            .version = WARDER_GUARD_REQUEST_VERSION,
            .op = op,
            .target = path,
            .literal = lit->data,
            .real = real ? real : lit->data,
            .rules = r->rs,
        };
        audit(r->g, &req, d, false, false, true, d->action);
}

/*
 * Whether `path` lies below `base` (both absolute; `base` normalised) and every component
 * after the base is a name (none empty, `.` or `..`), so that the path is what it spells; or,
 * with `self`, is `base` itself. *last receives its last component. A result the inner
 * backend places anywhere else is not what was asked for, whatever it claims (§4.1).
 */
static bool path_below(const char *base, const char *path, bool self, const char **last)
{
        size_t n = strlen(base);
        if (n == 1)
                n = 0;
        if (strncmp(path, base, n) != 0)
                return false;
        const char *p = path + n;
        *last = NULL;
        if (!*p)
                return self && n;
        while (*p == '/') {
                const char *c = p + 1;
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 1 && c[0] == '.') ||
                    (len == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                *last = c;
                p = c + len;
        }
        return !*p && *last;
}

/* Is this entry where a listing of `base` may put it: below it (directly for ls), named by
 * its path's last component? */
static bool in_place(const char *base, const struct warder_entry *e, bool ls)
{
        const char *last;
        return path_below(base, e->path, false, &last) && strcmp(last, e->name) == 0 &&
               (!ls || last == e->path + (strlen(base) == 1 ? 1 : strlen(base) + 1));
}

/*
 * Drops every entry that is not allowed for `op` (§4.6), counting the drops in `hidden`; and
 * every entry the listing cannot hold (in_place). Only a backend that promises true entry
 * types (WARDER_BACKEND_CAP_REAL_RESULTS) has its non-symlink ls entries taken for their own
 * real form. The container is compacted in place (the library allocated it). On failure (out
 * of memory) every entry not yet decided is dropped too, and the error is returned.
 */
static int filter_entries(struct request *r, enum warder_op op, const char *base_lit,
                          const char *base_real, bool ls, struct warder_entries *ents)
{
        struct warder__buf lit = WARDER__BUF_INIT, alt = WARDER__BUF_INIT;
        bool can_real = r->g->inner_realpath;
        bool true_types = r->g->inner_caps & WARDER_BACKEND_CAP_REAL_RESULTS;
        const char *real_base = base_real ? base_real : base_lit;
        int rc = 0;
        size_t kept = 0;
        for (size_t i = 0; i < ents->count; i++) {
                struct warder_entry *e = &ents->items[i];
                bool keep = false;
                if (rc == 0 && e->path && in_place(real_base, e, ls)) {
                        bool resolve =
                            can_real && (!ls || !true_types || e->type == WARDER_ENTRY_SYMLINK);
                        struct warder_decision d = WARDER_DECISION_INIT;
                        char *real = NULL;
                        rc = decide_result(r, op, op, e->path, resolve, base_lit, base_real, &lit,
                                           &alt, &d, &real);
                        if (rc == 0) {
                                audit_result(r, op, e->path, &lit, real, &d);
                                keep = d.action == WARDER_ALLOW;
                                warder_decision_clear(&d);
                                free(real);
                        } else if (rc == 1) {
                                rc = 0; /* undecidable: dropped */
                        }
                }
                if (keep) {
                        ents->items[kept++] = *e;
                } else {
                        free(e->name);
                        free(e->path);
                        ents->hidden++;
                }
        }
        ents->count = kept;
        warder__buf_free(&lit);
        warder__buf_free(&alt);
        return rc;
}

/* ls (pattern NULL) and glob: admit the directory or base, list through the inner backend,
 * filter the entries by the operation's own rules (§4.6). */
static int listing(warder_backend *b, enum warder_op op, const char *pattern, const char *path,
                   unsigned flags, struct warder_entries *out, struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        struct warder_entries raw = WARDER_ENTRIES_INIT;
        int rc = admit_path(&r, op, path, flags, &lit, &real, err);
        if (!rc && op == WARDER_OP_LS)
                rc = warder_backend_ls(&raw, r.g->inner, fwd(&lit, real), fwd_len(&lit, real),
                                       fwd_flags(&r, flags), err);
        else if (!rc)
                rc =
                    warder_backend_glob(&raw, r.g->inner, pattern, strlen(pattern), fwd(&lit, real),
                                        fwd_len(&lit, real), fwd_flags(&r, flags), err);
        if (!rc) {
                rc = filter_entries(&r, op, lit.data, real, op == WARDER_OP_LS, &raw);
                if (rc)
                        warder_error_set(err, rc, "%s: %s", warder_op_name(op),
                                         warder_strerror(rc));
                else
                        *out = raw;
        }
        if (rc)
                warder_entries_free(&raw);
        free(real);
        warder__buf_free(&lit);
        request_end(&r);
        return rc;
}

static int guard_ls(warder_backend *b, const char *path, unsigned flags, struct warder_entries *out,
                    struct warder_error *err)
{
        return listing(b, WARDER_OP_LS, NULL, path, flags, out, err);
}

static int guard_glob(warder_backend *b, const char *pattern, const char *base, unsigned flags,
                      struct warder_entries *out, struct warder_error *err)
{
        return listing(b, WARDER_OP_GLOB, pattern, base ? base : ".", flags, out, err);
}

/*
 * §4.7: which files a grep may search. A guard hands this predicate down with the request, so
 * a backend that honours it (WARDER_BACKEND_CAP_GREP_FILTER, the library fallback, another
 * guard) never opens a file that is deny or ask for grep or read, in either form or under the
 * caller's spelling of the base, and counts it by name. A predicate the caller passed in is
 * asked first: a file must pass both.
 */
struct grep_gate {
        struct request *r;
        const char *base_lit, *base_real;
        bool resolve; /* result paths need realpath (no REAL_RESULTS promise) */
        struct warder__buf lit, alt;
        warder_grep_filter_fn outer;
        void *outer_ud;
        int failed; /* a file could not be decided (no memory): the whole grep fails */
        /* A backend may ask from several threads at once: the request, its buffers and the
         * audit callback are used by one at a time. */
        pthread_mutex_t mu;
};

static bool grep_gate_locked(struct grep_gate *gg, const char *path, size_t len);

static bool grep_gate(void *ud, const char *path, size_t len)
{
        struct grep_gate *gg = ud;
        if (!path || memchr(path, '\0', len) || path[len] != '\0')
                return false;
        pthread_mutex_lock(&gg->mu);
        bool ok = grep_gate_locked(gg, path, len);
        pthread_mutex_unlock(&gg->mu);
        return ok;
}

static bool grep_gate_locked(struct grep_gate *gg, const char *path, size_t len)
{
        if (gg->outer && !gg->outer(gg->outer_ud, path, len))
                return false;
        struct warder_decision d = WARDER_DECISION_INIT;
        char *real = NULL;
        int rc = decide_result(gg->r, WARDER_OP_GREP, WARDER_OP_READ, path, gg->resolve,
                               gg->base_lit, gg->base_real, &gg->lit, &gg->alt, &d, &real);
        if (rc < 0 && !gg->failed)
                gg->failed = rc; /* skipped now, and the grep fails: never silently partial */
        if (rc)
                return false; /* undecidable: skipped, fail closed */
        bool ok = d.action == WARDER_ALLOW;
        if (!ok)
                audit_result(gg->r, WARDER_OP_GREP, path, &gg->lit, real, &d);
        warder_decision_clear(&d);
        free(real);
        return ok;
}

/* Whether the inner backend's grep honours may_search (and counts what it skips). */
static bool inner_grep_filters(const struct guard *g)
{
        return !warder__backend_has_grep(g->inner) ||
               (g->inner_caps & WARDER_BACKEND_CAP_GREP_FILTER) || warder_guard_is(g->inner);
}

/*
 * Drops every match whose file the gate refuses and reports each kept file to the audit
 * callback. From a backend that honours the gate nothing is dropped; from one that does not,
 * this is the only filter, and nothing here is counted: a count of dropped files would say
 * which skipped files matched (§4.7). The decision for a file is remembered while consecutive
 * matches share it. Compacted in place like filter_entries().
 */
static int filter_grep(struct grep_gate *gg, struct warder_grep_result *res)
{
        struct request *r = gg->r;
        struct warder__buf prev = WARDER__BUF_INIT;
        /* A hit belongs to the searched file, or to a file below the searched directory (the
         * base as forwarded); one placed anywhere else is dropped undecided (path_below). */
        const char *fbase = gg->base_real ? gg->base_real : gg->base_lit;
        bool have_prev = false, prev_keep = false;
        int rc = 0;
        size_t kept = 0;
        for (size_t i = 0; i < res->count; i++) {
                struct warder_grep_match *m = &res->items[i];
                const char *path = m->path ? m->path : "";
                if (rc == 0 && (!have_prev || strcmp(prev.data, path) != 0)) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        char *real = NULL;
                        const char *last;
                        prev_keep = false;
                        if (!m->path || !path_below(fbase, path, true, &last))
                                rc = 1;
                        else if (gg->outer && !gg->outer(gg->outer_ud, path, strlen(path)))
                                rc = 1;
                        else
                                rc = decide_result(r, WARDER_OP_GREP, WARDER_OP_READ, path,
                                                   gg->resolve, gg->base_lit, gg->base_real,
                                                   &gg->lit, &gg->alt, &d, &real);
                        if (rc == 0) {
                                audit_result(r, WARDER_OP_GREP, path, &gg->lit, real, &d);
                                prev_keep = d.action == WARDER_ALLOW;
                                warder_decision_clear(&d);
                                free(real);
                        } else if (rc == 1) {
                                rc = 0; /* undecidable: dropped */
                        }
                        if (rc == 0) {
                                warder__buf_truncate(&prev, 0);
                                rc = warder__buf_puts(&prev, path);
                                have_prev = rc == 0;
                        }
                }
                if (rc == 0 && prev_keep) {
                        res->items[kept++] = *m;
                } else {
                        free(m->path);
                        free(m->text);
                }
        }
        res->count = kept;
        warder__buf_free(&prev);
        return rc;
}

static int guard_grep(warder_backend *b, const struct warder_grep_request *req,
                      struct warder_grep_result *out, struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        struct warder_grep_result raw = WARDER_GREP_RESULT_INIT;
        /* The grep is forwarded with WARDER_NOFOLLOW (fwd_flags), so a backend that promises
         * real results reports every file by its real form: no realpath per file. */
        struct grep_gate gg = {
            .r = &r,
            .resolve = r.g->inner_realpath && !(r.g->inner_caps & WARDER_BACKEND_CAP_REAL_RESULTS),
            .lit = WARDER__BUF_INIT,
            .alt = WARDER__BUF_INIT,
            .outer = req->may_search,
            .outer_ud = req->may_search_ud,
            .mu = PTHREAD_MUTEX_INITIALIZER,
        };
        int rc = admit_path(&r, WARDER_OP_GREP, req->path, req->flags, &lit, &real, err);
        if (!rc) {
                gg.base_lit = lit.data;
                gg.base_real = real;
                struct warder_grep_request fr = *req;
                fr.path = fwd(&lit, real);
                fr.path_len = fwd_len(&lit, real);
                fr.flags = fwd_flags(&r, fr.flags);
                fr.may_search = grep_gate;
                fr.may_search_ud = &gg;
                rc = warder_backend_grep(&raw, r.g->inner, &fr, err);
                if (!rc && gg.failed)
                        rc = warder_error_set(err, gg.failed, "grep: %s",
                                              warder_strerror(gg.failed));
        }
        if (!rc) {
                /* A backend that honours the gate returns matches of admitted files only: they
                 * are decided again only to be reported to the audit callback. */
                bool trusted = inner_grep_filters(r.g);
                if (!trusted || r.g->audit)
                        rc = filter_grep(&gg, &raw);
                if (!trusted)
                        raw.hidden_files = 0; /* unknown: counting drops would leak (§4.7) */
                if (rc)
                        warder_error_set(err, rc, "grep: %s", warder_strerror(rc));
                else
                        *out = raw;
        }
        if (rc)
                warder_grep_result_free(&raw);
        free(real);
        warder__buf_free(&lit);
        warder__buf_free(&gg.lit);
        warder__buf_free(&gg.alt);
        pthread_mutex_destroy(&gg.mu);
        request_end(&r);
        return rc;
}

/* ---- execute (§4.8, §5) ------------------------------------------------------------------ */

static int ctx_realpath(void *ud, const char *literal, char **out)
{
        struct guard *g = ud;
        return warder_backend_realpath(out, g->inner, literal, strlen(literal), NULL);
}

/* Lists a directory of the inner backend for command inspection (§5.4.1, §5.5): names, each
 * followed by `/` when it is a directory or a symbolic link. */
static int ctx_ls(void *ud, const char *dir, char ***out, size_t *count)
{
        struct guard *g = ud;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int rc = warder_backend_ls(&e, g->inner, dir, strlen(dir), 0, NULL);
        if (rc)
                return rc;
        char **v = calloc(e.count ? e.count : 1, sizeof(*v));
        if (!v)
                rc = WARDER_ENOMEM;
        for (size_t i = 0; !rc && i < e.count; i++) {
                const struct warder_entry *en = &e.items[i];
                bool dirish = en->type == WARDER_ENTRY_DIR || en->type == WARDER_ENTRY_SYMLINK;
                size_t n = strlen(en->name);
                if (!(v[i] = malloc(n + 2))) {
                        rc = WARDER_ENOMEM;
                        break;
                }
                memcpy(v[i], en->name, n);
                v[i][n] = '/';
                v[i][n + dirish] = '\0';
        }
        if (rc && v) {
                for (size_t i = 0; i < e.count; i++)
                        free(v[i]);
                free(v);
        } else if (!rc) {
                *out = v;
                *count = e.count;
        }
        warder_entries_free(&e);
        return rc;
}

/* Decides a command line the way the guard would run it: cwd and environment of the request
 * (or the guard's), paths resolved, directories listed and globs expanded through the inner
 * backend. */
static int decide_command(struct request *r, const char *cmd, size_t len, const char *cwd,
                          const char *const *env, struct warder_decision *d,
                          struct warder_error *err)
{
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.cwd = cwd ? cwd : r->root;
        ctx.env = env ? env : (const char *const *)r->g->env;
        if (r->g->inner_realpath)
                ctx.realpath = ctx_realpath;
        ctx.ls = ctx_ls; /* globs are expanded by the inspector itself, as the shell does */
        ctx.ud = r->g;
        return warder_ruleset_check_command(d, r->rs, cmd, len, &ctx, err);
}

/*
 * §6.5: what the inner backend masks, decided from the ruleset of this request (a swap
 * reaches the next command; the backend holds no ruleset). A file denied for read is hidden,
 * one denied for write is bound read-only; only `deny` is masked (an `ask` cannot be asked
 * from inside a running command). A predicate the caller passed is asked too: the union of
 * both is masked. A decision that fails hides the file (fail closed).
 */
struct exec_mask {
        struct request *r;
        warder_exec_mask_fn outer;
        void *outer_ud;
};

static unsigned mask_decide(const struct request *r, enum warder_op op, const char *literal,
                            const char *real)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = warder_ruleset_check(&d, r->rs, op, literal, strlen(literal), real,
                                      (real ? strlen(real) : 0), NULL);
        bool deny = rc != 0 || d.action == WARDER_DENY;
        warder_decision_clear(&d);
        if (!deny)
                return 0;
        return rc != 0 || op == WARDER_OP_READ ? WARDER_MASK_HIDE : WARDER_MASK_READONLY;
}

static unsigned exec_mask(void *ud, const char *literal, const char *real)
{
        struct exec_mask *m = ud;
        unsigned flags = m->outer ? m->outer(m->outer_ud, literal, real) : 0;
        if (!literal || literal[0] != '/')
                return WARDER_MASK_HIDE;
        flags |= mask_decide(m->r, WARDER_OP_READ, literal, real);
        if (!(flags & WARDER_MASK_HIDE))
                flags |= mask_decide(m->r, WARDER_OP_WRITE, literal, real);
        return flags;
}

static int guard_execute(warder_backend *b, const struct warder_exec_request *req,
                         struct warder_exec_result *out, struct warder_error *err)
{
        struct request r;
        request_begin(&r, guard_of(b));
        struct warder__buf cwd = WARDER__BUF_INIT;
        char *cwd_real = NULL;
        char *line = NULL;
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = 0;
        if (!req->command || !req->command_len)
                rc = warder_error_set(err, WARDER_EINVAL, "execute: empty command");
        else if (memchr(req->command, '\0', req->command_len))
                rc = warder_error_set(err, WARDER_EINVAL, "execute: command contains a NUL byte");
        else if (!(line = warder_strndup(req->command, req->command_len)))
                rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
        if (!rc) {
                const char *c = req->cwd ? req->cwd : r.root;
                rc = c ? warder__path_normalize_buf(&cwd, r.root, r.home, NULL, c, strlen(c), err)
                       : warder_error_set(err, WARDER_EINVAL, "execute: no working directory");
        }
        if (!rc)
                rc = real_form(&r, cwd.data, cwd.len, &cwd_real, err);
        if (!rc)
                rc =
                    decide_command(&r, req->command, req->command_len, cwd.data, req->env, &d, err);
        if (!rc) {
                struct warder_guard_request greq = {
                    .version = WARDER_GUARD_REQUEST_VERSION,
                    .op = WARDER_OP_EXECUTE,
                    .target = line,
                    .literal = line,
                    .real = NULL,
                    .rules = r.rs,
                };
                rc = gate(r.g, &greq, &d, req->flags, err);
        }
        if (!rc) {
                struct exec_mask mask = {&r, req->mask, req->mask_ud};
                struct warder_exec_request fr = *req;
                fr.cwd = cwd_real ? cwd_real : cwd.data;
                if (!fr.env && r.g->env)
                        fr.env = (const char *const *)r.g->env;
                fr.mask = exec_mask;
                fr.mask_ud = &mask;
                rc = warder_backend_execute(out, r.g->inner, &fr, err);
        }
        warder_decision_clear(&d);
        free(line);
        free(cwd_real);
        warder__buf_free(&cwd);
        request_end(&r);
        return rc;
}

/* realpath forwards to the inner backend so guards stack (§3.2); without one, the real form
 * is the literal form. */
static int guard_realpath(warder_backend *b, const char *path, char **out, struct warder_error *err)
{
        struct guard *g = guard_of(b);
        size_t len = strlen(path);
        if (warder_backend_can_realpath(g->inner))
                return warder_backend_realpath(out, g->inner, path, len, err);
        char *copy = warder_strndup(path, len);
        if (!copy)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        *out = copy;
        return 0;
}

static void guard_destroy(warder_backend *b)
{
        struct guard *g = guard_of(b);
        warder_backend_free(g->inner);
        warder_ruleset_free(g->rules);
        pthread_mutex_destroy(&g->lock);
        free(g->root);
        free(g->home);
        warder__strv_free(g->env);
        free(g);
}

static const struct warder_backend_ops guard_ops = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = guard_read,
    .write = guard_write,
    .edit = guard_edit,
    .ls = guard_ls,
    .glob = guard_glob,
    .grep = guard_grep,
    .execute = NULL,
    .realpath = guard_realpath,
    .destroy = guard_destroy,
};

static const struct warder_backend_ops guard_ops_exec = {
    .version = WARDER_BACKEND_OPS_VERSION,
    .read = guard_read,
    .write = guard_write,
    .edit = guard_edit,
    .ls = guard_ls,
    .glob = guard_glob,
    .grep = guard_grep,
    .execute = guard_execute,
    .realpath = guard_realpath,
    .destroy = guard_destroy,
};

/* ---- construction and the public API ----------------------------------------------------- */

static int copy_dir(char **out, const char *what, const char *dir, struct warder_error *err)
{
        *out = NULL;
        if (!dir)
                return 0;
        if (dir[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the guard's %s must be absolute: '%s'",
                                        what, dir);
        struct warder__buf b = WARDER__BUF_INIT;
        int rc = warder__path_normalize_buf(&b, NULL, NULL, NULL, dir, strlen(dir), err);
        if (rc) {
                warder__buf_free(&b);
                return rc;
        }
        *out = warder__buf_steal(&b);
        return 0;
}

WARDER_API int warder_guard_new(warder_backend **out, warder_backend *inner, warder_ruleset *rules,
                                const struct warder_guard_options *opts, struct warder_error *err)
{
        static const struct warder_guard_options defaults = WARDER_GUARD_OPTIONS_INIT;
        if (!out || !inner || !rules)
                return warder_error_set(err, WARDER_EINVAL,
                                        "guard: out, inner and rules are required");
        if (!opts)
                opts = &defaults;
        if (opts->version == 0 || opts->version > WARDER_GUARD_OPTIONS_VERSION)
                return warder_error_set(err, WARDER_EINVAL, "guard: unknown options version %u",
                                        opts->version);
        if (opts->version >= 2 && opts->approve && opts->approve_ex)
                return warder_error_set(err, WARDER_EINVAL,
                                        "guard: approve and approve_ex cannot be combined");
        struct guard *g = calloc(1, sizeof(*g));
        if (!g)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        int rc = copy_dir(&g->root, "root", opts->root, err);
        if (!rc)
                rc = copy_dir(&g->home, "home", opts->home, err);
        if (!rc && warder__strv_dup(opts->env, &g->env))
                rc = warder_error_set(err, WARDER_ENOMEM, "out of memory");
        if (!rc && pthread_mutex_init(&g->lock, NULL) != 0)
                rc = warder_error_set(err, WARDER_ENOMEM, "guard: cannot create a mutex");
        else if (!rc) {
                const struct warder_backend_ops *ops =
                    warder_backend_can_execute(inner) ? &guard_ops_exec : &guard_ops;
                rc = warder_backend_init(&g->base, ops, err);
                if (rc)
                        pthread_mutex_destroy(&g->lock);
        }
        if (rc) {
                free(g->root);
                free(g->home);
                warder__strv_free(g->env);
                free(g);
                return rc;
        }
        g->inner = inner;
        g->inner_realpath = warder_backend_can_realpath(inner);
        g->inner_caps = warder__backend_caps(inner);
        g->rules = warder_ruleset_ref(rules);
        g->approve = opts->approve;
        g->approve_ex = opts->version >= 2 ? opts->approve_ex : NULL;
        g->approve_ud = opts->approve_ud;
        g->audit = opts->audit;
        g->audit_ud = opts->audit_ud;
        *out = &g->base;
        return 0;
}

WARDER_API int warder_guard_set_ruleset(warder_backend *guard, warder_ruleset *rules)
{
        if (!warder_guard_is(guard) || !rules)
                return WARDER_EINVAL;
        struct guard *g = guard_of(guard);
        warder_ruleset *fresh = warder_ruleset_ref(rules);
        pthread_mutex_lock(&g->lock);
        warder_ruleset *old = g->rules;
        g->rules = fresh;
        pthread_mutex_unlock(&g->lock);
        warder_ruleset_free(old);
        return 0;
}

WARDER_API int warder_guard_ruleset(warder_ruleset **out, const warder_backend *guard)
{
        if (!out || !warder_guard_is(guard))
                return WARDER_EINVAL;
        *out = acquire_rules(guard_of((warder_backend *)guard));
        return 0;
}

WARDER_API int warder_guard_check(struct warder_decision *out, warder_backend *guard,
                                  enum warder_op op, const char *target, size_t target_len,
                                  struct warder_error *err)
{
        if (!warder_guard_is(guard) || !out || out->version != WARDER_DECISION_VERSION ||
            (unsigned)op >= WARDER_OP_COUNT)
                return warder_error_set(err, WARDER_EINVAL, "guard check: invalid argument");
        if (!target)
                return warder_error_set(err, WARDER_EINVAL, "guard check: target is NULL");
        struct request r;
        request_begin(&r, guard_of(guard));
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder__buf lit = WARDER__BUF_INIT;
        char *real = NULL;
        int rc;
        if (op == WARDER_OP_EXECUTE) {
                if (!target_len)
                        rc = warder_error_set(err, WARDER_EINVAL, "execute: empty command");
                else
                        rc = decide_command(&r, target, target_len, NULL, NULL, &d, err);
        } else {
                rc = decide_path(&r, op, target, target_len, &lit, &real, &d, err);
        }
        if (!rc) {
                rc = warder_decision_copy(out, &d);
                if (rc)
                        warder_error_set(err, rc, "out of memory");
        }
        warder_decision_clear(&d);
        free(real);
        warder__buf_free(&lit);
        request_end(&r);
        return rc;
}

WARDER_API int warder_guard_check_command(warder_backend *guard, const char *command, size_t len,
                                          const char *cwd, struct warder_decision *out,
                                          struct warder_error *err)
{
        if (!warder_guard_is(guard) || !out || !command)
                return warder_error_set(err, WARDER_EINVAL, "guard check: invalid argument");
        if (!len)
                return warder_error_set(err, WARDER_EINVAL, "execute: empty command");
        if (memchr(command, '\0', len))
                return warder_error_set(err, WARDER_EINVAL, "execute: command contains a NUL byte");
        struct request r;
        request_begin(&r, guard_of(guard));
        struct warder__buf dir = WARDER__BUF_INIT;
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = 0;
        if (cwd)
                rc = warder__path_normalize_buf(&dir, r.root, r.home, NULL, cwd, strlen(cwd), err);
        if (!rc)
                rc = decide_command(&r, command, len, cwd ? dir.data : NULL, NULL, &d, err);
        if (!rc && (rc = warder_decision_copy(out, &d)))
                warder_error_set(err, rc, "out of memory");
        warder_decision_clear(&d);
        warder__buf_free(&dir);
        request_end(&r);
        return rc;
}
