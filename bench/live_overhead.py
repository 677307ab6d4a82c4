#!/usr/bin/env python3
"""What the full-screen live view costs a scan: commands per second with the view against
`--no-live`, on the same pseudo-terminal (both run under `script`, stdout and stderr on its
pty), so only the view differs. Alternating live / no-live each round; the rate is the stored
record's commands over its duration (the scan's own clock, not process start-up), and the CPU
per command of the whole process tree (wait4 on `script`: the scan, the view and the pty's
copying). Prints each round and the median ratios live / no-live. Target: live within 2 % of
no-live.

Targets: `null:64G` at 4 KiB (millions of commands: the instrument alone) and a loop device
over a tmpfs file created here (a real kernel device), removed on every way out; then a bench
of the null target (RND4K Q1T1 and Q32T1 read, 3 runs of 1 s), its IOPS the record's mean.

Usage (root): bench/live_overhead.py [--rounds 11] [--null-size 64G] [--loop-mib 512] [--bs 4KiB]
                                     [--no-bench]
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from contextlib import contextmanager

from common import DS, build, machine, median

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=11)
ap.add_argument("--null-size", default="64G")
ap.add_argument("--loop-mib", type=int, default=512)
ap.add_argument("--bs", default="4KiB")
ap.add_argument("--no-bench", action="store_true")
args = ap.parse_args()
build(fio=False)
print(f"# live view overhead — {machine()}")


def load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


print(f"# before: {load()}")


@contextmanager
def tmpfs_loop(mib):
    path = f"/dev/shm/drivescope-live-bench-{os.getpid()}.img"
    dev = None
    try:
        subprocess.run(["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={mib}",
                        "status=none"], check=True)
        dev = subprocess.run(["losetup", "--find", "--show", path], capture_output=True,
                             text=True, check=True).stdout.strip()
        yield dev
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev])
        if os.path.exists(path):
            os.remove(path)


def rate(target, live, store, test=None):
    """Commands per second of one scan (or, with `test`, one bench test) on a pty, from its
    stored record."""
    if test:
        cmd = [DS, "bench", target, "--test", test, "--rw", "read", "--runs", "3",
               "--duration", "1s", "--store", store]
    else:
        cmd = [DS, "scan", target, "--block-size", args.bs, "--store", store]
    if not live:
        cmd.append("--no-live")
    inner = " ".join(shlex.quote(c) for c in cmd)
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120", LINES="40")
    p = subprocess.Popen(["script", "-qec", inner, "/dev/null"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{inner} failed")
    out = subprocess.run([DS, "show", "last", "--json", "--store", store], capture_output=True,
                         text=True, check=True).stdout
    d = json.loads(out)
    if test:
        # The bench's own CPU per command (its workers' thread time), beside its mean IOPS.
        t = d["tests"][0]
        return t["mean_iops"], t["cpu_ns_per_command"]
    cpu_ns = (ru.ru_utime + ru.ru_stime) * 1e9
    return d["commands"] / (d["duration_ns"] / 1e9), cpu_ns / d["commands"]


def compare(name, target, store, test=None):
    ratios, cpu_ratios = [], []
    for r in range(args.rounds):
        # alternate which goes first, so drift favours neither
        order = (True, False) if r % 2 == 0 else (False, True)
        got = {live: rate(target, live, store, test) for live in order}
        ratio = got[True][0] / got[False][0]
        cpu = got[True][1] / got[False][1]
        ratios.append(ratio)
        cpu_ratios.append(cpu)
        print(f"{name} round {r + 1}: live {got[True][0] / 1e3:.1f} k cmd/s "
              f"({got[True][1]:.0f} ns CPU/cmd), no-live {got[False][0] / 1e3:.1f} k cmd/s "
              f"({got[False][1]:.0f} ns CPU/cmd), live/no-live {ratio:.4f} (CPU {cpu:.4f})")
    m, c = median(ratios), median(cpu_ratios)
    print(f"{name}: median live/no-live commands/s {m:.4f} ({(m - 1) * 100:+.2f} %), "
          f"CPU per command {c:.4f} ({(c - 1) * 100:+.2f} %)")


tmp = tempfile.mkdtemp(prefix="drivescope-live-bench-")
try:
    store = os.path.join(tmp, "runs.db")
    compare(f"null:{args.null_size} bs {args.bs}", f"null:{args.null_size}", store)
    with tmpfs_loop(args.loop_mib) as dev:
        compare(f"tmpfs loop {args.loop_mib} MiB bs {args.bs}", dev, store)
    if not args.no_bench:
        for test in ("RND4K Q1T1", "RND4K Q32T1"):
            compare(f"bench null:1G {test}", "null:1G", store, test)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"# after: {load()}")
