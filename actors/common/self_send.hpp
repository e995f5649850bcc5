// Messages an actor sends itself (timers, notes to self), sent without a sender.
//
// CAF 0.17's brokers do not empty their mailbox when they end (an event-based actor does), and a
// queued message holds a strong reference to its sender. A message a broker sent itself and had
// not yet taken when it ended therefore keeps the broker alive, and the broker keeps the message:
// a cycle LeakSanitizer reports after the actor system is gone (docs/decisions/0009, addendum
// 2026-12-03). A message without a sender holds nothing; none of these handlers reads the sender.
#pragma once

#include <chrono>
#include <utility>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

namespace uactor::actors {

template <class Self, class... Ts>
void send_to_self(Self* self, Ts&&... xs) {
  caf::anon_send(caf::actor_cast<caf::actor>(self), std::forward<Ts>(xs)...);
}

template <class Self, class Rep, class Period, class... Ts>
void delayed_send_to_self(Self* self, std::chrono::duration<Rep, Period> delay, Ts&&... xs) {
  caf::delayed_anon_send(caf::actor_cast<caf::actor>(self), delay, std::forward<Ts>(xs)...);
}

}  // namespace uactor::actors
