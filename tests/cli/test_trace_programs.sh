#!/bin/sh
# The traces of real programs (docs/traces.md): the shipped experiment
# replays every trace on every fs kind from another directory, the runs end
# with the trace and put its data on flash; scripts/record-trace.sh records
# a command on a FUSE mount into a trace that replays (skipped without FUSE).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
check() { if eval "$2"; then ok; else bad "$1"; fi; }
q() { sqlite3 "$T/tp.db" "$1"; }

# ---- the shipped experiment, run from elsewhere ------------------------------
cd "$T"
expect 0 "trace-programs runs" "9 runs, 9 complete, 0 failed" \
    -- "$FL" run "$SRC/configs/trace-programs.yaml" -o "$T/tp.db"
check "every run ended with its trace" \
    '[ "$(q "SELECT count(*) FROM final WHERE stop_reason = '\''workload-end'\''")" = 9 ]'
check "every run wrote to flash" '[ "$(q "SELECT count(*) FROM final WHERE flash_bytes > 0")" = 9 ]'
for t in untar-build sqlite git; do
    # each fs kind replays the same host bytes: every op of the trace ran
    check "$t: one host byte count on every fs" \
        '[ "$(q "SELECT count(DISTINCT host_bytes) FROM final WHERE sweep LIKE '\''%$t%'\''")" = 1 ]'
    # the trace's own write records sum to what the runs count as host bytes
    w=$(awk '$2 == "write" { s += $5 } END { print s + 0 }' "$SRC/configs/traces/$t.fstrace")
    check "$t: host bytes = the trace's writes ($w)" \
        '[ "$(q "SELECT host_bytes FROM final WHERE sweep LIKE '\''%$t%'\'' LIMIT 1")" = "$w" ]'
done
# the in-place fs erases a block per small write; the logs do not
check "blockfs erases most" \
    '[ "$(q "SELECT fs_kind FROM final ORDER BY erases DESC LIMIT 1")" = blockfs ]'
# the documented query runs
check "docs query" '[ "$(q "SELECT count(*) FROM (SELECT json_extract(sweep, '\''$.\"workload.trace\"'\''), fs_kind, round(wa, 2), erases FROM final)")" = 9 ]'

# ---- recording (docs/traces.md "Recording your own") -------------------------
if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null && command -v flock >/dev/null; then
    expect 0 "record --cmd" "record-trace: cmd: " -- env FLASHLAB="$FL" \
        "$SRC/scripts/record-trace.sh" --cmd 'mkdir d && echo hello > d/f && mv d/f d/g' my.fstrace
    check "header" '[ "$(head -1 my.fstrace)" = "flashlab-fstrace 1" ]'
    for op in "mkdir /d" "create /d/f" "write /d/f 0 6" "rename /d/f /d/g"; do
        check "recorded: $op" 'grep -q "^[0-9]* $op" my.fstrace'
    done
    cat > my.yaml <<EOY
name: my-trace
device: $SRC/configs/devices/test-64m.yaml
workload: {kind: trace, trace_format: fsop, trace: my.fstrace}
stop: {ops: 1000}
EOY
    expect 0 "the recording replays" "1 complete, 0 failed" -- "$FL" run my.yaml -o my.db
    check "replayed 6 host bytes" '[ "$(sqlite3 my.db "SELECT host_bytes FROM final")" = 6 ]'
    expect 1 "a failing command is reported" "the cmd run failed" -- env FLASHLAB="$FL" \
        "$SRC/scripts/record-trace.sh" --cmd 'false' bad.fstrace
    expect 1 "unknown scenario" "unknown scenario 'nope'" -- \
        "$SRC/scripts/record-trace.sh" nope x.fstrace
else
    echo "SKIP: recording needs /dev/fuse, fusermount3 and flock"
fi
echo "test_trace_programs: $passed passed, $failed failed"
