#!/usr/bin/env bash
# Installs what uactor needs to build and test, from Debian packages and the npm registry only.
# Idempotent: when everything is there it checks and returns in a second or two.
# Usage: scripts/setup.sh [--fuzz]   (--fuzz adds clang, its runtime for the libFuzzer target and the
# llvm-symbolizer of the same version, without which sanitizer reports are raw addresses)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake ninja-build python3 ca-certificates openssl
          libcaf-dev libssl-dev libboost-dev libboost-system-dev libspdlog-dev catch2
          libcli11-dev libtomlplusplus-dev libbenchmark-dev libpugixml-dev prometheus-cpp-dev
          liblua5.4-dev liburing-dev libsqlite3-dev ccache jq)  # jq: docs/cli.md's --json examples (tests/runtime/docs_examples_test.py)
# Debian 12's clang is clang-14; llvm-14 holds /usr/lib/llvm-14/bin/llvm-symbolizer (.ci/run).
[[ "${1:-}" == "--fuzz" ]] && packages+=(clang libclang-rt-14-dev llvm-14)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node.js and npm for the interop tests: use what is there when it works (these machines may
# carry Node 20 with its own npm, whose package conflicts with Debian's npm); otherwise take
# Debian's (Node 18, npm 9).
node_ok() { command -v node >/dev/null && node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)'; }
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

apt_updated=
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  [[ -n "$apt_updated" ]] || { apt-get update -qq; apt_updated=1; }
  apt-get install -y -qq --no-install-recommends "$@"
}
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  apt_install "${missing[@]}"
fi
node_ok || { echo "setup: Node.js 18 or newer is needed for the interop tests; found $(node --version 2>&1)" >&2; exit 1; }

# node-opcua for the interop tests, exactly as locked.
if [[ -f tests/interop/package-lock.json ]]; then
  stamp=tests/interop/node_modules/.uactor-lock
  if ! cmp -s tests/interop/package-lock.json "$stamp" 2>/dev/null; then
    echo "setup: npm ci in tests/interop"
    (cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)
    cp tests/interop/package-lock.json "$stamp"
  fi
fi
