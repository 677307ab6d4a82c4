#!/usr/bin/env bash
# `drivescope capacity` beside f3probe (Debian package f3) on the same lab drives: wall time and
# verdict of each, both keeping the drive's data (drivescope's journal and restore, f3probe's
# default restore). The drives: the genuine usb-stick and its fakes (wrap at 3000/4096, drop,
# limbo, read errors) at 4 GiB, the 4 GiB wrap fake whose scattered commands seek 5-10 ms, and
# the "2 TB" stick keeping 32 GiB (sparse: each costs only what is written). Each drive is served
# afresh for each tool. Prints a Markdown table for docs/performance.md.
#
#   sudo bench/capacity_vs_f3probe.sh [path/to/drivescope] [case...]
# A case is PRESET[:SIZE], e.g. fake-drop:4G. LIMIT=SECONDS stops either tool after that long.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/drivescope}
shift || true
CASES=${*:-usb-stick:4G fake-wrap-3000of4096 fake-drop:4G fake-limbo:4G fake-readerr:4G fake-disk-wrap-3000of4096 fake-2tb-32g usb-stick:2000000000000}
LIMIT=${LIMIT:-900}   # seconds each tool may take on one drive
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE and loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build --release (or pass the binary)" >&2; exit 1; }
command -v f3probe >/dev/null || { echo "needs f3probe (Debian package f3)" >&2; exit 1; }

MNT=$(mktemp -d /tmp/capacity-f3.XXXXXX)
OUT=$(mktemp /tmp/capacity-f3-out.XXXXXX)
JOURNAL=$MNT.journal
PID=
LOOP=
cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  rm -f "$OUT" "$JOURNAL"
  rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT

serve() { # preset size
  local extra=()
  [ -n "$2" ] && extra=(--size "$2")
  "$BIN" lab serve "$1" "${extra[@]}" --mount "$MNT" >/dev/null 2>&1 &
  PID=$!
  for _ in $(seq 200); do [ -e "$MNT/disk.img" ] && break; sleep 0.05; done
  LOOP=$(losetup -f --show --direct-io=on "$MNT/disk.img")
}
unserve() {
  losetup -d "$LOOP"; LOOP=
  kill -INT "$PID"; wait "$PID" 2>/dev/null || true; PID=
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

echo "| drive | nominal | truth | drivescope verdict | drivescope (s) | f3probe verdict | f3probe (s) |"
echo "|---|---:|---|---|---:|---|---:|"
for c in $CASES; do
  preset=${c%%:*}
  size=
  [ "$preset" != "$c" ] && size=${c#*:}
  serve "$preset" "$size"
  bytes=$(blockdev --getsize64 "$LOOP")
  truth=$("$BIN" lab truth "$preset" ${size:+--size "$size"} --json 2>/dev/null | python3 -c '
import json, sys
c = json.load(sys.stdin).get("capacity")
print("genuine" if not c else "%s, real %.0f MiB" % (c["class"], c["real"] / 2**20))')
  confirm="$(basename "$LOOP") $(awk -v s="$bytes" 'BEGIN { u = "MiB"; v = s / 1048576; if (v >= 1024) { v /= 1024; u = "GiB" } if (v >= 1024) { v /= 1024; u = "TiB" } printf "%.1f %s", v, u }')"
  start=$(now)
  timeout "$LIMIT" "$BIN" capacity "$LOOP" --confirm "$confirm" --json --quiet --no-store --backup "$JOURNAL" >"$OUT" 2>/dev/null || true
  ds_secs=$(since "$start")
  rm -f "$JOURNAL"
  ds=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%s, real %.0f MiB" % (d.get("class", "?"), d.get("real_capacity", 0) / 2**20))' "$OUT")
  unserve
  serve "$preset" "$size"
  start=$(now)
  timeout "$LIMIT" f3probe --reset-type=2 "$LOOP" >"$OUT" 2>&1 || echo "stopped after $LIMIT s" >>"$OUT"
  f3_secs=$(since "$start")
  f3=$(python3 -c '
import re, sys
t = open(sys.argv[1]).read()
kind = re.search(r"counterfeit of type (\w+)", t)
usable = re.search(r"\*Usable\* size:\s*([\d.]+ \w+)", t)
if "is the real thing" in t:
    print("genuine" + (f", usable {usable.group(1)}" if usable else ""))
elif "is damaged" in t:
    print("damaged" + (f", usable {usable.group(1)}" if usable else ""))
elif kind:
    print(f"{kind.group(1)}" + (f", usable {usable.group(1)}" if usable else ""))
else:
    print("no verdict: " + (t.strip().splitlines() or ["(no output)"])[-1][:60])' "$OUT")
  unserve
  echo "| $preset | $(awk -v s="$bytes" 'BEGIN { if (s >= 1e9) printf "%.1f GB", s / 1e9; else printf "%.0f MB", s / 1e6 }') | $truth | $ds | $ds_secs | $f3 | $f3_secs |"
done
