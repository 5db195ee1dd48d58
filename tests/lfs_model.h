/*
 * lfs_model.h -- an in-memory reference model of a POSIX namespace with
 * hard links and symbolic links, for checking LogFS step by step.
 * Inodes hold content; directories map names to inode numbers.
 */
#ifndef FLASHLAB_LFS_MODEL_H
#define FLASHLAB_LFS_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M_MAXINO 4096
#define M_MAXENT 64

enum m_type { M_NONE, M_FILE, M_DIR, M_LINK };

struct m_ent { char name[16]; int ino; };
struct m_inode {
    enum m_type type;
    int nlink;
    uint8_t *data;
    uint64_t size, cap;
    struct m_ent ent[M_MAXENT];
    int nent;
};
struct model { struct m_inode in[M_MAXINO]; int next; };

static inline void m_init(struct model *m)
{
    memset(m, 0, sizeof *m);
    m->in[1].type = M_DIR; /* the root is model inode 1 */
    m->in[1].nlink = 2;
    m->next = 2;
}

static inline void m_free(struct model *m)
{
    for (int i = 0; i < M_MAXINO; i++)
        free(m->in[i].data);
}

static inline int m_find(const struct model *m, int dir, const char *name)
{
    for (int i = 0; i < m->in[dir].nent; i++)
        if (!strcmp(m->in[dir].ent[i].name, name))
            return m->in[dir].ent[i].ino;
    return 0;
}

static inline void m_add(struct model *m, int dir, const char *name, int ino)
{
    struct m_inode *d = &m->in[dir];
    snprintf(d->ent[d->nent].name, sizeof d->ent[0].name, "%s", name);
    d->ent[d->nent++].ino = ino;
}

static inline void m_del(struct model *m, int dir, const char *name)
{
    struct m_inode *d = &m->in[dir];
    for (int i = 0; i < d->nent; i++)
        if (!strcmp(d->ent[i].name, name)) {
            d->ent[i] = d->ent[--d->nent];
            return;
        }
}

static inline int m_new(struct model *m, enum m_type t)
{
    int ino = m->next++;
    m->in[ino].type = t;
    m->in[ino].nlink = t == M_DIR ? 2 : 1;
    return ino;
}

static inline void m_resize(struct m_inode *in, uint64_t size)
{
    if (size > in->cap) {
        uint64_t cap = size * 2 + 64;
        in->data = realloc(in->data, cap);
        memset(in->data + in->cap, 0, cap - in->cap);
        in->cap = cap;
    }
    if (size < in->size)
        memset(in->data + size, 0, in->size - size);
    in->size = size;
}

static inline void m_write(struct m_inode *in, const void *buf, uint64_t len, uint64_t off)
{
    if (off + len > in->size)
        m_resize(in, off + len);
    memcpy(in->data + off, buf, len);
}

static inline void m_unref(struct model *m, int ino)
{
    struct m_inode *in = &m->in[ino];
    if (--in->nlink <= 0 || in->type == M_DIR) {
        free(in->data);
        memset(in, 0, sizeof *in);
    }
}

#endif
