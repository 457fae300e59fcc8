/* SPDX-License-Identifier: MIT */
/*
 * Claude Code's permission rules as a warder ruleset (warder import claude-code, see hook.h).
 *
 * Claude Code decides deny, then ask, then allow: the strictest matching rule wins, which is
 * warder's `precedence: strictest` (§1.5). Path rules use gitignore patterns anchored as its
 * permissions page says: `//p` absolute, `~/p` home, `/p` at the settings' anchor, anything
 * else relative to the working directory (warder's root). A rule warder cannot express the
 * same way is reported, and left out or made stricter, never more permissive.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/hook.h"

/* The warder operations a Claude Code tool's rules become. */
struct tool_map {
        const char *tool;
        enum warder_op ops[2];
        size_t nops;
        bool paths;       /* Tool(path) rules are consulted by Claude Code */
        bool allow_exact; /* an allow means the same in warder (otherwise: not translated) */
        const char *why;  /* why an allow is not exact */
};

static const struct tool_map tools[] = {
    {"Read", {WARDER_OP_READ}, 1, true, true, NULL},
    /* Edit rules cover every file-editing tool, and Claude Code checks shell redirections with
     * them: warder's edit and write rules */
    {"Edit", {WARDER_OP_EDIT, WARDER_OP_WRITE}, 2, true, true, NULL},
    {"Write",
     {WARDER_OP_WRITE},
     1,
     false,
     false,
     "warder's write rules also decide shell redirections, which Claude Code decides with Edit "
     "rules"},
    {"MultiEdit", {WARDER_OP_EDIT}, 1, false, false, "warder's edit rules also cover Edit"},
    {"NotebookEdit", {WARDER_OP_EDIT}, 1, false, false, "warder's edit rules also cover Edit"},
    {"NotebookRead", {WARDER_OP_READ}, 1, false, false, "warder's read rules also cover Read"},
    {"Glob", {WARDER_OP_GLOB}, 1, false, true, NULL},
    {"Grep", {WARDER_OP_GREP}, 1, false, true, NULL},
    {"LS", {WARDER_OP_LS}, 1, false, true, NULL},
    {"Bash", {WARDER_OP_EXECUTE}, 1, false, true, NULL},
};

struct out_rule {
        enum warder_op op;
        const char *action;
        char *pattern;
        char *source;
};

struct import {
        struct out_rule *v;
        size_t n, cap;
        const char *anchor;
        warder_hook_note_fn note;
        void *ud;
        bool nomem;
};

static void note(struct import *im, const char *list, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(struct import *im, const char *list, const char *entry, const char *fmt, ...)
{
        char why[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        if (im->note)
                im->note(im->ud, list, entry, why);
}

static void add(struct import *im, enum warder_op op, const char *action, const char *pattern,
                const char *list, const char *entry)
{
        if (im->n == im->cap) {
                size_t cap = im->cap ? 2 * im->cap : 16;
                struct out_rule *v = realloc(im->v, cap * sizeof(*v));
                if (!v) {
                        im->nomem = true;
                        return;
                }
                im->v = v;
                im->cap = cap;
        }
        struct out_rule *r = &im->v[im->n];
        r->op = op;
        r->action = action;
        r->pattern = strdup(pattern);
        if (asprintf(&r->source, "Claude Code permissions.%s: %s", list, entry) < 0)
                r->source = NULL;
        if (!r->pattern || !r->source) {
                free(r->pattern);
                free(r->source);
                im->nomem = true;
                return;
        }
        im->n++;
}

/* Escapes the bytes of `s` that are glob syntax (for a literal directory). */
static char *escape_glob(const char *s)
{
        size_t n = strlen(s);
        char *out = malloc(2 * n + 1), *p = out;
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (strchr("*?[]{}\\!", s[i]))
                        *p++ = '\\';
                *p++ = s[i];
        }
        *p = '\0';
        return out;
}

/* A gitignore-style path rule of Claude Code as a warder path pattern, or NULL (*why set). */
static char *path_pattern(struct import *im, const char *spec, bool allow, const char **why)
{
        if (spec[0] == '\0') {
                *why = "an empty path";
                return NULL;
        }
        if (spec[0] == '!') {
                *why = "a negated pattern has no warder equivalent";
                return NULL;
        }
        char *out = NULL;
        int n = 0;
        if (strncmp(spec, "//", 2) == 0) {
                out = strdup(spec + 1);
        } else if (spec[0] == '~') {
                if (spec[1] != '\0' && spec[1] != '/') {
                        *why = "~user is not expanded";
                        return NULL;
                }
                out = strdup(spec);
        } else if (spec[0] == '/') {
                char *a = escape_glob(im->anchor);
                size_t al = a ? strlen(a) : 0;
                while (al > 0 && a[al - 1] == '/')
                        a[--al] = '\0';
                if (a)
                        n = asprintf(&out, "%s%s", a, spec);
                free(a);
                if (n < 0)
                        out = NULL;
        } else {
                /* relative to the working directory; a single directory segment followed by
                 * a slash and two stars matches at any depth in a deny or ask rule */
                const char *slash = strchr(spec, '/');
                bool one_dir = slash && strcmp(slash, "/**") == 0 && strncmp(spec, "./", 2) != 0;
                if (one_dir && !allow)
                        n = asprintf(&out, "**/%s", spec);
                else
                        out = strdup(spec);
                if (n < 0)
                        out = NULL;
        }
        if (!out)
                im->nomem = true;
        return out;
}

/* A Bash rule's specifier as a warder execute pattern, or NULL (*why set). */
static char *command_pattern(const char *spec, const char **why)
{
        size_t n = strlen(spec);
        char *out = malloc(2 * n + 3), *p = out;
        if (!out)
                return NULL;
        bool prefix = n >= 2 && strcmp(spec + n - 2, ":*") == 0;
        size_t end = prefix ? n - 2 : n;
        for (size_t i = 0; i < end; i++) {
                /* Claude Code's only wildcard is `*`; warder's other glob syntax is literal */
                if (strchr("?[]\\", spec[i]))
                        *p++ = '\\';
                *p++ = spec[i];
        }
        if (prefix) {
                *p++ = ' ';
                *p++ = '*';
        }
        *p = '\0';
        if (!out[0]) {
                free(out);
                *why = "an empty command";
                return NULL;
        }
        return out;
}

static bool has_control(const char *s)
{
        for (; *s; s++)
                if ((unsigned char)*s < 0x20 || *s == 0x7f)
                        return true;
        return false;
}

/* The rules of tool `t` for one pattern; a Read deny also blocks Write on the same path, as
 * it does in Claude Code. */
static void add_ops(struct import *im, const struct tool_map *t, const char *action,
                    const char *pattern, const char *list, const char *entry)
{
        for (size_t i = 0; i < t->nops; i++)
                add(im, t->ops[i], action, pattern, list, entry);
        if (t->ops[0] == WARDER_OP_READ && strcmp(action, "deny") == 0)
                add(im, WARDER_OP_WRITE, action, pattern, list, entry);
}

static void import_entry(struct import *im, const char *list, const char *action, const char *entry)
{
        if (has_control(entry)) {
                note(im, list, entry, "holds a control character; not translated");
                return;
        }
        size_t name_len = strcspn(entry, "(");
        char name[64];
        if (name_len == 0 || name_len >= sizeof(name)) {
                note(im, list, entry, "not a permission rule; not translated");
                return;
        }
        memcpy(name, entry, name_len);
        name[name_len] = '\0';
        char *spec = NULL;
        if (entry[name_len] == '(') {
                size_t len = strlen(entry);
                if (len < name_len + 2 || entry[len - 1] != ')') {
                        note(im, list, entry, "has no closing parenthesis; not translated");
                        return;
                }
                spec = strndup(entry + name_len + 1, len - name_len - 2);
                if (!spec) {
                        im->nomem = true;
                        return;
                }
        }
        const struct tool_map *t = NULL;
        for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
                if (strcmp(tools[i].tool, name) == 0)
                        t = &tools[i];
        bool allow = strcmp(action, "allow") == 0;
        bool all = !spec || strcmp(spec, "*") == 0 || (t && t->paths && strcmp(spec, "**") == 0);
        if (!t) {
                note(im, list, entry,
                     "warder has no operation for %s; left to Claude Code's own rules", name);
        } else if (allow && !t->allow_exact) {
                note(im, list, entry, "not translated: %s", t->why);
        } else if (all) {
                add_ops(im, t, action, t->ops[0] == WARDER_OP_EXECUTE ? "*" : "**", list, entry);
                if (!allow && !t->allow_exact)
                        note(im, list, entry, "translated more strictly: %s", t->why);
        } else if (t->ops[0] == WARDER_OP_EXECUTE) {
                const char *why = "";
                const char *colon = strchr(spec, ':');
                if (colon && colon[1] != '*' &&
                    strspn(spec, "abcdefghijklmnopqrstuvwxyz_") == (size_t)(colon - spec)) {
                        note(im, list, entry, "a rule on a parameter has no warder equivalent");
                } else {
                        char *pat = command_pattern(spec, &why);
                        if (pat)
                                add(im, WARDER_OP_EXECUTE, action, pat, list, entry);
                        else if (why[0])
                                note(im, list, entry, "not translated: %s", why);
                        else
                                im->nomem = true;
                        free(pat);
                }
        } else if (!t->paths) {
                note(im, list, entry,
                     "Claude Code does not consult path rules of %s; not translated", name);
        } else {
                const char *why = "";
                char *pat = path_pattern(im, spec, allow, &why);
                if (pat)
                        add_ops(im, t, action, pat, list, entry);
                else if (!im->nomem) {
                        note(im, list, entry, "not translated: %s", why);
                }
                free(pat);
        }
        free(spec);
}

/* Writes `s` as a YAML single-quoted scalar. */
static void yaml_quote(FILE *f, const char *s)
{
        fputc('\'', f);
        for (; *s; s++) {
                if (*s == '\'')
                        fputc('\'', f);
                fputc(*s, f);
        }
        fputc('\'', f);
}

static int emit(struct import *im, const json_t *dirs, char **yaml)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return WARDER_ENOMEM;
        fputs("# Imported from Claude Code's permission rules (warder import claude-code).\n"
              "# Claude Code decides deny, then ask, then allow: the strictest rule wins.\n"
              "# Relative patterns are anchored at the root (the project directory).\n"
              "warder: 1\n"
              "default: ask\n"
              "precedence: strictest\n",
              f);
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                bool read_like = op == WARDER_OP_READ || op == WARDER_OP_LS ||
                                 op == WARDER_OP_GLOB || op == WARDER_OP_GREP;
                fprintf(f, "\n%s:\n  default: ask\n", warder_op_name((enum warder_op)op));
                bool header = false;
                if (read_like) {
                        fputs("  rules:\n"
                              "    # Claude Code reads its working directories without asking\n"
                              "    - allow: './**'\n",
                              f);
                        header = true;
                        size_t i;
                        json_t *d;
                        json_array_foreach(dirs, i, d)
                        {
                                const char *s = json_string_value(d);
                                if (!s || s[0] == '\0' || has_control(s))
                                        continue;
                                char *e = escape_glob(s);
                                if (!e)
                                        break;
                                fputs("    - allow: ", f);
                                char *p = NULL;
                                if (asprintf(&p, "%s%s**", e, e[strlen(e) - 1] == '/' ? "" : "/") >=
                                    0) {
                                        yaml_quote(f, p);
                                        free(p);
                                }
                                fputs("\n      reason: 'Claude Code "
                                      "permissions.additionalDirectories'\n",
                                      f);
                                free(e);
                        }
                }
                for (size_t i = 0; i < im->n; i++) {
                        const struct out_rule *r = &im->v[i];
                        if ((int)r->op != op)
                                continue;
                        if (!header) {
                                fputs("  rules:\n", f);
                                header = true;
                        }
                        fprintf(f, "    - %s: ", r->action);
                        yaml_quote(f, r->pattern);
                        fputs("\n      reason: ", f);
                        yaml_quote(f, r->source);
                        fputc('\n', f);
                }
        }
        if (fclose(f) != 0) {
                free(buf);
                return WARDER_ENOMEM;
        }
        *yaml = buf;
        return 0;
}

int warder_hook_import_claude(const json_t *settings, const char *anchor, char **yaml,
                              warder_hook_note_fn note_fn, void *ud, const char **why)
{
        const json_t *perm = json_object_get(settings, "permissions");
        if (!json_is_object(settings) || !json_is_object(perm)) {
                *why = "the settings have no \"permissions\" object";
                return WARDER_EINVAL;
        }
        struct import im = {.anchor = anchor ? anchor : "/", .note = note_fn, .ud = ud};
        static const char *const lists[] = {"deny", "ask", "allow"};
        for (size_t l = 0; l < 3; l++) {
                const json_t *v = json_object_get(perm, lists[l]);
                if (!v)
                        continue;
                if (!json_is_array(v)) {
                        note(&im, lists[l], "", "is not a list; not translated");
                        continue;
                }
                size_t i;
                const json_t *e;
                json_array_foreach(v, i, e)
                {
                        if (!json_is_string(e) ||
                            strlen(json_string_value(e)) != json_string_length(e)) {
                                note(&im, lists[l], "", "entry %zu is not a string; not translated",
                                     i);
                                continue;
                        }
                        import_entry(&im, lists[l], lists[l], json_string_value(e));
                }
        }
        const json_t *dirs = json_object_get(perm, "additionalDirectories");
        int rc = im.nomem ? WARDER_ENOMEM : emit(&im, json_is_array(dirs) ? dirs : NULL, yaml);
        const char *mode = json_string_value(json_object_get(perm, "defaultMode"));
        if (mode)
                note(&im, "defaultMode", mode,
                     "a permission mode has no warder equivalent; not translated");
        for (size_t i = 0; i < im.n; i++) {
                free(im.v[i].pattern);
                free(im.v[i].source);
        }
        free(im.v);
        return rc;
}
