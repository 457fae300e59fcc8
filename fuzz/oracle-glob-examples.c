/* SPDX-License-Identifier: MIT */
/*
 * The glob oracle must itself be right: it is checked against the examples of the semantics
 * (§2, §5.1) below. git's wildmatch vectors (§2.9) check it too, in the test
 * `wildmatch-vectors` (tests/test-wildmatch-vectors.c), which is skipped without the vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle-glob.h"
#include "warder/glob.h"

#define P 0
#define F WARDER_GLOB_FOLD_CASE
#define C WARDER_GLOB_COMMAND
#define M ORACLE_GLOB_MATCH
#define N ORACLE_GLOB_NO_MATCH
#define I ORACLE_GLOB_INVALID

static const struct {
        unsigned flags;
        const char *pattern, *subject;
        int want;
} examples[] = {
    {P, "*", ".env", M},                     /* §2.2: a leading dot is not special */
    {P, "**/*.key", ".hidden.key", M},       /* §2.2 */
    {P, "*", "a/b", N},                      /* §2.2 */
    {P, "?", "/", N},                        /* §2.3 */
    {P, "a/**/b", "a/b", M},                 /* §2.4 */
    {P, "a/**/b", "a/x/y/b", M},             /* §2.4 */
    {P, "/**/a", "/a", M},                   /* §2.4 */
    {P, "foo/**", "foo", N},                 /* §2.4: the core does not cover the directory */
    {P, "foo/**", "foo/x/y", M},             /* §2.4 */
    {P, "**", "a/b/c", M},                   /* §2.4 */
    {P, "a/***/b", "a/b", M},                /* §2.4: three stars are a double star */
    {P, "**.c", "a/b.c", N},                 /* §2.4: not a component, so a single star */
    {P, "a**b", "axxb", M},                  /* §2.4 */
    {P, "a\\/**\\/b", "a/b", M},             /* §2.4: an escaped slash is a slash */
    {P, "[/]", "/", N},                      /* §2.5: a class never matches a slash */
    {P, "[!a]", "/", N},                     /* §2.5 */
    {P, "[]]", "]", M},                      /* §2.5: a leading ] is literal */
    {P, "[-a]", "-", M},                     /* §2.5: a dash at an end is literal */
    {P, "[a-]", "-", M},                     /* §2.5 */
    {P, "[\\]]", "]", M},                    /* §2.5: backslash escapes inside */
    {P, "[[:digit:]]", "7", M},              /* §2.5 */
    {P, "[abc", "a", I},                     /* §2.5: unclosed */
    {P, "[[:nope:]]", "n", I},               /* §2.5: unknown class */
    {P, "[[::]]", ":", I},                   /* §2.5: empty class name */
    {P, "[z-a]", "m", I},                    /* §2.5: reversed range */
    {P, "{a,b}", "b", M},                    /* §2.6 */
    {P, "{a,{b,c}d}", "cd", M},              /* §2.6: nested */
    {P, "{/etc,/var}/**", "/var/x", M},      /* §2.6: alternatives may hold a slash */
    {P, "a{,bc}", "a", M},                   /* §2.6: an empty alternative */
    {P, "a{,bc}", "abc", M},                 /* §2.6 */
    {P, "{a}", "{a}", M},                    /* §2.6: no comma, so literal */
    {P, "{a}", "a", N},                      /* §2.6 */
    {P, "{a,[}]}", "}", M},                  /* §2.6: classes are opaque to braces */
    {P, "{a,b", "a", I},                     /* §2.6: unclosed */
    {P, "a}", "a}", I},                      /* §2.6: stray */
    {P, "\\{a,b\\}", "{a,b}", M},            /* §2.6, §2.7 */
    {P, "foo\\", "foo\\", I},                /* §2.7: a trailing lone backslash */
    {F, "[A]", "a", M},                      /* §2.8 */
    {F, "\\A", "a", M},                      /* §2.8 */
    {F, "[a-c]", "B", M},                    /* §2.8 */
    {F, "**/.ENV", "/w/.env", M},            /* §2.8 */
    {F, "[!s]*", "Secret", N},               /* §2.12: the folded match alone refuses it */
    {P, "[!s]*", "Secret", M},               /* §2.12: the exact match takes it */
    {C, "rm -rf *", "rm -rf /home/user", M}, /* §5.1 */
    {C, "git *", "git", M},                  /* §5.1 */
    {C, "git\\ *", "git", N},                /* §5.1 */
    {C, "  dd   if=*of=/dev/*  ", "dd if=/dev/zero of=/dev/sda", M}, /* §5.1 */
    {C, "mkfs*", "mkfs.ext4 /dev/sda1", M},                          /* §5.1 */
    {C, ":(){:|:&};:", ":(){:|:&};:", M},                            /* §5.1: braces are literal */
    {C, "a[ ]b", "a b", M},                                          /* §5.1 */
    {C, "a?b", "a/b", M},                                            /* §5.1 */
    {C, "{a,b}", "a", N},                                            /* §5.1 */
};

static int check_examples(void)
{
        int bad = 0;
        for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
                const char *p = examples[i].pattern, *s = examples[i].subject;
                int got = oracle_glob_match(p, strlen(p), s, strlen(s), examples[i].flags);
                if (got != examples[i].want) {
                        printf("MISMATCH example %zu: flags %u pattern '%s' subject '%s': "
                               "oracle %d, semantics %d\n",
                               i, examples[i].flags, p, s, got, examples[i].want);
                        bad++;
                }
        }
        printf("%zu examples from the semantics, %d mismatches\n",
               sizeof examples / sizeof *examples, bad);
        return bad;
}

int main(void)
{
        return check_examples() ? 1 : 0;
}
