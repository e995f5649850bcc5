#!/usr/bin/env bash
# Rewrites the channel fuzz targets' seeds (tests/fuzz/{server_channel,client_channel,
# secured_chunk}_seeds) from our client and server states talking to each other. Run after a
# change of the wire format or of tests/fuzz/channel_keys, then commit the seeds.
# Usage: tests/fuzz/make_channel_seeds.sh BUILD_DIR   (the fuzz build: channel_seeds is built there)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make_channel_seeds.sh BUILD_DIR}
cmake --build "$build" --target channel_seeds
rm -rf "$here"/server_channel_seeds "$here"/client_channel_seeds "$here"/secured_chunk_seeds
"$build/tests/fuzz/channel_seeds" "$here"
