/*
 * test_sim_journal.c -- IMAGE.journal (docs/FORMAT.md, "The image
 * journal"): nand_sync appends what changed, nand_open replays it,
 * nand_save folds it (and a sync, once the journal outgrows the image);
 * a torn last record is ignored, a damaged one in the middle is an error
 * naming the journal, a journal of an older image is ignored.
 */
#include "nand.h"
#include "fixture.h"

#include <unistd.h>

/* Differences between two devices: config-independent state, clock,
 * statistics and every page's raw bytes (the test devices flip no bits). */
static int differences(nand_dev *a, nand_dev *b)
{
    int diff = nand_now(a) != nand_now(b);
    struct nand_stats sa, sb;
    nand_get_stats(a, &sa);
    nand_get_stats(b, &sb);
    /* the memory held is no state (a snapshot keeps buffers alive) */
    sa.pages_stored = sb.pages_stored = sa.bytes_stored = sb.bytes_stored = 0;
    diff += memcmp(&sa, &sb, sizeof sa) != 0;
    const struct nand_config *c = nand_get_config(a);
    uint8_t x[PB], y[PB];
    for (nand_block_t blk = 0; blk < nand_blocks(c); blk++) {
        struct nand_block_info ia, ib;
        nand_block_info(a, blk, &ia);
        nand_block_info(b, blk, &ib);
        diff += ia.pe_cycles != ib.pe_cycles || ia.endurance != ib.endurance ||
                ia.reads_since_erase != ib.reads_since_erase ||
                ia.pages_programmed != ib.pages_programmed ||
                ia.factory_bad != ib.factory_bad || ia.grown_bad != ib.grown_bad ||
                ia.marked_bad != ib.marked_bad || ia.erase_torn != ib.erase_torn;
        for (nand_page_t p = 0; p < c->geo.pages_per_block; p++) {
            nand_read_raw(a, blk, p, x, x + PS, NULL);
            nand_read_raw(b, blk, p, y, y + PS, NULL);
            diff += memcmp(x, y, PB) != 0;
        }
    }
    return diff;
}

/* A copy of the device's state as an image would hold it: the live
 * device itself is changed by the reads of differences(). */
static nand_dev *reopen(const char *path)
{
    nand_dev *d = NULL;
    char err[256];
    if (nand_open(path, &d, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    return d;
}

static nand_dev *device(int compress)
{
    struct nand_config c;
    fx_small_config(&c);
    c.compress = compress;
    c.dedup = compress;
    return fx_create(&c);
}

/* Some changes: programs (one compressible), an erase, reads, wear. */
static void work(nand_dev *d, uint32_t round)
{
    uint8_t data[PB];
    nand_erase(d, 3 + round, NULL);
    for (nand_page_t p = 0; p < 3; p++) {
        fx_fill(data, PB, round * 100 + p);
        if (p == 2)
            memset(data + 16, 0xa5, PB - 16);
        nand_program(d, 3 + round, p, data, data + PS, NULL);
    }
    nand_read(d, 1, 0, data, NULL, NULL);
    nand_set_wear(d, 20 + round, 500 + round);
    nand_erase(d, 2, NULL);
    nand_advance(d, 1000000);
}

static char journal[512];
static const char *image(const char *name)
{
    const char *p = tmp_path(name);
    snprintf(journal, sizeof journal, "%s.journal", p);
    unlink(p);
    unlink(journal);
    return p;
}

TEST(sync_appends_and_open_replays)
{
    for (int compress = 0; compress < 2; compress++) {
        const char *path = image("a.img");
        nand_dev *d = device(compress);
        REQUIRE(d);
        work(d, 0);
        CHECK_EQ_INT(nand_sync(d, path), NAND_OK); /* no image yet: saved whole */
        CHECK(fx_file_size(path) > 0);
        CHECK(access(journal, F_OK) != 0);
        long long img = fx_file_size(path);
        for (uint32_t round = 1; round <= 3; round++) {
            work(d, round);
            CHECK_EQ_INT(nand_sync(d, path), NAND_OK);
            CHECK_EQ_INT(fx_file_size(path), img); /* the image is not rewritten */
            nand_dev *e = reopen(path);
            REQUIRE(e);
            CHECK_EQ_INT(differences(d, e), 0);
            nand_close(e);
        }
        /* one page program since the last sync: that page, not its block
         * (which holds 3 more) nor the device (the reads of differences()
         * are synced first) */
        CHECK_EQ_INT(nand_sync(d, path), NAND_OK);
        long long before = fx_file_size(journal);
        uint8_t data[PB];
        fx_fill(data, PB, 9);
        CHECK_EQ_INT(nand_program(d, 4, 3, data, data + PS, NULL), NAND_OK);
        CHECK_EQ_INT(nand_sync(d, path), NAND_OK);
        CHECK(fx_file_size(journal) - before < PB + 1024);
        nand_dev *e1 = reopen(path);
        REQUIRE(e1);
        CHECK_EQ_INT(differences(d, e1), 0);
        nand_close(e1);
        /* a save folds the journal into the image */
        CHECK_EQ_INT(nand_save(d, path), NAND_OK);
        CHECK(access(journal, F_OK) != 0);
        work(d, 5);
        CHECK_EQ_INT(nand_sync(d, path), NAND_OK);
        CHECK(access(journal, F_OK) == 0);
        nand_dev *e = reopen(path);
        REQUIRE(e);
        CHECK_EQ_INT(differences(d, e), 0);
        /* a device opened with a journal appends to it */
        work(e, 6);
        CHECK_EQ_INT(nand_sync(e, path), NAND_OK);
        nand_dev *f = reopen(path);
        REQUIRE(f);
        CHECK_EQ_INT(differences(e, f), 0);
        nand_close(f);
        nand_close(e);
        nand_close(d);
    }
}

/* Two synced states: the image plus one record (kept as a copy of the
 * journal), then a second record. */
static nand_dev *two_records(const char *path, uint8_t **first, size_t *nfirst)
{
    nand_dev *d = device(0);
    if (!d)
        return NULL;
    work(d, 0);
    nand_save(d, path);
    work(d, 1);
    nand_sync(d, path);
    *first = fx_slurp(journal, nfirst);
    work(d, 2);
    nand_sync(d, path);
    return d;
}

TEST(a_torn_last_record_is_ignored)
{
    const char *path = image("torn.img");
    uint8_t *first;
    size_t nfirst, nall;
    nand_dev *d = two_records(path, &first, &nfirst);
    REQUIRE(d && first);
    uint8_t *all = fx_slurp(journal, &nall);
    REQUIRE(all && nall > nfirst + 64);
    /* the state of the first sync, as an image of its own */
    REQUIRE(fx_spit(journal, first, nfirst) == 0);
    nand_dev *want = reopen(path);
    REQUIRE(want);
    const char *want_path = tmp_path("want.img");
    REQUIRE(nand_save(want, want_path) == 0);
    nand_close(want);
    /* cut anywhere in the second record: its header, payload or CRC */
    size_t cuts[] = {nfirst + 1, nfirst + 23, nfirst + 24, nfirst + 100,
                     (nfirst + nall) / 2, nall - 8, nall - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        REQUIRE(fx_spit(journal, all, cuts[i]) == 0);
        nand_dev *e = reopen(path), *w = reopen(want_path);
        CHECK(e && w);
        if (e && w)
            CHECK_EQ_INT(differences(w, e), 0);
        nand_close(w);
        nand_close(e);
    }
    /* the whole last record there but damaged: also torn */
    all[nall - 20] ^= 0x40;
    REQUIRE(fx_spit(journal, all, nall) == 0);
    nand_dev *e = reopen(path);
    REQUIRE(e);
    want = reopen(want_path);
    REQUIRE(want);
    CHECK_EQ_INT(differences(want, e), 0);
    nand_close(want);
    /* the next sync writes over the torn record */
    work(e, 7);
    CHECK_EQ_INT(nand_sync(e, path), NAND_OK);
    nand_dev *f = reopen(path);
    REQUIRE(f);
    CHECK_EQ_INT(differences(e, f), 0);
    nand_close(f);
    nand_close(e);
    nand_close(d);
    free(all);
    free(first);
}

TEST(a_damaged_record_in_the_middle_is_an_error)
{
    const char *path = image("bad.img");
    uint8_t *first;
    size_t nfirst, nall;
    nand_dev *d = two_records(path, &first, &nfirst);
    REQUIRE(d && first);
    uint8_t *all = fx_slurp(journal, &nall);
    REQUIRE(all);
    size_t spots[] = {48 + 3 /* magic */, 48 + 10 /* seq */, 48 + 200, nfirst - 3};
    for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
        all[spots[i]] ^= 0x10;
        REQUIRE(fx_spit(journal, all, nall) == 0);
        nand_dev *e = NULL;
        char err[512] = "";
        CHECK_EQ_INT(nand_open(path, &e, err, sizeof err), NAND_E_CORRUPT);
        CHECK(e == NULL);
        CHECK(strstr(err, journal) != NULL);
        CHECK(strstr(err, "record 1") != NULL);
        CHECK(strstr(err, "damaged") != NULL);
        all[spots[i]] ^= 0x10;
    }
    /* a damaged header */
    all[5] ^= 1;
    REQUIRE(fx_spit(journal, all, nall) == 0);
    nand_dev *e = NULL;
    char err[512] = "";
    CHECK_EQ_INT(nand_open(path, &e, err, sizeof err), NAND_E_CORRUPT);
    CHECK(strstr(err, journal) != NULL);
    /* zeros after the last record (space a crash allocated): ignored */
    all[5] ^= 1;
    uint8_t *z = calloc(1, nall + 4096);
    REQUIRE(z);
    memcpy(z, all, nall);
    REQUIRE(fx_spit(journal, z, nall + 4096) == 0);
    e = reopen(path);
    CHECK(e != NULL);
    if (e)
        CHECK_EQ_INT(differences(d, e), 0);
    nand_close(e);
    free(z);
    nand_close(d);
    free(all);
    free(first);
}

TEST(a_journal_of_an_older_image_is_ignored)
{
    /* a crash between a save's rename and its unlink of the journal */
    const char *path = image("stale.img");
    nand_dev *d = device(0);
    REQUIRE(d);
    work(d, 0);
    REQUIRE(nand_save(d, path) == 0);
    work(d, 1);
    REQUIRE(nand_sync(d, path) == 0);
    size_t n;
    uint8_t *old = fx_slurp(journal, &n);
    REQUIRE(old);
    work(d, 2);
    REQUIRE(nand_save(d, path) == 0);
    REQUIRE(fx_spit(journal, old, n) == 0);
    nand_dev *e = reopen(path);
    REQUIRE(e);
    CHECK_EQ_INT(differences(d, e), 0);
    /* and the next sync starts a new journal for this image */
    work(e, 3);
    CHECK_EQ_INT(nand_sync(e, path), NAND_OK);
    nand_dev *f = reopen(path);
    REQUIRE(f);
    CHECK_EQ_INT(differences(e, f), 0);
    nand_close(f);
    nand_close(e);
    nand_close(d);
    free(old);
}

/* Random programs (whole and partial), erases, reads, wear, snapshot
 * restores and torn programs, synced at random points: each sync must
 * reopen as the device is. */
TEST(random_operations_replay_exactly)
{
    for (int compress = 0; compress < 2; compress++) {
        const char *path = image("random.img");
        struct nand_config c;
        fx_small_config(&c);
        c.nop = 4;
        c.compress = c.dedup = compress;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        REQUIRE(nand_save(d, path) == 0);
        nand_snapshot *snap = NULL;
        uint64_t rng = 42 + (uint64_t)compress;
        uint8_t data[PB];
        int syncs = 0, bad = 0;
        for (int i = 0; i < 400; i++) {
            uint64_t r = fx_next(&rng);
            nand_block_t b = (nand_block_t)(r % 12);
            struct nand_block_info bi;
            nand_block_info(d, b, &bi);
            switch ((r >> 8) % 10) {
            case 0:
                nand_erase(d, b, NULL);
                break;
            case 1: /* a partial program of the last page */
                if (bi.pages_programmed) {
                    memset(data, 0, 64);
                    nand_program_col(d, b, bi.pages_programmed - 1, (uint32_t)(r >> 20) % PS,
                                     data, 16, NULL);
                }
                break;
            case 2:
                nand_read(d, b, 0, data, NULL, NULL);
                break;
            case 3:
                if (!snap)
                    nand_snapshot_take(d, &snap);
                else if (nand_snapshot_restore(d, snap) == 0) {
                    nand_snapshot_free(snap);
                    snap = NULL;
                }
                break;
            case 4: /* a torn program */
                if (bi.pages_programmed < 16) {
                    fx_fill(data, PB, r);
                    nand_cut_after_ops(d, 0, 0.5);
                    nand_program(d, b, bi.pages_programmed, data, data + PS, NULL);
                    nand_power_on(d);
                }
                break;
            default:
                if (bi.pages_programmed < 16) {
                    fx_fill(data, PB, r);
                    if ((r >> 16) & 1)
                        memset(data + 100, 0x33, PB - 100); /* compressible */
                    nand_program(d, b, bi.pages_programmed + (uint32_t)((r >> 17) & 1) *
                                 (bi.pages_programmed < 15), data, data + PS, NULL);
                }
            }
            if ((r >> 40) % 8 == 0) {
                REQUIRE(nand_sync(d, path) == NAND_OK);
                syncs++;
                nand_dev *e = reopen(path);
                REQUIRE(e);
                bad += differences(d, e) != 0;
                nand_close(e);
            }
        }
        CHECK(syncs > 20);
        CHECK_EQ_INT(bad, 0);
        nand_snapshot_free(snap);
        nand_close(d);
    }
}

TEST(a_journal_larger_than_its_image_is_folded)
{
    /* syncs of 34 KiB each: past 1 MiB (and the image) a sync saves whole */
    const char *path = image("fold.img");
    nand_dev *d = device(0);
    REQUIRE(d);
    REQUIRE(nand_save(d, path) == 0);
    uint8_t data[PB];
    long long most = 0;
    int folded = 0;
    for (nand_block_t b = 10; b < 60; b++) {
        for (nand_page_t p = 0; p < 16; p++) {
            fx_fill(data, PB, b * 16 + p);
            nand_program(d, b, p, data, data + PS, NULL);
        }
        long long before = fx_file_size(journal);
        REQUIRE(nand_sync(d, path) == NAND_OK);
        long long after = fx_file_size(journal);
        folded += after < before;
        if (after > most)
            most = after;
    }
    CHECK(folded >= 1);
    CHECK(most < (1 << 20) + 2 * 16 * PB + 4096);
    nand_dev *e = reopen(path);
    REQUIRE(e);
    CHECK_EQ_INT(differences(d, e), 0);
    nand_close(e);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("journal")) {
        perror("mkdtemp");
        return 1;
    }
    RUN(sync_appends_and_open_replays);
    RUN(a_torn_last_record_is_ignored);
    RUN(a_damaged_record_in_the_middle_is_an_error);
    RUN(a_journal_of_an_older_image_is_ignored);
    RUN(a_journal_larger_than_its_image_is_folded);
    RUN(random_operations_replay_exactly);
    tmp_dir_remove();
    return test_summary(argv[0]);
}
