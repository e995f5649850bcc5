#!/usr/bin/env bash
# A/B in one run (a goal of docs/decisions/0019): the server's CPU and allocations per Read under a 20 x 16 Read
# load (20 sessions, 16 requests in flight each, 1 value per Read), with /metrics scraped every
# second (B) and not scraped (A). The same binary and plant file (the embedded default with a
# [metrics] section) both times; rounds alternate which goes first. Prints one line per run and
# the medians.
#
#   bench/runtime/scrape_ab.sh build/cli/uactor [ROUNDS=3] [DURATION_S=10]
set -euo pipefail
uactor="${1:?usage: scrape_ab.sh path/to/uactor [ROUNDS] [DURATION_S]}"
rounds="${2:-3}"
duration="${3:-10}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
port=$(( 20000 + RANDOM % 20000 ))
{ "$uactor" config default; printf '\n[metrics]\nport = %d\n' "$port"; } >"$tmp/plant.toml"

run() {  # $1: scrape | quiet
  local scraper=""
  if [[ $1 == scrape ]]; then
    ( while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep 1; done ) &
    scraper=$!
  fi
  "$uactor" load --scenario read --sessions 20 --inflight 16 --nodes 1 --duration "$duration" --warmup 3 --json \
    --server-arg=--config --server-arg="$tmp/plant.toml" >>"$tmp/$1.jsonl"
  [[ -n $scraper ]] && kill "$scraper" 2>/dev/null && wait "$scraper" 2>/dev/null || true
  tail -n 1 "$tmp/$1.jsonl" | jq -c "{run: \"$1\", requests_per_s, server_cpu_us_per_req, server_allocs_per_req}"
}

for ((r = 0; r < rounds; r++)); do
  if ((r % 2 == 0)); then run quiet; run scrape; else run scrape; run quiet; fi
done
median() { jq -s "map(.$2) | sort | .[length / 2 | floor]" "$tmp/$1.jsonl"; }
for k in requests_per_s server_cpu_us_per_req server_allocs_per_req; do
  q=$(median quiet "$k") s=$(median scrape "$k")
  echo "$k: not scraped $q, scraped every 1 s $s, ratio $(awk -v a="$q" -v b="$s" 'BEGIN { printf "%.3f", (a > 0 ? b / a : 0) }')"
done
