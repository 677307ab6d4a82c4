#!/usr/bin/env bash
# Time of `drivescope capacity` by drive size, on lab sticks at 50 MB/s behind a 40 MB/s USB 2.0 link
# (sparse, so a 64 GiB drive costs only what the probe writes): the genuine stick and a fake that keeps
# 3000/4096 of what it reports (wrap-around), each from 1 GiB to 64 GiB, beside what a full write and
# read-back (`scan --write --verify`) would take at the same rate. Prints a Markdown table for
# docs/performance.md.
#
#   sudo bench/capacity_scale.sh [path/to/drivescope] [sizes...]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/drivescope}
shift || true
SIZES=${*:-1G 2G 4G 8G 16G 32G 64G}
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE and loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build --release (or pass the binary)" >&2; exit 1; }

MNT=$(mktemp -d /tmp/capacity-scale.XXXXXX)
OUT=$(mktemp /tmp/capacity-scale-out.XXXXXX)
PID=
LOOP=
cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  rm -f "$OUT"
  rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT

echo "| drive | size | verdict | rounds | written | time (s) | full write + read-back at 40 MB/s (s) |"
echo "|---|---:|---|---:|---:|---:|---:|"
for size in $SIZES; do
  for p in usb-stick fake-wrap-3000of4096; do
    "$BIN" lab serve "$p" --size "$size" --mount "$MNT" >/dev/null 2>&1 &
    PID=$!
    for _ in $(seq 100); do [ -e "$MNT/disk.img" ] && break; sleep 0.05; done
    LOOP=$(losetup -f --show --direct-io=on "$MNT/disk.img")
    bytes=$(blockdev --getsize64 "$LOOP")
    confirm="$(basename "$LOOP") $(awk -v s="$bytes" 'BEGIN { u = "MiB"; v = s / 1048576; if (v >= 1024) { v /= 1024; u = "GiB" } printf "%.1f %s", v, u }')"
    start=$(date +%s.%N)
    "$BIN" capacity "$LOOP" --confirm "$confirm" --json --quiet --no-store >"$OUT" 2>/dev/null || true
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    row=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cls = d.get("class", "?")
real = d.get("real_capacity", 0) / 2**20
rounds, written = d["rounds"], d["bytes_written"] / 2**20
print(f"{cls}, real {real:.0f} MiB | {rounds} | {written:.0f} MiB")
' "$OUT")
    full=$(awk -v s="$bytes" 'BEGIN { printf "%.0f", 2 * s / 40e6 }')
    echo "| $p | $size | $row | $secs | $full |"
    losetup -d "$LOOP"; LOOP=
    kill -INT "$PID"; wait "$PID" 2>/dev/null || true; PID=
  done
done
