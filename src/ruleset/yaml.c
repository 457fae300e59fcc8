/* SPDX-License-Identifier: MIT */
/*
 * A bounded YAML reader on libyaml's event API. It builds a small tree in which an alias is a
 * shared pointer to the anchored node (never a copy), and counts nodes and depth as if every
 * alias were expanded, so a "billion laughs" document is refused after reading it once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ruleset-internal.h"
#include "uthash-safe.h"

struct anchor {
        UT_hash_handle hh;
        struct warder__ynode *node;
        char name[];
};

struct reader {
        const char *file;
        size_t max_depth, max_nodes, total;
        struct warder__ynode **stack;
        size_t depth, cap;
        struct anchor *anchors;
        struct warder__ydoc *doc;
        struct warder_error *err;
        size_t quote_max; /* 0, or the longest prefix of a name from the document to quote */
};

/* `a` is a name from the document (or ""), cut to r->quote_max bytes when that is set. */
static int fail_at(struct reader *r, int code, const yaml_mark_t *m, const char *fmt, const char *a)
{
        char cut[64];
        if (r->quote_max && strlen(a) > r->quote_max && r->quote_max + 4 <= sizeof(cut)) {
                snprintf(cut, sizeof(cut), "%.*s...", (int)r->quote_max, a);
                a = cut;
        }
        return warder__error_set_at(r->err, code, r->file, (unsigned)m->line + 1,
                                    (unsigned)m->column + 1, fmt, a);
}

static bool match_any(const char *s, const char *const *set)
{
        for (; *set; set++)
                if (strcmp(s, *set) == 0)
                        return true;
        return false;
}

static bool all_in(const char *s, size_t n, const char *set)
{
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!strchr(set, s[i]))
                        return false;
        return true;
}

/* YAML 1.2 core schema resolution of a plain scalar. */
static enum warder__yscalar resolve_plain(const char *s, size_t n)
{
        static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
        static const char *const bools[] = {"true",  "True",  "TRUE", "false",
                                            "False", "FALSE", NULL};
        static const char *const specials[] = {".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf",
                                               "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",
                                               ".NaN",  ".NAN",  NULL};
        if (strlen(s) != n)
                return WARDER__YS_STR;
        /* every null, boolean and number starts with one of these (most patterns do not) */
        if (n && !strchr("~nNtTfF.+-0123456789", s[0]))
                return WARDER__YS_STR;
        if (match_any(s, nulls))
                return WARDER__YS_NULL;
        if (match_any(s, bools))
                return WARDER__YS_BOOL;
        if (match_any(s, specials))
                return WARDER__YS_FLOAT;
        const char *d = s;
        size_t dn = n;
        if (dn && (d[0] == '-' || d[0] == '+')) {
                d++;
                dn--;
        }
        if (all_in(d, dn, "0123456789"))
                return WARDER__YS_INT;
        if (n > 2 && s[0] == '0' && s[1] == 'o' && all_in(s + 2, n - 2, "01234567"))
                return WARDER__YS_INT;
        if (n > 2 && s[0] == '0' && s[1] == 'x' && all_in(s + 2, n - 2, "0123456789abcdefABCDEF"))
                return WARDER__YS_INT;
        /* float: [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
        size_t i = 0, digits = 0;
        while (i < dn && d[i] >= '0' && d[i] <= '9')
                i++, digits++;
        if (i < dn && d[i] == '.') {
                i++;
                while (i < dn && d[i] >= '0' && d[i] <= '9')
                        i++, digits++;
        }
        if (digits && i < dn && (d[i] == 'e' || d[i] == 'E')) {
                i++;
                if (i < dn && (d[i] == '-' || d[i] == '+'))
                        i++;
                size_t e = 0;
                while (i < dn && d[i] >= '0' && d[i] <= '9')
                        i++, e++;
                if (!e)
                        return WARDER__YS_STR;
        }
        if (digits && i == dn)
                return WARDER__YS_FLOAT;
        return WARDER__YS_STR;
}

static int tag_type(const char *tag, enum warder__yscalar *out)
{
        static const struct {
                const char *tag;
                enum warder__yscalar t;
        } tags[] = {
            {"tag:yaml.org,2002:str", WARDER__YS_STR},
            {"tag:yaml.org,2002:null", WARDER__YS_NULL},
            {"tag:yaml.org,2002:bool", WARDER__YS_BOOL},
            {"tag:yaml.org,2002:int", WARDER__YS_INT},
            {"tag:yaml.org,2002:float", WARDER__YS_FLOAT},
        };
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(tags); i++) {
                if (strcmp(tag, tags[i].tag) == 0) {
                        *out = tags[i].t;
                        return 0;
                }
        }
        return -1;
}

static struct warder__ynode *node_new(struct reader *r, enum warder__ynode_type type,
                                      const yaml_mark_t *m)
{
        struct warder__ynode *n = warder__arena_alloc(&r->doc->arena, sizeof(*n));
        if (!n)
                return NULL;
        memset(n, 0, sizeof(*n));
        n->type = (uint8_t)type;
        n->line = (unsigned)m->line + 1;
        n->column = (unsigned)m->column + 1;
        n->expanded = 1;
        n->height = 1;
        return n;
}

/* Accounts for a node of `expanded` nodes and `height` levels at the current depth. */
static int account(struct reader *r, size_t expanded, size_t height, const yaml_mark_t *m)
{
        if (r->depth + height > r->max_depth)
                return warder__error_set_at(
                    r->err, WARDER_ETOOBIG, r->file, (unsigned)m->line + 1, (unsigned)m->column + 1,
                    "the document nests deeper than %zu levels (after alias expansion)",
                    r->max_depth);
        if (expanded > r->max_nodes - r->total)
                return warder__error_set_at(
                    r->err, WARDER_ETOOBIG, r->file, (unsigned)m->line + 1, (unsigned)m->column + 1,
                    "the document has more than %zu nodes (after alias expansion)", r->max_nodes);
        r->total += expanded;
        return 0;
}

static int attach(struct reader *r, struct warder__ynode *n)
{
        if (r->depth == 0) {
                r->doc->root = n;
                return 0;
        }
        struct warder__ynode *parent = r->stack[r->depth - 1];
        if (parent->n == parent->cap) {
                /* in the arena: the old array stays there, unused (at most as much again) */
                size_t cap = parent->cap ? parent->cap * 2 : 4;
                struct warder__ynode **items =
                    cap <= SIZE_MAX / sizeof(*items)
                        ? warder__arena_alloc(&r->doc->arena, cap * sizeof(*items))
                        : NULL;
                if (!items)
                        return WARDER_ENOMEM;
                if (parent->n)
                        memcpy(items, parent->items, parent->n * sizeof(*items));
                parent->items = items;
                parent->cap = cap;
        }
        parent->items[parent->n++] = n;
        parent->expanded += n->expanded;
        if (n->height + 1 > parent->height)
                parent->height = n->height + 1;
        return 0;
}

static int add_anchor(struct reader *r, const yaml_char_t *name, struct warder__ynode *n)
{
        if (!name)
                return 0;
        size_t len = strlen((const char *)name);
        struct anchor *a = NULL;
        HASH_FIND(hh, r->anchors, name, len, a);
        if (a) {
                a->node = n; /* YAML: a later anchor of the same name replaces the earlier one */
                return 0;
        }
        a = malloc(sizeof(*a) + len + 1);
        if (!a)
                return WARDER_ENOMEM;
        memcpy(a->name, name, len + 1);
        a->node = n;
        warder__hash_oom = false;
        HASH_ADD(hh, r->anchors, name[0], len, a);
        if (warder__hash_oom) {
                free(a);
                return WARDER_ENOMEM;
        }
        return 0;
}

static int on_scalar(struct reader *r, yaml_event_t *ev)
{
        int rc = account(r, 1, 1, &ev->start_mark);
        if (rc)
                return rc;
        struct warder__ynode *n = node_new(r, WARDER__Y_SCALAR, &ev->start_mark);
        if (!n)
                return WARDER_ENOMEM;
        size_t len = ev->data.scalar.length;
        n->value = warder__arena_strndup(&r->doc->arena, (const char *)ev->data.scalar.value, len);
        if (!n->value)
                return WARDER_ENOMEM;
        n->len = len;
        n->complete = true;
        yaml_scalar_style_t style = ev->data.scalar.style;
        const char *tag = (const char *)ev->data.scalar.tag;
        if (tag && strcmp(tag, "!") != 0) {
                enum warder__yscalar t;
                if (tag_type(tag, &t) != 0)
                        return fail_at(r, WARDER_EPARSE, &ev->start_mark, "unsupported tag '%s'",
                                       tag);
                n->stype = (uint8_t)t;
        } else if (style == YAML_PLAIN_SCALAR_STYLE && !tag) {
                n->stype = (uint8_t)resolve_plain(n->value, len);
        } else {
                n->stype = WARDER__YS_STR;
        }
        /* Byte offsets map to columns when the scalar sits on one line without escapes. */
        size_t quote =
            (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
                ? 1
                : 0;
        if (ev->start_mark.line == ev->end_mark.line &&
            (style == YAML_PLAIN_SCALAR_STYLE || quote) &&
            ev->end_mark.index - ev->start_mark.index == len + 2 * quote)
                n->content_column = n->column + (unsigned)quote;
        rc = add_anchor(r, ev->data.scalar.anchor, n);
        return rc ? rc : attach(r, n);
}

static int on_start(struct reader *r, yaml_event_t *ev, enum warder__ynode_type type)
{
        const yaml_char_t *anchor =
            type == WARDER__Y_SEQ ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
        const char *tag = (const char *)(type == WARDER__Y_SEQ ? ev->data.sequence_start.tag
                                                               : ev->data.mapping_start.tag);
        if (tag && strcmp(tag, "!") != 0 &&
            strcmp(tag, type == WARDER__Y_SEQ ? "tag:yaml.org,2002:seq" : "tag:yaml.org,2002:map"))
                return fail_at(r, WARDER_EPARSE, &ev->start_mark, "unsupported tag '%s'", tag);
        int rc = account(r, 1, 1, &ev->start_mark);
        if (rc)
                return rc;
        struct warder__ynode *n = node_new(r, type, &ev->start_mark);
        if (!n)
                return WARDER_ENOMEM;
        if ((rc = add_anchor(r, anchor, n)))
                return rc;
        if (r->depth == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 16;
                struct warder__ynode **s = realloc(r->stack, cap * sizeof(*s));
                if (!s)
                        return WARDER_ENOMEM;
                r->stack = s;
                r->cap = cap;
        }
        r->stack[r->depth++] = n;
        return 0;
}

static int on_end(struct reader *r)
{
        struct warder__ynode *n = r->stack[--r->depth];
        n->complete = true;
        return attach(r, n);
}

static int on_alias(struct reader *r, yaml_event_t *ev)
{
        const char *name = (const char *)ev->data.alias.anchor;
        struct anchor *a = NULL;
        HASH_FIND(hh, r->anchors, name, strlen(name), a);
        if (!a)
                return fail_at(r, WARDER_EPARSE, &ev->start_mark, "unknown alias '*%s'", name);
        if (!a->node->complete)
                return fail_at(r, WARDER_EPARSE, &ev->start_mark,
                               "recursive alias '*%s' (it refers to a node that contains it)",
                               name);
        /* The node was counted once where it was written; every alias counts it again. */
        int rc = account(r, a->node->expanded, a->node->height, &ev->start_mark);
        return rc ? rc : attach(r, a->node);
}

int warder__yaml_parse(const char *text, size_t len, const char *file, size_t max_depth,
                       size_t max_nodes, size_t quote_max, struct warder__ydoc *out,
                       struct warder_error *err)
{
        yaml_parser_t parser;
        if (!yaml_parser_initialize(&parser))
                return warder_error_set(err, WARDER_ENOMEM, "out of memory");
        /* A UTF-8 byte order mark (which some editors write) is not content. */
        if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
                text += 3;
                len -= 3;
        }
        yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
        struct warder__ydoc doc = {NULL, {NULL, 0}};
        struct reader r = {file, max_depth, max_nodes, 0, NULL, 0, 0, NULL, &doc, err, quote_max};
        int rc = 0, documents = 0;
        bool done = false;
        while (!done && !rc) {
                yaml_event_t ev;
                if (!yaml_parser_parse(&parser, &ev)) {
                        const char *problem = parser.problem ? parser.problem : "malformed YAML";
                        bool alias = parser.context && strstr(parser.context, "alias");
                        bool anchor = parser.context && strstr(parser.context, "anchor");
                        rc = warder__error_set_at(
                            err, parser.error == YAML_MEMORY_ERROR ? WARDER_ENOMEM : WARDER_EPARSE,
                            file, (unsigned)parser.problem_mark.line + 1,
                            (unsigned)parser.problem_mark.column + 1, "invalid YAML: %s%s%s%s",
                            parser.context ? parser.context : "", parser.context ? ": " : "",
                            problem,
                            alias || anchor ? " (quote a pattern that starts with '*' or '&')"
                                            : "");
                        break;
                }
                switch (ev.type) {
                case YAML_STREAM_START_EVENT:
                case YAML_NO_EVENT:
                case YAML_DOCUMENT_END_EVENT:
                        break;
                case YAML_STREAM_END_EVENT:
                        done = true;
                        break;
                case YAML_DOCUMENT_START_EVENT:
                        if (++documents > 1)
                                rc = fail_at(&r, WARDER_EPARSE, &ev.start_mark,
                                             "a ruleset file holds one YAML document%s", "");
                        break;
                case YAML_SCALAR_EVENT:
                        rc = on_scalar(&r, &ev);
                        break;
                case YAML_SEQUENCE_START_EVENT:
                        rc = on_start(&r, &ev, WARDER__Y_SEQ);
                        break;
                case YAML_MAPPING_START_EVENT:
                        rc = on_start(&r, &ev, WARDER__Y_MAP);
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                        rc = on_end(&r);
                        break;
                case YAML_ALIAS_EVENT:
                        rc = on_alias(&r, &ev);
                        break;
                }
                yaml_event_delete(&ev);
        }
        yaml_parser_delete(&parser);
        struct anchor *a, *tmp;
        HASH_ITER(hh, r.anchors, a, tmp)
        {
                HASH_DEL(r.anchors, a);
                free(a);
        }
        free(r.stack);
        if (rc) {
                if (rc == WARDER_ENOMEM && err && err->code != WARDER_ENOMEM)
                        warder_error_set(err, rc, "out of memory");
                warder__yaml_free(&doc);
                return rc;
        }
        *out = doc;
        return 0;
}

void warder__yaml_free(struct warder__ydoc *doc)
{
        if (!doc)
                return;
        warder__arena_free(&doc->arena);
        doc->root = NULL;
}
