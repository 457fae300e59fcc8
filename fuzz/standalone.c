/* SPDX-License-Identifier: MIT */
/*
 * Replays inputs through a harness without a fuzzing engine, so every build (gcc, ASan)
 * runs the corpora as ordinary tests. Usage: fuzz-<name> PATH...  where each PATH is a file
 * or a directory whose regular files (not starting with '.') are replayed in name order.
 * A crash or failed property aborts; an empty or missing corpus is an error, so a wrong
 * path cannot pass as a green test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path)
{
        FILE *f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        size_t cap = 4096, len = 0;
        uint8_t *buf = malloc(cap);
        for (;;) {
                if (!buf) {
                        fclose(f);
                        fprintf(stderr, "%s: out of memory\n", path);
                        return -1;
                }
                len += fread(buf + len, 1, cap - len, f);
                if (len < cap)
                        break;
                cap *= 2;
                uint8_t *grown = realloc(buf, cap);
                if (!grown)
                        free(buf);
                buf = grown;
        }
        int bad = ferror(f);
        fclose(f);
        if (bad) {
                free(buf);
                fprintf(stderr, "%s: read error\n", path);
                return -1;
        }
        /* An exact-size copy, so ASan sees reads past the end of the input. */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact) {
                free(buf);
                return -1;
        }
        memcpy(exact, buf, len);
        free(buf);
        fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        return 0;
}

static int cmp_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns the number of inputs replayed, or -1. */
static long replay_dir(const char *dir)
{
        DIR *d = opendir(dir);
        if (!d) {
                fprintf(stderr, "%s: %s\n", dir, strerror(errno));
                return -1;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                if (n == cap) {
                        cap = cap ? 2 * cap : 64;
                        char **grown = realloc(names, cap * sizeof *names);
                        if (!grown)
                                abort();
                        names = grown;
                }
                names[n] = strdup(e->d_name);
                if (!names[n])
                        abort();
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_names);
        long done = 0;
        for (size_t i = 0; i < n; i++) {
                size_t plen = strlen(dir) + strlen(names[i]) + 2;
                char *path = malloc(plen);
                if (!path)
                        abort();
                snprintf(path, plen, "%s/%s", dir, names[i]);
                struct stat st;
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                        if (replay_file(path) < 0)
                                done = -1;
                        else if (done >= 0)
                                done++;
                }
                free(path);
                free(names[i]);
        }
        free(names);
        return done;
}

int main(int argc, char **argv)
{
        if (LLVMFuzzerInitialize)
                LLVMFuzzerInitialize(&argc, &argv);
        if (argc < 2) {
                fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
                return 2;
        }
        long total = 0;
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) != 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                long n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]) == 0;
                if (n < 0)
                        return 1;
                if (n == 0) {
                        fprintf(stderr, "%s: no inputs\n", argv[i]);
                        return 1;
                }
                total += n;
        }
        fprintf(stderr, "%ld inputs replayed without a finding\n", total);
        return 0;
}
