/* layout.c -- options, the fixed layout, and mkfs. */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int parse_num(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;
    size_t i = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        if (x > UINT32_MAX)
            return -EINVAL;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (!i)
        return -EINVAL;
    if (i < n) {
        char s = v[i++];
        if (s != 'K' && s != 'k' && s != 'M' && s != 'm')
            return -EINVAL;
        x <<= s == 'K' || s == 'k' ? 10 : 20;
    }
    if (i != n || x > UINT32_MAX)
        return -EINVAL;
    *out = x;
    return 0;
}

/* Append the item s[0..n) to o->dev_opts: -EINVAL when it does not fit. */
static int add_foreign(struct bf_opts *o, const char *s, size_t n)
{
    size_t len = strlen(o->dev_opts);
    if (len + n + 2 > sizeof o->dev_opts)
        return -EINVAL;
    if (len)
        o->dev_opts[len++] = ',';
    memcpy(o->dev_opts + len, s, n);
    o->dev_opts[len + n] = '\0';
    return 0;
}

/* "key=value,...": block_size, inodes, cache, dev; any other key is an
 * error, or with foreign, the block device's (collected in dev_opts). */
int bf_parse_opts(const char *s, struct bf_opts *o, int foreign)
{
    o->block_size = 4096;
    o->inodes = 1024;
    o->cache = 1;
    o->dev = BF_DEV_ANY;
    o->dev_opts[0] = '\0';
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        if (n) {
            if (!eq)
                return -EINVAL;
            size_t kl = (size_t)(eq - s), vl = n - kl - 1;
            uint64_t v = 0;
            int num = !parse_num(eq + 1, vl, &v);
            if (kl == 3 && !memcmp(s, "dev", 3)) {
                if (vl == 7 && !memcmp(eq + 1, "inplace", 7))
                    o->dev = BF_DEV_INPLACE;
                else if (vl == 3 && !memcmp(eq + 1, "ftl", 3))
                    o->dev = BF_DEV_FTL;
                else
                    return -EINVAL;
            } else if (kl == 10 && !memcmp(s, "block_size", 10) && num)
                o->block_size = (uint32_t)v;
            else if (kl == 6 && !memcmp(s, "inodes", 6) && num)
                o->inodes = (uint32_t)v;
            else if (kl == 5 && !memcmp(s, "cache", 5) && num && v <= 1)
                o->cache = (int)v;
            else if (!foreign || (kl == 10 && !memcmp(s, "block_size", 10)) ||
                     (kl == 6 && !memcmp(s, "inodes", 6)) || (kl == 5 && !memcmp(s, "cache", 5)) ||
                     add_foreign(o, s, n))
                return -EINVAL;
        }
        s = end ? end + 1 : s + n;
    }
    return 0;
}

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

/* Superblock alone in erase block 0, then the inode table, the bitmap and
 * the data, each region starting on an erase-block boundary so that the
 * wear of metadata and data can be told apart. */
int bf_layout(uint32_t ps, uint32_t ppb, uint64_t nebs, uint32_t bs, uint32_t inodes,
              struct bf_super *sb)
{
    uint64_t ebsize = (uint64_t)ps * ppb;
    if (bs < 512 || bs > 65536 || (bs & (bs - 1)) || bs % ps || ebsize % bs)
        return -EINVAL;
    if (inodes < 2 || inodes > (1u << 20))
        return -EINVAL;
    uint32_t bpe = (uint32_t)(ebsize / bs);
    if (nebs * bpe > UINT32_MAX / 2 || sizeof(struct bf_super) > ps)
        return -EINVAL;
    memset(sb, 0, sizeof *sb);
    memcpy(sb->magic, BF_MAGIC, 8);
    sb->version = BF_VERSION;
    sb->block_size = bs;
    sb->page_size = ps;
    sb->pages_per_block = ppb;
    sb->n_ebs = (uint32_t)nebs;
    sb->inodes = inodes;
    sb->inode_eb = 1;
    sb->inode_ebs = div_up(div_up((uint64_t)inodes * sizeof(struct bf_inode), bs), bpe);
    sb->bitmap_eb = sb->inode_eb + sb->inode_ebs;
    sb->bitmap_ebs = div_up(div_up(div_up(nebs * bpe, 8), bs), bpe);
    sb->data_eb = sb->bitmap_eb + sb->bitmap_ebs;
    sb->root = BF_ROOT;
    if (sb->data_eb >= nebs)
        return -ENOSPC;
    sb->free_blocks = (uint32_t)((nebs - sb->data_eb) * bpe);
    sb->free_inodes = inodes - 2; /* inode 0 is never used; 1 is the root */
    return 0;
}

void bf_geometry(struct blockfs *fs)
{
    const struct bf_super *sb = &fs->sb;
    fs->bs = sb->block_size;
    fs->ppfb = sb->block_size / sb->page_size;
    fs->bpe = sb->page_size * sb->pages_per_block / sb->block_size;
    fs->nblocks = sb->n_ebs * fs->bpe;
    fs->data_start = sb->data_eb * fs->bpe;
    fs->inode_start = sb->inode_eb * fs->bpe;
    fs->inode_blocks = div_up((uint64_t)sb->inodes * sizeof(struct bf_inode), fs->bs);
    fs->bitmap_start = sb->bitmap_eb * fs->bpe;
    fs->bitmap_blocks = div_up(div_up(fs->nblocks, 8), fs->bs);
    fs->epb = fs->bs / (uint32_t)sizeof(struct bf_dirent);
    fs->ptrs = fs->bs / 4;
    fs->max_blocks = BF_NDIRECT + fs->ptrs + (uint64_t)fs->ptrs * fs->ptrs;
}

int64_t bf_now(struct blockfs *fs)
{
    return (int64_t)nand_now(fs->dev);
}

/* Writes the superblock, a zeroed inode table holding the root, and the
 * bitmap with the metadata region and factory-bad erase blocks marked used -- all through the same
 * read-modify-erase-write path.  The data region is left as it is: every
 * erase block is erased before it is programmed anyway. */
int bf_mkfs(nand_dev *dev, const char *options)
{
    struct bf_opts o;
    int rc = bf_parse_opts(options, &o, 1);
    if (rc)
        return rc;
    struct blockfs *fs = calloc(1, sizeof *fs);
    if (!fs)
        return -ENOMEM;
    o.cache = 1;
    fs->cache = 1;
    if ((rc = bf_dev_open(dev, &o, 1, fs))) {
        free(fs);
        return rc;
    }
    if ((rc = bf_layout(fs->ps, fs->ppb, fs->nebs, o.block_size, o.inodes, &fs->sb))) {
        blk_close(fs->bd);
        free(fs);
        return rc;
    }
    bf_geometry(fs);
    uint8_t *buf = calloc(1, fs->bs);
    rc = buf ? 0 : -ENOMEM;
    if (!rc) {
        memcpy(buf, &fs->sb, sizeof fs->sb);
        rc = bf_write_block(fs, 0, buf);
    }
    int64_t now = bf_now(fs);
    for (uint32_t i = 0; !rc && i < fs->inode_blocks; i++) {
        memset(buf, 0, fs->bs);
        if (i == 0) { /* the root: inode 1 */
            struct bf_inode *root = (struct bf_inode *)buf + BF_ROOT;
            root->mode = S_IFDIR | 0755;
            root->nlink = 2;
            root->atime = root->mtime = root->ctime = now;
            root->parent = BF_ROOT;
        }
        rc = bf_write_block(fs, fs->inode_start + i, buf);
    }
    /* factory-bad erase blocks under the in-place map: metadata there is
     * fatal, data blocks there are marked used for ever (the only
     * bad-block handling; the FTL hides its bad blocks) */
    uint8_t *bad = calloc(fs->sb.n_ebs, 1);
    rc = rc ? rc : bad ? 0 : -ENOMEM;
    int raw = !strcmp(blk_kind(fs->bd), "inplace");
    for (uint32_t eb = 1; raw && !rc && eb < fs->sb.n_ebs; eb++) {
        const char *role = blk_block_role(fs->bd, eb);
        bad[eb] = !role || !strcmp(role, "bad");
        if (!role || (bad[eb] && eb < fs->sb.data_eb))
            rc = -EIO;
    }
    for (uint32_t i = 0; !rc && i < fs->bitmap_blocks; i++) {
        memset(buf, 0, fs->bs);
        for (uint64_t b = (uint64_t)i * fs->bs * 8; b < fs->nblocks &&
             b < (uint64_t)(i + 1) * fs->bs * 8; b++)
            if (b < fs->data_start || bad[b / fs->bpe])
                buf[(b / 8) % fs->bs] |= (uint8_t)(1u << (b % 8));
        rc = bf_write_block(fs, fs->bitmap_start + i, buf);
    }
    free(bad);
    if (!rc)
        rc = bf_cache_flush(fs);
    int crc = blk_close(fs->bd);
    free(buf);
    free(fs);
    return rc ? rc : crc;
}
