// The application's role callback in the engine (docs/decisions/0063): an ActivateSession that
// succeeds raises a question with what the rules gave, server_core holds its answer until the
// callback's answer or the deadline settles it; claims and groups go through Role and GroupId
// rules; a refusal answers Bad_UserAccessDenied and leaves the session not activated.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "engine/server/access/role_decision.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/support/captured_log.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace role_callback_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace perm = authz::permission;
using test::at;

constexpr std::uint32_t channel = 5;
const ua::node_id scalar_int32 = ua::node_id::string(1, "Demo.Static.Scalar.Int32");

authz::permission_rule rule(std::string node, std::vector<std::pair<authz::role_id, std::uint32_t>> roles) {
  authz::permission_rule r;
  r.node = std::move(node);
  r.roles = std::move(roles);
  r.where = "test";
  return r;
}

// Demo.Static readable by Anonymous, writable by Operator.
std::vector<authz::permission_rule> rules() {
  return {rule("ns=1;s=Demo.Static", {{authz::well_known::anonymous, perm::browse | perm::read},
                                      {authz::well_known::operator_, perm::browse | perm::read | perm::write}})};
}

struct fixture {
  actors::server_core core = test::make_core();
  std::vector<authz::role_question> asked;
  ua::node_id token;
  std::uint32_t handle = 0;
  ua::byte_buffer out;
  ua::extension_object response;

  explicit fixture(std::shared_ptr<const authz::role_registry> reg = nullptr, bool refuse_on_timeout = false) {
    REQUIRE(core.set_access(std::move(reg), rules()).empty());
    auto hook = std::make_shared<authz::role_hook>();
    hook->deadline = std::chrono::milliseconds(500);
    hook->refuse_on_timeout = refuse_on_timeout;
    hook->dispatch = [this](authz::role_question&& q) { asked.push_back(std::move(q)); };
    core.set_role_hook(hook);
  }

  template <class T>
  const ua::extension_object& call(T req, std::int64_t ms = 0) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(channel, handle, req.request_header, msg, at(ms), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }
  // CreateSession, then an anonymous ActivateSession: its question's id (the response held).
  std::uint64_t open(std::int64_t ms = 0) {
    ua::create_session_request create;
    create.requested_session_timeout = 60'000;
    const auto* created = call(create, ms).get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    CHECK(core.take_role_wait() == 0);  // a CreateSession asks nothing
    return activate(ms);
  }
  std::uint64_t activate(std::int64_t ms = 0) {
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    activate.request_header.authentication_token = token;
    activate.request_header.request_handle = ++handle;
    held_request = ua::extension_object(activate);
    held_header = activate.request_header;
    out.clear();
    core.handle(channel, handle, activate.request_header, held_request, at(ms), out);
    // What the host posts to the application with role_hook()->dispatch.
    for (auto& q : core.role_outbox()) core.role_hook()->dispatch(std::move(q));
    core.role_outbox().clear();
    return core.take_role_wait();
  }
  // What the client gets for the held ActivateSession once settled.
  ua::status_code finish(ua::status_code result, std::int64_t ms = 0) {
    core.finish_activation(channel, held_header, held_request, result, at(ms), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    if (const auto* fault = response.get_if<ua::service_fault>()) return fault->response_header.service_result;
    const auto* ok = response.get_if<ua::activate_session_response>();
    REQUIRE(ok);
    return ok->response_header.service_result;
  }
  ua::status_code write(std::int32_t v) {
    ua::write_request req;
    ua::write_value w;
    w.node_id = scalar_int32;
    w.attribute_id = 13;
    w.value.value = ua::variant(v);
    w.value.has_value = true;
    req.nodes_to_write.push_back(w);
    const auto& r = call(req);
    if (const auto* fault = r.get_if<ua::service_fault>()) return fault->response_header.service_result;
    const auto* resp = r.get_if<ua::write_response>();
    REQUIRE(resp);
    return resp->results.at(0);
  }
  authz::role_set roles() const {
    const auto* s = core.sessions().find(token);
    REQUIRE(s);
    return s->roles;
  }

  ua::extension_object held_request;
  ua::request_header held_header;
};

authz::role_answer answer(std::uint64_t id, std::vector<std::string> claims, std::vector<std::string> groups = {}) {
  authz::role_answer a;
  a.id = id;
  a.roles = std::move(claims);
  a.group_ids = std::move(groups);
  return a;
}

TEST_CASE("role callback: a claim that names a role grants it once the answer is in", "[roles][role_callback]") {
  fixture f;
  const auto q = f.open();
  REQUIRE(q != 0);
  // The question says who and what the rules gave.
  REQUIRE(f.asked.size() == 1);
  CHECK(f.asked[0].id == q);
  CHECK(f.asked[0].identity.token == actors::session_identity::kind::anonymous);
  CHECK(f.asked[0].roles == std::vector<std::string>{"Anonymous"});
  CHECK(f.core.sessions().roles_waiting() == 1);
  // Until the answer, the rules' roles.
  CHECK(f.roles() == authz::role_set(1u << authz::well_known::anonymous));

  const auto settled = f.core.answer_roles(answer(q, {"Operator", "not-a-role"}), at(10));
  REQUIRE(settled.size() == 1);
  CHECK(settled[0].id == q);
  CHECK(settled[0].result == status::good);
  CHECK(f.finish(settled[0].result, 10) == status::good);
  CHECK(f.roles().has(authz::well_known::operator_));
  CHECK(f.roles().has(authz::well_known::anonymous));
  CHECK(f.write(3) == status::good);
  // A second answer to the same question, or one past it: nothing.
  CHECK(f.core.answer_roles(answer(q, {"SecurityAdmin"}), at(20)).empty());
  CHECK_FALSE(f.roles().has(authz::well_known::security_admin));
  CHECK(f.core.sessions().roles_waiting() == 0);
}

TEST_CASE("role callback: GroupId and Role rules map the answer's groups and the roles held", "[roles][role_callback]") {
  auto reg = std::make_shared<authz::role_registry>();
  const auto shift = reg->add("ShiftLead", 1);
  REQUIRE(shift);
  reg->add_identity(authz::well_known::operator_, *authz::parse_identity_rule("GroupId:cn=operators,ou=plant"));
  // Every operator a ShiftLead, every ShiftLead a Supervisor (a chain), an LDAP claim an Engineer.
  reg->add_identity(*shift, *authz::parse_identity_rule("Role:Operator"));
  reg->add_identity(authz::well_known::supervisor, *authz::parse_identity_rule("Role:ShiftLead"));
  reg->add_identity(authz::well_known::engineer, *authz::parse_identity_rule("Role:ldap-engineers"));
  fixture f(reg);
  const auto q = f.open();
  REQUIRE(q != 0);
  const auto settled = f.core.answer_roles(answer(q, {}, {"cn=operators,ou=plant"}), at(1));
  REQUIRE(settled.size() == 1);
  const auto held = f.roles();
  CHECK(held.has(authz::well_known::operator_));
  CHECK(held.has(*shift));
  CHECK(held.has(authz::well_known::supervisor));
  CHECK_FALSE(held.has(authz::well_known::engineer));
  CHECK(f.write(4) == status::good);

  // Activated again: another question; a claim that only a Role rule knows.
  const auto q2 = f.activate(2);
  REQUIRE(q2 != 0);
  CHECK(q2 != q);
  // Until the answer, the rules alone: no group, so no Operator.
  CHECK_FALSE(f.roles().has(authz::well_known::operator_));
  REQUIRE(f.core.answer_roles(answer(q2, {"ldap-engineers"}), at(3)).size() == 1);
  CHECK(f.roles().has(authz::well_known::engineer));
  CHECK_FALSE(f.roles().has(authz::well_known::operator_));
  CHECK(f.write(5) == status::bad_user_access_denied);

  // Without a callback's answer, GroupId and Role rules of claims match nothing.
  authz::session_facts none;
  const actors::session_identity anon{actors::session_identity::kind::anonymous, "urn:x", false};
  none.identity = &anon;
  CHECK(reg->roles_of(none) == authz::role_set(1u << authz::well_known::anonymous));
}

TEST_CASE("role callback: a refusal answers Bad_UserAccessDenied and leaves the session not activated",
          "[roles][role_callback]") {
  fixture f;
  const auto q = f.open();
  authz::role_answer no;
  no.id = q;
  no.refused = true;
  const auto settled = f.core.answer_roles(std::move(no), at(5));
  REQUIRE(settled.size() == 1);
  CHECK(settled[0].result == status::bad_user_access_denied);
  CHECK(f.finish(settled[0].result, 5) == status::bad_user_access_denied);
  CHECK(f.roles().empty());
  CHECK_FALSE(f.core.sessions().find(f.token)->activated);
  // It may activate again (the callback asked anew) and be let in this time.
  const auto q2 = f.activate(6);
  REQUIRE(q2 != 0);
  REQUIRE(f.core.answer_roles(answer(q2, {"Operator"}), at(7)).size() == 1);
  CHECK(f.finish(status::good, 7) == status::good);
  CHECK(f.write(2) == status::good);
  // Refused again: a request other than ActivateSession now closes it (Part 4 §5.7.3.1).
  const auto q3 = f.activate(8);
  authz::role_answer no_again;
  no_again.id = q3;
  no_again.refused = true;
  REQUIRE(f.core.answer_roles(std::move(no_again), at(9)).size() == 1);
  CHECK(f.write(3) == status::bad_session_not_activated);
  CHECK(f.core.sessions().find(f.token) == nullptr);
}

TEST_CASE("role callback: past the deadline the rules' roles, or a refusal when the hook says so",
          "[roles][role_callback]") {
  SECTION("the plant's roles") {
    fixture f;
    const auto q = f.open(0);
    CHECK(f.core.expire_roles(at(499)).empty());  // not yet
    const auto settled = f.core.expire_roles(at(500));
    REQUIRE(settled.size() == 1);
    CHECK(settled[0].id == q);
    CHECK(settled[0].result == status::good);
    CHECK(f.finish(settled[0].result, 500) == status::good);
    CHECK(f.roles() == authz::role_set(1u << authz::well_known::anonymous));
    CHECK(f.write(1) == status::bad_user_access_denied);  // Anonymous may not write
    // The late answer is dropped.
    CHECK(f.core.answer_roles(answer(q, {"Operator"}), at(600)).empty());
    CHECK_FALSE(f.roles().has(authz::well_known::operator_));
  }
  SECTION("refused") {
    fixture f(nullptr, true);
    f.open(0);
    const auto settled = f.core.expire_roles(at(501));
    REQUIRE(settled.size() == 1);
    CHECK(settled[0].result == status::bad_user_access_denied);
    CHECK(f.finish(settled[0].result, 501) == status::bad_user_access_denied);
    CHECK(f.roles().empty());
  }
}

TEST_CASE("role callback: a callback that threw is logged as such, not as a deadline passed", "[roles][role_callback]") {
  SECTION("the plant's roles") {
    test::captured_log log;
    fixture f;
    const auto q = f.open(0);
    authz::role_answer a;  // what the runtime sends when the callback throws
    a.id = q;
    a.timed_out = true;
    a.failed = true;
    const auto settled = f.core.answer_roles(std::move(a), at(10));
    REQUIRE(settled.size() == 1);
    CHECK(settled[0].result == status::good);
    CHECK(f.finish(settled[0].result, 10) == status::good);
    CHECK(f.roles() == authz::role_set(1u << authz::well_known::anonymous));
    CHECK(log.text().find("role callback threw") != std::string::npos);
    CHECK(log.text().find("did not answer within") == std::string::npos);
  }
  SECTION("refused") {
    test::captured_log log;
    fixture f(nullptr, true);
    const auto q = f.open(0);
    authz::role_answer a;
    a.id = q;
    a.timed_out = true;
    a.failed = true;
    const auto settled = f.core.answer_roles(std::move(a), at(10));
    REQUIRE(settled.size() == 1);
    CHECK(settled[0].result == status::bad_user_access_denied);
    CHECK(log.text().find("(it threw, or could not be asked)") != std::string::npos);
  }
}

TEST_CASE("role callback: a session closed while its question is open is settled without effect",
          "[roles][role_callback]") {
  fixture f;
  const auto q = f.open();
  ua::close_session_request close;
  close.delete_subscriptions = true;
  REQUIRE(f.call(close).get_if<ua::close_session_response>());
  const auto settled = f.core.answer_roles(answer(q, {"Operator"}), at(1));
  REQUIRE(settled.size() == 1);  // the host still finds the batch it held, if its channel is there
  CHECK(f.core.sessions().roles_waiting() == 0);
}

TEST_CASE("role callback: without a hook nothing waits", "[roles][role_callback]") {
  fixture f;
  f.core.set_role_hook(nullptr);
  CHECK(f.open() == 0);
  CHECK(f.asked.empty());
  CHECK(f.write(1) == status::bad_user_access_denied);
}

}  // namespace role_callback_test
