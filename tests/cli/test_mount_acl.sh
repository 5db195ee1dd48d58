#!/bin/sh
# flashlab mount, issue #30: POSIX ACLs through the kernel (setfacl and
# getfacl, the acl package) and renameat2's EXCHANGE (in the trace) and
# WHITEOUT.  An access ACL sets
# the mode (its mask is the group bits), chmod rewrites the ACL, removing
# it leaves the mode; the kernel enforces a named user's entry; a new file
# takes its directory's default ACL, a new directory the default ACL too,
# and without one the umask applies; everything survives the unmount and
# fsck finds the image clean.  Needs /dev/fuse, fusermount3 and the acl
# tools; the checks that switch users or make whiteouts need root; what
# cannot run is reported as skipped.
. "$(dirname "$0")/lib.sh"
NCHECKS=19 # reported as skipped when FUSE or the acl tools cannot be used
NROOT=7    # of them, the checks that need root or python3
SUITE=test_mount_acl; . "$(dirname "$0")/mountlib.sh"
if [ ! -c /dev/fuse ] || ! have fusermount3 || ! have flock || ! have setfacl ||
   ! have getfacl; then
    echo "$SUITE: FUSE or the acl tools are not usable here"
    skipped=$NCHECKS; summary; exit 0
fi
root=0; [ "$(id -u)" = 0 ] && root=1
M=$T/m; IMG=$T/a.img
mkdir -p "$M"; MOUNTS=$M; IMAGES=$IMG
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$IMG" >/dev/null &&
    $FL mkfs "$IMG" >/dev/null || { echo "FAIL: cannot make an image"; exit 1; }
opts=; [ $root = 1 ] && opts="-o allow_other" # other users may enter
# shellcheck disable=SC2086
$FL mount $opts --trace "$T/ops.fst" "$IMG" "$M" || { echo "FAIL: cannot mount"; exit 1; }
cd "$M" || exit 1
umask 022
acl_of() { getfacl -n -c -p -E "$1" 2>/dev/null | grep -v '^$' | tr '\n' ' '; }

touch f && setfacl -m u:4242:rw f
check "an access ACL is kept and read back" \
    '[ "$(acl_of f)" = "user::rw- user:4242:rw- group::r-- mask::rw- other::r-- " ]'
check "the ACL's mask is the mode's group bits" '[ "$(stat -c %a f)" = 664 ]'
chmod 640 f
check "chmod rewrites the ACL (owner, mask, other)" \
    '[ "$(acl_of f)" = "user::rw- user:4242:rw- group::r-- mask::r-- other::--- " ]'
setfacl -b f
check "removing the ACL leaves the mode" \
    '[ "$(acl_of f)" = "user::rw- group::r-- other::--- " ] && [ "$(stat -c %a f)" = 640 ]'
setfacl -m u::rwx,g::r-x,o::r-- f
check "an ACL the mode says alone sets the mode only" \
    '[ "$(stat -c %a f)" = 754 ] && ! getfattr -n system.posix_acl_access f >/dev/null 2>&1'

mkdir d && setfacl -d -m u:4242:rwx,g::r-x,o::- d
touch d/new && mkdir d/sub
check "a new file: default ACL masked by its mode" \
    '[ "$(stat -c %a d/new)" = 660 ] && [ "$(acl_of d/new)" = "user::rw- user:4242:rwx group::r-x mask::rw- other::--- " ]'
check "a new directory inherits the default ACL" \
    '[ "$(stat -c %a d/sub)" = 770 ] && getfacl -n -c -d d/sub | grep -q "^user:4242:rwx"'
(umask 027 && touch plain && mkdir plaindir)
check "without a default ACL the umask applies" \
    '[ "$(stat -c %a plain)" = 640 ] && [ "$(stat -c %a plaindir)" = 750 ]'
check "a file in a directory without default ACL has none" \
    '[ "$(acl_of plain)" = "user::rw- group::r-- other::--- " ]'

if [ $root = 1 ] && have setpriv && have python3 && have xfs_io; then
    echo secret > s && chmod 600 s && setfacl -m u:65534:r s
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    check "the kernel grants a named user's entry" '[ "$(as_nobody cat s 2>/dev/null)" = secret ]'
    setfacl -x u:65534 s
    check "... and refuses once it is gone" '! as_nobody cat s 2>/dev/null'
    # renameat2 (x86_64 syscall 316) with flags $3: 2 EXCHANGE, 4 WHITEOUT
    rename2() { python3 -c "import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(316, -100, sys.argv[1].encode(), -100, sys.argv[2].encode(), int(sys.argv[3])):
    sys.exit(os.strerror(ctypes.get_errno()))" "$@"; }
    echo w > w1
    check "RENAME_WHITEOUT leaves a whiteout" 'rename2 w1 w2 4 &&
        [ "$(stat -c "%F %t:%T" w1)" = "character special file 0:0" ] && [ "$(cat w2)" = w ]'
    echo x > x1 && mkdir x2
    check "RENAME_EXCHANGE swaps a file and a directory" \
        'rename2 x1 x2 2 && [ -d x1 ] && [ "$(cat x2)" = x ]'
    # setting an ACL drops set-group-ID for an owner outside the group
    touch g1 g2 && chown 65534:4242 g1 g2 && chmod 2770 g1 g2
    as_nobody setfacl -m u:4243:r g1 && setfacl -m u:4243:r g2
    check "an ACL set by an owner outside the group drops set-group-ID, by root not" \
        '[ "$(stat -c %a g1)" = 770 ] && [ "$(stat -c %a g2)" = 2770 ]'
    # a write, truncate or punch by a caller outside the group drops
    # set-user-ID and set-group-ID even without group execute (VFS since 6.2)
    for op in "pwrite 0 1" "truncate 100" "fpunch 0 4k"; do
        name=k${op%% *}; head -c 8192 /dev/zero > "$name" && chmod 6666 "$name"
        as_nobody xfs_io -c "$op" "$name" >/dev/null
    done
    cp kpwrite kroot && chmod 6666 kroot && xfs_io -c "pwrite 0 1" kroot >/dev/null
    check "write, truncate, punch by another user drop both set-ID bits, root's write not" \
        '[ "$(stat -c %a kpwrite ktruncate kfpunch kroot | tr "\n" " ")" = "666 666 666 6666 " ]'
else
    skip $NROOT "not root, or no setpriv/python3/xfs_io"
fi

cd "$T"
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true
check "fsck: the image is clean" "$FL fsck '$IMG' >/dev/null"
if [ $root = 1 ] && have python3; then
    check "the trace has the exchange, and the modes the umask made" \
        'grep -q " exchange /x1 /x2\$" "$T/ops.fst" && grep -q " mkdir /plaindir 0750\$" "$T/ops.fst"'
else
    skip 1 "not root, or no python3"
fi
$FL mount "$IMG" "$M" || { echo "FAIL: cannot remount"; exit 1; }
check "ACLs survive the unmount" \
    '[ "$(acl_of "$M/d/new")" = "user::rw- user:4242:rwx group::r-x mask::rw- other::--- " ] &&
     getfacl -n -c -d "$M/d" 2>/dev/null | grep -q "^user:4242:rwx"'
check "modes survive the unmount" '[ "$(stat -c %a "$M/f")" = 754 ]'
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true
summary
[ "$failed" -eq 0 ]
