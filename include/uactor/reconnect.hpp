// The supervised client's options and the events it tells the application (docs/decisions/0017):
// what a client does when its connection is lost. No CAF types; part of client_options.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "uactor/ua/status_code.hpp"

namespace uactor {

// How a lost session came back (Part 4 §6.7, in the order tried).
enum class recovery_kind : std::uint8_t {
  reactivated,  // ActivateSession on a new secure channel (Part 4 §5.6.3): session and subscriptions kept
  transferred,  // a new session; the subscriptions moved into it with TransferSubscriptions (§5.14.7)
  recreated,    // a new session; the subscriptions and their items created again (the server lost them)
};

enum class connection_event_kind : std::uint8_t {
  lost,          // the connection is gone (`status` says why); requests are held or failed (options)
  reconnecting,  // attempt `attempt` is under way
  reconnected,   // the session works again (`how`); held requests go out now
  gave_up,       // max_attempts reached: the client is closed (`status`: the last failure)
  // The redundant client (uactor/redundant_client.hpp, docs/decisions/0041):
  switched,      // another server of the redundant set is in use now (`endpoint`, `reason`)
};

// Why a redundant client uses the server it switched to (Part 4 §6.6.2.4.5).
enum class failover_reason : std::uint8_t {
  initial,          // the first choice at connect()
  connection_lost,  // the server in use failed (`status`) or was not connected
  service_level,    // its ServiceLevel fell below the healthy range and below this one's, or to 0/1
};

struct connection_event {
  connection_event_kind what = connection_event_kind::lost;
  ua::status_code status;
  recovery_kind how = recovery_kind::reactivated;  // reconnected only
  std::uint32_t attempt = 0;                       // reconnecting, reconnected, gave_up
  // switched only: which server (its index in redundant_client_options::endpoint_urls, its URL),
  // why, and its ServiceLevel when chosen; `previous` the server left (no_endpoint for none).
  static constexpr std::size_t no_endpoint = static_cast<std::size_t>(-1);
  failover_reason reason = failover_reason::initial;
  std::size_t endpoint = no_endpoint;
  std::size_t previous = no_endpoint;
  std::string endpoint_url;
  int service_level = -1;
};

using connection_event_handler = std::function<void(const connection_event&)>;

struct reconnect_options {
  // false: the classic client, whose connection ends with its first loss (every request after it
  // answered with the status that ended it).
  bool enabled = false;
  // Delay before attempt n (from 0): initial_delay x 2^n, at most max_delay, +/- jitter x delay.
  std::chrono::milliseconds initial_delay{100};
  std::chrono::milliseconds max_delay{10'000};
  double jitter = 0.25;
  std::uint32_t max_attempts = 0;  // per outage; 0: forever (until close())
  // Loss detection besides socket errors, publish silence and a failed token renewal: with nothing
  // received for this long, a Read of Server_ServerStatus_State (Part 4 §6.7); no answer within
  // keep_alive_timeout is a loss. Zero: no keep-alive Read.
  std::chrono::milliseconds keep_alive_interval{5'000};
  std::chrono::milliseconds keep_alive_timeout{5'000};
  // Requests made while the connection is down: held (at most max_held_requests, each with its
  // request timeout running) and sent once the session works again, or failed at once with
  // Bad_ServerNotConnected (hold_requests false). Beyond the bound: Bad_ResourceUnavailable.
  bool hold_requests = true;
  std::size_t max_held_requests = 1'000;
  // TransferSubscriptions' sendInitialValues. false by default: the Republish loop that follows
  // recovers every message the server kept, and initial values would repeat values already seen.
  bool transfer_initial_values = false;
  // Called on the client's CAF thread, like the subscription handlers; keep it short.
  connection_event_handler on_event;
};

}  // namespace uactor
