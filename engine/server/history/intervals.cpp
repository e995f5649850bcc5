#include "engine/server/history/intervals.hpp"

#include <algorithm>
#include <cmath>

#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

namespace intervals_plan {

struct range_steps {
  bool backward = false;
  std::int64_t span = 0;
  double step = 0;
  double count = 0;
};

ua::expected<range_steps> steps_of(ua::date_time start, ua::date_time end, double interval_ms) {
  if (start == end || !std::isfinite(interval_ms) || interval_ms < 0)
    return ua::status::bad_invalid_argument;
  range_steps r;
  r.backward = start > end;
  // Timestamps at the ends of the DateTime range must not overflow the difference.
  if (__builtin_sub_overflow(r.backward ? start.ticks : end.ticks, r.backward ? end.ticks : start.ticks, &r.span))
    return ua::status::bad_invalid_argument;
  const auto span_d = static_cast<double>(r.span);
  r.step = interval_ms == 0 ? span_d : interval_ms * 10'000.0;
  if (r.step < 1) return ua::status::bad_invalid_argument;
  // Counted in double first: a tiny interval over a long range must not overflow the count.
  r.count = std::ceil(span_d / r.step);
  return r;
}

std::vector<interval> make_intervals(ua::date_time start, const range_steps& r, std::uint64_t first, std::uint64_t n) {
  const auto span_d = static_cast<double>(r.span);
  std::vector<interval> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t k = first; k < first + n; ++k) {
    // Edges are rounded from k x step in double, so a fractional step does not drift (and a page
    // of them has the edges the whole range has); the far edge is clamped to the range before it
    // is converted (no conversion past int64).
    const double near_d = static_cast<double>(k) * r.step;
    const double far_d = static_cast<double>(k + 1) * r.step;
    const std::int64_t near = near_d >= span_d ? r.span : std::llround(near_d);
    const std::int64_t far = far_d >= span_d ? r.span : std::llround(far_d);
    interval iv;
    if (r.backward) {
      iv.end_ticks = start.ticks - near;
      iv.start_ticks = start.ticks - far;
      iv.stamp_ticks = iv.end_ticks;
    } else {
      iv.start_ticks = start.ticks + near;
      iv.end_ticks = start.ticks + far;
      iv.stamp_ticks = iv.start_ticks;
    }
    iv.truncated = far_d > span_d;
    out.push_back(iv);
  }
  return out;
}

constexpr double most_counted = 9'007'199'254'740'992.0;  // 2^53

}  // namespace intervals_plan

ua::expected<std::vector<interval>> plan_intervals(ua::date_time start, ua::date_time end,
                                                   double interval_ms, std::size_t max_intervals) {
  auto r = intervals_plan::steps_of(start, end, interval_ms);
  if (!r) return r.error();
  if (r->count > static_cast<double>(max_intervals)) return ua::status::bad_too_many_operations;
  return intervals_plan::make_intervals(start, *r, 0, static_cast<std::uint64_t>(r->count));
}

ua::expected<std::uint64_t> count_intervals(ua::date_time start, ua::date_time end, double interval_ms) {
  auto r = intervals_plan::steps_of(start, end, interval_ms);
  if (!r) return r.error();
  if (r->count > intervals_plan::most_counted) return ua::status::bad_too_many_operations;
  return static_cast<std::uint64_t>(r->count);
}

ua::expected<std::vector<interval>> plan_interval_page(ua::date_time start, ua::date_time end, double interval_ms,
                                                       std::uint64_t first, std::size_t count) {
  auto r = intervals_plan::steps_of(start, end, interval_ms);
  if (!r) return r.error();
  if (r->count > intervals_plan::most_counted) return ua::status::bad_too_many_operations;
  const auto total = static_cast<std::uint64_t>(r->count);
  if (first >= total) return std::vector<interval>{};
  return intervals_plan::make_intervals(start, *r, first, std::min<std::uint64_t>(count, total - first));
}

}  // namespace uactor::history
