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
passed=0; failed=0; skipped=0
# (the suites get no T: the shell ones use the name themselves)
pat=${T:-}; unset T
ran=0
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
[ -n "$pat" ] && echo "only the test cases matching '$pat' (C), the suites whose file name does (shell, Python)"
for t in "$@"; do
    if [ -n "$pat" ]; then
        # exit 2: no case of this executable matches (anything else: run
        # it, so that a broken executable shows)
        "$t" --list "$pat" >/dev/null 2>&1
        [ $? -eq 2 ] && continue
        ran=$((ran + 1))
        suite "$t" "$t" "$pat"
    else
        suite "$t" "$t"
    fi
done
for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    name_matches "$(basename "$t" .sh)" "$(basename "$t")" || continue
    ran=$((ran + 1))
    suite "$t" sh "$t"
done
for t in tests/python/test_*.py; do
    [ -f "$t" ] || continue
    name_matches "$(basename "$t" .py)" "$(basename "$t")" || continue
    ran=$((ran + 1))
    if ! command -v python3 >/dev/null 2>&1; then
        echo "$t: python3 not found, skipped"; skipped=$((skipped + 1)); continue
    fi
    suite "$t" env PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1 python3 "$t"
done
if [ -n "$pat" ] && [ "$ran" -eq 0 ]; then
    echo "no test case or suite matches '$pat' (build/tests/<layer>/test_* --list shows the cases)"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
