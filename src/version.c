/* SPDX-License-Identifier: MIT */
#include "warder/version.h"

WARDER_API const char *warder_version(void)
{
        return WARDER_VERSION_STRING;
}
