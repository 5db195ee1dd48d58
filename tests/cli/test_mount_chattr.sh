#!/bin/sh
# flashlab mount, issue #30: file attributes through the kernel
# (chattr/lsattr from e2fsprogs send FS_IOC_GETFLAGS/SETFLAGS, xfs_io's
# chattr FS_IOC_FSGETXATTR/FSSETXATTR).  An immutable file refuses
# every change, an open for writing and an O_TRUNC included, and keeps
# its data; an append-only one takes appends only; an immutable
# directory takes no new name; the flags survive the unmount and fsck
# finds the image clean; a user without CAP_LINUX_IMMUTABLE cannot set
# i, the owner can set d; a format-5 image keeps no flags (EOPNOTSUPP)
# and stays format 5; a kind without attributes answers ENOTTY.  Needs
# /dev/fuse, fusermount3, chattr, lsattr and xfs_io; the user switch
# needs root and setpriv; what cannot run is reported as skipped.
. "$(dirname "$0")/lib.sh"
NCHECKS=31 # reported as skipped when FUSE or the tools cannot be used
NROOT=3    # of them, the checks that need root
SUITE=test_mount_chattr; . "$(dirname "$0")/mountlib.sh"
if [ ! -c /dev/fuse ] || ! have fusermount3 || ! have flock || ! have chattr ||
   ! have lsattr || ! have xfs_io; then
    echo "$SUITE: FUSE, chattr, lsattr or xfs_io are not usable here"
    skipped=$NCHECKS; summary; exit 0
fi
root=0; [ "$(id -u)" = 0 ] && root=1
M=$T/m; IMG=$T/a.img
mkdir -p "$M"; MOUNTS=$M; IMAGES=$IMG
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$IMG" >/dev/null &&
    $FL mkfs "$IMG" >/dev/null || { echo "FAIL: cannot make an image"; exit 1; }
opts=; [ $root = 1 ] && opts="-o allow_other" # other users may enter
# shellcheck disable=SC2086
$FL mount $opts "$IMG" "$M" || { echo "FAIL: cannot mount"; exit 1; }
cd "$M" || exit 1
attrs() { lsattr -d "$1" 2>/dev/null | cut -c1-22; } # the flag letters

echo hello > i && echo log > a && mkdir d && echo in > d/f
check "a new file has no flags" '[ "$(attrs i)" = "----------------------" ]'
check "chattr +i" 'chattr +i i && [ "$(attrs i)" = "----i-----------------" ]'
check "immutable: no write (O_WRONLY|O_TRUNC)" '! (echo x > i) 2>/dev/null'
check "immutable: no append" '! (echo x >> i) 2>/dev/null'
check "immutable: no truncate" '! truncate -s 0 i 2>/dev/null'
check "immutable: no chmod, chown, touch" \
    '! chmod 600 i 2>/dev/null && ! chown 1 i 2>/dev/null && ! touch i 2>/dev/null'
check "immutable: no xattr" '! setfattr -n user.k -v v i 2>/dev/null'
check "immutable: no unlink, rename, link" \
    '! rm -f i 2>/dev/null && ! mv i j 2>/dev/null && ! ln i j 2>/dev/null'
check "immutable: no fallocate" '! fallocate -l 8192 i 2>/dev/null'
check "immutable: the data is still there" '[ "$(cat i)" = hello ] && [ ! -e j ]'
check "chattr +a" 'chattr +a a && [ "$(attrs a)" = "-----a----------------" ]'
check "append-only: appends" 'echo more >> a && [ "$(cat a)" = "log
more" ]'
check "append-only: no overwrite, no truncate" \
    '! (echo x > a) 2>/dev/null && ! truncate -s 0 a 2>/dev/null'
check "append-only: no unlink" '! rm -f a 2>/dev/null && [ -e a ]'
check "chattr +i on a directory: no new name, no unlink" \
    'chattr +i d && ! touch d/new 2>/dev/null && ! rm -f d/f 2>/dev/null && [ ! -e d/new ]'
check "... but its file changes" 'echo changed > d/f && [ "$(cat d/f)" = changed ]'
check "xfs_io chattr +A, +s (sync), +d; lsattr reads them" \
    'xfs_io -c "chattr +Asd" d/f && [ "$(attrs d/f)" = "--S---dA--------------" ]'
check "xfs_io lsattr reads what chattr set" \
    'xfs_io -r -c lsattr i | grep -q "^-*i-* i"'
check "an unknown flag (c, compression) is refused" '! chattr +c d/f 2>/dev/null'

if [ $root = 1 ] && have setpriv; then
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
    touch mine && chown 65534:65534 mine
    check "a user without CAP_LINUX_IMMUTABLE cannot set i or a" \
        '! as_nobody chattr +i mine 2>/dev/null && ! as_nobody chattr +a mine 2>/dev/null &&
         [ "$(attrs mine)" = "----------------------" ]'
    check "the owner sets d" 'as_nobody chattr +d mine && [ "$(attrs mine)" = "------d---------------" ]'
    check "another user sets nothing" '! as_nobody chattr +d i 2>/dev/null'
else
    skip $NROOT "not root, or no setpriv"
fi

cd "$T"
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true
check "fsck: the image is clean" "$FL fsck '$IMG' >/dev/null"
check "flashlab stat prints the flags" \
    '$FL stat "$IMG:/d/f" | grep -qx "flags:  SdA (sync, no dump, no atime)" &&
     $FL stat "$IMG:/i" | grep -qx "flags:  i (immutable)"'
$FL mount "$IMG" "$M" || { echo "FAIL: cannot remount"; exit 1; }
check "flags survive the unmount, and bind" \
    '[ "$(attrs "$M/i")" = "----i-----------------" ] && ! rm -f "$M/i" 2>/dev/null &&
     [ "$(attrs "$M/d/f")" = "--S---dA--------------" ]'
check "chattr -i, then it goes" 'chattr -i "$M/i" "$M/d" && rm "$M/i" "$M/d/f"'
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true

# chattr +S: each write is in IMAGE.journal when it returns (a kill -9 of
# the mount keeps it); a write after it, unsynced, is lost
$FL mount "$IMG" "$M" || { echo "FAIL: cannot remount"; exit 1; }
pid=$(sed -n 's/^pid=//p' "$IMG.lock")
touch "$M/s" && chattr +S "$M/s" && echo synced > "$M/s" && echo lost > "$M/later"
kill -9 "$pid"
n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
fusermount3 -u "$M" 2>/dev/null # the dead mount's leftover
check "chattr +S: a write survives kill -9 of the mount" \
    '[ "$($FL cat "$IMG:/s")" = synced ] && $FL stat "$IMG:/s" | grep -q "^flags:  S "'
check "... and an unsynced one after it does not" '! $FL stat "$IMG:/later" >/dev/null 2>&1'

# format 5 keeps none: the golden image, mounted read-write
V5=$T/v5.img; IMAGES="$IMAGES $V5"
gunzip -c "$SRC/tests/golden/logfs-v5.img.gz" > "$V5"
$FL mount "$V5" "$M" || { echo "FAIL: cannot mount the v5 image"; exit 1; }
check "format 5: no flags, chattr +i not supported" \
    '[ "$(attrs "$M/dir/hello.txt")" = "----------------------" ] &&
     chattr +i "$M/dir/hello.txt" 2>&1 | grep -q "Operation not supported"'
fusermount3 -u "$M" && flock -w 60 "$V5.lock" true
check "format 5: still format 5" "$FL fsck -v '$V5' | grep -q 'format version 5'"

# a kind without attributes: the ioctl is not ours
B=$T/b.img; IMAGES="$IMAGES $B"
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$B" >/dev/null &&
    $FL mkfs --fs blockfs "$B" >/dev/null && $FL mount "$B" "$M" ||
    { echo "FAIL: cannot mount blockfs"; exit 1; }
echo x > "$M/f"
# (the daemon answers ENOTTY; this kernel tells lsattr EOPNOTSUPP)
check "blockfs: lsattr fails, chattr too" \
    '! lsattr "$M/f" >/dev/null 2>&1 && ! chattr +d "$M/f" 2>/dev/null'
fusermount3 -u "$M" && flock -w 60 "$B.lock" true
summary
[ "$failed" -eq 0 ]
