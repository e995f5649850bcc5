// Alarm metrics (Part 9 §8.2 AlarmMetricsType) of the Server and of each alarm group (§8.1
// AlarmGroupType): how many alarms came since the start or the last Reset, the longest an alarm was
// active and unacknowledged, the most re-alarms of one occurrence, the alarm rates; and chattering
// (the same alarm active more than N times within T). Each scope is an Object with its Variables,
// written on the housekeeping tick; condition_manager tells it what its alarms do.
// docs/decisions/0070 (alarm groups and metrics). Plain state, no CAF, time passed in.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/address_space.hpp"

namespace uactor::actors {

struct instant;

class alarm_metrics {
public:
  // AlarmRateVariableType's Rate (minutes): the rates are alarms per this many minutes.
  static constexpr std::uint16_t rate_minutes = 10;
  // AlarmMetricsType's Reset method (i=18666), which every metrics Object references.
  static constexpr std::uint32_t reset_method = 18666;

  // One set of metrics: the Server's (scope 0) or a group's.
  struct scope {
    ua::node_index object = ua::no_node;
    // AlarmCount, StartTime, MaximumActiveState, MaximumUnAck, CurrentAlarmRate, MaximumAlarmRate,
    // MaximumReAlarmCount, AverageAlarmRate.
    std::array<ua::node_index, 8> vars{};
    std::uint32_t alarm_count = 0;
    ua::date_time start;
    std::chrono::steady_clock::time_point start_steady{};
    double max_active_ms = 0;
    double max_unack_ms = 0;
    std::uint32_t max_re_alarm_count = 0;
    double max_rate = 0;
    // Alarms per minute over the last rate_minutes minutes (a ring by minute since start_steady).
    std::array<std::uint32_t, rate_minutes> minutes{};
    std::int64_t minute = 0;  // the minute minutes[minute % rate_minutes] counts
  };

  // Adds the metrics Object `id` (HasTypeDefinition AlarmMetricsType, browse name "AlarmMetrics")
  // as a component of `parent`, its Variables and the Reset reference; the scope's position, or
  // Bad_NodeIdExists / Bad_NodeIdUnknown.
  ua::status_code add_scope(const ua::node_id& id, ua::node_index parent, ua::address_space& as, const instant& now,
                            std::uint32_t& out);
  std::size_t size() const noexcept { return scopes_.size(); }
  const scope& at(std::size_t i) const noexcept { return scopes_[i]; }
  // The scope whose Object this is, or -1.
  std::int64_t find(ua::node_index object) const noexcept;

  // Chattering (docs/events.md "Alarm groups and metrics"): an alarm active more than `count` times
  // within `window`; count 0: not looked for.
  void set_chattering(std::uint32_t count, std::chrono::milliseconds window) noexcept {
    chattering_count_ = count;
    chattering_window_ = window;
  }
  std::uint32_t chattering_count() const noexcept { return chattering_count_; }
  std::chrono::milliseconds chattering_window() const noexcept { return chattering_window_; }

  // What an alarm in `scopes` did. `activations`: its own ring of recent activation times, sized
  // chattering_count() (the chattering check).
  void activated(std::span<const std::uint32_t> scopes, std::vector<std::chrono::steady_clock::time_point>& activations,
                 std::size_t& next_activation, const instant& now);
  void ended_active(std::span<const std::uint32_t> scopes, double active_ms) noexcept;
  void acknowledged(std::span<const std::uint32_t> scopes, double unacked_ms) noexcept;
  void re_alarmed(std::span<const std::uint32_t> scopes, std::uint32_t count) noexcept;
  // Part 9 §8.2 Reset: every metric of the scope starts again now.
  void reset(std::uint32_t scope, const instant& now) noexcept;
  // The Variables take the metrics (the housekeeping tick, and after a Reset).
  void sync(ua::address_space& as, const instant& now);

  // Since the server's start (not reset): alarms that went active, and activations that made an
  // alarm chatter (its activation past `count` within `window`).
  std::uint64_t alarms_total() const noexcept { return alarms_total_; }
  std::uint64_t chattering_total() const noexcept { return chattering_total_; }
  // The rates of scope `i` now: alarms in the last rate_minutes minutes, and the average since its start.
  double current_rate(std::size_t i, const instant& now) const noexcept;
  double average_rate(std::size_t i, const instant& now) const noexcept;

private:
  void roll(scope& s, const instant& now) noexcept;  // the minute ring up to now

  std::vector<scope> scopes_;
  std::uint32_t chattering_count_ = 0;
  std::chrono::milliseconds chattering_window_{60'000};
  std::uint64_t alarms_total_ = 0;
  std::uint64_t chattering_total_ = 0;
};

}  // namespace uactor::actors
