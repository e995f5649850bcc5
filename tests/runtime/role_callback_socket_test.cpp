// server::on_activate through sockets with our client (docs/decisions/0063, docs/security.md "The
// application decides"): a slow callback's roles reach the session while another session's Reads
// go on undelayed, a callback that never answers gives the plant's roles at the deadline (or a
// refusal, when told so), a refusal answers the login Bad_UserAccessDenied.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "security/pki_store.hpp"
#include "tests/support/secured_client.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace role_callback_socket_test {

using namespace uactor;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

constexpr const char* client_uri = "urn:uactor:test:role-callback-client";
const node_id plant = node_id::string(2, "Plant");
const node_id setpoint = node_id::string(2, "Plant.SP");

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

// A SignAndEncrypt endpoint with UserName logins and a setpoint only Operators write.
struct callback_server {
  scratch_dir dir{"role-callback-test"};
  runtime rt;
  server* srv = nullptr;

  callback_server() {
    const auto cert_file = test::make_client_certificate(dir.path, client_uri, "uactor role callback test client");

    auto plan = default_server_plan();
    plan.host_name = "127.0.0.1";
    plan.application_uri = "urn:uactor:test:role-callback-server";
    plan.pki_dir = (dir.path / "server-pki").string();
    plan.trust = {cert_file.string()};
    plan.users = {"op:op-pw", "eng:eng-pw", "slow:slow-pw", "mute:mute-pw"};
    plan.demo = false;
    endpoint_plan e;
    e.listen_address = "127.0.0.1";
    e.port = 0;
    e.security = {"Basic256Sha256:SignAndEncrypt"};
    e.user_tokens = {"username"};
    plan.endpoints = {e};
    permission_plan p;
    p.node = "ns=2;s=Plant";
    p.roles = {{"AuthenticatedUser", {"Browse", "Read"}}, {"Operator", {"Browse", "Read", "Write"}}};
    plan.permissions.push_back(p);
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    srv = *s;
    REQUIRE(srv->register_namespace("urn:test:role-callback") == 2);
    REQUIRE(srv->apply(folder(plant, ns0::objects_folder, "Plant")) == ua::status::good);
    variable_node v;
    v.id = setpoint;
    v.parent = plant;
    v.browse_name = qualified_name{2, ua::ua_string("SP")};
    v.data_type = node_id(0, ua::ids::double_);
    v.access_level = access::read_write;
    v.value.set_value(1.0);
    REQUIRE(srv->apply(v) == ua::status::good);
    REQUIRE(srv->set_access(plan).empty());
  }

  client_options as(const char* user, const char* password) const {
    client_options o;
    o.endpoint_url = srv->endpoint_urls().at(0);
    o.request_timeout = 20s;
    o.connect_timeout = 20s;
    test::log_in_over_sign_and_encrypt(o.security, dir.path, client_uri, user, password);
    return o;
  }
};

ua::status_code write_sp(client& c, double v) {
  ua::write_request w;
  w.nodes_to_write.resize(1);
  w.nodes_to_write[0].node_id = setpoint;
  w.nodes_to_write[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  w.nodes_to_write[0].value.set_value(v);
  auto resp = c.write_sync(w);
  REQUIRE(resp.has_value());
  return resp->results.at(0);
}

ua::status_code read_sp(client& c) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = setpoint;
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  REQUIRE(resp.has_value());
  return resp->results.at(0).status;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

TEST_CASE("role callback, sockets: a slow callback's roles, a refusal and a deadline, the host never waiting",
          "[runtime][roles][role_callback]") {
  callback_server s;
  // The application's thread: an LDAP lookup stands in as a sleep there, never on the server's.
  thread_executor app;
  std::mutex m;
  std::vector<session_login> asked;
  constexpr auto slow_answer = 600ms;
  role_callback_options options;
  options.where = app.get();
  options.deadline = 2'000ms;
  REQUIRE(s.srv->on_activate(
              [&](const session_login& who, role_reply reply) {
                {
                  std::lock_guard lock(m);
                  asked.push_back(who);
                }
                if (who.user == "op") reply({false, {}, {"cn=operators"}});  // a group: no rule maps it
                else if (who.user == "eng") reply({true, {}, {}});           // refused
                else if (who.user == "slow") {
                  std::this_thread::sleep_for(slow_answer);
                  reply({false, {"Operator"}, {}});
                }
                // "mute": never answers
              },
              options) == ua::status::good);

  // An answer without a role: the rules' (AuthenticatedUser reads, does not write).
  auto op = s.rt.connect(s.as("op", "op-pw"));
  REQUIRE(op.has_value());
  CHECK(read_sp(*op) == ua::status::good);
  CHECK(write_sp(*op, 2.0) == ua::status::bad_user_access_denied);
  {
    std::lock_guard lock(m);
    REQUIRE(asked.size() == 1);
    CHECK(asked[0].token == session_login::token_kind::user_name);
    CHECK(asked[0].user == "op");
    CHECK(asked[0].application_uri == client_uri);
    CHECK(asked[0].encrypted);
    CHECK(asked[0].endpoint_url == s.srv->endpoint_urls().at(0));
    CHECK(asked[0].roles == std::vector<std::string>{"Anonymous", "AuthenticatedUser"});
  }

  // Refused by the application: the login fails as a wrong password does.
  auto eng = s.rt.connect(s.as("eng", "eng-pw"));
  REQUIRE_FALSE(eng.has_value());
  CHECK(eng.error() == ua::status::bad_user_access_denied);

  // A slow answer: the login waits for it, op's Reads meanwhile do not.
  const auto t0 = clock_type::now();
  auto pending = std::async(std::launch::async, [&] { return s.rt.connect(s.as("slow", "slow-pw")); });
  double longest_read = 0;
  int reads = 0;
  while (pending.wait_for(0ms) != std::future_status::ready) {
    const auto r0 = clock_type::now();
    CHECK(read_sp(*op) == ua::status::good);
    longest_read = std::max(longest_read, ms_since(r0));
    ++reads;
    std::this_thread::sleep_for(20ms);
  }
  auto slow = pending.get();
  const double login_ms = ms_since(t0);
  REQUIRE(slow.has_value());
  CHECK(login_ms >= 600);
  CHECK(reads >= 5);
  // Far below the callback's 600 ms: the host did not wait for it (loose for a loaded machine).
  CHECK(longest_read < 400);
  CHECK(write_sp(*slow, 3.0) == ua::status::good);  // the callback's Operator
  WARN("slow callback: login " << login_ms << " ms, " << reads << " reads meanwhile, the longest " << longest_read
                               << " ms");

  // No answer: at the deadline the rules' roles.
  const auto t1 = clock_type::now();
  auto mute = s.rt.connect(s.as("mute", "mute-pw"));
  REQUIRE(mute.has_value());
  CHECK(ms_since(t1) >= 2000);
  CHECK(read_sp(*mute) == ua::status::good);
  CHECK(write_sp(*mute, 4.0) == ua::status::bad_user_access_denied);

  // Told to refuse at the deadline: the same silence refuses the login.
  options.deadline = 500ms;
  options.refuse_on_timeout = true;
  REQUIRE(s.srv->on_activate(
              [](const session_login&, role_reply) {}, options) == ua::status::good);
  auto refused = s.rt.connect(s.as("mute", "mute-pw"));
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == ua::status::bad_user_access_denied);

  // Removed: the rules alone, at once.
  REQUIRE(s.srv->on_activate(nullptr) == ua::status::good);
  auto plain = s.rt.connect(s.as("mute", "mute-pw"));
  REQUIRE(plain.has_value());
  CHECK(write_sp(*plain, 5.0) == ua::status::bad_user_access_denied);
}

TEST_CASE("role callback, sockets: a callback that throws counts as no answer", "[runtime][roles][role_callback]") {
  callback_server s;
  role_callback_options options;
  options.deadline = 30'000ms;  // a throw settles it at once, not at the deadline
  options.refuse_on_timeout = true;
  REQUIRE(s.srv->on_activate([](const session_login&, role_reply) { throw std::runtime_error("LDAP is down"); },
                             options) == ua::status::good);
  const auto t0 = clock_type::now();
  auto c = s.rt.connect(s.as("op", "op-pw"));
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error() == ua::status::bad_user_access_denied);
  CHECK(ms_since(t0) < 20'000);
}

}  // namespace role_callback_socket_test
