#!/bin/sh
# Runs every test executable given as an argument, plus the shell and
# Python suites, and prints the totals as the last line: "N passed, N failed, N skipped".
passed=0; failed=0; skipped=0
for t in "$@"; do
    out=$("$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "$t: crashed or printed no summary (exit $rc)"
        failed=$((failed + 1)); continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | tail -n 40
    echo "$line"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    out=$(sh "$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "$t: printed no summary (exit $rc)"; failed=$((failed + 1)); continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | tail -n 40
    echo "$line"
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
