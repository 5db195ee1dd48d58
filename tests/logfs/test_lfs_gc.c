/*
 * test_lfs_gc.c -- LogFS with each cleaning policy, hot/cold separation and
 * wear leveling: data survives many device fills under every policy, the
 * flash-write accounting adds up to what the device programmed, and static
 * wear leveling narrows the erase-count spread.
 */
#include "logfs/lfs.h"
#include "logfs/logfs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#define NFILES 16
#define CHUNKS 48 /* 4 KiB chunks per file */
#define BLOCKS 128

/* blocks of 32 pages of 2 KiB (64 KiB segments), rated for endurance
 * cycles */
static nand_dev *dev_worn_of(uint32_t blocks, uint64_t seed, uint32_t endurance)
{
    return FX_DEVICE(.blocks = blocks, .pages = 32, .endurance = endurance, .seed = seed);
}

static nand_dev *dev_of(uint32_t blocks, uint64_t seed)
{
    return dev_worn_of(blocks, seed, 1000000); /* wear-out is not the point here */
}

static uint8_t byte_at(uint32_t file, uint32_t ver, uint64_t off)
{
    uint64_t x = (file + 1) * 0x9e3779b97f4a7c15ULL ^ (ver + 1) * 0xc2b2ae3d27d4eb4fULL ^
                 (off / 256) * 0x165667b19e3779f9ULL;
    x ^= x >> 29;
    return (uint8_t)(x * 0xbf58476d1ce4e5b9ULL >> 56);
}

static int write_chunk(logfs *fs, const char *name, uint32_t file, uint32_t c,
                       uint32_t v)
{
    uint8_t buf[4096];
    for (uint32_t k = 0; k < sizeof buf; k++)
        buf[k] = byte_at(file, v, c * 4096ull + k);
    int fd = logfs_open(fs, name, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return fd;
    int64_t n = logfs_pwrite(fs, fd, buf, sizeof buf, c * 4096ull);
    logfs_close(fs, fd);
    return n == sizeof buf ? 0 : n < 0 ? (int)n : -EIO;
}

static int check_chunks(logfs *fs, const char *name, uint32_t file,
                        const uint32_t *ver, uint32_t nchunks)
{
    int fd = logfs_open(fs, name, O_RDONLY, 0);
    if (fd < 0)
        return fd;
    uint8_t buf[4096];
    int bad = 0;
    for (uint32_t c = 0; c < nchunks && !bad; c++) {
        bad = logfs_pread(fs, fd, buf, sizeof buf, c * 4096ull) != sizeof buf;
        for (uint32_t k = 0; k < sizeof buf && !bad; k++)
            bad = buf[k] != byte_at(file, ver[c], c * 4096ull + k);
    }
    logfs_close(fs, fd);
    return bad ? -EIO : 0;
}

struct gc_seen {
    uint64_t events, live, wl;
};

static void count_gc(void *ctx, const struct fs_gc_event *ev)
{
    struct gc_seen *g = ctx;
    g->events++;
    g->live += ev->live_bytes;
    g->wl += ev->wear_leveling;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* NFILES files of CHUNKS chunks (3 MiB live on an 8 MiB device),
 * overwritten at random, 80% of writes to the first two files, for about
 * `fills` device sizes; then the contents are checked before and after a
 * remount with the same options. */
static void churn(const struct logfs_options *opt, unsigned fills,
                  struct logfs_stats *out)
{
    nand_dev *d = dev_of(BLOCKS, 11);
    REQUIRE(d && logfs_mkfs(d, opt) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, opt, &fs) == 0);
    struct gc_seen seen = {0};
    logfs_set_gc_observer(fs, count_gc, &seen);
    struct nand_stats st0, st1;
    nand_get_stats(d, &st0);
    static uint32_t ver[NFILES][CHUNKS];
    memset(ver, 0, sizeof ver);
    char name[NFILES][16];
    for (uint32_t i = 0; i < NFILES; i++) {
        snprintf(name[i], sizeof name[i], "/f%u", i);
        for (uint32_t c = 0; c < CHUNKS; c++)
            REQUIRE(write_chunk(fs, name[i], i, c, 0) == 0);
    }
    uint64_t x = 99, writes = (uint64_t)fills * (BLOCKS * 32 * 2048 / 4096);
    for (uint64_t w = 0; w < writes; w++) {
        uint64_t r = xorshift(&x);
        uint32_t i = r % 10 < 8 ? (uint32_t)(r >> 8) % 2 : 2 + (uint32_t)(r >> 8) % (NFILES - 2);
        uint32_t c = (uint32_t)(r >> 32) % CHUNKS;
        int rc = write_chunk(fs, name[i], i, c, ++ver[i][c]);
        if (rc) {
            fprintf(stderr, "%s: write %" PRIu64 " failed: %d\n", opt->gc_policy, w, rc);
            CHECK(0);
            break;
        }
        if (w % 512 == 511) {
            uint32_t seg, have;
            uint64_t want;
            REQUIRE(logfs_sync(fs) == 0);
            CHECK_EQ_INT(lfs_check_live(fs, &seg, &want, &have), 0);
        }
    }
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, out);
    nand_get_stats(d, &st1);
    /* every page the device programmed since mount is accounted for */
    CHECK_EQ_INT(out->pages_data + out->pages_meta + out->pages_anchor,
                 st1.programs - st0.programs);
    CHECK(out->erases == st1.erases - st0.erases);
    CHECK(out->pages_gc <= out->pages_data + out->pages_meta);
    /* the observer saw every victim, and at least what was moved */
    CHECK_EQ_INT(seen.events, out->gc_rounds);
    CHECK(seen.live >= out->gc_bytes);
    CHECK_EQ_INT(seen.wl, 0);
    if (opt->gc_separate)
        CHECK(fs->ctr.pages[LFS_AREA_MOVED] > 0);
    else
        CHECK_EQ_INT(fs->ctr.pages[LFS_AREA_MOVED], 0);
    for (uint32_t i = 0; i < NFILES; i++)
        CHECK_EQ_INT(check_chunks(fs, name[i], i, ver[i], CHUNKS), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, opt, &fs) == 0);
    for (uint32_t i = 0; i < NFILES; i++)
        CHECK_EQ_INT(check_chunks(fs, name[i], i, ver[i], CHUNKS), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(every_policy_keeps_data_through_device_fills)
{
    const char *name, *summary;
    for (unsigned i = 0; (name = logfs_gc_policy_name(i, &summary)); i++) {
        CHECK(summary && *summary);
        for (int sep = 0; sep <= 1; sep++) {
            struct logfs_options o = {.gc_policy = name, .gc_separate = sep,
                                      .reserve_segments = 4, .dirty_bytes = 256 << 10};
            struct logfs_stats st;
            churn(&o, 4, &st);
            double wa = (double)(st.pages_data + st.pages_meta + st.pages_anchor) * 2048 /
                        (double)st.host_bytes;
            fprintf(stderr, "%-13s separate %d: WA %.2f, %" PRIu64 " victims, %" PRIu64
                    " KiB moved, cleaning %.2f s simulated\n", name, sep, wa,
                    st.gc_rounds, st.gc_bytes >> 10, (double)st.gc_time_ns / 1e9);
            CHECK(st.gc_rounds > 0 && st.gc_objects > 0 && st.gc_time_ns > 0);
            CHECK(wa > 1.0);
        }
    }
    CHECK(logfs_gc_policy_name(7, NULL) == NULL);
}

TEST(bad_gc_options_are_refused)
{
    nand_dev *d = dev_of(64, 3);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs = NULL;
    struct logfs_options o = {.gc_policy = "no-such-policy"};
    CHECK_EQ_INT(logfs_mount(d, &o, &fs), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &o), -EINVAL);
    struct logfs_options w = {.wear_leveling = 7};
    CHECK_EQ_INT(logfs_mount(d, &w, &fs), -EINVAL);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0); /* the image is untouched */
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* Erase-count spread (max - min over the blocks the fs may allocate). */
static uint64_t spread(nand_dev *d, uint32_t blocks)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t b = 5; b < blocks - 1; b++) { /* not sb, anchors, backup */
        struct nand_block_info bi;
        if (nand_is_bad(d, b) || nand_block_info(d, b, &bi))
            continue;
        lo = bi.pe_cycles < lo ? bi.pe_cycles : lo;
        hi = bi.pe_cycles > hi ? bi.pe_cycles : hi;
    }
    return hi - lo;
}

/* Half the device holds a file written once; a small hot file is
 * rewritten for `fills` device sizes. */
static uint64_t wear_run(int wl, unsigned fills, struct logfs_stats *st)
{
    const uint32_t blocks = BLOCKS;
    nand_dev *d = dev_of(blocks, 21);
    struct logfs_options o = {.wear_leveling = wl, .wl_threshold = 16,
                              .reserve_segments = 4, .dirty_bytes = 256 << 10};
    if (!d || logfs_mkfs(d, &o))
        return UINT64_MAX;
    logfs *fs;
    if (logfs_mount(d, &o, &fs))
        return UINT64_MAX;
    uint32_t cold_chunks = blocks / 2 * 16; /* 16 chunks of 4 KiB per segment */
    static uint32_t zero[1024];
    int ok = 1;
    for (uint32_t c = 0; c < cold_chunks && ok; c++)
        ok = write_chunk(fs, "/cold", 0, c, 0) == 0;
    uint64_t writes = (uint64_t)fills * blocks * 16;
    static uint32_t hot[32];
    memset(hot, 0, sizeof hot);
    for (uint64_t w = 0; w < writes && ok; w++) { /* each one to flash */
        uint32_t c = (uint32_t)(w % 32);
        ok = write_chunk(fs, "/hot", 1, c, ++hot[c]) == 0 && logfs_sync(fs) == 0;
    }
    ok = ok && check_chunks(fs, "/cold", 0, zero, cold_chunks) == 0 &&
         check_chunks(fs, "/hot", 1, hot, 32) == 0;
    logfs_get_stats(fs, st);
    ok = logfs_unmount(fs) == 0 && ok;
    uint64_t s = spread(d, blocks);
    nand_close(d);
    return ok ? s : UINT64_MAX;
}

TEST(static_wear_leveling_narrows_the_spread)
{
    struct logfs_stats dyn, stat, none;
    uint64_t s_none = wear_run(LOGFS_WL_NONE, 30, &none);
    uint64_t s_dyn = wear_run(LOGFS_WL_DYNAMIC, 30, &dyn);
    uint64_t s_static = wear_run(LOGFS_WL_STATIC, 30, &stat);
    REQUIRE(s_none != UINT64_MAX && s_dyn != UINT64_MAX && s_static != UINT64_MAX);
    double wa_dyn = (double)(dyn.pages_data + dyn.pages_meta + dyn.pages_anchor) * 2048 / (double)dyn.host_bytes;
    double wa_static = (double)(stat.pages_data + stat.pages_meta + stat.pages_anchor) * 2048 / (double)stat.host_bytes;
    fprintf(stderr, "erase-count spread: none %" PRIu64 ", dynamic %" PRIu64
            ", static %" PRIu64 " (%" PRIu64 " moves); WA dynamic %.3f, static %.3f\n",
            s_none, s_dyn, s_static, stat.wl_moves, wa_dyn, wa_static);
    /* the cold half never moves without static leveling: its blocks keep
     * their mkfs-time count while the hot ones wear */
    CHECK(s_dyn > 100);
    CHECK(stat.wl_moves > 0);
    CHECK(s_static * 3 < s_dyn);
    CHECK(dyn.wl_moves == 0 && none.wl_moves == 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The exact q-quantile of sorted v: the smallest value with at least q of
 * the samples at or below it. */
static uint64_t exact_quantile(const uint64_t *v, size_t n, double q)
{
    size_t k = (size_t)(q * (double)n + 0.999999);
    return v[k ? k - 1 : 0];
}

/* A histogram's percentile is the top of the true value's bucket: never
 * below it, and at most 1/16 above. */
static int close_above(uint64_t got, uint64_t exact)
{
    return got >= exact && (double)got <= (double)exact * (1.0 + 1.0 / 16) + 1;
}

TEST(latency_histogram_against_sorted_samples)
{
    nand_dev *d = dev_of(BLOCKS, 4);
    REQUIRE(d && logfs_mkfs(d, NULL) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    enum { N = 20000 };
    static uint64_t v[N];
    uint64_t x = 5;
    for (size_t i = 0; i < N; i++) { /* heavy-tailed, 0 .. 2^40 */
        uint64_t r = xorshift(&x);
        v[i] = (r >> 24) >> (r % 40);
        fs_lat_record(&lfs_ops_of(fs)->lat[LOGFS_OP_META], v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    struct fs_latency l;
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_META, &l) == 0);
    CHECK_EQ_INT(l.count, N);
    CHECK_EQ_INT(l.max_ns, v[N - 1]);
    CHECK(close_above(l.p50_ns, exact_quantile(v, N, 0.5)));
    CHECK(close_above(l.p99_ns, exact_quantile(v, N, 0.99)));
    CHECK(close_above(l.p999_ns, exact_quantile(v, N, 0.999)));
    CHECK_EQ_INT(logfs_get_latency(fs, LOGFS_OP_KINDS, &l), -EINVAL);
    logfs_reset_latency(fs);
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_META, &l) == 0);
    CHECK(l.count == 0 && l.max_ns == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* N random overwrites within `chunks` 4 KiB chunks of one file: each
 * write's simulated time, measured around the call, must match what the fs
 * reports.  Returns the fs's write latency and stats. */
static void timed_writes(uint32_t chunks, struct fs_latency *w, struct logfs_stats *st)
{
    nand_dev *d = dev_of(BLOCKS, 8);
    struct logfs_options o = {.reserve_segments = 4, .dirty_bytes = 256 << 10};
    REQUIRE(d && logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    for (uint32_t c = 0; c < chunks; c++)
        REQUIRE(write_chunk(fs, "/f", 0, c, 0) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_reset_latency(fs);
    struct logfs_stats st0;
    logfs_get_stats(fs, &st0);
    enum { N = 6000 };
    static uint64_t v[N];
    int fd = logfs_open(fs, "/f", O_WRONLY, 0);
    REQUIRE(fd >= 0);
    uint8_t buf[4096];
    memset(buf, 0x5a, sizeof buf);
    uint64_t x = 17;
    for (size_t i = 0; i < N; i++) {
        nand_time_t t0 = nand_now(d);
        REQUIRE(logfs_pwrite(fs, fd, buf, sizeof buf, (xorshift(&x) % chunks) * 4096) == 4096);
        v[i] = nand_now(d) - t0;
    }
    struct fs_latency meta;
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_WRITE, w) == 0);
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_META, &meta) == 0);
    logfs_get_stats(fs, st);
    st->gc_rounds -= st0.gc_rounds;
    qsort(v, N, sizeof v[0], cmp_u64);
    fprintf(stderr, "%u chunks live: write latency p50 %" PRIu64 " p99 %" PRIu64
            " p99.9 %" PRIu64 " max %" PRIu64 " ns, mean %.0f; %" PRIu64 " victims\n",
            chunks, w->p50_ns, w->p99_ns, w->p999_ns, w->max_ns, w->mean_ns, st->gc_rounds);
    CHECK_EQ_INT(w->count, N);
    CHECK_EQ_INT(meta.count, 1); /* the open */
    CHECK_EQ_INT(w->max_ns, v[N - 1]);
    CHECK(close_above(w->p50_ns, exact_quantile(v, N, 0.5)));
    CHECK(close_above(w->p99_ns, exact_quantile(v, N, 0.99)));
    CHECK(close_above(w->p999_ns, exact_quantile(v, N, 0.999)));
    logfs_close(fs, fd);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

TEST(write_latency_matches_the_clock_and_shows_cleaning)
{
    struct fs_latency empty, full;
    struct logfs_stats st_empty, st_full;
    timed_writes(100, &empty, &st_empty);   /* 400 KiB live: no cleaning */
    timed_writes(1000, &full, &st_full);    /* 4 MiB of about 5.6 usable */
    CHECK_EQ_INT(st_empty.gc_rounds, 0);
    CHECK(st_full.gc_rounds > 0);
    /* commits happen in both; only the full device's tail holds cleaning */
    CHECK(full.max_ns > 2 * empty.max_ns);
    CHECK(full.p999_ns > empty.p999_ns);
    CHECK(full.mean_ns > empty.mean_ns);
}

TEST(idle_time_cleans_in_the_background)
{
    nand_dev *d = dev_of(BLOCKS, 9);
    struct logfs_options o = {.reserve_segments = 4, .dirty_bytes = 256 << 10,
                              .gc_idle_free = 40};
    REQUIRE(d && logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    uint64_t x = 23;
    for (uint32_t c = 0; c < 800; c++)
        REQUIRE(write_chunk(fs, "/f", 0, c, 0) == 0);
    for (uint32_t i = 0; i < 4000; i++)
        REQUIRE(write_chunk(fs, "/f", 0, (uint32_t)(xorshift(&x) % 800), 1) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    struct logfs_stats a, b, c;
    logfs_get_stats(fs, &a);
    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(logfs_idle(fs, 0), 0); /* no time, no work */
    logfs_get_stats(fs, &b);
    CHECK_EQ_INT(b.gc_rounds, a.gc_rounds);
    CHECK_EQ_INT(logfs_idle(fs, 30ull * 1000000000), 0);
    logfs_get_stats(fs, &c);
    fprintf(stderr, "idle 30 s: free segments %" PRIu64 " -> %" PRIu64 ", %" PRIu64
            " victims\n", b.free_segments, c.free_segments, c.gc_rounds - b.gc_rounds);
    CHECK(nand_now(d) - t0 >= 30ull * 1000000000);
    CHECK(c.gc_rounds > b.gc_rounds);
    CHECK(c.free_segments > b.free_segments);
    struct fs_latency l;
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_META, &l) == 0);
    uint64_t before = l.count;
    CHECK_EQ_INT(logfs_idle(fs, 1000), 0);
    REQUIRE(logfs_get_latency(fs, LOGFS_OP_META, &l) == 0);
    CHECK_EQ_INT(l.count, before); /* idle time is no host call */
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* The cleaner reads each victim once: a live object it moves is checked
 * (header and payload CRC) and copied from its read of the whole segment,
 * not read again; and what it moved reads back right after a remount. */
TEST(cleaner_moves_objects_from_its_segment_read)
{
    nand_dev *d = dev_of(BLOCKS, 13);
    struct logfs_options o = {.reserve_segments = 4, .dirty_bytes = 256 << 10,
                              .gc_idle_free = 40};
    REQUIRE(d && logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    static uint32_t ver[800];
    memset(ver, 0, sizeof ver);
    uint64_t x = 31;
    for (uint32_t c = 0; c < 800; c++)
        REQUIRE(write_chunk(fs, "/f", 0, c, 0) == 0);
    for (uint32_t i = 0; i < 4000; i++) {
        uint32_t c = (uint32_t)(xorshift(&x) % 800);
        REQUIRE(write_chunk(fs, "/f", 0, c, ++ver[c]) == 0);
    }
    /* a fresh mount: no object of the file is cached */
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    struct logfs_stats a, b;
    struct nand_stats s0, s1;
    logfs_get_stats(fs, &a);
    nand_get_stats(d, &s0);
    CHECK_EQ_INT(logfs_idle(fs, 30ull * 1000000000), 0);
    logfs_get_stats(fs, &b);
    nand_get_stats(d, &s1);
    uint64_t rounds = b.gc_rounds - a.gc_rounds, objects = b.gc_objects - a.gc_objects;
    uint64_t reads = s1.reads - s0.reads;
    fprintf(stderr, "cleaning: %" PRIu64 " victims, %" PRIu64 " objects moved, %" PRIu64
            " reads\n", rounds, objects, reads);
    CHECK(rounds >= 4 && objects >= 100);
    /* a victim's 32 pages, and a few tree blocks (the file's inode and
     * indirect blocks, the segment file's) besides: before, every object
     * moved was read once more */
    CHECK(reads >= rounds * 32);
    CHECK(reads - rounds * 32 < objects / 4);
    CHECK_EQ_INT(check_chunks(fs, "/f", 0, ver, 800), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    CHECK_EQ_INT(check_chunks(fs, "/f", 0, ver, 800), 0);
    REQUIRE(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* The greedy victim comes from an index over the segment table
 * (fs/logfs/gcidx.c); with check_index every pick is compared with the scan it
 * replaced (collect + gcp_min_live over all segments).  Random overwrites
 * at high utilisation on small devices, under greedy and under FIFO (whose
 * stalled batches fall back to greedy), with static wear leveling, a
 * remount half way (the index is built again), a block count that is not a
 * power of two, and a worn part whose failing programs and erases retire
 * segments. */
static void index_run(const char *policy, uint32_t blocks, uint32_t endurance, int wl,
                      uint64_t *checks)
{
    nand_dev *d = dev_worn_of(blocks, 5, endurance);
    REQUIRE(d);
    struct logfs_options o = {.gc_policy = policy, .reserve_segments = 4,
                              .dirty_bytes = 128 << 10, .wear_leveling = wl};
    REQUIRE(logfs_mkfs(d, &o) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &o, &fs) == 0);
    struct fs_statfs sf;
    REQUIRE(logfs_statfs(fs, &sf) == 0);
    /* 90% of what the fs takes */
    uint64_t nchunks = sf.total_bytes / 4096 * 9 / 10, x = 7;
    uint64_t writes = 6 * (uint64_t)blocks * 32 * 2048 / 4096;
    int failed = 0;
    for (uint64_t ch = 0; ch < nchunks && !failed; ch++)
        failed = write_chunk(fs, "/f", 0, (uint32_t)ch, 0) != 0;
    for (uint64_t w = 0; w < writes && !failed; w++) {
        if (w == writes / 2) {
            *checks += lfs_gc_of(fs)->index_checks;
            CHECK_EQ_INT(lfs_gc_of(fs)->index_mismatches, 0);
            REQUIRE(logfs_unmount(fs) == 0);
            REQUIRE(logfs_mount(d, &o, &fs) == 0);
        }
        lfs_gc_of(fs)->check_index = 1;
        uint64_t r = xorshift(&x);
        failed = write_chunk(fs, "/f", 0, (uint32_t)((r >> 8) % nchunks), (uint32_t)w) != 0;
        if (!failed && w % 64 == 63)
            failed = logfs_sync(fs) != 0;
    }
    if (endurance >= 1000000)
        CHECK(!failed);
    *checks += lfs_gc_of(fs)->index_checks;
    CHECK_EQ_INT(lfs_gc_of(fs)->index_mismatches, 0);
    logfs_unmount(fs);
    nand_close(d);
}

TEST(greedy_index_picks_what_the_scan_picks)
{
    uint64_t checks = 0;
    index_run("greedy", 100, 1000000, LOGFS_WL_DYNAMIC, &checks);
    CHECK(checks > 1000);
    uint64_t more = 0;
    index_run("greedy", 128, 1000000, LOGFS_WL_STATIC, &more);
    CHECK(more > 1000);
    more = 0;
    index_run("fifo", 96, 1000000, LOGFS_WL_NONE, &more); /* greedy fallbacks */
    CHECK(more > 0);
    more = 0;
    index_run("greedy", 64, 60, LOGFS_WL_DYNAMIC, &more); /* wears out */
    CHECK(more > 0);
    fprintf(stderr, "index checked against the scan at %" PRIu64 "+ picks\n", checks);
}

/* Uniform random 4 KiB overwrites at u about 0.95 on a 16 MiB part: each
 * cleaning commit rewrites about every indirect block of the file while a
 * victim frees about 4 blocks, so only the cleaner's tight batches
 * (gcroom.c, checked against their bound in test builds) keep the writers
 * going: without them the first writes end in ENOSPC.  Two device sizes of
 * writes, then every block's latest version is read back after a
 * remount. */
TEST(cleaner_keeps_up_at_utilisation_0_95)
{
    nand_dev *d = FX_DEVICE(.blocks = 128, .pages = 64, .quiet = 1, .endurance = 1000000);
    REQUIRE(d);
    struct logfs_options opt = {.reserve_segments = 4, .dirty_bytes = 256 << 10,
                                .max_utilisation = 0.96};
    REQUIRE(logfs_mkfs(d, &opt) == 0);
    logfs *fs;
    REQUIRE(logfs_mount(d, &opt, &fs) == 0);
    struct logfs_stats st;
    logfs_get_stats(fs, &st);
    double want = (0.95 * (double)st.cleanable_bytes - (double)st.live_bytes) /
                  (1 + (double)st.data_overhead_ppm / 1e6);
    uint32_t nblk = (uint32_t)(want / 4096);
    uint32_t *ver = calloc(nblk, sizeof *ver);
    REQUIRE(ver);
    static uint8_t buf[4096];
    int fd = logfs_open(fs, "/f", O_CREAT | O_RDWR, 0644);
    REQUIRE(fd >= 0);
    int ok = 1;
    for (uint32_t b = 0; b < nblk && ok; b++) {
        memset(buf, (int)(b * 7 + 1), sizeof buf);
        ok = logfs_pwrite(fs, fd, buf, sizeof buf, (uint64_t)b * sizeof buf) == (int64_t)sizeof buf;
    }
    REQUIRE(ok);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &st);
    double u = (double)st.live_bytes / (double)st.cleanable_bytes;
    CHECK(u > 0.94 && u < 0.955);
    uint64_t x = 95, writes = 2 * (16u << 20) / sizeof buf, done = 0;
    for (; done < writes; done++) {
        uint32_t b = (uint32_t)(xorshift(&x) % nblk);
        ver[b]++;
        memset(buf, (int)(b * 7 + 1 + ver[b] * 31), sizeof buf);
        if (logfs_pwrite(fs, fd, buf, sizeof buf, (uint64_t)b * sizeof buf) != (int64_t)sizeof buf)
            break;
    }
    printf("  u %.4f: %llu of %llu random writes, %llu victims\n", u,
           (unsigned long long)done, (unsigned long long)writes,
           (unsigned long long)(logfs_get_stats(fs, &st), st.gc_rounds));
    CHECK(done == writes);
    CHECK(logfs_close(fs, fd) == 0);
    CHECK(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, &opt, &fs) == 0);
    fd = logfs_open(fs, "/f", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    uint32_t bad = 0;
    for (uint32_t b = 0; b < nblk; b++) {
        uint8_t want_byte = (uint8_t)(b * 7 + 1 + (done == writes ? ver[b] * 31 : 0));
        if (logfs_pread(fs, fd, buf, sizeof buf, (uint64_t)b * sizeof buf) != (int64_t)sizeof buf ||
            buf[0] != want_byte || buf[4095] != want_byte)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(logfs_close(fs, fd) == 0);
    CHECK(logfs_unmount(fs) == 0);
    free(ver);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(every_policy_keeps_data_through_device_fills);
    RUN(bad_gc_options_are_refused);
    RUN(static_wear_leveling_narrows_the_spread);
    RUN(latency_histogram_against_sorted_samples);
    RUN(write_latency_matches_the_clock_and_shows_cleaning);
    RUN(idle_time_cleans_in_the_background);
    RUN(cleaner_moves_objects_from_its_segment_read);
    RUN(greedy_index_picks_what_the_scan_picks);
    RUN(cleaner_keeps_up_at_utilisation_0_95);
    return test_summary(argv[0]);
}
