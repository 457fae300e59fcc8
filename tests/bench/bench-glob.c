/* SPDX-License-Identifier: MIT */
/*
 * ns per match of the compiled core matcher on realistic patterns and paths, side by side
 * with fnmatch(3) (FNM_PATHNAME) on the pairs it can express (no `**`, no braces), measured
 * in the same run. Also: the adversarial patterns that are exponential for backtracking
 * matchers. Prints figures only; asserts nothing about time.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "warder/glob.h"

static double now_ns(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static const char *const patterns[] = {
    /* comparable with fnmatch */
    "/home/u/proj/src/*.c",
    "/home/u/proj/src/*.[ch]",
    "/home/u/proj/*/*.c",
    "/home/u/.ssh/id_*",
    "/etc/ssh/ssh_host_*_key",
    "/home/u/proj/build/*/*.o",
    "/home/u/proj/.env*",
    "/home/u/proj/*secret*",
    /* warder only: globstars and braces */
    "/home/u/proj/**/*.log",
    "**/.env",
    "**/*.{pem,key,crt}",
    "**/.ssh/**",
    "/etc/**",
    "/home/u/proj/{src,lib}/**/*.c",
    "**/*password*",
};

static const char *const paths[] = {
    "/home/u/proj/src/main.c",
    "/home/u/proj/src/util/strings.c",
    "/home/u/.ssh/id_ed25519",
    "/etc/ssh/ssh_host_rsa_key",
    "/home/u/proj/build/x86/main.o",
    "/home/u/proj/README.md",
    "/home/u/proj/.env",
    "/home/u/proj/logs/2026/app.log",
    "/home/u/proj/certs/server.pem",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
};

#define NP (sizeof(patterns) / sizeof(patterns[0]))
#define NS (sizeof(paths) / sizeof(paths[0]))

static volatile int sink;

/* Best of 5 runs of `iters` rounds over all pairs; returns ns per single match. */
static double time_ours(warder_glob *const *g, const size_t *pi, size_t npairs, const size_t *si,
                        long iters)
{
        double best = 1e30;
        for (int run = 0; run < 5; run++) {
                double t0 = now_ns();
                int acc = 0;
                for (long it = 0; it < iters; it++) {
                        for (size_t k = 0; k < npairs; k++)
                                acc +=
                                    warder_glob_match(g[pi[k]], paths[si[k]], strlen(paths[si[k]]));
                }
                double t = (now_ns() - t0) / ((double)iters * (double)npairs);
                sink = acc;
                if (t < best)
                        best = t;
        }
        return best;
}

static double time_fnmatch(const size_t *pi, size_t npairs, const size_t *si, long iters)
{
        double best = 1e30;
        for (int run = 0; run < 5; run++) {
                double t0 = now_ns();
                int acc = 0;
                for (long it = 0; it < iters; it++) {
                        for (size_t k = 0; k < npairs; k++)
                                acc += fnmatch(patterns[pi[k]], paths[si[k]], FNM_PATHNAME) == 0;
                }
                double t = (now_ns() - t0) / ((double)iters * (double)npairs);
                sink = acc;
                if (t < best)
                        best = t;
        }
        return best;
}

static char *repeat(const char *s, int n, const char *end)
{
        size_t l = strlen(s), e = strlen(end);
        char *r = malloc(l * (size_t)n + e + 1);
        if (!r)
                abort();
        for (int i = 0; i < n; i++)
                memcpy(r + l * (size_t)i, s, l);
        memcpy(r + l * (size_t)n, end, e + 1);
        return r;
}

static void adversarial(const char *name, char *pat, char *subject, int with_fnmatch)
{
        warder_glob *g;
        if (warder_glob_compile(&g, pat, strlen(pat), 0, NULL))
                abort();
        long iters = 40;
        int r = 0;
        double ours = 1e30;
        for (int run = 0; run < 5; run++) {
                double t0 = now_ns();
                for (long i = 0; i < iters; i++)
                        r = warder_glob_match(g, subject, strlen(subject));
                double t = (now_ns() - t0) / (double)iters;
                if (t < ours)
                        ours = t;
        }
        printf("  %-44s %4zu-byte subject: warder %9.0f ns (result %d)", name, strlen(subject),
               ours, r);
        if (with_fnmatch) {
                double fn = 1e30;
                int f = 0;
                for (int run = 0; run < 5; run++) {
                        double t0 = now_ns();
                        f = fnmatch(pat, subject, FNM_PATHNAME);
                        double t = now_ns() - t0;
                        if (t < fn)
                                fn = t;
                }
                printf(", fnmatch %12.0f ns (result %d), ratio %.0fx", fn, f == 0, fn / ours);
        }
        printf("\n");
        warder_glob_free(g);
        free(pat);
        free(subject);
}

int main(void)
{
        warder_glob *g[NP];
        double tc0 = now_ns();
        for (size_t i = 0; i < NP; i++) {
                if (warder_glob_compile(&g[i], patterns[i], strlen(patterns[i]), 0, NULL)) {
                        fprintf(stderr, "cannot compile %s\n", patterns[i]);
                        return 1;
                }
        }
        double compile_us = (now_ns() - tc0) / (double)NP / 1000.0;

        /* every pattern against every path; the fnmatch-expressible subset separately */
        size_t pi[NP * NS], si[NP * NS], fpi[NP * NS], fsi[NP * NS], n = 0, fn = 0, disagree = 0,
                                                                     matches = 0;
        size_t total_len = 0;
        for (size_t p = 0; p < NP; p++) {
                bool plain = !strstr(patterns[p], "**") && !strchr(patterns[p], '{');
                for (size_t s = 0; s < NS; s++) {
                        pi[n] = p;
                        si[n] = s;
                        n++;
                        total_len += strlen(paths[s]);
                        int m = warder_glob_match(g[p], paths[s], strlen(paths[s]));
                        matches += m == 1;
                        if (plain) {
                                fpi[fn] = p;
                                fsi[fn] = s;
                                fn++;
                                if ((fnmatch(patterns[p], paths[s], FNM_PATHNAME) == 0) != (m == 1))
                                        disagree++;
                        }
                }
        }
        /* interleaved, best of several runs each, to damp the noise of a shared machine */
        long iters = 4000;
        double all = 1e30, ours_plain = 1e30, libc = 1e30;
        for (int round = 0; round < 5; round++) {
                double a = time_ours(g, pi, n, si, iters);
                double o = time_ours(g, fpi, fn, fsi, iters);
                double l = time_fnmatch(fpi, fn, fsi, iters);
                all = a < all ? a : all;
                ours_plain = o < ours_plain ? o : ours_plain;
                libc = l < libc ? l : libc;
        }

        printf("glob benchmark (best of 25 interleaved runs of %ld rounds)\n", iters);
        printf("  compile: %.1f us per pattern (translation + PCRE2 JIT)\n", compile_us);
        printf("  all pairs:        %3zu pairs (%zu match), mean path %zu bytes: %6.1f ns/match\n",
               n, matches, total_len / n, all);
        printf("  fnmatch subset:   %3zu pairs: warder %6.1f ns/match, fnmatch(FNM_PATHNAME) %6.1f "
               "ns/match, warder/fnmatch = %.2f\n",
               fn, ours_plain, libc, ours_plain / libc);
        printf("  results disagreeing with fnmatch on the subset: %zu\n", disagree);
        for (size_t i = 0; i < NP; i++)
                warder_glob_free(g[i]);

        printf("adversarial patterns (best of 5 batches of 40 matches):\n");
        adversarial("*a x6 then b vs a^30 bc (fnmatch too)", repeat("*a", 6, "b"),
                    repeat("a", 30, "bc"), 1);
        adversarial("*a x8 then b vs a^40 bc (fnmatch too)", repeat("*a", 8, "b"),
                    repeat("a", 40, "bc"), 1);
        adversarial("*a x30 then b vs a^1000 bc", repeat("*a", 30, "b"), repeat("a", 1000, "bc"),
                    0);
        adversarial("(**/) x50 then x vs (a/)^1000 x/y", repeat("**/", 50, "x"),
                    repeat("a/", 1000, "x/y"), 0);
        adversarial("(**/a/) x40 then b vs (a/)^1000 b/c", repeat("**/a/", 40, "b"),
                    repeat("a/", 1000, "b/c"), 0);
        adversarial("**/(*a*/) x20 then b vs (a^10/)^300 b/c", repeat("**/*a*/", 20, "b"),
                    repeat("aaaaaaaaaa/", 300, "b/c"), 0);
        adversarial("(*/) x100 then b vs (a/)^1000 b", repeat("*/", 100, "b"),
                    repeat("a/", 1000, "b"), 0);
        return disagree ? 1 : 0;
}
