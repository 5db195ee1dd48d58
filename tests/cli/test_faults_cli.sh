#!/bin/sh
# flashlab faults (docs/faults.md): the shipped LogFS campaign, run from
# another directory, has no crash, wrong bytes, lost files or silent
# rollback, and its rows are in the database; so has the FTL's
# (configs/faults-ftl.yaml); a baseline's bad point
# prints a reproducer line that, pasted, gives the same outcome; the plot
# is drawn; flashlab merge copies the faults rows (results schema 2, and a
# version 1 file); --help has examples; a bad faults: section is named by
# file and line.
. "$(dirname "$0")/lib.sh"
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
CFG=$(pwd)/configs/faults-logfs.yaml
DEV=$(pwd)/configs/devices/test-64m.yaml

expect 0 "help" "usage: flashlab faults" -- $FL faults --help
expect 0 "help examples" "flashlab faults configs/faults-logfs.yaml --run 0 --point 17" -- $FL faults --help
expect 0 "listed" "faults" -- $FL --help

# ---- the shipped LogFS campaign, from another directory ----------------------------
out=$(cd "$T" && $FLA faults "$CFG" -o "$T/l.db" -j 2 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "faults-logfs: exit $rc: $out"
printf '%s\n' "$out" | grep -q "faults-logfs: [0-9]* fault points, 0 bad" && ok || bad "summary: $out"
printf '%s\n' "$out" | grep -q "^  class  *pages" && ok || bad "no class table: $out"
q() { sqlite3 "$1" "$2"; }
n=$(q "$T/l.db" "select count(*) from faults")
[ "$n" -gt 100 ] && ok || bad "faults rows: $n"
[ "$(q "$T/l.db" "select count(*) from faults where outcome in ('crash', 'wrong-bytes', 'lost', 'silent-rollback')")" = 0 ] &&
    ok || bad "LogFS bad outcomes: $(q "$T/l.db" "select * from faults where outcome in ('crash', 'wrong-bytes', 'lost', 'silent-rollback')")"
[ "$(q "$T/l.db" "select sum(files_wrong) + sum(crashed) from faults")" = 0 ] && ok || bad "wrong or crashed files"
[ "$(q "$T/l.db" "select count(*) from faults where rolled_back > 0 and flagged = 0")" = 0 ] && ok || bad "silent rollback"
# every class of the map that a fault can reach got points, every kind ran
for c in anchor superblock segment-file inode-file indirect-1 indirect-2 directory file-data stale free; do
    [ "$(q "$T/l.db" "select count(*) from faults where class = '$c'")" -gt 0 ] && ok || bad "no points in class $c"
done
[ "$(q "$T/l.db" "select count(distinct fault) from faults")" = 6 ] && ok || bad "not every kind ran"
# an uncorrectable file-data page is an error, never wrong bytes; fsck sees it
[ "$(q "$T/l.db" "select count(*) from faults where fault = 'uncorrectable' and class = 'file-data' and (outcome <> 'eio' or fsck <> 'errors')")" = 0 ] &&
    ok || bad "uncorrectable file data: not eio + fsck errors"
# it keeps working or says why: a write afterwards succeeds, or fails with
# EROFS or EIO; every undamaged-data point (stale, free) writes fine
[ "$(q "$T/l.db" "select count(*) from faults where after_write not in ('ok', 'EROFS', 'EIO', 'n/a')")" = 0 ] &&
    ok || bad "after_write: $(q "$T/l.db" "select after_write, count(*) from faults group by 1")"
[ "$(q "$T/l.db" "select count(*) from faults where class in ('stale', 'free') and outcome = 'ok' and after_write <> 'ok'")" = 0 ] &&
    ok || bad "a write failed after a fault in stale or free space"
[ "$(q "$T/l.db" "select cast(value as integer) from kv where key = 'fault_points'")" = "$n" ] && ok || bad "kv fault_points"
# --point, in-process, prints the outcome the campaign recorded
p=$(q "$T/l.db" "select point from faults where outcome = 'eio' order by point limit 1")
expect 0 "--point" "outcome: eio" -- $FL faults configs/faults-logfs.yaml --point "$p"

# ---- the plot ----------------------------------------------------------------------------
expect 0 "plot faults" "faults, [0-9]* bars" -- $FL plot faults "$T/l.db" -o "$T/f.png"
[ -s "$T/f.png" ] && ok || bad "no plot file"
expect 0 "plot --kind faults --data" "" -- $FL plot "$T/l.db" --kind faults --data "$T/f.dat"
TAB=$(printf '\t')
grep -q "^silent${TAB}file-data${TAB}" "$T/f.dat" && ok || bad "plot data: $(cat "$T/f.dat")"
grep -q "^# fault${TAB}class${TAB}ok${TAB}.*${TAB}crash${TAB}not-applicable$" "$T/f.dat" && ok || bad "plot data header: $(cat "$T/f.dat")"
grep -q "^# workload: churn; device: test-64m, 16 MiB" "$T/f.dat" && ok || bad "plot data: no workload and device: $(head -3 "$T/f.dat")"
# points whose fault could not be applied (an erased page) are apart from
# the outcomes: the last column counts them, the others every other point
na=$(q "$T/l.db" "select count(*) from faults where outcome = 'n/a'")
applied=$(q "$T/l.db" "select count(*) from faults where outcome <> 'n/a'")
[ "$na" -gt 0 ] && ok || bad "the campaign has no not-applicable points to check"
[ "$(awk -F'\t' '!/^#/ { s += $NF } END { print s }' "$T/f.dat")" = "$na" ] && ok || bad "not-applicable column: $(cat "$T/f.dat")"
[ "$(awk -F'\t' '!/^#/ { for (i = 3; i < NF; i++) s += $i } END { print s }' "$T/f.dat")" = "$applied" ] &&
    ok || bad "outcome columns: $(cat "$T/f.dat")"
# the figure: a panel per fault kind, not-applicable bars hatched, house size
# (a stand-in gnuplot keeps the script)
cat > "$T/gp.sh" <<'G'
#!/bin/sh
grep -q GPVAL_TERMINALS "$1" && { echo ' pngcairo svg pdfcairo '; exit 0; }
cp "$1" "$(dirname "$0")/faults.gp"; echo png
G
chmod +x "$T/gp.sh"
expect 0 "plot faults, the script" "" -- env FLASHLAB_GNUPLOT="$T/gp.sh" $FL plot faults "$T/l.db" -o "$T/s.png"
for k in silent beyond uncorrectable retention disturb bad; do
    grep -q "^set title 'fault: $k'$" "$T/faults.gp" && ok || bad "no panel for $k"
done
grep -q "size 1300,800" "$T/faults.gp" && ok || bad "faults figure: not the house size"
grep -q "fs pattern 4 .* title 'not applicable'" "$T/faults.gp" && ok || bad "faults figure: no not-applicable key entry"
grep -q "set multiplot title 'Media faults: .*' . \"\\\\n\" . 'workload: churn; device: test-64m, 16 MiB'" "$T/faults.gp" && ok || bad "faults figure title: $(grep multiplot "$T/faults.gp")"
expect 1 "plot faults: no rows" "No such file\|no fault points" -- $FL plot faults "$T/none.db" -o "$T/g.png"

# ---- a baseline's bad point and its reproducer -----------------------------------------
cat > "$T/j.yaml" <<'Y'
name: faults-jffs2
device: {file: DEVS/test-64m.yaml, blocks_per_plane: 64}
fs: {kind: jffs2-summary}
workload: {kind: churn, fill: 0.5, max_files: 20, dirs: 2, file_size: {min: 100, max: 200K},
           fsync_every: 5, sync_every: 10}
stop: {ops: 150}
faults: {kinds: [silent, bad], points: 4, classes: [summary, inode-node, dirent-node]}
Y
sed -i "s|DEVS|$(pwd)/configs/devices|" "$T/j.yaml"
out=$($FL faults "$T/j.yaml" -o "$T/j.db" 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "baseline bad points are findings: exit $rc: $out"
line=$(printf '%s\n' "$out" | grep -m1 "^  reproduce: " | sed 's/^  reproduce: //')
if [ -n "$line" ]; then
    pt=${line##* }
    want=$(q "$T/j.db" "select outcome from faults where point = $pt")
    got=$(sh -c "$(printf '%s' "$line" | sed "s|^flashlab|$FLA|")" 2>&1)
    printf '%s\n' "$got" | grep -q "outcome: $want" && ok || bad "reproducer '$line': $got (wanted $want)"
    [ "$(q "$T/j.db" "select fsck from faults where point = $pt")" = "n/a" ] && ok || bad "baseline fsck not n/a"
else
    bad "no reproducer line in: $out"
fi

# ---- merged: the faults rows follow their runs ---------------------------------------------
nl=$(q "$T/l.db" "select count(*) from faults"); nj=$(q "$T/j.db" "select count(*) from faults")
expect 0 "merge two campaigns" "runs copied" -- $FL merge "$T/m.db" "$T/l.db" "$T/j.db"
[ "$(q "$T/m.db" "select count(*) from faults")" = "$((nl + nj))" ] && ok ||
    bad "merged faults rows: $(q "$T/m.db" "select count(*) from faults"), expected $nl + $nj"
# run ids mapped: each run's rows under the run of its fs kind, outcomes kept
[ "$(q "$T/m.db" "select count(*) from faults f join runs r on r.id = f.run_id
    where json_extract(r.params, '$.fs.kind') = 'jffs2-summary'")" = "$nj" ] && ok || bad "merged run ids"
[ "$(q "$T/m.db" "select group_concat(outcome || point, ',') from (select outcome, point from faults f
    join runs r on r.id = f.run_id where json_extract(r.params, '$.fs.kind') = 'jffs2-summary' order by point)")" = \
  "$(q "$T/j.db" "select group_concat(outcome || point, ',') from (select outcome, point from faults order by point)")" ] &&
    ok || bad "merged rows differ from the source's"
[ "$(q "$T/m.db" "pragma user_version")" = 3 ] && ok || bad "merged schema version"
expect 0 "merge again adds nothing" "0 runs copied" -- $FL merge "$T/m.db" "$T/j.db"
[ "$(q "$T/m.db" "select count(*) from faults")" = "$((nl + nj))" ] && ok || bad "faults rows copied twice"
expect 0 "plot --kind faults, merged" "" -- $FL plot "$T/m.db" --kind faults --data "$T/m.dat"
grep -q "^silent${TAB}logfs/file-data${TAB}" "$T/m.dat" && grep -q "${TAB}jffs2-summary/inode-node${TAB}" "$T/m.dat" && ok || bad "merged plot data: $(cat "$T/m.dat")"
# a version 1 file (before faults rows were versioned): merged as a source,
# migrated to version 2 when written
cp "$T/j.db" "$T/v1.db"
q "$T/v1.db" "drop table faults; pragma user_version = 1" >/dev/null
expect 0 "merge a version 1 source" "1 runs copied" -- $FL merge "$T/v1m.db" "$T/v1.db"
expect 0 "merge into a version 1 file" "runs copied" -- $FL merge "$T/v1.db" "$T/l.db"
[ "$(q "$T/v1.db" "pragma user_version")" = 3 ] && [ "$(q "$T/v1.db" "select count(*) from faults")" = "$nl" ] &&
    ok || bad "version 1 file not migrated: $(q "$T/v1.db" "pragma user_version")"

# ---- errors ------------------------------------------------------------------------------
printf "device: $DEV\\nworkload: {kind: uniform}\nstop: {ops: 5}\n" > "$T/nof.yaml"
expect 1 "no faults section" "no faults: section" -- $FL faults "$T/nof.yaml" -o "$T/x.db"
printf "device: $DEV\\nworkload: {kind: uniform}\nstop: {ops: 5}\nfaults:\n  kinds: [silent, sideways]\n" > "$T/k.yaml"
expect 1 "unknown kind, file and line" "k.yaml:5:.*unknown kind 'sideways'" -- $FL faults "$T/k.yaml"
printf "device: $DEV\\nworkload: {kind: uniform}\nstop: {ops: 5}\nfaults: {pionts: 2}\n" > "$T/t.yaml"
expect 1 "typo, file and line" "t.yaml:4:.*unknown key 'pionts' in faults" -- $FL faults "$T/t.yaml"
printf "device: $DEV\\nworkload: {kind: uniform}\nstop: {ops: 5}\nfaults: {points: 0}\n" > "$T/z.yaml"
expect 1 "zero points" "z.yaml:4:.*faults.points: 1 to 100000" -- $FL faults "$T/z.yaml"
printf "device: $DEV\\nworkload: {kind: uniform}\nstop: {ops: 5}\nfaults: {classes: [nosuch]}\n" > "$T/c.yaml"
expect 1 "unknown class" "no class 'nosuch'" -- $FL faults "$T/c.yaml" -o "$T/c.db"
expect 2 "bad --point" "bad --point" -- $FL faults "$CFG" --point x
expect 2 "no campaign" "expected one CAMPAIGN.yaml" -- $FL faults

# ---- the FTL (docs/ftl.md, "Media faults"): the flush semantics are the
# reference; every sector was flushed, so a fault gives EIO or nothing,
# never other bytes or a mount that silently went back
out=$($FL faults configs/faults-ftl.yaml -o "$T/ftl.db" -j 2 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "faults-ftl: exit $rc: $out"
printf '%s\n' "$out" | grep -q "faults-ftl: [0-9]* fault points, 0 bad" && ok || bad "faults-ftl summary: $out"
[ "$(q "$T/ftl.db" "select count(*) from faults where outcome not in ('ok', 'eio', 'n/a', 'refused') or (outcome = 'refused' and class <> 'superblock')")" = 0 ] &&
    ok || bad "faults-ftl outcomes: $(q "$T/ftl.db" "select fault, class, outcome, detail from faults where outcome not in ('ok', 'eio', 'n/a')")"
for c in superblock data stale free; do
    [ "$(q "$T/ftl.db" "select count(*) from faults where class = '$c'")" -gt 0 ] && ok || bad "faults-ftl: no points in class $c"
done
# a damaged page of data is an error whatever the kind; a grown bad block still reads
[ "$(q "$T/ftl.db" "select count(*) from faults where class = 'data' and fault in ('silent', 'beyond', 'uncorrectable') and outcome <> 'eio'")" = 0 ] &&
    ok || bad "faults-ftl: damaged data not eio"
[ "$(q "$T/ftl.db" "select count(*) from faults where fault = 'bad' and class in ('data', 'stale') and outcome <> 'ok'")" = 0 ] &&
    ok || bad "faults-ftl: a grown bad block lost data"
[ "$(q "$T/ftl.db" "select count(*) from faults where class in ('stale', 'free') and outcome = 'ok' and after_write not in ('ok', 'EIO')")" = 0 ] &&
    ok || bad "faults-ftl: a write failed after a harmless fault"

# make check-long: 25 points a class and kind on three seeds (about 2,100
# points), and the baselines campaign; LogFS has no bad point in either
if [ -n "$FLASHLAB_LONG" ]; then
    out=$($FL faults configs/faults-logfs-long.yaml -o "$T/ll.db" -j 2 2>&1); rc=$?
    [ "$rc" = 0 ] && ok || bad "faults-logfs-long: exit $rc: $(printf '%s\n' "$out" | tail -5)"
    [ "$(q "$T/ll.db" "select count(*) from faults")" -gt 1500 ] && ok || bad "faults-logfs-long: too few points"
    out=$($FL faults configs/faults-baselines.yaml -o "$T/b.db" -j 2 2>&1); rc=$?
    [ "$rc" = 0 ] && ok || bad "faults-baselines: exit $rc"
    [ "$(q "$T/b.db" "select count(*) from faults f join runs r on r.id = f.run_id
        where json_extract(r.params, '$.fs.kind') = 'logfs' and outcome in ('crash', 'wrong-bytes', 'lost', 'silent-rollback')")" = 0 ] &&
        ok || bad "faults-baselines: LogFS bad points"
    [ "$(q "$T/b.db" "select count(distinct run_id) from faults")" = 4 ] && ok || bad "faults-baselines: not 4 runs"
fi
echo "test_faults_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
