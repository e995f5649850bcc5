#!/usr/bin/env bash
# Configures and builds uactor into build/ (or $BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
# ccache when the machine has it (setup.sh installs it): paths relative to the checkout and the
# build folder left out of the hash, so that another clone or build folder of the same sources
# (CI's clone, a worktree, the sanitizer builds' second configure) compiles from the cache.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DUACTOR_WERROR=ON \
    "${launcher[@]}" "$@"
elif (($#)); then
  cmake "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "$jobs"
