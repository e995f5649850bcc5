// The session crypto off the shared thread (docs/decisions/0022): the real session host actor with
// a real crypto pool, secured sessions (Basic256Sha256 SignAndEncrypt, a UserName login checked
// against its PBKDF2 hash), batches sent as a connection sends them. What must hold: a request
// right behind an ActivateSession waits for it and sees the session active; with the pool's
// queue full a newcomer is refused at once with Bad_ServerTooBusy while an established session is
// served; an OpenSecureChannel over a real socket goes through a worker, and beyond the queue gets
// Bad_TcpServerTooBusy. A blocker task the test releases holds the queue full: nothing here
// depends on timing.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "engine/common/channel_crypto.hpp"
#include "actors/common/tune_io.hpp"
#include "actors/server/crypto_workers.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "actors/server/exchange.hpp"
#include "actors/server/server_actors.hpp"
#include "engine/server/services/discovery.hpp"
#include "actors/server/session_host_actor.hpp"
#include "protocol/message.hpp"
#include "security/certificate.hpp"
#include "security/password_hash.hpp"
#include "security/policy.hpp"
#include "security/session_crypto.hpp"
#include "uactor/client.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_crypto_workers_test {

using namespace uactor;
using namespace std::chrono_literals;
namespace status = ua::status;

namespace {

constexpr std::uint32_t secured_channel = 5;
constexpr const char* client_uri = "urn:test:crypto:client";

const security::security_policy& basic256sha256() { return *security::find_policy(security::policy_uri_basic256sha256); }

struct test_keys {
  security::application_identity server;
  security::application_identity client;
};

const test_keys& keys() {
  static const test_keys k = [] {
    const auto make = [](const char* uri) {
      security::certificate_request r;
      r.application_uri = uri;
      r.host_names = {"localhost", "127.0.0.1"};
      auto id = security::create_self_signed(r, security::system_now());
      REQUIRE(id);
      return std::move(*id);
    };
    return test_keys{make("urn:test:crypto:server"), make(client_uri)};
  }();
  return k;
}

struct trust_all final : actors::certificate_checker {
  security::validation_result check(const security::certificate&, std::span<const security::certificate>,
                                    const security::validation_options&, ua::date_time) override {
    return {status::good, {}, {}};
  }
};

std::shared_ptr<actors::server_security> make_security() {
  auto sec = std::make_shared<actors::server_security>();
  sec->offers = {actors::security_offer{&basic256sha256(), ua::message_security_mode::sign_and_encrypt}};
  sec->certificate = keys().server.cert;
  sec->private_key = keys().server.private_key;
  sec->checker = std::make_shared<trust_all>();
  auto users = std::make_shared<security::user_store>();
  users->add("alice", "alice-pw", 1000);
  sec->identities.users.set(std::move(users));
  return sec;
}

actors::server_core make_core(const std::shared_ptr<actors::server_security>& sec, std::uint16_t port = 4840) {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:crypto:server";
  c.description.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.sessions.security = sec;
  c.sessions.endpoints = services::make_endpoints(c.description, *sec);
  return actors::make_demo_server_core(std::move(c), "test", security::system_now());
}

// Holds a worker (and one place in the queue) until released.
struct blocker final : actors::crypto_task {
  blocker() : crypto_task(kind::session_check) {}
  void run() override {
    started.set_value();
    gate.get_future().wait();
  }
  std::promise<void> started;
  std::promise<void> gate;
};

caf::actor_system_config& configure(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

// A session as a connection of channel `secured_channel` drives the host: batches in, batches back.
struct session_driver {
  session_driver(caf::scoped_actor& s, caf::actor h) : self(s), host(std::move(h)) {}
  caf::scoped_actor& self;
  caf::actor host;
  ua::node_id token;
  ua::byte_string server_nonce;
  std::uint32_t handle = 0;
  std::uint32_t request_id = 0;

  template <class T>
  void add(actors::exchange_batch& b, T req) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    auto& x = b.next();
    x.request_id = ++request_id;
    x.header = req.request_header;
    x.request = ua::extension_object(std::move(req));
  }

  actors::batch_ptr round_trip(actors::batch_ptr b) {
    b->channel_id = secured_channel;
    self->send(host, b);
    actors::batch_ptr back;
    self->receive([&](actors::batch_ptr& r) { back = std::move(r); }, caf::after(10s) >> [] { FAIL("no batch back"); });
    REQUIRE(back == b);
    return back;
  }

  static ua::extension_object decode(const actors::exchange& x) {
    ua::extension_object r;
    REQUIRE(ua::decode_message(x.response.bytes(), r) == status::good);
    return r;
  }
  static ua::status_code result_of(const ua::extension_object& r) {
    if (const auto* f = r.get_if<ua::service_fault>()) return f->response_header.service_result;
    return status::good;
  }

  ua::create_session_request create_request() const {
    ua::create_session_request create;
    create.requested_session_timeout = 600'000;
    create.client_description.application_uri = ua::ua_string(client_uri);
    create.client_certificate = actors::to_byte_string(keys().client.cert.der());
    create.client_nonce = ua::byte_string(std::string(32, 'n'));
    return create;
  }

  ua::activate_session_request activate_request(const char* password = "alice-pw") const {
    ua::activate_session_request activate;
    ua::user_name_identity_token t;
    t.policy_id = ua::ua_string(services::user_name_policy_id);
    t.user_name = ua::ua_string("alice");
    t.password = ua::byte_string(password);  // in clear: the channel encrypts (Part 4 §7.41.2.2)
    activate.user_identity_token = ua::extension_object(std::move(t));
    activate.client_signature.algorithm = ua::ua_string(basic256sha256().signature_algorithm_uri);
    activate.client_signature.signature = security::sign(
        basic256sha256(), keys().client.private_key, actors::signed_data(keys().server.cert.der(), actors::bytes_of(server_nonce)));
    return activate;
  }

  ua::status_code create() {
    auto b = std::make_shared<actors::exchange_batch>();
    add(*b, create_request());
    const auto r = decode(round_trip(b)->items[0]);
    if (const auto* c = r.get_if<ua::create_session_response>()) {
      token = c->authentication_token;
      server_nonce = c->server_nonce;
      // Part 4 §5.7.2.2: the server's signature over our certificate and nonce, made on a worker.
      const std::vector<std::uint8_t> nonce(32, 'n');
      CHECK(security::verify(basic256sha256(), keys().server.cert.public_key(),
                             actors::signed_data(keys().client.cert.der(), nonce),
                             actors::bytes_of(c->server_signature.signature)));
    }
    return result_of(r);
  }
};

ua::read_request read_state() {
  ua::read_request read;
  read.nodes_to_read.resize(1);
  read.nodes_to_read[0].node_id = ua::node_id(0, 2259);  // Server_ServerStatus_State
  read.nodes_to_read[0].attribute_id = 13;
  return read;
}

}  // namespace

TEST_CASE("crypto workers: a Read right behind an ActivateSession waits for it and sees the session active",
          "[security][crypto_workers]") {
  caf::actor_system_config cfg;
  caf::actor_system sys(configure(cfg));
  auto sec = make_security();
  sec->channels.put(secured_channel, {&basic256sha256(), ua::message_security_mode::sign_and_encrypt, keys().client.cert});
  auto pool = std::make_shared<actors::crypto_pool>(sys, actors::crypto_pool_options{1, 8, 0});
  auto host = actors::spawn_session_host(sys, make_core(sec), 1s, actors::host_thread::scheduler, pool);
  pool->bind_lifetime(host);
  {
    caf::scoped_actor self(sys);
    session_driver s{self, host};
    REQUIRE(s.create() == status::good);
    CHECK(pool->completed() == 1);  // the server signature

    // One batch, as a client that pipelines sends it: ActivateSession (signature + PBKDF2 on the
    // worker), then a Read and a second Read with the new session's token.
    auto b = std::make_shared<actors::exchange_batch>();
    s.add(*b, s.activate_request());
    s.add(*b, read_state());
    s.add(*b, read_state());
    const auto back = s.round_trip(b);
    REQUIRE(back->size == 3);
    CHECK(pool->completed() == 2);
    const auto activated = session_driver::decode(back->items[0]);
    REQUIRE(session_driver::result_of(activated) == status::good);
    REQUIRE(activated.get_if<ua::activate_session_response>());
    for (std::size_t i = 1; i < 3; ++i) {
      const auto r = session_driver::decode(back->items[i]);
      INFO("Read " << i << ": " << session_driver::result_of(r).name());
      const auto* read = r.get_if<ua::read_response>();
      REQUIRE(read);  // not a ServiceFault Bad_SessionNotActivated
      REQUIRE(read->results.size() == 1);
      CHECK(read->results[0].status.is_good());
      CHECK(read->response_header.request_handle == back->items[i].header.request_handle);
    }

    // A wrong password is still refused (the worker's verdict applied, not a blanket Good).
    session_driver t{self, host};
    REQUIRE(t.create() == status::good);
    auto bad = std::make_shared<actors::exchange_batch>();
    t.add(*bad, t.activate_request("nope"));
    t.add(*bad, read_state());
    const auto refused = t.round_trip(bad);
    CHECK(session_driver::result_of(session_driver::decode(refused->items[0])) == status::bad_user_access_denied);
    CHECK(session_driver::result_of(session_driver::decode(refused->items[1])) == status::bad_session_not_activated);
  }
  caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
}

TEST_CASE("crypto workers: with the queue full a newcomer gets Bad_ServerTooBusy at once, the established are served",
          "[security][crypto_workers]") {
  caf::actor_system_config cfg;
  caf::actor_system sys(configure(cfg));
  auto sec = make_security();
  sec->channels.put(secured_channel, {&basic256sha256(), ua::message_security_mode::sign_and_encrypt, keys().client.cert});
  auto pool = std::make_shared<actors::crypto_pool>(sys, actors::crypto_pool_options{1, 1, 0});
  auto host = actors::spawn_session_host(sys, make_core(sec), 1s, actors::host_thread::scheduler, pool);
  pool->bind_lifetime(host);
  {
    caf::scoped_actor self(sys);
    session_driver established{self, host};
    REQUIRE(established.create() == status::good);
    auto act = std::make_shared<actors::exchange_batch>();
    established.add(*act, established.activate_request());
    REQUIRE(session_driver::result_of(session_driver::decode(established.round_trip(act)->items[0])) == status::good);

    auto block = std::make_shared<blocker>();
    REQUIRE(pool->submit(block));
    REQUIRE(pool->queued() == 1);

    session_driver newcomer{self, host};
    CHECK(newcomer.create() == status::bad_server_too_busy);
    CHECK(pool->refused() == 1);
    // The established session's Read is answered while the worker is held.
    auto read = std::make_shared<actors::exchange_batch>();
    established.add(*read, read_state());
    const auto r = session_driver::decode(established.round_trip(read)->items[0]);
    REQUIRE(r.get_if<ua::read_response>());

    block->gate.set_value();
    for (int i = 0; i < 500 && pool->queued() != 0; ++i) std::this_thread::sleep_for(2ms);
    REQUIRE(pool->queued() == 0);
    CHECK(newcomer.create() == status::good);
  }
  caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
}

TEST_CASE("crypto workers: an OpenSecureChannel over a socket is answered by a worker, beyond the queue "
          "Bad_TcpServerTooBusy", "[security][crypto_workers]") {
  caf::actor_system_config cfg;
  configure(cfg);
  actors::tune_io(cfg);
  caf::actor_system sys(cfg);
  auto sec = make_security();
  actors::server_options o;
  o.listen_address = "127.0.0.1";
  o.port = 0;
  o.connection.channel.security = sec;
  o.connection.housekeeping_interval = 50ms;
  o.crypto = {1, 1, 0};
  auto h = actors::spawn_server(sys, o, [&](std::uint16_t port) { return make_core(sec, port); });
  REQUIRE(h);
  REQUIRE(h->crypto);

  const auto pki = std::filesystem::temp_directory_path() / ("uactor-crypto-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(pki);
  client_options co;
  co.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(h->port);
  co.request_timeout = 5s;
  co.security.policy = "Basic256Sha256";
  co.security.mode = ua::message_security_mode::sign_and_encrypt;
  co.security.pki_dir = pki.string();
  co.security.application_uri = client_uri;
  co.security.accept_untrusted_server_certificate = true;
  co.security.identity.type = uactor::client_identity::kind::user_name;
  co.security.identity.user_name = "alice";
  co.security.identity.password = "alice-pw";

  caf::actor_system_config ccfg;
  caf::actor_system client_sys(configure_client_system(ccfg));
  {
    auto block = std::make_shared<blocker>();
    REQUIRE(h->crypto->submit(block));
    auto refused = client::connect(client_sys, co);
    REQUIRE_FALSE(refused);
    CHECK(refused.error() == status::bad_tcp_server_too_busy);
    block->gate.set_value();
  }
  for (int i = 0; i < 500 && h->crypto->queued() != 0; ++i) std::this_thread::sleep_for(2ms);
  const auto before = h->crypto->completed();
  auto c = client::connect(client_sys, co);
  INFO((c ? "" : c.error().to_string()));
  REQUIRE(c);
  // OPN, CreateSession, ActivateSession: each through the worker.
  CHECK(h->crypto->completed() - before == 3);
  auto r = c->read_sync(read_state());
  REQUIRE(r);
  CHECK(r->results[0].status.is_good());
  c->close();
  actors::stop_server(*h);
  std::filesystem::remove_all(pki);
}

TEST_CASE("crypto workers: CreateSession and ActivateSession with certificate chains (Part 4 §5.6.2.2, §5.7.3.2)",
          "[security][crypto_workers][chain]") {
  caf::actor_system_config cfg;
  caf::actor_system sys(configure(cfg));
  // Any certificate stands in for an issuer: the channel validated the chain, the session compares leaves.
  const auto& stand_in = keys().server.cert;
  for (const bool with_pool : {true, false}) {
    INFO((with_pool ? "signatures on a crypto worker" : "signatures on the session host"));
    auto sec = make_security();
    sec->certificate_issuers = {stand_in};
    sec->channels.put(secured_channel, {&basic256sha256(), ua::message_security_mode::sign_and_encrypt, keys().client.cert});
    auto pool = with_pool ? std::make_shared<actors::crypto_pool>(sys, actors::crypto_pool_options{1, 8, 0}) : nullptr;
    auto host = actors::spawn_session_host(sys, make_core(sec), 1s, actors::host_thread::scheduler, pool);
    if (pool) pool->bind_lifetime(host);
    {
      caf::scoped_actor self(sys);
      const auto chain = security::chain_der(keys().client.cert, std::vector<security::certificate>{stand_in});

      // A ClientCertificate with garbage after the leaf: Bad_CertificateInvalid.
      session_driver bad{self, host};
      auto garbage = bad.create_request();
      auto bytes = chain;
      bytes.resize(keys().client.cert.der().size() + 3);
      garbage.client_certificate = actors::to_byte_string(bytes);
      auto b = std::make_shared<actors::exchange_batch>();
      bad.add(*b, garbage);
      CHECK(session_driver::result_of(session_driver::decode(bad.round_trip(b)->items[0])) == status::bad_certificate_invalid);

      // The client's chain: the leaf is the channel's; the ServerSignature is over the leaf.
      session_driver s{self, host};
      auto create = s.create_request();
      create.client_certificate = actors::to_byte_string(chain);
      b = std::make_shared<actors::exchange_batch>();
      s.add(*b, create);
      const auto created = session_driver::decode(s.round_trip(b)->items[0]);
      const auto* resp = created.get_if<ua::create_session_response>();
      REQUIRE(resp);
      s.token = resp->authentication_token;
      s.server_nonce = resp->server_nonce;
      // The server sends its chain; it signed our leaf and nonce.
      CHECK(std::ranges::equal(actors::bytes_of(resp->server_certificate),
                               security::chain_der(keys().server.cert, sec->certificate_issuers)));
      const std::vector<std::uint8_t> nonce(32, 'n');
      CHECK(security::verify(basic256sha256(), keys().server.cert.public_key(),
                             actors::signed_data(keys().client.cert.der(), nonce),
                             actors::bytes_of(resp->server_signature.signature)));

      // A client of before 1.05 signs the server's whole chain: accepted (the backward compatibility).
      auto activate = s.activate_request();
      activate.client_signature.signature = security::sign(
          basic256sha256(), keys().client.private_key,
          actors::signed_data(actors::bytes_of(resp->server_certificate), actors::bytes_of(s.server_nonce)));
      b = std::make_shared<actors::exchange_batch>();
      s.add(*b, activate);
      const auto activated = session_driver::decode(s.round_trip(b)->items[0]);
      CHECK(session_driver::result_of(activated) == status::good);
      const auto* act = activated.get_if<ua::activate_session_response>();
      REQUIRE(act);
      s.server_nonce = act->server_nonce;
      // The leaf-only signature of a 1.05 client, on the next activation: accepted too.
      b = std::make_shared<actors::exchange_batch>();
      s.add(*b, s.activate_request());
      CHECK(session_driver::result_of(session_driver::decode(s.round_trip(b)->items[0])) == status::good);
    }
    caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
  }
}

namespace {

// A task that notes when it ran, in the order of all such tasks. The slot is atomic: the test
// reads it after the pool's counters (relaxed) say the worker is done, which orders nothing.
struct ordered_task final : actors::crypto_task {
  ordered_task(std::atomic<int>& next, std::atomic<int>& slot) : crypto_task(kind::session_check), next_(next), slot_(slot) {}
  void run() override { slot_ = next_.fetch_add(1); }
  std::atomic<int>& next_;
  std::atomic<int>& slot_;
};

}  // namespace

TEST_CASE("crypto workers: suspects' login checks have a lane of a quarter of the queue, and the others go first",
          "[security][crypto_workers][login]") {
  caf::actor_system_config cfg;
  caf::actor_system sys(configure(cfg));
  // One worker, 8 places, of which 2 for suspects (login checks of names or addresses that failed).
  actors::crypto_pool pool(sys, actors::crypto_pool_options{1, 8, 0});
  REQUIRE(pool.max_queued_suspects() == 2);
  auto block = std::make_shared<blocker>();
  REQUIRE(pool.submit(block));  // holds the worker
  // Running, not only queued: a worker that fetched the blocker together with the first suspect
  // would run that suspect in the same round of its mailbox, before the urgent check arrived.
  block->started.get_future().wait();
  std::atomic<int> next{0};
  std::atomic<int> ran_suspect_1{-1}, ran_suspect_2{-1}, ran_clean{-1}, ran_refused{-1};
  REQUIRE(pool.submit(std::make_shared<ordered_task>(next, ran_suspect_1), false, true));
  REQUIRE(pool.submit(std::make_shared<ordered_task>(next, ran_suspect_2), false, true));
  // The lane is full: a third suspect is refused, while a check that is not suspect still has room.
  CHECK_FALSE(pool.submit(std::make_shared<ordered_task>(next, ran_refused), false, true));
  CHECK(pool.refused_suspects() == 1);
  CHECK(pool.queued_suspects() == 2);
  REQUIRE(pool.submit(std::make_shared<ordered_task>(next, ran_clean)));
  CHECK(pool.queued() == 4);
  block->gate.set_value();
  for (int i = 0; i < 1000 && pool.queued() != 0; ++i) std::this_thread::sleep_for(2ms);
  REQUIRE(pool.queued() == 0);
  CHECK(pool.queued_suspects() == 0);
  // Submitted last, run first: it went as an urgent message.
  CHECK(ran_clean.load() == 0);
  CHECK(ran_suspect_1.load() >= 1);
  CHECK(ran_suspect_2.load() >= 1);
  CHECK(ran_refused.load() == -1);
}

}  // namespace server_crypto_workers_test
