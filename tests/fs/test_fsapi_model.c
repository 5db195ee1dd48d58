/*
 * test_fsapi_model.c -- every file system in the fsapi table against the
 * reference model of tests/lfs_model.h: long random sequences of file and
 * namespace operations (writes, sparse writes, truncate, punch, allocate, hard and
 * symbolic links, rename, unlink while open, an fd kept open across other
 * operations and unlinks), each result compared with the model's, the
 * whole tree compared every few steps (readdir in one call and one entry
 * a call by cookie, lstat with nlink and directory sizes, readlink, every
 * file's content), periodic sync, unmount and remount.
 *
 * Each fs runs under every profile in the table below that names it or
 * names no fs: a device, mkfs and mount options, an operation mix.  In a
 * "fill" profile big writes fill a small device several times over (so
 * the cleaners run) and into ENOSPC, which the model accepts on any call
 * that adds data (the call must then change nothing; a short write must
 * have written what it reports); in the others the device never fills
 * and every call must do just what the model says.
 *
 * A table entry left NULL (an fs without that call) skips those steps for
 * that fs; every fs registered now has all of them.
 */
#include "model_driver.h"
#include "fsapi.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

enum op {
    OP_WRITE, OP_BIG_WRITE, OP_TRUNCATE, OP_PUNCH, OP_UNLINK, OP_MKDIR, OP_RMDIR,
    OP_RENAME, OP_LINK, OP_SYMLINK, OP_SYNC, OP_REMOUNT, OP_UNLINK_OPEN, OP_FSYNC,
    OP_KEEP, OP_ALLOCATE, NOPS
};
static const char *op_names[NOPS] = {
    "write", "big write", "truncate", "punch", "unlink", "mkdir", "rmdir",
    "rename", "link", "symlink", "sync", "remount", "unlink open", "fsync", "keep fd",
    "allocate",
};

/* Relative frequencies of the operations. */
static const int mix_fill[NOPS] = {3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
/* no big writes; renames twice as often */
static const int mix_small[NOPS] = {3, 0, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1};

struct profile {
    const char *fs;            /* the fs it is for; NULL: every fs */
    const char *opts;          /* mkfs and mount options; NULL: defaults */
    const char *desc;          /* for the report */
    uint32_t blocks, pages;    /* erase blocks, 2 KiB pages per block */
    double bad;                /* factory-bad fraction */
    int bit_errors;            /* 0: a device without raw bit errors */
    int fill;                  /* ENOSPC accepted where a call adds data */
    const int *mix;
    int first_seed, seeds, long_seeds, steps;
    int check_every;           /* steps between whole-tree checks */
};

#define DEV_FILL .blocks = 128, .pages = 32  /* 8 MiB in 64 KiB erase blocks */
#define DEV_SMALL .blocks = 256, .pages = 16 /* 8 MiB in 32 KiB erase blocks */
static const struct profile profiles[] = {
    /* filled over and over: the cleaners, ENOSPC, 1% factory-bad */
    {.desc = "8 MiB, 1% bad, filled", DEV_FILL, .bad = 0.01, .bit_errors = 1, .fill = 1,
     .mix = mix_fill, .first_seed = 1, .seeds = 4, .long_seeds = 40, .steps = 600,
     .check_every = 20},
    /* small writes that never fill the device: every call must succeed */
    {.desc = "8 MiB, never full", DEV_SMALL, .mix = mix_small, .first_seed = 101,
     .seeds = 3, .long_seeds = 20, .steps = 400, .check_every = 10},
    /* blockfs: fs blocks of two pages and of one, and the write-through
     * path (cache=0: every block write is an erase-block write-back) */
    {.fs = "blockfs", .opts = "block_size=4096", .desc = "8 MiB, never full", DEV_SMALL,
     .mix = mix_small, .first_seed = 1, .seeds = 10, .long_seeds = 50, .steps = 400,
     .check_every = 10},
    {.fs = "blockfs", .opts = "block_size=2048,cache=0", .desc = "8 MiB, never full",
     DEV_SMALL, .mix = mix_small, .first_seed = 1, .seeds = 10, .long_seeds = 50,
     .steps = 400, .check_every = 10},
    /* blockfs on the FTL instead of the in-place map (the FTL's pages are
     * the fs's sectors; remounts find the FTL) */
    {.fs = "blockfs", .opts = "dev=ftl,gc_policy=greedy", .desc = "8 MiB on the FTL, never full",
     DEV_SMALL, .mix = mix_small, .first_seed = 1, .seeds = 4, .long_seeds = 20, .steps = 400,
     .check_every = 10},
    /* blockfs: factory-bad erase blocks in the data region are never
     * allocated (a device with one in the metadata is drawn again) */
    {.fs = "blockfs", .desc = "8 MiB, 2% bad, never full", DEV_SMALL, .bad = 0.02,
     .mix = mix_small, .first_seed = 50, .seeds = 10, .long_seeds = 10, .steps = 300,
     .check_every = 10},
};
#define NPROFILES (sizeof profiles / sizeof profiles[0])

struct run {
    struct model m;
    const struct fsapi *api;
    const struct profile *p;
    nand_dev *dev;
    void *fs;
    uint64_t rng, seed;
    int fail, step;
    int ops[NOPS], enospc;
    int ofd, oino; /* an fd kept open across steps, and its model inode */
};

static uint64_t rnd(struct run *r)
{
    return md_rnd(&r->rng);
}

#define EXPECT(cond, what)                                                        \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s (%s, %s) seed %" PRIu64 " step %d: %s (%s:%d)\n", \
                    r->api->name, r->p->desc, r->p->opts ? r->p->opts : "defaults", \
                    r->seed, r->step, what, __FILE__, __LINE__);                  \
            r->fail = 1;                                                          \
            return;                                                               \
        }                                                                         \
    } while (0)

/* readdir one entry a call: take one, stop at the next (which the cookie
 * then names, so that the next call starts with it) */
struct paged { struct md_seen s; int budget; };
static int one_entry(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct paged *pg = ctx;
    if (!pg->budget)
        return 1;
    pg->budget--;
    return md_on_entry(&pg->s, name, ino, type);
}

/* 1 if fd reads back exactly the model inode's content */
static int same_content(struct run *r, int fd, const struct m_inode *in)
{
    uint8_t *buf = malloc(in->size + 1);
    int64_t n = r->api->pread(r->fs, fd, buf, in->size + 1, 0);
    int same = n == (int64_t)in->size && (!in->size || !memcmp(buf, in->data, in->size));
    free(buf);
    return same;
}

static void check_tree(struct run *r, int dir, const char *path)
{
    const char *dp = *path ? path : "/";
    struct md_seen s = {&r->m, dir, 0, 0};
    uint64_t cookie = 0;
    int rc = r->api->readdir(r->fs, dp, &cookie, md_on_entry, &s);
    EXPECT(rc == 0 && !s.bad && s.count == r->m.in[dir].nent, path);
    struct paged pg = {{&r->m, dir, 0, 0}, 0};
    cookie = 0;
    for (int guard = 0; cookie != UINT64_MAX && guard <= M_MAXENT + 1; guard++) {
        pg.budget = 1;
        EXPECT(r->api->readdir(r->fs, dp, &cookie, one_entry, &pg) == 0, "readdir");
    }
    EXPECT(!pg.s.bad && pg.s.count == r->m.in[dir].nent, "readdir by cookie");
    struct m_inode *d = &r->m.in[dir];
    for (int i = 0; i < d->nent && !r->fail; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", path, d->ent[i].name);
        struct m_inode *in = &r->m.in[d->ent[i].ino];
        struct fs_stat st;
        EXPECT(r->api->lstat(r->fs, p, &st) == 0, p);
        EXPECT((int)st.nlink == in->nlink, "nlink");
        if (in->type == M_DIR) {
            EXPECT(S_ISDIR(st.mode) && st.size == (uint64_t)in->nent, "dir type and size");
            check_tree(r, d->ent[i].ino, p);
        } else if (in->type == M_LINK) {
            char buf[256];
            int64_t n = r->api->readlink(r->fs, p, buf, sizeof buf);
            EXPECT(S_ISLNK(st.mode) && n == (int64_t)in->size &&
                   !memcmp(buf, in->data, in->size), "symlink");
        } else {
            EXPECT(S_ISREG(st.mode) && st.size == in->size, "file size");
            int fd = r->api->open(r->fs, p, O_RDONLY, 0);
            int same = fd >= 0 && same_content(r, fd, in);
            if (fd >= 0)
                r->api->close(r->fs, fd);
            EXPECT(same, "file content");
        }
    }
}

/* the kept fd still reads its file as the model has it (unlinked or
 * renamed over meanwhile, or not) */
static void check_kept(struct run *r)
{
    if (r->ofd >= 0)
        EXPECT(same_content(r, r->ofd, &r->m.in[r->oino]), "kept fd content");
}

/* check and close the kept fd; the model forgets its file if that was
 * unlinked */
static void close_kept(struct run *r)
{
    if (r->ofd < 0)
        return;
    check_kept(r);
    int rc = r->api->close(r->fs, r->ofd);
    r->ofd = -1;
    struct m_inode *in = &r->m.in[r->oino];
    if (in->type == M_FILE && in->nlink <= 0) {
        free(in->data);
        memset(in, 0, sizeof *in);
    }
    EXPECT(rc == 0, "close kept fd");
}

static void remount(struct run *r)
{
    close_kept(r);
    EXPECT(r->api->unmount(r->fs) == 0, "unmount");
    r->fs = NULL;
    EXPECT(r->api->mount(r->dev, r->p->opts, &r->fs) == 0, "mount");
}

/* m_unref, but a file the kept fd still reads stays in the model */
static void unref(void *ctx, struct model *m, int ino)
{
    struct run *r = ctx;
    if (ino == r->oino && r->ofd >= 0 && m->in[ino].type == M_FILE) {
        m->in[ino].nlink--;
        return;
    }
    m_unref(m, ino);
}

/* ENOSPC is fine where the call adds data (in a fill profile); anything
 * else must match. */
#define FULL(rc) ((rc) == -ENOSPC && r->p->fill && ++r->enospc)

/* A namespace call's result rc against the model (which follows). */
static int ns(struct run *r, enum md_op op, const struct md_place *a, const struct md_place *b,
              const char *target, int rc)
{
    int v = md_step(&r->m, op, a, b, target, rc, r->p->fill, unref, r);
    r->enospc += v == MD_FULL;
    return v >= 0;
}

static void op_write(struct run *r, const struct md_place *a, int big)
{
    uint64_t off = big ? (rnd(r) % 2 ? 0 : rnd(r) % 100000)
                 : rnd(r) % 3 ? rnd(r) % 9000 : rnd(r) % 300000;
    uint64_t len = big ? 500000 + rnd(r) % 2500000 : rnd(r) % 3 ? rnd(r) % 5000 : rnd(r) % 40000;
    uint8_t *buf = malloc(len + 1);
    md_fill(buf, len, rnd(r), 0);
    int fd = r->api->open(r->fs, a->path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
    int ok = ns(r, MD_CREATE, a, NULL, NULL, fd >= 0 ? 0 : fd);
    int64_t n = 0;
    if (ok && fd >= 0) {
        n = r->api->pwrite(r->fs, fd, buf, len, off);
        if (n > 0)
            m_write(&r->m.in[m_find(&r->m, a->dir, a->name)], buf, (uint64_t)n, off);
    }
    free(buf);
    EXPECT(ok, "open");
    if (fd >= 0) {
        EXPECT(n == (int64_t)len || FULL(n) || (r->p->fill && n >= 0 && n < (int64_t)len),
               "pwrite");
        EXPECT(r->api->close(r->fs, fd) == 0, "close");
    }
}

/* truncate, punch or allocate through an fd */
static void op_resize(struct run *r, const char *path, int ino, enum m_type t, enum op op)
{
    int punch = op == OP_PUNCH;
    if (op == OP_ALLOCATE ? !r->api->allocate : punch ? !r->api->punch : !r->api->ftruncate)
        return;
    int fd = r->api->open(r->fs, path, O_WRONLY | O_NOFOLLOW, 0);
    if (t != M_FILE) {
        EXPECT(fd < 0, "open non-file for writing");
        return;
    }
    EXPECT(fd >= 0, "open for truncate");
    struct m_inode *in = &r->m.in[ino];
    if (op == OP_ALLOCATE) { /* zeros where there were holes, data kept */
        uint64_t off = rnd(r) % 20000, len = 1 + rnd(r) % 30000;
        unsigned flags = rnd(r) % 2 ? FS_ALLOC_KEEP_SIZE : 0;
        int rc = r->api->allocate(r->fs, fd, off, len, flags);
        EXPECT(rc == 0 || FULL(rc) || rc == -EOPNOTSUPP, "allocate");
        if (!rc && !flags && off + len > in->size)
            m_resize(in, off + len);
    } else if (!punch) {
        uint64_t size = rnd(r) % 20000;
        int rc = r->api->ftruncate(r->fs, fd, size);
        EXPECT(rc == 0 || (FULL(rc) && size > in->size), "ftruncate");
        if (!rc)
            m_resize(in, size);
    } else { /* near the end, or anywhere in the first 20000 bytes */
        uint64_t off = rnd(r) % 2 ? rnd(r) % 20000 : in->size ? rnd(r) % (in->size + 100) : 0;
        uint64_t len = rnd(r) % 30000;
        int rc = r->api->punch(r->fs, fd, off, len);
        EXPECT(rc == 0 || FULL(rc), "punch");
        if (!rc && off < in->size) {
            uint64_t e = off + len > in->size ? in->size : off + len;
            memset(in->data + off, 0, e - off);
        }
    }
    EXPECT(r->api->close(r->fs, fd) == 0, "close");
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
    int same = same_content(r, fd, &r->m.in[ino]);
    m_del(&r->m, dir, name);
    unref(r, &r->m, ino);
    EXPECT(same, "read after unlink");
    EXPECT(r->api->close(r->fs, fd) == 0, "close unlinked");
}

/* keep a file open for the steps to come (it may be written, truncated,
 * unlinked or renamed over meanwhile), or check and close the one kept */
static void op_keep(struct run *r, const char *path, int ino, enum m_type t)
{
    if (r->ofd >= 0) {
        close_kept(r);
    } else if (t == M_FILE) {
        r->ofd = r->api->open(r->fs, path, O_RDONLY, 0);
        r->oino = ino;
        EXPECT(r->ofd >= 0, "open kept fd");
    }
}

static int pick_op(struct run *r)
{
    int total = 0, op = 0;
    for (int i = 0; i < NOPS; i++)
        total += r->p->mix[i];
    int k = (int)(rnd(r) % (uint64_t)total);
    while (k >= r->p->mix[op])
        k -= r->p->mix[op++];
    return op;
}

static void step(struct run *r)
{
    struct md_place a, b;
    md_pick(&r->m, &r->rng, &a);
    int op = pick_op(r);
    r->ops[op]++;
    switch ((enum op)op) {
    case OP_WRITE:
    case OP_BIG_WRITE:
        op_write(r, &a, op == OP_BIG_WRITE);
        break;
    case OP_TRUNCATE:
    case OP_PUNCH:
    case OP_ALLOCATE:
        op_resize(r, a.path, a.ino, a.t, (enum op)op);
        break;
    case OP_UNLINK:
        EXPECT(ns(r, MD_UNLINK, &a, NULL, NULL, r->api->unlink(r->fs, a.path)), "unlink");
        break;
    case OP_MKDIR:
        EXPECT(ns(r, MD_MKDIR, &a, NULL, NULL, r->api->mkdir(r->fs, a.path, 0755)), "mkdir");
        break;
    case OP_RMDIR:
        EXPECT(ns(r, MD_RMDIR, &a, NULL, NULL, r->api->rmdir(r->fs, a.path)), "rmdir");
        break;
    case OP_RENAME:
        if (!r->api->rename)
            break;
        md_pick(&r->m, &r->rng, &b);
        EXPECT(ns(r, MD_RENAME, &a, &b, NULL, r->api->rename(r->fs, a.path, b.path)), "rename");
        break;
    case OP_LINK:
        if (!r->api->link)
            break;
        md_pick(&r->m, &r->rng, &b);
        EXPECT(ns(r, MD_LINK, &a, &b, NULL, r->api->link(r->fs, a.path, b.path)), "link");
        break;
    case OP_SYMLINK: {
        if (!r->api->symlink)
            break;
        char target[64];
        snprintf(target, sizeof target, "/target-%u", (unsigned)(rnd(r) % 1000));
        EXPECT(ns(r, MD_SYMLINK, &a, NULL, target, r->api->symlink(r->fs, target, a.path)),
               "symlink");
        break;
    }
    case OP_SYNC:
        EXPECT(r->api->sync(r->fs) == 0, "sync");
        break;
    case OP_REMOUNT:
        if (rnd(r) % 4 == 0)
            remount(r);
        break;
    case OP_UNLINK_OPEN:
        op_unlink_open(r, a.dir, a.name, a.path, a.ino, a.t);
        break;
    case OP_FSYNC: { /* fsync of a fresh write */
        int fd = r->api->open(r->fs, a.path, O_RDONLY | O_NOFOLLOW, 0);
        if (fd >= 0) {
            EXPECT(r->api->fsync(r->fs, fd) == 0, "fsync");
            r->api->close(r->fs, fd);
        }
        break;
    }
    case OP_KEEP:
        op_keep(r, a.path, a.ino, a.t);
        break;
    case NOPS:
        break;
    }
}

struct totals { int failures, ops[NOPS], enospc; double mib; uint64_t erases; };

static void run_seed(const struct fsapi *api, const struct profile *p, uint64_t seed,
                     int steps, struct totals *tot)
{
    struct run *r = calloc(1, sizeof *r);
    m_init(&r->m);
    r->api = api;
    r->p = p;
    r->seed = seed;
    r->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    r->ofd = -1;
    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.blocks = p->blocks, .pages = p->pages,
                                   .quiet = !p->bit_errors, .bad = p->bad, .seed = seed});
    /* an fs with a fixed layout may refuse a device whose bad blocks fall
     * where it needs good ones (blockfs's metadata; mkfs says -EIO): the
     * test then draws another device */
    int rc = -EIO;
    for (int tries = 0; rc == -EIO && tries < 8; tries++, c.seed += 1000003) {
        if (r->dev)
            nand_close(r->dev);
        r->dev = NULL;
        rc = !(r->dev = fx_create(&c)) ? -ENOMEM : api->mkfs(r->dev, p->opts);
    }
    if (rc || api->mount(r->dev, p->opts, &r->fs)) {
        fprintf(stderr, "%s (%s): mkfs/mount failed\n", api->name, p->opts ? p->opts : "");
        r->fail = 1;
        goto out;
    }
    for (r->step = 0; r->step < steps && !r->fail; r->step++) {
        step(r);
        if (!r->fail && (r->step % p->check_every == p->check_every - 1 ||
                         r->step == steps - 1)) {
            check_tree(r, 1, "");
            if (!r->fail)
                check_kept(r);
        }
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
        tot->ops[i] += r->ops[i];
    tot->enospc += r->enospc;
out:
    if (r->fs)
        api->unmount(r->fs);
    if (r->dev) {
        struct nand_stats st;
        nand_get_stats(r->dev, &st);
        tot->mib += (double)st.bytes_written / (1 << 20);
        tot->erases += st.erases;
        nand_close(r->dev);
    }
    tot->failures += r->fail;
    m_free(&r->m);
    free(r);
}

TEST(model_every_fs)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        if (api->features & FSAPI_F_ONE_FILE)
            continue; /* a block device: tests/fs/test_ftlfs.c */
        for (size_t k = 0; k < NPROFILES; k++) {
            const struct profile *p = &profiles[k];
            if (p->fs && strcmp(p->fs, api->name))
                continue;
            struct totals tot = {0};
            int seeds = test_long() ? p->long_seeds : p->seeds;
            for (int s = 0; s < seeds; s++)
                run_seed(api, p, (uint64_t)(p->first_seed + s), p->steps, &tot);
            printf("%-14s %-26s %-24s %2d seeds: %6.1f MiB written, %6" PRIu64
                   " erases, %3d ENOSPC accepted\n", api->name, p->desc,
                   p->opts ? p->opts : "(defaults)", seeds, tot.mib, tot.erases, tot.enospc);
            if (tot.failures)
                fprintf(stderr, "%s (%s, %s): %d of %d seeds failed\n", api->name, p->desc,
                        p->opts ? p->opts : "defaults", tot.failures, seeds);
            CHECK_EQ_INT(tot.failures, 0);
            for (int op = 0; op < NOPS; op++)
                if (p->mix[op] && !tot.ops[op]) {
                    fprintf(stderr, "%s (%s): never ran %s\n", api->name, p->desc,
                            op_names[op]);
                    CHECK(tot.ops[op] > 0);
                }
        }
    }
}

/* A profile for one fs names an fs in the table (not one renamed away),
 * and that fs takes its options. */
TEST(profiles_name_real_fses)
{
    for (size_t k = 0; k < NPROFILES; k++) {
        const struct profile *p = &profiles[k];
        const struct fsapi *api = p->fs ? fsapi_find(p->fs) : NULL;
        if (p->fs && !api)
            fprintf(stderr, "profile for unknown fs %s\n", p->fs);
        CHECK(!p->fs || api);
        char err[512] = "";
        if (api && p->opts)
            CHECK_EQ_INT(fsapi_check_options(api, p->opts, err, sizeof err), 0);
    }
}

/* Every kind answers every optional hook or declines it: a bad option
 * names itself, and what a kind lacks is -ENOTSUP in words. */
TEST(options_and_hooks_of_every_kind)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        char err[1024] = "";
        CHECK_EQ_INT(fsapi_check_options(api, "no_such_key=1", err, sizeof err), -EINVAL);
        CHECK(strstr(err, "no_such_key") != NULL);
        for (unsigned k = 0; api->option_help && api->option_help(k, NULL); k++) {
            const char *h = NULL;
            CHECK(api->option_help(k, &h) && h && *h);
        }
        CHECK_EQ_INT(fsapi_declined(api, "scrubbing", err, sizeof err), -ENOTSUP);
        char want[96];
        snprintf(want, sizeof want, "%s does not support scrubbing", api->name);
        CHECK(!strcmp(err, want));
        nand_dev *dev;
        struct nand_config c;
        fx_config(&c, &(struct fx_dev){.blocks = 256, .pages = 64, .quiet = 1, .seed = 7});
        REQUIRE((dev = fx_create(&c)) != NULL);
        struct fsapi_fs m = {api, NULL};
        REQUIRE(api->mkfs(dev, NULL) == 0 && api->mount(dev, NULL, &m.fs) == 0);
        struct fsapi_counter cs[FSAPI_COUNTERS_MAX];
        size_t n = fsapi_stats(&m, cs, FSAPI_COUNTERS_MAX);
        CHECK_EQ_INT(n > 0, api->stats != NULL);
        uint64_t v;
        for (size_t k = 0; k < n; k++)
            CHECK(fsapi_counter(&m, cs[k].name, &v) == 0 && v == cs[k].value);
        CHECK_EQ_INT(fsapi_counter(&m, "no_such_counter", &v), -ENOTSUP);
        CHECK_EQ_INT(fsapi_idle(&m, 1000), api->idle ? 0 : -ENOTSUP);
        CHECK_EQ_INT(fsapi_chmod(&m, "/", 0700) == 0, (api->features & FSAPI_F_ATTRS) != 0);
        struct fs_latency l;
        CHECK_EQ_INT(fsapi_latency(&m, FS_OP_META, &l) == 0, api->latency != NULL);
        CHECK(api->unmount(m.fs) == 0);
        nand_close(dev);
    }
}

/* Every kind keeps to its largest file size (xfstests generic/525): a
 * truncate to it works and reads as zeros at the end, one past it is
 * EFBIG and changes nothing, a write crossing it is short, one at it is
 * EFBIG. */
TEST(largest_file_of_every_kind)
{
    const uint64_t p_lfs = 4096 / 8, p_bf = 4096 / 4;
    static const struct {
        const char *kind, *mkfs;
        uint64_t max;
    } kinds[] = {
        /* 16 direct blocks and a 5-level tree of P pointers a block */
        {"logfs", NULL, (16 + p_lfs * p_lfs * p_lfs * p_lfs * p_lfs) * 4096},
        /* 12 direct blocks, single and double indirect */
        {"blockfs", "block_size=4096", (12 + p_bf + p_bf * p_bf) * 4096},
        {"jffs2-scan", NULL, 0xffffffffull}, /* 32-bit sizes and offsets */
        {"jffs2-summary", NULL, 0xffffffffull},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const struct fsapi *api = fsapi_find(kinds[i].kind);
        REQUIRE(api != NULL);
        uint64_t max = kinds[i].max;
        nand_dev *dev;
        struct nand_config c;
        fx_config(&c, &(struct fx_dev){.blocks = 256, .pages = 64, .quiet = 1, .seed = 9});
        REQUIRE((dev = fx_create(&c)) != NULL);
        struct fsapi_fs m = {api, NULL};
        REQUIRE(api->mkfs(dev, kinds[i].mkfs) == 0 && api->mount(dev, NULL, &m.fs) == 0);
        int fd = api->open(m.fs, "/max", O_RDWR | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        struct fs_stat st;
        CHECK_EQ_INT(api->ftruncate(m.fs, fd, max + 1), -EFBIG);
        CHECK_EQ_INT(fsapi_truncate(&m, "/max", max + 1), -EFBIG);
        CHECK(api->fstat(m.fs, fd, &st) == 0 && st.size == 0);
        CHECK_EQ_INT(api->ftruncate(m.fs, fd, max), 0);
        CHECK(api->fstat(m.fs, fd, &st) == 0 && st.size == max);
        char buf[8];
        memset(buf, 'z', sizeof buf);
        CHECK_EQ_INT(api->pread(m.fs, fd, buf, 8, max - 8), 8);
        CHECK(!memcmp(buf, "\0\0\0\0\0\0\0\0", 8));
        CHECK_EQ_INT(api->pwrite(m.fs, fd, "ab", 2, max - 1), 1);
        CHECK_EQ_INT(api->pwrite(m.fs, fd, "ab", 2, max), -EFBIG);
        CHECK(api->fstat(m.fs, fd, &st) == 0 && st.size == max);
        CHECK_EQ_INT(api->pread(m.fs, fd, buf, 8, max - 2), 2);
        CHECK(!memcmp(buf, "\0a", 2));
        CHECK(api->close(m.fs, fd) == 0 && api->unmount(m.fs) == 0);
        nand_close(dev);
    }
}

/* An open directory that a rename replaced still answers fstat through
 * its fd, with no links left, as on Linux (xfstests generic/035); the
 * name is the renamed directory's now, and nothing is left of the old
 * one after the close and a remount. */
TEST(open_directory_replaced_by_rename)
{
    for (size_t i = 0; fsapi_at(i); i++) {
        const struct fsapi *api = fsapi_at(i);
        if (api->features & FSAPI_F_ONE_FILE)
            continue; /* no directories */
        nand_dev *dev;
        struct nand_config c;
        fx_config(&c, &(struct fx_dev){.blocks = 256, .pages = 64, .quiet = 1, .seed = 5});
        REQUIRE((dev = fx_create(&c)) != NULL);
        void *fs;
        REQUIRE(api->mkfs(dev, NULL) == 0 && api->mount(dev, NULL, &fs) == 0);
        struct fs_stat s1, s2, st;
        REQUIRE(api->mkdir(fs, "/d1", 0755) == 0 && api->mkdir(fs, "/d2", 0755) == 0);
        REQUIRE(api->stat(fs, "/d1", &s1) == 0 && api->stat(fs, "/d2", &s2) == 0);
        int fd = api->open(fs, "/d2", O_RDONLY | O_DIRECTORY, 0);
        CHECK(fd >= 0);
        CHECK_EQ_INT(api->rename(fs, "/d1", "/d2"), 0);
        if (fd >= 0) {
            CHECK_EQ_INT(api->fstat(fs, fd, &st), 0);
            CHECK_EQ_INT(st.ino, s2.ino);
            CHECK_EQ_INT(st.nlink, 0);
            CHECK(S_ISDIR(st.mode));
            CHECK_EQ_INT(api->close(fs, fd), 0);
        }
        CHECK(api->stat(fs, "/d2", &st) == 0 && st.ino == s1.ino);
        CHECK_EQ_INT(api->stat(fs, "/d1", &st), -ENOENT);
        REQUIRE(api->unmount(fs) == 0 && api->mount(dev, NULL, &fs) == 0);
        CHECK(api->stat(fs, "/d2", &st) == 0 && st.ino == s1.ino && st.nlink == 2);
        CHECK_EQ_INT(api->stat(fs, "/d1", &st), -ENOENT);
        CHECK(api->unmount(fs) == 0);
        nand_close(dev);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(profiles_name_real_fses);
    RUN(options_and_hooks_of_every_kind);
    RUN(largest_file_of_every_kind);
    RUN(open_directory_replaced_by_rename);
    RUN(model_every_fs);
    return test_summary(argv[0]);
}
