/* SPDX-License-Identifier: MIT */
/* warder hook AGENT, warder hook install AGENT, warder import claude-code (docs/hooks.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hook/hook.h"

static void hook_help(void)
{
        printf("Usage: warder hook AGENT [--rules FILE | --preset NAME] [--root DIR] [--home DIR]\n"
               "                   [--audit FILE] [--unknown allow|ask|deny] [--ask-as-deny]\n"
               "                   [--max-scan N]\n"
               "       warder hook install AGENT [--project | --user] [--settings FILE]\n"
               "                   [--rules FILE | --preset NAME] [--command CMD] [--write]\n"
               "\n"
               "AGENT is claude-code (its PreToolUse hook) or gemini-cli (its BeforeTool hook).\n"
               "warder hook reads one event as JSON on stdin and answers the agent: allow, ask\n"
               "or deny with a reason naming the rule, or no opinion for a tool warder does not\n"
               "know (--unknown decides those instead). Paths are decided on both forms and\n"
               "commands inspected as warder check does; a listing, glob or search is decided\n"
               "on everything it can reach, since a hook cannot filter the agent's own tool\n"
               "(semantics §9). The root of the rules is --root, else the agent's project\n"
               "directory variable, else the event's cwd. A malformed event, an unknown event\n"
               "name, a ruleset that does not load and any internal error answer deny.\n"
               "\n"
               "  --unknown ACTION   answer for tools warder does not know (default: no opinion)\n"
               "  --ask-as-deny      answer deny where the rules say ask (agents that cannot ask)\n"
               "  --max-scan N       entries one call may examine in a scope (default %u)\n"
               "\n"
               "warder hook install prints the agent's settings with the hook registered for\n"
               "every tool (the project's .claude/ or .gemini/settings.json, or with --user the\n"
               "one in your home), keeping everything already there; --write writes it back\n"
               "atomically. It refuses a settings file it cannot parse.\n"
               "\n"
               "Exit status (warder hook): 0 allow, ask or no opinion (the answer is the JSON on\n"
               "stdout), 2 deny (the reason also on stderr), as both agents document.\n"
               "\n" CLI_SECTIONS_NOTE,
               WARDER_HOOK_MAX_SCAN);
}

static void import_help(void)
{
        printf("Usage: warder import claude-code SETTINGS.json [--anchor DIR]\n"
               "\n"
               "Print a warder ruleset (YAML) made of Claude Code's permissions.allow, ask and\n"
               "deny rules: Read(...) becomes read rules, Edit(...) edit and write rules,\n"
               "Bash(...) execute rules, with precedence strictest as Claude Code decides\n"
               "(deny, then ask, then allow). Every entry that cannot be translated exactly is\n"
               "reported on stderr, and left out or translated more strictly. `/path` rules\n"
               "are anchored where Claude Code anchors them for that file (the project for\n"
               ".claude/settings.json, ~/.claude for the user's), or at --anchor DIR.\n"
               "\n"
               "Exit status: 0 printed, 2 usage error, 4 the file cannot be read or parsed.\n");
}

/* ---- reading -------------------------------------------------------------------------------- */

/* Reads all of fd, at most `max` bytes (+1 to tell it was more). */
static int read_all(int fd, size_t max, char **out, size_t *len)
{
        size_t cap = 64 * 1024, n = 0;
        char *buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (n == cap) {
                        if (cap > max) {
                                break;
                        }
                        size_t nc = cap * 2;
                        char *nb = realloc(buf, nc);
                        if (!nb) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = nb;
                        cap = nc;
                }
                ssize_t r = read(fd, buf + n, cap - n);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        int e = errno;
                        free(buf);
                        return -e;
                }
                if (r == 0)
                        break;
                n += (size_t)r;
        }
        *out = buf;
        *len = n;
        return 0;
}

static void write_all(int fd, const char *s, size_t n)
{
        while (n > 0) {
                ssize_t w = write(fd, s, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;
                s += w;
                n -= (size_t)w;
        }
}

/* An absolute spelling of `path` (relative to the current directory); free(). */
static char *absolute(const char *path)
{
        if (path[0] == '/')
                return strdup(path);
        char *cwd = getcwd(NULL, 0), *out = NULL;
        if (cwd && asprintf(&out, "%s/%s", cwd, path) < 0)
                out = NULL;
        free(cwd);
        return out;
}

static bool parse_action(const char *s, enum warder_action *a)
{
        return warder_action_parse(s, a) == 0;
}

/* ---- warder hook AGENT -------------------------------------------------------------------- */

static int run_hook(const struct warder_hook_protocol *p, int argc, char **argv,
                    struct cli_common *c)
{
        struct warder_hook_config cfg = {.protocol = p};
        for (int i = 2; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--ask-as-deny") == 0) {
                        cfg.ask_as_deny = true;
                } else if (strcmp(arg, "--unknown") == 0 && i + 1 < argc) {
                        if (!parse_action(argv[++i], &cfg.unknown))
                                return cli_usage("hook", "--unknown takes allow, ask or deny");
                        cfg.unknown_set = true;
                } else if (strcmp(arg, "--max-scan") == 0 && i + 1 < argc) {
                        unsigned long long n = 0;
                        if (!cli_parse_u64(argv[++i], &n) || n == 0 || n > 10000000)
                                return cli_usage("hook", "--max-scan needs 1 to 10000000");
                        cfg.max_scan = (size_t)n;
                } else {
                        return cli_usage("hook", "unknown %s '%s'",
                                         arg[0] == '-' ? "option (or missing value)" : "argument",
                                         arg);
                }
        }
        if (c->json || c->interactive || c->approve_token)
                return cli_usage("hook", "--json, --interactive and --approve-token do not apply: "
                                         "the agent asks its user");
        /* An agent that goes away is not a reason to die by a signal. */
        signal(SIGPIPE, SIG_IGN);
        char *root = c->root ? absolute(c->root) : NULL;
        const char *env_home = getenv("HOME");
        const char *project = getenv(p->project_env);
        cfg.source.kind = c->rules ? WARDER_SESSION_FILE : WARDER_SESSION_PRESET;
        cfg.source.value = c->rules ? c->rules : c->preset;
        cfg.root = root;
        cfg.project_dir = project && project[0] == '/' ? project : NULL;
        cfg.home = c->home ? c->home : env_home && env_home[0] == '/' ? env_home : NULL;
        char *event = NULL;
        size_t len = 0;
        int rrc = read_all(STDIN_FILENO, WARDER_HOOK_MAX_EVENT, &event, &len);
        FILE *audit = NULL;
        struct warder_hook_answer ans;
        int rc = 0;
        if (rrc || (c->root && !root) || (c->audit && !(audit = fopen(c->audit, "ae")))) {
                /* nothing was decided: answer a deny that says what broke */
                char msg[512];
                snprintf(msg, sizeof(msg), "warder: deny: %s",
                         rrc                ? "cannot read the event from stdin"
                         : c->root && !root ? "cannot use --root"
                                            : "cannot open the audit file");
                memset(&ans, 0, sizeof(ans));
                rc = p->encode(WARDER_HOOK_DENY, msg, &ans);
        } else {
                cfg.audit = audit;
                rc = warder_hook_decide(&cfg, event, len, &ans);
        }
        int code = ans.exit_code;
        if (rc == WARDER_ENOMEM && !ans.err) {
                write_all(STDERR_FILENO, warder_hook_nomem_reason,
                          strlen(warder_hook_nomem_reason));
                write_all(STDERR_FILENO, "\n", 1);
                code = 2;
        } else {
                write_all(STDOUT_FILENO, ans.out, ans.out_len);
                write_all(STDERR_FILENO, ans.err, ans.err_len);
        }
        warder_hook_answer_free(&ans);
        if (audit)
                fclose(audit);
        free(event);
        free(root);
        return code;
}

/* ---- warder hook install AGENT ------------------------------------------------------------ */

/* `s` quoted for sh when it needs it. */
static void shell_word(FILE *f, const char *s)
{
        if (s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                              "_./:=+-@%,") == strlen(s)) {
                fputs(s, f);
                return;
        }
        fputc('\'', f);
        for (; *s; s++) {
                if (*s == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*s, f);
        }
        fputc('\'', f);
}

/* Writes `text` to `path` atomically: a temporary file beside it, fsync, rename. */
static int write_atomically(const char *path, const char *text, size_t len, mode_t mode)
{
        char *tmp = NULL;
        if (asprintf(&tmp, "%s.warder-XXXXXX", path) < 0)
                return -ENOMEM;
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                int e = errno;
                free(tmp);
                return -e;
        }
        int e = 0;
        if (fchmod(fd, mode) != 0)
                e = errno;
        for (size_t off = 0; !e && off < len;) {
                ssize_t w = write(fd, text + off, len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        e = w < 0 ? errno : EIO;
                else
                        off += (size_t)w;
        }
        if (!e && fsync(fd) != 0)
                e = errno;
        if (close(fd) != 0 && !e)
                e = errno;
        if (!e && rename(tmp, path) != 0)
                e = errno;
        if (e)
                unlink(tmp);
        free(tmp);
        return -e;
}

static int run_install(int argc, char **argv, struct cli_common *c)
{
        if (argc < 3)
                return cli_usage("hook", "install needs an agent: claude-code or gemini-cli");
        const struct warder_hook_protocol *p = warder_hook_protocol_find(argv[2]);
        if (!p)
                return cli_usage("hook", "unknown agent '%s' (claude-code, gemini-cli)", argv[2]);
        bool user = false, write_it = false;
        const char *settings = NULL, *command = NULL, *unknown = NULL, *max_scan = NULL;
        bool ask_as_deny = false;
        for (int i = 3; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--project") == 0) {
                        user = false;
                } else if (strcmp(arg, "--user") == 0) {
                        user = true;
                } else if (strcmp(arg, "--write") == 0) {
                        write_it = true;
                } else if (strcmp(arg, "--ask-as-deny") == 0) {
                        ask_as_deny = true;
                } else if (strcmp(arg, "--settings") == 0 && i + 1 < argc) {
                        settings = argv[++i];
                } else if (strcmp(arg, "--command") == 0 && i + 1 < argc) {
                        command = argv[++i];
                } else if (strcmp(arg, "--unknown") == 0 && i + 1 < argc) {
                        enum warder_action a;
                        unknown = argv[++i];
                        if (!parse_action(unknown, &a))
                                return cli_usage("hook", "--unknown takes allow, ask or deny");
                } else if (strcmp(arg, "--max-scan") == 0 && i + 1 < argc) {
                        max_scan = argv[++i];
                } else {
                        return cli_usage("hook", "unknown %s '%s'",
                                         arg[0] == '-' ? "option (or missing value)" : "argument",
                                         arg);
                }
        }
        if (c->json || c->interactive || c->approve_token)
                return cli_usage("hook", "install: --json, --interactive and --approve-token do "
                                         "not apply");
        /* the rules, loaded once here so that a broken file is caught before it is installed */
        char *root = NULL, *home = NULL;
        int rc = cli_common_dirs(c, &root, &home);
        if (rc)
                return rc;
        warder_ruleset *rs = NULL;
        if ((rc = cli_load_ruleset(c, root, home, &rs))) {
                free(root);
                free(home);
                return rc;
        }
        warder_ruleset_free(rs);
        char *rules = c->rules ? absolute(c->rules) : NULL;
        char *self = NULL;
        if (!command) {
                char buf[PATH_MAX];
                ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
                if (n > 0) {
                        buf[n] = '\0';
                        self = strdup(buf);
                }
        }
        char *path = NULL;
        if (settings)
                path = strdup(settings);
        else if (user && home)
                rc = asprintf(&path, "%s/%s/settings.json", home, p->settings_dir) < 0 ? -1 : 0;
        else if (!user)
                rc = asprintf(&path, "%s/%s/settings.json", root, p->settings_dir) < 0 ? -1 : 0;
        /* the command line the agent runs */
        char *cmd = NULL;
        size_t cmd_len = 0;
        FILE *f = open_memstream(&cmd, &cmd_len);
        if (f) {
                shell_word(f, command ? command : self ? self : "warder");
                fprintf(f, " hook %s", p->name);
                if (rules) {
                        fputs(" --rules ", f);
                        shell_word(f, rules);
                } else if (c->preset) {
                        fputs(" --preset ", f);
                        shell_word(f, c->preset);
                }
                if (c->root) {
                        fputs(" --root ", f);
                        shell_word(f, root);
                }
                if (unknown)
                        fprintf(f, " --unknown %s", unknown);
                if (ask_as_deny)
                        fputs(" --ask-as-deny", f);
                if (max_scan) {
                        fputs(" --max-scan ", f);
                        shell_word(f, max_scan);
                }
                fclose(f);
        }
        int code = CLI_OK;
        json_t *doc = NULL;
        char *text = NULL;
        struct stat st;
        mode_t mode = 0644;
        if (!path || !cmd || rc) {
                cli_error("hook", user ? "cannot determine the home directory" : "out of memory");
                code = CLI_ERROR;
                goto out;
        }
        if (stat(path, &st) == 0) {
                json_error_t jerr;
                mode = st.st_mode & 07777;
                doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
                if (!doc) {
                        cli_error("hook", "%s:%d:%d: cannot parse the settings (%s); not changed",
                                  path, jerr.line, jerr.column, jerr.text);
                        code = CLI_ERROR;
                        goto out;
                }
        } else if (errno != ENOENT) {
                cli_error("hook", "cannot read %s: %s", path, strerror(errno));
                code = CLI_ERROR;
                goto out;
        } else {
                doc = json_object();
        }
        bool changed = false;
        const char *why = NULL;
        rc = doc ? warder_hook_settings_merge(p, doc, cmd, &changed, &why) : WARDER_ENOMEM;
        if (rc) {
                cli_error("hook", "%s: %s; not changed", path, why ? why : "out of memory");
                code = CLI_ERROR;
                goto out;
        }
        text = json_dumps(doc, JSON_INDENT(2));
        if (!text) {
                cli_error("hook", "out of memory");
                code = CLI_ERROR;
                goto out;
        }
        if (!write_it) {
                printf("%s\n", text);
                fflush(stdout); /* before the note on stderr, in order on a shared terminal */
                fprintf(stderr, "warder hook install: %s %s (add --write to write it)\n",
                        changed ? "this is what would be written to" : "nothing to change in",
                        path);
                goto out;
        }
        if (!changed) {
                fprintf(stderr, "warder hook install: %s already runs this hook\n", path);
                goto out;
        }
        char *slash = strrchr(path, '/');
        if (slash && slash != path) {
                *slash = '\0';
                if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                        cli_error("hook", "cannot create %s: %s", path, strerror(errno));
                        code = CLI_ERROR;
                        goto out;
                }
                *slash = '/';
        }
        char *line = NULL;
        int wrc = asprintf(&line, "%s\n", text) < 0
                      ? -ENOMEM
                      : write_atomically(path, line, strlen(line), mode);
        free(line);
        if (wrc) {
                cli_error("hook", "cannot write %s: %s", path, strerror(-wrc));
                code = CLI_ERROR;
                goto out;
        }
        fprintf(stderr, "warder hook install: wrote %s\n", path);
out:
        free(text);
        json_decref(doc);
        free(cmd);
        free(path);
        free(self);
        free(rules);
        free(root);
        free(home);
        return code;
}

int cli_cmd_hook(int argc, char **argv, struct cli_common *c)
{
        if (argc < 2)
                return cli_usage("hook", "expected an agent (claude-code, gemini-cli) or install");
        if (cli_is_help(argv[1])) {
                hook_help();
                return CLI_OK;
        }
        for (int i = 2; i < argc; i++)
                if (cli_is_help(argv[i])) {
                        hook_help();
                        return CLI_OK;
                }
        if (strcmp(argv[1], "install") == 0)
                return run_install(argc, argv, c);
        const struct warder_hook_protocol *p = warder_hook_protocol_find(argv[1]);
        if (!p)
                return cli_usage("hook", "unknown agent '%s' (claude-code, gemini-cli)", argv[1]);
        return run_hook(p, argc, argv, c);
}

/* ---- warder import claude-code ------------------------------------------------------------ */

struct notes {
        size_t count;
};

static void print_note(void *ud, const char *list, const char *entry, const char *why)
{
        struct notes *n = ud;
        n->count++;
        fprintf(stderr, "warder import: permissions.%s ", list);
        if (entry[0]) {
                fputc('\'', stderr);
                cli_write_safe(stderr, entry, strlen(entry));
                fputs("' ", stderr);
        }
        fprintf(stderr, "%s\n", why);
}

/* Where Claude Code anchors `/path` rules of the settings file `path`. */
static char *anchor_of(const char *path)
{
        char *abs = absolute(path);
        if (!abs)
                return NULL;
        char *slash = strrchr(abs, '/');
        if (slash)
                *slash = '\0'; /* the file's directory */
        size_t n = strlen(abs);
        const char *home = getenv("HOME");
        if (n >= 8 && strcmp(abs + n - 8, "/.claude") == 0) {
                abs[n - 8] = '\0'; /* the project, which holds .claude/ */
                bool user = home && strcmp(abs, home) == 0;
                if (user)
                        abs[n - 8] = '/'; /* user settings anchor at ~/.claude */
                if (!abs[0])
                        strcpy(abs, "/");
        }
        return abs;
}

int cli_cmd_import(int argc, char **argv, struct cli_common *c)
{
        const char *file = NULL, *anchor = NULL;
        for (int i = 1; i < argc; i++) {
                if (cli_is_help(argv[i])) {
                        import_help();
                        return CLI_OK;
                }
        }
        if (argc < 2 || strcmp(argv[1], "claude-code") != 0)
                return cli_usage("import", "expected: import claude-code SETTINGS.json");
        for (int i = 2; i < argc; i++) {
                if (strcmp(argv[i], "--anchor") == 0 && i + 1 < argc)
                        anchor = argv[++i];
                else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !file)
                        file = argv[++i];
                else if (argv[i][0] == '-' && strcmp(argv[i], "-") != 0)
                        return cli_usage("import", "unknown option '%s'", argv[i]);
                else if (!file)
                        file = argv[i];
                else
                        return cli_usage("import", "one settings file at a time");
        }
        if (!file)
                return cli_usage("import", "expected a settings file");
        if (c->json)
                return cli_usage("import", "--json does not apply: the output is YAML");
        json_error_t jerr;
        json_t *doc = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc) {
                cli_error("import", "%s:%d:%d: %s", file, jerr.line, jerr.column, jerr.text);
                return CLI_ERROR;
        }
        char *anc = anchor ? absolute(anchor) : anchor_of(file);
        char *yaml = NULL;
        const char *why = NULL;
        struct notes notes = {0};
        int rc = anc ? warder_hook_import_claude(doc, anc, &yaml, print_note, &notes, &why)
                     : WARDER_ENOMEM;
        json_decref(doc);
        free(anc);
        if (rc) {
                cli_error("import", "%s: %s", file, why ? why : "out of memory");
                return CLI_ERROR;
        }
        fputs(yaml, stdout);
        fflush(stdout);
        free(yaml);
        if (notes.count)
                fprintf(stderr, "warder import: %zu %s reported above\n", notes.count,
                        notes.count == 1 ? "entry" : "entries");
        return CLI_OK;
}
