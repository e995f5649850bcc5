// Part 13 §5.4.3.31 - §5.4.3.36: DurationGood, DurationBad, PercentGood, PercentBad,
// WorstQuality, WorstQuality2.
#include "engine/server/history/aggregate_families.hpp"
#include "engine/server/history/regions.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

// Time (ms) or share (%) of the interval whose stepped quality is Good (Bad), between the
// simple bounds.
ua::data_value duration_of_quality(const interval_input& in, bool bad, bool percent) {
  auto& points = in.scratch;
  if (!values_with_simple_bounds(in, points) || points.empty()) return no_data(in);
  sub_regions(points, false, true, in.config(), in.regions);
  double ms = 0, total = 0;
  for (const auto& r : in.regions) {
    total += r.duration_ms;
    if (bad ? r.status.is_bad() : r.status.is_good()) ms += r.duration_ms;
  }
  const double result = percent ? (total == 0 ? 0 : ms / total * 100) : ms;
  return computed(result, with_aggregate_bits(ua::status::good, historian_bits::calculated),
                  in.slice.stamp_ticks);
}

// The worst status among the interval's raw values (with the simple bounds for WorstQuality2):
// the first Bad code, else the first Uncertain code, else Good; MultipleValues when more than
// one value is of that severity.
ua::data_value worst_quality(const interval_input& in, bool with_bounds) {
  std::span<const sample> values;
  if (with_bounds) {
    if (!values_with_simple_bounds(in, in.scratch)) return no_data(in);
    values = in.scratch;
  } else {
    values = values_in(in);
  }
  if (values.empty()) return no_data(in);
  ua::status_code worst = ua::status::good;
  int bad = 0, uncertain = 0;
  for (const auto& v : values) {
    const ua::status_code code{v.status.code()};
    if (v.status.is_bad()) {
      ++bad;
      if (!worst.is_bad()) worst = code;
    } else if (v.status.is_uncertain()) {
      ++uncertain;
      if (worst.is_good()) worst = code;
    }
  }
  std::uint32_t bits = historian_bits::calculated;
  if ((worst.is_bad() && bad > 1) || (worst.is_uncertain() && uncertain > 1))
    bits |= historian_bits::multiple_values;
  return computed(ua::variant{worst}, with_aggregate_bits(ua::status::good, bits),
                  in.slice.stamp_ticks);
}

}  // namespace uactor::history::family
