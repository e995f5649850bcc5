// The ECC policies end to end (Part 6 §6.8, Part 4 §5.7): an embedded server offering every ECC
// policy in Sign and SignAndEncrypt, our client over real sockets in each, with Anonymous,
// UserName and X509 identities; the certificates of each curve made on first start.

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "security/certificate.hpp"
#include "security/ecc.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;
namespace ids = uactor::ua::ids;

namespace {

constexpr const char* ecc_client_uri = "urn:uactor:test:ecc-client";

void write_der_file(const std::filesystem::path& file, std::span<const std::uint8_t> der) {
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(der.data()), static_cast<std::streamsize>(der.size()));
}

struct ecc_server {
  temp_folder dir{"ecc-session-test"};
  runtime rt;
  server* srv = nullptr;
  std::uint16_t ns = 0;
  // Per policy: the X509 user identity (an EC key on the policy's curve).
  std::map<std::string, security::application_identity> users;

  ecc_server() {
    auto plan = default_server_plan();
    // The client's certificates of each curve, and a user certificate of each, trusted by the server.
    security::pki_store client_store(dir.path / "client-pki");
    for (const auto& p : security::all_policies()) {
      if (!p.is_ecc()) continue;
      security::certificate_request req;  // as runtime/client_security.cpp makes its own
      req.application_uri = ecc_client_uri;
      req.common_name = "uactor client";
      req.host_names = {"localhost"};
      req.curve = std::string(p.curve);
      auto own = client_store.load_or_create_own(req, security::own_identity_name("uactor-client", p));
      REQUIRE(own.has_value());
      const auto file = dir.path / (std::string(p.name) + "-client.der");
      write_der_file(file, own->cert.der());
      plan.trust.push_back(file.string());
      security::certificate_request user;
      user.application_uri = "urn:uactor:test:ecc-user";
      user.common_name = "ecc user";
      user.curve = std::string(p.curve);
      auto u = security::create_self_signed(user, security::system_now());
      REQUIRE(u.has_value());
      const auto user_file = dir.path / (std::string(p.name) + "-user.der");
      write_der_file(user_file, u->cert.der());
      plan.trust.push_back(user_file.string());
      users.emplace(std::string(p.name), *u);
    }
    plan.host_name = "127.0.0.1";
    plan.application_uri = "urn:uactor:test:ecc-server";
    plan.pki_dir = (dir.path / "server-pki").string();
    plan.users = {"op:op-pw"};
    endpoint_plan e;
    e.listen_address = "127.0.0.1";
    e.port = 0;
    e.security = {"ecc"};
    e.user_tokens = {"anonymous", "username", "x509"};
    plan.endpoints = {e};
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    srv = *s;
    ns = srv->register_namespace("urn:test:ecc");
    variable_node v;
    v.id = node_id::string(ns, "Setpoint");
    v.parent = node_id(0, ids::objects_folder);
    v.browse_name = qualified_name{ns, ua::ua_string("Setpoint")};
    v.data_type = node_id(0, ids::double_);
    v.access_level = access::read_write;
    v.value.set_value(42.5);
    REQUIRE(srv->apply(v) == ua::status::good);
  }

  client_options options(const security::security_policy& p, ua::message_security_mode mode) const {
    client_options o;
    o.endpoint_url = srv->endpoint_urls().at(0);
    o.request_timeout = 10s;
    o.connect_timeout = 10s;
    o.security.pki_dir = (dir.path / "client-pki").string();
    o.security.application_uri = ecc_client_uri;
    o.security.accept_untrusted_server_certificate = true;  // the server's certificates are made at start
    o.security.policy = std::string(p.name);
    o.security.mode = mode;
    return o;
  }
};

double read_setpoint(client& c, std::uint16_t ns) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = node_id::string(ns, "Setpoint");
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  const auto* d = resp->results[0].value.get_if<double>();
  REQUIRE(d != nullptr);
  return *d;
}

std::string pem_of(const security::certificate& c) {
  return std::string(reinterpret_cast<const char*>(c.der().data()), c.der().size());  // DER: the identity takes either
}

}  // namespace

TEST_CASE("ecc sessions: our client reads from our server in every ECC policy and mode, Anonymous, UserName and X509",
          "[runtime][ecc]") {
  ecc_server f;
  const ua::message_security_mode modes[] = {ua::message_security_mode::sign, ua::message_security_mode::sign_and_encrypt};
  for (const auto& p : security::all_policies()) {
    if (!p.is_ecc()) continue;
    for (const auto mode : modes) {
      CAPTURE(p.name, static_cast<int>(mode));
      // Anonymous: the channel (ECDH keys) and the session signatures (ECDSA) only.
      {
        auto c = f.rt.connect(f.options(p, mode));
        REQUIRE(c.has_value());
        CHECK(read_setpoint(*c, f.ns) == 42.5);
      }
      // X509: the user token signed with ECDSA by the user's key of the same curve.
      {
        auto o = f.options(p, mode);
        o.security.identity.type = client_identity::kind::x509;
        const auto& user = f.users.at(std::string(p.name));
        o.security.identity.certificate = pem_of(user.cert);
        o.security.identity.private_key_pem = user.private_key.to_private_pem();
        auto c = f.rt.connect(o);
        REQUIRE(c.has_value());
        CHECK(read_setpoint(*c, f.ns) == 42.5);
      }
      // UserName: the password as an EccEncryptedSecret for the server's EphemeralKey (Part 6
      // §6.8.2), in Sign as in SignAndEncrypt.
      {
        auto o = f.options(p, mode);
        o.security.identity.type = client_identity::kind::user_name;
        o.security.identity.user_name = "op";
        o.security.identity.password = "op-pw";
        auto c = f.rt.connect(o);
        REQUIRE(c.has_value());
        CHECK(read_setpoint(*c, f.ns) == 42.5);
      }
    }
  }
  // A wrong password is refused as any wrong password (once, last: the login guard then holds the
  // user name back for a moment).
  auto o = f.options(*security::find_policy(security::policy_uri_ecc_nistp256), ua::message_security_mode::sign);
  o.security.identity.type = client_identity::kind::user_name;
  o.security.identity.user_name = "op";
  o.security.identity.password = "guess";
  auto bad = f.rt.connect(o);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error() == ua::status::bad_user_access_denied);
}

TEST_CASE("ecc sessions: the server makes one certificate per curve on first start and each endpoint carries its own",
          "[runtime][ecc]") {
  ecc_server f;
  auto resp = get_endpoints(f.srv->endpoint_urls().at(0));
  REQUIRE(resp.has_value());
  REQUIRE(resp->endpoints.size() == 12);  // 6 policies x 2 modes
  for (const auto& e : resp->endpoints) {
    const auto* p = security::find_policy(e.security_policy_uri.view());
    REQUIRE(p);
    REQUIRE(p->is_ecc());
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(e.server_certificate.data());
    auto cert = security::certificate::from_der({bytes, e.server_certificate.size()});
    REQUIRE(cert.has_value());
    CHECK(security::key_fits_policy(*p, cert->public_key()));
    CHECK(std::filesystem::exists(f.dir.path / "server-pki" / "own" / "certs" /
                                  (security::own_identity_name("uactor", *p) + ".der")));
  }
}

TEST_CASE("ecc sessions: a client certificate the server does not trust is refused in an ECC policy",
          "[runtime][ecc]") {
  ecc_server f;
  auto o = f.options(*security::find_policy(security::policy_uri_ecc_nistp256), ua::message_security_mode::sign);
  o.security.pki_dir = (f.dir.path / "stranger-pki").string();  // makes a new, untrusted client certificate
  auto c = f.rt.connect(o);
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_security_checks_failed);
}
