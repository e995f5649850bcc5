// Values between two points (Part 13 §3.1.5 SlopedInterpolation, §3.1.6 SteppedInterpolation),
// with the status each form of estimate carries.
#pragma once

#include <cstdint>

#include "engine/server/history/raw_series.hpp"

namespace uactor::history {

// A Bad_NoData point at t: nothing bounds the time.
sample no_data_at(std::int64_t t);

// The earlier value held at t, marked Interpolated; Uncertain_DataSubNormal when the earlier
// value is not Good, Bad_NoData when it is Bad.
sample stepped_at(std::int64_t t, const sample& early);

// The straight line through early and late read at t (Part 13 §3.1.8's formula), marked
// Interpolated; Uncertain_DataSubNormal when either end is not Good. A Bad late value leaves
// only a step from early, which is then Uncertain_DataSubNormal.
sample sloped_at(std::int64_t t, const sample& early, const sample& late);

}  // namespace uactor::history
