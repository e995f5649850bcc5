#include "actors/client/connection_actor.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include "actors/client/channel_state.hpp"
#include "actors/common/clock.hpp"
#include "protocol/chunk_reader.hpp"

namespace uactor::actors {

// ---------------------------------------------------------------------------------------
// client_call

client_call::~client_call() {
  // A call dropped unanswered (its message never reached a live actor, or the actor quit with it)
  // still gets its answer: the application never waits forever.
  if (done_) {
    auto done = std::move(done_);
    done_ = nullptr;
    done(ua::status::bad_connection_closed);
  }
}

void client_call::finish(ua::expected<ua::extension_object> answer) {
  if (!done_) return;
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(answer));
}

// ---------------------------------------------------------------------------------------
// endpoint URL

ua::expected<endpoint_address> parse_endpoint_url(std::string_view url) {
  constexpr std::string_view scheme = "opc.tcp://";
  if (url.size() > ua::max_endpoint_url_length || url.substr(0, scheme.size()) != scheme)
    return ua::status::bad_tcp_endpoint_url_invalid;
  std::string_view rest = url.substr(scheme.size());
  rest = rest.substr(0, rest.find('/'));
  endpoint_address a;
  std::string_view host = rest;
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return ua::status::bad_tcp_endpoint_url_invalid;
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return ua::status::bad_tcp_endpoint_url_invalid;
      port = rest.substr(close + 2);
    }
  } else if (const auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) return ua::status::bad_tcp_endpoint_url_invalid;
  a.host = std::string(host);
  if (!port.empty()) {
    unsigned value = 0;
    const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc{} || p != port.data() + port.size() || value == 0 || value > 65535)
      return ua::status::bad_tcp_endpoint_url_invalid;
    a.port = static_cast<std::uint16_t>(value);
  }
  return a;
}

// ---------------------------------------------------------------------------------------
// the broker

namespace {

using client_timeout_atom = caf::atom_constant<caf::atom("uatimeout")>;
using client_renew_atom = caf::atom_constant<caf::atom("uarenew")>;
using client_deadline_atom = caf::atom_constant<caf::atom("uadeadline")>;

struct client_broker_state {
  client_actor_config config;
  std::optional<client_channel_state> channel;
  std::optional<ua::chunk_reader> reader;
  std::vector<std::uint8_t> staged;  // the start of a header (fewer than 8 bytes) from the last receive
  // The requests waiting for their responses, by RequestId, each with its deadline. One sweep timer
  // for all of them (not a timer message per request: that was an allocation and a mailbox message
  // per request, and ~timeout's worth of timer entries alive at any time under load).
  struct waiting {
    std::shared_ptr<client_call> call;
    std::chrono::steady_clock::time_point deadline;
  };
  std::unordered_map<std::uint32_t, waiting> pending;
  bool sweep_scheduled = false;
  // Subscriptions (docs/decisions/0011): plain state of this actor, not an actor each. Publish
  // requests stay out of `pending` (no client_call, no map node, no std::function per Publish):
  // one reused request, a small vector of the outstanding ones, the response read in place.
  subscription_engine subscriptions;
  ua::publish_request publish;
  struct publish_slot {
    std::uint32_t request_id;
    std::chrono::steady_clock::time_point deadline;
  };
  std::vector<publish_slot> publishes;
  ua::node_id authentication_token;
  ua::byte_string client_nonce;  // of CreateSession: the ServerSignature covers it
  // The sessions opened after the first over this channel (client::open_session), closed with it.
  std::vector<std::shared_ptr<const ua::node_id>> more_sessions;
  std::size_t closes_left = 0;  // CloseSession answers still awaited while closing
  std::uint32_t next_handle = 1;
  bool ready = false;     // the application's requests may go out
  bool finished = false;  // shut down: nothing goes out any more
  ua::status_code end_status = ua::status::bad_connection_closed;  // what calls get once finished
  connected_handler connected;
  std::vector<std::shared_ptr<client_close>> closers;
  std::vector<std::shared_ptr<client_open_session>> openers;  // CreateSession/ActivateSession under way

  static inline const char* name = "uactor_client";

  client_broker_state() = default;
  client_broker_state(const client_broker_state&) = delete;
  client_broker_state& operator=(const client_broker_state&) = delete;
  // An actor that ends without shutdown() (an exit message, the system going down) still answers
  // its calls (Bad_ConnectionClosed, from each call's destructor); `finished` first, so that the
  // internal calls' handlers see a state that is going and touch nothing.
  ~client_broker_state() {
    finished = true;
    auto calls = std::move(pending);
    calls.clear();
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

class client_session {
public:
  client_session(client_broker* self, caf::io::connection_handle hdl) : self_(self), hdl_(hdl) {}

  client_broker_state& st() { return self_->state; }

  void start() {
    auto& s = st();
    client_channel_config cc;
    cc.endpoint_url = s.config.endpoint_url;
    cc.limits = s.config.limits;
    cc.requested_lifetime = s.config.token_lifetime;
    cc.security = s.config.security.channel;
    s.channel.emplace(std::move(cc));
    s.reader.emplace(s.config.limits);
    s.subscriptions = subscription_engine(s.config.subscriptions);
    s.publishes.reserve(s.config.subscriptions.max_publish_requests + 1);
    // Staged receive (DESIGN.md): at most 8 KB per read, framed by chunk_reader.
    self_->configure_read(hdl_, caf::io::receive_policy::at_most(8192));
    s.channel->write_hello();
    flush();
    self_->delayed_send(self_, s.config.connect_timeout, client_deadline_atom::value);
  }

  void flush() {
    auto& out = st().channel->output();
    if (out.empty() || st().finished) {
      out.clear();
      return;
    }
    auto& buf = self_->wr_buf(hdl_);
    const auto* p = reinterpret_cast<const char*>(out.data());
    buf.insert(buf.end(), p, p + out.size());
    st().channel->clear_output();
    self_->flush(hdl_);
  }

  void on_data(const std::vector<char>& data) {
    auto& s = st();
    if (s.finished) return;
    std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    if (!s.staged.empty()) {
      s.staged.insert(s.staged.end(), in.begin(), in.end());
      in = s.staged;
    }
    const auto now = now_instant();
    auto used = s.reader->put(in, [&](const ua::chunk_view& v) { on_chunk(v, now); });
    if (s.finished) return;
    if (!used) {
      shutdown(used.error(), "framing");
      return;
    }
    // The unframed rest stays for the next receive; the buffer keeps its capacity (no allocation
    // per receive when a large response arrives in pieces).
    if (!s.staged.empty() && in.data() == s.staged.data())
      s.staged.erase(s.staged.begin(), s.staged.begin() + static_cast<std::ptrdiff_t>(*used));
    else
      s.staged.assign(in.begin() + static_cast<std::ptrdiff_t>(*used), in.end());
    flush();
  }

  void on_chunk(const ua::chunk_view& v, const instant& now) {
    auto& s = st();
    if (s.finished) return;
    switch (s.channel->on_chunk(v, now)) {
      case client_channel_state::event::none:
        return;
      case client_channel_state::event::acknowledged:
        s.reader->set_receive_buffer_size(s.channel->limits().receive_buffer_size);
        if (const auto sc = s.channel->write_open(now); sc.is_bad()) shutdown(sc, "OpenSecureChannel");
        return;
      case client_channel_state::event::opened:
        schedule_renewal(now);
        if (s.config.create_session) create_session(now);
        else became_ready();
        return;
      case client_channel_state::event::renewed:
        schedule_renewal(now);
        return;
      case client_channel_state::event::response:
        on_response();
        return;
      case client_channel_state::event::closed:
        spdlog::info("uactor client: {} closed the channel: {} {}", s.config.endpoint_url,
                     s.channel->close_status().to_string(), s.channel->close_reason());
        shutdown(s.channel->close_status(), "channel closed");
        return;
    }
  }

  void on_response() {
    auto& s = st();
    auto& r = s.channel->response();
    if (on_publish_answer(r)) return;
    const auto it = s.pending.find(r.request_id);
    if (it == s.pending.end()) return;  // timed out already: the late answer is dropped
    auto call = std::move(it->second.call);
    s.pending.erase(it);
    // Matched by RequestId (Part 6 §6.7.2.4); the handle should agree (Part 4 §7.34).
    if (r.status.is_good() && r.request_handle != call->header().request_handle)
      spdlog::warn("uactor client: {}: response to request {} carries handle {}, not {}", s.config.endpoint_url,
                   r.request_id, r.request_handle, call->header().request_handle);
    if (r.status.is_bad() || !r.message) return call->finish(r.status.is_bad() ? r.status : ua::status::bad_unknown_response);
    if (call->on_answer) {
      call->on_answer(s.subscriptions, *r.message);
      pump_publish(now_instant());  // a new subscription wants its Publish requests
    }
    call->finish(std::move(*r.message));
  }

  // ---- subscriptions (actors/client_subscription.hpp)

  // The answer to one of our Publish requests: read in place (the decoded PublishResponse stays in
  // the channel's message for the next decode: no allocation in steady state), then the next Publish.
  bool on_publish_answer(client_response& r) {
    auto& s = st();
    const auto it = std::find_if(s.publishes.begin(), s.publishes.end(),
                                 [&](const auto& p) { return p.request_id == r.request_id; });
    if (it == s.publishes.end()) return false;
    s.publishes.erase(it);
    // Closing: the server ends the held Publish requests (Bad_SessionClosed, Bad_NoSubscription);
    // the subscriptions are closed by shutdown() with the close's own status.
    if (!s.closers.empty()) return true;
    const auto now = std::chrono::steady_clock::now();
    auto& e = s.subscriptions;
    if (r.status.is_bad() || !r.message) {
      e.on_publish_failed(r.status.is_bad() ? r.status : ua::status::bad_unknown_response, now);
    } else if (const auto* p = r.message->get_if<ua::publish_response>()) {
      if (p->response_header.service_result.is_bad()) e.on_publish_failed(p->response_header.service_result, now);
      else e.on_publish_response(*p, now);
    } else {
      const auto* f = r.message->get_if<ua::service_fault>();
      e.on_publish_failed(f && f->response_header.service_result.is_bad() ? f->response_header.service_result
                                                                          : ua::status::bad_unknown_response,
                          now);
    }
    if (!s.finished) pump_publish(now_instant());
    return true;
  }

  // Keeps the engine's number of Publish requests at the server, and asks for what was missed.
  void pump_publish(const instant& now) {
    auto& s = st();
    if (!s.ready || s.finished || !s.closers.empty() || !s.config.create_session) return;
    auto& e = s.subscriptions;
    while (e.publish_wanted() > 0) {
      auto& h = s.publish.request_header;
      h.authentication_token = s.authentication_token;
      h.timestamp = now.utc;
      h.request_handle = s.next_handle++;
      if (s.next_handle == 0) s.next_handle = 1;
      // Part 4 §5.14.5: the server holds a Publish up to a keep-alive period; the hint is longer.
      const auto timeout = e.publish_timeout(s.config.request_timeout);
      h.timeout_hint = static_cast<std::uint32_t>(timeout.count());
      e.fill_publish(s.publish);
      const auto id = s.channel->send_request(s.publish);
      if (!id) {
        e.on_publish_failed(id.error(), now.steady);
        break;
      }
      s.publishes.push_back({*id, now.steady + timeout + sweep_interval});
    }
    std::uint32_t sub = 0;
    std::uint32_t seq = 0;
    while (!s.finished && e.next_republish(sub, seq)) send_republish(sub, seq, now);
    schedule_sweep();
  }

  // Part 4 §5.14.6: one missed NotificationMessage asked for again.
  void send_republish(std::uint32_t sub, std::uint32_t seq, const instant& now) {
    ua::republish_request req;
    req.subscription_id = sub;
    req.retransmit_sequence_number = seq;
    auto self = self_;
    auto hdl = hdl_;
    auto call = client_call::make(
        std::move(req),
        [self, hdl, sub, seq](ua::expected<ua::extension_object> answer) {
          client_session cs(self, hdl);
          auto& e = cs.st().subscriptions;
          if (cs.st().finished) return;
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
    const auto due = st().channel->renewal_due();
    const auto wait = due > now.steady ? due - now.steady : std::chrono::steady_clock::duration::zero();
    self_->delayed_send(self_, std::chrono::duration_cast<std::chrono::milliseconds>(wait) + std::chrono::milliseconds(1),
                        client_renew_atom::value);
  }

  void on_renew() {
    auto& s = st();
    if (s.finished) return;
    const auto now = now_instant();
    if (!s.channel->needs_renewal(now.steady)) {
      if (s.channel->is_open()) schedule_renewal(now);
      return;
    }
    if (const auto sc = s.channel->write_open(now); sc.is_bad()) {
      shutdown(sc, "Renew");
      return;
    }
    flush();
  }

  // Fills the RequestHeader and sends; the call is answered now when it cannot go out.
  void send(const std::shared_ptr<client_call>& call, const instant& now) {
    auto& s = st();
    auto& h = call->header();
    h.authentication_token = call->session_token ? *call->session_token : s.authentication_token;
    h.timestamp = now.utc;
    h.request_handle = s.next_handle++;
    if (s.next_handle == 0) s.next_handle = 1;
    // Part 4 §7.32: the server may drop a request older than this.
    h.timeout_hint = static_cast<std::uint32_t>(call->timeout().count());
    auto id = s.channel->send_request(*call->request().body());
    if (!id) {
      call->finish(id.error());
      return;
    }
    s.pending.emplace(*id, client_broker_state::waiting{call, now.steady + call->timeout()});
    schedule_sweep();
  }

  // Request timeouts are checked this often: a timeout fires up to this much late.
  static constexpr std::chrono::milliseconds sweep_interval{50};

  void schedule_sweep() {
    auto& s = st();
    if (s.sweep_scheduled || s.finished || (s.pending.empty() && s.publishes.empty() && s.subscriptions.empty())) return;
    s.sweep_scheduled = true;
    self_->delayed_send(self_, sweep_interval, client_timeout_atom::value);
  }

  void on_call(const std::shared_ptr<client_call>& call) {
    auto& s = st();
    if (s.finished) return call->finish(s.end_status);
    if (!s.closers.empty()) return call->finish(ua::status::bad_connection_closed);
    if (!s.ready) return call->finish(ua::status::bad_invalid_state);
    if (call->before_send) call->before_send(s.subscriptions);
    send(call, now_instant());
    flush();
  }

  void on_sweep() {
    auto& s = st();
    s.sweep_scheduled = false;
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::shared_ptr<client_call>> expired;
    for (auto it = s.pending.begin(); it != s.pending.end();) {
      if (it->second.deadline <= now) {
        expired.push_back(std::move(it->second.call));
        it = s.pending.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& call : expired) call->finish(ua::status::bad_timeout);  // may send more: the map is consistent
    if (s.finished) return;
    // A Publish the server has not answered in its TimeoutHint and more: not an error, another goes.
    for (auto it = s.publishes.begin(); it != s.publishes.end();) {
      if (it->deadline <= now) {
        it = s.publishes.erase(it);
        s.subscriptions.on_publish_failed(ua::status::bad_timeout, now);
      } else {
        ++it;
      }
    }
    s.subscriptions.check(now);
    if (s.finished) return;
    pump_publish(now_instant());
    flush();
    schedule_sweep();
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

  // A request of the client's own (CreateSession, ActivateSession): its answer goes to `next`.
  template <class Request>
  void send_internal(Request req, void (client_session::*next)(ua::expected<ua::extension_object>), const instant& now) {
    auto self = self_;
    auto hdl = hdl_;
    auto call = client_call::make(
        std::move(req),
        [self, hdl, next](ua::expected<ua::extension_object> answer) {
          client_session cs(self, hdl);
          if (!cs.st().finished) (cs.*next)(std::move(answer));
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
    if (const auto sc = result_of(answer); sc.is_bad()) return shutdown(sc, "CreateSession");
    const auto* resp = answer->get_if<ua::create_session_response>();
    if (!resp) return shutdown(ua::status::bad_unknown_response, "CreateSession answered with another response");
    if (resp->response_header.service_result.is_bad()) return shutdown(resp->response_header.service_result, "CreateSession");
    s.authentication_token = resp->authentication_token;
    if (const auto sc = check_create_session(s.config.security, s.client_nonce, *resp); sc.is_bad())
      return shutdown(sc, "CreateSession: the server's certificate or signature");
    ua::activate_session_request req;
    if (const auto sc = prepare_activate_session(s.config.security, *resp, req); sc.is_bad())
      return shutdown(sc, "ActivateSession: no identity token the endpoint accepts");
    send_internal(std::move(req), &client_session::on_session_activated, now_instant());
    flush();
  }

  // ---- more sessions over this channel (client::open_session)

  void on_open_session(const std::shared_ptr<client_open_session>& opener) {
    auto& s = st();
    if (s.finished) return opener->finish(s.end_status);
    if (!s.closers.empty()) return opener->finish(ua::status::bad_connection_closed);
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
    auto hdl = hdl_;
    auto call = client_call::make(
        std::move(req),
        [self, hdl, opener, nonce = std::move(nonce)](ua::expected<ua::extension_object> answer) {
          client_session cs(self, hdl);
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
    auto hdl = hdl_;
    auto call = client_call::make(
        std::move(req),
        [self, hdl, opener, token](ua::expected<ua::extension_object> answer) {
          client_session cs(self, hdl);
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
    if (const auto sc = result_of(answer); sc.is_bad()) return shutdown(sc, "ActivateSession");
    const auto* resp = answer->get_if<ua::activate_session_response>();
    if (!resp) return shutdown(ua::status::bad_unknown_response, "ActivateSession answered with another response");
    if (resp->response_header.service_result.is_bad()) return shutdown(resp->response_header.service_result, "ActivateSession");
    became_ready();
  }

  void became_ready() {
    auto& s = st();
    s.ready = true;
    if (s.connected) {
      auto c = std::move(s.connected);
      s.connected = nullptr;
      c(ua::status::good);
    }
  }

  void on_deadline() {
    if (!st().ready && !st().finished) shutdown(ua::status::bad_timeout, "connect timeout");
  }

  void on_close(const std::shared_ptr<client_close>& closer) {
    auto& s = st();
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
    shutdown(ua::status::good, "closed");
  }

  void send_close_session(std::shared_ptr<const ua::node_id> token, const instant& now) {
    ua::close_session_request req;
    req.delete_subscriptions = true;
    auto self = self_;
    auto hdl = hdl_;
    auto call = client_call::make(
        std::move(req),
        [self, hdl](ua::expected<ua::extension_object>) {
          client_session cs(self, hdl);
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
    if (s.channel && s.channel->is_open()) {
      s.channel->write_close(now);  // Part 6 §7.1.4
      flush();
    }
    s.finished = true;
    const auto failure = why.is_bad() ? why : ua::status::bad_connection_closed;
    s.end_status = failure;
    if (why.is_bad()) spdlog::debug("uactor client: {}: {}", what, why.to_string());
    auto pending = std::move(s.pending);
    s.pending.clear();
    for (auto& [id, w] : pending) w.call->finish(failure);
    s.publishes.clear();
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
    self_->close(hdl_);
    // A connection lost under a working client leaves the actor alive, answering every later
    // call with end_status, until the client closes it: a message to a gone actor would sit
    // unanswered. A failed connect or a close ends it now.
    if (!s.ready || !closers.empty()) self_->quit();
  }

private:
  client_broker* self_;
  caf::io::connection_handle hdl_;
};

caf::behavior client_broker_fun(client_broker* self, caf::io::connection_handle hdl, client_actor_config config,
                                connected_handler connected) {
  self->state.config = std::move(config);
  self->state.connected = std::move(connected);
  self->set_exception_handler([self, hdl](std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("uactor client: exception in a handler: {}", x.what());
    } catch (...) {
      spdlog::error("uactor client: unknown exception in a handler");
    }
    client_session(self, hdl).shutdown(ua::status::bad_internal_error, "exception");
    return caf::exit_reason::unhandled_exception;
  });
  client_session(self, hdl).start();
  return {
      [self, hdl](const caf::io::new_data_msg& msg) { client_session(self, hdl).on_data(msg.buf); },
      [self, hdl](const caf::io::connection_closed_msg&) {
        client_session cs(self, hdl);
        const auto& ch = cs.st().channel;
        cs.shutdown(ch && ch->closed() && ch->close_status().is_bad() ? ch->close_status()
                                                                     : ua::status::bad_connection_closed,
                    "connection lost");
      },
      [self, hdl](client_call_atom, const std::shared_ptr<client_call>& call) { client_session(self, hdl).on_call(call); },
      [self, hdl](client_close_atom, const std::shared_ptr<client_close>& c) { client_session(self, hdl).on_close(c); },
      [self, hdl](client_open_session_atom, const std::shared_ptr<client_open_session>& o) {
        client_session(self, hdl).on_open_session(o);
      },
      [self, hdl](client_timeout_atom) { client_session(self, hdl).on_sweep(); },
      [self, hdl](client_renew_atom) { client_session(self, hdl).on_renew(); },
      [self, hdl](client_deadline_atom) { client_session(self, hdl).on_deadline(); },
  };
}

}  // namespace

ua::expected<caf::actor> spawn_client_actor(caf::actor_system& system, const std::string& host, std::uint16_t port,
                                            client_actor_config config, connected_handler connected) {
  auto a = system.middleman().spawn_client(client_broker_fun, host, port, std::move(config), std::move(connected));
  if (!a) {
    spdlog::debug("uactor client: cannot connect to {}:{}: {}", host, port, system.render(a.error()));
    return ua::status::bad_connection_rejected;
  }
  return *a;
}

}  // namespace uactor::actors
