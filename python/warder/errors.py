# SPDX-License-Identifier: MIT
"""Exceptions. Every failure of a libwarder call is a :class:`WarderError`; a refusal by the
rules is its subclass :class:`PermissionDenied` (deny, or an ask that was declined) or
:class:`ApprovalRequired` (an ask nobody answered), each carrying the decision."""

from __future__ import annotations

from typing import Optional

from . import _abi as A
from ._types import Decision

_NAMES = {v: k for k, v in A.STATUS.items()}


class WarderError(Exception):
    """A libwarder call failed.

    ``status`` is the numeric code and ``status_name`` its stable name (``"WARDER_EINVAL"``);
    ``message`` is the library's one-line detail. Ruleset errors carry ``file``, ``line`` and
    ``column``; pattern errors an ``offset``; refusals the ``decision``.
    """

    def __init__(
        self,
        status: int,
        message: str = "",
        *,
        file: Optional[str] = None,
        line: int = 0,
        column: int = 0,
        offset: int = -1,
        decision: Optional[Decision] = None,
    ):
        self.status = status
        self.status_name = _NAMES.get(status, "WARDER_UNKNOWN")
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.offset = offset
        self.decision = decision
        where = f"{file}:{line}:{column}: " if file and line else ""
        super().__init__(f"{where}{message or self.status_name} [{self.status_name}]")


class PermissionDenied(WarderError):
    """The rules deny the operation, or an ``ask`` was declined (``WARDER_EDENIED``)."""


class ApprovalRequired(WarderError):
    """The rules say ``ask`` and no ask callback answered (``WARDER_EASK``)."""


def error_class(status: int) -> type:
    if status == A.STATUS["WARDER_EDENIED"]:
        return PermissionDenied
    if status == A.STATUS["WARDER_EASK"]:
        return ApprovalRequired
    return WarderError
