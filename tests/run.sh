#!/bin/sh
# Runs every test executable given as an argument, plus the shell and
# Python suites, and prints the totals as the last line: "N passed, N failed, N skipped".
# Each suite prints a line "NAME: N passed, N failed[, N skipped]".
passed=0; failed=0; skipped=0
# the shell and Python suites test the build the C tests came from
# (make passes BUILD), unless FL / FLASHLAB_LIB / FLASHLAB_BIN say otherwise
BUILD=${BUILD:-build}
export FL=${FL:-./$BUILD/flashlab}
export FLASHLAB_LIB=${FLASHLAB_LIB:-$PWD/$BUILD/libflashlab.so}
export FLASHLAB_BIN=${FLASHLAB_BIN:-$PWD/$BUILD/flashlab}
# suite NAME COMMAND...: run one suite and add its counts; a suite that
# prints no summary line, or exits non-zero with none failed, counts as failed
suite() {
    name=$1; shift
    out=$("$@" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "$name: crashed or printed no summary (exit $rc)"
        failed=$((failed + 1)); return
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | tail -n 40
    echo "$line"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
for t in "$@"; do
    suite "$t" "$t"
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] && suite "$t" sh "$t"
done
for t in tests/python/test_*.py; do
    [ -f "$t" ] || continue
    if ! command -v python3 >/dev/null 2>&1; then
        echo "$t: python3 not found, skipped"; skipped=$((skipped + 1)); continue
    fi
    suite "$t" env PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 python3 "$t"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
