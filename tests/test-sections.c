/* SPDX-License-Identifier: MIT */
/*
 * Every section reference (the section sign followed by a number, written SEC "3.2" below) in
 * the tree names exactly one section of docs/semantics.md: the sources, headers, docs, tests
 * and fuzz harnesses, the output of `warder --help` and of every `warder COMMAND --help`, and
 * the generated man page. A section is defined by a Markdown heading (a line starting with
 * '#') or a list item starting with "- " SEC, whose first section number is the one it
 * defines. A reference fails when no section has its number (dangling), when two do
 * (ambiguous), when it has no number at all, or when it follows the name of another document
 * (a Markdown page other than semantics.md, a manual page such as landlock(7), an RFC), which
 * would be checked against the wrong page.
 *
 * The fuzz corpora are inputs, not text, and are not read. The section sign is spelled with
 * escapes in this file so that its own examples are not references.
 */
#include <ctype.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-run.h"
#include "support.h"

#define SEC "\xc2\xa7"

/* ---- the sections of a contract ---------------------------------------------------------- */

struct section {
        char num[32];
        unsigned defined; /* how many headings or items define it */
        unsigned cited;   /* how many references name it */
};

struct contract {
        struct section *v;
        size_t n, cap;
};

/* Length of the section number at s (digits, then ".digits" groups), or 0. */
static size_t number_len(const char *s, const char *end)
{
        size_t i = 0;
        if (s >= end || !isdigit((unsigned char)s[0]))
                return 0;
        while (s + i < end && isdigit((unsigned char)s[i]))
                i++;
        while (s + i + 1 < end && s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
                i++;
                while (s + i < end && isdigit((unsigned char)s[i]))
                        i++;
        }
        return i;
}

static struct section *section_find(struct contract *c, const char *num, size_t len)
{
        for (size_t i = 0; i < c->n; i++)
                if (strlen(c->v[i].num) == len && memcmp(c->v[i].num, num, len) == 0)
                        return &c->v[i];
        return NULL;
}

static void section_define(struct contract *c, const char *num, size_t len)
{
        ck_assert_uint_lt(len, sizeof(c->v[0].num));
        struct section *s = section_find(c, num, len);
        if (!s) {
                if (c->n == c->cap) {
                        c->cap = c->cap ? 2 * c->cap : 64;
                        c->v = realloc(c->v, c->cap * sizeof(*c->v));
                        ck_assert_ptr_nonnull(c->v);
                }
                s = &c->v[c->n++];
                memset(s, 0, sizeof(*s));
                memcpy(s->num, num, len);
        }
        s->defined++;
}

/* Reads the definitions of a contract written in Markdown. */
static void contract_parse(struct contract *c, const char *text)
{
        memset(c, 0, sizeof(*c));
        for (const char *line = text; line && *line;) {
                const char *eol = strchr(line, '\n');
                const char *end = eol ? eol : line + strlen(line);
                const char *p = line;
                while (p < end && *p == ' ')
                        p++;
                bool heading = line[0] == '#';
                bool item = end - p > 2 + 2 && memcmp(p, "- " SEC, 4) == 0;
                if (heading || item) {
                        const char *sec = memmem(line, (size_t)(end - line), SEC, 2);
                        size_t n = sec ? number_len(sec + 2, end) : 0;
                        if (n)
                                section_define(c, sec + 2, n);
                }
                line = eol ? eol + 1 : NULL;
        }
}

static void contract_free(struct contract *c)
{
        free(c->v);
        memset(c, 0, sizeof(*c));
}

/* ---- references -------------------------------------------------------------------------- */

struct report {
        size_t refs;     /* references read */
        size_t problems; /* references that do not resolve to one section */
        char *log;       /* the first problems, one per line */
        size_t log_len;
};

static void problem(struct report *r, const char *where, size_t line, const char *what,
                    const char *num, size_t len)
{
        r->problems++;
        if (r->problems > 40)
                return;
        char *msg = NULL;
        int n = asprintf(&msg, "%s:%zu: " SEC "%.*s %s\n", where, line, (int)len, num, what);
        ck_assert_int_ge(n, 0);
        r->log = realloc(r->log, r->log_len + (size_t)n + 1);
        ck_assert_ptr_nonnull(r->log);
        memcpy(r->log + r->log_len, msg, (size_t)n + 1);
        r->log_len += (size_t)n;
        free(msg);
}

/* Whether the text right before a reference names another document than the contract. */
static bool after_other_document(const char *start, const char *sec)
{
        const char *p = sec;
        while (p > start && p[-1] == ' ')
                p--;
        const char *tok_end = p;
        while (p > start && (isalnum((unsigned char)p[-1]) || strchr("_./()-", p[-1])))
                p--;
        while (p < tok_end && !isalnum((unsigned char)*p))
                p++; /* "(semantics.md" is semantics.md */
        size_t n = (size_t)(tok_end - p);
        if (n == 0)
                return false;
        if (n > 3 && memcmp(tok_end - 3, ".md", 3) == 0) {
                const char *base = memrchr(p, '/', n);
                base = base ? base + 1 : p;
                return (size_t)(tok_end - base) != 12 || memcmp(base, "semantics.md", 12) != 0;
        }
        if (n >= 3 && tok_end[-1] == ')' && isdigit((unsigned char)tok_end[-2]) &&
            tok_end[-3] == '(')
                return true; /* a manual page: landlock(7) */
        bool digits = true;
        for (const char *q = p; q < tok_end; q++)
                digits = digits && isdigit((unsigned char)*q);
        return digits && p - start >= 4 && memcmp(p - 4, "RFC ", 4) == 0;
}

/* Checks every reference in `text` (len bytes) against the contract. */
static void scan(struct contract *c, const char *where, const char *text, size_t len,
                 struct report *r)
{
        const char *end = text + len, *line_start = text;
        size_t line = 1;
        for (const char *p = text; p < end;) {
                const char *sec = memmem(p, (size_t)(end - p), SEC, 2);
                if (!sec)
                        break;
                for (const char *q = p; q < sec; q++)
                        if (*q == '\n') {
                                line++;
                                line_start = q + 1;
                        }
                const char *num = sec + 2;
                size_t n = number_len(num, end);
                r->refs++;
                if (!n) {
                        problem(r, where, line, "has no section number", "", 0);
                } else if (after_other_document(line_start, sec)) {
                        problem(r, where, line,
                                "follows the name of another document: ambiguous (cite that "
                                "document in words)",
                                num, n);
                } else {
                        struct section *s = section_find(c, num, n);
                        if (!s)
                                problem(r, where, line, "is not a section of docs/semantics.md",
                                        num, n);
                        else if (s->defined > 1)
                                problem(r, where, line,
                                        "is defined more than once in docs/semantics.md: ambiguous",
                                        num, n);
                        else
                                s->cited++;
                }
                p = num + n;
        }
}

static void report_free(struct report *r)
{
        free(r->log);
        memset(r, 0, sizeof(*r));
}

/* ---- reading the tree -------------------------------------------------------------------- */

static const char *root;
static struct contract *walk_contract;
static struct report *walk_report;
static size_t walk_files;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st;
        (void)ftw;
        size_t plen = strlen(path);
        if (type == FTW_D && plen >= 12 && strcmp(path + plen - 12, "/fuzz/corpus") == 0)
                return FTW_SKIP_SUBTREE; /* fuzz inputs, not text */
        if (type != FTW_F)
                return FTW_CONTINUE;
        size_t len;
        char *text = warder_test_slurp(path, &len);
        ck_assert_msg(text != NULL, "cannot read %s", path);
        if (!memchr(text, '\0', len < 8192 ? len : 8192)) { /* text files only */
                scan(walk_contract, path + strlen(root) + 1, text, len, walk_report);
                walk_files++;
        }
        free(text);
        return FTW_CONTINUE;
}

static void load_contract(struct contract *c)
{
        root = getenv("WARDER_SOURCE_ROOT");
        ck_assert_msg(root != NULL, "WARDER_SOURCE_ROOT is not set");
        char path[4096];
        snprintf(path, sizeof(path), "%s/docs/semantics.md", root);
        size_t len;
        char *text = warder_test_slurp(path, &len);
        ck_assert_msg(text != NULL, "%s is missing", path);
        contract_parse(c, text);
        free(text);
}

/* ---- the checks -------------------------------------------------------------------------- */

/* The checker itself can fail: each kind of bad reference is reported, good ones are not. */
START_TEST(checker_finds_bad_references)
{
        struct contract c;
        contract_parse(&c, "# Title\n## " SEC "1 Model\n### " SEC "1.1 Actions\n"
                           "- " SEC "1.2 an item\n  - " SEC "1.2.1 a nested item\n"
                           "#### " SEC "1.3 one\n#### " SEC "1.3 twice\n"
                           "Text that cites " SEC "9 defines nothing.\n");
        ck_assert_uint_eq(c.n, 5);
        struct report r = {0};
        const char *good = "see " SEC "1, " SEC "1.1, " SEC "1.2. and " SEC "1.1–" SEC
                           "1.2.1 (semantics.md " SEC "1.1, docs/semantics.md " SEC "1)\n";
        scan(&c, "good", good, strlen(good), &r);
        ck_assert_msg(r.problems == 0, "%s", r.log);
        ck_assert_uint_eq(r.refs, 7);
        ck_assert_uint_eq(section_find(&c, "1.1", 3)->cited, 3);

        static const char *const bad[] = {
            "line one\ncites " SEC "9.99 which is nowhere\n", /* dangling */
            "cites " SEC "9, which is only mentioned in a paragraph\n",
            "cites " SEC "1.3, which has two headings\n", /* ambiguous */
            "a bare " SEC " with no number\n",
            "docs/rules.md " SEC "1 is another page\n",
            "landlock(7) " SEC "1 is a manual page\n",
            "RFC 8259 " SEC "1 is an RFC\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                report_free(&r);
                scan(&c, "bad", bad[i], strlen(bad[i]), &r);
                ck_assert_msg(r.problems == 1, "not flagged: %s", bad[i]);
        }
        ck_assert_ptr_nonnull(strstr(r.log, "bad:1: " SEC "1 follows the name of another"));
        report_free(&r);
        scan(&c, "f.c", bad[0], strlen(bad[0]), &r);
        ck_assert_str_eq(r.log, "f.c:2: " SEC "9.99 is not a section of docs/semantics.md\n");
        report_free(&r);
        contract_free(&c);
}
END_TEST

/* docs/semantics.md defines each section once and has the chapters the code cites. */
START_TEST(contract_is_well_formed)
{
        struct contract c;
        load_contract(&c);
        static const char *const chapters[] = {"1", "2", "3", "4", "5", "6"};
        for (size_t i = 0; i < sizeof(chapters) / sizeof(chapters[0]); i++)
                ck_assert_msg(section_find(&c, chapters[i], strlen(chapters[i])),
                              "chapter %s is missing", chapters[i]);
        for (size_t i = 0; i < c.n; i++)
                ck_assert_msg(c.v[i].defined == 1, SEC "%s is defined %u times", c.v[i].num,
                              c.v[i].defined);
        ck_assert_uint_ge(c.n, 55);
        contract_free(&c);
}
END_TEST

START_TEST(tree_references_resolve)
{
        struct contract c;
        load_contract(&c);
        struct report r = {0};
        walk_contract = &c;
        walk_report = &r;
        walk_files = 0;
        static const char *const dirs[] = {"src", "include", "docs", "tests", "fuzz"};
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
                ck_assert_msg(nftw(path, visit, 16, FTW_PHYS | FTW_ACTIONRETVAL) == 0,
                              "cannot walk %s", path);
        }
        ck_assert_msg(r.problems == 0, "%zu section references do not resolve:\n%s", r.problems,
                      r.log);
        /* The walk really read the tree (a broken walk would pass vacuously). */
        ck_assert_uint_ge(walk_files, 100);
        ck_assert_uint_ge(r.refs, 400);
        size_t distinct = 0;
        for (size_t i = 0; i < c.n; i++)
                distinct += c.v[i].cited > 0;
        ck_assert_uint_ge(distinct, 50);
        report_free(&r);
        contract_free(&c);
}
END_TEST

/* `warder --help` lists the commands; each command's help and the top one are checked. */
START_TEST(help_references_resolve)
{
        struct contract c;
        load_contract(&c);
        struct report r = {0};
        struct cli_result top = cli_run("--help");
        ck_assert_int_eq(top.status, 0);
        scan(&c, "warder --help", top.out, top.out_len, &r);
        const char *list = strstr(top.out, "Commands:\n");
        ck_assert_ptr_nonnull(list);
        size_t commands = 0;
        for (const char *line = strchr(list, '\n') + 1; line[0] == ' ';) {
                char name[64];
                ck_assert_int_eq(sscanf(line, " %63s", name), 1);
                struct cli_result h = cli_run(name, "--help");
                ck_assert_msg(h.status == 0, "%s --help exited %d", name, h.status);
                char where[96];
                snprintf(where, sizeof(where), "warder %s --help", name);
                scan(&c, where, h.out, h.out_len, &r);
                cli_result_free(&h);
                commands++;
                line = strchr(line, '\n') + 1;
        }
        cli_result_free(&top);
        ck_assert_msg(r.problems == 0, "%s", r.log);
        ck_assert_uint_ge(commands, 13);
        ck_assert_uint_ge(r.refs, 5);
        report_free(&r);
        contract_free(&c);
}
END_TEST

START_TEST(man_page_references_resolve)
{
        struct contract c;
        load_contract(&c);
        const char *man = getenv("WARDER_MAN");
        ck_assert_msg(man != NULL, "WARDER_MAN is not set");
        size_t len;
        char *text = warder_test_slurp(man, &len);
        ck_assert_msg(text != NULL, "%s is missing", man);
        struct report r = {0};
        scan(&c, "warder.1", text, len, &r);
        ck_assert_msg(r.problems == 0, "%s", r.log);
        ck_assert_uint_ge(r.refs, 10);
        /* the page names the contract, so a reader of the manual can find it */
        ck_assert_ptr_nonnull(strstr(text, "semantics.md"));
        free(text);
        report_free(&r);
        contract_free(&c);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("sections");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, checker_finds_bad_references);
        tcase_add_test(tc, contract_is_well_formed);
        tcase_add_test(tc, tree_references_resolve);
        tcase_add_test(tc, help_references_resolve);
        tcase_add_test(tc, man_page_references_resolve);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
