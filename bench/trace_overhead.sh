#!/usr/bin/env bash
# What `drivescope time --trace` costs the traced command, and that its memory does not grow with the
# number of requests. On ext4 over a loop device over a file in /dev/shm (made here, removed after), fio reads
# 4 KiB at random with O_DIRECT at queue depth 1, a fixed number of reads per run:
#  1. wall time of the command, `time --cold --runs 1` against `time --cold --runs 1 --trace`, alternating
#     A B A B for ROUNDS rounds: the median of each, their ratio, and the median of the rounds' own ratios
#     (a round's two runs are seconds apart, so that ratio is the one other load on the machine disturbs
#     least) (target: within 5 %);
#  2. drivescope's own peak memory (VmHWM) traced at REQUESTS and at 5 × REQUESTS reads (target: flat).
# Usage (root): bench/trace_overhead.sh [BINARY] [ROUNDS] [REQUESTS]   (fio: Debian package fio)
# Without BINARY the release build is made first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
rounds=${2:-3}
requests=${3:-200000}
[ "$(id -u)" = 0 ] || { echo "needs root (tracefs, loop devices, dropping the page cache)" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is needed (apt-get install fio)" >&2; exit 1; }
if [ -z "$bin" ]; then
    cargo build --release -q -p drivescope
    bin=${CARGO_TARGET_DIR:-target}/release/drivescope
fi
bin=$(realpath "$bin")
img=/dev/shm/drivescope-trace-overhead-$$.img
mnt=$(mktemp -d)
dev=
cleanup() {
    umount "$mnt" 2>/dev/null || true
    [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null || true
    rm -f "$img"
    rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT
truncate -s 1200M "$img"
dev=$(losetup --find --show "$img")
mkfs.ext4 -q -F -E nodiscard "$dev"
mount "$dev" "$mnt"
fio --name=fill --filename="$mnt/data" --size=1G --rw=write --bs=1M --direct=1 >/dev/null
job() { echo fio --name=r --filename=data --size=1G --rw=randread --bs=4k --iodepth=1 --direct=1 --number_ios="$1"; }

# The command's wall time and the traced run's request count, from the JSON document on stdout.
run() {
    # shellcheck disable=SC2046
    "$bin" time --cold --runs 1 --json --quiet --no-store --cwd "$mnt" "$@" -- $(job "$requests") 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); f=d.get("fingerprint") or {}
print(d["modes"][0]["summary"]["wall_ns"]["median"]/1e9, f.get("requests", 0), f.get("lost_events", 0))'
}
plain=() traced=()
for i in $(seq "$rounds"); do
    read -r w _ _ < <(run)
    plain+=("$w")
    read -r t n lost < <(run --trace)
    traced+=("$t")
    echo "round $i: time $w s   time --trace $t s   ($n requests traced, $lost events lost; load $(cut -d' ' -f1 /proc/loadavg))"
done
python3 - "${plain[*]}" "${traced[*]}" <<'PY'
import statistics, sys
a, b = ([float(x) for x in s.split()] for s in sys.argv[1:3])
ma, mb = statistics.median(a), statistics.median(b)
paired = statistics.median(y / x for x, y in zip(a, b))
print(f"wall time: time {ma:.3f} s, time --trace {mb:.3f} s, ratio {mb/ma:.3f} ({(mb/ma-1)*100:+.1f} %); "
      f"median of the rounds' ratios {paired:.3f} ({(paired-1)*100:+.1f} %)")
PY

# Peak memory of drivescope itself (not fio's): VmHWM read from /proc while it runs.
peak() {
    python3 - "$bin" "$mnt" "$@" <<'PY'
import subprocess, sys, time
bin, mnt, n = sys.argv[1], sys.argv[2], sys.argv[3]
argv = [bin, "time", "--cold", "--runs", "1", "--trace", "--quiet", "--no-store", "--cwd", mnt, "--",
        "fio", "--name=r", "--filename=data", "--size=1G", "--rw=randread", "--bs=4k", "--iodepth=1",
        "--direct=1", f"--number_ios={n}"]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
hwm = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("VmHWM:"):
                hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.05)
print(hwm)
PY
}
small=$(peak "$requests")
large=$(peak $((requests * 5)))
echo "peak memory of drivescope: $((small / 1024)) MiB at $requests requests, $((large / 1024)) MiB at $((requests * 5)) requests"
