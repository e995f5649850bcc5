// The supervised client's keep-alive (Part 4 §6.7): when nothing came on the link for a while, a
// Read of the server's state to see whether the server still answers. Apart from the actor because
// the rule (silence since the last byte, one Read out at a time) is plain and testable; the actor
// sends the Read and says what its answer means.
#pragma once

#include <chrono>

#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

class keep_alive_check {
public:
  using time_point = std::chrono::steady_clock::time_point;

  // Bytes came in (a new link counts as having been heard at its start).
  void heard(time_point now) noexcept { last_received_ = now; }
  // A keep-alive Read is due: `interval` is on (not zero), none is out, and nothing came for that long.
  bool due(time_point now, std::chrono::milliseconds interval) const noexcept {
    return interval.count() > 0 && !out_ && now - last_received_ >= interval;
  }
  void sent() noexcept { out_ = true; }
  // Answered, or no longer awaited (the link is gone).
  void done() noexcept { out_ = false; }
  bool out() const noexcept { return out_; }

  // The Read it sends: the Value of Server_ServerStatus_State (ns=0;i=2259), which every server has.
  static ua::read_request request();

private:
  time_point last_received_{};
  bool out_ = false;
};

}  // namespace uactor::actors
