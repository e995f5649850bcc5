// The one place the actors read the clocks: a monotonic time for timeouts and UTC for the wire.
// The plain state objects take an `instant` from here, so tests can pass any time they like.
#pragma once

#include <chrono>

#include "actors/secure_channel_state.hpp"

namespace uactor::actors {

inline ua::date_time utc_now() {
  // 100 ns ticks since 1601 (Part 6 §5.2.2.5); system_clock counts from 1970 on Linux.
  const auto since_1970 = std::chrono::system_clock::now().time_since_epoch();
  return ua::date_time{ua::date_time::unix_epoch_ticks +
                       std::chrono::duration_cast<std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>>(since_1970).count()};
}

inline instant now_instant() { return {std::chrono::steady_clock::now(), utc_now()}; }

}  // namespace uactor::actors
