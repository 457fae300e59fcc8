/* SPDX-License-Identifier: MIT */
/*
 * The ABI as the C compiler sees it: the size and alignment of every public struct, the
 * offset and size of every member, and the value of every public constant, one per line:
 *
 *   struct NAME SIZE ALIGN
 *   member STRUCT MEMBER OFFSET SIZE
 *   const NAME VALUE
 *
 * tests/python/test_abi.py compares this with the Python package's view (python/warder/
 * _abi.py) and checks that every struct and member the headers declare is listed here, so
 * neither can drift from the headers.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>

#include "warder/sys/backend.h"
#include "warder/tooling.h"
#include "warder/warder.h"

#define STRUCT(s) printf("struct %s %zu %zu\n", #s, sizeof(struct s), alignof(struct s))
#define MEMBER(s, m)                                                                               \
        printf("member %s %s %zu %zu\n", #s, #m, offsetof(struct s, m), sizeof(((struct s *)0)->m))
#define CONST(c)  printf("const %s %lld\n", #c, (long long)(c))
#define UCONST(c) printf("const %s %llu\n", #c, (unsigned long long)(c))

int main(void)
{
        STRUCT(warder_error);
        MEMBER(warder_error, code);
        MEMBER(warder_error, message);
        MEMBER(warder_error, file);
        MEMBER(warder_error, line);
        MEMBER(warder_error, column);
        MEMBER(warder_error, offset);
        MEMBER(warder_error, decision);
        STRUCT(warder_decision);
        MEMBER(warder_decision, action);
        MEMBER(warder_decision, op);
        MEMBER(warder_decision, by_default);
        MEMBER(warder_decision, form);
        MEMBER(warder_decision, rule_id);
        MEMBER(warder_decision, rule_index);
        MEMBER(warder_decision, pattern);
        MEMBER(warder_decision, reason);
        MEMBER(warder_decision, file);
        MEMBER(warder_decision, line);
        MEMBER(warder_decision, column);
        MEMBER(warder_decision, segment);
        MEMBER(warder_decision, candidate);
        MEMBER(warder_decision, candidate_op);
        MEMBER(warder_decision, undeterminable);
        MEMBER(warder_decision, note);
        MEMBER(warder_decision, owned_);
        STRUCT(warder_ruleset_options);
        MEMBER(warder_ruleset_options, version);
        MEMBER(warder_ruleset_options, root);
        MEMBER(warder_ruleset_options, home);
        MEMBER(warder_ruleset_options, base_dir);
        MEMBER(warder_ruleset_options, max_file_size);
        MEMBER(warder_ruleset_options, max_depth);
        MEMBER(warder_ruleset_options, max_nodes);
        MEMBER(warder_ruleset_options, max_rules);
        MEMBER(warder_ruleset_options, max_pattern_bytes);
        MEMBER(warder_ruleset_options, max_compiled_bytes);
        STRUCT(warder_rule_info);
        MEMBER(warder_rule_info, op);
        MEMBER(warder_rule_info, action);
        MEMBER(warder_rule_info, index);
        MEMBER(warder_rule_info, id);
        MEMBER(warder_rule_info, pattern);
        MEMBER(warder_rule_info, reason);
        MEMBER(warder_rule_info, file);
        MEMBER(warder_rule_info, line);
        MEMBER(warder_rule_info, column);
        STRUCT(warder_explain_match);
        MEMBER(warder_explain_match, form);
        MEMBER(warder_explain_match, rule);
        STRUCT(warder_explanation);
        MEMBER(warder_explanation, op);
        MEMBER(warder_explanation, literal);
        MEMBER(warder_explanation, real);
        MEMBER(warder_explanation, decision);
        MEMBER(warder_explanation, count);
        MEMBER(warder_explanation, matches);
        STRUCT(warder_ruleset_index_stats);
        MEMBER(warder_ruleset_index_stats, rules);
        MEMBER(warder_ruleset_index_stats, always);
        MEMBER(warder_ruleset_index_stats, first_always);
        MEMBER(warder_ruleset_index_stats, largest_key);
        STRUCT(warder_test_result);
        MEMBER(warder_test_result, index);
        MEMBER(warder_test_result, op);
        MEMBER(warder_test_result, target);
        MEMBER(warder_test_result, real);
        MEMBER(warder_test_result, expect);
        MEMBER(warder_test_result, decision);
        MEMBER(warder_test_result, status);
        MEMBER(warder_test_result, passed);
        MEMBER(warder_test_result, file);
        MEMBER(warder_test_result, line);
        MEMBER(warder_test_result, column);
        MEMBER(warder_test_result, message);
        STRUCT(warder_command_context);
        MEMBER(warder_command_context, version);
        MEMBER(warder_command_context, cwd);
        MEMBER(warder_command_context, env);
        MEMBER(warder_command_context, realpath);
        MEMBER(warder_command_context, glob);
        MEMBER(warder_command_context, ud);
        MEMBER(warder_command_context, ls);
        STRUCT(warder_bytes);
        MEMBER(warder_bytes, data);
        MEMBER(warder_bytes, len);
        MEMBER(warder_bytes, truncated);
        STRUCT(warder_entry);
        MEMBER(warder_entry, name);
        MEMBER(warder_entry, path);
        MEMBER(warder_entry, type);
        MEMBER(warder_entry, size);
        MEMBER(warder_entry, mtime);
        STRUCT(warder_entries);
        MEMBER(warder_entries, items);
        MEMBER(warder_entries, count);
        MEMBER(warder_entries, hidden);
        STRUCT(warder_grep_match);
        MEMBER(warder_grep_match, path);
        MEMBER(warder_grep_match, line);
        MEMBER(warder_grep_match, text);
        MEMBER(warder_grep_match, text_len);
        STRUCT(warder_grep_result);
        MEMBER(warder_grep_result, items);
        MEMBER(warder_grep_result, count);
        MEMBER(warder_grep_result, hidden_files);
        MEMBER(warder_grep_result, truncated);
        STRUCT(warder_grep_request);
        MEMBER(warder_grep_request, version);
        MEMBER(warder_grep_request, pattern);
        MEMBER(warder_grep_request, path);
        MEMBER(warder_grep_request, path_len);
        MEMBER(warder_grep_request, glob);
        MEMBER(warder_grep_request, flags);
        MEMBER(warder_grep_request, max_matches);
        MEMBER(warder_grep_request, may_search);
        MEMBER(warder_grep_request, may_search_ud);
        MEMBER(warder_grep_request, pattern_len);
        MEMBER(warder_grep_request, glob_len);
        STRUCT(warder_exec_request);
        MEMBER(warder_exec_request, version);
        MEMBER(warder_exec_request, command);
        MEMBER(warder_exec_request, command_len);
        MEMBER(warder_exec_request, cwd);
        MEMBER(warder_exec_request, timeout_ms);
        MEMBER(warder_exec_request, env);
        MEMBER(warder_exec_request, max_output);
        MEMBER(warder_exec_request, stream);
        MEMBER(warder_exec_request, stream_ud);
        MEMBER(warder_exec_request, flags);
        MEMBER(warder_exec_request, cancel);
        MEMBER(warder_exec_request, mask);
        MEMBER(warder_exec_request, mask_ud);
        STRUCT(warder_exec_result);
        MEMBER(warder_exec_result, exit_status);
        MEMBER(warder_exec_result, signal);
        MEMBER(warder_exec_result, timed_out);
        MEMBER(warder_exec_result, out);
        MEMBER(warder_exec_result, err);
        MEMBER(warder_exec_result, landlock_applied);
        MEMBER(warder_exec_result, masked);
        MEMBER(warder_exec_result, cancelled);
        MEMBER(warder_exec_result, pid_namespace);
        STRUCT(warder_guard_request);
        MEMBER(warder_guard_request, op);
        MEMBER(warder_guard_request, target);
        MEMBER(warder_guard_request, literal);
        MEMBER(warder_guard_request, real);
        MEMBER(warder_guard_request, rules);
        STRUCT(warder_audit_event);
        MEMBER(warder_audit_event, request);
        MEMBER(warder_audit_event, decision);
        MEMBER(warder_audit_event, approval_asked);
        MEMBER(warder_audit_event, approved);
        MEMBER(warder_audit_event, filtered);
        MEMBER(warder_audit_event, final_action);
        STRUCT(warder_guard_options);
        MEMBER(warder_guard_options, version);
        MEMBER(warder_guard_options, root);
        MEMBER(warder_guard_options, home);
        MEMBER(warder_guard_options, approve);
        MEMBER(warder_guard_options, approve_ud);
        MEMBER(warder_guard_options, audit);
        MEMBER(warder_guard_options, audit_ud);
        MEMBER(warder_guard_options, env);
        MEMBER(warder_guard_options, approve_ex);
        STRUCT(warder_local_options);
        MEMBER(warder_local_options, version);
        MEMBER(warder_local_options, follow_symlinks);
        MEMBER(warder_local_options, max_read);
        MEMBER(warder_local_options, max_write);
        MEMBER(warder_local_options, grep_max_file);
        MEMBER(warder_local_options, grep_max_matches);
        MEMBER(warder_local_options, grep_skip_binary);
        MEMBER(warder_local_options, force_fallback);
        MEMBER(warder_local_options, exec);
        MEMBER(warder_local_options, exec_env);
        MEMBER(warder_local_options, exec_timeout_ms);
        MEMBER(warder_local_options, exec_max_output);
        MEMBER(warder_local_options, drop_privileges);
        MEMBER(warder_local_options, uid);
        MEMBER(warder_local_options, gid);
        MEMBER(warder_local_options, landlock);
        MEMBER(warder_local_options, landlock_read);
        MEMBER(warder_local_options, landlock_write);
        MEMBER(warder_local_options, mask_denied);
        MEMBER(warder_local_options, mask_budget_ms);
        MEMBER(warder_local_options, mask_budget_entries);
        STRUCT(warder_backend_ops);
        MEMBER(warder_backend_ops, version);
        MEMBER(warder_backend_ops, read);
        MEMBER(warder_backend_ops, write);
        MEMBER(warder_backend_ops, edit);
        MEMBER(warder_backend_ops, ls);
        MEMBER(warder_backend_ops, glob);
        MEMBER(warder_backend_ops, grep);
        MEMBER(warder_backend_ops, execute);
        MEMBER(warder_backend_ops, realpath);
        MEMBER(warder_backend_ops, destroy);
        MEMBER(warder_backend_ops, caps);
        STRUCT(warder_backend);
        MEMBER(warder_backend, ops);
        MEMBER(warder_backend, magic_);
        CONST(WARDER_RULESET_OPTIONS_VERSION);
        CONST(WARDER_GUARD_OPTIONS_VERSION);
        CONST(WARDER_LOCAL_OPTIONS_VERSION);
        CONST(WARDER_GREP_REQUEST_VERSION);
        CONST(WARDER_EXEC_REQUEST_VERSION);
        CONST(WARDER_COMMAND_CONTEXT_VERSION);
        CONST(WARDER_BACKEND_OPS_VERSION);
        CONST(WARDER_APPROVED);
        CONST(WARDER_EDIT_ALL);
        CONST(WARDER_GREP_CASELESS);
        CONST(WARDER_NOFOLLOW);
        CONST(WARDER_GLOB_FOLD_CASE);
        CONST(WARDER_GLOB_COMMAND);
        CONST(WARDER_GLOB_NO_BRACES);
        CONST(WARDER_BACKEND_CAP_REAL_RESULTS);
        CONST(WARDER_BACKEND_CAP_STRICT_NOFOLLOW);
        CONST(WARDER_BACKEND_CAP_GREP_FILTER);
        CONST(WARDER_MASK_HIDE);
        CONST(WARDER_MASK_READONLY);
        CONST(WARDER_APPROVAL_DECLINE);
        CONST(WARDER_APPROVAL_GRANT);
        CONST(WARDER_APPROVAL_DEFER);
        CONST(WARDER_ALLOW);
        CONST(WARDER_ASK);
        CONST(WARDER_DENY);
        CONST(WARDER_OP_READ);
        CONST(WARDER_OP_WRITE);
        CONST(WARDER_OP_EDIT);
        CONST(WARDER_OP_LS);
        CONST(WARDER_OP_GLOB);
        CONST(WARDER_OP_GREP);
        CONST(WARDER_OP_EXECUTE);
        CONST(WARDER_OP_COUNT);
        CONST(WARDER_FORM_NONE);
        CONST(WARDER_FORM_LITERAL);
        CONST(WARDER_FORM_REAL);
        CONST(WARDER_FORM_BOTH);
        CONST(WARDER_FIRST_MATCH);
        CONST(WARDER_STRICTEST);
        CONST(WARDER_ENTRY_FILE);
        CONST(WARDER_ENTRY_DIR);
        CONST(WARDER_ENTRY_SYMLINK);
        CONST(WARDER_ENTRY_OTHER);
        CONST(WARDER_LANDLOCK_OFF);
        CONST(WARDER_LANDLOCK_BEST_EFFORT);
        CONST(WARDER_LANDLOCK_REQUIRED);
        CONST(WARDER_STATUS_MIN);
        UCONST(WARDER_NUL_TERMINATED);
        CONST(WARDER_OK);
        CONST(WARDER_EDENIED);
        CONST(WARDER_EASK);
        CONST(WARDER_ENOTSUP);
        CONST(WARDER_ENOENT);
        CONST(WARDER_EEXIST);
        CONST(WARDER_EINVAL);
        CONST(WARDER_ENOMEM);
        CONST(WARDER_EIO);
        CONST(WARDER_ETOOBIG);
        CONST(WARDER_ENOTREG);
        CONST(WARDER_ESYMLINK);
        CONST(WARDER_EOUTSIDE);
        CONST(WARDER_ETIMEDOUT);
        CONST(WARDER_EPARSE);
        CONST(WARDER_EBACKEND);
        CONST(WARDER_EACCES);
        CONST(WARDER_ENOTDIR);
        CONST(WARDER_EISDIR);
        CONST(WARDER_ENOMATCH);
        CONST(WARDER_EAMBIGUOUS);
        CONST(WARDER_ELIMIT);
        return 0;
}
