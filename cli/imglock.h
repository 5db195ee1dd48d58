/* imglock.h -- one image, one writer: the lock every command that opens
 * an image takes through here (docs/mount.md, "The image lock"). */
#ifndef FLASHLAB_IMGLOCK_H
#define FLASHLAB_IMGLOCK_H

/* A held lock: an flock on IMAGE.lock, which names its holder. */
struct imglock {
    int fd; /* -1: not held */
};

/* Lock image for a command that writes it ("put", "mount", "sim write").
 * A mount whose file system was just unmounted is still saving: wait for
 * it.  Any other holder (a mount still mounted, a running command): print
 * "flashlab CMD: IMAGE is in use by flashlab mount on M (pid N)" and
 * return CLI_FAIL.  mountpoint: a mount's (absolute), else NULL.
 * CLI_OK with l held -- or, when image does not exist, held by nobody
 * (the command's open then reports it; no IMAGE.lock is left behind). */
int imglock_write(struct imglock *l, const char *image, const char *cmd,
                  const char *mountpoint);
/* The same for a command that creates image (sim create, sim import). */
int imglock_create(struct imglock *l, const char *image, const char *cmd);
/* Say who holds l now (after a fork: the new pid). */
void imglock_describe(struct imglock *l, const char *cmd, const char *mountpoint);
/* Unlock (after the save); no-op when not held. */
void imglock_release(struct imglock *l);

/* For a command that only reads image: wait as imglock_write does for a
 * mount that is saving; when a writer is still at work, warn that the
 * last saved and synced state is what is read.  Holds nothing. */
void imglock_read(const char *image, const char *cmd);

#endif
