// The redundant client's choice of server (engine/client/failover_policy.hpp, Part 4 §6.6.2.4):
// every rule with made-up states, no network.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/client/failover_policy.hpp"

using namespace uactor::actors;

namespace {

std::size_t choose(std::vector<server_health> s, std::size_t active) { return choose_server(s, active); }

}  // namespace

TEST_CASE("failover policy: the highest ServiceLevel wins at the start, the first on a tie", "[actors]") {
  CHECK(choose({{true, 200}, {true, 255}}, no_server) == 1);
  CHECK(choose({{true, 255}, {true, 255}}, no_server) == 0);
  CHECK(choose({{false, -1}, {true, 150}}, no_server) == 1);
  CHECK(choose({{false, -1}, {false, -1}}, no_server) == no_server);
}

TEST_CASE("failover policy: a healthy active server stays, even beside a higher one (no flapping)", "[actors]") {
  CHECK(choose({{true, 200}, {true, 255}}, 0) == 0);
  CHECK(choose({{true, 255}, {true, 255}}, 1) == 1);
}

TEST_CASE("failover policy: a lost active server is left for the best connected one", "[actors]") {
  CHECK(choose({{false, -1}, {true, 255}}, 0) == 1);
  CHECK(choose({{false, 255}, {true, 100}}, 0) == 1);  // its last level counts for nothing once lost
  CHECK(choose({{false, -1}, {false, -1}, {true, 10}}, 0) == 2);
  CHECK(choose({{false, -1}, {false, -1}}, 0) == no_server);
  CHECK(why_switch(std::vector<server_health>{{false, -1}, {true, 255}}, 0) == switch_cause::not_connected);
}

TEST_CASE("failover policy: a degraded active server is left only for a higher one", "[actors]") {
  CHECK(choose({{true, 150}, {true, 255}}, 0) == 1);
  CHECK(choose({{true, 150}, {true, 150}}, 0) == 0);
  CHECK(choose({{true, 150}, {true, 100}}, 0) == 0);
  CHECK(why_switch(std::vector<server_health>{{true, 150}, {true, 255}}, 0) == switch_cause::service_level);
}

TEST_CASE("failover policy: maintenance (0) and no data (1) are never used, not even alone", "[actors]") {
  CHECK(choose({{true, 0}, {true, 100}}, 0) == 1);
  CHECK(choose({{true, 1}, {true, 2}}, 0) == 1);
  CHECK(choose({{true, 0}, {true, 1}}, 0) == no_server);
  CHECK(choose({{true, 0}}, no_server) == no_server);
  CHECK(choose({{true, -1}, {true, 200}}, no_server) == 1);  // a level not read yet is not usable
}

TEST_CASE("failover policy: the healthy threshold is the caller's", "[actors]") {
  const std::vector<server_health> s{{true, 220}, {true, 255}};
  CHECK(choose_server(s, 0, 200) == 0);
  CHECK(choose_server(s, 0, 230) == 1);
}
