/* SPDX-License-Identifier: MIT */
/*
 * The doors' core below warder serve (docs/serve.md): the JSON encoder's bytes values, the
 * JSON-RPC layer's requests to the peer (what the MCP server's elicitation will use), and
 * the approval store's limits.
 */
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json/json.h"
#include "rpc/rpc.h"
#include "session/approval.h"
#include "support.h"

/* ---- bytes values ------------------------------------------------------------------------ */

START_TEST(base64_vectors)
{
        /* RFC 4648 section 10 */
        static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
        static const char *const coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                            "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
        for (size_t i = 0; i < 7; i++) {
                char *e = warder_json_base64_encode(plain[i], strlen(plain[i]));
                ck_assert_str_eq(e, coded[i]);
                free(e);
                char *d = NULL;
                size_t n = 0;
                ck_assert_int_eq(warder_json_base64_decode(coded[i], strlen(coded[i]), &d, &n), 0);
                ck_assert_uint_eq(n, strlen(plain[i]));
                ck_assert(memcmp(d, plain[i], n) == 0);
                free(d);
        }
        /* every byte value round-trips */
        unsigned char all[256];
        for (int i = 0; i < 256; i++)
                all[i] = (unsigned char)i;
        char *e = warder_json_base64_encode(all, sizeof(all));
        char *d = NULL;
        size_t n = 0;
        ck_assert_int_eq(warder_json_base64_decode(e, strlen(e), &d, &n), 0);
        ck_assert_uint_eq(n, 256);
        ck_assert(memcmp(d, all, 256) == 0);
        free(e);
        free(d);
        /* strict: no missing padding, blanks, other alphabets or non-zero dropped bits */
        static const char *const bad[] = {
            "Zg", "Zg=", "Zg===", "Z g=", "Zh==", "Zm9=", "Zm-v", "Zm_v", "=Zm9", "Zg==Zg=="};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                ck_assert_msg(warder_json_base64_decode(bad[i], strlen(bad[i]), &d, &n) == -1, "%s",
                              bad[i]);
}
END_TEST

START_TEST(utf8_and_bytes_values)
{
        struct {
                const char *s;
                bool ok;
        } cases[] = {
            {"plain", true},
            {"caf\xc3\xa9", true},
            {"\xe2\x98\x83", true},
            {"\xf0\x9f\x98\x80", true},
            {"\xc3", false},
            {"\xc0\xaf", false},
            {"\xe0\x80\xaf", false},
            {"\xed\xa0\x80", false},
            {"\xf4\x90\x80\x80", false},
            {"\xff", false},
            {"a\x80", false},
            {"\xf0\x9f\x98", false},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                ck_assert_msg(warder_json_utf8_valid(cases[i].s, strlen(cases[i].s)) == cases[i].ok,
                              "case %zu", i);
        /* text stays text (NUL included), anything else becomes a base64 object */
        json_t *v = warder_json_bytes("a\0b", 3);
        ck_assert(json_is_string(v));
        ck_assert_uint_eq(json_string_length(v), 3);
        json_decref(v);
        v = warder_json_bytes("\xff\xfe", 2);
        ck_assert(json_is_object(v));
        ck_assert_str_eq(json_string_value(json_object_get(v, "encoding")), "base64");
        ck_assert_str_eq(json_string_value(json_object_get(v, "data")), "//4=");
        const char *data = NULL, *why = NULL;
        size_t len = 0;
        char *owned = NULL;
        ck_assert_int_eq(warder_json_get_bytes(v, &data, &len, &owned, &why), 0);
        ck_assert_uint_eq(len, 2);
        ck_assert(memcmp(data, "\xff\xfe", 2) == 0);
        free(owned);
        json_decref(v);
        v = json_pack("{s:s,s:s}", "encoding", "hex", "data", "ff");
        ck_assert_int_eq(warder_json_get_bytes(v, &data, &len, &owned, &why), -1);
        ck_assert_ptr_nonnull(why);
        json_decref(v);
        v = json_integer(3);
        ck_assert_int_eq(warder_json_get_bytes(v, &data, &len, &owned, &why), -1);
        json_decref(v);
}
END_TEST

/* ---- requests to the peer ---------------------------------------------------------------- */

static void h_echo(struct warder_rpc_call *call, json_t *params, void *ud)
{
        (void)ud;
        warder_rpc_result(call, json_incref(params));
}

/* Asks the peer "confirm" and answers with what the peer said. */
static void h_ask_peer(struct warder_rpc_call *call, json_t *params, void *ud)
{
        (void)ud;
        json_t *t = json_object_get(params, "timeout_ms");
        json_t *result = NULL, *error = NULL;
        int rc = warder_rpc_request(call, "confirm", json_pack("{s:s}", "question", "ok?"),
                                    t ? (int)json_integer_value(t) : 0, &result, &error);
        if (rc == 0)
                warder_rpc_result(call, json_pack("{s:s,s:o}", "peer", "result", "value", result));
        else if (rc == 1)
                warder_rpc_result(call, json_pack("{s:s,s:o}", "peer", "error", "value", error));
        else
                warder_rpc_result(call, json_pack("{s:s}", "peer", "none"));
}

static void h_silent(struct warder_rpc_call *call, json_t *params, void *ud)
{
        (void)call;
        (void)params;
        (void)ud;
}

static const struct warder_rpc_method methods[] = {
    {"echo", h_echo, WARDER_RPC_INLINE},
    {"ask", h_ask_peer, WARDER_RPC_THREAD},
    {"silent", h_silent, WARDER_RPC_INLINE},
};

struct peer {
        int to, from; /* our ends */
        pthread_t server;
        struct warder_rpc *rpc;
        FILE *in;
};

static void *serve_thread(void *arg)
{
        struct peer *p = arg;
        warder_rpc_run(p->rpc);
        return NULL;
}

static void peer_start(struct peer *p)
{
        int a[2], b[2];
        ck_assert_int_eq(pipe2(a, O_CLOEXEC), 0);
        ck_assert_int_eq(pipe2(b, O_CLOEXEC), 0);
        struct warder_rpc_config cfg = {
            .in_fd = a[0], .out_fd = b[1], .methods = methods, .nmethods = 3};
        ck_assert_int_eq(warder_rpc_new(&p->rpc, &cfg), 0);
        p->to = a[1];
        p->from = b[0];
        p->in = fdopen(b[0], "r");
        ck_assert_int_eq(pthread_create(&p->server, NULL, serve_thread, p), 0);
}

static void peer_send(struct peer *p, const char *line)
{
        ck_assert_int_eq(write(p->to, line, strlen(line)), (ssize_t)strlen(line));
}

static json_t *peer_read(struct peer *p)
{
        char line[4096];
        ck_assert_ptr_nonnull(fgets(line, sizeof(line), p->in));
        json_t *v = json_loads(line, 0, NULL);
        ck_assert_ptr_nonnull(v);
        return v;
}

START_TEST(requests_to_the_peer)
{
        struct peer p;
        peer_start(&p);
        /* a plain inline call */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":1}}\n");
        json_t *v = peer_read(&p);
        ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(v, "result"), "a")), 1);
        json_decref(v);
        /* a thread asks the peer; the peer answers; the call answers with that */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ask\"}\n");
        json_t *q = peer_read(&p);
        ck_assert_str_eq(json_string_value(json_object_get(q, "method")), "confirm");
        const char *qid = json_string_value(json_object_get(q, "id"));
        ck_assert_ptr_nonnull(qid);
        char answer[256];
        /* an answer to an id nobody asked for is ignored */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":\"nobody\",\"result\":{}}\n");
        snprintf(answer, sizeof(answer),
                 "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"accept\"}}\n", qid);
        json_decref(q);
        peer_send(&p, answer);
        v = peer_read(&p);
        json_t *r = json_object_get(v, "result");
        ck_assert_str_eq(json_string_value(json_object_get(r, "peer")), "result");
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "value"), "action")),
                         "accept");
        json_decref(v);
        /* the peer answers with an error */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ask\"}\n");
        q = peer_read(&p);
        snprintf(answer, sizeof(answer),
                 "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"error\":{\"code\":-1,\"message\":\"no\"}}\n",
                 json_string_value(json_object_get(q, "id")));
        json_decref(q);
        peer_send(&p, answer);
        v = peer_read(&p);
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "result"), "peer")),
                         "error");
        json_decref(v);
        /* no answer within the timeout */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ask\",\"params\":{\"timeout_ms\":"
                      "200}}\n");
        q = peer_read(&p);
        json_decref(q);
        v = peer_read(&p);
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "result"), "peer")),
                         "none");
        json_decref(v);
        /* a cancelled call stops waiting */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ask\"}\n");
        q = peer_read(&p);
        json_decref(q);
        json_t *id5 = json_integer(5);
        ck_assert_int_eq(warder_rpc_cancel(p.rpc, id5), 1);
        json_decref(id5);
        v = peer_read(&p);
        ck_assert_int_eq(json_integer_value(json_object_get(v, "id")), 5);
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "result"), "peer")),
                         "none");
        json_decref(v);
        /* a method that forgets to answer gets an internal error */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"silent\"}\n");
        v = peer_read(&p);
        ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(v, "error"), "code")),
                         WARDER_RPC_INTERNAL_ERROR);
        json_decref(v);
        /* end of input while a thread waits for the peer: it gives up, run() returns */
        peer_send(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ask\"}\n");
        q = peer_read(&p);
        json_decref(q);
        close(p.to);
        v = peer_read(&p);
        ck_assert_int_eq(json_integer_value(json_object_get(v, "id")), 7);
        json_decref(v);
        pthread_join(p.server, NULL);
        warder_rpc_free(p.rpc);
        fclose(p.in);
}
END_TEST

/* ---- the approval store ------------------------------------------------------------------ */

START_TEST(approval_store_limits)
{
        struct warder_approvals a;
        ck_assert_int_eq(warder_approvals_init(&a, 60000, 3, 1 << 20, false), 0);
        struct warder_approval_key k = {WARDER_OP_READ, "/w/a", "/w/a", "sha256:x", NULL, 0};
        char *t[4];
        for (int i = 0; i < 4; i++) {
                t[i] = warder_approvals_issue(&a, &k);
                ck_assert_ptr_nonnull(t[i]);
                ck_assert_uint_eq(strlen(t[i]), 4 + 32);
        }
        /* three are kept: the oldest made room */
        ck_assert_uint_eq(a.count, 3);
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, t[0], &k));
        for (int i = 1; i < 4; i++)
                ck_assert_ptr_null(warder_approvals_redeem(&a, t[i], &k));
        ck_assert_uint_eq(a.count, 0);
        ck_assert_uint_eq(a.bytes, 0);
        /* the byte budget: a binding too large for it gets no token at all */
        char big[2048];
        memset(big, 'x', sizeof(big));
        struct warder_approval_key kb = k;
        kb.binding = big;
        kb.binding_len = sizeof(big);
        warder_approvals_fini(&a);
        ck_assert_int_eq(warder_approvals_init(&a, 60000, 100, 1024, false), 0);
        ck_assert_ptr_null(warder_approvals_issue(&a, &kb));
        warder_approvals_fini(&a);
        for (int i = 0; i < 4; i++)
                free(t[i]);
        /* stateless: any change to the spelled-out binding is another request */
        ck_assert_int_eq(warder_approvals_init(&a, 60000, 0, 0, true), 0);
        char *s = warder_approvals_issue(&a, &k);
        ck_assert_ptr_nonnull(s);
        ck_assert_ptr_null(warder_approvals_redeem(&a, s, &k));
        ck_assert_ptr_null(warder_approvals_redeem(&a, s, &k)); /* not single-use */
        struct warder_approval_key other = k;
        other.real = "/w/b";
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, s, &other));
        other = k;
        other.digest = "sha256:y";
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, s, &other));
        s[strlen(s) - 1] = s[strlen(s) - 1] == '0' ? '1' : '0';
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, s, &k));
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, "wa1_zz", &k));
        ck_assert_ptr_nonnull(warder_approvals_redeem(&a, "", &k));
        free(s);
        warder_approvals_fini(&a);
}
END_TEST

int main(void)
{
        Suite *s = suite_create("rpc");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, base64_vectors);
        tcase_add_test(tc, utf8_and_bytes_values);
        tcase_add_test(tc, requests_to_the_peer);
        tcase_add_test(tc, approval_store_limits);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
