#include "engine/server/history/interpolation.hpp"

#include "engine/server/history/aggregate_status.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

sample no_data_at(std::int64_t t) {
  sample s;
  s.ticks = t;
  s.status = ua::status::bad_no_data;
  return s;
}

sample stepped_at(std::int64_t t, const sample& early) {
  if (early.status.is_bad()) return no_data_at(t);
  sample s = early;
  s.ticks = t;
  s.raw_index = -1;
  s.status = early.status.is_good() ? ua::status::good : ua::status::uncertain_data_sub_normal;
  s.status = with_aggregate_bits(s.status, historian_bits::interpolated);
  return s;
}

sample sloped_at(std::int64_t t, const sample& early, const sample& late) {
  if (early.status.is_bad()) return no_data_at(t);
  if (late.status.is_bad()) {
    sample s = stepped_at(t, early);
    if (!s.status.is_bad()) s.status = with_code(s.status, ua::status::uncertain_data_sub_normal);
    return s;
  }
  sample s;
  s.ticks = t;
  s.numeric = early.numeric && late.numeric;
  const double span = static_cast<double>(late.ticks - early.ticks);
  s.value = span == 0 ? early.value
                      : early.value + (late.value - early.value) *
                                          (static_cast<double>(t - early.ticks) / span);
  s.status = early.status.is_good() && late.status.is_good() ? ua::status::good
                                                             : ua::status::uncertain_data_sub_normal;
  s.status = with_aggregate_bits(s.status, historian_bits::interpolated);
  return s;
}

}  // namespace uactor::history
