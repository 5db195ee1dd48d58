#!/bin/sh
# Every SQL example in the docs runs against a real results database: a
# small sweep with mount measurements.  A query must succeed and return at
# least one row whose first column is not empty (a query grouping by a
# key the runner never writes returns one row of NULL), unless its block
# says "-- may return no rows".  Blocks with bind parameters (?1 ...) or
# on the plot code's `sel` table are that code's queries, tested with it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cat > "$T/wa-sweep.yaml" <<YAML
name: wa-sweep
device: {file: $ROOT/configs/devices/test-64m.yaml, blocks_per_plane: 128}
fs: {reserve: 4, dirty: 64K}
workload: {kind: uniform, fill: 0.5}
stop: {ops: 300}
mount: {unclean: true}
sweep:
  fs.gc_policy: [greedy, cost-benefit]
YAML
expect 0 "the sample database" "2 complete" -- $FL run "$T/wa-sweep.yaml" -o "$T/r.db"
for doc in "$ROOT"/docs/*.md; do
    # one file per ```sql block
    awk -v dir="$T" -v base="$(basename "$doc" .md)" '
        /^```sql/ { n++; f = dir "/" base "-" n ".sql"; on = 1; next }
        /^```/    { on = 0 }
        on        { print > f }' "$doc"
done
for q in "$T"/*.sql; do
    [ -e "$q" ] || continue
    grep -q '?[0-9]\|FROM sel\|JOIN sel\|WITH sel' "$q" && continue
    name=$(basename "$q" .sql)
    out=$(sqlite3 -separator '|' "$T/r.db" < "$q" 2>&1); rc=$?
    if [ "$rc" -ne 0 ]; then bad "$name: $out"; continue; fi
    if grep -q -- '-- may return no rows' "$q"; then ok; continue; fi
    first=$(printf '%s\n' "$out" | head -n 1 | cut -d'|' -f1)
    if [ -n "$first" ]; then ok; else bad "$name: no rows, or an empty first column: $(cat "$q")"; fi
done
# the final view: one row per run, with the last sample's figures
out=$(sqlite3 -separator '|' "$T/r.db" "SELECT count(*), count(DISTINCT run_id) FROM final;
    SELECT count(*) FROM runs;
    SELECT group_concat(gc_policy || ':' || fs_kind || ':' || stop_reason || ':' || (wa > 0) || ':' || json_extract(sweep, '\$.\"fs.gc_policy\"'), ',') FROM final;
    SELECT count(*) FROM final f JOIN samples s ON s.run_id = f.run_id
     WHERE s.seq = (SELECT max(seq) FROM samples WHERE run_id = f.run_id) AND s.wa = f.wa AND s.erases = f.erases;" 2>&1)
[ "$out" = "2|2
2
greedy:logfs:stop:1:greedy,cost-benefit:logfs:stop:1:cost-benefit
2" ] && ok || bad "final view: $out"
echo "test_doc_sql: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
