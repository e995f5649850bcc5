// The StatusCode of a processed value: its severity and code (Part 13 §5.4.3.2), and the historian
// info bits of Part 4 §7.39 (InfoType DataValue) that say how the value came to be.
#pragma once

#include <cstdint>
#include <span>

#include "uactor/ua/status_code.hpp"

namespace uactor::history {

struct aggregate_configuration;

// Part 4 §7.39: the low bits of a StatusCode whose InfoType is DataValue.
namespace historian_bits {
inline constexpr std::uint32_t raw = 0x0;
inline constexpr std::uint32_t calculated = 0x1;
inline constexpr std::uint32_t interpolated = 0x2;
inline constexpr std::uint32_t source_mask = 0x3;
inline constexpr std::uint32_t partial = 0x4;
inline constexpr std::uint32_t extra_data = 0x8;
inline constexpr std::uint32_t multiple_values = 0x10;
inline constexpr std::uint32_t all = 0x1F;
}  // namespace historian_bits

// InfoType = DataValue (bits 10-11 = 01): the historian bits are meaningful only with it.
inline constexpr std::uint32_t info_type_data_value = 0x400;

// The historian bits a status carries (0 when its InfoType is not DataValue).
constexpr std::uint32_t aggregate_bits(ua::status_code s) noexcept {
  return (s.value() & 0xC00u) == info_type_data_value ? s.value() & historian_bits::all : 0;
}
// `s` with its historian bits replaced by `bits` (InfoType DataValue when any bit is set).
constexpr ua::status_code with_aggregate_bits(ua::status_code s, std::uint32_t bits) noexcept {
  std::uint32_t v = s.value() & ~(0xC00u | historian_bits::all);
  if (bits != 0) v |= info_type_data_value | (bits & historian_bits::all);
  return ua::status_code{v};
}
// `s` with its code (severity and sub-code) replaced, its historian bits kept.
constexpr ua::status_code with_code(ua::status_code s, ua::status_code code) noexcept {
  return with_aggregate_bits(code, aggregate_bits(s));
}

// Whether a raw value takes part in a calculation as a Good one (Part 13 §4.2.1.2
// TreatUncertainAsBad: Uncertain values count as Bad when it is set).
bool usable(ua::status_code s, const aggregate_configuration& config) noexcept;

// A span of time inside an interval whose value and quality hold from one point to the next.
struct sub_region {
  double start_value = 0;
  double end_value = 0;
  std::int64_t start_ticks = 0;
  double duration_ms = 0;
  ua::status_code status;
  ua::status_code point_status;  // the status of the value that opened the region
};

// Part 13 §5.4.3.2: the status from the share of Good and Bad time in the regions, against
// PercentDataGood and PercentDataBad; Uncertain time counts as Good, or as Bad with
// TreatUncertainAsBad (§4.2.1.2). `base` carries the historian bits kept on Good/Uncertain.
ua::status_code time_based_status(std::span<const sub_region> regions, ua::status_code base,
                                  const aggregate_configuration& config);

// How many values of each severity an interval holds.
struct quality_counts {
  double good = 0;
  double bad = 0;
  double total = 0;
  void add(ua::status_code s) noexcept {
    ++total;
    if (s.is_bad()) ++bad;
    else if (s.is_good()) ++good;
  }
};

// Part 13 §5.4.3.2: the same decision from the share of Good and Bad values.
ua::status_code value_based_status(const quality_counts& counts, ua::status_code base,
                                   const aggregate_configuration& config);

}  // namespace uactor::history
