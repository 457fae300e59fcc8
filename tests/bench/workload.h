/* SPDX-License-Identifier: MIT */
/*
 * The rule-matching workload shared by bench-ruleset and bench-peers: N `read` rules (the
 * secrets preset, then ten generated families, among them one rule in ten for `.tmp` files at
 * any depth below a directory `cacheN`, which all share the extension `tmp`), and realistic
 * paths, a tenth of them `.tmp` files below `cacheN` directories. Deterministic: the same seed
 * gives the same rules and paths in every program.
 */
#ifndef WARDER_BENCH_WORKLOAD_H
#define WARDER_BENCH_WORKLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define WL_ROOT "/work/project"
#define WL_HOME "/home/user"

static unsigned long long wl_rng = 42;

static inline unsigned wl_rnd(unsigned n)
{
        wl_rng = wl_rng * 6364136223846793005ULL + 1442695040888963407ULL;
        return (unsigned)((wl_rng >> 33) % n);
}

static const char *const wl_secrets[] = {
    "**/.env",     "**/.env.*",   "**/*.pem",      "**/*.key",   "**/*.crt",   "**/credentials*",
    "**/secrets*", "**/*secret*", "**/*password*", "**/.aws/**", "**/.ssh/**", "**/.gnupg/**"};
static const char *const wl_actions[] = {"deny", "deny", "ask", "allow"};

/* Rule i of an N-rule set, as written in the YAML. */
static inline void wl_rule(size_t i, char *pat, size_t cap)
{
        size_t npre = WARDER__ARRAY_SIZE(wl_secrets);
        if (i < npre) {
                snprintf(pat, cap, "%s", wl_secrets[i]);
                return;
        }
        unsigned id = (unsigned)(i * 7 % 20000);
        switch (i % 10) {
        case 0:
                snprintf(pat, cap, "/var/lib/svc%u/*/data/**", id);
                break;
        case 1:
                snprintf(pat, cap, "dir%u/**/*.{c,h}", id);
                break;
        case 2:
                snprintf(pat, cap, "**/file%u.txt", id);
                break;
        case 3:
                snprintf(pat, cap, "**/*.ext%u", id);
                break;
        case 4:
                snprintf(pat, cap, "/opt/pkg%u/**", id);
                break;
        case 5:
                snprintf(pat, cap, "**/cache%u/**/*.tmp", id);
                break;
        case 6:
                snprintf(pat, cap, "/srv/site%u/index.html", id);
                break;
        case 7:
                snprintf(pat, cap, "~/proj%u/**/*.log", id);
                break;
        case 8:
                snprintf(pat, cap, "**/node%u/**", id);
                break;
        default:
                snprintf(pat, cap, "src/mod%u/**/*_test.go", id);
                break;
        }
}

/* A `read` block of the first n rules (actions drawn from wl_rnd). */
static inline char *wl_yaml(size_t n)
{
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "warder: 1\ndefault: allow\nread:\n  default: allow\n  rules:\n");
        for (size_t i = 0; i < n; i++) {
                char pat[160];
                wl_rule(i, pat, sizeof(pat));
                warder__buf_printf(
                    &b, "    - %s: '%s'\n",
                    i < WARDER__ARRAY_SIZE(wl_secrets) ? "deny" : wl_actions[wl_rnd(4)], pat);
        }
        return warder__buf_steal(&b);
}

static inline char **wl_paths(size_t n)
{
        char **p = calloc(n, sizeof(*p));
        for (size_t i = 0; i < n; i++) {
                unsigned id = wl_rnd(20000);
                char b[256];
                switch (wl_rnd(10)) {
                case 0:
                        snprintf(b, sizeof(b), WL_ROOT "/src/mod%u/file%u.c", id % 50, id);
                        break;
                case 1:
                        snprintf(b, sizeof(b), WL_ROOT "/dir%u/sub/x%u.h", id, id % 7);
                        break;
                case 2:
                        snprintf(b, sizeof(b), "/var/lib/svc%u/inst/data/db%u", id, id % 3);
                        break;
                case 3:
                        snprintf(b, sizeof(b), WL_HOME "/%s",
                                 wl_rnd(2) ? ".ssh/id_ed25519" : ".bashrc");
                        break;
                case 4:
                        snprintf(b, sizeof(b), WL_HOME "/proj%u/logs/run%u.log", id, id % 9);
                        break;
                case 5:
                        snprintf(b, sizeof(b), "/opt/pkg%u/bin/tool", id);
                        break;
                case 6:
                        snprintf(b, sizeof(b), WL_ROOT "/build/cache%u/obj/part%u.tmp", id,
                                 id % 13);
                        break;
                case 7:
                        snprintf(b, sizeof(b), WL_ROOT "/%s", wl_rnd(2) ? ".env" : "README.md");
                        break;
                case 8:
                        snprintf(b, sizeof(b), WL_ROOT "/node%u/lib/index.js", id);
                        break;
                default:
                        snprintf(b, sizeof(b), WL_ROOT "/docs/file%u.txt", id);
                        break;
                }
                p[i] = strdup(b);
        }
        return p;
}

/* A path of `depth` components below the root ending in a `.tmp` file in a cache directory,
 * the shape the cache family keys on. */
static inline char *wl_deep_path(size_t depth, unsigned seed)
{
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, WL_ROOT);
        for (size_t i = 0; i + 2 < depth; i++)
                warder__buf_printf(&b, "/d%zu_%u", i, seed % 97);
        warder__buf_printf(&b, "/cache%u/f%u.tmp", seed * 7 % 20000, seed);
        return warder__buf_steal(&b);
}

/* A source file `depth` components below the root that no cache rule keys on. */
static inline char *wl_deep_plain(size_t depth, unsigned seed)
{
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, WL_ROOT "/src");
        for (size_t i = 0; i + 3 < depth; i++)
                warder__buf_printf(&b, "/pkg%zu", (i * 7 + seed) % 50);
        warder__buf_printf(&b, "/main%u.c", seed);
        return warder__buf_steal(&b);
}

#endif
