/* SPDX-License-Identifier: MIT */
#ifndef WARDER_FUZZ_SHELL_DIFF_H
#define WARDER_FUZZ_SHELL_DIFF_H

/*
 * A differential property of command inspection against the real shells (§5.2, §5.5): a
 * command line is generated from a byte string (so a fuzzer can drive it) out of the shapes
 * that hide commands — command substitutions in every quoting context, parameter expansions
 * with each operator, arithmetic contexts, here-documents, eval, nested `sh -c`, functions,
 * aliases, traps — around calls of tracing stubs t0 … t9 (scripts that record their name).
 * The line runs under dash and under bash in a scratch directory; for every stub that ran,
 * the inspector must not allow the line under a ruleset that denies that stub: it must deny
 * it, or be at least ask because the line is undeterminable (§5.5, §5.7). Only the stubs,
 * `echo`, `:`, `true`, `cat` of stdin and shell builtins appear in a generated line, and it
 * runs in its own scratch directory with a deadline, so running it is harmless.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "warder/ruleset.h"

#define SHDIFF_STUBS 10

struct shdiff {
        char dir[64]; /* scratch: stubs in bin/, commands run in work/ */
        char bin[96], work[96], trace[96];
        warder_ruleset *deny[SHDIFF_STUBS]; /* deny `tK` and `tK *` */
        const char *shells[2];              /* dash and bash, when present */
        size_t nshells;
        /* what ran, what was decided */
        size_t lines, runs, stub_runs, denied, asked, failed;
};

/* Creates the scratch directory and the stubs, loads the rulesets. Returns false (and says
 * why on stderr) when it cannot; no shell at all is not an error (nshells is 0). */
bool shdiff_init(struct shdiff *d);
void shdiff_free(struct shdiff *d);

/* Writes a line generated from `data` into `out` (`cap` bytes, NUL-terminated); returns its
 * length. The same bytes always give the same line. */
size_t shdiff_generate(const uint8_t *data, size_t size, char *out, size_t cap);

/* Runs `line` under every shell and checks the inspector against what ran. Returns true when
 * the property holds; otherwise fills `why`. */
bool shdiff_check(struct shdiff *d, const char *line, char *why, size_t cap);

#endif
