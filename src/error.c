/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "warder/ruleset.h"
#include "warder/sys/backend.h"

static const char *status_text(enum warder_status code)
{
        switch (code) {
        case WARDER_OK:
                return "success";
        case WARDER_EDENIED:
                return "denied by policy";
        case WARDER_EASK:
                return "approval required";
        case WARDER_ENOTSUP:
                return "operation not supported";
        case WARDER_ENOENT:
                return "not found";
        case WARDER_EEXIST:
                return "already exists";
        case WARDER_EINVAL:
                return "invalid argument";
        case WARDER_ENOMEM:
                return "out of memory";
        case WARDER_EIO:
                return "input/output error";
        case WARDER_ETOOBIG:
                return "too large";
        case WARDER_ENOTREG:
                return "not a regular file";
        case WARDER_ESYMLINK:
                return "symbolic link refused";
        case WARDER_EOUTSIDE:
                return "outside the root";
        case WARDER_ETIMEDOUT:
                return "timed out";
        case WARDER_EPARSE:
                return "parse error";
        case WARDER_EBACKEND:
                return "backend misbehaved";
        case WARDER_EACCES:
                return "permission denied by the file system";
        case WARDER_ENOTDIR:
                return "not a directory";
        case WARDER_EISDIR:
                return "is a directory";
        case WARDER_ENOMATCH:
                return "text to replace not found";
        case WARDER_EAMBIGUOUS:
                return "text to replace occurs more than once";
        case WARDER_ELIMIT:
                return "budget exhausted";
        }
        return NULL;
}

static const char *status_name(enum warder_status code)
{
        switch (code) {
        case WARDER_OK:
                return "WARDER_OK";
        case WARDER_EDENIED:
                return "WARDER_EDENIED";
        case WARDER_EASK:
                return "WARDER_EASK";
        case WARDER_ENOTSUP:
                return "WARDER_ENOTSUP";
        case WARDER_ENOENT:
                return "WARDER_ENOENT";
        case WARDER_EEXIST:
                return "WARDER_EEXIST";
        case WARDER_EINVAL:
                return "WARDER_EINVAL";
        case WARDER_ENOMEM:
                return "WARDER_ENOMEM";
        case WARDER_EIO:
                return "WARDER_EIO";
        case WARDER_ETOOBIG:
                return "WARDER_ETOOBIG";
        case WARDER_ENOTREG:
                return "WARDER_ENOTREG";
        case WARDER_ESYMLINK:
                return "WARDER_ESYMLINK";
        case WARDER_EOUTSIDE:
                return "WARDER_EOUTSIDE";
        case WARDER_ETIMEDOUT:
                return "WARDER_ETIMEDOUT";
        case WARDER_EPARSE:
                return "WARDER_EPARSE";
        case WARDER_EBACKEND:
                return "WARDER_EBACKEND";
        case WARDER_EACCES:
                return "WARDER_EACCES";
        case WARDER_ENOTDIR:
                return "WARDER_ENOTDIR";
        case WARDER_EISDIR:
                return "WARDER_EISDIR";
        case WARDER_ENOMATCH:
                return "WARDER_ENOMATCH";
        case WARDER_EAMBIGUOUS:
                return "WARDER_EAMBIGUOUS";
        case WARDER_ELIMIT:
                return "WARDER_ELIMIT";
        }
        return NULL;
}

WARDER_API const char *warder_strerror(int code)
{
        const char *s = status_text((enum warder_status)code);
        return s ? s : "unknown error";
}

WARDER_API const char *warder_status_name(int code)
{
        const char *s = status_name((enum warder_status)code);
        return s ? s : "WARDER_UNKNOWN";
}

WARDER_API void warder_error_clear(struct warder_error *err)
{
        if (!err || err->version != WARDER_ERROR_VERSION)
                return; /* a layout this library does not know: never written */
        if (err->decision) {
                warder_decision_clear(err->decision);
                free(err->decision);
        }
        *err = (struct warder_error)WARDER_ERROR_INIT;
}

void warder__error_move(struct warder_error *err, struct warder_error *from)
{
        if (err) {
                warder_error_clear(err);
                *err = *from;
                *from = (struct warder_error)WARDER_ERROR_INIT;
        } else {
                warder_error_clear(from);
        }
}

WARDER_API void *warder_malloc(size_t size)
{
        return malloc(size ? size : 1);
}

WARDER_API void warder_free(void *ptr)
{
        free(ptr);
}

int warder__error_vset(struct warder_error *err, int code, const char *fmt, va_list ap)
{
        if (!err || err->version != WARDER_ERROR_VERSION)
                return code;
        warder_error_clear(err);
        err->code = code;
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        return code;
}

WARDER_API int warder_error_set(struct warder_error *err, int code, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        warder__error_vset(err, code, fmt, ap);
        va_end(ap);
        return code;
}

WARDER_API int warder_error_set_message(struct warder_error *err, int code, const char *message)
{
        return warder_error_set(err, code, "%s", message ? message : warder_strerror(code));
}

int warder__error_set_at(struct warder_error *err, int code, const char *file, unsigned line,
                         unsigned column, const char *fmt, ...)
{
        if (!err || err->version != WARDER_ERROR_VERSION)
                return code;
        va_list ap;
        va_start(ap, fmt);
        warder__error_vset(err, code, fmt, ap);
        va_end(ap);
        snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
        err->line = line;
        err->column = column;
        return code;
}
