/* SPDX-License-Identifier: MIT */
/*
 * The sample workspace of the tour, for tests of the command and of the docs: a source file,
 * a .env holding a key, an SSH key, and notes.txt, a symlink to the .env.
 */
#ifndef WARDER_TEST_WORKSPACE_H
#define WARDER_TEST_WORKSPACE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS_MAIN_C "int main(void) { return 0; } /* reads API_KEY from the env */\n"
#define WS_SECRET "sk-live-0123456789abcdef"

static char ws[256];

static void ws_put(const char *rel, const char *content)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", ws, rel);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(content, f);
        fclose(f);
}

static void ws_make(void)
{
        strcpy(ws, "/tmp/warder-ws.XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(ws));
        char path[512];
        snprintf(path, sizeof(path), "%s/src", ws);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/.ssh", ws);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        ws_put("src/main.c", WS_MAIN_C);
        ws_put(".env", "API_KEY=" WS_SECRET "\n");
        ws_put(".ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        snprintf(path, sizeof(path), "%s/notes.txt", ws);
        ck_assert_int_eq(symlink(".env", path), 0);
}

static void ws_remove(void)
{
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ws);
        ck_assert_int_eq(system(cmd), 0);
}

#endif
