// The OPC UA client for applications: one connection, one secure channel (policy None or a secured
// one, client_options::security), one session. No CAF types here (a pimpl); the client owns its
// actor and, unless given one, its actor system.
//
// Who owns what:
// - `client` owns the connection actor; destroying the client closes the connection (as close()).
// - connect(options) makes an actor system of its own (2 scheduler threads, the io middleman) and
//   the client owns it; connect(system, options) uses the application's system, which must have
//   the io middleman loaded and must outlive the client.
// - Requests are taken by value; each callback owns what it is given. Callbacks run on a CAF
//   thread (the io multiplexer's): keep them short and never call a *_sync function from one
//   (it would wait for the thread it blocks).
// - Requests may be made from any thread, also while others are in flight; close() once, from
//   one thread (requests racing with it are answered Bad_ConnectionClosed).
// - Every callback runs exactly once: with the response, or with the status that replaced it
//   (Bad_Timeout, Bad_ConnectionClosed, Bad_RequestTooLarge, the service result of a
//   ServiceFault or of a response whose ServiceResult is bad).
// - Subscriptions (create_subscription ...): the client keeps Publish requests at the server,
//   acknowledges, fills gaps with Republish and watches for silence by itself; the data and status
//   handlers are owned by the client until the subscription ends, and run on the same CAF thread
//   (one at a time, in the order the server sent). A data handler gets views into the decoded
//   response, valid during the call only: copy what you keep. What the handlers touch must live
//   until close() has returned (close() and a lost connection report `closed` to them last).
//   docs/decisions/0011.
// - Requests sent again and again: prepare() keeps the call, the request and the response storage
//   (prepared_request): no allocation per send in steady state. docs/decisions/0023.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "uactor/inbox_wake_up.hpp"
#include "uactor/subscription.hpp"
#include "uactor/client_security.hpp"
#include "uactor/reconnect.hpp"
#include "uactor/reverse_listener.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/ua/types.hpp"

namespace caf {
class actor_system;
class actor_system_config;
}

namespace uactor {

struct client_options {
  std::string endpoint_url;  // opc.tcp://host:port[/path]
  std::string session_name = "uactor client";
  std::chrono::milliseconds request_timeout{10'000};  // per request: TimeoutHint and a local timer
  std::chrono::milliseconds connect_timeout{10'000};  // TCP connect to ActivateSession
  bool create_session = true;  // false: a secure channel only, for GetEndpoints / FindServers
  std::chrono::milliseconds session_timeout{3'600'000};  // RequestedSessionTimeout
  std::chrono::milliseconds token_lifetime{3'600'000};   // RequestedLifetime; renewed at 75 %
  // Publish requests kept at the server: two per subscription, at most this many (fewer when the
  // server answers Bad_TooManyPublishRequests).
  std::size_t max_publish_requests = 20;
  // false: NotificationMessages are never acknowledged; they stay in the server's retransmission
  // queue for republish() (diagnostics and tests: the server's queue fills up).
  bool acknowledge_notifications = true;
  // Policy and mode of the endpoint, the certificate store, the user identity (default: None,
  // anonymous). A secured connection first asks the server's endpoints over None and checks its
  // certificate against security.pki_dir/trusted (Bad_CertificateUntrusted otherwise, the
  // certificate then in rejected/ for an operator to trust).
  uactor::client_security_options security;
  // ---- Supervision (docs/decisions/0017): reconnect.enabled makes the client survive cut links
  // and server restarts once connected: the session is reactivated, moved or created again with
  // its subscriptions (Part 4 §6.7); requests made meanwhile are held or failed; what happened goes
  // to reconnect.on_event and to the subscriptions' status handlers. connect() itself still fails
  // when the first connection cannot be made.
  reconnect_options reconnect;
  // How calls from the application's threads wake the connection actor (docs/decisions/0032):
  // socket_pair (no allocation per call; two file descriptors per client beside its connection)
  // or message (a CAF message per wake-up, coalesced; no descriptor: for thousands of mostly idle
  // clients in one process, where descriptors run out first).
  uactor::inbox_wake_up inbox_wake_up = uactor::inbox_wake_up::socket_pair;
  // ---- Reverse connect (Part 6 §7.1.3, docs/reverse-connect.md): the server dials the client.
  // reverse_listen (HOST:PORT) makes connect() open a listener (uactor/reverse_listener.hpp) and
  // wait there, up to connect_timeout, for a server's socket whose ReverseHello names
  // expected_server_uri (any server when empty) and endpoint_url (any when empty: the client then
  // uses the RHE's EndpointUrl); reverse_listener is one opened beforehand (it wins, with its own
  // expectations). A secured connection asks for the endpoints over a first reverse connection.
  // Supervised, a lost connection waits for the server's next one.
  std::string reverse_listen;
  std::shared_ptr<uactor::reverse_listener> reverse_listener;
  std::string expected_server_uri;
  // ---- opc.wss (Part 6 §7.5, docs/wss.md): an endpoint_url opc.wss://host[:port][/path] goes
  // over TLS and a WebSocket (subprotocol opcua+uacp). The server's TLS certificate must be in
  // security.pki_dir/trusted (or issued by a CA there) and name the URL's host, unless
  // wss_accept_any_certificate: then the UA security policy alone carries the trust (with None,
  // nothing does: for tests and for servers whose certificate is checked otherwise).
  bool wss_accept_any_certificate = false;
  // How: "native" (TLS and the WebSocket inside the client's connection actor, docs/decisions/0077)
  // or "door" (a thread with Boost.Beast and a socket pair, docs/decisions/0057; kept for the A/B).
  // Empty: the environment's UACTOR_WSS_CLIENT_TRANSPORT, else native. Another value:
  // Bad_InvalidArgument from connect().
  std::string wss_transport;
};

template <class Response>
using client_callback = std::function<void(ua::expected<Response>)>;

class client;

namespace detail {
class prepared_call_state;  // the client's call object (client.cpp)

// The untyped part of a prepared_request: one reference to the call object.
class prepared_core {
public:
  prepared_core() = default;
  explicit prepared_core(prepared_call_state* s) noexcept : state_(s) {}
  prepared_core(prepared_core&& o) noexcept : state_(o.state_) { o.state_ = nullptr; }
  prepared_core& operator=(prepared_core&& o) noexcept;
  ~prepared_core();

  explicit operator bool() const noexcept { return state_ != nullptr; }
  void* request_body() const noexcept;
  const ua::extension_object& response() const noexcept;
  ua::status_code send();
  ua::status_code send_sync();  // Good: response() holds the answer

private:
  prepared_call_state* state_ = nullptr;
};

// The typed answer: a ServiceFault or a bad ServiceResult becomes that status (Part 4 §7.33: the
// whole request failed); another response type is Bad_UnknownResponse.
template <class Response>
ua::expected<const Response*> typed_answer(ua::status_code status, const ua::extension_object& answer) {
  if (status.is_bad()) return status;
  if (const auto* r = answer.get_if<Response>()) {
    if (r->response_header.service_result.is_bad()) return r->response_header.service_result;
    return r;
  }
  if (const auto* f = answer.get_if<ua::service_fault>())
    if (f->response_header.service_result.is_bad()) return f->response_header.service_result;
  return ua::status::bad_unknown_response;
}
}  // namespace detail

// A request prepared once and sent many times (client::prepare, docs/decisions/0023): the client
// keeps its call object, the request and the storage the response is decoded into from one send to
// the next, so that a send in steady state allocates nothing, with a callback or blocking. (read()
// and the others allocate the response they hand over by value, and the application builds a new
// request each time.) The client must outlive it; destroying it while a send is unanswered is fine.
// One send at a time: make several for more in flight. request() and response() belong to the
// client from send() until the answer has been handed over (the callback has run, or send_sync()
// has returned); change request() between sends (the RequestHeader is the client's).
template <class Request, class Response>
class prepared_request {
public:
  // The answer of one send, on a CAF thread: the response, valid until the next send(), or the
  // status that replaced it (as client_callback's).
  using callback = std::function<void(ua::expected<const Response*>)>;

  prepared_request() = default;  // empty: made by client::prepare
  explicit prepared_request(detail::prepared_core core) noexcept : core_(std::move(core)) {}  // the client's
  explicit operator bool() const noexcept { return bool(core_); }

  Request& request() noexcept { return *static_cast<Request*>(core_.request_body()); }
  // The response of the last answered send (null before one, or when it was a ServiceFault).
  const Response* response() const noexcept { return core_.response().template get_if<Response>(); }
  // Asynchronous: the callback given to prepare() runs once with the answer. Bad_InvalidState,
  // and no callback, while the previous send is unanswered; Good otherwise.
  ua::status_code send() { return core_.send(); }
  // Blocking, never from a callback (the callback of prepare() does not run).
  ua::expected<const Response*> send_sync() {
    const auto sc = core_.send_sync();
    return detail::typed_answer<Response>(sc, core_.response());
  }

private:
  detail::prepared_core core_;
};

using prepared_read = prepared_request<ua::read_request, ua::read_response>;
using prepared_write = prepared_request<ua::write_request, ua::write_response>;
using prepared_browse = prepared_request<ua::browse_request, ua::browse_response>;
using prepared_browse_next = prepared_request<ua::browse_next_request, ua::browse_next_response>;
using prepared_call = prepared_request<ua::call_request, ua::call_response>;

// One more session over a client's secure channel (client::open_session): the same security and
// identity, its own AuthenticationToken (Part 4 §5.6: one channel may carry several sessions). A
// handle: the client owns the connection and must outlive it; client::close() closes every session.
// Requests and callbacks as the client's; no subscriptions.
class client_session {
public:
  client_session(client_session&&) noexcept;
  client_session& operator=(client_session&&) noexcept;
  ~client_session();

  void read(ua::read_request request, client_callback<ua::read_response> done);
  void write(ua::write_request request, client_callback<ua::write_response> done);
  void browse(ua::browse_request request, client_callback<ua::browse_response> done);
  ua::expected<ua::read_response> read_sync(ua::read_request request);
  ua::expected<ua::write_response> write_sync(ua::write_request request);
  ua::expected<ua::browse_response> browse_sync(ua::browse_request request);
  // Requests kept for reuse in this session (client::prepare).
  prepared_read prepare(ua::read_request request, prepared_read::callback done = {});
  prepared_write prepare(ua::write_request request, prepared_write::callback done = {});
  prepared_browse prepare(ua::browse_request request, prepared_browse::callback done = {});

private:
  friend class client;
  struct state;
  explicit client_session(std::unique_ptr<state> s) noexcept;
  std::unique_ptr<state> state_;
};

class client {
public:
  // Connects, opens the channel, creates and activates an anonymous session; blocks until done
  // or until connect_timeout. Bad_TcpEndpointUrlInvalid, Bad_ConnectionRejected (no TCP
  // connection), Bad_Timeout, or the status the server answered with.
  static ua::expected<client> connect(client_options options);
  static ua::expected<client> connect(caf::actor_system& system, client_options options);

  client(client&&) noexcept;
  client& operator=(client&&) noexcept;
  ~client();

  // Asynchronous: many may be in flight; the callback runs on a CAF thread. The RequestHeader
  // (authentication token, handle, timestamp, TimeoutHint) is filled by the client.
  void read(ua::read_request request, client_callback<ua::read_response> done);
  void write(ua::write_request request, client_callback<ua::write_response> done);
  void browse(ua::browse_request request, client_callback<ua::browse_response> done);
  void browse_next(ua::browse_next_request request, client_callback<ua::browse_next_response> done);
  void translate(ua::translate_browse_paths_to_node_ids_request request,
                 client_callback<ua::translate_browse_paths_to_node_ids_response> done);
  void call(ua::call_request request, client_callback<ua::call_response> done);
  void get_endpoints(ua::get_endpoints_request request, client_callback<ua::get_endpoints_response> done);
  // HistoryRead (Part 4 §5.10.3, docs/history.md): the request as the client builds it (its
  // historyReadDetails an ExtensionObject of ReadRawModifiedDetails, ReadProcessedDetails or
  // ReadAtTimeDetails); continuation points are the caller's to follow or release.
  void history_read(ua::history_read_request request, client_callback<ua::history_read_response> done);
  // HistoryUpdate (Part 4 §5.10.5, docs/history.md "HistoryUpdate"): historyUpdateDetails each an
  // ExtensionObject of UpdateDataDetails, DeleteRawModifiedDetails or DeleteAtTimeDetails.
  void history_update(ua::history_update_request request, client_callback<ua::history_update_response> done);

  // Blocking conveniences for tools and tests (never from a callback).
  ua::expected<ua::read_response> read_sync(ua::read_request request);
  ua::expected<ua::write_response> write_sync(ua::write_request request);
  ua::expected<ua::browse_response> browse_sync(ua::browse_request request);
  ua::expected<ua::browse_next_response> browse_next_sync(ua::browse_next_request request);
  ua::expected<ua::translate_browse_paths_to_node_ids_response> translate_sync(
      ua::translate_browse_paths_to_node_ids_request request);
  ua::expected<ua::call_response> call_sync(ua::call_request request);
  ua::expected<ua::get_endpoints_response> get_endpoints_sync(ua::get_endpoints_request request);
  ua::expected<ua::history_read_response> history_read_sync(ua::history_read_request request);
  ua::expected<ua::history_update_response> history_update_sync(ua::history_update_request request);
  // The Discovery Service Set (Part 4 §5.4, docs/discovery.md): FindServers and
  // FindServersOnNetwork of a (Local) Discovery Server, and a server's registration with one
  // (over a secured channel with the server's own certificate; no session needed:
  // client_options::create_session false).
  ua::expected<ua::find_servers_response> find_servers_sync(ua::find_servers_request request);
  ua::expected<ua::find_servers_on_network_response> find_servers_on_network_sync(
      ua::find_servers_on_network_request request);
  ua::expected<ua::register_server_response> register_server_sync(ua::register_server_request request);
  ua::expected<ua::register_server2_response> register_server2_sync(ua::register_server2_request request);

  // Requests kept for reuse (prepared_request, docs/decisions/0023): made once, sent again and
  // again without allocating. `done` runs for each send(); send_sync() does not use it.
  prepared_read prepare(ua::read_request request, prepared_read::callback done = {});
  prepared_write prepare(ua::write_request request, prepared_write::callback done = {});
  prepared_browse prepare(ua::browse_request request, prepared_browse::callback done = {});
  prepared_browse_next prepare(ua::browse_next_request request, prepared_browse_next::callback done = {});
  prepared_call prepare(ua::call_request request, prepared_call::callback done = {});

  // ---- Subscriptions (Part 4 §5.13 MonitoredItem and §5.14 Subscription service sets)
  // CreateSubscription with `settings`; once the server answers, the client publishes for it.
  // handlers.on_data set: every NotificationMessage's data changes in one call (fast);
  // empty: each change goes to the handler of its item (create_monitored_items with handlers).
  // handlers.on_events the same for events (items made with monitor_events(): an EventFilter on
  // an Object's EventNotifier; docs/events.md "For clients").
  // handlers.on_status: StatusChangeNotification, silent / recovered, data_lost, closed.
  void create_subscription(subscription_settings settings, subscription_handlers handlers,
                           client_callback<ua::create_subscription_response> done);
  // The revised interval and keep-alive count also revise the silence watch.
  void modify_subscription(ua::modify_subscription_request request, client_callback<ua::modify_subscription_response> done);
  void set_publishing_mode(ua::set_publishing_mode_request request, client_callback<ua::set_publishing_mode_response> done);
  // The subscriptions' handlers are dropped as the request goes out (no `closed` status, no data
  // after it, whatever the server answers).
  void delete_subscriptions(ua::delete_subscriptions_request request,
                            client_callback<ua::delete_subscriptions_response> done);
  // Items of a fast subscription: the client handles are the application's (they come back in
  // each monitored_item_notification). See monitor_value() and data_change_filter().
  void create_monitored_items(ua::create_monitored_items_request request,
                              client_callback<ua::create_monitored_items_response> done);
  // Items with one handler each (handlers.size() == items_to_create.size(), else
  // Bad_InvalidArgument): the client replaces the client handles with its own.
  void create_monitored_items(ua::create_monitored_items_request request, std::vector<item_handler> handlers,
                              client_callback<ua::create_monitored_items_response> done);
  // Event items with one handler each (each event of the item, when handlers.on_events is empty),
  // as above. An item's EventFilterResult (event_filter_result_of, first_refused_clause) is in its
  // result: a select clause the server refuses leaves the item working with a null field there.
  void create_monitored_items(ua::create_monitored_items_request request, std::vector<event_item_handler> handlers,
                              client_callback<ua::create_monitored_items_response> done);
  void modify_monitored_items(ua::modify_monitored_items_request request,
                              client_callback<ua::modify_monitored_items_response> done);
  void delete_monitored_items(ua::delete_monitored_items_request request,
                              client_callback<ua::delete_monitored_items_response> done);
  // Part 4 §5.13.4 and §5.13.5, passed through: the per-item results are the server's.
  void set_monitoring_mode(ua::set_monitoring_mode_request request, client_callback<ua::set_monitoring_mode_response> done);
  void set_triggering(ua::set_triggering_request request, client_callback<ua::set_triggering_response> done);
  // Part 4 §5.14.6: one NotificationMessage from the server's retransmission queue, handed to `done`
  // only (not to the subscription's handlers; the client republishes gaps by itself). An unknown or
  // acknowledged sequence number: Bad_MessageNotAvailable.
  void republish(ua::republish_request request, client_callback<ua::republish_response> done);
  // Part 4 §5.14.7: takes subscriptions of another session (same user identity) into this one.
  // targets.size() == subscription_ids.size() and each with handlers.on_data or on_events (see
  // subscription_transfer), else Bad_InvalidArgument. The subscriptions are adopted as the request
  // goes out (the first values may come in a Publish answered before the response) and dropped
  // again for a result that is not Good; then the client publishes for them. With
  // send_initial_values the current values of the Reporting items arrive first. A request that ends
  // without an answer (timeout, lost connection) leaves them adopted: silence or Bad_NoSubscription
  // then says they are not here.
  void transfer_subscriptions(ua::transfer_subscriptions_request request, std::vector<subscription_transfer> targets,
                              client_callback<ua::transfer_subscriptions_response> done);

  ua::expected<ua::create_subscription_response> create_subscription_sync(subscription_settings settings,
                                                                           subscription_handlers handlers);
  ua::expected<ua::modify_subscription_response> modify_subscription_sync(ua::modify_subscription_request request);
  ua::expected<ua::set_publishing_mode_response> set_publishing_mode_sync(ua::set_publishing_mode_request request);
  ua::expected<ua::delete_subscriptions_response> delete_subscriptions_sync(ua::delete_subscriptions_request request);
  ua::expected<ua::create_monitored_items_response> create_monitored_items_sync(ua::create_monitored_items_request request);
  ua::expected<ua::create_monitored_items_response> create_monitored_items_sync(ua::create_monitored_items_request request,
                                                                               std::vector<item_handler> handlers);
  ua::expected<ua::create_monitored_items_response> create_monitored_items_sync(ua::create_monitored_items_request request,
                                                                               std::vector<event_item_handler> handlers);
  ua::expected<ua::modify_monitored_items_response> modify_monitored_items_sync(ua::modify_monitored_items_request request);
  ua::expected<ua::delete_monitored_items_response> delete_monitored_items_sync(ua::delete_monitored_items_request request);
  ua::expected<ua::set_monitoring_mode_response> set_monitoring_mode_sync(ua::set_monitoring_mode_request request);
  ua::expected<ua::set_triggering_response> set_triggering_sync(ua::set_triggering_request request);
  ua::expected<ua::republish_response> republish_sync(ua::republish_request request);
  ua::expected<ua::transfer_subscriptions_response> transfer_subscriptions_sync(ua::transfer_subscriptions_request request,
                                                                               std::vector<subscription_transfer> targets);

  // ---- Part 9 condition methods (docs/events.md "Alarms"): one Call each, the object the condition
  // (its ConditionId, as an event selects it with event_field("", ua::node_id(0, 2782), 1)) or, for
  // the refreshes, ConditionType (i=2782). `done` gets the method's own status as the server
  // answers it (Good, Bad_EventIdUnknown, Bad_ConditionBranchAlreadyAcked,
  // Bad_ConditionBranchAlreadyConfirmed, Bad_ConditionDisabled, Bad_SubscriptionIdInvalid, ...), or
  // the status that failed the whole request (Bad_Timeout, a ServiceFault's).
  // Acknowledge (i=9111) and Confirm (i=9113), Part 9 §5.7.3 and §5.7.4: `event_id` is the EventId
  // of the state event the operator saw (the server refuses an older one).
  void acknowledge(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment,
                   std::function<void(ua::status_code)> done);
  void confirm(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment,
               std::function<void(ua::status_code)> done);
  // AddComment (i=9029), Part 9 §5.5.5.
  void add_comment(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment,
                   std::function<void(ua::status_code)> done);
  // ConditionRefresh (i=3875) and ConditionRefresh2 (i=12912), Part 9 §5.5.7 and §5.5.8: the
  // server sends RefreshStart, the retained conditions, RefreshEnd to the subscription (or its one
  // item) as events; they come to its handlers like any other event.
  void condition_refresh(std::uint32_t subscription_id, std::function<void(ua::status_code)> done);
  void condition_refresh2(std::uint32_t subscription_id, std::uint32_t monitored_item_id,
                          std::function<void(ua::status_code)> done);
  ua::status_code acknowledge_sync(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment);
  ua::status_code confirm_sync(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment);
  ua::status_code add_comment_sync(ua::node_id condition_id, ua::byte_string event_id, ua::localized_text comment);
  ua::status_code condition_refresh_sync(std::uint32_t subscription_id);
  ua::status_code condition_refresh2_sync(std::uint32_t subscription_id, std::uint32_t monitored_item_id);

  // ---- More sessions over this connection's secure channel (CreateSession + ActivateSession with
  // the same security and identity; `name` empty: options().session_name). The server's status
  // when it refuses (Bad_TooManySessions, ...); the connection goes on either way.
  void open_session(std::string name, std::function<void(ua::expected<client_session>)> done);
  ua::expected<client_session> open_session_sync(std::string name = {});

  // CloseSession (every session), CloseSecureChannel, close the connection; blocks until done. Good, or the
  // status the connection had ended with before. Requests after close() get Bad_ConnectionClosed.
  ua::status_code close();

  const client_options& options() const noexcept;

private:
  friend class client_session;
  struct impl;
  explicit client(std::unique_ptr<impl> p) noexcept;
  std::unique_ptr<impl> impl_;
};

// What a client's actor system wants (connect(options) applies it to its own): the io middleman,
// 2 scheduler threads, one recv per readable event (docs/decisions/0013). For an application
// that makes the system it passes to connect(system, options).
caf::actor_system_config& configure_client_system(caf::actor_system_config& cfg);

// A GetEndpoints over a channel without a session (Part 4 §5.4.4): connect, ask, close. An
// opc.wss URL's TLS certificate is checked against the default PKI unless wss_accept_any_certificate.
// Event history (Part 11 §6.5.2 ReadEventDetails, docs/history.md "Event history"), for
// client::history_read: the events of `notifier` from `start` up to `end` (an earlier end: latest
// first), at most `per_page` stored events per response (0: the server's bound), through `filter`
// (event_filter_builder: its select clauses are the fields of each event, its where clause which
// events). The caller follows the result's continuation point (request.nodes_to_read[0]) or
// releases it.
ua::history_read_request history_events_request(const ua::node_id& notifier, ua::date_time start, ua::date_time end,
                                                ua::event_filter filter, std::uint32_t per_page = 0);
// Event history changes (Part 11 §6.9.7 DeleteEventDetails, §6.9.4 UpdateEventDetails;
// docs/history.md "Event history"), for client::history_update: the events of `notifier` with
// these EventIds deleted (their results one per id: Good or Bad_NoEntryExists);
ua::history_update_request history_delete_events_request(const ua::node_id& notifier,
                                                         std::vector<ua::byte_string> event_ids);
// events inserted (Insert: EventType and Time among the fields; no EventId: the server gives one),
// replaced (Replace: by EventId, the fields given changed) or updated (Update: the whole event, by
// EventId, or inserted), each field list in the order of `fields`' select clauses (an
// event_filter_builder's, without a where clause).
ua::history_update_request history_update_events_request(const ua::node_id& notifier, ua::perform_update_type mode,
                                                         ua::event_filter fields,
                                                         std::vector<ua::history_event_field_list> events);
// The events of one HistoryRead result: its HistoryEvent's field lists, each in the order of the
// select clauses; empty when it holds none (a Bad result, Good_NoData, a data read's result).
std::span<const ua::history_event_field_list> history_events_of(const ua::history_read_result& result) noexcept;

ua::expected<ua::get_endpoints_response> get_endpoints(const std::string& endpoint_url,
                                                       std::chrono::milliseconds timeout = std::chrono::milliseconds(10'000),
                                                       bool wss_accept_any_certificate = false);

}  // namespace uactor
