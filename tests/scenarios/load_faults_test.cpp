// `uactor load --faults` (docs/decisions/0042): the option's parser, the recovery tracker fed with
// made-up events, and the injector driving a real proxy.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "scenarios/fault_injector.hpp"
#include "scenarios/fault_plan.hpp"
#include "scenarios/fault_proxy.hpp"
#include "scenarios/result.hpp"

using namespace uactor::scenarios;
using namespace std::chrono_literals;

namespace {

// Polls `done` until it holds, at most `limit`.
template <class Done>
bool eventually(Done done, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

std::string parse_error(std::string_view text) {
  fault_plan p;
  return parse_faults(text, p);
}

}  // namespace

TEST_CASE("load faults: cut and stall with their variants parse, in order", "[scenarios]") {
  fault_plan p;
  REQUIRE(parse_faults("cut:2s", p).empty());
  REQUIRE(p.faults.size() == 1);
  CHECK(p.faults[0].type == fault_type::cut);
  CHECK(p.faults[0].every == 2000ms);
  CHECK(p.faults[0].how == cut_kind::rst);
  CHECK(p.faults[0].side == cut_side::both);
  CHECK(describe(p) == "cut:2s:rst:both");

  REQUIRE(parse_faults("cut:500ms:fin:server,stall:1.5s,stall:3s:10s", p).empty());
  REQUIRE(p.faults.size() == 3);
  CHECK(p.faults[0].every == 500ms);
  CHECK(p.faults[0].how == cut_kind::fin);
  CHECK(p.faults[0].side == cut_side::server);
  CHECK(p.faults[1].type == fault_type::stall);
  CHECK(p.faults[1].length == 1500ms);
  CHECK(p.faults[1].every == 1500ms + default_stall_gap);
  CHECK(p.faults[2].length == 3000ms);
  CHECK(p.faults[2].every == 10'000ms);
  CHECK(describe(p) == "cut:500ms:fin:server,stall:1500ms:4500ms,stall:3s:10s");
  REQUIRE(parse_faults("cut:1m:client", p).empty());
  CHECK(p.faults[0].every == 60'000ms);
  CHECK(p.faults[0].side == cut_side::client);
}

TEST_CASE("load faults: a bad value is refused with its part named", "[scenarios]") {
  CHECK(parse_error("cut:abc") == "cut:abc: 'abc' is not a duration (a number and a unit: 500ms, 2s, 1.5s, 1m)");
  CHECK(parse_error("cut:2") == "cut:2: '2' has no unit (ms, s or m: 2s, 500ms)");
  CHECK(parse_error("cut:2h") == "cut:2h: '2h' has an unknown unit 'h' (ms, s or m)");
  CHECK(parse_error("cut:0s") == "cut:0s: '0s' is not positive");
  CHECK(parse_error("cut:-1s") == "cut:-1s: '-1s' is not positive");
  CHECK(parse_error("stall:0ms") == "stall:0ms: '0ms' is not positive");
  CHECK(parse_error("cut:0.1ms") == "cut:0.1ms: '0.1ms' is shorter than a millisecond");
  CHECK(parse_error("cut:2s,stall:61m") == "stall:61m: '61m' is longer than an hour");
  CHECK(parse_error("cut") == "cut: a cut needs its period (cut:EVERY, e.g. cut:2s)");
  CHECK(parse_error("stall") == "stall: a stall needs its length (stall:T, e.g. stall:3s)");
  CHECK(parse_error("cut:2s:rst:fin") ==
        "cut:2s:rst:fin: 'fin' is not a cut's variant (rst or fin, then client, server or both; each once)");
  CHECK(parse_error("cut:2s:sideways").find("'sideways' is not a cut's variant") != std::string::npos);
  CHECK(parse_error("stall:3s:2s") == "stall:3s:2s: the period 2s is not longer than the stall 3s");
  CHECK(parse_error("stall:1s:2s:3s") == "stall:1s:2s:3s: too many parts (stall:T or stall:T:EVERY)");
  CHECK(parse_error("drop:2s") == "drop:2s: unknown fault 'drop' (cut or stall)");
  CHECK(parse_error("cut:2s,,stall:3s").find("an empty fault") == 0);
  CHECK(parse_error("").find("an empty list") == 0);
  CHECK(parse_error("cut:2s.5s") == "cut:2s.5s: '2s.5s' has an unknown unit 's.5s' (ms, s or m)");
  CHECK(parse_error("cut:1e3ms") == "cut:1e3ms: '1e3ms' has an unknown unit 'e3ms' (ms, s or m)");
  CHECK(parse_error("cut:1.2.3s").find("is not a duration") != std::string::npos);
}

TEST_CASE("load faults: recovery counts from the link's return to the first notification after a reconnect",
          "[scenarios]") {
  recovery_tracker t(2);
  t.set_counting(true);
  const auto t0 = load_clock::now();
  t.notified(0, t0);  // nothing armed: not a sample
  t.arm(t0, true);
  CHECK(t.pending() == 2);
  t.notified(0, t0 + 1ms);  // the old link, before the cut took: not yet
  t.lost(0);
  t.notified(0, t0 + 2ms);  // down
  t.reconnected(0);
  t.notified(0, t0 + 50ms);  // the first after the reconnect
  t.notified(0, t0 + 60ms);  // not a second sample
  CHECK(t.pending() == 1);
  t.lost(1);
  t.reconnected(1);
  t.notified(1, t0 + 80ms);
  CHECK(t.pending() == 0);
  auto f = t.take();
  REQUIRE(f.samples.size() == 2);
  CHECK(f.samples[0] == 50ms);
  CHECK(f.samples[1] == 80ms);
  CHECK(f.losses == 2);
  CHECK(f.reconnects == 2);
  CHECK(f.unrecovered == 0);

  // A stall: counted from its end; a client that never noticed it needs no reconnect, one that
  // did waits for it.
  const auto end = t0 + 1000ms;
  t.arm(end, false);
  t.notified(0, end - 1ms);  // before the stall's end: a message already on its way
  t.notified(0, end + 5ms);
  t.lost(1);
  t.notified(1, end + 6ms);  // down: not yet
  t.reconnected(1);
  t.notified(1, end + 30ms);
  f = t.take();
  REQUIRE(f.samples.size() == 4);
  CHECK(f.samples[2] == 5ms);
  CHECK(f.samples[3] == 30ms);

  // A client that never comes back is counted once, when given up or when the next fault comes.
  t.arm(end + 2000ms, true);
  t.lost(0);
  t.lost(1);
  t.reconnected(1);
  t.notified(1, end + 2100ms);
  t.arm(end + 4000ms, true);  // client 0 still owes the last one
  t.disarm();                 // and both owe this one
  f = t.take();
  CHECK(f.samples.size() == 5);
  CHECK(f.unrecovered == 3);
}

TEST_CASE("load faults: the injector cuts every period on a real proxy and waits for recovery", "[scenarios]") {
  // A listener for the proxy to pair with; the test only needs the proxy's own counters.
  fault_proxy proxy(1);  // nothing listens on port 1: connections are refused, cuts still count
  fault_plan plan;
  REQUIRE(parse_faults("cut:40ms,stall:30ms:100ms", plan).empty());
  recovery_tracker none(0);  // no clients: every fault is recovered from at once
  fault_injector inj(proxy, plan, none);
  // Waits for what the plan makes happen, not for a time: the machine may be loaded.
  const auto t0 = std::chrono::steady_clock::now();
  inj.start();
  REQUIRE(eventually([&] {
    const auto n = inj.injected();
    return n.cuts >= 4 && n.stalls >= 2;
  }));
  inj.stop();
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  // Never more often than the plan says: one fault at a time, a cut at most every 40 ms.
  CHECK(inj.injected().cuts <= static_cast<std::uint64_t>(elapsed / 40ms) + 1);
  // One client that never notifies: each fault waits for it (bounded), then counts it unrecovered.
  recovery_tracker one(1);
  fault_injector slow(proxy, plan, one, 100ms);
  slow.start();
  REQUIRE(eventually([&] { return one.take().unrecovered >= 1; }));
  slow.stop();
  CHECK(one.take().samples.empty());
}

TEST_CASE("load faults: the result says faults, losses, duplicates, recovery and failed requests", "[scenarios]") {
  load_result r;
  r.scenario = "sub";
  r.unit = "notification";
  r.lost_changes = 0;
  load_result::fault_figures f;
  f.plan = "cut:2s:rst:both";
  f.cuts = 3;
  f.recovery_ms = {120, 80, 900, 100};
  f.requests_sent = 50;
  f.requests_failed = 3;
  f.requests_connection_closed = 3;
  r.faults = f;
  CHECK(f.recovery_percentile(50) == 120);
  CHECK(f.recovery_percentile(99) == 900);
  const auto json = to_json(r);
  CHECK(json.find(R"("faults":"cut:2s:rst:both","faults_injected":3,"faults_cut":3,"faults_stall":0,)"
                  R"("lost_notifications":0,"duplicate_notifications":0,"recovery_n":4,"recovery_p50_ms":120.00,)"
                  R"("recovery_p99_ms":900.00,"recovery_max_ms":900.00)") != std::string::npos);
  CHECK(json.find(R"("requests_sent":50,"requests_failed":3,"requests_failed_connection_closed":3)") != std::string::npos);
  const auto text = to_text(r);
  CHECK(text.find("faults cut:2s:rst:both: 3 injected (3 cuts, 0 stalls); 0 lost notifications, 0 duplicates") !=
        std::string::npos);
  CHECK(text.find("n 4  p50 120.0  p99 900.0  max 900.0") != std::string::npos);
}
