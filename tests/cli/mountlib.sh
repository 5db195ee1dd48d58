# mountlib.sh -- helpers shared by the suites that mount (sourced after
# lib.sh, with SUITE set to the suite's name): SRC is the source tree, FL
# an absolute path; every mount point in MOUNTS
# is unmounted on exit, even after a failure, and every image in IMAGES
# waited for (its mount process saves it, then releases IMAGE.lock).
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac # the tests cd
MOUNTS=""; IMAGES=""; skipped=0
summary() { echo "$SUITE: $passed passed, $failed failed, $skipped skipped"; }
cleanup() {
    cd /
    for m in $MOUNTS; do
        grep -q " $m fuse" /proc/mounts 2>/dev/null && fusermount3 -u -z "$m" 2>/dev/null
    done
    for i in $IMAGES; do [ -f "$i" ] && flock -w 20 "$i.lock" true 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# skip N WHY: N checks that cannot run here
skip() { skipped=$((skipped + $1)); echo "SKIP ($1): $2"; }
have() { command -v "$1" >/dev/null 2>&1; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
mounted() { grep -q " $1 fuse.flashlab " /proc/mounts; }
# stat_of DIR KEY: a counter of `flashlab stats`
stat_of() { $FL stats "$1" "$2"; }
