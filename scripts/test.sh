#!/usr/bin/env bash
# Set up, build, and pass every test: unit tests, the decoder grind, the node-opcua vectors,
# the layering check and (with the schema present) the generator check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
# Twice as many tests as cores: most of them wait (on node-opcua's start, on sockets, on timers);
# docs/decisions/0029 has the measurement.
ctest --output-on-failure -j "${TEST_JOBS:-$(($(nproc) * 2))}" --timeout 600
