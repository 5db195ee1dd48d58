/*
 * test_lfs_model.c -- LogFS against a reference model: long random
 * sequences of file and namespace operations, every result compared with
 * the model's, and after each step the whole namespace checked; periodic
 * sync, unmount and remount (with a tiny cache, so the tree is read back
 * from flash), over many seeds.
 */
#include "model_driver.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

struct run {
    struct model m;
    nand_dev *dev;
    logfs *fs;
    uint64_t rng;
    struct logfs_options opt;
    int fail;
    int ops[16];
    uint64_t raw, stored; /* data bytes written, before and after compression */
};

/* Add the mount's compression counts to the run's (before it goes). */
static void count_data(struct run *r)
{
    struct logfs_stats st;
    logfs_get_stats(r->fs, &st);
    r->raw += st.data_raw_bytes;
    r->stored += st.data_stored_bytes;
}

/* LOGFS_COMPRESS_* of the runs (0: none), and with it data that
 * compresses: bytes of a 4-letter alphabet in runs, some random */
static int model_compress;

#define EXPECT(cond, what)                                                   \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "seed step: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            r->fail = 1;                                                     \
            return;                                                          \
        }                                                                    \
    } while (0)

/* Compare one directory of the fs with the model, recursively. */
static void check_tree(struct run *r, int dir, const char *path)
{
    struct md_seen s = {&r->m, dir, 0, 0};
    uint64_t cookie = 0;
    int rc = logfs_readdir(r->fs, *path ? path : "/", &cookie, md_on_entry, &s);
    EXPECT(rc == 0 && !s.bad && s.count == r->m.in[dir].nent, path);
    struct m_inode *d = &r->m.in[dir];
    for (int i = 0; i < d->nent; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", path, d->ent[i].name);
        struct m_inode *in = &r->m.in[d->ent[i].ino];
        struct fs_stat st;
        EXPECT(logfs_lstat(r->fs, p, &st) == 0, p);
        EXPECT((int)st.nlink == in->nlink, "nlink");
        if (in->type == M_DIR) {
            EXPECT(S_ISDIR(st.mode), "dir type");
            check_tree(r, d->ent[i].ino, p);
        } else if (in->type == M_LINK) {
            char buf[256];
            int64_t n = logfs_readlink(r->fs, p, buf, sizeof buf);
            EXPECT(S_ISLNK(st.mode) && n == (int64_t)in->size &&
                   !memcmp(buf, in->data, in->size), "symlink");
        } else {
            EXPECT(S_ISREG(st.mode) && st.size == in->size, "file size");
            uint8_t *buf = malloc(in->size + 1);
            int fd = logfs_open(r->fs, p, O_RDONLY, 0);
            int64_t n = fd >= 0 ? logfs_pread(r->fs, fd, buf, in->size + 1, 0) : fd;
            int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
            free(buf);
            if (fd >= 0)
                logfs_close(r->fs, fd);
            EXPECT(same, "file content");
        }
        if (r->fail)
            return;
    }
}

static void remount(struct run *r)
{
    count_data(r); /* the unmount's commit is not counted: a lower bound */
    EXPECT(logfs_unmount(r->fs) == 0, "unmount");
    r->fs = NULL;
    EXPECT(logfs_mount(r->dev, &r->opt, &r->fs) == 0, "mount");
}

/* A namespace call's result rc against the model (which follows). */
#define NS(op, b, target, rc, what) \
    EXPECT(md_step(&r->m, op, &a, b, target, rc, 0, NULL, NULL) == 0, what)

/* One random operation, applied to both. */
static void step(struct run *r)
{
    struct md_place a, b;
    md_pick(&r->m, &r->rng, &a);
    int op = (int)(md_rnd(&r->rng) % 13), rc;
    r->ops[op]++;
    switch (op) {
    case 0: case 1: case 2: { /* write somewhere in a file, creating it */
        uint64_t off = md_rnd(&r->rng) % 3 ? md_rnd(&r->rng) % 9000 : md_rnd(&r->rng) % 300000;
        uint64_t len = md_rnd(&r->rng) % 3 ? md_rnd(&r->rng) % 5000 : md_rnd(&r->rng) % 40000;
        uint8_t *buf = malloc(len + 1);
        md_fill(buf, len, md_rnd(&r->rng), model_compress);
        int fd = logfs_open(r->fs, a.path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
        int64_t n = 0;
        rc = md_step(&r->m, MD_CREATE, &a, NULL, NULL, fd >= 0 ? 0 : fd, 0, NULL, NULL);
        if (!rc && fd >= 0) {
            n = logfs_pwrite(r->fs, fd, buf, len, off);
            if (n == (int64_t)len && len)
                m_write(&r->m.in[m_find(&r->m, a.dir, a.name)], buf, len, off);
        }
        free(buf);
        EXPECT(rc == 0, "open");
        if (fd >= 0) {
            EXPECT(n == (int64_t)len, "pwrite");
            EXPECT(logfs_close(r->fs, fd) == 0, "close");
        }
        break;
    }
    case 3: { /* truncate */
        uint64_t size = md_rnd(&r->rng) % 20000;
        rc = logfs_truncate(r->fs, a.path, size);
        if (a.t == M_FILE) {
            EXPECT(rc == 0, "truncate");
            m_resize(&r->m.in[a.ino], size);
        } else {
            EXPECT(rc < 0, "truncate non-file");
        }
        break;
    }
    case 4:
        NS(MD_UNLINK, NULL, NULL, logfs_unlink(r->fs, a.path), "unlink");
        break;
    case 5:
        NS(MD_MKDIR, NULL, NULL, logfs_mkdir(r->fs, a.path, 0755), "mkdir");
        break;
    case 6:
        NS(MD_RMDIR, NULL, NULL, logfs_rmdir(r->fs, a.path), "rmdir");
        break;
    case 7: case 8: /* rename to a random place */
        md_pick(&r->m, &r->rng, &b);
        NS(MD_RENAME, &b, NULL, logfs_rename(r->fs, a.path, b.path), "rename");
        break;
    case 9: /* hard link */
        md_pick(&r->m, &r->rng, &b);
        NS(MD_LINK, &b, NULL, logfs_link(r->fs, a.path, b.path), "link");
        break;
    case 10: { /* symlink */
        char target[64];
        snprintf(target, sizeof target, "/target-%u", (unsigned)(md_rnd(&r->rng) % 1000));
        NS(MD_SYMLINK, NULL, target, logfs_symlink(r->fs, target, a.path), "symlink");
        break;
    }
    case 11: /* sync */
        EXPECT(logfs_sync(r->fs) == 0, "sync");
        break;
    case 12: /* remount now and then */
        if (md_rnd(&r->rng) % 4 == 0)
            remount(r);
        break;
    }
}

/* data bytes of all runs, before and after compression */
static uint64_t model_raw, model_stored;

static void run_seed(uint64_t seed, int steps, uint64_t cache, int *failures,
                     int ops[16])
{
    struct run *r = calloc(1, sizeof *r);
    m_init(&r->m);
    r->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    r->opt.cache_bytes = cache;
    r->opt.dirty_bytes = 256 << 10;
    r->dev = FX_DEVICE(.blocks = 1024 /* 128 MiB */, .pages = 64, .bad = 0.01, .seed = seed);
    if (!r->dev || logfs_mkfs(r->dev, &(struct logfs_options){.compress = model_compress}) ||
        logfs_mount(r->dev, &r->opt, &r->fs)) {
        (*failures)++;
        goto out;
    }
    for (int i = 0; i < steps && !r->fail; i++) {
        step(r);
        if (!r->fail && (i % 10 == 9 || i == steps - 1))
            check_tree(r, 1, "");
        if (!r->fail && i % 50 == 49) { /* space accounting matches the trees */
            uint32_t seg = 0, have = 0;
            uint64_t want = 0;
            if (logfs_sync(r->fs) || lfs_check_live(r->fs, &seg, &want, &have)) {
                fprintf(stderr, "segment %u: trees hold %" PRIu64 " bytes, count %u\n",
                        seg, want, have);
                r->fail = 1;
            }
        }
        if (r->fail)
            fprintf(stderr, "seed %" PRIu64 " failed at step %d\n", seed, i);
    }
    if (!r->fail) {
        remount(r);
        if (!r->fail)
            check_tree(r, 1, "");
    }
    *failures += r->fail;
    for (int i = 0; i < 16; i++)
        ops[i] += r->ops[i];
    model_raw += r->raw;
    model_stored += r->stored;
out:
    if (r->fs)
        logfs_unmount(r->fs);
    nand_close(r->dev);
    m_free(&r->m);
    free(r);
}

TEST(model_many_seeds)
{
    int failures = 0, ops[16] = {0};
    int seeds = test_long() ? 200 : 20;
    for (int s = 1; s <= seeds; s++)
        run_seed((uint64_t)s, 300, 4u << 20, &failures, ops);
    CHECK_EQ_INT(failures, 0);
    for (int i = 0; i < 13; i++)
        CHECK(ops[i] > 0); /* every operation was exercised */
}

TEST(model_tiny_cache)
{
    int failures = 0, ops[16] = {0};
    for (int s = 1000; s < 1005; s++)
        run_seed((uint64_t)s, 300, 16 << 10, &failures, ops);
    CHECK_EQ_INT(failures, 0);
}

/* Compressed data blocks (zlib, then lzo), through the same steps. */
TEST(model_compressed)
{
    int failures = 0, ops[16] = {0};
    model_raw = model_stored = 0;
    for (model_compress = LOGFS_COMPRESS_ZLIB; model_compress <= LOGFS_COMPRESS_LZO;
         model_compress++)
        for (int s = 2000; s < (test_long() ? 2040 : 2004); s++)
            run_seed((uint64_t)s, 300, s % 2 ? 16 << 10 : 4u << 20, &failures, ops);
    model_compress = 0;
    CHECK_EQ_INT(failures, 0);
    fprintf(stderr, "compressed model runs: %" PRIu64 " data bytes stored in %" PRIu64 "\n",
            model_raw, model_stored);
    CHECK(model_raw > 0 && model_stored * 10 < model_raw * 9); /* it did compress */
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(model_many_seeds);
    RUN(model_tiny_cache);
    RUN(model_compressed);
    return test_summary(argv[0]);
}
