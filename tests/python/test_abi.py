# SPDX-License-Identifier: MIT
"""The ABI check: the Python package's view of every public struct (python/warder/_abi.py)
against the C compiler's (tests/abi-layout.c), and both against the headers, so that a member
added to a header without the other two fails here. Loads no library: it runs under the
sanitizer build too."""

import importlib.util
import os
import re
import subprocess
import unittest
from ctypes import alignment, sizeof

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("WARDER_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
PROGRAM = os.environ.get("WARDER_ABI_PROGRAM")
HEADERS = os.path.join(SOURCE_ROOT, "include", "warder")


def load_view():
    spec = importlib.util.spec_from_file_location(
        "warder_abi_view", os.path.join(SOURCE_ROOT, "python", "warder", "_abi.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compiler_view():
    out = subprocess.run([PROGRAM], capture_output=True, check=True, text=True).stdout
    structs, members, consts = {}, {}, {}
    for line in out.splitlines():
        kind, *rest = line.split()
        if kind == "struct":
            structs[rest[0]] = (int(rest[1]), int(rest[2]))
            members[rest[0]] = []
        elif kind == "member":
            members[rest[0]].append((rest[1], int(rest[2]), int(rest[3])))
        elif kind == "const":
            consts[rest[0]] = int(rest[1])
    return structs, members, consts


def header_structs():
    """Every `struct warder_X { … };` in the public headers, with its member names."""
    found = {}
    for dirpath, _, files in os.walk(HEADERS):
        for name in files:
            if not name.endswith(".h"):
                continue
            with open(os.path.join(dirpath, name)) as f:
                text = f.read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
            for m in re.finditer(r"\bstruct\s+(warder_\w+)\s*\{", text):
                depth, i = 1, m.end()
                while depth:
                    depth += {"{": 1, "}": -1}.get(text[i], 0)
                    i += 1
                body = text[m.end():i - 1]
                names = []
                for decl in body.split(";"):
                    decl = " ".join(decl.split())
                    if not decl:
                        continue
                    fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
                    if fp:
                        names.append(fp.group(1))
                        continue
                    decl = re.sub(r"\[[^\]]*\]", "", decl)
                    first, *others = decl.split(",")
                    names.append(re.findall(r"\w+", first)[-1])
                    names.extend(re.findall(r"\w+", o)[-1] for o in others)
                found[m.group(1)] = names
    return found


@unittest.skipUnless(PROGRAM, "WARDER_ABI_PROGRAM is not set (meson sets it)")
class Abi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.view = load_view()
        cls.structs, cls.members, cls.consts = compiler_view()
        cls.headers = header_structs()

    def test_every_public_struct_is_in_both_views(self):
        self.assertEqual(set(self.headers), set(self.structs),
                         "tests/abi-layout.c lists other structs than the headers define")
        self.assertEqual(set(self.headers), set(self.view.STRUCTS),
                         "python/warder/_abi.py lists other structs than the headers define")

    def test_every_member_is_listed(self):
        for name, fields in self.headers.items():
            with self.subTest(struct=name):
                self.assertEqual([m[0] for m in self.members[name]], fields)
                py = [f[0] for f in self.view.STRUCTS[name]._fields_]
                self.assertEqual(py, fields)

    def test_sizes_and_offsets_agree(self):
        for name, (size, align) in self.structs.items():
            cls = self.view.STRUCTS[name]
            with self.subTest(struct=name):
                self.assertEqual(sizeof(cls), size, f"sizeof(struct {name})")
                self.assertEqual(alignment(cls), align, f"alignof(struct {name})")
                for member, offset, msize in self.members[name]:
                    field = getattr(cls, member)
                    self.assertEqual(field.offset, offset, f"offsetof({name}, {member})")
                    self.assertEqual(field.size, msize, f"sizeof({name}.{member})")

    def test_constants_agree(self):
        self.assertEqual(set(self.consts), set(self.view.CONSTANTS))
        for name, value in self.consts.items():
            with self.subTest(constant=name):
                self.assertEqual(self.view.CONSTANTS[name], value)

    def test_every_header_constant_is_in_the_view(self):
        # enumerators, struct versions, capability bits and the other integer macros a
        # binding needs (the glob limits and the version string are not)
        wanted = set()
        for dirpath, _, files in os.walk(HEADERS):
            for name in files:
                if not name.endswith(".h"):
                    continue
                with open(os.path.join(dirpath, name)) as f:
                    text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
                for body in re.findall(r"\benum\s+\w+\s*\{(.*?)\}", text, flags=re.S):
                    wanted.update(re.findall(r"\b(WARDER_\w+)\s*(?:=|,|$)", body))
                wanted.update(re.findall(r"#define\s+(WARDER_\w+(?:_VERSION|_CAP_\w+))\s", text))
                wanted.update(re.findall(r"#define\s+(WARDER_(?:NUL_TERMINATED|STATUS_MIN|"
                                         r"OP_COUNT))\s", text))
        self.assertIn("WARDER_EDENIED", wanted)
        self.assertIn("WARDER_GREP_REQUEST_VERSION", wanted)
        self.assertEqual(sorted(wanted - set(self.view.CONSTANTS)), [])

    def test_status_codes_are_complete(self):
        self.assertEqual(min(self.view.STATUS.values()), self.consts["WARDER_STATUS_MIN"])
        self.assertEqual(sorted(self.view.STATUS.values()),
                         list(range(self.consts["WARDER_STATUS_MIN"], 1)))

    def test_the_check_can_fail(self):
        # a view with one member moved is caught (the comparison is not vacuous)
        from ctypes import Structure, c_int, c_uint
        moved = type("warder_bytes", (Structure,), {"_fields_": [("len", c_uint),
                                                                  ("data", c_int)]})
        self.assertNotEqual(sizeof(moved), self.structs["warder_bytes"][0])


if __name__ == "__main__":
    unittest.main()
