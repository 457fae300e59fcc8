# SPDX-License-Identifier: MIT
"""Plumbing shared by the classes: argument encoding, turning a failed call into an exception,
and carrying exceptions raised inside callbacks back to the caller."""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, List, Optional

from . import _abi as A
from ._lib import lib
from ._types import decision_from_c
from .errors import WarderError, error_class

EINVAL = A.STATUS["WARDER_EINVAL"]


def new(cls):
    """A struct the library fills, initialised as its _INIT macro is: the library checks the
    version of every struct it is handed."""
    return cls(cls.VERSION)

EBACKEND = A.STATUS["WARDER_EBACKEND"]


def encode(value: Any, what: str = "path") -> bytes:
    """A path, pattern or command as bytes: ``str`` through the file-system encoding (so a
    name that is not UTF-8 round-trips through its surrogate escapes), ``bytes`` as they are,
    ``os.PathLike`` through ``os.fspath``. A NUL byte is kept: the library refuses it."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return os.fsencode(value)
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, os.PathLike):
        return encode(os.fspath(value), what)
    raise TypeError(f"{what} must be str, bytes or os.PathLike, not {type(value).__name__}")


def data_bytes(value: Any, what: str = "data") -> bytes:
    """File contents: bytes-like only (a str would need an encoding the caller should pick)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes-like, not {type(value).__name__}")


def cstring(value: Any, what: str) -> bytes:
    """For the few arguments the library takes as C strings without a length (a file name to
    load, a preset name, a root): a NUL byte would cut the string short, so it is refused here
    with the status the library gives its length-delimited arguments."""
    b = encode(value, what)
    if b"\0" in b:
        raise WarderError(EINVAL, f"{what} contains a NUL byte")
    return b


def error_from(rc: int, err: A.warder_error) -> WarderError:
    """The exception for a failed call; releases what `err` owns."""
    decision = decision_from_c(err.decision.contents) if err.decision else None
    file = err.file.decode("utf-8", "surrogateescape") or None
    e = error_class(rc)(
        rc,
        err.message.decode("utf-8", "surrogateescape"),
        file=file,
        line=err.line,
        column=err.column,
        offset=err.offset if err.offset >= 0 else -1,
        decision=decision,
    )
    lib.warder_error_clear(err)
    return e


# ---- exceptions raised inside callbacks ---------------------------------------------------
#
# A callback (ask, audit, a method of a backend written in Python, an output stream) runs on
# the thread that made the call, inside the C call. An exception cannot cross the C frames, so
# the callback records it on the innermost frame of this thread, answers the library with the
# stricter outcome (decline, or a failure status), and the caller raises it once the C call
# has returned.

_tls = threading.local()


def frames() -> List[Optional[BaseException]]:
    try:
        return _tls.frames
    except AttributeError:
        _tls.frames = []
        return _tls.frames


def record(exc: BaseException, note: str) -> None:
    """Keeps `exc` for the call in progress on this thread (the first one wins)."""
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    f = frames()
    if f:
        if f[-1] is None:
            f[-1] = exc
        return
    # No call of this package is in progress on this thread: nobody to hand it to.
    sys.unraisablehook(_Unraisable(exc, note))  # type: ignore[arg-type]


class _Unraisable:
    def __init__(self, exc: BaseException, note: str):
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = "warder: " + note
        self.object = None
