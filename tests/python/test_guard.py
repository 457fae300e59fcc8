# SPDX-License-Identifier: MIT
"""warder.GuardedBackend: decisions as exceptions carrying the decision, the ask and audit
callbacks (sync and async, approving, declining, deferring, raising), hot swap, and a
backend written in Python under the guard."""

import asyncio
import errno
import os
import unittest

from support import SECRET, Workspace, warder


class Guard(Workspace):
    def test_every_method(self):
        g = self.guard()
        self.assertEqual(g.read("src/main.c"), b"int main(void) { return 0; }\n")
        self.assertEqual(g.read(self.p("src/main.c"), 4, 4), b"main")
        g.write("src/x.c", b"one")
        self.assertEqual(g.edit("src/x.c", b"one", b"two"), 1)
        self.assertEqual(g.read("src/x.c"), b"two")
        self.assertEqual([e.name for e in g.ls("src")], ["main.c", "x.c"])
        self.assertEqual([e.path for e in g.glob("src/*.c")],
                         [self.p("src/main.c"), self.p("src/x.c")])
        self.assertEqual([m.path for m in g.grep("main")], [self.p("src/main.c")])
        self.assertEqual(g.realpath(self.p("notes.txt")), self.p(".env"))
        self.assertStatus("WARDER_EINVAL", g.realpath, "notes.txt")  # the guard wants it absolute
        self.assertEqual(g.check("read", "notes.txt").form, "real")
        self.assertFalse(hasattr(g, "execute"))  # the inner backend cannot execute
        self.assertEqual(g.ruleset.digest, self.rules.digest)

    def test_refusals_carry_the_decision(self):
        g = self.guard()
        with self.assertRaises(warder.PermissionDenied) as cm:
            g.read(".env")
        e = cm.exception
        self.assertEqual((e.status, e.status_name), (-1, "WARDER_EDENIED"))
        self.assertEqual(e.decision.rule_id, "read:0")
        self.assertEqual(e.decision.reason, "Protect sensitive files")
        self.assertIn("Protect sensitive files", str(e))
        self.assertNotIn(SECRET, str(e))
        with self.assertRaises(warder.ApprovalRequired) as cm:
            g.write("README", b"x")  # write defaults to ask, and no ask callback
        self.assertEqual(cm.exception.decision.action, "ask")
        self.assertTrue(cm.exception.decision.by_default)
        self.assertFalse(os.path.exists(self.p("README")))
        g.write("README", b"x", approved=True)  # the host approved it out of band
        self.assertTrue(os.path.exists(self.p("README")))
        with self.assertRaises(warder.PermissionDenied):
            g.write(".env", b"x", approved=True)  # approval never turns a deny
        self.assertTrue(issubclass(warder.PermissionDenied, warder.WarderError))
        self.assertTrue(issubclass(warder.ApprovalRequired, warder.WarderError))

    def test_inner_is_taken_over(self):
        inner = self.local()
        g = self.guard(inner)
        with self.assertRaises(warder.WarderError) as cm:
            inner.read(self.p(".env"))  # no way around the guard through the old handle
        self.assertIn("guard", str(cm.exception))
        g.close()
        self.assertStatus("WARDER_EINVAL", g.read, "src/main.c")
        inner.close()  # harmless: the guard freed it

    def test_ask_answers(self):
        seen = []

        def ask(request, decision):
            seen.append((request, decision))
            return answers.pop(0)

        g = self.guard(ask=ask)
        answers = [True, False, None, 1, warder.DEFER]
        self.assertEqual(g.read("a.ask"), b"needs a yes\n")
        req, dec = seen[0]
        self.assertEqual((req.op, req.target, req.literal, req.real),
                         ("read", "a.ask", self.p("a.ask"), self.p("a.ask")))
        self.assertEqual(req.ruleset_digest, self.rules.digest)
        self.assertEqual((dec.action, dec.pattern), ("ask", "**/*.ask"))
        for _ in range(3):  # False, None and 1 all decline: only True approves
            with self.assertRaises(warder.PermissionDenied):
                g.read("a.ask")
        with self.assertRaises(warder.ApprovalRequired):
            g.read("a.ask")  # DEFER: not answered now
        self.assertEqual(len(seen), 5)
        with self.assertRaises(warder.PermissionDenied):
            g.read(".env")  # deny is never asked
        self.assertEqual(len(seen), 5)

    def test_async_ask_without_a_loop(self):
        async def ask(request, decision):
            await asyncio.sleep(0)
            return request.target == "a.ask"

        g = self.guard(ask=ask)
        self.assertEqual(g.read("a.ask"), b"needs a yes\n")
        with self.assertRaises(warder.PermissionDenied):
            g.write("README", b"x")

    def test_async_ask_inside_a_running_loop_is_refused(self):
        async def ask(request, decision):
            return True

        g = self.guard(ask=ask)

        async def main():
            g.read("a.ask")  # a synchronous call from a coroutine: cannot await the answer

        with self.assertRaises(RuntimeError) as cm:
            asyncio.run(main())
        self.assertIn("AsyncGuardedBackend", str(cm.exception))

    def test_ask_that_raises_declines_and_is_reraised(self):
        class Boom(Exception):
            pass

        def ask(request, decision):
            raise Boom("the approval UI crashed")

        g = self.guard(ask=ask)
        with self.assertRaises(Boom) as cm:
            g.write("README", b"x")
        self.assertFalse(os.path.exists(self.p("README")))  # declined: nothing was written
        self.assertIn("declined", " ".join(getattr(cm.exception, "__notes__", ["declined"])))
        # the next call is not affected
        with self.assertRaises(Boom):
            g.read("a.ask")
        self.assertEqual(g.read("src/main.c")[:3], b"int")

    def test_audit(self):
        events = []
        g = self.guard(audit=events.append, ask=lambda r, d: True)
        g.read("src/main.c")
        with self.assertRaises(warder.PermissionDenied):
            g.read(".env")
        g.read("a.ask")
        g.grep("API_KEY")
        kinds = [(e.request.op, e.decision.action, e.final_action, e.approval_asked,
                  e.filtered) for e in events]
        self.assertEqual(kinds[0], ("read", "allow", "allow", False, False))
        self.assertEqual(kinds[1], ("read", "deny", "deny", False, False))
        self.assertEqual(kinds[2], ("read", "ask", "allow", True, False))
        self.assertIn(("grep", "deny", "deny", False, True), kinds[3:])  # the filtered hit
        self.assertTrue(all(isinstance(e, warder.AuditEvent) for e in events))

    def test_audit_that_raises_is_reraised_after_the_call(self):
        def audit(event):
            if event.decision.action == "allow":
                raise ValueError("the audit log is full")

        g = self.guard(audit=audit)
        with self.assertRaises(ValueError):
            g.write("src/y.c", b"y")
        # the operation was allowed and done; the audit failure is not lost either
        with open(self.p("src/y.c"), "rb") as f:
            self.assertEqual(f.read(), b"y")

    def test_set_ruleset(self):
        g = self.guard()
        self.assertEqual(g.read("src/main.c")[:3], b"int")
        deny_all = warder.Ruleset.from_yaml("warder: 1\ndefault: deny\n", root=self.root)
        g.set_ruleset(deny_all)
        with self.assertRaises(warder.PermissionDenied):
            g.read("src/main.c")
        self.assertEqual(g.ruleset.digest, deny_all.digest)
        deny_all.close()  # the guard holds its own reference
        with self.assertRaises(warder.PermissionDenied):
            g.read("src/main.c")
        g.set_ruleset(self.rules)
        self.assertEqual(g.read("src/main.c")[:3], b"int")

    def test_nul_and_non_utf8_through_the_guard(self):
        g = self.guard()
        for call in (lambda: g.read("src/main.c\0../../.env"), lambda: g.ls("src\0"),
                     lambda: g.glob("*.c\0/../.env"), lambda: g.grep("int\0API", "src"),
                     lambda: g.check("read", "x\0.env"), lambda: g.write("src/\0", b"")):
            with self.assertRaises(warder.WarderError) as cm:
                call()
            self.assertEqual(cm.exception.status_name, "WARDER_EINVAL")
        g.write(b"src/caf\xe9.c", b"\xff\x00")
        self.assertEqual(g.read(b"src/caf\xe9.c"), b"\xff\x00")
        self.assertIn(b"caf\xe9.c", [e.name for e in g.ls(b"src")])
        with self.assertRaises(warder.PermissionDenied):
            g.read(b"caf\xe9/../.env")


class PythonInner(Workspace):
    """A backend written in Python, wrapped by the guard through the C vtable."""

    class Dict:
        def __init__(self, root):
            self.root = root.encode()
            self.files = {self.root + b"/src/a.c": b"int a;\n",
                          self.root + b"/.env": ("KEY=" + SECRET + "\n").encode(),
                          self.root + b"/src/.env": b"NESTED=1\n"}
            self.reads = []

        def read(self, path, offset, limit):
            self.reads.append(path)
            try:
                data = self.files[path]
            except KeyError:
                raise FileNotFoundError(errno.ENOENT, "missing") from None
            return data[offset:offset + limit] if limit else data[offset:]

        def write(self, path, data):
            self.files[path] = data

        def ls(self, path):
            prefix = path.rstrip(b"/") + b"/"
            out = {}
            for p in self.files:
                if p.startswith(prefix):
                    rest = p[len(prefix):]
                    out[rest.split(b"/")[0]] = b"/" in rest
            if path in self.files:
                raise NotADirectoryError(errno.ENOTDIR, "file")
            if not out:
                raise FileNotFoundError(errno.ENOENT, "missing")
            return [(n, prefix + n, "dir" if d else "file") for n, d in sorted(out.items())]

    def test_guarded_python_backend(self):
        store = self.Dict(self.root)
        g = warder.GuardedBackend(store, self.rules)
        self.assertEqual(g.read("src/a.c"), b"int a;\n")
        with self.assertRaises(warder.PermissionDenied):
            g.read(".env")
        self.assertNotIn(self.root.encode() + b"/.env", store.reads)  # never reached it
        # the fallbacks run over the Python methods, and the guard filters what they find
        self.assertEqual(g.edit("src/a.c", b"a;", b"b;"), 1)
        self.assertEqual(store.files[self.root.encode() + b"/src/a.c"], b"int b;\n")
        self.assertEqual([e.name for e in g.glob("**/*.c")], ["a.c"])
        hits = g.grep("=")
        self.assertEqual(list(hits), [])
        self.assertEqual(hits.hidden_files, 2)  # both .env files were dropped
        self.assertEqual(g.ls("src").hidden, 0)
        self.assertStatus("WARDER_ENOENT", g.read, "src/none.c")

    def test_python_backend_that_raises_under_the_guard(self):
        class Bug(Exception):
            pass

        class Buggy(self.Dict):
            def ls(self, path):
                raise Bug("broken listing")

        g = warder.GuardedBackend(Buggy(self.root), self.rules)
        with self.assertRaises(Bug):
            g.glob("**")
        self.assertEqual(g.read("src/a.c"), b"int a;\n")

    def test_python_backend_with_execute(self):
        ran = []

        class Shell(self.Dict):
            def execute(self, command, cwd, timeout_ms, env):
                ran.append(command)
                return warder.ExecResult(0, stdout=b"ran " + command)

        g = warder.GuardedBackend(Shell(self.root), self.rules)
        self.assertIsInstance(g, warder.ExecutingBackend)
        self.assertEqual(g.execute("echo hi").stdout, b"ran echo hi")
        with self.assertRaises(warder.PermissionDenied):
            g.execute("cat .env")
        with self.assertRaises(warder.PermissionDenied):
            g.execute("rm -rf /")
        self.assertEqual(ran, [b"echo hi"])


if __name__ == "__main__":
    unittest.main()
