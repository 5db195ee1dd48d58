#!/bin/sh
# `make run`: the default job.  For now the simulator tour; the default
# experiment (configs/demo.yaml) replaces it once the runner exists.
set -e
mkdir -p results
./build/flashlab sim demo --device configs/devices/test-64m.yaml \
    --image results/demo-sim.img
./build/flashlab sim info results/demo-sim.img
