/*
 * journal.h -- IMAGE.journal's layout, shared by journal.c (tracking and
 * appending) and sim_journal_replay.c (reading); private to sim/.  Byte by
 * byte in docs/simulator.md, "The image journal".
 */
#ifndef FLASHLAB_SIM_JOURNAL_H
#define FLASHLAB_SIM_JOURNAL_H

#include "nand_internal.h"

#define J_MAGIC "FLASHLAB-JRNL\0\0"
#define J_VERSION 1u
#define J_HDR 48u          /* magic, version, image size, image CRC, CRC */
#define R_MAGIC "FLJREC\0"  /* 8 bytes with the NUL */
#define R_HDR 24u          /* magic, seq, payload length */
#define R_OVER (R_HDR + 8u) /* + the trailing CRC */
#define W_STATE 1u          /* an entry holds the block's counters */
#define W_PAGES 2u          /* ... and/or its page table */
#define J_FOLD_MIN (1u << 20) /* a smaller journal is never folded by a sync */
#define NSTATS (sizeof(struct nand_stats) / sizeof(uint64_t))

/* image + ".journal", malloc'd (NULL: out of memory) */
char *sim_journal_path(const char *image);
/* Track changes from here against the image at path (id), whose journal
 * holds jlen valid bytes in seq records. */
int sim_journal_attach(nand_dev *dev, const char *path, const struct jimage *id,
                   uint64_t jlen, uint64_t seq);

#endif
