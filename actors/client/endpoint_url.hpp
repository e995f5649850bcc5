// The host and port of an opc.tcp endpoint URL: what the client connects to. Apart from the actor
// because the runtime resolves endpoints with it before any actor exists.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "uactor/ua/expected.hpp"

namespace uactor::actors {

struct endpoint_address {
  std::string host;
  std::uint16_t port = 4840;
  bool wss = false;   // opc.wss:// (Part 6 §7.5): TLS and a WebSocket (actors/wss/)
  std::string path;   // opc.wss: the request target of the upgrade ("/" when the URL has none)
};
// Part 6 §7.1.2.3 / §12.1: opc.tcp://host[:port][/path], or opc.wss://host[:port][/path] (the port
// 4843 when absent, as docs/wss.md); Bad_TcpEndpointUrlInvalid otherwise.
ua::expected<endpoint_address> parse_endpoint_url(std::string_view url);

}  // namespace uactor::actors
