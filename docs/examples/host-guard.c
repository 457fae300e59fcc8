/* SPDX-License-Identifier: MIT */
/* A host: a local backend under a workspace, guarded by a ruleset, handed to the tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <warder/warder.h>

static const char rules[] = "warder: 1\n"
                            "default: ask\n"
                            "read:\n"
                            "  default: allow\n"
                            "  rules:\n"
                            "    - deny: '**/.env'\n"
                            "      reason: secrets stay out of the model's context\n"
                            "write:\n"
                            "  default: deny\n"
                            "  rules:\n"
                            "    - allow: 'notes/**'\n";

/* The host's approval prompt: here, approve nothing. */
static bool approve(void *ud, const struct warder_guard_request *req,
                    const struct warder_decision *d)
{
        (void)ud;
        (void)d;
        printf("asked about %s %s\n", warder_op_name(req->op), req->literal);
        return false;
}

static int run(const char *workspace)
{
        struct warder_error err = WARDER_ERROR_INIT;
        struct warder_ruleset_options ropts = WARDER_RULESET_OPTIONS_INIT;
        ropts.root = workspace;
        warder_ruleset *rs = NULL;
        if (warder_ruleset_load_string(&rs, rules, strlen(rules), "host-rules", &ropts, &err)) {
                fprintf(stderr, "%s:%u:%u: %s\n", err.file, err.line, err.column, err.message);
                return 1;
        }
        warder_backend *local = NULL, *guard = NULL;
        struct warder_guard_options gopts = WARDER_GUARD_OPTIONS_INIT;
        gopts.approve = approve;
        if (warder_local_new(&local, workspace, NULL, &err) ||
            warder_guard_new(&guard, local, rs, &gopts, &err)) {
                fprintf(stderr, "%s\n", err.message);
                warder_backend_free(local); /* the guard owns `local` only on success */
                warder_ruleset_free(rs);
                return 1;
        }
        warder_ruleset_free(rs); /* the guard holds its own reference */

        /* Every tool gets `guard`, never `local`. */
        const char note[] = "remember the milk\n";
        int failures = 0;
        int rc = warder_backend_write(guard, "notes/todo.txt", 14, note, sizeof(note) - 1, 0, &err);
        printf("write notes/todo.txt: %s\n", warder_strerror(rc));
        failures += rc != 0;

        struct warder_bytes bytes = WARDER_BYTES_INIT;
        rc = warder_backend_read(&bytes, guard, ".env", 4, 0, 0, 0, &err);
        printf("read .env: %s", warder_strerror(rc));
        if (rc == WARDER_EDENIED)
                printf(" (rule %s: %s)", err.decision->rule_id, err.decision->reason);
        printf("\n");
        failures += rc != WARDER_EDENIED;
        warder_error_clear(&err);
        warder_bytes_free(&bytes);

        rc = warder_backend_write(guard, "src/main.c", 10, "x", 1, 0, &err);
        printf("write src/main.c: %s\n", warder_strerror(rc));
        failures += rc != WARDER_EDENIED;
        warder_error_clear(&err);

        warder_backend_free(guard); /* frees `local` too */
        return failures != 0;
}

int main(void)
{
        char dir[] = "/tmp/warder-host.XXXXXX";
        if (!mkdtemp(dir))
                return 1;
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/notes && echo 'TOKEN=1' > %s/.env", dir, dir);
        int rc = system(cmd) == 0 ? run(dir) : 1;
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                rc = 1;
        return rc;
}
