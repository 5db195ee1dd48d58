#!/bin/sh
# flashlab mount serves every kind of fs/fsapi.h's table, not LogFS alone:
# on jffs2-scan, jffs2-summary and blockfs images, files, directories and
# links written through the mount read back with `flashlab cat`/`ls` after
# the unmount; the stats file names the kind; what a kind lacks (chmod on
# the baselines) fails with ENOTSUP instead of pretending; a bad option of
# the kind is refused naming it.  Needs /dev/fuse and fusermount3, else
# every check is reported as skipped.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
KINDS="jffs2-scan jffs2-summary blockfs"
NCHECKS=33 # 11 per kind, reported as skipped when FUSE cannot be used
MOUNTS=""
summary() { echo "test_mount_kinds: $passed passed, $failed failed, ${skipped:-0} skipped"; }
cleanup() {
    cd /
    for m in $MOUNTS; do
        grep -q " $m fuse" /proc/mounts 2>/dev/null && fusermount3 -u -z "$m" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup EXIT
if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1 ||
   ! command -v flock >/dev/null 2>&1; then
    echo "test_mount_kinds: FUSE is not usable here"
    skipped=$NCHECKS; summary; exit 0
fi
check() { if eval "$2"; then ok; else bad "$1"; fi; }
mounted() { grep -q " $1 fuse.flashlab " /proc/mounts; }

cd "$T"
seq 1 30000 > big.txt # 169 KB: several erase blocks of the 64 MiB part
for k in $KINDS; do
    img=$T/$k.img; mp=$T/m-$k
    mkdir -p "$mp"; MOUNTS="$MOUNTS $mp"
    $FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$img" >/dev/null
    expect 0 "$k: mkfs" "$k, block size" -- $FL mkfs --fs "$k" "$img"
    # a key of the kind's with a bad value (an unknown key is FUSE's)
    case $k in blockfs) o=cache=7 ;; *) o=reserve=1 ;; esac
    expect 2 "$k: a bad option names the kind and the item" "bad option '$o'" -- \
        $FL mount -o "$o" "$img" "$mp"
    expect 0 "$k: mount (probed)" "" -- $FL mount "$img" "$mp"
    check "$k: mounted" "mounted '$mp'"
    echo hello > "$mp/a"; mkdir "$mp/d"; cp big.txt "$mp/d/big"; ln -s a "$mp/l"
    check "$k: the stats file names the kind" "grep -q '^fs_kind $k\$' '$mp/.flashlab-stats'"
    check "$k: chmod is declined, not faked" \
        "! chmod 600 '$mp/a' 2>/dev/null && [ \"\$(stat -c %a '$mp/a')\" = 644 ]"
    check "$k: unmount" "fusermount3 -u '$mp' && ! mounted '$mp'"
    flock -w 30 "$img.lock" true # the mount process saves, then exits
    expect 0 "$k: a small file reads back" "^hello\$" -- $FL cat "$img:/a"
    check "$k: a large file reads back" "$FL cat '$img:/d/big' | cmp -s - big.txt"
    expect 0 "$k: the link reads back" "l -> a" -- $FL ls -l "$img:/"
    expect 0 "$k: the kind is still found" "^fs:  *$k" -- $FL df "$img"
done
summary
[ "$failed" -eq 0 ]
