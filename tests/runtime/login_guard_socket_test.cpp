// Logins that cannot be guessed at, through sockets (docs/security.md "Login attempts"): an
// embedded server with a Basic256Sha256 SignAndEncrypt endpoint on 127.0.0.1, an ephemeral port,
// users op and eng, and our client logging in as they would. Wrong passwords lock a name out (its
// right password refused too) while another user logs in from the same address; after the
// lockout the right password works. An unknown user and a wrong password get the same status,
// each after one PBKDF2: the times are printed, not asserted (the machine is noisy). Every refusal is
// an AuditActivateSessionEvent when the server raises audit events.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "security/password_hash.hpp"
#include "security/pki_store.hpp"
#include "tests/support/captured_log.hpp"
#include "tests/support/secured_client.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace login_guard_socket_test {

using namespace uactor;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr const char* client_uri = "urn:uactor:test:login-client";

struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& what)
      : path(std::filesystem::temp_directory_path() / ("uactor-" + what + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// A server on 127.0.0.1:0 that takes UserName logins over SignAndEncrypt only, with `login`.
struct login_server {
  scratch_dir dir{"login-guard-test"};
  runtime rt;
  server* srv = nullptr;
  server_plan plan;  // as started, for reload()

  explicit login_server(const login_plan& login, bool audit_events = false) {
    const auto cert_file = test::make_client_certificate(dir.path, client_uri, "uactor login test client");

    plan = default_server_plan();
    plan.host_name = "127.0.0.1";
    plan.application_uri = "urn:uactor:test:login-server";
    plan.pki_dir = (dir.path / "server-pki").string();
    plan.trust = {cert_file.string()};
    plan.users = {"op:op-pw", "eng:eng-pw"};  // PBKDF2 with the default work factor
    plan.login = login;
    plan.audit_events = audit_events;
    plan.demo = false;
    endpoint_plan e;
    e.listen_address = "127.0.0.1";
    e.port = 0;
    e.security = {"Basic256Sha256:SignAndEncrypt"};
    e.user_tokens = {"username"};
    plan.endpoints = {e};
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    srv = *s;
  }

  client_options as(const char* user, const char* password) const {
    client_options o;
    o.endpoint_url = srv->endpoint_urls().at(0);
    o.request_timeout = 20s;
    o.connect_timeout = 20s;
    test::log_in_over_sign_and_encrypt(o.security, dir.path, client_uri, user, password);
    return o;
  }

  // Connects and logs in; the status of the attempt (Good: the session is active).
  ua::status_code login(const char* user, const char* password) {
    auto c = rt.connect(as(user, password));
    return c.has_value() ? ua::status::good : c.error();
  }
};

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST_CASE("login guard, sockets: wrong passwords lock the name out, its right password too, while another user logs in, "
          "after the lockout the right password works",
          "[runtime][login]") {
  login_plan login;
  login.max_failures = 3;
  login.backoff_ms = 0;  // the lockout only: the test does not wait between attempts
  login.address_max_failures = 50;
  // Short, but not shorter than three logins take under ASan: failures older than the lockout are
  // forgotten, and the third must still see the first two.
  login.lockout_seconds = 3;
  login_server s(login);

  for (int i = 0; i < 3; ++i) CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);
  // Locked: the right password is refused with the same status, unchecked.
  CHECK(s.login("op", "op-pw") == ua::status::bad_user_access_denied);
  // Another user, from the same address (127.0.0.1), logs in meanwhile.
  CHECK(s.login("eng", "eng-pw") == ua::status::good);
  const auto m = s.srv->metrics();
  CHECK(m.login_failures == 3);
  CHECK(m.login_lockouts == 1);
  CHECK(m.login_refused_user_locked == 1);
  CHECK(m.login_refused_address_locked == 0);

  // The lockout is 3 s here: past it, op's right password works.
  std::this_thread::sleep_for(3100ms);
  CHECK(s.login("op", "op-pw") == ua::status::good);
}

TEST_CASE("login guard, sockets: an exempt address is not locked out by failures over many names", "[runtime][login]") {
  login_plan login;
  login.max_failures = 3;
  login.backoff_ms = 0;
  login.address_max_failures = 2;
  login.exempt_addresses = {"127.0.0.0/8"};  // the test's client connects from 127.0.0.1
  login_server s(login);
  for (const char* name : {"a", "b", "c"}) CHECK(s.login(name, "guess") == ua::status::bad_user_access_denied);
  CHECK(s.login("eng", "eng-pw") == ua::status::good);
  const auto m = s.srv->metrics();
  CHECK(m.login_failures == 3);
  CHECK(m.login_lockouts == 0);
  CHECK(m.login_refused_address_locked == 0);
}

TEST_CASE("login guard: an exempt address that is no network refuses the plan, saying which", "[runtime][login]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.demo = false;
  endpoint_plan e;
  e.listen_address = "127.0.0.1";
  e.port = 0;
  plan.endpoints = {e};
  plan.login.exempt_addresses = {"10.0.0.0/8", "gateway"};
  test::captured_log log;
  const auto s = rt.start_server(plan);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error() == ua::status::bad_configuration_error);
  CHECK(log.text().find("security.login.exempt_addresses: \"gateway\" is not an IPv4 or IPv6 address") != std::string::npos);
}

TEST_CASE("login guard, sockets: an unknown user and a wrong password get the same status, each after one PBKDF2",
          "[runtime][login]") {
  login_plan login;
  login.max_failures = 1000;  // this test measures: no backoff, no lockout
  login.backoff_ms = 0;
  login.address_max_failures = 1000;
  login_server s(login);
  REQUIRE(s.login("eng", "eng-pw") == ua::status::good);  // warm: the server's first secured session

  constexpr int rounds = 7;
  std::vector<double> unknown_ms, wrong_ms, right_ms;
  std::uint64_t unknown_dummies = 0, wrong_dummies = 0;
  for (int i = 0; i < rounds; ++i) {
    auto before = security::dummy_password_checks();
    auto t = clock_type::now();
    CHECK(s.login("nobody", "guess") == ua::status::bad_user_access_denied);
    unknown_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t).count());
    unknown_dummies += security::dummy_password_checks() - before;

    before = security::dummy_password_checks();
    t = clock_type::now();
    CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);
    wrong_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t).count());
    wrong_dummies += security::dummy_password_checks() - before;

    t = clock_type::now();
    CHECK(s.login("eng", "eng-pw") == ua::status::good);
    right_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t).count());
  }
  // The server runs in this process: the dummy hash was computed once per unknown name, never for
  // a known one.
  CHECK(unknown_dummies == rounds);
  CHECK(wrong_dummies == 0);
  std::printf("login guard: connect + CreateSession + ActivateSession over Basic256Sha256, median of %d: "
              "unknown user %.1f ms, wrong password %.1f ms, right password %.1f ms\n",
              rounds, median_ms(unknown_ms), median_ms(wrong_ms), median_ms(right_ms));
}

TEST_CASE("login guard, sockets: a storm of wrong passwords for one name from one address is locked out after "
          "max_failures, and another user's logins from that address go on",
          "[runtime][login]") {
  login_plan login;  // the defaults: 5 failures, a backoff of 200 ms doubled, 20 per address, 5 minutes
  login_server s(login);
  const auto time_logins = [&s](int n, std::vector<double>& ms) {
    for (int i = 0; i < n; ++i) {
      const auto t = clock_type::now();
      CHECK(s.login("eng", "eng-pw") == ua::status::good);
      ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t).count());
    }
  };
  std::vector<double> quiet, storm;
  time_logins(8, quiet);  // A: nobody guessing

  // Three threads guess op's password until op is locked out (the backoff makes that take 200 +
  // 400 + 800 + 1,600 ms at least), and a few more each after that. Bounded by time, not by a
  // count: a refusal in backoff takes a few ms, so a count ran out before the lockout on a fast box.
  constexpr int threads = 3, after_lockout = 5;
  const auto give_up = clock_type::now() + std::chrono::seconds(30);
  std::atomic<int> attempts{0}, refused{0};
  std::vector<std::thread> attackers;
  for (int t = 0; t < threads; ++t)
    attackers.emplace_back([&s, &attempts, &refused, give_up] {
      int more = after_lockout;
      while (more > 0 && clock_type::now() < give_up) {
        ++attempts;
        if (s.login("op", "guess") == ua::status::bad_user_access_denied) ++refused;
        if (s.srv->metrics().login_lockouts > 0) --more;
      }
    });
  time_logins(8, storm);  // B: the same, during the storm
  for (auto& a : attackers) a.join();

  CHECK(refused == attempts);
  const auto m = s.srv->metrics();
  // Only max_failures attempts reached a password check; the rest were refused unchecked.
  CHECK(m.login_failures == 5);
  CHECK(m.login_lockouts == 1);
  CHECK(m.login_failures + m.login_refused_backoff + m.login_refused_user_locked == static_cast<std::uint64_t>(attempts));
  CHECK(m.login_refused_address_locked == 0);
  // op is locked out: its right password too.
  CHECK(s.login("op", "op-pw") == ua::status::bad_user_access_denied);
  const auto worst = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  std::printf("login guard: eng's logins (connect + session, Basic256Sha256), median / max of 8: quiet %.1f / %.1f ms, "
              "during %d wrong passwords for op from %d threads %.1f / %.1f ms; op: %llu failures checked, %llu refused "
              "in backoff, %llu refused locked\n",
              median_ms(quiet), worst(quiet), attempts.load(), threads, median_ms(storm), worst(storm),
              static_cast<unsigned long long>(m.login_failures), static_cast<unsigned long long>(m.login_refused_backoff),
              static_cast<unsigned long long>(m.login_refused_user_locked));
}

// What a subscriber's client thread hands over: each event's selected fields.
struct audit_inbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<ua::event_field_list> events;
  // The channels' audit events (OpenSecureChannel, CloseSecureChannel) come too: counts only
  // AuditActivateSessionEvents (i=2075).
  static bool is_activate(const ua::event_field_list& e) {
    const auto* type = e.event_fields.empty() ? nullptr : e.event_fields[0].get_if<ua::node_id>();
    return type && *type == ua::node_id(0, 2075);
  }
  bool wait_activations(std::size_t n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 30s, [&] { return std::count_if(events.begin(), events.end(), is_activate) >= static_cast<std::ptrdiff_t>(n); });
  }
};

TEST_CASE("login guard, sockets: every refusal, the guard's too, is an AuditActivateSessionEvent with Status false",
          "[runtime][login]") {
  login_plan login;
  login.max_failures = 2;
  login.backoff_ms = 0;
  login_server s(login, true);
  audit_inbox box;  // before the client: its handlers run until the client is gone
  auto watcher = s.rt.connect(s.as("eng", "eng-pw"));
  REQUIRE(watcher.has_value());
  subscription_handlers h;
  h.on_events = [&box](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> e) {
    std::lock_guard lock(box.mutex);
    box.events.insert(box.events.end(), e.begin(), e.end());
    box.changed.notify_all();
  };
  auto sub = watcher->create_subscription_sync(subscription_settings{}, h);
  REQUIRE(sub.has_value());
  event_filter_builder filter;
  filter.select("EventType").select("Status").select("ClientUserId").select("StatusCodeId");
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 7, filter.build()));
  auto items = watcher->create_monitored_items_sync(req);
  REQUIRE(items.has_value());
  REQUIRE(items->results.at(0).status_code == ua::status::good);

  CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);  // checked
  CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);  // checked: locks op out
  CHECK(s.login("op", "op-pw") == ua::status::bad_user_access_denied);  // refused unchecked
  REQUIRE(box.wait_activations(3));
  std::lock_guard lock(box.mutex);
  std::size_t refusals = 0;
  for (const auto& e : box.events) {
    REQUIRE(e.event_fields.size() == 4);
    if (!audit_inbox::is_activate(e)) continue;  // AuditActivateSessionEventType only
    CHECK(e.event_fields[1] == ua::variant(false));
    CHECK(e.event_fields[2] == ua::variant(ua::ua_string("op")));
    CHECK(e.event_fields[3] == ua::variant(ua::status::bad_user_access_denied));
    ++refusals;
  }
  CHECK(refusals == 3);
}

TEST_CASE("login guard, sockets: a reload lowers max_failures, and the failures counted before it count",
          "[runtime][login]") {
  login_plan login;
  login.max_failures = 10;
  login.backoff_ms = 0;
  login_server s(login);
  CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);
  CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);
  auto plan = s.plan;
  plan.login.max_failures = 3;
  CHECK(s.srv->reload(plan).empty());
  CHECK(s.login("op", "guess") == ua::status::bad_user_access_denied);  // the third: locks op out now
  CHECK(s.login("op", "op-pw") == ua::status::bad_user_access_denied);
  const auto m = s.srv->metrics();
  CHECK(m.login_lockouts == 1);
  CHECK(m.login_refused_user_locked == 1);
  CHECK(s.login("eng", "eng-pw") == ua::status::good);
}

}  // namespace login_guard_socket_test
