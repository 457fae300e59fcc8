/* SPDX-License-Identifier: MIT */
/*
 * Shell commands given to `execute` (semantics §5).
 *
 * Input: a command line (bytes up to the first NUL; the whole input, NUL included, must be
 * WARDER_EINVAL). Ruleset: everything under /etc denied for read and write, execute allowed by
 * default with a few rules (fixture below). Properties:
 *  - inspection never crashes, hangs or leaks, with and without a context (cwd, declared
 *    variables), and returns a valid, deterministic decision;
 *  - appending `; cat /etc/passwd` never weakens: for every input X, the decision for
 *    `X; cat /etc/passwd` is at least the decision for `cat /etc/passwd` alone (deny), and at
 *    least `ask` when X alone is already undeterminable (§5.7: an unparseable line is
 *    decided as one segment and at least ask). Exempt are inputs after which the shell
 *    would not run the appended command: those holding `#` (a comment may swallow it) and
 *    those ending in an odd run of backslashes (`echo \; cat …` runs echo). After `<<` the
 *    bar is `ask`: the suffix may spoil a here-document's end line, so the shell runs no
 *    `cat`, and inspection reads the body as commands (at least ask when it cannot parse).
 *  - against the real shells (shell-diff.h): an input that starts with a NUL byte also chooses,
 *    with the bytes after it, a generated line that hides calls of tracing stubs in
 *    substitutions, parameter expansions, arithmetic, here-documents and nested shells; the
 *    line runs under dash and bash, and for every stub that ran, inspection must not allow the
 *    line under a ruleset that denies that stub.
 */
#include <stdbool.h>
#include <string.h>

#include "fixture-rules.h"
#include "fuzz.h"
#include "shell-diff.h"
#include "warder/error.h"
#include "warder/ruleset.h"

static const char fixture[] = "warder: 1\n"
                              "default: allow\n"
                              "read:\n"
                              "  default: allow\n"
                              "  rules:\n"
                              "    - pattern: \"/etc/**\"\n"
                              "      action: deny\n"
                              "write:\n"
                              "  default: allow\n"
                              "  rules:\n"
                              "    - pattern: \"/etc/**\"\n"
                              "      action: deny\n"
                              "execute:\n"
                              "  default: allow\n"
                              "  rules:\n"
                              "    - pattern: \"rm -rf /*\"\n"
                              "      action: deny\n"
                              "    - pattern: \"curl *\"\n"
                              "      action: ask\n"
                              "    - pattern: \"git *\"\n"
                              "      action: allow\n";

static const char suffix[] = "; cat /etc/passwd";

static warder_ruleset *rules;

static bool has_heredoc(const char *cmd, size_t len)
{
        for (size_t i = 0; i + 1 < len; i++)
                if (cmd[i] == '<' && cmd[i + 1] == '<')
                        return true;
        return false;
}

/* Inputs after which the shell would not run an appended command: a `#` may start a comment,
 * and a trailing backslash escapes the `;`. */
static bool exempt(const char *cmd, size_t len)
{
        if (memchr(cmd, '#', len))
                return true;
        /* An odd run of trailing backslashes escapes the appended `;`. */
        size_t bs = 0;
        while (bs < len && cmd[len - 1 - bs] == '\\')
                bs++;
        return bs % 2 == 1;
}
static enum warder_action baseline;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        rules = fuzz_fixture_rules(fixture);
        /* Control arm: the fixture really denies the file. */
        FUZZ_CHECK(fuzz_decide(rules, WARDER_OP_READ, "/etc/passwd", NULL) == WARDER_DENY,
                   "the fixture does not deny reading /etc/passwd");
        baseline = fuzz_decide(rules, WARDER_OP_EXECUTE, "cat /etc/passwd", NULL);
        FUZZ_CHECK(baseline == WARDER_DENY, "'cat /etc/passwd' is not denied (%s)",
                   warder_action_name(baseline));
        return 0;
}

static const char *const env[] = {"HOME=/home/agent", "ETC=/etc", "P=/etc/passwd", NULL};

/* Decides with and without a context; returns the plain decision's action. */
static enum warder_action decide(const char *cmd, size_t len, bool *undeterminable)
{
        struct warder_decision d = WARDER_DECISION_INIT, d2 = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_check_command(&d, rules, cmd, len, NULL, &err);
        FUZZ_CHECK(rc == 0, "command of %zu bytes: %d %s", len, rc, err.message);
        FUZZ_CHECK(d.action == WARDER_ALLOW || d.action == WARDER_ASK || d.action == WARDER_DENY,
                   "action %d", d.action);
        FUZZ_CHECK(d.op == WARDER_OP_EXECUTE, "op %d", d.op);
        rc = warder_ruleset_check_command(&d2, rules, cmd, len, NULL, NULL);
        FUZZ_CHECK(rc == 0 && d2.action == d.action, "not deterministic");
        warder_decision_clear(&d2);

        struct warder_command_context ctx = WARDER_COMMAND_CONTEXT_INIT;
        ctx.cwd = "/work/project/sub";
        ctx.env = env;
        rc = warder_ruleset_check_command(&d2, rules, cmd, len, &ctx, NULL);
        FUZZ_CHECK(rc == 0, "with a context: %d", rc);
        FUZZ_CHECK(d2.action == WARDER_ALLOW || d2.action == WARDER_ASK || d2.action == WARDER_DENY,
                   "action %d", d2.action);
        warder_decision_clear(&d2);

        enum warder_action a = d.action;
        *undeterminable = d.undeterminable;
        warder_decision_clear(&d);
        return a;
}

static struct shdiff shells;
static int shells_state; /* 0 not yet, 1 ready, -1 unavailable */

static void shells_free(void)
{
        shdiff_free(&shells);
}

/* The differential property against dash and bash, for inputs that start with a NUL. */
static void against_the_shells(const uint8_t *data, size_t size)
{
        if (shells_state == 0) {
                /* WARDER_FUZZ_SHELLS=0 leaves the shells out (a quicker run of the rest) */
                const char *on = getenv("WARDER_FUZZ_SHELLS");
                shells_state = on && strcmp(on, "0") == 0 ? -1 : shdiff_init(&shells) ? 1 : -1;
                if (shells_state == 1)
                        atexit(shells_free);
        }
        if (shells_state < 0 || shells.nshells == 0)
                return;
        char line[2048], why[2600];
        shdiff_generate(data, size, line, sizeof(line));
        FUZZ_CHECK(shdiff_check(&shells, line, why, sizeof(why)), "%s", why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!rules)
                LLVMFuzzerInitialize(NULL, NULL);
        if (size > 1 && data[0] == '\0')
                against_the_shells(data + 1, size - 1);
        const char *cmd = (const char *)data;
        const char *nul = memchr(data, '\0', size);
        struct warder_decision d = WARDER_DECISION_INIT;
        if (nul) {
                int rc = warder_ruleset_check_command(&d, rules, cmd, size, NULL, NULL);
                FUZZ_CHECK(rc == WARDER_EINVAL, "embedded NUL: %d", rc);
                size = (size_t)(nul - cmd);
        }
        if (size == 0) {
                int rc = warder_ruleset_check_command(&d, rules, "", 0, NULL, NULL);
                FUZZ_CHECK(rc == WARDER_EINVAL, "empty command: %d", rc);
                return 0;
        }
        /* warder_ruleset_check takes a C string. */
        char *line = malloc(size + sizeof suffix);
        if (!line)
                abort();
        memcpy(line, cmd, size);
        line[size] = '\0';
        bool x_undeterminable = false;
        enum warder_action x = decide(line, size, &x_undeterminable);
        FUZZ_CHECK(fuzz_decide(rules, WARDER_OP_EXECUTE, line, NULL) == x,
                   "warder_ruleset_check and warder_ruleset_check_command disagree");
        /* After `<<` the suffix may spoil a here-document's end line: the shell then runs no
         * `cat`, and command inspection reads the body as commands, at least `ask` (§5.7). So
         * `ask` is the bar there, as for an undeterminable X. */
        if (has_heredoc(cmd, size))
                x_undeterminable = true;

        memcpy(line + size, suffix, sizeof suffix);
        bool y_undeterminable = false;
        enum warder_action y = decide(line, size + sizeof suffix - 1, &y_undeterminable);
        (void)y_undeterminable;
        if (!exempt(cmd, size)) {
                enum warder_action need = x_undeterminable ? WARDER_ASK : baseline;
                FUZZ_CHECK(y >= need, "'%s' is %s (X alone: %s%s), need at least %s", line,
                           warder_action_name(y), warder_action_name(x),
                           x_undeterminable ? ", undeterminable" : "", warder_action_name(need));
        }
        free(line);
        return 0;
}
