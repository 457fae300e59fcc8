# SPDX-License-Identifier: MIT
"""Replays every session transcript of docs/serve.md byte for byte, and runs its Python client.

A transcript is a fenced block tagged `jsonrpc`:

    $ warder serve [OPTIONS]          the command, run in the docs' sample workspace
    > {…}                             a line sent to the server
    < {…}                             the line it must answer, in order

Paths under the workspace are shown as /ws. Approval tokens (wt1_…) and ruleset digests
(sha256:…) differ on every run: the first time one appears in an answer it is paired with the
one the page shows at that place, and later requests that quote the page's value send the
real one. Everything else must be equal byte for byte.

With --print, the real answers are printed instead of compared (for writing the page).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_client import WARDER, make_workspace  # noqa: E402

SOURCE = os.environ.get("WARDER_SOURCE_ROOT",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PAGE = os.path.join(SOURCE, "docs", "serve.md")
VOLATILE = re.compile(r"wt1_[0-9a-f]{32}|sha256:[0-9a-f]{64}")


def blocks(text):
    for m in re.finditer(r"^```jsonrpc\n(.*?)^```$", text, re.S | re.M):
        yield text[:m.start()].count("\n") + 1, m.group(1).splitlines()


def read_line(proc, timeout=30):
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        if time.monotonic() > deadline:
            raise AssertionError("no answer within %d s" % timeout)
        chunk = proc.stdout.readline()
        if not chunk:
            raise AssertionError("the server ended early: %r" % proc.stderr.read())
        line += chunk
    return line.decode()


def replay(lineno, lines, printing):
    tmp = tempfile.mkdtemp(prefix="warder-docs.")
    ws = os.path.join(tmp, "ws")
    make_workspace(ws)
    with open(os.path.join(ws, "rules.yaml"), "w") as f:
        f.write(RULES)
    os.utime(os.path.join(ws, "rules.yaml"), (1700000000, 1700000000))
    pairs = {}
    failures = []
    try:
        assert lines[0].startswith("$ warder serve"), "line %d: no command" % lineno
        argv = shlex.split(lines[0][2:])
        env = dict(os.environ, HOME="/home/agent")
        proc = subprocess.Popen([WARDER] + argv[1:], cwd=ws, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        body = list(enumerate(lines[1:], start=lineno + 2))
        i = 0
        while i < len(body):
            n, line = body[i]
            if line.startswith("> "):
                req = VOLATILE.sub(lambda m: pairs.get(m.group(0), m.group(0)), line[2:])
                proc.stdin.write(req.encode() + b"\n")
                proc.stdin.flush()
                i += 1
            elif line.startswith("< "):
                # a run of answers: requests in flight may answer in any order
                group = []
                while i < len(body) and body[i][1].startswith("< "):
                    group.append(body[i])
                    i += 1
                got = [read_line(proc).rstrip("\n").replace(ws, "/ws") for _ in group]
                if printing:
                    print("\n".join("< " + g for g in got))
                    # pair the page's tokens with the real ones in order of appearance
                    seen = [v for g in got for v in VOLATILE.findall(g) if v.startswith("wt1_")]
                    docs = [v for _, ln in body for v in VOLATILE.findall(ln)
                            if v.startswith("wt1_") and v not in pairs]
                    for doc, real in zip(docs, seen):
                        pairs[doc] = real
                    continue
                for n, want_line in group:
                    want = want_line[2:]
                    # volatile values match any value of their kind, and are paired
                    parts = VOLATILE.split(want)
                    pattern = "(wt1_[0-9a-f]{32}|sha256:[0-9a-f]{64})".join(
                        re.escape(p) for p in parts)
                    hit = next((g for g in got if re.fullmatch(pattern, g)), None)
                    if hit is None:
                        failures.append("docs/serve.md:%d:\n  documented: %s\n  actual:     %s"
                                        % (n, want, "\n              ".join(got)))
                        continue
                    got.remove(hit)
                    m = re.fullmatch(pattern, hit)
                    for doc, real in zip(VOLATILE.findall(want), m.groups()):
                        if doc in pairs and pairs[doc] != real and doc.startswith("wt1_"):
                            failures.append("docs/serve.md:%d: token %s was %s, now %s"
                                            % (n, doc, pairs[doc], real))
                        pairs.setdefault(doc, real)
            elif line.strip():
                raise AssertionError("docs/serve.md:%d: not a > or < line: %s" % (n, line))
            else:
                i += 1
        proc.stdin.close()
        rc = proc.wait(30)
        if rc != 0:
            failures.append("docs/serve.md:%d: exit status %d" % (lineno, rc))
        proc.stdout.close()
        proc.stderr.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return failures


# The ruleset the page's transcripts use with --rules rules.yaml (shown on the page).
RULES = None


def page_rules(text):
    m = re.search(r"<!-- rules.yaml -->\n```yaml\n(.*?)^```$", text, re.S | re.M)
    assert m, "docs/serve.md: the rules.yaml block is missing"
    return m.group(1)


def run_client(text):
    """The page's Python client, run against a real server in the sample workspace."""
    m = re.search(r"<!-- example: (docs/examples/serve-client.py) -->\n```python\n(.*?)^```$",
                  text, re.S | re.M)
    assert m, "docs/serve.md: the client example is missing"
    with open(os.path.join(SOURCE, m.group(1))) as f:
        assert f.read() == m.group(2), "the page's copy of serve-client.py differs"
    tmp = tempfile.mkdtemp(prefix="warder-client.")
    try:
        ws = os.path.join(tmp, "ws")
        make_workspace(ws)
        bindir = os.path.dirname(os.path.abspath(WARDER))
        env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", ""),
                   HOME="/home/agent")
        p = subprocess.run([sys.executable, os.path.join(SOURCE, m.group(1))], cwd=ws, env=env,
                           capture_output=True, timeout=60)
        return p.returncode, p.stdout.decode(), p.stderr.decode()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    global RULES
    printing = "--print" in sys.argv
    with open(PAGE) as f:
        text = f.read()
    RULES = page_rules(text)
    failures = []
    count = 0
    for lineno, lines in blocks(text):
        count += 1
        if printing:
            print("--- block at line %d" % lineno)
        failures += replay(lineno, lines, printing)
    if count < 8:
        failures.append("only %d transcripts found: the parser is broken" % count)
    rc, out, err = run_client(text)
    want = re.search(r"<!-- client output -->\n```\n(.*?)^```$", text, re.S | re.M)
    if rc != 0 or not want or out != want.group(1):
        failures.append("the Python client: exit %d\n--- documented ---\n%s--- actual ---\n%s%s"
                        % (rc, want.group(1) if want else "(missing)", out, err))
    for f in failures:
        print(f)
    print("%d transcripts, %d failures" % (count, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
