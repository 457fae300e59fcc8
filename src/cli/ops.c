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
        unsigned long long offset, limit, max_matches, threads;
        const char *old_text, *new_text, *glob;
        const char *old_file, *new_file; /* edit: texts from files ("-": stdin) */
        bool all, ignore_case;
        bool nul;        /* -0: names end with NUL, raw (ls, glob, grep -l) */
        bool files_only; /* grep -l: the paths of the matching files, once each */
};

static void op_help(const char *name)
{
        static const struct {
                const char *name, *usage, *what;
        } helps[] = {
            {"read", "[--offset N] [--limit N] [--] PATH",
             "Print the bytes of PATH (from byte --offset, at most --limit bytes)."},
            {"write", "[--] PATH", "Replace PATH (or create it) with the bytes read from stdin."},
            {"edit",
             "(--old TEXT | --old-file FILE) (--new TEXT | --new-file FILE) [--all] [--] PATH",
             "Replace the old text in PATH by the new one; the old text must occur exactly\n"
             "once unless --all is given. --old-file and --new-file read a text from FILE\n"
             "(`-`: stdin, for one of them), byte for byte, for texts of any size."},
            {"ls", "[-0 | --null] [--] [PATH]",
             "List the entries of directory PATH (default: the root). -0 ends each name\n"
             "with a NUL byte instead of a newline, raw, without the / and @ marks."},
            {"glob", "[-0 | --null] [--] PATTERN [PATH]",
             "List the paths under PATH (default: the root) that match PATTERN; -0 ends\n"
             "each with a NUL byte instead of a newline, raw."},
            {"grep",
             "[--glob PATTERN] [-i | --ignore-case] [--max-matches N] [--threads N]\n"
             "              [-l | --files-with-matches [-0 | --null]] [--] REGEX [PATH]",
             "Print `path:line:text` for lines matching the PCRE2 REGEX under PATH, files in\n"
             "path order and lines in file order; --ignore-case folds ASCII letters,\n"
             "--max-matches stops after N matches (default and most: 10,000; the output is\n"
             "then marked truncated), --threads searches with N threads (default 0: one per\n"
             "CPU; the output is the same for every N). -l prints the path of each matching\n"
             "file once; -0 (with -l) ends each path with a NUL byte instead of a newline, raw."},
        };
        for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++) {
                if (strcmp(helps[i].name, name) != 0)
                        continue;
                printf(
                    "Usage: warder [--rules FILE | --preset NAME] [--root DIR] [--home DIR]\n"
                    "              [--json] [--audit FILE] [--interactive | --approve-token T]\n"
                    "              [--as-user USER|UID[:GID[:GROUPS]]]\n"
                    "              %s %s\n"
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
                    "3 approval required (--interactive asks on the terminal; the answer carries "
                    "a\n"
                    "token that --approve-token takes to approve this request once), 2 usage or\n"
                    "ruleset error, 4 other errors.\n",
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
                        else if (a->op == WARDER_OP_EDIT && IS("--old-file"))
                                value = &a->old_file;
                        else if (a->op == WARDER_OP_EDIT && IS("--new-file"))
                                value = &a->new_file;
                        else if (a->op == WARDER_OP_EDIT && !eq && IS("--all"))
                                a->all = true;
                        else if (a->op == WARDER_OP_GREP && IS("--glob"))
                                value = &a->glob;
                        else if (a->op == WARDER_OP_GREP && !eq &&
                                 (IS("--ignore-case") || strcmp(arg, "-i") == 0))
                                a->ignore_case = true;
                        else if ((a->op == WARDER_OP_LS || a->op == WARDER_OP_GLOB ||
                                  a->op == WARDER_OP_GREP) &&
                                 !eq && (IS("--null") || strcmp(arg, "-0") == 0))
                                a->nul = true;
                        else if (a->op == WARDER_OP_GREP && !eq &&
                                 (IS("--files-with-matches") || strcmp(arg, "-l") == 0))
                                a->files_only = true;
                        else if (a->op == WARDER_OP_GREP && IS("--max-matches"))
                                number = &a->max_matches;
                        else if (a->op == WARDER_OP_GREP && IS("--threads"))
                                number = &a->threads;
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
        if (a->op == WARDER_OP_GREP && a->nul && !a->files_only)
                return cli_usage(a->name, "-0 needs -l: a NUL ends a path, and lines may hold "
                                          "any byte");
        if (a->op == WARDER_OP_EDIT) {
                if (!!a->old_text + !!a->old_file != 1)
                        return cli_usage(a->name, "give the old text once: --old or --old-file");
                if (!!a->new_text + !!a->new_file != 1)
                        return cli_usage(a->name, "give the new text once: --new or --new-file");
                if (a->old_file && a->new_file && strcmp(a->old_file, "-") == 0 &&
                    strcmp(a->new_file, "-") == 0)
                        return cli_usage(a->name, "only one text can come from stdin");
                if (a->old_text && a->old_text[0] == '\0')
                        return cli_usage(a->name, "--old must not be empty");
        }
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

static int read_stream(FILE *f, struct warder_bytes *in)
{
        size_t cap = 0;
        for (;;) {
                if (in->len == cap) {
                        cap = cap ? cap * 2 : 65536;
                        char *p = realloc(in->data, cap + 1);
                        if (!p)
                                return -1;
                        in->data = p;
                }
                size_t n = fread(in->data + in->len, 1, cap - in->len, f);
                in->len += n;
                if (n == 0) {
                        in->data[in->len] = '\0';
                        return ferror(f) ? -1 : 0;
                }
        }
}

/* An edit text: the option's value, or the bytes of a file ("-": stdin). The host's own
 * file, read as the caller: it is an argument, not a target. */
static int edit_text(const char *name, const char *text, const char *file, struct warder_bytes *out)
{
        if (text) {
                out->data = strdup(text);
                out->len = strlen(text);
                return out->data ? 0 : CLI_ERROR;
        }
        bool in = strcmp(file, "-") == 0;
        FILE *f = in ? stdin : fopen(file, "rbe");
        if (!f) {
                cli_error(name, "cannot open '%s': %s", file, strerror(errno));
                return CLI_ERROR;
        }
        int rc = read_stream(f, out);
        int e = errno;
        if (!in)
                fclose(f);
        if (rc) {
                cli_error(name, "cannot read '%s': %s", file, strerror(e));
                return CLI_ERROR;
        }
        return 0;
}

static int run(struct cli_session *s, const struct op_args *a)
{
        struct warder_error err = WARDER_ERROR_INIT;
        const char *target = a->npos ? a->pos[a->npos - 1] : ".";
        struct warder_session_request req = {.op = a->op, .target = target};
        struct warder_session_result res = {0};
        struct warder_bytes in = WARDER_BYTES_INIT, old = WARDER_BYTES_INIT,
                            fresh = WARDER_BYTES_INIT;
        int rc = 0;
        switch (a->op) {
        case WARDER_OP_READ:
                req.offset = a->offset;
                req.limit = a->limit;
                break;
        case WARDER_OP_WRITE:
                if (read_stream(stdin, &in)) {
                        cli_error(a->name, "cannot read stdin: %s", strerror(errno));
                        rc = CLI_ERROR;
                }
                req.text = in.data;
                req.text_len = in.len;
                break;
        case WARDER_OP_EDIT:
                rc = edit_text(a->name, a->old_text, a->old_file, &old);
                if (!rc)
                        rc = edit_text(a->name, a->new_text, a->new_file, &fresh);
                if (!rc && old.len == 0)
                        rc = cli_usage(a->name, "the old text must not be empty");
                req.text = old.data;
                req.text_len = old.len;
                req.text2 = fresh.data;
                req.text2_len = fresh.len;
                req.flags = a->all ? WARDER_EDIT_ALL : 0;
                break;
        case WARDER_OP_LS:
                break;
        case WARDER_OP_GLOB:
        case WARDER_OP_GREP:
                req.pattern = a->pos[0];
                target = req.target = a->npos > 1 ? a->pos[1] : ".";
                if (a->op == WARDER_OP_GLOB)
                        target = a->pos[0];
                req.include = a->glob;
                req.flags = a->ignore_case ? WARDER_GREP_CASELESS : 0;
                req.max_matches = (size_t)a->max_matches;
                req.threads = a->threads > 1024 ? 1024 : (unsigned)a->threads;
                break;
        case WARDER_OP_EXECUTE:
                rc = CLI_ERROR;
                break;
        }
        if (rc)
                goto out;
        req.target_len = strlen(req.target);
        int st = cli_session_run(s, &req, &res, &err);
        if (st) {
                rc = cli_report_failure(s, a->name, target, st, &err, &res);
                goto out;
        }
        if (s->c->json) {
                json_t *o = cli_json_ok(a->name, target);
                if (o && warder_session_json_result(o, a->op, &res)) {
                        json_decref(o);
                        o = NULL;
                }
                rc = cli_json_print(o);
                goto out;
        }
        switch (a->op) {
        case WARDER_OP_READ:
                if (s->tty)
                        cli_write_safe(stdout, res.bytes.data, res.bytes.len);
                else
                        fwrite(res.bytes.data, 1, res.bytes.len, stdout);
                break;
        case WARDER_OP_WRITE:
                break;
        case WARDER_OP_EDIT:
                fprintf(stderr, "%zu replacement%s\n", res.count, res.count == 1 ? "" : "s");
                break;
        case WARDER_OP_LS:
        case WARDER_OP_GLOB:
                for (size_t i = 0; i < res.entries.count; i++) {
                        const struct warder_entry *e = &res.entries.items[i];
                        const char *shown =
                            a->op == WARDER_OP_LS ? e->name : shown_path(s, e->path);
                        if (a->nul) {
                                fwrite(shown, 1, strlen(shown) + 1, stdout); /* with its NUL */
                                continue;
                        }
                        put_name(s, shown, strlen(shown));
                        if (a->op == WARDER_OP_LS && e->type == WARDER_ENTRY_DIR)
                                fputc('/', stdout);
                        if (a->op == WARDER_OP_LS && e->type == WARDER_ENTRY_SYMLINK)
                                fputc('@', stdout);
                        fputc('\n', stdout);
                }
                fflush(stdout);
                if (res.entries.hidden)
                        fprintf(stderr, "(%zu entr%s hidden by the rules)\n", res.entries.hidden,
                                res.entries.hidden == 1 ? "y" : "ies");
                break;
        case WARDER_OP_GREP:
                for (size_t i = 0; i < res.grep.count; i++) {
                        const struct warder_grep_match *m = &res.grep.items[i];
                        const char *shown = shown_path(s, m->path);
                        if (a->files_only) {
                                /* Matches come file by file: a path is new when it changes. */
                                if (i && strcmp(m->path, res.grep.items[i - 1].path) == 0)
                                        continue;
                                if (a->nul) {
                                        fwrite(shown, 1, strlen(shown) + 1, stdout);
                                } else {
                                        put_name(s, shown, strlen(shown));
                                        fputc('\n', stdout);
                                }
                                continue;
                        }
                        put_name(s, shown, strlen(shown));
                        fprintf(stdout, ":%llu:", (unsigned long long)m->line);
                        put_name(s, m->text, m->text_len);
                        fputc('\n', stdout);
                }
                fflush(stdout);
                if (res.grep.hidden_files)
                        fprintf(stderr, "(%zu file%s not searched: hidden by the rules)\n",
                                res.grep.hidden_files, res.grep.hidden_files == 1 ? "" : "s");
                if (res.grep.truncated)
                        fputs("(output truncated at the match limit)\n", stderr);
                break;
        case WARDER_OP_EXECUTE:
                break;
        }
out:
        warder_error_clear(&err);
        warder_session_result_free(&res);
        free(in.data);
        free(old.data);
        free(fresh.data);
        return rc;
}

int cli_cmd_op(int argc, char **argv, struct cli_common *c)
{
        struct op_args a = {0};
        int rc = parse(argc, argv, &a);
        if (rc)
                return rc < 0 ? CLI_OK : rc;
        struct warder_local_options lopts = WARDER_LOCAL_OPTIONS_INIT;
        if ((rc = cli_as_user(c, a.name, &lopts)))
                return rc;
        struct cli_session s = {.c = c};
        rc = cli_session_open(&s, a.name, &lopts, false, NULL);
        if (!rc)
                rc = run(&s, &a);
        cli_session_close(&s);
        if (fflush(stdout) && !rc) {
                cli_error(a.name, "write error: %s", strerror(errno));
                rc = CLI_ERROR;
        }
        return rc;
}
