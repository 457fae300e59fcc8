# SPDX-License-Identifier: MIT
"""The package's view of libwarder's public structs, enums and constants.

This module mirrors ``include/warder/*.h`` and nothing else: it imports only ctypes, so the
ABI check (``tests/python/test_abi.py``) can load it on its own and compare every struct size,
member offset and constant with what a C compiler sees (``tests/abi-layout.c``). When a public
header changes, this file changes with it or that test fails.
"""

from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_bool,
    c_char,
    c_char_p,
    c_int,
    c_int64,
    c_long,
    c_size_t,
    c_uint,
    c_uint32,
    c_uint64,
    c_void_p,
    sizeof,
)

# ---- constants (macros and enums) -----------------------------------------------------------

STATUS = {
    "WARDER_OK": 0,
    "WARDER_EDENIED": -1,
    "WARDER_EASK": -2,
    "WARDER_ENOTSUP": -3,
    "WARDER_ENOENT": -4,
    "WARDER_EEXIST": -5,
    "WARDER_EINVAL": -6,
    "WARDER_ENOMEM": -7,
    "WARDER_EIO": -8,
    "WARDER_ETOOBIG": -9,
    "WARDER_ENOTREG": -10,
    "WARDER_ESYMLINK": -11,
    "WARDER_EOUTSIDE": -12,
    "WARDER_ETIMEDOUT": -13,
    "WARDER_EPARSE": -14,
    "WARDER_EBACKEND": -15,
    "WARDER_EACCES": -16,
    "WARDER_ENOTDIR": -17,
    "WARDER_EISDIR": -18,
    "WARDER_ENOMATCH": -19,
    "WARDER_EAMBIGUOUS": -20,
    "WARDER_ELIMIT": -21,
}
STATUS_MIN = -21

ACTIONS = ("allow", "ask", "deny")  # enum warder_action, in order (0, 1, 2)
OPS = ("read", "write", "edit", "ls", "glob", "grep", "execute")  # enum warder_op
FORMS = ("default", "literal", "real", "both")  # enum warder_form (NONE prints "default")
ENTRY_TYPES = ("file", "dir", "symlink", "other")  # enum warder_entry_type
LANDLOCK_MODES = ("off", "best_effort", "required")  # enum warder_landlock_mode

CONSTANTS = {
    # versions of the versioned structs
    "WARDER_ERROR_VERSION": 1,
    "WARDER_DECISION_VERSION": 1,
    "WARDER_RULE_INFO_VERSION": 1,
    "WARDER_EXPLANATION_VERSION": 1,
    "WARDER_RULESET_INDEX_STATS_VERSION": 1,
    "WARDER_TEST_RESULT_VERSION": 1,
    "WARDER_BYTES_VERSION": 1,
    "WARDER_ENTRIES_VERSION": 1,
    "WARDER_GREP_RESULT_VERSION": 1,
    "WARDER_EXEC_RESULT_VERSION": 1,
    "WARDER_GUARD_REQUEST_VERSION": 1,
    "WARDER_AUDIT_EVENT_VERSION": 1,
    "WARDER_RULESET_OPTIONS_VERSION": 2,
    "WARDER_GUARD_OPTIONS_VERSION": 2,
    "WARDER_LOCAL_OPTIONS_VERSION": 3,
    "WARDER_GREP_REQUEST_VERSION": 4,
    "WARDER_EXEC_REQUEST_VERSION": 3,
    "WARDER_COMMAND_CONTEXT_VERSION": 2,
    "WARDER_BACKEND_OPS_VERSION": 1,
    # request flags
    "WARDER_APPROVED": 1 << 0,
    "WARDER_EDIT_ALL": 1 << 1,
    "WARDER_GREP_CASELESS": 1 << 2,
    "WARDER_NOFOLLOW": 1 << 3,
    # glob flags
    "WARDER_GLOB_FOLD_CASE": 1 << 0,
    "WARDER_GLOB_COMMAND": 1 << 1,
    "WARDER_GLOB_NO_BRACES": 1 << 2,
    # backend capabilities
    "WARDER_BACKEND_CAP_REAL_RESULTS": 1 << 0,
    "WARDER_BACKEND_CAP_STRICT_NOFOLLOW": 1 << 1,
    "WARDER_BACKEND_CAP_GREP_FILTER": 1 << 2,
    # masking (§6.5)
    "WARDER_MASK_HIDE": 1 << 0,
    "WARDER_MASK_READONLY": 1 << 1,
    # approvals
    "WARDER_APPROVAL_DECLINE": 0,
    "WARDER_APPROVAL_GRANT": 1,
    "WARDER_APPROVAL_DEFER": 2,
    # enums
    "WARDER_ALLOW": 0,
    "WARDER_ASK": 1,
    "WARDER_DENY": 2,
    "WARDER_OP_READ": 0,
    "WARDER_OP_WRITE": 1,
    "WARDER_OP_EDIT": 2,
    "WARDER_OP_LS": 3,
    "WARDER_OP_GLOB": 4,
    "WARDER_OP_GREP": 5,
    "WARDER_OP_EXECUTE": 6,
    "WARDER_OP_COUNT": 7,
    "WARDER_FORM_NONE": 0,
    "WARDER_FORM_LITERAL": 1,
    "WARDER_FORM_REAL": 2,
    "WARDER_FORM_BOTH": 3,
    "WARDER_FIRST_MATCH": 0,
    "WARDER_STRICTEST": 1,
    "WARDER_ENTRY_FILE": 0,
    "WARDER_ENTRY_DIR": 1,
    "WARDER_ENTRY_SYMLINK": 2,
    "WARDER_ENTRY_OTHER": 3,
    "WARDER_LANDLOCK_OFF": 0,
    "WARDER_LANDLOCK_BEST_EFFORT": 1,
    "WARDER_LANDLOCK_REQUIRED": 2,
    "WARDER_STATUS_MIN": STATUS_MIN,
}
CONSTANTS.update(STATUS)

APPROVED = CONSTANTS["WARDER_APPROVED"]
EDIT_ALL = CONSTANTS["WARDER_EDIT_ALL"]
GREP_CASELESS = CONSTANTS["WARDER_GREP_CASELESS"]

# ---- structs ----------------------------------------------------------------------------------

c_enum = c_int  # every public enum fits an int


class warder_decision(Structure):
    VERSION = CONSTANTS["WARDER_DECISION_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("action", c_enum),
        ("op", c_enum),
        ("by_default", c_bool),
        ("form", c_enum),
        ("rule_id", c_void_p),
        ("rule_index", c_size_t),
        ("pattern", c_void_p),
        ("reason", c_void_p),
        ("file", c_void_p),
        ("line", c_uint),
        ("column", c_uint),
        ("segment", c_void_p),
        ("candidate", c_void_p),
        ("candidate_op", c_enum),
        ("undeterminable", c_bool),
        ("note", c_void_p),
        ("owned_", c_void_p),
    ]


class warder_error(Structure):
    VERSION = CONSTANTS["WARDER_ERROR_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("code", c_int),
        ("message", c_char * 512),
        ("file", c_char * 1024),
        ("line", c_uint),
        ("column", c_uint),
        ("offset", c_long),
        ("decision", POINTER(warder_decision)),
    ]


class warder_ruleset_options(Structure):
    _fields_ = [
        ("version", c_uint),
        ("root", c_char_p),
        ("home", c_char_p),
        ("base_dir", c_char_p),
        ("max_file_size", c_size_t),
        ("max_depth", c_size_t),
        ("max_nodes", c_size_t),
        ("max_rules", c_size_t),
        ("max_pattern_bytes", c_size_t),  # version 2
        ("max_compiled_bytes", c_size_t),  # version 2
    ]


class warder_rule_info(Structure):
    VERSION = CONSTANTS["WARDER_RULE_INFO_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("op", c_enum),
        ("action", c_enum),
        ("index", c_size_t),
        ("id", c_void_p),
        ("pattern", c_void_p),
        ("reason", c_void_p),
        ("file", c_void_p),
        ("line", c_uint),
        ("column", c_uint),
    ]


class warder_explain_match(Structure):
    _fields_ = [("form", c_enum), ("rule", warder_rule_info)]


class warder_explanation(Structure):
    VERSION = CONSTANTS["WARDER_EXPLANATION_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("op", c_enum),
        ("literal", c_void_p),
        ("real", c_void_p),
        ("decision", warder_decision),
        ("count", c_size_t),
        ("matches", POINTER(warder_explain_match)),
    ]


# tooling.h
class warder_ruleset_index_stats(Structure):
    VERSION = CONSTANTS["WARDER_RULESET_INDEX_STATS_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("rules", c_size_t),
        ("always", c_size_t),
        ("first_always", c_size_t),
        ("largest_key", c_size_t),
    ]


class warder_test_result(Structure):
    VERSION = CONSTANTS["WARDER_TEST_RESULT_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("index", c_size_t),
        ("op", c_enum),
        ("target", c_void_p),
        ("real", c_void_p),
        ("expect", c_enum),
        ("decision", POINTER(warder_decision)),
        ("status", c_int),
        ("passed", c_bool),
        ("file", c_void_p),
        ("line", c_uint),
        ("column", c_uint),
        ("message", c_void_p),
    ]


TEST_FN = CFUNCTYPE(None, c_void_p, POINTER(warder_test_result))

COMMAND_REALPATH_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(c_void_p))
COMMAND_GLOB_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t))
COMMAND_LS_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t))


class warder_command_context(Structure):
    _fields_ = [
        ("version", c_uint),
        ("cwd", c_char_p),
        ("env", POINTER(c_char_p)),
        ("realpath", COMMAND_REALPATH_FN),
        ("glob", COMMAND_GLOB_FN),
        ("ud", c_void_p),
        ("ls", COMMAND_LS_FN),  # version 2
    ]


# backend.h
class warder_bytes(Structure):
    VERSION = CONSTANTS["WARDER_BYTES_VERSION"]
    _fields_ = [("version", c_uint), ("data", c_void_p), ("len", c_size_t), ("truncated", c_bool)]


class warder_entry(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("path", c_char_p),
        ("type", c_enum),
        ("size", c_uint64),
        ("mtime", c_int64),
    ]


class warder_entries(Structure):
    VERSION = CONSTANTS["WARDER_ENTRIES_VERSION"]
    _fields_ = [("version", c_uint), ("items", POINTER(warder_entry)), ("count", c_size_t), ("hidden", c_size_t)]


class warder_grep_match(Structure):
    _fields_ = [
        ("path", c_char_p),
        ("line", c_uint64),
        ("text", c_void_p),
        ("text_len", c_size_t),
    ]


class warder_grep_result(Structure):
    VERSION = CONSTANTS["WARDER_GREP_RESULT_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("items", POINTER(warder_grep_match)),
        ("count", c_size_t),
        ("hidden_files", c_size_t),
        ("truncated", c_bool),
    ]


GREP_FILTER_FN = CFUNCTYPE(c_bool, c_void_p, c_char_p, c_size_t)


class warder_grep_request(Structure):
    _fields_ = [
        ("version", c_uint),
        ("pattern", c_char_p),
        ("path", c_char_p),
        ("path_len", c_size_t),
        ("glob", c_char_p),
        ("flags", c_uint),
        ("max_matches", c_size_t),
        ("may_search", GREP_FILTER_FN),  # version 2
        ("may_search_ud", c_void_p),
        ("pattern_len", c_size_t),  # version 3
        ("glob_len", c_size_t),
        ("threads", c_uint),  # version 4
    ]


EXEC_STREAM_FN = CFUNCTYPE(None, c_void_p, c_int, POINTER(c_char), c_size_t)
EXEC_MASK_FN = CFUNCTYPE(c_uint, c_void_p, c_char_p, c_char_p)


class warder_exec_request(Structure):
    _fields_ = [
        ("version", c_uint),
        ("command", c_char_p),
        ("command_len", c_size_t),
        ("cwd", c_char_p),
        ("timeout_ms", c_uint32),
        ("env", POINTER(c_char_p)),
        ("max_output", c_size_t),
        ("stream", EXEC_STREAM_FN),
        ("stream_ud", c_void_p),
        ("flags", c_uint),
        ("cancel", c_void_p),  # version 2
        ("mask", EXEC_MASK_FN),  # version 3
        ("mask_ud", c_void_p),
    ]


class warder_exec_result(Structure):
    VERSION = CONSTANTS["WARDER_EXEC_RESULT_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("exit_status", c_int),
        ("signal", c_int),
        ("timed_out", c_bool),
        ("out", warder_bytes),
        ("err", warder_bytes),
        ("landlock_applied", c_bool),
        ("masked", c_bool),
        ("cancelled", c_bool),
        ("pid_namespace", c_bool),
    ]


# guard.h
class warder_guard_request(Structure):
    VERSION = CONSTANTS["WARDER_GUARD_REQUEST_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("op", c_enum),
        ("target", c_char_p),
        ("literal", c_char_p),
        ("real", c_char_p),
        ("rules", c_void_p),
    ]


APPROVE_FN = CFUNCTYPE(c_bool, c_void_p, POINTER(warder_guard_request), POINTER(warder_decision))
APPROVE_EX_FN = CFUNCTYPE(
    c_enum, c_void_p, POINTER(warder_guard_request), POINTER(warder_decision)
)


class warder_audit_event(Structure):
    VERSION = CONSTANTS["WARDER_AUDIT_EVENT_VERSION"]
    _fields_ = [
        ("version", c_uint),
        ("request", POINTER(warder_guard_request)),
        ("decision", POINTER(warder_decision)),
        ("approval_asked", c_bool),
        ("approved", c_bool),
        ("filtered", c_bool),
        ("final_action", c_enum),
    ]


AUDIT_FN = CFUNCTYPE(None, c_void_p, POINTER(warder_audit_event))


class warder_guard_options(Structure):
    _fields_ = [
        ("version", c_uint),
        ("root", c_char_p),
        ("home", c_char_p),
        ("approve", APPROVE_FN),
        ("approve_ud", c_void_p),
        ("audit", AUDIT_FN),
        ("audit_ud", c_void_p),
        ("env", POINTER(c_char_p)),
        ("approve_ex", APPROVE_EX_FN),
    ]


# local.h
class warder_local_options(Structure):
    _fields_ = [
        ("version", c_uint),
        ("follow_symlinks", c_bool),
        ("max_read", c_uint64),
        ("max_write", c_uint64),
        ("grep_max_file", c_uint64),
        ("grep_max_matches", c_size_t),
        ("grep_skip_binary", c_bool),
        ("force_fallback", c_bool),
        ("exec", c_bool),
        ("exec_env", POINTER(c_char_p)),
        ("exec_timeout_ms", c_uint32),
        ("exec_max_output", c_size_t),
        ("drop_privileges", c_bool),
        ("uid", c_uint32),  # uid_t
        ("gid", c_uint32),  # gid_t
        ("landlock", c_enum),
        ("landlock_read", POINTER(c_char_p)),
        ("landlock_write", POINTER(c_char_p)),
        ("mask_denied", c_bool),
        ("mask_budget_ms", c_uint32),
        ("mask_budget_entries", c_size_t),
        ("act_as_agent", c_bool),
        ("agent_uid", c_uint32),
        ("agent_gid", c_uint32),
        ("agent_groups", POINTER(c_uint32)),
        ("agent_ngroups", c_size_t),
    ]


# sys/backend.h
class warder_backend(Structure):
    pass


OPS_READ_FN = CFUNCTYPE(
    c_int, c_void_p, c_char_p, c_uint64, c_uint64, c_uint, POINTER(warder_bytes), c_void_p
)
OPS_WRITE_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, c_size_t, c_uint, c_void_p)
OPS_EDIT_FN = CFUNCTYPE(
    c_int,
    c_void_p,
    c_char_p,
    c_void_p,
    c_size_t,
    c_void_p,
    c_size_t,
    c_uint,
    POINTER(c_size_t),
    c_void_p,
)
OPS_LS_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_uint, POINTER(warder_entries), c_void_p)
OPS_GLOB_FN = CFUNCTYPE(
    c_int, c_void_p, c_char_p, c_char_p, c_uint, POINTER(warder_entries), c_void_p
)
OPS_GREP_FN = CFUNCTYPE(
    c_int, c_void_p, POINTER(warder_grep_request), POINTER(warder_grep_result), c_void_p
)
OPS_EXECUTE_FN = CFUNCTYPE(
    c_int, c_void_p, POINTER(warder_exec_request), POINTER(warder_exec_result), c_void_p
)
OPS_REALPATH_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(c_void_p), c_void_p)
OPS_DESTROY_FN = CFUNCTYPE(None, c_void_p)


class warder_backend_ops(Structure):
    _fields_ = [
        ("version", c_uint),
        ("read", OPS_READ_FN),
        ("write", OPS_WRITE_FN),
        ("edit", OPS_EDIT_FN),
        ("ls", OPS_LS_FN),
        ("glob", OPS_GLOB_FN),
        ("grep", OPS_GREP_FN),
        ("execute", OPS_EXECUTE_FN),
        ("realpath", OPS_REALPATH_FN),
        ("destroy", OPS_DESTROY_FN),
        ("caps", c_uint),
    ]


warder_backend._fields_ = [("ops", POINTER(warder_backend_ops)), ("magic_", c_uint)]

# Every public struct, by its C name (the ABI check compares each with the C compiler's view).
STRUCTS = {
    cls.__name__: cls
    for cls in (
        warder_error,
        warder_decision,
        warder_ruleset_options,
        warder_rule_info,
        warder_explain_match,
        warder_explanation,
        warder_ruleset_index_stats,
        warder_test_result,
        warder_command_context,
        warder_bytes,
        warder_entry,
        warder_entries,
        warder_grep_match,
        warder_grep_result,
        warder_grep_request,
        warder_exec_request,
        warder_exec_result,
        warder_guard_request,
        warder_audit_event,
        warder_guard_options,
        warder_local_options,
        warder_backend_ops,
        warder_backend,
    )
}
