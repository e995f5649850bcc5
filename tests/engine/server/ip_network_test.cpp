// ip_network (the login guard's exempt addresses): CIDR parsing with its refusals, and which peer
// addresses a network contains.
#include <catch2/catch.hpp>

#include <string>

#include "engine/server/ip_network.hpp"

namespace ip_network_test {

using uactor::actors::ip_network;

ip_network net(const char* text) {
  std::string why;
  auto n = ip_network::parse(text, why);
  INFO(text << ": " << why);
  REQUIRE(n);
  return *n;
}

std::string refusal(const char* text) {
  std::string why;
  CHECK_FALSE(ip_network::parse(text, why));
  return why;
}

TEST_CASE("ip_network: IPv4 networks and single addresses", "[engine][login]") {
  const auto ten = net("10.0.0.0/8");
  CHECK(ten.contains("10.0.0.1"));
  CHECK(ten.contains("10.255.255.255"));
  CHECK_FALSE(ten.contains("11.0.0.1"));
  CHECK_FALSE(ten.contains("9.255.255.255"));
  CHECK(ten.to_string() == "10.0.0.0/8");

  const auto one = net("192.0.2.7");
  CHECK(one.contains("192.0.2.7"));
  CHECK_FALSE(one.contains("192.0.2.6"));
  CHECK(one.to_string() == "192.0.2.7/32");

  const auto odd = net("192.0.2.128/25");  // a prefix that does not end on a byte
  CHECK(odd.contains("192.0.2.200"));
  CHECK_FALSE(odd.contains("192.0.2.127"));

  const auto all = net("0.0.0.0/0");
  CHECK(all.contains("203.0.113.9"));
  CHECK_FALSE(all.contains("::1"));  // the other family
}

TEST_CASE("ip_network: IPv6, and IPv4 peers of a dual-stack socket", "[engine][login]") {
  const auto ula = net("fd00::/8");
  CHECK(ula.contains("fd12:3456::1"));
  CHECK_FALSE(ula.contains("fe80::1"));
  CHECK(net("::1").contains("::1"));
  CHECK_FALSE(net("::1").contains("::2"));
  // ::ffff:10.1.2.3 is how a dual-stack listener sees an IPv4 peer.
  CHECK(net("10.0.0.0/8").contains("::ffff:10.1.2.3"));
  CHECK_FALSE(net("fd00::/8").contains("10.1.2.3"));
}

TEST_CASE("ip_network: what is not a network is refused, saying why", "[engine][login]") {
  CHECK(refusal("gateway") == "\"gateway\" is not an IPv4 or IPv6 address");
  CHECK(refusal("") == "\"\" is not an IPv4 or IPv6 address");
  CHECK(refusal("10.0.0.0/") == "\"10.0.0.0/\": the prefix after '/' is not a number");
  CHECK(refusal("10.0.0.0/-1") == "\"10.0.0.0/-1\": the prefix after '/' is not a number");
  CHECK(refusal("10.0.0.0/8x") == "\"10.0.0.0/8x\": the prefix after '/' is not a number");
  CHECK(refusal("10.0.0.0/33") == "\"10.0.0.0/33\": an IPv4 prefix is at most 32");
  CHECK(refusal("::/129") == "\"::/129\": an IPv6 prefix is at most 128");
  CHECK(refusal("10.0.0.1/8") == "\"10.0.0.1/8\" has bits set past its /8 prefix");
  CHECK(refusal(std::string(200, '1').c_str()).find("is not an IPv4 or IPv6 address") != std::string::npos);
  // What does not parse is in no network.
  CHECK_FALSE(net("0.0.0.0/0").contains(""));
  CHECK_FALSE(net("0.0.0.0/0").contains("an unknown address"));
}

}  // namespace ip_network_test
