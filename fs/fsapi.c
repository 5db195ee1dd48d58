/*
 * fsapi.c -- the table of file systems (fsapi.h) and the mount CPU cost
 * model.  Each file system defines its own entry (fs/<fs>/fsapi.c).
 */
#include "fsapi.h"

#include <errno.h>
#include <string.h>

static const struct fsapi *const all[] = {
    &fsapi_logfs,
    &fsapi_blockfs,
    &fsapi_jffs2_scan,
    &fsapi_jffs2_summary,
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
 * block, while a LogFS made over a blockfs replaces block 0.  Both mkfs
 * of JFFS2 erase every block, so their nodes never sit beside another
 * fs's superblock; summaries are the more specific JFFS2 mark. */
static const struct fsapi *const probe_order[] = {
    &fsapi_blockfs,
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

int fsapi_mknod(const struct fsapi_fs *m, const char *path, uint32_t mode, uint64_t rdev)
{
    return m->api->mknod ? m->api->mknod(m->fs, path, mode, rdev) : -ENOTSUP;
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
