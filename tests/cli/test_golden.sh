#!/bin/sh
# The golden LogFS images (tests/golden/README.md): every format version
# this program reads mounts, checks clean and reads back byte for byte;
# the older ones read-only with a note naming both versions.  (A version
# it does not read: tests/logfs/test_lfs_options.c, format_versions.)
SRC=$(pwd)
. "$SRC/tests/cli/lib.sh"
G=$SRC/tests/golden
check() { if eval "$2"; then ok; else bad "$1"; fi; }
python3 "$G/pattern.py" 70000 > "$T/pattern.bin"
printf 'hello golden\n' > "$T/hello.txt"

# common V: what every version holds
common() {
    img=$T/$1.img
    gunzip -c "$G/logfs-$1.img.gz" > "$img"
    expect 0 "$1: fsck clean" "clean" -- $FL fsck "$img"
    check "$1: hello.txt" '$FL get "$img:/dir/hello.txt" "$T/h.$1" 2>/dev/null && cmp -s "$T/h.$1" "$T/hello.txt"'
    check "$1: pattern.bin, 70,000 bytes" '$FL get "$img:/dir/sub/pattern.bin" "$T/p.$1" 2>/dev/null && cmp -s "$T/p.$1" "$T/pattern.bin"'
    check "$1: the hard link" '$FL stat "$img:/hardlink.txt" 2>/dev/null | grep -q "nlink:  2"'
    check "$1: the symbolic link" '$FL stat "$img:/symlink" 2>/dev/null | grep -q "target: /dir/sub/pattern.bin"'
}

common v3
expect 1 "v3: read-only, and says why" "format version 3, read-only: this flashlab writes version 6" -- \
    $FL put "$T/hello.txt" "$T/v3.img:/new"
gunzip -c "$G/logfs-v3.img.gz" > "$T/v3.orig"
check "v3: never written" 'cmp -s "$T/v3.img" "$T/v3.orig"'

# special4 V: what versions 4 and later hold
special4() {
    v=$1
    expect 0 "$v: the FIFO" "type:   fifo" -- $FL stat "$T/$v.img:/fifo"
    expect 0 "$v: the character device" "device: 1, 3" -- $FL stat "$T/$v.img:/chr"
    expect 0 "$v: the block device" "device: 8, 1" -- $FL stat "$T/$v.img:/blk"
    expect 0 "$v: a file's attribute" "^bonjour$" -- $FL xattr get "$T/$v.img:/dir/hello.txt" user.greeting
    check "$v: a directory's 3000-byte attribute" \
        '[ "$($FL xattr get "$T/$v.img:/dir" trusted.big)" = "$(python3 "$G/pattern.py" 3000 hex)" ]'
}
live_of() { $FL df "$1" | sed -n 's/^live: *\([0-9]*\) bytes.*/\1/p'; }

common v4
special4 v4
live4=$(live_of "$T/v4.img")
# format 4 is written as format 4 (docs/FORMAT.md 15): no compression
expect 0 "v4: writable" "" -- $FL put "$T/hello.txt" "$T/v4.img:/new"
expect 0 "v4: clean after a write, still version 4" "format version 4, .* compression none" -- \
    $FL fsck -v "$T/v4.img"
expect 1 "v4: no compression on a format-4 image" "cannot store compressed data" -- \
    $FL put --fs logfs -o compress=zlib "$T/hello.txt" "$T/v4.img:/new2"

# version 5: zlib by mkfs, one file lzo; v4's contents and 20,000 more
# bytes of the (periodic) pattern take far less room than v4's
common v5
special4 v5
check "v5: the lzo file" '[ "$($FL cat "$T/v5.img:/dir/lzo.hex")" = "$(python3 "$G/pattern.py" 20000 hex)" ]'
expect 0 "v5: compression zlib" "format version 5, .* compression zlib" -- $FL fsck -v "$T/v5.img"
live5=$(live_of "$T/v5.img")
check "v5: stored compressed ($live5 live bytes, v4 $live4)" '[ "$live5" -gt 0 ] && [ $((live5 + 50000)) -lt "$live4" ]'
expect 0 "v5: writable" "" -- $FL put "$T/pattern.bin" "$T/v5.img:/new"
check "v5: reads what it wrote" '$FL get "$T/v5.img:/new" "$T/n.v5" 2>/dev/null && cmp -s "$T/n.v5" "$T/pattern.bin"'
expect 0 "v5: clean after a write" "clean" -- $FL fsck "$T/v5.img"
# format 5 is written as format 5 (docs/FORMAT.md 15): no preallocation,
# no block count (st_blocks is the size rounded up)
expect 1 "v5: no fallocate on a format-5 image" "not supported" -- \
    $FL fallocate -l 8K "$T/v5.img:/new"
expect 0 "v5: still version 5" "format version 5" -- $FL fsck -v "$T/v5.img"
expect 0 "v5: st_blocks from the size" "blocks: 137 " -- $FL stat "$T/v5.img:/new"

# version 6: v5's contents, and a file of preallocated blocks (10 inside
# its 40,000 bytes, 4 past them)
common v6
special4 v6
check "v6: the lzo file" '[ "$($FL cat "$T/v6.img:/dir/lzo.hex")" = "$(python3 "$G/pattern.py" 20000 hex)" ]'
expect 0 "v6: version 6, compression zlib" "format version 6, .* compression zlib" -- $FL fsck -v "$T/v6.img"
expect 0 "v6: preallocated file's size" "size: *40000 bytes" -- $FL stat "$T/v6.img:/dir/prealloc"
expect 0 "v6: its 14 blocks counted" "blocks: 112 " -- $FL stat "$T/v6.img:/dir/prealloc"
expect 0 "v6: a sparse file counts what it holds" "blocks: 8 " -- $FL stat "$T/v6.img:/dir/hello.txt"
head -c 40000 /dev/zero > "$T/zeros"
check "v6: preallocated blocks read as zeros" \
    '$FL get "$T/v6.img:/dir/prealloc" "$T/z.v6" 2>/dev/null && cmp -s "$T/z.v6" "$T/zeros"'
expect 0 "v6: writable" "" -- $FL put "$T/pattern.bin" "$T/v6.img:/dir/prealloc"
check "v6: a write over them reads back" '$FL get "$T/v6.img:/dir/prealloc" "$T/n.v6" 2>/dev/null && cmp -s "$T/n.v6" "$T/pattern.bin"'
expect 0 "v6: fallocate" "" -- $FL fallocate -n -l 1M "$T/v6.img:/dir/hello.txt"
expect 0 "v6: clean after them" "clean" -- $FL fsck "$T/v6.img"

summary() { echo "test_golden: $passed passed, $failed failed, 0 skipped"; }
summary
[ "$failed" -eq 0 ]
