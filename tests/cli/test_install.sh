#!/bin/sh
# make install: the program, the library under its soname, the public
# headers and flashlab.pc; a small C program built with pkg-config against
# the installed copy alone makes a device, a LogFS, and reads a file back.
. "$(dirname "$0")/lib.sh"
BUILD_DIR=$(dirname "${FLASHLAB_LIB:-$PWD/build/libflashlab.so}")
P=$T/prefix
# the soname's number, as the Makefile sets it (one place)
SOV=$(sed -n 's/^SOVERSION := //p' "$(dirname "$0")/../../Makefile")
expect 0 "make install" "" -- make -s --no-print-directory install BUILD="$BUILD_DIR" PREFIX="$P"
for f in bin/flashlab lib/libflashlab.so lib/libflashlab.so.$SOV include/flashlab/nand.h \
         include/flashlab/logfs.h include/flashlab/fsapi.h include/flashlab/fstypes.h \
         include/flashlab/fsck.h include/flashlab/results.h include/flashlab/layout.h \
         lib/pkgconfig/flashlab.pc sbin/mount.fuse.flashlab; do
    if [ -e "$P/$f" ]; then ok; else bad "installed $f"; fi
done
expect 0 "installed program runs" "flashlab" -- "$P/bin/flashlab" --version
# the mount helper (SBINDIR: /sbin for a system prefix) finds the installed program
expect 0 "the mount helper knows where flashlab is" "$P/bin" -- grep -F "$P/bin" "$P/sbin/mount.fuse.flashlab"

cat > "$T/prog.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include "fsapi.h"
#include "logfs.h"
#include "nand.h"

int main(void)
{
    struct nand_config c;
    nand_dev *dev;
    logfs *fs;
    char buf[16] = {0};
    nand_config_init(&c);
    c.geo = (struct nand_geometry){.blocks_per_plane = 256, .pages_per_block = 64,
                                   .page_size = 2048, .oob_size = 64};
    if (nand_create(&c, &dev) || logfs_mkfs(dev, NULL) || logfs_mount(dev, NULL, &fs))
        return 1;
    int fd = logfs_open(fs, "/hello", O_CREAT | O_RDWR, 0644);
    if (fd < 0 || logfs_pwrite(fs, fd, "installed", 9, 0) != 9 ||
        logfs_pread(fs, fd, buf, sizeof buf, 0) != 9 || logfs_close(fs, fd))
        return 2;
    printf("%s via %s\n", buf, fsapi_find("logfs") ? "logfs" : "?");
    logfs_unmount(fs);
    nand_close(dev);
    return 0;
}
C
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect 0 "pkg-config knows flashlab" "-lflashlab" -- pkg-config --libs flashlab
if cc -std=c11 $(pkg-config --cflags flashlab) "$T/prog.c" -o "$T/prog" \
      $(pkg-config --libs flashlab) 2>"$T/cc.err"; then ok; else bad "build against the install: $(cat "$T/cc.err")"; fi
expect 0 "linked by soname" "libflashlab.so.$SOV" -- readelf -d "$T/prog"
expect 0 "runs on the installed library" "installed via logfs" -- env LD_LIBRARY_PATH="$P/lib" "$T/prog"
echo "test_install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
