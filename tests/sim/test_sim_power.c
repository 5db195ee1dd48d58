/*
 * test_sim_power.c -- power cuts (docs/simulator.md "Power loss"): cut
 * after N operations, at a time, by callback; what torn programs and
 * erases leave (sim/damage.c, codeword by codeword through ECC); MLC
 * paired-page corruption; snapshots.
 */
#include "nand.h"
#include "fixture.h"

#define CWB 512u

/* Every device call that touches the flash fails while the power is off. */
static int all_calls_fail(nand_dev *d)
{
    uint8_t buf[PB];
    int bad = 0;
    bad += nand_read(d, 0, 0, buf, NULL, NULL) != NAND_E_POWER;
    bad += nand_read_raw(d, 0, 0, buf, NULL, NULL) != NAND_E_POWER;
    bad += nand_read_col(d, 0, 0, 0, buf, 4, NULL) != NAND_E_POWER;
    bad += nand_program(d, 100, 0, buf, NULL, NULL) != NAND_E_POWER;
    bad += nand_program_col(d, 100, 0, 0, buf, 4, NULL) != NAND_E_POWER;
    bad += nand_erase(d, 100, NULL) != NAND_E_POWER;
    bad += nand_is_bad(d, 100) != NAND_E_POWER;
    bad += nand_mark_bad(d, 100) != NAND_E_POWER;
    bad += nand_read(d, 9999, 0, buf, NULL, NULL) != NAND_E_POWER;
    struct nand_op op = {.kind = NAND_OP_ERASE, .block = 100};
    bad += nand_submit(d, &op) != NAND_E_POWER;
    bad += op.status != NAND_E_POWER;
    bad += nand_is_powered(d) != 0;
    return bad;
}

TEST(cut_after_ops_tears_the_next_program)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[4][PB], buf[PB];
    for (int i = 0; i < 4; i++)
        fx_fill(data[i], PB, 1 + (uint64_t)i);
    nand_cut_after_ops(d, 3, 0.5);
    for (nand_page_t p = 0; p < 3; p++) {
        CHECK_EQ_INT(nand_program(d, 2, p, data[p], data[p] + PS, NULL), NAND_OK);
        /* reads are not state-changing and do not count */
        CHECK_EQ_INT(nand_read(d, 2, p, buf, buf + PS, NULL), NAND_OK);
    }
    CHECK(nand_is_powered(d));
    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(nand_program(d, 2, 3, data[3], data[3] + PS, NULL), NAND_E_POWER);
    CHECK(!nand_is_powered(d));
    /* the clock stops at the cut: data in, then half of tPROG */
    uint64_t in = (2ull + t->addr_cycles) * t->t_cycle_ns + PB * t->t_cycle_ns;
    CHECK_EQ_INT(nand_now(d), t0 + in + t->t_prog_ns / 2);
    CHECK_EQ_INT(all_calls_fail(d), 0);
    nand_time_t off = nand_now(d);
    CHECK_EQ_INT(nand_wait(d), off);

    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.power_cuts, 1);
    CHECK_EQ_INT(st.torn_programs, 1);
    CHECK_EQ_INT(st.programs, 3);

    nand_power_on(d);
    CHECK(nand_is_powered(d));
    for (nand_page_t p = 0; p < 3; p++) {
        CHECK_EQ_INT(nand_read(d, 2, p, buf, buf + PS, NULL), NAND_OK);
        CHECK(!memcmp(buf, data[p], PB));
    }
    /* half of a random page's 1->0 bits: every codeword is far from both
     * the old and the new content */
    CHECK_EQ_INT(nand_read(d, 2, 3, buf, buf + PS, NULL), NAND_E_ECC);
    CHECK(memcmp(buf, data[3], PB) != 0);
    CHECK(!fx_all(buf, PS, 0xff));
    /* the raw content lies between: only bits the program meant to clear
     * are cleared, about half of them */
    REQUIRE(nand_read_raw(d, 2, 3, buf, buf + PS, NULL) == NAND_OK);
    uint32_t want0 = 0, got0 = 0, stray = 0;
    for (uint32_t i = 0; i < PB; i++) {
        want0 += (uint32_t)__builtin_popcount((uint8_t)~data[3][i]);
        got0 += (uint32_t)__builtin_popcount((uint8_t)~buf[i]);
        stray += (uint32_t)__builtin_popcount((uint8_t)(~buf[i] & data[3][i]));
    }
    CHECK_EQ_INT(stray, 0);
    CHECK_NEAR((double)got0 / want0, 0.5, 0.05);
    /* a torn page is not erased */
    CHECK_EQ_INT(nand_program(d, 2, 3, data[3], NULL, NULL), NAND_E_NOT_ERASED);
    CHECK_EQ_INT(nand_program(d, 2, 4, data[3], NULL, NULL), NAND_OK);
    /* the cut is not armed any more */
    CHECK_EQ_INT(nand_program(d, 2, 5, data[3], NULL, NULL), NAND_OK);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.power_cuts, 1);
    nand_close(d);
}

/* Tear a program of `data` into an erased page with fraction frac. */
static int tear_program(nand_dev *d, nand_block_t b, nand_page_t p,
                        const uint8_t *data, double frac)
{
    nand_cut_after_ops(d, 0, frac);
    int rc = nand_program(d, b, p, data, data + PS, NULL);
    nand_power_on(d);
    return rc;
}

TEST(torn_program_outcome_follows_the_fraction)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 5);

    /* nothing of the array time done: reads as erased, yet is not */
    CHECK_EQ_INT(tear_program(d, 3, 0, data, 0.0), NAND_E_POWER);
    CHECK_EQ_INT(nand_read(d, 3, 0, buf, buf + PS, NULL), NAND_OK);
    CHECK(fx_all(buf, PB, 0xff));
    CHECK_EQ_INT(nand_program(d, 3, 0, data, NULL, NULL), NAND_E_NOT_ERASED);

    /* all of it: the intended data */
    CHECK_EQ_INT(tear_program(d, 3, 1, data, 1.0), NAND_E_POWER);
    CHECK_EQ_INT(nand_read(d, 3, 1, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));

    /* a tiny fraction still moves more than t bits of a random page */
    CHECK_EQ_INT(tear_program(d, 3, 2, data, 0.02), NAND_E_POWER);
    CHECK_EQ_INT(nand_read(d, 3, 2, buf, buf + PS, NULL), NAND_E_ECC);

    /* per codeword: codeword 0 random, codeword 1 with only 2 bits to
     * clear (within t of both outcomes: reads as intended), the rest
     * erased */
    uint8_t mix[PB];
    memset(mix, 0xff, PB);
    memcpy(mix, data, CWB);
    mix[CWB + 7] = 0xfe;
    mix[CWB + 300] = 0x7f;
    CHECK_EQ_INT(tear_program(d, 3, 3, mix, 0.5), NAND_E_POWER);
    uint8_t cw[CWB];
    CHECK_EQ_INT(nand_read_col(d, 3, 3, 0, cw, CWB, NULL), NAND_E_ECC);
    CHECK_EQ_INT(nand_read_col(d, 3, 3, CWB, cw, CWB, NULL), NAND_OK);
    CHECK(!memcmp(cw, mix + CWB, CWB));
    CHECK_EQ_INT(nand_read_col(d, 3, 3, 2 * CWB, cw, CWB, NULL), NAND_OK);
    CHECK(fx_all(cw, CWB, 0xff));
    CHECK_EQ_INT(nand_read(d, 3, 3, NULL, buf + PS, NULL), NAND_OK);
    CHECK(fx_all(buf + PS, OS, 0xff));
    /* the damage is persistent: every read of codeword 0 fails */
    for (int i = 0; i < 20; i++)
        CHECK_EQ_INT(nand_read_col(d, 3, 3, 10, cw, 10, NULL), NAND_E_ECC);

    /* the boundaries, torn before any cell moved (frac 0): a codeword
     * with exactly t bits to program is within t of the intended content
     * and ECC returns that; with t + 1 it is within t of erased only */
    const uint32_t tc = nand_get_config(d)->ecc.correct_bits;
    REQUIRE(tc >= 1 && tc < 8);
    uint8_t edge[PB];
    memset(edge, 0xff, PB);
    edge[10] = (uint8_t)(0xff << tc);            /* codeword 0: t zeros */
    edge[CWB + 20] = (uint8_t)(0xff << (tc + 1)); /* codeword 1: t + 1 */
    CHECK_EQ_INT(tear_program(d, 3, 4, edge, 0.0), NAND_E_POWER);
    CHECK_EQ_INT(nand_read_col(d, 3, 4, 0, cw, CWB, NULL), NAND_OK);
    CHECK(!memcmp(cw, edge, CWB));
    CHECK_EQ_INT(nand_read_col(d, 3, 4, CWB, cw, CWB, NULL), NAND_OK);
    CHECK(fx_all(cw, CWB, 0xff));

    /* frac < 0: drawn from the seed, in (0, 1), reproducibly */
    nand_time_t at[2];
    for (int k = 0; k < 2; k++) {
        nand_dev *e = fx_small_dev();
        REQUIRE(e);
        REQUIRE(nand_program(e, 1, 0, data, NULL, NULL) == NAND_OK);
        nand_time_t t0 = nand_now(e);
        nand_cut_after_ops(e, 0, -1);
        CHECK_EQ_INT(nand_program(e, 1, 1, data, data + PS, NULL), NAND_E_POWER);
        at[k] = nand_now(e) - t0;
        const struct nand_timing *t = &nand_get_config(e)->timing;
        uint64_t in = (2ull + t->addr_cycles) * t->t_cycle_ns + PB * t->t_cycle_ns;
        CHECK(at[k] >= in && at[k] <= in + t->t_prog_ns);
        nand_close(e);
    }
    CHECK_EQ_INT(at[0], at[1]);
    nand_close(d);
}

TEST(torn_erase_leaves_the_block_unprogrammable)
{
    for (int nop = 1; nop <= 4; nop += 3) {
        struct nand_config c;
        fx_small_config(&c);
        c.nop = (uint32_t)nop;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        uint8_t data[PB], buf[PB];
        for (nand_page_t p = 0; p < 16; p++) {
            fx_fill(data, PB, 50 + p);
            REQUIRE(nand_program(d, 7, p, data, data + PS, NULL) == NAND_OK);
        }
        nand_cut_after_ops(d, 0, 0.5);
        CHECK_EQ_INT(nand_erase(d, 7, NULL), NAND_E_POWER);
        CHECK_EQ_INT(all_calls_fail(d), 0);
        nand_power_on(d);
        struct nand_block_info bi;
        REQUIRE(nand_block_info(d, 7, &bi) == NAND_OK);
        CHECK(bi.erase_torn);
        CHECK(!bi.grown_bad);
        struct nand_stats st;
        nand_get_stats(d, &st);
        CHECK_EQ_INT(st.torn_erases, 1);
        CHECK_EQ_INT(st.erases, 0);
        int ecc = 0;
        for (nand_page_t p = 0; p < 16; p++) {
            ecc += nand_read(d, 7, p, buf, buf + PS, NULL) == NAND_E_ECC;
            int rc = nand_program(d, 7, p, data, NULL, NULL);
            CHECK(rc == (nop == 1 ? NAND_E_NOT_ERASED : NAND_E_NOP));
        }
        CHECK_EQ_INT(ecc, 16); /* half-erased random data */
        /* an erase repairs it */
        CHECK_EQ_INT(nand_erase(d, 7, NULL), NAND_OK);
        REQUIRE(nand_block_info(d, 7, &bi) == NAND_OK);
        CHECK(!bi.erase_torn);
        CHECK_EQ_INT(nand_read(d, 7, 5, buf, buf + PS, NULL), NAND_OK);
        CHECK(fx_all(buf, PB, 0xff));
        CHECK_EQ_INT(nand_program(d, 7, 0, data, NULL, NULL), NAND_OK);

        /* nearly done (frac 1): reads as erased but is still unsafe */
        nand_cut_after_ops(d, 0, 1.0);
        CHECK_EQ_INT(nand_erase(d, 7, NULL), NAND_E_POWER);
        nand_power_on(d);
        CHECK_EQ_INT(nand_read(d, 7, 0, buf, buf + PS, NULL), NAND_OK);
        CHECK(fx_all(buf, PB, 0xff));
        CHECK(nand_program(d, 7, 0, data, NULL, NULL) < 0);
        CHECK(nand_program(d, 7, 1, data, NULL, NULL) < 0);
        /* a torn erase of an empty block too */
        nand_cut_after_ops(d, 0, 0.3);
        CHECK_EQ_INT(nand_erase(d, 8, NULL), NAND_E_POWER);
        nand_power_on(d);
        CHECK(nand_program(d, 8, 0, data, NULL, NULL) < 0);
        REQUIRE(nand_block_info(d, 8, &bi) == NAND_OK);
        CHECK(bi.erase_torn);
        nand_close(d);
    }
}

TEST(cut_at_time_inside_and_before_the_array_phase)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint64_t in = (2ull + t->addr_cycles) * t->t_cycle_ns + PB * t->t_cycle_ns;
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 6);
    nand_advance(d, 1000000);

    /* inside tPROG: torn */
    nand_time_t t0 = nand_now(d);
    nand_time_t cut = t0 + in + t->t_prog_ns / 2;
    nand_cut_at_time(d, cut);
    CHECK_EQ_INT(nand_program(d, 4, 0, data, data + PS, NULL), NAND_E_POWER);
    CHECK_EQ_INT(nand_now(d), cut);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.torn_programs, 1);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 4, 0, buf, buf + PS, NULL), NAND_E_ECC);
    CHECK_EQ_INT(nand_program(d, 4, 0, data, NULL, NULL), NAND_E_NOT_ERASED);

    /* during the data transfer: no trace, the page is still erased */
    t0 = nand_now(d);
    cut = t0 + in / 2;
    nand_cut_at_time(d, cut);
    CHECK_EQ_INT(nand_program(d, 4, 1, data, data + PS, NULL), NAND_E_POWER);
    CHECK_EQ_INT(nand_now(d), cut);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.torn_programs, 1);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 4, 1, buf, buf + PS, NULL), NAND_OK);
    CHECK(fx_all(buf, PB, 0xff));
    CHECK_EQ_INT(nand_program(d, 4, 1, data, data + PS, NULL), NAND_OK);

    /* after the end: the program completes, the next call finds the
     * power gone */
    t0 = nand_now(d);
    cut = t0 + in + t->t_prog_ns + 10;
    nand_cut_at_time(d, cut);
    CHECK_EQ_INT(nand_program(d, 4, 2, data, data + PS, NULL), NAND_OK);
    CHECK(nand_is_powered(d));
    nand_advance(d, 5);
    CHECK(nand_is_powered(d));
    nand_advance(d, 100);
    CHECK(!nand_is_powered(d));
    CHECK_EQ_INT(nand_now(d), cut); /* advance stops at the cut */
    CHECK_EQ_INT(nand_read(d, 4, 2, buf, NULL, NULL), NAND_E_POWER);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 4, 2, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));

    /* inside tBERS: a torn erase */
    t0 = nand_now(d);
    cut = t0 + (uint64_t)t->addr_cycles * t->t_cycle_ns + t->t_bers_ns / 3;
    nand_cut_at_time(d, cut);
    CHECK_EQ_INT(nand_erase(d, 4, NULL), NAND_E_POWER);
    CHECK_EQ_INT(nand_now(d), cut);
    nand_power_on(d);
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 4, &bi) == NAND_OK);
    CHECK(bi.erase_torn);

    /* during a read: the read fails and nothing changes */
    t0 = nand_now(d);
    nand_cut_at_time(d, t0 + 1000);
    CHECK_EQ_INT(nand_read(d, 10, 0, buf, NULL, NULL), NAND_E_POWER);
    CHECK_EQ_INT(nand_now(d), t0 + 1000);
    nand_power_on(d);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.power_cuts, 5);

    /* disarm */
    nand_cut_at_time(d, nand_now(d) + 1);
    nand_cut_disarm(d);
    CHECK_EQ_INT(nand_erase(d, 11, NULL), NAND_OK);
    CHECK(nand_is_powered(d));
    /* a cut between operations */
    nand_power_cut(d);
    CHECK_EQ_INT(all_calls_fail(d), 0);
    nand_power_on(d);
    CHECK_EQ_INT(nand_erase(d, 11, NULL), NAND_OK);
    nand_close(d);
}

struct cb_state {
    int calls, cut_at;
    double frac;
    enum nand_op_kind kinds[16];
    nand_block_t blocks[16];
};

static int cut_cb(void *ctx, const struct nand_op *op, double *frac)
{
    struct cb_state *s = ctx;
    if (s->calls < 16) {
        s->kinds[s->calls] = op->kind;
        s->blocks[s->calls] = op->block;
    }
    if (++s->calls == s->cut_at) {
        *frac = s->frac;
        return 1;
    }
    return 0;
}

TEST(callback_chooses_the_operation_to_cut)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 7);
    struct cb_state s = {.cut_at = 4, .frac = 0.5};
    nand_cut_callback(d, cut_cb, &s);
    CHECK_EQ_INT(nand_program(d, 20, 0, data, data + PS, NULL), NAND_OK);
    CHECK_EQ_INT(nand_read(d, 20, 0, buf, buf + PS, NULL), NAND_OK);
    CHECK_EQ_INT(nand_erase(d, 21, NULL), NAND_OK);
    CHECK_EQ_INT(nand_mark_bad(d, 22), NAND_OK);
    /* violations never reach the callback */
    CHECK_EQ_INT(nand_program(d, 20, 0, data, NULL, NULL), NAND_E_NOT_ERASED);
    CHECK_EQ_INT(nand_program(d, 20, 1, data, data + PS, NULL), NAND_E_POWER);
    CHECK_EQ_INT(s.calls, 4);
    CHECK_EQ_INT(s.kinds[0], NAND_OP_PROGRAM);
    CHECK_EQ_INT(s.blocks[0], 20);
    CHECK_EQ_INT(s.kinds[1], NAND_OP_ERASE);
    CHECK_EQ_INT(s.blocks[1], 21);
    CHECK_EQ_INT(s.kinds[2], NAND_OP_PROGRAM); /* mark-bad writes the spare */
    CHECK_EQ_INT(s.blocks[2], 22);
    CHECK_EQ_INT(s.blocks[3], 20);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 20, 1, buf, buf + PS, NULL), NAND_E_ECC);
    /* power_on disarms the callback */
    CHECK_EQ_INT(nand_program(d, 20, 2, data, data + PS, NULL), NAND_OK);
    CHECK_EQ_INT(s.calls, 4);

    /* a fraction above 1 is clipped: the program completes its cells */
    s = (struct cb_state){.cut_at = 1, .frac = 7.0};
    nand_cut_callback(d, cut_cb, &s);
    CHECK_EQ_INT(nand_program(d, 20, 3, data, data + PS, NULL), NAND_E_POWER);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 20, 3, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));
    /* a callback of NULL disarms */
    nand_cut_callback(d, NULL, NULL);
    CHECK_EQ_INT(nand_program(d, 20, 4, data, data + PS, NULL), NAND_OK);
    nand_close(d);
}

TEST(queued_operations_and_power_on)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.channels = 2;
    c.geo.dies_per_channel = 1;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 8);
    nand_cut_after_ops(d, 1, 0.5);
    struct nand_op a = {.kind = NAND_OP_PROGRAM, .block = 1, .data = data,
                        .oob = data + PS};
    struct nand_op b = {.kind = NAND_OP_PROGRAM, .block = 65, .data = data,
                        .oob = data + PS};
    CHECK_EQ_INT(nand_submit(d, &a), NAND_OK);
    CHECK_EQ_INT(nand_submit(d, &b), NAND_E_POWER);
    CHECK_EQ_INT(b.status, NAND_E_POWER);
    CHECK(!nand_is_powered(d));
    nand_time_t off = nand_now(d);
    nand_power_on(d);
    CHECK_EQ_INT(nand_now(d), off);
    /* every die idle now: the next operation starts at once */
    struct nand_result r;
    /* a ran on the other channel at the same time: the cut, half way
     * through b's tPROG, is half way through a's too (inflight.c) */
    CHECK_EQ_INT(nand_read(d, 1, 0, buf, buf + PS, &r), NAND_E_ECC);
    CHECK_EQ_INT(r.start, off);
    CHECK_EQ_INT(nand_read(d, 65, 0, buf, buf + PS, NULL), NAND_E_ECC);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.torn_programs, 2);
    CHECK_EQ_INT(st.programs, 0);
    nand_close(d);
}

TEST(mlc_torn_upper_page_corrupts_its_lower_page)
{
    struct nand_config c;
    fx_small_config(&c);
    c.cell = NAND_MLC;
    c.pair_distance = 2;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[8][PB], buf[PB];
    for (int i = 0; i < 8; i++)
        fx_fill(data[i], PB, 80 + (uint64_t)i);
    /* lower pages 0 and 1, written "long before" */
    REQUIRE(nand_program(d, 30, 0, data[0], data[0] + PS, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 30, 1, data[1], data[1] + PS, NULL) == NAND_OK);
    nand_advance(d, 3600ull * 1000000000ull);
    /* page 2 is the upper page of page 0 */
    nand_cut_after_ops(d, 0, 0.5);
    CHECK_EQ_INT(nand_program(d, 30, 2, data[2], data[2] + PS, NULL), NAND_E_POWER);
    nand_power_on(d);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.paired_corruptions, 1);
    CHECK_EQ_INT(st.torn_programs, 1);
    CHECK_EQ_INT(nand_read(d, 30, 0, buf, buf + PS, NULL), NAND_E_ECC);
    /* about 1 bit in 16 of the lower page's programmed bits came back */
    REQUIRE(nand_read_raw(d, 30, 0, buf, buf + PS, NULL) == NAND_OK);
    uint32_t zeros = 0, moved = 0;
    for (uint32_t i = 0; i < PB; i++) {
        zeros += (uint32_t)__builtin_popcount((uint8_t)~data[0][i]);
        moved += (uint32_t)__builtin_popcount((uint8_t)(buf[i] & ~data[0][i]));
        /* nothing went 1 -> 0 */
        CHECK_EQ_INT(~buf[i] & data[0][i] & 0xff, 0);
    }
    CHECK_NEAR((double)moved / zeros, 1.0 / 16, 0.01);
    /* page 1 is not paired with page 2 */
    CHECK_EQ_INT(nand_read(d, 30, 1, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data[1], PB));
    CHECK_EQ_INT(nand_read(d, 30, 2, buf, buf + PS, NULL), NAND_E_ECC);
    /* a completed upper program leaves its lower page alone */
    REQUIRE(nand_program(d, 30, 3, data[3], data[3] + PS, NULL) == NAND_OK);
    CHECK_EQ_INT(nand_read(d, 30, 1, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data[1], PB));
    /* a torn lower page (4) disturbs nobody else */
    nand_cut_after_ops(d, 0, 0.5);
    CHECK_EQ_INT(nand_program(d, 30, 4, data[4], data[4] + PS, NULL), NAND_E_POWER);
    nand_power_on(d);
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.paired_corruptions, 1);
    CHECK_EQ_INT(nand_read(d, 30, 3, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data[3], PB));
    nand_close(d);

    /* the same on SLC: pair_distance has no effect */
    c.cell = NAND_SLC;
    d = fx_create(&c);
    REQUIRE(d);
    REQUIRE(nand_program(d, 30, 0, data[0], data[0] + PS, NULL) == NAND_OK);
    nand_cut_after_ops(d, 0, 0.5);
    CHECK_EQ_INT(nand_program(d, 30, 2, data[2], data[2] + PS, NULL), NAND_E_POWER);
    nand_power_on(d);
    CHECK_EQ_INT(nand_read(d, 30, 0, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data[0], PB));
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.paired_corruptions, 0);
    nand_close(d);
}

/* Everything observable about a few blocks, for comparing states. */
struct state {
    uint8_t pages[4][4][PB];
    uint64_t pe[4];
    nand_time_t now;
    struct nand_stats st;
};

static const nand_block_t sblocks[4] = {0, 1, 64, 127};

static void capture(nand_dev *d, struct state *s)
{
    for (int i = 0; i < 4; i++) {
        for (nand_page_t p = 0; p < 4; p++)
            nand_read_raw(d, sblocks[i], p, s->pages[i][p], s->pages[i][p] + PS,
                          NULL);
        struct nand_block_info bi;
        nand_block_info(d, sblocks[i], &bi);
        s->pe[i] = bi.pe_cycles;
    }
}

/* Clock and stats first: capturing the pages reads them, which counts. */
static void snap_state(nand_dev *d, struct state *s)
{
    nand_get_stats(d, &s->st);
    s->now = nand_now(d);
    capture(d, s);
}

static int same_state(const struct state *a, const struct state *b)
{
    return !memcmp(a->pages, b->pages, sizeof a->pages) &&
           !memcmp(a->pe, b->pe, sizeof a->pe) && a->now == b->now &&
           !memcmp(&a->st, &b->st, sizeof a->st);
}

TEST(snapshot_restore_returns_to_the_snapshot)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PB];
    for (int i = 0; i < 4; i++)
        for (nand_page_t p = 0; p < 3; p++) {
            fx_fill(data, PB, 100 + (uint64_t)i * 10 + p);
            REQUIRE(nand_program(d, sblocks[i], p, data, data + PS, NULL) == NAND_OK);
        }
    REQUIRE(nand_erase(d, 1, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 1, 0, data, NULL, NULL) == NAND_OK);

    nand_snapshot *snap = NULL;
    struct nand_stats before;
    nand_get_stats(d, &before);
    REQUIRE(nand_snapshot_take(d, &snap) == NAND_OK);
    struct nand_stats after_take;
    nand_get_stats(d, &after_take);
    /* sharing: taking a snapshot copies no page */
    CHECK_EQ_INT(after_take.bytes_stored, before.bytes_stored);
    CHECK(!memcmp(&after_take, &before, sizeof before));
    nand_time_t snap_now = nand_now(d);

    /* modify: program into a shared block, erase, wear, time, a cut */
    fx_fill(data, PB, 999);
    REQUIRE(nand_program(d, 0, 3, data, data + PS, NULL) == NAND_OK);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.bytes_stored, before.bytes_stored + PB); /* one page */
    REQUIRE(nand_erase(d, 64, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 64, 0, data, NULL, NULL) == NAND_OK);
    REQUIRE(nand_set_wear(d, 127, 5000) == NAND_OK);
    nand_advance(d, 123456789);
    nand_cut_after_ops(d, 0, 0.5);
    CHECK_EQ_INT(nand_program(d, 1, 1, data, data + PS, NULL), NAND_E_POWER);

    REQUIRE(nand_snapshot_restore(d, snap) == NAND_OK);
    CHECK(nand_is_powered(d));
    CHECK_EQ_INT(nand_now(d), snap_now);
    nand_get_stats(d, &st);
    CHECK(!memcmp(&st, &before, sizeof st));
    struct state s1, s2;
    snap_state(d, &s1);
    CHECK_EQ_INT(s1.pe[0], 0);
    CHECK_EQ_INT(s1.pe[1], 1);
    CHECK_EQ_INT(s1.pe[2], 0);
    CHECK_EQ_INT(s1.pe[3], 0);
    CHECK(fx_all(s1.pages[0][3], PB, 0xff));
    fx_fill(data, PB, 100 + 2 * 10 + 0);
    CHECK(!memcmp(s1.pages[2][0], data, PB));
    CHECK(fx_all(s1.pages[1][1], PB, 0xff));
    /* page 1 of block 1 is really erased again: programmable */
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 1, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.pages_programmed, 1);

    /* modify after restore; the snapshot is unaffected */
    REQUIRE(nand_program(d, 1, 1, data, data + PS, NULL) == NAND_OK);
    REQUIRE(nand_erase(d, 0, NULL) == NAND_OK);
    nand_advance(d, 99);
    REQUIRE(nand_snapshot_restore(d, snap) == NAND_OK);
    snap_state(d, &s2);
    CHECK(same_state(&s1, &s2));
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.bytes_stored, before.bytes_stored);

    /* a snapshot of another device is refused */
    nand_dev *other = fx_small_dev();
    REQUIRE(other);
    CHECK_EQ_INT(nand_snapshot_restore(other, snap), NAND_E_INVAL);
    nand_close(other);

    nand_snapshot_free(snap);
    /* the device lives on after its snapshot is gone */
    REQUIRE(nand_program(d, 0, 3, data, data + PS, NULL) == NAND_OK);
    uint8_t buf[PB];
    CHECK_EQ_INT(nand_read(d, 0, 3, buf, buf + PS, NULL), NAND_OK);
    CHECK(!memcmp(buf, data, PB));
    nand_close(d);
}

TEST(snapshots_share_storage)
{
    nand_dev *d = fx_small_dev();
    REQUIRE(d);
    uint8_t data[PB];
    for (nand_block_t b = 0; b < 32; b++)
        for (nand_page_t p = 0; p < 16; p++) {
            fx_fill(data, PB, b * 100 + p);
            REQUIRE(nand_program(d, b, p, data, data + PS, NULL) == NAND_OK);
        }
    struct nand_stats st0, st;
    nand_get_stats(d, &st0);
    CHECK_EQ_INT(st0.pages_stored, 512);
    CHECK_EQ_INT(st0.bytes_stored, 512ull * PB);
    nand_snapshot *s[8];
    for (int i = 0; i < 8; i++) {
        REQUIRE(nand_snapshot_take(d, &s[i]) == NAND_OK);
        /* one new page per snapshot generation */
        REQUIRE(nand_erase(d, (nand_block_t)i, NULL) == NAND_OK);
        REQUIRE(nand_program(d, (nand_block_t)i, 0, data, data + PS, NULL) == NAND_OK);
    }
    nand_get_stats(d, &st);
    /* eight snapshots of 512 pages hold 512 + 8 pages, not 9 * 512 */
    CHECK_EQ_INT(st.pages_stored, 512 + 8);
    for (int i = 0; i < 8; i++)
        nand_snapshot_free(s[i]);
    nand_get_stats(d, &st);
    /* erased blocks' old pages are freed with the last snapshot */
    CHECK_EQ_INT(st.pages_stored, 512 - 8 * 16 + 8);
    nand_close(d);
}

TEST(restored_snapshot_replays_the_same_physics)
{
    struct nand_config c;
    fx_small_config(&c);
    c.rber.eps = 1e-3;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 3);
    REQUIRE(nand_program(d, 5, 0, data, data + PS, NULL) == NAND_OK);
    nand_snapshot *snap;
    REQUIRE(nand_snapshot_take(d, &snap) == NAND_OK);
    uint32_t e1[20], e2[20];
    uint8_t b1[20][PB];
    for (int i = 0; i < 20; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 5, 0, b1[i], b1[i] + PS, &r) == NAND_OK);
        e1[i] = r.raw_bit_errors;
    }
    REQUIRE(nand_snapshot_restore(d, snap) == NAND_OK);
    int same = 0;
    for (int i = 0; i < 20; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 5, 0, buf, buf + PS, &r) == NAND_OK);
        e2[i] = r.raw_bit_errors;
        same += e1[i] == e2[i] && !memcmp(buf, b1[i], PB);
    }
    CHECK_EQ_INT(same, 20);
    /* and a torn program replayed from the same state tears the same way */
    nand_time_t at[2];
    uint8_t torn[2][PB];
    for (int k = 0; k < 2; k++) {
        REQUIRE(nand_snapshot_restore(d, snap) == NAND_OK);
        nand_cut_after_ops(d, 0, -1);
        CHECK_EQ_INT(nand_program(d, 5, 1, data, data + PS, NULL), NAND_E_POWER);
        at[k] = nand_now(d);
        nand_power_on(d);
        REQUIRE(nand_read_raw(d, 5, 1, torn[k], torn[k] + PS, NULL) == NAND_OK);
    }
    CHECK_EQ_INT(at[0], at[1]);
    CHECK(!memcmp(torn[0], torn[1], PB));
    nand_snapshot_free(snap);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(cut_after_ops_tears_the_next_program);
    RUN(torn_program_outcome_follows_the_fraction);
    RUN(torn_erase_leaves_the_block_unprogrammable);
    RUN(cut_at_time_inside_and_before_the_array_phase);
    RUN(callback_chooses_the_operation_to_cut);
    RUN(queued_operations_and_power_on);
    RUN(mlc_torn_upper_page_corrupts_its_lower_page);
    RUN(snapshot_restore_returns_to_the_snapshot);
    RUN(snapshots_share_storage);
    RUN(restored_snapshot_replays_the_same_physics);
    return test_summary(argv[0]);
}
