// A server bound to 127.0.0.1 with the machine's host name left as default_server_plan() puts it:
// what it advertises (endpoint_urls(), GetEndpoints without an EndpointUrl, the
// DiscoveryUrls) names the address it listens on, and a client following that URL reaches it,
// whatever the host name resolves to. tests/runtime/hosts_127_0_1_1.sh runs it where the host name
// resolves to 127.0.1.1, as on a standard Debian. The embedding API only (no internal header).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

std::string host_of(const std::string& url) {
  const auto begin = url.find("://") + 3;
  return url.substr(begin, url.rfind(':') - begin);
}

}  // namespace

TEST_CASE("advertised_url: a server on 127.0.0.1 without host_name advertises the address, and a client following "
          "GetEndpoints reaches it",
          "[runtime][advertised]") {
  runtime rt;
  auto plan = default_server_plan();  // the machine's host name, as `uactor run` without host_name
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  server& srv = **s;
  const std::string url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  CHECK(srv.endpoint_url() == url);
  CHECK(srv.endpoint_urls() == std::vector<std::string>{url});

  client_options o;
  o.endpoint_url = url;  // where the server listens
  o.create_session = false;
  o.connect_timeout = o.request_timeout = 10s;
  auto discovery = rt.connect(o);
  REQUIRE(discovery.has_value());
  // No EndpointUrl in the request: the server names its endpoints as configured, not as reached
  // (Part 4 §5.4.4.2), which is what a client following GetEndpoints connects to.
  auto eps = discovery->get_endpoints_sync(ua::get_endpoints_request{});
  REQUIRE(eps.has_value());
  REQUIRE(eps->endpoints.size() == 1);
  const std::string advertised = eps->endpoints[0].endpoint_url.str();
  CHECK(host_of(advertised) == "127.0.0.1");
  CHECK(advertised == url);
  const auto& discovery_urls = eps->endpoints[0].server.discovery_urls;  // FindServers' too (Part 4 §7.2)
  REQUIRE(discovery_urls.size() == 1);
  CHECK(discovery_urls[0].str() == url);
  discovery->close();

  // Following it reaches the server: a session through the advertised URL.
  client_options follow;
  follow.endpoint_url = advertised;
  follow.connect_timeout = follow.request_timeout = 10s;
  auto c = rt.connect(follow);
  REQUIRE(c.has_value());
  c->close();
}
