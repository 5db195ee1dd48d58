/*
 * test_traces.c -- the trace readers (MSR, blkparse, fio, fs-op) and the
 * fs-op writer.  Sample traces are written into a fresh temporary
 * directory, read back, and every field of every record is checked; each
 * format's errors must name the line and the field.  The fs-op writer and
 * reader must round-trip any name and, over a few thousand seeded random
 * records, give back the same records and the same bytes.
 */
#include "rng.h"
#include "fixture.h"
#include "trace.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

/* Write len bytes as name in the scratch directory; its path (tmpdir.h's
 * tmp_path: valid for the next 7 paths). */
static const char *put(const char *name, const char *data, size_t len)
{
    const char *path = tmp_write_bytes(name, data, len);
    if (!path) {
        fprintf(stderr, "cannot write %s\n", tmp_path(name));
        exit(2);
    }
    return path;
}
#define PUT(name, lit) put(name, lit, sizeof lit - 1)

/* Every record of a trace, names copied (the reader's die on the next call). */
#define MAXR 64
struct got {
    struct trace_rec rec[MAXR];
    int n, rc; /* rc: 0 at a clean end, else the error */
    struct trace_error err;
    uint64_t skipped;
    enum trace_format fmt;
    uint32_t disks;
};

static char *dup_name(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void read_all(const char *path, const struct trace_opts *o, struct got *g)
{
    struct trace_reader *r;
    struct trace_rec rec;
    memset(g, 0, sizeof *g);
    g->rc = trace_open_opts(path, o, &r, &g->err);
    if (g->rc)
        return;
    while ((g->rc = trace_next(r, &rec, &g->err)) > 0 && g->n < MAXR) {
        rec.path = dup_name(rec.path);
        rec.path2 = dup_name(rec.path2);
        g->rec[g->n++] = rec;
    }
    g->skipped = trace_skipped(r);
    g->fmt = trace_reader_format(r);
    g->disks = trace_disk_count(r);
    trace_close(r);
}

static void got_free(struct got *g)
{
    for (int i = 0; i < g->n; i++) {
        free((void *)g->rec[i].path);
        free((void *)g->rec[i].path2);
    }
}

static void read_fmt(const char *path, enum trace_format fmt, struct got *g)
{
    struct trace_opts o = {.format = fmt};
    read_all(path, &o, g);
}

static void check_blk(const struct trace_rec *r, uint64_t t, uint32_t disk, enum trace_op op,
                      uint64_t off, uint64_t len, uint32_t flags)
{
    CHECK_EQ_INT(r->time_ns, t);
    CHECK_EQ_INT(r->disk, disk);
    CHECK_EQ_INT(r->op, op);
    CHECK_EQ_INT(r->offset, off);
    CHECK_EQ_INT(r->length, len);
    CHECK_EQ_INT(r->flags, flags);
    CHECK(r->path == NULL && r->path2 == NULL);
    CHECK_EQ_INT(r->mode, 0);
    CHECK_EQ_INT(r->size, 0);
}

/* The text (a whole file) must fail at `line` with a message holding `want`. */
static void expect_err(enum trace_format fmt, const char *text, uint64_t line, const char *want)
{
    struct got g;
    read_fmt(put("bad.trace", text, strlen(text)), fmt, &g);
    got_free(&g);
    if (g.rc != -EINVAL || g.err.line != line || !strstr(g.err.msg, want)) {
        fprintf(stderr, "  %s: got rc %d at line %llu: \"%s\", expected line %llu with \"%s\"\n",
                trace_format_name(fmt), g.rc, (unsigned long long)g.err.line, g.err.msg,
                (unsigned long long)line, want);
        test_failed_now = 1;
    }
    CHECK(strstr(g.err.file, "bad.trace") != NULL);
}

/* ---- MSR Cambridge ---------------------------------------------------- */

static const char msr_sample[] =
    "128166372003061629,src1,2,Read,7014609920,24576,41286\n"
    "128166372016382155,src1,2,Write,1317441536,8192,1963\n"
    "128166372016382155,src1,0,write,0,512,100\r\n"
    "\n"
    "128166372026382245,src1,4294967295,READ,18446744073709543423,8192,1\n";

static void check_msr(const struct got *g)
{
    REQUIRE(g->rc == 0 && g->n == 4);
    check_blk(&g->rec[0], 0, 2, TRACE_READ, 7014609920ull, 24576, 0);
    check_blk(&g->rec[1], 13320526ull * 100, 2, TRACE_WRITE, 1317441536ull, 8192, 0);
    check_blk(&g->rec[2], 13320526ull * 100, 0, TRACE_WRITE, 0, 512, 0);
    check_blk(&g->rec[3], 23320616ull * 100, UINT32_MAX, TRACE_READ,
              UINT64_MAX - 8192, 8192, 0);
}

TEST(msr_records)
{
    struct got g;
    read_fmt(PUT("msr.csv", msr_sample), TRACE_MSR, &g);
    check_msr(&g);
    got_free(&g);
    /* a column-name line first, as some copies have */
    char buf[1024];
    snprintf(buf, sizeof buf, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n%s",
             msr_sample);
    read_fmt(put("msr-h.csv", buf, strlen(buf)), TRACE_AUTO, &g);
    CHECK_EQ_INT(g.fmt, TRACE_MSR);
    check_msr(&g);
    got_free(&g);
}

TEST(msr_errors)
{
    const char *ok = "128166372003061629,src1,2,Read,0,512,1\n";
    char t[512];
#define MSR_BAD(second, line, want)                                                          \
    do {                                                                                     \
        snprintf(t, sizeof t, "%s%s", ok, second);                                           \
        expect_err(TRACE_MSR, t, line, want);                                                \
    } while (0)
    MSR_BAD("128166372016382155,src1,2,Write,12x,8192,1963\n", 2,
            "field 5 (Offset): not a number: \"12x\"");
    MSR_BAD("128166372016382155,src1,2,Write,0,8192\n", 2, "field 7 (ResponseTime): missing");
    MSR_BAD("128166372016382155,src1,2,Erase,0,8192,1\n", 2, "field 4 (Type): unknown type \"Erase\"");
    MSR_BAD("128166372016382155,src1,2,Write,18446744073709551616,1,1\n", 2,
            "field 5 (Offset): out of range");
    MSR_BAD("128166372016382155,src1,2,Write,18446744073709551615,1,1\n", 2,
            "offset 18446744073709551615 + length 1 overflows");
    MSR_BAD("128166372016382155,src1,4294967296,Write,0,1,1\n", 2, "field 3 (DiskNumber): out of range");
    MSR_BAD("128166372016382155,,2,Write,0,1,1\n", 2, "field 2 (Hostname): empty");
    MSR_BAD("128166372016382155,src1,2,Write,0,1,1,9\n", 2, "too many fields: 8");
    MSR_BAD("-5,src1,2,Write,0,1,1\n", 2, "field 1 (Timestamp): not a number");
    MSR_BAD("128166372003061628,src1,2,Write,0,1,1\n", 2, "before the first record");
    MSR_BAD("128166372016382155,src1,2,Wri", 2, "field 5 (Offset): missing");
    MSR_BAD("128166372016382155,src1,2,Wri", 2, "no newline");
    expect_err(TRACE_MSR, "1,h,0,Read,0,1,1\n1,h,0,Read,0,1\n", 2, "field 7");
    /* a NUL byte in a line */
    struct got g;
    read_fmt(put("nul.csv", "1,h,0,Read,0,1,1\n1,h\0,0,Read,0,1,1\n", 34), TRACE_MSR, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK_EQ_INT(g.err.line, 2);
    CHECK(strstr(g.err.msg, "NUL") != NULL);
    got_free(&g);
}

/* The caller's view: trace_perror prints FILE:LINE: message. */
TEST(error_print)
{
    char t[4096] = "";
    for (int i = 1; i < 17; i++)
        strcat(t, "128166372003061629,src1,2,Read,0,512,1\n");
    strcat(t, "128166372003061629,src1,2,Read,12x,512,1\n");
    const char *path = put("msr.csv", t, strlen(t));
    struct trace_reader *r;
    struct trace_rec rec;
    struct trace_error err;
    REQUIRE(trace_open(path, TRACE_MSR, &r, &err) == 0);
    int n = 0, rc;
    while ((rc = trace_next(r, &rec, &err)) > 0)
        n++;
    CHECK_EQ_INT(n, 16);
    CHECK_EQ_INT(rc, -EINVAL);
    CHECK_EQ_INT(err.line, 17);
    CHECK(!strcmp(err.msg, "field 5 (Offset): not a number: \"12x\""));
    struct trace_error saved = err;
    CHECK_EQ_INT(trace_next(r, &rec, &err), 0); /* a bad line does not stop the reader */
    trace_close(r);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    REQUIRE(f);
    snprintf(saved.file, sizeof saved.file, "msr.csv"); /* as if opened by that name */
    trace_perror(f, &saved);
    saved.line = 0;
    trace_perror(f, &saved);
    fclose(f);
    CHECK(!strcmp(out, "msr.csv:17: field 5 (Offset): not a number: \"12x\"\n"
                       "msr.csv: field 5 (Offset): not a number: \"12x\"\n"));
    free(out);
    size_t fl = strlen(err.file);
    CHECK(fl >= 7 && !strcmp(err.file + fl - 7, "msr.csv"));
    /* no such file: an error with no line */
    CHECK_EQ_INT(trace_open("/nonexistent/flashlab/x.csv", TRACE_AUTO, &r, &err), -ENOENT);
    CHECK(r == NULL);
    CHECK_EQ_INT(err.line, 0);
    CHECK(!strcmp(err.file, "/nonexistent/flashlab/x.csv"));
}

TEST(skip_bad_counts)
{
    const char *path = PUT("skip.csv", "1,h,0,Read,0,1,1\n"
                                       "2,h,0,Read,zz,1,1\n"
                                       "3,h,1,Write,8,2,1\n"
                                       "4,h,0,Nope,0,1,1\n"
                                       "5,h,2,Read,16,4,1");
    struct trace_opts o = {.format = TRACE_MSR, .skip_bad = 1};
    struct got g;
    read_all(path, &o, &g);
    REQUIRE(g.rc == 0 && g.n == 3);
    CHECK_EQ_INT(g.skipped, 2);
    check_blk(&g.rec[0], 0, 0, TRACE_READ, 0, 1, 0);
    check_blk(&g.rec[1], 200, 1, TRACE_WRITE, 8, 2, 0);
    check_blk(&g.rec[2], 400, 2, TRACE_READ, 16, 4, 0);
    got_free(&g);
    struct trace_reader *r;
    struct trace_rec rec;
    REQUIRE(trace_open_opts(path, &o, &r, NULL) == 0);
    CHECK(trace_first_skipped(r) == NULL);
    while (trace_next(r, &rec, NULL) > 0)
        ;
    const struct trace_error *e = trace_first_skipped(r);
    REQUIRE(e);
    CHECK_EQ_INT(e->line, 2);
    CHECK(strstr(e->msg, "field 5 (Offset)") != NULL);
    trace_close(r);
    /* a bad header is never skipped */
    o.format = TRACE_FIO;
    read_all(PUT("skip.fio", "fio version 9 iolog\n/dev/a add\n"), &o, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK_EQ_INT(g.err.line, 1);
    got_free(&g);
    /* and blkparse lines are counted too */
    o.format = TRACE_BLKPARSE;
    read_all(PUT("skip.blk", "8,0 0 1 0.1 5 Q W 1 + 8 [a]\n"
                             "8,0 0 2 0.2 5 Q W 1x + 8 [a]\n"
                             "8,0 0 3 0.3 5 Q R 2 + 8 [a]\n"),
             &o, &g);
    CHECK_EQ_INT(g.n, 2);
    CHECK_EQ_INT(g.skipped, 1);
    got_free(&g);
}

/* ---- blkparse --------------------------------------------------------- */

static const char blk_sample[] =
    "  8,0    3        1     0.000000000   697  A  WS 223490 + 8 <- (8,1) 223427\n"
    "  8,0    3        2     0.000001000   697  Q  WS 223490 + 8 [kjournald]\n"
    "  8,0    3        3     0.000002000   697  G  WS 223490 + 8 [kjournald]\n"
    "  8,0    3        4     0.000003000   697  P   N [kjournald]\n"
    "  8,0    3        5     0.000004000   697  I  WS 223490 + 8 [kjournald]\n"
    "  8,0    3        6     0.000005000   697  U   N [kjournald] 1\n"
    "  8,0    3        7     0.000006000   697  D  WS 223490 + 8 [kjournald]\n"
    "  8,0    1        1     0.000100000     0  C  WS 223490 + 8 [0]\n"
    "  8,16   0        1     0.5          1234  Q   R 100 + 16 [cat]\n"
    "  8,0    2        8     1.000000000   100  Q FWS [kworker/2:1]\n"
    "  8,0    2        9     1.100000000   100  Q  FN [kworker/2:1]\n"
    "  8,0    2       10     1.200000000   200  Q   D 2048 + 2048 [fstrim]\n"
    "  8,0    2       11     1.300000000   200  m   N cfq200 insert_request\n"
    "  8,16   1       12     2.000000000   300  Q WFSM 64 + 8 [Web Content]\n"
    "  8,0    1       13     2.500000000   300  Q FWFS 72 + 8 [jbd2/sda1-8]\n"
    "  8,0    0       14     3.000000000   400  Q   R 0 (12 00 00 ..) [smartctl]\n"
    "  8,0    0       15     3.100000000   400  UT  N [swapper/0] 1\n"
    "\n"
    "CPU0 (8,0):\n"
    " Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB\n"
    " Read Dispatches:        0,        0KiB\t Write Dispatches:        1,        4KiB\n"
    "Total (8,0):\n"
    " Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB\n"
    "\n"
    "Throughput (R/W): 0KiB/s / 48KiB/s\n"
    "Events (8,0): 170 entries\n"
    "Skips: 0 forward (0 -   0.0%)\n";

TEST(blkparse_records)
{
    struct got g;
    read_fmt(PUT("blk.txt", blk_sample), TRACE_BLKPARSE, &g);
    REQUIRE(g.rc == 0 && g.n == 7);
    CHECK_EQ_INT(g.disks, 2); /* "8,0" -> 0, "8,16" -> 1 */
    check_blk(&g.rec[0], 1000, 0, TRACE_WRITE, 223490ull * 512, 4096, TRACE_BLK_SYNCIO);
    check_blk(&g.rec[1], 500000000, 1, TRACE_READ, 51200, 8192, 0);
    check_blk(&g.rec[2], 1000000000, 0, TRACE_SYNC, 0, 0, TRACE_BLK_SYNCIO);
    check_blk(&g.rec[3], 1100000000, 0, TRACE_SYNC, 0, 0, 0);
    check_blk(&g.rec[4], 1200000000, 0, TRACE_DISCARD, 1048576, 1048576, 0);
    check_blk(&g.rec[5], 2000000000, 1, TRACE_WRITE, 32768, 4096,
              TRACE_BLK_FUA | TRACE_BLK_SYNCIO | TRACE_BLK_META);
    check_blk(&g.rec[6], 2500000000, 0, TRACE_WRITE, 36864, 4096,
              TRACE_BLK_PREFLUSH | TRACE_BLK_FUA | TRACE_BLK_SYNCIO);
    got_free(&g);

    struct trace_opts o = {.format = TRACE_BLKPARSE, .blk_disk_minor = 1};
    read_all(PUT("blk.txt", blk_sample), &o, &g);
    REQUIRE(g.rc == 0 && g.n == 7);
    static const uint32_t minors[] = {0, 16, 0, 0, 0, 16, 0};
    for (int i = 0; i < 7; i++)
        CHECK_EQ_INT(g.rec[i].disk, minors[i]);
    CHECK_EQ_INT(g.disks, 0);
    got_free(&g);

    o = (struct trace_opts){.format = TRACE_BLKPARSE, .blk_action = 'D'};
    read_all(PUT("blk.txt", blk_sample), &o, &g);
    REQUIRE(g.rc == 0 && g.n == 1);
    check_blk(&g.rec[0], 6000, 0, TRACE_WRITE, 223490ull * 512, 4096, TRACE_BLK_SYNCIO);
    got_free(&g);
    o.blk_action = 'C';
    read_all(PUT("blk.txt", blk_sample), &o, &g);
    REQUIRE(g.rc == 0 && g.n == 1);
    check_blk(&g.rec[0], 100000, 0, TRACE_WRITE, 223490ull * 512, 4096, TRACE_BLK_SYNCIO);
    got_free(&g);
    o.blk_action = 'X';
    read_all(PUT("blk.txt", blk_sample), &o, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
}

TEST(blkparse_errors)
{
    const char *ok = "  8,0    3        1     0.000001000   697  Q  WS 8 + 8 [kjournald]\n";
    char t[512];
#define BLK_BAD(second, want)                                                                \
    do {                                                                                     \
        snprintf(t, sizeof t, "%s%s", ok, second);                                           \
        expect_err(TRACE_BLKPARSE, t, 2, want);                                              \
    } while (0)
    BLK_BAD("8,0 3 2 0.1 697 Q WS 2234x90 + 8 [kj]\n", "field 8 (SECTOR): not a number: \"2234x90\"");
    BLK_BAD("8,0 3 2 0.1 697 Q WS 223490 +\n", "field 10 (NSECTORS): missing");
    BLK_BAD("8,0 3 2 0.1 697 Q WS 223490 - 8 [kj]\n", "field 9 (+)");
    BLK_BAD("8,0 3 2 0.1 697 Q WX 1 + 8 [kj]\n", "field 7 (RWBS): unknown RWBS letters: \"WX\"");
    BLK_BAD("8,0 3 2 0.1 697 Q RE 1 + 8 [kj]\n", "field 7 (RWBS)");
    BLK_BAD("8,0 3 2 0.1 697 Q W 36028797018963968 + 8 [kj]\n", "field 8 (SECTOR): out of range");
    BLK_BAD("8,0 3 2 0.1 697 Q W 1 + 99999999999999999999 [kj]\n", "field 10 (NSECTORS): out of range");
    BLK_BAD("8,0 3 2 0.1 697 Q W 36028797018963967 + 1 [kj]\n", "overflows 64 bits");
    BLK_BAD("8,0 3 2 0.0000000001 697 Q W 1 + 8 [kj]\n", "field 4 (TIME): not a time");
    BLK_BAD("8,0 3 2 18446744073709551615.0 697 Q W 1 + 8 [kj]\n", "field 4 (TIME): out of range");
    BLK_BAD("8,0 x 2 0.1 697 Q W 1 + 8 [kj]\n", "field 2 (CPU): not a number");
    BLK_BAD("8,0 3 2 0.1 p697 Q W 1 + 8 [kj]\n", "field 5 (PID)");
    BLK_BAD("8x0 3 2 0.1 697 Q W 1 + 8 [kj]\n", "field 1 (DEVICE): not MAJ,MIN");
    BLK_BAD("8,0 3 2 0.1 697 Q W 1 + 8 [kj\n", "field 11 (PROCESS)");
    BLK_BAD("8,0 3 2 0.1 697 Q W 1 + 8 junk\n", "field 11 (PROCESS)");
    BLK_BAD("8,0 3 2 0.1 697 Q\n", "field 7 (RWBS): missing");
    BLK_BAD("8,0 3 2 0.1\n", "field 5 (PID): missing");
    /* truncated last lines */
    BLK_BAD("8,0 3 2 0.1 697 Q WS 223490", "field 9 (+): missing");
    BLK_BAD("8,0 3 2 0.1 697 Q WS 223490", "no newline");
    BLK_BAD("8,0 3 2 0.1 697 Q WS 223490 + 8 [kjour", "field 11 (PROCESS)");
    /* other actions are not checked beyond the action itself */
    struct got g;
    read_fmt(PUT("blk-other.txt", "8,0 3 2 0.1 697 D WS 2234x90 + 8 [kj]\n"
                                  "Total (8,0):\n"
                                  "8,0 3 2 0.1 697 C WQ\n"),
             TRACE_BLKPARSE, &g);
    CHECK_EQ_INT(g.rc, 0);
    CHECK_EQ_INT(g.n, 0);
    got_free(&g);
}

/* ---- fio iolog ------------------------------------------------------- */

TEST(fio_records)
{
    struct got g;
    read_fmt(PUT("v2.iolog", "fio version 2 iolog\n"
                             "/dev/sdb add\n"
                             "/data/f1 add\n"
                             "/dev/sdb open\n"
                             "/data/f1 open\n"
                             "/dev/sdb write 0 4096\n"
                             "/data/f1 read 8192 512\n"
                             "/dev/sdb wait 1500 0\n"
                             "/dev/sdb trim 4096 4096\n"
                             "/data/f1 sync 0 0\n"
                             "\n"
                             "/dev/sdb datasync 7 9\n"
                             "/dev/sdb add\n"
                             "/dev/sdb close\n"),
             TRACE_FIO, &g);
    REQUIRE(g.rc == 0 && g.n == 5);
    CHECK_EQ_INT(g.disks, 2);
    check_blk(&g.rec[0], 0, 0, TRACE_WRITE, 0, 4096, 0);
    check_blk(&g.rec[1], 0, 1, TRACE_READ, 8192, 512, 0);
    check_blk(&g.rec[2], 1500000, 0, TRACE_DISCARD, 4096, 4096, 0);
    check_blk(&g.rec[3], 1500000, 1, TRACE_SYNC, 0, 0, 0);
    check_blk(&g.rec[4], 1500000, 0, TRACE_SYNC, 0, 0, TRACE_BLK_DATASYNC);
    got_free(&g);

    struct trace_reader *r;
    REQUIRE(trace_open(PUT("v2.iolog", "fio version 2 iolog\n/dev/sdb add\n/data/f1 add\n"),
                       TRACE_FIO, &r, NULL) == 0);
    struct trace_rec rec;
    CHECK_EQ_INT(trace_next(r, &rec, NULL), 0);
    CHECK(!strcmp(trace_disk_name(r, 0), "/dev/sdb"));
    CHECK(!strcmp(trace_disk_name(r, 1), "/data/f1"));
    CHECK(trace_disk_name(r, 2) == NULL);
    trace_close(r);

    static const char v3[] = "fio version 3 iolog\n"
                             "2 /dev/nvme0n1 add\n"
                             "872 /dev/nvme0n1 open\n"
                             "878 /dev/nvme0n1 write 0 16384\n"
                             "880 /dev/nvme0n1 wait 5 0\n"
                             "888 /dev/nvme0n1 read 16384 4096\n"
                             "10001677 /dev/nvme0n1 close\n";
    read_fmt(PUT("v3.iolog", v3), TRACE_AUTO, &g);
    CHECK_EQ_INT(g.fmt, TRACE_FIO);
    REQUIRE(g.rc == 0 && g.n == 2);
    check_blk(&g.rec[0], 878000, 0, TRACE_WRITE, 0, 16384, 0); /* microseconds, as fio */
    check_blk(&g.rec[1], 888000, 0, TRACE_READ, 16384, 4096, 0);
    got_free(&g);
    struct trace_opts o = {.format = TRACE_FIO, .fio_v3_tick_ns = 1000000};
    read_all(PUT("v3.iolog", v3), &o, &g);
    REQUIRE(g.rc == 0 && g.n == 2);
    CHECK_EQ_INT(g.rec[0].time_ns, 878000000);
    got_free(&g);
}

TEST(fio_errors)
{
    const char *h = "fio version 2 iolog\n/dev/sdb add\n";
    char t[512];
#define FIO_BAD(third, want)                                                                 \
    do {                                                                                     \
        snprintf(t, sizeof t, "%s%s", h, third);                                             \
        expect_err(TRACE_FIO, t, 3, want);                                                   \
    } while (0)
    FIO_BAD("/dev/sdb erase 0 4096\n", "field 2 (ACTION): unknown action \"erase\"");
    FIO_BAD("/dev/sdc write 0 1\n", "field 1 (FILE): \"/dev/sdc\" was never added");
    FIO_BAD("/dev/sdc open\n", "field 1 (FILE)");
    FIO_BAD("/dev/sdb write 0x10 4096\n", "field 3 (OFFSET): not a number: \"0x10\"");
    FIO_BAD("/dev/sdb write 0\n", "field 4 (LENGTH): missing");
    FIO_BAD("/dev/sdb\n", "field 2 (ACTION): missing");
    FIO_BAD("/dev/sdb write 18446744073709551615 2\n", "overflows 64 bits");
    FIO_BAD("/dev/sdb read 1 18446744073709551616\n", "field 4 (LENGTH): out of range");
    FIO_BAD("/dev/sdb write 0 1 2\n", "too many fields: 5");
    FIO_BAD("/dev/sdb open 0\n", "too many fields: 3");
    FIO_BAD("/dev/sdb write 4096", "field 4 (LENGTH): missing");
    FIO_BAD("/dev/sdb write 4096", "no newline");
    expect_err(TRACE_FIO, "fio version 3 iolog\nx /dev/a add\n", 2, "field 1 (TIME): not a number");
    expect_err(TRACE_FIO, "fio version 3 iolog\n1 /dev/a add\n2 /dev/a write 0\n", 3,
               "field 5 (LENGTH): missing");
    expect_err(TRACE_FIO, "fio version 1 iolog\n", 1, "unsupported fio iolog version");
    expect_err(TRACE_FIO, "/dev/sdb add\n", 1, "not a fio iolog");
    struct got g;
    read_fmt(PUT("empty.iolog", ""), TRACE_FIO, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK(strstr(g.err.msg, "empty file") != NULL);
}

/* ---- fs-op traces ---------------------------------------------------- */

static void check_fs(const struct trace_rec *r, uint64_t t, enum trace_op op, const char *path,
                     const char *path2)
{
    CHECK_EQ_INT(r->time_ns, t);
    CHECK_EQ_INT(r->op, op);
    CHECK_EQ_INT(r->disk, 0);
    CHECK((path == NULL) == (r->path == NULL) && (!path || !strcmp(path, r->path)));
    CHECK((path2 == NULL) == (r->path2 == NULL) && (!path2 || !strcmp(path2, r->path2)));
}

TEST(fsop_records)
{
    struct got g;
    read_fmt(PUT("ops.fst", "flashlab-fstrace 1\n"
                            "# written by hand\n"
                            "0 mkdir /d 0755\n"
                            "10 create /d/a rw 0644\n"
                            "20 open /d/a%20b tcwr 0600\n"
                            "30 write /d/a 0 4096\n"
                            "40 read /d/a 100 200\n"
                            "\n"
                            "50 punch /d/a 8192 4096\n"
                            "60 truncate /d/a 123\n"
                            "70 fsync /d/a\n"
                            "80 close /d/a\n"
                            "90 rename /d/a /d/b\n"
                            "100 link /d/b /d/c\n"
                            "110 symlink ../b /d/s\n"
                            "120 unlink /d/c\n"
                            "130 rmdir /d\n"
                            "140 sync\n"
                            "150 open /x - 0\n"
                            "18446744073709551615 create /y%25z%e9 axs 7777\n"
                            "160 exchange /p /q\n"
                            "170 allocate /p 4096 8192\n"
                            "180 allocate-keep /q 0 18446744073709551615\n"),
             TRACE_FSOP, &g);
    if (g.rc)
        trace_perror(stderr, &g.err);
    REQUIRE(g.rc == 0 && g.n == 20);
    const struct trace_rec *r = g.rec;
    check_fs(&r[0], 0, TRACE_MKDIR, "/d", NULL);
    CHECK_EQ_INT(r[0].mode, 0755);
    check_fs(&r[1], 10, TRACE_CREATE, "/d/a", NULL);
    CHECK_EQ_INT(r[1].flags, TRACE_F_READ | TRACE_F_WRITE);
    CHECK_EQ_INT(r[1].mode, 0644);
    check_fs(&r[2], 20, TRACE_OPEN, "/d/a b", NULL);
    CHECK_EQ_INT(r[2].flags, TRACE_F_READ | TRACE_F_WRITE | TRACE_F_CREAT | TRACE_F_TRUNC);
    CHECK_EQ_INT(r[2].mode, 0600);
    check_fs(&r[3], 30, TRACE_WRITE, "/d/a", NULL);
    CHECK(r[3].offset == 0 && r[3].length == 4096);
    check_fs(&r[4], 40, TRACE_READ, "/d/a", NULL);
    CHECK(r[4].offset == 100 && r[4].length == 200);
    check_fs(&r[5], 50, TRACE_PUNCH, "/d/a", NULL);
    CHECK(r[5].offset == 8192 && r[5].length == 4096);
    check_fs(&r[6], 60, TRACE_TRUNCATE, "/d/a", NULL);
    CHECK_EQ_INT(r[6].size, 123);
    check_fs(&r[7], 70, TRACE_FSYNC, "/d/a", NULL);
    check_fs(&r[8], 80, TRACE_CLOSE, "/d/a", NULL);
    check_fs(&r[9], 90, TRACE_RENAME, "/d/a", "/d/b");
    check_fs(&r[10], 100, TRACE_LINK, "/d/b", "/d/c");
    check_fs(&r[11], 110, TRACE_SYMLINK, "../b", "/d/s");
    check_fs(&r[12], 120, TRACE_UNLINK, "/d/c", NULL);
    check_fs(&r[13], 130, TRACE_RMDIR, "/d", NULL);
    check_fs(&r[14], 140, TRACE_SYNC, NULL, NULL);
    check_fs(&r[15], 150, TRACE_OPEN, "/x", NULL);
    CHECK(r[15].flags == 0 && r[15].mode == 0);
    check_fs(&r[16], UINT64_MAX, TRACE_CREATE, "/y%z\xe9", NULL);
    CHECK_EQ_INT(r[16].flags, TRACE_F_APPEND | TRACE_F_EXCL | TRACE_F_SYNC);
    CHECK_EQ_INT(r[16].mode, 07777);
    check_fs(&r[17], 160, TRACE_EXCHANGE, "/p", "/q");
    check_fs(&r[18], 170, TRACE_ALLOCATE, "/p", NULL);
    CHECK(r[18].offset == 4096 && r[18].length == 8192);
    check_fs(&r[19], 180, TRACE_ALLOCATE_KEEP, "/q", NULL);
    CHECK(r[19].offset == 0 && r[19].length == UINT64_MAX);
    for (int i = 0; i < g.n; i++) { /* fields an op does not have stay 0 */
        if (r[i].op != TRACE_READ && r[i].op != TRACE_WRITE && r[i].op != TRACE_PUNCH &&
            r[i].op != TRACE_ALLOCATE && r[i].op != TRACE_ALLOCATE_KEEP)
            CHECK(r[i].offset == 0 && r[i].length == 0);
        if (r[i].op != TRACE_TRUNCATE)
            CHECK_EQ_INT(r[i].size, 0);
    }
    got_free(&g);
}

TEST(fsop_errors)
{
    char t[512];
#define FS_BAD(second, want)                                                                 \
    do {                                                                                     \
        snprintf(t, sizeof t, "flashlab-fstrace 1\n%s", second);                             \
        expect_err(TRACE_FSOP, t, 2, want);                                                  \
    } while (0)
    FS_BAD("10 write /a 1x 5\n", "field 4 (OFFSET): not a number: \"1x\"");
    FS_BAD("10 write /a 1\n", "field 5 (LENGTH): missing");
    FS_BAD("10 frob /a\n", "field 2 (OP): unknown op \"frob\"");
    FS_BAD("10 allocate /a 4096\n", "field 5 (LENGTH): missing");
    FS_BAD("10 allocate-keep /a -1 5\n", "field 4 (OFFSET): not a number: \"-1\"");
    FS_BAD("10 allocate /a 1 2 3\n", "too many fields: 6 (expected 5 for allocate)");
    FS_BAD("10 allocate /a 18446744073709551615 1\n", "overflows 64 bits");
    FS_BAD("10 write /a 18446744073709551615 1\n", "overflows 64 bits");
    FS_BAD("10 read /a 1 18446744073709551616\n", "field 5 (LENGTH): out of range");
    FS_BAD("18446744073709551616 sync\n", "field 1 (T_NS): out of range");
    FS_BAD("x sync\n", "field 1 (T_NS): not a number");
    FS_BAD("10 write /a 0", "field 5 (LENGTH): missing");
    FS_BAD("10 write /a 0", "no newline");
    FS_BAD("10 unlink /a%2\n", "field 3 (PATH): '%' must start %XX");
    FS_BAD("10 unlink /a%zz\n", "field 3 (PATH)");
    FS_BAD("10 unlink /a%00b\n", "field 3 (PATH): %00");
    FS_BAD("10 unlink /a\tb\n", "field 3 (PATH): a control byte");
    FS_BAD("10 unlink /a\r\n", "field 3 (PATH): a control byte");
    FS_BAD("10 rename /a\n", "field 4 (TO): missing");
    FS_BAD("10 symlink t\n", "field 4 (PATH): missing");
    FS_BAD("10 link %zz /b\n", "field 3 (FROM)");
    FS_BAD("10 mkdir /a 0789\n", "field 4 (MODE): not an octal mode");
    FS_BAD("10 mkdir /a 17777\n", "field 4 (MODE)");
    FS_BAD("10 open /a rq 0\n", "field 4 (FLAGS)");
    FS_BAD("10 open /a rr 0\n", "field 4 (FLAGS)");
    FS_BAD("10 truncate /a -1\n", "field 4 (SIZE): not a number");
    FS_BAD("10  sync\n", "field 2 (OP): empty");
    FS_BAD("10 close \n", "field 3 (PATH): empty");
    FS_BAD("10 sync \n", "too many fields: 3 (expected 2 for sync)");
    FS_BAD("10 unlink /a /b\n", "too many fields: 4");
    FS_BAD("10\n", "field 2 (OP): missing");
    expect_err(TRACE_FSOP, "flashlab-fstrace 2\n", 1, "unsupported version");
    expect_err(TRACE_FSOP, "10 sync\n", 1, "not a flashlab fs-op trace");
    struct got g;
    read_fmt(PUT("empty.fst", ""), TRACE_FSOP, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK(strstr(g.err.msg, "empty file") != NULL);
}

static void check_same(const struct trace_rec *a, const struct trace_rec *b)
{
    CHECK_EQ_INT(a->time_ns, b->time_ns);
    CHECK_EQ_INT(a->op, b->op);
    CHECK_EQ_INT(a->disk, b->disk);
    CHECK_EQ_INT(a->offset, b->offset);
    CHECK_EQ_INT(a->length, b->length);
    CHECK_EQ_INT(a->mode, b->mode);
    CHECK_EQ_INT(a->flags, b->flags);
    CHECK_EQ_INT(a->size, b->size);
    CHECK((a->path == NULL) == (b->path == NULL) && (!a->path || !strcmp(a->path, b->path)));
    CHECK((a->path2 == NULL) == (b->path2 == NULL) && (!a->path2 || !strcmp(a->path2, b->path2)));
}

/* Write n records as an fs-op trace in the scratch directory; its path. */
static const char *write_trace(const char *name, const struct trace_rec *rec, int n)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    int bad = trace_write_fsop_header(f);
    for (int i = 0; i < n && !bad; i++)
        bad = trace_write_fsop(f, &rec[i]);
    if (fclose(f) || bad) {
        fprintf(stderr, "  writing record failed: %d\n", bad);
        return NULL;
    }
    return path;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    int c;
    while (f && m && (c = getc(f)) != EOF)
        putc(c, m);
    if (f)
        fclose(f);
    if (m)
        fclose(m);
    *len = n;
    return buf;
}

TEST(fsop_special_names)
{
    static const char *const names[] = {
        "/dir with spaces/file name", "/100%/x%20y", "/new\nline\r\n",
        "/\xc3\xa9t\xc3\xa9/\xff\x01\x7f\x80", "# not a comment", "-", "\t", " ", "%",
        "%%41", "/a\\b\"c'", "0 sync", "\xe2\x82\xac\xf0\x9f\x92\xa9",
    };
    enum { N = sizeof names / sizeof names[0] };
    struct trace_rec rec[3 * N];
    for (int i = 0; i < N; i++) {
        rec[3 * i] = (struct trace_rec){.time_ns = (uint64_t)i, .op = TRACE_WRITE,
                                        .path = names[i], .offset = 7, .length = 9};
        rec[3 * i + 1] = (struct trace_rec){.op = TRACE_RENAME, .path = names[i],
                                            .path2 = names[(i + 1) % N]};
        rec[3 * i + 2] = (struct trace_rec){.op = TRACE_CREATE, .path = names[i],
                                            .flags = TRACE_F_WRITE, .mode = 0600};
    }
    const char *path = write_trace("names.fst", rec, 3 * N);
    REQUIRE(path);
    size_t len;
    char *text = slurp(path, &len);
    REQUIRE(text);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    CHECK_EQ_INT(lines, 3 * N + 1); /* every newline in a name was escaped */
    CHECK(strstr(text, "0 write /dir%20with%20spaces/file%20name 7 9\n") != NULL);
    CHECK(strstr(text, " /100%25/x%2520y ") != NULL);
    free(text);
    struct got g;
    read_fmt(path, TRACE_AUTO, &g);
    CHECK_EQ_INT(g.fmt, TRACE_FSOP);
    REQUIRE(g.rc == 0 && g.n == 3 * N);
    for (int i = 0; i < 3 * N; i++)
        check_same(&g.rec[i], &rec[i]);
    got_free(&g);
}

/* Which fields each fs op carries (independent of the library's table). */
static const struct shape {
    enum trace_op op;
    int path, path2, mode, flags, range, size;
} shapes[] = {
    {TRACE_READ, 1, 0, 0, 0, 1, 0},   {TRACE_WRITE, 1, 0, 0, 0, 1, 0},
    {TRACE_PUNCH, 1, 0, 0, 0, 1, 0},  {TRACE_SYNC, 0, 0, 0, 0, 0, 0},
    {TRACE_MKDIR, 1, 0, 1, 0, 0, 0},  {TRACE_RMDIR, 1, 0, 0, 0, 0, 0},
    {TRACE_CREATE, 1, 0, 1, 1, 0, 0}, {TRACE_OPEN, 1, 0, 1, 1, 0, 0},
    {TRACE_CLOSE, 1, 0, 0, 0, 0, 0},  {TRACE_TRUNCATE, 1, 0, 0, 0, 0, 1},
    {TRACE_UNLINK, 1, 0, 0, 0, 0, 0}, {TRACE_RENAME, 1, 1, 0, 0, 0, 0},
    {TRACE_LINK, 1, 1, 0, 0, 0, 0},   {TRACE_SYMLINK, 1, 1, 0, 0, 0, 0},
    {TRACE_FSYNC, 1, 0, 0, 0, 0, 0},  {TRACE_EXCHANGE, 1, 1, 0, 0, 0, 0},
    {TRACE_ALLOCATE, 1, 0, 0, 0, 1, 0}, {TRACE_ALLOCATE_KEEP, 1, 0, 0, 0, 1, 0},
};

static uint64_t rnd(uint64_t i, uint64_t k)
{
    return rng_key(20240601, 1000, i, k, 0, 0);
}

/* Mostly full-range values, with the edges and small ones mixed in. */
static uint64_t rnd_value(uint64_t i, uint64_t k)
{
    uint64_t h = rnd(i, k);
    switch (h % 8) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return (h >> 8) % 100000;
    default: return rnd(i, k + 1000);
    }
}

static void rnd_name(char *out, uint64_t i, uint64_t k)
{
    uint64_t h = rnd(i, k);
    int len = 1 + (int)(h % 47), ascii = (h >> 8) & 1;
    for (int j = 0; j < len; j++) {
        uint64_t b = rnd(i, k * 100 + (uint64_t)j + 7);
        out[j] = ascii ? "abcxyz/._- %"[b % 12] : (char)(1 + b % 255);
    }
    out[len] = '\0';
}

TEST(fsop_random_roundtrip)
{
    int n = test_long() ? 50000 : 4000;
    struct trace_rec *rec = calloc((size_t)n, sizeof *rec);
    char (*names)[2][48] = calloc((size_t)n, sizeof *names);
    REQUIRE(rec && names);
    for (int i = 0; i < n; i++) {
        const struct shape *s = &shapes[rnd(i, 1) % (sizeof shapes / sizeof shapes[0])];
        struct trace_rec *r = &rec[i];
        r->op = s->op;
        r->time_ns = rnd_value(i, 2);
        if (s->path)
            rnd_name(names[i][0], i, 3), r->path = names[i][0];
        if (s->path2)
            rnd_name(names[i][1], i, 4), r->path2 = names[i][1];
        if (s->mode)
            r->mode = (uint32_t)(rnd(i, 5) & 07777);
        if (s->flags)
            r->flags = (uint32_t)(rnd(i, 6) & TRACE_F_ALL);
        if (s->range) {
            r->offset = rnd_value(i, 7);
            r->length = rnd_value(i, 8);
            if (r->length > UINT64_MAX - r->offset)
                r->length = UINT64_MAX - r->offset;
        }
        if (s->size)
            r->size = rnd_value(i, 9);
    }
    const char *p = write_trace("random.fst", rec, n);
    REQUIRE(p);
    char first[512];
    snprintf(first, sizeof first, "%s", p);

    /* read back, compare, and write what was read */
    struct trace_reader *rd;
    struct trace_rec got;
    struct trace_error err;
    REQUIRE(trace_open(first, TRACE_AUTO, &rd, &err) == 0);
    char second[512];
    snprintf(second, sizeof second, "%s", tmp_path("random2.fst"));
    FILE *out = fopen(second, "w");
    REQUIRE(out);
    trace_write_fsop_header(out);
    int i = 0, rc, bad = 0;
    while ((rc = trace_next(rd, &got, &err)) > 0 && i < n) {
        int was = test_failed_now;
        check_same(&got, &rec[i]);
        if (test_failed_now != was && bad++ > 3)
            break;
        CHECK_EQ_INT(trace_write_fsop(out, &got), 0);
        i++;
    }
    if (rc < 0)
        trace_perror(stderr, &err);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(i, n);
    trace_close(rd);
    fclose(out);
    size_t l1, l2;
    char *a = slurp(first, &l1), *b = slurp(second, &l2);
    CHECK(a && b && l1 == l2 && !memcmp(a, b, l1)); /* canonical: same bytes */
    free(a);
    free(b);
    free(rec);
    free(names);
}

TEST(fsop_writer_rejects)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    struct trace_rec r = {.op = TRACE_WRITE, .offset = 0, .length = 1};
    CHECK_EQ_INT(trace_write_fsop(f, &r), -EINVAL); /* a block record: no path */
    r.path = "";
    CHECK_EQ_INT(trace_write_fsop(f, &r), -EINVAL);
    r.path = "/a";
    r.offset = UINT64_MAX;
    CHECK_EQ_INT(trace_write_fsop(f, &r), -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = TRACE_MKDIR, .path = "/a",
                                                         .mode = 010000}), -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = TRACE_OPEN, .path = "/a",
                                                         .flags = TRACE_F_ALL + 1}), -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = TRACE_RENAME, .path = "/a"}),
                 -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = 0}), -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = 99}), -EINVAL);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = TRACE_SYNC, .time_ns = 5}), 0);
    CHECK_EQ_INT(trace_write_fsop(f, &(struct trace_rec){.op = TRACE_OPEN, .path = "/a"}), 0);
    fclose(f);
    CHECK(buf && !strcmp(buf, "5 sync\n0 open /a - 0000\n")); /* nothing of the rejects */
    free(buf);
    CHECK(!strcmp(trace_op_name(TRACE_PUNCH), "punch"));
    CHECK(!strcmp(trace_op_name(TRACE_SYMLINK), "symlink"));
    CHECK(trace_op_name(0) == NULL);
}

TEST(auto_detect)
{
    static const struct {
        const char *name, *text;
        enum trace_format fmt;
        int n;
    } c[] = {
        {"a.csv", msr_sample, TRACE_MSR, 4},
        {"a.blk", blk_sample, TRACE_BLKPARSE, 7},
        {"b.blk", "8,0 0 1 0.1 5 Q W 1 + 8 [a]\n", TRACE_BLKPARSE, 1},
        {"a.fio", "fio version 2 iolog\n/dev/a add\n/dev/a write 0 1\n", TRACE_FIO, 1},
        {"a.fst", "flashlab-fstrace 1\n5 sync\n", TRACE_FSOP, 1},
    };
    struct got g;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        read_fmt(put(c[i].name, c[i].text, strlen(c[i].text)), TRACE_AUTO, &g);
        CHECK_EQ_INT(g.rc, 0);
        CHECK_EQ_INT(g.fmt, c[i].fmt);
        CHECK_EQ_INT(g.n, c[i].n);
        got_free(&g);
    }
    read_fmt(PUT("what.txt", "hello world\n1,2,3\n"), TRACE_AUTO, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK_EQ_INT(g.err.line, 1);
    CHECK(strstr(g.err.msg, "cannot detect the trace format from \"hello world\"") != NULL);
    read_fmt(PUT("empty.txt", ""), TRACE_AUTO, &g);
    CHECK_EQ_INT(g.rc, -EINVAL);
    CHECK(strstr(g.err.msg, "empty file") != NULL);
}

/* Lines longer than any fixed buffer (64 KiB and more) read whole. */
TEST(long_lines)
{
    size_t n = 100 * 1024;
    char *name = malloc(n + 1), *text = malloc(n + 256);
    REQUIRE(name && text);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)(1 + i % 255); /* every byte but NUL: escapes triple it */
    name[n] = '\0';
    struct trace_rec rec = {.time_ns = 42, .op = TRACE_UNLINK, .path = name};
    const char *p = write_trace("long.fst", &rec, 1);
    REQUIRE(p);
    struct got g;
    read_fmt(p, TRACE_FSOP, &g);
    REQUIRE(g.rc == 0 && g.n == 1);
    check_same(&g.rec[0], &rec);
    got_free(&g);

    size_t k = (size_t)sprintf(text, "1,");
    memset(text + k, 'h', 70000);
    k += 70000;
    k += (size_t)sprintf(text + k, ",3,Write,4096,512,7\n2,h,0,Read,0,1,1\n");
    read_fmt(put("long.csv", text, k), TRACE_MSR, &g);
    REQUIRE(g.rc == 0 && g.n == 2);
    check_blk(&g.rec[0], 0, 3, TRACE_WRITE, 4096, 512, 0);
    check_blk(&g.rec[1], 100, 0, TRACE_READ, 0, 1, 0);
    got_free(&g);

    k = (size_t)sprintf(text, "8,0 0 1 0.1 5 Q W 1 + 8 [");
    memset(text + k, 'p', 70000);
    k += 70000;
    k += (size_t)sprintf(text + k, "]\n8,0 0 1 0.2 5 Q R 2 + 8 [a]\n");
    read_fmt(put("long.blk", text, k), TRACE_BLKPARSE, &g);
    REQUIRE(g.rc == 0 && g.n == 2);
    check_blk(&g.rec[0], 100000000, 0, TRACE_WRITE, 512, 4096, 0);
    check_blk(&g.rec[1], 200000000, 0, TRACE_READ, 1024, 4096, 0);
    got_free(&g);
    free(name);
    free(text);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    if (tmp_dir_make("traces")) {
        perror("mkdtemp");
        return 2;
    }
    RUN(msr_records);
    RUN(msr_errors);
    RUN(error_print);
    RUN(skip_bad_counts);
    RUN(blkparse_records);
    RUN(blkparse_errors);
    RUN(fio_records);
    RUN(fio_errors);
    RUN(fsop_records);
    RUN(fsop_errors);
    RUN(fsop_special_names);
    RUN(fsop_random_roundtrip);
    RUN(fsop_writer_rejects);
    RUN(auto_detect);
    RUN(long_lines);
    tmp_dir_remove();
    return test_summary(argv[0]);
}
