#include "engine/server/history/interval_values.hpp"

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/bounds.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

bool interval_input::usable(const sample& s) const noexcept {
  return history::usable(s.status, series.config());
}

bool interval_input::outside_data() const noexcept {
  return series.empty() || slice.start_ticks > series[series.size() - 1].ticks ||
         slice.end_ticks < series[0].ticks;
}

std::span<const sample> values_in(const interval_input& in) {
  if (in.outside_data()) return {};
  const auto& s = in.series;
  const std::size_t first = in.backward ? s.first_after(in.slice.start_ticks)
                                        : s.first_at_or_after(in.slice.start_ticks);
  const std::size_t last = in.backward ? s.first_after(in.slice.end_ticks)
                                       : s.first_at_or_after(in.slice.end_ticks);
  // Sorted input is the caller's promise; unsorted input gives wrong values, never a bad span.
  if (last <= first) return {};
  return s.points().subspan(first, last - first);
}

bool values_with_simple_bounds(const interval_input& in, std::vector<sample>& out) {
  out.clear();
  if (in.outside_data()) return false;
  const auto& s = in.series;
  out.push_back(simple_bound(s, in.slice.start_ticks));
  for (std::size_t i = s.first_after(in.slice.start_ticks);
       i < s.size() && s[i].ticks < in.slice.end_ticks; ++i)
    out.push_back(s[i]);
  out.push_back(simple_bound(s, in.slice.end_ticks));
  return true;
}

bool values_with_interpolated_bounds(const interval_input& in, std::vector<sample>& out) {
  out.clear();
  const auto& s = in.series;
  if (in.outside_data()) return false;
  out.push_back(interpolated_bound(s, in.slice.start_ticks));
  for (std::size_t i = s.first_at_or_after(in.slice.start_ticks);
       i < s.size() && s[i].ticks < in.slice.end_ticks; ++i)
    out.push_back(s[i]);
  out.push_back(interpolated_bound(s, in.slice.end_ticks));
  return true;
}

ua::data_value no_data(const interval_input& in) {
  return computed(ua::variant{}, ua::status::bad_no_data, in.slice.stamp_ticks);
}

ua::data_value computed(ua::variant value, ua::status_code status, std::int64_t ticks) {
  ua::data_value dv;
  if (!value.empty()) dv.set_value(std::move(value));
  dv.status = status;
  dv.has_status = status != ua::status::good;
  dv.source_timestamp = ua::date_time{ticks};
  dv.server_timestamp = ua::date_time{ticks};
  dv.has_source_timestamp = true;
  dv.has_server_timestamp = true;
  return dv;
}

ua::data_value computed(double value, ua::status_code status, std::int64_t ticks) {
  return computed(ua::variant{value}, status, ticks);
}

ua::data_value as_value(const interval_input& in, const sample& s) {
  if (s.raw_index >= 0) return in.series.raw()[static_cast<std::size_t>(s.raw_index)];
  return computed(s.numeric && !s.status.is_bad() ? ua::variant{s.value} : ua::variant{}, s.status,
                  s.ticks);
}

}  // namespace uactor::history
