// Non-transparent server redundancy (OPC UA Part 4 §6.6.2): the failover modes a redundant server
// set offers and a client uses, and what a server declares about its set. Plain data, no CAF;
// server_plan (the server's side) and redundant_client (the client's side) include it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uactor {

// The RedundancySupport enumeration (Part 5 §12.5), the values the wire carries. Transparent (4)
// and HotAndMirrored (5) are not offered: a uactor server shares no session state with its peers.
enum class redundancy_support : std::uint8_t { none = 0, cold = 1, warm = 2, hot = 3 };

// "none", "cold", "warm", "hot".
inline std::string_view to_string(redundancy_support s) noexcept {
  switch (s) {
    case redundancy_support::cold: return "cold";
    case redundancy_support::warm: return "warm";
    case redundancy_support::hot: return "hot";
    default: return "none";
  }
}
inline std::optional<redundancy_support> parse_redundancy_support(std::string_view text) noexcept {
  for (auto s : {redundancy_support::none, redundancy_support::cold, redundancy_support::warm, redundancy_support::hot})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

// ServiceLevel sub-ranges (Part 4 §6.6.2.4.2, Table 109).
inline constexpr std::uint8_t service_level_maintenance = 0;  // being serviced: clients should go elsewhere
inline constexpr std::uint8_t service_level_no_data = 1;      // up, but delivers no data
inline constexpr std::uint8_t service_level_degraded_min = 2;  // 2..199: degraded
inline constexpr std::uint8_t service_level_healthy_min = 200;  // 200..255: healthy

// What a server says about its redundant set (config [redundancy], `uactor run --redundancy`,
// server_plan::redundancy). support none: the Server object's ServerRedundancy stays a plain
// ServerRedundancyType with RedundancySupport None.
struct redundancy_plan {
  redundancy_support support = redundancy_support::none;
  // ServerUriArray (Part 5 §6.3.8 NonTransparentRedundancyType): the ApplicationUris of every
  // server of the set (this one included). Required unless support is none.
  std::vector<std::string> server_uris;
  // ServiceLevel (i=2267) at start; the application changes it with server::set_service_level.
  std::uint8_t service_level = 255;
  // On stop: ServiceLevel goes to 0 (maintenance) this long before the sessions close, so that
  // subscribed clients switch to a backup while this server still answers (0: no wait).
  std::chrono::milliseconds shutdown_delay{0};
};

}  // namespace uactor
