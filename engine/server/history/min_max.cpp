// Part 13 §5.4.3.10 - §5.4.3.19: Minimum, Maximum, their ActualTime forms, Range, and the "2"
// forms that include the simple bounding values.
#include <cmath>
#include <limits>

#include "engine/server/history/aggregate_families.hpp"
#include "engine/server/history/regions.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

namespace {

// The extremes of the points that count; a repeated extreme is noted (MultipleValues).
struct extremes {
  const sample* min = nullptr;
  const sample* max = nullptr;
  bool min_repeated = false;
  bool max_repeated = false;

  void add(const sample& s) {
    if (!min || s.value < min->value) {
      min = &s;
      min_repeated = false;
    } else if (s.value == min->value) {
      min_repeated = true;
    }
    if (!max || s.value > max->value) {
      max = &s;
      max_repeated = false;
    } else if (s.value == max->value) {
      max_repeated = true;
    }
  }
};

ua::variant in_raw_type(const interval_input& in, const sample& s) {
  if (s.raw_index >= 0) return in.series.raw()[static_cast<std::size_t>(s.raw_index)].value;
  return ua::variant{s.value};
}

}  // namespace

// Over the raw values in the interval: only Good ones are candidates (Uncertain ones are set
// aside); any value left out makes the result Uncertain_DataSubNormal.
ua::data_value min_max(const interval_input& in, extreme what, bool actual_time) {
  const auto values = values_in(in);
  if (values.empty()) return no_data(in);
  extremes e;
  bool left_out = false;
  for (const auto& v : values) {
    if (!in.usable(v) || !v.numeric) {
      left_out = true;
      continue;
    }
    if (v.status.is_uncertain()) continue;
    e.add(v);
  }
  if (!e.min) return no_data(in);

  ua::status_code status = left_out ? ua::status::uncertain_data_sub_normal : ua::status::good;
  std::uint32_t bits = 0;
  const sample* chosen = what == extreme::minimum ? e.min : what == extreme::maximum ? e.max : nullptr;
  const bool repeated = what == extreme::minimum ? e.min_repeated
                        : what == extreme::maximum ? e.max_repeated
                                                   : false;
  // A value found at the interval's start is a raw value, not a calculated one.
  if (!actual_time && (!chosen || chosen->ticks != in.slice.start_ticks)) bits |= historian_bits::calculated;
  if (repeated) bits |= historian_bits::multiple_values;
  status = with_aggregate_bits(status, bits);
  if (!chosen) return computed(std::abs(e.max->value - e.min->value), status, in.slice.stamp_ticks);
  return computed(in_raw_type(in, *chosen), status, actual_time ? chosen->ticks : in.slice.stamp_ticks);
}

// Over the simple bounds and the raw values: the status is the chosen value's, then the
// time-weighted decision of §5.4.3.2. An extreme at the end bound is reported 1 ms inside the
// interval (the end is not part of it) and marked Interpolated.
ua::data_value min_max_with_bounds(const interval_input& in, extreme what, bool actual_time) {
  auto& points = in.scratch;
  if (!values_with_simple_bounds(in, points) || points.empty()) return no_data(in);
  extremes e;
  for (const auto& p : points) {
    if (!in.usable(p) || !p.numeric) continue;
    if (p.ticks == in.slice.end_ticks && in.config().stepped) break;  // a step ends before the end
    e.add(p);
  }
  if (!e.min) {
    auto dv = no_data(in);
    if (in.slice.truncated) dv.status = with_aggregate_bits(dv.status, historian_bits::partial);
    return dv;
  }
  const sample* chosen = what == extreme::minimum ? e.min : what == extreme::maximum ? e.max : nullptr;
  const bool repeated = what == extreme::minimum ? e.min_repeated
                        : what == extreme::maximum ? e.max_repeated
                                                   : false;
  ua::status_code status = chosen ? chosen->status : ua::status::good;
  std::uint32_t bits = aggregate_bits(status);
  if (!actual_time && (!chosen || chosen->ticks != in.slice.start_ticks) &&
      (bits & historian_bits::interpolated) == 0)
    bits |= historian_bits::calculated;
  if (repeated) bits |= historian_bits::multiple_values;
  status = with_aggregate_bits(status, bits);

  sub_regions(points, false, in.config().stepped, in.config(), in.regions);
  status = time_based_status(in.regions, status, in.config());

  ua::variant value = chosen ? in_raw_type(in, *chosen) : ua::variant{std::abs(e.max->value - e.min->value)};
  if (status.is_bad()) value = ua::variant{};
  std::int64_t stamp = in.slice.stamp_ticks;
  if (actual_time && chosen) {
    stamp = chosen->ticks;
    if (in.backward ? stamp == in.slice.start_ticks : stamp == in.slice.end_ticks) {
      stamp += in.backward ? 10'000 : -10'000;
      status = with_aggregate_bits(status, aggregate_bits(status) | historian_bits::interpolated);
    }
  }
  return computed(std::move(value), status, stamp);
}

}  // namespace uactor::history::family
