# SPDX-License-Identifier: MIT
"""What the Python suite shares: the package from the source tree, the library from the build
tree (WARDER_LIBRARY, set by meson), and the sample workspace of the docs."""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("WARDER_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "python"))

import warder  # noqa: E402

SECRET = "sk-live-4242"
MAIN_C = "int main(void) { return 0; }\n"

RULES = """warder: 1
default: allow
read:
  default: allow
  rules:
    - deny: "**/.env"
      reason: Protect sensitive files
    - deny: "**/.ssh/**"
    - ask: "**/*.ask"
grep:
  default: allow
  rules:
    - deny: "**/.env"
write:
  default: ask
  rules:
    - allow: "src/**"
    - deny: "**/.env"
edit:
  default: ask
  rules:
    - allow: "src/**"
execute:
  default: ask
  rules:
    - allow: "echo *"
    - allow: "cat *"
    - allow: "sleep *"
    - allow: "printf *"
    - allow: "ls*"
    - deny: "rm -rf *"
"""


def make_workspace(root):
    """A source file, a .env holding the secret, an SSH key, notes.txt -> .env."""
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, ".ssh"), mode=0o700)
    with open(os.path.join(root, "src/main.c"), "w") as f:
        f.write(MAIN_C)
    with open(os.path.join(root, ".env"), "w") as f:
        f.write("API_KEY=" + SECRET + "\n")
    with open(os.path.join(root, ".ssh/id_ed25519"), "w") as f:
        f.write("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    with open(os.path.join(root, "a.ask"), "w") as f:
        f.write("needs a yes\n")
    os.symlink(".env", os.path.join(root, "notes.txt"))


class Workspace(unittest.TestCase):
    """A fresh workspace per test, and the ruleset above anchored at it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="warder-py.")
        self.root = os.path.join(self.tmp, "ws")
        make_workspace(self.root)
        self.rules = warder.Ruleset.from_yaml(RULES, root=self.root, home="/home/agent")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def local(self, **options):
        return warder.LocalBackend(self.root, **options)

    def guard(self, inner=None, **kwargs):
        return warder.GuardedBackend(inner if inner is not None else self.local(), self.rules,
                                     **kwargs)

    def p(self, rel):
        return os.path.join(self.root, rel)

    def assertStatus(self, status_name, fn, *args, **kwargs):
        with self.assertRaises(warder.WarderError) as cm:
            fn(*args, **kwargs)
        self.assertEqual(cm.exception.status_name, status_name, str(cm.exception))
        return cm.exception
