#!/bin/sh
# A real Linux file system on the simulated SSD: `flashlab mount --block`
# serves an FTL image's /disk, a loop device (--direct-io=on: O_DIRECT on
# the FUSE file) goes over it, and the kernel's ext4 lives there.  mkfs's
# discard reaches the FTL as TRIM (fallocate PUNCH_HOLE), a sync as its
# flush (fsync); a tree of 300 files written through ext4 reads back with
# the same checksums after ext4, the loop device and the flashlab mount
# are all taken down and set up again, and fsck.ext4 -fn finds it clean.
# Then the mount process is killed (-9) after a sync of ext4: once mounted
# again, ext4 replays its journal, everything synced is there and fsck is
# clean.  The FTL's WA (>= 1) and programs (> 0) under ext4 are read from
# `flashlab stats`.  A kind that is not a block device is refused.  The
# example of docs/ftl.md ("Linux file systems on the simulated SSD") and
# the README's two SSD lines run as written.
# Runs as root, in a private mount namespace where unshare(1) can make
# one; where root, FUSE, loop devices or e2fsprogs are missing, every
# check is reported as skipped.
. "$(dirname "$0")/lib.sh"
SUITE=test_mount_block
. "$(dirname "$0")/mountlib.sh"
NCHECKS=27
LOOPS=""; EXTS=""
block_cleanup() {
    for e in $EXTS; do grep -q " $e " /proc/mounts 2>/dev/null && umount -l "$e"; done
    # ours, and any the docs' examples left behind (their backing file in T)
    LOOPS="$LOOPS $(losetup -n -O NAME,BACK-FILE 2>/dev/null | awk -v t="$T/" 'index($2, t) == 1 { print $1 }')"
    for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
    cleanup
}
trap block_cleanup EXIT

why=""
[ "$(id -u)" -eq 0 ] || why="not root"
[ -z "$why" ] && { [ -c /dev/fuse ] && have fusermount3 && have flock || why="FUSE is not usable here"; }
[ -z "$why" ] && { [ -e /dev/loop-control ] && have losetup || why="no loop devices here"; }
[ -z "$why" ] && { have mkfs.ext4 && have fsck.ext4 || why="no e2fsprogs (make deps)"; }
[ -z "$why" ] && ! grep -qw ext4 /proc/filesystems && ! modprobe ext4 2>/dev/null && why="no ext4 in this kernel"
if [ -n "$why" ]; then
    echo "$SUITE: $why"
    skip $NCHECKS "$why"; summary; exit 0
fi
# a mount namespace of our own: the mounts vanish with the test
if [ -z "${FL_BLOCK_NS:-}" ] && unshare -m --propagation private true 2>/dev/null; then
    trap - EXIT
    rm -rf "$T"
    FL_BLOCK_NS=1 FL=$FL exec unshare -m --propagation private sh "$0" "$@"
fi

cd "$T" || exit 1
I=$T/ssd.img; M=$T/m; E=$T/ext4
mkdir -p "$M" "$E" tree
MOUNTS="$M"; IMAGES="$I"; EXTS="$E"
holder() { sed -n 's/^pid=//p' "$1.lock"; }
attach() { # attach [losetup options]: a loop device over M/disk, in L
    L=$(losetup -f --show "$@" "$M/disk") && LOOPS="$LOOPS $L"
}
detach() { losetup -d "$L"; }
sums() { (cd "$1" && find . -path ./lost+found -prune -o -type f -print | LC_ALL=C sort |
          xargs sha256sum); }
# the tree: 12 directories, 300 files of 1..800 lines (about 2.5 MB)
mkdir -p $(seq -f 'tree/d%g' 0 11)
awk 'BEGIN { srand(7); for (i = 0; i < 300; i++) { f = sprintf("tree/d%d/f%03d", i % 12, i)
      n = int(rand() * 800) + 1; for (j = 0; j < n; j++) printf "%d %d %.9f\n", i, j, rand() > f
      close(f) } }'
sums tree > tree.sums

$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$I" >/dev/null
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" logfs.img >/dev/null
$FL mkfs logfs.img >/dev/null
expect 0 "mkfs --fs ftl" "ftl" -- $FL mkfs --fs ftl "$I"
expect 1 "--block refuses a kind that is not a block device" \
    "logfs.img: --block needs a block kind (one file, /disk: ftl), and this image holds logfs" \
    -- $FL mount --block logfs.img "$M"
check "mount --block" '$FL mount --block "$I" "$M" 2>/dev/null && mounted "$M" && [ -f "$M/disk" ]'
check "the stats say --block" '[ "$(stat_of "$M" block)" = 1 ]'

# ---- ext4 over a direct-I/O loop device ---------------------------------------
check "losetup --direct-io=on: the FUSE file takes O_DIRECT" \
    'attach --direct-io=on && [ "$(losetup -n -O DIO "$L" | tr -d " ")" = 1 ]'
check "mkfs.ext4 on the loop device" 'mkfs.ext4 -q -F "$L"'
check "mkfs's discard reached the FTL as TRIM" '[ "$(stat_of "$M" fs.host_sectors_trimmed)" -gt 0 ]'
check "the kernel mounts it" 'mount -t ext4 "$L" "$E"'
cp -r tree/. "$E/"
f0=$(stat_of "$M" fs.flushes)
sync -f "$E"
check "sync of ext4 reached the FTL as a flush ($f0 before)" '[ "$(stat_of "$M" fs.flushes)" -gt "$f0" ]'
t0=$(stat_of "$M" fs.host_sectors_trimmed)
rm -r "$E/d11"; fstrim "$E"
check "fstrim after rm reached the FTL as TRIM" '[ "$(stat_of "$M" fs.host_sectors_trimmed)" -gt "$t0" ]'
cp -r tree/d11 "$E/"
check "the tree reads back through ext4" 'sums "$E" | cmp -s - tree.sums'
$FL stats "$M"
wa=$($FL stats --json "$M" | sed -n 's/.*"wa": \([0-9.]*\)}*$/\1/p')
check "the FTL's WA under ext4 is at least 1 ($wa)" \
    'awk -v w="$wa" "BEGIN { exit !(w != \"\" && w >= 1) }"'
check "the FTL programmed pages" '[ "$(stat_of "$M" nand.programs)" -gt 0 ]'
check "umount ext4, losetup -d, unmount flashlab" \
    'umount "$E" && detach && fusermount3 -u "$M" && flock -w 30 "$I.lock" true && ! mounted "$M"'

# ---- all of it again, buffered this time: fsck clean, the same tree ----------
check "mount --block again, losetup (buffered)" \
    '$FL mount --block "$I" "$M" 2>/dev/null && attach && [ "$(losetup -n -O DIO "$L" | tr -d " ")" = 0 ]'
check "fsck.ext4 -fn: clean" 'fsck.ext4 -fn "$L" >fsck.out 2>&1 || { cat fsck.out; false; }'
check "the tree has the same checksums" 'mount -t ext4 "$L" "$E" && sums "$E" | cmp -s - tree.sums'

# ---- kill -9 after a sync: what was flushed survives -------------------------
mkdir "$E/synced" && cp -r tree/d0 tree/d1 "$E/synced/" && sync
sums "$E" > synced.sums
cp -r tree/d2 "$E/unsynced" # may or may not survive
pid=$(holder "$I")
check "kill -9 the mount process ($pid)" 'kill -9 "$pid"'
n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
umount -l "$E"; detach; fusermount3 -u -z "$M" 2>/dev/null
check "mount --block after kill -9" '$FL mount --block "$I" "$M" 2>/dev/null && attach'
check "ext4 mounts (replaying its journal)" 'mount -t ext4 "$L" "$E"'
rm -rf "$E/unsynced"
check "everything synced is there, byte for byte" 'sums "$E" | cmp -s - synced.sums'
check "fsck.ext4 -fn after kill -9: clean" \
    'umount "$E" && { fsck.ext4 -fn "$L" >fsck.out 2>&1 || { cat fsck.out; false; }; }'
check "take it all down" 'detach && fusermount3 -u "$M" && flock -w 30 "$I.lock" true'

# ---- the docs' examples, run as written -------------------------------------
# docs/ftl.md's block (flashlab as the program under test)
python3 - "$SRC/docs/ftl.md" > doc.sh <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
sec = text.split("## Linux file systems on the simulated SSD", 1)[1]
print(sec.split("```")[1].strip())
PY
mkdir doc && ln -s "$SRC/configs" doc/configs
MOUNTS="$MOUNTS $T/doc/ssd"; EXTS="$EXTS $T/doc/ext4"
check "docs/ftl.md's example runs as written ($(wc -l < doc.sh) lines)" \
    '[ "$(wc -l < doc.sh)" -ge 8 ] &&
     (cd doc && FLA=$FL sh -e -c "flashlab() { \"\$FLA\" \"\$@\"; }; $(cat "$T/doc.sh")") >"$T/doc.out" 2>&1 ||
     { cat "$T/doc.out"; false; }'
check "its stats show the FTL under ext4" 'grep -q "ftl (block device /disk)" "$T/doc.out" &&
     grep -q "write amp\.  *[1-9]" "$T/doc.out" && ! mounted "$T/doc/ssd"'
# the README's two lines, on an FTL image of their own
mkdir -p readme/build && ln -s "$FL" readme/build/flashlab
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" readme/ssd.img >/dev/null
$FL mkfs --fs ftl readme/ssd.img >/dev/null
awk '/^## SSD/ { on = 1 } on && /^    mkdir -p ssd && build\/flashlab mount --block/ { p = 1 }
     p && !/^    / { exit } p { sub(/^    /, ""); print }' "$SRC/README.md" > readme.sh
MOUNTS="$MOUNTS $T/readme/ssd"
check "README's SSD lines run as written (2 lines)" \
    '[ "$(wc -l < readme.sh)" = 2 ] && (cd readme && sh -e ../readme.sh) >"$T/readme.out" 2>&1 ||
     { cat "$T/readme.out"; false; }'
L=$(losetup -j "$T/readme/ssd/disk" -O NAME -n | head -n 1); LOOPS="$LOOPS $L"
check "... and made ext4 on a loop device over the FTL ($L)" \
    '[ -n "$L" ] && [ "$(blkid -o value -s TYPE "$L")" = ext4 ] && detach &&
     fusermount3 -u "$T/readme/ssd"'
summary
[ "$failed" -eq 0 ]
