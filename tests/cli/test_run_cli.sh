#!/bin/sh
# flashlab run and merge: a sweep run locally with -j 1 and -j 2, one run
# alone, shards merged, GNU parallel over --list-runs, resuming into a
# database; every way gives the same runs with the same results.  Errors
# with the right exit codes.
. "$(dirname "$0")/lib.sh"
# experiment YAML written in $T names configs/devices/...: relative to its file
ln -s "$PWD/configs" "$T/configs"
X="$T/exp.yaml"
cat > "$X" <<YAML
name: tiny
device: configs/devices/test-64m.yaml
fs: {reserve: 4, dirty: 256K}
workload: {kind: uniform, fill: 0.5, sync_every: 32}
stop: {ops: 3000}
sample: {every_ops: 500, erase_snapshots: 2}
seeds: [1, 2]
sweep:
  fs.gc_policy: [greedy, fifo]
YAML
# digest DB: one line per run, by run number: seed, params, final WA,
# host bytes, samples, erase snapshots, mounts
digest() {
    sqlite3 "$1" "select r.run_index, r.seed, r.params, r.status,
        (select printf('%.9f', wa) from samples s where s.run_id = r.id order by seq desc limit 1),
        (select host_bytes from samples s where s.run_id = r.id order by seq desc limit 1),
        (select count(*) from samples s where s.run_id = r.id),
        (select count(distinct seq) from erase_counts c where c.run_id = r.id),
        (select count(*) from mounts m where m.run_id = r.id)
        from runs r order by r.run_index, r.seed"
}
same_digest() { # DESCRIPTION A.db B.db
    a=$(digest "$2"); b=$(digest "$3")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "$1: $2 and $3 differ: $a ### $b"; fi
}

expect 0 "run --help" "usage: flashlab run" -- $FL run --help
expect 0 "merge --help" "usage: flashlab merge" -- $FL merge --help
expect 0 "list runs" "^3	seed 2	{\"fs.gc_policy\":\"fifo\"}" -- $FL run --list-runs "$X"
n=$($FL run --list-runs "$X" | wc -l)
[ "$n" -eq 4 ] && ok || bad "list-runs printed $n lines, expected 4"

expect 0 "run -j 1" "tiny: 4 runs, 4 complete, 0 failed" -- $FL run "$X" -o "$T/a.db"
expect 0 "run -j 2" "4 complete" -- $FL run "$X" -o "$T/b.db" -j 2
same_digest "-j 1 and -j 2" "$T/a.db" "$T/b.db"
c=$(sqlite3 "$T/a.db" "select count(*) from runs where status = 'complete'")
[ "$c" -eq 4 ] && ok || bad "a.db has $c complete runs"
# not a terminal: nothing but the summary line
out=$($FL run "$X" -o "$T/q.db" 2>&1)
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && ok || bad "non-TTY output is not one line: $out"

# one run alone equals that run of the whole sweep
expect 0 "run --run 2" "1 run, 1 complete" -- $FL run "$X" --run 2 -o "$T/one.db"
a=$(digest "$T/a.db" | grep '^2|'); b=$(digest "$T/one.db")
[ "$a" = "$b" ] && ok || bad "--run 2 differs: $a ### $b"

# shards, merged
expect 0 "shard 0/2" "2 runs" -- $FL run "$X" --shard 0/2 -o "$T/s0.db"
expect 0 "shard 1/2" "2 runs" -- $FL run "$X" --shard 1/2 -o "$T/s1.db"
expect 0 "merge shards" "2 runs copied" -- $FL merge "$T/m.db" "$T/s0.db" "$T/s1.db"
same_digest "merged shards" "$T/a.db" "$T/m.db"
expect 0 "merge again" "0 runs copied, 2 already there" -- $FL merge "$T/m.db" "$T/s0.db"
same_digest "merging twice" "$T/a.db" "$T/m.db"
e=$(sqlite3 "$T/m.db" "select count(*) from experiments")
[ "$e" -eq 1 ] && ok || bad "merged db has $e experiments"

# GNU parallel over the run list, one database per run
if command -v parallel >/dev/null 2>&1; then
    $FL run --list-runs "$X" | cut -f1 |
        parallel -j 2 "$FL" run "$X" --run {} -o "$T/p{}.db" >/dev/null 2>&1
    expect 0 "merge parallel's" "" -- $FL merge "$T/p.db" "$T"/p0.db "$T"/p1.db "$T"/p2.db "$T"/p3.db
    same_digest "GNU parallel" "$T/a.db" "$T/p.db"
else
    bad "GNU parallel is not installed (make deps installs it)"
fi

# re-running into a database skips the runs it holds complete, so an
# interrupted sweep resumes, replacing its interrupted runs; --force runs
# them again beside the earlier ones
before=$(digest "$T/a.db")
expect 0 "re-run into a.db skips what is there" "0 runs, 0 complete, 0 failed, 4 already there" \
    -- $FL run "$X" -o "$T/a.db"
[ "$(digest "$T/a.db")" = "$before" ] && ok || bad "a re-run changed a.db"
sqlite3 "$T/a.db" "update runs set status = 'incomplete' where run_index = 2"
old=$(sqlite3 "$T/a.db" "select id from runs where run_index = 2")
expect 0 "an interrupted run runs again" "1 run, 1 complete, 0 failed, 3 already there" \
    -- $FL run "$X" -o "$T/a.db"
expect 0 "and replaces the interrupted one" "run 2: replaces 1 interrupted run" \
    -- sh -c "sqlite3 '$T/a.db' \"update runs set status = 'incomplete' where run_index = 2\"; $FL run '$X' -o '$T/a.db' 2>&1"
r=$(sqlite3 "$T/a.db" "select count(*) from runs")
[ "$r" -eq 4 ] && ok || bad "a.db has $r runs after resuming one, expected 4 (the interrupted one replaced)"
[ "$(sqlite3 "$T/a.db" "select count(*) from samples where run_id = $old")" = 0 ] && ok ||
    bad "the interrupted run's samples are still there"
sqlite3 "$T/a.db" "update runs set program_version = 'flashlab-old' where run_index = 0"
expect 0 "a run of another version is named" "run 0: kept run .* made by flashlab flashlab-old" \
    -- $FL run "$X" -o "$T/a.db"
expect 0 "--force runs them all again" "4 complete" -- $FL run "$X" -o "$T/a.db" --force
r=$(sqlite3 "$T/a.db" "select count(*) from runs")
[ "$r" -eq 8 ] && ok || bad "a.db has $r runs after --force, expected 8"
old=$(sqlite3 "$T/a.db" "select count(*) from experiments")
[ "$old" -eq 1 ] && ok || bad "re-run made a second experiment row"
first=$(sqlite3 "$T/a.db" "select count(*) from runs where id <= 4 and status = 'complete'")
[ "$first" -eq 3 ] && ok || bad "earlier runs changed ($first of the first 4 complete)"

# the shipped example experiments run (trace replay; ageing then measuring)
expect 0 "configs/trace-replay.yaml" "1 run, 1 complete" -- $FL run configs/trace-replay.yaml -o "$T/tr.db"
r=$(sqlite3 "$T/tr.db" "select value from kv where key = 'stop_reason'")
[ "$r" = "workload-end" ] && ok || bad "trace replay ended by '$r', not at the trace's end"
o=$(sqlite3 "$T/tr.db" "select cast(value as int) from kv where key = 'ops'")
[ "$o" = 400 ] && ok || bad "trace replay did $o ops, the trace has 400"
expect 0 "configs/aged-churn.yaml" "2 runs, 2 complete" -- $FL run configs/aged-churn.yaml -o "$T/ag.db" -j 2
# the mount-latency experiment's 64 MiB runs (LogFS, full scan, summaries;
# index fs * 6 + size), each with a clean mount and one after a power cut
for k in 0 6 12; do
    expect 0 "configs/mount-latency.yaml run $k" "1 run, 1 complete" -- \
        $FL run configs/mount-latency.yaml --run $k -o "$T/ml.db"
done
m=$(sqlite3 "$T/ml.db" "select group_concat(fs_kind || ':' || clean, ' ') from
    (select fs_kind, clean from mounts where device_bytes = 67108864 order by fs_kind, clean)")
[ "$m" = "jffs2-scan:0 jffs2-scan:1 jffs2-summary:0 jffs2-summary:1 logfs:0 logfs:1" ] && ok ||
    bad "mount-latency mounts: $m"
r=$(sqlite3 "$T/ml.db" "select (select min(sim_latency_ns) from mounts where fs_kind = 'jffs2-scan')
    / (select max(sim_latency_ns) from mounts where fs_kind = 'logfs') >= 50")
[ "$r" = 1 ] && ok || bad "the scan is not 50x slower than LogFS at 64 MiB"
expect 0 "plot mount-size" "mount-size, 6 series, 6 points" -- \
    $FL plot "$T/ml.db" --kind mount-size --data "$T/ml.dat"

# errors
expect 1 "missing experiment" "nowhere.yaml: cannot open" -- $FL run "$T/nowhere.yaml"
printf 'device: configs/devices/test-64m.yaml\nworkload: {kind: uniform}\nstop: {ops: 1}\nsweep: {fs.gc_policy: [greedy, lru]}\n' > "$T/bad.yaml"
expect 1 "bad run in the sweep" "bad.yaml:4:32: fs.gc_policy: unknown policy 'lru'" -- $FL run "$T/bad.yaml" -o "$T/bad.db"
[ ! -e "$T/bad.db" ] && ok || bad "a bad experiment created its database"
expect 2 "bad -j" "bad -j" -- $FL run "$X" -j 0
# data sized to the cap itself: the fs's own growth overshoots it, and the
# error says which setting to move
printf 'device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}\nfs: {max_utilisation: %s}\nworkload: {kind: uniform, utilisation: 0.95}\nstop: {ops: 100}\n' 0.95 > "$T/cap.yaml"
expect 1 "utilisation at the cap" "raise fs.max_utilisation above it" -- $FL run "$T/cap.yaml" -o "$T/cap.db"
sed -i 's/max_utilisation: 0.95/max_utilisation: 0.96/' "$T/cap.yaml"
expect 0 "utilisation under the cap" "1 complete" -- $FL run "$T/cap.yaml" -o "$T/cap2.db"
expect 2 "bad --shard" "bad --shard" -- $FL run "$X" --shard 2/2
expect 2 "no such run" "no run 9" -- $FL run "$X" --run 9
expect 2 "no experiment" "expected one EXPERIMENT.yaml" -- $FL run
expect 2 "merge without inputs" "expected OUT.db" -- $FL merge "$T/x.db"
expect 1 "merge of a missing input fails" "nope.db" -- $FL merge "$T/new.db" "$T/nope.db"
[ ! -e "$T/new.db" ] && ok || bad "a failed merge left $T/new.db behind"
expect 1 "merge a missing file" "nope.db" -- $FL merge "$T/x.db" "$T/nope.db"
echo "test_run_cli: $passed passed, $failed failed"
