/* SPDX-License-Identifier: MIT */
#ifndef WARDER_RULESET_LOAD_H
#define WARDER_RULESET_LOAD_H

#include "ruleset-internal.h"

/* A rule as read from a file, before compiling (its strings are in the loader's arena). */
struct raw_rule {
        enum warder_action action;
        char *pattern, *reason, *id;
        const char *file;
        unsigned line, column, pline, pcolumn, pcontent_column;
        bool foreign; /* from a file the caller did not name (see warder__rule) */
};

struct raw_op {
        bool present, has_default;
        enum warder_action def;
        struct raw_rule *rules;
        size_t n, cap;
};

/* One file (merged with what it extends). */
struct raw {
        const char *file;
        bool has_default, has_prec, has_fold, has_tests;
        enum warder_action def;
        enum warder_precedence prec;
        bool fold;
        struct raw_op ops[WARDER_OP_COUNT];
        char *extends;
        unsigned ext_line, ext_column;
        char *troot, *thome;
        struct warder__test_case *cases;
        size_t ncases;
};

struct loader {
        warder_ruleset *rs;          /* receives interned file names */
        struct warder__arena *arena; /* holds the strings of the rules read */
        struct warder_error *err;
        size_t max_file_size, max_depth, max_nodes, max_rules, max_pattern_bytes;
        size_t total_rules;
        size_t pattern_bytes;  /* of every rule read so far, aliases counted each time */
        const char *top;       /* the interned name of the caller's file (depth 0) */
        const char *chain[16]; /* identities of the files being loaded (cycle detection) */
        size_t depth;
};

int warder__load_source(struct loader *L, const char *text, size_t len, const char *display,
                        const char *identity, const char *dir, size_t depth, struct raw *out);
void warder__raw_free(struct raw *raw);
const char *warder__intern(struct loader *L, const char *name);
int warder__read_file(const char *path, size_t max, char **out, size_t *len, const char *shown_as,
                      struct warder_error *err);

#endif
