// What one aggregate sees of one interval: the raw values inside it, with or without its
// bounding values (Part 13 §5.4.2 says which each aggregate uses), and how a result is made.
#pragma once

#include <span>
#include <vector>

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/intervals.hpp"
#include "engine/server/history/raw_series.hpp"

namespace uactor::history {

struct interval_input {
  const raw_series& series;
  interval slice;
  bool backward = false;
  // Reused buffers: an interval's bounded values and sub-regions allocate once per request.
  std::vector<sample>& scratch;
  std::vector<sub_region>& regions;

  const aggregate_configuration& config() const noexcept { return series.config(); }
  bool usable(const sample& s) const noexcept;
  // Outside the data altogether: the interval ends before the first point or starts after the last.
  bool outside_data() const noexcept;
};

// The raw values in the interval: [start, end) forward, (start, end] in reverse order.
std::span<const sample> values_in(const interval_input& in);

// Simple bound at start, the raw values strictly inside, simple bound at end. False (and no
// values) when the interval lies outside the data.
bool values_with_simple_bounds(const interval_input& in, std::vector<sample>& out);

// Interpolated bound at start, the raw values in [start, end), interpolated bound at end.
// False when the interval lies outside the data: past the last value there is nothing to
// average, only an extrapolation.
bool values_with_interpolated_bounds(const interval_input& in, std::vector<sample>& out);

// Results. The timestamp of a computed value is the interval's (Part 13 §5.4.2).
ua::data_value no_data(const interval_input& in);
ua::data_value computed(double value, ua::status_code status, std::int64_t ticks);
ua::data_value computed(ua::variant value, ua::status_code status, std::int64_t ticks);
// A point as a value: the raw DataValue itself (its type and timestamps kept) or a computed double.
ua::data_value as_value(const interval_input& in, const sample& s);

}  // namespace uactor::history
