#!/usr/bin/env python3
"""What checkpointing costs a scan: a full read of a loop device over a tmpfs file, with a
checkpoint every second (--checkpoint 1s) and with none (--checkpoint off), alternating A B, B A,
… in one run; prints each pair and the slow-down (1 - rate with / rate without) as the median of
the pairs' ratios and pooled over all of them (total bytes over total time, each side). Target:
under 1 %.

The checkpointed scans also say what their checkpoints cost them (the document's `checkpoints`):
the time the scan held its next command for them, and the CPU time of the thread that wrote them.
Their sum over the scan's duration bounds the slow-down from within each run, untouched by how
the machine's speed drifts between runs.

Both sides save their result in the same store (a temporary directory on the root file system,
where a results store lives, so each checkpoint pays a real fsync); the rate is the scan's own
(bytes / duration_ns, store time excluded). While a checkpointed scan runs, the store is read
every 200 ms to count the checkpoints that reached it (read-only, and only on that side, so it
counts against checkpointing).

Usage (root): bench/checkpoint_cost.py [--pairs N] [--size 1024] [--block-size 4K] [--qd 1]
                                       [--every 1s]
"""
import argparse
import os
import shutil
import sqlite3
import tempfile
import threading
import time

from common import abba, build, ds, machine, median, tmpfs_loop

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", type=int, default=9)
ap.add_argument("--size", type=int, default=1024, help="loop device size, MiB (default 1024)")
ap.add_argument("--block-size", default="4K",
                help="scan block size (default 4K: about 262 144 commands a GiB, so that a scan "
                     "of the tmpfs device lasts several checkpoint intervals)")
ap.add_argument("--qd", type=int, default=1)
ap.add_argument("--every", default="1s", help="checkpoint interval of the checkpointed side")
args = ap.parse_args()
build(fio=False)
print(f"# checkpoint cost — {machine()}")


class Watch:
    """Counts the checkpoints of the newest run while a scan runs: each new `ended_at` of a
    run in the checkpoint state."""

    def __init__(self, store):
        self.store, self.seen, self.stop = store, set(), threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.stop.wait(0.2):
            try:
                db = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=0.1)
                for (ended,) in db.execute("SELECT ended_at FROM runs WHERE state = 'checkpoint'"):
                    self.seen.add(ended)
                db.close()
            except sqlite3.Error:
                pass  # not created yet, or busy: the next look sees it

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


store_dir = tempfile.mkdtemp(prefix="drivescope-checkpoint-bench-", dir="/var/tmp")
store = os.path.join(store_dir, "runs.sqlite")
try:
    with tmpfs_loop(args.size << 20) as dev:
        base = ["scan", dev, "--block-size", args.block_size, "--queue-depth", str(args.qd),
                "--store", store]

        def run(every):
            if every == "off":
                d, cpu, _ = ds(base + ["--checkpoint", "off"])
                return d, cpu, 0
            with Watch(store) as w:
                d, cpu, _ = ds(base + ["--checkpoint", every])
            return d, cpu, len(w.seen)

        run("off")  # warm-up: page cache, store creation
        ratios, direct, tot = [], [], {"with": [0, 0], "off": [0, 0]}
        held, cpu, count = [], [], []
        for i in range(args.pairs):
            (dw, _, n), (do, _, _) = abba(i, lambda: run(args.every), lambda: run("off"))
            rw, ro = dw["mb_per_s"]["mean"], do["mb_per_s"]["mean"]
            assert dw["bytes"] == do["bytes"] == args.size << 20 and not dw["interrupted"]
            ratios.append(rw / ro)
            for k, d in (("with", dw), ("off", do)):
                tot[k][0] += d["bytes"]
                tot[k][1] += d["duration_ns"]
            c = dw["checkpoints"]
            direct.append((c["held_ns"] + c["writer_cpu_ns"]) / dw["duration_ns"])
            held.append(c["held_ns"] / max(c["count"], 1))
            cpu.append(c["writer_cpu_ns"] / max(c["count"], 1))
            count.append(c["count"])
            print(f"pair {i}: --checkpoint {args.every} {rw:.1f} MB/s ({dw['duration_ns']/1e9:.2f} s, "
                  f"{c['count']} checkpoints, {n} seen in the store, held {c['held_ns']/1e3:.0f} µs, "
                  f"writer CPU {c['writer_cpu_ns']/1e6:.1f} ms)  off {ro:.1f} MB/s "
                  f"({do['duration_ns']/1e9:.2f} s)  ratio {rw/ro:.4f}")
        pooled = (tot["with"][0] / tot["with"][1]) / (tot["off"][0] / tot["off"][1])
        print(f"{args.size} MiB tmpfs loop, {args.block_size} QD{args.qd}, {args.pairs} pairs: "
              f"rate with / without checkpoints every {args.every}: median of pairs {median(ratios):.4f} "
              f"(slow-down {100 * (1 - median(ratios)):.2f} %), pooled {pooled:.4f} "
              f"(slow-down {100 * (1 - pooled):.2f} %); pairs {min(ratios):.4f}–{max(ratios):.4f}")
        print(f"  within each checkpointed run: (held + writer CPU) / duration, median {100 * median(direct):.3f} %"
              f" (max {100 * max(direct):.3f} %); per checkpoint, median: held {median(held)/1e3:.1f} µs, "
              f"writer CPU {median(cpu)/1e6:.2f} ms; checkpoints per run {min(count)}–{max(count)}")
finally:
    shutil.rmtree(store_dir, ignore_errors=True)
