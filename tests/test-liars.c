/* SPDX-License-Identifier: MIT */
/*
 * A guard over a backend that lies (§4.1, §4.2, §4.6, §4.7): real forms that are relative,
 * full of `..`, outside the root or answered with unknown codes; listings with entries it
 * invented, entries outside the listed directory, names that are not their path's, symlinks
 * passed off as files; grep hits in files that are denied, outside the searched base or
 * spelled through `..`; counts larger than what was returned. The guard refuses the request
 * or drops what it cannot vouch for: never a denied byte, name or line.
 *
 * Each lie has a control arm: the same request without the guard shows what the lie carries,
 * or the same request with an honest backend succeeds (so a refusal comes from the lie).
 * Promises a backend makes with WARDER_BACKEND_CAP_* are trusted by design (sys/backend.h);
 * the lies below are made by a backend that promises nothing.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock-backend.h"
#include "support.h"
#include "warder/warder.h"

#define SECRET "hunter2"

static const char rules[] = "warder: 1\n"
                            "default: allow\n"
                            "read:\n"
                            "  rules:\n"
                            "    - {pattern: '**/.env', action: deny}\n"
                            "    - {pattern: '/etc/**', action: deny}\n"
                            "    - {pattern: 'vault/**', action: deny}\n"
                            "    - {pattern: 'maybe/**', action: ask}\n"
                            "ls:\n"
                            "  rules:\n"
                            "    - {pattern: '**/.env', action: deny}\n"
                            "    - {pattern: 'vault/**', action: deny}\n"
                            "glob:\n"
                            "  rules:\n"
                            "    - {pattern: '**/.env', action: deny}\n"
                            "    - {pattern: 'vault/**', action: deny}\n";

static const struct {
        const char *path, *data;
} tree[] = {
    {"/ws/pub.txt", "public line\n"},     {"/ws/.env", "TOKEN=" SECRET "\n"},
    {"/ws/vault/key", SECRET " key\n"},   {"/ws/maybe/x.txt", "maybe " SECRET "\n"},
    {"/ws/sub/a.txt", "a public note\n"}, {"/etc/shadow", "root:" SECRET ":19000::::::\n"},
};

/* ---- the liar ------------------------------------------------------------------------------ */

/* realpath answers: `from` → `to` (NULL: leave *out NULL), or the status `rc`. */
struct real_lie {
        const char *from, *to;
        int rc;
};

static const struct real_lie *real_lies;

static int lying_realpath(void *ud, const char *path, char **out)
{
        (void)ud;
        for (const struct real_lie *l = real_lies; l && l->from; l++) {
                if (strcmp(l->from, path) != 0)
                        continue;
                if (l->rc)
                        return l->rc;
                *out = l->to ? warder_strndup(l->to, strlen(l->to)) : NULL;
                return 0;
        }
        *out = warder_strndup(path, strlen(path));
        return *out ? 0 : WARDER_ENOMEM;
}

struct fake_entry {
        const char *name, *path;
        enum warder_entry_type type;
};

/* Entries added to every listing (and grep hits added to every search). */
static const struct fake_entry *extra_entries;
static size_t inflate_count; /* > 0: the count claims this many more entries or matches */

/* With an inflated count the dispatch cannot tell which items are real and frees only the
 * array: the strings are the liar's to free. */
static char *orphans[64];
static size_t norphans;

static void orphan(char *p)
{
        ck_assert_uint_lt(norphans, 64);
        orphans[norphans++] = p;
}

static void free_orphans(void)
{
        for (size_t i = 0; i < norphans; i++)
                free(orphans[i]);
        norphans = 0;
}

static int add_entries(void *ud, enum mock_op op, const char *base, struct warder_entries *out)
{
        (void)ud, (void)op, (void)base;
        for (const struct fake_entry *e = extra_entries; e && e->name; e++) {
                int rc = warder_entries_add(out, e->name, strlen(e->name), e->path, strlen(e->path),
                                            e->type, 1, 0);
                if (rc)
                        return rc;
        }
        for (size_t i = 0; inflate_count && i < out->count; i++) {
                orphan(out->items[i].name);
                orphan(out->items[i].path);
        }
        out->count += inflate_count;
        return 0;
}

struct fake_hit {
        const char *path, *text;
};

static const struct fake_hit *extra_hits;

static int add_hits(void *ud, const struct warder_grep_request *req, struct warder_grep_result *out)
{
        (void)ud, (void)req;
        for (const struct fake_hit *h = extra_hits; h && h->path; h++) {
                int rc =
                    warder_grep_add(out, h->path, strlen(h->path), 1, h->text, strlen(h->text));
                if (rc)
                        return rc;
        }
        for (size_t i = 0; inflate_count && i < out->count; i++) {
                orphan(out->items[i].path);
                orphan(out->items[i].text);
        }
        out->count += inflate_count;
        return 0;
}

static const struct mock_lies lies = {add_entries, add_hits, NULL};

struct world {
        warder_ruleset *rs;
        warder_backend *mem;   /* under the mock (borrowed) */
        warder_backend *liar;  /* the mock (owned by the guard) */
        warder_backend *guard; /* owns the liar */
};

static struct world world;

static void setup(void)
{
        real_lies = NULL;
        extra_entries = NULL;
        extra_hits = NULL;
        inflate_count = 0;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/ws";
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(
            warder_ruleset_load_string(&world.rs, rules, strlen(rules), "liars", &o, &err) == 0,
            "%s", err.message);
        ck_assert_int_eq(warder_memory_new(&world.mem, NULL), 0);
        for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
                ck_assert_int_eq(warder_backend_write(world.mem, tree[i].path, strlen(tree[i].path),
                                                      tree[i].data, strlen(tree[i].data), 0, NULL),
                                 0);
        ck_assert_int_eq(mock_backend_new(&world.liar, world.mem, MOCK_CAN_REALPATH), 0);
        mock_set_realpath(world.liar, lying_realpath, NULL);
        mock_set_lies(world.liar, &lies);
        ck_assert_int_eq(warder_guard_new(&world.guard, world.liar, world.rs, NULL, NULL), 0);
}

static void teardown(void)
{
        warder_backend_free(world.guard);
        warder_ruleset_free(world.rs);
}

static int g_read(const char *path, struct warder_bytes *out, struct warder_error *err)
{
        return warder_backend_read(out, world.guard, path, strlen(path), 0, 0, 0, err);
}

static bool has_entry(const struct warder_entries *e, const char *path)
{
        for (size_t i = 0; i < e->count; i++)
                if (strcmp(e->items[i].path, path) == 0)
                        return true;
        return false;
}

static bool has_name(const struct warder_entries *e, const char *name)
{
        for (size_t i = 0; i < e->count; i++)
                if (strcmp(e->items[i].name, name) == 0)
                        return true;
        return false;
}

static bool grep_leaks(const struct warder_grep_result *r)
{
        for (size_t i = 0; i < r->count; i++)
                if (strstr(r->items[i].text, SECRET))
                        return true;
        return false;
}

/* ---- real forms ------------------------------------------------------------------------------ */

/* A real form that is relative, or no real form at all: nothing can be forwarded. */
START_TEST(real_form_not_absolute)
{
        struct warder_bytes b = WARDER_BYTES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        /* control: told the truth, the same read is allowed */
        ck_assert_int_eq(g_read("/ws/pub.txt", &b, NULL), 0);
        ck_assert_str_eq(b.data, "public line\n");
        warder_bytes_free(&b);
        static const struct real_lie rel[] = {{"/ws/pub.txt", "ws/.env", 0}, {NULL, NULL, 0}};
        static const struct real_lie none[] = {{"/ws/pub.txt", NULL, 0}, {NULL, NULL, 0}};
        const struct real_lie *cases[] = {rel, none};
        for (size_t i = 0; i < 2; i++) {
                real_lies = cases[i];
                mock_reset(world.liar);
                ck_assert_int_eq(g_read("/ws/pub.txt", &b, &err), WARDER_EBACKEND);
                ck_assert_ptr_null(b.data);
                ck_assert_uint_eq(mock_calls(world.liar, MOCK_READ), 0);
        }
        warder_error_clear(&err);
}
END_TEST

/* `..`, repeated slashes and `.` in a real form: decided (and forwarded) normalised. */
START_TEST(real_form_with_dotdot)
{
        static const char *const spellings[] = {"/ws/sub/../.env", "//ws///./.env/",
                                                "/ws/vault/../../ws/.env", "/../ws/.env"};
        struct warder_bytes b = WARDER_BYTES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
                /* control: the spelling reaches the secret on the backend itself */
                ck_assert_int_eq(warder_backend_read(&b, world.mem, spellings[i],
                                                     strlen(spellings[i]), 0, 0, 0, NULL),
                                 0);
                ck_assert_ptr_nonnull(strstr(b.data, SECRET));
                warder_bytes_free(&b);
                struct real_lie lie[] = {{"/ws/pub.txt", spellings[i], 0}, {NULL, NULL, 0}};
                real_lies = lie;
                mock_reset(world.liar);
                ck_assert_int_eq(g_read("/ws/pub.txt", &b, &err), WARDER_EDENIED);
                ck_assert_ptr_null(b.data);
                ck_assert_ptr_nonnull(err.decision);
                ck_assert_int_eq(err.decision->form, WARDER_FORM_REAL);
                ck_assert_uint_eq(mock_calls(world.liar, MOCK_READ), 0);
                real_lies = NULL;
        }
        warder_error_clear(&err);
}
END_TEST

/* A real form outside the root is decided like any other path: /etc is denied here. */
START_TEST(real_form_outside_root)
{
        struct warder_bytes b = WARDER_BYTES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_read(&b, world.mem, "/etc/shadow", 11, 0, 0, 0, NULL), 0);
        ck_assert_ptr_nonnull(strstr(b.data, SECRET)); /* control */
        warder_bytes_free(&b);
        static const struct real_lie lie[] = {{"/ws/pub.txt", "/etc/shadow", 0},
                                              {"/ws/sub/a.txt", "/etc/shadow", 0},
                                              {NULL, NULL, 0}};
        real_lies = lie;
        ck_assert_int_eq(g_read("/ws/pub.txt", &b, &err), WARDER_EDENIED);
        ck_assert_ptr_null(b.data);
        ck_assert_uint_eq(mock_calls(world.liar, MOCK_READ), 0);
        /* and a grep hit whose file resolves there is dropped */
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "public";
        req.pattern_len = strlen(req.pattern);
        req.path = "/ws/sub";
        req.path_len = 7;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 0);
        ck_assert_uint_eq(r.hidden_files, 0); /* dropped by the guard: never counted (§4.7) */
        warder_grep_result_free(&r);
        warder_error_clear(&err);
}
END_TEST

/* Unknown status codes from realpath: an allowed literal is not forwarded, a denied one still
 * reads as denied (no existence oracle), a listed symlink is dropped. */
START_TEST(real_form_unknown_codes)
{
        static const int codes[] = {1, 4242, -4242, INT_MIN, WARDER_STATUS_MIN - 1};
        struct warder_bytes b = WARDER_BYTES_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        static const struct fake_entry link[] = {{"link", "/ws/sub/link", WARDER_ENTRY_SYMLINK},
                                                 {NULL, NULL, 0}};
        for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
                struct real_lie lie[] = {{"/ws/pub.txt", NULL, codes[i]},
                                         {"/ws/.env", NULL, codes[i]},
                                         {"/ws/sub/link", NULL, codes[i]},
                                         {NULL, NULL, 0}};
                real_lies = lie;
                mock_reset(world.liar);
                ck_assert_int_eq(g_read("/ws/pub.txt", &b, &err), WARDER_EBACKEND);
                ck_assert_int_eq(g_read("/ws/.env", &b, &err), WARDER_EDENIED);
                ck_assert_ptr_null(b.data);
                ck_assert_uint_eq(mock_calls(world.liar, MOCK_READ), 0);
                extra_entries = link;
                struct warder_entries e = WARDER_ENTRIES_INIT;
                ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, NULL), 0);
                ck_assert(has_name(&e, "a.txt"));
                ck_assert(!has_name(&e, "link"));
                warder_entries_free(&e);
                extra_entries = NULL;
        }
        warder_error_clear(&err);
}
END_TEST

/* ---- listings ------------------------------------------------------------------------------- */

/* Entries the directory does not hold: outside it, named unlike their path, denied, spelled
 * through `..`. Only an entry the guard can vouch for (its own name, directly in the listed
 * directory, allowed) is shown. */
START_TEST(ls_invented_entries)
{
        static const struct fake_entry fake[] = {
            {".env", "/ws/.env", WARDER_ENTRY_FILE},         /* denied, and not in sub */
            {"pub.txt", "/ws/pub.txt", WARDER_ENTRY_FILE},   /* allowed, but not in sub */
            {"key", "/ws/vault/key", WARDER_ENTRY_FILE},     /* denied, and not in sub */
            {"b.txt", "/ws/sub/../.env", WARDER_ENTRY_FILE}, /* `..` to a denied file */
            {".env", "/ws/sub/a.txt", WARDER_ENTRY_FILE},    /* a denied name on a path */
            {"a.txt", "/ws/sub/./a.txt", WARDER_ENTRY_FILE}, /* a `.` component */
            {"a.txt", "/ws/sub//a.txt", WARDER_ENTRY_FILE},  /* an empty component */
            {"sub", "/ws/sub", WARDER_ENTRY_DIR},            /* the directory itself */
            {"ok.txt", "/ws/sub/ok.txt", WARDER_ENTRY_FILE}, /* plausible: cannot be told */
            {NULL, NULL, 0}};
        extra_entries = fake;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* control: the liar's own listing carries every lie */
        ck_assert_int_eq(warder_backend_ls(&e, world.liar, "/ws/sub", 7, 0, NULL), 0);
        ck_assert_uint_eq(e.count, 10);
        ck_assert(has_name(&e, ".env") && has_entry(&e, "/ws/vault/key"));
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, NULL), 0);
        ck_assert_msg(e.count == 2, "%zu entries", e.count);
        ck_assert(has_entry(&e, "/ws/sub/a.txt") && has_name(&e, "a.txt"));
        ck_assert(has_entry(&e, "/ws/sub/ok.txt"));
        ck_assert(!has_name(&e, ".env") && !has_name(&e, "key") && !has_name(&e, "pub.txt"));
        ck_assert(!has_entry(&e, "/ws/sub/./a.txt") && !has_entry(&e, "/ws/sub//a.txt"));
        ck_assert(!has_entry(&e, "/ws/sub"));
        ck_assert_uint_eq(e.hidden, 8);
        warder_entries_free(&e);
}
END_TEST

/* glob results outside the base, or named unlike their path, are dropped too. */
START_TEST(glob_invented_entries)
{
        static const struct fake_entry fake[] = {
            {"pub.txt", "/ws/pub.txt", WARDER_ENTRY_FILE},
            {".env", "/ws/sub/a.txt", WARDER_ENTRY_FILE},
            {"c.txt", "/ws/sub/x/c.txt", WARDER_ENTRY_FILE},
            {"c.txt", "/ws/sub/x/./c.txt", WARDER_ENTRY_FILE},
            {"c.txt", "/ws/sub/x//c.txt", WARDER_ENTRY_FILE},
            {"c.txt", "/ws/sub/../sub/x/c.txt", WARDER_ENTRY_FILE},
            {"sub", "/ws/sub", WARDER_ENTRY_DIR},
            {NULL, NULL, 0}};
        extra_entries = fake;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        ck_assert_int_eq(
            warder_backend_glob(&e, world.liar, "**", strlen("**"), "/ws/sub", 7, 0, NULL), 0);
        ck_assert(has_entry(&e, "/ws/pub.txt")); /* control */
        warder_entries_free(&e);
        ck_assert_int_eq(
            warder_backend_glob(&e, world.guard, "**", strlen("**"), "/ws/sub", 7, 0, NULL), 0);
        ck_assert(!has_entry(&e, "/ws/pub.txt"));
        ck_assert(!has_name(&e, ".env"));
        ck_assert(has_entry(&e, "/ws/sub/x/c.txt")); /* under the base: cannot be told */
        ck_assert(has_entry(&e, "/ws/sub/a.txt"));
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
}
END_TEST

/* A symlink passed off as a file: a backend that promises nothing has its entries resolved,
 * so a link whose real form is denied is not listed whatever type it claims. */
START_TEST(ls_symlink_passed_off_as_file)
{
        static const struct fake_entry fake[] = {{"notes", "/ws/sub/notes", WARDER_ENTRY_FILE},
                                                 {NULL, NULL, 0}};
        static const struct real_lie lie[] = {{"/ws/sub/notes", "/ws/.env", 0}, {NULL, NULL, 0}};
        extra_entries = fake;
        real_lies = lie;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* control: told honestly that it is a symlink, the guard drops it */
        static const struct fake_entry honest[] = {{"notes", "/ws/sub/notes", WARDER_ENTRY_SYMLINK},
                                                   {NULL, NULL, 0}};
        extra_entries = honest;
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, NULL), 0);
        ck_assert(!has_name(&e, "notes") && has_name(&e, "a.txt"));
        warder_entries_free(&e);
        extra_entries = fake;
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, NULL), 0);
        ck_assert(!has_name(&e, "notes"));
        ck_assert(has_name(&e, "a.txt"));
        warder_entries_free(&e);
}
END_TEST

/* A directory whose real form is "/": every entry is also decided under the caller's
 * spelling, /ws/top/<name>, where the rules may deny what "/<name>" alone would show. */
START_TEST(listing_through_a_link_to_root)
{
        static const struct real_lie lie[] = {{"/ws/top", "/", 0}, {NULL, NULL, 0}};
        real_lies = lie;
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/ws";
        static const char yaml[] = "warder: 1\ndefault: allow\n"
                                   "ls:\n  rules:\n    - deny: top/etc\n";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(warder_ruleset_load_string(&rs, yaml, strlen(yaml), "t", &o, NULL), 0);
        ck_assert_int_eq(warder_guard_set_ruleset(world.guard, rs), 0);
        struct warder_entries e = WARDER_ENTRIES_INIT;
        /* control: listed as /, the entry is allowed */
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/", 1, 0, NULL), 0);
        ck_assert(has_entry(&e, "/etc") && has_entry(&e, "/ws"));
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/top", 7, 0, NULL), 0);
        ck_assert(has_entry(&e, "/ws"));
        ck_assert(!has_entry(&e, "/etc"));
        ck_assert_uint_eq(e.hidden, 1);
        warder_entries_free(&e);
        warder_ruleset_free(rs);
}
END_TEST

/* A count larger than the entries or matches returned: refused before anyone reads past the
 * end (EBACKEND), never filtered. */
START_TEST(counts_larger_than_results)
{
        static const struct fake_entry fake[] = {{"b.txt", "/ws/sub/b.txt", WARDER_ENTRY_FILE},
                                                 {NULL, NULL, 0}};
        static const struct fake_hit hit[] = {{"/ws/sub/a.txt", "a public note"}, {NULL, NULL}};
        extra_entries = fake;
        extra_hits = hit;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "public";
        req.pattern_len = strlen(req.pattern);
        req.path = "/ws/sub";
        req.path_len = 7;
        /* control: with the true count the same results pass */
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, NULL), 0);
        ck_assert_uint_eq(e.count, 2);
        warder_entries_free(&e);
        ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, NULL), 0);
        warder_grep_result_free(&r);
        inflate_count = 1000;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws/sub", 7, 0, &err),
                         WARDER_EBACKEND);
        ck_assert_ptr_null(e.items);
        ck_assert_int_eq(
            warder_backend_glob(&e, world.guard, "*", strlen("*"), "/ws/sub", 7, 0, &err),
            WARDER_EBACKEND);
        ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, &err), WARDER_EBACKEND);
        ck_assert_ptr_null(r.items);
        ck_assert_ptr_nonnull(strstr(err.message, "count larger than"));
        inflate_count = 0;
        free_orphans();
        warder_error_clear(&err);
}
END_TEST

/* ---- grep ----------------------------------------------------------------------------------- */

/* Hits in files that are denied or ask for read, spelled through `..` or outside the base:
 * dropped; nothing in the result comes from them. */
START_TEST(grep_hits_it_should_not_have)
{
        static const struct fake_hit fake[] = {
            {"/ws/.env", "TOKEN=" SECRET},               /* denied, outside the base */
            {"/ws/sub/../.env", "TOKEN=" SECRET},        /* denied, through `..` */
            {"/ws/sub/../vault/key", SECRET " key"},     /* denied */
            {"/ws/sub/../maybe/x.txt", "maybe " SECRET}, /* ask */
            {"/ws/pub.txt", "public line"},              /* allowed, but not under the base */
            {"/ws/sub/./a.txt", "a public note"},        /* a `.` component */
            {"/ws/sub//a.txt", "a public note"},         /* an empty component */
            {NULL, NULL}};
        extra_hits = fake;
        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
        req.pattern = "public";
        req.pattern_len = strlen(req.pattern);
        req.path = "/ws/sub";
        req.path_len = 7;
        struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
        /* control: the liar's answer carries the secret */
        ck_assert_int_eq(warder_backend_grep(&r, world.liar, &req, NULL), 0);
        ck_assert(grep_leaks(&r));
        ck_assert_uint_eq(r.count, 8);
        warder_grep_result_free(&r);
        ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, NULL), 0);
        ck_assert(!grep_leaks(&r));
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].path, "/ws/sub/a.txt");
        ck_assert_uint_eq(r.hidden_files, 0); /* dropped by the guard: never counted (§4.7) */
        warder_grep_result_free(&r);
        /* a file base: a hit in another file is not a hit of that file */
        static const struct fake_hit other[] = {{"/ws/pub.txt", "public line"}, {NULL, NULL}};
        extra_hits = other;
        req.path = "/ws/sub/a.txt";
        req.path_len = strlen(req.path);
        ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, NULL), 0);
        ck_assert_uint_eq(r.count, 1);
        ck_assert_str_eq(r.items[0].path, "/ws/sub/a.txt");
        warder_grep_result_free(&r);
}
END_TEST

/* ---- status codes --------------------------------------------------------------------------- */

/* Unknown codes from every method, through the guard: WARDER_EBACKEND and nothing returned. */
START_TEST(unknown_codes_through_the_guard)
{
        static const int codes[] = {1, 77, -4242, INT_MIN};
        for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
                for (int op = MOCK_READ; op <= MOCK_GREP; op++)
                        mock_fail(world.liar, (enum mock_op)op, codes[i]);
                struct warder_bytes b = WARDER_BYTES_INIT;
                struct warder_entries e = WARDER_ENTRIES_INIT;
                struct warder_grep_result r = WARDER_GREP_RESULT_INIT;
                size_t count = 99;
                ck_assert_int_eq(g_read("/ws/pub.txt", &b, NULL), WARDER_EBACKEND);
                ck_assert_int_eq(
                    warder_backend_write(world.guard, "/ws/sub/n.txt", 13, "x", 1, 0, NULL),
                    WARDER_EBACKEND);
                ck_assert_int_eq(warder_backend_edit(&count, world.guard, "/ws/sub/a.txt", 13, "a",
                                                     1, "b", 1, 0, NULL),
                                 WARDER_EBACKEND);
                ck_assert_int_eq(warder_backend_ls(&e, world.guard, "/ws", 3, 0, NULL),
                                 WARDER_EBACKEND);
                ck_assert_int_eq(
                    warder_backend_glob(&e, world.guard, "*", strlen("*"), "/ws", 3, 0, NULL),
                    WARDER_EBACKEND);
                struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                req.pattern = "x";
                req.pattern_len = strlen(req.pattern);
                req.path = "/ws";
                req.path_len = 3;
                ck_assert_int_eq(warder_backend_grep(&r, world.guard, &req, NULL), WARDER_EBACKEND);
                ck_assert(!b.data && !e.items && !r.items && count == 99);
                for (int op = MOCK_READ; op <= MOCK_GREP; op++)
                        mock_fail(world.liar, (enum mock_op)op, 0);
        }
}
END_TEST

int main(void)
{
        Suite *s = suite_create("liars");
        TCase *tc = tcase_create("core");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, real_form_not_absolute);
        tcase_add_test(tc, real_form_with_dotdot);
        tcase_add_test(tc, real_form_outside_root);
        tcase_add_test(tc, real_form_unknown_codes);
        tcase_add_test(tc, ls_invented_entries);
        tcase_add_test(tc, glob_invented_entries);
        tcase_add_test(tc, ls_symlink_passed_off_as_file);
        tcase_add_test(tc, listing_through_a_link_to_root);
        tcase_add_test(tc, counts_larger_than_results);
        tcase_add_test(tc, grep_hits_it_should_not_have);
        tcase_add_test(tc, unknown_codes_through_the_guard);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
