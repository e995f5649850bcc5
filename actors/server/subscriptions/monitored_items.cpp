// Part 4 §5.12 (MonitoredItems) and §5.13 (Subscriptions), the server side. docs/decisions/0010.
#include "actors/server/subscriptions/subscription_manager.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "actors/server/services/index_range.hpp"
#include "protocol/codec.hpp"
#include "protocol/generated/status_codes.hpp"
#include "protocol/message.hpp"

namespace uactor::actors {

using namespace uactor::ua;
using steady_time = std::chrono::steady_clock::time_point;

namespace {

constexpr std::uint32_t value_attribute = static_cast<std::uint32_t>(attribute_id::value);
constexpr std::uint32_t number_type = 26;     // ns=0;i=26 Number
constexpr std::uint32_t has_property = 46;    // ns=0;i=46 HasProperty
// Part 4 §7.39 Table 177: InfoType DataValue (bits 10-11 = 01) and its Overflow bit (bit 7).
constexpr std::uint32_t info_type_data_value = 0x0400;
constexpr std::uint32_t overflow_bit = 0x0080;

steady_time after_ms(steady_time t, double ms) {
  return t + std::chrono::duration_cast<steady_time::duration>(std::chrono::duration<double, std::milli>(ms));
}

std::uint32_t next_sequence(std::uint32_t s) { return s == 0xFFFF'FFFFu ? 1 : s + 1; }  // 0 is never used

template <class Response>
void encode_to(const Response& r, byte_buffer& out) {
  encoder e(out);
  encode_message(e, r);
}

// The element count of a Variant for the deadband: 1 for a scalar, the length of an array.
std::size_t element_count(const variant& v) {
  return std::visit(
      [](const auto& x) -> std::size_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return 0;
        else if constexpr (requires { x.size(); x.begin(); } && !std::is_same_v<T, ua_string> &&
                           !std::is_same_v<T, byte_string> && !std::is_same_v<T, xml_element>)
          return x.size();
        else return 1;
      },
      v.value());
}

// The i-th element as a double, when the Variant holds a number (or an array of numbers).
bool number_at(const variant& v, std::size_t i, double& out) {
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          if (i != 0) return false;
          out = static_cast<double>(x);
          return true;
        } else if constexpr (requires { typename T::value_type; }) {
          using E = typename T::value_type;
          if constexpr (std::is_arithmetic_v<E> && !std::is_same_v<E, bool> && !std::is_same_v<T, ua_string> &&
                        !std::is_same_v<T, byte_string> && !std::is_same_v<T, xml_element>) {
            if (i >= x.size()) return false;
            out = static_cast<double>(x[i]);
            return true;
          } else {
            return false;
          }
        } else {
          return false;
        }
      },
      v.value());
}

// Part 4 §7.22.2: a value passes an absolute deadband when any element moved by more than it.
bool exceeds_deadband(const variant& last, const variant& now, double deadband) {
  if (last.type() != now.type() || last.is_array() != now.is_array()) return true;
  const std::size_t n = element_count(now);
  if (n != element_count(last)) return true;
  for (std::size_t i = 0; i < n; ++i) {
    double a = 0, b = 0;
    if (!number_at(last, i, a) || !number_at(now, i, b)) return !(last == now);
    if (std::fabs(a - b) > deadband) return true;
  }
  return false;
}

void set_overflow(data_value& v) {
  v.status = status_code(v.status.value() | info_type_data_value | overflow_bit);
  v.has_status = true;
}

void apply_timestamps(data_value& v, timestamps_to_return t) {
  if (t == timestamps_to_return::server || t == timestamps_to_return::neither) {
    v.has_source_timestamp = false;
    v.has_source_picoseconds = false;
  }
  if (t == timestamps_to_return::source || t == timestamps_to_return::neither) {
    v.has_server_timestamp = false;
    v.has_server_picoseconds = false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// State

struct subscription_manager::item {
  std::uint32_t id = 0;
  subscription* sub = nullptr;
  node_index node = no_node;
  std::uint32_t attribute = value_attribute;
  std::uint32_t client_handle = 0;
  monitoring_mode mode = monitoring_mode::reporting;
  double sampling_ms = 0;  // 0: every change (the change hook); > 0: sampled on the tick
  timestamps_to_return timestamps = timestamps_to_return::both;
  // The queue (§5.12.1.5): a ring that grows to queue_size as values come.
  std::uint32_t queue_size = 1;
  bool discard_oldest = true;
  std::vector<data_value> queue;
  std::size_t head = 0;
  std::size_t count = 0;
  // The filter (§7.22.2); percent deadbands are turned into absolute ones with the EURange.
  data_change_trigger trigger = data_change_trigger::status_value;
  bool deadband = false;
  double deadband_abs = 0;
  services::numeric_range range;
  data_value last;  // the last value queued, for the filter
  bool has_last = false;
  bool in_ready = false;   // in sub->ready
  bool triggered = false;  // reported because a triggering item fired (§5.12.1.6)
  bool pending = false;    // in sub->pending: changed since the last sample
  steady_time next_sample{};
  std::vector<std::uint32_t> links;  // the items this one triggers
  std::size_t watch_pos = 0;         // in watchers_[node]
  bool watching = false;
  std::size_t sub_pos = 0;           // in sub->items
};

namespace {

// §5.12.3: a queue cut below what it holds discards by the item's discard policy (§5.12.1.5):
// the oldest go and the next one gets the Overflow bit, or the values before the newest go and the
// newest gets it; a queue of one keeps the newest without it. Not a hot path: a new vector.
void resize_queue(subscription_manager::item& it, std::uint32_t size) {
  std::vector<data_value> q;
  q.reserve(std::min<std::size_t>(it.count, size));
  const auto at = [&](std::size_t k) -> data_value& { return it.queue[(it.head + k) % it.queue_size]; };
  const std::size_t n = it.count;
  if (n <= size) {
    for (std::size_t k = 0; k < n; ++k) q.push_back(std::move(at(k)));
  } else if (size == 1) {
    q.push_back(std::move(at(n - 1)));
  } else if (it.discard_oldest) {
    for (std::size_t k = n - size; k < n; ++k) q.push_back(std::move(at(k)));
    set_overflow(q.front());
  } else {
    for (std::size_t k = 0; k + 1 < size; ++k) q.push_back(std::move(at(k)));
    q.push_back(std::move(at(n - 1)));
    set_overflow(q.back());
  }
  it.queue = std::move(q);
  it.head = 0;
  it.count = it.queue.size();
  it.queue_size = size;
}

}  // namespace

struct retained_message {
  std::uint32_t sequence = 0;
  notification_message message;
};

struct subscription_manager::subscription {
  std::uint32_t id = 0;
  std::uint32_t session = 0;  // 0: none (kept for a transfer until the lifetime ends)
  session_identity owner;     // who its session acts for (§5.13.7)
  double interval_ms = 0;
  std::uint32_t lifetime_count = 0;
  std::uint32_t keep_alive_count = 0;
  std::uint32_t max_notifications = 0;
  std::uint8_t priority = 0;
  bool enabled = true;
  std::uint32_t keep_alive_counter = 0;
  std::uint32_t lifetime_counter = 0;
  steady_time next_due{};
  std::uint32_t next_sequence = 1;
  bool late = false;  // a message (data or keep-alive) is due and waits for a Publish request
  std::vector<item*> items;
  std::vector<item*> ready;    // items with notifications to report
  std::vector<item*> pending;  // sampled items changed since their last sample
  std::vector<retained_message> retained;  // the retransmission queue, oldest first
  std::vector<retained_message> spare;     // acknowledged messages, reused (their storage kept)
};

struct publish_entry {
  std::uint32_t channel_id = 0;
  std::uint32_t request_id = 0;
  std::uint32_t request_handle = 0;
  std::uint32_t timeout_hint = 0;
  steady_time received{};
  ua_array<status_code> results;  // of its acknowledgements
};

struct status_change {
  std::uint32_t subscription_id = 0;
  status_code status;
  std::uint32_t sequence = 0;
};

struct subscription_manager::session_state {
  std::uint32_t id = 0;
  std::vector<subscription*> subs;
  std::vector<publish_entry> queue;  // a ring of max_publish_requests_per_session entries
  std::size_t head = 0;
  std::size_t count = 0;
  std::vector<status_change> status_changes;  // to send with the next Publish requests

  publish_entry& front() { return queue[head]; }
  void pop() {
    head = (head + 1) % queue.size();
    --count;
  }
};

subscription_manager::subscription_manager(subscription_limits limits) : limits_(limits) {
  limits_.max_publish_requests_per_session = std::max<std::size_t>(1, limits_.max_publish_requests_per_session);
  limits_.max_retransmission_queue = std::max<std::size_t>(1, limits_.max_retransmission_queue);
}

subscription_manager::~subscription_manager() = default;

std::size_t subscription_manager::queued_publish_requests(std::uint32_t session) const noexcept {
  const auto it = sessions_.find(session);
  return it == sessions_.end() ? 0 : it->second->count;
}

ua::status_code subscription_manager::check_operation_count(std::size_t n) const noexcept {
  if (n == 0) return status::bad_nothing_to_do;
  if (n > limits_.max_operations_per_call) return status::bad_too_many_operations;
  return status::good;
}

subscription_manager::subscription* subscription_manager::find_subscription(std::uint32_t session,
                                                                            std::uint32_t id) noexcept {
  const auto it = subscriptions_.find(id);
  if (it == subscriptions_.end() || it->second->session != session) return nullptr;
  return it->second.get();
}

subscription_manager::session_state* subscription_manager::find_session(std::uint32_t session) noexcept {
  const auto it = sessions_.find(session);
  return it == sessions_.end() ? nullptr : it->second.get();
}

subscription_manager::session_state& subscription_manager::session_of(std::uint32_t session) {
  auto& p = sessions_[session];
  if (!p) {
    p = std::make_unique<session_state>();
    p->id = session;
    p->queue.resize(limits_.max_publish_requests_per_session);
  }
  return *p;
}

// ---------------------------------------------------------------------------------------------
// Subscription services

// §5.13.2.2: the interval is revised into what the server supports; the keep-alive count into
// [1, max]; the lifetime count to at least three keep-alive counts (§5.13.2.2 requestedLifetimeCount)
// and, where that allows, at most max_lifetime_ms of publishing intervals.
void subscription_manager::revise(subscription& s, double interval, std::uint32_t lifetime, std::uint32_t keep_alive,
                                  std::uint32_t max_notifications) {
  if (!(interval >= limits_.min_publishing_interval_ms)) interval = limits_.min_publishing_interval_ms;  // NaN too
  s.interval_ms = std::min(interval, limits_.max_publishing_interval_ms);
  if (keep_alive == 0) keep_alive = limits_.default_keep_alive_count;
  s.keep_alive_count = std::clamp<std::uint32_t>(keep_alive, 1, limits_.max_keep_alive_count);
  const auto max_lifetime = static_cast<std::uint32_t>(
      std::clamp(limits_.max_lifetime_ms / s.interval_ms, 1.0, static_cast<double>(0xFFFF'FFFFu)));
  const std::uint32_t min_lifetime = 3 * s.keep_alive_count;
  s.lifetime_count = std::max(min_lifetime, std::min(lifetime, max_lifetime));
  s.max_notifications = max_notifications == 0 || max_notifications > limits_.max_notifications_per_publish
                            ? limits_.max_notifications_per_publish
                            : max_notifications;
}

void subscription_manager::create_subscription(std::uint32_t session, const session_identity& identity,
                                               const create_subscription_request& req,
                                               create_subscription_response& resp, const instant& now) {
  resp.response_header.service_result = status::good;
  resp.subscription_id = 0;
  session_state& ss = session_of(session);
  if (ss.subs.size() >= limits_.max_subscriptions_per_session || subscriptions_.size() >= limits_.max_subscriptions) {
    resp.response_header.service_result = status::bad_too_many_subscriptions;
    return;
  }
  auto owned = std::make_unique<subscription>();
  subscription& s = *owned;
  s.id = next_subscription_id_++;
  if (next_subscription_id_ == 0) next_subscription_id_ = 1;
  s.session = session;
  s.owner = identity;
  revise(s, req.requested_publishing_interval, req.requested_lifetime_count, req.requested_max_keep_alive_count,
         req.max_notifications_per_publish);
  s.priority = req.priority;
  s.enabled = req.publishing_enabled;
  s.next_due = after_ms(now.steady, s.interval_ms);
  s.keep_alive_counter = s.keep_alive_count - 1;  // the first cycle without data sends a keep-alive
  s.retained.reserve(limits_.max_retransmission_queue);
  s.spare.reserve(limits_.max_retransmission_queue);
  ss.subs.push_back(&s);
  subscriptions_.emplace(s.id, std::move(owned));
  resp.subscription_id = s.id;
  resp.revised_publishing_interval = s.interval_ms;
  resp.revised_lifetime_count = s.lifetime_count;
  resp.revised_max_keep_alive_count = s.keep_alive_count;
}

void subscription_manager::modify_subscription(std::uint32_t session, const modify_subscription_request& req,
                                               modify_subscription_response& resp, const instant& now) {
  resp.response_header.service_result = status::good;
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) {
    resp.response_header.service_result = status::bad_subscription_id_invalid;
    return;
  }
  const double old_interval = s->interval_ms;
  revise(*s, req.requested_publishing_interval, req.requested_lifetime_count, req.requested_max_keep_alive_count,
         req.max_notifications_per_publish);
  s->priority = req.priority;
  s->lifetime_counter = 0;
  if (s->interval_ms != old_interval) s->next_due = after_ms(now.steady, s->interval_ms);
  resp.revised_publishing_interval = s->interval_ms;
  resp.revised_lifetime_count = s->lifetime_count;
  resp.revised_max_keep_alive_count = s->keep_alive_count;
}

void subscription_manager::set_publishing_mode(std::uint32_t session, const set_publishing_mode_request& req,
                                               set_publishing_mode_response& resp) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  if (const auto sc = check_operation_count(req.subscription_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.subscription_ids.size());
  for (std::size_t i = 0; i < req.subscription_ids.size(); ++i) {
    subscription* s = find_subscription(session, req.subscription_ids[i]);
    if (!s) { resp.results[i] = status::bad_subscription_id_invalid; continue; }
    s->enabled = req.publishing_enabled;
    resp.results[i] = status::good;
  }
}

void subscription_manager::delete_subscriptions(std::uint32_t session, const delete_subscriptions_request& req,
                                                delete_subscriptions_response& resp, const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  if (const auto sc = check_operation_count(req.subscription_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.subscription_ids.size());
  for (std::size_t i = 0; i < req.subscription_ids.size(); ++i) {
    subscription* s = find_subscription(session, req.subscription_ids[i]);
    if (!s) { resp.results[i] = status::bad_subscription_id_invalid; continue; }
    delete_subscription(*s);
    resp.results[i] = status::good;
  }
  if (session_state* ss = find_session(session); ss && ss->subs.empty()) no_subscription_left(*ss, now);
}

// §5.13.7: the subscriptions move to the calling session when it acts for the same user; the
// session that had them gets a StatusChangeNotification Good_SubscriptionTransferred with its next
// Publish.
void subscription_manager::transfer_subscriptions(std::uint32_t session, const session_identity& identity,
                                                  const transfer_subscriptions_request& req,
                                                  transfer_subscriptions_response& resp, const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  if (const auto sc = check_operation_count(req.subscription_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.subscription_ids.size());
  session_state& target = session_of(session);
  for (std::size_t i = 0; i < req.subscription_ids.size(); ++i) {
    auto& r = resp.results[i];
    r.available_sequence_numbers.clear();
    const auto found = subscriptions_.find(req.subscription_ids[i]);
    if (found == subscriptions_.end()) { r.status_code = status::bad_subscription_id_invalid; continue; }
    subscription& s = *found->second;
    if (s.session != session) {
      // Checked first: another user learns nothing more about the subscription than that it exists.
      if (const auto sc = check_transfer(s.owner, identity, limits_.allow_unsecured_anonymous_transfer); sc.is_bad()) {
        r.status_code = sc;
        continue;
      }
      if (target.subs.size() >= limits_.max_subscriptions_per_session) {
        r.status_code = status::bad_too_many_subscriptions;
        continue;
      }
      if (session_state* old = find_session(s.session)) {
        std::erase(old->subs, &s);
        old->status_changes.push_back({s.id, status::good_subscription_transferred, s.next_sequence});
        s.next_sequence = next_sequence(s.next_sequence);
        while (answer_one(*old, now)) {}
        if (old->subs.empty()) no_subscription_left(*old, now);
      }
      s.session = session;
      s.owner = identity;
      target.subs.push_back(&s);
    }
    s.lifetime_counter = 0;
    // sendInitialValues: a Reporting item with a value queued sends that one next; one without
    // sends the last value sent again, as it was sent (its IndexRange applied once, past the filter).
    if (req.send_initial_values) {
      for (item* it : s.items) {
        if (it->mode != monitoring_mode::reporting || it->count > 0 || !it->has_last) continue;
        enqueue(*it, it->last);
      }
    }
    r.status_code = status::good;
    for (const auto& m : s.retained) r.available_sequence_numbers.push_back(m.sequence);
  }
}

// §5.13.6: a message still in the retransmission queue, again.
void subscription_manager::republish(std::uint32_t session, const republish_request& req, republish_response& resp) {
  resp.response_header.service_result = status::good;
  resp.notification_message.notification_data.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  s->lifetime_counter = 0;
  for (auto& m : s->retained) {
    if (m.sequence != req.retransmit_sequence_number) continue;
    resp.notification_message = m.message;
    return;
  }
  resp.response_header.service_result = status::bad_message_not_available;
}

// ---------------------------------------------------------------------------------------------
// MonitoredItem services

namespace {

struct filter_settings {
  data_change_trigger trigger = data_change_trigger::status_value;
  bool deadband = false;
  double deadband_abs = 0;
};

// The EURange property of a node (Part 8 §5.6.2), for a percent deadband.
const ua::range* eu_range(const address_space& as, node_index n) {
  const node_index property = as.find(node_id(0, has_property));
  for (const auto& ref : as.forward_references(n)) {
    if (ref.type != property || as.at(ref.target).browse_name != "EURange") continue;
    const variable_data* var = as.variable(ref.target);
    if (!var) return nullptr;
    const auto* eo = var->value.value.get_if<extension_object>();
    return eo ? eo->get_if<ua::range>() : nullptr;
  }
  return nullptr;
}

// §7.22.2 DataChangeFilter; EventFilter and AggregateFilter are not served on data items.
status_code parse_filter(const extension_object& filter, const address_space& as, node_index n,
                         std::uint32_t attribute, filter_settings& out) {
  out = {};
  if (filter.empty()) return status::good;
  const auto* f = filter.get_if<data_change_filter>();
  if (!f) {
    if (filter.get_if<event_filter>()) return status::bad_filter_not_allowed;
    if (filter.get_if<aggregate_filter>()) return status::bad_monitored_item_filter_unsupported;
    return status::bad_monitored_item_filter_invalid;
  }
  if (attribute != value_attribute) return status::bad_filter_not_allowed;
  if (static_cast<std::uint32_t>(f->trigger) > 2) return status::bad_monitored_item_filter_invalid;
  out.trigger = f->trigger;
  if (f->deadband_type == static_cast<std::uint32_t>(deadband_type::none)) return status::good;
  if (f->deadband_type > static_cast<std::uint32_t>(deadband_type::percent)) return status::bad_deadband_filter_invalid;
  if (!(f->deadband_value >= 0) || std::isinf(f->deadband_value)) return status::bad_deadband_filter_invalid;
  // A deadband needs a numeric DataType (§7.22.2: Bad_FilterNotAllowed otherwise).
  const variable_data* var = as.variable(n);
  if (!var || !as.is_subtype_of(var->data_type.to_node_id(), node_id(0, number_type)))
    return status::bad_filter_not_allowed;
  out.deadband = true;
  if (f->deadband_type == static_cast<std::uint32_t>(deadband_type::absolute)) {
    out.deadband_abs = f->deadband_value;
    return status::good;
  }
  // Percent of the EURange (Part 8 §6.2): without one the filter cannot be served.
  if (f->deadband_value > 100) return status::bad_deadband_filter_invalid;
  const ua::range* r = eu_range(as, n);
  if (!r) return status::bad_monitored_item_filter_unsupported;
  out.deadband_abs = f->deadband_value / 100.0 * std::fabs(r->high - r->low);
  return status::good;
}

}  // namespace

void subscription_manager::create_monitored_items(std::uint32_t session, const create_monitored_items_request& req,
                                                  create_monitored_items_response& resp, address_space& as,
                                                  const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.timestamps_to_return) > 3) {
    resp.response_header.service_result = status::bad_timestamps_to_return_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.items_to_create.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.items_to_create.size());
  if (watchers_.size() < as.size()) watchers_.resize(as.size());
  for (std::size_t i = 0; i < req.items_to_create.size(); ++i) {
    const auto& c = req.items_to_create[i];
    auto& r = resp.results[i];
    r.monitored_item_id = 0;
    r.revised_sampling_interval = 0;
    r.revised_queue_size = 0;
    r.filter_result.clear();
    const node_index n = as.find(c.item_to_monitor.node_id);
    if (n == no_node) { r.status_code = status::bad_node_id_unknown; continue; }
    const std::uint32_t attr = c.item_to_monitor.attribute_id;
    if (const status_code sc = as.read(n, static_cast<attribute_id>(attr), attribute_); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    const auto range = services::parse_numeric_range(c.item_to_monitor.index_range.view());
    if (!range) { r.status_code = status::bad_index_range_invalid; continue; }
    if (!c.item_to_monitor.data_encoding.name.is_null() && !c.item_to_monitor.data_encoding.name.empty()) {
      r.status_code = status::bad_data_encoding_unsupported;
      continue;
    }
    if (static_cast<std::uint32_t>(c.monitoring_mode) > 2) { r.status_code = status::bad_monitoring_mode_invalid; continue; }
    filter_settings filter;
    if (const status_code sc = parse_filter(c.requested_parameters.filter, as, n, attr, filter); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    if (s->items.size() >= limits_.max_monitored_items_per_subscription || item_count_ >= limits_.max_monitored_items) {
      r.status_code = status::bad_too_many_monitored_items;
      continue;
    }
    auto owned = std::make_unique<item>();
    item& it = *owned;
    it.id = next_item_id_++;
    if (next_item_id_ == 0) next_item_id_ = 1;
    it.sub = s;
    it.node = n;
    it.attribute = attr;
    it.range = *range;
    it.timestamps = req.timestamps_to_return;
    it.client_handle = c.requested_parameters.client_handle;
    it.mode = c.monitoring_mode;
    it.discard_oldest = c.requested_parameters.discard_oldest;
    it.trigger = filter.trigger;
    it.deadband = filter.deadband;
    it.deadband_abs = filter.deadband_abs;
    // §7.21: 0 is the fastest practical rate (every change here), negative or NaN the publishing
    // interval; a positive one at least what the server and the node's MinimumSamplingInterval allow.
    double sampling = c.requested_parameters.sampling_interval;
    if (!(sampling >= 0)) sampling = s->interval_ms;
    if (sampling > 0) sampling = std::clamp(sampling, limits_.min_sampling_interval_ms, limits_.max_sampling_interval_ms);
    if (const variable_data* var = as.variable(n); var && attr == value_attribute &&
                                                   var->minimum_sampling_interval > sampling)
      sampling = std::min(var->minimum_sampling_interval, limits_.max_sampling_interval_ms);
    it.sampling_ms = sampling;
    it.next_sample = after_ms(now.steady, sampling);
    it.queue_size = std::clamp<std::uint32_t>(c.requested_parameters.queue_size, 1, limits_.max_queue_size);
    it.sub_pos = s->items.size();
    s->items.push_back(&it);
    if (attr == value_attribute) {
      as.set_monitored(n, true);
      auto& w = watchers_[n];
      it.watch_pos = w.size();
      it.watching = true;
      w.push_back(&it);
    }
    items_.emplace(it.id, std::move(owned));
    ++item_count_;
    r.status_code = status::good;
    r.monitored_item_id = it.id;
    r.revised_sampling_interval = it.sampling_ms;
    r.revised_queue_size = it.queue_size;
    // §5.12.1.2: the first sample is the current value.
    if (it.mode != monitoring_mode::disabled)
      sample(it, attr == value_attribute ? as.variable(n)->value : attribute_);
  }
}

void subscription_manager::modify_monitored_items(std::uint32_t session, const modify_monitored_items_request& req,
                                                  modify_monitored_items_response& resp, const address_space& as,
                                                  const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.timestamps_to_return) > 3) {
    resp.response_header.service_result = status::bad_timestamps_to_return_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.items_to_modify.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.items_to_modify.size());
  for (std::size_t i = 0; i < req.items_to_modify.size(); ++i) {
    const auto& m = req.items_to_modify[i];
    auto& r = resp.results[i];
    r.filter_result.clear();
    r.revised_sampling_interval = 0;
    r.revised_queue_size = 0;
    const auto found = items_.find(m.monitored_item_id);
    if (found == items_.end() || found->second->sub != s) { r.status_code = status::bad_monitored_item_id_invalid; continue; }
    item& it = *found->second;
    filter_settings filter;
    if (const status_code sc = parse_filter(m.requested_parameters.filter, as, it.node, it.attribute, filter); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    it.trigger = filter.trigger;
    it.deadband = filter.deadband;
    it.deadband_abs = filter.deadband_abs;
    it.timestamps = req.timestamps_to_return;
    it.client_handle = m.requested_parameters.client_handle;
    it.discard_oldest = m.requested_parameters.discard_oldest;
    double sampling = m.requested_parameters.sampling_interval;
    if (!(sampling >= 0)) sampling = s->interval_ms;
    if (sampling > 0) sampling = std::clamp(sampling, limits_.min_sampling_interval_ms, limits_.max_sampling_interval_ms);
    if (const variable_data* var = as.variable(it.node); var && it.attribute == value_attribute &&
                                                       var->minimum_sampling_interval > sampling)
      sampling = std::min(var->minimum_sampling_interval, limits_.max_sampling_interval_ms);
    it.sampling_ms = sampling;
    it.next_sample = after_ms(now.steady, sampling);
    const std::uint32_t size = std::clamp<std::uint32_t>(m.requested_parameters.queue_size, 1, limits_.max_queue_size);
    if (size != it.queue_size) resize_queue(it, size);
    r.status_code = status::good;
    r.revised_sampling_interval = it.sampling_ms;
    r.revised_queue_size = it.queue_size;
  }
}

void subscription_manager::set_monitoring_mode(std::uint32_t session, const set_monitoring_mode_request& req,
                                               set_monitoring_mode_response& resp, const address_space& as,
                                               const instant& now) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (static_cast<std::uint32_t>(req.monitoring_mode) > 2) {
    resp.response_header.service_result = status::bad_monitoring_mode_invalid;
    return;
  }
  if (const auto sc = check_operation_count(req.monitored_item_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.monitored_item_ids.size());
  for (std::size_t i = 0; i < req.monitored_item_ids.size(); ++i) {
    const auto found = items_.find(req.monitored_item_ids[i]);
    if (found == items_.end() || found->second->sub != s) {
      resp.results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    item& it = *found->second;
    resp.results[i] = status::good;
    const monitoring_mode old = it.mode;
    it.mode = req.monitoring_mode;
    if (old == it.mode) continue;
    if (it.mode == monitoring_mode::disabled) {
      // §5.12.1.3: disabled means no sampling and no queue.
      it.head = it.count = 0;
      it.has_last = false;
      if (it.in_ready) { std::erase(s->ready, &it); it.in_ready = it.triggered = false; }
      if (it.pending) { std::erase(s->pending, &it); it.pending = false; }
    } else if (old == monitoring_mode::disabled) {
      it.next_sample = after_ms(now.steady, it.sampling_ms);
      if (it.attribute == value_attribute) {
        sample(it, as.variable(it.node)->value);
      } else if (as.read(it.node, static_cast<attribute_id>(it.attribute), attribute_).is_good()) {
        sample(it, attribute_);
      }
    } else if (it.mode == monitoring_mode::reporting) {
      if (it.count > 0) mark_ready(it, false);
    } else if (it.in_ready && !it.triggered) {  // reporting -> sampling
      std::erase(s->ready, &it);
      it.in_ready = false;
    }
  }
}

// §5.12.5: removes before adds; a link to an unknown item is Bad_MonitoredItemIdInvalid.
void subscription_manager::set_triggering(std::uint32_t session, const set_triggering_request& req,
                                          set_triggering_response& resp) {
  resp.response_header.service_result = status::good;
  resp.add_results.clear();
  resp.remove_results.clear();
  resp.add_diagnostic_infos.clear();
  resp.remove_diagnostic_infos.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (req.links_to_add.empty() && req.links_to_remove.empty()) {
    resp.response_header.service_result = status::bad_nothing_to_do;
    return;
  }
  if (req.links_to_add.size() > limits_.max_operations_per_call ||
      req.links_to_remove.size() > limits_.max_operations_per_call) {
    resp.response_header.service_result = status::bad_too_many_operations;
    return;
  }
  const auto found = items_.find(req.triggering_item_id);
  if (found == items_.end() || found->second->sub != s) {
    resp.response_header.service_result = status::bad_monitored_item_id_invalid;
    return;
  }
  item& trigger = *found->second;
  // §5.12.6: the links to a deleted item went with it (dropped here, not on every delete).
  std::erase_if(trigger.links, [&](std::uint32_t id) {
    const auto linked = items_.find(id);
    return linked == items_.end() || linked->second->sub != s;
  });
  resp.remove_results.resize(req.links_to_remove.size());
  for (std::size_t i = 0; i < req.links_to_remove.size(); ++i) {
    const auto pos = std::find(trigger.links.begin(), trigger.links.end(), req.links_to_remove[i]);
    if (pos == trigger.links.end()) { resp.remove_results[i] = status::bad_monitored_item_id_invalid; continue; }
    trigger.links.erase(pos);
    resp.remove_results[i] = status::good;
  }
  resp.add_results.resize(req.links_to_add.size());
  for (std::size_t i = 0; i < req.links_to_add.size(); ++i) {
    const std::uint32_t id = req.links_to_add[i];
    const auto linked = items_.find(id);
    if (linked == items_.end() || linked->second->sub != s) {
      resp.add_results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    if (std::find(trigger.links.begin(), trigger.links.end(), id) == trigger.links.end()) {
      if (trigger.links.size() >= limits_.max_operations_per_call) {
        resp.add_results[i] = status::bad_too_many_operations;
        continue;
      }
      trigger.links.push_back(id);
    }
    resp.add_results[i] = status::good;
  }
}

void subscription_manager::delete_monitored_items(std::uint32_t session, const delete_monitored_items_request& req,
                                                  delete_monitored_items_response& resp) {
  resp.response_header.service_result = status::good;
  resp.diagnostic_infos.clear();
  resp.results.clear();
  subscription* s = find_subscription(session, req.subscription_id);
  if (!s) { resp.response_header.service_result = status::bad_subscription_id_invalid; return; }
  if (const auto sc = check_operation_count(req.monitored_item_ids.size()); sc.is_bad()) {
    resp.response_header.service_result = sc;
    return;
  }
  resp.results.resize(req.monitored_item_ids.size());
  for (std::size_t i = 0; i < req.monitored_item_ids.size(); ++i) {
    const auto found = items_.find(req.monitored_item_ids[i]);
    if (found == items_.end() || found->second->sub != s) {
      resp.results[i] = status::bad_monitored_item_id_invalid;
      continue;
    }
    delete_item(*found->second);
    resp.results[i] = status::good;
  }
}

void subscription_manager::delete_item(item& it) {
  subscription& s = *it.sub;
  if (it.watching) {
    auto& w = watchers_[it.node];
    w[it.watch_pos] = w.back();
    w[it.watch_pos]->watch_pos = it.watch_pos;
    w.pop_back();
  }
  s.items[it.sub_pos] = s.items.back();
  s.items[it.sub_pos]->sub_pos = it.sub_pos;
  s.items.pop_back();
  if (it.in_ready) std::erase(s.ready, &it);
  if (it.pending) std::erase(s.pending, &it);
  --item_count_;
  items_.erase(it.id);  // frees `it`
}

void subscription_manager::delete_subscription(subscription& s) {
  while (!s.items.empty()) delete_item(*s.items.back());
  if (session_state* ss = find_session(s.session)) std::erase(ss->subs, &s);
  subscriptions_.erase(s.id);  // frees `s`
}

// ---------------------------------------------------------------------------------------------
// Sampling and the queues

void subscription_manager::value_changed(node_index n, const data_value& value) {
  if (n >= watchers_.size()) return;
  for (item* it : watchers_[n]) {
    if (it->mode == monitoring_mode::disabled) continue;
    if (it->sampling_ms == 0) {
      sample(*it, value);
    } else if (!it->pending) {
      it->pending = true;
      it->sub->pending.push_back(it);
    }
  }
}

// One sample of an item: through the filter (§7.22.2), into the queue (§5.12.1.5), reported when
// the item reports, and its triggered items with it (§5.12.1.6).
void subscription_manager::sample(item& it, const data_value& in) {
  const data_value* v = &in;
  if (!it.range.empty()) {
    scratch_ = in;
    if (const status_code sc = services::apply_numeric_range(scratch_.value, it.range); sc.is_bad()) {
      scratch_.value.clear();
      scratch_.status = sc;
      scratch_.has_status = true;
    }
    v = &scratch_;
  }
  if (it.has_last) {
    const data_value& last = it.last;
    bool changed = v->status != last.status || v->has_status != last.has_status;
    if (!changed && it.trigger != data_change_trigger::status) {
      changed = it.deadband ? exceeds_deadband(last.value, v->value, it.deadband_abs) : !(last.value == v->value);
      if (!changed && it.trigger == data_change_trigger::status_value_timestamp)
        changed = v->source_timestamp != last.source_timestamp || v->source_picoseconds != last.source_picoseconds;
    }
    if (!changed) return;
  }
  it.last = *v;
  it.has_last = true;
  enqueue(it, *v);
  for (const std::uint32_t id : it.links) {
    const auto linked = items_.find(id);
    if (linked == items_.end() || linked->second->sub != it.sub) continue;  // deleted since
    item& l = *linked->second;
    if (l.mode == monitoring_mode::sampling && l.count > 0) mark_ready(l, true);
  }
}

// A value that passed the filter into the item's queue (§5.12.1.5), reported when the item reports.
// The queue: a ring growing to queue_size. Full: discard the oldest (the next one gets the
// Overflow bit) or replace the newest (which gets it); a queue of one just keeps the newest.
void subscription_manager::enqueue(item& it, const data_value& value) {
  const data_value* v = &value;
  const std::size_t cap = it.queue_size;
  if (it.count < cap) {
    const std::size_t at = (it.head + it.count) % cap;
    if (at == it.queue.size()) it.queue.push_back(*v);
    else it.queue[at] = *v;
    ++it.count;
  } else if (cap == 1) {
    it.queue[it.head] = *v;
  } else if (it.discard_oldest) {
    it.head = (it.head + 1) % cap;
    set_overflow(it.queue[it.head]);
    it.queue[(it.head + it.count - 1) % cap] = *v;
  } else {
    data_value& newest = it.queue[(it.head + it.count - 1) % cap];
    newest = *v;
    set_overflow(newest);
  }

  if (it.mode == monitoring_mode::reporting) mark_ready(it, false);
}

void subscription_manager::mark_ready(item& it, bool triggered) {
  it.triggered = it.triggered || triggered;
  if (it.in_ready) return;
  it.in_ready = true;
  it.sub->ready.push_back(&it);
}

// ---------------------------------------------------------------------------------------------
// Publish

byte_buffer& subscription_manager::next_deferred(std::uint32_t channel_id, std::uint32_t request_id) {
  if (immediate_ && channel_id == immediate_channel_ && request_id == immediate_request_) {
    byte_buffer* out = immediate_;
    immediate_ = nullptr;  // one answer per request
    return *out;
  }
  if (deferred_count_ == deferred_.size()) deferred_.emplace_back();
  deferred_response& d = deferred_[deferred_count_++];
  d.channel_id = channel_id;
  d.request_id = request_id;
  d.message.clear();
  return d.message;
}

void subscription_manager::answer_fault(std::uint32_t channel_id, std::uint32_t request_id, std::uint32_t handle,
                                        status_code result, const instant& now) {
  fault_.response_header.request_handle = handle;
  fault_.response_header.timestamp = now.utc;
  fault_.response_header.service_result = result;
  encode_to(fault_, next_deferred(channel_id, request_id));
}

bool subscription_manager::publish(std::uint32_t session, std::uint32_t channel_id, std::uint32_t request_id,
                                   const publish_request& req, const instant& now, byte_buffer& out) {
  immediate_ = &out;
  immediate_channel_ = channel_id;
  immediate_request_ = request_id;
  session_state* ss = find_session(session);
  if (!ss || (ss->subs.empty() && ss->status_changes.empty())) {
    answer_fault(channel_id, request_id, req.request_header.request_handle, status::bad_no_subscription, now);
    immediate_ = nullptr;
    return true;
  }
  // §5.13.5.1: the oldest queued request makes room, answered Bad_TooManyPublishRequests.
  if (ss->count == ss->queue.size()) {
    const publish_entry& old = ss->front();
    answer_fault(old.channel_id, old.request_id, old.request_handle, status::bad_too_many_publish_requests, now);
    ss->pop();
  }
  publish_entry& e = ss->queue[(ss->head + ss->count) % ss->queue.size()];
  ++ss->count;
  e.channel_id = channel_id;
  e.request_id = request_id;
  e.request_handle = req.request_header.request_handle;
  e.timeout_hint = req.request_header.timeout_hint;
  e.received = now.steady;
  // §5.13.5.2: each acknowledgement gets its own result; an acknowledged message leaves the
  // retransmission queue (its storage kept for the next message).
  e.results.resize(req.subscription_acknowledgements.size());
  for (std::size_t i = 0; i < req.subscription_acknowledgements.size(); ++i) {
    const auto& ack = req.subscription_acknowledgements[i];
    subscription* s = find_subscription(session, ack.subscription_id);
    if (!s) { e.results[i] = status::bad_subscription_id_invalid; continue; }
    const auto m = std::find_if(s->retained.begin(), s->retained.end(),
                                [&](const retained_message& r) { return r.sequence == ack.sequence_number; });
    if (m == s->retained.end()) { e.results[i] = status::bad_sequence_number_unknown; continue; }
    s->spare.push_back(std::move(*m));
    s->retained.erase(m);
    e.results[i] = status::good;
  }
  for (subscription* s : ss->subs) s->lifetime_counter = 0;  // §5.13.1.1: a Publish request arrived
  while (answer_one(*ss, now)) {}
  if (ss->subs.empty()) no_subscription_left(*ss, now);  // the status changes are out
  const bool answered = immediate_ == nullptr;
  immediate_ = nullptr;
  return answered;
}

// Answers the oldest queued Publish request with what is due: a status change, or the message of
// a late subscription (the highest priority first). False when nothing was answered.
bool subscription_manager::answer_one(session_state& ss, const instant& now) {
  if (ss.count == 0) return false;
  if (!ss.status_changes.empty()) {
    const status_change c = ss.status_changes.front();
    ss.status_changes.erase(ss.status_changes.begin());
    send_status_change(ss, c.subscription_id, c.status, c.sequence, now);
    return true;
  }
  subscription* best = nullptr;
  for (subscription* s : ss.subs)
    if (s->late && (!best || s->priority > best->priority)) best = s;
  if (!best) return false;
  if (best->enabled && !best->ready.empty()) send_data(*best, ss, now);
  else send_keep_alive(*best, ss, now);
  return true;
}

void subscription_manager::encode_publish(std::uint32_t channel_id, std::uint32_t request_id) {
  encode_to(publish_, next_deferred(channel_id, request_id));
}

// A NotificationMessage of data changes (§7.25), at most max_notifications of them; the rest
// stay queued (moreNotifications). It goes into the retransmission queue until acknowledged.
void subscription_manager::send_data(subscription& s, session_state& ss, const instant& now) {
  retained_message m;
  if (!s.spare.empty()) {
    m = std::move(s.spare.back());
    s.spare.pop_back();
  }
  m.sequence = s.next_sequence;
  s.next_sequence = next_sequence(s.next_sequence);
  m.message.sequence_number = m.sequence;
  m.message.publish_time = now.utc;
  m.message.notification_data.resize(1);
  auto& dcn = m.message.notification_data[0].emplace<data_change_notification>();
  dcn.diagnostic_infos.clear();
  std::size_t total = 0;
  for (const item* it : s.ready) total += it->count;
  total = std::min<std::size_t>(total, s.max_notifications);
  dcn.monitored_items.resize(total);
  std::size_t n = 0;
  std::size_t kept = 0;  // items still with values after this message
  for (item* it : s.ready) {
    while (it->count > 0 && n < total) {
      auto& note = dcn.monitored_items[n++];
      note.client_handle = it->client_handle;
      std::swap(note.value, it->queue[it->head]);  // the queue slot is overwritten when reused
      apply_timestamps(note.value, it->timestamps);
      it->head = (it->head + 1) % it->queue_size;
      --it->count;
    }
    if (it->count == 0) {
      it->head = 0;
      it->in_ready = false;
      it->triggered = false;
    } else {
      s.ready[kept++] = it;
    }
  }
  s.ready.resize(kept);
  if (s.retained.size() >= limits_.max_retransmission_queue) {  // the oldest is dropped unacknowledged
    s.spare.push_back(std::move(s.retained.front()));
    s.retained.erase(s.retained.begin());
  }
  s.retained.push_back(std::move(m));

  publish_entry& e = ss.front();
  publish_.response_header.request_handle = e.request_handle;
  publish_.response_header.timestamp = now.utc;
  publish_.response_header.service_result = status::good;
  publish_.subscription_id = s.id;
  publish_.more_notifications = !s.ready.empty();
  publish_.available_sequence_numbers.clear();
  for (const auto& r : s.retained) publish_.available_sequence_numbers.push_back(r.sequence);
  std::swap(publish_.notification_message, s.retained.back().message);
  std::swap(publish_.results, e.results);
  encode_publish(e.channel_id, e.request_id);
  std::swap(publish_.results, e.results);
  std::swap(publish_.notification_message, s.retained.back().message);
  ss.pop();
  s.keep_alive_counter = 0;
  s.late = publish_.more_notifications;
}

// §5.13.1.1: a keep-alive carries the next sequence number without using it.
void subscription_manager::send_keep_alive(subscription& s, session_state& ss, const instant& now) {
  publish_entry& e = ss.front();
  publish_.response_header.request_handle = e.request_handle;
  publish_.response_header.timestamp = now.utc;
  publish_.response_header.service_result = status::good;
  publish_.subscription_id = s.id;
  publish_.more_notifications = false;
  publish_.available_sequence_numbers.clear();
  for (const auto& r : s.retained) publish_.available_sequence_numbers.push_back(r.sequence);
  publish_.notification_message.sequence_number = s.next_sequence;
  publish_.notification_message.publish_time = now.utc;
  publish_.notification_message.notification_data.clear();
  std::swap(publish_.results, e.results);
  encode_publish(e.channel_id, e.request_id);
  std::swap(publish_.results, e.results);
  ss.pop();
  s.keep_alive_counter = 0;
  s.late = false;
}

void subscription_manager::send_status_change(session_state& ss, std::uint32_t subscription_id, status_code status,
                                              std::uint32_t sequence, const instant& now) {
  publish_entry& e = ss.front();
  publish_.response_header.request_handle = e.request_handle;
  publish_.response_header.timestamp = now.utc;
  publish_.response_header.service_result = status::good;
  publish_.subscription_id = subscription_id;
  publish_.more_notifications = false;
  publish_.available_sequence_numbers.clear();
  notification_message m;
  m.sequence_number = sequence;
  m.publish_time = now.utc;
  status_change_notification sc;
  sc.status = status;
  m.notification_data.push_back(extension_object(std::move(sc)));
  std::swap(publish_.notification_message, m);
  std::swap(publish_.results, e.results);
  encode_publish(e.channel_id, e.request_id);
  std::swap(publish_.results, e.results);
  std::swap(publish_.notification_message, m);
  ss.pop();
}

// The session's last subscription went: its queued Publish requests are answered (§5.13.5.3
// Bad_NoSubscription), after any status change still to send.
void subscription_manager::no_subscription_left(session_state& ss, const instant& now) {
  while (answer_one(ss, now)) {}
  if (!ss.subs.empty() || !ss.status_changes.empty()) return;
  while (ss.count > 0) {
    const publish_entry& e = ss.front();
    answer_fault(e.channel_id, e.request_id, e.request_handle, status::bad_no_subscription, now);
    ss.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// The publishing clock

// One publishing cycle of a subscription (§5.13.1.1 state table, condensed): notifications go
// out with a queued Publish request, or wait (late); without notifications the keep-alive counter
// runs and a keep-alive goes out when it reaches MaxKeepAliveCount; a cycle without a Publish
// request to use counts towards the lifetime, and at LifetimeCount the subscription ends with a
// StatusChangeNotification Bad_Timeout for the session's next Publish.
void subscription_manager::cycle(subscription& s, const instant& now) {
  session_state* ss = find_session(s.session);
  const bool has_request = ss && ss->count > 0;
  if (s.enabled && !s.ready.empty()) {
    if (has_request) {
      while (ss->count > 0 && s.enabled && !s.ready.empty()) send_data(s, *ss, now);
    } else {
      s.late = true;
    }
  } else if (!s.late && ++s.keep_alive_counter >= s.keep_alive_count) {
    if (has_request) send_keep_alive(s, *ss, now);
    else s.late = true;
  }
  if (has_request) {
    s.lifetime_counter = 0;
    return;
  }
  if (++s.lifetime_counter >= s.lifetime_count) expired_.push_back(&s);
}

void subscription_manager::publish_tick(const address_space& as, const instant& now) {
  // Queued Publish requests past their timeoutHint (Part 4 §7.32) are answered Bad_Timeout.
  for (auto& [id, ss] : sessions_) {
    while (ss->count > 0) {
      const publish_entry& e = ss->front();
      if (e.timeout_hint == 0 || now.steady < e.received + std::chrono::milliseconds(e.timeout_hint)) break;
      answer_fault(e.channel_id, e.request_id, e.request_handle, status::bad_timeout, now);
      ss->pop();
    }
  }
  expired_.clear();
  for (auto& [id, owned] : subscriptions_) {
    subscription& s = *owned;
    // Sampled items that changed: the current value, once their interval has passed.
    std::size_t kept = 0;
    for (item* it : s.pending) {
      if (now.steady < it->next_sample) {
        s.pending[kept++] = it;
        continue;
      }
      it->pending = false;
      it->next_sample = after_ms(now.steady, it->sampling_ms);
      if (const variable_data* var = as.variable(it->node)) sample(*it, var->value);
    }
    s.pending.resize(kept);
    if (now.steady < s.next_due) continue;
    s.next_due = after_ms(s.next_due, s.interval_ms);
    if (s.next_due <= now.steady) s.next_due = after_ms(now.steady, s.interval_ms);  // fell behind: no burst
    cycle(s, now);
  }
  for (subscription* s : expired_) {
    if (session_state* ss = find_session(s->session)) {
      ss->status_changes.push_back({s->id, status::bad_timeout, s->next_sequence});
      delete_subscription(*s);
    } else {
      delete_subscription(*s);
    }
  }
  expired_.clear();
}

std::chrono::steady_clock::time_point subscription_manager::next_due() const noexcept {
  auto due = std::chrono::steady_clock::time_point::max();
  for (const auto& [id, s] : subscriptions_) due = std::min(due, s->next_due);
  return due;
}

// ---------------------------------------------------------------------------------------------
// Sessions and channels

void subscription_manager::session_closed(std::uint32_t session, bool delete_subscriptions, const instant& now) {
  const auto found = sessions_.find(session);
  if (found == sessions_.end()) return;
  session_state& ss = *found->second;
  while (ss.count > 0) {
    const publish_entry& e = ss.front();
    answer_fault(e.channel_id, e.request_id, e.request_handle, status::bad_session_closed, now);
    ss.pop();
  }
  // Part 4 §5.7.4: without deleteSubscriptions they live on until their lifetime ends, for a
  // TransferSubscriptions from another session.
  while (!ss.subs.empty()) {
    subscription* s = ss.subs.back();
    if (delete_subscriptions) {
      delete_subscription(*s);
    } else {
      s->session = 0;
      s->late = false;
      ss.subs.pop_back();
    }
  }
  sessions_.erase(found);
}

void subscription_manager::session_activated(std::uint32_t session, const session_identity& identity) {
  session_state* ss = find_session(session);
  if (!ss) return;
  for (subscription* s : ss->subs)
    if (!(s->owner == identity)) s->owner = identity;
}

void subscription_manager::channel_closed(std::uint32_t channel_id) {
  for (auto& [id, ss] : sessions_) {
    const std::size_t n = ss->count;
    std::size_t kept = 0;
    const std::size_t size = ss->queue.size();
    for (std::size_t k = 0; k < n; ++k) {
      auto& e = ss->queue[(ss->head + k) % size];
      if (e.channel_id == channel_id) continue;
      if (kept != k) std::swap(ss->queue[(ss->head + kept) % size], e);
      ++kept;
    }
    ss->count = kept;
  }
}

}  // namespace uactor::actors
