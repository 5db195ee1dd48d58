/*
 * test_lfs_xattr.c -- extended attributes and special files in LogFS
 * (docs/FORMAT.md 13a): the calls' contract against a simple model (size
 * queries, ERANGE, CREATE/REPLACE, limits), what survives a remount, and
 * that deleting a file deletes its attribute inode.
 */
#include "lfs_fixture.h"
#include "logfs/logfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

static logfs *fresh(nand_dev **d)
{
    return LFS_FX_MOUNTED(d, .blocks = 256, .pages = 32);
}

static void put(logfs *fs, const char *path)
{
    int fd = logfs_open(fs, path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && logfs_write(fs, fd, "x", 1) == 1 && logfs_close(fs, fd) == 0);
}

TEST(get_set_list_remove)
{
    nand_dev *d;
    logfs *fs = fresh(&d);
    REQUIRE(fs);
    put(fs, "/f");
    char buf[64];
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.a", buf, sizeof buf), -ENODATA);
    CHECK_EQ_INT(logfs_listxattr(fs, "/f", buf, sizeof buf), 0);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.a", "hello", 5, LOGFS_XATTR_REPLACE), -ENODATA);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.a", "hello", 5, LOGFS_XATTR_CREATE), 0);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.a", "again", 5, LOGFS_XATTR_CREATE), -EEXIST);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.", "x", 1, 0), -EINVAL);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "other.a", "x", 1, 0), -ENOTSUP);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.a", "x", 1, 4), -EINVAL);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "security.selinux", "", 0, 0), 0); /* empty value */
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.a", NULL, 0), 5); /* the size */
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.a", buf, 4), -ERANGE);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.a", buf, sizeof buf), 5);
    CHECK(!memcmp(buf, "hello", 5));
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "security.selinux", buf, sizeof buf), 0);
    /* names NUL-ended, sorted: "security.selinux\0user.a\0" */
    CHECK_EQ_INT(logfs_listxattr(fs, "/f", NULL, 0), 24);
    CHECK_EQ_INT(logfs_listxattr(fs, "/f", buf, 23), -ERANGE);
    CHECK_EQ_INT(logfs_listxattr(fs, "/f", buf, sizeof buf), 24);
    CHECK(!memcmp(buf, "security.selinux\0user.a\0", 24));
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.a", "hi", 2, LOGFS_XATTR_REPLACE), 0);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.a", buf, sizeof buf), 2);
    CHECK_EQ_INT(logfs_removexattr(fs, "/f", "user.a"), 0);
    CHECK_EQ_INT(logfs_removexattr(fs, "/f", "user.a"), -ENODATA);
    CHECK_EQ_INT(logfs_getxattr(fs, "/nope", "user.a", buf, sizeof buf), -ENOENT);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    nand_close(d);
}

TEST(limits)
{
    nand_dev *d;
    logfs *fs = fresh(&d);
    REQUIRE(fs);
    put(fs, "/f");
    char name[300] = "user.";
    memset(name + 5, 'n', 250);
    name[255] = 0; /* 255 bytes: the longest */
    uint8_t *big = calloc(1, 65537);
    REQUIRE(big);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", name, "v", 1, 0), 0);
    name[255] = 'n';
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", name, "v", 1, 0), -ERANGE);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.big", big, 65536, 0), 0);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "user.big", big, 65537, 0), -E2BIG);
    /* 1 MiB of list per file: 15 more of 64 KiB do not fit */
    int rc = 0, i;
    for (i = 0; i < 20 && !rc; i++) {
        char n[32];
        snprintf(n, sizeof n, "user.v%02d", i);
        rc = logfs_setxattr(fs, "/f", n, big, 65536, 0);
    }
    CHECK_EQ_INT(rc, -ENOSPC);
    CHECK_EQ_INT(i, 15);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "user.big", big, 65536), 65536);
    free(big);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    nand_close(d);
}

/* On flash: a remount reads them back; unlinking the owner takes the
 * attribute inode with it (the inode count goes back). */
TEST(persist_and_delete)
{
    nand_dev *d;
    logfs *fs = fresh(&d);
    REQUIRE(fs);
    struct fs_statfs s0, s1, s2;
    CHECK_EQ_INT(logfs_statfs(fs, &s0), 0);
    put(fs, "/f");
    CHECK_EQ_INT(logfs_mkdir(fs, "/dir", 0755), 0);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", "trusted.t", "tv", 2, 0), 0);
    CHECK_EQ_INT(logfs_setxattr(fs, "/dir", "user.d", "dv", 2, 0), 0);
    CHECK_EQ_INT(logfs_mknod(fs, "/chr", S_IFCHR | 0600, 0x0103), 0);
    CHECK_EQ_INT(logfs_mknod(fs, "/bad", S_IFDIR | 0600, 0), -EINVAL);
    CHECK_EQ_INT(logfs_setxattr(fs, "/chr", "user.x", "v", 1, 0), -EPERM);
    CHECK_EQ_INT(logfs_open(fs, "/chr", O_RDONLY, 0), -ENXIO);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    char buf[8];
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "trusted.t", buf, sizeof buf), 2);
    CHECK_EQ_INT(logfs_getxattr(fs, "/dir", "user.d", buf, sizeof buf), 2);
    struct fs_stat st;
    CHECK_EQ_INT(logfs_lstat(fs, "/chr", &st), 0);
    CHECK(S_ISCHR(st.mode) && st.rdev == 0x0103 && st.size == 0);
    CHECK_EQ_INT(logfs_statfs(fs, &s1), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/f"), 0);
    CHECK_EQ_INT(logfs_rmdir(fs, "/dir"), 0);
    CHECK_EQ_INT(logfs_unlink(fs, "/chr"), 0);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK_EQ_INT(logfs_statfs(fs, &s2), 0);
    CHECK_EQ_INT(s2.free_bytes, s0.free_bytes);
    CHECK(s1.free_bytes < s0.free_bytes);
    CHECK_EQ_INT(logfs_unmount(fs), 0);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(get_set_list_remove);
    RUN(limits);
    RUN(persist_and_delete);
    return test_summary(argv[0]);
}
