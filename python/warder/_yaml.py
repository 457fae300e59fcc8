# SPDX-License-Identifier: MIT
"""Writes a Python value as YAML for the ruleset loader (``Ruleset.from_dict``).

Flow style, one mapping key or sequence item per line, every string double-quoted with
escapes, so nothing in a value can be read as YAML syntax (an ``&anchor``, a ``!tag``, a
``*`` at the start of a pattern) and characters YAML forbids in a document (controls, DEL,
C1) are escaped rather than rejected.
"""

from __future__ import annotations

from typing import Any, List

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o < 0x20 or 0x7F <= o <= 0x9F:
            out.append("\\x%02x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            # a lone surrogate (a byte that was not UTF-8, escaped by the file-system codec)
            # has no UTF-8 form the loader could read
            raise ValueError(f"string {s!r} holds a lone surrogate; pass bytes-free text")
        elif o > 0xFFFF:
            out.append("\\U%08x" % o)
        elif o > 0x7E:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _emit(v: Any, indent: int, out: List[str]) -> None:
    pad = "  " * (indent + 1)
    if isinstance(v, bool):
        out.append("true" if v else "false")
    elif v is None:
        out.append("null")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        out.append(repr(v))
    elif isinstance(v, str):
        out.append(_string(v))
    elif isinstance(v, bytes):
        out.append(_string(v.decode("utf-8")))
    elif isinstance(v, dict):
        if not v:
            out.append("{}")
            return
        out.append("{\n")
        for i, (k, item) in enumerate(v.items()):
            if not isinstance(k, str):
                raise TypeError(f"mapping keys must be str, not {type(k).__name__}")
            out.append(pad + _string(k) + ": ")
            _emit(item, indent + 1, out)
            out.append(",\n" if i + 1 < len(v) else "\n")
        out.append("  " * indent + "}")
    elif isinstance(v, (list, tuple)):
        if not v:
            out.append("[]")
            return
        out.append("[\n")
        for i, item in enumerate(v):
            out.append(pad)
            _emit(item, indent + 1, out)
            out.append(",\n" if i + 1 < len(v) else "\n")
        out.append("  " * indent + "]")
    else:
        raise TypeError(f"cannot write a {type(v).__name__} as YAML")


def dump(value: Any) -> str:
    out: List[str] = []
    _emit(value, 0, out)
    out.append("\n")
    return "".join(out)
