/* SPDX-License-Identifier: MIT */
/* Cancellation flags for running operations: an atomic flag and an eventfd to poll on. */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "warder/backend.h"

struct warder_cancel {
        atomic_bool raised;
        int fd;
};

WARDER_API int warder_cancel_new(warder_cancel **out)
{
        if (!out)
                return WARDER_EINVAL;
        warder_cancel *c = malloc(sizeof(*c));
        if (!c)
                return WARDER_ENOMEM;
        atomic_init(&c->raised, false);
        c->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (c->fd < 0) {
                int e = errno;
                free(c);
                return e == ENOMEM ? WARDER_ENOMEM : WARDER_EIO;
        }
        *out = c;
        return 0;
}

WARDER_API void warder_cancel_trigger(warder_cancel *c)
{
        if (!c)
                return;
        atomic_store(&c->raised, true);
        uint64_t one = 1;
        /* The counter is never read, so the descriptor stays readable from now on. */
        while (write(c->fd, &one, sizeof(one)) < 0 && errno == EINTR)
                ;
}

WARDER_API bool warder_cancel_triggered(const warder_cancel *c)
{
        return c && atomic_load(&((warder_cancel *)c)->raised);
}

WARDER_API int warder_cancel_fd(const warder_cancel *c)
{
        return c ? c->fd : -1;
}

WARDER_API void warder_cancel_free(warder_cancel *c)
{
        if (!c)
                return;
        close(c->fd);
        free(c);
}
