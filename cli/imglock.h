/* imglock.h -- the CLI's face of the image lock (sim/imagelock.c,
 * nand_lock_image; docs/mount.md, "The image lock"): every command that
 * writes an image takes it through here, with "flashlab CMD" as holder
 * and its refusals printed as "flashlab CMD: IMAGE is in use by ...". */
#ifndef FLASHLAB_IMGLOCK_H
#define FLASHLAB_IMGLOCK_H

#include "nand.h"

/* A held lock (NULL: not held). */
struct imglock {
    nand_lock *l;
};

/* Lock image for a command that writes it ("put", "mount", "sim write").
 * mountpoint: a mount's (absolute), else NULL.  CLI_OK with l held -- or,
 * when image does not exist, held by nobody (the command's open then
 * reports it; no IMAGE.lock is left behind) -- or CLI_FAIL, said. */
int imglock_write(struct imglock *l, const char *image, const char *cmd,
                  const char *mountpoint);
/* imglock_write, but quiet: CLI_FAIL without a word when another holds
 * it (a read-only mount then stays read-only for good). */
int imglock_try(struct imglock *l, const char *image, const char *cmd,
                const char *mountpoint);
/* The same for a command that creates image (sim create, sim import). */
int imglock_create(struct imglock *l, const char *image, const char *cmd);
/* Say who holds l now (after a fork: the new pid). */
void imglock_describe(struct imglock *l, const char *cmd, const char *mountpoint);
/* Unlock (after the save); no-op when not held. */
void imglock_release(struct imglock *l);

/* For a command that only reads image: wait for a mount that is saving;
 * when a writer is still at work, warn that the last saved and synced
 * state is what is read.  Holds nothing. */
void imglock_read(const char *image, const char *cmd);

#endif
