#include "actors/common/tune_io.hpp"

#include <cstddef>

#include <caf/actor_system_config.hpp>
#include <caf/timespan.hpp>

namespace uactor::actors {

void tune_io(caf::actor_system_config& cfg) {
  // One recv per readable event instead of reading until EAGAIN (CAF 0.17's default is 50 reads):
  // the staged receive takes up to 8 KB, and epoll (level-triggered) reports what is left again.
  cfg.set("middleman.max-consecutive-reads", std::size_t{1});
  // An idle worker skips the moderate phase's 50 µs sleeps and waits on its condition variable
  // (the relaxed phase), which an enqueue notifies at once: less idle CPU and faster wake-ups
  // from other threads (docs/decisions/0036).
  cfg.set("work-stealing.moderate-sleep-duration", caf::timespan{0});
}


}  // namespace uactor::actors
