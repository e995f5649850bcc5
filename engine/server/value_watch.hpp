// Watches of value changes for the application's own consumers (the script runners, docs/decisions/0020):
// every Value stored for a watched variable, from a client's Write or a value batch, is collected
// while the host handles one message and handed to the watch's sink in one call after it, so a
// burst of changes costs the consumer one message. Plain state, owned by server_core.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "protocol/address_space.hpp"

namespace uactor::actors {

struct watched_change {
  std::uint32_t slot = 0;  // the position of the node in the watch's list
  ua::data_value value;
};
using watched_changes = std::vector<watched_change>;
using watch_sink = std::function<void(watched_changes&&)>;

class value_watches {
public:
  // Watches `nodes` (Variables; slot i is nodes[i]): their current values go to the sink at the
  // next flush, then every change. Returns the watch's id (for remove).
  std::uint32_t add(ua::address_space& as, std::span<const ua::node_index> nodes, watch_sink sink);
  void remove(std::uint32_t id);
  // From the address space's fan-out, for every stored value of a monitored node.
  void value_changed(ua::node_index n, const ua::data_value& v) {
    if (n >= by_node_.size()) return;
    for (const auto& [watch, slot] : by_node_[n]) {
      auto& w = watches_[watch];
      if (!w.sink) continue;
      w.pending.push_back({slot, v});
      any_pending_ = true;
    }
  }
  // Hands what was collected to the sinks (on the host, after each message).
  void flush();

private:
  struct watch {
    watch_sink sink;
    watched_changes pending;
  };
  std::vector<watch> watches_;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> by_node_;  // node -> (watch, slot)
  bool any_pending_ = false;
};

}  // namespace uactor::actors
