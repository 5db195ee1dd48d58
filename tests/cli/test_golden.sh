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
expect 1 "v3: read-only, and says why" "format version 3, read-only: this flashlab writes version 4" -- \
    $FL put "$T/hello.txt" "$T/v3.img:/new"
gunzip -c "$G/logfs-v3.img.gz" > "$T/v3.orig"
check "v3: never written" 'cmp -s "$T/v3.img" "$T/v3.orig"'

common v4
expect 0 "v4: the FIFO" "type:   fifo" -- $FL stat "$T/v4.img:/fifo"
expect 0 "v4: the character device" "device: 1, 3" -- $FL stat "$T/v4.img:/chr"
expect 0 "v4: the block device" "device: 8, 1" -- $FL stat "$T/v4.img:/blk"
expect 0 "v4: a file's attribute" "^bonjour$" -- $FL xattr get "$T/v4.img:/dir/hello.txt" user.greeting
check "v4: a directory's 3000-byte attribute" \
    '[ "$($FL xattr get "$T/v4.img:/dir" trusted.big)" = "$(python3 "$G/pattern.py" 3000 hex)" ]'
expect 0 "v4: writable" "" -- $FL put "$T/hello.txt" "$T/v4.img:/new"
expect 0 "v4: clean after a write" "clean" -- $FL fsck "$T/v4.img"

summary() { echo "test_golden: $passed passed, $failed failed, 0 skipped"; }
summary
[ "$failed" -eq 0 ]
