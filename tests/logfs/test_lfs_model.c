/*
 * test_lfs_model.c -- LogFS against a reference model: long random
 * sequences of file and namespace operations, every result compared with
 * the model's, and after each step the whole namespace checked; periodic
 * sync, unmount and remount (with a tiny cache, so the tree is read back
 * from flash), over many seeds.
 */
#include "lfs_model.h"
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static const char *names[] = {"a", "b", "c", "dir1", "dir2", "x", "longer-name", "z"};
#define NNAMES (sizeof names / sizeof names[0])

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

static uint64_t rnd(struct run *r)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng;
}

/* A random existing directory: its path and model inode. */
static int pick_dir(struct run *r, char *path, size_t cap)
{
    int dir = 1;
    snprintf(path, cap, "%s", "");
    for (int depth = 0; depth < 3 && rnd(r) % 2; depth++) {
        struct m_inode *d = &r->m.in[dir];
        int subs[M_MAXENT], n = 0;
        for (int i = 0; i < d->nent; i++)
            if (r->m.in[d->ent[i].ino].type == M_DIR)
                subs[n++] = i;
        if (!n)
            break;
        int k = subs[rnd(r) % (uint64_t)n];
        size_t l = strlen(path);
        snprintf(path + l, cap - l, "/%s", d->ent[k].name);
        dir = d->ent[k].ino;
    }
    return dir;
}

/* LOGFS_COMPRESS_* of the runs (0: none), and with it data that
 * compresses: bytes of a 4-letter alphabet in runs, some random */
static int model_compress;

static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (uint8_t)(seed >> 59) ? (uint8_t)(seed >> 40) : 0; /* some zeros */
        if (model_compress && (seed >> 61) && i)
            buf[i] = (seed >> 58 & 7) ? buf[i - 1] : (uint8_t)("acgt"[seed >> 56 & 3]);
    }
}

#define EXPECT(cond, what)                                                   \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "seed step: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            r->fail = 1;                                                     \
            return;                                                          \
        }                                                                    \
    } while (0)

/* Compare one directory of the fs with the model, recursively. */
struct seen { const struct model *m; int dir; int count; int bad; };
static int on_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct seen *s = ctx;
    (void)ino;
    int mino = m_find(s->m, s->dir, name);
    s->count++;
    if (!mino)
        s->bad = 1;
    else if ((type == S_IFDIR) != (s->m->in[mino].type == M_DIR))
        s->bad = 1;
    return 0;
}

static void check_tree(struct run *r, int dir, const char *path)
{
    struct seen s = {&r->m, dir, 0, 0};
    uint64_t cookie = 0;
    int rc = logfs_readdir(r->fs, *path ? path : "/", &cookie, on_entry, &s);
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

/* One random operation, applied to both. */
static void step(struct run *r)
{
    char dpath[200], path[256], p2[200];
    int dir = pick_dir(r, dpath, sizeof dpath);
    const char *name = names[rnd(r) % NNAMES];
    snprintf(path, sizeof path, "%s/%s", dpath, name);
    int ino = m_find(&r->m, dir, name);
    enum m_type t = ino ? r->m.in[ino].type : M_NONE;
    int op = (int)(rnd(r) % 13), rc;
    r->ops[op]++;
    switch (op) {
    case 0: case 1: case 2: { /* write somewhere in a file, creating it */
        uint64_t off = rnd(r) % 3 ? rnd(r) % 9000 : rnd(r) % 300000;
        uint64_t len = rnd(r) % 3 ? rnd(r) % 5000 : rnd(r) % 40000;
        uint8_t *buf = malloc(len + 1);
        fill(buf, len, rnd(r));
        int fd = logfs_open(r->fs, path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
        if (t == M_NONE) {
            EXPECT(fd >= 0 || (r->m.in[dir].nent >= M_MAXENT), "create");
            if (fd >= 0) {
                ino = m_new(&r->m, M_FILE);
                m_add(&r->m, dir, name, ino);
                t = M_FILE;
            }
        } else if (t == M_DIR) {
            EXPECT(fd == -EISDIR, "open dir for writing");
        } else if (t == M_LINK) {
            EXPECT(fd == -ELOOP, "open symlink with O_NOFOLLOW");
        } else {
            EXPECT(fd >= 0, "open");
        }
        if (fd >= 0) {
            int64_t n = logfs_pwrite(r->fs, fd, buf, len, off);
            EXPECT(n == (int64_t)len, "pwrite");
            if (len)
                m_write(&r->m.in[ino], buf, len, off);
            EXPECT(logfs_close(r->fs, fd) == 0, "close");
        }
        free(buf);
        break;
    }
    case 3: { /* truncate */
        uint64_t size = rnd(r) % 20000;
        rc = logfs_truncate(r->fs, path, size);
        if (t == M_FILE) {
            EXPECT(rc == 0, "truncate");
            m_resize(&r->m.in[ino], size);
        } else {
            EXPECT(rc < 0, "truncate non-file");
        }
        break;
    }
    case 4: /* unlink */
        rc = logfs_unlink(r->fs, path);
        if (t == M_FILE || t == M_LINK) {
            EXPECT(rc == 0, "unlink");
            m_del(&r->m, dir, name);
            m_unref(&r->m, ino);
        } else {
            EXPECT(rc == (t == M_DIR ? -EISDIR : -ENOENT), "unlink error");
        }
        break;
    case 5: /* mkdir */
        rc = logfs_mkdir(r->fs, path, 0755);
        if (t == M_NONE && r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0, "mkdir");
            m_add(&r->m, dir, name, m_new(&r->m, M_DIR));
            r->m.in[dir].nlink++;
        } else if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "mkdir exists");
        }
        break;
    case 6: /* rmdir */
        rc = logfs_rmdir(r->fs, path);
        if (t == M_DIR) {
            int empty = r->m.in[ino].nent == 0;
            EXPECT(rc == (empty ? 0 : -ENOTEMPTY), "rmdir");
            if (empty) {
                m_del(&r->m, dir, name);
                m_unref(&r->m, ino);
                r->m.in[dir].nlink--;
            }
        } else {
            EXPECT(rc == (t == M_NONE ? -ENOENT : -ENOTDIR), "rmdir error");
        }
        break;
    case 7: case 8: { /* rename to a random place */
        int dir2 = pick_dir(r, p2, sizeof p2);
        const char *name2 = names[rnd(r) % NNAMES];
        char to[300];
        snprintf(to, sizeof to, "%s/%s", p2, name2);
        int ino2 = m_find(&r->m, dir2, name2);
        enum m_type t2 = ino2 ? r->m.in[ino2].type : M_NONE;
        rc = logfs_rename(r->fs, path, to);
        if (t == M_NONE) {
            EXPECT(rc == -ENOENT, "rename missing");
            break;
        }
        /* would it move a directory into itself? */
        int inside = 0;
        if (t == M_DIR) {
            size_t l = strlen(path);
            inside = !strncmp(to, path, l) && (to[l] == '/' || to[l] == 0);
        }
        if (ino2 == ino) {
            EXPECT(rc == 0, "rename onto itself");
        } else if (inside) {
            EXPECT(rc == -EINVAL, "rename into itself");
        } else if (t2 != M_NONE && t == M_DIR && t2 != M_DIR) {
            EXPECT(rc == -ENOTDIR, "rename dir onto file");
        } else if (t2 == M_DIR && t != M_DIR) {
            EXPECT(rc == -EISDIR, "rename file onto dir");
        } else if (t2 == M_DIR && r->m.in[ino2].nent) {
            EXPECT(rc == -ENOTEMPTY, "rename onto non-empty dir");
        } else if (t2 == M_NONE && r->m.in[dir2].nent >= M_MAXENT) {
            break;
        } else {
            EXPECT(rc == 0, "rename");
            if (t2 != M_NONE) {
                m_del(&r->m, dir2, name2);
                if (t2 == M_DIR)
                    r->m.in[dir2].nlink--;
                m_unref(&r->m, ino2);
            }
            m_del(&r->m, dir, name);
            m_add(&r->m, dir2, name2, ino);
            if (t == M_DIR && dir != dir2) {
                r->m.in[dir].nlink--;
                r->m.in[dir2].nlink++;
            }
        }
        break;
    }
    case 9: { /* hard link */
        int dir2 = pick_dir(r, p2, sizeof p2);
        const char *name2 = names[rnd(r) % NNAMES];
        char to[300];
        snprintf(to, sizeof to, "%s/%s", p2, name2);
        int ino2 = m_find(&r->m, dir2, name2);
        rc = logfs_link(r->fs, path, to);
        if (t == M_NONE)
            EXPECT(rc == -ENOENT, "link missing");
        else if (t == M_DIR)
            EXPECT(rc == -EPERM, "link dir");
        else if (ino2)
            EXPECT(rc == -EEXIST, "link exists");
        else if (r->m.in[dir2].nent < M_MAXENT) {
            EXPECT(rc == 0, "link");
            m_add(&r->m, dir2, name2, ino);
            r->m.in[ino].nlink++;
        }
        break;
    }
    case 10: { /* symlink */
        char target[64];
        snprintf(target, sizeof target, "/target-%u", (unsigned)(rnd(r) % 1000));
        rc = logfs_symlink(r->fs, target, path);
        if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "symlink exists");
        } else if (r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0, "symlink");
            int li = m_new(&r->m, M_LINK);
            m_write(&r->m.in[li], target, strlen(target), 0);
            m_add(&r->m, dir, name, li);
        }
        break;
    }
    case 11: /* sync */
        EXPECT(logfs_sync(r->fs) == 0, "sync");
        break;
    case 12: /* remount now and then */
        if (rnd(r) % 4 == 0)
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
