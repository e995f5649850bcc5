#include "engine/server/history/bounds.hpp"

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/interpolation.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

sample interpolated_bound(const raw_series& series, std::int64_t t) {
  const auto& config = series.config();
  const std::size_t at = series.first_at_or_after(t);
  if (at < series.size() && series[at].ticks == t && series.usable(at)) return series[at];

  const std::size_t early = series.usable_before_index(at);
  const std::size_t late = series.usable_from_index(series.first_after(t));
  constexpr auto npos = raw_series::npos;

  bool stepped = config.stepped;
  if (!stepped) {
    if (early != npos && late != npos) {
      sample s = sloped_at(t, series[early], series[late]);
      // Values in between were skipped: they were not usable (Part 13 §3.1.8).
      if (late != early + 1) s.status = with_code(s.status, ua::status::uncertain_data_sub_normal);
      return s;
    }
    if (early != npos) {
      const std::size_t second = series.usable_before_index(early);
      if (config.use_sloped_extrapolation && second != npos) {
        sample s = sloped_at(t, series[second], series[early]);
        s.status = with_code(s.status, ua::status::uncertain_data_sub_normal);
        return s;
      }
      stepped = true;  // SteppedExtrapolation
    }
  }
  if (stepped && early != npos) {
    sample s = stepped_at(t, series[early]);
    // Past the next raw value (a Bad one, or none at all): the step is an estimate.
    if (early + 1 >= series.size() || t > series[early + 1].ticks) {
      s.status = with_code(s.status, ua::status::uncertain_data_sub_normal);
    }
    return s;
  }
  return no_data_at(t);
}

sample simple_bound(const raw_series& series, std::int64_t t) {
  const std::size_t at = series.first_at_or_after(t);
  if (at < series.size() && series[at].ticks == t) return series[at];
  if (at == 0) return no_data_at(t);
  const std::size_t before = at - 1;
  const bool stepped = series.config().stepped;
  if (stepped ? series[before].status.is_bad() : !series.usable(before)) return no_data_at(t);

  bool revert_to_stepped = false;
  if (!stepped) {
    if (at < series.size() && series.usable(at)) return sloped_at(t, series[before], series[at]);
    revert_to_stepped = true;
  }
  if (at >= series.size()) return no_data_at(t);  // after the end of the data
  sample s = stepped_at(t, series[before]);
  if (s.status.is_good() && revert_to_stepped)
    s.status = with_aggregate_bits(ua::status::uncertain_data_sub_normal, historian_bits::interpolated);
  return s;
}

}  // namespace uactor::history
