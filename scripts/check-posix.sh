#!/bin/sh
# check-posix.sh PJDFSTEST FLASHLAB [SUITE...] -- `make check-posix`: run
# pjdfstest (POSIX conformance, https://github.com/pjd/pjdfstest) on a
# fresh LogFS image mounted with `flashlab mount -o allow_other`.
#   PJDFSTEST  a checkout of pjdfstest (pjdfstest.c and tests/); it is
#              copied and built in a temporary directory, never written
#   FLASHLAB   the flashlab program
#   SUITE      tests/ subdirectories (chmod, utimensat ...); none: all
# Must run as root (the suite switches uids, and only root may let them
# into a FUSE mount without /etc/fuse.conf's user_allow_other).  Prints
# one line per failing test file ("FILE Failed: N/M" as prove reports it)
# and last "pjdfstest: F of N assertions failed in K files"; exit 0 when
# none failed.
set -u
usage() { echo "usage: make check-posix PJDFSTEST=DIR [SUITES='chmod utimensat ...']" >&2; exit 2; }
pjd=${1:-}; fl=${2:-}
[ -n "$pjd" ] || { echo "check-posix: PJDFSTEST is not given: the pjdfstest source directory" >&2; usage; }
[ -f "$pjd/pjdfstest.c" ] && [ -d "$pjd/tests" ] ||
    { echo "check-posix: $pjd is not a pjdfstest checkout (no pjdfstest.c and tests/)" >&2; exit 2; }
[ -x "$fl" ] || { echo "check-posix: no flashlab program at '$fl'" >&2; exit 2; }
shift 2
[ "$(id -u)" = 0 ] || { echo "check-posix: must run as root (pjdfstest switches uids; the mount needs -o allow_other)" >&2; exit 2; }
for c in prove cc fusermount3 flock; do
    command -v $c >/dev/null 2>&1 || { echo "check-posix: needs $c" >&2; exit 2; }
done
[ -c /dev/fuse ] || { echo "check-posix: /dev/fuse is missing" >&2; exit 2; }
case $fl in /*) ;; *) fl=$PWD/$fl ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d /tmp/flashlab-posix.XXXXXX) || exit 2
chmod 755 "$work" # the suite's other uids must reach the mount below
img=$work/fs.img; mnt=$work/mnt
cleanup() {
    cd /
    grep -q " $mnt fuse" /proc/mounts 2>/dev/null && fusermount3 -u -z "$mnt"
    [ -f "$img" ] && flock -w 60 "$img" true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

cp -r "$pjd" "$work/pjd"
# a checkout newer than 2019 leaves config.h to autoconf: write what its
# configure finds on Linux with glibc (the *at calls, utimensat,
# posix_fallocate), so that no autotools are needed
[ -f "$work/pjd/config.h" ] || for f in FACCESSAT FCHMODAT FCHOWNAT FSTATAT LINKAT MKDIRAT \
        MKFIFOAT MKNODAT OPENAT POSIX_FALLOCATE READLINKAT RENAMEAT SYMLINKAT UTIMENSAT; do
    echo "#define HAVE_$f 1"
done > "$work/pjd/config.h"
cc -O2 -D_GNU_SOURCE -include sys/sysmacros.h -I"$work/pjd" -o "$work/pjd/pjdfstest" \
    "$work/pjd/pjdfstest.c" || { echo "check-posix: pjdfstest does not build" >&2; exit 2; }
# a 256 MiB device: test-64m with four times the blocks
sed 's/blocks_per_plane: 512/blocks_per_plane: 2048/' "$src/configs/devices/test-64m.yaml" \
    > "$work/dev.yaml"
"$fl" sim create --device "$work/dev.yaml" "$img" >/dev/null && "$fl" mkfs "$img" >/dev/null ||
    { echo "check-posix: cannot make the image" >&2; exit 1; }
mkdir "$mnt"
"$fl" mount -o allow_other "$img" "$mnt" || { echo "check-posix: mount failed" >&2; exit 1; }
mkdir "$mnt/pjd" && chmod 777 "$mnt/pjd"

dirs=""
if [ $# -eq 0 ]; then dirs=$work/pjd/tests; else for s in "$@"; do dirs="$dirs $work/pjd/tests/$s"; done; fi
log=$work/prove.log
# shellcheck disable=SC2086
(cd "$mnt/pjd" && prove -r $dirs) > "$log" 2>&1
# a file counts when an assertion failed or the script died (Wstat); one
# whose only note is "TODO passed" (Wstat 0, Failed 0) does not
grep -E 'Wstat: [0-9]+ Tests: [0-9]+ Failed: [0-9]+' "$log" |
    grep -vE 'Wstat: 0 Tests: [0-9]+ Failed: 0\)' > "$work/bad-files"
sed "s|$work/pjd/tests/||" "$work/bad-files" | awk '{ print $1, $(NF-1), $NF }' | sed 's/)$//'
total=$(grep -oE '^Files=[0-9]+, Tests=[0-9]+' "$log" | grep -oE 'Tests=[0-9]+' | cut -d= -f2)
failed=$(grep -oE 'Failed: [0-9]+\)' "$log" | grep -oE '[0-9]+' | awk '{s+=$1} END{print s+0}')
files=$(wc -l < "$work/bad-files")
[ -n "${KEEP_LOG:-}" ] && cp "$log" "$KEEP_LOG"
echo "pjdfstest: ${failed} of ${total:-?} assertions failed in ${files} files"
[ "$failed" -eq 0 ] && [ "$files" -eq 0 ] && [ -n "$total" ]
