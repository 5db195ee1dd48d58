#!/bin/sh
# A one-node Slurm cluster started by the test itself (munged with a key of
# its own, slurmctld and slurmd as root on this host, a generated
# slurm.conf, all under a temp dir), an experiment sharded over an array
# job with scripts/slurm-array.sh, the shards merged by a dependent job, and
# the result compared with a local run of the same sweep.  Skipped (and
# counted as skipped) when not root or Slurm is not installed; `make deps`
# installs slurm-wlm and munge.
. "$(dirname "$0")/lib.sh"
skip() { echo "test_slurm: skipped: $1"; echo "test_slurm: 0 passed, 0 failed, 1 skipped"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start slurmd"
for p in munged slurmctld slurmd sbatch squeue; do
    command -v $p >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
    command -v $p >/dev/null 2>&1 || skip "$p not installed"
done
FLA=$(realpath "$FL")
H=$(hostname -s)
# ports of our own, away from a real cluster's 6817/6818
base=$((20000 + $$ % 20000))
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$T/munge/munge.key"
SOCK="$T/munge/munge.sock"
cleanup() {
    [ -f "$T/slurmd.pid" ] && kill "$(cat "$T/slurmd.pid")" 2>/dev/null
    [ -f "$T/slurmctld.pid" ] && kill "$(cat "$T/slurmctld.pid")" 2>/dev/null
    munged --socket="$SOCK" --stop >/dev/null 2>&1
    sleep 1
    rm -rf "$T"
}
trap cleanup EXIT
munged --force --socket="$SOCK" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
    --seed-file="$T/munge/seed" || skip "munged would not start: $(tail -3 "$T/log/munged.log" 2>/dev/null)"
cpus=$(nproc)
cat > "$T/slurm.conf" <<CONF
ClusterName=flashlabtest
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmdTimeout=30
InactiveLimit=0
NodeName=$H CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld would not start: $(tail -3 "$T/log/slurmctld.log")"
slurmd -f "$SLURM_CONF" || skip "slurmd would not start: $(tail -3 "$T/log/slurmd.log")"
# wait for the node to be idle (at most 60 s)
i=0
until sinfo -h -N -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1)); [ $i -gt 60 ] && { bad "node never became idle: $(sinfo -N 2>&1; tail -5 "$T/log/slurmd.log")"; break; }
    sleep 1
done
ok

X="$T/exp.yaml"
cat > "$X" <<YAML
name: slurmtest
device: $(pwd)/configs/devices/test-64m.yaml
fs: {reserve: 4, dirty: 256K}
workload: {kind: uniform, fill: 0.5, sync_every: 32}
stop: {ops: 2000}
seeds: [1, 2]
sweep:
  fs.gc_policy: [greedy, fifo, cost-benefit]
YAML
expect 0 "local run" "6 complete" -- $FL run "$X" -o "$T/local.db" -j 2
ids=$(FLASHLAB="$FLA" sh scripts/slurm-array.sh "$X" "$T/slurm.db" 3 --partition=test)
merge_id=${ids#* }
[ -n "$merge_id" ] && ok || bad "sbatch gave no job ids: $ids"
# wait for the merge job to leave the queue (at most 5 minutes)
i=0
while squeue -h -j "$merge_id" 2>/dev/null | grep -q .; do
    i=$((i + 1)); [ $i -gt 300 ] && { bad "jobs did not finish: $(squeue 2>&1)"; break; }
    sleep 1
done
[ -f "$T/slurm.db" ] && ok || bad "no merged database: $(cat "$T"/slurm.db.shards/*.log 2>&1 | tail -5)"
digest() {
    sqlite3 "$1" "select r.run_index, r.seed, r.params, r.status,
        (select printf('%.9f', wa) from samples s where s.run_id = r.id order by seq desc limit 1),
        (select count(*) from samples s where s.run_id = r.id)
        from runs r order by r.run_index"
}
a=$(digest "$T/local.db"); b=$(digest "$T/slurm.db" 2>/dev/null)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "Slurm and local runs differ: $a ### $b"; fi
n=$(sqlite3 "$T/slurm.db" "select count(*) from runs where status = 'complete'" 2>/dev/null)
[ "$n" = 6 ] && ok || bad "merged database has $n complete runs, expected 6"
echo "test_slurm: $passed passed, $failed failed, 0 skipped"
