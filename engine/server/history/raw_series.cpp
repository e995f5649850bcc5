#include "engine/server/history/raw_series.hpp"

#include <algorithm>
#include <type_traits>

#include "engine/server/history/aggregate_status.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

std::optional<double> numeric_value(const ua::variant& v) {
  if (const double* d = v.get_if<double>()) return *d;  // the common case, without a visit
  return std::visit(
      [](const auto& x) -> std::optional<double> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          return x ? 1.0 : 0.0;
        } else if constexpr (std::is_arithmetic_v<T>) {
          return static_cast<double>(x);
        } else {
          return std::nullopt;
        }
      },
      v.value());
}

raw_series::raw_series(std::span<const ua::data_value> raw, const aggregate_configuration& config)
    : raw_(raw), config_(config) {
  points_.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto& dv = raw[i];
    if (dv.status.code() == ua::status::bad_no_data.value()) continue;
    sample s;
    s.ticks = dv.source_timestamp.ticks;
    s.status = dv.status;
    s.raw_index = static_cast<std::ptrdiff_t>(i);
    if (auto n = numeric_value(dv.value)) {
      s.value = *n;
      s.numeric = true;
    } else if (history::usable(s.status, config)) {
      all_numeric_ = false;
    }
    points_.push_back(s);
  }
}

bool raw_series::usable(std::size_t i) const noexcept {
  return history::usable(points_[i].status, config_);
}

std::size_t raw_series::first_at_or_after(std::int64_t t) const noexcept {
  return static_cast<std::size_t>(
      std::partition_point(points_.begin(), points_.end(),
                           [t](const sample& s) { return s.ticks < t; }) -
      points_.begin());
}

std::size_t raw_series::first_after(std::int64_t t) const noexcept {
  return static_cast<std::size_t>(
      std::partition_point(points_.begin(), points_.end(),
                           [t](const sample& s) { return s.ticks <= t; }) -
      points_.begin());
}

std::size_t raw_series::usable_before_index(std::size_t i) const noexcept {
  while (i > 0) {
    --i;
    if (usable(i)) return i;
  }
  return npos;
}

std::size_t raw_series::usable_from_index(std::size_t i) const noexcept {
  for (; i < points_.size(); ++i)
    if (usable(i)) return i;
  return npos;
}

}  // namespace uactor::history
