/* SPDX-License-Identifier: MIT */
/*
 * The masking walk of execute on its own (§6.5): what it records for a predicate over a real
 * tree, the descriptors it pins, the other names of denied inodes, its budgets, and what it
 * does when a name changes under it (the predicate swaps it, as a racing writer would).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/local/mask.h"
#include "fault.h"
#include "support.h"
#include "warder/error.h"

static char root[64];
static char outside[64];

/* ---- the tree ---- */

static void full(char *buf, size_t n, const char *base, const char *rel)
{
        ck_assert_int_lt(snprintf(buf, n, "%s/%s", base, rel), (int)n);
}

static void put(const char *rel, const char *text)
{
        char p[1024];
        full(p, sizeof(p), root, rel);
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        ck_assert_int_eq(fclose(f), 0);
}

static void dir(const char *rel)
{
        char p[1024];
        full(p, sizeof(p), root, rel);
        ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void hardlink(const char *from, const char *to)
{
        char a[1024], b[1024];
        full(a, sizeof(a), root, from);
        full(b, sizeof(b), root, to);
        ck_assert_int_eq(link(a, b), 0);
}

static void symlink_to(const char *target, const char *rel)
{
        char p[1024];
        full(p, sizeof(p), root, rel);
        ck_assert_int_eq(symlink(target, p), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static void setup(void)
{
        snprintf(root, sizeof(root), "/tmp/warder-mask-root-XXXXXX");
        snprintf(outside, sizeof(outside), "/tmp/warder-mask-out-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(root));
        ck_assert_ptr_nonnull(mkdtemp(outside));
        char p[1024];
        full(p, sizeof(p), outside, "secret");
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs("SECRET-OUTSIDE\n", f);
        ck_assert_int_eq(fclose(f), 0);
        full(p, sizeof(p), outside, "dir");
        ck_assert_int_eq(mkdir(p, 0755), 0);
        full(p, sizeof(p), outside, "dir/inner");
        f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fclose(f), 0);
}

static void teardown(void)
{
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        nftw(outside, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the predicate: flags by path relative to the root, a log of its calls, one swap ---- */

struct rule {
        const char *rel;
        unsigned flags;
};

struct pred {
        const struct rule *rules;
        char calls[64][512];           /* "rel" or "rel -> real": the first 64 calls */
        size_t ncalls;                 /* all of them */
        const char *swap_at;           /* when asked about this name... */
        void (*swap)(const char *abs); /* ...this replaces it first */
        bool swapped;
        int sleep_ms;          /* each call takes this long... */
        const char *sleep_at;  /* ...or only the call about this name */
        const char *close0_at; /* descriptor 0 is closed when asked about this name */
};

static const char *rel_of(const char *abs)
{
        size_t n = strlen(root);
        ck_assert_msg(strncmp(abs, root, n) == 0, "'%s' is outside the root", abs);
        return abs[n] == '/' ? abs + n + 1 : abs + n;
}

static unsigned predicate(void *ud, const char *literal, const char *real)
{
        struct pred *p = ud;
        const char *rel = rel_of(literal);
        if (p->ncalls < 64 && real)
                snprintf(p->calls[p->ncalls], 512, "%s -> %s", rel, real);
        else if (p->ncalls < 64)
                snprintf(p->calls[p->ncalls], 512, "%s", rel);
        p->ncalls++;
        if (p->sleep_ms && (!p->sleep_at || strcmp(rel, p->sleep_at) == 0))
                nanosleep(&(struct timespec){0, p->sleep_ms * 1000000L}, NULL);
        if (p->close0_at && strcmp(rel, p->close0_at) == 0)
                close(0);
        if (p->swap_at && strcmp(rel, p->swap_at) == 0) {
                /* What took the name's place is harmless (readdir may list it again). */
                if (p->swapped)
                        return 0;
                p->swapped = true;
                p->swap(literal);
        }
        for (const struct rule *r = p->rules; r && r->rel; r++)
                if (strcmp(r->rel, rel) == 0)
                        return r->flags;
        return 0;
}

static size_t called(const struct pred *p, const char *text)
{
        size_t n = 0;
        ck_assert_uint_le(p->ncalls, 64);
        for (size_t i = 0; i < p->ncalls; i++)
                n += strcmp(p->calls[i], text) == 0;
        return n;
}

static int collect(struct pred *p, size_t max_entries, struct mask_list *out,
                   struct warder_error *err)
{
        *out = (struct mask_list){0};
        return warder__exec_collect_masks(root, max_entries, 10000, predicate, p, out, err);
}

/* The entry for `rel` (relative to the root, "" for the root, or an absolute path). */
static const struct mask_entry *entry(const struct mask_list *l, const char *rel)
{
        char want[1024];
        if (rel[0] == '/')
                snprintf(want, sizeof(want), "%s", rel);
        else if (!rel[0])
                snprintf(want, sizeof(want), "%s", root);
        else
                full(want, sizeof(want), root, rel);
        const struct mask_entry *found = NULL;
        for (size_t i = 0; i < l->count; i++) {
                if (strcmp(l->items[i].path, want) == 0) {
                        ck_assert_msg(!found, "'%s' is recorded twice", want);
                        found = &l->items[i];
                }
        }
        return found;
}

/*
 * Every entry pins what its path names now (it was not changed here), closed on exec, and
 * a directory's kind matches its flag.
 */
static void check_pins(const struct mask_list *l)
{
        for (size_t i = 0; i < l->count; i++) {
                const struct mask_entry *e = &l->items[i];
                struct stat st, at;
                ck_assert_int_ge(e->fd, 0);
                ck_assert_int_eq(fstat(e->fd, &st), 0);
                ck_assert_int_eq(lstat(e->path, &at), 0);
                ck_assert_msg(st.st_dev == at.st_dev && st.st_ino == at.st_ino,
                              "the pin of '%s' is not what the name holds", e->path);
                ck_assert(st.st_dev == e->dev && st.st_ino == e->ino);
                ck_assert_int_eq(e->dir, S_ISDIR(st.st_mode));
                ck_assert_msg(fcntl(e->fd, F_GETFD) & FD_CLOEXEC,
                              "the pin of '%s' would leak into the command", e->path);
                ck_assert_uint_ne(e->flags, 0);
        }
}

static void expect(const struct mask_list *l, const char *rel, unsigned flags)
{
        const struct mask_entry *e = entry(l, rel);
        ck_assert_msg(e, "'%s' is not masked", rel);
        ck_assert_msg(e->flags == flags, "'%s' has flags %u, not %u", rel, e->flags, flags);
}

static void expect_none(const struct mask_list *l, const char *rel)
{
        ck_assert_msg(!entry(l, rel), "'%s' is masked", rel);
}

enum { H = WARDER_MASK_HIDE, R = WARDER_MASK_READONLY };

/* ---- what the predicate says, recorded ---- */

START_TEST(records_what_the_predicate_masks)
{
        put("hidden.txt", "h");
        put("ro.txt", "r");
        put("both.txt", "b");
        put("plain.txt", "p");
        dir("d");
        put("d/deep.txt", "x");
        dir("rodir");
        put("rodir/in.txt", "i");
        put("rodir/h.txt", "h");
        dir("hdir");
        put("hdir/x", "x");
        dir("hdir/sub");
        static const struct rule rules[] = {
            {"hidden.txt", H}, {"ro.txt", R},       {"both.txt", H | R}, {"d/deep.txt", H},
            {"rodir", R},      {"rodir/in.txt", R}, {"rodir/h.txt", H},  {"hdir", H},
            {"hdir/x", H},     {NULL, 0},
        };
        struct pred p = {.rules = rules};
        struct mask_list l;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(collect(&p, 1000, &l, &err), 0);
        check_pins(&l);
        expect(&l, "hidden.txt", H);
        expect(&l, "ro.txt", R);
        expect(&l, "both.txt", H); /* the empty stand-in is read-only anyway */
        expect(&l, "d/deep.txt", H);
        expect(&l, "rodir", R);
        expect(&l, "rodir/h.txt", H);
        expect(&l, "hdir", H);
        /* Covered by its read-only directory already; nothing inside a hidden one is asked. */
        expect_none(&l, "rodir/in.txt");
        expect_none(&l, "hdir/x");
        ck_assert_uint_eq(l.count, 7);
        ck_assert_uint_eq(called(&p, "hdir/x"), 0);
        ck_assert_uint_eq(called(&p, "hdir/sub"), 0);
        ck_assert_uint_eq(called(&p, "plain.txt"), 1);
        ck_assert_uint_eq(called(&p, "d/deep.txt"), 1);
        ck_assert_uint_eq(called(&p, ""), 1);
        /* Files are pinned without being opened for reading; directories for listing. */
        for (size_t i = 0; i < l.count; i++) {
                int fl = fcntl(l.items[i].fd, F_GETFL);
                ck_assert_int_ne(fl, -1);
                if (l.items[i].dir)
                        ck_assert_int_eq(fl & O_PATH, 0);
                else
                        ck_assert_int_eq(fl & O_PATH, O_PATH);
        }
        warder__exec_mask_list_free(&l);
        ck_assert_ptr_null(l.items);
        ck_assert_uint_eq(l.count, 0);
}
END_TEST

START_TEST(a_hidden_root_is_one_entry)
{
        put("a", "a");
        static const struct rule rules[] = {{"", H}, {NULL, 0}};
        struct pred p = {.rules = rules};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        check_pins(&l);
        expect(&l, "", H);
        ck_assert_uint_eq(l.count, 1);
        ck_assert_uint_eq(called(&p, "a"), 0);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* ---- other names of denied inodes (§6.5) ---- */

START_TEST(other_names_of_denied_files_are_masked)
{
        dir("a");
        dir("b");
        put("a/secret", "s");
        hardlink("a/secret", "b/alias");
        put("a/ro", "r");
        hardlink("a/ro", "b/ro-alias");
        dir("hdir");
        dir("hdir/deeper");
        put("hdir/deeper/f", "f");
        hardlink("hdir/deeper/f", "g");
        put("pub", "p");
        hardlink("pub", "b/pub2");
        put("lone", "l");
        static const struct rule rules[] = {
            {"a/secret", H}, {"a/ro", R}, {"hdir", H}, {"lone", H}, {NULL, 0},
        };
        struct pred p = {.rules = rules};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        check_pins(&l);
        expect(&l, "a/secret", H);
        expect(&l, "b/alias", H);
        expect(&l, "a/ro", R);
        expect(&l, "b/ro-alias", R);
        expect(&l, "hdir", H);
        expect(&l, "g", H); /* a name outside the hidden directory of a file inside it */
        expect(&l, "lone", H);
        /* Inside the hidden directory its names are covered with it; other files with other
         * names are nobody's business. */
        expect_none(&l, "hdir/deeper/f");
        expect_none(&l, "pub");
        expect_none(&l, "b/pub2");
        ck_assert_uint_eq(l.count, 7);
        /* The predicate is asked about each name once: the second pass asks nothing. */
        ck_assert_uint_eq(called(&p, "b/alias"), 1);
        ck_assert_uint_eq(called(&p, "pub"), 1);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* Two names of one inode denied differently: the third name gets both. */
START_TEST(flags_of_one_inode_add_up)
{
        put("x1", "x");
        hardlink("x1", "x2");
        hardlink("x1", "x3");
        put("y1", "y");
        hardlink("y1", "y2");
        static const struct rule rules[] = {{"x1", H}, {"x2", R}, {"y1", R}, {NULL, 0}};
        struct pred p = {.rules = rules};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        check_pins(&l);
        expect(&l, "x3", H | R);
        /* A name the first pass recorded gets the other name's flag too: one mask each. */
        expect(&l, "x1", H | R);
        expect(&l, "x2", H | R);
        expect(&l, "y1", R);
        expect(&l, "y2", R);
        ck_assert_uint_eq(l.count, 5);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* ---- symbolic links ---- */

START_TEST(a_link_masks_the_file_it_leads_to)
{
        dir("d");
        put("d/secret", "s");
        hardlink("d/secret", "other-name");
        symlink_to("d/secret", "link");
        symlink_to("nowhere", "dangling");
        symlink_to("loop2", "loop1");
        symlink_to("loop1", "loop2");
        put("file", "f");
        symlink_to("file/below", "through-a-file");
        static const struct rule all_links[] = {
            {"link", H},           {"out-link", R}, {"loop1", H}, {"loop2", H},
            {"through-a-file", H}, {"dangling", H}, {NULL, 0},
        };
        char real[1024], outside_secret[1024];
        full(real, sizeof(real), root, "d/secret");
        full(outside_secret, sizeof(outside_secret), outside, "secret");
        symlink_to(outside_secret, "out-link");
        struct pred p = {.rules = all_links};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        /* Links that lead nowhere (dangling, a loop, through a file) have nothing to mask and
         * leave their directory as it is. */
        ck_assert_uint_eq(called(&p, "loop1"), 0);
        char call[1100];
        snprintf(call, sizeof(call), "link -> %s", real);
        ck_assert_uint_eq(called(&p, call), 1);
        ck_assert_uint_eq(called(&p, "dangling"), 0);
        /* The file is masked where it is (a mount lands there anyway), and so is its other
         * name; the link itself is not an entry. */
        expect(&l, "d/secret", H);
        expect(&l, "other-name", H);
        expect_none(&l, "link");
        expect(&l, outside_secret, R);
        ck_assert_uint_eq(l.count, 3);
        check_pins(&l);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* ---- budgets ---- */

static size_t entries_of_tree(void)
{
        put("f1", "1");
        put("f2", "2");
        dir("d");
        put("d/f3", "3");
        dir("d/e");
        return 5; /* f1 f2 d d/f3 d/e */
}

START_TEST(the_entry_budget_is_exact)
{
        size_t n = entries_of_tree();
        struct pred p = {0};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, n, &l, NULL), 0);
        warder__exec_mask_list_free(&l);
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(collect(&p, n - 1, &l, &err), WARDER_ELIMIT);
        ck_assert_ptr_nonnull(strstr(err.message, "budget of 4 entries"));
        warder__exec_mask_list_free(&l);
}
END_TEST

START_TEST(the_time_budget_fails_closed)
{
        entries_of_tree();
        /* The predicate's first answer (about the root) takes 3 ms of a 1 ms budget. */
        struct pred p = {.sleep_ms = 3};
        struct mask_list l = {0};
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder__exec_collect_masks(root, 1000, 1, predicate, &p, &l, &err),
                         WARDER_ELIMIT);
        ck_assert_ptr_nonnull(strstr(err.message, "budget of 1 ms"));
        ck_assert_uint_eq(p.ncalls, 1);
        warder__exec_mask_list_free(&l);
        /* Control: the same walk within a budget it can keep. */
        p = (struct pred){.sleep_ms = 3};
        ck_assert_int_eq(warder__exec_collect_masks(root, 1000, 10000, predicate, &p, &l, &err), 0);
        ck_assert_uint_eq(p.ncalls, 6);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* The deepest nesting the walk accepts, and one more. */
START_TEST(the_nesting_limit_is_exact)
{
        char rel[600] = "";
        for (int i = 0; i < 255; i++) {
                strcat(rel, i ? "/n" : "n");
                dir(rel);
        }
        struct pred p = {0};
        struct mask_list l;
        struct warder_error err = WARDER_ERROR_INIT;
        /* The root is walked at depth 1: 255 directories below it are fine, 256 are not. */
        ck_assert_int_eq(collect(&p, 100000, &l, &err), 0);
        warder__exec_mask_list_free(&l);
        ck_assert_uint_eq(p.ncalls, 256);
        strcat(rel, "/n");
        dir(rel);
        p = (struct pred){0};
        ck_assert_int_eq(collect(&p, 100000, &l, &err), WARDER_ELIMIT);
        /* (the message, naming the deep path, is cut short) */
        ck_assert_int_eq(strncmp(err.message, "masking: '", 10), 0);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* ---- a name that changes under the walk (the predicate swaps it before it is pinned) ---- */

static char swap_target[1024];

/* Moves what is at `abs` aside (a directory cannot be renamed over). */
static void aside(const char *abs)
{
        char old[1100];
        snprintf(old, sizeof(old), "%s.old", abs);
        ck_assert_int_eq(rename(abs, old), 0);
}

static void to_symlink(const char *abs)
{
        aside(abs);
        ck_assert_int_eq(symlink(swap_target, abs), 0);
}

static void to_directory(const char *abs)
{
        aside(abs);
        ck_assert_int_eq(mkdir(abs, 0755), 0);
}

static void to_file(const char *abs)
{
        aside(abs);
        int fd = open(abs, O_CREAT | O_WRONLY | O_EXCL, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
}

static void removed(const char *abs)
{
        ck_assert_int_eq(unlink(abs), 0);
}

/*
 * The walk over a tree with sub/victim (a file, or a directory holding a file), where the
 * predicate gives the victim `victim_flags` (and sub read-only when `ro_parent`), and `swap`
 * replaces the victim when the predicate is asked about it. Returns the walk's answer.
 */
static int swapped(bool victim_dir, unsigned victim_flags, void (*swap)(const char *),
                   bool ro_parent, struct mask_list *l, struct pred *p, struct warder_error *err)
{
        dir("sub");
        if (victim_dir) {
                dir("sub/victim");
                put("sub/victim/f", "f");
        } else {
                put("sub/victim", "v");
        }
        put("sub/other", "o");
        static struct rule rules[3];
        size_t n = 0;
        if (ro_parent)
                rules[n++] = (struct rule){"sub", R};
        rules[n++] = (struct rule){"sub/victim", victim_flags};
        rules[n] = (struct rule){NULL, 0};
        *p = (struct pred){.rules = rules, .swap_at = swap ? "sub/victim" : NULL, .swap = swap};
        int rc = collect(p, 1000, l, err);
        ck_assert(p->swapped || !swap);
        ck_assert_uint_eq(called(p, "sub/victim/f"), 0);
        return rc;
}

START_TEST(control_the_victim_unchanged_is_masked_alone)
{
        for (int d = 0; d < 2; d++) {
                struct mask_list l;
                struct pred p;
                ck_assert_int_eq(swapped(d, H, NULL, false, &l, &p, NULL), 0);
                check_pins(&l);
                expect(&l, "sub/victim", H);
                expect_none(&l, "sub");
                ck_assert_uint_eq(l.count, 1);
                warder__exec_mask_list_free(&l);
                teardown();
                setup();
        }
}
END_TEST

/*
 * What the rules deny is pinned before the walk goes on: when something else has taken its
 * name (a link, a directory, a file), its other names cannot be found, and the walk fails.
 */
static void expect_refused(bool victim_dir, void (*swap)(const char *))
{
        struct mask_list l;
        struct pred p;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(swapped(victim_dir, H, swap, false, &l, &p, &err), WARDER_EACCES);
        ck_assert_ptr_nonnull(strstr(err.message, "which the rules deny"));
        warder__exec_mask_list_free(&l);
}

START_TEST(a_denied_file_swapped_for_a_link_fails)
{
        full(swap_target, sizeof(swap_target), outside, "secret");
        expect_refused(false, to_symlink);
}
END_TEST

START_TEST(a_denied_directory_swapped_for_a_link_fails)
{
        full(swap_target, sizeof(swap_target), outside, "dir");
        expect_refused(true, to_symlink);
}
END_TEST

START_TEST(a_denied_file_swapped_for_a_directory_fails)
{
        expect_refused(false, to_directory);
}
END_TEST

START_TEST(a_denied_directory_swapped_for_a_file_fails)
{
        expect_refused(true, to_file);
}
END_TEST

/*
 * A directory the rules leave alone is walked: when something else has taken its name, what
 * is there cannot be examined, and the directory holding it is hidden whole.
 */
static void expect_parent_hidden(void (*swap)(const char *), bool ro_parent)
{
        struct mask_list l;
        struct pred p;
        ck_assert_int_eq(swapped(true, 0, swap, ro_parent, &l, &p, NULL), 0);
        check_pins(&l);
        expect(&l, "sub", ro_parent ? R | H : H);
        expect_none(&l, "sub/victim");
        ck_assert_uint_eq(l.count, 1);
        ck_assert_uint_eq(called(&p, "sub/victim/inner"), 0);
        warder__exec_mask_list_free(&l);
}

START_TEST(a_directory_swapped_for_a_link_hides_its_directory)
{
        full(swap_target, sizeof(swap_target), outside, "dir");
        expect_parent_hidden(to_symlink, false);
}
END_TEST

START_TEST(a_directory_swapped_for_a_file_hides_its_directory)
{
        expect_parent_hidden(to_file, false);
}
END_TEST

/* In a read-only directory too: read-only is not enough for what could not be examined. */
START_TEST(a_swap_inside_a_read_only_directory_hides_it)
{
        full(swap_target, sizeof(swap_target), outside, "dir");
        expect_parent_hidden(to_symlink, true);
}
END_TEST

/* A link to a FIFO is decided and its target pinned without opening the FIFO for reading,
 * which would block until a writer came. */
START_TEST(a_link_to_a_fifo_does_not_block)
{
        char fifo[1024];
        full(fifo, sizeof(fifo), root, "pipe");
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        symlink_to("pipe", "pipe-link");
        static const struct rule rules[] = {{"pipe-link", H}, {NULL, 0}};
        struct pred p = {.rules = rules};
        struct mask_list l;
        alarm(20);
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        alarm(0);
        check_pins(&l);
        expect(&l, "pipe", H);
        ck_assert_uint_eq(l.count, 1);
        warder__exec_mask_list_free(&l);
}
END_TEST

/* A directory replaced by a FIFO before it is opened: opening it must not block the walk. */
static void to_fifo(const char *abs)
{
        aside(abs);
        ck_assert_int_eq(mkfifo(abs, 0600), 0);
}

START_TEST(a_directory_swapped_for_a_fifo_does_not_block)
{
        alarm(20);
        expect_parent_hidden(to_fifo, false);
        alarm(0);
}
END_TEST

/* A name that vanished is nothing to mask, and its directory stays visible. */
START_TEST(a_vanished_name_is_skipped)
{
        struct mask_list l;
        struct pred p;
        ck_assert_int_eq(swapped(false, H, removed, false, &l, &p, NULL), 0);
        ck_assert_uint_eq(l.count, 0);
        warder__exec_mask_list_free(&l);
}
END_TEST

/*
 * The file a link leads to changes between the predicate's answer and its pinning: gone, it
 * needs no mask; replaced by a link, or its directory by a file, it cannot be pinned, and the
 * directory holding the link is hidden.
 */
static void target_gone(const char *abs)
{
        (void)abs;
        ck_assert_int_eq(unlink(swap_target), 0);
}

static void target_to_link(const char *abs)
{
        (void)abs;
        char out[1024];
        full(out, sizeof(out), outside, "secret");
        ck_assert_int_eq(unlink(swap_target), 0);
        ck_assert_int_eq(symlink(out, swap_target), 0);
}

static void target_dir_to_file(const char *abs)
{
        (void)abs;
        char d[1024];
        full(d, sizeof(d), root, "tdir");
        aside(d);
        int fd = open(d, O_CREAT | O_WRONLY | O_EXCL, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
}

START_TEST(a_link_target_changed_before_its_pin)
{
        static void (*const swaps[])(const char *) = {target_gone, target_to_link,
                                                      target_dir_to_file};
        dir("sub");
        dir("tdir");
        put("tdir/target", "t");
        full(swap_target, sizeof(swap_target), root, "tdir/target");
        symlink_to("../tdir/target", "sub/link");
        static const struct rule rules[] = {{"sub/link", H}, {NULL, 0}};
        struct pred p = {.rules = rules, .swap_at = "sub/link", .swap = swaps[_i]};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        ck_assert(p.swapped);
        if (_i == 0) {
                ck_assert_uint_eq(l.count, 0);
        } else {
                expect(&l, "sub", H);
                ck_assert_uint_eq(l.count, 1);
        }
        warder__exec_mask_list_free(&l);
}
END_TEST

/* ---- the root ---- */

START_TEST(a_missing_root_has_nothing_to_mask)
{
        char gone[1100];
        full(gone, sizeof(gone), root, "gone");
        struct pred p = {0};
        struct mask_list l = {0};
        ck_assert_int_eq(warder__exec_collect_masks(gone, 1000, 10000, predicate, &p, &l, NULL), 0);
        ck_assert_uint_eq(l.count, 0);
}
END_TEST

START_TEST(a_root_that_cannot_be_examined_fails_closed)
{
        put("file", "f");
        char bad[1100];
        full(bad, sizeof(bad), root, "file/below");
        struct pred p = {0};
        struct mask_list l = {0};
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder__exec_collect_masks(bad, 1000, 10000, predicate, &p, &l, &err),
                         WARDER_EACCES);
        ck_assert_ptr_nonnull(strstr(err.message, "cannot examine the root"));
        ck_assert_uint_eq(l.count, 0);
}
END_TEST

/* ---- what cannot be listed, descriptors, the root, the clock ---- */

static int chown_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return lchown(path, 65534, 65534);
}

/*
 * A directory the walk may enter but not list is hidden whole, pinned by an O_PATH descriptor
 * (the child may be able to open it up, and must find nothing unchecked there). Root lists
 * every directory: as root, the walk runs as nobody, who owns the tree. The second iteration
 * has the pin land on descriptor 0; in the third the rules hide the directory.
 */
START_TEST(a_directory_that_cannot_be_listed_is_hidden_whole)
{
        dir("sub");
        dir("sub/locked");
        put("sub/locked/secret", "s");
        put("sub/open", "o");
        char p[1024];
        full(p, sizeof(p), root, "sub/locked");
        if (geteuid() == 0) {
                const char *fork_mode = getenv("CK_FORK");
                if (fork_mode && strcmp(fork_mode, "no") == 0)
                        return; /* the credentials would outlive the test */
                ck_assert_int_eq(nftw(root, chown_entry, 16, FTW_PHYS), 0);
                ck_assert_int_eq(nftw(outside, chown_entry, 16, FTW_PHYS), 0); /* teardown */
                ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
                ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
        }
        ck_assert_int_eq(chmod(p, 0311), 0);
        /* Control: it cannot be listed. */
        errno = 0;
        ck_assert_int_lt(open(p, O_RDONLY | O_DIRECTORY), 0);
        ck_assert_int_eq(errno, EACCES);
        static const struct rule hide_it[] = {{"sub/locked", H}, {NULL, 0}};
        struct pred pr = {.close0_at = _i == 1 ? "sub/locked" : NULL,
                          .rules = _i == 2 ? hide_it : NULL};
        struct mask_list l;
        struct warder_error err = WARDER_ERROR_INIT;
        if (_i == 2) {
                /* Denied, it must be listed all the same: its files may have other names. */
                ck_assert_int_eq(collect(&pr, 1000, &l, &err), WARDER_EACCES);
                ck_assert_ptr_nonnull(strstr(err.message, "which the rules deny"));
                warder__exec_mask_list_free(&l);
                ck_assert_int_eq(chmod(p, 0755), 0);
                return;
        }
        ck_assert_int_eq(collect(&pr, 1000, &l, NULL), 0);
        check_pins(&l);
        expect(&l, "sub/locked", H);
        const struct mask_entry *e = entry(&l, "sub/locked");
        ck_assert(e->dir);
        ck_assert_int_eq(fcntl(e->fd, F_GETFL) & O_PATH, O_PATH);
        if (_i)
                ck_assert_int_eq(e->fd, 0);
        ck_assert_uint_eq(l.count, 1);
        ck_assert_uint_eq(called(&pr, "sub/locked/secret"), 0);
        warder__exec_mask_list_free(&l);
        ck_assert_int_eq(chmod(p, 0755), 0);
}
END_TEST

/* Descriptor 0 is a descriptor like any other: a pin that lands there is kept. */
START_TEST(a_pin_on_descriptor_zero_is_kept)
{
        dir("sub");
        put("sub/secret", "s");
        put("target", "t");
        hardlink("target", "target-name");
        symlink_to("../target", "sub/link");
        dir("hdir");
        put("hdir/f", "f");
        hardlink("hdir/f", "hdir/f2");
        static const struct rule rules[] = {
            {"sub/secret", H},
            {"sub/link", H},
            {"hdir", H},
            {NULL, 0},
        };
        /* the denied file; the link's target; the root's second opening, between the passes
         * (descriptor 0 is free again by then: the hidden directory's listing held it) */
        static const char *const at[] = {"sub/secret", "sub/link", "hdir"};
        struct pred p = {.rules = rules, .close0_at = at[_i]};
        struct mask_list l;
        ck_assert_int_eq(collect(&p, 1000, &l, NULL), 0);
        check_pins(&l);
        expect(&l, "sub/secret", H);
        expect(&l, "target", H);
        expect(&l, "target-name", H);
        expect(&l, "hdir", H);
        expect_none(&l, "sub");
        ck_assert_uint_eq(l.count, 4);
        bool zero = false;
        for (size_t i = 0; i < l.count; i++)
                zero |= l.items[i].fd == 0;
        ck_assert(zero || _i == 2);
        warder__exec_mask_list_free(&l);
        ck_assert_int_eq(fcntl(0, F_GETFD), -1); /* closed with the list, or by the walk */
}
END_TEST

static int lowest_free_fd(void)
{
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        close(fd);
        return fd;
}

static size_t open_fds(void)
{
        size_t n = 0;
        for (int fd = 0; fd < 1024; fd++)
                n += fcntl(fd, F_GETFD) != -1;
        return n;
}

/* Whether `got` holds exactly the entries of `want` (paths and flags, in any order). */
static bool same(const struct mask_list *got, const struct mask_list *want, const char **miss)
{
        for (size_t i = 0; i < want->count; i++) {
                const struct mask_entry *e = entry(got, want->items[i].path);
                if (!e || e->flags != want->items[i].flags) {
                        *miss = want->items[i].path;
                        return false;
                }
        }
        *miss = "(an entry too many)";
        return got->count == want->count;
}

/* The tree of the failure tests: something of every kind to mask. */
static const struct rule busy_tree_rules[] = {
    {"d/a", H},  {"d/b", R},  {"rodir", R},    {"rodir/h", H},
    {"hdir", H}, {"link", H}, {"out-link", H}, {NULL, 0},
};

static const struct rule *busy_tree(void)
{
        dir("d");
        put("d/a", "a");
        hardlink("d/a", "a-too");
        put("d/b", "b");
        put("d/plain", "p");
        dir("rodir");
        put("rodir/in", "i");
        put("rodir/h", "h");
        dir("hdir");
        dir("hdir/deep");
        put("hdir/deep/f", "f");
        hardlink("hdir/deep/f", "g");
        put("target", "t");
        hardlink("target", "d/target-name");
        symlink_to("target", "link");
        char out[1024];
        full(out, sizeof(out), outside, "secret");
        symlink_to(out, "out-link");
        return busy_tree_rules;
}

/*
 * Out of descriptors at any point of the walk (the limit lowered step by step): the walk
 * fails, saying so, or masks everything the unlimited walk does. Never a shorter list.
 */
/* Trees whose last descriptor is taken at one place: the copy of a read-only directory's
 * pin, the pin of another name in the second pass, a link's target (opened last). */
static const struct rule ro_dir_rules[] = {{"rodir", R}, {NULL, 0}};
static const struct rule other_name_rules[] = {{"a", H}, {NULL, 0}};
static const struct rule out_link_rules[] = {{"out-link", H}, {NULL, 0}};

START_TEST(running_out_of_descriptors_fails_closed)
{
        const struct rule *rules = busy_tree_rules;
        if (_i == 0) {
                busy_tree();
        } else if (_i == 1) {
                dir("rodir");
                put("rodir/f", "f");
                rules = ro_dir_rules;
        } else if (_i == 2) {
                put("a", "a");
                hardlink("a", "b");
                rules = other_name_rules;
        } else {
                char out[1024];
                full(out, sizeof(out), outside, "secret");
                symlink_to(out, "out-link");
                rules = out_link_rules;
        }
        struct pred p = {.rules = rules};
        struct mask_list want;
        ck_assert_int_eq(collect(&p, 1000, &want, NULL), 0);
        static const size_t count[] = {10, 1, 2, 1};
        ck_assert_uint_eq(want.count, count[_i]);
        struct rlimit old;
        ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
        int first = lowest_free_fd();
        size_t before = open_fds();
        unsigned failed = 0, passed = 0;
        for (int lim = first; lim < first + 40; lim++) {
                struct warder_error err = WARDER_ERROR_INIT;
                struct mask_list got;
                p = (struct pred){.rules = rules};
                ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &(struct rlimit){lim, old.rlim_max}), 0);
                int rc = collect(&p, 1000, &got, &err);
                ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
                const char *miss = NULL;
                if (rc) {
                        ck_assert_int_eq(rc, WARDER_ELIMIT);
                        ck_assert_ptr_nonnull(strstr(err.message, "out of descriptors"));
                        failed++;
                } else {
                        /* a shortage is no reason to hide more: the whole answer or an error */
                        ck_assert_msg(same(&got, &want, &miss),
                                      "a limit of %d descriptors: '%s' differs", lim, miss);
                        passed++;
                }
                warder__exec_mask_list_free(&got);
                ck_assert_uint_eq(open_fds(), before);
        }
        ck_assert_uint_gt(failed, 0);
        ck_assert_uint_gt(passed, 0);
        warder__exec_mask_list_free(&want);
}
END_TEST

/* Below the root "/" a name has one slash (the walk stops at its second entry). */
static unsigned record_abs(void *ud, const char *literal, const char *real)
{
        (void)real;
        struct pred *p = ud;
        if (p->ncalls < 64)
                snprintf(p->calls[p->ncalls], 512, "%s", literal);
        p->ncalls++;
        return 0;
}

START_TEST(names_below_the_file_system_root_have_one_slash)
{
        struct pred p = {0};
        struct mask_list l = {0};
        ck_assert_int_eq(warder__exec_collect_masks("/", 1, 10000, record_abs, &p, &l, NULL),
                         WARDER_ELIMIT);
        ck_assert_uint_eq(p.ncalls, 2);
        ck_assert_str_eq(p.calls[0], "/");
        ck_assert_int_eq(p.calls[1][0], '/');
        ck_assert_int_ne(p.calls[1][1], '/');
        ck_assert_int_ne(p.calls[1][1], '\0');
        warder__exec_mask_list_free(&l);
}
END_TEST

/* The budget covers the predicate's last answer too, after the last entry was counted. */
START_TEST(the_deadline_counts_the_last_answer)
{
        put("a", "a");
        struct pred p = {.sleep_ms = 40, .sleep_at = "a"};
        struct mask_list l = {0};
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder__exec_collect_masks(root, 1000, 20, predicate, &p, &l, &err),
                         WARDER_ELIMIT);
        ck_assert_ptr_nonnull(strstr(err.message, "budget of 20 ms"));
        warder__exec_mask_list_free(&l);
}
END_TEST

static char moved[1100];

static void root_to_file(const char *abs)
{
        (void)abs;
        ck_assert_int_eq(rename(root, moved), 0);
        int fd = open(root, O_CREAT | O_WRONLY | O_EXCL, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
}

/* The second pass opens the root again: what is there by then must still be a directory. */
START_TEST(a_root_replaced_between_the_passes_fails_closed)
{
        dir("hdir");
        put("hdir/f", "f");
        hardlink("hdir/f", "hdir/f2");
        snprintf(moved, sizeof(moved), "%s.moved", root);
        static const struct rule rules[] = {{"hdir", H}, {NULL, 0}};
        struct pred p = {.rules = rules, .swap_at = "hdir", .swap = root_to_file};
        struct mask_list l;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = collect(&p, 1000, &l, &err);
        warder__exec_mask_list_free(&l);
        ck_assert_int_eq(unlink(root), 0);
        ck_assert_int_eq(rename(moved, root), 0);
        ck_assert(p.swapped);
        ck_assert_int_eq(rc, WARDER_EACCES);
        ck_assert_ptr_nonnull(strstr(err.message, "cannot examine the root"));
}
END_TEST

#ifdef WARDER__FAULT_INJECTION
/* Whether `got` hides a directory that holds `path`. */
static bool hidden_in(const struct mask_list *got, const char *path)
{
        for (size_t j = 0; j < got->count; j++) {
                const struct mask_entry *g = &got->items[j];
                size_t n = strlen(g->path);
                if (g->dir && (g->flags & H) && strncmp(g->path, path, n) == 0 && path[n] == '/')
                        return true;
        }
        return false;
}

/* Whether the directory that `got` hides around `path` was hidden by the rules (listed). */
static bool hidden_listed(const struct mask_list *want, const struct mask_list *got,
                          const char *path)
{
        for (size_t j = 0; j < got->count; j++) {
                const struct mask_entry *g = &got->items[j];
                size_t n = strlen(g->path);
                if (g->dir && (g->flags & H) && strncmp(g->path, path, n) == 0 && path[n] == '/') {
                        for (size_t i = 0; i < want->count; i++)
                                if (strcmp(want->items[i].path, g->path) == 0 &&
                                    (want->items[i].flags & H))
                                        return true;
                }
        }
        return false;
}

/*
 * Whether `got` masks at least what `want` does: each entry of `want` is in `got` with at
 * least its flags, or lies in a directory that `got` hides. What lies outside the root is
 * masked because of the link "out-link" at the root: hiding the link covers it as well.
 */
static bool covers(const struct mask_list *got, const struct mask_list *want, const char **miss)
{
        char via[1024];
        full(via, sizeof(via), root, "out-link");
        for (size_t i = 0; i < want->count; i++) {
                const struct mask_entry *w = &want->items[i];
                bool ok = hidden_in(got, w->path) ||
                          (strncmp(w->path, root, strlen(root)) != 0 && hidden_in(got, via));
                for (size_t j = 0; j < got->count && !ok; j++) {
                        const struct mask_entry *g = &got->items[j];
                        if (strcmp(g->path, w->path) == 0)
                                ok = (g->flags & w->flags) == w->flags || (g->flags & H);
                }
                /* The one thing a hidden directory cannot cover (§6.5): another name, outside
                 * it, of a file inside it that the walk could not list. */
                for (size_t j = 0; j < want->count && !ok; j++)
                        ok = j != i && want->items[j].dev == w->dev &&
                             want->items[j].ino == w->ino && hidden_in(got, want->items[j].path) &&
                             !hidden_listed(want, got, want->items[j].path);
                if (!ok) {
                        *miss = w->path;
                        return false;
                }
        }
        return true;
}

/*
 * Every failure point of the walk (allocation, openat, fstat, fstatat, fdopendir, readdir),
 * once or from there on: the walk fails, or masks at least what the clean walk does, and
 * leaves no descriptor open.
 */
/* Trees with one file of other names each, denied where the walk meets it: by its own name,
 * through a link, inside a hidden directory (each is the first to grow the set of inodes). */
static const struct rule one_linked_rules[][2] = {
    {{"a", H}, {NULL, 0}},
    {{"link", H}, {NULL, 0}},
    {{"hdir", H}, {NULL, 0}},
};

static const struct rule *one_linked_tree(int i)
{
        put("f", "f");
        hardlink("f", "a");
        symlink_to("f", "link");
        dir("hdir");
        hardlink("f", "hdir/f");
        return one_linked_rules[i];
}

START_TEST(every_failure_point_fails_closed)
{
        const struct rule *rules = _i ? one_linked_tree(_i - 1) : busy_tree();
        struct pred p = {.rules = rules};
        struct mask_list want;
        size_t before = open_fds();
        warder__fault_count(WARDER__FAULT_ALL);
        ck_assert_int_eq(collect(&p, 1000, &want, NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        ck_assert_uint_eq(want.count, _i ? 3 : 10);
        ck_assert_uint_gt(points, _i ? 5 : 20);
        for (int sticky = 0; sticky < 2; sticky++) {
                for (unsigned long n = 1; n <= points + 2; n++) {
                        struct mask_list got;
                        struct warder_error err = WARDER_ERROR_INIT;
                        p = (struct pred){.rules = rules};
                        warder__fault_arm(n, sticky, WARDER__FAULT_ALL);
                        int rc = collect(&p, 1000, &got, &err);
                        bool fired = warder__fault_fired();
                        const char *where = fired ? warder__fault_where() : "-";
                        warder__fault_off();
                        const char *miss = NULL;
                        ck_assert_msg(rc != 0 || covers(&got, &want, &miss),
                                      "fault %lu%s at %s: '%s' is not masked", n,
                                      sticky ? " (sticky)" : "", where, miss);
                        ck_assert_msg(rc == 0 || strncmp(err.message, "masking: ", 9) == 0,
                                      "fault %lu%s at %s: a failure that does not say why", n,
                                      sticky ? " (sticky)" : "", where);
                        warder__exec_mask_list_free(&got);
                        ck_assert_msg(open_fds() == before + want.count,
                                      "fault %lu%s at %s: a descriptor is left open", n,
                                      sticky ? " (sticky)" : "", where);
                }
        }
        warder__exec_mask_list_free(&want);
}
END_TEST

static void close_zero(void *ud)
{
        (void)ud;
        close(0);
}

/* Descriptor 0 comes free at each point of the walk in turn: whatever lands there is a
 * descriptor like any other, kept while it is a pin and closed with the list. */
START_TEST(descriptor_zero_at_every_point)
{
        struct pred p = {.rules = busy_tree()};
        struct mask_list want;
        warder__fault_count(WARDER__FAULT_ALL);
        ck_assert_int_eq(collect(&p, 1000, &want, NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        close(0);
        for (unsigned long n = 1; n <= points; n++) {
                int null = open("/dev/null", O_RDONLY); /* on 0, which the last walk freed */
                ck_assert_int_eq(null, 0);
                struct mask_list got;
                p = (struct pred){.rules = busy_tree_rules};
                warder__fault_hook(n, WARDER__FAULT_ALL, close_zero, NULL);
                int rc = collect(&p, 1000, &got, NULL);
                warder__fault_off();
                const char *miss = NULL;
                ck_assert_int_eq(rc, 0);
                ck_assert_msg(same(&got, &want, &miss),
                              "descriptor 0 free at point %lu: '%s' differs", n, miss);
                check_pins(&got);
                warder__exec_mask_list_free(&got);
                ck_assert_msg(fcntl(0, F_GETFD) == -1, "descriptor 0 free at point %lu: left open",
                              n);
        }
        warder__exec_mask_list_free(&want);
}
END_TEST

/*
 * A multi-threaded host may start a command in another thread while the walk runs: at each of
 * its points, every descriptor the walk holds is already close-on-exec.
 */
START_TEST(every_descriptor_closes_on_exec)
{
        struct pred p = {.rules = busy_tree()};
        struct mask_list want;
        warder__fault_count(WARDER__FAULT_ALL);
        ck_assert_int_eq(collect(&p, 1000, &want, NULL), 0);
        unsigned long points = warder__fault_points();
        warder__fault_off();
        struct warder_test_cloexec c = {.checks = 0};
        warder_test_fds_take(&c.before);
        for (unsigned long n = 1; n <= points; n++) {
                struct mask_list got;
                p = (struct pred){.rules = busy_tree_rules};
                struct warder_error err = WARDER_ERROR_INIT;
                warder__fault_hook(n, WARDER__FAULT_ALL, warder_test_no_new_inheritable, &c);
                int rc = collect(&p, 1000, &got, &err);
                ck_assert_msg(rc == 0, "point %lu: %s", n, err.message);
                warder__fault_off();
                warder__exec_mask_list_free(&got);
        }
        ck_assert_uint_eq(c.checks, points);
        /* Control: a descriptor opened without O_CLOEXEC is seen. */
        int fd = open("/dev/null", O_RDONLY);
        ck_assert_int_ge(fd, 3);
        ck_assert_int_eq(warder_test_fds_new_inheritable(&c.before), fd);
        close(fd);
        warder__exec_mask_list_free(&want);
}
END_TEST
#endif

int main(void)
{
        Suite *s = suite_create("mask");
        TCase *tc = tcase_create("walk");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, records_what_the_predicate_masks);
        tcase_add_test(tc, a_hidden_root_is_one_entry);
        tcase_add_test(tc, other_names_of_denied_files_are_masked);
        tcase_add_test(tc, flags_of_one_inode_add_up);
        tcase_add_test(tc, a_link_masks_the_file_it_leads_to);
        tcase_add_test(tc, the_entry_budget_is_exact);
        tcase_add_test(tc, the_time_budget_fails_closed);
        tcase_add_test(tc, the_nesting_limit_is_exact);
        tcase_add_test(tc, control_the_victim_unchanged_is_masked_alone);
        tcase_add_test(tc, a_denied_file_swapped_for_a_link_fails);
        tcase_add_test(tc, a_denied_directory_swapped_for_a_link_fails);
        tcase_add_test(tc, a_denied_file_swapped_for_a_directory_fails);
        tcase_add_test(tc, a_denied_directory_swapped_for_a_file_fails);
        tcase_add_test(tc, a_directory_swapped_for_a_link_hides_its_directory);
        tcase_add_test(tc, a_directory_swapped_for_a_file_hides_its_directory);
        tcase_add_test(tc, a_swap_inside_a_read_only_directory_hides_it);
        tcase_add_test(tc, a_vanished_name_is_skipped);
        tcase_add_loop_test(tc, a_link_target_changed_before_its_pin, 0, 3);
        tcase_add_test(tc, a_directory_swapped_for_a_fifo_does_not_block);
        tcase_add_test(tc, a_link_to_a_fifo_does_not_block);
        tcase_add_test(tc, a_missing_root_has_nothing_to_mask);
        tcase_add_test(tc, a_root_that_cannot_be_examined_fails_closed);
        tcase_add_loop_test(tc, a_directory_that_cannot_be_listed_is_hidden_whole, 0, 3);
        tcase_add_loop_test(tc, a_pin_on_descriptor_zero_is_kept, 0, 3);
        tcase_add_loop_test(tc, running_out_of_descriptors_fails_closed, 0, 4);
        tcase_add_test(tc, names_below_the_file_system_root_have_one_slash);
        tcase_add_test(tc, the_deadline_counts_the_last_answer);
        tcase_add_test(tc, a_root_replaced_between_the_passes_fails_closed);
#ifdef WARDER__FAULT_INJECTION
        tcase_add_loop_test(tc, every_failure_point_fails_closed, 0, 4);
        tcase_add_test(tc, descriptor_zero_at_every_point);
        tcase_add_test(tc, every_descriptor_closes_on_exec);
#endif
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
