/* run.c -- one checking pass, in the order the structures depend on
 * each other (superblock, anchor, segment file, inode file, files,
 * namespace, space), and fsck_run: check, repair, check again. */
#include "fsck_int.h"

#include <stdlib.h>

static int geometry(struct fk *k)
{
    const struct nand_config *c = nand_get_config(k->dev);
    k->ps = c->geo.page_size;
    k->ppb = c->geo.pages_per_block;
    k->nblocks = nand_blocks(c);
    k->initial_pe = c->initial_pe;
    if (flashlab_crc32(0, "123456789", 9) != 0xcbf43926u) { /* FORMAT.md 1 */
        fk_oper(k, "the CRC function is not CRC-32/IEEE", 0);
        return -1;
    }
    if (k->ps < FK_SB_SIZE || !k->ppb || k->nblocks < 2 ||
        (uint64_t)k->ps * k->ppb > UINT32_MAX) {
        fk_oper(k, "the device's geometry cannot hold a LogFS", 0);
        return -1;
    }
    k->seg_bytes = k->ps * k->ppb;
    if (!(k->page = malloc(k->ps))) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    return 0;
}

/* The device's bad-block markers (one timed read a block, as mkfs does). */
static int markers(struct fk *k)
{
    if (!(k->dev_bad = calloc(k->nblocks, 1))) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    for (uint64_t b = 0; b < k->nblocks; b++) {
        int rc = nand_is_bad(k->dev, (nand_block_t)b);
        if (rc < 0) {
            fk_oper(k, "reading bad-block markers", rc);
            return -1;
        }
        k->dev_bad[b] = rc > 0;
    }
    return 0;
}

int fk_check(struct fk *k)
{
    if (geometry(k) || fk_check_super(k))
        return -1;
    if (!(k->obj = malloc(FK_HDR + k->bs)) || !(k->unz = malloc(k->bs))) {
        fk_oper(k, "out of memory", 0);
        return -1;
    }
    if (markers(k) || fk_check_anchor(k) || fk_load_segfile(k) ||
        fk_load_inodes(k) || fk_check_files(k) || fk_check_links(k) ||
        fk_check_space(k))
        return -1;
    return 0;
}

void fk_free(struct fk *k)
{
    free(k->obj);
    free(k->unz);
    free(k->page);
    free(k->seg);
    free(k->dev_bad);
    free(k->refs);
    free(k->ino);
    free(k->dents);
    free(k->names);
    free(k->planned);
    memset(k, 0, sizeof *k);
}

/* The first error of r with m's kind and text that no error of the
 * second pass took yet (taken[]: one flag a message of r). */
static struct fsck_msg *same_error(struct fsck_report *r, const struct fsck_msg *m,
                                   uint8_t *taken)
{
    for (size_t i = 0; i < r->nmsgs; i++)
        if (!taken[i] && r->msgs[i].severity == FSCK_ERROR &&
            r->msgs[i].kind == m->kind && !strcmp(r->msgs[i].text, m->text)) {
            taken[i] = 1;
            return &r->msgs[i];
        }
    return NULL;
}

/* After a repair commit: check again.  The planned fixes count as repaired
 * unless the same error is still there; errors only the second pass
 * sees are added ("after repair: ...").  The text matching only says
 * which lines were repaired: the verdict is the second pass's own, so
 * that an error it sees is never left out (FSCK_FIXED only when it
 * finished and found no error). */
static int verify(struct fk *k, struct fsck_report *out)
{
    struct fsck_report v;
    struct fk k2;
    memset(&v, 0, sizeof v);
    memset(&k2, 0, sizeof k2);
    k2.dev = k->dev;
    k2.rep = &v;
    int finished = fk_check(&k2) == 0;
    uint8_t *taken = calloc(out->nmsgs + 1, 1);
    if (!taken)
        fk_oper(k, "out of memory", 0);
    for (size_t i = 0; i < k->nplanned; i++)
        if (out->msgs[k->planned[i]].severity == FSCK_ERROR)
            out->msgs[k->planned[i]].repaired = 1;
    for (size_t i = 0; taken && i < v.nmsgs; i++) {
        const struct fsck_msg *m = &v.msgs[i];
        if (m->severity != FSCK_ERROR)
            continue;
        struct fsck_msg *o = same_error(out, m, taken);
        if (o)
            o->repaired = 0;
        else
            fk_msg(k, FSCK_ERROR, m->kind, m->block, m->page, m->ino,
                   "after repair: %s", m->text);
    }
    free(taken);
    out->nrepaired = 0;
    for (size_t i = 0; i < out->nmsgs; i++)
        out->nrepaired += out->msgs[i].repaired;
    out->seq = v.seq;
    out->inodes = v.inodes;
    out->files = v.files;
    out->dirs = v.dirs;
    out->symlinks = v.symlinks;
    out->objects = v.objects;
    out->live_bytes = v.live_bytes;
    int st = k2.oper || k->oper ? FSCK_OPERATIONAL
           : !finished || v.nerrors || out->nerrors > out->nrepaired ? FSCK_ERRORS
                                                                  : FSCK_FIXED;
    fk_free(&k2);
    fsck_report_free(&v);
    return st;
}

int fsck_run(nand_dev *dev, int repair, struct fsck_report *out)
{
    struct fk k;
    memset(out, 0, sizeof *out);
    memset(&k, 0, sizeof k);
    k.dev = dev;
    k.rep = out;
    k.repair = repair;
    fk_check(&k);
    int st;
    if (k.oper)
        st = FSCK_OPERATIONAL;
    else if (!out->nerrors)
        st = FSCK_CLEAN;
    else if (!repair)
        st = FSCK_ERRORS;
    else {
        int r = fk_repair(&k);
        st = r < 0 ? FSCK_OPERATIONAL : r == 0 ? FSCK_ERRORS : verify(&k, out);
    }
    fk_name_paths(&k); /* last: verify matches messages by their text */
    fk_free(&k);
    out->status = st;
    return st;
}
