/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "session/session.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

bool cli_json_mode;
static bool json_printed;

/* The last error reported, for the JSON error object of a failed --json call. */
static struct {
        char code[32];
        char message[1024];
        char file[1024];
        unsigned line, column;
} last_error;

static void remember(const char *code, const char *message)
{
        snprintf(last_error.code, sizeof(last_error.code), "%s", code);
        snprintf(last_error.message, sizeof(last_error.message), "%s", message);
        last_error.file[0] = '\0';
        last_error.line = last_error.column = 0;
}

static void vreport(const char *cmd, const char *code, const char *fmt, va_list ap)
{
        char msg[1024];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        fprintf(stderr, "warder%s%s: %s\n", cmd && *cmd ? " " : "", cmd ? cmd : "", msg);
        remember(code, msg);
}

int cli_json_print(json_t *v)
{
        int rc = v ? warder_json_write(stdout, v) : -1;
        json_decref(v);
        json_printed = true;
        if (rc) {
                fprintf(stderr, "warder: cannot write the JSON answer\n");
                return CLI_ERROR;
        }
        return 0;
}

void cli_json_fail(int exit_code)
{
        if (!cli_json_mode || json_printed || exit_code == CLI_OK)
                return;
        json_t *e = json_object();
        bool bad = !e;
        if (e) {
                warder_json_set(e, "code",
                                json_string(last_error.code[0] ? last_error.code : "error"), &bad);
                warder_json_set(
                    e, "message",
                    warder_json_str(last_error.message[0] ? last_error.message : "failed"), &bad);
                if (last_error.file[0]) {
                        warder_json_set(e, "file", warder_json_str(last_error.file), &bad);
                        warder_json_set(e, "line", json_integer(last_error.line), &bad);
                        warder_json_set(e, "column", json_integer(last_error.column), &bad);
                }
        }
        json_t *o = bad ? NULL
                        : json_pack("{s:s,s:o,s:i}", "status", "error", "error", e, "exit_status",
                                    exit_code);
        if (!o)
                json_decref(e);
        cli_json_print(o);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vreport(cmd, "usage", fmt, ap);
        va_end(ap);
        fprintf(stderr, "Try 'warder%s%s --help'.\n", cmd && *cmd ? " " : "", cmd ? cmd : "");
        return CLI_USAGE;
}

void cli_error(const char *cmd, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vreport(cmd, "error", fmt, ap);
        va_end(ap);
}

bool cli_is_help(const char *arg)
{
        return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool cli_parse_u64(const char *s, unsigned long long *out)
{
        if (!s || !*s || *s == '-' || *s == '+')
                return false;
        errno = 0;
        char *end = NULL;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return false;
        *out = v;
        return true;
}

bool cli_parse_seconds_ms(const char *v, double max, uint32_t *out)
{
        char *end = NULL;
        errno = 0;
        double d = strtod(v, &end);
        if (errno || !end || *end || !(d > 0) || d > max)
                return false;
        *out = (uint32_t)(d * 1000 + 0.5);
        return *out > 0;
}

static const struct {
        const char *name;
        size_t offset; /* of a `const char *` in struct cli_common, or of a bool when flag */
        bool flag;
        bool policy; /* changes what is decided or where it is logged: before the command only
                      * for the guarded operations */
} common_options[] = {
    {"--rules", offsetof(struct cli_common, rules), false, true},
    {"--preset", offsetof(struct cli_common, preset), false, true},
    {"--root", offsetof(struct cli_common, root), false, true},
    {"--home", offsetof(struct cli_common, home), false, true},
    {"--audit", offsetof(struct cli_common, audit), false, true},
    {"--json", offsetof(struct cli_common, json), true, false},
    {"--interactive", offsetof(struct cli_common, interactive), true, true},
    {"--approve-token", offsetof(struct cli_common, approve_token), false, true},
    {"--as-user", offsetof(struct cli_common, as_user), false, true},
};

/*
 * Each command's own options that take a value (as a separate argument or after `=`), so
 * that a value is never read as an option or an operand, and whether it is a guarded
 * operation (its operands come from the agent: no policy option after the command's name).
 */
static const struct {
        const char *name;
        const char *values[6];
        bool guarded;
        /* `hook` and `import` name what they answer with a word of their own (`hook
         * claude-code`, `hook install gemini-cli`): up to this many leading words are part of
         * the command, not operands. */
        unsigned words;
        /* `mcp` serves several directories: a `--root` after its name is one more of them. */
        bool roots;
} commands[] = {
    {.name = "match", .values = {NULL}, .guarded = false},
    {.name = "normalize", .values = {"--cwd", NULL}, .guarded = false},
    {.name = "check", .values = {"--real", NULL}, .guarded = false},
    {.name = "explain", .values = {"--real", NULL}, .guarded = false},
    {.name = "lint", .values = {NULL}, .guarded = false},
    {.name = "test", .values = {NULL}, .guarded = false},
    {.name = "read", .values = {"--offset", "--limit", NULL}, .guarded = true},
    {.name = "write", .values = {NULL}, .guarded = true},
    {.name = "edit",
     .values = {"--old", "--new", "--old-file", "--new-file", NULL},
     .guarded = true},
    {.name = "ls", .values = {NULL}, .guarded = true},
    {.name = "glob", .values = {NULL}, .guarded = true},
    {.name = "grep", .values = {"--glob", "--max-matches", "--threads", NULL}, .guarded = true},
    {.name = "exec",
     .values = {"--timeout", "--cwd", "--landlock", "--env", "--pass-env", NULL},
     .guarded = true},
    {.name = "serve",
     .values = {"--timeout", "--landlock", "--approval-ttl", "--max-line", "--max-pending", NULL},
     .guarded = false},
    {.name = "mcp",
     .values = {"--timeout", "--landlock", "--elicitation-timeout", "--max-line", "--max-pending",
                NULL},
     .guarded = false,
     .roots = true},
    {.name = "hook",
     .values = {"--unknown", "--max-scan", "--settings", "--command", NULL},
     .guarded = false,
     .words = 2},
    {.name = "import", .values = {"--anchor", NULL}, .guarded = false, .words = 1},
};

/* How many words after command `which`, from argv[i], name a part of it (`hook install
 * claude-code`: two; `hook claude-code`: one). */
static unsigned command_words(size_t which, int argc, char **argv, int i)
{
        if (which >= ARRAY_SIZE(commands) || !commands[which].words || i >= argc)
                return 0;
        if (strcmp(commands[which].name, "hook") == 0 && strcmp(argv[i], "install") != 0)
                return 1;
        return commands[which].words;
}

/* The common option `arg` names (with its value after '=' in *value), or -1. */
static int common_option(const char *arg, const char **value)
{
        *value = NULL;
        for (size_t k = 0; k < ARRAY_SIZE(common_options); k++) {
                size_t n = strlen(common_options[k].name);
                if (strncmp(arg, common_options[k].name, n) != 0)
                        continue;
                if (arg[n] == '\0')
                        return (int)k;
                if (arg[n] == '=' && !common_options[k].flag) {
                        *value = arg + n + 1;
                        return (int)k;
                }
        }
        return -1;
}

/* Applies common option k at argv[*i] (its value there or in the next argument). */
static int take_common(const char *cmd, int k, const char *value, int argc, char **argv, int *i,
                       struct cli_common *c)
{
        if (c->seen_ & (1u << k))
                return cli_usage(cmd, "option '%s' is given twice", common_options[k].name);
        c->seen_ |= 1u << k;
        char *field = (char *)c + common_options[k].offset;
        if (common_options[k].flag) {
                *(bool *)field = true;
                return 0;
        }
        if (!value) {
                if (*i + 1 >= argc)
                        return cli_usage(cmd, "option '%s' needs a value", common_options[k].name);
                value = argv[++*i];
        }
        *(const char **)field = value;
        return 0;
}

int cli_common_parse(int argc, char **argv, struct cli_common *c, int *command)
{
        int i = 1;
        for (; i < argc; i++) {
                const char *value;
                int k = common_option(argv[i], &value);
                if (k < 0)
                        break;
                int rc = take_common("", k, value, argc, argv, &i, c);
                if (rc)
                        return rc;
        }
        *command = i;
        return 0;
}

int cli_command_args(int argc, char **argv, struct cli_common *c, int *out_argc, char ***out)
{
        const char *cmd = argv[0];
        size_t which = ARRAY_SIZE(commands);
        for (size_t k = 0; k < ARRAY_SIZE(commands); k++)
                if (strcmp(commands[k].name, cmd) == 0)
                        which = k;
        char **v = calloc((size_t)argc + 2, sizeof(*v));
        if (!v) {
                cli_error(cmd, "out of memory");
                return CLI_ERROR;
        }
        int n = 0, i = 1;
        v[n++] = argv[0];
        unsigned words = 0;
        for (; i < argc; i++) {
                const char *arg = argv[i];
                if (arg[0] != '-' && words < command_words(which, argc, argv, 1)) {
                        v[n++] = argv[i]; /* a word of the command's name */
                        words++;
                        continue;
                }
                if (strcmp(arg, "--") == 0 || arg[0] != '-' || arg[1] == '\0') {
                        /* The first operand (or `--`): everything from here is an operand. */
                        if (strcmp(arg, "--") != 0)
                                v[n++] = (char *)"--";
                        break;
                }
                const char *value;
                int k = common_option(arg, &value);
                if (k >= 0 && which < ARRAY_SIZE(commands) && commands[which].roots &&
                    common_options[k].offset == offsetof(struct cli_common, root)) {
                        v[n++] = (char *)"--root"; /* one more directory: the command's own */
                        if (value)
                                v[n++] = (char *)value;
                        else if (i + 1 < argc)
                                v[n++] = argv[++i];
                        continue;
                }
                if (k >= 0) {
                        if (which < ARRAY_SIZE(commands) && commands[which].guarded &&
                            common_options[k].policy) {
                                free(v);
                                return cli_usage(cmd,
                                                 "option '%s' must come before the command: after "
                                                 "it, only the command's own options and --json "
                                                 "are accepted",
                                                 common_options[k].name);
                        }
                        int rc = take_common(cmd, k, value, argc, argv, &i, c);
                        if (rc) {
                                free(v);
                                return rc;
                        }
                        continue;
                }
                v[n++] = argv[i];
                /* A value option of the command keeps its value, whatever it looks like. */
                for (size_t j = 0; which < ARRAY_SIZE(commands) && commands[which].values[j]; j++) {
                        if (strcmp(arg, commands[which].values[j]) == 0 && i + 1 < argc) {
                                v[n++] = argv[++i];
                                break;
                        }
                }
        }
        for (; i < argc; i++)
                v[n++] = argv[i];
        v[n] = NULL;
        if (c->rules && c->preset) {
                free(v);
                return cli_usage(cmd, "--rules and --preset cannot be combined");
        }
        *out = v;
        *out_argc = n;
        return 0;
}

int cli_common_dirs(const struct cli_common *c, char **root, char **home)
{
        char *r = NULL, *h = NULL;
        if (c->root) {
                if (c->root[0] == '/') {
                        r = strdup(c->root);
                } else {
                        char *cwd = getcwd(NULL, 0);
                        if (cwd && asprintf(&r, "%s/%s", cwd, c->root) < 0)
                                r = NULL;
                        free(cwd);
                }
        } else {
                r = getcwd(NULL, 0);
        }
        const char *env_home = getenv("HOME");
        if (c->home)
                h = strdup(c->home);
        else if (env_home && env_home[0] == '/')
                h = strdup(env_home);
        if (!r || (c->home && !h)) {
                cli_error("", "cannot determine the root directory: %s", strerror(errno));
                free(r);
                free(h);
                return CLI_ERROR;
        }
        if (h && h[0] != '/') {
                cli_error("", "--home must be an absolute path: '%s'", h);
                free(r);
                free(h);
                return CLI_USAGE;
        }
        /* Normalise both so that messages and JSON show the forms rules are anchored at. */
        char *nr = NULL, *nh = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_path_normalize(&nr, NULL, "/", NULL, NULL, r, strlen(r), &err);
        if (!rc && h)
                rc = warder_path_normalize(&nh, NULL, "/", NULL, NULL, h, strlen(h), &err);
        free(r);
        free(h);
        if (rc) {
                cli_error("", "%s", err.message);
                warder_error_clear(&err);
                warder_free(nr);
                return CLI_USAGE;
        }
        *root = nr;
        *home = nh;
        return 0;
}

int cli_load_ruleset(const struct cli_common *c, const char *root, const char *home,
                     warder_ruleset **out)
{
        struct warder_ruleset_options opts = WARDER_RULESET_OPTIONS_INIT;
        opts.root = root;
        opts.home = home;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc;
        if (c->rules)
                rc = warder_ruleset_load_file(out, c->rules, &opts, &err);
        else
                rc =
                    warder_ruleset_load_preset(out, c->preset ? c->preset : "default", &opts, &err);
        if (rc) {
                cli_print_load_error(&err, rc);
                warder_error_clear(&err);
                return CLI_USAGE;
        }
        return 0;
}

void cli_print_load_error(const struct warder_error *err, int rc)
{
        const char *msg = err->message[0] ? err->message : warder_strerror(rc);
        if (err->file[0])
                fprintf(stderr, "%s:%u:%u: error: %s\n", err->file, err->line, err->column, msg);
        else
                fprintf(stderr, "warder: error: %s\n", msg);
        remember(warder_status_name(rc), msg);
        snprintf(last_error.file, sizeof(last_error.file), "%s", err->file);
        last_error.line = err->line;
        last_error.column = err->column;
}

void cli_write_safe(FILE *f, const char *s, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)s[i];
                switch (ch) {
                case '\n':
                        fputs("\\n", f);
                        break;
                case '\t':
                        fputs("\\t", f);
                        break;
                case '\r':
                        fputs("\\r", f);
                        break;
                case '\\':
                        fputs("\\\\", f);
                        break;
                default:
                        if (ch < 0x20 || ch == 0x7f)
                                fprintf(f, "\\x%02x", ch);
                        else
                                fputc(ch, f);
                }
        }
}

int cli_action_exit(enum warder_action action)
{
        switch (action) {
        case WARDER_ALLOW:
                return CLI_OK;
        case WARDER_ASK:
                return CLI_ASK;
        case WARDER_DENY:
                return CLI_DENY;
        }
        return CLI_DENY;
}

static void print_str(FILE *f, const char *s)
{
        cli_write_safe(f, s, strlen(s));
}

void cli_print_decision(FILE *f, const char *target, const struct warder_decision *d)
{
        fprintf(f, "%s: %s ", warder_action_name(d->action), warder_op_name(d->op));
        print_str(f, target);
        fputc('\n', f);
        if (d->segment) {
                fputs("  command: ", f);
                print_str(f, d->segment);
                fputc('\n', f);
        }
        if (d->candidate) {
                fprintf(f, "  path:    ");
                print_str(f, d->candidate);
                fprintf(f, " (decided for %s)\n", warder_op_name(d->candidate_op));
        }
        if (d->by_default) {
                fprintf(f, "  no rule matched: the %s default (%s) decided\n",
                        warder_op_name(d->candidate ? d->candidate_op : d->op),
                        warder_action_name(d->action));
        } else if (d->rule_id) {
                fputs("  rule:    ", f);
                print_str(f, d->rule_id);
                fputs(" '", f);
                print_str(f, d->pattern ? d->pattern : "");
                fputs("'", f);
                if (d->form != WARDER_FORM_NONE)
                        fprintf(f, " matched the %s",
                                d->form == WARDER_FORM_BOTH   ? "literal and real forms"
                                : d->form == WARDER_FORM_REAL ? "real form"
                                                              : "literal form");
                fputc('\n', f);
                if (d->file) {
                        fputs("  source:  ", f);
                        print_str(f, d->file);
                        fprintf(f, ":%u:%u\n", d->line, d->column);
                }
        }
        if (d->reason) {
                fputs("  reason:  ", f);
                print_str(f, d->reason);
                fputc('\n', f);
        }
        if (d->note) {
                fputs("  note:    ", f);
                print_str(f, d->note);
                fputc('\n', f);
        }
}
