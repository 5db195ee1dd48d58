/*
 * sections.c -- the sections of an experiment file, each read from the
 * run's view of the YAML tree into the run's settings: device, fs,
 * workload, stop, sample.  Key tables and messages follow
 * docs/experiments.md.
 */
#include "exp_internal.h"
#include "epoch.h"
#include "rng.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- device ------------------------------------------------------------ */

int exp_device(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen)
{
    static const char *const keys[] = {"file", "blocks_per_plane", "dies_per_channel",
                                       "seed", "dedup", "compress", "endurance",
                                       "endurance_scale",
                                       "initial_pe", "factory_bad_fraction", NULL};
    yaml_node_t *dn = ydoc_view_get(v, root, "", "device"), *fn = dn;
    if (!dn)
        return ydoc_fail(v->d, root, err, errlen, "device: missing (a file in configs/devices/)");
    int map = dn->type == YAML_MAPPING_NODE;
    if (map) {
        if (ydoc_view_check_keys(v, dn, "device", keys, err, errlen))
            return -1;
        fn = ydoc_view_get(v, dn, "device", "file");
        if (!fn)
            return ydoc_fail(v->d, dn, err, errlen, "device.file: missing");
    }
    char name[1024], lerr[512];
    if (ydoc_string(v->d, fn, map ? "device.file" : "device", name, sizeof name, err, errlen))
        return -1;
    exp_resolve_path(v->d->path, name, r->device_file, sizeof r->device_file);
    if (access(r->device_file, R_OK)) {
        char m[3 * sizeof r->device_file];
        return ydoc_fail(v->d, fn, err, errlen, "device: %s",
                         exp_path_missing(v->d->path, name, r->device_file, m, sizeof m));
    }
    if (nand_config_load(r->device_file, &r->dev, lerr, sizeof lerr))
        return ydoc_fail(v->d, fn, err, errlen, "device: %s", lerr);
    if (!map)
        return 0;
    struct nand_config *c = &r->dev;
    uint64_t u;
    double x;
    int b;
    yaml_node_t *n;
#define DEV_U64(key, field, max)                                                       \
    if ((n = ydoc_view_get(v, dn, "device", key))) {                                       \
        if (ydoc_u64(v->d, n, "device." key, &u, err, errlen))                         \
            return -1;                                                                 \
        if (u > (max))                                                                 \
            return ydoc_fail(v->d, n, err, errlen, "device." key ": at most %llu",     \
                             (unsigned long long)(max));                               \
        field = u;                                                                     \
    }
    DEV_U64("blocks_per_plane", c->geo.blocks_per_plane, UINT32_MAX)
    DEV_U64("dies_per_channel", c->geo.dies_per_channel, 64)
    DEV_U64("seed", c->seed, UINT64_MAX)
    DEV_U64("endurance", c->endurance, UINT64_MAX)
    DEV_U64("initial_pe", c->initial_pe, UINT64_MAX)
#undef DEV_U64
    if ((n = ydoc_view_get(v, dn, "device", "dedup"))) {
        if (ydoc_bool(v->d, n, "device.dedup", &b, err, errlen))
            return -1;
        c->dedup = b;
    }
    if ((n = ydoc_view_get(v, dn, "device", "compress"))) {
        if (ydoc_bool(v->d, n, "device.compress", &b, err, errlen))
            return -1;
        c->compress = b;
    }
    if ((n = ydoc_view_get(v, dn, "device", "endurance_scale"))) {
        if (ydoc_double(v->d, n, "device.endurance_scale", 0, 1e6, &x, err, errlen))
            return -1;
        c->endurance_scale = x;
    }
    if ((n = ydoc_view_get(v, dn, "device", "factory_bad_fraction"))) {
        if (ydoc_double(v->d, n, "device.factory_bad_fraction", 0, 0.5, &x, err, errlen))
            return -1;
        c->factory_bad_fraction = x;
    }
    if (nand_config_finish(c, lerr, sizeof lerr))
        return ydoc_fail(v->d, dn, err, errlen, "device: %s", lerr);
    return 0;
}

/* ---- fs: which file system, and its options ------------------------------ */

/* "logfs, jffs2-scan, ..." for messages. */
static void fs_names(char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; fsapi_at(i) && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "", fsapi_at(i)->name);
}

/* Append "key=value" to the run's options string. */
static int fs_option_add(struct exp_run *r, const char *key, const char *value)
{
    size_t n = strlen(r->fs_options);
    int k = snprintf(r->fs_options + n, sizeof r->fs_options - n, "%s%s%s%s", n ? "," : "",
                     key ? key : "", key ? "=" : "", value);
    return k < 0 || (size_t)k >= sizeof r->fs_options - n ? -1 : 0;
}

/* fs.options: the fs's own "key=value,..." string, as its mount option
 * parser takes it (applied after the named keys). */
static int fs_options(struct yview *v, yaml_node_t *fs, struct exp_run *r, char *err,
                      size_t errlen)
{
    yaml_node_t *on = ydoc_view_get(v, fs, "fs", "options");
    const char *s = on ? ydoc_scalar(on) : "";
    char oerr[512] = "";
    if (!s || fs_option_add(r, NULL, s))
        return ydoc_fail(v->d, on, err, errlen, "fs.options: expected a string "
                         "\"key=value,...\" shorter than %zu", sizeof r->fs_options);
    if (*s && fsapi_check_options(r->fs_api, s, oerr, sizeof oerr))
        return ydoc_fail(v->d, on, err, errlen, "fs.options: \"%s\" is not valid for %s: %s",
                         s, r->fs_api->name, oerr);
    return 0;
}

/* The i-th option key of the run's kind, NULL past the end. */
static const char *option_key(const struct exp_run *r, unsigned i)
{
    return r->fs_api->option_help ? r->fs_api->option_help(i, NULL) : NULL;
}

/* A key of the kind's whose value the run sets when fs: does not:
 * timestamps from EXP_DEFAULT_EPOCH_NS, random victim choices from the
 * run's seed. */
static int fs_defaults(yaml_node_t *const *given, struct exp_run *r)
{
    char num[32];
    r->fs_epoch_ns = -1;
    for (unsigned i = 0; option_key(r, i); i++) {
        const char *k = option_key(r, i);
        if (!strcmp(k, "epoch")) {
            r->fs_epoch_ns = EXP_DEFAULT_EPOCH_NS;
            if (!given[i] && (snprintf(num, sizeof num, "%lld",
                                       (long long)(EXP_DEFAULT_EPOCH_NS / 1000000000)),
                              fs_option_add(r, k, num)))
                return -1;
        } else if (!strcmp(k, "gc_seed") && !given[i]) {
            snprintf(num, sizeof num, "%llu",
                     (unsigned long long)rng_key(r->seed, RNG_GC_POLICY, 0, 0, 0, 0));
            if (fs_option_add(r, k, num))
                return -1;
        }
    }
    return 0;
}

int exp_fs(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen)
{
    yaml_node_t *fs = ydoc_view_get(v, root, "", "fs");
    yaml_node_t *kn = ydoc_view_get(v, fs, "fs", "kind");
    const char *kind = kn ? ydoc_scalar(kn) : "logfs";
    r->fs_options[0] = 0;
    if (!(r->fs_api = fsapi_find(kind))) {
        char names[256];
        fs_names(names, sizeof names);
        return ydoc_fail(v->d, kn, err, errlen, "fs.kind: unknown file system \"%s\" "
                         "(one of: %s)", kind ? kind : "", names);
    }
    /* the kind's options also by name */
    enum { KEYS_MAX = 48 };
    const char *keys[KEYS_MAX + 3] = {"kind", "options"};
    yaml_node_t *given[KEYS_MAX] = {NULL};
    unsigned n = 0;
    for (; n < KEYS_MAX && option_key(r, n); n++)
        keys[n + 2] = option_key(r, n);
    keys[n + 2] = NULL;
    if (ydoc_view_check_keys(v, fs, "fs", keys, err, errlen))
        return -1;
    for (unsigned i = 0; i < n; i++)
        given[i] = ydoc_view_get(v, fs, "fs", keys[i + 2]);
    if (fs_defaults(given, r))
        return ydoc_fail(v->d, fs, err, errlen, "fs: options too long");
    for (unsigned i = 0; i < n; i++) {
        const char *s = ydoc_scalar(given[i]);
        char item[300], oerr[512];
        if (!given[i])
            continue;
        if (!s || !*s)
            return ydoc_fail(v->d, given[i], err, errlen, "fs.%s: expected a value", keys[i + 2]);
        snprintf(item, sizeof item, "%s=%s", keys[i + 2], s);
        if (strchr(s, ',') || fsapi_check_options(r->fs_api, item, oerr, sizeof oerr))
            return ydoc_fail(v->d, given[i], err, errlen, "fs.%s", *oerr ? oerr : item);
        if (!strcmp(keys[i + 2], "epoch"))
            sim_epoch_parse(s, &r->fs_epoch_ns);
        if (fs_option_add(r, keys[i + 2], s))
            return ydoc_fail(v->d, given[i], err, errlen, "fs: options too long");
    }
    return fs_options(v, fs, r, err, errlen);
}

/* ---- stop and sample ------------------------------------------------------ */

int exp_stop(struct yview *v, yaml_node_t *sec, const char *prefix, struct exp_stop *s,
             char *err, size_t errlen)
{
    static const char *const keys[] = {"host_bytes", "ops", "device_fills", "sim_time",
                                       "wear_out", NULL};
    char path[YDOC_PATH_MAX], key[YDOC_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s%sstop", prefix, *prefix ? "." : "");
    yaml_node_t *st = ydoc_view_get(v, sec, prefix, "stop");
    memset(s, 0, sizeof *s);
    if (!st)
        return ydoc_fail(v->d, sec, err, errlen, "%s: missing (host_bytes, ops, "
                         "device_fills, sim_time or wear_out)", path);
    if (ydoc_view_check_keys(v, st, path, keys, err, errlen))
        return -1;
    yaml_node_t *n;
    int any = 0;
#define KEY(k) (snprintf(key, sizeof key, "%s." k, path), key)
    if ((n = ydoc_view_get(v, st, path, "host_bytes")) && ++any &&
        ydoc_size(v->d, n, KEY("host_bytes"), &s->host_bytes, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, st, path, "ops")) && ++any &&
        ydoc_u64(v->d, n, KEY("ops"), &s->ops, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, st, path, "device_fills")) && ++any &&
        ydoc_double(v->d, n, KEY("device_fills"), 0, 1e9, &s->device_fills, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, st, path, "sim_time")) && ++any &&
        ydoc_duration(v->d, n, KEY("sim_time"), &s->sim_ns, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, st, path, "wear_out")) && ++any &&
        ydoc_bool(v->d, n, KEY("wear_out"), &s->wear_out, err, errlen))
        return -1;
#undef KEY
    if (!s->host_bytes && !s->ops && !s->device_fills && !s->sim_ns && !s->wear_out)
        return ydoc_fail(v->d, st, err, errlen, "%s: give at least one nonzero condition", path);
    (void)any;
    return 0;
}

int exp_sample(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err,
               size_t errlen)
{
    static const char *const keys[] = {"every_host_bytes", "every_ops", "every_sim_time",
                                       "erase_snapshots", NULL};
    yaml_node_t *sm = ydoc_view_get(v, root, "", "sample"), *n;
    if (ydoc_view_check_keys(v, sm, "sample", keys, err, errlen))
        return -1;
    uint64_t u = 1;
    r->erase_snapshots = 1;
    if ((n = ydoc_view_get(v, sm, "sample", "every_host_bytes")) &&
        ydoc_size(v->d, n, "sample.every_host_bytes", &r->sample_host_bytes, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sm, "sample", "every_ops")) &&
        ydoc_u64(v->d, n, "sample.every_ops", &r->sample_ops, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sm, "sample", "every_sim_time")) &&
        ydoc_duration(v->d, n, "sample.every_sim_time", &r->sample_sim_ns, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sm, "sample", "erase_snapshots"))) {
        if (ydoc_u64(v->d, n, "sample.erase_snapshots", &u, err, errlen))
            return -1;
        if (u < 1 || u > 10000)
            return ydoc_fail(v->d, n, err, errlen, "sample.erase_snapshots: 1..10000");
        r->erase_snapshots = (uint32_t)u;
    }
    /* by default 64 samples over the device's capacity */
    if (!r->sample_host_bytes && !r->sample_ops && !r->sample_sim_ns)
        r->sample_host_bytes = nand_capacity_bytes(&r->dev) / 64;
    return 0;
}

/* ---- powercut ------------------------------------------------------------ */

int exp_powercut(struct yview *v, yaml_node_t *root, struct exp_powercut *pc, char *err,
                 size_t errlen)
{
    static const char *const keys[] = {"every", "sample", "within", "second_cuts", "fsck",
                                       NULL};
    yaml_node_t *sec = ydoc_view_get(v, root, "", "powercut"), *n;
    memset(pc, 0, sizeof *pc);
    if (!sec)
        return 0;
    if (ydoc_view_check_keys(v, sec, "powercut", keys, err, errlen))
        return -1;
    pc->present = 1;
    pc->every = 1;
    pc->within = 1;
    pc->fsck = 1;
    if ((n = ydoc_view_get(v, sec, "powercut", "every"))) {
        if (ydoc_u64(v->d, n, "powercut.every", &pc->every, err, errlen))
            return -1;
        if (!pc->every)
            return ydoc_fail(v->d, n, err, errlen, "powercut.every: at least 1");
    }
    if ((n = ydoc_view_get(v, sec, "powercut", "sample")) &&
        ydoc_u64(v->d, n, "powercut.sample", &pc->sample, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "powercut", "within")) &&
        ydoc_bool(v->d, n, "powercut.within", &pc->within, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "powercut", "second_cuts")) &&
        ydoc_u64(v->d, n, "powercut.second_cuts", &pc->second, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "powercut", "fsck")) &&
        ydoc_bool(v->d, n, "powercut.fsck", &pc->fsck, err, errlen))
        return -1;
    return 0;
}

/* ---- mount: what the measured mounts at the end include ------------------ */

int exp_mount(struct yview *v, yaml_node_t *root, struct exp_run *r, char *err, size_t errlen)
{
    static const char *const keys[] = {"unclean", NULL};
    yaml_node_t *sec = ydoc_view_get(v, root, "", "mount"), *n;
    r->unclean_mount = 0;
    if (!sec)
        return 0;
    if (ydoc_view_check_keys(v, sec, "mount", keys, err, errlen))
        return -1;
    if ((n = ydoc_view_get(v, sec, "mount", "unclean")) &&
        ydoc_bool(v->d, n, "mount.unclean", &r->unclean_mount, err, errlen))
        return -1;
    return 0;
}
