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
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "json/json.h"
#include "serve/serve.h"
#include "session/session.h"

static const char fixture[] = "warder: 1\n"
                              "default: allow\n"
                              "read:\n"
                              "  rules:\n"
                              "    - deny: \"**/.env\"\n"
                              "    - deny: \"**/secret*\"\n"
                              "    - ask: \"**/*.ask\"\n"
                              "grep:\n"
                              "  rules:\n"
                              "    - deny: \"**/.env\"\n"
                              "write:\n"
                              "  default: deny\n"
                              "  rules:\n"
                              "    - allow: \"scratch.txt\"\n"
                              "edit:\n"
                              "  default: deny\n"
                              "  rules:\n"
                              "    - allow: \"scratch.txt\"\n"
                              "execute:\n"
                              "  default: deny\n";

static char root[64];
static char marker[40];
static char *marker_b64[3]; /* base64 of the marker after 0, 1 and 2 bytes of prefix */
static struct warder_session *session;
static const struct warder_session_source fixture_source = {
    .kind = WARDER_SESSION_TEXT,
    .value = fixture,
    .len = sizeof(fixture) - 1,
    .name = "fixture",
};

static void put(const char *rel, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        FILE *f = fopen(path, "w");
        FUZZ_CHECK(f != NULL, "cannot create %s", path);
        fputs(text, f);
        fclose(f);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static void cleanup(void)
{
        warder_session_free(session);
        if (root[0])
                nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        unsigned char rnd[16];
        FUZZ_CHECK(getrandom(rnd, sizeof(rnd), 0) == (ssize_t)sizeof(rnd), "no randomness");
        strcpy(marker, "M-");
        for (int i = 0; i < 16; i++)
                snprintf(marker + 2 + 2 * i, 3, "%02x", rnd[i]);
        /* a marker stays recognisable in base64 whatever the bytes before it */
        for (int k = 0; k < 3; k++) {
                char buf[64] = "xx";
                strcpy(buf + k, marker);
                char *b = warder_json_base64_encode(buf, strlen(buf));
                FUZZ_CHECK(b != NULL, "out of memory");
                size_t skip = k == 0 ? 0 : 4; /* the group holding the prefix differs */
                marker_b64[k] = strndup(b + skip, 24);
                free(b);
        }
        /* on tmpfs where there is one: a write's fsync then costs nothing */
        strcpy(root, "/dev/shm/warder-fuzz-serve.XXXXXX");
        if (!mkdtemp(root)) {
                strcpy(root, "/tmp/warder-fuzz-serve.XXXXXX");
                FUZZ_CHECK(mkdtemp(root) != NULL, "mkdtemp");
        }
        char path[256];
        snprintf(path, sizeof(path), "%s/src", root);
        FUZZ_CHECK(mkdir(path, 0755) == 0, "mkdir");
        char line[128];
        snprintf(line, sizeof(line), "API_KEY=%s\n", marker);
        put(".env", line);
        put("secret.txt", line);
        put("src/main.c", "int main(void) { return 0; } /* API_KEY */\n");
        put("q.ask", "question\n");
        put("scratch.txt", "scratch\n");
        snprintf(path, sizeof(path), "%s/notes.txt", root);
        FUZZ_CHECK(symlink(".env", path) == 0, "symlink");
        atexit(cleanup);
        return 0;
}

/* A fresh session per input: nothing (approval tokens, a reloaded ruleset) carries over, and
 * every allocation of a run is freed by its end, as libFuzzer's leak check expects. */
static void session_open(void)
{
        struct warder_session_config cfg = {
            .source = fixture_source,
            .root = root,
            .home = "/home/agent",
        };
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_session_new(&session, &cfg, &err);
        FUZZ_CHECK(rc == 0, "session: %s", err.message);
}

/*
 * Whether `needle` occurs in `hay`, by a rolling hash (Rabin-Karp). Not memmem(): libFuzzer
 * watches the arguments of memmem and memcmp and would learn the marker from this very
 * check, then type it into a request that echoes it back. A hash comparison teaches nothing.
 */
static bool contains(const char *hay, size_t n, const char *needle)
{
        size_t m = strlen(needle);
        if (m == 0 || n < m)
                return false;
        const uint64_t base = 1099511628211u;
        uint64_t want = 0, have = 0, top = 1;
        for (size_t i = 0; i < m; i++) {
                want = want * base + (unsigned char)needle[i];
                have = have * base + (unsigned char)hay[i];
                if (i)
                        top *= base;
        }
        for (size_t i = 0;; i++) {
                if (have == want) {
                        size_t k = 0;
                        while (k < m && hay[i + k] == needle[k])
                                k++;
                        if (k == m)
                                return true;
                }
                if (i + m >= n)
                        return false;
                have = (have - top * (unsigned char)hay[i]) * base + (unsigned char)hay[i + m];
        }
}

static void check_output(const char *out, size_t len)
{
        bool reloaded = false;
        const char *p = out, *end = out + len;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                FUZZ_CHECK(nl != NULL, "an answer without its newline");
                json_error_t jerr;
                json_t *msg = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &jerr);
                FUZZ_CHECK(json_is_object(msg), "not a JSON object: %s", jerr.text);
                json_t *v = json_object_get(msg, "jsonrpc");
                FUZZ_CHECK(json_is_string(v) && strcmp(json_string_value(v), "2.0") == 0,
                           "no \"jsonrpc\":\"2.0\"");
                json_t *res = json_object_get(msg, "result"), *e = json_object_get(msg, "error");
                bool note = json_object_get(msg, "method") != NULL;
                FUZZ_CHECK(note || (!res != !e), "neither (or both) result and error");
                if (e)
                        FUZZ_CHECK(json_is_integer(json_object_get(e, "code")) &&
                                       json_is_string(json_object_get(e, "message")),
                                   "an error without code or message");
                if (json_is_object(res) && json_object_get(res, "changed"))
                        reloaded = true;
                json_decref(msg);
                p = nl + 1;
        }
        if (reloaded)
                return;
        FUZZ_CHECK(!contains(out, len, marker), "the marker leaked");
        for (int k = 0; k < 3; k++)
                FUZZ_CHECK(!contains(out, len, marker_b64[k]), "the marker leaked in base64");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!root[0])
                LLVMFuzzerInitialize(NULL, NULL);
        if (size > (1u << 20))
                return 0;
        put("scratch.txt", "scratch\n");
        session_open();
        int in[2];
        FUZZ_CHECK(pipe2(in, O_CLOEXEC) == 0, "pipe");
        /* the whole input fits in the pipe, so one thread can write it all, then serve */
        FUZZ_CHECK(fcntl(in[1], F_SETPIPE_SZ, 1 << 20) >= (int)size || size < 65536,
                   "cannot grow the pipe");
        for (size_t off = 0; off < size;) {
                ssize_t n = write(in[1], data + off, size - off);
                FUZZ_CHECK(n > 0, "write to the pipe");
                off += (size_t)n;
        }
        close(in[1]);
        int out = memfd_create("fuzz-serve-out", MFD_CLOEXEC);
        FUZZ_CHECK(out >= 0, "memfd_create");
        struct warder_serve_config sc = {
            .session = session,
            .in_fd = in[0],
            .out_fd = out,
            .max_line = 4096,
            .max_pending = 8,
        };
        FUZZ_CHECK(warder_serve_run(&sc) == 0, "the server did not end cleanly");
        warder_session_free(session);
        session = NULL;
        close(in[0]);
        off_t len = lseek(out, 0, SEEK_END);
        char *text = malloc((size_t)len + 1);
        FUZZ_CHECK(text != NULL, "out of memory");
        FUZZ_CHECK(pread(out, text, (size_t)len, 0) == len, "read the answers");
        close(out);
        check_output(text, (size_t)len);
        free(text);
        return 0;
}
