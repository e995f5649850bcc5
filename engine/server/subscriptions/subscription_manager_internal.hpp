// The state behind subscription_manager, shared by the files that implement it (the manager
// itself, the Subscription services, the MonitoredItem services, publishing): its items,
// subscriptions and sessions, and the few helpers more than one of them uses. Private to this
// folder; docs/decisions/0010.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/server/services/index_range.hpp"
#include "engine/server/subscriptions/event_filter.hpp"
#include "engine/server/subscriptions/subscription_manager.hpp"

namespace uactor::actors {

using steady_time = std::chrono::steady_clock::time_point;

constexpr std::uint32_t value_attribute = static_cast<std::uint32_t>(ua::attribute_id::value);
constexpr std::uint32_t event_notifier_attribute = static_cast<std::uint32_t>(ua::attribute_id::event_notifier);

inline steady_time after_ms(steady_time t, double ms) {
  return t + std::chrono::duration_cast<steady_time::duration>(std::chrono::duration<double, std::milli>(ms));
}

inline std::uint32_t next_sequence(std::uint32_t s) { return s == 0xFFFF'FFFFu ? 1 : s + 1; }  // 0 is never used

// ---------------------------------------------------------------------------------------------
// State

struct subscription_manager::item {
  std::uint32_t id = 0;
  subscription* sub = nullptr;
  ua::node_index node = ua::no_node;
  std::uint32_t attribute = value_attribute;
  std::uint32_t client_handle = 0;
  ua::monitoring_mode mode = ua::monitoring_mode::reporting;
  double sampling_ms = 0;  // 0: every change (the change hook); > 0: sampled on the tick
  ua::timestamps_to_return timestamps = ua::timestamps_to_return::both;
  // The queue (§5.12.1.5): a ring that grows to queue_size as values come.
  std::uint32_t queue_size = 1;
  bool discard_oldest = true;
  std::vector<ua::data_value> queue;
  std::size_t head = 0;
  std::size_t count = 0;
  // The filter (§7.22.2); percent deadbands are turned into absolute ones with the EURange.
  ua::data_change_trigger trigger = ua::data_change_trigger::status_value;
  bool deadband = false;
  double deadband_abs = 0;
  services::numeric_range range;
  ua::data_value last;  // the last value queued, for the filter
  bool has_last = false;
  bool in_ready = false;   // in sub->ready
  bool triggered = false;  // reported because a triggering item fired (§5.12.1.6)
  bool pending = false;    // in sub->pending: changed since the last sample
  steady_time next_sample{};
  std::vector<std::uint32_t> links;  // the items this one triggers
  std::size_t watch_pos = 0;         // in watchers_[node]
  bool watching = false;
  std::size_t sub_pos = 0;           // in sub->items
  // An event item (the EventNotifier attribute, docs/decisions/0018): its compiled filter and a
  // ring of event field lists (head, count and queue_size as above). `overflow`: an
  // EventQueueOverflowEventType event waits in the queue, first (discard oldest) or last.
  bool events = false;
  std::unique_ptr<event_filter_program> filter;
  std::vector<ua::event_field_list> event_queue;
  bool overflow = false;
  ua::date_time overflow_time;
  std::size_t event_watch_pos = 0;   // in event_watchers_[node]

  // Notifications waiting in the queue.
  std::size_t waiting() const noexcept { return count + (overflow ? 1 : 0); }
};

struct retained_message {
  std::uint32_t sequence = 0;
  ua::notification_message message;
};

struct subscription_manager::subscription {
  std::uint32_t id = 0;
  std::uint32_t session = 0;  // 0: none (kept for a transfer until the lifetime ends)
  session_identity owner;     // who its session acts for (§5.13.7)
  services::node_access access;  // what the owner may do: the events its items receive
  double interval_ms = 0;
  std::uint32_t lifetime_count = 0;
  std::uint32_t keep_alive_count = 0;
  std::uint32_t max_notifications = 0;
  std::uint8_t priority = 0;
  bool enabled = true;
  std::uint32_t keep_alive_counter = 0;
  std::uint32_t lifetime_counter = 0;
  steady_time next_due{};
  std::uint32_t next_sequence = 1;
  bool late = false;  // a message (data or keep-alive) is due and waits for a Publish request
  std::vector<item*> items;
  std::vector<item*> ready;    // items with notifications to report
  std::vector<item*> pending;  // sampled items changed since their last sample
  std::vector<retained_message> retained;  // the retransmission queue, oldest first
  std::vector<retained_message> spare;     // acknowledged messages, reused (their storage kept)
};

struct publish_entry {
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  std::uint32_t request_handle = 0;
  std::uint32_t timeout_hint = 0;
  steady_time received{};
  ua::ua_array<ua::status_code> results;  // of its acknowledgements
};

struct status_change {
  std::uint32_t subscription_id = 0;
  ua::status_code status;
  std::uint32_t sequence = 0;
};

struct subscription_manager::session_state {
  std::uint32_t id = 0;
  std::vector<subscription*> subs;
  std::vector<publish_entry> queue;  // a ring of max_publish_requests_per_session entries
  std::size_t head = 0;
  std::size_t count = 0;
  std::vector<status_change> status_changes;  // to send with the next Publish requests

  publish_entry& front() { return queue[head]; }
  void pop() {
    head = (head + 1) % queue.size();
    --count;
  }
};

}  // namespace uactor::actors
