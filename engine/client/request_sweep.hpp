// The client's one sweep timer (docs/decisions/0023): request deadlines, held requests, Publish
// timeouts, subscription silence and the supervision's watch are all checked by one timer, armed
// for the earliest deadline it knows of, or every watch_interval() while something wants
// watching. Apart from the actor because when to look is a rule of its own (an idle subscribed
// client looks about once a second, not 20 times); the actor carries the timer message.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace uactor::actors {

// Request timeouts are checked this often: a timeout fires up to this much late.
inline constexpr std::chrono::milliseconds sweep_interval{50};
inline constexpr std::chrono::milliseconds longest_watch_interval{1000};

// What the sweep watches, for how often it looks.
struct watched_periods {
  bool urgent = false;  // requests are held or publishing waits: look every sweep_interval
  std::chrono::steady_clock::duration shortest_silence{};  // the subscriptions' (0: none)
  bool supervised = false;
  std::chrono::milliseconds keep_alive_interval{0};  // supervised: the keep-alive's period
  std::chrono::milliseconds request_timeout{0};      // supervised: the renewal's answer limit
};

// A quarter of the shortest period watched, at least sweep_interval and at most a second
// (10,000 idle subscribed clients in one process spent most of their CPU on a 50 ms sweep);
// sweep_interval when urgent; a second when nothing has a period.
std::chrono::milliseconds watch_interval(const watched_periods& w) noexcept;

class request_sweep {
public:
  using time_point = std::chrono::steady_clock::time_point;

  // A timer to start: after `wait`, carrying `tag` (its time: a timer replaced by an earlier one
  // is known by its tag when it fires).
  struct timer {
    std::chrono::milliseconds wait;
    std::int64_t tag;
  };

  // Arms the sweep for `deadline` (a request's; time_point::max() for none), or `watch_every`
  // from `now` when something wants watching, whichever is earlier. Nothing when there is nothing
  // to look for or a timer armed earlier already covers it.
  std::optional<timer> arm(time_point deadline, time_point now, std::optional<std::chrono::milliseconds> watch_every);
  // The timer `tag` fired: true when it is the armed one, which is then disarmed.
  bool fired(std::int64_t tag) noexcept;

private:
  bool armed_ = false;
  time_point at_{};
};

}  // namespace uactor::actors
