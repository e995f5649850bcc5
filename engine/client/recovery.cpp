#include "engine/client/recovery.hpp"

#include <algorithm>
#include <cmath>

namespace uactor::actors {

std::chrono::milliseconds backoff_delay(const backoff_policy& p, std::uint32_t attempt, double random01) {
  const double base = static_cast<double>(std::max<std::int64_t>(0, p.initial.count()));
  const double cap = static_cast<double>(std::max<std::int64_t>(0, p.max.count()));
  const double grown = std::min(cap, base * std::pow(2.0, static_cast<double>(std::min<std::uint32_t>(attempt, 40))));
  const double jitter = std::clamp(p.jitter, 0.0, 1.0);
  const double moved = grown * (1.0 + (2.0 * std::clamp(random01, 0.0, 1.0) - 1.0) * jitter);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::max(0.0, std::round(moved))));
}

bool is_link_failure(ua::status_code s) noexcept {
  namespace st = ua::status;
  return s == st::bad_timeout || s == st::bad_connection_closed || s == st::bad_communication_error ||
         s == st::bad_secure_channel_closed || s == st::bad_secure_channel_id_invalid ||
         s == st::bad_request_interrupted || s == st::bad_server_not_connected ||
         s == st::bad_tcp_internal_error || s == st::bad_connection_rejected || s == st::bad_not_connected ||
         s == st::bad_request_timeout;
}

reactivate_outcome after_reactivate(ua::status_code s) noexcept {
  if (s.is_good()) return reactivate_outcome::resume;
  // Bad_SecurityChecksFailed is not a link failure: a server may say it of a session bound to the
  // old channel; a new session is the way out (a new link would hear the same).
  if (is_link_failure(s)) return reactivate_outcome::reconnect;
  return reactivate_outcome::new_session;  // Bad_SessionIdInvalid, Bad_SessionClosed, Bad_IdentityTokenRejected, ...
}

transfer_outcome after_transfer(ua::status_code service_result, ua::status_code item_result) noexcept {
  if (service_result.is_bad()) return is_link_failure(service_result) ? transfer_outcome::reconnect : transfer_outcome::recreate;
  return item_result.is_good() ? transfer_outcome::republish : transfer_outcome::recreate;
}

std::vector<std::uint32_t> to_republish(std::uint32_t next_expected, const ua::ua_array<std::uint32_t>& available) {
  // Distance along the wrap from next_expected; numbers "behind" it (more than half the space
  // ahead) were received already.
  auto distance = [next_expected](std::uint32_t s) { return s - next_expected; };
  std::vector<std::uint32_t> out;
  for (const auto s : available)
    if (s != 0 && (next_expected == 0 || distance(s) < 0x80000000u)) out.push_back(s);
  std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) { return distance(a) < distance(b); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ------------------------------------------------------------------------------------------------
// subscription_book

recorded_subscription* subscription_book::find_mut(std::uint32_t id) noexcept {
  for (auto& s : subs_)
    if (s.id == id) return &s;
  return nullptr;
}

const recorded_subscription* subscription_book::find(std::uint32_t id) const noexcept {
  for (const auto& s : subs_)
    if (s.id == id) return &s;
  return nullptr;
}

void subscription_book::forget(const ua::ua_array<std::uint32_t>& ids) {
  std::erase_if(subs_, [&](const recorded_subscription& s) { return std::find(ids.begin(), ids.end(), s.id) != ids.end(); });
}

void subscription_book::rekey(std::uint32_t old_id, std::uint32_t new_id) {
  if (auto* s = find_mut(old_id)) {
    s->id = new_id;
    for (auto& i : s->items) i.monitored_item_id = 0;  // bound again by the new CreateMonitoredItems
  }
}

void subscription_book::bind_item(std::uint32_t sub, std::uint32_t client_handle, std::uint32_t monitored_item_id) {
  auto* s = find_mut(sub);
  if (!s) return;
  for (auto& i : s->items)
    if (i.request.requested_parameters.client_handle == client_handle) i.monitored_item_id = monitored_item_id;
}

void subscription_book::drop_item(std::uint32_t sub, std::uint32_t client_handle) {
  if (auto* s = find_mut(sub))
    std::erase_if(s->items, [client_handle](const recorded_item& i) { return i.request.requested_parameters.client_handle == client_handle; });
}

void subscription_book::record(const ua::extension_object& request, const ua::extension_object& answer) {
  auto good = [](const ua::response_header& h) { return h.service_result.is_good(); };
  if (const auto* req = request.get_if<ua::create_subscription_request>()) {
    const auto* r = answer.get_if<ua::create_subscription_response>();
    if (!r || !good(r->response_header) || r->subscription_id == 0) return;
    recorded_subscription s;
    s.id = r->subscription_id;
    s.request = *req;
    s.request.request_header = {};
    subs_.push_back(std::move(s));
  } else if (const auto* req = request.get_if<ua::create_monitored_items_request>()) {
    const auto* r = answer.get_if<ua::create_monitored_items_response>();
    auto* s = find_mut(req->subscription_id);
    if (!r || !good(r->response_header) || !s) return;
    for (std::size_t i = 0; i < req->items_to_create.size() && i < r->results.size(); ++i) {
      if (r->results[i].status_code.is_bad()) continue;
      recorded_item item;
      item.request = req->items_to_create[i];
      // The server's revision is what it runs; asking for it again keeps the item as it was.
      item.request.requested_parameters.sampling_interval = r->results[i].revised_sampling_interval;
      item.request.requested_parameters.queue_size = r->results[i].revised_queue_size;
      item.monitored_item_id = r->results[i].monitored_item_id;
      s->items.push_back(std::move(item));
    }
  } else if (const auto* req = request.get_if<ua::modify_monitored_items_request>()) {
    const auto* r = answer.get_if<ua::modify_monitored_items_response>();
    auto* s = find_mut(req->subscription_id);
    if (!r || !good(r->response_header) || !s) return;
    for (std::size_t i = 0; i < req->items_to_modify.size() && i < r->results.size(); ++i) {
      if (r->results[i].status_code.is_bad()) continue;
      for (auto& item : s->items) {
        if (item.monitored_item_id != req->items_to_modify[i].monitored_item_id) continue;
        item.request.requested_parameters = req->items_to_modify[i].requested_parameters;
        item.request.requested_parameters.sampling_interval = r->results[i].revised_sampling_interval;
        item.request.requested_parameters.queue_size = r->results[i].revised_queue_size;
      }
    }
  } else if (const auto* req = request.get_if<ua::delete_monitored_items_request>()) {
    const auto* r = answer.get_if<ua::delete_monitored_items_response>();
    auto* s = find_mut(req->subscription_id);
    if (!r || !good(r->response_header) || !s) return;
    for (std::size_t i = 0; i < req->monitored_item_ids.size() && i < r->results.size(); ++i)
      if (r->results[i].is_good())
        std::erase_if(s->items, [id = req->monitored_item_ids[i]](const recorded_item& it) { return it.monitored_item_id == id; });
  } else if (const auto* req = request.get_if<ua::set_monitoring_mode_request>()) {
    const auto* r = answer.get_if<ua::set_monitoring_mode_response>();
    auto* s = find_mut(req->subscription_id);
    if (!r || !good(r->response_header) || !s) return;
    for (std::size_t i = 0; i < req->monitored_item_ids.size() && i < r->results.size(); ++i) {
      if (r->results[i].is_bad()) continue;
      for (auto& item : s->items)
        if (item.monitored_item_id == req->monitored_item_ids[i]) item.request.monitoring_mode = req->monitoring_mode;
    }
  } else if (const auto* req = request.get_if<ua::modify_subscription_request>()) {
    const auto* r = answer.get_if<ua::modify_subscription_response>();
    auto* s = find_mut(req->subscription_id);
    if (!r || !good(r->response_header) || !s) return;
    s->request.requested_publishing_interval = r->revised_publishing_interval;
    s->request.requested_lifetime_count = r->revised_lifetime_count;
    s->request.requested_max_keep_alive_count = r->revised_max_keep_alive_count;
    s->request.max_notifications_per_publish = req->max_notifications_per_publish;
    s->request.priority = req->priority;
  } else if (const auto* req = request.get_if<ua::set_publishing_mode_request>()) {
    const auto* r = answer.get_if<ua::set_publishing_mode_response>();
    if (!r || !good(r->response_header)) return;
    for (std::size_t i = 0; i < req->subscription_ids.size() && i < r->results.size(); ++i)
      if (r->results[i].is_good())
        if (auto* s = find_mut(req->subscription_ids[i])) s->request.publishing_enabled = req->publishing_enabled;
  }
}

}  // namespace uactor::actors
