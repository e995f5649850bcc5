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


// The two sides' certificates, made beforehand, each trusting the other: the discovery server's
// plan trusts the registering server's certificate (in `plan.trust`), and the registering side's
// PKI folder (the registration's client reads it) gets the discovery server's in trusted/.
struct trusting_pair {
  std::filesystem::path registering_pki, lds_pki;
  server_plan lds_plan;
};

trusting_pair certificates_both_ways(const std::filesystem::path& dir) {
  trusting_pair p{dir / "registering-pki", dir / "lds-pki", {}};
  const auto registering_cert = dir / "registering.der";
  own_certificate_beforehand(p.registering_pki, registering_test_uri, registering_cert);
  const auto lds_cert = dir / "lds.der";
  own_certificate_beforehand(p.lds_pki, lds_test_uri, lds_cert);
  std::filesystem::create_directories(p.registering_pki / "trusted" / "certs");
  std::filesystem::copy_file(lds_cert, p.registering_pki / "trusted" / "certs" / "lds.der");
  p.lds_plan = discovery_test_plan(lds_test_uri, p.lds_pki);
  p.lds_plan.trust = {registering_cert.string()};
  return p;
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


// A registration of the test's registering server with the discovery server at `url`, through
// the registrar's one-shot call (app::register_once) with the certificate of `pki`.
app::registrar_options registering_as_test_server(const std::string& url, const std::filesystem::path& pki) {
  app::registrar_options o;
  o.discovery_url = url;
  o.pki_dir = pki.string();
  o.server.server_uri = ua::ua_string(registering_test_uri);
  o.server.server_names.push_back({ua::ua_string("en"), ua::ua_string("registering")});
  o.server.discovery_urls.push_back(ua::ua_string("opc.tcp://127.0.0.1:4840"));
  o.server.server_type = ua::application_type::server;
  return o;
}

}  // namespace

TEST_CASE("discovery: a server registers with our LDS, is listed, and is gone after its shutdown", "[runtime][lds]") {
  temp_folder dir("discovery-registration");
  auto pair = certificates_both_ways(dir.path);
  runtime rt;
  pair.lds_plan.discovery.lds = true;
  auto lds = rt.start_server(pair.lds_plan);
  REQUIRE(lds.has_value());
  const std::string lds_url = (*lds)->endpoint_url();
  CHECK(lds_lists(lds_url, lds_test_uri, true));
  CHECK(lds_lists(lds_url, registering_test_uri, false));

  auto plan = discovery_test_plan(registering_test_uri, pair.registering_pki);
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
  auto pair = certificates_both_ways(dir.path);  // the plain server has the LDS's certificate

  caf::actor_system_config cfg;
  configure_client_system(cfg);
  caf::actor_system sys{cfg};
  runtime rt;
  auto plain = rt.start_server(pair.lds_plan);
  REQUIRE(plain.has_value());

  const auto o = registering_as_test_server((*plain)->endpoint_url(), pair.registering_pki);
  const auto r = app::register_once(sys, o, true);
  CHECK(r.status == ua::status::bad_service_unsupported);
  CHECK(r.fell_back);
}

TEST_CASE("discovery: a server registered with a semaphore file is listed while the file exists, even after "
          "IsOnline false",
          "[runtime][lds]") {
  // Part 4 §7.32: an automatically launched server's semaphore file says whether it is there.
  temp_folder dir("discovery-semaphore");
  auto pair = certificates_both_ways(dir.path);
  const auto semaphore = dir.path / "registering.semaphore";
  std::ofstream(semaphore) << "launched\n";

  caf::actor_system_config cfg;
  configure_client_system(cfg);
  caf::actor_system sys{cfg};
  runtime rt;
  pair.lds_plan.discovery.lds = true;
  auto lds = rt.start_server(pair.lds_plan);
  REQUIRE(lds.has_value());

  auto o = registering_as_test_server((*lds)->endpoint_url(), pair.registering_pki);
  o.server.semaphore_file_path = ua::ua_string(semaphore.string());
  REQUIRE(app::register_once(sys, o, true).status == ua::status::good);
  CHECK(lds_lists(o.discovery_url, registering_test_uri, true));
  REQUIRE(app::register_once(sys, o, false).status == ua::status::good);  // IsOnline false: ignored
  CHECK(lds_lists(o.discovery_url, registering_test_uri, true));
  std::filesystem::remove(semaphore);
  CHECK(lds_lists(o.discovery_url, registering_test_uri, false));
}
