// Bounding values: the value at an interval's edge (Part 13 §3.1.7 - §3.1.9).
#pragma once

#include <cstdint>

#include "engine/server/history/raw_series.hpp"

namespace uactor::history {

// Interpolated bounding value (Part 13 §3.1.8): a usable raw value at t as it is; else from the
// nearest usable values before and after t, sloped or stepped (config.stepped), and
// extrapolated past the last one (SlopedExtrapolation with use_sloped_extrapolation, else
// SteppedExtrapolation, both Uncertain_DataSubNormal). Skipped Bad values make it
// Uncertain_DataSubNormal; nothing usable before t makes it Bad_NoData.
sample interpolated_bound(const raw_series& series, std::int64_t t);

// Simple bounding value (Part 13 §3.1.9): the raw value at t whatever its status; else from the
// raw neighbours of t, whatever lies between: Bad_NoData when there is none after, or the one
// before is Bad (for a sloped variable: not usable, a line needs two usable ends); sloped
// between them when both are usable; a step from the one before when config.stepped or when the
// one after is not usable (then Uncertain_DataSubNormal: a slope was due). Part 13's example
// tables decide the cases the prose leaves open (docs/decisions/0049).
sample simple_bound(const raw_series& series, std::int64_t t);

}  // namespace uactor::history
