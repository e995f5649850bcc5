#!/usr/bin/env bash
# Runs every libFuzzer target for a bounded time in two lanes at once that end together, so that
# the stage takes about 5/4 x SECONDS of wall time on two cores (150 s and some start-up for CI's
# 120; docs/fuzzing.md):
#   decoder lane: the message decoder for 19/24 of SECONDS, seeded with node-opcua's message
#     vectors and tests/fuzz/regressions (inputs that once failed; add new finds there), then for a
#     twelfth each the server's UA-TCP handshake and chunk path, its secured chunk path (each input
#     opens a channel with RSA, some 4 ms), the client's response decoding (tests/fuzz/
#     server_channel_seeds, secured_chunk_seeds, client_channel_seeds, and the inputs in
#     tests/fuzz/channel_regressions/NAME), the script workers' frames (tests/fuzz/frames_seeds)
#     and opc.wss's frames (tests/fuzz/wss_frames_seeds), and for a twenty-fourth the
#     EccEncryptedSecret of ECC UserName tokens (tests/fuzz/ecc_secret_seeds);
#   parsers lane: the NodeSet2 importer for 2/12 of SECONDS (tests/fuzz/nodeset_seeds), then the
#     config parser, the HTTP door and the certificate chain split for a quarter each (seeds in
#     tests/fuzz/config_seeds, the bad-file catalogue tests/runtime/config_bad, tests/fuzz/http_seeds
#     and tests/fuzz/chain_seeds), the load agents' wire form for a twelfth
#     (tests/fuzz/agent_wire_seeds), and the users file, the historian's spool frames, PubSub's JSON
#     messages, UADP datagrams, the TrustList's bytes and mDNS's DNS messages for a twenty-fourth
#     each (users_seeds, spool_seeds, pubsub_json_seeds, uadp_seeds, trust_list_seeds, mdns_seeds).
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with CXX=clang++
#        -DUACTOR_FUZZ=ON -DUACTOR_SANITIZE=address,undefined). Crashes land in BUILD_DIR/fuzz/.
#        UACTOR_FUZZ_LANES=1 runs the targets one after the other.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [SECONDS]}" && pwd)
seconds=${2:-60}
work="$build/fuzz"
mkdir -p "$work/corpus" "$work/nodeset_corpus" "$work/config_corpus" "$work/http_corpus" "$work/chain_corpus" \
  "$work/server_channel_corpus" "$work/secured_chunk_corpus" "$work/client_channel_corpus" \
  "$work/frames_corpus" "$work/agent_wire_corpus" "$work/users_corpus" "$work/pubsub_json_corpus" \
  "$work/trust_list_corpus" "$work/wss_frames_corpus" "$work/uadp_corpus" "$work/ecc_secret_corpus" \
  "$work/spool_corpus" "$work/mdns_corpus"
# Seeds: every message vector (the encoding NodeId and the body, as the decoder takes them).
while IFS= read -r name; do
  cp "$here/../interop/vectors/$name.bin" "$work/corpus/seed_$name"
done < <(grep '"kind": *"message"' "$here/../interop/vectors/manifest.json" | sed -E 's/.*"name": *"([^"]*)".*/\1/')
cp "$here"/regressions/* "$work/corpus/" 2>/dev/null || true
cp "$here"/nodeset_seeds/* "$work/nodeset_corpus/"
cp "$here"/config_seeds/* "$here"/../runtime/config_bad/*.toml "$work/config_corpus/"
cp "$here"/http_seeds/* "$work/http_corpus/"
cp "$here"/chain_seeds/* "$work/chain_corpus/"
cp "$here"/frames_seeds/* "$work/frames_corpus/"
cp "$here"/agent_wire_seeds/* "$work/agent_wire_corpus/"
cp "$here"/users_seeds/* "$work/users_corpus/"
cp "$here"/pubsub_json_seeds/* "$work/pubsub_json_corpus/"
cp "$here"/trust_list_seeds/* "$work/trust_list_corpus/"
cp "$here"/wss_frames_seeds/* "$work/wss_frames_corpus/"
cp "$here"/uadp_seeds/* "$work/uadp_corpus/"
cp "$here"/mdns_seeds/* "$work/mdns_corpus/"
cp "$here"/ecc_secret_seeds/* "$work/ecc_secret_corpus/"
cp "$here"/spool_seeds/* "$work/spool_corpus/"
for name in server_channel secured_chunk client_channel; do
  cp "$here/${name}_seeds"/* "$work/${name}_corpus/"
  cp "$here/channel_regressions/$name"/* "$work/${name}_corpus/" 2>/dev/null || true
done
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
  fuzz message_fuzz "$(( seconds * 19 / 24 ))" 65536 corpus &&
  # The server's channel state (actors/server/secure_channel_state): what a client's socket delivers.
  fuzz server_channel_fuzz "$(( (seconds + 11) / 12 ))" 65536 server_channel_corpus &&
  # Its secured chunk path: MSG/CLO signed and encrypted with a real channel's keys.
  fuzz secured_chunk_fuzz "$(( (seconds + 11) / 12 ))" 65536 secured_chunk_corpus &&
  # The client's channel state (actors/client/channel_state): what a hostile server answers.
  fuzz client_channel_fuzz "$(( (seconds + 11) / 12 ))" 65536 client_channel_corpus &&
  # The script workers' frames (scripting/frames): what a worker process writes to its supervisor.
  fuzz frames_fuzz "$(( (seconds + 11) / 12 ))" 65536 frames_corpus &&
  # opc.wss's frames (protocol/ws_uacp behind Beast's parser): what a browser or a client sends
  # after the upgrade.
  fuzz wss_frames_fuzz "$(( (seconds + 11) / 12 ))" 65536 wss_frames_corpus &&
  # The EccEncryptedSecret of a UserName token over an ECC policy (security/ecc_encrypted_secret):
  # what a client sends in ActivateSession (each input signed again, so that mutations pass the
  # signature check and reach the decryption).
  fuzz ecc_encrypted_secret_fuzz "$(( (seconds + 23) / 24 ))" 65536 ecc_secret_corpus
}
parsers_lane() {
  # The NodeSet2 importer (nodeset/importer.hpp), seeded with small valid files.
  fuzz nodeset_fuzz "$(( seconds * 2 / 12 ))" 16384 nodeset_corpus -dict="$here/nodeset.dict" &&
  # The config file parser (runtime/config), seeded with good files and the bad-file catalogue.
  fuzz config_fuzz "$(( (seconds + 3) / 4 ))" 8192 config_corpus -dict="$here/config.dict" &&
  # The HTTP door (runtime/http): /metrics and /health requests, good and bad.
  fuzz http_fuzz "$(( (seconds + 3) / 4 ))" 16384 http_corpus &&
  # The certificate chain split (security/certificate.cpp): what a peer sends as its certificate.
  fuzz certificate_chain_fuzz "$(( (seconds + 3) / 4 ))" 20000 chain_corpus &&
  # The load agents' job and report blobs (scenarios/agent_wire): bytes from whoever reaches an
  # agent's port.
  fuzz agent_wire_fuzz "$(( (seconds + 11) / 12 ))" 65536 agent_wire_corpus &&
  # The users file (security/password_hash.cpp, server.users_file): user:hash lines.
  fuzz users_fuzz "$(( (seconds + 23) / 24 ))" 65536 users_corpus &&
  # The historian's spool frames (history/spool_file): a file on disk a crash cut or a disk damaged.
  fuzz spool_fuzz "$(( (seconds + 23) / 24 ))" 65536 spool_corpus &&
  # PubSub's JSON decoder (pubsub/json_messages): what an MQTT broker hands a subscriber.
  fuzz pubsub_json_fuzz "$(( (seconds + 23) / 24 ))" 65536 pubsub_json_corpus &&
  # PubSub's UADP decoder (pubsub/uadp_messages): what a UDP socket hands a subscriber.
  fuzz uadp_fuzz "$(( (seconds + 23) / 24 ))" 65536 uadp_corpus &&
  # The TrustList's bytes (Part 12 §7.8.2.3 CloseAndUpdate): what a certificate manager writes.
  fuzz trust_list_fuzz "$(( (seconds + 23) / 24 ))" 65536 trust_list_corpus &&
  # mDNS's DNS messages (protocol/mdns): what the LDS-ME's multicast socket hands it (half of the
  # TrustList's twelfth).
  fuzz mdns_fuzz "$(( (seconds + 23) / 24 ))" 9000 mdns_corpus
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
