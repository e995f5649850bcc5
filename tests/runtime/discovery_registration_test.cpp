// Discovery (docs/discovery.md, Part 12 §4.3), both sides ours over 127.0.0.1 with ports the system
// picks: a server registers with another acting as its LDS (RegisterServer2 over SignAndEncrypt with
// its own certificate, each trusting the other), FindServers lists it, and it is gone after its
// shutdown (IsOnline false); a server that is no LDS makes the registrar fall back to RegisterServer
// and report Bad_ServiceUnsupported.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include "runtime/discovery_registrar.hpp"
#include "security/pki_store.hpp"
#include "tests/support/temp_folder.hpp"
#include "uactor/client.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using test::temp_folder;

namespace {

constexpr const char* lds_test_uri = "urn:uactor:test:lds";
constexpr const char* registering_test_uri = "urn:uactor:test:registering-server";

server_plan discovery_test_plan(const std::string& uri, const std::filesystem::path& pki) {
  auto plan = default_server_plan();
  plan.host_name = "127.0.0.1";
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.demo = false;
  plan.application_uri = uri;
  plan.pki_dir = pki.string();
  plan.security = {"None", "Basic256Sha256:SignAndEncrypt"};
  return plan;
}

// The server's own certificate made before it starts (as `uactor certs create --name uactor`), so
// that the other side can trust it first; written as DER to `out`.
void own_certificate_beforehand(const std::filesystem::path& pki, const std::string& uri, const std::filesystem::path& out) {
  security::pki_store store(pki);
  security::certificate_request req;
  req.application_uri = uri;
  req.common_name = "uactor";
  req.host_names = {"127.0.0.1", "localhost"};
  auto own = store.load_or_create_own(req, "uactor");
  REQUIRE(own.has_value());
  const auto der = own->cert.der();
  std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(der.data()), static_cast<std::streamsize>(der.size()));
}

// FindServers of `url` lists `uri` (listed true) or not (false), polled for up to 15 s: the
// registration is asynchronous.
bool lds_lists(const std::string& url, const std::string& uri, bool listed) {
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < deadline) {
    client_options o;
    o.endpoint_url = url;
    o.create_session = false;
    o.connect_timeout = o.request_timeout = 5s;
    auto c = client::connect(o);
    if (c) {
      auto r = c->find_servers_sync({});
      c->close();
      if (r) {
        bool found = false;
        for (const auto& s : r->servers) found = found || s.application_uri.view() == uri;
        if (found == listed) return true;
      }
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

}  // namespace

TEST_CASE("discovery: a server registers with our LDS, is listed, and is gone after its shutdown", "[runtime][lds]") {
  temp_folder dir("discovery-registration");
  const auto registering_cert = dir.path / "registering.der";
  own_certificate_beforehand(dir.path / "registering-pki", registering_test_uri, registering_cert);
  const auto lds_cert = dir.path / "lds.der";
  own_certificate_beforehand(dir.path / "lds-pki", lds_test_uri, lds_cert);

  runtime rt;
  auto lds_plan = discovery_test_plan(lds_test_uri, dir.path / "lds-pki");
  lds_plan.trust = {registering_cert.string()};
  lds_plan.discovery.lds = true;
  auto lds = rt.start_server(lds_plan);
  REQUIRE(lds.has_value());
  const std::string lds_url = (*lds)->endpoint_url();
  CHECK(lds_lists(lds_url, lds_test_uri, true));
  CHECK(lds_lists(lds_url, registering_test_uri, false));

  auto plan = discovery_test_plan(registering_test_uri, dir.path / "registering-pki");
  // The registration's client reads the PKI folder: the LDS's certificate goes into trusted/.
  std::filesystem::create_directories(dir.path / "registering-pki" / "trusted" / "certs");
  std::filesystem::copy_file(lds_cert, dir.path / "registering-pki" / "trusted" / "certs" / "lds.der");
  plan.discovery.register_with = lds_url;
  auto registering = rt.start_server(plan);
  REQUIRE(registering.has_value());
  CHECK(lds_lists(lds_url, registering_test_uri, true));
  (*registering)->stop();
  CHECK(lds_lists(lds_url, registering_test_uri, false));
}

TEST_CASE("discovery: against a server that is no LDS the registration falls back to RegisterServer and reports "
          "Bad_ServiceUnsupported",
          "[runtime][lds]") {
  temp_folder dir("discovery-fallback");
  const auto registering_cert = dir.path / "registering.der";
  own_certificate_beforehand(dir.path / "registering-pki", registering_test_uri, registering_cert);
  const auto plain_cert = dir.path / "plain.der";
  own_certificate_beforehand(dir.path / "plain-pki", lds_test_uri, plain_cert);
  // Its trust store first, so that the registering side trusts the plain server's certificate.
  std::filesystem::create_directories(dir.path / "registering-pki" / "trusted" / "certs");
  std::filesystem::copy_file(plain_cert, dir.path / "registering-pki" / "trusted" / "certs" / "plain.der");

  caf::actor_system_config cfg;
  configure_client_system(cfg);
  caf::actor_system sys{cfg};
  runtime rt;
  auto plain_plan = discovery_test_plan(lds_test_uri, dir.path / "plain-pki");
  plain_plan.trust = {registering_cert.string()};
  auto plain = rt.start_server(plain_plan);
  REQUIRE(plain.has_value());

  app::registrar_options o;
  o.discovery_url = (*plain)->endpoint_url();
  o.pki_dir = (dir.path / "registering-pki").string();
  o.server.server_uri = ua::ua_string(registering_test_uri);
  o.server.server_names.push_back({ua::ua_string("en"), ua::ua_string("registering")});
  o.server.discovery_urls.push_back(ua::ua_string("opc.tcp://127.0.0.1:4840"));
  o.server.server_type = ua::application_type::server;
  const auto r = app::register_once(sys, o, true);
  CHECK(r.status == ua::status::bad_service_unsupported);
  CHECK(r.fell_back);
}

TEST_CASE("discovery: a server registered with a semaphore file is listed while the file exists, even after "
          "IsOnline false",
          "[runtime][lds]") {
  // Part 4 §7.32: an automatically launched server's semaphore file says whether it is there.
  temp_folder dir("discovery-semaphore");
  const auto registering_cert = dir.path / "registering.der";
  own_certificate_beforehand(dir.path / "registering-pki", registering_test_uri, registering_cert);
  const auto lds_cert = dir.path / "lds.der";
  own_certificate_beforehand(dir.path / "lds-pki", lds_test_uri, lds_cert);
  std::filesystem::create_directories(dir.path / "registering-pki" / "trusted" / "certs");
  std::filesystem::copy_file(lds_cert, dir.path / "registering-pki" / "trusted" / "certs" / "lds.der");
  const auto semaphore = dir.path / "registering.semaphore";
  std::ofstream(semaphore) << "launched\n";

  caf::actor_system_config cfg;
  configure_client_system(cfg);
  caf::actor_system sys{cfg};
  runtime rt;
  auto lds_plan = discovery_test_plan(lds_test_uri, dir.path / "lds-pki");
  lds_plan.trust = {registering_cert.string()};
  lds_plan.discovery.lds = true;
  auto lds = rt.start_server(lds_plan);
  REQUIRE(lds.has_value());

  app::registrar_options o;
  o.discovery_url = (*lds)->endpoint_url();
  o.pki_dir = (dir.path / "registering-pki").string();
  o.server.server_uri = ua::ua_string(registering_test_uri);
  o.server.server_names.push_back({ua::ua_string("en"), ua::ua_string("registering")});
  o.server.discovery_urls.push_back(ua::ua_string("opc.tcp://127.0.0.1:4840"));
  o.server.server_type = ua::application_type::server;
  o.server.semaphore_file_path = ua::ua_string(semaphore.string());
  REQUIRE(app::register_once(sys, o, true).status == ua::status::good);
  CHECK(lds_lists(o.discovery_url, registering_test_uri, true));
  REQUIRE(app::register_once(sys, o, false).status == ua::status::good);  // IsOnline false: ignored
  CHECK(lds_lists(o.discovery_url, registering_test_uri, true));
  std::filesystem::remove(semaphore);
  CHECK(lds_lists(o.discovery_url, registering_test_uri, false));
}
