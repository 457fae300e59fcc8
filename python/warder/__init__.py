# SPDX-License-Identifier: MIT
"""warder: allow/deny/ask rulesets around the tool backends of AI agents, in Python.

A thin layer over libwarder (ctypes, standard library only)::

    import warder

    rules = warder.Ruleset.from_file("rules.yaml", root="/work/project")
    tools = warder.GuardedBackend(warder.LocalBackend("/work/project"), rules,
                                  ask=lambda request, decision: False)
    tools.read("src/main.c")          # bytes
    tools.read(".env")                # raises warder.PermissionDenied, with .decision

See docs/python.md.
"""

from ._lib import path as library_path
from ._lib import status_name, strerror
from ._lib import version as library_version
from ._types import (
    AuditEvent,
    Decision,
    Entries,
    Entry,
    ExecResult,
    ExplainMatch,
    Explanation,
    GrepMatch,
    GrepResult,
    Request,
    Rule,
    Source,
    TestReport,
)
from .aio import AsyncGuardedBackend
from .backend import (
    DEFER,
    Backend,
    Cancel,
    Content,
    ExecutingBackend,
    GuardedBackend,
    LocalBackend,
    MemoryBackend,
    PythonBackend,
)
from .errors import ApprovalRequired, PermissionDenied, WarderError
from .ruleset import Ruleset

__version__ = "0.1.0"

__all__ = [
    "ApprovalRequired",
    "AsyncGuardedBackend",
    "AuditEvent",
    "Backend",
    "Cancel",
    "Content",
    "DEFER",
    "Decision",
    "Entries",
    "Entry",
    "ExecResult",
    "ExecutingBackend",
    "ExplainMatch",
    "Explanation",
    "GrepMatch",
    "GrepResult",
    "GuardedBackend",
    "LocalBackend",
    "MemoryBackend",
    "PermissionDenied",
    "PythonBackend",
    "Request",
    "Rule",
    "Ruleset",
    "Source",
    "TestReport",
    "WarderError",
    "library_path",
    "library_version",
    "status_name",
    "strerror",
]
