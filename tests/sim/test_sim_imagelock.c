/*
 * test_sim_imagelock.c -- one image, one writer (docs/simulator.md, "The
 * image lock"): a device opened with nand_open_write holds IMAGE.lock
 * until nand_close; another process's write-open, lock, save or sync of
 * the image is refused naming the holder; a reader is told who writes;
 * and a sync whose journal another writer folded away saves whole
 * instead of writing a journal no open can read.
 */
#include "nand.h"
#include "fixture.h"

#include <sys/wait.h>
#include <unistd.h>

/* A saved image of a small device, nothing held. */
static const char *image(const char *name)
{
    struct nand_config c;
    fx_small_config(&c);
    nand_dev *d = fx_create(&c);
    const char *p = tmp_path(name);
    int rc = d ? nand_save(d, p) : -1;
    nand_close(d);
    return rc ? NULL : p;
}

static int exists(const char *path, const char *suffix)
{
    char p[600];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, F_OK) == 0;
}

/* Run what in a child process (another writer): its return code, and
 * what it left in msg. */
static int in_child(int (*what)(const char *path, char *msg, size_t cap),
                    const char *path, char *msg, size_t cap)
{
    int fd[2];
    if (pipe(fd))
        return 999;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 999;
    if (pid == 0) {
        close(fd[0]);
        char m[1024] = "";
        int rc = what(path, m, sizeof m);
        ssize_t n = write(fd[1], m, strlen(m));
        _exit(n < 0 ? 255 : -rc);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], msg, cap - 1);
    msg[n > 0 ? n : 0] = 0;
    close(fd[0]);
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 999; /* killed: the test fails on it */
    return -WEXITSTATUS(st);
}

static int open_write(const char *path, char *msg, size_t cap)
{
    nand_dev *d = NULL;
    int rc = nand_open_write(path, "test second", &d, msg, cap);
    nand_close(d);
    return rc;
}

static int open_and_save(const char *path, char *msg, size_t cap)
{
    nand_dev *d = NULL;
    int rc = nand_open(path, &d, msg, cap);
    if (!rc)
        rc = nand_save(d, path);
    nand_close(d);
    return rc;
}

static int open_and_sync(const char *path, char *msg, size_t cap)
{
    nand_dev *d = NULL;
    int rc = nand_open(path, &d, msg, cap);
    if (!rc && !(rc = nand_erase(d, 5, NULL)))
        rc = nand_sync(d, path);
    nand_close(d);
    return rc;
}

static int holder(const char *path, char *msg, size_t cap)
{
    return -nand_lock_holder(path, msg, cap); /* in_child passes codes <= 0 */
}

TEST(a_second_writer_is_refused_while_the_first_holds_the_lock)
{
    const char *p = image("a.img");
    REQUIRE(p);
    nand_dev *d = NULL;
    char err[1024], msg[1024], want[1100];
    REQUIRE(nand_open_write(p, "test first", &d, err, sizeof err) == 0);
    CHECK(exists(p, ".lock"));
    snprintf(want, sizeof want, "%s is in use by test first (pid %ld)", p, (long)getpid());

    CHECK_EQ_INT(in_child(open_write, p, msg, sizeof msg), NAND_E_LOCKED);
    CHECK(strcmp(msg, want) == 0);
    CHECK_EQ_INT(in_child(open_and_save, p, msg, sizeof msg), NAND_E_LOCKED);
    CHECK_EQ_INT(in_child(open_and_sync, p, msg, sizeof msg), NAND_E_LOCKED);
    CHECK_EQ_INT(in_child(holder, p, msg, sizeof msg), -1);
    snprintf(want, sizeof want, "test first (pid %ld)", (long)getpid());
    CHECK(strcmp(msg, want) == 0);
    /* in this process too: a second lock of its own is refused */
    nand_lock *l = NULL;
    CHECK_EQ_INT(nand_lock_image(p, "again", NULL, &l, err, sizeof err), NAND_E_LOCKED);
    CHECK(l == NULL);
    CHECK(strstr(err, "is in use by test first") != NULL);
    CHECK(strcmp(nand_strerror(NAND_E_LOCKED), "unknown error") != 0);

    /* the holder itself saves and syncs */
    CHECK_EQ_INT(nand_erase(d, 4, NULL), 0);
    CHECK_EQ_INT(nand_sync(d, p), 0);
    CHECK_EQ_INT(nand_save(d, p), 0);
    nand_close(d); /* releases */
    CHECK_EQ_INT(in_child(holder, p, msg, sizeof msg), 0);
    CHECK_EQ_INT(in_child(open_write, p, msg, sizeof msg), 0);
    CHECK_EQ_INT(in_child(open_and_save, p, msg, sizeof msg), 0);
}

TEST(a_lock_taken_apart_is_held_by_the_device_given_it)
{
    const char *p = tmp_path("b.img");
    nand_lock *l = NULL;
    char err[512], msg[1024];
    /* no mount point: a holder naming one that is not mounted is a mount
     * starting or saving, which a contender waits for (minutes) */
    REQUIRE(nand_lock_image(p, "test create", NULL, &l, err, sizeof err) == 0);
    struct nand_config c;
    fx_small_config(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    nand_hold_lock(d, l);
    CHECK_EQ_INT(nand_save(d, p), 0);
    CHECK_EQ_INT(in_child(open_write, p, msg, sizeof msg), NAND_E_LOCKED);
    nand_lock_describe(l, "test renamed", NULL);
    CHECK_EQ_INT(in_child(holder, p, msg, sizeof msg), -1);
    CHECK(strncmp(msg, "test renamed (pid ", 18) == 0);
    nand_close(d);
    CHECK_EQ_INT(in_child(open_write, p, msg, sizeof msg), 0);
}

TEST(a_missing_image_leaves_no_lock_file)
{
    const char *p = tmp_path("missing.img");
    nand_dev *d = NULL;
    char err[512];
    CHECK_EQ_INT(nand_open_write(p, "test", &d, err, sizeof err), NAND_E_IO);
    CHECK(strstr(err, "cannot open") != NULL);
    CHECK(!exists(p, ".lock"));
}

/* A writer that ignored the lock (no lock file: nothing to refuse it)
 * saves between two syncs of another: the second sync must not append
 * to the journal that save folded away. */
TEST(a_sync_after_another_writer_saved_saves_whole)
{
    const char *p = image("c.img");
    REQUIRE(p);
    nand_dev *a = NULL, *b = NULL;
    char err[512];
    uint8_t x[PB], y[PB];
    REQUIRE(nand_open(p, &a, err, sizeof err) == 0);
    fx_fill(x, PB, 1);
    CHECK_EQ_INT(nand_program(a, 6, 0, x, x + PS, NULL), 0);
    CHECK_EQ_INT(nand_sync(a, p), 0);
    CHECK(exists(p, ".journal"));
    REQUIRE(nand_open(p, &b, err, sizeof err) == 0);
    CHECK_EQ_INT(nand_save(b, p), 0); /* folds a's journal */
    nand_close(b);
    CHECK(!exists(p, ".journal"));
    fx_fill(x + 0, PB, 2);
    CHECK_EQ_INT(nand_program(a, 6, 1, x, x + PS, NULL), 0);
    CHECK_EQ_INT(nand_sync(a, p), 0);
    fx_fill(x, PB, 3);
    CHECK_EQ_INT(nand_program(a, 6, 2, x, x + PS, NULL), 0);
    CHECK_EQ_INT(nand_sync(a, p), 0); /* appends to the journal of that save */
    nand_close(a);
    REQUIRE(nand_open(p, &b, err, sizeof err) == 0);
    for (uint32_t i = 0; i < 3; i++) {
        fx_fill(x, PB, i + 1);
        CHECK_EQ_INT(nand_read_raw(b, 6, i, y, y + PS, NULL), 0);
        CHECK(memcmp(x, y, PS) == 0);
    }
    nand_close(b);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("imagelock")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(a_second_writer_is_refused_while_the_first_holds_the_lock);
    RUN(a_lock_taken_apart_is_held_by_the_device_given_it);
    RUN(a_missing_image_leaves_no_lock_file);
    RUN(a_sync_after_another_writer_saved_saves_whole);
    tmp_dir_remove();
    return test_summary(argv[0]);
}
