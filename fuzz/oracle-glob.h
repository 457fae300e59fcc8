/* SPDX-License-Identifier: MIT */
#ifndef WARDER_ORACLE_GLOB_H
#define WARDER_ORACLE_GLOB_H

#include <stddef.h>

/*
 * A small reference matcher for the core glob syntax (semantics §2.1–§2.8, and command
 * patterns §5.1), written for tests: brace expansion by plain recursion, then a memoised
 * recursive match over a token list. No regular expressions. Flags are the WARDER_GLOB_*
 * flags of warder/glob.h.
 *
 * It answers only where the semantics are unambiguous; see ORACLE_GLOB_UNKNOWN.
 */
enum oracle_glob_result {
        ORACLE_GLOB_NO_MATCH = 0,
        ORACLE_GLOB_MATCH = 1,
        /* The pattern is malformed: warder_glob_compile() must fail with WARDER_EPARSE. */
        ORACLE_GLOB_INVALID = 2,
        /* Outside what the oracle expresses (see oracle-glob.c); no claim is made. */
        ORACLE_GLOB_UNKNOWN = 3,
};

/* Validates a pattern without matching: ORACLE_GLOB_INVALID, ORACLE_GLOB_UNKNOWN, or
 * ORACLE_GLOB_MATCH meaning "valid". */
int oracle_glob_check(const char *pattern, size_t plen, unsigned flags);

int oracle_glob_match(const char *pattern, size_t plen, const char *subject, size_t slen,
                      unsigned flags);

/* Limits within which the oracle answers (longer inputs are ORACLE_GLOB_UNKNOWN). */
#define ORACLE_GLOB_MAX_PATTERN 512
#define ORACLE_GLOB_MAX_SUBJECT 512

#endif
