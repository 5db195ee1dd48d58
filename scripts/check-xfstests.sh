#!/bin/sh
# check-xfstests.sh XFSTESTS FLASHLAB HELPER WORK [GROUP_OR_TESTS...]:
# `make check-xfstests`.  Runs xfstests' ./check (default: -g quick) from
# the built tree XFSTESTS with FSTYP=fuse, FUSE_SUBTYP=.flashlab and two
# fresh LogFS images as TEST_DEV and SCRATCH_DEV, under WORK (build/xfstests):
#   WORK/test.img, WORK/scratch.img   the devices (1 GiB SLC parts)
#   WORK/test, WORK/scratch           TEST_DIR, SCRATCH_MNT
#   WORK/results/                     RESULT_BASE: per-test .out.bad, .full, check.log
#   WORK/check.out                    what ./check printed
# mount(8) runs HELPER (mount.fuse.flashlab) for every mount, in a private
# mount namespace (scripts/with-mount-helper.sh), and HELPER runs
# `flashlab fsck` on the image before each mount (-o fsck; subtype= makes
# the type plain fuse, which xfstests compares with FSTYP; noatime tells
# xfstests what the helper always mounts: reads never change atime):
# xfstests has no
# fsck for FUSE, and it unmounts the scratch device after every test that
# used it, the test device after every test that did not.  After the run
# both images are checked once more.  Exit status: ./check's, or 1 when a
# final fsck fails.  docs/mount.md has the latest counts.
set -u
xfs=${1:-}
fl=$(readlink -f "${2:-}")
helper=$(readlink -f "${3:-}")
work=${4:-}
[ $# -ge 4 ] && shift 4 || shift $#
src=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "check-xfstests: $*" >&2; exit 2; }

[ -n "$xfs" ] || die "give the built xfstests tree: make check-xfstests XFSTESTS=DIR"
[ -x "$xfs/check" ] && [ -x "$xfs/ltp/fsstress" ] ||
    die "$xfs: not a built xfstests tree (no check or ltp/fsstress: run make there; make deps-xfstests installs what it needs)"
[ "$(id -u)" = 0 ] || die "xfstests mounts file systems: run as root"
[ -c /dev/fuse ] || die "/dev/fuse is missing"
[ -x "$fl" ] && [ -x "$helper" ] || die "build flashlab first (make all)"
xfs=$(cd "$xfs" && pwd)

mkdir -p "$work"
work=$(cd "$work" && pwd)
for d in test scratch; do
    if grep -q " $work/$d " /proc/mounts; then die "$work/$d is mounted: unmount it first"; fi
done
rm -rf "$work/results" "$work/test.img"* "$work/scratch.img"*
mkdir -p "$work/test" "$work/scratch" "$work/results"
for d in test scratch; do
    "$fl" sim create --device "$src/configs/devices/olpc-xo1-slc-1g.yaml" "$work/$d.img" >/dev/null &&
        "$fl" mkfs "$work/$d.img" >/dev/null || die "cannot make $work/$d.img"
done

# xfstests reads its settings from HOST_OPTIONS (a local.config of ours)
cat > "$work/local.config" <<EOF
export FSTYP=fuse
export FUSE_SUBTYP=.flashlab
export TEST_DEV=$work/test.img
export TEST_DIR=$work/test
export SCRATCH_DEV=$work/scratch.img
export SCRATCH_MNT=$work/scratch
export TEST_FS_MOUNT_OPTS="-o fsck,subtype=,noatime"
export MOUNT_OPTIONS="-o fsck,subtype=,noatime"
export RESULT_BASE=$work/results
EOF
[ $# -gt 0 ] || set -- -g quick

echo "check-xfstests: xfstests from $xfs, devices in $work (log: $work/check.out)"
start=$(date +%s)
W=$work HOST_OPTIONS=$work/local.config "$src/scripts/with-mount-helper.sh" "$helper" sh -c '
    cd "$1" && shift
    ./check "$@"
    rc=$?
    # what a failed test left mounted; the daemons save and exit
    for d in "$W/scratch" "$W/test"; do
        while grep -q " $d fuse" /proc/mounts; do umount "$d" || break; done
    done
    exit $rc' sh "$xfs" "$@" 2>&1 | tee "$work/check.out"
rc=$(grep -q '^Failures:' "$work/check.out" && echo 1 || echo 0)
echo "check-xfstests: wall $(( $(date +%s) - start )) s"

# the last state of both images, after the daemons' saves
for d in test scratch; do
    flock -w 300 "$work/$d.img.lock" true
    if out=$("$fl" fsck "$work/$d.img" 2>&1); then
        echo "check-xfstests: $d.img: $(printf '%s\n' "$out" | tail -n 1)"
    else
        printf '%s\n' "$out"
        echo "check-xfstests: $d.img: flashlab fsck FAILED"
        rc=1
    fi
done
exit "$rc"
