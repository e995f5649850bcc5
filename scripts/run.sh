#!/usr/bin/env bash
# The main job: set up, build, and run the uactor runtime with its embedded default configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
exec "${BUILD_DIR:-build}/cli/uactor" run "$@"
