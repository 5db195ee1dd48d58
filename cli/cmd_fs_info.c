/* cmd_fs_info.c -- `flashlab df` and `flashlab stat`: space and one
 * file's metadata, read-only. */
#include "fs_cmd.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- df ----------------------------------------------------------------------------------- */

static const char df_help[] =
    "usage: flashlab df [--fs KIND] [--mount-cost] IMAGE\n"
    "\n"
    "Show the space of the file system on IMAGE: block size, total and free\n"
    "bytes, and files (inodes allocated).  For LogFS, free leaves out the\n"
    "cleaner's reserve, and it shows the bytes the tree references (live)\n"
    "and the number of the last commit, then where the device's space went:\n"
    "the bad blocks, the superblock and its backup, the anchor ring, the\n"
    "segments held back outside the capacity (the cleaner's reserve, the\n"
    "open write areas), the cleaner's headroom (live data may fill at most\n"
    "max_utilisation, 85% by default, of the rest), leaving total; and of\n"
    "total, live (file data and metadata the tree references), not yet\n"
    "committed, and free.  For the other kinds, the\n"
    "fs's name and the bytes used (total - free).\n"
    "\n"
    "--mount-cost adds what the command's own mount of IMAGE cost, on an\n"
    "idle chip: the simulated flash time (the dies' busy time) and clock,\n"
    "the page reads and bytes moved, the bytes checksummed and nodes indexed\n"
    "(what the fs counts) and the CPU model's time for them (the OLPC XO-1's\n"
    "Geode LX, docs/mount-latency.md).\n"
    FS_HELP
    "\n"
    "examples:\n"
    "  flashlab df fs.img\n"
    "  flashlab df --fs jffs2-summary fs.img\n"
    "  flashlab df --mount-cost fs.img\n";

/* df --mount-cost: the session's mount, as the runner measures one */
static void print_mount_cost(struct session *s)
{
    struct fsapi_mount_work w = {0, 0};
    if (s->m.api->mount_work)
        s->m.api->mount_work(s->m.fs, &w);
    double cpu = fsapi_cpu_ns(&fsapi_cpu_geode_lx, &w);
    const struct nand_stats *a = &s->mst0, *b = &s->mst1;
    printf("%-11s flash %.6f s, clock %.6f s, CPU model (%s) %.6f s\n", "mount:",
           (double)(b->busy_ns - a->busy_ns) / 1e9, (double)(s->mt1 - s->mt0) / 1e9,
           fsapi_cpu_geode_lx.name, cpu / 1e9);
    printf("%-11s %" PRIu64 " page reads, %" PRIu64 " bytes read, %" PRIu64
           " bytes checksummed, %" PRIu64 " nodes indexed\n", "mount work:",
           b->reads - a->reads, b->bytes_read - a->bytes_read, w.bytes_checksummed,
           w.nodes_indexed);
}

static void print_bytes(const char *what, uint64_t n)
{
    int mib = n >= 1048576;
    printf("%-11s %" PRIu64 " bytes (%.1f %s)\n", what, n,
           (double)n / (mib ? 1048576.0 : 1024.0), mib ? "MiB" : "KiB");
}

int cmd_df(int argc, char **argv)
{
    const struct fsapi *kind = NULL;
    int mount_cost = 0;
    for (int i = 1; i < argc; i++) /* df's own option, taken out first */
        if (!strcmp(argv[i], "--mount-cost")) {
            mount_cost = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--;
            i--;
        }
    int orc = cli_fs_common_opts("df", argc, argv, df_help, &kind);
    if (orc >= 0)
        return orc;
    if (optind != argc - 1)
        return cli_usage_error("df", "expected one IMAGE argument");
    struct session s;
    int rc = cli_session_open(&s, "df", argv[optind], kind, 0);
    if (rc)
        return rc;
    struct fs_statfs sf;
    uint64_t live = 0, commits, compress;
    int has_live = !fsapi_counter(&s.m, "live_bytes", &live);
    int has_commits = !fsapi_counter(&s.m, "commits", &commits);
    int has_compress = !fsapi_counter(&s.m, "compress", &compress);
    int frc = CALL(&s, statfs, &sf);
    if (frc) {
        rc = cli_unsupported(frc) ? cli_fs_fail("df", "%s does not report its space", s.m.api->name)
                              : cli_fs_fail("df", "%s: %s", argv[optind], cli_errmsg(frc));
    } else {
        if (strcmp(s.m.api->name, "logfs"))
            printf("%-11s %s\n", "fs:", s.m.api->name);
        printf("%-11s %u\n", "block size:", sf.block_size);
        print_bytes("total:", sf.total_bytes);
        print_bytes("free:", sf.free_bytes);
        if (has_live)
            print_bytes("live:", live);
        else
            print_bytes("used:", sf.total_bytes - (sf.free_bytes < sf.total_bytes
                                                   ? sf.free_bytes : sf.total_bytes));
        printf("%-11s %" PRIu64 "\n", "files:", sf.files);
        if (has_commits)
            printf("%-11s %" PRIu64 "\n", "commits:", commits);
        if (has_compress) { /* the counter's values: fsapi.h */
            static const char *const cn[] = {"?", "none", "zlib", "lzo"};
            printf("%-11s %s (of the file data written from now on)\n", "compression:",
                   cn[compress < 4 ? compress : 0]);
        }
        uint64_t cleanable = 0, managed = 0;
        /* where the device's space went, from the roles of its blocks: a
         * log-structured fs's breakdown (superblocks, anchor ring, segments
         * the cleaner manages), so only for a kind that counts its
         * cleanable space (an FTL's blocks are all the map's) */
        if (s.m.api->block_role && !fsapi_counter(&s.m, "cleanable_bytes", &cleanable)) {
            const struct nand_config *cfg = nand_get_config(s.dev);
            uint64_t nb = nand_blocks(cfg), eb = (uint64_t)cfg->geo.page_size *
                                                 cfg->geo.pages_per_block;
            uint64_t bad = 0, sb = 0, anchor = 0, segs = 0;
            for (uint64_t b = 0; b < nb; b++) {
                struct nand_block_info bi;
                const char *role = fsapi_block_role(&s.m, (uint32_t)b);
                if (!nand_block_info(s.dev, (nand_block_t)b, &bi) &&
                    (bi.factory_bad || bi.grown_bad || bi.marked_bad))
                    bad++;
                else if (!strcmp(role, "superblock"))
                    sb++;
                else if (!strcmp(role, "anchor"))
                    anchor++;
                else
                    segs++;
            }
            /* the cleaner may fill max_utilisation of the segments it
             * manages (cleanable_bytes; total is that share of them) */
            fsapi_counter(&s.m, "cleanable_segments", &managed);
            double pct = cleanable ? 100.0 * (double)sf.total_bytes / (double)cleanable : 100;
            if (managed > segs)
                managed = segs;
            uint64_t held = segs - managed, tails = managed * eb - cleanable,
                     head = cleanable - sf.total_bytes;
            uint64_t used = sf.total_bytes - sf.free_bytes;
            uint64_t pend = used > live ? used - live : 0;
            printf("\nwhere the space went (erase blocks of %" PRIu64 " KiB):\n", eb / 1024);
#define DF_ROW(what, bytes, fmt, ...) \
            printf("  %-18s %9.2f MiB  " fmt "\n", what, (double)(bytes) / 1048576.0, __VA_ARGS__)
            DF_ROW("device", nb * eb, "%" PRIu64 " erase blocks", nb);
            DF_ROW("- bad blocks", bad * eb, "%" PRIu64 " blocks (factory or grown bad)", bad);
            DF_ROW("- superblocks", sb * eb, "%" PRIu64 " blocks (block 0 and its backup)", sb);
            DF_ROW("- anchor ring", anchor * eb, "%" PRIu64 " blocks (mkfs --anchor-blocks)",
                   anchor);
            DF_ROW("- held back", held * eb, "%" PRIu64 " segments outside the capacity "
                   "(mkfs --reserve for the cleaner, the open write areas)", held);
            DF_ROW("- segment tails", tails, "%s", "the end of each segment too short for "
                   "one more block");
            DF_ROW("- cleaner headroom", head, "%.1f%% of the rest: live data fills at most "
                   "%.1f%% of it (max_utilisation), so a victim is at most that full",
                   100 - pct, pct);
            DF_ROW("= total", sf.total_bytes, "%s", "what files may use");
            DF_ROW("  - live", live, "%s", "file data and metadata the tree "
                   "references (committed)");
            DF_ROW("  - not committed", pend, "%s", "written, waiting for the next commit");
            DF_ROW("  = free", sf.free_bytes, "%s", "");
#undef DF_ROW
        }
    }
    if (!rc && mount_cost)
        print_mount_cost(&s);
    return cli_session_close(&s, rc, 0);
}

/* ---- stat ---------------------------------------------------------------------------------- */

static const char stat_help[] =
    "usage: flashlab stat [--fs KIND] IMAGE:/path\n"
    "\n"
    "Show the inode of /path in the file system on IMAGE (a symbolic link\n"
    "itself, not what it points to).  Times are seconds of the device's\n"
    "simulated clock.\n"
    FS_HELP
    "\n"
    "example: flashlab stat --fs blockfs fs.img:/a\n";

/* A time in ns as seconds.nanoseconds, exactly (a double holds only
 * about 16 digits: the last ones of a 2007 time in ns would be wrong). */
/* Seconds since the epoch exactly, then the same in ISO 8601 UTC. */
static void print_time(const char *name, int64_t ns)
{
    uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    char iso[48];
    cli_time_string(ns, 1, iso, sizeof iso);
    printf("%s:  %s%" PRIu64 ".%09" PRIu64 "  %s\n", name, ns < 0 ? "-" : "",
           mag / 1000000000u, mag % 1000000000u, iso);
}

/* The file attributes, as lsattr's letters and in words, for a kind
 * that keeps them (a symbolic link has none of its own). */
static void print_flags(struct session *s, const char *path, uint32_t mode)
{
    static const struct {
        unsigned fl;
        char letter;
        const char *name;
    } names[] = {
        {FS_FL_SYNC, 'S', "sync"},          {FS_FL_IMMUTABLE, 'i', "immutable"},
        {FS_FL_APPEND, 'a', "append-only"}, {FS_FL_NODUMP, 'd', "no dump"},
        {FS_FL_NOATIME, 'A', "no atime"},
    };
    unsigned fl;
    if (S_ISLNK(mode) || fsapi_getflags(&s->m, path, &fl))
        return;
    char letters[8] = "-", words[80] = "none";
    size_t nl = 0, nw = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (fl & names[i].fl) {
            letters[nl++] = names[i].letter;
            letters[nl] = 0;
            nw += (size_t)snprintf(words + nw, sizeof words - nw, "%s%s", nw ? ", " : "",
                                   names[i].name);
        }
    printf("flags:  %s (%s)\n", letters, words);
}

int cmd_stat(int argc, char **argv)
{
    const struct fsapi *kind = NULL;
    int orc = cli_fs_common_opts("stat", argc, argv, stat_help, &kind);
    if (orc >= 0)
        return orc;
    if (optind != argc - 1)
        return cli_usage_error("stat", "expected one IMAGE:/path argument");
    struct target t;
    if (cli_parse_target("stat", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "stat", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    struct fs_stat st;
    char *target = NULL;
    int frc = CALL(&s, lstat, t.path, &st);
    if (!frc && S_ISLNK(st.mode))
        frc = cli_read_link(&s, t.path, st.size, &target);
    if (frc) {
        rc = cli_path_fail("stat", frc, t.path);
    } else {
        char mode[11];
        cli_mode_string(st.mode, mode);
        printf("path:   %s\n", t.path);
        printf("type:   %s\n", cli_type_name(st.mode));
        if (target)
            printf("target: %s\n", target);
        printf("inode:  %" PRIu64 "\n", st.ino);
        printf("mode:   %04o (%s)\n", st.mode & 07777u, mode);
        printf("nlink:  %" PRIu32 "\n", st.nlink);
        printf("uid:    %" PRIu32 "\ngid:    %" PRIu32 "\n", st.uid, st.gid);
        printf("size:   %" PRIu64 "%s\n", st.size,
               S_ISDIR(st.mode) ? " entries" : " bytes");
        printf("blocks: %" PRIu64 " (512-byte units allocated, as st_blocks)\n", st.blocks);
        print_flags(&s, t.path, st.mode);
        if (S_ISCHR(st.mode) || S_ISBLK(st.mode))
            printf("device: %u, %u\n", major((dev_t)st.rdev), minor((dev_t)st.rdev));
        print_time("atime", st.atime);
        print_time("mtime", st.mtime);
        print_time("ctime", st.ctime);
    }
    free(target);
    rc = cli_session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

