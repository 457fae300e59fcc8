/* SPDX-License-Identifier: MIT */
/*
 * uthash for the library: an allocation failure inside a HASH_ADD* leaves the table as it
 * was and sets warder__hash_oom instead of calling exit() (uthash's default), because the
 * library never exits its host. Include this instead of <uthash.h>; clear the flag before a
 * HASH_ADD* and test it after.
 */
#ifndef WARDER_UTHASH_SAFE_H
#define WARDER_UTHASH_SAFE_H

#include <stdbool.h>

extern _Thread_local bool warder__hash_oom;

#define HASH_NONFATAL_OOM        1
#define uthash_nonfatal_oom(obj) (warder__hash_oom = true)
#include <uthash.h>

#endif
