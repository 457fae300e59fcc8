# SPDX-License-Identifier: MIT
"""warder.Ruleset: every way to load one, check, explain, what it holds, and the strings it is
given — NUL bytes, bytes that are not UTF-8, text that looks like YAML syntax."""

import os
import tempfile
import unittest

from support import RULES, Workspace, warder


class Loading(unittest.TestCase):
    def test_from_yaml_str_and_bytes(self):
        for source in (RULES, RULES.encode()):
            rs = warder.Ruleset.from_yaml(source, root="/w", home="/home/u")
            self.assertEqual(rs.root, "/w")
            self.assertEqual(rs.home, "/home/u")
            self.assertEqual(rs.check("read", ".env").action, "deny")

    def test_from_file_and_its_errors(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rules.yaml")
            with open(path, "w") as f:
                f.write(RULES)
            rs = warder.Ruleset.from_file(path, root="/w")
            self.assertEqual(rs.check("read", "/w/x/.env").rule_id, "read:0")
            self.assertEqual(rs.check("read", "/w/x/.env").source.file, path)
            bad = os.path.join(d, "bad.yaml")
            with open(bad, "w") as f:
                f.write("warder: 1\nread:\n  rules:\n    - deny: \"a{b\"\n")
            with self.assertRaises(warder.WarderError) as cm:
                warder.Ruleset.from_file(bad, root="/w")
            e = cm.exception
            self.assertEqual(e.status_name, "WARDER_EPARSE")
            self.assertEqual((e.file, e.line), (bad, 4))
            self.assertGreater(e.column, 0)
            self.assertIn(f"{bad}:4:", str(e))
            with self.assertRaises(warder.WarderError) as cm:
                warder.Ruleset.from_file(os.path.join(d, "missing.yaml"))
            self.assertEqual(cm.exception.status_name, "WARDER_ENOENT")
            # a NUL in a file name would name another file: refused before the library
            with self.assertRaises(warder.WarderError) as cm:
                warder.Ruleset.from_file(path + "\0.txt")
            self.assertEqual(cm.exception.status_name, "WARDER_EINVAL")

    def test_from_preset(self):
        names = warder.Ruleset.preset_names()
        self.assertIn("default", names)
        for name in names:
            rs = warder.Ruleset.from_preset(name, root="/w", home="/home/u")
            self.assertIn(rs.default("read"), ("allow", "ask", "deny"))
        self.assertIn("warder: 1", warder.Ruleset.preset_source("default"))
        rs = warder.Ruleset.from_preset(root="/w", home="/home/u")
        self.assertEqual(rs.check("read", ".env").source.file, "preset:default")
        for bad in ("no-such-preset", "default\0x"):
            with self.assertRaises(warder.WarderError):
                warder.Ruleset.from_preset(bad)
        with self.assertRaises(warder.WarderError):
            warder.Ruleset.preset_source("default\0x")

    def test_from_dict(self):
        rs = warder.Ruleset.from_dict(
            {
                "warder": 1,
                "default": "allow",
                "read": {"rules": [{"deny": "**/.env", "reason": "secrets: \"quoted\"\n"}]},
                "execute": {"default": "ask", "rules": [{"allow": "git status*"}]},
            },
            root="/w",
        )
        d = rs.check("read", "a/.env")
        self.assertEqual((d.action, d.pattern), ("deny", "**/.env"))
        self.assertEqual(d.reason, 'secrets: "quoted"\n')
        self.assertEqual(rs.check("execute", "git status -s").action, "allow")
        self.assertEqual(rs.check("execute", "git push").action, "ask")

    def test_from_dict_strings_are_never_yaml_syntax(self):
        # A pattern that starts with YAML syntax (alias, anchor, tag, flow, comment) and
        # characters YAML forbids in a document are written escaped: they decide as given.
        patterns = ["*.secret", "&anchor", "!tag", "[abc]x", "{a,b}", "#x", "| x",
                    "ä/ü/€/😀", "tab\there", "del\x7fx", "c1\x85x", "- x", "? x"]
        for pattern in patterns:
            rs = warder.Ruleset.from_dict(
                {"warder": 1, "default": "allow", "execute": {"rules": [{"deny": pattern}]}},
                root="/w")
            self.assertEqual(rs.rules("execute")[0].pattern, pattern)
        rs = warder.Ruleset.from_dict(
            {"warder": 1, "default": "allow", "read": {"rules": [{"deny": "ä/*"}]}}, root="/w")
        self.assertEqual(rs.check("read", "ä/x").action, "deny")

    def test_from_dict_is_checked_like_yaml(self):
        for bad in ({"warder": 2}, {"warder": 1, "read": {"rules": [{"deny": ""}]}},
                    {"warder": 1, "read": {"rules": [{"permit": "x"}]}},
                    {"warder": 1, "bogus": True}):
            with self.assertRaises(warder.WarderError) as cm:
                warder.Ruleset.from_dict(bad, root="/w")
            self.assertIn(cm.exception.status_name, ("WARDER_EPARSE", "WARDER_EINVAL"))
            self.assertEqual(cm.exception.file, "<dict>")
        with self.assertRaises(TypeError):
            warder.Ruleset.from_dict({"warder": 1, 3: "x"})
        with self.assertRaises(TypeError):
            warder.Ruleset.from_dict(["warder"])

    def test_limits_and_options(self):
        with self.assertRaises(warder.WarderError) as cm:
            warder.Ruleset.from_yaml(RULES, root="/w", max_rules=2)
        self.assertEqual(cm.exception.status_name, "WARDER_ETOOBIG")
        with self.assertRaises(TypeError):
            warder.Ruleset.from_yaml(RULES, root="/w", no_such_limit=1)
        with self.assertRaises(warder.WarderError):
            warder.Ruleset.from_yaml(RULES, root="relative")
        with self.assertRaises(warder.WarderError):
            warder.Ruleset.from_yaml("warder: 1\nread:\n  rules:\n    - deny: '~/x'\n",
                                     root="/w")  # `~` without a home

    def test_constructor_is_not_public(self):
        with self.assertRaises(TypeError):
            warder.Ruleset(0)


class Checking(Workspace):
    def test_decisions_carry_the_rule(self):
        d = self.rules.check("read", ".env")
        self.assertEqual(d.action, "deny")
        self.assertTrue(d.denied and not d.allowed and not d.needs_approval)
        self.assertEqual(d.op, "read")
        self.assertEqual(d.rule_id, "read:0")
        self.assertEqual(d.pattern, "**/.env")
        self.assertEqual(d.reason, "Protect sensitive files")
        self.assertEqual(d.source, warder.Source("<string>", 6, 7))
        self.assertEqual(str(d.source), "<string>:6:7")
        self.assertEqual(d.form, "both")
        self.assertFalse(d.by_default)
        d = self.rules.check("read", "src/main.c")
        self.assertEqual((d.action, d.by_default, d.form, d.rule_id), ("allow", True,
                                                                         "default", None))
        self.assertEqual(self.rules.check("read", "a.ask").action, "ask")
        self.assertEqual(self.rules.check("write", "src/x.c").action, "allow")
        self.assertEqual(self.rules.check("write", "README").action, "ask")
        for op in ("edit", "ls", "glob", "grep"):
            self.assertIn(self.rules.check(op, "x").action, ("allow", "ask", "deny"))

    def test_real_form(self):
        d = self.rules.check("read", "notes.txt", real=self.p(".env"))
        self.assertEqual((d.action, d.form), ("deny", "real"))
        self.assertEqual(self.rules.check("read", "notes.txt").action, "allow")

    def test_execute(self):
        d = self.rules.check("execute", "echo hi; rm -rf /")
        self.assertEqual(d.action, "deny")
        self.assertEqual(d.segment, "rm -rf /")
        d = self.rules.check("execute", "cat .env")
        self.assertEqual(d.action, "deny")  # the argument is decided for read (§5.4)
        self.assertEqual(d.candidate_op, "read")
        self.assertTrue(d.candidate.endswith("/.env"))
        self.assertEqual(self.rules.check("execute", "echo hi").action, "allow")
        self.assertEqual(self.rules.check("execute", "unknown-tool").action, "ask")
        with self.assertRaises(warder.WarderError):
            self.rules.check("execute", "ls", real="/x")

    def test_nul_is_refused_everywhere(self):
        # "notes\0/../.env" as a C string is "notes": allowed. Length-delimited: refused.
        for op, target in (("read", "notes\0/../.env"), ("read", b"x\0.env"),
                           ("execute", "echo hi\0; cat .env"), ("write", "src/\0")):
            with self.assertRaises(warder.WarderError) as cm:
                self.rules.check(op, target)
            self.assertEqual(cm.exception.status_name, "WARDER_EINVAL")
            self.assertIn("NUL", cm.exception.message)
        self.assertStatus("WARDER_EINVAL", self.rules.check, "read", "notes", real="/x\0")
        self.assertStatus("WARDER_EINVAL", self.rules.explain, "read", "a\0.env")
        self.assertStatus("WARDER_EINVAL", self.rules.check, "read", "")

    def test_non_utf8_targets(self):
        name = b"caf\xe9/.env"  # latin-1, not UTF-8
        self.assertEqual(self.rules.check("read", name).action, "deny")
        as_str = os.fsdecode(name)  # the surrogate-escaped str names the same bytes
        self.assertEqual(self.rules.check("read", as_str).action, "deny")
        self.assertEqual(self.rules.check("read", b"\xff\xfe").action, "allow")
        ex = self.rules.explain("read", name)
        self.assertEqual(os.fsencode(ex.literal), os.fsencode(self.root) + b"/" + name)

    def test_pathlike_and_bad_types(self):
        import pathlib
        self.assertEqual(self.rules.check("read", pathlib.Path(self.root) / ".env").action,
                         "deny")
        with self.assertRaises(TypeError):
            self.rules.check("read", 42)
        with self.assertRaises(warder.WarderError) as cm:
            self.rules.check("delete", "x")
        self.assertEqual(cm.exception.status_name, "WARDER_EINVAL")

    def test_repeated_checks_agree(self):
        first = self.rules.check("read", ".env")
        for _ in range(3):
            self.assertEqual(self.rules.check("read", "x/.env"), first)
        self.assertNotEqual(self.rules.check("read", "x"), first)

    def test_explain(self):
        ex = self.rules.explain("read", "notes.txt", real=self.p(".env"))
        self.assertEqual(ex.op, "read")
        self.assertEqual(ex.literal, self.p("notes.txt"))
        self.assertEqual(ex.real, self.p(".env"))
        self.assertEqual(ex.decision.action, "deny")
        self.assertEqual([(m.form, m.rule.id) for m in ex.matches], [("real", "read:0")])
        ex = self.rules.explain("execute", "rm -rf /tmp")
        self.assertEqual(ex.literal, "rm -rf /tmp")
        self.assertEqual(ex.matches[0].rule.pattern, "rm -rf *")

    def test_what_it_holds(self):
        rs = self.rules
        self.assertTrue(rs.digest.startswith("sha256:"))
        self.assertEqual(len(rs.digest), 7 + 64)
        self.assertEqual(rs.precedence, "first-match")
        self.assertFalse(rs.fold_case)
        self.assertEqual(rs.default("write"), "ask")
        rules = rs.rules("read")
        self.assertEqual([r.id for r in rules], ["read:0", "read:1", "read:2"])
        self.assertEqual(rules[0], warder.Rule("read", "deny", 0, "read:0", "**/.env",
                                               "Protect sensitive files",
                                               warder.Source("<string>", 6, 7)))
        self.assertIn("Ruleset", repr(rs))

    def test_run_tests(self):
        rs = warder.Ruleset.from_yaml(
            "warder: 1\ndefault: allow\nread:\n  rules:\n    - deny: \"**/.env\"\n"
            "tests:\n  cases:\n    - {op: read, target: .env, expect: deny}\n"
            "    - {op: read, target: x, expect: deny}\n", root="/w")
        report = rs.run_tests()
        self.assertEqual((report.passed, report.failed), (1, 1))
        self.assertIn("expected deny, got allow", report.failures[0])

    def test_closed(self):
        rs = warder.Ruleset.from_yaml(RULES, root="/w")
        rs.close()
        rs.close()
        self.assertStatus("WARDER_EINVAL", rs.check, "read", "x")
        self.assertIn("closed", repr(rs))
        with warder.Ruleset.from_yaml(RULES, root="/w") as rs2:
            self.assertEqual(rs2.check("read", "x").action, "allow")
        self.assertStatus("WARDER_EINVAL", rs2.check, "read", "x")


if __name__ == "__main__":
    unittest.main()
