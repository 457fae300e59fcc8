# SPDX-License-Identifier: MIT
"""docs/python.md is true: every ```python block marked `<!-- python: run -->` runs in a
fresh interpreter against the built library, and prints exactly the ```text block marked
`<!-- output -->` that follows it."""

import os
import re
import subprocess
import sys
import unittest

from support import SOURCE_ROOT

DOC = os.path.join(SOURCE_ROOT, "docs", "python.md")


def examples():
    with open(DOC) as f:
        text = f.read()
    pattern = re.compile(r"<!-- python: run -->\n```python\n(.*?)```\n"
                         r"(?:\s*<!-- output -->\n```text\n(.*?)```\n)?", re.S)
    return [(m.group(1), m.group(2)) for m in pattern.finditer(text)]


class Docs(unittest.TestCase):
    def test_examples_run_and_print_what_the_page_says(self):
        found = examples()
        self.assertGreaterEqual(len(found), 1, "no runnable example in docs/python.md")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.path.join(SOURCE_ROOT, "python")
        for i, (code, output) in enumerate(found):
            with self.subTest(example=i):
                p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                   text=True, env=env, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                if output is not None:
                    self.assertEqual(p.stdout, output)

    def test_the_example_covers_what_it_claims(self):
        code, output = examples()[0]
        for needle in ("LocalBackend", "from_yaml", "ask=", "GuardedBackend"):
            self.assertIn(needle, code)
        self.assertIn("ask: write docs/notes.md -> yes", output)


if __name__ == "__main__":
    unittest.main()
