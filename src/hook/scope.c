/* SPDX-License-Identifier: MIT */
/* What an agent's own tool will touch (see scope.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook/scope.h"

/* Deeper than any real tree; a loop of directory links ends here (and counts as unfinished). */
#define SCAN_MAX_DEPTH 128

/* ---- the kernel's real form --------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
        size_t a = strlen(dir), b = strlen(name);
        bool slash = a > 0 && dir[a - 1] == '/';
        char *p = malloc(a + b + 2);
        if (!p)
                return NULL;
        memcpy(p, dir, a);
        if (!slash)
                p[a++] = '/';
        memcpy(p + a, name, b + 1);
        return p;
}

static int kernel_real(const char *abs, size_t len, char **out)
{
        char *path = strndup(abs, len);
        if (!path)
                return -ENOMEM;
        char *r = realpath(path, NULL);
        int e = errno;
        if (r || (e != ENOENT && e != ENOTDIR)) {
                free(path);
                if (!r)
                        return -e;
                *out = r;
                return 0;
        }
        /* The path does not exist in full: the real form of its directory, then its name. */
        size_t n = len;
        while (n > 1 && path[n - 1] == '/')
                n--;
        size_t slash = n;
        while (slash > 0 && path[slash - 1] != '/')
                slash--;
        const char *name = path + slash;
        path[n] = '\0';
        size_t dir_len = slash > 1 ? slash - 1 : 1; /* "/x" has the directory "/" */
        char *dir = NULL;
        int rc = slash == 0 ? -EINVAL : kernel_real(path, dir_len, &dir);
        if (rc) {
                free(path);
                return rc;
        }
        char *res = NULL;
        if (strcmp(name, ".") == 0 || name[0] == '\0') {
                res = dir;
                dir = NULL;
        } else if (strcmp(name, "..") == 0) {
                char *s = strrchr(dir, '/');
                if (s == dir)
                        s[1] = '\0';
                else if (s)
                        *s = '\0';
                res = dir;
                dir = NULL;
        } else {
                res = join(dir, name);
        }
        free(dir);
        free(path);
        if (!res)
                return -ENOMEM;
        *out = res;
        return 0;
}

int warder_hook_kernel_real(const char *abs, char **out)
{
        size_t len = strlen(abs);
        if (abs[0] != '/')
                return -EINVAL;
        if (len >= PATH_MAX)
                return -ENAMETOOLONG;
        return kernel_real(abs, len, out);
}

bool warder_hook_proc_path(const char *p)
{
        if (strncmp(p, "/dev/fd", 7) == 0 && (p[7] == '/' || p[7] == '\0'))
                return true;
        if (strncmp(p, "/proc/", 6) != 0)
                return false;
        const char *pid = p + 6, *end = strchr(pid, '/');
        if (!end)
                return false;
        const char *what = end + 1;
        size_t n = strcspn(what, "/");
        static const char *const magic[] = {"root", "cwd", "fd", "map_files", "exe"};
        for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
                if (strlen(magic[i]) == n && strncmp(what, magic[i], n) == 0)
                        return true;
        /* /proc/<pid>/task/<tid>/root and the like */
        if (n == 4 && strncmp(what, "task", 4) == 0)
                return true;
        return false;
}

/* ---- patterns and filters ----------------------------------------------------------------- */

static bool is_ext_byte(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '+';
}

static bool add_ext(struct warder_hook_filter *f, const char *s, size_t n)
{
        if (n == 0 || n >= sizeof(f->ext[0]) || f->n == WARDER_HOOK_FILTER_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_ext_byte(s[i]))
                        return false;
        memcpy(f->ext[f->n], s, n);
        f->ext[f->n][n] = '\0';
        f->n++;
        return true;
}

bool warder_hook_filter_parse(const char *p, struct warder_hook_filter *out)
{
        struct warder_hook_filter f = {0};
        while (strncmp(p, "**/", 3) == 0)
                p += 3;
        if (strncmp(p, "*.", 2) != 0)
                return false;
        p += 2;
        if (p[0] == '{') {
                const char *close = strchr(p, '}');
                if (!close || close[1] != '\0')
                        return false;
                const char *s = p + 1;
                for (;;) {
                        size_t n = strcspn(s, ",}");
                        if (!add_ext(&f, s, n))
                                return false;
                        if (s[n] == '}')
                                break;
                        s += n + 1;
                }
        } else if (!add_ext(&f, p, strlen(p))) {
                return false;
        }
        *out = f;
        return true;
}

bool warder_hook_filter_match(const struct warder_hook_filter *f, const char *name)
{
        size_t n = strlen(name);
        for (size_t i = 0; i < f->n; i++) {
                size_t e = strlen(f->ext[i]);
                if (n >= e + 1 && name[n - e - 1] == '.' &&
                    strcasecmp(name + n - e, f->ext[i]) == 0)
                        return true;
        }
        return false;
}

size_t warder_hook_pattern_prefix(const char *pattern, bool *literal)
{
        size_t keep = 0, i = 0;
        *literal = false;
        for (;;) {
                size_t n = strcspn(pattern + i, "/");
                if (strcspn(pattern + i, "*?[{\\") < n)
                        return keep;
                if (pattern[i + n] == '\0') {
                        *literal = true;
                        return i + n;
                }
                i += n + 1;
                keep = i;
        }
}

/* ---- the walk ----------------------------------------------------------------------------- */

struct entry {
        char *name;
        unsigned char type; /* DT_DIR, DT_LNK, DT_REG, … (DT_UNKNOWN resolved by fstatat) */
};

static int cmp_entry(const void *a, const void *b)
{
        return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void free_entries(struct entry *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i].name);
        free(v);
}

/* Reads the names of the directory `real` (no symbolic link in it), sorted. 1: not a
 * directory or gone; -1: cannot be read; -ENOMEM. */
static int list_dir(const char *real, struct entry **out, size_t *count)
{
        int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 1 : -1;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -1;
        }
        struct entry *v = NULL;
        size_t n = 0, cap = 0;
        int rc = 0;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                unsigned char type = de->d_type;
                if (type == DT_UNKNOWN) {
                        struct stat st;
                        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                                type = S_ISDIR(st.st_mode)   ? DT_DIR
                                       : S_ISLNK(st.st_mode) ? DT_LNK
                                                             : DT_REG;
                }
                if (n == cap) {
                        size_t nc = cap ? 2 * cap : 32;
                        struct entry *nv = realloc(v, nc * sizeof(*v));
                        if (!nv) {
                                rc = -ENOMEM;
                                break;
                        }
                        v = nv;
                        cap = nc;
                }
                if (!(v[n].name = strdup(de->d_name))) {
                        rc = -ENOMEM;
                        break;
                }
                v[n++].type = type;
        }
        closedir(d);
        if (rc) {
                free_entries(v, n);
                return rc;
        }
        if (n > 1)
                qsort(v, n, sizeof(*v), cmp_entry);
        *out = v;
        *count = n;
        return 0;
}

/* Keeps the stricter of the scan's decision and `d` (consumed), naming `literal`. */
static int keep(struct warder_hook_scan *sc, struct warder_decision *d, const char *literal)
{
        if (sc->have && d->action <= sc->decision.action) {
                warder_decision_clear(d);
                return 0;
        }
        char *name = strdup(literal);
        struct warder_decision copy = WARDER_DECISION_INIT;
        int rc = name ? warder_decision_copy(&copy, d) : WARDER_ENOMEM;
        warder_decision_clear(d);
        if (rc) {
                free(name);
                return WARDER_ENOMEM;
        }
        if (sc->have)
                warder_decision_clear(&sc->decision);
        free(sc->culprit);
        sc->decision = copy;
        sc->culprit = name;
        sc->have = true;
        return 0;
}

static bool done(const struct warder_hook_scan *sc)
{
        return sc->over_budget || (sc->have && sc->decision.action == WARDER_DENY);
}

static int walk(struct warder_hook_scan *sc, const char *literal, const char *real, int depth)
{
        struct entry *v = NULL;
        size_t n = 0;
        int rc = list_dir(real, &v, &n);
        if (rc == 1)
                return 0;
        if (rc == -1) {
                if (!sc->unreadable && !(sc->unreadable = strdup(literal)))
                        return WARDER_ENOMEM;
                return 0;
        }
        if (rc)
                return WARDER_ENOMEM;
        for (size_t i = 0; i < n && !rc && !done(sc); i++) {
                if (*sc->budget == 0) {
                        sc->over_budget = true;
                        break;
                }
                (*sc->budget)--;
                char *lit = join(literal, v[i].name);
                char *rf = join(real, v[i].name);
                if (!lit || !rf) {
                        free(lit);
                        free(rf);
                        rc = WARDER_ENOMEM;
                        break;
                }
                bool is_dir = v[i].type == DT_DIR;
                if (v[i].type == DT_LNK) {
                        char *target = NULL;
                        int k = warder_hook_kernel_real(rf, &target);
                        free(rf);
                        rf = NULL;
                        if (k == -ENOMEM) {
                                free(lit);
                                rc = WARDER_ENOMEM;
                                break;
                        }
                        if (k) {
                                /* a link that cannot be followed (a loop, no permission) */
                                if (!sc->unreadable && !(sc->unreadable = strdup(lit)))
                                        rc = WARDER_ENOMEM;
                                free(lit);
                                continue;
                        }
                        rf = target;
                        struct stat st;
                        is_dir = stat(rf, &st) == 0 && S_ISDIR(st.st_mode);
                }
                bool decide =
                    !(sc->files_only && is_dir) &&
                    (!sc->filter || is_dir || warder_hook_filter_match(sc->filter, v[i].name));
                for (size_t k = 0; decide && !rc && k < sc->nops; k++) {
                        struct warder_decision d = WARDER_DECISION_INIT;
                        if (warder_ruleset_check(&d, sc->rs, sc->ops[k], lit, strlen(lit), rf,
                                                 (rf ? strlen(rf) : 0), NULL) == 0) {
                                rc = keep(sc, &d, lit);
                        } else {
                                /* a name that cannot be decided (a NUL cannot occur; a length
                                 * can): at least ask */
                                if (!sc->unreadable && !(sc->unreadable = strdup(lit)))
                                        rc = WARDER_ENOMEM;
                        }
                }
                if (!rc && is_dir && !done(sc)) {
                        if (depth + 1 >= SCAN_MAX_DEPTH)
                                sc->over_budget = true;
                        else if (depth + 1 < sc->max_depth)
                                rc = walk(sc, lit, rf, depth + 1);
                }
                free(lit);
                free(rf);
        }
        free_entries(v, n);
        return rc;
}

int warder_hook_scan(struct warder_hook_scan *sc, const char *literal, const char *real)
{
        return walk(sc, literal, real, 0);
}

void warder_hook_scan_clear(struct warder_hook_scan *sc)
{
        if (sc->have)
                warder_decision_clear(&sc->decision);
        sc->have = false;
        free(sc->culprit);
        free(sc->unreadable);
        sc->culprit = sc->unreadable = NULL;
}
