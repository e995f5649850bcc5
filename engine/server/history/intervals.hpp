// The processing intervals of a ReadProcessed request (Part 11 §6.5.4, Part 13 §5.2.2):
// ProcessingInterval slices of [start, end), the last one shorter when the range does not
// divide; in reverse order when start > end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::history {

struct interval {
  std::int64_t start_ticks = 0;  // the earlier edge, in the interval
  std::int64_t end_ticks = 0;    // the later edge, not in the interval (forward order)
  std::int64_t stamp_ticks = 0;  // the processed value's timestamp: the edge the request starts from
  bool truncated = false;        // shorter than the ProcessingInterval (the last one)
};

// Bad_InvalidArgument when start == end or the interval is negative, not finite or below the
// DateTime resolution (100 ns, Part 6 §5.2.2.5); Bad_TooManyOperations past max_intervals.
// interval_ms 0: one interval over the whole range.
ua::expected<std::vector<interval>> plan_intervals(ua::date_time start, ua::date_time end,
                                                   double interval_ms, std::size_t max_intervals);

// The number of intervals of the range, with plan_intervals' checks but no bound (a count past
// 2^53, which a double no longer counts exactly, is Bad_TooManyOperations).
ua::expected<std::uint64_t> count_intervals(ua::date_time start, ua::date_time end, double interval_ms);

// A page of them (continuation points, Part 11 §6.5.4): intervals first .. first + count - 1 of
// the range, exactly as plan_intervals makes them (fewer at the range's end, none past it).
ua::expected<std::vector<interval>> plan_interval_page(ua::date_time start, ua::date_time end, double interval_ms,
                                                       std::uint64_t first, std::size_t count);

}  // namespace uactor::history
