// The one place the actors read the clocks: a monotonic time for timeouts and UTC for the wire.
// The plain state objects take an `instant` from here, so tests can pass any time they like.
#pragma once

#include <chrono>

#include "uactor/ua/builtin_types.hpp"

namespace uactor::actors {

// A moment as the actors see it: a monotonic clock for timeouts, UTC for what goes on the wire
// (CreatedAt, response timestamps). Both are passed in; nothing here reads a clock.
struct instant {
  std::chrono::steady_clock::time_point steady{};
  ua::date_time utc{};
};

inline ua::date_time utc_now() {
  // 100 ns ticks since 1601 (Part 6 §5.2.2.5); system_clock counts from 1970 on Linux.
  const auto since_1970 = std::chrono::system_clock::now().time_since_epoch();
  return ua::date_time{ua::date_time::unix_epoch_ticks +
                       std::chrono::duration_cast<std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>>(since_1970).count()};
}

inline instant now_instant() { return {std::chrono::steady_clock::now(), utc_now()}; }

}  // namespace uactor::actors
