// What `uactor load --faults` injects (docs/decisions/0042): a list of faults, each with its own
// period, parsed from the option's text. Pure: no sockets, no clock; tests feed it strings.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/fault_proxy.hpp"

namespace uactor::scenarios {

enum class fault_type : std::uint8_t { cut, stall };

struct fault_spec {
  fault_type type = fault_type::cut;
  // cut: the time between cuts; stall: between the starts of two stalls (longer than `length`).
  std::chrono::milliseconds every{0};
  std::chrono::milliseconds length{0};  // stall: how long nothing is forwarded
  cut_kind how = cut_kind::rst;         // cut only
  cut_side side = cut_side::both;       // cut only
};

struct fault_plan {
  std::vector<fault_spec> faults;
  bool empty() const noexcept { return faults.empty(); }
};

// Parses "cut:EVERY[:rst|fin][:client|server|both],stall:T[:EVERY],...". A duration is a positive
// number with a unit (ms, s, m), e.g. 500ms, 2s, 1.5s; at most one hour. Returns "" and fills
// `out`, or a message naming the bad part ("cut:abc: 'abc' is not a duration ...").
std::string parse_faults(std::string_view text, fault_plan& out);

// One fault as the option spells it, canonical ("cut:2s:rst:both", "stall:3s:6s").
std::string describe(const fault_spec& f);
std::string describe(const fault_plan& p);

// A stall's period when the option gives none: the stall, then this long with the link up.
inline constexpr std::chrono::milliseconds default_stall_gap{3000};

}  // namespace uactor::scenarios
