// The subscriptions of one server (Part 4 §5.12 MonitoredItem services, §5.13 Subscription
// services): plain state inside the session host, no CAF, time passed in (docs/decisions/0010).
// It owns every subscription, monitored item, queued Publish request and the responses it encodes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/server/secure_channel_state.hpp"
#include "engine/server/subscriptions/event_filter.hpp"
#include "engine/server/subscriptions/event_model.hpp"
#include "engine/server/services/access_attributes.hpp"
#include "engine/server/subscriptions/session_identity.hpp"
#include "protocol/address_space.hpp"
#include "protocol/byte_buffer.hpp"
#include "protocol/generated/type_codecs.hpp"

namespace uactor::actors {

// What the server supports and revises to; every count is a limit with its Bad_ code.
struct subscription_limits {
  std::size_t max_subscriptions_per_session = 100;        // Bad_TooManySubscriptions
  std::size_t max_subscriptions = 10'000;                 // Bad_TooManySubscriptions
  std::size_t max_monitored_items_per_subscription = 100'000;  // Bad_TooManyMonitoredItems
  std::size_t max_monitored_items = 1'000'000;            // Bad_TooManyMonitoredItems (server-wide)
  std::size_t max_operations_per_call = 10'000;           // Bad_TooManyOperations (items, ids, links)
  std::size_t max_publish_requests_per_session = 20;      // the oldest gets Bad_TooManyPublishRequests
  std::size_t max_retransmission_queue = 20;              // NotificationMessages kept per subscription
  std::uint32_t max_queue_size = 1'000;                   // per monitored item (revisedQueueSize)
  std::uint32_t max_notifications_per_publish = 10'000;   // the server's cap when the client asks 0
  double min_publishing_interval_ms = 20;                 // the host ticks every tick_interval (10 ms)
  double max_publishing_interval_ms = 3'600'000;
  double min_sampling_interval_ms = 10;                   // for a requested interval > 0
  double max_sampling_interval_ms = 3'600'000;
  std::uint32_t default_keep_alive_count = 10;            // for a requested 0
  std::uint32_t max_keep_alive_count = 10'000;
  double max_lifetime_ms = 3'600'000;                     // lifetime count x interval, at most
  std::chrono::milliseconds tick_interval{10};            // how often the host calls publish_tick
  // TransferSubscriptions between ANONYMOUS sessions of the same ApplicationUri when a channel is
  // not secured: Part 4 §5.13.7 requires Sign or SignAndEncrypt; true waives that (0010).
  bool allow_unsecured_anonymous_transfer = true;
  event_filter_limits event_filters;  // the sizes an EventFilter may have (docs/decisions/0018)
};

// A response produced outside the request that it answers (a queued Publish): the session host
// sends it to the connection that owns `channel_id`.
struct deferred_response {
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  ua::byte_buffer message;  // encoding id + body, as ua::encode_message writes it
};

class subscription_manager final : public ua::value_observer {
public:
  explicit subscription_manager(subscription_limits limits = {});
  ~subscription_manager();
  subscription_manager(const subscription_manager&) = delete;
  subscription_manager& operator=(const subscription_manager&) = delete;

  // The Subscription services (§5.13). `session` is the numeric SessionId of the calling session;
  // `identity` who it acts for (the owner of what it creates or takes over); `access` what that
  // owner may do (its roles), which decides the events its items receive (Part 3 §8.55
  // ReceiveEvents on each event's SourceNode).
  void create_subscription(std::uint32_t session, const session_identity& identity,
                           const ua::create_subscription_request&, ua::create_subscription_response&,
                           const instant& now, const services::node_access& access = {});
  void modify_subscription(std::uint32_t session, const ua::modify_subscription_request&,
                           ua::modify_subscription_response&, const instant& now);
  void set_publishing_mode(std::uint32_t session, const ua::set_publishing_mode_request&,
                           ua::set_publishing_mode_response&);
  void delete_subscriptions(std::uint32_t session, const ua::delete_subscriptions_request&,
                            ua::delete_subscriptions_response&, const instant& now);
  // §5.13.7: a subscription whose owner is another user stays where it is (Bad_UserAccessDenied).
  void transfer_subscriptions(std::uint32_t session, const session_identity& identity,
                              const ua::transfer_subscriptions_request&, ua::transfer_subscriptions_response&,
                              const instant& now, const services::node_access& access = {});
  void republish(std::uint32_t session, const ua::republish_request&, ua::republish_response&);

  // The MonitoredItem services (§5.12).
  // Per item Bad_UserAccessDenied when `access` (the session's roles) lacks Read (a Value item),
  // ReceiveEvents (an EventNotifier item) or Browse (any other attribute) on the node (Part 3 §8.55);
  // checked again at a modification, for rules changed since (a reload).
  void create_monitored_items(std::uint32_t session, const ua::create_monitored_items_request&,
                              ua::create_monitored_items_response&, ua::address_space&, const instant& now,
                              const services::node_access& access = {});
  void modify_monitored_items(std::uint32_t session, const ua::modify_monitored_items_request&,
                              ua::modify_monitored_items_response&, const ua::address_space&, const instant& now,
                              const services::node_access& access = {});
  void set_monitoring_mode(std::uint32_t session, const ua::set_monitoring_mode_request&,
                           ua::set_monitoring_mode_response&, const ua::address_space&, const instant& now);
  void set_triggering(std::uint32_t session, const ua::set_triggering_request&, ua::set_triggering_response&);
  void delete_monitored_items(std::uint32_t session, const ua::delete_monitored_items_request&,
                              ua::delete_monitored_items_response&);

  // Publish (§5.13.5): answered at once into `out` when the session has something to send (a late
  // subscription, a status change) or an error (Bad_NoSubscription); otherwise queued, `out` left
  // empty, and answered later through deferred(). True when `out` holds the answer.
  bool publish(std::uint32_t session, std::uint32_t channel_id, std::uint32_t request_id,
               const ua::publish_request&, const instant& now, ua::byte_buffer& out);

  // The publishing clock: samples the items with an interval, runs the publishing cycle of every
  // subscription that is due (§5.13.1.1 state table: notifications, keep-alives, lifetime), and
  // times out queued Publish requests past their timeoutHint. Answers go to deferred().
  void publish_tick(const ua::address_space&, const instant& now);
  // Nodes stay marked monitored after their last item goes (a change then costs one empty lookup):
  // the store may move with the server_core that owns it, so no pointer to it is kept here.

  // A session ended (closed_session of session_manager): its subscriptions are deleted, or kept
  // without a session until their lifetime ends (deleteSubscriptions false, Part 4 §5.7.4); its
  // queued Publish requests are answered Bad_SessionClosed.
  void session_closed(std::uint32_t session, bool delete_subscriptions, const instant& now);
  // A session was (re)activated, maybe for another user: its subscriptions now belong to that one,
  // with that one's roles.
  void session_activated(std::uint32_t session, const session_identity& identity,
                         const services::node_access& access = {});
  // A channel closed: the Publish requests that came on it can no longer be answered.
  void channel_closed(std::uint32_t channel_id);

  // The responses produced since the last clear_deferred(), in order.
  std::span<const deferred_response> deferred() const noexcept { return {deferred_.data(), deferred_count_}; }
  void clear_deferred() noexcept { deferred_count_ = 0; }

  bool has_subscriptions() const noexcept { return !subscriptions_.empty(); }
  // The earliest publishing cycle due (time_point::max() without subscriptions).
  std::chrono::steady_clock::time_point next_due() const noexcept;
  std::size_t subscription_count() const noexcept { return subscriptions_.size(); }
  std::size_t monitored_item_count() const noexcept { return item_count_; }
  std::size_t queued_publish_requests(std::uint32_t session) const noexcept;
  const subscription_limits& limits() const noexcept { return limits_; }

  // ua::value_observer: a monitored node's Value changed (through Write or a writer).
  void value_changed(ua::node_index n, const ua::data_value& value) override;

  // An event occurred (docs/decisions/0018): every event item on a notifier that sees it (the
  // Server object, the source, the notifiers above the source over inverse HasEventSource /
  // HasNotifier) whose where clause it passes queues its selected fields. `only_subscription`,
  // `only_item`: that subscription's items, that item alone (ConditionRefresh(2), Part 9 §5.5.7);
  // `unfiltered`: past the where clauses (RefreshStart/End). Allocates nothing once the queues
  // and messages are warm.
  void raise_event(const event_record& e, const ua::address_space& as, std::uint32_t only_subscription = 0,
                   std::uint32_t only_item = 0, bool unfiltered = false);
  // Whether the session has that subscription and (item != 0) that item in it.
  bool owns_item(std::uint32_t session, std::uint32_t subscription_id, std::uint32_t item_id) noexcept;
  // Whether any event item exists (raising an event then costs nothing).
  bool has_event_items() const noexcept { return event_item_count_ > 0; }
  // The browse paths of event fields, interned (shared with whoever builds event_records).
  field_catalogue& fields() noexcept { return catalogue_; }
  // The subscriptions of a session (ConditionRefresh checks the caller owns the one it names).
  bool owns_subscription(std::uint32_t session, std::uint32_t subscription_id) noexcept {
    return find_subscription(session, subscription_id) != nullptr;
  }
  // The subscriptions a session has (ConditionRefresh2 and tests).
  std::vector<std::uint32_t> subscriptions_of(std::uint32_t session) const;

  struct item;
  struct subscription;
  struct session_state;

private:
  subscription* find_subscription(std::uint32_t session, std::uint32_t id) noexcept;
  // Part 4 §5.12-5.13: an empty list is Bad_NothingToDo, one over the limit Bad_TooManyOperations.
  ua::status_code check_operation_count(std::size_t n) const noexcept;
  session_state& session_of(std::uint32_t session);
  session_state* find_session(std::uint32_t session) noexcept;
  void revise(subscription& s, double interval, std::uint32_t lifetime, std::uint32_t keep_alive,
              std::uint32_t max_notifications);
  void delete_subscription(subscription& s);
  void delete_item(item& it);
  void sample(item& it, const ua::data_value& value);
  void enqueue(item& it, const ua::data_value& value);
  void enqueue_event(item& it, const event_record& e);
  ua::status_code compile_event_filter(const ua::extension_object& filter, const ua::address_space& as, ua::node_index n,
                                       std::unique_ptr<event_filter_program>& out, ua::extension_object& filter_result);
  void resize_event_queue(item& it, std::uint32_t size);
  void take_event(item& it, ua::event_field_list& out);
  void resize_events(ua::ua_array<ua::event_field_list>& events, std::size_t n);
  void mark_ready(item& it, bool triggered);
  void cycle(subscription& s, const instant& now);
  bool answer_one(session_state& ss, const instant& now);
  void send_data(subscription& s, session_state& ss, const instant& now);
  void send_keep_alive(subscription& s, session_state& ss, const instant& now);
  void send_status_change(session_state& ss, std::uint32_t subscription_id, ua::status_code status,
                          std::uint32_t sequence_number, const instant& now);
  void answer_fault(std::uint32_t channel_id, std::uint32_t request_id, std::uint32_t handle,
                    ua::status_code result, const instant& now);
  ua::byte_buffer& next_deferred(std::uint32_t channel_id, std::uint32_t request_id);
  void encode_publish(std::uint32_t channel_id, std::uint32_t request_id);
  void no_subscription_left(session_state& ss, const instant& now);

  subscription_limits limits_;
  std::unordered_map<std::uint32_t, std::unique_ptr<subscription>> subscriptions_;  // by SubscriptionId
  std::unordered_map<std::uint32_t, std::unique_ptr<item>> items_;                  // by MonitoredItemId
  std::unordered_map<std::uint32_t, std::unique_ptr<session_state>> sessions_;      // by SessionId
  std::vector<std::vector<item*>> watchers_;  // by node index: the Value items sampling every change
  std::vector<std::vector<item*>> event_watchers_;  // by node index: the event items of a notifier
  std::size_t event_item_count_ = 0;
  field_catalogue catalogue_;
  event_record overflow_event_;           // EventQueueOverflowEventType, its Time set per use
  std::vector<ua::ua_array<ua::variant>> spare_fields_;  // field storage of events a message dropped
  std::vector<ua::node_index> notifiers_;  // reused by raise_event
  std::size_t item_count_ = 0;
  std::uint32_t next_subscription_id_ = 1;
  std::uint32_t next_item_id_ = 1;

  // Where a Publish answer is being encoded: the answer of the request at hand (`immediate_`) or a
  // deferred one.
  ua::byte_buffer* immediate_ = nullptr;
  std::uint32_t immediate_channel_ = 0;
  std::uint32_t immediate_request_ = 0;
  std::vector<deferred_response> deferred_;
  std::size_t deferred_count_ = 0;

  ua::publish_response publish_;  // reused; its notification_message is swapped with a retained one
  ua::service_fault fault_;
  ua::data_value scratch_;    // an item's value with its IndexRange applied
  ua::data_value attribute_;  // a non-Value attribute read for its one sample
  std::vector<subscription*> expired_;
};

}  // namespace uactor::actors
