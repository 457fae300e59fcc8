/* SPDX-License-Identifier: MIT */
/* The core matcher (semantics §2.1–§2.10, §2.13), command patterns (§5.1), `warder match`.
 * git's wildmatch vectors (§2.9) are a test of their own: test-wildmatch-vectors.c. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "glob/glob-impl.h"
#include "glob/glob-internal.h"
#include "glob-match.h"
#include "support.h"
#include "warder/warder.h"

extern char **environ;

#define FOLD WARDER_GLOB_FOLD_CASE
#define CMD  WARDER_GLOB_COMMAND
#define NOBR WARDER_GLOB_NO_BRACES

/* ---- table tests ---- */

static const struct {
        const char *pat, *path;
        unsigned flags;
        int want;
} table[] = {
    /* §2.1 bytes; §2.2 `*` stays in one component, a leading dot is not special */
    {"*", ".env", 0, 1},
    {"*.c", ".c", 0, 1},
    {"**/*.key", ".hidden.key", 0, 1},
    {"**/*.key", "a/b/.hidden.key", 0, 1},
    {"*", "a/b", 0, 0},
    {"a*", "a", 0, 1},
    {"*\xc3\xa9", "caf\xc3\xa9", 0, 1},
    {"\xff?", "\xff\x80", 0, 1},
    /* §2.3 `?` is one byte, never `/` */
    {"a?c", "abc", 0, 1},
    {"a?c", "a/c", 0, 0},
    {"a?c", "ac", 0, 0},
    {"??", "\xc3\xa9", 0, 1},
    /* §2.4 `**` */
    {"**", "", 0, 1},
    {"**", "a/b/c", 0, 1},
    {"**", "/", 0, 1},
    {"**/a", "a", 0, 1},
    {"**/a", "x/y/a", 0, 1},
    {"**/a", "/a", 0, 1},
    {"**/a", "x/ya", 0, 0},
    {"a/**/b", "a/b", 0, 1},
    {"a/**/b", "a/x/y/b", 0, 1},
    {"a/**/b", "a/xb", 0, 0},
    {"/**/a", "/a", 0, 1},
    {"/**/a", "/x/a", 0, 1},
    {"foo/**", "foo", 0, 0},
    {"foo/**", "foo/", 0, 1},
    {"foo/**", "foo/x/y", 0, 1},
    {"a/***/b", "a/x/y/b", 0, 1},
    {"***", "a/b", 0, 1},
    {"**.c", "a.c", 0, 1},
    {"**.c", "x/a.c", 0, 0},
    {"a**b", "axyb", 0, 1},
    {"a**b", "ax/yb", 0, 0},
    {"a/**b", "a/x/b", 0, 0},
    {"a\\/**\\/b", "a/x/b", 0, 1},
    {"a\\/b", "a/b", 0, 1},
    {"**/**/**/x", "a/b/x", 0, 1},
    {"**/**/**/x", "x", 0, 1},
    {"a/**/**", "a/", 0, 1},
    {"**/", "a/", 0, 1},
    {"**/", "a", 0, 0},
    {"**/b/**/d", "a/b/c/d", 0, 1},
    {"**/b/**/d", "b/d", 0, 1},
    {"**/b/**/d", "a/b/c", 0, 0},
    {"**/b/c/**", "a/b/c/d", 0, 1},
    {"**/b/c/**", "b/b/c/", 0, 1},
    {"**/b/c/**", "b/x/c/d", 0, 0},
    {"*/**/*", "a/b", 0, 1},
    {"*/**/*", "a", 0, 0},
    /* §2.5 classes */
    {"[abc]", "b", 0, 1},
    {"[abc]", "d", 0, 0},
    {"[!abc]", "d", 0, 1},
    {"[^abc]", "a", 0, 0},
    {"[]]", "]", 0, 1},
    {"[!]]", "]", 0, 0},
    {"[!]]", "x", 0, 1},
    {"[-a]", "-", 0, 1},
    {"[a-]", "-", 0, 1},
    {"[a-c]", "b", 0, 1},
    {"[a-c]", "-", 0, 0},
    {"[\\]]", "]", 0, 1},
    {"[\\\\]", "\\", 0, 1},
    {"[a\\-z]", "-", 0, 1},
    {"[a\\-z]", "m", 0, 0},
    {"a[/]b", "a/b", 0, 0},
    {"a[!x]b", "a/b", 0, 0},
    {"[[:alpha:]]", "q", 0, 1},
    {"[[:alpha:]]", "1", 0, 0},
    {"[[:alnum:]]", "7", 0, 1},
    {"[[:blank:]]", "\t", 0, 1},
    {"[[:blank:]]", "\n", 0, 0},
    {"[[:cntrl:]]", "\x7f", 0, 1},
    {"[[:digit:]]", "5", 0, 1},
    {"[[:graph:]]", " ", 0, 0},
    {"[[:graph:]]", "~", 0, 1},
    {"[[:lower:]]", "a", 0, 1},
    {"[[:lower:]]", "A", 0, 0},
    {"[[:print:]]", " ", 0, 1},
    {"[[:punct:]]", "!", 0, 1},
    {"[[:punct:]]", "a", 0, 0},
    {"[[:punct:]]", "/", 0, 0},
    {"[[:space:]]", "\v", 0, 1},
    {"[[:upper:]]", "Q", 0, 1},
    {"[[:xdigit:]]", "F", 0, 1},
    {"[[:xdigit:]]", "g", 0, 0},
    {"[[:alpha:]]", "\xe9", 0, 0},
    {"[![:digit:]]", "a", 0, 1},
    {"[[:digit:]-]", "-", 0, 1},
    {"[\x80-\xff]", "\xc3", 0, 1},
    /* §2.6 braces */
    {"{a,b}", "a", 0, 1},
    {"{a,b}", "b", 0, 1},
    {"{a,b}", "c", 0, 0},
    {"*.{c,h}", "x.h", 0, 1},
    {"a{,bc}", "a", 0, 1},
    {"a{,bc}", "abc", 0, 1},
    {"a{,bc}", "ab", 0, 0},
    {"{a}", "{a}", 0, 1},
    {"{a}", "a", 0, 0},
    {"{}", "{}", 0, 1},
    {"{a,{b,c}d}", "cd", 0, 1},
    {"{a,{b}}", "{b}", 0, 1},
    {"{a,[}]}", "}", 0, 1},
    {"{a,[,]}", ",", 0, 1},
    {"{src,lib}/**/*.c", "lib/x/y.c", 0, 1},
    {"{/etc,/var}/**", "/var/log/x", 0, 1},
    {"{**/.env,*.pem}", "a/b/.env", 0, 1},
    {"{a,b}{c,d}", "bd", 0, 1},
    {"\\{a,b\\}", "{a,b}", 0, 1},
    {"{a\\,b}", "{a,b}", 0, 1},
    {"{a,b}", "{a,b}", NOBR, 1},
    {"{a,b}", "a", NOBR, 0},
    /* §2.7 escapes */
    {"\\*", "*", 0, 1},
    {"\\*", "a", 0, 0},
    {"\\?", "?", 0, 1},
    {"\\[a]", "[a]", 0, 1},
    {"\\a\\b", "ab", 0, 1},
    {"\\\\", "\\", 0, 1},
    /* §2.1 newline is an ordinary byte; the end anchor is the true end */
    {"foo", "foo\n", 0, 0},
    {"foo*", "foo\n", 0, 1},
    {"a?b", "a\nb", 0, 1},
    {"*", "a\nb", 0, 1},
    {"[[:space:]]", "\n", 0, 1},
    {"foo\n", "foo\n", 0, 1},
    {"a/**", "a/\n/x", 0, 1},
    /* §2.8 case folding: both sides, in classes and after escapes */
    {"[A]", "a", FOLD, 1},
    {"\\A", "a", FOLD, 1},
    {"[a-c]", "B", FOLD, 1},
    {"[A-C]", "b", FOLD, 1},
    {"[!s]*", "Secret", FOLD, 0},
    {"[!s]*", "Secret", 0, 1},
    {"*.ENV", "x.env", FOLD, 1},
    {"*.ENV", "x.env", 0, 0},
    {"[[:lower:]]", "Q", FOLD, 1},
    {"[[:upper:]]", "q", FOLD, 1},
    {"\xc3\x89", "\xc3\xa9", FOLD, 0},
    {"[Z-a]", "z", FOLD, 1},
    {"[^a-z]", "Q", FOLD, 0},
    /* §5.1 command patterns */
    {"git *", "git", CMD, 1},
    {"git *", "git status", CMD, 1},
    {"git *", "gitk", CMD, 0},
    {"git\\ *", "git", CMD, 0},
    {"git\\ *", "git x", CMD, 1},
    {"git **", "git", CMD, 1},
    {"  git   status  ", "git status", CMD, 1},
    {"git\tstatus", "git status", CMD, 1},
    {"git status", "git  status", CMD, 0},
    {"git\\ \\ status", "git  status", CMD, 1},
    {"git[ ]status", "git status", CMD, 1},
    {"rm -rf /*", "rm -rf /home/user", CMD, 1},
    {"rm -rf /*", "rm -rf /", CMD, 1},
    {"rm -rf /", "rm -rf /home", CMD, 0},
    {"mkfs*", "mkfs.ext4 /dev/sda1", CMD, 1},
    {"dd if=*of=/dev/*", "dd if=/dev/zero of=/dev/sda", CMD, 1},
    {"cat ?etc?passwd", "cat /etc/passwd", CMD, 1},
    {"cat [/]etc*", "cat /etc/passwd", CMD, 1},
    {":(){:|:&};:", ":(){:|:&};:", CMD, 1},
    {"echo {a,b}", "echo {a,b}", CMD, 1},
    {"echo {a,b}", "echo a", CMD, 0},
    {"GIT *", "git push", CMD | FOLD, 1},
    {"git * --force", "git push --force", CMD, 1},
    {"git push*", "git status; git push", CMD, 0},
    {"*git push*", "git status; git push", CMD, 1},
    {"*", "", CMD, 1},
    {"", "", CMD, 1},
    {"   ", "", CMD, 1},
    {"a*b*c", "a\nb\nc", CMD, 1},
    /* §2.1 empty pattern (the rule layer rejects it; the core matches only "") */
    {"", "", 0, 1},
    {"", "a", 0, 0},
};

START_TEST(table_cases)
{
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(table); i++) {
                int got = match(table[i].pat, table[i].path, table[i].flags);
                ck_assert_msg(got == table[i].want,
                              "pattern '%s' path '%s' flags %u: got %d want %d", table[i].pat,
                              table[i].path, table[i].flags, got, table[i].want);
        }
}
END_TEST

/* ---- every compile error with its offset ---- */

static const struct {
        const char *pat;
        unsigned flags;
        int code;
        long offset;
        const char *msg;
} errors[] = {
    {"ab[cd", 0, WARDER_EPARSE, 2, "unclosed '['"},
    {"[", 0, WARDER_EPARSE, 0, "unclosed '['"},
    {"[]", 0, WARDER_EPARSE, 0, "unclosed '['"},
    {"[!]", 0, WARDER_EPARSE, 0, "unclosed '['"},
    {"x[[:alpha:]", 0, WARDER_EPARSE, 1, "unclosed '['"},
    {"x[[:alpha", 0, WARDER_EPARSE, 1, "unclosed '['"},
    {"a[[:foo:]]", 0, WARDER_EPARSE, 2, "unknown character class '[:foo:]'"},
    {"[[::]]", 0, WARDER_EPARSE, 1, "empty character class name"},
    {"[a[:Alpha:]]", 0, WARDER_EPARSE, 2, "unknown character class"},
    {"a[z-a]", 0, WARDER_EPARSE, 2, "reversed range 'z-a'"},
    {"[ab\\z-\\a]", 0, WARDER_EPARSE, 3, "reversed range"},
    {"{a,b", 0, WARDER_EPARSE, 0, "unclosed '{'"},
    {"x{a,{b,c}", 0, WARDER_EPARSE, 1, "unclosed '{'"},
    {"a}", 0, WARDER_EPARSE, 1, "unmatched '}'"},
    {"{a,b}}", 0, WARDER_EPARSE, 5, "unmatched '}'"},
    {"{[,]", 0, WARDER_EPARSE, 0, "unclosed '{'"},
    {"\\{a,b}", 0, WARDER_EPARSE, 5, "unmatched '}'"},
    {"abc\\", 0, WARDER_EPARSE, 3, "trailing '\\'"},
    {"[a\\", 0, WARDER_EPARSE, 2, "trailing '\\'"},
    {"{a,b\\", 0, WARDER_EPARSE, 4, "trailing '\\'"},
    {"git \\", CMD, WARDER_EPARSE, 4, "trailing '\\'"},
    {"[z-a]", CMD, WARDER_EPARSE, 1, "reversed range"},
    {"[z-a]", NOBR, WARDER_EPARSE, 1, "reversed range"},
};

START_TEST(compile_errors)
{
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(errors); i++) {
                warder_glob *g = (warder_glob *)&g; /* must stay untouched on failure */
                warder_glob *const before = g;
                struct warder_error err = WARDER_ERROR_INIT;
                int rc = warder_glob_compile(&g, errors[i].pat, strlen(errors[i].pat),
                                             errors[i].flags, &err);
                ck_assert_msg(rc == errors[i].code, "'%s': rc %d", errors[i].pat, rc);
                ck_assert_ptr_eq(g, before);
                ck_assert_int_eq(err.code, rc);
                ck_assert_msg(err.offset == errors[i].offset, "'%s': offset %ld want %ld (%s)",
                              errors[i].pat, err.offset, errors[i].offset, err.message);
                ck_assert_msg(strstr(err.message, errors[i].msg), "'%s': message '%s'",
                              errors[i].pat, err.message);
                warder_error_clear(&err);
                /* the same without an error object */
                ck_assert_int_eq(warder_glob_compile(&g, errors[i].pat, strlen(errors[i].pat),
                                                     errors[i].flags, NULL),
                                 errors[i].code);
        }
}
END_TEST

START_TEST(nul_bytes)
{
        /* an unescaped NUL is an error; an escaped one is a literal NUL */
        struct warder_error err = WARDER_ERROR_INIT;
        warder_glob *g = NULL;
        ck_assert_int_eq(warder_glob_compile(&g, "a\0b", 3, 0, &err), WARDER_EPARSE);
        ck_assert_int_eq(err.offset, 1);
        ck_assert_int_eq(warder_glob_compile(&g, "[a\0]", 4, 0, &err), WARDER_EPARSE);
        ck_assert_int_eq(err.offset, 2);
        warder_error_clear(&err);
        ck_assert_int_eq(try_match("a\\\0b", 4, "a\0b", 3, 0), 1);
        ck_assert_int_eq(try_match("a\\\0b", 4, "a\1b", 3, 0), 0);
        ck_assert_int_eq(try_match("{x,a\\\0}b", 8, "a\0b", 3, 0), 1);
        ck_assert_int_eq(try_match("*", 1, "a\0b", 3, 0), 1);
        /* expansion output is NUL-terminated: the escaped NUL becomes a class */
        char **v = NULL;
        size_t n = 0;
        ck_assert_int_eq(warder__glob_expand("{a\\\0,b}", 7, 0, &v, &n, NULL), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(try_match(v[0], strlen(v[0]), "a\0", 2, 0), 1);
        ck_assert_int_eq(try_match(v[0], strlen(v[0]), "a", 1, 0), 0);
        warder__glob_strv_free(v, n);
}
END_TEST

static char *repeat(const char *s, int n, const char *end);

/* ---- §2.13 limits ---- */

START_TEST(limits)
{
        struct warder_error err = WARDER_ERROR_INIT;
        warder_glob *g = NULL;
        char *p = malloc(WARDER_GLOB_MAX_PATTERN + 2);
        memset(p, 'a', WARDER_GLOB_MAX_PATTERN + 1);
        /* exactly at the limit compiles, one byte more does not */
        ck_assert_int_eq(warder_glob_compile(&g, p, WARDER_GLOB_MAX_PATTERN, 0, &err), 0);
        warder_glob_free(g);
        ck_assert_int_eq(warder_glob_compile(&g, p, WARDER_GLOB_MAX_PATTERN + 1, 0, &err),
                         WARDER_ETOOBIG);
        ck_assert_int_eq(err.offset, WARDER_GLOB_MAX_PATTERN);
        free(p);

        /* brace depth: 32 nested groups are fine, the 33rd `{` is reported */
        char deep[200] = "", tail[200] = "";
        for (int i = 0; i < 33; i++) {
                strcat(deep, "{");
                strcat(tail, ",x}");
        }
        char buf[400];
        snprintf(buf, sizeof(buf), "%s%s", deep + 1, tail + 3);
        ck_assert_int_eq(warder_glob_compile(&g, buf, strlen(buf), 0, &err), 0);
        ck_assert_int_eq(warder_glob_match(g, "x", 1), 1);
        warder_glob_free(g);
        snprintf(buf, sizeof(buf), "%s%s", deep, tail);
        ck_assert_int_eq(warder_glob_compile(&g, buf, strlen(buf), 0, &err), WARDER_ETOOBIG);
        ck_assert_int_eq(err.offset, 32);
        ck_assert_ptr_nonnull(strstr(err.message, "deeper than 32"));

        /* 256 expansions compile (4 x 4 x 4 x 4), 512 do not; the offending group is named */
        const char *ok = "{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}";
        ck_assert_int_eq(warder_glob_compile(&g, ok, strlen(ok), 0, &err), 0);
        ck_assert_int_eq(warder_glob_match(g, "dcba", 4), 1);
        ck_assert_int_eq(warder_glob_match(g, "dcbe", 4), 0);
        warder_glob_free(g);
        const char *big = "{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}{x,y}";
        ck_assert_int_eq(warder_glob_compile(&g, big, strlen(big), 0, &err), WARDER_ETOOBIG);
        ck_assert_int_eq(err.offset, 36);
        const char *wide = "{a,{b,{c,d}}}{0,1,2,3,4,5,6,7,8,9}{0,1,2,3,4,5,6,7,8,9}{0,1,2}";
        ck_assert_int_eq(warder_glob_compile(&g, wide, strlen(wide), 0, &err), WARDER_ETOOBIG);
        ck_assert_ptr_nonnull(strstr(err.message, "more than 256"));
        warder_error_clear(&err);
        /* a pattern within the limits always compiles, even when the union of its 256
         * alternatives is too large for one engine pattern */
        char *heavy = repeat("{a,b}", 8, "/");
        char *cls = repeat("[[:alpha:]]", 300, "");
        heavy = realloc(heavy, strlen(heavy) + strlen(cls) + 1);
        strcat(heavy, cls);
        ck_assert_int_le(strlen(heavy), WARDER_GLOB_MAX_PATTERN);
        ck_assert_int_eq(warder_glob_compile(&g, heavy, strlen(heavy), 0, &err), 0);
        char *subject = repeat("q", 300, "");
        char *path = malloc(310);
        sprintf(path, "abbaabba/%s", subject);
        ck_assert_int_eq(warder_glob_match(g, path, strlen(path)), 1);
        path[0] = 'c';
        ck_assert_int_eq(warder_glob_match(g, path, strlen(path)), 0);
        sprintf(path, "bbbbbbbb/%s", subject);
        path[20] = '1';
        ck_assert_int_eq(warder_glob_match(g, path, strlen(path)), 0);
        warder_glob_free(g);
        free(heavy);
        free(cls);
        free(subject);
        free(path);
        /* braces are literal in command mode, so the cap does not apply there */
        ck_assert_int_eq(warder_glob_compile(&g, big, strlen(big), CMD, NULL), 0);
        warder_glob_free(g);
}
END_TEST

/* ---- linear time on adversarial patterns ---- */

static char *repeat(const char *s, int n, const char *end)
{
        size_t l = strlen(s), e = strlen(end);
        char *r = malloc(l * (size_t)n + e + 1);
        for (int i = 0; i < n; i++)
                memcpy(r + l * (size_t)i, s, l);
        memcpy(r + l * (size_t)n, end, e + 1);
        return r;
}

/* The control arm: the textbook backtracking translation of `*a*a…*ab` really does blow up
 * under the same match limit, so the inputs below are adversarial. */
START_TEST(adversarial_control)
{
        char *re = repeat("[^/]*a", 30, "b\\z");
        /* a `b` that is not at the end defeats the engine's required-byte shortcut */
        char *subject = repeat("a", 1000, "bc");
        int ec;
        PCRE2_SIZE eo;
        pcre2_code *code = pcre2_compile((PCRE2_SPTR) "\\A", 2, 0, &ec, &eo, NULL);
        pcre2_code_free(code);
        char *full = malloc(strlen(re) + 3);
        sprintf(full, "\\A%s", re);
        code = pcre2_compile((PCRE2_SPTR)full, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL, &ec, &eo, NULL);
        ck_assert_ptr_nonnull(code);
        pcre2_match_data *md = pcre2_match_data_create(1, NULL);
        pcre2_match_context *mc = pcre2_match_context_create(NULL);
        pcre2_set_match_limit(mc, 10000000);
        int rc = pcre2_match(code, (PCRE2_SPTR)subject, strlen(subject), 0, 0, md, mc);
        ck_assert_int_eq(rc, PCRE2_ERROR_MATCHLIMIT);
        pcre2_match_context_free(mc);
        pcre2_match_data_free(md);
        pcre2_code_free(code);
        free(full);
        free(re);
        free(subject);
}
END_TEST

START_TEST(adversarial_patterns)
{
        struct {
                char *pat, *subject;
                unsigned flags;
                int want;
        } c[] = {
            /* git's exponential case */
            {repeat("*a", 30, "b"), repeat("a", 1000, ""), 0, 0},
            {repeat("*a", 30, "b"), repeat("a", 1000, "b"), 0, 1},
            {repeat("*a", 30, "b"), repeat("a", 1000, "bc"), 0, 0},
            {repeat("*a", 30, "b"), repeat("a", 1000, "bc"), CMD, 0},
            {repeat("*a", 30, "*"), repeat("a", 29, ""), 0, 0},
            {repeat("*a", 30, "b"), repeat("a", 1000, "b"), CMD, 1},
            {repeat("*a", 30, "b"), repeat("a", 1000, ""), CMD, 0},
            {repeat("*a", 30, "b"), repeat("a", 1000, ""), FOLD, 0},
            {repeat("*[a-c]", 30, "d"), repeat("b", 1000, ""), 0, 0},
            {repeat("*?", 30, "b"), repeat("a", 1000, ""), 0, 0},
            {repeat("-*", 12, "-m-*"),
             strdup("-adobe-courier-bold-o-normal--12-120-75-75-X-70-"
                    "iso8859-1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
             0, 0},
            /* chains of globstars */
            {repeat("**/", 50, "x"), repeat("a/", 1000, "y"), 0, 0},
            {repeat("**/", 50, "x"), repeat("a/", 1000, "x"), 0, 1},
            {repeat("**/a/", 40, "b"), repeat("a/", 1000, "c"), 0, 0},
            {repeat("**/a/", 40, "b"), repeat("a/", 1000, "b"), 0, 1},
            {repeat("**/*a*/", 20, "b"), repeat("aaaaaaaaaa/", 300, "c"), 0, 0},
            {repeat("*/", 100, "b"), repeat("a/", 1000, "b"), 0, 0},
            {repeat("**/*/", 20, "**/b/**"), repeat("a/", 1000, "a"), 0, 0},
            {repeat("a*/**/", 30, "x"), repeat("aaa/", 500, "y"), 0, 0},
            {repeat("{a,b}*", 8, "c"), repeat("ab", 500, ""), 0, 0},
            {repeat("*/", 50, "**"), repeat("a/", 1000, ""), 0, 1},
        };
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(c); i++) {
                warder_glob *g = NULL;
                ck_assert_int_eq(
                    warder_glob_compile(&g, c[i].pat, strlen(c[i].pat), c[i].flags, NULL), 0);
                int rc = warder_glob_match(g, c[i].subject, strlen(c[i].subject));
                ck_assert_msg(rc == c[i].want, "case %zu: got %d want %d", i, rc, c[i].want);
                rc = warder__glob_match_interpreted(g, c[i].subject, strlen(c[i].subject));
                ck_assert_msg(rc == c[i].want, "case %zu (interpreter): got %d want %d", i, rc,
                              c[i].want);
                warder_glob_free(g);
                free(c[i].pat);
                free(c[i].subject);
        }
}
END_TEST

/* §2.10: an engine limit is a negative status (the caller fails closed), never "no match".
 * A globstar-delimited run of 100 components against a path of 500,000 components needs
 * about 5e7 steps, beyond the match limit. */
START_TEST(engine_limit_is_an_error)
{
        char *pat = repeat("*/", 100, "b/**");
        pat = realloc(pat, strlen(pat) + 4);
        memmove(pat + 3, pat, strlen(pat) + 1);
        memcpy(pat, "**/", 3);
        char *subject = repeat("a/", 500000, "a");
        warder_glob *g = NULL;
        ck_assert_int_eq(warder_glob_compile(&g, pat, strlen(pat), 0, NULL), 0);
        int rc = warder_glob_match(g, subject, strlen(subject));
        ck_assert_int_eq(rc, WARDER_ELIMIT);
        ck_assert_int_lt(warder__glob_match_interpreted(g, subject, strlen(subject)), 0);
        /* the same glob on an ordinary path answers normally */
        ck_assert_int_eq(warder_glob_match(g, "a/b/c", 5), 0);
        warder_glob_free(g);
        free(pat);
        free(subject);
}
END_TEST

/* ---- braces as alternatives (internal API for the rule layer) ---- */

START_TEST(expand_alternatives)
{
        static const struct {
                const char *pat;
                unsigned flags;
                const char *alts[6];
        } c[] = {
            {"a{b,c}d", 0, {"abd", "acd"}},
            {"a{,bc}", 0, {"a", "abc"}},
            {"{a}", 0, {"{a}"}},
            {"{a,{b}}", 0, {"a", "{b}"}},
            {"x{a,b}{1,2}", 0, {"xa1", "xa2", "xb1", "xb2"}},
            {"{/etc,/var}/**", 0, {"/etc/**", "/var/**"}},
            {"{a,[}]}", 0, {"a", "[}]"}},
            {"\\{a,b\\}", 0, {"\\{a,b\\}"}},
            {"{a\\,b,c}", 0, {"a\\,b", "c"}},
            {"{a,b}", NOBR, {"{a,b}"}},
            {"{a,b}", CMD, {"{a,b}"}},
            {"{,}", 0, {"", ""}},
            {"{{a,b},{c}}", 0, {"a", "b", "{c}"}},
        };
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(c); i++) {
                char **v = NULL;
                size_t n = 0;
                int rc = warder__glob_expand(c[i].pat, strlen(c[i].pat), c[i].flags, &v, &n, NULL);
                ck_assert_msg(rc == 0, "'%s': %d", c[i].pat, rc);
                size_t want = 0;
                while (want < 6 && c[i].alts[want])
                        want++;
                ck_assert_msg(n == want, "'%s': %zu alternatives, want %zu", c[i].pat, n, want);
                for (size_t k = 0; k < n; k++)
                        ck_assert_str_eq(v[k], c[i].alts[k]);
                warder__glob_strv_free(v, n);
        }
        struct warder_error err = WARDER_ERROR_INIT;
        char **v = NULL;
        size_t n = 0;
        ck_assert_int_eq(warder__glob_expand("a{b", 3, 0, &v, &n, &err), WARDER_EPARSE);
        ck_assert_int_eq(err.offset, 1);
        ck_assert_int_eq(warder__glob_expand("{a,[[:x:]]}", 11, 0, &v, &n, &err), WARDER_EPARSE);
        ck_assert_int_eq(err.offset, 4);
        ck_assert_ptr_null(v);
        warder_error_clear(&err);
}
END_TEST

START_TEST(compile_union)
{
        const char *alts[] = {"/ws/**/*.log", "/etc/**", "/home/u/.ssh/**"};
        size_t lens[] = {12, 7, 15};
        warder_glob *g = NULL;
        ck_assert_int_eq(warder__glob_compile_union(&g, alts, lens, 3, 0, "shown", 5, NULL), 0);
        size_t len = 0;
        ck_assert_str_eq(warder_glob_pattern(g, &len), "shown");
        ck_assert_uint_eq(len, 5);
        ck_assert_int_eq(warder_glob_match(g, "/ws/a/b.log", 11), 1);
        ck_assert_int_eq(warder_glob_match(g, "/etc/passwd", 11), 1);
        ck_assert_int_eq(warder_glob_match(g, "/etc", 4), 0);
        ck_assert_int_eq(warder_glob_match(g, "/home/u/.ssh/id", 15), 1);
        ck_assert_int_eq(warder_glob_match(g, "/ws/a/b.txt", 11), 0);
        warder_glob_free(g);
        /* alternatives are compiled with braces literal */
        const char *lit[] = {"{a,b}"};
        size_t ll[] = {5};
        ck_assert_int_eq(warder__glob_compile_union(&g, lit, ll, 1, FOLD, "x", 1, NULL), 0);
        ck_assert_int_eq(warder_glob_match(g, "{A,B}", 5), 1);
        ck_assert_int_eq(warder_glob_flags(g), FOLD);
        warder_glob_free(g);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder__glob_compile_union(&g, alts, lens, 0, 0, "x", 1, &err),
                         WARDER_EINVAL);
        const char *bad[] = {"ok", "[x"};
        size_t bl[] = {2, 2};
        ck_assert_int_eq(warder__glob_compile_union(&g, bad, bl, 2, 0, "x", 1, &err),
                         WARDER_EPARSE);
        warder_error_clear(&err);
}
END_TEST

/* warder__glob_escape(): any string, spliced into a pattern, matches only itself. */
START_TEST(escape_literal)
{
        static const char *const s[] = {
            "/home/u", "/ws/my project", "/a*b?c[d]e{f,g}h", "/x\\y",
            "/!~x",    "/tab\there",     "/[[:alpha:]]",     "/**",
            "/a\nb",   "/\xc3\xa9",
        };
        for (size_t i = 0; i < WARDER__ARRAY_SIZE(s); i++) {
                for (unsigned flags = 0; flags < 4; flags++) {
                        struct warder__buf b = WARDER__BUF_INIT;
                        ck_assert_int_eq(warder__glob_escape(&b, s[i], strlen(s[i])), 0);
                        warder__buf_puts(&b, "/*");
                        ck_assert_int_eq(try_match(b.data, b.len, s[i], strlen(s[i]), flags), 0);
                        char *with = malloc(strlen(s[i]) + 3);
                        sprintf(with, "%s/x", s[i]);
                        ck_assert_msg(match(b.data, with, flags) == 1, "escaped '%s' (%s) flags %u",
                                      s[i], b.data, flags);
                        /* a different string of the same shape does not match */
                        with[1] = with[1] == 'q' ? 'r' : 'q';
                        ck_assert_int_eq(match(b.data, with, flags & ~FOLD), 0);
                        free(with);
                        warder__buf_free(&b);
                }
        }
        struct warder__buf b = WARDER__BUF_INIT;
        ck_assert_int_eq(warder__glob_escape(&b, "a\0b", 3), WARDER_EINVAL);
        warder__buf_free(&b);
}
END_TEST

START_TEST(api_misuse)
{
        warder_glob *g = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_glob_compile(NULL, "a", 1, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_glob_compile(&g, NULL, 1, 0, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_glob_compile(&g, "a", 1, 1u << 7, &err), WARDER_EINVAL);
        ck_assert_int_eq(warder_glob_compile(&g, NULL, 0, 0, &err), 0);
        ck_assert_int_eq(warder_glob_match(g, NULL, 0), 1);
        ck_assert_int_eq(warder_glob_match(g, NULL, 1), WARDER_EINVAL);
        ck_assert_int_eq(warder_glob_match(NULL, "a", 1), WARDER_EINVAL);
        warder_glob_free(g);
        warder_glob_free(NULL);
        ck_assert_ptr_null(warder_glob_pattern(NULL, NULL));
        ck_assert_uint_eq(warder_glob_flags(NULL), 0);
        /* the pattern as written, length-delimited */
        ck_assert_int_eq(warder_glob_compile(&g, "*.c{,x}", 5, FOLD | CMD, &err), 0);
        size_t len = 9;
        ck_assert_str_eq(warder_glob_pattern(g, &len), "*.c{,");
        ck_assert_uint_eq(len, 5);
        ck_assert_uint_eq(warder_glob_flags(g), FOLD | CMD);
        warder_glob_free(g);
        warder_error_clear(&err);
}
END_TEST

/* ---- differential test against a plain backtracking reference (§2.2–§2.5, §2.8, §5.1) ---- */

/*
 * The reference follows the definitions literally and backtracks over every choice, so it
 * is exponential but obviously right on short inputs. It knows the subset of the syntax the
 * generator below produces: literals, `\x`, `?`, runs of stars, `[ab]`-style classes with
 * `!` and one range, and (command mode) blanks.
 */
struct ref {
        const char *p0, *pe, *te;
        bool cmd, fold;
};

static int fold_eq(const struct ref *r, unsigned char a, unsigned char b)
{
        if (r->fold && a < 128 && b < 128)
                return tolower(a) == tolower(b);
        return a == b;
}

/* Matches one class at p against byte c; stores the end of the class in *end. */
static int ref_class(const struct ref *r, const char *p, unsigned char c, const char **end)
{
        const char *q = p + 1;
        bool neg = *q == '!';
        if (neg)
                q++;
        bool in = false;
        for (bool first = true; first || *q != ']'; first = false) {
                if (q[1] == '-' && q[2] != ']') {
                        for (unsigned x = (unsigned char)q[0]; x <= (unsigned char)q[2]; x++)
                                in = in || fold_eq(r, (unsigned char)x, c);
                        q += 3;
                } else {
                        in = in || fold_eq(r, (unsigned char)*q, c);
                        q++;
                }
        }
        *end = q + 1;
        if (c == '/' && !r->cmd)
                return 0;
        return in != neg;
}

static int ref_match(const struct ref *r, const char *p, const char *t)
{
        while (p < r->pe) {
                if (*p == '*') {
                        const char *q = p;
                        while (q < r->pe && *q == '*')
                                q++;
                        bool alone = (p == r->p0 || p[-1] == '/') && (q == r->pe || *q == '/');
                        if (!r->cmd && q - p >= 2 && alone) {
                                if (q == r->pe)
                                        return 1;
                                if (ref_match(r, q + 1, t))
                                        return 1;
                                for (const char *s = t; s < r->te; s++) {
                                        if (*s == '/' && ref_match(r, q + 1, s + 1))
                                                return 1;
                                }
                                return 0;
                        }
                        for (const char *s = t;; s++) {
                                if (ref_match(r, q, s))
                                        return 1;
                                if (s == r->te || (*s == '/' && !r->cmd))
                                        return 0;
                        }
                }
                if (t == r->te)
                        return 0;
                if (*p == '?') {
                        if (*t == '/' && !r->cmd)
                                return 0;
                        p++;
                        t++;
                        continue;
                }
                if (*p == '[') {
                        const char *end;
                        if (!ref_class(r, p, (unsigned char)*t, &end))
                                return 0;
                        p = end;
                        t++;
                        continue;
                }
                if (*p == '\\')
                        p++;
                if (!fold_eq(r, (unsigned char)*p, (unsigned char)*t))
                        return 0;
                p++;
                t++;
        }
        return t == r->te;
}

/* §5.1 on the pattern text: blank runs to one space, trimmed, optional " *" tail. */
static int ref_command(const char *pat, const char *t, bool fold)
{
        char buf[128];
        size_t n = 0;
        bool blank = false;
        for (const char *p = pat; *p; p++) {
                if (*p == '\\') {
                        if (blank && n)
                                buf[n++] = ' ';
                        blank = false;
                        buf[n++] = *p++;
                        buf[n++] = *p;
                } else if (*p == ' ') {
                        blank = true;
                } else {
                        if (blank && n)
                                buf[n++] = ' ';
                        blank = false;
                        if (*p == '[') { /* classes are copied whole (blanks inside are literal) */
                                const char *q = p + 1 + (p[1] == '!');
                                q++;
                                while (*q != ']')
                                        q++;
                                memcpy(buf + n, p, (size_t)(q - p + 1));
                                n += (size_t)(q - p + 1);
                                p = q;
                        } else {
                                buf[n++] = *p;
                        }
                }
        }
        struct ref r = {buf, buf + n, t + strlen(t), true, fold};
        if (ref_match(&r, buf, t))
                return 1;
        /* a pattern ending in an unescaped blank and stars also matches without that tail */
        size_t k = n;
        while (k > 0 && buf[k - 1] == '*')
                k--;
        bool escaped = k >= 2 && buf[k - 2] == '\\';
        if (k < n && k >= 2 && buf[k - 1] == ' ' && !escaped) {
                r.pe = buf + k - 1;
                return ref_match(&r, buf, t);
        }
        return 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (unsigned)(rng_state % n);
}

static void gen_pattern(char *out, bool cmd)
{
        static const char *const path_atoms[] = {"a",   "b",    "A",    "/",     "*",   "**",  "*",
                                                 "?",   "[ab]", "[!a]", "[a-b]", "[/]", "\\*", "/",
                                                 "**/", "a",    "/**/", "/a/",   "a/**"};
        static const char *const cmd_atoms[] = {"a", "b",    " ",   "  ",  "/", "*",    "**",
                                                "?", "[ab]", "[ ]", "\\ ", "A", "[!a]", "a"};
        const char *const *atoms = cmd ? cmd_atoms : path_atoms;
        unsigned natoms = cmd ? WARDER__ARRAY_SIZE(cmd_atoms) : WARDER__ARRAY_SIZE(path_atoms);
        out[0] = '\0';
        unsigned len = 1 + rnd(10);
        for (unsigned i = 0; i < len; i++)
                strcat(out, atoms[rnd(natoms)]);
}

static void gen_text(char *out, bool cmd)
{
        static const char alphabet[] = "aab//A*";
        static const char cmd_alphabet[] = "aab/ A ";
        unsigned len = rnd(14);
        for (unsigned i = 0; i < len; i++)
                out[i] = (cmd ? cmd_alphabet : alphabet)[rnd(7)];
        out[len] = '\0';
}

/* Whole components, to exercise globstars between components (§2.4). */
static void gen_components(char *out, bool text)
{
        static const char *const pc[] = {"**", "**", "a", "b", "*", "a*", "*b", "?", "", "***"};
        static const char *const tc[] = {"a", "b", "ab", "ba", "", "a"};
        unsigned n = (text ? 0 : 1) + rnd(7);
        out[0] = '\0';
        for (unsigned i = 0; i < n; i++) {
                if (i)
                        strcat(out, "/");
                strcat(out,
                       text ? tc[rnd(WARDER__ARRAY_SIZE(tc))] : pc[rnd(WARDER__ARRAY_SIZE(pc))]);
        }
}

START_TEST(differential_random)
{
        int compared = 0, matched = 0;
        for (int mode = 0; mode < 5; mode++) {
                bool cmd = mode == 2 || mode == 3, fold = mode & 1, comps = mode == 4;
                unsigned flags = (cmd ? CMD : 0) | (fold ? FOLD : 0);
                for (int i = 0; i < 1500; i++) {
                        char pat[128], text[32];
                        if (comps)
                                gen_components(pat, false);
                        else
                                gen_pattern(pat, cmd);
                        warder_glob *g = NULL;
                        ck_assert_msg(warder_glob_compile(&g, pat, strlen(pat), flags, NULL) == 0,
                                      "'%s' does not compile", pat);
                        for (int k = 0; k < 20; k++) {
                                if (comps)
                                        gen_components(text, true);
                                else
                                        gen_text(text, cmd);
                                int want;
                                if (cmd) {
                                        want = ref_command(pat, text, fold);
                                } else {
                                        struct ref r = {pat, pat + strlen(pat), text + strlen(text),
                                                        false, fold};
                                        want = ref_match(&r, pat, text);
                                }
                                int got = warder_glob_match(g, text, strlen(text));
                                ck_assert_int_eq(
                                    warder__glob_match_interpreted(g, text, strlen(text)), got);
                                ck_assert_msg(got == want, "'%s' vs '%s' flags %u: got %d want %d",
                                              pat, text, flags, got, want);
                                compared++;
                                matched += want;
                        }
                        warder_glob_free(g);
                }
        }
        /* the generator must produce both answers often enough to mean something */
        ck_assert_int_gt(matched, compared / 50);
        ck_assert_int_lt(matched, compared - compared / 50);
}
END_TEST

/* ---- thread safety: one compiled glob, many threads ---- */

struct thread_arg {
        warder_glob *globs[4];
        int errors;
};

static const struct {
        const char *path;
        int want[4];
} thread_paths[] = {
    {"/ws/src/main.c", {1, 0, 0, 1}},      {"/ws/.env", {0, 1, 0, 1}},
    {"/home/u/.ssh/id_rsa", {0, 0, 1, 1}}, {"/ws/a/b/c/.env.local", {0, 1, 0, 1}},
    {"/ws/README", {0, 0, 0, 1}},
};

static void *thread_main(void *p)
{
        struct thread_arg *a = p;
        for (int round = 0; round < 2000; round++) {
                for (size_t i = 0; i < WARDER__ARRAY_SIZE(thread_paths); i++) {
                        for (int k = 0; k < 4; k++) {
                                const char *s = thread_paths[i].path;
                                if (warder_glob_match(a->globs[k], s, strlen(s)) !=
                                    thread_paths[i].want[k])
                                        a->errors++;
                        }
                }
        }
        return NULL;
}

START_TEST(threads)
{
        const char *pats[4] = {"/ws/**/*.{c,h}", "**/.env{,.*}", "/home/u/.ssh/**", "/**"};
        warder_glob *globs[4];
        for (int k = 0; k < 4; k++)
                ck_assert_int_eq(warder_glob_compile(&globs[k], pats[k], strlen(pats[k]), 0, NULL),
                                 0);
        enum { N = 8 };
        pthread_t t[N];
        struct thread_arg args[N];
        for (int i = 0; i < N; i++) {
                memcpy(args[i].globs, globs, sizeof(globs));
                args[i].errors = 0;
                ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &args[i]), 0);
        }
        int errs = 0;
        for (int i = 0; i < N; i++) {
                pthread_join(t[i], NULL);
                errs += args[i].errors;
        }
        ck_assert_int_eq(errs, 0);
        /* the control arm: the table itself disagrees with a wrong answer */
        ck_assert_int_eq(warder_glob_match(globs[0], "/ws/.env", 8), 0);
        ck_assert_int_eq(warder_glob_match(globs[1], "/ws/.env", 8), 1);
        for (int k = 0; k < 4; k++)
                warder_glob_free(globs[k]);
}
END_TEST

/* ---- docs/glob.md: every example table row is checked ---- */

/* Trims blanks and one pair of backticks; "(empty)" is the empty string. */
static char *cell(char *s)
{
        while (*s == ' ')
                s++;
        size_t l = strlen(s);
        while (l && s[l - 1] == ' ')
                s[--l] = '\0';
        if (l >= 2 && s[0] == '`' && s[l - 1] == '`') {
                s[l - 1] = '\0';
                s++;
        }
        if (strcmp(s, "(empty)") == 0)
                s[0] = '\0';
        return s;
}

/* Splits a Markdown table row into cells; `\|` is a literal bar. Returns the count. */
static int split_row(char *line, char **cells, int max)
{
        int n = 0;
        char *p = line;
        if (*p != '|')
                return 0;
        p++;
        char *start = p, *w = p;
        while (*p && n < max) {
                if (p[0] == '\\' && p[1] == '|') {
                        *w++ = '|';
                        p += 2;
                } else if (*p == '|') {
                        *w = '\0';
                        cells[n++] = cell(start);
                        p++;
                        start = w = p;
                } else {
                        *w++ = *p++;
                }
        }
        return n;
}

START_TEST(docs_examples)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_ptr_nonnull(root);
        char path[4096];
        snprintf(path, sizeof(path), "%s/docs/glob.md", root);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        char line[2048];
        enum { NONE, MATCH, ERROR, OTHER } mode = NONE;
        unsigned flags = 0;
        int examples = 0, error_examples = 0, lineno = 0;
        while (fgets(line, sizeof(line), f)) {
                lineno++;
                line[strcspn(line, "\n")] = '\0';
                char *c[8];
                int n = split_row(line, c, 8);
                if (n == 0) {
                        mode = NONE;
                        continue;
                }
                if (strncmp(c[0], "---", 3) == 0 || strncmp(c[0], ":--", 3) == 0)
                        continue;
                if (mode == NONE) {
                        /* a header row selects the kind of table */
                        if (n == 3 && strcmp(c[2], "matches") == 0) {
                                mode = MATCH;
                                flags = 0;
                                if (strstr(c[0], "command"))
                                        flags |= CMD;
                                if (strstr(c[0], "fold"))
                                        flags |= FOLD;
                        } else if (n == 3 && strcmp(c[1], "error at byte") == 0) {
                                mode = ERROR;
                        } else {
                                mode = OTHER; /* some other table: ignore its rows */
                        }
                        continue;
                }
                if (mode == MATCH) {
                        ck_assert_msg(strcmp(c[2], "yes") == 0 || strcmp(c[2], "no") == 0,
                                      "docs/glob.md:%d: 'matches' must be yes or no", lineno);
                        int want = strcmp(c[2], "yes") == 0;
                        int got = match(c[0], c[1], flags);
                        ck_assert_msg(got == want, "docs/glob.md:%d: '%s' vs '%s' gives %d", lineno,
                                      c[0], c[1], got);
                        examples++;
                } else if (mode == ERROR) {
                        warder_glob *g = NULL;
                        struct warder_error err = WARDER_ERROR_INIT;
                        int rc = warder_glob_compile(&g, c[0], strlen(c[0]), 0, &err);
                        ck_assert_msg(rc < 0, "docs/glob.md:%d: '%s' compiles", lineno, c[0]);
                        ck_assert_msg(err.offset == atol(c[1]), "docs/glob.md:%d: offset %ld",
                                      lineno, err.offset);
                        ck_assert_msg(strstr(err.message, c[2]) != NULL,
                                      "docs/glob.md:%d: message '%s'", lineno, err.message);
                        warder_error_clear(&err);
                        error_examples++;
                }
        }
        fclose(f);
        ck_assert_int_ge(examples, 30);
        ck_assert_int_ge(error_examples, 5);
}
END_TEST

/* ---- the CLI: warder match ---- */

struct run {
        int status;
        char out[8192], err[8192];
};

static void slurp(int fd, char *buf, size_t size)
{
        lseek(fd, 0, SEEK_SET);
        ssize_t n = read(fd, buf, size - 1);
        buf[n > 0 ? n : 0] = '\0';
        close(fd);
}

static void run_cli(struct run *r, const char *const *args)
{
        const char *cli = getenv("WARDER_CLI");
        ck_assert_ptr_nonnull(cli);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)"warder";
        for (; args[n - 1] && n < 31; n++)
                argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        char o[] = "/tmp/warder-glob-outXXXXXX", e[] = "/tmp/warder-glob-errXXXXXX";
        int fo = mkstemp(o), fe = mkstemp(e);
        ck_assert_int_ge(fo, 0);
        ck_assert_int_ge(fe, 0);
        unlink(o);
        unlink(e);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fo, 1);
        posix_spawn_file_actions_adddup2(&fa, fe, 2);
        pid_t pid;
        ck_assert_int_eq(posix_spawn(&pid, cli, &fa, NULL, argv, environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        r->status = WEXITSTATUS(st);
        slurp(fo, r->out, sizeof(r->out));
        slurp(fe, r->err, sizeof(r->err));
}

START_TEST(cli_match)
{
        struct run r;
        run_cli(&r, (const char *[]){"match", "**/*.c", "src/a.c", "b.c", NULL});
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "match: src/a.c\nmatch: b.c\n");
        run_cli(&r, (const char *[]){"match", "**/*.c", "src/a.c", "b.h", NULL});
        ck_assert_int_eq(r.status, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "no match: b.h"));
        run_cli(&r, (const char *[]){"match", "--fold-case", "*.C", "a.c", NULL});
        ck_assert_int_eq(r.status, 0);
        run_cli(&r, (const char *[]){"match", "*.C", "a.c", NULL});
        ck_assert_int_eq(r.status, 1);
        run_cli(&r, (const char *[]){"match", "--command", "git *", "git", "git push", NULL});
        ck_assert_int_eq(r.status, 0);
        run_cli(&r, (const char *[]){"match", "git *", "git", NULL});
        ck_assert_int_eq(r.status, 1);
        /* after --, patterns and paths may begin with '-' */
        run_cli(&r, (const char *[]){"match", "--", "-*", "-rf", NULL});
        ck_assert_int_eq(r.status, 0);
        run_cli(&r, (const char *[]){"match", "-*", "-rf", NULL});
        ck_assert_int_eq(r.status, 2);
        /* a bad pattern: exit 2, the pattern and a caret under the offending byte */
        run_cli(&r, (const char *[]){"match", "src/[z-a]*.c", "x", NULL});
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "reversed range"));
        ck_assert_ptr_nonnull(strstr(r.err, "  src/[z-a]*.c\n       ^\n"));
        run_cli(&r, (const char *[]){"match", "{a,b", "x", NULL});
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "  {a,b\n  ^\n"));
        run_cli(&r, (const char *[]){"match", "a\tb[", "x", NULL});
        ck_assert_int_eq(r.status, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "  a\\tb[\n      ^\n"));
        /* usage errors */
        run_cli(&r, (const char *[]){"match", "*.c", NULL});
        ck_assert_int_eq(r.status, 2);
        run_cli(&r, (const char *[]){"match", NULL});
        ck_assert_int_eq(r.status, 2);
        run_cli(&r, (const char *[]){"match", "--bogus", "a", "a", NULL});
        ck_assert_int_eq(r.status, 2);
        run_cli(&r, (const char *[]){"match", "--help", NULL});
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "Usage: warder match"));
        run_cli(&r, (const char *[]){"match", "--json", "*.c", "a.c", "b", NULL});
        ck_assert_int_eq(r.status, 1);
        ck_assert_str_eq(r.out,
                         "{\"pattern\":\"*.c\",\"results\":[{\"path\":\"a.c\",\"match\":true},"
                         "{\"path\":\"b\",\"match\":false}]}\n");
}
END_TEST

START_TEST(cli_normalize)
{
        struct run r;
        run_cli(&r, (const char *[]){"normalize", "--root", "/ws", "--home", "/home/u", "a/../b",
                                     "~/.ssh", "//etc/./x/", NULL});
        ck_assert_int_eq(r.status, 0);
        ck_assert_str_eq(r.out, "/ws/b\n/home/u/.ssh\n/etc/x\n");
}
END_TEST

/* The `$ warder match …` and `$ warder normalize …` sessions shown in docs/glob.md and
 * docs/cli.md are run, and their output compared with what the page shows. */
static int shell_split(char *line, const char **argv, int max)
{
        int n = 0;
        char *p = line, *w = line;
        while (*p && n < max - 1) {
                while (*p == ' ')
                        p++;
                if (!*p)
                        break;
                argv[n++] = w;
                while (*p && *p != ' ') {
                        if (*p == '\'') {
                                p++;
                                while (*p && *p != '\'')
                                        *w++ = *p++;
                                if (*p)
                                        p++;
                        } else {
                                *w++ = *p++;
                        }
                }
                if (*p)
                        p++;
                *w++ = '\0';
        }
        argv[n] = NULL;
        return n;
}

static int check_sessions(const char *file)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_ptr_nonnull(root);
        char path[4096];
        snprintf(path, sizeof(path), "%s/docs/%s", root, file);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        char *lines[2048];
        int nl = 0;
        char buf[2048];
        while (nl < 2048 && fgets(buf, sizeof(buf), f))
                lines[nl++] = strdup(buf);
        fclose(f);
        int sessions = 0, last_status = -1;
        for (int i = 0; i < nl; i++) {
                const char *cmd = NULL;
                if (strncmp(lines[i], "    $ warder match ", 19) == 0 ||
                    strncmp(lines[i], "    $ warder normalize ", 23) == 0)
                        cmd = lines[i] + 13;
                bool echo = strcmp(lines[i], "    $ echo $?\n") == 0;
                if (!cmd && !echo)
                        continue;
                /* the expected output: the indented lines up to the next prompt */
                char want[8192] = "";
                int k = i + 1;
                for (; k < nl && strncmp(lines[k], "    ", 4) == 0 &&
                       strncmp(lines[k], "    $ ", 6) != 0;
                     k++)
                        strncat(want, lines[k] + 4, sizeof(want) - strlen(want) - 1);
                if (echo) {
                        ck_assert_int_ge(last_status, 0);
                        ck_assert_int_eq(atoi(want), last_status);
                        continue;
                }
                char line[2048];
                snprintf(line, sizeof(line), "%s", cmd);
                line[strcspn(line, "\n")] = '\0';
                const char *argv[32];
                shell_split(line, argv, 32);
                struct run r;
                run_cli(&r, argv);
                char got[16384];
                snprintf(got, sizeof(got), "%s%s", r.out, r.err);
                ck_assert_msg(strcmp(got, want) == 0, "docs/%s:%d: '%s' printed\n%s\nnot\n%s", file,
                              i + 1, cmd, got, want);
                last_status = r.status;
                sessions++;
        }
        for (int i = 0; i < nl; i++)
                free(lines[i]);
        return sessions;
}

START_TEST(docs_sessions)
{
        ck_assert_int_ge(check_sessions("glob.md"), 2);
        ck_assert_int_ge(check_sessions("cli.md"), 4);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("glob");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, table_cases);
        tcase_add_test(tc, compile_errors);
        tcase_add_test(tc, nul_bytes);
        tcase_add_test(tc, limits);
        tcase_add_test(tc, adversarial_control);
        tcase_add_test(tc, adversarial_patterns);
        tcase_add_test(tc, engine_limit_is_an_error);
        tcase_add_test(tc, expand_alternatives);
        tcase_add_test(tc, compile_union);
        tcase_add_test(tc, escape_literal);
        tcase_add_test(tc, api_misuse);
        tcase_add_test(tc, differential_random);
        tcase_add_test(tc, threads);
        tcase_add_test(tc, docs_examples);
        tcase_add_test(tc, cli_match);
        tcase_add_test(tc, cli_normalize);
        tcase_add_test(tc, docs_sessions);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
