#!/bin/sh
# flashlab mount, issue #30: O_TMPFILE through libfuse 3.14 (the mount
# rewrites FUSE_TMPFILE, cli/mount_tmpfile.c).  An O_TMPFILE open works,
# fstat says nlink 0, no directory lists it; linkat(2) through
# /proc/self/fd with AT_SYMLINK_FOLLOW and with AT_EMPTY_PATH names it,
# with its data, and the names survive an unmount; O_EXCL makes it
# unlinkable (ENOENT); one never named leaves nothing when closed (statfs
# free again); the umask and a default ACL give the mode and ACL a create
# gives; another user owns the tmpfile it makes; a kind without tmpfile
# (jffs2) answers EOPNOTSUPP, as before.  Needs /dev/fuse, fusermount3
# and python3; AT_EMPTY_PATH and the other user need root; what cannot
# run is reported as skipped.
. "$(dirname "$0")/lib.sh"
NCHECKS=16 # reported as skipped when FUSE or python3 cannot be used
NROOT=3    # of them, the checks that need root (AT_EMPTY_PATH, setpriv)
SUITE=test_mount_tmpfile; . "$(dirname "$0")/mountlib.sh"
if [ ! -c /dev/fuse ] || ! have fusermount3 || ! have flock || ! have python3; then
    echo "$SUITE: FUSE or python3 is not usable here"
    skipped=$NCHECKS; summary; exit 0
fi
root=0; [ "$(id -u)" = 0 ] && root=1
M=$T/m; IMG=$T/a.img; JIMG=$T/j.img
mkdir -p "$M"; MOUNTS=$M; IMAGES="$IMG $JIMG"
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$IMG" >/dev/null &&
    $FL mkfs "$IMG" >/dev/null || { echo "FAIL: cannot make an image"; exit 1; }
opts=; [ $root = 1 ] && opts="-o allow_other" # another user makes one too
# shellcheck disable=SC2086
$FL mount $opts "$IMG" "$M" || { echo "FAIL: cannot mount"; exit 1; }

# tmpf.py DIR MODE DATA HOW [NAME]: an O_TMPFILE in DIR with DATA (@N: N
# bytes), then
# HOW: keep (closed unnamed), follow (linkat of /proc/self/fd/N with
# AT_SYMLINK_FOLLOW), chmod (follow, then fchmod 604), empty (linkat
# AT_EMPTY_PATH), excl (O_EXCL, then follow).  Prints what it saw: key=value lines.
cat > "$T/tmpf.py" <<'EOF'
import ctypes, os, sys
d, mode, data, how = sys.argv[1], int(sys.argv[2], 8), sys.argv[3].encode(), sys.argv[4]
if data.startswith(b"@"):
    data = b"x" * int(data[1:])
name = os.path.join(d, sys.argv[5]) if len(sys.argv) > 5 else None
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH = -100, 0x400, 0x1000
try:
    fd = os.open(d, os.O_TMPFILE | os.O_RDWR | (os.O_EXCL if how == "excl" else 0), mode)
except OSError as e:
    print("open=" + os.strerror(e.errno)); sys.exit(0)
os.write(fd, data)
st = os.fstat(fd)
print("open=ok nlink=%d mode=%o size=%d uid=%d" % (st.st_nlink, st.st_mode & 0o7777,
                                                 st.st_size, st.st_uid))
print("listed=%d" % len(os.listdir(d)))
# a reopen through /proc shares the file; closing it leaves fd working
fd2 = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY)
again = os.pread(fd2, len(data), 0)
os.close(fd2)
print("reopen=" + ("ok" if again == data and os.pwrite(fd, data, 0) == len(data) else "bad"))
if how in ("follow", "chmod", "excl"):
    rc = libc.linkat(AT_FDCWD, b"/proc/self/fd/%d" % fd, AT_FDCWD, name.encode(),
                     AT_SYMLINK_FOLLOW)
elif how == "empty":
    rc = libc.linkat(fd, b"", AT_FDCWD, name.encode(), AT_EMPTY_PATH)
if how != "keep":
    print("link=" + ("ok" if rc == 0 else os.strerror(ctypes.get_errno())))
    print("nlink_after=%d" % os.fstat(fd).st_nlink)
    if how == "chmod" and rc == 0: # through the descriptor, to its name
        os.fchmod(fd, 0o604)
        print("fchmod=%o" % (os.stat(name).st_mode & 0o7777))
os.fsync(fd)
os.close(fd)
dfd = os.open(d, os.O_RDONLY)
os.fsync(dfd) # a commit: statfs then counts what the close freed
os.close(dfd)
print("bfree=%d" % os.statvfs(d).f_bfree)
EOF
tmpf() { python3 "$T/tmpf.py" "$@"; }
has() { printf '%s\n' "$out" | grep -qx -- "$1"; }

umask 022
mkdir "$M/d"
out=$(tmpf "$M/d" 666 hello chmod named)
check "O_TMPFILE opens: nlink 0, the mode the umask leaves" 'has "open=ok nlink=0 mode=644 size=5 uid=$(id -u)"'
check "no directory lists it" 'has listed=0'
check "a reopen through /proc/self/fd shares it" 'has reopen=ok'
check "fchmod of the tmpfile once linked changes the linked file" 'has fchmod=604'
check "linkat of /proc/self/fd/N (AT_SYMLINK_FOLLOW) names it" \
    'has link=ok && has nlink_after=1 && [ "$(cat "$M/d/named")" = hello ]'
out=$(tmpf "$M/d" 600 gone excl never)
check "O_EXCL: never linkable (ENOENT)" \
    'has "link=No such file or directory" && [ ! -e "$M/d/never" ]'
check "names: only the linked one" '[ "$(ls -A "$M/d")" = named ]'
free0=$(tmpf "$M/d" 600 x keep | sed -n 's/^bfree=//p')
out=$(tmpf "$M/d" 600 @300000 keep)
check "a tmpfile closed unnamed leaves nothing (statfs free again)" \
    '[ -n "$free0" ] && has "bfree=$free0" && [ "$(ls -A "$M/d")" = named ]'
if have setfacl && have getfacl; then
    mkdir "$M/acl" && setfacl -d -m u::rwx,g::rwx,o::rx "$M/acl" &&
        mkdir "$M/acl2" && setfacl -d -m u:4242:rwx,g::r-x,o::- "$M/acl2"
    out=$(tmpf "$M/acl" 666 a follow f)
    check "a default ACL, not the umask, masks its mode (generic/389)" \
        'has link=ok && [ "$(stat -c %a "$M/acl/f")" = 664 ]'
    out=$(tmpf "$M/acl2" 666 a follow f)
    check "a named user's default ACL entry is on the linked file" \
        'has link=ok && getfacl -n -c -E "$M/acl2/f" 2>/dev/null | grep -qx "user:4242:rwx"'
else
    skip 2 "no setfacl/getfacl (acl)"
fi
# the other user needs an interpreter it may run (not root's pyenv)
py=/usr/bin/python3
if [ $root = 1 ] && have setpriv && [ -x $py ]; then
    out=$(tmpf "$M/d" 600 empty empty e2)
    check "linkat AT_EMPTY_PATH names it" 'has link=ok && [ "$(cat "$M/d/e2")" = empty ]'
    mkdir "$M/pub" && chmod 1777 "$M/pub"
    chmod 755 "$T" && chmod 644 "$T/tmpf.py"
    out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $py "$T/tmpf.py" \
          "$M/pub" 600 mine follow n)
    check "another user's tmpfile is its own, and it can name it" \
        'has "open=ok nlink=0 mode=600 size=4 uid=65534" && has link=ok &&
         [ "$(stat -c %u "$M/pub/n")" = 65534 ]'
    check "fstat of the tmpfile once named: nlink 1" 'has nlink_after=1'
else
    skip $NROOT "not root, or no setpriv or $py"
fi

cd "$T"
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true
check "fsck: the image is clean" "$FL fsck '$IMG' >/dev/null"
$FL mount "$IMG" "$M" || { echo "FAIL: cannot remount"; exit 1; }
check "the linked names and their data survive the unmount" \
    '[ "$(cat "$M/d/named")" = hello ] && [ "$(ls -A "$M/d" | tr "\n" " ")" = "$(
      [ $root = 1 ] && echo "e2 named " || echo "named ")" ]'
fusermount3 -u "$M" && flock -w 60 "$IMG.lock" true

# a kind without tmpfile: EOPNOTSUPP, as the kernel says when FUSE has none
$FL sim create --device "$SRC/configs/devices/test-64m.yaml" "$JIMG" >/dev/null &&
    $FL mkfs --fs jffs2-scan "$JIMG" >/dev/null && $FL mount "$JIMG" "$M" ||
    { echo "FAIL: cannot mount a jffs2 image"; exit 1; }
out=$(tmpf "$M" 600 x keep)
check "jffs2 (no tmpfile hook): EOPNOTSUPP" 'has "open=Operation not supported"'
fusermount3 -u "$M" && flock -w 60 "$JIMG.lock" true
summary
[ "$failed" -eq 0 ]
