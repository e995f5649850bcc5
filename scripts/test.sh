#!/usr/bin/env bash
# Set up, build, and pass every test: unit tests, the decoder grind, the node-opcua vectors,
# the layering check and (with the schema present) the generator check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600
