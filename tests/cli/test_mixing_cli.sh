#!/bin/sh
# Experiments cannot mix (issue #29): a changed config under a used name is
# refused naming the keys that differ, --as keeps both, plots select by
# NAME@HASH, merge refuses a name whose hash differs, an interrupted `run`
# says how to resume and the resumed runs replace the interrupted ones, and
# a power-cut campaign resumes the same way (never counted twice).
. "$(dirname "$0")/lib.sh"
ln -s "$PWD/configs" "$T/configs"
X="$T/exp.yaml"
cat > "$X" <<YAML
name: tiny
device: configs/devices/test-64m.yaml
fs: {reserve: 4, dirty: 256K}
workload: {kind: uniform, fill: 0.5, sync_every: 32}
stop: {ops: 2000}
sample: {every_ops: 500}
seeds: [1, 2]
YAML
expect 0 "first run" "2 complete" -- $FL run "$X" -o "$T/a.db"
# the same experiment, written otherwise: resumed, not refused
{ echo "# a comment"; sed 's/^seeds: \[1, 2\]/seeds:\n  - 1\n  - 2/' "$X"; echo "repetitions: 1"; } > "$T/same.yaml"
expect 0 "same config, other form" "2 already there" -- $FL run "$T/same.yaml" -o "$T/a.db"
# a changed config under the same name: refused, nothing written
sed -e 's/fill: 0.5/fill: 0.6/' "$X" > "$T/changed.yaml"
expect 1 "changed config refused" "keys that differ: workload.fill (0.6 in this config, 0.5 in the database's)\. .*--as NEWNAME" -- \
    $FL run "$T/changed.yaml" -o "$T/a.db"
[ "$(sqlite3 "$T/a.db" "select count(*) from runs")" = 2 ] && ok || bad "the refused run wrote runs"
expect 1 "the refusal names no unchanged key" "" -- sh -c "$FL run '$T/changed.yaml' -o '$T/a.db' 2>&1 | grep -q 'stop.ops'"
expect 0 "--as keeps both" "tiny-0.6: 2 runs, 2 complete" -- $FL run "$T/changed.yaml" -o "$T/a.db" --as tiny-0.6
[ "$(sqlite3 "$T/a.db" "select group_concat(name || ':' || length(config_hash), ',') from experiments order by id")" = "tiny:16,tiny-0.6:16" ] &&
    ok || bad "experiments: $(sqlite3 "$T/a.db" "select name, config_hash from experiments")"

# plots select by NAME@HASH (any prefix of the hash)
h=$(sqlite3 "$T/a.db" "select config_hash from experiments where name = 'tiny'")
p=$(printf %.6s "$h")
expect 0 "plot --experiment NAME@HASH" "2 series" -- $FL plot "$T/a.db" --kind wa-time --data "$T/p.dat" --experiment "tiny@$p"
expect 1 "plot: unknown hash" "no experiment 'tiny@ffff' in this database; it has tiny@$h (2 runs)" -- \
    $FL plot "$T/a.db" --kind wa-time --data "$T/p.dat" --experiment tiny@ffff

# merge: a shard that ran the changed config as tiny is refused, nothing copied
expect 0 "shard with the changed config" "2 complete" -- $FL run "$T/changed.yaml" -o "$T/shard.db"
expect 1 "merge refuses another hash" "experiment 'tiny' has config hash .* in the shard but $h in the database merged into" -- \
    $FL merge "$T/a.db" "$T/shard.db"
[ "$(sqlite3 "$T/a.db" "select count(*) from runs")" = 4 ] && ok || bad "the refused merge copied runs"
# an older shard holding both configs under one name (as before hashes)
cp "$T/a.db" "$T/old.db"
sqlite3 "$T/old.db" "update experiments set name = 'tiny'; drop index experiments_hash;
    alter table experiments drop column config_hash; alter table experiments drop column config_resolved;
    pragma user_version = 2"
expect 1 "NAME@HASH in an old file, read as it is" "no config hashes yet" -- \
    $FL plot "$T/old.db" --kind wa-time --data "$T/o.dat" --experiment tiny@$p
expect 1 "merge refuses a shard mixing two configs" "in another experiment row of the shard" -- \
    $FL merge "$T/m.db" "$T/old.db"
# opened for writing, the old file gets its hashes: the name alone is now refused in a plot
expect 0 "old file gets hashes, run resumes" "2 already there" -- $FL run "$X" -o "$T/old.db"
expect 1 "plot refuses to mix two configs" "several configs in this database.*tiny@$h (2 runs)" -- \
    $FL plot "$T/old.db" --kind wa-time --data "$T/o.dat" --experiment tiny
[ "$(sqlite3 "$T/old.db" "pragma user_version")" -ge 3 ] && ok || bad "old file not migrated"

# Ctrl-C on run: stops, says what was saved and how to resume
sed -e 's/ops: 2000/ops: 400000/' "$X" > "$T/long.yaml"
setsid $FL run "$T/long.yaml" -o "$T/l.db" -j 2 > "$T/int.out" 2>&1 &
pid=$!
i=0
while [ "$(sqlite3 "$T/l.db" "select count(*) from runs where status = 'running'" 2>/dev/null)" != 2 ] && [ $i -lt 300 ]; do
    sleep 0.1; i=$((i + 1))
done
kill -INT -$pid
wait $pid; rc=$?
[ $rc -eq 130 ] && ok || bad "interrupted run exit $rc: $(cat "$T/int.out")"
grep -q "interrupted. tiny: of 2 runs to do, 0 ended .*2 under way were stopped and marked incomplete" "$T/int.out" &&
    grep -q "run the same command again" "$T/int.out" && grep -q "flashlab run .*long.yaml" "$T/int.out" &&
    ok || bad "interrupt message: $(cat "$T/int.out")"
[ "$(sqlite3 "$T/l.db" "select group_concat(status) from runs")" = "incomplete,incomplete" ] && ok ||
    bad "interrupted runs: $(sqlite3 "$T/l.db" "select id, status from runs")"

# a power-cut campaign stopped during its second run resumes: run 0 kept,
# run 1 replaced, each cut point counted once
C="$T/pc.yaml"
cat > "$C" <<YAML
name: pc-resume
device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}
fs: {reserve: 4, dirty: 64K, block_size: 1024}
workload: {kind: churn, fill: 0.3, max_files: 20, dirs: 2, fsync_every: 3, sync_every: 10}
stop: {ops: 80}
seeds: [1, 2]
powercut: {every: 4, within: true}
YAML
expect 0 "campaign, whole" "" -- $FL powercut "$C" -o "$T/full.db"
whole=$(sqlite3 "$T/full.db" "select count(*) from powercuts")
setsid $FL powercut "$C" -o "$T/pc.db" > "$T/pc.out" 2>&1 &
pid=$!
i=0
while [ "$(sqlite3 "$T/pc.db" "select count(*) from runs" 2>/dev/null || echo 0)" -lt 2 ] && [ $i -lt 600 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -TERM -$pid # as Ctrl-C at a terminal (a background job ignores SIGINT)
wait $pid
[ "$(sqlite3 "$T/pc.db" "select group_concat(status) from runs")" = "complete,running" ] && ok ||
    bad "campaign not stopped in its second run: $(sqlite3 "$T/pc.db" "select id, status from runs")"
expect 0 "campaign resumes" "run 0: already in .*pc.db as run 1" -- $FL powercut "$C" -o "$T/pc.db"
[ "$(sqlite3 "$T/pc.db" "select count(*) from powercuts")" = "$whole" ] && ok ||
    bad "resumed campaign: $(sqlite3 "$T/pc.db" "select count(*) from powercuts") cut points, the whole one $whole"
[ "$(sqlite3 "$T/pc.db" "select group_concat(status) from runs")" = "complete,complete" ] && ok ||
    bad "resumed runs: $(sqlite3 "$T/pc.db" "select id, status from runs")"
expect 0 "campaign again: nothing added" "pc-resume: 0 cut points" -- $FL powercut "$C" -o "$T/pc.db"
[ "$(sqlite3 "$T/pc.db" "select count(*) from powercuts")" = "$whole" ] && ok || bad "cut points counted twice"

echo "test_mixing_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
