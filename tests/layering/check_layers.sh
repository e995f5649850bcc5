#!/usr/bin/env bash
# Checks the one-way dependencies of ../shared/DESIGN.md by the includes of each layer:
# protocol <- security <- actors <- runtime <- scenarios, and protocol/ free of CAF, Asio,
# Beast, OpenSSL and spdlog; security/ free of CAF, Asio and Beast; the public headers
# (include/uactor/) free of CAF, Asio, Beast and of runtime/ and scenarios/; nodeset/ (the NodeSet2
# importer) above protocol/ only: no security/, actors/, runtime/, scenarios/, no CAF, Asio or Beast;
# scripting/ (the script engine) likewise.
# Usage: check_layers.sh ROOT | check_layers.sh --self-test
set -uo pipefail

check() {
  local root=$1 failed=0
  declare -A forbidden=(
    [protocol]='"(security|actors|runtime|scenarios)/|<(caf|boost/asio|boost/beast|openssl|spdlog)/'
    [security]='"(actors|runtime|scenarios)/|<(caf|boost/asio|boost/beast)/'
    [actors]='"(runtime|scenarios)/'
    [runtime]='"scenarios/'
    [nodeset]='"(security|actors|runtime|scenarios)/|<(caf|boost/asio|boost/beast|openssl)/'
    [scripting]='"(security|actors|runtime|scenarios|nodeset)/|<(caf|boost/asio|boost/beast|openssl)/'
    [include]='"(runtime|scenarios)/|<(caf|boost/asio|boost/beast)/'
  )
  for layer in protocol nodeset scripting security actors runtime include; do
    [[ -d "$root/$layer" ]] || continue
    local hits
    hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*(${forbidden[$layer]})" "$root/$layer" \
             --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.ipp' 2>/dev/null)
    if [[ -n "$hits" ]]; then
      echo "layer $layer includes what it must not:"
      echo "$hits"
      failed=1
    fi
  done
  return $failed
}

if [[ "${1:-}" == "--self-test" ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/protocol" "$tmp/actors"
  echo '#include "actors/x.hpp"' > "$tmp/protocol/a.cpp"
  check "$tmp" >/dev/null && { echo "self-test: an upward include went unnoticed"; exit 1; }
  echo '#include <caf/all.hpp>' > "$tmp/protocol/a.cpp"
  check "$tmp" >/dev/null && { echo "self-test: CAF in protocol/ went unnoticed"; exit 1; }
  mkdir -p "$tmp/include/uactor"
  echo '#include <caf/actor.hpp>' > "$tmp/include/uactor/c.hpp"
  echo '#include "protocol/codec.hpp"' > "$tmp/protocol/a.cpp"
  check "$tmp" >/dev/null && { echo "self-test: CAF in a public header went unnoticed"; exit 1; }
  mkdir -p "$tmp/nodeset"
  echo '#include "engine/server/node_builder.hpp"' > "$tmp/nodeset/i.cpp"
  check "$tmp" >/dev/null && { echo "self-test: actors/ in nodeset/ went unnoticed"; exit 1; }
  echo '#include "protocol/address_space.hpp"' > "$tmp/nodeset/i.cpp"
  echo '#include "protocol/codec.hpp"' > "$tmp/include/uactor/c.hpp"
  echo '#include "protocol/codec.hpp"' > "$tmp/actors/b.cpp"
  check "$tmp" || { echo "self-test: a clean tree was refused"; exit 1; }
  echo "self-test: violations are caught"
  exit 0
fi

check "${1:?usage: check_layers.sh ROOT}" && echo "layers: includes point one way"
