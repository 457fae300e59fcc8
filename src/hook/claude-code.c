/* SPDX-License-Identifier: MIT */
/*
 * Claude Code's PreToolUse hook (semantics §9): its tools and their input fields, and its
 * answer, as the Claude Code hooks reference documents them (docs/hooks.md cites the pages).
 *
 * Answer: exit 0 with {"hookSpecificOutput":{"hookEventName":"PreToolUse",
 * "permissionDecision":"allow"|"ask","permissionDecisionReason":…}} on stdout; a deny exits 2
 * (the one exit code that blocks whatever the JSON says) with the same object, decision "deny",
 * on stdout and the reason on stderr, which Claude Code shows to Claude when it does not read
 * the JSON. No opinion: exit 0 and no output (the normal permission flow applies).
 */
#include <stdlib.h>
#include <string.h>

#include "hook/hook.h"
#include "json/json.h"

static const char *const file_path[] = {"file_path", NULL};
static const char *const notebook_path[] = {"notebook_path", NULL};
static const char *const path[] = {"path", NULL};
static const char *const command[] = {"command", NULL};
static const char *const glob_pattern[] = {"pattern", NULL};
static const char *const grep_filter[] = {"glob", NULL};

static const struct warder_hook_tool tools[] = {
    {"Read", WARDER_HOOK_READ, file_path, true, NULL, NULL},
    {"NotebookRead", WARDER_HOOK_READ, notebook_path, true, NULL, NULL},
    {"Write", WARDER_HOOK_WRITE, file_path, true, NULL, NULL},
    {"Edit", WARDER_HOOK_EDIT, file_path, true, NULL, NULL},
    {"MultiEdit", WARDER_HOOK_EDIT, file_path, true, NULL, NULL},
    {"NotebookEdit", WARDER_HOOK_EDIT, notebook_path, true, NULL, NULL},
    {"LS", WARDER_HOOK_LS, path, false, NULL, NULL},
    {"Glob", WARDER_HOOK_GLOB, path, false, glob_pattern, NULL},
    {"Grep", WARDER_HOOK_GREP, path, false, grep_filter, NULL},
    {"Bash", WARDER_HOOK_EXECUTE, command, true, NULL, NULL},
};

static int encode(enum warder_hook_verdict v, const char *reason, struct warder_hook_answer *ans)
{
        if (v == WARDER_HOOK_NO_OPINION)
                return warder_hook_answer_set(ans, 0, "", "");
        const char *decision = v == WARDER_HOOK_ALLOW ? "allow"
                               : v == WARDER_HOOK_ASK ? "ask"
                                                      : "deny";
        json_t *o =
            json_pack("{s:{s:s,s:s,s:s}}", "hookSpecificOutput", "hookEventName", "PreToolUse",
                      "permissionDecision", decision, "permissionDecisionReason", reason);
        return warder_hook_answer_json(ans, v, o, reason);
}

const struct warder_hook_protocol warder_hook_claude_code = {
    .name = "claude-code",
    .agent = "Claude Code",
    .event = "PreToolUse",
    .project_env = "CLAUDE_PROJECT_DIR",
    .tools = tools,
    .ntools = sizeof(tools) / sizeof(tools[0]),
    .encode = encode,
    .settings_dir = ".claude",
};
