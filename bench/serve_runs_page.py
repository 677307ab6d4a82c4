#!/usr/bin/env python3
"""How fast `drivescope serve` answers its runs page over a store of many runs: a store of 10 000
runs (copies of a real scan's document, one minute apart, on twenty targets and five hosts; made
with the store's `fill` example), `drivescope serve` (release build) on a free loopback port, then
each page asked for 21 times over one HTTP/1.1 connection each: the first page, a page deep in
the list, a device filter, a kind filter oldest first far down, a run's page. Prints the median and
the slowest answer per page (wall time from sending the request to the last byte). Target: the
runs page under 200 ms.

Usage: bench/serve_runs_page.py [--runs 10000] [--repeat 21]
"""
import argparse
import http.client
import os
import re
import statistics
import subprocess
import tempfile
import time

from common import DS, ROOT, machine

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=10000)
ap.add_argument("--repeat", type=int, default=21)
args = ap.parse_args()
subprocess.run(["cargo", "build", "--release", "-q", "-p", "drivescope"], cwd=ROOT, check=True)
subprocess.run(["cargo", "build", "--release", "-q", "-p", "drivescope-store", "--example", "fill"],
               cwd=ROOT, check=True)
FILL = os.path.join(ROOT, "target", "release", "examples", "fill")
print(f"# serve runs page — {machine()}")

with tempfile.TemporaryDirectory(prefix="ds-serve-bench-") as d:
    seed = os.path.join(d, "seed.sqlite")
    store = os.path.join(d, "runs.sqlite")
    subprocess.run([DS, "scan", "null:4G", "--quiet", "--store", seed], check=True,
                   stdout=subprocess.DEVNULL)
    doc = os.path.join(d, "scan.json")
    with open(doc, "wb") as f:
        subprocess.run([DS, "export", "1", "--format", "json", "--store", seed], check=True, stdout=f)
    t = time.monotonic()
    subprocess.run([FILL, store, doc, str(args.runs)], check=True)
    print(f"store: {args.runs} runs of {os.path.getsize(doc)} B of JSON each, filled in "
          f"{time.monotonic() - t:.1f} s, {os.path.getsize(store) / 1e6:.1f} MB")
    srv = subprocess.Popen([DS, "serve", "--store", store, "--listen", "127.0.0.1:0"],
                           stderr=subprocess.PIPE, text=True)
    try:
        line = srv.stderr.readline()
        host, port = re.search(r"http://([\d.]+):(\d+)/", line).groups()
        last = args.runs // 50
        pages = [
            ("runs, first page", "/"),
            (f"runs, page {last // 2} of {last}", f"/?page={last // 2}"),
            ("runs, device filter", "/?device=drive-07"),
            ("runs, kind scan oldest first, page 150", "/?kind=scan&sort=oldest&page=150"),
            ("a run's page (report)", f"/runs/{args.runs // 2}"),
        ]
        for name, path in pages:
            times = []
            for _ in range(args.repeat):
                c = http.client.HTTPConnection(host, int(port))
                t = time.perf_counter()
                c.request("GET", path)
                r = c.getresponse()
                body = r.read()
                times.append((time.perf_counter() - t) * 1e3)
                c.close()
                assert r.status == 200, (path, r.status, body[:200])
            print(f"{name:42} median {statistics.median(times):7.1f} ms, slowest {max(times):7.1f} ms "
                  f"({len(body)} B)", flush=True)
    finally:
        srv.terminate()
        srv.wait()
