/* fs_cmd.h -- what the file commands share (fs_session.c defines it): the
 * IMAGE:/path arguments, a mounted image (a session) and the messages.
 * cmd_fs.c: ls, cat, get, put, mkdir, rm, rmdir, ln, mv; cmd_mkfs.c;
 * cmd_fs_info.c: df, stat; cmd_fs_special.c: mknod, xattr;
 * cmd_fallocate.c. */
#ifndef FLASHLAB_CLI_FS_CMD_H
#define FLASHLAB_CLI_FS_CMD_H

#include "cli.h"
#include "fsapi.h"
#include "imglock.h"
#include "nand.h"

#include <stdint.h>

/* IMAGE:/path, split */
struct target {
    char *image;       /* allocated */
    const char *path;  /* inside the argument */
};

/* an image opened and its file system mounted through fsapi */
struct session {
    const char *cmd, *image;
    nand_dev *dev;
    struct fsapi_fs m;
    struct imglock lock; /* held by commands that write */
    /* the mount, measured on an idle chip: the device's statistics and
     * simulated clock before and after it (df --mount-cost) */
    struct nand_stats mst0, mst1;
    nand_time_t mt0, mt1;
};

/* Every file command's --fs paragraph. */
#define FS_HELP                                                               \
    "\n"                                                                      \
    "--fs KIND names the file system on IMAGE; without it the command probes\n" \
    "IMAGE for one (LogFS's superblock, blockfs's, JFFS2's nodes).\n"

/* fs's call op on the session's mount, or -ENOSYS when the table lacks it. */
#define CALL(s, op, ...) \
    ((s)->m.api->op ? (s)->m.api->op((s)->m.fs, __VA_ARGS__) : -ENOSYS)

/* "flashlab CMD: message" on stderr; returns CLI_FAIL. */
int cli_fs_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A negative errno as a short lower-case phrase. */
const char *cli_errmsg(int rc);
/* "flashlab CMD: what went wrong: /path"; returns CLI_FAIL. */
int cli_path_fail(const char *cmd, int rc, const char *path);
/* rc says the file system lacks the operation (ENOSYS, EOPNOTSUPP). */
int cli_unsupported(int rc);
/* --help: the text, then the kinds; returns CLI_OK. */
int cli_fs_help(const char *text);
/* --fs NAME as an fsapi table in *out; CLI_USAGE with a message if unknown. */
int cli_parse_kind(const char *cmd, const char *name, const struct fsapi **out);
/* The options a command takes alone, --fs KIND and --help: -1 when the
 * command goes on (optind at its first argument), else its exit code. */
int cli_fs_common_opts(const char *cmd, int argc, char **argv, const char *help,
                   const struct fsapi **kind);
/* Split arg at its first ':' followed by '/'; allow_bare: a bare image is "/". */
int cli_parse_target(const char *cmd, const char *arg, int allow_bare, struct target *t);
/* Open image (locked when writes) and mount its fs (kind, or probed). */
int cli_session_open(struct session *s, const char *cmd, const char *image,
                 const struct fsapi *kind, int writes);
/* Options the next cli_session_open mounts with ("key=value,...", the
 * kind's own; NULL: none).  put -o sets them. */
void cli_session_set_options(const char *options);
/* Unmount (which commits), save the image when save and all went well,
 * close.  rc is the command's exit code so far. */
int cli_session_close(struct session *s, int rc, int save);
/* "drwxr-xr-x" for mode. */
void cli_mode_string(uint32_t mode, char out[11]);
/* A timestamp (ns since the epoch) as ISO 8601 UTC into out (at least
 * 40 bytes): "2024-01-01T00:00:00.000000000Z" with frac, else
 * "2024-01-01 00:00" (ls -l's column); "?" outside gmtime's range. */
void cli_time_string(int64_t ns, int frac, char *out, size_t cap);
/* "regular file", "directory", ... */
const char *cli_type_name(uint32_t mode);
/* A symbolic link's target (size bytes) as a new string in *out. */
int cli_read_link(struct session *s, const char *path, uint64_t size, char **out);

#endif
