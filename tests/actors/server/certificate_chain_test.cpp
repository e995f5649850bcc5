// Certificate chains sent in the OpenSecureChannel (Part 6 §6.7.2.3) and CreateSession (Part 4
// §5.6.2.2), end to end: our client against our server over a socket, Basic256Sha256
// SignAndEncrypt, each side's certificate issued by an intermediate CA that only comes in the
// message (the peer trusts the root alone and holds no copy of the intermediate), each side's PKI
// folder the real pki_store, each side sending its chain because its own/ certificate file holds
// it. And what a peer gets when the root is not trusted.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <openssl/rand.h>
#include <caf/io/all.hpp>

#include "runtime/namespaces/demo_namespace.hpp"
#include "actors/common/tune_io.hpp"
#include "actors/server/server_actors.hpp"
#include "engine/server/services/discovery.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"
#include "tests/security/pki_test_support.hpp"
#include "tests/support/captured_log.hpp"
#include "uactor/client.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using namespace uactor::security::testing;
using uactor::test::captured_log;
namespace fs = std::filesystem;
namespace status = ua::status;

namespace {

constexpr const char* server_uri = "urn:test:chain:server";
constexpr const char* client_uri = "urn:test:chain:client";

ua::date_time days_from_now(int days) {
  return ua::date_time::from_unix_ms(security::system_now().to_unix_ms() + days * day_ms);
}

cert_spec ca(std::string cn, long serial) {
  cert_spec s;
  s.common_name = std::move(cn);
  s.uri.clear();
  s.ca = true;
  s.serial = serial;
  s.not_before = days_from_now(-1);
  s.not_after = days_from_now(365);
  return s;
}

cert_spec application(std::string cn, std::string uri, long serial) {
  cert_spec s;
  s.common_name = std::move(cn);
  s.uri = std::move(uri);
  s.hosts = "DNS:localhost,IP:127.0.0.1";
  s.serial = serial;
  s.not_before = days_from_now(-1);
  s.not_after = days_from_now(365);
  return s;
}

// Root -> intermediate -> application, for one side.
struct side_pki {
  issued root, intermediate, leaf;
  side_pki(const std::string& name, const std::string& uri)
      : root(make_cert(ca(name + " Root CA", 1))),
        intermediate(make_cert(ca(name + " Intermediate CA", 2), &root)),
        leaf(make_cert(application(name, uri, 3), &intermediate)) {}
  std::vector<security::certificate> issuers() const { return {intermediate.cert}; }
};

const side_pki& server_side() {
  static const side_pki p("chain server", server_uri);
  return p;
}
const side_pki& client_side() {
  static const side_pki p("chain client", client_uri);
  return p;
}

// `store` trusts the peer's root (when `trust_root`; else it only knows it, in issuers/), holds
// the CRLs of the peer's root and intermediate, and never the intermediate itself.
void trust_peer(const fs::path& store, const side_pki& peer, bool trust_root) {
  security::pki_store s(store);
  if (trust_root) REQUIRE(s.trust(peer.root.cert).is_good());
  else write_file(store / "issuers/certs/root.der", peer.root.cert.der());
  const auto now = security::system_now();
  write_file(store / "trusted/crl/root.crl", make_crl(peer.root, {}, now));
  write_file(store / "issuers/crl/intermediate.crl", make_crl(peer.intermediate, {}, now));
}

// The client's own/: its leaf with the intermediate after it, and its key.
void install_client_identity(const fs::path& store) {
  security::pki_store s(store);  // makes the folders
  const auto& c = client_side();
  write_file(store / "own/certs/uactor-client.der", security::chain_der(c.leaf.cert, c.issuers()));
  const auto pem = c.leaf.key.to_private_pem();
  write_file(store / "own/private/uactor-client.pem",
             std::span(reinterpret_cast<const std::uint8_t*>(pem.data()), pem.size()));
  fs::permissions(store / "own/private/uactor-client.pem", fs::perms::owner_read | fs::perms::owner_write,
                  fs::perm_options::replace);
}

caf::actor_system_config& configure(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

struct chain_fixture {
  temp_dir server_pki, client_pki;
  std::shared_ptr<actors::server_security> security = std::make_shared<actors::server_security>();
  bool endpoints_without_chain = false;  // the endpoints carry the leaf only; the OPN the chain

  chain_fixture(bool server_trusts_client_root, bool client_trusts_server_root) {
    const auto& s = server_side();
    security->offers = {{security::find_policy(security::policy_uri_basic256sha256),
                         ua::message_security_mode::sign_and_encrypt}};
    security->certificate = s.leaf.cert;
    security->certificate_issuers = s.issuers();
    security->private_key = s.leaf.key;
    auto store = std::make_shared<security::pki_store>(server_pki.path());
    security->store = store;
    security->checker = std::make_shared<actors::pki_checker>(store);
    trust_peer(server_pki.path(), client_side(), server_trusts_client_root);
    trust_peer(client_pki.path(), server_side(), client_trusts_server_root);
    install_client_identity(client_pki.path());
  }

  actors::server_core make_core(std::uint16_t port) const {
    actors::server_core_config c;
    c.description.application_uri = server_uri;
    c.description.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
    c.sessions.random = [](std::span<std::uint8_t> out) { REQUIRE(RAND_bytes(out.data(), static_cast<int>(out.size())) == 1); };
    c.sessions.security = security;
    c.sessions.endpoints = services::make_endpoints(c.description, *security);
    if (endpoints_without_chain)
      for (auto& e : c.sessions.endpoints)
        if (!e.server_certificate.empty()) e.server_certificate = actors::to_byte_string(security->certificate.der());
    return actors::make_demo_server_core(std::move(c), "test", security::system_now());
  }

  client_options client_for(std::uint16_t port) const {
    client_options co;
    co.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
    co.request_timeout = 5s;
    co.connect_timeout = 5s;
    co.security.policy = "Basic256Sha256";
    co.security.mode = ua::message_security_mode::sign_and_encrypt;
    co.security.pki_dir = client_pki.path().string();
    co.security.application_uri = client_uri;
    return co;
  }
};

ua::read_request read_state() {
  ua::read_request read;
  read.nodes_to_read.resize(1);
  read.nodes_to_read[0].node_id = ua::node_id(0, 2259);  // Server_ServerStatus_State
  read.nodes_to_read[0].attribute_id = 13;
  return read;
}

// Starts the server, connects once, reads once when connected; the connect's status.
ua::status_code connect_and_read(chain_fixture& f) {
  caf::actor_system_config cfg;
  configure(cfg);
  actors::tune_io(cfg);
  caf::actor_system sys(cfg);
  actors::server_options o;
  o.listen_address = "127.0.0.1";
  o.port = 0;
  o.connection.channel.security = f.security;
  auto h = actors::spawn_server(sys, o, [&](std::uint16_t port) { return f.make_core(port); });
  REQUIRE(h);
  ua::status_code result = status::good;
  {
    caf::actor_system_config ccfg;
    caf::actor_system client_sys(configure_client_system(ccfg));
    auto c = client::connect(client_sys, f.client_for(h->port));
    if (c) {
      auto r = c->read_sync(read_state());
      REQUIRE(r);
      CHECK(r->results[0].status.is_good());
      c->close();
    } else {
      result = c.error();
    }
  }
  actors::stop_server(*h);
  return result;
}

}  // namespace

TEST_CASE("certificate chain: client and server each send their intermediate, the peer trusts only the root",
          "[security][chain]") {
  captured_log log;
  chain_fixture f(true, true);
  const auto sc = connect_and_read(f);
  INFO(log.text());
  CHECK(sc == status::good);
  // Neither side learnt the other's intermediate into its folders, nor rejected anything.
  security::pki_store server_store(f.server_pki.path()), client_store(f.client_pki.path());
  CHECK(server_store.list("issuers").empty());
  CHECK(server_store.list("rejected").empty());
  CHECK(client_store.list("issuers").empty());
  CHECK(client_store.list("rejected").empty());
}

TEST_CASE("certificate chain: endpoints without the server's chain, the client checks it with the OPN's",
          "[security][chain]") {
  captured_log log;
  chain_fixture f(true, true);
  f.endpoints_without_chain = true;
  const auto sc = connect_and_read(f);
  const auto text = log.text();
  INFO(text);
  CHECK(sc == status::good);
  CHECK(text.find("checking it with the chain of the OpenSecureChannel response") != std::string::npos);
}

TEST_CASE("certificate chain: the server does not trust the client's root, the OPN is refused and the log says why",
          "[security][chain]") {
  captured_log log;
  chain_fixture f(false, true);
  const auto sc = connect_and_read(f);
  const auto text = log.text();
  INFO(text);
  CHECK(sc == status::bad_security_checks_failed);  // the wire: no oracle (Part 4 §6.1.3)
  CHECK(text.find("client certificate refused by the trust list check (BadCertificateUntrusted)") != std::string::npos);
  security::pki_store server_store(f.server_pki.path());
  const auto rejected = server_store.list("rejected");
  REQUIRE(rejected.size() == 1);
  CHECK(rejected[0] == client_side().leaf.cert);  // the leaf, for an operator to trust
}

TEST_CASE("certificate chain: the client does not trust the server's root, connect fails Bad_CertificateUntrusted",
          "[security][chain]") {
  captured_log log;
  chain_fixture f(true, false);
  SECTION("the chain in the endpoints") {
    CHECK(connect_and_read(f) == status::bad_certificate_untrusted);
  }
  SECTION("the chain only in the OPN") {
    f.endpoints_without_chain = true;
    CHECK(connect_and_read(f) == status::bad_certificate_untrusted);
  }
  const auto text = log.text();
  INFO(text);
  CHECK(text.find("failed the trust list check (BadCertificateUntrusted)") != std::string::npos);
}
