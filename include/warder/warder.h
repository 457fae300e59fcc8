/* SPDX-License-Identifier: MIT */
#ifndef WARDER_H
#define WARDER_H

/* Umbrella header for users of libwarder. Backend implementers also include sys/backend.h. */

#include "error.h"
#include "glob.h"
#include "path.h"
#include "ruleset.h"
#include "backend.h"
#include "guard.h"
#include "memory.h"
#include "local.h"
#include "version.h"

#endif
