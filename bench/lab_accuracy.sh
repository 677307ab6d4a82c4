#!/usr/bin/env bash
# Emulator accuracy: for each lab preset, modeled vs measured MB/s at 5 positions, read with dd
# (O_DIRECT, QD1) through the loop device. Prints a Markdown table for docs/lab.md.
#
#   sudo bench/lab_accuracy.sh [path/to/drivescope] [block sizes...]
#
# Each (preset, block size) gets a fresh device (empty caches, head at 0, warm-up not begun).
# The disk is cut into 16 equal windows; the 5 windows nearest 0 %, 25 %, 50 %, 75 % and 100 %
# that hold no slow or bad spot are measured, each as three thirds read separately (never the
# same data twice, so caches stay cold); the table shows the third with the median error, which
# keeps a stall from other load on a small machine out of the table. Before each third, dd reads
# the one block just before it and the script waits 50 ms (longer than the model's look-ahead),
# so the timed dd neither seeks nor streams on from the priming read.
# cold-start is compared with its warm-up rate (the whole run lies inside its first 20 s).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/drivescope}
shift || true
SIZES=${*:-64K 256K}
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE and loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build --release (or pass the binary)" >&2; exit 1; }

MNT=$(mktemp -d /tmp/lab-accuracy.XXXXXX)
PID=
cleanup() {
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  "$BIN" lab cleanup 2>/dev/null || true
  rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT

bytes() { python3 -c "
import sys
s=sys.argv[1].upper().rstrip('IB'); m={'K':1<<10,'M':1<<20,'G':1<<30}
print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))" "$1"; }

echo "| preset | block | position | modeled MB/s | measured MB/s | error |"
echo "|---|---|---|---|---|---|"
for preset in $("$BIN" lab presets | awk '{print $1}'); do
  for bs in $SIZES; do
    b=$(bytes "$bs")
    truth=$("$BIN" lab truth "$preset" --points 48 --block-size "$bs")
    "$BIN" lab serve "$preset" --mount "$MNT" --loop > "$MNT.out" 2> "$MNT.err" &
    PID=$!
    for _ in $(seq 50); do [ -s "$MNT.out" ] && break; sleep 0.1; done
    dev=$(head -1 "$MNT.out")
    [ -b "$dev" ] || { cat "$MNT.err" >&2; exit 1; }
    echo "$truth" > "$MNT.truth"
    python3 - "$b" "$MNT.truth" > "$MNT.plan" <<'PY'
import json, sys
t = json.load(open(sys.argv[2])); bs = int(sys.argv[1])
spots = [(s["offset"], s["length"]) for s in t["slow"] + t["bad"]]
pos = t["positions"]
def clean(p):
    a, b = p["offset"] - bs, p["offset"] + p["length"]
    return all(o + l <= a or o >= b for o, l in spots)
cold = t.get("warmup_factor") is not None
for target in (0, 4, 8, 12, 15):
    ok = lambda w: all(clean(pos[3 * w + k]) for k in range(3))
    w = min((w for w in range(16) if ok(w)), key=lambda w: abs(w - target))
    for k in range(3):
        p = pos[3 * w + k]
        rate = p["mb_per_s_cold"] if cold else p["mb_per_s"]
        print(w, p["offset"], p["length"], rate, round(100 * pos[3 * w]["offset"] / t["size"]))
PY
    : > "$MNT.rows"
    while read -r w off len model pct; do
      # Prime: one block just before the part (or the first block), untimed; then idle.
      if [ "$off" -ge "$b" ]; then
        dd if="$dev" of=/dev/null bs="$b" count=1 skip=$((off / b - 1)) iflag=direct 2>/dev/null
        start=$off
      else
        dd if="$dev" of=/dev/null bs="$b" count=1 skip=0 iflag=direct 2>/dev/null
        start=$((off + b)); len=$((len - b))
      fi
      sleep 0.05
      line=$(dd if="$dev" of=/dev/null bs="$b" count=$((len / b)) skip=$((start / b)) iflag=direct 2>&1 | tail -1)
      echo "$w|$pct|$model|$line" >> "$MNT.rows"
    done < "$MNT.plan"
    python3 - "$preset" "$bs" "$MNT.rows" <<'PY'
import sys, re
preset, bs, rows = sys.argv[1], sys.argv[2], sys.argv[3]
parts = {}
for r in open(rows):
    w, pct, model, line = r.rstrip("\n").split("|", 3)
    m = re.match(r"(\d+) bytes .* copied, ([0-9.e-]+) s", line)
    got = int(m.group(1)) / float(m.group(2)) / 1e6
    parts.setdefault((int(w), pct), []).append((got / float(model) - 1, float(model), got))
for (w, pct), v in sorted(parts.items()):
    err, model, got = sorted(v)[len(v) // 2]
    print(f"| {preset} | {bs} | {pct} % | {model:.1f} | {got:.1f} | {100 * err:+.1f} % |")
PY
    kill -INT "$PID"; wait "$PID" 2>/dev/null || true; PID=
    rm -f "$MNT.out" "$MNT.err" "$MNT.plan" "$MNT.truth" "$MNT.rows"
  done
done
