// A server_core over namespace 0 and the demo namespace with a predictable random source, and the
// instants the tests give it: what the server engine's tests drive requests through.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>

#include "engine/server/server_core.hpp"
#include "runtime/namespaces/demo_namespace.hpp"

namespace uactor::test {

// `ms` milliseconds after a fixed start, on both clocks.
inline actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

inline actors::server_core make_core() {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

}  // namespace uactor::test
