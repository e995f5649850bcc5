#!/usr/bin/env bash
# tests/fuzz/cpu_time.sh BUILD_DIR TARGET CPU_SECONDS CORPUS_DIR [libFuzzer options]
#
# Runs one fuzz target until it has used CPU_SECONDS of CPU (user + system, read from /proc),
# not of wall time: libFuzzer's -max_total_time counts wall time, which on a shared machine (or
# at nice 19 beside builds) is not the CPU-hour docs/fuzzing.md records. The target gets SIGINT
# then, so it prints its final stats. CORPUS_DIR is kept (and grows): a second call continues
# where the first stopped. The target's max_len and dictionary are those of run.sh. Prints the
# CPU seconds used and the log's last lines; exits with the target's status (0 on the SIGINT).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,9p' "$0"; exit 2; }
build=$(cd "$1" && pwd) target=$2 cpu_limit=$3 corpus=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)

case $target in
  nodeset_fuzz) opts=(-max_len=16384 "-dict=$here/nodeset.dict") ;;
  config_fuzz) opts=(-max_len=8192 "-dict=$here/config.dict") ;;
  http_fuzz) opts=(-max_len=16384) ;;
  certificate_chain_fuzz) opts=(-max_len=20000) ;;
  *) opts=(-max_len=65536) ;;
esac

mkdir -p "$corpus"
log=$corpus.log
"$build/tests/fuzz/$target" -max_total_time=86400 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 "${opts[@]}" "$@" "$corpus" >"$log" 2>&1 &
pid=$!
ticks=$(getconf CLK_TCK)
used=0
# utime and stime are fields 14 and 15 of /proc/PID/stat (after the command name's parentheses).
while kill -0 "$pid" 2>/dev/null; do
  fields=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || break
  read -r -a f <<<"$fields"
  used=$(( (f[11] + f[12]) / ticks ))
  if (( used >= cpu_limit )); then kill -INT "$pid"; break; fi
  sleep 5
done
rc=0
wait "$pid" || rc=$?
(( rc == 130 || rc == 72 )) && rc=0 # libFuzzer's exit on SIGINT (72 = -interrupted_exitcode)
printf '%s: %d CPU seconds, exit %d\n' "$target" "$used" "$rc"
tail -n 20 "$log"
exit "$rc"
