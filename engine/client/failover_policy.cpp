// Part 4 §6.6.2.4: choosing the active server of a non-transparent redundant set.
#include "engine/client/failover_policy.hpp"

namespace uactor::actors {

namespace {

bool usable(const server_health& s) noexcept { return s.connected && s.service_level >= 2; }

}  // namespace

std::size_t choose_server(std::span<const server_health> servers, std::size_t active, std::uint8_t healthy_min) noexcept {
  std::size_t best = no_server;
  for (std::size_t i = 0; i < servers.size(); ++i)
    if (usable(servers[i]) && (best == no_server || servers[i].service_level > servers[best].service_level)) best = i;
  if (active < servers.size() && usable(servers[active])) {
    const auto& a = servers[active];
    if (a.service_level >= healthy_min) return active;
    if (best == no_server || servers[best].service_level <= a.service_level) return active;
  }
  return best;
}

switch_cause why_switch(std::span<const server_health> servers, std::size_t active) noexcept {
  if (active >= servers.size()) return switch_cause::none;
  if (!servers[active].connected) return switch_cause::not_connected;
  return switch_cause::service_level;
}

}  // namespace uactor::actors
