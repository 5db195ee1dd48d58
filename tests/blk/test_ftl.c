/*
 * test_ftl.c -- the page-mapped FTL (blk/blk.h) against a reference model
 * (an array of sector versions): random writes, trims and flushes under
 * GC, wear leveling and factory bad blocks, with remounts; a power cut at
 * every state-changing flash operation of a short sequence, after which
 * every flushed sector holds its flushed content and every other one its
 * old or new content; the WA accounting against the device's own counters.
 */
#include "blk.h"
#include "crc32.h"
#include "fixture.h"

#include <errno.h>

/* A sector's content is a function of (sector, version); version 0 is
 * zeros (never written, or trimmed). */
static void content(uint8_t *buf, uint32_t ss, uint64_t sec, uint32_t ver)
{
    if (!ver)
        memset(buf, 0, ss);
    else
        fx_fill(buf, ss, sec * 1000003u + ver);
}

/* The version buf holds for sector sec among cand[0..n), or -1. */
static int which(const uint8_t *buf, uint32_t ss, uint64_t sec, const uint32_t *cand, int n)
{
    uint8_t *want = malloc(ss);
    int hit = -1;
    for (int i = 0; i < n && hit < 0; i++) {
        content(want, ss, sec, cand[i]);
        if (!memcmp(want, buf, ss))
            hit = i;
    }
    free(want);
    return hit;
}

static nand_dev *mkdev(uint32_t page_size, uint32_t dies, double bad, uint64_t seed)
{
    return FX_DEVICE(.blocks = 48, .pages = 16, .page_size = page_size, .oob_size = 64,
                     .dies = dies, .bad = bad, .quiet = 1, .seed = seed);
}

static blk_dev *mount(nand_dev *n, const char *opts)
{
    blk_dev *d = NULL;
    char err[256] = "";
    int rc = blk_ftl_open(n, opts, &d, err, sizeof err);
    if (rc)
        fprintf(stderr, "blk_ftl_open: %d %s\n", rc, err);
    return d;
}

/* A device (*n) formatted with fmt and mounted with opts, or NULL. */
static blk_dev *formatted(nand_dev **n, uint32_t page_size, uint32_t dies, double bad,
                          uint64_t seed, const char *fmt, const char *opts)
{
    char err[256] = "";
    *n = mkdev(page_size, dies, bad, seed);
    if (*n && blk_ftl_format(*n, fmt, err, sizeof err)) {
        fprintf(stderr, "blk_ftl_format: %s\n", err);
        return NULL;
    }
    return *n ? mount(*n, opts) : NULL;
}

/* Random writes (1-4 sectors), trims and flushes against ver[], with a
 * remount every `remount` operations; every sector checked at the end. */
static void model_run(uint32_t page_size, uint32_t dies, double bad, const char *fmt,
                      const char *opts, int ops, int remount, struct blk_stats *out)
{
    nand_dev *n;
    blk_dev *d = formatted(&n, page_size, dies, bad, 7, fmt, opts);
    REQUIRE(d);
    uint64_t L = blk_sectors(d);
    uint32_t ss = blk_sector_size(d);
    REQUIRE(L > 16);
    uint32_t *ver = calloc(L, sizeof *ver);
    uint8_t *buf = malloc((size_t)4 * ss), *got = malloc(ss);
    uint64_t rs = 99;
    int bad_reads = 0;
    for (int i = 0; i < ops; i++) {
        uint64_t r = fx_next(&rs) % 100, sec = fx_next(&rs) % L;
        uint32_t cnt = 1 + (uint32_t)(fx_next(&rs) % 4);
        if (sec + cnt > L)
            cnt = (uint32_t)(L - sec);
        if (r < 85) {
            for (uint32_t k = 0; k < cnt; k++)
                content(buf + (size_t)k * ss, ss, sec + k, ++ver[sec + k]);
            REQUIRE(blk_write(d, sec, cnt, buf) == 0);
        } else if (r < 93) {
            REQUIRE(blk_trim(d, sec, cnt) == 0);
            for (uint32_t k = 0; k < cnt; k++)
                ver[sec + k] = 0;
        } else if (r < 98) {
            REQUIRE(blk_flush(d) == 0);
        } else {
            REQUIRE(blk_read(d, sec, 1, got) == 0);
            bad_reads += which(got, ss, sec, &ver[sec], 1) != 0;
        }
        if (remount && i % remount == remount - 1) {
            REQUIRE(blk_close(d) == 0);
            REQUIRE((d = mount(n, opts)));
        }
    }
    CHECK_EQ_INT(bad_reads, 0);
    blk_get_stats(d, out);
    REQUIRE(blk_close(d) == 0);
    REQUIRE((d = mount(n, opts)));
    int wrong = 0;
    for (uint64_t s = 0; s < L; s++) {
        REQUIRE(blk_read(d, s, 1, got) == 0);
        wrong += which(got, ss, s, &ver[s], 1) != 0;
    }
    CHECK_EQ_INT(wrong, 0);
    blk_close(d);
    free(ver);
    free(buf);
    free(got);
    nand_close(n);
}

TEST(model_page_sectors)
{
    struct blk_stats st;
    model_run(4096, 2, 0, "op=0.25", "gc_policy=greedy", 6000, 1500, &st);
    CHECK(st.free_blocks > 0);
}

TEST(model_subpage_sectors_dchoices_bad_blocks)
{
    struct blk_stats st;
    model_run(8192, 2, 0.05, "op=0.2,sector=4K", "gc_policy=d-choices,gc_choices=4", 6000, 2000,
              &st);
    CHECK(st.bad_blocks > 0);
}

/* GC really ran in the model runs: the last mount's counters do not show
 * it, so one run without remount. */
TEST(model_gc_and_wear_leveling)
{
    struct blk_stats st;
    model_run(4096, 1, 0, "op=0.2,wl=2", "gc_policy=cost-benefit,hotcold=0", 12000, 0, &st);
    CHECK(st.gc_rounds > 0);
    CHECK(st.wl_moves > 0);
    CHECK(st.sectors_moved > 0);
}

/* WA accounting: every page the FTL programmed and every erase it made is
 * one the device counted; WA under uniform random overwrites is above 1
 * and greedy's is no worse than FIFO's. */
static double wa_run(const char *policy, struct blk_stats *st, struct nand_stats *ns)
{
    nand_dev *n = mkdev(4096, 2, 0, 3);
    char err[256];
    if (!n || blk_ftl_format(n, "op=0.15", err, sizeof err))
        return -1;
    nand_reset_stats(n);
    blk_dev *d = mount(n, policy);
    if (!d)
        return -1;
    uint64_t L = blk_sectors(d), rs = 5;
    uint8_t *buf = calloc(1, blk_sector_size(d));
    for (uint64_t i = 0; i < 8 * L; i++) {
        buf[0] = (uint8_t)i;
        if (blk_write(d, fx_next(&rs) % L, 1, buf))
            break;
    }
    blk_get_stats(d, st);
    nand_get_stats(n, ns);
    blk_close(d);
    free(buf);
    nand_close(n);
    return (double)(st->pages_host + st->pages_gc) * 4096 / (double)st->host_bytes_written;
}

TEST(wa_accounting)
{
    struct blk_stats st;
    struct nand_stats ns;
    double greedy = wa_run("gc_policy=greedy", &st, &ns);
    REQUIRE(greedy > 0);
    CHECK_EQ_INT(st.pages_host + st.pages_gc, ns.programs);
    CHECK_EQ_INT(st.erases, ns.erases);
    CHECK_EQ_INT(st.pages_host, st.host_sectors_written);
    CHECK(greedy > 1.2);
    double fifo = wa_run("gc_policy=fifo", &st, &ns);
    CHECK(fifo >= greedy);
    printf("wa greedy %.3f fifo %.3f\n", greedy, fifo);
}

/* ---- power cuts ---------------------------------------------------------- */

#define CUT_SECTORS 24
#define CUT_OPS 320

/* The sequence: writes over a small range (so GC runs), trims, flushes.
 * cand[s] holds the versions sector s may show after a cut: its flushed
 * one first, then every one written since.  Returns 0, or the first
 * error (a cut). */
struct cutmodel {
    uint32_t cand[CUT_SECTORS][CUT_OPS + 2];
    int ncand[CUT_SECTORS];
    uint32_t next[CUT_SECTORS];
};

static int cut_sequence(blk_dev *d, struct cutmodel *m)
{
    uint32_t ss = blk_sector_size(d);
    uint8_t *buf = malloc(ss);
    uint64_t rs = 17;
    int rc = 0;
    for (int s = 0; s < CUT_SECTORS; s++)
        m->ncand[s] = 1, m->cand[s][0] = 0, m->next[s] = 0;
    for (int i = 0; i < CUT_OPS && !rc; i++) {
        uint64_t r = fx_next(&rs) % 100, s = fx_next(&rs) % CUT_SECTORS;
        if (r < 80) {
            uint32_t v = ++m->next[s];
            content(buf, ss, s, v);
            m->cand[s][m->ncand[s]++] = v; /* may show before the call returns */
            rc = blk_write(d, s, 1, buf);
        } else if (r < 88) {
            m->cand[s][m->ncand[s]++] = 0;
            rc = blk_trim(d, s, 1);
        } else {
            uint32_t now[CUT_SECTORS];
            for (int k = 0; k < CUT_SECTORS; k++)
                now[k] = m->cand[k][m->ncand[k] - 1];
            rc = blk_flush(d);
            if (!rc)
                for (int k = 0; k < CUT_SECTORS; k++)
                    m->ncand[k] = 1, m->cand[k][0] = now[k];
        }
    }
    free(buf);
    return rc;
}

/* A cut after every state-changing operation of cut_sequence, on SLC and
 * MLC, with mount options opts; gc: GC must have run before some cuts. */
static void cut_campaign(const char *opts, int gc)
{
    const char *devs[] = {"slc", "mlc"};
    for (int dv = 0; dv < 2; dv++) {
        struct nand_config c;
        fx_config(&c, &(struct fx_dev){.blocks = 16, .pages = 16, .page_size = 4096,
                                        .oob_size = 64, .quiet = 1, .seed = 4,
                                        .pair = dv ? 2 : 0});
        nand_dev *n = fx_create(&c);
        REQUIRE(n);
        char err[256];
        REQUIRE(blk_ftl_format(n, "op=0.5,gc_threshold=0.2", err, sizeof err) == 0);
        nand_snapshot *fresh;
        REQUIRE(nand_snapshot_take(n, &fresh) == 0);
        struct cutmodel *m = calloc(1, sizeof *m);
        /* the clean run: how many state-changing operations it makes */
        struct nand_stats ns0, ns1;
        nand_get_stats(n, &ns0);
        blk_dev *d = mount(n, opts);
        REQUIRE(d && blk_sectors(d) >= CUT_SECTORS);
        REQUIRE(cut_sequence(d, m) == 0);
        blk_close(d);
        nand_get_stats(n, &ns1);
        uint64_t total = ns1.state_ops - ns0.state_ops;
        CHECK(total > 100);
        int lost = 0, points = 0, gcs = 0;
        uint8_t *got = malloc(4096);
        for (uint64_t k = 0; k < total; k++) {
            REQUIRE(nand_snapshot_restore(n, fresh) == 0);
            d = mount(n, opts);
            REQUIRE(d);
            nand_cut_after_ops(n, k, -1);
            int rc = cut_sequence(d, m);
            struct blk_stats st;
            blk_get_stats(d, &st);
            gcs += st.gc_rounds > 0;
            blk_close(d);
            nand_cut_disarm(n);
            nand_power_on(n);
            if (!rc)
                continue;
            points++;
            d = mount(n, opts);
            REQUIRE(d);
            for (int s = 0; s < CUT_SECTORS; s++) {
                REQUIRE(blk_read(d, (uint64_t)s, 1, got) == 0);
                if (which(got, blk_sector_size(d), (uint64_t)s, m->cand[s], m->ncand[s]) < 0) {
                    lost++;
                    fprintf(stderr, "%s cut %llu: sector %d holds none of %d versions\n",
                            devs[dv], (unsigned long long)k, s, m->ncand[s]);
                }
            }
            /* and the device goes on working */
            content(got, blk_sector_size(d), 0, 77);
            int wrc = blk_write(d, 0, 1, got), frc = blk_flush(d);
            if (wrc || frc)
                fprintf(stderr, "%s cut %llu: write after remount %d, flush %d\n", devs[dv],
                        (unsigned long long)k, wrc, frc);
            CHECK(wrc == 0 && frc == 0);
            blk_close(d);
        }
        printf("%s%s%s: %d cut points, %d with GC before the cut, %d sectors lost\n", devs[dv],
               opts ? " " : "", opts ? opts : "", points, gcs, lost);
        CHECK_EQ_INT(lost, 0);
        CHECK(points > 100);
        CHECK(!gc || gcs > 0);
        free(got);
        free(m);
        nand_snapshot_free(fresh);
        nand_close(n);
    }
}

TEST(power_cut_every_op)
{
    cut_campaign(NULL, 1);
}

/* With the write cache (4 sectors: evictions all along): a flush writes
 * the cache back before it returns, so no flushed sector is lost; the
 * unflushed ones read their old content or any newer one. */
TEST(power_cut_write_cache)
{
    cut_campaign("cache=16K", 0);
}

/* The write cache absorbs overwrites: 2000 writes over 24 sectors that
 * fit in it program nothing until the flush, then each sector once. */
TEST(write_cache_absorbs)
{
    nand_dev *n;
    blk_dev *d = formatted(&n, 4096, 1, 0, 2, "op=0.25", "cache=96K");
    REQUIRE(d);
    uint8_t buf[4096], got[4096];
    uint32_t ver[24] = {0};
    uint64_t rs = 3;
    for (int i = 0; i < 2000; i++) {
        uint64_t s = fx_next(&rs) % 24;
        content(buf, 4096, s, ++ver[s]);
        REQUIRE(blk_write(d, s, 1, buf) == 0);
    }
    struct blk_stats st;
    blk_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_host, 0);
    CHECK_EQ_INT(st.host_sectors_written, 2000);
    CHECK_EQ_INT(st.cache_absorbed, 2000 - 24);
    REQUIRE(blk_read(d, 5, 1, got) == 0); /* from the cache */
    CHECK(which(got, 4096, 5, &ver[5], 1) == 0);
    REQUIRE(blk_trim(d, 6, 1) == 0);       /* a cached write trimmed away */
    ver[6] = 0;
    REQUIRE(blk_flush(d) == 0);
    blk_get_stats(d, &st);
    CHECK_EQ_INT(st.pages_host, 23);       /* 6 never reached flash: no tombstone */
    CHECK_EQ_INT(st.host_sectors_written, 2000);
    CHECK(blk_mem_bytes(d) > 96 * 1024);
    blk_close(d);
    REQUIRE((d = mount(n, NULL)));         /* the cache's content is on flash */
    for (uint64_t s = 0; s < 24; s++) {
        REQUIRE(blk_read(d, s, 1, got) == 0);
        CHECK(which(got, 4096, s, &ver[s], 1) == 0);
    }
    blk_close(d);
    nand_close(n);
}

/* The model with a write cache smaller than what is written between
 * flushes (evictions), and with one that holds it all (overwrites
 * absorbed), with remounts. */
TEST(model_write_cache)
{
    struct blk_stats st;
    model_run(4096, 2, 0, "op=0.25", "gc_policy=greedy,cache=16K", 6000, 1500, &st);
    model_run(4096, 2, 0, "op=0.25", "gc_policy=greedy,cache=1M", 6000, 1700, &st);
    CHECK(st.cache_absorbed > 0);
}

/* A page damaged after it was written (ECC passes, the CRC does not): its
 * sector reads -EIO after a mount, the others their content; it still
 * does after GC moved it (every other sector written again, blocks
 * erased and used anew), until the host writes it; then everything reads
 * back, across a remount too. */
TEST(damaged_page_reads_eio)
{
    nand_dev *n;
    blk_dev *d = formatted(&n, 4096, 1, 0, 8, "op=0.25", "gc_policy=greedy");
    REQUIRE(d);
    char err[256];
    uint64_t L = blk_sectors(d);
    uint32_t *ver = calloc(L, sizeof *ver);
    uint8_t buf[4096];
    for (uint64_t s = 0; s < L; s++) {
        content(buf, 4096, s, ++ver[s]);
        REQUIRE(blk_write(d, s, 1, buf) == 0);
    }
    REQUIRE(blk_close(d) == 0);
    /* page 3 of the first full data block */
    const struct nand_config *c = nand_get_config(n);
    uint32_t victim = UINT32_MAX;
    for (uint32_t b = 1; b < nand_blocks(c) && victim == UINT32_MAX; b++) {
        struct nand_block_info bi;
        if (!nand_block_info(n, b, &bi) && bi.pages_programmed == c->geo.pages_per_block)
            victim = b;
    }
    REQUIRE(victim != UINT32_MAX);
    struct nand_corrupt k = {.mode = NAND_CORRUPT_SILENT, .block = victim, .page = 3, .bits = 8,
                             .seed = 1};
    REQUIRE(nand_corrupt(n, &k, err, sizeof err) == 0);
    struct nand_block_info vi0, vi1;
    REQUIRE(nand_block_info(n, victim, &vi0) == 0);
    REQUIRE((d = mount(n, "gc_policy=greedy")));
    int eio = 0, wrong = 0;
    uint64_t dmg = L;
    for (uint64_t s = 0; s < L; s++) {
        int rc = blk_read(d, s, 1, buf);
        eio += rc == -EIO;
        dmg = rc == -EIO ? s : dmg;
        wrong += !rc && which(buf, 4096, s, &ver[s], 1) != 0;
    }
    CHECK_EQ_INT(eio, 1); /* one sector a page */
    CHECK_EQ_INT(wrong, 0);
    REQUIRE(dmg < L);
    uint64_t rs = 21;
    for (uint64_t i = 0; i < 6 * L; i++) {
        uint64_t s = i < L ? i : fx_next(&rs) % L;
        if (s == dmg)
            continue;
        content(buf, 4096, s, ++ver[s]);
        REQUIRE(blk_write(d, s, 1, buf) == 0);
    }
    struct blk_stats st;
    blk_get_stats(d, &st);
    CHECK(st.erases > nand_blocks(c)); /* blocks erased again, the victim too */
    CHECK(st.sectors_moved > 0);
    CHECK(blk_read(d, dmg, 1, buf) == -EIO); /* moved by GC, still damaged */
    REQUIRE(nand_block_info(n, victim, &vi1) == 0);
    CHECK(vi1.pe_cycles > vi0.pe_cycles); /* the damaged page itself is gone */
    /* the mark is on flash: every later mount finds it, GC moving it again */
    for (int pass = 0; pass < 2; pass++) {
        REQUIRE(blk_close(d) == 0);
        REQUIRE((d = mount(n, "gc_policy=greedy")));
        eio = wrong = 0;
        for (uint64_t s = 0; s < L; s++) {
            int rc = blk_read(d, s, 1, buf);
            eio += rc == -EIO;
            wrong += !rc && which(buf, 4096, s, &ver[s], 1) != 0;
        }
        CHECK(blk_read(d, dmg, 1, buf) == -EIO);
        CHECK_EQ_INT(eio, 1);
        CHECK_EQ_INT(wrong, 0);
        for (uint64_t i = 0; i < 3 * L; i++) {
            uint64_t s = fx_next(&rs) % L;
            if (s == dmg)
                continue;
            content(buf, 4096, s, ++ver[s]);
            REQUIRE(blk_write(d, s, 1, buf) == 0);
        }
    }
    content(buf, 4096, dmg, ++ver[dmg]);
    REQUIRE(blk_write(d, dmg, 1, buf) == 0);
    for (int pass = 0; pass < 2; pass++) {
        eio = wrong = 0;
        for (uint64_t s = 0; s < L; s++) {
            int rc = blk_read(d, s, 1, buf);
            eio += rc != 0;
            wrong += !rc && which(buf, 4096, s, &ver[s], 1) != 0;
        }
        CHECK_EQ_INT(eio, 0);
        CHECK_EQ_INT(wrong, 0);
        REQUIRE(blk_close(d) == 0);
        REQUIRE((d = mount(n, NULL)));
    }
    blk_close(d);
    free(ver);
    nand_close(n);
}

/* A sector written twice before its page was programmed sits in two
 * slots of one page, under one sequence number: the mount must take the
 * later slot (it took the first, and gave the older data back). */
TEST(two_copies_in_one_page)
{
    nand_dev *n;
    blk_dev *d = formatted(&n, 8192, 1, 0, 1, "sector=4K,op=0.25", NULL);
    REQUIRE(d);
    uint8_t buf[4096];
    for (uint32_t v = 1; v <= 2; v++) {
        content(buf, sizeof buf, 7, v);
        REQUIRE(blk_write(d, 7, 1, buf) == 0);
    }
    REQUIRE(blk_close(d) == 0);
    REQUIRE((d = mount(n, NULL)));
    uint32_t want = 2;
    REQUIRE(blk_read(d, 7, 1, buf) == 0);
    CHECK_EQ_INT(which(buf, sizeof buf, 7, &want, 1), 0);
    blk_close(d);
    nand_close(n);
}

/* Every sector reads back its version (ver), and a remount keeps it. */
static int all_read_back(blk_dev *d, const uint32_t *ver)
{
    uint8_t buf[4096];
    int wrong = 0;
    for (uint64_t s = 0; s < blk_sectors(d); s++)
        wrong += blk_read(d, s, 1, buf) || which(buf, sizeof buf, s, &ver[s], 1) != 0;
    return wrong;
}

static void corrupt(nand_dev *n, enum nand_corrupt_mode mode, uint32_t block)
{
    struct nand_corrupt k = {.mode = mode, .block = block, .bits = 8, .seed = 3};
    char err[256];
    REQUIRE(nand_corrupt(n, &k, err, sizeof err) == 0);
}

/* The superblock has two copies, in the first and the last good block:
 * either one alone mounts the device with every sector, whatever hit the
 * other (its page unreadable, silently changed, its block gone bad). */
TEST(superblock_copies)
{
    static const enum nand_corrupt_mode modes[] = {NAND_CORRUPT_UNCORRECTABLE,
                                                   NAND_CORRUPT_SILENT, NAND_CORRUPT_BAD};
    for (int copy = 0; copy < 2; copy++)
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
            nand_dev *n = mkdev(4096, 2, 0.1, 11);
            REQUIRE(n);
            uint32_t nb, first = UINT32_MAX, last = 0;
            for (nb = 0; nb < nand_blocks(nand_get_config(n)); nb++)
                if (!nand_is_bad(n, nb)) {
                    first = first == UINT32_MAX ? nb : first;
                    last = nb;
                }
            char err[256] = "";
            REQUIRE(blk_ftl_format(n, "op=0.2", err, sizeof err) == 0);
            blk_dev *d = mount(n, NULL);
            REQUIRE(d);
            uint64_t L = blk_sectors(d);
            uint32_t *ver = calloc(L, sizeof *ver);
            uint8_t buf[4096];
            for (uint64_t s = 0; s < L; s++) {
                content(buf, sizeof buf, s, ver[s] = 1);
                REQUIRE(blk_write(d, s, 1, buf) == 0);
            }
            REQUIRE(blk_close(d) == 0);
            corrupt(n, modes[m], copy ? last : first);
            CHECK(blk_ftl_probe(n) == 1);
            REQUIRE((d = mount(n, NULL)));
            CHECK(blk_sectors(d) == L);
            CHECK_EQ_INT(all_read_back(d, ver), 0);
            REQUIRE(blk_close(d) == 0);
            /* both copies unreadable (a grown bad block's pages still
             * read): refused, loudly */
            corrupt(n, NAND_CORRUPT_UNCORRECTABLE, first);
            corrupt(n, NAND_CORRUPT_UNCORRECTABLE, last);
            CHECK(blk_ftl_probe(n) == 0);
            CHECK(blk_ftl_open(n, NULL, &d, err, sizeof err) == -EINVAL);
            CHECK(strstr(err, "no FTL superblock") != NULL);
            free(ver);
            nand_close(n);
        }
}

/* A version-1 image (one copy, docs/ftl.md) still mounts, and its last
 * good block is a data block there. */
TEST(version1_superblock)
{
    nand_dev *n;
    blk_dev *d = formatted(&n, 4096, 1, 0, 2, "op=0.2", NULL);
    REQUIRE(d);
    uint64_t L = blk_sectors(d);
    blk_close(d);
    uint32_t nb = (uint32_t)nand_blocks(nand_get_config(n));
    for (uint32_t b = 0; b < nb; b++)
        REQUIRE(nand_erase(n, b, NULL) == 0);
    /* the version-1 superblock, byte by byte: magic, version 1, sector
     * size, op ppm, 0, sectors, options, CRC of bytes 0..287 */
    uint8_t page[4096] = {0};
    memcpy(page, "FLFTL001", 8);
    uint32_t f[] = {1, 4096, 200000, 0, (uint32_t)L, 0};
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++)
            page[8 + 4 * i + k] = (uint8_t)(f[i] >> (8 * k));
    strcpy((char *)page + 32, "op=0.2");
    uint32_t crc = flashlab_crc32(0, page, 288);
    for (int k = 0; k < 4; k++)
        page[288 + k] = (uint8_t)(crc >> (8 * k));
    REQUIRE(nand_program(n, 0, 0, page, NULL, NULL) == 0);
    REQUIRE((d = mount(n, NULL)));
    CHECK(blk_sectors(d) == L);
    uint32_t *ver = calloc(L, sizeof *ver);
    uint8_t buf[4096];
    for (uint64_t i = 0, rs = 4; i < 6 * L; i++) { /* enough to use every block */
        uint64_t s = fx_next(&rs) % L;
        content(buf, sizeof buf, s, ++ver[s]);
        REQUIRE(blk_write(d, s, 1, buf) == 0);
    }
    struct nand_block_info bi;
    REQUIRE(nand_block_info(n, nb - 1, &bi) == 0);
    CHECK(bi.pages_programmed > 0);
    REQUIRE(blk_close(d) == 0);
    REQUIRE((d = mount(n, NULL)));
    CHECK_EQ_INT(all_read_back(d, ver), 0);
    blk_close(d);
    free(ver);
    nand_close(n);
}

TEST(format_errors)
{
    nand_dev *n = mkdev(2048, 1, 0, 1);
    REQUIRE(n);
    char err[256] = "";
    CHECK(blk_ftl_format(n, "sector=8K", err, sizeof err) == -EINVAL);
    CHECK(strstr(err, "sector=8192") != NULL);
    CHECK(blk_ftl_format(n, "op=0.01", err, sizeof err) == -ENOSPC);
    CHECK(strstr(err, "op=") != NULL);
    CHECK(blk_ftl_format(n, "gc_policy=nope", err, sizeof err) == -EINVAL);
    CHECK(blk_ftl_probe(n) == 0);
    blk_dev *d = NULL;
    CHECK(blk_ftl_open(n, NULL, &d, err, sizeof err) == -EINVAL);
    CHECK(strstr(err, "no FTL superblock") != NULL);
    CHECK(blk_ftl_format(n, "sector=page,op=0.3", err, sizeof err) == 0);
    CHECK(blk_ftl_probe(n) == 1);
    REQUIRE((d = mount(n, NULL)));
    CHECK_EQ_INT(blk_sector_size(d), 2048);
    CHECK(blk_read(d, blk_sectors(d), 1, err) == -EINVAL);
    blk_close(d);
    nand_close(n);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(model_page_sectors);
    RUN(model_subpage_sectors_dchoices_bad_blocks);
    RUN(model_gc_and_wear_leveling);
    RUN(wa_accounting);
    RUN(power_cut_every_op);
    RUN(power_cut_write_cache);
    RUN(write_cache_absorbs);
    RUN(model_write_cache);
    RUN(damaged_page_reads_eio);
    RUN(two_copies_in_one_page);
    RUN(superblock_copies);
    RUN(version1_superblock);
    RUN(format_errors);
    return test_summary(argv[0]);
}
