#!/bin/sh
# The retention experiment (configs/retention-scrub.yaml, docs/scrubbing.md)
# cut to ten simulated days: without scrubbing files are lost, with LogFS's
# scrubbing none is, at the cost of page writes the rows count; and the
# retention: section's errors.  make check-long runs the shipped 60 days.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLA=$(cd "$(dirname "$FL")" && pwd)/$(basename "$FL")
sed -e "s|file: devices/mlc-2g.yaml|file: $ROOT/configs/devices/mlc-2g.yaml|" \
    -e 's|duration: 60d|duration: 10d|' \
    -e 's|fs.scrub_threshold: \[0, 4, 6, 8\]|fs.scrub_threshold: [0, 6]|' \
    "$ROOT/configs/retention-scrub.yaml" > "$T/ret.yaml"
grep -q 'duration: 10d' "$T/ret.yaml" && grep -q 'scrub_threshold: \[0, 6\]' "$T/ret.yaml" && ok ||
    bad "the reduced config: the shipped one changed its keys"
expect 0 "the ten-day run" "2 complete" -- sh -c "cd / && '$FLA' run '$T/ret.yaml' -o '$T/r.db' -j 2"
# the last check of a run: column of the retention row
last() {
    sqlite3 "$T/r.db" "SELECT t.$2 FROM retention t JOIN runs r ON r.id = t.run_id
        WHERE coalesce(json_extract(r.params, '$.fs.scrub_threshold'), 0) = $1
        ORDER BY t.seq DESC LIMIT 1"
}
rows=$(sqlite3 "$T/r.db" "SELECT count(*) FROM retention")
[ "$rows" = 22 ] && ok || bad "retention rows: $rows, expected 2 runs x 11 checks"
lost0=$(last 0 ever_lost); lost6=$(last 6 ever_lost)
[ "$lost0" -gt 0 ] && ok || bad "without scrubbing no file was lost ($lost0)"
[ "$lost6" = 0 ] && ok || bad "with scrubbing $lost6 files were lost"
# (read noise is drawn afresh at each read: the scrubber's own reads may
# meet an uncorrectable one that a later read of the file does not)
[ "$(last 0 uncorrectable_reads)" -gt "$((10 * $(last 6 uncorrectable_reads)))" ] && ok ||
    bad "uncorrectable reads: $(last 0 uncorrectable_reads) without, $(last 6 uncorrectable_reads) with"
# the cost: scrubbing rewrote data, the run without wrote nothing while idle
[ "$(last 0 programs)" = 0 ] && [ "$(last 0 scrub_segments)" = 0 ] && ok ||
    bad "the idle run without scrubbing programmed $(last 0 programs) pages"
[ "$(last 6 programs)" -ge "$(last 6 scrub_pages)" ] && [ "$(last 6 scrub_pages)" -gt 0 ] &&
    [ "$(last 6 erases)" -gt 0 ] && ok ||
    bad "scrubbing's cost: programs $(last 6 programs), scrub_pages $(last 6 scrub_pages)"
# the superblock's rewrites are recorded (none without scrubbing).  On the
# MLC preset held to published points (docs/references.md section 2.4)
# ten days of retention at 30 P/E add almost no errors, so the superblock,
# programmed once and seldom read, needs no rewrite here; test_lfs_scrub
# checks that an ageing superblock is rewritten.
kv() {
    sqlite3 "$T/$3" "SELECT k.value FROM kv k JOIN runs r ON r.id = k.run_id
        WHERE coalesce(json_extract(r.params, '$.fs.scrub_threshold'), 0) = $1 AND k.key = '$2'"
}
[ "$(kv 0 scrub_super r.db)" = 0.0 ] && [ -n "$(kv 6 scrub_super r.db)" ] && ok ||
    bad "superblock copies rewritten: $(kv 0 scrub_super r.db) without, $(kv 6 scrub_super r.db) with"
# the plot draws from the table
expect 0 "plot-retention.sh" "" -- sh "$ROOT/scripts/plot-retention.sh" "$T/r.db" "$T/r.png"
[ -s "$T/r.png" ] && ok || bad "no plot"

# errors of the section, with file, line and key
printf 'device: %s\nworkload: {kind: uniform}\nstop: {ops: 5}\nretention: {duration: 2d}\n' \
    "$ROOT/configs/devices/test-64m.yaml" > "$T/nostep.yaml"
expect 1 "step is required" "retention: step is required" -- $FL run --list-runs "$T/nostep.yaml"
printf 'device: %s\nworkload: {kind: uniform}\nstop: {ops: 5}\nretention: {duration: 2d, step: 3d}\n' \
    "$ROOT/configs/devices/test-64m.yaml" > "$T/long.yaml"
expect 1 "step longer than the duration" "retention.step: more than 0, at most the duration" -- \
    $FL run --list-runs "$T/long.yaml"
printf 'device: %s\nworkload: {kind: uniform}\nstop: {ops: 5}\nretention: {duration: 2d, step: 1d, scrub: 1h}\n' \
    "$ROOT/configs/devices/test-64m.yaml" > "$T/typo.yaml"
expect 1 "unknown key" "unknown key 'scrub' in retention" -- $FL run --list-runs "$T/typo.yaml"

# make check-long: the shipped two months (about a minute on two cores)
if [ -n "${FLASHLAB_LONG:-}" ]; then
    expect 0 "the shipped run" "4 complete" -- $FL run "$ROOT/configs/retention-scrub.yaml" -o "$T/full.db" -j 2
    q() { sqlite3 "$T/full.db" "SELECT t.ever_lost FROM retention t JOIN runs r ON r.id = t.run_id
        WHERE coalesce(json_extract(r.params, '$.fs.scrub_threshold'), 0) = $1
        ORDER BY t.seq DESC LIMIT 1"; }
    [ "$(q 0)" -gt 0 ] && [ "$(q 4)" -lt "$(q 0)" ] && [ "$(q 6)" -lt "$(q 0)" ] && ok ||
        bad "60 days: lost $(q 0) without scrubbing, $(q 4) / $(q 6) with"
    # the scrubbed runs mount again
    [ "$(kv 4 remount_ok full.db)" = 1.0 ] &&
        [ "$(kv 6 remount_ok full.db)" = 1.0 ] && [ "$(kv 8 remount_ok full.db)" = 1.0 ] && ok ||
        bad "60 days: remount_ok $(kv 0 remount_ok full.db) without scrubbing, $(kv 4 remount_ok full.db) / $(kv 6 remount_ok full.db) / $(kv 8 remount_ok full.db) with"
fi
echo "test_retention_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
