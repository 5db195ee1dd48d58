#!/bin/sh
# steady-vs-mqsim.sh -- LogFS at steady state (bench_steady, variant off)
# and MQSim on its own job, alternately in one run (docs/performance.md,
# "LogFS beside MQSim"; issue #32).
#
#   MQSIM=BINARY MQSIM_XML=DIR [ROUNDS=3] [BENCH_ARGS=...] \
#       sh scripts/steady-vs-mqsim.sh BENCH_STEADY [BENCH_STEADY...]
#
# Each round runs MQSim once (DIR holds its ssd-8g-mlc.xml and
# workload-random-4k.xml; neither is in this repository), then each
# bench_steady binary given (two binaries: before and after a change).
# It prints every run and the medians: LogFS's host writes and programs +
# erases per wall-second, MQSim's requests and programs + erases per
# wall-second (8 KiB pages on both), and their ratios; the load average
# before each run.  On a shared machine the wall clock counts the other
# jobs' time too: the same figures per CPU-second of each process (MQSim's
# user + system time, bench_steady's own "per CPU-second" line) follow.
set -eu
: "${MQSIM:?set MQSIM to MQSim's binary}" "${MQSIM_XML:?set MQSIM_XML to its job files' folder}"
ROUNDS=${ROUNDS:-3}
BENCH_ARGS=${BENCH_ARGS:---variants off}
[ $# -ge 1 ] || { echo "usage: $0 BENCH_STEADY..." >&2; exit 2; }
for f in "$MQSIM_XML/ssd-8g-mlc.xml" "$MQSIM_XML/workload-random-4k.xml"; do
    [ -r "$f" ] || { echo "$0: $f: not readable" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/steady-mqsim-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
# the sum of one counter over every flash chip of MQSim's scenario file
xml_sum() { grep -o "$1=\"[0-9]*\"" "$2" | tr -dc '0-9\n' | awk '{s += $1} END {print s + 0}'; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# the CPU seconds (user + system) of this shell's finished children so far,
# from what `times` wrote into file $1 (called in a command substitution,
# times would count the children of that subshell, none)
child_cpu() { tail -n 1 "$1" | tr 'ms' '  ' | awk '{print $1 * 60 + $2 + $3 * 60 + $4}'; }

run_mqsim() {
    cp "$MQSIM_XML/ssd-8g-mlc.xml" "$MQSIM_XML/workload-random-4k.xml" "$tmp/"
    l=$(load); times >"$tmp/cpu0"; t0=$(now)
    (cd "$tmp" && "$MQSIM" -i ssd-8g-mlc.xml -w workload-random-4k.xml >out.txt 2>&1)
    t1=$(now); times >"$tmp/cpu1"
    c0=$(child_cpu "$tmp/cpu0") c1=$(child_cpu "$tmp/cpu1")
    req=$(sed -n 's/.*total requests serviced[^0-9]*\([0-9]*\).*/\1/p' "$tmp/out.txt" | tail -1)
    sc=$(ls "$tmp"/*scenario*.xml | head -1)
    ops=$(( $(xml_sum Issued_Flash_Program_CMD "$sc") + $(xml_sum Issued_Flash_Erase_CMD "$sc") ))
    [ -n "$req" ] && [ "$ops" -gt 0 ] || { echo "$0: MQSim gave no counts" >&2; exit 1; }
    # CPU time too short to measure (a stand-in) counts as a hundredth of a second
    cpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN { c = b - a; print (c > 0.01 ? c : 0.01) }')
    awk -v r="$req" -v o="$ops" -v a="$t0" -v b="$t1" -v l="$l" -v c="$cpu" 'BEGIN {
        printf "MQSim     load %s: %d requests, %d programs+erases in %.1f s (%.1f CPU-s): %.0f requests/s, %.0f programs+erases/s; per CPU-second %.0f, %.0f\n",
               l, r, o, b - a, c, r / (b - a), o / (b - a), r / c, o / c }'
    awk -v r="$req" -v o="$ops" -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { print r / (b - a), o / (b - a), r / c, o / c }' >>"$tmp/mqsim.txt"
    rm -f "$tmp"/*scenario*.xml "$tmp/out.txt"
}

run_bench() { # index binary
    l=$(load)
    # shellcheck disable=SC2086
    "$2" $BENCH_ARGS >"$tmp/b.txt"
    line=$(grep -E '^  off +host [0-9]+ writes/s' "$tmp/b.txt")
    fp=$(grep -E '^  off +window:' "$tmp/b.txt" | sed 's/^  off *//')
    h=$(echo "$line" | sed 's/.*host \([0-9]*\) writes.*/\1/')
    o=$(echo "$line" | sed 's/.*flash \([0-9]*\) programs.*/\1/')
    wa=$(echo "$line" | sed 's/.*WA \([0-9.]*\).*/\1/')
    cline=$(grep -E '^  off +per CPU-second: host [0-9]+ writes/s' "$tmp/b.txt")
    ch=$(echo "$cline" | sed 's/.*host \([0-9]*\) writes.*/\1/')
    co=$(echo "$cline" | sed 's/.*flash \([0-9]*\) programs.*/\1/')
    echo "LogFS[$1] load $l: host $h writes/s, $o programs+erases/s, WA $wa; per CPU-second $ch, $co; $fp ($2)"
    echo "$h $o $ch $co" >>"$tmp/bench$1.txt"
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
    r=$((r + 1))
    run_mqsim
    i=0
    for b in "$@"; do i=$((i + 1)); run_bench "$i" "$b"; done
done
# ratios FIELD_HOST FIELD_OPS MQ_REQUESTS MQ_OPS: each LogFS binary's
# medians of two fields of its runs, against MQSim's medians
ratios() {
    fh=$1 fo=$2 mr=$3 mo=$4
    shift 4
    n=0
    for b in "$@"; do
        n=$((n + 1))
        h=$(cut -d' ' -f"$fh" "$tmp/bench$n.txt" | median)
        o=$(cut -d' ' -f"$fo" "$tmp/bench$n.txt" | median)
        awk -v h="$h" -v o="$o" -v mr="$mr" -v mo="$mo" -v i="$n" -v b="$b" 'BEGIN {
            printf "LogFS[%s] %.0f host writes/s (%.2fx MQSim requests/s), %.0f programs+erases/s (%.2fx MQSim) (%s)\n",
                   i, h, h / mr, o, o / mo, b }'
    done
}
mq() { cut -d' ' -f"$1" "$tmp/mqsim.txt" | median; }
echo "medians of $ROUNDS rounds:"
printf 'MQSim     %.0f requests/s, %.0f programs+erases/s\n' "$(mq 1)" "$(mq 2)"
ratios 1 2 "$(mq 1)" "$(mq 2)" "$@"
echo "per CPU-second, medians:"
printf 'MQSim     %.0f requests/s, %.0f programs+erases/s\n' "$(mq 3)" "$(mq 4)"
ratios 3 4 "$(mq 3)" "$(mq 4)" "$@"
