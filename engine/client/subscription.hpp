// Client subscriptions (Part 4 §5.13, §5.14): the application's types (settings, callbacks, status
// events) and the engine, plain state that the client actor owns: no CAF, no clock of its own.
// The engine owns the callbacks it is given; it hands the callbacks views into the decoded response.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/generated/types.hpp"

namespace uactor {

// CreateSubscription's parameters (Part 4 §5.14.2.2); the server revises them.
struct subscription_settings {
  std::chrono::milliseconds publishing_interval{100};
  std::uint32_t lifetime_count = 60;       // at least 3 x max_keep_alive_count (the server revises it so)
  std::uint32_t max_keep_alive_count = 10;
  std::uint32_t max_notifications_per_publish = 0;  // 0: no limit
  std::uint8_t priority = 0;
  bool publishing_enabled = true;
};

enum class subscription_event : std::uint8_t {
  status_change,  // a StatusChangeNotification (Part 4 §7.25.4); `status` as the server sent it
  silent,         // no PublishResponse for this subscription (data or keep-alive) within the
                  // keep-alive period plus a margin: the server, the network or the session is stuck
  recovered,      // heard from again after `silent`
  data_lost,      // a NotificationMessage that was missed could not be republished (`status`:
                  // Bad_MessageNotAvailable or the Republish's failure; `sequence_number`: which)
  closed,         // the subscription is gone: lifetime expired (Bad_Timeout), Bad_NoSubscription,
                  // the connection or session ended (`status` says which; Good: the application
                  // closed the client). No callback follows.
  // The supervised client (client_options::reconnect, docs/decisions/0017):
  transferred,    // moved into the new session after a reconnect (Part 4 §5.14.7); same id
  recreated,      // the server had lost it: created again with its items (same client handles);
                  // `subscription_id` is the new id, `previous_id` the old; a data_lost comes first.
                  // `status`: Good, or the first item the server refused now (that item is dropped)
};

struct subscription_status {
  std::uint32_t subscription_id = 0;
  subscription_event what = subscription_event::status_change;
  ua::status_code status;
  std::uint32_t sequence_number = 0;  // data_lost only
  std::uint32_t previous_id = 0;      // recreated only
};

// Fast: one call per NotificationMessage with all of its data changes, a view into the decoded
// PublishResponse valid during the call only. Republished messages come through here too (late).
using data_change_handler = std::function<void(std::uint32_t subscription_id, std::uint32_t sequence_number,
                                               std::span<const ua::monitored_item_notification> changes)>;
// Per item: one call per data change of that monitored item (the notification valid during the call).
using item_handler = std::function<void(const ua::monitored_item_notification& change)>;
// Events, fast (Part 4 §7.25.3 EventNotificationList): one call per NotificationMessage with all of
// its events, each an EventFieldList whose event_fields follow the item's select clauses in order
// (a field the event lacks is a null Variant) and whose client_handle names the item. A view into
// the decoded PublishResponse, valid during the call only.
using event_handler = std::function<void(std::uint32_t subscription_id, std::uint32_t sequence_number,
                                         std::span<const ua::event_field_list> events)>;
// Per event item: one call per event of that item (the field list valid during the call).
using event_item_handler = std::function<void(const ua::event_field_list& event)>;
using subscription_status_handler = std::function<void(const subscription_status&)>;

// Data changes and events are dispatched independently: each goes to its fast handler when that is
// set, else to the per-item handler of its item (by client handle). A message with both calls them
// in the order of its NotificationData (servers, ours too, put the DataChangeNotification first).
struct subscription_handlers {
  data_change_handler on_data;  // empty: data changes go to the per-item handlers of the items
  subscription_status_handler on_status;
  // empty: events go to the per-item event handlers of the items. (Initialised so that
  // `subscription_handlers{on_data, on_status}` needs no third initialiser.)
  event_handler on_events = {};
};

// One subscription to take over from another session with TransferSubscriptions (Part 4 §5.14.7).
// The server keeps the items' ClientHandles of the session that created them, which this client
// never assigned: only the fast handlers (on_data and on_events, which get each notification's
// client_handle) are supported, the per-item ones are not. The timing is not in the
// TransferSubscriptions response: the revised interval and keep-alive count as the creator was told them arm the silence watch
// (0: unknown, no silence watch until a modify_subscription revises them).
struct subscription_transfer {
  subscription_handlers handlers;
  double revised_publishing_interval_ms = 0;
  std::uint32_t revised_max_keep_alive_count = 0;
};

// A MonitoredItemCreateRequest for the Value attribute (Part 4 §7.21), reporting, with optional
// DataChangeFilter (Part 4 §7.22.2). deadband_type: 0 none, 1 absolute, 2 percent.
ua::monitored_item_create_request monitor_value(ua::node_id node, std::uint32_t client_handle,
                                                double sampling_interval_ms = -1, std::uint32_t queue_size = 1,
                                                bool discard_oldest = true);
ua::extension_object data_change_filter(ua::data_change_trigger trigger, std::uint32_t deadband_type = 0,
                                        double deadband_value = 0);

// ---- Events (Part 4 §5.12.1.4: an item on an Object's EventNotifier attribute with an EventFilter)
inline constexpr std::uint32_t base_event_type_id = 2041;  // BaseEventType (Part 5 §6.4.2)
inline constexpr std::uint32_t server_object_id = 2253;    // the Server object: every event

// A MonitoredItemCreateRequest for the EventNotifier attribute (12, Part 6 §A.1) of `node` (the
// Server object i=2253 for every event, or an Object with SubscribeToEvents), reporting, with
// `filter`. Events come in bursts: 1,000 kept between publishes by default (the server revises it
// to what it keeps); 0 asks for the server's default (Part 4 §5.12.1.5: ours is 1,000, node-opcua
// 2.163 then keeps one event per publishing interval). Sampling does not apply to events.
ua::monitored_item_create_request monitor_events(ua::node_id node, std::uint32_t client_handle, ua::event_filter filter,
                                                 std::uint32_t queue_size = 1000, bool discard_oldest = true);

// A select clause or a where operand (Part 4 §7.7.4.5 SimpleAttributeOperand): the field of an
// event of `type` at `path`, its elements separated by '/' and each a namespace-0 BrowseName
// ("Severity", "ActiveState/Id"), the Value attribute. An empty path with `attribute_id` 1 (NodeId)
// and ConditionType i=2782 is a condition's ConditionId (Part 9 §5.5.2).
ua::simple_attribute_operand event_field(std::string_view path, ua::node_id type = ua::node_id(0, base_event_type_id),
                                         std::uint32_t attribute_id = 13);

// Builds an EventFilter (Part 4 §7.22.3): select clauses in the order the fields come in each
// EventFieldList, and where conditions that must all hold (their And, Part 4 §7.7.3).
//   auto f = event_filter_builder().select("Time").select("Severity").min_severity(500).build();
class event_filter_builder {
public:
  event_filter_builder& select(std::string_view path, ua::node_id type = ua::node_id(0, base_event_type_id));
  event_filter_builder& select(ua::simple_attribute_operand field);
  // Where: Severity >= `severity` (GreaterThanOrEqual with a UInt16 literal).
  event_filter_builder& min_severity(std::uint16_t severity);
  // Where: the event's type is `type` or a subtype of it (OfType, Part 4 §7.7.3).
  event_filter_builder& of_type(ua::node_id type);
  // Where: a condition of one's own (its operands may not be ElementOperands: it is one element).
  event_filter_builder& where(ua::content_filter_element condition);
  // Where: `condition` does not hold (a Not over it, Part 4 §7.7.3), e.g. a field that is not
  // equal to a literal: Part 4 has no NotEquals.
  event_filter_builder& where_not(ua::content_filter_element condition);
  std::size_t select_count() const noexcept { return filter_.select_clauses.size(); }
  std::size_t where_count() const noexcept { return conditions_.size(); }
  // The index in the built where clause of the k-th condition added (of where_not's Not), to read
  // its result in the EventFilterResult's where_clause_result.element_results.
  std::size_t where_element(std::size_t k) const noexcept;
  // Which condition an element of the built where clause belongs to (where_not's Not and the
  // condition under it both count), npos for the Ands that join them: to name a refused element.
  std::size_t condition_of_element(std::size_t element) const noexcept;
  ua::event_filter build() const;

private:
  ua::event_filter filter_;
  std::vector<ua::content_filter_element> conditions_;
  std::vector<bool> negated_;  // per condition
};

// The EventFilterResult of an event item's CreateMonitoredItems or ModifyMonitoredItems result,
// null when the server sent none (it may omit it when every clause is Good). Part 4 §7.22.3: select
// clauses get one status each, the where clause one per element with its operands' statuses.
const ua::event_filter_result* event_filter_result_of(const ua::monitored_item_create_result& result) noexcept;
const ua::event_filter_result* event_filter_result_of(const ua::monitored_item_modify_result& result) noexcept;
// The first clause the server refused, as "select clause 2: BadBrowseNameInvalid" or "where element
// 0: BadFilterOperandInvalid (operand 1: BadFilterLiteralInvalid)"; empty when none was.
std::string first_refused_clause(const ua::event_filter_result& result);

}  // namespace uactor

namespace uactor::actors {

struct subscription_engine_config {
  // Publish requests kept at the server: two per subscription (subscriptions created together fall
  // due in the same cycle, and each needs one at the server while its last answer travels back:
  // with one each plus one, capped at 5, 20x5x100 lost 4.4 % of its changes to overflows), at most
  // this many; lowered by Bad_TooManyPublishRequests. 20 is our server's limit per session.
  std::size_t max_publish_requests = 20;
  // Silent after keep-alive period (revised interval x keep-alive count) plus the larger of this
  // and half the keep-alive period.
  std::chrono::milliseconds silence_margin{500};
  // Longest gap filled by Republish; messages beyond it are reported lost at once.
  std::uint32_t max_republish_per_gap = 64;
  std::size_t max_pending_acks = 4096;  // beyond this (server not answering) the oldest are dropped
  // false: NotificationMessages are never acknowledged, so that they stay in the server's
  // retransmission queue for an explicit Republish (diagnostics and tests; the server's queue
  // fills and it drops the oldest, Part 4 §5.14.1.1).
  bool acknowledge = true;
  // true (the supervised client, docs/decisions/0017): messages that arrive after a gap are held
  // (copied) until the gap is republished or reported lost, so that the handlers see every
  // message once and in sequence order. false: delivered at once, the republished ones late (0011).
  bool in_order = false;
  std::size_t max_held_messages = 1024;  // per subscription; beyond, the gap is given up (data_lost)
};

// All subscriptions of one session. The owner sends Publish requests while publish_wanted() > 0
// (fill_publish), feeds back every PublishResponse or its failure, sends a Republish for each
// next_republish(), feeds those back, and calls check() now and then (silence).
class subscription_engine {
public:
  using time_point = std::chrono::steady_clock::time_point;

  explicit subscription_engine(subscription_engine_config config = {});

  // --- registration (the answers of CreateSubscription, ModifySubscription, ...)
  // A revised interval of 0 (a transferred subscription whose timing is unknown): no silence watch.
  void add(std::uint32_t id, double revised_interval_ms, std::uint32_t revised_keep_alive_count,
           subscription_handlers handlers, time_point now);
  void revise(std::uint32_t id, double revised_interval_ms, std::uint32_t revised_keep_alive_count);
  // Removed by the application (no status callback).
  void remove(std::uint32_t id);
  // Per-item handlers, by client handle (registered before CreateMonitoredItems goes out, so that
  // the first values cannot overtake it); then bound to the server's item id, or dropped.
  void add_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle, item_handler handler);
  void add_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle, event_item_handler handler);
  void bind_item(std::uint32_t subscription_id, std::uint32_t client_handle, std::uint32_t monitored_item_id);
  void remove_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle);
  void remove_item(std::uint32_t subscription_id, std::uint32_t monitored_item_id);
  bool contains(std::uint32_t id) const noexcept;
  std::size_t size() const noexcept { return subs_.size(); }
  bool empty() const noexcept { return subs_.empty(); }

  // --- Publish
  // How many more Publish requests to send now.
  std::size_t publish_wanted() const noexcept;
  // Fills the acknowledgements (every sequence number received since the last Publish) and counts
  // the request as outstanding. No allocation once the request's array has grown.
  void fill_publish(ua::publish_request& request);
  // TimeoutHint for Publish: it waits at the server up to a keep-alive period (Part 4 §5.14.5):
  // three of the longest keep-alive periods, at least `floor`.
  std::chrono::milliseconds publish_timeout(std::chrono::milliseconds floor) const noexcept;
  // A PublishResponse (good service result): dispatches its notifications, queues the ack,
  // detects gaps (Republish). The response is read in place; its arrays stay for the next decode.
  // A StatusChangeNotification Bad_Timeout (lifetime expired) or Good_SubscriptionTransferred (it
  // moved to another session, Part 4 §5.14.7) is reported, then the subscription is closed with it.
  void on_publish_response(const ua::publish_response& response, time_point now);
  // A Publish that failed: Bad_Timeout (server or local, not an error: sent again),
  // Bad_TooManyPublishRequests (fewer from now on), Bad_NoSubscription (none left at the server:
  // every subscription here is closed), anything else ends publishing (the session is gone).
  void on_publish_failed(ua::status_code status, time_point now);
  std::size_t publish_outstanding() const noexcept { return outstanding_; }
  std::size_t publish_limit() const noexcept { return limit_; }

  // --- Republish (Part 4 §5.14.6)
  bool next_republish(std::uint32_t& subscription_id, std::uint32_t& sequence_number);
  void on_republished(std::uint32_t subscription_id, const ua::notification_message& message, time_point now);
  void on_republish_failed(std::uint32_t subscription_id, std::uint32_t sequence_number, ua::status_code status);

  // --- supervision
  // Reports `silent` for each subscription not heard from in time (once, until it recovers).
  void check(time_point now);
  bool any_silent() const noexcept;
  // The shortest silence watch of the subscriptions (zero: none is watched), and whether
  // publishing waits for the next check() (the server refused even a single Publish).
  std::chrono::steady_clock::duration shortest_silence() const noexcept;
  bool paused() const noexcept { return paused_; }

  // --- recovery after a reconnect (the supervised client, docs/decisions/0017)
  // The link is gone, and the Publish requests at the server with it. Acknowledgements not sent
  // yet stay for the next Publish; Republish requests not sent are dropped (the recovery asks
  // from the next expected number on, and a gap found later is asked for again).
  void on_link_lost() noexcept;
  std::vector<std::uint32_t> ids() const;
  // The sequence number expected next (0: none seen yet).
  std::uint32_t next_expected(std::uint32_t id) const noexcept;
  // A message the Republish loop after a reconnect recovered, in order (Part 4 §6.7): delivered
  // and acknowledged as if a PublishResponse had brought it.
  void on_recovered(std::uint32_t id, const ua::notification_message& message, time_point now);
  // Created again under a new id: the handlers (and per-item handlers, by client handle) stay;
  // sequence numbers start over.
  void rekey(std::uint32_t old_id, std::uint32_t new_id, double revised_interval_ms,
             std::uint32_t revised_keep_alive_count, time_point now);
  // Silence is measured from now (a recovered session publishes again from now on); a silent
  // subscription is reported `recovered`.
  void heard_all(time_point now);
  void notify(std::uint32_t id, subscription_event what, ua::status_code status, std::uint32_t seq = 0,
              std::uint32_t previous_id = 0);
  // The session or connection ended: every subscription is closed with `status`, the engine empties.
  void close_all(ua::status_code status);

  // Counters for tools, tests and the harness.
  struct counters {
    std::uint64_t messages = 0;        // NotificationMessages with data
    std::uint64_t keep_alives = 0;
    std::uint64_t data_changes = 0;
    std::uint64_t events = 0;          // EventFieldLists delivered
    std::uint64_t republished = 0;     // messages recovered by Republish
    std::uint64_t lost = 0;            // messages reported data_lost
    std::uint64_t unknown_subscription = 0;
  };
  const counters& stats() const noexcept { return stats_; }

private:
  struct item {
    std::uint32_t monitored_item_id = 0;
    item_handler handler;         // a value item's
    event_item_handler on_event;  // an event item's
  };
  struct subscription {
    std::uint32_t id = 0;
    subscription_handlers handlers;
    std::chrono::steady_clock::duration silence_after{};  // zero: not watched (timing unknown)
    time_point last_heard{};
    std::uint32_t next_sequence = 0;  // expected next; 0 until the first message or keep-alive
    bool silent = false;
    std::unordered_map<std::uint32_t, item> items;  // by client handle (per-item mode)
    // in_order only: messages after a gap (ascending), numbers given up (data_lost) while holding,
    // and the first number neither received nor asked for.
    std::vector<ua::notification_message> held;
    std::vector<std::uint32_t> lost;
    std::uint32_t horizon = 0;
  };
  struct missing {
    std::uint32_t subscription_id;
    std::uint32_t sequence_number;
  };

  subscription* find(std::uint32_t id) noexcept;
  void set_timing(subscription& s, double interval_ms, std::uint32_t keep_alive_count);
  void dispatch(subscription& s, const ua::notification_message& message);
  void report(subscription& s, subscription_event what, ua::status_code status, std::uint32_t seq = 0);
  void close(std::uint32_t id, ua::status_code status);
  void queue_ack(std::uint32_t subscription_id, std::uint32_t seq);
  void gap(subscription& s, std::uint32_t from, std::uint32_t to);
  // in_order: one data message (from a Publish or a Republish) into the sequence.
  void accept(std::uint32_t id, const ua::notification_message& message);
  // in_order: a keep-alive announcing `next` as the number of the next message.
  void announce(subscription& s, std::uint32_t next);
  void drain(std::uint32_t id);
  void mark_lost(subscription& s, std::uint32_t seq);

  subscription_engine_config config_;
  std::vector<subscription> subs_;  // a handful per session: a linear search beats a map
  std::vector<ua::subscription_acknowledgement> acks_;
  std::vector<missing> republish_;
  std::size_t outstanding_ = 0;
  std::size_t limit_;
  bool paused_ = false;  // refused with none outstanding: wait for the next check()
  counters stats_;
};

}  // namespace uactor::actors
