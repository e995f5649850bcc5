#!/usr/bin/env bash
# Checks the one-way dependencies of docs/architecture.md by the includes of each room:
#   protocol <- security <- engine/common <- engine/server, engine/client <- actors <- runtime <- cli
# and nodeset/, scripting/ above protocol/ only; history/ (the historian's store) above protocol/
# only, below the server engine; pubsub/ (PubSub's encodings and state) above protocol/ only, free of
# CAF and the MQTT library, with the public PubSub model (uactor/pubsub.hpp). protocol/ is free of CAF, Asio, Beast, OpenSSL
# and spdlog; security/ and the engines of CAF, Asio and Beast; the server and client engines know
# nothing of each other; the script shards nothing of the server but the shape of a watched change
# (engine/server/value_watch.hpp); the public headers (include/uactor/) nothing but public headers
# (an installed application has no other include path) and its vocabulary (include/uactor/ua/:
# node ids, variants, status codes, the services' structures) nothing but itself, which is all the
# rooms below the engines may take of include/; the benchmarks of tests/ only the named fixtures
# (tests/support/alloc_counter and fault_proxy, tests/security/pki_test_support).
# Usage: check_layers.sh [ROOT] (the checkout it is in by default) | check_layers.sh --self-test
set -uo pipefail

check() {
  local root=$1 failed=0
  local above_engine='actors|runtime|cli|scenarios'
  declare -A forbidden=(
    [protocol]='"(security|engine|actors|runtime|cli|scenarios|nodeset|scripting)/|"uactor/(?!ua/)|<(caf|boost/asio|boost/beast|openssl|spdlog)/'
    [security]="\"(engine|${above_engine})/|\"uactor/(?!ua/)|<(caf|boost/asio|boost/beast)/"
    [engine/common]="\"(engine/server|engine/client|${above_engine})/|<(caf|boost/asio|boost/beast)/"
    [engine/server]="\"(engine/client|${above_engine})/|<(caf|boost/asio|boost/beast)/"
    [engine/client]="\"(engine/server|${above_engine})/|<(caf|boost/asio|boost/beast)/"
    [actors]='"(runtime|cli|scenarios)/'
    [actors/shards]='"actors/(server|client)/|"engine/(client/|server/(?!value_watch\.hpp))'
    [runtime]='"(cli|scenarios)/'
    [cli]='"scenarios/'
    [nodeset]='"(security|engine|actors|runtime|cli|scenarios)/|"uactor/(?!ua/)|<(caf|boost/asio|boost/beast|openssl)/'
    [scripting]='"(security|engine|actors|runtime|cli|scenarios|nodeset)/|"uactor/(?!ua/)|<(caf|boost/asio|boost/beast|openssl)/'
    [history]='"(security|engine|actors|runtime|cli|scenarios|nodeset|scripting)/|"uactor/(?!ua/)|<(caf|boost/asio|boost/beast|openssl|spdlog)/'
    [pubsub]='"(security|engine|actors|runtime|cli|scenarios|nodeset|scripting|history)/|"uactor/(?!ua/|pubsub\.hpp)|<(caf|boost/asio|boost/beast|openssl|spdlog|mosquitto)'
    [include]='"(?!uactor/)|<(caf|boost|openssl|spdlog)/'
    [include/uactor/ua]='"(?!uactor/ua/)'
    [bench]='"tests/(?!(support/alloc_counter|support/fault_proxy|security/pki_test_support)\.hpp)'
  )
  local room hits
  for room in "${!forbidden[@]}"; do
    [[ -d "$root/$room" ]] || continue
    hits=$(grep -rnP "^[[:space:]]*#[[:space:]]*include[[:space:]]*(${forbidden[$room]})" "$root/$room" \
             --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.ipp' 2>/dev/null)
    if [[ -n "$hits" ]]; then
      echo "$room includes what it must not:"
      echo "$hits"
      failed=1
    fi
  done
  return $failed
}

if [[ "${1:-}" == "--self-test" ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # A tree that keeps every rule, then one planted violation of each rule at a time.
  clean() {
    rm -rf "${tmp:?}"/*
    mkdir -p "$tmp"/{protocol,security,engine/common,engine/server,engine/client,actors/server,actors/shards,runtime,cli} \
             "$tmp"/{nodeset,scripting,history,pubsub,include/uactor/ua,bench/actors}
    echo '#include "protocol/codec.hpp"' > "$tmp/security/s.cpp"
    echo '#include "security/keys.hpp"' > "$tmp/engine/common/c.cpp"
    echo '#include "engine/common/clock.hpp"' > "$tmp/engine/server/s.cpp"
    echo '#include "engine/common/clock.hpp"' > "$tmp/engine/client/c.cpp"
    echo '#include "engine/server/server_core.hpp"' > "$tmp/actors/server/a.cpp"
    echo '#include "engine/server/value_watch.hpp"' > "$tmp/actors/shards/r.hpp"
    echo '#include "actors/server/server_actors.hpp"' > "$tmp/runtime/r.cpp"
    echo '#include "runtime/config/config.hpp"' > "$tmp/cli/m.cpp"
    echo '#include "protocol/address_space.hpp"' > "$tmp/nodeset/i.cpp"
    echo '#include "uactor/ua/variant.hpp"' > "$tmp/include/uactor/c.hpp"
    echo '#include "uactor/ua/builtin_types.hpp"' > "$tmp/include/uactor/ua/v.hpp"
    echo '#include "uactor/ua/variant.hpp"' > "$tmp/protocol/p.cpp"
    echo '#include "tests/support/alloc_counter.hpp"' > "$tmp/bench/actors/b.cpp"
    echo '#include "protocol/codec.hpp"' > "$tmp/history/h.cpp"
    echo '#include "history/history_store.hpp"' > "$tmp/engine/server/h.cpp"
    echo '#include "uactor/pubsub.hpp"' > "$tmp/pubsub/p.cpp"
  }
  clean
  check "$tmp" >/dev/null || { echo "self-test: a clean tree was refused"; check "$tmp"; exit 1; }
  planted=(
    'protocol/a.cpp|#include "engine/server/server_core.hpp"|an upward include from protocol/'
    'protocol/a.cpp|#include <caf/all.hpp>|CAF in protocol/'
    'security/b.cpp|#include "engine/common/clock.hpp"|the engine in security/'
    'engine/common/b.cpp|#include "engine/server/server_core.hpp"|the server engine in the common engine'
    'engine/server/b.cpp|#include "engine/client/channel_state.hpp"|the client engine in the server engine'
    'engine/client/b.cpp|#include "engine/server/session_manager.hpp"|the server engine in the client engine'
    'engine/server/b.cpp|#include <caf/actor.hpp>|CAF in the server engine'
    'engine/client/b.cpp|#include "actors/client/connection_actor.hpp"|an actor in the client engine'
    'actors/server/b.cpp|#include "runtime/scripts.hpp"|the runtime in actors/'
    'actors/shards/b.cpp|#include "engine/server/server_core.hpp"|server internals in the shards'
    'actors/shards/b.cpp|#include "actors/server/exchange.hpp"|the server actors in the shards'
    'runtime/b.cpp|#include "cli/client_cli.hpp"|the command line in runtime/'
    'nodeset/b.cpp|#include "engine/server/node_builder.hpp"|the engine in nodeset/'
    'scripting/b.cpp|#include "nodeset/importer.hpp"|nodeset/ in scripting/'
    'history/b.cpp|#include "engine/server/server_core.hpp"|the engine in history/'
    'history/b.cpp|#include <caf/actor.hpp>|CAF in history/'
    'pubsub/b.cpp|#include "engine/server/server_core.hpp"|the engine in pubsub/'
    'pubsub/b.cpp|#include <caf/actor.hpp>|CAF in pubsub/'
    'pubsub/b.cpp|#include <mosquitto.h>|the MQTT library in pubsub/'
    'pubsub/b.cpp|#include "uactor/server.hpp"|the public API beyond its model in pubsub/'
    'include/uactor/d.hpp|#include "actors/client/connection_actor.hpp"|an actor in a public header'
    'include/uactor/d.hpp|#include <caf/actor.hpp>|CAF in a public header'
    'include/uactor/d.hpp|#include "protocol/codec.hpp"|the library'"'"'s inside in a public header'
    'include/uactor/d.hpp|#include "engine/client/subscription.hpp"|an engine in a public header'
    'include/uactor/ua/d.hpp|#include "uactor/client.hpp"|the API in its vocabulary'
    'protocol/b.cpp|#include "uactor/server.hpp"|the public API in protocol/'
    'bench/actors/c.cpp|#include "tests/support/server_fixture.hpp"|a test fixture beyond the named ones in bench/'
  )
  for p in "${planted[@]}"; do
    IFS='|' read -r file line what <<<"$p"
    clean
    echo "$line" > "$tmp/$file"
    check "$tmp" >/dev/null && { echo "self-test: $what went unnoticed"; exit 1; }
  done
  echo "self-test: a clean tree passes, each of ${#planted[@]} planted violations is caught"
  exit 0
fi

check "${1:-$(cd "$(dirname "$0")/../.." && pwd)}" && echo "layers: includes point one way"
