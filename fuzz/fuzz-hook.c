/* SPDX-License-Identifier: MIT */
/*
 * The agents' hook events (src/hook): the bytes an agent writes on the stdin of `warder hook`,
 * answered for Claude Code and for Gemini CLI, under the default preset, over a scratch
 * workspace.
 *
 * Input: one event (any bytes). Every "@ROOT@" in it is replaced by the workspace's path, so
 * that the seed corpus (tests/hook/fixtures, copied into fuzz/corpus/hook) names real files.
 * Workspace: src/main.c, .env and secret.txt holding a marker, notes.txt -> .env, sub/.
 * Invariants, for both agents:
 *  - an answer always comes back (never a crash or an error return);
 *  - exit status 0 or 2, and 2 exactly when the verdict is deny; a deny has its reason on
 *    stderr (both agents block on exit 2 and show stderr);
 *  - stdout is empty (no opinion, exit 0 and nothing else) or one JSON object line with the
 *    agent's documented keys and a decision matching the verdict;
 *  - an allowed read tool (Read, NotebookRead, read_file) never names a path whose kernel
 *    real form is the .env or secret.txt file: what is allowed never opens the secret.
 */
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "hook/hook.h"

static char root[64];
static struct stat secret_st[2];

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
        if (root[0])
                nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        strcpy(root, "/tmp/warder-fuzz-hook.XXXXXX");
        FUZZ_CHECK(mkdtemp(root) != NULL, "mkdtemp");
        char path[256];
        snprintf(path, sizeof(path), "%s/src", root);
        FUZZ_CHECK(mkdir(path, 0755) == 0, "mkdir");
        snprintf(path, sizeof(path), "%s/sub", root);
        FUZZ_CHECK(mkdir(path, 0755) == 0, "mkdir");
        put("src/main.c", "int main(void) { return 0; }\n");
        put(".env", "API_KEY=fuzz-marker\n");
        put("secret.txt", "API_KEY=fuzz-marker\n");
        snprintf(path, sizeof(path), "%s/notes.txt", root);
        FUZZ_CHECK(symlink(".env", path) == 0, "symlink");
        snprintf(path, sizeof(path), "%s/.env", root);
        FUZZ_CHECK(stat(path, &secret_st[0]) == 0, "stat");
        snprintf(path, sizeof(path), "%s/secret.txt", root);
        FUZZ_CHECK(stat(path, &secret_st[1]) == 0, "stat");
        atexit(cleanup);
        return 0;
}

/* The input with "@ROOT@" replaced by the workspace. */
static char *substitute(const uint8_t *data, size_t size, size_t *len)
{
        size_t rl = strlen(root), cap = size + 1, n = 0;
        for (size_t i = 0; i + 6 <= size; i++)
                if (memcmp(data + i, "@ROOT@", 6) == 0)
                        cap += rl;
        char *out = malloc(cap);
        FUZZ_CHECK(out != NULL, "out of memory");
        for (size_t i = 0; i < size;) {
                if (i + 6 <= size && memcmp(data + i, "@ROOT@", 6) == 0) {
                        memcpy(out + n, root, rl);
                        n += rl;
                        i += 6;
                } else {
                        out[n++] = (char)data[i++];
                }
        }
        out[n] = '\0';
        *len = n;
        return out;
}

static bool is_secret(const char *path)
{
        struct stat st;
        if (stat(path, &st) != 0)
                return false;
        for (int i = 0; i < 2; i++)
                if (st.st_dev == secret_st[i].st_dev && st.st_ino == secret_st[i].st_ino)
                        return true;
        return false;
}

/* An allowed read names no secret, in any spelling the agent's tool may open. */
static void check_allowed_read(const char *event, size_t len)
{
        json_t *ev = json_loadb(event, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
        const char *tool = json_string_value(json_object_get(ev, "tool_name"));
        const char *cwd = json_string_value(json_object_get(ev, "cwd"));
        json_t *in = json_object_get(ev, "tool_input");
        /* the read tools and the fields each reads its path from */
        static const struct {
                const char *tool;
                const char *fields[4];
        } readers[] = {
            {"Read", {"file_path"}},
            {"NotebookRead", {"notebook_path"}},
            {"read_file", {"file_path", "absolute_path", "path"}},
        };
        const char *const *fields = NULL;
        for (size_t i = 0; tool && i < sizeof(readers) / sizeof(readers[0]); i++)
                if (strcmp(tool, readers[i].tool) == 0)
                        fields = readers[i].fields;
        for (size_t i = 0; fields && cwd && i < 4 && fields[i]; i++) {
                json_t *v = json_object_get(in, fields[i]);
                const char *p = json_string_value(v);
                if (!p || strlen(p) != json_string_length(v))
                        continue;
                char full[8192];
                if (p[0] == '/')
                        snprintf(full, sizeof(full), "%s", p);
                else
                        snprintf(full, sizeof(full), "%s/%s", cwd, p);
                FUZZ_CHECK(!is_secret(full), "an allowed %s opens the secret: %s", tool, full);
        }
        json_decref(ev);
}

static void check_answer(const struct warder_hook_protocol *p, const struct warder_hook_answer *a,
                         const char *event, size_t len)
{
        FUZZ_CHECK(a->out && a->err, "an answer without its texts");
        FUZZ_CHECK(a->exit_code == 0 || a->exit_code == 2, "exit status %d", a->exit_code);
        FUZZ_CHECK((a->exit_code == 2) == (a->verdict == WARDER_HOOK_DENY),
                   "exit %d for verdict %d", a->exit_code, a->verdict);
        if (a->verdict == WARDER_HOOK_NO_OPINION) {
                FUZZ_CHECK(a->out_len == 0 && a->err_len == 0, "no opinion with output");
                return;
        }
        if (a->verdict == WARDER_HOOK_DENY)
                FUZZ_CHECK(a->err_len > 1 && a->err[a->err_len - 1] == '\n', "a deny's stderr");
        else
                FUZZ_CHECK(a->err_len == 0, "stderr on %d", a->verdict);
        FUZZ_CHECK(a->out_len > 1 && a->out[a->out_len - 1] == '\n' &&
                       memchr(a->out, '\n', a->out_len) == a->out + a->out_len - 1,
                   "stdout is not one line");
        json_error_t jerr;
        json_t *o = json_loadb(a->out, a->out_len, JSON_REJECT_DUPLICATES, &jerr);
        FUZZ_CHECK(json_is_object(o), "stdout is not a JSON object: %s", jerr.text);
        static const char *const names[] = {"", "allow", "ask", "deny"};
        const char *decision = NULL;
        if (p == &warder_hook_claude_code) {
                json_t *h = json_object_get(o, "hookSpecificOutput");
                FUZZ_CHECK(json_object_size(o) == 1 && json_object_size(h) == 3, "keys");
                FUZZ_CHECK(strcmp(json_string_value(json_object_get(h, "hookEventName")),
                                  "PreToolUse") == 0,
                           "hookEventName");
                FUZZ_CHECK(json_is_string(json_object_get(h, "permissionDecisionReason")),
                           "permissionDecisionReason");
                decision = json_string_value(json_object_get(h, "permissionDecision"));
        } else {
                size_t want = a->verdict == WARDER_HOOK_ASK ? 3 : 2;
                FUZZ_CHECK(json_object_size(o) == want, "keys");
                FUZZ_CHECK(json_is_string(json_object_get(o, "reason")), "reason");
                decision = json_string_value(json_object_get(o, "decision"));
        }
        FUZZ_CHECK(decision && strcmp(decision, names[a->verdict]) == 0, "decision %s",
                   decision ? decision : "(none)");
        json_decref(o);
        if (a->verdict == WARDER_HOOK_ALLOW)
                check_allowed_read(event, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!root[0])
                LLVMFuzzerInitialize(NULL, NULL);
        if (size > (1u << 20))
                return 0;
        size_t len = 0;
        char *event = substitute(data, size, &len);
        const struct warder_hook_protocol *protocols[] = {&warder_hook_claude_code,
                                                          &warder_hook_gemini_cli};
        for (size_t i = 0; i < 2; i++) {
                struct warder_hook_config cfg = {
                    .protocol = protocols[i],
                    .source = {.kind = WARDER_SESSION_PRESET, .value = "default"},
                    .root = root,
                    .home = "/home/agent",
                    .max_scan = 200,
                };
                struct warder_hook_answer ans;
                int rc = warder_hook_decide(&cfg, event, len, &ans);
                FUZZ_CHECK(rc == 0, "warder_hook_decide returned %d", rc);
                check_answer(protocols[i], &ans, event, len);
                warder_hook_answer_free(&ans);
        }
        free(event);
        return 0;
}
