# SPDX-License-Identifier: MIT
"""The Python package's cost, against baselines measured in the same run (docs/python.md):

- a guarded 4 KiB read through warder.GuardedBackend(LocalBackend) under the default
  preset, against a plain `open(path, "rb").read()` of the same file, and the same read
  through the unguarded LocalBackend;
- Ruleset.check on a path (the default preset), and on a command, against a call of an
  empty Python function (the floor of any call from Python).

Prints the best of several batches, in µs per operation, and the ratios. Asserts nothing on
time (targets from the issue: guarded read ≤ 1.5× plain Python, check ≤ 3 µs)."""

import os
import shutil
import sys
import tempfile
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("WARDER_SOURCE_ROOT") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "python"))

import warder  # noqa: E402

N = int(os.environ.get("WARDER_BENCH_N", "20000"))
REPEAT = 7


def best_us(fn, n=N):
    fn()
    return min(timeit.repeat(fn, number=n, repeat=REPEAT)) / n * 1e6


def main():
    tmp = tempfile.mkdtemp(prefix="bench-python.")
    try:
        root = os.path.join(tmp, "ws")
        os.makedirs(os.path.join(root, "src"))
        path = os.path.join(root, "src", "data.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(4096))
        rules = warder.Ruleset.from_preset("default", root=root, home="/home/agent")
        guard = warder.GuardedBackend(warder.LocalBackend(root), rules)
        local = warder.LocalBackend(root)
        assert guard.read(path) == local.read(path) == open(path, "rb").read()

        def plain():
            with open(path, "rb") as f:
                return f.read()

        def nothing():
            return None

        plain_us = best_us(plain)
        guarded_us = best_us(lambda: guard.read(path))
        local_us = best_us(lambda: local.read(path))
        call_us = best_us(nothing)
        check_us = best_us(lambda: rules.check("read", path))
        check_deny_us = best_us(lambda: rules.check("read", "src/.env"))
        command_us = best_us(lambda: rules.check("execute", "git status"), n=N // 4)

        print(f"python {sys.version.split()[0]} ({sys.executable}), libwarder "
              f"{warder.library_version()} ({warder.library_path})")
        print(f"4 KiB read: open().read() {plain_us:8.2f} us   (baseline)")
        print(f"4 KiB read: LocalBackend  {local_us:8.2f} us   {local_us / plain_us:5.2f}x")
        print(f"4 KiB read: guarded       {guarded_us:8.2f} us   {guarded_us / plain_us:5.2f}x"
              f"   (target <= 1.5x)")
        print(f"empty Python call         {call_us:8.2f} us   (baseline)")
        print(f"check read (allowed)      {check_us:8.2f} us   (target <= 3 us)")
        print(f"check read (denied)       {check_deny_us:8.2f} us")
        print(f"check execute             {command_us:8.2f} us")
        guard.close()
        local.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
