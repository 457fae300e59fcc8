/* SPDX-License-Identifier: MIT */
#ifndef WARDER_LOCAL_GREP_H
#define WARDER_LOCAL_GREP_H

/*
 * The local backend's grep (grep.c): the walk feeding a pool of workers over the grep engine.
 */

#include "warder/sys/backend.h"

int warder__local_grep(warder_backend *b, const struct warder_grep_request *req,
                       struct warder_grep_result *out, struct warder_error *err);

#endif
