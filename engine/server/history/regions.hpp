// An interval's points cut into sub-regions, one from each point to the next, each with the
// value it holds and the quality that governs its time (Part 13 §5.4.3.2: the time-weighted
// quality of an interval).
#pragma once

#include <span>
#include <vector>

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/raw_series.hpp"

namespace uactor::history {

// `points` in time order, bounds included. With skip_unusable, values that are not usable are
// passed over (a region then spans them and turns Uncertain_DataSubNormal), as the
// interpolated-bound aggregates do; otherwise a region opened by a Bad value is Bad.
// With stepped, a region holds its opening value to its end; otherwise it slopes to the next.
// The last point opens no region. `out` is cleared and reused.
void sub_regions(std::span<const sample> points, bool skip_unusable, bool stepped,
                 const aggregate_configuration& config, std::vector<sub_region>& out);

}  // namespace uactor::history
