# SPDX-License-Identifier: MIT
"""Finding libwarder and declaring the functions the package calls.

The library is looked for, in order:

1. ``$WARDER_LIBRARY``: a path to ``libwarder.so`` (how the test suite uses the build tree);
2. next to this package: ``libwarder.so.0`` or ``libwarder.so`` in the package directory
   (a wheel that bundles the library);
3. on the system: ``libwarder.so.0`` through the dynamic loader (``meson install`` puts it
   there), then whatever ``ctypes.util.find_library("warder")`` names.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import POINTER, c_bool, c_char_p, c_int, c_size_t, c_uint, c_uint64, c_void_p

from . import _abi as A

SONAME = "libwarder.so.0"


def _candidates() -> list[str]:
    env = os.environ.get("WARDER_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, n) for n in (SONAME, "libwarder.so")]
    out = [p for p in out if os.path.exists(p)]
    out.append(SONAME)
    found = ctypes.util.find_library("warder")
    if found and found not in out:
        out.append(found)
    return out


def _load() -> ctypes.CDLL:
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError(
        "libwarder was not found (set WARDER_LIBRARY to the path of libwarder.so, "
        "or install the library): " + "; ".join(errors)
    )


lib = _load()
path = getattr(lib, "_name", "")

_P = c_void_p  # opaque pointers: warder_ruleset *, warder_backend *, warder_cancel *
_ERR = POINTER(A.warder_error)
_DEC = POINTER(A.warder_decision)

# (name, restype, argtypes)
_PROTOTYPES = [
    ("warder_version", c_char_p, []),
    ("warder_strerror", c_char_p, [c_int]),
    ("warder_status_name", c_char_p, [c_int]),
    ("warder_error_init", None, [_ERR]),
    ("warder_error_clear", None, [_ERR]),
    ("warder_error_set_message", c_int, [c_void_p, c_int, c_char_p]),
    ("warder_malloc", c_void_p, [c_size_t]),
    ("warder_free", None, [c_void_p]),
    # rulesets
    ("warder_ruleset_options_init", c_int, [POINTER(A.warder_ruleset_options), c_uint]),
    (
        "warder_ruleset_load_file",
        c_int,
        [POINTER(_P), c_char_p, POINTER(A.warder_ruleset_options), _ERR],
    ),
    (
        "warder_ruleset_load_string",
        c_int,
        [POINTER(_P), c_char_p, c_size_t, c_char_p, POINTER(A.warder_ruleset_options), _ERR],
    ),
    (
        "warder_ruleset_load_preset",
        c_int,
        [POINTER(_P), c_char_p, POINTER(A.warder_ruleset_options), _ERR],
    ),
    ("warder_ruleset_ref", _P, [_P]),
    ("warder_ruleset_free", None, [_P]),
    ("warder_ruleset_digest", c_char_p, [_P]),
    ("warder_ruleset_root", c_char_p, [_P]),
    ("warder_ruleset_home", c_char_p, [_P]),
    ("warder_ruleset_precedence", c_int, [_P]),
    ("warder_ruleset_fold_case", c_bool, [_P]),
    ("warder_ruleset_default", c_int, [_P, c_int]),
    ("warder_ruleset_rule_count", c_size_t, [_P, c_int]),
    ("warder_ruleset_rule", c_int, [POINTER(A.warder_rule_info), _P, c_int, c_size_t]),
    ("warder_preset_names", POINTER(c_char_p), []),
    ("warder_preset_source", c_void_p, [c_char_p, POINTER(c_size_t)]),
    ("warder_decision_init", None, [_DEC]),
    ("warder_decision_clear", None, [_DEC]),
    (
        "warder_ruleset_check",
        c_int,
        [_DEC, _P, c_int, c_char_p, c_size_t, c_char_p, c_size_t, _ERR],
    ),
    (
        "warder_ruleset_explain",
        c_int,
        [
            POINTER(POINTER(A.warder_explanation)),
            _P,
            c_int,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            _ERR,
        ],
    ),
    ("warder_explanation_free", None, [POINTER(A.warder_explanation)]),
    ("warder_ruleset_test_count", c_size_t, [_P]),
    (
        "warder_ruleset_run_tests",
        c_int,
        [POINTER(c_size_t), POINTER(c_size_t), _P, A.TEST_FN, c_void_p, _ERR],
    ),
    # backends
    ("warder_memory_new", c_int, [POINTER(_P), _ERR]),
    ("warder_memory_mkdir", c_int, [_P, c_char_p, c_size_t, _ERR]),
    ("warder_local_options_init", c_int, [POINTER(A.warder_local_options), c_uint]),
    ("warder_local_new", c_int, [POINTER(_P), c_char_p, POINTER(A.warder_local_options), _ERR]),
    ("warder_guard_options_init", c_int, [POINTER(A.warder_guard_options), c_uint]),
    ("warder_guard_new", c_int, [POINTER(_P), _P, _P, POINTER(A.warder_guard_options), _ERR]),
    ("warder_guard_is", c_bool, [_P]),
    ("warder_guard_set_ruleset", c_int, [_P, _P]),
    ("warder_guard_ruleset", c_int, [POINTER(_P), _P]),
    ("warder_guard_check", c_int, [_DEC, _P, c_int, c_char_p, c_size_t, _ERR]),
    ("warder_backend_init", c_int, [_P, POINTER(A.warder_backend_ops), _ERR]),
    ("warder_backend_free", None, [_P]),
    ("warder_backend_can_execute", c_bool, [_P]),
    ("warder_backend_can_realpath", c_bool, [_P]),
    (
        "warder_backend_read",
        c_int,
        [POINTER(A.warder_bytes), _P, c_char_p, c_size_t, c_uint64, c_uint64, c_uint, _ERR],
    ),
    ("warder_backend_write", c_int, [_P, c_char_p, c_size_t, c_char_p, c_size_t, c_uint, _ERR]),
    (
        "warder_backend_edit",
        c_int,
        [
            POINTER(c_size_t),
            _P,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            c_char_p,
            c_size_t,
            c_uint,
            _ERR,
        ],
    ),
    ("warder_backend_ls", c_int, [POINTER(A.warder_entries), _P, c_char_p, c_size_t, c_uint, _ERR]),
    (
        "warder_backend_glob",
        c_int,
        [POINTER(A.warder_entries), _P, c_char_p, c_size_t, c_char_p, c_size_t, c_uint, _ERR],
    ),
    ("warder_grep_request_init", c_int, [POINTER(A.warder_grep_request), c_uint]),
    (
        "warder_backend_grep",
        c_int,
        [POINTER(A.warder_grep_result), _P, POINTER(A.warder_grep_request), _ERR],
    ),
    ("warder_exec_request_init", c_int, [POINTER(A.warder_exec_request), c_uint]),
    (
        "warder_backend_execute",
        c_int,
        [POINTER(A.warder_exec_result), _P, POINTER(A.warder_exec_request), _ERR],
    ),
    ("warder_backend_realpath", c_int, [POINTER(c_void_p), _P, c_char_p, c_size_t, _ERR]),
    ("warder_bytes_free", None, [POINTER(A.warder_bytes)]),
    ("warder_entries_free", None, [POINTER(A.warder_entries)]),
    ("warder_grep_result_free", None, [POINTER(A.warder_grep_result)]),
    ("warder_exec_result_free", None, [POINTER(A.warder_exec_result)]),
    # result helpers for backends written in Python
    ("warder_bytes_set", c_int, [POINTER(A.warder_bytes), c_char_p, c_size_t]),
    (
        "warder_entries_add",
        c_int,
        [POINTER(A.warder_entries), c_char_p, c_size_t, c_char_p, c_size_t, c_int, c_uint64,
         ctypes.c_int64],
    ),
    (
        "warder_grep_add",
        c_int,
        [POINTER(A.warder_grep_result), c_char_p, c_size_t, c_uint64, c_char_p, c_size_t],
    ),
    # cancellation
    ("warder_cancel_new", c_int, [POINTER(_P)]),
    ("warder_cancel_trigger", None, [_P]),
    ("warder_cancel_triggered", c_bool, [_P]),
    ("warder_cancel_free", None, [_P]),
]

for _name, _res, _args in _PROTOTYPES:
    _f = getattr(lib, _name)  # a missing symbol fails the import: the library is too old
    _f.restype = _res
    _f.argtypes = _args
del _name, _res, _args, _f


def version() -> str:
    """The version of the libwarder that was loaded, e.g. ``"0.1.0"``."""
    return lib.warder_version().decode()


def status_name(code: int) -> str:
    """The symbolic name of a status code (``"WARDER_EDENIED"``)."""
    return lib.warder_status_name(code).decode()


def strerror(code: int) -> str:
    """The English text of a status code."""
    return lib.warder_strerror(code).decode()
