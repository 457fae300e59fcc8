/* SPDX-License-Identifier: MIT */
/* The shared decision/result → JSON encoder (see json.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

bool warder_json_utf8_valid(const char *s, size_t len)
{
        const unsigned char *p = (const unsigned char *)s;
        size_t i = 0;
        while (i < len) {
                unsigned char c = p[i];
                if (c < 0x80) {
                        i++;
                        continue;
                }
                size_t n;
                uint32_t cp;
                if (c >= 0xc2 && c <= 0xdf) {
                        n = 2;
                        cp = c & 0x1f;
                } else if (c >= 0xe0 && c <= 0xef) {
                        n = 3;
                        cp = c & 0x0f;
                } else if (c >= 0xf0 && c <= 0xf4) {
                        n = 4;
                        cp = c & 0x07;
                } else {
                        return false;
                }
                if (len - i < n)
                        return false;
                for (size_t k = 1; k < n; k++) {
                        if ((p[i + k] & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (p[i + k] & 0x3f);
                }
                if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
                    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
                        return false;
                i += n;
        }
        return true;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *warder_json_base64_encode(const void *data, size_t len)
{
        const unsigned char *p = data;
        if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
                return NULL;
        char *out = malloc((len + 2) / 3 * 4 + 1);
        if (!out)
                return NULL;
        size_t o = 0, i = 0;
        for (; i + 3 <= len; i += 3) {
                uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
                out[o++] = b64[v >> 18];
                out[o++] = b64[(v >> 12) & 63];
                out[o++] = b64[(v >> 6) & 63];
                out[o++] = b64[v & 63];
        }
        if (len - i == 1) {
                uint32_t v = (uint32_t)p[i] << 16;
                out[o++] = b64[v >> 18];
                out[o++] = b64[(v >> 12) & 63];
                out[o++] = '=';
                out[o++] = '=';
        } else if (len - i == 2) {
                uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
                out[o++] = b64[v >> 18];
                out[o++] = b64[(v >> 12) & 63];
                out[o++] = b64[(v >> 6) & 63];
                out[o++] = '=';
        }
        out[o] = '\0';
        return out;
}

static int b64_value(unsigned char c)
{
        const char *hit = c ? strchr(b64, c) : NULL;
        return hit ? (int)(hit - b64) : -1;
}

int warder_json_base64_decode(const char *text, size_t len, char **out, size_t *out_len)
{
        if (len % 4)
                return -1;
        size_t pad = 0;
        if (len && text[len - 1] == '=')
                pad = len >= 2 && text[len - 2] == '=' ? 2 : 1;
        char *buf = malloc(len / 4 * 3 + 1);
        if (!buf)
                return -1;
        size_t o = 0;
        for (size_t i = 0; i < len; i += 4) {
                bool last = i + 4 == len;
                int v[4];
                for (int k = 0; k < 4; k++) {
                        bool padded = last && k >= 4 - (int)pad;
                        v[k] = padded ? 0 : b64_value((unsigned char)text[i + (size_t)k]);
                        if (v[k] < 0) {
                                free(buf);
                                return -1;
                        }
                }
                uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
                             (uint32_t)v[3];
                /* canonical: the bits that padding drops must be zero */
                if (last && ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))) {
                        free(buf);
                        return -1;
                }
                buf[o++] = (char)(w >> 16);
                if (!last || pad < 2)
                        buf[o++] = (char)(w >> 8);
                if (!last || pad < 1)
                        buf[o++] = (char)w;
        }
        buf[o] = '\0';
        *out = buf;
        *out_len = o;
        return 0;
}

json_t *warder_json_bytes(const char *data, size_t len)
{
        if (!data)
                data = "";
        if (warder_json_utf8_valid(data, len))
                return json_stringn(data, len);
        char *text = warder_json_base64_encode(data, len);
        if (!text)
                return NULL;
        json_t *o = json_pack("{s:s,s:s}", "encoding", "base64", "data", text);
        free(text);
        return o;
}

json_t *warder_json_str(const char *s)
{
        return s ? warder_json_bytes(s, strlen(s)) : json_null();
}

int warder_json_get_bytes(const json_t *v, const char **data, size_t *len, char **owned,
                          const char **why)
{
        *owned = NULL;
        if (json_is_string(v)) {
                *data = json_string_value(v);
                *len = json_string_length(v);
                return 0;
        }
        if (!json_is_object(v)) {
                *why = "expected a string or an object {\"encoding\":\"base64\",\"data\":…}";
                return -1;
        }
        const json_t *enc = json_object_get(v, "encoding");
        const json_t *text = json_object_get(v, "data");
        if (json_object_size(v) != 2 || !json_is_string(enc) || !json_is_string(text) ||
            strcmp(json_string_value(enc), "base64") != 0) {
                *why = "a bytes object has exactly \"encoding\":\"base64\" and \"data\"";
                return -1;
        }
        if (warder_json_base64_decode(json_string_value(text), json_string_length(text), owned,
                                      len)) {
                *why = "\"data\" is not canonical base64";
                return -1;
        }
        *data = *owned;
        return 0;
}

void warder_json_set(json_t *obj, const char *key, json_t *v, bool *failed)
{
        if (!v || json_object_set_new(obj, key, v))
                *failed = true;
}

static json_t *rule_object(const char *id, size_t index, const char *pattern, const char *reason,
                           const char *file, unsigned line, unsigned column)
{
        json_t *o = json_object();
        bool bad = !o;
        if (o) {
                warder_json_set(o, "id", warder_json_str(id), &bad);
                warder_json_set(o, "index", json_integer((json_int_t)index), &bad);
                warder_json_set(o, "pattern", warder_json_str(pattern), &bad);
                warder_json_set(o, "reason", warder_json_str(reason), &bad);
                warder_json_set(o, "file", warder_json_str(file), &bad);
                warder_json_set(o, "line", json_integer(line), &bad);
                warder_json_set(o, "column", json_integer(column), &bad);
        }
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *warder_json_decision(const struct warder_decision *d)
{
        json_t *o = json_object();
        bool bad = !o;
        if (!o)
                return NULL;
        warder_json_set(o, "action", json_string(warder_action_name(d->action)), &bad);
        warder_json_set(o, "op", json_string(warder_op_name(d->op)), &bad);
        warder_json_set(o, "by_default", json_boolean(d->by_default), &bad);
        warder_json_set(o, "form",
                        d->by_default ? json_null() : json_string(warder_form_name(d->form)), &bad);
        warder_json_set(o, "rule",
                        d->by_default || !d->rule_id
                            ? json_null()
                            : rule_object(d->rule_id, d->rule_index, d->pattern, d->reason, d->file,
                                          d->line, d->column),
                        &bad);
        warder_json_set(o, "segment", warder_json_str(d->segment), &bad);
        warder_json_set(o, "candidate", warder_json_str(d->candidate), &bad);
        warder_json_set(o, "candidate_op",
                        d->candidate ? json_string(warder_op_name(d->candidate_op)) : json_null(),
                        &bad);
        warder_json_set(o, "undeterminable", json_boolean(d->undeterminable), &bad);
        warder_json_set(o, "note", warder_json_str(d->note), &bad);
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *warder_json_explanation(const char *target, const struct warder_explanation *ex)
{
        json_t *o = json_object(), *matches = json_array();
        bool bad = !o || !matches;
        if (bad) {
                json_decref(o);
                json_decref(matches);
                return NULL;
        }
        for (size_t i = 0; i < ex->count && !bad; i++) {
                const struct warder_rule_info *r = &ex->matches[i].rule;
                json_t *m = json_object();
                bad = !m;
                if (m) {
                        warder_json_set(m, "id", warder_json_str(r->id), &bad);
                        warder_json_set(m, "index", json_integer((json_int_t)r->index), &bad);
                        warder_json_set(m, "action", json_string(warder_action_name(r->action)),
                                        &bad);
                        warder_json_set(m, "pattern", warder_json_str(r->pattern), &bad);
                        warder_json_set(m, "reason", warder_json_str(r->reason), &bad);
                        warder_json_set(m, "file", warder_json_str(r->file), &bad);
                        warder_json_set(m, "line", json_integer(r->line), &bad);
                        warder_json_set(m, "column", json_integer(r->column), &bad);
                        warder_json_set(m, "form",
                                        json_string(warder_form_name(ex->matches[i].form)), &bad);
                }
                if (!m || json_array_append_new(matches, m))
                        bad = true;
        }
        warder_json_set(o, "target", warder_json_str(target), &bad);
        warder_json_set(o, "op", json_string(warder_op_name(ex->op)), &bad);
        warder_json_set(o, "literal", warder_json_str(ex->literal), &bad);
        warder_json_set(o, "real", warder_json_str(ex->real), &bad);
        warder_json_set(o, "matches", matches, &bad);
        warder_json_set(o, "decision", warder_json_decision(&ex->decision), &bad);
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

int warder_json_put_entries(json_t *obj, const struct warder_entries *e)
{
        static const char *const types[] = {"file", "dir", "symlink", "other"};
        json_t *arr = json_array();
        bool bad = !arr;
        for (size_t i = 0; arr && i < e->count && !bad; i++) {
                const struct warder_entry *it = &e->items[i];
                json_t *m = json_object();
                bad = !m;
                if (m) {
                        warder_json_set(m, "name", warder_json_str(it->name), &bad);
                        warder_json_set(m, "path", warder_json_str(it->path), &bad);
                        warder_json_set(
                            m, "type",
                            json_string(types[it->type <= WARDER_ENTRY_OTHER ? it->type : 3]),
                            &bad);
                        warder_json_set(m, "size", json_integer((json_int_t)it->size), &bad);
                        warder_json_set(m, "mtime", json_integer((json_int_t)it->mtime), &bad);
                }
                if (!m || json_array_append_new(arr, m))
                        bad = true;
        }
        warder_json_set(obj, "entries", arr, &bad);
        warder_json_set(obj, "hidden", json_integer((json_int_t)e->hidden), &bad);
        return bad ? -1 : 0;
}

int warder_json_put_grep(json_t *obj, const struct warder_grep_result *g)
{
        json_t *arr = json_array();
        bool bad = !arr;
        for (size_t i = 0; arr && i < g->count && !bad; i++) {
                const struct warder_grep_match *m = &g->items[i];
                json_t *o = json_object();
                bad = !o;
                if (o) {
                        warder_json_set(o, "path", warder_json_str(m->path), &bad);
                        warder_json_set(o, "line", json_integer((json_int_t)m->line), &bad);
                        warder_json_set(o, "text", warder_json_bytes(m->text, m->text_len), &bad);
                }
                if (!o || json_array_append_new(arr, o))
                        bad = true;
        }
        warder_json_set(obj, "matches", arr, &bad);
        warder_json_set(obj, "hidden_files", json_integer((json_int_t)g->hidden_files), &bad);
        warder_json_set(obj, "truncated", json_boolean(g->truncated), &bad);
        return bad ? -1 : 0;
}

int warder_json_put_read(json_t *obj, const struct warder_bytes *b)
{
        bool bad = false;
        warder_json_set(obj, "content", warder_json_bytes(b->data, b->len), &bad);
        warder_json_set(obj, "bytes", json_integer((json_int_t)b->len), &bad);
        warder_json_set(obj, "truncated", json_boolean(b->truncated), &bad);
        return bad ? -1 : 0;
}

int warder_json_put_exec(json_t *obj, const struct warder_exec_result *r)
{
        bool bad = false;
        bool exited = r->exit_status >= 0 && !r->signal;
        warder_json_set(obj, "exit_status", exited ? json_integer(r->exit_status) : json_null(),
                        &bad);
        warder_json_set(obj, "signal", r->signal ? json_integer(r->signal) : json_null(), &bad);
        warder_json_set(obj, "timed_out", json_boolean(r->timed_out), &bad);
        warder_json_set(obj, "cancelled", json_boolean(r->cancelled), &bad);
        warder_json_set(obj, "stdout", warder_json_bytes(r->out.data, r->out.len), &bad);
        warder_json_set(obj, "stderr", warder_json_bytes(r->err.data, r->err.len), &bad);
        warder_json_set(obj, "stdout_truncated", json_boolean(r->out.truncated), &bad);
        warder_json_set(obj, "stderr_truncated", json_boolean(r->err.truncated), &bad);
        warder_json_set(obj, "landlock_applied", json_boolean(r->landlock_applied), &bad);
        warder_json_set(obj, "masked", json_boolean(r->masked), &bad);
        return bad ? -1 : 0;
}

json_t *warder_json_error(int status, const char *message)
{
        json_t *o = json_object();
        bool bad = !o;
        if (o) {
                warder_json_set(o, "code", json_string(warder_status_name(status)), &bad);
                warder_json_set(
                    o, "message",
                    warder_json_str(message && *message ? message : warder_strerror(status)), &bad);
        }
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *warder_json_audit(const struct warder_audit_event *ev, const struct timespec *when)
{
        json_t *o = json_object();
        bool bad = !o;
        if (!o)
                return NULL;
        double t = (double)when->tv_sec + (double)(when->tv_nsec / 1000000) / 1000.0;
        warder_json_set(o, "time", json_real(t), &bad);
        warder_json_set(o, "op", json_string(warder_op_name(ev->request->op)), &bad);
        warder_json_set(o, "target", warder_json_str(ev->request->target), &bad);
        warder_json_set(o, "literal", warder_json_str(ev->request->literal), &bad);
        warder_json_set(o, "real", warder_json_str(ev->request->real), &bad);
        warder_json_set(o, "action", json_string(warder_action_name(ev->decision->action)), &bad);
        warder_json_set(o, "final_action", json_string(warder_action_name(ev->final_action)), &bad);
        warder_json_set(o, "approval_asked", json_boolean(ev->approval_asked), &bad);
        warder_json_set(o, "approved", json_boolean(ev->approved), &bad);
        warder_json_set(o, "filtered", json_boolean(ev->filtered), &bad);
        warder_json_set(o, "decision", warder_json_decision(ev->decision), &bad);
        if (bad) {
                json_decref(o);
                return NULL;
        }
        return o;
}

char *warder_json_line(const json_t *v, size_t *len)
{
        /* 15 significant digits print a millisecond time as written (1712345678.123). */
        char *text = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY);
        if (!text)
                return NULL;
        size_t n = strlen(text);
        char *line = realloc(text, n + 2);
        if (!line) {
                free(text);
                return NULL;
        }
        line[n] = '\n';
        line[n + 1] = '\0';
        if (len)
                *len = n + 1;
        return line;
}

int warder_json_write(FILE *f, const json_t *v)
{
        size_t n = 0;
        char *line = warder_json_line(v, &n);
        if (!line)
                return -1;
        int rc = fwrite(line, 1, n, f) == n ? 0 : -1;
        free(line);
        return rc;
}
