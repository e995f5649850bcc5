#include "engine/server/history/aggregate_status.hpp"

#include "engine/server/history/aggregates.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history {

bool usable(ua::status_code s, const aggregate_configuration& config) noexcept {
  return config.treat_uncertain_as_bad ? s.is_good() : !s.is_bad();
}

namespace {

// Good at or above PercentDataGood, else Bad at or above PercentDataBad, else
// Uncertain_DataSubNormal (Part 13 §4.2.1.2). Good is tested first: with both at 100 an
// interval with no Bad data is still Good.
ua::status_code decide(double good, double bad, double total, ua::status_code base,
                       const aggregate_configuration& config) {
  if (total == 0 || good / total * 100 >= config.percent_data_good)
    return with_code(base, ua::status::good);
  if (bad / total * 100 >= config.percent_data_bad) return ua::status::bad;
  return with_code(base, ua::status::uncertain_data_sub_normal);
}

}  // namespace

ua::status_code time_based_status(std::span<const sub_region> regions, ua::status_code base,
                                  const aggregate_configuration& config) {
  if (regions.empty()) return ua::status::bad_no_data;
  double good = 0, bad = 0, total = 0;
  for (const auto& r : regions) {
    total += r.duration_ms;
    if (r.status.is_bad() || (config.treat_uncertain_as_bad && r.status.is_uncertain())) {
      bad += r.duration_ms;
    } else if (r.status.is_good() || (!config.treat_uncertain_as_bad && r.status.is_uncertain())) {
      good += r.duration_ms;
    }
  }
  return decide(good, bad, total, base, config);
}

ua::status_code value_based_status(const quality_counts& counts, ua::status_code base,
                                   const aggregate_configuration& config) {
  return decide(counts.good, counts.bad, counts.total, base, config);
}

}  // namespace uactor::history
