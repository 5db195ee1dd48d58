/* semantics.c -- POSIX behaviour programs rely on, checked on a mounted
 * file system (tests/cli/test_mount.sh builds and runs it in a fresh
 * directory of the mount).  Prints "ok NAME" or "FAIL NAME: why" per check. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE 2
#endif

static int failures;

static void check(const char *name, int good, const char *why)
{
    if (good) {
        printf("ok %s\n", name);
    } else {
        printf("FAIL %s: %s (errno %s)\n", name, why, strerror(errno));
        failures++;
    }
}

static int put(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, s, strlen(s));
    return close(fd) || n != (ssize_t)strlen(s) ? -1 : 0;
}

static int same(const char *path, const char *want)
{
    char buf[256] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n);
}

static int count_dir(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return d ? n : -1;
}

static void files(void)
{
    char buf[16384];
    /* open, unlink, read and fstat through the descriptor */
    memset(buf, 'u', sizeof buf);
    int fd = open("ou", O_RDWR | O_CREAT | O_TRUNC, 0644);
    int good = fd >= 0 && write(fd, buf, 10000) == 10000 && !unlink("ou");
    struct stat st;
    good = good && access("ou", F_OK) && pread(fd, buf, sizeof buf, 0) == 10000 &&
           !fstat(fd, &st) && st.st_size == 10000;
    check("open-unlink-read-fstat", good && write(fd, "x", 1) == 1 && !close(fd),
          "unlinked file not readable through its fd");

    /* O_APPEND: two descriptors, interleaved */
    put("ap", "abc");
    int a = open("ap", O_WRONLY | O_APPEND), b = open("ap", O_WRONLY | O_APPEND);
    good = a >= 0 && b >= 0 && write(a, "111", 3) == 3 && write(b, "222", 3) == 3 &&
           write(a, "333", 3) == 3;
    close(a), close(b);
    check("o_append", good && same("ap", "abc111222333"), "appends interleave wrongly");

    fd = open("ap", O_WRONLY | O_TRUNC);
    check("o_trunc", fd >= 0 && !fstat(fd, &st) && st.st_size == 0 && !close(fd),
          "not truncated");
    errno = 0;
    fd = open("ap", O_WRONLY | O_CREAT | O_EXCL, 0644);
    check("o_excl", fd < 0 && errno == EEXIST, "O_EXCL opened an existing file");

    /* ftruncate down, truncate up (zeros), a hole from pwrite past EOF */
    fd = open("tr", O_RDWR | O_CREAT | O_TRUNC, 0600);
    memset(buf, 'z', 5000);
    good = fd >= 0 && write(fd, buf, 5000) == 5000 && !ftruncate(fd, 100) &&
           !fstat(fd, &st) && st.st_size == 100 && !truncate("tr", 20000) &&
           pread(fd, buf, 200, 0) == 200 && buf[99] == 'z' && buf[100] == 0 &&
           pwrite(fd, "E", 1, 100000) == 1 && pread(fd, buf, 10, 50000) == 10 &&
           !memcmp(buf, "\0\0\0\0\0\0\0\0\0\0", 10) && !fstat(fd, &st) &&
           st.st_size == 100001;
    check("truncate-and-holes", good && !close(fd), "sizes or zeros wrong");

    /* punch a hole: zeros, size kept; plain preallocation unsupported */
    fd = open("ph", O_RDWR | O_CREAT | O_TRUNC, 0644);
    memset(buf, 'y', sizeof buf);
    good = fd >= 0 && write(fd, buf, sizeof buf) == (ssize_t)sizeof buf &&
           !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 8192) &&
           pread(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf && buf[4095] == 'y' &&
           buf[4096] == 0 && buf[12287] == 0 && buf[12288] == 'y' && !fstat(fd, &st) &&
           st.st_size == (off_t)sizeof buf;
    check("punch-hole", good, "punched range is not zeros");
    /* zero range: zeros inside, the size kept with KEEP_SIZE, else grown */
    off_t end = (off_t)sizeof buf;
    good = !fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 100, end) &&
           !fstat(fd, &st) && st.st_size == end && pread(fd, buf, 101, 0) == 101 &&
           buf[99] == 'y' && buf[100] == 0;
    check("zero-range-keep-size", good, "KEEP_SIZE zero range: data or size wrong");
    good = pwrite(fd, "yy", 2, end - 2) == 2 &&
           !fallocate(fd, FALLOC_FL_ZERO_RANGE, end - 1, 4096) && !fstat(fd, &st) &&
           st.st_size == end - 1 + 4096 && pread(fd, buf, 2, end - 2) == 2 && buf[0] == 'y' &&
           buf[1] == 0;
    check("zero-range-grows", good, "zero range past EOF: data or size wrong");
    close(fd);

    /* preallocation (LogFS format 6): st_blocks counts what is allocated */
    fd = open("fa", O_RDWR | O_CREAT | O_TRUNC, 0644);
    good = fd >= 0 && !fallocate(fd, 0, 0, 1 << 20) && !fstat(fd, &st) &&
           st.st_size == 1 << 20 && st.st_blocks == 2048 &&
           pread(fd, buf, 100, 600000) == 100 && !memcmp(buf, "\0\0\0\0", 4) &&
           !memcmp(buf, buf + 1, 99);
    check("fallocate", good, "fallocate 1 MiB: size, st_blocks or zeros wrong");
    good = !fallocate(fd, FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20) && !fstat(fd, &st) &&
           st.st_size == 1 << 20 && st.st_blocks == 4096;
    check("fallocate-keep-size", good, "KEEP_SIZE: size or st_blocks wrong");
    close(fd);
    /* a sparse file takes what it holds, not its size (xfstests'
     * _require_sparse_files: 50 KiB at 1.6 MiB, du at most 1 MiB) */
    fd = open("sp", O_RDWR | O_CREAT | O_TRUNC, 0644);
    memset(buf, 's', sizeof buf);
    good = fd >= 0 && pwrite(fd, buf, 4096, 1600 * 1024) == 4096 && !fsync(fd) &&
           !fstat(fd, &st) && st.st_blocks == 8;
    check("sparse-blocks", good, "a sparse file's st_blocks should count its one block");
    close(fd);

    char xv[8];
    errno = 0;
    check("xattr", !setxattr("ph", "user.a", "1", 1, 0) &&
                   getxattr("ph", "user.a", xv, sizeof xv) == 1 && xv[0] == '1',
          "user. xattrs should be kept");

    /* a shared writable mapping reaches the file */
    fd = open("mm", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char *p = fd >= 0 && !ftruncate(fd, 8192)
            ? mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    good = p != MAP_FAILED;
    if (good) {
        memcpy(p + 4096, "mapped", 6);
        good = !msync(p, 8192, MS_SYNC) && !munmap(p, 8192);
    }
    close(fd);
    fd = open("mm", O_RDONLY);
    good = good && fd >= 0 && pread(fd, buf, 6, 4096) == 6 && !memcmp(buf, "mapped", 6);
    check("mmap-shared-write", good, "mapped write not in the file");
    close(fd);
}

static void names(void)
{
    struct stat st, st2;
    put("r1", "one");
    put("r2", "two");
    check("rename-over-existing", !rename("r1", "r2") && same("r2", "one") && access("r1", F_OK),
          "rename did not replace");
    put("r1", "new");
    errno = 0;
    check("rename-noreplace", syscall(SYS_renameat2, AT_FDCWD, "r1", AT_FDCWD, "r2",
                                      RENAME_NOREPLACE) && errno == EEXIST && same("r2", "one"),
          "RENAME_NOREPLACE replaced");
    check("rename-noreplace-new", !syscall(SYS_renameat2, AT_FDCWD, "r1", AT_FDCWD, "r3",
                                           RENAME_NOREPLACE) && same("r3", "new"),
          "RENAME_NOREPLACE to a new name failed");
    check("rename-exchange", !syscall(SYS_renameat2, AT_FDCWD, "r2", AT_FDCWD, "r3",
                                      RENAME_EXCHANGE) && same("r2", "new") && same("r3", "one") &&
                                 !syscall(SYS_renameat2, AT_FDCWD, "r2", AT_FDCWD, "r3",
                                          RENAME_EXCHANGE) && same("r2", "one"),
          "RENAME_EXCHANGE did not swap the two names");

    check("hard-link", !link("r2", "hl") && !stat("r2", &st) && !stat("hl", &st2) &&
                       st.st_nlink == 2 && st.st_ino == st2.st_ino && !unlink("hl") &&
                       !stat("r2", &st) && st.st_nlink == 1,
          "nlink or st_ino wrong");
    char buf[64] = {0};
    check("symlink", !symlink("r2", "sl") && readlink("sl", buf, sizeof buf) == 2 &&
                     !memcmp(buf, "r2", 2) && !lstat("sl", &st) && S_ISLNK(st.st_mode) &&
                     same("sl", "one") && !symlink("../nowhere", "dangling") &&
                     !lstat("dangling", &st) && stat("dangling", &st2),
          "symlink behaves wrongly");

    struct timespec tv[2] = {{1, 1}, {2, 2}};
    check("utimens", !utimensat(AT_FDCWD, "r2", tv, 0) && !stat("r2", &st) &&
                     st.st_atim.tv_sec == 1 && st.st_atim.tv_nsec == 1 &&
                     st.st_mtim.tv_sec == 2 && st.st_mtim.tv_nsec == 2,
          "times not set");
    struct timespec omit[2] = {{0, UTIME_OMIT}, {7, 0}};
    check("utimens-omit", !utimensat(AT_FDCWD, "r2", omit, 0) && !stat("r2", &st) &&
                          st.st_atim.tv_sec == 1 && st.st_mtim.tv_sec == 7,
          "UTIME_OMIT changed a time");
    check("chmod-chown", !chmod("r2", 0751) && !chown("r2", 1000, 1001) && !stat("r2", &st) &&
                         (st.st_mode & 07777) == 0751 && st.st_uid == 1000 && st.st_gid == 1001,
          "mode or owner not set");
    struct timespec lt[2] = {{3, 3}, {4, 4}};
    check("lchown-lutimens", !lchown("sl", 1002, 1003) &&
                             !utimensat(AT_FDCWD, "sl", lt, AT_SYMLINK_NOFOLLOW) &&
                             !lstat("sl", &st) && st.st_uid == 1002 && st.st_gid == 1003 &&
                             st.st_mtim.tv_sec == 4 && !stat("sl", &st2) &&
                             st2.st_uid == 1000 && st2.st_mtim.tv_sec == 7,
          "lchown or utimensat(AT_SYMLINK_NOFOLLOW) missed the link or changed the target");
    errno = 0;
    check("mkfifo", !mkfifo("ff", 0644) && !lstat("ff", &st) && S_ISFIFO(st.st_mode),
          "mkfifo should make a FIFO");

    check("mkdir-rename-dir", !mkdir("d1", 0755) && !mkdir("d2", 0755) && !put("d1/x", "x") &&
                              !rename("d1/x", "d2/y") && same("d2/y", "x") &&
                              !rename("d1", "d2/d1") && !stat("d2", &st) && st.st_nlink == 3,
          "directory rename wrong");
    errno = 0;
    int into = rename("d2", "d2/d1/z") && errno == EINVAL;
    errno = 0;
    check("dir-errors", into && rmdir("d2") && errno == ENOTEMPTY, "EINVAL/ENOTEMPTY expected");
}

#define NBIG 3000

static void dirs(void)
{
    char name[300];
    if (mkdir("big", 0755)) {
        check("readdir-big", 0, "mkdir");
        return;
    }
    for (int i = 0; i < NBIG; i++) {
        snprintf(name, sizeof name, "big/entry-%05d", i);
        if (put(name, "")) {
            check("readdir-big", 0, "create");
            return;
        }
    }
    check("readdir-big", count_dir("big") == NBIG, "wrong number of entries");

    /* telldir/seekdir: the same entries after seeking back */
    DIR *d = opendir("big");
    struct dirent *e;
    long pos = -1;
    char first[256] = "", again[256] = "";
    for (int i = 0; d && i < 1000 && readdir(d); i++)
        ;
    if (d && (pos = telldir(d)) >= 0 && (e = readdir(d)))
        snprintf(first, sizeof first, "%s", e->d_name);
    while (d && readdir(d))
        ; /* to the end, then back */
    if (d && pos >= 0) {
        seekdir(d, pos);
        snprintf(again, sizeof again, "%s", (e = readdir(d)) ? e->d_name : "");
    }
    check("seekdir", d && *first && !strcmp(first, again), "seekdir went elsewhere");
    if (d)
        closedir(d);

    /* delete while listing (rm -rf's pattern): every entry seen once */
    d = opendir("big");
    int seen = 0;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(name, sizeof name, "big/%s", e->d_name);
        seen += !unlink(name);
    }
    if (d)
        closedir(d);
    check("readdir-while-deleting", seen == NBIG && count_dir("big") == 0 && !rmdir("big"),
          "entries missed while deleting");
}

/* Two of xfstests' quick group (project issue #30). */
static void xfstests(void)
{
    /* generic/035: an open directory that a rename replaced still answers
     * fstat, with no links; its name is the renamed directory's now */
    struct stat s1, s2, st, now;
    int fd = -1, good = !mkdir("x1", 0755) && !mkdir("x2", 0755) && !stat("x1", &s1) &&
                        !stat("x2", &s2) && (fd = open("x2", O_RDONLY | O_DIRECTORY)) >= 0 &&
                        !rename("x1", "x2");
    check("open-dir-replaced-fstat", good && !fstat(fd, &st) && st.st_nlink == 0 &&
                                         st.st_ino == s2.st_ino && S_ISDIR(st.st_mode) &&
                                         !stat("x2", &now) && now.st_ino == s1.st_ino,
          "fstat of the replaced directory failed or is wrong");
    if (fd >= 0)
        close(fd);
    rmdir("x2");
    /* generic/525: LogFS with 4 KiB blocks holds (16 + 512^5) blocks; a
     * truncate past that is EFBIG, a write crossing it is short */
    const off_t max = ((off_t)16 + ((off_t)1 << 45)) * 4096;
    char b[2] = {'z', 'z'};
    fd = open("big", O_RDWR | O_CREAT | O_TRUNC, 0644);
    errno = 0;
    good = fd >= 0 && ftruncate(fd, INT64_MAX) && errno == EFBIG &&
           ftruncate(fd, max + 1) && errno == EFBIG && !ftruncate(fd, max) &&
           !fstat(fd, &st) && st.st_size == max && pread(fd, b, 2, max - 2) == 2 &&
           !b[0] && !b[1] && pwrite(fd, "ab", 2, max - 1) == 1;
    errno = 0;
    good = good && pwrite(fd, "ab", 2, max) < 0 && errno == EFBIG &&
           pread(fd, b, 2, max - 2) == 2 && !b[0] && b[1] == 'a';
    check("largest-file", good, "truncate or write past LogFS's largest file");
    if (fd >= 0)
        close(fd);
    unlink("big");
}

int main(void)
{
    files();
    names();
    dirs();
    xfstests();
    return failures != 0;
}
