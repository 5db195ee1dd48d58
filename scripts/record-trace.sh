#!/bin/sh
# Record the fs-op trace of a real program run on a LogFS mount.
#
#   scripts/record-trace.sh SCENARIO OUT.fstrace [DEVICE.yaml]
#   scripts/record-trace.sh --cmd 'SHELL COMMAND' OUT.fstrace [DEVICE.yaml]
#
# Makes a fresh image of DEVICE (default configs/devices/test-64m.yaml),
# mounts it with `flashlab mount --trace OUT`, runs the scenario inside the
# mount point (the current directory of the command), unmounts and checks
# the trace.  SCENARIO is one of
#   untar-build  unpack a tarball of flashlab's sim/ sources and compile them
#   sqlite       a sqlite3 session: a table, 2,000 inserts in transactions,
#                updates, deletes, an index and a VACUUM (rollback journal)
#   git          git init, three commits of a small tree, a branch, a gc
# or --cmd runs any shell command of yours (docs/traces.md).  Needs FUSE
# (/dev/fuse, fusermount3) and the programs the scenario runs.  The traces
# in configs/traces/*.fstrace were made by this script.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FL=${FLASHLAB:-$ROOT/build/flashlab}
die() { echo "record-trace: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: record-trace.sh SCENARIO|--cmd CMD OUT.fstrace [DEVICE.yaml]"
if [ "$1" = --cmd ]; then
    SCENARIO=cmd; CMD=$2; shift 2
else
    SCENARIO=$1; CMD=; shift
fi
[ $# -ge 1 ] || die "missing OUT.fstrace"
OUT=$1
DEV=${2:-$ROOT/configs/devices/test-64m.yaml}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac

untar_build() {
    tar -C "$ROOT" -cf src.tar sim
    mkdir build
    tar -xf src.tar -C build && rm src.tar
    (cd build/sim && for c in *.c; do
        gcc -std=c11 -D_GNU_SOURCE -O1 -I. -c "$c" -o "${c%.c}.o" || exit 1
     done
     ar rcs libsim.a ./*.o && rm ./*.o)
}

sqlite_session() {
    {
        echo "PRAGMA journal_mode=DELETE;"
        echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v BLOB);"
        i=0
        while [ $i -lt 20 ]; do
            echo "BEGIN;"
            j=0
            while [ $j -lt 100 ]; do
                echo "INSERT INTO t(k, v) VALUES('k$i-$j', randomblob(200));"
                j=$((j + 1))
            done
            echo "COMMIT;"
            i=$((i + 1))
        done
        echo "CREATE INDEX tk ON t(k);"
        echo "UPDATE t SET v = randomblob(300) WHERE id % 7 = 0;"
        echo "DELETE FROM t WHERE id % 3 = 0;"
        echo "VACUUM;"
        echo "SELECT count(*) FROM t;"
    } | sqlite3 db.sqlite >/dev/null
}

git_session() {
    export GIT_AUTHOR_NAME=flashlab GIT_AUTHOR_EMAIL=flashlab@example.org
    export GIT_COMMITTER_NAME=flashlab GIT_COMMITTER_EMAIL=flashlab@example.org
    export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
    git init -q -b main repo
    cd repo
    cp -r "$ROOT/gc" . && git add -A && git commit -qm one
    cp -r "$ROOT/analysis" . && git add -A && git commit -qm two
    git checkout -qb topic
    rm -r gc && cp "$ROOT/README.md" . && git add -A && git commit -qm three
    git checkout -q main && git merge -q --no-edit topic
    git gc -q
}

case $SCENARIO in
    untar-build|sqlite|git|cmd) ;;
    *) die "unknown scenario '$SCENARIO' (untar-build, sqlite, git, or --cmd CMD)" ;;
esac
[ -x "$FL" ] || die "$FL: not built (run make)"

T=$(mktemp -d)
MNT=$T/mnt
cleanup() {
    fusermount3 -u "$MNT" 2>/dev/null || true
    flock "$T/fs.img.lock" true 2>/dev/null || true
    rm -rf "$T"
}
trap cleanup EXIT
mkdir "$MNT"
"$FL" sim create --device "$DEV" "$T/fs.img" >/dev/null
"$FL" mkfs "$T/fs.img" >/dev/null
"$FL" mount --trace "$OUT" "$T/fs.img" "$MNT"

rc=0
(cd "$MNT" && case $SCENARIO in
    untar-build) untar_build ;;
    sqlite) sqlite_session ;;
    git) git_session ;;
    cmd) sh -c "$CMD" ;;
esac) || rc=$?
fusermount3 -u "$MNT"
flock "$T/fs.img.lock" true
[ $rc -eq 0 ] || die "the $SCENARIO run failed (exit $rc); $OUT is incomplete"
n=$(grep -c '^[0-9]' "$OUT" || true)
echo "record-trace: $SCENARIO: $n operations in $OUT"
