// uactor::client and its connection actor over real sockets on 127.0.0.1: against a small test
// server broker in this file (secure_channel_state + session_manager + the Read/Write/Browse
// services over the demo address space), which can also stay silent or drop the connection.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "uactor/client.hpp"
#include "actors/client/connection_actor.hpp"
#include "engine/common/clock.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/services/browse.hpp"
#include "engine/server/services/read.hpp"
#include "engine/server/services/write.hpp"
#include "engine/server/session_manager.hpp"
#include "protocol/chunk_reader.hpp"
#include "tests/engine/read_fixture.hpp"

// The test server's scripted PublishResponses travel to its broker as a message.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::ua::publish_response>)

using namespace uactor;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

// What the test sees of its server, across threads.
struct server_hooks {
  std::promise<std::uint16_t> port;
  std::size_t max_sessions = 10;
  std::chrono::milliseconds min_token_lifetime{10'000};
  std::atomic<int> renewals{0};
  std::atomic<int> channels_closed_by_client{0};
  std::mutex mutex;
  std::promise<void> renewed_twice;

  // Subscriptions, scripted by the test: the server holds every Publish until the test sends a
  // response for it (fixture::publish), records acknowledgements and Republish requests, and
  // answers a Republish from `retransmit` or with Bad_MessageNotAvailable. Under `mutex`.
  std::condition_variable changed;
  std::size_t publishes_waiting = 0;  // held and not yet claimed by the test
  std::vector<ua::subscription_acknowledgement> acks;
  std::vector<std::uint32_t> republish_asked;
  std::map<std::uint32_t, ua::notification_message> retransmit;
  std::size_t too_many_publishes = 0;  // refuse Publish requests beyond this many held (0: no limit)
  std::size_t refused_publishes = 0;

  // Sessions (under `mutex`): how many the server has, the AuthenticationToken of every Read.
  std::size_t sessions = 0;
  std::vector<ua::node_id> read_tokens;
  std::atomic<int> connections{0};
};

using publish_atom = caf::atom_constant<caf::atom("tpublish")>;

struct server_state {
  struct connection {
    std::unique_ptr<actors::secure_channel_state> channel;
    std::unique_ptr<ua::chunk_reader> reader;
    std::vector<std::uint8_t> staged;
  };
  ua::address_space space = test::demo_address_space();
  std::unique_ptr<actors::session_manager> sessions;
  std::map<caf::io::connection_handle, connection> connections;
  std::uint32_t next_channel = 1;
  std::shared_ptr<server_hooks> hooks;
  ua::read_response read;
  ua::write_response write;
  ua::browse_response browse;
  ua::get_endpoints_response endpoints;
  struct held_publish {
    caf::io::connection_handle hdl;
    std::uint32_t request_id;
    std::uint32_t handle;
  };
  std::deque<held_publish> publishes;
  static inline const char* name = "test_server";
};

using server_broker = caf::io::stateful_broker<server_state>;

actors::session_config sessions_config(std::size_t max_sessions) {
  actors::session_config c;
  c.max_sessions = max_sessions;
  c.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  ua::endpoint_description ep;
  ep.endpoint_url = "opc.tcp://127.0.0.1:4840";
  ep.security_policy_uri = ua::ua_string(actors::security_policy_none_uri);
  ep.security_mode = ua::message_security_mode::none;
  ua::user_token_policy anonymous;
  anonymous.policy_id = "open-sesame";
  anonymous.token_type = ua::user_token_type::anonymous;
  ep.user_identity_tokens = {anonymous};
  c.endpoints.push_back(ep);
  return c;
}

// One request: answered, left unanswered (demo.silent), or the connection dropped (demo.drop).
// Returns false when the connection was closed.
bool serve(server_broker* self, caf::io::connection_handle hdl, server_state::connection& conn, const actors::instant& now) {
  auto& s = self->state;
  auto& ch = *conn.channel;
  const auto& req = ch.request();
  const auto routed = s.sessions->route(req, now);
  if (routed.what == actors::session_manager::routed::action::respond) {
    (void)ch.send_response(req.request_id, *routed.response);
    std::lock_guard lock(s.hooks->mutex);
    s.hooks->sessions = s.sessions->size();
    s.hooks->changed.notify_all();
    return true;
  }
  const std::uint32_t handle = req.header->request_handle;
  if (const auto* r = req.message->get_if<ua::read_request>()) {
    {
      std::lock_guard lock(s.hooks->mutex);
      s.hooks->read_tokens.push_back(req.header->authentication_token);
    }
    for (const auto& id : r->nodes_to_read) {
      if (id.node_id == test::demo("demo.silent")) return true;
      if (id.node_id == test::demo("demo.drop")) {
        self->close(hdl);
        return false;
      }
    }
    services::service_read(*r, s.read, s.space, now.utc);
    s.read.response_header.request_handle = handle;
    (void)ch.send_response(req.request_id, s.read);
  } else if (const auto* w = req.message->get_if<ua::write_request>()) {
    services::service_write(*w, s.write, s.space, now.utc);
    s.write.response_header.request_handle = handle;
    (void)ch.send_response(req.request_id, s.write);
  } else if (const auto* b = req.message->get_if<ua::browse_request>()) {
    services::service_browse(*b, s.browse, s.space, routed.target->browse_points);
    s.browse.response_header.request_handle = handle;
    (void)ch.send_response(req.request_id, s.browse);
  } else if (const auto* cs = req.message->get_if<ua::create_subscription_request>()) {
    ua::create_subscription_response out;
    out.response_header.request_handle = handle;
    out.subscription_id = 42;
    out.revised_publishing_interval = cs->requested_publishing_interval;
    out.revised_max_keep_alive_count = cs->requested_max_keep_alive_count;
    out.revised_lifetime_count = cs->requested_lifetime_count;
    (void)ch.send_response(req.request_id, out);
  } else if (const auto* p = req.message->get_if<ua::publish_request>()) {
    std::lock_guard lock(s.hooks->mutex);
    for (const auto& a : p->subscription_acknowledgements) s.hooks->acks.push_back(a);
    if (s.hooks->too_many_publishes && s.publishes.size() >= s.hooks->too_many_publishes) {
      ++s.hooks->refused_publishes;
      ch.send_service_fault(req.request_id, handle, status::bad_too_many_publish_requests, now.utc);
    } else {
      s.publishes.push_back({hdl, req.request_id, handle});
      ++s.hooks->publishes_waiting;
    }
    s.hooks->changed.notify_all();
  } else if (const auto* rp = req.message->get_if<ua::republish_request>()) {
    std::lock_guard lock(s.hooks->mutex);
    s.hooks->republish_asked.push_back(rp->retransmit_sequence_number);
    s.hooks->changed.notify_all();
    const auto it = s.hooks->retransmit.find(rp->retransmit_sequence_number);
    if (it == s.hooks->retransmit.end()) {
      ch.send_service_fault(req.request_id, handle, status::bad_message_not_available, now.utc);
    } else {
      ua::republish_response out;
      out.response_header.request_handle = handle;
      out.notification_message = it->second;
      (void)ch.send_response(req.request_id, out);
    }
  } else if (const auto* tr = req.message->get_if<ua::transfer_subscriptions_request>()) {
    // Subscription 42 exists (in some other session); any other id does not.
    ua::transfer_subscriptions_response out;
    out.response_header.request_handle = handle;
    for (const auto id : tr->subscription_ids) {
      ua::transfer_result r;
      r.status_code = id == 42 ? status::good : status::bad_subscription_id_invalid;
      out.results.push_back(r);
    }
    (void)ch.send_response(req.request_id, out);
  } else if (req.message->get_if<ua::get_endpoints_request>()) {
    s.endpoints.response_header.request_handle = handle;
    s.endpoints.response_header.timestamp = now.utc;
    s.endpoints.endpoints = s.sessions->config().endpoints;
    (void)ch.send_response(req.request_id, s.endpoints);
  } else {
    ch.send_service_fault(req.request_id, handle, status::bad_service_unsupported, now.utc);
  }
  return true;
}

caf::behavior test_server(server_broker* self, std::shared_ptr<server_hooks> hooks) {
  self->state.hooks = hooks;
  self->state.sessions = std::make_unique<actors::session_manager>(sessions_config(hooks->max_sessions));
  auto doorman = self->add_tcp_doorman(0, "127.0.0.1", true);
  if (!doorman) throw std::runtime_error("test server: no doorman");
  hooks->port.set_value(doorman->second);
  return {
      [self](const caf::io::new_connection_msg& msg) {
        auto& s = self->state;
        actors::secure_channel_config c;
        c.channel_id = s.next_channel++;
        c.min_token_lifetime = s.hooks->min_token_lifetime;
        ++s.hooks->connections;
        auto& conn = s.connections[msg.handle];
        conn.channel = std::make_unique<actors::secure_channel_state>(c, actors::now_instant());
        conn.reader = std::make_unique<ua::chunk_reader>(c.limits);
        self->configure_read(msg.handle, caf::io::receive_policy::at_most(8192));
      },
      [self](const caf::io::new_data_msg& msg) {
        auto& s = self->state;
        const auto it = s.connections.find(msg.handle);
        if (it == s.connections.end()) return;
        auto& conn = it->second;
        std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(msg.buf.data()), msg.buf.size());
        if (!conn.staged.empty()) {
          conn.staged.insert(conn.staged.end(), in.begin(), in.end());
          in = conn.staged;
        }
        const auto now = actors::now_instant();
        bool open = true;
        bool close = false;
        auto used = conn.reader->put(in, [&](const ua::chunk_view& v) {
          if (!open || close) return;
          const bool renewal = v.type == ua::message_type::open && conn.channel->current_phase() ==
                                                                         actors::secure_channel_state::phase::open;
          using ev = actors::secure_channel_state::event;
          switch (conn.channel->on_chunk(v, now)) {
            case ev::acknowledged: conn.reader->set_receive_buffer_size(conn.channel->limits().receive_buffer_size); break;
            case ev::request: open = serve(self, msg.handle, conn, now); break;
            case ev::close:
              if (conn.channel->close_status() == status::good) ++s.hooks->channels_closed_by_client;
              close = true;
              break;
            case ev::none: break;
          }
          if (renewal && ++s.hooks->renewals == 2) s.hooks->renewed_twice.set_value();
        });
        if (!open) {
          s.connections.erase(it);
          return;
        }
        if (used) conn.staged.assign(in.begin() + static_cast<std::ptrdiff_t>(*used), in.end());
        auto& out = conn.channel->output();
        if (!out.empty()) {
          auto& buf = self->wr_buf(msg.handle);
          buf.insert(buf.end(), reinterpret_cast<const char*>(out.data()), reinterpret_cast<const char*>(out.data()) + out.size());
          conn.channel->clear_output();
          self->flush(msg.handle);
        }
        if (close || !used) {
          self->close(msg.handle);
          s.connections.erase(it);
        }
      },
      [self](publish_atom, const std::shared_ptr<ua::publish_response>& r) {
        // The oldest held Publish gets this response.
        auto& s = self->state;
        if (s.publishes.empty()) return;
        const auto held = s.publishes.front();
        s.publishes.pop_front();
        const auto it = s.connections.find(held.hdl);
        if (it == s.connections.end()) return;
        auto& ch = *it->second.channel;
        r->response_header.request_handle = held.handle;
        r->response_header.timestamp = actors::now_instant().utc;
        (void)ch.send_response(held.request_id, *r);
        auto& out = ch.output();
        auto& buf = self->wr_buf(held.hdl);
        buf.insert(buf.end(), reinterpret_cast<const char*>(out.data()), reinterpret_cast<const char*>(out.data()) + out.size());
        ch.clear_output();
        self->flush(held.hdl);
      },
      [self](const caf::io::connection_closed_msg& msg) { self->state.connections.erase(msg.handle); },
      [](const caf::io::acceptor_closed_msg&) {},
  };
}

struct fixture {
  std::shared_ptr<server_hooks> hooks = std::make_shared<server_hooks>();
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  caf::actor server;
  std::string url;

  explicit fixture(std::function<void(server_hooks&)> tune = {}) {
    if (tune) tune(*hooks);
    cfg.load<caf::io::middleman>();
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    auto port = hooks->port.get_future();
    server = system->middleman().spawn_broker(test_server, hooks);
    REQUIRE(port.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    url = "opc.tcp://127.0.0.1:" + std::to_string(port.get());
  }
  ~fixture() {
    caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
    server = nullptr;
  }

  // Answers the oldest Publish the server holds (waiting, bounded, until there is one) with `r`.
  void publish(ua::publish_response r) {
    {
      std::unique_lock lock(hooks->mutex);
      REQUIRE(hooks->changed.wait_for(lock, std::chrono::seconds(10), [&] { return hooks->publishes_waiting > 0; }));
      --hooks->publishes_waiting;
    }
    caf::anon_send(server, publish_atom::value, std::make_shared<ua::publish_response>(std::move(r)));
  }

  client_options options(milliseconds request_timeout = milliseconds(5'000)) const {
    client_options o;
    o.endpoint_url = url;
    o.request_timeout = request_timeout;
    o.connect_timeout = milliseconds(5'000);
    return o;
  }
};

ua::read_request read_of(std::string_view name) {
  ua::read_request r;
  ua::read_value_id id;
  id.node_id = test::demo(name);
  id.attribute_id = 13;
  r.nodes_to_read.push_back(id);
  return r;
}

}  // namespace

TEST_CASE("client: parse_endpoint_url takes host and port, and refuses what is not opc.tcp", "[actors][client]") {
  auto a = actors::parse_endpoint_url("opc.tcp://127.0.0.1:4841/path");
  REQUIRE(a.has_value());
  REQUIRE(a->host == "127.0.0.1");
  REQUIRE(a->port == 4841);
  REQUIRE(actors::parse_endpoint_url("opc.tcp://plc")->port == 4840);
  REQUIRE(actors::parse_endpoint_url("opc.tcp://[::1]:48")->host == "::1");
  REQUIRE(actors::parse_endpoint_url("http://x:1").error() == status::bad_tcp_endpoint_url_invalid);
  REQUIRE(actors::parse_endpoint_url("opc.tcp://x:70000").error() == status::bad_tcp_endpoint_url_invalid);
  REQUIRE(actors::parse_endpoint_url("opc.tcp://:1").error() == status::bad_tcp_endpoint_url_invalid);
}

TEST_CASE("client: connects, reads, writes, reads back, browses and closes", "[actors][client]") {
  fixture f;
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());

  auto r = c->read_sync(read_of("demo.int32"));
  REQUIRE(r.has_value());
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0].value == ua::variant(std::int32_t{7}));

  ua::write_request w;
  ua::write_value wv;
  wv.node_id = test::demo("demo.int32");
  wv.attribute_id = 13;
  wv.value.set_value(std::int32_t{-5});
  w.nodes_to_write.push_back(wv);
  auto wr = c->write_sync(w);
  REQUIRE(wr.has_value());
  REQUIRE(wr->results == ua::ua_array<ua::status_code>{status::good});
  REQUIRE(c->read_sync(read_of("demo.int32"))->results[0].value == ua::variant(std::int32_t{-5}));

  ua::browse_request b;
  ua::browse_description d;
  d.node_id = ua::node_id(0, 85);
  d.reference_type_id = ua::node_id(0, 35);
  d.result_mask = 63;
  b.nodes_to_browse.push_back(d);
  auto br = c->browse_sync(b);
  REQUIRE(br.has_value());
  bool found = false;
  for (const auto& ref : br->results.at(0).references) found |= ref.node_id.id == test::demo("demo.int32");
  REQUIRE(found);

  REQUIRE(c->close() == status::good);
  REQUIRE(c->read_sync(read_of("demo.int32")).error() == status::bad_connection_closed);
}

TEST_CASE("client: many requests in flight are each answered with their own response", "[actors][client]") {
  fixture f;
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  constexpr int n = 50;
  std::vector<std::promise<ua::expected<ua::read_response>>> answers(n);
  for (int i = 0; i < n; ++i)
    c->read(read_of(i % 2 ? "demo.double" : "demo.string"),
            [&answers, i](ua::expected<ua::read_response> r) { answers[static_cast<std::size_t>(i)].set_value(std::move(r)); });
  for (int i = 0; i < n; ++i) {
    auto fut = answers[static_cast<std::size_t>(i)].get_future();
    REQUIRE(fut.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    auto r = fut.get();
    REQUIRE(r.has_value());
    if (i % 2) REQUIRE(r->results.at(0).value == ua::variant(3.5));
    else REQUIRE(r->results.at(0).value == ua::variant(ua::ua_string("hello world")));
  }
  c->close();
}

namespace {
std::size_t count_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// The process's count once it holds still: the server's and CAF's threads open and close
// descriptors of their own (a closing connection, a loaded library) while the test counts, which
// made the difference off by one in a loaded CI run. Bounded: at most 2 s.
std::size_t open_descriptors() {
  auto last = count_descriptors();
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto now = count_descriptors();
    if (now == last) return now;
    last = now;
  }
  return last;
}
}  // namespace

TEST_CASE("client: message wake-ups: calls from threads and from callbacks are answered, two descriptors fewer",
          "[actors][client]") {
  fixture f;
  auto options = f.options();
  options.inbox_wake_up = uactor::inbox_wake_up::message;
  const auto before = open_descriptors();
  auto c = client::connect(*f.system, options);
  REQUIRE(c.has_value());
  const auto with_message = open_descriptors() - before;  // the client's connection and the server's end
  {
    const auto before_pair = open_descriptors();
    auto paired = client::connect(*f.system, f.options());
    REQUIRE(paired.has_value());
    REQUIRE(open_descriptors() - before_pair == with_message + 2);  // and the socket pair
    paired->close();
  }

  // Four threads, 25 reads each, and every answer's callback sends one more read from the actor's
  // thread (no wake-up needed there): 200 answers.
  constexpr int threads = 4, per_thread = 25;
  std::atomic<int> good{0}, answered{0};
  std::promise<void> all;
  auto count = [&](const ua::expected<ua::read_response>& r) {
    if (r && r->results.at(0).value == ua::variant(3.5)) ++good;
    if (++answered == 2 * threads * per_thread) all.set_value();
  };
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t)
    senders.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i)
        c->read(read_of("demo.double"), [&](ua::expected<ua::read_response> r) {
          count(r);
          c->read(read_of("demo.double"), [&](ua::expected<ua::read_response> again) { count(again); });
        });
    });
  for (auto& t : senders) t.join();
  REQUIRE(all.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  REQUIRE(good == 2 * threads * per_thread);
  REQUIRE(c->close() == status::good);
  REQUIRE(c->read_sync(read_of("demo.double")).error() == status::bad_connection_closed);
}

TEST_CASE("client: a request without an answer gets Bad_Timeout, and the next one is answered", "[actors][client]") {
  fixture f;
  auto c = client::connect(*f.system, f.options(milliseconds(300)));
  REQUIRE(c.has_value());
  REQUIRE(c->read_sync(read_of("demo.silent")).error() == status::bad_timeout);
  REQUIRE(c->read_sync(read_of("demo.double"))->results.at(0).value == ua::variant(3.5));
  c->close();
}

TEST_CASE("client: a lost connection fails every outstanding request with Bad_ConnectionClosed", "[actors][client]") {
  fixture f;
  auto c = client::connect(*f.system, f.options(milliseconds(10'000)));
  REQUIRE(c.has_value());
  std::promise<ua::status_code> silent;
  c->read(read_of("demo.silent"), [&](ua::expected<ua::read_response> r) { silent.set_value(r.error()); });
  REQUIRE(c->read_sync(read_of("demo.drop")).error() == status::bad_connection_closed);
  auto fut = silent.get_future();
  REQUIRE(fut.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  REQUIRE(fut.get() == status::bad_connection_closed);
  REQUIRE(c->read_sync(read_of("demo.double")).error() == status::bad_connection_closed);
}

TEST_CASE("client: a refused CreateSession fails connect with the server's status", "[actors][client]") {
  fixture f([](server_hooks& h) { h.max_sessions = 0; });
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.error() == status::bad_too_many_sessions);
}

TEST_CASE("client: GetEndpoints over a channel without a session", "[actors][client]") {
  fixture f;
  auto o = f.options();
  o.create_session = false;
  auto c = client::connect(*f.system, o);
  REQUIRE(c.has_value());
  ua::get_endpoints_request req;
  req.endpoint_url = ua::ua_string(f.url);
  auto r = c->get_endpoints_sync(req);
  REQUIRE(r.has_value());
  REQUIRE(r->endpoints.size() == 1);
  REQUIRE(r->endpoints[0].user_identity_tokens.at(0).policy_id.view() == "open-sesame");
  // A session service without a session: the server's ServiceFault becomes the status.
  REQUIRE(c->read_sync(read_of("demo.double")).error() == status::bad_session_id_invalid);
  c->close();
}

TEST_CASE("client: the token is renewed before it expires and requests keep working", "[actors][client]") {
  fixture f([](server_hooks& h) { h.min_token_lifetime = milliseconds(400); });
  auto o = f.options();
  o.token_lifetime = milliseconds(400);  // renewed every 300 ms; the server would close at 500 ms
  auto c = client::connect(*f.system, o);
  REQUIRE(c.has_value());
  auto renewed = f.hooks->renewed_twice.get_future();
  REQUIRE(renewed.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  REQUIRE(c->read_sync(read_of("demo.double"))->results.at(0).value == ua::variant(3.5));
  REQUIRE(c->close() == status::good);
}

TEST_CASE("client: close sends CloseSession and CloseSecureChannel", "[actors][client]") {
  fixture f;
  {
    auto c = client::connect(*f.system, f.options());
    REQUIRE(c.has_value());
    REQUIRE(c->close() == status::good);
  }
  // The server has seen the CLO once the connection is gone; a fresh client still connects.
  auto c2 = client::connect(*f.system, f.options());
  REQUIRE(c2.has_value());
  REQUIRE(c2->close() == status::good);
  REQUIRE(f.hooks->channels_closed_by_client.load() >= 1);
}

TEST_CASE("client: connect with its own actor system, a malformed endpoint URL is refused", "[actors][client]") {
  fixture f;
  auto c = client::connect(f.options());
  REQUIRE(c.has_value());
  REQUIRE(c->read_sync(read_of("demo.double"))->results.at(0).value == ua::variant(3.5));
  REQUIRE(c->close() == status::good);
  client_options malformed;
  malformed.endpoint_url = "not a url";
  auto bad = client::connect(malformed);
  REQUIRE(bad.error() == status::bad_tcp_endpoint_url_invalid);
}

// ---- subscriptions through the connection actor (the engine alone: client_subscription_test.cpp)

namespace {

ua::publish_response data_message(std::uint32_t seq, std::int32_t value) {
  ua::publish_response r;
  r.subscription_id = 42;
  r.notification_message.sequence_number = seq;
  ua::data_change_notification dc;
  ua::monitored_item_notification n;
  n.client_handle = 1;
  n.value.set_value(value);
  dc.monitored_items.push_back(n);
  r.notification_message.notification_data.push_back(ua::extension_object(std::move(dc)));
  return r;
}

ua::publish_response keep_alive(std::uint32_t next_seq) {
  ua::publish_response r;
  r.subscription_id = 42;
  r.notification_message.sequence_number = next_seq;
  return r;
}

struct sub_seen {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::int32_t> values;
  std::vector<subscription_status> statuses;

  subscription_handlers handlers() {
    subscription_handlers h;
    h.on_data = [this](std::uint32_t sub, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
      std::lock_guard lock(mutex);
      if (sub != 42) return;
      for (const auto& c : changes) values.push_back(*c.value.value.get_if<std::int32_t>());
      cv.notify_all();
    };
    h.on_status = [this](const subscription_status& st) {
      std::lock_guard lock(mutex);
      statuses.push_back(st);
      cv.notify_all();
    };
    return h;
  }
  template <class Pred>
  bool wait(Pred p, std::chrono::milliseconds timeout = std::chrono::milliseconds(10'000)) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, timeout, [&] { return p(*this); });
  }
};

template <class Pred>
bool wait_server(server_hooks& h, Pred p) {
  std::unique_lock lock(h.mutex);
  return h.changed.wait_for(lock, std::chrono::seconds(10), [&] { return p(h); });
}

bool acked(const server_hooks& h, std::uint32_t seq) {
  for (const auto& a : h.acks)
    if (a.subscription_id == 42 && a.sequence_number == seq) return true;
  return false;
}

}  // namespace

TEST_CASE("client: a subscription keeps two Publish requests at the server, acknowledges, and fills a gap by Republish",
          "[actors][client_subscription]") {
  fixture f;
  {
    std::lock_guard lock(f.hooks->mutex);
    ua::notification_message third = data_message(3, 30).notification_message;
    f.hooks->retransmit[3] = third;
  }
  sub_seen seen;  // outlives the client, whose handlers write into it
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  subscription_settings settings;
  settings.publishing_interval = milliseconds(100);
  auto created = c->create_subscription_sync(settings, seen.handlers());
  REQUIRE(created.has_value());
  REQUIRE(created->subscription_id == 42);
  // One subscription: one Publish for it and one spare.
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.publishes_waiting == 2; }));

  f.publish(data_message(1, 10));
  f.publish(data_message(2, 20));
  f.publish(data_message(4, 40));  // 3 is missing: Republish 3 (the server has it)
  REQUIRE(seen.wait([](auto& s) { return s.values.size() == 4; }));  // 3 arrives late, before 6 is sent
  f.publish(data_message(6, 60));  // 5 is missing: Republish 5 (gone: Bad_MessageNotAvailable)
  REQUIRE(seen.wait([](auto& s) { return s.values.size() == 5 && !s.statuses.empty(); }));
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.values == std::vector<std::int32_t>{10, 20, 40, 30, 60});
    REQUIRE(seen.statuses.size() == 1);
    CHECK(seen.statuses[0].what == subscription_event::data_lost);
    CHECK(seen.statuses[0].sequence_number == 5);
    CHECK(seen.statuses[0].status == status::bad_message_not_available);
  }
  {
    std::lock_guard lock(f.hooks->mutex);
    CHECK(f.hooks->republish_asked == std::vector<std::uint32_t>{3, 5});
  }
  // Every received number is acknowledged with a later Publish; keep-alives are not.
  f.publish(keep_alive(7));
  REQUIRE(wait_server(*f.hooks, [](auto& h) {
    return acked(h, 1) && acked(h, 2) && acked(h, 3) && acked(h, 4) && acked(h, 6);
  }));
  {
    std::lock_guard lock(f.hooks->mutex);
    CHECK_FALSE(acked(*f.hooks, 5));
    CHECK_FALSE(acked(*f.hooks, 7));
  }
  REQUIRE(c->close() == status::good);
}

TEST_CASE("client: a subscription the server stops answering is reported silent, then recovered",
          "[actors][client_subscription]") {
  fixture f;
  sub_seen seen;  // outlives the client, whose handlers write into it
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  subscription_settings settings;
  settings.publishing_interval = milliseconds(50);
  settings.max_keep_alive_count = 2;  // 100 ms keep-alive period: silent after 600 ms
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(c->create_subscription_sync(settings, seen.handlers()).has_value());
  REQUIRE(seen.wait([](auto& s) { return !s.statuses.empty(); }, milliseconds(5000)));
  CHECK(std::chrono::steady_clock::now() - start >= milliseconds(600));
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.statuses[0].what == subscription_event::silent);
  }
  f.publish(keep_alive(1));
  REQUIRE(seen.wait([](auto& s) { return s.statuses.size() >= 2; }));
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.statuses[1].what == subscription_event::recovered);
  }
  REQUIRE(c->close() == status::good);
}

TEST_CASE("client: Bad_TooManyPublishRequests lowers the number of Publish requests kept at the server",
          "[actors][client_subscription]") {
  fixture f([](server_hooks& h) { h.too_many_publishes = 1; });
  sub_seen seen;  // outlives the client, whose handlers write into it
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  REQUIRE(c->create_subscription_sync(subscription_settings{}, seen.handlers()).has_value());
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.publishes_waiting == 1 && h.refused_publishes == 1; }));
  // Data still flows through the one request the server keeps, and no more are refused.
  for (std::uint32_t seq = 1; seq <= 5; ++seq) f.publish(data_message(seq, static_cast<std::int32_t>(seq)));
  REQUIRE(seen.wait([](auto& s) { return s.values.size() == 5; }));
  {
    std::lock_guard lock(f.hooks->mutex);
    CHECK(f.hooks->refused_publishes == 1);
  }
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.statuses.empty());
  }
  REQUIRE(c->close() == status::good);
}

TEST_CASE("client: a lost connection closes the subscriptions with a status", "[actors][client_subscription]") {
  fixture f;
  sub_seen seen;  // outlives the client, whose handlers write into it
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  REQUIRE(c->create_subscription_sync(subscription_settings{}, seen.handlers()).has_value());
  REQUIRE(c->read_sync(read_of("demo.drop")).error() == status::bad_connection_closed);
  REQUIRE(seen.wait([](auto& s) { return !s.statuses.empty(); }));
  std::lock_guard lock(seen.mutex);
  CHECK(seen.statuses.back().what == subscription_event::closed);
  CHECK(seen.statuses.back().status.is_bad());
}

TEST_CASE("client: TransferSubscriptions adopts the subscriptions the server transferred and publishes for them",
          "[actors][client_subscription]") {
  fixture f;
  sub_seen seen;  // outlives the client, whose handlers write into it
  sub_seen other;
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  ua::transfer_subscriptions_request req;
  req.subscription_ids = {42, 77};
  req.send_initial_values = true;
  // One target per id, each with a fast handler, or nothing goes out.
  REQUIRE(c->transfer_subscriptions_sync(req, std::vector<subscription_transfer>(2)).error() == status::bad_invalid_argument);
  std::vector<subscription_transfer> targets(2);
  targets[0].handlers = seen.handlers();
  targets[0].revised_publishing_interval_ms = 100;
  targets[0].revised_max_keep_alive_count = 10;
  targets[1].handlers = other.handlers();
  auto r = c->transfer_subscriptions_sync(req, std::move(targets));
  REQUIRE(r.has_value());
  REQUIRE(r->results.size() == 2);
  CHECK(r->results[0].status_code == status::good);
  CHECK(r->results[1].status_code == status::bad_subscription_id_invalid);
  // 42 adopted (one Publish for it plus the spare), 77 dropped again.
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.publishes_waiting == 2; }));
  f.publish(data_message(17, 170));  // the server's numbering goes on from the old session
  f.publish(data_message(18, 180));
  REQUIRE(seen.wait([](auto& s) { return s.values.size() == 2; }));
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return acked(h, 17) && acked(h, 18); }));
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.values == std::vector<std::int32_t>{170, 180});
    CHECK(seen.statuses.empty());
  }
  {
    std::lock_guard lock(f.hooks->mutex);
    CHECK(f.hooks->republish_asked.empty());
  }
  REQUIRE(c->close() == status::good);
  // Closed by the application: `closed` Good to the adopted one; nothing ever to the refused one.
  {
    std::lock_guard lock(seen.mutex);
    REQUIRE(seen.statuses.size() == 1);
    CHECK(seen.statuses[0].what == subscription_event::closed);
    CHECK(seen.statuses[0].status == status::good);
  }
  std::lock_guard lock(other.mutex);
  CHECK(other.statuses.empty());
  CHECK(other.values.empty());
}

TEST_CASE("client: open_session: two sessions over one channel both read and write, and close() closes both",
          "[actors][client]") {
  fixture f;
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.sessions == 1; }));
  auto second = c->open_session_sync("second");
  REQUIRE(second.has_value());
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.sessions == 2; }));
  CHECK(f.hooks->connections == 1);  // one TCP connection, one secure channel
  // Each session reads; a value written through the second is read back through the first.
  auto first_read = c->read_sync(read_of("demo.double"));
  auto second_read = second->read_sync(read_of("demo.double"));
  REQUIRE(first_read.has_value());
  REQUIRE(second_read.has_value());
  CHECK(first_read->results.at(0).value == second_read->results.at(0).value);
  ua::write_request w;
  ua::write_value wv;
  wv.node_id = test::demo("demo.int32");
  wv.attribute_id = 13;
  wv.value.set_value(ua::variant(std::int32_t{-825}));
  w.nodes_to_write.push_back(wv);
  auto written = second->write_sync(w);
  REQUIRE(written.has_value());
  CHECK(written->results.at(0) == status::good);
  CHECK(c->read_sync(read_of("demo.int32"))->results.at(0).value == ua::variant(std::int32_t{-825}));
  {
    // The server saw the reads under two different sessions (both tokens valid: answered).
    std::lock_guard lock(f.hooks->mutex);
    REQUIRE(f.hooks->read_tokens.size() == 3);
    CHECK_FALSE(f.hooks->read_tokens[0].is_null());
    CHECK_FALSE(f.hooks->read_tokens[1].is_null());
    CHECK(f.hooks->read_tokens[0] != f.hooks->read_tokens[1]);
    CHECK(f.hooks->read_tokens[2] == f.hooks->read_tokens[0]);
  }
  // A third one, then close(): CloseSession for each session, then the channel.
  auto third = c->open_session_sync();
  REQUIRE(third.has_value());
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.sessions == 3; }));
  REQUIRE(c->close() == status::good);
  REQUIRE(wait_server(*f.hooks, [](auto& h) { return h.sessions == 0; }));
  CHECK(second->read_sync(read_of("demo.double")).error() == status::bad_connection_closed);
  CHECK(c->open_session_sync().error() == status::bad_connection_closed);
}

TEST_CASE("client: open_session refused by the server (Bad_TooManySessions) leaves the connection working",
          "[actors][client]") {
  fixture f([](server_hooks& h) { h.max_sessions = 1; });
  auto c = client::connect(*f.system, f.options());
  REQUIRE(c.has_value());
  auto second = c->open_session_sync();
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error() == status::bad_too_many_sessions);
  CHECK(c->read_sync(read_of("demo.double")).has_value());
  REQUIRE(c->close() == status::good);
}
