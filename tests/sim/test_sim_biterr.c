/*
 * test_sim_biterr.c -- raw bit errors and ECC (docs/simulator.md "Bit
 * errors and ECC", "Determinism").  Statistical tests use fixed seeds and
 * tolerances of about four standard errors computed from the model:
 * errors per codeword are Poisson(bits * RBER).
 */
#include "nand.h"
#include "fixture.h"

#define CWB 512u
#define NS_PER_HOUR 3600000000000ull

static void eps_config(struct nand_config *c, double eps, uint32_t t)
{
    fx_small_config(c);
    memset(&c->rber, 0, sizeof c->rber);
    c->rber.eps = eps;
    c->ecc.codeword_bytes = CWB;
    c->ecc.correct_bits = t;
}

struct moments {
    double n, sum, sum2;
};

static double m_mean(const struct moments *m) { return m->sum / m->n; }
static double m_var(const struct moments *m)
{
    double mu = m_mean(m);
    return (m->sum2 - m->n * mu * mu) / (m->n - 1);
}

/* n raw reads of (b, p); checks that the buffer differs from `want` in
 * exactly raw_bit_errors bits; returns -1 on an error return. */
static int raw_reads(nand_dev *d, nand_block_t b, nand_page_t p, int n,
                     const uint8_t *want, struct moments *m, int *mismatch)
{
    uint8_t buf[PB];
    for (int i = 0; i < n; i++) {
        struct nand_result r;
        if (nand_read_raw(d, b, p, buf, buf + PS, &r) != NAND_OK)
            return -1;
        if (want && fx_bitdiff(buf, want, PB) != r.raw_bit_errors)
            (*mismatch)++;
        if (r.corrected_bits)
            (*mismatch)++; /* raw reads correct nothing */
        m->n++;
        m->sum += r.raw_bit_errors;
        m->sum2 += (double)r.raw_bit_errors * r.raw_bit_errors;
    }
    return 0;
}

TEST(mean_raw_errors_match_rber)
{
    static const double eps[] = {1e-5, 1e-4, 1e-3};
    for (size_t e = 0; e < sizeof eps / sizeof eps[0]; e++) {
        struct nand_config c;
        eps_config(&c, eps[e], 4);
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        uint8_t data[PB];
        struct moments m = {0, 0, 0};
        int mismatch = 0;
        /* 4 pages of 2 blocks, 1500 reads each */
        for (int i = 0; i < 4; i++) {
            nand_block_t b = (nand_block_t)(i / 2) * 70;
            nand_page_t p = (nand_page_t)(i % 2);
            fx_fill(data, PB, 10 + (uint64_t)i);
            REQUIRE(nand_program(d, b, p, data, data + PS, NULL) == NAND_OK);
            REQUIRE(raw_reads(d, b, p, 1500, data, &m, &mismatch) == 0);
        }
        CHECK_EQ_INT(mismatch, 0);
        double lam = PB * 8.0 * eps[e];
        CHECK_NEAR(m_mean(&m), lam, 4 * sqrt(lam / m.n));
        /* Poisson: variance = mean; the sample variance has variance
         * about (lam + 2 lam^2) / n */
        CHECK_NEAR(m_var(&m), lam, 4 * sqrt((lam + 2 * lam * lam) / m.n));

        /* the data area alone: page_size bits */
        struct moments md = {0, 0, 0};
        uint8_t buf[PS];
        for (int i = 0; i < 3000; i++) {
            struct nand_result r;
            REQUIRE(nand_read_raw(d, 0, 0, buf, NULL, &r) == NAND_OK);
            md.n++;
            md.sum += r.raw_bit_errors;
        }
        double lamd = PS * 8.0 * eps[e];
        CHECK_NEAR(m_mean(&md), lamd, 4 * sqrt(lamd / md.n));

        /* erased pages read clean whatever the rate */
        for (int i = 0; i < 100; i++) {
            struct nand_result r;
            REQUIRE(nand_read_raw(d, 0, 9, buf, NULL, &r) == NAND_OK);
            CHECK_EQ_INT(r.raw_bit_errors, 0);
            CHECK(fx_all(buf, PS, 0xff));
        }
        nand_close(d);
    }
}

TEST(very_high_rber_uses_the_normal_approximation)
{
    /* 0.06 * 4096 bits = 246 per data codeword (normal approximation),
     * 31 in the spare codeword (exact inversion) */
    struct nand_config c;
    eps_config(&c, 0.06, 4);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 3);
    REQUIRE(nand_program(d, 1, 0, data, data + PS, NULL) == NAND_OK);
    struct moments m = {0, 0, 0};
    double diffsum = 0;
    for (int i = 0; i < 600; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 1, 0, buf, buf + PS, &r) == NAND_OK);
        m.n++;
        m.sum += r.raw_bit_errors;
        m.sum2 += (double)r.raw_bit_errors * r.raw_bit_errors;
        uint32_t diff = fx_bitdiff(buf, data, PB);
        CHECK(diff <= r.raw_bit_errors);
        diffsum += diff;
    }
    double lam = PB * 8.0 * 0.06;
    CHECK_NEAR(m_mean(&m), lam, 4 * sqrt(lam / m.n));
    CHECK_NEAR(m_var(&m), lam, 4 * sqrt((lam + 2 * lam * lam) / m.n));
    /* beyond 64 flips a codeword may repeat a position (a double flip
     * cancels), so the visible difference may fall a little short */
    CHECK(diffsum / m.n > 0.9 * lam);
    nand_close(d);
}

TEST(raw_reads_flip_fresh_bits_each_time)
{
    struct nand_config c;
    eps_config(&c, 1e-3, 4);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB], prev[PB];
    fx_fill(data, PB, 4);
    REQUIRE(nand_program(d, 2, 0, data, data + PS, NULL) == NAND_OK);
    int same_pattern = 0, nonzero = 0;
    memcpy(prev, data, PB);
    for (int i = 0; i < 300; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 2, 0, buf, buf + PS, &r) == NAND_OK);
        CHECK_EQ_INT(fx_bitdiff(buf, data, PB), r.raw_bit_errors);
        if (r.raw_bit_errors) {
            nonzero++;
            same_pattern += !memcmp(buf, prev, PB);
        }
        memcpy(prev, buf, PB);
    }
    CHECK(nonzero > 250); /* P(0 errors) = exp(-16.9) */
    CHECK_EQ_INT(same_pattern, 0);
    /* the spare area gets its share: read it alone */
    struct moments m = {0, 0, 0};
    for (int i = 0; i < 2000; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 2, 0, NULL, buf, &r) == NAND_OK);
        CHECK_EQ_INT(fx_bitdiff(buf, data + PS, OS), r.raw_bit_errors);
        m.n++;
        m.sum += r.raw_bit_errors;
    }
    double lam = OS * 8.0 * 1e-3;
    CHECK_NEAR(m_mean(&m), lam, 4 * sqrt(lam / m.n));
    nand_close(d);
}

TEST(ecc_corrects_up_to_t_bits)
{
    /* mean 0.5 flips per data codeword, t = 8: P(> 8) ~ 1e-9 */
    struct nand_config c;
    eps_config(&c, 0.5 / (CWB * 8), 8);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    uint64_t sum = 0;
    int bad = 0;
    for (nand_page_t p = 0; p < 4; p++) {
        fx_fill(data, PB, 20 + p);
        REQUIRE(nand_program(d, 3, p, data, data + PS, NULL) == NAND_OK);
        for (int i = 0; i < 250; i++) {
            struct nand_result r;
            int rc = nand_read(d, 3, p, buf, buf + PS, &r);
            bad += rc != NAND_OK;
            bad += memcmp(buf, data, PB) != 0;
            bad += r.corrected_bits != r.raw_bit_errors;
            sum += r.corrected_bits;
        }
    }
    CHECK_EQ_INT(bad, 0);
    double lam = PB * 8.0 * c.rber.eps * 1000;
    CHECK_NEAR((double)sum, lam, 4 * sqrt(lam));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.bits_corrected, sum);
    CHECK_EQ_INT(st.ecc_failures, 0);
    CHECK_EQ_INT(st.uncorrectable_reads, 0);
    /* column reads are corrected too */
    uint8_t col[100];
    for (int i = 0; i < 100; i++) {
        CHECK_EQ_INT(nand_read_col(d, 3, 3, PS - 50, col, 100, NULL), NAND_OK);
        CHECK(!memcmp(col, data + PS - 50, 100));
    }
    nand_close(d);
}

TEST(beyond_t_reads_are_uncorrectable_and_really_corrupt)
{
    /* 20.5 flips per data codeword, 2.6 in the spare; t = 4 */
    const uint32_t t = 4;
    struct nand_config c;
    eps_config(&c, 5e-3, t);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 5);
    REQUIRE(nand_program(d, 4, 0, data, data + PS, NULL) == NAND_OK);
    int n_ecc = 0, bad = 0;
    uint64_t failed_cw = 0, spare_corrected = 0;
    const int N = 300;
    for (int i = 0; i < N; i++) {
        struct nand_result r;
        int rc = nand_read(d, 4, 0, buf, buf + PS, &r);
        uint32_t total = 0;
        int any = 0;
        for (uint32_t cw = 0; cw <= PS / CWB; cw++) {
            uint32_t off = cw * CWB, len = cw < PS / CWB ? CWB : OS;
            uint32_t diff = fx_bitdiff(buf + off, data + off, len);
            /* a codeword is either corrected entirely or left with more
             * than t flips, never with 1..t */
            bad += diff > 0 && diff <= t;
            any |= diff > 0;
            failed_cw += diff > 0;
            total += diff;
            if (cw == PS / CWB && diff == 0)
                spare_corrected++;
        }
        bad += (rc == NAND_E_ECC) != any;
        bad += rc != NAND_OK && rc != NAND_E_ECC;
        bad += total != r.raw_bit_errors - r.corrected_bits;
        n_ecc += rc == NAND_E_ECC;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(n_ecc, N); /* P(all 4 data codewords <= 4) is ~1e-20 */
    /* the spare codeword (mean 2.6) is usually within t */
    double lam_s = OS * 8 * 5e-3, p_ok = 0;
    for (uint32_t k = 0, f = 1; k <= t; k++, f *= k ? k : 1)
        p_ok += exp(-lam_s) * pow(lam_s, k) / f;
    CHECK_NEAR((double)spare_corrected / N, p_ok, 4 * sqrt(p_ok * (1 - p_ok) / N));
    struct nand_stats st;
    nand_get_stats(d, &st);
    CHECK_EQ_INT(st.uncorrectable_reads, n_ecc);
    CHECK_EQ_INT(st.ecc_failures, failed_cw);

    /* without ECC nothing is detected: the flips reach the caller */
    struct nand_config c0;
    eps_config(&c0, 5e-3, 0);
    nand_dev *d0 = fx_create(&c0);
    REQUIRE(d0);
    REQUIRE(nand_program(d0, 4, 0, data, data + PS, NULL) == NAND_OK);
    struct nand_result r;
    CHECK_EQ_INT(nand_read(d0, 4, 0, buf, buf + PS, &r), NAND_OK);
    CHECK(r.raw_bit_errors > 0);
    CHECK_EQ_INT(r.corrected_bits, 0);
    CHECK_EQ_INT(fx_bitdiff(buf, data, PB), r.raw_bit_errors);
    nand_close(d0);
    nand_close(d);
}

TEST(reads_never_change_stored_data)
{
    struct nand_config c;
    eps_config(&c, 1e-4, 4);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 6);
    REQUIRE(nand_program(d, 5, 0, data, data + PS, NULL) == NAND_OK);
    int clean = 0, bad = 0;
    for (int i = 0; i < 600; i++) {
        struct nand_result r;
        REQUIRE(nand_read_raw(d, 5, 0, buf, buf + PS, &r) == NAND_OK);
        /* if reads accumulated damage the difference would grow */
        bad += fx_bitdiff(buf, data, PB) != r.raw_bit_errors;
        if (!r.raw_bit_errors) {
            clean++;
            bad += memcmp(buf, data, PB) != 0;
        }
        /* ECC reads in between do not write back either */
        REQUIRE(nand_read(d, 5, 0, buf, buf + PS, NULL) == NAND_OK);
        bad += memcmp(buf, data, PB) != 0;
    }
    CHECK_EQ_INT(bad, 0);
    /* P(0 errors) = exp(-1.69) = 0.18: a zero-error draw is a read with
     * a zero-error model, and it returns the original */
    CHECK(clean > 60);
    nand_close(d);
}

/* Expected page mean of errors for RBER r over the full page. */
static double page_lam(double rber) { return PB * 8.0 * rber; }

TEST(retention_errors_grow_with_time)
{
    struct nand_config c;
    eps_config(&c, 0, 4);
    c.rber.beta = 1e-6;
    c.rber.m = 0.5;
    c.rber.n = 0.5;
    const uint64_t pe = 100;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    REQUIRE(nand_set_wear(d, 6, pe) == NAND_OK);
    uint8_t data[PB];
    fx_fill(data, PB, 7);
    REQUIRE(nand_program(d, 6, 0, data, data + PS, NULL) == NAND_OK);
    static const double hours[] = {0, 10, 1000, 40000};
    double prev = -1;
    double elapsed = 0;
    for (size_t i = 0; i < sizeof hours / sizeof hours[0]; i++) {
        nand_advance(d, (nand_time_t)((hours[i] - elapsed) * NS_PER_HOUR));
        elapsed = hours[i];
        struct moments m = {0, 0, 0};
        int mismatch = 0;
        REQUIRE(raw_reads(d, 6, 0, 800, data, &m, &mismatch) == 0);
        double rber = c.rber.beta * pow((double)pe, c.rber.m) *
                      pow(hours[i], c.rber.n);
        double lam = page_lam(rber);
        /* at 0 h the page is only microseconds old */
        CHECK_NEAR(m_mean(&m), lam, 4 * sqrt(lam / m.n) + 0.01);
        CHECK(m_mean(&m) > prev);
        prev = m_mean(&m);
        if (lam < 30) /* few enough flips per codeword to be distinct */
            CHECK_EQ_INT(mismatch, 0);
    }
    /* retention is counted per page from its own program time */
    REQUIRE(nand_program(d, 6, 1, data, data + PS, NULL) == NAND_OK);
    struct moments young = {0, 0, 0};
    int mm = 0;
    REQUIRE(raw_reads(d, 6, 1, 200, data, &young, &mm) == 0);
    CHECK(m_mean(&young) < 0.05);
    /* and a fresh block (PE 0) has no retention term at all */
    REQUIRE(nand_program(d, 7, 0, data, data + PS, NULL) == NAND_OK);
    nand_advance(d, 1000 * NS_PER_HOUR);
    struct moments fresh = {0, 0, 0};
    REQUIRE(raw_reads(d, 7, 0, 200, data, &fresh, &mm) == 0);
    CHECK_EQ_INT(fresh.sum, 0);
    nand_close(d);
}

TEST(read_disturb_grows_with_reads_of_the_block)
{
    struct nand_config c;
    eps_config(&c, 0, 4);
    c.rber.gamma = 1e-9;
    c.rber.p = 1;
    c.rber.q = 1.5;
    const uint64_t pe = 100;
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    REQUIRE(nand_set_wear(d, 8, pe) == NAND_OK);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 8);
    REQUIRE(nand_program(d, 8, 0, data, data + PS, NULL) == NAND_OK);
    REQUIRE(nand_program(d, 8, 1, data, data + PS, NULL) == NAND_OK);
    const double g = c.rber.gamma * pow((double)pe, c.rber.p);
    /* R counts every read of the block since erase, this one included */
    double got[2] = {0, 0}, want[2] = {0, 0};
    uint64_t R = 0;
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < 200; i++) {
            struct nand_result r;
            REQUIRE(nand_read_raw(d, 8, 0, buf, buf + PS, &r) == NAND_OK);
            R++;
            got[w] += r.raw_bit_errors;
            want[w] += page_lam(g * pow((double)R, c.rber.q));
        }
        /* reads of the other page disturb this one too */
        for (int i = 0; i < 600; i++) {
            int rc = nand_read(d, 8, 1, NULL, buf, NULL);
            REQUIRE(rc == NAND_OK || rc == NAND_E_ECC);
            R++;
        }
    }
    struct nand_block_info bi;
    REQUIRE(nand_block_info(d, 8, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.reads_since_erase, R);
    for (int w = 0; w < 2; w++)
        CHECK_NEAR(got[w], want[w], 4 * sqrt(want[w]) + 1);
    CHECK(got[1] > 3 * got[0]);
    CHECK(want[1] > 3 * want[0]);
    /* reads of another block do not */
    REQUIRE(nand_program(d, 9, 0, data, data + PS, NULL) == NAND_OK);
    REQUIRE(nand_set_wear(d, 9, pe) == NAND_OK);
    struct moments m9 = {0, 0, 0};
    int mm = 0;
    REQUIRE(raw_reads(d, 9, 0, 20, data, &m9, &mm) == 0);
    CHECK(m9.sum < 5);
    /* erase resets the count */
    REQUIRE(nand_erase(d, 8, NULL) == NAND_OK);
    REQUIRE(nand_block_info(d, 8, &bi) == NAND_OK);
    CHECK_EQ_INT(bi.reads_since_erase, 0);
    REQUIRE(nand_program(d, 8, 0, data, data + PS, NULL) == NAND_OK);
    struct moments m8 = {0, 0, 0};
    REQUIRE(raw_reads(d, 8, 0, 20, data, &m8, &mm) == 0);
    CHECK(m8.sum < 5);
    nand_close(d);
}

/* Read (b, p) raw n times, recording errors and a digest of the data. */
static void record(nand_dev *d, nand_block_t b, nand_page_t p, int n,
                   uint32_t *errs, uint64_t *digest)
{
    uint8_t buf[PB];
    for (int i = 0; i < n; i++) {
        struct nand_result r;
        errs[i] = ~0u;
        if (nand_read_raw(d, b, p, buf, buf + PS, &r) != NAND_OK)
            continue;
        errs[i] = r.raw_bit_errors;
        uint64_t h = 1469598103934665603ull;
        for (uint32_t j = 0; j < PB; j++)
            h = (h ^ buf[j]) * 1099511628211ull;
        digest[i] = h;
    }
}

TEST(errors_do_not_depend_on_unrelated_operations)
{
    enum { N = 40 };
    struct nand_config c;
    eps_config(&c, 1e-3, 4);
    nand_dev *a = fx_create(&c), *b = fx_create(&c);
    REQUIRE(a && b);
    uint8_t data[PB], other[PB], buf[PB];
    fx_fill(data, PB, 9);
    fx_fill(other, PB, 10);

    /* a: just the page */
    REQUIRE(nand_program(a, 5, 0, data, data + PS, NULL) == NAND_OK);
    uint32_t ea[N], eb[N];
    uint64_t ha[N], hb[N];
    record(a, 5, 0, N, ea, ha);

    /* b: a busy life elsewhere first, and in between */
    for (nand_block_t x = 10; x < 20; x++) {
        REQUIRE(nand_program(b, x, 0, other, other + PS, NULL) == NAND_OK);
        int rc = nand_read(b, x, 0, buf, buf + PS, NULL);
        REQUIRE(rc == NAND_OK || rc == NAND_E_ECC);
        REQUIRE(nand_erase(b, x, NULL) == NAND_OK);
        REQUIRE(nand_program(b, x, 0, other, NULL, NULL) == NAND_OK);
    }
    REQUIRE(nand_is_bad(b, 100) == 0);
    struct nand_op op = {.kind = NAND_OP_PROGRAM, .block = 90, .data = other};
    REQUIRE(nand_submit(b, &op) == NAND_OK);
    nand_wait(b);
    nand_advance(b, 5 * NS_PER_HOUR);
    REQUIRE(nand_program(b, 5, 0, data, data + PS, NULL) == NAND_OK);
    uint8_t tmp[PB];
    for (int i = 0; i < N; i++) {
        record(b, 5, 0, 1, &eb[i], &hb[i]);
        REQUIRE(nand_read_raw(b, 11, 0, tmp, NULL, NULL) == NAND_OK);
        REQUIRE(nand_read(b, 6, 0, tmp, NULL, NULL) == NAND_OK); /* erased */
    }
    int same = 0, nonzero = 0;
    for (int i = 0; i < N; i++) {
        same += ea[i] == eb[i] && ha[i] == hb[i];
        nonzero += ea[i] != 0;
    }
    CHECK_EQ_INT(same, N);
    CHECK(nonzero > N / 2);
    nand_close(a);
    nand_close(b);
}

TEST(same_seed_same_errors_other_seed_other_errors)
{
    enum { N = 200 };
    uint32_t e[3][N];
    uint64_t h[3][N];
    uint8_t data[PB];
    fx_fill(data, PB, 11);
    for (int k = 0; k < 3; k++) {
        struct nand_config c;
        eps_config(&c, 1e-3, 4);
        c.seed = k == 2 ? 777 : 42;
        nand_dev *d = fx_create(&c);
        REQUIRE(d);
        REQUIRE(nand_program(d, 12, 3, data, data + PS, NULL) == NAND_OK);
        record(d, 12, 3, N, e[k], h[k]);
        nand_close(d);
    }
    int same01 = 0, same02 = 0;
    for (int i = 0; i < N; i++) {
        same01 += e[0][i] == e[1][i] && h[0][i] == h[1][i];
        same02 += h[0][i] == h[2][i];
    }
    CHECK_EQ_INT(same01, N);
    CHECK(same02 < N / 10);
}

TEST(flip_positions_are_fresh_after_an_erase)
{
    /* the same page, data and read index in two P/E cycles: the flipped
     * bits must be drawn anew, not repeat the previous cycle's */
    enum { N = 200 };
    struct nand_config c;
    eps_config(&c, 1e-3, 4);
    nand_dev *d = fx_create(&c);
    REQUIRE(d);
    uint8_t data[PB], buf[PB];
    fx_fill(data, PB, 12);
    static uint8_t flips[N][PB];
    uint64_t total = 0, common = 0;
    for (int cycle = 0; cycle < 2; cycle++) {
        REQUIRE(nand_erase(d, 13, NULL) == NAND_OK);
        REQUIRE(nand_program(d, 13, 0, data, data + PS, NULL) == NAND_OK);
        for (int i = 0; i < N; i++) {
            REQUIRE(nand_read_raw(d, 13, 0, buf, buf + PS, NULL) == NAND_OK);
            for (uint32_t j = 0; j < PB; j++) {
                uint8_t x = buf[j] ^ data[j];
                if (cycle == 0) {
                    flips[i][j] = x;
                } else {
                    total += (uint64_t)__builtin_popcount(x);
                    common += (uint64_t)__builtin_popcount(x & flips[i][j]);
                }
            }
        }
    }
    /* independent draws share a flipped bit with probability ~k/bits */
    CHECK(total > 1000);
    CHECK(common < total / 100 + 5);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(mean_raw_errors_match_rber);
    RUN(very_high_rber_uses_the_normal_approximation);
    RUN(raw_reads_flip_fresh_bits_each_time);
    RUN(ecc_corrects_up_to_t_bits);
    RUN(beyond_t_reads_are_uncorrectable_and_really_corrupt);
    RUN(reads_never_change_stored_data);
    RUN(retention_errors_grow_with_time);
    RUN(read_disturb_grows_with_reads_of_the_block);
    RUN(errors_do_not_depend_on_unrelated_operations);
    RUN(same_seed_same_errors_other_seed_other_errors);
    RUN(flip_positions_are_fresh_after_an_erase);
    return test_summary(argv[0]);
}
