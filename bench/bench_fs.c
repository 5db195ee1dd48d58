/*
 * bench_fs.c -- LogFS throughput through the whole stack, beside the raw
 * simulator, in the same run.
 *
 * On a 1 GiB SLC device made in code (2048+64 B pages, 64 pages/block,
 * 8192 blocks, fixed seed), through the public fs/logfs/logfs.h API only:
 *   - sequential write of a 256 MiB file in 64 KiB writes (this is also the
 *     fill the next step needs), one sync at the end;
 *   - 200k random 4 KiB overwrites at 4 KiB-aligned offsets within that
 *     file, a sync every 1024 writes, timed after an untimed round of the
 *     same (goal: 200k writes/s on one core);
 *   - the raw simulator's page program rate (nand_program of 2 KiB pages)
 *     on a second device of the same geometry, so that the fs overhead
 *     shows.
 * For both fs phases it reports wall-clock rates, simulated time, and the
 * write amplification (flash bytes programmed / host bytes written, from
 * nand_get_stats).  Appends rows to results/bench.csv.
 */
#include "logfs/logfs.h"
#include "bench_util.h"
#include "nand.h"

#include <malloc.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE 2048u
#define OOB 64u
#define PPB 64u
#define BLOCKS 8192u
#define SEED 20240601u

#define FILE_BYTES (256ull << 20)
#define SEQ_IO (64u << 10)
#define RAND_IO 4096u
#define RAND_WRITES 200000u
#define SYNC_EVERY 1024u
#define GOAL_WPS 200000.0

#define POOL_BYTES (4u << 20) /* random bytes the writes are cut from */

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int make_dev(nand_dev **dev)
{
    struct nand_config cfg;
    nand_config_init(&cfg); /* SLC, NOP 1, default timing, ECC and errors */
    cfg.geo.blocks_per_plane = BLOCKS;
    cfg.geo.pages_per_block = PPB;
    cfg.geo.page_size = PAGE;
    cfg.geo.oob_size = OOB;
    cfg.seed = SEED;
    int rc = nand_create(&cfg, dev);
    if (rc)
        fprintf(stderr, "bench_fs: nand_create: %s\n", nand_strerror(rc));
    return rc;
}

/* What the device did during one phase. */
struct phase {
    double wall_s;
    uint64_t ops, host_bytes;
    struct nand_stats st0, st1;
    nand_time_t t0, t1;
};

static void phase_begin(struct phase *ph, nand_dev *dev)
{
    memset(ph, 0, sizeof *ph);
    nand_get_stats(dev, &ph->st0);
    ph->t0 = nand_now(dev);
    ph->wall_s = wall();
}

static void phase_end(struct phase *ph, nand_dev *dev)
{
    ph->wall_s = wall() - ph->wall_s;
    nand_get_stats(dev, &ph->st1);
    ph->t1 = nand_now(dev);
}

static double phase_wa(const struct phase *ph)
{
    uint64_t progs = ph->st1.programs - ph->st0.programs;
    return ph->host_bytes ? (double)progs * PAGE / (double)ph->host_bytes : 0;
}

static double phase_sim_s(const struct phase *ph)
{
    return (double)(ph->t1 - ph->t0) / 1e9;
}

static void phase_print(const char *name, const struct phase *ph)
{
    const struct nand_stats *a = &ph->st0, *b = &ph->st1;
    printf("  %-10s flash: %" PRIu64 " programs (%.1f MiB), %" PRIu64
           " reads, %" PRIu64 " erases; WA %.3f; simulated %.2f s\n",
           name, b->programs - a->programs,
           (double)(b->programs - a->programs) * PAGE / (1 << 20),
           b->reads - a->reads, b->erases - a->erases, phase_wa(ph),
           phase_sim_s(ph));
}

/* Raw simulator: program every page of 2048 blocks (256 MiB), erase them,
 * best of three after a warm-up fill; returns pages per second. */
static int raw_program_rate(const uint8_t *pool, double *pages_per_s)
{
    nand_dev *dev;
    if (make_dev(&dev))
        return 1;
    const uint32_t blocks = 2048, pool_pages = POOL_BYTES / PAGE;
    uint64_t pages = (uint64_t)blocks * PPB, fails = 0;
    double best = 1e30;
    for (int rep = 0; rep < 4; rep++) { /* rep 0 warms the allocator */
        for (uint32_t b = 0; b < blocks; b++)
            nand_erase(dev, b, NULL);
        double t0 = wall();
        for (uint64_t i = 0; i < pages; i++)
            fails += nand_program(dev, (nand_block_t)(i / PPB), (nand_page_t)(i % PPB),
                                  pool + (i % pool_pages) * PAGE, NULL, NULL) != 0;
        double dt = wall() - t0;
        if (rep && dt < best)
            best = dt;
    }
    nand_close(dev);
    if (fails) {
        fprintf(stderr, "bench_fs: %" PRIu64 " raw programs failed\n", fails);
        return 1;
    }
    *pages_per_s = (double)pages / best;
    return 0;
}

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "bench_fs: %s failed: %" PRId64 "\n", what, rc);
    return 1;
}

/* RAND_WRITES random 4 KiB overwrites within the file, a sync every
 * SYNC_EVERY; slot_of[b] records which pool slot block b now holds. */
static int random_round(logfs *fs, int fd, const uint8_t *pool, uint16_t *slot_of,
                        struct phase *ph, nand_dev *dev)
{
    uint64_t nblk = FILE_BYTES / RAND_IO, pool_slots = POOL_BYTES / RAND_IO;
    int rc;
    phase_begin(ph, dev);
    for (uint32_t i = 0; i < RAND_WRITES; i++) {
        uint64_t r = next_rand();
        uint64_t off = (r % nblk) * RAND_IO;
        uint64_t slot = (r >> 32) % pool_slots;
        slot_of[off / RAND_IO] = (uint16_t)slot;
        int64_t n = logfs_pwrite(fs, fd, pool + slot * RAND_IO, RAND_IO, off);
        if (n != RAND_IO)
            return fail("random logfs_pwrite", n);
        ph->ops++;
        ph->host_bytes += RAND_IO;
        if ((i + 1) % SYNC_EVERY == 0 && (rc = logfs_sync(fs)))
            return fail("logfs_sync", rc);
    }
    if ((rc = logfs_sync(fs)))
        return fail("logfs_sync", rc);
    phase_end(ph, dev);
    return 0;
}

int main(void)
{
    /* As bench_sim: keep freed memory in the heap, so that the simulator's
     * page buffers, freed by erases and allocated again by programs, are
     * not handed back to the kernel and zeroed afresh each time. */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    uint8_t *pool = malloc(POOL_BYTES);
    if (!pool)
        return 1;
    for (size_t i = 0; i < POOL_BYTES; i += 8) {
        uint64_t x = next_rand();
        memcpy(pool + i, &x, 8);
    }

    /* ---- the raw simulator ---------------------------------------------- */
    double raw_pps;
    if (raw_program_rate(pool, &raw_pps))
        return 1;

    /* ---- LogFS ------------------------------------------------------------ */
    nand_dev *dev;
    if (make_dev(&dev))
        return 1;
    /* commits come from the syncs: the dirty limit is above what 1024
     * random writes dirty (4 MiB of data plus indirect blocks) */
    struct logfs_options opt = {
        .block_size = 4096,
        .cache_bytes = 32u << 20,
        .dirty_bytes = 16u << 20,
    };
    int rc;
    logfs *fs;
    if ((rc = logfs_mkfs(dev, &opt)))
        return fail("logfs_mkfs", rc);
    if ((rc = logfs_mount(dev, &opt, &fs)))
        return fail("logfs_mount", rc);
    int fd = logfs_open(fs, "/bench", O_CREAT | O_RDWR, 0644);
    if (fd < 0)
        return fail("logfs_open", fd);

    /* (b) sequential: 256 MiB in 64 KiB writes, then one sync */
    struct phase seq;
    phase_begin(&seq, dev);
    for (uint64_t off = 0; off < FILE_BYTES; off += SEQ_IO) {
        int64_t n = logfs_pwrite(fs, fd, pool + (off % POOL_BYTES), SEQ_IO, off);
        if (n != SEQ_IO)
            return fail("sequential logfs_pwrite", n);
        seq.ops++;
        seq.host_bytes += SEQ_IO;
    }
    if ((rc = logfs_sync(fs)))
        return fail("logfs_sync", rc);
    phase_end(&seq, dev);

    /* (a) random 4 KiB overwrites within the file, a sync every 1024 */
    struct phase rnd;
    uint64_t nblk = FILE_BYTES / RAND_IO, pool_slots = POOL_BYTES / RAND_IO;
    /* which pool slot each block holds, to check the data afterwards
     * (the sequential fill left block b at pool offset b*4K mod pool) */
    uint16_t *slot_of = malloc(nblk * sizeof *slot_of);
    if (!slot_of)
        return 1;
    for (uint64_t b = 0; b < nblk; b++)
        slot_of[b] = (uint16_t)(b % pool_slots);
    /* preconditioning, as for SSDs: one untimed round first, so that the
     * device has been written over and the cleaner runs and the heap has
     * reached the size the device's contents need -- the timed round then
     * measures steady state, not first-touch page faults */
    struct phase warm;
    if (random_round(fs, fd, pool, slot_of, &warm, dev) ||
        random_round(fs, fd, pool, slot_of, &rnd, dev))
        return 1;

    /* the data must still be there: read back 4096 blocks (not timed) */
    struct fs_stat fst;
    if ((rc = logfs_fstat(fs, fd, &fst)) || fst.size != FILE_BYTES)
        return fail("logfs_fstat", rc ? rc : -1);
    uint8_t rd[RAND_IO];
    for (uint32_t i = 0; i < 4096; i++) {
        uint64_t b = next_rand() % nblk;
        int64_t n = logfs_pread(fs, fd, rd, RAND_IO, b * RAND_IO);
        if (n != RAND_IO || memcmp(rd, pool + (uint64_t)slot_of[b] * RAND_IO, RAND_IO))
            return fail("read-back check", n);
    }
    free(slot_of);
    struct logfs_stats ls;
    logfs_get_stats(fs, &ls);
    logfs_close(fs, fd);
    if ((rc = logfs_unmount(fs)))
        return fail("logfs_unmount", rc);
    nand_close(dev);
    free(pool);

    double seq_mibs = (double)seq.host_bytes / (1 << 20) / seq.wall_s;
    double seq_sim_mibs = (double)seq.host_bytes / (1 << 20) / phase_sim_s(&seq);
    double rnd_wps = (double)rnd.ops / rnd.wall_s;
    double rnd_sim_wps = (double)rnd.ops / phase_sim_s(&rnd);
    double raw_mibs = raw_pps * PAGE / (1 << 20);
    /* pages the fs programmed per wall-second, against the raw rate */
    double seq_pps = (double)(seq.st1.programs - seq.st0.programs) / seq.wall_s;
    double rnd_pps = (double)(rnd.st1.programs - rnd.st0.programs) / rnd.wall_s;

    printf("fs 1 GiB SLC, 2048+64 B pages, 64 pages/block, %u blocks, seed %u; "
           "fs block 4096, cache 32 MiB, dirty limit 16 MiB\n", BLOCKS, SEED);
    printf("raw sim: nand_program of 2 KiB pages %.0f pages/s (%.0f MiB/s)\n",
           raw_pps, raw_mibs);
    printf("fs sequential 256 MiB in 64 KiB writes: %.0f MiB/s wall "
           "(%.0f%% of raw program rate; simulated device %.1f MiB/s)\n",
           seq_mibs, 100.0 * seq_mibs / raw_mibs, seq_sim_mibs);
    phase_print("sequential", &seq);
    printf("fs random 4 KiB overwrites (%u, sync every %u): %.0f writes/s wall "
           "(goal %.0f/s on one core: %s); simulated device %.0f writes/s\n",
           RAND_WRITES, SYNC_EVERY, rnd_wps, GOAL_WPS,
           rnd_wps >= GOAL_WPS ? "met" : "not met", rnd_sim_wps);
    phase_print("random", &rnd);
    printf("  fs overhead: the fs programmed %.0f pages/s sequential, %.0f "
           "pages/s random, against %.0f raw; %" PRIu64 " commits, cache "
           "%" PRIu64 " hits / %" PRIu64 " misses\n",
           seq_pps, rnd_pps, raw_pps, ls.commits, ls.cache_hits, ls.cache_misses);

    record("raw_program_2048", raw_pps, "pages/s");
    record("fs_seq_write_64k", seq_mibs, "MiB/s");
    record("fs_seq_write_64k_sim", seq_sim_mibs, "MiB/s");
    record("fs_seq_write_wa", phase_wa(&seq), "ratio");
    record("fs_rand_write_4k", rnd_wps, "writes/s");
    record("fs_rand_write_4k_sim", rnd_sim_wps, "writes/s");
    record("fs_rand_write_wa", phase_wa(&rnd), "ratio");
    record("fs_rand_write_goal", rnd_wps / GOAL_WPS, "ratio");
    return 0;
}
