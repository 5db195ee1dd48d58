/* mount_files.c -- open directories and files by libfuse node, so that
 * one without a name keeps answering fstat.
 *
 * The mount runs with libfuse's hard_remove: unlink removes the name at
 * once (st_nlink drops, the directory no longer lists it) and the fs keeps
 * the inode as an orphan until its last close; a rename over an open
 * directory leaves it nameless too.  libfuse's high-level API then has no
 * path for the node, and the kernel's GETATTR (an fstat, which never
 * carries a handle) would fail with ESTALE before any op of ours ran.  So
 * the mount notes which fs fd each node has open -- an OPEN's or
 * OPENDIR's node is in its request, a CREATE's in its reply -- and
 * mount_ops.c's io_read marks a GETATTR of such a node as one on a handle
 * (fh MNT_FILE_BY_NODE), answered with fstat on that fd.  The fds are the
 * fs's, unique among files and directories. */
#include "mount_priv.h"

#include <linux/fuse.h>
#include <stdlib.h>
#include <string.h>

struct fnode {
    uint64_t node;
    int fd;
    struct fnode *by_node, *by_fd; /* the next in its bucket of each table */
};

/* Two hash tables of the same entries, by node (every GETATTR asks) and
 * by fd (every release): tens of thousands of files may be open at once
 * (xfstests' generic/531 keeps 65,536 O_TMPFILEs open). */
#define FILES_BUCKETS 4096u
static struct fnode *files_by_node[FILES_BUCKETS], *files_by_fd[FILES_BUCKETS];
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
/* The CREATE this thread serves (libfuse's threads read a request, serve
 * it and send its reply): its unique, 0 for any other request. */
static _Thread_local uint64_t create_unique;

static struct fnode **node_slot(uint64_t node)
{
    return &files_by_node[(node ^ node >> 12 ^ node >> 24) % FILES_BUCKETS];
}

static struct fnode **fd_slot(int fd)
{
    return &files_by_fd[(unsigned)fd % FILES_BUCKETS];
}

void mnt_files_add(uint64_t node, int fd)
{
    struct fnode *f = malloc(sizeof *f);
    if (!f)
        return; /* fstat of it once unlinked: ESTALE, nothing worse */
    f->node = node;
    f->fd = fd;
    pthread_mutex_lock(&files_lock);
    f->by_node = *node_slot(node);
    *node_slot(node) = f;
    f->by_fd = *fd_slot(fd);
    *fd_slot(fd) = f;
    pthread_mutex_unlock(&files_lock);
}

void mnt_files_remove(int fd)
{
    pthread_mutex_lock(&files_lock);
    for (struct fnode **p = fd_slot(fd); *p; p = &(*p)->by_fd)
        if ((*p)->fd == fd) {
            struct fnode *f = *p, **q = node_slot(f->node);
            *p = f->by_fd;
            while (*q != f)
                q = &(*q)->by_node;
            *q = f->by_node;
            free(f);
            break;
        }
    pthread_mutex_unlock(&files_lock);
}

int mnt_file_fd_of(uint64_t node)
{
    int fd = -1;
    pthread_mutex_lock(&files_lock);
    for (struct fnode *f = *node_slot(node); f && fd < 0; f = f->by_node)
        if (f->node == node)
            fd = f->fd;
    pthread_mutex_unlock(&files_lock);
    return fd;
}

void mnt_files_request(uint32_t opcode, uint64_t unique)
{
    create_unique = opcode == FUSE_CREATE ? unique : 0;
}

/* A CREATE's reply: fuse_out_header, fuse_entry_out (the new node),
 * fuse_open_out (our fd), in however many pieces libfuse sends them. */
void mnt_files_reply(const struct iovec *iov, int count)
{
    struct fuse_out_header h;
    struct fuse_entry_out e;
    struct fuse_open_out o;
    unsigned char buf[sizeof h + sizeof e + sizeof o];
    size_t n = 0;
    if (!create_unique)
        return;
    for (int i = 0; i < count && n < sizeof buf; i++) {
        size_t k = iov[i].iov_len < sizeof buf - n ? iov[i].iov_len : sizeof buf - n;
        memcpy(buf + n, iov[i].iov_base, k);
        n += k;
    }
    if (n < sizeof h)
        return;
    memcpy(&h, buf, sizeof h);
    if (h.unique != create_unique)
        return;
    create_unique = 0;
    if (h.error || n < sizeof buf)
        return;
    memcpy(&e, buf + sizeof h, sizeof e);
    memcpy(&o, buf + sizeof h + sizeof e, sizeof o);
    mnt_files_add(e.nodeid, (int)o.fh);
}
