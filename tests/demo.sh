#!/bin/sh
# `make run`: the default experiment (configs/demo.yaml) into
# results/demo.db and its lifetime companion (configs/lifetime.yaml) into
# results/lifetime.db, their figures, and tables of the final write
# amplification and the lifetimes per policy and wear leveling.
set -e
FL=${FL:-./build/flashlab}
J=${J:-2} # runs at a time: `make run J=N`
mkdir -p results
for x in demo lifetime; do
    rm -f results/$x.db results/$x.db-wal results/$x.db-shm
    $FL run configs/$x.yaml -j "$J" -o results/$x.db
done
# Each figure answers one question (README.md, "Two commands"); the series
# are named by the swept keys that differ, the seeds averaged (mean and
# +- 1 standard deviation).
# Which policy writes least at which utilisation, and does static wear
# leveling cost extra writes?
$FL plot results/demo.db --kind wa-util --by fs.gc_policy,fs.wear_leveling -o results/demo-wa-util.png
# Has write amplification settled by the end of the runs, at each fill?
$FL plot results/demo.db --kind wa-time --facet workload.utilisation -o results/demo-wa-time.png
# Which policy wears the blocks most evenly, at each fill?
$FL plot results/demo.db --kind erase-cdf --facet workload.utilisation -o results/demo-erase-cdf.png
# How much can be written before the first block wears out, per policy and
# wear-leveling mode?
$FL plot results/lifetime.db --kind lifetime --by fs.gc_policy,fs.wear_leveling -o results/lifetime.png
echo
echo "final write amplification (mean of the seeds), results/demo.db:"
sqlite3 -header -column results/demo.db "
  select json_extract(r.params, '$.fs.gc_policy') as policy,
         json_extract(r.params, '$.fs.wear_leveling') as wear_leveling,
         json_extract(r.params, '$.workload.fill') as fill,
         printf('%.3f', avg(s.wa)) as wa,
         printf('%.0f', avg(s.gc_invocations)) as victims
  from runs r join samples s on s.run_id = r.id
  where r.status = 'complete'
    and s.seq = (select max(seq) from samples where run_id = r.id)
  group by policy, wear_leveling, fill order by fill, wear_leveling, policy"
echo
echo "host data written until the first block wore out (endurance_scale 0.0005), results/lifetime.db:"
sqlite3 -header -column results/lifetime.db "
  select json_extract(r.params, '$.fs.gc_policy') as policy,
         json_extract(r.params, '$.fs.wear_leveling') as wear_leveling,
         printf('%.0f', avg(k.value) / 1048576) as lifetime_mib
  from runs r join kv k on k.run_id = r.id and k.key = 'lifetime_host_bytes'
  group by policy, wear_leveling order by policy, wear_leveling"
echo
echo "figures: results/demo-wa-util.png results/demo-wa-time.png results/demo-erase-cdf.png results/lifetime.png"
