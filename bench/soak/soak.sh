#!/usr/bin/env bash
# The soak (docs/performance.md "Soak"): a mixed load against one `uactor run` for MINUTES (default 60), the
# server's RSS, open file descriptors and allocations sampled each minute, and whether RSS and
# descriptors stay flat (within ±5 % of their mean) after the first 10 minutes of warm-up.
#   - 20 sessions x 8 Reads in flight (1 value each), the whole time;
#   - 4 sessions x 5 subscriptions of 100 monitored items (2,000 items on the demo Counter, changed
#     every second: 2,000 notifications/s), the whole time;
#   - reconnects: every 30 s a round of 10 new sessions that connect, Read for 10 s and close;
#     the samples fall between rounds, so that their descriptors compare.
# Loads run at nice 10 beside the server (nice 0), so that a shared machine stays usable.
#
#   bench/soak/soak.sh build/cli/uactor [MINUTES=60] [OUT_DIR]
#
# Prints one line per minute and the verdict; the samples are OUT_DIR/samples.tsv, each load's
# result OUT_DIR/*.out. Exit 0 when both stay flat, 1 otherwise, 2 on a setup problem.
set -uo pipefail
uactor="${1:?usage: soak.sh path/to/uactor [MINUTES] [OUT_DIR]}"
minutes="${2:-60}"
out="${3:-$(mktemp -d /tmp/uactor-soak.XXXXXX)}"
warmup_minutes=$(( minutes >= 20 ? 10 : minutes / 2 ))
mkdir -p "$out"
ulimit -n 20000 2>/dev/null || true
port=$(( 20000 + RANDOM % 20000 ))
url="opc.tcp://127.0.0.1:$port"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  [[ -n ${server:-} ]] && kill "$server" 2>/dev/null
  wait 2>/dev/null
}
trap cleanup EXIT

"$uactor" run --host 127.0.0.1 --port "$port" --security none --max-connections 200 --max-sessions 200 >"$out/server.out" 2>"$out/server.err" &
server=$!
for _ in $(seq 100); do grep -q '^listening on' "$out/server.out" 2>/dev/null && break; sleep 0.1; done
grep -q '^listening on' "$out/server.out" || { echo "soak: the server did not start"; cat "$out/server.err"; exit 2; }

seconds=$(( minutes * 60 ))
# The loads outlast the last sample: samples are taken on a schedule (one a minute from the start),
# and a sample after a load's end would count its sessions' descriptors as a change.
load_seconds=$(( seconds + 90 ))
nice -n 10 "$uactor" load --endpoint "$url" --scenario read --sessions 20 --inflight 8 --nodes 1 \
  --warmup 0 --duration "$load_seconds" >"$out/read.out" 2>&1 &
pids+=($!)
nice -n 10 "$uactor" load --endpoint "$url" --scenario sub --sessions 4 --subs 5 --nodes 100 --pub 100 \
  --warmup 0 --duration "$load_seconds" >"$out/sub.out" 2>&1 &
pids+=($!)

sample() {  # minute rss_kb fds allocations allocated_bytes cpu_ms
  kill -USR1 "$server"
  sleep 0.3
  local stats rss fds
  stats=$(grep '^stats ' "$out/server.out" | tail -n 1)
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$server/status")
  fds=$(ls "/proc/$server/fd" | wc -l)
  local allocs bytes user sys
  allocs=$(sed -n 's/.*allocs=\([0-9]*\).*/\1/p' <<<"$stats")
  bytes=$(sed -n 's/.*alloc_bytes=\([0-9]*\).*/\1/p' <<<"$stats")
  user=$(sed -n 's/.*cpu_user_us=\([0-9]*\).*/\1/p' <<<"$stats")
  sys=$(sed -n 's/.*cpu_system_us=\([0-9]*\).*/\1/p' <<<"$stats")
  printf '%d\t%s\t%s\t%s\t%s\t%d\n' "$1" "$rss" "$fds" "${allocs:-0}" "${bytes:-0}" $(( (${user:-0} + ${sys:-0}) / 1000 ))
}

printf 'minute\trss_kb\tfds\tallocations\tallocated_bytes\tcpu_ms\n' >"$out/samples.tsv"
echo "soak: $minutes min against $url (server pid $server), samples in $out/samples.tsv"
rounds=0
failed=0
reconnect_round() {
  nice -n 10 "$uactor" load --endpoint "$url" --scenario read --sessions 10 --inflight 1 --nodes 1 \
    --warmup 0 --duration 10 >"$out/reconnect.out" 2>&1
}
period=${SOAK_MINUTE_S:-60}  # shorter for a try of the script itself
sleep_until() { local now=$SECONDS; (( $1 > now )) && sleep $(( $1 - now )); }
start=$SECONDS
for ((m = 0; m <= minutes; m++)); do
  sleep_until $(( start + m * period ))
  kill -0 "$server" 2>/dev/null || { echo "soak: the server died at minute $m"; exit 1; }
  line=$(sample "$m")
  echo "$line" >>"$out/samples.tsv"
  echo "$line"
  (( m == minutes )) && break
  for half in 0 1; do
    sleep_until $(( start + m * period + half * period / 2 + 1 ))
    reconnect_round &
    round=$!
    wait "$round" || failed=$(( failed + 1 ))
    rounds=$(( rounds + 1 ))
  done
done
wait "${pids[@]:0:2}" 2>/dev/null  # the loads print their results when their window ends

# Flat: RSS and descriptors after warm-up within ±5 % of their mean.
awk -F'\t' -v w="$warmup_minutes" 'NR > 1 && $1 >= w {
    n++; r[n] = $2; f[n] = $3; rs += $2; fs += $3
  } END {
    rm = rs / n; fm = fs / n; ok = 1
    for (i = 1; i <= n; i++) {
      if (r[i] < rm * 0.95 || r[i] > rm * 1.05) ok = 0
      if (f[i] < fm * 0.95 || f[i] > fm * 1.05) ok = 0
      if (i == 1 || r[i] < rmin) rmin = r[i]; if (r[i] > rmax) rmax = r[i]
      if (i == 1 || f[i] < fmin) fmin = f[i]; if (f[i] > fmax) fmax = f[i]
    }
    printf "soak: after minute %d: RSS %.1f..%.1f MB (mean %.1f), descriptors %d..%d (mean %.1f): %s\n",
           w, rmin / 1024, rmax / 1024, rm / 1024, fmin, fmax, fm, ok ? "flat" : "NOT flat"
    exit ok ? 0 : 1
  }' "$out/samples.tsv"
verdict=$?
echo "soak: reconnect rounds $rounds, failed $failed"
grep -h -E 'requests/s|lost|notifications' "$out/read.out" "$out/sub.out" | head -n 8
exit "$verdict"
