// Renewing the channel's security token (Part 4 §5.5.2, Part 6 §6.7.4) as the client's supervision
// sees it: how long until the renewal is due, whether one is out, and when an unanswered one means
// the link is lost. Apart from client_channel_state because the channel knows when its token is
// due, not how long we wait for the answer: that is the supervision's. Plain state; the actor
// carries the timer and sends the OpenSecureChannel.
#pragma once

#include <chrono>

namespace uactor::actors {

class token_renewal {
public:
  using time_point = std::chrono::steady_clock::time_point;

  // The timer to arm at `now` for a renewal due at `due`: whole milliseconds and one more, so that
  // it never fires before the channel says the token needs renewing.
  static std::chrono::milliseconds wait(time_point due, time_point now) noexcept {
    const auto left = due > now ? due - now : std::chrono::steady_clock::duration::zero();
    return std::chrono::duration_cast<std::chrono::milliseconds>(left) + std::chrono::milliseconds(1);
  }

  void sent(time_point now) noexcept {
    out_ = true;
    sent_ = now;
  }
  // Answered, or no longer awaited (the link is gone).
  void done() noexcept { out_ = false; }
  bool out() const noexcept { return out_; }
  // One is out and has waited longer than `limit`: the server is not answering on this link.
  bool overdue(time_point now, std::chrono::milliseconds limit) const noexcept { return out_ && now - sent_ > limit; }

private:
  bool out_ = false;
  time_point sent_{};
};

}  // namespace uactor::actors
