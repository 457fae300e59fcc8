# SPDX-License-Identifier: MIT
"""A test driver for `warder serve`: starts it on pipes, sends lines, collects answers by id."""
import json
import os
import queue
import subprocess
import threading
import time

WARDER = os.environ.get("WARDER_CLI", "warder")

SECRET = "sk-live-0123456789abcdef"
MAIN_C = "int main(void) { return 0; } /* reads API_KEY from the env */\n"


def make_workspace(root):
    """The docs' sample workspace: a source file, a .env, an SSH key, notes.txt -> .env."""
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, ".ssh"), mode=0o700)
    with open(os.path.join(root, "src/main.c"), "w") as f:
        f.write(MAIN_C)
    with open(os.path.join(root, ".env"), "w") as f:
        f.write("API_KEY=" + SECRET + "\n")
    with open(os.path.join(root, ".ssh/id_ed25519"), "w") as f:
        f.write("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    os.symlink(".env", os.path.join(root, "notes.txt"))
    # fixed times, so that listings are the same on every run
    for rel in ("src/main.c", ".env", ".ssh/id_ed25519", "src", ".ssh"):
        os.utime(os.path.join(root, rel), (1700000000, 1700000000))


class Server:
    """One `warder serve` process. Answers are matched by id; notifications are kept."""

    def __init__(self, root, *args, home="/home/agent", cwd=None):
        argv = [WARDER, "serve", "--root", root, "--home", home, *args]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=cwd or root)
        self.answers = {}
        self.anonymous = []  # answers with "id": null, in order
        self.notes = []
        self.order = []  # ids in the order their answers arrived
        self.cond = threading.Condition()
        self.closed = False
        self.raw = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr = b""
        self.err_reader = threading.Thread(target=self._read_err, daemon=True)
        self.err_reader.start()
        self.next_id = 1

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            with self.cond:
                self.raw.append(line)
                if "id" not in msg:
                    self.notes.append(msg)
                elif msg["id"] is None:
                    self.anonymous.append(msg)
                else:
                    self.answers[json.dumps(msg["id"])] = msg
                    self.order.append(msg["id"])
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, method, params=None, id=None, extra=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        if extra:
            msg.update(extra)
        self.send_raw(json.dumps(msg).encode() + b"\n")
        return id

    def wait(self, id, timeout=30):
        key = json.dumps(id)
        deadline = time.monotonic() + timeout
        with self.cond:
            while key not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError("no answer for id %r; stderr: %r" % (id, self.stderr))
                self.cond.wait(left)
            return self.answers.pop(key)

    def wait_anonymous(self, count=1, timeout=30):
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.anonymous) < count:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError("no answer with a null id")
                self.cond.wait(left)
            got = self.anonymous[:count]
            del self.anonymous[:count]
            return got

    def wait_note(self, pred, timeout=30):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for n in self.notes:
                    if pred(n):
                        return n
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise AssertionError("no such notification")
                self.cond.wait(left)

    def call(self, method, params=None, timeout=30):
        return self.wait(self.send(method, params), timeout)

    def close(self, timeout=30):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.proc.wait(timeout)
        self.reader.join(timeout)
        self.err_reader.join(timeout)
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(10)
        self.err_reader.join(10)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except (OSError, ValueError):
                pass


def result(answer):
    assert "result" in answer, answer
    return answer["result"]


def error(answer):
    assert "error" in answer, answer
    return answer["error"]
