/* SPDX-License-Identifier: MIT */
#ifndef WARDER_COMMAND_EXPAND_H
#define WARDER_COMMAND_EXPAND_H

/*
 * Pathname expansion the way dash and bash do it (§5.5), for command inspection: component by
 * component through a directory listing and the real form of each directory, so a glob
 * component enters symbolic links to directories, a `..` climbs from where the links before it
 * lead (as the kernel does), bracket expressions expand, and a name that starts with `.` is
 * matched only by a component that starts with `.` (which then also meets `.` and `..`, as in
 * dash). No file is opened: only the callbacks are used.
 */

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct warder__expand_io {
        /* The real form of an absolute path (NULL: real == literal). */
        int (*realpath)(void *ud, const char *literal, char **out);
        /* The names in a directory given by its real form, each followed by `/` when it is a
         * directory or a symbolic link (the context's `ls`, §5.5). Required. */
        int (*ls)(void *ud, const char *dir, char ***names, size_t *count);
        void *ud;
        /* Budget, shared by every expansion of one command line; what went over it is
         * reported as incomplete. */
        size_t max_lists, max_entries, max_results;
        size_t lists, entries;
};

/*
 * The path the kernel opens for the absolute, unnormalised `s` (`n` bytes): components are
 * taken left to right, and a `..` climbs from the real form of what precedes it. Written
 * normalised into `out`. Without `realpath` it is the lexical form.
 */
int warder__expand_physical(const struct warder__expand_io *io, const char *s, size_t n,
                            struct warder__buf *out);

/*
 * Expands the absolute pattern `pat` (`len` bytes, quotes already removed; `unq[k]` is nonzero
 * where byte k was unquoted, so that it may be a pattern character) into the paths the shell
 * would produce, spelled as the shell spells them (the pattern's own components, `..`
 * included). Components after the last pattern component are appended without checking that
 * they exist. *out receives a malloc()ed array of malloc()ed strings (free with
 * warder__expand_free()), possibly empty. Returns 0 or WARDER_ENOMEM; *incomplete is set when
 * a directory could not be resolved or listed (other than missing or not a directory) or the
 * budget ran out, in which case the results are those found so far.
 */
int warder__expand_glob(struct warder__expand_io *io, const char *pat, const unsigned char *unq,
                        size_t len, char ***out, size_t *count, bool *incomplete);
void warder__expand_free(char **v, size_t count);

#endif
