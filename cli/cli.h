/* cli.h -- shared pieces of the flashlab command-line program. */
#ifndef FLASHLAB_CLI_H
#define FLASHLAB_CLI_H

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
/* True if argv holds -h or --help before any "--". */
int cli_wants_help(int argc, char **argv);
/* Dispatch argv[1] among cmds (a command group such as "sim"). */
int cli_dispatch(const char *group, const struct cli_cmd *cmds, int argc,
                 char **argv, const char *help);

int cmd_sim(int argc, char **argv);

/* The file commands (cmd_fs.c), on any fs of fs/fsapi.h (--fs KIND or
 * probed); each takes IMAGE or IMAGE:/path args. */
int cmd_mkfs(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_put(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_mkdir(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_rmdir(int argc, char **argv);
int cmd_ln(int argc, char **argv);
int cmd_mv(int argc, char **argv);
int cmd_df(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_fsck(int argc, char **argv); /* cmd_fsck.c: the independent checker */
int cmd_mount(int argc, char **argv); /* cmd_mount.c */
int cmd_stats(int argc, char **argv);

/* Experiments (cmd_run.c). */
int cmd_run(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_powercut(int argc, char **argv); /* cmd_powercut.c */

/* Figures from a results database (cmd_plot.c). */
int cmd_plot(int argc, char **argv);

#endif
