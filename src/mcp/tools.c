/* SPDX-License-Identifier: MIT */
/* The MCP tools' definitions (see tools.h; docs/mcp.md, "Tools"). */
#include <string.h>

#include "mcp/tools.h"

#define GUARDED " Every call is decided by warder's rules first; a denied call names the rule."

/* A bytes value (§7.2): a string when valid UTF-8, else base64 in an object. */
#define BYTES_SCHEMA                                                                               \
        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":{"                  \
        "\"encoding\":{\"const\":\"base64\"},\"data\":{\"type\":\"string\"}},"                     \
        "\"required\":[\"encoding\",\"data\"]}]}"

#define ENTRIES_SCHEMA                                                                             \
        "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"          \
        "\"name\":" BYTES_SCHEMA ",\"path\":" BYTES_SCHEMA ","                                     \
        "\"type\":{\"enum\":[\"file\",\"dir\",\"symlink\",\"other\"]},"                            \
        "\"size\":{\"type\":\"integer\"},\"mtime\":{\"type\":\"integer\"}},"                       \
        "\"required\":[\"name\",\"path\",\"type\"]}},"                                             \
        "\"hidden\":{\"type\":\"integer\",\"minimum\":0}"

#define TEXT_PROP "\"content\":{\"type\":\"string\"}"

const struct mcp_tool mcp_tools[MCP_TOOL_COUNT] = {
    {MCP_READ_TEXT_FILE, "read_text_file", "Read Text File",
     "Read the complete contents of a file from the file system as text. Use the 'head' "
     "parameter to read only the first N lines of a file, or the 'tail' parameter to read only "
     "the last N lines. A file that is not valid UTF-8 is returned in base64 (encoding: base64). "
     "Only works within allowed directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
     "\"tail\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"If provided, returns only "
     "the last N lines of the file\"},"
     "\"head\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"If provided, returns only "
     "the first N lines of the file\"}},\"required\":[\"path\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"encoding\":{\"enum\":[\"utf-8\",\"base64\"]},"
     "\"bytes\":{\"type\":\"integer\",\"minimum\":0}}",
     "[\"content\",\"encoding\"]", true, false, true},
    {MCP_READ_FILE, "read_file", "Read File (Deprecated)",
     "Read the complete contents of a file as text. DEPRECATED: Use read_text_file "
     "instead." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
     "\"tail\":{\"type\":\"integer\",\"minimum\":0},\"head\":{\"type\":\"integer\",\"minimum\":0}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"encoding\":{\"enum\":[\"utf-8\",\"base64\"]},"
     "\"bytes\":{\"type\":\"integer\",\"minimum\":0}}",
     "[\"content\",\"encoding\"]", true, false, true},
    {MCP_READ_MULTIPLE_FILES, "read_multiple_files", "Read Multiple Files",
     "Read the contents of multiple files simultaneously. Each file's content is returned with "
     "its path as a reference. Failed reads for individual files won't stop the entire "
     "operation. Only works within allowed directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"paths\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"string\"},\"minItems\":1,\"description\":\"Array of file paths to read. Each path must be "
     "a string pointing to a valid file within allowed directories.\"}},"
     "\"required\":[\"paths\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},"
     "\"encoding\":{\"enum\":[\"utf-8\",\"base64\"]},\"error\":{\"type\":\"object\"},"
     "\"decision\":{\"type\":[\"object\",\"null\"]}},\"required\":[\"path\"]}}}",
     "[\"content\",\"files\"]", true, false, true},
    {MCP_WRITE_FILE, "write_file", "Write File",
     "Create a new file or completely overwrite an existing file with new content. Use with "
     "caution as it will overwrite existing files without warning. Only works within allowed "
     "directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":"
     "\"string\"}},\"required\":[\"path\",\"content\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"bytes\":{\"type\":\"integer\",\"minimum\":0}}", "[\"content\",\"bytes\"]",
     false, true, true},
    {MCP_EDIT_FILE, "edit_file", "Edit File",
     "Make edits to a text file. Each edit replaces the first occurrence of an exact text with "
     "new text, in order; all of them apply or none does. Returns a git-style diff showing the "
     "changes made (dryRun: the diff only, nothing is written). Only works within allowed "
     "directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
     "\"edits\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
     "\"oldText\":{\"type\":\"string\",\"description\":\"Text to search for - must match "
     "exactly\"},\"newText\":{\"type\":\"string\",\"description\":\"Text to replace with\"}},"
     "\"required\":[\"oldText\",\"newText\"],\"additionalProperties\":false}},"
     "\"dryRun\":{\"type\":\"boolean\",\"default\":false,\"description\":\"Preview changes using "
     "git-style diff format\"}},\"required\":[\"path\",\"edits\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"diff\":{\"type\":\"string\"},\"dryRun\":{\"type\":\"boolean\"}}",
     "[\"content\",\"diff\",\"dryRun\"]", false, true, false},
    {MCP_LIST_DIRECTORY, "list_directory", "List Directory",
     "Get a detailed listing of all files and directories in a specified path. Results clearly "
     "distinguish between files and directories with [FILE] and [DIR] prefixes. Entries the "
     "rules hide are left out and counted (hidden). Only works within allowed directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     "{" TEXT_PROP "," ENTRIES_SCHEMA "}", "[\"content\",\"entries\",\"hidden\"]", true, false,
     true},
    {MCP_DIRECTORY_TREE, "directory_tree", "Directory Tree",
     "Get a recursive tree view of files and directories as a JSON structure. Each entry "
     "includes 'name', 'type' (file/directory), and 'children' for directories. The output is "
     "formatted with 2-space indentation. Entries the rules hide are left out. Only works "
     "within allowed directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
     "\"excludePatterns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"default\":[]}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"entries\":{\"type\":\"integer\",\"minimum\":0},"
     "\"hidden\":{\"type\":\"integer\",\"minimum\":0},\"truncated\":{\"type\":\"boolean\"}}",
     "[\"content\",\"entries\",\"hidden\",\"truncated\"]", true, false, true},
    {MCP_SEARCH_FILES, "search_files", "Search Files",
     "Recursively search for files and directories matching a glob pattern relative to 'path' "
     "(warder's glob syntax: '*.ext' matches in 'path' itself, '**/*.ext' at any depth). "
     "Returns full paths of all matching items. Only searches within allowed "
     "directories." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"pattern\":{\"type\":"
     "\"string\"},\"excludePatterns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
     "\"default\":[]}},\"required\":[\"path\",\"pattern\"],\"additionalProperties\":false}",
     "{" TEXT_PROP "," ENTRIES_SCHEMA "}", "[\"content\",\"entries\",\"hidden\"]", true, false,
     true},
    {MCP_LIST_ALLOWED_DIRECTORIES, "list_allowed_directories", "List Allowed Directories",
     "Returns the list of directories that this server is allowed to access. Subdirectories "
     "within these allowed directories are also accessible, as far as warder's rules allow.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"directories\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}",
     "[\"content\",\"directories\"]", true, false, true},
    {MCP_GREP, "grep", "Search File Contents",
     "Search the contents of files for a regular expression (PCRE2) under 'path' (default: the "
     "first allowed directory). 'include' is a glob on file names ('*.c') or paths "
     "('src/**/*.c'). Files the rules do not let you read are not searched. Returns "
     "path:line:text for every matching line." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},"
     "\"path\":{\"type\":\"string\"},\"include\":{\"type\":\"string\"},"
     "\"ignoreCase\":{\"type\":\"boolean\",\"default\":false},"
     "\"maxMatches\":{\"type\":\"integer\",\"minimum\":1}},"
     "\"required\":[\"pattern\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"path\":" BYTES_SCHEMA
     ",\"line\":{\"type\":\"integer\"},\"text\":" BYTES_SCHEMA
     "},\"required\":[\"path\",\"line\",\"text\"]}},"
     "\"hidden_files\":{\"type\":\"integer\",\"minimum\":0},\"truncated\":{\"type\":\"boolean\"}}",
     "[\"content\",\"matches\",\"hidden_files\",\"truncated\"]", true, false, true},
    {MCP_EXECUTE, "execute", "Execute Command",
     "Run a shell command line (/bin/sh -c) in the first allowed directory, with a fresh "
     "environment and a deadline ('timeout' in milliseconds, default 60000). The command line "
     "is inspected first: commands and the paths they name are decided by warder's rules. "
     "Returns its standard output and error and how it ended." GUARDED,
     "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},"
     "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400000,\"description\":"
     "\"Deadline in milliseconds; the command's process group is killed at it\"}},"
     "\"required\":[\"command\"],\"additionalProperties\":false}",
     "{" TEXT_PROP ",\"exit_status\":{\"type\":[\"integer\",\"null\"]},"
     "\"signal\":{\"type\":[\"integer\",\"null\"]},\"timed_out\":{\"type\":\"boolean\"},"
     "\"cancelled\":{\"type\":\"boolean\"},\"stdout\":" BYTES_SCHEMA ",\"stderr\":" BYTES_SCHEMA
     ",\"stdout_truncated\":{\"type\":\"boolean\"},\"stderr_truncated\":{\"type\":\"boolean\"},"
     "\"landlock_applied\":{\"type\":\"boolean\"},\"masked\":{\"type\":\"boolean\"}}",
     "[\"content\",\"exit_status\",\"signal\",\"timed_out\",\"stdout\",\"stderr\"]", false, true,
     false},
};

const struct mcp_tool *mcp_tool_find(const char *name, size_t len)
{
        for (size_t i = 0; i < MCP_TOOL_COUNT; i++)
                if (strlen(mcp_tools[i].name) == len && memcmp(mcp_tools[i].name, name, len) == 0)
                        return &mcp_tools[i];
        return NULL;
}

/* What a failed call carries instead of the success properties (see docs/mcp.md). */
static const char failure_props[] =
    "{\"error\":{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\"},"
    "\"message\":{\"type\":\"string\"},\"approval\":{\"enum\":[\"declined\",\"unavailable\","
    "\"timeout\",\"cancelled\",\"failed\"]}},\"required\":[\"code\",\"message\"]},"
    "\"decision\":{\"type\":[\"object\",\"null\"]}}";

static json_t *output_schema(const struct mcp_tool *t)
{
        json_t *props = json_loads(t->output, JSON_REJECT_DUPLICATES, NULL);
        json_t *fail = json_loads(failure_props, JSON_REJECT_DUPLICATES, NULL);
        json_t *req = json_loads(t->required, 0, NULL);
        json_t *schema = NULL;
        if (props && fail && req && json_object_update(props, fail) == 0)
                schema = json_pack("{s:s,s:O,s:[{s:O},{s:[s,s]}]}", "type", "object", "properties",
                                   props, "anyOf", "required", req, "required", "content", "error");
        json_decref(props);
        json_decref(fail);
        json_decref(req);
        return schema;
}

json_t *mcp_tool_json(const struct mcp_tool *t, bool structured)
{
        json_t *input = json_loads(t->input, JSON_REJECT_DUPLICATES, NULL);
        json_t *o = input ? json_pack("{s:s,s:s,s:o}", "name", t->name, "description",
                                      t->description, "inputSchema", input)
                          : NULL;
        json_t *ann = json_pack("{s:s,s:b,s:b,s:b,s:b}", "title", t->title, "readOnlyHint",
                                t->read_only, "destructiveHint", t->destructive, "idempotentHint",
                                t->idempotent, "openWorldHint", 0);
        bool bad = !o || !ann || json_object_set_new(o, "annotations", ann);
        if (!o)
                json_decref(ann);
        if (!bad && structured) {
                json_t *out = output_schema(t);
                bad = !out || json_object_set_new(o, "outputSchema", out) ||
                      json_object_set_new(o, "title", json_string(t->title));
        }
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}
