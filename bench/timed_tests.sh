#!/usr/bin/env bash
# The tests that time lab disks against their models at full length, which CI leaves out (they take tens
# of minutes and need the machine to themselves): each test marked `#[ignore]` with a pointer here. Run
# them on an otherwise idle machine, one at a time, and record the result in docs/accuracy.md.
#
#   sudo bench/timed_tests.sh [cargo test filter...]
#   sudo DRIVESCOPE_MATRIX_MODELS=hdd-7200,raid-cache bench/timed_tests.sh diagnose_finds   (some models of the matrix)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "needs root (FUSE and loop devices)" >&2; exit 1; }
export CI=1
trap 'target/debug/drivescope lab cleanup >/dev/null 2>&1 || true' EXIT
cargo build -q -p drivescope
start=$(date +%s)
for t in lab_diagnose lab_temperature time_predict; do
  echo "== $t"
  cargo test -q -p drivescope --test "$t" -- --ignored --test-threads=1 --nocapture "$@"
done
echo "== all timed tests passed in $(( $(date +%s) - start )) s on $(date -u +%F), $(nproc) CPUs"
