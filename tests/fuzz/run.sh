#!/usr/bin/env bash
# Runs the message decoder fuzzer for a bounded time, seeded with node-opcua's message vectors
# and tests/fuzz/regressions (inputs that once failed; add new finds there), and beside it (a
# second lane, so that the stage takes about SECONDS on two cores) the NodeSet2 importer's fuzzer
# for half that time, seeded with tests/fuzz/nodeset_seeds, then the config parser, the HTTP door
# and the certificate chain split for a quarter each (seeds in tests/fuzz/config_seeds, the
# bad-file catalogue tests/runtime/config_bad, tests/fuzz/http_seeds and tests/fuzz/chain_seeds).
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with CXX=clang++
#        -DUACTOR_FUZZ=ON -DUACTOR_SANITIZE=address,undefined). Crashes land in BUILD_DIR/fuzz/.
#        UACTOR_FUZZ_LANES=1 runs the targets one after the other.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-60}
work="$build/fuzz"
mkdir -p "$work/corpus" "$work/nodeset_corpus" "$work/config_corpus" "$work/http_corpus" "$work/chain_corpus"
# Seeds: every message vector (the encoding NodeId and the body, as the decoder takes them).
while IFS= read -r name; do
  cp "$here/../interop/vectors/$name.bin" "$work/corpus/seed_$name"
done < <(grep '"kind": *"message"' "$here/../interop/vectors/manifest.json" | sed -E 's/.*"name": *"([^"]*)".*/\1/')
cp "$here"/regressions/* "$work/corpus/" 2>/dev/null || true
cp "$here"/nodeset_seeds/* "$work/nodeset_corpus/"
cp "$here"/config_seeds/* "$here"/../runtime/config_bad/*.toml "$work/config_corpus/"
cp "$here"/http_seeds/* "$work/http_corpus/"
cp "$here"/chain_seeds/* "$work/chain_corpus/"
cd "$work"

# fuzz TARGET SECONDS MAX_LEN CORPUS [libFuzzer options]: the run's last lines (its stats, or
# the crash and the input's file), and its exit status.
fuzz() {
  local target=$1 time=$2 max_len=$3 corpus=$4
  shift 4
  local rc=0
  "$build/tests/fuzz/$target" -max_total_time="$time" -max_len="$max_len" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 "$@" "$corpus" >"$target.log" 2>&1 || rc=$?
  printf '\n--- %s (%s s, exit %d)\n' "$target" "$time" "$rc"
  tail -n 25 "$target.log"
  return "$rc"
}

decoder_lane() {
  fuzz message_fuzz "$seconds" 65536 corpus
}
parsers_lane() {
  # The NodeSet2 importer (nodeset/importer.hpp), seeded with small valid files.
  fuzz nodeset_fuzz "$(( (seconds + 1) / 2 ))" 16384 nodeset_corpus -dict="$here/nodeset.dict" &&
  # The config file parser (runtime/config), seeded with good files and the bad-file catalogue.
  fuzz config_fuzz "$(( (seconds + 3) / 4 ))" 8192 config_corpus -dict="$here/config.dict" &&
  # The HTTP door (runtime/http): /metrics and /health requests, good and bad.
  fuzz http_fuzz "$(( (seconds + 3) / 4 ))" 16384 http_corpus &&
  # The certificate chain split (security/certificate.cpp): what a peer sends as its certificate.
  fuzz certificate_chain_fuzz "$(( (seconds + 3) / 4 ))" 20000 chain_corpus
}

if [[ "${UACTOR_FUZZ_LANES:-2}" == 1 ]]; then
  decoder_lane
  parsers_lane
  exit 0
fi
# Two lanes at once; each prints its runs when it ends, and a crash in either fails the script.
set +e
decoder_lane >decoder_lane.out 2>&1 &
decoder=$!
parsers_lane >parsers_lane.out 2>&1 &
parsers=$!
wait "$decoder"; decoder_rc=$?
wait "$parsers"; parsers_rc=$?
cat decoder_lane.out parsers_lane.out
exit $(( decoder_rc != 0 || parsers_rc != 0 ))
