/*
 * data.c -- file contents: read, write (in place), truncate and
 * punch.  Bytes past the size within the last block are kept zero, so
 * that growing a file (a hole) reads zeros without touching flash.
 */
#define BLOCKFS_INTERNAL
#include "blockfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int64_t bf_file_pread(struct blockfs *fs, uint32_t ino, void *buf, uint64_t len,
                      uint64_t off)
{
    struct bf_inode *in = &fs->itab[ino];
    if (off >= in->size || !len)
        return 0;
    if (len > in->size - off)
        len = in->size - off;
    uint8_t *tmp = malloc(fs->bs);
    if (!tmp)
        return -ENOMEM;
    uint64_t done = 0;
    int rc = 0;
    while (done < len) {
        uint64_t pos = off + done, lblk = pos / fs->bs, o = pos % fs->bs;
        uint64_t n = fs->bs - o < len - done ? fs->bs - o : len - done;
        uint32_t b;
        if ((rc = bf_bmap(fs, ino, lblk, 0, &b, NULL)))
            break;
        if (!b) {
            memset((uint8_t *)buf + done, 0, n);
        } else {
            if ((rc = bf_read_block(fs, b, tmp)))
                break;
            memcpy((uint8_t *)buf + done, tmp + o, n);
        }
        done += n;
    }
    free(tmp);
    return rc ? rc : (int64_t)done;
}

/* The largest file: what the direct, single and double indirect
 * pointers reach. */
uint64_t bf_max_bytes(const struct blockfs *fs)
{
    return fs->max_blocks * fs->bs;
}

/* Everything or nothing: the blocks it needs are counted first. */
int64_t bf_file_pwrite(struct blockfs *fs, uint32_t ino, const void *buf,
                       uint64_t len, uint64_t off)
{
    struct bf_inode *in = &fs->itab[ino];
    int64_t fit = fs_write_fit(off, len, bf_max_bytes(fs));
    if (fit <= 0)
        return fit;
    len = (uint64_t)fit; /* a short write up to the largest file */
    uint64_t need;
    int rc = bf_needs(fs, ino, off / fs->bs, (off + len - 1) / fs->bs, &need);
    if (rc)
        return rc;
    if (need > fs->sb.free_blocks)
        return -ENOSPC;
    uint8_t *tmp = malloc(fs->bs);
    if (!tmp)
        return -ENOMEM;
    uint64_t done = 0;
    while (done < len) {
        uint64_t pos = off + done, lblk = pos / fs->bs, o = pos % fs->bs;
        uint64_t n = fs->bs - o < len - done ? fs->bs - o : len - done;
        uint32_t b;
        int fresh;
        if ((rc = bf_bmap(fs, ino, lblk, 1, &b, &fresh)))
            break;
        if (n < fs->bs) {
            if (fresh)
                memset(tmp, 0, fs->bs);
            else if ((rc = bf_read_block(fs, b, tmp)))
                break;
        }
        memcpy(tmp + o, (const uint8_t *)buf + done, n);
        if ((rc = bf_write_block(fs, b, tmp)))
            break;
        done += n;
    }
    free(tmp);
    if (done && off + done > in->size)
        in->size = off + done;
    if (done) {
        in->mtime = in->ctime = bf_now(fs);
        bf_idirty(fs, ino);
    }
    return done ? (int64_t)done : rc;
}

/* Zero bytes [from, to) of file block lblk, if it is mapped. */
static int zero_part(struct blockfs *fs, uint32_t ino, uint64_t lblk, uint64_t from,
                     uint64_t to)
{
    uint32_t b;
    int rc = bf_bmap(fs, ino, lblk, 0, &b, NULL);
    if (rc || !b || from >= to)
        return rc;
    uint8_t *tmp = malloc(fs->bs);
    if (!tmp)
        return -ENOMEM;
    rc = bf_read_block(fs, b, tmp);
    if (!rc) {
        memset(tmp + from, 0, to - from);
        rc = bf_write_block(fs, b, tmp);
    }
    free(tmp);
    return rc;
}

int bf_file_truncate(struct blockfs *fs, uint32_t ino, uint64_t size)
{
    struct bf_inode *in = &fs->itab[ino];
    if (size > bf_max_bytes(fs))
        return -EFBIG;
    int rc = 0;
    if (size < in->size) {
        uint64_t keep = (size + fs->bs - 1) / fs->bs;
        rc = bf_free_range(fs, ino, keep, UINT64_MAX);
        if (!rc && size % fs->bs)
            rc = zero_part(fs, ino, size / fs->bs, size % fs->bs, fs->bs);
    }
    in->size = size;
    in->mtime = in->ctime = bf_now(fs);
    bf_idirty(fs, ino);
    return rc;
}

/* Deallocate [off, off+len) within the size: whole blocks are freed, the
 * partial ends are zeroed in place. */
int bf_file_punch(struct blockfs *fs, uint32_t ino, uint64_t off, uint64_t len)
{
    struct bf_inode *in = &fs->itab[ino];
    uint64_t end = off + len < off ? UINT64_MAX : off + len;
    if (end > in->size)
        end = in->size;
    in->mtime = in->ctime = bf_now(fs);
    bf_idirty(fs, ino);
    if (off >= end)
        return 0;
    uint64_t bs = fs->bs, fb = (off + bs - 1) / bs, lb = end / bs;
    int rc = 0;
    if (off / bs == (end - 1) / bs && (off % bs || end % bs)) /* one block, partly */
        return zero_part(fs, ino, off / bs, off % bs, end - off / bs * bs);
    if (off % bs)
        rc = zero_part(fs, ino, off / bs, off % bs, bs);
    if (!rc && end % bs)
        rc = zero_part(fs, ino, lb, 0, end % bs);
    if (!rc && fb < lb)
        rc = bf_free_range(fs, ino, fb, lb);
    return rc;
}
