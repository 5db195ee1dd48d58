/*
 * test_fsapi_model.c -- every file system in the fsapi table against the
 * reference model of tests/lfs_model.h: long random sequences of file and
 * namespace operations (writes, sparse writes, truncate, punch, hard and
 * symbolic links, rename, unlink while open), each result compared with
 * the model's, the whole tree compared every few steps, periodic sync,
 * unmount and remount, on a small device that big writes fill several
 * times over (so the cleaners run) and into ENOSPC, which the model
 * accepts on any call that adds data (the call must then change nothing;
 * a short write must have written what it reports).
 *
 * A table entry left NULL (an fs without that call) skips those steps for
 * that fs; every fs registered now has all of them.
 */
#include "lfs_model.h"
#include "fsapi.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

static const char *names[] = {"a", "b", "c", "dir1", "dir2", "x", "longer-name", "z"};
#define NNAMES (sizeof names / sizeof names[0])
#define NOPS 16

struct run {
    struct model m;
    const struct fsapi *api;
    nand_dev *dev;
    void *fs;
    uint64_t rng, seed;
    int fail, step;
    int ops[NOPS], enospc;
};

static uint64_t rnd(struct run *r)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return r->rng;
}

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

static void fill(uint8_t *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        buf[i] = (uint8_t)(seed >> 59) ? (uint8_t)(seed >> 40) : 0;
    }
}

#define EXPECT(cond, what)                                                        \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s seed %" PRIu64 " step %d: %s (%s:%d)\n",          \
                    r->api->name, r->seed, r->step, what, __FILE__, __LINE__);    \
            r->fail = 1;                                                          \
            return;                                                               \
        }                                                                         \
    } while (0)

struct seen { const struct model *m; int dir, count, bad; };
static int on_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct seen *s = ctx;
    (void)ino;
    int mino = m_find(s->m, s->dir, name);
    s->count++;
    if (!mino || (type == S_IFDIR) != (s->m->in[mino].type == M_DIR))
        s->bad = 1;
    return 0;
}

static void check_tree(struct run *r, int dir, const char *path)
{
    struct seen s = {&r->m, dir, 0, 0};
    uint64_t cookie = 0;
    int rc = r->api->readdir(r->fs, *path ? path : "/", &cookie, on_entry, &s);
    EXPECT(rc == 0 && !s.bad && s.count == r->m.in[dir].nent, path);
    struct m_inode *d = &r->m.in[dir];
    for (int i = 0; i < d->nent && !r->fail; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", path, d->ent[i].name);
        struct m_inode *in = &r->m.in[d->ent[i].ino];
        struct logfs_stat st;
        EXPECT(r->api->lstat(r->fs, p, &st) == 0, p);
        EXPECT((int)st.nlink == in->nlink, "nlink");
        if (in->type == M_DIR) {
            EXPECT(S_ISDIR(st.mode), "dir type");
            check_tree(r, d->ent[i].ino, p);
        } else if (in->type == M_LINK) {
            char buf[256];
            int64_t n = r->api->readlink(r->fs, p, buf, sizeof buf);
            EXPECT(S_ISLNK(st.mode) && n == (int64_t)in->size &&
                   !memcmp(buf, in->data, in->size), "symlink");
        } else {
            EXPECT(S_ISREG(st.mode) && st.size == in->size, "file size");
            uint8_t *buf = malloc(in->size + 1);
            int fd = r->api->open(r->fs, p, O_RDONLY, 0);
            int64_t n = fd >= 0 ? r->api->pread(r->fs, fd, buf, in->size + 1, 0) : fd;
            int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
            free(buf);
            if (fd >= 0)
                r->api->close(r->fs, fd);
            EXPECT(same, "file content");
        }
    }
}

static void remount(struct run *r)
{
    EXPECT(r->api->unmount(r->fs) == 0, "unmount");
    r->fs = NULL;
    EXPECT(r->api->mount(r->dev, NULL, &r->fs) == 0, "mount");
}

/* ENOSPC is fine where the call adds data; anything else must match. */
#define FULL(rc) ((rc) == -ENOSPC && ++r->enospc)

static void op_write(struct run *r, int dir, const char *name, const char *path, int ino,
                     enum m_type t, int big)
{
    uint64_t off = big ? (rnd(r) % 2 ? 0 : rnd(r) % 100000)
                 : rnd(r) % 3 ? rnd(r) % 9000 : rnd(r) % 300000;
    uint64_t len = big ? 500000 + rnd(r) % 2500000 : rnd(r) % 3 ? rnd(r) % 5000 : rnd(r) % 40000;
    uint8_t *buf = malloc(len + 1);
    fill(buf, len, rnd(r));
    int fd = r->api->open(r->fs, path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
    if (t == M_NONE) {
        EXPECT(fd >= 0 || FULL(fd) || r->m.in[dir].nent >= M_MAXENT, "create");
        if (fd >= 0) {
            ino = m_new(&r->m, M_FILE);
            m_add(&r->m, dir, name, ino);
        }
    } else if (t == M_DIR) {
        EXPECT(fd == -EISDIR, "open dir for writing");
    } else if (t == M_LINK) {
        EXPECT(fd == -ELOOP, "open symlink with O_NOFOLLOW");
    } else {
        EXPECT(fd >= 0, "open");
    }
    if (fd >= 0) {
        int64_t n = r->api->pwrite(r->fs, fd, buf, len, off);
        EXPECT(n == (int64_t)len || FULL(n) || (n >= 0 && n < (int64_t)len), "pwrite");
        if (n > 0)
            m_write(&r->m.in[ino], buf, (uint64_t)n, off);
        EXPECT(r->api->close(r->fs, fd) == 0, "close");
    }
    free(buf);
}

/* truncate or punch through an fd */
static void op_resize(struct run *r, const char *path, int ino, enum m_type t, int punch)
{
    if (punch ? !r->api->punch : !r->api->ftruncate)
        return;
    int fd = r->api->open(r->fs, path, O_WRONLY | O_NOFOLLOW, 0);
    if (t != M_FILE) {
        EXPECT(fd < 0, "open non-file for writing");
        return;
    }
    EXPECT(fd >= 0, "open for truncate");
    struct m_inode *in = &r->m.in[ino];
    if (!punch) {
        uint64_t size = rnd(r) % 20000;
        int rc = r->api->ftruncate(r->fs, fd, size);
        EXPECT(rc == 0 || (FULL(rc) && size > in->size), "ftruncate");
        if (!rc)
            m_resize(in, size);
    } else {
        uint64_t off = in->size ? rnd(r) % (in->size + 100) : 0, len = rnd(r) % 30000;
        int rc = r->api->punch(r->fs, fd, off, len);
        EXPECT(rc == 0 || FULL(rc), "punch");
        if (!rc && off < in->size) {
            uint64_t e = off + len > in->size ? in->size : off + len;
            memset(in->data + off, 0, e - off);
        }
    }
    EXPECT(r->api->close(r->fs, fd) == 0, "close");
}

static void op_rename(struct run *r, int dir, const char *name, const char *path, int ino,
                      enum m_type t)
{
    char p2[200], to[300];
    int dir2 = pick_dir(r, p2, sizeof p2);
    const char *name2 = names[rnd(r) % NNAMES];
    snprintf(to, sizeof to, "%s/%s", p2, name2);
    int ino2 = m_find(&r->m, dir2, name2);
    enum m_type t2 = ino2 ? r->m.in[ino2].type : M_NONE;
    int rc = r->api->rename(r->fs, path, to);
    if (t == M_NONE) {
        EXPECT(rc == -ENOENT, "rename missing");
        return;
    }
    int inside = 0;
    if (t == M_DIR) {
        size_t l = strlen(path);
        inside = !strncmp(to, path, l) && (to[l] == '/' || to[l] == 0);
    }
    if (ino2 == ino)
        EXPECT(rc == 0, "rename onto itself");
    else if (inside)
        EXPECT(rc == -EINVAL, "rename into itself");
    else if (t2 != M_NONE && t == M_DIR && t2 != M_DIR)
        EXPECT(rc == -ENOTDIR, "rename dir onto file");
    else if (t2 == M_DIR && t != M_DIR)
        EXPECT(rc == -EISDIR, "rename file onto dir");
    else if (t2 == M_DIR && r->m.in[ino2].nent)
        EXPECT(rc == -ENOTEMPTY, "rename onto non-empty dir");
    else if (t2 == M_NONE && r->m.in[dir2].nent >= M_MAXENT)
        return;
    else {
        EXPECT(rc == 0 || FULL(rc), "rename");
        if (rc)
            return;
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
}

/* unlink a file while it is open: still readable through the fd */
static void op_unlink_open(struct run *r, int dir, const char *name, const char *path,
                           int ino, enum m_type t)
{
    if (t != M_FILE || r->m.in[ino].nlink != 1)
        return;
    int fd = r->api->open(r->fs, path, O_RDONLY, 0);
    EXPECT(fd >= 0, "open before unlink");
    EXPECT(r->api->unlink(r->fs, path) == 0, "unlink open file");
    struct m_inode *in = &r->m.in[ino];
    uint8_t *buf = malloc(in->size + 1);
    int64_t n = r->api->pread(r->fs, fd, buf, in->size + 1, 0);
    int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
    free(buf);
    m_del(&r->m, dir, name);
    m_unref(&r->m, ino);
    EXPECT(same, "read after unlink");
    EXPECT(r->api->close(r->fs, fd) == 0, "close unlinked");
}

static void step(struct run *r)
{
    char dpath[200], path[256], p2[200];
    int dir = pick_dir(r, dpath, sizeof dpath);
    const char *name = names[rnd(r) % NNAMES];
    snprintf(path, sizeof path, "%s/%s", dpath, name);
    int ino = m_find(&r->m, dir, name), rc;
    enum m_type t = ino ? r->m.in[ino].type : M_NONE;
    int op = (int)(rnd(r) % NOPS);
    r->ops[op]++;
    switch (op) {
    case 0: case 1: case 2:
        op_write(r, dir, name, path, ino, t, 0);
        break;
    case 3:
        op_write(r, dir, name, path, ino, t, 1);
        break;
    case 4: case 13:
        op_resize(r, path, ino, t, op == 13);
        break;
    case 5:
        rc = r->api->unlink(r->fs, path);
        if (t == M_FILE || t == M_LINK) {
            EXPECT(rc == 0, "unlink");
            m_del(&r->m, dir, name);
            m_unref(&r->m, ino);
        } else {
            EXPECT(rc == (t == M_DIR ? -EISDIR : -ENOENT), "unlink error");
        }
        break;
    case 6:
        rc = r->api->mkdir(r->fs, path, 0755);
        if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "mkdir exists");
        } else if (r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0 || FULL(rc), "mkdir");
            if (!rc) {
                m_add(&r->m, dir, name, m_new(&r->m, M_DIR));
                r->m.in[dir].nlink++;
            }
        }
        break;
    case 7:
        rc = r->api->rmdir(r->fs, path);
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
    case 8:
        if (r->api->rename)
            op_rename(r, dir, name, path, ino, t);
        break;
    case 9: {
        if (!r->api->link)
            break;
        int dir2 = pick_dir(r, p2, sizeof p2);
        const char *name2 = names[rnd(r) % NNAMES];
        char to[300];
        snprintf(to, sizeof to, "%s/%s", p2, name2);
        int ino2 = m_find(&r->m, dir2, name2);
        rc = r->api->link(r->fs, path, to);
        if (t == M_NONE)
            EXPECT(rc == -ENOENT, "link missing");
        else if (t == M_DIR)
            EXPECT(rc == -EPERM, "link dir");
        else if (ino2)
            EXPECT(rc == -EEXIST, "link exists");
        else if (r->m.in[dir2].nent < M_MAXENT) {
            EXPECT(rc == 0 || FULL(rc), "link");
            if (!rc) {
                m_add(&r->m, dir2, name2, ino);
                r->m.in[ino].nlink++;
            }
        }
        break;
    }
    case 10: {
        if (!r->api->symlink)
            break;
        char target[64];
        snprintf(target, sizeof target, "/target-%u", (unsigned)(rnd(r) % 1000));
        rc = r->api->symlink(r->fs, target, path);
        if (t != M_NONE) {
            EXPECT(rc == -EEXIST, "symlink exists");
        } else if (r->m.in[dir].nent < M_MAXENT) {
            EXPECT(rc == 0 || FULL(rc), "symlink");
            if (!rc) {
                int li = m_new(&r->m, M_LINK);
                m_write(&r->m.in[li], target, strlen(target), 0);
                m_add(&r->m, dir, name, li);
            }
        }
        break;
    }
    case 11:
        EXPECT(r->api->sync(r->fs) == 0, "sync");
        break;
    case 12:
        if (rnd(r) % 4 == 0)
            remount(r);
        break;
    case 14:
        op_unlink_open(r, dir, name, path, ino, t);
        break;
    case 15: { /* fsync of a fresh write */
        int fd = r->api->open(r->fs, path, O_RDONLY | O_NOFOLLOW, 0);
        if (fd >= 0) {
            EXPECT(r->api->fsync(r->fs, fd) == 0, "fsync");
            r->api->close(r->fs, fd);
        }
        break;
    }
    }
}

/* 128 blocks of 32 pages of 2 KiB: 8 MiB, 1% factory-bad */
static int run_seed(const struct fsapi *api, uint64_t seed, int steps, int ops[NOPS],
                    int *enospc)
{
    struct run *r = calloc(1, sizeof *r);
    m_init(&r->m);
    r->api = api;
    r->seed = seed;
    r->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 128;
    c.geo.pages_per_block = 32;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    c.factory_bad_fraction = 0.01;
    c.seed = seed;
    /* an fs with a fixed layout may refuse a device whose bad blocks fall
     * where it needs good ones (blockfs's metadata; mkfs says -EIO): the
     * test then draws another device */
    int rc = -EIO;
    for (int tries = 0; rc == -EIO && tries < 8; tries++, c.seed += 1000003) {
        if (r->dev)
            nand_close(r->dev);
        r->dev = NULL;
        rc = nand_create(&c, &r->dev) ? -ENOMEM : api->mkfs(r->dev, NULL);
    }
    if (rc || api->mount(r->dev, NULL, &r->fs)) {
        fprintf(stderr, "%s: mkfs/mount failed\n", api->name);
        r->fail = 1;
        goto out;
    }
    for (r->step = 0; r->step < steps && !r->fail; r->step++) {
        step(r);
        if (!r->fail && r->step % 20 == 19)
            check_tree(r, 1, "");
        if (!r->fail && r->step % 60 == 59) {
            remount(r); /* sync + unmount + mount */
            if (!r->fail)
                check_tree(r, 1, "");
        }
    }
    if (!r->fail) {
        remount(r);
        if (!r->fail)
            check_tree(r, 1, "");
    }
    for (int i = 0; i < NOPS; i++)
        ops[i] += r->ops[i];
    *enospc += r->enospc;
out:;
    int fail = r->fail;
    if (r->fs)
        api->unmount(r->fs);
    struct nand_stats st;
    nand_get_stats(r->dev, &st);
    if (!fail)
        printf("  %-14s seed %2" PRIu64 ": %5.1f MiB written, %" PRIu64 " erases, %d ENOSPC\n",
               api->name, seed, (double)st.bytes_written / (1 << 20), st.erases, r->enospc);
    nand_close(r->dev);
    m_free(&r->m);
    free(r);
    return fail;
}

TEST(model_every_fs)
{
    int seeds = test_long() ? 40 : 4;
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        int failures = 0, ops[NOPS] = {0}, enospc = 0;
        for (int s = 1; s <= seeds; s++)
            failures += run_seed(api, (uint64_t)s, 600, ops, &enospc);
        if (failures)
            fprintf(stderr, "%s: %d of %d seeds failed\n", api->name, failures, seeds);
        CHECK_EQ_INT(failures, 0);
        for (int k = 0; k < NOPS; k++)
            CHECK(ops[k] > 0);
        printf("%s: %d seeds, %d ENOSPC accepted\n", api->name, seeds, enospc);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    RUN(model_every_fs);
    return test_summary(argv[0]);
}
