# SPDX-License-Identifier: MIT
"""`pip install --no-build-isolation ./python` works offline with the setuptools already on the
machine, and the installed package finds libwarder the documented ways: WARDER_LIBRARY, next
to the package, then the system.

pip runs with Debian's /usr/bin/python3 when there is one (scripts/setup.sh gives it pip,
setuptools and wheel from Debian's packages), else with the interpreter running the suite:
building a wheel without isolation needs `wheel` beside setuptools, which an interpreter
built by hand (pyenv) may lack and cannot download here. WARDER_PIP_PYTHON overrides."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import SOURCE_ROOT

LIBRARY = os.environ.get("WARDER_LIBRARY")
PYTHON = os.environ.get("WARDER_PIP_PYTHON") or (
    "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable)

PROBE = ("import warder; rs = warder.Ruleset.from_yaml('warder: 1\\ndefault: deny\\n', "
         "root='/w'); print(warder.__file__); print(warder.library_path); "
         "print(rs.check('read', 'x').action)")


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="warder-pip.")
        # pip builds in the tree it is given: build a copy, never the source tree
        src = os.path.join(cls.tmp, "src")
        shutil.copytree(os.path.join(SOURCE_ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        cls.target = os.path.join(cls.tmp, "site")
        cls.pip = subprocess.run(
            [PYTHON, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
             "--no-index", "--disable-pip-version-check", "--no-cache-dir", "--target",
             cls.target, src], capture_output=True, text=True, timeout=300)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_probe(self, **env_changes):
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WARDER_LIBRARY")}
        env.update({k: v for k, v in env_changes.items() if v is not None})
        env["PYTHONPATH"] = self.target
        return subprocess.run([PYTHON, "-c", PROBE], capture_output=True, text=True,
                              env=env, cwd=self.tmp, timeout=60)

    def test_pip_install_offline(self):
        self.assertEqual(self.pip.returncode, 0, self.pip.stdout + self.pip.stderr)
        pkg = os.path.join(self.target, "warder")
        for name in ("__init__.py", "_abi.py", "py.typed"):
            self.assertTrue(os.path.exists(os.path.join(pkg, name)), name)

    @unittest.skipUnless(LIBRARY, "WARDER_LIBRARY is not set (meson sets it)")
    def test_found_through_the_environment(self):
        p = self.run_probe(WARDER_LIBRARY=LIBRARY)
        self.assertEqual(p.returncode, 0, p.stderr)
        file, lib, action = p.stdout.split()
        self.assertTrue(file.startswith(self.target))  # the installed copy, not the source
        self.assertEqual((lib, action), (LIBRARY, "deny"))

    @unittest.skipUnless(LIBRARY, "WARDER_LIBRARY is not set (meson sets it)")
    def test_found_next_to_the_package(self):
        pkg = os.path.join(self.target, "warder")
        bundled = os.path.join(pkg, "libwarder.so.0")
        shutil.copy(LIBRARY, bundled)
        try:
            p = self.run_probe()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split()[1], bundled)
        finally:
            os.unlink(bundled)

    def test_a_missing_library_is_a_clear_import_error(self):
        p = self.run_probe(WARDER_LIBRARY=os.path.join(self.tmp, "no-such-libwarder.so"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError", p.stderr)
        self.assertIn("WARDER_LIBRARY", p.stderr)


if __name__ == "__main__":
    unittest.main()
