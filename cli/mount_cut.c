/* mount_cut.c -- the mount's seeded random power cut:
 * `-o powercut=random,seed=N,mean_ops=M`.
 *
 * The cut comes after a number of flash programs and erases drawn from an
 * exponential distribution of mean M, keyed by the seed and by the
 * image's age in flash operations when it is mounted (nand.state_ops,
 * kept in the image and its journal).  That age stands for the mount
 * count: every mount after one that wrote anything (a cut one always did)
 * draws a fresh point, and the same image with the same seed always draws
 * the same one, so a run is reproduced from a copy of the image alone. */
#include "mount_priv.h"

#include "rng.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the draw's key adds to the seed ("mount"), apart from the other
 * users of RNG_POWERCUT. */
#define CUT_TAG UINT64_C(0x6d6f756e74)

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    char buf[32], *end;
    if (!n || n >= sizeof buf || *s == '-' || *s == '+')
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int mnt_cut_option(struct mnt_cut *c, const char *item, size_t n, char *err, size_t errlen)
{
    static const char *const keys[] = {"powercut", "seed", "mean_ops"};
    const char *eq = memchr(item, '=', n);
    size_t kl = eq ? (size_t)(eq - item) : n, k;
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strlen(keys[k]) == kl && !strncmp(item, keys[k], kl))
            break;
    if (k == sizeof keys / sizeof keys[0])
        return 0;
    const char *v = eq ? eq + 1 : "";
    size_t vl = eq ? n - kl - 1 : 0;
    if (k == 0) {
        if (vl != 6 || strncmp(v, "random", 6)) {
            snprintf(err, errlen, "powercut=%.*s: the only kind is 'random'", (int)vl, v);
            return -1;
        }
        c->random = 1;
        return 1;
    }
    uint64_t x;
    if (parse_u64(v, vl, &x) || (k == 2 && !x)) {
        snprintf(err, errlen, "%.*s: '%.*s' is not a %snumber", (int)kl, item, (int)vl, v,
                 k == 2 ? "positive " : "");
        return -1;
    }
    if (k == 1) {
        c->seed = x;
        c->seed_set = 1;
    } else {
        c->mean_ops = x;
    }
    return 1;
}

uint64_t mnt_state_ops(nand_dev *dev)
{
    struct nand_stats st;
    nand_get_stats(dev, &st);
    return st.state_ops;
}

int mnt_cut_check(const struct mnt_cut *c, char *err, size_t errlen)
{
    if (!c->random && (c->seed_set || c->mean_ops)) {
        snprintf(err, errlen, "seed= and mean_ops= need powercut=random");
        return -1;
    }
    return 0;
}

void mnt_cut_arm(struct mnt_cut *c, nand_dev *dev)
{
    if (!c->random)
        return;
    if (!c->mean_ops)
        c->mean_ops = MNT_CUT_MEAN_OPS;
    c->age = mnt_state_ops(dev);
    double u = rng_unit(rng_key(c->seed, RNG_POWERCUT, CUT_TAG, c->age, 0, 0));
    double after = -(double)c->mean_ops * log1p(-u); /* exponential, mean M */
    c->after_ops = after < 1e18 ? (uint64_t)after : UINT64_C(1000000000000000000);
    nand_cut_after_ops(dev, c->after_ops, -1.0); /* tear point from the device seed */
}
