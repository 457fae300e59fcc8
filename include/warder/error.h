/* SPDX-License-Identifier: MIT */
#ifndef WARDER_ERROR_H
#define WARDER_ERROR_H

#include <stddef.h>

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Status codes. Every fallible function returns 0 or one of these negative codes.
 * The numbers are stable: codes are never renumbered or reused, new ones are appended.
 */
enum warder_status {
        WARDER_OK = 0,
        WARDER_EDENIED = -1,     /* denied by policy */
        WARDER_EASK = -2,        /* approval required and not given */
        WARDER_ENOTSUP = -3,     /* operation not supported by this backend */
        WARDER_ENOENT = -4,      /* not found */
        WARDER_EEXIST = -5,      /* already exists */
        WARDER_EINVAL = -6,      /* invalid argument or misuse of the API */
        WARDER_ENOMEM = -7,      /* out of memory */
        WARDER_EIO = -8,         /* input/output error */
        WARDER_ETOOBIG = -9,     /* a size or count limit was exceeded */
        WARDER_ENOTREG = -10,    /* not a regular file */
        WARDER_ESYMLINK = -11,   /* a symbolic link was refused */
        WARDER_EOUTSIDE = -12,   /* the target lies outside the root */
        WARDER_ETIMEDOUT = -13,  /* a deadline passed */
        WARDER_EPARSE = -14,     /* malformed input (ruleset, pattern, command) */
        WARDER_EBACKEND = -15,   /* a backend broke its contract or returned an unknown code */
        WARDER_EACCES = -16,     /* permission denied by the file system */
        WARDER_ENOTDIR = -17,    /* a path component is not a directory */
        WARDER_EISDIR = -18,     /* the target is a directory */
        WARDER_ENOMATCH = -19,   /* edit: the old string does not occur */
        WARDER_EAMBIGUOUS = -20, /* edit: the old string occurs more than once */
        WARDER_ELIMIT = -21,     /* a parser or walk budget was exhausted */
};

/* Lowest code in use; codes in [WARDER_STATUS_MIN, 0] are known to this version. */
#define WARDER_STATUS_MIN (-21)

/* Static English text for a status code; never NULL ("unknown error" for unknown codes). */
WARDER_API const char *warder_strerror(int code);

/* Stable symbolic name of a code ("WARDER_EDENIED"); "WARDER_UNKNOWN" for unknown codes. */
WARDER_API const char *warder_status_name(int code);

struct warder_decision;

/*
 * Detail for a failed call: the optional last parameter of every fallible function.
 * Initialise with WARDER_ERROR_INIT (or warder_error_init()). The library clears and refills
 * it on failure and leaves it alone on success; one whose `version` it does not know is never
 * written (the call still returns its status). Call warder_error_clear() when done: a denial
 * carries a heap copy of the decision that made it.
 */
struct warder_error {
        unsigned version;                 /* WARDER_ERROR_VERSION */
        int code;                         /* the status the call returned */
        char message[512];                /* one line, no trailing newline */
        char file[1024];                  /* source file for ruleset errors, else "" */
        unsigned line;                    /* 1-based, 0 when there is no location */
        unsigned column;                  /* 1-based, 0 when there is no location */
        long offset;                      /* byte offset into a pattern or command, -1 if none */
        struct warder_decision *decision; /* the decision behind EDENIED/EASK, else NULL */
};

#define WARDER_ERROR_VERSION 1
#define WARDER_ERROR_INIT                                                                          \
        {                                                                                          \
                WARDER_ERROR_VERSION, 0, {0}, {0}, 0, 0, -1, NULL                                  \
        }

/* Initialises `err` as WARDER_ERROR_INIT does (for bindings that cannot use the macro). */
WARDER_API void warder_error_init(struct warder_error *err);

/* Releases what the error owns and resets it to WARDER_ERROR_INIT. NULL is accepted. */
WARDER_API void warder_error_clear(struct warder_error *err);

/* Fills `err` (may be NULL) with `code` and a printf-style message; returns `code`. For
 * backends' methods and the host's callbacks, which report errors the way the library does. */
WARDER_API int warder_error_set(struct warder_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same without a format, for bindings that cannot call a variadic function: `message`
 * (NULL: the status's warder_strerror() text) is copied as it is, cut to fit. */
WARDER_API int warder_error_set_message(struct warder_error *err, int code, const char *message);

/*
 * The library's allocator. warder_free() frees memory the library returned to the caller
 * (paths, strings). warder_malloc() allocates memory the caller hands to the library for it
 * to free: the strings and arrays a warder_command_context callback returns, for instance.
 * warder_malloc(0) returns a unique pointer (never NULL unless out of memory). NULL is accepted
 * by warder_free().
 */
WARDER_API void *warder_malloc(size_t size);
WARDER_API void warder_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
