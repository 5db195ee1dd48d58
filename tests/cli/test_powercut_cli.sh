#!/bin/sh
# flashlab powercut: a small SLC campaign passes at every cut point with
# fsck on, records every outcome, and --repro reruns one point; so does the
# MLC preset, whose torn upper pages corrupt their lower pages (a failure's
# reproducer is tested in tests/experiment/test_powercut.c); errors and exit codes.
. "$(dirname "$0")/lib.sh"
# experiment YAML written in $T names configs/devices/...: relative to its file
ln -s "$PWD/configs" "$T/configs"
C="$T/pc.yaml"
cat > "$C" <<YAML
name: pc-small
device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}
fs: {reserve: 4, dirty: 64K, block_size: 1024}
workload: {kind: churn, fill: 0.3, max_files: 20, dirs: 2, fsync_every: 3, sync_every: 10}
stop: {ops: 80}
powercut: {every: 2, within: true, second_cuts: 10}
YAML
expect 0 "powercut --help" "usage: flashlab powercut" -- $FL powercut --help
expect 0 "a small campaign passes" "cut points checked (.* with a second cut), 0 failed" -- $FL powercut "$C" -j 2 -o "$T/pc.db"
n=$(sqlite3 "$T/pc.db" "select count(*) from powercuts")
ok_n=$(sqlite3 "$T/pc.db" "select count(*) from powercuts where outcome = 'ok'")
ops=$(sqlite3 "$T/pc.db" "select cast(value as int) from kv where key = 'flash_ops'")
[ "$n" -gt 20 ] && [ "$n" = "$ok_n" ] && ok || bad "powercuts rows: $n, ok $ok_n"
[ "$n" -eq $(( (ops + 1) / 2 )) ] && ok || bad "$n cut points for $ops flash operations at every 2nd"
s=$(sqlite3 "$T/pc.db" "select status from runs")
[ "$s" = complete ] && ok || bad "run status '$s'"
expect 0 "--repro one point" "cut point 6: .* recovered state matches" -- $FL powercut "$C" --repro 6
# a progress line on a terminal (script(1) gives it one), none otherwise
if command -v script >/dev/null 2>&1; then
    expect 0 "progress on a terminal" "run 0: [0-9]*/[0-9]* cut points  0 failed .* ETA" -- \
        script -qec "$FL powercut $C -o $T/pc2.db" /dev/null
    if $FL powercut "$C" -o "$T/pc3.db" 2>&1 | grep -q ETA; then bad "progress without a terminal"; else ok; fi
fi

# the MLC preset: torn upper pages corrupt their lower pages, never
# committed data (FORMAT.md section 7.2)
sed -e 's|stop: {ops: 400}|stop: {ops: 60}|' -e "s|file: devices/|file: $PWD/configs/devices/|" configs/powercut-mlc.yaml > "$T/mlc.yaml"
expect 0 "the MLC campaign passes" "cut points checked (.* with a second cut), 0 failed" -- $FL powercut "$T/mlc.yaml" -j 2 -o "$T/mlc.db"
n=$(sqlite3 "$T/mlc.db" "select count(*) from powercuts")
ok_n=$(sqlite3 "$T/mlc.db" "select count(*) from powercuts where outcome = 'ok'")
[ "$n" -gt 20 ] && [ "$n" = "$ok_n" ] && ok || bad "MLC powercuts rows: $n, ok $ok_n"
point=$(sqlite3 "$T/mlc.db" "select min(cut_point) from powercuts where detail like '%(segment)%'")
expect 0 "--repro an MLC segment point" "cut point $point: .* recovered state matches" -- $FL powercut "$T/mlc.yaml" --repro "$point"

# the shipped compression campaign (zlib and lzo, fsck decoding the
# compressed objects of every recovery): 0 failed, every row ok, both
# methods run
expect 0 "the compression campaign passes" "powercut-compress: .* cut points, 0 failed" -- \
    $FL powercut configs/powercut-compress.yaml -j 2 -o "$T/cz.db"
n=$(sqlite3 "$T/cz.db" "select count(*) from powercuts")
ok_n=$(sqlite3 "$T/cz.db" "select count(*) from powercuts where outcome = 'ok'")
methods=$(sqlite3 "$T/cz.db" "select count(distinct json_extract(params, '$.fs.compress')) from runs")
[ "$n" -gt 200 ] && [ "$n" = "$ok_n" ] && [ "$methods" = 2 ] && ok ||
    bad "compression powercuts rows: $n, ok $ok_n, methods $methods"
# four dies with LogFS's data area on all of them (fs.parallel): a cut
# tears every queued program in flight, and every point still recovers
sed -e 's|stop: {ops: 400}|stop: {ops: 80}|' -e "s|file: devices/|file: $PWD/configs/devices/|" configs/powercut-dies.yaml > "$T/dies.yaml"
expect 0 "the parallel-dies campaign passes" "cut points checked (.* with a second cut), 0 failed" -- $FL powercut "$T/dies.yaml" -j 2 -o "$T/dies.db"

# make check-long: the shipped baseline campaign (about 2 min on 2 cores):
# LogFS passes every point, the JFFS2-style log always mounts and reads,
# the in-place block fs loses files or the fs
if [ -n "$FLASHLAB_LONG" ]; then
    $FL powercut configs/powercut-baselines.yaml -o "$T/base.db" -j 2 >/dev/null 2>&1
    q() { sqlite3 "$T/base.db" "select count(*) from powercuts p join runs r on r.id = p.run_id
        where json_extract(r.params, '$.sweep.\"fs.kind\"') = '$1' and $2"; }
    [ "$(q logfs "outcome != 'ok'")" = 0 ] && [ "$(q logfs 1)" -gt 1000 ] && ok ||
        bad "baselines campaign: LogFS failed $(q logfs "outcome != 'ok'") of $(q logfs 1)"
    [ "$(q jffs2-scan "outcome in ('mount-failed', 'unreadable', 'stuck')")" = 0 ] && ok ||
        bad "baselines campaign: the JFFS2 log failed to mount or read"
    [ "$(q blockfs "outcome in ('mount-failed', 'unreadable')")" -gt 500 ] && ok ||
        bad "baselines campaign: blockfs lost only $(q blockfs "outcome in ('mount-failed', 'unreadable')")"
fi

# errors
printf 'device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\nstop: {ops: 5}\n' > "$T/nopc.yaml"
expect 1 "no powercut section" "no powercut: section" -- $FL powercut "$T/nopc.yaml" -o "$T/x.db"
expect 1 "not a campaign" "test-64m.yaml:.*unknown key" -- $FL powercut configs/devices/test-64m.yaml
printf 'device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\nstop: {ops: 5}\npowercut: {evry: 2}\n' > "$T/typo.yaml"
expect 1 "typo in powercut" "unknown key 'evry' in powercut" -- $FL powercut "$T/typo.yaml"
expect 2 "bad -j" "bad -j" -- $FL powercut "$C" -j 0
expect 2 "no campaign" "expected one CAMPAIGN.yaml" -- $FL powercut
echo "test_powercut_cli: $passed passed, $failed failed"
