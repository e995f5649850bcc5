// Part 13 §5.4.3.20 - §5.4.3.24: AnnotationCount, Count, DurationInStateZero/NonZero,
// NumberOfTransitions.
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/server/history/aggregate_families.hpp"
#include "engine/server/history/regions.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

// Annotations are a store of their own (Part 11 Annotations); raw values carry none, so the
// count of an interval with data is 0, Good (§5.4.3.20: Bad_NoData only outside the data).
ua::data_value annotation_count(const interval_input& in) {
  if (in.outside_data()) return no_data(in);
  return computed(ua::variant{std::int32_t{0}},
                  with_aggregate_bits(ua::status::good, historian_bits::calculated),
                  in.slice.stamp_ticks);
}

// The usable raw values in the interval; the status from the share of Good values.
ua::data_value count(const interval_input& in) {
  if (in.outside_data()) return no_data(in);
  const auto values = values_in(in);
  std::int32_t n = 0;
  quality_counts counts;
  for (const auto& v : values) {
    counts.add(v.status);
    if (v.status.is_good()) ++n;
  }
  auto status = value_based_status(counts, ua::status::good, in.config());
  if (!status.is_bad()) status = with_aggregate_bits(status, historian_bits::calculated);
  return computed(ua::variant{n}, status, in.slice.stamp_ticks);
}

// Milliseconds the value was 0 (or not 0), stepped between the simple bounds; only Good
// regions count, the status from the share of Good time.
ua::data_value duration_in_state(const interval_input& in, bool non_zero) {
  auto& points = in.scratch;
  if (!values_with_simple_bounds(in, points)) return no_data(in);
  sub_regions(points, false, true, in.config(), in.regions);
  double ms = 0;
  for (const auto& r : in.regions) {
    if (!r.status.is_good()) continue;
    if ((r.start_value != 0) == non_zero) ms += r.duration_ms;
  }
  auto status = time_based_status(in.regions, ua::status::good, in.config());
  status = with_aggregate_bits(status, historian_bits::calculated);
  return computed(ms, status, in.slice.stamp_ticks);
}

// Changes of value between usable raw values, counting one at the start when the value before
// the interval differs, or when there is none (docs/decisions/0049).
ua::data_value number_of_transitions(const interval_input& in) {
  if (in.outside_data()) return no_data(in);
  const auto values = values_in(in);
  double last = std::numeric_limits<double>::quiet_NaN();
  const auto& s = in.series;
  const std::size_t early = s.usable_before_index(s.first_at_or_after(in.slice.start_ticks));
  const bool from_nothing = early == raw_series::npos;
  if (!from_nothing && s[early].numeric) last = s[early].value;
  std::int32_t n = 0;
  quality_counts counts;
  for (const auto& v : values) {
    counts.add(v.status);
    if (!in.usable(v) || !v.numeric) continue;
    if (std::isnan(last) ? from_nothing : last != v.value) ++n;
    last = v.value;
  }
  const auto status = value_based_status(
      counts, with_aggregate_bits(ua::status::good, historian_bits::calculated), in.config());
  return computed(ua::variant{n}, status, in.slice.stamp_ticks);
}

}  // namespace uactor::history::family
