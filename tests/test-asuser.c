/* SPDX-License-Identifier: MIT */
/*
 * Acting as the agent (§6.6) against the real kernel, as root: the local backend's file
 * operations run with the agent's file system credentials, so the kernel's permission checks
 * back the rules. Every refusal has a control arm (the same operation without the option, as
 * root, succeeds), and after every operation, failing ones included, the thread's credentials
 * in /proc/thread-self/status are the host's again. Skipped (77) when not root.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/creds.h"
#include "backends/ring.h"
#include "fs-fixture.h"
#include "support.h"
#include "warder/backend.h"
#include "warder/guard.h"
#include "warder/local.h"
#include "warder/ruleset.h"

#define AGENT  40001u /* the agent's uid and gid */
#define OTHER  40002u /* another user's */
#define GROUPX 40010u /* a group the agent is given in one test */

#define THEIR_SECRET  "THEIR-SECRET-a1b2"
#define LOCKED_SECRET "LOCKED-SECRET-c3d4"
#define ROOT_SECRET   "ROOT-SECRET-e5f6"
#define GROUP_SECRET  "GROUP-SECRET-0a0b"

extern unsigned warder__creds_test_fail;

static char W[256];

static void own(const char *path, uid_t u, gid_t g, mode_t m)
{
        ck_assert_msg(lchown(path, u, g) == 0, "chown %s: %s", path, strerror(errno));
        ck_assert_msg(chmod(path, m) == 0, "chmod %s: %s", path, strerror(errno));
}

static void setup(void)
{
        umask(022);
        strcpy(W, "/tmp/warder-asuser-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(W));
        own(W, 0, 0, 0755);
        put(at(W, "mine.txt"), "mine\n");
        own(at(W, "mine.txt"), AGENT, AGENT, 0600);
        put(at(W, "theirs.txt"), THEIR_SECRET "\n");
        own(at(W, "theirs.txt"), OTHER, OTHER, 0600);
        mkd(at(W, "locked"));
        put(at(W, "locked/f"), LOCKED_SECRET "\n");
        own(at(W, "locked"), OTHER, OTHER, 0700);
        mkd(at(W, "ro"));
        own(at(W, "ro"), OTHER, OTHER, 0755);
        mkd(at(W, "rw"));
        own(at(W, "rw"), AGENT, AGENT, 0755);
        put(at(W, "group.txt"), GROUP_SECRET "\n");
        own(at(W, "group.txt"), OTHER, GROUPX, 0640);
}

static void teardown(void)
{
        rm_rf(W);
}

/* The Uid, Gid and Groups lines of this thread. */
static void thread_creds(char out[static 1024])
{
        size_t n = 0;
        char *s = warder_test_slurp("/proc/thread-self/status", &n);
        ck_assert_ptr_nonnull(s);
        out[0] = '\0';
        size_t o = 0;
        char *save = NULL;
        for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
                    !strncmp(line, "Groups:", 7))
                        o += (size_t)snprintf(out + o, 1024 - o, "%s\n", line);
        free(s);
}

/* This thread's fsuid (the 4th field of Uid:). */
static unsigned thread_fsuid(void)
{
        char c[1024];
        thread_creds(c);
        unsigned r, e, s, f;
        ck_assert_int_eq(sscanf(c, "Uid:\t%u\t%u\t%u\t%u", &r, &e, &s, &f), 4);
        return f;
}

static char host_creds[1024];

static void ck_restored(const char *after)
{
        char now[1024];
        thread_creds(now);
        ck_assert_msg(strcmp(now, host_creds) == 0, "after %s:\n%s\nwant:\n%s", after, now,
                      host_creds);
}

static warder_backend *local(bool as_agent, const uint32_t *groups, size_t ngroups)
{
        struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
        lo.act_as_agent = as_agent;
        lo.agent_uid = AGENT;
        lo.agent_gid = AGENT;
        lo.agent_groups = groups;
        lo.agent_ngroups = ngroups;
        warder_backend *b = NULL;
        struct warder_error e = WARDER_ERROR_INIT;
        int rc = warder_local_new(&b, W, &lo, &e);
        ck_assert_msg(rc == 0, "local: %s", e.message);
        return b;
}

static int rd(warder_backend *b, const char *rel, struct warder_bytes *out, struct warder_error *e)
{
        const char *p = at(W, rel);
        int rc = warder_backend_read(out, b, p, strlen(p), 0, 0, 0, e);
        ck_restored(rel);
        return rc;
}

START_TEST(test_kernel_permissions)
{
        thread_creds(host_creds);
        const char *cases[] = {"theirs.txt", "locked/f"};
        const char *secrets[] = {THEIR_SECRET, LOCKED_SECRET};
        warder_backend *host = local(false, NULL, 0), *agent = local(true, NULL, 0);
        for (int i = 0; i < 2; i++) {
                /* control: the host (root, no option) reads it */
                struct warder_bytes out = WARDER_BYTES_INIT;
                ck_assert_int_eq(rd(host, cases[i], &out, NULL), 0);
                ck_assert_ptr_nonnull(strstr(out.data, secrets[i]));
                warder_bytes_free(&out);
                /* as the agent: EACCES with the path, never "not found" */
                struct warder_error e = WARDER_ERROR_INIT;
                ck_assert_int_eq(rd(agent, cases[i], &out, &e), WARDER_EACCES);
                ck_assert_ptr_null(out.data);
                ck_assert_msg(strstr(e.message, cases[i]), "message: %s", e.message);
                warder_error_clear(&e);
        }
        /* what the agent owns it reads */
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0);
        ck_assert_str_eq(out.data, "mine\n");
        warder_bytes_free(&out);
        /* ls of the locked directory: EACCES; the host lists it */
        struct warder_entries ents = WARDER_ENTRIES_INIT;
        const char *p = at(W, "locked");
        ck_assert_int_eq(warder_backend_ls(&ents, agent, p, strlen(p), 0, NULL), WARDER_EACCES);
        ck_restored("ls");
        ck_assert_int_eq(warder_backend_ls(&ents, host, p, strlen(p), 0, NULL), 0);
        ck_assert_uint_eq(ents.count, 1);
        warder_entries_free(&ents);
        /* realpath below the locked directory: EACCES, not a resolved name */
        char *real = NULL;
        p = at(W, "locked/f");
        ck_assert_int_eq(warder_backend_realpath(&real, agent, p, strlen(p), NULL), WARDER_EACCES);
        ck_restored("realpath");
        ck_assert_ptr_null(real);
        /* glob and grep walk past what the agent cannot read; the host's find it */
        for (int as = 0; as < 2; as++) {
                warder_backend *b = as ? agent : host;
                struct warder_entries g = WARDER_ENTRIES_INIT;
                ck_assert_int_eq(warder_backend_glob(&g, b, "**/f", 4, W, strlen(W), 0, NULL), 0);
                ck_restored("glob");
                ck_assert_uint_eq(g.count, as ? 0 : 1);
                warder_entries_free(&g);
                /* one thread, and worker threads that open the files themselves */
                for (unsigned threads = 1; threads <= 4; threads += 3) {
                        struct warder_grep_request req = WARDER_GREP_REQUEST_INIT;
                        req.pattern = "SECRET";
                        req.pattern_len = 6;
                        req.path = W;
                        req.path_len = strlen(W);
                        req.threads = threads;
                        struct warder_grep_result gr = WARDER_GREP_RESULT_INIT;
                        ck_assert_int_eq(warder_backend_grep(&gr, b, &req, NULL), 0);
                        ck_restored("grep");
                        ck_assert_msg(gr.count == (as ? 0u : 3u), "%s, %u threads: %zu matches",
                                      as ? "agent" : "host", threads, gr.count);
                        warder_grep_result_free(&gr);
                }
        }
        warder_backend_free(host);
        warder_backend_free(agent);
}
END_TEST

/* Supplementary groups: none unless given, exactly those when given. */
START_TEST(test_groups)
{
        thread_creds(host_creds);
        uint32_t gx = GROUPX;
        warder_backend *without = local(true, NULL, 0), *with = local(true, &gx, 1);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(without, "group.txt", &out, NULL), WARDER_EACCES);
        ck_assert_int_eq(rd(with, "group.txt", &out, NULL), 0);
        ck_assert_ptr_nonnull(strstr(out.data, GROUP_SECRET));
        warder_bytes_free(&out);
        warder_backend_free(without);
        warder_backend_free(with);
}
END_TEST

START_TEST(test_writes)
{
        thread_creds(host_creds);
        warder_backend *host = local(false, NULL, 0), *agent = local(true, NULL, 0);
        const char *p = at(W, "ro/new");
        /* a directory the agent cannot write: refused, nothing left behind; the host can */
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_int_eq(warder_backend_write(agent, p, strlen(p), "x", 1, 0, &e), WARDER_EACCES);
        ck_assert_msg(strstr(e.message, "ro/new"), "message: %s", e.message);
        warder_error_clear(&e);
        ck_restored("write ro/new");
        struct stat st;
        ck_assert_int_ne(lstat(p, &st), 0);
        ck_assert_int_eq(warder_backend_write(host, p, strlen(p), "x", 1, 0, NULL), 0);
        /* editing another user's 0600 file: EACCES, the file untouched */
        p = at(W, "theirs.txt");
        ck_assert_int_eq(
            warder_backend_edit(NULL, agent, p, strlen(p), "THEIR", 5, "MINE", 4, 0, NULL),
            WARDER_EACCES);
        ck_restored("edit theirs.txt");
        ck_assert_ptr_nonnull(strstr(peek(p), THEIR_SECRET));
        /* a new file is the agent's, 0666 minus the umask (022 here) */
        p = at(W, "rw/new");
        ck_assert_int_eq(warder_backend_write(agent, p, strlen(p), "n\n", 2, 0, NULL), 0);
        ck_restored("write rw/new");
        ck_assert_int_eq(lstat(p, &st), 0);
        ck_assert_uint_eq(st.st_uid, AGENT);
        ck_assert_uint_eq(st.st_gid, AGENT);
        ck_assert_uint_eq(st.st_mode & 07777, 0644);
        /* a replaced file keeps its mode without set-user-ID and set-group-ID */
        own(p, AGENT, AGENT, 06750);
        ck_assert_int_eq(warder_backend_edit(NULL, agent, p, strlen(p), "n", 1, "m", 1, 0, NULL),
                         0);
        ck_restored("edit rw/new");
        ck_assert_int_eq(lstat(p, &st), 0);
        ck_assert_uint_eq(st.st_uid, AGENT);
        ck_assert_uint_eq(st.st_mode & 07777, 0750);
        ck_assert_str_eq(peek(p), "m\n");
        /* missing parents are created as the agent, where the agent may */
        p = at(W, "rw/a/b/c");
        ck_assert_int_eq(warder_backend_write(agent, p, strlen(p), "c", 1, 0, NULL), 0);
        ck_assert_int_eq(lstat(at(W, "rw/a/b"), &st), 0);
        ck_assert_uint_eq(st.st_uid, AGENT);
        p = at(W, "ro/x/y");
        ck_assert_int_eq(warder_backend_write(agent, p, strlen(p), "y", 1, 0, NULL), WARDER_EACCES);
        ck_restored("write ro/x/y");
        warder_backend_free(host);
        warder_backend_free(agent);
}
END_TEST

/*
 * The parent directory swapped for a symlink to a root-only directory mid-read (the rename
 * racer): the agent never gets a byte it could not read itself. Control: the host, following
 * symlinks inside the root (the backend alone, no guard), reads the secret at times.
 */
struct swapper {
        atomic_bool stop;
        atomic_ulong swaps;
        char a[PATH_MAX], b[PATH_MAX];
};

static void *swap_loop(void *arg)
{
        struct swapper *s = arg;
        while (!atomic_load(&s->stop))
                if (syscall(SYS_renameat2, AT_FDCWD, s->a, AT_FDCWD, s->b, 2 /* EXCHANGE */) == 0)
                        atomic_fetch_add(&s->swaps, 1);
        return NULL;
}

#define RACE_READS 3000

static unsigned race_leaks(warder_backend *b, const char *p)
{
        unsigned leaked = 0;
        for (int i = 0; i < RACE_READS; i++) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                if (warder_backend_read(&out, b, p, strlen(p), 0, 0, 0, NULL) == 0)
                        leaked += strstr(out.data, ROOT_SECRET) != NULL;
                warder_bytes_free(&out);
        }
        return leaked;
}

START_TEST(test_swap_race)
{
        thread_creds(host_creds);
        mkd(at(W, "box"));
        put(at(W, "box/f"), "public\n");
        own(at(W, "box"), AGENT, AGENT, 0755);
        mkd(at(W, "vault"));
        put(at(W, "vault/f"), ROOT_SECRET "\n");
        own(at(W, "vault"), 0, 0, 0700);
        lnk("vault", at(W, "lnk"));
        struct swapper s;
        atomic_init(&s.stop, false);
        atomic_init(&s.swaps, 0);
        snprintf(s.a, sizeof(s.a), "%s/box", W);
        snprintf(s.b, sizeof(s.b), "%s/lnk", W);
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/box/f", W);
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, swap_loop, &s), 0);
        warder_backend *host = local(false, NULL, 0), *agent = local(true, NULL, 0);
        /* Rounds alternate until the control arm has seen the race (a loaded machine may
         * need several); the agent gets as many reads as the host. */
        unsigned host_leaks = 0, agent_leaks = 0, rounds = 0;
        while (rounds < 40 && (rounds == 0 || host_leaks == 0)) {
                host_leaks += race_leaks(host, p);
                agent_leaks += race_leaks(agent, p);
                rounds++;
        }
        atomic_store(&s.stop, true);
        pthread_join(t, NULL);
        ck_restored("the race");
        fprintf(stderr, "swap race: %lu swaps; host leaked %u/%u, agent leaked %u/%u\n",
                (unsigned long)atomic_load(&s.swaps), host_leaks, rounds * RACE_READS, agent_leaks,
                rounds * RACE_READS);
        ck_assert_uint_gt(atomic_load(&s.swaps), 0);
        ck_assert_uint_gt(host_leaks, 0); /* the control arm */
        ck_assert_uint_eq(agent_leaks, 0);
        warder_backend_free(host);
        warder_backend_free(agent);
}
END_TEST

/* A host thread with supplementary groups of its own: the agent (none given) acts without
 * them, and they are back after each operation. */
START_TEST(test_host_groups)
{
        gid_t hg[2] = {100, GROUPX};
        ck_assert_int_eq(syscall(SYS_setgroups, 2, hg), 0);
        thread_creds(host_creds);
        ck_assert_ptr_nonnull(strstr(host_creds, "Groups:\t100 40010"));
        warder_backend *host = local(false, NULL, 0), *agent = local(true, NULL, 0);
        uint32_t unsorted[3] = {GROUPX, 100, GROUPX};
        warder_backend *with = local(true, unsorted, 3);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(agent, "group.txt", &out, NULL), WARDER_EACCES);
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        ck_assert_int_eq(rd(with, "group.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        ck_assert_int_eq(rd(with, "theirs.txt", &out, NULL), WARDER_EACCES);
        ck_assert_int_eq(rd(host, "theirs.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        warder_backend_free(host);
        warder_backend_free(agent);
        warder_backend_free(with);
}
END_TEST

/* Four threads: one acts as the agent in a loop, three watch their own credentials and read
 * a root-only file with plain open(2): they never see the agent's credentials. */
struct watch {
        atomic_bool *stop;
        unsigned seen_agent, plain_refused, rounds;
};

static void *watcher(void *arg)
{
        struct watch *w = arg;
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/theirs.txt", W);
        while (!atomic_load(w->stop) || w->rounds < 100) {
                w->seen_agent += thread_fsuid() != 0;
                int fd = open(p, O_RDONLY);
                w->plain_refused += fd < 0;
                if (fd >= 0)
                        close(fd);
                w->rounds++;
        }
        return NULL;
}

START_TEST(test_threads)
{
        thread_creds(host_creds);
        atomic_bool stop;
        atomic_init(&stop, false);
        struct watch w[3];
        pthread_t t[3];
        for (int i = 0; i < 3; i++) {
                w[i] = (struct watch){&stop, 0, 0, 0};
                ck_assert_int_eq(pthread_create(&t[i], NULL, watcher, &w[i]), 0);
        }
        warder_backend *agent = local(true, NULL, 0);
        unsigned refused = 0;
        for (int i = 0; i < 2000; i++) {
                struct warder_bytes out = WARDER_BYTES_INIT;
                const char *p = at(W, i % 2 ? "theirs.txt" : "mine.txt");
                refused +=
                    warder_backend_read(&out, agent, p, strlen(p), 0, 0, 0, NULL) == WARDER_EACCES;
                warder_bytes_free(&out);
        }
        atomic_store(&stop, true);
        for (int i = 0; i < 3; i++) {
                pthread_join(t[i], NULL);
                ck_assert_uint_gt(w[i].rounds, 0);
                ck_assert_uint_eq(w[i].seen_agent, 0);
                ck_assert_uint_eq(w[i].plain_refused, 0);
        }
        ck_assert_uint_eq(refused, 1000);
        ck_restored("the threads");
        warder_backend_free(agent);
}
END_TEST

/* A switch or a restore that fails fails the operation; a thread whose restore failed is
 * never used again as the host. */
START_TEST(test_switch_failures)
{
        thread_creds(host_creds);
        warder_backend *agent = local(true, NULL, 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        warder__creds_test_fail = 1;
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), WARDER_EIO);
        ck_assert_ptr_null(out.data);
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        /* a new backend: a read through the ring switches once, to register the agent */
        warder_backend_free(agent);
        agent = local(true, NULL, 0);
        warder__creds_test_fail = 2;
        struct warder_error e = WARDER_ERROR_INIT;
        ck_assert_int_eq(rd(agent, "mine.txt", &out, &e), WARDER_EIO);
        ck_assert_ptr_null(out.data);
        ck_assert_ptr_nonnull(strstr(e.message, "restore"));
        warder_error_clear(&e);
        ck_assert_int_eq(rd(agent, "mine.txt", &out, &e), WARDER_EIO);
        ck_assert_ptr_nonnull(strstr(e.message, "refusing"));
        warder_error_clear(&e);
        warder_backend_free(agent);
}
END_TEST

/* Which way each operation acted (§6.6): a read and a realpath through the thread's ring —
 * the thread's credentials never change — unless the suite runs with
 * WARDER_TEST_AGENT_IO=switch or io_uring is unavailable; the other operations switch. */
START_TEST(test_which_way)
{
        thread_creds(host_creds);
        warder_backend *agent = local(true, NULL, 0);
        bool ring = warder__creds_mode == 0 && warder__ring_ready() == 0;
        if (warder__creds_mode == 0 && !ring)
                fprintf(stderr, "asuser: io_uring is unavailable here (%s): reads switch\n",
                        strerror(-warder__ring_ready()));
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0); /* registers, on the ring */
        warder_bytes_free(&out);
        unsigned long r0 = atomic_load(&warder__creds_ring_ops),
                      s0 = atomic_load(&warder__creds_switch_ops);
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        ck_assert_int_eq(rd(agent, "theirs.txt", &out, NULL), WARDER_EACCES);
        char *real = NULL;
        const char *p = at(W, "mine.txt");
        ck_assert_int_eq(warder_backend_realpath(&real, agent, p, strlen(p), NULL), 0);
        ck_assert_str_eq(real, p);
        free(real);
        ck_assert_uint_eq(atomic_load(&warder__creds_ring_ops) - r0, ring ? 3 : 0);
        ck_assert_uint_eq(atomic_load(&warder__creds_switch_ops) - s0, ring ? 0 : 3);
        p = at(W, "rw/new");
        ck_assert_int_eq(warder_backend_write(agent, p, strlen(p), "x", 1, 0, NULL), 0);
        ck_restored("write");
        ck_assert_uint_eq(atomic_load(&warder__creds_switch_ops) - s0, ring ? 1 : 4);
        warder_backend_free(agent);
}
END_TEST

/* Through the ring, the calls of an operation look up as the agent (refused where the agent
 * is refused, the host's plain calls as control arm), and what the ring does not do —
 * create, rename, remove — fails instead of running as the host. */
START_TEST(test_ring_calls)
{
        if (warder__creds_mode != 0 || warder__ring_ready() != 0)
                return; /* test_which_way says why */
        thread_creds(host_creds);
        const struct warder__creds c = {AGENT, AGENT, NULL, 0, warder__creds_new_id()};
        int wd = open(W, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(wd, 0);
        struct stat st;
        char buf[64];
        /* control arms: the host */
        ck_assert_int_eq(warder__as_fstatat(wd, "locked/f", &st, AT_SYMLINK_NOFOLLOW), 0);
        int fd = warder__as_openat(wd, "theirs.txt", O_RDONLY | O_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        close(fd);
        lnk("f", at(W, "locked/l"));
        ck_assert_int_eq(warder__as_readlinkat(wd, "locked/l", buf, sizeof(buf)), 1);
        struct warder__creds_saved sv;
        ck_assert_int_eq(warder__creds_enter_lookup(&sv, &c, NULL), 0);
        ck_assert(sv.ring);
        errno = 0;
        ck_assert_int_eq(warder__as_fstatat(wd, "locked/f", &st, AT_SYMLINK_NOFOLLOW), -1);
        ck_assert_int_eq(errno, EACCES);
        ck_assert_int_eq(warder__as_openat(wd, "theirs.txt", O_RDONLY | O_CLOEXEC, 0), -1);
        ck_assert_int_eq(errno, EACCES);
        ck_assert_int_eq(warder__as_readlinkat(wd, "locked/l", buf, sizeof(buf)), -1);
        ck_assert_int_eq(errno, EACCES);
        ck_assert_int_eq(warder__as_fstatat(wd, "mine.txt", &st, 0), 0);
        ck_assert_uint_eq(st.st_uid, AGENT);
        /* the thread itself kept the host's credentials */
        char now[1024];
        thread_creds(now);
        ck_assert_str_eq(now, host_creds);
        ck_assert_int_eq(warder__as_mkdirat(wd, "rw/d", 0755), -1);
        ck_assert_int_eq(errno, EIO);
        ck_assert_int_eq(warder__as_unlinkat(wd, "rw", AT_REMOVEDIR), -1);
        ck_assert_int_eq(errno, EIO);
        ck_assert_int_eq(warder__as_renameat(wd, "mine.txt", wd, "rw/m"), -1);
        ck_assert_int_eq(errno, EIO);
        ck_assert_int_eq(warder__creds_leave(&sv, 0, NULL), 0);
        ck_assert_int_ne(lstat(at(W, "rw/d"), &st), 0);
        ck_assert_int_eq(lstat(at(W, "mine.txt"), &st), 0);
        /* the same creation by a switch succeeds, and the directory is the agent's */
        ck_assert_int_eq(warder__creds_enter(&sv, &c, NULL), 0);
        ck_assert_int_eq(warder__as_mkdirat(wd, "rw/d", 0755), 0);
        ck_assert_int_eq(warder__creds_leave(&sv, 0, NULL), 0);
        ck_restored("mkdirat");
        ck_assert_int_eq(lstat(at(W, "rw/d"), &st), 0);
        ck_assert_uint_eq(st.st_uid, AGENT);
        close(wd);
}
END_TEST

/* A child made by fork() after the parent used its ring acts as the agent on its own. */
START_TEST(test_fork)
{
        thread_creds(host_creds);
        warder_backend *agent = local(true, NULL, 0), *host = local(false, NULL, 0);
        struct warder_bytes out = WARDER_BYTES_INIT;
        ck_assert_int_eq(rd(agent, "mine.txt", &out, NULL), 0);
        warder_bytes_free(&out);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int a = rd(agent, "mine.txt", &out, NULL);
                warder_bytes_free(&out);
                int b = rd(agent, "theirs.txt", &out, NULL);
                bool refused = !out.data;
                /* control arm: the host, in the same child, reads it */
                int c = rd(host, "theirs.txt", &out, NULL);
                bool got = out.data && strstr(out.data, THEIR_SECRET);
                _exit(a == 0 && b == WARDER_EACCES && refused && c == 0 && got ? 0 : 10);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        ck_assert_int_eq(WEXITSTATUS(st), 0);
        warder_backend_free(agent);
        warder_backend_free(host);
}
END_TEST

static int new_status(uint32_t uid, uint32_t gid, const uint32_t *groups, size_t n,
                      unsigned version)
{
        struct warder_local_options lo;
        ck_assert_int_eq(warder_local_options_init(&lo, version), 0);
        if (version >= 3) {
                lo.act_as_agent = true;
                lo.agent_uid = uid;
                lo.agent_gid = gid;
                lo.agent_groups = groups;
                lo.agent_ngroups = n;
        }
        warder_backend *b = NULL;
        int rc = warder_local_new(&b, W, &lo, NULL);
        warder_backend_free(b);
        return rc;
}

START_TEST(test_bad_credentials)
{
        uint32_t zero = 0, bad = UINT32_MAX;
        ck_assert_int_eq(new_status(0, AGENT, NULL, 0, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, 0, NULL, 0, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(UINT32_MAX, AGENT, NULL, 0, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, UINT32_MAX, NULL, 0, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, AGENT, &zero, 1, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, AGENT, &bad, 1, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, AGENT, NULL, 1, 3), WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, AGENT, NULL, WARDER__CREDS_MAX_GROUPS + 1, 3),
                         WARDER_EINVAL);
        ck_assert_int_eq(new_status(AGENT, AGENT, NULL, 0, 3), 0);
        /* a caller built against version 2 gets the host's credentials, as before */
        ck_assert_int_eq(new_status(0, 0, NULL, 0, 2), 0);
}
END_TEST

/* A process that cannot switch is refused at construction, never acting as itself. */
START_TEST(test_cannot_switch)
{
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (setgroups(0, NULL) || setresgid(OTHER, OTHER, OTHER) ||
                    setresuid(OTHER, OTHER, OTHER))
                        _exit(10);
                struct warder_local_options lo = WARDER_LOCAL_OPTIONS_INIT;
                lo.act_as_agent = true;
                lo.agent_uid = AGENT;
                lo.agent_gid = AGENT;
                warder_backend *b = NULL;
                int rc = warder_local_new(&b, W, &lo, NULL);
                _exit(rc == WARDER_EACCES && !b ? 0 : 11);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st));
        ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

int main(void)
{
        if (geteuid() != 0) {
                fprintf(stderr, "SKIP: acting as the agent needs root (CAP_SETUID, CAP_SETGID) "
                                "to switch the file system credentials\n");
                return WARDER_TEST_SKIP;
        }
        Suite *s = suite_create("asuser");
        TCase *tc = tcase_create("asuser");
        tcase_set_timeout(tc, 120);
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_kernel_permissions);
        tcase_add_test(tc, test_groups);
        tcase_add_test(tc, test_host_groups);
        tcase_add_test(tc, test_writes);
        tcase_add_test(tc, test_swap_race);
        tcase_add_test(tc, test_threads);
        tcase_add_test(tc, test_switch_failures);
        tcase_add_test(tc, test_bad_credentials);
        tcase_add_test(tc, test_cannot_switch);
        tcase_add_test(tc, test_which_way);
        tcase_add_test(tc, test_ring_calls);
        tcase_add_test(tc, test_fork);
        suite_add_tcase(s, tc);
        return warder_test_run(s);
}
