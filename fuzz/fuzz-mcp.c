/* SPDX-License-Identifier: MIT */
/*
 * warder mcp's lifecycle, tool dispatch and argument checking (src/mcp over src/rpc) over real
 * sessions: two roots (the workspace and its src/ directory), the local backend, no execute.
 *
 * Input: the bytes an MCP client writes on stdin (any number of lines, anything in them:
 * initialize with any capabilities, tools/call with any arguments, answers to the server's
 * elicitation requests), then end of input; the server reads them through a pipe and answers
 * into a memory file. Workspace and fixture ruleset: fuzz/door.h.
 * Invariants:
 *  - the server returns at end of input (0), having answered without crashing;
 *  - every output line is a JSON object with "jsonrpc":"2.0" and either a "result" or an
 *    "error" with an integer code, or is a message of the server's own (a notification, an
 *    elicitation request);
 *  - the marker never appears in the output, in any encoding (text or base64 at any of the
 *    three alignments): a denied file is never read into a result, whatever the tool.
 */
#include <sys/mman.h>

#include "door.h"
#include "mcp/mcp.h"

static struct warder_session_set *sessions;

static void cleanup(void)
{
        warder_session_set_free(sessions);
        door_remove();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        door_workspace("warder-fuzz-mcp");
        atexit(cleanup);
        return 0;
}

/* Fresh sessions per input: nothing carries over, and every allocation of a run is freed by
 * its end, as libFuzzer's leak check expects. */
static void sessions_open(void)
{
        char src[128];
        snprintf(src, sizeof(src), "%s/src", door_root);
        const char *roots[] = {door_root, src};
        struct warder_session_config cfg = {
            .source = door_source,
            .home = "/home/agent",
            .approve_ex = warder_mcp_approve,
        };
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_session_set_new(&sessions, &cfg, roots, 2, &err);
        FUZZ_CHECK(rc == 0, "sessions: %s", err.message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!door_root[0])
                LLVMFuzzerInitialize(NULL, NULL);
        if (size > (1u << 20))
                return 0;
        door_put("scratch.txt", "scratch\n");
        sessions_open();
        int in = door_input(data, size);
        int out = memfd_create("fuzz-mcp-out", MFD_CLOEXEC);
        FUZZ_CHECK(out >= 0, "memfd_create");
        struct warder_mcp_config mc = {
            .sessions = sessions,
            .in_fd = in,
            .out_fd = out,
            .max_line = 4096,
            .max_pending = 8,
            .elicitation_timeout_ms = 50,
        };
        FUZZ_CHECK(warder_mcp_run(&mc) == 0, "the server did not end cleanly");
        warder_session_set_free(sessions);
        sessions = NULL;
        close(in);
        size_t len = 0;
        char *text = door_output(out, &len);
        door_check_lines(text, len, NULL);
        door_check_marker(text, len);
        free(text);
        return 0;
}
