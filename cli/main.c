/* main.c -- the flashlab program: one binary, git-style subcommands. */
#include "cli.h"

#include <string.h>

static int cmd_version(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: flashlab version\n"
               "\n"
               "Print the program's version: the release and the git commit it was\n"
               "built from (also flashlab --version).\n"
               "\n"
               "example:\n"
               "  flashlab version\n");
        return CLI_OK;
    }
    printf("flashlab %s\n", FLASHLAB_VERSION);
    return CLI_OK;
}

static const struct cli_cmd commands[] = {
    {"sim", "create, inspect and exercise simulated NAND devices", cmd_sim},
    {"mkfs", "make an empty file system (--fs KIND, LogFS by default)", cmd_mkfs},
    {"ls", "list a directory (IMAGE[:/path])", cmd_ls},
    {"cat", "print files (IMAGE:/path)", cmd_cat},
    {"put", "copy a host file into an image", cmd_put},
    {"get", "copy a file out of an image", cmd_get},
    {"mkdir", "make directories", cmd_mkdir},
    {"mknod", "make a FIFO, socket or device file", cmd_mknod},
    {"fallocate", "preallocate a range of a file (LogFS format 6)", cmd_fallocate},
    {"rm", "remove files and directories", cmd_rm},
    {"rmdir", "remove empty directories", cmd_rmdir},
    {"ln", "make a hard or symbolic link in an image", cmd_ln},
    {"mv", "rename or move a file or directory", cmd_mv},
    {"df", "show an image's space and files", cmd_df},
    {"stat", "show a file's inode", cmd_stat},
    {"xattr", "list, get, set or remove extended attributes", cmd_xattr},
    {"fsck", "check (and repair) the LogFS on an image", cmd_fsck},
    {"mount", "mount a LogFS image through FUSE", cmd_mount},
    {"stats", "print a flashlab mount's counters", cmd_stats},
    {"run", "run an experiment (YAML) into a results database", cmd_run},
    {"merge", "join results databases of sharded runs", cmd_merge},
    {"powercut", "run a power-cut campaign (YAML) and check every recovery", cmd_powercut},
    {"faults", "run a media-fault campaign (YAML): inject, mount, read back", cmd_faults},
    {"plot", "draw a figure from a results database (gnuplot)", cmd_plot},
    {"version", "print the program version", cmd_version},
    {NULL, NULL, NULL},
};

static const char help[] =
    "usage: flashlab <command> [options] [args]\n"
    "\n"
    "A NAND flash simulator and LogFS research testbed.\n"
    "Every command takes --help.  The file commands (mkfs to stat) work on\n"
    "every file system kind (LogFS, blockfs, jffs2-scan, jffs2-summary: the\n"
    "image is probed, or --fs KIND names it) and name a file on an image\n"
    "as IMAGE:/path (split at the first ':' followed by '/').\n"
    "\n"
    "examples:\n"
    "  flashlab sim create --device configs/devices/test-64m.yaml fs.img\n"
    "  flashlab mkfs fs.img && flashlab put README.md fs.img:/README.md\n"
    "  flashlab run configs/demo.yaml -j 2\n"
    "\n"
    "commands:\n";

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--version"))
        return cmd_version(argc, argv);
    return cli_dispatch("", commands, argc, argv, help);
}
