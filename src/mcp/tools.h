/* SPDX-License-Identifier: MIT */
/*
 * The MCP tools' definitions (names, titles, descriptions, input and output schemas,
 * annotations) as data: docs/mcp.md lists the same, and tests/mcp checks the listing against
 * the calls.
 */
#ifndef WARDER_MCP_TOOLS_H
#define WARDER_MCP_TOOLS_H

#include <jansson.h>
#include <stdbool.h>

enum mcp_tool_id {
        MCP_READ_TEXT_FILE = 0,
        MCP_READ_FILE, /* the reference server's deprecated name of read_text_file */
        MCP_READ_MULTIPLE_FILES,
        MCP_WRITE_FILE,
        MCP_EDIT_FILE,
        MCP_LIST_DIRECTORY,
        MCP_DIRECTORY_TREE,
        MCP_SEARCH_FILES,
        MCP_LIST_ALLOWED_DIRECTORIES,
        MCP_GREP,
        MCP_EXECUTE, /* last: listed only when commands can run */
        MCP_TOOL_COUNT,
};

struct mcp_tool {
        enum mcp_tool_id id;
        const char *name;
        const char *title;
        const char *description;
        const char *input;    /* JSON Schema of the arguments */
        const char *output;   /* JSON: the success result's properties */
        const char *required; /* JSON: the success result's required properties */
        bool read_only, destructive, idempotent;
};

extern const struct mcp_tool mcp_tools[MCP_TOOL_COUNT];

/* The tool named `name` (`len` bytes), or NULL. */
const struct mcp_tool *mcp_tool_find(const char *name, size_t len);

/* The tools/list entry of `t`; with `structured`, its outputSchema and title too (protocol
 * 2025-06-18 and later). NULL on ENOMEM (or a schema text that does not parse: a bug). */
json_t *mcp_tool_json(const struct mcp_tool *t, bool structured);

#endif
