/* main.c -- the flashlab program: one binary, git-style subcommands. */
#include "cli.h"

#include <string.h>

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("flashlab %s\n", FLASHLAB_VERSION);
    return CLI_OK;
}

static const struct cli_cmd commands[] = {
    {"sim", "create, inspect and exercise simulated NAND devices", cmd_sim},
    {"version", "print the program version", cmd_version},
    {NULL, NULL, NULL},
};

static const char help[] =
    "usage: flashlab <command> [options] [args]\n"
    "\n"
    "A NAND flash simulator and LogFS research testbed.\n"
    "Every command takes --help.\n"
    "\n"
    "commands:\n";

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--version"))
        return cmd_version(argc, argv);
    return cli_dispatch("", commands, argc, argv, help);
}
