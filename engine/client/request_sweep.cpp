#include "engine/client/request_sweep.hpp"

#include <algorithm>

namespace uactor::actors {

std::chrono::milliseconds watch_interval(const watched_periods& w) noexcept {
  if (w.urgent) return sweep_interval;
  auto shortest = std::chrono::duration_cast<std::chrono::milliseconds>(w.shortest_silence);
  const auto consider = [&](std::chrono::milliseconds period) {
    if (period.count() > 0 && (shortest.count() == 0 || period < shortest)) shortest = period;
  };
  if (w.supervised) {
    consider(w.keep_alive_interval);
    consider(w.request_timeout);
  }
  if (shortest.count() == 0) return longest_watch_interval;
  return std::clamp(shortest / 4, sweep_interval, longest_watch_interval);
}

std::optional<request_sweep::timer> request_sweep::arm(time_point deadline, time_point now,
                                                       std::optional<std::chrono::milliseconds> watch_every) {
  const auto at = watch_every ? std::min(deadline, now + *watch_every) : deadline;
  if (at == time_point::max()) return std::nullopt;
  if (armed_ && at_ <= at) return std::nullopt;
  armed_ = true;
  at_ = at;
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::max(at - now, std::chrono::steady_clock::duration::zero()));
  return timer{wait, at.time_since_epoch().count()};
}

bool request_sweep::fired(std::int64_t tag) noexcept {
  if (!armed_ || at_.time_since_epoch().count() != tag) return false;
  armed_ = false;
  return true;
}

}  // namespace uactor::actors
