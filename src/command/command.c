/* SPDX-License-Identifier: MIT */
/* Not yet implemented: the whole line is matched against the execute rules (§5.2 only). */
#include <string.h>

#include "command.h"
#include "warder/sys/backend.h"

WARDER_API int warder_ruleset_check_command(const warder_ruleset *rs, const char *command,
					    size_t len, const struct warder_command_context *ctx,
					    struct warder_decision *out, struct warder_error *err)
{
	(void)ctx;
	if (!rs || !command || !out)
		return warder_error_set(err, WARDER_EINVAL, "invalid argument");
	if (len == 0 || memchr(command, '\0', len))
		return warder_error_set(err, WARDER_EINVAL, "empty command or NUL byte");
	struct warder_decision d = WARDER_DECISION_INIT;
	if (!warder__ruleset_match_execute(rs, command, len, false, &d)) {
		d.by_default = true;
		d.action = warder_ruleset_default(rs, WARDER_OP_EXECUTE);
	}
	d.op = WARDER_OP_EXECUTE;
	*out = d;
	return 0;
}
