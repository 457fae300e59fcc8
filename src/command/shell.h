/* SPDX-License-Identifier: MIT */
#ifndef WARDER_COMMAND_SHELL_H
#define WARDER_COMMAND_SHELL_H

/*
 * A POSIX shell word splitter for command inspection (§5.2, §5.7). Pure: no ruleset, no
 * file system, no environment. It reads a command line the way a shell would far enough to
 * find every simple command (also inside `( … )`, `{ …; }`, `$( … )`, backticks and process
 * substitutions), its words after quote removal, where each word was quoted and which
 * expansions it holds, and its redirections. It never executes or expands anything.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a piece of a word is. The word's text holds every piece verbatim after quote
 * removal (so `"$HOME"/x` has the text `$HOME/x`: a VAR piece then a LIT piece). */
enum warder__sh_piece_kind {
        WARDER__SH_LIT,        /* literal bytes (quoted or not) */
        WARDER__SH_VAR,        /* $NAME or ${NAME}; name_off/name_len locate NAME in the text */
        WARDER__SH_SPECIAL,    /* $?, $1, $@, ${#x}, ${x:-y}, …: never determinable here */
        WARDER__SH_SUBST,      /* $( … ), ` … `, $(( … )): never determinable */
        WARDER__SH_TILDE,      /* ~ at the start of a word or an assignment value (home) */
        WARDER__SH_TILDE_USER, /* ~user, ~+, ~-: never determinable */
};

struct warder__sh_piece {
        uint8_t kind;
        bool quoted;
        uint32_t off, len;           /* span in the word's text */
        uint32_t name_off, name_len; /* VAR only */
};

/* Word flags. */
#define WARDER__SH_W_QUOTED    0x01u /* some byte came from quotes or an escape */
#define WARDER__SH_W_VAR       0x02u /* holds a VAR piece */
#define WARDER__SH_W_SPECIAL   0x04u /* holds a SPECIAL piece */
#define WARDER__SH_W_SUBST     0x08u /* holds a command substitution */
#define WARDER__SH_W_TILDE     0x10u /* holds a TILDE or TILDE_USER piece */
#define WARDER__SH_W_GLOB      0x20u /* an unquoted `*`, `?` or `[` */
#define WARDER__SH_W_BRACE     0x40u /* an unquoted brace expansion `{a,b}` / `{1..3}` */
#define WARDER__SH_W_PROCSUBST 0x80u /* `<( … )` or `>( … )`: names a pipe, not a file */

struct warder__sh_word {
        const char *text; /* NUL-terminated, `len` bytes; $'…' ends at an escaped NUL */
        uint32_t len;
        uint32_t flags;
        uint32_t first_piece, npieces; /* into warder__sh_parse.pieces */
};

enum warder__sh_redir_kind {
        WARDER__SH_R_IN,      /* <, <&file */
        WARDER__SH_R_OUT,     /* >, >>, >|, &>, &>>, >&file */
        WARDER__SH_R_INOUT,   /* <> */
        WARDER__SH_R_DUP,     /* N>&M, N<&M, >&-: no file */
        WARDER__SH_R_HEREDOC, /* <<WORD, <<-WORD: the word is a delimiter */
        WARDER__SH_R_HERESTR, /* <<<WORD: the word is data */
};

struct warder__sh_redir {
        uint8_t kind;
        int fd;        /* explicit descriptor number, or -1 */
        uint32_t word; /* the target, an index into warder__sh_parse.words */
};

/* Operators that end a segment. */
enum warder__sh_op {
        WARDER__SH_OP_END = 0, /* end of a list: input, `)`, `}`, `;;` */
        WARDER__SH_OP_SEMI,    /* ; */
        WARDER__SH_OP_NL,      /* newline */
        WARDER__SH_OP_BG,      /* & */
        WARDER__SH_OP_AND,     /* && */
        WARDER__SH_OP_OR,      /* || */
        WARDER__SH_OP_PIPE,    /* | or |& */
};

/* One simple command. */
struct warder__sh_segment {
        uint32_t first_word, nwords; /* into words; redirection targets are not counted here */
        uint32_t first_redir, nredirs;
        uint32_t scope;    /* the (sub)shell it runs in; scope 0 is the line's own shell */
        uint8_t op_before; /* operator before it at its level (END at the start of a list) */
        uint8_t op_after;  /* operator after it */
        bool ctl;          /* inside if/while/until/for/select/case */
        bool loop;         /* inside while/until/for/select */
};

/* Parse status flags. */
#define WARDER__SH_UNPARSEABLE 0x01u /* unbalanced quotes, unterminated substitution, … */
#define WARDER__SH_LIMIT       0x02u /* a limit stopped the parse early */
#define WARDER__SH_HEREDOC     0x04u /* a here-document whose body may run commands */

struct warder__sh_limits {
        size_t max_len;      /* bytes of input looked at */
        unsigned max_depth;  /* nesting of lists, substitutions and parameter braces */
        size_t max_words;    /* words and redirection targets together */
        size_t max_segments; /* simple commands */
};

#define WARDER__SH_LIMITS_DEFAULT                                                                  \
        {                                                                                          \
                64 * 1024, 32, 4096, 1024                                                          \
        }

struct warder__sh_arena;

/* An arithmetic context (§5.5.2): text a shell evaluates as an arithmetic expression, where
 * the value of every variable it names is evaluated in turn — the body of `$(( … ))`,
 * `$[ … ]` and `(( … ))` (also `for (( … ))`), an array subscript `${a[ … ]}`, and the offset
 * and length of `${x: … }`. Substitutions inside are segments like any other. */
struct warder__sh_arith {
        const char *text; /* NUL-terminated, `len` bytes, as written */
        uint32_t len;
};

struct warder__sh_parse {
        struct warder__sh_segment *segments;
        size_t nsegments, cap_segments;
        struct warder__sh_word *words;
        size_t nwords, cap_words;
        struct warder__sh_piece *pieces;
        size_t npieces, cap_pieces;
        struct warder__sh_redir *redirs;
        size_t nredirs, cap_redirs;
        struct warder__sh_arith *arith;
        size_t narith, cap_arith;
        uint32_t nscopes;
        uint32_t *scope_parent; /* parent of each scope (scope 0: 0) */
        size_t cap_scopes;
        unsigned status; /* WARDER__SH_* flags */
        const char *why; /* static text for the first status flag, or NULL */
        size_t offset;   /* where in the input the problem was noticed */
        struct warder__sh_arena *arena;
};

/*
 * Splits `s` (`len` bytes). Returns 0 (syntax problems and limits are reported in
 * p->status, and everything read before them is kept) or WARDER_ENOMEM. `lim` may be NULL
 * for the defaults. Release with warder__sh_parse_free() in every case.
 */
int warder__sh_parse(struct warder__sh_parse *p, const char *s, size_t len,
                     const struct warder__sh_limits *lim);
void warder__sh_parse_free(struct warder__sh_parse *p);

#endif
