// Part 13 §5.4.3.5 - §5.4.3.9: Average, TimeAverage, TimeAverage2, Total, Total2.
#include "engine/server/history/aggregate_families.hpp"
#include "engine/server/history/regions.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

// The mean of the Good raw values; the status from the share of Good values (§5.4.3.2).
ua::data_value average(const interval_input& in) {
  const auto values = values_in(in);
  if (values.empty()) return no_data(in);
  double sum = 0;
  std::size_t n = 0;
  quality_counts counts;
  for (const auto& v : values) {
    counts.add(v.status);
    if (!v.status.is_good() || !v.numeric) continue;
    sum += v.value;
    ++n;
  }
  if (n == 0) return no_data(in);
  const auto base = with_aggregate_bits(ua::status::good, historian_bits::calculated);
  return computed(sum / static_cast<double>(n), value_based_status(counts, base, in.config()),
                  in.slice.stamp_ticks);
}

// The area under the line through the bounds and the raw values, over the time with data:
// TimeAverage divides by that time, Total is the area (value x seconds). TimeAverage uses
// interpolated bounds and passes over unusable values; TimeAverage2 uses simple bounds, leaves
// Bad regions out and takes its status from the share of Good time (§5.4.3.2).
ua::data_value time_average(const interval_input& in, bool simple_bounds, time_weighted what) {
  auto& points = in.scratch;
  const bool have = simple_bounds ? values_with_simple_bounds(in, points)
                                  : values_with_interpolated_bounds(in, points);
  if (!have || points.empty()) return no_data(in);
  sub_regions(points, !simple_bounds, in.config().stepped, in.config(), in.regions);

  double area = 0, seconds = 0;
  bool non_good = false;
  for (const auto& r : in.regions) {
    const double d = r.duration_ms / 1000.0;
    if (!r.status.is_bad()) {
      area += (r.start_value + r.end_value) * d / 2;
      seconds += d;
    }
    if (!r.status.is_good()) non_good = true;
  }
  if (seconds == 0) return no_data(in);
  const double result = what == time_weighted::average ? area / seconds : area;
  ua::status_code status;
  if (simple_bounds) {
    status = time_based_status(in.regions, ua::status::good, in.config());
  } else {
    status = non_good ? ua::status::uncertain_data_sub_normal : ua::status::good;
  }
  return computed(result, with_aggregate_bits(status, historian_bits::calculated),
                  in.slice.stamp_ticks);
}

}  // namespace uactor::history::family
