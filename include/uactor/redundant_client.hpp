// A client of a redundant server set (OPC UA Part 4 §6.6.2, non-transparent redundancy): the
// application's requests and subscriptions as with uactor::client, served by the best server of the
// set, switched when it fails or its ServiceLevel drops (docs/decisions/0041). No CAF types.
//
// Who owns what: the redundant_client owns one uactor::client per server it is connected to, their
// actor system, and a thread of its own that connects, watches and switches. Requests, callbacks
// and subscription handlers as uactor::client's (callbacks on a CAF thread); on_event runs on the
// redundant client's thread. Destroying it closes every connection (as close()).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "uactor/client.hpp"
#include "uactor/redundancy.hpp"

namespace uactor {

struct redundant_client_options {
  // The servers of the set, in order of preference when their ServiceLevels are equal.
  std::vector<std::string> endpoint_urls;
  // Part 4 §6.6.2.4.5 (Table 111):
  //   cold: one connection; at a failover, connect to the best other server and create the
  //     session and the subscriptions there;
  //   warm: connected to every server, the subscriptions created on each, their items Disabled on
  //     the backups (SetMonitoringMode, Part 4 §5.12.4); a failover enables them on the new one;
  //   hot: connected to every server, the subscriptions Reporting on each (Hot (b)); the
  //     application's handlers see the data of the server in use only.
  // none is taken as cold.
  redundancy_support mode = redundancy_support::warm;
  // Each connection's options (endpoint_url is replaced; reconnect is not used: the redundant
  // client reconnects the servers itself).
  client_options client;
  // The ServiceLevel (i=2267) of each connected server is watched by a subscription of its own at
  // this publishing interval (its keep-alive: 5 intervals); a silent or closed one is a lost server.
  std::chrono::milliseconds service_level_interval{100};
  // A server not connected is tried again this often (warm and hot; cold: when one is needed).
  // Each attempt is bounded by client.connect_timeout; the application's subscription calls wait
  // for an attempt under way (the requests do not).
  std::chrono::milliseconds retry_interval{500};
  // ServiceLevel at or above it is healthy (Part 4 §6.6.2.4.2, Table 109: 200).
  std::uint8_t healthy_service_level = 200;
  // switched (which server, why, `previous`), lost (no server usable: requests get
  // Bad_ServerNotConnected until one is). On the redundant client's thread (the initial `switched`:
  // on connect()'s caller's). Never call the redundant client's blocking functions from it or from
  // a subscription handler.
  connection_event_handler on_event;
};

class redundant_client {
public:
  // Connects to the servers (cold: until the best one is known, then that one only), reads their
  // ServiceLevels and uses the best; `on_event` is told `switched` (reason initial). Fails when no
  // server can be used (the first connection's status, or Bad_NoCommunication when none is
  // usable).
  static ua::expected<redundant_client> connect(redundant_client_options options);

  redundant_client(redundant_client&&) noexcept;
  redundant_client& operator=(redundant_client&&) noexcept;
  ~redundant_client();

  // To the server in use: Bad_ServerNotConnected when there is none. A request in flight when it
  // fails gets its status (Bad_ConnectionClosed): it is not sent again to the next server.
  void read(ua::read_request request, client_callback<ua::read_response> done);
  void write(ua::write_request request, client_callback<ua::write_response> done);
  void call(ua::call_request request, client_callback<ua::call_response> done);
  void browse(ua::browse_request request, client_callback<ua::browse_response> done);
  ua::expected<ua::read_response> read_sync(ua::read_request request);
  ua::expected<ua::write_response> write_sync(ua::write_request request);
  ua::expected<ua::call_response> call_sync(ua::call_request request);
  ua::expected<ua::browse_response> browse_sync(ua::browse_request request);

  // Subscriptions, kept on every server the mode wants them on and created again on a server that
  // comes (back), with the same settings, items, client handles and filters. Their ids are the
  // redundant client's (the same on every server and across switches): the handlers get them, and
  // requests give them. Fast handlers only (on_data, on_events; on_status gets status_change,
  // silent, recovered, data_lost of the server in use, `closed` at close()). The answer is the
  // server in use's, its subscription_id replaced.
  ua::expected<ua::create_subscription_response> create_subscription_sync(subscription_settings settings,
                                                                           subscription_handlers handlers);
  // items_to_create with the application's client handles (their monitoring modes are the
  // application's on the server in use).
  ua::expected<ua::create_monitored_items_response> create_monitored_items_sync(ua::create_monitored_items_request request);
  ua::expected<ua::delete_subscriptions_response> delete_subscriptions_sync(ua::delete_subscriptions_request request);

  // The server in use (its index in endpoint_urls), or connection_event::no_endpoint.
  std::size_t active_endpoint() const noexcept;
  // The last ServiceLevel of each server; -1 when not connected or not known. Not from a handler.
  std::vector<int> service_levels() const;
  // NotificationMessages with data or events that came from servers not in use and were dropped:
  // hot mode's price (warm backups, Disabled, send none; cold has no backup connection).
  std::uint64_t dropped_backup_messages() const noexcept;

  // Closes every connection; the subscriptions' handlers are told `closed` (Good). Blocks.
  ua::status_code close();

  struct impl;

private:
  explicit redundant_client(std::unique_ptr<impl> p) noexcept;
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor
