/* SPDX-License-Identifier: MIT */
/*
 * The MCP tools (docs/mcp.md, semantics §8.3): arguments checked, then every operation runs
 * through the session that serves its target — tool → session → guard → backend. A refusal,
 * a decline or an error is a tool result with isError, its text naming the rule, its reason
 * and source, and the decision object in structuredContent.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "mcp/mcp-internal.h"

#define MAX_PATHS       1000 /* read_multiple_files */
#define MAX_EDITS       1000 /* edit_file */
#define MAX_EXCLUDES    64   /* excludePatterns */
#define TREE_MAX_ENTRY  10000
#define TREE_MAX_DEPTH  64
#define DIFF_CONTEXT    4 /* lines around a change, as the reference server's diffs */
#define DEFAULT_TIMEOUT 0 /* execute: the backend's default deadline */

/* ---- arguments ---------------------------------------------------------------------------- */

struct args {
        struct mcp_call *c;
        struct mcp_out *o;
        bool failed;
};

static void set_error(struct mcp_out *o, const char *code, const char *message,
                      const char *approval, json_t *decision)
{
        json_t *e = json_pack("{s:s,s:s}", "code", code, "message", message);
        if (e && approval)
                json_object_set_new(e, "approval", json_string(approval));
        bool bad = false;
        warder_json_set(o->sc, "error", e, &bad);
        warder_json_set(o->sc, "decision", decision ? decision : json_null(), &bad);
        o->error = true;
        if (bad)
                o->text.oom = true;
}

static bool invalid(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool invalid(struct args *a, const char *fmt, ...)
{
        if (a->failed)
                return false;
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        a->failed = true;
        struct sbuf safe = {0};
        sb_safe_str(&safe, msg);
        sb_printf(&a->o->text, "Invalid arguments for %s: %s", a->c->tool->name,
                  safe.oom ? "(out of memory)" : safe.p);
        set_error(a->o, warder_status_name(WARDER_EINVAL), safe.oom ? "" : safe.p, NULL, NULL);
        sb_free(&safe);
        return false;
}

static bool a_known(struct args *a, const char *const *names)
{
        const char *key;
        json_t *v;
        json_object_foreach(a->c->args, key, v)
        {
                bool ok = false;
                for (size_t i = 0; names[i] && !ok; i++)
                        ok = strcmp(names[i], key) == 0;
                if (!ok)
                        return invalid(a,
                                       "unknown argument \"%s\" (the arguments are in the "
                                       "tool's inputSchema)",
                                       key);
        }
        return true;
}

static bool a_str(struct args *a, const char *name, bool required, const char **s, size_t *len)
{
        *s = NULL;
        *len = 0;
        if (a->failed)
                return false;
        json_t *v = json_object_get(a->c->args, name);
        if (!v)
                return required ? invalid(a, "\"%s\" is required", name) : true;
        if (!json_is_string(v))
                return invalid(a, "\"%s\" must be a string", name);
        *s = json_string_value(v);
        *len = json_string_length(v);
        return true;
}

/* A string used as a C string (patterns): no NUL inside. */
static bool a_cstr(struct args *a, const char *name, bool required, const char **s)
{
        size_t len = 0;
        if (!a_str(a, name, required, s, &len))
                return false;
        if (*s && strlen(*s) != len)
                return invalid(a, "\"%s\" contains a NUL character", name);
        return true;
}

/* A whole number from min to max (a JSON number with no fraction). */
static bool a_uint(struct args *a, const char *name, uint64_t min, uint64_t max, bool *present,
                   uint64_t *out)
{
        *present = false;
        if (a->failed)
                return false;
        json_t *v = json_object_get(a->c->args, name);
        if (!v)
                return true;
        double d = json_is_integer(v) ? (double)json_integer_value(v)
                   : json_is_real(v)  ? json_real_value(v)
                                      : -1;
        if (!json_is_number(v) || d < (double)min || d > (double)max || d != (double)(uint64_t)d)
                return invalid(a, "\"%s\" must be a whole number from %llu to %llu", name,
                               (unsigned long long)min, (unsigned long long)max);
        *out = (uint64_t)d;
        *present = true;
        return true;
}

static bool a_bool(struct args *a, const char *name, bool *out)
{
        if (a->failed)
                return false;
        json_t *v = json_object_get(a->c->args, name);
        if (!v)
                return true;
        if (!json_is_boolean(v))
                return invalid(a, "\"%s\" must be true or false", name);
        *out = json_is_true(v);
        return true;
}

/* An array of strings (at most `max`, at least `min`); NULL when absent and not required. */
static bool a_strings(struct args *a, const char *name, bool required, size_t min, size_t max,
                      json_t **out)
{
        *out = NULL;
        if (a->failed)
                return false;
        json_t *v = json_object_get(a->c->args, name);
        if (!v)
                return required ? invalid(a, "\"%s\" is required", name) : true;
        if (!json_is_array(v))
                return invalid(a, "\"%s\" must be an array of strings", name);
        if (json_array_size(v) < min || json_array_size(v) > max)
                return invalid(a, "\"%s\" must hold from %zu to %zu strings", name, min, max);
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
                if (!json_is_string(item))
                        return invalid(a, "\"%s\"[%zu] must be a string", name, i);
        }
        *out = v;
        return true;
}

/* ---- failures ----------------------------------------------------------------------------- */

static const char *approval_name(enum mcp_ask ask)
{
        switch (ask) {
        case MCP_ASK_DECLINED:
                return "declined";
        case MCP_ASK_UNAVAILABLE:
                return "unavailable";
        case MCP_ASK_TIMEOUT:
                return "timeout";
        case MCP_ASK_CANCELLED:
                return "cancelled";
        case MCP_ASK_FAILED:
                return "failed";
        case MCP_ASK_NONE:
        case MCP_ASK_ACCEPTED:
                break;
        }
        return NULL;
}

/* "read of '/ws/.env'" */
static void what(struct sbuf *b, enum warder_op op, const char *target, size_t len)
{
        sb_printf(b, "%s of '", op == WARDER_OP_EXECUTE ? "execute" : warder_op_name(op));
        sb_safe(b, target, len);
        sb_puts(b, "'");
}

/*
 * A failed operation as a tool error. A denial names the rule, reason and source; an ask
 * that was not approved says why (declined, no way to ask, no answer in time); any other
 * failure gives warder's message and status name.
 */
static void fail(struct mcp_call *c, struct mcp_out *o, enum warder_op op, const char *target,
                 size_t len, int rc, const struct warder_error *err)
{
        struct sbuf *t = &o->text;
        const struct warder_decision *d =
            (rc == WARDER_EDENIED || rc == WARDER_EASK) ? err->decision : NULL;
        const char *approval = NULL;
        size_t start = t->len;
        if (d && (d->action == WARDER_ASK || rc == WARDER_EASK)) {
                enum mcp_ask ask = rc == WARDER_EASK ? MCP_ASK_UNAVAILABLE : c->ask;
                approval = approval_name(ask ? ask : MCP_ASK_DECLINED);
                switch (ask) {
                case MCP_ASK_UNAVAILABLE:
                        sb_puts(t, "Approval required: ");
                        what(t, op, target, len);
                        sb_puts(t, " needs the user's approval, and this client cannot ask the "
                                   "user (it did not declare the MCP elicitation capability), "
                                   "so nothing was done.");
                        break;
                case MCP_ASK_TIMEOUT:
                        sb_puts(t, "Declined: ");
                        what(t, op, target, len);
                        sb_printf(t,
                                  " needs the user's approval and no answer came within %u s "
                                  "(a timeout is a decline), so nothing was done.",
                                  c->m->elicitation_ms / 1000);
                        break;
                case MCP_ASK_CANCELLED:
                        sb_puts(t, "Cancelled while asking the user to approve ");
                        what(t, op, target, len);
                        sb_puts(t, "; nothing was done.");
                        break;
                case MCP_ASK_NONE:
                case MCP_ASK_ACCEPTED:
                case MCP_ASK_DECLINED:
                case MCP_ASK_FAILED:
                        sb_puts(t, "Declined: the user did not approve ");
                        what(t, op, target, len);
                        sb_puts(t, ", so nothing was done.");
                        break;
                }
        } else if (d) {
                sb_puts(t, "Denied by warder's rules: ");
                what(t, op, target, len);
                sb_puts(t, " is not allowed. Do not try to reach it another way (another path, "
                           "a link, a command); choose something else or ask the user.");
        } else {
                sb_puts(t, "Error: ");
                what(t, op, target, len);
                sb_puts(t, ": ");
                sb_safe_str(t, err->message[0] ? err->message : warder_strerror(rc));
                sb_printf(t, " (%s)", warder_status_name(rc));
        }
        if (d)
                mcp_describe_decision(t, d);
        char *message = t->oom ? NULL : strndup(t->p + start, t->len - start);
        /* a request nobody could be asked about is "approval required", as without a door */
        if (approval && strcmp(approval, "unavailable") == 0)
                rc = WARDER_EASK;
        set_error(o, warder_status_name(rc), message ? message : "", approval,
                  d ? warder_json_decision(d) : NULL);
        free(message);
}

/* ---- running through the sessions -------------------------------------------------------- */

/* Runs `req` in the session that serves its target (execute: the first root's); the target
 * is replaced by its literal form. `lit` (freed by the caller) keeps it. */
static int run(struct mcp_call *c, struct warder_session_request *req,
               struct warder_session_result *res, struct warder_error *err, char **lit)
{
        struct warder_session *s = warder_session_set_at(c->m->sessions, 0);
        *lit = NULL;
        memset(res, 0, sizeof(*res)); /* freed by the caller in every case */
        if (req->op != WARDER_OP_EXECUTE && req->target) {
                size_t n = 0;
                int rc = warder_session_set_pick(c->m->sessions, req->target, req->target_len, &s,
                                                 lit, err);
                if (rc)
                        return rc;
                n = strlen(*lit);
                req->target = *lit;
                req->target_len = n;
        }
        c->ask = MCP_ASK_NONE;
        return warder_session_run(s, req, res, err);
}

/* One path operation; on failure the tool error is written and false returned. */
static bool run_path(struct mcp_call *c, struct mcp_out *o, struct warder_session_request *req,
                     struct warder_session_result *res, char **lit)
{
        const char *given = req->target;
        size_t given_len = req->target_len;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = run(c, req, res, &err, lit);
        if (rc)
                fail(c, o, req->op, given ? given : "", given_len, rc, &err);
        warder_error_clear(&err);
        return rc == 0;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* The first `n` lines (joined by '\n', without a final newline), as the reference server's
 * head; 0: everything. */
static void head_lines(const char *p, size_t len, uint64_t n, size_t *out_len)
{
        *out_len = len;
        if (n == 0)
                return;
        uint64_t seen = 0;
        for (size_t i = 0; i < len; i++) {
                if (p[i] == '\n' && ++seen == n) {
                        *out_len = i;
                        return;
                }
        }
        if (len && p[len - 1] == '\n')
                *out_len = len - 1;
}

/* The last `n` pieces between newlines, as the reference server's tail; 0: everything. */
static size_t tail_start(const char *p, size_t len, uint64_t n)
{
        if (n == 0)
                return 0;
        uint64_t seen = 0;
        for (size_t i = len; i > 0; i--) {
                if (p[i - 1] == '\n' && ++seen == n)
                        return i;
        }
        return 0;
}

/* content/encoding of bytes into `obj`; the text for the model into `t`. */
static void put_content(json_t *obj, struct sbuf *t, const char *p, size_t len, bool *bad)
{
        if (warder_json_utf8_valid(p, len)) {
                warder_json_set(obj, "content", json_stringn(p, len), bad);
                warder_json_set(obj, "encoding", json_string("utf-8"), bad);
                if (t)
                        sb_add(t, p, len);
                return;
        }
        char *b64 = warder_json_base64_encode(p, len);
        warder_json_set(obj, "content", b64 ? json_string(b64) : NULL, bad);
        warder_json_set(obj, "encoding", json_string("base64"), bad);
        if (t && b64) {
                sb_printf(t, "(the file is not valid UTF-8: its %zu bytes follow in base64)\n",
                          len);
                sb_puts(t, b64);
        }
        free(b64);
}

static void t_read(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", "head", "tail", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_READ};
        uint64_t head = 0, tail = 0;
        bool has_head = false, has_tail = false;
        a_known(&a, names);
        a_str(&a, "path", true, &req.target, &req.target_len);
        a_uint(&a, "head", 0, UINT32_MAX, &has_head, &head);
        a_uint(&a, "tail", 0, UINT32_MAX, &has_tail, &tail);
        if (head && tail)
                invalid(&a, "Cannot specify both head and tail parameters simultaneously");
        if (a.failed)
                return;
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                const char *p = res.bytes.data ? res.bytes.data : "";
                size_t len = res.bytes.len;
                if (head)
                        head_lines(p, len, head, &len);
                else if (tail) {
                        size_t at = tail_start(p, len, tail);
                        p += at;
                        len -= at;
                }
                bool bad = false;
                put_content(o->sc, &o->text, p, len, &bad);
                warder_json_set(o->sc, "bytes", json_integer((json_int_t)len), &bad);
                if (bad)
                        o->text.oom = true;
        }
        warder_session_result_free(&res);
        warder_free(lit);
}

static void t_read_multiple(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"paths", NULL};
        struct args a = {.c = c, .o = o};
        json_t *paths = NULL;
        a_known(&a, names);
        a_strings(&a, "paths", true, 1, MAX_PATHS, &paths);
        if (a.failed)
                return;
        json_t *files = json_array();
        bool bad = !files;
        size_t i;
        json_t *item;
        json_array_foreach(paths, i, item)
        {
                if (bad || c->needs_thread)
                        break;
                const char *path = json_string_value(item);
                size_t path_len = json_string_length(item);
                struct warder_session_request req = {
                    .op = WARDER_OP_READ, .target = path, .target_len = path_len};
                struct warder_session_result res;
                struct warder_error err = WARDER_ERROR_INIT;
                char *lit = NULL;
                json_t *f = json_pack("{s:s%}", "path", path, path_len);
                bad = !f;
                if (i)
                        sb_puts(&o->text, "\n---\n");
                sb_safe(&o->text, path, path_len);
                memset(&res, 0, sizeof(res));
                int rc = f ? run(c, &req, &res, &err, &lit) : WARDER_ENOMEM;
                if (f && rc == 0) {
                        sb_puts(&o->text, ":\n");
                        put_content(f, &o->text, res.bytes.data ? res.bytes.data : "",
                                    res.bytes.len, &bad);
                        sb_puts(&o->text, "\n");
                } else if (f) {
                        /* the same words as a single read's failure, in its own result */
                        struct mcp_out one = {.sc = json_object()};
                        if (one.sc)
                                fail(c, &one, WARDER_OP_READ, path, path_len, rc, &err);
                        sb_puts(&o->text, ": Error - ");
                        sb_add(&o->text, one.text.p ? one.text.p : "", one.text.len);
                        if (one.text.oom || !one.sc)
                                bad = true;
                        if (one.sc) {
                                warder_json_set(f, "error",
                                                json_incref(json_object_get(one.sc, "error")),
                                                &bad);
                                warder_json_set(f, "decision",
                                                json_incref(json_object_get(one.sc, "decision")),
                                                &bad);
                        }
                        json_decref(one.sc);
                        sb_free(&one.text);
                }
                if (f && json_array_append_new(files, f))
                        bad = true;
                warder_error_clear(&err);
                if (f)
                        warder_session_result_free(&res);
                warder_free(lit);
        }
        warder_json_set(o->sc, "files", files, &bad);
        if (bad)
                o->text.oom = true;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void t_write(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", "content", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_WRITE};
        a_known(&a, names);
        a_str(&a, "path", true, &req.target, &req.target_len);
        a_str(&a, "content", true, &req.text, &req.text_len);
        if (a.failed)
                return;
        const char *path = req.target;
        size_t path_len = req.target_len;
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                sb_puts(&o->text, "Successfully wrote to ");
                sb_safe(&o->text, path, path_len);
                bool bad = false;
                warder_json_set(o->sc, "bytes", json_integer((json_int_t)res.count), &bad);
                if (bad)
                        o->text.oom = true;
        }
        warder_session_result_free(&res);
        warder_free(lit);
}

/* Appends lines [from, to) of `p` to the diff, each after `mark`, with the "no newline"
 * marker after a last line that has none. */
static void diff_lines(struct sbuf *d, const char *const *lines, size_t from, size_t to,
                       const char *end, char mark)
{
        for (size_t i = from; i < to; i++) {
                const char *s = lines[i], *e = memchr(s, '\n', (size_t)(end - s));
                sb_add(d, &mark, 1);
                sb_add(d, s, e ? (size_t)(e - s) : (size_t)(end - s));
                sb_puts(d, "\n");
                if (!e)
                        sb_puts(d, "\\ No newline at end of file\n");
        }
}

/* The starts of the lines of p[0..len) into *out (count in *n). */
static int split_lines(const char *p, size_t len, const char ***out, size_t *n)
{
        size_t count = 0;
        for (size_t i = 0; i < len; i++)
                count += p[i] == '\n';
        if (len && p[len - 1] != '\n')
                count++;
        const char **v = malloc((count + 1) * sizeof(*v));
        if (!v)
                return -1;
        size_t k = 0;
        for (size_t i = 0; i < len; k++) {
                v[k] = p + i;
                const char *e = memchr(p + i, '\n', len - i);
                i = e ? (size_t)(e - p) + 1 : len;
        }
        *out = v;
        *n = count;
        return 0;
}

static bool line_eq(const char *a, const char *a_end, const char *b, const char *b_end)
{
        const char *ea = memchr(a, '\n', (size_t)(a_end - a));
        const char *eb = memchr(b, '\n', (size_t)(b_end - b));
        size_t la = ea ? (size_t)(ea - a) + 1 : (size_t)(a_end - a);
        size_t lb = eb ? (size_t)(eb - b) + 1 : (size_t)(b_end - b);
        return la == lb && memcmp(a, b, la) == 0;
}

/*
 * A unified diff of old → new in the reference server's shape (a fenced "diff" block with
 * "Index:", "---"/"+++" headers and DIFF_CONTEXT lines of context): the lines both share at
 * the start and at the end are context, everything between is one hunk of removed and
 * added lines.
 */
static void unified_diff(struct sbuf *d, const char *name, size_t name_len, const char *a,
                         size_t alen, const char *b, size_t blen)
{
        const char **la = NULL, **lb = NULL;
        size_t na = 0, nb = 0;
        if (split_lines(a, alen, &la, &na) || split_lines(b, blen, &lb, &nb)) {
                free(la);
                d->oom = true;
                return;
        }
        const char *ea = a + alen, *eb = b + blen;
        size_t pre = 0;
        while (pre < na && pre < nb && line_eq(la[pre], ea, lb[pre], eb))
                pre++;
        size_t suf = 0;
        while (suf < na - pre && suf < nb - pre &&
               line_eq(la[na - 1 - suf], ea, lb[nb - 1 - suf], eb))
                suf++;
        sb_puts(d, "```diff\nIndex: ");
        sb_safe(d, name, name_len);
        sb_puts(d, "\n===================================================================\n--- ");
        sb_safe(d, name, name_len);
        sb_puts(d, "\toriginal\n+++ ");
        sb_safe(d, name, name_len);
        sb_puts(d, "\tmodified\n");
        if (pre < na || pre < nb) {
                size_t c0 = pre > DIFF_CONTEXT ? pre - DIFF_CONTEXT : 0;
                size_t ca = na - suf, cb = nb - suf;
                size_t c1a = ca + (suf < DIFF_CONTEXT ? suf : DIFF_CONTEXT);
                size_t c1b = cb + (suf < DIFF_CONTEXT ? suf : DIFF_CONTEXT);
                size_t lena = c1a - c0, lenb = c1b - c0;
                sb_printf(d, "@@ -%zu,%zu +%zu,%zu @@\n", lena ? c0 + 1 : c0, lena,
                          lenb ? c0 + 1 : c0, lenb);
                diff_lines(d, la, c0, pre, ea, ' ');
                diff_lines(d, la, pre, ca, ea, '-');
                diff_lines(d, lb, pre, cb, eb, '+');
                diff_lines(d, la, ca, c1a, ea, ' ');
        }
        sb_puts(d, "```\n\n");
        free(la);
        free(lb);
}

/* Applies the edits in order to `text` (each replaces the first occurrence of its oldText);
 * false with the tool error written when one is not found. */
static bool apply_edits(struct args *a, json_t *edits, struct sbuf *text)
{
        size_t i;
        json_t *e;
        json_array_foreach(edits, i, e)
        {
                json_t *old = json_object_get(e, "oldText"), *new = json_object_get(e, "newText");
                const char *op = json_string_value(old), *np = json_string_value(new);
                size_t ol = json_string_length(old), nl = json_string_length(new);
                const char *hit =
                    ol <= text->len ? memmem(text->p ? text->p : "", text->len, op, ol) : NULL;
                if (!hit) {
                        struct sbuf msg = {0};
                        sb_safe(&msg, op, ol > 400 ? 400 : ol);
                        invalid(a, "edits[%zu]: could not find an exact match for oldText:\n%s", i,
                                msg.oom ? "" : msg.p);
                        sb_free(&msg);
                        return false;
                }
                size_t at = (size_t)(hit - text->p);
                struct sbuf next = {0};
                sb_add(&next, text->p, at);
                sb_add(&next, np, nl);
                sb_add(&next, text->p + at + ol, text->len - at - ol);
                sb_free(text);
                *text = next;
                if (text->oom)
                        return false;
        }
        return true;
}

static void t_edit(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", "edits", "dryRun", NULL};
        static const char *const edit_names[] = {"oldText", "newText", NULL};
        struct args a = {.c = c, .o = o};
        const char *path = NULL;
        size_t path_len = 0;
        bool dry = false;
        a_known(&a, names);
        a_str(&a, "path", true, &path, &path_len);
        a_bool(&a, "dryRun", &dry);
        json_t *edits = json_object_get(c->args, "edits");
        if (!a.failed && !edits)
                invalid(&a, "\"edits\" is required");
        else if (!a.failed && (!json_is_array(edits) || json_array_size(edits) > MAX_EDITS))
                invalid(&a, "\"edits\" must be an array of at most %d {oldText, newText} objects",
                        MAX_EDITS);
        size_t i;
        json_t *e;
        json_array_foreach(a.failed ? NULL : edits, i, e)
        {
                const char *key;
                json_t *v;
                if (!json_is_object(e)) {
                        invalid(&a, "edits[%zu] must be an object {oldText, newText}", i);
                        break;
                }
                json_object_foreach(e, key, v)
                {
                        bool ok =
                            strcmp(key, edit_names[0]) == 0 || strcmp(key, edit_names[1]) == 0;
                        if (!ok || !json_is_string(v)) {
                                invalid(&a, "edits[%zu]: \"%s\" is %s", i, key,
                                        ok ? "not a string" : "not oldText or newText");
                                break;
                        }
                }
                if (!a.failed && (!json_object_get(e, "oldText") || !json_object_get(e, "newText")))
                        invalid(&a, "edits[%zu] needs oldText and newText", i);
                if (a.failed)
                        break;
        }
        if (a.failed)
                return;
        /* The file is read through the guard (its read rules), the edits are made in memory,
         * and the whole new text replaces the whole old one with one guarded edit (its edit
         * rules, which include the read rules, §4.5): all edits apply or none does, and a
         * file changed in between makes the edit fail instead of losing the change. */
        struct warder_session_request rd = {
            .op = WARDER_OP_READ, .target = path, .target_len = path_len};
        struct warder_session_result res;
        char *lit = NULL;
        if (!run_path(c, o, &rd, &res, &lit)) {
                warder_session_result_free(&res);
                warder_free(lit);
                return;
        }
        struct sbuf text = {0};
        sb_add(&text, res.bytes.data ? res.bytes.data : "", res.bytes.len);
        struct sbuf diff = {0};
        if (!text.oom && apply_edits(&a, edits, &text)) {
                unified_diff(&diff, lit, strlen(lit), res.bytes.data ? res.bytes.data : "",
                             res.bytes.len, text.p ? text.p : "", text.len);
                if (dry) {
                        /* a dry run writes nothing, but a denied edit is refused all the same */
                        struct warder_decision d = WARDER_DECISION_INIT;
                        struct warder_session *s = NULL;
                        struct warder_error err = WARDER_ERROR_INIT;
                        int rc = warder_session_set_pick(c->m->sessions, lit, strlen(lit), &s, NULL,
                                                         &err);
                        if (!rc)
                                rc = warder_session_check(s, WARDER_OP_EDIT, lit, strlen(lit), NULL,
                                                          &d, &err);
                        if (!rc && d.action == WARDER_DENY) {
                                err.decision = &d;
                                fail(c, o, WARDER_OP_EDIT, path, path_len, WARDER_EDENIED, &err);
                                err.decision = NULL;
                        } else if (rc) {
                                fail(c, o, WARDER_OP_EDIT, path, path_len, rc, &err);
                        }
                        warder_decision_clear(&d);
                        warder_error_clear(&err);
                } else if (res.bytes.len == 0) {
                        invalid(&a, "the file is empty: write it with write_file instead");
                } else {
                        struct warder_session_request ed = {
                            .op = WARDER_OP_EDIT,
                            .target = lit,
                            .target_len = strlen(lit),
                            .text = res.bytes.data,
                            .text_len = res.bytes.len,
                            .text2 = text.p ? text.p : "",
                            .text2_len = text.len,
                        };
                        struct warder_session_result er;
                        char *lit2 = NULL;
                        run_path(c, o, &ed, &er, &lit2);
                        warder_session_result_free(&er);
                        warder_free(lit2);
                }
        }
        if (!o->error) {
                sb_add(&o->text, diff.p ? diff.p : "", diff.len);
                bool bad = diff.oom || text.oom;
                warder_json_set(o->sc, "diff", json_stringn(diff.p ? diff.p : "", diff.len), &bad);
                warder_json_set(o->sc, "dryRun", json_boolean(dry), &bad);
                if (bad)
                        o->text.oom = true;
        }
        sb_free(&text);
        sb_free(&diff);
        warder_session_result_free(&res);
        warder_free(lit);
}

/* ---- listings ----------------------------------------------------------------------------- */

static void t_list(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_LS};
        a_known(&a, names);
        a_str(&a, "path", true, &req.target, &req.target_len);
        if (a.failed)
                return;
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                for (size_t i = 0; i < res.entries.count; i++) {
                        const struct warder_entry *en = &res.entries.items[i];
                        if (i)
                                sb_puts(&o->text, "\n");
                        sb_puts(&o->text, en->type == WARDER_ENTRY_DIR ? "[DIR] " : "[FILE] ");
                        sb_safe_str(&o->text, en->name);
                }
                if (res.entries.hidden)
                        sb_printf(&o->text, "%s(%zu entries hidden by the rules)",
                                  res.entries.count ? "\n" : "", res.entries.hidden);
                if (warder_json_put_entries(o->sc, &res.entries))
                        o->text.oom = true;
        }
        warder_session_result_free(&res);
        warder_free(lit);
}

/* Compiled excludePatterns: a pattern with a `*` matches the path relative to the base; one
 * without also matches as a name at any depth and as a directory (the reference server's
 * reading). */
struct excludes {
        warder_glob *g[MAX_EXCLUDES * 3];
        size_t n;
};

static bool excludes_compile(struct args *a, struct excludes *x)
{
        json_t *v = NULL;
        x->n = 0;
        if (!a_strings(a, "excludePatterns", false, 0, MAX_EXCLUDES, &v) || !v)
                return !a->failed;
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
                const char *p = json_string_value(item);
                size_t len = json_string_length(item);
                char *forms[3] = {strndup(p, len), NULL, NULL};
                if (!memchr(p, '*', len) && (asprintf(&forms[1], "**/%.*s", (int)len, p) < 0 ||
                                             asprintf(&forms[2], "**/%.*s/**", (int)len, p) < 0))
                        forms[1] = forms[2] = NULL;
                for (int k = 0; k < 3 && !a->failed; k++) {
                        if (!forms[k])
                                continue;
                        struct warder_error err = WARDER_ERROR_INIT;
                        if (warder_glob_compile(&x->g[x->n], forms[k], k ? strlen(forms[k]) : len,
                                                0, &err))
                                invalid(a, "excludePatterns[%zu]: %s", i, err.message);
                        else
                                x->n++;
                        warder_error_clear(&err);
                }
                for (int k = 0; k < 3; k++)
                        free(forms[k]);
                if (a->failed)
                        return false;
        }
        return true;
}

static void excludes_free(struct excludes *x)
{
        for (size_t i = 0; i < x->n; i++)
                warder_glob_free(x->g[i]);
        x->n = 0;
}

/* True when `path` (absolute) below `base` is excluded; an engine error excludes too (it can
 * only hide a name, never show one). */
static bool excluded(const struct excludes *x, const char *base, const char *path)
{
        size_t n = strlen(base);
        const char *rel = path;
        if (strncmp(path, base, n) == 0 && (path[n] == '/' || path[n] == '\0'))
                rel = path[n] == '/' ? path + n + 1 : path + n;
        if (strcmp(base, "/") == 0)
                rel = path + 1;
        for (size_t i = 0; i < x->n; i++)
                if (warder_glob_match(x->g[i], rel, strlen(rel)) != 0)
                        return true;
        return false;
}

struct tree {
        struct mcp_call *c;
        struct excludes *x;
        const char *base;
        size_t entries, hidden;
        bool truncated;
};

/* The entries of `dir` (absolute) as an array of {name, type, children}; NULL with the tool
 * error written when the listing of the top directory failed. */
static json_t *tree_of(struct tree *t, struct mcp_out *o, const char *dir, unsigned depth)
{
        struct warder_session_request req = {
            .op = WARDER_OP_LS, .target = dir, .target_len = strlen(dir)};
        struct warder_session_result res;
        char *lit = NULL;
        json_t *arr = NULL;
        if (depth == 0) {
                if (!run_path(t->c, o, &req, &res, &lit))
                        goto out;
        } else {
                struct warder_error err = WARDER_ERROR_INIT;
                int rc = run(t->c, &req, &res, &err, &lit);
                warder_error_clear(&err);
                if (rc) { /* a directory below that cannot be listed shows empty */
                        t->hidden++;
                        arr = json_array();
                        goto out;
                }
        }
        arr = json_array();
        t->hidden += res.entries.hidden;
        for (size_t i = 0; arr && i < res.entries.count; i++) {
                const struct warder_entry *en = &res.entries.items[i];
                if (excluded(t->x, t->base, en->path))
                        continue;
                if (t->entries >= TREE_MAX_ENTRY ||
                    warder_cancel_triggered(warder_rpc_call_cancel(t->c->call))) {
                        t->truncated = true;
                        break;
                }
                t->entries++;
                struct sbuf name = {0};
                sb_safe_str(&name, en->name);
                bool isdir = en->type == WARDER_ENTRY_DIR;
                json_t *e = name.oom ? NULL
                                     : json_pack("{s:s,s:s}", "name", name.p, "type",
                                                 isdir ? "directory" : "file");
                sb_free(&name);
                if (e && isdir) {
                        json_t *kids = NULL;
                        if (depth + 1 < TREE_MAX_DEPTH)
                                kids = tree_of(t, o, en->path, depth + 1);
                        else {
                                t->truncated = true;
                                kids = json_array();
                        }
                        if (!kids || json_object_set_new(e, "children", kids)) {
                                json_decref(e);
                                e = NULL;
                        }
                }
                if (!e || json_array_append_new(arr, e)) {
                        json_decref(arr);
                        arr = NULL;
                        o->text.oom = true;
                }
        }
out:
        warder_session_result_free(&res);
        warder_free(lit);
        return arr;
}

static void t_tree(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", "excludePatterns", NULL};
        struct args a = {.c = c, .o = o};
        const char *path = NULL;
        size_t len = 0;
        struct excludes x = {.n = 0};
        a_known(&a, names);
        a_str(&a, "path", true, &path, &len);
        if (!a.failed)
                excludes_compile(&a, &x);
        char *lit = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_session *s = NULL;
        int rc = a.failed ? 0 : warder_session_set_pick(c->m->sessions, path, len, &s, &lit, &err);
        if (rc)
                fail(c, o, WARDER_OP_LS, path, len, rc, &err);
        warder_error_clear(&err);
        if (!a.failed && !rc) {
                struct tree t = {.c = c, .x = &x, .base = lit};
                json_t *tree = tree_of(&t, o, lit, 0);
                if (tree) {
                        char *text = json_dumps(tree, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
                        if (text)
                                sb_puts(&o->text, text);
                        else
                                o->text.oom = true;
                        free(text);
                        bool bad = false;
                        warder_json_set(o->sc, "entries", json_integer((json_int_t)t.entries),
                                        &bad);
                        warder_json_set(o->sc, "hidden", json_integer((json_int_t)t.hidden), &bad);
                        warder_json_set(o->sc, "truncated", json_boolean(t.truncated), &bad);
                        if (bad)
                                o->text.oom = true;
                }
                json_decref(tree);
        }
        excludes_free(&x);
        warder_free(lit);
}

static void t_search(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"path", "pattern", "excludePatterns", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_GLOB};
        struct excludes x = {.n = 0};
        a_known(&a, names);
        a_str(&a, "path", true, &req.target, &req.target_len);
        a_cstr(&a, "pattern", true, &req.pattern);
        if (!a.failed)
                excludes_compile(&a, &x);
        if (a.failed) {
                excludes_free(&x);
                return;
        }
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                size_t kept = 0;
                for (size_t i = 0; i < res.entries.count; i++) {
                        struct warder_entry *en = &res.entries.items[i];
                        if (excluded(&x, lit, en->path)) {
                                free(en->name);
                                free(en->path);
                                continue;
                        }
                        if (kept)
                                sb_puts(&o->text, "\n");
                        sb_safe_str(&o->text, en->path);
                        res.entries.items[kept++] = *en;
                }
                res.entries.count = kept;
                if (!kept)
                        sb_puts(&o->text, "No matches found");
                if (warder_json_put_entries(o->sc, &res.entries))
                        o->text.oom = true;
        }
        excludes_free(&x);
        warder_session_result_free(&res);
        warder_free(lit);
}

static void t_allowed(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {NULL};
        struct args a = {.c = c, .o = o};
        if (!a_known(&a, names))
                return;
        json_t *dirs = json_array();
        bool bad = !dirs;
        sb_puts(&o->text, "Allowed directories:");
        for (size_t i = 0; i < warder_session_set_count(c->m->sessions); i++) {
                const char *root = warder_session_root(warder_session_set_at(c->m->sessions, i));
                sb_puts(&o->text, "\n");
                sb_safe_str(&o->text, root);
                if (dirs && json_array_append_new(dirs, warder_json_str(root)))
                        bad = true;
        }
        warder_json_set(o->sc, "directories", dirs, &bad);
        if (bad)
                o->text.oom = true;
}

/* ---- grep and execute --------------------------------------------------------------------- */

static void t_grep(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"pattern",    "path",       "include",
                                            "ignoreCase", "maxMatches", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_GREP};
        bool caseless = false, has_max = false;
        uint64_t max = 0;
        a_known(&a, names);
        a_cstr(&a, "pattern", true, &req.pattern);
        a_str(&a, "path", false, &req.target, &req.target_len);
        a_cstr(&a, "include", false, &req.include);
        a_bool(&a, "ignoreCase", &caseless);
        a_uint(&a, "maxMatches", 1, 1000000, &has_max, &max);
        if (a.failed)
                return;
        if (!req.target) {
                req.target = warder_session_root(warder_session_set_at(c->m->sessions, 0));
                req.target_len = strlen(req.target);
        }
        req.flags = caseless ? WARDER_GREP_CASELESS : 0;
        req.max_matches = (size_t)max;
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                for (size_t i = 0; i < res.grep.count; i++) {
                        const struct warder_grep_match *m = &res.grep.items[i];
                        if (i)
                                sb_puts(&o->text, "\n");
                        sb_safe_str(&o->text, m->path);
                        sb_printf(&o->text, ":%llu:", (unsigned long long)m->line);
                        sb_safe(&o->text, m->text, m->text_len);
                }
                if (!res.grep.count)
                        sb_puts(&o->text, "No matches found");
                if (res.grep.truncated)
                        sb_puts(&o->text, "\n(more matches were left out: the limit was reached)");
                if (warder_json_put_grep(o->sc, &res.grep))
                        o->text.oom = true;
        }
        warder_session_result_free(&res);
        warder_free(lit);
}

static void count_output(void *ud, int stream, const char *data, size_t len)
{
        struct mcp_call *c = ud;
        (void)stream;
        (void)data;
        atomic_fetch_add(&c->output_bytes, len);
}

static void t_execute(struct mcp_call *c, struct mcp_out *o)
{
        static const char *const names[] = {"command", "timeout", NULL};
        struct args a = {.c = c, .o = o};
        struct warder_session_request req = {.op = WARDER_OP_EXECUTE};
        bool has_timeout = false;
        uint64_t timeout = DEFAULT_TIMEOUT;
        a_known(&a, names);
        a_str(&a, "command", true, &req.target, &req.target_len);
        a_uint(&a, "timeout", 1, 86400000, &has_timeout, &timeout);
        if (a.failed)
                return;
        req.timeout_ms = (uint32_t)timeout;
        req.cancel = warder_rpc_call_cancel(c->call);
        req.stream = count_output;
        req.stream_ud = c;
        struct warder_session_result res;
        char *lit = NULL;
        if (run_path(c, o, &req, &res, &lit)) {
                const struct warder_exec_result *r = &res.exec;
                struct sbuf *t = &o->text;
                sb_safe(t, r->out.data ? r->out.data : "", r->out.len);
                if (r->out.len && r->out.data[r->out.len - 1] != '\n')
                        sb_puts(t, "\n");
                if (r->err.len) {
                        sb_puts(t, "[stderr]\n");
                        sb_safe(t, r->err.data, r->err.len);
                        if (r->err.data[r->err.len - 1] != '\n')
                                sb_puts(t, "\n");
                }
                if (r->cancelled)
                        sb_puts(t, "[cancelled: the command's process group was killed]");
                else if (r->timed_out)
                        sb_puts(t, "[timed out: the command's process group was killed]");
                else if (r->signal)
                        sb_printf(t, "[killed by signal %d]", r->signal);
                else
                        sb_printf(t, "[exit status %d]", r->exit_status);
                if (r->out.truncated || r->err.truncated)
                        sb_puts(t, " [output truncated]");
                if (warder_json_put_exec(o->sc, r))
                        o->text.oom = true;
        }
        warder_session_result_free(&res);
        warder_free(lit);
}

void mcp_run_tool(struct mcp_call *c, struct mcp_out *o)
{
        switch (c->tool->id) {
        case MCP_READ_TEXT_FILE:
        case MCP_READ_FILE:
                t_read(c, o);
                break;
        case MCP_READ_MULTIPLE_FILES:
                t_read_multiple(c, o);
                break;
        case MCP_WRITE_FILE:
                t_write(c, o);
                break;
        case MCP_EDIT_FILE:
                t_edit(c, o);
                break;
        case MCP_LIST_DIRECTORY:
                t_list(c, o);
                break;
        case MCP_DIRECTORY_TREE:
                t_tree(c, o);
                break;
        case MCP_SEARCH_FILES:
                t_search(c, o);
                break;
        case MCP_LIST_ALLOWED_DIRECTORIES:
                t_allowed(c, o);
                break;
        case MCP_GREP:
                t_grep(c, o);
                break;
        case MCP_EXECUTE:
                t_execute(c, o);
                break;
        case MCP_TOOL_COUNT:
                break;
        }
}
