// Tests of the services without an address space: GetEndpoints and FindServers (Part 4 §5.4), and
// RegisterNodes / UnregisterNodes (Part 4 §5.8.5-5.8.6).
#include <catch2/catch.hpp>

#include <string>

#include "engine/server/services/discovery.hpp"
#include "engine/server/services/register_nodes.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_discovery_test {

using namespace uactor;
using namespace uactor::ua;
using namespace uactor::services;

namespace {

constexpr date_time now{133'000'000'000'000'000};

server_description description() {
  server_description d;
  d.application_uri = "urn:box:uactor:server";
  d.endpoint_url = "opc.tcp://box:4840";
  return d;
}

}  // namespace

TEST_CASE("discovery: the one endpoint is None/None, anonymous, UA-TCP binary, SecurityLevel 0", "[actors]") {
  const auto endpoints = make_endpoints(description());
  REQUIRE(endpoints.size() == 1);
  const endpoint_description& e = endpoints[0];
  CHECK(e.endpoint_url.view() == "opc.tcp://box:4840");
  CHECK(e.security_mode == message_security_mode::none);
  CHECK(e.security_policy_uri.view() == "http://opcfoundation.org/UA/SecurityPolicy#None");
  CHECK(e.transport_profile_uri.view() == "http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary");
  CHECK(e.security_level == 0);
  CHECK(e.server_certificate.is_null());
  REQUIRE(e.user_identity_tokens.size() == 1);
  CHECK(e.user_identity_tokens[0].policy_id.view() == "anonymous");
  CHECK(e.user_identity_tokens[0].token_type == user_token_type::anonymous);
  CHECK(e.server.application_uri.view() == "urn:box:uactor:server");
  CHECK(e.server.product_uri.view() == "urn:uactor");
  CHECK(e.server.application_name.text.view() == "uactor");
  CHECK(e.server.application_type == application_type::server);
  CHECK(e.server.discovery_urls == ua_array<ua_string>{ua_string("opc.tcp://box:4840")});
}

TEST_CASE("discovery: GetEndpoints answers with the host the client used, the request's handle", "[actors]") {
  const auto endpoints = make_endpoints(description());
  get_endpoints_request req;
  req.request_header.request_handle = 9;
  get_endpoints_response resp;
  service_get_endpoints(req, resp, endpoints, now);  // no EndpointUrl: the configured one
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.response_header.request_handle == 9);
  CHECK(resp.response_header.timestamp == now);
  CHECK(resp.endpoints == endpoints);

  req.endpoint_url = ua_string("opc.tcp://127.0.0.1:14840/some/path");
  service_get_endpoints(req, resp, endpoints, now);
  REQUIRE(resp.endpoints.size() == 1);
  CHECK(resp.endpoints[0].endpoint_url.view() == "opc.tcp://127.0.0.1:4840");  // our port, their host
  CHECK(resp.endpoints[0].server.discovery_urls[0].view() == "opc.tcp://127.0.0.1:4840");
  CHECK(resp.endpoints[0].user_identity_tokens == endpoints[0].user_identity_tokens);

  req.endpoint_url = ua_string("not a url");
  service_get_endpoints(req, resp, endpoints, now);
  CHECK(resp.endpoints == endpoints);
}

TEST_CASE("discovery: GetEndpoints filters by ProfileUris", "[actors]") {
  const auto endpoints = make_endpoints(description());
  get_endpoints_request req;
  get_endpoints_response resp;
  req.profile_uris = {ua_string("http://opcfoundation.org/UA-Profile/Transport/https-uabinary")};
  service_get_endpoints(req, resp, endpoints, now);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.endpoints.empty());
  req.profile_uris.emplace_back("http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary");
  service_get_endpoints(req, resp, endpoints, now);
  CHECK(resp.endpoints.size() == 1);
}

TEST_CASE("discovery: FindServers returns this server unless ServerUris names others only", "[actors]") {
  const auto d = description();
  find_servers_request req;
  req.request_header.request_handle = 3;
  find_servers_response resp;
  service_find_servers(req, resp, d, now);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.response_header.request_handle == 3);
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0] == make_application_description(d));

  req.server_uris = {ua_string("urn:elsewhere")};
  service_find_servers(req, resp, d, now);
  CHECK(resp.servers.empty());
  req.server_uris.emplace_back("urn:box:uactor:server");
  req.endpoint_url = ua_string("opc.tcp://[::1]:4840");
  service_find_servers(req, resp, d, now);
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0].discovery_urls == ua_array<ua_string>{ua_string("opc.tcp://[::1]:4840")});
}

TEST_CASE("discovery: with_host_of replaces the host only", "[actors]") {
  CHECK(with_host_of("opc.tcp://box:4840", "opc.tcp://10.0.0.5:4840") == "opc.tcp://10.0.0.5:4840");
  CHECK(with_host_of("opc.tcp://box:4840/uactor", "opc.tcp://alias") == "opc.tcp://alias:4840/uactor");
  CHECK(with_host_of("opc.tcp://box/x", "opc.tcp://[fe80::1]:99/y") == "opc.tcp://[fe80::1]/x");
  CHECK(with_host_of("opc.tcp://[::1]:4840", "opc.tcp://user@h:1") == "opc.tcp://h:4840");
  CHECK(with_host_of("opc.tcp://box:4840", "opc.tcp://") == "opc.tcp://box:4840");
  CHECK(with_host_of("opc.tcp://box:4840", "box") == "opc.tcp://box:4840");
  CHECK(with_host_of("box:4840", "opc.tcp://h") == "box:4840");
  CHECK(with_host_of("opc.tcp://box:4840", "opc.tcp://[::1") == "opc.tcp://box:4840");
}

TEST_CASE("register_nodes: the ids come back unchanged, the handle answered", "[actors]") {
  register_nodes_request req;
  req.request_header.request_handle = 5;
  req.nodes_to_register = {node_id(0, 2258), node_id::string(1, "the.answer"), node_id::string(7, "not there")};
  register_nodes_response resp;
  service_register_nodes(req, resp, now);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.response_header.request_handle == 5);
  CHECK(resp.response_header.timestamp == now);
  CHECK(resp.registered_node_ids == req.nodes_to_register);
}

TEST_CASE("register_nodes: empty is Bad_NothingToDo, too many Bad_TooManyOperations, a null id Bad_NodeIdInvalid",
          "[actors]") {
  register_nodes_request req;
  register_nodes_response resp;
  resp.registered_node_ids = {node_id(0, 1)};  // a previous answer is not left behind
  service_register_nodes(req, resp, now);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  CHECK(resp.registered_node_ids.empty());

  service_limits limits;
  limits.max_nodes_per_register_nodes = 2;
  req.nodes_to_register = {node_id(0, 1), node_id(0, 2), node_id(0, 3)};
  service_register_nodes(req, resp, now, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
  CHECK(resp.registered_node_ids.empty());

  req.nodes_to_register = {node_id(0, 1), node_id{}};
  service_register_nodes(req, resp, now, limits);
  CHECK(resp.response_header.service_result == status::bad_node_id_invalid);
  CHECK(resp.registered_node_ids.empty());

  req.nodes_to_register = {node_id(0, 1), node_id(0, 2)};
  service_register_nodes(req, resp, now, limits);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.registered_node_ids.size() == 2);
}

TEST_CASE("unregister_nodes: Good for any ids, Bad_NothingToDo when empty, Bad_TooManyOperations", "[actors]") {
  unregister_nodes_request req;
  req.request_header.request_handle = 8;
  unregister_nodes_response resp;
  service_unregister_nodes(req, resp, now);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  CHECK(resp.response_header.request_handle == 8);
  req.nodes_to_unregister = {node_id(0, 1), node_id::string(3, "never registered")};
  service_unregister_nodes(req, resp, now);
  CHECK(resp.response_header.service_result == status::good);
  service_limits limits;
  limits.max_nodes_per_register_nodes = 1;
  service_unregister_nodes(req, resp, now, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
}

TEST_CASE("discovery: a server of two endpoints lists each with its own URL and token policies, and both "
          "DiscoveryUrls",
          "[actors]") {
  server_description d = description();
  d.endpoint_urls = {"opc.tcp://box:4840", "opc.tcp://box:4841"};
  actors::server_security sec;
  sec.offers = {actors::security_offer{}};
  sec.endpoints.resize(2);
  sec.endpoints[0].offers = {actors::security_offer{}};
  sec.endpoints[1].offers = {actors::security_offer{}};
  sec.endpoints[1].tokens.anonymous = false;  // the second offers no anonymous sessions
  const auto endpoints = make_endpoints(d, sec);
  REQUIRE(endpoints.size() == 2);
  CHECK(endpoints[0].endpoint_url.view() == "opc.tcp://box:4840");
  CHECK(endpoints[1].endpoint_url.view() == "opc.tcp://box:4841");
  REQUIRE(endpoints[0].user_identity_tokens.size() == 1);
  CHECK(endpoints[1].user_identity_tokens.empty());
  const ua_array<ua_string> both{ua_string("opc.tcp://box:4840"), ua_string("opc.tcp://box:4841")};
  CHECK(endpoints[0].server.discovery_urls == both);
  CHECK(endpoints[1].server.discovery_urls == both);
  // What each channel may ask for goes by its endpoint.
  CHECK(sec.tokens_at(0).anonymous);
  CHECK_FALSE(sec.tokens_at(1).anonymous);
  CHECK_FALSE(sec.tokens_at(2).anonymous);  // no such endpoint: nothing
  CHECK_FALSE(sec.is_offered_at(2, security::policy_none(), message_security_mode::none));

  find_servers_request req;
  req.endpoint_url = ua_string("opc.tcp://10.0.0.7:4841");
  find_servers_response resp;
  service_find_servers(req, resp, d, now);
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0].discovery_urls ==
        ua_array<ua_string>{ua_string("opc.tcp://10.0.0.7:4840"), ua_string("opc.tcp://10.0.0.7:4841")});
}

}  // namespace server_discovery_test
