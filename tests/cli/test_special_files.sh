#!/bin/sh
# Special files and extended attributes (LogFS format 4): mknod and xattr
# from the CLI, fsck on the result, ENOTSUP on the baselines, and through a
# FUSE mount: mkfifo/mknod, setfattr/getfattr, cp -a and tar --xattrs
# keeping attributes (that part is skipped without FUSE or attr).
SRC=$(pwd)
. "$SRC/tests/cli/lib.sh"
DEV=$SRC/configs/devices/test-64m.yaml
I=$T/fs.img
check() { if eval "$2"; then ok; else bad "$1"; fi; }
$FL sim create --device "$DEV" "$I" >/dev/null && $FL mkfs "$I" >/dev/null || { echo "FAIL: setup"; exit 1; }

# ---- the CLI -------------------------------------------------------------
expect 0 "mknod fifo" "" -- $FL mknod "$I:/fifo" p
expect 0 "mknod char device" "" -- $FL mknod --mode 0600 "$I:/null" c 1 3
expect 0 "mknod block device" "" -- $FL mknod "$I:/sda1" b 8 1
expect 0 "mknod socket" "" -- $FL mknod "$I:/sock" s
expect 0 "stat shows the device numbers" "device: 8, 1" -- $FL stat "$I:/sda1"
expect 0 "stat shows the type" "type:   fifo" -- $FL stat "$I:/fifo"
expect 0 "stat shows the mode" "crw-------" -- $FL stat "$I:/null"
expect 1 "a name taken" "file exists" -- $FL mknod "$I:/fifo" p
expect 2 "a bad type" "is not p, s, c or b" -- $FL mknod "$I:/x" q
expect 2 "a device without numbers" "needs MAJOR and MINOR" -- $FL mknod "$I:/x" c
expect 1 "a FIFO is not read through the image" "no such device" -- $FL cat "$I:/fifo"
printf 'data\n' > "$T/f"
$FL put "$T/f" "$I:/file" >/dev/null
expect 0 "xattr set" "" -- $FL xattr set "$I:/file" user.b "second"
expect 0 "xattr set another" "" -- $FL xattr set "$I:/file" user.a "first"
expect 0 "xattr set trusted" "" -- $FL xattr set "$I:/file" trusted.t "t"
expect 0 "xattr get" "^first$" -- $FL xattr get "$I:/file" user.a
out=$($FL xattr list "$I:/file" | tr '\n' ' ')
check "xattr list in name order" '[ "$out" = "trusted.t user.a user.b " ]'
expect 0 "xattr replace" "" -- $FL xattr set "$I:/file" user.a "changed"
expect 0 "xattr get after replace" "^changed$" -- $FL xattr get "$I:/file" user.a
expect 0 "xattr rm" "" -- $FL xattr rm "$I:/file" user.b
expect 1 "xattr get of a removed name" "no attribute user.b" -- $FL xattr get "$I:/file" user.b
expect 1 "user. attributes only on files and directories" "not permitted" -- \
    $FL xattr set "$I:/fifo" user.x y
expect 0 "trusted. attributes on a FIFO" "" -- $FL xattr set "$I:/fifo" trusted.x y
expect 1 "system. is not kept but for POSIX ACLs" "not supported" -- \
    $FL xattr set "$I:/file" system.other x
expect 1 "a POSIX ACL must be well formed" "invalid argument" -- \
    $FL xattr set "$I:/file" system.posix_acl_access x
expect 0 "fsck: clean with special files and attributes" "clean" -- $FL fsck "$I"
expect 0 "removing a file with attributes" "" -- $FL rm "$I:/file"
expect 0 "fsck: its attribute inode went with it" "clean" -- $FL fsck "$I"

# ---- the baselines have neither ----------------------------------------
B=$T/b.img
$FL sim create --device "$DEV" "$B" >/dev/null && $FL mkfs --fs blockfs "$B" >/dev/null
$FL put "$T/f" "$B:/file" >/dev/null
expect 1 "blockfs: mknod is ENOTSUP" "not supported" -- $FL mknod "$B:/fifo" p
expect 1 "blockfs: xattr is ENOTSUP" "not supported" -- $FL xattr set "$B:/file" user.a b

# ---- through a mount ----------------------------------------------------
M=$T/m
mkdir -p "$M"
NMOUNT=12
summary() { echo "test_special_files: $passed passed, $failed failed, ${skipped:-0} skipped"; }
if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null || ! command -v setfattr >/dev/null; then
    echo "SKIP ($NMOUNT): no FUSE or no attr (setfattr) here"; skipped=$NMOUNT; summary; exit 0
fi
I2=$T/m.img
$FL sim create --device "$DEV" "$I2" >/dev/null && $FL mkfs "$I2" >/dev/null
if ! $FL mount "$I2" "$M" >"$T/mount.log" 2>&1; then
    echo "SKIP ($NMOUNT): cannot mount: $(cat "$T/mount.log")"; skipped=$NMOUNT; summary; exit 0
fi
trap 'fusermount3 -u -z "$M" 2>/dev/null; rm -rf "$T"' EXIT
check "mkfifo on the mount" 'mkfifo "$M/fifo" && [ -p "$M/fifo" ]'
check "mknod of a device on the mount" 'mknod "$M/dev" c 4 5 && [ "$(stat -c %t,%T "$M/dev")" = "4,5" ]'
check "a FIFO carries data between two processes" \
    '( printf hello > "$M/fifo" & ) ; [ "$(cat "$M/fifo")" = hello ]'
printf 'payload\n' > "$M/f"
check "setfattr/getfattr" 'setfattr -n user.color -v blue "$M/f" &&
    [ "$(getfattr --only-values -n user.color "$M/f")" = blue ]'
check "a 64 KiB value" 'head -c 65536 /dev/zero | tr "\0" v > "$T/big" &&
    setfattr -n user.big -v "$(cat "$T/big")" "$M/f" &&
    [ "$(getfattr --only-values -n user.big "$M/f" | wc -c)" = 65536 ]'
check "getfattr -d lists the names" 'getfattr -d "$M/f" 2>/dev/null | grep -q "user.color"'
check "setfattr -x removes" 'setfattr -x user.big "$M/f" && ! getfattr -n user.big "$M/f" 2>/dev/null'
check "cp -a keeps attributes" 'cp -a "$M/f" "$M/g" &&
    [ "$(getfattr --only-values -n user.color "$M/g")" = blue ]'
check "tar --xattrs keeps attributes" '(cd "$M" && tar --xattrs --xattrs-include="user.*" -cf "$T/x.tar" f) &&
    mkdir "$M/out" && (cd "$M/out" && tar --xattrs --xattrs-include="user.*" -xf "$T/x.tar") &&
    [ "$(getfattr --only-values -n user.color "$M/out/f")" = blue ]'
fusermount3 -u "$M" # flashlab commands wait for the save
check "after unmount: special files and attributes are on flash" \
    '$FL stat "$I2:/dev" | grep -q "device: 4, 5" && [ "$($FL xattr get "$I2:/f" user.color)" = blue ]'
check "fsck is clean after the mount" '$FL fsck "$I2" | grep -q clean'
check "the FIFO survived" '$FL stat "$I2:/fifo" | grep -q "type:   fifo"'
summary
[ "$failed" -eq 0 ]
