#!/bin/sh
# Runs every test executable given as an argument, plus the shell and
# Python suites, and prints the totals as the last line: "N passed, N failed, N skipped".
# Each suite prints a line "NAME: N passed, N failed[, N skipped]".
#
# T=PATTERN (make test T=PATTERN) runs only the C test cases whose name
# matches PATTERN, and the shell and Python suites whose file name (with or
# without its extension) matches it.  PATTERN is a substring, or a shell glob
# over the whole name when it holds * ? or [.  A pattern that matches
# nothing is an error.
#
# TEST_JOBS=N (default: the number of CPUs) C executables run at once,
# beside one lane that runs the shell and Python suites one after another
# (they share mount points and fixed names; the C tests each work in a
# directory of their own).  A suite's line is printed when it ends; the
# totals come last.
set -u
# (the suites get no T: the shell ones use the name themselves)
pat=${T:-}; unset T
# the shell and Python suites test the build the C tests came from
# (make passes BUILD), unless FL / FLASHLAB_LIB / FLASHLAB_BIN say otherwise
BUILD=${BUILD:-build}
export FL=${FL:-./$BUILD/flashlab}
export FLASHLAB_LIB=${FLASHLAB_LIB:-$PWD/$BUILD/libflashlab.so}
export FLASHLAB_BIN=${FLASHLAB_BIN:-$PWD/$BUILD/flashlab}

# `run.sh --suite OUT NAME COMMAND...` (internal): run one suite, keep its
# output in OUT and its exit status in OUT.rc, and print its summary line
# (with the tail of its output when it failed or printed none)
if [ "${1:-}" = --suite ]; then
    o=$2 name=$3; shift 3
    "$@" > "$o" 2>&1; rc=$?
    echo "$rc" > "$o.rc"
    line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' "$o" | tail -n 1)
    if [ -z "$line" ]; then
        tail -n 20 "$o"; echo "$name: crashed or printed no summary (exit $rc)"
    elif [ "$rc" -ne 0 ] || ! echo "$line" | grep -q ' 0 failed'; then
        tail -n 40 "$o" | grep -vxF "$line"; echo "$line"
    else
        echo "$line"
    fi
    exit 0
fi

# name_matches NAME...: true if the pattern is empty or matches one of the names
name_matches() {
    [ -z "$pat" ] && return 0
    for n in "$@"; do
        case $pat in
        *[*?[]*) case $n in $pat) return 0 ;; esac ;;
        *) case $n in *"$pat"*) return 0 ;; esac ;;
        esac
    done
    return 1
}

out=$(mktemp -d "${TMPDIR:-/tmp}/flashlab-tests-XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM
self=$0
[ -n "$pat" ] && echo "only the test cases matching '$pat' (C), the suites whose file name does (shell, Python)"

# the C executables that have a matching case (exit 2 of --list: none; any
# other status runs it, so that a broken executable shows), one per line
k=0
for t in "$@"; do
    if [ -n "$pat" ]; then
        "$t" --list "$pat" >/dev/null 2>&1
        [ $? -eq 2 ] && continue
    fi
    k=$((k + 1))
    printf '%s %s/c%03d\n' "$t" "$out" "$k"
done > "$out/c.list"

# the shell and Python suites, one after another, in the background
(
    k=0
    for t in tests/cli/test_*.sh; do
        [ -f "$t" ] || continue
        name_matches "$(basename "$t" .sh)" "$(basename "$t")" || continue
        k=$((k + 1))
        sh "$self" --suite "$out/s$(printf %03d $k)" "$t" sh "$t"
    done
    for t in tests/python/test_*.py; do
        [ -f "$t" ] || continue
        name_matches "$(basename "$t" .py)" "$(basename "$t")" || continue
        k=$((k + 1))
        if ! command -v python3 >/dev/null 2>&1; then
            echo "$t: python3 not found, skipped"
            echo "$t: 0 passed, 0 failed, 1 skipped" > "$out/p$(printf %03d $k)"
            echo 0 > "$out/p$(printf %03d $k).rc"
            continue
        fi
        sh "$self" --suite "$out/p$(printf %03d $k)" "$t" \
            env PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 python3 "$t"
    done
) &
lane=$!

# the C executables, TEST_JOBS at a time (the pattern goes by environment:
# xargs would read quotes in it)
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
export TPAT="$pat"
xargs -r -P "$jobs" -n 2 sh -c 'o=$2; set -- "$1" ${TPAT:+"$TPAT"}
    exec sh "$0" --suite "$o" "$1" "$@"' "$self" < "$out/c.list"
wait "$lane"

# the totals: a suite that printed no summary line, or exited non-zero with
# none failed, counts as one failure
passed=0; failed=0; skipped=0; ran=0
for rcf in "$out"/*.rc; do
    [ -f "$rcf" ] || continue
    o=${rcf%.rc}; rc=$(cat "$rcf"); ran=$((ran + 1))
    line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' "$o" | tail -n 1)
    if [ -z "$line" ]; then failed=$((failed + 1)); continue; fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p'); s=${s:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
if [ -n "$pat" ] && [ "$ran" -eq 0 ]; then
    echo "no test case or suite matches '$pat' (build/tests/<layer>/test_* --list shows the cases)"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
