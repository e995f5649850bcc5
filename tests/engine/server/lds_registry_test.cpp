// The Local Discovery Server's state and services without a socket (Part 12 §4.3; Part 4 §5.4.2,
// §5.4.3, §5.4.5, §5.4.6): the registry (renewal, expiry, limits), who may register, and what
// FindServers and FindServersOnNetwork answer from it.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/server/services/discovery.hpp"
#include "engine/server/services/register_server.hpp"
#include "engine/server/services/server_registry.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace uactor::ua;
using namespace uactor::services;
using namespace std::chrono_literals;

namespace {

actors::instant lds_at(std::chrono::seconds t) {
  return {std::chrono::steady_clock::time_point{} + t, date_time{133'000'000'000'000'000 + t.count() * 10'000'000}};
}

registered_server lds_server(std::string uri, std::vector<std::string> urls = {"opc.tcp://plant-a:4840"}) {
  registered_server s;
  s.server_uri = ua_string(uri);
  s.product_uri = ua_string("urn:product");
  s.server_names.push_back({ua_string("en"), ua_string("Plant " + uri)});
  s.server_type = application_type::server;
  for (auto& u : urls) s.discovery_urls.push_back(ua_string(u));
  s.is_online = true;
  return s;
}

registering_channel lds_channel_of(std::string uri) {
  return {message_security_mode::sign_and_encrypt, std::move(uri)};
}

server_description lds_self() {
  server_description d;
  d.application_uri = "urn:lds:uactor:server";
  d.application_name = "the LDS";
  d.endpoint_url = "opc.tcp://lds:4840";
  return d;
}

}  // namespace

TEST_CASE("lds registry: a registration renews in place with new record ids, IsOnline false removes it", "[lds]") {
  server_registry r;
  REQUIRE(r.put(lds_server("urn:a"), {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.size() == 1);
  const std::uint32_t first = r.find("urn:a")->first_record_id;
  REQUIRE(r.put(lds_server("urn:a", {"opc.tcp://plant-a:4841"}), {}, {}, lds_at(60s)) == status::good);
  REQUIRE(r.size() == 1);
  CHECK(r.find("urn:a")->first_record_id > first);
  CHECK(r.find("urn:a")->server.discovery_urls[0].view() == "opc.tcp://plant-a:4841");
  auto offline = lds_server("urn:a");
  offline.is_online = false;
  CHECK(r.put(offline, {}, {}, lds_at(61s)) == status::good);
  CHECK(r.size() == 0);
  CHECK(r.put(offline, {}, {}, lds_at(62s)) == status::good);  // not there: Good all the same
}

TEST_CASE("lds registry: a server that stops renewing is dropped after the expiry, a renewing one stays", "[lds]") {
  server_registry r(registry_limits{.expiry = 100s});
  REQUIRE(r.put(lds_server("urn:a"), {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:b"), {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:b"), {}, {}, lds_at(90s)) == status::good);
  r.expire(lds_at(99s));
  CHECK(r.size() == 2);
  r.expire(lds_at(100s));
  CHECK(r.find("urn:a") == nullptr);
  CHECK(r.find("urn:b") != nullptr);
  r.expire(lds_at(190s));
  CHECK(r.size() == 0);
}

TEST_CASE("lds registry: with a semaphore file IsOnline is ignored, and the server goes when its file goes",
          "[lds]") {
  // Part 4 §7.32: an automatically launched server is there while its semaphore file exists.
  const std::string file = std::filesystem::temp_directory_path() / ("uactor-lds-semaphore-" + std::to_string(::getpid()));
  std::FILE* f = std::fopen(file.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fclose(f);
  server_registry r;
  auto s = lds_server("urn:auto");
  s.semaphore_file_path = ua_string(file);
  REQUIRE(r.put(s, {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:manual"), {}, {}, lds_at(0s)) == status::good);
  s.is_online = false;
  CHECK(r.put(s, {}, {}, lds_at(1s)) == status::good);
  r.drop_missing_semaphores();
  CHECK(r.find("urn:auto") != nullptr);
  std::remove(file.c_str());
  r.drop_missing_semaphores();
  CHECK(r.find("urn:auto") == nullptr);
  CHECK(r.find("urn:manual") != nullptr);  // no semaphore: only IsOnline and the expiry remove it
}

TEST_CASE("lds registry: past max_servers a new server is refused, a known one still renews and leaves", "[lds]") {
  server_registry r(registry_limits{.max_servers = 2});
  REQUIRE(r.put(lds_server("urn:a"), {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:b"), {}, {}, lds_at(0s)) == status::good);
  CHECK(r.put(lds_server("urn:c"), {}, {}, lds_at(1s)) == status::bad_too_many_operations);
  CHECK(r.put(lds_server("urn:a"), {}, {}, lds_at(2s)) == status::good);
  auto gone = lds_server("urn:b");
  gone.is_online = false;
  CHECK(r.put(gone, {}, {}, lds_at(3s)) == status::good);
  CHECK(r.put(lds_server("urn:c"), {}, {}, lds_at(4s)) == status::good);
  CHECK(r.size() == 2);
}

TEST_CASE("lds registry: strings and URL lists are kept within their limits", "[lds]") {
  server_registry r(registry_limits{.max_urls_per_server = 2, .max_string_length = 8});
  REQUIRE(r.put(lds_server("urn:a", {"opc.tcp://one-long-name:1", "opc.tcp://two:2", "opc.tcp://three:3"}), "m",
                {"LDS", "DA", "HD"}, lds_at(0s)) == status::good);
  const registration* a = r.find("urn:a");
  REQUIRE(a);
  CHECK(a->server.discovery_urls.size() == 2);
  CHECK(a->server.discovery_urls[0].view() == "opc.tcp:");
  CHECK(a->capabilities.size() == 2);
}

TEST_CASE("register_server: refused over None, for another certificate's URI, a Client, no name, no URL, "
          "a missing semaphore file",
          "[lds]") {
  std::string why;
  const auto s = lds_server("urn:a");
  CHECK(check_registration(s, {message_security_mode::none, ""}, why) == status::bad_security_mode_insufficient);
  CHECK(check_registration(s, lds_channel_of("urn:someone-else"), why) == status::bad_server_uri_invalid);
  CHECK(why.find("urn:someone-else") != std::string::npos);
  auto no_uri = s;
  no_uri.server_uri = ua_string();
  CHECK(check_registration(no_uri, lds_channel_of(""), why) == status::bad_server_uri_invalid);
  auto client = s;
  client.server_type = application_type::client;
  CHECK(check_registration(client, lds_channel_of("urn:a"), why) == status::bad_invalid_argument);
  auto unnamed = s;
  unnamed.server_names = {{ua_string("en"), ua_string("")}};
  CHECK(check_registration(unnamed, lds_channel_of("urn:a"), why) == status::bad_server_name_missing);
  auto no_url = s;
  no_url.discovery_urls.clear();
  CHECK(check_registration(no_url, lds_channel_of("urn:a"), why) == status::bad_discovery_url_missing);
  auto semaphore = s;
  semaphore.semaphore_file_path = ua_string("/nonexistent/uactor-lds-semaphore");
  CHECK(check_registration(semaphore, lds_channel_of("urn:a"), why) == status::bad_sempahore_file_missing);
  semaphore.semaphore_file_path = ua_string("/");
  CHECK(check_registration(semaphore, lds_channel_of("urn:a"), why) == status::good);
  CHECK(check_registration(s, {message_security_mode::sign, "urn:a"}, why) == status::good);
  // A gateway registers a server behind it under its own certificate.
  auto behind = lds_server("urn:behind");
  behind.gateway_server_uri = ua_string("urn:gateway");
  CHECK(check_registration(behind, lds_channel_of("urn:gateway"), why) == status::good);
  CHECK(check_registration(behind, lds_channel_of("urn:behind"), why) == status::bad_server_uri_invalid);
}

TEST_CASE("register_server: a refusal leaves the registry unchanged, an accepted one answers Good with the handle",
          "[lds]") {
  server_registry r;
  register_server_request req;
  req.request_header.request_handle = 7;
  req.server = lds_server("urn:a");
  register_server_response resp;
  std::string why;
  service_register_server(req, resp, r, lds_channel_of("urn:b"), lds_at(0s), why);
  CHECK(resp.response_header.service_result == status::bad_server_uri_invalid);
  CHECK(r.size() == 0);
  service_register_server(req, resp, r, lds_channel_of("urn:a"), lds_at(0s), why);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.response_header.request_handle == 7);
  CHECK(r.size() == 1);
}

TEST_CASE("register_server2: one result per discovery configuration, the mDNS name and capabilities kept", "[lds]") {
  server_registry r;
  register_server2_request req;
  req.server = lds_server("urn:a");
  mdns_discovery_configuration mdns;
  mdns.mdns_server_name = ua_string("plant-a");
  mdns.server_capabilities = {ua_string("da"), ua_string("HD")};
  req.discovery_configuration.push_back(extension_object(mdns));
  req.discovery_configuration.push_back(extension_object(lds_server("urn:not-a-configuration")));
  register_server2_response resp;
  std::string why;
  service_register_server2(req, resp, r, lds_channel_of("urn:a"), lds_at(0s), why);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.configuration_results.size() == 2);
  CHECK(resp.configuration_results[0] == status::good);
  CHECK(resp.configuration_results[1] == status::bad_not_supported);
  REQUIRE(r.find("urn:a"));
  CHECK(r.find("urn:a")->mdns_server_name == "plant-a");
  CHECK(r.find("urn:a")->capabilities == std::vector<std::string>{"DA", "HD"});
}

TEST_CASE("lds find_servers: itself, then the registered servers the ServerUris name, names by locale", "[lds]") {
  server_registry r;
  auto a = lds_server("urn:a");
  a.server_names = {{ua_string("en"), ua_string("Plant A")}, {ua_string("de"), ua_string("Anlage A")}};
  REQUIRE(r.put(a, {}, {}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:b", {"opc.tcp://plant-b:4840"}), {}, {}, lds_at(0s)) == status::good);
  find_servers_request req;
  find_servers_response resp;
  service_find_servers(req, resp, lds_self(), date_time{}, &r);
  REQUIRE(resp.servers.size() == 3);
  CHECK(resp.servers[0].application_uri.view() == "urn:lds:uactor:server");
  CHECK(resp.servers[1].application_uri.view() == "urn:a");
  CHECK(resp.servers[1].application_name.text.view() == "Plant A");
  CHECK(resp.servers[2].discovery_urls == ua_array<ua_string>{ua_string("opc.tcp://plant-b:4840")});

  req.locale_ids = {ua_string("fr"), ua_string("de")};
  req.server_uris = {ua_string("urn:a")};
  service_find_servers(req, resp, lds_self(), date_time{}, &r);
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0].application_name.text.view() == "Anlage A");
  CHECK(resp.servers[0].application_type == application_type::server);

  // Without a registry (not an LDS): itself only.
  req = {};
  service_find_servers(req, resp, lds_self(), date_time{}, nullptr);
  CHECK(resp.servers.size() == 1);
}

TEST_CASE("lds find_servers_on_network: records in id order, from StartingRecordId, at most MaxRecordsToReturn, "
          "by capability",
          "[lds]") {
  server_registry r(registry_limits{}, date_time{42});
  own_network_record own{r.take_record_ids(1), {"LDS"}};
  REQUIRE(r.put(lds_server("urn:a", {"opc.tcp://a:1", "opc.tcp://a:2"}), "plant-a", {"DA"}, lds_at(0s)) == status::good);
  REQUIRE(r.put(lds_server("urn:b"), {}, {"DA", "HD"}, lds_at(0s)) == status::good);
  find_servers_on_network_request req;
  find_servers_on_network_response resp;
  service_find_servers_on_network(req, resp, lds_self(), own, r, date_time{});
  CHECK(resp.last_counter_reset_time == date_time{42});
  REQUIRE(resp.servers.size() == 4);
  CHECK(resp.servers[0].record_id == own.first_record_id);
  CHECK(resp.servers[0].server_name.view() == "the LDS");
  CHECK(resp.servers[0].server_capabilities == ua_array<ua_string>{ua_string("LDS")});
  CHECK(resp.servers[1].server_name.view() == "plant-a");
  CHECK(resp.servers[2].discovery_url.view() == "opc.tcp://a:2");
  CHECK(resp.servers[3].server_name.view() == "Plant urn:b");
  for (std::size_t i = 1; i < resp.servers.size(); ++i) CHECK(resp.servers[i - 1].record_id < resp.servers[i].record_id);

  req.starting_record_id = resp.servers[1].record_id;
  req.max_records_to_return = 1;
  service_find_servers_on_network(req, resp, lds_self(), own, r, date_time{});
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0].discovery_url.view() == "opc.tcp://a:2");

  req = {};
  req.server_capability_filter = {ua_string("hd"), ua_string("da")};
  service_find_servers_on_network(req, resp, lds_self(), own, r, date_time{});
  REQUIRE(resp.servers.size() == 1);
  CHECK(resp.servers[0].discovery_url.view() == "opc.tcp://plant-a:4840");
}
