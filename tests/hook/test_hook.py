# SPDX-License-Identifier: MIT
"""`warder hook` for Claude Code and Gemini CLI (docs/hooks.md, semantics §9), driven as the
agents drive it: one event on stdin, the answer read from stdout, stderr and the exit code.

- every fixture of tests/hook/fixtures (real events of every mapped tool, both agents) under
  the default preset and under tests/hook/custom.yaml, each answer validated against the
  documented schema (a validator that is itself shown to reject a misspelt answer);
- the guard's attack cases through the hook, each with the same decision as `warder check` and
  a control arm that shows the attack works without warder;
- hostile stdin: deny with a reason, the documented exit code, never a crash;
- unknown tools, --unknown, --ask-as-deny, the root, the audit log;
- `warder hook install --write` on settings with other hooks in them, and
  `warder import claude-code`.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

WARDER = os.environ.get("WARDER_CLI", "warder")
SOURCE = os.environ.get("WARDER_SOURCE_ROOT",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HERE = os.path.join(SOURCE, "tests", "hook")
SECRET = "API_KEY=sk-hook-0123456789"
HOME = "/home/agent"

AGENTS = {
    "claude-code": {"event": "PreToolUse"},
    "gemini-cli": {"event": "BeforeTool"},
}


def make_workspace(root):
    """src/main.c, .env (the secret), notes.txt -> .env, docs/, sub/, private/."""
    for d in ("src", "docs", "sub", "private"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    files = {
        "src/main.c": "int main(void) { return 0; }\n",
        ".env": SECRET + "\n",
        "docs/guide.md": "# Guide\n",
        "docs/nb.ipynb": "{}\n",
        "sub/readme.txt": "sub\n",
        "private/plan.txt": "plan\n",
    }
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    os.symlink(".env", os.path.join(root, "notes.txt"))


# ---- the documented answer schemas ------------------------------------------------------------

class SchemaError(Exception):
    pass


def check_answer(agent, rc, out, err):
    """The verdict ("allow", "ask", "deny" or "none") of an answer, after checking it against
    the agent's documented hook output; raises SchemaError otherwise."""
    if rc == 0 and out == "" and err == "":
        return "none"
    if rc not in (0, 2):
        raise SchemaError(f"exit status {rc}: neither 0 nor 2")
    if not out.endswith("\n") or out.count("\n") != 1:
        raise SchemaError(f"stdout is not one JSON line: {out!r}")
    try:
        o = json.loads(out)
    except ValueError as e:
        raise SchemaError(f"stdout is not JSON: {e}")
    if not isinstance(o, dict):
        raise SchemaError("stdout is not a JSON object")
    if agent == "claude-code":
        if set(o) != {"hookSpecificOutput"}:
            raise SchemaError(f"top-level keys {sorted(o)}")
        h = o["hookSpecificOutput"]
        if not isinstance(h, dict) or set(h) != {"hookEventName", "permissionDecision",
                                                 "permissionDecisionReason"}:
            raise SchemaError(f"hookSpecificOutput keys {sorted(h) if isinstance(h, dict) else h}")
        if h["hookEventName"] != "PreToolUse":
            raise SchemaError(f"hookEventName {h['hookEventName']!r}")
        decision, reason = h["permissionDecision"], h["permissionDecisionReason"]
        if decision not in ("allow", "ask", "deny"):
            raise SchemaError(f"permissionDecision {decision!r}")
    else:
        allowed = {"decision", "reason", "systemMessage"}
        if not set(o) <= allowed or "decision" not in o or "reason" not in o:
            raise SchemaError(f"keys {sorted(o)}")
        decision, reason = o["decision"], o["reason"]
        if decision not in ("allow", "ask", "deny"):
            raise SchemaError(f"decision {decision!r}")
        if (decision == "ask") != ("systemMessage" in o):
            raise SchemaError("systemMessage goes with ask, and only with ask")
        if decision == "ask" and o["systemMessage"] != reason:
            raise SchemaError("the systemMessage of an ask is its reason")
    if not isinstance(reason, str) or not reason.startswith("warder: ") or "\n" in reason:
        raise SchemaError(f"reason {reason!r}")
    if decision == "deny":
        # a deny blocks by its exit status alone; its reason is on stderr for an agent that
        # reads only stderr then
        if rc != 2 or err != reason + "\n":
            raise SchemaError(f"deny: exit {rc}, stderr {err!r}")
    elif rc != 0 or err != "":
        raise SchemaError(f"{decision}: exit {rc}, stderr {err!r}")
    return decision


def reason_of(out, err):
    if err:
        return err.strip()
    o = json.loads(out)
    return o.get("hookSpecificOutput", o).get("permissionDecisionReason", o.get("reason"))


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="warder-hook.")
        self.root = os.path.join(self.tmp, "ws")
        make_workspace(self.root)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_hook(self, agent, event, *args, env=None, raw=None):
        """Runs `warder hook AGENT` with `event` (a dict, or `raw` bytes) on stdin."""
        data = raw if raw is not None else json.dumps(event).encode()
        e = dict(os.environ, HOME=HOME)
        e.pop("CLAUDE_PROJECT_DIR", None)
        e.pop("GEMINI_PROJECT_DIR", None)
        if env:
            e.update(env)
        p = subprocess.run([WARDER, "hook", agent, *args], input=data, capture_output=True,
                           env=e, cwd=self.root, timeout=120)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def decide(self, agent, event, *args, **kw):
        rc, out, err = self.run_hook(agent, event, *args, **kw)
        return check_answer(agent, rc, out, err), out, err

    def event(self, agent, tool, tool_input, **extra):
        ev = {"session_id": "s1", "transcript_path": "/dev/null", "cwd": self.root,
              "hook_event_name": AGENTS[agent]["event"], "tool_name": tool,
              "tool_input": tool_input}
        ev.update(extra)
        return ev

    def check(self, op, target, *args):
        """`warder check OP TARGET` in the workspace: its action."""
        p = subprocess.run([WARDER, "--json", "--root", self.root, "--home", HOME, *args,
                            "check", op, target], capture_output=True, cwd=self.root,
                           timeout=60)
        return json.loads(p.stdout)["decision"]["action"]


# ---- the validator is able to fail -----------------------------------------------------------

class Validator(unittest.TestCase):
    GOOD = ('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",'
            '"permissionDecisionReason":"warder: ask write x"}}\n')

    def test_accepts_a_good_answer(self):
        self.assertEqual(check_answer("claude-code", 0, self.GOOD, ""), "ask")

    def test_rejects_misspelt_answers(self):
        bad = [
            self.GOOD.replace("permissionDecision\"", "permissionDecison\""),
            self.GOOD.replace('"ask"', '"Ask"'),
            self.GOOD.replace("PreToolUse", "PostToolUse"),
            self.GOOD.replace("permissionDecisionReason", "reason"),
            self.GOOD.replace("hookSpecificOutput", "hookSpecificOutputs"),
        ]
        for out in bad:
            with self.assertRaises(SchemaError, msg=out):
                check_answer("claude-code", 0, out, "")
        # a deny that exits 0 would not block if the JSON went unread
        deny = self.GOOD.replace('"ask"', '"deny"')
        with self.assertRaises(SchemaError):
            check_answer("claude-code", 0, deny, "")
        with self.assertRaises(SchemaError):
            check_answer("gemini-cli", 2, '{"decision":"block","reason":"warder: x"}\n', "x\n")
        with self.assertRaises(SchemaError):
            check_answer("gemini-cli", 0, '{"decision":"ask","reason":"warder: x"}\n', "")


# ---- the fixtures ------------------------------------------------------------------------------

class Fixtures(Base):
    def load_fixture(self, rel):
        with open(os.path.join(HERE, "fixtures", rel)) as f:
            text = f.read().replace("@ROOT@", self.root)
        return json.loads(text)

    def expectations(self):
        with open(os.path.join(HERE, "fixtures", "expect.tsv")) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                rel, default, custom = line.rstrip("\n").split("\t")
                yield rel, default, custom

    def test_every_fixture_is_listed(self):
        listed = {rel for rel, _, _ in self.expectations()}
        for agent in AGENTS:
            for name in os.listdir(os.path.join(HERE, "fixtures", agent)):
                self.assertIn(f"{agent}/{name}", listed)
        self.assertGreaterEqual(len(listed), 40)

    def test_fixtures(self):
        custom = os.path.join(HERE, "custom.yaml")
        seen = set()
        for rel, default, expect_custom in self.expectations():
            agent = rel.split("/")[0]
            ev = self.load_fixture(rel)
            seen.add((agent, ev["tool_name"]))
            for args, want in (((), default), (("--rules", custom), expect_custom)):
                with self.subTest(fixture=rel, rules=args):
                    got, out, err = self.decide(agent, ev, *args)
                    self.assertEqual(got, want, f"{rel} {args}: {out}{err}")
        # every tool of the mapping table has a fixture
        tools = {
            "claude-code": ["Read", "NotebookRead", "Write", "Edit", "MultiEdit", "NotebookEdit",
                            "LS", "Glob", "Grep", "Bash"],
            "gemini-cli": ["read_file", "read_many_files", "write_file", "replace",
                           "list_directory", "glob", "search_file_content", "grep_search",
                           "run_shell_command"],
        }
        for agent, names in tools.items():
            for name in names:
                self.assertIn((agent, name), seen)


# ---- attacks through the hook ------------------------------------------------------------------

class Attacks(Base):
    def test_symlink_to_env(self):
        # control arm: without warder, the link reads the secret
        with open(os.path.join(self.root, "notes.txt")) as f:
            self.assertIn(SECRET, f.read())
        self.assertEqual(self.check("read", "notes.txt"), "deny")
        for agent, tool, field in (("claude-code", "Read", "file_path"),
                                   ("gemini-cli", "read_file", "file_path")):
            for spelling in ("notes.txt", os.path.join(self.root, "notes.txt")):
                got, out, err = self.decide(agent, self.event(agent, tool, {field: spelling}))
                self.assertEqual(got, "deny", spelling)
                self.assertIn("'**/.env' matched the real form", reason_of(out, err))

    def test_dotdot_spellings(self):
        spellings = ["src/../.env", self.root + "/src/../.env", "./src/./../.env",
                     self.root + "//sub/..//.env", "sub/../src/../.env"]
        for s in spellings:
            # control arm: the spelling reaches the secret
            with open(os.path.join(self.root, s)) as f:
                self.assertIn(SECRET, f.read(), s)
            self.assertEqual(self.check("read", s), "deny", s)
            for agent, tool in (("claude-code", "Read"), ("gemini-cli", "read_file")):
                got, _, _ = self.decide(agent, self.event(agent, tool, {"file_path": s}))
                self.assertEqual(got, "deny", s)

    def test_dotdot_after_a_symlink_goes_where_the_kernel_goes(self):
        # link -> sub/deeper; "link/../../.env" is the secret for the kernel, while the text
        # spells <root>/../.env
        os.makedirs(os.path.join(self.root, "sub", "deeper"))
        os.symlink("sub/deeper", os.path.join(self.root, "link"))
        spelling = "link/../../.env"
        with open(os.path.join(self.root, spelling)) as f:
            self.assertIn(SECRET, f.read())  # control arm
        got, out, err = self.decide("claude-code",
                                    self.event("claude-code", "Read", {"file_path": spelling}))
        self.assertEqual(got, "deny", out + err)

    def test_tilde_that_the_tool_does_not_expand(self):
        # a tool that does not expand "~" opens <cwd>/~/../.env, the secret
        os.makedirs(os.path.join(self.root, "~"))
        with open(os.path.join(self.root, "~/../.env")) as f:
            self.assertIn(SECRET, f.read())  # control arm
        for agent, tool in (("claude-code", "Read"), ("gemini-cli", "read_file")):
            got, _, _ = self.decide(agent, self.event(agent, tool, {"file_path": "~/../.env"}))
            self.assertEqual(got, "deny")

    def test_proc_root_path(self):
        spelling = "/proc/self/root" + self.root + "/.env"
        with open(spelling) as f:
            self.assertIn(SECRET, f.read())  # control arm
        got, _, _ = self.decide("claude-code",
                                self.event("claude-code", "Read", {"file_path": spelling}))
        self.assertEqual(got, "deny")

    def test_commands(self):
        sh_env = dict(os.environ)
        # control arm: the shell really prints the secret
        for cmd in ("cat .env", "cd sub && cat ../.env"):
            p = subprocess.run(["sh", "-c", cmd], cwd=self.root, capture_output=True,
                               env=sh_env)
            self.assertIn(SECRET, p.stdout.decode(), cmd)
        for cmd in ("cat .env", "cd sub && cat ../.env", "sudo mkfs.ext4 /dev/sda1",
                    "head -c 100 ./src/../.env", "ls -la", "git status"):
            want = self.check("execute", cmd)
            for agent, tool in (("claude-code", "Bash"), ("gemini-cli", "run_shell_command")):
                got, out, err = self.decide(agent, self.event(agent, tool, {"command": cmd}))
                self.assertEqual(got, want, f"{agent} {cmd}: {out}{err}")
        self.assertEqual(self.check("execute", "sudo mkfs.ext4 /dev/sda1"), "deny")
        # `warder check execute`, the hook and `warder exec` all resolve the link (§5.4)
        self.assertEqual(self.check("execute", "cat notes.txt"), "deny")
        got, _, _ = self.decide("claude-code", self.event("claude-code", "Bash",
                                                          {"command": "cat notes.txt"}))
        self.assertEqual(got, "deny")

    def test_command_from_its_directory(self):
        # Gemini's run_shell_command runs in dir_path: "cat ../.env" from sub is the secret
        ev = self.event("gemini-cli", "run_shell_command",
                        {"command": "cat ../.env", "dir_path": "sub"})
        got, _, _ = self.decide("gemini-cli", ev)
        self.assertEqual(got, "deny")
        # and Claude Code's Bash runs in the event's cwd
        ev = self.event("claude-code", "Bash", {"command": "cat ../.env"},
                        cwd=os.path.join(self.root, "sub"))
        got, _, _ = self.decide("claude-code", ev, "--root", self.root)
        self.assertEqual(got, "deny")

    def test_search_scope(self):
        # a search of the root would read .env: a hook cannot filter the agent's grep
        p = subprocess.run(["grep", "-r", "API_KEY", "."], cwd=self.root, capture_output=True)
        self.assertIn(SECRET, p.stdout.decode())  # control arm
        got, out, err = self.decide("claude-code", self.event(
            "claude-code", "Grep", {"pattern": "API_KEY", "path": self.root}))
        self.assertEqual(got, "deny")
        self.assertIn("it would read .env", reason_of(out, err))
        self.assertIn("cannot filter", reason_of(out, err))
        # a filter that excludes it, a directory without it, a single allowed file: allowed
        for inp in ({"pattern": "x", "glob": "*.c"}, {"pattern": "x", "path": "src"},
                    {"pattern": "x", "path": self.root + "/src/main.c"}):
            got, out, err = self.decide("claude-code", self.event("claude-code", "Grep", inp))
            self.assertEqual(got, "allow", f"{inp}: {out}{err}")
        # a filter warder cannot read the way the tool does is not applied
        for glob in ("!*.md", "{*.c,.env}", "**/.e*", "*.c,*.env"):
            got, _, _ = self.decide("claude-code", self.event(
                "claude-code", "Grep", {"pattern": "x", "glob": glob}))
            self.assertEqual(got, "deny", glob)
        # a link to the secret inside an otherwise harmless directory
        os.symlink("../.env", os.path.join(self.root, "src", "config"))
        got, _, _ = self.decide("claude-code", self.event(
            "claude-code", "Grep", {"pattern": "x", "path": "src"}))
        self.assertEqual(got, "deny")

    def test_scope_budget(self):
        # more entries than the budget: at least ask, never allow unchecked
        got, out, err = self.decide("claude-code", self.event(
            "claude-code", "Grep", {"pattern": "x", "path": "src"}), "--max-scan", "1",
            "--rules", os.path.join(HERE, "custom.yaml"))
        self.assertEqual(got, "allow")  # src holds one entry
        for i in range(5):
            with open(os.path.join(self.root, "src", f"f{i}.c"), "w") as f:
                f.write("x\n")
        got, out, err = self.decide("claude-code", self.event(
            "claude-code", "Grep", {"pattern": "x", "path": "src"}), "--max-scan", "3")
        self.assertEqual(got, "ask", out + err)
        self.assertIn("more entries", reason_of(out, err))

    def test_read_many_files_patterns(self):
        for include, want in ((["src/*.c"], "allow"), (["*"], "deny"), (["**/*.md"], "allow"),
                              ([".e*"], "deny"), (["notes.txt"], "deny"), (["../ws/.env"], "deny"),
                              ([self.root + "/src/main.c"], "allow"), ([self.root], "deny")):
            got, out, err = self.decide("gemini-cli", self.event(
                "gemini-cli", "read_many_files", {"include": include}))
            self.assertEqual(got, want, f"{include}: {out}{err}")

    def test_glob_and_ls_rules_on_names(self):
        rules = os.path.join(self.tmp, "names.yaml")
        with open(rules, "w") as f:
            f.write("warder: 1\ndefault: allow\nls:\n  rules:\n    - deny: 'private/*'\n"
                    "glob:\n  rules:\n    - ask: '**/plan.*'\n")
        got, _, _ = self.decide("claude-code", self.event("claude-code", "LS",
                                                          {"path": "private"}), "--rules", rules)
        self.assertEqual(got, "deny")
        got, _, _ = self.decide("claude-code", self.event("claude-code", "LS", {"path": "src"}),
                                "--rules", rules)
        self.assertEqual(got, "allow")
        got, _, _ = self.decide("claude-code", self.event("claude-code", "Glob",
                                                          {"pattern": "**/*"}), "--rules", rules)
        self.assertEqual(got, "ask")
        got, _, _ = self.decide("claude-code", self.event("claude-code", "Glob",
                                                          {"pattern": "**/*.c"}), "--rules", rules)
        self.assertEqual(got, "allow")
        # a pattern that climbs out of its base reaches what it names
        got, _, _ = self.decide("gemini-cli", self.event("gemini-cli", "glob", {
            "pattern": "../private/*", "dir_path": "src"}), "--rules", rules)
        self.assertEqual(got, "ask")


# ---- hostile stdin -----------------------------------------------------------------------------

class Hostile(Base):
    def deny(self, agent, raw, reason_part, *args):
        rc, out, err = self.run_hook(agent, None, *args, raw=raw)
        self.assertEqual(check_answer(agent, rc, out, err), "deny", f"{raw[:80]!r}: {out}{err}")
        self.assertIn(reason_part, reason_of(out, err), raw[:80])

    def test_hostile(self):
        good = self.event("claude-code", "Read", {"file_path": "src/main.c"})
        huge = json.dumps(dict(good, pad="x" * (33 << 20))).encode()
        cases = [
            (b"", "empty"),
            (b"{", "not valid JSON"),
            (b"\xff\xfe{}", "not valid JSON"),
            (b"[]", "not a JSON object"),
            (b"[" * 100000, "not valid JSON"),
            (huge, "larger than"),
            (json.dumps(dict(good, hook_event_name="PostToolUse")).encode(), "unknown event"),
            (json.dumps({k: v for k, v in good.items() if k != "hook_event_name"}).encode(),
             "hook_event_name"),
            (json.dumps({k: v for k, v in good.items() if k != "tool_input"}).encode(),
             "tool_input of Read is missing"),
            (json.dumps(dict(good, tool_input="src/main.c")).encode(), "not an object"),
            (json.dumps(dict(good, tool_input={"file_path": 7})).encode(), "must be a string"),
            (json.dumps(dict(good, tool_input={})).encode(), "file_path of Read is missing"),
            (json.dumps(dict(good, tool_input={"file_path": ""})).encode(), "empty"),
            (json.dumps(dict(good, tool_name=5)).encode(), "tool_name"),
            (json.dumps(dict(good, cwd="relative")).encode(), "absolute cwd"),
            (json.dumps(dict(good, cwd=None)).encode(), "absolute cwd"),
            (json.dumps(dict(good, tool_input={"file_path": "src/main.c\u0000/../../.env"}))
             .encode(), "NUL"),
            (b'{"hook_event_name":"PreToolUse","hook_event_name":"PreToolUse"}', "duplicate"),
            (json.dumps(dict(good, tool_name="Bash", tool_input={"command": ["ls"]})).encode(),
             "must be a string"),
            (json.dumps(dict(good, tool_name="Bash", tool_input={"command": ""})).encode(),
             "empty"),
            (json.dumps(dict(good, tool_name="Grep", tool_input={"pattern": "x", "path": {}}))
             .encode(), "must be a string"),
        ]
        for raw, part in cases:
            self.deny("claude-code", raw, part)
        gem = self.event("gemini-cli", "read_many_files", {"include": "src"})
        self.deny("gemini-cli", json.dumps(gem).encode(), "list of strings")
        gem = self.event("gemini-cli", "read_many_files", {"include": ["a"] * 2000})
        self.deny("gemini-cli", json.dumps(gem).encode(), "more than")
        self.deny("gemini-cli", json.dumps(dict(good, hook_event_name="PreToolUse")).encode(),
                  "unknown event")

    def test_a_big_valid_event_is_decided(self):
        ev = self.event("claude-code", "Write", {"file_path": "src/big.c",
                                                 "content": "x" * (8 << 20)})
        got, _, _ = self.decide("claude-code", ev)
        self.assertEqual(got, "ask")

    def test_ruleset_that_does_not_load(self):
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("warder: 1\nread:\n  rules:\n    - deny: '[z-a]'\n")
        ev = self.event("claude-code", "Read", {"file_path": "src/main.c"})
        rc, out, err = self.run_hook("claude-code", ev, "--rules", bad)
        self.assertEqual(check_answer("claude-code", rc, out, err), "deny")
        self.assertIn("ruleset does not load", err)
        self.assertIn("bad.yaml:4:", err)
        rc, out, err = self.run_hook("claude-code", ev, "--rules", self.tmp + "/missing.yaml")
        self.assertEqual(check_answer("claude-code", rc, out, err), "deny")

    def test_usage_errors_block(self):
        # a hook that cannot even start exits 2: the tool call is blocked, never let through
        ev = self.event("claude-code", "Read", {"file_path": "src/main.c"})
        for args in (("--unknown", "maybe"), ("--bogus",), ("--json",)):
            rc, out, err = self.run_hook("claude-code", ev, *args)
            self.assertEqual(rc, 2, args)
            self.assertTrue(err, args)


# ---- options and the rest ------------------------------------------------------------------------

class Options(Base):
    def test_unknown_tools(self):
        ev = self.event("claude-code", "WebFetch", {"url": "https://example.com"})
        self.assertEqual(self.decide("claude-code", ev)[0], "none")
        for action in ("allow", "ask", "deny"):
            got, out, err = self.decide("claude-code", ev, "--unknown", action)
            self.assertEqual(got, action)
            self.assertIn("does not know", reason_of(out, err))
        ev = self.event("gemini-cli", "mcp__server__tool", {})
        self.assertEqual(self.decide("gemini-cli", ev)[0], "none")
        self.assertEqual(self.decide("gemini-cli", ev, "--unknown", "deny")[0], "deny")

    def test_ask_as_deny(self):
        ev = self.event("gemini-cli", "write_file", {"file_path": "src/x.c", "content": ""})
        self.assertEqual(self.decide("gemini-cli", ev)[0], "ask")
        got, out, err = self.decide("gemini-cli", ev, "--ask-as-deny")
        self.assertEqual(got, "deny")
        self.assertIn("cannot ask", err)

    def test_root(self):
        # rules anchored at the root: ./sub/** asks. The event's cwd is sub/; the project
        # directory variable (or --root) says where the project is.
        rules = os.path.join(self.tmp, "anchored.yaml")
        with open(rules, "w") as f:
            f.write("warder: 1\ndefault: allow\nread:\n  rules:\n    - ask: './sub/**'\n")
        sub = os.path.join(self.root, "sub")
        for agent, tool, var in (("claude-code", "Read", "CLAUDE_PROJECT_DIR"),
                                 ("gemini-cli", "read_file", "GEMINI_PROJECT_DIR")):
            ev = self.event(agent, tool, {"file_path": "readme.txt"}, cwd=sub)
            # root = cwd (sub): ./sub/** names sub/sub
            self.assertEqual(self.decide(agent, ev, "--rules", rules)[0], "allow")
            self.assertEqual(self.decide(agent, ev, "--rules", rules,
                                         env={var: self.root})[0], "ask")
            self.assertEqual(self.decide(agent, ev, "--rules", rules, "--root", self.root)[0],
                             "ask")

    def test_audit(self):
        log = os.path.join(self.tmp, "audit.jsonl")
        for tool, inp in (("Read", {"file_path": ".env"}), ("Bash", {"command": "ls"}),
                          ("WebFetch", {"url": "x"})):
            self.decide("claude-code", self.event("claude-code", tool, inp), "--audit", log)
        with open(log) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([x["verdict"] for x in lines], ["deny", "ask", "none"])
        self.assertEqual(lines[0]["decision"]["rule"]["pattern"], "**/.env")
        self.assertEqual(lines[0]["door"], "hook")
        self.assertEqual(lines[1]["op"], "execute")
        # an audit file that cannot be opened is a deny, not a silent answer
        got, _, err = self.decide("claude-code", self.event("claude-code", "Read",
                                                            {"file_path": "src/main.c"}),
                                  "--audit", "/nonexistent/dir/audit.jsonl")
        self.assertEqual(got, "deny")

    def test_edit_needs_read(self):
        # §4.5: an edit tells whether its old text was there, so read rules count
        rules = os.path.join(self.tmp, "edit.yaml")
        with open(rules, "w") as f:
            f.write("warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: 'docs/**'\n")
        for agent, tool in (("claude-code", "Edit"), ("gemini-cli", "replace")):
            ev = self.event(agent, tool, {"file_path": "docs/guide.md", "old_string": "#",
                                          "new_string": "##"})
            got, out, err = self.decide(agent, ev, "--rules", rules)
            self.assertEqual(got, "deny")
            self.assertIn("rule read:0", reason_of(out, err))


class OwnFiles(Base):
    """§9.5: the agent may not change what decides it, whatever the ruleset allows."""

    TOOLS = {"claude-code": ("Write", "Edit", "Bash"),
             "gemini-cli": ("write_file", "replace", "run_shell_command")}

    def test_settings_ruleset_and_executable(self):
        rules = os.path.join(self.tmp, "allow.yaml")
        with open(rules, "w") as f:
            f.write("warder: 1\ndefault: allow\n")
        os.makedirs(os.path.join(self.root, ".claude"), exist_ok=True)
        settings = os.path.join(self.root, ".claude", "settings.json")
        with open(settings, "w") as f:
            f.write("{}\n")
        os.symlink(settings, os.path.join(self.root, "cfg"))
        # control arm: nothing but the hook stands in the way, the files are writable
        for path in (settings, rules):
            with open(path, "a"):
                pass
        self.assertEqual(self.check("write", ".claude/settings.json", "--rules", rules), "allow")
        protected = [".claude/settings.json", settings, "cfg", "src/../.claude/settings.json",
                     "./.claude//settings.json", ".claude/settings.local.json",
                     ".gemini/settings.json", rules, os.path.realpath(WARDER),
                     os.path.join(HOME, ".claude", "settings.json"),
                     os.path.join(HOME, ".gemini", "settings.json")]
        for agent, (write, edit, shell) in self.TOOLS.items():
            for path in protected:
                for tool, inp in ((write, {"file_path": path, "content": "{}"}),
                                  (edit, {"file_path": path, "old_string": "{",
                                          "new_string": "["})):
                    got, out, err = self.decide(agent, self.event(agent, tool, inp),
                                                "--rules", rules)
                    self.assertEqual(got, "deny", (agent, tool, path))
                    self.assertIn("§9.5", reason_of(out, err))
            for cmd in ("echo '{}' > .claude/settings.json", "rm -r .claude",
                        "mv .claude .old", "tee -a " + rules + " < /dev/null",
                        "cp /dev/null .claude/settings.json", "sed -i s/a/b/ " + rules):
                got, _, _ = self.decide(agent, self.event(agent, shell, {"command": cmd}),
                                        "--rules", rules)
                self.assertEqual(got, "deny", (agent, cmd))
            # the rest of the workspace stays the ruleset's to decide
            got, _, _ = self.decide(agent, self.event(agent, write, {"file_path": "src/new.c",
                                                                     "content": "x"}),
                                    "--rules", rules)
            self.assertEqual(got, "allow", agent)
            got, _, _ = self.decide(agent, self.event(agent, write,
                                                      {"file_path": ".claude/notes.md",
                                                       "content": "x"}),
                                    "--rules", rules)
            self.assertEqual(got, "allow", agent)
        # reading them is the ruleset's business (an agent may read its settings)
        got, _, _ = self.decide("claude-code", self.event("claude-code", "Read",
                                                          {"file_path": settings}),
                                "--rules", rules)
        self.assertEqual(got, "allow")


class Install(Base):
    SETTINGS = {
        "model": "sonnet",
        "permissions": {"allow": ["Bash(npm run *)"]},
        "hooks": {
            "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command",
                                                           "command": "npx prettier --write"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                          "command": "/usr/local/bin/audit.sh"}]}],
        },
    }

    def install(self, agent, *args):
        p = subprocess.run([WARDER, "hook", "install", agent, *args], capture_output=True,
                           cwd=self.root, env=dict(os.environ, HOME=self.tmp), timeout=60)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_round_trip(self):
        path = os.path.join(self.root, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            json.dump(self.SETTINGS, f)
        os.chmod(path, 0o640)
        rules = os.path.join(HERE, "custom.yaml")
        # without --write: prints, changes nothing
        rc, out, err = self.install("claude-code", "--rules", rules)
        self.assertEqual(rc, 0, err)
        with open(path) as f:
            self.assertEqual(json.load(f), self.SETTINGS)
        printed = json.loads(out)
        rc, out, err = self.install("claude-code", "--rules", rules, "--write")
        self.assertEqual(rc, 0, err)
        with open(path) as f:
            s = json.load(f)
        self.assertEqual(s, printed)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o640)
        self.assertEqual(s["model"], "sonnet")
        self.assertEqual(s["permissions"], self.SETTINGS["permissions"])
        self.assertEqual(s["hooks"]["PostToolUse"], self.SETTINGS["hooks"]["PostToolUse"])
        pre = s["hooks"]["PreToolUse"]
        self.assertEqual(pre[0], self.SETTINGS["hooks"]["PreToolUse"][0])
        self.assertEqual(len(pre), 2)
        self.assertEqual(pre[1]["matcher"], "*")
        cmd = pre[1]["hooks"][0]["command"]
        self.assertEqual(pre[1]["hooks"][0]["type"], "command")
        self.assertIn(" hook claude-code --rules ", cmd)
        self.assertIn(rules, cmd)
        # the registered command works as the agent runs it (sh -c, event on stdin)
        ev = self.event("claude-code", "Read", {"file_path": ".env"})
        p = subprocess.run(["sh", "-c", cmd], input=json.dumps(ev).encode(),
                           capture_output=True, cwd=self.root, timeout=60)
        self.assertEqual(check_answer("claude-code", p.returncode, p.stdout.decode(),
                                      p.stderr.decode()), "deny")
        # a second install changes nothing
        rc, _, err = self.install("claude-code", "--rules", rules, "--write")
        self.assertEqual(rc, 0)
        self.assertIn("already runs", err)
        with open(path) as f:
            self.assertEqual(json.load(f), s)
        # another ruleset replaces warder's command in place
        rc, _, err = self.install("claude-code", "--preset", "strict", "--write")
        self.assertEqual(rc, 0, err)
        with open(path) as f:
            s2 = json.load(f)
        self.assertEqual(len(s2["hooks"]["PreToolUse"]), 2)
        self.assertTrue(s2["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
                        .endswith("hook claude-code --preset strict"))

    def test_gemini_user_settings(self):
        rc, _, err = self.install("gemini-cli", "--user", "--write")
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.tmp, ".gemini", "settings.json")) as f:
            s = json.load(f)
        entry = s["hooks"]["BeforeTool"][0]
        self.assertEqual(entry["matcher"], "*")
        self.assertEqual(entry["hooks"][0]["name"], "warder")
        self.assertIn(" hook gemini-cli", entry["hooks"][0]["command"])

    def test_refuses_what_it_cannot_parse(self):
        path = os.path.join(self.root, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        for text in ('{"hooks": ', '{"a": 1, "a": 2}', '{"hooks": []}',
                     '{"hooks": {"PreToolUse": {}}}', '[]'):
            with open(path, "w") as f:
                f.write(text)
            rc, out, err = self.install("claude-code", "--write")
            self.assertEqual(rc, 4, text)
            self.assertIn("not changed", err)
            with open(path) as f:
                self.assertEqual(f.read(), text)
        # a ruleset that does not load is not installed
        os.unlink(path)
        rc, _, err = self.install("claude-code", "--rules", "/nonexistent.yaml", "--write")
        self.assertEqual(rc, 2)
        self.assertFalse(os.path.exists(path))


class Import(Base):
    def test_import(self):
        settings = {"permissions": {
            "allow": ["Bash(npm run *)", "Bash(git status:*)", "Read(src/**)", "Edit(/docs/**)",
                      "WebFetch(domain:example.com)", "Write", "mcp__github__*"],
            "ask": ["Bash(git push *)"],
            "deny": ["Read(./.env)", "Read(secrets/**)", "Bash(curl *)", "Agent(Explore)",
                     "Write(/build/**)", "Bash(run_in_background:true)", "Read(//etc/shadow)"],
            "defaultMode": "acceptEdits",
        }}
        path = os.path.join(self.root, ".claude", "settings.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            json.dump(settings, f)
        p = subprocess.run([WARDER, "import", "claude-code", path], capture_output=True,
                           cwd=self.root, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        err = p.stderr.decode()
        for entry in ("WebFetch(domain:example.com)", "'Write'", "mcp__github__*",
                      "Agent(Explore)", "Write(/build/**)", "run_in_background", "acceptEdits"):
            self.assertIn(entry, err)
        for entry in ("npm run", "Read(./.env)", "Bash(curl *)"):
            self.assertNotIn(entry, err)
        rules = os.path.join(self.tmp, "imported.yaml")
        with open(rules, "wb") as f:
            f.write(p.stdout)
        lint = subprocess.run([WARDER, "lint", rules], capture_output=True)
        self.assertEqual(lint.returncode, 0, lint.stdout + lint.stderr)
        os.makedirs(os.path.join(self.root, "a", "secrets"))
        cases = [("execute", "npm run build", "allow"), ("execute", "git status -s", "allow"),
                 ("execute", "git push origin", "ask"), ("execute", "curl http://x", "deny"),
                 ("read", ".env", "deny"), ("write", ".env", "deny"),
                 ("read", "a/secrets/key", "deny"), ("read", "src/main.c", "allow"),
                 ("edit", "docs/guide.md", "allow"), ("write", "docs/guide.md", "allow"),
                 ("edit", "src/main.c", "ask"), ("read", "/etc/shadow", "deny"),
                 ("read", "/etc/hostname", "ask")]
        for op, target, want in cases:
            self.assertEqual(self.check(op, target, "--rules", rules), want, (op, target))


if __name__ == "__main__":
    unittest.main(verbosity=2)
