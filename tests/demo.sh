#!/bin/sh
# `make run`: the default job.  For now a tour of the simulator, then LogFS
# on a fresh 64 MiB part; the default experiment (configs/demo.yaml)
# replaces it once the runner exists.
set -e
mkdir -p results
FL=./build/flashlab
$FL sim demo --device configs/devices/test-64m.yaml --image results/demo-sim.img
$FL sim info results/demo-sim.img
echo
echo "== LogFS on results/demo-fs.img =="
$FL sim create --force --device configs/devices/test-64m.yaml results/demo-fs.img
$FL mkfs results/demo-fs.img
$FL mkdir -p results/demo-fs.img:/docs
for f in README.md docs/*.md; do
    $FL put "$f" "results/demo-fs.img:/docs/$(basename "$f")"
done
$FL ls -l results/demo-fs.img:/docs
$FL df results/demo-fs.img
