/* SPDX-License-Identifier: MIT */
/*
 * Gemini CLI's BeforeTool hook (semantics §9): its tools and their input fields — the names of
 * the current tool declarations and the older ones still in use — and its answer, as Gemini
 * CLI's docs/hooks/reference.md and hook runner define them (docs/hooks.md cites the pages).
 *
 * Answer: exit 0 with {"decision":"allow"|"ask","reason":…} on stdout (an ask also sets
 * "systemMessage", shown in the confirmation); a deny exits 2, which blocks the tool with
 * stderr as the reason sent to the agent (the hook runner reads only stderr then, so it is
 * never empty), and writes {"decision":"deny","reason":…} on stdout as well. No opinion: exit 0
 * and no output.
 */
#include <stdlib.h>
#include <string.h>

#include "hook/hook.h"
#include "json/json.h"

static const char *const read_paths[] = {"file_path", "absolute_path", "path", NULL};
static const char *const file_path[] = {"file_path", NULL};
static const char *const many[] = {"include", "paths", NULL};
static const char *const dir_path[] = {"dir_path", "path", NULL};
static const char *const command[] = {"command", NULL};
static const char *const glob_pattern[] = {"pattern", NULL};
static const char *const grep_filter[] = {"include_pattern", "include", NULL};
static const char *const shell_dir[] = {"dir_path", "directory", NULL};

static const struct warder_hook_tool tools[] = {
    {"read_file", WARDER_HOOK_READ, read_paths, true, NULL, NULL},
    {"read_many_files", WARDER_HOOK_READ_MANY, many, true, NULL, NULL},
    {"write_file", WARDER_HOOK_WRITE, file_path, true, NULL, NULL},
    {"replace", WARDER_HOOK_EDIT, file_path, true, NULL, NULL},
    {"list_directory", WARDER_HOOK_LS, dir_path, false, NULL, NULL},
    {"glob", WARDER_HOOK_GLOB, dir_path, false, glob_pattern, NULL},
    {"search_file_content", WARDER_HOOK_GREP, dir_path, false, grep_filter, NULL},
    {"grep_search", WARDER_HOOK_GREP, dir_path, false, grep_filter, NULL},
    {"run_shell_command", WARDER_HOOK_EXECUTE, command, true, NULL, shell_dir},
};

static int encode(enum warder_hook_verdict v, const char *reason, struct warder_hook_answer *ans)
{
        if (v == WARDER_HOOK_NO_OPINION)
                return warder_hook_answer_set(ans, 0, "", "");
        json_t *o = NULL;
        if (v == WARDER_HOOK_ASK)
                o = json_pack("{s:s,s:s,s:s}", "decision", "ask", "reason", reason, "systemMessage",
                              reason);
        else
                o = json_pack("{s:s,s:s}", "decision", v == WARDER_HOOK_ALLOW ? "allow" : "deny",
                              "reason", reason);
        return warder_hook_answer_json(ans, v, o, reason);
}

const struct warder_hook_protocol warder_hook_gemini_cli = {
    .name = "gemini-cli",
    .agent = "Gemini CLI",
    .event = "BeforeTool",
    .project_env = "GEMINI_PROJECT_DIR",
    .tools = tools,
    .ntools = sizeof(tools) / sizeof(tools[0]),
    .encode = encode,
    .settings_dir = ".gemini",
};
