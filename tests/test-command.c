/* SPDX-License-Identifier: MIT */
/* Command inspection: the shell word splitter and the execute decisions (semantics §5). */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command/expand.h"
#include "command/shell.h"
#include "ruleset/ruleset-internal.h"
#include "shell-diff.h"
#include "support.h"
#include "util.h"
#include "warder/backend.h"
#include "warder/local.h"
#include "warder/ruleset.h"

/* ---- the splitter ------------------------------------------------------------------------- */

/* Renders a parse: segments joined by " ; ", words by "|", then redirections; a trailing
 * "!U" / "!L" / "!H" for the status flags. */
static char *render(const char *cmd, const struct warder__sh_limits *lim)
{
        struct warder__sh_parse p;
        ck_assert_int_eq(warder__sh_parse(&p, cmd, strlen(cmd), lim), 0);
        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "");
        for (size_t s = 0; s < p.nsegments; s++) {
                const struct warder__sh_segment *seg = &p.segments[s];
                if (s)
                        warder__buf_puts(&b, " ; ");
                for (uint32_t k = 0; k < seg->nwords; k++) {
                        if (k)
                                warder__buf_putc(&b, '|');
                        const struct warder__sh_word *w = &p.words[seg->first_word + k];
                        warder__buf_append(&b, w->text, w->len);
                }
                for (uint32_t r = 0; r < seg->nredirs; r++) {
                        const struct warder__sh_redir *rd = &p.redirs[seg->first_redir + r];
                        static const char *const sym[] = {"<", ">", "<>", ">&", "<<", "<<<"};
                        warder__buf_putc(&b, ' ');
                        if (rd->fd >= 0)
                                warder__buf_printf(&b, "%d", rd->fd);
                        warder__buf_puts(&b, sym[rd->kind]);
                        const struct warder__sh_word *w = &p.words[rd->word];
                        warder__buf_append(&b, w->text, w->len);
                }
        }
        if (p.status & WARDER__SH_UNPARSEABLE)
                warder__buf_puts(&b, " !U");
        if (p.status & WARDER__SH_LIMIT)
                warder__buf_puts(&b, " !L");
        if (p.status & WARDER__SH_HEREDOC)
                warder__buf_puts(&b, " !H");
        warder__sh_parse_free(&p);
        return warder__buf_steal(&b);
}

static const struct {
        const char *cmd, *want;
} split_table[] = {
    /* §5.2 separators */
    {"cat .env", "cat|.env"},
    {"cat<.env", "cat <.env"},
    {"cd sub && cat .env", "cd|sub ; cat|.env"},
    {"a && b || c ; d & e |& f | g\nh", "a ; b ; c ; d ; e ; f ; g ; h"},
    {"echo x | tee .env", "echo|x ; tee|.env"},
    {"{ cat .env; }", "cat|.env"},
    {"(cat .env)", "cat|.env"},
    {"( (a) ; b )", "a ; b"},
    {"echo $(cat .env)", "cat|.env ; echo|$(cat .env)"},
    {"echo `cat .env`", "cat|.env ; echo|`cat .env`"},
    {"echo \"$(cat .env)\"", "cat|.env ; echo|$(cat .env)"},
    {"echo `echo \\`cat .env\\``", "cat|.env ; echo|`cat .env` ; echo|`echo \\`cat .env\\``"},
    {"echo $(echo $(cat .env))", "cat|.env ; echo|$(cat .env) ; echo|$(echo $(cat .env))"},
    {"cat <(cat .env)", "cat|.env ; cat|<(cat .env)"},
    {"diff <(a) >(b)", "a ; b ; diff|<(a)|>(b)"},
    {"f() { cat .env; }", "f ; cat|.env"},
    /* §5.1 quote removal */
    {"'mkfs.ext4' /dev/sda1", "mkfs.ext4|/dev/sda1"},
    {"mk\"\"fs.ext4", "mkfs.ext4"},
    {"m\\kfs", "mkfs"},
    {"echo 'a b'  \"c  d\"", "echo|a b|c  d"},
    {"echo \"a\\\"b\\$c\\x\"", "echo|a\"b$c\\x"},
    {"echo $'\\x41\\n\\'\\101\\u00e9'", "echo|A\n'A\xc3\xa9"},
    {"echo $'a\\0b'", "echo|a"},
    {"ca\\\nt .env", "cat|.env"},
    {"echo a#b # cat .env", "echo|a#b"},
    {"echo x # c\ncat .env", "echo|x ; cat|.env"},
    /* redirections: not separators, glued or not */
    {"a 2>&1 | b", "a 2>&1 ; b"},
    {"a >&2 <&0 >&-", "a >&2 >&0 >&-"}, /* DUP renders as >& */
    {"echo x >| f &> g &>> h >> i > j", "echo|x >f >g >h >i >j"},
    {"a <> f 3< g", "a <>f 3<g"},
    {"cat<<<$HOME", "cat <<<$HOME"},
    {"a >&file", "a >file"},
    {"x=1 y=\"2 3\" cmd", "x=1|y=2 3|cmd"},
    {"> /etc/hosts", " >/etc/hosts"},
    {"echo 2 > x", "echo|2 >x"},
    {"file2>out", "file2 >out"},
    /* control structures */
    {"if true; then cat .env; else ls; fi", "true ; cat|.env ; ls"},
    {"while read l; do cat \"$l\"; done < list", "read|l ; cat|$l ;  <list"},
    {"case $x in a) cat .env;; (b|c) ls ;; esac; pwd", "cat|.env ; ls ; pwd"},
    {"case $(cat .env) in *) ;; esac", "cat|.env"},
    {"! cat .env", "cat|.env"},
    {"echo $((1+2)) $(( (1) ))", "echo|$((1+2))|$(( (1) ))"},
    {"echo $((cat .env) )", "cat|.env ; echo|$((cat .env) )"},
    {"echo ${x:-$(cat .env)}", "cat|.env ; echo|${x:-$(cat .env)}"},
    /* here-documents */
    {"cat <<EOF\nhello\nEOF\ncat .env", "cat <<EOF ; cat|.env"},
    {"cat <<-'E'\n\t$(x)\n\tE\necho", "cat <<E ; echo"},
    {"cat <<EOF\n$(cat .env)\nEOF", "cat <<EOF !H"},
    /* §5.7: what cannot be parsed keeps what came before */
    {"cat .env; echo \"oops", "cat|.env ; echo !U"},
    {"echo 'oops", "echo !U"},
    {"echo $(cat .env", "cat|.env ; echo !U"},
    {"echo `cat .env", "echo !U"},
    {"cat .env )", "cat|.env !U"},
    {"{ cat .env", "cat|.env !U"},
    {"cat >", "cat !U"},
    {"echo ${x", "echo !U"},
    /* §5.5.1: inside "${name<op>word}" with op - = + ? (colon or not) the word is read with
     * double-quote rules, so a `'` there is an ordinary character and a `$( … )` between two of
     * them runs (dash and bash agree). Outside double quotes, and for the pattern operators
     * (# ## % %%), the quotes are quotes and nothing runs. */
    {"echo \"${x:-'$(cat .env)'}\"", "cat|.env ; echo|${x:-'$(cat .env)'}"},
    {"echo \"${x-'$(cat .env)'}\"", "cat|.env ; echo|${x-'$(cat .env)'}"},
    {"echo \"${x:='$(cat .env)'}\"", "cat|.env ; echo|${x:='$(cat .env)'}"},
    {"echo \"${x='$(cat .env)'}\"", "cat|.env ; echo|${x='$(cat .env)'}"},
    {"echo \"${x:+'$(cat .env)'}\"", "cat|.env ; echo|${x:+'$(cat .env)'}"},
    {"echo \"${x+'$(cat .env)'}\"", "cat|.env ; echo|${x+'$(cat .env)'}"},
    /* after `?` bash reads the pair as quotes: the two shells differ (§5.7), and the
     * substitution dash runs is a segment all the same */
    {"echo \"${x:?'$(cat .env)'}\"", "cat|.env ; echo|${x:?'$(cat .env)'} !U"},
    {"echo \"${x?'$(cat .env)'}\"", "cat|.env ; echo|${x?'$(cat .env)'} !U"},
    {"echo \"${x:-'`cat .env`'}\"", "cat|.env ; echo|${x:-'`cat .env`'}"},
    {"echo \"a${x:-b'$(cat .env)'c}d\"", "cat|.env ; echo|a${x:-b'$(cat .env)'c}d"},
    {"echo \"${x:-${y:-'$(cat .env)'}}\"", "cat|.env ; echo|${x:-${y:-'$(cat .env)'}}"},
    /* a quote pair spanning words: both shells run the substitution between them */
    {"echo \"${x:-'\" $(cat .env) \"'}\"", "cat|.env ; echo|${x:-'\" $(cat .env) \"'}"},
    /* a `}` between the quotes ends the expansion for dash but not for bash: the two shells
     * read the rest differently, so the line cannot be decided (§5.7) */
    {"echo \"${x:-'}'}\"", "echo|${x:-'}'} !U"},
    /* real quotes: nothing runs */
    {"echo ${x:-'$(cat .env)'}", "echo|${x:-'$(cat .env)'}"},
    /* bash runs a process substitution in the word */
    {"echo ${x+<(cat .env)}", "cat|.env ; echo|${x+<(cat .env)}"},
    {"echo \"${x%%<(cat .env)}\"", "cat|.env ; echo|${x%%<(cat .env)}"},
    /* … which dash reads as text: both readings count */
    {"echo \"${v-<(cat <<'EOF'\nx $(cat .env)\nEOF\n)}\"",
     "cat <<EOF ; cat|.env ; echo|${v-<(cat <<'EOF'\nx $(cat .env)\nEOF\n)}"},
    /* $(( … )) is matched the way bash matches it, quotes skipped; inside, a `'` is an
     * ordinary character and the substitution runs */
    {"echo $(( t9 '$(cat .env)' ))", "cat|.env ; echo|$(( t9 '$(cat .env)' ))"},
    {"echo \"${x#'$(cat .env)'}\"", "echo|${x#'$(cat .env)'}"},
    {"echo \"${x%%'$(cat .env)'}\"", "echo|${x%%'$(cat .env)'}"},
    {"echo \"${x:-\\$(cat .env)}\"", "echo|${x:-\\$(cat .env)}"},
};

START_TEST(test_split_table)
{
        for (size_t i = 0; i < sizeof(split_table) / sizeof(split_table[0]); i++) {
                char *got = render(split_table[i].cmd, NULL);
                ck_assert_msg(strcmp(got, split_table[i].want) == 0,
                              "split %s\n  got  [%s]\n  want [%s]", split_table[i].cmd, got,
                              split_table[i].want);
                free(got);
        }
}
END_TEST

static uint32_t flags_of(const char *cmd, size_t word)
{
        struct warder__sh_parse p;
        ck_assert_int_eq(warder__sh_parse(&p, cmd, strlen(cmd), NULL), 0);
        ck_assert_uint_ge(p.nsegments, 1);
        const struct warder__sh_segment *seg = &p.segments[p.nsegments - 1];
        ck_assert_uint_gt(seg->nwords, word);
        uint32_t f = p.words[seg->first_word + word].flags;
        warder__sh_parse_free(&p);
        return f;
}

START_TEST(test_split_word_flags)
{
        /* §5.5: what each word holds */
        ck_assert_uint_eq(flags_of("cat src/main.c", 1), 0);
        ck_assert_uint_eq(flags_of("cat \"$HOME/x\"", 1), WARDER__SH_W_QUOTED | WARDER__SH_W_VAR);
        ck_assert_uint_eq(flags_of("cat ${HOME}/x", 1), WARDER__SH_W_VAR);
        ck_assert_uint_eq(flags_of("cat ~/x", 1), WARDER__SH_W_TILDE);
        ck_assert_uint_eq(flags_of("cat ~root/x", 1), WARDER__SH_W_TILDE);
        ck_assert_uint_eq(flags_of("cat '~'/x", 1), WARDER__SH_W_QUOTED);
        ck_assert_uint_eq(flags_of("cat a~/x", 1), 0);
        ck_assert_uint_eq(flags_of("A=~/x cmd", 0), WARDER__SH_W_TILDE);
        ck_assert_uint_eq(flags_of("cat .e*", 1), WARDER__SH_W_GLOB);
        ck_assert_uint_eq(flags_of("cat '.e*'", 1), WARDER__SH_W_QUOTED);
        ck_assert_uint_eq(flags_of("cat .e\\*", 1), WARDER__SH_W_QUOTED);
        ck_assert_uint_eq(flags_of("cat [ab]", 1), WARDER__SH_W_GLOB);
        ck_assert_uint_eq(flags_of("cat .{env,x}", 1), WARDER__SH_W_BRACE);
        ck_assert_uint_eq(flags_of("cat x{1..3}", 1), WARDER__SH_W_BRACE);
        ck_assert_uint_eq(flags_of("find -exec cat {} +", 3), 0);
        ck_assert_uint_eq(flags_of("cat '{a,b}'", 1), WARDER__SH_W_QUOTED);
        ck_assert_uint_eq(flags_of("cat $(x)", 1), WARDER__SH_W_SUBST);
        ck_assert_uint_eq(flags_of("cat `x`", 1), WARDER__SH_W_SUBST);
        ck_assert_uint_eq(flags_of("cat $?", 1), WARDER__SH_W_SPECIAL);
        ck_assert_uint_eq(flags_of("cat ${#x}", 1), WARDER__SH_W_SPECIAL);
        ck_assert_uint_eq(flags_of("cat <(x)", 1), WARDER__SH_W_SUBST | WARDER__SH_W_PROCSUBST);
}
END_TEST

START_TEST(test_split_pieces)
{
        /* "$HOME"/.ssh: a quoted VAR piece naming HOME, then an unquoted literal */
        const char *cmd = "cat \"$HOME\"/.ssh";
        struct warder__sh_parse p;
        ck_assert_int_eq(warder__sh_parse(&p, cmd, strlen(cmd), NULL), 0);
        const struct warder__sh_word *w = &p.words[1];
        ck_assert_str_eq(w->text, "$HOME/.ssh");
        ck_assert_uint_eq(w->npieces, 2);
        const struct warder__sh_piece *v = &p.pieces[w->first_piece];
        ck_assert_int_eq(v->kind, WARDER__SH_VAR);
        ck_assert(v->quoted);
        ck_assert_int_eq(strncmp(w->text + v->name_off, "HOME", v->name_len), 0);
        ck_assert_uint_eq(v->name_len, 4);
        ck_assert_int_eq(p.pieces[w->first_piece + 1].kind, WARDER__SH_LIT);
        ck_assert(!p.pieces[w->first_piece + 1].quoted);
        warder__sh_parse_free(&p);
}
END_TEST

START_TEST(test_split_scopes_and_ops)
{
        const char *cmd = "cd a && (cd b; x) || y | z &";
        struct warder__sh_parse p;
        ck_assert_int_eq(warder__sh_parse(&p, cmd, strlen(cmd), NULL), 0);
        ck_assert_uint_eq(p.nsegments, 5);
        ck_assert_uint_eq(p.segments[0].scope, 0);
        ck_assert_int_eq(p.segments[0].op_after, WARDER__SH_OP_AND);
        ck_assert_uint_ne(p.segments[1].scope, 0); /* subshell */
        ck_assert_uint_eq(p.segments[1].scope, p.segments[2].scope);
        ck_assert_uint_eq(p.scope_parent[p.segments[1].scope], 0);
        ck_assert_int_eq(p.segments[3].op_before, WARDER__SH_OP_OR);
        ck_assert_int_eq(p.segments[3].op_after, WARDER__SH_OP_PIPE);
        ck_assert_int_eq(p.segments[4].op_after, WARDER__SH_OP_BG);
        warder__sh_parse_free(&p);
}
END_TEST

START_TEST(test_split_limits)
{
        /* §5.7: every limit is reported, and what came before it is kept */
        struct warder__sh_limits lim = WARDER__SH_LIMITS_DEFAULT;
        lim.max_len = 12;
        char *got = render("cat .env; echo 1234567890", &lim);
        ck_assert_str_eq(got, "cat|.env ; ec !L");
        free(got);

        lim = (struct warder__sh_limits)WARDER__SH_LIMITS_DEFAULT;
        lim.max_segments = 2;
        got = render("cat .env; a; b; c", &lim);
        ck_assert_str_eq(got, "cat|.env ; a !L");
        free(got);

        lim = (struct warder__sh_limits)WARDER__SH_LIMITS_DEFAULT;
        lim.max_words = 3;
        got = render("cat .env a b c d", &lim);
        ck_assert_str_eq(got, "cat|.env|a !L");
        free(got);

        struct warder__buf b = WARDER__BUF_INIT;
        warder__buf_puts(&b, "cat .env; ");
        for (int i = 0; i < 100; i++)
                warder__buf_puts(&b, "$(");
        got = render(b.data, NULL);
        ck_assert_str_eq(got, "cat|.env !L");
        free(got);
        warder__buf_free(&b);
}
END_TEST

/* ---- decisions ---------------------------------------------------------------------------- */

static const char rules_yaml[] = "warder: 1\n"
                                 "default: allow\n"
                                 "read:\n"
                                 "  default: allow\n"
                                 "  rules:\n"
                                 "    - deny: '**/.env'\n"
                                 "    - deny: '**/.ssh/**'\n"
                                 "    - deny: '/etc/**'\n"
                                 "write:\n"
                                 "  default: allow\n"
                                 "  rules:\n"
                                 "    - deny: '**/.env'\n"
                                 "    - deny: '**/.ssh/**'\n"
                                 "    - deny: '/etc/**'\n"
                                 "execute:\n"
                                 "  default: allow\n";

static warder_ruleset *load(const char *yaml)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/ws";
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_load_string(&rs, yaml, strlen(yaml), "test", &o, &err);
        if (rc == WARDER_ENOTSUP) {
                warder_error_clear(&err);
                return NULL;
        }
        ck_assert_msg(rc == 0, "load: %s", err.message);
        warder_error_clear(&err);
        return rs;
}

static warder_ruleset *load_preset(const char *name)
{
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = "/ws";
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        int rc = warder_ruleset_load_preset(&rs, name, &o, NULL);
        if (rc == WARDER_ENOTSUP)
                return NULL;
        ck_assert_int_eq(rc, 0);
        return rs;
}

#define NEED(rs)                                                                                   \
        do {                                                                                       \
                if (!(rs))                                                                         \
                        return; /* rulesets are not built yet: nothing to decide against */        \
        } while (0)

/* A fake file system for the context: a link, and a listing for globs. */
static const char *const fake_files[] = {"/ws/.env",      "/ws/src/main.c",  "/ws/sub/.env",
                                         "/ws/README.md", "/ws/link-to-env", NULL};

static int fake_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        const char *r = strcmp(literal, "/ws/link-to-env") == 0 ? "/ws/.env" : literal;
        *out = strdup(r);
        return *out ? 0 : WARDER_ENOMEM;
}

static int fake_glob(void *ud, const char *pattern, char ***out, size_t *count)
{
        (void)ud;
        char **v = calloc(8, sizeof(*v));
        size_t n = 0;
        for (size_t i = 0; fake_files[i]; i++)
                if (fnmatch(pattern, fake_files[i], FNM_PATHNAME | FNM_PERIOD) == 0)
                        v[n++] = strdup(fake_files[i]);
        *out = v;
        *count = n;
        return 0;
}

static const char *const fake_env[] = {"HOME=/home/u", "SRC=src", "N=5", NULL};

static enum warder_action decide(const warder_ruleset *rs, const char *cmd, bool with_glob,
                                 struct warder_decision *keep)
{
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.env = fake_env;
        ctx.realpath = fake_realpath;
        if (with_glob)
                ctx.glob = fake_glob;
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_check_command(&d, rs, cmd, strlen(cmd), &ctx, &err);
        ck_assert_msg(rc == 0, "%s: %s", cmd, err.message);
        ck_assert_int_eq(d.op, WARDER_OP_EXECUTE);
        enum warder_action a = d.action;
        if (keep)
                *keep = d;
        else
                warder_decision_clear(&d);
        return a;
}

/* Decides `cmd` under `rs` with `ctx` (NULL: no context) and expects `want`, the note in the
 * message when it differs. */
static void expect_action(const warder_ruleset *rs, const char *cmd,
                          const struct warder_command_context *ctx, enum warder_action want)
{
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_check_command(&d, rs, cmd, strlen(cmd), ctx, &err) == 0,
                      "%s: %s", cmd, err.message);
        ck_assert_msg(d.action == want, "%s: %s, want %s (%s)", cmd, warder_action_name(d.action),
                      warder_action_name(want), d.note ? d.note : "");
        warder_decision_clear(&d);
}

/* A command and the answer it must get. */
struct cmd_row {
        const char *cmd;
        enum warder_action want;
};

/* expect_action() for each of `n` rows. */
static void expect_rows(const warder_ruleset *rs, const struct warder_command_context *ctx,
                        const struct cmd_row *rows, size_t n)
{
        for (size_t i = 0; i < n; i++)
                expect_action(rs, rows[i].cmd, ctx, rows[i].want);
}
#define EXPECT_ROWS(rs, ctx, rows)                                                                 \
        expect_rows((rs), (ctx), (rows), sizeof(rows) / sizeof((rows)[0]))

/* Decides each of `n` commands (with the fake context) and expects `want` of every one. */
static void expect_each(const warder_ruleset *rs, const char *const *cmds, size_t n,
                        enum warder_action want)
{
        for (size_t i = 0; i < n; i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, cmds[i], true, &d);
                ck_assert_msg(a == want, "%s: %s, want %s (%s)", cmds[i], warder_action_name(a),
                              warder_action_name(want), d.note ? d.note : "");
                warder_decision_clear(&d);
        }
}

#define EXPECT_EACH(rs, cmds, want) expect_each(rs, cmds, sizeof(cmds) / sizeof(cmds[0]), want)

static const char *const denied_cmds[] = {
    "cat .env",
    "cat<.env",
    "cat .e*",
    "cd sub && cat .env",
    "cat \"$HOME/.ssh/id_rsa\"",
    "cat ~/.ssh/id_rsa",
    "tool --in=/etc/passwd",
    "tool -o/etc/passwd",
    "echo x > /etc/hosts",
    "echo x | tee .env",
    "sh -c 'cat .env'",
    "timeout 5 cat .env",
    "env A=1 cat .env",
    "{ cat .env; }",
    "(cat .env)",
    "echo $(cat .env)",
    "echo `cat .env`",
    "cat ./link-to-env",
    /* more shapes of the same */
    "cat <(cat .env)",
    "bash -c \"sh -c 'cat .env'\"",
    "sudo -u root cat /etc/shadow",
    "xargs cat .env",
    "cat $'.env'",
    "c'a't .\"env\"",
    "cat ${HOME}/.ssh/config",
    "A=1 B=2 cat .env",
    "eval cat .env",
    "if true; then cat .env; fi",
    "cat src/../.env",
    "tar -xzf.env",
    "dd if=.env of=/tmp/x",
    "cp .env /tmp/x",
    "cp /tmp/x .env",
    "sed -i s/a/b/ .env",
    "cat < /etc/passwd",
    "cd /etc; cat passwd",
    "cd /nonexistent || cat .env",
    "cat .env; echo \"unterminated",
    "cd /tmp && cat ../etc/passwd",
    "true && cd /etc && cat passwd",
    "pushd /etc && cat shadow",
    "nice -n 5 nohup stdbuf -oL cat .env",
    "command -p cat .env",
    "exec cat .env",
    "time -p cat .env",
    "doas -u root cat /etc/shadow",
    "cat /etc/*",
    "bash <<< 'cat .env'",
    "exec 3<.env",
    "cat .en''v",
    "cat //ws//./sub/../.env",
    "x=cat; $x .env",
    "echo x >> ~/.ssh/authorized_keys",
    "git -C /etc status",
    "A=/etc/passwd; cat $A",
    "cat <<EOF\nhello\nEOF; cat /etc/passwd",
    "bash --rcfile x -c 'cat .env'",
    "bash -O extglob -ec 'cat .env'",
};

START_TEST(test_denied)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        for (size_t i = 0; i < sizeof(denied_cmds) / sizeof(denied_cmds[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, denied_cmds[i], true, &d);
                ck_assert_msg(a == WARDER_DENY, "%s: %s (%s)", denied_cmds[i],
                              warder_action_name(a), d.note ? d.note : "");
                ck_assert_msg(d.segment != NULL, "%s: no segment named", denied_cmds[i]);
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_denied_names_candidate)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(decide(rs, "git status; cd sub && cat .env", false, &d), WARDER_DENY);
        ck_assert_str_eq(d.segment, "cat .env");
        ck_assert_str_eq(d.candidate, "/ws/sub/.env");
        ck_assert_int_eq(d.candidate_op, WARDER_OP_READ);
        ck_assert_str_eq(d.pattern, "**/.env");
        warder_decision_clear(&d);
        ck_assert_int_eq(decide(rs, "echo x | tee .env", false, &d), WARDER_DENY);
        ck_assert_int_eq(d.candidate_op, WARDER_OP_WRITE);
        warder_decision_clear(&d);
        ck_assert_int_eq(decide(rs, "cat ./link-to-env", false, &d), WARDER_DENY);
        ck_assert_str_eq(d.candidate, "/ws/link-to-env");
        ck_assert_int_eq(d.form, WARDER_FORM_REAL);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5: a glob without a way to expand it is at least ask; with one, the results decide. */
START_TEST(test_glob_without_context)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(decide(rs, "cat .e*", false, &d), WARDER_ASK);
        ck_assert(d.undeterminable);
        ck_assert_ptr_nonnull(d.note);
        warder_decision_clear(&d);
        ck_assert_int_eq(decide(rs, "cat src/*.c", true, NULL), WARDER_ALLOW);
        ck_assert_int_eq(decide(rs, "cat '.e*'", false, NULL), WARDER_ALLOW);
        /* a '[' is a glob only when an unquoted ']' closes it within the component */
        ck_assert_int_eq(decide(rs, "cat [ab]", false, NULL), WARDER_ASK);
        ck_assert_int_eq(decide(rs, "cat [zz", false, NULL), WARDER_ALLOW);
        ck_assert_int_eq(decide(rs, "cat [a']'", false, NULL), WARDER_ALLOW);
        ck_assert_int_eq(decide(rs, "cat [a/]", false, NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

static const char *const allowed_cmds[] = {
    "cat src/main.c",
    "ls -la",
    "git status",
    "echo hello > out.txt",
    "cat \"$SRC/main.c\"",
    "cd sub && ls",
    "make -j4 2>&1 | tail -n 20",
    "echo $?",
    "echo \"$(date)\"",
    "command -v git",
    "cat README.md # .env",
    "echo '.env'",
};

START_TEST(test_allowed_twins)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        EXPECT_EACH(rs, allowed_cmds, WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5, §5.6, §5.7: what inspection cannot see is at least ask. */
static const char *const ask_cmds[] = {
    "cat $UNKNOWN",
    "cat $(find . -name x)",
    "cat `ls`",
    "cd $DIR && cat x",
    "cd \"$(mktemp -d)\"; cat x",
    "cat .{env,x}",
    "$CMD x",
    "$(echo rm) -rf /",
    "sudo --bogus cat x",
    "timeout --bogus 5 cat x",
    "xargs -0 cat",
    "echo 'unterminated",
    "sh -c \"$SCRIPT\"",
    "cat ~other/x",
    "cat <<EOF\n$(cat x)\nEOF",
    "cat \"$@\"",
    "cat > $OUT",
    "echo 'cat x' | sh",
    "bash",
    "cat /proc/self/root/x",
    "cat$IFS.env",
    "xargs cat",
    "trap 'echo hi' EXIT",
    "alias ll='ls -l'",
};

START_TEST(test_ask)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        for (size_t i = 0; i < sizeof(ask_cmds) / sizeof(ask_cmds[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, ask_cmds[i], true, &d);
                ck_assert_msg(a == WARDER_ASK, "%s: %s", ask_cmds[i], warder_action_name(a));
                ck_assert_msg(d.undeterminable && d.note, "%s: no note", ask_cmds[i]);
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5.2: bash evaluates the value of every variable an arithmetic context names, and an
 * array subscript in that value runs `$( … )`: `x='a[$(cat .env >&2)]'; echo $((x))` prints
 * the file. A variable there whose value is not a literal number known here (N=5 is declared)
 * makes the command at least ask; literal numbers and declared numbers do not. */
static const char *const arith_ask[] = {
    "x='a[$(cat .env >&2)]'; echo $((x))",
    "echo $((x))",
    "echo $(( x + 1 ))",
    "echo \"$((x))\"",
    "echo $(($x))",
    "echo $((${x}))",
    "echo $(( $1 ))",
    "((x))",
    "(( y = x ))",
    "let x",
    "let \"y = x\"",
    "declare -i y; y=x",
    "typeset -i w=x",
    "local -i q=1",
    "[[ $x -eq 1 ]]",
    "[[ x -eq 1 ]]",
    "[[ -n a && x -gt 1 ]]",
    "echo $[x]",
    "s=abc; echo ${s:x}",
    "echo ${s:1:x}",
    "echo ${a[x]}",
    "echo ${#a[x]}",
    "echo \"${a[x]}\"",
    "for ((i=x; i<0; i++)); do :; done",
    "unset 'a[$(cat .env)]'",
    "read 'b[x]' <<< 5",
    "[[ -v 'a[$(cat .env)]' ]]",
    "printf -v 'a[x]' %s 1",
    ": ${x=1}; echo $((x))",
    "echo ${x:-$((y))}",
    "bash -c 'echo $((x))'",
};

static const char *const arith_allow[] = {
    "echo $((1 + 2))",    "echo $(( 0x1f + 2#101 + 10#09 ))",
    "echo $(( $N * 2 ))", "echo $(( $N + $# + $? ))",
    "((3 > 2))",          "[[ 1 -eq 1 ]]",
    "[[ $N -lt 10 ]]",    "echo ${SRC:1:2}",
    "echo ${a[0]}",       "let 1+2",
    "printf '[%s]\\n' x", "test x -eq 1",
};

START_TEST(test_arithmetic)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        for (size_t i = 0; i < sizeof(arith_ask) / sizeof(arith_ask[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, arith_ask[i], true, &d);
                ck_assert_msg(a >= WARDER_ASK, "%s: %s", arith_ask[i], warder_action_name(a));
                ck_assert_msg(a == WARDER_DENY || (d.undeterminable && d.note), "%s: no note",
                              arith_ask[i]);
                warder_decision_clear(&d);
        }
        EXPECT_EACH(rs, arith_allow, WARDER_ALLOW);
        /* the subscript's substitution is a command like any other: denied, not only asked */
        ck_assert_int_eq(decide(rs, "echo $((a[$(cat .env)]))", true, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "echo ${a[$(cat .env)]}", true, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "echo $[$(cat .env)]", true, NULL), WARDER_DENY);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4.2: the arguments of echo, printf, true, false and `:` are data only when the command
 * word is that exact builtin name and nothing in the line redefines it; `./echo .env` runs a
 * script the agent may have written. */
static const char *const builtin_deny[] = {
    "./echo .env",
    "/ws/echo .env",
    "src/echo .env",
    "\"$SRC\"/echo .env",
    "bash -c 'enable -n echo; PATH=.:/usr/bin:/bin; echo .env'",
    "enable -n echo; echo .env",
    "PATH=.:/usr/bin:/bin; echo .env",
    "PATH=. echo .env",
    "export PATH=.; printf %s .env",
    "echo() { cat \"$@\"; }; echo .env",
    "function printf { cat \"$@\"; }; printf .env",
    "true () { cat .env; }; true .env",
    "alias echo=cat\necho .env",
    "hash -p ./x echo; echo .env",
    "env echo .env",
    "nice echo .env",
    "exec echo .env",
    "xargs echo .env",
    "sudo echo .env",
};

static const char *const builtin_allow[] = {
    "echo .env",
    "printf '%s\\n' .env",
    "true .env",
    ": .env",
    "false .env",
    "command echo .env",
    "builtin echo .env",
    "time echo .env",
    "echo hello > out.txt",
};

START_TEST(test_data_only_builtins)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        EXPECT_EACH(rs, builtin_deny, WARDER_DENY);
        EXPECT_EACH(rs, builtin_allow, WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4: a source of mv, ln (hard or symbolic: the link's target), install or cp is decided
 * for read as well as for write: under a new name its contents are readable. This ruleset
 * denies reads only. */
static const char reads_only_yaml[] = "warder: 1\n"
                                      "default: allow\n"
                                      "read:\n"
                                      "  rules:\n"
                                      "    - deny: '**/.env'\n"
                                      "    - deny: './vault/key'\n"
                                      "write:\n"
                                      "  default: allow\n"
                                      "execute:\n"
                                      "  default: allow\n";

START_TEST(test_sources_are_read)
{
        warder_ruleset *rs = load(reads_only_yaml);
        NEED(rs);
        static const char *const deny[] = {
            "mv .env notes && cat notes",
            "ln .env x && cat x",
            "install -m 644 .env x && cat x",
            "ln -s vault/key v && cat v",
            "ln -s .env",
            "ln -s ../.env src/x",
            "cp .env x",
            "mv -t /tmp .env",
            "mv --target-directory=/tmp .env",
            "cp -t /tmp src/main.c .env",
            "mv -f .env -- x",
        };
        static const char *const allow[] = {
            "mv notes .env",  "cp src/main.c .env", "ln -sf src/main.c .env",
            "mv a.txt b.txt", "ln -s src/main.c m", "install -m 644 src/x bin/x",
        };
        for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, deny[i], true, &d);
                ck_assert_msg(a == WARDER_DENY, "%s: %s (%s)", deny[i], warder_action_name(a),
                              d.note ? d.note : "");
                ck_assert_msg(d.candidate_op == WARDER_OP_READ, "%s: decided for %s", deny[i],
                              warder_op_name(d.candidate_op));
                warder_decision_clear(&d);
        }
        EXPECT_EACH(rs, allow, WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4.1: the ruleset's query for subtrees — the strictest deny or ask rule that could match
 * some path beneath a directory, whatever the rule's order or kind (exact, prefix, basename,
 * matcher, folded). */
START_TEST(test_subtree_query)
{
        static const char yaml[] = "warder: 1\n"
                                   "fold_case: true\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - allow: './a/**'\n"
                                   "    - deny: './a/vault/**'\n"
                                   "    - deny: './secret.txt'\n"
                                   "    - ask: 'src/**/*.c'\n"
                                   "    - deny: '/etc/**'\n"
                                   "    - deny: './x/*/key'\n"
                                   "    - deny: './y/**/key'\n"
                                   "    - ask: 'dir{1,2}/**'\n"
                                   "    - deny: './Up/Case'\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: '**/.env'\n"
                                   "    - allow: '**'\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct {
                enum warder_op op;
                const char *dir;
                int want; /* -1 none, else the action */
        } rows[] = {
            {WARDER_OP_WRITE, "/ws/a", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/a/vault", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/a/vault/deep", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/ab", -1},
            {WARDER_OP_WRITE, "/ws/c", -1},
            {WARDER_OP_WRITE, "/ws", WARDER_DENY},
            {WARDER_OP_WRITE, "/", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/secret.txt", -1},
            {WARDER_OP_WRITE, "/ws/src", WARDER_ASK},
            {WARDER_OP_WRITE, "/ws/src/x/y", WARDER_ASK},
            {WARDER_OP_WRITE, "/ws/lib", -1},
            {WARDER_OP_WRITE, "/etc", WARDER_DENY},
            {WARDER_OP_WRITE, "/et", -1},
            {WARDER_OP_WRITE, "/ws/x", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/x/b", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/x/b/c", -1},
            {WARDER_OP_WRITE, "/ws/y/b/c/d", WARDER_DENY},
            {WARDER_OP_WRITE, "/ws/dir2", WARDER_ASK},
            {WARDER_OP_WRITE, "/ws/dir3", -1},
            {WARDER_OP_WRITE, "/ws/up", WARDER_DENY}, /* fold_case */
            {WARDER_OP_WRITE, "/ws/UP", WARDER_DENY},
            {WARDER_OP_READ, "/ws/anything/at/all", WARDER_DENY},
            {WARDER_OP_READ, "/tmp", WARDER_DENY},
            {WARDER_OP_LS, "/ws/a", -1},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                bool hit =
                    warder__ruleset_subtree(rs, rows[i].op, rows[i].dir, strlen(rows[i].dir), &d);
                int got = hit ? (int)d.action : -1;
                ck_assert_msg(got == rows[i].want, "%s %s: got %d, want %d (%s)",
                              warder_op_name(rows[i].op), rows[i].dir, got, rows[i].want,
                              hit ? d.pattern : "-");
        }
        warder_ruleset_free(rs);
}
END_TEST

/* A fake tree for §5.4.1: the context's `ls` says which candidates are directories. */
static const char *const tree_files[] = {"/ws/a/vault/key", "/ws/a/pub.txt", "/ws/src/main.c",
                                         "/ws/f.txt", NULL};

static int tree_ls(void *ud, const char *dir, char ***out, size_t *count)
{
        (void)ud;
        size_t dl = strlen(dir), n = 0;
        char **v = calloc(16, sizeof(*v));
        bool is_file = false, exists = strcmp(dir, "/ws") == 0;
        for (size_t i = 0; tree_files[i]; i++) {
                const char *f = tree_files[i];
                if (strcmp(f, dir) == 0)
                        is_file = true;
                if (strncmp(f, dir, dl) != 0 || f[dl] != '/')
                        continue;
                exists = true;
                const char *name = f + dl + 1, *slash = strchr(name, '/');
                size_t nl = slash ? (size_t)(slash - name) : strlen(name);
                char entry[256];
                snprintf(entry, sizeof(entry), "%.*s%s", (int)nl, name, slash ? "/" : "");
                bool dup = false;
                for (size_t k = 0; k < n; k++)
                        dup |= strcmp(v[k], entry) == 0;
                if (!dup)
                        v[n++] = strdup(entry);
        }
        if (!exists) {
                for (size_t k = 0; k < n; k++)
                        free(v[k]);
                free(v);
                return is_file ? WARDER_ENOTDIR : WARDER_ENOENT;
        }
        *out = v;
        *count = n;
        return 0;
}

static enum warder_action decide_tree(const warder_ruleset *rs, const char *cmd, bool with_ls,
                                      struct warder_decision *keep)
{
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.env = fake_env;
        if (with_ls)
                ctx.ls = tree_ls;
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_msg(warder_ruleset_check_command(&d, rs, cmd, strlen(cmd), &ctx, &err) == 0,
                      "%s: %s", cmd, err.message);
        enum warder_action a = d.action;
        if (keep)
                *keep = d;
        else
                warder_decision_clear(&d);
        return a;
}

/* §5.4.1: renaming, removing, copying or reading recursively a directory meets every rule that
 * can match beneath it; `mv a c` would move a/vault/key out of its anchored rule. */
START_TEST(test_subtrees)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: './a/vault/**'\n"
                                   "    - deny: '**/.env'\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - deny: './a/vault/**'\n"
                                   "    - deny: '**/.env'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action with_ls, without_ls;
        } rows[] = {
            {"mv a c", WARDER_DENY, WARDER_ALLOW},
            {"mv a/pub.txt c", WARDER_ALLOW, WARDER_ALLOW},
            {"mv -t /tmp a", WARDER_DENY, WARDER_ALLOW},
            {"rm -r a", WARDER_DENY, WARDER_ASK},
            {"rm -rf src", WARDER_DENY, WARDER_ASK},
            {"rm --recursive src", WARDER_DENY, WARDER_ASK},
            {"rm src/main.c", WARDER_ALLOW, WARDER_ALLOW},
            {"rm -r gone", WARDER_ALLOW, WARDER_ASK},
            {"cp -r a /tmp/x", WARDER_DENY, WARDER_ASK},
            {"cp -a src /tmp/x", WARDER_DENY, WARDER_ASK},
            {"cp --archive a /tmp/x", WARDER_DENY, WARDER_ASK},
            {"cp f.txt src", WARDER_DENY, WARDER_ALLOW},
            {"grep -rn TODO src", WARDER_DENY, WARDER_ASK},
            {"grep -rn TODO f.txt", WARDER_ALLOW, WARDER_ASK},
            {"grep -n TODO src/main.c", WARDER_ALLOW, WARDER_ALLOW},
            {"tar czf /tmp/out.tgz a", WARDER_DENY, WARDER_ASK},
            {"rsync -a src/ /tmp/x", WARDER_DENY, WARDER_ASK},
            {"chmod -R 700 a", WARDER_DENY, WARDER_ASK},
            {"chmod 700 a", WARDER_DENY, WARDER_ALLOW},
            {"chown -R u src", WARDER_DENY, WARDER_ASK},
            {"ln -sT a/vault v", WARDER_DENY, WARDER_DENY},
            {"ln -s a v", WARDER_DENY, WARDER_ALLOW},
            {"touch newfile", WARDER_ALLOW, WARDER_ALLOW},
            {"echo x > f.txt", WARDER_ALLOW, WARDER_ALLOW},
            {"echo x > a", WARDER_DENY, WARDER_ALLOW},
            {"ls -R a", WARDER_ALLOW, WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                for (int with = 0; with < 2; with++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        enum warder_action want = with ? rows[i].with_ls : rows[i].without_ls;
                        enum warder_action a = decide_tree(rs, rows[i].cmd, with, &d);
                        ck_assert_msg(a == want, "%s (ls %d): %s, want %s (%s)", rows[i].cmd, with,
                                      warder_action_name(a), warder_action_name(want),
                                      d.note ? d.note : "");
                        warder_decision_clear(&d);
                }
        }
        /* the decision names the rule that can match beneath, and why */
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(decide_tree(rs, "mv a c", true, &d), WARDER_DENY);
        ck_assert_str_eq(d.pattern, "./a/vault/**");
        ck_assert_str_eq(d.candidate, "/ws/a");
        ck_assert_ptr_nonnull(d.note);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* The destination of `-t DIR` (cp, mv, install, ln) is written, under a ruleset that denies
 * writing there and allows reading it: whether DIR is the option's next word or joined to it,
 * and wherever the option stands. */
START_TEST(test_target_directory_is_written)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - deny: './src/**'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cp -t src f.txt", WARDER_DENY},
            {"cp f.txt -t src", WARDER_DENY},
            {"mv -t src f.txt", WARDER_DENY},
            {"cp --target-directory=src f.txt", WARDER_DENY},
            {"cp -t", WARDER_ALLOW},
            {"cp -t a f.txt", WARDER_ALLOW},  /* control: another directory */
            {"cat src/main.c", WARDER_ALLOW}, /* control: reading src is allowed */
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                for (int with = 0; with < 2; with++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        enum warder_action a = decide_tree(rs, rows[i].cmd, with, &d);
                        ck_assert_msg(a == rows[i].want, "%s (ls %d): %s (%s)", rows[i].cmd, with,
                                      warder_action_name(a), d.note ? d.note : "");
                        warder_decision_clear(&d);
                }
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4.1 with the directory itself at ask: a rule beneath it that denies still decides (the
 * stricter answer), whether the listing shows the directory or it cannot be seen. */
START_TEST(test_subtree_deny_beats_ask)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - ask: './a'\n"
                                   "    - deny: './a/vault/**'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action with_ls, without_ls;
        } rows[] = {
            {"rm -r a", WARDER_DENY, WARDER_ASK},
            {"rm -r a/pub.txt", WARDER_ALLOW, WARDER_ALLOW}, /* control: no rule beneath */
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                for (int with = 0; with < 2; with++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        enum warder_action want = with ? rows[i].with_ls : rows[i].without_ls;
                        enum warder_action a = decide_tree(rs, rows[i].cmd, with, &d);
                        ck_assert_msg(a == want, "%s (ls %d): %s, want %s (%s)", rows[i].cmd, with,
                                      warder_action_name(a), warder_action_name(want),
                                      d.note ? d.note : "");
                        warder_decision_clear(&d);
                }
        }
        warder_ruleset_free(rs);
}
END_TEST

/* A context `glob` over two files, one of them named with a `*`, that returns exactly `count`
 * names followed by a slot that must never be read (a poisoned pointer), and fails out of
 * memory on a pattern that holds "oom". */
static const char *const starred_files[] = {"/ws/secret.txt", "/ws/secre*.txt", NULL};

static int starred_glob(void *ud, const char *pattern, char ***out, size_t *count)
{
        (void)ud;
        if (strstr(pattern, "oom"))
                return WARDER_ENOMEM;
        char **v = calloc(3, sizeof(*v));
        ck_assert_ptr_nonnull(v);
        size_t n = 0;
        for (size_t i = 0; starred_files[i]; i++)
                if (fnmatch(pattern, starred_files[i], FNM_PATHNAME | FNM_PERIOD) == 0)
                        ck_assert_ptr_nonnull(v[n++] = strdup(starred_files[i]));
        v[n] = (char *)(uintptr_t)1; /* past the count: never read, never freed */
        *out = v;
        *count = n;
        return 0;
}

/* §5.5 with a context that expands globs: quoted pattern bytes stay literal in the pattern it
 * is given (`'secre*'?txt` names only the file called secre*.txt), no more names are read
 * than it counts, and its failure is the command's error. */
START_TEST(test_glob_context_contract)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: '**/secret.txt'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.glob = starred_glob;
        expect_action(rs, "cat 'secre*'?txt", &ctx, WARDER_ALLOW);
        expect_action(rs, "cat \"secre*\"?txt", &ctx, WARDER_ALLOW);
        expect_action(rs, "cat secre\\*?txt", &ctx, WARDER_ALLOW);
        expect_action(rs, "cat secre*?txt", &ctx, WARDER_DENY); /* control: both files */
        expect_action(rs, "cat nothing*", &ctx, WARDER_ALLOW);  /* no match, no slot read */
        struct warder_decision d = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat oom*", 8, &ctx, &err),
                         WARDER_ENOMEM);
        ck_assert_int_eq(err.code, WARDER_ENOMEM);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* `ln -s TARGET… LINK`: a relative TARGET is resolved from the link's directory (and from
 * LINK itself, in case it is one), since that is where the link will lead: `ln -s key
 * vault/k` makes vault/k lead to vault/key. Every spelling of the symbolic option and of the
 * link's place; a hard link's TARGET is resolved from the current directory (the control). */
START_TEST(test_symlink_targets_from_the_link)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: './vault/key'\n"
                                   "    - deny: './-v/key'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"ln -s key vault/k", WARDER_DENY},
            {"ln -s -- key -v/k", WARDER_DENY},
            {"ln --symbolic key vault/k", WARDER_DENY},
            {"ln -sf key vault/k", WARDER_DENY},
            {"ln -fs key vault/k", WARDER_DENY},
            {"ln -s -- key vault/k", WARDER_DENY},
            {"ln -s -t vault key", WARDER_DENY},
            {"ln -s key other vault/", WARDER_DENY},
            {"ln -s other key vault", WARDER_DENY},
            {"ln -s ../key vault/sub/k", WARDER_DENY},
            {"ln -s key vault", WARDER_DENY},
            {"ln key vault/k", WARDER_ALLOW}, /* hard links: key from here */
            {"ln -f key vault/k", WARDER_ALLOW},
            {"ln --force key vault/k", WARDER_ALLOW},
            {"ln -s /key vault/k", WARDER_ALLOW},    /* absolute: from nowhere else */
            {"ln -s key k", WARDER_ALLOW},           /* the link beside it: ./key */
            {"ln -s key", WARDER_ALLOW},             /* one operand: ./key itself */
            {"ln -s -- -key vault/k", WARDER_ALLOW}, /* another name */
            {"ln -s /ws/key vault/k", WARDER_ALLOW}, /* absolute, and not vault/key */
            {"ln -s keys vault/k", WARDER_ALLOW},    /* another name */
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* Which operands a command writes, under a ruleset that denies writing src/ and allows
 * reading it: dd's of=, sed -i, install's operands, a >> or <> redirection and a shell's -c
 * script write there; the same commands only reading src/ are allowed (the controls). */
START_TEST(test_written_operands)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - deny: './src/**'\n"
                                   "execute:\n"
                                   "  default: allow\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"dd if=a.txt of=src/x", WARDER_DENY},
            {"dd of=src/x if=a.txt", WARDER_DENY},
            {"dd if=src/x of=a.txt", WARDER_ALLOW},
            {"dd if=src/x", WARDER_ALLOW},
            {"sed -i s/a/b/ src/main.c", WARDER_DENY},
            {"sed -ni s/a/b/ src/main.c", WARDER_DENY},
            {"sed --in-place s/a/b/ src/main.c", WARDER_DENY},
            {"sed s/a/b/ src/main.c", WARDER_ALLOW},
            {"sed -n s/a/b/ src/main.c", WARDER_ALLOW},
            {"install -d src/new", WARDER_DENY},
            {"install -m 644 a.txt src/x", WARDER_DENY},
            {"cat src/main.c", WARDER_ALLOW},
            {"cat <> src/main.c", WARDER_DENY},
            {"cat >> src/main.c", WARDER_DENY},
            {"cat < src/main.c", WARDER_ALLOW},
            {"sh -c 'cat > src/x'", WARDER_DENY},
            {"bash -ec 'cat > src/x'", WARDER_DENY},
            {"bash -o errexit -c 'cat > src/x'", WARDER_DENY},
            {"sh -c 'cat src/x'", WARDER_ALLOW},
            {"bash -e -c 'cat src/x'", WARDER_ALLOW},
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5: the expanded forms of a command meet the execute rules too: `~` and declared
 * variables, also when every word is one; and a command named by its path meets the rules
 * written for its name after the line's assignments. */
START_TEST(test_expanded_forms_meet_execute_rules)
{
        static const char yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "execute:\n"
                                   "  default: allow\n"
                                   "  rules:\n"
                                   "    - deny: 'cat /home/u/*'\n"
                                   "    - deny: 'rm *'\n"
                                   "    - deny: 'FOO=1 rm *'\n"
                                   "    - deny: '/home/u/bin/tool *'\n";
        warder_ruleset *rs = load(yaml);
        NEED(rs);
        static const char *const env[] = {"HOME=/home/u", "RM=rm", "T=x", NULL};
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.env = env;
        static const struct cmd_row rows[] = {
            {"cat ~/x", WARDER_DENY},        {"$RM $T", WARDER_DENY},
            {"${RM} \"$T\"", WARDER_DENY},   {"FOO=1 /bin/rm -rf x", WARDER_DENY},
            {"cat /home/v/x", WARDER_ALLOW}, /* controls */
            {"$T $RM", WARDER_ALLOW},        {"FOO=1 /bin/rmdir x", WARDER_ALLOW},
            {"~/bin/tool x", WARDER_DENY},   {"~/bin/other x", WARDER_ALLOW},
        };
        EXPECT_ROWS(rs, &ctx, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5.2 builtins that evaluate arithmetic, under an execute default of allow: an integer
 * variable and a subscript that names a variable ask; a plain declaration, an option without
 * `i`, a value that holds an `i`, `-v` of another command and a `]` without `[` do not. */
START_TEST(test_arithmetic_builtins_exactly)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"declare -i n", WARDER_ASK},           {"typeset -ri n", WARDER_ASK},
            {"local -i n=1", WARDER_ASK},           {"printf -v 'a[x]' %s 1", WARDER_ASK},
            {"unset 'a[x]'", WARDER_ASK},           {"declare x=1", WARDER_ALLOW},
            {"declare greeting=hi", WARDER_ALLOW},  {"declare -r x=1", WARDER_ALLOW},
            {"grep -v 'a[x]' f.txt", WARDER_ALLOW}, {"printf -v 'a[1]' %s 1", WARDER_ALLOW},
            {"unset 'x]'", WARDER_ALLOW},           {"unset 'a]x['", WARDER_ALLOW},
            {"declare -a arr", WARDER_ALLOW},       {"printf '%s' 'a[x]'", WARDER_ALLOW},
            {"[[ 1 -eq x ]]", WARDER_ASK},          {"[ x -eq 1 ]", WARDER_ALLOW},
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.6: cd moves later relative paths; where a cd may have failed, every directory the
 * shell may be in counts. `./secret` is anchored at the root, so only /ws/secret is denied. */
START_TEST(test_cd_tracking)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "read:\n"
                                  "  default: allow\n"
                                  "  rules:\n"
                                  "    - deny: './secret'\n"
                                  "execute: {default: allow}\n");
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cat secret", WARDER_DENY},
            {"cd /tmp && cat secret", WARDER_ALLOW},
            {"cd /tmp && (cat secret)", WARDER_ALLOW},
            {"cd /tmp && echo $(cat secret)", WARDER_ALLOW},
            {"cd /tmp && ls | cat secret", WARDER_ALLOW},
            {"cd /tmp; cat secret", WARDER_DENY},
            {"cd /nonexistent || cat secret", WARDER_DENY},
            {"cd /tmp && true || cat secret", WARDER_DENY},
            {"(cd /tmp); cat secret", WARDER_DENY},
            {"(cd /tmp) && cat secret", WARDER_DENY},
            {"cd /tmp | cat secret", WARDER_DENY},
            {"cd /tmp & cat secret", WARDER_DENY},
            {"{ cd /tmp; } && cat secret", WARDER_DENY},
            {"cd /tmp && cd /ws && cat secret", WARDER_DENY},
            {"cd sub && cat ../secret", WARDER_DENY},
            {"cd /tmp && sh -c 'cat secret'", WARDER_ALLOW},
            {"sh -c 'cd /tmp'; cat secret", WARDER_DENY},
            {"cd \"$UNKNOWN\" && cat notsecret", WARDER_ASK},
            {"cd \"$UNKNOWN\" && cat /ws/secret", WARDER_DENY},
            {"cd && cat secret", WARDER_ALLOW}, /* home */
            {"pushd /tmp && popd && cat secret", WARDER_DENY},
            {"while true; do cd sub; done; cat x", WARDER_ASK},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                enum warder_action a = decide(rs, rows[i].cmd, false, NULL);
                ck_assert_msg(a == rows[i].want, "%s: want %s, got %s", rows[i].cmd,
                              warder_action_name(rows[i].want), warder_action_name(a));
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.3: sh -c nesting beyond depth 4 is at least ask; up to 4 is inspected. */
START_TEST(test_shell_depth)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        char cmd[512] = "true";
        for (int depth = 1; depth <= 6; depth++) {
                char next[512];
                /* wrap in another sh -c with the body quoted by $'…' escapes of single quotes */
                struct warder__buf b = WARDER__BUF_INIT;
                warder__buf_puts(&b, "sh -c '");
                for (const char *c = cmd; *c; c++) {
                        if (*c == '\'')
                                warder__buf_puts(&b, "'\\''");
                        else
                                warder__buf_putc(&b, *c);
                }
                warder__buf_putc(&b, '\'');
                snprintf(next, sizeof(next), "%s", b.data);
                warder__buf_free(&b);
                strcpy(cmd, next);
                enum warder_action a = decide(rs, cmd, false, NULL);
                ck_assert_msg(a == (depth <= 4 ? WARDER_ALLOW : WARDER_ASK), "depth %d: %s", depth,
                              warder_action_name(a));
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.2: order-free strictness and the whole line. */
START_TEST(test_strictness_examples)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "read: {default: allow}\n"
                                  "write: {default: allow}\n"
                                  "execute:\n"
                                  "  default: ask\n"
                                  "  rules:\n"
                                  "    - allow: 'git *'\n"
                                  "    - deny: 'git push*'\n");
        NEED(rs);
        ck_assert_int_eq(decide(rs, "git push", false, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "git status; git push", false, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "git status", false, NULL), WARDER_ALLOW);
        ck_assert_int_eq(decide(rs, "sudo git push origin", false, NULL), WARDER_DENY);
        /* a path names another program: its name raises, never allows (§5.3) */
        ck_assert_int_eq(decide(rs, "/usr/bin/git push", false, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "/tmp/x/git status", false, NULL), WARDER_ASK);
        warder_ruleset_free(rs);

        rs = load("warder: 1\n"
                  "read: {default: allow}\n"
                  "write: {default: allow}\n"
                  "execute:\n"
                  "  default: ask\n"
                  "  rules:\n"
                  "    - allow: 'git status*'\n");
        NEED(rs);
        ck_assert_int_eq(decide(rs, "git status", false, NULL), WARDER_ALLOW);
        ck_assert_int_ne(decide(rs, "git status; rm -rf ~", false, NULL), WARDER_ALLOW);
        ck_assert_int_ne(decide(rs, "git status && rm -rf ~", false, NULL), WARDER_ALLOW);
        ck_assert_int_ne(decide(rs, "git status $(rm -rf ~)", false, NULL), WARDER_ALLOW);
        warder_ruleset_free(rs);

        /* the whole line meets deny rules even where no single command does */
        rs = load("warder: 1\n"
                  "read: {default: allow}\n"
                  "write: {default: allow}\n"
                  "execute:\n"
                  "  default: allow\n"
                  "  rules:\n"
                  "    - deny: ':(){:|:&};:'\n");
        NEED(rs);
        ck_assert_int_eq(decide(rs, ":(){:|:&};:", false, NULL), WARDER_DENY);
        ck_assert_int_eq(decide(rs, "  :(){:|:&};:  ", false, NULL), WARDER_DENY);
        warder_ruleset_free(rs);
}
END_TEST

/* §1.6 dangerous commands, under §5's forms. */
START_TEST(test_default_preset)
{
        warder_ruleset *rs = load_preset("default");
        NEED(rs);
        static const char *const deny[] = {
            "rm -rf /home/user",
            "mkfs.ext4 /dev/sda1",
            "sudo mkfs.ext4 /dev/sda1",
            "dd if=/dev/zero of=/dev/sda",
            "'mkfs.ext4' /dev/sda1",
            "mk\"\"fs.ext4 /dev/sda1",
            "echo ok && sudo -n mkfs.ext4 /dev/sda1",
            "sh -c 'rm -rf /'",
            "env X=1 rm -rf /",
            "chmod -R 777 /",
            "cat .env",
            "/sbin/mkfs.ext4 /dev/sda1",
            "sudo /usr/sbin/mkfs.ext4 /dev/sda1",
        };
        for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
                ck_assert_msg(decide(rs, deny[i], false, NULL) == WARDER_DENY, "%s", deny[i]);
        /* the default preset asks for other commands (execute default ask) */
        ck_assert_int_eq(decide(rs, "ls -la", false, NULL), WARDER_ASK);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.7: no limit turns a deny into something weaker; every limit is at least ask. */
START_TEST(test_limits_decisions)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        struct warder__buf b = WARDER__BUF_INIT;
        /* too long: 100 KiB of harmless commands */
        warder__buf_puts(&b, "cat .env");
        while (b.len < 100 * 1024)
                warder__buf_puts(&b, "; true");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_DENY);
        warder__buf_truncate(&b, 0);
        while (b.len < 100 * 1024)
                warder__buf_puts(&b, "true; ");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_ASK);
        /* too many words */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "cat .env");
        for (int i = 0; i < 5000; i++)
                warder__buf_puts(&b, " a");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_DENY);
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "echo");
        for (int i = 0; i < 5000; i++)
                warder__buf_puts(&b, " a");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_ASK);
        /* too many commands */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "cat .env");
        for (int i = 0; i < 2000; i++)
                warder__buf_puts(&b, ";a");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_DENY);
        warder__buf_truncate(&b, 0);
        for (int i = 0; i < 2000; i++)
                warder__buf_puts(&b, "true;");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_ASK);
        /* too deep */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "cat .env; ");
        for (int i = 0; i < 100; i++)
                warder__buf_puts(&b, "(");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_DENY);
        warder__buf_truncate(&b, 0);
        for (int i = 0; i < 100; i++)
                warder__buf_puts(&b, "$(");
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_ASK);
        /* too many paths */
        warder__buf_truncate(&b, 0);
        warder__buf_puts(&b, "cat");
        for (int i = 0; i < 3000; i++)
                warder__buf_printf(&b, " f%d", i);
        warder__buf_puts(&b, "; cat");
        for (int i = 0; i < 3000; i++)
                warder__buf_printf(&b, " g%d", i);
        ck_assert_int_eq(decide(rs, b.data, false, NULL), WARDER_ASK);
        warder__buf_free(&b);
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_invalid)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "", 0, NULL, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "a\0b", 3, NULL, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check_command(&d, NULL, "ls", 2, NULL, NULL),
                         WARDER_EINVAL);
        /* through the generic check: ctx NULL, literal forms only */
        ck_assert_int_eq(warder_ruleset_check(&d, rs, WARDER_OP_EXECUTE, "cat .env",
                                              strlen("cat .env"), NULL, 0, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_DENY);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* The real kernel: symbolic links and globs resolved through the local backend (§3.2, §5.4,
 * §5.5), with a control arm showing the fixture really reaches the secret. */
static int local_realpath(void *ud, const char *literal, char **out)
{
        return warder_backend_realpath(out, ud, literal, strlen(literal), NULL);
}

static int local_glob(void *ud, const char *pattern, char ***out, size_t *count)
{
        /* the base: the directories before the first glob character */
        size_t first = strcspn(pattern, "*?[\\");
        size_t base = first;
        while (base > 1 && pattern[base - 1] != '/')
                base--;
        if (base > 1)
                base--;
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int rc = warder_backend_glob(&e, ud, pattern, strlen(pattern), pattern, base, 0, NULL);
        if (rc)
                return rc;
        char **v = calloc(e.count + 1, sizeof(*v));
        for (size_t i = 0; v && i < e.count; i++)
                v[i] = strdup(e.items[i].path);
        *out = v;
        *count = v ? e.count : 0;
        warder_entries_free(&e);
        return v ? 0 : WARDER_ENOMEM;
}

static void put_file(const char *dir, const char *name, const char *text)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
}

START_TEST(test_real_links_and_globs)
{
        char root[] = "/tmp/warder-command-XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(root));
        char path[4096];
        put_file(root, ".env", "SECRET=1\n");
        snprintf(path, sizeof(path), "%s/src", root);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        put_file(root, "src/main.c", "int main(void) { return 0; }\n");
        snprintf(path, sizeof(path), "%s/link-to-env", root);
        ck_assert_int_eq(symlink(".env", path), 0);

        /* control arm: the link really reaches the secret */
        char buf[32] = {0};
        int fd = open(path, O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
        close(fd);
        ck_assert_str_eq(buf, "SECRET=1\n");

        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = root;
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(
            warder_ruleset_load_string(&rs, rules_yaml, strlen(rules_yaml), "t", &o, NULL), 0);
        warder_backend *b = NULL;
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        ck_assert_int_eq(warder_local_new(&b, root, &lo, NULL), 0);
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.ud = b;
        struct {
                const char *cmd;
                bool realpath, glob;
                enum warder_action want;
        } rows[] = {
            /* without the real form the link's name is harmless: the control */
            {"cat ./link-to-env", false, false, WARDER_ALLOW},
            {"cat ./link-to-env", true, false, WARDER_DENY},
            {"cat < link-to-env", true, false, WARDER_DENY},
            {"cat lin*", false, false, WARDER_ASK},
            {"cat lin*", true, true, WARDER_DENY},
            {"cat .e*", false, true, WARDER_DENY},
            {"cat src/*.c", true, true, WARDER_ALLOW},
            {"cat src/main.c", true, true, WARDER_ALLOW},
            /* outside the backend's root the real form is unknown: at least ask (§3.2)... */
            {"cat /usr/share/x", true, false, WARDER_ASK},
            {"cat /usr/share/x", false, false, WARDER_ALLOW},
            /* ...except for the devices every line uses */
            {"make 2>/dev/null >&2 </dev/null", true, false, WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                ctx.realpath = rows[i].realpath ? local_realpath : NULL;
                ctx.glob = rows[i].glob ? local_glob : NULL;
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(warder_ruleset_check_command(&d, rs, rows[i].cmd,
                                                              strlen(rows[i].cmd), &ctx, NULL),
                                 0);
                ck_assert_msg(d.action == rows[i].want, "%s (realpath %d, glob %d): %s",
                              rows[i].cmd, rows[i].realpath, rows[i].glob,
                              warder_action_name(d.action));
                warder_decision_clear(&d);
        }
        warder_backend_free(b);
        warder_ruleset_free(rs);
        snprintf(path, sizeof(path), "rm -rf '%s'", root);
        ck_assert_int_eq(system(path), 0);
}
END_TEST

static int local_ls(void *ud, const char *dir, char ***out, size_t *count)
{
        struct warder_entries e = WARDER_ENTRIES_INIT;
        int rc = warder_backend_ls(&e, ud, dir, strlen(dir), 0, NULL);
        if (rc)
                return rc;
        char **v = calloc(e.count + 1, sizeof(*v));
        for (size_t i = 0; v && i < e.count; i++) {
                bool d =
                    e.items[i].type == WARDER_ENTRY_DIR || e.items[i].type == WARDER_ENTRY_SYMLINK;
                v[i] = malloc(strlen(e.items[i].name) + 2);
                sprintf(v[i], "%s%s", e.items[i].name, d ? "/" : "");
        }
        *out = v;
        *count = v ? e.count : 0;
        warder_entries_free(&e);
        return v ? 0 : WARDER_ENOMEM;
}

static void put_link(const char *dir, const char *target, const char *name)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        ck_assert_int_eq(symlink(target, path), 0);
}

static void put_dir(const char *dir, const char *name)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        ck_assert_int_eq(mkdir(path, 0700), 0);
}

/* §5.5 on the real kernel: with the context's `ls`, globs are expanded the way dash and bash
 * expand them — into symbolic links to directories, `..` from where a link leads, bracket
 * expressions, dot files only for a component that starts with `.` — and every result is
 * decided on both forms; an expansion that cannot be completed is at least ask. */
START_TEST(test_shell_globs)
{
        char root[] = "/tmp/warder-globs-XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(root));
        put_file(root, ".env", "SECRET=1\n");
        put_dir(root, "sub");
        put_dir(root, "sub/x");
        put_file(root, "sub/.env", "SECRET=2\n");
        put_dir(root, "src");
        put_file(root, "src/main.c", "int main(void) { return 0; }\n");
        put_dir(root, ".ssh");
        put_file(root, ".ssh/id_rsa", "KEY\n");
        put_link(root, "sub", "lsub");
        put_link(root, ".", "lroot");
        put_link(root, ".ssh", "keys");
        put_link(root, "sub/x", "lx");
        put_link(root, "/tmp", "out");
        put_dir(root, "many");
        for (int i = 0; i < 1100; i++) {
                char name[32];
                snprintf(name, sizeof(name), "many/f%d", i);
                put_file(root, name, "x\n");
        }
        struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
        o.root = root;
        o.home = "/home/u";
        warder_ruleset *rs = NULL;
        ck_assert_int_eq(
            warder_ruleset_load_string(&rs, rules_yaml, strlen(rules_yaml), "t", &o, NULL), 0);
        warder_backend *b = NULL;
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        ck_assert_int_eq(warder_local_new(&b, root, &lo, NULL), 0);
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.ud = b;
        ctx.realpath = local_realpath;
        ctx.ls = local_ls;
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cat l*/.e*", WARDER_DENY},  /* lsub/.env, lroot/.env */
            {"cat ls*/.e*", WARDER_DENY}, /* through lsub -> sub */
            {"cat k*/id*", WARDER_DENY},  /* keys -> .ssh */
            {"head ./l*/sub/.en?", WARDER_DENY},
            {"cat lx/../.e*", WARDER_DENY}, /* lx/.. is sub for the kernel */
            {"cat lx/../s*", WARDER_ALLOW}, /* sub/x only */
            {"cat .[e]nv", WARDER_DENY},
            {"cat .[!x]nv", WARDER_DENY},
            {"cat .[[:lower:]]nv", WARDER_DENY},
            {"cat sub/.*", WARDER_DENY},
            {"cat sub/.*/.env", WARDER_DENY}, /* `..` is a name for `.*` */
            {"cat src/*.c", WARDER_ALLOW},
            {"ls [s]rc/*.c", WARDER_ALLOW},
            {"cat s*", WARDER_ALLOW},    /* sub, src: `*` does not match .env or .ssh */
            {"cat s*/*", WARDER_ALLOW},  /* nor sub/.env */
            {"cat */*", WARDER_DENY},    /* keys/id_rsa: keys -> .ssh */
            {"cat '.e'*", WARDER_DENY},  /* a quoted leading dot is still a leading dot */
            {"cat '*'", WARDER_ALLOW},   /* quoted: no glob */
            {"cat .e\\*", WARDER_ALLOW}, /* escaped: the name `.e*` */
            {"cat nothing/*", WARDER_ALLOW},
            {"cat out/*", WARDER_ASK},  /* leaves the root: cannot be listed */
            {"cat many/*", WARDER_ASK}, /* more results than the budget */
            {"bash -c 'shopt -s dotglob; cat *'", WARDER_ASK},
            {"bash -O dotglob -c 'cat *'", WARDER_ASK},
            {"GLOBIGNORE=x; cat *", WARDER_ASK},
            {"bash -x -c 'cat s*'", WARDER_ALLOW}, /* -x changes no glob; -O does */
            {"zsh -c 'cat s*'", WARDER_ASK},       /* zsh globs otherwise (`**`, qualifiers) */
            {"cd \"\" && cat .env", WARDER_ASK},   /* bash stays, dash fails: either */
            {"ln -s \"\" sub/k", WARDER_ALLOW},    /* an empty target names nothing */
            {"ln -s .env sub/k", WARDER_DENY},     /* control: sub/.env */
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(warder_ruleset_check_command(&d, rs, rows[i].cmd,
                                                              strlen(rows[i].cmd), &ctx, NULL),
                                 0);
                ck_assert_msg(d.action == rows[i].want, "%s: %s, want %s (%s %s)", rows[i].cmd,
                              warder_action_name(d.action), warder_action_name(rows[i].want),
                              d.candidate ? d.candidate : "", d.note ? d.note : "");
                warder_decision_clear(&d);
        }
        /* a context of version 1 has no `ls`: it is accepted, and its globs are unknown */
        ctx.version = 1;
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat ls*/.e*", 11, &ctx, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        warder_decision_clear(&d);
        /* nor the directory a glob names for cd: what follows is asked, not decided in some
         * guessed directory */
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cd * && cat .env", 16, &ctx, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        warder_decision_clear(&d);
        ctx.version = WARDER_COMMAND_CONTEXT_VERSION + 1;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat x", 5, &ctx, NULL),
                         WARDER_EINVAL);
        warder_backend_free(b);
        warder_ruleset_free(rs);
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * The differential property against the real shells (fuzz/shell-diff.h): generated lines that
 * hide calls of tracing stubs in substitutions, parameter expansions, arithmetic, here-documents,
 * eval, nested shells, functions, aliases and traps run under dash and bash; for every stub that
 * ran, inspection must not allow the line under a ruleset that denies it. WARDER_SHDIFF_LINES
 * sets how many lines (default 400), WARDER_SHDIFF_SEED the first seed.
 */
START_TEST(test_differential_shells)
{
        struct shdiff d;
        ck_assert(shdiff_init(&d));
        if (d.nshells == 0) {
                fprintf(stderr, "differential: neither dash nor bash here; skipped\n");
                shdiff_free(&d);
                return;
        }
        const char *env = getenv("WARDER_SHDIFF_LINES");
        size_t lines = env ? strtoul(env, NULL, 10) : 400;
        env = getenv("WARDER_SHDIFF_SEED");
        uint64_t x = env ? strtoull(env, NULL, 10) : 20250111;
        size_t distinct = 0;
        char prev[2048] = "";
        for (size_t i = 0; i < lines; i++) {
                uint8_t bytes[64];
                for (size_t k = 0; k < sizeof(bytes); k++) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        bytes[k] = (uint8_t)(x >> 24);
                }
                char line[2048], why[2600];
                shdiff_generate(bytes, sizeof(bytes), line, sizeof(line));
                distinct += strcmp(line, prev) != 0;
                strcpy(prev, line);
                ck_assert_msg(shdiff_check(&d, line, why, sizeof(why)), "%s", why);
        }
        fprintf(stderr,
                "differential: %zu lines (%zu distinct in a row) run %zu times under %zu shells; "
                "%zu stub calls seen, inspection denied %zu and asked %zu, allowed none\n",
                d.lines, distinct, d.runs, d.nshells, d.stub_runs, d.denied, d.asked);
        /* the property has teeth only if the shells really ran stubs */
        ck_assert_uint_gt(d.stub_runs, lines / 2);
        shdiff_free(&d);
}
END_TEST

/* docs/execute.md: the table of examples is executed here. */
START_TEST(test_docs_examples)
{
        const char *root = getenv("WARDER_SOURCE_ROOT");
        if (!root)
                return;
        warder_ruleset *rs = load_preset("default");
        NEED(rs);
        char path[4096];
        snprintf(path, sizeof(path), "%s/docs/execute.md", root);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        char line[2048];
        int rows = 0;
        bool in_table = false;
        while (fgets(line, sizeof(line), f)) {
                if (strstr(line, "<!-- examples:begin -->")) {
                        in_table = true;
                        continue;
                }
                if (strstr(line, "<!-- examples:end -->"))
                        break;
                if (!in_table || strncmp(line, "| `", 3) != 0)
                        continue;
                /* | `command` | action | … */
                char *cmd = line + 3;
                char *end = strstr(cmd, "` |");
                ck_assert_ptr_nonnull(end);
                *end = '\0';
                char *act = end + 3;
                while (*act == ' ')
                        act++;
                char *bar = strchr(act, ' ');
                ck_assert_ptr_nonnull(bar);
                *bar = '\0';
                enum warder_action want;
                ck_assert_int_eq(warder_action_parse(act, &want), 0);
                /* `\|` in a markdown cell is a literal bar */
                char unesc[2048];
                size_t o = 0;
                for (const char *c = cmd; *c; c++) {
                        if (c[0] == '\\' && c[1] == '|')
                                c++;
                        unesc[o++] = *c;
                }
                unesc[o] = '\0';
                enum warder_action got = decide(rs, unesc, false, NULL);
                ck_assert_msg(got == want, "docs example `%s`: want %s, got %s", unesc,
                              warder_action_name(want), warder_action_name(got));
                rows++;
        }
        fclose(f);
        ck_assert_int_ge(rows, 10);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- exact answers where a weaker one would be a leak ------------------------------------
 * Each row names the real bug it stands for; the answer is asserted exactly, so a deny
 * weakened to ask fails as surely as an allow. */

static const char precise_yaml[] = "warder: 1\n"
                                   "default: allow\n"
                                   "read:\n"
                                   "  rules:\n"
                                   "    - deny: '-secret.txt'\n"
                                   "    - deny: 'vault/*.key'\n"
                                   "    - deny: vault\n"
                                   "    - deny: 'safe/*.key'\n"
                                   "write:\n"
                                   "  rules:\n"
                                   "    - deny: locked.txt\n"
                                   "execute:\n"
                                   "  default: allow\n"
                                   "  rules:\n"
                                   "    - deny: 'rm *'\n";

/* /ws/link, /ws/l and /ws/.ln -> /ws/vault/pub, /ws/link2 -> /ws/safe/inner (allowed
 * themselves): `..` after a link climbs to /ws/vault (denied, keys too) or /ws/safe (keys
 * denied), not to /ws. */
static int link_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        static const char *const map[][2] = {{"/ws/link2", "/ws/safe/inner"},
                                             {"/ws/link", "/ws/vault/pub"},
                                             {"/ws/l", "/ws/vault/pub"},
                                             {"/ws/.ln", "/ws/vault/pub"}};
        *out = NULL;
        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]) && !*out; i++) {
                size_t n = strlen(map[i][0]);
                if (strncmp(literal, map[i][0], n) == 0 && (literal[n] == '/' || !literal[n])) {
                        char buf[4096];
                        snprintf(buf, sizeof(buf), "%s%s", map[i][1], literal + n);
                        *out = strdup(buf);
                        return *out ? 0 : WARDER_ENOMEM;
                }
        }
        *out = strdup(literal);
        return *out ? 0 : WARDER_ENOMEM;
}

START_TEST(test_precise_answers)
{
        warder_ruleset *rs = load(precise_yaml);
        NEED(rs);
        static const char *const env[] = {"X=rm", "L=ls", NULL};
        static const struct {
                const char *cmd;
                bool realpath;
                enum warder_action want;
        } rows[] = {
            /* sed -i writes its operands (§5.4): a write-denied file it edits is denied */
            {"sed -i s/a/b/ locked.txt", false, WARDER_DENY},
            {"sed --in-place s/a/b/ locked.txt", false, WARDER_DENY},
            {"sed --in-place=.bak s/a/b/ locked.txt", false, WARDER_DENY},
            {"sed -ni p locked.txt", false, WARDER_DENY},
            {"sed -e s/a/b/ -i locked.txt", false, WARDER_DENY},
            {"sed s/a/b/ locked.txt", false, WARDER_ALLOW}, /* control: a read */
            {"sed -n p locked.txt", false, WARDER_ALLOW},
            /* nice [-n N | -N] is stripped (§5.3), whatever the digit */
            {"nice -n 5 rm -rf x", false, WARDER_DENY},
            {"nice -n5 rm -rf x", false, WARDER_DENY},
            {"nice --adjustment=5 rm -rf x", false, WARDER_DENY},
            {"nice -0 rm -rf x", false, WARDER_DENY},
            {"nice -5 rm -rf x", false, WARDER_DENY},
            {"nice -9 rm -rf x", false, WARDER_DENY},
            {"nice -19 rm -rf x", false, WARDER_DENY},
            {"nice -n 5 ls", false, WARDER_ALLOW},
            /* timeout has no -N: an unknown option stops the stripping at ask, never allow */
            {"timeout -9 rm -rf x", false, WARDER_ASK},
            {"timeout -s 9 5 rm -rf x", false, WARDER_DENY},
            {"timeout -k 1 -s KILL 5 rm -rf x", false, WARDER_DENY},
            {"timeout 5 rm -rf x", false, WARDER_DENY},
            /* a declared variable's value is a form too (§5.5) */
            {"$X -rf junk", false, WARDER_DENY},
            {"\"$X\" -rf junk", false, WARDER_DENY},
            {"${X} -rf junk", false, WARDER_DENY},
            {"nice $X -rf junk", false, WARDER_DENY},
            {"$L -la", false, WARDER_ALLOW},
            /* after `--` a word is an operand even when it starts with `-` */
            {"cat -- -secret.txt", false, WARDER_DENY},
            {"cat -n -- -secret.txt", false, WARDER_DENY},
            {"cat ./-secret.txt", false, WARDER_DENY},
            {"cat -- other.txt", false, WARDER_ALLOW},
            /* `..` after a symlink climbs from where the link leads (§5.5) */
            {"cat link/../x.key", true, WARDER_DENY},
            {"cat link/../x.key", false, WARDER_ALLOW}, /* control: lexically /ws/x.key */
            {"cat /ws/link/../x.key", true, WARDER_DENY},
            /* the host's realpath is asked about the normal form of what precedes the `..`:
             * one that knows only normal forms (a lookup table, a cache) answers a `.` or an
             * empty component with the spelling itself, and the climb would start from /ws */
            {"cat ./link/../x.key", true, WARDER_DENY},
            {"cat /ws/./link/../x.key", true, WARDER_DENY},
            {"cat /ws//link/../x.key", true, WARDER_DENY},
            {"cat link/./../x.key", true, WARDER_DENY},
            /* one-letter and dot names are components like any other */
            {"cat l/../x.key", true, WARDER_DENY},
            {"cat .ln/../x.key", true, WARDER_DENY},
            {"cat ./other/../x.key", true, WARDER_ALLOW},
            {"cd link && cat ../x.key", true, WARDER_DENY},
            {"cd link && cat ../x.key", false, WARDER_ALLOW},
            {"cd link && ls ..", true, WARDER_DENY},
            {"cd link && ls ..", false, WARDER_ALLOW},
            {"cd /ws/link/.. && cat x.key", true, WARDER_DENY},
            /* cd into `..` after a link: the physical directory is where later paths start */
            {"cd /ws/link2/.. && cat x.key", true, WARDER_DENY},
            {"cd link2/.. && cat x.key", true, WARDER_DENY},
            {"cd link2/.. && cat x.key", false, WARDER_ALLOW},
            {"cd link2 && cat ../x.key", true, WARDER_DENY},
            {"cat link/a.txt", true, WARDER_ALLOW},
            {"cat other/../x.key", true, WARDER_ALLOW},
            /* long options of the wrappers without a value are stripped too */
            {"env --ignore-environment rm -rf x", false, WARDER_DENY},
            {"timeout --preserve-status 5 rm -rf x", false, WARDER_DENY},
            {"sudo --login rm -rf x", false, WARDER_DENY},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = env;
                if (rows[i].realpath)
                        ctx.realpath = link_realpath;
                struct warder_decision d = WARDER_DECISION_INIT;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_msg(warder_ruleset_check_command(&d, rs, rows[i].cmd, strlen(rows[i].cmd),
                                                           &ctx, &err) == 0,
                              "%s: %s", rows[i].cmd, err.message);
                ck_assert_msg(d.action == rows[i].want, "%s (realpath %d): %s, want %s (%s)",
                              rows[i].cmd, rows[i].realpath, warder_action_name(d.action),
                              warder_action_name(rows[i].want), d.note ? d.note : "");
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* `inner` inside `depth` levels of `sh -c '…'` (its single quotes escaped at each level). */
static char *nest_sh(const char *inner, int depth)
{
        char *cmd = strdup(inner);
        ck_assert_ptr_nonnull(cmd);
        for (int d = 0; d < depth; d++) {
                struct warder__buf b = WARDER__BUF_INIT;
                ck_assert_int_eq(warder__buf_puts(&b, "sh -c '"), 0);
                for (const char *c = cmd; *c; c++)
                        ck_assert_int_eq(*c == '\'' ? warder__buf_puts(&b, "'\\''")
                                                    : warder__buf_putc(&b, *c),
                                         0);
                ck_assert_int_eq(warder__buf_putc(&b, '\''), 0);
                free(cmd);
                cmd = b.data;
        }
        return cmd;
}

/* §5.3: the text a shell runs later or reads from elsewhere. `-s` and a here-string give the
 * script, `-c` only as a letter of a short option; a trap action and an alias value are
 * inspected, as deep as sh -c nests; `source FILE` and `sh FILE` read a script nobody has
 * seen; `trap SIG`, `trap - SIG` and `alias NAME` define nothing. */
START_TEST(test_shell_bodies_exactly)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"bash -s x <<< 'cat .env'", WARDER_DENY},
            {"bash -e <<< 'cat .env'", WARDER_DENY},
            {"bash --norc <<< 'cat .env'", WARDER_DENY},
            {"bash -x script.sh <<< 'echo hi'", WARDER_ASK},
            {"bash -- x", WARDER_ASK},
            {"trap 'cat .env' EXIT", WARDER_DENY},
            {"trap -- 'cat .env' EXIT", WARDER_DENY},
            {"trap INT", WARDER_ALLOW},
            {"trap - INT", WARDER_ALLOW},
            {"alias x='cat .env'", WARDER_DENY},
            {"alias ll", WARDER_ALLOW},
            {"source env.sh", WARDER_ASK},
            {". env.sh", WARDER_ASK},
            {"source", WARDER_ALLOW},
            {"eval echo hi", WARDER_ALLOW},
            {"eval cat .env", WARDER_DENY},
            {"eval 'cat .env' $UNKNOWN", WARDER_ASK},
            {"alias \"$U\"", WARDER_ASK},
            {"nice -n .env cat x", WARDER_DENY}, /* a wrapper's option values are read too */
        };
        EXPECT_ROWS(rs, NULL, rows);
        /* The action is inspected one level below the trap or alias: up to the fourth level
         * of sh -c; below that, too deep to inspect, it asks (test_shell_depth). */
        static const char *const defs[] = {"trap 'cat .env' EXIT", "alias x='cat .env'"};
        for (size_t i = 0; i < 2; i++)
                for (int depth = 1; depth <= 4; depth++) {
                        char *cmd = nest_sh(defs[i], depth);
                        expect_action(rs, cmd, NULL, depth < 4 ? WARDER_DENY : WARDER_ASK);
                        free(cmd);
                }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4: which operands of cp, mv, install and ln are read. Under a write-only drop directory
 * (out/ may be written, not read), a destination is only written: after `-t`, after `--`
 * (where `-t` is a file), and for options that merely contain a `d` or an `m`; `install -d`
 * creates every operand, so each is also decided for read. An option after another option is
 * still one; running a program is not reading it. */
START_TEST(test_destinations_exactly)
{
        static const char drop_yaml[] = "warder: 1\n"
                                        "default: allow\n"
                                        "read:\n"
                                        "  rules:\n"
                                        "    - deny: 'out/**'\n"
                                        "    - deny: secret-tool\n"
                                        "write:\n"
                                        "  default: allow\n"
                                        "  rules:\n"
                                        "    - deny: 'src/**'\n"
                                        "execute:\n"
                                        "  default: allow\n";
        warder_ruleset *rs = load(drop_yaml);
        NEED(rs);
        static const struct cmd_row drop[] = {
            {"install -d a out/x", WARDER_DENY},
            {"install -m 644 notes.txt out/x", WARDER_ALLOW},
            {"install -D a out/x", WARDER_ALLOW},
            {"install -t out a", WARDER_ALLOW},
            {"cp -d notes.txt out/x", WARDER_ALLOW},
            {"cp -- -t notes.txt out/x", WARDER_ALLOW},
            {"mv -- -t a out/x", WARDER_ALLOW},
            {"X=1 secret-tool", WARDER_ALLOW},
            {"cat out/x", WARDER_DENY}, /* controls: the rules do deny these reads */
            {"cp out/x notes.txt", WARDER_DENY},
            {"cat secret-tool", WARDER_DENY},
        };
        EXPECT_ROWS(rs, NULL, drop);
        warder_ruleset_free(rs);
        rs = load(precise_yaml);
        NEED(rs);
        static const struct cmd_row precise[] = {
            {"cat -n -secret.txt", WARDER_ALLOW},
            {"cat -- -secret.txt", WARDER_DENY},
            {"ln -t vault key", WARDER_ALLOW},
            {"ln -s -t vault key", WARDER_ALLOW},
            {"'' rm -rf x", WARDER_ALLOW}, /* runs a command named "" */
            {"rm -rf x", WARDER_DENY},
            {"> out/x", WARDER_ALLOW},
            {"CDPATH=/etc; cd ssh", WARDER_ALLOW},
            {"HOME=/etc; cat ~/passwd", WARDER_ASK},
            {"eval rm -rf x", WARDER_DENY},       /* eval's words joined: `rm -rf x` */
            {"du -s a.key safe/x", WARDER_ALLOW}, /* -s of du, sort: not a symbolic link */
            {"sort -s a.key safe/x", WARDER_ALLOW},
        };
        EXPECT_ROWS(rs, NULL, precise);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.3: a command's forms start after its assignments and after each wrapper, so a rule
 * written with the assignment (`FOO=1 rm *`) meets a command named by its path after it, and
 * a rule written for a wrapper (`sudo *`) meets it after an assignment, whether the wrapper's
 * options are understood or not. */
START_TEST(test_forms_after_assignments)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "execute:\n"
                                  "  default: allow\n"
                                  "  rules:\n"
                                  "    - deny: 'FOO=1 rm *'\n"
                                  "    - deny: 'nice *'\n"
                                  "    - deny: 'sudo *'\n");
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"FOO=1 /bin/rm -rf x", WARDER_DENY},
            {"FOO=1 rm -rf x", WARDER_DENY},
            {"/bin/rm -rf x", WARDER_ALLOW}, /* control: the rule wants the assignment */
            {"X=1 nice --bogus rm -rf x", WARDER_DENY},
            {"X=1 nice -n 5 rm -rf x", WARDER_DENY},
            {"X=1 ionice rm -rf x", WARDER_ALLOW}, /* control: another wrapper */
            {"X=1 sudo -u root id", WARDER_DENY},  /* an assignment does not hide the wrapper */
            {"env X=1 sudo id", WARDER_DENY},      /* nor does one that env sets */
            {"sudo id", WARDER_DENY},
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.6: a cd that may have failed leaves every directory the shell may be in; a later
 * relative cd is taken from each of them. */
START_TEST(test_cd_from_each_directory)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - deny: d/x\n"
                                  "execute:\n"
                                  "  default: allow\n");
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"cd sub; cd d && cat x", WARDER_DENY},         /* /ws/d/x if cd sub failed */
            {"cd sub || true; cd d && cat x", WARDER_DENY}, /* likewise */
            {"cd sub && cd d && cat x", WARDER_ALLOW},      /* control: only /ws/sub/d/x */
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
        /* a subshell starts where its parent is, however deep */
        rs = load("warder: 1\n"
                  "default: allow\n"
                  "read:\n"
                  "  rules:\n"
                  "    - deny: sub/d/x\n"
                  "execute:\n"
                  "  default: allow\n");
        NEED(rs);
        static const struct cmd_row nested[] = {
            {"(cd sub && (cd d && (cat x)))", WARDER_DENY},
            {"(cd sub && (cd d && (cat y)))", WARDER_ALLOW}, /* control */
        };
        EXPECT_ROWS(rs, NULL, nested);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.4.1 without a listing: an argument of a recursive command counts as a directory. An
 * `ask` rule beneath it asks as written; a `deny` rule beneath it is lowered to ask, because
 * whether the argument is a directory cannot be seen, and the decision says so. */
START_TEST(test_subtree_without_listing)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "write:\n"
                                  "  rules:\n"
                                  "    - ask: 'build/*.o'\n"
                                  "    - deny: 'vault/*.key'\n"
                                  "execute:\n"
                                  "  default: allow\n");
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "rm -rf build", 12, NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert(!d.undeterminable);
        ck_assert_msg(d.note && strstr(d.note, "beneath this directory"), "%s",
                      d.note ? d.note : "(no note)");
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "rm -rf vault", 12, NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert(d.undeterminable);
        ck_assert_msg(d.note && strstr(d.note, "cannot be seen here"), "%s",
                      d.note ? d.note : "(no note)");
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.7: at most 64 forms of one simple command (§5.3): the written form and one after each
 * assignment run and each wrapper. One more makes the command ask. */
START_TEST(test_forms_limit)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct {
                const char *prefix;
                int count;
                enum warder_action want;
        } rows[] = {
            {"nice ", 63, WARDER_ALLOW},     /* 64 forms */
            {"nice ", 64, WARDER_ASK},       /* 65 */
            {"A=1 nice ", 31, WARDER_ALLOW}, /* 63 */
            {"A=1 nice ", 32, WARDER_ASK},   /* 65 */
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder__buf b = WARDER__BUF_INIT;
                for (int k = 0; k < rows[i].count; k++)
                        ck_assert_int_eq(warder__buf_puts(&b, rows[i].prefix), 0);
                ck_assert_int_eq(warder__buf_puts(&b, "true"), 0);
                expect_action(rs, b.data, NULL, rows[i].want);
                warder__buf_free(&b);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* Every argument is checked before anything is decided: a NULL ruleset, command or output, a
 * decision of another version, a relative current directory are WARDER_EINVAL. A relative
 * HOME in the context is not where `~` leads: the ruleset's home is. */
START_TEST(test_context_checked)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - deny: /home/u/secret\n"
                                  "execute:\n"
                                  "  default: allow\n");
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, NULL, "ls", 2, NULL, NULL),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, NULL, 2, NULL, NULL), WARDER_EINVAL);
        ck_assert_int_eq(warder_ruleset_check_command(NULL, rs, "ls", 2, NULL, NULL),
                         WARDER_EINVAL);
        d.version = WARDER_DECISION_VERSION + 1;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "ls", 2, NULL, NULL), WARDER_EINVAL);
        d.version = WARDER_DECISION_VERSION;
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.cwd = "ws/sub";
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "ls", 2, &ctx, NULL), WARDER_EINVAL);
        ctx.cwd = "/ws/sub";
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "ls", 2, &ctx, NULL), 0);
        warder_decision_clear(&d);
        static const char *const relative[] = {"HOME=home/u2", NULL};
        static const char *const other[] = {"HOME=/home/v", NULL};
        ctx.env = relative;
        expect_action(rs, "cat ~/secret", &ctx, WARDER_DENY);
        ctx.env = other; /* control: an absolute HOME is where `~` leads */
        expect_action(rs, "cat ~/secret", &ctx, WARDER_ALLOW);
        warder_ruleset_free(rs);
}
END_TEST

/* A segment of redirections only runs no command: the execute default does not decide it,
 * its target does, and names it; a line of a comment only is the default's. A target or an
 * argument that cannot be determined says so. */
START_TEST(test_redirections_only)
{
        warder_ruleset *rs = load("warder: 1\ndefault: allow\nexecute:\n  default: ask\n");
        NEED(rs);
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "> notes.txt", 11, NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ALLOW);
        ck_assert_str_eq(d.segment, "notes.txt");
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat x", 5, NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK); /* control: a command meets the default */
        warder_decision_clear(&d);
        /* a comment runs nothing either, but names no target: the default decides */
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "# only a comment", 16, NULL, NULL),
                         0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert(d.by_default);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
        rs = load(rules_yaml);
        NEED(rs);
        static const char cmd[] = "cat > \"$U\"";
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, cmd, strlen(cmd), NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert_ptr_nonnull(d.note);
        ck_assert_msg(strstr(d.note, "a redirection target that cannot be determined"), "%s",
                      d.note);
        warder_decision_clear(&d);
        static const char arg[] = "cat \"$U\""; /* an argument says so too */
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, arg, strlen(arg), NULL, NULL), 0);
        ck_assert_int_eq(d.action, WARDER_ASK);
        ck_assert_ptr_nonnull(d.note);
        ck_assert_msg(strstr(d.note, "an argument that cannot be determined"), "%s", d.note);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5: a declared variable is expanded unless the line may give it another value; only a
 * whole-word occurrence of its name (not a longer name containing it) is such a rebinding.
 * And of two equally strict answers the first one is the one named. */
/* Every kind of wrapper option (§5.3) is skipped exactly: one word too few leaves the wrapper's
 * operand as the command's name, one too many takes the command's own name away, and either
 * way `rm -rf x` would meet no rule. An option that is not understood stops at ask. */
START_TEST(test_wrapper_options)
{
        warder_ruleset *rs = load(precise_yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            /* env: lone `-` words, flags, an option with a value, glued or not */
            {"env - rm -rf x", WARDER_DENY},
            {"env - - rm -rf x", WARDER_DENY},
            {"env -i rm -rf x", WARDER_DENY},
            {"env -i0 rm -rf x", WARDER_DENY},
            {"env -u HOME rm -rf x", WARDER_DENY},
            {"env -uHOME rm -rf x", WARDER_DENY},
            {"env -iu HOME rm -rf x", WARDER_DENY},
            {"env --unset=HOME rm -rf x", WARDER_DENY},
            {"env --unset HOME rm -rf x", WARDER_DENY},
            {"env --null rm -rf x", WARDER_DENY},
            {"env -- rm -rf x", WARDER_DENY},
            {"env -x rm -rf x", WARDER_ASK},          /* not an env flag */
            {"env --unse=HOME rm -rf x", WARDER_ASK}, /* a prefix of a long option */
            {"env --unsetx=HOME rm -rf x", WARDER_ASK},
            {"env --null=1 rm -rf x", WARDER_ASK}, /* a flag takes no value */
            {"env --nul rm -rf x", WARDER_ASK},
            /* command: -v and -V describe, run nothing; -p is a flag */
            {"command -v rm -rf x", WARDER_ALLOW},
            {"command -V rm -rf x", WARDER_ALLOW},
            {"command -p rm -rf x", WARDER_DENY},
            {"command rm -rf x", WARDER_DENY},
            {"command -p -v rm -rf x", WARDER_ASK}, /* -v after another option: not understood */
            /* builtin, nohup and xargs take no option */
            {"builtin -p rm -rf x", WARDER_ASK},
            {"nohup -- rm -rf x", WARDER_DENY},
            /* exec -a NAME */
            {"exec -a name rm -rf x", WARDER_DENY},
            {"exec -aname rm -rf x", WARDER_DENY},
            {"exec -c rm -rf x", WARDER_ASK},
            /* nice: -n N, -nN, -N; no other letter */
            {"nice -n 5 rm -rf x", WARDER_DENY},
            {"nice -n -5 rm -rf x", WARDER_DENY},
            {"nice --adjustment 5 rm -rf x", WARDER_DENY},
            {"nice -x rm -rf x", WARDER_ASK},
            {"nice -/ rm -rf x", WARDER_ASK},
            {"nice -: rm -rf x", WARDER_ASK},
            /* timeout: flags, -s/-k with a value, then one DURATION operand */
            {"timeout -v 5 rm -rf x", WARDER_DENY},
            {"timeout -vs KILL 5 rm -rf x", WARDER_DENY},
            {"timeout -sKILL 5 rm -rf x", WARDER_DENY},
            {"timeout --signal=KILL 5 rm -rf x", WARDER_DENY},
            {"timeout --signal KILL 5 rm -rf x", WARDER_DENY},
            {"timeout --kill-after=1 --foreground 5 rm -rf x", WARDER_DENY},
            {"timeout 5", WARDER_ALLOW}, /* nothing wrapped */
            {"timeout", WARDER_ALLOW},
            {"xargs", WARDER_ALLOW}, /* wraps nothing: runs echo, reads no file */
            {"xargs rm -rf x", WARDER_DENY},
            {"timeout -- 5 rm -rf x", WARDER_DENY},
            /* time -p, stdbuf -oL */
            {"time -p rm -rf x", WARDER_DENY},
            {"stdbuf -oL rm -rf x", WARDER_DENY},
            {"stdbuf -o L rm -rf x", WARDER_DENY},
            {"stdbuf --output=L rm -rf x", WARDER_DENY},
            {"stdbuf -p rm -rf x", WARDER_ASK},
            /* sudo and doas */
            {"sudo rm -rf x", WARDER_DENY},
            {"sudo -u root rm -rf x", WARDER_DENY},
            {"sudo -uroot rm -rf x", WARDER_DENY},
            {"sudo -nu root rm -rf x", WARDER_DENY},
            {"sudo -E -H rm -rf x", WARDER_DENY},
            {"sudo --user=root rm -rf x", WARDER_DENY},
            {"sudo --user root rm -rf x", WARDER_DENY},
            {"sudo --non-interactive rm -rf x", WARDER_DENY},
            {"sudo -- rm -rf x", WARDER_DENY},
            {"sudo -Z rm -rf x", WARDER_ASK},
            {"sudo --login=x rm -rf x", WARDER_ASK},
            {"doas -u root rm -rf x", WARDER_DENY},
            {"doas -n rm -rf x", WARDER_ASK},
            /* wrappers by path, and nested */
            {"/usr/bin/env -i rm -rf x", WARDER_DENY},
            {"sudo -u root nice -n 5 env -i timeout 5 rm -rf x", WARDER_DENY},
            /* names near a wrapper's are commands */
            {"envx -i rm -rf x", WARDER_ALLOW},
            {"sudoedit rm -rf x", WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                expect_action(rs, rows[i].cmd, NULL, rows[i].want);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* A made-up tree for the inspector's own pathname expansion (§5.5), sized at its budgets:
 * /ws/nK holds K files (n1024's last one is `secret`), /ws/dK holds K directories that
 * each hold `x`, /ws/eK holds K files none of which starts with `z`; /ws/f.txt is a file.
 * Its realpath lies for /ws/rel (a relative answer) and /ws/none (success, no answer). */
static int budget_ls(void *ud, const char *dir, char ***out, size_t *count)
{
        (void)ud;
        static const char *const top[] = {"n1024/",   "n1025/", "d511/", "d512/", "e100000/",
                                          "e100001/", "f.txt",  "rel/",  "none/"};
        const char *leaf = strncmp(dir, "/ws/", 4) == 0 ? dir + 4 : NULL;
        const char *slash = leaf ? strchr(leaf, '/') : NULL;
        size_t n = 0;
        char kind = 0;
        if (strcmp(dir, "/ws") == 0)
                n = sizeof(top) / sizeof(top[0]);
        else if (leaf && strcmp(leaf, "f.txt") == 0)
                return WARDER_ENOTDIR;
        else if (leaf && (strcmp(leaf, "rel") == 0 || strcmp(leaf, "none") == 0))
                n = 1, kind = 'x';
        else if (leaf && slash && leaf[0] == 'd' && strchr(slash + 1, '/') == NULL)
                n = 1, kind = 'x'; /* /ws/dK/dNNN */
        else if (leaf && !slash && strchr("nde", leaf[0]) && leaf[1] >= '0' && leaf[1] <= '9')
                n = strtoul(leaf + 1, NULL, 10), kind = leaf[0];
        else
                return WARDER_ENOENT;
        char **v = calloc(n ? n : 1, sizeof(*v));
        for (size_t i = 0; i < n; i++) {
                char name[32];
                if (!kind)
                        snprintf(name, sizeof(name), "%s", top[i]);
                else if (kind == 'x')
                        snprintf(name, sizeof(name), "x");
                else if (kind == 'n' && i + 1 == n && n == 1024)
                        snprintf(name, sizeof(name), "secret");
                else
                        snprintf(name, sizeof(name), kind == 'd' ? "d%06zu/" : "f%06zu", i);
                v[i] = strdup(name);
        }
        *out = v;
        *count = n;
        return 0;
}

static int budget_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        *out = NULL;
        if (strncmp(literal, "/ws/none", 8) == 0)
                return 0;
        *out = strdup(strncmp(literal, "/ws/rel", 7) == 0 ? "ws/rel" : literal);
        return *out ? 0 : WARDER_ENOMEM;
}

/* The budgets of pathname expansion (§5.5: 1,024 results, 512 directory listings and 100,000
 * entries per command line) hold to the unit: at the budget every name is decided, one past
 * it the expansion is incomplete and the command asks. A directory that cannot be listed the
 * way the kernel would find it asks too; one that does not exist, or a file, matches nothing. */
START_TEST(test_glob_budgets)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - deny: '**/secret'\n");
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cat n1024/*", WARDER_DENY}, /* 1,024 results: the last is decided */
            {"cat n1025/*", WARDER_ASK},  /* one more than the budget */
            {"cat n1024/s*", WARDER_DENY},
            {"cat d511/*/*", WARDER_ALLOW},   /* 1 + 511 listings */
            {"cat d512/*/*", WARDER_ASK},     /* 1 + 512 */
            {"cat d511/*/x", WARDER_ALLOW},   /* one listing */
            {"cat e100000/z*", WARDER_ALLOW}, /* 100,000 entries read */
            {"cat e100001/z*", WARDER_ASK},   /* 100,001 */
            {"cat f.txt/*", WARDER_ALLOW},    /* a file: no match */
            {"cat missing/*", WARDER_ALLOW},  /* no such directory: no match */
            {"cat rel/*", WARDER_ASK},        /* the real form is not absolute */
            {"cat none/*", WARDER_ASK},       /* no real form */
            {"cat n1024/../n1024/*", WARDER_DENY},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.ls = budget_ls;
                ctx.realpath = budget_realpath;
                struct warder_decision d = WARDER_DECISION_INIT;
                struct warder_error err = WARDER_ERROR_INIT;
                ck_assert_msg(warder_ruleset_check_command(&d, rs, rows[i].cmd, strlen(rows[i].cmd),
                                                           &ctx, &err) == 0,
                              "%s: %s", rows[i].cmd, err.message);
                ck_assert_msg(d.action == rows[i].want, "%s: %s, want %s (%s %s)", rows[i].cmd,
                              warder_action_name(d.action), warder_action_name(rows[i].want),
                              d.candidate ? d.candidate : "", d.note ? d.note : "");
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

START_TEST(test_variable_names)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const char *const env[] = {"SAFE=src", "CDPATHX=/etc", "HOME//etc", NULL};
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cat $SAFE/main.c", WARDER_ALLOW},
            /* longer names that contain SAFE rebind nothing, whatever borders them */
            {"echo SAFEa SAFEz SAFEA SAFEZ SAFE0 SAFE9 SAFE_; cat $SAFE/main.c", WARDER_ALLOW},
            {"echo aSAFE zSAFE ASAFE ZSAFE 0SAFE 9SAFE _SAFE; cat $SAFE/main.c", WARDER_ALLOW},
            {"echo ${SAFE}; cat $SAFE/main.c", WARDER_ALLOW},
            /* the name itself, assigned: unknown from there on */
            {"SAFE=x; cat $SAFE/main.c", WARDER_ASK},
            {"echo x; export SAFE; cat $SAFE/main.c", WARDER_ASK},
            {"read SAFE; cat $SAFE/main.c", WARDER_ASK},
            /* inside ${…} only a default that assigns rebinds it: ${SAFE=x}, ${SAFE:=x}; a
             * default that does not (${SAFE:-x}), or a '=' after the closing brace, leaves the
             * declared value */
            {"echo ${SAFE=x}; cat $SAFE/main.c", WARDER_ASK},
            {"echo ${SAFE:=x}; cat $SAFE/main.c", WARDER_ASK},
            {"echo ${SAFE:-x}; cat $SAFE/main.c", WARDER_ALLOW},
            {"echo ${SAFE}=x; cat $SAFE/main.c", WARDER_ALLOW},
            /* a declared CDPATHX is not CDPATH: cd into a relative directory stays known */
            {"cd src && cat main.c", WARDER_ALLOW},
            /* "HOME//etc" declares no HOME: ~ is the ruleset's home */
            {"cat ~/notes.txt", WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = env;
                expect_action(rs, rows[i].cmd, &ctx, rows[i].want);
        }
        /* the first of equally strict answers names the decision */
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(decide(rs, "cat .env; cat sub/.env; cat /etc/passwd", false, &d),
                         WARDER_DENY);
        ck_assert_str_eq(d.candidate, "/ws/.env");
        ck_assert_str_eq(d.segment, "cat .env");
        warder_decision_clear(&d);
        ck_assert_int_eq(decide(rs, "cat $NOPE; cat `x`", false, &d), WARDER_ASK);
        ck_assert_str_eq(d.segment, "cat $NOPE");
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* ---- the edges of what inspection reads -------------------------------------------------
 * Character classes at their boundaries (names, options), wrappers, limits at their exact
 * size, and a host's realpath and glob failing: each row is the exact answer. */

/* realpath: /ws/bad cannot be resolved, /ws/blank resolves to "" (a host's bug), the rest
 * are their own real form. */
static int edge_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        if (strncmp(literal, "/ws/bad", 7) == 0 && (!literal[7] || literal[7] == '/'))
                return WARDER_EIO;
        *out = strdup(strcmp(literal, "/ws/blank") == 0 ? "" : literal);
        return *out ? 0 : WARDER_ENOMEM;
}

/* glob: patterns with "fail" fail; "/ws/many*" gives 1024 names, "/ws/toomany*" 1025,
 * "/ws/n<N>*" N; the rest match nothing (so only the pattern's text is decided). */
static int edge_glob(void *ud, const char *pattern, char ***out, size_t *count)
{
        (void)ud;
        if (strstr(pattern, "fail"))
                return WARDER_EIO;
        size_t n = strncmp(pattern, "/ws/many", 8) == 0       ? 1024
                   : strncmp(pattern, "/ws/toomany", 11) == 0 ? 1025
                   : strncmp(pattern, "/ws/n", 5) == 0        ? strtoul(pattern + 5, NULL, 10)
                                                              : 0;
        char **v = calloc(n + 1, sizeof(*v));
        for (size_t i = 0; i < n; i++) {
                v[i] = malloc(32);
                snprintf(v[i], 32, "/ws/f%zu", i);
        }
        *out = v;
        *count = n;
        return 0;
}

START_TEST(test_edges)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "read:\n"
                                  "  rules:\n"
                                  "    - deny: '**/.env'\n"
                                  "    - deny: '/etc/**'\n"
                                  "    - deny: '-'\n"
                                  "    - deny: root\n"
                                  "execute:\n"
                                  "  rules:\n"
                                  "    - deny: 'rm *'\n");
        NEED(rs);
        static const char *const env[] = {"V=x .env", "SAFE=src", NULL};
        static const struct {
                const char *cmd;
                bool ctx_fs; /* the edge realpath and glob */
                enum warder_action want;
        } rows[] = {
            /* NAME=value: an assignment whose value is a candidate, whatever the name's edge
             * characters; a name that is not one makes the word a command name */
            {"a=/etc/passwd true", false, WARDER_DENY},
            {"z=/etc/passwd true", false, WARDER_DENY},
            {"A=/etc/passwd true", false, WARDER_DENY},
            {"Z=/etc/passwd true", false, WARDER_DENY},
            {"_=/etc/passwd true", false, WARDER_DENY},
            {"xa=/etc/passwd true", false, WARDER_DENY},
            {"xz=/etc/passwd true", false, WARDER_DENY},
            {"xA=/etc/passwd true", false, WARDER_DENY},
            {"xZ=/etc/passwd true", false, WARDER_DENY},
            {"x0=/etc/passwd true", false, WARDER_DENY},
            {"x9=/etc/passwd true", false, WARDER_DENY},
            {"x_=/etc/passwd true", false, WARDER_DENY},
            {"0x=/etc/passwd true", false, WARDER_ALLOW}, /* not a name: runs "0x=/etc/passwd" */
            {"x-y=/etc/passwd true", false, WARDER_ALLOW},
            {"x\"=\"/etc/passwd true", false, WARDER_ALLOW}, /* a quoted = is no assignment */
            {"'x'=/etc/passwd true", false, WARDER_ALLOW},
            /* glued option values after a run of option letters and digits */
            {"tool -a/etc/passwd", false, WARDER_DENY},
            {"tool -z/etc/passwd", false, WARDER_DENY},
            {"tool -A/etc/passwd", false, WARDER_DENY},
            {"tool -Z/etc/passwd", false, WARDER_DENY},
            {"tool -0/etc/passwd", false, WARDER_DENY},
            {"tool -9/etc/passwd", false, WARDER_DENY},
            {"tool -xzf/etc/passwd", false, WARDER_DENY},
            {"tool -o=/etc/passwd", false, WARDER_DENY},
            {"tool -_/etc/passwd", false, WARDER_ALLOW}, /* '_' ends the letters */
            {"cat -", false, WARDER_DENY},               /* a lone '-' is an operand */
            /* wrappers, also without anything to wrap */
            {"nohup rm -rf x", false, WARDER_DENY},
            {"builtin rm -rf x", false, WARDER_DENY},
            {"sudo -u root", false, WARDER_DENY}, /* sudo runs nothing: its words are operands */
            /* a declared value with blanks splits unquoted (unknown), not quoted */
            {"cat $V", false, WARDER_ASK},
            {"cat \"$V\"", false, WARDER_ALLOW},
            /* names hidden by quotes rebind the variable too */
            {"read SA''FE; cat $SAFE/x", false, WARDER_ASK},
            {"export SA\"\"FE=x; cat $SAFE/x", false, WARDER_ASK},
            {"CDPATH=/x; cd src && cat main.c", false, WARDER_ASK},
            {"cd src && cat main.c", false, WARDER_ALLOW},
            /* /proc/<pid>/root and /cwd name other paths */
            {"cat /proc/self/root/x", false, WARDER_ASK},
            {"cat /proc/1/cwd/x", false, WARDER_ASK},
            {"cat /proc/self/root", false, WARDER_ASK},
            {"cat /proc/self/rootx/y", false, WARDER_ALLOW},
            {"cat /proc/self/cw/y", false, WARDER_ALLOW},
            {"cat /proc/self", false, WARDER_ALLOW},
            /* a glob without a way to expand it is unknown, however short */
            {"cat *", false, WARDER_ASK},
            {"cat ?", false, WARDER_ASK},
            /* what the host's realpath and glob answer */
            {"cat bad/x", true, WARDER_ASK},    /* cannot be resolved */
            {"cat bad/../x", true, WARDER_ASK}, /* `..` after what cannot be resolved */
            {"cat blank", true, WARDER_ASK},    /* an empty real form cannot be decided */
            {"cat /..", true, WARDER_ALLOW},    /* `..` above / is / */
            {"cat ok/../x", true, WARDER_ALLOW},
            {"cat fail*", true, WARDER_ASK},    /* the expansion failed */
            {"cat many*", true, WARDER_ALLOW},  /* 1024 results: all decided */
            {"cat toomany*", true, WARDER_ASK}, /* 1025: too many */
            {"cat /dev/null /dev/fd/0 /dev/fd/9 /dev/stdin", true, WARDER_ALLOW},
            {"cat /dev/fd/", true, WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = env;
                if (rows[i].ctx_fs) {
                        ctx.realpath = edge_realpath;
                        ctx.glob = edge_glob;
                }
                expect_action(rs, rows[i].cmd, &ctx, rows[i].want);
        }
        /* the budget of 4096 path decisions per line (each glob: its text and its results):
         * exactly 4096 are decided, one more is unknown, and that is said once */
        static const char *const budget[] = {"cat n1023* n1023* n1023* n1023*",
                                             "cat n1023* n1023* n1023* n1024*",
                                             "cat n1023* n1023* n1023* n1024* n1000* n1000*"};
        for (int k = 0; k < 3; k++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.glob = edge_glob;
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(
                    warder_ruleset_check_command(&d, rs, budget[k], strlen(budget[k]), &ctx, NULL),
                    0);
                ck_assert_msg(d.action == (k ? WARDER_ASK : WARDER_ALLOW), "%s: %s", budget[k],
                              warder_action_name(d.action));
                if (k)
                        ck_assert_str_eq(d.note, "too many paths to decide in one command");
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* ---- pathname expansion on its own (§5.5) --------------------------------------------------
 * warder__expand_glob and warder__expand_physical against an in-memory file system: /w/l is a
 * link to /w/b, /w/d one to /w/a/in; /e/lsnomem and /e/lsio cannot be listed (out of memory, an
 * I/O error); the real forms of /p/io, /p/nomem, /p/null, /p/blank and /p/rel fail or are no
 * absolute path. Every row is the exact answer: results in order, rc, incomplete. */

static int xp_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        static const struct {
                const char *path;
                int rc;
                const char *real;
        } fixed[] = {
            {"/p/io", WARDER_EIO, NULL}, {"/p/nomem", WARDER_ENOMEM, NULL},
            {"/p/null", 0, NULL},        {"/p/blank", 0, ""},
            {"/p/rel", 0, "rel"},
        };
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
                if (strcmp(literal, fixed[i].path) == 0) {
                        *out = fixed[i].real ? strdup(fixed[i].real) : NULL;
                        return fixed[i].rc;
                }
        char buf[256];
        if (strncmp(literal, "/w/l", 4) == 0 && (!literal[4] || literal[4] == '/'))
                snprintf(buf, sizeof(buf), "/w/b%s", literal + 4);
        else if (strncmp(literal, "/w/d", 4) == 0 && (!literal[4] || literal[4] == '/'))
                snprintf(buf, sizeof(buf), "/w/a/in%s", literal + 4);
        else
                snprintf(buf, sizeof(buf), "%s", literal);
        *out = strdup(buf);
        return 0;
}

static int xp_ls(void *ud, const char *dir, char ***names, size_t *count)
{
        (void)ud;
        static const struct {
                const char *dir;
                int rc;
                const char *names[6];
        } dirs[] = {
            {"/", 0, {"w/", "e/"}},
            {"/w", 0, {"a/", "b/", "f", ".h", "l/"}},
            {"/w/a", 0, {"e1", "e2"}},
            {"/w/b", 0, {"e3"}},
            {"/w/f", WARDER_ENOTDIR, {NULL}},
            {"/e", 0, {"lsnomem/", "lsio/"}},
            {"/e/lsnomem", WARDER_ENOMEM, {NULL}},
            {"/e/lsio", WARDER_EIO, {NULL}},
        };
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                if (strcmp(dir, dirs[i].dir) != 0)
                        continue;
                if (dirs[i].rc)
                        return dirs[i].rc;
                size_t n = 0;
                while (n < 6 && dirs[i].names[n])
                        n++;
                char **v = calloc(n + 1, sizeof(*v));
                for (size_t k = 0; v && k < n; k++)
                        v[k] = strdup(dirs[i].names[k]);
                *names = v;
                *count = n;
                return v ? 0 : WARDER_ENOMEM;
        }
        return WARDER_ENOENT;
}

START_TEST(test_expand)
{
        static const struct {
                const char *pat;
                size_t len;         /* 0: strlen(pat); less: the rest must not be read */
                const char *quoted; /* 'q' where the byte was quoted */
                size_t max_lists, max_entries, max_results; /* 0: 100 */
                bool no_realpath;
                int rc;
                const char *want; /* the results, one space between */
                bool incomplete;
                size_t lists; /* directories listed (0: not checked) */
        } rows[] = {
            /* each match, in the listing's order; through the link l -> b */
            {"/w/a/*", 0, NULL, 0, 0, 0, false, 0, "/w/a/e1 /w/a/e2", false, 1},
            {"/w/*/*", 0, NULL, 0, 0, 0, false, 0, "/w/a/e1 /w/a/e2 /w/b/e3 /w/l/e3", false, 4},
            {"/w/*", 0, NULL, 0, 0, 0, true, 0, "/w/a /w/b /w/f /w/l", false, 1},
            /* a component that starts with '.' meets '.' and '..' too */
            {"/w/.*", 0, NULL, 0, 0, 0, false, 0, "/w/. /w/.. /w/.h", false, 1},
            /* the pattern is `len` bytes: what follows is not part of it */
            {"/w/zz*", 5, NULL, 0, 0, 0, false, 0, "/w/zz", false, 0},
            {"/w/[zz]", 6, NULL, 0, 0, 0, false, 0, "/w/[zz", false, 0},
            /* a '[' without an unquoted ']' after it is no pattern: the name is kept as is */
            {"/w/[zz", 0, NULL, 0, 0, 0, false, 0, "/w/[zz", false, 0},
            {"/w/[a]", 0, "     q", 0, 0, 0, false, 0, "/w/[a]", false, 0},
            {"/w/[a]", 0, NULL, 0, 0, 0, false, 0, "/w/a", false, 1},
            /* a missing directory matches nothing; one that cannot be listed is incomplete */
            {"/w/missing/.*", 0, NULL, 0, 0, 0, false, 0, "", false, 1},
            {"/w/f/.*", 0, NULL, 0, 0, 0, false, 0, "", false, 1},
            {"/e/lsio/.*", 0, NULL, 0, 0, 0, false, 0, "", true, 1},
            /* out of memory in the host's ls is an error, however deep */
            {"/e/lsnomem/*", 0, NULL, 0, 0, 0, false, WARDER_ENOMEM, "", false, 0},
            {"/e/*/*", 0, NULL, 0, 0, 0, false, WARDER_ENOMEM, "", false, 0},
            /* budgets: no listing at all; too many entries (what follows is still walked);
             * the results full (nothing more is listed) */
            {"/w/.*", 0, NULL, (size_t)-1, 0, 0, false, 0, "", true, 0},
            {"/w/.*/f", 0, NULL, 0, 1, 0, false, 0, "/w/./f /w/../f", true, 1},
            {"/w/.*/*", 0, NULL, 0, 0, 1, false, 0, "/w/./a", true, 2},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder__expand_io io = {
                    .realpath = rows[i].no_realpath ? NULL : xp_realpath,
                    .ls = xp_ls,
                    .max_lists = rows[i].max_lists == (size_t)-1 ? 0
                                 : rows[i].max_lists             ? rows[i].max_lists
                                                                 : 100,
                    .max_entries = rows[i].max_entries ? rows[i].max_entries : 100,
                    .max_results = rows[i].max_results ? rows[i].max_results : 100,
                };
                size_t len = rows[i].len ? rows[i].len : strlen(rows[i].pat);
                unsigned char unq[64];
                for (size_t k = 0; k < sizeof(unq); k++)
                        unq[k] = !(rows[i].quoted && k < strlen(rows[i].quoted) &&
                                   rows[i].quoted[k] == 'q');
                char **v = NULL;
                size_t count = 0;
                bool incomplete = false;
                int rc = warder__expand_glob(&io, rows[i].pat, unq, len, &v, &count, &incomplete);
                char got[512] = "";
                for (size_t k = 0; k < count; k++)
                        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? " " : "",
                                 v[k]);
                warder__expand_free(v, count);
                ck_assert_msg(rc == rows[i].rc, "%s: rc %d, want %d", rows[i].pat, rc, rows[i].rc);
                if (rc)
                        continue;
                ck_assert_msg(strcmp(got, rows[i].want) == 0, "%s: '%s', want '%s'", rows[i].pat,
                              got, rows[i].want);
                ck_assert_msg(incomplete == rows[i].incomplete, "%s: incomplete %d", rows[i].pat,
                              incomplete);
                if (rows[i].lists)
                        ck_assert_msg(io.lists == rows[i].lists, "%s: %zu lists, want %zu",
                                      rows[i].pat, io.lists, rows[i].lists);
        }

        /* misuse: no ls, a relative pattern, an empty one */
        struct warder__expand_io io = {
            .realpath = xp_realpath, .max_lists = 9, .max_entries = 9, .max_results = 9};
        static const unsigned char ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        char **v = NULL;
        size_t count = 0;
        bool incomplete = false;
        ck_assert_int_eq(warder__expand_glob(&io, "/w/*", ones, 4, &v, &count, &incomplete),
                         WARDER_EINVAL);
        io.ls = xp_ls;
        ck_assert_int_eq(warder__expand_glob(&io, "w/*", ones, 3, &v, &count, &incomplete),
                         WARDER_EINVAL);
        ck_assert_int_eq(warder__expand_glob(&io, "/w/*", ones, 0, &v, &count, &incomplete),
                         WARDER_EINVAL);
        ck_assert_uint_eq(count, 0);

        /* the physical form: a `..` climbs from the real form of what precedes it, and a real
         * form that fails, or is no absolute path, fails the whole (with its own code) */
        static const struct {
                const char *path;
                int rc;
                const char *want;
        } phys[] = {
            {"/w/d/../x", 0, "/w/a/x"},
            {"/w//./d/.././x/", 0, "/w/a/x"},
            {"/..", 0, "/"},
            {"/p/io/../x", WARDER_EIO, NULL},
            {"/p/nomem/../x", WARDER_ENOMEM, NULL},
            {"/p/null/../x", WARDER_EBACKEND, NULL},
            {"/p/blank/../x", WARDER_EBACKEND, NULL},
            {"/p/rel/../x", WARDER_EBACKEND, NULL},
        };
        for (size_t i = 0; i < sizeof(phys) / sizeof(phys[0]); i++) {
                struct warder__buf out = WARDER__BUF_INIT;
                int rc = warder__expand_physical(&io, phys[i].path, strlen(phys[i].path), &out);
                ck_assert_msg(rc == phys[i].rc, "%s: rc %d, want %d", phys[i].path, rc, phys[i].rc);
                if (!rc)
                        ck_assert_str_eq(out.data, phys[i].want);
                warder__buf_free(&out);
        }
}
END_TEST

/* ---- what a line redefines (§5.4.2, §5.5) -------------------------------------------------
 * A name that redefines a data-only builtin makes `echo .env` read .env; a name that changes
 * how globs expand makes `cat *` unknown. Each only where it is really set: not after `$`, not
 * inside `${…}` unless that assigns, not inside a longer name. */

static int ws_ls(void *ud, const char *dir, char ***names, size_t *count)
{
        (void)ud;
        if (strcmp(dir, "/ws") != 0)
                return WARDER_ENOENT;
        char **v = calloc(3, sizeof(*v));
        if (!v)
                return WARDER_ENOMEM;
        v[0] = strdup("src/");
        v[1] = strdup("README.md");
        *names = v;
        *count = 2;
        return 0;
}

START_TEST(test_redefinitions)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            /* the controls: nothing redefined */
            {"echo .env", WARDER_ALLOW},
            {"cat *", WARDER_ALLOW},
            /* a function named `:` or after a data-only builtin, blanks before its `()` */
            {":() { :; }; echo .env", WARDER_DENY},
            {": () { :; }; echo .env", WARDER_DENY},
            {":\t() { :; }; echo .env", WARDER_DENY},
            {": ; echo .env", WARDER_ALLOW},
            {": x(); echo .env", WARDER_ALLOW},
            {"echo () { :; }; echo .env", WARDER_DENY},
            {"echo\t() { :; }; echo .env", WARDER_DENY},
            {"echo x (); echo .env", WARDER_ALLOW},
            {"function echo { :; }; echo .env", WARDER_DENY},
            /* PATH: set, or only read */
            {"PATH=.; echo .env", WARDER_DENY},
            {"echo $PATH; echo .env", WARDER_ALLOW},
            {"echo ${PATH}; echo .env", WARDER_ALLOW},
            {"echo ${PATH:-x}; echo .env", WARDER_ALLOW},
            {"echo ${PATH}=x; echo .env", WARDER_ALLOW},
            {"echo ${PATH=x}; echo .env", WARDER_DENY},
            {"echo ${PATH:=x}; echo .env", WARDER_DENY},
            {"echo XPATH PATHX; echo .env", WARDER_ALLOW},
            /* how globs expand */
            {"shopt -s dotglob; cat *", WARDER_ASK},
            {"setopt globdots; cat *", WARDER_ASK},
            {"BASHOPTS=x; cat *", WARDER_ASK},
            {"GLOBIGNORE=x; cat *", WARDER_ASK},
            {"echo $GLOBIGNORE; cat *", WARDER_ALLOW},
            {"echo ${GLOBIGNORE}; cat *", WARDER_ALLOW},
            {"echo ${GLOBIGNORE:-x}; cat *", WARDER_ALLOW},
            {"echo ${GLOBIGNORE}=x; cat *", WARDER_ALLOW},
            {"echo ${GLOBIGNORE=x}; cat *", WARDER_ASK},
            {"echo ${GLOBIGNORE:=x}; cat *", WARDER_ASK},
            {"echo $BASHOPTS ${BASHOPTS} XGLOBIGNORE; cat *", WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.ls = ws_ls;
                expect_action(rs, rows[i].cmd, &ctx, rows[i].want);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.2: the whole line meets the execute rules trimmed, with runs of blanks outside quotes
 * squeezed to one space (inside quotes, and after a backslash, they are kept). The rule below
 * matches only a line with a pipe; the decision names the line as it was matched. */
START_TEST(test_whole_line_form)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "read: {default: allow}\n"
                                  "write: {default: allow}\n"
                                  "execute:\n"
                                  "  default: allow\n"
                                  "  rules:\n"
                                  "    - deny: '*|*'\n");
        NEED(rs);
        static const struct {
                const char *line, *segment;
        } rows[] = {
            {"echo a | cat", "echo a | cat"},
            {"echo  a \t b |\t\tcat", "echo a b | cat"},
            {" echo a | cat", "echo a | cat"},
            {"\techo a | cat", "echo a | cat"},
            {"\necho a | cat", "echo a | cat"},
            {"\recho a | cat", "echo a | cat"},
            {"echo a | cat ", "echo a | cat"},
            {"echo a | cat\t", "echo a | cat"},
            {"echo a | cat\n", "echo a | cat"},
            {"echo a | cat\r", "echo a | cat"},
            {" \t\r\n echo a | cat \n\r\t ", "echo a | cat"},
            {"echo 'a  \t b'  | cat", "echo 'a  \t b' | cat"},
            {"echo \"a  \t b\"  | cat", "echo \"a  \t b\" | cat"},
            {"echo \"a \\\"  b\"  | cat", "echo \"a \\\"  b\" | cat"},
            {"echo 'a \\'  | cat", "echo 'a \\' | cat"},
            {"echo a\\'  | cat", "echo a\\' | cat"},
            {"echo a\\  b  | cat", "echo a\\  b | cat"},
            /* a backslash that ends the line escapes nothing (the trimmed blank stays out) */
            {"echo a | cat \\ ", "echo a | cat \\"},
            {"echo a | echo \"b\\ ", "echo a | echo \"b\\"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                ck_assert_int_eq(decide(rs, rows[i].line, false, &d), WARDER_DENY);
                ck_assert_msg(d.segment && strcmp(d.segment, rows[i].segment) == 0,
                              "'%s': segment '%s', want '%s'", rows[i].line,
                              d.segment ? d.segment : "(none)", rows[i].segment);
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §5.2: a line that is one simple command but holds more than its words (a subshell's
 * parentheses, a comment, a trailing `;` or `&`) still meets the rules as a whole line. */
START_TEST(test_whole_line_beyond_the_form)
{
        warder_ruleset *rs = load("warder: 1\n"
                                  "default: allow\n"
                                  "execute:\n"
                                  "  default: allow\n"
                                  "  rules:\n"
                                  "    - deny: '(*)'\n"
                                  "    - deny: '* #*'\n"
                                  "    - deny: '*;'\n"
                                  "    - deny: '*&'\n");
        NEED(rs);
        static const struct cmd_row rows[] = {
            {"(echo a)", WARDER_DENY},  {"echo a # c", WARDER_DENY}, {"echo a;", WARDER_DENY},
            {"echo a &", WARDER_DENY},  {"echo a", WARDER_ALLOW}, /* control: the form alone */
            {"echo a#b", WARDER_ALLOW},
        };
        EXPECT_ROWS(rs, NULL, rows);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.5: what an arithmetic expression evaluates that cannot be known, named exactly: numbers
 * in every base are known, and so are declared numbers after `$` or inside `${…}` and
 * special parameters; a name is read whole, and a bare one is never known (the line names it). */
START_TEST(test_arithmetic_items)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const char *const env[] = {"N=5", "P=+5", "M=-5", "D=0990", "S=+",
                                          "E=",  "X=5x", "Y=x5", NULL};
        static const struct {
                const char *cmd;
                const char *what; /* NULL: nothing unknown (allow) */
        } rows[] = {
            {"echo $(( 9 ))", NULL},
            {"echo $(( 0 + 12#a9 + 64#@_ + $N ))", NULL},
            {"echo $(( $N + ${N} + $# + $? + $$ + $! ))", NULL},
            {"echo $(( 1 + NX ))", "NX"},
            {"echo $(( $N + $NX ))", "NX"},
            {"echo $(( ${N} + ${NX} ))", "NX"},
            {"echo $(( $0 ))", "$0 "},
            {"echo $(( $9 ))", "$9 "},
            {"echo $(( `echo 1` ))", "`echo 1` "},
            {"echo $(( ${N-1} ))", "${N-1}"},
            {"echo $(( ${1x} ))", "${1x}"},
            {"echo $(( ${} ))", "${}"},
            {"echo $(( ${N1} ))", "N1"},
            {"echo $(( ${0} ))", "${0}"},
            {"echo $(( ${9} ))", "${9}"},
            {"echo $(( $ + 10 + 20 + 30 + 40 ))", "$ + 10 + 20 + 30"},
            /* a declared value is a number when it is digits after at most one sign */
            {"echo $(( $P + $M + $D ))", NULL},
            {"echo $(( $S ))", "S"},
            {"echo $(( $E ))", "E"},
            {"echo $(( $X ))", "X"},
            {"echo $(( $Y ))", "Y"},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.env = env;
                ck_assert_int_eq(warder_ruleset_check_command(&d, rs, rows[i].cmd,
                                                              strlen(rows[i].cmd), &ctx, NULL),
                                 0);
                enum warder_action a = d.action;
                if (!rows[i].what) {
                        ck_assert_msg(a == WARDER_ALLOW, "%s: %s (%s)", rows[i].cmd,
                                      warder_action_name(a), d.note ? d.note : "");
                } else {
                        char note[160];
                        snprintf(note, sizeof(note),
                                 "an arithmetic expression evaluates '%s', whose value is not a "
                                 "known number",
                                 rows[i].what);
                        ck_assert_msg(a == WARDER_ASK && d.note && strcmp(d.note, note) == 0,
                                      "%s: %s (%s), want ask (%s)", rows[i].cmd,
                                      warder_action_name(a), d.note ? d.note : "", note);
                }
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

/* §3.2: a path whose real form cannot be resolved is unknown, except the devices every line
 * uses; /proc/<pid>/root and /proc/<pid>/cwd name other paths. Here every real form under /dev
 * fails, the rest are their own. */
static int dev_realpath(void *ud, const char *literal, char **out)
{
        (void)ud;
        if (strncmp(literal, "/dev/", 5) == 0)
                return WARDER_EIO;
        if (strcmp(literal, "/nomem") == 0)
                return WARDER_ENOMEM;
        *out = strdup(literal);
        return *out ? 0 : WARDER_ENOMEM;
}

START_TEST(test_std_devices)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cat /dev/null", WARDER_ALLOW},     {"cat /dev/stderr", WARDER_ALLOW},
            {"cat /dev/fd/0", WARDER_ALLOW},     {"cat /dev/fd/9", WARDER_ALLOW},
            {"cat /dev/fd/1290", WARDER_ALLOW},  {"cat /dev/fd/", WARDER_ASK},
            {"cat /dev/fd/x", WARDER_ASK},       {"cat /dev/fd/1x", WARDER_ASK},
            {"cat /dev/fd/:", WARDER_ASK},       {"cat /dev/fd/1/x", WARDER_ASK},
            {"cat /dev/fdx/1", WARDER_ASK},      {"cat /dev/sda", WARDER_ASK},
            {"cat /dev/abc12", WARDER_ASK},      {"cat /proc/1/cwd/x", WARDER_ASK},
            {"cat /proc/1/root/x", WARDER_ASK},  {"cat /proc/1/cwdx/y", WARDER_ALLOW},
            {"cat /proc/1/abc/y", WARDER_ALLOW}, {"cat /proc/1/rootx/y", WARDER_ALLOW},
            {"cat /proc/1/roo/y", WARDER_ALLOW},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
                ctx.realpath = dev_realpath;
                expect_action(rs, rows[i].cmd, &ctx, rows[i].want);
        }
        /* the note says why; out of memory in the host's realpath is an error, not a decision */
        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.realpath = dev_realpath;
        struct warder_decision d = WARDER_DECISION_INIT;
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat /dev/sda", 12, &ctx, NULL), 0);
        ck_assert_str_eq(d.note, "the real path could not be resolved (input/output error)");
        warder_decision_clear(&d);
        ck_assert_int_eq(warder_ruleset_check_command(&d, rs, "cat /nomem", 10, &ctx, NULL),
                         WARDER_ENOMEM);
        warder_decision_clear(&d);
        warder_ruleset_free(rs);
}
END_TEST

/* §5.6: the directory a cd or pushd leads to, past its options; a directory-stack operand
 * (pushd +1, -2) is unknown, as is what follows it, while for cd `-1` is a directory name. */
START_TEST(test_cd_options)
{
        warder_ruleset *rs = load(rules_yaml);
        NEED(rs);
        static const struct {
                const char *cmd;
                enum warder_action want;
        } rows[] = {
            {"cd /etc && cat passwd", WARDER_DENY},
            {"cd / && cat etc/passwd", WARDER_DENY},
            {"cd -P / && cat etc/passwd", WARDER_DENY},
            {"cd -P -L / && cat etc/passwd", WARDER_DENY},
            {"cd -- / && cat etc/passwd", WARDER_DENY},
            {"cd -P -- / && cat etc/passwd", WARDER_DENY},
            {"cd -P -- -x && cat etc/passwd", WARDER_ALLOW},
            {"pushd /etc && cat passwd", WARDER_DENY},
            {"pushd +1 && cat x", WARDER_ASK},
            {"pushd -1 && cat x", WARDER_ASK},
            {"pushd -0 && cat x", WARDER_ASK},
            {"pushd -9 && cat x", WARDER_ASK},
            {"cd -1 && cat x", WARDER_ALLOW},
            {"cd +1 && cat x", WARDER_ALLOW},
            {"cd src && cat x", WARDER_ALLOW},
            {"cd && cat .ssh/id_rsa", WARDER_DENY},
            {"cd -P && cat .ssh/id_rsa", WARDER_DENY},
        };
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                struct warder_decision d = WARDER_DECISION_INIT;
                enum warder_action a = decide(rs, rows[i].cmd, false, &d);
                ck_assert_msg(a == rows[i].want, "%s: %s, want %s (%s)", rows[i].cmd,
                              warder_action_name(a), warder_action_name(rows[i].want),
                              d.note ? d.note : "");
                warder_decision_clear(&d);
        }
        warder_ruleset_free(rs);
}
END_TEST

static Suite *command_suite(void)
{
        Suite *s = suite_create("command");
        TCase *tc = tcase_create("split");
        tcase_add_test(tc, test_split_table);
        tcase_add_test(tc, test_split_word_flags);
        tcase_add_test(tc, test_split_pieces);
        tcase_add_test(tc, test_split_scopes_and_ops);
        tcase_add_test(tc, test_split_limits);
        suite_add_tcase(s, tc);
        tc = tcase_create("decide");
        tcase_add_test(tc, test_denied);
        tcase_add_test(tc, test_denied_names_candidate);
        tcase_add_test(tc, test_glob_without_context);
        tcase_add_test(tc, test_allowed_twins);
        tcase_add_test(tc, test_ask);
        tcase_add_test(tc, test_arithmetic);
        tcase_add_test(tc, test_data_only_builtins);
        tcase_add_test(tc, test_sources_are_read);
        tcase_add_test(tc, test_subtree_query);
        tcase_add_test(tc, test_subtrees);
        tcase_add_test(tc, test_target_directory_is_written);
        tcase_add_test(tc, test_subtree_deny_beats_ask);
        tcase_add_test(tc, test_glob_context_contract);
        tcase_add_test(tc, test_symlink_targets_from_the_link);
        tcase_add_test(tc, test_written_operands);
        tcase_add_test(tc, test_expanded_forms_meet_execute_rules);
        tcase_add_test(tc, test_arithmetic_builtins_exactly);
        tcase_add_test(tc, test_shell_bodies_exactly);
        tcase_add_test(tc, test_destinations_exactly);
        tcase_add_test(tc, test_redirections_only);
        tcase_add_test(tc, test_context_checked);
        tcase_add_test(tc, test_forms_after_assignments);
        tcase_add_test(tc, test_forms_limit);
        tcase_add_test(tc, test_subtree_without_listing);
        tcase_add_test(tc, test_cd_from_each_directory);
        tcase_add_test(tc, test_whole_line_beyond_the_form);
        tcase_add_test(tc, test_shell_depth);
        tcase_add_test(tc, test_cd_tracking);
        tcase_add_test(tc, test_strictness_examples);
        tcase_add_test(tc, test_default_preset);
        tcase_add_test(tc, test_limits_decisions);
        tcase_add_test(tc, test_invalid);
        tcase_add_test(tc, test_docs_examples);
        tcase_add_test(tc, test_real_links_and_globs);
        tcase_add_test(tc, test_precise_answers);
        tcase_add_test(tc, test_wrapper_options);
        tcase_add_test(tc, test_glob_budgets);
        tcase_add_test(tc, test_variable_names);
        tcase_add_test(tc, test_shell_globs);
        tcase_add_test(tc, test_edges);
        tcase_add_test(tc, test_expand);
        tcase_add_test(tc, test_redefinitions);
        tcase_add_test(tc, test_whole_line_form);
        tcase_add_test(tc, test_arithmetic_items);
        tcase_add_test(tc, test_std_devices);
        tcase_add_test(tc, test_cd_options);
        suite_add_tcase(s, tc);
        /* a few seconds: hundreds of lines, each run by two shells */
        tc = tcase_create("shells");
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, test_differential_shells);
        suite_add_tcase(s, tc);
        return s;
}

int main(void)
{
        return warder_test_run(command_suite());
}
