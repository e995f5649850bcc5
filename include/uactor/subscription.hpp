// What an application gives and gets of a client subscription (Part 4 §5.13, §5.14): the settings,
// the handlers and their status events, and the helpers that build monitored items and event
// filters. The engine that runs subscriptions is engine/client/subscription.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "uactor/ua/types.hpp"

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
