/* SPDX-License-Identifier: MIT */
/* Guarded operations on the local backend: read, write, edit, ls, glob, grep. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

struct op_args {
        const char *name;
        enum warder_op op;
        const char *pos[2]; /* positional arguments */
        int npos;
        unsigned long long offset, limit;
        const char *old_text, *new_text, *glob;
        bool all;
};

static void op_help(const char *name)
{
        static const struct {
                const char *name, *usage, *what;
        } helps[] = {
            {"read", "[--offset N] [--limit N] [--] PATH",
             "Print the bytes of PATH (from byte --offset, at most --limit bytes)."},
            {"write", "[--] PATH", "Replace PATH (or create it) with the bytes read from stdin."},
            {"edit", "--old TEXT --new TEXT [--all] [--] PATH",
             "Replace TEXT in PATH; it must occur exactly once unless --all is given."},
            {"ls", "[--] [PATH]", "List the entries of directory PATH (default: the root)."},
            {"glob", "[--] PATTERN [PATH]",
             "List the paths under PATH (default: the root) that match PATTERN."},
            {"grep", "[--glob PATTERN] [--] REGEX [PATH]",
             "Print `path:line:text` for lines matching the PCRE2 REGEX under PATH."},
        };
        for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
                if (strcmp(helps[i].name, name) != 0)
                        continue;
                printf(
                    "Usage: warder [--rules FILE | --preset NAME] [--root DIR] [--home DIR]\n"
                    "              [--json] [--audit FILE] [--interactive] %s %s\n"
                    "\n"
                    "%s\n"
                    "\n"
                    "The operation goes through a guard (the ruleset: --rules FILE, or --preset\n"
                    "NAME, by default the embedded `default` preset) over the local backend\n"
                    "confined to --root (default: the current directory). Names and lines are\n"
                    "written byte for byte, with control bytes escaped when stdout is a terminal.\n"
                    "Options come before the operands (the first operand, or `--`, ends them) and\n"
                    "each is given once; the ruleset, root, home, audit and --interactive options\n"
                    "go before the command's name. Put `--` before operands an agent supplies.\n"
                    "\n"
                    "Exit status: 0 done, 1 denied (the rule, its reason and source are shown),\n"
                    "3 approval required (--interactive asks on the terminal), 2 usage or ruleset\n"
                    "error, 4 other errors.\n",
                    helps[i].name, helps[i].usage, helps[i].what);
        }
}

static int parse(int argc, char **argv, struct op_args *a)
{
        a->name = argv[0];
        warder_op_parse(a->name, &a->op);
        bool positional_only = false;
        for (int i = 1; i < argc; i++) {
                const char *arg = argv[i];
                const char **value = NULL;
                unsigned long long *number = NULL;
                if (!positional_only && strcmp(arg, "--") == 0) {
                        positional_only = true;
                        continue;
                }
                if (!positional_only && arg[0] == '-' && arg[1] != '\0') {
                        if (cli_is_help(arg)) {
                                op_help(a->name);
                                return -1;
                        }
                        /* `--opt VALUE` or `--opt=VALUE`; the value is taken as it is, so an
                         * old or new text may begin with `--`. */
                        const char *eq = strchr(arg, '=');
                        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
                        const char *given = eq ? eq + 1 : NULL;
#define IS(opt) (strlen(opt) == n && strncmp(arg, opt, n) == 0)
                        if (a->op == WARDER_OP_EDIT && IS("--old"))
                                value = &a->old_text;
                        else if (a->op == WARDER_OP_EDIT && IS("--new"))
                                value = &a->new_text;
                        else if (a->op == WARDER_OP_EDIT && !eq && IS("--all"))
                                a->all = true;
                        else if (a->op == WARDER_OP_GREP && IS("--glob"))
                                value = &a->glob;
                        else if (a->op == WARDER_OP_READ && IS("--offset"))
                                number = &a->offset;
                        else if (a->op == WARDER_OP_READ && IS("--limit"))
                                number = &a->limit;
                        else
                                return cli_usage(a->name, "unknown option '%s'", arg);
#undef IS
                        if (value || number) {
                                if (!given && ++i >= argc)
                                        return cli_usage(a->name, "option '%.*s' needs a value",
                                                         (int)n, arg);
                                if (!given)
                                        given = argv[i];
                                if (value && *value)
                                        return cli_usage(a->name, "option '%.*s' is given twice",
                                                         (int)n, arg);
                                if (value)
                                        *value = given;
                                else if (!cli_parse_u64(given, number))
                                        return cli_usage(a->name,
                                                         "option '%.*s' needs a number, not '%s'",
                                                         (int)n, arg, given);
                        }
                        continue;
                }
                if (a->npos == 2)
                        return cli_usage(a->name, "too many arguments");
                a->pos[a->npos++] = arg;
        }
        int min = 1, max = 2;
        switch (a->op) {
        case WARDER_OP_READ:
        case WARDER_OP_WRITE:
        case WARDER_OP_EDIT:
                max = 1;
                break;
        case WARDER_OP_LS:
                min = 0;
                max = 1;
                break;
        case WARDER_OP_GLOB:
        case WARDER_OP_GREP:
        case WARDER_OP_EXECUTE:
                break;
        }
        if (a->npos < min)
                return cli_usage(a->name, "missing %s",
                                 a->op == WARDER_OP_GLOB   ? "PATTERN"
                                 : a->op == WARDER_OP_GREP ? "REGEX"
                                                           : "PATH");
        if (a->npos > max)
                return cli_usage(a->name, "too many arguments");
        if (a->op == WARDER_OP_EDIT && (!a->old_text || !a->new_text))
                return cli_usage(a->name, "--old and --new are required");
        if (a->op == WARDER_OP_EDIT && a->old_text[0] == '\0')
                return cli_usage(a->name, "--old must not be empty");
        return 0;
}

/* A path as shown to people: relative to the root when it lies beneath it. */
static const char *shown_path(const struct cli_session *s, const char *path)
{
        size_t n = strlen(s->root);
        if (strcmp(s->root, "/") != 0 && strncmp(path, s->root, n) == 0 && path[n] == '/')
                return path + n + 1;
        return path;
}

/* Names and lines: raw bytes into a pipe, escaped on a terminal. */
static void put_name(const struct cli_session *s, const char *p, size_t len)
{
        if (s->tty)
                cli_write_safe(stdout, p, len);
        else
                fwrite(p, 1, len, stdout);
}

static int read_stdin(struct warder_bytes *in)
{
        size_t cap = 0;
        for (;;) {
                if (in->len == cap) {
                        cap = cap ? cap * 2 : 65536;
                        char *p = realloc(in->data, cap);
                        if (!p)
                                return -1;
                        in->data = p;
                }
                size_t n = fread(in->data + in->len, 1, cap - in->len, stdin);
                in->len += n;
                if (n == 0)
                        return ferror(stdin) ? -1 : 0;
        }
}

static void json_entries(const struct warder_entries *e)
{
        static const char *const types[] = {"file", "dir", "symlink", "other"};
        fputs(",\"entries\":[", stdout);
        for (size_t i = 0; i < e->count; i++) {
                const struct warder_entry *it = &e->items[i];
                fputs(i ? ",{\"name\":" : "{\"name\":", stdout);
                cli_write_json_string(stdout, it->name, strlen(it->name));
                cli_json_field(stdout, "path", it->path);
                cli_json_field(stdout, "type",
                               types[it->type <= WARDER_ENTRY_OTHER ? it->type : 3]);
                fprintf(stdout, ",\"size\":%llu,\"mtime\":%lld}", (unsigned long long)it->size,
                        (long long)it->mtime);
        }
        fprintf(stdout, "],\"hidden\":%zu", e->hidden);
}

static int run(struct cli_session *s, const struct op_args *a)
{
        struct warder_error err = WARDER_ERROR_INIT;
        const char *target = a->npos ? a->pos[a->npos - 1] : ".";
        const char *path = target;
        int rc = 0;
        struct warder_bytes bytes = {0};
        struct warder_entries entries = {0};
        struct warder_grep_result grep = {0};
        size_t count = 0;
        switch (a->op) {
        case WARDER_OP_READ:
                rc = warder_backend_read(s->guard, path, strlen(path), a->offset, a->limit, 0,
                                         &bytes, &err);
                break;
        case WARDER_OP_WRITE: {
                struct warder_bytes in = {0};
                if (read_stdin(&in)) {
                        free(in.data);
                        cli_error(a->name, "cannot read stdin: %s", strerror(errno));
                        return CLI_ERROR;
                }
                rc = warder_backend_write(s->guard, path, strlen(path), in.data, in.len, 0, &err);
                count = in.len;
                free(in.data);
                break;
        }
        case WARDER_OP_EDIT:
                rc = warder_backend_edit(s->guard, path, strlen(path), a->old_text,
                                         strlen(a->old_text), a->new_text, strlen(a->new_text),
                                         a->all ? WARDER_EDIT_ALL : 0, &count, &err);
                break;
        case WARDER_OP_LS:
                rc = warder_backend_ls(s->guard, path, strlen(path), 0, &entries, &err);
                break;
        case WARDER_OP_GLOB:
                path = a->npos > 1 ? a->pos[1] : ".";
                target = a->pos[0];
                rc =
                    warder_backend_glob(s->guard, a->pos[0], path, strlen(path), 0, &entries, &err);
                break;
        case WARDER_OP_GREP: {
                path = a->npos > 1 ? a->pos[1] : ".";
                target = path;
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = a->pos[0];
                req.path = path;
                req.path_len = strlen(path);
                req.glob = a->glob;
                rc = warder_backend_grep(s->guard, &req, &grep, &err);
                break;
        }
        case WARDER_OP_EXECUTE:
                rc = WARDER_ENOTSUP;
                break;
        }
        if (rc) {
                int code = cli_report_failure(s, a->name, target, rc, &err);
                warder_error_clear(&err);
                return code;
        }
        if (s->c->json) {
                fputs("{\"op\":", stdout);
                cli_write_json_string(stdout, a->name, strlen(a->name));
                cli_json_field(stdout, "target", target);
                cli_json_field(stdout, "status", "ok");
        }
        switch (a->op) {
        case WARDER_OP_READ:
                if (s->c->json) {
                        fputs(",\"content\":", stdout);
                        cli_write_json_string(stdout, bytes.data, bytes.len);
                        fprintf(stdout, ",\"bytes\":%zu", bytes.len);
                } else if (s->tty) {
                        cli_write_safe(stdout, bytes.data, bytes.len);
                } else {
                        fwrite(bytes.data, 1, bytes.len, stdout);
                }
                break;
        case WARDER_OP_WRITE:
                if (s->c->json)
                        fprintf(stdout, ",\"bytes\":%zu", count);
                break;
        case WARDER_OP_EDIT:
                if (s->c->json)
                        fprintf(stdout, ",\"replacements\":%zu", count);
                else
                        fprintf(stderr, "%zu replacement%s\n", count, count == 1 ? "" : "s");
                break;
        case WARDER_OP_LS:
        case WARDER_OP_GLOB:
                if (s->c->json) {
                        json_entries(&entries);
                        break;
                }
                for (size_t i = 0; i < entries.count; i++) {
                        const struct warder_entry *e = &entries.items[i];
                        const char *shown =
                            a->op == WARDER_OP_LS ? e->name : shown_path(s, e->path);
                        put_name(s, shown, strlen(shown));
                        if (a->op == WARDER_OP_LS && e->type == WARDER_ENTRY_DIR)
                                fputc('/', stdout);
                        if (a->op == WARDER_OP_LS && e->type == WARDER_ENTRY_SYMLINK)
                                fputc('@', stdout);
                        fputc('\n', stdout);
                }
                fflush(stdout);
                if (entries.hidden)
                        fprintf(stderr, "(%zu entr%s hidden by the rules)\n", entries.hidden,
                                entries.hidden == 1 ? "y" : "ies");
                break;
        case WARDER_OP_GREP:
                if (s->c->json) {
                        fputs(",\"matches\":[", stdout);
                        for (size_t i = 0; i < grep.count; i++) {
                                const struct warder_grep_match *m = &grep.items[i];
                                fputs(i ? ",{\"path\":" : "{\"path\":", stdout);
                                cli_write_json_string(stdout, m->path, strlen(m->path));
                                fprintf(stdout,
                                        ",\"line\":%llu,\"text\":", (unsigned long long)m->line);
                                cli_write_json_string(stdout, m->text, m->text_len);
                                fputc('}', stdout);
                        }
                        fprintf(stdout, "],\"hidden_files\":%zu,\"truncated\":%s",
                                grep.hidden_files, grep.truncated ? "true" : "false");
                        break;
                }
                for (size_t i = 0; i < grep.count; i++) {
                        const struct warder_grep_match *m = &grep.items[i];
                        const char *shown = shown_path(s, m->path);
                        put_name(s, shown, strlen(shown));
                        fprintf(stdout, ":%llu:", (unsigned long long)m->line);
                        put_name(s, m->text, m->text_len);
                        fputc('\n', stdout);
                }
                fflush(stdout);
                if (grep.hidden_files)
                        fprintf(stderr, "(%zu file%s not searched: hidden by the rules)\n",
                                grep.hidden_files, grep.hidden_files == 1 ? "" : "s");
                if (grep.truncated)
                        fputs("(output truncated at the match limit)\n", stderr);
                break;
        case WARDER_OP_EXECUTE:
                break;
        }
        if (s->c->json)
                fputs("}\n", stdout);
        warder_bytes_free(&bytes);
        warder_entries_free(&entries);
        warder_grep_result_free(&grep);
        return CLI_OK;
}

int cli_cmd_op(int argc, char **argv, struct cli_common *c)
{
        struct op_args a = {0};
        int rc = parse(argc, argv, &a);
        if (rc)
                return rc < 0 ? CLI_OK : rc;
        struct cli_session s = {.c = c};
        rc = cli_session_open(&s, a.name, NULL, false);
        if (!rc)
                rc = run(&s, &a);
        cli_session_close(&s);
        if (fflush(stdout) && !rc) {
                cli_error(a.name, "write error: %s", strerror(errno));
                rc = CLI_ERROR;
        }
        return rc;
}
