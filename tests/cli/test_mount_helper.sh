#!/bin/sh
# mount.fuse.flashlab, mount(8)'s helper: silent mounts with mount(8)'s
# generic options, fsname=SOURCE exactly, flashlab:PATH sources, remount
# ro/rw, a second mount of a served image bound to the first, umount(8),
# the fsck gate, and `mount -t fuse.flashlab` itself (in a private mount
# namespace, scripts/with-mount-helper.sh).  Needs root and /dev/fuse;
# without them every check is reported as skipped.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
H=$(dirname "$FL")/mount.fuse.flashlab
NCHECKS=43 # reported as skipped when this machine cannot mount
skipped=0
MOUNTS=""

summary() { echo "test_mount_helper: $passed passed, $failed failed, $skipped skipped"; }
cleanup() {
    cd /
    for m in $MOUNTS; do
        while grep -q " $m fuse" /proc/mounts 2>/dev/null; do umount -l "$m" || break; done
    done
    for i in "$T"/*.img; do [ -f "$i" ] && flock -w 20 "$i.lock" true 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
skip_all() { echo "test_mount_helper: skipping every check: $1"; skipped=$NCHECKS; summary; exit 0; }

[ -c /dev/fuse ] || skip_all "/dev/fuse is missing"
[ "$(id -u)" = 0 ] || skip_all "mount(8) helpers run as root"
[ -x "$H" ] || { echo "FAIL: $H is not built"; exit 1; }

# the line of /proc/mounts for DIR: "SOURCE DIR TYPE OPTIONS"
mline() { awk -v d="$1" '$2 == d { print $1, $2, $3, $4 }' /proc/mounts | tail -n 1; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
# silent NAME -- CMD...: exit 0 and not a byte of output
silent() {
    what=$1; shift 2
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq 0 ] && [ -z "$out" ]; then ok; else bad "$what: exit $rc, output '$out'"; fi
}

DEV=$SRC/configs/devices/test-64m.yaml
cd "$T"
mkdir -p m m2 m3
M=$T/m M2=$T/m2 M3=$T/m3
MOUNTS="$M2 $M $M3"
$FL sim create --device "$DEV" fs.img >/dev/null && $FL mkfs fs.img >/dev/null ||
    { echo "FAIL: cannot make an image"; exit 1; }

# ---- a mount with mount(8)'s generic options, silent; fsname is SOURCE ------
GENERIC=defaults,rw,noatime,nodiratime,exec,dev,suid,_netdev,auto,nofail,x-systemd.automount,comment=x
silent "mount with the generic options" -- "$H" ./fs.img "$M" -o "$GENERIC"
check "mounted as fuse.flashlab with fsname=./fs.img" \
    '[ "$(mline "$M" | cut -d" " -f1,3)" = "./fs.img fuse.flashlab" ]'
check "noatime reaches the kernel" 'mline "$M" | grep -q ",noatime"'
check "as root, dev and suid as on any file system" '! mline "$M" | grep -Eq "nosuid|nodev"'
check "as root, every user may enter (allow_other), as on any file system" \
    'mline "$M" | cut -d" " -f4 | grep -q "allow_other"'
echo hello > "$M/a" && ok || bad "write on the mount"

# ---- remount: ro and back to rw, by the kernel; the daemon keeps serving -----
silent "remount,ro" -- "$H" ./fs.img "$M" -o remount,ro
check "remounted read-only" 'mline "$M" | cut -d" " -f4 | grep -q "^ro,"'
check "a write on the ro mount fails" '! (echo x > "$M/b") 2>/dev/null'
check "reads still work" '[ "$(cat "$M/a")" = hello ]'
silent "remount,rw" -- "$H" ./fs.img "$M" -o remount,rw,noatime
check "remounted read-write" 'mline "$M" | cut -d" " -f4 | grep -q "^rw,"'
echo again > "$M/b" && ok || bad "write after remount,rw"

# ---- a second mount of a served image: the same file system, bound -----------
silent "second mount of the image" -- "$H" "$T/fs.img" "$M2"
check "the second place sees the first's files" '[ "$(cat "$M2/b")" = again ]'
echo both > "$M2/c" && ok || bad "write through the second place"
check "and the first sees its writes" '[ "$(cat "$M/c")" = both ]'
silent "umount of the second place" -- umount "$M2"
check "the first stays mounted" '[ -n "$(mline "$M")" ] && [ -z "$(mline "$M2")" ]'

# ---- umount(8): the daemon saves, flashlab commands wait for it --------------
silent "umount" -- umount "$M"
check "unmounted" '[ -z "$(mline "$M")" ]'
expect 0 "the files are in the image" "c" -- $FL ls fs.img:/

# ---- flashlab:PATH, ro, the fs's own options ------------------------------------
silent "flashlab:PATH, ro, cache=" -- "$H" "flashlab:$T/fs.img" "$M" -o ro,cache=1M,nosuid
check "fsname is flashlab:PATH" '[ "$(mline "$M" | cut -d" " -f1)" = "flashlab:$T/fs.img" ]'
check "ro and nosuid reach the kernel" 'mline "$M" | cut -d" " -f4 | grep -q "^ro,nosuid"'
check "the fs option reached flashlab" '$FL stats "$M" fs_options | grep -q "cache=1M"'
check "noatime without asking: reads never change atime" 'mline "$M" | grep -q ",noatime"'
silent "remount,rw (flashlab:PATH)" -- "$H" "flashlab:$T/fs.img" "$M" -o remount,rw
check "a remount keeps the flags it was not given (nosuid)" \
    'mline "$M" | cut -d" " -f4 | grep -q "^rw,nosuid"'
silent "umount" -- umount "$M"
expect 32 "relatime is a promise the mount cannot keep" "relatime: flashlab keeps no access times" \
    -- "$H" fs.img "$M" -o relatime

# ---- errors: mount(8)'s codes, a message naming what -------------------------
expect 1 "no DIR" "expected SOURCE and DIR" -- "$H" fs.img
expect 1 "unknown argument" "unknown argument '-q'" -- "$H" fs.img "$M" -q
expect 32 "missing image" "nope.img: no such image" -- "$H" nope.img "$M"
expect 32 "a mount option nobody knows" "bad mount options" -- "$H" fs.img "$M" -o frobnicate

# ---- -o fsck: a damaged image is refused, loudly ------------------------------
silent "fsck of a clean image, then mount" -- "$H" fs.img "$M" -o fsck
silent "umount" -- umount "$M"
$FL sim erase fs.img 0 >/dev/null # the superblock: mountable from its copy
expect 32 "damaged image refused" "flashlab fsck found the image damaged (exit 4): not mounted" \
    -- "$H" fs.img "$M" -o fsck
check "nothing mounted" '[ -z "$(mline "$M")" ]'
$FL fsck --repair fs.img >/dev/null

# ---- mount(8) itself: -t fuse.flashlab finds the helper ------------------------
if unshare -m true 2>/dev/null && [ -e /sbin/mount.fuse ]; then
    out=$(sh "$SRC/scripts/with-mount-helper.sh" "$H" sh -c '
        mount -t fuse.flashlab -o noatime,nodev,_netdev fs.img "$1" || exit 1
        awk -v d="$1" "\$2 == d { print \$1, \$3, \$4 }" /proc/mounts
        echo via-mount8 > "$1/d" || exit 2
        mount -o remount,ro "$1" || exit 3
        awk -v d="$1" "\$2 == d { print \$4 }" /proc/mounts
        umount "$1" || exit 4' sh "$M3" 2>&1); rc=$?
    check "mount -t fuse.flashlab, remount, umount (exit $rc: $out)" '[ "$rc" = 0 ]'
    check "mount(8) ran the helper: the canonical source, type, options" \
        'printf "%s\n" "$out" | grep -q "^$T/fs.img fuse.flashlab rw,nodev,noatime"'
    check "mount -o remount,ro went through the helper" 'printf "%s\n" "$out" | grep -q "^ro,"'
    expect 0 "its file is in the image" "via-mount8" -- $FL cat fs.img:/d
else
    skipped=$((skipped + 4)); echo "SKIP (4): no unshare or /sbin/mount.fuse here"
fi

summary
[ "$failed" -eq 0 ]
