/* SPDX-License-Identifier: MIT */
/*
 * The grep engine (src/grep/engine.c) and the multi-threaded local grep:
 *   - every fast path (literals, alternations of literals, ASCII case folding, a required
 *     byte, the multi-line candidate search) reports exactly the lines of the per-line PCRE2
 *     reference (WARDER__GREP_PLAIN), on generated buffers with CRLF, a missing final
 *     newline, empty and long lines, bytes above 0x7f and both cases of letters;
 *   - the local grep gives byte-identical results with 1, 2 and 8 threads, in walk order,
 *     with and without the match cap, and under a guard (§4.7: a denied file is never
 *     searched, whatever the thread count; its secret is really there, as the control arm
 *     shows);
 *   - in a fault-injection build, a fault at any point of a multi-threaded grep, in whichever
 *     thread, fails the grep or marks it truncated: never a silently partial result.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fs-fixture.h"
#include "fault.h"
#include "grep/engine.h"
#include "mock-backend.h"
#include "support.h"
#include "warder/backend.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/ruleset.h"

/* ---- the engine against the reference -------------------------------------------------- */

struct hits {
        char *s; /* "line:text\n" for each hit */
        size_t len, cap;
};

static int collect(void *ud, uint64_t line, const char *text, size_t len)
{
        struct hits *h = ud;
        size_t need = h->len + len + 32;
        if (need > h->cap) {
                h->cap = need * 2;
                h->s = realloc(h->s, h->cap);
                ck_assert_ptr_nonnull(h->s);
        }
        h->len += (size_t)sprintf(h->s + h->len, "%llu:", (unsigned long long)line);
        memcpy(h->s + h->len, text, len);
        h->len += len;
        h->s[h->len++] = '\n';
        return 0;
}

/* The hits of `pattern` over buf, by the engine with `flags`. */
static struct hits search(const char *pattern, unsigned flags, const char *buf, size_t n)
{
        struct warder__grep_engine *e = NULL;
        ck_assert_int_eq(warder__grep_engine_new(&e, pattern, strlen(pattern), flags, NULL), 0);
        struct warder__grep_scratch *s = warder__grep_scratch_new(e);
        ck_assert_ptr_nonnull(s);
        struct hits h = {NULL, 0, 0};
        bool incomplete = false;
        ck_assert_int_eq(warder__grep_search(e, s, buf, n, collect, &h, &incomplete), 0);
        ck_assert(!incomplete);
        warder__grep_scratch_free(s);
        warder__grep_engine_free(e);
        return h;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

/* A buffer of words with both cases, digits, bytes above 0x7f, CRLF and LF, empty and long
 * lines; with or without a final newline. */
static size_t gen(char *buf, size_t want)
{
        static const char *const words[] = {
            "foo",         "FOO",         "Foo",       "bar",       "BaR", "needle",      "NEEDLE",
            "NeEdLe",      "quartz",      "zephyr",    "Zephyr",    "123", "4567",        "x9",
            "caf\xc3\xa9", "CAF\xc3\x89", "\xe9t\xe9", "\xc9T\xc9", "a_b", "A_B",         "end",
            "the",         "needl",       "eedle",     " ",         "\t",  "needleneedle"};
        size_t n = 0;
        while (n + 600 < want) {
                unsigned kind = (unsigned)(next_rand() % 10);
                size_t words_in_line = kind == 0 ? 0 : kind == 1 ? 60 : 1 + next_rand() % 8;
                for (size_t i = 0; i < words_in_line; i++) {
                        const char *w = words[next_rand() % (sizeof(words) / sizeof(words[0]))];
                        size_t wl = strlen(w);
                        memcpy(buf + n, w, wl);
                        n += wl;
                        if (next_rand() % 3)
                                buf[n++] = ' ';
                }
                if (next_rand() % 4 == 0)
                        buf[n++] = '\r';
                buf[n++] = '\n';
        }
        if (next_rand() % 2 && n && buf[n - 1] == '\n')
                n--; /* no final newline */
        return n;
}

static const char *const patterns[] = {
    "needle",
    "NEEDLE",
    "a_b",
    "quartz|zephyr",
    "foo|bar|needle|x9",
    "eedle|need",
    "needle|",
    "caf\xc3\xa9",
    "\xc9T\xc9",
    "[0-9]{3}",
    "x9$",
    "^foo",
    "\\bbar\\b",
    "n[e]+dle",
    "e\r$",
    "zephyr +the",
    "(?i)zephyr",
    "end$|^the",
    "o",
    "",
    "[^ ]{20}",
    "Z",
    "\\d",
    "foo bar",
    "a|b|c|d|e|f|g|h|i|j",
    /* a first or last byte PCRE2 reports in one case while matching both (found by
     * fuzz-grep) */
    "FOO|foo",
    "NEEDLE|needle [0-9]",
    "x[0-9]*(Z|z)",
};

START_TEST(fast_paths_match_the_reference)
{
        size_t cap = 64 * 1024;
        char *buf = malloc(cap);
        ck_assert_ptr_nonnull(buf);
        size_t checked = 0;
        for (int round = 0; round < 40; round++) {
                size_t n = gen(buf, round % 5 == 0 ? 700 : cap);
                for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
                        for (unsigned cl = 0; cl < 2; cl++) {
                                unsigned flags = cl ? WARDER__GREP_CASELESS : 0;
                                struct hits ref =
                                    search(patterns[p], flags | WARDER__GREP_PLAIN, buf, n);
                                for (int sse = 0; sse < 2; sse++) {
                                        struct hits fast = search(
                                            patterns[p], flags | (sse ? WARDER__GREP_NO_AVX2 : 0),
                                            buf, n);
                                        if (fast.len != ref.len ||
                                            (fast.len && memcmp(fast.s, ref.s, fast.len) != 0))
                                                ck_abort_msg("pattern '%s'%s%s: the fast path "
                                                             "differs from the reference (%zu vs "
                                                             "%zu bytes)",
                                                             patterns[p], cl ? " caseless" : "",
                                                             sse ? " (SSE2)" : "", fast.len,
                                                             ref.len);
                                        free(fast.s);
                                }
                                checked += ref.len;
                                free(ref.s);
                        }
                }
        }
        ck_assert_uint_gt(checked, 100000); /* the patterns really matched lines */
        free(buf);
}
END_TEST

/* The literal paths fold ASCII letters only, as PCRE2's caseless matching does without
 * UTF: É (0xc9) and é (0xe9) are different bytes. */
START_TEST(caseless_folds_ascii_only)
{
        const char text[] = "caf\xc3\xa9\nCAF\xc3\x89\n\xe9t\xe9\n\xc9T\xc9\nNeedle\r\nneedle";
        struct hits h = search("caf\xc3\xa9", WARDER__GREP_CASELESS, text, sizeof(text) - 1);
        ck_assert_uint_eq(h.len, strlen("1:caf\xc3\xa9\n"));
        free(h.s);
        h = search("\xe9T\xe9", WARDER__GREP_CASELESS, text, sizeof(text) - 1);
        ck_assert_str_eq(h.s ? (h.s[h.len - 1] = '\0', h.s) : "", "3:\xe9t\xe9");
        free(h.s);
        h = search("NEEDLE|zz", WARDER__GREP_CASELESS, text, sizeof(text) - 1);
        ck_assert_uint_eq(h.len, strlen("5:Needle\r\n6:needle\n"));
        ck_assert_int_eq(memcmp(h.s, "5:Needle\r\n6:needle\n", h.len), 0);
        free(h.s);
        h = search("NEEDLE", 0, text, sizeof(text) - 1);
        ck_assert_uint_eq(h.len, 0);
        free(h.s);
        /* Under (*UTF), caseless `s` also matches U+017F (long s, bytes c5 bf): no ASCII
         * prefilter may skip it. */
        const char utf[] = "x\n\xc5\xbf\nS\n";
        h = search("(*UTF)(?i)s", 0, utf, sizeof(utf) - 1);
        struct hits ref = search("(*UTF)(?i)s", WARDER__GREP_PLAIN, utf, sizeof(utf) - 1);
        ck_assert_uint_eq(ref.len, strlen("2:\xc5\xbf\n3:S\n"));
        ck_assert_uint_eq(h.len, ref.len);
        ck_assert_int_eq(memcmp(h.s, ref.s, h.len), 0);
        free(h.s);
        free(ref.s);
}
END_TEST

START_TEST(binary_probe)
{
        char buf[WARDER__GREP_BINARY_PROBE + 10];
        memset(buf, 'a', sizeof(buf));
        ck_assert(!warder__grep_is_binary(buf, sizeof(buf)));
        buf[WARDER__GREP_BINARY_PROBE - 1] = '\0';
        ck_assert(warder__grep_is_binary(buf, sizeof(buf)));
        buf[WARDER__GREP_BINARY_PROBE - 1] = 'a';
        buf[WARDER__GREP_BINARY_PROBE] = '\0'; /* past the probe */
        ck_assert(!warder__grep_is_binary(buf, sizeof(buf)));
}
END_TEST

/* ---- threads ---------------------------------------------------------------------------- */

static char root[256];

static void put_file(const char *rel, const char *data, size_t len)
{
        const char *p = at(root, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
        close(fd);
}

/* A new, empty root for the test. */
static void fresh_root(void)
{
        strcpy(root, "/tmp/warder-test-grep-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(root));
}

static void make_tree(void)
{
        fresh_root();
        char *buf = malloc(64 * 1024);
        ck_assert_ptr_nonnull(buf);
        char rel[128];
        for (int d = 0; d < 12; d++) {
                snprintf(rel, sizeof(rel), "d%02d", d);
                ck_assert_int_eq(mkdir(at(root, rel), 0755), 0);
                snprintf(rel, sizeof(rel), "d%02d/sub", d);
                ck_assert_int_eq(mkdir(at(root, rel), 0755), 0);
                snprintf(rel, sizeof(rel), "d%02d/.env", d);
                put_file(rel, "TOKEN=needle_secret_42\n", 23);
                for (int f = 0; f < 25; f++) {
                        snprintf(rel, sizeof(rel),
                                 f % 3 ? "d%02d/f%02d.txt" : "d%02d/sub/f%02d.txt", d, f);
                        size_t n = gen(buf, (size_t)(1000 + next_rand() % 60000));
                        put_file(rel, buf, n);
                }
                snprintf(rel, sizeof(rel), "d%02d/bin", d);
                put_file(rel, "needle\0needle\n", 14); /* binary: skipped */
        }
        free(buf);
}

static warder_backend *guarded(void)
{
        static const char yaml[] = "warder: 1\ndefault: deny\n"
                                   "read:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n"
                                   "grep:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n";
        warder_backend *b = NULL, *g = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, yaml, sizeof(yaml) - 1, "t", &ro, NULL),
                         0);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = root;
        ck_assert_int_eq(warder_guard_new(&g, b, rs, &go, NULL), 0);
        warder_ruleset_free(rs);
        return g;
}

/* The whole result as one string: every match, then the counts. */
static char *grep_text(warder_backend *b, const char *pattern, bool caseless, size_t max,
                       unsigned threads, size_t *count)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(pattern);
        req.path = root;
        req.path_len = strlen(root);
        req.flags = caseless ? WARDER_GREP_CASELESS : 0;
        req.max_matches = max;
        req.threads = threads;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_backend_grep(&r, b, &req, &e);
        ck_assert_msg(rc == 0, "grep: %s", e.message);
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < r.count; i++)
                fprintf(f, "%s:%llu:%s\n", r.items[i].path, (unsigned long long)r.items[i].line,
                        r.items[i].text);
        fprintf(f, "hidden %zu truncated %d\n", r.hidden_files, r.truncated);
        fclose(f);
        *count = r.count;
        warder_grep_result_free(&r);
        return s;
}

START_TEST(threads_give_identical_results)
{
        make_tree();
        warder_backend *g = guarded();
        warder_backend *l = NULL;
        ck_assert_int_eq(warder_local_new(&l, root, NULL, NULL), 0);
        struct {
                const char *p;
                bool i;
        } pats[] = {{"needle", false},
                    {"NEEDLE", true},
                    {"[0-9]{3}", false},
                    {"quartz|zephyr|x9|a_b", false},
                    {"^foo", false}};
        static const size_t caps[] = {0, 1, 37, 5000};
        static const unsigned threads[] = {1, 2, 8, 0};
        for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
                for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
                        for (int guard = 0; guard < 2; guard++) {
                                size_t n1 = 0;
                                char *one =
                                    grep_text(guard ? g : l, pats[p].p, pats[p].i, caps[c], 1, &n1);
                                ck_assert_uint_gt(n1, 0);
                                if (caps[c])
                                        ck_assert_uint_le(n1, caps[c]);
                                for (size_t t = 1; t < sizeof(threads) / sizeof(threads[0]); t++) {
                                        size_t nt = 0;
                                        char *many = grep_text(guard ? g : l, pats[p].p, pats[p].i,
                                                               caps[c], threads[t], &nt);
                                        ck_assert_msg(strcmp(one, many) == 0,
                                                      "'%s' cap %zu guard %d: %u threads differ "
                                                      "from 1",
                                                      pats[p].p, caps[c], guard, threads[t]);
                                        free(many);
                                }
                                /* The capped result is the head of the whole one. */
                                if (caps[c]) {
                                        size_t na = 0;
                                        char *all = grep_text(guard ? g : l, pats[p].p, pats[p].i,
                                                              0, 4, &na);
                                        char *tail = strstr(one, "hidden ");
                                        ck_assert_int_eq(strncmp(all, one, (size_t)(tail - one)),
                                                         0);
                                        ck_assert(strstr(one, "truncated 1") != NULL ||
                                                  na <= caps[c]);
                                        ck_assert(na <= caps[c] || n1 == caps[c]);
                                        free(all);
                                }
                                free(one);
                        }
                }
        }
        warder_backend_free(g);
        warder_backend_free(l);
        rm_rf(root);
}
END_TEST

/* §4.7 with threads: the guard's secret is never searched, counted by name, with every
 * thread count; the control arm reads the secret plainly and finds it through the local
 * backend alone. */
START_TEST(threads_keep_denied_files_unsearched)
{
        make_tree();
        /* control arm: the secret is there */
        char buf[64];
        int fd = open(at(root, "d03/.env"), O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ssize_t got = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        ck_assert_int_gt(got, 0);
        buf[got] = '\0';
        ck_assert_ptr_nonnull(strstr(buf, "needle_secret_42"));
        warder_backend *l = NULL;
        ck_assert_int_eq(warder_local_new(&l, root, NULL, NULL), 0);
        size_t n = 0;
        char *s = grep_text(l, "needle_secret", false, 0, 8, &n);
        ck_assert_uint_eq(n, 12);
        free(s);
        warder_backend_free(l);

        warder_backend *g = guarded();
        static const unsigned threads[] = {1, 2, 8};
        for (size_t t = 0; t < 3; t++) {
                s = grep_text(g, "needle_secret|NEEDLE_SECRET", true, 0, threads[t], &n);
                ck_assert_uint_eq(n, 0);
                ck_assert_str_eq(s, "hidden 12 truncated 0\n");
                free(s);
        }
        warder_backend_free(g);
        rm_rf(root);
}
END_TEST

/* A predicate asked from several threads at once (as a backend of its own may): the guard
 * serialises its decisions, and every answer is right. */
struct ask {
        warder_grep_filter_fn fn;
        void *ud;
        int wrong;
};

static void *ask_many(void *arg)
{
        struct ask *a = arg;
        for (int i = 0; i < 2000; i++) {
                char p[PATH_MAX];
                bool secret = i % 3 == 0;
                snprintf(p, sizeof(p), "%s/d%02d/%s", root, i % 12, secret ? ".env" : "f01.txt");
                if (a->fn(a->ud, p, strlen(p)) == secret)
                        a->wrong++;
        }
        return NULL;
}

static int threaded_grep(void *ud, const struct warder_grep_request *req,
                         struct warder_grep_result *out)
{
        (void)out;
        int *wrong = ud;
        pthread_t t[4];
        struct ask a[4];
        for (int i = 0; i < 4; i++) {
                a[i] = (struct ask){req->may_search, req->may_search_ud, 0};
                ck_assert_int_eq(pthread_create(&t[i], NULL, ask_many, &a[i]), 0);
        }
        for (int i = 0; i < 4; i++) {
                pthread_join(t[i], NULL);
                *wrong += a[i].wrong;
        }
        return 0;
}

START_TEST(guard_predicate_is_thread_safe)
{
        make_tree();
        static const char yaml[] = "warder: 1\ndefault: deny\n"
                                   "read:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n"
                                   "grep:\n  rules:\n"
                                   "    - deny: \"**/.env\"\n    - allow: \"./**\"\n";
        warder_backend *l = NULL, *m = NULL, *g = NULL;
        ck_assert_int_eq(warder_local_new(&l, root, NULL, NULL), 0);
        ck_assert_int_eq(mock_backend_new(&m, l, MOCK_CAN_REALPATH), 0);
        int wrong = 0;
        struct mock_lies lies = {NULL, threaded_grep, &wrong};
        mock_of(m)->lies = &lies;
        struct warder_ruleset_options ro = WARDER_RULESET_OPTIONS_INIT;
        ro.root = root;
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, yaml, sizeof(yaml) - 1, "t", &ro, NULL),
                         0);
        struct warder_guard_options go = WARDER_GUARD_OPTIONS_INIT;
        go.root = root;
        ck_assert_int_eq(warder_guard_new(&g, m, rs, &go, NULL), 0);
        warder_ruleset_free(rs);
        size_t n = 0;
        char *s = grep_text(g, "needle", false, 0, 1, &n);
        ck_assert_uint_gt(n, 0);
        ck_assert_int_eq(wrong, 0); /* 8,000 answers from four threads, each right */
        free(s);
        warder_backend_free(g);
        rm_rf(root);
}
END_TEST

/* The result of a grep of `path` as one string (every match, then `truncated`), or NULL when
 * it failed; *rc is its return. */
static char *grep_at(warder_backend *b, const char *path, const char *pattern, size_t max,
                     unsigned threads, int *rc, struct warder_error *e)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(pattern);
        req.path = path;
        req.path_len = strlen(path);
        req.max_matches = max;
        req.threads = threads;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        *rc = warder_backend_grep(&r, b, &req, e);
        if (*rc)
                return NULL;
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < r.count; i++)
                fprintf(f, "%s:%llu:%s\n", r.items[i].path + strlen(root),
                        (unsigned long long)r.items[i].line, r.items[i].text);
        fprintf(f, "truncated %d\n", r.truncated);
        fclose(f);
        warder_grep_result_free(&r);
        return s;
}

/* The match cap at its boundaries: asking for exactly N matches over files holding N-1, N and
 * N+1 in all gives all of them, all of them, and the first N in path order marked
 * `truncated` — with one worker and with four, whether N is the request's max_matches or the
 * backend's grep_max_matches (which a larger request, or none, cannot lift). */
START_TEST(max_matches_boundaries)
{
        fresh_root();
        put_file("a.txt", "needle a1\nx\nneedle a2\n", 22);
        put_file("b.txt", "needle b1\nneedle b2\n", 20);
        static const char *const want[] = {
            "/a.txt:1:needle a1\n/a.txt:3:needle a2\n/b.txt:1:needle b1\n/b.txt:2:needle b2\n",
            "/a.txt:1:needle a1\n/a.txt:3:needle a2\n/b.txt:1:needle b1\n/b.txt:2:needle b2\n"
            "/c.txt:1:needle c1\n",
        };
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.grep_max_matches = 5;
        warder_backend *plain = NULL, *capped = NULL;
        ck_assert_int_eq(warder_local_new(&plain, root, NULL, NULL), 0);
        ck_assert_int_eq(warder_local_new(&capped, root, &o, NULL), 0);
        for (int total = 4; total <= 6; total++) {
                /* c.txt holds the 0, 1 or 2 matches past the first four */
                put_file("c.txt",
                         total == 4   ? "x\n"
                         : total == 5 ? "needle c1\n"
                                      : "needle c1\nneedle c2\n",
                         total == 4   ? 2
                         : total == 5 ? 10
                                      : 20);
                char expect[512];
                snprintf(expect, sizeof(expect), "%struncated %d\n", want[total > 4], total > 5);
                struct {
                        warder_backend *b;
                        size_t max;
                } asks[] = {{plain, 5}, {capped, 0}, {capped, 5}, {capped, 6}, {capped, 50}};
                for (size_t a = 0; a < sizeof(asks) / sizeof(asks[0]); a++) {
                        for (unsigned threads = 1; threads <= 4; threads += 3) {
                                int rc;
                                struct warder_error e = WARDER_ERROR_INIT;
                                char *got = grep_at(asks[a].b, root, "needle", asks[a].max, threads,
                                                    &rc, &e);
                                ck_assert_msg(rc == 0, "grep: %s", e.message);
                                ck_assert_msg(strcmp(got, expect) == 0,
                                              "%d matches, ask %zu of %s, %u threads:\n%s", total,
                                              asks[a].max, asks[a].b == plain ? "no cap" : "cap 5",
                                              threads, got);
                                free(got);
                        }
                }
        }
        warder_backend_free(plain);
        warder_backend_free(capped);
        rm_rf(root);
}
END_TEST

/* A file searched as the base with descriptor 0 free: the descriptors it gets there are
 * descriptors like any other — the file is searched, and 0 is free again afterwards. */
START_TEST(file_base_on_descriptor_zero)
{
        fresh_root();
        put_file("f.txt", "a\nneedle 1\n", 11);
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        close(0);
        int rc;
        struct warder_error e = WARDER_ERROR_INIT;
        char *got = grep_at(b, at(root, "f.txt"), "needle", 0, 1, &rc, &e);
        ck_assert_msg(rc == 0, "grep: %s", e.message);
        ck_assert_str_eq(got, "/f.txt:2:needle 1\ntruncated 0\n");
        ck_assert_int_eq(fcntl(0, F_GETFD), -1);
        free(got);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/* The per-file byte cap at its boundary: a file of exactly grep_max_file bytes is searched
 * whole (its last line found, not `truncated`); one byte more and the grep is `truncated`. */
START_TEST(max_file_boundary)
{
        fresh_root();
        struct warder_local_options o = WARDER_LOCAL_OPTIONS_INIT;
        o.grep_max_file = 16;
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, &o, NULL), 0);
        static const struct {
                const char *text, *want;
        } cases[] = {
            {"x\nxx\nneedle 1234", "/f.txt:3:needle 1234\ntruncated 0\n"},  /* 16 bytes */
            {"x\nxx\nneedle 12345", "/f.txt:3:needle 1234\ntruncated 1\n"}, /* 17 bytes */
            {"x\nxx\nxxx\nneedle\n", "/f.txt:4:needle\ntruncated 0\n"},     /* 16 bytes */
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                put_file("f.txt", cases[i].text, strlen(cases[i].text));
                for (int base = 0; base < 2; base++) {
                        int rc;
                        struct warder_error e = WARDER_ERROR_INIT;
                        char *got =
                            grep_at(b, base ? at(root, "f.txt") : root, "needle", 0, 1, &rc, &e);
                        ck_assert_msg(rc == 0, "grep: %s", e.message);
                        ck_assert_msg(strcmp(got, cases[i].want) == 0, "%zu bytes, %s base: %s",
                                      strlen(cases[i].text), base ? "file" : "directory", got);
                        free(got);
                }
        }
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/* A grep that succeeds leaves its error alone (include/warder/error.h), whatever its glob
 * filter said of each name: files it took and files it passed over. */
START_TEST(success_leaves_the_error_alone)
{
        fresh_root();
        put_file("a.txt", "needle a\n", 9);
        put_file("b.md", "needle b\n", 9);
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "needle";
        req.pattern_len = 6;
        req.path = root;
        req.path_len = strlen(root);
        req.glob = "*.txt";
        req.glob_len = 5;
        req.threads = 1;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, &e), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].text, "needle a");
        ck_assert_int_eq(e.code, 0);
        ck_assert_str_eq(e.message, "");
        warder_grep_result_free(&r);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/*
 * The queue between the walk and the workers is bounded, and so are the directories its files
 * hold open: a walk that outruns its workers (here, 300 directories of one file each, which
 * every worker takes long to search: the pattern backtracks to the engine's limit on each
 * line) waits for them, and the grep succeeds with 160 free descriptors. Unbounded, it would
 * hold a descriptor for each of the 300 directories, which the control shows cannot fit.
 */
START_TEST(the_queue_bounds_the_descriptors_held)
{
        fresh_root();
        for (int i = 0; i < 300; i++) {
                char rel[32];
                snprintf(rel, sizeof(rel), "d%03d", i);
                ck_assert_int_eq(mkdir(at(root, rel), 0755), 0);
                snprintf(rel, sizeof(rel), "d%03d/f.txt", i);
                put_file(rel, "xxxxxxxxxxxxxxxxxx\n", 19);
        }
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        int top = 0;
        for (int fd = 0; fd < WARDER_TEST_MAX_FD; fd++)
                if (fcntl(fd, F_GETFD) != -1)
                        top = fd;
        /* the free numbers below the highest one are taken too, so that 160 is all there is */
        int holes[WARDER_TEST_MAX_FD], nholes = 0;
        for (;;) {
                int fd = fcntl(top, F_DUPFD, 0);
                ck_assert_int_ge(fd, 0);
                if (fd > top) {
                        close(fd);
                        break;
                }
                holes[nholes++] = fd;
        }
        struct rlimit was, lim;
        ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &was), 0);
        lim = was;
        lim.rlim_cur = (rlim_t)top + 1 + 160;
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
        /* control: under this limit, one descriptor per directory does not fit */
        int held[300], nheld = 0;
        while (nheld < 300 && (held[nheld] = fcntl(top, F_DUPFD, 0)) >= 0)
                nheld++;
        ck_assert_int_lt(nheld, 300);
        ck_assert_int_eq(errno, EMFILE);
        while (nheld > 0)
                close(held[--nheld]);
        int rc;
        struct warder_error e = WARDER_ERROR_INIT;
        char *got = grep_at(b, root, "(x+x+)+[^x]", 0, 2, &rc, &e);
        ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
        while (nholes > 0)
                close(holes[--nholes]);
        ck_assert_msg(rc == 0, "grep: %s", e.message);
        ck_assert_str_eq(got, "truncated 0\n");
        free(got);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

#ifdef WARDER__FAULT_INJECTION
/* A multi-threaded grep (4 workers) under a fault at every point, in whichever thread it
 * falls: the grep fails, or reports `truncated` (a line PCRE2 could not decide), or gives
 * exactly the result of the clean run — never a result silently missing a file's matches,
 * nor a worker started without its match data when that could not be allocated. */
static char *faulted_grep(warder_backend *b, const char *dir, const char *pattern, int *rc,
                          bool *truncated)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(pattern);
        req.path = dir;
        req.path_len = strlen(dir);
        req.threads = 4;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        *rc = warder_backend_grep(&r, b, &req, NULL);
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < r.count; i++)
                fprintf(f, "%s:%llu:%s\n", r.items[i].path, (unsigned long long)r.items[i].line,
                        r.items[i].text);
        fclose(f);
        *truncated = r.truncated;
        warder_grep_result_free(&r);
        return s;
}

static void grep_every_point(warder_backend *b, const char *dir, const char *pattern)
{
        int rc;
        bool truncated;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = faulted_grep(b, dir, pattern, &rc, &truncated);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_int_eq(rc, 0);
        ck_assert(!truncated);
        ck_assert_ptr_nonnull(strstr(clean, "f23.txt:2:needle 23\n"));
        ck_assert_uint_gt(points, 24 * 3);
        for (int sticky = 0; sticky < 2; sticky++) {
                for (unsigned long n = 1; n <= points + 4; n++) {
                        warder__fault_arm(n, sticky, WARDER__FAULT_ALL);
                        char *got = faulted_grep(b, dir, pattern, &rc, &truncated);
                        bool fired = warder__fault_fired();
                        const char *where = fired ? warder__fault_where() : "-";
                        warder__fault_off();
                        ck_assert_msg(rc != 0 || truncated || strcmp(got, clean) == 0,
                                      "'%s', fault %lu%s at %s: a grep silently partial", pattern,
                                      n, sticky ? " (sticky)" : "", where);
                        free(got);
                }
        }
        free(clean);
}

START_TEST(grep_threads_every_point)
{
        fresh_root();
        char dir[300];
        snprintf(dir, sizeof(dir), "%s/many", root);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        for (int i = 0; i < 24; i++) {
                char name[400];
                snprintf(name, sizeof(name), "%s/f%02d.txt", dir, i);
                FILE *f = fopen(name, "w");
                ck_assert_ptr_nonnull(f);
                fprintf(f, "a\nneedle %d\nb\n", i);
                fclose(f);
        }
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        /* a literal, which the engine finds without PCRE2, and a pattern it matches with
         * PCRE2 and each worker's own match data */
        static const char *const pats[] = {"needle", "ne+dle [0-9]+"};
        for (size_t p = 0; p < 2; p++)
                grep_every_point(b, dir, pats[p]);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/* A grep whose glob filter fails on some name (PCRE2 at its limits) fails as a whole: never a
 * result that silently lacks the files the filter could not decide. */
START_TEST(grep_filter_failures)
{
        fresh_root();
        for (int i = 0; i < 6; i++) {
                char name[400];
                snprintf(name, sizeof(name), "%s/f%d.%s", root, i, i % 2 ? "txt" : "env");
                FILE *f = fopen(name, "w");
                ck_assert_ptr_nonnull(f);
                fprintf(f, "needle %d\n", i);
                fclose(f);
        }
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "needle";
        req.pattern_len = 6;
        req.path = root;
        req.path_len = strlen(root);
        req.glob = "*.{txt,env}";
        req.glob_len = strlen(req.glob);
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, b, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 6);
        warder_grep_result_free(&r);
        unsigned long failed = 0;
        for (unsigned long n = 1;; n++) {
                warder__fault_arm(n, false, WARDER__FAULT_PCRE2);
                int rc = warder_backend_grep(&r, b, &req, NULL);
                bool reached = warder__fault_fired();
                warder__fault_off();
                if (rc) {
                        ck_assert_int_lt(rc, 0);
                        failed++;
                } else {
                        ck_assert_msg(r.count == 6 || r.truncated,
                                      "point %lu: %zu lines of 6, and no error", n, r.count);
                }
                warder_grep_result_free(&r);
                if (!reached)
                        break;
        }
        ck_assert_uint_gt(failed, 0);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

struct exchange {
        char a[PATH_MAX], b[PATH_MAX];
        int done;
};

static void exchange_now(void *ud)
{
        struct exchange *x = ud;
        if (syscall(SYS_renameat2, AT_FDCWD, x->a, AT_FDCWD, x->b, 2 /* RENAME_EXCHANGE */) == 0)
                x->done++;
}

/* A file base swapped for another file at each point of the grep in turn: the grep searches
 * the file at that name before the swap or the one after it, whole, or fails with the name
 * "changed while it was being searched" — and it does fail when the swap falls between the
 * look at the name and the open (the file opened is not the file looked at). */
START_TEST(file_base_swapped_at_every_point)
{
        fresh_root();
        put_file("f.txt", "needle listed\n", 14);
        put_file("g.txt", "x\nneedle other\n", 15);
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        struct exchange x;
        snprintf(x.a, sizeof(x.a), "%s", at(root, "f.txt"));
        snprintf(x.b, sizeof(x.b), "%s", at(root, "g.txt"));
        int rc;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = grep_at(b, x.a, "needle", 0, 1, &rc, NULL);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(clean, "/f.txt:1:needle listed\ntruncated 0\n");
        /* control arm: the swap really puts the other file at the name */
        x.done = 0;
        exchange_now(&x);
        ck_assert_int_eq(x.done, 1);
        char *other = grep_at(b, x.a, "needle", 0, 1, &rc, NULL);
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(other, "/f.txt:2:needle other\ntruncated 0\n");
        exchange_now(&x);
        unsigned changed = 0;
        for (unsigned long n = 1; n <= points; n++) {
                x.done = 0;
                warder__fault_hook(n, WARDER__FAULT_ALL, exchange_now, &x);
                struct warder_error e = WARDER_ERROR_INIT;
                char *got = grep_at(b, x.a, "needle", 0, 1, &rc, &e);
                warder__fault_off();
                if (x.done)
                        exchange_now(&x);
                if (rc) {
                        ck_assert_int_eq(rc, WARDER_EIO);
                        ck_assert_ptr_nonnull(strstr(e.message, "changed while"));
                        changed++;
                } else {
                        ck_assert_msg(strcmp(got, clean) == 0 || strcmp(got, other) == 0,
                                      "swap at point %lu: %s", n, got);
                }
                free(got);
        }
        ck_assert_uint_gt(changed, 0);
        free(clean);
        free(other);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/*
 * A file inside the searched directory swapped, at each point of the grep in turn, for a
 * symbolic link to a secret outside the root, or for a FIFO: the grep never reads through the
 * link (the secret's line never appears, under any name) and never blocks on the FIFO. The
 * control arm shows the link really leads to the secret.
 */
START_TEST(a_listed_file_swapped_at_every_point)
{
        fresh_root();
        char outside[] = "/tmp/warder-test-grep-out-XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(outside));
        char secret[PATH_MAX];
        snprintf(secret, sizeof(secret), "%s/secret", outside);
        FILE *f = fopen(secret, "w");
        ck_assert_ptr_nonnull(f);
        fputs("needle SECRET\n", f);
        fclose(f);
        ck_assert_int_eq(mkdir(at(root, "d"), 0755), 0);
        put_file("d/a.txt", "needle a\n", 9);
        put_file("d/b.txt", "needle b\n", 9);
        struct exchange x;
        snprintf(x.a, sizeof(x.a), "%s", at(root, "d/a.txt"));
        snprintf(x.b, sizeof(x.b), "%s", at(root, "spare"));
        if (_i == 0)
                ck_assert_int_eq(symlink(secret, x.b), 0);
        else
                ck_assert_int_eq(mkfifo(x.b, 0600), 0);
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        char base[PATH_MAX];
        snprintf(base, sizeof(base), "%s", at(root, "d"));
        int rc;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = grep_at(b, base, "needle", 0, 1, &rc, NULL);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_int_eq(rc, 0);
        ck_assert_str_eq(clean, "/d/a.txt:1:needle a\n/d/b.txt:1:needle b\ntruncated 0\n");
        if (_i == 0) {
                /* control arm: at the listed name, the link leads to the secret */
                x.done = 0;
                exchange_now(&x);
                ck_assert_int_eq(x.done, 1);
                char buf[64] = {0};
                int fd = open(x.a, O_RDONLY);
                ck_assert_int_ge(fd, 0);
                ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
                close(fd);
                ck_assert_str_eq(buf, "needle SECRET\n");
                exchange_now(&x);
        }
        alarm(120);
        for (unsigned long n = 1; n <= points; n++) {
                x.done = 0;
                warder__fault_hook(n, WARDER__FAULT_ALL, exchange_now, &x);
                char *got = grep_at(b, base, "needle", 0, 1, &rc, NULL);
                warder__fault_off();
                if (x.done)
                        exchange_now(&x);
                ck_assert_msg(!got || !strstr(got, "SECRET"), "swap at point %lu: %s", n, got);
                free(got);
        }
        alarm(0);
        free(clean);
        warder_backend_free(b);
        rm_rf(root);
        rm_rf(outside);
}
END_TEST

/* The swap of file_base_swapped_at_every_point, between two files with the same inode number
 * on two file systems (the first file of two fresh tmpfs mounts, in a user and mount
 * namespace of a child): the device tells them apart, and the grep fails with the name
 * "changed" when the swap falls between the look at the name and the open. Returns 0, 1 when
 * the namespace or the mounts cannot be made, or 2 after printing the line of the check that
 * failed. */
#define CHILD_FAILED() (fprintf(stderr, "test-grep.c:%d: failed\n", __LINE__), 2)
static int swap_across_devices(void)
{
        char map[64];
        uid_t uid = getuid();
        gid_t gid = getgid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
                return 1;
        int fd = open("/proc/self/setgroups", O_WRONLY);
        if (fd >= 0) {
                if (write(fd, "deny", 4) != 4)
                        return CHILD_FAILED();
                close(fd);
        }
        snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
        fd = open("/proc/self/uid_map", O_WRONLY);
        if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
                return CHILD_FAILED();
        close(fd);
        snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
        fd = open("/proc/self/gid_map", O_WRONLY);
        if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
                return CHILD_FAILED();
        close(fd);
        if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("t", at(root, "x/m"), "tmpfs", 0, NULL) != 0 ||
            mount("t", at(root, "y/m"), "tmpfs", 0, NULL) != 0)
                return 1;
        put_file("x/m/f.txt", "needle listed\n", 14);
        put_file("y/m/f.txt", "x\nneedle other\n", 15);
        struct stat sx, sy;
        if (stat(at(root, "x/m/f.txt"), &sx) != 0 || stat(at(root, "y/m/f.txt"), &sy) != 0)
                return CHILD_FAILED();
        if (sx.st_ino != sy.st_ino || sx.st_dev == sy.st_dev)
                return CHILD_FAILED(); /* not the case this test is about */
        warder_backend *b = NULL;
        if (warder_local_new(&b, root, NULL, NULL) != 0)
                return CHILD_FAILED();
        struct exchange x;
        snprintf(x.a, sizeof(x.a), "%s", at(root, "x"));
        snprintf(x.b, sizeof(x.b), "%s", at(root, "y"));
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s", at(root, "x/m/f.txt"));
        int rc;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = grep_at(b, path, "needle", 0, 1, &rc, NULL);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        if (rc || strcmp(clean, "/x/m/f.txt:1:needle listed\ntruncated 0\n") != 0)
                return CHILD_FAILED();
        /* control arm: the swap puts the other file, with the same inode number, at the name */
        x.done = 0;
        exchange_now(&x);
        char *other = grep_at(b, path, "needle", 0, 1, &rc, NULL);
        exchange_now(&x);
        if (x.done != 2 || rc || strcmp(other, "/x/m/f.txt:2:needle other\ntruncated 0\n") != 0)
                return CHILD_FAILED();
        unsigned changed = 0;
        for (unsigned long n = 1; n <= points; n++) {
                x.done = 0;
                warder__fault_hook(n, WARDER__FAULT_ALL, exchange_now, &x);
                struct warder_error e = WARDER_ERROR_INIT;
                char *got = grep_at(b, path, "needle", 0, 1, &rc, &e);
                warder__fault_off();
                if (x.done)
                        exchange_now(&x);
                if (rc) {
                        if (rc != WARDER_EIO || !strstr(e.message, "changed while"))
                                return CHILD_FAILED();
                        changed++;
                } else if (strcmp(got, clean) != 0 && strcmp(got, other) != 0) {
                        return CHILD_FAILED();
                }
                free(got);
        }
        free(clean);
        free(other);
        warder_backend_free(b);
        return changed ? 0 : CHILD_FAILED();
}

START_TEST(file_base_swapped_across_devices)
{
        fresh_root();
        static const char *const dirs[] = {"x", "x/m", "y", "y/m"};
        for (int i = 0; i < 4; i++)
                ck_assert_int_eq(mkdir(at(root, dirs[i]), 0755), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                _exit(swap_across_devices());
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        rm_rf(root);
        ck_assert(WIFEXITED(status));
        if (WEXITSTATUS(status) == 1) {
                fprintf(stderr, "file_base_swapped_across_devices: no user namespace, skipped\n");
                return;
        }
        ck_assert_msg(WEXITSTATUS(status) == 0, "the child failed (the line above)");
}
END_TEST

struct on_thread {
        pthread_t caller;
        unsigned others; /* points met on another thread than the caller's */
};

static void note_thread(void *ud)
{
        struct on_thread *t = ud;
        if (!pthread_equal(pthread_self(), t->caller))
                __atomic_add_fetch(&t->others, 1, __ATOMIC_RELAXED);
}

/* `threads` is honoured: a grep asking for 4 searches on workers (points of the grep are met
 * on threads other than the caller's), one asking for 1 searches on the calling thread alone,
 * and both give the same result. */
START_TEST(grep_threads_are_started)
{
        fresh_root();
        for (int i = 0; i < 24; i++) {
                char name[32];
                snprintf(name, sizeof(name), "f%02d.txt", i);
                put_file(name, "a\nneedle\n", 9);
        }
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        static const unsigned threads[] = {1, 4};
        char *res[2];
        unsigned others[2];
        for (int t = 0; t < 2; t++) {
                int rc;
                warder__fault_count(WARDER__FAULT_ALL);
                res[t] = grep_at(b, root, "ne+dle", 0, threads[t], &rc, NULL);
                unsigned long points = warder__fault_points();
                warder__fault_off();
                ck_assert_int_eq(rc, 0);
                struct on_thread on = {pthread_self(), 0};
                for (unsigned long n = 1; n <= points; n++) {
                        warder__fault_hook(n, WARDER__FAULT_ALL, note_thread, &on);
                        free(grep_at(b, root, "ne+dle", 0, threads[t], &rc, NULL));
                        warder__fault_off();
                        ck_assert_int_eq(rc, 0);
                }
                others[t] = on.others;
        }
        ck_assert_uint_eq(others[0], 0);
        ck_assert_uint_gt(others[1], 0);
        ck_assert_str_eq(res[0], res[1]);
        ck_assert_ptr_nonnull(strstr(res[0], "/f23.txt:2:needle\n"));
        free(res[0]);
        free(res[1]);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST
/* A directory of 24 files ("a\nneedle N\nb\n") under the test's root, for the walks below. */
static void many_files(char *dir, size_t size)
{
        fresh_root();
        snprintf(dir, size, "%s/many", root);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        for (int i = 0; i < 24; i++) {
                char name[32], text[32];
                snprintf(name, sizeof(name), "many/f%02d.txt", i);
                int n = snprintf(text, sizeof(text), "a\nneedle %d\nb\n", i);
                put_file(name, text, (size_t)n);
        }
}

/*
 * No descriptor is left behind, and none of the caller's is closed, by a grep that fails at
 * any point (once, or from there on) — over a directory with four workers and over a file
 * base, with descriptor 0 in use and with it free (where the file base's own descriptor
 * lands on 0).
 */
START_TEST(no_descriptor_left_at_any_fault)
{
        char dir[300], file[400];
        many_files(dir, sizeof(dir));
        snprintf(file, sizeof(file), "%s/f07.txt", dir);
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        const char *bases[] = {dir, file};
        for (int zero_free = 0; zero_free < 2; zero_free++) {
                if (zero_free)
                        close(0);
                for (size_t base = 0; base < 2; base++) {
                        struct warder_test_fds before;
                        warder_test_fds_take(&before);
                        int rc;
                        warder__fault_count(WARDER__FAULT_ALL);
                        char *clean = grep_at(b, bases[base], "needle", 0, 4, &rc, NULL);
                        unsigned long points = warder__fault_points();
                        warder__fault_off();
                        ck_assert_int_eq(rc, 0);
                        ck_assert_ptr_nonnull(strstr(clean, "/f07.txt:2:needle 7\n"));
                        free(clean);
                        int fd = warder_test_fds_changed(&before);
                        ck_assert_msg(fd == -1, "a clean grep: descriptor %d changed", fd);
                        for (int sticky = 0; sticky < 2; sticky++) {
                                for (unsigned long n = 1; n <= points; n++) {
                                        warder__fault_arm(n, sticky, WARDER__FAULT_ALL);
                                        free(grep_at(b, bases[base], "needle", 0, 4, &rc, NULL));
                                        const char *where =
                                            warder__fault_fired() ? warder__fault_where() : "-";
                                        fd = warder_test_fds_changed(&before);
                                        ck_assert_msg(fd == -1,
                                                      "%s base, descriptor 0 %s, fault %lu%s at "
                                                      "%s: descriptor %d changed",
                                                      base ? "file" : "directory",
                                                      zero_free ? "free" : "in use", n,
                                                      sticky ? " (sticky)" : "", where, fd);
                                        warder__fault_off();
                                }
                        }
                }
        }
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

static void close_zero(void *ud)
{
        (void)ud;
        close(0);
}

/* Descriptor 0 comes free at each point of a grep in turn: a file or directory opened there
 * is searched like any other (the same result as the clean run), and 0 is free afterwards. */
START_TEST(descriptor_zero_at_every_point)
{
        char dir[300];
        many_files(dir, sizeof(dir));
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        int rc;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = grep_at(b, dir, "needle", 0, 1, &rc, NULL);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_int_eq(rc, 0);
        close(0);
        for (unsigned long n = 1; n <= points; n++) {
                ck_assert_int_eq(open("/dev/null", O_RDONLY), 0); /* 0, which the grep freed */
                struct warder_error e = WARDER_ERROR_INIT;
                warder__fault_hook(n, WARDER__FAULT_ALL, close_zero, NULL);
                char *got = grep_at(b, dir, "needle", 0, 1, &rc, &e);
                warder__fault_off();
                ck_assert_msg(rc == 0, "descriptor 0 free at point %lu: %s", n, e.message);
                ck_assert_msg(strcmp(got, clean) == 0, "descriptor 0 free at point %lu:\n%s", n,
                              got);
                ck_assert_msg(fcntl(0, F_GETFD) == -1, "descriptor 0 free at point %lu: left open",
                              n);
                free(got);
        }
        free(clean);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

/* A multi-threaded host may start a command in another thread while a grep runs: at each of
 * its points, every descriptor the grep holds is already close-on-exec. */
START_TEST(every_descriptor_closes_on_exec)
{
        char dir[300];
        many_files(dir, sizeof(dir));
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        char file[400];
        snprintf(file, sizeof(file), "%s/f07.txt", dir);
        const char *bases[] = {dir, file};
        struct warder_test_cloexec c = {.checks = 0};
        warder_test_fds_take(&c.before);
        for (size_t base = 0; base < 2; base++) {
                int rc;
                warder__fault_count(WARDER__FAULT_ALL);
                free(grep_at(b, bases[base], "needle", 0, 1, &rc, NULL));
                unsigned long points = warder__fault_points();
                warder__fault_off();
                ck_assert_int_eq(rc, 0);
                c.checks = 0;
                for (unsigned long n = 1; n <= points; n++) {
                        warder__fault_hook(n, WARDER__FAULT_ALL, warder_test_no_new_inheritable,
                                           &c);
                        free(grep_at(b, bases[base], "needle", 0, 1, &rc, NULL));
                        warder__fault_off();
                        ck_assert_int_eq(rc, 0);
                }
                ck_assert_uint_eq(c.checks, points);
        }
        warder_test_cloexec_control(&c.before); /* control: a leak is seen */
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

struct shrink {
        char path[PATH_MAX];
        int done;
};

static void truncate_now(void *ud)
{
        struct shrink *s = ud;
        if (truncate(s->path, 0) == 0)
                s->done++;
}

/* A listed file truncated to nothing at each point of the grep in turn (between the look at
 * its size and the read, among others): the grep gives the clean result, or the same without
 * that file's line — never a failure. */
START_TEST(a_listed_file_truncated_at_every_point)
{
        char dir[300];
        many_files(dir, sizeof(dir));
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        struct shrink s;
        snprintf(s.path, sizeof(s.path), "%s/f07.txt", dir);
        int rc;
        warder__fault_count(WARDER__FAULT_ALL);
        char *clean = grep_at(b, dir, "needle", 0, 1, &rc, NULL);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_int_eq(rc, 0);
        const char *line = "/many/f07.txt:2:needle 7\n";
        char *cut = strstr(clean, line);
        ck_assert_ptr_nonnull(cut);
        char without[4096];
        snprintf(without, sizeof(without), "%.*s%s", (int)(cut - clean), clean, cut + strlen(line));
        unsigned emptied = 0;
        for (unsigned long n = 1; n <= points; n++) {
                s.done = 0;
                warder__fault_hook(n, WARDER__FAULT_ALL, truncate_now, &s);
                struct warder_error e = WARDER_ERROR_INIT;
                char *got = grep_at(b, dir, "needle", 0, 1, &rc, &e);
                warder__fault_off();
                ck_assert_msg(rc == 0, "truncated at point %lu: %s", n, e.message);
                ck_assert_msg(strcmp(got, clean) == 0 || strcmp(got, without) == 0,
                              "truncated at point %lu:\n%s", n, got);
                emptied += strcmp(got, without) == 0;
                free(got);
                put_file("many/f07.txt", "a\nneedle 7\nb\n", 13);
        }
        ck_assert_uint_gt(emptied, 0); /* control: the truncation was seen */
        free(clean);
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST

static bool refuse_c(void *ud, const char *path, size_t len)
{
        (void)ud;
        (void)len;
        return strncmp(strrchr(path, '/'), "/c", 2) != 0;
}

/* The points of a grep on the calling thread (`refuse`: the request's may_search refuses the
 * files whose names start with c), and its result, which must be `want`. */
static unsigned long grep_points(warder_backend *b, const char *path, const char *pattern,
                                 size_t max, bool refuse, const char *want)
{
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = pattern;
        req.pattern_len = strlen(pattern);
        req.path = path;
        req.path_len = strlen(path);
        req.max_matches = max;
        req.threads = 1;
        if (refuse)
                req.may_search = refuse_c;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_error e = WARDER_ERROR_INIT;
        warder__fault_count(WARDER__FAULT_ALL);
        int rc = warder_backend_grep(&r, b, &req, &e);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_msg(rc == 0, "grep: %s", e.message);
        char got[1024];
        size_t n = 0;
        for (size_t i = 0; i < r.count; i++)
                n += (size_t)snprintf(got + n, sizeof(got) - n, "%s:%llu:%s\n",
                                      r.items[i].path + strlen(root),
                                      (unsigned long long)r.items[i].line, r.items[i].text);
        snprintf(got + n, sizeof(got) - n, "truncated %d\n", r.truncated);
        warder_grep_result_free(&r);
        ck_assert_msg(strcmp(got, want) == 0, "grep '%s' at most %zu:\n%s", pattern, max, got);
        return points;
}

/*
 * The match cap ends the search, not only the result: once the files searched hold more than
 * max_matches, the files after them are not opened, read nor even queued (the walk goes on
 * by names only), and within one file the search stops at the first match past the cap.
 * Counted in points met: the files past the cap cost what files that may_search refuses cost,
 * and a file of 1,000 matches what a file of 6.
 */
START_TEST(the_cap_ends_the_search)
{
        fresh_root();
        char dir[300];
        snprintf(dir, sizeof(dir), "%s/d", root);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        put_file("d/a.txt", "needle 1\n", 9);
        put_file("d/b.txt", "needle 2\n", 9);
        for (int i = 0; i < 24; i++) {
                char name[32];
                snprintf(name, sizeof(name), "d/c%02d.txt", i);
                put_file(name, "needle 3\n", 9);
        }
        warder_backend *b = NULL;
        ck_assert_int_eq(warder_local_new(&b, root, NULL, NULL), 0);
        static const char *const pats[] = {"needle", "ne+dle [0-9]+"};
        const char *want = "/d/a.txt:1:needle 1\ntruncated 1\n";
        for (size_t p = 0; p < 2; p++) {
                unsigned long capped = grep_points(b, dir, pats[p], 1, false, want);
                unsigned long refused = grep_points(b, dir, pats[p], 1, true, want);
                /* control: searched, the 24 files cost at least an open, a look and a read
                 * each */
                char all[1024];
                int n = snprintf(all, sizeof(all), "/d/a.txt:1:needle 1\n/d/b.txt:1:needle 2\n");
                for (int i = 0; i < 24; i++)
                        n += snprintf(all + n, sizeof(all) - (size_t)n, "/d/c%02d.txt:1:needle 3\n",
                                      i);
                snprintf(all + n, sizeof(all) - (size_t)n, "truncated 0\n");
                unsigned long searched = grep_points(b, dir, pats[p], 0, false, all);
                ck_assert_uint_ge(searched, refused + 24 * 3);
                ck_assert_msg(capped == refused,
                              "'%s': 24 files past the cap cost %lu points, refused ones %lu",
                              pats[p], capped, refused);
        }
        /* one file: 6 matching lines, or 1,000 */
        char *text = malloc(16 * 1000);
        ck_assert_ptr_nonnull(text);
        size_t len = 0;
        for (int i = 0; i < 1000; i++)
                len += (size_t)sprintf(text + len, "needle %03d\n", i);
        put_file("d/a.txt", text, 11 * 6);
        put_file("d/b.txt", text, len);
        free(text);
        for (size_t p = 0; p < 2; p++) {
                unsigned long points[2];
                for (int f = 0; f < 2; f++) {
                        char path[PATH_MAX], expect[512];
                        const char *name = f ? "b" : "a";
                        snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
                        int n = 0;
                        for (int i = 0; i < 5; i++)
                                n += snprintf(expect + n, sizeof(expect) - (size_t)n,
                                              "/d/%s.txt:%d:needle %03d\n", name, i + 1, i);
                        snprintf(expect + n, sizeof(expect) - (size_t)n, "truncated 1\n");
                        points[f] = grep_points(b, path, pats[p], 5, false, expect);
                }
                ck_assert_msg(points[1] == points[0],
                              "'%s': a file of 1,000 matches capped at 5 costs %lu points, one "
                              "of 6 matches %lu",
                              pats[p], points[1], points[0]);
        }
        warder_backend_free(b);
        rm_rf(root);
}
END_TEST
#endif

int main(void)
{
        Suite *s = suite_create("grep");
        TCase *tc = tcase_create("engine");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, fast_paths_match_the_reference);
        tcase_add_test(tc, caseless_folds_ascii_only);
        tcase_add_test(tc, binary_probe);
        suite_add_tcase(s, tc);
        tc = tcase_create("threads");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, threads_give_identical_results);
        tcase_add_test(tc, threads_keep_denied_files_unsearched);
        tcase_add_test(tc, guard_predicate_is_thread_safe);
        tcase_add_test(tc, max_matches_boundaries);
        tcase_add_test(tc, file_base_on_descriptor_zero);
        tcase_add_test(tc, max_file_boundary);
        tcase_add_test(tc, success_leaves_the_error_alone);
        tcase_add_test(tc, the_queue_bounds_the_descriptors_held);
#ifdef WARDER__FAULT_INJECTION
        tcase_add_test(tc, grep_threads_every_point);
        tcase_add_test(tc, grep_filter_failures);
        tcase_add_test(tc, file_base_swapped_at_every_point);
        tcase_add_loop_test(tc, a_listed_file_swapped_at_every_point, 0, 2);
        tcase_add_test(tc, file_base_swapped_across_devices);
        tcase_add_test(tc, grep_threads_are_started);
        tcase_add_test(tc, no_descriptor_left_at_any_fault);
        tcase_add_test(tc, descriptor_zero_at_every_point);
        tcase_add_test(tc, every_descriptor_closes_on_exec);
        tcase_add_test(tc, a_listed_file_truncated_at_every_point);
        tcase_add_test(tc, the_cap_ends_the_search);
#endif
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
