#!/usr/bin/env bash
# /metrics of `drivescope serve` over a store of 10 000 real runs: it answers in < 100 ms, and a
# Prometheus scrape every 15 s costs serve < 1 % of a CPU.
# Usage: bench/metrics.sh [STORE]   (DRIVESCOPE=path/to/binary to skip the release build; RUNS=N;
# STORE is kept and reused when given, so the runs are made once)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${DRIVESCOPE:-}" ]; then
  cargo build --release -q -p drivescope
  DRIVESCOPE=${CARGO_TARGET_DIR:-target}/release/drivescope
fi
bin=$DRIVESCOPE
runs=${RUNS:-10000}
dir=$(mktemp -d)
store=${1:-$dir/runs.sqlite}
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$dir"' EXIT

count() { "$bin" runs --store "$store" --limit 100000 2>/dev/null | tail -n +2 | wc -l; }

# The runs, made by the binary on null targets: twenty drives (null:1G … null:20G); of every
# hundred runs, 85 scans of 256 MiB, 10 benches and a screen of four drives (its own run and
# one scan per drive).
one() {
  local i=$1 d=$((1 + $1 % 20)) slot=$(($1 % 100))
  if [ "$slot" -lt 85 ]; then
    "$bin" scan "null:${d}G" --length 256M --quiet --store "$store" >/dev/null
  elif [ "$slot" -lt 95 ]; then
    "$bin" bench "null:${d}G" --test "RND4K Q1T1" --rw read --runs 1 --duration 20ms \
      --quiet --store "$store" >/dev/null
  elif [ "$slot" -eq 95 ]; then
    "$bin" screen null:1G null:2G null:3G null:4G --length 256M --shared-path 0 \
      --quiet --store "$store" >/dev/null
  fi
}
export -f one
export bin store
have=0
[ -f "$store" ] && have=$(count)
if [ "$have" -lt "$runs" ]; then
  t0=$(date +%s)
  seq "$have" $((runs - 1)) | xargs -P "$(nproc)" -I{} bash -c 'one {}'
  echo "made the store: $(count) runs in $(( $(date +%s) - t0 )) s"
fi
echo "store: $(count) runs, $(du -h "$store" | cut -f1)"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --store "$store" --listen "127.0.0.1:$port" 2>"$dir/serve.log" &
serve_pid=$!
url=http://127.0.0.1:$port/metrics
for _ in $(seq 100); do curl -sf -o /dev/null "$url" 2>/dev/null && break; sleep 0.1; done
# The server is up; restart it so the first timed scrape finds no cache.
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
"$bin" serve --store "$store" --listen "127.0.0.1:$port" 2>"$dir/serve.log" &
serve_pid=$!
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

ms() { curl -s -o "$dir/metrics.txt" -w '%{time_total}\n' "$url" | awk '{printf "%.1f\n", $1 * 1000}'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)] " ms median, " a[NR] " ms max of " NR}'; }
cpu() { awk '{print $14 + $15}' "/proc/$serve_pid/stat"; }   # clock ticks
tck=$(getconf CLK_TCK)

# serve reads the latest runs' documents as it starts; a scrape that comes meanwhile waits for it.
echo "first scrape, as serve starts (waits for its read of the latest runs): $(ms) ms, $(grep -vc '^#' "$dir/metrics.txt") series"
c0=$(cpu)
for _ in $(seq 50); do ms; done >"$dir/warm"
c1=$(cpu)
echo "scrapes of an unchanged store: $(median <"$dir/warm")"
per=$(echo "$c0 $c1 $tck" | awk '{printf "%.2f", ($2 - $1) / $3 / 50 * 1000}')
echo "serve CPU per scrape: $per ms; a scrape every 15 s: $(echo "$per" | awk '{printf "%.4f", $1 / 15000 * 100}') % of a CPU"
for _ in $(seq 5); do
  "$bin" scan null:1G --length 64M --quiet --store "$store" >/dev/null
  ms
done >"$dir/changed"
echo "scrapes after a new run was saved (that run read): $(median <"$dir/changed")"
# A scrape a few seconds after serve started, as Prometheus's first would be.
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
"$bin" serve --store "$store" --listen "127.0.0.1:$port" 2>"$dir/serve.log" &
serve_pid=$!
sleep 5
echo "first scrape 5 s after serve started: $(ms) ms"
# The real thing: a scrape every 15 s for a minute, serve's CPU over the whole minute.
c0=$(cpu)
for _ in 1 2 3 4; do ms >/dev/null; sleep 15; done
c1=$(cpu)
echo "scraped every 15 s for 60 s: serve used $(echo "$c0 $c1 $tck" | awk '{printf "%.3f", ($2 - $1) / $3 / 60 * 100}') % of a CPU"
