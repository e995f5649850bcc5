#include "actors/client/connection_actor.hpp"

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include <spdlog/spdlog.h>

#include "actors/client/call_table.hpp"
#include "actors/client/client_link.hpp"
#include "actors/client/tcp_connector.hpp"
#include "engine/client/channel_state.hpp"
#include "engine/client/keep_alive.hpp"
#include "engine/client/publish_pump.hpp"
#include "engine/client/recovery.hpp"
#include "engine/client/recovery_plan.hpp"
#include "engine/client/request_headers.hpp"
#include "engine/client/request_sweep.hpp"
#include "engine/client/token_renewal.hpp"
#include "engine/common/clock.hpp"
#include "actors/common/self_send.hpp"
#include "protocol/chunk_reader.hpp"

namespace uactor::actors {

// ---------------------------------------------------------------------------------------
// the broker

namespace {

using client_timeout_atom = caf::atom_constant<caf::atom("uatimeout")>;
using client_renew_atom = caf::atom_constant<caf::atom("uarenew")>;
using client_deadline_atom = caf::atom_constant<caf::atom("uadeadline")>;
using client_reconnect_atom = caf::atom_constant<caf::atom("uarecon")>;

struct client_broker_state : response_storage {
  client_actor_config config;
  client_link link;  // the current connection and its channel: a new one after each reconnect
  // The requests waiting for their responses, and those held while recovering. One sweep timer
  // for all of them (not a timer message per request: that was an allocation and a mailbox message
  // per request, and ~timeout's worth of timer entries alive at any time under load), armed for the
  // earliest deadline it knows of, or every watch_interval() while subscriptions or supervision
  // want watching (docs/decisions/0023: a periodic timer was 3 allocations every 50 ms).
  call_table calls;
  request_sweep sweep;
  // The application's calls (docs/decisions/0023): the inbox, its wake-up socket, a batch buffer.
  std::shared_ptr<client_inbox> inbox;
  caf::io::connection_handle wake_hdl;
  std::vector<client_call_ptr> batch;

  // response_storage: the answer of a pending call decodes into the call's own storage.
  ua::extension_object* storage_for(std::uint32_t request_id) noexcept override {
    return calls.storage_for(request_id);
  }
  // Subscriptions (docs/decisions/0011): plain state of this actor, not an actor each. Publish
  // requests stay out of `calls` (publish_pump).
  subscription_engine subscriptions;
  publish_pump publishing{sweep_interval};
  request_headers headers;  // the session's AuthenticationToken and the RequestHandles
  ua::byte_string client_nonce;  // of CreateSession: the ServerSignature covers it
  // The sessions opened after the first over this channel (client::open_session), closed with it.
  std::vector<std::shared_ptr<const ua::node_id>> more_sessions;
  std::size_t closes_left = 0;  // CloseSession answers still awaited while closing
  bool ready = false;     // the application's requests may go out
  bool finished = false;  // shut down: nothing goes out any more
  ua::status_code end_status = ua::status::bad_connection_closed;  // what calls get once finished
  connected_handler connected;
  std::vector<std::shared_ptr<client_close>> closers;
  std::vector<std::shared_ptr<client_open_session>> openers;  // CreateSession/ActivateSession under way

  // ---- supervision (docs/decisions/0017): idle unless config.reconnect.enabled
  bool supervised = false;
  bool ever_ready = false;
  bool recovering = false;      // the link is down, or the session is being recovered on a new one
  std::uint32_t generation = 0;  // bumped at each loss: answers that belong to an older link are ignored
  std::uint32_t attempt = 0;     // connection attempts in this outage
  ua::status_code lost_status;
  keep_alive_check keep_alive;
  token_renewal renewal;
  // The last CreateSession answer, its ServerNonce updated by each ActivateSession: what the
  // signatures of a reactivation are made over (Part 4 §5.6.3).
  std::optional<ua::create_session_response> session;
  subscription_book book;  // what to create again when the server lost it
  recovery_plan recovery;      // the steps after the session is back: Republish, then recreate
  std::minstd_rand rng;

  static inline const char* name = "uactor_client";

  client_broker_state() = default;
  client_broker_state(const client_broker_state&) = delete;
  client_broker_state& operator=(const client_broker_state&) = delete;
  // An actor that ends without shutdown() (an exit message, the system going down) still answers
  // its calls (Bad_ConnectionClosed, from each call's destructor); `finished` first, so that the
  // internal calls' handlers see a state that is going and touch nothing.
  ~client_broker_state() {
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
};

using client_broker = caf::io::stateful_broker<client_broker_state>;

// What the server says of a session it no longer has (Part 4 §7.34 / Table 177): on a Publish of
// a supervised client, a reason to recover the session rather than to close the subscriptions.
bool session_gone(ua::status_code s) noexcept {
  return s == ua::status::bad_session_id_invalid || s == ua::status::bad_session_closed ||
         s == ua::status::bad_session_not_activated || s == ua::status::bad_secure_channel_id_invalid ||
         s == ua::status::bad_secure_channel_closed;
}

class client_session {
public:
  explicit client_session(client_broker* self) : self_(self) {}

  client_broker_state& st() { return self_->state; }

  void start(caf::io::connection_handle hdl) {
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

  // ---- the application's calls (client_inbox)

  // Runs an event that may answer calls: their callbacks may make the next calls on this thread,
  // which wait in the inbox without a wake-up and go out right after the event.
  template <class F>
  void handle(F&& f) {
    {
      const client_inbox::handling scope(st().inbox.get());
      f(*this);
    }
    take_inbox();
  }

  // Takes what the inbox holds now (one batch: calls made by the callbacks of this batch wake the
  // actor again rather than extend it) and sends it.
  void take_inbox() {
    auto& s = st();
    s.inbox->take(s.batch);
    if (s.batch.empty()) return;
    for (auto& call : s.batch) on_call(call);
    s.batch.clear();
    flush();
  }

  // A new connection (the first, or one after a loss): Hello, with the connect deadline running.
  void open_link(caf::io::connection_handle hdl) {
    auto& s = st();
    client_channel_config cc;
    cc.endpoint_url = s.config.endpoint_url;
    cc.limits = s.config.limits;
    cc.requested_lifetime = s.config.token_lifetime;
    cc.security = s.config.security.channel;
    s.link.open(hdl, std::move(cc), &s);
    s.keep_alive.heard(std::chrono::steady_clock::now());
    s.link.channel().write_hello();
    flush();
    delayed_send_to_self(self_, s.config.connect_timeout, client_deadline_atom::value, s.generation);
  }

  // What the channel has to send goes out, unless the client is finished.
  void flush() {
    if (st().finished) return st().link.discard_output();
    st().link.flush();
  }

  void on_data(const caf::io::new_data_msg& msg) {
    auto& s = st();
    if (msg.handle == s.wake_hdl) return;  // handle() takes the inbox after this
    if (s.finished || !s.link.carries(msg.handle)) return;  // a late receive of a link given up
    const auto& data = msg.buf;
    const std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    const auto now = now_instant();
    s.keep_alive.heard(now.steady);
    // A chunk may end the link (lose, shutdown): the link then hands on no more of them.
    const auto r = s.link.receive(in, [&](const ua::chunk_view& v) { on_chunk(v, now); });
    if (!r) return lose(r.error(), "framing");
    if (*r == client_link::received::given_up) return;
    flush();
  }

  void on_chunk(const ua::chunk_view& v, const instant& now) {
    auto& s = st();
    if (s.finished) return;
    auto& channel = s.link.channel();
    switch (channel.on_chunk(v, now)) {
      case client_channel_state::event::none:
        return;
      case client_channel_state::event::acknowledged:
        s.link.set_receive_buffer_size(channel.limits().receive_buffer_size);
        if (const auto sc = channel.write_open(now); sc.is_bad()) fail(sc, "OpenSecureChannel");
        return;
      case client_channel_state::event::opened:
        schedule_renewal(now);
        if (!s.config.create_session) became_ready();
        else if (s.recovering && s.session) reactivate(now);
        else create_session(now);
        return;
      case client_channel_state::event::renewed:
        s.renewal.done();
        schedule_renewal(now);
        return;
      case client_channel_state::event::response:
        on_response();
        return;
      case client_channel_state::event::closed:
        spdlog::info("uactor client: {} closed the channel: {} {}", s.config.endpoint_url,
                     channel.close_status().to_string(), channel.close_reason());
        lose(channel.close_status(), "channel closed");
        return;
    }
  }

  void on_response() {
    auto& s = st();
    auto& r = s.link.channel().response();
    if (on_publish_answer(r)) return;
    auto call = s.calls.take(r.request_id);
    if (!call) return;  // timed out already: the late answer is dropped
    // Matched by RequestId (Part 6 §6.7.2.4); the handle should agree (Part 4 §7.34).
    if (r.status.is_good() && r.request_handle != call->header().request_handle)
      spdlog::warn("uactor client: {}: response to request {} carries handle {}, not {}", s.config.endpoint_url,
                   r.request_id, r.request_handle, call->header().request_handle);
    if (r.status.is_bad() || !r.message) return call->finish(r.status.is_bad() ? r.status : ua::status::bad_unknown_response);
    // Decoded into the call's own storage (storage_for); a response that came while the call was
    // not pending any more went into the channel's message: moved over.
    if (r.message != &call->response()) call->response() = std::move(*r.message);
    if (s.supervised && call->from_application) s.book.record(call->request(), call->response());
    if (call->on_answer) {
      call->on_answer(s.subscriptions, call->response());
      pump_publish(now_instant());  // a new subscription wants its Publish requests
    }
    call->finish_answered();
  }

  // ---- subscriptions (engine/client/subscription.hpp, publish_pump.hpp)

  // The answer to one of our Publish requests: read in place (the decoded PublishResponse stays in
  // the channel's message for the next decode: no allocation in steady state), then the next Publish.
  bool on_publish_answer(client_response& r) {
    auto& s = st();
    if (!s.publishing.take(r.request_id)) return false;
    // Closing: the server ends the held Publish requests (Bad_SessionClosed, Bad_NoSubscription);
    // the subscriptions are closed by shutdown() with the close's own status.
    if (!s.closers.empty()) return true;
    const auto now = std::chrono::steady_clock::now();
    const auto answer = read_publish_answer(r);
    if (answer.failed.is_bad()) {
      // Supervised: a session the server no longer has is recovered, not its subscriptions closed.
      if (s.supervised && session_gone(answer.failed)) {
        lose(answer.failed, "Publish");
        return true;
      }
      s.subscriptions.on_publish_failed(answer.failed, now);
    } else {
      s.subscriptions.on_publish_response(*answer.response, now);
    }
    if (!s.finished) pump_publish(now_instant());
    return true;
  }

  // Keeps the engine's number of Publish requests at the server, and asks for what was missed.
  void pump_publish(const instant& now) {
    auto& s = st();
    if (!s.ready || s.finished || !s.closers.empty() || !s.config.create_session) return;
    auto& e = s.subscriptions;
    s.publishing.pump(e, s.headers, now, s.config.request_timeout,
                      [&](const ua::publish_request& p) { return s.link.channel().send_request(p); });
    std::uint32_t sub = 0;
    std::uint32_t seq = 0;
    while (!s.finished && s.ready && e.next_republish(sub, seq)) send_republish(sub, seq, now);
    schedule_sweep();
  }

  // Part 4 §5.14.6: one missed NotificationMessage asked for again.
  void send_republish(std::uint32_t sub, std::uint32_t seq, const instant& now) {
    ua::republish_request req;
    req.subscription_id = sub;
    req.retransmit_sequence_number = seq;
    auto self = self_;
    const auto gen = st().generation;
    auto call = client_call::make(
        std::move(req),
        [self, sub, seq, gen](ua::expected<ua::extension_object> answer) {
          client_session cs(self);
          auto& e = cs.st().subscriptions;
          if (cs.st().finished) return;
          // The link failed under it: the recovery asks again from the next expected number.
          if (gen != cs.st().generation) return;
          if (const auto sc = result_of(answer); sc.is_bad()) return e.on_republish_failed(sub, seq, sc);
          const auto* r = answer->get_if<ua::republish_response>();
          if (!r) return e.on_republish_failed(sub, seq, ua::status::bad_unknown_response);
          if (r->response_header.service_result.is_bad())
            return e.on_republish_failed(sub, seq, r->response_header.service_result);
          e.on_republished(sub, r->notification_message, std::chrono::steady_clock::now());
        },
        st().config.request_timeout);
    send(call, now);
  }

  void schedule_renewal(const instant& now) {
    delayed_send_to_self(self_, token_renewal::wait(st().link.channel().renewal_due(), now.steady), client_renew_atom::value,
                         st().generation);
  }

  void on_renew(std::uint32_t gen) {
    auto& s = st();
    if (s.finished || gen != s.generation || !s.link.has_channel()) return;
    auto& channel = s.link.channel();
    const auto now = now_instant();
    if (!channel.needs_renewal(now.steady)) {
      if (channel.is_open()) schedule_renewal(now);
      return;
    }
    if (const auto sc = channel.write_open(now); sc.is_bad()) {
      lose(sc, "Renew");
      return;
    }
    s.renewal.sent(now.steady);
    flush();
  }

  // Fills the RequestHeader and sends; the call is answered now when it cannot go out.
  void send(const client_call_ptr& call, const instant& now) {
    auto& s = st();
    // Part 4 §7.32: the server may drop a request older than its TimeoutHint.
    s.headers.stamp(call->header(), call->session_token ? *call->session_token : s.headers.session_token(), now.utc,
                    call->timeout());
    auto id = s.link.channel().send_request(*call->request().body());
    if (!id) {
      call->finish(id.error());
      return;
    }
    const auto deadline = now.steady + call->timeout();
    s.calls.add(*id, call, deadline);
    schedule_sweep(deadline);
  }

  // How often the sweep looks while something wants watching (request_sweep.hpp).
  std::chrono::milliseconds watch_every() {
    auto& s = st();
    watched_periods w;
    w.urgent = s.calls.held() > 0 || s.subscriptions.paused();
    w.shortest_silence = s.subscriptions.shortest_silence();
    w.supervised = s.supervised;
    w.keep_alive_interval = s.config.reconnect.keep_alive_interval;
    w.request_timeout = s.config.request_timeout;
    return watch_interval(w);
  }

  // Arms the sweep for `deadline` (a request's), or for watch_interval() from now when something
  // wants watching: supervision (the keep-alive, the held requests' timeouts, the renewal watch),
  // subscriptions (silence) and Publish requests. A timer armed earlier already covers it.
  void schedule_sweep(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max()) {
    auto& s = st();
    if (s.finished) return;
    const bool watching = s.supervised || !s.publishing.empty() || !s.subscriptions.empty() || s.calls.held() > 0;
    const auto timer = s.sweep.arm(deadline, std::chrono::steady_clock::now(),
                                   watching ? std::optional(watch_every()) : std::nullopt);
    // Tagged with its time: a timer replaced by an earlier one is ignored when it fires.
    if (timer) delayed_send_to_self(self_, timer->wait, client_timeout_atom::value, timer->tag);
  }

  void on_sweep_timer(std::int64_t at) {
    if (st().sweep.fired(at)) on_sweep();
  }

  void on_call(const client_call_ptr& call) {
    auto& s = st();
    if (s.finished) return call->finish(s.end_status);
    if (!s.closers.empty()) return call->finish(ua::status::bad_connection_closed);
    if (s.recovering) return hold(call);
    if (!s.ready) return call->finish(ua::status::bad_invalid_state);
    send_application_call(call, now_instant());
    flush();
  }

  void send_application_call(const client_call_ptr& call, const instant& now) {
    auto& s = st();
    if (s.supervised)
      if (const auto* d = call->request().get_if<ua::delete_subscriptions_request>()) s.book.forget(d->subscription_ids);
    if (call->before_send) call->before_send(s.subscriptions);
    send(call, now);
  }

  // ---- supervision: loss, reconnect, recovery (docs/decisions/0017, Part 4 §6.7)

  void emit(connection_event_kind what, ua::status_code status) {
    auto& s = st();
    if (!s.config.reconnect.on_event) return;
    connection_event ev;
    ev.what = what;
    ev.status = status;
    ev.how = s.recovery.how();
    ev.attempt = s.attempt;
    s.config.reconnect.on_event(ev);
  }

  // A request made while the connection is down: held with its timeout running, or failed now.
  void hold(const client_call_ptr& call) {
    auto& s = st();
    const auto& o = s.config.reconnect;
    if (!o.hold_requests) return call->finish(ua::status::bad_server_not_connected);
    if (s.calls.held() >= o.max_held_requests) return call->finish(ua::status::bad_resource_unavailable);
    s.calls.hold(call, std::chrono::steady_clock::now() + call->timeout());
    schedule_sweep();
  }

  // Not connecting, not closing: a failure of the connection or the session. Supervised (and the
  // session worked once), the link is given up and another one is tried; otherwise the end.
  void lose(ua::status_code why, std::string_view what) {
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
  void fail(ua::status_code why, std::string_view what) {
    if (st().recovering) return lose(why, what);
    shutdown(why, what);
  }

  void schedule_attempt(ua::status_code last) {
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
  void on_reconnect_timer(std::uint32_t gen) {
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

  void on_socket(std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
    auto& s = st();
    if (s.finished || gen != s.generation || !s.recovering) return;  // the handoff closes the socket
    if (h->fd == caf::io::network::invalid_native_socket) return schedule_attempt(ua::status::bad_connection_rejected);
    open_link(self_->add_scribe(h->release()));
  }

  // Part 4 §5.6.3: the old session on the new channel, with the same identity.
  void reactivate(const instant& now) {
    auto& s = st();
    ua::activate_session_request req;
    if (const auto sc = prepare_activate_session(s.config.security, *s.session, req); sc.is_bad())
      return lose(sc, "ActivateSession: no identity token");
    send_internal(std::move(req), &client_session::on_reactivated, now);
  }

  void on_reactivated(ua::expected<ua::extension_object> answer) {
    auto& s = st();
    auto sc = result_of(answer);
    const ua::activate_session_response* resp = nullptr;
    if (sc.is_good()) {
      resp = answer->get_if<ua::activate_session_response>();
      sc = !resp ? ua::status::bad_unknown_response : resp->response_header.service_result;
    }
    switch (after_reactivate(sc)) {
      case reactivate_outcome::resume: {
        s.session->server_nonce = resp->server_nonce;
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
  void recover_subscriptions() {
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

  void on_transferred(ua::expected<ua::extension_object> answer) {
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
  void next_recovery_step() {
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

  void send_recovery_republish(std::uint32_t sub, std::uint32_t seq) {
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
  void recreate(std::uint32_t old_id) {
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

  void close_subscription(std::uint32_t id, ua::status_code why) {
    auto& s = st();
    s.subscriptions.notify(id, subscription_event::closed, why);
    s.subscriptions.remove(id);
    s.book.forget(ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{id}));
  }

  void on_recreated(std::uint32_t old_id, ua::expected<ua::extension_object> answer) {
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

  void finish_recovery() {
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

  void on_sweep() {
    auto& s = st();
    const auto now = std::chrono::steady_clock::now();
    s.calls.expire(now);  // answers may send more: the table is consistent
    if (s.finished) return;
    // A Publish the server has not answered in its TimeoutHint and more: not an error, another goes.
    s.publishing.expire(s.subscriptions, now);
    s.subscriptions.check(now);
    if (s.finished) return;
    if (s.supervised && s.ready && !watch(now)) return;
    pump_publish(now_instant());
    flush();
    schedule_sweep(s.calls.earliest_deadline());
  }

  // Loss detection beyond socket errors (Part 4 §6.7): publish silence, an unanswered renewal, and
  // a keep-alive Read when nothing came for a while. False when the link was given up.
  bool watch(std::chrono::steady_clock::time_point now) {
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

  void send_keep_alive() {
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

  void create_session(const instant& now) {
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

  // A request of the client's own (CreateSession, ActivateSession): its answer goes to `next`,
  // unless the link it went out on was given up meanwhile.
  template <class Request>
  void send_internal(Request req, void (client_session::*next)(ua::expected<ua::extension_object>), const instant& now) {
    auto self = self_;
    const auto gen = st().generation;
    auto call = client_call::make(
        std::move(req),
        [self, next, gen](ua::expected<ua::extension_object> answer) {
          client_session cs(self);
          if (!cs.st().finished && gen == cs.st().generation) (cs.*next)(std::move(answer));
        },
        st().config.connect_timeout);
    send(call, now);
  }

  static ua::status_code result_of(const ua::expected<ua::extension_object>& answer) {
    if (!answer) return answer.error();
    if (const auto* f = answer->get_if<ua::service_fault>())
      return f->response_header.service_result.is_bad() ? f->response_header.service_result
                                                        : ua::status::bad_unknown_response;
    return ua::status::good;
  }

  void on_session_created(ua::expected<ua::extension_object> answer) {
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

  // ---- more sessions over this channel (client::open_session)

  void on_open_session(const std::shared_ptr<client_open_session>& opener) {
    auto& s = st();
    if (s.finished) return opener->finish(s.end_status);
    if (!s.closers.empty()) return opener->finish(ua::status::bad_connection_closed);
    if (s.recovering) return opener->finish(ua::status::bad_server_not_connected);
    if (!s.ready || !s.config.create_session) return opener->finish(ua::status::bad_invalid_state);
    ua::create_session_request req;
    prepare_create_session(s.config.security, req);
    req.client_description.product_uri = ua::ua_string("urn:uactor");
    req.client_description.application_name.text = ua::ua_string(s.config.session_name);
    req.client_description.application_type = ua::application_type::client;
    req.endpoint_url = ua::ua_string(s.config.endpoint_url);
    req.session_name = ua::ua_string(opener->name.empty() ? s.config.session_name : opener->name);
    req.requested_session_timeout = static_cast<double>(s.config.session_timeout.count());
    auto nonce = req.client_nonce;
    s.openers.push_back(opener);
    auto self = self_;
    auto call = client_call::make(
        std::move(req),
        [self, opener, nonce = std::move(nonce)](ua::expected<ua::extension_object> answer) {
          client_session cs(self);
          cs.on_more_created(opener, nonce, std::move(answer));
        },
        s.config.connect_timeout);
    // Part 4 §5.6.2: CreateSession carries no AuthenticationToken.
    call->session_token = std::make_shared<const ua::node_id>();
    send(call, now_instant());
    flush();
  }

  void opener_done(const std::shared_ptr<client_open_session>& opener, ua::expected<ua::node_id> r) {
    std::erase(st().openers, opener);
    opener->finish(std::move(r));
  }

  void on_more_created(const std::shared_ptr<client_open_session>& opener, const ua::byte_string& nonce,
                       ua::expected<ua::extension_object> answer) {
    auto& s = st();
    if (s.finished) return opener_done(opener, s.end_status);
    if (const auto sc = result_of(answer); sc.is_bad()) return opener_done(opener, sc);
    const auto* resp = answer->get_if<ua::create_session_response>();
    if (!resp) return opener_done(opener, ua::status::bad_unknown_response);
    if (resp->response_header.service_result.is_bad()) return opener_done(opener, resp->response_header.service_result);
    if (const auto sc = check_create_session(s.config.security, nonce, *resp); sc.is_bad()) return opener_done(opener, sc);
    ua::activate_session_request req;
    if (const auto sc = prepare_activate_session(s.config.security, *resp, req); sc.is_bad()) return opener_done(opener, sc);
    auto token = std::make_shared<const ua::node_id>(resp->authentication_token);
    auto self = self_;
    auto call = client_call::make(
        std::move(req),
        [self, opener, token](ua::expected<ua::extension_object> answer) {
          client_session cs(self);
          auto& st = cs.st();
          if (st.finished) return cs.opener_done(opener, st.end_status);
          auto sc = result_of(answer);
          if (sc.is_good()) {
            const auto* r = answer->get_if<ua::activate_session_response>();
            sc = !r ? ua::status::bad_unknown_response : r->response_header.service_result;
          }
          if (sc.is_bad()) return cs.opener_done(opener, sc);
          st.more_sessions.push_back(token);
          cs.opener_done(opener, *token);
        },
        s.config.connect_timeout);
    call->session_token = token;
    send(call, now_instant());
    flush();
  }

  void on_session_activated(ua::expected<ua::extension_object> answer) {
    auto& s = st();
    if (const auto sc = result_of(answer); sc.is_bad()) return fail(sc, "ActivateSession");
    const auto* resp = answer->get_if<ua::activate_session_response>();
    if (!resp) return fail(ua::status::bad_unknown_response, "ActivateSession answered with another response");
    if (resp->response_header.service_result.is_bad()) return fail(resp->response_header.service_result, "ActivateSession");
    if (s.session) s.session->server_nonce = resp->server_nonce;
    if (s.recovering) return recover_subscriptions();
    became_ready();
  }

  void became_ready() {
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

  void on_deadline(std::uint32_t gen) {
    auto& s = st();
    if (s.finished || gen != s.generation) return;
    if (s.recovering) return lose(ua::status::bad_timeout, "reconnect timeout");
    if (!s.ready) shutdown(ua::status::bad_timeout, "connect timeout");
  }

  void on_close(const std::shared_ptr<client_close>& closer) {
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

  void send_close_session(std::shared_ptr<const ua::node_id> token, const instant& now) {
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
  void shutdown(ua::status_code why, std::string_view what) {
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

private:
  client_broker* self_;
};

caf::behavior client_broker_fun(client_broker* self, caf::io::connection_handle hdl, client_actor_config config,
                                connected_handler connected) {
  self->state.config = std::move(config);
  self->state.connected = std::move(connected);
  self->state.inbox = self->state.config.inbox;
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("uactor client: exception in a handler: {}", x.what());
    } catch (...) {
      spdlog::error("uactor client: unknown exception in a handler");
    }
    client_session(self).shutdown(ua::status::bad_internal_error, "exception");
    return caf::exit_reason::unhandled_exception;
  });
  client_session(self).start(hdl);
  return {
      [self](const caf::io::new_data_msg& msg) { client_session(self).handle([&](client_session& cs) { cs.on_data(msg); }); },
      [self](const caf::io::connection_closed_msg& msg) {
        client_session cs(self);
        auto& s = cs.st();
        if (!s.link.carries(msg.handle)) return;  // a link given up already
        s.link.closed_by_peer();
        const auto& ch = s.link.channel();
        cs.lose(ch.closed() && ch.close_status().is_bad() ? ch.close_status() : ua::status::bad_connection_closed,
                "connection lost");
      },
      [self](client_inbox_wake_atom) { client_session(self).handle([](client_session&) {}); },
      [self](client_close_atom, const std::shared_ptr<client_close>& c) { client_session(self).on_close(c); },
      [self](client_open_session_atom, const std::shared_ptr<client_open_session>& o) {
        client_session(self).on_open_session(o);
      },
      [self](client_timeout_atom, std::int64_t at) {
        client_session(self).handle([&](client_session& cs) { cs.on_sweep_timer(at); });
      },
      [self](client_renew_atom, std::uint32_t gen) { client_session(self).on_renew(gen); },
      [self](client_deadline_atom, std::uint32_t gen) { client_session(self).on_deadline(gen); },
      [self](client_reconnect_atom, std::uint32_t gen) { client_session(self).on_reconnect_timer(gen); },
      [self](client_socket_atom, std::uint32_t gen, const std::shared_ptr<socket_handoff>& h) {
        client_session(self).on_socket(gen, h);
      },
  };
}

// A broker over a socket made already: it becomes the broker's scribe first.
caf::behavior client_broker_on_socket(client_broker* self, std::shared_ptr<socket_handoff> socket, client_actor_config config,
                                      connected_handler connected) {
  const auto hdl = self->add_scribe(socket->release());
  return client_broker_fun(self, hdl, std::move(config), std::move(connected));
}

}  // namespace

ua::expected<caf::actor> spawn_client_actor_on_socket(caf::actor_system& system, std::shared_ptr<socket_handoff> socket,
                                                      client_actor_config config, connected_handler connected) {
  if (!socket || socket->fd == caf::io::network::invalid_native_socket) return ua::status::bad_connection_rejected;
  if (!config.inbox) config.inbox = std::make_shared<client_inbox>();
  return system.middleman().spawn_broker(client_broker_on_socket, std::move(socket), std::move(config), std::move(connected));
}

ua::expected<caf::actor> spawn_client_actor(caf::actor_system& system, const std::string& host, std::uint16_t port,
                                            client_actor_config config, connected_handler connected) {
  config.host = host;
  config.port = port;
  if (!config.inbox) config.inbox = std::make_shared<client_inbox>();
  if (config.wss) {
    auto socket = std::make_shared<socket_handoff>();
    socket->fd = config.wss->connect(host, port, config.wss_path);
    if (socket->fd == caf::io::network::invalid_native_socket) return ua::status::bad_connection_rejected;
    return system.middleman().spawn_broker(client_broker_on_socket, std::move(socket), std::move(config), std::move(connected));
  }
  auto a = system.middleman().spawn_client(client_broker_fun, host, port, std::move(config), std::move(connected));
  if (!a) {
    spdlog::debug("uactor client: cannot connect to {}:{}: {}", host, port, system.render(a.error()));
    return ua::status::bad_connection_rejected;
  }
  return *a;
}

}  // namespace uactor::actors
