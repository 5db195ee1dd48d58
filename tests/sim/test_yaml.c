/*
 * test_yaml.c -- the device YAML loader (sim/yaml_config.c) and the presets
 * in configs/devices/.
 */
#include "nand.h"
#include "fixture.h"

#include <ctype.h>
#include <errno.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

/* Write len bytes to path (created or truncated); 0 on success. */
static int write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(text, 1, len, f);
    return fclose(f) || n != len ? -1 : 0;
}

/* A fresh temporary file holding text; its path goes to path[64]. */
static int temp_file(char path[64], const char *text, size_t len)
{
    snprintf(path, 64, "/tmp/flashlab-yaml-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    if (write_file(path, text, len)) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* configs/devices/FILE, found from this source file's directory so that the
 * test runs from the project root (as make test does) or with an absolute
 * __FILE__ from anywhere. */
static void preset_path(char *out, size_t n, const char *file)
{
    const char *src = __FILE__, *slash = strrchr(src, '/');
    if (slash)
        snprintf(out, n, "%.*s/../../configs/devices/%s", (int)(slash - src), src,
                 file);
    else
        snprintf(out, n, "../../configs/devices/%s", file);
}

/* err is "PATH: msg" or "PATH:LINE:COL: msg" with LINE, COL >= 1. */
static int well_formed(const char *err, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(err, path, n) || err[n] != ':')
        return 0;
    const char *s = err + n + 1;
    if (*s == ' ')
        return s[1] != '\0';
    for (int part = 0; part < 2; part++) {
        if (*s < '1' || *s > '9')
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s++ != ':')
            return 0;
    }
    return *s == ' ' && s[1] != '\0';
}

/* A minimal valid geometry, for files that test something else. */
#define GEO "geometry: {blocks_per_plane: 16, pages_per_block: 8, page_size: 512, oob_size: 16}\n"

/* ---- presets ------------------------------------------------------------ */

struct preset {
    const char *file;
    enum nand_cell cell;
    uint64_t dies, blocks, capacity;
    uint32_t ppb, page, oob, nop, pair, cw, t;
    uint64_t t_r, t_r_upper, t_prog, t_prog_upper, t_bers, endurance;
    double bad;
};

static const struct preset presets[] = {
    { "olpc-xo1-slc-1g.yaml", NAND_SLC, 2, 8192, 1ull << 30, 64, 2048, 64,
      4, 0, 2048, 4, 25000, 25000, 200000, 200000, 1500000, 100000, 0.005 },
    { "mlc-2g.yaml", NAND_MLC, 1, 4096, 2ull << 30, 128, 4096, 224, 1, 2,
      512, 15, 48000, 64000, 850000, 2300000, 3000000, 3000, 0.01 },
    { "mqsim-8g.yaml", NAND_MLC, 8, 4096, 8ull << 30, 256, 8192, 448, 1, 2,
      1024, 24, 75000, 75000, 750000, 750000, 3800000, 10000, 0 },
    { "test-64m.yaml", NAND_SLC, 1, 512, 64ull << 20, 64, 2048, 64, 4, 0,
      512, 1, 25000, 25000, 200000, 200000, 1500000, 100000, 0.01 },
};

TEST(presets_load)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const struct preset *p = &presets[i];
        char path[512], err[512], name[64];
        struct nand_config cfg;
        preset_path(path, sizeof path, p->file);
        int rc = nand_config_load(path, &cfg, err, sizeof err);
        if (rc)
            fprintf(stderr, "%s\n", err);
        REQUIRE(rc == NAND_OK);
        CHECK(err[0] == '\0');
        /* the name is the file's stem */
        snprintf(name, sizeof name, "%.*s", (int)(strlen(p->file) - 5), p->file);
        CHECK(strcmp(cfg.name, name) == 0);
        CHECK_EQ_INT(cfg.cell, p->cell);
        CHECK_EQ_INT(nand_dies(&cfg), p->dies);
        CHECK_EQ_INT(nand_blocks(&cfg), p->blocks);
        CHECK_EQ_INT(nand_capacity_bytes(&cfg), p->capacity);
        CHECK_EQ_INT(cfg.geo.pages_per_block, p->ppb);
        CHECK_EQ_INT(cfg.geo.page_size, p->page);
        CHECK_EQ_INT(cfg.geo.oob_size, p->oob);
        CHECK_EQ_INT(cfg.nop, p->nop);
        CHECK_EQ_INT(cfg.pair_distance, p->pair);
        CHECK_EQ_INT(cfg.ecc.codeword_bytes, p->cw);
        CHECK_EQ_INT(cfg.ecc.correct_bits, p->t);
        CHECK_EQ_INT(cfg.timing.t_r_ns, p->t_r);
        CHECK_EQ_INT(cfg.timing.t_r_upper_ns, p->t_r_upper);
        CHECK_EQ_INT(cfg.timing.t_prog_ns, p->t_prog);
        CHECK_EQ_INT(cfg.timing.t_prog_upper_ns, p->t_prog_upper);
        CHECK_EQ_INT(cfg.timing.t_bers_ns, p->t_bers);
        CHECK_EQ_INT(cfg.endurance, p->endurance);
        CHECK(cfg.factory_bad_fraction == p->bad);
        CHECK(cfg.endurance_sigma == 0.1);
        CHECK_EQ_INT(cfg.timing.whole_page_reads, 0);
    }
}

/* The part as nandsim emulates it is the OLPC part but for the name and
 * the charging of reads: same geometry, timing, seed and so bad blocks. */
TEST(nandsim_variant_differs_only_in_reads)
{
    char path[512], err[512];
    struct nand_config chip, sim;
    preset_path(path, sizeof path, "olpc-xo1-slc-1g.yaml");
    REQUIRE(nand_config_load(path, &chip, err, sizeof err) == NAND_OK);
    preset_path(path, sizeof path, "olpc-xo1-slc-1g-nandsim.yaml");
    REQUIRE(nand_config_load(path, &sim, err, sizeof err) == NAND_OK);
    CHECK(!strcmp(sim.name, "olpc-xo1-slc-1g-nandsim"));
    CHECK_EQ_INT(sim.timing.whole_page_reads, 1);
    sim.timing.whole_page_reads = 0;
    memcpy(sim.name, chip.name, sizeof sim.name);
    CHECK(strstr(sim.source, "nandsim") && !strstr(chip.source, "nandsim"));
    memcpy(sim.source, chip.source, sizeof sim.source);
    CHECK(!memcmp(&chip, &sim, sizeof chip));
}

/* ---- every key ------------------------------------------------------------ */

static const char every_key[] =
    "name: \"every key\"\n"
    "source: \"Grupp et al., MICRO 2009, table 1\"\n"
    "cell: tlc\n"
    "geometry: {channels: 2, dies_per_channel: 3, planes_per_die: 2,\n"
    "           blocks_per_plane: 100, pages_per_block: 96, page_size: 8192,\n"
    "           oob_size: 448}\n"
    "nop: 2\n"
    "pair_distance: 3\n"
    "timing:\n"
    "  t_r_ns: 56000\n"
    "  t_r_upper_ns: 120000\n"
    "  t_prog_ns: 700000\n"
    "  t_prog_upper_ns: 1400000\n"
    "  t_bers_ns: 5000000\n"
    "  t_cycle_ns: 10\n"
    "  bus_bytes: 2\n"
    "  addr_cycles: 6\n"
    "  whole_page_reads: yes\n"
    "endurance: 18446744073709551615\n"
    "endurance_sigma: 0.25\n"
    "endurance_scale: 1e-2\n"
    "initial_pe: 123\n"
    "factory_bad_fraction: 0.02\n"
    "rber: {eps: 1.48e-3, alpha: 3.90e-10, k: 2.05, beta: 6.28e-5, m: 0.14,\n"
    "       n: 0.54, gamma: 3.73e-9, p: 0.33, q: 1.71}\n"
    "ecc: {codeword_bytes: 1024, correct_bits: 40}\n"
    "seed: 4294967296\n"
    "dedup: true\n";

TEST(every_key_round_trips)
{
    char path[64], err[512];
    struct nand_config cfg;
    REQUIRE(temp_file(path, every_key, sizeof every_key - 1) == 0);
    int rc = nand_config_load(path, &cfg, err, sizeof err);
    unlink(path);
    if (rc)
        fprintf(stderr, "%s\n", err);
    REQUIRE(rc == NAND_OK);
    CHECK(strcmp(cfg.name, "every key") == 0);
    CHECK(strcmp(cfg.source, "Grupp et al., MICRO 2009, table 1") == 0);
    CHECK_EQ_INT(cfg.cell, NAND_TLC);
    CHECK_EQ_INT(cfg.geo.channels, 2);
    CHECK_EQ_INT(cfg.geo.dies_per_channel, 3);
    CHECK_EQ_INT(cfg.geo.planes_per_die, 2);
    CHECK_EQ_INT(cfg.geo.blocks_per_plane, 100);
    CHECK_EQ_INT(cfg.geo.pages_per_block, 96);
    CHECK_EQ_INT(cfg.geo.page_size, 8192);
    CHECK_EQ_INT(cfg.geo.oob_size, 448);
    CHECK_EQ_INT(cfg.nop, 2);
    CHECK_EQ_INT(cfg.pair_distance, 3);
    CHECK_EQ_INT(cfg.timing.t_r_ns, 56000);
    CHECK_EQ_INT(cfg.timing.t_r_upper_ns, 120000);
    CHECK_EQ_INT(cfg.timing.t_prog_ns, 700000);
    CHECK_EQ_INT(cfg.timing.t_prog_upper_ns, 1400000);
    CHECK_EQ_INT(cfg.timing.t_bers_ns, 5000000);
    CHECK_EQ_INT(cfg.timing.t_cycle_ns, 10);
    CHECK_EQ_INT(cfg.timing.bus_bytes, 2);
    CHECK_EQ_INT(cfg.timing.addr_cycles, 6);
    CHECK_EQ_INT(cfg.timing.whole_page_reads, 1);
    CHECK(cfg.endurance == UINT64_MAX);
    CHECK(cfg.endurance_sigma == 0.25);
    CHECK(cfg.endurance_scale == 1e-2);
    CHECK_EQ_INT(cfg.initial_pe, 123);
    CHECK(cfg.factory_bad_fraction == 0.02);
    CHECK(cfg.rber.eps == 1.48e-3);
    CHECK(cfg.rber.alpha == 3.90e-10);
    CHECK(cfg.rber.k == 2.05);
    CHECK(cfg.rber.beta == 6.28e-5);
    CHECK(cfg.rber.m == 0.14);
    CHECK(cfg.rber.n == 0.54);
    CHECK(cfg.rber.gamma == 3.73e-9);
    CHECK(cfg.rber.p == 0.33);
    CHECK(cfg.rber.q == 1.71);
    CHECK_EQ_INT(cfg.ecc.codeword_bytes, 1024);
    CHECK_EQ_INT(cfg.ecc.correct_bits, 40);
    CHECK_EQ_INT(cfg.seed, 4294967296ll);
    CHECK_EQ_INT(cfg.dedup, 1);
}

/* Keys left out keep nand_config_init's defaults, but for the source,
 * which names the built-in part's and so is "" in a file without one. */
TEST(absent_keys_keep_defaults)
{
    char path[64], err[512];
    struct nand_config got, want;
    REQUIRE(temp_file(path, GEO, sizeof GEO - 1) == 0);
    int rc = nand_config_load(path, &got, err, sizeof err);
    unlink(path);
    REQUIRE(rc == NAND_OK);
    nand_config_init(&want);
    want.geo.blocks_per_plane = 16;
    want.geo.pages_per_block = 8;
    want.geo.page_size = 512;
    want.geo.oob_size = 16;
    REQUIRE(nand_config_finish(&want, NULL, 0) == NAND_OK);
    CHECK(want.source[0] != '\0' && got.source[0] == '\0');
    memset(want.source, 0, sizeof want.source);
    CHECK(memcmp(&got, &want, sizeof got) == 0);
}

/* YAML spellings a hand-written file may use. */
TEST(yaml_spellings)
{
    static const char text[] =
        "%YAML 1.1\n"
        "---\n"
        "# a comment line\n"
        "\"name\": 'single quoted'   # quoted key and value\n"
        "geometry:\n"
        "  blocks_per_plane: +16\n"
        "  pages_per_block: 8\n"
        "  page_size: 512\n"
        "  oob_size: 16\n"
        "dedup: yes\n"
        "endurance_sigma: .5\n"
        "endurance_scale: 2.\n"
        "factory_bad_fraction: 0\n"
        "cell: &c mlc              # anchors are ignored\n"
        "...\n";
    char path[64], err[512];
    struct nand_config cfg;
    REQUIRE(temp_file(path, text, sizeof text - 1) == 0);
    int rc = nand_config_load(path, &cfg, err, sizeof err);
    unlink(path);
    if (rc)
        fprintf(stderr, "%s\n", err);
    REQUIRE(rc == NAND_OK);
    CHECK(strcmp(cfg.name, "single quoted") == 0);
    CHECK_EQ_INT(cfg.geo.blocks_per_plane, 16);
    CHECK_EQ_INT(cfg.dedup, 1);
    CHECK(cfg.endurance_sigma == 0.5);
    CHECK(cfg.endurance_scale == 2.0);
    CHECK_EQ_INT(cfg.cell, NAND_MLC);
}

/* ---- bad input ------------------------------------------------------------- */

struct bad {
    const char *text;
    size_t len;
    const char *where; /* "LINE:COL", or NULL for a "PATH: " message */
    const char *msg;   /* must appear in the message */
};

#define TXT(s) s, sizeof(s) - 1

static const struct bad bad_cases[] = {
    /* unknown keys */
    { TXT("name: x\nbogus: 1\n"), "2:1",
      "unknown key 'bogus' (valid keys: name, source, cell, geometry, nop," },
    { TXT("endurence: 5\n"), "1:1",
      "unknown key 'endurence' (did you mean 'endurance'?)" },
    { TXT("geometry: {channels: 1, pagesize: 2048}\n"), "1:25",
      "unknown key 'pagesize' in geometry (did you mean 'page_size'?)" },
    { TXT("timing:\n  t_r_ns: 1\n  tR: 25\n"), "3:3",
      "unknown key 'tR' in timing (valid keys: t_r_ns, t_r_upper_ns," },
    { TXT("\"nop\\0\": 1\n"), "1:1", "unknown key 'nop?'" },
    /* wrong types */
    { TXT("geometry:\n  page_size: abc\n"), "2:14",
      "geometry.page_size: expected an unsigned integer, got 'abc'" },
    { TXT("nop: {a: 1}\n"), "1:6",
      "nop: expected an unsigned integer, got a mapping" },
    { TXT("seed: [1, 2]\n"), "1:7",
      "seed: expected an unsigned integer, got a sequence" },
    { TXT("timing: 5\n"), "1:9", "timing: expected a mapping, got '5'" },
    { TXT("endurance: 1e5\n"), "1:12",
      "endurance: expected an unsigned integer, got '1e5'" },
    { TXT("nop: \"4\"\n"), "1:6",
      "nop: expected an unsigned integer, got the quoted string '4'" },
    { TXT("nop: 04\n"), "1:6", "nop: expected an unsigned integer, got '04'" },
    { TXT("nop: 0x10\n"), "1:6", "expected an unsigned integer, got '0x10'" },
    { TXT("nop:\nseed: 1\n"), "1:5",
      "nop: expected an unsigned integer, got an empty value" },
    { TXT("endurance_sigma: 0.1.2\n"), "1:18",
      "endurance_sigma: expected a number, got '0.1.2'" },
    { TXT("rber: {eps: .nan}\n"), "1:13", "rber.eps: expected a number" },
    { TXT("rber: {eps: 1e-}\n"), "1:13", "rber.eps: expected a number" },
    { TXT("dedup: maybe\n"), "1:8",
      "dedup: expected true, false, yes or no, got 'maybe'" },
    { TXT("dedup: 1\n"), "1:8", "dedup: expected true, false, yes or no" },
    { TXT("cell: qlc\n"), "1:7", "cell: expected slc, mlc or tlc, got 'qlc'" },
    { TXT("name: {a: b}\n"), "1:7", "name: expected a string, got a mapping" },
    { TXT("name: \"\"\n"), "1:7", "name: expected a non-empty string" },
    { TXT("name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"),
      "1:7", "name: too long (64 bytes, at most 63)" },
    { TXT("name: \"a\\tb\"\n"), "1:7", "name: must not contain control characters" },
    { TXT("source: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"),
      "1:9", "source: too long (160 bytes, at most 159)" },
    { TXT("source: \"\"\n"), "1:9", "source: expected a non-empty string" },
    { TXT("nop: &n 1\npair_distance: *n\n"), "2:16",
      "pair_distance: expected an unsigned integer, got an alias" },
    { TXT("? [a]\n: 1\n"), "1:3", "expected a key name, got a sequence" },
    /* negative and out of range */
    { TXT("endurance: -5\n"), "1:12", "endurance: must not be negative, got '-5'" },
    { TXT("ecc: {correct_bits: -1}\n"), "1:21",
      "ecc.correct_bits: must not be negative" },
    { TXT("geometry: {page_size: 4294967296}\n"), "1:23",
      "geometry.page_size: '4294967296' is out of range (at most 4294967295)" },
    { TXT("seed: 18446744073709551616\n"), "1:7",
      "seed: '18446744073709551616' is out of range (at most 18446744073709551615)" },
    { TXT("initial_pe: 99999999999999999999999999\n"), "1:13", "out of range" },
    { TXT("rber: {alpha: 1e999}\n"), "1:15", "rber.alpha: '1e999' is out of range" },
    /* duplicates */
    { TXT("nop: 1\npair_distance: 0\nnop: 2\n"), "3:1",
      "duplicate key 'nop' (first given at line 1, column 1)" },
    { TXT("ecc: {correct_bits: 1, correct_bits: 2}\n"), "1:24",
      "duplicate key 'ecc.correct_bits' (first given at line 1, column 7)" },
    { TXT("geometry: {}\n\ngeometry: {}\n"), "3:1",
      "duplicate key 'geometry' (first given at line 1, column 1)" },
    /* syntax errors */
    { TXT("geometry: {channels: 1, page_size: 2048\n"), "2:1",
      "did not find expected ',' or '}' (while parsing a flow mapping started at line 1, column 11)" },
    { TXT("name: \"abc\n"), "2:1",
      "found unexpected end of stream (while scanning a quoted scalar started at line 1, column 7)" },
    { TXT("name: x\n  seed: 2\n"), "2:7", "mapping values are not allowed" },
    { TXT("name: \xff\n"), "1:7", "invalid leading UTF-8 octet (character 0xFF)" },
    { TXT("nop: 1\nseed: 2\0\n"), "2:8", "control characters are not allowed" },
    /* the shape of the file */
    { TXT(""), "1:1", "empty file: expected a mapping of device keys" },
    { TXT("# nothing here\n"), "2:1", "empty file" },
    { TXT("- a\n- b\n"), "1:1",
      "the top level must be a mapping of device keys, got a sequence" },
    { TXT("hello\n"), "1:1", "the top level must be a mapping of device keys, got 'hello'" },
    { TXT("---\n"), "2:1", "the top level must be a mapping of device keys, got an empty value" },
    { TXT("nop: 1\n---\nnop: 2\n"), "2:1", "only one YAML document is allowed" },
    /* validation by nand_config_finish */
    { TXT("geometry: {blocks_per_plane: 8, pages_per_block: 4, page_size: 2000, oob_size: 64}\n"),
      NULL, "ecc codeword_bytes must divide page_size" },
    { TXT("name: x\n"), NULL,
      "geometry needs blocks_per_plane, pages_per_block and page_size" },
    { TXT(GEO "pair_distance: 8\n"), NULL, "pair_distance must be below pages_per_block" },
    { TXT(GEO "endurance_sigma: -0.5\n"), NULL, "endurance_sigma must be in [0, 1]" },
};

/* Load path expecting failure with "PATH:WHERE: ...MSG..."; the caller's
 * struct must be left alone. */
static int expect_error(const char *path, const char *where, const char *msg)
{
    char err[512], prefix[160];
    struct nand_config cfg, before;
    memset(&cfg, 0xA5, sizeof cfg);
    before = cfg;
    int rc = nand_config_load(path, &cfg, err, sizeof err);
    if (where)
        snprintf(prefix, sizeof prefix, "%s:%s: ", path, where);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    size_t n = strlen(prefix);
    int ok = rc == NAND_E_INVAL && !strncmp(err, prefix, n) &&
             strstr(err + n, msg) && !memcmp(&cfg, &before, sizeof cfg) &&
             well_formed(err, path);
    if (!ok)
        fprintf(stderr, "  rc %d, got \"%s\"\n  expected \"%s...%s...\"\n", rc,
                rc ? err : "", prefix, msg);
    return ok;
}

TEST(bad_inputs)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad *b = &bad_cases[i];
        char path[64];
        REQUIRE(temp_file(path, b->text, b->len) == 0);
        if (!expect_error(path, b->where, b->msg)) {
            fprintf(stderr, "  case %zu: %.*s\n", i, (int)b->len, b->text);
            test_failed_now = 1;
        }
        unlink(path);
    }
}

TEST(file_errors)
{
    char path[64], msg[128];
    /* a file that does not exist */
    REQUIRE(temp_file(path, "", 0) == 0);
    unlink(path);
    snprintf(msg, sizeof msg, "cannot open: %s", strerror(ENOENT));
    CHECK(expect_error(path, NULL, msg));
    /* a directory */
    snprintf(msg, sizeof msg, "cannot read: %s", strerror(EISDIR));
    CHECK(expect_error("/tmp", NULL, msg));
    /* too large: 1 MiB of comment and one byte more */
    size_t len = (1u << 20) + 1;
    char *big = malloc(len);
    REQUIRE(big);
    memset(big, '#', len);
    int rc = temp_file(path, big, len);
    free(big);
    REQUIRE(rc == 0);
    CHECK(expect_error(path, NULL, "larger than 1048576 bytes"));
    unlink(path);
    /* no path, no struct */
    struct nand_config cfg;
    char err[128];
    CHECK_EQ_INT(nand_config_load(NULL, &cfg, err, sizeof err), NAND_E_INVAL);
    CHECK(strstr(err, "no file") != NULL);
    CHECK_EQ_INT(nand_config_load("x.yaml", NULL, err, sizeof err), NAND_E_INVAL);
}

/* Error messages are cut to the buffer, and err may be NULL. */
TEST(small_error_buffers)
{
    static const char text[] = "nop: {a: 1}\n";
    char path[64], err[16];
    struct nand_config cfg;
    REQUIRE(temp_file(path, TXT(text)) == 0);
    CHECK_EQ_INT(nand_config_load(path, &cfg, NULL, 0), NAND_E_INVAL);
    CHECK_EQ_INT(nand_config_load(path, &cfg, NULL, 100), NAND_E_INVAL);
    memset(err, 'x', sizeof err);
    CHECK_EQ_INT(nand_config_load(path, &cfg, err, 1), NAND_E_INVAL);
    CHECK(err[0] == '\0' && err[1] == 'x');
    memset(err, 'x', sizeof err);
    CHECK_EQ_INT(nand_config_load(path, &cfg, err, 10), NAND_E_INVAL);
    CHECK(strlen(err) == 9 && !strncmp(err, path, 9) && err[10] == 'x');
    unlink(path);
}

/* ---- robustness ------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* Load path: success or NAND_E_INVAL with a well-formed message. */
static int loads_or_fails_cleanly(const char *path)
{
    char err[512];
    struct nand_config cfg;
    int rc = nand_config_load(path, &cfg, err, sizeof err);
    if (rc == NAND_OK)
        return 1;
    if (rc == NAND_E_INVAL && well_formed(err, path))
        return 1;
    fprintf(stderr, "  rc %d, err \"%s\"\n", rc, err);
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    *len = buf ? fread(buf, 1, 1 << 16, f) : 0;
    fclose(f);
    return buf;
}

/* Every prefix of every preset, then random mutations of them (the syntax
 * characters YAML cares about, deletions, stray bytes): nothing crashes or
 * leaks (ASan), and every failure is a well-formed message. */
TEST(truncated_and_mutated_presets)
{
    static const char alphabet[] = "{}[]:,-?&*!|>'\"#%@` \n\t0123456789e.+\\";
    int rounds = test_long() ? 20000 : 1500;
    char path[64];
    REQUIRE(temp_file(path, "", 0) == 0);
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        char ppath[512];
        size_t len;
        preset_path(ppath, sizeof ppath, presets[i].file);
        char *text = slurp(ppath, &len);
        REQUIRE(text);
        char *buf = malloc(len + 64);
        REQUIRE(buf);
        for (size_t cut = 0; cut <= len; cut += 1 + (test_long() ? 0 : 2)) {
            REQUIRE(write_file(path, text, cut) == 0);
            CHECK(loads_or_fails_cleanly(path));
        }
        for (int r = 0; r < rounds; r++) {
            size_t n = len;
            memcpy(buf, text, len);
            for (int m = 1 + (int)rnd(4); m > 0; m--) {
                size_t at = rnd((uint32_t)n);
                switch (rnd(3)) {
                case 0: buf[at] = alphabet[rnd(sizeof alphabet - 1)]; break;
                case 1: buf[at] = (char)rnd(256); break;
                default: memmove(buf + at, buf + at + 1, n - at - 1); n--;
                }
            }
            REQUIRE(write_file(path, buf, n) == 0);
            if (!loads_or_fails_cleanly(path)) {
                fprintf(stderr, "  mutation of %s: %.*s\n", presets[i].file,
                        (int)n, buf);
                test_failed_now = 1;
                break;
            }
        }
        free(buf);
        free(text);
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(presets_load);
    RUN(nandsim_variant_differs_only_in_reads);
    RUN(every_key_round_trips);
    RUN(absent_keys_keep_defaults);
    RUN(yaml_spellings);
    RUN(bad_inputs);
    RUN(file_errors);
    RUN(small_error_buffers);
    RUN(truncated_and_mutated_presets);
    return test_summary(argv[0]);
}
