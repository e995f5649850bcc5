#include "engine/server/history_recorder.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "engine/server/history_configuration.hpp"

namespace uactor::actors {

// The node's name and collection state, configured from the nodes once per settings generation.
history_recorder::node_entry& history_recorder::entry(const ua::address_space& as, ua::node_index n) {
  auto it = nodes_.find(n);
  if (it == nodes_.end()) it = nodes_.emplace(n, node_entry{as.at(n).id.to_node_id().to_string(), 0, {}}).first;
  node_entry& e = it->second;
  if (e.generation != generation_) {
    e.generation = generation_;
    const collection_settings s = collection_for(as, n);
    std::optional<double> span;
    if (s.exception_deviation > 0 && (s.format == deviation_format::percent_of_range || s.format == deviation_format::percent_of_eu_range)) {
      span = deviation_range_span(as, n, s.format);
      if (!span)
        spdlog::warn("history: {} has no {} to take its ExceptionDeviation's percentage of: every change is stored", e.name,
                     s.format == deviation_format::percent_of_range ? "InstrumentRange" : "EURange");
    }
    e.collection.configure(s, span);
    const bool listed = std::find(with_max_interval_.begin(), with_max_interval_.end(), n) != with_max_interval_.end();
    if (e.collection.max_interval_ticks() > 0 && !listed) with_max_interval_.push_back(n);
  }
  return e;
}

// MaxTimeInterval (Part 11 §5.2.2): a Variable whose last stored value is that old gets its held
// value (the address space's) stored again at the last stored time plus the interval, so that the
// history has a point at least every MaxTimeInterval; caught up to now, at most
// max_repeats_per_tick at a time.
void history_recorder::repeat_due(const ua::address_space& as) {
  const ua::date_time now = repeat_at_;
  repeat_at_ = {};
  for (const ua::node_index n : with_max_interval_) {
    node_entry& e = entry(as, n);
    const ua::variable_data* var = as.variable(n);
    if (!var || !var->historizing) continue;
    for (int i = 0; i < max_repeats_per_tick; ++i) {
      const auto at = e.collection.due(now.ticks);
      if (!at) break;
      ua::data_value v = var->value;
      v.source_timestamp = ua::date_time{*at};
      v.has_source_timestamp = true;
      v.source_picoseconds = 0;
      v.has_source_picoseconds = false;
      v.server_timestamp = now;
      v.has_server_timestamp = true;
      e.collection.repeated(v, *at);
      pending_.push_back({n, std::move(v), true});
      ++repeated_;
    }
  }
}

void history_recorder::flush(const ua::address_space& as) {
  if (pending_.empty() && repeat_at_.ticks == 0) return;
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
  const auto take = [&](std::vector<change>& changes) {
    for (change& c : changes) {
      node_entry& e = entry(as, c.node);
      if (!c.as_is && e.collection.active() && !e.collection.admit(c.value, history::record_time(c.value))) {
        ++filtered_;
        continue;
      }
      batch.push_back({e.name, std::move(c.value)});
      if (batch.size() == batch_size_) hand_on();
    }
    changes.clear();
  };
  take(pending_);  // this message's values first: one of them may be the point the interval wanted
  if (repeat_at_.ticks != 0 && sink_) {
    repeat_due(as);
    take(pending_);
  }
  repeat_at_ = {};
  if (!batch.empty()) hand_on();
}

}  // namespace uactor::actors
