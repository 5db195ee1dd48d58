#!/bin/sh
# scripts/steady-vs-mqsim.sh (make bench-steady-mqsim) without MQSim or the
# 8 GiB benchmark: stand-ins that print what MQSim and bench_steady print,
# with known counts and rates that change from round to round, check the
# counts it reads (MQSim's programs + erases summed over every chip of its
# scenario file), the medians and the ratios; and its errors on bad input.
. "$(dirname "$0")/lib.sh"
S=scripts/steady-vs-mqsim.sh
mkdir -p "$T/xml"
echo '<ssd/>' > "$T/xml/ssd-8g-mlc.xml"
echo '<workload/>' > "$T/xml/workload-random-4k.xml"

# MQSim: 1000 requests, 600 + 400 programs and 3 + 5 erases on two chips
cat > "$T/mqsim" <<'X'
#!/bin/sh
[ "$1 $3" = "-i -w" ] || exit 9
i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done # CPU time to measure
printf '<Chip Issued_Flash_Program_CMD="600" Issued_Flash_Erase_CMD="3"/>\n<Chip Issued_Flash_Program_CMD="400" Issued_Flash_Erase_CMD="5"/>\n' \
    > "${4%.xml}_scenario_1.xml"
echo "Simulation complete; total requests serviced: 1000"
X
# bench_steady --variants off: host 5000, 9000, 6000 writes/s in turn (median 6000, mean 6667)
cat > "$T/bench" <<X
#!/bin/sh
[ "\$*" = "--variants off" ] || exit 9
n=\$(cat "$T/n" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > "$T/n"
h=\$(echo 5000 9000 6000 | cut -d' ' -f\$n)
echo "  off             per CPU-second: host \$((h * 2)) writes/s, flash \$((h * 4)) programs+erases/s"
echo "  off             host \$h writes/s, flash \$((h * 2)) programs+erases/s, WA 4.400 (simulated device 400 writes/s); raw sim 1 programs+erases/s"
echo "  off             window: 10 programs, 2 erases, 5 reads (1 MiB)"
X
chmod +x "$T/mqsim" "$T/bench"

out=$(MQSIM="$T/mqsim" MQSIM_XML="$T/xml" ROUNDS=3 sh $S "$T/bench" 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "run: exit $rc: $out"; fi
n=$(printf '%s\n' "$out" | grep -c '^MQSim .*: 1000 requests, 1008 programs+erases in')
if [ "$n" -eq 3 ]; then ok; else bad "MQSim's counts in 3 rounds: $n: $out"; fi
if printf '%s\n' "$out" | grep -q '^LogFS\[1\] load [0-9.]*: host 9000 writes/s, 18000 programs+erases/s, WA 4.400; per CPU-second 18000, 36000; window: 10 programs, 2 erases'; then ok; else bad "a LogFS run: $out"; fi
if printf '%s\n' "$out" | grep -q '^LogFS\[1\] 6000 host writes/s (.*x MQSim requests/s), 12000 programs+erases/s'; then ok; else bad "LogFS's medians: $out"; fi
# the ratios are the medians' quotients (the wall-clock ones first)
mq=$(printf '%s\n' "$out" | sed -n 's/^MQSim *\([0-9]*\) requests\/s, \([0-9]*\) programs.*/\1 \2/p' | head -n 1)
want=$(echo "$mq" | awk '{printf "(%.2fx MQSim requests/s), 12000 programs+erases/s (%.2fx MQSim)", 6000 / $1, 12000 / $2}')
if [ -n "$mq" ] && printf '%s\n' "$out" | grep -qF "$want"; then ok; else bad "ratios '$want': $out"; fi

# per CPU-second: LogFS's medians from its own lines, MQSim's from the CPU
# time the stand-in spends counting (some hundredths of a second at least)
n=$(printf '%s\n' "$out" | grep -cE '^MQSim .* s \((0\.0[1-9]|[0-9]*\.[1-9]|[1-9][0-9]*\.[0-9]) CPU-s\): .*; per CPU-second [0-9]+, [0-9]+$')
if [ "$n" -eq 3 ]; then ok; else bad "MQSim's CPU time in 3 rounds: $n: $out"; fi
want=$(printf '%s\n' "$out" | sed -n '/^per CPU-second, medians:/,$p')
mqc=$(printf '%s\n' "$want" | sed -n 's/^MQSim *\([0-9]*\) requests\/s, \([0-9]*\) programs.*/\1 \2/p')
wantc=$(echo "$mqc" | awk '{printf "LogFS[1] 12000 host writes/s (%.2fx MQSim requests/s), 24000 programs+erases/s (%.2fx MQSim)", 12000 / $1, 24000 / $2}')
if [ -n "$mqc" ] && printf '%s\n' "$want" | grep -qF "$wantc"; then ok; else bad "per CPU-second medians '$wantc': $out"; fi

expect 2 "no MQSIM" "set MQSIM" -- env -u MQSIM MQSIM_XML="$T/xml" sh $S "$T/bench"
expect 2 "job files missing" "$T/bench/ssd-8g-mlc.xml: not readable" -- env MQSIM="$T/mqsim" MQSIM_XML="$T/bench" sh $S "$T/bench"
expect 2 "no bench binary" "usage" -- env MQSIM="$T/mqsim" MQSIM_XML="$T/xml" sh $S
printf '#!/bin/sh\necho no counts\n' > "$T/mqbad"; chmod +x "$T/mqbad"
expect 1 "MQSim without counts" "MQSim gave no counts" -- env MQSIM="$T/mqbad" MQSIM_XML="$T/xml" ROUNDS=1 sh $S "$T/bench"

echo "test_steady_mqsim: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
