/* SPDX-License-Identifier: MIT */
/*
 * The one encoder of decisions and results into JSON (jansson), shared by the CLI's --json,
 * the audit log and the servers, so that every door speaks the same format.
 *
 * Bytes (file contents, names, grep lines, command output, anything a file system or a
 * command produced) are carried losslessly: a JSON string when they are valid UTF-8, else an
 * object {"encoding":"base64","data":"…"} (RFC 4648 base64 with padding). Never a lossy
 * decode. Requests accept the same two forms wherever they take bytes.
 *
 * Every builder returns a new reference, or NULL when memory ran out.
 */
#ifndef WARDER_JSON_H
#define WARDER_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "warder/warder.h"

/* True when the `len` bytes at `s` are valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
bool warder_json_utf8_valid(const char *s, size_t len);

/* Base64 (RFC 4648 section 4, padded). encode: a NUL-terminated string to free(), NULL on
 * ENOMEM. decode: strict (no blanks, canonical padding and trailing bits); -1 when malformed
 * or on ENOMEM. */
char *warder_json_base64_encode(const void *data, size_t len);
int warder_json_base64_decode(const char *text, size_t len, char **out, size_t *out_len);

/* A bytes value: a string, or {"encoding":"base64","data":…}. */
json_t *warder_json_bytes(const char *data, size_t len);
/* A NUL-terminated string as a bytes value; NULL gives JSON null. */
json_t *warder_json_str(const char *s);

/*
 * Reads a bytes value. On success *data and *len point into `v` or into *owned (free() it; NULL
 * when nothing was allocated) and the result is NUL-terminated. Returns 0, or -1 with *why
 * set to a static reason ("expected a string or a base64 object", …).
 */
int warder_json_get_bytes(const json_t *v, const char **data, size_t *len, char **owned,
                          const char **why);

/* A decision: {"action","op","by_default","form","rule":{…}|null,"segment","candidate",
 * "candidate_op","undeterminable","note"}. */
json_t *warder_json_decision(const struct warder_decision *d);

/* An explanation: {"target","op","literal","real","matches":[…],"decision"}. */
json_t *warder_json_explanation(const char *target, const struct warder_explanation *ex);

/* {"entries":[{"name","path","type","size","mtime"}…],"hidden"} into `obj`. */
int warder_json_put_entries(json_t *obj, const struct warder_entries *e);
/* {"matches":[{"path","line","text"}…],"hidden_files","truncated"} into `obj`. */
int warder_json_put_grep(json_t *obj, const struct warder_grep_result *g);
/* "content","bytes","truncated" of a read into `obj`. */
int warder_json_put_read(json_t *obj, const struct warder_bytes *b);
/* How a command ended, in fields of their own: "exit_status" (null unless it exited),
 * "signal" (null unless killed), "timed_out", "cancelled", "stdout", "stderr",
 * "stdout_truncated", "stderr_truncated", "landlock_applied", "masked". */
int warder_json_put_exec(json_t *obj, const struct warder_exec_result *r);

/* A failure: {"code":"WARDER_EDENIED","message":…} ("code" is warder_status_name()). */
json_t *warder_json_error(int status, const char *message);

/* One audit line's object: {"time","op","target","literal","real","action","final_action",
 * "approval_asked","approved","filtered","decision"}. */
json_t *warder_json_audit(const struct warder_audit_event *ev, const struct timespec *when);

/* Compact one-line text of `v` followed by "\n" (free()); NULL on ENOMEM. */
char *warder_json_line(const json_t *v, size_t *len);
/* Writes warder_json_line(v) to `f`; -1 on ENOMEM or a write error. */
int warder_json_write(FILE *f, const json_t *v);

/* Sets obj[key] to `v` (stolen); a NULL `v` or a failed set marks *failed. */
void warder_json_set(json_t *obj, const char *key, json_t *v, bool *failed);

#endif
