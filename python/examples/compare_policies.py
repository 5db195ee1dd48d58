#!/usr/bin/env python3
"""Compare LogFS's cleaning policies from Python: the worked example.

For each victim-selection policy, make a fresh simulated device, format it
with LogFS, fill a file to a given share of the space, overwrite random
4 KiB blocks of it (90% of the writes to 10% of the blocks) for a few
device sizes, and print the write amplification (pages programmed per
host page), the cleaner's work and the 99th-percentile write latency in
simulated time.  Then the same comparison as an experiment through
`flashlab run`, read back from its results database.

    PYTHONPATH=python python3 python/examples/compare_policies.py [--quick]
"""
import argparse
import os
import random
import sys
import tempfile

import flashlab
from flashlab import Device, LogFS, experiment
from flashlab.results import Results

# the device preset shipped beside this example, whatever the current directory
DEVICE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                       "configs", "devices", "test-64m.yaml"))

BLOCK = 4096


def one_policy(policy, blocks, fill, fills, seed):
    """WA, victims and p99 write latency of `policy` on a fresh device."""
    rng = random.Random(seed)
    with Device.create(blocks=blocks, pages=64, page_size=2048, seed=seed) as dev:
        LogFS.mkfs(dev, reserve=4)
        with LogFS.mount(dev, gc_policy=policy, dirty="256K") as fs:
            nblocks = int(fs.statfs().free_bytes * fill) // BLOCK
            fd = fs.open("/data", os.O_CREAT | os.O_RDWR)
            for b in range(nblocks):                       # the fill
                fs.pwrite(fd, bytes([b % 251 + 1]) * BLOCK, b * BLOCK)
            fs.sync()
            before = fs.stats()
            fs.reset_latency()
            hot = max(1, nblocks // 10)
            device_bytes = blocks * 64 * 2048
            for i in range(int(fills * device_bytes) // BLOCK):
                b = rng.randrange(hot) if rng.random() < 0.9 else rng.randrange(hot, nblocks)
                fs.pwrite(fd, bytes([i % 251 + 1]) * BLOCK, b * BLOCK)
                if i % 64 == 63:
                    fs.sync()
            fs.close(fd)
            after = fs.stats()
            pages = sum(after[k] - before[k] for k in ("pages_data", "pages_meta", "pages_anchor"))
            host_pages = (after["host_bytes"] - before["host_bytes"]) / 2048
            return (pages / host_pages, after["gc_rounds"] - before["gc_rounds"],
                    fs.latency("write")["p99_ns"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small device and few writes")
    args = ap.parse_args()
    blocks, fills = (128, 1.5) if args.quick else (512, 4.0)

    print(f"{'policy':14} {'WA':>6} {'victims':>8} {'p99 write':>12}")
    for policy in flashlab.gc_policies():
        wa, victims, p99 = one_policy(policy, blocks, 0.8, fills, seed=1)
        print(f"{policy:14} {wa:6.3f} {victims:8d} {p99 / 1e6:9.2f} ms")

    ok, why = experiment.available()
    if not ok:
        print(f"(skipping the experiment: {why})")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "policies.yaml")
        with open(cfg, "w") as f:
            f.write(f"""name: policies
device: {DEVICE}
fs: {{reserve: 4, dirty: 256K}}
workload: {{kind: hotcold, hot_writes: 0.9, hot_data: 0.1, fill: 0.8, sync_every: 64}}
stop: {{device_fills: {fills}}}
sweep:
  fs.gc_policy: [greedy, cost-benefit, fifo]
""")
        db = experiment.run(cfg, db=os.path.join(tmp, "policies.db"), jobs=2)
        with Results(db) as r:
            print("\nthe same through `flashlab run` (64 MiB part):")
            for run in r.runs(status="complete"):
                print(f"  {run['params']['fs']['gc_policy']:14} WA {r.final_wa(run['id']):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
