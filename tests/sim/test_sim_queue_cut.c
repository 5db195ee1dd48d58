/*
 * test_sim_queue_cut.c -- a power cut with queued operations in flight
 * (docs/simulator.md "Power loss", sim/inflight.c): every program or erase
 * under way at the cut instant is torn, those scheduled to start after it
 * never happen, those ended before it are intact -- checked against each
 * operation's own schedule, for cuts at a time and after N operations.
 */
#include "nand.h"
#include "fixture.h"

#define BPD 64u /* blocks per die (one plane) */

/* 2 channels x 2 dies, no bit errors: outcomes are exact. */
static nand_dev *four_dies(uint64_t seed)
{
    struct nand_config c;
    fx_small_config(&c);
    c.geo.channels = 2;
    c.geo.dies_per_channel = 2;
    c.seed = seed;
    return fx_create(&c);
}

static int page_is(nand_dev *d, nand_block_t b, nand_page_t p, const uint8_t *want)
{
    uint8_t buf[PB];
    if (nand_read(d, b, p, buf, buf + PS, NULL) != NAND_OK)
        return 0;
    return want ? !memcmp(buf, want, PB) : fx_all(buf, PB, 0xff);
}

static struct nand_op prog(nand_block_t b, nand_page_t p, uint8_t *data)
{
    return (struct nand_op){.kind = NAND_OP_PROGRAM, .block = b, .page = p,
                            .data = data, .oob = data + PS};
}

TEST(two_dies_busy_at_the_cut_are_both_torn)
{
    nand_dev *d = four_dies(1);
    REQUIRE(d);
    const struct nand_timing *t = &nand_get_config(d)->timing;
    uint8_t x[PB], y[PB], buf[PB];
    fx_fill(x, PB, 1);
    fx_fill(y, PB, 2);
    struct nand_op a = prog(0 * BPD + 3, 0, x), b = prog(1 * BPD + 3, 0, y);
    REQUIRE(nand_submit(d, &a) == NAND_OK);
    REQUIRE(nand_submit(d, &b) == NAND_OK);
    nand_time_t sa = a.res.done - t->t_prog_ns, sb = b.res.done - t->t_prog_ns;
    /* one bus: b's data in follows a's, so their array times overlap */
    CHECK(sb > sa && sb < a.res.done);
    nand_time_t cut = sb + (a.res.done - sb) / 2;
    nand_cut_at_time(d, cut);
    CHECK_EQ_INT(nand_wait(d), cut);
    CHECK(!nand_is_powered(d));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.torn_programs, 2);
    CHECK_EQ_INT(st.programs, 0);
    nand_power_on(d);
    /* neither reads as its data; neither page takes a program again */
    CHECK(!page_is(d, a.block, 0, x));
    CHECK(!page_is(d, b.block, 0, y));
    CHECK_EQ_INT(nand_program(d, a.block, 0, x, NULL, NULL), NAND_E_NOT_ERASED);
    CHECK_EQ_INT(nand_program(d, b.block, 0, y, NULL, NULL), NAND_E_NOT_ERASED);
    (void)buf;
    nand_close(d);
}

TEST(queued_behind_a_busy_die_never_happens)
{
    nand_dev *d = four_dies(2);
    REQUIRE(d);
    uint8_t x[3][PB], old[PB];
    for (int i = 0; i < 3; i++)
        fx_fill(x[i], PB, 10 + (uint64_t)i);
    fx_fill(old, PB, 9);
    /* block 5 holds data an erase queued after the cut must not lose */
    REQUIRE(nand_program(d, 5, 0, old, old + PS, NULL) == NAND_OK);
    struct nand_op done = prog(7, 0, x[0]);
    REQUIRE(nand_submit(d, &done) == NAND_OK);
    nand_wait(d); /* ended before the cut: intact */
    struct nand_op a = prog(7, 1, x[1]), b = prog(7, 2, x[2]);
    struct nand_op e = {.kind = NAND_OP_ERASE, .block = 5};
    REQUIRE(nand_submit(d, &a) == NAND_OK);
    REQUIRE(nand_submit(d, &b) == NAND_OK);
    REQUIRE(nand_submit(d, &e) == NAND_OK);
    nand_cut_at_time(d, a.res.done - 1);
    nand_wait(d);
    CHECK(!nand_is_powered(d));
    nand_power_on(d);
    CHECK(page_is(d, 7, 0, x[0]));
    CHECK(page_is(d, 7, 2, NULL));   /* b never started */
    CHECK(page_is(d, 5, 0, old));     /* nor did the erase */
    struct nand_block_info bi;
    nand_block_info(d, 7, &bi);
    CHECK_EQ_INT(bi.pages_programmed, 2); /* a torn, b undone */
    nand_block_info(d, 5, &bi);
    CHECK_EQ_INT(bi.pe_cycles, 0);
    CHECK(!bi.erase_torn);
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.torn_programs, 1);
    CHECK_EQ_INT(st.programs, 2);
    CHECK_EQ_INT(st.erases, 0);
    nand_close(d);
}

/* One random batch of queued programs and erases on four dies, cut at a
 * random instant or after a random count; each operation's outcome is
 * then what its schedule says. */
struct qrec {
    struct nand_op op;
    uint8_t data[PB];
    uint8_t old[PB];      /* erase: page 0 before */
};

static void one_batch(uint64_t seed, int by_ops, int *bad, uint64_t *torn_seen)
{
    nand_dev *d = four_dies(seed);
    if (!d) {
        (*bad)++;
        return;
    }
    const struct nand_timing *t = &nand_get_config(d)->timing;
    enum { N = 24 };
    static struct qrec q[N];
    uint64_t rs = seed * 7919 + 1;
    uint32_t next[4] = {0};
    /* blocks 10..13 of each die hold a page for the erases to take */
    for (uint32_t die = 0; die < 4; die++)
        for (nand_block_t b = 10; b < 14; b++) {
            uint8_t buf[PB];
            fx_fill(buf, PB, die * 100 + b);
            if (nand_program(d, die * BPD + b, 0, buf, buf + PS, NULL))
                (*bad)++;
        }
    for (int i = 0; i < N; i++) {
        uint32_t die = (uint32_t)(fx_next(&rs) % 4);
        struct qrec *r = &q[i];
        if (fx_next(&rs) % 6 == 0) {
            nand_block_t b = die * BPD + 10 + (nand_block_t)(fx_next(&rs) % 4);
            r->op = (struct nand_op){.kind = NAND_OP_ERASE, .block = b};
            nand_read(d, b, 0, r->old, r->old + PS, NULL);
        } else {
            fx_fill(r->data, PB, seed * 1000 + (uint64_t)i);
            uint32_t k = next[die]++;
            r->op = prog(die * BPD + 1 + k / 16, k % 16, r->data);
        }
    }
    nand_time_t cut = 0, t0 = nand_now(d);
    if (by_ops)
        nand_cut_after_ops(d, fx_next(&rs) % N, 0.05 + 0.9 * (double)(fx_next(&rs) % 1000) / 1000);
    int n = 0;
    for (; n < N; n++) {
        if (!by_ops && n == N / 2) {
            /* half submitted: the cut falls somewhere in what is queued */
            nand_time_t end = 0;
            for (int i = 0; i < n; i++)
                if (q[i].op.res.done > end)
                    end = q[i].op.res.done;
            cut = t0 + 1 + fx_next(&rs) % (end - t0 + 200000);
            nand_cut_at_time(d, cut);
        }
        if (nand_submit(d, &q[n].op) != NAND_OK)
            break;
    }
    nand_wait(d);
    if (nand_is_powered(d)) { /* the cut fell after everything */
        cut = nand_now(d);
        nand_power_cut(d);
    }
    nand_time_t at = nand_now(d);
    if (!by_ops && at != cut)
        (*bad)++;
    nand_power_on(d);
    uint64_t spanning = 0;
    for (int i = 0; i < n; i++) {
        struct qrec *r = &q[i];
        nand_time_t len = r->op.kind == NAND_OP_ERASE ? t->t_bers_ns : t->t_prog_ns;
        nand_time_t start = r->op.res.done - len;
        int ended = r->op.res.done <= at, absent = start >= at;
        if (r->op.kind == NAND_OP_PROGRAM) {
            if (ended && !page_is(d, r->op.block, r->op.page, r->data))
                (*bad)++;
            if (absent && !page_is(d, r->op.block, r->op.page, NULL))
                (*bad)++;
            if (!ended && !absent) {
                spanning++;
                /* torn: the page takes no program until erased */
                if (nand_program(d, r->op.block, r->op.page, r->data, NULL, NULL)
                    != NAND_E_NOT_ERASED)
                    (*bad)++;
            }
        } else {
            struct nand_block_info bi;
            nand_block_info(d, r->op.block, &bi);
            if (!ended && !absent) {
                spanning++;
                if (!bi.erase_torn)
                    (*bad)++;
            }
            /* a later erase of the same block decides what it holds now */
            int last = 1;
            for (int j = i + 1; j < n; j++)
                if (q[j].op.kind == NAND_OP_ERASE && q[j].op.block == r->op.block)
                    last = 0;
            if (last && ended && !page_is(d, r->op.block, 0, NULL))
                (*bad)++;
            /* no erase of the block ran: it holds what it held */
            int none = absent;
            for (int j = 0; j < i; j++)
                if (q[j].op.kind == NAND_OP_ERASE && q[j].op.block == r->op.block &&
                    q[j].op.res.done - len < at)
                    none = 0;
            if (last && none && !page_is(d, r->op.block, 0, r->old))
                (*bad)++;
        }
    }
    struct nand_stats st;
    nand_get_stats(d, &st);
    /* after N ops, the (N+1)-th is the one the count tears */
    uint64_t trigger = by_ops && n < N ? 1 : 0;
    if (st.torn_programs + st.torn_erases != spanning + trigger)
        (*bad)++;
    *torn_seen += spanning;
    nand_close(d);
}

TEST(every_queued_operation_follows_its_schedule)
{
    int bad = 0;
    uint64_t torn_time = 0, torn_ops = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        one_batch(seed, 0, &bad, &torn_time);
        one_batch(seed, 1, &bad, &torn_ops);
    }
    CHECK_EQ_INT(bad, 0);
    /* the campaign did tear queued operations besides the counted one */
    CHECK(torn_time > 60);
    CHECK(torn_ops > 0);
    printf("  120 batches: %llu torn by a time cut, %llu besides the counted op\n",
           (unsigned long long)torn_time, (unsigned long long)torn_ops);
}

TEST(a_read_queued_behind_a_program_sees_its_data)
{
    nand_dev *d = four_dies(4);
    REQUIRE(d);
    uint8_t x[PB], buf[PB];
    fx_fill(x, PB, 77);
    struct nand_op a = prog(BPD + 9, 0, x);
    REQUIRE(nand_submit(d, &a) == NAND_OK);
    struct nand_result r;
    CHECK_EQ_INT(nand_read(d, BPD + 9, 0, buf, buf + PS, &r), NAND_OK);
    CHECK(!memcmp(buf, x, PB));
    CHECK(r.start >= a.res.done); /* the die finished the program first */
    nand_close(d);
}

TEST(cut_after_ops_counts_queued_operations)
{
    /* on one die the queue is the order of completion: n complete, the
     * (n+1)-th is torn, the rest never happen */
    nand_dev *d = four_dies(3);
    REQUIRE(d);
    uint8_t x[6][PB];
    struct nand_op q[6];
    nand_cut_after_ops(d, 3, 0.5);
    int n = 0;
    for (; n < 6; n++) {
        fx_fill(x[n], PB, 50 + (uint64_t)n);
        q[n] = prog(2, (nand_page_t)n, x[n]);
        if (nand_submit(d, &q[n]) != NAND_OK)
            break;
    }
    CHECK_EQ_INT(n, 3);
    CHECK(!nand_is_powered(d));
    nand_power_on(d);
    for (int i = 0; i < 3; i++)
        CHECK(page_is(d, 2, (nand_page_t)i, x[i]));
    CHECK(!page_is(d, 2, 3, x[3]));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.programs, 3);
    CHECK_EQ_INT(st.torn_programs, 1);
    CHECK_EQ_INT(st.state_ops, 4);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(two_dies_busy_at_the_cut_are_both_torn);
    RUN(queued_behind_a_busy_die_never_happens);
    RUN(every_queued_operation_follows_its_schedule);
    RUN(a_read_queued_behind_a_program_sees_its_data);
    RUN(cut_after_ops_counts_queued_operations);
    return test_summary(argv[0]);
}
