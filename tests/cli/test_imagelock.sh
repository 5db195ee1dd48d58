#!/bin/sh
# The image lock and durability (docs/mount.md, "The image lock" and
# "Durability"): commands that write an image in use by a mount are
# refused, readers warn, the mount's data is intact after unmount; a mount
# right after `fusermount3 -u` waits for the previous one's save; a mount
# killed with SIGKILL after a sync loses nothing synced, and a damaged
# journal is an error naming it.  Needs /dev/fuse and fusermount3; without
# them the mount checks are reported as skipped.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
NMOUNT=50 # checks that need FUSE
skipped=0
MOUNTS=""

summary() { echo "test_imagelock: $passed passed, $failed failed, $skipped skipped"; }
cleanup() {
    cd /
    for m in $MOUNTS; do
        grep -q " $m fuse" /proc/mounts 2>/dev/null && fusermount3 -u -z "$m" 2>/dev/null
    done
    [ -f "$I.lock" ] && flock -w 20 "$I.lock" true 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
check() { if eval "$2"; then ok; else bad "$1"; fi; }
mounted() { grep -q " $1 fuse.flashlab " /proc/mounts; }
# the pid the lock file names
holder() { sed -n 's/^pid=//p' "$1.lock"; }

DEV=$SRC/configs/devices/test-64m.yaml
cd "$T"
I=$T/fs.img
M=$T/m
mkdir -p "$M"
$FL sim create --device "$DEV" "$I" >/dev/null && $FL mkfs "$I" >/dev/null ||
    { echo "FAIL: cannot make an image"; failed=1; summary; exit 1; }
printf 'from put\n' > "$T/p.txt"

# ---- without FUSE: a command on a missing image leaves no lock file ---------
expect 1 "put into a missing image" "missing.img: cannot open" -- $FL put "$T/p.txt" "$T/missing.img:/x"
check "no missing.img.lock left behind" '[ ! -e "$T/missing.img.lock" ]'

# ---- a running command holds the lock: writers refused, readers warned --------
# (a stand-in: flock(1) holds IMAGE.lock, described as a put would)
printf 'cmd=flashlab put\npid=%s\n' $$ > "$I.lock"
(exec 9< "$I.lock"; flock 9; exec sleep 30) & holder_pid=$!
n=0; while flock -n "$I.lock" true 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
expect 1 "mkdir while a put runs" "flashlab mkdir: $I is in use by flashlab put (pid $$)" -- $FL mkdir "$I:/d"
expect 0 "ls while a put runs warns" "warning: $I is in use by flashlab put (pid $$); reading its last saved state" -- $FL ls "$I"
kill $holder_pid; wait $holder_pid 2>/dev/null
expect 0 "mkdir once it is done" "" -- $FL mkdir "$I:/d"
$FL rmdir "$I:/d"

fuse_ok=1
[ -c /dev/fuse ] && command -v fusermount3 >/dev/null 2>&1 && command -v flock >/dev/null 2>&1 || fuse_ok=0
if [ $fuse_ok = 1 ] && ! out=$($FL mount "$I" "$M" 2>&1); then
    case $out in
    *fuse:*|*fusermount*) fuse_ok=0 ;;
    *) bad "mount: $out"; summary; exit 1 ;;
    esac
fi
if [ $fuse_ok = 0 ]; then
    echo "SKIP ($NMOUNT): FUSE cannot be used here"
    skipped=$NMOUNT; summary; exit 0
fi
MOUNTS=$M

# ---- writers are refused while mounted, readers warn -------------------------
pid=$(holder "$I")
check "the lock names the mount's pid ($pid)" '[ -n "$pid" ] && kill -0 "$pid"'
printf 'from the mount\n' > "$M/mine.txt"
msg="$I is in use by flashlab mount on $M (pid $pid)"
expect 1 "put during a mount is refused" "flashlab put: $msg" -- $FL put "$T/p.txt" "$I:/put.txt"
expect 1 "mkdir during a mount" "flashlab mkdir: $msg" -- $FL mkdir "$I:/d"
expect 1 "rm during a mount" "flashlab rm: $msg" -- $FL rm "$I:/mine.txt"
expect 1 "mkfs --force during a mount" "flashlab mkfs: $msg" -- $FL mkfs --force "$I"
expect 1 "sim write during a mount" "flashlab sim write: $msg" -- $FL sim write "$I" 900 0
expect 1 "sim create --force during a mount" "flashlab sim create: $msg" -- $FL sim create --force --device "$DEV" "$I"
expect 8 "fsck --repair during a mount (fsck's operational error)" "flashlab fsck: $msg" -- $FL fsck --repair "$I"
expect 1 "sim corrupt during a mount" "flashlab sim corrupt: $msg" -- $FL sim corrupt "$I" age --hours 1
expect 1 "sim corrupt --block during a mount" "flashlab sim corrupt: $msg" -- $FL sim corrupt "$I" --block 5 bad
expect 1 "sim erase during a mount" "flashlab sim erase: $msg" -- $FL sim erase "$I" 900
expect 1 "sim read (it counts the read) during a mount" "flashlab sim read: $msg" -- $FL sim read "$I" 900 0
expect 0 "sim export during a mount warns" "warning: $msg" -- $FL sim export "$I" "$T/dump"
expect 1 "sim import --force during a mount" "flashlab sim import: $msg" -- $FL sim import --device "$DEV" --force "$T/dump" "$I"
expect 1 "sim demo --image during a mount" "flashlab sim demo: $msg" -- $FL sim demo --image "$I"
expect 1 "rmdir during a mount" "flashlab rmdir: $msg" -- $FL rmdir "$I:/d"
expect 1 "ln during a mount" "flashlab ln: $msg" -- $FL ln "$I:/mine.txt" "$I:/hard"
expect 1 "mv during a mount" "flashlab mv: $msg" -- $FL mv "$I:/mine.txt" "$I:/moved"
expect 1 "mknod during a mount" "flashlab mknod: $msg" -- $FL mknod "$I:/fifo" p
expect 1 "fallocate during a mount" "flashlab fallocate: $msg" -- $FL fallocate -l 4K "$I:/pre"
expect 1 "xattr set during a mount" "flashlab xattr: $msg" -- $FL xattr set "$I:/mine.txt" user.k v
mkdir -p "$T/m2"
expect 1 "a second mount is refused" "flashlab mount: $msg" -- $FL mount "$I" "$T/m2"
expect 0 "ls during a mount warns and reads the saved state" \
    "warning: $msg; reading its last saved state" -- $FL ls "$I"
expect 0 "fsck during a mount (read only) runs" "clean" -- $FL fsck "$I"
sync "$M/mine.txt"
expect 0 "cat during a mount reads what was synced" "^from the mount$" -- $FL cat "$I:/mine.txt"

# ---- unmount: the mount's data is intact, nothing of the refused put ---------
fusermount3 -u "$M"
expect 0 "right after unmount, cat waits for the save" "^from the mount$" -- $FL cat "$I:/mine.txt"
check "the refused put wrote nothing" '! $FL ls "$I" | grep -q put.txt'
check "nothing holds the lock after the save" 'flock -n "$I.lock" true'
check "the save folded the journal" '[ ! -e "$I.journal" ]'
expect 0 "fsck is clean after unmount" "clean" -- $FL fsck "$I"
expect 0 "put works once unmounted" "" -- $FL put "$T/p.txt" "$I:/put.txt"

# ---- remount right after fusermount3 -u: waits for the save ------------------
fails=0; n=0
$FL mount "$I" "$M" || fails=$((fails + 1))
while [ $n -lt 12 ]; do
    n=$((n + 1))
    printf 'round %s\n' $n > "$M/r$n" || fails=$((fails + 1))
    fusermount3 -u "$M"
    out=$($FL mount "$I" "$M" 2>&1) || { fails=$((fails + 1)); echo "round $n: $out"; }
done
check "12 remounts right after fusermount3 -u ($fails failed)" '[ $fails -eq 0 ]'
check "every round's file is there" '[ "$(ls "$M" | grep -c "^r[0-9]*$")" -eq 12 ] && [ "$(cat "$M/r12")" = "round 12" ]'
fusermount3 -u "$M"
expect 0 "and after the last unmount" "^round 7$" -- $FL cat "$I:/r7"

# ---- kill -9 after a sync: nothing synced is lost ---------------------------
$FL mount "$I" "$M"
pid=$(holder "$I")
head -c 300000 /dev/urandom > "$T/big"
cp "$T/big" "$M/big" && mkdir "$M/dir" && printf 'one\n' > "$M/dir/one"
sync "$M/big" "$M/dir/one"
check "a sync appends to IMAGE.journal" '[ -s "$I.journal" ]'
size=$(stat -c %s "$I")
printf 'two\n' > "$M/dir/two" && sync "$M/dir/two"
check "a second sync appends, the image is not rewritten" '[ "$(stat -c %s "$I")" = "$size" ]'
kill -9 "$pid"
n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
fusermount3 -u "$M" 2>/dev/null # the dead mount's leftover
check "the killed mount left a journal" '[ -s "$I.journal" ]'
cp "$I" "$T/kill.img"; cp "$I.journal" "$T/kill.img.journal"
expect 0 "the CLI reads the synced file after kill -9" "" -- $FL get "$I:/big" "$T/big.back"
check "its bytes are the ones written" 'cmp -s "$T/big" "$T/big.back"'
expect 0 "fsck is clean after kill -9" "clean" -- $FL fsck "$I"
check "mount again after kill -9" '$FL mount "$I" "$M" && mounted "$M"'
check "everything synced is there" 'cmp -s "$T/big" "$M/big" && [ "$(cat "$M/dir/one")" = one ] && [ "$(cat "$M/dir/two")" = two ]'
fusermount3 -u "$M"
expect 0 "fsck after the remount" "clean" -- $FL fsck "$I"

# ---- issue #30: sim corrupt between two fsyncs, then kill -9 ----------------
# (it was let through, its save folded the journal away under the mount,
# whose next sync then wrote a journal with no header: B lost, ls failed)
$FL mount "$I" "$M"
pid=$(holder "$I")
printf 'A\n' > "$T/A"; printf 'B\n' > "$T/B"
dd if="$T/A" of="$M/A" conv=fsync 2>/dev/null
expect 1 "sim corrupt on the mounted image is refused" "flashlab sim corrupt: $I is in use by flashlab mount on $M (pid $pid)" -- $FL sim corrupt "$I" age --hours 1
dd if="$T/B" of="$M/B" conv=fsync 2>/dev/null
kill -9 "$pid"
n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
fusermount3 -u "$M" 2>/dev/null # the dead mount's leftover
expect 0 "after kill -9, ls reads the journal" "^B$" -- $FL ls "$I:/"
expect 0 "A is there" "^A$" -- $FL cat "$I:/A"
expect 0 "B, fsynced after the refused corrupt, is there" "^B$" -- $FL cat "$I:/B"
expect 0 "fsck is clean" "clean" -- $FL fsck "$I"

# ---- a damaged journal is an error naming it; a torn tail is not -------------
J=$T/kill.img.journal
jsize=$(stat -c %s "$J")
cp "$J" "$T/j.orig"
# the first record's payload (past the 48-byte header and its own 24)
printf 'X' | dd of="$J" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 1 "a damaged record is an error naming the journal" "kill.img.journal: record 1 at byte 48" -- $FL ls "$T/kill.img"
cp "$T/j.orig" "$J"
truncate -s $((jsize - 5)) "$J"
expect 0 "a torn last record is ignored" "^big$" -- $FL ls "$T/kill.img"
expect 0 "... and the state of the sync before it is there" "^one$" -- $FL ls "$T/kill.img:/dir"

summary
[ "$failed" -eq 0 ]
