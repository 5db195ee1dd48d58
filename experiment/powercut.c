/*
 * powercut.c -- power-cut campaigns (see powercut.h).
 *
 * Process tree: the parent runs the workload call by call (the same run as
 * the counting run before it, so flash operation k is the same operation
 * in both).  Before a call that contains chosen cut points it forks a
 * child, frozen at the state before that call; after the call the parent
 * tells the child whether the call made a commit point (and its digest),
 * and the child forks one grandchild per cut point, which arms the cut,
 * makes the call, and checks the recovery.  Outcomes come back to the
 * parent over one pipe, in messages shorter than PIPE_BUF (so they never
 * interleave), and the parent writes them to the database.
 */
#include "powercut.h"
#include "fsdigest.h"
#include "rng.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DETAIL_MAX 3500

/* A commit point: the state after `call` calls (0: before the workload). */
struct cp {
    uint64_t call, digest;
};

struct session {
    const struct exp_run *r;
    nand_dev *dev;
    struct exp_mounted m;  /* any fs of the table (and LogFS's own handle) */
    struct workload *w;
    struct wl_exec *x;
    struct trace_rec op;   /* the next call */
    int have_op;
    uint64_t call, host, base_ops, commits;
    struct cp *cps;
    size_t ncp, cap, last_sync; /* cps[last_sync]: the state the last sync made durable */
    char err[1024];
};

struct msg {
    uint64_t point, call;
    int ok, second;
    char kind[24], outcome[24], detail[DETAIL_MAX];
};

static uint64_t state_ops(const struct session *s)
{
    struct nand_stats st;
    nand_get_stats(s->dev, &st);
    return st.state_ops - s->base_ops;
}

static int add_cp(struct session *s)
{
    uint64_t d;
    int rc = wl_fs_digest(&s->m.fs, &d, NULL);
    if (rc) {
        snprintf(s->err, sizeof s->err, "digest after call %llu: %s",
                 (unsigned long long)s->call, strerror(-rc));
        return -1;
    }
    if (s->ncp == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct cp *v = realloc(s->cps, cap * sizeof *v);
        if (!v) {
            snprintf(s->err, sizeof s->err, "out of memory");
            return -1;
        }
        s->cps = v;
        s->cap = cap;
    }
    s->cps[s->ncp++] = (struct cp){s->call, d};
    return 0;
}

/* A kind that counts its commits (LogFS) has them as its points; for one
 * that does not, every call is one: any prefix of the calls since the last
 * sync may survive. */
static uint64_t commits_now(const struct session *s)
{
    uint64_t commits;
    return fsapi_counter(&s->m.fs, "commits", &commits) ? s->call : commits;
}



static int fetch(struct session *s)
{
    char werr[512];
    int n = workload_next(s->w, &s->op, werr, sizeof werr);
    if (n < 0)
        snprintf(s->err, sizeof s->err, "workload: %s", werr);
    s->have_op = n > 0;
    return n < 0 ? -1 : 0;
}

static void session_close(struct session *s)
{
    wl_exec_free(s->x);
    workload_free(s->w);
    exp_run_unmount(&s->m);
    if (s->dev)
        nand_close(s->dev);
    free(s->cps);
    memset(s, 0, sizeof *s);
}

/* Device, mkfs, mount, the workload's setup, a sync: commit point 0. */
static int session_open(struct session *s, const struct exp_run *r)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    int rc = nand_create(&r->dev, &s->dev);
    if (rc) {
        snprintf(s->err, sizeof s->err, "device: %s", nand_strerror(rc));
        return -1;
    }
    char werr[512];
    if ((rc = exp_run_mkfs(r, s->dev)) || (rc = exp_run_mount(s->r, s->dev, &s->m))) {
        snprintf(s->err, sizeof s->err, "mkfs/mount: %s", strerror(-rc));
        return -1;
    }
    if (workload_create(&r->wl, r->seed, &s->m.fs, &s->w, werr, sizeof werr)) {
        snprintf(s->err, sizeof s->err, "workload: %s", werr);
        return -1;
    }
    if (wl_exec_create(&s->m.fs, &s->x)) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return -1;
    }
    wl_exec_set_content_light(s->x, r->wl.content_light);
    wl_exec_set_compressible(s->x, r->wl.compressible);
    for (;;) {
        if (fetch(s))
            return -1;
        if (!s->have_op || !workload_in_setup(s->w))
            break;
        wl_exec_set_setup(s->x, 1);
        int64_t res = wl_exec_apply(s->x, &s->op, NULL);
        if (res < 0) {
            snprintf(s->err, sizeof s->err, "workload setup: %s", strerror((int)-res));
            return -1;
        }
    }
    wl_exec_set_setup(s->x, 0);
    if ((rc = s->m.fs.api->sync(s->m.fs.fs))) {
        snprintf(s->err, sizeof s->err, "sync after setup: %s", strerror(-rc));
        return -1;
    }
    struct nand_stats st;
    nand_get_stats(s->dev, &st);
    s->base_ops = st.state_ops;
    s->commits = commits_now(s);
    return add_cp(s);
}

static int done(const struct session *s)
{
    const struct exp_stop *st = &s->r->stop;
    uint64_t cap = nand_capacity_bytes(&s->r->dev);
    return !s->have_op || (st->ops && s->call >= st->ops) ||
           (st->host_bytes && s->host >= st->host_bytes) ||
           (st->device_fills > 0 && (double)s->host >= st->device_fills * (double)cap);
}

/* Make the next call; a commit it made becomes a commit point. */
static int step(struct session *s)
{
    int64_t res = wl_exec_apply(s->x, &s->op, &s->host);
    if (res < 0 && res != -ENOSPC) {
        snprintf(s->err, sizeof s->err, "call %llu (%s %s): %s", (unsigned long long)s->call + 1,
                 trace_op_name(s->op.op) ? trace_op_name(s->op.op) : "op",
                 s->op.path ? s->op.path : "", strerror((int)-res));
        return -1;
    }
    int is_sync = (s->op.op == TRACE_SYNC || s->op.op == TRACE_FSYNC) && res == 0;
    s->call++;
    uint64_t c = commits_now(s);
    if (c != s->commits && add_cp(s))
        return -1;
    s->commits = c;
    if (is_sync)
        s->last_sync = s->ncp - 1;
    return fetch(s);
}

/* ---- one cut and its recovery ------------------------------------------ */

struct cut_ctl {
    uint64_t left; /* state operations to let through */
    double frac;
    int fired;
    struct nand_op op;
};

static int cut_cb(void *ctx, const struct nand_op *op, double *frac)
{
    struct cut_ctl *c = ctx;
    if (c->fired)
        return 1;
    if (c->left) {
        c->left--;
        return 0;
    }
    c->fired = 1;
    c->op = *op;
    *frac = c->frac;
    return 1;
}

static const char *op_kind_name(enum nand_op_kind k)
{
    return k == NAND_OP_ERASE ? "erase" : k == NAND_OP_PROGRAM ? "program" : "mark-bad";
}

/* Check the state after recovery against the allowed commit points
 * cps[from .. n).  Returns the matching index or -1. */
static long match_cp(const struct cp *cps, size_t from, size_t n, uint64_t d)
{
    for (size_t i = from; i < n; i++)
        if (cps[i].digest == d)
            return (long)i;
    return -1;
}

/* The grandchild's work, or --repro's: cut at state operation `m` of the
 * next call, recover, check.  cps[from..n) are the allowed states. */
static void check_cut(struct session *s, uint64_t point, uint64_t m, int second,
                      const struct exp_powercut *pc, pc_fsck_fn fsck, struct cp *cps, size_t from,
                      size_t n, struct msg *out, int verbose, FILE *log)
{
    memset(out, 0, sizeof *out);
    out->point = point;
    out->call = s->call + 1;
    out->second = second;
    struct cut_ctl c = {.left = m};
    c.frac = pc->within ? rng_unit(rng_key(s->r->seed, RNG_POWERCUT, point, 0, 0, 0)) : 0.0;
    uint64_t gc_before = 0, gc_after = 0; /* 0 for a kind that does not count them */
    fsapi_counter(&s->m.fs, "gc_rounds", &gc_before);
    nand_cut_callback(s->dev, cut_cb, &c);
    /* the call, and those after it, until the power goes */
    for (int guard = 0; nand_is_powered(s->dev) && s->have_op && guard < 1000000; guard++) {
        wl_exec_apply(s->x, &s->op, &s->host);
        s->call++;
        fetch(s);
    }
    nand_cut_disarm(s->dev);
    fsapi_counter(&s->m.fs, "gc_rounds", &gc_after);
    snprintf(out->kind, sizeof out->kind, "%s%s", c.fired ? op_kind_name(c.op.kind) : "none",
             pc->within ? "-torn" : "");
    char where[160] = "";
    const char *role = fsapi_block_role(&s->m.fs, c.op.block);
    if (c.fired)
        snprintf(where, sizeof where, "%s of block %u page %u (%s%s)", op_kind_name(c.op.kind),
                 c.op.block, c.op.page, role ? role : s->m.fs.api->name,
                 gc_after != gc_before ? ", while cleaning" : "");
    /* the workload is over for this process: its open files go first,
     * then the fs (both calls fail without power, and free) */
    wl_exec_free(s->x);
    s->x = NULL;
    exp_run_unmount(&s->m);
    if (!c.fired) {
        snprintf(out->outcome, sizeof out->outcome, "not-reached");
        snprintf(out->detail, sizeof out->detail, "the workload ended before the cut");
        out->ok = 1;
        return;
    }
    nand_power_on(s->dev);
    const struct fsapi *api = s->m.fs.api;
    if (second) { /* a second cut during the recovery: mount, and a commit */
        struct cut_ctl c2 = {.left = rng_key(s->r->seed, RNG_POWERCUT, point, 1, 0, 0) % 6,
                             .frac = rng_unit(rng_key(s->r->seed, RNG_POWERCUT, point, 2, 0, 0))};
        nand_cut_callback(s->dev, cut_cb, &c2);
        if (!exp_run_mount(s->r, s->dev, &s->m)) {
            void *fs2 = s->m.fs.fs;
            int fd = api->open(fs2, "/.powercut-probe", O_WRONLY | O_CREAT, 0644);
            if (fd >= 0) {
                api->pwrite(fs2, fd, "p", 1, 0);
                api->close(fs2, fd);
            }
            api->sync(fs2);
            api->unlink(fs2, "/.powercut-probe");
            api->sync(fs2);
            exp_run_unmount(&s->m);
        }
        nand_cut_disarm(s->dev);
        nand_power_on(s->dev);
        char w2[64];
        snprintf(w2, sizeof w2, "; second cut %s", c2.fired ? "during recovery" : "not reached");
        strncat(where, w2, sizeof where - strlen(where) - 1);
        /* whatever the second recovery left, the probe is gone or rolled back:
         * the allowed states are unchanged (the probe was unlinked before
         * its sync completed, or never committed) */
    }
    char msg[1024] = "";
    if (fsck && (s->r->fs_api->features & FSAPI_F_FSCK) && fsck(s->dev, msg, sizeof msg)) {
        snprintf(out->outcome, sizeof out->outcome, "fsck");
        snprintf(out->detail, sizeof out->detail, "%s; fsck: %s", where, msg);
        return;
    }
    int rc = exp_run_mount(s->r, s->dev, &s->m);
    if (rc) {
        snprintf(out->outcome, sizeof out->outcome, "mount-failed");
        snprintf(out->detail, sizeof out->detail, "%s; mount: %s", where, strerror(-rc));
        return;
    }
    uint64_t d;
    char *text = NULL;
    rc = wl_fs_digest(&s->m.fs, &d, verbose ? &text : NULL);
    long k = rc ? -1 : match_cp(cps, from, n, d);
    if (verbose && log) {
        fprintf(log, "cut point %llu: %s, in call %llu; allowed: commit points %zu..%zu "
                "(calls %llu..%llu); recovered state %s\n%s",
                (unsigned long long)point, where, (unsigned long long)out->call, from, n - 1,
                (unsigned long long)cps[from].call, (unsigned long long)cps[n - 1].call,
                k >= 0 ? "matches" : "matches none", text ? text : "");
    }
    free(text);
    if (rc || k < 0) {
        snprintf(out->outcome, sizeof out->outcome, rc ? "unreadable" : "wrong-state");
        snprintf(out->detail, sizeof out->detail,
                 "%s; %s (allowed: the states after calls %llu..%llu)", where,
                 rc ? strerror(-rc) : "the recovered state is no commit point",
                 (unsigned long long)cps[from].call, (unsigned long long)cps[n - 1].call);
        exp_run_unmount(&s->m);
        return;
    }
    /* it keeps working: a write, a sync, a remount (a block device: the
     * write goes to the start of its one file, and reads back) */
    void *fs = s->m.fs.fs;
    int one = (api->features & FSAPI_F_ONE_FILE) != 0;
    const char *after = one ? "/disk" : "/.powercut-after";
    int fd = api->open(fs, after, O_WRONLY | O_CREAT | (one ? 0 : O_TRUNC), 0644);
    int ok = fd >= 0 && api->pwrite(fs, fd, "after", 5, 0) == 5 && api->close(fs, fd) == 0 &&
             api->sync(fs) == 0 && exp_run_unmount(&s->m) == 0;
    struct fs_stat st;
    char back[5] = "";
    ok = ok && exp_run_mount(s->r, s->dev, &s->m) == 0 &&
         api->stat(s->m.fs.fs, after, &st) == 0 && (one || st.size == 5);
    if (ok && one) {
        fd = api->open(s->m.fs.fs, after, O_RDONLY, 0);
        ok = fd >= 0 && api->pread(s->m.fs.fs, fd, back, 5, 0) == 5 && !memcmp(back, "after", 5);
        if (fd >= 0)
            api->close(s->m.fs.fs, fd);
    }
    exp_run_unmount(&s->m);
    snprintf(out->outcome, sizeof out->outcome, ok ? "ok" : "stuck");
    snprintf(out->detail, sizeof out->detail, "%s; recovered to the state after call %llu%s",
             where, (unsigned long long)cps[k].call,
             ok ? "" : "; but writing, syncing and remounting afterwards failed");
    out->ok = ok;
}

/* ---- the campaign ---------------------------------------------------------- */

struct points {
    uint64_t *v;   /* sorted cut points */
    uint8_t *second;
    size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int choose_points(const struct exp_run *r, uint64_t total, int64_t repro,
                         struct points *p)
{
    const struct exp_powercut *pc = &r->pc;
    size_t n = repro >= 0 ? 1 : pc->sample ? (size_t)(pc->sample < total ? pc->sample : total)
                                           : (size_t)((total + pc->every - 1) / pc->every);
    p->v = malloc((n ? n : 1) * sizeof *p->v);
    p->second = calloc(n ? n : 1, 1);
    if (!p->v || !p->second)
        return -1;
    if (repro >= 0) {
        p->v[0] = (uint64_t)repro;
    } else if (pc->sample && pc->sample < total) {
        /* a seeded sample without repeats: Floyd's algorithm */
        size_t k = 0;
        for (uint64_t j = total - n; j < total; j++) {
            uint64_t t = rng_key(r->seed, RNG_POWERCUT, j, 3, 0, 0) % (j + 1);
            int seen = 0;
            for (size_t i = 0; i < k && !seen; i++)
                seen = p->v[i] == t;
            p->v[k++] = seen ? j : t;
        }
        qsort(p->v, n, sizeof *p->v, cmp_u64);
    } else {
        for (size_t i = 0; i < n; i++)
            p->v[i] = pc->sample ? i : i * pc->every;
    }
    p->n = n;
    for (uint64_t j = 0; j < pc->second && n; j++)
        p->second[rng_key(r->seed, RNG_POWERCUT, j, 4, 0, 0) % n] = 1;
    if (repro >= 0)
        p->second[0] = pc->second > 0 && rng_key(r->seed, RNG_POWERCUT, (uint64_t)repro, 5, 0, 0) % 2;
    return 0;
}

struct campaign {
    const struct exp_run *r;
    const struct pc_options *o;
    struct results *db;
    int64_t run_id;
    struct pc_summary *sum;
    int out[2];            /* outcomes: children write, the parent reads */
    char buf[sizeof(struct msg) * 4];
    size_t have;
    int children;
    FILE *log;
    uint64_t npoints;      /* cut points chosen: the progress's total */
};

static void record(struct campaign *c, const struct msg *m)
{
    c->sum->points++;
    c->sum->second += m->second != 0;
    char kind[40];
    snprintf(kind, sizeof kind, "%s%s", m->kind, m->second ? "+second" : "");
    struct results_powercut row = {(int64_t)m->point, kind, m->outcome, m->detail};
    if (c->db)
        results_add_powercut(c->db, c->run_id, &row);
    if (!m->ok) {
        c->sum->failed++;
        exp_progress_report(&c->o->progress, &(struct exp_report){.phase = EXP_PHASE_NOTE});
        fprintf(c->log, "cut point %llu (call %llu): %s: %s\n", (unsigned long long)m->point,
                (unsigned long long)m->call, m->outcome, m->detail);
        if (c->o->repro_cmd)
            fprintf(c->log, "  reproduce: %s %llu\n", c->o->repro_cmd,
                    (unsigned long long)m->point);
    }
    exp_progress_report(&c->o->progress,
                        &(struct exp_report){.phase = EXP_PHASE_POINTS,
                                             .done = (double)c->sum->points,
                                             .total = c->npoints, .bad = c->sum->failed});
}

/* Read what outcomes are there (block: wait for at least one child's). */
static void drain(struct campaign *c, int block)
{
    for (;;) {
        if (block) {
            struct pollfd pf = {.fd = c->out[0], .events = POLLIN};
            poll(&pf, 1, 200);
        }
        ssize_t n = read(c->out[0], c->buf + c->have, sizeof c->buf - c->have);
        if (n <= 0)
            return;
        c->have += (size_t)n;
        while (c->have >= sizeof(struct msg)) {
            struct msg m;
            memcpy(&m, c->buf, sizeof m);
            memmove(c->buf, c->buf + sizeof m, c->have - sizeof m);
            c->have -= sizeof m;
            record(c, &m);
        }
        block = 0;
    }
}

static void reap(struct campaign *c, int block)
{
    int st;
    while (c->children > 0 && waitpid(-1, &st, block ? 0 : WNOHANG) > 0) {
        c->children--;
        block = 0;
    }
}

/* The child frozen before call `call`: wait for the parent's word on that
 * call's commit, then one grandchild per cut point. */
static void child(struct session *s, struct campaign *c, int cmd, const uint64_t *pts,
                  const uint8_t *second, size_t npts, uint64_t call_start)
{
    struct { int has; uint64_t digest; } word;
    if (read(cmd, &word, sizeof word) != (ssize_t)sizeof word)
        _exit(1);
    close(cmd);
    size_t from = s->last_sync, n = s->ncp;
    struct cp *cps = malloc((n + 1) * sizeof *cps);
    if (!cps)
        _exit(1);
    memcpy(cps, s->cps, n * sizeof *cps);
    if (word.has)
        cps[n++] = (struct cp){s->call + 1, word.digest};
    for (size_t i = 0; i < npts; i++) {
        pid_t g = fork();
        if (g == 0) {
            struct msg m;
            check_cut(s, pts[i], pts[i] - call_start, second[i], &c->r->pc, c->o->fsck, cps,
                      from, n, &m, 0, NULL);
            ssize_t w = write(c->out[1], &m, sizeof m);
            _exit(w == (ssize_t)sizeof m ? 0 : 1);
        }
        int st;
        if (g > 0)
            waitpid(g, &st, 0);
        if (g < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) { /* the check itself crashed */
            struct msg m = {.point = pts[i], .call = s->call + 1, .second = second[i]};
            snprintf(m.kind, sizeof m.kind, "unknown");
            snprintf(m.outcome, sizeof m.outcome, "checker-crashed");
            snprintf(m.detail, sizeof m.detail, "the check of this cut point died (%s)",
                     g < 0 ? "fork failed" : WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
            ssize_t w = write(c->out[1], &m, sizeof m);
            (void)w;
        }
    }
    _exit(0);
}

/* The counting run: each call's first state operation (starts[i] for call
 * i + 1), and the total. */
static int count_run(const struct exp_run *r, uint64_t **starts, uint64_t *ncalls,
                     uint64_t *total, char *err, size_t errlen)
{
    struct session s;
    size_t cap = 1024;
    uint64_t *v = malloc(cap * sizeof *v);
    int rc = v ? session_open(&s, r) : -1;
    while (!rc && !done(&s)) {
        if (s.call + 2 > cap) {
            uint64_t *nv = realloc(v, (cap *= 2) * sizeof *nv);
            if (!nv) {
                rc = -1;
                break;
            }
            v = nv;
        }
        v[s.call] = state_ops(&s);
        rc = step(&s);
    }
    if (!rc) {
        *total = state_ops(&s);
        v[s.call] = *total;
        *ncalls = s.call;
        *starts = v;
    } else {
        snprintf(err, errlen, "%s", v ? s.err : "out of memory");
        free(v);
    }
    session_close(&s);
    return rc;
}

int exp_powercut_run(const struct exp_run *r, struct results *db, int64_t run_id,
                 const struct pc_options *o, struct pc_summary *sum, char *err, size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    err[0] = 0;
    uint64_t *starts = NULL, ncalls = 0, total = 0;
    if (count_run(r, &starts, &ncalls, &total, err, errlen))
        return -1;
    sum->flash_ops = total;
    sum->calls = ncalls;
    struct points p = {0};
    if (choose_points(r, total, o->repro, &p)) {
        free(starts);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct campaign c = {.r = r, .o = o, .db = db, .run_id = run_id, .sum = sum,
                         .log = o->log ? o->log : stderr, .npoints = p.n};
    struct session s;
    int rc = -1;
    if (pipe(c.out) || fcntl(c.out[0], F_SETFL, O_NONBLOCK)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    if (session_open(&s, r)) {
        snprintf(err, errlen, "%s", s.err);
        session_close(&s);
        goto out;
    }
    size_t next = 0;
    for (uint64_t call = 0; call < ncalls && !done(&s); call++) {
        size_t first = next;
        while (next < p.n && p.v[next] < starts[call + 1])
            next++;
        if (next > first && o->repro >= 0) { /* in-process, verbosely */
            struct msg m;
            check_cut(&s, p.v[first], p.v[first] - starts[call], p.second[first], &r->pc, o->fsck,
                      s.cps, s.last_sync, s.ncp, &m, 1, c.log);
            record(&c, &m);
            break; /* the check used the session up */
        }
        int cmd[2] = {-1, -1};
        if (next > first) {
            while (c.children >= (o->jobs > 0 ? o->jobs : 1)) {
                drain(&c, 1);
                reap(&c, 0);
            }
            fflush(NULL);
            if (pipe(cmd)) {
                snprintf(err, errlen, "pipe: %s", strerror(errno));
                break;
            }
            pid_t pid = fork();
            if (pid == 0) {
                close(cmd[1]);
                close(c.out[0]);
                child(&s, &c, cmd[0], p.v + first, p.second + first, next - first, starts[call]);
            }
            close(cmd[0]);
            if (pid < 0) {
                close(cmd[1]);
                snprintf(err, errlen, "fork: %s", strerror(errno));
                break;
            }
            c.children++;
        }
        size_t before = s.ncp;
        int src = step(&s);
        if (cmd[1] >= 0) {
            struct { int has; uint64_t digest; } word = {s.ncp > before, 0};
            if (word.has)
                word.digest = s.cps[s.ncp - 1].digest;
            ssize_t w = write(cmd[1], &word, sizeof word);
            (void)w; /* a child that is gone reports nothing: counted below */
            close(cmd[1]);
        }
        if (src) {
            snprintf(err, errlen, "%s", s.err);
            break;
        }
        drain(&c, 0);
        reap(&c, 0);
    }
    while (c.children > 0) {
        drain(&c, 1);
        reap(&c, 0);
    }
    drain(&c, 0);
    sum->commits = s.ncp;
    rc = err[0] ? -1 : 0;
    session_close(&s);
out:
    if (c.out[0] > 0) {
        close(c.out[0]);
        close(c.out[1]);
    }
    free(p.v);
    free(p.second);
    free(starts);
    return rc;
}
