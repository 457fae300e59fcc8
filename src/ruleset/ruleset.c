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
