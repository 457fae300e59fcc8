/* SPDX-License-Identifier: MIT */
/*
 * The backend contract (tests/contract.h) run against every backend built here: the memory
 * backend (§6.1) rooted below "/" and at "/" itself, and the recording mock over a memory
 * backend (which forwards edit, glob and grep, and has an identity realpath), and a backend
 * with only read, write and ls over a memory backend (edit, glob and grep by fallback).
 * Other backends and guard-wrapped variants join by adding a target.
 */
#include <stdio.h>

#include "contract.h"
#include "mock-backend.h"
#include "support.h"
#include "warder/memory.h"

static int memory_setup(struct contract_fixture *f, void *ud)
{
        const char *root = ud;
        int rc = warder_memory_new(&f->b, NULL);
        if (rc)
                return rc;
        snprintf(f->root, sizeof(f->root), "%s", root);
        return warder_memory_mkdir(f->b, root, NULL);
}

/* The directory hook, for backends whose write does not create parents. */
static int memory_mkdir_hook(struct contract_fixture *f, const char *path, void *ud)
{
        (void)ud;
        return warder_memory_mkdir(f->b, path, NULL);
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

static const struct contract_target targets[] = {
    {"memory", memory_setup, NULL, (void *)"/work/space", NULL},
    {"memory-at-root", memory_setup, NULL, (void *)"/", memory_mkdir_hook},
    {"mock-over-memory", mock_setup, NULL, (void *)"/ws", NULL},
    {"fallbacks-over-memory", storage_only_setup, NULL, (void *)"/ws/deep/root", NULL},
};

int main(void)
{
        Suite *s = suite_create("contract");
        suite_add_tcase(s, contract_tcase(targets, sizeof(targets) / sizeof(targets[0])));
        return warder_test_run(s);
}
