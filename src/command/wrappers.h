/* SPDX-License-Identifier: MIT */
#ifndef WARDER_COMMAND_WRAPPERS_H
#define WARDER_COMMAND_WRAPPERS_H

/*
 * What command inspection knows of commands by name (§5.3–§5.5): the transparent wrappers
 * (env, sudo, timeout …) and their options, and the table of commands that write, read whole
 * trees, run a shell or take variable names (wrappers.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Expanded view of one word (§5.5). */
struct xword {
        const char *s; /* expanded text (borrowed or owned) */
        size_t len;
        unsigned char *g; /* per byte: 1 when unquoted; NULL when the word is no pattern */
        bool glob;        /* a pattern for pathname expansion (has_glob) */
        char *owned;
        const char *undet; /* why it cannot be determined, or NULL */
};

static inline const char *base_name(const char *s)
{
        const char *slash = strrchr(s, '/');
        return slash ? slash + 1 : s;
}

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

enum warder__wrap { W_NO, W_YES, W_STOP };

/* If word i names a transparent wrapper (§5.3), *next is where the wrapped command starts. */
enum warder__wrap warder__unwrap(const struct xword *x, size_t i, size_t n, size_t *next,
                                 bool *unknown);

/* What inspection knows of a command by its name (§5.3–§5.5). */
enum {
        C_WRITE = 1u << 0,     /* its arguments are written (§5.4) */
        C_TWO_WAY = 1u << 1,   /* mv ln install cp: sources read and written (§5.4) */
        C_DATA = 1u << 2,      /* a data-only builtin (§5.4.2) */
        C_SHELL = 1u << 3,     /* runs the script of -c, or its input (§5.3) */
        C_DECL = 1u << 4,      /* declare and its kin: -i, NAME[…] (§5.5.2) */
        C_NAMES = 1u << 5,     /* takes variable names, NAME[…] (§5.5.2) */
        C_VOPT = 1u << 6,      /* -v NAME[…] (§5.5.2) */
        C_LET = 1u << 7,       /* arithmetic arguments (§5.5.2) */
        C_RECURSIVE = 1u << 8, /* acts on whole trees (§5.4.1) */
};

struct cmd_info {
        const char *name;
        unsigned flags;
        const char *rflags; /* options that make it act on whole trees (§5.4.1) */
};

/* The entry of `cmd`, or an empty one. */
const struct cmd_info *warder__cmd_info(const char *cmd);

#endif
