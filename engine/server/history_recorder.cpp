#include "engine/server/history_recorder.hpp"

#include <spdlog/spdlog.h>

namespace uactor::actors {

void history_recorder::flush(const ua::address_space& as) {
  if (pending_.empty()) return;
  std::vector<history::record> batch;
  batch.reserve(std::min(pending_.size(), batch_size_));
  const auto hand_on = [&] {
    const std::size_t n = batch.size();
    if (!sink_(std::move(batch))) {
      // Logged at the first drop and then at every power of two: a full queue stays visible
      // without a line per batch.
      dropped_ += n;
      if (dropped_ >= 2 * drops_logged_at_ || drops_logged_at_ == 0) {
        spdlog::warn("history: the historian's queue is full, {} values dropped so far", dropped_);
        drops_logged_at_ = dropped_;
      }
    }
    batch.clear();
  };
  for (change& c : pending_) {
    auto it = names_.find(c.node);
    if (it == names_.end()) it = names_.emplace(c.node, as.at(c.node).id.to_node_id().to_string()).first;
    batch.push_back({it->second, std::move(c.value)});
    if (batch.size() == batch_size_) hand_on();
  }
  if (!batch.empty()) hand_on();
  pending_.clear();
}

}  // namespace uactor::actors
