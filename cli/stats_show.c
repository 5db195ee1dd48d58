/* stats_show.c -- `flashlab stats`: a mount's counters (the "key value"
 * lines of its /.flashlab-stats file) as a short readable summary, or as
 * one JSON object. */
#include "cli.h"
#include "logfs/logfs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value of key in text ("key value" lines) as a number, NAN if the
 * key is missing or not a number. */
static double num(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; ) {
        size_t n = strcspn(l, "\n");
        if (n > kl && !strncmp(l, key, kl) && l[kl] == ' ') {
            char *end;
            double v = strtod(l + kl + 1, &end);
            return end != l + kl + 1 && (*end == '\n' || !*end) ? v : NAN;
        }
        l += n + (l[n] == '\n');
    }
    return NAN;
}

/* The string value of key, in buf; "?" when missing. */
static const char *str(const char *text, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; ) {
        size_t n = strcspn(l, "\n");
        if (n > kl && !strncmp(l, key, kl) && l[kl] == ' ') {
            snprintf(buf, cap, "%.*s", (int)(n - kl - 1), l + kl + 1);
            return buf;
        }
        l += n + (l[n] == '\n');
    }
    return "?";
}

static double mib(double bytes)
{
    return bytes / 1048576.0;
}

/* A duration in ns as "12.3 us", "4.5 ms", "6.7 s". */
static const char *dur(double ns, char *buf, size_t cap)
{
    if (isnan(ns))
        snprintf(buf, cap, "?");
    else if (ns < 1e3)
        snprintf(buf, cap, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, cap, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, cap, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, cap, "%.2f s", ns / 1e9);
    return buf;
}

static const char *compr_name(double c)
{
    return c == LOGFS_COMPRESS_ZLIB ? "zlib" : c == LOGFS_COMPRESS_LZO ? "lzo" : "none";
}

/* Wear accelerated (endurance_scale < 1, sim/nand.h) or slowed (> 1):
 * each erase wears a block 1/scale times, so its erase counts and lifetime
 * are not a real part's.  Nothing when the scale is 1 or unknown (older
 * stats files). */
static void accel(FILE *out, const char *text)
{
    double scale = num(text, "nand.endurance_scale"), rated = num(text, "nand.endurance");
    if (isnan(scale) || scale == 1 || scale <= 0)
        return;
    if (scale < 1)
        fprintf(out, "  ACCELERATED     wear accelerated %gx (endurance_scale %g): each erase "
                "counts as %g", 1 / scale, scale, 1 / scale);
    else
        fprintf(out, "  SLOWED          wear slowed %gx (endurance_scale %g): each erase "
                "counts as %g", scale, scale, 1 / scale);
    if (!isnan(rated))
        fprintf(out, "; the rated %.0f P/E cycles last about %.0f erases", rated, rated * scale);
    fputc('\n', out);
}

/* A block kind (the FTL) counts host sectors; its pages_data are the
 * host's pages only, GC's apart in pages_gc. */
static int is_block_kind(const char *text)
{
    return !isnan(num(text, "fs.host_sectors_written"));
}

/* Flash bytes programmed since the mount: every page the fs programmed. */
static double flash_bytes(const char *text)
{
    double extra = is_block_kind(text) ? num(text, "fs.pages_gc")
                                       : num(text, "fs.pages_meta") + num(text, "fs.pages_anchor");
    return (num(text, "fs.pages_data") + extra) * num(text, "nand.page_size");
}

static void latency_line(FILE *out, const char *text, const char *sync_name)
{
    char b1[64], b2[64], b3[64];
    fprintf(out, "  latency         write p99 %s, read p99 %s, %s p99 %s\n",
            dur(num(text, "latency.write.p99_ns"), b1, sizeof b1),
            dur(num(text, "latency.read.p99_ns"), b2, sizeof b2), sync_name,
            dur(num(text, "latency.sync.p99_ns"), b3, sizeof b3));
}

static void tail_lines(FILE *out, const char *mp, const char *text)
{
    fprintf(out, "  wear            erases per block min %.0f, mean %.2f, max %.0f "
            "(%.0f good blocks, %.0f bad)\n", num(text, "wear.erases_min"),
            num(text, "wear.erases_mean"), num(text, "wear.erases_max"),
            num(text, "wear.good_blocks"), num(text, "wear.bad_blocks"));
    accel(out, text);
    double corr = num(text, "nand.bits_corrected"), unc = num(text, "nand.uncorrectable_reads");
    fprintf(out, "  flash health    %.0f bits corrected by ECC, %.0f uncorrectable reads, "
            "%.0f program and %.0f erase failures%s\n", corr, unc,
            num(text, "nand.program_fails"), num(text, "nand.erase_fails"),
            num(text, "powered") == 0 ? "; POWER CUT" : "");
    fprintf(out, "(every counter: flashlab stats --all %s)\n", mp);
}

/* The FTL's summary: host sectors in, pages programmed, GC, flushes. */
static void block_summary(FILE *out, const char *mp, const char *text)
{
    char b1[512], b2[64], b3[64];
    double ps = num(text, "nand.page_size"), host = num(text, "fs.host_bytes_mount");
    double flash = flash_bytes(text);
    fprintf(out, "%s: %s (block device /disk) on %s, mounted for %s of simulated time%s\n", mp,
            str(text, "fs_kind", b3, sizeof b3), str(text, "image", b1, sizeof b1),
            dur(num(text, "mounted_ns"), b2, sizeof b2),
            num(text, "readonly") == 1 ? " (read-only)" : "");
    fprintf(out, "since the mount:\n");
    fprintf(out, "  host writes     %.2f MiB; %.0f sectors trimmed, %.0f flushes\n", mib(host),
            num(text, "fs.host_sectors_trimmed"), num(text, "fs.flushes"));
    fprintf(out, "  flash writes    %.2f MiB (%.0f pages: %.0f for the host, %.0f by GC; "
            "%.0f skipped)\n", mib(flash), flash / ps, num(text, "fs.pages_data"),
            num(text, "fs.pages_gc"), num(text, "fs.pages_pad"));
    if (host > 0)
        fprintf(out, "  write amp.      %.3f (flash programs x page / host bytes)\n",
                flash / host);
    else
        fprintf(out, "  write amp.      - (no host writes yet)\n");
    fprintf(out, "  erases          %.0f (FTL), %.0f (device)\n", num(text, "fs.erases"),
            num(text, "nand.erases"));
    fprintf(out, "  GC              %.0f rounds, %.0f sectors moved in %s simulated; %.0f by "
            "wear leveling\n", num(text, "fs.gc_rounds"), num(text, "fs.sectors_moved"),
            dur(num(text, "fs.gc_time_ns"), b2, sizeof b2), num(text, "fs.wl_moves"));
    latency_line(out, text, "flush");
    fprintf(out, "  requests        %.0f FUSE operations, %.0f errors (%.0f EIO)\n",
            num(text, "mount.fuse_ops"), num(text, "mount.errors"), num(text, "mount.eio"));
    fprintf(out, "now:\n");
    fprintf(out, "  space           %.2f MiB logical, %.0f free blocks, %.0f bad\n",
            mib(num(text, "space.total_bytes")), num(text, "fs.free_segments"),
            num(text, "fs.bad_blocks"));
    tail_lines(out, mp, text);
}

static void summary(FILE *out, const char *mp, const char *text)
{
    if (is_block_kind(text)) {
        block_summary(out, mp, text);
        return;
    }
    char b1[512], b2[64];
    double ps = num(text, "nand.page_size");
    double host = num(text, "fs.host_bytes_mount");
    double pd = num(text, "fs.pages_data"), pm = num(text, "fs.pages_meta");
    double pa = num(text, "fs.pages_anchor"), pg = num(text, "fs.pages_gc");
    double flash = (pd + pm + pa) * ps;
    fprintf(out, "%s: LogFS on %s, mounted for %s of simulated time%s\n", mp,
            str(text, "image", b1, sizeof b1), dur(num(text, "mounted_ns"), b2, sizeof b2),
            num(text, "readonly") == 1 ? " (read-only)" : "");
    fprintf(out, "since the mount:\n");
    fprintf(out, "  host writes     %.2f MiB\n", mib(host));
    fprintf(out, "  flash writes    %.2f MiB (data %.2f, metadata %.2f, anchor %.2f; "
            "of them the cleaner's copies %.2f)\n", mib(flash), mib(pd * ps), mib(pm * ps),
            mib(pa * ps), mib(pg * ps));
    if (host > 0)
        fprintf(out, "  write amp.      %.3f (flash bytes / host bytes)\n", flash / host);
    else
        fprintf(out, "  write amp.      - (no host writes yet)\n");
    double raw = num(text, "fs.data_raw_bytes"), stored = num(text, "fs.data_stored_bytes");
    if (raw > 0)
        fprintf(out, "  file data       %.2f MiB stored as %.2f MiB (%.3f; compression %s)\n",
                mib(raw), mib(stored), stored / raw, compr_name(num(text, "fs.compress")));
    fprintf(out, "  erases          %.0f (fs), %.0f (device)\n", num(text, "fs.erases"),
            num(text, "nand.erases"));
    double rounds = num(text, "fs.gc_rounds");
    fprintf(out, "  cleaner         %.0f victims, %.0f objects (%.2f MiB) moved in %s "
            "simulated; %.0f by wear leveling\n", rounds, num(text, "fs.gc_objects"),
            mib(num(text, "fs.gc_bytes")), dur(num(text, "fs.gc_time_ns"), b2, sizeof b2),
            num(text, "fs.wl_moves"));
    latency_line(out, text, "sync");
    fprintf(out, "  requests        %.0f FUSE operations, %.0f errors (%.0f EIO), %.0f commits "
            "in all\n", num(text, "mount.fuse_ops"), num(text, "mount.errors"),
            num(text, "mount.eio"), num(text, "fs.commits"));
    fprintf(out, "now:\n");
    fprintf(out, "  space           %.2f MiB free of %.2f MiB, %.0f files, %.0f free segments\n",
            mib(num(text, "space.free_bytes")), mib(num(text, "space.total_bytes")),
            num(text, "space.files"), num(text, "fs.free_segments"));
    tail_lines(out, mp, text);
}

/* text's keys as one JSON object: numbers as numbers, the rest as
 * strings; plus "wa" (flash / host bytes since the mount, null before any
 * host write). */
static void json(FILE *out, const char *text)
{
    fputc('{', out);
    int first = 1;
    for (const char *l = text; *l; ) {
        size_t n = strcspn(l, "\n"), k = strcspn(l, " \n");
        if (k < n) {
            const char *v = l + k + 1;
            size_t vl = n - k - 1;
            fprintf(out, "%s\"%.*s\": ", first ? "" : ", ", (int)k, l);
            char *end;
            char tmp[64];
            int isnum = 0;
            if (vl > 0 && vl < sizeof tmp) {
                memcpy(tmp, v, vl);
                tmp[vl] = 0;
                double d = strtod(tmp, &end);
                isnum = !*end && isfinite(d) && strspn(tmp, "0123456789.-") == vl;
            }
            if (isnum) {
                fprintf(out, "%.*s", (int)vl, v);
            } else {
                fputc('"', out);
                for (size_t i = 0; i < vl; i++) {
                    unsigned char ch = (unsigned char)v[i];
                    if (ch == '"' || ch == '\\')
                        fprintf(out, "\\%c", ch);
                    else if (ch < 0x20)
                        fprintf(out, "\\u%04x", ch);
                    else
                        fputc(ch, out);
                }
                fputc('"', out);
            }
            first = 0;
        }
        l += n + (l[n] == '\n');
    }
    double host = num(text, "fs.host_bytes_mount"), flash = flash_bytes(text);
    if (host > 0 && !isnan(flash))
        fprintf(out, "%s\"wa\": %.6f", first ? "" : ", ", flash / host);
    else
        fprintf(out, "%s\"wa\": null", first ? "" : ", ");
    fputs("}\n", out);
}

void cli_stats_show(FILE *out, const char *mp, const char *text, int as_json)
{
    if (as_json)
        json(out, text);
    else
        summary(out, mp, text);
}
