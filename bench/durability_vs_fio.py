#!/usr/bin/env python3
"""drivescope durability's commit cost against fio --fdatasync=1 on the same device, alternating, median of pairs.

Targets (--targets, comma-separated): `tmpfs` a 256 MiB loop device over a tmpfs file, written raw; `ext4` ext4
over such a device, `xfs` xfs over a 512 MiB one (xfs wants at least ~300 MiB): drivescope's test file and fio's
file in the mount, each new for every run; `zram` a 256 MiB zram device, raw.
drivescope: `durability TARGET` (its 4 KiB write+fdatasync row at one committer: each commit timed from the pwrite
to fdatasync's return). fio: `--rw=write --bs=4k --ioengine=sync --fdatasync=1` buffered, 1000 writes, one
fdatasync after each: its `sync` latency percentiles (the fdatasync call alone) and its write clat, whose p50 sum
is the comparable commit p50. Pairs alternate A B B A.

--kernel adds a third view that is neither tool's: the kernel's time for each commit, from tracefs syscall events
(bench/syscall_trace.py: from entering the write, `pwrite64` for drivescope and `write` for fio, to leaving the
`fdatasync` on the same fd in the same thread). Each pair then runs both tools traced and both untraced (the
tools' ratios come from the untraced runs; traced against untraced tells what tracing costs). drivescope runs
several measurements; its 4 KiB fdatasync cell at one committer is found in the trace as the thread whose 4 KiB
write+fdatasync commits ran alone (no other thread's commit overlapping them), the second such thread in time:
the first is the 16-commit probe drivescope plans from, run before every cell (one committer's cells are threads
of their own; four committers overlap; fsync and O_DSYNC cells have no fdatasync; the 64 KiB and 1 MiB cells'
writes are not 4 KiB). That thread's commit count must equal the row's count, or the script stops. fio's
commits are all its 4 KiB write+fdatasync pairs (999: fio times 999 syncs for 1000 writes).

Usage (root): bench/durability_vs_fio.py [--pairs N] [--budget 4s] [--awake] [--kernel]
                                         [--targets tmpfs,ext4,xfs,zram]
--awake keeps every CPU out of idle (busy loops at SCHED_IDLE) while both tools run, so that a halted vCPU's
wake-up does not weigh on either.
DS_BIN=path/to/drivescope uses that binary instead of the release build.
"""
import argparse
import os
import subprocess
import contextlib
import json
import tempfile
from common import abba, build, fio, machine, median, tmpfs_loop, vcpus_awake, zram
import common
import syscall_trace

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", type=int, default=5)
ap.add_argument("--budget", default="4s")
ap.add_argument("--awake", action="store_true")
ap.add_argument("--kernel", action="store_true", help="also trace each commit's syscalls (tracefs)")
ap.add_argument("--targets", default="tmpfs")
args = ap.parse_args()
if os.environ.get("DS_BIN"):
    common.DS = os.environ["DS_BIN"]
    if subprocess.run(["which", "fio"], capture_output=True).returncode != 0:
        raise SystemExit("fio is not installed")
else:
    build()
print(f"# durability commit cost vs fio --fdatasync=1 — {machine()}; {args.pairs} pairs; {common.DS}"
      f"{'; CPUs kept awake' if args.awake else ''}{'; kernel trace' if args.kernel else ''}")


def kernel_view(cs):
    """(span p50, span p99, write call p50, fdatasync call p50, commits) of the kernel's commits, in ns."""
    pct = syscall_trace.pct
    spans = [c.span for c in cs]
    return (pct(spans, 50), pct(spans, 99), pct([c.write for c in cs], 50), pct([c.sync for c in cs], 50), len(cs))


def ds_commit(dev, trace=None):
    if os.path.isdir(dev):
        gate = []
    else:
        gate = ["--destructive", "--confirm", f"{os.path.basename(dev)} 256.0 MiB"]
    cmd = common.DS_PREFIX + [common.DS, "durability", dev, *gate, "--budget", args.budget, "--no-store",
                              "--json", "--quiet"]
    out, cs = trace.run(cmd) if trace else (common.timed(cmd)[0], None)
    row = next(c for c in json.loads(out)["commits"]
               if c["mode"] == "fdatasync" and c["committers"] == 1 and c["size"] == 4096)
    kernel = None
    if trace:
        runs = syscall_trace.solo_runs(cs)
        if len(runs) < 2 or len(runs[1]) != row["count"]:
            raise SystemExit(f"trace: drivescope's 4 KiB fdatasync cell not found: solo runs of "
                             f"{[len(r) for r in runs]} commits, the row has {row['count']}")
        kernel = kernel_view(runs[1])
    return row["p50_ns"], row["p99_ns"], row["count"], row["flushes"], kernel


def fio_commit(dev, trace=None):
    target = os.path.join(dev, "fio-commit.dat") if os.path.isdir(dev) else dev
    if os.path.isdir(dev):
        # A new file each run, as drivescope's commits go to a test file it makes for each measurement: over a
        # file already written fio's fdatasync on ext4 costs half as much (docs/performance.md).
        with contextlib.suppress(FileNotFoundError):
            os.remove(target)
    fio_args = ["--name=commit", f"--filename={target}", "--rw=write", "--bs=4k", "--ioengine=sync",
                "--fdatasync=1", "--direct=0", "--size=4M", "--number_ios=1000"]
    kernel = None
    if trace:
        out, cs = trace.run(["fio", "--output-format=json+"] + fio_args)
        job = json.loads(out)["jobs"][0]
        kernel = kernel_view(cs)
    else:
        job, _ = fio(fio_args)
    sync = job["sync"]["lat_ns"]["percentile"]
    wr = job["write"]["clat_ns"]["percentile"]
    return (sync["50.000000"], sync["99.000000"], wr["50.000000"], wr["99.000000"],
            job["sync"]["lat_ns"]["N"], kernel)


@contextlib.contextmanager
def mounted(fs, mkfs, size):
    """A new file system of `fs` made by the `mkfs` command over a loop device on a tmpfs file, mounted."""
    with tmpfs_loop(size) as dev:
        subprocess.run([*mkfs, dev], check=True)
        mnt = tempfile.mkdtemp(prefix=f"drivescope-bench-{fs}-")
        subprocess.run(["mount", dev, mnt], check=True)
        try:
            yield mnt
        finally:
            subprocess.run(["umount", mnt])
            os.rmdir(mnt)


PLACES = {
    "tmpfs": lambda: tmpfs_loop(256 << 20),
    "ext4": lambda: mounted("ext4", ["mkfs.ext4", "-q", "-F", "-E", "nodiscard"], 256 << 20),
    "xfs": lambda: mounted("xfs", ["mkfs.xfs", "-q", "-f", "-K"], 512 << 20),
    "zram": lambda: zram(256 << 20),
}


def us(ns):
    return f"{ns / 1e3:.1f} µs"


def pair_line(i, d, f, tag=""):
    line = (f"pair {i + 1}{tag}: drivescope p50 {us(d[0])} p99 {us(d[1])} ({d[2]} commits, {d[3]} fdatasync) | "
            f"fio sync p50 {us(f[0])} p99 {us(f[1])}, write p50 {us(f[2])} p99 {us(f[3])} ({f[4]} syncs)")
    if d[4]:
        line += "\n  kernel: " + " | ".join(
            f"{name} span p50 {us(k[0])} p99 {us(k[1])}, write call p50 {us(k[2])}, fdatasync call p50 {us(k[3])} "
            f"({k[4]} commits)" for name, k in (("drivescope", d[4]), ("fio", f[5])))
    return line


def run_target(target, dev, trace):
    print(f"## {target}: {dev}")
    plain, traced = [], []
    for i in range(args.pairs):
        with vcpus_awake(args.awake):
            runs = [lambda: plain.append(abba(i, lambda: ds_commit(dev), lambda: fio_commit(dev)))]
            if trace:
                runs.append(lambda: traced.append(
                    abba(i, lambda: ds_commit(dev, trace), lambda: fio_commit(dev, trace))))
                if i % 2:
                    runs.reverse()
            for r in runs:
                r()
        print(pair_line(i, *plain[-1]))
        if trace:
            print(pair_line(i, *traced[-1], " traced"))
    p50 = median([d[0] / (f[0] + f[2]) for d, f in plain])
    p99 = median([d[1] / (f[1] + f[3]) for d, f in plain])
    s50 = median([d[0] / f[0] for d, f in plain])
    s99 = median([d[1] / f[1] for d, f in plain])
    print(f"{target}: median ratio drivescope commit / fio (write + sync): p50 {p50:.3f}, p99 {p99:.3f}")
    print(f"{target}: median ratio drivescope commit / fio sync alone:     p50 {s50:.3f}, p99 {s99:.3f}")
    if trace:
        k = lambda fn: median([fn(d, f) for d, f in traced])
        print(f"{target}: kernel span p50 drivescope {us(k(lambda d, f: d[4][0]))}, fio {us(k(lambda d, f: f[5][0]))}; "
              f"p99 drivescope {us(k(lambda d, f: d[4][1]))}, fio {us(k(lambda d, f: f[5][1]))}; write call p50 "
              f"drivescope {us(k(lambda d, f: d[4][2]))}, fio {us(k(lambda d, f: f[5][2]))}; fdatasync call p50 "
              f"drivescope {us(k(lambda d, f: d[4][3]))}, fio {us(k(lambda d, f: f[5][3]))} (medians over pairs)")
        print(f"{target}: median ratio drivescope's own / kernel's span of its commits: "
              f"p50 {k(lambda d, f: d[0] / d[4][0]):.3f}, p99 {k(lambda d, f: d[1] / d[4][1]):.3f}")
        print(f"{target}: median ratio fio (write + sync) / kernel's span of its commits: "
              f"p50 {k(lambda d, f: (f[0] + f[2]) / f[5][0]):.3f}, p99 {k(lambda d, f: (f[1] + f[3]) / f[5][1]):.3f}")
        print(f"{target}: median ratio kernel span drivescope / fio: "
              f"p50 {k(lambda d, f: d[4][0] / f[5][0]):.3f}, p99 {k(lambda d, f: d[4][1] / f[5][1]):.3f}")
        both = list(zip(plain, traced))
        print(f"{target}: tracing's cost, median ratio traced / untraced p50: drivescope "
              f"{median([t[0][0] / p[0][0] for p, t in both]):.3f}, fio write + sync "
              f"{median([(t[1][0] + t[1][2]) / (p[1][0] + p[1][2]) for p, t in both]):.3f}")


with contextlib.ExitStack() as stack:
    trace = stack.enter_context(syscall_trace.Instance()) if args.kernel else None
    for target in args.targets.split(","):
        with PLACES[target]() as dev:
            run_target(target, dev, trace)
            if os.path.isdir(dev):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(dev, "fio-commit.dat"))
