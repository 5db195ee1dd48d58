/* file.c -- file contents: every change is a new inode node (data,
 * a hole, or just a new size); reads go through the fragment list and
 * check each node's data CRC. */
#include "jffs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int64_t jffs_now(struct jffs *fs)
{
    return (int64_t)nand_now(fs->dev);
}

/* Append an inode node for in as it is now (attributes, size), covering
 * [doff, doff+dsize) with data or, if hole, with zeros (JFFS2_COMPR_ZERO).
 * Data is compressed with the fs's method when that saves space; symlink
 * targets are stored as they are, as Linux does. */
int jffs_write_inode(struct jffs *fs, struct jffs_inode *in, uint64_t doff,
                     const void *data, uint64_t dsize, int hole)
{
    uint8_t buf[JFFS_INODE_HDR + JFFS_CDATA_MAX];
    if (doff + dsize > JFFS_MAX_BYTES || in->size > JFFS_MAX_BYTES)
        return -EFBIG; /* JFFS2's sizes and offsets are 32 bits */
    if (fs->next_version > JFFS_VERSION_MAX)
        return -EOVERFLOW; /* a newer node could not say so */
    struct jffs_raw_inode ri = {
        .ino = in->ino, .mode = in->mode, .uid = (uint16_t)in->uid, .gid = (uint16_t)in->gid,
        .dsize = (uint32_t)dsize, .version = (uint32_t)fs->next_version++,
        .isize = (uint32_t)in->size, .doff = (uint32_t)doff,
        .atime = in->atime, .mtime = in->mtime, .ctime = in->ctime,
        .compr = hole ? JFFS_COMPR_ZERO : JFFS_COMPR_NONE,
    };
    const uint8_t *cdata = data;
    if (!hole) {
        ri.csize = ri.dsize;
        uint32_t c = S_ISLNK(in->mode) ? 0
                   : jffs_compress(fs->opt.compr, data, ri.dsize, fs->cbuf, JFFS_CDATA_MAX);
        if (c) {
            ri.compr = (uint8_t)fs->opt.compr;
            ri.csize = c;
            cdata = fs->cbuf;
        }
    }
    jffs_encode_inode(buf, &ri, cdata);
    ri.dcrc = le32_get(buf + 60);
    uint32_t len = JFFS_INODE_HDR + ri.csize;
    uint64_t addr;
    int rc = jffs_write_node(fs, buf, len, &addr);
    if (rc)
        return rc;
    struct jffs_node *n = jffs_node_new(fs, addr, len, &ri);
    if (!n)
        return -ENOMEM;
    jffs_set_meta(fs, in, n); /* first: the truncation must not free it */
    rc = jffs_frag_insert(fs, in, n);
    jffs_frag_truncate(fs, in, in->size);
    return rc;
}

/* The node's data, CRC-checked and decompressed (one node cached). */
static int node_data(struct jffs *fs, const struct jffs_node *n, const uint8_t **out)
{
    if (fs->rnode != n || fs->raddr != n->r.addr || fs->rversion != n->version) {
        fs->rnode = NULL;
        int rc = jffs_read_bytes(fs, n->r.addr + JFFS_INODE_HDR, fs->cbuf, n->csize);
        if (rc)
            return rc;
        if (jffs_crc(fs->cbuf, n->csize) != n->dcrc ||
            jffs_decompress(n->compr, fs->cbuf, n->csize, fs->rbuf, n->dsize))
            return -EIO; /* never hand out data the CRC does not vouch for */
        fs->rnode = n;
        fs->raddr = n->r.addr;
        fs->rversion = n->version;
    }
    *out = fs->rbuf;
    return 0;
}

int64_t jffs_file_pread(struct jffs *fs, struct jffs_inode *in, void *buf,
                        uint64_t len, uint64_t off)
{
    if (off >= in->size)
        return 0;
    if (len > in->size - off)
        len = in->size - off;
    uint8_t *out = buf;
    memset(out, 0, len); /* what no fragment covers is a hole */
    uint64_t end = off + len;
    uint32_t lo = 0, hi = in->nfrag;
    while (lo < hi) { /* the first fragment ending after off */
        uint32_t mid = (lo + hi) / 2;
        if (in->frags[mid].off + in->frags[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < in->nfrag && in->frags[i].off < end; i++) {
        const struct jffs_frag *f = &in->frags[i];
        if (f->n->hole)
            continue;
        uint64_t s = f->off > off ? f->off : off;
        uint64_t e = f->off + f->len < end ? f->off + f->len : end;
        const uint8_t *d;
        int rc = node_data(fs, f->n, &d);
        if (rc)
            return rc;
        memcpy(out + (s - off), d + (s - f->n->doff), e - s);
    }
    return (int64_t)len;
}

/* [from, to) reads as zeros: hole nodes (a node's size is 32 bits). */
static int write_hole(struct jffs *fs, struct jffs_inode *in, uint64_t from, uint64_t to)
{
    while (from < to) {
        uint64_t n = to - from > (1u << 30) ? (1u << 30) : to - from;
        int rc = jffs_write_inode(fs, in, from, NULL, n, 1);
        if (rc)
            return rc;
        from += n;
    }
    return 0;
}

int64_t jffs_file_pwrite(struct jffs *fs, struct jffs_inode *in, const void *buf,
                         uint64_t len, uint64_t off)
{
    int rc;
    int64_t fit = fs_write_fit(off, len, JFFS_MAX_BYTES);
    if (fit <= 0)
        return fit;
    len = (uint64_t)fit; /* a short write up to the largest file */
    in->mtime = in->ctime = jffs_now(fs);
    /* past the end: a hole node first, so that no older node beyond the
     * old size can show through (JFFS2 does the same) */
    if (off > in->size) {
        uint64_t old = in->size;
        in->size = off;
        if ((rc = write_hole(fs, in, old, off)))
            return rc;
    }
    const uint8_t *p = buf;
    for (uint64_t pos = off; pos < off + len;) {
        uint64_t e = (pos / JFFS_DATA_MAX + 1) * JFFS_DATA_MAX;
        if (e > off + len)
            e = off + len;
        if (e > in->size)
            in->size = e;
        if ((rc = jffs_write_inode(fs, in, pos, p + (pos - off), e - pos, 0)))
            return pos > off ? (int64_t)(pos - off) : rc;
        pos = e;
    }
    return (int64_t)len;
}

int jffs_file_truncate(struct jffs *fs, struct jffs_inode *in, uint64_t size)
{
    uint64_t old = in->size;
    if (size > JFFS_MAX_BYTES)
        return -EFBIG;
    in->mtime = in->ctime = jffs_now(fs);
    in->size = size;
    if (size > old)
        return write_hole(fs, in, old, size);
    return jffs_write_inode(fs, in, size, NULL, 0, 0); /* the new size */
}

int jffs_file_punch(struct jffs *fs, struct jffs_inode *in, uint64_t off, uint64_t len)
{
    uint64_t end = off + len < off || off + len > in->size ? in->size : off + len;
    if (off >= end)
        return 0;
    in->mtime = in->ctime = jffs_now(fs);
    return write_hole(fs, in, off, end);
}
