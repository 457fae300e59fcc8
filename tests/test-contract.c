/* SPDX-License-Identifier: MIT */
/*
 * The backend contract (tests/contract.h) run against every backend built here: the memory
 * backend (§6.1) rooted below "/" and at "/" itself, and the recording mock over a memory
 * backend (which forwards edit, glob and grep, and has an identity realpath), and a backend
 * with only read, write and ls over a memory backend (edit, glob and grep by fallback).
 * The local backend (§6.2) runs it in a fresh temporary directory, with openat2 and with the
 * O_NOFOLLOW fallback, and — as root — once more acting as the agent (§6.6: a uid that owns
 * the fixture, so the contract holds unchanged under the kernel's permission checks).
 * Guard-wrapped variants join by adding a target.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contract.h"
#include "mock-backend.h"
#include "support.h"
#include "warder/local.h"
#include "warder/memory.h"

static int memory_setup(struct contract_fixture *f, void *ud)
{
        const char *root = ud;
        int rc = warder_memory_new(&f->b, NULL);
        if (rc)
                return rc;
        snprintf(f->root, sizeof(f->root), "%s", root);
        return warder_memory_mkdir(f->b, root, strlen(root), NULL);
}

/* The directory hook, for backends whose write does not create parents. */
static int memory_mkdir_hook(struct contract_fixture *f, const char *path, void *ud)
{
        (void)ud;
        return warder_memory_mkdir(f->b, path, strlen(path), NULL);
}

static int mock_setup_caps(struct contract_fixture *f, void *ud, unsigned caps)
{
        warder_backend *mem = NULL;
        int rc = memory_setup(f, ud);
        if (rc)
                return rc;
        mem = f->b;
        rc = mock_backend_new(&f->b, mem, caps);
        if (rc)
                warder_backend_free(mem);
        return rc;
}

static int mock_setup(struct contract_fixture *f, void *ud)
{
        return mock_setup_caps(f, ud, MOCK_CAN_REALPATH);
}

static int storage_only_setup(struct contract_fixture *f, void *ud)
{
        return mock_setup_caps(f, ud, MOCK_STORAGE_ONLY);
}

/* The local backend in a fresh temporary directory; `ud` non-NULL forces the fallback. */
static int local_setup(struct contract_fixture *f, void *ud)
{
        const char *tmp = getenv("TMPDIR");
        snprintf(f->root, sizeof(f->root), "%s/warder-contract-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(f->root))
                return WARDER_EIO;
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        opts.force_fallback = ud != NULL;
        return warder_local_new(&f->b, f->root, &opts, NULL);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st, (void)type, (void)ftw;
        return remove(path);
}

static void local_teardown(struct contract_fixture *f, void *ud)
{
        (void)ud;
        warder_backend_free(f->b);
        nftw(f->root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int local_mkdir(struct contract_fixture *f, const char *path, void *ud)
{
        (void)f, (void)ud;
        return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : WARDER_EIO;
}

/* Acting as the agent (§6.6): the root and every directory the suite makes belong to it. */
#define AGENT_ID 40001u

static int agent_setup(struct contract_fixture *f, void *ud)
{
        (void)ud;
        const char *tmp = getenv("TMPDIR");
        snprintf(f->root, sizeof(f->root), "%s/warder-contract-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(f->root) || chown(f->root, AGENT_ID, AGENT_ID) != 0)
                return WARDER_EIO;
        struct warder_local_options opts = WARDER_LOCAL_OPTIONS_INIT;
        opts.act_as_agent = true;
        opts.agent_uid = AGENT_ID;
        opts.agent_gid = AGENT_ID;
        return warder_local_new(&f->b, f->root, &opts, NULL);
}

static int agent_mkdir(struct contract_fixture *f, const char *path, void *ud)
{
        int rc = local_mkdir(f, path, ud);
        return rc ? rc : lchown(path, AGENT_ID, AGENT_ID) == 0 ? 0 : WARDER_EIO;
}

static const struct contract_target targets[] = {
    {"memory", memory_setup, NULL, (void *)"/work/space", NULL},
    {"memory-at-root", memory_setup, NULL, (void *)"/", memory_mkdir_hook},
    {"mock-over-memory", mock_setup, NULL, (void *)"/ws", NULL},
    {"fallbacks-over-memory", storage_only_setup, NULL, (void *)"/ws/deep/root", NULL},
    {"local", local_setup, local_teardown, NULL, local_mkdir},
    {"local-nofollow-walk", local_setup, local_teardown, (void *)"fallback", local_mkdir},
    /* last: root only */
    {"local-as-agent", agent_setup, local_teardown, NULL, agent_mkdir},
};

int main(void)
{
        size_t n = sizeof(targets) / sizeof(targets[0]);
        if (geteuid() != 0) {
                fprintf(stderr, "contract: not root, the local-as-agent target is skipped\n");
                n--;
        }
        Suite *s = suite_create("contract");
        suite_add_tcase(s, contract_tcase(targets, n));
        return warder_test_run(s);
}
