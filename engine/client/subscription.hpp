// The engine of client subscriptions (Part 4 §5.13, §5.14), plain state that the client actor owns:
// no CAF, no clock of its own. The application's types (settings, handlers, status events) are
// <uactor/subscription.hpp>. The engine owns the handlers it is given; it hands them views into the
// decoded response.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/generated/type_codecs.hpp"
#include "uactor/subscription.hpp"

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
