# SPDX-License-Identifier: MIT
"""The backends from Python: every method of the memory and local backends, bytes in and out,
str and bytes paths, names that are not UTF-8, NUL bytes in every argument, and a backend
written in Python."""

import errno
import os
import unittest

from support import Workspace, warder


class Memory(unittest.TestCase):
    def setUp(self):
        self.m = warder.MemoryBackend()

    def tearDown(self):
        self.m.close()

    def test_every_method(self):
        m = self.m
        self.assertIsNone(m.write("/w/a.txt", b"hello\nworld\n"))
        self.assertEqual(m.read("/w/a.txt"), b"hello\nworld\n")
        self.assertEqual(m.read("/w/a.txt", 6), b"world\n")
        self.assertEqual(m.read("/w/a.txt", 0, 5), b"hello")
        self.assertEqual(m.edit("/w/a.txt", b"world", b"there"), 1)
        self.assertEqual(m.read("/w/a.txt"), b"hello\nthere\n")
        m.write("/w/b.txt", b"x x x")
        self.assertStatus("WARDER_EAMBIGUOUS", m.edit, "/w/b.txt", b"x", b"y")
        self.assertEqual(m.edit("/w/b.txt", b"x", b"yy", replace_all=True), 3)
        self.assertStatus("WARDER_ENOMATCH", m.edit, "/w/b.txt", b"zzz", b"y")
        m.mkdir("/w/d/e")
        names = [(e.name, e.type) for e in m.ls("/w")]
        self.assertEqual(names, [("a.txt", "file"), ("b.txt", "file"), ("d", "dir")])
        self.assertTrue(m.ls("/w")[2].is_dir)
        self.assertEqual([e.path for e in m.glob("**/*.txt", "/w")], ["/w/a.txt", "/w/b.txt"])
        g = m.grep("th.re", "/w")
        self.assertEqual(g, [warder.GrepMatch("/w/a.txt", 2, b"there")])
        self.assertEqual((g.hidden_files, g.truncated), (0, False))
        self.assertEqual(len(m.grep("HELLO", "/w", caseless=True)), 1)
        self.assertEqual(len(m.grep(".", "/w", glob="b.*")), 1)
        r = m.grep(".", "/w", max_matches=1)
        self.assertEqual((len(r), r.truncated), (1, True))
        self.assertStatus("WARDER_ENOTSUP", m.realpath, "/w/a.txt")
        self.assertFalse(m.can_execute)
        self.assertFalse(hasattr(m, "execute"))
        self.assertNotIsInstance(m, warder.ExecutingBackend)

    def test_errors_are_status_exceptions(self):
        e = self.assertStatus("WARDER_ENOENT", self.m.read, "/nope")
        self.assertIs(type(e), warder.WarderError)
        self.assertEqual(e.status, -4)
        self.assertEqual(warder.status_name(e.status), "WARDER_ENOENT")
        self.assertEqual(warder.strerror(e.status), "not found")
        self.assertStatus("WARDER_EPARSE", self.m.grep, "(", "/")
        self.assertStatus("WARDER_EINVAL", self.m.glob, "*", "relative")
        with self.assertRaises(TypeError):
            self.m.write("/x", "text, not bytes")

    def test_nul_in_every_argument(self):
        m = self.m
        m.write("/w/notes.txt", b"hello\nNOPE\n")
        for call in (lambda: m.read("/w/notes.txt\0x"), lambda: m.write("/w/a\0b", b""),
                     lambda: m.edit("/w/notes.txt\0", b"h", b"j"), lambda: m.ls("/w\0"),
                     lambda: m.glob("*.txt\0/../**", "/w"), lambda: m.glob("*", "/w\0"),
                     lambda: m.grep("hello\0NOPE", "/w"), lambda: m.grep("x", "/w\0"),
                     lambda: m.grep("x", "/w", glob="*.txt\0*"), lambda: m.mkdir("/w/d\0e")):
            with self.assertRaises(warder.WarderError) as cm:
                call()
            self.assertEqual(cm.exception.status_name, "WARDER_EINVAL")
        # control arm: without the NUL the same calls work, and the grep pattern that a C
        # string would have cut to "hello" is not searched as "hello"
        self.assertEqual(len(m.grep("hello", "/w")), 1)
        self.assertEqual(m.ls("/w")[0].name, "notes.txt")

    def test_bytes_and_binary_content(self):
        blob = bytes(range(256)) * 16
        self.m.write(b"/w/\xff\xfe.bin", blob)
        self.assertEqual(self.m.read(b"/w/\xff\xfe.bin"), blob)
        self.assertEqual(self.m.read(os.fsdecode(b"/w/\xff\xfe.bin")), blob)
        e = self.m.ls(b"/w")[0]
        self.assertEqual((e.name, e.path), (b"\xff\xfe.bin", b"/w/\xff\xfe.bin"))
        e = self.m.ls("/w")[0]
        self.assertEqual(os.fsencode(e.name), b"\xff\xfe.bin")  # str, surrogate-escaped
        self.m.write("/w/t.txt", b"a\0b\nc\n")
        self.assertEqual(self.m.grep("b", "/w/t.txt")[0].text, b"a\0b")
        self.m.write("/w/e", bytearray(b""))
        self.assertEqual(self.m.read("/w/e"), b"")

    def test_closed(self):
        m = warder.MemoryBackend()
        m.close()
        m.close()
        self.assertStatus("WARDER_EINVAL", m.read, "/x")
        with warder.MemoryBackend() as m2:
            m2.write("/x", b"1")
        self.assertStatus("WARDER_EINVAL", m2.read, "/x")

    assertStatus = Workspace.assertStatus


class Local(Workspace):
    def test_every_method(self):
        b = self.local()
        self.assertEqual(b.read(self.p("src/main.c")), b"int main(void) { return 0; }\n")
        b.write(self.p("src/new.c"), b"x")
        self.assertEqual(b.edit(self.p("src/new.c"), b"x", b"y"), 1)
        self.assertEqual(b.read(self.p("src/new.c")), b"y")
        self.assertIn("main.c", [e.name for e in b.ls(self.p("src"))])
        self.assertEqual([e.name for e in b.glob("src/*.c", self.root)], ["main.c", "new.c"])
        self.assertEqual([m.path for m in b.grep("API_KEY", self.root)], [self.p(".env")])
        self.assertEqual(b.realpath(self.p("notes.txt")), self.p(".env"))
        self.assertEqual(b.realpath(os.fsencode(self.p("notes.txt"))), os.fsencode(self.p(".env")))
        self.assertStatus("WARDER_EOUTSIDE", b.read, "/etc/hostname")
        self.assertStatus("WARDER_EISDIR", b.read, self.p("src"))
        self.assertFalse(hasattr(b, "execute"))
        self.assertEqual(b.root, self.root)

    def test_options(self):
        b = self.local(max_read=4)
        self.assertStatus("WARDER_ETOOBIG", b.read, self.p("src/main.c"))
        b = self.local(follow_symlinks=False)
        self.assertStatus("WARDER_ESYMLINK", b.read, self.p("notes.txt"))
        with self.assertRaises(TypeError):
            self.local(no_such_option=1)
        with self.assertRaises(warder.WarderError):
            self.local(landlock="sometimes")
        self.assertStatus("WARDER_EINVAL", warder.LocalBackend, "relative/root")
        self.assertStatus("WARDER_EINVAL", warder.LocalBackend, self.root + "\0x")

    def test_as_agent(self):
        """§6.6: the agent's credentials from Python; refusals whoever runs it, the kernel's
        answer as root (a 0600 file of another uid, with the host's read as control arm)."""
        self.assertStatus("WARDER_EINVAL", self.local, act_as_agent=True, agent_uid=0, agent_gid=1)
        self.assertStatus("WARDER_EINVAL", self.local, act_as_agent=True, agent_uid=40001,
                          agent_gid=40001, agent_groups=[0])
        with self.assertRaises(warder.WarderError):
            self.local(act_as_agent=True, agent_uid=40001, agent_gid=40001, agent_groups=[-1])
        with self.assertRaises(TypeError):
            self.local(agent_ngroups=3)
        if os.geteuid() != 0:
            self.assertStatus("WARDER_EACCES", self.local, act_as_agent=True, agent_uid=40001,
                              agent_gid=40001)
            return
        os.chmod(self.tmp, 0o755)
        os.chmod(self.root, 0o755)
        secret = self.p("src/theirs.txt")
        with open(secret, "wb") as f:
            f.write(b"THEIRS")
        os.chown(secret, 40002, 40002)
        os.chmod(secret, 0o640)
        self.assertEqual(self.local().read(secret), b"THEIRS")
        agent = self.local(act_as_agent=True, agent_uid=40001, agent_gid=40001)
        e = self.assertStatus("WARDER_EACCES", agent.read, secret)
        self.assertIn("theirs.txt", str(e))
        with_group = self.local(act_as_agent=True, agent_uid=40001, agent_gid=40001,
                                agent_groups=[40002, 100])
        self.assertEqual(with_group.read(secret), b"THEIRS")
        self.assertEqual(agent.read(self.p("src/main.c")), b"int main(void) { return 0; }\n")

    def test_execute(self):
        b = self.local(exec=True, exec_env=["PATH=/usr/bin:/bin", "GREETING=hi"])
        self.assertIsInstance(b, warder.ExecutingBackend)
        self.assertIsInstance(b, warder.LocalBackend)
        self.assertTrue(b.can_execute)
        r = b.execute("echo $GREETING; echo err >&2; exit 3")
        self.assertEqual((r.exit_status, r.stdout, r.stderr, r.ok), (3, b"hi\n", b"err\n", False))
        r = b.execute("pwd", cwd=self.p("src"))
        self.assertEqual(r.stdout, os.fsencode(self.p("src")) + b"\n")
        r = b.execute("echo $X", env=["X=42"])
        self.assertEqual(r.stdout, b"42\n")
        self.assertTrue(r.pid_namespace)  # every command in a PID namespace of its own (§6.4)
        r = b.execute("sleep 5", timeout=0.2)
        self.assertTrue(r.timed_out)
        r = b.execute("head -c 100000 /dev/zero", max_output=10)
        self.assertEqual((len(r.stdout), r.stdout_truncated), (10, True))
        chunks = []
        r = b.execute("printf 'a\\nb\\n'; printf c >&2", on_output=lambda s, d: chunks.append((s, d)))
        self.assertEqual(b"".join(d for s, d in chunks if s == 1), b"a\nb\n")
        self.assertEqual(b"".join(d for s, d in chunks if s == 2), b"c")
        self.assertStatus("WARDER_EINVAL", b.execute, "echo one\0; echo two")
        self.assertEqual(b.execute(b"printf '\\377'").stdout, b"\xff")

    def test_cancel(self):
        import threading
        import time
        b = self.local(exec=True)
        c = warder.Cancel()
        self.assertFalse(c.triggered)
        threading.Timer(0.2, c.trigger).start()
        t0 = time.monotonic()
        r = b.execute("sleep 30", cancel=c)
        self.assertLess(time.monotonic() - t0, 10)
        self.assertTrue(r.cancelled)
        self.assertTrue(c.triggered)

    def test_non_utf8_names(self):
        b = self.local()
        raw = os.fsencode(self.root) + b"/caf\xe9.txt"
        b.write(raw, b"latin-1 name")
        with open(raw, "rb") as f:  # the kernel sees exactly those bytes
            self.assertEqual(f.read(), b"latin-1 name")
        self.assertIn(b"caf\xe9.txt", [e.name for e in b.ls(os.fsencode(self.root))])
        self.assertIn(os.fsdecode(b"caf\xe9.txt"), [e.name for e in b.ls(self.root)])
        self.assertEqual(b.read(os.fsdecode(raw)), b"latin-1 name")


class InPython(unittest.TestCase):
    """A backend written in Python, called through the C vtable."""

    class Store:
        def __init__(self):
            self.files = {b"/w/a.txt": b"alpha\nbeta\n", b"/w/sub/b.txt": b"gamma\n"}
            self.calls = []

        def read(self, path, offset, limit):
            self.calls.append(("read", path))
            if path not in self.files:
                raise FileNotFoundError(errno.ENOENT, "no such file", path)
            data = self.files[path][offset:]
            return data[:limit] if limit else data

        def write(self, path, data):
            self.calls.append(("write", path))
            self.files[path] = data

        def ls(self, path):
            self.calls.append(("ls", path))
            prefix = path.rstrip(b"/") + b"/"
            names = set()
            for p in self.files:
                if p.startswith(prefix):
                    rest = p[len(prefix):]
                    head = rest.split(b"/")[0]
                    names.add((head, b"/" in rest))
            if not names and path not in self.files:
                raise FileNotFoundError(errno.ENOENT, "no such directory")
            if path in self.files:
                raise NotADirectoryError(errno.ENOTDIR, "not a directory")
            return [warder.Entry(n, prefix + n, "dir" if d else "file") for n, d in
                    sorted(names)]

    def test_fallbacks_work_on_it(self):
        s = self.Store()
        b = warder.PythonBackend(s)
        self.assertEqual(b.read("/w/a.txt"), b"alpha\nbeta\n")
        self.assertEqual(b.edit("/w/a.txt", b"beta", b"BETA"), 1)  # fallback: read + write
        self.assertEqual(s.files[b"/w/a.txt"], b"alpha\nBETA\n")
        self.assertEqual([e.path for e in b.glob("**/*.txt", "/w")],
                         ["/w/a.txt", "/w/sub/b.txt"])  # fallback: a walk over ls
        self.assertEqual([(m.path, m.line) for m in b.grep("a", "/w")],
                         [("/w/a.txt", 1), ("/w/sub/b.txt", 1)])  # fallback: ls + read
        self.assertStatus("WARDER_ENOENT", b.read, "/w/missing")
        self.assertFalse(hasattr(b, "execute"))
        self.assertIn(("ls", b"/w/sub"), s.calls)

    def test_dropped_wrapper_frees_the_backend(self):
        import gc
        from warder import backend as B
        before = len(B._py_objects)
        b = warder.PythonBackend(self.Store())
        self.assertEqual(len(B._py_objects), before + 1)
        del b
        gc.collect()
        self.assertEqual(len(B._py_objects), before)  # destroyed, not kept alive
        g = warder.GuardedBackend(self.Store(), warder.Ruleset.from_yaml(
            "warder: 1\ndefault: allow\n", root="/w"))
        self.assertEqual(len(B._py_objects), before + 1)
        g.close()  # the guard frees its inner backend
        self.assertEqual(len(B._py_objects), before)

    def test_incomplete_and_broken(self):
        class NoLs:
            def read(self, path, offset, limit):
                return b""

            def write(self, path, data):
                pass

        self.assertStatus("WARDER_EINVAL", warder.PythonBackend, NoLs())

        class Broken(self.Store):
            def read(self, path, offset, limit):
                raise ZeroDivisionError("a bug in the backend")

        b = warder.PythonBackend(Broken())
        with self.assertRaises(ZeroDivisionError) as cm:  # the backend's own exception
            b.read("/w/a.txt")
        self.assertIn("read method", "".join(getattr(cm.exception, "__notes__", ["read method"])))

        class BadNames(self.Store):
            def ls(self, path):
                return [("a\0b", "/w/a\0b", "file")]

        self.assertStatus("WARDER_EBACKEND", warder.PythonBackend(BadNames()).ls, "/w")

        class WrongType(self.Store):
            def read(self, path, offset, limit):
                return "text"

        with self.assertRaises(TypeError):
            warder.PythonBackend(WrongType()).read("/w/a.txt")

    def test_optional_methods_and_execute(self):
        class Full(self.Store):
            def edit(self, path, old, new, replace_all):
                return 7

            def glob(self, pattern, base):
                return [{"name": "x", "path": "/w/x", "type": "file", "size": 1}]

            def grep(self, pattern, path, glob, caseless, max_matches):
                return [(b"/w/a.txt", 3, b"line")]

            def realpath(self, path):
                return b"/w/real"

            def execute(self, command, cwd, timeout_ms, env):
                return warder.ExecResult(0, stdout=command, stderr=b"")

        b = warder.PythonBackend(Full())
        self.assertEqual(b.edit("/w/a.txt", b"a", b"b"), 7)
        self.assertEqual(b.glob("*", "/w")[0].size, 1)
        self.assertEqual(b.grep("x", "/w")[0].text, b"line")
        self.assertEqual(b.realpath("/w/a"), "/w/real")
        self.assertIsInstance(b, warder.ExecutingBackend)
        self.assertEqual(b.execute("echo hi").stdout, b"echo hi")
        self.assertStatus("WARDER_EINVAL", b.execute, "echo\0hi")

    assertStatus = Workspace.assertStatus


if __name__ == "__main__":
    unittest.main()
