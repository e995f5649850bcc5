// How a HistoricalDataNode's values are collected (Part 11 §5.2.2 HistoricalDataConfigurationType:
// MinTimeInterval, MaxTimeInterval, ExceptionDeviation, ExceptionDeviationFormat), and the
// recorder's per-variable decision whether a value goes into the history (docs/history.md
// "Collection", docs/decisions/0074).
#pragma once

#include <cstdint>
#include <optional>

#include "uactor/ua/variant.hpp"

namespace uactor::actors {

// Part 11 §5.2.3 ExceptionDeviationFormat, the values the spec numbers them with. Unknown (4) is
// not a setting: the recorder takes it as "no deviation".
enum class deviation_format : std::int32_t {
  absolute_value = 0,
  percent_of_value = 1,     // of the last stored value
  percent_of_range = 2,     // of the variable's InstrumentRange (Part 8 §5.3.2.2)
  percent_of_eu_range = 3,  // of the variable's EURange (Part 8 §5.3.2.2)
};

// The four properties as a plant file or an application sets them (all 0: every change stored).
struct collection_settings {
  double min_time_interval_ms = 0;  // MinTimeInterval (Duration, ms)
  double max_time_interval_ms = 0;  // MaxTimeInterval (Duration, ms)
  double exception_deviation = 0;   // ExceptionDeviation, in the format's terms
  deviation_format format = deviation_format::absolute_value;
  bool filters() const noexcept { return min_time_interval_ms > 0 || max_time_interval_ms > 0 || exception_deviation > 0; }
};

// One variable's recording under its settings: the last value that went into the history, and the
// decision for the next. Plain data, no allocation (a value is judged by its time, status and, for
// numbers, its value as a double). Ticks are 100 ns (record_time: SourceTimestamp, else
// ServerTimestamp).
class collection_state {
public:
  // `range_span`: |high - low| of the range a percent-of-range format takes (nullopt: none, the
  // deviation does not apply). Keeps what was stored last (new settings judge the next value).
  void configure(const collection_settings& s, std::optional<double> range_span) noexcept;
  bool active() const noexcept { return active_; }
  std::int64_t max_interval_ticks() const noexcept { return max_ticks_; }

  // Whether `v`, recorded at `ticks`, goes into the history (docs/history.md "Collection"):
  // - the first value, and a value older than the last stored one (a late arrival): yes;
  // - MaxTimeInterval or more after the last stored value: yes, whatever it is;
  // - less than MinTimeInterval after it: no, whatever it is;
  // - a StatusCode other than the last stored one's: yes;
  // - a number (not a Boolean) closer to the last stored number than the ExceptionDeviation
  //   (in its format's terms): no;
  // - otherwise yes.
  // A value that goes in becomes the last stored (a late arrival does not).
  bool admit(const ua::data_value& v, std::int64_t ticks) noexcept;

  // MaxTimeInterval (Part 11 §5.2.2: the maximum interval between data points in the history,
  // regardless of their change): the time at which the held value is due again when `now_ticks`
  // has reached it, else nullopt. Nothing is due before a first value.
  std::optional<std::int64_t> due(std::int64_t now_ticks) const noexcept;
  // The held value `v` stored again at `ticks` (what due() said): it is the last stored now.
  void repeated(const ua::data_value& v, std::int64_t ticks) noexcept;

private:
  void remember(const ua::data_value& v, std::int64_t ticks) noexcept;

  bool active_ = false;
  std::int64_t min_ticks_ = 0;
  std::int64_t max_ticks_ = 0;
  double deviation_ = 0;  // 0: no deviation test
  deviation_format format_ = deviation_format::absolute_value;
  double span_ = 0;  // the range's width, for the percent-of-range formats

  bool has_last_ = false;
  std::int64_t last_ticks_ = 0;
  std::uint32_t last_status_ = 0;
  bool last_numeric_ = false;
  double last_value_ = 0;
};

// The value of a scalar Number as a double for the deviation test (Part 8's deadbands take
// Numbers only: a Boolean, a String or an array is not one), else nullopt.
std::optional<double> deviation_number(const ua::variant& v) noexcept;

}  // namespace uactor::actors
