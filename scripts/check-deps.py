#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the dependencies between warder's modules run one way (docs/architecture.md).

Usage: scripts/check-deps.py [SOURCE_ROOT]

Reads every file under src/ and include/warder/, follows their `#include "..."` lines
(through headers, transitively) and fails, naming the file and the include chain, when:
  1. a file under src/backends/ reaches a ruleset or command header (src/ruleset/,
     src/command/, include/warder/ruleset.h, warder/tooling.h, warder/guard.h,
     warder/warder.h): backends know nothing of rules;
  2. a file of src/glob/, src/path.c or src/ruleset/ reaches warder/sys/backend.h (the
     backend-author header): patterns, paths and rules know nothing of backends;
  3. a header under src/ declares a function or variable defined in another module (a module
     is a directory of src/; the files directly in src/ are the core): a module's functions
     are declared by that module;
  4. a door (src/serve, src/mcp, src/hook) reaches another door; the server library
     (src/json, src/session, src/rpc) reaches a door or the CLI, or src/json reaches the
     session or JSON-RPC, or these two reach each other; the library (everything else but
     src/cli) reaches the server library, a door or the CLI.
Exit status 0 when nothing is violated, 1 otherwise.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SRC = os.path.join(ROOT, "src")
INC = os.path.join(ROOT, "include")

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rel(p):
    return os.path.relpath(p, ROOT)


def files():
    out = []
    for base in (SRC, os.path.join(INC, "warder")):
        for d, _, names in os.walk(base):
            for n in names:
                if n.endswith((".c", ".h")):
                    out.append(os.path.join(d, n))
    return sorted(out)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def resolve(name, including):
    for d in (os.path.dirname(including), SRC, INC):
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(p):
            return p
    return None  # a generated or system header: not ours to check


ALL = files()
TEXT = {}
for f in ALL:
    with open(f, encoding="utf-8", errors="replace") as fh:
        TEXT[f] = strip_comments(fh.read())
DIRECT = {}
for f in ALL:
    DIRECT[f] = [p for p in (resolve(n, f) for n in INCLUDE_RE.findall(TEXT[f])) if p]


def reach(f):
    """Every project file `f` includes, directly or not, with the chain that reaches it."""
    seen = {}
    todo = [(f, [rel(f)])]
    while todo:
        cur, chain = todo.pop()
        for p in DIRECT.get(cur, []):
            if p not in seen:
                seen[p] = chain + [rel(p)]
                todo.append((p, seen[p]))
    return seen


def module(path):
    r = os.path.relpath(path, SRC)
    return r.split(os.sep)[0] if os.sep in r else ""


def under(path, *dirs):
    r = rel(path)
    return any(r == d or r.startswith(d + "/") for d in dirs)


problems = []


def problem(msg):
    problems.append(msg)


RULES_HEADERS = ("include/warder/ruleset.h", "include/warder/tooling.h",
                 "include/warder/guard.h", "include/warder/warder.h")
DOORS = ("src/serve", "src/mcp", "src/hook")
SERVER = ("src/json", "src/session", "src/rpc")

for f in ALL:
    if not under(f, "src"):
        continue
    r = reach(f)
    for p, chain in sorted(r.items()):
        # 1. backends know nothing of rules
        if under(f, "src/backends") and (under(p, "src/ruleset", "src/command") or rel(p) in RULES_HEADERS):
            problem("%s reaches a ruleset/command header: %s" % (rel(f), " -> ".join(chain)))
        # 2. patterns, paths and rules know nothing of backends
        if (under(f, "src/glob", "src/ruleset") or rel(f) == "src/path.c") and \
                rel(p) == "include/warder/sys/backend.h":
            problem("%s reaches warder/sys/backend.h: %s" % (rel(f), " -> ".join(chain)))
        # 4. layers: library < server library < doors (which do not know each other) < CLI
        if under(f, *DOORS):
            own = next(d for d in DOORS if under(f, d))
            if under(p, *DOORS) and not under(p, own):
                problem("door %s reaches another door: %s" % (rel(f), " -> ".join(chain)))
            if under(p, "src/cli"):
                problem("door %s reaches the CLI: %s" % (rel(f), " -> ".join(chain)))
        elif under(f, *SERVER):
            if under(p, *DOORS, "src/cli"):
                problem("server library file %s reaches a door: %s" % (rel(f), " -> ".join(chain)))
            # inside it, the JSON encoder is the bottom; the session and JSON-RPC are apart
            own = next(d for d in SERVER if under(f, d))
            if under(p, *SERVER) and not under(p, own) and not under(p, "src/json"):
                problem("%s reaches %s above or beside it: %s" % (rel(f), rel(p), " -> ".join(chain)))
        elif not under(f, "src/cli"):
            if under(p, *SERVER, *DOORS, "src/cli"):
                problem("library file %s reaches the server library or a door: %s" %
                        (rel(f), " -> ".join(chain)))

# 3. a module's functions are declared by that module's headers
DEF_RE = re.compile(r"^(?!static\b)(?:WARDER_API\s+)?[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*?\)\s*(?:__attribute__\(\(.*?\)\)\s*)?\{",
                    re.M | re.S)
VAR_RE = re.compile(r"^(?!static\b|extern\b)(?:const\s+)?[A-Za-z_][\w \t\*]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*=", re.M)
DECL_RE = re.compile(r"^(?!static\b|typedef\b|#)(?:extern\s+)?(?:WARDER_API\s+)?[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{)]*(?:\([^)]*\)[^;{)]*)*\)\s*(?:__attribute__\(\(.*?\)\)\s*)?;",
                     re.M | re.S)
EXTERN_RE = re.compile(r"^extern\s+[^;(]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", re.M)
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "defined"}

defined = {}
for f in ALL:
    if not (f.endswith(".c") and under(f, "src")):
        continue
    for rx in (DEF_RE, VAR_RE):
        for m in rx.finditer(TEXT[f]):
            name = m.group(1)
            if name not in KEYWORDS:
                defined.setdefault(name, set()).add(module(f))
for f in ALL:
    if not (f.endswith(".h") and under(f, "src")):
        continue
    body = re.sub(r"^\s*#.*(?:\\\n.*)*$", "", TEXT[f], flags=re.M)  # no macros
    body = re.sub(r"\{[^{}]*\}", ";", body)  # struct and inline bodies out of the way
    body = re.sub(r"\{[^{}]*\}", ";", body)
    names = {m.group(1) for rx in (DECL_RE, EXTERN_RE) for m in rx.finditer(body)}
    for name in sorted(names - KEYWORDS):
        mods = defined.get(name)
        if mods and module(f) not in mods:
            problem("%s declares %s, defined in %s" %
                    (rel(f), name, ", ".join("src/" + m if m else "src/ (core)" for m in sorted(mods))))

for p in problems:
    print("FAIL:", p)
print("%d files, %d violations" % (len([f for f in ALL if under(f, 'src')]), len(problems)))
sys.exit(1 if problems else 0)
