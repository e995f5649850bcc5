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
          liblua5.4-dev liburing-dev libsqlite3-dev ccache jq  # jq: docs/cli.md's --json examples (tests/runtime/docs_examples_test.py)
          libmosquitto-dev mosquitto  # PubSub over MQTT: the client library, and the broker its tests start (docs/pubsub.md)
          libpq-dev postgresql  # the history store on PostgreSQL: the client library, and the server its tests start (docs/history.md)
          chromium)  # a browser reaching opc.wss: tests/interop/wss_browser.sh starts it headless (docs/wss.md)
# Debian 12's clang is clang-14; llvm-14 holds /usr/lib/llvm-14/bin/llvm-symbolizer (.ci/run).
[[ "${1:-}" == "--fuzz" ]] && packages+=(clang libclang-rt-14-dev llvm-14)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node.js and npm for the interop tests: use what is there when it works (these machines may
# carry Node 20 with its own npm, whose package conflicts with Debian's npm); otherwise take
# Debian's (Debian 12: Node 18, npm 9; Debian 13: Node 20.19).
node_ok() { command -v node >/dev/null && node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)'; }
# node-opcua 2.183 and later are ES modules that the interop scripts load with require(): that needs
# Node 20.19 or newer (22.12 on the 22 line). Node 18 installs them (npm warns EBADENGINE: they
# declare node >= 22.13) but cannot load them.
node_loads_esm() {
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)'
}
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

# node-opcua 2.18x loads only on Node 20.19 or newer. With an older system Node (Debian 12's apt
# gives 18), Node itself comes from the npm registry (node-linux-<arch>: the nodejs.org build as
# an npm package) into tests/interop/.node; npm ci below and the tests (tests/CMakeLists.txt) run
# with it first in PATH.
interop_node_version=20.19.5
interop_node_bin=$PWD/tests/interop/.node/node_modules/.bin
if [[ -f tests/interop/package-lock.json ]] && ! node_loads_esm; then
  case "$(uname -m)" in x86_64) node_arch=x64 ;; aarch64) node_arch=arm64 ;; *) node_arch= ;; esac
  if [[ -n $node_arch && ! -x $interop_node_bin/node ]]; then
    echo "setup: Node $(node --version) cannot load node-opcua 2.18x; Node $interop_node_version for the" \
         "interop tests from the npm registry (node-linux-$node_arch) into tests/interop/.node"
    npm install --prefix tests/interop/.node --no-save --no-audit --no-fund --loglevel=error \
      "node-linux-$node_arch@$interop_node_version" || echo "setup: that failed; the interop tests will be skipped" >&2
  fi
  if [[ -x $interop_node_bin/node ]]; then export PATH=$interop_node_bin:$PATH; fi
fi

# node-opcua for the interop tests, exactly as locked. With a Node that cannot load it, no
# node_modules at all (npm ci would replace it anyway): the interop tests then skip (exit 77)
# instead of failing, or running an older node-opcua than the lock names.
if [[ -f tests/interop/package-lock.json ]] && ! node_loads_esm; then
  echo "setup: the interop tests need Node.js 20.19 or newer for node-opcua 2.18x (found $(node --version));" \
       "they will be skipped" >&2
  rm -rf tests/interop/node_modules
elif [[ -f tests/interop/package-lock.json ]]; then
  stamp=tests/interop/node_modules/.uactor-lock
  if ! cmp -s tests/interop/package-lock.json "$stamp" 2>/dev/null; then
    echo "setup: npm ci in tests/interop"
    (cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)
    cp tests/interop/package-lock.json "$stamp"
  fi
fi
