#!/usr/bin/env python3
"""drivescope durability's commit cost against fio --fdatasync=1 on the same device, alternating, median of pairs.

Targets (--targets, comma-separated): `tmpfs` a 256 MiB loop device over a tmpfs file, written raw; `ext4` ext4
over such a device, `xfs` xfs over a 512 MiB one (xfs wants at least ~300 MiB): drivescope's test file and fio's
file in the mount; `zram` a 256 MiB zram device, raw.
drivescope: `durability TARGET`, its 4 KiB write+fdatasync rows at one committer (each commit timed from the
pwrite to fdatasync's return). fio: `--rw=write --bs=4k --ioengine=sync --fdatasync=1` buffered, 1000 writes, one
fdatasync after each: its `sync` latency percentiles (the fdatasync call alone) and its write clat, whose p50 sum
is the comparable commit p50. Pairs alternate A B B A. Both tools write incompressible data new at every commit:
drivescope a SplitMix64 stream stamped per commit, fio fresh random buffers (`--refill_buffers`). zram and
compressing storage cost a commit by its data: fio's default (one random buffer, a few bytes scrambled per write)
cost zram's fdatasync 12-14 us where fresh random data cost 4-5 us.

In a directory drivescope measures its 4 KiB commits in two file states, each against fio in the same state
(--fallocate and --invalidate=0 set, so that only the file state differs from a plain fio run; the page cache
holds the pre-written blocks in both tools):
  new      drivescope's `"into": "new"` row: a new test file sized with set_len (sparse; each commit fills a
           hole), against fio on a new file it sizes with `--fallocate=truncate` (ftruncate: sparse as well),
           the file deleted before each fio run;
  written  drivescope's `"into": "written"` row: its test file written in full and fsynced first, the commits
           overwriting (a recycled log), against fio with `--fallocate=none` on a file this script wrote in full
           (os.pwrite of random bytes) and fsynced just before. Every such run checks that fio left the file as
           it found it: the same size, allocated blocks and extents (`filefrag -v`), so that fio neither
           truncated nor laid it out again.
On a raw device drivescope has a single row (no `into`); fio runs as in the new state, without --fallocate and
--invalidate=0. Both tools pre-write in 1 MiB writes: on ext4 the size of the writes that filled the cached pages
sets what an overwriting commit costs (docs/performance.md).

--kernel adds a third view that is neither tool's: the kernel's time for each commit, from tracefs syscall events
(bench/syscall_trace.py: from entering the write, `pwrite64` for drivescope and `write` for fio, to leaving the
`fdatasync` on the same fd in the same thread). Each pair then runs both tools traced and both untraced (the
tools' ratios come from the untraced runs; traced against untraced tells what tracing costs). drivescope runs
several measurements; its 4 KiB fdatasync cells at one committer are found by order among the threads whose 4 KiB
write+fdatasync commits ran alone (no other thread's commit overlapping them). drivescope runs its 16-commit
probe first, then its cells in a fixed order: every 'new' 4 KiB cell (fdatasync, fsync, O_DSYNC, each at 1 and
4 committers), then the 4 KiB 'written' cells in the same order, then the larger sizes. One committer's cells
are threads of their own; four committers overlap; fsync and O_DSYNC cells have no fdatasync; the larger cells'
writes are not 4 KiB; its pre-writing is 1 MiB writes and an fsync. So the lone runs are the probe, the new
cell, then (in a directory) the written cell; each one's commit count must equal its row's, or the script stops.
fio's commits are all its 4 KiB write+fdatasync pairs (999: fio times 999 syncs for 1000 writes).

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


def states(dev):
    """The file states measured on `dev`: both in a directory, the single raw one on a device."""
    return ["new", "written"] if os.path.isdir(dev) else ["raw"]


def ds_commit(dev, trace=None):
    """{state: (p50, p99, commits, fdatasyncs, kernel view or None)} of drivescope's 4 KiB fdatasync rows at one
    committer."""
    if os.path.isdir(dev):
        gate = []
    else:
        gate = ["--destructive", "--confirm", f"{os.path.basename(dev)} 256.0 MiB"]
    cmd = common.DS_PREFIX + [common.DS, "durability", dev, *gate, "--budget", args.budget, "--no-store",
                              "--json", "--quiet"]
    out, cs = trace.run(cmd) if trace else (common.timed(cmd)[0], None)
    rows = {}
    for state in states(dev):
        into = None if state == "raw" else state
        rows[state] = next(c for c in json.loads(out)["commits"] if c["mode"] == "fdatasync"
                           and c["committers"] == 1 and c["size"] == 4096 and c.get("into") == into)
    kernel = {state: None for state in rows}
    if trace:
        # The lone runs in time order: the probe, the new cell, then (in a directory) the written cell.
        runs = syscall_trace.solo_runs(cs)[1:]
        got = [len(r) for r in runs]
        for i, (state, row) in enumerate(rows.items()):
            if i >= len(runs) or len(runs[i]) != row["count"]:
                raise SystemExit(f"trace: drivescope's 4 KiB fdatasync cell into {state} not found: lone runs "
                                 f"after the probe of {got} commits, the rows have "
                                 f"{[r['count'] for r in rows.values()]}")
            kernel[state] = kernel_view(runs[i])
    return {state: (row["p50_ns"], row["p99_ns"], row["count"], row["flushes"], kernel[state])
            for state, row in rows.items()}


def layout(path):
    """What fio must leave alone in a file written in full: its size, allocated blocks and extents."""
    st = os.stat(path)
    ext = subprocess.run(["filefrag", "-v", path], capture_output=True, text=True, check=True).stdout
    return st.st_size, st.st_blocks, [l for l in ext.splitlines() if ":" in l and l.split(":")[0].strip().isdigit()]


def prewrite(path, size):
    """`path` written in full with random bytes (1 MiB writes) and fsynced, as drivescope's written test file."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for off in range(0, size, 1 << 20):
            os.pwrite(fd, os.urandom(min(1 << 20, size - off)), off)
        os.fsync(fd)
    finally:
        os.close(fd)


FIO_SIZE = 4 << 20


def fio_commit(dev, state, trace=None):
    """fio's (sync p50, sync p99, write p50, write p99, syncs, kernel view or None) in `state`."""
    target = os.path.join(dev, "fio-commit.dat") if os.path.isdir(dev) else dev
    fio_args = ["--name=commit", f"--filename={target}", "--rw=write", "--bs=4k", "--ioengine=sync",
                "--fdatasync=1", "--direct=0", f"--size={FIO_SIZE}", "--number_ios=1000", "--refill_buffers"]
    before = None
    if state == "new":
        # A new sparse file each run, as drivescope's test file for its new cell.
        with contextlib.suppress(FileNotFoundError):
            os.remove(target)
        fio_args += ["--fallocate=truncate", "--invalidate=0"]
    elif state == "written":
        prewrite(target, FIO_SIZE)
        before = layout(target)
        fio_args += ["--fallocate=none", "--invalidate=0"]
    kernel = None
    if trace:
        out, cs = trace.run(["fio", "--output-format=json+"] + fio_args)
        job = json.loads(out)["jobs"][0]
        kernel = kernel_view(cs)
    else:
        job, _ = fio(fio_args)
    if before is not None and layout(target) != before:
        raise SystemExit(f"fio changed the written file's layout: {before} became {layout(target)}")
    sync = job["sync"]["lat_ns"]["percentile"]
    wr = job["write"]["clat_ns"]["percentile"]
    return (sync["50.000000"], sync["99.000000"], wr["50.000000"], wr["99.000000"],
            job["sync"]["lat_ns"]["N"], kernel)


def fio_states(dev, i, trace=None):
    """fio in every state of `dev`, in turn (reversed on odd pairs)."""
    order = states(dev) if i % 2 == 0 else states(dev)[::-1]
    return {state: fio_commit(dev, state, trace) for state in order}


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


def summary(name, plain, traced):
    """The ratio lines of one target's state over its pairs of (drivescope, fio) results."""
    p50 = median([d[0] / (f[0] + f[2]) for d, f in plain])
    p99 = median([d[1] / (f[1] + f[3]) for d, f in plain])
    s50 = median([d[0] / f[0] for d, f in plain])
    s99 = median([d[1] / f[1] for d, f in plain])
    print(f"{name}: median ratio drivescope commit / fio (write + sync): p50 {p50:.3f}, p99 {p99:.3f}")
    print(f"{name}: median ratio drivescope commit / fio sync alone:     p50 {s50:.3f}, p99 {s99:.3f}")
    if traced:
        k = lambda fn: median([fn(d, f) for d, f in traced])
        print(f"{name}: kernel span p50 drivescope {us(k(lambda d, f: d[4][0]))}, fio {us(k(lambda d, f: f[5][0]))}; "
              f"p99 drivescope {us(k(lambda d, f: d[4][1]))}, fio {us(k(lambda d, f: f[5][1]))}; write call p50 "
              f"drivescope {us(k(lambda d, f: d[4][2]))}, fio {us(k(lambda d, f: f[5][2]))}; fdatasync call p50 "
              f"drivescope {us(k(lambda d, f: d[4][3]))}, fio {us(k(lambda d, f: f[5][3]))} (medians over pairs)")
        print(f"{name}: median ratio drivescope's own / kernel's span of its commits: "
              f"p50 {k(lambda d, f: d[0] / d[4][0]):.3f}, p99 {k(lambda d, f: d[1] / d[4][1]):.3f}")
        print(f"{name}: median ratio fio (write + sync) / kernel's span of its commits: "
              f"p50 {k(lambda d, f: (f[0] + f[2]) / f[5][0]):.3f}, p99 {k(lambda d, f: (f[1] + f[3]) / f[5][1]):.3f}")
        print(f"{name}: median ratio kernel span drivescope / fio: "
              f"p50 {k(lambda d, f: d[4][0] / f[5][0]):.3f}, p99 {k(lambda d, f: d[4][1] / f[5][1]):.3f}")
        both = list(zip(plain, traced))
        print(f"{name}: tracing's cost, median ratio traced / untraced p50: drivescope "
              f"{median([t[0][0] / p[0][0] for p, t in both]):.3f}, fio write + sync "
              f"{median([(t[1][0] + t[1][2]) / (p[1][0] + p[1][2]) for p, t in both]):.3f}")


def run_target(target, dev, trace):
    print(f"## {target}: {dev}")
    plain, traced = [], []
    for i in range(args.pairs):
        with vcpus_awake(args.awake):
            runs = [lambda: plain.append(abba(i, lambda: ds_commit(dev), lambda: fio_states(dev, i)))]
            if trace:
                runs.append(lambda: traced.append(
                    abba(i, lambda: ds_commit(dev, trace), lambda: fio_states(dev, i, trace))))
                if i % 2:
                    runs.reverse()
            for r in runs:
                r()
        for state in states(dev):
            tag = "" if state == "raw" else f" into {state}"
            print(pair_line(i, plain[-1][0][state], plain[-1][1][state], tag))
            if trace:
                print(pair_line(i, traced[-1][0][state], traced[-1][1][state], tag + " traced"))
    for state in states(dev):
        name = target if state == "raw" else f"{target} into {state}"
        summary(name, [(d[state], f[state]) for d, f in plain], [(d[state], f[state]) for d, f in traced])


with contextlib.ExitStack() as stack:
    trace = stack.enter_context(syscall_trace.Instance()) if args.kernel else None
    for target in args.targets.split(","):
        with PLACES[target]() as dev:
            run_target(target, dev, trace)
            if os.path.isdir(dev):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(dev, "fio-commit.dat"))
