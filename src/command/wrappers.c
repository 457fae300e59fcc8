/* SPDX-License-Identifier: MIT */
/* The wrapper and command tables of command inspection (wrappers.h). */
#include <stdlib.h>
#include <string.h>

#include "wrappers.h"

struct opts {
        const char *flags;         /* short options without an argument */
        const char *args;          /* short options with an argument */
        const char *const *lflags; /* long options without an argument */
        const char *const *largs;  /* long options with an argument (`--x=v` or `--x v`) */
        bool digits;               /* `-N` numbers (nice) */
};

/* Skips the options of a wrapper from word `j`. Returns the index of the first operand;
 * *unknown is set when an option is not known. */
static size_t skip_opts(const struct xword *x, size_t j, size_t n, const struct opts *o,
                        bool *unknown)
{
        static const char *const none[] = {NULL};
        const char *const *lflags = o->lflags ? o->lflags : none;
        const char *const *largs = o->largs ? o->largs : none;
        while (j < n) {
                const char *w = x[j].s;
                if (!w || w[0] != '-' || w[1] == '\0')
                        return j;
                if (streq(w, "--"))
                        return j + 1;
                if (w[1] == '-') {
                        const char *eq = strchr(w, '=');
                        size_t nlen = eq ? (size_t)(eq - w) : strlen(w);
                        bool ok = false;
                        for (const char *const *l = largs; *l && !ok; l++)
                                if (strlen(*l) == nlen && strncmp(*l, w, nlen) == 0) {
                                        ok = true;
                                        j += eq ? 1 : 2;
                                }
                        for (const char *const *l = lflags; *l && !ok; l++)
                                if (!eq && streq(*l, w)) {
                                        ok = true;
                                        j++;
                                }
                        if (!ok) {
                                *unknown = true;
                                return j;
                        }
                        continue;
                }
                if (o->digits && w[1] >= '0' && w[1] <= '9') {
                        j++;
                        continue;
                }
                size_t k = 1;
                bool consumed_next = false;
                for (; w[k]; k++) {
                        if (o->args && strchr(o->args, w[k])) {
                                if (w[k + 1] == '\0')
                                        consumed_next = true;
                                break;
                        }
                        if (!o->flags || !strchr(o->flags, w[k])) {
                                *unknown = true;
                                return j;
                        }
                }
                j += consumed_next ? 2 : 1;
        }
        return j;
}

static const char *const env_l[] = {"--ignore-environment", "--null", NULL};
static const char *const env_a[] = {"--unset", NULL};
static const char *const nice_a[] = {"--adjustment", NULL};
static const char *const to_l[] = {"--preserve-status", "--foreground", "--verbose", NULL};
static const char *const to_a[] = {"--signal", "--kill-after", NULL};
static const char *const sb_a[] = {"--input", "--output", "--error", NULL};
static const char *const sudo_l[] = {
    "--askpass",         "--background", "--preserve-env", "--set-home",        "--login",
    "--non-interactive", "--shell",      "--stdin",        "--reset-timestamp", NULL};
static const char *const sudo_a[] = {
    "--user", "--group",      "--prompt",       "--close-from",      "--role", "--type",
    "--host", "--other-user", "--preserve-env", "--command-timeout", NULL};

/* What a wrapper takes before the wrapped command, besides its options. */
enum {
        WR_DASHES = 1u << 0,   /* lone `-` words (env: each means -i) */
        WR_DESCRIBE = 1u << 1, /* -v or -V first: it only describes the command, runs nothing */
        WR_OPERAND = 1u << 2,  /* one operand after the options (timeout's DURATION) */
};

/* The transparent wrappers (§5.3): a wrapped command is inspected as if it stood alone. */
static const struct wrapper {
        const char *name;
        struct opts o;
        unsigned takes; /* WR_* */
} wrappers[] = {
    {"env", {.flags = "i0", .args = "u", .lflags = env_l, .largs = env_a}, WR_DASHES},
    {"command", {.flags = "p"}, WR_DESCRIBE},
    {"builtin", {0}, 0},
    {"nohup", {0}, 0},
    {"exec", {.args = "a"}, 0},
    {"nice", {.args = "n", .largs = nice_a, .digits = true}, 0},
    {"timeout", {.flags = "v", .args = "sk", .lflags = to_l, .largs = to_a}, WR_OPERAND},
    {"time", {.flags = "p"}, 0},
    {"stdbuf", {.args = "ioe", .largs = sb_a}, 0},
    {"xargs", {0}, 0},
    {"sudo", {.flags = "AbEHnPSisk", .args = "ugCprtUTch", .lflags = sudo_l, .largs = sudo_a}, 0},
    {"doas", {.args = "u"}, 0},
};

enum warder__wrap warder__unwrap(const struct xword *x, size_t i, size_t n, size_t *next,
                                 bool *unknown)
{
        if (!x[i].s)
                return W_NO;
        const char *name = base_name(x[i].s);
        const struct wrapper *w = NULL;
        for (size_t k = 0; k < sizeof(wrappers) / sizeof(wrappers[0]) && !w; k++)
                if (streq(name, wrappers[k].name))
                        w = &wrappers[k];
        if (!w)
                return W_NO;
        size_t j = i + 1;
        if (w->takes & WR_DASHES)
                while (j < n && x[j].s && streq(x[j].s, "-"))
                        j++;
        if ((w->takes & WR_DESCRIBE) && j < n && x[j].s &&
            (streq(x[j].s, "-v") || streq(x[j].s, "-V")))
                return W_STOP;
        j = skip_opts(x, j, n, &w->o, unknown);
        if (*unknown)
                return W_STOP;
        if (w->takes & WR_OPERAND) {
                if (j >= n)
                        return W_STOP;
                j++;
        }
        if (j >= n)
                return W_STOP;
        *next = j;
        return W_YES;
}

/* Sorted by name (strcmp order) for bsearch. */
static const struct cmd_info commands[] = {
    {":", C_DATA, NULL},
    {"[", C_VOPT, NULL},
    {"[[", C_VOPT, NULL},
    {"ash", C_SHELL, NULL},
    {"bash", C_SHELL, NULL},
    {"chgrp", 0, "R"},
    {"chmod", C_WRITE, "R"},
    {"chown", C_WRITE, "R"},
    {"cp", C_TWO_WAY, "rRa"},
    {"dash", C_SHELL, NULL},
    {"declare", C_DECL, NULL},
    {"echo", C_DATA, NULL},
    {"egrep", 0, "rR"},
    {"export", C_DECL, NULL},
    {"false", C_DATA, NULL},
    {"fgrep", 0, "rR"},
    {"getopts", C_NAMES, NULL},
    {"grep", 0, "rR"},
    {"install", C_WRITE | C_TWO_WAY, NULL},
    {"ksh", C_SHELL, NULL},
    {"let", C_LET, NULL},
    {"ln", C_WRITE | C_TWO_WAY, NULL},
    {"local", C_DECL, NULL},
    {"mapfile", C_NAMES, NULL},
    {"mkdir", C_WRITE, NULL},
    {"mksh", C_SHELL, NULL},
    {"mv", C_WRITE | C_TWO_WAY, NULL},
    {"printf", C_DATA | C_VOPT, NULL},
    {"read", C_NAMES, NULL},
    {"readarray", C_NAMES, NULL},
    {"readonly", C_DECL, NULL},
    {"rm", C_WRITE, "rR"},
    {"rmdir", C_WRITE, NULL},
    {"rsync", C_RECURSIVE, NULL},
    {"sh", C_SHELL, NULL},
    {"tar", C_RECURSIVE, NULL},
    {"tee", C_WRITE, NULL},
    {"test", C_VOPT, NULL},
    {"touch", C_WRITE, NULL},
    {"true", C_DATA, NULL},
    {"truncate", C_WRITE, NULL},
    {"typeset", C_DECL, NULL},
    {"unset", C_NAMES, NULL},
    {"wait", C_NAMES, NULL},
    {"zsh", C_SHELL, NULL},
};

static int cmd_cmp(const void *key, const void *elem)
{
        return strcmp(key, ((const struct cmd_info *)elem)->name);
}

const struct cmd_info *warder__cmd_info(const char *cmd)
{
        static const struct cmd_info none = {"", 0, NULL};
        const struct cmd_info *c =
            cmd ? bsearch(cmd, commands, sizeof(commands) / sizeof(commands[0]),
                          sizeof(commands[0]), cmd_cmp)
                : NULL;
        return c ? c : &none;
}
