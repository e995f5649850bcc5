#!/usr/bin/env bash
# Does coordination cost anything on the data path (docs/performance.md "Distributed load")? One
# box, the same sessions three ways in one run, ROUNDS times in rotating order: the harness alone
# (local), as one agent, and split over four agents (docs/distributed-load.md). Prints the medians
# of requests/s, server and client CPU per request, latency, and the distributed runs' start skew
# and collection time.
#
#   UACTOR=build/cli/uactor [ROUNDS=3] [OUT=dir] bench/distributed_ab.sh [uactor load args...]
#
# The default load: --scenario read --sessions 20 --nodes 1 --inflight 1 --warmup 2 --duration 5.
# Needs jq. Agents listen on 127.0.0.1, ephemeral ports; everything ends with the script.
set -uo pipefail
UACTOR=${UACTOR:-build/cli/uactor}
ROUNDS=${ROUNDS:-3}
OUT=${OUT:-$(mktemp -d /tmp/uactor-distributed-ab.XXXXXX)}
command -v jq >/dev/null || { echo "distributed_ab.sh: needs jq" >&2; exit 2; }
[[ -x $UACTOR ]] || { echo "distributed_ab.sh: not an executable: $UACTOR" >&2; exit 2; }
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(--scenario read --sessions 20 --nodes 1 --inflight 1 --warmup 2 --duration 5)
mkdir -p "$OUT"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT
agents=()
for i in 1 2 3 4; do
  "$UACTOR" agent --listen 127.0.0.1:0 >"$OUT/agent$i.out" 2>"$OUT/agent$i.err" </dev/null &
  pids+=("$!")
  for _ in $(seq 100); do grep -q "^agent listening on" "$OUT/agent$i.out" && break; sleep 0.05; done
  agents+=("$(sed -n 's/^agent listening on \([^ ]*\) .*/\1/p' "$OUT/agent$i.out")")
done
one="${agents[0]}"
four="$(IFS=,; echo "${agents[*]}")"

run() {  # run NAME [extra args]
  local name=$1
  shift
  "$UACTOR" load "${args[@]}" "$@" --json >>"$OUT/$name.jsonl" 2>>"$OUT/$name.err" ||
    echo "distributed_ab.sh: a $name run failed (see $OUT/$name.err)" >&2
}
for ((r = 0; r < ROUNDS; ++r)); do
  case $((r % 3)) in
    0) run local; run one_agent --agents "$one"; run four_agents --agents "$four" ;;
    1) run one_agent --agents "$one"; run four_agents --agents "$four"; run local ;;
    2) run four_agents --agents "$four"; run local; run one_agent --agents "$one" ;;
  esac
done

median() {  # median FILE JQ_EXPR
  jq -r "$2 // empty" "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else printf "n/a" }'
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, medians"
echo "# uactor load ${args[*]}"
printf "| %-11s | %12s | %14s | %13s | %13s | %14s | %9s | %9s | %12s | %13s |\n" run "requests/s" "server µs/req" \
  "server allocs" "server vcsw" "client µs/req" "p50 µs" "p99 µs" "skew ms" "collection ms"
printf "|%s|\n" "-------------|--------------|----------------|---------------|---------------|----------------|-----------|-----------|--------------|---------------"
for name in local one_agent four_agents; do
  f="$OUT/$name.jsonl"
  [[ -s $f ]] || { echo "| $name | no result |"; continue; }
  printf "| %-11s | %12s | %14s | %13s | %13s | %14s | %9s | %9s | %12s | %13s |\n" "$name" "$(median "$f" .requests_per_s)" \
    "$(median "$f" .server_cpu_us_per_req)" "$(median "$f" .server_allocs_per_req)" "$(median "$f" .server_vcsw_per_req)" \
    "$(median "$f" .client_cpu_us_per_req)" "$(median "$f" .latency_p50_us)" \
    "$(median "$f" .latency_p99_us)" "$(median "$f" .distributed.start_skew_ms)" "$(median "$f" .distributed.collection_ms)"
done
echo "(the JSON lines: $OUT)"
