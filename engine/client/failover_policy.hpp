// Which server of a redundant set a client uses (OPC UA Part 4 §6.6.2.4, non-transparent
// redundancy), as a pure function of what the client knows of each: connected or not, and its last
// ServiceLevel. No CAF, no clock: tests walk every rule (docs/decisions/0041).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace uactor::actors {

struct server_health {
  bool connected = false;
  int service_level = -1;  // the last ServiceLevel read or notified; -1 not known yet
};

inline constexpr std::size_t no_server = std::numeric_limits<std::size_t>::max();

// The server to use, given the one in use now (`active`, no_server for none):
// - usable: connected, ServiceLevel known and at least 2 (Part 4 §6.6.2.4.2: 0 maintenance and 1 no
//   data deliver nothing);
// - the active server stays while usable and healthy (>= healthy_min, 200 by Table 109), or while
//   usable and no other usable server has a higher ServiceLevel: two healthy servers never flap;
// - otherwise the usable server with the highest ServiceLevel (Part 4 §6.6.2.4.5.3: "the Server
//   with the highest ServiceLevel is the Active Server"), the first in the list on a tie;
// - no_server when none is usable.
std::size_t choose_server(std::span<const server_health> servers, std::size_t active, std::uint8_t healthy_min = 200) noexcept;

// Why the client leaves `active` for choose_server's answer: its connection failed (or it is not
// connected), or its ServiceLevel fell (below healthy_min, or out of the usable range).
enum class switch_cause : std::uint8_t { none, not_connected, service_level };
switch_cause why_switch(std::span<const server_health> servers, std::size_t active) noexcept;

}  // namespace uactor::actors
