/* SPDX-License-Identifier: MIT */
/*
 * The local backend (§6.2): grep, a walk feeding a worker pool over the grep engine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend-internal.h"
#include "backends/creds.h"
#include "grep/engine.h"
#include "grep.h"
#include "walk.h"
#include "util.h"
#include "warder/glob.h"

/* ---- grep ------------------------------------------------------------------------- */

/*
 * grep walks on the calling thread and searches on a pool of workers. The walk (in bytewise
 * name order, as every walk) asks the glob filter and the request's may_search for each file
 * — so may_search is only ever called on the calling thread, and a file it refuses is never
 * opened — then queues the file as the next job, with a descriptor of its directory. Workers
 * open each job's file there (O_NOFOLLOW), read and search it; each job keeps its own
 * matches. At the end the jobs' matches are joined in
 * job order, that is in walk order (path order), and within a file in line order, so the
 * result is the same whatever the number of threads. The match cap cuts that order: once the
 * jobs done without a gap from the first hold more than max_matches, the rest are not
 * searched (the walk still goes on, by names only, so hidden_files counts the whole scope).
 * Any failure of a job (no memory, an I/O error) fails the whole grep.
 */

#define GREP_MAX_THREADS 64
#define GREP_MAX_QUEUED  128 /* files waiting for a worker; at most as many directories open */
#define GREP_WAKE_BATCH  8   /* files queued per wake-up of an idle worker */

/* A directory of the walk, kept open while jobs in it wait: a worker opens each file in its
 * directory as the walk found it (openat, O_NOFOLLOW). References are counted under the
 * lock; the walk holds one while it lists the directory. */
struct grep_dir {
        int fd;
        size_t refs;
};

struct grep_job {
        char *path;           /* absolute */
        const char *name;     /* its last component, opened in dir */
        struct grep_dir *dir; /* NULL: fd is already open */
        int fd;               /* consumed by the worker */
        bool done, truncated;
        struct warder_grep_result res;
};

struct grep_ud {
        const struct local *l;
        const struct warder_grep_request *req;
        const struct warder__grep_engine *engine;
        warder_glob *filter;
        bool filter_absolute; /* an absolute filter sees absolute paths */
        bool filter_name;     /* a filter without '/' sees file names at any depth */
        const char *base;
        size_t base_len;
        size_t max_matches; /* 0: none */
        uint64_t max_file;
        bool skip_binary;
        struct warder__buf full;
        size_t hidden;
        /* The hook each worker runs when it starts and before it ends (per-thread state such
         * as file-system credentials); NULL: none. */
        struct warder__grep_hooks hooks;
        /* The jobs, in walk order, and the queue between the walk and the workers. */
        pthread_mutex_t mu;
        pthread_cond_t cv_work, cv_space;
        struct grep_job **jobs;
        size_t njobs, cap_jobs;
        size_t next;       /* the next job to hand to a worker */
        size_t prefix;     /* jobs done without a gap from the first */
        size_t prefix_sum; /* their matches */
        bool walk_done, stop;
        bool walk_waits; /* the walk waits for the queue to drain to half */
        int failed;      /* the first failure of a job */
        char fail_msg[512];
        unsigned threads;     /* workers (0: the walk searches each job itself) */
        struct grep_dir *dir; /* the directory the walk is in */
        unsigned long dir_id;
};

struct grep_worker {
        struct grep_ud *g;
        struct warder__grep_scratch *scratch;
        char *buf;
        size_t buf_cap;
        struct grep_job *job;
        struct warder_error err;
};

static int grep_emit(void *ud, uint64_t line, const char *text, size_t len)
{
        struct grep_worker *w = ud;
        struct grep_job *j = w->job;
        size_t max = w->g->max_matches;
        if (max && j->res.count >= max) {
                j->truncated = true; /* one more than the cap: this file alone reaches it */
                return 1;
        }
        if (warder_grep_add(&j->res, j->path, strlen(j->path), line, text, len))
                return warder__local_fail_oom(&w->err);
        return 0;
}

/* Reads and searches one job's file (its descriptor is consumed). */
static int grep_job_run(struct grep_worker *w, struct grep_job *j)
{
        struct grep_ud *g = w->g;
        int fd = j->fd;
        j->fd = -1;
        if (j->dir) {
                fd =
                    warder__as_openat(j->dir->fd, j->name,
                                      O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0);
                if (fd < 0)
                        return warder__local_walk_skips(errno)
                                   ? 0
                                   : warder__local_fail_errno(&w->err, errno, "cannot search",
                                                              j->path);
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                int e = errno;
                close(fd);
                return warder__local_walk_skips(e)
                           ? 0
                           : warder__local_fail_errno(&w->err, e, "cannot search", j->path);
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return 0; /* replaced by something else since the walk saw it */
        }
        uint64_t want = (uint64_t)st.st_size;
        if (want > g->max_file) {
                want = g->max_file;
                j->truncated = true;
        }
        if (want == 0) {
                close(fd);
                return 0;
        }
        if (want + 1 > w->buf_cap) {
                char *nb = realloc(w->buf, (size_t)want + 1);
                if (!nb) {
                        close(fd);
                        return warder__local_fail_oom(&w->err);
                }
                w->buf = nb;
                w->buf_cap = (size_t)want + 1;
        }
        ssize_t got = warder__local_read_full(fd, w->buf, (size_t)want, 0);
        close(fd);
        if (got < 0)
                return warder__local_walk_skips((int)-got)
                           ? 0
                           : warder__local_fail_errno(&w->err, (int)-got, "cannot search", j->path);
        size_t n = (size_t)got;
        if (n == 0 || (g->skip_binary && warder__grep_is_binary(w->buf, n)))
                return 0;
        w->job = j;
        bool incomplete = false;
        int rc = warder__grep_search(g->engine, w->scratch, w->buf, n, grep_emit, w, &incomplete);
        if (incomplete)
                j->truncated = true; /* a line the engine could not decide */
        return rc < 0 ? rc : 0;
}

/* Drops a reference to a directory (under the lock). */
static void grep_dir_release(struct grep_dir *d)
{
        if (d && --d->refs == 0) {
                close(d->fd);
                free(d);
        }
}

/* Records a job's end (under the lock): a failure stops the grep, and so does a prefix of
 * done jobs that holds more matches than the cap. */
static void grep_job_done(struct grep_ud *g, struct grep_job *j, int rc, struct warder_error *err)
{
        j->done = true;
        grep_dir_release(j->dir);
        j->dir = NULL;
        if (rc < 0 && !g->failed) {
                g->failed = rc;
                snprintf(g->fail_msg, sizeof(g->fail_msg), "%s",
                         err->message[0] ? err->message : warder_strerror(rc));
                g->stop = true;
        }
        while (g->prefix < g->njobs && g->jobs[g->prefix]->done)
                g->prefix_sum += g->jobs[g->prefix++]->res.count;
        if (g->max_matches && g->prefix_sum > g->max_matches)
                g->stop = true;
        if (g->stop && g->walk_waits)
                pthread_cond_signal(&g->cv_space);
}

/* Takes the next job and searches it, or only closes it once the grep has stopped. Called,
 * and returns, with the lock held. */
static void grep_take(struct grep_ud *g, struct grep_worker *w)
{
        struct grep_job *j = g->jobs[g->next++];
        bool skip = g->stop;
        /* The walk sleeps until half the queue is taken, not for each job. */
        if (g->walk_waits && g->njobs - g->next <= GREP_MAX_QUEUED / 2)
                pthread_cond_signal(&g->cv_space);
        pthread_mutex_unlock(&g->mu);
        int rc = 0;
        if (skip) {
                if (j->fd >= 0)
                        close(j->fd);
                j->fd = -1;
        } else {
                rc = grep_job_run(w, j);
        }
        pthread_mutex_lock(&g->mu);
        grep_job_done(g, j, rc, &w->err);
}

static void *grep_worker_main(void *arg)
{
        struct grep_worker *w = arg;
        struct grep_ud *g = w->g;
        if (g->hooks.worker_enter)
                g->hooks.worker_enter(g->hooks.ud);
        pthread_mutex_lock(&g->mu);
        for (;;) {
                while (g->next == g->njobs && !g->walk_done)
                        pthread_cond_wait(&g->cv_work, &g->mu);
                if (g->next == g->njobs)
                        break;
                grep_take(g, w);
        }
        pthread_mutex_unlock(&g->mu);
        if (g->hooks.worker_leave)
                g->hooks.worker_leave(g->hooks.ud);
        return NULL;
}

/* Queues the open file `fd` (consumed) as the next job, or searches it now without workers. */
static int grep_enqueue(struct grep_ud *g, struct grep_worker *self, int fd, struct grep_dir *dir,
                        const char *path, struct warder_error *err)
{
        struct grep_job *j = calloc(1, sizeof(*j));
        char *p = strdup(path);
        if (!j || !p) {
                free(j);
                free(p);
                if (fd >= 0)
                        close(fd);
                return warder__local_fail_oom(err);
        }
        j->path = p;
        j->name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
        j->fd = fd;
        j->res = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        pthread_mutex_lock(&g->mu);
        if (g->threads && g->njobs - g->next >= GREP_MAX_QUEUED) {
                g->walk_waits = true;
                while (g->njobs - g->next > GREP_MAX_QUEUED / 2 && !g->stop)
                        pthread_cond_wait(&g->cv_space, &g->mu);
                g->walk_waits = false;
        }
        if (g->njobs == g->cap_jobs) {
                size_t cap = g->cap_jobs ? g->cap_jobs * 2 : 256;
                struct grep_job **nv = realloc(g->jobs, cap * sizeof(*nv));
                if (!nv) {
                        pthread_mutex_unlock(&g->mu);
                        free(j->path);
                        free(j);
                        if (fd >= 0)
                                close(fd);
                        return warder__local_fail_oom(err);
                }
                g->jobs = nv;
                g->cap_jobs = cap;
        }
        g->jobs[g->njobs++] = j;
        if (dir) {
                j->dir = dir;
                dir->refs++;
        }
        if (g->threads) {
                /* Idle workers are woken by batches: one wake-up per file costs more than
                 * searching a small one. The end of the walk wakes them all. */
                if ((g->njobs - g->next) % GREP_WAKE_BATCH == 0)
                        pthread_cond_signal(&g->cv_work);
                pthread_mutex_unlock(&g->mu);
                return 0;
        }
        /* No workers: the walk searches the job itself, in the same order. */
        grep_take(g, self);
        pthread_mutex_unlock(&g->mu);
        return 0;
}

/* The request's glob filter: 1 to search the file, 0 to skip it, <0 on a matcher failure. */
static int grep_filter(struct grep_ud *g, const char *abs, size_t abs_len, const char *rel,
                       size_t rel_len, const char *name, struct warder_error *err)
{
        if (!g->filter)
                return 1;
        const char *s = g->filter_absolute ? abs : g->filter_name ? name : rel;
        size_t len = g->filter_absolute ? abs_len : g->filter_name ? strlen(name) : rel_len;
        int m = warder_glob_match(g->filter, s, len);
        if (m < 0)
                return warder_error_set(err, m, "grep: the glob filter failed");
        return m;
}

/* §4.7: the request's may_search decides before the file is opened; a refused file is
 * counted (its name decided that, never its contents) and skipped unopened. */
static bool grep_may_search(struct grep_ud *g, const char *path, size_t len)
{
        if (!g->req->may_search || g->req->may_search(g->req->may_search_ud, path, len))
                return true;
        g->hidden++;
        return false;
}

/* 0: go on searching; 1: the cap is reached (names only from here); -1: a job failed. */
static int grep_stopped(struct grep_ud *g)
{
        pthread_mutex_lock(&g->mu);
        int stop = g->failed ? -1 : g->stop ? 1 : 0;
        pthread_mutex_unlock(&g->mu);
        return stop;
}

struct grep_walk {
        struct grep_ud *g;
        struct grep_worker *self;
};

static int grep_visit(struct walk *w, int dfd, const char *name, unsigned char type)
{
        struct grep_walk *gw = w->ud;
        struct grep_ud *g = gw->g;
        if (type != DT_REG)
                return 0; /* directories are walked, symlinks and special files skipped */
        if (warder__local_join(&g->full, g->base, g->base_len, w->rel.data))
                return warder__local_fail_oom(w->err);
        int m = grep_filter(g, g->full.data, g->full.len, w->rel.data, w->rel.len, name, w->err);
        if (m <= 0 || !grep_may_search(g, g->full.data, g->full.len))
                return m < 0 ? m : 0;
        int stop = grep_stopped(g);
        if (stop)
                return stop < 0 ? 1 : 0; /* a failure ends the walk; the cap, the search */
        if (!g->dir || g->dir_id != w->dir_id) {
                /* A new directory: a descriptor of its own, which the jobs in it share. */
                struct grep_dir *d = malloc(sizeof(*d));
                int fd = d ? fcntl(dfd, F_DUPFD_CLOEXEC, 0) : -1;
                int e = errno;
                if (fd < 0) {
                        free(d);
                        return d ? warder__local_fail_errno(w->err, e, "cannot search", w->rel.data)
                                 : warder__local_fail_oom(w->err);
                }
                *d = (struct grep_dir){fd, 1};
                pthread_mutex_lock(&g->mu);
                grep_dir_release(g->dir);
                pthread_mutex_unlock(&g->mu);
                g->dir = d;
                g->dir_id = w->dir_id;
        }
        return grep_enqueue(g, gw->self, -1, g->dir, g->full.data, w->err);
}

/* The number of workers for a request: `threads`, 0 for the online CPUs, at most
 * GREP_MAX_THREADS; 1 searches on the calling thread. */
static unsigned grep_threads(const struct warder_grep_request *req)
{
        unsigned n = req->version >= 4 ? req->threads : 0;
        if (n == 0) {
#ifdef WARDER__FAULT_INJECTION
                n = 1; /* the fault walk counts its points in one order */
#else
                long cpus = sysconf(_SC_NPROCESSORS_ONLN);
                n = cpus > 0 ? (unsigned)cpus : 1;
#endif
        }
        return n > GREP_MAX_THREADS ? GREP_MAX_THREADS : n;
}

/* Moves the jobs' matches in job order into res, up to the cap (the jobs before the cut
 * were all searched: the grep stops only once a prefix of done jobs passes the cap). */
static int grep_join(struct grep_ud *g, struct warder_grep_result *res, struct warder_error *err)
{
        size_t want = 0, last = g->njobs;
        for (size_t i = 0; i < g->njobs; i++) {
                const struct grep_job *j = g->jobs[i];
                if (j->truncated)
                        res->truncated = true;
                want += j->res.count;
                if (g->max_matches && want > g->max_matches) {
                        res->truncated = true; /* more matches than the cap, in walk order */
                        want = g->max_matches;
                        last = i + 1;
                        break;
                }
        }
        if (want && !(res->items = malloc(want * sizeof(*res->items))))
                return warder__local_fail_oom(err);
        for (size_t i = 0; i < last && res->count < want; i++) {
                struct grep_job *j = g->jobs[i];
                size_t take = j->res.count;
                if (take > want - res->count)
                        take = want - res->count;
                if (!take)
                        continue;
                memcpy(res->items + res->count, j->res.items, take * sizeof(*res->items));
                res->count += take;
                /* what moved is no longer the job's; the rest is freed with the job */
                if (j->res.count > take)
                        memmove(j->res.items, j->res.items + take,
                                (j->res.count - take) * sizeof(*j->res.items));
                j->res.count -= take;
        }
        res->hidden_files = g->hidden;
        return 0;
}

static void grep_jobs_free(struct grep_ud *g)
{
        for (size_t i = 0; i < g->njobs; i++) {
                struct grep_job *j = g->jobs[i];
                if (j->fd >= 0)
                        close(j->fd);
                grep_dir_release(j->dir); /* a job never taken (no lock: the workers ended) */
                warder_grep_result_free(&j->res);
                free(j->path);
                free(j);
        }
        free(g->jobs);
}

int warder__local_grep(warder_backend *b, const struct warder_grep_request *req,
                       struct warder_grep_result *out, struct warder_error *err)
{
        struct local *l = to_local(b);
        struct warder__buf norm = WARDER__BUF_INIT;
        struct warder_grep_result res = WARDER_GREP_RESULT_INIT;
        struct warder__grep_engine *engine = NULL;
        struct grep_ud g;
        memset(&g, 0, sizeof(g));
        g.l = l;
        g.req = req;
        g.full = (struct warder__buf)WARDER__BUF_INIT;
        struct grep_worker self = {&g, NULL, NULL, 0, NULL, WARDER_ERROR_INIT};
        struct grep_walk gw = {&g, &self};
        struct walk w = {l, WARDER__BUF_INIT, 0, grep_visit, &gw, err, -1, 0, 0};
        pthread_t tids[GREP_MAX_THREADS];
        struct grep_worker workers[GREP_MAX_THREADS];
        unsigned started = 0;
        bool sync = false;
        const char *rel;
        int rc;
        if (!req || !req->pattern || !req->path)
                return warder_error_set(err, WARDER_EINVAL, "grep: no pattern or path");
        rc = warder__local_to_rel(l, req->path, &norm, &rel, err);
        if (rc)
                goto out;
        rc = warder__grep_engine_new(
            &engine, req->pattern, strlen(req->pattern),
            (req->flags & WARDER_GREP_CASELESS) ? WARDER__GREP_CASELESS : 0, err);
        if (rc)
                goto out;
        g.engine = engine;
        if (!(self.scratch = warder__grep_scratch_new(engine))) {
                rc = warder__local_fail_oom(err);
                goto out;
        }
        if (req->glob && req->glob[0]) {
                rc = warder_glob_compile(&g.filter, req->glob, strlen(req->glob), 0, err);
                if (rc)
                        goto out;
                g.filter_absolute = req->glob[0] == '/';
                g.filter_name = !strchr(req->glob, '/');
        }
        size_t cap_matches =
            l->opts.grep_max_matches ? l->opts.grep_max_matches : LOCAL_DEFAULT_MATCHES;
        g.max_matches =
            req->max_matches && req->max_matches < cap_matches ? req->max_matches : cap_matches;
        g.max_file = warder__local_cap_or(l->opts.grep_max_file, LOCAL_DEFAULT_CAP);
        g.skip_binary = l->opts.grep_skip_binary;
        g.base = norm.data;
        g.base_len = norm.len;
        if (pthread_mutex_init(&g.mu, NULL) || pthread_cond_init(&g.cv_work, NULL) ||
            pthread_cond_init(&g.cv_space, NULL)) {
                rc = warder_error_set(err, WARDER_ENOMEM, "grep: cannot set up its threads");
                goto out;
        }
        sync = true;

        /* The base: a directory is walked, a regular file searched. It is looked at through an
         * O_PATH descriptor first, so that a file may_search refuses is never opened. */
        int fd = warder__local_open_target(l, rel, req->flags, O_PATH, NULL, norm.data,
                                           "cannot search", err);
        if (fd < 0) {
                rc = fd;
                goto out;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                rc = warder__local_fail_errno(err, errno, "cannot search", norm.data);
                close(fd);
                goto out;
        }
        if (S_ISDIR(st.st_mode)) {
                int dfd = warder__as_openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
                int e = errno;
                close(fd);
                if (dfd < 0) {
                        rc = warder__local_fail_errno(err, e, "cannot search", norm.data);
                        goto out;
                }
                if (warder__buf_puts(&w.rel, "")) {
                        close(dfd);
                        rc = warder__local_fail_oom(err);
                        goto out;
                }
                unsigned n = grep_threads(req);
                for (; n > 1 && started < n; started++) {
                        workers[started] =
                            (struct grep_worker){&g, NULL, NULL, 0, NULL, WARDER_ERROR_INIT};
                        workers[started].scratch = warder__grep_scratch_new(engine);
                        if (!workers[started].scratch ||
                            pthread_create(&tids[started], NULL, grep_worker_main,
                                           &workers[started])) {
                                warder__grep_scratch_free(workers[started].scratch);
                                break;
                        }
                }
                g.threads = started; /* fewer workers than asked: slower, never wrong */
                rc = warder__local_walk_dir(&w, dfd, 0);
        } else if (S_ISREG(st.st_mode)) {
                /* A file base: the filter sees its name. */
                close(fd);
                const char *name = strrchr(norm.data, '/') + 1;
                rc = grep_filter(&g, norm.data, norm.len, name, strlen(name), name, err);
                if (rc > 0 && grep_may_search(&g, norm.data, norm.len)) {
                        fd = warder__local_open_target(l, rel, req->flags,
                                                       O_RDONLY | O_NONBLOCK | O_NOCTTY, NULL,
                                                       norm.data, "cannot search", err);
                        struct stat now;
                        if (fd < 0) {
                                rc = fd;
                        } else if (fstat(fd, &now) != 0 || now.st_dev != st.st_dev ||
                                   now.st_ino != st.st_ino) {
                                char tmp[256];
                                close(fd);
                                rc = warder_error_set(err, WARDER_EIO,
                                                      "'%s' changed while it was being searched",
                                                      warder__local_shown(norm.data, tmp));
                        } else {
                                rc = grep_enqueue(&g, &self, fd, NULL, norm.data, err);
                        }
                } else if (rc > 0) {
                        rc = 0;
                }
        } else {
                close(fd);
                char tmp[256];
                rc = warder_error_set(err, WARDER_ENOTREG, "'%s' is not a regular file",
                                      warder__local_shown(norm.data, tmp));
        }
out:
        if (sync) {
                pthread_mutex_lock(&g.mu);
                grep_dir_release(g.dir);
                g.dir = NULL;
                g.walk_done = true;
                if (rc < 0)
                        g.stop = true; /* the walk failed: what is queued is not searched */
                pthread_cond_broadcast(&g.cv_work);
                pthread_mutex_unlock(&g.mu);
        }
        for (unsigned i = 0; i < started; i++) {
                pthread_join(tids[i], NULL);
                warder__grep_scratch_free(workers[i].scratch);
                free(workers[i].buf);
        }
        if (rc > 0)
                rc = 0;
        if (!rc && g.failed)
                rc = warder_error_set(err, g.failed, "%s", g.fail_msg);
        if (!rc)
                rc = grep_join(&g, &res, err);
        if (!rc) {
                *out = res;
                res = (struct warder_grep_result)WARDER_GREP_RESULT_INIT;
        }
        if (sync) {
                pthread_cond_destroy(&g.cv_space);
                pthread_cond_destroy(&g.cv_work);
                pthread_mutex_destroy(&g.mu);
        }
        grep_jobs_free(&g);
        warder_grep_result_free(&res);
        warder__grep_scratch_free(self.scratch);
        free(self.buf);
        warder__grep_engine_free(engine);
        warder_glob_free(g.filter);
        warder__buf_free(&g.full);
        warder__buf_free(&w.rel);
        warder__buf_free(&norm);
        return rc;
}
