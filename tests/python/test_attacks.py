# SPDX-License-Identifier: MIT
"""The attack battery of the CLI, through the Python API, under the embedded default preset:
a symlink to .env, `..` and other spellings, a symlinked parent, grep over a denied file, and
`cat .env` in a command. Each refusal has its control arm (the same thing without warder
really reaches the secret), and each decision is the one the CLI makes."""

import json
import os
import subprocess
import unittest

from support import SECRET, Workspace, warder

WARDER = os.environ.get("WARDER_CLI")


class Attacks(Workspace):
    def setUp(self):
        super().setUp()
        self.rules = warder.Ruleset.from_preset("default", root=self.root, home="/home/agent")

    def cli(self, *args):
        if not WARDER:
            self.skipTest("WARDER_CLI is not set (meson sets it)")
        p = subprocess.run([WARDER, "--root", self.root, "--home", "/home/agent", "--json",
                            *args], capture_output=True, cwd=self.root)
        return p.returncode, json.loads(p.stdout) if p.stdout.strip() else None

    def same_as_cli(self, decision, cli):
        want = cli["decision"]
        self.assertEqual(decision.action, want["action"])
        self.assertEqual(decision.form, want["form"] or "default")
        self.assertEqual(decision.by_default, want["by_default"])
        if want["rule"]:
            r = want["rule"]
            self.assertEqual((decision.rule_id, decision.pattern, decision.reason),
                             (r["id"], r["pattern"], r["reason"]))
            self.assertEqual(decision.source, warder.Source(r["file"], r["line"], r["column"]))
        self.assertEqual(decision.segment, want["segment"])
        self.assertEqual(decision.candidate, want["candidate"])
        self.assertEqual(decision.candidate_op, want["candidate_op"])

    def test_control_arms(self):
        # without warder each of these reaches the secret
        with open(self.p("notes.txt")) as f:
            self.assertIn(SECRET, f.read())
        with open(self.p("src/../.env")) as f:
            self.assertIn(SECRET, f.read())
        p = subprocess.run(["sh", "-c", "cat .env"], cwd=self.root, capture_output=True)
        self.assertIn(SECRET.encode(), p.stdout)
        p = subprocess.run(["grep", "-r", "API_KEY", "."], cwd=self.root, capture_output=True)
        self.assertIn(SECRET.encode(), p.stdout)
        # and so does an unguarded backend
        b = self.local(exec=True)
        self.assertIn(SECRET.encode(), b.read(self.p("notes.txt")))
        self.assertIn(SECRET.encode(), b.execute("cat .env").stdout)
        self.assertTrue(any(SECRET.encode() in m.text for m in b.grep("API_KEY", self.root)))

    def test_paths(self):
        g = self.guard()
        targets = [".env", "notes.txt", "src/../.env", "./src/../../ws/.env",
                   self.p(".env"), self.p("src/../notes.txt"), "//" + self.root.lstrip("/") +
                   "/.env", self.p(".env") + "/", ".ssh/id_ed25519", "src/../.ssh/id_ed25519"]
        for t in targets:
            with self.subTest(target=t):
                with self.assertRaises(warder.PermissionDenied) as cm:
                    g.read(t)
                self.assertNotIn(SECRET, str(cm.exception))
                rc, cli = self.cli("read", t)
                self.assertEqual(rc, 1)
                self.same_as_cli(cm.exception.decision, cli)
                rc, cli = self.cli("check", "read", t)
                self.same_as_cli(g.check("read", t), cli)
        # the allowed control through the same guard
        self.assertEqual(g.read("src/main.c")[:3], b"int")
        self.assertEqual(g.read(b"src/./main.c")[:3], b"int")

    def test_symlink_forms(self):
        g = self.guard()
        # a symlinked parent directory
        os.symlink(".", self.p("loop"))
        os.symlink(self.root, self.p("src/up"))
        for t in ("loop/.env", "src/up/.env", "loop/notes.txt"):
            with self.subTest(target=t):
                with self.assertRaises(warder.PermissionDenied):
                    g.read(t)
        # a symlink as a write target pointing at a denied file
        with self.assertRaises(warder.WarderError):
            g.write("notes.txt", b"overwritten", approved=True)
        with open(self.p(".env")) as f:
            self.assertIn(SECRET, f.read())
        # out of the root
        for t in ("../../etc/passwd", "/etc/passwd"):
            with self.assertRaises(warder.WarderError):
                g.read(t)

    def test_grep_filtering(self):
        g = self.guard()
        r = g.grep("API_KEY")
        self.assertEqual(list(r), [])
        self.assertGreaterEqual(r.hidden_files, 1)  # .env, and whatever else read denies
        rc, cli = self.cli("grep", "API_KEY")
        self.assertEqual(rc, 0)
        self.assertEqual(cli["hidden_files"], r.hidden_files)
        self.assertEqual(list(g.grep("sk-live", "notes.txt")), [])
        r = g.grep("API", glob=".env")
        self.assertEqual(list(r), [])
        self.assertTrue(all(SECRET.encode() not in m.text for m in g.grep(".")))
        # control: the same pattern through the guard finds what it may
        self.assertEqual([m.path for m in g.grep("int main")], [self.p("src/main.c")])

    def test_ls_and_glob_hide_what_their_rules_refuse(self):
        # §4.6: an entry that its own operation's rules do not allow is removed and counted
        rules = warder.Ruleset.from_yaml(
            "warder: 1\ndefault: allow\nls:\n  rules:\n    - deny: '**/.ssh'\n"
            "glob:\n  rules:\n    - deny: '**/.env'\n", root=self.root)
        g = warder.GuardedBackend(self.local(), rules)
        plain = self.local()
        listed = g.ls(".")
        self.assertNotIn(".ssh", [e.name for e in listed])
        self.assertEqual(listed.hidden, 1)
        self.assertIn(".ssh", [e.name for e in plain.ls(self.root)])  # control arm
        found = g.glob("**")
        self.assertNotIn(self.p(".env"), [e.path for e in found])
        self.assertIn(self.p(".env"), [e.path for e in plain.glob("**", self.root)])
        self.assertGreaterEqual(found.hidden, 1)

    def test_commands(self):
        g = self.guard(self.local(exec=True))
        for cmd in ("cat .env", "cat notes.txt", "cd src && cat ../.env", "sh -c 'cat .env'",
                    "grep -r API_KEY .", "cp .env /tmp/x", "cat src/../.env"):
            with self.subTest(command=cmd):
                with self.assertRaises(warder.WarderError) as cm:
                    g.execute(cmd)
                self.assertNotIn(SECRET, str(cm.exception))
                rc, cli = self.cli("exec", "--", cmd)
                self.assertEqual(cli["status"], {warder.PermissionDenied: "denied",
                                                 warder.ApprovalRequired: "ask"}
                                 [type(cm.exception)])
                self.same_as_cli(cm.exception.decision, cli)
        # NUL: "echo hi\0; cat .env" would be "echo hi" as a C string; it is refused
        self.assertStatus("WARDER_EINVAL", g.execute, "echo hi\0; cat .env")
        r = g.execute("echo hi", approved=True)  # control: an approved command runs
        self.assertEqual(r.stdout, b"hi\n")
        with self.assertRaises(warder.PermissionDenied):
            g.execute("cat .env", approved=True)  # approval never turns a deny

    def test_case_variants_are_decided_as_the_cli_decides(self):
        g = self.guard()
        for t in (".ENV", ".Env", "SRC/../.env"):
            rc, cli = self.cli("check", "read", t)
            self.same_as_cli(g.check("read", t), cli)


if __name__ == "__main__":
    unittest.main()
