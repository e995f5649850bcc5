// Part 13 §5.4.3.25 - §5.4.3.30: Start, End, Delta, StartBound, EndBound, DeltaBounds.
#include <cmath>

#include "engine/server/history/aggregate_families.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

// The first (last) raw value in the interval as it is, its own timestamp and status.
ua::data_value start_or_end(const interval_input& in, bool end) {
  const auto values = values_in(in);
  if (values.empty()) return no_data(in);
  return as_value(in, end ? values.back() : values.front());
}

// The last usable value minus the first; Uncertain_DataSubNormal when values were passed over.
ua::data_value delta(const interval_input& in) {
  const auto values = values_in(in);
  if (values.empty()) return no_data(in);
  bool skipped = false;
  const sample* first = nullptr;
  for (const auto& v : values) {
    if (v.status.is_good() && v.numeric) {
      first = &v;
      break;
    }
    skipped = true;
  }
  const sample* last = nullptr;
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->status.is_good() && it->numeric) {
      last = &*it;
      break;
    }
    skipped = true;
  }
  if (!first || !last) return no_data(in);
  const auto status = with_aggregate_bits(
      skipped ? ua::status::uncertain_data_sub_normal : ua::status::good, historian_bits::calculated);
  return computed(last->value - first->value, status, in.slice.stamp_ticks);
}

// The simple bounding value at the interval's start (end). An unusable bound is Bad_NoData.
ua::data_value bound(const interval_input& in, bool end) {
  auto& points = in.scratch;
  if (!values_with_simple_bounds(in, points) || points.empty()) return no_data(in);
  const bool take_last = end != in.backward;
  sample s = take_last ? points.back() : points.front();
  ua::data_value dv = as_value(in, s);
  if (!in.usable(s)) {
    dv.status = ua::status::bad_no_data;
    dv.has_status = true;
  }
  if (end) {
    dv.source_timestamp = dv.server_timestamp = ua::date_time{in.slice.stamp_ticks};
    dv.has_source_timestamp = dv.has_server_timestamp = true;
    if (!dv.status.is_bad()) {
      dv.status = with_aggregate_bits(dv.status, historian_bits::calculated);
      dv.has_status = true;
    }
  }
  return dv;
}

// EndBound minus StartBound; Bad_NoData unless both are usable.
ua::data_value delta_bounds(const interval_input& in) {
  auto& points = in.scratch;
  if (!values_with_simple_bounds(in, points) || points.empty()) return no_data(in);
  const sample& first = points.front();
  const sample& last = points.back();
  if (!in.usable(first) || !in.usable(last) || !first.numeric || !last.numeric) return no_data(in);
  const bool estimated = !first.status.is_good() || !last.status.is_good();
  return computed(last.value - first.value,
                  with_aggregate_bits(estimated ? ua::status::uncertain_data_sub_normal : ua::status::good,
                                      historian_bits::calculated),
                  in.slice.stamp_ticks);
}

}  // namespace uactor::history::family
