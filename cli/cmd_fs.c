/* cmd_fs.c -- the file commands ls, cat, put, get, mkdir, rm, rmdir, ln
 * and mv on simulator images, for every file system of fs/fsapi.h's table
 * (LogFS and the baselines); what every file command shares is
 * fs_session.c's (fs_cmd.h; mkfs, df, stat, mknod and xattr have files of
 * their own).
 *
 * Every command opens the image, finds its file system (fsapi_probe, or
 * the kind --fs names), mounts it through its fsapi table, does its work
 * and unmounts (which commits).  Commands that change the file system then save the
 * image; read-only ones (ls, cat, get, df, stat) never write it.  A command
 * that fails does not save either, so IMAGE is left as it was. */
#include "fs_cmd.h"
#include "nand.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CHUNK (64u * 1024u) /* bytes per read/write when streaming a file */

/* ---- IMAGE:/path arguments on one image ------------------------------- */

/* Whether two image names are the same file. */
static int same_image(const char *a, const char *b)
{
    struct stat x, y;
    if (!strcmp(a, b))
        return 1;
    return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

/* Parse argv[first..argc) as IMAGE:/path arguments on one image. */
static int parse_targets(const char *cmd, int argc, char **argv, int first,
                  struct target *t)
{
    for (int i = first; i < argc; i++) {
        struct target *p = &t[i - first];
        p->image = NULL;
        if (cli_parse_target(cmd, argv[i], 0, p))
            return CLI_USAGE;
        if (i > first && !same_image(t[0].image, p->image))
            return cli_usage_error(cmd, "'%s' and '%s' are on different images",
                                   argv[first], argv[i]);
    }
    return CLI_OK;
}

static void free_targets(struct target *t, int n)
{
    for (int i = 0; i < n; i++)
        free(t[i].image);
    free(t);
}

/* ---- paths and directory listings ----------------------------------------- */

/* dir + "/" + name, as a new string (NULL when out of memory). */
static char *join(const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    while (dl > 0 && dir[dl - 1] == '/')
        dl--;
    char *p = malloc(dl + nl + 2);
    if (p) {
        memcpy(p, dir, dl);
        p[dl] = '/';
        memcpy(p + dl + 1, name, nl + 1);
    }
    return p;
}

/* The last component of path ("" for the root); trailing slashes are
 * dropped into *len. */
static const char *base_name(const char *path, size_t *len)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    *len = n - b;
    return path + b;
}

static int is_root(const char *path)
{
    return path[strspn(path, "/")] == 0;
}

struct entry {
    char *name;
    uint32_t type; /* S_IFMT bits */
};

struct listing {
    struct entry *v;
    size_t n, cap;
    int nomem;
};

static int collect_one(void *ctx, const char *name, uint64_t ino, uint32_t type)
{
    struct listing *l = ctx;
    (void)ino;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct entry *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->nomem = 1;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n].name = strdup(name))) {
        l->nomem = 1;
        return 1;
    }
    l->v[l->n++].type = type;
    return 0;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    *l = (struct listing){0};
}

/* The entries of directory path, sorted by name. */
static int list_dir(struct session *s, const char *path, struct listing *l)
{
    uint64_t cookie = 0;
    *l = (struct listing){0};
    int rc = CALL(s, readdir, path, &cookie, collect_one, l);
    if (!rc && l->nomem)
        rc = -ENOMEM;
    if (rc)
        listing_free(l);
    else if (l->n)
        qsort(l->v, l->n, sizeof *l->v, entry_cmp);
    return rc;
}

/* ---- ls ---------------------------------------------------------------------- */

static const char ls_help[] =
    "usage: flashlab ls [-l] [--fs KIND] IMAGE[:/path]\n"
    "\n"
    "List a directory of the file system on IMAGE (the root without a path),\n"
    "by name; a file lists just itself.  -l shows mode, links, size (entries,\n"
    "for a directory), the time of the last change (mtime, UTC) and name, and\n"
    "where a symbolic link points.\n"
    FS_HELP
    "\n"
    "example: flashlab ls -l --fs jffs2-scan fs.img:/docs\n";

static int ls_line(struct session *s, const char *path, const char *name, int lng)
{
    if (!lng) {
        printf("%s\n", name);
        return CLI_OK;
    }
    struct fs_stat st;
    int rc = CALL(s, lstat, path, &st);
    if (rc)
        return cli_path_fail(s->cmd, rc, path);
    char mode[11], *target = NULL;
    cli_mode_string(st.mode, mode);
    if (S_ISLNK(st.mode) && (rc = cli_read_link(s, path, st.size, &target)))
        return cli_path_fail(s->cmd, rc, path);
    char when[48];
    cli_time_string(st.mtime, 0, when, sizeof when);
    printf("%s %3" PRIu32 " %10" PRIu64 " %s %s%s%s\n", mode, st.nlink, st.size, when, name,
           target ? " -> " : "", target ? target : "");
    free(target);
    return CLI_OK;
}

int cmd_ls(int argc, char **argv)
{
    static const struct option opts[] = {
        {"long", no_argument, 0, 'l'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int lng = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "lh", opts, NULL)) != -1) {
        switch (c) {
        case 'l': lng = 1; break;
        case 'F':
            if (cli_parse_kind("ls", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(ls_help);
        default: return cli_usage_error("ls", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("ls", "expected one IMAGE[:/path] argument");
    struct target t;
    if (cli_parse_target("ls", argv[optind], 1, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "ls", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    /* like ls(1): -l shows a symlink itself, plain ls what it points to */
    struct fs_stat st;
    int frc = lng ? CALL(&s, lstat, t.path, &st) : CALL(&s, stat, t.path, &st);
    if (frc) {
        rc = cli_path_fail("ls", frc, t.path);
    } else if (!S_ISDIR(st.mode)) {
        rc = ls_line(&s, t.path, t.path, lng);
    } else {
        struct listing l;
        if ((frc = list_dir(&s, t.path, &l)))
            rc = cli_path_fail("ls", frc, t.path);
        for (size_t i = 0; i < l.n && !rc && !frc; i++) {
            char *p = join(t.path, l.v[i].name);
            rc = p ? ls_line(&s, p, l.v[i].name, lng) : cli_fs_fail("ls", "out of memory");
            free(p);
        }
        if (!frc)
            listing_free(&l);
    }
    rc = cli_session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

/* ---- cat / get: copy a file out ----------------------------------------------- */

static int copy_out(struct session *s, const char *path, FILE *out,
                    const char *outname)
{
    struct fs_stat st;
    int rc = CALL(s, stat, path, &st);
    if (!rc && S_ISDIR(st.mode))
        rc = -EISDIR;
    int fd = rc ? rc : CALL(s, open, path, O_RDONLY, 0);
    if (fd < 0)
        return cli_path_fail(s->cmd, fd, path);
    char *buf = malloc(CHUNK);
    rc = buf ? CLI_OK : cli_fs_fail(s->cmd, "out of memory");
    uint64_t off = 0;
    for (int64_t n; !rc && (n = CALL(s, pread, fd, buf, CHUNK, off)) != 0;) {
        if (n < 0)
            rc = cli_path_fail(s->cmd, (int)n, path);
        else if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
            rc = cli_fs_fail(s->cmd, "%s: write error: %s", outname, strerror(errno));
        else
            off += (uint64_t)n;
    }
    free(buf);
    int crc = CALL(s, close, fd);
    if (!rc && crc)
        rc = cli_path_fail(s->cmd, crc, path);
    return rc;
}

static const char cat_help[] =
    "usage: flashlab cat [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Write files of the file system on IMAGE to standard output.\n"
    FS_HELP
    "\n"
    "example: flashlab cat --fs blockfs fs.img:/docs/README.md\n";

int cmd_cat(int argc, char **argv)
{
    const struct fsapi *kind = NULL;
    int orc = cli_fs_common_opts("cat", argc, argv, cat_help, &kind);
    if (orc >= 0)
        return orc;
    if (optind >= argc)
        return cli_usage_error("cat", "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return cli_fs_fail("cat", "out of memory");
    int rc = parse_targets("cat", argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = cli_session_open(&s, "cat", t[0].image, kind, 0))) {
        for (int i = 0; i < n && !rc; i++)
            rc = copy_out(&s, t[i].path, stdout, "standard output");
        if (fflush(stdout) && !rc)
            rc = cli_fs_fail("cat", "standard output: write error: %s", strerror(errno));
        rc = cli_session_close(&s, rc, 0);
    }
    free_targets(t, n);
    return rc;
}

static const char get_help[] =
    "usage: flashlab get [--fs KIND] IMAGE:/path HOSTFILE\n"
    "\n"
    "Copy a file out of the file system on IMAGE into HOSTFILE (\"-\":\n"
    "standard output), replacing what HOSTFILE held.\n"
    FS_HELP
    "\n"
    "example: flashlab get --fs jffs2-summary fs.img:/data.bin data.bin\n";

int cmd_get(int argc, char **argv)
{
    const struct fsapi *kind = NULL;
    int orc = cli_fs_common_opts("get", argc, argv, get_help, &kind);
    if (orc >= 0)
        return orc;
    if (argc - optind != 2)
        return cli_usage_error("get", "expected IMAGE:/path and HOSTFILE");
    const char *host = argv[optind + 1];
    struct target t;
    if (cli_parse_target("get", argv[optind], 0, &t))
        return CLI_USAGE;
    struct session s;
    int rc = cli_session_open(&s, "get", t.image, kind, 0);
    if (rc) {
        free(t.image);
        return rc;
    }
    /* check the source before touching HOSTFILE */
    struct fs_stat st;
    int frc = CALL(&s, stat, t.path, &st);
    if (!frc && S_ISDIR(st.mode))
        frc = -EISDIR;
    int to_stdout = !strcmp(host, "-");
    FILE *out = NULL;
    if (frc)
        rc = cli_path_fail("get", frc, t.path);
    else if (!(out = to_stdout ? stdout : fopen(host, "wb")))
        rc = cli_fs_fail("get", "%s: cannot create: %s", host, strerror(errno));
    if (!rc)
        rc = copy_out(&s, t.path, out, to_stdout ? "standard output" : host);
    if (out && (to_stdout ? fflush(out) : fclose(out)) && !rc)
        rc = cli_fs_fail("get", "%s: write error: %s", host, strerror(errno));
    if (rc && out && !to_stdout)
        remove(host); /* no half-copied files */
    rc = cli_session_close(&s, rc, 0);
    free(t.image);
    return rc;
}

/* ---- put ---------------------------------------------------------------------- */

static const char put_help[] =
    "usage: flashlab put [--fs KIND] [-o OPTIONS] HOSTFILE IMAGE:/path\n"
    "       flashlab put -r [--fs KIND] [-o OPTIONS] HOSTDIR IMAGE:/dir\n"
    "\n"
    "Copy HOSTFILE (\"-\": standard input) into the file system on IMAGE,\n"
    "creating /path or replacing its content, and save the image.\n"
    "-r copies the tree under HOSTDIR into /dir (made if missing) in one\n"
    "mount: directories, regular files and symbolic links, with their\n"
    "permission bits, in name order; other files (devices, FIFOs, sockets)\n"
    "are skipped and counted.  It prints the files, bytes and skips.\n"
    "-o passes mount options, \"key=value,...\" (as mkfs -o), for this\n"
    "write: e.g. LogFS's compress=none|zlib|lzo (docs/compression.md) or\n"
    "jffs2's compress=none|zlib|rtime|lzo, the compressor of the data\n"
    "written now (docs/jffs2-baseline.md).\n"
    FS_HELP
    "\n"
    "example: flashlab put --fs blockfs data.bin fs.img:/data.bin\n"
    "         flashlab put --fs jffs2-scan -o compress=zlib log.txt fs.img:/log.txt\n"
    "         flashlab put --fs logfs -o compress=lzo log.txt fs.img:/log.txt\n"
    "         flashlab put -r --fs jffs2-scan /usr/share/man fs.img:/man\n";

/* Stream in into path (created or truncated, mode); bytes written to *total. */
static int put_stream(struct session *s, FILE *in, const char *host, const char *path,
                      uint32_t mode, char *buf, uint64_t *total)
{
    int rc = CLI_OK;
    *total = 0;
    int fd = CALL(s, open, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        return cli_path_fail("put", fd, path);
    while (!rc) {
        size_t got = fread(buf, 1, CHUNK, in);
        if (got) {
            int64_t n = CALL(s, pwrite, fd, buf, got, *total);
            if (n < 0)
                rc = cli_path_fail("put", (int)n, path);
            else if ((uint64_t)n != got)
                rc = cli_fs_fail("put", "%s: short write (%" PRId64 " of %zu bytes)",
                             path, n, got);
            *total += got;
        }
        if (!rc && got < CHUNK) {
            if (ferror(in))
                rc = cli_fs_fail("put", "%s: read error: %s", host, strerror(errno));
            break;
        }
    }
    int crc = CALL(s, close, fd);
    if (!rc && crc)
        rc = cli_path_fail("put", crc, path);
    return rc;
}

struct put_count {
    uint64_t files, bytes, skipped;
};

static int no_dots(const struct dirent *d)
{
    return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* put -r: host directory host into the directory path (made when missing). */
static int put_tree(struct session *s, const char *host, const char *path, uint32_t mode,
                    char *buf, struct put_count *n)
{
    int rc = CALL(s, mkdir, path, mode);
    if (rc && rc != -EEXIST)
        return cli_path_fail("put", rc, path);
    struct dirent **ents;
    int k = scandir(host, &ents, no_dots, alphasort);
    if (k < 0)
        return cli_fs_fail("put", "%s: cannot read directory: %s", host, strerror(errno));
    rc = CLI_OK;
    for (int i = 0; i < k; i++) {
        char *h = join(host, ents[i]->d_name), *p = join(path, ents[i]->d_name);
        struct stat st;
        if (!h || !p)
            rc = cli_fs_fail("put", "out of memory");
        else if (lstat(h, &st))
            rc = cli_fs_fail("put", "%s: cannot stat: %s", h, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = put_tree(s, h, p, (uint32_t)st.st_mode & 07777, buf, n);
        else if (S_ISREG(st.st_mode)) {
            FILE *in = fopen(h, "rb");
            uint64_t got = 0;
            if (!in)
                rc = cli_fs_fail("put", "%s: cannot open: %s", h, strerror(errno));
            else {
                rc = put_stream(s, in, h, p, (uint32_t)st.st_mode & 07777, buf, &got);
                fclose(in);
            }
            n->files++;
            n->bytes += got;
        } else if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t len = readlink(h, target, sizeof target - 1);
            if (len < 0)
                rc = cli_fs_fail("put", "%s: cannot read link: %s", h, strerror(errno));
            else {
                target[len] = 0;
                int lrc = CALL(s, symlink, target, p);
                if (lrc)
                    rc = cli_path_fail("put", lrc, p);
                n->files++;
            }
        } else
            n->skipped++;
        free(h);
        free(p);
        if (rc)
            break;
    }
    for (int i = 0; i < k; i++)
        free(ents[i]);
    free(ents);
    return rc;
}

int cmd_put(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
                                         {"options", required_argument, 0, 'o'},
                                         {"recursive", no_argument, 0, 'r'}, {0, 0, 0, 0}};
    int c, recursive = 0;
    const struct fsapi *kind = NULL;
    const char *o = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:r", opts, NULL)) != -1) {
        switch (c) {
        case 'F':
            if (cli_parse_kind("put", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'o': o = optarg; break;
        case 'r': recursive = 1; break;
        case 'h': return cli_fs_help(put_help);
        default: return cli_usage_error("put", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("put", recursive ? "expected HOSTDIR and IMAGE:/dir"
                                                : "expected HOSTFILE and IMAGE:/path");
    char oerr[1024];
    if (o && !kind)
        return cli_usage_error("put", "-o: needs --fs KIND");
    if (o && fsapi_check_options(kind, o, oerr, sizeof oerr))
        return cli_usage_error("put", "-o: %s", oerr);
    cli_session_set_options(o);
    const char *host = argv[optind];
    struct target t;
    if (cli_parse_target("put", argv[optind + 1], recursive, &t))
        return CLI_USAGE;
    int from_stdin = !recursive && !strcmp(host, "-");
    FILE *in = NULL;
    struct stat hst;
    uint32_t mode = 0644;
    int rc = CLI_OK;
    if (recursive) {
        if (stat(host, &hst))
            rc = cli_fs_fail("put", "%s: cannot stat: %s", host, strerror(errno));
        else if (!S_ISDIR(hst.st_mode))
            rc = cli_fs_fail("put", "%s: -r needs a directory", host);
        mode = (uint32_t)hst.st_mode & 07777;
    } else if (!(in = from_stdin ? stdin : fopen(host, "rb")))
        rc = cli_fs_fail("put", "%s: cannot open: %s", host, strerror(errno));
    else if (fstat(fileno(in), &hst))
        rc = cli_fs_fail("put", "%s: cannot stat: %s", host, strerror(errno));
    else if (S_ISDIR(hst.st_mode))
        rc = cli_fs_fail("put", "%s: is a directory (put -r copies a tree)", host);
    else if (S_ISREG(hst.st_mode))
        mode = (uint32_t)hst.st_mode & 0777;
    struct session s;
    if (rc || (rc = cli_session_open(&s, "put", t.image, kind, 1))) {
        if (in && !from_stdin)
            fclose(in);
        free(t.image);
        return rc;
    }
    uint64_t total = 0;
    struct put_count n = {0, 0, 0};
    char *buf = malloc(CHUNK);
    if (!buf)
        rc = cli_fs_fail("put", "out of memory");
    else if (recursive)
        rc = put_tree(&s, host, t.path, mode, buf, &n);
    else
        rc = put_stream(&s, in, host, t.path, mode, buf, &total);
    free(buf);
    if (in && !from_stdin)
        fclose(in);
    rc = cli_session_close(&s, rc, 1);
    if (!rc && recursive)
        printf("%s: %" PRIu64 " files, %" PRIu64 " bytes, %" PRIu64 " skipped\n", t.path,
               n.files, n.bytes, n.skipped);
    else if (!rc)
        printf("%s: %" PRIu64 " bytes\n", t.path, total);
    free(t.image);
    return rc;
}

/* ---- mkdir ------------------------------------------------------------------------ */

static const char mkdir_help[] =
    "usage: flashlab mkdir [-p] [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Make directories in the file system on IMAGE.  -p makes missing parents\n"
    "too and accepts directories that already exist.\n"
    FS_HELP
    "\n"
    "example: flashlab mkdir -p --fs jffs2-scan fs.img:/a/b\n";

static int mkdir_one(struct session *s, const char *path, int parents)
{
    if (!parents) {
        int rc = CALL(s, mkdir, path, 0755);
        return rc ? cli_path_fail(s->cmd, rc, path) : CLI_OK;
    }
    char *p = strdup(path);
    if (!p)
        return cli_fs_fail(s->cmd, "out of memory");
    size_t n = strlen(p);
    int rc = CLI_OK;
    for (size_t i = 1; i <= n && !rc; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        if (p[i - 1] == '/')
            continue; /* a run of slashes */
        char save = p[i];
        p[i] = 0;
        int frc = CALL(s, mkdir, p, 0755);
        if (frc == -EEXIST) {
            struct fs_stat st;
            frc = CALL(s, stat, p, &st);
            if (!frc && !S_ISDIR(st.mode))
                frc = -ENOTDIR;
        }
        if (frc)
            rc = cli_path_fail(s->cmd, frc, p);
        p[i] = save;
    }
    free(p);
    return rc;
}

int cmd_mkdir(int argc, char **argv)
{
    static const struct option opts[] = {
        {"parents", no_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'}, {0, 0, 0, 0}};
    int parents = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ph", opts, NULL)) != -1) {
        switch (c) {
        case 'p': parents = 1; break;
        case 'F':
            if (cli_parse_kind("mkdir", optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(mkdir_help);
        default: return cli_usage_error("mkdir", "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error("mkdir", "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return cli_fs_fail("mkdir", "out of memory");
    int rc = parse_targets("mkdir", argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = cli_session_open(&s, "mkdir", t[0].image, kind, 1))) {
        for (int i = 0; i < n && !rc; i++)
            rc = mkdir_one(&s, t[i].path, parents);
        rc = cli_session_close(&s, rc, 1);
    }
    free_targets(t, n);
    return rc;
}

/* ---- rm / rmdir --------------------------------------------------------------------- */

static const char rm_help[] =
    "usage: flashlab rm [-r] [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Remove files, symbolic links and empty directories from the file system\n"
    "on IMAGE.  -r removes directories with everything in them.\n"
    FS_HELP
    "\n"
    "example: flashlab rm -r --fs blockfs fs.img:/a\n";

static const char rmdir_help[] =
    "usage: flashlab rmdir [--fs KIND] IMAGE:/path...\n"
    "\n"
    "Remove empty directories from the file system on IMAGE.\n"
    FS_HELP
    "\n"
    "example: flashlab rmdir --fs jffs2-scan fs.img:/a/b\n";

static int rm_one(struct session *s, const char *path, int recursive)
{
    struct fs_stat st;
    int rc = CALL(s, lstat, path, &st);
    if (rc)
        return cli_path_fail(s->cmd, rc, path);
    if (!S_ISDIR(st.mode)) {
        rc = CALL(s, unlink, path);
        return rc ? cli_path_fail(s->cmd, rc, path) : CLI_OK;
    }
    if (is_root(path))
        return cli_fs_fail(s->cmd, "cannot remove the root directory");
    if (recursive) {
        struct listing l;
        if ((rc = list_dir(s, path, &l)))
            return cli_path_fail(s->cmd, rc, path);
        for (size_t i = 0; i < l.n && !rc; i++) {
            char *p = join(path, l.v[i].name);
            rc = p ? rm_one(s, p, 1) : cli_fs_fail(s->cmd, "out of memory");
            free(p);
        }
        listing_free(&l);
        if (rc)
            return rc;
    }
    rc = CALL(s, rmdir, path);
    if (rc == -ENOTEMPTY && !recursive)
        return cli_fs_fail(s->cmd, "%s (use rm -r): %s", cli_errmsg(rc), path);
    return rc ? cli_path_fail(s->cmd, rc, path) : CLI_OK;
}

static int rm_main(int argc, char **argv, const char *cmd, int is_rmdir)
{
    static const struct option opts[] = {
        {"recursive", no_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
        {0, 0, 0, 0}};
    int recursive = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, is_rmdir ? "h" : "rRh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': case 'R':
            if (is_rmdir)
                return cli_usage_error(cmd, "bad option");
            recursive = 1;
            break;
        case 'F':
            if (cli_parse_kind(cmd, optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(is_rmdir ? rmdir_help : rm_help);
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (optind >= argc)
        return cli_usage_error(cmd, "expected IMAGE:/path");
    int n = argc - optind;
    struct target *t = calloc((size_t)n, sizeof *t);
    if (!t)
        return cli_fs_fail(cmd, "out of memory");
    int rc = parse_targets(cmd, argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = cli_session_open(&s, cmd, t[0].image, kind, 1))) {
        for (int i = 0; i < n && !rc; i++) {
            if (!is_rmdir) {
                rc = rm_one(&s, t[i].path, recursive);
            } else if (is_root(t[i].path)) {
                rc = cli_fs_fail(cmd, "cannot remove the root directory");
            } else {
                int frc = CALL(&s, rmdir, t[i].path);
                rc = frc ? cli_path_fail(cmd, frc, t[i].path) : CLI_OK;
            }
        }
        rc = cli_session_close(&s, rc, 1);
    }
    free_targets(t, n);
    return rc;
}

int cmd_rm(int argc, char **argv)
{
    return rm_main(argc, argv, "rm", 0);
}

int cmd_rmdir(int argc, char **argv)
{
    return rm_main(argc, argv, "rmdir", 1);
}

/* ---- ln / mv -------------------------------------------------------------------------- */

static const char ln_help[] =
    "usage: flashlab ln [-s] [--fs KIND] IMAGE:/target IMAGE:/linkname\n"
    "\n"
    "Make a hard link /linkname to the file /target in the file system on\n"
    "IMAGE; -s makes a symbolic link holding the path /target instead (which\n"
    "need not exist).  When /linkname is a directory the link goes into it.\n"
    "A file system without links says so.\n"
    FS_HELP
    "\n"
    "example: flashlab ln -s --fs jffs2-scan fs.img:/a/b fs.img:/link\n";

static const char mv_help[] =
    "usage: flashlab mv [--fs KIND] IMAGE:/from IMAGE:/to\n"
    "\n"
    "Rename /from to /to in the file system on IMAGE, replacing a file (or\n"
    "empty directory) /to.  When /to is a directory, /from moves into it.\n"
    FS_HELP
    "\n"
    "example: flashlab mv --fs blockfs fs.img:/a/f fs.img:/g\n";

/* dst, or dst/basename(src) when dst is an existing directory. */
static char *destination(struct session *s, const char *src, const char *dst)
{
    struct fs_stat st;
    size_t bl;
    const char *b = base_name(src, &bl);
    if (CALL(s, stat, dst, &st) || !S_ISDIR(st.mode) || !bl)
        return strdup(dst);
    char *name = strndup(b, bl);
    char *p = name ? join(dst, name) : NULL;
    free(name);
    return p;
}

static int link_main(int argc, char **argv, const char *cmd)
{
    static const struct option opts[] = {
        {"symbolic", no_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {"fs", required_argument, 0, 'F'},
        {0, 0, 0, 0}};
    int is_mv = !strcmp(cmd, "mv"), sym = 0, c;
    const struct fsapi *kind = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, is_mv ? "h" : "sh", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (is_mv)
                return cli_usage_error(cmd, "bad option");
            sym = 1;
            break;
        case 'F':
            if (cli_parse_kind(cmd, optarg, &kind))
                return CLI_USAGE;
            break;
        case 'h': return cli_fs_help(is_mv ? mv_help : ln_help);
        default: return cli_usage_error(cmd, "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(cmd, is_mv ? "expected IMAGE:/from and IMAGE:/to"
                                          : "expected IMAGE:/target and IMAGE:/linkname");
    struct target *t = calloc(2, sizeof *t);
    if (!t)
        return cli_fs_fail(cmd, "out of memory");
    int rc = parse_targets(cmd, argc, argv, optind, t);
    struct session s;
    if (!rc && !(rc = cli_session_open(&s, cmd, t[0].image, kind, 1))) {
        const char *src = t[0].path;
        char *dst = destination(&s, src, t[1].path);
        int frc = !dst ? -ENOMEM
                : is_mv ? CALL(&s, rename, src, dst)
                : sym ? CALL(&s, symlink, src, dst)
                : CALL(&s, link, src, dst);
        struct fs_stat st;
        int src_rc = sym || !frc ? 0 : CALL(&s, lstat, src, &st);
        if (!frc)
            rc = CLI_OK;
        else if (!dst)
            rc = cli_fs_fail(cmd, "out of memory");
        else if (src_rc) /* the source is what is wrong */
            rc = cli_path_fail(cmd, src_rc, src);
        else if (is_mv && frc == -EINVAL)
            rc = cli_fs_fail(cmd, "cannot move a directory into itself: %s -> %s",
                         src, dst);
        else if (frc == -EBUSY)
            rc = cli_fs_fail(cmd, "cannot %s the root directory",
                         is_mv ? "move or replace" : "link");
        else if (!is_mv && frc == -EPERM)
            rc = cli_fs_fail(cmd, "cannot hard-link a directory: %s", src);
        else
            rc = cli_path_fail(cmd, frc, dst);
        free(dst);
        rc = cli_session_close(&s, rc, 1);
    }
    free_targets(t, 2);
    return rc;
}

int cmd_ln(int argc, char **argv)
{
    return link_main(argc, argv, "ln");
}

int cmd_mv(int argc, char **argv)
{
    return link_main(argc, argv, "mv");
}

