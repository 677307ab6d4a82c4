#!/usr/bin/env python3
"""drivescope bench against fio on the same devices, alternating, median of pairs.

1. zram, RND4K read QD32 T1: IOPS vs fio io_uring --fixedbufs --registerfiles (target >= 1.10); then the same with
   drivescope --reap sleep (waiting for completions as fio does), the like-for-like latency comparison.
2. zram, RND4K read QD1: IOPS (engine auto) vs the faster of fio psync and fio io_uring (target >= 1.0).
3. 2 GiB tmpfs loop device, SEQ1M read Q8T1: MB/s vs fio io_uring (target >= 0.98).
4. null target, RND4K Q32T1: IOPS vs fio --ioengine=null --iodepth=32 (target >= 1.0).
p50 and p99 ratios against fio's clat percentiles (median of the pairs' ratios, and the percentiles of all pairs'
histograms pooled), commands in flight by Little's law (IOPS x mean completion latency) for both tools, and CPU time
per command for both, beside each.

Usage (root): bench/bench_vs_fio.py [--pairs N] [--seconds S]
"""
import argparse
from common import (abba, build, ds, ds_bins, fio, fio_bins, fio_pct, fio_cpu_per_io, in_flight, tmpfs_loop, zram,
                    median, machine, pooled_line, Pool)

ap = argparse.ArgumentParser()
ap.add_argument("--pairs", type=int, default=3)
ap.add_argument("--seconds", type=int, default=5)
args = ap.parse_args()
S = args.seconds
build()
print(f"# bench vs fio — {machine()}; {args.pairs} pairs of {S} s runs")


def ds_test(target, test, extra=()):
    d, cpu, _ = ds(["bench", target, "--rw", "read", "--test", test, "--runs", "1",
                    "--duration", f"{S}s", "--size", "1G", "--no-store", *extra])
    t = d["tests"][0]
    r = t["runs"][0]
    return t, r, cpu


def fio_job(target, rw, bs, qd, engine, extra=()):
    job, cpu = fio([f"--name={engine}", f"--filename={target}", f"--rw={rw}", f"--bs={bs}",
                    f"--iodepth={qd}", f"--ioengine={engine}", "--direct=1", "--time_based",
                    f"--runtime={S}", "--size=1G", *extra])
    return job, cpu


def compare(label, pairs, metric, target, pools=None, flights=None):
    r = [p[0] for p in pairs]
    p50 = [p[1] for p in pairs]
    p99 = [p[2] for p in pairs]
    cds = [p[3] for p in pairs]
    cf = [p[4] for p in pairs]
    ok = "meets" if median(r) >= target else "MISSES"
    pct = (f"p50 ratio {median(p50):.3f}; p99 ratio {median(p99):.3f}" if p50[0] is not None
           else "percentiles n/a (the null target completes at once)")
    print(f"{label}: median {metric} ratio {median(r):.3f} (target {target}: {ok}); {pct}; "
          f"CPU/command (worker threads) drivescope {median(cds):.0f} ns, fio {median(cf):.0f} ns")
    if pools:
        print(f"  {pooled_line(*pools)}")
    if flights:
        print(f"  in flight (IOPS × mean clat): drivescope {median([f[0] for f in flights]):.2f}, "
              f"fio {median([f[1] for f in flights]):.2f}")


def track(pools, flights, t, r, job):
    """Pool both tools' histograms and note each one's commands in flight (Little's law)."""
    pools[0].add(ds_bins(t))
    pools[1].add(fio_bins(job, "read"))
    flights.append((in_flight(r["iops"], t["latency"]["mean_ns"]),
                    in_flight(job["read"]["iops"], job["read"]["clat_ns"]["mean"])))


def pair_line(label, i, a, b, unit):
    print(f"  {label} pair {i}: drivescope {a:,.0f} {unit}  fio {b:,.0f} {unit}  ratio {a/b:.3f}")


with zram(1 << 30) as dev:
    # 1. QD32: drivescope as it runs by default (auto: polls for completions here), then waiting as fio does
    for reap in ("auto", "sleep"):
        pairs, pools, flights = [], (Pool(), Pool()), []
        for i in range(args.pairs):
            (t, r, cpu), (job, fcpu) = abba(i, lambda: ds_test(dev, "RND4K Q32T1", ["--reap", reap]),
                                            lambda: fio_job(dev, "randread", "4k", 32, "io_uring",
                                                            ["--fixedbufs", "--registerfiles"]))
            fi = job["read"]["iops"]
            pair_line(f"zram RND4K Q32T1 (reap {t['reap']})", i, r["iops"], fi, "IOPS")
            pairs.append((r["iops"] / fi, r["p50_ns"] / fio_pct(job, "read", 50),
                          r["p99_ns"] / fio_pct(job, "read", 99), t["cpu_ns_per_command"], fio_cpu_per_io(job, "read")))
            track(pools, flights, t, r, job)
        compare(f"zram RND4K read Q32T1 (drivescope --reap {reap}) vs fio io_uring fixedbufs+registerfiles",
                pairs, "IOPS", 1.10 if reap == "auto" else 1.0, pools, flights)
    # 2. QD1
    pairs, pools, flights = [], (Pool(), Pool()), []
    for i in range(args.pairs):
        (t, r, cpu), ((jp, cp), (ju, cu)) = abba(
            i, lambda: ds_test(dev, "RND4K Q1T1"),
            lambda: (fio_job(dev, "randread", "4k", 1, "psync"),
                     fio_job(dev, "randread", "4k", 1, "io_uring", ["--fixedbufs", "--registerfiles"])))
        job, fcpu = (jp, cp) if jp["read"]["iops"] >= ju["read"]["iops"] else (ju, cu)
        fi = job["read"]["iops"]
        print(f"  zram RND4K Q1T1 pair {i}: drivescope ({t['engine']}) {r['iops']:,.0f} IOPS  fio psync "
              f"{jp['read']['iops']:,.0f}  fio io_uring {ju['read']['iops']:,.0f}  ratio {r['iops']/fi:.3f}")
        pairs.append((r["iops"] / fi, r["p50_ns"] / fio_pct(job, "read", 50), r["p99_ns"] / fio_pct(job, "read", 99),
                      t["cpu_ns_per_command"], fio_cpu_per_io(job, "read")))
        track(pools, flights, t, r, job)
    compare("zram RND4K read Q1T1 vs the faster fio engine", pairs, "IOPS", 1.0, pools, flights)

with tmpfs_loop(2 << 30) as dev:
    pairs, pools, flights = [], (Pool(), Pool()), []
    for i in range(args.pairs):
        (t, r, cpu), (job, fcpu) = abba(i, lambda: ds_test(dev, "SEQ1M Q8T1"),
                                        lambda: fio_job(dev, "read", "1m", 8, "io_uring"))
        fb = job["read"]["bw_bytes"] / 1e6
        pair_line("tmpfs loop SEQ1M Q8T1", i, r["mb_per_s"], fb, "MB/s")
        pairs.append((r["mb_per_s"] / fb, r["p50_ns"] / fio_pct(job, "read", 50), r["p99_ns"] / fio_pct(job, "read", 99),
                      t["cpu_ns_per_command"], fio_cpu_per_io(job, "read")))
        track(pools, flights, t, r, job)
    compare("2 GiB tmpfs loop SEQ1M read Q8T1 vs fio io_uring", pairs, "MB/s", 0.98, pools, flights)

pairs = []
for i in range(args.pairs):
    (t, r, cpu), (job, fcpu) = abba(
        i, lambda: ds_test("null:1G", "RND4K Q32T1"),
        lambda: fio(["--name=null", "--ioengine=null", "--rw=randread", "--bs=4k", "--iodepth=32",
                     "--size=1G", "--time_based", f"--runtime={S}"]))
    fi = job["read"]["iops"]
    pair_line("null RND4K Q32T1", i, r["iops"], fi, "IOPS")
    pairs.append((r["iops"] / fi, None, None, t["cpu_ns_per_command"], fio_cpu_per_io(job, "read")))
compare("null RND4K Q32T1 vs fio null engine", pairs, "IOPS", 1.0)
