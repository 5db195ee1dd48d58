/*
 * disk.c -- byte reads, writes and punches on /disk, in sectors: whole
 * sectors go to the block device as they are, a partial one is read,
 * changed and written whole (so a 4 KiB write on 8 KiB sectors programs
 * a whole sector, as an SSD with an 8 KiB mapping unit does).
 */
#include "ftlfs.h"

#include <string.h>

/* the fd's check, for /disk only */
static int disk_fd(struct ftlfs *f, int fd, enum fs_fd_need need)
{
    struct fs_fd *slot;
    int rc = fs_fd_check(&f->fds, fd, need, &slot);
    return rc ? rc : slot->ino == FTLFS_DISK ? 0 : -EISDIR;
}

static uint64_t disk_bytes(const struct ftlfs *f)
{
    return blk_sectors(f->d) * blk_sector_size(f->d);
}

int64_t ftlfs_pread(void *fs, int fd, void *buf, uint64_t len, uint64_t off)
{
    struct ftlfs *f = fs;
    int rc = disk_fd(f, fd, FS_FD_READ);
    if (rc)
        return rc;
    uint64_t size = disk_bytes(f), ss = blk_sector_size(f->d), done = 0;
    if (off >= size)
        return 0;
    if (len > size - off)
        len = size - off;
    while (done < len) {
        uint64_t pos = off + done, sec = pos / ss, in = pos % ss;
        uint8_t *dst = (uint8_t *)buf + done;
        if (!in && len - done >= ss) { /* whole sectors straight in */
            uint64_t n = (len - done) / ss;
            n = n > 1024 ? 1024 : n;
            if ((rc = blk_read(f->d, sec, (uint32_t)n, dst)))
                return rc;
            done += n * ss;
            continue;
        }
        uint64_t k = ss - in < len - done ? ss - in : len - done;
        if ((rc = blk_read(f->d, sec, 1, f->sec)))
            return rc;
        memcpy(dst, f->sec + in, k);
        done += k;
    }
    return (int64_t)len;
}

/* Write len bytes of src (NULL: zeros) at off, all inside the disk. */
static int put(struct ftlfs *f, const uint8_t *src, uint64_t len, uint64_t off)
{
    uint64_t ss = blk_sector_size(f->d), done = 0;
    int rc = 0;
    while (done < len && !rc) {
        uint64_t pos = off + done, sec = pos / ss, in = pos % ss;
        if (!in && len - done >= ss && src) {
            uint64_t n = (len - done) / ss;
            n = n > 1024 ? 1024 : n;
            rc = blk_write(f->d, sec, (uint32_t)n, src + done);
            done += n * ss;
            continue;
        }
        uint64_t k = ss - in < len - done ? ss - in : len - done;
        if (k < ss)
            rc = blk_read(f->d, sec, 1, f->sec);
        if (src)
            memcpy(f->sec + in, src + done, k);
        else
            memset(f->sec + in, 0, k);
        if (!rc)
            rc = blk_write(f->d, sec, 1, f->sec);
        done += k;
    }
    return rc;
}

int64_t ftlfs_pwrite(void *fs, int fd, const void *buf, uint64_t len, uint64_t off)
{
    struct ftlfs *f = fs;
    int rc = disk_fd(f, fd, FS_FD_WRITE);
    if (rc)
        return rc;
    uint64_t size = disk_bytes(f);
    if (len && off >= size)
        return -ENOSPC;
    if (len > size - off)
        len = size - off;
    rc = put(f, buf, len, off);
    return rc ? rc : (int64_t)len;
}

/* TRIM for the whole sectors of the range, zeros for its partial ends. */
int ftlfs_punch(void *fs, int fd, uint64_t off, uint64_t len)
{
    struct ftlfs *f = fs;
    int rc = disk_fd(f, fd, FS_FD_WRITE);
    if (rc)
        return rc;
    uint64_t size = disk_bytes(f), ss = blk_sector_size(f->d);
    if (off >= size)
        return 0;
    if (len > size - off)
        len = size - off;
    uint64_t first = (off + ss - 1) / ss, end = (off + len) / ss;
    if (first >= end)
        return put(f, NULL, len, off);
    if (first * ss > off && (rc = put(f, NULL, first * ss - off, off)))
        return rc;
    if ((rc = blk_trim(f->d, first, end - first)))
        return rc;
    return end * ss < off + len ? put(f, NULL, off + len - end * ss, end * ss) : 0;
}
