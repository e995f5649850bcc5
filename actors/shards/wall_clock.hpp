// The wall clock a script pass sees (`now` in the script's batch): seconds since 1970 as a double,
// as Lua's os.time-style arithmetic expects. One definition for the in-process runner and the
// worker shards' supervisor, so that both give scripts the same time.
#pragma once

#include <chrono>

namespace uactor::actors {

inline double seconds_since_1970() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace uactor::actors
