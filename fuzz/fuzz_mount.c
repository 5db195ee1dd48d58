/*
 * fuzz_mount.c -- LogFS on damaged flash (fs/, through fs/logfs/logfs.h).
 *
 * fuzz_mount_init builds, once, a small device with a LogFS holding
 * directories, small, large, sparse and empty files, hard links, symbolic
 * links (dangling and looping ones too) and a history of overwrites, and
 * keeps two snapshots of it: CLEAN, after an unmount, and CRASHED, taken
 * while mounted after a sync, with an unlinked file still open (an orphan
 * in the anchor).  Each input restores one of them (nand snapshots make
 * that cheap), damages it and runs the file system over it.
 *
 * Two more snapshots, ZCLEAN and ZCRASHED, hold the same tree written
 * with compressible data on a LogFS made with compress=zlib, a few files
 * of it written by a mount with compress=lzo (format 5, compressed DATA
 * objects of both methods).
 *
 * Input: a flag byte, then 6-byte mutation records, then (for the
 * compressed bases) 1..5 more bytes: an input whose length after the flag
 * byte is not a multiple of 6 takes ZCLEAN or ZCRASHED.
 *   flags bit 0      base image: 0 CLEAN, 1 CRASHED (ZCLEAN, ZCRASHED)
 *         bit 1      skip the read-only mount
 *         bit 2      skip the read-write mount
 *         bit 3      read-write mount: also write (mkdir, create, pwrite,
 *                    truncate, punch, fallocate, rename, link, symlink,
 *                    unlink),
 *                    sync and let the cleaner run (logfs_idle)
 *         bit 4      mount read-only again after the read-write mount
 *         bits 5-6   gc_policy: the i-th policy of logfs_gc_policy_name
 *         bit 7      gc_separate and static wear leveling
 *   (the tree holds a file of preallocated blocks, format 6; the writes
 *   preallocate too)
 *   record: op, page (u16 LE), offset (u16 LE), value
 *     op bits 0-1    0 XOR the byte with value, 1 set it to value,
 *                    2 erase the page's block, 3 tear the page: program it
 *                    with power cut after value/256 of tPROG
 *        bit 2       then fix the checksums of the block's superblock,
 *                    anchor records or objects, so that the damage gets
 *                    past the CRC checks and into the parsers
 *        bit 3       page indexes every page of the device; otherwise
 *                    only the pages the base image has programmed
 *        bit 4       instead of the above, damage the page with
 *                    nand_corrupt after the other records: mode
 *                    1 + value % 8 (flip, beyond, uncorrectable, wipe,
 *                    tear, bad, age, silent), bits 1 + offset % 8, at
 *                    byte offset, tear fraction and age from value
 *     offset is taken modulo page_size + oob_size (the spare area too).
 *   At most FM_MAX_MUTATIONS records are used.
 *
 * The flash has no way to write a page twice, so a damaged block is read
 * whole, changed in memory, erased and programmed again (programmed pages
 * and those the input wrote to; all-0xFF pages stay erased).
 *
 * The walk visits every name (readdir, with resumption through the
 * cookie), lstat/stat every one, reads every regular file (up to a budget,
 * plus preads near its end), opens directories, reads every symbolic link;
 * depth and the counts are bounded, since a damaged directory may name
 * its own ancestor.  Errors from LogFS are expected; crashes, sanitizer
 * reports, leaks and hangs are bugs.  The harness aborts when readdir
 * does not make progress through its cookie, and when a mount erased or
 * rewrote the superblock or its copy although the input left both intact
 * (fm_check_super).
 */
#include "crc32.h"
#include "harness.h"
#include "logfs/lfs_format.h"
#include "logfs/logfs.h"
#include "nand.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FM "mount"
#define FM_MAX_MUTATIONS 64
#define FM_MAX_DEPTH 8
#define FM_MAX_NODES 400        /* names visited per walk */
#define FM_MAX_DIR_ENTRIES 128  /* names kept per directory */
#define FM_READ_BUDGET (96u << 10) /* bytes read per walk */
#define FM_FILE_READ_MAX (16u << 10)
#define FM_PATH_MAX 2048

/* The device: 64 blocks of 16 pages of 2048 + 64 bytes (2 MiB), no bit
 * errors, ECC that corrects 4 bits per 512 bytes (so torn pages read as
 * uncorrectable), a few factory-bad blocks; LogFS with 512-byte blocks
 * (deep trees from small files), 3 anchor blocks, 4 reserve segments. */
#define FM_BLOCKS 64u
#define FM_PPB 16u
#define FM_PAGE 2048u
#define FM_OOB 64u
#define FM_PAGE_BYTES (FM_PAGE + FM_OOB)
#define FM_FS_BLOCK 512u

enum { FM_CLEAN, FM_CRASHED, FM_ZCLEAN, FM_ZCRASHED, FM_NBASES };

struct fm_base {
    nand_snapshot *snap;
    uint32_t *pages;  /* programmed pages: block * FM_PPB + page */
    uint32_t npages;
    uint8_t kind[FM_BLOCKS]; /* enum fm_kind, from the superblock */
    uint8_t super_page[2][FM_PAGE]; /* page 0 of block 0 and of the backup */
    uint32_t super_block[2];
};
enum fm_kind { FM_K_SEGMENT, FM_K_SUPER, FM_K_ANCHOR };

static struct {
    int ready;
    nand_dev *dev;
    struct fm_base base[FM_NBASES];
} fm;

static const struct logfs_options fm_mkfs_opts = {
    .block_size = FM_FS_BLOCK, .anchor_blocks = 4, .reserve_segments = 4,
    .dirty_bytes = 64u << 10,
};

/* ---- building the image --------------------------------------------------- */

static int fm_squeeze; /* building the compressed bases: data that shrinks */

static void fm_pattern(uint8_t *buf, size_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        buf[i] = (uint8_t)(s >> 16);
        if (fm_squeeze && i && (s >> 28)) /* runs of 4-letter text */
            buf[i] = (s >> 27 & 7) ? buf[i - 1] : (uint8_t)"ACGT"[s >> 24 & 3];
    }
}

static int fm_write_file(logfs *fs, const char *path, uint64_t off, size_t len, uint32_t seed)
{
    int fd = logfs_open(fs, path, O_CREAT | O_RDWR, 0644);
    if (fd < 0)
        return fd;
    uint8_t buf[4096];
    int rc = 0;
    for (size_t done = 0; done < len && !rc;) {
        size_t n = len - done < sizeof buf ? len - done : sizeof buf;
        fm_pattern(buf, n, seed + (uint32_t)done);
        int64_t w = logfs_pwrite(fs, fd, buf, n, off + done);
        if (w < 0)
            rc = (int)w;
        else
            done += (size_t)w;
    }
    logfs_close(fs, fd);
    return rc;
}

#define FM_TRY(call)                                                          \
    do {                                                                      \
        int rc_ = (call);                                                     \
        if (rc_ < 0)                                                          \
            fuzz_fail(FM, "building the image: %s: %s", #call, strerror(-rc_)); \
    } while (0)

static void fm_populate(logfs *fs)
{
    FM_TRY(logfs_mkdir(fs, "/d", 0755));
    FM_TRY(logfs_mkdir(fs, "/d/sub", 0700));
    FM_TRY(logfs_mkdir(fs, "/many", 0755));
    FM_TRY(logfs_mkdir(fs, "/empty-dir", 0755));
    FM_TRY(fm_write_file(fs, "/hello", 0, 11, 1));
    FM_TRY(fm_write_file(fs, "/d/big", 0, 45u << 10, 2));     /* height 2 */
    FM_TRY(fm_write_file(fs, "/d/sub/sparse", 3u << 20, 100, 3)); /* height 3 */
    FM_TRY(fm_write_file(fs, "/d/sub/sparse", 0, 700, 4));
    FM_TRY(fm_write_file(fs, "/d/empty", 0, 0, 5));
    FM_TRY(logfs_link(fs, "/hello", "/d/hello-link"));
    FM_TRY(logfs_symlink(fs, "/d/sub/sparse", "/lnk"));
    FM_TRY(logfs_symlink(fs, "/d", "/dirlnk"));
    FM_TRY(logfs_symlink(fs, "/nowhere", "/dangling"));
    FM_TRY(logfs_symlink(fs, "/loop2", "/loop1"));
    FM_TRY(logfs_symlink(fs, "/loop1", "/loop2"));
    char name[64];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "/many/file-%02d-with-a-longer-name", i);
        FM_TRY(fm_write_file(fs, name, 0, (size_t)(i * 37) % 1300, 100 + (uint32_t)i));
    }
    /* little room left (format 4 mirrors the anchor ring: 4 blocks fewer) */
    FM_TRY(fm_write_file(fs, "/d/cold", 0, 400u << 10, 6));
    FM_TRY(logfs_sync(fs));
    /* history: overwrites that make garbage and keep the cleaner busy */
    for (uint32_t round = 0; round < 40; round++) {
        FM_TRY(fm_write_file(fs, "/d/churn", 0, 60u << 10, 1000 + round));
        FM_TRY(logfs_sync(fs));
    }
    for (int i = 0; i < 40; i += 3) {
        snprintf(name, sizeof name, "/many/file-%02d-with-a-longer-name", i);
        FM_TRY(logfs_unlink(fs, name));
    }
    FM_TRY(logfs_rename(fs, "/many/file-01-with-a-longer-name", "/d/renamed"));
    FM_TRY(logfs_truncate(fs, "/d/big", 30u << 10));
    FM_TRY(logfs_chmod(fs, "/d/renamed", 0600));
    /* format 6: preallocated blocks, inside the size and past it, one
     * of them written */
    int pfd = logfs_open(fs, "/d/prealloc", O_RDWR | O_CREAT, 0644);
    FM_TRY(pfd < 0 ? pfd : 0);
    FM_TRY(logfs_allocate(fs, pfd, 0, 20u << 10, 0));
    FM_TRY(logfs_allocate(fs, pfd, 20u << 10, 12u << 10, FS_ALLOC_KEEP_SIZE));
    FM_TRY(logfs_pwrite(fs, pfd, "prealloc", 8, 5000) == 8 ? 0 : -EIO);
    FM_TRY(logfs_close(fs, pfd));
    FM_TRY(logfs_sync(fs));
}

static void fm_record_base(struct fm_base *b)
{
    if (nand_snapshot_take(fm.dev, &b->snap))
        fuzz_fail(FM, "nand_snapshot_take failed");
    b->pages = calloc(FM_BLOCKS * FM_PPB, sizeof *b->pages);
    if (!b->pages)
        fuzz_fail(FM, "out of memory");
    b->npages = 0;
    for (uint32_t blk = 0; blk < FM_BLOCKS; blk++) {
        struct nand_block_info bi;
        if (nand_block_info(fm.dev, blk, &bi))
            fuzz_fail(FM, "nand_block_info failed");
        for (uint32_t p = 0; p < bi.pages_programmed; p++)
            b->pages[b->npages++] = blk * FM_PPB + p;
    }
    /* which blocks hold the superblock and the anchor ring */
    memset(b->kind, FM_K_SEGMENT, sizeof b->kind);
    uint8_t sb[FM_PAGE];
    if (nand_read(fm.dev, 0, 0, sb, NULL, NULL) || memcmp(sb, LFS_SB_MAGIC, 8))
        fuzz_fail(FM, "no superblock in the image");
    b->kind[0] = FM_K_SUPER;
    uint32_t backup = le32_get(sb + 44), nanchor = le32_get(sb + 28);
    if (backup < FM_BLOCKS)
        b->kind[backup] = FM_K_SUPER;
    b->super_block[0] = 0;
    b->super_block[1] = backup < FM_BLOCKS ? backup : 0;
    for (int i = 0; i < 2; i++)
        if (nand_read(fm.dev, b->super_block[i], 0, b->super_page[i], NULL, NULL))
            fuzz_fail(FM, "cannot read the superblock in block %u", b->super_block[i]);
    for (uint32_t i = 0; i < nanchor && i < LFS_MAX_ANCHOR_BLOCKS; i++) {
        uint32_t a = le32_get(sb + 48 + 4 * i);
        if (a < FM_BLOCKS)
            b->kind[a] = FM_K_ANCHOR;
    }
}

/* A LogFS made with options o, populated, recorded as the bases crashed
 * (mounted, after a sync, with an open unlinked file) and clean. */
static void fm_build(int clean, int crashed, const struct logfs_options *o)
{
    FM_TRY(logfs_mkfs(fm.dev, o));
    logfs *fs = NULL;
    FM_TRY(logfs_mount(fm.dev, o, &fs));
    fm_populate(fs);
    if (o->compress) { /* and a few blocks by a mount that writes lzo */
        FM_TRY(logfs_unmount(fs));
        struct logfs_options l = *o;
        l.compress = LOGFS_COMPRESS_LZO;
        FM_TRY(logfs_mount(fm.dev, &l, &fs));
        FM_TRY(fm_write_file(fs, "/d/lzo", 0, 6000, 9));
        FM_TRY(fm_write_file(fs, "/many/file-05-with-a-longer-name", 100, 2000, 10));
        FM_TRY(logfs_sync(fs));
    }
    /* CRASHED: mounted, after a sync, with an open unlinked file */
    int fd = logfs_open(fs, "/orphan", O_CREAT | O_RDWR, 0644);
    FM_TRY(fd);
    uint8_t buf[1500];
    fm_pattern(buf, sizeof buf, 77);
    FM_TRY((int)logfs_pwrite(fs, fd, buf, sizeof buf, 0));
    FM_TRY(logfs_unlink(fs, "/orphan"));
    FM_TRY(fm_write_file(fs, "/after-orphan", 0, 900, 78));
    FM_TRY(logfs_sync(fs));
    if (fuzz_verbose()) {
        struct logfs_stats st;
        logfs_get_stats(fs, &st);
        fprintf(stderr, "mount: building: %llu commits, %llu cleaner rounds, %llu erases, "
                "data blocks of %llu bytes stored in %llu\n",
                (unsigned long long)st.commits, (unsigned long long)st.gc_rounds,
                (unsigned long long)st.erases, (unsigned long long)st.data_raw_bytes,
                (unsigned long long)st.data_stored_bytes);
    }
    fm_record_base(&fm.base[crashed]);
    FM_TRY(logfs_close(fs, fd));
    FM_TRY(logfs_unmount(fs));
    fm_record_base(&fm.base[clean]);
}

int fuzz_mount_init(void)
{
    if (fm.ready)
        return 0;
    struct nand_config c;
    nand_config_init(&c);
    snprintf(c.name, sizeof c.name, "fuzz-mount");
    c.geo.blocks_per_plane = FM_BLOCKS;
    c.geo.pages_per_block = FM_PPB;
    c.geo.page_size = FM_PAGE;
    c.geo.oob_size = FM_OOB;
    memset(&c.rber, 0, sizeof c.rber);
    c.ecc.codeword_bytes = 512;
    c.ecc.correct_bits = 4;
    c.factory_bad_fraction = 0.04;
    c.seed = 7;
    if (nand_create(&c, &fm.dev))
        fuzz_fail(FM, "nand_create failed");
    fm_build(FM_CLEAN, FM_CRASHED, &fm_mkfs_opts);
    struct logfs_options z = fm_mkfs_opts;
    z.compress = LOGFS_COMPRESS_ZLIB;
    fm_squeeze = 1;
    fm_build(FM_ZCLEAN, FM_ZCRASHED, &z);
    fm_squeeze = 0;
    fm.ready = 1;
    if (fuzz_verbose()) {
        fprintf(stderr, "mount: base images: clean %u, crashed %u programmed pages\n",
                fm.base[FM_CLEAN].npages, fm.base[FM_CRASHED].npages);
        /* per block: S superblock, A anchor, s segment; pages programmed */
        for (int i = 0; i < FM_NBASES; i++) {
            const struct fm_base *b = &fm.base[i];
            fprintf(stderr, "mount: %s%s:", i >= FM_ZCLEAN ? "compressed " : "",
                    i % 2 == FM_CLEAN ? "clean" : "crashed");
            for (uint32_t blk = 0, k = 0; blk < FM_BLOCKS; blk++) {
                uint32_t n = 0;
                for (; k < b->npages && b->pages[k] / FM_PPB == blk; k++)
                    n++;
                struct nand_block_info bi;
                nand_block_info(fm.dev, blk, &bi);
                fprintf(stderr, " %u%c%u%s", blk, "sSA"[b->kind[blk]], n,
                        bi.factory_bad ? "(bad)" : "");
            }
            fputc('\n', stderr);
        }
    }
    return 0;
}

/* ---- damaging it ------------------------------------------------------------ */

static void fm_fix_super(uint8_t *page)
{
    if (!memcmp(page, LFS_SB_MAGIC, 8))
        le32_put(page + 252, flashlab_crc32(0, page, 252));
}

static void fm_fix_anchor(uint8_t *page)
{
    /* the record's own length: 1208 (format 4) or 1112 (format 3) */
    uint32_t n = le32_get(page + 4);
    if (le32_get(page) != LFS_ANCHOR_MAGIC ||
        (n != 1208u && n != 1112u))
        return;
    le32_put(page + 16, 0);
    le32_put(page + 16, flashlab_crc32(0, page, n));
}

/* Objects of a segment, found in the original contents (orig) and fixed
 * in the damaged ones (cur): payload CRC over the length the damaged
 * header gives (when it fits), then the header CRC. */
static void fm_fix_segment(uint8_t (*orig)[FM_PAGE_BYTES], uint8_t (*cur)[FM_PAGE_BYTES])
{
    static uint8_t o[FM_PPB * FM_PAGE], c[FM_PPB * FM_PAGE];
    const uint32_t seg = FM_PPB * FM_PAGE;
    for (uint32_t p = 0; p < FM_PPB; p++) {
        memcpy(o + p * FM_PAGE, orig[p], FM_PAGE);
        memcpy(c + p * FM_PAGE, cur[p], FM_PAGE);
    }
    for (uint32_t off = 0; off + LFS_OBJ_HDR <= seg;) {
        uint32_t w = le32_get(o + off);
        uint32_t olen = le32_get(o + off + 8);
        int valid = (w & 0xffffff) == LFS_OBJ_MAGIC &&
                    le32_get(o + off + 44) == flashlab_crc32(0, o + off, 44) &&
                    olen <= seg - off - LFS_OBJ_HDR;
        if (!valid) {
            off = (off / FM_PAGE + 1) * FM_PAGE;
            continue;
        }
        uint32_t clen = le32_get(c + off + 8);
        if (clen <= seg - off - LFS_OBJ_HDR)
            le32_put(c + off + 12, flashlab_crc32(0, c + off + LFS_OBJ_HDR, clen));
        le32_put(c + off + 44, flashlab_crc32(0, c + off, 44));
        off += LFS_OBJ_HDR + olen;
    }
    for (uint32_t p = 0; p < FM_PPB; p++)
        memcpy(cur[p], c + p * FM_PAGE, FM_PAGE);
}

struct fm_blockedit {
    int used, erase_first, fix;
    uint32_t npages;            /* pages to program: 0 .. npages-1 */
    int torn[FM_PPB];           /* tear this page's program */
    double torn_frac[FM_PPB];
};

static int fm_all_ff(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0xff)
            return 0;
    return 1;
}

/* Apply the records to the device (restored to base b). */
static void fm_damage(const struct fm_base *b, const uint8_t *rec, size_t nrec,
                      uint8_t touched[FM_BLOCKS])
{
    static uint8_t orig[FM_BLOCKS][FM_PPB][FM_PAGE_BYTES];
    static uint8_t cur[FM_BLOCKS][FM_PPB][FM_PAGE_BYTES];
    struct fm_blockedit ed[FM_BLOCKS];
    struct nand_corrupt dmg[FM_MAX_MUTATIONS];
    size_t ndmg = 0;
    memset(ed, 0, sizeof ed);
    memset(touched, 0, FM_BLOCKS);
    for (size_t i = 0; i < nrec; i++, rec += 6) {
        uint8_t op = rec[0], val = rec[5];
        uint32_t sel = le16_get(rec + 1);
        uint32_t off = le16_get(rec + 3) % FM_PAGE_BYTES;
        uint32_t gp;
        if ((op & 8) || !b->npages)
            gp = sel % (FM_BLOCKS * FM_PPB);
        else
            gp = b->pages[sel % b->npages];
        uint32_t blk = gp / FM_PPB, pg = gp % FM_PPB;
        if (op & 16) { /* sim corrupt's modes, applied after the rewrites */
            if (ndmg < FM_MAX_MUTATIONS)
                dmg[ndmg++] = (struct nand_corrupt){
                    .mode = (enum nand_corrupt_mode)(1 + val % 8), .block = blk,
                    .page = pg, .bits = 1 + off % 8, .offset = off,
                    .frac = val / 256.0, .age_ns = (uint64_t)val * 3600000000000ull,
                    .reads = (uint64_t)val * 1000, .seed = off};
            touched[blk] = 1;
            continue;
        }
        struct fm_blockedit *e = &ed[blk];
        if (!e->used) {
            struct nand_block_info bi;
            nand_block_info(fm.dev, blk, &bi);
            e->used = 1;
            e->npages = bi.pages_programmed;
            for (uint32_t p = 0; p < FM_PPB; p++) {
                if (p >= bi.pages_programmed ||
                    nand_read_raw(fm.dev, blk, p, orig[blk][p], orig[blk][p] + FM_PAGE, NULL))
                    memset(orig[blk][p], 0xff, FM_PAGE_BYTES);
                memcpy(cur[blk][p], orig[blk][p], FM_PAGE_BYTES);
            }
        }
        e->fix |= (op & 4) != 0;
        switch (op & 3) {
        case 0:
            cur[blk][pg][off] ^= val;
            break;
        case 1:
            cur[blk][pg][off] = val;
            break;
        case 2:
            memset(cur[blk], 0xff, sizeof cur[blk]);
            memset(e->torn, 0, sizeof e->torn);
            e->npages = 0;
            e->erase_first = 1;
            continue;
        case 3:
            e->torn[pg] = 1;
            e->torn_frac[pg] = val / 256.0;
            break;
        }
        if (pg + 1 > e->npages)
            e->npages = pg + 1;
    }
    for (uint32_t blk = 0; blk < FM_BLOCKS; blk++) {
        struct fm_blockedit *e = &ed[blk];
        if (!e->used)
            continue;
        touched[blk] = 1;
        if (e->fix) {
            if (b->kind[blk] == FM_K_SUPER)
                fm_fix_super(cur[blk][0]);
            else if (b->kind[blk] == FM_K_ANCHOR)
                for (uint32_t p = 0; p < FM_PPB; p++)
                    fm_fix_anchor(cur[blk][p]);
            else
                fm_fix_segment(orig[blk], cur[blk]);
        }
        nand_erase(fm.dev, blk, NULL);
        for (uint32_t p = 0; p < e->npages; p++) {
            if (!e->torn[p] && fm_all_ff(cur[blk][p], FM_PAGE_BYTES))
                continue;
            if (e->torn[p])
                nand_cut_after_ops(fm.dev, 0, e->torn_frac[p]);
            nand_program(fm.dev, blk, p, cur[blk][p], cur[blk][p] + FM_PAGE, NULL);
            if (e->torn[p])
                nand_power_on(fm.dev);
        }
    }
    /* an erased page refuses most modes: that is fine, the error named it */
    for (size_t i = 0; i < ndmg; i++) {
        char err[200] = "";
        int rc = nand_corrupt(fm.dev, &dmg[i], err, sizeof err);
        if (rc && rc != NAND_E_NOMEM && !err[0])
            fuzz_fail(FM, "nand_corrupt failed (%s) without a message", nand_strerror(rc));
    }
}

/* LogFS writes the superblock and its copy at mkfs only: whatever the
 * anchor and the segment file say, no mount may erase or rewrite them
 * (docs/FORMAT.md, section 5).  Not checked when the input damaged either
 * copy.
 * FLASHLAB_FUZZ_ALLOW_SUPER_WRITES=1 turns the check off (to fuzz past an
 * open bug of this kind). */
static void fm_check_super(const struct fm_base *b, const uint8_t touched[FM_BLOCKS])
{
    static int off = -1;
    if (off < 0) {
        const char *e = getenv("FLASHLAB_FUZZ_ALLOW_SUPER_WRITES");
        off = e && *e && strcmp(e, "0");
    }
    if (off)
        return;
    /* a damaged superblock may name other blocks as reserved: then the
     * mount only does what the input told it */
    if (touched[b->super_block[0]] || touched[b->super_block[1]])
        return;
    static uint8_t page[FM_PAGE];
    for (int i = 0; i < 2; i++) {
        uint32_t blk = b->super_block[i];
        int rc = nand_read(fm.dev, blk, 0, page, NULL, NULL);
        if (rc || memcmp(page, b->super_page[i], FM_PAGE))
            fuzz_fail(FM, "the superblock in block %u was erased or rewritten by a mount "
                          "(%s): LogFS allocated a reserved block",
                      blk, rc ? nand_strerror(rc) : "contents differ");
    }
}

/* ---- walking the tree ------------------------------------------------------- */

struct fm_ent {
    char name[256];
    uint32_t type;
};

struct fm_dir {
    struct fm_ent *ents;
    uint32_t n, cap;
    uint32_t take;  /* accept this many per readdir call, then stop */
    uint32_t taken;
};

static int fm_dir_cb(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct fm_dir *d = ctx;
    (void)ino;
    if (d->taken == d->take)
        return 1; /* resume here with the cookie */
    d->taken++;
    if (!name)
        fuzz_fail(FM, "readdir gave a NULL name");
    if (d->n < d->cap) {
        snprintf(d->ents[d->n].name, sizeof d->ents[d->n].name, "%s", name);
        d->ents[d->n].type = type;
        d->n++;
    }
    return 0;
}

struct fm_walk {
    logfs *fs;
    uint32_t nodes;
    uint64_t read_budget;
    char first_file[FM_PATH_MAX];
    char first_dir[FM_PATH_MAX];
    char first_link[FM_PATH_MAX];
};

static void fm_read_file(struct fm_walk *w, const char *path, const struct fs_stat *st)
{
    int fd = logfs_open(w->fs, path, O_RDONLY, 0);
    if (fd < 0)
        return;
    static uint8_t buf[4096];
    struct fs_stat fst;
    logfs_fstat(w->fs, fd, &fst);
    uint64_t limit = st->size < FM_FILE_READ_MAX ? st->size : FM_FILE_READ_MAX;
    for (uint64_t off = 0; off < limit && w->read_budget;) {
        uint64_t n = sizeof buf;
        if (n > w->read_budget)
            n = w->read_budget;
        int64_t r = logfs_read(w->fs, fd, buf, n);
        if (r <= 0)
            break;
        if ((uint64_t)r > n)
            fuzz_fail(FM, "logfs_read returned %lld for %llu bytes", (long long)r,
                      (unsigned long long)n);
        off += (uint64_t)r;
        w->read_budget -= (uint64_t)r;
    }
    /* deep in the tree: near the end, and past it */
    const uint64_t at[] = {st->size ? st->size - 1 : 0, st->size / 2, st->size + 1,
                           st->size > 600 ? st->size - 600 : 0, UINT64_MAX - 10};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        int64_t r = logfs_pread(w->fs, fd, buf, 700, at[i]);
        if (r > 700)
            fuzz_fail(FM, "logfs_pread returned %lld for 700 bytes", (long long)r);
    }
    logfs_lseek(w->fs, fd, 0, SEEK_END);
    logfs_close(w->fs, fd);
}

static void fm_walk_dir(struct fm_walk *w, const char *path, unsigned depth)
{
    struct fm_ent *ents = malloc(FM_MAX_DIR_ENTRIES * sizeof *ents);
    if (!ents)
        return;
    /* names in small batches, resuming with the cookie; each call must
     * either end the directory or move the cookie on */
    struct fm_dir d = {ents, 0, FM_MAX_DIR_ENTRIES, 1 + depth % 3, 0};
    uint64_t cookie = 0;
    for (uint32_t calls = 0;; calls++) {
        if (calls > 4096 * 64 + 16)
            fuzz_fail(FM, "readdir(%s) does not end: %u calls", path, calls);
        uint64_t before = cookie;
        d.taken = 0;
        int rc = logfs_readdir(w->fs, path, &cookie, fm_dir_cb, &d);
        if (rc < 0 || cookie == UINT64_MAX || d.n >= d.cap)
            break;
        if (d.taken < d.take)
            break; /* the directory ended (a callback never refused) */
        if (cookie == before && d.taken == 0)
            fuzz_fail(FM, "readdir(%s) made no progress at cookie %llu", path,
                      (unsigned long long)cookie);
    }
    size_t plen = strlen(path);
    for (uint32_t i = 0; i < d.n && w->nodes < FM_MAX_NODES; i++) {
        w->nodes++;
        const char *name = ents[i].name;
        size_t nlen = strlen(name);
        if (plen + 1 + nlen + 1 > FM_PATH_MAX)
            continue;
        char *child = malloc(FM_PATH_MAX);
        if (!child)
            break;
        snprintf(child, FM_PATH_MAX, "%s/%s", plen == 1 ? "" : path, name);
        struct fs_stat st, lst;
        int lrc = logfs_lstat(w->fs, child, &lst);
        int src = 0;
        /* known: splice_link (fs/logfs/path.c) trusts a link's size, and a link
         * may lead to a damaged one; skip following links altogether */
        if (!(fuzz_skip_known() && !lrc && S_ISLNK(lst.mode)))
            src = logfs_stat(w->fs, child, &st);
        if (!lrc && S_ISLNK(lst.mode)) {
            char target[4096];
            int64_t n = logfs_readlink(w->fs, child, target, sizeof target);
            if (n > (int64_t)sizeof target)
                fuzz_fail(FM, "readlink returned %lld", (long long)n);
            n = logfs_readlink(w->fs, child, target, 3);
            if (n > 3)
                fuzz_fail(FM, "readlink returned %lld for 3 bytes", (long long)n);
            if (!w->first_link[0])
                snprintf(w->first_link, sizeof w->first_link, "%s", child);
        } else if (!lrc && S_ISREG(lst.mode)) {
            fm_read_file(w, child, &lst);
            if (!w->first_file[0])
                snprintf(w->first_file, sizeof w->first_file, "%s", child);
        } else if (!lrc && S_ISDIR(lst.mode)) {
            int fd = logfs_open(w->fs, child, O_RDONLY, 0);
            if (fd >= 0) {
                uint8_t b[16];
                logfs_pread(w->fs, fd, b, sizeof b, 0);
                logfs_close(w->fs, fd);
            }
            if (!w->first_dir[0])
                snprintf(w->first_dir, sizeof w->first_dir, "%s", child);
            if (depth + 1 < FM_MAX_DEPTH)
                fm_walk_dir(w, child, depth + 1);
        }
        (void)src;
        free(child);
    }
    free(ents);
}

static void fm_walk(logfs *fs, struct fm_walk *w)
{
    memset(w, 0, sizeof *w);
    w->fs = fs;
    w->read_budget = FM_READ_BUDGET;
    struct fs_stat st;
    logfs_stat(fs, "/", &st);
    fm_walk_dir(w, "/", 0);
    struct fs_statfs sf;
    logfs_statfs(fs, &sf);
    struct logfs_stats s;
    logfs_get_stats(fs, &s);
    struct fs_latency lat;
    for (int k = 0; k < LOGFS_OP_KINDS; k++)
        logfs_get_latency(fs, k, &lat);
}

/* Changes on the damaged file system; each may fail. */
static void fm_modify(logfs *fs, const struct fm_walk *w)
{
    uint8_t buf[3000];
    fm_pattern(buf, sizeof buf, 99);
    logfs_mkdir(fs, "/fz", 0755);
    int fd = logfs_open(fs, "/fz/new", O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd >= 0) {
        logfs_write(fs, fd, buf, sizeof buf);
        logfs_pwrite(fs, fd, buf, 1000, 20000);
        logfs_fsync(fs, fd);
        logfs_close(fs, fd);
    }
    if (w->first_file[0]) {
        fd = logfs_open(fs, w->first_file, O_RDWR, 0);
        if (fd >= 0) {
            struct fs_stat st;
            if (!logfs_fstat(fs, fd, &st)) {
                logfs_pwrite(fs, fd, buf, 700, st.size / 2);
                logfs_punch(fs, fd, 0, 1024);
                logfs_allocate(fs, fd, st.size / 4, 9000, FS_ALLOC_KEEP_SIZE);
                logfs_ftruncate(fs, fd, st.size / 3);
                logfs_allocate(fs, fd, st.size, 5000, 0);
            }
            logfs_close(fs, fd);
        }
        logfs_link(fs, w->first_file, "/fz/hard");
        logfs_rename(fs, w->first_file, "/fz/moved");
        logfs_chmod(fs, "/fz/moved", 0640);
        logfs_utimens(fs, "/fz/moved", 1, 2);
    }
    if (w->first_dir[0]) {
        char p[FM_PATH_MAX + 16];
        snprintf(p, sizeof p, "%s/fz-sub", w->first_dir);
        logfs_mkdir(fs, p, 0755);
        logfs_rmdir(fs, p);
        logfs_rename(fs, w->first_dir, "/fz/dir-moved");
        logfs_rmdir(fs, "/fz/dir-moved");
    }
    if (w->first_link[0])
        logfs_unlink(fs, w->first_link);
    logfs_symlink(fs, "/fz/new", "/fz/sym");
    logfs_sync(fs);
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "/fz/f%d", i);
        fd = logfs_open(fs, name, O_CREAT | O_WRONLY, 0644);
        if (fd >= 0) {
            logfs_pwrite(fs, fd, buf, sizeof buf, (uint64_t)i * 512);
            logfs_close(fs, fd);
        }
        if (i % 2)
            logfs_unlink(fs, name);
    }
    logfs_unlink(fs, "/fz/new");
    logfs_sync(fs);
    logfs_idle(fs, 50000000); /* 50 ms: the cleaner on damaged metadata */
}

static void fm_mount_walk(const struct logfs_options *o, int modify)
{
    logfs *fs = NULL;
    int mrc = logfs_mount(fm.dev, o, &fs);
    if (mrc) {
        if (fuzz_verbose())
            fprintf(stderr, "mount: %s mount: %s\n", o->readonly ? "read-only" : "read-write",
                    strerror(-mrc));
        return;
    }
    struct fm_walk w;
    fm_walk(fs, &w);
    if (fuzz_verbose())
        fprintf(stderr, "mount: %s mount: %u names, %llu bytes read\n",
                o->readonly ? "read-only" : "read-write", w.nodes,
                (unsigned long long)(FM_READ_BUDGET - w.read_budget));
    if (modify) {
        fm_modify(fs, &w);
        fm_walk(fs, &w);
        if (fuzz_verbose())
            fprintf(stderr, "mount: after changes: %u names\n", w.nodes);
    }
    int rc = logfs_unmount(fs);
    if (fuzz_verbose() && rc)
        fprintf(stderr, "mount: unmount: %s\n", strerror(-rc));
}

int fuzz_mount(const uint8_t *data, size_t size)
{
    if (!fm.ready)
        fuzz_mount_init();
    uint8_t flags = size ? data[0] : 0;
    int z = size > 1 && (size - 1) % 6; /* bytes past the records: compressed */
    const struct fm_base *b = &fm.base[(flags & 1) + (z ? FM_ZCLEAN : FM_CLEAN)];
    nand_cut_disarm(fm.dev);
    nand_power_on(fm.dev);
    if (nand_snapshot_restore(fm.dev, b->snap))
        fuzz_fail(FM, "nand_snapshot_restore failed");
    size_t nrec = size ? (size - 1) / 6 : 0;
    if (nrec > FM_MAX_MUTATIONS)
        nrec = FM_MAX_MUTATIONS;
    uint8_t touched[FM_BLOCKS];
    fm_damage(b, data + (size ? 1 : 0), nrec, touched);

    struct logfs_options o = {0};
    o.gc_policy = logfs_gc_policy_name((flags >> 5) & 3, NULL);
    if (flags & 0x80) {
        o.gc_separate = 1;
        o.wear_leveling = LOGFS_WL_STATIC;
        o.wl_threshold = 1;
    }
    o.cache_bytes = 256u << 10;
    o.dirty_bytes = 32u << 10;
    if (!(flags & 2)) {
        struct logfs_options ro = o;
        ro.readonly = 1;
        fm_mount_walk(&ro, 0);
    }
    if (!(flags & 4))
        fm_mount_walk(&o, (flags & 8) != 0);
    fm_check_super(b, touched);
    if (flags & 16) {
        struct logfs_options ro = o;
        ro.readonly = 1;
        fm_mount_walk(&ro, 0);
    }
    return 0;
}
