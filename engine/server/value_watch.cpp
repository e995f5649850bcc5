#include "engine/server/value_watch.hpp"

namespace uactor::actors {

std::uint32_t value_watches::add(ua::address_space& as, std::span<const ua::node_index> nodes, watch_sink sink) {
  const auto id = static_cast<std::uint32_t>(watches_.size());
  auto& w = watches_.emplace_back();
  w.sink = std::move(sink);
  for (std::uint32_t slot = 0; slot < nodes.size(); ++slot) {
    const ua::node_index n = nodes[slot];
    const ua::variable_data* var = n < as.size() ? as.variable(n) : nullptr;
    if (!var) continue;
    if (by_node_.size() <= n) by_node_.resize(n + 1);
    by_node_[n].emplace_back(id, slot);
    as.set_monitored(n, true);
    w.pending.push_back({slot, var->value});
  }
  any_pending_ = any_pending_ || !w.pending.empty();
  return id;
}

void value_watches::remove(std::uint32_t id) {
  if (id >= watches_.size()) return;
  watches_[id].sink = nullptr;
  watches_[id].pending.clear();
  for (auto& entries : by_node_)
    std::erase_if(entries, [id](const auto& e) { return e.first == id; });
}

void value_watches::flush() {
  if (!any_pending_) return;
  any_pending_ = false;
  for (auto& w : watches_) {
    if (w.pending.empty() || !w.sink) continue;
    watched_changes out;
    out.swap(w.pending);
    w.pending.reserve(out.size());
    w.sink(std::move(out));
  }
}

}  // namespace uactor::actors
