#!/bin/sh
# The progress line of the long commands (cli/progress.c): `flashlab
# powercut`, `flashlab faults` and `flashlab run` draw one on a terminal -- done/total, failures
# so far, the rate and the time left -- and none when their output goes to
# a pipe or a file, nor with `run --quiet`.  The terminal is script(1)'s,
# else one from Python's pty module; with neither the terminal checks are
# skipped (and counted).
. "$(dirname "$0")/lib.sh"
skipped=0
ln -s "$PWD/configs" "$T/configs"
C="$T/pc.yaml"
cat > "$C" <<YAML
name: pc-progress
device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}
fs: {reserve: 4, dirty: 64K, block_size: 1024}
workload: {kind: churn, fill: 0.3, max_files: 20, dirs: 2, fsync_every: 3, sync_every: 10}
stop: {ops: 60}
powercut: {every: 3}
YAML
X="$T/run.yaml"
cat > "$X" <<YAML
name: run-progress
device: configs/devices/test-64m.yaml
fs: {reserve: 4, dirty: 256K}
workload: {kind: uniform, fill: 0.5, sync_every: 32}
stop: {ops: 2000}
seeds: [1, 2]
YAML
F="$T/faults.yaml"
cat > "$F" <<YAML
name: faults-progress
device: {file: configs/devices/test-64m.yaml, blocks_per_plane: 128}
fs: {reserve: 4, block_size: 512}
workload: {kind: churn, fill: 0.3, max_files: 6, dirs: 2, fsync_every: 3, sync_every: 10}
stop: {ops: 60}
faults: {kinds: [silent, uncorrectable], points: 2}
YAML
ESC=$(printf '\033')
CR=$(printf '\r')

# on_tty OUT CMD...: run CMD with stdin, stdout and stderr on a terminal,
# everything it wrote to OUT; 1 when no terminal can be had.
on_tty() {
    out=$1; shift
    if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
        # script's -c takes one command line: quote each word for sh
        line=""
        for a in "$@"; do line="$line '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"; done
        script -qec "$line" /dev/null > "$out" 2>&1
    elif command -v python3 >/dev/null 2>&1; then
        python3 -c 'import os, pty, sys
out = open(sys.argv[1], "wb")
def read(fd):
    data = os.read(fd, 65536)
    out.write(data)
    return data
st = pty.spawn(sys.argv[2:], read)
sys.exit(os.waitstatus_to_exitcode(st))' "$out" "$@"
    else
        return 1
    fi
}

# no_line DESCRIPTION FILE: no progress line (no ETA, no escape sequence;
# carriage returns only before line feeds, as a terminal ends its lines)
no_line() {
    if grep -q "ETA\|$ESC\|$CR." "$2"; then bad "$1: a progress line: $(od -c "$2" | head -5)"; else ok; fi
}

# ---- not a terminal: none ------------------------------------------------------------
$FL powercut "$C" -j 2 -o "$T/p1.db" > "$T/p1.out" 2>&1 && ok || bad "powercut to a pipe: $(cat "$T/p1.out")"
grep -q "cut points checked" "$T/p1.out" && ok || bad "powercut summary: $(cat "$T/p1.out")"
no_line "powercut to a file" "$T/p1.out"
$FL powercut "$C" -o "$T/p2.db" 2>&1 | cat > "$T/p2.out"
no_line "powercut to a pipe" "$T/p2.out"
$FL run "$X" -j 2 -o "$T/r1.db" 2>&1 | cat > "$T/r1.out"
grep -q "^run-progress: 2 runs, 2 complete, 0 failed" "$T/r1.out" && ok || bad "run summary: $(cat "$T/r1.out")"
no_line "run to a pipe" "$T/r1.out"

# ---- a terminal: the line, then the summary in its place ----------------------------------
if on_tty "$T/p3.out" $FL powercut "$C" -o "$T/p3.db"; then
    grep -q "run 0: [0-9]*/[0-9]* cut points  0 failed  [0-9.]*/s  ETA [0-9][0-9]:[0-9][0-9]" "$T/p3.out" &&
        ok || bad "powercut on a terminal: no progress line: $(cat "$T/p3.out")"
    # done reaches total: the last line drawn is complete
    last=$(tr '\r' '\n' < "$T/p3.out" | grep "cut points  " | tail -1 |
           sed -n 's/.*run 0: \([0-9]*\)\/\([0-9]*\) cut points.*/\1 \2/p')
    set -- $last
    [ -n "${1:-}" ] && [ "$1" = "$2" ] && [ "$2" -gt 0 ] && ok || bad "powercut's last progress is not done/total: '$last'"
    n=$(sqlite3 "$T/p3.db" "select count(*) from powercuts")
    [ "${2:-x}" = "$n" ] && ok || bad "progress total ${2:-?} is not the $n cut points checked"
    grep -q "$ESC\[K.*cut points checked" "$T/p3.out" && ok || bad "the summary does not wipe the line"
    on_tty "$T/f1.out" $FL faults "$F" -o "$T/f1.db" || bad "faults on a terminal failed: $(cat "$T/f1.out")"
    grep -q "run 0: [0-9]*/[0-9]* points  0 failed  [0-9.]*/s  ETA [0-9][0-9]:[0-9][0-9]" "$T/f1.out" &&
        ok || bad "faults on a terminal: no progress line: $(cat "$T/f1.out")"
    n=$(sqlite3 "$T/f1.db" "select count(*) from faults")
    tr '\r' '\n' < "$T/f1.out" | grep -q "run 0: $n/$n points" && ok || bad "faults' progress does not reach its $n points"
    grep -q "$ESC\[K.*fault points, 0 bad" "$T/f1.out" && ok || bad "faults: the summary does not wipe the line: $(cat "$T/f1.out")"
    $FL faults "$F" -o "$T/f2.db" > "$T/f2.out" 2>&1 || bad "faults to a file failed: $(cat "$T/f2.out")"
    no_line "faults to a file" "$T/f2.out"
    on_tty "$T/r2.out" $FL run "$X" -j 2 -o "$T/r2.db" || bad "run on a terminal failed"
    grep -q "[0-9]/2 runs  0 failed  [0-9.]*/s  ETA [0-9][0-9]:[0-9][0-9]  [0-9.]*%  [0-9]* ops/s  WA " "$T/r2.out" &&
        ok || bad "run on a terminal: no progress line: $(cat "$T/r2.out")"
    grep -q "2/2 runs" "$T/r2.out" && ok || bad "run's progress does not reach 2/2: $(cat "$T/r2.out")"
    on_tty "$T/r3.out" $FL run "$X" --quiet --force -o "$T/r3.db"
    no_line "run --quiet on a terminal" "$T/r3.out"
    grep -q "2 runs, 2 complete" "$T/r3.out" && ok || bad "run --quiet summary: $(cat "$T/r3.out")"
else
    echo "test_progress_cli: no script(1) nor python3 pty: terminal checks skipped"
    skipped=$((skipped + 1))
fi

echo "test_progress_cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
