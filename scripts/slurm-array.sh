#!/bin/sh
# scripts/slurm-array.sh EXPERIMENT.yaml OUT.db SHARDS [SBATCH OPTIONS...]:
# a Slurm array job of SHARDS tasks, task i running `flashlab run --shard
# i/SHARDS` into its own database in a shared directory, then a job that
# merges them into OUT.db once all tasks succeeded.  Prints the two job
# ids.  FLASHLAB (default build/flashlab, made absolute) is the program;
# the directory holding OUT.db must be visible to every node.
set -e
[ $# -ge 3 ] || { echo "usage: $0 EXPERIMENT.yaml OUT.db SHARDS [SBATCH OPTIONS...]" >&2; exit 2; }
exp=$(realpath "$1"); out=$(realpath -m "$2"); n=$3; shift 3
FL=$(realpath "${FLASHLAB:-build/flashlab}")
dir="$out.shards"
mkdir -p "$dir"
array=$(sbatch --parsable "$@" --array=0-$((n - 1)) --output="$dir/task-%a.log" \
    --chdir="$(pwd)" \
    --wrap "'$FL' run '$exp' --quiet --shard \$SLURM_ARRAY_TASK_ID/$n -o '$dir'/shard\$SLURM_ARRAY_TASK_ID.db")
merge=$(sbatch --parsable "$@" --dependency=afterok:"$array" --output="$dir/merge.log" \
    --chdir="$(pwd)" --wrap "'$FL' merge '$out' '$dir'/shard*.db")
echo "$array $merge"
