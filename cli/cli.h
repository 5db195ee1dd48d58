/* cli.h -- shared pieces of the flashlab command-line program. */
#ifndef FLASHLAB_CLI_H
#define FLASHLAB_CLI_H

#include "nand.h"

#include <stdio.h>

/* A subcommand: name, one-line summary, entry point (argv[0] is its name). */
struct cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
};

/* Exit codes, as git and sqlite3 use them: 0 success, 1 failure,
 * 2 bad usage. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Print "flashlab: message" to stderr; returns CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a usage error and a pointer to --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Wall-clock seconds (monotonic), for progress lines and rates. */
double cli_now_s(void);
/* True if argv holds -h or --help before any "--". */
int cli_wants_help(int argc, char **argv);
/* A whole unsigned number (decimal, 0x hex or 0 octal, no sign) in *out:
 * 0, or -1 with *out untouched. */
int cli_parse_u64(const char *s, uint64_t *out);
/* Dispatch argv[1] among cmds (a command group such as "sim"). */
int cli_dispatch(const char *group, const struct cli_cmd *cmds, int argc,
                 char **argv, const char *help);

/* A file flashlab ships (rel such as "configs/devices/test-64m.yaml"),
 * found from any directory: rel itself if it is there, else beside the
 * program (a build tree) or in its installed share/flashlab/; out holds
 * the path when it is not rel.  rel when none is found (its error then
 * names it). */
const char *cli_shipped(const char *rel, char *out, size_t cap);

int cmd_sim(int argc, char **argv);

struct fsapi;
struct fsapi_fs;
/* A note on stderr when the fs on dev is of another format version than
 * this program writes (fsapi's format_check): 1 older and read-only, 2
 * unreadable, else 0. */
int cli_format_note(const char *image, const struct fsapi *api, nand_dev *dev);
/* After a mount of IMAGE: if the mount had to take an older anchor record
 * than one the ring evidently held (the counter anchor_fallback), or ring
 * blocks went bad, say so on stderr ("IMAGE: warning: the newest anchor
 * record is damaged; mounted commit N, ...").  Returns 1 if it warned. */
int cli_anchor_warning(const char *image, const struct fsapi_fs *m);
/* opts for a mount by a person: "clock=host," before them where api's
 * kind has a clock and opts give no epoch= (files get the host's time, as
 * cp would give them). */
void cli_host_clock_options(const struct fsapi *api, const char *opts, char *out, size_t cap);

/* The file commands (cmd_fs.c), on any fs of fs/fsapi.h (--fs KIND or
 * probed); each takes IMAGE or IMAGE:/path args. */
int cmd_mkfs(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_put(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_mkdir(int argc, char **argv);
int cmd_mknod(int argc, char **argv);
int cmd_fallocate(int argc, char **argv);
int cmd_xattr(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_rmdir(int argc, char **argv);
int cmd_ln(int argc, char **argv);
int cmd_mv(int argc, char **argv);
int cmd_df(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_fsck(int argc, char **argv); /* cmd_fsck.c: the independent checker */
int cmd_mount(int argc, char **argv); /* cmd_mount.c */
int cmd_stats(int argc, char **argv);
/* stats_show.c: a mount's stats text as a readable summary, or (as_json)
 * one JSON object of every key plus "wa". */
void cli_stats_show(FILE *out, const char *mp, const char *text, int as_json);

/* Experiments (cmd_run.c). */
int cmd_run(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_powercut(int argc, char **argv); /* cmd_powercut.c */
int cmd_faults(int argc, char **argv); /* cmd_faults.c */

/* Figures from a results database (cmd_plot.c). */
int cmd_plot(int argc, char **argv);

#endif
