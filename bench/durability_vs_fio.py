#!/usr/bin/env python3
"""drivescope durability's commit cost against fio --fdatasync=1 on the same device, alternating, median of pairs.

Targets (--targets, comma-separated): `tmpfs` a 256 MiB loop device over a tmpfs file, written raw; `ext4` ext4
over such a device (drivescope's test file and fio's file in its directory, each new for every run); `zram` a 256 MiB zram device, raw.
drivescope: `durability TARGET` (its 4 KiB write+fdatasync row at one committer: each commit timed from the pwrite
to fdatasync's return). fio: `--rw=write --bs=4k --ioengine=sync --fdatasync=1` buffered, 1000 writes, one
fdatasync after each: its `sync` latency percentiles (the fdatasync call alone) and its write clat, whose p50 sum
is the comparable commit p50. Pairs alternate A B B A.

Usage (root): bench/durability_vs_fio.py [--pairs N] [--budget 4s] [--awake] [--targets tmpfs,ext4,zram]
--awake keeps every CPU out of idle (busy loops at SCHED_IDLE) while both tools run, so that a halted vCPU's
wake-up does not weigh on either.
DS_BIN=path/to/drivescope uses that binary instead of the release build.
"""
import argparse
import os
import subprocess
import contextlib
import tempfile
from common import abba, build, fio, machine, median, tmpfs_loop, vcpus_awake, zram
import common

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", type=int, default=5)
ap.add_argument("--budget", default="4s")
ap.add_argument("--awake", action="store_true")
ap.add_argument("--targets", default="tmpfs")
args = ap.parse_args()
if os.environ.get("DS_BIN"):
    common.DS = os.environ["DS_BIN"]
    if subprocess.run(["which", "fio"], capture_output=True).returncode != 0:
        raise SystemExit("fio is not installed")
else:
    build()
print(f"# durability commit cost vs fio --fdatasync=1 — {machine()}; {args.pairs} pairs; {common.DS}"
      f"{'; CPUs kept awake' if args.awake else ''}")


def ds_commit(dev):
    if os.path.isdir(dev):
        gate = []
    else:
        gate = ["--destructive", "--confirm", f"{os.path.basename(dev)} 256.0 MiB"]
    d, _, _ = common.ds(["durability", dev, *gate, "--budget", args.budget, "--no-store"])
    row = next(c for c in d["commits"]
               if c["mode"] == "fdatasync" and c["committers"] == 1 and c["size"] == 4096)
    return row["p50_ns"], row["p99_ns"], row["count"], row["flushes"]


def fio_commit(dev):
    target = os.path.join(dev, "fio-commit.dat") if os.path.isdir(dev) else dev
    if os.path.isdir(dev):
        # A new file each run, as drivescope's commits go to a test file it makes for each measurement: over a
        # file already written fio's fdatasync on ext4 costs half as much (docs/performance.md).
        with contextlib.suppress(FileNotFoundError):
            os.remove(target)
    job, _ = fio(["--name=commit", f"--filename={target}", "--rw=write", "--bs=4k", "--ioengine=sync",
                  "--fdatasync=1", "--direct=0", "--size=4M", "--number_ios=1000"])
    sync = job["sync"]["lat_ns"]["percentile"]
    wr = job["write"]["clat_ns"]["percentile"]
    return (sync["50.000000"], sync["99.000000"], wr["50.000000"], wr["99.000000"],
            job["sync"]["lat_ns"]["N"])


@contextlib.contextmanager
def ext4():
    with tmpfs_loop(256 << 20) as dev:
        subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", dev], check=True)
        mnt = tempfile.mkdtemp(prefix="drivescope-bench-ext4-")
        subprocess.run(["mount", dev, mnt], check=True)
        try:
            yield mnt
        finally:
            subprocess.run(["umount", mnt])
            os.rmdir(mnt)


PLACES = {"tmpfs": lambda: tmpfs_loop(256 << 20), "ext4": ext4, "zram": lambda: zram(256 << 20)}

for target in args.targets.split(","):
  with PLACES[target]() as dev:
    print(f"## {target}: {dev}")
    rows = []
    for i in range(args.pairs):
        with vcpus_awake(args.awake):
            d, f = abba(i, lambda: ds_commit(dev), lambda: fio_commit(dev))
        rows.append((d, f))
        print(f"pair {i + 1}: drivescope p50 {d[0] / 1e3:.1f} µs p99 {d[1] / 1e3:.1f} µs "
              f"({d[2]} commits, {d[3]} fdatasync) | fio sync p50 {f[0] / 1e3:.1f} µs p99 {f[1] / 1e3:.1f} µs, "
              f"write p50 {f[2] / 1e3:.1f} µs p99 {f[3] / 1e3:.1f} µs ({f[4]} syncs)")
    p50 = median([d[0] / (f[0] + f[2]) for d, f in rows])
    p99 = median([d[1] / (f[1] + f[3]) for d, f in rows])
    s50 = median([d[0] / f[0] for d, f in rows])
    s99 = median([d[1] / f[1] for d, f in rows])
    print(f"{target}: median ratio drivescope commit / fio (write + sync): p50 {p50:.3f}, p99 {p99:.3f}")
    print(f"{target}: median ratio drivescope commit / fio sync alone:     p50 {s50:.3f}, p99 {s99:.3f}")
    if os.path.isdir(dev):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(dev, "fio-commit.dat"))
