// What one script is, as the engine and the runners know it: its kind, its source, the names its
// inputs have inside the script, its schedule and its alarm options. Plain data; the runners map
// inputs and outputs to nodes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scripting/schedule.hpp"

namespace uactor::scripting {

enum class item_kind : std::uint8_t {
  virtual_tag = 0,  // an expression of its inputs, evaluated when one changes
  calculation = 1,  // a chunk run every period; its globals stay between runs (its state)
  alarm = 2,        // a predicate of its inputs: true/false, or a number (> 0 active) with hysteresis
};

const char* to_string(item_kind k) noexcept;

struct alarm_options {
  std::chrono::milliseconds on_delay{0};   // the predicate holds this long before the alarm is active
  std::chrono::milliseconds off_delay{0};  // and is false this long before it is inactive again
  // For a predicate that returns a number x: active when x > 0, inactive again only once
  // x < -hysteresis (so `p - 80` with hysteresis 5 raises above 80 and clears below 75).
  double hysteresis = 0;
};

struct item_spec {
  item_kind kind = item_kind::virtual_tag;
  std::string name;                      // in errors and logs: "virtual_tags[2] (ns=2;s=Flow)"
  std::string source;
  std::vector<std::string> input_names;  // globals the script reads, one per input, in input order
  std::chrono::milliseconds period{1000};  // calculation
  std::optional<cron_schedule> schedule;   // calculation: at these minutes (UTC) instead of every period
  alarm_options alarm;
};

// Where the engine stops a script (docs/scripts.md "Limits").
struct engine_limits {
  std::size_t memory_bytes = 64u << 20;         // per Lua state, by the allocator
  std::uint64_t max_instructions = 100'000'000;  // per evaluation, by the count hook (0: none)
  std::size_t max_string_result = 64u << 10;    // a longer String result is Bad_OutOfRange
};

}  // namespace uactor::scripting
