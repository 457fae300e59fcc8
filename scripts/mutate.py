#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing of warder's security core (standard library only).

Each mutant is one small change to one function of a source file (see OPERATORS below). It
is built in a scratch copy of the tree (build-mutate/ by default; the working tree is never
touched) and the test executables run against it, the test that has killed most mutants
first; the first failing test, crash or timeout kills the mutant. What survives is either a
missing test or an equivalent change: the latter are listed with a reason in
scripts/mutate-equivalents.txt and left out of the score, as are changes that do not
compile and changes whose object code is identical to the original's (the compiler proved
them equivalent).

    scripts/mutate.py                       # full run over the security core
    scripts/mutate.py --files src/guard.c   # one file (globs allowed)
    scripts/mutate.py --changed main        # only functions that differ from main
    scripts/mutate.py --list                # print the mutants without running them

Score per file: killed / (killed + survived). Results are appended to
build-mutate/results.jsonl and reused while the mutated function's code is unchanged, so an
interrupted run resumes where it stopped; --retry-survivors runs the survivors again (after
tests were added), --fresh starts over. Exit status: 0, or 1 when a file's score is under
--fail-under.
"""

import argparse
import fcntl
import fnmatch
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The security core. Globs, so that a file split into several keeps being covered (a missing
# pattern matches nothing); WARDER_MUTATE_FILES (space-separated) or --files replace it.
SECURITY_CORE = [
    "src/guard.c",
    "src/guard/*.c",
    "src/path.c",
    "src/check.c",
    "src/ruleset/ruleset.c",
    "src/ruleset/index.c",
    "src/command/decide.c",
    "src/command/expand.c",
    "src/command/wrappers.c",
    "src/backends/local/*.c",
]

EQUIVALENTS = os.path.join(ROOT, "scripts", "mutate-equivalents.txt")
SAVED = os.path.join(ROOT, "scripts", "mutate-results.jsonl")

# Calls whose deletion only leaks memory, a descriptor or a reference: the sanitizer builds
# (LeakSanitizer) are what catches those, not the functional suite, so they are not mutated.
RELEASE_CALLS = re.compile(
    r"^(free|close|closedir|fclose|va_end|pthread_mutex_destroy|request_end|fdstack_reset"
    r"|\w+_free|\w+_clear|\w+_destroy)$"
)

ACTIONS = ["WARDER_ALLOW", "WARDER_ASK", "WARDER_DENY"]
ROR = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "else", "do", "case", "default",
            "goto", "break", "continue", "struct", "union", "enum", "static", "const"}

OPERATORS = """
  ROR   a comparison changed: >= <-> >, <= <-> <, == <-> !=
  LCR   && <-> ||
  NEG   an if/while condition negated, or each of its &&/|| operands on its own when it has
        several; a bool function's returned expression negated
  RET0  an int function returns 0 instead of its value (an error path returning success)
  DEL   a call statement deleted (calls that only release resources excepted)
  FLAG  one constant dropped from an OR'ed set of flags
  ACT   WARDER_ALLOW / WARDER_ASK / WARDER_DENY replaced by each of the other two
"""

# ---- tokens and functions ------------------------------------------------------------------

TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+|\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\.|[^'\\\n])*')
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[\w.])*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[{}()\[\];,.?:~!<>=+\-*/%&|^#])
    """,
    re.S | re.X,
)


class Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end


def tokenize(src):
    """C tokens without comments, whitespace and preprocessor lines."""
    toks = []
    i, n, line_start = 0, len(src), True
    while i < n:
        if line_start:
            j = i
            while j < n and src[j] in " \t":
                j += 1
            if j < n and src[j] == "#":
                # a directive, with its continuation lines (comments inside are rare here)
                while j < n:
                    e = src.find("\n", j)
                    if e < 0:
                        j = n
                        break
                    if src[e - 1] == "\\":
                        j = e + 1
                        continue
                    j = e
                    break
                i = j
                continue
        m = TOKEN.match(src, i)
        if not m:
            raise ValueError("cannot tokenize at offset %d: %r" % (i, src[i:i + 20]))
        kind = m.lastgroup
        if kind == "ws":
            line_start = m.group() == "\n"
        elif kind == "comment":
            line_start = False if "\n" not in m.group() else line_start
        else:
            toks.append(Tok(kind, m.group(), m.start(), m.end()))
            line_start = False
        i = m.end()
    return toks


def match_forward(toks, i, open_, close):
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced %s at offset %d" % (open_, toks[i].start))


def match_backward(toks, i, open_, close):
    depth = 0
    for j in range(i, -1, -1):
        if toks[j].text == close:
            depth += 1
        elif toks[j].text == open_:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced %s at offset %d" % (close, toks[i].start))


class Func:
    def __init__(self, name, rtype, open_, close, toks, src):
        self.name, self.rtype, self.open, self.close = name, rtype, open_, close
        # Identity of the body for --changed: its tokens, so moves and reformatting don't count.
        body = " ".join(t.text for t in toks[open_:close + 1])
        self.digest = hashlib.sha1(body.encode()).hexdigest()


def functions(toks, src):
    """Function definitions at file scope: name, return type (int/bool/other), body range."""
    out, depth, last_end = [], 0, -1
    i = 0
    while i < len(toks):
        t = toks[i].text
        if t == "{" and depth == 0 and i > 0 and toks[i - 1].text == ")":
            p = match_backward(toks, i - 1, "(", ")")
            if p > 0 and toks[p - 1].kind == "id" and toks[p - 1].text not in KEYWORDS:
                name = toks[p - 1].text
                rtoks = [x.text for x in toks[last_end + 1:p - 1]]
                if "*" in rtoks:
                    rtype = "pointer"
                elif "int" in rtoks:
                    rtype = "int"
                elif "bool" in rtoks:
                    rtype = "bool"
                else:
                    rtype = "other"
                close = match_forward(toks, i, "{", "}")
                out.append(Func(name, rtype, i, close, toks, src))
                last_end = close
                i = close + 1
                continue
        if t in "{([":
            depth += 1
        elif t in "})]":
            depth -= 1
            if depth == 0 and t == "}":
                last_end = i
        elif t == ";" and depth == 0:
            last_end = i
        i += 1
    return out


# ---- mutants ---------------------------------------------------------------------------------


class Mutant:
    __slots__ = ("file", "func", "op", "desc", "edits", "id", "line", "digest")

    def __init__(self, file, func, op, desc, edits, line, digest):
        self.file, self.func, self.op, self.desc, self.edits, self.line = (
            file, func, op, desc, edits, line)
        self.digest = digest[:12]  # the function's code: a result is reused while it holds
        self.id = None

    def apply(self, src):
        for start, end, text in sorted(self.edits, reverse=True):
            src = src[:start] + text + src[end:]
        return src


def line_text(src, pos):
    s = src.rfind("\n", 0, pos) + 1
    e = src.find("\n", pos)
    return " ".join(src[s:e if e >= 0 else len(src)].split())


def line_no(src, pos):
    return src.count("\n", 0, pos) + 1


def statement_start(toks, i, lo):
    """Whether token i begins a statement inside a body that starts at token lo."""
    prev = toks[i - 1].text if i - 1 >= lo else "{"
    if prev in ("{", "}", ";") or prev == "else":
        return True
    if prev == ")":
        p = match_backward(toks, i - 1, "(", ")")
        return p > lo and toks[p - 1].text in ("if", "while", "for")
    if prev == ":":
        # a label (case X:, default:, name:) rather than the middle of a ?: expression
        j = i - 2
        while j >= lo and toks[j].text not in (";", "{", "}"):
            j -= 1
        first = toks[j + 1].text
        return first in ("case", "default") or (toks[j + 1].kind == "id" and j + 2 == i - 1)
    return False


def top_level_operands(toks, a, b):
    """Splits tokens [a, b) at &&/|| outside parentheses; [] when there is a ?: at the top."""
    parts, depth, start = [], 0, a
    for j in range(a, b):
        t = toks[j].text
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif depth == 0 and t == "?":
            return []
        elif depth == 0 and t in ("&&", "||"):
            parts.append((start, j))
            start = j + 1
    parts.append((start, b))
    return parts


def mutants_of(path, rel):
    src = open(path, encoding="utf-8", errors="surrogateescape").read()
    toks = tokenize(src)
    out = []
    for f in functions(toks, src):
        lo, hi = f.open + 1, f.close

        def add(op, desc, edits, at):
            out.append(Mutant(rel, f.name, op, '%s in "%s"' % (desc, line_text(src, at)), edits,
                              line_no(src, at), f.digest))

        for i in range(lo, hi):
            t = toks[i]
            if t.kind == "op" and t.text in ROR:
                add("ROR", "'%s' -> '%s'" % (t.text, ROR[t.text]), [(t.start, t.end, ROR[t.text])],
                    t.start)
            elif t.text in ("&&", "||"):
                r = "||" if t.text == "&&" else "&&"
                add("LCR", "'%s' -> '%s'" % (t.text, r), [(t.start, t.end, r)], t.start)
            elif t.text in ("if", "while") and toks[i + 1].text == "(":
                c = match_forward(toks, i + 1, "(", ")")
                a, b = i + 2, c
                if a >= b:
                    continue
                cond = src[toks[a].start:toks[b - 1].end]
                parts = top_level_operands(toks, a, b)
                # the whole condition, or (when it has several) each of its operands
                if len(parts) <= 1:
                    add("NEG", "negate %s (%s)" % (t.text, " ".join(cond.split())),
                        [(toks[a].start, toks[a].start, "!("),
                         (toks[b - 1].end, toks[b - 1].end, ")")], t.start)
                else:
                    for (pa, pb) in parts:
                        if pa >= pb:
                            continue
                        operand = " ".join(src[toks[pa].start:toks[pb - 1].end].split())
                        add("NEG", "negate operand '%s'" % operand,
                            [(toks[pa].start, toks[pa].start, "!("),
                             (toks[pb - 1].end, toks[pb - 1].end, ")")], toks[pa].start)
            elif t.text == "return" and f.rtype in ("int", "bool"):
                e = i + 1
                depth = 0
                while e < hi and not (toks[e].text == ";" and depth == 0):
                    if toks[e].text in "([":
                        depth += 1
                    elif toks[e].text in ")]":
                        depth -= 1
                    e += 1
                if e == i + 1:
                    continue
                expr = " ".join(src[toks[i + 1].start:toks[e - 1].end].split())
                span = (toks[i + 1].start, toks[e - 1].end)
                if f.rtype == "int" and expr != "0":
                    add("RET0", "return 0 instead of '%s'" % expr, [(span[0], span[1], "0")],
                        t.start)
                elif f.rtype == "bool":
                    rep = {"true": "false", "false": "true"}.get(expr, "!(%s)" % expr)
                    add("NEG", "return '%s' instead of '%s'" % (rep, expr),
                        [(span[0], span[1], rep)], t.start)
            elif (t.kind == "id" and toks[i + 1].text == "(" and t.text not in KEYWORDS and
                  statement_start(toks, i, lo)):
                c = match_forward(toks, i + 1, "(", ")")
                if c + 1 < hi and toks[c + 1].text == ";" and not RELEASE_CALLS.match(t.text):
                    add("DEL", "delete the call %s()" % t.text, [(t.start, toks[c].end, "(void)0")],
                        t.start)
            elif t.text == "|" and t.kind == "op":
                # one operand of a flag set, removed with the '|' next to it
                for side in (-1, 1):
                    k = i + side
                    if not (lo <= k < hi and re.match(r"^[A-Z][A-Z0-9_]*$", toks[k].text)):
                        continue
                    if side == 1 and k + 1 < hi and toks[k + 1].text in ("(", "[", ".", "->"):
                        continue
                    if side == -1 and k - 1 >= lo and toks[k - 1].text == "|":
                        continue  # removed from the '|' before it
                    if toks[k].text in ZERO_FLAGS:
                        continue  # the same set without it: not a change
                    a, b = (toks[k].start, t.end) if side == -1 else (t.start, toks[k].end)
                    add("FLAG", "drop %s from a flag set" % toks[k].text, [(a, b, "")],
                        toks[k].start)
            elif t.text in ACTIONS:
                for r in ACTIONS:
                    if r != t.text:
                        add("ACT", "%s -> %s" % (t.text, r), [(t.start, t.end, r)], t.start)
    # stable ids: file, function, description and its rank among identical ones
    seen = {}
    for m in out:
        key = (m.func, m.desc)
        seen[key] = seen.get(key, 0) + 1
        m.id = "%s :: %s :: %s #%d" % (m.file, m.func, m.desc, seen[key])
    return out, src


# Flags whose value is 0 on Linux: a set without one is the same set.
ZERO_FLAGS = {"O_RDONLY"}


def load_equivalents():
    """file :: function :: description [#k] :: reason (the rank is optional)."""
    entries = []
    if not os.path.exists(EQUIVALENTS):
        return entries
    for n, line in enumerate(open(EQUIVALENTS, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" :: ")]
        if len(parts) != 4 or not parts[3]:
            sys.exit("%s:%d: want 'file :: function :: mutant :: reason'" % (EQUIVALENTS, n))
        entries.append({"file": parts[0], "func": parts[1], "desc": parts[2], "why": parts[3],
                        "line": n, "used": False})
    return entries


def equivalent(entries, m):
    desc_k = m.id.split(" :: ", 2)[2]
    for e in entries:
        if e["file"] == m.file and e["func"] == m.func and e["desc"] in (m.desc, desc_k):
            e["used"] = True
            return e["why"]
    return None


# ---- mutant schemata -------------------------------------------------------------------------
#
# In schema mode every mutant of a file is compiled into ONE build: the smallest expression
# that holds a mutant (an if/while/for/switch condition, a returned expression, an expression
# statement, a local variable's initializer) becomes a chain
#     (warder__mutant == 12 ? (MUTANT 12) : warder__mutant == 13 ? (MUTANT 13) : (ORIGINAL))
# where warder__mutant is read once from the environment variable WARDER_MUTANT by a
# constructor (src/mutant.c, compiled only under -Dmutation_schemata=true). A mutant then
# costs only its tests. The mutated copies are written on the expression's first line and the
# original keeps its text, so every later line keeps its number (__LINE__, fault points).
# Mutants outside such an expression (case labels, array sizes, static initializers) or in
# one that does not compile as a chain fall back to the rebuild mode.

TYPE_WORDS = {"const", "static", "volatile", "unsigned", "signed", "char", "short", "int", "long",
              "float", "double", "bool", "_Bool", "void", "struct", "union", "enum", "size_t",
              "ssize_t", "register", "auto", "extern", "_Atomic", "restrict"}
STMT_KEYWORDS = KEYWORDS | {"return", "break", "continue", "goto", "default", "case", "do", "else"}


def scan_to(toks, i, hi, stops):
    """Index of the first token in `stops` at nesting depth 0 from i, or -1 (a '{' at depth 0
    or the end of the body first)."""
    depth = 0
    for j in range(i, hi):
        t = toks[j].text
        if depth == 0 and t in stops:
            return j
        if t in "([{":
            if t == "{" and depth == 0:
                return -1
            depth += 1
        elif t in ")]}":
            depth -= 1
            if depth < 0:
                return -1
    return -1


def is_declaration(toks, i, e):
    t0 = toks[i]
    if t0.text in TYPE_WORDS:
        return True
    if t0.kind != "id" or i + 1 >= e:
        return False
    j = i + 1
    while j < e and toks[j].text == "*":
        j += 1
    if j < e and toks[j].kind == "id" and toks[j].text not in KEYWORDS:
        k = j + 1
        return k >= e or toks[k].text in ("=", ";", ",", "[")
    return False


def expression_regions(toks, f, rtype):
    """[(first token, end token (exclusive), kind)] of the expressions of f's body that a
    mutant chain may replace; kind says how each alternative is wrapped."""
    out, lo, hi = [], f.open + 1, f.close
    i = lo
    while i < hi:
        t = toks[i]
        if t.text in ("if", "while", "switch") and toks[i + 1].text == "(":
            c = match_forward(toks, i + 1, "(", ")")
            if c > i + 2:
                out.append((i + 2, c, "switch" if t.text == "switch" else "cond"))
            i = c + 1
            continue
        if t.text == "for" and toks[i + 1].text == "(":
            c = match_forward(toks, i + 1, "(", ")")
            s1 = scan_to(toks, i + 2, c, (";",))
            s2 = scan_to(toks, s1 + 1, c, (";",)) if s1 >= 0 else -1
            if s1 >= 0 and s2 >= 0:
                if s1 > i + 2 and not is_declaration(toks, i + 2, s1):
                    out.append((i + 2, s1, "stmt"))
                if s2 > s1 + 1:
                    out.append((s1 + 1, s2, "cond"))
                if c > s2 + 1:
                    out.append((s2 + 1, c, "stmt"))
            i = c + 1
            continue
        if t.text == "return":
            e = scan_to(toks, i + 1, hi, (";",))
            if e > i + 1:
                out.append((i + 1, e, "ret-" + rtype))
            i = max(e, i) + 1
            continue
        if (t.text not in STMT_KEYWORDS or t.text in TYPE_WORDS) and statement_start(toks, i, lo) \
                and not (i + 1 < hi and toks[i + 1].text == ":"):
            e = scan_to(toks, i, hi, (";",))
            if e < 0:
                i += 1
                continue
            if not is_declaration(toks, i, e):
                out.append((i, e, "stmt"))
            elif not any(toks[k].text in ("static", "extern") for k in range(i, e)):
                j = i
                while j < e:  # each declarator's initializer
                    if toks[j].text == "=":
                        k = scan_to(toks, j + 1, e + 1, (",", ";"))
                        if k > j + 1 and toks[j + 1].text != "{":
                            out.append((j + 1, k, "init"))
                        j = k if k > 0 else e
                    elif toks[j].text in "([":
                        j = match_forward(toks, j, toks[j].text, ")" if toks[j].text == "(" else "]")
                    j += 1
            i = e + 1
            continue
        i += 1
    return out


WRAP = {"cond": "!!(%s)", "switch": "(%s)", "stmt": "(void)(%s)", "init": "(%s)",
        "ret-bool": "(bool)(%s)"}


def schema_source(src, rel, muts, numbers, excluded):
    """The schema of one file: (text, {mutant id: number}) for the mutants it expresses. `muts`
    are this file's mutants, `numbers` their switch values, `excluded` region starts (offsets)
    that must stay as they are (their chain did not compile)."""
    toks = tokenize(src)
    funcs = {f.name: f for f in functions(toks, src)}
    by_func = {}
    for m in muts:
        by_func.setdefault(m.func, []).append(m)
    edits, placed = [], {}
    for name, fm in by_func.items():
        f = funcs.get(name)
        if f is None:
            continue
        for a, b, kind in expression_regions(toks, f, f.rtype):
            lo, hi = toks[a].start, toks[b - 1].end
            if lo in excluded:
                continue
            inside = [m for m in fm if all(lo <= s and e <= hi for s, e, _ in m.edits)]
            if not inside:
                continue
            text = src[lo:hi]
            if "\n#" in text or re.search(r"\n[ \t]+#", text):
                continue  # a preprocessor line inside: leave it to the rebuild mode
            wrap = WRAP.get(kind, "(%s)")
            chain = []
            for m in inside:
                mutated = text
                for s, e, r in sorted(m.edits, reverse=True):
                    mutated = mutated[:s - lo] + r + mutated[e - lo:]
                flat = " ".join(x.text for x in tokenize(mutated))
                chain.append("warder__mutant == %d ? %s : " % (numbers[m.id], wrap % flat))
                placed[m.id] = (numbers[m.id], lo, hi)
            edits.append((lo, hi, "(" + "".join(chain) + wrap % text + ")"))
    for lo, hi, text in sorted(edits, reverse=True):
        src = src[:lo] + text + src[hi:]
    return src, placed


# An error, and where a macro whose expansion it is was used: a statement macro (do { … }
# while (0)) used inside a chain is reported at its definition, outside every chain.
COMPILE_ERROR = re.compile(r"^([^\s:]+\.[ch]):(\d+):\d+: (?:error:|note: in expansion of macro)",
                           re.M)


def build_schema(bench, plan, numbers):
    """Prepares and builds the schema tree; returns {mutant id: switch value} of the mutants
    it holds. A chain that does not compile is left out (its mutants are rebuilt one by one),
    then the build is tried again."""
    originals = {rel: open(os.path.join(ROOT, rel), encoding="utf-8",
                           errors="surrogateescape").read() for rel, _ in plan}
    # The chains that did not compile last time, while the source and the mutants are the
    # same: a second run then writes the schema as it was built, and rebuilds nothing under
    # the tests of a run beside it (--reverse, --shard).
    known = os.path.join(bench.work, "schema-excluded.json")
    stamp = {rel: hashlib.sha1((originals[rel] + "".join(
        "%s=%d;" % (m.id, numbers[m.id]) for m in muts)).encode(
            "utf-8", "surrogateescape")).hexdigest() for rel, muts in plan}
    saved = json.load(open(known)) if os.path.exists(known) else {}
    excluded = {rel: set(saved[rel]["excluded"]) if saved.get(rel, {}).get("stamp") ==
                stamp[rel] else set() for rel, _ in plan}
    whole = {rel for rel, _ in plan if saved.get(rel, {}).get("stamp") == stamp[rel] and
             saved[rel].get("whole")}  # files whose errors could not be placed: no schema
    prepared = False
    for _ in range(40):
        generated, placed, spans = {}, {}, {}
        for rel, muts in plan:
            if rel in whole or not muts:
                generated[rel] = originals[rel]
                continue
            generated[rel], pl = schema_source(originals[rel], rel, muts, numbers, excluded[rel])
            for mid, (n, lo, hi) in pl.items():
                placed[mid] = n
                spans.setdefault(rel, set()).add((lo, hi))
        if prepared:
            for rel, text in generated.items():
                bench.write(rel, text)
        else:
            bench.prepare(generated)
            prepared = True
        r = sh(["ninja", "-k", "0", "-C", bench.build] + bench.targets)
        if r.returncode == 0:
            bench.linked = True
            json.dump({rel: {"stamp": stamp[rel], "excluded": sorted(excluded[rel]),
                             "whole": rel in whole} for rel, _ in plan}, open(known, "w"))
            return placed
        progress = False
        hits = {}  # file -> chains that an error or a macro expansion names
        for path, line in set(COMPILE_ERROR.findall(re.sub(r"\x1b\[[0-9;]*[mK]", "", r.stdout))):
            rel = os.path.relpath(os.path.normpath(os.path.join(bench.build, path)), bench.tree)
            if rel not in spans:
                continue
            line, src = int(line), originals[rel]
            hits.setdefault(rel, set()).update(
                lo for lo, hi in spans[rel] if line_no(src, lo) <= line <= line_no(src, hi))
        for rel, hit in hits.items():
            if not hit:
                whole.add(rel)
            excluded[rel] |= hit
            progress = True
        if not progress:
            sys.exit("the schema build fails without a mutant to blame:\n" + r.stdout[-3000:])
    sys.exit("the schema build still fails after 40 attempts")


# ---- building and testing ----------------------------------------------------------------------


def kill_session(sid):
    """SIGKILL every process of session `sid` (a test started with start_new_session; Check
    puts each forked test in a process group of its own, but the session stays)."""
    for _ in range(3):
        found = False
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = open("/proc/%s/stat" % pid).read()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if len(fields) > 3 and int(fields[3]) == sid:
                found = True
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if not found:
            return
        time.sleep(0.05)


def split_tests(tests, build):
    """Each test of a Check executable (tests/test-*) as a test of its own, selected with
    WARDER_TEST_ONLY (tests/support.c): a mutant then runs only the few tests that reach it,
    not every test of their executables (a loop test: each iteration, or chunk, on its own).
    The executable lists its tests when WARDER_TEST_LIST is set; one that does not (any other
    output) stays whole."""
    out = []
    for t in tests:
        exe, names = t["cmd"][0], []
        if os.path.basename(exe).startswith("test-") and os.path.isfile(exe) and \
                os.access(exe, os.X_OK):
            env = dict(os.environ)
            env.update(t.get("env") or {})
            env["WARDER_TEST_LIST"] = "1"
            try:
                r = subprocess.run(t["cmd"], cwd=t.get("workdir") or build, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                   timeout=60)
                lines = r.stdout.split("\n")[:-1]
                named = all(re.fullmatch(r"\w+(@\d+(-\d+)?)?", x) for x in lines)
                if r.returncode == 0 and lines and named:
                    names = list(dict.fromkeys(lines))
            except subprocess.TimeoutExpired:
                pass
        if not names:
            out.append(t)
        for n in names:
            sub = dict(t)
            sub["name"] = "%s::%s" % (t["name"], n)
            sub["env"] = dict(t.get("env") or {}, WARDER_TEST_ONLY=n)
            out.append(sub)
    return out


def chosen_tests(tests, patterns):
    """The tests whose names match one of `patterns` (all of them without patterns)."""
    if not patterns:
        return tests
    return [t for t in tests if any(fnmatch.fnmatch(t["name"], p) for p in patterns)]


def on_term(signum, frame):
    raise KeyboardInterrupt


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


class Bench:
    """The scratch tree, its build and the tests."""

    def __init__(self, work, jobs, name="tree", options=()):
        self.work = os.path.abspath(work)
        self.tree = os.path.join(self.work, name)
        self.build = os.path.join(self.tree, "_build")
        self.jobs = jobs
        self.options = list(options)  # extra meson options (the schema build's switch)
        self.env = {}  # extra environment of every test (WARDER_MUTANT)
        self.only = []  # --tests: run only these tests (fnmatch patterns of their names)
        self.linked = False  # every test is built already: run_tests links nothing

    def prepare(self, generated=None):
        """Copies the working tree's files (those in `generated` get that text instead) and
        configures the build once."""
        generated = generated or {}
        os.makedirs(self.work, exist_ok=True)
        r = sh(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard"])
        if r.returncode == 0:
            files = r.stdout.split("\n")
        else:  # not a git checkout: every file but the build directories
            files = [os.path.relpath(os.path.join(d, f), ROOT)
                     for d, dirs, fs in os.walk(ROOT)
                     if not os.path.relpath(d, ROOT).startswith(("build", ".git"))
                     for f in fs]
        kept = set()
        for rel in files:
            src = os.path.join(ROOT, rel)
            if not rel or not os.path.isfile(src) or rel.startswith("build"):
                continue
            kept.add(rel)
            dst = os.path.join(self.tree, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if rel in generated:
                self.write(rel, generated[rel])
            elif not os.path.exists(dst) or open(src, "rb").read() != open(dst, "rb").read():
                shutil.copy(src, dst)  # a fresh mtime: ninja must rebuild from it
        # A file the working tree no longer has goes from the copy too (a stale source would
        # still be read by the tests that scan the tree, such as check-deps).
        for d, dirs, fs in os.walk(self.tree):
            rel_dir = os.path.relpath(d, self.tree)
            if rel_dir == ".":
                dirs[:] = [x for x in dirs if not x.startswith("_")]
            for f in fs:
                rel = os.path.normpath(os.path.join(rel_dir, f))
                if rel not in kept:
                    os.remove(os.path.join(d, f))
        vectors = os.path.normpath(os.path.join(ROOT, "..", "shared", "glob",
                                                "wildmatch-vectors.tsv"))
        self.vectors = vectors
        if not os.path.exists(os.path.join(self.build, "build.ninja")):
            # -O1 without debug info: a mutant compiles 2-3 times faster than with -O2 -g, and
            # the tests still run at a useful speed. Fault injection on: test-fault is a killer.
            r = sh(["meson", "setup", self.build, self.tree, "-Dfault_injection=true",
                    "-Dwerror=false", "-Dbuildtype=plain", "-Dc_args=-O1",
                    "-Dwildmatch_vectors=" + vectors] + self.options)
            if r.returncode:
                sys.exit("meson setup failed:\n" + r.stdout[-3000:])
        tests = json.loads(sh(["meson", "introspect", "--tests", self.build]).stdout)
        self.tests = [t for t in tests if "warder:headers" not in t["suite"]]
        targets = json.loads(sh(["meson", "introspect", "--targets", self.build]).stdout)
        files = {t["id"]: t["filename"] for t in targets}
        built = {f for fs in files.values() for f in fs}
        # What each test needs built: its executable, its declared dependencies, and the
        # built files its environment names (the CLI for the CLI and docs tests).
        for t in self.tests:
            # cmd[0] may be an interpreter (python3, node) rather than a built file
            need = {t["cmd"][0]} & built
            for d in t.get("depends") or []:
                need.update(files.get(d, []))
            need.update(v for v in (t.get("env") or {}).values() if v in built)
            t["targets"] = sorted(os.path.relpath(f, self.build) for f in need)
        self.targets = sorted({f for t in self.tests for f in t["targets"]})
        self.objects = {}
        for e in json.load(open(os.path.join(self.build, "compile_commands.json"))):
            path = os.path.normpath(os.path.join(self.build, e["file"]))
            if "libwarder" in e.get("output", ""):
                self.objects[os.path.relpath(path, self.tree)] = os.path.join(self.build,
                                                                              e["output"])

    def split(self):
        """Once the tests are built: each Check test on its own (split_tests), only those
        that match self.only (fnmatch patterns) when it is set."""
        self.tests = chosen_tests(split_tests(self.tests, self.build), self.only)

    def write(self, rel, text):
        """Writes a source of the scratch tree unless it already holds `text` (ninja keeps
        what is built)."""
        dst = os.path.join(self.tree, rel)
        data = text.encode("utf-8", "surrogateescape")
        if not os.path.exists(dst) or open(dst, "rb").read() != data:
            with open(dst, "wb") as f:
                f.write(data)

    def digest(self):
        """Of every file of the scratch tree but the build directories."""
        digest = hashlib.sha1()
        for d, _, fs in sorted(os.walk(self.tree)):
            if "/_" in d + "/" and os.path.relpath(d, self.tree).startswith("_"):
                continue
            for f in sorted(fs):
                if f.startswith("mutate") and os.path.basename(d) == "scripts":
                    continue  # the runner itself: no test depends on it
                digest.update(open(os.path.join(d, f), "rb").read())
        return digest.hexdigest()

    def baseline(self):
        """{test name: seconds} of the unmutated suite, which must pass (the durations set
        the timeouts). Cached while the tree's files are unchanged."""
        key = self.digest()
        cache = os.path.join(self.work, os.path.basename(self.tree) + "-baseline.json")
        if os.path.exists(cache):
            c = json.load(open(cache))
            if c.get("key") == key and set(c["secs"]) == {t["name"] for t in self.tests}:
                return c["secs"]
        secs = {}
        record = os.path.join(self.work, "shdiff-cache")
        for t in self.tests:
            before = os.path.getsize(record) if os.path.exists(record) else -1
            ok, rc, took = self.run_test(t, t.get("timeout") or 300)
            if ok and (os.path.getsize(record) if os.path.exists(record) else -1) != before:
                # it recorded what the shells ran (start_test): every mutant reads that back,
                # so the budget charges the run that does, not the one that recorded
                ok, rc, took = self.run_test(t, t.get("timeout") or 300)
            if not ok:
                sys.exit("test '%s' fails without any mutant (exit %s): fix the suite first" %
                         (t["name"], rc))
            secs[t["name"]] = took
        json.dump({"key": key, "secs": secs}, open(cache, "w"))
        return secs

    def coverage(self, wanted):
        """{(file, function): names of the tests that execute it} for the files in `wanted`,
        from a coverage build of the same tree (each test run alone, gcov after each). A test
        that never runs a function cannot notice a change inside it, so a mutant runs only
        the tests that reach its function. Cached while the tree's files are unchanged."""
        key = self.digest()
        cache = os.path.join(self.work, "coverage%s.json" % (
            "-" + hashlib.sha1(" ".join(self.only).encode()).hexdigest()[:8] if self.only else ""))
        if os.path.exists(cache):
            c = json.load(open(cache))
            if c.get("key") == key and set(wanted) <= set(c.get("files", [])):
                return {tuple(k.split(" :: ", 1)): set(v) for k, v in c["map"].items()}
        cov = os.path.join(self.tree, "_cov")
        if not os.path.exists(os.path.join(cov, "build.ninja")):
            r = sh(["meson", "setup", cov, self.tree, "-Dfault_injection=true", "-Dwerror=false",
                    "-Db_coverage=true", "-Dbuildtype=debug",
                    "-Dwildmatch_vectors=" + self.vectors])
            if r.returncode:
                sys.exit("meson setup (coverage) failed:\n" + r.stdout[-3000:])
        r = sh(["ninja", "-C", cov])
        if r.returncode:
            sys.exit("the coverage build failed:\n" + r.stdout[-3000:])
        tests = chosen_tests(split_tests([t for t in json.loads(sh(["meson", "introspect",
                                                                    "--tests", cov]).stdout)
                                          if "warder:headers" not in t["suite"]], cov), self.only)
        objdir = [os.path.join(cov, d) for d in os.listdir(os.path.join(cov, "src"))
                  if d.startswith("libwarder.so") and d.endswith(".p")]
        objdir = os.path.join(cov, "src", os.path.basename(objdir[0])) if objdir else None
        result = {}
        print("mutate: coverage of %d tests (once per tree)" % len(tests), flush=True)
        for t in tests:
            for d, _, fs in os.walk(cov):
                for f in fs:
                    if f.endswith(".gcda"):
                        os.remove(os.path.join(d, f))
            p = self.start_test(t, t.get("timeout") or 300)
            try:
                p.wait(timeout=(t.get("timeout") or 300) * 3)
            except subprocess.TimeoutExpired:
                pass
            finally:
                kill_session(p.pid)
                p.wait()
            gcdas = [os.path.join(objdir, f) for f in os.listdir(objdir)
                     if f.endswith(".gcda")] if objdir else []
            if not gcdas:
                continue
            out = subprocess.run(["gcov", "--json-format", "--stdout"] + gcdas, cwd=cov,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
            for line in out.splitlines():
                for f in json.loads(line).get("files", []):
                    rel = os.path.relpath(os.path.normpath(os.path.join(cov, f["file"])),
                                          self.tree)
                    if rel not in wanted:
                        continue
                    for fn in f.get("functions", []):
                        if fn.get("execution_count", 0) > 0:
                            result.setdefault((rel, fn["name"]), set()).add(t["name"])
                    for ln in f.get("lines", []):
                        # a line that no test runs has a record with count 0: it is known
                        # to be unreached, unlike a line without any record
                        tests_of = result.setdefault((rel, str(ln["line_number"])), set())
                        if ln.get("count", 0) > 0:
                            tests_of.add(t["name"])
        json.dump({"key": key, "files": sorted(wanted),
                   "map": {" :: ".join(k): sorted(v) for k, v in result.items()}},
                  open(cache, "w"))
        return result

    def compile(self, targets=None):
        r = sh(["ninja", "-C", self.build] + (targets or self.targets))
        return r.returncode == 0, r.stdout

    def compile_object(self, rel):
        """Only the mutated file's object (its tests are linked as they are run)."""
        obj = self.objects.get(rel)
        return self.compile([os.path.relpath(obj, self.build)] if obj else None)

    def stripped(self, rel):
        obj = self.objects.get(rel)
        if not obj or not os.path.exists(obj):
            return None
        tmp = os.path.join(self.work, "stripped.o")
        if sh(["objcopy", "--strip-debug", obj, tmp]).returncode:
            return None
        return open(tmp, "rb").read()

    def start_test(self, t, timeout):
        env = dict(os.environ)
        env.update(t.get("env") or {})
        env.update(self.env)
        env["CK_DEFAULT_TIMEOUT"] = str(max(10, int(timeout)))
        # what the shells of test-command's differential test run involves no warder code:
        # the baseline records it, the mutants read it back (fuzz/shell-diff.c)
        env["WARDER_SHDIFF_CACHE"] = os.path.join(self.work, "shdiff-cache")
        return subprocess.Popen(t["cmd"], cwd=t.get("workdir") or self.build, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)

    def run_tests(self, order, limits, budget=0, cost=None):
        """Runs `order` up to self.jobs at a time (each linked just before it starts); returns
        (name, status) of the first that fails or times out, ("", "invalid") when one does not
        link, (None, n) when the tests started had cost `budget` seconds in all (their baseline
        durations, `cost`: the same on a busy machine as on an idle one) with n tests not
        started, or (None, None) when all pass."""
        pending, running = list(order), []
        spent = 0.0
        try:
            while pending or running:
                over = budget and spent >= budget
                if over and pending and not running:
                    return None, len(pending)
                while pending and len(running) < self.jobs and not over:
                    t = pending.pop(0)
                    spent += (cost or {}).get(t["name"], 0)
                    over = budget and spent >= budget
                    built = self.linked or self.compile(t["targets"])[0]
                    if not built:
                        return "", "invalid"
                    running.append((t, self.start_test(t, limits[t["name"]]),
                                    time.time() + limits[t["name"]]))
                time.sleep(0.01)
                for item in list(running):
                    t, p, deadline = item
                    rc = p.poll()
                    if rc is None and time.time() > deadline:
                        rc = "timeout"
                    if rc is None:
                        continue
                    running.remove(item)
                    kill_session(p.pid)
                    p.wait()
                    if rc not in (0, 77):
                        return t["name"], rc
            return None, None
        finally:
            for _, p, _ in running:
                kill_session(p.pid)
                p.wait()

    def run_test(self, t, timeout):
        start = time.time()
        p = self.start_test(t, timeout)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            rc = "timeout"
        finally:
            kill_session(p.pid)  # the test and every child it forked (Check forks per test)
            p.wait()
        ok = rc == 0 or rc == 77
        return ok, rc, time.time() - start


# ---- the campaign ------------------------------------------------------------------------------


def reaching(covered, m, src):
    """Names of the tests that run the lines a mutant changes (a test that never runs them
    cannot notice it), or of those that run its function where gcov has no record of those
    lines (a continuation line of an expression, say)."""
    lines = {str(n) for s, e, _ in m.edits for n in range(line_no(src, s), line_no(src, e) + 1)}
    known = [covered[(m.file, n)] for n in lines if (m.file, n) in covered]
    func = covered.get((m.file, m.func), set())
    if not func:
        # A function that no test ran, as gcov sees it: a child that ends in _exit() or
        # execve() (the exec backend's, the mask walk's) never writes its counts. Every test
        # that runs some function of the same file may be the one that forks such a child.
        return set().union(*[v for (f, k), v in covered.items() if f == m.file and
                             not k.isdigit()])
    if known:
        return set().union(*known)
    return func


def own_tests(rel):
    """Names of the test executables (without test-) that belong to a source file: its stem and
    its directory's (src/backends/local/grep.c: grep and local)."""
    return {os.path.splitext(os.path.basename(rel))[0], os.path.basename(os.path.dirname(rel))}


def core_files(patterns):
    files = []
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(ROOT, p))):
            rel = os.path.relpath(f, ROOT)
            if rel not in files:
                files.append(rel)
    return files


def changed_functions(rel, base):
    """Names of the functions of `rel` whose tokens differ from (or are absent at) `base`."""
    r = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (base, rel)], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    now = open(os.path.join(ROOT, rel), encoding="utf-8", errors="surrogateescape").read()
    ntoks = tokenize(now)
    fnow = {f.name: f.digest for f in functions(ntoks, now)}
    if r.returncode:
        return set(fnow)  # a new file: every function
    old = r.stdout.decode("utf-8", "surrogateescape")
    otoks = tokenize(old)
    fold = {f.name: f.digest for f in functions(otoks, old)}
    return {name for name, d in fnow.items() if fold.get(name) != d}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="operators:" + OPERATORS,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", nargs="+", help="source files or globs (default: the security core)")
    ap.add_argument("--functions", nargs="+", help="only these functions (fnmatch patterns)")
    ap.add_argument("--changed", metavar="BASE",
                    help="only functions whose code differs from git revision BASE")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--report", action="store_true",
                    help="the table from earlier results only (nothing is built or run)")
    ap.add_argument("--show", metavar="TEXT",
                    help="print the diff of every mutant whose id contains TEXT and exit")
    ap.add_argument("--work", default=os.path.join(ROOT, "build-mutate"),
                    help="scratch directory (default: build-mutate/)")
    ap.add_argument("--fresh", action="store_true", help="forget earlier results")
    ap.add_argument("--retry-survivors", action="store_true",
                    help="run again the mutants that survived before (after adding tests)")
    ap.add_argument("--budget", type=float, default=0,
                    help="stop starting mutants after this many seconds (0: no limit)")
    ap.add_argument("--fail-under", type=float, default=0, metavar="PCT",
                    help="exit 1 when a file scores under PCT (default: report only)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="tests run at once for one mutant (default 1)")
    ap.add_argument("--mode", choices=("schema", "rebuild"), default="schema",
                    help="schema (default): every mutant compiled once into one build and "
                    "selected at run time, the rest rebuilt one by one; rebuild: each mutant "
                    "built on its own (also detects mutants whose object code is identical)")
    ap.add_argument("--mutant-budget", type=float, default=0, metavar="SECS",
                    help="start no more of a mutant's tests once those started took SECS in "
                    "the baseline run (0: no limit); a mutant not killed by them counts as a "
                    "survivor, with the number of tests it did not run, and --retry-survivors "
                    "runs it again")
    ap.add_argument("--tests", nargs="+", metavar="PATTERN", default=[],
                    help="run only the tests whose names match (fnmatch; a Check test is "
                    "EXECUTABLE::NAME or EXECUTABLE::NAME@I): with --retry-survivors, settles "
                    "whether new tests kill the survivors without rerunning the whole suite "
                    "(a survivor that they do not kill stays one); a mutant never run before "
                    "that these tests do not kill is recorded as a survivor of them only, which "
                    "--retry-survivors runs against the whole suite")
    ap.add_argument("--save", action="store_true",
                    help="write the latest result of every mutant of the plan to "
                    "scripts/mutate-results.jsonl, which later runs start from")
    ap.add_argument("--skip", nargs="+", default=[], metavar="FILE",
                    help="leave these files' mutants not run, earlier survivors too (beside "
                    "--reverse: one run takes the files the other should not reach first)")
    ap.add_argument("--reverse", action="store_true",
                    help="run the mutants from the last: beside a run in the usual order with "
                    "the same --work, each skips what the other has done, and they meet")
    ap.add_argument("--shard", metavar="K/N", default="0/1",
                    help="only every N-th mutant, from the K-th (0-based): N runs side by side "
                    "with the same --work share its schema build, baseline and coverage")
    args = ap.parse_args()
    m = re.fullmatch(r"(\d+)/(\d+)", args.shard)
    if not m or int(m.group(1)) >= int(m.group(2)):
        ap.error("--shard takes K/N with 0 <= K < N")
    shard, shards = int(m.group(1)), int(m.group(2))
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)  # also when started in the background

    patterns = args.files or os.environ.get("WARDER_MUTATE_FILES", "").split() or SECURITY_CORE
    files = core_files(patterns)
    if not files:
        sys.exit("no source file matches %s" % " ".join(patterns))
    entries = load_equivalents()

    plan = []
    for rel in files:
        muts, _ = mutants_of(os.path.join(ROOT, rel), rel)
        if args.changed:
            names = changed_functions(rel, args.changed)
            muts = [m for m in muts if m.func in names]
        if args.functions:
            muts = [m for m in muts if any(fnmatch.fnmatch(m.func, p) for p in args.functions)]
        plan.append((rel, muts))

    if args.show:
        import difflib
        for rel, muts in plan:
            for m in muts:
                if args.show in m.id:
                    src = open(os.path.join(ROOT, rel), encoding="utf-8",
                               errors="surrogateescape").read()
                    print("# " + m.id)
                    sys.stdout.writelines(difflib.unified_diff(
                        src.splitlines(True), m.apply(src).splitlines(True), rel, rel, n=1))
        return 0
    if args.list:
        for rel, muts in plan:
            for m in muts:
                why = equivalent(entries, m)
                print("%s:%d: %s%s" % (rel, m.line, m.id, "   [equivalent: %s]" % why if why else ""))
        print("%d mutants" % sum(len(m) for _, m in plan), file=sys.stderr)
        return 0
    if args.changed and not any(m for _, m in plan):
        print("mutate: no function of the security core changed since %s" % args.changed)
        return 0

    # each shard mutates its own copy of the tree (the rebuild mode writes into it)
    bench = Bench(args.work, args.jobs, "tree%s%s" % (
        "" if shards == 1 else "-%d" % shard, "-reverse" if args.reverse else ""))
    bench.only = args.tests
    results_path = os.path.join(bench.work, "results.jsonl")
    if args.fresh and os.path.exists(results_path):
        os.remove(results_path)
    durations, covered = {}, {}
    schema, placed = None, {}
    rebuilt = args.mode == "rebuild"  # whether the rebuild tree is built
    setup_lock = None
    if not args.report:
        # one shard sets up the schema build, the baseline and the coverage map; the others
        # wait for it, then find them built and cached
        os.makedirs(bench.work, exist_ok=True)
        setup_lock = open(os.path.join(bench.work, "setup.lock"), "w")
        fcntl.flock(setup_lock, fcntl.LOCK_EX)
        print("mutate: preparing %s" % bench.tree, flush=True)
        bench.prepare()
        if rebuilt:
            ok, log = bench.compile()
            if not ok:
                sys.exit("the unmutated tree does not build:\n" + log[-3000:])
            bench.split()
        else:
            schema = Bench(args.work, args.jobs, "schema", ["-Dmutation_schemata=true"])
            schema.only = args.tests
            wanted = [m for _, muts in plan for m in muts if not equivalent(entries, m)]
            numbers = {m.id: k for k, m in enumerate(wanted, 1)}
            print("mutate: building the schema of %d mutants in %s" % (len(wanted), schema.tree),
                  flush=True)
            placed = build_schema(schema, [(rel, [m for m in muts if m.id in numbers])
                                           for rel, muts in plan], numbers)
            print("mutate: %d mutants in the schema, %d to rebuild one by one" % (
                len(placed), len(wanted) - len(placed)), flush=True)
            schema.split()
    # Baseline: the suite must pass, and how long each test takes sets its timeout.
    base = schema or bench
    if not args.report:
        durations = base.baseline()
    if not args.report:
        print("mutate: baseline suite %.0f s over %d tests (%s)" % (
            sum(durations.values()), len(base.tests),
            ", ".join("%s %.1f" % kv for kv in sorted(durations.items(), key=lambda kv: -kv[1])[:6])),
            flush=True)

    if not args.report:
        # every core file, so that runs over other files of the same tree reuse the cache
        covered = bench.coverage({rel for rel, muts in plan if muts} |
                                 set(core_files(SECURITY_CORE)))
        setup_lock.close()

    done = {}
    # The results kept in the repository (--save): each holds while its function's code does
    if not args.fresh and os.path.exists(SAVED):
        for line in open(SAVED):
            r = json.loads(line)
            done[(r["id"], r["src"])] = r
    # The tests this work directory's runs had (their baselines): a kill recorded by a test
    # they did not have (written after their tree was copied), or by another run of some tests
    # only, is not undone by their survivor, nor by one whose budget ran out.
    known = set()
    for path in glob.glob(os.path.join(os.path.abspath(args.work), "*-baseline.json")):
        known |= set(json.load(open(path)).get("secs", {}))

    def merge(into, r):
        old = into.get((r["id"], r["src"]))
        if (old and old.get("status") == "killed" and r.get("status") == "survived" and
                (r.get("only") or r.get("untested") or (known and old.get("killer") not in known))):
            return
        into[(r["id"], r["src"])] = r
    seen = 0  # how much of the results file was read
    if os.path.exists(results_path):
        with open(results_path, "rb") as f:
            data = f.read()
        seen = data.rfind(b"\n") + 1
        for line in data[:seen].decode().splitlines():
            merge(done, json.loads(line))
    fresh = {}  # results written since this run started, by it or by a run beside it

    def read_fresh():
        nonlocal seen
        if not os.path.exists(results_path):
            return
        with open(results_path, "rb") as f:
            f.seek(seen)
            data = f.read()
        end = data.rfind(b"\n") + 1
        seen += end
        for line in data[:end].decode().splitlines():
            r = json.loads(line)
            fresh[(r["id"], r["src"])] = r
    kills = {}  # test name -> mutants it killed (this run and earlier ones)
    for r in done.values():
        if r.get("killer"):
            kills[r["killer"]] = kills.get(r["killer"], 0) + 1

    start = time.time()
    summary = {}
    survivors = []
    untested = {}  # survivor id -> tests left unrun when --mutant-budget ran out
    subset = {}  # survivor id -> the --tests patterns it survived (the suite has not run)
    os.makedirs(bench.work, exist_ok=True)
    out = open(results_path, "a")
    stopped = args.report
    index = 0  # of the mutants that are run: the shards share them out
    if args.reverse:
        plan = [(rel, muts[::-1]) for rel, muts in plan[::-1]]
    try:
        for rel, muts in plan:
            path = os.path.join(bench.tree, rel)
            original = open(os.path.join(ROOT, rel), encoding="utf-8",
                            errors="surrogateescape").read()
            base_obj = None if args.report or not rebuilt else bench.stripped(rel)
            s = summary.setdefault(rel, dict.fromkeys(
                ["killed", "survived", "equivalent", "identical", "invalid", "skipped"], 0))
            for m in muts:
                why = equivalent(entries, m)
                if why:
                    s["equivalent"] += 1
                    continue
                index += 1
                if (index - 1) % shards != shard:
                    continue
                prev = done.get((m.id, m.digest))
                if rel in args.skip and not (prev or fresh.get((m.id, m.digest))):
                    s["skipped"] += 1  # left to a run beside this one, or a later one
                    continue
                if (prev and prev["status"] == "survived" and args.retry_survivors and
                        rel not in args.skip):
                    prev = None
                if not args.report:
                    read_fresh()  # a run beside this one (--reverse) may have done it
                prev = fresh.get((m.id, m.digest)) or prev
                if prev:
                    s[prev["status"]] += 1
                    if prev["status"] == "survived":
                        survivors.append(m)
                        untested[m.id] = prev.get("untested", 0)
                        subset[m.id] = prev.get("only")
                    continue
                if stopped or (args.budget and time.time() - start > args.budget):
                    stopped = True
                    s["skipped"] += 1
                    continue
                t0 = time.time()
                rec = {"id": m.id, "src": m.digest, "line": m.line}
                in_schema = m.id in placed
                if in_schema:
                    rec["mode"] = "schema"
                    rec["mutant"] = placed[m.id]  # WARDER_MUTANT=N reruns it by hand
                    schema.env = {"WARDER_MUTANT": str(placed[m.id])}
                elif not rebuilt:
                    # the first mutant the schema could not hold: build the rebuild tree
                    ok, log = bench.compile()
                    if not ok:
                        sys.exit("the unmutated tree does not build:\n" + log[-3000:])
                    bench.split()
                    rebuilt = True
                    base_obj = bench.stripped(rel)
                if base_obj is None and not in_schema:
                    base_obj = bench.stripped(rel)
                runner = schema if in_schema else bench
                try:
                    if not in_schema:
                        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                            f.write(m.apply(original))
                        built, _ = bench.compile_object(rel)
                    else:
                        built = True
                    if not built:
                        rec["status"] = "invalid"
                    elif (not in_schema and base_obj is not None and
                          bench.stripped(rel) == base_obj):
                        rec["status"] = "identical"
                    else:
                        rec["status"] = "survived"
                        reach = reaching(covered, m, original)
                        # the file's own tests first (test-grep for grep.c: a function that
                        # hundreds of tests reach would spend its budget on the others), then
                        # the most kills per second: a slow test that kills often (test-fault
                        # walks every failure point) must not go before a quick one
                        # The file's own tests run even where gcov saw them miss the lines:
                        # a test that checks in a child which ends in _exit(), or that drops
                        # to another user, leaves no counts behind (docs/testing.md).
                        own = own_tests(m.file)
                        order = sorted((t for t in runner.tests if t["name"] in reach or
                                        t["name"].split("::")[0] in own),
                                       key=lambda t: (t["name"].split("::")[0] not in own,
                                                      -(kills.get(t["name"], 0) + 1) /
                                                      max(durations[t["name"]], 0.05),
                                                      t["name"]))
                        if not order:
                            rec["unreached"] = True  # no test runs this function
                        limits = {t["name"]: max(10.0, 5 * durations[t["name"]])
                                  for t in runner.tests}
                        killer, rc = runner.run_tests(order, limits, args.mutant_budget,
                                                      durations)
                        if args.tests and not killer:
                            rec["only"] = args.tests  # survived these tests, not the suite
                        if isinstance(rc, int) and not killer:
                            rec["untested"] = rc  # the budget ran out: a survivor, untested
                        elif rc == "invalid":
                            rec.update(status="invalid")  # compiles, does not link
                        elif killer:
                            rec.update(status="killed", killer=killer, exit=str(rc))
                            kills[killer] = kills.get(killer, 0) + 1
                finally:
                    if not in_schema:
                        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                            f.write(original)
                rec["secs"] = round(time.time() - t0, 1)
                s[rec["status"]] += 1
                if rec["status"] == "survived":
                    survivors.append(m)
                    untested[m.id] = rec.get("untested", 0)
                    subset[m.id] = rec.get("only")
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print("%-9s %s:%d %s%s" % (rec["status"], rel, m.line, m.id.split(" :: ", 1)[1],
                                           " (%s)" % rec["killer"] if "killer" in rec else
                                           " (no test runs it)" if rec.get("unreached") else
                                           " (budget ran out)" if rec.get("untested") else
                                           " (only --tests ran)" if rec.get("only") else ""),
                      flush=True)
    except KeyboardInterrupt:
        print("mutate: interrupted", file=sys.stderr)
        stopped = True
    finally:
        out.close()
        # leave the scratch tree as the sources are (the next run rebuilds from there)
        for rel, _ in plan:
            if os.path.isdir(bench.tree):
                shutil.copy(os.path.join(ROOT, rel), os.path.join(bench.tree, rel))

    if args.save:
        latest = dict(done)
        if os.path.exists(results_path):
            for line in open(results_path):
                merge(latest, json.loads(line))
        keep = {(m.id, m.digest) for _, muts in plan for m in muts}
        with open(SAVED, "w") as f:
            for key in sorted(k for k in latest if k in keep):
                r = latest[key]
                f.write(json.dumps({k: r[k] for k in ("id", "src", "line", "status", "killer",
                                                      "untested", "unreached", "only")
                                    if k in r},
                                   sort_keys=True) + "\n")
        print("mutate: %d results saved to %s" % (len(keep & set(latest)),
                                                 os.path.relpath(SAVED, ROOT)))

    status = 0
    print("\n| file | killed | survived (budget ran out) | score | equivalent (listed) | "
          "identical code | not compiling | not run |")
    print("|---|---|---|---|---|---|---|---|")
    for rel, s in sorted(summary.items(), key=lambda kv: files.index(kv[0])):
        denom = s["killed"] + s["survived"]
        score = 100.0 * s["killed"] / denom if denom else 100.0
        budget = sum(1 for m in survivors if m.file == rel and untested.get(m.id))
        print("| %s | %d | %d (%d) | %s | %d | %d | %d | %d |" % (
            rel, s["killed"], s["survived"], budget, "%.1f%%" % score if denom else "—",
            s["equivalent"], s["identical"], s["invalid"], s["skipped"]))
        if args.fail_under and denom and score < args.fail_under and not s["skipped"]:
            status = 1
    if survivors:
        print("\nsurvivors (a missing test, or an equivalent change to list in %s):" %
              os.path.relpath(EQUIVALENTS, ROOT))
        for m in survivors:
            print("  %s:%d  %s%s%s" % (m.file, m.line, m.id,
                                       "  [budget ran out: %d tests not run]" % untested[m.id]
                                       if untested.get(m.id) else "",
                                       "  [only the tests %s ran]" % " ".join(subset[m.id])
                                       if subset.get(m.id) else ""))
    if not args.changed and not args.functions and not args.files:
        for e in entries:
            if not e["used"]:
                print("note: %s:%d matches no mutant any more: %s :: %s" % (
                    os.path.relpath(EQUIVALENTS, ROOT), e["line"], e["func"], e["desc"]))
    if stopped and not args.report:
        print("mutate: stopped early (budget or interrupt); rerun to resume")
    return status


if __name__ == "__main__":
    sys.exit(main())
