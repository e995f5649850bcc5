// One embedded server behind two endpoints (docs/decisions/0033): a None endpoint for anonymous
// clients and a SignAndEncrypt endpoint for named users, one address space. Our client over real
// sockets is the peer: each endpoint takes what it offers and refuses what only the other offers.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "runtime/http/prometheus_text.hpp"
#include "security/pki_store.hpp"
#include "tests/support/secured_client.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;
namespace ids = uactor::ua::ids;

namespace {

constexpr const char* client_uri = "urn:uactor:test:endpoints-client";

struct two_endpoints {
  temp_folder dir{"endpoints-test"};
  runtime rt;
  server* srv = nullptr;
  std::uint16_t ns = 0;

  two_endpoints() {
    // The client's certificate first, so that the server starts trusting it.
    const auto cert_file = test::make_client_certificate(dir.path, client_uri, "uactor client");

    auto plan = default_server_plan();
    plan.host_name = "127.0.0.1";
    plan.application_uri = "urn:uactor:test:endpoints-server";
    plan.pki_dir = (dir.path / "server-pki").string();
    plan.trust = {cert_file.string()};
    plan.users = {"op:op-pw"};
    endpoint_plan floor;  // the plant floor: None, anonymous only
    floor.listen_address = "127.0.0.1";
    floor.port = 0;
    floor.security = {"none"};
    floor.user_tokens = {"anonymous"};
    endpoint_plan engineering;  // signed and encrypted, named users only
    engineering.listen_address = "127.0.0.1";
    engineering.port = 0;
    engineering.security = {"Basic256Sha256:SignAndEncrypt"};
    engineering.user_tokens = {"username"};
    plan.endpoints = {floor, engineering};
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    srv = *s;
    ns = srv->register_namespace("urn:test:endpoints");
    variable_node v;
    v.id = node_id::string(ns, "Setpoint");
    v.parent = node_id(0, ids::objects_folder);
    v.browse_name = qualified_name{ns, ua::ua_string("Setpoint")};
    v.data_type = node_id(0, ids::double_);
    v.access_level = access::read_write;
    v.value.set_value(0.0);
    REQUIRE(srv->apply(v) == ua::status::good);
  }

  std::string url(std::size_t i) const { return srv->endpoint_urls().at(i); }

  client_options options(std::size_t endpoint) const {
    client_options o;
    o.endpoint_url = url(endpoint);
    o.request_timeout = 10s;
    o.connect_timeout = 10s;
    o.security.pki_dir = (dir.path / "client-pki").string();
    o.security.application_uri = client_uri;
    o.security.accept_untrusted_server_certificate = true;  // the server's certificate is made at start
    return o;
  }
  client_options secured(std::size_t endpoint) const {
    auto o = options(endpoint);
    o.security.policy = "Basic256Sha256";
    o.security.mode = ua::message_security_mode::sign_and_encrypt;
    return o;
  }
  static client_options as_user(client_options o) {
    o.security.identity.type = uactor::client_identity::kind::user_name;
    o.security.identity.user_name = "op";
    o.security.identity.password = "op-pw";
    return o;
  }
};

node_id setpoint(const two_endpoints& f) { return node_id::string(f.ns, "Setpoint"); }

double read_double(client& c, const node_id& node) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = node;
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  const auto* d = resp->results[0].value.get_if<double>();
  REQUIRE(d != nullptr);
  return *d;
}

ua::status_code write_double(client& c, const node_id& node, double v) {
  ua::write_request w;
  w.nodes_to_write.resize(1);
  w.nodes_to_write[0].node_id = node;
  w.nodes_to_write[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  w.nodes_to_write[0].value.set_value(v);
  auto resp = c.write_sync(w);
  REQUIRE(resp.has_value());
  return resp->results.at(0);
}

std::size_t port_of(const std::string& url) { return std::stoul(url.substr(url.rfind(':') + 1)); }

}  // namespace

TEST_CASE("embedded server, two endpoints: one server listens on two ports, and a Write through one is read through the other",
          "[runtime][endpoints]") {
  two_endpoints f;
  const auto urls = f.srv->endpoint_urls();
  const auto ports = f.srv->ports();
  REQUIRE(urls.size() == 2);
  REQUIRE(ports.size() == 2);
  CHECK(ports[0] != ports[1]);
  CHECK(f.srv->port() == ports[0]);
  CHECK(f.srv->endpoint_url() == urls[0]);
  CHECK(port_of(urls[1]) == ports[1]);

  auto floor = f.rt.connect(f.options(0));
  REQUIRE(floor.has_value());
  auto eng = f.rt.connect(two_endpoints::as_user(f.secured(1)));
  REQUIRE(eng.has_value());
  CHECK(write_double(*floor, setpoint(f), 12.5) == ua::status::good);
  CHECK(read_double(*eng, setpoint(f)) == 12.5);
  CHECK(write_double(*eng, setpoint(f), 77) == ua::status::good);
  CHECK(read_double(*floor, setpoint(f)) == 77);

  // Counted once, for the server, and per endpoint (the secured client's discovery connection
  // may still be closing: at least one each).
  const auto m = f.srv->metrics();
  CHECK(m.connections_open >= 2);
  REQUIRE(m.endpoints.size() == 2);
  CHECK(m.endpoints[0].connections_open >= 1);
  CHECK(m.endpoints[1].connections_open >= 1);
  CHECK(m.endpoints[0].connections_open + m.endpoints[1].connections_open == m.connections_open);
  CHECK(m.endpoints[0].connections_accepted + m.endpoints[1].connections_accepted == m.connections_accepted);
  const auto text = app::prometheus_text({{urls[0], m, {}, urls}}, {});
  CHECK(text.find("uactor_endpoint_connections_open{endpoint=\"" + urls[1] + "\"}") != std::string::npos);
  CHECK(text.find("uactor_endpoint_connections_accepted_total{endpoint=\"" + urls[0] + "\"}") != std::string::npos);
  CHECK(text.find("uactor_sessions{endpoint=\"" + urls[0] + "\"}") != std::string::npos);  // the server, once
  floor->close();
  eng->close();
}

TEST_CASE("embedded server, two endpoints: GetEndpoints through either endpoint lists both, each with its URL and token policies",
          "[runtime][endpoints]") {
  two_endpoints f;
  for (std::size_t through = 0; through < 2; ++through) {
    auto resp = get_endpoints(f.url(through));
    REQUIRE(resp.has_value());
    REQUIRE(resp->endpoints.size() == 2);
    const auto& none = resp->endpoints[0];
    const auto& secure = resp->endpoints[1];
    CHECK(none.endpoint_url.view() == f.url(0));
    CHECK(none.security_mode == ua::message_security_mode::none);
    REQUIRE(none.user_identity_tokens.size() == 1);
    CHECK(none.user_identity_tokens[0].token_type == ua::user_token_type::anonymous);
    CHECK(secure.endpoint_url.view() == f.url(1));
    CHECK(secure.security_mode == ua::message_security_mode::sign_and_encrypt);
    REQUIRE(secure.user_identity_tokens.size() == 1);
    CHECK(secure.user_identity_tokens[0].token_type == ua::user_token_type::user_name);
    // Part 4 §7.2: the server's DiscoveryUrls are both endpoints'.
    REQUIRE(none.server.discovery_urls.size() == 2);
    CHECK(none.server.discovery_urls[1].view() == f.url(1));
  }
}

TEST_CASE("embedded server, two endpoints: an OPN for the other endpoint's policy gets Bad_SecurityPolicyRejected, a None session "
          "on the secured endpoint Bad_SecurityPolicyRejected",
          "[runtime][endpoints]") {
  two_endpoints f;
  // Basic256Sha256 is offered by the server, but not by the floor endpoint (Part 6 §6.7.4).
  auto opn = f.rt.connect(two_endpoints::as_user(f.secured(0)));
  REQUIRE_FALSE(opn.has_value());
  CHECK(opn.error() == ua::status::bad_security_policy_rejected);
  // None through the engineering endpoint: its channel serves discovery only (Part 4 §5.4).
  auto none = f.rt.connect(f.options(1));
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error() == ua::status::bad_security_policy_rejected);
  // The server goes on serving both.
  auto floor = f.rt.connect(f.options(0));
  CHECK(floor.has_value());
}

TEST_CASE("embedded server, two endpoints: a token type one endpoint offers is refused on the other with Bad_IdentityTokenRejected",
          "[runtime][endpoints]") {
  two_endpoints f;
  // Anonymous: offered on the floor, not by the engineering endpoint, over the same secured policy
  // the named user passes with.
  auto anonymous = f.rt.connect(f.secured(1));
  REQUIRE_FALSE(anonymous.has_value());
  CHECK(anonymous.error() == ua::status::bad_identity_token_rejected);
  auto user = f.rt.connect(two_endpoints::as_user(f.secured(1)));
  REQUIRE(user.has_value());
  auto floor = f.rt.connect(f.options(0));
  REQUIRE(floor.has_value());
  // UserName on the floor: never over None (our client refuses to send the password in clear).
  auto clear = f.rt.connect(two_endpoints::as_user(f.options(0)));
  CHECK_FALSE(clear.has_value());
}
