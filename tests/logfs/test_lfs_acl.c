/*
 * test_lfs_acl.c -- POSIX ACLs: the xattr form's checks and Linux's
 * mode arithmetic (fs/posixacl.c: the mode an access ACL gives, chmod on
 * an ACL, a default ACL masked at create), and LogFS keeping an access ACL
 * and the mode as one fact: setting the ACL sets the mode, chmod rewrites
 * the ACL, an ACL the mode says alone is not kept, default ACLs only on
 * directories; through a remount, fsck clean.
 */
#include "fsck.h"
#include "lfs_fixture.h"
#include "logfs/logfs.h"
#include "posixacl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

enum { UO = 1, U = 2, GO = 4, G = 8, M = 0x10, O = 0x20 };

/* An ACL of n {tag, perm, id} entries into buf; its size. */
static size_t acl(uint8_t *buf, int n, const uint32_t (*e)[3])
{
    memset(buf, 0, 4);
    buf[0] = 2;
    for (int i = 0; i < n; i++) {
        uint8_t *p = buf + 4 + 8 * i;
        p[0] = (uint8_t)e[i][0], p[1] = 0;
        p[2] = (uint8_t)e[i][1], p[3] = 0;
        uint32_t id = e[i][2];
        p[4] = (uint8_t)id, p[5] = (uint8_t)(id >> 8), p[6] = (uint8_t)(id >> 16);
        p[7] = (uint8_t)(id >> 24);
    }
    return 4 + 8 * (size_t)n;
}
#define ACL(buf, ...) acl(buf, sizeof((const uint32_t[][3]){__VA_ARGS__}) / 12, \
                          (const uint32_t[][3]){__VA_ARGS__})
#define NOID 0xffffffffu

static uint32_t perm_at(const uint8_t *a, int i) { return a[4 + 8 * i + 2]; }

TEST(acl_form_checked)
{
    uint8_t a[64];
    size_t n = ACL(a, {UO, 6, NOID}, {GO, 4, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), 3);
    CHECK_EQ_INT(fs_acl_check(a, n - 1), -EINVAL); /* not whole entries */
    n = ACL(a, {UO, 6, NOID}, {U, 4, 1000}, {GO, 4, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* a named user needs a mask */
    n = ACL(a, {UO, 6, NOID}, {U, 4, 1000}, {U, 4, 999}, {GO, 4, NOID}, {M, 4, NOID},
            {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* ids unsorted */
    n = ACL(a, {GO, 4, NOID}, {UO, 6, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* tags unsorted */
    n = ACL(a, {UO, 8, NOID}, {GO, 4, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* permission bits past rwx */
    n = ACL(a, {UO, 6, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* no owning group */
    n = ACL(a, {UO, 6, NOID}, {GO, 4, NOID}, {O, 4, NOID});
    a[0] = 1;
    CHECK_EQ_INT(fs_acl_check(a, n), -EINVAL); /* version */
    CHECK_EQ_INT(fs_acl_name(FS_ACL_ACCESS), 1);
    CHECK_EQ_INT(fs_acl_name(FS_ACL_DEFAULT), 2);
    CHECK_EQ_INT(fs_acl_name("system.posix_acl"), 0);
}

/* Linux's fs/posix_acl.c on the same inputs (worked by hand from it). */
TEST(acl_mode_arithmetic)
{
    uint8_t a[64];
    uint32_t mode = S_IFREG | 04777;
    size_t n = ACL(a, {UO, 6, NOID}, {U, 7, 1000}, {GO, 4, NOID}, {M, 5, NOID}, {O, 0, NOID});
    CHECK_EQ_INT(fs_acl_to_mode(a, n, &mode), 1);
    CHECK_EQ_INT(mode, S_IFREG | 04650); /* the mask is the group bits */
    CHECK_EQ_INT(fs_acl_chmod(a, n, 0705), 0);
    CHECK_EQ_INT(perm_at(a, 0), 7);
    CHECK_EQ_INT(perm_at(a, 1), 7); /* named entries stay */
    CHECK_EQ_INT(perm_at(a, 2), 4);
    CHECK_EQ_INT(perm_at(a, 3), 0); /* the mask takes the group bits */
    CHECK_EQ_INT(perm_at(a, 4), 5);
    n = ACL(a, {UO, 7, NOID}, {GO, 5, NOID}, {O, 1, NOID});
    mode = 0;
    CHECK_EQ_INT(fs_acl_to_mode(a, n, &mode), 0); /* the mode says it all */
    CHECK_EQ_INT(mode, 0751);
    CHECK_EQ_INT(fs_acl_chmod(a, n, 0640), 0);
    CHECK_EQ_INT(perm_at(a, 1), 4); /* no mask: the owning group's entry */
    /* create under a default ACL: each masks the other */
    n = ACL(a, {UO, 7, NOID}, {U, 7, 1000}, {GO, 5, NOID}, {M, 7, NOID}, {O, 5, NOID});
    mode = S_IFREG | 0664;
    CHECK_EQ_INT(fs_acl_create(a, n, &mode), 1);
    CHECK_EQ_INT(mode, S_IFREG | 0664);
    CHECK_EQ_INT(perm_at(a, 0), 6);
    CHECK_EQ_INT(perm_at(a, 1), 7);
    CHECK_EQ_INT(perm_at(a, 2), 5);
    CHECK_EQ_INT(perm_at(a, 3), 6);
    CHECK_EQ_INT(perm_at(a, 4), 4);
    n = ACL(a, {UO, 7, NOID}, {GO, 5, NOID}, {O, 0, NOID});
    mode = S_IFDIR | 0777;
    CHECK_EQ_INT(fs_acl_create(a, n, &mode), 0);
    CHECK_EQ_INT(mode, S_IFDIR | 0750);
}

static uint32_t mode_of(logfs *fs, const char *path)
{
    struct fs_stat st;
    return logfs_stat(fs, path, &st) ? 0 : st.mode;
}

TEST(logfs_keeps_acl_and_mode_one)
{
    nand_dev *d;
    logfs *fs = LFS_FX_MOUNTED(&d, .blocks = 96, .pages = 16, .seed = 4);
    REQUIRE(fs);
    int fd = logfs_open(fs, "/f", O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0 && logfs_close(fs, fd) == 0);
    REQUIRE(logfs_mkdir(fs, "/d", 0755) == 0);
    uint8_t a[64], got[64];
    size_t n = ACL(a, {UO, 6, NOID}, {U, 7, 1000}, {GO, 4, NOID}, {M, 7, NOID}, {O, 0, NOID});
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", FS_ACL_ACCESS, a, n, 0), 0);
    CHECK_EQ_INT(mode_of(fs, "/f"), S_IFREG | 0670);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", FS_ACL_ACCESS, got, sizeof got), (int64_t)n);
    CHECK(!memcmp(got, a, n));
    /* chmod rewrites the ACL in the same call */
    CHECK_EQ_INT(logfs_chmod(fs, "/f", 0750), 0);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", FS_ACL_ACCESS, got, sizeof got), (int64_t)n);
    CHECK_EQ_INT(perm_at(got, 0), 7);
    CHECK_EQ_INT(perm_at(got, 3), 5);
    CHECK_EQ_INT(perm_at(got, 4), 0);
    /* a malformed ACL, a default ACL on a file */
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", FS_ACL_ACCESS, a, n - 8, 0), -EINVAL);
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", FS_ACL_DEFAULT, a, n, 0), -EACCES);
    CHECK_EQ_INT(logfs_setxattr(fs, "/d", FS_ACL_DEFAULT, a, n, 0), 0);
    CHECK_EQ_INT(mode_of(fs, "/d"), S_IFDIR | 0755); /* a default ACL leaves the mode */
    /* an ACL the mode says alone replaces the stored one by the mode */
    n = ACL(a, {UO, 6, NOID}, {GO, 0, NOID}, {O, 4, NOID});
    CHECK_EQ_INT(logfs_setxattr(fs, "/f", FS_ACL_ACCESS, a, n, 0), 0);
    CHECK_EQ_INT(mode_of(fs, "/f"), S_IFREG | 0604);
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", FS_ACL_ACCESS, got, sizeof got), -ENODATA);
    CHECK_EQ_INT(logfs_chmod(fs, "/f", 0600), 0); /* no ACL: chmod alone */
    CHECK_EQ_INT(logfs_getxattr(fs, "/f", "system.other", got, sizeof got), -ENOTSUP);
    REQUIRE(logfs_unmount(fs) == 0);
    REQUIRE(logfs_mount(d, NULL, &fs) == 0);
    CHECK_EQ_INT(logfs_getxattr(fs, "/d", FS_ACL_DEFAULT, got, sizeof got), 4 + 5 * 8);
    CHECK_EQ_INT(mode_of(fs, "/f"), S_IFREG | 0600);
    REQUIRE(logfs_unmount(fs) == 0);
    struct fsck_report r;
    CHECK_EQ_INT(fsck_run(d, 0, &r), FSCK_CLEAN);
    fsck_report_free(&r);
    nand_close(d);
}

int main(int argc, char **argv)
{
    test_init(argc, argv);
    RUN(acl_form_checked);
    RUN(acl_mode_arithmetic);
    RUN(logfs_keeps_acl_and_mode_one);
    return test_summary(argv[0]);
}
