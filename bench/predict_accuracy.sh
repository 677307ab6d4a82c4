#!/usr/bin/env bash
# The accuracy of `time --predict-on` on three lab disks: tests/time_predict.rs with its strict bounds (each
# prediction within ±25 % of the I/O time measured on the disk, the disks ranked as measured), printing the table
# docs/performance.md records. Needs root, FUSE, loop devices and fio; run it on a machine kept quiet, since both
# sides of each comparison are times measured through the host.
# Usage: sudo bench/predict_accuracy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DRIVESCOPE_PREDICT_STRICT=1 exec cargo test -q -p drivescope --test time_predict -- --nocapture
