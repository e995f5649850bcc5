// Historical aggregates (Part 13) and ReadAtTime interpolation (Part 11 §6.5.5) as plain
// calculation: raw values in, processed values out (section numbers: Part 11 and Part 13 v1.05). No I/O, no storage, no actors; the
// HistoryRead service hands the values it read to these functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/variant.hpp"

namespace uactor::history {

// Part 13 §4.2.1.2 AggregateConfigurationType, plus the Stepped Property of the variable's
// HistoricalDataConfiguration (Part 11).
struct aggregate_configuration {
  bool treat_uncertain_as_bad = true;
  std::uint8_t percent_data_bad = 100;
  std::uint8_t percent_data_good = 100;
  bool use_sloped_extrapolation = false;
  bool stepped = false;
};

// The aggregates served, by their ns0 NodeId (AggregateFunction_Average, ...): the list the
// server's AggregateFunctions folder shows.
std::span<const ua::node_id> served_aggregates();
// A served aggregate by its BrowseName ("Average", "TimeAverage2"), and the other way ("" for one
// not served).
std::optional<ua::node_id> aggregate_named(std::string_view name);
std::string_view aggregate_name(const ua::node_id& aggregate);

// Part 11 §6.5.4 ReadProcessedDetails (§6.4.4 in v1.04) for one node and one aggregate.
// raw: the node's values sorted by SourceTimestamp (ties: storage order), covering the range and
// the bounding values just outside it (the last before, the first after) when they exist.
// start > end means reverse order: the intervals run from start back to end. interval_ms 0 means
// one interval over the whole range (Part 11 §6.5.4).
// Returns one DataValue per interval with the Part 13 status (§5.4.3.2) and historian bits
// (§5.3.3), or
// Bad_AggregateNotSupported, Bad_InvalidArgument (start == end, a negative or non-finite
// interval), Bad_TooManyOperations (more intervals than max_intervals).
ua::expected<std::vector<ua::data_value>> process(const ua::node_id& aggregate,
                                                  std::span<const ua::data_value> raw,
                                                  ua::date_time start, ua::date_time end,
                                                  double interval_ms,
                                                  const aggregate_configuration& config,
                                                  std::size_t max_intervals);

// A page of the same (continuation points, Part 11 §6.5.4): the values of intervals first ..
// first + count - 1 (history::plan_interval_page), each as process computes it over the whole
// range; raw covers those intervals and their bounding values.
ua::expected<std::vector<ua::data_value>> process_page(const ua::node_id& aggregate,
                                                       std::span<const ua::data_value> raw,
                                                       ua::date_time start, ua::date_time end,
                                                       double interval_ms,
                                                       const aggregate_configuration& config,
                                                       std::uint64_t first, std::size_t count);

// Part 11 §6.5.5 ReadAtTimeDetails: the value at each time. A raw value at that time is returned
// as it is; otherwise it is interpolated (sloped, or stepped when config.stepped) from the
// bounding values: simple bounds (the raw neighbours, whatever their quality) when
// use_simple_bounds, else interpolated bounds (the nearest usable values, Part 13 §3.1.8).
// Bad_NoData where nothing bounds the time.
std::vector<ua::data_value> values_at(std::span<const ua::data_value> raw,
                                      std::span<const ua::date_time> times, bool use_simple_bounds,
                                      const aggregate_configuration& config);

}  // namespace uactor::history
