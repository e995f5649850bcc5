// What an endpoint names in its URL (runtime/advertised_host.hpp): the decision as a pure
// function (listen address, host name, what the host name resolves to -> what is advertised and
// why), and the plan's walk over its endpoints. advertised_url_test.cpp runs a server.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/advertised_host.hpp"
#include "uactor/server_plan.hpp"

using namespace uactor;
using because = advertised_because;

namespace {

const std::vector<std::string> debian{"127.0.1.1"};  // Debian's /etc/hosts: 127.0.1.1 <host name>
const std::vector<std::string> nothing;

}  // namespace

TEST_CASE("advertised_host: a loopback listen address advertises the address, not the host name", "[runtime][advertised]") {
  const auto a = choose_advertised_host("127.0.0.1", "", "vm", debian);
  CHECK(a.host == "127.0.0.1");
  CHECK(a.why == because::loopback);
  CHECK(choose_advertised_host("127.0.0.1", "", "vm", std::vector<std::string>{"127.0.0.1"}).host == "127.0.0.1");
  CHECK(choose_advertised_host("127.3.2.1", "", "vm", debian).host == "127.3.2.1");  // all of 127.0.0.0/8
  CHECK(choose_advertised_host("::1", "", "vm", debian).why == because::loopback);
  CHECK(endpoint_url(choose_advertised_host("::1", "", "vm", debian).host, 4840) == "opc.tcp://[::1]:4840");
}

TEST_CASE("advertised_host: a host name the plant sets is advertised whatever the listen address", "[runtime][advertised]") {
  for (const char* listen : {"127.0.0.1", "0.0.0.0", "10.1.2.3"}) {
    const auto a = choose_advertised_host(listen, "plc.example", "vm", debian);
    CHECK(a.host == "plc.example");
    CHECK(a.why == because::set_by_plant);
  }
}

TEST_CASE("advertised_host: the any address advertises the host name", "[runtime][advertised]") {
  for (const char* listen : {"0.0.0.0", "::", ""}) {
    const auto a = choose_advertised_host(listen, "", "vm", debian);
    CHECK(a.host == "vm");
    CHECK(a.why == because::any_address);
  }
}

TEST_CASE("advertised_host: a specific address advertises the host name only when it resolves to that address",
          "[runtime][advertised]") {
  const auto resolves = choose_advertised_host("10.1.2.3", "", "vm", std::vector<std::string>{"127.0.1.1", "10.1.2.3"});
  CHECK(resolves.host == "vm");
  CHECK(resolves.why == because::host_name_resolves);
  const auto elsewhere = choose_advertised_host("10.1.2.3", "", "vm", debian);
  CHECK(elsewhere.host == "10.1.2.3");
  CHECK(elsewhere.why == because::host_name_elsewhere);
  const auto unresolved = choose_advertised_host("10.1.2.3", "", "vm", nothing);
  CHECK(unresolved.host == "10.1.2.3");
  CHECK(unresolved.why == because::host_name_elsewhere);
  // Compared as addresses, not as text.
  CHECK(choose_advertised_host("fd00::1", "", "vm", std::vector<std::string>{"fd00:0:0:0:0:0:0:1"}).host == "vm");
}

TEST_CASE("advertised_host: the start line says what is advertised and why", "[runtime][advertised]") {
  const auto loop = explain(choose_advertised_host("127.0.0.1", "", "vm", debian), "127.0.0.1", "vm", debian);
  CHECK(loop.find("advertises 127.0.0.1") != std::string::npos);
  CHECK(loop.find("loopback") != std::string::npos);
  CHECK(loop.find("host_name") != std::string::npos);  // what to set for a name instead
  const auto away = explain(choose_advertised_host("10.1.2.3", "", "vm", debian), "10.1.2.3", "vm", debian);
  CHECK(away.find("advertises 10.1.2.3") != std::string::npos);
  CHECK(away.find("vm resolves to 127.0.1.1") != std::string::npos);
  const auto here = explain(choose_advertised_host("10.1.2.3", "", "vm", std::vector<std::string>{"10.1.2.3"}), "10.1.2.3",
                            "vm", std::vector<std::string>{"10.1.2.3"});
  CHECK(here.find("advertises vm") != std::string::npos);
}

TEST_CASE("advertised_host: a plan's endpoints, the machine's name being no choice of the plant but any other name one",
          "[runtime][advertised]") {
  auto plan = default_server_plan();  // host_name: the machine's
  endpoint_plan loop;
  loop.listen_address = "127.0.0.1";
  loop.port = 4841;
  endpoint_plan any;
  any.listen_address = "0.0.0.0";
  any.port = 4842;
  endpoint_plan named = loop;
  named.host_name = machine_host_name();  // given for the endpoint: advertised even on loopback
  plan.endpoints = {loop, any, named};
  auto hosts = advertised_hosts(plan);
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0].host == "127.0.0.1");
  CHECK(hosts[1].host == machine_host_name());
  CHECK(hosts[2].host == machine_host_name());
  CHECK(hosts[2].why == because::set_by_plant);
  CHECK(plan.endpoint_url() == "opc.tcp://127.0.0.1:4841");
  CHECK(endpoint_url(plan, loop) == "opc.tcp://127.0.0.1:4841");

  plan.host_name = "plant1";  // the server's, for every endpoint without its own
  hosts = advertised_hosts(plan);
  CHECK(hosts[0].host == "plant1");
  CHECK(hosts[1].host == "plant1");
  CHECK(hosts[0].why == because::set_by_plant);
}
