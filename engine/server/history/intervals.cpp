#include "engine/server/history/intervals.hpp"

#include <cmath>

#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

ua::expected<std::vector<interval>> plan_intervals(ua::date_time start, ua::date_time end,
                                                   double interval_ms, std::size_t max_intervals) {
  if (start == end || !std::isfinite(interval_ms) || interval_ms < 0)
    return ua::status::bad_invalid_argument;
  const bool backward = start > end;
  std::int64_t span = 0;
  // Timestamps at the ends of the DateTime range must not overflow the difference.
  if (__builtin_sub_overflow(backward ? start.ticks : end.ticks, backward ? end.ticks : start.ticks, &span))
    return ua::status::bad_invalid_argument;
  const auto span_d = static_cast<double>(span);
  const double step = interval_ms == 0 ? span_d : interval_ms * 10'000.0;
  if (step < 1) return ua::status::bad_invalid_argument;
  // Counted in double first: a tiny interval over a long range must not overflow the count.
  const double count = std::ceil(span_d / step);
  if (count > static_cast<double>(max_intervals)) return ua::status::bad_too_many_operations;

  const auto n = static_cast<std::size_t>(count);
  std::vector<interval> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    // Edges are rounded from k x step in double, so a fractional step does not drift; the far
    // edge is clamped to the range before it is converted (no conversion past int64).
    const double near_d = static_cast<double>(k) * step;
    const double far_d = static_cast<double>(k + 1) * step;
    const std::int64_t near = near_d >= span_d ? span : std::llround(near_d);
    const std::int64_t far = far_d >= span_d ? span : std::llround(far_d);
    const bool truncated = far_d > span_d;
    interval iv;
    if (backward) {
      iv.end_ticks = start.ticks - near;
      iv.start_ticks = start.ticks - far;
      iv.stamp_ticks = iv.end_ticks;
    } else {
      iv.start_ticks = start.ticks + near;
      iv.end_ticks = start.ticks + far;
      iv.stamp_ticks = iv.start_ticks;
    }
    iv.truncated = truncated;
    out.push_back(iv);
  }
  return out;
}

}  // namespace uactor::history
