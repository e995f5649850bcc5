// The raw values an aggregate reads, as points on a time line: timestamp, value as a double,
// status. Built once per request; every interval then looks its values up by binary search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "engine/server/history/aggregates.hpp"

namespace uactor::history {

// One point: a raw value, or a bounding value computed at an interval's edge.
struct sample {
  std::int64_t ticks = 0;         // SourceTimestamp, 100 ns since 1601 (Part 6 §5.2.2.5)
  double value = 0;               // meaningful when numeric
  bool numeric = false;           // Boolean and the numeric built-in types
  ua::status_code status;
  std::ptrdiff_t raw_index = -1;  // the raw value it is, or -1 for a computed value
};

// The numeric value of a scalar Variant (Boolean as 0/1), or nothing.
std::optional<double> numeric_value(const ua::variant& v);

class raw_series {
public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  // Bad_NoData entries are placeholders a historian writes where it has no value (the first
  // entry of AggregateExamples.csv's tables): they mark no data, so they are not points.
  raw_series(std::span<const ua::data_value> raw, const aggregate_configuration& config);

  std::size_t size() const noexcept { return points_.size(); }
  bool empty() const noexcept { return points_.empty(); }
  const sample& operator[](std::size_t i) const noexcept { return points_[i]; }
  std::span<const sample> points() const noexcept { return points_; }
  std::span<const ua::data_value> raw() const noexcept { return raw_; }
  const aggregate_configuration& config() const noexcept { return config_; }

  bool usable(std::size_t i) const noexcept;
  // Every usable point is a number: no interval need look for one that is not.
  bool all_numeric() const noexcept { return all_numeric_; }
  // The first point at or after t, the first point after t (size() when none).
  std::size_t first_at_or_after(std::int64_t t) const noexcept;
  std::size_t first_after(std::int64_t t) const noexcept;
  // The last usable point before index i / the first usable point after index i (npos if none).
  std::size_t usable_before_index(std::size_t i) const noexcept;
  std::size_t usable_from_index(std::size_t i) const noexcept;

private:
  std::span<const ua::data_value> raw_;
  aggregate_configuration config_;
  std::vector<sample> points_;
  bool all_numeric_ = true;
};

}  // namespace uactor::history
