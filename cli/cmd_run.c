/* cmd_run.c -- `flashlab run`: every run of an experiment's sweep, N at a
 * time in child processes, into one results database; and `flashlab
 * merge`, which joins the databases of sharded runs.
 *
 * Each run is a child process, so that a run that fails (or crashes) fails
 * alone; the child writes its progress to a pipe and its results straight
 * to the database (which takes several writers). */
#include "cli.h"
#include "progress.h"
#include "experiment.h"
#include "results.h"
#include "runner.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 256

static const char run_help[] =
    "usage: flashlab run EXPERIMENT.yaml [-o DB] [-j N] [--run K] [--shard I/N]\n"
    "                    [--as NAME] [--force] [--list-runs] [--quiet]\n"
    "\n"
    "Run every run of the experiment (its sweep x seeds x repetitions; see\n"
    "docs/experiments.md) into the results database DB (results/NAME.db by\n"
    "default), N runs at a time (-j, default 1).  The whole file is checked\n"
    "first: nothing runs if any run's settings are wrong.  Re-running into an\n"
    "existing database skips the runs it already holds complete (same\n"
    "experiment name, settings and seed), so an interrupted sweep resumes;\n"
    "one made by another program version is named.  --force runs them\n"
    "again.  Runs left 'running' by a killed process are marked\n"
    "'incomplete' and replaced: run again, their old rows deleted.  Ctrl-C\n"
    "stops the runs under way and says how to resume.\n"
    "\n"
    "An experiment is its name and the hash of its resolved config\n"
    "(docs/results-schema.md): a changed config under a name the database\n"
    "already holds is refused, naming the keys that differ; --as NAME runs\n"
    "it under another name, keeping both.\n"
    "\n"
    "On a terminal a progress line shows the runs\n"
    "done, failures so far, the rate, an estimate of the time left, ops/s\n"
    "and WA so far (--quiet: none).\n"
    "\n"
    "For clusters: --list-runs prints the run numbers and their settings;\n"
    "--run K runs only run K; --shard I/N runs the runs K with K mod N = I\n"
    "(0 <= I < N), e.g. one per Slurm array task; `flashlab merge` joins\n"
    "the shards' databases (docs/experiments.md has example scripts).\n"
    "\n"
    "Exit status: 0 when every run completed, 1 if any failed, 2 for bad usage.\n"
    "\n"
    "Examples:\n"
    "  flashlab run configs/demo.yaml -j 2\n"
    "  flashlab run configs/demo.yaml --shard 0/4 -o shard0.db\n";

struct job {
    pid_t pid;
    int fd;          /* progress pipe */
    uint32_t run;
    struct exp_report last; /* the run's latest report */
    double started;
};

struct child_ctx {
    int fd;
};

static void child_progress(void *ctx, const struct exp_report *p)
{
    const struct child_ctx *c = ctx;
    ssize_t n = write(c->fd, p, sizeof *p);
    (void)n; /* the parent may have stopped listening: the run goes on */
}

/* The child's work: one run, start to end. */
static int child_run(struct experiment *e, const char *db_path, int64_t exp_id,
                     uint32_t k, int fd)
{
    char err[1024];
    struct exp_run r;
    struct results *db;
    if (experiment_run(e, k, &r, err, sizeof err)) {
        fprintf(stderr, "flashlab run: run %u: %s\n", k, err);
        return 1;
    }
    if (experiment_results_open(db_path, &db, err, sizeof err)) {
        fprintf(stderr, "flashlab run: %s\n", err);
        exp_run_free(&r);
        return 1;
    }
    int64_t run_id;
    int rc = 1;
    if (results_begin_run(db, exp_id, k, r.params_json, r.seed, NULL, &run_id)) {
        fprintf(stderr, "flashlab run: run %u: %s\n", k, results_error(db));
    } else {
        struct child_ctx c = {fd};
        struct exp_progress prog = {child_progress, &c};
        rc = exp_runner_run(&r, db, run_id, &prog, err, sizeof err) ? 1 : 0;
        if (rc)
            fprintf(stderr, "flashlab run: run %u: %s\n", k, err);
        if (results_end_run(db, run_id, rc ? RESULTS_FAILED : RESULTS_COMPLETE,
                            rc ? err : NULL)) {
            fprintf(stderr, "flashlab run: run %u: %s\n", k, results_error(db));
            rc = 1;
        }
    }
    if (results_close(db))
        rc = 1;
    exp_run_free(&r);
    return rc;
}

static int start_job(struct experiment *e, const char *db_path, int64_t exp_id, uint32_t k,
                     struct job *j)
{
    int p[2];
    if (pipe(p))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        signal(SIGINT, SIG_DFL); /* the parent's handler is for the parent */
        signal(SIGTERM, SIG_DFL);
        _exit(child_run(e, db_path, exp_id, k, p[1]));
    }
    close(p[1]);
    *j = (struct job){.pid = pid, .fd = p[0], .run = k, .started = cli_now_s()};
    return 0;
}

/* The progress line: runs done, counting those under way by their share,
 * with their ops/s and the highest WA so far. */
static void show_progress(struct progress *pr, const struct job *jobs, int njobs, uint32_t done,
                          uint32_t failed)
{
    if (!pr->on)
        return;
    double frac = done, ops_s = 0, wa = 0;
    for (int i = 0; i < njobs; i++) {
        frac += jobs[i].last.done;
        double dt = cli_now_s() - jobs[i].started;
        if (dt > 0)
            ops_s += (double)jobs[i].last.ops / dt;
        if (jobs[i].last.wa > wa)
            wa = jobs[i].last.wa;
    }
    char extra[96];
    snprintf(extra, sizeof extra, "%.1f%%  %.0f ops/s  WA %.2f%s",
             pr->total ? 100.0 * frac / (double)pr->total : 100.0, ops_s, wa,
             njobs && jobs[0].last.phase == EXP_PHASE_AGEING ? "  (ageing)" : "");
    progress_step(pr, frac, failed, extra);
}

/* Runs to do: all, one, or a shard. */
static uint32_t *select_runs(uint32_t total, long one, uint32_t si, uint32_t sn, uint32_t *n)
{
    uint32_t *v = malloc((total ? total : 1) * sizeof *v);
    *n = 0;
    for (uint32_t k = 0; v && k < total; k++)
        if ((one >= 0 && (uint32_t)one == k) || (one < 0 && k % sn == si))
            v[(*n)++] = k;
    return v;
}

/* Take out of todo[0..*n) the runs db holds complete already (counted in
 * *skipped; with force, none), naming those another program version made;
 * delete the interrupted ones (incomplete) that the runs will replace. */
static int drop_done_runs(struct experiment *e, const char *name, int64_t exp_id,
                          struct results *db, int force, uint32_t *todo, uint32_t *n,
                          uint32_t *skipped)
{
    char err[1024], version[128];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < *n; i++) {
        struct exp_run r;
        if (experiment_run(e, todo[i], &r, err, sizeof err)) {
            todo[kept++] = todo[i]; /* its job reports the error */
            continue;
        }
        int64_t id, dropped = 0;
        int found = force ? 0 : results_find_complete_run(db, name, r.params_json, r.seed,
                                                          &id, version, sizeof version);
        if (!found && results_replace_incomplete(db, exp_id, r.params_json, r.seed, &dropped))
            found = -1;
        exp_run_free(&r);
        if (found < 0)
            return -1;
        if (dropped)
            fprintf(stderr, "flashlab run: run %u: replaces %" PRId64 " interrupted run%s "
                    "(deleted with its rows)\n", todo[i], dropped, dropped == 1 ? "" : "s");
        if (!found) {
            todo[kept++] = todo[i];
            continue;
        }
        (*skipped)++;
        if (strcmp(version, FLASHLAB_VERSION))
            fprintf(stderr, "flashlab run: run %u: kept run %" PRId64 " made by flashlab %s "
                    "(this is %s); --force runs it again\n", todo[i], id, version,
                    FLASHLAB_VERSION);
    }
    *n = kept;
    return 0;
}

static int list_runs(struct experiment *e)
{
    char err[1024];
    for (uint32_t k = 0; k < experiment_runs(e); k++) {
        struct exp_run r;
        if (experiment_run(e, k, &r, err, sizeof err))
            return cli_error("%s", err);
        /* the sweep object closes the params object: print it without */
        const char *sw = strstr(r.params_json, "\"sweep\":");
        printf("%u\tseed %" PRIu64 "\t%.*s\n", k, r.seed, sw ? (int)strlen(sw + 8) - 1 : 2,
               sw ? sw + 8 : "{}");
        exp_run_free(&r);
    }
    return CLI_OK;
}

/* Ctrl-C (or SIGTERM): the children, in the same process group, get it
 * too and end; the parent starts no more runs, reaps them and says what
 * the database holds and how to go on. */
static volatile sig_atomic_t run_interrupted;

static void on_interrupt(int sig)
{
    run_interrupted = sig;
}

/* Wait for jobs, show progress, reap; returns when one job ended.  A
 * run stopped by the interrupt counts in *stopped, not as done. */
static void wait_one(struct job *jobs, int *njobs, uint32_t *done, uint32_t *failed,
                     uint32_t *stopped, struct progress *pr)
{
    for (;;) {
        struct pollfd pf[MAX_JOBS];
        for (int i = 0; i < *njobs; i++)
            pf[i] = (struct pollfd){.fd = jobs[i].fd, .events = POLLIN};
        poll(pf, (nfds_t)*njobs, 500);
        for (int i = 0; i < *njobs; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP)))
                continue;
            struct exp_report p;
            ssize_t n = read(jobs[i].fd, &p, sizeof p);
            if (n == (ssize_t)sizeof p) {
                jobs[i].last = p;
                continue;
            }
            /* end of the pipe: the child is done */
            int st;
            waitpid(jobs[i].pid, &st, 0);
            close(jobs[i].fd);
            int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
            if (run_interrupted && WIFSIGNALED(st)) {
                (*stopped)++;
                jobs[i] = jobs[--*njobs];
                return;
            }
            if (!ok && WIFSIGNALED(st)) {
                progress_clear(pr);
                fprintf(stderr, "flashlab run: run %u: killed by signal %d\n", jobs[i].run,
                        WTERMSIG(st));
            }
            (*done)++;
            *failed += !ok;
            jobs[i] = jobs[--*njobs];
            show_progress(pr, jobs, *njobs, *done, *failed);
            return;
        }
        show_progress(pr, jobs, *njobs, *done, *failed);
    }
}

static void report_interrupted(int argc, char **argv, const char *name, const char *db_path,
                               uint32_t n, uint32_t done, uint32_t failed, uint32_t unstarted)
{
    char err[1024];
    struct results *db;
    int64_t stale = 0;
    /* the killed runs are 'incomplete' now, so that the next run replaces them */
    if (!experiment_results_open(db_path, &db, err, sizeof err)) {
        results_mark_stale(db, &stale);
        results_close(db);
    }
    fprintf(stderr, "\nflashlab run: interrupted. %s: of %u run%s to do, %u ended and are "
            "saved in %s (%u complete, %u failed); %" PRId64 " under way were stopped and "
            "marked incomplete; %u not started.\nTo resume (complete runs are kept, "
            "incomplete ones replaced), run the same command again:\n ", name, n,
            n == 1 ? "" : "s", done, db_path, done - failed, failed, stale, unstarted);
    for (int i = 0; i < argc; i++)
        fprintf(stderr, " %s", i ? argv[i] : "flashlab run");
    fputc('\n', stderr);
}

static int parse_shard(const char *s, uint32_t *i, uint32_t *n)
{
    char *end;
    unsigned long a = strtoul(s, &end, 10), b;
    if (end == s || *end != '/')
        return -1;
    const char *t = end + 1;
    b = strtoul(t, &end, 10);
    if (end == t || *end || !b || a >= b || b > UINT32_MAX)
        return -1;
    *i = (uint32_t)a;
    *n = (uint32_t)b;
    return 0;
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'j'}, {"output", required_argument, 0, 'o'},
        {"run", required_argument, 0, 'r'}, {"shard", required_argument, 0, 's'},
        {"list-runs", no_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'},
        {"force", no_argument, 0, 'f'}, {"as", required_argument, 0, 'a'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL, *as = NULL;
    long jobs_max = 1, one = -1;
    uint32_t si = 0, sn = 1;
    int list = 0, quiet = 0, force = 0, c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            jobs_max = strtol(optarg, &end, 10);
            if (*end || jobs_max < 1 || jobs_max > MAX_JOBS)
                return cli_usage_error("run", "bad -j '%s' (1..%d)", optarg, MAX_JOBS);
            break;
        case 'o': out = optarg; break;
        case 'r':
            one = strtol(optarg, &end, 10);
            if (*end || one < 0 || *optarg == '\0')
                return cli_usage_error("run", "bad --run '%s' (a run number)", optarg);
            break;
        case 's':
            if (parse_shard(optarg, &si, &sn))
                return cli_usage_error("run", "bad --shard '%s' (I/N with 0 <= I < N)", optarg);
            break;
        case 'l': list = 1; break;
        case 'q': quiet = 1; break;
        case 'f': force = 1; break;
        case 'a':
            if (!*optarg || strlen(optarg) >= 128)
                return cli_usage_error("run", "bad --as '%s' (an experiment name)", optarg);
            as = optarg;
            break;
        case 'h': fputs(run_help, stdout); return CLI_OK;
        default: return cli_usage_error("run", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("run", "expected one EXPERIMENT.yaml argument");
    char err[1024];
    struct experiment *e;
    if (experiment_load(argv[optind], &e, err, sizeof err))
        return cli_error("%s", err);
    if (list) {
        int rc = list_runs(e);
        experiment_free(e);
        return rc;
    }
    uint32_t total = experiment_runs(e), n;
    if (one >= (long)total) {
        experiment_free(e);
        return cli_usage_error("run", "no run %ld: the experiment has runs 0..%u", one, total - 1);
    }
    char def[512];
    if (!out) {
        mkdir("results", 0777);
        snprintf(def, sizeof def, "results/%s.db", experiment_name(e));
        out = def;
    }
    struct results *db;
    int64_t exp_id, stale = 0;
    const char *name = as ? as : experiment_name(e);
    if (experiment_results_open(out, &db, err, sizeof err)) {
        experiment_free(e);
        return cli_error("%s", err);
    }
    if (results_mark_stale(db, &stale) ||
        results_begin_experiment(db, name, experiment_path(e), experiment_text(e), NULL,
                                 &exp_id)) {
        cli_error("%s: %s", out, results_error(db));
        results_close(db);
        experiment_free(e);
        return CLI_FAIL;
    }
    uint32_t *todo = select_runs(total, one, si, sn, &n), skipped = 0;
    if (!todo) {
        results_close(db);
        experiment_free(e);
        return cli_error("out of memory");
    }
    if (drop_done_runs(e, name, exp_id, db, force, todo, &n, &skipped)) {
        cli_error("%s: %s", out, results_error(db));
        results_close(db);
        free(todo);
        experiment_free(e);
        return CLI_FAIL;
    }
    results_close(db); /* the children open their own */
    struct progress pr;
    progress_begin(&pr, "", "runs", n, quiet);
    struct job jobs[MAX_JOBS];
    int njobs = 0;
    uint32_t next = 0, done = 0, failed = 0, stopped = 0;
    run_interrupted = 0;
    struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    while (done + stopped < n) {
        while (next < n && njobs < jobs_max && !run_interrupted) {
            if (start_job(e, out, exp_id, todo[next], &jobs[njobs])) {
                progress_clear(&pr);
                fprintf(stderr, "flashlab run: run %u: cannot start: %s\n", todo[next],
                        strerror(errno));
                failed++;
                done++;
            } else {
                njobs++;
            }
            next++;
        }
        if (njobs)
            wait_one(jobs, &njobs, &done, &failed, &stopped, &pr);
        else if (run_interrupted)
            break;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    progress_end(&pr);
    if (run_interrupted) {
        int sig = run_interrupted;
        report_interrupted(argc, argv, name, out, n, done, failed, n - next);
        free(todo);
        experiment_free(e);
        return 128 + sig;
    }
    printf("%s: %u run%s, %u complete, %u failed", name, n, n == 1 ? "" : "s",
           n - failed, failed);
    if (skipped)
        printf(", %u already there (--force runs them again)", skipped);
    printf(" -> %s\n", out);
    free(todo);
    experiment_free(e);
    return failed ? CLI_FAIL : CLI_OK;
}

static const char merge_help[] =
    "usage: flashlab merge OUT.db IN.db...\n"
    "\n"
    "Copy every experiment and run of each IN.db into OUT.db (created if\n"
    "missing): the way to join the databases of runs sharded over a cluster\n"
    "(flashlab run --shard).  Runs already in OUT.db (same experiment, run\n"
    "number, seed and settings) are skipped, so merging twice is harmless.\n"
    "\n"
    "examples:\n"
    "  flashlab run configs/demo.yaml --shard 0/2 -o s0.db\n"
    "  flashlab run configs/demo.yaml --shard 1/2 -o s1.db\n"
    "  flashlab merge results/demo.db s0.db s1.db\n";

int cmd_merge(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(merge_help, stdout);
        return CLI_OK;
    }
    if (argc < 3)
        return cli_usage_error("merge", "expected OUT.db and at least one IN.db");
    char err[1024];
    struct results *db;
    struct stat out_sb;
    int created = stat(argv[1], &out_sb) != 0, merged = 0;
    if (experiment_results_open(argv[1], &db, err, sizeof err))
        return cli_error("%s", err);
    int rc = CLI_OK;
    for (int i = 2; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb)) {
            rc = cli_error("merge: %s: %s", argv[i], strerror(errno));
            continue;
        }
        struct results_merge_stats st;
        if (results_merge(db, argv[i], &st)) {
            rc = cli_error("merge: %s: %s", argv[i], results_error(db));
            continue;
        }
        printf("%s: %" PRId64 " runs copied, %" PRId64 " already there, %" PRId64
               " new experiments\n", argv[i], st.runs_copied, st.runs_skipped,
               st.experiments_added);
        merged = 1;
    }
    if (results_close(db))
        rc = cli_error("merge: %s: cannot write", argv[1]);
    if (created && !merged) { /* nothing went in: leave no empty database */
        unlink(argv[1]);
        fprintf(stderr, "flashlab: merge: %s not written\n", argv[1]);
    }
    return rc;
}
