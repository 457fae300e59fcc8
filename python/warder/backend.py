# SPDX-License-Identifier: MIT
"""Backends: the memory and local backends of libwarder, the guard, and backends written in
Python, all behind one interface (read, write, edit, ls, glob, grep, and execute on the ones
that can run commands)."""

from __future__ import annotations

import asyncio
import errno as _errno
import inspect
import os
import threading
from ctypes import POINTER, Structure, addressof, byref, c_char_p, c_size_t, c_void_p, cast
from ctypes import c_uint32, memmove, string_at
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _abi as A
from ._core import EBACKEND, EINVAL, cstring, data_bytes, encode, error_from, frames, new, record
from ._lib import lib
from ._types import (
    AuditEvent,
    Decision,
    Entries,
    Entry,
    ExecResult,
    GrepMatch,
    GrepResult,
    PathLike,
    Request,
    decision_from_c,
)
from .errors import WarderError
from .ruleset import Ruleset, op_index

APPROVED = A.APPROVED
_S = A.STATUS

_read = lib.warder_backend_read
_write = lib.warder_backend_write
_bytes_free = lib.warder_bytes_free
_Bytes = A.warder_bytes
_Error = A.warder_error
_BV = A.warder_bytes.VERSION
_EV = A.warder_error.VERSION
_B = object()  # stands for the backend's handle among the arguments of Backend._call


class Content(bytes):
    """The bytes of a read the backend cut short (``truncated`` is True). A complete read
    returns plain ``bytes``, whose ``truncated`` is absent: test with
    ``getattr(data, "truncated", False)``."""

    truncated = True


def _decode_like(template: Any, raw: bytes) -> Union[str, bytes]:
    """Results take the type of the argument they answer: bytes for bytes, str otherwise."""
    return raw if isinstance(template, (bytes, bytearray, memoryview)) else os.fsdecode(raw)


def _flags(approved: bool) -> int:
    return APPROVED if approved else 0


def _strv(items: Optional[Sequence[Any]], what: str):
    """A NULL-terminated ``char *[]`` (kept alive by the caller while the call runs)."""
    if items is None:
        return None
    arr = (c_char_p * (len(items) + 1))()
    for i, item in enumerate(items):
        arr[i] = cstring(item, what)
    arr[len(items)] = None
    return cast(arr, POINTER(c_char_p))


class Cancel:
    """A cancellation flag for a running :meth:`execute`: pass it as ``cancel=`` and call
    :meth:`trigger` from any thread; the command's process group is killed and the result
    says ``cancelled``. Once triggered it stays triggered: use one per command."""

    __slots__ = ("_ptr",)

    def __init__(self) -> None:
        out = c_void_p()
        rc = lib.warder_cancel_new(byref(out))
        if rc:
            raise WarderError(rc, "cannot create a cancellation flag")
        self._ptr = out.value

    def trigger(self) -> None:
        if self._ptr:
            lib.warder_cancel_trigger(self._ptr)

    @property
    def triggered(self) -> bool:
        return bool(self._ptr) and bool(lib.warder_cancel_triggered(self._ptr))

    def __del__(self) -> None:
        p, self._ptr = getattr(self, "_ptr", 0), 0
        if p:
            lib.warder_cancel_free(p)


class Backend:
    """A libwarder backend. Paths are ``str`` (through the file-system encoding), ``bytes``
    or ``os.PathLike``; results name paths in the type of the argument. File contents are
    ``bytes`` both ways. Every failure raises :class:`~warder.WarderError` (a refusal by the
    rules :class:`~warder.PermissionDenied` or :class:`~warder.ApprovalRequired`).

    ``approved=True`` on a guarded call says the host already approved it: it satisfies an
    ``ask``, never a ``deny`` (§4.4).
    """

    _ptr: int = 0
    _taken: Optional["Backend"] = None

    # ---- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Frees the backend (a guard frees its inner backend with it)."""
        p, self._ptr = self._ptr, 0
        if p and self._taken is None:
            lib.warder_backend_free(p)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> int:
        if self._taken is not None:
            raise WarderError(
                EINVAL, "this backend belongs to a guard now: call the guard instead"
            )
        if not self._ptr:
            raise WarderError(EINVAL, "the backend was closed")
        return self._ptr

    @property
    def can_execute(self) -> bool:
        return bool(lib.warder_backend_can_execute(self._handle()))

    @property
    def can_realpath(self) -> bool:
        return bool(lib.warder_backend_can_realpath(self._handle()))

    # ---- the operations -------------------------------------------------------------------

    def read(self, path: PathLike, offset: int = 0, limit: int = 0, *,
             approved: bool = False) -> bytes:
        """Up to ``limit`` bytes (0: all) from ``offset``."""
        p = path if type(path) is bytes else encode(path)
        out = _Bytes(_BV)
        err = _Error(_EV)
        f = frames()
        f.append(None)
        try:
            rc = _read(byref(out), self._ptr if self._taken is None and self._ptr else
                       self._handle(), p, len(p), offset, limit, APPROVED if approved else 0,
                       byref(err))
        finally:
            exc = f.pop()
        if rc:
            if exc is not None:
                lib.warder_error_clear(byref(err))
                raise exc
            raise error_from(rc, err)
        data = string_at(out.data, out.len)
        truncated = out.truncated
        _bytes_free(byref(out))
        if exc is not None:
            raise exc
        return Content(data) if truncated else data

    def write(self, path: PathLike, data: bytes, *, approved: bool = False) -> None:
        """Creates or replaces a file."""
        p = path if type(path) is bytes else encode(path)
        d = data_bytes(data)
        self._call(_write, _B, p, len(p), d, len(d), _flags(approved))

    def edit(self, path: PathLike, old: bytes, new: bytes, *, replace_all: bool = False,
             approved: bool = False) -> int:
        """Replaces ``old`` by ``new`` and returns how many times. ``old`` must occur exactly
        once unless ``replace_all`` (``WARDER_ENOMATCH``, ``WARDER_EAMBIGUOUS``)."""
        p = encode(path)
        o = data_bytes(old, "old")
        n = data_bytes(new, "new")
        count = c_size_t()
        flags = _flags(approved) | (A.EDIT_ALL if replace_all else 0)
        self._call(lib.warder_backend_edit, byref(count), _B, p, len(p), o, len(o), n, len(n),
                   flags)
        return count.value

    def ls(self, path: PathLike, *, approved: bool = False) -> Entries:
        """The entries of a directory, by name (not recursive)."""
        p = encode(path)
        out = new(A.warder_entries)
        self._call(lib.warder_backend_ls, byref(out), _B, p, len(p), _flags(approved),
                   release=lambda: lib.warder_entries_free(byref(out)))
        return _entries(out, path)

    def glob(self, pattern: PathLike, base: PathLike = ".", *,
             approved: bool = False) -> Entries:
        """Files and directories under ``base`` matching ``pattern`` (the core glob of §2,
        relative to ``base``; absolute patterns match absolute paths). A guard resolves a
        relative ``base`` against its root; other backends need an absolute one."""
        pat = encode(pattern, "pattern")
        b = encode(base, "base")
        out = new(A.warder_entries)
        self._call(lib.warder_backend_glob, byref(out), _B, pat, len(pat), b, len(b),
                   _flags(approved), release=lambda: lib.warder_entries_free(byref(out)))
        return _entries(out, pattern)

    def grep(self, pattern: Union[str, bytes], path: PathLike = ".", *,
             glob: Optional[PathLike] = None, caseless: bool = False, max_matches: int = 0,
             approved: bool = False, threads: int = 0) -> GrepResult:
        """Lines matching a PCRE2 ``pattern`` in the file or tree at ``path``, optionally only
        in files matching ``glob``; at most ``max_matches`` (0: no limit), searched with
        ``threads`` threads (0: one per CPU; the result is the same for every value)."""
        req = A.warder_grep_request()
        lib.warder_grep_request_init(byref(req), A.CONSTANTS["WARDER_GREP_REQUEST_VERSION"])
        pat = encode(pattern, "pattern")
        p = encode(path)
        req.pattern = pat
        req.pattern_len = len(pat)
        req.path = p
        req.path_len = len(p)
        if glob is not None:
            g = encode(glob, "glob")
            req.glob = g
            req.glob_len = len(g)
        req.flags = _flags(approved) | (A.GREP_CASELESS if caseless else 0)
        req.max_matches = max_matches
        req.threads = threads
        out = new(A.warder_grep_result)
        self._call(lib.warder_backend_grep, byref(out), _B, byref(req),
                   release=lambda: lib.warder_grep_result_free(byref(out)))
        res = GrepResult()
        try:
            for i in range(out.count):
                m = out.items[i]
                res.append(GrepMatch(_decode_like(path, m.path), m.line,
                                     string_at(m.text, m.text_len)))
            res.hidden_files = out.hidden_files
            res.truncated = bool(out.truncated)
        finally:
            lib.warder_grep_result_free(byref(out))
        return res

    def realpath(self, path: PathLike) -> Union[str, bytes]:
        """The real form of a path (§3.2); ``WARDER_ENOTSUP`` on a backend without one."""
        p = encode(path)
        out = c_void_p()
        self._call(lib.warder_backend_realpath, byref(out), _B, p, len(p),
                   release=lambda: lib.warder_free(out))
        raw = string_at(out.value)
        lib.warder_free(out)
        return _decode_like(path, raw)

    def _call(self, fn: Callable[..., int], *args: Any,
              release: Optional[Callable[[], None]] = None) -> None:
        """Calls ``fn(*args, err)``, with the backend's handle where ``_B`` stands; then raises
        what a callback raised during the call (after ``release`` frees a result the call
        made), else the library's error."""
        h = self._handle()
        err = _Error(_EV)
        f = frames()
        f.append(None)
        try:
            rc = fn(*[h if a is _B else a for a in args], byref(err))
        finally:
            exc = f.pop()
        if exc is not None:
            if rc:
                lib.warder_error_clear(byref(err))
            elif release is not None:
                release()
            raise exc
        if rc:
            raise error_from(rc, err)


class ExecutingBackend(Backend):
    """A backend that can run commands (``execute``); ``isinstance(b, ExecutingBackend)``
    tells whether a backend has it."""

    def execute(self, command: Union[str, bytes], *, cwd: Optional[PathLike] = None,
                timeout: Optional[float] = None, env: Optional[Sequence[Any]] = None,
                max_output: int = 0,
                on_output: Optional[Callable[[int, bytes], None]] = None,
                cancel: Optional[Cancel] = None, approved: bool = False) -> ExecResult:
        """Runs a shell command line. ``timeout`` in seconds (None: the backend's default),
        ``env`` a list of ``NAME=VALUE`` (None: the backend's), ``max_output`` bytes kept per
        stream (0: the backend's default), ``on_output(stream, data)`` called as output
        arrives (1: stdout, 2: stderr), ``cancel`` a :class:`Cancel` to stop it."""
        req = A.warder_exec_request()
        lib.warder_exec_request_init(byref(req), A.CONSTANTS["WARDER_EXEC_REQUEST_VERSION"])
        c = encode(command, "command")
        req.command = c
        req.command_len = len(c)
        if cwd is not None:
            req.cwd = cstring(cwd, "cwd")
        if timeout is not None:
            req.timeout_ms = max(1, int(timeout * 1000))
        keep = _strv(env, "env")
        if keep is not None:
            req.env = keep
        req.max_output = max_output
        stream_cb = None
        if on_output is not None:

            def on_chunk(_ud: Any, stream: int, data: Any, n: int) -> None:
                try:
                    on_output(stream, string_at(data, n))
                except BaseException as e:  # noqa: B902 - handed to the caller afterwards
                    record(e, "raised in the on_output callback")

            stream_cb = A.EXEC_STREAM_FN(on_chunk)
            req.stream = stream_cb
        if cancel is not None:
            req.cancel = cancel._ptr
        req.flags = _flags(approved)
        out = A.warder_exec_result()
        lib.warder_exec_result_init(byref(out))
        self._call(lib.warder_backend_execute, byref(out), _B, byref(req),
                   release=lambda: lib.warder_exec_result_free(byref(out)))
        try:
            return ExecResult(
                exit_status=out.exit_status,
                stdout=string_at(out.out.data, out.out.len) if out.out.data else b"",
                stderr=string_at(out.err.data, out.err.len) if out.err.data else b"",
                signal=out.signal,
                timed_out=bool(out.timed_out),
                cancelled=bool(out.cancelled),
                stdout_truncated=bool(out.out.truncated),
                stderr_truncated=bool(out.err.truncated),
                landlock_applied=bool(out.landlock_applied),
                masked=bool(out.masked),
                pid_namespace=bool(out.pid_namespace),
            )
        finally:
            lib.warder_exec_result_free(byref(out))
            del stream_cb, keep


def _entries(out: A.warder_entries, template: Any) -> Entries:
    res = Entries()
    try:
        as_bytes = isinstance(template, (bytes, bytearray, memoryview))
        dec = (lambda b: b) if as_bytes else os.fsdecode
        types = A.ENTRY_TYPES
        for i in range(out.count):
            e = out.items[i]
            res.append(Entry(dec(e.name), dec(e.path), types[e.type] if 0 <= e.type < 4 else
                             "other", e.size, e.mtime))
        res.hidden = out.hidden
    finally:
        lib.warder_entries_free(byref(out))
    return res


# ---- the built-in backends ------------------------------------------------------------------


class MemoryBackend(Backend):
    """A file tree in memory (§6.1): every storage operation, no execute, no symlinks.
    Writing a file creates its parent directories."""

    def __init__(self) -> None:
        out = c_void_p()
        err = _Error(_EV)
        rc = lib.warder_memory_new(byref(out), byref(err))
        if rc:
            raise error_from(rc, err)
        self._ptr = out.value

    def mkdir(self, path: PathLike) -> None:
        """Creates a directory and its missing parents."""
        p = encode(path)
        err = _Error(_EV)
        rc = lib.warder_memory_mkdir(self._handle(), p, len(p), byref(err))
        if rc:
            raise error_from(rc, err)


_LANDLOCK = {name: i for i, name in enumerate(A.LANDLOCK_MODES)}
_LIST_OPTIONS = ("exec_env", "landlock_read", "landlock_write")


class LocalBackend(Backend):
    """A real directory tree confined to ``root`` (§6.2); paths are absolute host paths, and
    one outside the root is ``WARDER_EOUTSIDE``. Keyword options are the members of
    ``struct warder_local_options`` (``include/warder/local.h``) by name, e.g.
    ``max_read=1 << 20``, ``follow_symlinks=False``; ``exec=True`` gives the backend
    ``execute`` (§6.3) with ``exec_env``, ``exec_timeout_ms``, ``landlock="best_effort"``,
    ``landlock_read=[…]``, ``mask_denied=True`` (a guard then masks what its ruleset denies,
    §6.5) and the rest. ``act_as_agent=True, agent_uid=…, agent_gid=…, agent_groups=[…]``
    performs every file operation with the agent's file system credentials (§6.6; root only:
    ``WarderError`` ``WARDER_EACCES`` otherwise, ``WARDER_EINVAL`` for uid or gid 0)."""

    def __new__(cls, root: PathLike, **options: Any):
        if cls is LocalBackend and options.get("exec"):
            cls = _ExecutingLocalBackend
        return super().__new__(cls)

    def __init__(self, root: PathLike, **options: Any) -> None:
        o = A.warder_local_options()
        lib.warder_local_options_init(byref(o), A.CONSTANTS["WARDER_LOCAL_OPTIONS_VERSION"])
        keep: List[Any] = []
        names = {f[0] for f in A.warder_local_options._fields_} - {"version", "agent_ngroups"}
        for key, value in options.items():
            if key not in names:
                raise TypeError(f"unknown local backend option {key!r}")
            if key == "agent_groups":
                # A sequence of gids (copied by the library): none unless given.
                ids = [int(g) for g in value]
                if any(g < 0 or g > 0xFFFFFFFF for g in ids):
                    raise WarderError(EINVAL, "agent_groups: a gid is out of range")
                arr = (c_uint32 * max(len(ids), 1))(*ids)
                keep.append(arr)
                o.agent_groups = cast(arr, POINTER(c_uint32)) if ids else None
                o.agent_ngroups = len(ids)
            elif key in _LIST_OPTIONS:
                arr = _strv(value, key)
                keep.append(arr)
                setattr(o, key, arr)
            elif key == "landlock":
                if value not in _LANDLOCK:
                    raise WarderError(EINVAL, f"landlock must be one of {A.LANDLOCK_MODES}")
                o.landlock = _LANDLOCK[value]
            else:
                setattr(o, key, value)
        r = cstring(root, "root")
        out = c_void_p()
        err = _Error(_EV)
        rc = lib.warder_local_new(byref(out), r, byref(o), byref(err))
        if rc:
            raise error_from(rc, err)
        self._ptr = out.value
        self.root = os.fsdecode(r)


class _ExecutingLocalBackend(ExecutingBackend, LocalBackend):
    pass


# ---- backends written in Python -------------------------------------------------------------


class _PyBackendStruct(Structure):
    _fields_ = [("base", A.warder_backend), ("id", c_size_t)]


_py_lock = threading.Lock()
# id -> (the Python object, the C struct): alive until the library destroys the backend. It
# holds the object, not its PythonBackend wrapper, so a wrapper nobody holds is collected and
# frees the backend.
_py_objects: Dict[int, tuple] = {}
_py_next = [1]

_STATUS_OF_ERRNO = {
    _errno.ENOENT: _S["WARDER_ENOENT"],
    _errno.EEXIST: _S["WARDER_EEXIST"],
    _errno.EACCES: _S["WARDER_EACCES"],
    _errno.EPERM: _S["WARDER_EACCES"],
    _errno.ENOTDIR: _S["WARDER_ENOTDIR"],
    _errno.EISDIR: _S["WARDER_EISDIR"],
    _errno.ELOOP: _S["WARDER_ESYMLINK"],
    _errno.ENOMEM: _S["WARDER_ENOMEM"],
    _errno.EINVAL: _S["WARDER_EINVAL"],
    _errno.EFBIG: _S["WARDER_ETOOBIG"],
    _errno.ETIMEDOUT: _S["WARDER_ETIMEDOUT"],
}


def _fail(e: BaseException, err: int, what: str) -> int:
    """The status for an exception a Python backend raised. A WarderError keeps its status,
    an OSError is mapped by errno; anything else is a broken backend (WARDER_EBACKEND) and is
    raised to the caller once the C call has returned."""
    if isinstance(e, WarderError) and A.STATUS_MIN <= e.status < 0:
        code, msg = e.status, e.message or str(e)
    elif isinstance(e, OSError) and e.errno in _STATUS_OF_ERRNO:
        code, msg = _STATUS_OF_ERRNO[e.errno], f"{what}: {e.strerror or e}"
    elif isinstance(e, OSError):
        code, msg = _S["WARDER_EIO"], f"{what}: {e}"
    elif isinstance(e, MemoryError):
        code, msg = _S["WARDER_ENOMEM"], f"{what}: out of memory"
    else:
        record(e, f"raised in the {what} method of a backend written in Python")
        code, msg = EBACKEND, f"{what}: {type(e).__name__}: {e}"
    lib.warder_error_set_message(err, code, msg.encode("utf-8", "surrogateescape")[:500])
    return code


def _obj(b: int) -> Any:
    return _py_objects[cast(b, POINTER(_PyBackendStruct)).contents.id][0]


def _add_entry(out: Any, e: Any, base: bytes, what: str) -> None:
    if isinstance(e, (str, bytes)):
        name, path, typ, size, mtime = e, None, "file", 0, 0
    elif isinstance(e, dict):
        name, path = e["name"], e.get("path")
        typ, size, mtime = e.get("type", "file"), e.get("size", 0), e.get("mtime", 0)
    else:
        name, path = e[0], e[1] if len(e) > 1 else None
        typ = e[2] if len(e) > 2 else "file"
        size = e[3] if len(e) > 3 else 0
        mtime = e[4] if len(e) > 4 else 0
    n = encode(name, "name")
    p = encode(path, "path") if path else (base.rstrip(b"/") + b"/" + n)
    t = typ if isinstance(typ, int) else A.ENTRY_TYPES.index(typ)
    rc = lib.warder_entries_add(out, n, len(n), p, len(p), t, int(size), int(mtime))
    if rc == EINVAL:
        raise WarderError(EBACKEND, f"{what}: an entry name or path that is empty or holds NUL")
    if rc:
        raise MemoryError()


def _op_read(b, path, offset, limit, flags, out, err):
    try:
        data = data_bytes(_obj(b).read(path, offset, limit), "read result")
        return lib.warder_bytes_set(out, data, len(data))
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "read")


def _op_write(b, path, data, n, flags, err):
    try:
        _obj(b).write(path, string_at(data, n) if n else b"")
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "write")


def _op_edit(b, path, old, old_len, new, new_len, flags, count, err):
    try:
        n = _obj(b).edit(path, string_at(old, old_len), string_at(new, new_len) if new_len
                         else b"", bool(flags & A.EDIT_ALL))
        count[0] = int(n)
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "edit")


def _op_ls(b, path, flags, out, err):
    try:
        for e in _obj(b).ls(path):
            _add_entry(out, e, path, "ls")
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "ls")


def _op_glob(b, pattern, base, flags, out, err):
    try:
        for e in _obj(b).glob(pattern, base):
            _add_entry(out, e, base, "glob")
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "glob")


def _op_grep(b, req, out, err):
    try:
        r = req.contents
        glob = r.glob if r.glob else None
        for m in _obj(b).grep(r.pattern, r.path, glob, bool(r.flags & A.GREP_CASELESS),
                              r.max_matches):
            path, line, txt = m[0], m[1], data_bytes(m[2], "grep text")
            p = encode(path)
            rc = lib.warder_grep_add(out, p, len(p), int(line), txt, len(txt))
            if rc:
                raise WarderError(EBACKEND if rc == EINVAL else rc, "grep: a bad match")
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "grep")


def _op_execute(b, req, out, err):
    try:
        r = req.contents
        env = None
        if r.env:
            env = []
            i = 0
            while r.env[i]:
                env.append(r.env[i])
                i += 1
        res = _obj(b).execute(string_at(r.command, r.command_len), r.cwd or None,
                              r.timeout_ms, env)
        if isinstance(res, tuple):
            res = ExecResult(*res)
        o = out.contents
        o.exit_status = int(res.exit_status)
        o.signal = int(getattr(res, "signal", 0))
        o.timed_out = bool(getattr(res, "timed_out", False))
        for field, data in ((o.out, res.stdout), (o.err, res.stderr)):
            d = data_bytes(data or b"", "output")
            if lib.warder_bytes_set(byref(field), d, len(d)):
                raise MemoryError()
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "execute")


def _op_realpath(b, path, out, err):
    try:
        real = encode(_obj(b).realpath(path), "realpath result")
        if b"\0" in real:
            raise WarderError(EBACKEND, "realpath: a result holding NUL")
        p = lib.warder_malloc(len(real) + 1)
        if not p:
            raise MemoryError()
        memmove(p, real + b"\0", len(real) + 1)
        out[0] = p
        return 0
    except BaseException as e:  # noqa: B902
        return _fail(e, err, "realpath")


def _op_destroy(b):
    with _py_lock:
        _py_objects.pop(cast(b, POINTER(_PyBackendStruct)).contents.id, None)


# The C entry points: created once, alive for as long as the module.
_OPS_FNS = {
    "read": A.OPS_READ_FN(_op_read),
    "write": A.OPS_WRITE_FN(_op_write),
    "edit": A.OPS_EDIT_FN(_op_edit),
    "ls": A.OPS_LS_FN(_op_ls),
    "glob": A.OPS_GLOB_FN(_op_glob),
    "grep": A.OPS_GREP_FN(_op_grep),
    "execute": A.OPS_EXECUTE_FN(_op_execute),
    "realpath": A.OPS_REALPATH_FN(_op_realpath),
    "destroy": A.OPS_DESTROY_FN(_op_destroy),
}
_OPTIONAL = ("edit", "glob", "grep", "execute", "realpath")
_ops_tables: Dict[tuple, A.warder_backend_ops] = {}


def _ops_for(obj: Any) -> A.warder_backend_ops:
    """One static ops table per set of optional methods (never one per instance)."""
    present = tuple(callable(getattr(obj, m, None)) for m in _OPTIONAL)
    with _py_lock:
        table = _ops_tables.get(present)
        if table is None:
            table = A.warder_backend_ops()
            table.version = 1
            for name in ("read", "write", "ls", "destroy"):
                setattr(table, name, _OPS_FNS[name])
            for name, has in zip(_OPTIONAL, present):
                if has:
                    setattr(table, name, _OPS_FNS[name])
            table.caps = 0  # a Python backend promises nothing (sys/backend.h)
            _ops_tables[present] = table
    return table


class PythonBackend(Backend):
    """A libwarder backend whose methods are those of a Python object, so the guard (and
    the library's fallbacks) can use it.

    The object needs ``read(path, offset, limit) -> bytes``, ``write(path, data)`` and
    ``ls(path) -> iterable of entries``; it may have ``edit(path, old, new, replace_all) ->
    int``, ``glob(pattern, base) -> entries``, ``grep(pattern, path, glob, caseless,
    max_matches) -> iterable of (path, line, text)``, ``execute(command, cwd, timeout_ms,
    env) -> ExecResult`` and ``realpath(path) -> path``; without edit, glob or grep the
    library's fallbacks do the work over read, write and ls. Paths, patterns and commands
    arrive as ``bytes``. An entry is an :class:`Entry`, a ``(name, path, type, size,
    mtime)`` tuple, a dict with those keys, or a bare name. Raise ``OSError``
    (``FileNotFoundError``…) or :class:`WarderError` to fail; any other exception is a broken
    backend (``WARDER_EBACKEND``) and is raised again to whoever made the call.

    A backend that defines ``realpath`` is handed real forms (§3.2) by a guard and must not
    follow symbolic links itself (raise ``OSError(ELOOP)``).
    """

    def __new__(cls, obj: Any):
        if cls is PythonBackend and callable(getattr(obj, "execute", None)):
            cls = _ExecutingPythonBackend
        return super().__new__(cls)

    def __init__(self, obj: Any) -> None:
        for m in ("read", "write", "ls"):
            if not callable(getattr(obj, m, None)):
                raise WarderError(EINVAL, f"incomplete backend: missing '{m}'")
        self.obj = obj
        table = _ops_for(obj)
        st = _PyBackendStruct()
        with _py_lock:
            st.id = _py_next[0]
            _py_next[0] += 1
            _py_objects[st.id] = (obj, st)
        self._struct = st
        self._table = table
        err = _Error(_EV)
        rc = lib.warder_backend_init(addressof(st), byref(table), byref(err))
        if rc:
            with _py_lock:
                _py_objects.pop(st.id, None)
            raise error_from(rc, err)
        self._ptr = addressof(st)


class _ExecutingPythonBackend(ExecutingBackend, PythonBackend):
    pass


def inner_can_execute(inner: Any) -> bool:
    """Whether a guard over `inner` will have execute."""
    if isinstance(inner, Backend):
        return inner._taken is None and bool(inner._ptr) and inner.can_execute
    return callable(getattr(inner, "execute", None))


def as_backend(inner: Any) -> Backend:
    return inner if isinstance(inner, Backend) else PythonBackend(inner)


# ---- the guard ------------------------------------------------------------------------------

#: Returned by an ask callback: not answered now; the call raises ApprovalRequired.
DEFER = object()

_tls_async = threading.local()  # the AsyncCall of an AsyncGuardedBackend call, if any


class AsyncCall:
    """What a worker thread of an AsyncGuardedBackend call knows: the host's event loop (on
    which async callbacks run), the callbacks pending there, and whether the call was
    cancelled (pending callbacks are then cancelled, and decline)."""

    __slots__ = ("loop", "pending", "cancelled", "lock")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: set = set()
        self.cancelled = False
        self.lock = threading.Lock()

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            pending = list(self.pending)
        for f in pending:
            f.cancel()


async def _await(a: Any) -> Any:
    return await a


def _resolve(value: Any, what: str) -> Any:
    """A callback's answer; an awaitable is awaited on the right loop."""
    if not inspect.isawaitable(value):
        return value
    call = getattr(_tls_async, "call", None)
    if call is not None:  # a worker thread of AsyncGuardedBackend: the host's loop runs it
        with call.lock:
            if call.cancelled:
                if inspect.iscoroutine(value):
                    value.close()
                raise asyncio.CancelledError()
            fut = asyncio.run_coroutine_threadsafe(_await(value), call.loop)
            call.pending.add(fut)
        try:
            return fut.result()
        finally:
            with call.lock:
                call.pending.discard(fut)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(value))
    if inspect.iscoroutine(value):
        value.close()
    raise RuntimeError(
        f"an async {what} callback was called from a synchronous call inside a running event "
        "loop; use AsyncGuardedBackend there"
    )


def _request(r: A.warder_guard_request) -> Request:
    digest = lib.warder_ruleset_digest(r.rules) if r.rules else None
    return Request(
        op=A.OPS[r.op],
        target=os.fsdecode(r.target or b""),
        literal=os.fsdecode(r.literal or b""),
        real=os.fsdecode(r.real) if r.real else None,
        ruleset_digest=digest.decode() if digest else None,
    )


def _make_approve(ask: Callable[..., Any]):
    grant = A.CONSTANTS["WARDER_APPROVAL_GRANT"]
    decline = A.CONSTANTS["WARDER_APPROVAL_DECLINE"]
    defer = A.CONSTANTS["WARDER_APPROVAL_DEFER"]

    def approve(_ud: Any, req: Any, dec: Any) -> int:
        try:
            answer = _resolve(ask(_request(req.contents), decision_from_c(dec.contents)), "ask")
        except BaseException as e:  # noqa: B902
            record(e, "raised in the ask callback; the request was declined")
            return decline
        if answer is True:
            return grant
        if answer is DEFER:
            return defer
        return decline  # False, None, anything else: declined (fail closed)

    return A.APPROVE_EX_FN(approve)


def _make_audit(audit: Callable[[AuditEvent], Any]):
    def on_event(_ud: Any, ev: Any) -> None:
        try:
            e = ev.contents
            event = AuditEvent(
                request=_request(e.request.contents),
                decision=decision_from_c(e.decision.contents),
                approval_asked=bool(e.approval_asked),
                approved=bool(e.approved),
                filtered=bool(e.filtered),
                final_action=A.ACTIONS[e.final_action],
            )
            _resolve(audit(event), "audit")
        except BaseException as exc:  # noqa: B902
            record(exc, "raised in the audit callback")

    return A.AUDIT_FN(on_event)


class GuardedBackend(Backend):
    """``inner`` behind a ruleset (§4): every operation is decided before it reaches the
    inner backend, and results are filtered.

    ``inner`` is a :class:`Backend` (which the guard takes over: call the guard from then
    on) or any object with the methods of a :class:`PythonBackend`. ``ask(request,
    decision)`` is called for an ``ask`` decision and approves by returning ``True``
    (anything else declines; :data:`DEFER` leaves it unanswered); it may be ``async``.
    ``audit(event)`` sees every decision. An exception raised in either declines the
    request and is raised to the caller once the call is over. Without ``ask``, an ``ask``
    raises :class:`ApprovalRequired`. ``root`` and ``home`` default to the ruleset's;
    ``env`` is the environment commands run with (``NAME=VALUE`` strings).

    The guard has ``execute`` exactly when the inner backend has.
    """

    def __new__(cls, inner: Any, ruleset: Ruleset, **kwargs: Any):
        if cls is GuardedBackend and inner_can_execute(inner):
            cls = _ExecutingGuardedBackend
        return super().__new__(cls)

    def __init__(self, inner: Any, ruleset: Ruleset, *,
                 ask: Optional[Callable[..., Any]] = None,
                 audit: Optional[Callable[[AuditEvent], Any]] = None,
                 root: Optional[PathLike] = None, home: Optional[PathLike] = None,
                 env: Optional[Sequence[Any]] = None) -> None:
        if not isinstance(ruleset, Ruleset):
            raise TypeError("ruleset must be a warder.Ruleset")
        backend = as_backend(inner)
        o = A.warder_guard_options()
        lib.warder_guard_options_init(byref(o), A.CONSTANTS["WARDER_GUARD_OPTIONS_VERSION"])
        self._callbacks = []
        if ask is not None:
            cb = _make_approve(ask)
            self._callbacks.append(cb)
            o.approve_ex = cb
        if audit is not None:
            cb2 = _make_audit(audit)
            self._callbacks.append(cb2)
            o.audit = cb2
        if root is not None:
            o.root = cstring(root, "root")
        if home is not None:
            o.home = cstring(home, "home")
        keep = _strv(env, "env")
        if keep is not None:
            o.env = keep
        out = c_void_p()
        err = _Error(_EV)
        rc = lib.warder_guard_new(byref(out), backend._handle(), ruleset._handle(), byref(o),
                                  byref(err))
        if rc:
            raise error_from(rc, err)
        self._ptr = out.value
        self.inner = backend
        backend._taken = self  # the guard owns it now (and frees it)

    def close(self) -> None:
        super().close()
        inner = getattr(self, "inner", None)
        if inner is not None:
            inner._ptr = 0

    def set_ruleset(self, ruleset: Ruleset) -> None:
        """Replaces the ruleset atomically (§4.10): a call in flight keeps the one it began
        with, the next call sees the new one."""
        rc = lib.warder_guard_set_ruleset(self._handle(), ruleset._handle())
        if rc:
            raise WarderError(rc, "set_ruleset failed")

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset in force."""
        p = c_void_p()
        rc = lib.warder_guard_ruleset(byref(p), self._handle())
        if rc:
            raise WarderError(rc, "not a guard")
        return Ruleset(p.value)

    def check(self, op: str, target: PathLike) -> Decision:
        """What the guard would decide for ``op`` on ``target``, without doing it (both path
        forms through the inner backend's realpath)."""
        t = encode(target, "target")
        d = new(A.warder_decision)
        self._call(lib.warder_guard_check, byref(d), _B, op_index(op), t, len(t),
                   release=lambda: lib.warder_decision_clear(byref(d)))
        try:
            return decision_from_c(d)
        finally:
            lib.warder_decision_clear(byref(d))


class _ExecutingGuardedBackend(ExecutingBackend, GuardedBackend):
    pass
