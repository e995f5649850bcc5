#!/usr/bin/env bash
# Runs the message decoder fuzzer for a bounded time, seeded with node-opcua's message vectors
# and tests/fuzz/regressions (inputs that once failed; add new finds there), then the NodeSet2
# importer's fuzzer for half that time, seeded with tests/fuzz/nodeset_seeds, then the config
# parser, the HTTP door and the certificate chain split for a quarter each (seeds in
# tests/fuzz/config_seeds, the bad-file catalogue tests/runtime/config_bad, tests/fuzz/http_seeds
# and tests/fuzz/chain_seeds).
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with CXX=clang++
#        -DUACTOR_FUZZ=ON -DUACTOR_SANITIZE=address,undefined). Crashes land in BUILD_DIR/fuzz/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-60}
work="$build/fuzz"
mkdir -p "$work/corpus"
# Seeds: every message vector (the encoding NodeId and the body, as the decoder takes them).
while IFS= read -r name; do
  cp "$here/../interop/vectors/$name.bin" "$work/corpus/seed_$name"
done < <(grep '"kind": *"message"' "$here/../interop/vectors/manifest.json" | sed -E 's/.*"name": *"([^"]*)".*/\1/')
cp "$here"/regressions/* "$work/corpus/" 2>/dev/null || true
cd "$work"
"$build/tests/fuzz/message_fuzz" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 corpus 2>&1 | tail -n 25

# The NodeSet2 importer (nodeset/importer.hpp), seeded with small valid files.
mkdir -p "$work/nodeset_corpus"
cp "$here"/nodeset_seeds/* "$work/nodeset_corpus/"
"$build/tests/fuzz/nodeset_fuzz" -max_total_time="$(( (seconds + 1) / 2 ))" -max_len=16384 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 -dict="$here/nodeset.dict" nodeset_corpus 2>&1 | tail -n 25

# The config file parser (runtime/config), seeded with good files and the bad-file catalogue.
mkdir -p "$work/config_corpus"
cp "$here"/config_seeds/* "$here"/../runtime/config_bad/*.toml "$work/config_corpus/"
"$build/tests/fuzz/config_fuzz" -max_total_time="$(( (seconds + 3) / 4 ))" -max_len=8192 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 -dict="$here/config.dict" config_corpus 2>&1 | tail -n 25

# The HTTP door (runtime/http): /metrics and /health requests, good and bad.
mkdir -p "$work/http_corpus"
cp "$here"/http_seeds/* "$work/http_corpus/"
"$build/tests/fuzz/http_fuzz" -max_total_time="$(( (seconds + 3) / 4 ))" -max_len=16384 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 http_corpus 2>&1 | tail -n 25

# The certificate chain split (security/certificate.cpp): what a peer sends as its certificate.
mkdir -p "$work/chain_corpus"
cp "$here"/chain_seeds/* "$work/chain_corpus/"
"$build/tests/fuzz/certificate_chain_fuzz" -max_total_time="$(( (seconds + 3) / 4 ))" -max_len=20000 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 chain_corpus 2>&1 | tail -n 25
