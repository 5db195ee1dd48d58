#!/bin/sh
# scripts/parallel.sh EXPERIMENT.yaml OUT.db [JOBS]: every run of the
# experiment as its own `flashlab run --run K` under GNU parallel, one
# database per run, merged into OUT.db.  FLASHLAB (default build/flashlab)
# is the program.
set -e
[ $# -ge 2 ] || { echo "usage: $0 EXPERIMENT.yaml OUT.db [JOBS]" >&2; exit 2; }
exp=$1; out=$2; jobs=${3:-0}   # 0: one per core
FL=${FLASHLAB:-build/flashlab}
shards=$(mktemp -d "${TMPDIR:-/tmp}/flashlab-shards.XXXXXX")
trap 'rm -rf "$shards"' EXIT
"$FL" run --list-runs "$exp" | cut -f1 |
    parallel --halt now,fail=1 -j "$jobs" "$FL" run "$exp" --quiet --run {} -o "$shards/run{}.db"
"$FL" merge "$out" "$shards"/run*.db
