// Part 4 §5.13.5 Publish and the publishing clock, the server side: queued Publish requests, the
// NotificationMessages and keep-alives they carry, the retransmission queue, the publishing cycle
// of each subscription (§5.13.1.1) and its lifetime. docs/decisions/0010.
#include "engine/server/subscriptions/subscription_manager.hpp"

#include <algorithm>
#include <utility>

#include "engine/server/subscriptions/subscription_manager_internal.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/status_codes.hpp"
#include "protocol/message.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

template <class Response>
void encode_to(const Response& r, byte_buffer& out) {
  encoder e(out);
  encode_message(e, r);
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

// A NotificationMessage (§7.25) of data changes and events, at most max_notifications of them;
// the rest stay queued (moreNotifications). It goes into the retransmission queue until acknowledged.
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
  std::size_t data_total = 0, event_total = 0;
  std::size_t budget = s.max_notifications;
  for (const item* it : s.ready) {
    const std::size_t n = std::min(it->waiting(), budget);
    budget -= n;
    (it->events ? event_total : data_total) += n;
  }
  // One NotificationData per kind; a slot keeps its body (and its storage) when the kind stays.
  m.message.notification_data.resize((data_total > 0 ? 1 : 0) + (event_total > 0 ? 1 : 0));
  std::size_t slot = 0;
  data_change_notification* dcn = nullptr;
  event_notification_list* enl = nullptr;
  if (data_total > 0) {
    dcn = &m.message.notification_data[slot++].emplace<data_change_notification>();
    dcn->diagnostic_infos.clear();
    dcn->monitored_items.resize(data_total);
  }
  if (event_total > 0) {
    enl = &m.message.notification_data[slot++].emplace<event_notification_list>();
    resize_events(enl->events, event_total);
  }
  std::size_t n = 0;   // data changes written
  std::size_t ne = 0;  // events written
  std::size_t kept = 0;  // items still with notifications after this message
  for (item* it : s.ready) {
    if (it->events) {
      while (it->waiting() > 0 && ne < event_total) take_event(*it, enl->events[ne++]);
    } else {
      while (it->count > 0 && n < data_total) {
        auto& note = dcn->monitored_items[n++];
        note.client_handle = it->client_handle;
        std::swap(note.value, it->queue[it->head]);  // the queue slot is overwritten when reused
        apply_timestamps(note.value, it->timestamps);
        it->head = (it->head + 1) % it->queue_size;
        --it->count;
      }
    }
    if (it->waiting() == 0) {
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

}  // namespace uactor::actors
