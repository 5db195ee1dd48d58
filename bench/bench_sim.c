/*
 * bench_sim.c -- simulator throughput beside memcpy, in the same run.
 *
 * Programs every page of a device with random data and reads it all back
 * with the bit-error model and ECC on, then copies the same bytes in and
 * out with memcpy.  Reports both rates, their ratio (goal: within 3x), and
 * the memory the simulator holds per GiB of programmed data (resident).  Then the same
 * with `compress` on: 1 GiB of content-light pages (a JFFS2-style node
 * header of ~70 unique bytes, then one byte value repeated), and random
 * pages, which compress cannot shrink (its cost).  Appends rows to
 * results/bench.csv.
 */
#include "bench_util.h"
#include "nand.h"

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Content-light pages: a node header of 40-99 unique bytes, then data
 * of one byte value; the spare erased but for a short tag. */
static void light_page(uint8_t *p, uint32_t page_size, uint32_t oob, uint64_t *x)
{
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    uint32_t hdr = 40 + (uint32_t)(*x % 60);
    uint8_t v = (uint8_t)(*x >> 32);
    for (uint32_t i = 0; i < hdr; i++) {
        *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
        p[i] = (uint8_t)*x;
    }
    memset(p + hdr, v, page_size - hdr);
    memset(p + page_size, 0xff, oob);
    memcpy(p + page_size + 2, x, oob >= 10 ? 8 : 0);
}

/* The benchmark part: blocks of 64 pages of page_size + oob, 4 partial
 * programs a page, the defaults otherwise. */
static void bench_config(struct nand_config *cfg, uint32_t page_size, uint32_t oob,
                         uint32_t blocks)
{
    nand_config_init(cfg);
    cfg->geo.blocks_per_plane = blocks;
    cfg->geo.pages_per_block = 64;
    cfg->geo.page_size = page_size;
    cfg->geo.oob_size = oob;
    cfg->nop = 4;
}

/* compress on: program+read rate and what 1 GiB of such pages holds */
static int run_compress(uint32_t page_size, uint32_t oob, uint32_t blocks,
                        int light)
{
    struct nand_config cfg;
    bench_config(&cfg, page_size, oob, blocks);
    cfg.compress = 1;
    nand_dev *dev;
    if (nand_create(&cfg, &dev))
        return 1;
    uint64_t pages = (uint64_t)blocks * 64, bytes = pages * page_size;
    uint32_t pool_pages = 1024, pb = page_size + oob;
    uint8_t *pool = malloc((size_t)pool_pages * pb);
    uint8_t *rd = malloc(page_size);
    uint64_t x = 88172645463325252ULL;
    for (uint32_t i = 0; i < pool_pages; i++) {
        if (light) {
            light_page(pool + (size_t)i * pb, page_size, oob, &x);
        } else {
            for (uint32_t j = 0; j < pb; j++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                pool[(size_t)i * pb + j] = (uint8_t)x;
            }
        }
    }
    long rss0 = proc_status_kib("VmRSS");
    for (uint64_t i = 0; i < pages; i++) {
        const uint8_t *pg = pool + (i % pool_pages) * pb;
        nand_program(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64), pg,
                     pg + page_size, NULL);
    }
    long rss1 = proc_status_kib("VmRSS");
    struct nand_stats st;
    nand_get_stats(dev, &st);
    double sim_s = 1e30, t0;
    uint64_t bad = 0;
    for (int rep = 0; rep < 3; rep++) {
        for (uint32_t b = 0; b < blocks; b++)
            nand_erase(dev, b, NULL);
        t0 = wall();
        for (uint64_t i = 0; i < pages; i++) {
            const uint8_t *pg = pool + (i % pool_pages) * pb;
            nand_program(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64), pg,
                         pg + page_size, NULL);
        }
        for (uint64_t i = 0; i < pages; i++)
            bad += nand_read(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64),
                             rd, NULL, NULL) != 0;
        double dt = wall() - t0;
        sim_s = dt < sim_s ? dt : sim_s;
    }
    double mib = (double)bytes / (1 << 20), gib = (double)bytes / (1 << 30);
    double held = (double)st.bytes_stored / gib;
    double heap = (double)(rss1 - rss0) * 1024 / gib;
    const char *what = light ? "content-light" : "random";
    printf("sim %u B %s pages, compress: program+read %.0f MiB/s; per GiB "
           "programmed %.1f MiB of page bytes held (bytes_stored), %.1f MiB "
           "resident; %" PRIu64 " uncorrectable reads\n", page_size, what,
           mib / sim_s, held / (1 << 20), heap / (1 << 20), bad);
    char name[80];
    snprintf(name, sizeof name, "sim_compress_%s_prog_read_%u", what, page_size);
    record(name, mib / sim_s, "MiB/s");
    snprintf(name, sizeof name, "sim_compress_%s_stored_per_gib_%u", what, page_size);
    record(name, held, "bytes");
    snprintf(name, sizeof name, "sim_compress_%s_heap_per_gib_%u", what, page_size);
    record(name, heap, "bytes");
    free(pool);
    free(rd);
    nand_close(dev);
    return 0;
}

static int run(uint32_t page_size, uint32_t oob, uint32_t blocks)
{
    struct nand_config cfg;
    bench_config(&cfg, page_size, oob, blocks);
    nand_dev *dev;
    if (nand_create(&cfg, &dev))
        return 1;
    uint64_t pages = (uint64_t)blocks * 64, bytes = pages * page_size;
    /* a pool of random pages, reused so generation is not measured */
    uint32_t pool_pages = 1024;
    uint8_t *pool = malloc((size_t)pool_pages * page_size);
    uint8_t *rd = malloc(page_size);
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < (size_t)pool_pages * page_size; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        pool[i] = (uint8_t)x;
    }
    /* A first fill measures the memory held and warms the allocator, so
     * that neither side of the comparison pays first-touch page faults. */
    long rss0 = proc_status_kib("VmRSS");
    for (uint64_t i = 0; i < pages; i++)
        nand_program(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64),
                     pool + (i % pool_pages) * page_size, NULL, NULL);
    long rss1 = proc_status_kib("VmRSS");
    double sim_s = 1e30, t0;
    uint64_t bad = 0;
    for (int rep = 0; rep < 3; rep++) { /* best of three */
        for (uint32_t b = 0; b < blocks; b++)
            nand_erase(dev, b, NULL);
        t0 = wall();
        for (uint64_t i = 0; i < pages; i++)
            nand_program(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64),
                         pool + (i % pool_pages) * page_size, NULL, NULL);
        for (uint64_t i = 0; i < pages; i++)
            bad += nand_read(dev, (nand_block_t)(i / 64), (nand_page_t)(i % 64),
                             rd, NULL, NULL) != 0;
        double dt = wall() - t0;
        sim_s = dt < sim_s ? dt : sim_s;
    }
    struct nand_stats st;
    nand_get_stats(dev, &st);

    /* memcpy of the same bytes in (to fresh memory) and back out */
    uint8_t *store = malloc(bytes);
    memset(store, 0, bytes);
    double mem_s = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        t0 = wall();
        for (uint64_t i = 0; i < pages; i++)
            memcpy(store + i * page_size, pool + (i % pool_pages) * page_size,
                   page_size);
        for (uint64_t i = 0; i < pages; i++)
            memcpy(rd, store + i * page_size, page_size);
        double dt = wall() - t0;
        mem_s = dt < mem_s ? dt : mem_s;
    }
    volatile uint8_t sink = rd[page_size / 2];
    (void)sink;

    double mib = (double)bytes / (1 << 20);
    double held_per_gib = (double)(rss1 - rss0) * 1024 / ((double)bytes / (1 << 30));
    printf("sim %u B pages: program+read %.0f MiB/s, memcpy in+out %.0f MiB/s, "
           "ratio %.2fx (goal <= 3x); %" PRIu64 " uncorrectable reads\n",
           page_size, mib / sim_s, mib / mem_s, sim_s / mem_s, bad);
    printf("sim %u B pages: %.3f GiB resident per GiB programmed (page "
           "buffers with spare, tables, allocator overhead)\n", page_size, held_per_gib / (1 << 30));
    char name[64];
    snprintf(name, sizeof name, "sim_prog_read_%u", page_size);
    record(name, mib / sim_s, "MiB/s");
    snprintf(name, sizeof name, "memcpy_in_out_%u", page_size);
    record(name, mib / mem_s, "MiB/s");
    snprintf(name, sizeof name, "sim_vs_memcpy_%u", page_size);
    record(name, sim_s / mem_s, "ratio");
    snprintf(name, sizeof name, "sim_bytes_per_gib_%u", page_size);
    record(name, held_per_gib, "bytes");
    free(store);
    free(pool);
    free(rd);
    nand_close(dev);
    return 0;
}

/* Each measurement in a child of its own: the memory held is measured as
 * resident memory (the page buffers live in the simulator's own mappings,
 * which mallinfo does not count), and memory an earlier measurement freed
 * but the process kept would hide part of the next one's. */
#define IN_CHILD(rc, call)                                                      \
    do {                                                                       \
        fflush(stdout);                                                        \
        pid_t pid_ = fork();                                                   \
        if (pid_ == 0)                                                         \
            exit((call) ? 1 : 0);                                              \
        int st_ = 0;                                                           \
        if (pid_ < 0 || waitpid(pid_, &st_, 0) < 0 || !WIFEXITED(st_) ||       \
            WEXITSTATUS(st_))                                                  \
            rc = 1;                                                            \
    } while (0)

int main(void)
{
    /* Keep freed memory in the heap: otherwise glibc hands it back to the
     * kernel between passes and the simulator's side pays page faults the
     * pre-touched memcpy side does not. */
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    int rc = 0;
    IN_CHILD(rc, run(2048, 64, 2048));   /* 256 MiB of 2 KiB pages */
    IN_CHILD(rc, run(4096, 224, 1024));  /* 256 MiB of 4 KiB pages */
    IN_CHILD(rc, run_compress(2048, 64, 8192, 1));  /* 1 GiB of content-light pages */
    IN_CHILD(rc, run_compress(4096, 224, 4096, 1));
    IN_CHILD(rc, run_compress(2048, 64, 2048, 0));  /* 256 MiB of random pages */
    return rc;
}
