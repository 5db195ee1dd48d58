#!/bin/sh
# `make run`: the default experiment (configs/demo.yaml) into
# results/demo.db, its figures, and a table of the final write
# amplification per policy and utilisation.
set -e
FL=${FL:-./build/flashlab}
mkdir -p results
rm -f results/demo.db results/demo.db-wal results/demo.db-shm
$FL run configs/demo.yaml -j 2 -o results/demo.db
$FL plot results/demo.db --kind wa-util -o results/demo-wa-util.png
$FL plot results/demo.db --kind wa-time -o results/demo-wa-time.png
$FL plot results/demo.db --kind erase-cdf -o results/demo-erase-cdf.png
echo
echo "final write amplification (mean of the seeds):"
sqlite3 -header -column results/demo.db "
  select json_extract(r.params, '$.fs.gc_policy') as policy,
         json_extract(r.params, '$.workload.fill') as fill,
         printf('%.3f', avg(s.wa)) as wa,
         printf('%.0f', avg(s.gc_invocations)) as victims
  from runs r join samples s on s.run_id = r.id
  where r.status = 'complete'
    and s.seq = (select max(seq) from samples where run_id = r.id)
  group by policy, fill order by fill, policy"
echo
echo "figures: results/demo-wa-util.png results/demo-wa-time.png results/demo-erase-cdf.png"
