/*
 * test_fuzz_regress.c -- replays every input in fuzz/corpus/<target>/ and
 * fuzz/regressions/<target>/ through the fuzz targets (fuzz/harness.h),
 * built here with gcc and the test build's ASan+UBSan, without libFuzzer.
 *
 * Each input runs in a child process (with a time limit), so that one that
 * crashes, trips a sanitizer, leaks or hangs is named and the others still
 * run.  The targets' one-time setup (the LogFS image of the mount target)
 * is done once, before forking.  Run from the repository root (make test
 * does); the experiment seeds name configs/devices/ relative to it.
 */
#include "fixture.h"

/* the fuzz targets: not part of the library, so compiled in here */
#include "../../fuzz/fuzz_device_yaml.c"
#include "../../fuzz/fuzz_experiment_yaml.c"
#include "../../fuzz/fuzz_image.c"
#include "../../fuzz/fuzz_import.c"
#include "../../fuzz/fuzz_journal.c"
#include "../../fuzz/fuzz_jffs2.c"
#include "../../fuzz/fuzz_mount.c"
#include "../../fuzz/fuzz_trace.c"
#include "../../fuzz/fuzz_util.c"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REGRESS_TIMEOUT_S 20
#define REGRESS_MAX_INPUT (1u << 20)

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of dir, sorted; *n of them (0 if dir is missing). */
static char **list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        names[(*n)++] = strdup(path);
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

static uint8_t *read_input(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(REGRESS_MAX_INPUT);
    *size = buf ? fread(buf, 1, REGRESS_MAX_INPUT, f) : 0;
    fclose(f);
    return buf;
}

/* Run one input in a child; 0 if it passed, else a message in why. */
static int replay_one(const struct fuzz_target *t, const char *path, char *why, size_t n)
{
    size_t size = 0;
    uint8_t *data = read_input(path, &size);
    if (!data) {
        snprintf(why, n, "cannot read");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        free(data);
        snprintf(why, n, "fork failed");
        return -1;
    }
    if (pid == 0) {
        alarm(REGRESS_TIMEOUT_S);
        t->run(data, size);
        free(data);
        exit(0); /* not _exit: LeakSanitizer runs at exit */
    }
    free(data);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(why, n, "timed out after %d s (a hang?)", REGRESS_TIMEOUT_S);
    else if (WIFSIGNALED(status))
        snprintf(why, n, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(why, n, "exit status %d (a sanitizer report?)", WEXITSTATUS(status));
    return -1;
}

/* Inputs replayed per target, for the seeds check. */
static size_t replayed[16];

static void replay_target(const char *name)
{
    const struct fuzz_target *t = fuzz_target_find(name);
    REQUIRE(t != NULL);
    if (t->init)
        REQUIRE(t->init() == 0);
    static const char *const roots[] = {"fuzz/corpus", "fuzz/regressions"};
    for (size_t r = 0; r < 2; r++) {
        char dir[256];
        snprintf(dir, sizeof dir, "%s/%s", roots[r], name);
        size_t n;
        char **files = list_dir(dir, &n);
        for (size_t i = 0; i < n; i++) {
            char why[128];
            if (replay_one(t, files[i], why, sizeof why)) {
                fprintf(stderr, "%s: %s: %s\n", test_current, files[i], why);
                test_failed_now = 1;
            }
            if (r == 0)
                replayed[t - fuzz_targets]++;
            free(files[i]);
        }
        free(files);
    }
}

TEST(device_yaml_inputs) { replay_target("device_yaml"); }
TEST(experiment_yaml_inputs) { replay_target("experiment_yaml"); }
TEST(trace_inputs) { replay_target("trace"); }
TEST(mount_inputs) { replay_target("mount"); }
TEST(image_inputs) { replay_target("image"); }
TEST(import_inputs) { replay_target("import"); }
TEST(journal_inputs) { replay_target("journal"); }
TEST(jffs2_inputs) { replay_target("jffs2"); }

/* Every target has seeds, and every corpus directory a target. */
TEST(every_target_has_seeds)
{
    for (size_t i = 0; i < fuzz_ntargets; i++) {
        if (!replayed[i])
            fprintf(stderr, "no seeds in fuzz/corpus/%s\n", fuzz_targets[i].name);
        CHECK(replayed[i] > 0);
    }
    static const char *const roots[] = {"fuzz/corpus", "fuzz/regressions"};
    for (size_t r = 0; r < 2; r++) {
        DIR *d = opendir(roots[r]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            if (!fuzz_target_find(e->d_name))
                fprintf(stderr, "%s/%s: no fuzz target of that name\n", roots[r], e->d_name);
            CHECK(fuzz_target_find(e->d_name) != NULL);
        }
        if (d)
            closedir(d);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    /* find the repository root: the inputs and the device files they
     * name are relative to it */
    if (access("fuzz/corpus", F_OK)) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", __FILE__);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = '\0';
            strncat(dir, "/../..", sizeof dir - strlen(dir) - 1);
            if (chdir(dir))
                perror(dir);
        }
    }
    RUN(device_yaml_inputs);
    RUN(experiment_yaml_inputs);
    RUN(trace_inputs);
    RUN(mount_inputs);
    RUN(image_inputs);
    RUN(import_inputs);
    RUN(journal_inputs);
    RUN(jffs2_inputs);
    RUN(every_target_has_seeds);
    return test_summary("test_fuzz_regress");
}
