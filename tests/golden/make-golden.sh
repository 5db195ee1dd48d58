#!/bin/sh
# make-golden.sh FLASHLAB OUT.img [v3|v4|v5|v6]: how the golden LogFS images in
# this folder were made, by the flashlab of the format version they hold
# (an image of an older version cannot be made by today's program; its
# line in README.md names the commit that made it).  The contents are
# fixed so that tests/cli/test_golden.sh can check every byte.
set -e
F=$1 OUT=$2 VER=${3:-v6}
DIR=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$F" sim create --force --device "$DIR/golden-8m.yaml" "$OUT" >/dev/null
# v5 and later: the data blocks compressed with zlib (mkfs's choice), one
# file lzo
MKFS_O=
[ "$VER" = v5 ] || [ "$VER" = v6 ] && MKFS_O="-o compress=zlib"
"$F" mkfs $MKFS_O "$OUT" >/dev/null 2>&1 || "$F" mkfs --force $MKFS_O "$OUT" >/dev/null
printf 'hello golden\n' > "$T/hello.txt"
python3 "$DIR/pattern.py" 70000 > "$T/pattern.bin"
"$F" mkdir "$OUT:/dir" "$OUT:/dir/sub"
"$F" put "$T/hello.txt" "$OUT:/dir/hello.txt"
"$F" put "$T/pattern.bin" "$OUT:/dir/sub/pattern.bin"
"$F" ln "$OUT:/dir/hello.txt" "$OUT:/hardlink.txt"
"$F" ln -s "$OUT:/dir/sub/pattern.bin" "$OUT:/symlink"
if [ "$VER" != v3 ]; then
    "$F" mknod "$OUT:/fifo" p
    "$F" mknod "$OUT:/chr" c 1 3
    "$F" mknod "$OUT:/blk" b 8 1
    "$F" xattr set "$OUT:/dir/hello.txt" user.greeting "bonjour"
    "$F" xattr set "$OUT:/dir" trusted.big "$(python3 "$DIR/pattern.py" 3000 hex)"
fi
if [ "$VER" = v5 ] || [ "$VER" = v6 ]; then
    python3 "$DIR/pattern.py" 20000 hex > "$T/pattern.hex"
    "$F" put --fs logfs -o compress=lzo "$T/pattern.hex" "$OUT:/dir/lzo.hex"
fi
if [ "$VER" = v6 ]; then
    # 10 preallocated blocks inside the size, 4 past it (--keep-size)
    "$F" fallocate -l 40000 "$OUT:/dir/prealloc"
    "$F" fallocate --keep-size -o 40960 -l 16K "$OUT:/dir/prealloc"
fi
