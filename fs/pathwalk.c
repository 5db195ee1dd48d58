/* pathwalk.c -- a path cut into components, the part of path resolution
 * that does not depend on the fs: lookups and links stay with each walk. */
#include "fscommon.h"

#include <errno.h>
#include <string.h>

int fs_path_check(const char *path)
{
    if (!path || *path != '/')
        return -EINVAL;
    /* strnlen: a path without a NUL in reach is as long as a long one */
    return strnlen(path, FS_PATH_MAX) >= FS_PATH_MAX ? -ENAMETOOLONG : 0;
}

int fs_path_comp(const char *path, size_t pos, struct fs_comp *c)
{
    pos += strspn(path + pos, "/");
    if (!path[pos])
        return 0;
    const char *p = path + pos;
    size_t len = strcspn(p, "/");
    c->name = p;
    c->len = len;
    c->end = pos + len;
    c->next = c->end + strspn(path + c->end, "/");
    c->last = !path[c->next];
    c->slash = path[c->end] == '/';
    c->kind = len == 1 && p[0] == '.'                   ? FS_COMP_DOT
            : len == 2 && p[0] == '.' && p[1] == '.' ? FS_COMP_DOTDOT
                                                      : FS_COMP_NAME;
    return len > FS_NAME_MAX ? -ENAMETOOLONG : 1;
}
