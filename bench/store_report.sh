#!/usr/bin/env bash
# Store and report targets: a stored full scan of null:4T adds < 2 MiB to the store, and `report` on it renders in < 1 s.
# Usage: bench/store_report.sh   (builds release; the scan itself takes about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p drivescope
bin=${CARGO_TARGET_DIR:-target}/release/drivescope
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
store=$dir/runs.sqlite
"$bin" runs --store "$store" >/dev/null 2>&1   # creates the empty store
size() { local n=0 f; for f in "$store" "$store-wal"; do [ -f "$f" ] && n=$((n + $(wc -c <"$f"))); done; echo "$n"; }
before=$(size)
"$bin" scan null:4T --json --quiet --points 1000 --store "$store" >"$dir/scan.json"
after=$(size)
start=$(date +%s%N)
"$bin" report last -o "$dir/report.html" --store "$store" 2>/dev/null
end=$(date +%s%N)
echo "document $(wc -c <"$dir/scan.json") bytes of JSON; store grew $((after - before)) bytes (target: < 2097152)"
echo "report rendered in $(( (end - start) / 1000000 )) ms (target: < 1000 ms), $(wc -c <"$dir/report.html") bytes of HTML"
