/*
 * test_jffs_format.c -- the JFFS2 baseline's on-flash format against
 * Linux's (fs/jffs2/jffs.h, docs/jffs2-baseline.md): the CRC convention,
 * a dirent and an inode node byte for byte as mkfs.jffs2 wrote them, each
 * compressor's round trip (and rtime's exact output), damaged compressed
 * data refused, compress= through a remount of both kinds, and the NAND
 * cleanmarkers in the OOB.
 */
#include "fsapi.h"
#include "jffs2/jffs.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

static void unhex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i]; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* the first two nodes of `mkfs.jffs2 -n -l -e 0x20000 -s 0x800` over a
 * tree whose first name is the symlink link -> sub/nums.txt */
static const char ref_dirent[] =
    "851901e02c0000005f56f1e0010000000000000002000000d79e136b040a000055f326d3ed46e8176c696e6b";
static const char ref_inode[] =
    "851902e050000000d53b8c470200000001000000ffa10000000000000c000000d79e136bd79e136bd79e136b"
    "000000000c0000000c000000000000004ea149867c084c647375622f6e756d732e747874";
#define REF_TIME (0x6b139ed7ll * 1000000000ll)

TEST(crc_is_linux_crc32_without_inversion)
{
    /* zlib.crc32(b"123456789", 0xffffffff) ^ 0xffffffff */
    CHECK_EQ_INT(jffs_crc("123456789", 9), 0x2dfd2d88u);
    CHECK_EQ_INT(jffs_crc("", 0), 0);
}

TEST(dirent_as_mkfs_jffs2_writes_it)
{
    uint8_t want[44], got[64];
    unhex(ref_dirent, want);
    struct jffs_raw_dirent rd = {.pino = 1, .version = 0, .ino = 2, .mctime = REF_TIME,
                                 .type = 10, .nsize = 4, .name = "link"};
    CHECK_EQ_INT(jffs_encode_dirent(got, &rd), 44);
    CHECK(!memcmp(got, want, 44));
    struct jffs_raw_dirent back;
    REQUIRE(jffs_decode_dirent(want, sizeof want, 0, &back) == 0);
    CHECK_EQ_INT(back.pino, 1);
    CHECK_EQ_INT(back.ino, 2);
    CHECK_EQ_INT(back.type, 10);
    CHECK(back.mctime == REF_TIME && !strcmp(back.name, "link"));
    want[41] ^= 1; /* the name: its CRC no longer matches */
    CHECK_EQ_INT(jffs_decode_dirent(want, sizeof want, 0, &back), -EINVAL);
}

TEST(inode_as_mkfs_jffs2_writes_it)
{
    uint8_t want[80], got[80];
    unhex(ref_inode, want);
    struct jffs_raw_inode ri = {.ino = 2, .version = 1, .mode = 0120777, .isize = 12,
                                .atime = REF_TIME, .mtime = REF_TIME, .ctime = REF_TIME,
                                .csize = 12, .dsize = 12, .compr = JFFS_COMPR_NONE};
    jffs_encode_inode(got, &ri, "sub/nums.txt");
    CHECK(!memcmp(got, want, sizeof want));
    uint16_t type;
    uint32_t totlen;
    REQUIRE(jffs_decode_hdr(want, 0, &type, &totlen) == 0);
    CHECK_EQ_INT(type, JFFS_T_INODE);
    CHECK_EQ_INT(totlen, 80);
    struct jffs_raw_inode back;
    REQUIRE(jffs_decode_inode(want, 0, &back) == 0);
    CHECK_EQ_INT(back.mode, 0120777);
    CHECK_EQ_INT(back.dcrc, jffs_crc("sub/nums.txt", 12));
    want[30] ^= 0x10; /* isize: the node CRC fails */
    CHECK_EQ_INT(jffs_decode_inode(want, 0, &back), -EINVAL);
    want[30] ^= 0x10;
    want[9] ^= 1; /* the header CRC */
    CHECK_EQ_INT(jffs_decode_hdr(want, 0, &type, &totlen), -EINVAL);
}

TEST(compressors_round_trip)
{
    static uint8_t text[4096], rnd[4096], c[JFFS_CDATA_MAX], back[4096];
    for (int i = 0; i < 4096; i++)
        text[i] = (uint8_t)("flash log-structured nodes "[i % 27] + (i / 512));
    uint64_t s = 7;
    for (int i = 0; i < 4096; i++)
        rnd[i] = (uint8_t)(fx_next(&s) >> 24);
    const int m[] = {JFFS_COMPR_ZLIB, JFFS_COMPR_RTIME, JFFS_COMPR_LZO};
    for (int k = 0; k < 3; k++) {
        uint32_t n = jffs_compress(m[k], text, 4096, c, sizeof c);
        CHECK(n > 0 && n < 2048);
        memset(back, 0, sizeof back);
        CHECK_EQ_INT(jffs_decompress(m[k], c, n, back, 4096), 0);
        CHECK(!memcmp(back, text, 4096));
        CHECK_EQ_INT(jffs_compress(m[k], rnd, 4096, c, sizeof c), 0); /* stored as NONE */
        /* damaged: cut short, or the wrong size asked for */
        n = jffs_compress(m[k], text, 4096, c, sizeof c);
        CHECK(jffs_decompress(m[k], c, n / 2, back, 4096) < 0);
        CHECK(jffs_decompress(m[k], c, n, back, 4000) < 0 || m[k] == JFFS_COMPR_RTIME);
        memset(c, 0xa5, n);
        CHECK(jffs_decompress(m[k], c, n, back, 4096) < 0 || m[k] == JFFS_COMPR_RTIME);
    }
    /* rtime, as compr_rtime.c: each byte, then how many repeat */
    uint8_t out[8];
    CHECK_EQ_INT(jffs_compress(JFFS_COMPR_RTIME, (const uint8_t *)"aaaa", 4, out, sizeof out), 2);
    CHECK(out[0] == 'a' && out[1] == 3);
    CHECK_EQ_INT(jffs_decompress(JFFS_COMPR_RTIME, (const uint8_t *)"a\x03", 2, back, 4), 0);
    CHECK(!memcmp(back, "aaaa", 4));
    CHECK(jffs_decompress(JFFS_COMPR_RTIME, (const uint8_t *)"a\x09", 2, back, 4) < 0);
    CHECK(jffs_decompress(5 /* dynrubin */, c, 10, back, 10) < 0);
    CHECK_EQ_INT(jffs_compr_parse("lzo"), JFFS_COMPR_LZO);
    CHECK_EQ_INT(jffs_compr_parse("rubin"), -EINVAL);
}

static nand_dev *device(uint32_t nop)
{
    struct nand_config c;
    fx_config(&c, &(struct fx_dev){.blocks = 32, .pages = 32, .seed = 3, .quiet = 1});
    c.nop = nop;
    nand_dev *d = NULL;
    return nand_create(&c, &d) ? NULL : d;
}

TEST(compress_option_through_remount)
{
    static uint8_t buf[20000], got[20000];
    for (int i = 0; i < 20000; i++)
        buf[i] = (uint8_t)("0123456789abcdef\n"[i % 17] ^ (i / 4096));
    const char *names[] = {"none", "zlib", "rtime", "lzo"};
    const int want[] = {JFFS_COMPR_NONE, JFFS_COMPR_ZLIB, JFFS_COMPR_RTIME, JFFS_COMPR_LZO};
    for (int variant = 0; variant < 2; variant++)
        for (int k = 0; k < 4; k++) {
            const struct fsapi *api = variant ? &fsapi_jffs2_summary : &fsapi_jffs2_scan;
            char o[32];
            snprintf(o, sizeof o, "compress=%s", names[k]);
            nand_dev *d = device(4);
            void *fs;
            REQUIRE(d && api->mkfs(d, o) == 0 && api->mount(d, o, &fs) == 0);
            int fd = api->open(fs, "/f", O_CREAT | O_WRONLY, 0644);
            REQUIRE(fd >= 0);
            CHECK_EQ_INT(api->pwrite(fs, fd, buf, sizeof buf, 0), (int64_t)sizeof buf);
            api->close(fs, fd);
            REQUIRE(api->unmount(fs) == 0);
            REQUIRE(api->mount(d, NULL, &fs) == 0); /* reading needs no option */
            struct jffs_path r;
            REQUIRE(jffs_resolve(fs, "/f", 1, &r) == 0 && r.ino);
            struct jffs_inode *in = jffs_inode_get(fs, r.ino);
            REQUIRE(in && in->nfrag == 5);
            CHECK_EQ_INT(in->frags[0].n->compr, want[k]);
            CHECK(k ? in->frags[0].n->csize < 2048 : in->frags[0].n->csize == 4096);
            fd = api->open(fs, "/f", O_RDONLY, 0);
            CHECK_EQ_INT(api->pread(fs, fd, got, sizeof got, 0), (int64_t)sizeof got);
            CHECK(!memcmp(got, buf, sizeof buf));
            api->close(fs, fd);
            api->unmount(fs);
            nand_close(d);
        }
    char err[512] = "";
    CHECK_EQ_INT(fsapi_check_options(&fsapi_jffs2_scan, "compress=rubin", err, sizeof err),
                 -EINVAL);
    CHECK(strstr(err, "'compress=rubin'") != NULL); /* names the bad item */
    CHECK_EQ_INT(fsapi_check_options(&fsapi_jffs2_scan, "compress=zlib,reserve=5", err,
                                     sizeof err), 0);
}

/* Page 0's OOB of block b holds the cleanmarker at byte 2. */
static int has_cleanmarker(nand_dev *d, uint32_t b)
{
    uint8_t oob[64], cm[8] = {0x85, 0x19, 0x03, 0x20, 8, 0, 0, 0};
    return !nand_read_raw(d, b, 0, NULL, oob, NULL) && !memcmp(oob + 2, cm, 8);
}

TEST(cleanmarkers_in_the_oob)
{
    for (uint32_t nop = 1; nop <= 4; nop += 3) {
        nand_dev *d = device(nop);
        struct jffs_options o = {.summary = 1};
        struct jffs *fs;
        REQUIRE(d && jffs_mkfs(d, &o) == 0);
        uint32_t marked = 0;
        for (uint32_t b = 0; b < 32; b++)
            marked += (uint32_t)has_cleanmarker(d, b);
        /* every block erased at mkfs carries one where the part allows a
         * second program of page 0 (block 0 then took the root's node) */
        CHECK_EQ_INT(marked, nop > 1 ? 32 : 0);
        REQUIRE(jffs_mount(d, &o, &fs) == 0);
        uint32_t free_ = 0, unknown = 0;
        for (uint32_t b = 0; b < 32; b++) {
            free_ += fs->blk[b].state == JB_FREE;
            unknown += fs->blk[b].state == JB_UNKNOWN;
        }
        CHECK_EQ_INT(free_, nop > 1 ? 31 : 0); /* no erase needed before use */
        CHECK_EQ_INT(unknown, nop > 1 ? 0 : 31);
        const struct fsapi *api = &fsapi_jffs2_summary;
        int fd = api->open(fs, "/x", O_CREAT | O_WRONLY, 0644);
        CHECK_EQ_INT(api->pwrite(fs, fd, "data", 4, 0), 4);
        api->close(fs, fd);
        CHECK_EQ_INT(jffs_unmount(fs), 0);
        REQUIRE(jffs_mount(d, &o, &fs) == 0);
        struct fs_stat st;
        CHECK_EQ_INT(api->stat(fs, "/x", &st), 0);
        CHECK_EQ_INT(st.size, 4);
        jffs_unmount(fs);
        nand_close(d);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(crc_is_linux_crc32_without_inversion);
    RUN(dirent_as_mkfs_jffs2_writes_it);
    RUN(inode_as_mkfs_jffs2_writes_it);
    RUN(compressors_round_trip);
    RUN(compress_option_through_remount);
    RUN(cleanmarkers_in_the_oob);
    return test_summary(argv[0]);
}
