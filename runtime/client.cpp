#include "uactor/client.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/client/connection_actor.hpp"
#include "runtime/client_security.hpp"
#include "security/certificate.hpp"
#include "security/pki_store.hpp"
#include "actors/common/tune_io.hpp"

namespace uactor {

namespace {

// ---- call objects (docs/decisions/0023)

// A call of the by-value API, kept in its client's pool between requests. The pool outlives the
// calls it handed out (each holds it), and deletes the ones it holds when the last owner goes.
class pooled_base : public actors::client_call {
public:
  using client_call::client_call;
  ~pooled_base() override = default;
};

class call_pool {
public:
  call_pool() = default;
  call_pool(const call_pool&) = delete;
  call_pool& operator=(const call_pool&) = delete;
  ~call_pool() {
    for (auto& [type, calls] : idle_)
      for (auto* c : calls) delete c;
  }
  // A pooled call of type `key`, or null.
  pooled_base* take(const void* key) {
    std::lock_guard lock(mutex_);
    auto& v = idle_[key];
    if (v.empty()) return nullptr;
    auto* c = v.back();
    v.pop_back();
    return c;
  }
  void put_back(const void* key, pooled_base* c) {
    std::lock_guard lock(mutex_);
    idle_[key].push_back(c);
  }

private:
  std::mutex mutex_;
  std::unordered_map<const void*, std::vector<pooled_base*>> idle_;
};

// Answers through a client_callback (the response moved out to it), or wakes a *_sync caller.
template <class Request, class Response>
class pooled_call final : public pooled_base {
public:
  static const void* key() noexcept { return &Request::extension_type_info; }

  explicit pooled_call(std::chrono::milliseconds timeout) : pooled_base(timeout) {}

  void set_request(Request r) { request_as<Request>() = std::move(r); }
  std::shared_ptr<call_pool> pool;
  client_callback<Response> done;
  bool sync = false;

  // *_sync: waits for the answer (false: not within `bound`), then hands the response over.
  bool wait(std::chrono::steady_clock::duration bound) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, bound, [&] { return answered_; });
  }
  ua::expected<Response> take_answer() { return by_value(status_); }

  // Another use: the per-send state reset (the request, response and vectors' storage kept).
  void reset_for_use() {
    revive();
    answered_ = false;
    sync = false;
  }

private:
  ua::expected<Response> by_value(ua::status_code st) {
    auto a = detail::typed_answer<Response>(st, response());
    if (!a) return a.error();
    return std::move(*response().template get_if<Response>());
  }

  void on_finished(ua::status_code status) override {
    if (sync) {
      std::lock_guard lock(mutex_);
      status_ = status;
      answered_ = true;
      cv_.notify_one();
      return;
    }
    auto d = std::move(done);
    done = nullptr;
    if (d) d(by_value(status));
  }

  void recycle() noexcept override {
    // What the application gave (hooks capture handlers) goes now, not at the next use.
    before_send = nullptr;
    on_answer = nullptr;
    session_token.reset();
    done = nullptr;
    auto p = std::move(pool);
    if (!p) {
      delete this;
      return;
    }
    p->put_back(key(), this);
    // `p` may be the pool's last owner: then it deletes this call as it goes. Nothing after this.
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool answered_ = false;
  ua::status_code status_;
};

}  // namespace

caf::actor_system_config& configure_client_system(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  // docs/caf-0.17-measured.md: 2 scheduler threads were fastest on 2 cores.
  cfg.set("scheduler.max-threads", 2);
  actors::tune_io(cfg);  // one recv per readable event, as the server (docs/decisions/0013)
  return cfg;
}

// What a prepared request needs of its client (client::impl is private to the client).
struct call_owner {
  virtual void enqueue(actors::client_call_ptr call) = 0;
  virtual std::chrono::milliseconds request_timeout() const noexcept = 0;

protected:
  ~call_owner() = default;
};

struct client::impl final : call_owner {
  // Declared first, destroyed last: the actor system outlives the actor handle.
  std::unique_ptr<caf::actor_system_config> own_cfg;
  std::unique_ptr<caf::actor_system> own_system;
  caf::actor_system* system = nullptr;
  caf::actor actor;
  client_options options;
  std::atomic<bool> closed{false};  // requests may come from any thread
  ua::status_code close_status;
  std::shared_ptr<actors::client_inbox> inbox;
  std::shared_ptr<call_pool> pool = std::make_shared<call_pool>();

  impl() = default;
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  ~impl() {
    close();
    actor = nullptr;
    own_system.reset();  // waits for the actor to be gone
  }

  std::atomic<std::uint32_t> next_client_handle{1};  // per-item handlers' client handles

  struct hooks {
    actors::client_call::engine_hook before_send;
    actors::client_call::answer_hook on_answer;
    std::shared_ptr<const ua::node_id> session_token;  // another session of this channel
  };

  std::chrono::milliseconds request_timeout() const noexcept override { return options.request_timeout; }

  // To the connection actor through the inbox; answered here when it cannot go.
  void enqueue(actors::client_call_ptr call) override {
    if (closed || !actor || !inbox) return call->finish(ua::status::bad_connection_closed);
    if (!inbox->submit(call)) call->finish(ua::status::bad_connection_closed);
  }

  template <class Request, class Response>
  caf::intrusive_ptr<pooled_call<Request, Response>> pooled(Request req, hooks h) {
    using call_type = pooled_call<Request, Response>;
    auto* c = static_cast<call_type*>(pool->take(call_type::key()));
    if (c) c->reset_for_use();
    else {
      c = new call_type(options.request_timeout);
      c->reset_for_use();
    }
    caf::intrusive_ptr<call_type> call(c, false);  // the one reference revive() gave
    call->pool = pool;
    call->set_request(std::move(req));
    call->set_timeout(options.request_timeout);
    call->before_send = std::move(h.before_send);
    call->on_answer = std::move(h.on_answer);
    call->session_token = std::move(h.session_token);
    call->from_application = true;
    call->arm();
    return call;
  }

  template <class Request, class Response>
  void submit(Request req, client_callback<Response> done, hooks h = {}) {
    auto call = pooled<Request, Response>(std::move(req), std::move(h));
    call->done = std::move(done);
    enqueue(std::move(call));
  }

  template <class Request, class Response>
  ua::expected<Response> submit_sync(Request req, hooks h = {}) {
    auto call = pooled<Request, Response>(std::move(req), std::move(h));
    call->sync = true;
    enqueue(call);
    // The actor answers every call by its own timer; this bound is a safety net only.
    if (!call->wait(options.request_timeout + std::chrono::seconds(5))) return ua::status::bad_timeout;
    return call->take_answer();
  }

  template <class Handler>
  hooks item_hooks(ua::create_monitored_items_request& r, std::vector<Handler> handlers);
  template <class Handler>
  void create_items(ua::create_monitored_items_request r, std::vector<Handler> handlers,
                    client_callback<ua::create_monitored_items_response> done);
  template <class Handler>
  ua::expected<ua::create_monitored_items_response> create_items_sync(ua::create_monitored_items_request r,
                                                                      std::vector<Handler> handlers);
  hooks transfer_hooks(const ua::transfer_subscriptions_request& r, std::vector<subscription_transfer> targets);

  ua::status_code close() {
    if (closed.exchange(true)) return close_status;
    if (!actor) return close_status;
    auto promise = std::make_shared<std::promise<ua::status_code>>();
    auto future = promise->get_future();
    auto closer = std::make_shared<actors::client_close>([promise](ua::status_code sc) { promise->set_value(sc); });
    caf::anon_send(actor, actors::client_close_atom::value, closer);
    closer.reset();
    // A dead actor drops the message: then the closer is destroyed unanswered.
    if (future.wait_for(options.request_timeout + std::chrono::seconds(5)) == std::future_status::ready)
      close_status = future.get();
    else
      close_status = ua::status::bad_timeout;
    return close_status;
  }
};

// ---- prepared requests (docs/decisions/0023)

}  // namespace uactor

namespace uactor::detail {

// The call object of a prepared_request: not pooled (the handle keeps it), deleted when the handle
// and the actor have both let go.
class prepared_call_state final : public actors::client_call {
public:
  using answer_fn = std::function<void(ua::status_code, const ua::extension_object&)>;

  template <class Request>
  prepared_call_state(call_owner* owner, Request r, answer_fn done, std::shared_ptr<const ua::node_id> token)
      : client_call(std::chrono::milliseconds(0)), owner_(owner), done_(std::move(done)) {
    auto& req = request_as<Request>();
    req = std::move(r);
    request_ptr_ = &req;
    session_token = std::move(token);
    from_application = true;
  }

  void* request_body() noexcept { return request_ptr_; }

  ua::status_code send(bool sync) {
    if (!arm()) return ua::status::bad_invalid_state;
    sync_ = sync;
    answered_ = false;
    set_timeout(owner_->request_timeout());
    owner_->enqueue(actors::client_call_ptr(this));
    return ua::status::good;
  }

  ua::status_code wait() {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, owner_->request_timeout() + std::chrono::seconds(5), [&] { return answered_; }))
      return ua::status::bad_timeout;
    return status_;
  }

  void add_ref() noexcept { intrusive_ptr_add_ref(this); }
  void release() noexcept { intrusive_ptr_release(this); }

private:
  void on_finished(ua::status_code status) override {
    if (sync_) {
      std::lock_guard lock(mutex_);
      status_ = status;
      answered_ = true;
      cv_.notify_one();
      return;
    }
    if (done_) done_(status, response());
  }

  call_owner* owner_;
  void* request_ptr_ = nullptr;  // the Request in request(): its body is never replaced
  answer_fn done_;
  bool sync_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool answered_ = false;
  ua::status_code status_;
};

prepared_core& prepared_core::operator=(prepared_core&& o) noexcept {
  if (this != &o) {
    if (state_) state_->release();
    state_ = o.state_;
    o.state_ = nullptr;
  }
  return *this;
}
prepared_core::~prepared_core() {
  if (state_) state_->release();
}
void* prepared_core::request_body() const noexcept { return state_->request_body(); }
const ua::extension_object& prepared_core::response() const noexcept {
  static const ua::extension_object none;
  return state_ ? std::as_const(*state_).response() : none;
}
ua::status_code prepared_core::send() { return state_ ? state_->send(false) : ua::status::bad_invalid_state; }
ua::status_code prepared_core::send_sync() {
  if (!state_) return ua::status::bad_invalid_state;
  if (const auto sc = state_->send(true); sc.is_bad()) return sc;
  return state_->wait();
}

}  // namespace uactor::detail

namespace uactor {

namespace {

template <class Request, class Response>
prepared_request<Request, Response> make_prepared(call_owner* owner, Request r,
                                                  typename prepared_request<Request, Response>::callback done,
                                                  std::shared_ptr<const ua::node_id> token) {
  detail::prepared_call_state::answer_fn f;
  if (done)
    f = [done = std::move(done)](ua::status_code sc, const ua::extension_object& answer) {
      done(detail::typed_answer<Response>(sc, answer));
    };
  auto* state = new detail::prepared_call_state(owner, std::move(r), std::move(f), std::move(token));
  state->add_ref();  // the handle's
  return prepared_request<Request, Response>(detail::prepared_core(state));
}

}  // namespace

prepared_read client::prepare(ua::read_request r, prepared_read::callback done) {
  return make_prepared<ua::read_request, ua::read_response>(impl_.get(), std::move(r), std::move(done), nullptr);
}
prepared_write client::prepare(ua::write_request r, prepared_write::callback done) {
  return make_prepared<ua::write_request, ua::write_response>(impl_.get(), std::move(r), std::move(done), nullptr);
}
prepared_browse client::prepare(ua::browse_request r, prepared_browse::callback done) {
  return make_prepared<ua::browse_request, ua::browse_response>(impl_.get(), std::move(r), std::move(done), nullptr);
}
prepared_browse_next client::prepare(ua::browse_next_request r, prepared_browse_next::callback done) {
  return make_prepared<ua::browse_next_request, ua::browse_next_response>(impl_.get(), std::move(r), std::move(done),
                                                                          nullptr);
}
prepared_call client::prepare(ua::call_request r, prepared_call::callback done) {
  return make_prepared<ua::call_request, ua::call_response>(impl_.get(), std::move(r), std::move(done), nullptr);
}

client::client(std::unique_ptr<impl> p) noexcept : impl_(std::move(p)) {}
client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;
client::~client() = default;

ua::expected<client> client::connect(client_options options) {
  auto p = std::make_unique<impl>();
  p->own_cfg = std::make_unique<caf::actor_system_config>();
  p->own_system = std::make_unique<caf::actor_system>(configure_client_system(*p->own_cfg));
  p->system = p->own_system.get();
  p->options = std::move(options);
  auto* system = p->system;
  auto opts = p->options;
  auto c = connect(*system, std::move(opts));
  if (!c) return c.error();
  // The connection made on our system: hand the system over to it.
  c->impl_->own_cfg = std::move(p->own_cfg);
  c->impl_->own_system = std::move(p->own_system);
  p->closed = true;
  return c;
}

namespace {

// opc.wss's TLS check (docs/wss.md): the server's certificate against the client's PKI, as a UA
// channel checks it (trusted/, issuers/, CRLs, validity) and the URL's host in its subjectAltName
// (Part 4 §6.1.3); the ApplicationUri is the session's to check.
actors::wss_client_options make_wss_client_options(const client_options& options, const std::string& host) {
  actors::wss_client_options o;
  o.handshake_timeout = options.connect_timeout;
  if (!options.wss_accept_any_certificate) {
    auto store = std::make_shared<security::pki_store>(options.security.pki_dir.empty() ? security::default_pki_dir()
                                                                                         : options.security.pki_dir);
    o.verify = [store, host = options.security.check_server_host_name ? host : std::string()](std::span<const std::uint8_t> der,
                                                                                             std::string& why) {
      auto cert = security::certificate::from_der_or_pem(der);
      if (!cert) {
        why = "not a certificate";
        return false;
      }
      security::validation_options check;
      check.expected_host_name = host;  // empty: not checked
      check.max_key_bits = 8192;
      const auto verdict = store->validate(*cert, check, security::system_now());
      if (verdict.status.is_bad()) why = verdict.status.to_string() + ": " + verdict.detail;
      return verdict.status.is_good();
    };
  }
  return o;
}

// client_options::wss_transport, else UACTOR_WSS_CLIENT_TRANSPORT, else native (docs/wss.md).
ua::expected<bool> wss_door_chosen(const client_options& options) {
  std::string t = options.wss_transport;
  if (t.empty())
    if (const char* e = std::getenv("UACTOR_WSS_CLIENT_TRANSPORT")) t = e;
  if (t.empty() || t == "native") return false;
  if (t == "door") return true;
  spdlog::error("uactor client: wss_transport \"{}\": native or door", t);
  return ua::status::bad_invalid_argument;
}

}  // namespace

ua::expected<client> client::connect(caf::actor_system& system, client_options options) {
  // Reverse connect (Part 6 §7.1.3): the server dials our listener; the socket comes from there.
  const bool reverse = options.reverse_listener || !options.reverse_listen.empty();
  if (reverse && !options.reverse_listener) {
    reverse_listen_options lo;
    lo.listen = options.reverse_listen;
    lo.expected_server_uri = options.expected_server_uri;
    lo.expected_endpoint_url = options.endpoint_url;
    auto l = reverse_listener::open(lo);
    if (!l) return l.error();
    options.reverse_listener = std::move(*l);
  }
  ua::expected<actors::endpoint_address> address = actors::endpoint_address{};
  if (!reverse) {
    address = actors::parse_endpoint_url(options.endpoint_url);
    if (!address) return address.error();
  }
  actors::client_actor_config config;
  // A secured channel without a session is what a server registering with a discovery server
  // uses (Part 4 §5.4.5: RegisterServer only over a channel that authenticates the client).
  const bool secured = options.security.policy != "None" && !options.security.policy.empty() &&
                       options.security.policy != "http://opcfoundation.org/UA/SecurityPolicy#None";
  if (options.create_session || secured) {
    // Reverse: the endpoints come over a reverse connection of their own (no session), the
    // session's connection is the server's next one.
    actors::endpoints_fetch fetch;
    if (reverse)
      fetch = [&system, &options]() -> ua::expected<ua::get_endpoints_response> {
        client_options o;
        o.endpoint_url = options.endpoint_url;
        o.create_session = false;
        o.connect_timeout = o.request_timeout = options.connect_timeout;
        o.reverse_listener = options.reverse_listener;
        o.inbox_wake_up = options.inbox_wake_up;
        auto c = connect(system, std::move(o));
        if (!c) return c.error();
        ua::get_endpoints_request req;
        req.endpoint_url = ua::ua_string(c->options().endpoint_url);
        auto r = c->get_endpoints_sync(std::move(req));
        c->close();
        return r;
      };
    else if (address->wss)
      // opc.wss: the endpoints over the same transport and with the same TLS check.
      fetch = [&system, &options]() -> ua::expected<ua::get_endpoints_response> {
        client_options o;
        o.endpoint_url = options.endpoint_url;
        o.create_session = false;
        o.connect_timeout = o.request_timeout = options.connect_timeout;
        o.security.pki_dir = options.security.pki_dir;
        o.security.check_server_host_name = options.security.check_server_host_name;
        o.wss_accept_any_certificate = options.wss_accept_any_certificate;
        o.wss_transport = options.wss_transport;
        o.inbox_wake_up = options.inbox_wake_up;
        auto c = connect(system, std::move(o));
        if (!c) return c.error();
        ua::get_endpoints_request req;
        req.endpoint_url = ua::ua_string(c->options().endpoint_url);
        auto r = c->get_endpoints_sync(std::move(req));
        c->close();
        return r;
      };
    auto security = actors::resolve_client_security(options.endpoint_url, options.security, options.connect_timeout, fetch);
    if (!security) return security.error();
    config.security = std::move(*security);
  }
  std::shared_ptr<actors::socket_handoff> socket;
  if (reverse) {
    const auto& listener = options.reverse_listener->listener_;
    socket = listener->take_sync(options.connect_timeout);
    if (socket->fd == caf::io::network::invalid_native_socket) {
      spdlog::warn("uactor client: no server dialed {}:{} with a good ReverseHello within {} ms", listener->options().address,
                   listener->port(), options.connect_timeout.count());
      return ua::status::bad_timeout;
    }
    if (options.endpoint_url.empty()) options.endpoint_url = socket->endpoint_url;
    config.reverse = listener;
  }
  if (!reverse && address->wss) {
    auto door = wss_door_chosen(options);
    if (!door) return door.error();
    auto o = make_wss_client_options(options, address->host);
    if (*door) {
      config.wss = std::make_shared<actors::wss_connector>(std::move(o));
      config.wss_path = address->path;
    } else {
      auto e = actors::wss_client_endpoint::make(std::move(o), address->host, address->port, address->path);
      if (!e) return e.error();
      config.wss_native = std::move(*e);
    }
  }
  config.endpoint_url = options.endpoint_url;
  config.session_name = options.session_name;
  config.create_session = options.create_session;
  config.connect_timeout = options.connect_timeout;
  config.session_timeout = options.session_timeout;
  config.token_lifetime = options.token_lifetime;
  config.request_timeout = options.request_timeout;
  config.subscriptions.max_publish_requests = options.max_publish_requests;
  config.subscriptions.acknowledge = options.acknowledge_notifications;
  config.reconnect = options.reconnect;
  auto inbox = std::make_shared<actors::client_inbox>(options.inbox_wake_up);
  config.inbox = inbox;
  // Supervised: every message once and in order, also across the gaps a reconnect leaves.
  config.subscriptions.in_order = options.reconnect.enabled;

  auto connected = std::make_shared<std::promise<ua::status_code>>();
  auto future = connected->get_future();
  auto on_connected = [connected](ua::status_code sc) { connected->set_value(sc); };
  auto actor = reverse ? actors::spawn_client_actor_on_socket(system, std::move(socket), std::move(config), on_connected)
                       : actors::spawn_client_actor(system, address->host, address->port, std::move(config), on_connected);
  if (!actor) return actor.error();
  ua::status_code result = ua::status::bad_timeout;
  // The actor's own deadline answers first; this bound is a safety net only.
  if (future.wait_for(options.connect_timeout + std::chrono::seconds(5)) == std::future_status::ready)
    result = future.get();
  auto p = std::make_unique<impl>();
  p->system = &system;
  p->options = std::move(options);
  p->actor = std::move(*actor);
  p->inbox = std::move(inbox);
  if (result.is_bad()) {
    p->closed = true;
    caf::anon_send_exit(p->actor, caf::exit_reason::user_shutdown);
    return result;
  }
  return client(std::move(p));
}

void client::read(ua::read_request r, client_callback<ua::read_response> done) { impl_->submit(std::move(r), std::move(done)); }
void client::write(ua::write_request r, client_callback<ua::write_response> done) { impl_->submit(std::move(r), std::move(done)); }
void client::browse(ua::browse_request r, client_callback<ua::browse_response> done) { impl_->submit(std::move(r), std::move(done)); }
void client::browse_next(ua::browse_next_request r, client_callback<ua::browse_next_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
void client::translate(ua::translate_browse_paths_to_node_ids_request r,
                       client_callback<ua::translate_browse_paths_to_node_ids_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
void client::call(ua::call_request r, client_callback<ua::call_response> done) { impl_->submit(std::move(r), std::move(done)); }
void client::get_endpoints(ua::get_endpoints_request r, client_callback<ua::get_endpoints_response> done) {
  impl_->submit(std::move(r), std::move(done));
}

ua::expected<ua::read_response> client::read_sync(ua::read_request r) {
  return impl_->submit_sync<ua::read_request, ua::read_response>(std::move(r));
}
ua::expected<ua::write_response> client::write_sync(ua::write_request r) {
  return impl_->submit_sync<ua::write_request, ua::write_response>(std::move(r));
}
ua::expected<ua::browse_response> client::browse_sync(ua::browse_request r) {
  return impl_->submit_sync<ua::browse_request, ua::browse_response>(std::move(r));
}
ua::expected<ua::browse_next_response> client::browse_next_sync(ua::browse_next_request r) {
  return impl_->submit_sync<ua::browse_next_request, ua::browse_next_response>(std::move(r));
}
ua::expected<ua::translate_browse_paths_to_node_ids_response> client::translate_sync(
    ua::translate_browse_paths_to_node_ids_request r) {
  return impl_->submit_sync<ua::translate_browse_paths_to_node_ids_request,
                            ua::translate_browse_paths_to_node_ids_response>(std::move(r));
}
ua::expected<ua::call_response> client::call_sync(ua::call_request r) {
  return impl_->submit_sync<ua::call_request, ua::call_response>(std::move(r));
}
ua::expected<ua::get_endpoints_response> client::get_endpoints_sync(ua::get_endpoints_request r) {
  return impl_->submit_sync<ua::get_endpoints_request, ua::get_endpoints_response>(std::move(r));
}
ua::expected<ua::find_servers_response> client::find_servers_sync(ua::find_servers_request r) {
  return impl_->submit_sync<ua::find_servers_request, ua::find_servers_response>(std::move(r));
}
ua::expected<ua::find_servers_on_network_response> client::find_servers_on_network_sync(
    ua::find_servers_on_network_request r) {
  return impl_->submit_sync<ua::find_servers_on_network_request, ua::find_servers_on_network_response>(std::move(r));
}
ua::expected<ua::register_server_response> client::register_server_sync(ua::register_server_request r) {
  return impl_->submit_sync<ua::register_server_request, ua::register_server_response>(std::move(r));
}
ua::expected<ua::register_server2_response> client::register_server2_sync(ua::register_server2_request r) {
  return impl_->submit_sync<ua::register_server2_request, ua::register_server2_response>(std::move(r));
}
void client::history_read(ua::history_read_request r, client_callback<ua::history_read_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::history_read_response> client::history_read_sync(ua::history_read_request r) {
  return impl_->submit_sync<ua::history_read_request, ua::history_read_response>(std::move(r));
}
void client::history_update(ua::history_update_request r, client_callback<ua::history_update_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::history_update_response> client::history_update_sync(ua::history_update_request r) {
  return impl_->submit_sync<ua::history_update_request, ua::history_update_response>(std::move(r));
}

// ---- subscriptions: the requests as they are, plus what the actor's engine must learn from them

namespace {

ua::create_subscription_request subscription_request(const subscription_settings& s) {
  ua::create_subscription_request r;
  r.requested_publishing_interval = static_cast<double>(s.publishing_interval.count());
  r.requested_lifetime_count = s.lifetime_count;
  r.requested_max_keep_alive_count = s.max_keep_alive_count;
  r.max_notifications_per_publish = s.max_notifications_per_publish;
  r.publishing_enabled = s.publishing_enabled;
  r.priority = s.priority;
  return r;
}

}  // namespace

void client::create_subscription(subscription_settings settings, subscription_handlers handlers,
                                 client_callback<ua::create_subscription_response> done) {
  impl::hooks h;
  h.on_answer = [handlers = std::move(handlers)](actors::subscription_engine& e, const ua::extension_object& answer) mutable {
    const auto* r = answer.get_if<ua::create_subscription_response>();
    if (!r || r->response_header.service_result.is_bad()) return;
    e.add(r->subscription_id, r->revised_publishing_interval, r->revised_max_keep_alive_count, std::move(handlers),
          std::chrono::steady_clock::now());
  };
  impl_->submit(subscription_request(settings), std::move(done), std::move(h));
}

ua::expected<ua::create_subscription_response> client::create_subscription_sync(subscription_settings settings,
                                                                                 subscription_handlers handlers) {
  auto promise = std::make_shared<std::promise<ua::expected<ua::create_subscription_response>>>();
  auto future = promise->get_future();
  create_subscription(settings, std::move(handlers),
                      [promise](ua::expected<ua::create_subscription_response> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(impl_->options.request_timeout + std::chrono::seconds(5)) != std::future_status::ready)
    return ua::status::bad_timeout;
  return future.get();
}

namespace {

actors::client_call::answer_hook modify_hook(std::uint32_t id) {
  return [id](actors::subscription_engine& e, const ua::extension_object& answer) {
    const auto* r = answer.get_if<ua::modify_subscription_response>();
    if (r && r->response_header.service_result.is_good())
      e.revise(id, r->revised_publishing_interval, r->revised_max_keep_alive_count);
  };
}

// Before the request goes out: the server may end the held Publish requests with
// Bad_NoSubscription before it answers the delete, which must not read as a lost subscription.
actors::client_call::engine_hook delete_subscriptions_hook(ua::ua_array<std::uint32_t> ids) {
  return [ids = std::move(ids)](actors::subscription_engine& e) {
    for (const auto id : ids) e.remove(id);
  };
}

actors::client_call::answer_hook delete_items_hook(std::uint32_t sub, ua::ua_array<std::uint32_t> ids) {
  return [sub, ids = std::move(ids)](actors::subscription_engine& e, const ua::extension_object& answer) {
    const auto* r = answer.get_if<ua::delete_monitored_items_response>();
    if (!r || r->response_header.service_result.is_bad()) return;
    for (std::size_t i = 0; i < ids.size() && i < r->results.size(); ++i)
      if (r->results[i].is_good()) e.remove_item(sub, ids[i]);
  };
}

}  // namespace

void client::modify_subscription(ua::modify_subscription_request r, client_callback<ua::modify_subscription_response> done) {
  impl::hooks h;
  h.on_answer = modify_hook(r.subscription_id);
  impl_->submit(std::move(r), std::move(done), std::move(h));
}
ua::expected<ua::modify_subscription_response> client::modify_subscription_sync(ua::modify_subscription_request r) {
  impl::hooks h;
  h.on_answer = modify_hook(r.subscription_id);
  return impl_->submit_sync<ua::modify_subscription_request, ua::modify_subscription_response>(std::move(r), std::move(h));
}

void client::set_publishing_mode(ua::set_publishing_mode_request r, client_callback<ua::set_publishing_mode_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::set_publishing_mode_response> client::set_publishing_mode_sync(ua::set_publishing_mode_request r) {
  return impl_->submit_sync<ua::set_publishing_mode_request, ua::set_publishing_mode_response>(std::move(r));
}

void client::delete_subscriptions(ua::delete_subscriptions_request r, client_callback<ua::delete_subscriptions_response> done) {
  impl::hooks h;
  h.before_send = delete_subscriptions_hook(r.subscription_ids);
  impl_->submit(std::move(r), std::move(done), std::move(h));
}
ua::expected<ua::delete_subscriptions_response> client::delete_subscriptions_sync(ua::delete_subscriptions_request r) {
  impl::hooks h;
  h.before_send = delete_subscriptions_hook(r.subscription_ids);
  return impl_->submit_sync<ua::delete_subscriptions_request, ua::delete_subscriptions_response>(std::move(r), std::move(h));
}

void client::create_monitored_items(ua::create_monitored_items_request r,
                                    client_callback<ua::create_monitored_items_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::create_monitored_items_response> client::create_monitored_items_sync(ua::create_monitored_items_request r) {
  return impl_->submit_sync<ua::create_monitored_items_request, ua::create_monitored_items_response>(std::move(r));
}

// Value items (item_handler) and event items (event_item_handler) alike.
template <class Handler>
client::impl::hooks client::impl::item_hooks(ua::create_monitored_items_request& r, std::vector<Handler> handlers) {
  // The handlers are registered before the request goes out (the first values may come in the
  // next PublishResponse), then kept for the items the server created, dropped for the others.
  std::vector<std::uint32_t> handles;
  handles.reserve(r.items_to_create.size());
  for (auto& item : r.items_to_create) {
    std::uint32_t h = next_client_handle.fetch_add(1);
    if (h == 0) h = next_client_handle.fetch_add(1);
    item.requested_parameters.client_handle = h;
    handles.push_back(h);
  }
  hooks out;
  const auto sub = r.subscription_id;
  out.before_send = [sub, handles, handlers = std::move(handlers)](actors::subscription_engine& e) mutable {
    for (std::size_t i = 0; i < handles.size(); ++i) e.add_item_handler(sub, handles[i], std::move(handlers[i]));
  };
  out.on_answer = [sub, handles](actors::subscription_engine& e, const ua::extension_object& answer) {
    const auto* resp = answer.get_if<ua::create_monitored_items_response>();
    const bool whole_failed = !resp || resp->response_header.service_result.is_bad();
    for (std::size_t i = 0; i < handles.size(); ++i) {
      if (!whole_failed && i < resp->results.size() && resp->results[i].status_code.is_good())
        e.bind_item(sub, handles[i], resp->results[i].monitored_item_id);
      else
        e.remove_item_handler(sub, handles[i]);
    }
  };
  return out;
}

// Items with a handler each, value (item_handler) or event (event_item_handler) items alike.
template <class Handler>
void client::impl::create_items(ua::create_monitored_items_request r, std::vector<Handler> handlers,
                                client_callback<ua::create_monitored_items_response> done) {
  if (handlers.size() != r.items_to_create.size()) return done(ua::status::bad_invalid_argument);
  auto h = item_hooks(r, std::move(handlers));
  submit(std::move(r), std::move(done), std::move(h));
}
template <class Handler>
ua::expected<ua::create_monitored_items_response> client::impl::create_items_sync(ua::create_monitored_items_request r,
                                                                                 std::vector<Handler> handlers) {
  if (handlers.size() != r.items_to_create.size()) return ua::status::bad_invalid_argument;
  auto h = item_hooks(r, std::move(handlers));
  return submit_sync<ua::create_monitored_items_request, ua::create_monitored_items_response>(std::move(r), std::move(h));
}

void client::create_monitored_items(ua::create_monitored_items_request r, std::vector<item_handler> handlers,
                                    client_callback<ua::create_monitored_items_response> done) {
  impl_->create_items(std::move(r), std::move(handlers), std::move(done));
}
ua::expected<ua::create_monitored_items_response> client::create_monitored_items_sync(ua::create_monitored_items_request r,
                                                                                     std::vector<item_handler> handlers) {
  return impl_->create_items_sync(std::move(r), std::move(handlers));
}
void client::create_monitored_items(ua::create_monitored_items_request r, std::vector<event_item_handler> handlers,
                                    client_callback<ua::create_monitored_items_response> done) {
  impl_->create_items(std::move(r), std::move(handlers), std::move(done));
}
ua::expected<ua::create_monitored_items_response> client::create_monitored_items_sync(ua::create_monitored_items_request r,
                                                                                     std::vector<event_item_handler> handlers) {
  return impl_->create_items_sync(std::move(r), std::move(handlers));
}

void client::modify_monitored_items(ua::modify_monitored_items_request r,
                                    client_callback<ua::modify_monitored_items_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::modify_monitored_items_response> client::modify_monitored_items_sync(ua::modify_monitored_items_request r) {
  return impl_->submit_sync<ua::modify_monitored_items_request, ua::modify_monitored_items_response>(std::move(r));
}

void client::delete_monitored_items(ua::delete_monitored_items_request r,
                                    client_callback<ua::delete_monitored_items_response> done) {
  impl::hooks h;
  h.on_answer = delete_items_hook(r.subscription_id, r.monitored_item_ids);
  impl_->submit(std::move(r), std::move(done), std::move(h));
}
ua::expected<ua::delete_monitored_items_response> client::delete_monitored_items_sync(ua::delete_monitored_items_request r) {
  impl::hooks h;
  h.on_answer = delete_items_hook(r.subscription_id, r.monitored_item_ids);
  return impl_->submit_sync<ua::delete_monitored_items_request, ua::delete_monitored_items_response>(std::move(r),
                                                                                                    std::move(h));
}

void client::set_monitoring_mode(ua::set_monitoring_mode_request r, client_callback<ua::set_monitoring_mode_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::set_monitoring_mode_response> client::set_monitoring_mode_sync(ua::set_monitoring_mode_request r) {
  return impl_->submit_sync<ua::set_monitoring_mode_request, ua::set_monitoring_mode_response>(std::move(r));
}

void client::set_triggering(ua::set_triggering_request r, client_callback<ua::set_triggering_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::set_triggering_response> client::set_triggering_sync(ua::set_triggering_request r) {
  return impl_->submit_sync<ua::set_triggering_request, ua::set_triggering_response>(std::move(r));
}

void client::republish(ua::republish_request r, client_callback<ua::republish_response> done) {
  impl_->submit(std::move(r), std::move(done));
}
ua::expected<ua::republish_response> client::republish_sync(ua::republish_request r) {
  return impl_->submit_sync<ua::republish_request, ua::republish_response>(std::move(r));
}

namespace {

bool valid_transfer(const ua::transfer_subscriptions_request& r, const std::vector<subscription_transfer>& targets) {
  if (targets.size() != r.subscription_ids.size()) return false;
  // The fast handlers only (the items' client handles are not ours): data, events or both.
  return std::all_of(targets.begin(), targets.end(),
                     [](const subscription_transfer& t) { return t.handlers.on_data || t.handlers.on_events; });
}

}  // namespace

client::impl::hooks client::impl::transfer_hooks(const ua::transfer_subscriptions_request& r,
                                                 std::vector<subscription_transfer> targets) {
  // Adopted before the request goes out: the server may answer a Publish of this session with the
  // transferred subscription's first message (its initial values) before the transfer's response.
  // A subscription already here (the server answers Bad_NothingToDo) keeps its handlers.
  auto adopted = std::make_shared<std::vector<std::uint32_t>>();
  hooks out;
  out.before_send = [ids = r.subscription_ids, targets = std::move(targets), adopted](actors::subscription_engine& e) mutable {
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (e.contains(ids[i])) continue;
      auto& t = targets[i];
      e.add(ids[i], t.revised_publishing_interval_ms, t.revised_max_keep_alive_count, std::move(t.handlers), now);
      adopted->push_back(ids[i]);
    }
  };
  out.on_answer = [ids = r.subscription_ids, adopted](actors::subscription_engine& e, const ua::extension_object& answer) {
    const auto* resp = answer.get_if<ua::transfer_subscriptions_response>();
    const bool whole_failed = !resp || resp->response_header.service_result.is_bad();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (std::find(adopted->begin(), adopted->end(), ids[i]) == adopted->end()) continue;
      if (whole_failed || i >= resp->results.size() || !resp->results[i].status_code.is_good()) e.remove(ids[i]);
    }
  };
  return out;
}

void client::transfer_subscriptions(ua::transfer_subscriptions_request r, std::vector<subscription_transfer> targets,
                                    client_callback<ua::transfer_subscriptions_response> done) {
  if (!valid_transfer(r, targets)) return done(ua::status::bad_invalid_argument);
  auto h = impl_->transfer_hooks(r, std::move(targets));
  impl_->submit(std::move(r), std::move(done), std::move(h));
}
ua::expected<ua::transfer_subscriptions_response> client::transfer_subscriptions_sync(
    ua::transfer_subscriptions_request r, std::vector<subscription_transfer> targets) {
  if (!valid_transfer(r, targets)) return ua::status::bad_invalid_argument;
  auto h = impl_->transfer_hooks(r, std::move(targets));
  return impl_->submit_sync<ua::transfer_subscriptions_request, ua::transfer_subscriptions_response>(std::move(r),
                                                                                                     std::move(h));
}

// ---- Part 9 condition methods: one CallMethodRequest each, answered with the method's status

namespace {

// Part 9's method NodeIds (ns=0).
constexpr std::uint32_t condition_type_id = 2782;
constexpr std::uint32_t add_comment_method = 9029, acknowledge_method = 9111, confirm_method = 9113,
                        condition_refresh_method = 3875, condition_refresh2_method = 12912;

ua::call_request condition_call(ua::node_id object, std::uint32_t method, std::vector<ua::variant> args) {
  ua::call_request r;
  ua::call_method_request m;
  m.object_id = std::move(object);
  m.method_id = ua::node_id(0, method);
  m.input_arguments.reserve(args.size());
  for (auto& a : args) m.input_arguments.push_back(std::move(a));
  r.methods_to_call.push_back(std::move(m));
  return r;
}

ua::call_request comment_call(std::uint32_t method, ua::node_id condition, ua::byte_string event_id,
                              ua::localized_text comment) {
  std::vector<ua::variant> args(2);
  args[0] = std::move(event_id);
  args[1] = std::move(comment);
  return condition_call(std::move(condition), method, std::move(args));
}

ua::call_request refresh_call(std::uint32_t subscription, std::optional<std::uint32_t> item) {
  std::vector<ua::variant> args(1);
  args[0] = subscription;
  if (item) args.emplace_back(*item);
  // Part 9 §5.5.7: called on ConditionType (the Server object would do for some servers).
  return condition_call(ua::node_id(0, condition_type_id), item ? condition_refresh2_method : condition_refresh_method,
                        std::move(args));
}

// The one method's status; the whole request's when it failed, Bad_UnknownResponse for an
// answer without the one result Part 4 §5.11.2 requires.
ua::status_code method_status(const ua::expected<ua::call_response>& r) {
  if (!r) return r.error();
  if (r->results.size() != 1) return ua::status::bad_unknown_response;
  return r->results[0].status_code;
}

// The call, `done` told its method_status.
void call_for_status(client& c, ua::call_request r, std::function<void(ua::status_code)> done) {
  c.call(std::move(r), [done = std::move(done)](ua::expected<ua::call_response> resp) { done(method_status(resp)); });
}

}  // namespace

void client::acknowledge(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment,
                         std::function<void(ua::status_code)> done) {
  call_for_status(*this, comment_call(acknowledge_method, std::move(condition), std::move(event_id), std::move(comment)),
                  std::move(done));
}
void client::confirm(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment,
                     std::function<void(ua::status_code)> done) {
  call_for_status(*this, comment_call(confirm_method, std::move(condition), std::move(event_id), std::move(comment)),
                  std::move(done));
}
void client::add_comment(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment,
                         std::function<void(ua::status_code)> done) {
  call_for_status(*this, comment_call(add_comment_method, std::move(condition), std::move(event_id), std::move(comment)),
                  std::move(done));
}
void client::condition_refresh(std::uint32_t subscription, std::function<void(ua::status_code)> done) {
  call_for_status(*this, refresh_call(subscription, std::nullopt), std::move(done));
}
void client::condition_refresh2(std::uint32_t subscription, std::uint32_t item, std::function<void(ua::status_code)> done) {
  call_for_status(*this, refresh_call(subscription, item), std::move(done));
}
ua::status_code client::acknowledge_sync(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment) {
  return method_status(call_sync(comment_call(acknowledge_method, std::move(condition), std::move(event_id), std::move(comment))));
}
ua::status_code client::confirm_sync(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment) {
  return method_status(call_sync(comment_call(confirm_method, std::move(condition), std::move(event_id), std::move(comment))));
}
ua::status_code client::add_comment_sync(ua::node_id condition, ua::byte_string event_id, ua::localized_text comment) {
  return method_status(call_sync(comment_call(add_comment_method, std::move(condition), std::move(event_id), std::move(comment))));
}
ua::status_code client::condition_refresh_sync(std::uint32_t subscription) {
  return method_status(call_sync(refresh_call(subscription, std::nullopt)));
}
ua::status_code client::condition_refresh2_sync(std::uint32_t subscription, std::uint32_t item) {
  return method_status(call_sync(refresh_call(subscription, item)));
}

// ---- more sessions over the channel

struct client_session::state {
  client::impl* owner = nullptr;  // the client outlives its sessions
  std::shared_ptr<const ua::node_id> token;

  client::impl::hooks with_token() const {
    client::impl::hooks h;
    h.session_token = token;
    return h;
  }
};

client_session::client_session(std::unique_ptr<state> s) noexcept : state_(std::move(s)) {}
client_session::client_session(client_session&&) noexcept = default;
client_session& client_session::operator=(client_session&&) noexcept = default;
client_session::~client_session() = default;

void client_session::read(ua::read_request r, client_callback<ua::read_response> done) {
  state_->owner->submit(std::move(r), std::move(done), state_->with_token());
}
void client_session::write(ua::write_request r, client_callback<ua::write_response> done) {
  state_->owner->submit(std::move(r), std::move(done), state_->with_token());
}
void client_session::browse(ua::browse_request r, client_callback<ua::browse_response> done) {
  state_->owner->submit(std::move(r), std::move(done), state_->with_token());
}
ua::expected<ua::read_response> client_session::read_sync(ua::read_request r) {
  return state_->owner->submit_sync<ua::read_request, ua::read_response>(std::move(r), state_->with_token());
}
ua::expected<ua::write_response> client_session::write_sync(ua::write_request r) {
  return state_->owner->submit_sync<ua::write_request, ua::write_response>(std::move(r), state_->with_token());
}
ua::expected<ua::browse_response> client_session::browse_sync(ua::browse_request r) {
  return state_->owner->submit_sync<ua::browse_request, ua::browse_response>(std::move(r), state_->with_token());
}
prepared_read client_session::prepare(ua::read_request r, prepared_read::callback done) {
  return make_prepared<ua::read_request, ua::read_response>(state_->owner, std::move(r), std::move(done), state_->token);
}
prepared_write client_session::prepare(ua::write_request r, prepared_write::callback done) {
  return make_prepared<ua::write_request, ua::write_response>(state_->owner, std::move(r), std::move(done), state_->token);
}
prepared_browse client_session::prepare(ua::browse_request r, prepared_browse::callback done) {
  return make_prepared<ua::browse_request, ua::browse_response>(state_->owner, std::move(r), std::move(done),
                                                                state_->token);
}

void client::open_session(std::string name, std::function<void(ua::expected<client_session>)> done) {
  auto* owner = impl_.get();
  auto opener = std::make_shared<actors::client_open_session>(
      std::move(name), [owner, done = std::move(done)](ua::expected<ua::node_id> token) {
        if (!token) return done(token.error());
        auto s = std::make_unique<client_session::state>();
        s->owner = owner;
        s->token = std::make_shared<const ua::node_id>(std::move(*token));
        done(client_session(std::move(s)));
      });
  if (impl_->closed || !impl_->actor) return opener->finish(ua::status::bad_connection_closed);
  caf::anon_send(impl_->actor, actors::client_open_session_atom::value, std::move(opener));
}

ua::expected<client_session> client::open_session_sync(std::string name) {
  auto promise = std::make_shared<std::promise<ua::expected<client_session>>>();
  auto future = promise->get_future();
  open_session(std::move(name), [promise](ua::expected<client_session> s) { promise->set_value(std::move(s)); });
  // The actor answers by its own timer (connect_timeout per step); this bound is a safety net only.
  if (future.wait_for(2 * impl_->options.connect_timeout + std::chrono::seconds(5)) != std::future_status::ready)
    return ua::status::bad_timeout;
  return future.get();
}

ua::status_code client::close() { return impl_ ? impl_->close() : ua::status::good; }

const client_options& client::options() const noexcept { return impl_->options; }

ua::expected<ua::get_endpoints_response> get_endpoints(const std::string& endpoint_url, std::chrono::milliseconds timeout,
                                                       bool wss_accept_any_certificate) {
  client_options o;
  o.endpoint_url = endpoint_url;
  o.wss_accept_any_certificate = wss_accept_any_certificate;
  o.create_session = false;
  o.connect_timeout = timeout;
  o.request_timeout = timeout;
  auto c = client::connect(std::move(o));
  if (!c) return c.error();
  ua::get_endpoints_request req;
  req.endpoint_url = ua::ua_string(endpoint_url);
  auto r = c->get_endpoints_sync(std::move(req));
  c->close();
  return r;
}

ua::history_read_request history_events_request(const ua::node_id& notifier, ua::date_time start, ua::date_time end,
                                                ua::event_filter filter, std::uint32_t per_page) {
  ua::read_event_details d;
  d.start_time = start;
  d.end_time = end;
  d.num_values_per_node = per_page;
  d.filter = std::move(filter);
  ua::history_read_request r;
  r.history_read_details = ua::extension_object(std::move(d));
  r.timestamps_to_return = ua::timestamps_to_return::both;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = notifier;
  return r;
}

ua::history_update_request history_delete_events_request(const ua::node_id& notifier,
                                                         std::vector<ua::byte_string> event_ids) {
  ua::delete_event_details d;
  d.node_id = notifier;
  d.event_ids.assign(std::make_move_iterator(event_ids.begin()), std::make_move_iterator(event_ids.end()));
  ua::history_update_request r;
  r.history_update_details.push_back(ua::extension_object(std::move(d)));
  return r;
}

ua::history_update_request history_update_events_request(const ua::node_id& notifier, ua::perform_update_type mode,
                                                         ua::event_filter fields,
                                                         std::vector<ua::history_event_field_list> events) {
  ua::update_event_details d;
  d.node_id = notifier;
  d.perform_insert_replace = mode;
  d.filter = std::move(fields);
  d.event_data.assign(std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));
  ua::history_update_request r;
  r.history_update_details.push_back(ua::extension_object(std::move(d)));
  return r;
}

std::span<const ua::history_event_field_list> history_events_of(const ua::history_read_result& result) noexcept {
  const auto* h = result.history_data.get_if<ua::history_event>();
  if (!h) return {};
  return {h->events.data(), h->events.size()};
}

}  // namespace uactor
