# SPDX-License-Identifier: MIT
"""The protocol of `warder serve` (docs/serve.md), driven through a pipe: every method, every
error code, the approval token's life cycle, pipelining, a reload during a grep, cancel,
end of input with a running command, hostile lines, non-UTF-8 bytes, and the attack battery
through the server with the same decisions as the CLI."""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import (MAIN_C, SECRET, WARDER, Server, error, make_workspace,  # noqa: E402
                          result)

ASK_RULES = """warder: 1
default: allow
read:
  default: allow
  rules:
    - deny: "**/.env"
      reason: Protect sensitive files
    - ask: "**/*.ask"
write:
  default: ask
  rules:
    - deny: "**/.env"
execute:
  default: ask
  rules:
    - allow: "echo *"
    - allow: "sleep *"
    - allow: "exit *"
    - allow: "printf *"
    - deny: "rm -rf *"
"""


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="warder-serve.")
        self.root = os.path.join(self.tmp, "ws")
        make_workspace(self.root)
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def rules_file(self, text, name="rules.yaml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def serve(self, *args):
        s = Server(self.root, *args)
        self.servers.append(s)
        return s

    def put(self, rel, data):
        with open(os.path.join(self.root, rel), "wb") as f:
            f.write(data)

    def get(self, rel):
        with open(os.path.join(self.root, rel), "rb") as f:
            return f.read()


class Methods(Base):
    """Every method once, with the shape of its answer."""

    def test_info(self):
        s = self.serve()
        r = result(s.call("session.info"))
        self.assertEqual(r["name"], "warder")
        self.assertEqual(r["root"], self.root)
        self.assertEqual(r["home"], "/home/agent")
        self.assertEqual(r["ruleset"]["source"], "preset:default")
        self.assertRegex(r["ruleset"]["digest"], r"^sha256:[0-9a-f]{64}$")
        self.assertEqual(r["operations"],
                         ["read", "write", "edit", "ls", "glob", "grep", "execute"])
        self.assertIn("approve", r["methods"])
        self.assertEqual(r["limits"], {"max_line": 16777216, "max_depth": 64,
                                       "max_pending": 64})
        self.assertEqual(s.close(), 0)
        # without execute, the method and the operation are gone
        s = self.serve("--no-execute")
        r = result(s.call("session.info"))
        self.assertNotIn("execute", r["operations"])
        self.assertNotIn("execute", r["methods"])
        self.assertEqual(error(s.call("execute", {"command": "echo hi"}))["code"], -32601)

    def test_check_and_explain(self):
        s = self.serve()
        r = result(s.call("check", {"op": "read", "target": "notes.txt"}))
        self.assertEqual(r["target"], "notes.txt")
        d = r["decision"]
        self.assertEqual((d["action"], d["form"], d["rule"]["pattern"]),
                         ("deny", "real", "**/.env"))
        r = result(s.call("check", {"op": "read", "target": "src/main.c"}))
        self.assertEqual(r["decision"]["action"], "allow")
        r = result(s.call("check", {"op": "execute", "target": "cat notes.txt"}))
        self.assertEqual(r["decision"]["action"], "deny")
        self.assertEqual(r["decision"]["candidate"], os.path.join(self.root, "notes.txt"))
        r = result(s.call("explain", {"op": "read", "target": "notes.txt"}))
        self.assertEqual(r["literal"], os.path.join(self.root, "notes.txt"))
        self.assertEqual(r["real"], os.path.join(self.root, ".env"))
        self.assertEqual([m["id"] for m in r["matches"]], ["read:0"])
        self.assertEqual(r["decision"]["action"], "deny")
        # a given real form is decided too
        r = result(s.call("check", {"op": "read", "target": "a.txt", "real": ".env"}))
        self.assertEqual(r["decision"]["form"], "real")

    def test_operations(self):
        rules = self.rules_file(ASK_RULES.replace("write:\n  default: ask", "write:\n  default: allow"))
        s = self.serve("--rules", rules)
        r = result(s.call("read", {"path": "src/main.c"}))
        self.assertEqual(r, {"content": MAIN_C, "bytes": len(MAIN_C), "truncated": False})
        r = result(s.call("read", {"path": "src/main.c", "offset": 4, "limit": 4}))
        self.assertEqual(r["content"], MAIN_C[4:8])
        self.assertEqual(result(s.call("write", {"path": "new.txt", "content": "one two one"})),
                         {"bytes": 11})
        self.assertEqual(self.get("new.txt"), b"one two one")
        r = result(s.call("edit", {"path": "new.txt", "old": "one", "new": "1", "all": True}))
        self.assertEqual(r, {"replacements": 2})
        self.assertEqual(self.get("new.txt"), b"1 two 1")
        r = result(s.call("ls", {"path": "src"}))
        self.assertEqual([(e["name"], e["type"]) for e in r["entries"]], [("main.c", "file")])
        self.assertEqual(r["hidden"], 0)
        r = result(s.call("ls"))
        self.assertIn("notes.txt", [e["name"] for e in r["entries"]])
        r = result(s.call("glob", {"pattern": "**/*.c"}))
        self.assertEqual([e["path"] for e in r["entries"]],
                         [os.path.join(self.root, "src/main.c")])
        r = result(s.call("grep", {"pattern": "api_key", "ignore_case": True}))
        self.assertEqual([(m["path"], m["line"]) for m in r["matches"]],
                         [(os.path.join(self.root, "src/main.c"), 1)])
        self.assertEqual(r["hidden_files"], 1)  # .env: skipped, never searched
        r = result(s.call("grep", {"pattern": "o", "path": "new.txt", "max_matches": 1}))
        self.assertEqual(len(r["matches"]), 1)
        r = result(s.call("grep", {"pattern": "main", "include": "*.c"}))
        self.assertEqual(len(r["matches"]), 1)
        r = result(s.call("execute", {"command": "echo out; echo err >&2"}))
        self.assertEqual((r["exit_status"], r["signal"], r["stdout"], r["stderr"]),
                         (0, None, "out\n", "err\n"))
        self.assertFalse(r["timed_out"] or r["cancelled"] or r["stdout_truncated"])

    def test_execute_status_fields(self):
        rules = self.rules_file(ASK_RULES)
        s = self.serve("--rules", rules)
        # a command that exits 3 is not "approval required": its status has its own field
        r = result(s.call("execute", {"command": "echo x; exit 3"}))
        self.assertEqual((r["exit_status"], r["signal"], r["timed_out"]), (3, None, False))
        r = result(s.call("execute", {"command": "sleep 5", "timeout_ms": 200}))
        self.assertEqual((r["exit_status"], r["signal"], r["timed_out"]), (None, 9, True))
        r = result(s.call("execute", {"command": "echo 0123456789", "max_output": 4}))
        self.assertEqual((r["stdout"], r["stdout_truncated"]), ("0123", True))
        # streamed output comes as notifications for this request, capped the same way
        id = s.send("execute", {"command": "echo streamed", "stream": True})
        r = result(s.wait(id))
        note = s.wait_note(lambda n: n["method"] == "execute.output" and n["params"]["id"] == id)
        self.assertEqual(note["params"], {"id": id, "stream": "stdout", "data": "streamed\n"})

    def test_reload(self):
        rules = self.rules_file(ASK_RULES)
        s = self.serve("--rules", rules)
        digest = result(s.call("session.info"))["ruleset"]["digest"]
        r = result(s.call("ruleset.reload"))
        self.assertEqual(r, {"source": rules, "digest": digest, "changed": False})
        self.rules_file(ASK_RULES.replace('- ask: "**/*.ask"', '- deny: "**/*.ask"'))
        r = result(s.call("ruleset.reload"))
        self.assertTrue(r["changed"])
        self.assertNotEqual(r["digest"], digest)
        r = result(s.call("ruleset.reload", {"preset": "readonly"}))
        self.assertEqual(r["source"], "preset:readonly")
        self.assertEqual(result(s.call("check", {"op": "write", "target": "x"}))
                         ["decision"]["action"], "deny")
        r = result(s.call("ruleset.reload", {"yaml": "warder: 1\ndefault: allow\n"}))
        self.assertEqual(r["source"], "<reload>")
        # a broken ruleset: error with its location; the session keeps the one it had
        e = error(s.call("ruleset.reload", {"yaml": "warder: 1\nread:\n  rulez: []\n"}))
        self.assertEqual(e["code"], -32014)
        self.assertEqual((e["data"]["code"], e["data"]["file"], e["data"]["line"]),
                         ("WARDER_EPARSE", "<reload>", 3))
        self.assertIn("rulez", e["message"])
        self.assertEqual(result(s.call("check", {"op": "write", "target": "x"}))
                         ["decision"]["action"], "allow")
        e = error(s.call("ruleset.reload", {"rules": os.path.join(self.tmp, "missing.yaml")}))
        self.assertEqual(e["data"]["code"], "WARDER_ENOENT")
        e = error(s.call("ruleset.reload", {"preset": "default", "yaml": "x"}))
        self.assertEqual(e["code"], -32602)

    def test_audit(self):
        log = os.path.join(self.tmp, "audit.jsonl")
        s = self.serve("--audit", log)
        error(s.call("read", {"path": ".env"}))
        result(s.call("read", {"path": "src/main.c"}))
        self.assertEqual(s.close(), 0)
        with open(log) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual([(e["op"], e["target"], e["final_action"]) for e in lines],
                         [("read", ".env", "deny"), ("read", "src/main.c", "allow")])
        self.assertEqual(lines[0]["decision"]["rule"]["pattern"], "**/.env")


class Errors(Base):
    """Every error code, and the session survives each one."""

    def alive(self, s):
        self.assertEqual(result(s.call("check", {"op": "read", "target": "x"}))
                         ["decision"]["action"], "allow")

    def test_protocol_errors(self):
        s = self.serve()
        cases = [
            (b"not json\n", -32700, "parse error"),
            (b'{"jsonrpc":"2.0","id":1,"method":"check","method":"x"}\n', -32700, "duplicate"),
            (b'{"jsonrpc":"2.0","id":1,"method":"check","params":{"op":"read","target":"\xff"}}\n',
             -32700, "parse error"),
            (b'[{"jsonrpc":"2.0","id":1,"method":"session.info"}]\n', -32600, "batches"),
            (b'"just a string"\n', -32600, "JSON object"),
            (b'{"jsonrpc":"2.0","id":{"a":1},"method":"session.info"}\n', -32600, "\"id\""),
            (b'{"jsonrpc":"2.0","id":1.5,"method":"session.info"}\n', -32600, "\"id\""),
        ]
        for line, code, text in cases:
            s.send_raw(line)
            e = error(s.wait_anonymous()[0])
            self.assertEqual(e["code"], code, line)
            self.assertIn(text, e["message"], line)
        # errors that know the request's id answer with it
        named = [
            ({"jsonrpc": "1.0", "id": "a", "method": "session.info"}, -32600, "jsonrpc"),
            ({"jsonrpc": "2.0", "id": "b", "method": 7}, -32600, "method"),
            ({"jsonrpc": "2.0", "id": "c"}, -32600, "method"),
            ({"jsonrpc": "2.0", "id": "d", "method": "session.info", "extra": 1}, -32600,
             "extra"),
            ({"jsonrpc": "2.0", "id": "e", "method": "nope"}, -32601, "nope"),
            ({"jsonrpc": "2.0", "id": "f", "method": "check", "params": [1]}, -32602, "params"),
        ]
        for msg, code, text in named:
            s.send_raw(json.dumps(msg).encode() + b"\n")
            e = error(s.wait(msg["id"]))
            self.assertEqual(e["code"], code, msg)
            self.assertIn(text, e["message"], msg)
        self.alive(s)

    def test_param_errors_name_the_field(self):
        s = self.serve()
        cases = [
            ("read", {}, '"path" is required'),
            ("read", {"path": 1}, '"path"'),
            ("read", {"path": "x", "offset": -1}, '"offset"'),
            ("read", {"path": "x", "limit": "9"}, '"limit"'),
            ("read", {"path": "x", "pathh": "y"}, '"pathh"'),
            ("read", {"path": {"encoding": "base64", "data": "!!"}}, '"path"'),
            ("read", {"path": {"encoding": "hex", "data": "00"}}, '"path"'),
            ("write", {"path": "x"}, '"content" is required'),
            ("edit", {"path": "x", "old": "", "new": "y"}, '"old" must not be empty'),
            ("edit", {"path": "x", "old": "a", "new": "b", "all": "yes"}, '"all"'),
            ("grep", {"pattern": "a\u0000b"}, '"pattern" contains a NUL'),
            ("grep", {"pattern": "a", "ignore_case": 1}, '"ignore_case"'),
            ("check", {"op": "delete", "target": "x"}, '"op"'),
            ("check", {"op": "read"}, '"target" is required'),
            ("cancel", {"id": [1]}, '"id"'),
            ("approve", {}, '"token" is required'),
            ("approve", {"token": "wt1_00000000000000000000000000000000"}, "unknown token"),
            ("execute", {"command": "echo", "timeout_ms": 1e3}, '"timeout_ms"'),
            ("session.info", {"x": 1}, '"x"'),
        ]
        for method, params, text in cases:
            e = error(s.call(method, params))
            self.assertEqual(e["code"], -32602, (method, params))
            self.assertIn(text, e["message"], (method, params))
        self.alive(s)

    def test_warder_status_codes(self):
        rules = self.rules_file(ASK_RULES)
        s = self.serve("--rules", rules)
        e = error(s.call("read", {"path": ".env"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32001, "WARDER_EDENIED"))
        self.assertEqual(e["data"]["decision"]["rule"]["reason"], "Protect sensitive files")
        self.assertNotIn("approval", e["data"])  # a deny is never offered a token
        self.put("q.ask", b"question")
        e = error(s.call("read", {"path": "q.ask"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32002, "WARDER_EASK"))
        self.assertRegex(e["data"]["approval"]["token"], r"^wt1_[0-9a-f]{32}$")
        e = error(s.call("read", {"path": "missing.txt"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32004, "WARDER_ENOENT"))
        self.assertIsNone(e["data"]["decision"])
        e = error(s.call("read", {"path": "src"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32018, "WARDER_EISDIR"))
        e = error(s.call("read", {"path": "a\u0000b"}))  # NUL in a path: invalid, not cut
        self.assertEqual((e["code"], e["data"]["code"]), (-32006, "WARDER_EINVAL"))
        e = error(s.call("edit", {"path": "src/main.c", "old": "absent", "new": "x"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32019, "WARDER_ENOMATCH"))
        e = error(s.call("grep", {"pattern": "("}))
        self.assertEqual(e["data"]["code"], "WARDER_EPARSE")
        self.alive(s)

    def test_as_user(self):
        """--as-user (§6.6): a 0600 file of another uid is WARDER_EACCES with the path as the
        agent, and read by the host without it (control arm); root only."""
        p = subprocess.run([WARDER, "serve", "--as-user", "0"], input=b"", capture_output=True)
        self.assertEqual(p.returncode, 2)
        if os.geteuid() != 0:
            p = subprocess.run([WARDER, "serve", "--as-user", "40001:40001"], input=b"",
                               capture_output=True)
            self.assertEqual(p.returncode, 4)
            self.assertIn(b"cannot act as the agent", p.stderr)
            return
        os.chmod(self.tmp, 0o755)
        os.chmod(self.root, 0o755)
        self.put("theirs.txt", b"THEIRS")
        os.chown(os.path.join(self.root, "theirs.txt"), 40002, 40002)
        os.chmod(os.path.join(self.root, "theirs.txt"), 0o600)
        host = self.serve()
        self.assertEqual(result(host.call("read", {"path": "theirs.txt"}))["content"], "THEIRS")
        s = self.serve("--as-user", "40001:40001")
        e = error(s.call("read", {"path": "theirs.txt"}))
        self.assertEqual((e["code"], e["data"]["code"]), (-32016, "WARDER_EACCES"))
        self.assertIn("theirs.txt", e["message"] + json.dumps(e["data"]))
        self.assertEqual(result(s.call("read", {"path": "src/main.c"}))["content"], MAIN_C)
        self.alive(s)

    def test_busy(self):
        rules = self.rules_file(ASK_RULES)
        s = self.serve("--rules", rules, "--max-pending", "1")
        slow = s.send("execute", {"command": "sleep 30"})
        time.sleep(0.2)
        e = error(s.call("grep", {"pattern": "x"}))
        self.assertEqual(e["code"], -32000)
        self.assertIn("limit is 1", e["message"])
        # quick requests are answered in order and never count: cancel always gets through
        self.alive(s)
        self.assertEqual(result(s.call("cancel", {"id": slow})), {"cancelled": True})
        self.assertTrue(result(s.wait(slow))["cancelled"])
        self.assertEqual(len(result(s.call("grep", {"pattern": "API_KEY"}))["matches"]), 1)

    def test_duplicate_id_in_flight(self):
        rules = self.rules_file(ASK_RULES)
        s = self.serve("--rules", rules)
        s.send("execute", {"command": "sleep 30"}, id="same")
        time.sleep(0.2)
        s.send("check", {"op": "read", "target": "x"}, id="same")
        first = s.wait("same")
        self.assertEqual(error(first)["code"], -32600)
        self.assertIn("already used", error(first)["message"])
        s.call("cancel", {"id": "same"})
        self.assertTrue(result(s.wait("same"))["cancelled"])

    def test_long_line(self):
        s = self.serve("--max-line", "4096")
        s.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":"' +
                   b"a" * 5000 + b'"}}\n')
        e = error(s.wait_anonymous()[0])
        self.assertEqual(e["code"], -32600)
        self.assertIn("longer than 4096", e["message"])
        self.alive(s)

    def test_100mb_line(self):
        """A 100 MB line is refused as soon as it crosses the limit (16 MiB), the rest is
        discarded, and the next line is served."""
        s = self.serve()
        chunk = b"x" * (1 << 20)
        s.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":"')
        for i in range(100):
            s.send_raw(chunk)
            if i == 20:
                # refused before the line ends
                e = error(s.wait_anonymous()[0])
                self.assertIn("longer than 16777216", e["message"])
        s.send_raw(b'"}}\n')
        self.alive(s)
        self.assertEqual(s.anonymous, [])
        rss = 0
        with open("/proc/%d/status" % s.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    rss = int(line.split()[1]) * 1024
        self.assertLess(rss, 80 << 20)  # it never held the whole line

    def test_endless_line_then_eof(self):
        s = self.serve("--max-line", "4096")
        s.send_raw(b"[" * 10000)
        e = error(s.wait_anonymous()[0])
        self.assertIn("longer than", e["message"])
        self.assertEqual(s.close(), 0)

    def test_deep_nesting(self):
        s = self.serve()
        deep = {"op": "read", "target": "x", "real": None}
        inner = "x"
        for _ in range(70):
            inner = [inner]
        deep["real"] = inner
        s.send_raw(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "check",
                               "params": deep}).encode() + b"\n")
        e = error(s.wait(5))
        self.assertEqual(e["code"], -32600)
        self.assertIn("limit is 64", e["message"])
        s.send_raw(b"[" * 100000 + b"]" * 100000 + b"\n")
        e = error(s.wait_anonymous()[0])
        self.assertIn(e["code"], (-32700, -32600))
        self.alive(s)

    def test_many_values(self):
        """A line of millions of tiny values is refused before it is parsed (it would cost
        hundreds of MB); a 16 MB string of commas is one value and is fine."""
        s = self.serve()
        s.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"check","params":{"op":"read",'
                   b'"target":"x","real":[' + b"1," * 4000000 + b'1]}}\n')
        e = error(s.wait_anonymous()[0])
        self.assertEqual(e["code"], -32600)
        self.assertIn("more than 100000 values", e["message"])
        rss = 0
        with open("/proc/%d/status" % s.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    rss = int(line.split()[1]) * 1024
        self.assertLess(rss, 100 << 20)  # parsed, it costs about 350 MB
        s.send_raw(b'{"jsonrpc":"2.0","id":2,"method":"check","params":{"op":"read",'
                   b'"target":"' + b"a,[{" * 3000000 + b'"}}\n')
        self.assertIn(result(s.wait(2))["decision"]["action"], ("allow", "ask"))
        self.alive(s)

    def test_notifications_get_no_answer(self):
        s = self.serve()
        s.send_raw(b'{"jsonrpc":"2.0","method":"check","params":{"op":"read","target":"x"}}\n')
        s.send_raw(b'{"jsonrpc":"2.0","method":"nope"}\n')
        self.alive(s)
        self.assertEqual(s.anonymous, [])

    def test_bad_ruleset_at_start(self):
        bad = self.rules_file("warder: 1\nread:\n  rulez: []\n")
        p = subprocess.run([WARDER, "serve", "--rules", bad], input=b"", capture_output=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"rules.yaml:3:3: error: unknown key 'rulez'", p.stderr)
        self.assertEqual(p.stdout, b"")


class Approvals(Base):
    """The approval token's life cycle (docs/serve.md, "Approvals")."""

    def ask(self, s, method="read", params=None):
        e = error(s.call(method, params or {"path": "q.ask"}))
        self.assertEqual(e["code"], -32002, e)
        return e["data"]["approval"]["token"]

    def setUp(self):
        super().setUp()
        self.put("q.ask", b"the question")
        self.put("r.ask", b"another question")
        self.rules = self.rules_file(ASK_RULES)

    def test_accepted_once_refused_twice(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s)
        r = result(s.call("read", {"path": "q.ask", "approval": token}))
        self.assertEqual(r["content"], "the question")
        e = error(s.call("read", {"path": "q.ask", "approval": token}))
        self.assertEqual(e["code"], -32002)
        self.assertIn("unknown token", e["data"]["token_refused"])
        self.assertNotEqual(e["data"]["approval"]["token"], token)  # a fresh one

    def test_refused_for_another_request(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s)
        for params in ({"path": "r.ask"}, {"path": "q.ask", "offset": 1},
                       {"path": "./q.ask", "limit": 3}):
            e = error(s.call("read", dict(params, approval=token)))
            self.assertIn("another request", e["data"]["token_refused"], params)
        e = error(s.call("write", {"path": "q.ask", "content": "x", "approval": token}))
        self.assertIn("another request", e["data"]["token_refused"])
        self.assertEqual(self.get("q.ask"), b"the question")
        # the token still approves the request it was issued for, once
        self.assertEqual(result(s.call("read", {"path": "q.ask", "approval": token}))
                         ["content"], "the question")

    def test_write_binds_the_content(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s, "write", {"path": "out.txt", "content": "approved text"})
        e = error(s.call("write", {"path": "out.txt", "content": "other text",
                                   "approval": token}))
        self.assertIn("other parameters", e["data"]["token_refused"])
        self.assertFalse(os.path.exists(os.path.join(self.root, "out.txt")))
        result(s.call("write", {"path": "out.txt", "content": "approved text",
                                "approval": token}))
        self.assertEqual(self.get("out.txt"), b"approved text")

    def test_symlink_swapped_after_the_token(self):
        """The token binds the real form: pointing the name elsewhere voids it."""
        s = self.serve("--rules", self.rules)
        os.symlink("q.ask", os.path.join(self.root, "link.ask"))
        token = self.ask(s, "read", {"path": "link.ask"})
        os.unlink(os.path.join(self.root, "link.ask"))
        os.symlink("r.ask", os.path.join(self.root, "link.ask"))
        e = error(s.call("read", {"path": "link.ask", "approval": token}))
        self.assertIn("another request", e["data"]["token_refused"])

    def test_refused_after_a_reload_that_changes_the_decision(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s)
        # reloading the same rules keeps the digest: the token still works
        self.assertFalse(result(s.call("ruleset.reload"))["changed"])
        other = self.ask(s)
        self.rules_file(ASK_RULES.replace("    - ask: \"**/*.ask\"",
                                          "    - ask: \"**/*.ask\"\n      reason: changed"))
        self.assertTrue(result(s.call("ruleset.reload"))["changed"])
        e = error(s.call("read", {"path": "q.ask", "approval": token}))
        self.assertEqual(e["data"]["token_refused"],
                         "the ruleset changed since the token was issued")
        # and a reload that makes it a deny: no token can approve it
        self.rules_file(ASK_RULES.replace('- ask: "**/*.ask"', '- deny: "**/*.ask"'))
        result(s.call("ruleset.reload"))
        e = error(s.call("read", {"path": "q.ask", "approval": other}))
        self.assertEqual(e["code"], -32001)
        self.assertNotIn("approval", e["data"])

    def test_refused_after_expiry(self):
        s = self.serve("--rules", self.rules, "--approval-ttl", "0.3")
        self.assertEqual(result(s.call("session.info"))["approval_ttl_ms"], 300)
        token = self.ask(s)
        time.sleep(0.6)
        e = error(s.call("read", {"path": "q.ask", "approval": token}))
        self.assertIn("expired", e["data"]["token_refused"])

    def test_deny_is_never_approved(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s)
        for params in ({"path": ".env"}, {"path": "notes.txt"}):
            e = error(s.call("read", dict(params, approval=token)))
            self.assertEqual(e["code"], -32001, params)
        e = error(s.call("approve", {"token": "wt1_" + "0" * 32}))
        self.assertEqual(e["code"], -32602)

    def test_approve_method(self):
        s = self.serve("--rules", self.rules)
        token = self.ask(s, "write", {"path": "w.txt", "content": "by approve"})
        r = result(s.call("approve", {"token": token}))
        self.assertEqual(r, {"bytes": 10})
        self.assertEqual(self.get("w.txt"), b"by approve")
        self.assertEqual(error(s.call("approve", {"token": token}))["code"], -32602)
        token = self.ask(s, "execute", {"command": "echo approved; cat q.ask"})
        r = result(s.call("approve", {"token": token}))
        self.assertEqual(r["stdout"], "approved\nthe question")

    def test_tokens_are_random(self):
        s = self.serve("--rules", self.rules)
        tokens = {self.ask(s) for _ in range(50)}
        self.assertEqual(len(tokens), 50)


class Concurrency(Base):
    def setUp(self):
        super().setUp()
        self.rules = self.rules_file(ASK_RULES)

    def test_pipelining(self):
        """Many requests in one write: every one is answered, by id; a slow command does not
        hold back the quick requests sent after it."""
        s = self.serve("--rules", self.rules)
        lines = [json.dumps({"jsonrpc": "2.0", "id": "slow", "method": "execute",
                             "params": {"command": "sleep 0.5; echo late"}})]
        for i in range(200):
            lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "check",
                                     "params": {"op": "read", "target": "f%d" % i}}))
        lines.append(json.dumps({"jsonrpc": "2.0", "id": "read", "method": "read",
                                 "params": {"path": "src/main.c"}}))
        s.send_raw(("\n".join(lines) + "\n").encode())
        for i in range(200):
            self.assertEqual(result(s.wait(i))["target"], "f%d" % i)
        self.assertEqual(result(s.wait("read"))["content"], MAIN_C)
        self.assertEqual(result(s.wait("slow"))["stdout"], "late\n")
        self.assertEqual(s.order[-1], "slow")
        self.assertEqual(s.order[:200], list(range(200)))  # in order, inline

    def test_reload_during_grep(self):
        """A reload answered while a grep runs; the grep keeps the ruleset it started with
        (all of the secret files' hits or none, never some)."""
        big = os.path.join(self.root, "big")
        os.makedirs(big)
        line = b"filler line without the word\n" * 2000
        for i in range(300):
            with open(os.path.join(big, "f%03d.txt" % i), "wb") as f:
                f.write(line + b"needle %d\n" % i)
        for i in range(20):
            with open(os.path.join(big, "secret%02d.txt" % i), "wb") as f:
                f.write(line + b"needle in secret %d\n" % i)
        s = self.serve("--preset", "permissive")
        self.assertEqual(len(result(s.call("grep", {"pattern": "needle in secret", "path": "big"}))
                             ["matches"]), 0)  # permissive denies **/*secret* for read
        s.call("ruleset.reload", {"yaml": "warder: 1\ndefault: allow\n"})
        grep = s.send("grep", {"pattern": "needle", "path": "big"})
        reload = s.send("ruleset.reload", {"preset": "permissive"})
        self.assertTrue(result(s.wait(reload))["changed"])
        r = result(s.wait(grep))
        self.assertLess(s.order.index(reload), s.order.index(grep))
        secret_hits = [m for m in r["matches"] if "secret" in m["text"]]
        self.assertIn(len(secret_hits), (0, 20))
        self.assertEqual(len(r["matches"]) - len(secret_hits), 300)
        # requests after the reload see the new ruleset
        r = result(s.call("grep", {"pattern": "needle", "path": "big"}))
        self.assertEqual((len(r["matches"]), r["hidden_files"]), (300, 20))

    def test_cancel_sleep(self):
        s = self.serve("--rules", self.rules)
        t0 = time.monotonic()
        id = s.send("execute", {"command": "sleep 30"})
        time.sleep(0.3)
        self.assertEqual(result(s.call("cancel", {"id": id})), {"cancelled": True})
        r = result(s.wait(id))
        self.assertTrue(r["cancelled"])
        self.assertFalse(r["timed_out"])
        self.assertEqual((r["exit_status"], r["signal"]), (None, 9))
        self.assertLess(time.monotonic() - t0, 20)
        self.assertEqual(result(s.call("cancel", {"id": id})), {"cancelled": False})
        self.assertEqual(result(s.call("cancel", {"id": "never"})), {"cancelled": False})

    def test_eof_kills_running_commands(self):
        """End of input ends the session: a running command and what it started are killed,
        a double fork too (§6.4: the command's PID namespace dies with it). Its pids mean
        nothing out here, so processes are found by what they run (control arm: they were
        alive just before)."""
        s = self.serve("--rules", self.rules)
        marker = "30.%d" % (os.getpid() % 100000)
        id = s.send("execute", {"command": "(sleep %s &); sleep %s & echo started; "
                                           "sleep 30" % (marker, marker), "stream": True})
        s.wait_note(lambda n: n["method"] == "execute.output")
        deadline = time.monotonic() + 10
        while len(sleepers(marker)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(len(sleepers(marker)), 2)
        t0 = time.monotonic()
        self.assertEqual(s.close(), 0)
        self.assertLess(time.monotonic() - t0, 20)
        r = result(s.wait(id))
        self.assertTrue(r["cancelled"])
        deadline = time.monotonic() + 5
        while sleepers(marker) and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(sleepers(marker), [])


def sleepers(marker):
    """The live processes running `sleep MARKER`."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/cmdline" % name, "rb") as f:
                    argv = f.read().split(b"\0")
            except (FileNotFoundError, ProcessLookupError):
                continue
            if len(argv) >= 2 and argv[0].endswith(b"sleep") and argv[1] == marker.encode() \
                    and alive(int(name)):
                found.append(int(name))
    return found


def alive(pid):
    """A process that exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def group_members(pgid):
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(name))
    return members


class Bytes(Base):
    def test_non_utf8_round_trip(self):
        rules = self.rules_file(ASK_RULES.replace("write:\n  default: ask", "write:\n  default: allow"))
        s = self.serve("--rules", rules)
        data = bytes(range(256)) * 4 + b"\xff\xfe\x80"
        b64 = {"encoding": "base64", "data": base64.b64encode(data).decode()}
        result(s.call("write", {"path": "bin.dat", "content": b64}))
        self.assertEqual(self.get("bin.dat"), data)
        r = result(s.call("read", {"path": "bin.dat"}))
        self.assertEqual(r["content"]["encoding"], "base64")
        self.assertEqual(base64.b64decode(r["content"]["data"]), data)
        self.assertEqual(r["bytes"], len(data))
        # valid UTF-8 (NUL and control bytes too) comes back as text, byte for byte
        text = "h\u00e9llo \u2603\u0000\u0007\n"
        result(s.call("write", {"path": "t.txt", "content": text}))
        self.assertEqual(result(s.call("read", {"path": "t.txt"}))["content"], text)
        # a name that is not UTF-8: addressed in base64, listed in base64
        name = b"caf\xe9.txt"
        self.put(name.decode("latin-1"), b"x")  # latin-1 keeps the byte 0xe9
        os.rename(os.path.join(self.root, name.decode("latin-1")),
                  os.path.join(self.root.encode(), name))
        entries = result(s.call("ls"))["entries"]
        named = [e for e in entries if isinstance(e["name"], dict)]
        self.assertEqual(len(named), 1)
        self.assertEqual(base64.b64decode(named[0]["name"]["data"]), name)
        path = {"encoding": "base64", "data": base64.b64encode(name).decode()}
        self.assertEqual(result(s.call("read", {"path": path}))["content"], "x")
        # grep lines that are not UTF-8
        self.put("lat.txt", b"needle \xe9t\xe9\n")
        r = result(s.call("grep", {"pattern": "needle", "path": "lat.txt"}))
        self.assertEqual(base64.b64decode(r["matches"][0]["text"]["data"]), b"needle \xe9t\xe9")
        # command output that is not UTF-8
        r = result(s.call("execute", {"command": "printf '\\351\\n'"}))
        self.assertEqual(base64.b64decode(r["stdout"]["data"]), b"\xe9\n")

    def test_bytes_values_are_strict(self):
        s = self.serve()
        for bad in ({"encoding": "base64", "data": "YQ"},  # no padding
                    {"encoding": "base64", "data": "YR=="},  # non-canonical bits
                    {"encoding": "base64", "data": "Y Q=="},
                    {"encoding": "base64", "data": "YQ==", "x": 1}):
            e = error(s.call("check", {"op": "read", "target": bad}))
            self.assertEqual(e["code"], -32602, bad)


class Attacks(Base):
    """The guard's attack battery through the server: the same decisions as the CLI, each
    with a control arm showing the fixture really holds the secret."""

    def cli(self, *args):
        p = subprocess.run([WARDER, "--root", self.root, "--home", "/home/agent", "--json",
                            *args], capture_output=True, cwd=self.root)
        return p.returncode, json.loads(p.stdout) if p.stdout.strip() else None

    def test_control_arms(self):
        with open(os.path.join(self.root, "notes.txt")) as f:
            self.assertIn(SECRET, f.read())  # the symlink really reaches the secret
        p = subprocess.run(["sh", "-c", "cat .env"], cwd=self.root, capture_output=True)
        self.assertIn(SECRET.encode(), p.stdout)
        p = subprocess.run(["grep", "-r", "API_KEY", "."], cwd=self.root, capture_output=True)
        self.assertIn(SECRET.encode(), p.stdout)

    def test_unresolved_real_forms_name_their_cause(self):
        """A target whose real form cannot be resolved is at least ask, with a note naming
        the actual cause, the same as `warder check` (one implementation); once the root is
        gone nothing of a target exists, so its real form is its literal form (§3.2)."""
        outside = os.path.join(self.tmp, "outside.txt")
        with open(outside, "w") as f:
            f.write(SECRET)
        os.symlink(outside, os.path.join(self.root, "escape"))
        os.symlink("loop2", os.path.join(self.root, "loop1"))
        os.symlink("loop1", os.path.join(self.root, "loop2"))
        with open(os.path.join(self.root, "escape")) as f:
            self.assertIn(SECRET, f.read())  # control: the link really leaves the root
        s = self.serve()
        for target, cause in (("escape", "resolves outside the root"),
                              ("loop1/x", "too many levels of symbolic links")):
            d = result(s.call("check", {"op": "read", "target": target}))["decision"]
            self.assertEqual(d["action"], "ask", target)
            self.assertIn(cause, d["note"], target)
            _, c = self.cli("check", "read", target)
            self.assertEqual(c["decision"], d, target)
            e = result(s.call("explain", {"op": "read", "target": target}))["decision"]
            self.assertEqual((e["action"], e["note"]), ("ask", d["note"]), target)
        shutil.rmtree(self.root)
        d = result(s.call("check", {"op": "read", "target": "gone.txt"}))["decision"]
        self.assertEqual((d["action"], d["note"]), ("allow", None))
        p = subprocess.run([WARDER, "--root", self.root, "--home", "/home/agent", "--json",
                            "check", "read", os.path.join(self.root, "gone.txt")],
                           capture_output=True, cwd=self.tmp)
        self.assertEqual(json.loads(p.stdout)["decision"], d)

    def test_paths(self):
        s = self.serve()
        targets = [".env", "notes.txt", "src/../.env", "./src/../../ws/.env",
                   os.path.join(self.root, ".env"), os.path.join(self.root, "src/../notes.txt"),
                   "//" + self.root.lstrip("/") + "/.env", ".ssh/id_ed25519", "src/main.c"]
        for t in targets:
            answer = s.call("read", {"path": t})
            rc, cli = self.cli("read", t)
            if "error" in answer:
                d = answer["error"]["data"]["decision"]
                self.assertEqual(rc, 1, t)
                self.assertEqual(d, cli["decision"], t)
                self.assertNotIn(SECRET, json.dumps(answer))
            else:
                self.assertEqual(rc, 0, t)
                self.assertEqual(answer["result"]["content"], cli["content"], t)
            check = result(s.call("check", {"op": "read", "target": t}))
            rc, cli = self.cli("check", "read", t)
            self.assertEqual(check["decision"], cli["decision"], t)
        self.assertEqual(error(s.call("read", {"path": "notes.txt"}))["code"], -32001)

    def test_grep_filtering(self):
        s = self.serve()
        r = result(s.call("grep", {"pattern": "API_KEY"}))
        self.assertNotIn(SECRET, json.dumps(r))
        # §4.7: every hidden file in scope is skipped unopened and counted by name
        # (.env and the SSH key), whatever it holds
        self.assertEqual(r["hidden_files"], 2)
        rc, cli = self.cli("grep", "API_KEY")
        self.assertEqual(rc, 0)
        self.assertEqual(r["matches"], cli["matches"])
        self.assertEqual(r["hidden_files"], cli["hidden_files"])
        r = result(s.call("grep", {"pattern": "sk-live", "path": "notes.txt"}))
        self.assertEqual(r["matches"], [])

    def test_commands(self):
        s = self.serve()
        for cmd in ("cat .env", "cat notes.txt", "cd src && cat ../.env", "sh -c 'cat .env'",
                    "grep -r API_KEY .", "cp .env /tmp/x", "sudo mkfs.ext4 /dev/sda1"):
            e = error(s.call("execute", {"command": cmd}))
            rc, cli = self.cli("exec", "--", cmd)
            self.assertEqual(e["data"]["decision"]["action"], cli["decision"]["action"], cmd)
            self.assertEqual(e["data"]["decision"], cli["decision"], cmd)
            self.assertNotIn(SECRET, json.dumps(e))
            self.assertEqual(e["code"], -32001 if rc == 1 else -32002, cmd)

    def test_ls_and_glob_hide(self):
        s = self.serve("--preset", "strict")
        # strict asks for ls: nothing is listed without approval
        e = error(s.call("ls"))
        self.assertEqual(e["code"], -32002)


if __name__ == "__main__":
    unittest.main(verbosity=2)
