/* SPDX-License-Identifier: MIT */
/* Not yet implemented: loading answers WARDER_ENOTSUP. */
#include "warder/ruleset.h"
#include "warder/sys/backend.h"

WARDER_API int warder_ruleset_load_file(warder_ruleset **out, const char *path,
					const struct warder_ruleset_options *opts,
					struct warder_error *err)
{
	(void)out;
	(void)path;
	(void)opts;
	return warder_error_set(err, WARDER_ENOTSUP, "rulesets are not implemented yet");
}

WARDER_API int warder_ruleset_load_preset(warder_ruleset **out, const char *preset,
					  const struct warder_ruleset_options *opts,
					  struct warder_error *err)
{
	(void)out;
	(void)preset;
	(void)opts;
	return warder_error_set(err, WARDER_ENOTSUP, "rulesets are not implemented yet");
}

#include "command/command.h"

bool warder__ruleset_match_execute(const warder_ruleset *rs, const char *text, size_t len,
				   bool whole_line, struct warder_decision *d)
{
	(void)rs;
	(void)text;
	(void)len;
	(void)whole_line;
	(void)d;
	return false;
}

WARDER_API enum warder_action warder_ruleset_default(const warder_ruleset *rs, enum warder_op op)
{
	(void)rs;
	(void)op;
	return WARDER_ASK;
}
