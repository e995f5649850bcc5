// Part 13 §5.4.3.37 - §5.4.3.40: StandardDeviationSample/Population, VarianceSample/Population.
#include <cmath>

#include "engine/server/history/aggregate_families.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::history::family {

// Over the Good raw values in the interval: the Sample forms divide by n - 1 (0 for a single
// value), the Population forms by n. Any other value makes the result Uncertain_DataSubNormal.
ua::data_value deviation(const interval_input& in, bool sample_form, bool variance) {
  const auto values = values_in(in);
  if (values.empty()) return no_data(in);
  double sum = 0;
  std::size_t n = 0;
  bool non_good = false;
  for (const auto& v : values) {
    if (v.status.is_good() && v.numeric) {
      sum += v.value;
      ++n;
    } else {
      non_good = true;
    }
  }
  if (n == 0) return no_data(in);
  const double mean = sum / static_cast<double>(n);
  double squares = 0;
  for (const auto& v : values)
    if (v.status.is_good() && v.numeric) squares += (v.value - mean) * (v.value - mean);
  double var = 0;
  if (sample_form) var = n <= 1 ? 0 : squares / static_cast<double>(n - 1);
  else var = squares / static_cast<double>(n);
  const double result = variance ? var : std::sqrt(var);
  const auto status = with_aggregate_bits(
      non_good ? ua::status::uncertain_data_sub_normal : ua::status::good, historian_bits::calculated);
  return computed(result, status, in.slice.stamp_ticks);
}

}  // namespace uactor::history::family
