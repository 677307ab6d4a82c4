#!/usr/bin/env python3
"""What running under MPI costs: the aggregate IOPS of `mpirun -n 2 drivescope bench` on null
targets against twice a single process's IOPS on the same machine, alternating single / two
ranks each round. Each figure is the record's mean IOPS over its measured runs (the multi
record's aggregate: every rank's commands over the earliest start to the latest end). Prints
each round and the median ratio two ranks / (2 × single). Target: at least 0.90 on a machine
with two cores (each rank has a core of its own; the single process uses one).

Tests: RND4K Q1T1 (the per-command cost: tens of millions of commands a second) and RND4K
Q32T1, read, 3 runs of 2 s each.

Usage (root; Open MPI's mpirun): bench/mpi_scale.py [--rounds 7] [--ranks 2]
"""
import argparse
import json
import os
import subprocess
import sys

from common import DS, ROOT, machine, median

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--ranks", type=int, default=2)
ap.add_argument("--duration", default="2s")
args = ap.parse_args()
subprocess.run(
    ["cargo", "build", "--release", "-q", "-p", "drivescope", "--features", "mpi"],
    cwd=ROOT,
    check=True,
)
print(f"# MPI scaling — {machine()}")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def bench(test, ranks):
    cmd = [DS, "bench", "null:1G", "--test", test, "--rw", "read", "--runs", "3",
           "--duration", args.duration, "--json", "--no-store", "--quiet"]
    if ranks > 1:
        cmd = ["mpirun", "-n", str(ranks), "--bind-to", "core"] + cmd
    p = subprocess.run(cmd, capture_output=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {p.stderr.decode(errors='replace')}")
    d = json.loads(p.stdout)
    t = d["tests"][0]
    if ranks > 1:
        assert d["kind"] == "multi" and t["ranks"] == ranks, d["kind"]
    return t["mean_iops"]


for test in ["RND4K Q1T1", "RND4K Q32T1"]:
    ratios = []
    for i in range(args.rounds):
        one = bench(test, 1)
        many = bench(test, args.ranks)
        r = many / (args.ranks * one)
        ratios.append(r)
        print(f"{test} round {i + 1}: single {one / 1e6:.2f} M IOPS, {args.ranks} ranks "
              f"{many / 1e6:.2f} M IOPS, ratio {r:.3f}", flush=True)
    print(f"{test}: median ratio {args.ranks} ranks / ({args.ranks} × single) = "
          f"{median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})", flush=True)
