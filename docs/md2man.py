#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns docs/cli.md (a small Markdown subset) into the warder(1) man page.

Usage: md2man.py INPUT.md OUTPUT.1 VERSION
Headings become sections, fenced blocks become no-fill examples, `- ` items become
indented paragraphs, and inline `code` becomes bold.
"""
import re
import sys


def escape(text):
    text = text.replace("\\", "\\e")
    text = re.sub(r"^([.'])", r"\\&\1", text)
    return text


def inline(text):
    text = escape(text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return text


def convert(lines, version):
    out = [
        '.TH WARDER 1 "" "warder %s" "User Commands"' % version,
        ".SH NAME",
        "warder \\- decide and perform AI agent tool operations under permission rules",
    ]
    in_code = False
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("```"):
            out.append(".EE" if in_code else ".EX")
            in_code = not in_code
            continue
        if in_code:
            out.append(escape(line) if line else "")
            continue
        if line.startswith("# "):
            continue
        if line.startswith("## "):
            out.append(".SH " + inline(line[3:]).upper())
            continue
        if line.startswith("### "):
            out.append(".SS " + inline(line[4:]))
            continue
        if line.startswith("- "):
            out.append(".IP \\(bu 2")
            out.append(inline(line[2:]))
            continue
        if not line.strip():
            out.append(".PP")
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            out.append(".br")
            out.append(inline("  ".join(cells)))
            continue
        out.append(inline(line.strip()))
    if in_code:
        out.append(".EE")
    return "\n".join(out) + "\n"


def main():
    src, dst, version = sys.argv[1:4]
    with open(src, encoding="utf-8") as f:
        page = convert(f.readlines(), version)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
