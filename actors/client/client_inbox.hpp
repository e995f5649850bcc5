// The door from the application's threads to the client's connection actor (client_inbox). Apart
// from the actor because it is the one piece both sides touch: its lock, its wake-up socket and
// the thread mark of the actor's own events are all here (docs/decisions/0023, 0032).
#pragma once

#include <mutex>
#include <vector>

#include <caf/all.hpp>

#include "actors/client/client_call.hpp"
#include "uactor/inbox_wake_up.hpp"

namespace uactor::actors {

using client_inbox_wake_atom = caf::atom_constant<caf::atom("uawake")>;

// The door from the application's threads to the connection actor, without a CAF message per
// request (docs/decisions/0023): calls wait in a queue whose storage is kept, and the actor is woken
// by one byte on a socket pair that it reads like its connection (CAF delivers a receive without
// allocating), only when no wake-up is outstanding already. A call made on the actor's own thread
// while it handles an event (a callback that sends the next request) needs no wake-up at all: the
// actor takes the queue when the event is done. With inbox_wake_up::message the wake-up is a
// client_inbox_wake_atom message instead (thousands of clients in one process: no descriptors).
class client_inbox {
public:
  explicit client_inbox(inbox_wake_up wake_up = inbox_wake_up::socket_pair);
  ~client_inbox();
  client_inbox(const client_inbox&) = delete;
  client_inbox& operator=(const client_inbox&) = delete;

  // From any thread. False when the actor is gone (the caller answers the call).
  bool submit(client_call_ptr call);

  // ---- the actor's side
  // The socket the actor reads its wake-ups from (given away once, to the broker); -1 when the
  // wake-ups are messages.
  int take_actor_socket() noexcept;
  // inbox_wake_up::message: the actor the wake-ups go to (weakly held: the actor owns the inbox).
  void set_actor(const caf::actor& actor);
  // Moves the queued calls into `out` (whose storage is swapped, not freed).
  void take(std::vector<client_call_ptr>& out);
  // The actor is gone: queued calls and every later submit are answered Bad_ConnectionClosed.
  void close(ua::status_code why);

  // Marks the calling thread as the actor's, handling an event, while the scope lives.
  class handling {
  public:
    explicit handling(client_inbox* inbox) noexcept;
    ~handling();
    handling(const handling&) = delete;
    handling& operator=(const handling&) = delete;

  private:
    client_inbox* previous_;
  };

private:
  std::mutex mutex_;
  std::vector<client_call_ptr> queue_;
  bool wake_outstanding_ = false;
  bool closed_ = false;
  int app_socket_ = -1;
  int actor_socket_ = -1;
  caf::weak_actor_ptr actor_;  // inbox_wake_up::message
};

}  // namespace uactor::actors
