/* SPDX-License-Identifier: MIT */
#ifndef WARDER_FUZZ_H
#define WARDER_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry points. Each harness defines the first; the second is optional. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property failed: print why and abort, so libFuzzer (or the replay test) reports the
 * input. Used instead of assert() so the check survives -DNDEBUG builds. */
#define FUZZ_CHECK(cond, ...)                                                                      \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        fprintf(stderr, "%s:%d: property failed: %s\n  ", __FILE__, __LINE__,      \
                                #cond);                                                            \
                        fprintf(stderr, __VA_ARGS__);                                              \
                        fputc('\n', stderr);                                                       \
                        abort();                                                                   \
                }                                                                                  \
        } while (0)

#endif
