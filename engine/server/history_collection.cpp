#include "engine/server/history_collection.hpp"

#include <cmath>
#include <type_traits>
#include <variant>

namespace uactor::actors {

namespace history_collection_ticks {

// Duration (ms, a Double) in 100 ns ticks; what does not fit is "none".
std::int64_t from_ms(double ms) noexcept {
  if (!(ms > 0) || !std::isfinite(ms) || ms > 9.0e14) return 0;
  return static_cast<std::int64_t>(ms * 10'000.0);
}

}  // namespace history_collection_ticks

std::optional<double> deviation_number(const ua::variant& v) noexcept {
  if (const double* d = v.get_if<double>()) return *d;  // the common case, without a visit
  return std::visit(
      [](const auto& x) -> std::optional<double> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          return static_cast<double>(x);
        } else {
          return std::nullopt;
        }
      },
      v.value());
}

void collection_state::configure(const collection_settings& s, std::optional<double> range_span) noexcept {
  min_ticks_ = history_collection_ticks::from_ms(s.min_time_interval_ms);
  max_ticks_ = history_collection_ticks::from_ms(s.max_time_interval_ms);
  format_ = s.format;
  deviation_ = s.exception_deviation > 0 && std::isfinite(s.exception_deviation) ? s.exception_deviation : 0;
  span_ = 0;
  if (format_ == deviation_format::percent_of_range || format_ == deviation_format::percent_of_eu_range) {
    if (range_span && std::isfinite(*range_span)) span_ = std::fabs(*range_span);
    else deviation_ = 0;  // no range to take the percentage of
  } else if (format_ != deviation_format::absolute_value && format_ != deviation_format::percent_of_value) {
    deviation_ = 0;  // Unknown, or a number the enumeration does not have
  }
  active_ = min_ticks_ > 0 || max_ticks_ > 0 || deviation_ > 0;
}

void collection_state::remember(const ua::data_value& v, std::int64_t ticks) noexcept {
  has_last_ = true;
  last_ticks_ = ticks;
  last_status_ = v.status.value();
  const auto number = v.has_value ? deviation_number(v.value) : std::nullopt;
  last_numeric_ = number.has_value();
  last_value_ = number.value_or(0.0);
}

bool collection_state::admit(const ua::data_value& v, std::int64_t ticks) noexcept {
  if (!has_last_) {
    remember(v, ticks);
    return true;
  }
  const std::int64_t since = ticks - last_ticks_;
  if (since < 0) return true;  // a late arrival: stored as it comes, the sequence goes on from the last
  if (max_ticks_ > 0 && since >= max_ticks_) {
    remember(v, ticks);
    return true;
  }
  if (since < min_ticks_) return false;
  if (deviation_ > 0 && v.status.value() == last_status_ && last_numeric_ && v.has_value) {
    if (const auto number = deviation_number(v.value)) {
      double threshold = deviation_;
      switch (format_) {
        case deviation_format::absolute_value: break;
        case deviation_format::percent_of_value: threshold = deviation_ / 100.0 * std::fabs(last_value_); break;
        case deviation_format::percent_of_range:
        case deviation_format::percent_of_eu_range: threshold = deviation_ / 100.0 * span_; break;
      }
      // "The minimum amount that the data shall change" (Part 11 §5.2.2): a change of at least
      // the deviation goes in, a smaller one does not. A NaN goes in (it is no "small change").
      if (std::fabs(*number - last_value_) < threshold) return false;
    }
  }
  remember(v, ticks);
  return true;
}

std::optional<std::int64_t> collection_state::due(std::int64_t now_ticks) const noexcept {
  if (max_ticks_ <= 0 || !has_last_ || now_ticks - last_ticks_ < max_ticks_) return std::nullopt;
  return last_ticks_ + max_ticks_;
}

void collection_state::repeated(const ua::data_value& v, std::int64_t ticks) noexcept { remember(v, ticks); }

}  // namespace uactor::actors
