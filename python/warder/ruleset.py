# SPDX-License-Identifier: MIT
"""Rulesets: load YAML (a file, a string, an embedded preset, a dict) and decide."""

from __future__ import annotations

import os
from os import fsencode as _fsencode
from ctypes import POINTER, byref, c_size_t, c_void_p, string_at
from typing import Any, Dict, List, Optional, Tuple

from . import _abi as A
from . import _yaml
from ._core import EINVAL, cstring, encode, error_from
from ._lib import lib
from ._types import (
    Decision,
    ExplainMatch,
    Explanation,
    PathLike,
    Rule,
    TestReport,
    decision_from_c,
    rule_from_c,
    text,
)
from .errors import WarderError

OP_INDEX = {name: i for i, name in enumerate(A.OPS)}
EXECUTE = OP_INDEX["execute"]

_check = lib.warder_ruleset_check
_clear = lib.warder_decision_clear
_Decision = A.warder_decision
_Error = A.warder_error
_DV = A.warder_decision.VERSION
_EV = A.warder_error.VERSION


def op_index(op: str) -> int:
    try:
        return OP_INDEX[op]
    except (KeyError, TypeError):
        raise WarderError(
            EINVAL, f"unknown operation {op!r} (one of {', '.join(A.OPS)})"
        ) from None


def _options(root, home, base_dir, limits: Dict[str, int]) -> A.warder_ruleset_options:
    o = A.warder_ruleset_options()
    lib.warder_ruleset_options_init(byref(o), A.CONSTANTS["WARDER_RULESET_OPTIONS_VERSION"])
    if root is not None:
        o.root = cstring(root, "root")
    if home is not None:
        o.home = cstring(home, "home")
    if base_dir is not None:
        o.base_dir = cstring(base_dir, "base_dir")
    for key, value in limits.items():
        if key not in ("max_file_size", "max_depth", "max_nodes", "max_rules"):
            raise TypeError(f"unknown ruleset option {key!r}")
        setattr(o, key, int(value))
    return o


class Ruleset:
    """A loaded ruleset: immutable, and safe to share between threads and guards.

    Load one with :meth:`from_file`, :meth:`from_yaml`, :meth:`from_preset` or
    :meth:`from_dict`. ``root`` anchors relative patterns (§2.11; default: the current
    directory at load time) and ``home`` is what ``~`` means (default: none, and a ``~``
    pattern is a load error). A malformed ruleset raises :class:`WarderError` with
    ``file``, ``line`` and ``column``.
    """

    __slots__ = ("_ptr", "_cache", "__weakref__")

    def __init__(self, _ptr: int):
        if not isinstance(_ptr, int) or not _ptr:
            raise TypeError("use Ruleset.from_file, from_yaml, from_preset or from_dict")
        self._ptr = _ptr
        self._cache: Dict[Tuple[int, int, int, int, int], Decision] = {}

    # ---- loading --------------------------------------------------------------------------

    @classmethod
    def from_file(
        cls,
        path: PathLike,
        *,
        root: Optional[PathLike] = None,
        home: Optional[PathLike] = None,
        **limits: int,
    ) -> "Ruleset":
        """Loads a YAML ruleset file (``extends`` resolved relative to it)."""
        return cls._load(lib.warder_ruleset_load_file, cstring(path, "path"),
                         options=_options(root, home, None, limits))

    @classmethod
    def from_yaml(
        cls,
        source: Any,
        *,
        root: Optional[PathLike] = None,
        home: Optional[PathLike] = None,
        name: Optional[str] = None,
        base_dir: Optional[PathLike] = None,
        **limits: int,
    ) -> "Ruleset":
        """Loads a ruleset from YAML text (``str`` or ``bytes``). ``name`` names it in
        messages (default ``<string>``); ``base_dir`` resolves a relative ``extends``."""
        data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        n = cstring(name, "name") if name is not None else None
        return cls._load(lib.warder_ruleset_load_string, data, len(data), n,
                         options=_options(root, home, base_dir, limits))

    @classmethod
    def from_preset(
        cls,
        preset: str = "default",
        *,
        root: Optional[PathLike] = None,
        home: Optional[PathLike] = None,
        **limits: int,
    ) -> "Ruleset":
        """Loads an embedded preset (``Ruleset.preset_names()`` lists them)."""
        return cls._load(lib.warder_ruleset_load_preset, cstring(preset, "preset"),
                         options=_options(root, home, None, limits))

    @classmethod
    def _load(cls, fn: Any, *args: Any, options: A.warder_ruleset_options) -> "Ruleset":
        out = c_void_p()
        err = _Error(_EV)
        rc = fn(byref(out), *args, byref(options), byref(err))
        if rc:
            raise error_from(rc, err)
        return cls(out.value)

    @classmethod
    def from_dict(
        cls,
        rules: Dict[str, Any],
        *,
        root: Optional[PathLike] = None,
        home: Optional[PathLike] = None,
        name: str = "<dict>",
        base_dir: Optional[PathLike] = None,
        **limits: int,
    ) -> "Ruleset":
        """Loads a ruleset given as Python data, the same structure as the YAML
        (``{"warder": 1, "read": {"rules": [{"deny": "**/.env"}]}}``); it is checked exactly
        as YAML is. Positions in messages refer to its YAML rendering."""
        if not isinstance(rules, dict):
            raise TypeError("a ruleset is a dict")
        return cls.from_yaml(
            _yaml.dump(rules), root=root, home=home, name=name, base_dir=base_dir, **limits
        )

    @staticmethod
    def preset_names() -> List[str]:
        """The names of the embedded presets."""
        names = lib.warder_preset_names()
        out = []
        i = 0
        while names[i]:
            out.append(names[i].decode())
            i += 1
        return out

    @staticmethod
    def preset_source(preset: str) -> str:
        """The YAML text of an embedded preset."""
        n = c_size_t()
        p = lib.warder_preset_source(cstring(preset, "preset"), byref(n))
        if not p:
            raise WarderError(EINVAL, f"unknown preset {preset!r}")
        return string_at(p, n.value).decode("utf-8")

    # ---- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Drops this object's reference (guards hold their own)."""
        p, self._ptr = self._ptr, 0
        if p:
            lib.warder_ruleset_free(p)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self) -> "Ruleset":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> int:
        if not self._ptr:
            raise WarderError(EINVAL, "the ruleset was closed")
        return self._ptr

    # ---- deciding -------------------------------------------------------------------------

    def check(self, op: str, target: PathLike, real: Optional[PathLike] = None) -> Decision:
        """Decides ``op`` on ``target`` (§3.3): the literal form, and ``real`` when given (the
        stricter of the two wins). For ``execute`` the target is a command line, inspected
        as in §5 (no real form). An empty target or one holding a NUL byte raises
        :class:`WarderError` (``WARDER_EINVAL``)."""
        opi = OP_INDEX.get(op)
        if opi is None:
            opi = op_index(op)
        tt = type(target)
        t = target if tt is bytes else _fsencode(target) if tt is str else encode(target)
        r = None if real is None else encode(real, "real")
        rl = 0 if r is None else len(r)
        d = _Decision(_DV)
        # No error struct on the way in: a check is deterministic, so a failure is asked again
        # with one for its detail.
        rc = _check(byref(d), self._ptr or self._handle(), opi, t, len(t), r, rl, None)
        if rc:
            err = _Error(_EV)
            rc = _check(byref(d), self._handle(), opi, t, len(t), r, rl, byref(err))
            raise error_from(rc, err)
        if opi == EXECUTE or d.owned_:
            dec = decision_from_c(d)
            _clear(byref(d))
            return dec
        # A decision on a path names a rule of this ruleset, or the operation's default, and
        # nothing else: the same rule and form always give the same Decision.
        key = (opi, d.form, d.rule_index, d.by_default)
        dec = self._cache.get(key)
        if dec is None:
            dec = decision_from_c(d)
            self._cache[key] = dec
        return dec

    def explain(
        self, op: str, target: PathLike, real: Optional[PathLike] = None
    ) -> Explanation:
        """The decision with both normalised forms and every matching rule, in order."""
        opi = op_index(op)
        t = encode(target, "target")
        r = None if real is None else encode(real, "real")
        out = POINTER(A.warder_explanation)()
        err = _Error(_EV)
        rc = lib.warder_ruleset_explain(byref(out), self._handle(), opi, t, len(t), r,
                                        0 if r is None else len(r), byref(err))
        if rc:
            raise error_from(rc, err)
        try:
            ex = out.contents
            matches = [
                ExplainMatch(A.FORMS[ex.matches[i].form], rule_from_c(ex.matches[i].rule))
                for i in range(ex.count)
            ]
            return Explanation(
                op=A.OPS[ex.op],
                literal=os.fsdecode(string_at(ex.literal)),
                real=os.fsdecode(string_at(ex.real)) if ex.real else None,
                decision=decision_from_c(ex.decision),
                matches=matches,
            )
        finally:
            lib.warder_explanation_free(out)

    # ---- what it holds --------------------------------------------------------------------

    @property
    def root(self) -> str:
        return os.fsdecode(lib.warder_ruleset_root(self._handle()))

    @property
    def home(self) -> Optional[str]:
        h = lib.warder_ruleset_home(self._handle())
        return os.fsdecode(h) if h is not None else None

    @property
    def digest(self) -> str:
        """``sha256:…`` of everything that decides (approvals bind to it)."""
        d = lib.warder_ruleset_digest(self._handle())
        if d is None:
            raise MemoryError("out of memory")
        return d.decode()

    @property
    def precedence(self) -> str:
        return ("first-match", "strictest")[lib.warder_ruleset_precedence(self._handle())]

    @property
    def fold_case(self) -> bool:
        return bool(lib.warder_ruleset_fold_case(self._handle()))

    def default(self, op: str) -> str:
        """The action an operation takes when no rule matches."""
        return A.ACTIONS[lib.warder_ruleset_default(self._handle(), op_index(op))]

    def rules(self, op: str) -> List[Rule]:
        """The rules of one operation, merged across ``extends``, in decision order."""
        opi = op_index(op)
        h = self._handle()
        out = []
        info = A.warder_rule_info(A.warder_rule_info.VERSION)
        for i in range(lib.warder_ruleset_rule_count(h, opi)):
            if lib.warder_ruleset_rule(byref(info), h, opi, i) == 0:
                out.append(rule_from_c(info))
        return out

    def run_tests(self) -> TestReport:
        """Runs the ruleset's inline ``tests: cases:`` (as ``warder test`` does)."""
        failures: List[str] = []

        def on_case(_ud: Any, res: Any) -> None:
            r = res.contents
            if r.passed:
                return
            got = (
                A.ACTIONS[r.decision.contents.action]
                if r.decision
                else f"error: {text(r.message) or ''}"
            )
            failures.append(
                f"{text(r.file) or ''}:{r.line}:{r.column}: {A.OPS[r.op]} "
                f"{text(r.target)}: expected {A.ACTIONS[r.expect]}, got {got}"
            )

        cb = A.TEST_FN(on_case)
        passed, failed = c_size_t(), c_size_t()
        err = _Error(_EV)
        rc = lib.warder_ruleset_run_tests(byref(passed), byref(failed), self._handle(), cb, None,
                                          byref(err))
        if rc:
            raise error_from(rc, err)
        return TestReport(passed.value, failed.value, failures)

    def __repr__(self) -> str:
        if not self._ptr:
            return "<warder.Ruleset closed>"
        return f"<warder.Ruleset root={self.root!r} {self.digest[:15]}…>"
