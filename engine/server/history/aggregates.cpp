// The dispatch: which family computes an aggregate, the processing intervals, the Partial bit
// (Part 13 §5.3.3.2) and ReadAtTime (Part 11 §6.5.5).
#include "engine/server/history/aggregates.hpp"

#include <array>

#include "engine/server/history/aggregate_families.hpp"
#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/bounds.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

namespace {

namespace id = ua::ids;

enum class kind {
  interpolative, average, time_average, time_average2, total, total2,
  minimum, maximum, minimum_actual_time, maximum_actual_time, range,
  minimum2, maximum2, minimum_actual_time2, maximum_actual_time2, range2,
  count, annotation_count, duration_in_state_zero, duration_in_state_non_zero,
  number_of_transitions, start, end, delta, start_bound, end_bound, delta_bounds,
  duration_good, duration_bad, percent_good, percent_bad, worst_quality, worst_quality2,
  standard_deviation_sample, standard_deviation_population, variance_sample, variance_population,
};

struct served {
  std::uint32_t node;
  kind what;
  std::string_view name;  // the AggregateFunction's BrowseName (Part 13 §5.4)
};

constexpr std::array<served, 37> table{{
    {id::aggregate_function_interpolative, kind::interpolative, "Interpolative"},
    {id::aggregate_function_average, kind::average, "Average"},
    {id::aggregate_function_time_average, kind::time_average, "TimeAverage"},
    {id::aggregate_function_time_average2, kind::time_average2, "TimeAverage2"},
    {id::aggregate_function_total, kind::total, "Total"},
    {id::aggregate_function_total2, kind::total2, "Total2"},
    {id::aggregate_function_minimum, kind::minimum, "Minimum"},
    {id::aggregate_function_maximum, kind::maximum, "Maximum"},
    {id::aggregate_function_minimum_actual_time, kind::minimum_actual_time, "MinimumActualTime"},
    {id::aggregate_function_maximum_actual_time, kind::maximum_actual_time, "MaximumActualTime"},
    {id::aggregate_function_range, kind::range, "Range"},
    {id::aggregate_function_minimum2, kind::minimum2, "Minimum2"},
    {id::aggregate_function_maximum2, kind::maximum2, "Maximum2"},
    {id::aggregate_function_minimum_actual_time2, kind::minimum_actual_time2, "MinimumActualTime2"},
    {id::aggregate_function_maximum_actual_time2, kind::maximum_actual_time2, "MaximumActualTime2"},
    {id::aggregate_function_range2, kind::range2, "Range2"},
    {id::aggregate_function_count, kind::count, "Count"},
    {id::aggregate_function_annotation_count, kind::annotation_count, "AnnotationCount"},
    {id::aggregate_function_duration_in_state_zero, kind::duration_in_state_zero, "DurationInStateZero"},
    {id::aggregate_function_duration_in_state_non_zero, kind::duration_in_state_non_zero, "DurationInStateNonZero"},
    {id::aggregate_function_number_of_transitions, kind::number_of_transitions, "NumberOfTransitions"},
    {id::aggregate_function_start, kind::start, "Start"},
    {id::aggregate_function_end, kind::end, "End"},
    {id::aggregate_function_delta, kind::delta, "Delta"},
    {id::aggregate_function_start_bound, kind::start_bound, "StartBound"},
    {id::aggregate_function_end_bound, kind::end_bound, "EndBound"},
    {id::aggregate_function_delta_bounds, kind::delta_bounds, "DeltaBounds"},
    {id::aggregate_function_duration_good, kind::duration_good, "DurationGood"},
    {id::aggregate_function_duration_bad, kind::duration_bad, "DurationBad"},
    {id::aggregate_function_percent_good, kind::percent_good, "PercentGood"},
    {id::aggregate_function_percent_bad, kind::percent_bad, "PercentBad"},
    {id::aggregate_function_worst_quality, kind::worst_quality, "WorstQuality"},
    {id::aggregate_function_worst_quality2, kind::worst_quality2, "WorstQuality2"},
    {id::aggregate_function_standard_deviation_sample, kind::standard_deviation_sample, "StandardDeviationSample"},
    {id::aggregate_function_standard_deviation_population, kind::standard_deviation_population, "StandardDeviationPopulation"},
    {id::aggregate_function_variance_sample, kind::variance_sample, "VarianceSample"},
    {id::aggregate_function_variance_population, kind::variance_population, "VariancePopulation"},
}};

const served* find(const ua::node_id& n) {
  if (n.namespace_index() != 0 || n.type() != ua::node_id_type::numeric) return nullptr;
  for (const auto& s : table)
    if (s.node == n.numeric()) return &s;
  return nullptr;
}

// Aggregates that only count values or read their status accept any data type; the others
// compute with numbers.
bool needs_numbers(kind k) {
  switch (k) {
    case kind::count: case kind::annotation_count: case kind::start: case kind::end:
    case kind::duration_good: case kind::duration_bad: case kind::percent_good:
    case kind::percent_bad: case kind::worst_quality: case kind::worst_quality2:
      return false;
    default:
      return true;
  }
}

// Average and Interpolative say nothing of the data's edges; every other aggregate marks an
// interval the data starts or ends inside as Partial (Part 13 §5.3.3.2).
bool marks_partial(kind k) { return k != kind::average && k != kind::interpolative; }

// A usable value that is not a number among those an interval reads (its own and its bounds).
bool has_non_numeric_input(const interval_input& in) {
  const auto& s = in.series;
  std::size_t lo = s.first_at_or_after(in.slice.start_ticks);
  const std::size_t before = s.usable_before_index(lo);
  if (before != raw_series::npos) lo = before;
  std::size_t hi = s.first_after(in.slice.end_ticks);
  const std::size_t after = s.usable_from_index(hi);
  hi = after != raw_series::npos ? after + 1 : s.size();
  for (std::size_t i = lo; i < hi; ++i)
    if (s.usable(i) && !s[i].numeric) return true;
  return false;
}

ua::data_value interpolative(const interval_input& in) {
  return as_value(in, interpolated_bound(in.series, in.slice.stamp_ticks));
}

ua::data_value compute(kind k, const interval_input& in) {
  using namespace family;
  switch (k) {
    case kind::interpolative: return interpolative(in);
    case kind::average: return average(in);
    case kind::time_average: return time_average(in, false, time_weighted::average);
    case kind::time_average2: return time_average(in, true, time_weighted::average);
    case kind::total: return time_average(in, false, time_weighted::total);
    case kind::total2: return time_average(in, true, time_weighted::total);
    case kind::minimum: return min_max(in, extreme::minimum, false);
    case kind::maximum: return min_max(in, extreme::maximum, false);
    case kind::minimum_actual_time: return min_max(in, extreme::minimum, true);
    case kind::maximum_actual_time: return min_max(in, extreme::maximum, true);
    case kind::range: return min_max(in, extreme::range, false);
    case kind::minimum2: return min_max_with_bounds(in, extreme::minimum, false);
    case kind::maximum2: return min_max_with_bounds(in, extreme::maximum, false);
    case kind::minimum_actual_time2: return min_max_with_bounds(in, extreme::minimum, true);
    case kind::maximum_actual_time2: return min_max_with_bounds(in, extreme::maximum, true);
    case kind::range2: return min_max_with_bounds(in, extreme::range, false);
    case kind::count: return count(in);
    case kind::annotation_count: return annotation_count(in);
    case kind::duration_in_state_zero: return duration_in_state(in, false);
    case kind::duration_in_state_non_zero: return duration_in_state(in, true);
    case kind::number_of_transitions: return number_of_transitions(in);
    case kind::start: return start_or_end(in, false);
    case kind::end: return start_or_end(in, true);
    case kind::delta: return delta(in);
    case kind::start_bound: return bound(in, false);
    case kind::end_bound: return bound(in, true);
    case kind::delta_bounds: return delta_bounds(in);
    case kind::duration_good: return duration_of_quality(in, false, false);
    case kind::duration_bad: return duration_of_quality(in, true, false);
    case kind::percent_good: return duration_of_quality(in, false, true);
    case kind::percent_bad: return duration_of_quality(in, true, true);
    case kind::worst_quality: return worst_quality(in, false);
    case kind::worst_quality2: return worst_quality(in, true);
    case kind::standard_deviation_sample: return deviation(in, true, false);
    case kind::standard_deviation_population: return deviation(in, false, false);
    case kind::variance_sample: return deviation(in, true, true);
    case kind::variance_population: return deviation(in, false, true);
  }
  return no_data(in);
}

}  // namespace

std::optional<ua::node_id> aggregate_named(std::string_view name) {
  for (const auto& s : table)
    if (s.name == name) return ua::node_id{0, s.node};
  return std::nullopt;
}

std::string_view aggregate_name(const ua::node_id& aggregate) {
  const served* s = find(aggregate);
  return s ? s->name : std::string_view{};
}

std::span<const ua::node_id> served_aggregates() {
  static const auto ids = [] {
    std::array<ua::node_id, table.size()> out;
    for (std::size_t i = 0; i < table.size(); ++i) out[i] = ua::node_id{0, table[i].node};
    return out;
  }();
  return ids;
}

namespace aggregates_process {

// The values of `intervals` (a whole range's, or a page of it).
std::vector<ua::data_value> compute_intervals(const served* s, std::span<const ua::data_value> raw,
                                              const std::vector<interval>& intervals, bool backward,
                                              const aggregate_configuration& config) {
  const raw_series series(raw, config);
  const bool numbers = needs_numbers(s->what);
  const bool partial = marks_partial(s->what);
  const std::int64_t data_start = series.empty() ? 0 : series[0].ticks;
  const std::int64_t data_end = series.empty() ? 0 : series[series.size() - 1].ticks;

  std::vector<sample> scratch;
  std::vector<sub_region> regions;
  std::vector<ua::data_value> out;
  out.reserve(intervals.size());
  for (const auto& iv : intervals) {
    const interval_input in{series, iv, backward, scratch, regions};
    if (numbers && !series.all_numeric() && has_non_numeric_input(in)) {
      out.push_back(computed(ua::variant{}, ua::status::bad_aggregate_invalid_inputs, iv.stamp_ticks));
      continue;
    }
    ua::data_value dv = compute(s->what, in);
    if (partial && !series.empty()) {
      const bool starts_inside = data_start > iv.start_ticks && data_start < iv.end_ticks;
      // In reverse order the data's end is where the request starts: nothing is cut short.
      const bool ends_inside = !backward && data_end >= iv.start_ticks && data_end < iv.end_ticks;
      if (starts_inside || ends_inside) {
        dv.status = with_aggregate_bits(dv.status, aggregate_bits(dv.status) | historian_bits::partial);
        dv.has_status = true;
      }
    }
    if (dv.status.is_bad()) {
      dv.value = ua::variant{};
      dv.has_value = false;
    }
    out.push_back(std::move(dv));
  }
  return out;
}

}  // namespace aggregates_process

ua::expected<std::vector<ua::data_value>> process(const ua::node_id& aggregate,
                                                  std::span<const ua::data_value> raw,
                                                  ua::date_time start, ua::date_time end,
                                                  double interval_ms,
                                                  const aggregate_configuration& config,
                                                  std::size_t max_intervals) {
  const served* s = find(aggregate);
  if (!s) return ua::status::bad_aggregate_not_supported;
  auto intervals = plan_intervals(start, end, interval_ms, max_intervals);
  if (!intervals) return intervals.error();
  return aggregates_process::compute_intervals(s, raw, *intervals, start > end, config);
}

ua::expected<std::vector<ua::data_value>> process_page(const ua::node_id& aggregate,
                                                       std::span<const ua::data_value> raw,
                                                       ua::date_time start, ua::date_time end,
                                                       double interval_ms,
                                                       const aggregate_configuration& config,
                                                       std::uint64_t first, std::size_t count) {
  const served* s = find(aggregate);
  if (!s) return ua::status::bad_aggregate_not_supported;
  auto intervals = plan_interval_page(start, end, interval_ms, first, count);
  if (!intervals) return intervals.error();
  return aggregates_process::compute_intervals(s, raw, *intervals, start > end, config);
}

std::vector<ua::data_value> values_at(std::span<const ua::data_value> raw,
                                      std::span<const ua::date_time> times, bool use_simple_bounds,
                                      const aggregate_configuration& config) {
  const raw_series series(raw, config);
  std::vector<ua::data_value> out;
  out.reserve(times.size());
  std::vector<sample> scratch;
  std::vector<sub_region> regions;
  for (const auto t : times) {
    const sample s = use_simple_bounds ? simple_bound(series, t.ticks)
                                       : interpolated_bound(series, t.ticks);
    const interval_input in{series, interval{t.ticks, t.ticks, t.ticks, false}, false, scratch,
                            regions};
    ua::data_value dv = as_value(in, s);
    if (dv.status.is_bad()) {
      dv.value = ua::variant{};
      dv.has_value = false;
    }
    out.push_back(std::move(dv));
  }
  return out;
}

}  // namespace uactor::history
