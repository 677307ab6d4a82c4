"""Shared helpers for the side-by-side benchmarks against fio.

Every benchmark runs drivescope and fio on the same device in the same script,
alternating A B A B, and reports median ratios. Run as root (devices are created
and removed here). Nothing is written to any device but the ones created here.
"""
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DS = os.path.join(ROOT, "target", "release", "drivescope")


def build(fio=True):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "drivescope"], cwd=ROOT, check=True)
    if fio and subprocess.run(["which", "fio"], capture_output=True).returncode != 0:
        sys.exit("fio is not installed (apt-get install fio)")


def timed(cmd):
    """Run cmd; return (stdout, wall seconds, its CPU seconds, its peak RSS KiB) via wait4."""
    import threading
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    bufs = {}

    def drain(name, stream):
        bufs[name] = stream.read()

    ts = [threading.Thread(target=drain, args=(n, s)) for n, s in (("out", p.stdout), ("err", p.stderr))]
    for t in ts:
        t.start()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    for t in ts:
        t.join()
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {bufs['err'].decode(errors='replace')}")
    return bufs["out"].decode(), wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


# Prepended to every drivescope command (e.g. ["chrt", "-f", "10"]).
DS_PREFIX = []


def ds(args):
    out, wall, cpu, rss = timed(DS_PREFIX + [DS] + args + ["--json", "--quiet"])
    d = json.loads(out)
    return d, cpu, rss


def fio(args):
    """One fio job; json+ so that its clat histogram comes back too (fio_bins)."""
    out, wall, cpu, rss = timed(["fio", "--output-format=json+"] + args)
    return json.loads(out)["jobs"][0], cpu


def fio_bins(job, rw):
    """fio's clat histogram as {bucket middle ns: count} (json+ output)."""
    return {int(k): v for k, v in job[rw]["clat_ns"].get("bins", {}).items()}


def ds_bins(doc):
    """A drivescope histogram (scan document, or a bench test) as {bucket middle ns: count}."""
    return {(b["low_ns"] + b["high_ns"]) // 2: b["count"] for b in doc["histogram"]["buckets"]}


class Pool:
    """Histograms of one tool, summed over the runs of a comparison: percentiles of the pooled
    samples settle much sooner than the median of per-run percentiles on a noisy machine."""

    def __init__(self):
        self.bins = {}

    def add(self, bins):
        for k, v in bins.items():
            self.bins[k] = self.bins.get(k, 0) + v

    def pct(self, p):
        total = sum(self.bins.values())
        if total == 0:
            return None
        want = total * p / 100.0
        seen = 0
        for k in sorted(self.bins):
            seen += self.bins[k]
            if seen >= want:
                return k
        return max(self.bins)


def pooled_line(pool_ds, pool_fio):
    """'pooled p50 a/b µs (ratio) p99 …' over all pairs of a comparison."""
    parts = []
    for p in (50, 99):
        a, b = pool_ds.pct(p), pool_fio.pct(p)
        if a is None or b is None:
            return "pooled percentiles n/a"
        parts.append(f"p{p} {a/1e3:.1f}/{b/1e3:.1f} µs ({a/b:.3f})")
    return "pooled over all pairs (drivescope/fio): " + ", ".join(parts)


def in_flight(iops, mean_ns):
    """Little's law: commands in flight on average = rate × mean time in flight."""
    return iops * mean_ns / 1e9


def fio_pct(job, rw, p):
    pct = job[rw]["clat_ns"]["percentile"]
    key = min(pct, key=lambda k: abs(float(k) - p))
    return pct[key]


@contextmanager
def tmpfs_loop(size):
    path = f"/dev/shm/drivescope-bench-{os.getpid()}.img"
    with open(path, "wb") as f:
        f.truncate(size)
    # fill with random data so nothing is a hole
    subprocess.run(["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={size >> 20}",
                    "conv=notrunc", "status=none"], check=True)
    dev = subprocess.run(["losetup", "--find", "--show", path], capture_output=True,
                         text=True, check=True).stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev])
        os.remove(path)


@contextmanager
def zram(size):
    idx = open("/sys/class/zram-control/hot_add").read().strip()
    try:
        with open(f"/sys/block/zram{idx}/disksize", "w") as f:
            f.write(str(size))
        dev = f"/dev/zram{idx}"
        subprocess.run(["dd", "if=/dev/urandom", f"of={dev}", "bs=1M", f"count={size >> 20}",
                        "oflag=direct", "status=none"], check=True)
        yield dev
    finally:
        for _ in range(50):  # udev may hold the device open for a moment after a write
            try:
                with open(f"/sys/block/zram{idx}/reset", "w") as f:
                    f.write("1")
                with open("/sys/class/zram-control/hot_remove", "w") as f:
                    f.write(idx)
                break
            except OSError:
                time.sleep(0.1)


def median(xs):
    return statistics.median(xs)


def machine():
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return f"{os.cpu_count()} cores ({cpu}), kernel {os.uname().release}, {time.strftime('%Y-%m-%d')}"


def fio_cpu_per_io(job, rw):
    """fio's own worker CPU (usr + sys over its runtime) per I/O, in ns."""
    runtime_s = job["job_runtime"] / 1e3
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * runtime_s
    ios = job[rw]["total_ios"]
    return cpu_s / ios * 1e9 if ios else 0.0


def abba(i, a, b):
    """Run a and b in the order A B for even pairs and B A for odd ones; return (a(), b())."""
    if i % 2 == 0:
        ra = a()
        rb = b()
    else:
        rb = b()
        ra = a()
    return ra, rb


@contextmanager
def vcpus_awake(on=True):
    """Keep every CPU out of its idle state while a measured run goes on: one busy loop per CPU
    at SCHED_IDLE, which yields to any other task at once.

    On a VM, a CPU with nothing to run halts (an exit to the host), and waking it again costs
    tens to hundreds of microseconds, set by the host's halt-polling state rather than by the
    program being measured. At QD1 on a loop device every command crosses two such wake-ups (the
    loop worker, then the submitter), so that cost dominates and swings with the host. With the
    CPUs kept awake, what remains is each tool's own per-command path. Both tools get the same
    treatment in the same pair."""
    if not on:
        yield
        return
    procs = [subprocess.Popen(["chrt", "--idle", "0", "sh", "-c", "while :; do :; done"])
             for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.05)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()
