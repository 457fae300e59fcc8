/* SPDX-License-Identifier: MIT */
/*
 * Ruleset YAML, the input a repository can ship (semantics §1, §1.8).
 *
 * Input: the bytes of a YAML document, loaded with small limits (depth 16, 20,000 nodes,
 * 64 KiB, 500 rules) and a base directory that does not exist (a relative `extends` fails
 * cleanly instead of reading the disk).
 * Properties:
 *  - a ruleset or a clean error: EPARSE/ETOOBIG/ENOENT/EIO/ELIMIT/EINVAL with err filled
 *    and nothing returned; never a crash, a hang (libFuzzer -timeout), a leak (LeakSanitizer)
 *    or a memory blow-up (-rss_limit_mb);
 *  - on success: every default and rule is well-formed (valid action, op, index, id, pattern,
 *    source), no operation holds more rules than the limit, a few decisions per operation
 *    succeed with a valid action and are deterministic, references count properly, and every
 *    matcher left to be compiled on first use compiles (the compiler can refuse nothing the
 *    loader accepted: its refusals are load errors with a position).
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "ruleset/ruleset-internal.h"
#include "warder/error.h"
#include "warder/ruleset.h"

#define MAX_RULES 500

static const char *const targets[] = {
    ".env", "/work/project/src/main.c", "/etc/passwd", "src/../../x", "~/.ssh/id_rsa", "a b",
};

static const char *const commands[] = {
    "cat .env",
    "git status; rm -rf /",
    "ls -la /etc",
    "echo $(cat ~/.ssh/id_rsa)",
};

static bool valid_action(int a)
{
        return a == WARDER_ALLOW || a == WARDER_ASK || a == WARDER_DENY;
}

static void check_decision(const warder_ruleset *rs, enum warder_op op, const char *target)
{
        struct warder_decision d1 = WARDER_DECISION_INIT, d2 = WARDER_DECISION_INIT;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc = warder_ruleset_check(&d1, rs, op, target, strlen(target), NULL, 0, &err);
        FUZZ_CHECK(rc == 0, "check %s '%s' failed: %d %s", warder_op_name(op), target, rc,
                   err.message);
        FUZZ_CHECK(valid_action(d1.action), "action %d", d1.action);
        FUZZ_CHECK(d1.op == op, "decision for op %d, asked %d", d1.op, op);
        FUZZ_CHECK(d1.by_default == (d1.rule_id == NULL) || op == WARDER_OP_EXECUTE,
                   "by_default %d but rule id %s", d1.by_default, d1.rule_id ? d1.rule_id : "-");
        if (d1.by_default && op != WARDER_OP_EXECUTE)
                FUZZ_CHECK(d1.action == warder_ruleset_default(rs, op),
                           "decided by default but not the default action");
        rc = warder_ruleset_check(&d2, rs, op, target, strlen(target), NULL, 0, NULL);
        FUZZ_CHECK(rc == 0 && d2.action == d1.action, "decision not deterministic");
        warder_decision_clear(&d1);
        warder_decision_clear(&d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct warder_ruleset_options opts = WARDER_RULESET_OPTIONS_INIT;
        opts.root = "/work/project";
        opts.home = "/home/agent";
        opts.base_dir = "/nonexistent/warder-fuzz";
        opts.max_file_size = 64 * 1024;
        opts.max_depth = 16;
        opts.max_nodes = 20000;
        opts.max_rules = MAX_RULES;
        /* The compile budgets scaled down with the other limits: a few hundred aliases of a
         * long pattern with braces reach the default 32 MiB only after seconds of compiling
         * under the sanitizers, and the budget's refusal is what is exercised either way. */
        opts.max_pattern_bytes = (size_t)256 << 10;
        opts.max_compiled_bytes = (size_t)1 << 20;

        warder_ruleset *sentinel = (warder_ruleset *)&opts;
        warder_ruleset *rs = sentinel;
        struct warder_error err = WARDER_ERROR_INIT;
        int rc =
            warder_ruleset_load_string(&rs, (const char *)data, size, "fuzz.yaml", &opts, &err);
        if (rc) {
                FUZZ_CHECK(rc == WARDER_EPARSE || rc == WARDER_ETOOBIG || rc == WARDER_ENOENT ||
                               rc == WARDER_EIO || rc == WARDER_ELIMIT || rc == WARDER_EINVAL,
                           "load returned %d (%s): %s", rc, warder_status_name(rc), err.message);
                FUZZ_CHECK(err.code == rc, "err.code %d, returned %d", err.code, rc);
                FUZZ_CHECK(err.message[0] != '\0', "no error message for %d", rc);
                FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL,
                           "message not terminated");
                FUZZ_CHECK(rs == sentinel, "output touched on failure");
                warder_error_clear(&err);
                return 0;
        }
        FUZZ_CHECK(rs && rs != sentinel, "success without a ruleset");
        FUZZ_CHECK(warder_ruleset_root(rs) && warder_ruleset_root(rs)[0] == '/', "root");
        int prec = warder_ruleset_precedence(rs);
        FUZZ_CHECK(prec == WARDER_FIRST_MATCH || prec == WARDER_STRICTEST, "precedence %d", prec);
        for (int op = 0; op < WARDER_OP_COUNT; op++) {
                FUZZ_CHECK(valid_action(warder_ruleset_default(rs, op)), "default of op %d", op);
                size_t n = warder_ruleset_rule_count(rs, op);
                /* `extends` may add a preset's rules to the file's own. */
                FUZZ_CHECK(n <= MAX_RULES + 64, "%zu rules for op %d", n, op);
                for (size_t i = 0; i < n; i++) {
                        struct warder_rule_info ri = WARDER_RULE_INFO_INIT;
                        rc = warder_ruleset_rule(&ri, rs, op, i);
                        FUZZ_CHECK(rc == 0, "rule %zu of op %d: %d", i, op, rc);
                        FUZZ_CHECK((int)ri.op == op && ri.index == i, "rule info mismatch");
                        FUZZ_CHECK(valid_action(ri.action), "rule action %d", ri.action);
                        FUZZ_CHECK(ri.id && ri.id[0] && ri.pattern && ri.file, "rule strings");
                }
                struct warder_rule_info none = WARDER_RULE_INFO_INIT;
                FUZZ_CHECK(warder_ruleset_rule(&none, rs, op, n) != 0, "rule past the end");
        }
        for (size_t t = 0; t < sizeof targets / sizeof *targets; t++)
                for (int op = 0; op < WARDER_OP_EXECUTE; op++)
                        check_decision(rs, op, targets[t]);
        for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
                check_decision(rs, WARDER_OP_EXECUTE, commands[c]);

        rc = warder__ruleset_compile_all(rs);
        FUZZ_CHECK(rc == 0 || rc == WARDER_ENOMEM,
                   "a matcher the loader accepted failed to "
                   "compile: %d (%s)",
                   rc, warder_status_name(rc));
        warder_ruleset *again = warder_ruleset_ref(rs);
        FUZZ_CHECK(again == rs, "ref returned another pointer");
        warder_ruleset_free(rs);
        /* One reference left: the ruleset is still whole. */
        check_decision(again, WARDER_OP_READ, targets[0]);
        warder_ruleset_free(again);
        return 0;
}
