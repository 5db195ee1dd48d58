#!/bin/sh
# fio-mount.sh FLASHLAB PASSTHROUGH_LL WORK [SECONDS]: fio's 4 KiB random
# reads and writes, 1 and 4 jobs, so that every request reaches the daemon:
# reads O_DIRECT (not from the page cache), writes buffered (neither mount
# has a writeback cache, so each write() is a request; passthrough_ll
# fails O_DIRECT writes with EINVAL), on a flashlab mount of a fresh 1 GiB LogFS
# image and on libfuse's passthrough_ll example over a directory of WORK
# (build it from libfuse's examples: Debian's libfuse3-dev ships
# passthrough_ll.c).  Prints one line per run: fs, pattern, jobs, IOPS, and
# for flashlab the share of the run's wall time the global mutex was held
# and the mean wait for it per request.
# docs/mount.md ("Threading model") has the figures.  As root.
set -u
fl=$(readlink -f "$1") pt=$(readlink -f "$2") work=$3 secs=${4:-15}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work/fl" "$work/pt" "$work/pt-src"
work=$(cd "$work" && pwd)
rm -f "$work/fio.img"*
"$fl" sim create --device "$src/configs/devices/olpc-xo1-slc-1g.yaml" "$work/fio.img" >/dev/null &&
    "$fl" mkfs "$work/fio.img" >/dev/null || exit 1
"$fl" mount "$work/fio.img" "$work/fl" || exit 1
"$pt" -o source="$work/pt-src" "$work/pt" || { umount "$work/fl"; exit 1; }
for fs in fl pt; do
    for rw in randread randwrite; do
        direct=1
        [ $rw = randwrite ] && direct=0
        for jobs in 1 4; do
            [ $fs = fl ] && set -- $("$fl" stats "$work/fl" mount.lock_held_ns \
                                     mount.lock_wait_ns mount.fuse_ops)
            t0=$(date +%s%N)
            iops=$(fio --name=r --directory="$work/$fs" --rw=$rw --bs=4k --size=32M \
                       --numjobs=$jobs --runtime="$secs" --time_based --ioengine=psync \
                       --direct=$direct --group_reporting --output-format=terse \
                       --terse-version=3 |
                   awk -F';' -v rw=$rw '{ print (rw == "randread") ? $8 : $49 }')
            t1=$(date +%s%N)
            lock=
            if [ $fs = fl ]; then
                lock=$("$fl" stats "$work/fl" mount.lock_held_ns mount.lock_wait_ns \
                           mount.fuse_ops | tr '\n' ' ' |
                       awk -v h=$1 -v w=$2 -v o=$3 -v t=$((t1 - t0)) '{
                           printf " mutex_held=%.0f%% wait_per_request_us=%.1f",
                                  100 * ($1 - h) / t, ($2 - w) / 1000 / ($3 - o) }')
            fi
            echo "$fs $rw direct=$direct jobs=$jobs iops=$iops$lock"
        done
    done
done
umount "$work/pt"
umount "$work/fl"
flock -w 60 "$work/fio.img.lock" true
