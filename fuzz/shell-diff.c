/* SPDX-License-Identifier: MIT */
/* The differential property of command inspection against dash and bash: see shell-diff.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shell-diff.h"
#include "warder/error.h"

/* ---- the generator ------------------------------------------------------------------------ */

#define MAX_DEPTH 3

struct gen {
        const uint8_t *p;
        size_t n, i;
        char *out;
        size_t cap, len;
        bool overflow;
        bool in_backtick;
};

/* The next choice in [0, k); 0 once the bytes run out (the simplest shapes). */
static unsigned pick(struct gen *g, unsigned k)
{
        return g->i < g->n ? g->p[g->i++] % k : 0;
}

static void put(struct gen *g, const char *s)
{
        size_t n = strlen(s);
        if (g->len + n + 1 > g->cap) {
                g->overflow = true;
                return;
        }
        memcpy(g->out + g->len, s, n + 1);
        g->len += n;
}

static void gen_cmd(struct gen *g, unsigned depth);
static void gen_word(struct gen *g, unsigned depth);

/* Runs `fn` into a scratch buffer and appends the result single-quoted for the shell. */
static void put_squoted(struct gen *g, void (*fn)(struct gen *, unsigned), unsigned depth,
                        const char *before, const char *after)
{
        char inner[1024];
        struct gen sub = *g;
        sub.out = inner;
        sub.cap = sizeof(inner);
        sub.len = 0;
        inner[0] = '\0';
        put(&sub, before);
        fn(&sub, depth);
        put(&sub, after);
        g->i = sub.i;
        g->overflow |= sub.overflow;
        put(g, "'");
        for (const char *c = inner; *c; c++) {
                char one[2] = {*c, '\0'};
                put(g, *c == '\'' ? "'\\''" : one);
        }
        put(g, "'");
}

static void gen_stub(struct gen *g)
{
        char s[4] = {'t', (char)('0' + pick(g, 10)), '\0', '\0'};
        put(g, s);
}

/* A shape around one command: prefix, the command, suffix. */
struct wrap {
        const char *pre, *post;
};

static void put_wrapped(struct gen *g, const struct wrap *w, unsigned depth)
{
        put(g, w->pre);
        gen_cmd(g, depth);
        put(g, w->post);
}

/* ${NAME<op>WORD}, the word in one of several quotings (§5.5.1): a word, or a command in
 * single quotes (quotes or ordinary characters, by context), in double quotes, or between a
 * quote pair that spans words. */
static void gen_param(struct gen *g, unsigned depth)
{
        static const char *const names[] = {"v", "HOME"};
        static const char *const ops[] = {"-", ":-", "=", ":=", "+",  ":+",
                                          "?", ":?", "#", "%",  "##", "%%"};
        static const struct wrap quotings[] = {{"'$(", ")'"}, {"\"$(", ")\""}, {"'\" $(", ") \"'"}};
        put(g, "${");
        put(g, names[pick(g, 2)]);
        put(g, ops[pick(g, 12)]);
        unsigned c = pick(g, 4);
        if (c == 3)
                gen_word(g, depth + 1);
        else
                put_wrapped(g, &quotings[c], depth + 1);
        put(g, "}");
}

/* Words that hold a command. */
static const struct wrap word_wraps[] = {
    {"$(", ")"},
    {"\"$(", ")\""},
    {"$(( $(", ") + 1 ))"},
    {"<(", ")"}, /* bash only; a syntax error for dash */
};

static void gen_word(struct gen *g, unsigned depth)
{
        static const char *const plain[] = {"a", "$((1+2))", "$'\\x61'", "'a b'"};
        if (depth > MAX_DEPTH) {
                put(g, "a");
                return;
        }
        unsigned n = sizeof(word_wraps) / sizeof(word_wraps[0]);
        unsigned c = pick(g, 10);
        if (c < n) {
                put_wrapped(g, &word_wraps[c], depth + 1);
        } else if (c == n && !g->in_backtick) {
                put(g, "`");
                g->in_backtick = true;
                gen_cmd(g, depth + 1);
                g->in_backtick = false;
                put(g, "`");
        } else if (c == n + 1) { /* single-quoted: runs nothing */
                put_squoted(g, gen_cmd, depth + 1, "$(", ")");
        } else if (c == n + 2) { /* escaped: runs nothing, except inside backticks */
                put(g, "\\$(");
                gen_stub(g);
                put(g, ")");
        } else if (c == n + 3) {
                bool dq = pick(g, 2);
                put(g, dq ? "\"" : "");
                gen_param(g, depth);
                put(g, dq ? "\"" : "");
        } else if (c == n + 4) {
                put(g, "x");
                gen_word(g, depth + 1);
        } else {
                put(g, plain[pick(g, sizeof(plain) / sizeof(plain[0]))]);
        }
}

/* An arithmetic context that evaluates v, whose value hides a command (§5.5.2). */
static void gen_arith(struct gen *g, unsigned depth)
{
        static const char *const uses[] = {
            "echo $((v))",
            "((v))",
            "let v",
            "declare -i w; w=v",
            "[[ $v -eq 1 ]]",
            "echo $[v]",
            "echo ${s:v}",
            "a=(1); echo ${a[v]}",
            "for ((i=v; i<0; i++)); do :; done",
        };
        put(g, "v=");
        put_squoted(g, gen_cmd, depth + 1, "a[$(", ")]");
        put(g, "; ");
        put(g, uses[pick(g, sizeof(uses) / sizeof(uses[0]))]);
}

/* Commands around one command. */
static const struct wrap cmd_wraps[] = {
    {"{ ", "; }"},
    {"( ", " )"},
    {"if true; then ", "; fi"},
    {"for x in a; do ", "; done"},
    {"f() { ", "; }; f"},
    {"cat <<EOF\nx $(", ")\nEOF\n"},
    {"cat <<'EOF'\nx $(", ")\nEOF\n"},
    {"cat <<-EOF\n\tx $(", ")\nEOF\n"},
};

/* Commands that run a command given as one quoted word. */
static const struct wrap cmd_quoted[] = {
    {"eval ", ""}, {"sh -c ", ""}, {"bash -c ", ""}, {"trap ", " EXIT"}, {"alias a=", "\na"},
};

static void gen_cmd(struct gen *g, unsigned depth)
{
        static const char *const ops[] = {" ; ", " && ", " || ", " | "};
        static const char *const words[] = {"echo ", ": ", "v=", "export v="};
        unsigned nw = sizeof(cmd_wraps) / sizeof(cmd_wraps[0]);
        unsigned nq = sizeof(cmd_quoted) / sizeof(cmd_quoted[0]);
        unsigned c = depth >= MAX_DEPTH ? 0 : pick(g, 11 + nw + nq);
        if (c < 3) {
                gen_stub(g);
                if (pick(g, 2)) {
                        put(g, " ");
                        gen_word(g, depth + 1);
                }
        } else if (c < 5) { /* echo WORD, : WORD */
                put(g, words[c - 3]);
                gen_word(g, depth + 1);
        } else if (c == 5) {
                gen_cmd(g, depth + 1);
                put(g, ops[pick(g, 4)]);
                gen_cmd(g, depth + 1);
        } else if (c == 6) { /* v=WORD; CMD */
                put(g, words[2 + pick(g, 2)]);
                gen_word(g, depth + 1);
                put(g, "; ");
                gen_cmd(g, depth + 1);
        } else if (c == 7) {
                put(g, "case ");
                gen_word(g, depth + 1);
                put_wrapped(g, &(struct wrap){" in *) ", " ;; esac"}, depth + 1);
        } else if (c == 8) {
                gen_arith(g, depth);
        } else if (c == 9) {
                gen_cmd(g, depth + 1);
                put(g, pick(g, 2) ? " > out" : " 2>&1 </dev/null");
        } else if (c < 10 + nw) {
                put_wrapped(g, &cmd_wraps[c - 10], depth + 1);
        } else if (c < 10 + nw + nq) {
                const struct wrap *w = &cmd_quoted[c - 10 - nw];
                put(g, w->pre);
                put_squoted(g, gen_cmd, depth + 1, "", "");
                put(g, w->post);
        } else { /* echo ${…}, quoted or not */
                bool dq = pick(g, 2);
                put(g, dq ? "echo \"" : "echo ");
                gen_param(g, depth);
                put(g, dq ? "\"" : "");
        }
}

size_t shdiff_generate(const uint8_t *data, size_t size, char *out, size_t cap)
{
        struct gen g = {.p = data, .n = size, .out = out, .cap = cap};
        out[0] = '\0';
        gen_cmd(&g, 0);
        if (g.overflow) {
                snprintf(out, cap, "t0");
                return strlen(out);
        }
        return g.len;
}

/* ---- running the shells ----------------------------------------------------------------- */

static bool write_file(const char *path, const char *text, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
        if (fd < 0)
                return false;
        size_t n = strlen(text);
        bool ok = write(fd, text, n) == (ssize_t)n;
        return close(fd) == 0 && ok;
}

bool shdiff_init(struct shdiff *d)
{
        memset(d, 0, sizeof(*d));
        /* orphans of the lines run here come to this process, which reaps them */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
                fprintf(stderr, "shdiff: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
        strcpy(d->dir, "/tmp/warder-shdiff-XXXXXX");
        if (!mkdtemp(d->dir)) {
                fprintf(stderr, "shdiff: mkdtemp: %s\n", strerror(errno));
                return false;
        }
        snprintf(d->bin, sizeof(d->bin), "%s/bin", d->dir);
        snprintf(d->work, sizeof(d->work), "%s/work", d->dir);
        snprintf(d->trace, sizeof(d->trace), "%s/trace", d->dir);
        if (mkdir(d->bin, 0700) || mkdir(d->work, 0700)) {
                fprintf(stderr, "shdiff: mkdir: %s\n", strerror(errno));
                return false;
        }
        for (int k = 0; k < SHDIFF_STUBS; k++) {
                char path[128];
                snprintf(path, sizeof(path), "%s/t%d", d->bin, k);
                /* each stub records its own name; `>>` so that stubs running at once (a pipe)
                 * each add a line */
                if (!write_file(path, "#!/bin/sh\necho \"${0##*/}\" >> \"$WARDER_TRACE\"\n",
                                0755)) {
                        fprintf(stderr, "shdiff: %s: %s\n", path, strerror(errno));
                        return false;
                }
                char yaml[256];
                snprintf(yaml, sizeof(yaml),
                         "warder: 1\ndefault: allow\nexecute:\n  default: allow\n  rules:\n"
                         "    - deny: 't%d'\n    - deny: 't%d *'\n",
                         k, k);
                struct warder_ruleset_options o = WARDER_RULESET_OPTIONS_INIT;
                o.root = d->work;
                o.home = d->work;
                struct warder_error err = WARDER_ERROR_INIT;
                if (warder_ruleset_load_string(&d->deny[k], yaml, strlen(yaml), "shdiff", &o,
                                               &err)) {
                        fprintf(stderr, "shdiff: ruleset: %s\n", err.message);
                        warder_error_clear(&err);
                        return false;
                }
        }
        static const char *const candidates[] = {"/bin/dash", "/usr/bin/dash", "/bin/bash",
                                                 "/usr/bin/bash"};
        for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]) && d->nshells < 2; i++) {
                bool dash = strstr(candidates[i], "dash") != NULL;
                bool have = false;
                for (size_t k = 0; k < d->nshells; k++)
                        have |= (strstr(d->shells[k], "dash") != NULL) == dash;
                if (!have && access(candidates[i], X_OK) == 0)
                        d->shells[d->nshells++] = candidates[i];
        }
        return true;
}

void shdiff_free(struct shdiff *d)
{
        for (int k = 0; k < SHDIFF_STUBS; k++)
                warder_ruleset_free(d->deny[k]);
        if (d->dir[0]) {
                char cmd[160];
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->dir);
                if (system(cmd) != 0)
                        fprintf(stderr, "shdiff: cannot remove %s\n", d->dir);
        }
        memset(d, 0, sizeof(*d));
}

/*
 * WARDER_SHDIFF_CACHE names a file that remembers which stubs each shell ran for each line,
 * one "KEY MASK" line per run (KEY: a hash of the shell and the line). What the shells run
 * involves no warder code, so a run that only changes warder (the mutation runner,
 * docs/testing.md) reads it from there instead of starting the shells again.
 */
static uint64_t run_key(const char *shell, const char *line)
{
        uint64_t h = 1469598103934665603u;
        for (const char *p = shell;; p++) {
                h = (h ^ (unsigned char)*p) * 1099511628211u;
                if (!*p)
                        break;
        }
        for (const char *p = line; *p; p++)
                h = (h ^ (unsigned char)*p) * 1099511628211u;
        return h;
}

static bool cached_run(uint64_t key, unsigned *ran)
{
        const char *path = getenv("WARDER_SHDIFF_CACHE");
        FILE *f = path ? fopen(path, "r") : NULL;
        unsigned long long k;
        unsigned mask;
        bool found = false;
        while (f && !found && fscanf(f, "%llx %u", &k, &mask) == 2)
                found = k == key;
        if (f)
                fclose(f);
        if (found)
                *ran = mask;
        return found;
}

static void remember_run(uint64_t key, unsigned ran)
{
        const char *path = getenv("WARDER_SHDIFF_CACHE");
        FILE *f = path ? fopen(path, "a") : NULL;
        if (f) {
                fprintf(f, "%016llx %u\n", (unsigned long long)key, ran);
                fclose(f);
        }
}

static unsigned run_shell(struct shdiff *d, const char *shell, const char *line);

/* Runs `line` with `shell -c` in the scratch directory; returns the set of stubs that ran. */
static unsigned run(struct shdiff *d, const char *shell, const char *line)
{
        uint64_t key = run_key(shell, line);
        unsigned ran;
        if (cached_run(key, &ran))
                return ran;
        ran = run_shell(d, shell, line);
        remember_run(key, ran);
        return ran;
}

static unsigned run_shell(struct shdiff *d, const char *shell, const char *line)
{
        if (!write_file(d->trace, "", 0600))
                return 0;
        pid_t pid = fork();
        if (pid < 0)
                return 0;
        if (pid == 0) {
                setpgid(0, 0); /* what the line starts stays in this group (see below) */
                int null = open("/dev/null", O_RDWR);
                if (null < 0 || chdir(d->work) != 0)
                        _exit(126);
                dup2(null, 0);
                dup2(null, 1);
                dup2(null, 2);
                alarm(2);
                char path[160], trace[128], home[128];
                snprintf(path, sizeof(path), "PATH=%s:/usr/bin:/bin", d->bin);
                snprintf(trace, sizeof(trace), "WARDER_TRACE=%s", d->trace);
                snprintf(home, sizeof(home), "HOME=%s", d->work);
                char *envp[] = {path, trace, home, NULL};
                execle(shell, shell, "-c", line, (char *)NULL, envp);
                _exit(127);
        }
        setpgid(pid, pid);
        /* A process substitution runs on after the shell: every process of the group is
         * reaped (orphans come to this process, a subreaper), so that every stub has written
         * its line and none lands in the next run's trace. */
        int st;
        for (int tries = 0;; tries++) {
                pid_t w = waitpid(-pid, &st, WNOHANG);
                if (w < 0 && errno != EINTR)
                        break; /* ECHILD: the group is gone */
                if (w > 0)
                        continue;
                if (tries == 420) /* 2 s: under libFuzzer's per-input timeout */
                        kill(-pid, SIGKILL);
                usleep(tries < 20 ? 250 : 5000);
        }
        unsigned ran = 0;
        FILE *f = fopen(d->trace, "r");
        char name[32];
        while (f && fgets(name, sizeof(name), f))
                if (name[0] == 't' && name[1] >= '0' && name[1] <= '9' && name[2] == '\n')
                        ran |= 1u << (name[1] - '0');
        if (f)
                fclose(f);
        return ran;
}

bool shdiff_check(struct shdiff *d, const char *line, char *why, size_t cap)
{
        unsigned ran = 0;
        d->lines++;
        for (size_t s = 0; s < d->nshells; s++) {
                ran |= run(d, d->shells[s], line);
                d->runs++;
        }
        for (int k = 0; k < SHDIFF_STUBS; k++) {
                if (!(ran & (1u << k)))
                        continue;
                d->stub_runs++;
                struct warder_decision dec = WARDER_DECISION_INIT;
                int rc =
                    warder_ruleset_check_command(&dec, d->deny[k], line, strlen(line), NULL, NULL);
                enum warder_action a = rc == 0 ? dec.action : WARDER_ALLOW;
                warder_decision_clear(&dec);
                if (a == WARDER_DENY) {
                        d->denied++;
                } else if (a == WARDER_ASK) {
                        d->asked++;
                } else {
                        d->failed++;
                        snprintf(why, cap,
                                 "a shell ran t%d, and inspection allows the line under a ruleset "
                                 "that denies t%d (check rc %d): %s",
                                 k, k, rc, line);
                        return false;
                }
        }
        return true;
}
