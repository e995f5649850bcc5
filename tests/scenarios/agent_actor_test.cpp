// The load agent's actor (scenarios/agent.cpp) behind a real middleman on 127.0.0.1, reached from
// a second actor system as a coordinator would: what an unauthenticated or hostile peer gets.
#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <string>

#include "scenarios/agent.hpp"
#include "scenarios/agent_protocol.hpp"
#include "scenarios/agent_wire.hpp"

using namespace uactor::scenarios;

namespace {

struct peer_pair {
  caf::actor_system_config agent_cfg, peer_cfg;
  std::unique_ptr<caf::actor_system> agent_sys, peer_sys;
  caf::actor agent, remote;

  explicit peer_pair(agent_settings settings) {
    agent_cfg.load<caf::io::middleman>();
    agent_cfg.set("scheduler.max-threads", 1);
    peer_cfg.load<caf::io::middleman>();
    peer_cfg.set("scheduler.max-threads", 1);
    agent_sys = std::make_unique<caf::actor_system>(agent_cfg);
    peer_sys = std::make_unique<caf::actor_system>(peer_cfg);
    agent = spawn_agent(*agent_sys, std::move(settings));
    auto port = agent_sys->middleman().publish(agent, 0, "127.0.0.1", true);
    REQUIRE(port);
    auto r = peer_sys->middleman().remote_actor("127.0.0.1", *port);
    REQUIRE(r);
    remote = *r;
  }
  ~peer_pair() {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    remote = nullptr;
    agent = nullptr;
    peer_sys.reset();
    agent_sys.reset();
  }

  // The answer's error text, or "" when it succeeded.
  template <class... Ts>
  std::string ask(caf::scoped_actor& self, Ts... xs) {
    std::string out = "no answer";
    self->request(remote, std::chrono::seconds(5), xs...)
        .receive(
            [&](caf::error& e) {
              out = e.context().match_elements<std::string>() ? e.context().get_as<std::string>(0) : peer_sys->render(e);
            },
            caf::others >> [&](caf::message_view&) -> caf::result<caf::message> {
              out.clear();
              return caf::message{};
            });
    return out;
  }
};

agent_job small_job() {
  agent_job j;
  j.scenario = "read";
  j.client_kind = "classic";
  j.endpoint = "opc.tcp://127.0.0.1:1";
  j.duration_ns = 1'000'000;
  return j;
}

}  // namespace

TEST_CASE("agent: a peer that has not authenticated gets only refusals", "[scenarios][agent]") {
  agent_settings s;
  s.secret = "the agent test's secret, 16+ bytes";
  peer_pair p(s);
  caf::scoped_actor self{*p.peer_sys};
  CHECK(p.ask(self, ag_prep_atom::value, encode(small_job())).find("not authenticated") != std::string::npos);
  CHECK(p.ask(self, ag_start_atom::value, std::int64_t{0}).find("not authenticated") != std::string::npos);
  CHECK(p.ask(self, ag_prog_atom::value).find("not authenticated") != std::string::npos);
  CHECK(p.ask(self, ag_clock_atom::value).find("not authenticated") != std::string::npos);
  CHECK(p.ask(self, ag_auth_atom::value, std::string(32, 'x')).find("no hello") != std::string::npos);
  CHECK(p.ask(self, ag_hello_atom::value, std::string("short")).find("32 bytes") != std::string::npos);
  // A hello, then a wrong proof: refused, and still nothing else is allowed.
  CHECK(p.ask(self, ag_hello_atom::value, random_nonce()).empty());
  CHECK(p.ask(self, ag_auth_atom::value, std::string(32, 'x')).find("wrong shared secret") != std::string::npos);
  CHECK(p.ask(self, ag_prep_atom::value, encode(small_job())).find("not authenticated") != std::string::npos);
}

TEST_CASE("agent: an authenticated coordinator's malformed or oversized job is refused with the reason",
          "[scenarios][agent]") {
  agent_settings s;
  s.secret = "the agent test's secret, 16+ bytes";
  peer_pair p(s);
  caf::scoped_actor self{*p.peer_sys};
  const auto cn = random_nonce();
  std::string an, proof;
  self->request(p.remote, std::chrono::seconds(5), ag_hello_atom::value, cn)
      .receive([&](const std::string& version, const std::string& agent_nonce, const std::string& agent_proof_,
                   std::int64_t, bool secret_required) {
                 CHECK(version == agent_version());
                 CHECK(secret_required);
                 an = agent_nonce;
                 proof = agent_proof_;
               },
               [&](caf::error&) { FAIL("no hello"); });
  CHECK(same_proof(proof, agent_proof(*s.secret, cn, an)));
  CHECK(p.ask(self, ag_auth_atom::value, coordinator_proof(*s.secret, an, cn)).empty());
  CHECK(p.ask(self, ag_clock_atom::value).empty());
  CHECK(p.ask(self, ag_prep_atom::value, std::string("garbage")).find("job: not a UAJ1 blob") != std::string::npos);
  CHECK(p.ask(self, ag_prep_atom::value, std::string(max_agent_blob + 1, 'U')).find("limit") != std::string::npos);
  auto j = small_job();
  j.pki = {{"../../etc/cron.d/x", "* * * * * root true"}};
  CHECK(p.ask(self, ag_prep_atom::value, encode(j)).find("not a plain relative path") != std::string::npos);
  CHECK(p.ask(self, ag_start_atom::value, std::int64_t{0}).find("no run prepared") != std::string::npos);
  // A second coordinator is told the agent is busy.
  caf::scoped_actor other{*p.peer_sys};
  CHECK(p.ask(other, ag_hello_atom::value, random_nonce()).find("busy") != std::string::npos);
  // A job whose server does not exist: the agent says why its sessions did not connect.
  CHECK_FALSE(p.ask(self, ag_prep_atom::value, encode(small_job())).empty());
}
