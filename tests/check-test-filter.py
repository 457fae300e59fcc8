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
expected = set(re.findall(r"tcase_add_(?:loop_)?test\w*\(\s*\w+\s*,\s*(\w+)", src))
listed = run(WARDER_TEST_LIST="1").split("\n")[:-1]
if not expected or {x.split("@")[0] for x in listed} != expected or \
        len(set(listed)) != len(listed) or not any("@" in x for x in listed):
    sys.exit("listed %s, the source adds %s (and a loop test is listed by iterations)" %
             (listed, sorted(expected)))

whole = checks(run())
each = {name: checks(run(WARDER_TEST_ONLY=name)) for name in listed}
if any(n < 1 for n in each.values()) or sum(each.values()) != whole:
    sys.exit("each test alone ran %s checks, the whole suite %d" % (each, whole))
a, b = listed[0], listed[-1]
if checks(run(WARDER_TEST_ONLY="%s,%s" % (a, b))) != each[a] + each[b]:
    sys.exit("two names did not run exactly those two tests")
loop = next(x for x in listed if "@" in x).split("@")[0]
iterations = sum(n for x, n in each.items() if x.split("@")[0] == loop)
if checks(run(WARDER_TEST_ONLY=loop)) != iterations:
    sys.exit("a loop test's bare name did not run each of its iterations")
for bogus in ("no_such_test", a.split("@")[0][:-1], loop + "@", loop + "@x", loop + "@99999"):
    if checks(run(WARDER_TEST_ONLY=bogus)) != 0:
        sys.exit("WARDER_TEST_ONLY=%s ran tests" % bogus)
print("%d tests listed; each runs alone; %d checks in all" % (len(listed), whole))
