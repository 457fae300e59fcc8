/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "warder/ruleset.h"

WARDER_API void warder_decision_clear(struct warder_decision *d)
{
        if (!d || d->version != WARDER_DECISION_VERSION)
                return; /* a layout this library does not know: never written */
        free(d->owned_);
        *d = (struct warder_decision)WARDER_DECISION_INIT;
}

/* The strings a decision may point at, in one place so copy cannot miss one. */
#define DECISION_STRINGS(X)                                                                        \
        X(rule_id)                                                                                 \
        X(pattern)                                                                                 \
        X(reason)                                                                                  \
        X(file)                                                                                    \
        X(segment)                                                                                 \
        X(candidate)                                                                               \
        X(note)

WARDER_API int warder_decision_copy(struct warder_decision *dst, const struct warder_decision *src)
{
        if (!dst || !src || dst->version != WARDER_DECISION_VERSION ||
            src->version != WARDER_DECISION_VERSION)
                return WARDER_EINVAL;
        size_t total = 0;
#define SIZE_OF(f) total += src->f ? strlen(src->f) + 1 : 0;
        DECISION_STRINGS(SIZE_OF)
#undef SIZE_OF
        char *block = NULL;
        if (total && !(block = malloc(total)))
                return WARDER_ENOMEM;
        struct warder_decision copy = *src;
        copy.owned_ = block;
        char *p = block;
#define COPY_OF(f)                                                                                 \
        if (src->f) {                                                                              \
                size_t n = strlen(src->f) + 1;                                                     \
                memcpy(p, src->f, n);                                                              \
                copy.f = p;                                                                        \
                p += n;                                                                            \
        }
        DECISION_STRINGS(COPY_OF)
#undef COPY_OF
        *dst = copy;
        return 0;
}

static const char *const action_names[] = {"allow", "ask", "deny"};
const char *const warder__op_names[WARDER_OP_COUNT] = {"read", "write", "edit",   "ls",
                                                       "glob", "grep",  "execute"};
static const char *const form_names[] = {"default", "literal", "real", "both"};

WARDER_API const char *warder_action_name(enum warder_action action)
{
        return (unsigned)action < WARDER__ARRAY_SIZE(action_names) ? action_names[action] : "?";
}

WARDER_API const char *warder_op_name(enum warder_op op)
{
        return (unsigned)op < WARDER_OP_COUNT ? warder__op_names[op] : "?";
}

WARDER_API const char *warder_form_name(enum warder_form form)
{
        return (unsigned)form < WARDER__ARRAY_SIZE(form_names) ? form_names[form] : "?";
}

WARDER_API int warder_action_parse(const char *name, enum warder_action *out)
{
        for (size_t i = 0; name && i < WARDER__ARRAY_SIZE(action_names); i++) {
                if (strcmp(name, action_names[i]) == 0) {
                        *out = (enum warder_action)i;
                        return 0;
                }
        }
        return WARDER_EINVAL;
}

WARDER_API int warder_op_parse(const char *name, enum warder_op *out)
{
        for (size_t i = 0; name && i < WARDER_OP_COUNT; i++) {
                if (strcmp(name, warder__op_names[i]) == 0) {
                        *out = (enum warder_op)i;
                        return 0;
                }
        }
        return WARDER_EINVAL;
}
