#!/usr/bin/env bash
# Diagnose over a random-seed sample of device models drawn from the wide space (crates/diagnose, tests/space):
# every finding scored against the draw's truth. Prints the seed (repeat a sample with SPACE_SEED=0x...), the
# table per behaviour, and each miss, false claim and number outside its tolerance.
#
#   bench/space_accuracy.sh [MODELS]            scripted models only (default 200)
#   sudo bench/space_accuracy.sh [MODELS] --lab [LAB_MODELS] [path/to/drivescope]
#       ...and LAB_MODELS (default 4) of the draws as lab disks of 256 MiB (FUSE + loop), each diagnosed through
#       the kernel with a 60 s budget; per behaviour it prints what the scripted expectation says (found, absent
#       or blind), what the scripted model found and what the lab disk found.
set -euo pipefail
cd "$(dirname "$0")/.."
export SPACE_MODELS="${1:-200}"
export SPACE_SEED="${SPACE_SEED:-$(printf '0x%016x' "$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')")}"
echo "seed $SPACE_SEED"
cargo test -q -p drivescope-diagnose --lib random_sample -- --ignored --nocapture

[ "${2:-}" = "--lab" ] || exit 0
export SPACE_LAB_MODELS="${3:-4}"
BIN=${4:-target/debug/drivescope}
[ "$(id -u)" = 0 ] || { echo "the lab part needs root (FUSE and loop devices)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "build first: cargo build -p drivescope (or pass the binary)" >&2; exit 1; }
export SPACE_LAB_DIR=$(mktemp -d /tmp/space-lab.XXXXXX)
MNT=$(mktemp -d /tmp/space-lab-mnt.XXXXXX)
PID=
LOOP=
cleanup() {
  # Only what this script set up: its loop device, its lab server, its directories.
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  [ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
  rmdir "$MNT" 2>/dev/null || true
  rm -rf "$SPACE_LAB_DIR"
}
trap cleanup EXIT
cargo test -q -p drivescope-diagnose --lib write_lab_draws -- --ignored >/dev/null
for ((i = 0; i < SPACE_LAB_MODELS; i++)); do
  model="$SPACE_LAB_DIR/$i.toml"
  echo
  echo "### lab draw $i: $(sed -n 's/^name = "\(.*\)"/\1/p' "$model")"
  "$BIN" lab serve "$model" --mount "$MNT" >/dev/null 2>&1 &
  PID=$!
  for _ in $(seq 200); do [ -e "$MNT/disk.img" ] && break; sleep 0.05; done
  LOOP=$(losetup -f --show --direct-io=on "$MNT/disk.img")
  size=$(blockdev --getsize64 "$LOOP")
  confirm="$(basename "$LOOP") $(awk -v s="$size" 'BEGIN { printf "%.1f MiB", s / 1048576 }')"
  "$BIN" diagnose "$LOOP" --budget 60s --json --quiet --no-store --destructive --confirm "$confirm" \
    >"$SPACE_LAB_DIR/$i.json" || true
  losetup -d "$LOOP"; LOOP=
  kill -INT "$PID"; wait "$PID" 2>/dev/null || true; PID=
  python3 - "$SPACE_LAB_DIR/$i" <<'PY'
import json, sys
base = sys.argv[1]
doc = json.load(open(base + ".json"))
lab = {f["code"] for f in doc.get("findings", []) if f.get("confidence") != "inconclusive"}
scripted = set(open(base + ".scripted").read().split())
print("| behaviour | expected (scripted truth) | scripted model | lab disk |\n|---|---|---|---|")
for line in open(base + ".expect"):
    name, code, expect = line.rstrip("\n").split(" ", 2)
    yes = lambda s: "claimed" if code in s else "-"
    print(f"| {name} | {expect} | {yes(scripted)} | {yes(lab)} |")
PY
done
