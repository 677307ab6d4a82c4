#!/usr/bin/env bash
# drivescope time against hyperfine on the same commands, warm, alternating A B A B: the median wall time of each
# and their ratio (target: within 5 %), and drivescope's own cost per run, measured on `true` (target: < 5 ms).
# Usage: bench/time_vs_hyperfine.sh [BINARY] [ROUNDS] [RUNS]   (hyperfine: Debian package hyperfine)
# Without BINARY the release build is made first. hyperfine runs the commands without a shell (-N), as drivescope
# time -- COMMAND does.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
rounds=${2:-5}
runs=${3:-20}
if [ -z "$bin" ]; then
    cargo build --release -q -p drivescope
    bin=${CARGO_TARGET_DIR:-target}/release/drivescope
fi
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c $((64 << 20)) /dev/urandom >"$dir/file"   # 64 MiB, read warm from the page cache
median_hf() { python3 -c 'import json,sys,statistics; print(statistics.median(json.load(open(sys.argv[1]))["results"][0]["times"]))' "$1"; }
median_ds() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["modes"][0]["summary"]["wall_ns"]["median"]/1e9)' "$1"; }
for name in true sleep cat; do
    case $name in
        true) cmd=(true) ;;
        sleep) cmd=(sleep 0.05) ;;
        cat) cmd=(cat "$dir/file") ;;
    esac
    hf=() ds=()
    for _ in $(seq "$rounds"); do
        hyperfine -N --style none --warmup 1 --runs "$runs" --output null --export-json "$dir/hf.json" \
            "${cmd[*]}" >/dev/null 2>&1
        hf+=("$(median_hf "$dir/hf.json")")
        "$bin" time --warm --runs "$runs" --json --quiet --no-store -- "${cmd[@]}" >"$dir/ds.json" 2>/dev/null
        ds+=("$(median_ds "$dir/ds.json")")
    done
    python3 - "$name" "${hf[*]}" "${ds[*]}" <<'PY'
import statistics, sys
name, hf, ds = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
h, d = statistics.median(hf), statistics.median(ds)
print(f"{name:6} hyperfine {h*1e3:9.3f} ms   drivescope time {d*1e3:9.3f} ms   ratio {d/h:5.3f}   difference {(d-h)*1e3:+.3f} ms")
PY
done
