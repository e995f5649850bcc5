// Supervision (docs/decisions/0017): a loss detected (keep-alive, publish silence, an unanswered
// renewal), reconnect with backoff, and the session recovered on the new channel (Part 4 §6.7):
// reactivated, or a new one with the subscriptions transferred or created again.

#include <spdlog/spdlog.h>

#include "actors/client/client_session.hpp"
#include "actors/common/self_send.hpp"
#include "engine/client/session_security.hpp"

namespace uactor::actors {

void client_session::emit(connection_event_kind what, ua::status_code status) {
  auto& s = st();
  if (!s.config.reconnect.on_event) return;
  connection_event ev;
  ev.what = what;
  ev.status = status;
  ev.how = s.recovery.how();
  ev.attempt = s.attempt;
  s.config.reconnect.on_event(ev);
}

// Not connecting, not closing: a failure of the connection or the session. Supervised (and the
// session worked once), the link is given up and another one is tried; otherwise the end.
void client_session::lose(ua::status_code why, std::string_view what) {
  auto& s = st();
  if (s.finished) return;
  if (!s.supervised || !s.ever_ready || !s.closers.empty()) return shutdown(why, what);
  const bool first = !s.recovering;
  const auto status = why.is_bad() ? why : ua::status::bad_connection_closed;
  spdlog::info("uactor client: {}: {} ({}); reconnecting", s.config.endpoint_url, what, status.to_string());
  ++s.generation;  // every answer of the old link is ignored from now on
  s.link.close();
  s.ready = false;
  s.recovering = true;
  s.keep_alive.done();
  s.renewal.done();
  s.recovery.clear();
  s.publishing.clear();
  s.subscriptions.on_link_lost();
  // Requests in flight went with the link: each is answered now (the server may or may not
  // have carried it out). Internal ones see the new generation and stand down.
  s.calls.fail_in_flight(ua::status::bad_connection_closed);
  if (s.finished) return;
  if (first) {
    s.attempt = 0;
    s.lost_status = status;
    emit(connection_event_kind::lost, status);
  }
  schedule_attempt(status);
}

// A failure while connecting or recovering: another attempt when supervised, else the end.
void client_session::fail(ua::status_code why, std::string_view what) {
  if (st().recovering) return lose(why, what);
  shutdown(why, what);
}

void client_session::schedule_attempt(ua::status_code last) {
  auto& s = st();
  const auto& o = s.config.reconnect;
  if (o.max_attempts != 0 && s.attempt >= o.max_attempts) {
    emit(connection_event_kind::gave_up, last);
    return shutdown(last, "reconnect attempts exhausted");
  }
  const backoff_policy policy{o.initial_delay, o.max_delay, o.jitter};
  const double r = std::uniform_real_distribution<double>(0.0, 1.0)(s.rng);
  const auto delay = backoff_delay(policy, s.attempt, r);
  delayed_send_to_self(self_, delay, client_reconnect_atom::value, s.generation);
}

// Connects off the multiplexer thread (a TCP connect may take long to fail): a short-lived
// detached actor hands the socket back, tagged with the generation it was made for.
void client_session::on_reconnect_timer(std::uint32_t gen) {
  auto& s = st();
  if (s.finished || gen != s.generation || !s.recovering) return;
  ++s.attempt;
  emit(connection_event_kind::reconnecting, s.lost_status);
  // Reverse connect: the server dials again (Part 6 §7.1.3); wait for its next socket as long
  // as a connect may take, then count the attempt as failed like a refused connect.
  if (s.config.reverse)
    return s.config.reverse->take_for(caf::actor_cast<caf::actor>(self_), gen, s.config.connect_timeout);
  if (s.config.wss)
    return connect_wss_off_thread(self_->system(), caf::actor_cast<caf::actor>(self_), s.config.wss, s.config.host,
                                  s.config.port, s.config.wss_path, gen);
  connect_off_thread(self_->system(), caf::actor_cast<caf::actor>(self_), s.config.host, s.config.port, gen);
}

void client_session::on_socket(std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
  auto& s = st();
  if (s.finished || gen != s.generation || !s.recovering) return;  // the handoff closes the socket
  if (h->fd == caf::io::network::invalid_native_socket) return schedule_attempt(ua::status::bad_connection_rejected);
  open_link(self_->add_scribe(h->release()));
}

// Part 4 §5.6.3: the old session on the new channel, with the same identity.
void client_session::reactivate(const instant& now) {
  auto& s = st();
  ua::activate_session_request req;
  if (const auto sc = prepare_activate_session(s.config.security, *s.session, req); sc.is_bad())
    return lose(sc, "ActivateSession: no identity token");
  send_internal(std::move(req), &client_session::on_reactivated, now);
}

void client_session::on_reactivated(ua::expected<ua::extension_object> answer) {
  auto& s = st();
  auto sc = result_of(answer);
  const ua::activate_session_response* resp = nullptr;
  if (sc.is_good()) {
    resp = answer->get_if<ua::activate_session_response>();
    sc = !resp ? ua::status::bad_unknown_response : resp->response_header.service_result;
  }
  switch (after_reactivate(sc)) {
    case reactivate_outcome::resume: {
      remember_activation(*s.session, *resp);
      s.recovery.set_how(recovery_kind::reactivated);
      // Part 4 §6.7: Republish from the next expected number until Bad_MessageNotAvailable.
      for (const auto id : s.subscriptions.ids()) s.recovery.republish_from(id, s.subscriptions.next_expected(id));
      return next_recovery_step();
    }
    case reactivate_outcome::new_session:
      spdlog::info("uactor client: {}: the session is gone ({}); a new one", s.config.endpoint_url, sc.to_string());
      s.session.reset();
      s.headers.set_session_token(ua::node_id());
      return create_session(now_instant());
    case reactivate_outcome::reconnect:
      return lose(sc, "ActivateSession");
  }
}

// A new session works (during a recovery): move the subscriptions into it, or create them again.
void client_session::recover_subscriptions() {
  auto& s = st();
  const auto ids = s.subscriptions.ids();
  s.recovery.set_how(recovery_kind::transferred);
  if (ids.empty()) {
    s.recovery.set_how(recovery_kind::recreated);
    return next_recovery_step();
  }
  ua::transfer_subscriptions_request req;
  req.subscription_ids = ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>(ids.begin(), ids.end()));
  req.send_initial_values = s.config.reconnect.transfer_initial_values;
  send_internal(std::move(req), &client_session::on_transferred, now_instant());
}

void client_session::on_transferred(ua::expected<ua::extension_object> answer) {
  auto& s = st();
  auto sc = result_of(answer);
  const ua::transfer_subscriptions_response* resp = nullptr;
  if (sc.is_good()) {
    resp = answer->get_if<ua::transfer_subscriptions_response>();
    sc = !resp ? ua::status::bad_unknown_response : resp->response_header.service_result;
  }
  const auto ids = s.subscriptions.ids();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto item = resp && i < resp->results.size() ? resp->results[i].status_code : ua::status::bad_unknown_response;
    switch (after_transfer(sc, item)) {
      case transfer_outcome::reconnect:
        return lose(sc, "TransferSubscriptions");
      case transfer_outcome::republish: {
        s.subscriptions.notify(ids[i], subscription_event::transferred, ua::status::good);
        s.recovery.republish_list(
            ids[i], to_republish(s.subscriptions.next_expected(ids[i]), resp->results[i].available_sequence_numbers));
        break;
      }
      case transfer_outcome::recreate:
        s.recovery.recreate(ids[i]);
        break;
    }
  }
  next_recovery_step();
}

// Republish jobs first (in order, one request at a time), then the subscriptions to create
// again, then the session is ready.
void client_session::next_recovery_step() {
  const auto step = st().recovery.next();
  switch (step.what) {
    case recovery_plan::step::kind::republish:
      return send_recovery_republish(step.subscription_id, step.sequence_number);
    case recovery_plan::step::kind::recreate:
      return recreate(step.subscription_id);
    case recovery_plan::step::kind::done:
      return finish_recovery();
  }
}

void client_session::send_recovery_republish(std::uint32_t sub, std::uint32_t seq) {
  ua::republish_request req;
  req.subscription_id = sub;
  req.retransmit_sequence_number = seq;
  auto self = self_;
  const auto gen = st().generation;
  auto call = client_call::make(
      std::move(req),
      [self, gen, sub, seq](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        auto& s = cs.st();
        if (s.finished || gen != s.generation || !s.recovery.republishing()) return;
        auto sc = result_of(answer);
        const ua::republish_response* r = nullptr;
        if (sc.is_good()) {
          r = answer->get_if<ua::republish_response>();
          sc = !r ? ua::status::bad_unknown_response : r->response_header.service_result;
        }
        if (sc.is_good()) {
          s.subscriptions.on_recovered(sub, r->notification_message, std::chrono::steady_clock::now());
          // Delivered, with what was held behind it: on from the next number still expected.
          s.recovery.republished(s.subscriptions.next_expected(sub));
        } else if (is_link_failure(sc)) {
          return cs.lose(sc, "Republish");
        } else if (s.recovery.republish_refused(sc) == recovery_plan::refusal::lost) {
          s.subscriptions.on_republish_failed(sub, seq, sc);  // announced as available, gone now
        }
        cs.next_recovery_step();
        cs.flush();
      },
      st().config.request_timeout);
  send(call, now_instant());
  flush();
}

// The server lost the subscription: create it again as the application made it (the book),
// with its items under the same client handles, so that the handlers keep working.
void client_session::recreate(std::uint32_t old_id) {
  auto& s = st();
  const auto* rec = s.book.find(old_id);
  if (!rec) {
    // Not ours to recreate (taken over with transfer_subscriptions): it ends here.
    s.recovery.recreated();
    s.subscriptions.notify(old_id, subscription_event::data_lost, ua::status::bad_subscription_id_invalid,
                           s.subscriptions.next_expected(old_id));
    close_subscription(old_id, ua::status::bad_subscription_id_invalid);
    return next_recovery_step();
  }
  auto req = rec->request;
  auto self = self_;
  const auto gen = s.generation;
  auto call = client_call::make(
      std::move(req),
      [self, gen, old_id](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        if (cs.st().finished || gen != cs.st().generation) return;
        cs.on_recreated(old_id, std::move(answer));
      },
      s.config.request_timeout);
  send(call, now_instant());
  flush();
}

void client_session::close_subscription(std::uint32_t id, ua::status_code why) {
  auto& s = st();
  s.subscriptions.notify(id, subscription_event::closed, why);
  s.subscriptions.remove(id);
  s.book.forget(ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{id}));
}

void client_session::on_recreated(std::uint32_t old_id, ua::expected<ua::extension_object> answer) {
  auto& s = st();
  auto sc = result_of(answer);
  const ua::create_subscription_response* r = nullptr;
  if (sc.is_good()) {
    r = answer->get_if<ua::create_subscription_response>();
    sc = !r ? ua::status::bad_unknown_response : r->response_header.service_result;
  }
  if (is_link_failure(sc)) return lose(sc, "CreateSubscription (recreate)");
  s.recovery.recreated();
  // What the server had queued for it is gone with it: the only loss a recovery reports.
  s.subscriptions.notify(old_id, subscription_event::data_lost, ua::status::bad_subscription_id_invalid,
                         s.subscriptions.next_expected(old_id));
  if (sc.is_bad()) {
    close_subscription(old_id, sc);
    return next_recovery_step();
  }
  const auto new_id = r->subscription_id;
  s.subscriptions.rekey(old_id, new_id, r->revised_publishing_interval, r->revised_max_keep_alive_count,
                        std::chrono::steady_clock::now());
  s.book.rekey(old_id, new_id);
  const auto* rec = s.book.find(new_id);
  if (!rec || rec->items.empty()) {
    s.subscriptions.notify(new_id, subscription_event::recreated, ua::status::good, 0, old_id);
    return next_recovery_step();
  }
  ua::create_monitored_items_request items;
  items.subscription_id = new_id;
  items.timestamps_to_return = ua::timestamps_to_return::both;
  for (const auto& i : rec->items) items.items_to_create.push_back(i.request);
  auto self = self_;
  const auto gen = s.generation;
  auto call = client_call::make(
      std::move(items),
      [self, gen, old_id, new_id](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        auto& s = cs.st();
        if (s.finished || gen != s.generation) return;
        auto sc = result_of(answer);
        const ua::create_monitored_items_response* r = nullptr;
        if (sc.is_good()) {
          r = answer->get_if<ua::create_monitored_items_response>();
          sc = !r ? ua::status::bad_unknown_response : r->response_header.service_result;
        }
        if (is_link_failure(sc)) return cs.lose(sc, "CreateMonitoredItems (recreate)");
        // An item the server refuses now (its node gone, ...) is dropped, as at creation; the
        // event carries the first refusal.
        const auto* rec = s.book.find(new_id);
        std::vector<std::uint32_t> refused;
        if (rec) {
          for (std::size_t i = 0; i < rec->items.size(); ++i) {
            const auto handle = rec->items[i].request.requested_parameters.client_handle;
            const auto item = sc.is_bad() ? sc : i < r->results.size() ? r->results[i].status_code : ua::status::bad_unknown_response;
            if (item.is_bad()) {
              if (sc.is_good()) sc = item;
              refused.push_back(handle);
              continue;
            }
            s.subscriptions.bind_item(new_id, handle, r->results[i].monitored_item_id);
            s.book.bind_item(new_id, handle, r->results[i].monitored_item_id);
          }
        }
        for (const auto h : refused) {
          s.subscriptions.remove_item_handler(new_id, h);
          s.book.drop_item(new_id, h);
        }
        s.subscriptions.notify(new_id, subscription_event::recreated, sc, 0, old_id);
        cs.next_recovery_step();
        cs.flush();
      },
      s.config.request_timeout);
  send(call, now_instant());
  flush();
}

void client_session::finish_recovery() {
  auto& s = st();
  const auto now = now_instant();
  s.recovering = false;
  s.ready = true;
  s.subscriptions.heard_all(now.steady);
  spdlog::info("uactor client: {}: reconnected ({}) after {} attempt(s)", s.config.endpoint_url,
               s.recovery.how() == recovery_kind::reactivated ? "reactivated"
               : s.recovery.how() == recovery_kind::transferred ? "transferred"
                                                      : "recreated",
               s.attempt);
  emit(connection_event_kind::reconnected, ua::status::good);
  if (s.finished) return;
  for (auto& h : s.calls.release_held()) send_application_call(h.call, now);
  pump_publish(now);
  flush();
  schedule_sweep();
}

// Loss detection beyond socket errors (Part 4 §6.7): publish silence, an unanswered renewal, and
// a keep-alive Read when nothing came for a while. False when the link was given up.
bool client_session::watch(std::chrono::steady_clock::time_point now) {
  auto& s = st();
  if (s.subscriptions.any_silent()) {
    lose(ua::status::bad_timeout, "publish silence");
    return false;
  }
  if (s.renewal.overdue(now, s.config.request_timeout)) {
    lose(ua::status::bad_timeout, "token renewal unanswered");
    return false;
  }
  if (s.keep_alive.due(now, s.config.reconnect.keep_alive_interval)) send_keep_alive();
  return true;
}

void client_session::send_keep_alive() {
  auto& s = st();
  auto req = keep_alive_check::request();
  s.keep_alive.sent();
  auto self = self_;
  const auto gen = s.generation;
  auto call = client_call::make(
      std::move(req),
      [self, gen](ua::expected<ua::extension_object> answer) {
        client_session cs(self);
        auto& s = cs.st();
        if (s.finished || gen != s.generation) return;
        s.keep_alive.done();
        if (const auto sc = result_of(answer); is_link_failure(sc) || session_gone(sc)) cs.lose(sc, "keep-alive Read");
      },
      s.config.reconnect.keep_alive_timeout);
  send(call, now_instant());
  flush();
}

}  // namespace uactor::actors
