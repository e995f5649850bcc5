// A broker that takes its exit one multiplexer turn after the exit message arrives.
//
// CAF 0.17's default multiplexer queues a socket's registration and its removal until the end of
// its loop turn, and squashes the two into nothing when both fall in one turn; it then never calls
// the handler's removed_from_loop, the only place where a doorman or scribe drops the reference it
// holds on itself. A broker that adds a servant and is told to exit before the turn ends (a server
// stopped the moment it opened) would leak that servant and its socket (docs/decisions/0009,
// addendum "a servant added and removed in one turn"). Posted through the multiplexer, the exit
// comes back in the next turn, after the registration was made.
#pragma once

#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/system_messages.hpp>
#include <caf/io/abstract_broker.hpp>
#include <caf/send.hpp>

namespace uactor::actors {

inline void exit_a_turn_later(caf::io::abstract_broker* self) {
  self->set_exit_handler([self, posted = std::make_shared<bool>(false)](caf::exit_msg& msg) {
    if (!msg.reason) return;  // as CAF's default handler: a normal exit of a linked actor is no reason to end
    if (*posted) {
      self->quit(std::move(msg.reason));
      return;
    }
    *posted = true;
    self->backend().post([me = caf::actor_cast<caf::actor>(self), reason = std::move(msg.reason)] {
      caf::anon_send<caf::message_priority::high>(me, caf::exit_msg{me.address(), reason});
    });
  });
}

}  // namespace uactor::actors
