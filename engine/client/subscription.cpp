#include "engine/client/subscription.hpp"

#include <algorithm>


namespace uactor {

ua::monitored_item_create_request monitor_value(ua::node_id node, std::uint32_t client_handle, double sampling_interval_ms,
                                                std::uint32_t queue_size, bool discard_oldest) {
  ua::monitored_item_create_request r;
  r.item_to_monitor.node_id = std::move(node);
  r.item_to_monitor.attribute_id = 13;  // Value (Part 6 §A.1)
  r.monitoring_mode = ua::monitoring_mode::reporting;
  r.requested_parameters.client_handle = client_handle;
  r.requested_parameters.sampling_interval = sampling_interval_ms;  // -1: the publishing interval
  r.requested_parameters.queue_size = queue_size;
  r.requested_parameters.discard_oldest = discard_oldest;
  return r;
}

ua::extension_object data_change_filter(ua::data_change_trigger trigger, std::uint32_t deadband_type, double deadband_value) {
  ua::data_change_filter f;
  f.trigger = trigger;
  f.deadband_type = deadband_type;
  f.deadband_value = deadband_value;
  return ua::extension_object(std::move(f));
}

ua::monitored_item_create_request monitor_events(ua::node_id node, std::uint32_t client_handle, ua::event_filter filter,
                                                 std::uint32_t queue_size, bool discard_oldest) {
  ua::monitored_item_create_request r;
  r.item_to_monitor.node_id = std::move(node);
  r.item_to_monitor.attribute_id = 12;  // EventNotifier (Part 6 §A.1, Part 4 §7.21)
  r.monitoring_mode = ua::monitoring_mode::reporting;
  r.requested_parameters.client_handle = client_handle;
  r.requested_parameters.sampling_interval = 0;  // Part 4 §5.12.1.2: events are not sampled
  r.requested_parameters.queue_size = queue_size;
  r.requested_parameters.discard_oldest = discard_oldest;
  r.requested_parameters.filter = ua::extension_object(std::move(filter));
  return r;
}

ua::simple_attribute_operand event_field(std::string_view path, ua::node_id type, std::uint32_t attribute_id) {
  ua::simple_attribute_operand o;
  o.type_definition_id = std::move(type);
  o.attribute_id = attribute_id;
  std::vector<ua::qualified_name> elements;
  while (!path.empty()) {
    const auto slash = path.find('/');
    elements.push_back(ua::qualified_name{0, ua::ua_string(path.substr(0, slash))});
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  o.browse_path = ua::ua_array<ua::qualified_name>(std::move(elements));
  return o;
}

event_filter_builder& event_filter_builder::select(std::string_view path, ua::node_id type) {
  return select(event_field(path, std::move(type)));
}

event_filter_builder& event_filter_builder::select(ua::simple_attribute_operand field) {
  filter_.select_clauses.push_back(std::move(field));
  return *this;
}

event_filter_builder& event_filter_builder::min_severity(std::uint16_t severity) {
  ua::content_filter_element e;
  e.filter_operator = ua::filter_operator::greater_than_or_equal;
  ua::literal_operand bound;
  bound.value = ua::variant(severity);  // Severity is a UInt16 (Part 5 §6.4.2)
  e.filter_operands = ua::ua_array<ua::extension_object>(
      std::vector<ua::extension_object>{ua::extension_object(event_field("Severity")), ua::extension_object(std::move(bound))});
  return where(std::move(e));
}

event_filter_builder& event_filter_builder::of_type(ua::node_id type) {
  ua::content_filter_element e;
  e.filter_operator = ua::filter_operator::of_type;
  ua::literal_operand t;
  t.value = ua::variant(std::move(type));
  e.filter_operands = ua::ua_array<ua::extension_object>(std::vector<ua::extension_object>{ua::extension_object(std::move(t))});
  return where(std::move(e));
}

event_filter_builder& event_filter_builder::where(ua::content_filter_element condition) {
  conditions_.push_back(std::move(condition));
  negated_.push_back(false);
  return *this;
}

event_filter_builder& event_filter_builder::where_not(ua::content_filter_element condition) {
  where(std::move(condition));
  negated_.back() = true;
  return *this;
}

// Layout of n conditions, m of them negated: n-1 And elements first, then one element per
// condition (a negated one's Not), then the negated conditions themselves, so that every
// ElementOperand points to a later element (Part 4 §7.7.4.2):
//   [And(E(n-1), E(1)), And(E(n), E(2)), ..., And(E(2n-3), E(2n-2)), c0, Not(E(2n-1)), ..., c(n-1), c1]
std::size_t event_filter_builder::where_element(std::size_t k) const noexcept {
  return conditions_.size() > 1 ? conditions_.size() - 1 + k : 0;
}

std::size_t event_filter_builder::condition_of_element(std::size_t element) const noexcept {
  const std::size_t n = conditions_.size();
  if (n == 0 || element < where_element(0)) return static_cast<std::size_t>(-1);
  if (element <= where_element(n - 1)) return element - where_element(0);
  std::size_t under = where_element(n - 1);  // the element before the first negated condition
  for (std::size_t k = 0; k < n; ++k)
    if (negated_[k] && ++under == element) return k;
  return static_cast<std::size_t>(-1);
}

ua::event_filter event_filter_builder::build() const {
  ua::event_filter f = filter_;
  const std::size_t n = conditions_.size();
  std::vector<ua::content_filter_element> elements;
  auto element = [](std::size_t i) {
    ua::element_operand o;
    o.index = static_cast<std::uint32_t>(i);
    return ua::extension_object(o);
  };
  for (std::size_t i = 0; n > 1 && i + 1 < n; ++i) {
    ua::content_filter_element a;
    a.filter_operator = ua::filter_operator::and_;
    const std::size_t second = i + 2 < n ? i + 1 : where_element(n - 1);
    a.filter_operands = ua::ua_array<ua::extension_object>(std::vector<ua::extension_object>{element(where_element(i)), element(second)});
    elements.push_back(std::move(a));
  }
  std::size_t under = n > 0 ? where_element(n - 1) : 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!negated_[k]) {
      elements.push_back(conditions_[k]);
      continue;
    }
    ua::content_filter_element no;
    no.filter_operator = ua::filter_operator::not_;
    no.filter_operands = ua::ua_array<ua::extension_object>(std::vector<ua::extension_object>{element(++under)});
    elements.push_back(std::move(no));
  }
  for (std::size_t k = 0; k < n; ++k)
    if (negated_[k]) elements.push_back(conditions_[k]);
  f.where_clause.elements = ua::ua_array<ua::content_filter_element>(std::move(elements));
  return f;
}

const ua::event_filter_result* event_filter_result_of(const ua::monitored_item_create_result& result) noexcept {
  return result.filter_result.get_if<ua::event_filter_result>();
}

const ua::event_filter_result* event_filter_result_of(const ua::monitored_item_modify_result& result) noexcept {
  return result.filter_result.get_if<ua::event_filter_result>();
}

std::string first_refused_clause(const ua::event_filter_result& r) {
  for (std::size_t i = 0; i < r.select_clause_results.size(); ++i)
    if (r.select_clause_results[i].is_bad()) return "select clause " + std::to_string(i) + ": " + r.select_clause_results[i].to_string();
  const auto& elements = r.where_clause_result.element_results;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].status_code.is_good()) continue;
    std::string s = "where element " + std::to_string(i) + ": " + elements[i].status_code.to_string();
    for (std::size_t j = 0; j < elements[i].operand_status_codes.size(); ++j)
      if (elements[i].operand_status_codes[j].is_bad()) {
        s += " (operand " + std::to_string(j) + ": " + elements[i].operand_status_codes[j].to_string() + ")";
        break;
      }
    return s;
  }
  return {};
}

}  // namespace uactor

namespace uactor::actors {

namespace {

// Sequence numbers run 1 .. 2^32-1 and wrap to 1 (Part 4 §7.26: 0 is never used).
constexpr std::uint32_t next_seq(std::uint32_t s) noexcept { return s == 0xFFFFFFFFu ? 1u : s + 1u; }

// How many numbers lie from `from` (included) up to `to` (excluded), along the wrap.
constexpr std::uint32_t seq_distance(std::uint32_t from, std::uint32_t to) noexcept {
  if (to >= from) return to - from;
  return (0xFFFFFFFFu - from + 1u) + (to - 1u);
}

// `to` lies ahead of `from` (or is it): less than half the number space away.
constexpr bool seq_ahead(std::uint32_t from, std::uint32_t to) noexcept { return seq_distance(from, to) < 0x80000000u; }

}  // namespace

subscription_engine::subscription_engine(subscription_engine_config config)
    : config_(config), limit_(std::max<std::size_t>(1, config.max_publish_requests)) {
  acks_.reserve(64);
  republish_.reserve(16);
}

subscription_engine::subscription* subscription_engine::find(std::uint32_t id) noexcept {
  for (auto& s : subs_)
    if (s.id == id) return &s;
  return nullptr;
}

bool subscription_engine::contains(std::uint32_t id) const noexcept {
  return std::any_of(subs_.begin(), subs_.end(), [id](const subscription& s) { return s.id == id; });
}

void subscription_engine::set_timing(subscription& s, double interval_ms, std::uint32_t keep_alive_count) {
  using namespace std::chrono;
  if (interval_ms <= 0) {
    s.silence_after = steady_clock::duration::zero();
    return;
  }
  const auto interval = duration<double, std::milli>(std::max(interval_ms, 0.0));
  const auto period = duration_cast<steady_clock::duration>(interval * std::max<std::uint32_t>(keep_alive_count, 1));
  s.silence_after = period + std::max<steady_clock::duration>(config_.silence_margin, period / 2);
}

void subscription_engine::add(std::uint32_t id, double revised_interval_ms, std::uint32_t revised_keep_alive_count,
                              subscription_handlers handlers, time_point now) {
  auto* s = find(id);
  if (!s) {
    subs_.emplace_back();
    s = &subs_.back();
    s->id = id;
  }
  s->handlers = std::move(handlers);
  s->last_heard = now;
  s->silent = false;
  s->next_sequence = 0;
  s->horizon = 0;
  s->held.clear();
  s->lost.clear();
  set_timing(*s, revised_interval_ms, revised_keep_alive_count);
}

void subscription_engine::revise(std::uint32_t id, double revised_interval_ms, std::uint32_t revised_keep_alive_count) {
  if (auto* s = find(id)) set_timing(*s, revised_interval_ms, revised_keep_alive_count);
}

void subscription_engine::remove(std::uint32_t id) {
  std::erase_if(subs_, [id](const subscription& s) { return s.id == id; });
  std::erase_if(republish_, [id](const missing& m) { return m.subscription_id == id; });
  std::erase_if(acks_, [id](const ua::subscription_acknowledgement& a) { return a.subscription_id == id; });
}

void subscription_engine::add_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle, item_handler handler) {
  if (auto* s = find(subscription_id)) s->items[client_handle] = item{0, std::move(handler), {}};
}

void subscription_engine::add_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle,
                                           event_item_handler handler) {
  if (auto* s = find(subscription_id)) s->items[client_handle] = item{0, {}, std::move(handler)};
}

void subscription_engine::bind_item(std::uint32_t subscription_id, std::uint32_t client_handle, std::uint32_t monitored_item_id) {
  if (auto* s = find(subscription_id))
    if (auto it = s->items.find(client_handle); it != s->items.end()) it->second.monitored_item_id = monitored_item_id;
}

void subscription_engine::remove_item_handler(std::uint32_t subscription_id, std::uint32_t client_handle) {
  if (auto* s = find(subscription_id)) s->items.erase(client_handle);
}

void subscription_engine::remove_item(std::uint32_t subscription_id, std::uint32_t monitored_item_id) {
  if (auto* s = find(subscription_id))
    std::erase_if(s->items, [monitored_item_id](const auto& kv) { return kv.second.monitored_item_id == monitored_item_id; });
}

std::size_t subscription_engine::publish_wanted() const noexcept {
  if (subs_.empty() || paused_) return 0;
  const std::size_t target = std::min(limit_, 2 * subs_.size());
  return target > outstanding_ ? target - outstanding_ : 0;
}

void subscription_engine::fill_publish(ua::publish_request& request) {
  // Part 4 §5.14.5: acknowledgements ride on the next Publish; assign keeps the capacity.
  request.subscription_acknowledgements.assign(acks_.begin(), acks_.end());
  acks_.clear();
  ++outstanding_;
}

std::chrono::milliseconds subscription_engine::publish_timeout(std::chrono::milliseconds floor) const noexcept {
  std::chrono::steady_clock::duration longest{};
  for (const auto& s : subs_) longest = std::max(longest, s.silence_after);
  return std::max(floor, std::chrono::duration_cast<std::chrono::milliseconds>(longest * 3));
}

void subscription_engine::queue_ack(std::uint32_t subscription_id, std::uint32_t seq) {
  if (!config_.acknowledge) return;
  if (acks_.size() >= config_.max_pending_acks) acks_.erase(acks_.begin());
  acks_.push_back({subscription_id, seq});
}

void subscription_engine::report(subscription& s, subscription_event what, ua::status_code status, std::uint32_t seq) {
  if (s.handlers.on_status) s.handlers.on_status(subscription_status{s.id, what, status, seq, 0});
}

void subscription_engine::gap(subscription& s, std::uint32_t from, std::uint32_t to) {
  // [from, to) was never received: Republish each, up to a bound; the rest is lost now.
  std::uint32_t n = 0;
  for (std::uint32_t q = from; q != to; q = next_seq(q), ++n) {
    if (n < config_.max_republish_per_gap) {
      republish_.push_back({s.id, q});
    } else {
      ++stats_.lost;
      report(s, subscription_event::data_lost, ua::status::bad_message_not_available, q);
      if (config_.in_order) mark_lost(s, q);
    }
  }
}

void subscription_engine::mark_lost(subscription& s, std::uint32_t seq) {
  if (s.next_sequence != 0 && seq_ahead(s.next_sequence, seq) &&
      std::find(s.lost.begin(), s.lost.end(), seq) == s.lost.end())
    s.lost.push_back(seq);
}

void subscription_engine::announce(subscription& s, std::uint32_t next) {
  if (s.next_sequence == 0) {
    s.next_sequence = s.horizon = next;
    return;
  }
  // Everything before `next` not yet received or asked for was missed: asked for now; the
  // sequence moves on as the answers (or their failures) come.
  if (s.horizon == 0 || !seq_ahead(s.next_sequence, s.horizon)) s.horizon = s.next_sequence;
  if (next != s.horizon && seq_ahead(s.horizon, next)) {
    gap(s, s.horizon, next);
    s.horizon = next;
  }
}

void subscription_engine::accept(std::uint32_t id, const ua::notification_message& m) {
  auto* s = find(id);
  if (!s) return;
  const std::uint32_t seq = m.sequence_number;
  if (s->next_sequence == 0) s->next_sequence = seq;  // the first one: the sequence starts here
  if (s->horizon == 0 || !seq_ahead(s->next_sequence, s->horizon)) s->horizon = s->next_sequence;
  if (seq == s->next_sequence) {
    s->next_sequence = next_seq(seq);
    if (seq_ahead(s->horizon, s->next_sequence)) s->horizon = s->next_sequence;
    dispatch(*s, m);
    return drain(id);
  }
  if (!seq_ahead(s->next_sequence, seq)) return;  // delivered or given up already: a repeat
  // Ahead of a gap: held until the gap is filled; what lies between is asked for once.
  if (seq_ahead(s->horizon, seq)) {
    if (seq != s->horizon) gap(*s, s->horizon, seq);
    s->horizon = next_seq(seq);
  }
  if (std::any_of(s->held.begin(), s->held.end(), [&](const ua::notification_message& h) { return h.sequence_number == seq; }))
    return;  // held already
  // Ascending by distance from next_sequence.
  const auto at = std::find_if(s->held.begin(), s->held.end(), [&](const ua::notification_message& h) {
    return seq_distance(s->next_sequence, h.sequence_number) > seq_distance(s->next_sequence, seq);
  });
  s->held.insert(at, m);
  if (s->held.size() > config_.max_held_messages) {
    // The gap is not coming back: give it up, deliver what is held.
    for (std::uint32_t q = s->next_sequence; q != s->held.front().sequence_number; q = next_seq(q)) {
      ++stats_.lost;
      report(*s, subscription_event::data_lost, ua::status::bad_message_not_available, q);
      mark_lost(*s, q);
    }
    drain(id);
  }
}

void subscription_engine::drain(std::uint32_t id) {
  for (;;) {
    auto* s = find(id);  // a dispatched message may close the subscription
    if (!s) return;
    if (!s->held.empty() && s->held.front().sequence_number == s->next_sequence) {
      auto m = std::move(s->held.front());
      s->held.erase(s->held.begin());
      s->next_sequence = next_seq(m.sequence_number);
      dispatch(*s, m);
      continue;
    }
    const auto l = std::find(s->lost.begin(), s->lost.end(), s->next_sequence);
    if (l == s->lost.end()) return;
    s->lost.erase(l);
    s->next_sequence = next_seq(s->next_sequence);
  }
}

void subscription_engine::dispatch(subscription& s, const ua::notification_message& message) {
  std::uint32_t closed_by = 0;
  ua::status_code close_status;
  for (const auto& data : message.notification_data) {
    if (const auto* dc = data.get_if<ua::data_change_notification>()) {
      const std::span<const ua::monitored_item_notification> changes(dc->monitored_items.data(), dc->monitored_items.size());
      stats_.data_changes += changes.size();
      if (s.handlers.on_data) {
        s.handlers.on_data(s.id, message.sequence_number, changes);
      } else {
        for (const auto& c : changes)
          if (auto it = s.items.find(c.client_handle); it != s.items.end() && it->second.handler) it->second.handler(c);
      }
    } else if (const auto* sc = data.get_if<ua::status_change_notification>()) {
      report(s, subscription_event::status_change, sc->status);
      // Part 4 §7.25.4: Bad_Timeout means the lifetime expired; Part 4 §5.14.7: Good_SubscriptionTransferred
      // that another session took it over. Either way it is gone from this session.
      if (sc->status == ua::status::bad_timeout || sc->status == ua::status::good_subscription_transferred) {
        closed_by = s.id;
        close_status = sc->status;
      }
    } else if (const auto* el = data.get_if<ua::event_notification_list>()) {
      // Part 4 §7.25.3: each EventFieldList is one event of the item its client_handle names.
      const std::span<const ua::event_field_list> events(el->events.data(), el->events.size());
      stats_.events += events.size();
      if (s.handlers.on_events) {
        s.handlers.on_events(s.id, message.sequence_number, events);
      } else {
        for (const auto& e : events)
          if (auto it = s.items.find(e.client_handle); it != s.items.end() && it->second.on_event) it->second.on_event(e);
      }
    }
  }
  if (closed_by) close(closed_by, close_status);
}

void subscription_engine::on_publish_response(const ua::publish_response& r, time_point now) {
  if (outstanding_) --outstanding_;
  auto* s = find(r.subscription_id);
  if (!s) {
    // Deleted here already, or never ours: nothing to deliver, nothing to acknowledge.
    ++stats_.unknown_subscription;
    return;
  }
  s->last_heard = now;
  if (s->silent) {
    s->silent = false;
    report(*s, subscription_event::recovered, ua::status::good);
  }
  const auto& m = r.notification_message;
  const std::uint32_t seq = m.sequence_number;
  if (m.notification_data.empty()) {
    // Part 4 §5.14.1.1: a keep-alive carries the number the next NotificationMessage will have;
    // anything between the last one seen and it was missed.
    ++stats_.keep_alives;
    if (seq == 0) return;
    if (config_.in_order) return announce(*s, seq);
    if (s->next_sequence != 0 && seq != s->next_sequence && seq_ahead(s->next_sequence, seq)) gap(*s, s->next_sequence, seq);
    if (s->next_sequence == 0 || seq_ahead(s->next_sequence, seq)) s->next_sequence = seq;
    return;
  }
  ++stats_.messages;
  queue_ack(s->id, seq);
  if (config_.in_order) return accept(s->id, m);
  if (s->next_sequence != 0 && seq != s->next_sequence && seq_ahead(s->next_sequence, seq)) gap(*s, s->next_sequence, seq);
  if (s->next_sequence == 0 || seq_ahead(s->next_sequence, seq)) s->next_sequence = next_seq(seq);
  dispatch(*s, m);
}

void subscription_engine::on_publish_failed(ua::status_code status, time_point) {
  if (outstanding_) --outstanding_;
  if (status == ua::status::bad_timeout || status == ua::status::bad_request_timeout) return;  // held too long: again
  if (status == ua::status::bad_too_many_publish_requests) {
    // Part 4 §5.14.5: the server keeps fewer: as many as it holds now (at least one). One that
    // refuses even a single request gets the next at the next check(), not in a loop.
    limit_ = std::max<std::size_t>(1, std::min(limit_ - 1, outstanding_));
    if (outstanding_ == 0) paused_ = true;
    return;
  }
  if (status == ua::status::bad_no_subscription) {
    // Part 4 §5.14.5: the session has no subscription at the server; ours are gone.
    if (!subs_.empty()) close_all(status);
    return;
  }
  close_all(status);
}

bool subscription_engine::next_republish(std::uint32_t& subscription_id, std::uint32_t& sequence_number) {
  if (republish_.empty()) return false;
  subscription_id = republish_.front().subscription_id;
  sequence_number = republish_.front().sequence_number;
  republish_.erase(republish_.begin());
  return true;
}

void subscription_engine::on_republished(std::uint32_t subscription_id, const ua::notification_message& message, time_point now) {
  auto* s = find(subscription_id);
  if (!s) return;
  s->last_heard = now;
  ++stats_.republished;
  ++stats_.messages;
  // Still in the server's retransmission queue: acknowledge it (Part 4 §5.14.6).
  queue_ack(subscription_id, message.sequence_number);
  if (config_.in_order) return accept(subscription_id, message);
  dispatch(*s, message);
}

void subscription_engine::on_republish_failed(std::uint32_t subscription_id, std::uint32_t sequence_number,
                                              ua::status_code status) {
  auto* s = find(subscription_id);
  if (!s) return;
  // in_order: delivered meanwhile (the recovery after a reconnect asked for it too): not lost.
  if (config_.in_order && s->next_sequence != 0 && !seq_ahead(s->next_sequence, sequence_number)) return;
  ++stats_.lost;
  report(*s, subscription_event::data_lost, status.is_bad() ? status : ua::status::bad_message_not_available,
         sequence_number);
  if (!config_.in_order) return;
  if (auto* again = find(subscription_id)) {
    mark_lost(*again, sequence_number);
    drain(subscription_id);
  }
}

void subscription_engine::check(time_point now) {
  paused_ = false;
  for (std::size_t i = 0; i < subs_.size(); ++i) {
    auto& s = subs_[i];
    if (s.silent || s.silence_after == std::chrono::steady_clock::duration::zero() || now - s.last_heard <= s.silence_after)
      continue;
    s.silent = true;
    report(s, subscription_event::silent, ua::status::bad_timeout);
  }
}

std::chrono::steady_clock::duration subscription_engine::shortest_silence() const noexcept {
  std::chrono::steady_clock::duration shortest{};
  for (const auto& s : subs_)
    if (s.silence_after.count() > 0 && (shortest.count() == 0 || s.silence_after < shortest)) shortest = s.silence_after;
  return shortest;
}

bool subscription_engine::any_silent() const noexcept {
  return std::any_of(subs_.begin(), subs_.end(), [](const subscription& s) { return s.silent; });
}

void subscription_engine::on_link_lost() noexcept {
  outstanding_ = 0;
  paused_ = false;
  // The recovery republishes from each next expected number (Part 4 §6.7); what was asked for on
  // the old link is asked for again when it turns out missing.
  republish_.clear();
  for (auto& s : subs_) s.horizon = s.next_sequence;
}

std::vector<std::uint32_t> subscription_engine::ids() const {
  std::vector<std::uint32_t> out;
  out.reserve(subs_.size());
  for (const auto& s : subs_) out.push_back(s.id);
  return out;
}

std::uint32_t subscription_engine::next_expected(std::uint32_t id) const noexcept {
  for (const auto& s : subs_)
    if (s.id == id) return s.next_sequence;
  return 0;
}

void subscription_engine::on_recovered(std::uint32_t id, const ua::notification_message& m, time_point now) {
  auto* s = find(id);
  if (!s) return;
  s->last_heard = now;
  ++stats_.republished;
  ++stats_.messages;
  queue_ack(id, m.sequence_number);
  if (config_.in_order) return accept(id, m);
  if (s->next_sequence == 0 || seq_ahead(s->next_sequence, m.sequence_number)) s->next_sequence = next_seq(m.sequence_number);
  dispatch(*s, m);
}

void subscription_engine::rekey(std::uint32_t old_id, std::uint32_t new_id, double interval_ms, std::uint32_t keep_alive_count,
                                time_point now) {
  auto* s = find(old_id);
  if (!s) return;
  std::erase_if(republish_, [old_id](const missing& m) { return m.subscription_id == old_id; });
  std::erase_if(acks_, [old_id](const ua::subscription_acknowledgement& a) { return a.subscription_id == old_id; });
  s->id = new_id;
  s->next_sequence = 0;
  s->horizon = 0;
  s->held.clear();
  s->lost.clear();
  s->last_heard = now;
  s->silent = false;
  for (auto& [handle, item] : s->items) item.monitored_item_id = 0;
  set_timing(*s, interval_ms, keep_alive_count);
}

void subscription_engine::heard_all(time_point now) {
  for (std::size_t i = 0; i < subs_.size(); ++i) {
    auto& s = subs_[i];
    s.last_heard = now;
    if (s.silent) {
      s.silent = false;
      report(s, subscription_event::recovered, ua::status::good);
    }
  }
}

void subscription_engine::notify(std::uint32_t id, subscription_event what, ua::status_code status, std::uint32_t seq,
                                 std::uint32_t previous_id) {
  auto* s = find(id);
  if (!s || !s->handlers.on_status) return;
  s->handlers.on_status(subscription_status{id, what, status, seq, previous_id});
}

void subscription_engine::close(std::uint32_t id, ua::status_code status) {
  auto* s = find(id);
  if (!s) return;
  auto handlers = std::move(s->handlers);
  remove(id);
  if (handlers.on_status) handlers.on_status(subscription_status{id, subscription_event::closed, status, 0, 0});
}

void subscription_engine::close_all(ua::status_code status) {
  auto subs = std::move(subs_);
  subs_.clear();
  republish_.clear();
  acks_.clear();
  for (auto& s : subs)
    if (s.handlers.on_status) s.handlers.on_status(subscription_status{s.id, subscription_event::closed, status, 0, 0});
}

}  // namespace uactor::actors
