// The client connection actor: a CAF io broker that owns one TCP connection to a server, its
// secure channel (client_channel_state) and its session. The application hands it requests as
// client_call objects; each call's callback gets the response or the status that took its place.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/client/security.hpp"
#include "actors/client/subscription.hpp"
#include "actors/client/supervision_options.hpp"
#include "protocol/expected.hpp"
#include "protocol/generated/types.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {

// The answer to one request: the response as decoded (a ServiceFault too), or the status that
// replaced it: Bad_Timeout, Bad_ConnectionClosed, Bad_RequestTooLarge, an abort chunk's error.
using response_handler = std::function<void(ua::expected<ua::extension_object>)>;

// One service request in flight. Its callback runs exactly once, on the actor's thread (CAF's
// multiplexer thread): with the answer, or with Bad_ConnectionClosed when the call is dropped
// unanswered (the actor is gone, the connection broke). Shared between the application, which
// makes it, and the actor, which fills its RequestHeader and answers it.
class client_call {
public:
  template <class Request>
  static std::shared_ptr<client_call> make(Request request, response_handler done, std::chrono::milliseconds timeout) {
    std::shared_ptr<client_call> c(new client_call(std::move(done), timeout));
    c->request_ = ua::extension_object(std::move(request));
    // The body lives on the heap and moves with the extension_object: the pointer stays valid.
    c->header_ = &c->request_.get_if<Request>()->request_header;
    return c;
  }
  client_call(const client_call&) = delete;
  client_call& operator=(const client_call&) = delete;
  ~client_call();

  ua::request_header& header() noexcept { return *header_; }
  const ua::extension_object& request() const noexcept { return request_; }
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  // Hands the answer to the callback; only the first call counts.
  void finish(ua::expected<ua::extension_object> answer);
  bool finished() const noexcept { return !done_; }

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

private:
  client_call(response_handler done, std::chrono::milliseconds timeout) : done_(std::move(done)), timeout_(timeout) {}
  ua::extension_object request_;
  ua::request_header* header_ = nullptr;
  response_handler done_;
  std::chrono::milliseconds timeout_;
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
};

// Messages the actor takes (besides the broker's own):
//   (client_call_atom, std::shared_ptr<client_call>)  a request; answered through the call
//   (client_close_atom, std::shared_ptr<client_close>) close the sessions, channel and connection
//   (client_open_session_atom, std::shared_ptr<client_open_session>) one more session, same channel
using client_call_atom = caf::atom_constant<caf::atom("uacall")>;
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

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_call>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_close>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_open_session>)
