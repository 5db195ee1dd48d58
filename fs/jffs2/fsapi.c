/* fsapi.c -- the two fsapi entries (jffs2-scan, jffs2-summary): option
 * parsing, the open-file table, and thin adapters. */
#include "jffs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int jffs_options_parse(struct jffs_options *o, const char *list)
{
    if (!list || !*list)
        return 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char key[32], val[32];
        const char *eq = memchr(p, '=', n);
        if (!eq || (size_t)(eq - p) >= sizeof key || (size_t)(p + n - eq - 1) >= sizeof val)
            return -EINVAL;
        memcpy(key, p, (size_t)(eq - p));
        key[eq - p] = 0;
        memcpy(val, eq + 1, (size_t)(p + n - eq - 1));
        val[p + n - eq - 1] = 0;
        char *endp;
        unsigned long v = strtoul(val, &endp, 10);
        if (!strcmp(key, "reserve") && *val && !*endp && v >= 2 && v <= 64) {
            o->reserve_blocks = (uint32_t)v;
        } else if (!strcmp(key, "compress") && jffs_compr_parse(val) >= 0) {
            o->compr = jffs_compr_parse(val);
            o->compr_set = 1;
        } else {
            return -EINVAL;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int opts(const char *list, int summary, struct jffs_options *o)
{
    memset(o, 0, sizeof *o);
    o->summary = summary;
    return jffs_options_parse(o, list);
}

/* ---- open files ------------------------------------------------------ */
/* The inode open as fd, as the call needs it (fs_fd_check), and its fd's
 * slot when f is not NULL. */
static int fd_get(struct jffs *fs, int fd, enum fs_fd_need need, struct jffs_inode **in,
                  struct fs_fd **f)
{
    struct fs_fd *slot;
    int rc = fs_fd_check(&fs->fds, fd, need, &slot);
    if (rc)
        return rc;
    if (f)
        *f = slot;
    *in = jffs_inode_get(fs, (uint32_t)slot->ino);
    return *in ? 0 : -EBADF;
}

static int j_open(void *v, const char *path, int flags, uint32_t mode)
{
    struct jffs *fs = v;
    struct jffs_path r;
    struct jffs_inode *in;
    int rc = fs_open_check(flags);
    if (rc || (rc = jffs_resolve(fs, path, !(flags & O_NOFOLLOW), &r)))
        return rc;
    if (!r.ino) {
        if (!(flags & O_CREAT))
            return -ENOENT;
        if ((rc = jffs_space_check(fs, 0)) ||
            (rc = jffs_create(fs, &r, S_IFREG | (mode & 07777), NULL, 0, &in)))
            return rc;
    } else {
        in = jffs_inode_get(fs, r.ino);
        if ((rc = fs_open_existing(flags, in->mode)))
            return rc;
        if (fs_open_truncates(flags) && in->size) {
            fs->deleting = 1;
            rc = jffs_file_truncate(fs, in, 0);
            fs->deleting = 0;
            if (rc)
                return rc;
        }
    }
    int fd = fs_fd_alloc(&fs->fds, in->ino, flags);
    if (fd >= 0)
        in->opens++;
    return fd;
}

static int j_close(void *v, int fd)
{
    struct jffs *fs = v;
    struct jffs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &in, NULL);
    if (rc)
        return rc;
    fs_fd_release(&fs->fds, fd);
    in->opens--;
    jffs_inode_put(fs, in); /* the last close of an unlinked file frees it */
    return 0;
}

static int64_t j_pread(void *v, int fd, void *buf, uint64_t len, uint64_t off)
{
    struct jffs *fs = v;
    struct jffs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_READ, &in, NULL);
    if (rc)
        return rc;
    if (S_ISDIR(in->mode))
        return -EISDIR;
    return jffs_file_pread(fs, in, buf, len, off);
}

static int64_t j_pwrite(void *v, int fd, const void *buf, uint64_t len, uint64_t off)
{
    struct jffs *fs = v;
    struct jffs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_WRITE, &in, NULL);
    if (rc)
        return rc;
    uint64_t grow = off > in->size ? off - in->size : 0;
    if ((rc = jffs_space_check(fs, len + (grow ? JFFS_INODE_HDR : 0))))
        return rc;
    return jffs_file_pwrite(fs, in, buf, len, off);
}

static int j_ftruncate(void *v, int fd, uint64_t size)
{
    struct jffs *fs = v;
    struct jffs_inode *in;
    struct fs_fd *f;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &in, &f);
    if (rc)
        return rc;
    if (!fs_fd_writable(f->flags) || !S_ISREG(in->mode))
        return S_ISDIR(in->mode) ? -EISDIR : -EINVAL;
    fs->deleting = size <= in->size;
    rc = fs->deleting ? 0 : jffs_space_check(fs, 0);
    if (!rc)
        rc = jffs_file_truncate(fs, in, size);
    fs->deleting = 0;
    return rc;
}

static int j_punch(void *v, int fd, uint64_t off, uint64_t len)
{
    struct jffs *fs = v;
    struct jffs_inode *in;
    struct fs_fd *f;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &in, &f);
    if (rc)
        return rc;
    if (!fs_fd_writable(f->flags) || !S_ISREG(in->mode))
        return S_ISDIR(in->mode) ? -EISDIR : -EINVAL;
    fs->deleting = 1;
    rc = jffs_file_punch(fs, in, off, len);
    fs->deleting = 0;
    return rc;
}

static void fill_stat(const struct jffs_inode *in, struct fs_stat *st)
{
    memset(st, 0, sizeof *st);
    st->ino = in->ino;
    st->mode = in->mode;
    st->nlink = in->nlink;
    st->uid = in->uid;
    st->gid = in->gid;
    st->size = S_ISDIR(in->mode) ? in->nreal : in->size;
    st->atime = in->atime;
    st->mtime = in->mtime;
    st->ctime = in->ctime;
    st->blocks = fs_blocks_of_size(st->size);
}

static int do_stat(struct jffs *fs, const char *path, int follow, struct fs_stat *st)
{
    struct jffs_path r;
    int rc = jffs_resolve(fs, path, follow, &r);
    if (!rc && !r.ino)
        rc = -ENOENT;
    if (!rc)
        fill_stat(jffs_inode_get(fs, r.ino), st);
    return rc;
}

static int j_stat(void *v, const char *p, struct fs_stat *st) { return do_stat(v, p, 1, st); }
static int j_lstat(void *v, const char *p, struct fs_stat *st) { return do_stat(v, p, 0, st); }
static int j_fstat(void *v, int fd, struct fs_stat *st)
{
    struct jffs_inode *in;
    int rc = fd_get(v, fd, FS_FD_OPEN, &in, NULL);
    if (!rc)
        fill_stat(in, st);
    return rc;
}

static int j_statfs(void *v, struct fs_statfs *st)
{
    struct jffs *fs = v;
    uint32_t good = jffs_good_blocks(fs);
    uint64_t total = good > fs->opt.reserve_blocks
                   ? (uint64_t)(good - fs->opt.reserve_blocks) * fs->bs : 0;
    uint64_t files = 0;
    for (uint32_t i = 0; i < fs->capino; i++)
        files += fs->inodes[i] != NULL;
    st->block_size = fs->ps;
    st->total_bytes = total;
    st->free_bytes = fs->live_bytes < total ? total - fs->live_bytes : 0;
    st->files = files;
    return 0;
}

/* ---- probing ------------------------------------------------------------- */

#define PROBE_USED 4 /* written blocks whose end is checked for a summary */

/* JFFS2's marks: a node header (magic 0x1985, header CRC) at the start of
 * an erase block -- on NAND every written block starts with a node, the
 * cleanmarker being in the OOB -- and, in jffs2-summary, a summary marker
 * at the end of a closed block.  Reads 12 bytes of page 0 of each block up
 * to the first written ones, then the 8 last bytes of their last pages.  1 when nodes were
 * found (and, want_sum, a summary), 0 when not, -EIO. */
static int probe(nand_dev *dev, int want_sum)
{
    const struct nand_config *c = nand_get_config(dev);
    uint32_t ps = c->geo.page_size, ppb = c->geo.pages_per_block, used = 0;
    uint64_t n = nand_blocks(c);
    uint8_t h[12];
    for (uint64_t b = 0; b < n && used < PROBE_USED; b++) {
        int bad = nand_is_bad(dev, (nand_block_t)b);
        if (bad < 0)
            return -EIO;
        if (bad)
            continue;
        int rc = nand_read_col(dev, (nand_block_t)b, 0, 0, h, sizeof h, NULL);
        if (rc == NAND_E_POWER)
            return -EIO;
        uint16_t type;
        uint32_t totlen;
        if (rc != NAND_OK || jffs_decode_hdr(h, 0, &type, &totlen))
            continue;
        if (!want_sum)
            return 1;
        used++;
        rc = nand_read_col(dev, (nand_block_t)b, ppb - 1, ps - JFFS_SUM_TAIL, h,
                           JFFS_SUM_TAIL, NULL);
        if (rc == NAND_E_POWER)
            return -EIO;
        uint32_t so = le32_get(h); /* jffs2_sum_marker: offset, magic */
        if (rc == NAND_OK && le32_get(h + 4) == JFFS_SUM_MAGIC && so % 4 == 0 &&
            (uint64_t)so + JFFS_SUM_HDR + JFFS_SUM_TAIL <= (uint64_t)ps * ppb)
            return 1;
    }
    return 0;
}
static int probe_scan(nand_dev *d) { return probe(d, 0); }
static int probe_sum(nand_dev *d) { return probe(d, 1); }

/* ---- the tables -------------------------------------------------------- */
static int j_parse(const char *o)
{
    struct jffs_options op;
    return opts(o, 0, &op);
}
static const char *j_option_help(unsigned i, const char **help)
{
    static const char *const keys[][2] = {
        {"reserve", "erase blocks kept for the collector, 2..64"},
        {"compress", "file data: none, zlib, rtime or lzo (lzo)"},
    };
    return fs_opts_help(keys, sizeof keys / sizeof keys[0], i, help);
}
static int j_check_scan(const char *o, char *err, size_t errlen)
{
    return fs_opts_check("jffs2-scan", o, j_parse, j_option_help, err, errlen);
}
static int j_check_sum(const char *o, char *err, size_t errlen)
{
    return fs_opts_check("jffs2-summary", o, j_parse, j_option_help, err, errlen);
}
static int mkfs_scan(nand_dev *d, const char *o)
{
    struct jffs_options op;
    int rc = opts(o, 0, &op);
    return rc ? rc : jffs_mkfs(d, &op);
}
static int mkfs_sum(nand_dev *d, const char *o)
{
    struct jffs_options op;
    int rc = opts(o, 1, &op);
    return rc ? rc : jffs_mkfs(d, &op);
}
static int mount_scan(nand_dev *d, const char *o, void **fs)
{
    struct jffs_options op;
    int rc = opts(o, 0, &op);
    return rc ? rc : jffs_mount(d, &op, (struct jffs **)fs);
}
static int mount_sum(nand_dev *d, const char *o, void **fs)
{
    struct jffs_options op;
    int rc = opts(o, 1, &op);
    return rc ? rc : jffs_mount(d, &op, (struct jffs **)fs);
}
static int j_unmount(void *fs) { return jffs_unmount(fs); }
static int j_sync(void *fs) { return jffs_sync(fs); }
static int j_fsync(void *fs, int fd)
{
    struct jffs_inode *in;
    int rc = fd_get(fs, fd, FS_FD_OPEN, &in, NULL);
    return rc ? rc : jffs_flush(fs); /* a node is durable once its page is */
}
static int j_mkdir(void *fs, const char *p, uint32_t m) { return jffs_mkdir(fs, p, m); }
static int j_rmdir(void *fs, const char *p) { return jffs_rmdir(fs, p); }
static int j_unlink(void *fs, const char *p) { return jffs_unlink(fs, p); }
static int j_rename(void *fs, const char *a, const char *b) { return jffs_rename(fs, a, b); }
static int j_link(void *fs, const char *a, const char *b) { return jffs_link(fs, a, b); }
static int j_symlink(void *fs, const char *t, const char *p) { return jffs_symlink(fs, t, p); }
static int64_t j_readlink(void *fs, const char *p, char *b, uint64_t n)
{
    return jffs_readlink(fs, p, b, n);
}
static int j_readdir(void *fs, const char *p, uint64_t *c, fs_dir_fn fn, void *ctx)
{
    return jffs_readdir(fs, p, c, fn, ctx);
}
static uint64_t j_mem(void *fs) { return ((struct jffs *)fs)->mem; }
static void j_work(void *fs, struct fsapi_mount_work *w) { *w = ((struct jffs *)fs)->work; }

#define JFFS_OPS                                                                  \
    .unmount = j_unmount, .sync = j_sync, .open = j_open, .close = j_close,        \
    .pread = j_pread, .pwrite = j_pwrite, .ftruncate = j_ftruncate,                \
    .punch = j_punch, .fsync = j_fsync, .stat = j_stat, .lstat = j_lstat,          \
    .fstat = j_fstat, .mkdir = j_mkdir, .rmdir = j_rmdir, .unlink = j_unlink,      \
    .rename = j_rename, .link = j_link, .symlink = j_symlink,                      \
    .readlink = j_readlink, .readdir = j_readdir, .statfs = j_statfs,              \
    .mem_bytes = j_mem, .mount_work = j_work,                                    \
    .option_help = j_option_help, .features = FSAPI_F_COMPRESS,                    \
    .page_map = jffs_page_map, .page_classes = jffs_page_classes

const struct fsapi fsapi_jffs2_scan = {
    .name = "jffs2-scan",
    .summary = "JFFS2 (Linux's on-flash format); mount scans every used page",
    .mkfs = mkfs_scan, .probe = probe_scan, .mount = mount_scan, .check_options = j_check_scan,
    JFFS_OPS,
};

const struct fsapi fsapi_jffs2_summary = {
    .name = "jffs2-summary",
    .summary = "JFFS2 with erase-block summaries (as sumtool); mount reads them",
    .mkfs = mkfs_sum, .probe = probe_sum, .mount = mount_sum, .check_options = j_check_sum,
    JFFS_OPS,
};
