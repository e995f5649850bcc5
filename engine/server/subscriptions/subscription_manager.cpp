// Part 4 §5.13 Subscription services, the server side: CreateSubscription, ModifySubscription,
// SetPublishingMode, DeleteSubscriptions, TransferSubscriptions, Republish; the manager's
// construction and lookups, and what the end of a session or a channel does to its subscriptions.
// The MonitoredItem services are in monitored_items.cpp (§5.12), Publish and the publishing clock in
// publishing.cpp. docs/decisions/0010.
#include "engine/server/subscriptions/subscription_manager.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "engine/server/subscriptions/subscription_manager_internal.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

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
                                               create_subscription_response& resp, const instant& now,
                                               const services::node_access& access) {
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
  s.access = access;
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

void subscription_manager::delete_subscription(subscription& s) {
  while (!s.items.empty()) delete_item(*s.items.back());
  if (session_state* ss = find_session(s.session)) std::erase(ss->subs, &s);
  subscriptions_.erase(s.id);  // frees `s`
}

// §5.13.7: the subscriptions move to the calling session when it acts for the same user; the
// session that had them gets a StatusChangeNotification Good_SubscriptionTransferred with its next
// Publish.
void subscription_manager::transfer_subscriptions(std::uint32_t session, const session_identity& identity,
                                                  const transfer_subscriptions_request& req,
                                                  transfer_subscriptions_response& resp, const instant& now,
                                                  const services::node_access& access) {
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
    // Checked first: another user learns nothing more about the subscription than that it exists.
    if (const auto sc = check_transfer(s.owner, identity, limits_.allow_unsecured_anonymous_transfer); sc.is_bad()) {
      r.status_code = sc;
      continue;
    }
    // 1.05 Part 4 §5.14.7.4 (Table 96): the session already owns it.
    if (s.session == session) {
      r.status_code = status::bad_nothing_to_do;
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
    s.access = access;
    target.subs.push_back(&s);
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

void subscription_manager::session_activated(std::uint32_t session, const session_identity& identity,
                                             const services::node_access& access) {
  session_state* ss = find_session(session);
  if (!ss) return;
  for (subscription* s : ss->subs) {
    if (!(s->owner == identity)) s->owner = identity;
    s->access = access;
  }
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
