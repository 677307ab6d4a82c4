#!/usr/bin/env python3
"""What checkpointing costs a scan: a full read of a loop device over a tmpfs file, with a
checkpoint every second (--checkpoint 1s) and with none (--checkpoint off), alternating in one
run: rounds of one scan with checkpoints and two without, in rotating order. Prints each round
and the slow-down (1 - rate with / rate without) as the median of the rounds' ratios and pooled
over all of them (total bytes over total time, each side), and, as a control, the same ratio
between the two scans without checkpoints: how far two identical runs differ here anyway.
Target: under 1 %.

The checkpointed scans also say what their checkpoints cost them (the document's `checkpoints`):
the time the scan held its next command for them, and the CPU time of the thread that wrote them.
Their sum over the scan's duration is the share of the run they took, measured within each run
(the writer's CPU counted whole, as if all of it came from the scan), untouched by how the
machine's speed drifts from one run to the next.

Both sides save their result in the same store (a temporary directory on the root file system,
where a results store lives, so each checkpoint pays a real fsync); the rate is the scan's own
(bytes / duration_ns, store time excluded).

Usage (root): bench/checkpoint_cost.py [--rounds N] [--size 1024] [--block-size 4K] [--qd 1]
                                       [--every 1s] [--rt]
"""
import argparse
import os
import shutil
import tempfile

import common
from common import build, ds, machine, median, tmpfs_loop

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=9)
ap.add_argument("--size", type=int, default=1024, help="loop device size, MiB (default 1024)")
ap.add_argument("--block-size", default="4K",
                help="scan block size (default 4K: about 262 144 commands a GiB, so that a scan "
                     "of the tmpfs device lasts several checkpoint intervals)")
ap.add_argument("--qd", type=int, default=1)
ap.add_argument("--every", default="1s", help="checkpoint interval of the checkpointed side")
ap.add_argument("--rt", action="store_true",
                help="run each scan under chrt -f 10 (SCHED_FIFO), so that other programs on the "
                     "machine preempt it less; the checkpoint writer drops to the normal policy")
args = ap.parse_args()
build(fio=False)
if args.rt:
    common.DS_PREFIX = ["chrt", "-f", "10"]
print(f"# checkpoint cost — {machine()}")


store_dir = tempfile.mkdtemp(prefix="drivescope-checkpoint-bench-", dir="/var/tmp")
store = os.path.join(store_dir, "runs.sqlite")
try:
    with tmpfs_loop(args.size << 20) as dev:
        base = ["scan", dev, "--block-size", args.block_size, "--queue-depth", str(args.qd),
                "--store", store]

        def run(every):
            d, _, _ = ds(base + ["--checkpoint", every])
            return d

        run("off")  # warm-up: page cache, store creation
        # Each round: one scan with checkpoints (w) and two without (a, b), in an order that
        # rotates, so w takes each place equally. w / mean(a, b) is the rate with over the rate
        # without; a / b, the same comparison between two runs that differ in nothing, shows how
        # far runs differ on this machine at this time anyway (what the method can resolve).
        orders = [("w", "a", "b"), ("a", "b", "w"), ("b", "w", "a")]
        ratios, controls, direct, tot = [], [], [], {"w": [0, 0], "off": [0, 0]}
        held, cpu, count = [], [], []
        for i in range(args.rounds):
            got = {}
            for k in orders[i % 3]:
                got[k] = run(args.every if k == "w" else "off")
            dw, da, db = got["w"], got["a"], got["b"]
            rw, ra, rb = (d["mb_per_s"]["mean"] for d in (dw, da, db))
            for d in (dw, da, db):
                assert d["bytes"] == args.size << 20 and not d["interrupted"]
            ratios.append(rw / ((ra + rb) / 2))
            controls.append(ra / rb)
            for k, d in (("w", dw), ("off", da), ("off", db)):
                tot[k][0] += d["bytes"]
                tot[k][1] += d["duration_ns"]
            c = dw["checkpoints"]
            assert c["count"] > 0 and c["writer_cpu_ns"] > 0, "checkpoints were taken and written"
            direct.append((c["held_ns"] + c["writer_cpu_ns"]) / dw["duration_ns"])
            held.append(c["held_ns"] / max(c["count"], 1))
            cpu.append(c["writer_cpu_ns"] / max(c["count"], 1))
            count.append(c["count"])
            print(f"round {i} ({''.join(orders[i % 3])}): --checkpoint {args.every} {rw:.1f} MB/s "
                  f"({dw['duration_ns']/1e9:.2f} s, {c['count']} checkpoints, "
                  f"held {c['held_ns']/1e3:.0f} µs, writer CPU {c['writer_cpu_ns']/1e6:.1f} ms)  "
                  f"off {ra:.1f} and {rb:.1f} MB/s  ratio {ratios[-1]:.4f}  control {controls[-1]:.4f}")
        pooled = (tot["w"][0] / tot["w"][1]) / (tot["off"][0] / tot["off"][1])
        spread = median([abs(c - 1) for c in controls])
        print(f"{args.size} MiB tmpfs loop, {args.block_size} QD{args.qd}{', chrt -f 10' if args.rt else ''}, "
              f"{args.rounds} rounds: rate with / without checkpoints every {args.every}: median "
              f"{median(ratios):.4f} (slow-down {100 * (1 - median(ratios)):.2f} %), pooled {pooled:.4f} "
              f"(slow-down {100 * (1 - pooled):.2f} %); rounds {min(ratios):.4f}–{max(ratios):.4f}")
        print(f"  control, without / without: median {median(controls):.4f}, rounds "
              f"{min(controls):.4f}–{max(controls):.4f}, median distance from 1: {100 * spread:.2f} %")
        print(f"  within each checkpointed run: (held + writer CPU) / duration, median {100 * median(direct):.3f} %"
              f" (max {100 * max(direct):.3f} %); per checkpoint, median: held {median(held)/1e3:.1f} µs, "
              f"writer CPU {median(cpu)/1e6:.2f} ms; checkpoints per run {min(count)}–{max(count)}")
finally:
    shutil.rmtree(store_dir, ignore_errors=True)
