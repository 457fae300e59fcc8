# SPDX-License-Identifier: MIT
"""The values the package returns: decisions, rules, entries, matches, command results."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, NamedTuple, Optional, Union

from . import _abi as A

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def text(p: Optional[int]) -> Optional[str]:
    """A C string at address `p` as text (UTF-8; bytes that are not survive as surrogates)."""
    if not p:
        return None
    from ctypes import string_at

    return string_at(p).decode("utf-8", "surrogateescape")


class Source(NamedTuple):
    """Where a rule is written: file (or ``<string>``, ``preset:NAME``), 1-based line, column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Decision:
    """What a ruleset decided for one operation on one target (§3.3, §5).

    ``action`` is ``"allow"``, ``"ask"`` or ``"deny"``. A rule decided unless ``by_default``;
    then ``rule_id``, ``pattern``, ``reason`` (may be None) and ``source`` describe it, and
    ``form`` says which path form it matched (``"literal"``, ``"real"``, ``"both"``;
    ``"default"`` when no rule matched). For ``execute``, ``segment`` is the simple command
    that decided and ``candidate`` the path argument (decided for ``candidate_op``), and
    ``undeterminable``/``note`` say why a command was raised to at least ask.
    """

    action: str
    op: str
    rule_id: Optional[str] = None
    pattern: Optional[str] = None
    reason: Optional[str] = None
    source: Optional[Source] = None
    form: str = "default"
    by_default: bool = False
    segment: Optional[str] = None
    candidate: Optional[str] = None
    candidate_op: Optional[str] = None
    undeterminable: bool = False
    note: Optional[str] = None

    @property
    def allowed(self) -> bool:
        return self.action == "allow"

    @property
    def denied(self) -> bool:
        return self.action == "deny"

    @property
    def needs_approval(self) -> bool:
        return self.action == "ask"


def decision_from_c(d: A.warder_decision) -> Decision:
    """A Python copy of a C decision (every string copied: valid after the C one is gone)."""
    by_default = bool(d.by_default)
    action = d.action
    op = d.op
    file = text(d.file)
    segment = text(d.segment)
    candidate = text(d.candidate)
    return Decision(
        action=A.ACTIONS[action] if 0 <= action < 3 else "deny",
        op=A.OPS[op] if 0 <= op < len(A.OPS) else "?",
        rule_id=text(d.rule_id),
        pattern=text(d.pattern),
        reason=text(d.reason),
        source=Source(file, d.line, d.column) if file is not None else None,
        form=A.FORMS[d.form] if 0 <= d.form < 4 else "?",
        by_default=by_default,
        segment=segment,
        candidate=candidate,
        candidate_op=A.OPS[d.candidate_op] if candidate is not None else None,
        undeterminable=bool(d.undeterminable),
        note=text(d.note),
    )


class Rule(NamedTuple):
    """One rule as loaded: operation, action, position, id, pattern as written, reason."""

    op: str
    action: str
    index: int
    id: str
    pattern: str
    reason: Optional[str]
    source: Source


def rule_from_c(r: A.warder_rule_info) -> Rule:
    return Rule(
        A.OPS[r.op],
        A.ACTIONS[r.action],
        r.index,
        text(r.id) or "",
        text(r.pattern) or "",
        text(r.reason),
        Source(text(r.file) or "", r.line, r.column),
    )


class ExplainMatch(NamedTuple):
    form: str  # "literal", "real" or "both"
    rule: Rule


@dataclass(frozen=True)
class Explanation:
    """An account of a decision: both normalised forms and every rule that matched, in order."""

    op: str
    literal: str
    real: Optional[str]
    decision: Decision
    matches: List[ExplainMatch]


class Entry(NamedTuple):
    """A directory entry from ``ls`` or ``glob``. ``name`` and ``path`` are ``str`` or
    ``bytes``, the type of the path (or pattern) the call was given; ``type`` is ``"file"``,
    ``"dir"``, ``"symlink"`` or ``"other"``."""

    name: Union[str, bytes]
    path: Union[str, bytes]
    type: str = "file"
    size: int = 0
    mtime: int = 0

    @property
    def is_dir(self) -> bool:
        return self.type == "dir"


class Entries(List[Entry]):
    """A list of entries; ``hidden`` counts those a guard dropped (§4.6)."""

    hidden: int = 0


class GrepMatch(NamedTuple):
    """One matching line: the file (``str`` or ``bytes`` as the call's path), the 1-based
    line number, and the line's bytes without its newline."""

    path: Union[str, bytes]
    line: int
    text: bytes


class GrepResult(List[GrepMatch]):
    """The matches; ``hidden_files`` counts files a guard dropped matches of (§4.7), and
    ``truncated`` says the search stopped at ``max_matches`` or a size cap."""

    hidden_files: int = 0
    truncated: bool = False


@dataclass
class ExecResult:
    """What a command did. ``exit_status`` is its exit code (-1 when a signal ended it)."""

    exit_status: int
    stdout: bytes = b""
    stderr: bytes = b""
    signal: int = 0
    timed_out: bool = False
    cancelled: bool = False
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    landlock_applied: bool = False
    masked: bool = False
    pid_namespace: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


@dataclass(frozen=True)
class Request:
    """What a guard is about to do, as shown to the ask and audit callbacks.

    ``target`` is what the caller gave, ``literal`` and ``real`` the two path forms (§3.1,
    §3.2; ``real`` is None for execute, whose ``literal`` is the command line), and
    ``ruleset_digest`` the digest of the ruleset that decided, to bind an approval to.
    """

    op: str
    target: str
    literal: str
    real: Optional[str]
    ruleset_digest: Optional[str]


@dataclass(frozen=True)
class AuditEvent:
    """One decision of a guard, as reported to the audit callback (§4.9)."""

    request: Request
    decision: Decision
    approval_asked: bool
    approved: bool
    filtered: bool  # a result entry (ls/glob/grep) rather than the request itself
    final_action: str


@dataclass
class TestReport:
    """The outcome of a ruleset's inline test cases."""

    passed: int
    failed: int
    failures: List[str] = field(default_factory=list)
