/* SPDX-License-Identifier: MIT */
/* Rulesets: loading, accessors, decisions (§1, §3.3), explanations and inline tests. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "sha256.h"
#include "warder/path.h"
#include "warder/tooling.h"

static const size_t DEFAULT_MAX_FILE = 1u << 20;
static const size_t DEFAULT_MAX_PATTERN_BYTES = (size_t)16 << 20;
static const size_t DEFAULT_MAX_COMPILED_BYTES = (size_t)32 << 20;

static void opset_free(struct warder__opset *o)
{
        for (size_t i = 0; i < o->n; i++)
                warder__rule_release(&o->rules[i]);
        free(o->rules);
        warder__index_free(&o->idx);
        warder__index_free(&o->fidx);
        warder__xindex_free(&o->xidx);
        for (int a = 0; a < 3; a++)
                free(o->by_action[a]);
        memset(o, 0, sizeof(*o));
}

static void ruleset_destroy(warder_ruleset *rs)
{
        if (!rs)
                return;
        for (size_t op = 0; op < WARDER_OP_COUNT; op++)
                opset_free(&rs->ops[op]);
        warder__arena_free(&rs->arena);
        for (size_t i = 0; i < rs->nfiles; i++)
                free(rs->files[i]);
        free(rs->files);
        for (size_t i = 0; i < rs->ncases; i++) {
                free(rs->cases[i].target);
                free(rs->cases[i].real);
        }
        free(rs->cases);
        free(rs->tests_root);
        free(rs->tests_home);
        free(rs->origin_path);
        free(rs->origin_text);
        free(rs->origin_name);
        free(rs->root);
        free(rs->home);
        free(rs->base_dir);
        free(atomic_load(&rs->digest));
        free(rs);
}

static int norm_dir(const char *what, const char *in, char **out, struct warder_error *err)
{
        if (!in) {
                *out = NULL;
                return 0;
        }
        if (in[0] != '/')
                return warder_error_set(err, WARDER_EINVAL, "the %s must be an absolute path: '%s'",
                                        what, in);
        struct warder__buf b = WARDER__BUF_INIT;
        int rc = warder__path_normalize_buf(&b, "/", NULL, NULL, in, strlen(in), err);
        if (rc) {
                warder__buf_free(&b);
                return rc;
        }
        *out = warder__buf_steal(&b);
        return *out ? 0 : warder_error_set(err, WARDER_ENOMEM, "out of memory");
}

/* Compiles the merged rules of every operation and builds the indexes; `budget` bytes of
 * compiled alternatives may be spent (see max_compiled_bytes). */
static int build(warder_ruleset *rs, struct raw *raw, size_t budget, struct warder_error *err)
{
        rs->def = raw->has_default ? raw->def : WARDER_ASK;
        rs->prec = raw->has_prec ? raw->prec : WARDER_FIRST_MATCH;
        rs->fold = raw->has_fold && raw->fold;
        for (size_t op = 0; op < WARDER_OP_COUNT; op++) {
                struct raw_op *ro = &raw->ops[op];
                struct warder__opset *o = &rs->ops[op];
                o->has_default = ro->has_default;
                o->def = ro->has_default ? ro->def : rs->def;
                if (!ro->n)
                        continue;
                o->rules = calloc(ro->n, sizeof(*o->rules));
                if (!o->rules)
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                for (size_t i = 0; i < ro->n; i++) {
                        struct raw_rule *r = &ro->rules[i];
                        struct warder__rule *d = &o->rules[i];
                        d->arena = &rs->arena;
                        d->action = r->action;
                        d->id = r->id;
                        d->pattern = r->pattern;
                        d->reason = r->reason;
                        r->id = r->pattern = r->reason = NULL;
                        d->file = r->file;
                        d->line = r->line;
                        d->column = r->column;
                        d->pline = r->pline;
                        d->pcolumn = r->pcolumn;
                        d->pcontent_column = r->pcontent_column;
                        d->foreign = r->foreign;
                        o->n++;
                        int rc = op == WARDER_OP_EXECUTE
                                     ? warder__rule_compile_command(d, rs->fold, &budget, err)
                                     : warder__rule_compile_path(d, rs->root, rs->home, rs->fold,
                                                                 false, &budget, err);
                        if (rc)
                                return rc;
                }
                /* everything was moved out of the raw rules */
                free(ro->rules);
                ro->rules = NULL;
                ro->n = ro->cap = 0;
                if (op == WARDER_OP_EXECUTE) {
                        for (int a = 0; a < 3; a++) {
                                o->by_action[a] = malloc(o->n * sizeof(uint32_t));
                                if (!o->by_action[a])
                                        return warder_error_set(err, WARDER_ENOMEM,
                                                                "out of memory");
                        }
                        for (size_t i = 0; i < o->n; i++) {
                                int a = (int)o->rules[i].action;
                                o->by_action[a][o->n_by_action[a]++] = (uint32_t)i;
                        }
                        if (warder__xindex_build(o) != 0)
                                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                } else if (warder__index_build(o, rs->root, rs->fold) != 0) {
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                }
        }
        if (raw->has_tests) {
                rs->has_tests = true;
                rs->tests_root = raw->troot;
                rs->tests_home = raw->thome;
                rs->cases = raw->cases;
                rs->ncases = raw->ncases;
                rs->tests_file = raw->file;
                raw->troot = raw->thome = NULL;
                raw->cases = NULL;
                raw->ncases = 0;
        }
        return 0;
}

enum origin {
        ORIGIN_FILE,
        ORIGIN_STRING,
        ORIGIN_PRESET,
};

/* The generated table of preset `name`, when the limits in force cannot refuse it: then it
 * loads exactly as its text would (test-presets), without the YAML parser. */
static const struct warder__preset_table *preset_table(const char *name, const struct loader *L)
{
        for (size_t i = 0; warder__preset_tables[i]; i++) {
                const struct warder__preset_table *t = warder__preset_tables[i];
                if (strcmp(t->name, name) != 0)
                        continue;
                bool fits = t->text_len <= L->max_file_size && t->nrules <= L->max_rules &&
                            L->max_depth >= 64 && L->max_nodes >= 1000000;
                return fits ? t : NULL;
        }
        return NULL;
}

static char *dup_or_null(const char *s, int *rc)
{
        char *d = s ? strdup(s) : NULL;
        if (s && !d)
                *rc = WARDER_ENOMEM;
        return d;
}

/* Fills `raw` from a preset's table, as warder__load_source() would from its text. */
static int preset_raw(struct loader *L, const struct warder__preset_table *t, const char *display,
                      struct raw *raw)
{
        int rc = 0;
        if (!(raw->file = warder__intern(L, display)))
                return warder_error_set(L->err, WARDER_ENOMEM, "out of memory");
        raw->has_default = t->has_default;
        raw->def = (enum warder_action)t->def;
        raw->has_prec = t->has_prec;
        raw->prec = (enum warder_precedence)t->prec;
        raw->has_fold = t->has_fold;
        raw->fold = t->fold;
        const struct warder__preset_rule *pr = t->rules;
        for (size_t op = 0; op < WARDER_OP_COUNT && !rc; op++) {
                struct raw_op *o = &raw->ops[op];
                o->present = t->ops[op].present;
                o->has_default = t->ops[op].has_default;
                o->def = (enum warder_action)t->ops[op].def;
                if (!t->ops[op].n)
                        continue;
                if (!(o->rules = calloc(t->ops[op].n, sizeof(*o->rules))))
                        rc = WARDER_ENOMEM;
                o->cap = t->ops[op].n;
                for (; !rc && o->n < t->ops[op].n; o->n++, pr++) {
                        struct raw_rule *r = &o->rules[o->n];
                        r->action = (enum warder_action)pr->action;
                        r->file = raw->file;
                        r->line = pr->line;
                        r->column = pr->column;
                        r->pline = pr->pline;
                        r->pcolumn = pr->pcolumn;
                        r->pcontent_column = pr->pcontent_column;
                        /* The pattern budget counts a preset's rules as their text would. */
                        size_t plen = strlen(pr->pattern);
                        if (plen > L->max_pattern_bytes - L->pattern_bytes)
                                return warder__error_set_at(
                                    L->err, WARDER_ETOOBIG, raw->file, pr->line, pr->column,
                                    "the patterns of the ruleset total more than %zu bytes (an "
                                    "alias counts every time it is used; the host can raise "
                                    "max_pattern_bytes)",
                                    L->max_pattern_bytes);
                        L->pattern_bytes += plen;
                        /* the table's strings live as long as the library: not copied */
                        r->pattern = (char *)pr->pattern;
                        r->reason = (char *)pr->reason;
                        r->id = (char *)pr->id;
                        L->total_rules++;
                }
        }
        if (!rc && t->has_tests) {
                raw->has_tests = true;
                raw->troot = dup_or_null(t->troot, &rc);
                raw->thome = dup_or_null(t->thome, &rc);
                if (!rc && !(raw->cases = calloc(t->ncases ? t->ncases : 1, sizeof(*raw->cases))))
                        rc = WARDER_ENOMEM;
                for (; !rc && raw->ncases < t->ncases; raw->ncases++) {
                        const struct warder__preset_case *c = &t->cases[raw->ncases];
                        struct warder__test_case *tc = &raw->cases[raw->ncases];
                        tc->op = (enum warder_op)c->op;
                        tc->expect = (enum warder_action)c->expect;
                        tc->line = c->line;
                        tc->column = c->column;
                        tc->target = dup_or_null(c->target, &rc);
                        tc->real = dup_or_null(c->real, &rc);
                }
        }
        return rc ? warder_error_set(L->err, rc, "out of memory") : 0;
}

static int load(warder_ruleset **out, enum origin origin, const char *text, size_t len,
                const char *display, const char *identity, const char *dir, const char *keep,
                const struct warder_ruleset_options *opts, struct warder_error *err)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        if (opts) {
                if (opts->version == 0 || opts->version > WARDER_RULESET_OPTIONS_VERSION)
                        return warder_error_set(err, WARDER_EINVAL,
                                                "unsupported ruleset options version %u",
                                                opts->version);
                /* A version 1 caller's struct ends before the compile budgets. */
                memcpy(&o, opts,
                       opts->version >= 2
                           ? sizeof(o)
                           : offsetof(struct warder_ruleset_options, max_pattern_bytes));
                o.version = WARDER_RULESET_OPTIONS_VERSION;
        }
        warder_ruleset *rs = calloc(1, sizeof(*rs));
        if (!rs)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        atomic_init(&rs->refs, 1);
        int rc = 0;
        char cwd[PATH_MAX];
        const char *root = o.root;
        if (!root) {
                if (!getcwd(cwd, sizeof(cwd))) {
                        ruleset_destroy(rs);
                        return warder_error_set(err, WARDER_EIO,
                                                "cannot determine the current "
                                                "directory for the root");
                }
                root = cwd;
        }
        if ((rc = norm_dir("root", root, &rs->root, err)) ||
            (rc = norm_dir("home", o.home, &rs->home, err))) {
                ruleset_destroy(rs);
                return rc;
        }
        if (o.base_dir) {
                if (!(rs->base_dir = strdup(o.base_dir))) {
                        ruleset_destroy(rs);
                        return warder_error_set(err, WARDER_ENOMEM, "out of memory");
                }
        }
        rs->opts = o;
        rs->opts.root = rs->opts.home = rs->opts.base_dir = NULL;
        struct loader L;
        memset(&L, 0, sizeof(L));
        L.rs = rs;
        L.arena = &rs->arena;
        L.err = err;
        L.max_file_size = o.max_file_size ? o.max_file_size : DEFAULT_MAX_FILE;
        L.max_depth = o.max_depth ? o.max_depth : 64;
        L.max_nodes = o.max_nodes ? o.max_nodes : 1000000;
        L.max_rules = o.max_rules ? o.max_rules : 100000;
        L.max_pattern_bytes = o.max_pattern_bytes ? o.max_pattern_bytes : DEFAULT_MAX_PATTERN_BYTES;
        L.chain[L.depth++] = identity;
        struct raw raw;
        memset(&raw, 0, sizeof(raw));
        const struct warder__preset_table *table =
            origin == ORIGIN_PRESET ? preset_table(keep, &L) : NULL;
        if (table)
                rc = preset_raw(&L, table, display, &raw);
        else
                rc = warder__load_source(&L, text, len, display, identity, dir, 0, &raw);
        if (!rc)
                rc = build(rs, &raw,
                           o.max_compiled_bytes ? o.max_compiled_bytes : DEFAULT_MAX_COMPILED_BYTES,
                           err);
        if (!rc && rs->has_tests && (rs->tests_root || rs->tests_home)) {
                switch (origin) {
                case ORIGIN_FILE:
                        rs->origin_path = strdup(keep);
                        rc = rs->origin_path ? 0 : WARDER_ENOMEM;
                        break;
                case ORIGIN_STRING:
                        rs->origin_text = malloc(len + 1);
                        rs->origin_name = display ? strdup(display) : NULL;
                        rc = rs->origin_text && rs->origin_name ? 0 : WARDER_ENOMEM;
                        if (!rc) {
                                memcpy(rs->origin_text, text, len);
                                rs->origin_text[len] = '\0';
                                rs->origin_len = len;
                        }
                        break;
                case ORIGIN_PRESET:
                        rs->origin_preset = true;
                        rs->origin_name = strdup(keep);
                        rc = rs->origin_name ? 0 : WARDER_ENOMEM;
                        break;
                }
                if (rc)
                        warder_error_set(err, rc, "out of memory");
        }
        warder__raw_free(&raw);
        if (rc) {
                ruleset_destroy(rs);
                return rc;
        }
        *out = rs;
        return 0;
}

WARDER_API int warder_ruleset_load_string(warder_ruleset **out, const char *yaml, size_t len,
                                          const char *name,
                                          const struct warder_ruleset_options *opts,
                                          struct warder_error *err)
{
        if (!out || (!yaml && len))
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        char cwd[PATH_MAX];
        const char *dir = opts && opts->base_dir ? opts->base_dir : NULL;
        if (!dir) {
                if (!getcwd(cwd, sizeof(cwd)))
                        strcpy(cwd, ".");
                dir = cwd;
        }
        const char *display = name ? name : "<string>";
        char ident[64];
        snprintf(ident, sizeof(ident), "string:%p", (const void *)yaml);
        return load(out, ORIGIN_STRING, yaml ? yaml : "", len, display, ident, dir, NULL, opts,
                    err);
}

WARDER_API int warder_ruleset_load_file(warder_ruleset **out, const char *path,
                                        const struct warder_ruleset_options *opts,
                                        struct warder_error *err)
{
        if (!out || !path)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        size_t max = opts && opts->max_file_size ? opts->max_file_size : DEFAULT_MAX_FILE;
        char *text = NULL;
        size_t len = 0;
        int rc = warder__read_file(path, max, &text, &len, path, err);
        if (rc)
                return rc;
        char *ident = realpath(path, NULL);
        const char *slash = strrchr(path, '/');
        char *dir = !slash          ? strdup(".")
                    : slash == path ? strdup("/")
                                    : strndup(path, (size_t)(slash - path));
        if (!dir) {
                free(text);
                free(ident);
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        rc = load(out, ORIGIN_FILE, text, len, path, ident ? ident : path, dir, path, opts, err);
        free(dir);
        free(ident);
        free(text);
        return rc;
}

WARDER_API int warder_ruleset_load_preset(warder_ruleset **out, const char *preset,
                                          const struct warder_ruleset_options *opts,
                                          struct warder_error *err)
{
        if (!out || !preset)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        size_t len;
        const char *text = warder_preset_source(preset, &len);
        if (!text) {
                const char *names[16];
                size_t n = 0;
                for (size_t i = 0; i < warder__npresets && n < 16; i++)
                        names[n++] = warder__presets[i].name;
                const char *hint = warder__suggest(preset, names, n);
                return warder_error_set(err, WARDER_ENOENT,
                                        "unknown preset '%s'%s%s%s (presets: default, permissive, "
                                        "readonly, strict)",
                                        preset, hint ? " (did you mean '" : "", hint ? hint : "",
                                        hint ? "'?)" : "");
        }
        char display[96];
        snprintf(display, sizeof(display), "preset:%s", preset);
        char cwd[PATH_MAX];
        const char *dir = opts && opts->base_dir ? opts->base_dir : NULL;
        if (!dir) {
                if (!getcwd(cwd, sizeof(cwd)))
                        strcpy(cwd, ".");
                dir = cwd;
        }
        return load(out, ORIGIN_PRESET, text, len, display, display, dir, preset, opts, err);
}

WARDER_API warder_ruleset *warder_ruleset_ref(warder_ruleset *rs)
{
        if (rs)
                atomic_fetch_add_explicit(&rs->refs, 1, memory_order_relaxed);
        return rs;
}

WARDER_API void warder_ruleset_free(warder_ruleset *rs)
{
        if (!rs)
                return;
        if (atomic_fetch_sub_explicit(&rs->refs, 1, memory_order_acq_rel) == 1)
                ruleset_destroy(rs);
}

/* ---- digest ----------------------------------------------------------------------------- */

/* Feeds a length-prefixed field (NULL and "" differ), so that no two rulesets share a stream. */
static void digest_field(struct warder__sha256 *c, const char *s, size_t len)
{
        unsigned char tag[9];
        uint64_t n = s ? (uint64_t)len + 1 : 0;
        for (int i = 0; i < 8; i++)
                tag[i] = (unsigned char)(n >> (8 * i));
        tag[8] = 0xff;
        warder__sha256_update(c, tag, sizeof(tag));
        if (s)
                warder__sha256_update(c, s, len);
}

static void digest_str(struct warder__sha256 *c, const char *s)
{
        digest_field(c, s, s ? strlen(s) : 0);
}

static void digest_num(struct warder__sha256 *c, uint64_t v)
{
        char buf[24];
        int n = snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
        digest_field(c, buf, (size_t)n);
}

WARDER_API const char *warder_ruleset_digest(const warder_ruleset *rs)
{
        if (!rs)
                return NULL;
        warder_ruleset *m = (warder_ruleset *)rs; /* the cache is not part of the value */
        char *have = atomic_load_explicit(&m->digest, memory_order_acquire);
        if (have)
                return have;
        struct warder__sha256 c;
        warder__sha256_init(&c);
        digest_str(&c, "warder-ruleset-digest-1");
        digest_str(&c, rs->root);
        digest_str(&c, rs->home);
        digest_num(&c, rs->def);
        digest_num(&c, rs->prec);
        digest_num(&c, rs->fold);
        for (size_t op = 0; op < WARDER_OP_COUNT; op++) {
                const struct warder__opset *o = &rs->ops[op];
                digest_num(&c, op);
                digest_num(&c, o->has_default);
                digest_num(&c, o->def);
                digest_num(&c, o->n);
                for (size_t i = 0; i < o->n; i++) {
                        const struct warder__rule *r = &o->rules[i];
                        digest_num(&c, r->action);
                        digest_str(&c, r->id);
                        digest_str(&c, r->pattern);
                        digest_str(&c, r->reason);
                        digest_str(&c, r->file);
                        digest_num(&c, r->line);
                        digest_num(&c, r->column);
                }
        }
        unsigned char sum[32];
        warder__sha256_final(&c, sum);
        char *text = malloc(7 + 64 + 1);
        if (!text)
                return NULL;
        memcpy(text, "sha256:", 7);
        for (int i = 0; i < 32; i++)
                snprintf(text + 7 + 2 * i, 3, "%02x", sum[i]);
        char *expected = NULL;
        if (!atomic_compare_exchange_strong_explicit(&m->digest, &expected, text,
                                                     memory_order_acq_rel, memory_order_acquire)) {
                free(text); /* another thread made the same string first */
                return expected;
        }
        return text;
}

/* ---- presets --------------------------------------------------------------------------- */

WARDER_API const char *const *warder_preset_names(void)
{
        return warder__preset_name_list;
}

WARDER_API const char *warder_preset_source(const char *preset, size_t *len)
{
        for (size_t i = 0; preset && i < warder__npresets; i++) {
                if (strcmp(warder__presets[i].name, preset) == 0) {
                        if (len)
                                *len = warder__presets[i].len;
                        return warder__presets[i].text;
                }
        }
        return NULL;
}

/* ---- accessors --------------------------------------------------------------------------- */

WARDER_API const char *warder_ruleset_root(const warder_ruleset *rs)
{
        return rs ? rs->root : NULL;
}

WARDER_API const char *warder_ruleset_home(const warder_ruleset *rs)
{
        return rs ? rs->home : NULL;
}

WARDER_API enum warder_precedence warder_ruleset_precedence(const warder_ruleset *rs)
{
        return rs ? rs->prec : WARDER_FIRST_MATCH;
}

WARDER_API bool warder_ruleset_fold_case(const warder_ruleset *rs)
{
        return rs && rs->fold;
}

WARDER_API enum warder_action warder_ruleset_default(const warder_ruleset *rs, enum warder_op op)
{
        if (!rs || (unsigned)op >= WARDER_OP_COUNT)
                return WARDER_DENY;
        return rs->ops[op].def;
}

WARDER_API size_t warder_ruleset_rule_count(const warder_ruleset *rs, enum warder_op op)
{
        if (!rs || (unsigned)op >= WARDER_OP_COUNT)
                return 0;
        return rs->ops[op].n;
}

static void rule_info(const warder_ruleset *rs, enum warder_op op, size_t i,
                      struct warder_rule_info *out)
{
        const struct warder__rule *r = &rs->ops[op].rules[i];
        out->version = WARDER_RULE_INFO_VERSION;
        out->op = op;
        out->action = r->action;
        out->index = i;
        out->id = r->id;
        out->pattern = r->pattern;
        out->reason = r->reason;
        out->file = r->file;
        out->line = r->line;
        out->column = r->column;
}

WARDER_API int warder_ruleset_rule(struct warder_rule_info *out, const warder_ruleset *rs,
                                   enum warder_op op, size_t index)
{
        if (!rs || !out || out->version != WARDER_RULE_INFO_VERSION ||
            (unsigned)op >= WARDER_OP_COUNT || index >= rs->ops[op].n)
                return WARDER_EINVAL;
        rule_info(rs, op, index, out);
        return 0;
}

WARDER_API bool warder_ruleset_operation_has_default(const warder_ruleset *rs, enum warder_op op)
{
        return rs && (unsigned)op < WARDER_OP_COUNT && rs->ops[op].has_default;
}

WARDER_API int warder_ruleset_rule_alternatives(char ***out, size_t *count,
                                                const warder_ruleset *rs, enum warder_op op,
                                                size_t index, struct warder_error *err)
{
        if (!rs || !out || !count || (unsigned)op >= WARDER_OP_COUNT || index >= rs->ops[op].n)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        const struct warder__rule *r = &rs->ops[op].rules[index];
        if (op != WARDER_OP_EXECUTE)
                return warder__rule_alternatives(r, rs->root, rs->home, out, count, err);
        char **v = calloc(1, sizeof(*v));
        if (!v || !(v[0] = strdup(r->pattern))) {
                free(v);
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        }
        *out = v;
        *count = 1;
        return 0;
}

WARDER_API void warder_ruleset_strv_free(char **v, size_t count)
{
        for (size_t i = 0; v && i < count; i++)
                free(v[i]);
        free(v);
}

WARDER_API int warder_ruleset_rule_match(bool *matched, const warder_ruleset *rs, enum warder_op op,
                                         size_t index, const char *target, size_t target_len,
                                         struct warder_error *err)
{
        if (!rs || !target || !matched || (unsigned)op >= WARDER_OP_COUNT || index >= rs->ops[op].n)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        const struct warder__rule *r = &rs->ops[op].rules[index];
        if (op == WARDER_OP_EXECUTE) {
                if (memchr(target, '\0', target_len))
                        return warder_error_set(err, WARDER_EINVAL, "the text holds a NUL byte");
                struct warder__target t = {target, target_len, NULL, 0, target, target_len};
                *matched = warder__rule_match(r, &t, NULL);
                return 0;
        }
        struct warder__buf b = WARDER__BUF_INIT;
        int rc = warder__path_normalize_buf(&b, rs->root, rs->home, NULL, target, target_len, err);
        struct warder__target t, ft;
        if (!rc && (rc = warder__target_split(b.data, b.len, &t, &ft)) != 0)
                warder_error_set(err, rc, "out of memory");
        if (!rc)
                *matched = warder__rule_match(r, &t, &ft);
        warder__buf_free(&b);
        return rc;
}

/* ---- decisions --------------------------------------------------------------------------- */

static void fill_rule(struct warder_decision *d, const warder_ruleset *rs, enum warder_op op,
                      size_t i)
{
        const struct warder__rule *r = &rs->ops[op].rules[i];
        d->action = r->action;
        d->by_default = false;
        d->rule_id = r->id;
        d->rule_index = i;
        d->pattern = r->pattern;
        d->reason = r->reason;
        d->file = r->file;
        d->line = r->line;
        d->column = r->column;
}

bool warder__ruleset_match_execute(const warder_ruleset *rs, const char *text, size_t len,
                                   bool whole_line, struct warder_decision *d)
{
        if (!rs)
                return false;
        long i = warder__xindex_match(&rs->ops[WARDER_OP_EXECUTE], text, len, whole_line);
        if (i < 0)
                return false;
        fill_rule(d, rs, WARDER_OP_EXECUTE, (size_t)i);
        d->op = WARDER_OP_EXECUTE;
        return true;
}

bool warder__ruleset_match_execute_linear(const warder_ruleset *rs, const char *text, size_t len,
                                          bool whole_line, struct warder_decision *d)
{
        if (!rs)
                return false;
        const struct warder__opset *o = &rs->ops[WARDER_OP_EXECUTE];
        static const enum warder_action order[] = {WARDER_DENY, WARDER_ASK, WARDER_ALLOW};
        struct warder__target t = {text, len, NULL, 0, text, len};
        for (size_t a = 0; a < 3; a++) {
                if (whole_line && order[a] == WARDER_ALLOW)
                        break;
                const uint32_t *list = o->by_action[order[a]];
                for (size_t i = 0; i < o->n_by_action[order[a]]; i++) {
                        if (warder__rule_match(&o->rules[list[i]], &t, NULL)) {
                                fill_rule(d, rs, WARDER_OP_EXECUTE, list[i]);
                                d->op = WARDER_OP_EXECUTE;
                                return true;
                        }
                }
        }
        return false;
}

bool warder__ruleset_subtree(const warder_ruleset *rs, enum warder_op op, const char *dir,
                             size_t len, struct warder_decision *d)
{
        if (!rs || (unsigned)op >= WARDER_OP_COUNT || op == WARDER_OP_EXECUTE || !len ||
            dir[0] != '/')
                return false;
        const struct warder__opset *o = &rs->ops[op];
        /* the directory with a trailing slash, and folded for fold rules */
        char small[512], fsmall[512];
        char *slashed = len + 2 <= sizeof(small) ? small : malloc(len + 2);
        char *folded = len + 2 <= sizeof(fsmall) ? fsmall : malloc(len + 2);
        long best = -1;
        if (!slashed || !folded) {
                /* no memory to look: every deny rule might match beneath (§2.10's spirit) */
                for (size_t i = 0; i < o->n && best < 0; i++)
                        if (o->rules[i].action == WARDER_DENY)
                                best = (long)i;
        } else {
                memcpy(slashed, dir, len);
                size_t sl = len;
                if (len > 1)
                        slashed[sl++] = '/';
                slashed[sl] = '\0';
                for (size_t i = 0; i <= sl; i++)
                        folded[i] = (char)(slashed[i] >= 'A' && slashed[i] <= 'Z' ? slashed[i] + 32
                                                                                  : slashed[i]);
                /* deny rules first: the first that can match decides */
                for (int pass = WARDER_DENY; pass >= WARDER_ASK && best < 0; pass--)
                        for (size_t i = 0; i < o->n && best < 0; i++)
                                if (o->rules[i].action == (enum warder_action)pass &&
                                    warder__rule_beneath(&o->rules[i], slashed, sl, folded))
                                        best = (long)i;
        }
        if (slashed != small)
                free(slashed);
        if (folded != fsmall)
                free(folded);
        if (best < 0)
                return false;
        fill_rule(d, rs, op, (size_t)best);
        d->op = op;
        d->form = WARDER_FORM_LITERAL;
        return true;
}

/* Decides one normalised form; -1 means the default. */
static int decide(const warder_ruleset *rs, enum warder_op op, const char *s, size_t n, long *idx,
                  struct warder_error *err)
{
        long r = warder__index_decide(rs, op, s, n);
        if (r < -1)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        *idx = r;
        return 0;
}

struct forms {
        struct warder__buf lit, real;
};

static _Thread_local struct forms tls_forms;
static pthread_key_t forms_key;
static pthread_once_t forms_once = PTHREAD_ONCE_INIT;

static void forms_release(void *p)
{
        struct forms *f = p;
        warder__buf_free(&f->lit);
        warder__buf_free(&f->real);
}

static void forms_key_make(void)
{
        (void)pthread_key_create(&forms_key, forms_release);
}

static struct forms *forms_get(void)
{
        if (!tls_forms.lit.data) {
                pthread_once(&forms_once, forms_key_make);
                pthread_setspecific(forms_key, &tls_forms);
        }
        return &tls_forms;
}

static int check_path(const warder_ruleset *rs, enum warder_op op, const char *literal,
                      size_t literal_len, const char *real, size_t real_len,
                      struct warder_decision *out, struct forms *f, struct warder_error *err)
{
        int rc = warder__path_normalize_buf(&f->lit, rs->root, rs->home, NULL, literal, literal_len,
                                            err);
        if (!rc && real)
                rc = warder__path_normalize_buf(&f->real, rs->root, rs->home, NULL, real, real_len,
                                                err);
        if (rc)
                return rc;
        long li = -1, ri = -1;
        unsigned failures = warder__match_failures;
        if ((rc = decide(rs, op, f->lit.data, f->lit.len, &li, err)))
                return rc;
        bool same = !real || (f->lit.len == f->real.len &&
                              memcmp(f->lit.data, f->real.data, f->lit.len) == 0);
        if (same)
                ri = li;
        else if ((rc = decide(rs, op, f->real.data, f->real.len, &ri, err)))
                return rc;
        const struct warder__opset *o = &rs->ops[op];
        enum warder_action la = li >= 0 ? o->rules[li].action : o->def;
        enum warder_action ra = ri >= 0 ? o->rules[ri].action : o->def;
        struct warder_decision d = WARDER_DECISION_INIT;
        d.op = op;
        long chosen;
        enum warder_form form;
        if (la > ra || (la == ra && li >= 0)) {
                chosen = li;
                form = (same || li == ri) ? WARDER_FORM_BOTH : WARDER_FORM_LITERAL;
        } else {
                chosen = ri;
                form = WARDER_FORM_REAL;
        }
        if (chosen >= 0) {
                fill_rule(&d, rs, op, (size_t)chosen);
                d.form = form;
        } else {
                d.by_default = true;
                d.action = o->def;
                d.form = WARDER_FORM_NONE;
        }
        if (d.action == WARDER_ASK && warder__match_failures != failures) {
                /* §2.10: a failed `ask` rule was taken to match, but under first match a later
                 * rule it hid may deny; asking would let an approval through that deny */
                d.action = WARDER_DENY;
                d.note = "a rule could not be matched, so the stricter answer is given (§2.10)";
        }
        *out = d;
        return 0;
}

int warder__ruleset_check_path(struct warder_decision *out, const warder_ruleset *rs,
                               enum warder_op op, const char *literal, size_t literal_len,
                               const char *real, size_t real_len, struct warder_error *err)
{
        if (!rs || !literal || !out || out->version != WARDER_DECISION_VERSION ||
            (unsigned)op >= WARDER_OP_COUNT || op == WARDER_OP_EXECUTE)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        return check_path(rs, op, literal, literal_len, real, real_len, out, forms_get(), err);
}

/* ---- explanations ------------------------------------------------------------------------ */

WARDER_API void warder_explanation_free(struct warder_explanation *ex)
{
        if (!ex)
                return;
        free(ex->literal);
        free(ex->real);
        free(ex->matches);
        warder_decision_clear(&ex->decision);
        free(ex);
}

static int add_match(struct warder_explanation *ex, const warder_ruleset *rs, enum warder_op op,
                     size_t i, enum warder_form form)
{
        struct warder_explain_match *m =
            realloc(ex->matches, (ex->count + 1) * sizeof(*ex->matches));
        if (!m)
                return WARDER_ENOMEM;
        ex->matches = m;
        m[ex->count].form = form;
        rule_info(rs, op, i, &m[ex->count].rule);
        ex->count++;
        return 0;
}

int warder__ruleset_explain(struct warder_explanation **out, const warder_ruleset *rs,
                            enum warder_op op, const char *literal, size_t literal_len,
                            const char *real, size_t real_len, warder__check_fn check,
                            struct warder_error *err)
{
        if (!rs || !literal || !out || (unsigned)op >= WARDER_OP_COUNT)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        struct warder_explanation *ex = calloc(1, sizeof(*ex));
        if (!ex)
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        ex->version = WARDER_EXPLANATION_VERSION;
        ex->op = op;
        ex->decision = (struct warder_decision)WARDER_DECISION_INIT;
        struct warder_decision d = WARDER_DECISION_INIT;
        int rc = check(&d, rs, op, literal, literal_len, real, real_len, err);
        if (!rc)
                rc = warder_decision_copy(&ex->decision, &d);
        warder_decision_clear(&d);
        const struct warder__opset *o = &rs->ops[op];
        if (!rc && op == WARDER_OP_EXECUTE) {
                ex->literal = strndup(literal, literal_len);
                rc = ex->literal ? 0 : WARDER_ENOMEM;
                struct warder__target t = {literal, literal_len, NULL, 0, literal, literal_len};
                for (size_t i = 0; i < o->n && !rc; i++)
                        if (warder__rule_match(&o->rules[i], &t, NULL))
                                rc = add_match(ex, rs, op, i, WARDER_FORM_LITERAL);
        } else if (!rc) {
                size_t ll = 0, rl = 0;
                rc = warder_path_normalize(&ex->literal, &ll, rs->root, rs->home, NULL, literal,
                                           literal_len, err);
                if (!rc && real)
                        rc = warder_path_normalize(&ex->real, &rl, rs->root, rs->home, NULL, real,
                                                   real_len, err);
                for (size_t i = 0; i < o->n && !rc; i++) {
                        struct warder__target t, ft;
                        bool lm = false, rm = false;
                        const struct warder__rule *r = &o->rules[i];
                        rc = warder__target_split(ex->literal, ll, &t, &ft);
                        if (!rc)
                                lm = warder__rule_match(r, &t, &ft);
                        if (!rc && ex->real) {
                                rc = warder__target_split(ex->real, rl, &t, &ft);
                                if (!rc)
                                        rm = warder__rule_match(r, &t, &ft);
                        } else {
                                rm = lm;
                        }
                        if (!rc && (lm || rm))
                                rc = add_match(ex, rs, op, i,
                                               lm && rm ? WARDER_FORM_BOTH
                                               : lm     ? WARDER_FORM_LITERAL
                                                        : WARDER_FORM_REAL);
                }
        }
        if (rc) {
                if (rc == WARDER_ENOMEM)
                        warder_error_set(err, rc, "out of memory");
                warder_explanation_free(ex);
                return rc;
        }
        *out = ex;
        return 0;
}

/* ---- inline tests ------------------------------------------------------------------------ */

WARDER_API size_t warder_ruleset_test_count(const warder_ruleset *rs)
{
        return rs ? rs->ncases : 0;
}

static bool differs(const char *want, const char *have)
{
        return want && (!have || strcmp(want, have) != 0);
}

int warder__ruleset_run_tests(size_t *passed, size_t *failed, const warder_ruleset *rs,
                              warder_test_fn fn, void *ud, warder__check_fn check,
                              struct warder_error *err)
{
        if (!rs)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        const warder_ruleset *use = rs;
        warder_ruleset *reloaded = NULL;
        int rc = 0;
        if (differs(rs->tests_root, rs->root) || differs(rs->tests_home, rs->home)) {
                struct warder_ruleset_options o = rs->opts;
                o.version = WARDER_RULESET_OPTIONS_VERSION;
                o.root = rs->tests_root ? rs->tests_root : rs->root;
                o.home = rs->tests_home ? rs->tests_home : rs->home;
                o.base_dir = rs->base_dir;
                if (rs->origin_path)
                        rc = warder_ruleset_load_file(&reloaded, rs->origin_path, &o, err);
                else if (rs->origin_text)
                        rc = warder_ruleset_load_string(&reloaded, rs->origin_text, rs->origin_len,
                                                        rs->origin_name, &o, err);
                else if (rs->origin_preset)
                        rc = warder_ruleset_load_preset(&reloaded, rs->origin_name, &o, err);
                else
                        rc = warder_error_set(err, WARDER_EINVAL,
                                              "the ruleset cannot be reloaded for its tests");
                if (rc)
                        return rc;
                use = reloaded;
        }
        size_t ok = 0, bad = 0;
        for (size_t i = 0; i < use->ncases; i++) {
                const struct warder__test_case *c = &use->cases[i];
                struct warder_decision d = WARDER_DECISION_INIT;
                struct warder_error e = WARDER_ERROR_INIT;
                int st = check(&d, use, c->op, c->target, strlen(c->target), c->real,
                               (c->real ? strlen(c->real) : 0), &e);
                struct warder_test_result r = {WARDER_TEST_RESULT_VERSION,
                                               i,
                                               c->op,
                                               c->target,
                                               c->real,
                                               c->expect,
                                               st ? NULL : &d,
                                               st,
                                               false,
                                               use->tests_file,
                                               c->line,
                                               c->column,
                                               st ? e.message : NULL};
                r.passed = st == 0 && d.action == c->expect;
                if (r.passed)
                        ok++;
                else
                        bad++;
                if (fn)
                        fn(ud, &r);
                warder_decision_clear(&d);
                warder_error_clear(&e);
        }
        warder_ruleset_free(reloaded);
        if (passed)
                *passed = ok;
        if (failed)
                *failed = bad;
        return 0;
}

/* ---- index statistics ------------------------------------------------------------------- */

WARDER_API int warder_ruleset_index_stats(struct warder_ruleset_index_stats *out,
                                          const warder_ruleset *rs, enum warder_op op,
                                          struct warder_error *err)
{
        if (!rs || !out || out->version != WARDER_RULESET_INDEX_STATS_VERSION ||
            (unsigned)op >= WARDER_OP_COUNT)
                return warder_error_set(err, WARDER_EINVAL, "invalid argument");
        const struct warder__opset *o = &rs->ops[op];
        struct warder_ruleset_index_stats st = {WARDER_RULESET_INDEX_STATS_VERSION, o->n, 0,
                                                SIZE_MAX, 0};
        if (op == WARDER_OP_EXECUTE) {
                st.always = o->xidx.nresidual;
                for (size_t i = 0; i < o->xidx.nresidual; i++)
                        if (o->xidx.residual[i].rule < st.first_always)
                                st.first_always = o->xidx.residual[i].rule;
        } else {
                warder__index_stats(&o->idx, &st.always, &st.largest_key);
                if (o->idx.residual.n)
                        st.first_always = o->idx.residual.p[0].rule;
        }
        *out = st;
        return 0;
}
