#!/bin/sh
# `make run`: the default experiment (configs/demo.yaml) into
# results/demo.db and its lifetime companion (configs/lifetime.yaml) into
# results/lifetime.db, their figures, and tables of the steady-state and
# cumulative write amplification at the measured utilisation and of the
# lifetimes per policy and wear leveling.
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
# Has the data WA settled by the end of the runs, at each utilisation?
# (interval WA, between samples: the cumulative WA lags the steady state)
$FL plot results/demo.db --kind wa-time --wa interval --facet workload.utilisation -o results/demo-wa-time.png
# Which policy wears the blocks most evenly, at each utilisation?
$FL plot results/demo.db --kind erase-cdf --facet workload.utilisation -o results/demo-erase-cdf.png
# How much can be written before the first block wears out, per policy and
# wear-leveling mode?
$FL plot results/lifetime.db --kind lifetime --by fs.gc_policy,fs.wear_leveling -o results/lifetime.png
echo
echo "write amplification per policy, wear leveling and utilisation (mean of the seeds; the final view), results/demo.db:"
echo "  u: measured utilisation; wa_steady: data WA after the warm-up; wa_cumulative: all pages since the start; settled: runs with steady_reached"
sqlite3 -header -column results/demo.db "
  select gc_policy as policy,
         json_extract(params, '$.fs.wear_leveling') as wear_leveling,
         printf('%.3f', avg(utilisation)) as u,
         printf('%.3f', avg(wa_steady)) as wa_steady,
         printf('%.3f', avg(wa)) as wa_cumulative,
         printf('%d/%d', sum(steady_reached), count(*)) as settled
  from final
  where status = 'complete'
  group by policy, wear_leveling, json_extract(params, '$.workload.utilisation')
  order by avg(utilisation), wear_leveling, policy"
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
