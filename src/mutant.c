/* SPDX-License-Identifier: MIT */
/* The switch of a mutant schema build (see mutant.h). */
#include "mutant.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

int warder__mutant = -1;

__attribute__((constructor)) static void warder__mutant_init(void)
{
        const char *s = getenv("WARDER_MUTANT");
        if (!s || !*s)
                return;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (!*end && !errno && v >= 0 && v <= INT_MAX)
                warder__mutant = (int)v;
}
