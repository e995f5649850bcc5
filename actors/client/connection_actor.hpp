// The client connection actor: a CAF io broker that owns one TCP connection to a server, its
// secure channel (client_channel_state) and its session. The application hands it requests as
// client_call objects; each call's callback gets the response or the status that took its place.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "uactor/inbox_wake_up.hpp"
#include "engine/client/session_security.hpp"
#include "engine/client/subscription.hpp"
#include "uactor/reconnect.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {

// The answer to one request: the response as decoded (a ServiceFault too), or the status that
// replaced it: Bad_Timeout, Bad_ConnectionClosed, Bad_RequestTooLarge, an abort chunk's error.
using response_handler = std::function<void(ua::expected<ua::extension_object>)>;

class client_call;
// Calls are shared by intrusive count (one allocation, no control block): the application's
// handle, the inbox and the actor's table of pending calls each hold one while they need it.
using client_call_ptr = caf::intrusive_ptr<client_call>;

// One service request, made by the application or by the client itself. It is answered exactly
// once per send, on the actor's thread (CAF's multiplexer thread): with the response, decoded into
// the call's own response() storage, or with the status that took its place (Bad_ConnectionClosed
// when the call is dropped unanswered: the actor is gone, the connection broke).
//
// A call is reusable (docs/decisions/0023): its request, its response storage and the call object
// itself are kept from one send to the next, so that a request sent again allocates nothing. When
// the last reference goes, recycle() decides what happens to it: deleted (the default), or back to
// the pool it came from.
class client_call {
public:
  // A call answered through `done`, for the client's own requests (CreateSession, Republish, ...).
  template <class Request>
  static client_call_ptr make(Request request, response_handler done, std::chrono::milliseconds timeout);

  client_call(const client_call&) = delete;
  client_call& operator=(const client_call&) = delete;

  ua::request_header& header() noexcept { return *header_; }
  const ua::extension_object& request() const noexcept { return request_; }
  ua::extension_object& request() noexcept { return request_; }
  // Where the channel decodes the answer (reused: the same body type decodes in place).
  ua::extension_object& response() noexcept { return response_; }
  const ua::extension_object& response() const noexcept { return response_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  void set_timeout(std::chrono::milliseconds t) noexcept { timeout_ = t; }

  // Starts a send: the call is answered once more. False when it is still waiting for an answer.
  bool arm() noexcept { return !armed_.exchange(true, std::memory_order_acq_rel); }
  // The answer is in response(): runs on_finished(Good). Only the first finish of a send counts.
  void finish_answered();
  // No answer: runs on_finished(status) with a bad status.
  void finish(ua::status_code failure);
  bool finished() const noexcept { return !armed_.load(std::memory_order_acquire); }

  // Subscription bookkeeping, run by the actor on its thread: `before_send` just before the request
  // goes out (per-item handlers for CreateMonitoredItems), `on_answer` with the server's answer
  // before the callback (CreateSubscription registers the subscription and starts Publish, ...).
  // Neither runs when the call ends without an answer (timeout, closed connection).
  using engine_hook = std::function<void(subscription_engine&)>;
  using answer_hook = std::function<void(subscription_engine&, const ua::extension_object& answer)>;
  engine_hook before_send;
  answer_hook on_answer;
  // Another session of this connection (client::open_session): its AuthenticationToken goes into
  // the RequestHeader instead of the connection's own. Shared, so a call copies no token.
  std::shared_ptr<const ua::node_id> session_token;
  // Made by the application (not by the client itself): what the supervised client's book of
  // subscriptions learns from (docs/decisions/0017).
  bool from_application = false;

  friend void intrusive_ptr_add_ref(client_call* c) noexcept { c->refs_.fetch_add(1, std::memory_order_relaxed); }
  friend void intrusive_ptr_release(client_call* c) noexcept {
    if (c->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) c->last_reference_gone();
  }

protected:
  explicit client_call(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  virtual ~client_call() = default;

  // Sets the request's body to a T (reusing one that is a T already) and returns it.
  template <class Request>
  Request& request_as() {
    auto& r = request_.emplace<Request>();
    header_ = &r.request_header;
    return r;
  }
  // The answer of one send: Good with the response in response(), or the status that replaced it.
  virtual void on_finished(ua::status_code status) = 0;
  // The last reference is gone (the call is not armed any more): delete, or keep for reuse.
  virtual void recycle() noexcept { delete this; }
  // For a pool handing the call out again: one reference, the caller's.
  void revive() noexcept { refs_.store(1, std::memory_order_relaxed); }

private:
  void last_reference_gone() noexcept;

  std::atomic<std::uint32_t> refs_{0};
  std::atomic<bool> armed_{false};
  ua::extension_object request_;
  ua::request_header* header_ = nullptr;
  ua::extension_object response_;
  std::chrono::milliseconds timeout_;
};

// A call answered through a std::function taking the response by value (the client's own requests).
class function_call final : public client_call {
public:
  template <class Request>
  function_call(Request request, response_handler done, std::chrono::milliseconds timeout)
      : client_call(timeout), done_(std::move(done)) {
    request_as<Request>() = std::move(request);
  }

private:
  void on_finished(ua::status_code status) override;
  response_handler done_;
};

template <class Request>
client_call_ptr client_call::make(Request request, response_handler done, std::chrono::milliseconds timeout) {
  client_call_ptr c(new function_call(std::move(request), std::move(done), timeout));
  c->arm();
  return c;
}

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

// Ends a connection: CloseSession (when there is a session), CloseSecureChannel, close. `done`
// runs once, with Good or the status the connection had already ended with; with
// Bad_ConnectionClosed when the request is dropped unanswered.
struct client_close {
  std::function<void(ua::status_code)> done;

  client_close() = default;
  explicit client_close(std::function<void(ua::status_code)> f) : done(std::move(f)) {}
  client_close(const client_close&) = delete;
  client_close& operator=(const client_close&) = delete;
  ~client_close() { finish(ua::status::bad_connection_closed); }
  void finish(ua::status_code sc) {
    auto d = std::move(done);
    done = nullptr;
    if (d) d(sc);
  }
};

// Opens one more session over the connection's secure channel: CreateSession and ActivateSession
// with the connection's security and identity (Part 4 §5.6.2, §5.6.3). `done` runs once, with the
// new session's AuthenticationToken or why not (the connection is unaffected by a failure);
// Bad_ConnectionClosed when the request is dropped unanswered.
struct client_open_session {
  std::string name;
  std::function<void(ua::expected<ua::node_id>)> done;

  client_open_session() = default;
  client_open_session(std::string n, std::function<void(ua::expected<ua::node_id>)> f)
      : name(std::move(n)), done(std::move(f)) {}
  client_open_session(const client_open_session&) = delete;
  client_open_session& operator=(const client_open_session&) = delete;
  ~client_open_session() { finish(ua::status::bad_connection_closed); }
  void finish(ua::expected<ua::node_id> r) {
    auto d = std::move(done);
    done = nullptr;
    if (d) d(std::move(r));
  }
};

struct client_actor_config {
  std::string endpoint_url;                  // opc.tcp://host:port[/path], sent in Hello and CreateSession
  std::string session_name = "uactor client";
  bool create_session = true;                // false: a secure channel only (GetEndpoints, FindServers)
  std::chrono::milliseconds connect_timeout{10'000};   // Hello to ActivateSession, all of it
  std::chrono::milliseconds session_timeout{3'600'000};  // RequestedSessionTimeout
  std::chrono::milliseconds token_lifetime{3'600'000};   // RequestedLifetime of the channel token
  ua::transport_limits limits;               // offered in the Hello
  client_session_security security;          // policy None and anonymous unless resolved otherwise
  std::chrono::milliseconds request_timeout{10'000};  // the least TimeoutHint of a Publish
  subscription_engine_config subscriptions;
  // Supervision (docs/decisions/0017): with reconnect.enabled, a loss after the session first
  // worked is recovered in place (new connection to host:port, same actor, same pending state).
  reconnect_options reconnect;
  std::string host;
  std::uint16_t port = 0;
  // Where the application's calls come from (spawn_client_actor makes one when null).
  std::shared_ptr<client_inbox> inbox;
};

// Messages the actor takes (besides the broker's own and the inbox's wake-ups; requests come
// through config.inbox):
//   (client_close_atom, std::shared_ptr<client_close>) close the sessions, channel and connection
//   (client_open_session_atom, std::shared_ptr<client_open_session>) one more session, same channel
using client_close_atom = caf::atom_constant<caf::atom("uaclose")>;
using client_open_session_atom = caf::atom_constant<caf::atom("uaopens")>;

// Told once how connecting went: Good once the session is activated (or the channel open when
// create_session is false), otherwise why it failed (the actor has then quit).
using connected_handler = std::function<void(ua::status_code)>;

// Connects to host:port (blocking the caller for the TCP connect only; the middleman must be
// loaded) and spawns the broker, which starts Hello at once. Bad_ConnectionRejected when the TCP
// connection cannot be made (no actor then, `connected` not called).
ua::expected<caf::actor> spawn_client_actor(caf::actor_system& system, const std::string& host, std::uint16_t port,
                                            client_actor_config config, connected_handler connected);

struct endpoint_address {
  std::string host;
  std::uint16_t port = 4840;
};
// Part 6 §7.1.2.3 / §12.1: opc.tcp://host[:port][/path]; Bad_TcpEndpointUrlInvalid otherwise.
ua::expected<endpoint_address> parse_endpoint_url(std::string_view url);

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_close>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_open_session>)
