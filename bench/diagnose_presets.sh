#!/usr/bin/env bash
# Time of a diagnosis per lab preset, with its findings: each preset served fresh (empty caches, warm-up not
# begun), attached to a loop device, diagnosed with its write experiments allowed and the default budget.
# Prints a Markdown table for docs/performance.md.
#
#   sudo bench/diagnose_presets.sh [path/to/drivescope] [presets...]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/drivescope}
shift || true
PRESETS=${*:-$("$BIN" lab presets | awk 'NR>0 {print $1}')}
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE and loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build --release (or pass the binary)" >&2; exit 1; }

MNT=$(mktemp -d /tmp/diagnose-presets.XXXXXX)
OUT=$(mktemp /tmp/diagnose-presets-out.XXXXXX)
PID=
LOOP=
cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  "$BIN" lab cleanup 2>/dev/null || true
  rm -f "$OUT"
  rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT

echo "| preset | time (s) | findings |"
echo "|---|---:|---|"
for p in $PRESETS; do
  "$BIN" lab serve "$p" --mount "$MNT" >/dev/null 2>&1 &
  PID=$!
  for _ in $(seq 100); do [ -e "$MNT/disk.img" ] && break; sleep 0.05; done
  LOOP=$(losetup -f --show --direct-io=on "$MNT/disk.img")
  size=$(blockdev --getsize64 "$LOOP")
  confirm="$(basename "$LOOP") $(awk -v s="$size" 'BEGIN { printf "%.1f MiB", s / 1048576 }')"
  start=$(date +%s.%N)
  "$BIN" diagnose "$LOOP" --json --quiet --no-store --destructive --confirm "$confirm" >"$OUT" || true
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  found=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("; ".join(f["claim"] for f in d.get("findings", [])) or "none")' "$OUT")
  echo "| $p | $secs | $found |"
  losetup -d "$LOOP"; LOOP=
  kill -INT "$PID"; wait "$PID" 2>/dev/null || true; PID=
done
