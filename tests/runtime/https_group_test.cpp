// DefaultHttpsGroup end to end (Part 12 §7.8.3.3, docs/decisions/0078): a SecurityAdmin over
// SignAndEncrypt replaces the opc.wss TLS certificate with UpdateCertificate and ApplyChanges on the
// group; a new TLS connection is then offered the new certificate while a session over opc.wss
// opened before goes on; CreateSelfSignedCertificate does the same; a restart serves what the last
// ApplyChanges installed from own/certs/uactor-https.der. Both transports.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <catch2/catch.hpp>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "security/certificate.hpp"
#include "security/pki_store.hpp"
#include "tests/support/secured_client.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/client.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

// A namespace of its own: this file shares a unity batch with the other runtime tests.
namespace runtime_https_group_test {

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;
namespace ids = uactor::ua::ids;

constexpr const char* client_uri = "urn:uactor:test:https-group-client";

server_plan https_plan(const temp_folder& dir, const std::string& transport) {
  auto plan = default_server_plan();
  // The admin client's certificate, made now and trusted by the server (SignAndEncrypt).
  const auto cert_file = test::make_client_certificate(dir.path, client_uri, "https group test client");
  plan.trust = {cert_file.string()};
  plan.host_name = "127.0.0.1";
  plan.application_uri = "urn:uactor:test:https-group";
  plan.demo = true;
  plan.pki_dir = (dir.path / "server-pki").string();
  plan.users = {"admin:admin-pw"};
  role_plan admins;
  admins.name = "SecurityAdmin";
  admins.identities = {"UserName:admin"};
  plan.roles = {admins};
  endpoint_plan e;
  e.listen_address = "127.0.0.1";
  e.port = 0;
  e.security = {"Basic256Sha256:SignAndEncrypt"};
  e.user_tokens = {"username"};
  plan.endpoints = {e};
  wss_plan w;
  w.port = 0;
  w.transport = transport;
  plan.wss = w;
  return plan;
}

client_options admin_options(const std::string& url, const temp_folder& dir) {
  client_options o;
  o.endpoint_url = url;
  o.request_timeout = 10s;
  o.connect_timeout = 10s;
  test::log_in_over_sign_and_encrypt(o.security, dir.path, client_uri, "admin", "admin-pw");
  o.wss_accept_any_certificate = true;
  return o;
}

bool reads(client& c) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = node_id(0, 2258);  // Server_ServerStatus_CurrentTime
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  return resp.has_value() && resp->results.size() == 1 && resp->results[0].status.is_good();
}

// The certificate a fresh TLS handshake with 127.0.0.1:port is offered (DER).
std::vector<std::uint8_t> tls_certificate(std::uint16_t port) {
  boost::asio::io_context io;
  boost::asio::ssl::context ctx(boost::asio::ssl::context::tls_client);
  ctx.set_verify_mode(boost::asio::ssl::verify_none);
  boost::asio::ssl::stream<boost::asio::ip::tcp::socket> tls(io, ctx);
  tls.next_layer().connect({boost::asio::ip::make_address("127.0.0.1"), port});
  tls.handshake(boost::asio::ssl::stream_base::client);
  X509* peer = SSL_get1_peer_certificate(tls.native_handle());
  REQUIRE(peer);
  unsigned char* der = nullptr;
  const int n = i2d_X509(peer, &der);
  std::vector<std::uint8_t> out(der, der + n);
  OPENSSL_free(der);
  X509_free(peer);
  boost::system::error_code ignored;
  tls.next_layer().close(ignored);
  return out;
}

std::vector<std::uint8_t> der_of(const security::certificate& c) { return {c.der().begin(), c.der().end()}; }

ua::byte_string bytes_of(std::span<const std::uint8_t> der) {
  ua::byte_string b;
  b.assign(der.data(), der.size());
  return b;
}

ua::status_code call(client& c, std::uint32_t method, std::vector<ua::variant> in, std::vector<ua::variant>* out = nullptr) {
  ua::call_request r;
  r.methods_to_call.resize(1);
  r.methods_to_call[0].object_id = node_id(0, ids::server_configuration);
  r.methods_to_call[0].method_id = node_id(0, method);
  for (auto& v : in) r.methods_to_call[0].input_arguments.push_back(std::move(v));
  auto resp = c.call_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  if (out) out->assign(resp->results[0].output_arguments.begin(), resp->results[0].output_arguments.end());
  return resp->results[0].status_code;
}

TEST_CASE("DefaultHttpsGroup: ApplyChanges rolls the opc.wss TLS certificate for new connections only", "[wss]") {
  const std::string transport = GENERATE(std::string("native"), std::string("door"));
  CAPTURE(transport);
  temp_folder dir("https-group-test");
  const auto plan = https_plan(dir, transport);
  security::certificate_request gateway;
  gateway.application_uri = "urn:site:gateway";
  gateway.common_name = "plant gateway";
  gateway.host_names = {"127.0.0.1", "localhost"};
  const auto renewed = security::create_self_signed(gateway, security::system_now());
  REQUIRE(renewed.has_value());
  {
    runtime rt;
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    server& srv = **s;
    const std::uint16_t wss_port = srv.ports().back();
    const auto application = security::certificate::from_file(dir.path / "server-pki" / "own" / "certs" / "uactor.der");
    REQUIRE(application.has_value());
    // Before any push, opc.wss presents the application certificate (what it did before the group).
    CHECK(tls_certificate(wss_port) == der_of(*application));

    // A session over opc.wss that will outlive the change.
    auto before = rt.connect(admin_options("opc.wss://127.0.0.1:" + std::to_string(wss_port) + "/", dir));
    REQUIRE(before.has_value());
    REQUIRE(reads(*before));

    auto admin = rt.connect(admin_options(srv.endpoint_urls().at(0), dir));
    REQUIRE(admin.has_value());
    const ua::node_id group(0, ids::server_configuration_certificate_groups_default_https_group);
    std::vector<ua::variant> out;
    REQUIRE(call(*admin, ids::server_configuration_update_certificate,
                 {ua::variant(group), ua::variant(ua::node_id(0, ids::https_certificate_type)),
                  ua::variant(bytes_of(renewed->cert.der())), ua::variant(ua::ua_array<ua::byte_string>{}),
                  ua::variant(ua::ua_string("PEM")), ua::variant(ua::byte_string(renewed->private_key.to_private_pem()))},
                 &out) == ua::status::good);
    REQUIRE(out.size() == 1);
    CHECK(*out[0].get_if<bool>());
    // Not before ApplyChanges.
    CHECK(tls_certificate(wss_port) == der_of(*application));
    REQUIRE(call(*admin, ids::server_configuration_apply_changes, {}) == ua::status::good);

    // A new TLS connection gets the new certificate; the session from before goes on; a new
    // opc.wss session works; the UA endpoints keep the application certificate.
    CHECK(tls_certificate(wss_port) == der_of(renewed->cert));
    CHECK(reads(*before));
    auto after = rt.connect(admin_options("opc.wss://127.0.0.1:" + std::to_string(wss_port) + "/", dir));
    REQUIRE(after.has_value());
    CHECK(reads(*after));
    CHECK(reads(*admin));
    REQUIRE(call(*admin, ids::server_configuration_get_certificates, {ua::variant(group)}, &out) == ua::status::good);
    REQUIRE(out.size() == 2);
    CHECK((*out[1].get_if<ua::ua_array<ua::byte_string>>())[0] == bytes_of(renewed->cert.der()));
    // CreateSelfSignedCertificate (Part 12 §7.10.6) through the type's Method on the instance.
    REQUIRE(call(*admin, ids::server_configuration_type_create_self_signed_certificate,
                 {ua::variant(group), ua::variant(ua::node_id(0, ids::https_certificate_type)),
                  ua::variant(ua::ua_string("CN=self made gateway")), ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("localhost")}),
                  ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("127.0.0.1")}), ua::variant(std::uint16_t{30}),
                  ua::variant(std::uint16_t{0})},
                 &out) == ua::status::good);
    REQUIRE(out.size() == 1);
    const auto self_made = *out[0].get_if<ua::byte_string>();
    REQUIRE(call(*admin, ids::server_configuration_apply_changes, {}) == ua::status::good);
    CHECK(bytes_of(tls_certificate(wss_port)) == self_made);
    CHECK(reads(*before));
    before->close();
    after->close();
    admin->close();
  }
  // A restart serves what ApplyChanges wrote.
  const auto on_disk = security::certificate::from_file(dir.path / "server-pki" / "own" / "certs" / "uactor-https.der");
  REQUIRE(on_disk.has_value());
  CHECK(on_disk->subject().find("self made gateway") != std::string::npos);
  runtime rt;
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  CHECK(tls_certificate((*s)->ports().back()) == der_of(*on_disk));
}

}  // namespace runtime_https_group_test
