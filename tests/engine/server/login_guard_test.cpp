// login_guard (docs/security.md "Login attempts"): failures per user name and per source address,
// the backoff, the lockout, forgetting, the bounded tables and the log limiter. Pure logic: the
// clock is a time point the test moves.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "engine/server/login_guard.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace login_guard_test {

using namespace uactor;
using actors::login_guard;
using actors::login_refusal;
using namespace std::chrono_literals;

using time_point = std::chrono::steady_clock::time_point;
const time_point t0 = time_point{} + 1h;  // any start; the guard only compares

actors::login_guard_config guard_config() {
  actors::login_guard_config c;
  c.max_failures = 5;
  c.backoff = 200ms;
  c.address_max_failures = 20;
  c.lockout = 300s;
  c.table_size = 100;
  return c;
}


TEST_CASE("login_guard: each failure of a user name makes it wait, doubled each time", "[engine][login]") {
  login_guard g(guard_config());
  CHECK(g.check("op", "10.0.0.1", t0).refusal == login_refusal::none);
  CHECK_FALSE(g.check("op", "10.0.0.1", t0).suspect);

  auto f = g.failed("op", "10.0.0.1", t0);
  CHECK(f.user_failures == 1);
  CHECK(f.address_failures == 1);
  CHECK_FALSE(f.user_locked);
  // 200 ms after the first failure: refused without a check until then.
  auto c = g.check("op", "10.0.0.1", t0 + 199ms);
  CHECK(c.refusal == login_refusal::user_backoff);
  CHECK(c.until == t0 + 200ms);
  CHECK(c.suspect);
  CHECK(g.check("op", "10.0.0.1", t0 + 200ms).refusal == login_refusal::none);
  CHECK(g.check("op", "10.0.0.1", t0 + 200ms).suspect);  // it failed: the workers serve it after the others

  g.failed("op", "10.0.0.1", t0 + 200ms);  // the second: 400 ms
  CHECK(g.check("op", "10.0.0.1", t0 + 599ms).refusal == login_refusal::user_backoff);
  CHECK(g.check("op", "10.0.0.1", t0 + 600ms).refusal == login_refusal::none);
  g.failed("op", "10.0.0.1", t0 + 600ms);  // the third: 800 ms
  CHECK(g.check("op", "10.0.0.1", t0 + 1399ms).refusal == login_refusal::user_backoff);
  CHECK(g.check("op", "10.0.0.1", t0 + 1400ms).refusal == login_refusal::none);
  // Another name from the same address is not in the backoff (only suspect).
  CHECK(g.check("eng", "10.0.0.1", t0 + 1ms).refusal == login_refusal::none);
  CHECK(g.check("eng", "10.0.0.1", t0 + 1ms).suspect);
  CHECK_FALSE(g.check("eng", "10.0.0.2", t0 + 1ms).suspect);
}

TEST_CASE("login_guard: the max_failures-th failure locks the user name out for the lockout, then it starts afresh",
          "[engine][login]") {
  auto cfg = guard_config();
  cfg.backoff = 0ms;
  login_guard g(cfg);
  for (int i = 1; i <= 4; ++i) {
    const auto f = g.failed("op", "10.0.0.1", t0 + std::chrono::seconds(i));
    CHECK(f.user_failures == static_cast<std::uint32_t>(i));
    CHECK_FALSE(f.user_locked);
    CHECK(g.check("op", "10.0.0.1", t0 + std::chrono::seconds(i)).refusal == login_refusal::none);  // no backoff
  }
  const auto fifth = g.failed("op", "10.0.0.1", t0 + 5s);
  CHECK(fifth.user_locked);
  CHECK_FALSE(fifth.address_locked);
  const auto locked = g.check("op", "10.0.0.1", t0 + 5s);
  CHECK(locked.refusal == login_refusal::user_locked);
  CHECK(locked.until == t0 + 305s);
  // From anywhere: the name is locked, not the address.
  CHECK(g.check("op", "10.9.9.9", t0 + 304s).refusal == login_refusal::user_locked);
  CHECK(g.check("eng", "10.0.0.1", t0 + 6s).refusal == login_refusal::none);
  // Past the lockout the name starts afresh: one failure does not lock it again.
  CHECK(g.check("op", "10.0.0.1", t0 + 305s).refusal == login_refusal::none);
  const auto after = g.failed("op", "10.0.0.1", t0 + 306s);
  CHECK(after.user_failures == 1);
  CHECK(g.check("op", "10.0.0.1", t0 + 306s).refusal == login_refusal::none);
}

TEST_CASE("login_guard: a success forgets the user name's failures, not the address's", "[engine][login]") {
  auto cfg = guard_config();
  cfg.backoff = 0ms;
  cfg.address_max_failures = 6;
  login_guard g(cfg);
  for (int i = 0; i < 4; ++i) g.failed("op", "10.0.0.1", t0);
  g.succeeded("op");
  CHECK_FALSE(g.check("op", "10.0.0.2", t0).suspect);
  CHECK(g.failed("op", "10.0.0.1", t0).user_failures == 1);  // counted from 1 again
  // The address kept its 4 + 1: the sixth locks it.
  const auto sixth = g.failed("eng", "10.0.0.1", t0);
  CHECK(sixth.address_failures == 6);
  CHECK(sixth.address_locked);
}

TEST_CASE("login_guard: address_max_failures failures over many names lock the address out, not other addresses",
          "[engine][login]") {
  login_guard g(guard_config());
  for (int i = 0; i < 19; ++i) {
    const auto f = g.failed("user" + std::to_string(i), "10.0.0.66", t0 + std::chrono::milliseconds(i));
    CHECK_FALSE(f.address_locked);
  }
  CHECK(g.check("someone", "10.0.0.66", t0 + 1s).refusal == login_refusal::none);
  const auto last = g.failed("user19", "10.0.0.66", t0 + 1s);
  CHECK(last.address_locked);
  CHECK(last.address_failures == 20);
  // Every name from that address, even one that never failed, until the lockout ends.
  const auto c = g.check("operator", "10.0.0.66", t0 + 2s);
  CHECK(c.refusal == login_refusal::address_locked);
  CHECK(c.until == t0 + 301s);
  CHECK(g.check("operator", "10.0.0.67", t0 + 2s).refusal == login_refusal::none);
  // A token without a user name (X509) is refused by its address too.
  CHECK(g.check("", "10.0.0.66", t0 + 2s).refusal == login_refusal::address_locked);
  CHECK(g.check("operator", "10.0.0.66", t0 + 301s).refusal == login_refusal::none);
}

TEST_CASE("login_guard: an exempt address is never counted nor locked out, though its user names are", "[engine][login]") {
  auto config = guard_config();
  std::string why;
  config.exempt_networks.push_back(*actors::ip_network::parse("10.1.0.0/16", why));
  login_guard g(config);
  for (int i = 0; i < 40; ++i) {
    const auto f = g.failed("user" + std::to_string(i), "10.1.2.3", t0 + std::chrono::milliseconds(i));
    CHECK(f.address_failures == 0);
    CHECK_FALSE(f.address_locked);
  }
  CHECK(g.addresses_tracked() == 0);
  CHECK(g.check("someone", "10.1.2.3", t0 + 1s).refusal == login_refusal::none);
  // A user name from it is limited as from anywhere.
  for (int i = 0; i < 5; ++i) g.failed("op", "10.1.2.3", t0 + 2s + std::chrono::seconds(i * 10));
  CHECK(g.check("op", "10.1.2.3", t0 + 50s).refusal == login_refusal::user_locked);
  // The address next to the network is counted.
  CHECK(g.failed("x", "10.2.0.1", t0 + 1s).address_failures == 1);
  CHECK(g.addresses_tracked() == 1);
}

TEST_CASE("login_guard: an X509 token's failures count under its certificate", "[engine][login]") {
  const std::vector<std::uint8_t> der_a = {0x30, 0x03, 0x02, 0x01, 0x01};
  const std::vector<std::uint8_t> der_b = {0x30, 0x03, 0x02, 0x01, 0x02};
  const auto a = login_guard::x509_key(der_a);
  CHECK(a.rfind("certificate ", 0) == 0);
  CHECK(a.size() == 12 + 40);
  CHECK(a == login_guard::x509_key(der_a));
  CHECK(a != login_guard::x509_key(der_b));
  login_guard g(guard_config());
  for (int i = 0; i < 5; ++i) g.failed(a, "10.0.0." + std::to_string(i), t0 + std::chrono::seconds(i * 10));
  CHECK(g.check(a, "10.0.0.99", t0 + 60s).refusal == login_refusal::user_locked);
  CHECK(g.check(login_guard::x509_key(der_b), "10.0.0.99", t0 + 60s).refusal == login_refusal::none);
}

TEST_CASE("login_guard: failures older than the lockout are forgotten", "[engine][login]") {
  auto cfg = guard_config();
  cfg.backoff = 0ms;
  login_guard g(cfg);
  for (int i = 0; i < 4; ++i) g.failed("op", "10.0.0.1", t0);
  // Five minutes of quiet: the fifth failure is a first one.
  const auto f = g.failed("op", "10.0.0.1", t0 + 300s);
  CHECK(f.user_failures == 1);
  CHECK(f.address_failures == 1);
  CHECK_FALSE(f.user_locked);
}

TEST_CASE("login_guard: the tables hold table_size entries each, the oldest failure evicted", "[engine][login]") {
  auto cfg = guard_config();
  cfg.table_size = 16;
  login_guard g(cfg);
  for (int i = 0; i < 100; ++i)
    g.failed("user" + std::to_string(i), "10.0.1." + std::to_string(i), t0 + std::chrono::milliseconds(i));
  CHECK(g.users_tracked() == 16);
  CHECK(g.addresses_tracked() == 16);
  CHECK(g.evictions() == 2 * 84);
  CHECK(g.check("user99", "", t0 + 100ms).suspect);      // the newest is there
  CHECK_FALSE(g.check("user0", "", t0 + 100ms).suspect);  // the oldest went
  // A failure again moves an entry to the front: user84 (the oldest kept) survives 15 newcomers.
  g.failed("user84", "", t0 + 200ms);
  for (int i = 100; i < 115; ++i) g.failed("user" + std::to_string(i), "", t0 + 200ms);
  CHECK(g.check("user84", "", t0 + 201ms).suspect);
  CHECK_FALSE(g.check("user85", "", t0 + 201ms).suspect);
}

TEST_CASE("login_guard: a very long user name holds a bounded key, and names that differ after it are told apart",
          "[engine][login]") {
  auto cfg = guard_config();
  cfg.backoff = 0ms;
  login_guard g(cfg);
  const std::string a(1'000'000, 'a');
  std::string b = a;
  b.back() = 'b';
  for (int i = 0; i < 5; ++i) g.failed(a, "", t0);
  CHECK(g.check(a, "", t0).refusal == login_refusal::user_locked);
  CHECK(g.check(b, "", t0).refusal == login_refusal::none);
}

TEST_CASE("login_guard: disabled, it counts nothing and refuses nothing", "[engine][login]") {
  auto cfg = guard_config();
  cfg.enabled = false;
  login_guard g(cfg);
  for (int i = 0; i < 100; ++i) CHECK(g.failed("op", "10.0.0.1", t0).user_failures == 0);
  CHECK(g.check("op", "10.0.0.1", t0).refusal == login_refusal::none);
  CHECK(g.users_tracked() == 0);
}

TEST_CASE("login_guard: new limits keep the counts, a smaller table evicts the oldest, a running lockout keeps its end",
          "[engine][login]") {
  auto cfg = guard_config();
  cfg.backoff = 0ms;
  login_guard g(cfg);
  for (int i = 0; i < 3; ++i) g.failed("op", "10.0.0.1", t0);
  for (int i = 0; i < 5; ++i) g.failed("locked", "10.0.0.2", t0);
  for (int i = 0; i < 20; ++i) g.failed("user" + std::to_string(i), "10.0.1." + std::to_string(i), t0 + 1ms);
  auto smaller = cfg;
  smaller.max_failures = 4;
  smaller.lockout = 600s;
  smaller.table_size = 16;
  g.set_config(smaller);
  CHECK(g.users_tracked() == 16);  // the oldest went: op and locked among them (failed first)
  CHECK(g.addresses_tracked() == 16);
  // A name that failed 3 times before the change and is still tracked locks at its 4th now.
  login_guard h(cfg);
  for (int i = 0; i < 3; ++i) h.failed("op", "10.0.0.1", t0);
  for (int i = 0; i < 5; ++i) h.failed("locked", "10.0.0.2", t0);
  h.set_config(smaller);
  CHECK(h.failed("op", "10.0.0.1", t0 + 1s).user_locked);
  // The lockout that ran before the change ends when it was to end (300 s), not 600 s.
  CHECK(h.check("locked", "10.0.0.2", t0 + 299s).refusal == login_refusal::user_locked);
  CHECK(h.check("locked", "10.0.0.2", t0 + 300s).refusal == login_refusal::none);
}

TEST_CASE("log_limiter: at most per_second lines a second, the next one says how many were left out", "[engine][login]") {
  actors::log_limiter limit(3);
  std::uint64_t left_out = 99;
  for (int i = 0; i < 3; ++i) {
    CHECK(limit.allow(t0, left_out));
    CHECK(left_out == 0);
  }
  for (int i = 0; i < 10; ++i) CHECK_FALSE(limit.allow(t0 + 500ms, left_out));
  CHECK(limit.allow(t0 + 1s, left_out));
  CHECK(left_out == 10);
  CHECK(limit.allow(t0 + 1s, left_out));
  CHECK(left_out == 0);
  CHECK(limit.suppressed_total() == 10);
}

}  // namespace login_guard_test
