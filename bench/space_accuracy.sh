#!/usr/bin/env bash
# Diagnose over a random-seed sample of scripted device models drawn from the wide space (crates/diagnose,
# tests/space): every finding scored against the draw's truth. Prints the seed (rerun a sample with
# SPACE_SEED=0x...), the table per behaviour and each miss, false claim and number outside its tolerance.
#   bench/space_accuracy.sh [MODELS]        (default 200; SPACE_SEED to repeat a sample)
# The lab (FUSE + loop) part is not here yet: the draws are not written out as lab model files.
set -euo pipefail
cd "$(dirname "$0")/.."
export SPACE_MODELS="${1:-200}"
cargo test -q -p drivescope-diagnose --lib random_sample -- --ignored --nocapture
