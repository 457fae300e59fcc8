/* SPDX-License-Identifier: MIT */
/*
 * What the harnesses of the doors (fuzz-serve, fuzz-mcp) share: a scratch workspace whose
 * denied files hold a marker drawn at random once per process (the input cannot spell it),
 * the client's bytes fed through a pipe, and the checks on what the server wrote back.
 *
 * Workspace: src/main.c, .env and secret.txt holding the marker, notes.txt -> .env, q.ask
 * (ask), scratch.txt (the only writable file), under the fixture ruleset below.
 */
#ifndef WARDER_FUZZ_DOOR_H
#define WARDER_FUZZ_DOOR_H

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
#include "session/session.h"

static const char door_fixture[] = "warder: 1\n"
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

static const struct warder_session_source door_source = {
    .kind = WARDER_SESSION_TEXT,
    .value = door_fixture,
    .len = sizeof(door_fixture) - 1,
    .name = "fixture",
};

static char door_root[64];
static char door_marker[40];
static char *door_marker_b64[3]; /* base64 of the marker after 0, 1 and 2 bytes of prefix */

static void door_put(const char *rel, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", door_root, rel);
        FILE *f = fopen(path, "w");
        FUZZ_CHECK(f != NULL, "cannot create %s", path);
        fputs(text, f);
        fclose(f);
}

static int door_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static void door_remove(void)
{
        if (door_root[0])
                nftw(door_root, door_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Draws the marker and makes the workspace (on tmpfs where there is one: a write's fsync then
 * costs nothing) under a name starting with `name`. */
static void door_workspace(const char *name)
{
        unsigned char rnd[16];
        FUZZ_CHECK(getrandom(rnd, sizeof(rnd), 0) == (ssize_t)sizeof(rnd), "no randomness");
        strcpy(door_marker, "M-");
        for (int i = 0; i < 16; i++)
                snprintf(door_marker + 2 + 2 * i, 3, "%02x", rnd[i]);
        /* a marker stays recognisable in base64 whatever the bytes before it */
        for (int k = 0; k < 3; k++) {
                char buf[64] = "xx";
                strcpy(buf + k, door_marker);
                char *b = warder_json_base64_encode(buf, strlen(buf));
                FUZZ_CHECK(b != NULL, "out of memory");
                size_t skip = k == 0 ? 0 : 4; /* the group holding the prefix differs */
                door_marker_b64[k] = strndup(b + skip, 24);
                free(b);
        }
        snprintf(door_root, sizeof(door_root), "/dev/shm/%s.XXXXXX", name);
        if (!mkdtemp(door_root)) {
                snprintf(door_root, sizeof(door_root), "/tmp/%s.XXXXXX", name);
                FUZZ_CHECK(mkdtemp(door_root) != NULL, "mkdtemp");
        }
        char path[256];
        snprintf(path, sizeof(path), "%s/src", door_root);
        FUZZ_CHECK(mkdir(path, 0755) == 0, "mkdir");
        char line[128];
        snprintf(line, sizeof(line), "API_KEY=%s\n", door_marker);
        door_put(".env", line);
        door_put("secret.txt", line);
        door_put("src/main.c", "int main(void) { return 0; } /* API_KEY */\n");
        door_put("q.ask", "question\n");
        door_put("scratch.txt", "scratch\n");
        snprintf(path, sizeof(path), "%s/notes.txt", door_root);
        FUZZ_CHECK(symlink(".env", path) == 0, "symlink");
}

/*
 * Whether `needle` occurs in `hay`, by a rolling hash (Rabin-Karp). Not memmem(): libFuzzer
 * watches the arguments of memmem and memcmp and would learn the marker from this very
 * check, then type it into a request that echoes it back. A hash comparison teaches nothing.
 */
static bool door_contains(const char *hay, size_t n, const char *needle)
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

/* The read end of a pipe holding all of `data`, then end of input. */
static int door_input(const uint8_t *data, size_t size)
{
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
        return in[0];
}

/* What the server wrote into the memory file `out` (closed), NUL-terminated; free() it. */
static char *door_output(int out, size_t *len)
{
        off_t n = lseek(out, 0, SEEK_END);
        char *text = malloc((size_t)n + 1);
        FUZZ_CHECK(text != NULL, "out of memory");
        FUZZ_CHECK(pread(out, text, (size_t)n, 0) == n, "read the answers");
        text[n] = '\0';
        close(out);
        *len = (size_t)n;
        return text;
}

/*
 * Every line is a JSON object with "jsonrpc":"2.0" and exactly one of result/error (an
 * error with an integer code and a message), or a message of the server's own (a
 * notification or a request: it has a method). Returns whether a result has the member
 * `flag` (NULL: none is looked for).
 */
static bool door_check_lines(const char *out, size_t len, const char *flag)
{
        bool flagged = false;
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
                bool own = json_object_get(msg, "method") != NULL;
                FUZZ_CHECK(own || (!res != !e), "neither (or both) result and error");
                if (e)
                        FUZZ_CHECK(json_is_integer(json_object_get(e, "code")) &&
                                       json_is_string(json_object_get(e, "message")),
                                   "an error without code or message");
                if (flag && json_is_object(res) && json_object_get(res, flag))
                        flagged = true;
                json_decref(msg);
                p = nl + 1;
        }
        return flagged;
}

/* The marker never appears in `out`, as text or in base64 at any alignment. */
static void door_check_marker(const char *out, size_t len)
{
        FUZZ_CHECK(!door_contains(out, len, door_marker), "the marker leaked");
        for (int k = 0; k < 3; k++)
                FUZZ_CHECK(!door_contains(out, len, door_marker_b64[k]),
                           "the marker leaked in base64");
}

#endif
