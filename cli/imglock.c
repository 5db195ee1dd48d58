/*
 * imglock.c -- the image lock for commands: nand_lock_image with the
 * command as holder ("flashlab put"), its refusals printed.
 */
#include "cli.h"
#include "imglock.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

/* "flashlab sim write" */
static void holder_name(char *out, size_t cap, const char *cmd)
{
    snprintf(out, cap, "flashlab %s", cmd);
}

static int lock_image(struct imglock *l, const char *image, const char *cmd,
                      const char *mountpoint)
{
    char who[128], err[4096 + 512];
    holder_name(who, sizeof who, cmd);
    l->l = NULL;
    if (nand_lock_image(image, who, mountpoint, &l->l, err, sizeof err)) {
        fprintf(stderr, "flashlab %s: %s\n", cmd, err);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int imglock_write(struct imglock *l, const char *image, const char *cmd,
                  const char *mountpoint)
{
    l->l = NULL;
    if (access(image, F_OK) && errno == ENOENT)
        return CLI_OK; /* the command's open says so; no stray IMAGE.lock */
    return lock_image(l, image, cmd, mountpoint);
}

int imglock_try(struct imglock *l, const char *image, const char *cmd,
                const char *mountpoint)
{
    char who[128], err[4096 + 512];
    holder_name(who, sizeof who, cmd);
    l->l = NULL;
    if (access(image, F_OK) && errno == ENOENT)
        return CLI_OK; /* the open says so; no stray IMAGE.lock */
    return nand_lock_image(image, who, mountpoint, &l->l, err, sizeof err) ? CLI_FAIL
                                                                           : CLI_OK;
}

int imglock_create(struct imglock *l, const char *image, const char *cmd)
{
    return lock_image(l, image, cmd, NULL);
}

void imglock_describe(struct imglock *l, const char *cmd, const char *mountpoint)
{
    char who[128];
    holder_name(who, sizeof who, cmd);
    nand_lock_describe(l->l, who, mountpoint);
}

void imglock_release(struct imglock *l)
{
    nand_unlock_image(l->l);
    l->l = NULL;
}

void imglock_read(const char *image, const char *cmd)
{
    char who[4096 + 128];
    if (nand_lock_holder(image, who, sizeof who))
        fprintf(stderr,
                "flashlab %s: warning: %s is in use by %s; reading its last saved state\n",
                cmd, image, who);
}
