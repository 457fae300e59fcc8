#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the local backend's file operations look paths up only through the calls that
act as the agent (§6.6, src/backends/creds.h).

Usage: scripts/check-agent-calls.py [SOURCE_ROOT]

A read or a realpath acting as the agent does not switch the thread's credentials: each of its
system calls on a path goes through the thread's io_uring with the agent's personality
(warder__as_openat and its siblings). A plain openat(), fstatat(), open(), stat()… in a file
these operations reach would run with the host's credentials, so this check fails on any in
the files below, outside the few functions listed in HOST_ONLY with the reason they act as
the host. Comments and string literals are ignored. Exit status 0, or 1 naming each call.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))

# The files whose code runs between creds_enter*() and creds_leave() (local.c's AS_AGENT*).
FILES = ["src/backends/local/confine.c", "src/backends/local/local.c",
         "src/backends/local/walk.c", "src/backends/local/grep.c"]

# System calls (and libc wrappers) that look a path up.
PATH_CALLS = ["open", "openat", "openat2", "creat", "stat", "lstat", "fstatat", "newfstatat",
              "statx", "access", "faccessat", "faccessat2", "euidaccess", "readlink",
              "readlinkat", "realpath", "canonicalize_file_name", "opendir", "mkdir", "mkdirat",
              "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "remove",
              "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat", "chmod", "fchmodat",
              "chown", "lchown", "fchownat", "utimensat", "utimes", "truncate", "chdir",
              "fopen", "freopen", "name_to_handle_at", "open_by_handle_at", "getxattr",
              "lgetxattr", "setxattr", "listxattr", "statfs", "mkstemp", "mkdtemp"]

# (file, function): why it may act as the host.
HOST_ONLY = {
    ("src/backends/local/confine.c", "kernel_casefolds"):
        "reads a kernel feature file under /sys/fs, which is the host's to read",
    ("src/backends/local/local.c", "warder_local_new"):
        "opens and resolves the root when the host creates the backend, before any operation",
}

CALL = re.compile(r"(?<![\w.>])(%s)\s*\(" % "|".join(PATH_CALLS))
SYSCALL = re.compile(r"\bsyscall\s*\(\s*(SYS_|__NR_)(\w+)")
FUNC = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(")


def strip(text):
    """Comments and string/char literals blanked out, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(q + " " * (j - i - 1) + q)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def main():
    bad = []
    for rel in FILES:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            bad.append("%s: missing (update FILES)" % rel)
            continue
        func = None
        for no, line in enumerate(strip(open(path).read()).splitlines(), 1):
            m = FUNC.match(line)
            if m and not line.startswith((" ", "\t", "#")):
                func = m.group(1)
            found = [m.group(1) for m in CALL.finditer(line)]
            found += [m.group(2) for m in SYSCALL.finditer(line) if m.group(2) in PATH_CALLS]
            if found and (rel, func) not in HOST_ONLY:
                bad.append("%s:%d: %s() in %s() would run with the host's credentials: use "
                           "warder__as_* (src/backends/creds.h)" % (rel, no, found[0], func))
    for (rel, func), why in HOST_ONLY.items():
        if rel in FILES and not os.path.exists(os.path.join(ROOT, rel)):
            bad.append("%s: listed in HOST_ONLY (%s) but missing" % (rel, func))
    for b in bad:
        print(b)
    if not bad:
        print("agent calls: %d files, every path call acts as the agent" % len(FILES))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
