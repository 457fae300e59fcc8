/* SPDX-License-Identifier: MIT */
/* --as-user (§6.6): whose file system credentials the local backend acts with. */
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define AS_USER_MAX_NAME   256
#define AS_USER_MAX_GROUPS 256 /* as the local backend accepts */

static uint32_t groups[AS_USER_MAX_GROUPS];

/* A decimal id: digits only (no sign, no space), at most 4294967294 ((uid_t)-1 is no id). */
static bool parse_id(const char *s, size_t n, uint32_t *out)
{
        if (n == 0 || n > 10)
                return false;
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return false;
                v = v * 10 + (uint64_t)(s[i] - '0');
        }
        if (v >= UINT32_MAX)
                return false;
        *out = (uint32_t)v;
        return true;
}

/* The value for a message: control bytes as '?', at most 64 bytes. */
static const char *shown(const char *s, char out[static 72])
{
        size_t i = 0;
        for (; s[i] && i < 64; i++)
                out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        if (s[i])
                memcpy(out + i, "...", 3), i += 3;
        out[i] = '\0';
        return out;
}

/* The passwd entry of a name (uid_or_name NULL) or of a uid; 0 found, 1 not found, -1 error. */
static int lookup(const char *name, uint32_t uid, uint32_t *uid_out, uint32_t *gid_out)
{
        long size = sysconf(_SC_GETPW_R_SIZE_MAX);
        if (size < 16384)
                size = 16384;
        char *buf = malloc((size_t)size);
        if (!buf)
                return -1;
        struct passwd pw, *res = NULL;
        int e = name ? getpwnam_r(name, &pw, buf, (size_t)size, &res)
                     : getpwuid_r((uid_t)uid, &pw, buf, (size_t)size, &res);
        int rc = e ? -1 : res ? 0 : 1;
        if (res) {
                *uid_out = (uint32_t)pw.pw_uid;
                *gid_out = (uint32_t)pw.pw_gid;
        }
        free(buf);
        return rc;
}

int cli_as_user(const struct cli_common *c, const char *cmd, struct warder_local_options *lo)
{
        const char *v = c->as_user;
        if (!v)
                return 0;
        char tmp[72];
        const char *colon = strchr(v, ':');
        size_t n = colon ? (size_t)(colon - v) : strlen(v);
        if (n == 0 || n > AS_USER_MAX_NAME)
                return cli_usage(cmd,
                                 "--as-user needs USER or UID (at most %d bytes), then "
                                 "optionally :GID and :GROUP,GROUP...",
                                 AS_USER_MAX_NAME);
        char user[AS_USER_MAX_NAME + 1];
        memcpy(user, v, n);
        user[n] = '\0';
        uint32_t uid = 0, gid = 0, pw_gid = 0;
        bool numeric = strspn(user, "0123456789") == n;
        if (numeric) {
                if (!parse_id(user, n, &uid))
                        return cli_usage(cmd, "--as-user: '%s' is not a valid uid",
                                         shown(user, tmp));
        } else {
                if (user[0] == '-' || user[0] == '+')
                        return cli_usage(cmd, "--as-user: '%s' is not a valid uid",
                                         shown(user, tmp));
                int rc = lookup(user, 0, &uid, &pw_gid);
                if (rc)
                        return cli_usage(cmd, "--as-user: %s user '%s'",
                                         rc > 0 ? "no such" : "cannot look up the",
                                         shown(user, tmp));
        }
        if (uid == 0)
                return cli_usage(cmd, "--as-user: refusing to act as root (uid 0): its "
                                      "credentials add no permission check");
        size_t ngroups = 0;
        if (colon) {
                const char *g = colon + 1;
                const char *colon2 = strchr(g, ':');
                size_t gn = colon2 ? (size_t)(colon2 - g) : strlen(g);
                if (!parse_id(g, gn, &gid))
                        return cli_usage(cmd,
                                         "--as-user: the group after ':' must be a numeric "
                                         "gid, not '%.*s'",
                                         (int)(gn < 64 ? gn : 64), shown(g, tmp));
                for (const char *p = colon2 ? colon2 + 1 : NULL; p;) {
                        const char *comma = strchr(p, ',');
                        size_t pn = comma ? (size_t)(comma - p) : strlen(p);
                        if (ngroups == AS_USER_MAX_GROUPS)
                                return cli_usage(cmd, "--as-user: at most %d groups",
                                                 AS_USER_MAX_GROUPS);
                        if (!parse_id(p, pn, &groups[ngroups]))
                                return cli_usage(cmd, "--as-user: the groups after the second "
                                                      "':' must be numeric gids separated by ','");
                        ngroups++;
                        p = comma ? comma + 1 : NULL;
                }
        } else if (numeric) {
                uint32_t ignored;
                int rc = lookup(NULL, uid, &ignored, &pw_gid);
                if (rc)
                        return cli_usage(cmd,
                                         "--as-user: uid %u has no passwd entry: give its "
                                         "group as UID:GID",
                                         (unsigned)uid);
                gid = pw_gid;
        } else {
                gid = pw_gid;
        }
        if (gid == 0)
                return cli_usage(cmd, "--as-user: refusing to act with group 0 (root's)");
        for (size_t i = 0; i < ngroups; i++)
                if (groups[i] == 0)
                        return cli_usage(cmd, "--as-user: refusing supplementary group 0 (root's)");
        lo->act_as_agent = true;
        lo->agent_uid = uid;
        lo->agent_gid = gid;
        lo->agent_groups = ngroups ? groups : NULL;
        lo->agent_ngroups = ngroups;
        if (lo->exec) {
                /* Commands run as the same user (without supplementary groups, §6.3). */
                lo->drop_privileges = true;
                lo->uid = uid;
                lo->gid = gid;
        }
        return 0;
}
