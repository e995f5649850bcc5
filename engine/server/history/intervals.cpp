#include "engine/server/history/intervals.hpp"

#include <cmath>

#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

ua::expected<std::vector<interval>> plan_intervals(ua::date_time start, ua::date_time end,
                                                   double interval_ms, std::size_t max_intervals) {
  if (start == end || !std::isfinite(interval_ms) || interval_ms < 0)
    return ua::status::bad_invalid_argument;
  const bool backward = start > end;
  const std::int64_t span = backward ? start.ticks - end.ticks : end.ticks - start.ticks;
  const double step = interval_ms == 0 ? static_cast<double>(span) : interval_ms * 10'000.0;
  if (step < 1) return ua::status::bad_invalid_argument;
  // Counted in double first: a tiny interval over a long range must not overflow the count.
  const double count = std::ceil(static_cast<double>(span) / step);
  if (count > static_cast<double>(max_intervals)) return ua::status::bad_too_many_operations;

  const auto n = static_cast<std::size_t>(count);
  std::vector<interval> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto near = static_cast<std::int64_t>(std::llround(static_cast<double>(k) * step));
    const auto far_raw = static_cast<std::int64_t>(std::llround(static_cast<double>(k + 1) * step));
    const bool truncated = far_raw > span;
    const std::int64_t far = truncated ? span : far_raw;
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
