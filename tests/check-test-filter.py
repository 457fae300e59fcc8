#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The test filter of tests/support.c, on which the mutation runner relies (docs/testing.md):
WARDER_TEST_LIST=1 lists every test that the source adds and runs none, WARDER_TEST_ONLY runs
exactly the named tests, and a name that does not exist runs nothing.

    check-test-filter.py EXECUTABLE SOURCE
"""
import os
import re
import subprocess
import sys

exe, source = sys.argv[1], sys.argv[2]


def run(**env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("WARDER_TEST_")}
    e.update(env)
    r = subprocess.run([exe], env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    if r.returncode != 0:
        sys.exit("%s %s exited %d:\n%s" % (env, exe, r.returncode, r.stdout))
    return r.stdout


def checks(out):
    m = re.search(r"Checks: (\d+), Failures: 0, Errors: 0", out)
    if not m:
        sys.exit("no Check summary in:\n" + out)
    return int(m.group(1))


src = open(source).read()
added = re.findall(r"tcase_add_(loop_)?test\w*\(\s*\w+\s*,\s*(\w+)\s*(?:,\s*([^,]+?)\s*,\s*([^)]+?)\s*)?\)", src)
expected = [name for _, name, _, _ in added]
listed = run(WARDER_TEST_LIST="1").split("\n")[:-1]
if not expected or sorted(listed) != sorted(expected):
    sys.exit("listed %s, the source adds %s" % (listed, expected))

whole = checks(run())
each = {name: checks(run(WARDER_TEST_ONLY=name)) for name in listed}
if any(n < 1 for n in each.values()) or sum(each.values()) != whole:
    sys.exit("each test alone ran %s checks, the whole suite %d" % (each, whole))
a, b = listed[0], listed[-1]
if checks(run(WARDER_TEST_ONLY="%s,%s" % (a, b))) != each[a] + each[b]:
    sys.exit("two names did not run exactly those two tests")
if checks(run(WARDER_TEST_ONLY="no_such_test")) != 0 or checks(run(WARDER_TEST_ONLY=a[:-1])) != 0:
    sys.exit("an unknown name (or a prefix of a name) ran tests")
print("%d tests listed; each runs alone; %d checks in all" % (len(listed), whole))
