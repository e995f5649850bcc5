// The client connection actor: a CAF io broker that owns one TCP connection to a server, its
// secure channel (client_channel_state) and its session. The application hands it requests as
// client_call objects (client_call.hpp) through a client_inbox (client_inbox.hpp); each call's
// callback gets the response or the status that took its place.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/client/client_call.hpp"
#include "actors/client/client_inbox.hpp"
#include "actors/client/endpoint_url.hpp"
#include "actors/client/reverse_listener.hpp"
#include "actors/wss/wss_client.hpp"
#include "actors/wss/wss_native_client.hpp"
#include "engine/client/session_security.hpp"
#include "engine/client/subscription.hpp"
#include "uactor/reconnect.hpp"
#include "uactor/ua/expected.hpp"
#include "protocol/generated/type_codecs.hpp"
#include "protocol/uatcp.hpp"

namespace uactor::actors {

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
  // Reverse connect (Part 6 §7.1.3): a reconnect waits for the next socket a server dials to this
  // listener (its ReverseHello checked) instead of connecting to host:port.
  std::shared_ptr<reverse_connect_listener> reverse;
  // opc.wss (Part 6 §7.5): connections are made through this connector (TLS and a WebSocket to
  // host:port/wss_path), the first one and every reconnect's.
  std::shared_ptr<wss_connector> wss;
  std::string wss_path = "/";
  // opc.wss natively (docs/decisions/0077): the TCP connection is made as for opc.tcp, and the
  // link runs TLS and the WebSocket over it (actors/wss/wss_native_client), the first connection
  // and every reconnect's. Set instead of `wss` (the door).
  std::shared_ptr<const wss_client_endpoint> wss_native;
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

// The same over a socket made already (a reverse connection whose ReverseHello passed): never blocks.
ua::expected<caf::actor> spawn_client_actor_on_socket(caf::actor_system& system, std::shared_ptr<socket_handoff> socket,
                                                      client_actor_config config, connected_handler connected);

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_close>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::client_open_session>)
