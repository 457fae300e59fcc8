/* SPDX-License-Identifier: MIT */
#ifndef WARDER_COMMAND_H
#define WARDER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "warder/ruleset.h"

/*
 * Provided by the ruleset module for command inspection (§5.1–§5.3): the strictest action
 * among the `execute` rules whose pattern matches `text` (one form of a simple command, or
 * the whole line when `whole_line` is true, in which case allow rules are not consulted).
 * Returns true and fills *d (strings borrowed from the ruleset) when some rule matched;
 * false and leaves *d alone otherwise. Engine errors fail closed (§2.10).
 */
bool warder__ruleset_match_execute(const warder_ruleset *rs, const char *text, size_t len,
                                   bool whole_line, struct warder_decision *d);

#endif
