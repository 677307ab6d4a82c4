#!/usr/bin/env python3
"""Peak memory of long runs: a soak's duration and a scan's size must not grow what the process
holds. Each case runs a short and a long form of the same run and compares their peak RSS
(`ru_maxrss` of the child, from wait4); the long form must stay within 2x of the short one.

- soak: a 24 h soak at 1 s intervals has 86400 intervals. The same number of intervals on a
  faster clock (`--interval 1ms --duration 86.4s`) holds the same series, so the long form is
  that and the short form 1/24 of it (3600 intervals, one hour at 1 s).
- scan: a `null:` target of 20 TB against one of 20 GB, both at `--points 100000` (the curve's
  most bins), so only the size differs.

Every run saves to a store and prints its --json document, as a user's run would. Peak RSS is
GNU time's (/usr/bin/time, package `time`). Prints each
run and, per case, the median peak RSS of each form and their ratio.

Usage: bench/long_run_memory.py [--rounds 3] [--soak-intervals 86400] [--soak-interval 1ms]
                                [--scan-size 20T] [--scan-small 20G] [--points 100000]
                                [--bs 64KiB] [--only soak|scan] [--binary PATH]
"""
import argparse
import json
import os
import shutil
import tempfile

from common import DS, build, machine, median, timed

ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--soak-intervals", type=int, default=86400)
ap.add_argument("--soak-interval-ms", type=int, default=1)
ap.add_argument("--soak-test", default="RND4K Q1T1")
ap.add_argument("--scan-size", default="20T")
ap.add_argument("--scan-small", default="20G")
ap.add_argument("--points", type=int, default=100000)
ap.add_argument("--bs", default="64KiB")
ap.add_argument("--only", choices=["soak", "scan"])
ap.add_argument("--binary", help="measure this drivescope binary instead of building one")
args = ap.parse_args()
if args.binary:
    DS = args.binary
else:
    build(fio=False)
print(f"# long-run memory — {machine()}")


def run(cmd):
    """Peak RSS (KiB) of one run, its document and its wall time. The peak is GNU time's (the
    `ru_maxrss` of a child it starts itself): Linux carries a process's peak across exec, so a
    child forked from this script would count the script's own memory (the documents it has
    parsed) as the run's. Each run saves into a store of its own."""
    rss_file = os.path.join(tmp, "maxrss")
    store = os.path.join(tmp, "runs.db")
    for f in (store, store + "-wal", store + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    out, wall, _cpu, _ = timed(["/usr/bin/time", "-f", "%M", "-o", rss_file, DS] + cmd +
                               ["--store", store, "--json", "--quiet"])
    rss = int(open(rss_file).read().split()[-1])
    return rss, json.loads(out), wall


def soak(intervals):
    dur_ms = intervals * args.soak_interval_ms
    rss, d, wall = run(["soak", "null:1G", "--test", args.soak_test,
                        "--interval", f"{args.soak_interval_ms}ms",
                        "--duration", f"{dur_ms}ms"])
    return rss, f"{len(d['series'])} points of {d['interval_ns'] / 1e6:g} ms, " \
                f"{d['commands']} commands, {wall:.1f} s"


def scan(size):
    rss, d, wall = run(["scan", f"null:{size}", "--points", str(args.points), "--block-size",
                        args.bs])
    return rss, f"{len(d['curve'])} curve points, {len(d['series'])} series points, " \
                f"{d['commands']} commands, {wall:.1f} s"


def compare(name, short, long):
    got = {"short": [], "long": []}
    for r in range(args.rounds):
        # alternate which goes first, so drift favours neither
        order = ("short", "long") if r % 2 == 0 else ("long", "short")
        for form in order:
            rss, what = (short if form == "short" else long)()
            got[form].append(rss)
            print(f"{name} round {r + 1} {form}: peak RSS {rss / 1024:.1f} MiB ({what})")
    s, lg = median(got["short"]), median(got["long"])
    ratio = lg / s
    verdict = "flat" if ratio <= 2.0 else "GROWS"
    print(f"{name}: median peak RSS short {s / 1024:.1f} MiB, long {lg / 1024:.1f} MiB, "
          f"long/short {ratio:.2f} ({verdict}, limit 2.00)")
    return ratio


tmp = tempfile.mkdtemp(prefix="drivescope-longmem-bench-")
ratios = {}
try:
    if args.only in (None, "soak"):
        n = args.soak_intervals
        ratios["soak"] = compare(f"soak {args.soak_test} null:1G, {n // 24} vs {n} intervals",
                                 lambda: soak(n // 24), lambda: soak(n))
    if args.only in (None, "scan"):
        ratios["scan"] = compare(
            f"scan --points {args.points} --block-size {args.bs}, "
            f"null:{args.scan_small} vs null:{args.scan_size}",
            lambda: scan(args.scan_small), lambda: scan(args.scan_size))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
if any(r > 2.0 for r in ratios.values()):
    raise SystemExit("peak memory grew more than 2x with duration or size")
