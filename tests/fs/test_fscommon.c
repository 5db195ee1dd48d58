/*
 * test_fscommon.c -- the pieces every fs shares (fs/fscommon.h): the fd
 * table (lowest free fd, growth, EBADF, EMFILE, the RAM it reports), the
 * path component iterator (repeated slashes, "." and "..", trailing
 * slashes, the 255- and 4095-byte limits) and the open-flag checks; and
 * the same errors from every baseline that uses them (jffs2, blockfs);
 * and sim/le.h, the one copy of the little-endian field helpers.
 */
#include "fscommon.h"
#include "fsapi.h"
#include "le.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

TEST(fd_lowest_free_and_ebadf)
{
    uint64_t mem = 100;
    struct fs_fdtab t = {.mem = &mem};
    struct fs_fd *f;
    CHECK_EQ_INT(fs_fd_get(&t, 0, &f), -EBADF); /* empty table */
    CHECK_EQ_INT(fs_fd_alloc(&t, 7, O_RDONLY), 0);
    CHECK_EQ_INT(fs_fd_alloc(&t, 8, O_WRONLY), 1);
    CHECK_EQ_INT(fs_fd_alloc(&t, 7, O_RDWR), 2);
    CHECK_EQ_INT(mem, 100 + fs_fdtab_bytes(&t));
    REQUIRE(fs_fd_get(&t, 1, &f) == 0);
    CHECK_EQ_INT(f->ino, 8);
    CHECK_EQ_INT(f->flags, O_WRONLY);
    CHECK_EQ_INT(f->pos, 0);
    CHECK_EQ_INT(fs_fd_count(&t, 7), 2);
    fs_fd_release(&t, 1);
    CHECK_EQ_INT(fs_fd_get(&t, 1, &f), -EBADF);
    CHECK_EQ_INT(fs_fd_get(&t, -1, &f), -EBADF);
    CHECK_EQ_INT(fs_fd_get(&t, 1 << 30, &f), -EBADF);
    fs_fd_release(&t, -1);     /* not open: nothing happens */
    fs_fd_release(&t, 99999);
    CHECK_EQ_INT(fs_fd_alloc(&t, 9, O_RDONLY), 1); /* the hole is reused */
    CHECK_EQ_INT(fs_fd_count(&t, 8), 0);
    fs_fdtab_free(&t);
    CHECK_EQ_INT(mem, 100);
    CHECK_EQ_INT(fs_fdtab_bytes(&t), 0);
    CHECK_EQ_INT(fs_fd_alloc(&t, 1, O_RDONLY), 0); /* usable again */
    fs_fdtab_free(&t);
}

/* The one check every fs makes of an fd (issue #28): open, and opened for
 * the reading or writing the call needs, else -EBADF. */
TEST(fd_check_needs)
{
    struct fs_fdtab t = {0};
    struct fs_fd *f;
    REQUIRE(fs_fd_alloc(&t, 7, O_RDONLY) == 0 && fs_fd_alloc(&t, 8, O_WRONLY) == 1 &&
            fs_fd_alloc(&t, 9, O_RDWR) == 2);
    CHECK_EQ_INT(fs_fd_check(&t, 0, FS_FD_READ, &f), 0);
    CHECK_EQ_INT(f->ino, 7);
    CHECK_EQ_INT(fs_fd_check(&t, 0, FS_FD_WRITE, &f), -EBADF);
    CHECK_EQ_INT(fs_fd_check(&t, 1, FS_FD_READ, &f), -EBADF);
    CHECK_EQ_INT(fs_fd_check(&t, 1, FS_FD_WRITE, &f), 0);
    CHECK_EQ_INT(fs_fd_check(&t, 2, FS_FD_READ, &f), 0);
    CHECK_EQ_INT(fs_fd_check(&t, 2, FS_FD_WRITE, &f), 0);
    CHECK_EQ_INT(fs_fd_check(&t, 1, FS_FD_OPEN, &f), 0);
    CHECK_EQ_INT(fs_fd_check(&t, 3, FS_FD_OPEN, &f), -EBADF);
    CHECK_EQ_INT(fs_fd_check(&t, -1, FS_FD_READ, &f), -EBADF);
    fs_fdtab_free(&t);
}

TEST(fd_grows_to_the_limit)
{
    struct fs_fdtab t = {0};
    int fd = 0;
    for (int i = 0; i < FS_FD_MAX && fd >= 0; i++)
        if ((fd = fs_fd_alloc(&t, (uint64_t)i, O_RDONLY)) != i)
            break;
    CHECK_EQ_INT(fd, FS_FD_MAX - 1);
    CHECK_EQ_INT(fs_fd_alloc(&t, 1, O_RDONLY), -EMFILE);
    fs_fd_release(&t, 12345);
    CHECK_EQ_INT(fs_fd_alloc(&t, 1, O_RDONLY), 12345);
    fs_fdtab_free(&t);
}

TEST(fd_iteration)
{
    struct fs_fdtab t = {0};
    CHECK_EQ_INT(fs_fd_next(&t, 0), -1);
    for (int i = 0; i < 40; i++)
        fs_fd_alloc(&t, 1, O_RDONLY);
    for (int i = 0; i < 40; i++)
        if (i % 3)
            fs_fd_release(&t, i);
    int n = 0, fd;
    for (fd = fs_fd_next(&t, 0); fd >= 0; fd = fs_fd_next(&t, fd + 1)) {
        CHECK_EQ_INT(fd % 3, 0);
        n++;
    }
    CHECK_EQ_INT(n, 14);
    CHECK_EQ_INT(fs_fd_count(&t, 1), 14);
    CHECK_EQ_INT(fs_fd_next(&t, -5), 0);
    fs_fdtab_free(&t);
}

/* The components of path as "name|name|..." with . and .. marked, and
 * the last one's trailing slash as a final '/'. */
static int split(const char *path, char *out, size_t cap)
{
    struct fs_comp c;
    size_t pos = 0, o = 0;
    int rc;
    out[0] = 0;
    while ((rc = fs_path_comp(path, pos, &c)) == 1) {
        const char *tag = c.kind == FS_COMP_DOT ? "<.>" : c.kind == FS_COMP_DOTDOT ? "<..>" : "";
        o += (size_t)snprintf(out + o, cap - o, "%s%s%.*s%s", o ? "|" : "", tag,
                              c.kind == FS_COMP_NAME ? (int)c.len : 0, c.name,
                              c.last && c.slash ? "/" : "");
        if (c.last != !path[c.next] || c.end != (size_t)(c.name - path) + c.len)
            return -1000;
        pos = c.next;
    }
    return rc;
}

TEST(path_components)
{
    char s[256];
    CHECK(split("/", s, sizeof s) == 0 && !strcmp(s, ""));
    CHECK(split("///", s, sizeof s) == 0 && !strcmp(s, ""));
    CHECK(split("/a", s, sizeof s) == 0 && !strcmp(s, "a"));
    CHECK(split("//a///bc//", s, sizeof s) == 0 && !strcmp(s, "a|bc/"));
    CHECK(split("/./a/../b/...", s, sizeof s) == 0 && !strcmp(s, "<.>|a|<..>|b|..."));
    CHECK(split("/.x/..y/.", s, sizeof s) == 0 && !strcmp(s, ".x|..y|<.>"));
    /* the offsets a link splice needs: end is where the rest starts */
    struct fs_comp c;
    REQUIRE(fs_path_comp("/dir//link/x", 5, &c) == 1);
    CHECK(c.len == 4 && !memcmp(c.name, "link", 4));
    CHECK_EQ_INT(c.end, 10);
    CHECK_EQ_INT(c.next, 11);
    CHECK(!c.last && c.slash);
    REQUIRE(fs_path_comp("/dir//link/x", c.next, &c) == 1);
    CHECK(c.last && !c.slash && c.kind == FS_COMP_NAME);
}

TEST(path_limits)
{
    static char p[FS_PATH_MAX + 2];
    CHECK_EQ_INT(fs_path_check(NULL), -EINVAL);
    CHECK_EQ_INT(fs_path_check(""), -EINVAL);
    CHECK_EQ_INT(fs_path_check("a/b"), -EINVAL);
    CHECK_EQ_INT(fs_path_check("/a/b"), 0);
    /* a component of 255 bytes is fine, of 256 not */
    p[0] = '/';
    memset(p + 1, 'n', FS_NAME_MAX);
    p[1 + FS_NAME_MAX] = 0;
    struct fs_comp c;
    CHECK_EQ_INT(fs_path_comp(p, 0, &c), 1);
    CHECK_EQ_INT(c.len, FS_NAME_MAX);
    strcat(p, "n/x");
    CHECK_EQ_INT(fs_path_comp(p, 0, &c), -ENAMETOOLONG);
    /* 4095 bytes in all is fine, 4096 not */
    for (size_t i = 0; i < FS_PATH_MAX - 1; i++)
        p[i] = i % 100 ? 'd' : '/';
    p[FS_PATH_MAX - 1] = 0;
    CHECK_EQ_INT(fs_path_check(p), 0);
    p[FS_PATH_MAX - 1] = 'd';
    p[FS_PATH_MAX] = 0;
    CHECK_EQ_INT(fs_path_check(p), -ENAMETOOLONG);
}

TEST(open_flags)
{
    CHECK_EQ_INT(fs_open_check(O_RDONLY), 0);
    CHECK_EQ_INT(fs_open_check(O_WRONLY | O_CREAT | O_TRUNC), 0);
    CHECK_EQ_INT(fs_open_check(O_RDWR | O_APPEND), 0);
    CHECK_EQ_INT(fs_open_check(O_ACCMODE), -EINVAL);
    CHECK(fs_open_excl(O_CREAT | O_EXCL | O_WRONLY));
    CHECK(!fs_open_excl(O_EXCL | O_WRONLY));
    CHECK(!fs_open_excl(O_CREAT | O_WRONLY));
    CHECK(!fs_open_writes(O_RDONLY));
    CHECK(!fs_open_writes(O_RDONLY | O_NOFOLLOW | O_APPEND));
    CHECK(fs_open_writes(O_RDONLY | O_CREAT));
    CHECK(fs_open_writes(O_RDONLY | O_TRUNC));
    CHECK(fs_open_writes(O_WRONLY));
    CHECK(fs_open_writes(O_RDWR));
    CHECK(!fs_open_truncates(O_RDONLY | O_TRUNC));
    CHECK(fs_open_truncates(O_WRONLY | O_TRUNC));
    CHECK(!fs_open_truncates(O_RDWR));
    /* an existing inode: EEXIST first, then EISDIR, then ELOOP */
    CHECK_EQ_INT(fs_open_existing(O_RDWR | O_CREAT | O_EXCL, S_IFDIR | 0755), -EEXIST);
    CHECK_EQ_INT(fs_open_existing(O_RDONLY | O_CREAT | O_EXCL, S_IFREG | 0644), -EEXIST);
    CHECK_EQ_INT(fs_open_existing(O_WRONLY, S_IFDIR | 0755), -EISDIR);
    CHECK_EQ_INT(fs_open_existing(O_RDWR, S_IFDIR | 0755), -EISDIR);
    CHECK_EQ_INT(fs_open_existing(O_RDONLY, S_IFDIR | 0755), 0);
    CHECK_EQ_INT(fs_open_existing(O_RDONLY | O_NOFOLLOW, S_IFLNK | 0777), -ELOOP);
    CHECK_EQ_INT(fs_open_existing(O_RDWR | O_CREAT | O_TRUNC, S_IFREG | 0644), 0);
    CHECK(fs_fd_readable(O_RDONLY) && fs_fd_readable(O_RDWR) && !fs_fd_readable(O_WRONLY));
    CHECK(!fs_fd_writable(O_RDONLY) && fs_fd_writable(O_RDWR) && fs_fd_writable(O_WRONLY));
}

TEST(le_fields)
{
    uint8_t b[10] = {0};
    le16_put(b, 0xA1B2);
    CHECK(b[0] == 0xB2 && b[1] == 0xA1);
    CHECK_EQ_INT(le16_get(b), 0xA1B2);
    le32_put(b + 1, 0x01020304u);
    CHECK(b[1] == 4 && b[2] == 3 && b[3] == 2 && b[4] == 1);
    CHECK_EQ_INT(le32_get(b + 1), 0x01020304u);
    le64_put(b + 2, 0xF0E0D0C0B0A09080ull);
    CHECK(b[2] == 0x80 && b[9] == 0xF0);
    CHECK(le64_get(b + 2) == 0xF0E0D0C0B0A09080ull);
    CHECK_EQ_INT(le32_get(b + 6), 0xF0E0D0C0u); /* the high half */
}

static nand_dev *device(void)
{
    struct nand_config c;
    nand_config_init(&c);
    c.geo.blocks_per_plane = 64;
    c.geo.pages_per_block = 32;
    c.geo.page_size = 2048;
    c.geo.oob_size = 64;
    nand_dev *d = NULL;
    return nand_create(&c, &d) ? NULL : d;
}

/* Each baseline through the table: what the shared pieces decide. */
TEST(baselines_share_the_errors)
{
    static const char *names[] = {"jffs2-scan", "blockfs"};
    static char longpath[FS_PATH_MAX + 1], longname[FS_NAME_MAX + 3];
    for (size_t i = 0; i < FS_PATH_MAX; i++)
        longpath[i] = i % 200 ? 'p' : '/';
    longname[0] = '/';
    memset(longname + 1, 'n', FS_NAME_MAX + 1);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const struct fsapi *A = fsapi_find(names[k]);
        nand_dev *d = device();
        void *fs;
        REQUIRE(A && d);
        REQUIRE(A->mkfs(d, NULL) == 0 && A->mount(d, NULL, &fs) == 0);
        CHECK_EQ_INT(A->mkdir(fs, "/d", 0755), 0);
        int fd0 = A->open(fs, "//d//f", O_RDWR | O_CREAT, 0644);
        CHECK_EQ_INT(fd0, 0);
        CHECK_EQ_INT(A->open(fs, "/d/f", O_ACCMODE, 0), -EINVAL);
        CHECK_EQ_INT(A->open(fs, "/d/f", O_WRONLY | O_CREAT | O_EXCL, 0644), -EEXIST);
        CHECK_EQ_INT(A->open(fs, "/d", O_WRONLY, 0), -EISDIR);
        CHECK_EQ_INT(A->symlink(fs, "/d/f", "/l"), 0);
        CHECK_EQ_INT(A->open(fs, "/l", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
        CHECK_EQ_INT(A->open(fs, "d/f", O_RDONLY, 0), -EINVAL);
        CHECK_EQ_INT(A->open(fs, "/d/./f", O_RDONLY, 0), -EINVAL); /* canonical only */
        CHECK_EQ_INT(A->open(fs, longname, O_RDONLY, 0), -ENAMETOOLONG);
        CHECK_EQ_INT(A->open(fs, longpath, O_RDONLY, 0), -ENAMETOOLONG);
        /* lowest free fd; a read-only fd refuses writes, a write-only one reads */
        int fd1 = A->open(fs, "/l", O_RDONLY, 0), fd2 = A->open(fs, "/d/f", O_WRONLY, 0);
        CHECK(fd1 == 1 && fd2 == 2);
        CHECK_EQ_INT(A->pwrite(fs, fd1, "x", 1, 0), -EBADF);
        char b[4];
        CHECK_EQ_INT(A->pread(fs, fd2, b, 1, 0), -EBADF);
        CHECK_EQ_INT(A->close(fs, fd1), 0);
        CHECK_EQ_INT(A->close(fs, fd1), -EBADF);
        CHECK_EQ_INT(A->open(fs, "/d/f", O_RDONLY, 0), 1);
        CHECK_EQ_INT(A->close(fs, 99), -EBADF);
        CHECK_EQ_INT(A->unmount(fs), 0);
        nand_close(d);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(fd_lowest_free_and_ebadf);
    RUN(fd_check_needs);
    RUN(fd_grows_to_the_limit);
    RUN(fd_iteration);
    RUN(path_components);
    RUN(path_limits);
    RUN(open_flags);
    RUN(baselines_share_the_errors);
    RUN(le_fields);
    return test_summary(argv[0]);
}
