#!/usr/bin/env python3
"""What scanning N drives together costs in CPU per command against N separate scans.

Three ways to read the same N targets, alternating in rotating order each round:
  together   one `drivescope screen T1 … TN` (one process, one worker per drive),
  parallel   N `drivescope scan Ti` processes started at once (the same parallelism),
  serial     N `drivescope scan Ti` one after another.
CPU is the processes' own user + system time (wait4), divided by the commands their documents
count. Prints each round and the median ratio together/parallel and together/serial.
Target: together costs at most 5 % more CPU per command.

Targets: null devices (the instrument alone) and loop devices over tmpfs files (a real kernel
device: the block layer and the copy from memory on every command).

Usage (root): bench/screen_overhead.py [--drives 4] [--rounds 7] [--null-size 4G] [--loop-mib 512]
"""
import argparse
import os
import subprocess
import threading
from contextlib import ExitStack, contextmanager

from common import DS, build, machine, median, timed

ap = argparse.ArgumentParser()
ap.add_argument("--drives", type=int, default=4)
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--null-size", default="4G")
ap.add_argument("--loop-mib", type=int, default=512)
args = ap.parse_args()
build(fio=False)
print(f"# screen overhead — {machine()}")

BASE = ["--json", "--quiet", "--no-store"]


@contextmanager
def tmpfs_loop(i, mib):
    path = f"/dev/shm/drivescope-screen-bench-{os.getpid()}-{i}.img"
    subprocess.run(["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={mib}",
                    "status=none"], check=True)
    dev = subprocess.run(["losetup", "--find", "--show", path], capture_output=True,
                         text=True, check=True).stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev])
        os.remove(path)


def commands_of(out):
    import json
    d = json.loads(out)
    if d["kind"] == "screen":
        return sum(m["scan"]["commands"] for m in d["members"])
    return d["commands"]


def together(targets):
    out, _, cpu, _ = timed([DS, "screen", *targets, "--shared-path", "0", *BASE])
    return cpu, commands_of(out)


def serial(targets):
    cpu = cmds = 0
    for t in targets:
        out, _, c, _ = timed([DS, "scan", t, *BASE])
        cpu += c
        cmds += commands_of(out)
    return cpu, cmds


def parallel(targets):
    res = [None] * len(targets)

    def one(i, t):
        out, _, c, _ = timed([DS, "scan", t, *BASE])
        res[i] = (c, commands_of(out))

    ts = [threading.Thread(target=one, args=(i, t)) for i, t in enumerate(targets)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(r[0] for r in res), sum(r[1] for r in res)


def compare(label, targets):
    ways = {"together": together, "parallel": parallel, "serial": serial}
    names = list(ways)
    together(targets)  # warm-up
    ratios = {"parallel": [], "serial": []}
    print(f"\n## {label}: {len(targets)} drives")
    print("| round | together ns/cmd | parallel ns/cmd | serial ns/cmd |")
    print("|---:|---:|---:|---:|")
    for r in range(args.rounds):
        per = {}
        for k in range(len(names)):
            name = names[(r + k) % len(names)]
            cpu, cmds = ways[name](targets)
            per[name] = cpu * 1e9 / cmds
        for other in ratios:
            ratios[other].append(per["together"] / per[other])
        print(f"| {r + 1} | {per['together']:.0f} | {per['parallel']:.0f} | {per['serial']:.0f} |")
    for other, rs in ratios.items():
        print(f"median together/{other}: {median(rs):.3f} "
              f"(rounds {', '.join(f'{x:.3f}' for x in rs)})")


compare(f"null:{args.null_size}", [f"null:{args.null_size}"] * args.drives)
with ExitStack() as stack:
    loops = [stack.enter_context(tmpfs_loop(i, args.loop_mib)) for i in range(args.drives)]
    compare(f"tmpfs loops of {args.loop_mib} MiB", loops)
