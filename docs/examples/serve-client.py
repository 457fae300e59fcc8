# SPDX-License-Identifier: MIT
# A host for `warder serve` in Python's standard library only: one guarded session, one
# request per line, answers matched by id (docs/serve.md).
import itertools, json, subprocess

class Warder:
    def __init__(self, *options):
        self.proc = subprocess.Popen(["warder", "serve", *options], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ids = itertools.count(1)

    def call(self, method, **params):
        request = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())  # one request at a time
        if "error" in answer:
            raise WarderError(answer["error"])
        return answer["result"]

class WarderError(Exception):
    def __init__(self, error):
        super().__init__(error["message"])
        self.code, self.data = error["code"], error.get("data", {})

w = Warder("--no-execute")
print(w.call("read", path="src/main.c")["content"], end="")
try:
    w.call("read", path="notes.txt")
except WarderError as e:
    print("refused:", e)
try:
    w.call("write", path="src/new.c", content="int x;\n")
except WarderError as e:  # -32002: ask the user here; on yes, send the same request again
    token = e.data["approval"]["token"]
    print("approved:", w.call("write", path="src/new.c", content="int x;\n", approval=token))
