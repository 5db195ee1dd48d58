/*
 * test_sim_timing.c -- the simulated clock: the duration of each operation
 * from the timing parameters (docs/simulator.md "Timing"), synchronous
 * calls, queued operations across dies and channels, the shared bus, and
 * nand_advance.  Expectations are computed from the configuration fields.
 */
#include "nand.h"
#include "fixture.h"


/* The documented model, from the finished configuration. */
static uint64_t t_cmd(const struct nand_timing *t)
{
    return (2ull + t->addr_cycles) * t->t_cycle_ns;
}
static uint64_t t_xfer(const struct nand_timing *t, uint64_t bytes)
{
    return (bytes + t->bus_bytes - 1) / t->bus_bytes * t->t_cycle_ns;
}
static uint64_t t_read(const struct nand_timing *t, uint64_t bytes, int upper)
{
    return t_cmd(t) + (upper ? t->t_r_upper_ns : t->t_r_ns) + t_xfer(t, bytes);
}
static uint64_t t_prog_in(const struct nand_timing *t, uint64_t bytes)
{
    return t_cmd(t) + t_xfer(t, bytes);
}
static uint64_t t_program(const struct nand_timing *t, uint64_t bytes, int upper)
{
    return t_prog_in(t, bytes) + (upper ? t->t_prog_upper_ns : t->t_prog_ns);
}
static uint64_t t_erase(const struct nand_timing *t)
{
    return (uint64_t)t->addr_cycles * t->t_cycle_ns + t->t_bers_ns;
}

/* Timing parameters that are all distinct, so that a wrong term shows. */
static void distinct_timing(struct nand_config *c)
{
    c->timing.t_r_ns = 25000;
    c->timing.t_prog_ns = 200000;
    c->timing.t_bers_ns = 1500000;
    c->timing.t_cycle_ns = 25;
    c->timing.bus_bytes = 1;
    c->timing.addr_cycles = 5;
}

TEST(single_operations_take_the_formula_time)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PB], buf[PB];
    fx_fill(data, sizeof data, 1);
    struct nand_result r;

    nand_time_t t0 = nand_now(d);
    CHECK_EQ_INT(t0, 0);
    REQUIRE(nand_program(d, 0, 0, data, data + PS, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, t0);
    CHECK_EQ_INT(r.done - r.start, t_program(t, PB, 0));
    CHECK_EQ_INT(nand_now(d), r.done);
    /* the numbers themselves, once: 7 cycles + 2112 bytes + tPROG */
    CHECK_EQ_INT(r.done - r.start, 7 * 25 + 2112 * 25 + 200000);

    nand_time_t t1 = nand_now(d);
    REQUIRE(nand_program(d, 0, 1, data, NULL, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, t1);
    CHECK_EQ_INT(r.done - r.start, t_program(t, PS, 0));
    REQUIRE(nand_program_col(d, 0, 2, 100, data, 300, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_program(t, 300, 0));

    t1 = nand_now(d);
    REQUIRE(nand_read(d, 0, 0, buf, buf + PS, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, t1);
    CHECK_EQ_INT(r.done - r.start, t_read(t, PB, 0));
    CHECK_EQ_INT(r.done - r.start, 7 * 25 + 25000 + 2112 * 25);
    CHECK_EQ_INT(nand_now(d), r.done);
    REQUIRE(nand_read(d, 0, 0, NULL, buf, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_read(t, OS, 0));
    REQUIRE(nand_read_col(d, 0, 0, 2000, buf, 77, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_read(t, 77, 0));
    /* an erased page costs the same array time */
    REQUIRE(nand_read(d, 5, 3, buf, NULL, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_read(t, PS, 0));

    t1 = nand_now(d);
    REQUIRE(nand_erase(d, 0, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, t1);
    CHECK_EQ_INT(r.done - r.start, t_erase(t));
    CHECK_EQ_INT(r.done - r.start, 5 * 25 + 1500000);
    CHECK_EQ_INT(nand_now(d), r.done);
    nand_close(d);
}

TEST(wide_bus_and_other_parameters)
{
    struct nand_config c;
    fx_small_config(&c);
    c.timing.t_r_ns = 40000;
    c.timing.t_prog_ns = 600000;
    c.timing.t_bers_ns = 3000000;
    c.timing.t_cycle_ns = 10;
    c.timing.bus_bytes = 2;
    c.timing.addr_cycles = 4;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    CHECK_EQ_INT(t->bus_bytes, 2);
    uint8_t data[PB], buf[PB];
    fx_fill(data, sizeof data, 2);
    struct nand_result r;
    REQUIRE(nand_program(d, 70, 0, data, data + PS, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_program(t, PB, 0));
    CHECK_EQ_INT(r.done - r.start, 6 * 10 + 1056 * 10 + 600000);
    /* an odd byte count still takes a whole bus cycle */
    REQUIRE(nand_read_col(d, 70, 0, 1, buf, 101, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, 6 * 10 + 40000 + 51 * 10);
    REQUIRE(nand_erase(d, 70, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, 4 * 10 + 3000000);
    nand_close(d);
}

TEST(mlc_upper_pages_use_upper_times)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.cell = NAND_MLC;
    c.pair_distance = 2;
    c.timing.t_r_upper_ns = 60000;
    c.timing.t_prog_upper_ns = 1800000;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PS], buf[PS];
    fx_fill(data, sizeof data, 3);
    struct nand_result r;
    /* d = 2: pages 0,1 lower; 2,3 upper; 4,5 lower; 6,7 upper ... */
    static const int upper[8] = {0, 0, 1, 1, 0, 0, 1, 1};
    for (nand_page_t p = 0; p < 8; p++) {
        REQUIRE(nand_program(d, 4, p, data, NULL, &r) == NAND_OK);
        CHECK_EQ_INT(r.done - r.start, t_program(t, PS, upper[p]));
    }
    for (nand_page_t p = 0; p < 8; p++) {
        REQUIRE(nand_read(d, 4, p, buf, NULL, &r) == NAND_OK);
        CHECK_EQ_INT(r.done - r.start, t_read(t, PS, upper[p]));
    }
    /* zero upper times default to the lower ones */
    fx_small_config(&c);
    distinct_timing(&c);
    c.cell = NAND_MLC;
    c.pair_distance = 2;
    nand_dev *d2 = fx_create(&c);
    REQUIRE(d2);
    t = &nand_get_config(d2)->timing;
    CHECK_EQ_INT(t->t_prog_upper_ns, t->t_prog_ns);
    CHECK_EQ_INT(t->t_r_upper_ns, t->t_r_ns);
    nand_close(d2);
    nand_close(d);
}

TEST(synchronous_operations_follow_each_other)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PS];
    fx_fill(data, sizeof data, 4);
    struct nand_result r;
    uint64_t expect = 0;
    /* alternate dies: synchronous calls never overlap */
    for (int i = 0; i < 10; i++) {
        nand_block_t b = (nand_block_t)(i % 2 ? 64 + i : i);
        nand_time_t before = nand_now(d);
        REQUIRE(nand_program(d, b, 0, data, NULL, &r) == NAND_OK);
        CHECK_EQ_INT(r.start, before);
        expect += t_program(t, PS, 0);
        REQUIRE(nand_read(d, b, 0, data, NULL, &r) == NAND_OK);
        CHECK_EQ_INT(r.start, before + t_program(t, PS, 0));
        expect += t_read(t, PS, 0);
    }
    CHECK_EQ_INT(nand_now(d), expect);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.busy_ns, expect);
    nand_close(d);
}

TEST(nand_advance_moves_the_clock)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    nand_advance(d, 123456789);
    CHECK_EQ_INT(nand_now(d), 123456789);
    nand_advance(d, 0);
    CHECK_EQ_INT(nand_now(d), 123456789);
    struct nand_result r;
    REQUIRE(nand_erase(d, 1, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, 123456789);
    CHECK_EQ_INT(nand_now(d), 123456789 + t_erase(t));
    nand_advance(d, 3600ull * 1000000000ull);
    CHECK_EQ_INT(nand_now(d), 123456789 + t_erase(t) + 3600ull * 1000000000ull);
    /* idle time is not busy time */
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.busy_ns, t_erase(t));
    nand_close(d);
}

/* N programs, one per die; returns the time nand_wait took. */
static uint64_t queued_programs(nand_dev *d, uint32_t ndies, struct nand_op *ops,
                                uint8_t *data)
{
    const struct nand_config *c = nand_get_config(d);
    uint32_t bpd = c->geo.planes_per_die * c->geo.blocks_per_plane;
    nand_time_t t0 = nand_now(d);
    for (uint32_t i = 0; i < ndies; i++) {
        ops[i] = (struct nand_op){.kind = NAND_OP_PROGRAM,
                                  .block = i * bpd + 3, .page = 0,
                                  .data = data, .oob = data + PS};
        if (nand_submit(d, &ops[i]) != NAND_OK)
            return 0;
        if (nand_now(d) != t0) /* submitting does not move the clock */
            return 0;
    }
    return nand_wait(d) - t0;
}

TEST(separate_channels_overlap_everything)
{
    enum { N = 4 };
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.geo.channels = N;
    c.geo.dies_per_channel = 1;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PB];
    fx_fill(data, sizeof data, 5);
    nand_advance(d, 1000);
    struct nand_op ops[N];
    uint64_t el = queued_programs(d, N, ops, data);
    uint64_t one = t_program(t, PB, 0);
    CHECK(el > 0);
    CHECK(el >= one);
    CHECK(el <= one + one / 10); /* the documented "about the time of one" */
    CHECK_EQ_INT(el, one);       /* and in this model exactly */
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(ops[i].status, NAND_OK);
        CHECK_EQ_INT(ops[i].res.start, 1000);
        CHECK_EQ_INT(ops[i].res.done, 1000 + one);
    }
    CHECK_EQ_INT(nand_now(d), 1000 + one);
    /* the effects are there */
    uint8_t buf[PB];
    for (int i = 0; i < N; i++) {
        REQUIRE(nand_read(d, ops[i].block, 0, buf, buf + PS, NULL) == NAND_OK);
        CHECK(!memcmp(buf, data, PB));
    }
    nand_close(d);
}

TEST(shared_channel_serialises_transfers)
{
    enum { N = 4 };
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.geo.channels = 1;
    c.geo.dies_per_channel = N;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PB];
    fx_fill(data, sizeof data, 6);
    struct nand_op ops[N];
    uint64_t el = queued_programs(d, N, ops, data);
    uint64_t one = t_program(t, PB, 0), in = t_prog_in(t, PB);
    /* each die's data-in waits for the previous one; tPROG overlaps */
    CHECK_EQ_INT(el, N * in + t->t_prog_ns);
    CHECK(el > one);
    CHECK(el < N * one);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(ops[i].res.start, i * in);
        CHECK_EQ_INT(ops[i].res.done, (i + 1) * in + t->t_prog_ns);
    }

    /* reads: commands go out back to back, then each die's data-out
     * waits both for its tR and for the bus */
    nand_time_t t0 = nand_now(d);
    uint8_t bufs[N][PB];
    uint32_t bpd = c.geo.blocks_per_plane;
    for (int i = 0; i < N; i++) {
        ops[i] = (struct nand_op){.kind = NAND_OP_READ,
                                  .block = (nand_block_t)i * bpd + 3,
                                  .data = bufs[i], .oob = bufs[i] + PS};
        REQUIRE(nand_submit(d, &ops[i]) == NAND_OK);
    }
    uint64_t end = 0, out = t_xfer(t, PB);
    for (int i = 0; i < N; i++) {
        uint64_t ready = t0 + (uint64_t)(i + 1) * t_cmd(t) + t->t_r_ns;
        uint64_t start = ready > end ? ready : end;
        end = start + out;
        CHECK_EQ_INT(ops[i].res.start, t0 + (uint64_t)i * t_cmd(t));
        CHECK_EQ_INT(ops[i].res.done, end);
        CHECK(!memcmp(bufs[i], data, PB));
    }
    CHECK_EQ_INT(nand_wait(d), end);
    /* here the transfers dominate: 4 * 52.8 us against tR 25 us */
    CHECK(end - t0 > N * out);

    /* erases: only the short command uses the bus */
    t0 = nand_now(d);
    for (int i = 0; i < N; i++) {
        ops[i] = (struct nand_op){.kind = NAND_OP_ERASE,
                                  .block = (nand_block_t)i * bpd + 3};
        REQUIRE(nand_submit(d, &ops[i]) == NAND_OK);
    }
    uint64_t ecmd = (uint64_t)t->addr_cycles * t->t_cycle_ns;
    CHECK_EQ_INT(nand_wait(d) - t0, N * ecmd + t->t_bers_ns);
    nand_close(d);
}

TEST(one_die_does_one_thing_at_a_time)
{
    enum { N = 4 };
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.geo.channels = 2;
    c.geo.dies_per_channel = 1;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PB];
    fx_fill(data, sizeof data, 7);
    struct nand_op ops[N];
    for (int i = 0; i < N; i++) {
        ops[i] = (struct nand_op){.kind = NAND_OP_PROGRAM, .block = 10,
                                  .page = (nand_page_t)i, .data = data};
        REQUIRE(nand_submit(d, &ops[i]) == NAND_OK);
    }
    uint64_t one = t_program(t, PS, 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(ops[i].res.start, i * one);
        CHECK_EQ_INT(ops[i].res.done, (i + 1) * one);
    }
    CHECK_EQ_INT(nand_now(d), 0);
    /* a synchronous call to the other die starts now, not after the queue */
    struct nand_result r;
    REQUIRE(nand_read(d, 64, 0, data, NULL, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, 0);
    CHECK_EQ_INT(r.done, t_read(t, PS, 0));
    /* one to the busy die waits for it */
    REQUIRE(nand_read(d, 10, 0, data, NULL, &r) == NAND_OK);
    CHECK_EQ_INT(r.start, N * one);
    CHECK_EQ_INT(nand_now(d), N * one + t_read(t, PS, 0));
    CHECK_EQ_INT(nand_wait(d), N * one + t_read(t, PS, 0));

    /* queue on both dies of both channels: the makespan is one die's */
    nand_time_t t0 = nand_now(d);
    for (int i = 0; i < N; i++) {
        ops[i] = (struct nand_op){.kind = NAND_OP_ERASE,
                                  .block = (nand_block_t)(i % 2 ? 64 + i : i)};
        REQUIRE(nand_submit(d, &ops[i]) == NAND_OK);
    }
    CHECK_EQ_INT(nand_wait(d) - t0, 2 * t_erase(t));
    nand_close(d);
}

TEST(bus_transfers_fill_gaps_in_order_of_time)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.geo.channels = 1;
    c.geo.dies_per_channel = 3;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint32_t bpd = c.geo.blocks_per_plane;
    uint8_t buf[PB], oob[OS];
    fx_fill(oob, sizeof oob, 8);
    /* die 0 reads: the bus is busy for its command, free during tR,
     * busy again for its data out */
    struct nand_op rd = {.kind = NAND_OP_READ, .block = 1, .data = buf,
                         .oob = buf + PS};
    REQUIRE(nand_submit(d, &rd) == NAND_OK);
    uint64_t gap_start = t_cmd(t), gap_end = t_cmd(t) + t->t_r_ns;
    CHECK_EQ_INT(rd.res.done, gap_end + t_xfer(t, PB));
    /* a short data-in (spare only) for die 1 fits in the tR gap */
    struct nand_op p1 = {.kind = NAND_OP_PROGRAM, .block = bpd + 1, .oob = oob};
    REQUIRE(nand_submit(d, &p1) == NAND_OK);
    REQUIRE(t_prog_in(t, OS) <= gap_end - gap_start);
    CHECK_EQ_INT(p1.res.start, gap_start);
    CHECK_EQ_INT(p1.res.done, gap_start + t_program(t, OS, 0));
    /* a full page for die 2 does not fit what is left: it waits for the
     * end of die 0's data out */
    struct nand_op p2 = {.kind = NAND_OP_PROGRAM, .block = 2 * bpd + 1,
                         .data = buf, .oob = buf + PS};
    REQUIRE(nand_submit(d, &p2) == NAND_OK);
    REQUIRE(gap_start + t_prog_in(t, OS) + t_prog_in(t, PB) > gap_end);
    CHECK_EQ_INT(p2.res.start, rd.res.done);
    CHECK_EQ_INT(p2.res.done, rd.res.done + t_program(t, PB, 0));
    CHECK_EQ_INT(nand_wait(d), p2.res.done);
    nand_close(d);
}

/* nandsim's charging: every read command pays tR and a whole page and
 * spare on the bus, however few bytes it moves; programs do not change. */
TEST(whole_page_reads_charge_a_page_per_command)
{
    struct nand_config c;
    fx_small_config(&c);
    distinct_timing(&c);
    c.timing.whole_page_reads = 1;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t data[PB], buf[PB];
    fx_fill(data, sizeof data, 3);
    struct nand_result r;
    REQUIRE(nand_program_col(d, 0, 0, 100, data, 300, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_program(t, 300, 0));
    REQUIRE(nand_read(d, 0, 0, NULL, buf, &r) == NAND_OK); /* the spare alone */
    CHECK_EQ_INT(r.done - r.start, t_read(t, PB, 0));
    CHECK_EQ_INT(r.done - r.start, 7 * 25 + 25000 + 2112 * 25);
    REQUIRE(nand_read_col(d, 0, 0, 2000, buf, 77, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_read(t, PB, 0));
    REQUIRE(nand_read(d, 0, 0, buf, buf + PS, &r) == NAND_OK);
    CHECK_EQ_INT(r.done - r.start, t_read(t, PB, 0));
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(single_operations_take_the_formula_time);
    RUN(wide_bus_and_other_parameters);
    RUN(mlc_upper_pages_use_upper_times);
    RUN(synchronous_operations_follow_each_other);
    RUN(nand_advance_moves_the_clock);
    RUN(separate_channels_overlap_everything);
    RUN(shared_channel_serialises_transfers);
    RUN(one_die_does_one_thing_at_a_time);
    RUN(bus_transfers_fill_gaps_in_order_of_time);
    RUN(whole_page_reads_charge_a_page_per_command);
    return test_summary(argv[0]);
}
