// The supervised client's watch over its link as plain state: the keep-alive Read
// (engine/client/keep_alive.hpp), the token renewal's answer limit (token_renewal.hpp) and when the
// one sweep timer looks (request_sweep.hpp).
#include <catch2/catch.hpp>

#include "engine/client/keep_alive.hpp"
#include "engine/client/request_sweep.hpp"
#include "engine/client/token_renewal.hpp"

using namespace uactor;
using namespace uactor::actors;
using namespace std::chrono_literals;

namespace {
const std::chrono::steady_clock::time_point t0{std::chrono::seconds(1000)};
}

TEST_CASE("keep_alive: a Read is due after an interval of silence, one at a time, and never when off", "[client][keep_alive]") {
  keep_alive_check k;
  k.heard(t0);
  CHECK_FALSE(k.due(t0 + 999ms, 1000ms));
  CHECK(k.due(t0 + 1000ms, 1000ms));
  CHECK_FALSE(k.due(t0 + 10s, 0ms));
  k.sent();
  CHECK_FALSE(k.due(t0 + 2000ms, 1000ms));
  k.heard(t0 + 1500ms);
  k.done();
  CHECK_FALSE(k.due(t0 + 2000ms, 1000ms));
  CHECK(k.due(t0 + 2500ms, 1000ms));
  const auto req = keep_alive_check::request();
  REQUIRE(req.nodes_to_read.size() == 1);
  CHECK(req.nodes_to_read[0].node_id == ua::node_id(0, 2259));
  CHECK(req.nodes_to_read[0].attribute_id == 13);
}

TEST_CASE("token_renewal: the timer lands after the due time, and an answer waited for past the limit is overdue", "[client][token_renewal]") {
  CHECK(token_renewal::wait(t0 + 1500us, t0) == 2ms);
  CHECK(token_renewal::wait(t0, t0 + 5s) == 1ms);  // due already: at once, one millisecond on
  token_renewal r;
  CHECK_FALSE(r.overdue(t0 + 1h, 1s));  // none out
  r.sent(t0);
  CHECK(r.out());
  CHECK_FALSE(r.overdue(t0 + 1s, 1s));
  CHECK(r.overdue(t0 + 1001ms, 1s));
  r.done();
  CHECK_FALSE(r.overdue(t0 + 1h, 1s));
}

TEST_CASE("request_sweep: the watch looks at a quarter of the shortest period, within 50 ms and 1 s", "[client][sweep]") {
  watched_periods w;
  CHECK(watch_interval(w) == longest_watch_interval);  // nothing has a period
  w.shortest_silence = 2s;
  CHECK(watch_interval(w) == 500ms);
  w.supervised = true;
  w.keep_alive_interval = 800ms;
  w.request_timeout = 10s;
  CHECK(watch_interval(w) == 200ms);
  w.keep_alive_interval = 100ms;
  CHECK(watch_interval(w) == sweep_interval);  // 25 ms is too often
  w = {};
  w.shortest_silence = 1h;
  CHECK(watch_interval(w) == longest_watch_interval);
  w.urgent = true;
  CHECK(watch_interval(w) == sweep_interval);
}

TEST_CASE("request_sweep: one timer, armed for the earliest time, and a replaced timer is ignored when it fires", "[client][sweep]") {
  request_sweep sweep;
  const auto none = std::chrono::steady_clock::time_point::max();
  CHECK_FALSE(sweep.arm(none, t0, std::nullopt));  // nothing to look for
  auto a = sweep.arm(t0 + 300ms, t0, std::nullopt);
  REQUIRE(a);
  CHECK(a->wait == 300ms);
  CHECK_FALSE(sweep.arm(t0 + 400ms, t0, std::nullopt));  // covered by the armed one
  auto b = sweep.arm(none, t0, 100ms);                    // watching: sooner
  REQUIRE(b);
  CHECK(b->wait == 100ms);
  CHECK_FALSE(sweep.fired(a->tag));  // replaced
  CHECK(sweep.fired(b->tag));
  CHECK_FALSE(sweep.fired(b->tag));  // once
  auto c = sweep.arm(t0 - 5ms, t0, std::nullopt);  // past: at once
  REQUIRE(c);
  CHECK(c->wait == 0ms);
}
