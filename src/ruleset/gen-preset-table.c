/* SPDX-License-Identifier: MIT */
/*
 * Build-time generator: loads each preset (rules/<name>.yaml) with the library's own loader
 * and writes what it read — every rule with its id, reason and source position, the defaults,
 * the inline tests — as C tables, so that loading an embedded preset at run time skips the
 * YAML parser (ruleset.c, preset_raw()). test-presets checks that a preset loaded from its
 * table equals the same text loaded through the parser.
 * Usage: gen-preset-table OUTPUT.c rules/NAME.yaml...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* The generator reads presets that extend nothing: no embedded presets of its own. */
const struct warder__preset warder__presets[] = {{NULL, NULL, 0}};
const size_t warder__npresets = 0;

static void literal(FILE *f, const char *s)
{
        if (!s) {
                fputs("NULL", f);
                return;
        }
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p >= 0x20 && *p < 0x7f && *p != '?')
                        fputc(*p, f);
                else
                        fprintf(f, "\\%03o", *p);
        }
        fputc('"', f);
}

static int emit(FILE *f, const char *path, size_t k, char *name)
{
        char *text = NULL;
        size_t len = 0;
        struct warder_error err = WARDER_ERROR_INIT;
        if (warder__read_file(path, 1u << 20, &text, &len, path, &err)) {
                fprintf(stderr, "%s: %s\n", path, err.message);
                return 1;
        }
        warder_ruleset rs;
        memset(&rs, 0, sizeof(rs));
        struct loader L;
        memset(&L, 0, sizeof(L));
        struct warder__arena arena = {NULL, 0};
        L.rs = &rs;
        L.arena = &arena;
        L.err = &err;
        L.max_file_size = 1u << 20;
        L.max_depth = 64;
        L.max_nodes = 1000000;
        L.max_rules = 100000;
        L.max_pattern_bytes = (size_t)-1;
        char display[128];
        snprintf(display, sizeof(display), "preset:%s", name);
        L.chain[L.depth++] = display;
        struct raw raw;
        memset(&raw, 0, sizeof(raw));
        if (warder__load_source(&L, text, len, display, display, ".", 0, &raw)) {
                fprintf(stderr, "%s:%u:%u: %s\n", path, err.line, err.column, err.message);
                return 1;
        }
        fprintf(f, "static const struct warder__preset_rule rules_%zu[] = {\n", k);
        size_t n = 0;
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                for (size_t i = 0; i < raw.ops[op].n; i++, n++) {
                        const struct raw_rule *r = &raw.ops[op].rules[i];
                        fprintf(f, "\t{%d, %d, ", op, (int)r->action);
                        literal(f, r->pattern);
                        fputs(", ", f);
                        literal(f, r->reason);
                        fputs(", ", f);
                        literal(f, r->id);
                        fprintf(f, ", %u, %u, %u, %u, %u},\n", r->line, r->column, r->pline,
                                r->pcolumn, r->pcontent_column);
                }
        }
        fprintf(f, "\t{0, 0, NULL, NULL, NULL, 0, 0, 0, 0, 0},\n};\n");
        fprintf(f, "static const struct warder__preset_case cases_%zu[] = {\n", k);
        for (size_t i = 0; i < raw.ncases; i++) {
                const struct warder__test_case *c = &raw.cases[i];
                fprintf(f, "\t{%d, %d, ", (int)c->op, (int)c->expect);
                literal(f, c->target);
                fputs(", ", f);
                literal(f, c->real);
                fprintf(f, ", %u, %u},\n", c->line, c->column);
        }
        fprintf(f, "\t{0, 0, NULL, NULL, 0, 0},\n};\n");
        fprintf(f, "static const struct warder__preset_table table_%zu = {\n\t", k);
        literal(f, name);
        fprintf(f, ", %zu, %d, %d, %d, %d, %d, %d, %d,\n\t{", len, raw.has_default, (int)raw.def,
                raw.has_prec, (int)raw.prec, raw.has_fold, raw.fold, raw.has_tests);
        for (int op = 0; op < WARDER_OP_COUNT; op++)
                fprintf(f, "{%d, %d, %d, %zu}, ", raw.ops[op].present, raw.ops[op].has_default,
                        (int)raw.ops[op].def, raw.ops[op].n);
        fprintf(f, "},\n\trules_%zu, %zu, ", k, n);
        literal(f, raw.troot);
        fputs(", ", f);
        literal(f, raw.thome);
        fprintf(f, ", cases_%zu, %zu,\n};\n\n", k, raw.ncases);
        int bad = raw.extends != NULL;
        if (bad)
                fprintf(stderr, "%s: a preset that extends another is not tabulated\n", path);
        warder__raw_free(&raw);
        warder__arena_free(&arena);
        for (size_t i = 0; i < rs.nfiles; i++)
                free(rs.files[i]);
        free(rs.files);
        free(text);
        return bad;
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: gen-preset-table OUTPUT.c PRESET.yaml...\n");
                return 2;
        }
        FILE *f = fopen(argv[1], "w");
        if (!f)
                return 1;
        fputs("/* Generated by src/ruleset/gen-preset-table.c from rules/: do not edit. */\n"
              "#include \"ruleset/ruleset-internal.h\"\n\n",
              f);
        int rc = 0;
        for (int i = 2; i < argc && !rc; i++) {
                const char *base = strrchr(argv[i], '/');
                char *name = strdup(base ? base + 1 : argv[i]);
                char *dot = strrchr(name, '.');
                if (dot)
                        *dot = '\0';
                rc = emit(f, argv[i], (size_t)(i - 2), name);
                free(name);
        }
        fputs("const struct warder__preset_table *const warder__preset_tables[] = {\n", f);
        for (int i = 2; i < argc; i++)
                fprintf(f, "\t&table_%d,\n", i - 2);
        fprintf(f, "\tNULL,\n};\n");
        if (fclose(f) != 0 || rc) {
                remove(argv[1]);
                return 1;
        }
        return 0;
}
