/*
 * test_sim_compress.c -- the content-light page store (`compress`,
 * docs/devices.md): pages of long one-byte runs are held in a run-length
 * form, invisibly.  A differential test runs one random sequence of every
 * kind of operation on two devices, compress off and on, and requires
 * every result, every statistic but bytes_stored, and the whole device
 * state to agree; then the memory it saves, image round trips (compact
 * contents, version-2 images, damaged compact contents) and the YAML key.
 */
#include "crc32.h"
#include "le.h"
#include "nand.h"
#include "fixture.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

static void path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmp_dir, name);
}

static uint32_t rnd(uint64_t *s, uint32_t n)
{
    return n ? (uint32_t)(fx_next(s) % n) : 0;
}

/* ---- page contents --------------------------------------------------------
 * What a file system writes, from content-light to random. */

enum { C_JFFS, C_RANDOM, C_RUNS, C_CONST, C_SPARSE, C_POOL, C_KINDS };

#define POOL 8
static uint8_t pool[POOL][PB];

/* A JFFS2-style node: a header of unique bytes, then data that is one
 * byte value repeated; the spare erased or with a short tag. */
static void fill_jffs(uint8_t *buf, uint32_t n, uint64_t *s)
{
    uint32_t hdr = 40 + rnd(s, 60);
    uint8_t v = (uint8_t)rnd(s, 256);
    for (uint32_t i = 0; i < n; i++)
        buf[i] = i < hdr ? (uint8_t)fx_next(s) : v;
    if (n == PB) {
        memset(buf + PS, 0xff, OS);
        if (rnd(s, 2))
            for (uint32_t i = 0; i < 8; i++)
                buf[PS + 2 + i] = (uint8_t)fx_next(s);
    }
}

static void fill(uint8_t *buf, uint32_t n, uint64_t *s, int kind)
{
    switch (kind) {
    case C_JFFS:
        fill_jffs(buf, n, s);
        break;
    case C_RANDOM:
        for (uint32_t i = 0; i < n; i++)
            buf[i] = (uint8_t)fx_next(s);
        break;
    case C_RUNS: /* runs of 1..300 bytes, so of every alignment */
        for (uint32_t i = 0; i < n;) {
            uint32_t len = 1 + rnd(s, rnd(s, 2) ? 20 : 300);
            uint8_t v = (uint8_t)rnd(s, 4) == 0 ? 0xff : (uint8_t)fx_next(s);
            for (uint32_t j = 0; j < len && i < n; j++)
                buf[i++] = v;
        }
        break;
    case C_CONST:
        memset(buf, rnd(s, 3) == 0 ? 0 : rnd(s, 2) ? 0xff : (int)rnd(s, 256), n);
        break;
    case C_SPARSE: /* mostly erased, a few programmed bits */
        memset(buf, 0xff, n);
        for (uint32_t k = rnd(s, 12); k; k--)
            buf[rnd(s, n)] &= (uint8_t)fx_next(s);
        break;
    default: { /* a content seen before: dedup has something to share */
        const uint8_t *p = pool[rnd(s, POOL)];
        uint32_t off = n == PB ? 0 : rnd(s, PB - n + 1);
        memcpy(buf, p + off, n);
    }
    }
}

/* ---- the two devices --------------------------------------------------- */

struct twin {
    nand_dev *d[2];            /* [0] compress off, [1] on */
    nand_snapshot *snap[2][3];
    int nsnap;
    long ops, compares;
    int fails;                 /* differences found (stops the run) */
    int split;                 /* [1] programs from separate data and spare
                                * buffers, [0] from one (the device's
                                * no-copy path: sim/ops.c) */
};

/* What device k programs: dp and sp (dp + PS or NULL) as they are, or
 * for the split twin the same bytes from two buffers apart. */
static void prog_bufs(const struct twin *t, int k, const uint8_t *dp, const uint8_t *sp,
                      const uint8_t **dk, const uint8_t **sk)
{
    static uint8_t apart[PS + 64 + OS]; /* the spare 64 bytes past the data */
    *dk = dp, *sk = sp;
    if (!t->split || k != 1)
        return;
    if (dp)
        *dk = memcpy(apart, dp, PS);
    if (sp)
        *sk = memcpy(apart + PS + 64, sp, OS);
}

static void differ(struct twin *t, const char *what, long a, long b)
{
    if (t->fails++ < 10)
        fprintf(stderr, "  op %ld: %s differs: %ld vs %ld\n", t->ops, what, a, b);
}

#define SAME(t, what, a, b)                                                  \
    do {                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        if (a_ != b_)                                                        \
            differ(t, what, (long)a_, (long)b_);                             \
    } while (0)

/* Field by field: the struct has padding. */
static int same_info(const struct nand_block_info *a, const struct nand_block_info *b)
{
    return a->pe_cycles == b->pe_cycles && a->endurance == b->endurance &&
           a->reads_since_erase == b->reads_since_erase &&
           a->pages_programmed == b->pages_programmed &&
           a->factory_bad == b->factory_bad && a->grown_bad == b->grown_bad &&
           a->marked_bad == b->marked_bad && a->erase_torn == b->erase_torn;
}

static void same_stats(struct twin *t)
{
    struct nand_stats s[2];
    for (int k = 0; k < 2; k++)
        nand_get_stats(t->d[k], &s[k]);
    /* bytes_stored is the one that must differ (or not grow) */
    if (s[1].bytes_stored > s[0].bytes_stored)
        differ(t, "bytes_stored (compress holds more)", (long)s[1].bytes_stored,
               (long)s[0].bytes_stored);
    s[1].bytes_stored = s[0].bytes_stored;
    if (memcmp(&s[0], &s[1], sizeof s[0])) {
        const uint64_t *x = (const uint64_t *)&s[0], *y = (const uint64_t *)&s[1];
        for (size_t i = 0; i < sizeof s[0] / 8; i++)
            if (x[i] != y[i])
                differ(t, "a statistic (field index below)", (long)i, (long)i);
    }
    SAME(t, "clock", nand_now(t->d[0]), nand_now(t->d[1]));
    SAME(t, "power", nand_is_powered(t->d[0]), nand_is_powered(t->d[1]));
}

static void same_result(struct twin *t, int rc0, int rc1,
                        const struct nand_result *r0, const struct nand_result *r1)
{
    SAME(t, "return code", rc0, rc1);
    SAME(t, "result start", r0->start, r1->start);
    SAME(t, "result done", r0->done, r1->done);
    SAME(t, "corrected bits", r0->corrected_bits, r1->corrected_bits);
    SAME(t, "raw bit errors", r0->raw_bit_errors, r1->raw_bit_errors);
}

/* Every block's state and every page through a raw and an ECC read, in
 * lockstep (the reads count on both alike). */
static void same_device(struct twin *t)
{
    const struct nand_config *c = nand_get_config(t->d[0]);
    uint64_t nb = nand_blocks(c);
    uint8_t x[2][PB];
    t->compares++;
    for (nand_block_t b = 0; b < nb; b++) {
        struct nand_block_info i0, i1;
        nand_block_info(t->d[0], b, &i0);
        nand_block_info(t->d[1], b, &i1);
        if (!same_info(&i0, &i1))
            differ(t, "block info of block", b, b);
        for (nand_page_t p = 0; p < c->geo.pages_per_block; p++) {
            struct nand_result r[2];
            int rc[2];
            for (int k = 0; k < 2; k++) {
                memset(x[k], 0x5a, PB);
                rc[k] = nand_read_raw(t->d[k], b, p, x[k], x[k] + PS, &r[k]);
            }
            same_result(t, rc[0], rc[1], &r[0], &r[1]);
            if (memcmp(x[0], x[1], PB))
                differ(t, "raw page bytes of block", b, p);
            for (int k = 0; k < 2; k++)
                rc[k] = nand_read(t->d[k], b, p, x[k], x[k] + PS, &r[k]);
            same_result(t, rc[0], rc[1], &r[0], &r[1]);
            if (memcmp(x[0], x[1], PB))
                differ(t, "page bytes of block", b, p);
        }
    }
    same_stats(t);
}

static void free_snaps(struct twin *t)
{
    for (int i = 0; i < t->nsnap; i++)
        for (int k = 0; k < 2; k++)
            nand_snapshot_free(t->snap[k][i]);
    t->nsnap = 0;
}

/* Save both (with their snapshots alive: buffers a snapshot shares are
 * counted twice but stored once), close both, open both again. */
static void save_load(struct twin *t)
{
    char path[2][300];
    for (int k = 0; k < 2; k++) {
        path_in_tmp(path[k], sizeof path[k], k ? "twin1.img" : "twin0.img");
        int rc = nand_save(t->d[k], path[k]);
        SAME(t, "save", rc, 0);
    }
    free_snaps(t);
    for (int k = 0; k < 2; k++) {
        char err[400];
        nand_dev *e = NULL;
        int rc = nand_open(path[k], &e, err, sizeof err);
        if (rc) {
            fprintf(stderr, "  open: %s\n", err);
            differ(t, "open", rc, 0);
            continue;
        }
        SAME(t, "compress after open", nand_get_config(e)->compress,
             nand_get_config(t->d[k])->compress);
        struct nand_stats before, after;
        nand_get_stats(t->d[k], &before);
        nand_get_stats(e, &after);
        /* what is held is recomputed; the rest comes back as saved */
        before.pages_stored = after.pages_stored;
        before.bytes_stored = after.bytes_stored;
        SAME(t, "stats after open", memcmp(&before, &after, sizeof before), 0);
        nand_close(t->d[k]);
        t->d[k] = e;
        unlink(path[k]);
    }
}

/* The block a program should go to: mostly its next page. */
static void pick_page(struct twin *t, uint64_t *s, nand_block_t *b, nand_page_t *p)
{
    const struct nand_config *c = nand_get_config(t->d[0]);
    *b = (nand_block_t)rnd(s, rnd(s, 4) ? 24 : (uint32_t)nand_blocks(c));
    struct nand_block_info bi;
    nand_block_info(t->d[0], *b, &bi);
    uint32_t n = bi.pages_programmed;
    switch (rnd(s, 8)) {
    case 0: *p = rnd(s, c->geo.pages_per_block); break;   /* anywhere */
    case 1: case 2: *p = n ? n - 1 : 0; break;            /* the last again */
    default: *p = n < c->geo.pages_per_block ? n : n - 1; /* the next */
    }
}

static void one_op(struct twin *t, uint64_t *s)
{
    const struct nand_config *c = nand_get_config(t->d[0]);
    uint64_t nb = nand_blocks(c);
    static uint8_t data[PB], x[2][PB];
    struct nand_result r[2];
    int rc[2] = {0, 0};
    nand_block_t b;
    nand_page_t p;
    uint32_t op = rnd(s, 100);
    t->ops++;
    if (!nand_is_powered(t->d[0]) && op >= 4) { /* mostly power on again */
        for (int k = 0; k < 2; k++)
            nand_power_on(t->d[k]);
        return;
    }
    if (op < 30) { /* a whole page, or its data or spare alone */
        pick_page(t, s, &b, &p);
        fill(data, PB, s, (int)rnd(s, C_KINDS));
        if (rnd(s, 5) == 0)
            memcpy(pool[rnd(s, POOL)], data, PB);
        uint32_t which = rnd(s, 8);
        const uint8_t *dp = which == 0 ? NULL : data;
        const uint8_t *op_ = which == 1 ? NULL : data + PS;
        for (int k = 0; k < 2; k++) {
            const uint8_t *dk, *sk;
            prog_bufs(t, k, dp, op_, &dk, &sk);
            rc[k] = nand_program(t->d[k], b, p, dk, sk, &r[k]);
        }
        same_result(t, rc[0], rc[1], &r[0], &r[1]);
    } else if (op < 42) { /* a partial program of a column range */
        pick_page(t, s, &b, &p);
        uint32_t col = rnd(s, 3) == 0 ? 0 : rnd(s, PB);
        uint32_t len = 1 + rnd(s, PB - col);
        fill(data, len, s, (int)rnd(s, C_KINDS));
        for (int k = 0; k < 2; k++)
            rc[k] = nand_program_col(t->d[k], b, p, col, data, len, &r[k]);
        same_result(t, rc[0], rc[1], &r[0], &r[1]);
    } else if (op < 62) { /* reads: whole, raw, a column range */
        b = (nand_block_t)rnd(s, rnd(s, 4) ? 24 : (uint32_t)nb);
        p = rnd(s, c->geo.pages_per_block);
        uint32_t kind = rnd(s, 3), col = rnd(s, PB), len = rnd(s, PB - col + 1);
        int spare = (int)rnd(s, 2);
        for (int k = 0; k < 2; k++) {
            memset(x[k], 0xa5, PB);
            if (kind == 0)
                rc[k] = nand_read(t->d[k], b, p, x[k], x[k] + PS, &r[k]);
            else if (kind == 1)
                rc[k] = nand_read_raw(t->d[k], b, p, x[k], spare ? x[k] + PS : NULL, &r[k]);
            else
                rc[k] = nand_read_col(t->d[k], b, p, col, x[k], len, &r[k]);
        }
        same_result(t, rc[0], rc[1], &r[0], &r[1]);
        if (memcmp(x[0], x[1], PB))
            differ(t, "read bytes of block", b, p);
    } else if (op < 70) {
        b = (nand_block_t)rnd(s, rnd(s, 4) ? 24 : (uint32_t)nb);
        for (int k = 0; k < 2; k++)
            rc[k] = nand_erase(t->d[k], b, &r[k]);
        same_result(t, rc[0], rc[1], &r[0], &r[1]);
    } else if (op < 78) { /* a power cut in the middle of a program or erase */
        double frac = rnd(s, 4) == 0 ? -1.0 : (double)rnd(s, 1001) / 1000.0;
        int erase = rnd(s, 3) == 0;
        pick_page(t, s, &b, &p);
        fill(data, PB, s, (int)rnd(s, C_KINDS));
        for (int k = 0; k < 2; k++) {
            const uint8_t *dk, *sk;
            prog_bufs(t, k, data, data + PS, &dk, &sk);
            nand_cut_after_ops(t->d[k], 0, frac);
            rc[k] = erase ? nand_erase(t->d[k], b, &r[k])
                          : nand_program(t->d[k], b, p, dk, sk, &r[k]);
        }
        same_result(t, rc[0], rc[1], &r[0], &r[1]);
    } else if (op < 81) { /* a cut at a time, somewhere in the next ops */
        nand_time_t at = nand_now(t->d[0]) + rnd(s, 3000000);
        for (int k = 0; k < 2; k++)
            nand_cut_at_time(t->d[k], at);
    } else if (op < 83) { /* queued operations on several dies */
        struct nand_op q[2][4];
        uint32_t n = 1 + rnd(s, 4);
        for (uint32_t i = 0; i < n; i++) {
            pick_page(t, s, &b, &p);
            uint32_t kind = rnd(s, 3);
            fill(data, PB, s, (int)rnd(s, C_KINDS));
            for (int k = 0; k < 2; k++) {
                memset(x[k], 0, PB);
                q[k][i] = (struct nand_op){.kind = kind == 0 ? NAND_OP_PROGRAM
                                                  : kind == 1 ? NAND_OP_READ
                                                              : NAND_OP_ERASE,
                                           .block = b, .page = p,
                                           .data = kind == 0 ? data : x[k]};
                rc[k] = nand_submit(t->d[k], &q[k][i]);
            }
            same_result(t, rc[0], rc[1], &q[0][i].res, &q[1][i].res);
            if (memcmp(x[0], x[1], PB))
                differ(t, "queued read bytes of block", b, p);
        }
        SAME(t, "wait", nand_wait(t->d[0]), nand_wait(t->d[1]));
    } else if (op < 85) {
        b = (nand_block_t)rnd(s, (uint32_t)nb);
        int mark = (int)rnd(s, 2);
        for (int k = 0; k < 2; k++)
            rc[k] = mark ? nand_mark_bad(t->d[k], b) : nand_is_bad(t->d[k], b);
        SAME(t, "mark/is bad", rc[0], rc[1]);
    } else if (op < 88) { /* retention */
        nand_time_t dt = rnd(s, 2) ? rnd(s, 1000000) : (nand_time_t)rnd(s, 5000) * 3600000000000ull;
        for (int k = 0; k < 2; k++)
            nand_advance(t->d[k], dt);
    } else if (op < 90) { /* wear: near or past the endurance */
        b = (nand_block_t)rnd(s, 24);
        uint64_t pe = rnd(s, 2) ? rnd(s, 50) : 40 + rnd(s, 40);
        for (int k = 0; k < 2; k++)
            rc[k] = nand_set_wear(t->d[k], b, pe);
        SAME(t, "set wear", rc[0], rc[1]);
    } else if (op < 94) {
        if (t->nsnap < 3) {
            for (int k = 0; k < 2; k++)
                rc[k] = nand_snapshot_take(t->d[k], &t->snap[k][t->nsnap]);
            SAME(t, "snapshot", rc[0], rc[1]);
            t->nsnap++;
        } else {
            int i = (int)rnd(s, 3);
            for (int k = 0; k < 2; k++) {
                nand_snapshot_free(t->snap[k][i]);
                t->snap[k][i] = t->snap[k][t->nsnap - 1];
            }
            t->nsnap--;
        }
    } else if (op < 97) {
        if (t->nsnap) {
            int i = (int)rnd(s, (uint32_t)t->nsnap);
            for (int k = 0; k < 2; k++)
                rc[k] = nand_snapshot_restore(t->d[k], t->snap[k][i]);
            SAME(t, "restore", rc[0], rc[1]);
        }
    } else if (op < 99) {
        if (!nand_is_powered(t->d[0]))
            for (int k = 0; k < 2; k++)
                nand_power_on(t->d[k]);
        save_load(t);
    } else {
        for (int k = 0; k < 2; k++)
            nand_power_cut(t->d[k]);
    }
    same_stats(t);
}

static void twin_config(struct nand_config *c, int mlc, int dedup, uint64_t seed)
{
    fx_small_config(c);
    c->nop = mlc ? 1 : 4;
    if (mlc) {
        c->cell = NAND_MLC;
        c->pair_distance = 2;
        c->timing.t_prog_upper_ns = 900000;
    }
    c->factory_bad_fraction = 0.05;
    c->endurance = 50;
    c->endurance_sigma = 0.2;
    /* noise, retention and read disturb that ECC mostly corrects */
    c->rber.eps = 2e-4;
    c->rber.beta = 1e-6;
    c->rber.m = 0.5;
    c->rber.n = 0.5;
    c->rber.gamma = 1e-9;
    c->rber.p = 0.5;
    c->rber.q = 1.5;
    c->dedup = dedup;
    c->seed = seed;
}

/* Fill the pool, make the twins (compress as given for each), run ops
 * random operations on both in lockstep, power both on and compare them
 * whole: 0, or -1 when a device could not be made. */
static int lockstep(struct twin *t, int mlc, int dedup, uint64_t seed, const int compress[2],
                    long ops)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < POOL; i++)
        fill(pool[i], PB, &s, i % 2 ? C_JFFS : C_RUNS);
    struct nand_config c;
    for (int k = 0; k < 2; k++) {
        twin_config(&c, mlc, dedup, seed);
        c.compress = compress[k];
        t->d[k] = fx_create(&c);
    }
    if (!t->d[0] || !t->d[1])
        return -1;
    for (long i = 0; i < ops && !t->fails; i++) {
        one_op(t, &s);
        if (i % 500 == 499)
            same_device(t);
    }
    for (int k = 0; k < 2; k++) {
        nand_cut_disarm(t->d[k]);
        nand_power_on(t->d[k]);
    }
    same_device(t);
    return 0;
}

TEST(differential_compress_on_and_off)
{
    int rounds = test_long() ? 6 : 1;
    long ops = test_long() ? 20000 : 2500;
    uint64_t total_ops = 0, saved_min = ~0ull;
    for (int round = 0; round < rounds; round++) {
        for (int mlc = 0; mlc <= 1; mlc++) {
            for (int dedup = 0; dedup <= 1; dedup++) {
                uint64_t seed = 1000 + (uint64_t)round * 10 + (uint64_t)mlc * 2 + (uint64_t)dedup;
                struct twin t = {0};
                REQUIRE(lockstep(&t, mlc, dedup, seed, (const int[2]){0, 1}, ops) == 0);
                struct nand_stats s0, s1;
                nand_get_stats(t.d[0], &s0);
                nand_get_stats(t.d[1], &s1);
                if (t.fails)
                    fprintf(stderr, "  mlc %d dedup %d seed %llu: %d differences\n",
                            mlc, dedup, (unsigned long long)seed, t.fails);
                CHECK_EQ_INT(t.fails, 0);
                /* the sequence held enough content-light pages to matter */
                CHECK(s0.pages_stored > 100);
                CHECK(s1.bytes_stored * 2 < s0.bytes_stored);
                uint64_t saved = s0.bytes_stored / (s1.bytes_stored ? s1.bytes_stored : 1);
                saved_min = saved < saved_min ? saved : saved_min;
                CHECK(s0.torn_programs > 0 && s0.torn_erases > 0 && s0.erases > 0);
                CHECK(s0.uncorrectable_reads > 0 && s0.bits_corrected > 0);
                CHECK(!mlc || s0.paired_corruptions > 0);
                CHECK(s0.violations_not_erased + s0.violations_nop > 0);
                CHECK(mlc || s0.violations_nop > 0);
                total_ops += (uint64_t)t.ops;
                free_snaps(&t);
                nand_close(t.d[0]);
                nand_close(t.d[1]);
            }
        }
    }
    fprintf(stderr, "  %llu random operations in lockstep; compress held at least "
            "%llux fewer bytes\n", (unsigned long long)total_ops,
            (unsigned long long)saved_min);
}

/* The same lockstep with compress on both twins (and off on both), one
 * programming whole pages from one buffer (stored without a copy first),
 * the other from two: every result, statistic and byte alike, through
 * cuts, wear-out failures, snapshots and images. */
TEST(differential_one_buffer_and_two)
{
    long ops = test_long() ? 20000 : 2500;
    for (int compress = 0; compress <= 1; compress++)
        for (int dedup = 0; dedup <= 1; dedup++) {
            uint64_t seed = 2000 + (uint64_t)compress * 2 + (uint64_t)dedup;
            struct twin t = {.split = 1};
            REQUIRE(lockstep(&t, 1, dedup, seed, (const int[2]){compress, compress}, ops) == 0);
            struct nand_stats s0, s1;
            nand_get_stats(t.d[0], &s0);
            nand_get_stats(t.d[1], &s1);
            CHECK_EQ_INT(t.fails, 0);
            CHECK_EQ_INT(s0.bytes_stored, s1.bytes_stored);
            CHECK(s0.programs > 100 && s0.program_fails > 0 && s0.torn_programs > 0);
            free_snaps(&t);
            nand_close(t.d[0]);
            nand_close(t.d[1]);
        }
}

/* ---- patterns at the edges of the run-length form ----------------------- */

TEST(every_pattern_reads_back)
{
    struct nand_config c;
    fx_small_config(&c);
    c.compress = 1;
    c.nop = 4;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint64_t s = 77;
    uint8_t data[PB], buf[PB];
    int compact = 0, full = 0, bad = 0;
    for (uint32_t i = 0; i < 600; i++) {
        nand_block_t b = i / 16;
        nand_page_t p = i % 16;
        if (i % 16 == 0)
            REQUIRE(nand_erase(d, b, NULL) == NAND_OK);
        switch (i % 6) {
        case 0: /* runs of exactly n at every offset mod 8 */
            memset(data, 0x11, PB);
            for (uint32_t o = 0; o + 40 < PB; o += 40)
                memset(data + o + (i / 6) % 8, (int)(o & 0xff), 7 + (i / 48) % 12);
            break;
        case 1: { /* runs across the data/spare edge and through the end */
            fill(data, PB, &s, C_RANDOM);
            uint32_t z = 1 + rnd(&s, 40);
            memset(data + PS - z, 0, z + rnd(&s, OS / 2));
            uint32_t e = 9 + rnd(&s, 20);
            memset(data + PB - e, 0x3c, e);
            break;
        }
        case 2: /* a form just above or below half the page */
            memset(data, 0, PB);
            for (uint32_t k = 0, lit = 1000 + rnd(&s, 120); k < lit; k++)
                data[k] = (uint8_t)fx_next(&s);
            break;
        case 3:
            fill(data, PB, &s, C_RUNS);
            break;
        case 4:
            fill(data, PB, &s, C_JFFS);
            break;
        default: /* short pages of every length as partial programs */
            fill(data, PB, &s, C_RUNS);
            break;
        }
        struct nand_stats st0, st1;
        nand_get_stats(d, &st0);
        if (i % 6 == 5) {
            uint32_t len = 1 + rnd(&s, PB);
            uint32_t col = rnd(&s, PB - len + 1);
            REQUIRE(nand_program_col(d, b, p, col, data, len, NULL) == NAND_OK);
            uint8_t want[PB];
            memset(want, 0xff, PB);
            memcpy(want + col, data, len);
            memcpy(data, want, PB);
        } else {
            REQUIRE(nand_program(d, b, p, data, data + PS, NULL) == NAND_OK);
        }
        nand_get_stats(d, &st1);
        uint64_t held = st1.bytes_stored - st0.bytes_stored;
        compact += held < PB / 2;
        full += held == PB;
        bad += held != PB && held >= PB / 2;
        memset(buf, 0, PB);
        CHECK_EQ_INT(nand_read(d, b, p, buf, buf + PS, NULL), NAND_OK);
        if (memcmp(buf, data, PB)) {
            bad++;
            fprintf(stderr, "  page %u (pattern %u) reads back wrong\n", i, i % 6);
        }
        /* column reads of random ranges, and every length at the start */
        for (int k = 0; k < 8; k++) {
            uint32_t col = rnd(&s, PB), len = rnd(&s, PB - col + 1);
            memset(buf, 0, PB);
            CHECK_EQ_INT(nand_read_col(d, b, p, col, buf, len, NULL), NAND_OK);
            bad += memcmp(buf, data + col, len) != 0;
        }
    }
    /* a second program of a compact page ANDs into it */
    fill(data, PB, &s, C_JFFS);
    REQUIRE(nand_erase(d, 50, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 50, 0, data, data + PS, NULL) == NAND_OK);
    uint8_t more[PB];
    fill(more, PB, &s, C_RUNS);
    REQUIRE(nand_program(d, 50, 0, more, more + PS, NULL) == NAND_OK);
    for (uint32_t i = 0; i < PB; i++)
        data[i] &= more[i];
    CHECK_EQ_INT(nand_read(d, 50, 0, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));
    CHECK_EQ_INT(bad, 0);
    CHECK(compact > 100 && full > 50);
    fprintf(stderr, "  %d pages compact, %d in full\n", compact, full);
    nand_close(d);
}

/* ---- memory -------------------------------------------------------------- */

TEST(bytes_stored_drops_for_run_heavy_pages)
{
    struct nand_stats st[2][3];
    for (int comp = 0; comp <= 1; comp++) {
        struct nand_config c;
        fx_small_config(&c);
        c.compress = comp;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        uint64_t s = 5;
        uint8_t data[PB];
        /* 1000 JFFS2-style pages, all different */
        for (uint32_t i = 0; i < 1000; i++) {
            fill(data, PB, &s, C_JFFS);
            REQUIRE(nand_program(d, i / 16, i % 16, data, data + PS, NULL) == NAND_OK);
        }
        nand_get_stats(d, &st[comp][0]);
        /* 100 random pages: no form is small enough, they are kept whole */
        for (uint32_t i = 1008; i < 1108; i++) {
            fill(data, PB, &s, C_RANDOM);
            REQUIRE(nand_program(d, i / 16, i % 16, data, data + PS, NULL) == NAND_OK);
        }
        nand_get_stats(d, &st[comp][1]);
        /* erasing gives the memory back */
        for (nand_block_t b = 0; b < 128; b++)
            nand_erase(d, b, NULL);
        nand_get_stats(d, &st[comp][2]);
        nand_close(d);
    }
    CHECK_EQ_INT(st[0][0].pages_stored, 1000);
    CHECK_EQ_INT(st[1][0].pages_stored, 1000);
    CHECK_EQ_INT(st[0][0].bytes_stored, 1000ull * PB);
    uint64_t held = st[1][0].bytes_stored;
    fprintf(stderr, "  1000 JFFS2-style pages of %u bytes: %llu bytes held compressed, "
            "%.1f per page, %.0fx less\n", PB, (unsigned long long)held,
            (double)held / 1000, (double)(1000ull * PB) / (double)held);
    CHECK(held * 15 < 1000ull * PB);
    CHECK_EQ_INT(st[1][1].bytes_stored - st[1][0].bytes_stored, 100ull * PB);
    CHECK_EQ_INT(st[1][1].pages_stored, 1100);
    CHECK_EQ_INT(st[0][2].pages_stored, 0);
    CHECK_EQ_INT(st[1][2].pages_stored, 0);
    CHECK_EQ_INT(st[1][2].bytes_stored, 0);
}

TEST(compress_and_dedup_share_compact_pages)
{
    struct nand_config c;
    fx_small_config(&c);
    c.compress = 1;
    c.dedup = 1;
    c.nop = 2;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint64_t s = 9;
    uint8_t a[PB], b[PB], buf[PB];
    fill(a, PB, &s, C_JFFS);
    fill(b, PB, &s, C_RANDOM);
    for (nand_page_t p = 0; p < 16; p++) {
        REQUIRE(nand_program(d, 1, p, a, a + PS, NULL) == NAND_OK);
        REQUIRE(nand_program(d, 2, p, b, b + PS, NULL) == NAND_OK);
    }
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_stored, 2);
    CHECK(st.bytes_stored > PB && st.bytes_stored < PB + 200);
    /* a partial program of one sharer leaves the others */
    uint8_t z[8] = {0};
    REQUIRE(nand_program_col(d, 1, 15, 100, z, 8, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 1, 3, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, a, PB));
    CHECK_EQ_INT(nand_read(d, 1, 15, buf, buf + PS, NULL), NAND_OK);
    CHECK(fx_all(buf + 100, 8, 0) && !memcmp(buf, a, 100) &&
          !memcmp(buf + 108, a + 108, PB - 108));
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_stored, 3);
    /* erasing every sharer frees the compact page */
    REQUIRE(nand_erase(d, 1, NULL) == NAND_OK);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_stored, 1);
    CHECK_EQ_INT(st.bytes_stored, PB);
    nand_close(d);
}

/* ---- images -------------------------------------------------------------- */

/* The image's trailer made to match its bytes again. */
static void fix_crc(uint8_t *img, size_t n)
{
    le64_put(img + n - 8, flashlab_crc32(0, img, n - 8));
}

/* Offset of the content count (docs/simulator.md): magic, version, flags,
 * name, 36 configuration fields, clock, statistics, block count, record
 * count and 6 u64 per record. */
static size_t contents_at(const uint8_t *img)
{
    size_t off = 16 + 8 + 8 + 64 + 36 * 8 + 8 + sizeof(struct nand_stats) + 8;
    uint64_t nrec = le64_get(img + off);
    return off + 8 + nrec * 48;
}

/* A device with every kind of page: content-light, random, partial,
 * torn, erase-torn, marked and factory bad, worn. */
static nand_dev *mixed_device(int compress)
{
    struct nand_config c;
    fx_small_config(&c);
    c.compress = compress;
    c.nop = 4;
    c.factory_bad_fraction = 0.05;
    c.rber.eps = 1e-5;
    c.seed = 4242;
    nand_dev *d = fx_create(&c);
    if (!d)
        return NULL;
    uint64_t s = 31;
    uint8_t data[PB];
    for (nand_block_t b = 1; b < 40; b++) {
        if (nand_is_bad(d, b) == 1)
            continue;
        for (nand_page_t p = 0; p < 16; p++) {
            fill(data, PB, &s, p == 5 ? C_RANDOM : p == 6 ? C_RUNS : C_JFFS);
            nand_program(d, b, p, data, data + PS, NULL);
        }
    }
    fill(data, PB, &s, C_JFFS);
    nand_program_col(d, 41, 0, 0, data, 300, NULL);
    nand_program_col(d, 41, 0, 300, data + 300, 1000, NULL);
    nand_cut_after_ops(d, 0, 0.3);
    nand_program(d, 42, 0, data, data + PS, NULL);
    nand_power_on(d);
    nand_program(d, 43, 0, data, data + PS, NULL);
    nand_cut_after_ops(d, 0, 0.6);
    nand_erase(d, 43, NULL);
    nand_power_on(d);
    nand_mark_bad(d, 44);
    nand_set_wear(d, 45, 99999);
    nand_advance(d, 12345);
    return d;
}

/* Page by page and block by block, two devices agree (reading both). */
static int same_devices(nand_dev *a, nand_dev *b)
{
    int diff = 0;
    uint64_t nb = nand_blocks(nand_get_config(a));
    uint8_t x[PB], y[PB];
    diff += nand_now(a) != nand_now(b);
    for (nand_block_t blk = 0; blk < nb; blk++) {
        struct nand_block_info ia, ib;
        nand_block_info(a, blk, &ia);
        nand_block_info(b, blk, &ib);
        diff += !same_info(&ia, &ib);
        for (nand_page_t p = 0; p < 16; p++) {
            struct nand_result ra, rb;
            memset(x, 0, PB);
            memset(y, 0, PB);
            int rca = nand_read_raw(a, blk, p, x, x + PS, &ra);
            int rcb = nand_read_raw(b, blk, p, y, y + PS, &rb);
            diff += rca != rcb || memcmp(x, y, PB) || ra.raw_bit_errors != rb.raw_bit_errors;
            rca = nand_read(a, blk, p, x, x + PS, &ra);
            rcb = nand_read(b, blk, p, y, y + PS, &rb);
            diff += rca != rcb || memcmp(x, y, PB) || ra.corrected_bits != rb.corrected_bits;
        }
    }
    return diff;
}

/* The dedup table under churn: pages of shared and unique contents
 * programmed and erased in a random order, so that the table grows,
 * wraps and closes the gaps its removals leave; every page must read back
 * and the buffers held must be the distinct contents programmed. */
TEST(dedup_table_churn)
{
    for (int compress = 0; compress <= 1; compress++) {
        struct nand_config c;
        fx_small_config(&c);
        c.dedup = 1;
        c.compress = compress;
        c.rber.eps = 0;
        c.rber.alpha = c.rber.beta = c.rber.gamma = 0;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        uint32_t nb = (uint32_t)nand_blocks(&c), ppb = c.geo.pages_per_block;
        /* content id of every page (0: erased), and the next page per block */
        uint32_t *id = calloc((size_t)nb * ppb, sizeof *id), *next = calloc(nb, sizeof *next);
        REQUIRE(id && next);
        uint64_t s = 77 + (uint64_t)compress;
        uint32_t unique = 1000;
        uint8_t buf[PB], want[PB];
        for (int i = 0; i < 20000; i++) {
            uint32_t b = 1 + rnd(&s, nb - 1);
            if (next[b] == ppb || rnd(&s, 64) == 0) {
                REQUIRE(nand_erase(d, b, NULL) == NAND_OK);
                memset(id + (size_t)b * ppb, 0, ppb * sizeof *id);
                next[b] = 0;
                continue;
            }
            uint32_t cid = rnd(&s, 2) ? 1 + rnd(&s, 40) : ++unique;
            uint64_t cs = cid;
            fill(want, PB, &cs, compress ? C_JFFS : C_RANDOM);
            REQUIRE(nand_program(d, b, next[b], want, want + PS, NULL) == NAND_OK);
            id[(size_t)b * ppb + next[b]++] = cid;
        }
        uint64_t distinct = 0;
        uint8_t *seen = calloc(unique + 1, 1);
        REQUIRE(seen);
        for (uint32_t b = 1; b < nb; b++) {
            for (uint32_t p = 0; p < next[b]; p++) {
                uint32_t cid = id[(size_t)b * ppb + p];
                uint64_t cs = cid;
                fill(want, PB, &cs, compress ? C_JFFS : C_RANDOM);
                CHECK_EQ_INT(nand_read(d, b, p, buf, buf + PS, NULL), NAND_OK);
                CHECK(!memcmp(buf, want, PB));
                distinct += !seen[cid];
                seen[cid] = 1;
            }
        }
        struct nand_stats st;
        nand_get_stats(d, &st);
        CHECK_EQ_INT(st.pages_stored, distinct);
        free(seen);
        free(id);
        free(next);
        nand_close(d);
    }
}

TEST(image_round_trip_with_compact_pages)
{
    nand_dev *d[2];
    char path[2][300], err[400];
    long long size[2];
    struct nand_stats st[2];
    for (int k = 0; k < 2; k++) {
        d[k] = mixed_device(k);
        REQUIRE(d[k]);
        path_in_tmp(path[k], sizeof path[k], k ? "comp.img" : "plain.img");
        REQUIRE(nand_save(d[k], path[k]) == NAND_OK);
        size[k] = fx_file_size(path[k]);
        nand_get_stats(d[k], &st[k]);
    }
    fprintf(stderr, "  image: %lld bytes in full, %lld with compact pages; held %llu "
            "and %llu bytes\n", size[0], size[1], (unsigned long long)st[0].bytes_stored,
            (unsigned long long)st[1].bytes_stored);
    /* the image stores compact pages as they are held */
    CHECK(size[1] * 4 < size[0]);
    CHECK(st[1].bytes_stored * 4 < st[0].bytes_stored);
    nand_dev *e[2];
    for (int k = 0; k < 2; k++) {
        REQUIRE(nand_open(path[k], &e[k], err, sizeof err) == NAND_OK);
        CHECK_EQ_INT(nand_get_config(e[k])->compress, k);
        struct nand_stats se;
        nand_get_stats(e[k], &se);
        CHECK(!memcmp(&se, &st[k], sizeof se)); /* bytes_stored included */
    }
    /* (each comparison reads both devices once: the pairs stay in step) */
    CHECK_EQ_INT(same_devices(d[0], e[0]), 0);
    CHECK_EQ_INT(same_devices(d[1], e[1]), 0);
    CHECK_EQ_INT(same_devices(e[0], e[1]), 0);
    /* a saved reopened device saves the same bytes again */
    char p2[300];
    path_in_tmp(p2, sizeof p2, "comp2.img");
    REQUIRE(nand_save(e[1], p2) == NAND_OK);
    nand_dev *f = NULL;
    REQUIRE(nand_open(p2, &f, err, sizeof err) == NAND_OK);
    CHECK_EQ_INT(same_devices(e[1], f), 0);
    /* and it keeps compacting new programs */
    uint64_t s = 3;
    uint8_t data[PB];
    fill(data, PB, &s, C_JFFS);
    struct nand_stats a, b;
    nand_get_stats(f, &a);
    REQUIRE(nand_program(f, 60, 0, data, data + PS, NULL) == NAND_OK);
    nand_get_stats(f, &b);
    CHECK(b.bytes_stored - a.bytes_stored < 200);
    nand_close(f);
    for (int k = 0; k < 2; k++) {
        nand_close(e[k]);
        nand_close(d[k]);
        unlink(path[k]);
    }
    unlink(p2);
}

/* Version-3 image -> version 2 (no content lengths), which nand_open still
 * reads; NULL if a content is compact (version 2 cannot hold it). */
static uint8_t *to_v2(const uint8_t *img, size_t n, size_t *out_n, uint32_t pb)
{
    uint8_t *o = malloc(n);
    if (!o)
        return NULL;
    size_t at = contents_at(img);
    uint64_t count = le64_get(img + at);
    memcpy(o, img, at + 8);
    le64_put(o + 16, 2);
    size_t r = at + 8, w = at + 8;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t len = le64_get(img + r);
        if (len != pb) {
            free(o);
            return NULL;
        }
        memcpy(o + w, img + r + 8, pb);
        r += 8 + pb;
        w += pb;
    }
    memcpy(o + w, img + r, n - r);
    w += n - r;
    fix_crc(o, w);
    *out_n = w;
    return o;
}

TEST(version_2_images_still_open)
{
    nand_dev *d = mixed_device(0);
    REQUIRE(d);
    char path[300], v2[300], err[400];
    path_in_tmp(path, sizeof path, "v3.img");
    path_in_tmp(v2, sizeof v2, "v2.img");
    REQUIRE(nand_save(d, path) == NAND_OK);
    size_t n, n2;
    uint8_t *img = fx_slurp(path, &n);
    REQUIRE(img);
    CHECK_EQ_INT(le64_get(img + 16), 3);
    uint8_t *old = to_v2(img, n, &n2, PB);
    REQUIRE(old);
    REQUIRE(fx_spit(v2, old, n2) == 0);
    nand_dev *e = NULL;
    REQUIRE(nand_open(v2, &e, err, sizeof err) == NAND_OK);
    CHECK_EQ_INT(nand_get_config(e)->compress, 0);
    CHECK_EQ_INT(same_devices(d, e), 0);
    nand_close(e);
    /* version 2 flags were never read: whatever they hold, compress is off */
    le64_put(old + 24, 1);
    fix_crc(old, n2);
    REQUIRE(fx_spit(v2, old, n2) == 0);
    REQUIRE(nand_open(v2, &e, err, sizeof err) == NAND_OK);
    CHECK_EQ_INT(nand_get_config(e)->compress, 0);
    nand_close(e);
    free(old);
    free(img);
    /* the version-2 images committed with the fuzz corpus (run from the
     * repository root, as make test does) */
    glob_t g;
    int opened = 0;
    if (!glob("fuzz/corpus/image/*.img", 0, NULL, &g)) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            size_t m;
            uint8_t *c = fx_slurp(g.gl_pathv[i], &m);
            if (!c || m < 24 || le64_get(c + 16) != 2) {
                free(c);
                continue;
            }
            free(c);
            if (nand_open(g.gl_pathv[i], &e, err, sizeof err) == NAND_OK) {
                opened++;
                nand_close(e);
            } else {
                fprintf(stderr, "  %s: %s\n", g.gl_pathv[i], err);
                CHECK(0);
            }
        }
        globfree(&g);
    }
    fprintf(stderr, "  %d committed version-2 images open\n", opened);
    nand_close(d);
    unlink(path);
    unlink(v2);
}

/* Open must fail with NAND_E_CORRUPT and a message holding `want`. */
static int refused(const char *path, const char *want)
{
    char err[400] = "";
    nand_dev *e = (nand_dev *)(uintptr_t)1;
    int rc = nand_open(path, &e, err, sizeof err);
    if (rc == NAND_OK)
        nand_close(e);
    if (rc != NAND_E_CORRUPT || !strstr(err, want) ||
        e != (nand_dev *)(uintptr_t)1) {
        fprintf(stderr, "  expected '%s', got rc %d: %s\n", want, rc, err);
        return 0;
    }
    return 1;
}

TEST(damaged_compact_contents_are_refused)
{
    nand_dev *d = mixed_device(1);
    REQUIRE(d);
    char path[300], bad[300];
    path_in_tmp(path, sizeof path, "c.img");
    path_in_tmp(bad, sizeof bad, "cbad.img");
    REQUIRE(nand_save(d, path) == NAND_OK);
    size_t n;
    uint8_t *img = fx_slurp(path, &n);
    REQUIRE(img);
    CHECK_EQ_INT(le64_get(img + 24), 1); /* flags: compress */
    size_t at = contents_at(img);
    uint64_t count = le64_get(img + at);
    /* the first compact content of a JFFS2-style page */
    size_t r = at + 8, first = 0;
    uint64_t flen = 0;
    for (uint64_t i = 0; i < count && !first; i++) {
        uint64_t len = le64_get(img + r);
        if (len > 40 && len < PB) {
            first = r;
            flen = len;
        }
        r += 8 + len;
    }
    REQUIRE(first && flen > 2);
    uint8_t *m = malloc(n);
    REQUIRE(m);
    /* lengths 0 and past the page */
    static const uint64_t lens[] = {0, PB + 1, 1ull << 40};
    for (int i = 0; i < 3; i++) {
        memcpy(m, img, n);
        le64_put(m + first, lens[i]);
        fix_crc(m, n);
        REQUIRE(fx_spit(bad, m, n) == 0);
        CHECK(refused(bad, "length"));
    }
    /* every single byte of the form changed in turn: a form that no
     * longer covers the page exactly is refused, others open */
    int opened = 0, refusedn = 0, wrong = 0;
    for (uint64_t i = 0; i < flen; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(m, img, n);
            m[first + 8 + i] ^= (uint8_t)(1u << bit);
            fix_crc(m, n);
            REQUIRE(fx_spit(bad, m, n) == 0);
            char err[400];
            nand_dev *e = NULL;
            int rc = nand_open(bad, &e, err, sizeof err);
            if (rc == NAND_OK) {
                opened++;
                nand_close(e);
            } else if (rc == NAND_E_CORRUPT && strstr(err, "compact")) {
                refusedn++;
            } else {
                wrong++;
            }
        }
    }
    fprintf(stderr, "  %llu-byte form changed bit by bit: %d open, %d refused\n",
            (unsigned long long)flen, opened, refusedn);
    CHECK(refusedn > 0);
    CHECK_EQ_INT(wrong, 0);
    /* a form whose run overruns the page */
    memcpy(m, img, n);
    m[first + 8] = 0xff; /* header byte 0: a run, continued */
    m[first + 9] = 0xff;
    m[first + 10] = 0x7f; /* len ~ 2^20 */
    fix_crc(m, n);
    REQUIRE(fx_spit(bad, m, n) == 0);
    CHECK(refused(bad, "compact"));
    /* flags this version does not know */
    memcpy(m, img, n);
    le64_put(m + 24, 9); /* bit 3: unknown (bit 1: weak cells, bit 2: whole-page reads) */
    fix_crc(m, n);
    REQUIRE(fx_spit(bad, m, n) == 0);
    CHECK(refused(bad, "flags"));
    /* truncated anywhere in the contents */
    int fails = 0;
    for (size_t len = at; len < first + 8 + flen + 16 && len < n; len++) {
        REQUIRE(fx_spit(bad, img, len) == 0);
        nand_dev *e = (nand_dev *)(uintptr_t)1;
        char err[400];
        int rc = nand_open(bad, &e, err, sizeof err);
        fails += rc != NAND_E_CORRUPT || e != (nand_dev *)(uintptr_t)1;
    }
    CHECK_EQ_INT(fails, 0);
    free(m);
    free(img);
    nand_close(d);
    unlink(path);
    unlink(bad);
}

/* ---- the YAML key ------------------------------------------------------------ */

TEST(yaml_compress_key)
{
    char path[300], err[400];
    path_in_tmp(path, sizeof path, "dev.yaml");
    static const char *const texts[] = {
        "geometry: {blocks_per_plane: 8, pages_per_block: 4, page_size: 512, oob_size: 16}\n"
        "compress: true\ndedup: yes\n",
        "geometry: {blocks_per_plane: 8, pages_per_block: 4, page_size: 512, oob_size: 16}\n",
        "geometry: {blocks_per_plane: 8, pages_per_block: 4, page_size: 512, oob_size: 16}\n"
        "compress: 1\n",
        "geometry: {blocks_per_plane: 8, pages_per_block: 4, page_size: 512, oob_size: 16}\n"
        "compres: true\n",
    };
    for (int i = 0; i < 4; i++) {
        REQUIRE(fx_spit(path, (const uint8_t *)texts[i], strlen(texts[i])) == 0);
        struct nand_config c;
        nand_config_init(&c);
        int rc = nand_config_load(path, &c, err, sizeof err);
        if (i < 2) {
            CHECK_EQ_INT(rc, NAND_OK);
            CHECK_EQ_INT(c.compress, i == 0);
            CHECK_EQ_INT(c.dedup, i == 0);
        } else {
            CHECK_EQ_INT(rc, NAND_E_INVAL);
            CHECK(strstr(err, i == 2 ? "compress: expected true, false, yes or no"
                                     : "did you mean 'compress'"));
        }
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("compress")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(differential_compress_on_and_off);
    RUN(differential_one_buffer_and_two);
    RUN(every_pattern_reads_back);
    RUN(bytes_stored_drops_for_run_heavy_pages);
    RUN(compress_and_dedup_share_compact_pages);
    RUN(dedup_table_churn);
    RUN(image_round_trip_with_compact_pages);
    RUN(version_2_images_still_open);
    RUN(damaged_compact_contents_are_refused);
    RUN(yaml_compress_key);
    tmp_dir_remove();
    return test_summary(argv[0]);
}
