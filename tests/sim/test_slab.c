/*
 * test_slab.c -- the fixed-size block allocator (sim/slab.c): blocks carved
 * through several chunks (past the 2 MiB huge-page ones) never overlap,
 * sit on cache lines and keep their bytes while others come and go; freed
 * blocks are reused last freed first; `held` counts the blocks in use and
 * destroy reports those still held.  ASan builds also see any use of a
 * freed block (it is poisoned).
 */
#include "slab.h"
#include "test.h"


static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(uint8_t *const *)a, y = (uintptr_t)*(uint8_t *const *)b;
    return x < y ? -1 : x > y;
}

static void fill(uint8_t *b, size_t n, uint32_t tag)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(tag * 131u + i);
}

static int holds(const uint8_t *b, size_t n, uint32_t tag)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (uint8_t)(tag * 131u + i))
            return 0;
    return 1;
}

static void churn(size_t size, uint32_t nblocks)
{
    struct flashlab_slab s;
    flashlab_slab_init(&s, size);
    CHECK(s.size >= size && s.size % 64 == 0);
    uint8_t **blk = calloc(nblocks, sizeof *blk), **sorted = calloc(nblocks, sizeof *sorted);
    REQUIRE(blk && sorted);
    uint32_t misaligned = 0;
    for (uint32_t i = 0; i < nblocks; i++) {
        REQUIRE((blk[i] = flashlab_slab_get(&s)));
        misaligned += (uintptr_t)blk[i] % 64 != 0;
        fill(blk[i], size, i);
    }
    CHECK(misaligned == 0);
    CHECK(s.held == nblocks);
    memcpy(sorted, blk, nblocks * sizeof *blk);
    qsort(sorted, nblocks, sizeof *sorted, by_address);
    uint32_t overlaps = 0;
    for (uint32_t i = 1; i < nblocks; i++)
        overlaps += (uintptr_t)sorted[i] - (uintptr_t)sorted[i - 1] < size;
    CHECK(overlaps == 0);

    /* every other block back: the next gets take exactly those, last first */
    for (uint32_t i = 0; i < nblocks; i += 2)
        flashlab_slab_put(&s, blk[i]);
    CHECK(s.held == nblocks / 2);
    uint32_t kept = 0, reused = 0;
    for (uint32_t i = 1; i < nblocks; i += 2)
        kept += holds(blk[i], size, i);
    CHECK(kept == nblocks / 2);
    for (uint32_t i = nblocks; i >= 2; i -= 2) {
        uint8_t *b = flashlab_slab_get(&s);
        reused += b == blk[i - 2];
        blk[i - 2] = b;
        fill(b, size, i - 2);
    }
    CHECK(reused == nblocks / 2);
    uint32_t intact = 0;
    for (uint32_t i = 0; i < nblocks; i++)
        intact += holds(blk[i], size, i);
    CHECK(intact == nblocks);

    for (uint32_t i = 0; i < nblocks / 2; i++)
        flashlab_slab_put(&s, blk[i]);
    CHECK(flashlab_slab_destroy(&s) == nblocks - nblocks / 2); /* the rest still held */
    CHECK(!s.chunks && !s.free && s.held == 0);
    free(blk);
    free(sorted);
}

TEST(blocks_through_huge_page_chunks)
{
    churn(4096, 1500); /* 6 MiB: chunks up to 2 MiB and on */
}

TEST(blocks_of_other_sizes)
{
    churn(8200, 600); /* a page table of 256 slots: rounded to lines */
    churn(24, 1500);
    churn(3u << 20, 6); /* larger than a chunk: one a chunk */
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(blocks_through_huge_page_chunks);
    RUN(blocks_of_other_sizes);
    return test_summary(argv[0]);
}
