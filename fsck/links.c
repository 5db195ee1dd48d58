/* links.c -- the namespace as a whole: every entry names an inode
 * that exists, with its type; nlink counts the entries (a directory: 2 +
 * its subdirectories, FORMAT.md 9.4, with no '.' or '..' entries, section
 * 13); every directory hangs from the root; an inode with nlink 0 is an
 * orphan the anchor lists (section 6.1). */
#include "fsck_int.h"

#include <inttypes.h>
#include <stdlib.h>

static int is_dir(const struct fk_ient *ie)
{
    return (ie->d.mode & FK_IFMT) == FK_IFDIR;
}

static int listed_orphan(const struct fk *k, uint64_t ino)
{
    for (uint32_t i = 0; i < k->an.norphans; i++)
        if (k->an.orphans[i] == ino)
            return 1;
    return 0;
}

static void count_entries(struct fk *k)
{
    for (size_t i = 0; i < k->ndents; i++) {
        struct fk_dent *d = &k->dents[i];
        struct fk_ient *t = fk_find_ino(k, d->ino), *dir = fk_find_ino(k, d->dir);
        char shown[96];
        fk_name_str((const uint8_t *)k->names + d->name, d->name_len, shown,
                    sizeof shown);
        if (!t) {
            size_t m = fk_err_at(k, FSCK_K_DANGLING, d->bucket_ptr >> 16,
                                 (int64_t)d->dir, "directory %" PRIu64 ": entry "
                                 "%s names inode %" PRIu64 ", which does not exist",
                                 d->dir, shown, d->ino);
            d->fix |= FK_DFIX_REMOVE;
            fk_plan(k, m);
            continue;
        }
        if (t->broken)
            continue; /* its record is unknown: nothing to compare */
        uint8_t want = (uint8_t)((t->d.mode & FK_IFMT) >> 12);
        if (d->type != want) {
            size_t m = fk_err_at(k, FSCK_K_DIR, d->bucket_ptr >> 16,
                                 (int64_t)d->dir, "directory %" PRIu64 ": entry "
                                 "%s has type %u, inode %" PRIu64 " is of type %u",
                                 d->dir, shown, d->type, d->ino, want);
            d->fix |= FK_DFIX_TYPE;
            d->new_type = want;
            fk_plan(k, m);
        }
        t->refs++;
        if (is_dir(t) && dir)
            dir->subdirs++;
    }
}

static void nlinks(struct fk *k)
{
    for (size_t i = 0; i < k->nino; i++) {
        struct fk_ient *ie = &k->ino[i];
        if (ie->broken)
            continue;
        uint64_t n = ie->d.ino;
        if (fk_is_xattr_inode(ie)) { /* section 13a: in no directory */
            if (ie->refs)
                fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE, (int64_t)n,
                       "attribute inode %" PRIu64 " is named by %u directory "
                       "entr%s (it must be in no directory)", n, ie->refs,
                       ie->refs == 1 ? "y" : "ies");
            continue; /* the rest: xattr.c */
        }
        int dir = is_dir(ie);
        uint32_t want = dir ? 2 + ie->subdirs : ie->refs;
        if (dir && n == FK_INO_ROOT && ie->refs)
            fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE, (int64_t)n,
                   "the root directory is named by %u directory entries", ie->refs);
        else if (dir && ie->refs > 1)
            fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE, (int64_t)n,
                   "directory %" PRIu64 " is named by %u entries (one expected)",
                   n, ie->refs);
        if (ie->d.nlink == 0 && ie->refs == 0 && n != FK_INO_ROOT) {
            if (listed_orphan(k, n) || (k->an.flags & FK_ANCHOR_ORPHAN_SCAN)) {
                fk_msg(k, FSCK_INFO, FSCK_K_ORPHAN, FSCK_NONE, FSCK_NONE,
                       (int64_t)n, "inode %" PRIu64 ": orphan (unlinked while "
                       "open); the next mount deletes it", n);
                continue;
            }
            size_t m = fk_msg(k, FSCK_ERROR, FSCK_K_ORPHAN, FSCK_NONE, FSCK_NONE,
                              (int64_t)n, "inode %" PRIu64 ": nlink 0, but not in "
                              "the anchor's orphan list", n);
            if (!(dir && ie->nentries)) { /* deleting it loses no names */
                ie->fix |= FK_FIX_DELETE;
                fk_plan(k, m);
            }
            continue;
        }
        if (ie->refs == 0 && n != FK_INO_ROOT) {
            fk_msg(k, FSCK_ERROR, FSCK_K_ORPHAN, FSCK_NONE, FSCK_NONE, (int64_t)n,
                   "inode %" PRIu64 ": nlink %u but no directory entry names it "
                   "(lost; not repaired)", n, ie->d.nlink);
            continue;
        }
        if (ie->d.nlink == want)
            continue;
        size_t m;
        if (dir)
            m = fk_msg(k, FSCK_ERROR, FSCK_K_NLINK, FSCK_NONE, FSCK_NONE,
                       (int64_t)n, "inode %" PRIu64 ": nlink %u but %u "
                       "subdirector%s (directory: 2 + subdirectories)", n,
                       ie->d.nlink, ie->subdirs, ie->subdirs == 1 ? "y" : "ies");
        else
            m = fk_msg(k, FSCK_ERROR, FSCK_K_NLINK, FSCK_NONE, FSCK_NONE,
                       (int64_t)n, "inode %" PRIu64 ": nlink %u but %u directory "
                       "entr%s", n, ie->d.nlink, ie->refs,
                       ie->refs == 1 ? "y" : "ies");
        ie->fix |= FK_FIX_NLINK;
        ie->new_nlink = want;
        fk_plan(k, m);
    }
}

/* The entries of directory dir: contiguous, directories were walked in
 * inode order. */
static size_t dents_of(const struct fk *k, uint64_t dir, size_t *end)
{
    size_t lo = 0, hi = k->ndents;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->dents[mid].dir < dir)
            lo = mid + 1;
        else
            hi = mid;
    }
    *end = lo;
    while (*end < k->ndents && k->dents[*end].dir == dir)
        (*end)++;
    return lo;
}

static int reach(struct fk *k)
{
    struct fk_ient *root = fk_find_ino(k, FK_INO_ROOT);
    if (!root || !is_dir(root))
        return 0;
    uint64_t *q = malloc((k->nino + 1) * sizeof *q);
    if (!q) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    size_t head = 0, tail = 0;
    root->reached = 1;
    q[tail++] = FK_INO_ROOT;
    while (head < tail) {
        size_t end, i = dents_of(k, q[head++], &end);
        for (; i < end; i++) {
            struct fk_ient *t = fk_find_ino(k, k->dents[i].ino);
            if (t && !t->broken && is_dir(t) && !t->reached) {
                t->reached = 1;
                q[tail++] = t->d.ino;
            }
        }
    }
    free(q);
    for (size_t i = 0; i < k->nino; i++) {
        struct fk_ient *ie = &k->ino[i];
        if (!ie->broken && is_dir(ie) && ie->refs && !ie->reached)
            fk_msg(k, FSCK_ERROR, FSCK_K_DIR, FSCK_NONE, FSCK_NONE,
                   (int64_t)ie->d.ino, "directory %" PRIu64 " is not reachable "
                   "from the root (a cycle of directories)", ie->d.ino);
    }
    return 0;
}

static void orphan_list(struct fk *k)
{
    for (uint32_t i = 0; i < k->an.norphans; i++) {
        uint64_t o = k->an.orphans[i];
        for (uint32_t j = 0; j < i; j++)
            if (k->an.orphans[j] == o)
                fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, FSCK_NONE, FSCK_NONE,
                       (int64_t)o, "anchor: inode %" PRIu64 " is listed twice "
                       "as an orphan", o);
        const struct fk_ient *ie = fk_find_ino(k, o);
        if (!ie)
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, FSCK_NONE, FSCK_NONE,
                   (int64_t)o, "anchor: orphan inode %" PRIu64 " does not exist", o);
        else if (!ie->broken && ie->d.nlink)
            fk_msg(k, FSCK_WARNING, FSCK_K_ANCHOR, FSCK_NONE, FSCK_NONE,
                   (int64_t)o, "anchor: orphan inode %" PRIu64 " has nlink %u", o,
                   ie->d.nlink);
    }
}

int fk_check_links(struct fk *k)
{
    count_entries(k);
    nlinks(k);
    orphan_list(k);
    return reach(k);
}
