#!/usr/bin/env python3
"""How faithfully `replay` reproduces a traced workload's I/O time, per queue depth and device.

Each round traces fio's 4 KiB random reads of a file (ext4 on the device, O_DIRECT) with
`drivescope time --cold --runs 1 --keep-trace`, then replays that trace on the same device with
`drivescope replay` (reads only), which traces its own block requests the same way. The ratio is
the replay's kernel-traced I/O time (time with at least one request in flight) over the trace's;
a round's trace and its replay run back to back, so a load that drifts over the run touches both.
Prints each round and, per device and depth, the median ratio over the rounds (and the replay's
own view of it, "seen", which adds its system calls and wake-ups).

Devices: a lab disk (default ssd-slc: 60 µs command overhead, 32 commands overlap) served
through FUSE and attached to a loop device, and a loop device over a tmpfs file. Depth 1 runs
fio's psync engine (the replay uses pread), deeper ones libaio (the replay uses io_uring).

The traced run (drivescope time and fio under it), the replay and the lab disk's server run under
`chrt -f 10` (SCHED_FIFO) unless --no-rt, so that other programs on a small, busy machine stall them
less; both sides of a ratio get the same treatment.

With --baseline OTHER_BINARY each round's trace is also replayed by that binary, the two replays in
alternating order (A B, then B A), and its median ratios are printed beside: a change to the replay
measured against the one before it on the same traces and the same load.

Usage (root): bench/replay_fidelity.py [--rounds 5] [--depths 1,8,32] [--devices ssd-slc,tmpfs]
                                       [--ios 4000] [--bin target/release/drivescope] [--no-rt]
                                       [--baseline path/to/other/drivescope]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time
from contextlib import contextmanager

import common
from common import abba, machine, median, tmpfs_loop

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--depths", default="1,8,32")
ap.add_argument("--devices", default="ssd-slc,tmpfs",
                help="lab presets and/or 'tmpfs' (a loop device over a tmpfs file)")
ap.add_argument("--ios", type=int, default=4000, help="fio reads per traced run")
ap.add_argument("--file-mib", type=int, default=128, help="size of fio's file on the device")
ap.add_argument("--bin", help="drivescope binary to use (default: build target/release/drivescope)")
ap.add_argument("--baseline", help="another drivescope binary whose replays are compared")
ap.add_argument("--no-rt", action="store_true", help="run everything at the normal policy")
args = ap.parse_args()
RT = [] if args.no_rt else ["chrt", "-f", "10"]
if os.geteuid() != 0:
    raise SystemExit("needs root (loop devices, FUSE, tracefs)")
if args.bin:
    common.DS = os.path.abspath(args.bin)
else:
    common.build()
DS = common.DS


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


@contextmanager
def lab_disk(preset):
    """A lab disk served by `drivescope lab serve --loop`, its loop device; stopped after."""
    mnt = tempfile.mkdtemp(prefix="drivescope-replay-lab-")
    p = subprocess.Popen(RT + [DS, "lab", "serve", preset, "--mount", mnt, "--loop", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = p.stdout.readline()
        if not line:
            raise SystemExit(f"lab serve {preset} did not start")
        yield json.loads(line)["loop_device"]
    finally:
        p.send_signal(2)
        p.wait()
        os.rmdir(mnt)


@contextmanager
def ext4_on(dev):
    """ext4 on `dev`, mounted, with fio's file laid out (written whole) before anything is traced."""
    run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0", dev])
    mnt = tempfile.mkdtemp(prefix="drivescope-replay-fs-")
    run(["mount", "-o", "noatime", dev, mnt])
    try:
        run(["fio", "--name=layout", "--filename=data", "--rw=write", "--bs=1M", "--direct=1",
             f"--size={args.file_mib}M", "--output=/dev/null"], cwd=mnt)
        run(["sync"])
        yield mnt
    finally:
        run(["umount", mnt])
        os.rmdir(mnt)


def fio_cmd(depth):
    engine = ["--ioengine=psync"] if depth == 1 else ["--ioengine=libaio", f"--iodepth={depth}"]
    return ["fio", "--name=w", "--filename=data", "--rw=randread", "--bs=4k", "--direct=1",
            f"--size={args.file_mib}M", f"--number_ios={args.ios}", "--output=/dev/null"] + engine


def replay(binary, trace, dev):
    """Replayed (kernel-traced) and seen I/O time of `trace` on `dev`, and the trace's."""
    d = json.loads(run(RT + [binary, "replay", trace, dev, "--json", "--quiet"]))
    if d["replayed"]["requests"] != d["original"]["requests"] or d.get("kernel") is None:
        raise SystemExit(f"replay of {trace} issued {d['replayed']['requests']} of "
                         f"{d['original']['requests']} requests, kernel view {d.get('kernel')}")
    o = d["original"]["io_ns"]
    return d["original"]["requests"], o, d["kernel"]["io_ns"] / o, d["replayed"]["io_ns"] / o


def round_(i, dev, mnt, depth, trace):
    """One traced run and its replay (and the baseline's): (requests, traced ns, [(kernel, seen)])."""
    run(RT + [DS, "time", "--cold", "--runs", "1", "--keep-trace", trace, "--cwd", mnt, "--no-store",
              "--quiet", "--json", "--"] + fio_cmd(depth))
    if not args.baseline:
        n, io, k, s = replay(DS, trace, dev)
        return n, io, [(k, s)]
    a, b = abba(i, lambda: replay(DS, trace, dev), lambda: replay(args.baseline, trace, dev))
    return a[0], a[1], [a[2:], b[2:]]


print(f"# replay fidelity — {machine()}")
print(f"# {args.rounds} rounds per device and depth; fio randread 4K, {args.ios} reads; "
      f"ratio = replayed (kernel) / traced I/O time; {' '.join(RT) or 'normal policy'}")
depths = [int(x) for x in args.depths.split(",")]
sides = ["replay"] + (["baseline"] if args.baseline else [])
results = []
trace = os.path.join(tempfile.gettempdir(), f"drivescope-replay-fidelity-{os.getpid()}.trace")
try:
    for device in args.devices.split(","):
        ctx = tmpfs_loop(256 << 20) if device == "tmpfs" else lab_disk(device)
        with ctx as dev, ext4_on(dev) as mnt:
            for depth in depths:
                ios, per = [], [([], []) for _ in sides]
                for i in range(args.rounds):
                    n, io, got = round_(i, dev, mnt, depth, trace)
                    ios.append(io)
                    line = f"{device} QD{depth} round {i + 1}: {n} requests, traced {io / 1e6:.1f} ms"
                    for side, (k, s), acc in zip(sides, got, per):
                        acc[0].append(k)
                        acc[1].append(s)
                        line += f"; {side} x{k:.3f} (kernel) x{s:.3f} (seen)"
                    print(line, flush=True)
                for side, (ks, ss) in zip(sides, per):
                    # the baseline's row: the median of each round's replay / baseline, same trace
                    paired = (median([a / b for a, b in zip(per[0][0], ks)])
                              if side == "baseline" else None)
                    results.append((device, depth, side, median(ios), median(ks), min(ks), max(ks),
                                    median(ss), paired))
                time.sleep(0.2)
finally:
    if os.path.exists(trace):
        os.remove(trace)

print()
print("| device | depth | binary | traced I/O (median) | replayed / traced, median | min–max | seen / traced "
      "| replay / baseline, paired median |")
print("|---|---:|---|---:|---:|---:|---:|---:|")
for device, depth, side, io, k, lo, hi, s, paired in results:
    pair = f"{paired:.3f}" if paired else ""
    print(f"| {device} | {depth} | {side} | {io / 1e6:.1f} ms | {k:.3f} | {lo:.3f}–{hi:.3f} | {s:.3f} | {pair} |")
