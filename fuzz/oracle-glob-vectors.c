/* SPDX-License-Identifier: MIT */
/*
 * The glob oracle must itself be right: it is checked against git's wildmatch vectors
 * (§2.9, columns `wildmatch` and `iwildmatch`; a compile error counts as "no match").
 * Usage: oracle-glob-vectors VECTORS.tsv   (exit 77, skipped, when the file is absent).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle-glob.h"
#include "warder/glob.h"

int main(int argc, char **argv)
{
        if (argc != 2) {
                fprintf(stderr, "usage: %s VECTORS.tsv\n", argv[0]);
                return 2;
        }
        FILE *f = fopen(argv[1], "r");
        if (!f) {
                fprintf(stderr, "%s: not found, skipping\n", argv[1]);
                return 77;
        }
        char line[8192];
        int rows = 0, checked = 0, unknown = 0, bad = 0;
        while (fgets(line, sizeof line, f)) {
                if (line[0] == '#' || line[0] == '\n')
                        continue;
                line[strcspn(line, "\n")] = '\0';
                char *col[6];
                char *p = line;
                int n = 0;
                for (; n < 6; n++) {
                        col[n] = p;
                        char *tab = strchr(p, '\t');
                        if (!tab) {
                                n++;
                                break;
                        }
                        *tab = '\0';
                        p = tab + 1;
                }
                if (n < 6) {
                        fprintf(stderr, "malformed row: %s\n", line);
                        bad++;
                        continue;
                }
                rows++;
                const char *text = col[4], *pattern = col[5];
                for (int mode = 0; mode < 2; mode++) {
                        int want = col[mode][0] == '1';
                        unsigned flags = mode ? WARDER_GLOB_FOLD_CASE : 0;
                        int got =
                            oracle_glob_match(pattern, strlen(pattern), text, strlen(text), flags);
                        if (got == ORACLE_GLOB_UNKNOWN) {
                                unknown++;
                                printf("unknown: %s '%s' '%s'\n", mode ? "iwildmatch" : "wildmatch",
                                       pattern, text);
                                continue;
                        }
                        checked++;
                        int match = got == ORACLE_GLOB_MATCH;
                        if (match != want) {
                                bad++;
                                printf(
                                    "MISMATCH %s pattern '%s' text '%s': oracle %d (%s), git %d\n",
                                    mode ? "iwildmatch" : "wildmatch", pattern, text, match,
                                    got == ORACLE_GLOB_INVALID ? "invalid" : "valid", want);
                        }
                }
        }
        fclose(f);
        printf("%d rows, %d checks, %d agree, %d unknown, %d mismatches\n", rows, checked,
               checked - bad, unknown, bad);
        if (rows == 0)
                return 1;
        return bad ? 1 : 0;
}
