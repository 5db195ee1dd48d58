/*
 * fsapi.c -- the table of file systems (fsapi.h) and the mount CPU cost
 * model.  Each file system defines its own entry (fs/<fs>/fsapi.c).
 */
#include "fsapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static const struct fsapi *const all[] = {
    &fsapi_logfs,
    &fsapi_blockfs,
    &fsapi_jffs2_scan,
    &fsapi_jffs2_summary,
    &fsapi_ftl,
};

const struct fsapi *fsapi_at(size_t i)
{
    return i < sizeof all / sizeof all[0] ? all[i] : NULL;
}

const struct fsapi *fsapi_find(const char *name)
{
    for (size_t i = 0; name && fsapi_at(i); i++)
        if (!strcmp(all[i]->name, name))
            return all[i];
    return NULL;
}

/* The order of fsapi_probe.  blockfs's superblock comes first: a blockfs
 * made over a LogFS may leave LogFS's backup superblock in the last good
 * block, while a LogFS made over a blockfs replaces block 0; and blockfs
 * finds its superblock inside an FTL too (dev=ftl), which the bare FTL
 * would otherwise claim.  Both mkfs of JFFS2 erase every block, so their
 * nodes never sit beside another fs's superblock; summaries are the more
 * specific JFFS2 mark. */
static const struct fsapi *const probe_order[] = {
    &fsapi_blockfs,
    &fsapi_ftl,
    &fsapi_logfs,
    &fsapi_jffs2_summary,
    &fsapi_jffs2_scan,
};

const struct fsapi *fsapi_probe_at(size_t i)
{
    return i < sizeof probe_order / sizeof probe_order[0] ? probe_order[i] : NULL;
}

const struct fsapi *fsapi_probe(nand_dev *dev)
{
    for (size_t i = 0; dev && fsapi_probe_at(i); i++) {
        int rc = probe_order[i]->probe(dev);
        if (rc < 0)
            return NULL;
        if (rc > 0)
            return probe_order[i];
    }
    return NULL;
}

/* ---- the CPU model ---------------------------------------------------- */

/* AMD Geode LX at 433 MHz (the XO-1): a table-driven CRC-32 at about 8
 * cycles a byte (18.5 ns), and about 2,000 cycles (4.6 us) to allocate a
 * node and insert it into a tree -- JFFS2's per-node cost at mount.
 * Estimates, not measurements: docs/mount-latency.md says how they bear
 * on the results. */
const struct fsapi_cpu_model fsapi_cpu_geode_lx = {"geode-lx-433", 18.5, 4600.0};

double fsapi_cpu_ns(const struct fsapi_cpu_model *m, const struct fsapi_mount_work *w)
{
    return m->ns_per_byte_crc * (double)w->bytes_checksummed +
           m->ns_per_node * (double)w->nodes_indexed;
}

int fsapi_rename2(const struct fsapi_fs *m, const char *from, const char *to, unsigned flags)
{
    const unsigned all_flags = FS_RENAME_NOREPLACE | FS_RENAME_EXCHANGE | FS_RENAME_WHITEOUT;
    if ((flags & ~all_flags) || ((flags & FS_RENAME_EXCHANGE) && flags != FS_RENAME_EXCHANGE))
        return -EINVAL;
    if (m->api->rename2)
        return m->api->rename2(m->fs, from, to, flags);
    if (flags & ~FS_RENAME_NOREPLACE)
        return -ENOTSUP;
    struct fs_stat st;
    int rc = flags ? m->api->lstat(m->fs, to, &st) : -ENOENT;
    return !rc ? -EEXIST : rc != -ENOENT ? rc : m->api->rename(m->fs, from, to);
}

int fsapi_mknod(const struct fsapi_fs *m, const char *path, uint32_t mode, uint64_t rdev)
{
    return m->api->mknod ? m->api->mknod(m->fs, path, mode, rdev) : -ENOTSUP;
}

int fsapi_getflags(const struct fsapi_fs *m, const char *path, unsigned *flags)
{
    return m->api->getflags ? m->api->getflags(m->fs, path, flags) : -ENOTSUP;
}

int fsapi_setflags(const struct fsapi_fs *m, const char *path, unsigned flags)
{
    return m->api->setflags ? m->api->setflags(m->fs, path, flags) : -ENOTSUP;
}

int fsapi_allocate(const struct fsapi_fs *m, int fd, uint64_t off, uint64_t len, unsigned flags)
{
    return m->api->allocate ? m->api->allocate(m->fs, fd, off, len, flags) : -ENOTSUP;
}

int64_t fsapi_getxattr(const struct fsapi_fs *m, const char *path, const char *name,
                       void *value, uint64_t size)
{
    return m->api->getxattr ? m->api->getxattr(m->fs, path, name, value, size) : -ENOTSUP;
}

int fsapi_setxattr(const struct fsapi_fs *m, const char *path, const char *name,
                   const void *value, uint64_t size, int flags)
{
    return m->api->setxattr ? m->api->setxattr(m->fs, path, name, value, size, flags)
                            : -ENOTSUP;
}

int64_t fsapi_listxattr(const struct fsapi_fs *m, const char *path, char *list, uint64_t size)
{
    return m->api->listxattr ? m->api->listxattr(m->fs, path, list, size) : -ENOTSUP;
}

int fsapi_removexattr(const struct fsapi_fs *m, const char *path, const char *name)
{
    return m->api->removexattr ? m->api->removexattr(m->fs, path, name) : -ENOTSUP;
}

/* ---- the optional hooks ------------------------------------------------ */

int fsapi_declined(const struct fsapi *api, const char *what, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s does not support %s", api->name, what);
    return -ENOTSUP;
}

int fsapi_takes_option(const struct fsapi *api, const char *key, size_t len)
{
    const char *k;
    for (unsigned i = 0; api->option_help && (k = api->option_help(i, NULL)); i++)
        if (strlen(k) == len && !strncmp(k, key, len))
            return 1;
    return 0;
}

int fsapi_check_device(const struct fsapi *api, nand_dev *dev, const char *options, char *err,
                       size_t errlen)
{
    return api->check_device ? api->check_device(dev, options, err, errlen) : 0;
}

int fsapi_check_options(const struct fsapi *api, const char *options, char *err,
                        size_t errlen)
{
    if (api->check_options)
        return api->check_options(options, err, errlen);
    if (!options || !*options)
        return 0;
    snprintf(err, errlen, "%s takes no options ('%s')", api->name, options);
    return -EINVAL;
}

size_t fsapi_stats(const struct fsapi_fs *m, struct fsapi_counter *out, size_t max)
{
    return m->api->stats ? m->api->stats(m->fs, out, max) : 0;
}

uint64_t fsapi_counter_value(const struct fsapi_counter *c, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].name, name))
            return c[i].value;
    return 0;
}

int fsapi_counter(const struct fsapi_fs *m, const char *name, uint64_t *value)
{
    struct fsapi_counter c[FSAPI_COUNTERS_MAX];
    size_t n = fsapi_stats(m, c, FSAPI_COUNTERS_MAX);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].name, name)) {
            *value = c[i].value;
            return 0;
        }
    return -ENOTSUP;
}

int fsapi_latency(const struct fsapi_fs *m, int kind, struct fs_latency *out)
{
    return m->api->latency ? m->api->latency(m->fs, kind, out) : -ENOTSUP;
}

void fsapi_reset_latency(const struct fsapi_fs *m)
{
    if (m->api->reset_latency)
        m->api->reset_latency(m->fs);
}

int fsapi_set_gc_observer(const struct fsapi_fs *m, fs_gc_observer fn, void *ctx)
{
    if (!m->api->set_gc_observer)
        return -ENOTSUP;
    m->api->set_gc_observer(m->fs, fn, ctx);
    return 0;
}

int fsapi_idle(const struct fsapi_fs *m, uint64_t ns)
{
    return m->api->idle ? m->api->idle(m->fs, ns) : -ENOTSUP;
}

int fsapi_scrub(const struct fsapi_fs *m, uint64_t budget)
{
    return m->api->scrub ? m->api->scrub(m->fs, budget) : -ENOTSUP;
}

const char *fsapi_block_role(const struct fsapi_fs *m, uint32_t block)
{
    return m->api->block_role ? m->api->block_role(m->fs, block) : NULL;
}

int fsapi_chmod(const struct fsapi_fs *m, const char *path, uint32_t mode)
{
    return m->api->chmod ? m->api->chmod(m->fs, path, mode) : -ENOTSUP;
}

int fsapi_chown(const struct fsapi_fs *m, const char *path, uint32_t uid, uint32_t gid,
                int follow)
{
    int (*fn)(void *, const char *, uint32_t, uint32_t) =
        follow ? m->api->chown : m->api->lchown;
    return fn ? fn(m->fs, path, uid, gid) : -ENOTSUP;
}

int fsapi_utimens(const struct fsapi_fs *m, const char *path, int64_t atime, int64_t mtime,
                  int follow)
{
    int (*fn)(void *, const char *, int64_t, int64_t) =
        follow ? m->api->utimens : m->api->lutimens;
    return fn ? fn(m->fs, path, atime, mtime) : -ENOTSUP;
}

int fsapi_truncate(const struct fsapi_fs *m, const char *path, uint64_t size)
{
    if (m->api->truncate)
        return m->api->truncate(m->fs, path, size);
    int fd = m->api->open(m->fs, path, O_WRONLY, 0);
    if (fd < 0)
        return fd;
    int rc = m->api->ftruncate(m->fs, fd, size);
    int rc2 = m->api->close(m->fs, fd);
    return rc ? rc : rc2;
}
