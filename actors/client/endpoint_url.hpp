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
};
// Part 6 §7.1.2.3 / §12.1: opc.tcp://host[:port][/path]; Bad_TcpEndpointUrlInvalid otherwise.
ua::expected<endpoint_address> parse_endpoint_url(std::string_view url);

}  // namespace uactor::actors
