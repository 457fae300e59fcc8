/* SPDX-License-Identifier: MIT */
/*
 * warder serve's request parser and dispatcher (src/rpc, src/serve) over a real session: the
 * local backend confined to a scratch workspace, no execute.
 *
 * Input: the bytes a client writes on stdin (any number of lines, anything in them), then
 * end of input. The server reads them through a pipe and answers into a memory file.
 * Workspace: src/main.c, .env and secret.txt holding a marker drawn at random once per
 * process (the input cannot spell it), notes.txt -> .env, q.ask (ask), scratch.txt (the only
 * writable file).
 * Invariants:
 *  - the server returns at end of input (0), having answered without crashing;
 *  - every output line is a JSON object with "jsonrpc":"2.0" and either a "result" or an
 *    "error" with an integer code, or is a notification;
 *  - the marker never appears in the output, in any encoding the server uses (text or
 *    base64 at any of the three alignments): denied files are never read into an answer.
 *    (ruleset.reload is the host's to call and may allow anything: an input whose reload
 *    succeeded is checked for everything but the marker; every input gets a fresh session.)
 */
#include <sys/mman.h>

#include "door.h"
#include "serve/serve.h"

static struct warder_session *session;

static void cleanup(void)
{
        warder_session_free(session);
        door_remove();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        door_workspace("warder-fuzz-serve");
        atexit(cleanup);
        return 0;
}

/* A fresh session per input: nothing (approval tokens, a reloaded ruleset) carries over, and
 * every allocation of a run is freed by its end, as libFuzzer's leak check expects. */
static void session_open(void)
{
        struct warder_session_config cfg = {
            .source = door_source,
            .root = door_root,
            .home = "/home/agent",
        };
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_session_new(&session, &cfg, &err);
        FUZZ_CHECK(rc == 0, "session: %s", err.message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!door_root[0])
                LLVMFuzzerInitialize(NULL, NULL);
        if (size > (1u << 20))
                return 0;
        door_put("scratch.txt", "scratch\n");
        session_open();
        int in = door_input(data, size);
        int out = memfd_create("fuzz-serve-out", MFD_CLOEXEC);
        FUZZ_CHECK(out >= 0, "memfd_create");
        struct warder_serve_config sc = {
            .session = session,
            .in_fd = in,
            .out_fd = out,
            .max_line = 4096,
            .max_pending = 8,
        };
        FUZZ_CHECK(warder_serve_run(&sc) == 0, "the server did not end cleanly");
        warder_session_free(session);
        session = NULL;
        close(in);
        size_t len = 0;
        char *text = door_output(out, &len);
        /* ruleset.reload is the host's to call and may allow anything: an input whose reload
         * succeeded ("changed" in a result) is checked for everything but the marker */
        if (!door_check_lines(text, len, "changed"))
                door_check_marker(text, len);
        free(text);
        return 0;
}
