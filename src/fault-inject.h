/* SPDX-License-Identifier: MIT */
/*
 * Included first into every library source of a fault-injection build (see fault.h): the
 * system headers are read once here, then the calls that can fail are routed through the
 * counting wrappers of fault.c. Never include this from a normal source file.
 */
#ifndef WARDER_FAULT_INJECT_H
#define WARDER_FAULT_INJECT_H

#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "fault.h"

void *warder__fi_malloc(const char *f, int l, size_t n);
void *warder__fi_calloc(const char *f, int l, size_t n, size_t size);
void *warder__fi_realloc(const char *f, int l, void *p, size_t n);
char *warder__fi_strdup(const char *f, int l, const char *s);
char *warder__fi_strndup(const char *f, int l, const char *s, size_t n);
int warder__fi_asprintf(const char *f, int l, char **out, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

pcre2_code *warder__fi_pcre2_compile(const char *f, int l, PCRE2_SPTR pattern, PCRE2_SIZE len,
                                     uint32_t options, int *errorcode, PCRE2_SIZE *erroroffset,
                                     pcre2_compile_context *ctx);
int warder__fi_pcre2_match(const char *f, int l, const pcre2_code *code, PCRE2_SPTR subject,
                           PCRE2_SIZE len, PCRE2_SIZE start, uint32_t options, pcre2_match_data *md,
                           pcre2_match_context *mctx);
int warder__fi_pcre2_jit_match(const char *f, int l, const pcre2_code *code, PCRE2_SPTR subject,
                               PCRE2_SIZE len, PCRE2_SIZE start, uint32_t options,
                               pcre2_match_data *md, pcre2_match_context *mctx);
int warder__fi_pcre2_jit_compile(const char *f, int l, pcre2_code *code, uint32_t options);
pcre2_match_data *warder__fi_pcre2_match_data_create(const char *f, int l, uint32_t n,
                                                     pcre2_general_context *gctx);
pcre2_match_data *warder__fi_pcre2_match_data_create_from_pattern(const char *f, int l,
                                                                  const pcre2_code *code,
                                                                  pcre2_general_context *gctx);
pcre2_match_context *warder__fi_pcre2_match_context_create(const char *f, int l,
                                                           pcre2_general_context *gctx);
pcre2_jit_stack *warder__fi_pcre2_jit_stack_create(const char *f, int l, size_t start, size_t max,
                                                   pcre2_general_context *gctx);

int warder__fi_openat(const char *f, int l, int dfd, const char *path, int flags, ...);
int warder__fi_fstat(const char *f, int l, int fd, struct stat *st);
int warder__fi_fstatat(const char *f, int l, int dfd, const char *path, struct stat *st, int flags);
ssize_t warder__fi_readlinkat(const char *f, int l, int dfd, const char *path, char *buf, size_t n);
DIR *warder__fi_fdopendir(const char *f, int l, int fd);
struct dirent *warder__fi_readdir(const char *f, int l, DIR *d);
ssize_t warder__fi_pread(const char *f, int l, int fd, void *buf, size_t n, off_t off);
int warder__fi_fsync(const char *f, int l, int fd);
int warder__fi_mkdirat(const char *f, int l, int dfd, const char *path, mode_t mode);
int warder__fi_renameat(const char *f, int l, int od, const char *op, int nd, const char *np);

#define WARDER__FI_AT __FILE__, __LINE__

#define malloc(...)   warder__fi_malloc(WARDER__FI_AT, __VA_ARGS__)
#define calloc(...)   warder__fi_calloc(WARDER__FI_AT, __VA_ARGS__)
#define realloc(...)  warder__fi_realloc(WARDER__FI_AT, __VA_ARGS__)
#define strdup(...)   warder__fi_strdup(WARDER__FI_AT, __VA_ARGS__)
#define strndup(...)  warder__fi_strndup(WARDER__FI_AT, __VA_ARGS__)
#define asprintf(...) warder__fi_asprintf(WARDER__FI_AT, __VA_ARGS__)

#undef pcre2_compile
#undef pcre2_match
#undef pcre2_jit_match
#undef pcre2_jit_compile
#undef pcre2_match_data_create
#undef pcre2_match_data_create_from_pattern
#undef pcre2_match_context_create
#undef pcre2_jit_stack_create
#define pcre2_compile(...)           warder__fi_pcre2_compile(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_match(...)             warder__fi_pcre2_match(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_jit_match(...)         warder__fi_pcre2_jit_match(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_jit_compile(...)       warder__fi_pcre2_jit_compile(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_match_data_create(...) warder__fi_pcre2_match_data_create(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_match_data_create_from_pattern(...)                                                  \
        warder__fi_pcre2_match_data_create_from_pattern(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_match_context_create(...)                                                            \
        warder__fi_pcre2_match_context_create(WARDER__FI_AT, __VA_ARGS__)
#define pcre2_jit_stack_create(...) warder__fi_pcre2_jit_stack_create(WARDER__FI_AT, __VA_ARGS__)

#define openat(...)     warder__fi_openat(WARDER__FI_AT, __VA_ARGS__)
#define fstat(...)      warder__fi_fstat(WARDER__FI_AT, __VA_ARGS__)
#define fstatat(...)    warder__fi_fstatat(WARDER__FI_AT, __VA_ARGS__)
#define readlinkat(...) warder__fi_readlinkat(WARDER__FI_AT, __VA_ARGS__)
#define fdopendir(...)  warder__fi_fdopendir(WARDER__FI_AT, __VA_ARGS__)
#define readdir(...)    warder__fi_readdir(WARDER__FI_AT, __VA_ARGS__)
#define pread(...)      warder__fi_pread(WARDER__FI_AT, __VA_ARGS__)
#define fsync(...)      warder__fi_fsync(WARDER__FI_AT, __VA_ARGS__)
#define mkdirat(...)    warder__fi_mkdirat(WARDER__FI_AT, __VA_ARGS__)
#define renameat(...)   warder__fi_renameat(WARDER__FI_AT, __VA_ARGS__)

#endif
