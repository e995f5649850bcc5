// The session's life: the connection opened, CreateSession and ActivateSession (Part 4 §5.6), the
// deadlines, CloseSession (§5.7.4) and the end.

#include <spdlog/spdlog.h>

#include "actors/client/client_session.hpp"
#include "actors/common/self_send.hpp"
#include "engine/client/session_security.hpp"

namespace uactor::actors {

client_broker_state::~client_broker_state() {
  finished = true;
  if (inbox) inbox->close(end_status);
  link.set_response_storage(nullptr);
  calls.drop_all();
  auto c = std::move(closers);
  c.clear();
  auto o = std::move(openers);
  o.clear();
  subscriptions.close_all(end_status);
  if (connected) {
    auto f = std::move(connected);
    connected = nullptr;
    f(ua::status::bad_connection_closed);
  }
}

void client_session::start(caf::io::connection_handle hdl) {
  auto& s = st();
  s.link.attach(self_);
  s.supervised = s.config.reconnect.enabled && s.config.create_session;
  if (s.supervised) s.rng.seed(std::random_device{}());
  s.subscriptions = subscription_engine(s.config.subscriptions);
  s.publishing.reserve(s.config.subscriptions.max_publish_requests + 1);
  if (const int wake_socket = s.inbox->take_actor_socket(); wake_socket >= 0) {
    s.wake_hdl = self_->add_scribe(wake_socket);
    self_->configure_read(s.wake_hdl, caf::io::receive_policy::at_most(64));
  } else {
    s.inbox->set_actor(caf::actor_cast<caf::actor>(self_));
  }
  open_link(hdl);
}

// A new connection (the first, or one after a loss): Hello, with the connect deadline running.
void client_session::open_link(caf::io::connection_handle hdl) {
  auto& s = st();
  client_channel_config cc;
  cc.endpoint_url = s.config.endpoint_url;
  cc.limits = s.config.limits;
  cc.requested_lifetime = s.config.token_lifetime;
  cc.security = s.config.security.channel;
  s.link.open(hdl, std::move(cc), &s,
              s.config.wss_native ? std::make_unique<wss_client_transport>(s.config.wss_native) : nullptr);
  s.keep_alive.heard(std::chrono::steady_clock::now());
  s.link.channel().write_hello();
  flush();
  delayed_send_to_self(self_, s.config.connect_timeout, client_deadline_atom::value, s.generation);
}

void client_session::create_session(const instant& now) {
  auto& s = st();
  ua::create_session_request req;
  prepare_create_session(s.config.security, req);
  s.client_nonce = req.client_nonce;
  req.client_description.product_uri = ua::ua_string("urn:uactor");
  req.client_description.application_name.text = ua::ua_string(s.config.session_name);
  req.client_description.application_type = ua::application_type::client;
  req.endpoint_url = ua::ua_string(s.config.endpoint_url);
  req.session_name = ua::ua_string(s.config.session_name);
  req.requested_session_timeout = static_cast<double>(s.config.session_timeout.count());
  req.max_response_message_size = 0;
  send_internal(std::move(req), &client_session::on_session_created, now);
}

void client_session::on_session_created(ua::expected<ua::extension_object> answer) {
  auto& s = st();
  if (const auto sc = result_of(answer); sc.is_bad()) return fail(sc, "CreateSession");
  const auto* resp = answer->get_if<ua::create_session_response>();
  if (!resp) return fail(ua::status::bad_unknown_response, "CreateSession answered with another response");
  if (resp->response_header.service_result.is_bad()) return fail(resp->response_header.service_result, "CreateSession");
  s.headers.set_session_token(resp->authentication_token);
  if (const auto sc = check_create_session(s.config.security, s.client_nonce, *resp); sc.is_bad())
    return fail(sc, "CreateSession: the server's certificate or signature");
  ua::activate_session_request req;
  if (const auto sc = prepare_activate_session(s.config.security, *resp, req); sc.is_bad())
    return fail(sc, "ActivateSession: no identity token the endpoint accepts");
  if (s.supervised) s.session = *resp;
  send_internal(std::move(req), &client_session::on_session_activated, now_instant());
  flush();
}

void client_session::on_session_activated(ua::expected<ua::extension_object> answer) {
  auto& s = st();
  if (const auto sc = result_of(answer); sc.is_bad()) return fail(sc, "ActivateSession");
  const auto* resp = answer->get_if<ua::activate_session_response>();
  if (!resp) return fail(ua::status::bad_unknown_response, "ActivateSession answered with another response");
  if (resp->response_header.service_result.is_bad()) return fail(resp->response_header.service_result, "ActivateSession");
  if (s.session) remember_activation(*s.session, *resp);
  if (s.recovering) return recover_subscriptions();
  became_ready();
}

void client_session::became_ready() {
  auto& s = st();
  s.ready = true;
  s.ever_ready = true;
  if (s.connected) {
    auto c = std::move(s.connected);
    s.connected = nullptr;
    c(ua::status::good);
  }
  schedule_sweep();
}

void client_session::on_deadline(std::uint32_t gen) {
  auto& s = st();
  if (s.finished || gen != s.generation) return;
  if (s.recovering) return lose(ua::status::bad_timeout, "reconnect timeout");
  if (!s.ready) shutdown(ua::status::bad_timeout, "connect timeout");
}

void client_session::on_close(const std::shared_ptr<client_close>& closer) {
  auto& s = st();
  take_inbox();  // the calls made before close() go out before CloseSession
  if (s.finished) {
    closer->finish(s.end_status);
    self_->quit();
    return;
  }
  s.closers.push_back(closer);
  if (s.closers.size() > 1) return;  // a close is under way already
  if (s.ready && s.config.create_session) {
    // Part 4 §5.7.4: CloseSession first (each session of this channel), so the server frees
    // them at once; the channel closes once every one is answered.
    auto more = std::move(s.more_sessions);
    s.more_sessions.clear();
    s.closes_left = more.size() + 1;
    const auto now = now_instant();
    for (auto& token : more) send_close_session(std::move(token), now);
    send_close_session(nullptr, now);
    flush();
    return;
  }
  shutdown(ua::status::good, "closed");  // also while reconnecting: nothing to close at a server
}

void client_session::send_close_session(std::shared_ptr<const ua::node_id> token, const instant& now) {
  ua::close_session_request req;
  req.delete_subscriptions = true;
  auto self = self_;
  auto call = client_call::make(
      std::move(req),
      [self](ua::expected<ua::extension_object>) {
        client_session cs(self);
        auto& st = cs.st();
        if (st.finished) return;
        if (st.closes_left > 0) --st.closes_left;
        if (st.closes_left == 0) cs.shutdown(ua::status::good, "closed");
      },
      st().config.connect_timeout);
  call->session_token = std::move(token);
  send(call, now);
}

// Ends everything: CloseSecureChannel when the channel is still open and we end it, every
// outstanding request answered (Bad_ConnectionClosed, or the status that ended the channel),
// the connection closed, the actor gone.
void client_session::shutdown(ua::status_code why, std::string_view what) {
  auto& s = st();
  if (s.finished) return;
  const auto now = now_instant();
  if (s.link.up() && s.link.has_channel() && s.link.channel().is_open()) {
    s.link.channel().write_close(now);  // Part 6 §7.1.4
    flush();
  }
  s.finished = true;
  const auto failure = why.is_bad() ? why : ua::status::bad_connection_closed;
  s.end_status = failure;
  if (why.is_bad()) spdlog::debug("uactor client: {}: {}", what, why.to_string());
  s.calls.fail_all(failure);
  s.publishing.clear();
  s.subscriptions.close_all(why);  // Good: the application closed the client
  if (s.connected) {
    auto c = std::move(s.connected);
    s.connected = nullptr;
    c(why.is_bad() ? why : ua::status::bad_connection_closed);
  }
  auto openers = std::move(s.openers);
  s.openers.clear();
  for (auto& o : openers) o->finish(failure);
  auto closers = std::move(s.closers);
  s.closers.clear();
  for (auto& c : closers) c->finish(why);
  s.link.close();
  // A connection lost under a working client leaves the actor alive, answering every later
  // call with end_status, until the client closes it: a message to a gone actor would sit
  // unanswered. A failed connect or a close ends it now.
  if (!s.ever_ready || !closers.empty()) self_->quit();
}

}  // namespace uactor::actors
