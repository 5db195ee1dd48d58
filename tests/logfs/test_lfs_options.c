/*
 * test_lfs_options.c -- LogFS options by name (fs/logfs/options.c): every key
 * sets its field, sizes take binary suffixes, and bad input is refused
 * with a message naming the key, leaving the options as they were; a
 * struct is checked against the same ranges (logfs_options_check), and
 * mkfs refuses what the check refuses.
 */
#include "logfs/logfs.h"
#include "crc32.h"
#include "lfs_fixture.h"
#include "le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

TEST(every_key_sets_its_field)
{
    struct logfs_options o = {0};
    char err[256] = "";
    REQUIRE(logfs_options_parse(&o, "block_size=8K,anchor_blocks=6,reserve=12,cache=16M,"
                                    "dirty=512KiB,readonly=yes,gc_policy=cost-benefit,"
                                    "gc_window=32,gc_choices=4,gc_seed=0x1234567890,"
                                    "gc_free_min=7,gc_idle_free=9,gc_separate=1,"
                                    "wear_leveling=static,wl_threshold=50,epoch=2024-01-01,"
                                    "scrub_threshold=18,"
                                    "compress=lzo,"
                                    "parallel=4,clock=host,max_utilisation=0.95",
                                err, sizeof err) == 0);
    CHECK_EQ_INT(o.block_size, 8192);
    CHECK_EQ_INT(o.anchor_blocks, 6);
    CHECK_EQ_INT(o.reserve_segments, 12);
    CHECK_EQ_INT(o.cache_bytes, 16u << 20);
    CHECK_EQ_INT(o.dirty_bytes, 512u << 10);
    CHECK_EQ_INT(o.readonly, 1);
    CHECK(o.gc_policy && !strcmp(o.gc_policy, "cost-benefit"));
    CHECK_EQ_INT(o.gc_window, 32);
    CHECK_EQ_INT(o.gc_choices, 4);
    CHECK_EQ_INT(o.gc_seed, 0x1234567890ull);
    CHECK_EQ_INT(o.gc_free_min, 7);
    CHECK_EQ_INT(o.gc_idle_free, 9);
    CHECK_EQ_INT(o.gc_separate, 1);
    CHECK_EQ_INT(o.wear_leveling, LOGFS_WL_STATIC);
    CHECK_EQ_INT(o.wl_threshold, 50);
    CHECK_EQ_INT(o.epoch_ns, 1704067200LL * 1000000000);
    CHECK_EQ_INT(o.scrub_threshold, 18);
    CHECK_EQ_INT(o.compress, LOGFS_COMPRESS_LZO);
    CHECK_EQ_INT(o.parallel, 4);
    CHECK(o.clock == logfs_host_clock);
    CHECK(o.max_utilisation == 0.95);
    /* every listed key is settable, and the list ends */
    const char *key, *help;
    unsigned n = 0;
    for (; (key = logfs_option_help(n, &help)); n++)
        CHECK(help && *help);
    CHECK_EQ_INT(n, 21);
    REQUIRE(logfs_option_set(&o, "clock", "sim", err, sizeof err) == 0);
    CHECK(o.clock == NULL);
    CHECK(logfs_option_set(&o, "clock", "wall", err, sizeof err) == -EINVAL);
    CHECK(strstr(err, "clock: 'wall' is not sim or host") != NULL);
    REQUIRE(logfs_option_set(&o, "wear_leveling", "none", err, sizeof err) == 0);
    CHECK_EQ_INT(o.wear_leveling, LOGFS_WL_NONE);
    REQUIRE(logfs_options_parse(&o, "", err, sizeof err) == 0); /* empty list */
    REQUIRE(logfs_options_parse(&o, ",gc_separate=false,", err, sizeof err) == 0);
    CHECK_EQ_INT(o.gc_separate, 0);
}

/* A bad item gives -EINVAL and a message containing `names`. */
static int refused(const char *list, const char *names)
{
    struct logfs_options o = {0};
    char err[256] = "";
    int rc = logfs_options_parse(&o, list, err, sizeof err);
    if (rc != -EINVAL || !strstr(err, names)) {
        fprintf(stderr, "'%s': rc %d, message '%s'\n", list, rc, err);
        return 0;
    }
    return 1;
}

TEST(bad_input_is_refused_by_name)
{
    CHECK(refused("nosuch=1", "nosuch"));
    CHECK(refused("gc_policy=lru", "lru"));
    CHECK(refused("wear_leveling=sometimes", "wear_leveling"));
    CHECK(refused("block_size=3000", "power of two"));
    CHECK(refused("block_size=64K", "block_size"));
    CHECK(refused("anchor_blocks=1", "anchor_blocks"));
    CHECK(refused("anchor_blocks=17", "anchor_blocks"));
    CHECK(refused("anchor_blocks=3", "anchor_blocks")); /* two mirrors */
    CHECK(refused("cache=-1", "cache"));
    CHECK(refused("cache=4X", "cache"));
    CHECK(refused("cache=99999999999G", "cache"));
    CHECK(refused("gc_window=4294967296", "gc_window"));
    CHECK(refused("gc_window=12abc", "gc_window"));
    CHECK(refused("gc_window=", "gc_window"));
    CHECK(refused("readonly=maybe", "readonly"));
    CHECK(refused("gc_separate", "KEY=VALUE"));
    CHECK(refused("reserve=0", "reserve"));
    CHECK(refused("max_utilisation=1", "max_utilisation"));
    CHECK(refused("max_utilisation=0.01", "0.05..0.99"));
    CHECK(refused("max_utilisation=high", "max_utilisation"));
    CHECK(refused("max_utilisation=0.9x", "max_utilisation"));
}

/* A struct that fails the check with a message containing `names`. */
static int struct_refused(struct logfs_options o, const char *names)
{
    char err[256] = "";
    int rc = logfs_options_check(&o, err, sizeof err);
    if (rc != -EINVAL || !strstr(err, names)) {
        fprintf(stderr, "struct: rc %d, message '%s' (wanted '%s')\n", rc, err, names);
        return 0;
    }
    return 1;
}

TEST(a_struct_is_checked_by_name)
{
    char err[256] = "";
    struct logfs_options o = {0}; /* all defaults */
    CHECK_EQ_INT(logfs_options_check(&o, err, sizeof err), 0);
    REQUIRE(logfs_options_parse(&o, "block_size=512,anchor_blocks=16,reserve=1,cache=4K,"
                                    "gc_policy=window,wear_leveling=static",
                                err, sizeof err) == 0);
    CHECK_EQ_INT(logfs_options_check(&o, err, sizeof err), 0);
    CHECK_EQ_INT(logfs_options_check(&o, NULL, 0), 0);
    CHECK(struct_refused((struct logfs_options){.block_size = 1000}, "power of two"));
    CHECK(struct_refused((struct logfs_options){.block_size = 256}, "block_size"));
    CHECK(struct_refused((struct logfs_options){.block_size = 65536}, "block_size"));
    CHECK(struct_refused((struct logfs_options){.anchor_blocks = 1}, "anchor_blocks"));
    CHECK(struct_refused((struct logfs_options){.anchor_blocks = 17}, "anchor_blocks"));
    CHECK(struct_refused((struct logfs_options){.cache_bytes = 100}, "cache"));
    CHECK(struct_refused((struct logfs_options){.gc_policy = "lru"}, "gc_policy"));
    CHECK(struct_refused((struct logfs_options){.wear_leveling = 7}, "wear_leveling"));
}

/* mkfs checks its options with the same function: what it refuses. */
TEST(mkfs_refuses_what_the_check_refuses)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 64;
    c.geo.pages_per_block = 32;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    nand_dev *d = NULL;
    REQUIRE(nand_create(&c, &d) == 0);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.anchor_blocks = 1}), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.anchor_blocks = 17}), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.block_size = 3000}), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.block_size = 65536}), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.gc_policy = "lru"}), -EINVAL);
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.block_size = 2048, .anchor_blocks = 16}),
                 0);
    nand_close(d);
}

/* Fill one file until the writers stop; its bytes, and the fs's stats. */
static uint64_t fill_until_full(logfs *fs, struct logfs_stats *st)
{
    static uint8_t buf[4096];
    uint64_t off = 0;
    int fd = logfs_open(fs, "/f", O_CREAT | O_RDWR, 0644);
    for (;;) {
        memset(buf, (int)(off / sizeof buf) | 1, sizeof buf); /* no zero block: a hole */
        if (fd < 0 || logfs_pwrite(fs, fd, buf, sizeof buf, off) != (int64_t)sizeof buf)
            break;
        off += sizeof buf;
    }
    if (fd >= 0)
        logfs_close(fs, fd);
    logfs_sync(fs);
    logfs_get_stats(fs, st);
    return off;
}

/* max_utilisation: refused where the cleaner could not make progress,
 * accepted elsewhere, and the cap on live / cleanable that writers meet;
 * unset, the 85% bound LogFS always had. */
TEST(max_utilisation_caps_live_over_cleanable)
{
    char err[256] = "";
    /* 128 KiB segments hold 31 blocks of 4 KiB (each with its header) */
    CHECK_EQ_INT(logfs_blocks_per_segment(131072, 4096), 31);
    CHECK_EQ_INT(logfs_utilisation_fits(0.95, 131072, 4096, err, sizeof err), 0);
    CHECK_EQ_INT(logfs_utilisation_fits(0.97, 131072, 4096, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "max_utilisation 0.97") && strstr(err, "31 fs blocks") &&
          strstr(err, "at most 0.967"));
    /* 32 KiB segments hold 7: u 0.85 frees 1.05 blocks, 0.9 only 0.7 */
    CHECK_EQ_INT(logfs_utilisation_fits(0.85, 32768, 4096, NULL, 0), 0);
    CHECK_EQ_INT(logfs_utilisation_fits(0.9, 32768, 4096, NULL, 0), -EINVAL);
    nand_dev *d = LFS_FX_DEVICE(.blocks = 128, .pages = 16, .quiet = 1); /* 32 KiB segments */
    REQUIRE(d);
    logfs *fs = NULL;
    CHECK_EQ_INT(logfs_mount(d, &(struct logfs_options){.max_utilisation = 0.9}, &fs), -EINVAL);
    /* unset: 85% of the cleanable segments' bytes, as always */
    struct logfs_stats st;
    struct fs_statfs sf;
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    logfs_get_stats(fs, &st);
    REQUIRE(logfs_statfs(fs, &sf) == 0);
    CHECK_EQ_INT(sf.total_bytes, st.cleanable_segments * 32768 / 100 * 85);
    CHECK_EQ_INT(st.cleanable_bytes, st.cleanable_segments * 7 * (4096 + 48));
    CHECK(logfs_unmount(fs) == 0);
    /* 0.5 and 0.85: writers stop just short of u = max_utilisation */
    const double caps[] = {0.5, 0.85};
    for (int i = 0; i < 2; i++) {
        REQUIRE(logfs_mkfs(d, NULL) == 0);
        REQUIRE(logfs_mount(d, &(struct logfs_options){.max_utilisation = caps[i]}, &fs) == 0);
        REQUIRE(logfs_statfs(fs, &sf) == 0);
        logfs_get_stats(fs, &st);
        CHECK_EQ_INT(sf.total_bytes, (uint64_t)(st.cleanable_bytes * caps[i]));
        uint64_t bytes = fill_until_full(fs, &st);
        double u = (double)st.live_bytes / (double)st.cleanable_bytes;
        printf("  max_utilisation %.2f: %llu bytes written, u %.4f\n", caps[i],
               (unsigned long long)bytes, u);
        CHECK(u <= caps[i]);
        CHECK(u > caps[i] - 0.02);
        CHECK(logfs_unmount(fs) == 0);
    }
    nand_close(d);
}

/* At the cap, overwriting live blocks adds nothing live: they are
 * accepted while their commit is pending, however many (the bound counts
 * what the dirty blocks add over the objects they replace), and u stays
 * under the cap after it.  Growing the file still stops at the cap. */
TEST(max_utilisation_accepts_overwrites_at_the_cap)
{
    nand_dev *d = LFS_FX_DEVICE(.blocks = 128, .pages = 16, .quiet = 1); /* 32 KiB segments */
    REQUIRE(d);
    logfs *fs = NULL;
    struct logfs_stats st;
    static uint8_t buf[4096];
    REQUIRE(logfs_mount(d, &(struct logfs_options){.max_utilisation = 0.85,
                                                   .dirty_bytes = 256 << 10}, &fs) == 0);
    uint64_t bytes = fill_until_full(fs, &st);
    REQUIRE(bytes > 64 * sizeof buf);
    /* two blocks of room, then 48 overwrites: 192 KiB dirty, under the
     * 256 KiB that makes a commit */
    REQUIRE(logfs_truncate(fs, "/f", bytes - 2 * sizeof buf) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    int fd = logfs_open(fs, "/f", O_RDWR, 0);
    REQUIRE(fd >= 0);
    int ok = 0;
    for (int i = 0; i < 48; i++) {
        memset(buf, 0x5a ^ i, sizeof buf);
        ok += logfs_pwrite(fs, fd, buf, sizeof buf, (uint64_t)i * sizeof buf) == (int64_t)sizeof buf;
    }
    CHECK_EQ_INT(ok, 48);
    /* the file grows by the room left, then no further */
    uint64_t end = bytes - 2 * sizeof buf;
    int grew = 0;
    while (grew < 8 && logfs_pwrite(fs, fd, buf, sizeof buf, end) == (int64_t)sizeof buf) {
        end += sizeof buf;
        grew++;
    }
    CHECK(grew >= 1 && grew <= 2);
    CHECK(logfs_close(fs, fd) == 0);
    REQUIRE(logfs_sync(fs) == 0);
    logfs_get_stats(fs, &st);
    CHECK((double)st.live_bytes / (double)st.cleanable_bytes <= 0.85);
    CHECK(logfs_unmount(fs) == 0);
    nand_close(d);
}

/* What an image's format versions are, and what a mount makes of one it
 * does not read (FORMAT.md 15): a superblock saying read version 9. */
TEST(format_versions)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 64;
    c.geo.pages_per_block = 32;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    nand_dev *d = NULL;
    uint32_t rv = 0, wv = 0;
    logfs *fs;
    REQUIRE(nand_create(&c, &d) == 0);
    CHECK_EQ_INT(logfs_format_version(d, &rv, &wv), -EINVAL); /* nothing there */
    CHECK_EQ_INT(logfs_mkfs(d, &(struct logfs_options){.anchor_blocks = 3}), -EINVAL);
    REQUIRE(logfs_mkfs(d, &(struct logfs_options){.block_size = 2048}) == 0);
    CHECK_EQ_INT(logfs_format_version(d, &rv, &wv), 0);
    CHECK_EQ_INT(rv, LOGFS_FORMAT_VERSION);
    CHECK_EQ_INT(wv, LOGFS_FORMAT_VERSION);
    uint8_t *page = malloc(c.geo.page_size);
    REQUIRE(page && nand_read(d, 0, 0, page, NULL, NULL) == 0);
    le32_put(page + 8, 9);
    le32_put(page + 12, 9);
    le32_put(page + 252, flashlab_crc32(0, page, 252));
    REQUIRE(nand_erase(d, 0, NULL) == 0 && nand_program(d, 0, 0, page, NULL, NULL) == 0);
    CHECK_EQ_INT(logfs_format_version(d, &rv, &wv), 0);
    CHECK_EQ_INT(rv, 9);
    CHECK_EQ_INT(logfs_mount(d, NULL, &fs), -EPROTO);
    free(page);
    nand_close(d);
}

/* Writes /f until ENOSPC under a mount with options o, remounts with the
 * defaults and reads every block back; *bytes: the bytes written. */
static void fill_remount_read(nand_dev *d, const struct logfs_options *o, uint64_t *bytes)
{
    logfs *fs = NULL;
    struct logfs_stats st;
    static uint8_t buf[4096];
    REQUIRE(logfs_mkfs(d, NULL) == 0);
    REQUIRE(logfs_mount(d, o, &fs) == 0);
    *bytes = fill_until_full(fs, &st);
    CHECK(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    int fd = logfs_open(fs, "/f", O_RDONLY, 0);
    REQUIRE(fd >= 0);
    int bad = 0;
    for (uint64_t off = 0; off < *bytes; off += sizeof buf) {
        bad += logfs_pread(fs, fd, buf, sizeof buf, off) != (int64_t)sizeof buf;
        bad += buf[0] != (uint8_t)((int)(off / sizeof buf) | 1) ||
               buf[sizeof buf - 1] != buf[0];
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(logfs_pread(fs, fd, buf, sizeof buf, *bytes), 0);
    CHECK(logfs_close(fs, fd) == 0);
    CHECK(logfs_unmount(fs) == 0);
}

/* dirty=1G, far more than the device holds: the first create used to
 * fail (the writers' reserve counted the whole limit in segments).  The
 * limit in force is clamped to what the device can take, so a mount with
 * it fills the device as far as one with the default limit, and every
 * block it accepted reads back after a remount. */
TEST(dirty_limit_larger_than_the_device)
{
    struct logfs_options o = {0};
    char err[256] = "";
    REQUIRE(logfs_options_parse(&o, "dirty=1G", err, sizeof err) == 0);
    CHECK_EQ_INT(o.dirty_bytes, 1ull << 30);
    const struct fx_dev devs[] = {{.blocks = 128, .pages = 16, .quiet = 1},  /* 4 MiB */
                                  {.blocks = 512, .pages = 32, .quiet = 1}}; /* 32 MiB */
    for (int i = 0; i < 2; i++) {
        nand_dev *d = fx_device(&devs[i]);
        REQUIRE(d);
        uint64_t def = 0, big = 0;
        fill_remount_read(d, NULL, &def);
        fill_remount_read(d, &o, &big);
        printf("  %u blocks: %llu bytes with the default limit, %llu with dirty=1G\n",
               devs[i].blocks, (unsigned long long)def, (unsigned long long)big);
        CHECK(big > 0);
        CHECK(big >= def * 9 / 10);
        nand_close(d);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(every_key_sets_its_field);
    RUN(bad_input_is_refused_by_name);
    RUN(a_struct_is_checked_by_name);
    RUN(mkfs_refuses_what_the_check_refuses);
    RUN(format_versions);
    RUN(max_utilisation_caps_live_over_cleanable);
    RUN(max_utilisation_accepts_overwrites_at_the_cap);
    RUN(dirty_limit_larger_than_the_device);
    return test_summary(argv[0]);
}
