#!/bin/sh
# check-integck.sh MTD_UTILS FLASHLAB WORK -- `make check-integck`: run
# mtd-utils' flash file system tests on flashlab mounts of LogFS images.
#   MTD_UTILS  mtd-utils' sources: a work tree, or a git directory (its
#              HEAD is exported); built under WORK, never written
#   FLASHLAB   the flashlab program
#   WORK       a build directory for them and the LD_PRELOAD shim
# Runs, each on a fresh image (configs/devices/test-64m.yaml):
#   1. integck -n $INTEGCK_N -e (default 10): its remounts go through
#      scripts/integck/mount_shim.c (mount(2) of a flashlab source runs
#      flashlab mount; remounts ro <-> rw and umount(2) are the kernel's);
#   2. fs-tests' test_1 and test_2;
#   3. integck -p -v (power-cut mode, which never ends by itself) with
#      every mount cut at random (-o powercut=random,seed=$SEED,mean_ops=
#      $MEAN_OPS), stopped after $CUTS (default 100) "re-mount the FS and
#      re-start" lines; it passes when no check failed.
# PARTS="integck fs-tests powercut" (the default) picks among them.
# Then every image must pass `flashlab fsck`.  Must run as root (integck
# calls umount(2) and mount(2) itself).  Prints one line per test and last
# "integck: N of M passed"; exit 0 when all passed.  KEEP_LOGS=DIR keeps
# the logs.
set -u
usage() { echo "usage: make check-integck MTD_UTILS=DIR  (mtd-utils' git dir or work tree)" >&2; exit 2; }
mtd=${1:-}; fl=${2:-}; work=${3:-}
[ -n "$mtd" ] || { echo "check-integck: MTD_UTILS is not given" >&2; usage; }
[ -x "$fl" ] && [ -n "$work" ] || usage
[ "$(id -u)" = 0 ] || { echo "check-integck: must run as root (integck calls umount(2) and mount(2))" >&2; exit 2; }
for c in cc git fusermount3 flock timeout; do
    command -v $c >/dev/null 2>&1 || { echo "check-integck: needs $c" >&2; exit 2; }
done
[ -c /dev/fuse ] || { echo "check-integck: /dev/fuse is missing" >&2; exit 2; }
# A mount namespace of its own: another namespace made meanwhile (unshare
# -m, a container) would copy these mounts and keep an image that integck
# unmounted alive there, its mount process never told to save and exit.
if [ -z "${CHECK_INTEGCK_NS:-}" ] && command -v unshare >/dev/null 2>&1; then
    CHECK_INTEGCK_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
case $fl in /*) ;; *) fl=$PWD/$fl ;; esac
src=$(cd "$(dirname "$0")/../.." && pwd)
PARTS=${PARTS:-integck fs-tests powercut}; part() { case " $PARTS " in *" $1 "*) ;; *) return 1 ;; esac; }
N=${INTEGCK_N:-10}; CUTS=${CUTS:-100}; SEED=${SEED:-1}; MEAN_OPS=${MEAN_OPS:-500}

mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2
rm -rf "$work/mtd" "$work/run"
mkdir -p "$work/mtd" "$work/run"
if [ -f "$mtd/tests/fs-tests/integrity/integck.c" ]; then
    cp -r "$mtd/." "$work/mtd/"
elif git --git-dir="$mtd" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    git --git-dir="$mtd" archive HEAD | tar -x -C "$work/mtd"
else
    echo "check-integck: $mtd is neither an mtd-utils work tree nor its git directory" >&2; exit 2
fi
m=$work/mtd; bin=$work/bin
mkdir -p "$bin"
cc -O2 -D_GNU_SOURCE -DVERSION='"flashlab-check"' -DPROGRAM_NAME='"integck"' -w \
    -I"$m/include" -I"$m/ubi-utils/include" -o "$bin/integck" \
    "$m/tests/fs-tests/integrity/integck.c" "$m/lib/libubi.c" "$m/lib/execinfo.c" &&
for t in test_1 test_2; do
    cc -O2 -D_GNU_SOURCE -w -I"$m/tests/fs-tests/lib" -I"$m/include" -o "$bin/$t" \
        "$m/tests/fs-tests/simple/$t.c" "$m/tests/fs-tests/lib/tests.c" || exit 2
done &&
cc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$bin/mount_shim.so" \
    "$src/scripts/integck/mount_shim.c" -ldl ||
    { echo "check-integck: the tests or the shim do not build" >&2; exit 2; }

run=$work/run; MOUNTS=""; IMAGES=""
cleanup() {
    cd /
    for d in $MOUNTS; do
        grep -q " $d fuse" /proc/mounts 2>/dev/null && fusermount3 -u -z "$d"
    done
    for i in $IMAGES; do [ -f "$i" ] && flock -w 60 "$i.lock" true; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
passed=0; total=0
result() { # NAME GOOD DETAIL
    total=$((total + 1))
    if [ "$2" = 1 ]; then passed=$((passed + 1)); echo "$1: passed ($3)"; else echo "$1: FAILED ($3)"; fi
}
# fresh NAME: a new image and mount point, mounted
fresh() {
    img=$run/$1.img; mnt=$run/$1
    mkdir -p "$mnt"; MOUNTS="$MOUNTS $mnt"; IMAGES="$IMAGES $img"
    "$fl" sim create --device "$src/configs/devices/test-64m.yaml" "$img" >/dev/null &&
        "$fl" mkfs "$img" >/dev/null && "$fl" mount "$img" "$mnt"
}
# finish NAME: unmount (every mount there: a killed integck may have had
# one in the making), wait for the save, fsck (0 when clean)
finish() {
    cd /
    quiet=0
    while [ $quiet -lt 2 ]; do
        if grep -q " $run/$1 fuse" /proc/mounts; then fusermount3 -u "$run/$1"; quiet=0
        else quiet=$((quiet + 1)); sleep 1; fi
    done
    flock -w 120 "$run/$1.img.lock" true
    "$fl" fsck "$run/$1.img" > "$run/$1.fsck" 2>&1
}
shim() { LD_PRELOAD=$bin/mount_shim.so FLASHLAB_BIN=$fl "$@"; }

# 1. integck -n N -e
if part integck; then
fresh integck || exit 1
t0=$(date +%s)
shim "$bin/integck" -n "$N" -e "$run/integck" > "$run/integck.log" 2>&1; rc=$?
finish integck; frc=$?
result "integck -n $N -e" "$([ $rc = 0 ] && [ $frc = 0 ] && echo 1)" \
    "exit $rc, $(($(date +%s) - t0)) s, fsck exit $frc"
fi

# 2. fs-tests test_1, test_2
part fs-tests &&
for t in test_1 test_2; do
    fresh "$t" || exit 1
    t0=$(date +%s)
    (cd "$run/$t" && TEST_FILE_SYSTEM_TYPE=fuse TEST_FILE_SYSTEM_MOUNT_DIR=$run/$t "$bin/$t") \
        > "$run/$t.log" 2>&1; rc=$?
    left=$(ls -A "$run/$t" | wc -l)
    finish "$t"; frc=$?
    result "fs-tests $t" "$([ $rc = 0 ] && [ "$left" = 0 ] && [ $frc = 0 ] && echo 1)" \
        "exit $rc, $(($(date +%s) - t0)) s, $left entries left, fsck exit $frc"
done

# 3. integck -p -v under random power cuts, stopped after CUTS restarts
if part powercut; then
fresh powercut || exit 1
t0=$(date +%s)
# (no shell function here: $! must be integck's own pid, to stop it)
LD_PRELOAD=$bin/mount_shim.so FLASHLAB_BIN=$fl \
    FLASHLAB_MOUNT_OPTS=powercut=random,seed=$SEED,mean_ops=$MEAN_OPS \
    "$bin/integck" -p -v "$run/powercut" > "$run/powercut.log" 2>&1 &
pid=$!
n=0; limit=$((t0 + ${CUTS_TIMEOUT:-3600}))
while kill -0 $pid 2>/dev/null && [ "$n" -lt "$CUTS" ] && [ "$(date +%s)" -lt $limit ]; do
    sleep 2
    n=$(grep -c "re-mount the FS and re-start" "$run/powercut.log")
done
alive=0; kill -0 $pid 2>/dev/null && alive=1 && kill $pid
wait $pid 2>/dev/null
n=$(grep -c "re-mount the FS and re-start" "$run/powercut.log")
bad=$(grep -c "error!" "$run/powercut.log")
# what was mounted there when it ended (for a failure's diagnosis)
{ grep " $run/powercut " /proc/mounts; ps -eo pid,args | grep "[f]lashlab mount"; } \
    > "$run/powercut.mounts"
# the last image may be torn: a mount recovers it, then fsck must be clean
finish powercut
"$fl" mount "$img" "$mnt" && finish powercut; frc=$?
result "integck -p, $CUTS power cuts (seed $SEED, mean_ops $MEAN_OPS)" \
    "$([ "$n" -ge "$CUTS" ] && [ $alive = 1 ] && [ "$bad" = 0 ] && [ $frc = 0 ] && echo 1)" \
    "$n restarts, $bad failed checks, $(($(date +%s) - t0)) s, fsck exit $frc"
fi

[ -n "${KEEP_LOGS:-}" ] && mkdir -p "$KEEP_LOGS" && cp "$run"/*.log "$run"/*.fsck "$run"/*.mounts "$KEEP_LOGS"/
echo "integck: $passed of $total passed"
[ "$passed" = "$total" ]
