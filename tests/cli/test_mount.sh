#!/bin/sh
# flashlab mount: real programs (tar, diff, git, sqlite3, make, fio,
# stress-ng, coreutils) on a FUSE-mounted LogFS image, remounts, the stats
# file, trace recording and replay, and power cuts.  Needs /dev/fuse and
# fusermount3; without them every check is reported as skipped.  Every
# mount is undone on exit, even after a failure.
. "$(dirname "$0")/lib.sh"
NCHECKS=171 # reported as skipped when FUSE cannot be used
SUITE=test_mount; . "$(dirname "$0")/mountlib.sh"
skip_all() {
    echo "test_mount: skipping every check: $1"
    skipped=$NCHECKS; summary; exit 0
}

[ -c /dev/fuse ] || skip_all "/dev/fuse is missing"
have fusermount3 || skip_all "fusermount3 is not installed"
have flock || skip_all "flock (util-linux) is not installed"

# mnt DESCRIPTION IMAGE DIR [OPTIONS...]: mount in the background (a check)
mnt() {
    what=$1; img=$2; dir=$3; shift 3
    MOUNTS="$MOUNTS $dir"; IMAGES="$IMAGES $img"
    out=$($FL mount "$@" "$img" "$dir" 2>&1); rc=$?
    if [ "$rc" -eq 0 ] && mounted "$dir"; then ok; return 0; fi
    bad "$what: mount exit $rc: $out"; return 1
}
# umnt DESCRIPTION IMAGE DIR: unmount; the image is saved in the background,
# and flashlab commands on it wait for that (a raw cmp waits on IMAGE.lock)
umnt() {
    cd "$T"
    if fusermount3 -u "$3" && ! mounted "$3"; then ok; return 0; fi
    bad "$1: unmount of $3 failed"; fusermount3 -u -z "$3" 2>/dev/null; return 1
}

DEV=$SRC/configs/devices/test-64m.yaml
cd "$T" # so that nothing a program leaves in its working directory escapes
mkdir -p "$T/m" "$T/m2"
M=$T/m

# ---- can FUSE mount here at all? ------------------------------------------
$FL sim create --device "$DEV" "$T/probe.img" >/dev/null && $FL mkfs "$T/probe.img" >/dev/null ||
    { echo "FAIL: cannot make a probe image"; failed=1; summary; exit 1; }
IMAGES="$T/probe.img"; MOUNTS="$T/m2"
if ! out=$($FL mount "$T/probe.img" "$T/m2" 2>&1) || ! mounted "$T/m2"; then
    # libfuse's and fusermount3's own complaints mean no FUSE here; any
    # other failure is flashlab's
    case $out in
    *fuse:*|*fusermount*) skip_all "FUSE does not work here: $out" ;;
    *) bad "probe mount: $out"; summary; exit 1 ;;
    esac
fi
fusermount3 -u "$T/m2"

# ---- timestamps: the host's clock, or -o epoch= for simulated time ---------------
# (the mount's own checks: tests/mount/times.c below)
now=$(date +%s); printf 'x\n' > "$T/stamp.txt"
$FL put "$T/stamp.txt" "$T/probe.img:/stamp" >/dev/null
t=$($FL stat "$T/probe.img:/stamp" | sed -n 's/^mtime: *\([0-9]*\).*/\1/p')
check "flashlab put stamps with the host's clock ($t vs $now)" \
    '[ -n "$t" ] && [ "$t" -ge $((now - 60)) ] && [ "$t" -le $((now + 60)) ]'
mnt "mount -o epoch=2024-01-01" "$T/probe.img" "$T/m2" -o epoch=2024-01-01 &&
    touch "$T/m2/sim" && t=$(stat -c %Y "$T/m2/sim") && fusermount3 -u "$T/m2"
check "-o epoch: simulated time from 2024-01-01 ($t)" '[ "$t" -ge 1704067200 ] && [ "$t" -lt 1704070800 ]'

# ---- usage and errors: clear messages, nothing mounted ------------------------
expect 0 "mount --help" "usage: flashlab mount" -- $FL mount --help
expect 0 "mount --help states the threading model" "one global mutex" -- $FL mount --help
expect 0 "stats --help" "usage: flashlab stats" -- $FL stats --help
expect 0 "top-level help lists mount" "mount " -- $FL --help
expect 2 "mount without a mount point" "expected IMAGE and MOUNTPOINT" -- $FL mount "$T/probe.img"
expect 2 "bad --cut-after-ops" "not a number" -- $FL mount --cut-after-ops x "$T/probe.img" "$T/m2"
expect 2 "both cuts" "exclude each other" -- $FL mount --cut-after-ops 1 --cut-at-time 1s "$T/probe.img" "$T/m2"
expect 2 "bad --cut-at-time" "not a time" -- $FL mount --cut-at-time 3h "$T/probe.img" "$T/m2"
expect 2 "bad LogFS option value" "unknown policy 'lru'" -- $FL mount -o gc_policy=lru "$T/probe.img" "$T/m2"
expect 1 "a max_utilisation the segments cannot run" "use at most 0.96" -- $FL mount -o max_utilisation=0.99 "$T/probe.img" "$T/m2"
expect 1 "unknown FUSE option" "bad mount options" -- $FL mount -o no_such_option "$T/probe.img" "$T/m2"
expect 1 "missing image" "missing.img: cannot open" -- $FL mount "$T/missing.img" "$T/m2"
$FL sim create --device "$DEV" "$T/raw.img" >/dev/null
expect 1 "not a LogFS image" "no file system found" -- $FL mount "$T/raw.img" "$T/m2"
expect 1 "missing mount point" "bad mount point" -- $FL mount "$T/probe.img" "$T/nodir"
expect 1 "a file as mount point" "bad mount point: Not a directory" -- $FL mount "$T/probe.img" "$T/raw.img"
check "nothing mounted after the errors" '! mounted "$T/m2"'
expect 1 "stats of a directory that is not a mount" "not a flashlab mount" -- $FL stats "$T"

# ---- a big image, mounted in the background -----------------------------------
sed 's/blocks_per_plane: 512/blocks_per_plane: 2048/' "$DEV" > "$T/big.yaml"
I=$T/big.img
$FL sim create --device "$T/big.yaml" "$I" >/dev/null && $FL mkfs "$I" >/dev/null
# a real file named like the stats file: shadowed while mounted, kept
printf 'real file\n' > "$T/real.txt"; $FL put "$T/real.txt" "$I:/.flashlab-stats" >/dev/null
# allow_other: a FUSE option in the same -o list (root needs no fuse.conf)
if [ "$(id -u)" = 0 ]; then
    mnt "mount -o cache=1M,allow_other" "$I" "$M" -o cache=1M,allow_other
    check "FUSE got allow_other" 'grep " $M fuse.flashlab " /proc/mounts | grep -q allow_other'
else
    mnt "mount -o cache=1M" "$I" "$M" -o cache=1M
    skip 1 "allow_other needs root or user_allow_other"
fi
expect 1 "a second mount of the same image" "is in use by flashlab mount on $M (pid" -- $FL mount "$I" "$T/m2"
expect 0 "stats file" "^flashlab-stats 1" -- cat "$M/.flashlab-stats"
expect 0 "LogFS options reached LogFS" "^fs_options cache=1M$" -- cat "$M/.flashlab-stats"
expect 0 "flashlab stats --all" "^nand.programs [0-9]" -- $FL stats --all "$M"
expect 0 "flashlab stats: a summary" "^  write amp\. " -- $FL stats "$M"
expect 0 "flashlab stats: wear" "^  wear  *erases per block min [0-9]*, mean [0-9.]*, max [0-9]*" -- $FL stats "$M"
expect 0 "flashlab stats --json" '^{"flashlab-stats": 1, "image": ".*", .*"wear.erases_max": [0-9]*.*, "wa": ' -- $FL stats --json "$M"
expect 2 "stats --all with --json" "exclude each other" -- $FL stats --all --json "$M"
# accelerated wear is said, and only when it is
expect 0 "stats --all: the endurance scale" "^nand.endurance_scale 1$" -- $FL stats --all "$M"
check "stats: a scale of 1 is not called accelerated" '! $FL stats "$M" | grep -q -i accelerat'
sed 's/^endurance_scale: .*/endurance_scale: 0.0005/' "$DEV" > "$T/accel.yaml"
$FL sim create --device "$T/accel.yaml" "$T/accel.img" >/dev/null && $FL mkfs "$T/accel.img" >/dev/null &&
    mnt "mount an accelerated part" "$T/accel.img" "$T/m2" &&
    expect 0 "stats: accelerated wear" "^  ACCELERATED  *wear accelerated 2000x (endurance_scale 0.0005): each erase counts as 2000; the rated 100000 P/E cycles last about 50 erases$" -- $FL stats "$T/m2" &&
    expect 0 "stats --json: the endurance scale" '"nand.endurance_scale": 0.0005' -- $FL stats --json "$T/m2"
fusermount3 -u "$T/m2"
check "stats file hidden from readdir" '! ls -a "$M" | grep -q flashlab-stats'
check "cannot write the stats file" '! sh -c "echo x > $M/.flashlab-stats" 2>/dev/null'
check "cannot mkdir over the stats file" '! mkdir "$M/.flashlab-stats" 2>/dev/null'
check "cannot remove the stats file" '! rm -f "$M/.flashlab-stats" 2>/dev/null'
check "cannot rename onto the stats file" 'touch "$M/x" && ! mv "$M/x" "$M/.flashlab-stats" 2>/dev/null && rm "$M/x"'

# A path past the host's PATH_MAX from the mount's root, made with relative
# paths from inside (as pjdfstest's */03.t do): FUSE hands LogFS the full
# path.  (A bash script: dash's cd gives up on a logical path that long.)
cat > "$T/deep.sh" <<'DEEP'
n=$(printf "%0255d" 0); cd "$1" && mkdir deep && cd deep || exit 1
for i in $(seq 18); do mkdir "$n" && cd "$n" || exit 1; done
echo far > f && [ "$(cat f)" = far ] && chmod 600 f && [ "$(stat -c %a f)" = 600 ] && rm f
DEEP
check "a file 4,600 bytes below the root, named relatively" 'bash "$T/deep.sh" "$M"'
check "deep tree removed" 'rm -r "$M/deep" && [ ! -e "$M/deep" ]'

# ---- POSIX details (tests/mount/semantics.c) -------------------------------------
if have cc; then
    cc -O1 -o "$T/sem" "$SRC/tests/mount/semantics.c" && mkdir "$M/sem" &&
        (cd "$M/sem" && "$T/sem") > "$T/sem.out" 2>&1
    n=$(grep -c '^ok ' "$T/sem.out"); nf=$(grep -c '^FAIL' "$T/sem.out")
    passed=$((passed + n)); failed=$((failed + nf))
    grep '^FAIL' "$T/sem.out"
    [ "$n" -eq 31 ] && ok || bad "semantics: $n checks passed, 31 expected: $(tail -3 "$T/sem.out")"
    rm -rf "$M/sem"
else
    skip 28 "no C compiler"
fi

# ---- timestamps and owners (tests/mount/times.c) ----------------------------------
# the host's clock, POSIX's rules per call, set-group-ID directories, and
# as root an unprivileged child (the mount has allow_other then)
if have cc; then
    cc -O1 -o "$T/times" "$SRC/tests/mount/times.c" && mkdir "$M/times" && chmod 777 "$M/times" &&
        (cd "$M/times" && "$T/times") > "$T/times.out" 2>&1
    n=$(grep -c '^ok ' "$T/times.out"); nf=$(grep -c '^FAIL' "$T/times.out")
    passed=$((passed + n)); failed=$((failed + nf))
    grep '^FAIL' "$T/times.out"
    want=25; [ "$(id -u)" = 0 ] || { want=19; skip 6 "set-group-ID and other-uid checks need root"; }
    [ "$n" -eq "$want" ] && ok || bad "times: $n checks passed, $want expected: $(tail -3 "$T/times.out")"
    rm -rf "$M/times"
else
    skip 26 "no C compiler"
fi

# ---- tar of a real source tree, diff -r ------------------------------------------
if git -C "$SRC" rev-parse HEAD >/dev/null 2>&1; then
    git -C "$SRC" archive --format=tar HEAD sim fs docs workloads cli tests > "$T/src.tar"
else
    (cd "$SRC" && tar -cf "$T/src.tar" sim fs docs workloads cli tests)
fi
mkdir -p "$T/orig" "$M/src" && tar -xf "$T/src.tar" -C "$T/orig"
check "tar -x onto the mount" 'tar -xf "$T/src.tar" -C "$M/src"'
check "diff -r after tar" 'diff -r "$T/orig" "$M/src" > "$T/diff.out"'

# ---- hard links, mv, df ------------------------------------------------------------
ln "$M/src/sim/nand.h" "$M/hard"
check "ln: st_nlink 2 on both names" '[ "$(stat -c %h "$M/hard") $(stat -c %h "$M/src/sim/nand.h")" = "2 2" ]'
check "ln: one inode" '[ "$(stat -c %i "$M/hard")" = "$(stat -c %i "$M/src/sim/nand.h")" ]'
rm "$M/hard"
check "rm of a link: st_nlink 1" '[ "$(stat -c %h "$M/src/sim/nand.h")" = 1 ]'
mkdir -p "$M/a/b" "$M/c"
cp "$T/orig/sim/nand.h" "$M/a/b/f.h"
check "mv across directories" 'mv "$M/a/b/f.h" "$M/c/g.h" && [ ! -e "$M/a/b/f.h" ] && cmp -s "$T/orig/sim/nand.h" "$M/c/g.h"'
check "mv a directory" 'mv "$M/a/b" "$M/c/" && [ -d "$M/c/b" ] && [ ! -e "$M/a/b" ]'
cap=$((2048 * 64 * 2048))
size=$(df -B1 --output=size "$M" | tail -1); used0=$(df -B1 --output=used "$M" | tail -1)
check "df size near the device's ($size of $cap)" '[ "$size" -gt $((cap / 2)) ] && [ "$size" -le "$cap" ]'
head -c 8388608 /dev/urandom > "$T/rand8"
cp "$T/rand8" "$M/rand8"
used1=$(df -B1 --output=used "$M" | tail -1)
check "df used grows by a written file ($used0 -> $used1)" '[ "$used1" -ge $((used0 + 8000000)) ]'
check "the written file reads back" 'cmp -s "$T/rand8" "$M/rand8"'

# ---- git --------------------------------------------------------------------------
if have git; then
    G="git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main"
    check "git init, add, commit" '$G init -q "$M/repo" && cp -r "$T/orig/sim" "$T/orig/docs" "$M/repo/" &&
        (cd "$M/repo" && $G add -A && $G commit -qm initial)'
    check "git fsck" '(cd "$M/repo" && git fsck --full --strict) > "$T/fsck.out" 2>&1'
    check "git status clean" '[ -z "$(cd "$M/repo" && git status --porcelain)" ]'
    check "git clone from the mount" 'git clone -q "$M/repo" "$T/clone" && diff -r "$T/orig/sim" "$T/clone/sim"'
else
    skip 4 "git is not installed"
fi

# ---- sqlite3: 100 transactions of 1000 rows ------------------------------------------
if have sqlite3; then
    awk 'BEGIN { print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);";
        for (t = 0; t < 100; t++) { print "BEGIN;";
            for (i = 0; i < 1000; i++) { n = t * 1000 + i;
                printf "INSERT INTO t(k, v) VALUES(%d, '\''row-%d'\'');\n", n % 977, n }
            print "COMMIT;" }
        print "CREATE INDEX tk ON t(k);" }' > "$T/rows.sql"
    check "sqlite3: 100k rows in 100 transactions" 'sqlite3 "$M/db.sqlite" < "$T/rows.sql"'
    check "sqlite3: integrity_check" '[ "$(sqlite3 "$M/db.sqlite" "PRAGMA integrity_check;")" = ok ]'
    check "sqlite3: count" '[ "$(sqlite3 "$M/db.sqlite" "SELECT count(*), sum(k) FROM t;")" = "$(awk "BEGIN{s=0; for(n=0;n<100000;n++) s+=n%977; print \"100000|\" s}")" ]'
else
    skip 3 "sqlite3 is not installed"
fi

# ---- make: build and run a C program on the mount --------------------------------------
if have make && have cc; then
    mkdir "$M/prog"
    printf 'int add(int a, int b);\n' > "$M/prog/util.h"
    printf '#include "util.h"\nint add(int a, int b) { return a + b; }\n' > "$M/prog/util.c"
    printf '#include <stdio.h>\n#include "util.h"\nint main(void) { printf("sum=%%d\\n", add(40, 2)); return 0; }\n' > "$M/prog/main.c"
    printf 'prog: main.o util.o\n\t$(CC) -o $@ main.o util.o\n%%.o: %%.c util.h\n\t$(CC) -O1 -c -o $@ $<\n' > "$M/prog/Makefile"
    check "make on the mount" 'make -s -C "$M/prog" > "$T/make.out" 2>&1'
    check "run the program built there" '[ "$("$M/prog/prog")" = "sum=42" ]'
else
    skip 2 "make or cc is not installed"
fi

# ---- fio with crc32c verification, bigger than the LogFS cache ------------------------------
if have fio; then
    cat > "$T/fio.job" <<EOF
[global]
filename=$M/fio.dat
size=16m
bs=4k
ioengine=psync
fallocate=none
verify=crc32c
verify_fatal=1
randrepeat=1
verify_state_save=0
[randwrite]
rw=randwrite
do_verify=1
EOF
    check "fio random writes, verified" '(cd "$T" && fio --output="$T/fio.out" "$T/fio.job")'
else
    skip 1 "fio is not installed"
fi

# ---- stress-ng file system stressors, bounded ---------------------------------------------
if have stress-ng; then
    mkdir "$M/stress"
    check "stress-ng --dir --link --rename --hdd" 'stress-ng --dir 1 --dir-dirs 256 --link 1 --link-ops 2 \
        --rename 1 --hdd 1 --hdd-bytes 4M --timeout 8s --temp-path "$M/stress" > "$T/stress.out" 2>&1'
    grep -E "fail|error" "$T/stress.out" | head -5
    check "stress-ng left no mess" '[ -z "$(ls -A "$M/stress")" ]'
    rm -rf "$M/stress"
else
    skip 2 "stress-ng is not installed"
fi

# ---- fallocate(1), du: what is allocated counts, not the size (LogFS format 6) -----------
if have fallocate; then
    check "fallocate -l 1M: size, st_blocks 2048, du 1024" 'fallocate -l 1M "$M/fa" &&
        [ "$(stat -c %s.%b "$M/fa")" = 1048576.2048 ] && [ "$(du -k "$M/fa" | cut -f1)" = 1024 ]'
    head -c 1048576 /dev/zero > "$T/zero1m"
    check "preallocated blocks read as zeros" 'cmp -s "$T/zero1m" "$M/fa"'
    check "fallocate --keep-size: the size kept, st_blocks 3072" 'fallocate --keep-size -o 1M -l 512K "$M/fa" &&
        [ "$(stat -c %s.%b "$M/fa")" = 1048576.3072 ]'
    head -c 131072 "$T/rand8" > "$T/fz"
    cp "$T/fz" "$M/fz"
    dd if=/dev/zero of="$T/fz" bs=4096 seek=1 count=16 conv=notrunc 2>/dev/null
    check "fallocate -z: zeros, size and st_blocks kept" 'fallocate -z -o 4096 -l 65536 "$M/fz" &&
        cmp -s "$T/fz" "$M/fz" && [ "$(stat -c %s.%b "$M/fz")" = 131072.256 ]'
    # xfstests' _require_sparse_files: 50 KiB at 1.6 MiB, du -sk at most 1024
    dd if="$T/rand8" of="$M/sparse" bs=50k count=1 seek=32 2>/dev/null
    check "a sparse file's du is what it holds ($(du -sk "$M/sparse" | cut -f1) KiB)" \
        '[ "$(du -sk "$M/sparse" | cut -f1)" -le 64 ]'
else
    skip 5 "fallocate is not installed"
fi

# ---- counters grow ---------------------------------------------------------------------
p0=$(stat_of "$M" nand.programs); o0=$(stat_of "$M" mount.fuse_ops)
dd if="$T/rand8" of="$M/more" bs=1M count=2 conv=fsync 2>/dev/null
p1=$(stat_of "$M" nand.programs); o1=$(stat_of "$M" mount.fuse_ops)
check "stats: nand.programs grows ($p0 -> $p1)" '[ "$p1" -gt "$p0" ]'
check "stats: mount.fuse_ops grows ($o0 -> $o1)" '[ "$o1" -gt "$o0" ]'
check "stats: no EIO so far" '[ "$(stat_of "$M" mount.eio)" = 0 ]'

# ---- remount: everything is still there ---------------------------------------------------
umnt "unmount" "$I" "$M"
expect 0 "the image holds what was written" "^src$" -- $FL ls "$I"
expect 0 "the real .flashlab-stats survived" "^real file$" -- $FL cat "$I:/.flashlab-stats"
mnt "remount" "$I" "$M" -o cache=1M
check "diff -r after remount" 'diff -r "$T/orig" "$M/src" > "$T/diff2.out"'
if have git; then
    check "git fsck after remount" '(cd "$M/repo" && git fsck --full --strict) > "$T/fsck2.out" 2>&1'
else
    skip 1 "git is not installed"
fi
if have sqlite3; then
    check "sqlite3 integrity_check after remount" '[ "$(sqlite3 "$M/db.sqlite" "PRAGMA integrity_check;")" = ok ]'
else
    skip 1 "sqlite3 is not installed"
fi
if have fio; then
    check "fio verify after remount" '(cd "$T" && fio --verify_only --output="$T/fio2.out" "$T/fio.job")'
else
    skip 1 "fio is not installed"
fi
check "a file read back after remount" 'cmp -s "$T/rand8" "$M/rand8"'
if have fallocate; then
    check "preallocation survives the remount" '[ "$(stat -c %s.%b "$M/fa")" = 1048576.3072 ] &&
        cmp -s "$T/zero1m" "$M/fa" && cmp -s "$T/fz" "$M/fz" && [ "$(stat -c %s.%b "$M/fz")" = 131072.256 ]'
else
    skip 1 "fallocate is not installed"
fi
umnt "unmount after remount" "$I" "$M"

# ---- foreground, SIGTERM ---------------------------------------------------------------
$FL mount -f "$I" "$M" & fgpid=$!
MOUNTS="$MOUNTS $M"
n=0; while ! mounted "$M" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
check "mount -f" 'mounted "$M"'
echo foreground > "$M/fg.txt"
kill -TERM $fgpid; wait $fgpid; rc=$?
check "SIGTERM: clean exit (rc $rc)" '[ "$rc" -eq 0 ] && ! mounted "$M"'
expect 0 "SIGTERM: the image was saved" "^foreground$" -- $FL cat "$I:/fg.txt"

# ---- read-only --------------------------------------------------------------------------
cp "$I" "$T/ro-before.img"
mnt "mount -o ro" "$I" "$M" -o ro
check "read-only: reads work" 'cmp -s "$T/rand8" "$M/rand8"'
check "read-only: writes fail with EROFS" '! touch "$M/new" 2> "$T/ro.err" && grep -q "Read-only" "$T/ro.err"'
umnt "unmount read-only" "$I" "$M"
check "read-only: the image is byte-identical" 'flock -w 60 "$I.lock" true && cmp -s "$I" "$T/ro-before.img"'

# ---- no space, then space again ------------------------------------------------------
sed 's/blocks_per_plane: 512/blocks_per_plane: 96/' "$DEV" > "$T/tiny.yaml"
S=$T/tiny.img
$FL sim create --device "$T/tiny.yaml" "$S" >/dev/null && $FL mkfs "$S" >/dev/null
head -c 12000000 /dev/urandom > "$T/rand12"
mnt "mount a tiny image" "$S" "$T/m2"
check "fill until ENOSPC" '! dd if="$T/rand12" of="$T/m2/fill" bs=256k 2> "$T/dd.err" &&
    grep -q "No space left on device" "$T/dd.err"'
check "delete after ENOSPC" 'rm "$T/m2/fill"'
check "write again after ENOSPC" 'dd if="$T/rand12" of="$T/m2/again" bs=256k count=8 2>/dev/null &&
    head -c 2097152 "$T/rand12" | cmp -s - "$T/m2/again"'
umnt "unmount the tiny image" "$S" "$T/m2"

# ---- --trace records a replayable fs-op trace ----------------------------------------------
R=$T/trace.img
$FL sim create --device "$DEV" "$R" >/dev/null && $FL mkfs "$R" >/dev/null
mnt "mount --trace" "$R" "$T/m2" --trace "$T/rec.fstrace"
(cd "$T/m2" && mkdir -p d/e && echo hello > d/a && cat d/a > /dev/null && echo more >> d/a &&
    mv d/a d/e/b && ln d/e/b d/h && ln -s /d/e/b d/s && ln -s e/b d/rs && truncate -s 100 d/h && rm d/h &&
    cp -r "$T/orig/fs" d/fs && dd if="$T/rand8" of=d/big bs=64k count=16 conv=fsync 2>/dev/null &&
    rm -rf d/fs) > "$T/trace-ops.out" 2>&1
check "trace: the ops ran" '[ ! -s "$T/trace-ops.out" ]'
if have fallocate; then
    check "trace: fallocate mode 0 and --keep-size ran" 'fallocate -l 64K "$T/m2/d/fa" &&
        fallocate --keep-size -o 64K -l 8K "$T/m2/d/fa"'
else
    skip 1 "fallocate is not installed"
fi
check "trace: records counted" '[ "$(stat_of "$T/m2" mount.trace_records)" -gt 50 ]'
umnt "unmount --trace" "$R" "$T/m2"
expect 0 "a relative symlink made through the mount, read by flashlab cat" "^more\$" -- $FL cat "$R:/d/rs"
check "trace: header" '[ "$(head -1 "$T/rec.fstrace")" = "flashlab-fstrace 1" ]'
missing=""
for op in mkdir create write read rename link symlink truncate unlink rmdir fsync close; do
    grep -q "^[0-9]* $op " "$T/rec.fstrace" || missing="$missing $op"
done
check "trace: every kind of op recorded (missing:$missing)" '[ -z "$missing" ]'
if have fallocate; then
    check "trace: fallocate recorded as allocate and allocate-keep" \
        'grep -qx "[0-9]* allocate /d/fa 0 65536" "$T/rec.fstrace" &&
         grep -qx "[0-9]* allocate-keep /d/fa 65536 8192" "$T/rec.fstrace"'
else
    skip 1 "fallocate is not installed"
fi
cat > "$T/replay.yaml" <<EOF
name: mount-replay
device: $DEV
workload:
  kind: trace
  trace: $T/rec.fstrace
  trace_format: fsop
stop:
  ops: 1000000
EOF
expect 0 "flashlab run replays the trace" "1 complete, 0 failed" -- $FL run "$T/replay.yaml" -o "$T/replay.db" --quiet
if have sqlite3; then
    check "replay ended at the trace's end" '[ "$(sqlite3 "$T/replay.db" "SELECT value FROM kv WHERE key = '\''stop_reason'\''")" = workload-end ]'
else
    skip 1 "sqlite3 is not installed"
fi

# ---- power cut: EIO, and the image stays as it was -----------------------------------------
P=$T/cut.img
$FL sim create --device "$DEV" "$P" >/dev/null && $FL mkfs "$P" >/dev/null
$FL put "$T/real.txt" "$P:/before" >/dev/null
cp "$P" "$T/cut-before.img"
mnt "mount --cut-after-ops" "$P" "$T/m2" --cut-after-ops 300
i=0; while [ $i -lt 500 ] && dd if="$T/rand8" of="$T/m2/f$i" bs=16k count=1 conv=fsync 2> "$T/cut.err"; do
    i=$((i + 1)); done
check "power cut: a write fails with EIO (after $i files)" '[ $i -gt 0 ] && [ $i -lt 500 ] && grep -q "Input/output error" "$T/cut.err"'
check "power cut: stats say so" '[ "$(stat_of "$T/m2" powered)" = 0 ] && [ "$(stat_of "$T/m2" mount.eio)" -gt 0 ]'
umnt "unmount after the cut" "$P" "$T/m2"
check "power cut: the image was not saved" 'flock -w 60 "$P.lock" true && cmp -s "$P" "$T/cut-before.img"'
expect 0 "power cut: ls shows the pre-mount state" "^before$" -- $FL ls "$P"
check "power cut: nothing written is there" '[ "$($FL ls "$P" | tr "\n" " ")" = "before " ]'

mnt "mount --cut-after-ops --save-after-cut" "$P" "$T/m2" --cut-after-ops 300 --save-after-cut
i=0; while [ $i -lt 500 ] && dd if="$T/rand8" of="$T/m2/f$i" bs=16k count=1 conv=fsync 2>/dev/null; do
    i=$((i + 1)); done
umnt "unmount after the cut (saved)" "$P" "$T/m2"
check "save-after-cut: the torn image was saved" 'flock -w 60 "$P.lock" true && ! cmp -s "$P" "$T/cut-before.img"'
$FL ls "$P" > "$T/survived.txt" 2>&1
check "save-after-cut: the torn image mounts" '$FL ls "$P" > /dev/null'
lost=0; j=0; while [ $j -lt $i ]; do grep -qx "f$j" "$T/survived.txt" || lost=$((lost + 1)); j=$((j + 1)); done
check "save-after-cut: every fsynced file survived ($i written, $lost lost)" '[ $i -gt 0 ] && [ $lost -eq 0 ]'

cp "$T/cut-before.img" "$P"
mnt "mount --cut-at-time" "$P" "$T/m2" --cut-at-time 40ms
i=0; while [ $i -lt 500 ] && dd if="$T/rand8" of="$T/m2/f$i" bs=16k count=1 conv=fsync 2> "$T/cut.err"; do
    i=$((i + 1)); done
check "cut-at-time: EIO after 40 ms of simulated time ($i files)" '[ $i -lt 500 ] && grep -q "Input/output error" "$T/cut.err"'
umnt "unmount after the timed cut" "$P" "$T/m2"
check "cut-at-time: the image was not saved" 'flock -w 60 "$P.lock" true && cmp -s "$P" "$T/cut-before.img"'

summary
[ "$failed" -eq 0 ]
