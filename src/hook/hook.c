/* SPDX-License-Identifier: MIT */
/* The agents' hooks: event → decision → answer (see hook.h, semantics §9). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hook/hook.h"
#include "hook/scope.h"
#include "json/json.h"

/* ---- text --------------------------------------------------------------------------------- */

/* A growing string; `bad` records a failed allocation (the text is then dropped). */
struct text {
        char *s;
        size_t len, cap;
        bool bad;
};

static void text_add(struct text *t, const char *s, size_t n)
{
        if (t->bad)
                return;
        if (t->len + n + 1 > t->cap) {
                size_t cap = t->cap ? t->cap : 256;
                while (cap < t->len + n + 1)
                        cap *= 2;
                char *p = realloc(t->s, cap);
                if (!p) {
                        t->bad = true;
                        return;
                }
                t->s = p;
                t->cap = cap;
        }
        memcpy(t->s + t->len, s, n);
        t->len += n;
        t->s[t->len] = '\0';
}

static void text_puts(struct text *t, const char *s)
{
        text_add(t, s, strlen(s));
}

static void text_printf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(struct text *t, const char *fmt, ...)
{
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        if (n < 0)
                t->bad = true;
        else
                text_add(t, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Length of the valid UTF-8 sequence at s (1–4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
        size_t want = s[0] < 0x80             ? 1
                      : (s[0] & 0xe0) == 0xc0 ? 2
                      : (s[0] & 0xf0) == 0xe0 ? 3
                      : (s[0] & 0xf8) == 0xf0 ? 4
                                              : 0;
        if (!want || want > n)
                return 0;
        return warder_json_utf8_valid((const char *)s, want) ? want : 0;
}

/* Adds bytes as one line of valid UTF-8: control bytes, DEL, backslash and invalid UTF-8 are
 * escaped (\n, \t, \\, \xHH); at most `max` bytes of input are shown. */
static void text_quote(struct text *t, const char *s, size_t n, size_t max)
{
        size_t shown = n > max ? max : n;
        for (size_t i = 0; i < shown;) {
                unsigned char c = (unsigned char)s[i];
                size_t k = utf8_len((const unsigned char *)s + i, shown - i);
                if (c == '\n') {
                        text_puts(t, "\\n");
                } else if (c == '\t') {
                        text_puts(t, "\\t");
                } else if (c == '\\') {
                        text_puts(t, "\\\\");
                } else if (c < 0x20 || c == 0x7f || k == 0) {
                        text_printf(t, "\\x%02x", c);
                } else {
                        text_add(t, s + i, k);
                        i += k;
                        continue;
                }
                i++;
        }
        if (shown < n)
                text_printf(t, "... (%zu bytes)", n);
}

static void text_str(struct text *t, const char *s)
{
        text_quote(t, s, strlen(s), 240);
}

/* ---- the event being answered -------------------------------------------------------------- */

/* The part of an event's decision that decided (the strictest so far). */
struct part {
        bool have;
        struct warder_decision d; /* owns its strings */
        enum warder_op op;
        char *target;  /* as the agent spelled it (or the command) */
        char *literal; /* the literal form decided, or NULL */
        char *real;    /* the real form decided, or NULL */
        char *detail;  /* why the scope mattered, or NULL */
};

struct event {
        const struct warder_hook_config *cfg;
        const struct warder_hook_protocol *p;
        json_t *json;
        const char *tool;
        json_t *input;
        char *cwd;  /* normalised event cwd */
        char *root; /* the rules' root */
        struct warder_session *s;
        warder_ruleset *rs;
        bool can_refuse[WARDER_OP_COUNT]; /* a deny or ask rule, or a default that is not allow */
        size_t budget;                    /* scan entries left */
        struct part best;
        char *error; /* what broke: the answer is a deny saying so */
        bool nomem;
};

static void part_clear(struct part *p)
{
        if (p->have)
                warder_decision_clear(&p->d);
        free(p->target);
        free(p->literal);
        free(p->real);
        free(p->detail);
        memset(p, 0, sizeof(*p));
}

static void fail(struct event *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct event *ev, const char *fmt, ...)
{
        if (ev->error)
                return;
        struct text t = {0};
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        text_quote(&t, buf, strlen(buf), sizeof(buf));
        if (t.bad) {
                free(t.s);
                ev->nomem = true;
                return;
        }
        ev->error = t.s;
}

static char *dup_or_null(const char *s)
{
        return s ? strdup(s) : NULL;
}

/* Keeps `d` (consumed) when it is stricter than what decided so far. */
static void consider(struct event *ev, enum warder_op op, struct warder_decision *d,
                     const char *target, size_t target_len, const char *literal, const char *real,
                     const char *detail)
{
        if (ev->best.have && d->action <= ev->best.d.action) {
                warder_decision_clear(d);
                return;
        }
        struct part np = {.have = true, .op = op, .d = WARDER_DECISION_INIT};
        int rc = warder_decision_copy(&np.d, d);
        warder_decision_clear(d);
        if (rc) {
                ev->nomem = true;
                return;
        }
        np.target = strndup(target, target_len);
        np.literal = dup_or_null(literal);
        np.real = dup_or_null(real);
        np.detail = dup_or_null(detail);
        if (!np.target || (literal && !np.literal) || (real && !np.real) ||
            (detail && !np.detail)) {
                part_clear(&np);
                ev->nomem = true;
                return;
        }
        part_clear(&ev->best);
        ev->best = np;
}

/* A decision made here rather than by a rule: at least ask, with a note (static text). */
static void raise_ask(struct warder_decision *d, enum warder_op op, const char *note)
{
        *d = (struct warder_decision)WARDER_DECISION_INIT;
        d->action = WARDER_ASK;
        d->op = op;
        d->note = note;
}

/* ---- paths -------------------------------------------------------------------------------- */

static const char proc_note[] =
    "a path through /proc/<pid>/root, cwd or fd names something other than what it spells";
static const char unresolved_note[] =
    "the path could not be resolved the way the agent's tool will open it";

/* The path as the agent's tool spells it on the host: absolute, not normalised. */
static char *host_spelling(struct event *ev, const char *raw, bool tilde)
{
        char *out = NULL;
        int n = 0;
        if (raw[0] == '/')
                return strdup(raw);
        if (tilde && raw[0] == '~' && ev->cfg->home && (raw[1] == '\0' || raw[1] == '/'))
                n = asprintf(&out, "%s%s", ev->cfg->home, raw + 1);
        else
                n = asprintf(&out, "%s/%s", ev->cwd, raw);
        return n < 0 ? NULL : out;
}

/*
 * Decides `op` for one spelling of a path: as `warder check` does (the session: both forms,
 * a link leaving the root at least ask), and on the path the kernel will open for the agent.
 * Fills *literal (free()) for the caller's scans.
 */
static void decide_spelling(struct event *ev, const enum warder_op *ops, size_t nops,
                            const char *raw, size_t raw_len, const char *display,
                            size_t display_len, bool tilde, char **literal, char **kreal)
{
        *literal = *kreal = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        char *lit = NULL;
        int rc = warder_path_normalize(&lit, NULL, ev->root, tilde ? ev->cfg->home : NULL, ev->cwd,
                                       raw, raw_len, &err);
        if (rc) {
                fail(ev, "the path '%.200s' cannot be decided: %s", display,
                     err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                return;
        }
        char *host = host_spelling(ev, raw, tilde);
        char *kr = NULL;
        int krc = host ? warder_hook_kernel_real(host, &kr) : -ENOMEM;
        free(host);
        if (krc == -ENOMEM) {
                warder_free(lit);
                ev->nomem = true;
                return;
        }
        for (size_t i = 0; i < nops && !ev->error && !ev->nomem; i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                rc = warder_session_check(ev->s, ops[i], lit, strlen(lit), NULL, &d, &err);
                if (rc) {
                        fail(ev, "%s of '%.200s' cannot be decided: %s", warder_op_name(ops[i]),
                             display, err.message[0] ? err.message : warder_strerror(rc));
                        warder_error_clear(&err);
                        break;
                }
                consider(ev, ops[i], &d, display, display_len, lit, NULL, NULL);
                if (krc == 0) {
                        rc = warder_ruleset_check(&d, ev->rs, ops[i], lit, strlen(lit), kr,
                                                  (kr ? strlen(kr) : 0), &err);
                        if (rc) {
                                fail(ev, "%s of '%.200s' cannot be decided: %s",
                                     warder_op_name(ops[i]), display,
                                     err.message[0] ? err.message : warder_strerror(rc));
                                warder_error_clear(&err);
                                break;
                        }
                        consider(ev, ops[i], &d, display, display_len, lit, kr, NULL);
                } else {
                        raise_ask(&d, ops[i], unresolved_note);
                        consider(ev, ops[i], &d, display, display_len, lit, NULL, NULL);
                }
                if (warder_hook_proc_path(lit) || (krc == 0 && warder_hook_proc_path(kr))) {
                        raise_ask(&d, ops[i], proc_note);
                        consider(ev, ops[i], &d, display, display_len, lit, kr, NULL);
                }
        }
        *literal = strdup(lit);
        if (!*literal)
                ev->nomem = true;
        warder_free(lit);
        *kreal = kr;
}

/* The spellings of a path: as given, and for `~…` also the name relative to the working
 * directory (a tool that does not expand `~` opens that one). */
static size_t spellings(const char *raw, size_t len, char *alt, size_t alt_size)
{
        if (len == 0 || raw[0] != '~' || len + 3 > alt_size)
                return 1;
        memcpy(alt, "./", 2);
        memcpy(alt + 2, raw, len);
        alt[len + 2] = '\0';
        return 2;
}

static const char scope_note[] =
    "a hook cannot filter what the agent's own tool returns, so its whole scope is decided";
static const char budget_note[] = "the scope holds more entries than warder checks for one call";
static const char unreadable_note[] =
    "a directory in the scope could not be read, so what the tool would see is unknown";

/* Decides the entries beneath a directory for `ops` (§9.2: the whole scope of a listing, glob
 * or search). */
static void decide_scope(struct event *ev, const enum warder_op *ops, size_t nops, bool files_only,
                         int max_depth, const struct warder_hook_filter *filter,
                         const char *display, size_t display_len, const char *literal,
                         const char *kreal)
{
        bool any = false;
        for (size_t i = 0; i < nops; i++)
                any = any || ev->can_refuse[ops[i]];
        if (!any || ev->error || ev->nomem)
                return; /* no entry can be refused: nothing to walk */
        struct warder_hook_scan sc = {
            .rs = ev->rs,
            .nops = nops,
            .files_only = files_only,
            .max_depth = max_depth,
            .filter = filter,
            .budget = &ev->budget,
        };
        for (size_t i = 0; i < nops && i < 2; i++)
                sc.ops[i] = ops[i];
        if (warder_hook_scan(&sc, literal, kreal ? kreal : literal)) {
                warder_hook_scan_clear(&sc);
                ev->nomem = true;
                return;
        }
        enum warder_op op = ops[0]; /* the tool's own operation names the part */
        if (sc.have && sc.decision.action != WARDER_ALLOW) {
                struct text t = {0};
                text_printf(&t, "%s ",
                            ops[0] == WARDER_OP_GREP || ops[0] == WARDER_OP_READ ? "it would read"
                                                                                 : "it would list");
                /* named from the working directory when it lies beneath it */
                size_t cl = strlen(ev->cwd);
                const char *name = sc.culprit;
                if (strncmp(name, ev->cwd, cl) == 0 && name[cl] == '/' && name[cl + 1])
                        name += cl + 1;
                text_str(&t, name);
                text_printf(&t, "; %s", scope_note);
                struct warder_decision d = WARDER_DECISION_INIT;
                if (t.bad || warder_decision_copy(&d, &sc.decision)) {
                        ev->nomem = true;
                } else {
                        consider(ev, op, &d, display, display_len, sc.culprit, NULL, t.s);
                }
                free(t.s);
        }
        if (sc.over_budget || sc.unreadable) {
                struct warder_decision d = WARDER_DECISION_INIT;
                raise_ask(&d, op, sc.over_budget ? budget_note : unreadable_note);
                consider(ev, op, &d, display, display_len, sc.unreadable ? sc.unreadable : literal,
                         NULL, scope_note);
        }
        warder_hook_scan_clear(&sc);
}

/* ---- tool inputs -------------------------------------------------------------------------- */

/* The string value of tool_input.<field>: 1 present, 0 absent, -1 wrong type (failed). */
static int input_string(struct event *ev, const char *field, const char **s, size_t *len)
{
        json_t *v = json_object_get(ev->input, field);
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v)) {
                fail(ev, "tool_input.%s of %s must be a string", field, ev->tool);
                return -1;
        }
        *s = json_string_value(v);
        *len = json_string_length(v);
        return 1;
}

/* Decides one path (every spelling), and returns its literal and kernel real form of the
 * spelling as given (free()), for a scope walk. */
static void decide_path(struct event *ev, const enum warder_op *ops, size_t nops, const char *raw,
                        size_t len, const char *field, char **literal, char **kreal)
{
        *literal = *kreal = NULL;
        if (len == 0) {
                fail(ev, "tool_input.%s of %s is empty", field, ev->tool);
                return;
        }
        if (memchr(raw, '\0', len)) {
                fail(ev, "tool_input.%s of %s holds a NUL byte", field, ev->tool);
                return;
        }
        char alt[PATH_MAX + 4];
        size_t n = spellings(raw, len, alt, sizeof(alt));
        for (size_t i = 0; i < n && !ev->error && !ev->nomem; i++) {
                char *lit = NULL, *kr = NULL;
                const char *sp = i == 0 ? raw : alt;
                decide_spelling(ev, ops, nops, sp, strlen(sp), raw, len, i == 0, &lit, &kr);
                if (i == 0) {
                        *literal = lit;
                        *kreal = kr;
                } else {
                        free(lit);
                        free(kr);
                }
        }
}

static bool is_directory(const char *path)
{
        struct stat st;
        return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A path field that names a file or directory to work in; absent: the working directory. */
static const char *field_or_cwd(struct event *ev, const char *const *fields, const char **field,
                                size_t *len)
{
        const char *s = NULL;
        for (size_t i = 0; fields && fields[i]; i++) {
                int got = input_string(ev, fields[i], &s, len);
                if (got < 0)
                        return NULL;
                if (got) {
                        *field = fields[i];
                        return s;
                }
        }
        *field = "cwd";
        *len = 1;
        return "."; /* the working directory, as the tool defaults to it */
}

/* A pattern (glob, or an include list item) under `base`: the directory it can reach, and a
 * name filter when its form is simple. Decides `ops` on every entry it may reach. */
static void decide_pattern(struct event *ev, const enum warder_op *ops, size_t nops,
                           bool files_only, const char *base, const char *pattern, size_t plen,
                           const char *field)
{
        if (memchr(pattern, '\0', plen)) {
                fail(ev, "tool_input.%s of %s holds a NUL byte", field, ev->tool);
                return;
        }
        if (plen == 0)
                return; /* matches nothing */
        bool literal = false;
        size_t keep = warder_hook_pattern_prefix(pattern, &literal);
        char *dir = NULL;
        if (pattern[0] == '/' || pattern[0] == '~')
                dir = strndup(pattern, keep ? keep : 1);
        else if (asprintf(&dir, "%s/%.*s", base, (int)keep, pattern) < 0)
                dir = NULL;
        if (!dir) {
                ev->nomem = true;
                return;
        }
        struct warder_hook_filter filter;
        bool filtered = !literal && warder_hook_filter_parse(pattern + keep, &filter);
        char *lit = NULL, *kr = NULL;
        /* the directory (or, for a pattern without glob syntax, the path) itself */
        decide_path(ev, ops, nops, dir, strlen(dir), field, &lit, &kr);
        if (lit && (!literal || is_directory(kr ? kr : lit)))
                decide_scope(ev, ops, nops, files_only, INT_MAX, filtered ? &filter : NULL, pattern,
                             plen, lit, kr);
        free(lit);
        free(kr);
        free(dir);
}

static void tool_paths(struct event *ev, const struct warder_hook_tool *t)
{
        enum warder_op ops[2];
        size_t nops = 1;
        switch (t->kind) {
        case WARDER_HOOK_READ:
                ops[0] = WARDER_OP_READ;
                break;
        case WARDER_HOOK_WRITE:
                ops[0] = WARDER_OP_WRITE;
                break;
        case WARDER_HOOK_EDIT:
                /* an edit tells whether its old text was there: read rules count too (§4.5) */
                ops[0] = WARDER_OP_EDIT;
                ops[1] = WARDER_OP_READ;
                nops = 2;
                break;
        case WARDER_HOOK_READ_MANY:
        case WARDER_HOOK_LS:
        case WARDER_HOOK_GLOB:
        case WARDER_HOOK_GREP:
        case WARDER_HOOK_EXECUTE:
                return;
        }
        bool found = false;
        for (size_t i = 0; t->paths[i] && !ev->error && !ev->nomem; i++) {
                const char *s;
                size_t len;
                int got = input_string(ev, t->paths[i], &s, &len);
                if (got <= 0)
                        continue;
                found = true;
                char *lit = NULL, *kr = NULL;
                decide_path(ev, ops, nops, s, len, t->paths[i], &lit, &kr);
                free(lit);
                free(kr);
        }
        if (!found && t->required && !ev->error)
                fail(ev, "tool_input.%s of %s is missing", t->paths[0], ev->tool);
}

static void tool_read_many(struct event *ev, const struct warder_hook_tool *t)
{
        static const enum warder_op read_op[1] = {WARDER_OP_READ};
        bool found = false;
        for (size_t i = 0; t->paths[i] && !ev->error && !ev->nomem; i++) {
                json_t *list = json_object_get(ev->input, t->paths[i]);
                if (!list || json_is_null(list))
                        continue;
                found = true;
                if (!json_is_array(list)) {
                        fail(ev, "tool_input.%s of %s must be a list of strings", t->paths[i],
                             ev->tool);
                        return;
                }
                if (json_array_size(list) > WARDER_HOOK_MAX_LIST) {
                        fail(ev, "tool_input.%s of %s holds more than %u items", t->paths[i],
                             ev->tool, WARDER_HOOK_MAX_LIST);
                        return;
                }
                size_t k;
                json_t *item;
                json_array_foreach(list, k, item)
                {
                        if (ev->error || ev->nomem)
                                break;
                        if (!json_is_string(item)) {
                                fail(ev, "tool_input.%s of %s must be a list of strings",
                                     t->paths[i], ev->tool);
                                return;
                        }
                        decide_pattern(ev, read_op, 1, true, ev->cwd, json_string_value(item),
                                       json_string_length(item), t->paths[i]);
                }
        }
        if (!found && t->required && !ev->error)
                fail(ev, "tool_input.%s of %s is missing", t->paths[0], ev->tool);
}

static void tool_listing(struct event *ev, const struct warder_hook_tool *t)
{
        const char *field;
        size_t len;
        const char *base = field_or_cwd(ev, t->paths, &field, &len);
        if (!base || ev->error)
                return;
        enum warder_op op = t->kind == WARDER_HOOK_LS     ? WARDER_OP_LS
                            : t->kind == WARDER_HOOK_GLOB ? WARDER_OP_GLOB
                                                          : WARDER_OP_GREP;
        char *lit = NULL, *kr = NULL;
        decide_path(ev, &op, 1, base, len, field, &lit, &kr);
        if (!lit || ev->error || ev->nomem) {
                free(lit);
                free(kr);
                return;
        }
        const char *pattern = NULL;
        size_t plen = 0;
        const char *pfield = NULL;
        for (size_t i = 0; t->pattern && t->pattern[i] && !pattern; i++) {
                if (input_string(ev, t->pattern[i], &pattern, &plen) < 0)
                        break;
                pfield = t->pattern[i];
        }
        if (ev->error) {
                free(lit);
                free(kr);
                return;
        }
        if (t->kind == WARDER_HOOK_LS) {
                static const enum warder_op ls_op[1] = {WARDER_OP_LS};
                decide_scope(ev, ls_op, 1, false, 1, NULL, base, len, lit, kr);
        } else if (t->kind == WARDER_HOOK_GLOB) {
                static const enum warder_op glob_op[1] = {WARDER_OP_GLOB};
                if (!pattern)
                        fail(ev, "tool_input.%s of %s is missing", t->pattern[0], ev->tool);
                else
                        decide_pattern(ev, glob_op, 1, false, lit, pattern, plen, pfield);
        } else {
                /* a search reads every file it searches: grep and read rules (§4.7) */
                static const enum warder_op grep_ops[2] = {WARDER_OP_GREP, WARDER_OP_READ};
                struct warder_hook_filter filter;
                bool filtered = false;
                if (pattern && !memchr(pattern, '\0', plen)) {
                        bool literal;
                        size_t keep = warder_hook_pattern_prefix(pattern, &literal);
                        filtered =
                            keep == 0 && !literal && warder_hook_filter_parse(pattern, &filter);
                }
                if (is_directory(kr ? kr : lit)) {
                        decide_scope(ev, grep_ops, 2, true, INT_MAX, filtered ? &filter : NULL,
                                     base, len, lit, kr);
                } else {
                        /* a single file: it is the whole scope */
                        char *l2 = NULL, *k2 = NULL;
                        decide_path(ev, grep_ops, 2, base, len, field, &l2, &k2);
                        free(l2);
                        free(k2);
                }
        }
        free(lit);
        free(kr);
}

static void tool_execute(struct event *ev, const struct warder_hook_tool *t)
{
        const char *cmd = NULL;
        size_t len = 0;
        int got = input_string(ev, t->paths[0], &cmd, &len);
        if (got <= 0) {
                if (got == 0)
                        fail(ev, "tool_input.%s of %s is missing", t->paths[0], ev->tool);
                return;
        }
        if (len == 0) {
                fail(ev, "tool_input.%s of %s is empty", t->paths[0], ev->tool);
                return;
        }
        if (memchr(cmd, '\0', len)) {
                fail(ev, "tool_input.%s of %s holds a NUL byte", t->paths[0], ev->tool);
                return;
        }
        /* where the command runs: a directory field (relative to the event's cwd), else cwd */
        const char *dir = ev->cwd;
        char *dir_lit = NULL;
        for (size_t i = 0; t->cwd && t->cwd[i]; i++) {
                const char *s;
                size_t n;
                int g = input_string(ev, t->cwd[i], &s, &n);
                if (g < 0)
                        return;
                if (g == 0 || n == 0)
                        continue;
                struct warder_error err = WARDER_ERROR_INIT;
                int rc = warder_path_normalize(&dir_lit, NULL, ev->root, NULL, ev->cwd, s, n, &err);
                if (rc) {
                        fail(ev, "tool_input.%s of %s cannot be decided: %s", t->cwd[i], ev->tool,
                             err.message[0] ? err.message : warder_strerror(rc));
                        warder_error_clear(&err);
                        return;
                }
                dir = dir_lit;
                break;
        }
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_session_check_command(ev->s, cmd, len, dir, &d, &err);
        if (rc) {
                fail(ev, "the command cannot be decided: %s",
                     err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
        } else {
                consider(ev, WARDER_OP_EXECUTE, &d, cmd, len, NULL, NULL, NULL);
        }
        warder_free(dir_lit);
}

/* ---- the answer --------------------------------------------------------------------------- */

static const char *form_phrase(enum warder_form f)
{
        switch (f) {
        case WARDER_FORM_LITERAL:
                return "the literal form";
        case WARDER_FORM_REAL:
                return "the real form";
        case WARDER_FORM_BOTH:
                return "the literal and real forms";
        case WARDER_FORM_NONE:
                break;
        }
        return "no form";
}

/* The one-line reason of a decision. */
static char *reason_of(struct event *ev, const char *source)
{
        const struct part *p = &ev->best;
        const struct warder_decision *d = &p->d;
        struct text t = {0};
        text_printf(&t, "warder: %s %s ", warder_action_name(d->action), warder_op_name(p->op));
        if (p->op == WARDER_OP_EXECUTE) {
                text_puts(&t, "'");
                text_quote(&t, p->target, strlen(p->target), 240);
                text_puts(&t, "'");
        } else {
                text_str(&t, p->target);
        }
        if (d->segment && p->op == WARDER_OP_EXECUTE && strcmp(d->segment, p->target) != 0) {
                text_puts(&t, ": command '");
                text_str(&t, d->segment);
                text_puts(&t, "'");
        }
        if (d->candidate) {
                text_puts(&t, ": path ");
                text_str(&t, d->candidate);
                text_printf(&t, " (%s)", warder_op_name(d->candidate_op));
        }
        if (p->detail) {
                text_puts(&t, ": ");
                text_str(&t, p->detail);
        }
        if (d->rule_id) {
                text_puts(&t, ": rule ");
                text_str(&t, d->rule_id);
                text_puts(&t, " '");
                text_str(&t, d->pattern ? d->pattern : "");
                text_puts(&t, "'");
                if (d->form != WARDER_FORM_NONE)
                        text_printf(&t, " matched %s", form_phrase(d->form));
                if (d->file) {
                        text_puts(&t, " (");
                        text_str(&t, d->file);
                        text_printf(&t, ":%u:%u)", d->line, d->column);
                }
                if (d->reason) {
                        text_puts(&t, ": ");
                        text_str(&t, d->reason);
                }
        } else if (d->by_default) {
                text_printf(&t, ": no rule matched; the %s default is %s (",
                            warder_op_name(d->candidate ? d->candidate_op : d->op),
                            warder_action_name(d->action));
                text_str(&t, source);
                text_puts(&t, ")");
        }
        if (d->note) {
                text_puts(&t, " (");
                text_str(&t, d->note);
                text_puts(&t, ")");
        }
        if (t.bad) {
                free(t.s);
                return NULL;
        }
        return t.s;
}

static void audit_line(struct event *ev, enum warder_hook_verdict v, const char *reason)
{
        static const char *const names[] = {"none", "allow", "ask", "deny"};
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        json_t *o = NULL;
        if (ev->best.have && !ev->error) {
                struct warder_guard_request req = {
                    .op = ev->best.op,
                    .target = ev->best.target,
                    .literal = ev->best.literal ? ev->best.literal : ev->best.target,
                    .real = ev->best.real,
                    .rules = ev->rs,
                };
                struct warder_audit_event ae = {
                    .request = &req,
                    .decision = &ev->best.d,
                    .final_action = ev->best.d.action,
                };
                o = warder_json_audit(&ae, &now);
        } else {
                double t = (double)now.tv_sec + (double)(now.tv_nsec / 1000000) / 1000.0;
                o = json_pack("{s:f}", "time", t);
        }
        if (!o)
                return;
        bool bad = false;
        warder_json_set(o, "door", json_string("hook"), &bad);
        warder_json_set(o, "agent", json_string(ev->p->name), &bad);
        warder_json_set(o, "tool", warder_json_str(ev->tool), &bad);
        warder_json_set(o, "verdict", json_string(names[v]), &bad);
        warder_json_set(o, "reason", warder_json_str(reason), &bad);
        if (!bad)
                warder_json_write(ev->cfg->audit, o);
        fflush(ev->cfg->audit);
        json_decref(o);
}

int warder_hook_answer_set(struct warder_hook_answer *ans, int exit_code, const char *out,
                           const char *err)
{
        char *o = strdup(out ? out : ""), *e = strdup(err ? err : "");
        if (!o || !e) {
                free(o);
                free(e);
                return WARDER_ENOMEM;
        }
        free(ans->out);
        free(ans->err);
        ans->out = o;
        ans->out_len = strlen(o);
        ans->err = e;
        ans->err_len = strlen(e);
        ans->exit_code = exit_code;
        return 0;
}

int warder_hook_answer_json(struct warder_hook_answer *ans, enum warder_hook_verdict v, json_t *o,
                            const char *reason)
{
        char *line = o ? warder_json_line(o, NULL) : NULL;
        json_decref(o);
        char *err = NULL;
        if (v == WARDER_HOOK_DENY && line && asprintf(&err, "%s\n", reason) < 0)
                err = NULL;
        int rc = !line || (v == WARDER_HOOK_DENY && !err)
                     ? WARDER_ENOMEM
                     : warder_hook_answer_set(ans, v == WARDER_HOOK_DENY ? 2 : 0, line, err);
        free(line);
        free(err);
        return rc;
}

void warder_hook_answer_free(struct warder_hook_answer *ans)
{
        if (!ans)
                return;
        free(ans->out);
        free(ans->err);
        free(ans->reason);
        memset(ans, 0, sizeof(*ans));
}

const char warder_hook_nomem_reason[] = "warder: deny: out of memory while deciding";

/* The answer for a verdict; on ENOMEM a deny that needs no allocation. */
static int answer(struct event *ev, struct warder_hook_answer *ans, enum warder_hook_verdict v,
                  char *reason)
{
        if (v == WARDER_HOOK_ASK && ev->cfg->ask_as_deny && reason) {
                char *r = NULL;
                if (asprintf(&r, "%s (this agent cannot ask: answered as deny)", reason) < 0)
                        r = NULL;
                free(reason);
                reason = r;
                v = WARDER_HOOK_DENY;
        }
        if ((v != WARDER_HOOK_NO_OPINION && !reason) ||
            ev->p->encode(v, reason ? reason : "", ans)) {
                free(reason);
                free(ans->out);
                free(ans->err);
                ans->out = ans->err = NULL;
                ans->out_len = ans->err_len = 0;
                ans->verdict = WARDER_HOOK_DENY;
                ans->exit_code = 2;
                ans->reason = NULL;
                return WARDER_ENOMEM;
        }
        ans->verdict = v;
        ans->reason = reason;
        if (ev->cfg->audit)
                audit_line(ev, v, reason);
        return 0;
}

/* ---- the event ---------------------------------------------------------------------------- */

static const struct warder_hook_tool *find_tool(const struct warder_hook_protocol *p,
                                                const char *name)
{
        for (size_t i = 0; i < p->ntools; i++)
                if (strcmp(p->tools[i].name, name) == 0)
                        return &p->tools[i];
        return NULL;
}

static void parse(struct event *ev, const char *event, size_t len)
{
        if (len == 0) {
                fail(ev, "the event is empty (expected one JSON object on stdin)");
                return;
        }
        if (len > WARDER_HOOK_MAX_EVENT) {
                fail(ev, "the event is larger than %zu bytes", WARDER_HOOK_MAX_EVENT);
                return;
        }
        json_error_t jerr;
        ev->json = json_loadb(event, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
        if (!ev->json) {
                fail(ev, "the event is not valid JSON (line %d, column %d: %s)", jerr.line,
                     jerr.column, jerr.text);
                return;
        }
        if (!json_is_object(ev->json)) {
                fail(ev, "the event is not a JSON object");
                return;
        }
        json_t *name = json_object_get(ev->json, "hook_event_name");
        if (!json_is_string(name)) {
                fail(ev, "the event has no hook_event_name string");
                return;
        }
        if (strcmp(json_string_value(name), ev->p->event) != 0 ||
            json_string_length(name) != strlen(ev->p->event)) {
                struct text t = {0};
                text_quote(&t, json_string_value(name), json_string_length(name), 64);
                fail(ev, "unknown event '%s' (warder hook %s answers %s)", t.s ? t.s : "?",
                     ev->p->name, ev->p->event);
                free(t.s);
                return;
        }
        json_t *tool = json_object_get(ev->json, "tool_name");
        if (!json_is_string(tool) || json_string_length(tool) == 0 ||
            memchr(json_string_value(tool), '\0', json_string_length(tool))) {
                fail(ev, "the event has no tool_name string");
                return;
        }
        ev->tool = json_string_value(tool);
        ev->input = json_object_get(ev->json, "tool_input");
        if (!json_is_object(ev->input)) {
                fail(ev, "tool_input of %s is %s", ev->tool,
                     ev->input ? "not an object" : "missing");
                return;
        }
        json_t *cwd = json_object_get(ev->json, "cwd");
        if (!json_is_string(cwd) || json_string_value(cwd)[0] != '/' ||
            memchr(json_string_value(cwd), '\0', json_string_length(cwd))) {
                fail(ev, "the event has no absolute cwd");
                return;
        }
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_path_normalize(&ev->cwd, NULL, "/", NULL, NULL, json_string_value(cwd),
                                       json_string_length(cwd), &err);
        if (rc) {
                fail(ev, "cwd cannot be used: %s", err.message);
                warder_error_clear(&err);
        }
}

/* ---- the hook's own configuration (§9.5) -------------------------------------------------- */

/* Appends `s` to `out` as a glob that matches only `s` itself. */
static void escape_glob(struct text *out, const char *s)
{
        for (; *s; s++) {
                if (strchr("\\*?[]{},!~ \t", *s))
                        text_add(out, "\\", 1);
                text_add(out, s, 1);
        }
}

/* Adds a deny rule for the file `dir`/`name` (`dir` NULL: `name` is the whole path). */
static bool protect(json_t *rules, const char *dir, const char *name, const char *id,
                    const char *reason)
{
        struct text t = {0};
        if (dir) {
                escape_glob(&t, dir);
                text_add(&t, "/", 1);
        }
        escape_glob(&t, name);
        bool ok = !t.bad && t.s;
        json_t *rule = ok ? json_object() : NULL;
        json_t *pat = rule ? json_stringn(t.s, t.len) : NULL;
        free(t.s);
        if (!pat || json_object_set_new(rule, "deny", pat) ||
            json_object_set_new(rule, "id", json_string(id)) ||
            json_object_set_new(rule, "reason", json_string(reason)) ||
            json_array_append_new(rules, rule)) {
                json_decref(rule);
                return false;
        }
        return true;
}

/* The ruleset a hook decides with: the one it was given, extended by rules that deny writing or
 * editing the files that decide what the agent may do — the agents' settings files (where the
 * hook itself is registered), the ruleset file and the warder executable that answers. An
 * agent allowed to write them could take the hook out of its next session or widen its
 * rules. NULL (and *bad set when it is not memory) when it cannot be built: the caller fails
 * closed. */
static char *protected_rules(const struct event *ev, char **self, bool *bad)
{
        const struct warder_hook_config *cfg = ev->cfg;
        static const char *const files[] = {".claude/settings.json", ".claude/settings.local.json",
                                            ".gemini/settings.json"};
        static const char settings_reason[] =
            "the agent's settings register this hook: the agent may not change them (§9.5)";
        *bad = false;
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
        if (n > 0) {
                buf[n] = '\0';
                *self = strdup(buf);
        }
        json_t *doc = json_object(), *rules = json_array();
        bool ok = doc && rules;
        if (ok && cfg->source.kind == WARDER_SESSION_FILE)
                ok = !json_object_set_new(doc, "extends", json_string(cfg->source.value));
        else if (ok)
                ok = !json_object_set_new(
                    doc, "extends", json_string(cfg->source.value ? cfg->source.value : "default"));
        ok = ok && !json_object_set_new(doc, "warder", json_integer(1));
        for (size_t i = 0; ok && i < sizeof(files) / sizeof(files[0]); i++) {
                ok = protect(rules, ev->root, files[i], "hook-settings", settings_reason);
                if (ok && cfg->home)
                        ok = protect(rules, cfg->home, files[i], "hook-settings", settings_reason);
        }
        if (ok && cfg->source.kind == WARDER_SESSION_FILE)
                ok = protect(rules, NULL, cfg->source.value, "hook-ruleset",
                             "the ruleset decides what the agent may do: the agent may not "
                             "change it (§9.5)");
        if (ok && *self)
                ok = protect(rules, NULL, *self, "hook-executable",
                             "warder answers this hook: the agent may not replace it (§9.5)");
        for (const char *op = "write"; ok && op; op = strcmp(op, "write") == 0 ? "edit" : NULL) {
                /* rule ids are unique in a ruleset: "<id>-<op>-<n>" */
                json_t *copy = json_deep_copy(rules);
                size_t i;
                json_t *rule;
                json_array_foreach(copy, i, rule)
                {
                        char id[64];
                        snprintf(id, sizeof(id), "%s-%s-%zu",
                                 json_string_value(json_object_get(rule, "id")), op, i + 1);
                        ok = ok && !json_object_set_new(rule, "id", json_string(id));
                }
                json_t *block = copy ? json_pack("{s:o}", "rules", copy) : NULL;
                ok = ok && block && !json_object_set_new(doc, op, block);
        }
        /* a name that is not UTF-8 cannot be written as JSON: not memory, a refusal */
        if (!ok && doc && rules)
                *bad = true;
        char *text = ok ? json_dumps(doc, JSON_COMPACT) : NULL;
        json_decref(rules);
        json_decref(doc);
        return text;
}

static void open_session(struct event *ev)
{
        const struct warder_hook_config *cfg = ev->cfg;
        const char *root = cfg->root ? cfg->root : cfg->project_dir ? cfg->project_dir : ev->cwd;
        if (!root || root[0] != '/') {
                fail(ev, "the root must be an absolute path");
                return;
        }
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_path_normalize(&ev->root, NULL, "/", NULL, NULL, root, strlen(root), &err);
        if (rc) {
                fail(ev, "the root cannot be used: %s", err.message);
                warder_error_clear(&err);
                return;
        }
        struct warder_session_config sc = {
            .source = cfg->source,
            .root = ev->root,
            .home = cfg->home,
        };
        char *text = NULL, *self = NULL, name[PATH_MAX + 32];
        if (cfg->source.kind != WARDER_SESSION_TEXT) {
                bool bad = false;
                if (!(text = protected_rules(ev, &self, &bad))) {
                        free(self);
                        if (bad)
                                fail(ev, "the hook's own files cannot be protected: a path is "
                                         "not UTF-8");
                        else
                                ev->nomem = true;
                        return;
                }
                sc.source.kind = WARDER_SESSION_TEXT;
                sc.source.value = text;
                sc.source.len = strlen(text);
                /* named after the ruleset it extends, so reasons keep naming it */
                if (cfg->source.kind == WARDER_SESSION_FILE)
                        snprintf(name, sizeof(name), "%s + §9.5", cfg->source.value);
                else
                        snprintf(name, sizeof(name), "preset:%s + §9.5",
                                 cfg->source.value ? cfg->source.value : "default");
                sc.source.name = name;
        }
        rc = warder_session_new(&ev->s, &sc, &err);
        free(text);
        free(self);
        if (rc) {
                if (err.file[0])
                        fail(ev, "the ruleset does not load: %s:%u:%u: %s", err.file, err.line,
                             err.column, err.message);
                else
                        fail(ev, "the session cannot start: %s",
                             err.message[0] ? err.message : warder_strerror(rc));
                warder_error_clear(&err);
                return;
        }
        ev->rs = warder_session_ruleset(ev->s);
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                bool refuse = warder_ruleset_default(ev->rs, (enum warder_op)op) != WARDER_ALLOW;
                size_t n = warder_ruleset_rule_count(ev->rs, (enum warder_op)op);
                for (size_t i = 0; i < n && !refuse; i++) {
                        struct warder_rule_info ri = WARDER_RULE_INFO_INIT;
                        refuse = warder_ruleset_rule(&ri, ev->rs, (enum warder_op)op, i) != 0 ||
                                 ri.action != WARDER_ALLOW;
                }
                ev->can_refuse[op] = refuse;
        }
}

static void decide_tool(struct event *ev, const struct warder_hook_tool *t)
{
        switch (t->kind) {
        case WARDER_HOOK_READ:
        case WARDER_HOOK_WRITE:
        case WARDER_HOOK_EDIT:
                tool_paths(ev, t);
                break;
        case WARDER_HOOK_READ_MANY:
                tool_read_many(ev, t);
                break;
        case WARDER_HOOK_LS:
        case WARDER_HOOK_GLOB:
        case WARDER_HOOK_GREP:
                tool_listing(ev, t);
                break;
        case WARDER_HOOK_EXECUTE:
                tool_execute(ev, t);
                break;
        }
        if (!ev->best.have && !ev->error && !ev->nomem)
                fail(ev, "%s named nothing to decide", ev->tool);
}

static enum warder_hook_verdict verdict_of(enum warder_action a)
{
        return a == WARDER_ALLOW ? WARDER_HOOK_ALLOW
               : a == WARDER_ASK ? WARDER_HOOK_ASK
                                 : WARDER_HOOK_DENY;
}

int warder_hook_decide(const struct warder_hook_config *cfg, const char *event, size_t len,
                       struct warder_hook_answer *ans)
{
        memset(ans, 0, sizeof(*ans));
        struct event ev = {.cfg = cfg, .p = cfg->protocol};
        ev.budget = cfg->max_scan ? cfg->max_scan : WARDER_HOOK_MAX_SCAN;
        parse(&ev, event, len);
        const struct warder_hook_tool *tool = NULL;
        bool unknown = false;
        if (!ev.error && !ev.nomem) {
                tool = find_tool(ev.p, ev.tool);
                unknown = !tool;
        }
        if (!ev.error && !ev.nomem && !unknown) {
                open_session(&ev);
                if (!ev.error && !ev.nomem)
                        decide_tool(&ev, tool);
        }
        int rc;
        if (ev.nomem) {
                rc = answer(&ev, ans, WARDER_HOOK_DENY, strdup(warder_hook_nomem_reason));
        } else if (ev.error) {
                char *r = NULL;
                if (asprintf(&r, "warder: deny: %s", ev.error) < 0)
                        r = NULL;
                rc = answer(&ev, ans, WARDER_HOOK_DENY, r);
        } else if (unknown && !cfg->unknown_set) {
                rc = answer(&ev, ans, WARDER_HOOK_NO_OPINION, NULL);
        } else if (unknown) {
                struct text t = {0};
                text_printf(&t, "warder: %s ", warder_action_name(cfg->unknown));
                text_str(&t, ev.tool);
                text_printf(&t, ": warder does not know this tool (--unknown %s)",
                            warder_action_name(cfg->unknown));
                if (t.bad) {
                        free(t.s);
                        t.s = NULL;
                }
                rc = answer(&ev, ans, verdict_of(cfg->unknown), t.s);
        } else {
                char source[1024];
                warder_session_source_name(ev.s, source, sizeof(source));
                rc = answer(&ev, ans, verdict_of(ev.best.d.action), reason_of(&ev, source));
        }
        part_clear(&ev.best);
        warder_ruleset_free(ev.rs);
        warder_session_free(ev.s);
        json_decref(ev.json);
        warder_free(ev.cwd);
        warder_free(ev.root);
        free(ev.error);
        return rc;
}

const struct warder_hook_protocol *warder_hook_protocol_find(const char *name)
{
        if (strcmp(name, warder_hook_claude_code.name) == 0)
                return &warder_hook_claude_code;
        if (strcmp(name, warder_hook_gemini_cli.name) == 0)
                return &warder_hook_gemini_cli;
        return NULL;
}
