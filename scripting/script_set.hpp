// The host's side of a script set, shared by both runners: the inputs' last values, which items are
// due (an input changed: coalesced, one run however many changes; a calculation's period; an
// alarm's delay), what a result writes to the item's output, strikes and quarantine, and what a
// runner fault leaves behind. Pure (the caller passes the time): tests walk every branch; the
// runner actors only carry it out.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/variant.hpp"
#include "scripting/engine.hpp"
#include "scripting/item.hpp"
#include "scripting/value.hpp"

namespace uactor::scripting {

using steady_time = std::chrono::steady_clock::time_point;

struct set_item {
  item_spec spec;
  std::vector<std::uint32_t> inputs;  // input slots, one per spec.input_names
  ua::builtin_type output_type = ua::builtin_type::double_;  // the output variable's DataType
};

struct set_policy {
  std::uint32_t strikes = 3;  // runs stopped for a limit (deadline, memory, instructions) before quarantine
  // The wall clock a calculation's schedule is read on (tests pass their own).
  wall_time (*wall_clock)() = [] { return std::chrono::system_clock::now(); };
};

// One run to make: the item and what its script sees.
struct eval_request {
  std::uint32_t item = 0;
  std::vector<script_value> inputs;
  bool active = false;  // an alarm's state
};

// One value for an item's output variable.
struct output_value {
  std::uint32_t item = 0;
  ua::variant value;
  ua::status_code status;
};

class script_set {
public:
  script_set(std::vector<set_item> items, std::size_t input_slots, set_policy policy, steady_time now);

  // An input's new value: the virtual tags and alarms that read it are due (once, however many
  // changes come before they run).
  void input_changed(std::uint32_t slot, const ua::data_value& v);

  // Alarms whose delay has passed change state (their outputs into `out`); then every item due now
  // and not in flight goes into `ready` and is in flight until completed(), victim() or runner_down().
  // An item with an input that has no value yet or a bad status is not run: its output takes that
  // status (Bad_WaitingForInitialData for a missing one).
  void take_ready(steady_time now, std::vector<eval_request>& ready, std::vector<output_value>& out);

  // A run's result, and what it writes. A run stopped by a limit (deadline, memory, instructions)
  // is a strike; after policy.strikes the item is quarantined (Bad_OutOfService, never run again).
  // The log line for a failure is returned in `log` (empty: nothing to say).
  void completed(std::uint32_t item, const eval_result& r, steady_time now, std::vector<output_value>& out,
                 std::string& log);
  // The run in flight passed its soft deadline: its output is Bad_Timeout (an alarm keeps its
  // state) while it may still finish.
  void late(std::uint32_t item, std::vector<output_value>& out);
  // The run was lost with its worker but the item is not to blame: due again, not struck.
  void victim(std::uint32_t item);
  // The runner cannot run the item (its worker is down): its output keeps its value with
  // Bad_ResourceUnavailable (an active alarm stays active), and it is due again on recovery.
  void runner_down(std::uint32_t item, std::vector<output_value>& out);

  // When the next calculation period or alarm delay is due (nullopt: nothing timed).
  std::optional<steady_time> next_due() const;

  std::size_t size() const noexcept { return items_.size(); }
  const set_item& item(std::uint32_t i) const { return items_[i]; }
  bool quarantined(std::uint32_t i) const { return state_[i].quarantined; }
  bool in_flight(std::uint32_t i) const { return state_[i].in_flight; }
  bool alarm_active(std::uint32_t i) const { return state_[i].active; }
  std::uint32_t strikes(std::uint32_t i) const { return state_[i].strikes; }
  std::size_t dirty_count() const noexcept { return dirty_.size(); }
  bool has_dirty() const noexcept { return !dirty_.empty(); }

private:
  struct item_state {
    bool dirty = false;
    bool in_flight = false;
    bool quarantined = false;
    bool active = false;                  // alarm
    std::optional<steady_time> pending;   // alarm: since when the predicate wants the other state
    steady_time next_run{};               // calculation
    wall_time next_fire{};                // calculation with a schedule: next_run on the wall clock
    std::uint32_t strikes = 0;
    ua::status_code last_status{0xFFFFFFFFu};  // what was written last (alarms write on change only)
    std::string last_error;               // logged once per distinct message
  };
  void mark(std::uint32_t item);
  void schedule_next(std::uint32_t item, steady_time now);
  void write_alarm(std::uint32_t item, ua::status_code status, std::vector<output_value>& out);
  void alarm_result(std::uint32_t item, const script_value& v, steady_time now, std::vector<output_value>& out,
                    std::string& log);

  std::vector<set_item> items_;
  std::vector<item_state> state_;
  std::vector<ua::data_value> slots_;
  std::vector<std::vector<std::uint32_t>> readers_;  // per slot: the items that read it
  std::vector<std::uint32_t> dirty_;
  set_policy policy_;
};

}  // namespace uactor::scripting
