#!/bin/sh
# flashlab mount, issue #30: unlinked open files (libfuse's hard_remove:
# st_nlink drops, the name goes, the handle keeps working, a crash leaves
# no orphan for good), the seeded random power cut (-o powercut=random:
# same seed and image, same cut; a dead device after it; a remount
# recovers every fsynced file; each mount draws afresh), the shutdown
# ioctl (xfstests' godown), and a read-only mount that the kernel remounts
# read-write (mtd-utils' integck does).  Needs /dev/fuse and fusermount3,
# python3 for the ioctls, root for the remounts; what cannot run is
# reported as skipped.
. "$(dirname "$0")/lib.sh"
NCHECKS=36 # reported as skipped when FUSE cannot be used
SUITE=test_mount_cut; . "$(dirname "$0")/mountlib.sh"
# mnt IMAGE DIR [OPTIONS...]: mount in the background, quietly (0 or 1)
mnt() {
    img=$1; dir=$2; shift 2
    MOUNTS="$MOUNTS $dir"; IMAGES="$IMAGES $img"
    $FL mount "$@" "$img" "$dir" > "$T/mnt.out" 2>&1 && mounted "$dir"
}
# umnt DIR IMAGE: unmount and wait for the image's save
umnt() { cd "$T"; fusermount3 -u "$1" && flock -w 60 "$2.lock" true; }
# the ioctls and remounts, through python3 (xfstests' godown, integck's mount(2))
godown() { python3 -c 'import fcntl, os, sys
fcntl.ioctl(os.open(sys.argv[1], os.O_RDONLY), 0x8004587d, bytes(4))' "$1"; }
remount() { python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
flags = 32 | (1 if sys.argv[2] == "ro" else 0)  # MS_REMOUNT, MS_RDONLY
if libc.mount(b"none", sys.argv[1].encode(), None, flags, None):
    sys.exit(os.strerror(ctypes.get_errno()))' "$1" "$2"; }
# fsfiles IMAGE: the number of files fsck finds
fsfiles() { $FL fsck "$1" | sed -n 's/.* inodes (\([0-9]*\) files\{0,1\},.*/\1/p'; }

DEV=$SRC/configs/devices/test-64m.yaml
cd "$T"
mkdir -p "$T/m"
M=$T/m
$FL sim create --device "$DEV" "$T/fresh.img" >/dev/null && $FL mkfs "$T/fresh.img" >/dev/null ||
    { echo "FAIL: cannot make an image"; failed=1; summary; exit 1; }

# ---- usage: clear refusals, exit 2 ------------------------------------------
expect 2 "powercut of another kind" "the only kind is 'random'" -- \
    $FL mount -o powercut=sometimes "$T/fresh.img" "$M"
expect 2 "seed without powercut=random" "need powercut=random" -- \
    $FL mount -o seed=3 "$T/fresh.img" "$M"
expect 2 "mean_ops=0" "not a positive number" -- \
    $FL mount -o powercut=random,mean_ops=0 "$T/fresh.img" "$M"
expect 2 "random cut and --cut-after-ops" "excludes --cut-after-ops" -- \
    $FL mount -o powercut=random --cut-after-ops 5 "$T/fresh.img" "$M"
NCHECKS=$((NCHECKS - 4))

[ -c /dev/fuse ] && have fusermount3 && have flock || {
    skip $NCHECKS "FUSE is not usable here (/dev/fuse, fusermount3, flock)"; summary; exit 0; }
cp "$T/fresh.img" "$T/probe.img"
if ! mnt "$T/probe.img" "$M"; then
    case $(cat "$T/mnt.out") in
    *fuse:*|*fusermount*) skip $NCHECKS "FUSE does not work here: $(cat "$T/mnt.out")"; summary; exit 0 ;;
    esac
    bad "probe mount: $(cat "$T/mnt.out")"; summary; exit 1
fi

# ---- unlinked open files (the probe mount) ----------------------------------
out=$(cd "$M" && sh -c 'echo x>a; ln a b; exec 3<a; rm a; stat -c %h b; ls -a; stat -L -c %h /proc/self/fd/3; rm b
    stat -L -c %h /proc/self/fd/3; cat <&3')
check "rm of one name of an open file: st_nlink of the other drops to 1" \
    '[ "$(echo "$out" | sed -n 1p)" = 1 ]'
check "no .fuse_hidden file: the name is gone at once ($out)" \
    '! echo "$out" | grep -q fuse_hidden && ! echo "$out" | grep -qx a'
check "fstat through the handle: 1, then 0 once no name is left" \
    '[ "$(echo "$out" | grep -x "[0-9]" | tail -2 | tr "\n" " ")" = "1 0 " ]'
check "an unlinked file reads through its handle" '[ "$(echo "$out" | tail -1)" = x ]'
check "rmdir of a directory whose only file is unlinked but open" \
    '(cd "$M" && mkdir d && echo y > d/f && sh -c "exec 4<d/f; rm d/f; rmdir d && cat <&4") | grep -qx y'
check "rename over an open file: the handle keeps the old data" \
    '(cd "$M" && echo old > t && echo new > u && sh -c "exec 5<t; mv u t; cat <&5; cat t") | tr "\n" " " | grep -qx "old new "'
umnt "$M" "$T/probe.img"
check "the orphans are gone at their last close: one file left ($(fsfiles "$T/probe.img"))" \
    '[ "$(fsfiles "$T/probe.img")" = 1 ]'

# ---- the random cut: seeded, recorded -----------------------------------------
for i in 1 2 3; do cp "$T/fresh.img" "$T/r$i.img"; done
after=""
for i in 1 2; do
    mnt "$T/r$i.img" "$M" -o powercut=random,seed=11,mean_ops=150 &&
        after="$after $(stat_of "$M" powercut.after_ops)" && age=$(stat_of "$M" powercut.age) &&
        ops=$(stat_of "$M" nand.state_ops) && seed=$(stat_of "$M" powercut.seed)
    [ "$i" = 2 ] || umnt "$M" "$T/r$i.img"
done
a1=${after% *}; a2=${after##* }
check "same seed, same image: the same cut point ($after)" '[ -n "$a1" ] && [ "$a1" = " $a2" ]'
check "the stats file records the seed and the image's age (seed $seed, age $age, state_ops $ops)" \
    '[ "$seed" = 11 ] && [ "$age" = "$ops" ]'
head -c 16384 /dev/urandom > "$T/blk"
i=0; while [ $i -lt 400 ] && dd if="$T/blk" of="$M/f$i" bs=16k count=1 conv=fsync 2> "$T/cut.err"; do
    i=$((i + 1)); done
check "the cut comes ($i files fsynced) and fails the call with EIO" \
    '[ $i -lt 400 ] && grep -q "Input/output error" "$T/cut.err"'
check "after the cut: readdir fails with EIO" '! ls "$M" 2>&1 | grep -v "Input/output error" | grep -q .'
check "after the cut: an fsynced file cannot be read" '[ $i = 0 ] || ! cat "$M/f0" > /dev/null 2>&1'
check "after the cut: a new file cannot be made" \
    '! touch "$M/new" 2> "$T/touch.err" && grep -qE "Input/output error|Read-only" "$T/touch.err"'
check "after the cut: the stats file says powered 0" '[ "$(stat_of "$M" powered)" = 0 ]'
umnt "$M" "$T/r2.img"
check "the torn image was saved" '! cmp -s "$T/r2.img" "$T/fresh.img"'
check "a remount recovers from the torn image" 'mnt "$T/r2.img" "$M"'
lost=0; j=0; while [ $j -lt $i ]; do cmp -s "$T/blk" "$M/f$j" || lost=$((lost + 1)); j=$((j + 1)); done
check "every file fsynced before the cut is intact ($i written, $lost lost)" '[ $lost = 0 ]'
umnt "$M" "$T/r2.img"
check "fsck: the recovered image is clean" '$FL fsck "$T/r2.img" > "$T/fsck.out"'
mnt "$T/r2.img" "$M" -o powercut=random,seed=11,mean_ops=150
age2=$(stat_of "$M" powercut.age)
check "the next mount draws afresh: its age moved ($age -> $age2)" '[ "$age2" -gt "$age" ]'
umnt "$M" "$T/r2.img"

# ---- xfstests' shutdown ioctl -------------------------------------------------
if have python3; then
    mnt "$T/r3.img" "$M"
    echo unsynced > "$M/u"
    check "XFS_IOC_GOINGDOWN reaches the mount" 'godown "$M"'
    check "after the shutdown: a dead device" '[ "$(stat_of "$M" powered)" = 0 ] && ! cat "$M/u" 2>/dev/null'
    umnt "$M" "$T/r3.img"
    check "after the shutdown: what was written before it survives (a commit first)" \
        '[ "$($FL cat "$T/r3.img:/u")" = unsynced ]'
    # an orphan at the cut: listed by LogFS, deleted by the next mount
    mnt "$T/r3.img" "$M"
    python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1] + "/orphan", os.O_CREAT | os.O_RDWR)
os.write(fd, b"o" * 50000); os.fsync(fd); os.unlink(sys.argv[1] + "/orphan")
fcntl.ioctl(os.open(sys.argv[1], os.O_RDONLY), 0x8004587d, bytes(4))' "$M"
    umnt "$M" "$T/r3.img"
    n1=$(fsfiles "$T/r3.img")
    mnt "$T/r3.img" "$M" && umnt "$M" "$T/r3.img"
    n2=$(fsfiles "$T/r3.img")
    check "an open unlinked file at a cut: kept ($n1 files), deleted by the next mount ($n2)" \
        '[ "$n1" = 2 ] && [ "$n2" = 1 ]'
else
    skip 4 "python3 is not installed (the ioctl)"
fi

# ---- read-only, remounted read-write by the kernel -------------------------------
cp "$T/fresh.img" "$T/ro.img"
mnt "$T/ro.img" "$M" -o ro
check "-o ro: writes fail with EROFS" '! touch "$M/x" 2> "$T/ro.err" && grep -q "Read-only" "$T/ro.err"'
expect 1 "-o ro holds the lock: a writer is refused" "is in use by flashlab mount" -- \
    $FL put "$T/blk" "$T/ro.img:/blk"
umnt "$M" "$T/ro.img"
check "-o ro, never written: the image is byte-identical, no journal" \
    'cmp -s "$T/ro.img" "$T/fresh.img" && [ ! -e "$T/ro.img.journal" ]'
if [ "$(id -u)" = 0 ] && have python3; then
    mnt "$T/ro.img" "$M" -o ro
    check "a kernel remount rw of a read-only mount" 'remount "$M" rw'
    check "after the remount: writes work" 'cp "$T/blk" "$M/blk" && cmp -s "$T/blk" "$M/blk"'
    check "after the remount: fsync reaches the journal" \
        'dd if="$T/blk" of="$M/j" bs=16k conv=fsync 2>/dev/null && [ -s "$T/ro.img.journal" ]'
    check "back to ro: writes fail again" 'remount "$M" ro && ! touch "$M/y" 2>/dev/null'
    umnt "$M" "$T/ro.img"
    check "what was written while rw was saved" '$FL get "$T/ro.img:/blk" "$T/blk.out" && cmp -s "$T/blk" "$T/blk.out"'
    # another writer holds the image: ro stays ro in the fs too
    mnt "$T/ro.img" "$M" && mkdir -p "$T/m2" && mnt "$T/ro.img" "$T/m2" -o ro
    check "-o ro beside a writer: read-only in the fs too (fs_readonly 1)" \
        '[ "$(stat_of "$T/m2" fs_readonly)" = 1 ] && remount "$T/m2" rw && ! touch "$T/m2/z" 2>/dev/null'
    fusermount3 -u "$T/m2"; umnt "$M" "$T/ro.img"
else
    skip 6 "remounting needs root and python3"
fi

summary
[ "$failed" -eq 0 ]
