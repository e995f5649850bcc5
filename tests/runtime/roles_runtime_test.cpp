// Roles and permissions through the embedding API and our client over real sockets
// (docs/security.md "When a change takes effect"): the plan's rules from the start, resolved as the
// application adds its nodes; set_access all or nothing; a reload's permissions at the next
// request of a running session, its roles at the next ActivateSession (a new session here).
#include <chrono>
#include <optional>

#include <catch2/catch.hpp>

#include "uactor/runtime.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace roles_runtime_test {

using namespace uactor;
using namespace std::chrono_literals;

const node_id plant = node_id::string(2, "Plant");
const node_id setpoint = node_id::string(2, "Plant.SP");

server_plan plan_with(std::vector<std::pair<std::string, std::vector<std::string>>> roles,
                      std::vector<role_plan> role_plans = {}) {
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.roles = std::move(role_plans);
  permission_plan p;
  p.node = "ns=2;s=Plant";
  p.roles = std::move(roles);
  plan.permissions.push_back(std::move(p));
  return plan;
}

// Every anonymous session an Operator (a plan may; the RoleSet's AddIdentity would refuse it for
// an administrator's role, not for this one).
role_plan anonymous_operators() {
  role_plan r;
  r.name = "Operator";
  r.identities = {"Anonymous"};
  return r;
}

client connect(runtime& rt, server& srv) {
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  o.request_timeout = 10s;
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  return std::move(*c);
}

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

TEST_CASE("embedded server: the plan's permissions, set_access and a reload take effect as docs/security.md says",
          "[runtime][roles]") {
  runtime rt;
  const auto start = plan_with({{"Anonymous", {"Browse", "Read"}}});
  auto s = rt.start_server(start);
  REQUIRE(s.has_value());
  server& srv = **s;
  REQUIRE(srv.register_namespace("urn:test:roles") == 2);
  // The rule's node comes after the start: it applies once the node is there.
  REQUIRE(srv.apply(folder(plant, ns0::objects_folder, "Plant")) == ua::status::good);
  variable_node v;
  v.id = setpoint;
  v.parent = plant;
  v.browse_name = qualified_name{2, ua::ua_string("SP")};
  v.data_type = node_id(0, ua::ids::double_);
  v.access_level = access::read_write;
  v.value.set_value(1.0);
  REQUIRE(srv.apply(v) == ua::status::good);
  REQUIRE(srv.set_access(start).empty());

  client first = connect(rt, srv);
  CHECK(read_sp(first) == ua::status::good);
  CHECK(write_sp(first, 2.0) == ua::status::bad_user_access_denied);

  // All or nothing: a rule of a node not in the server changes nothing.
  auto bad = plan_with({{"Anonymous", {"Browse", "Read", "Write"}}});
  bad.permissions.push_back(bad.permissions.front());
  bad.permissions.back().node = "ns=2;s=Nope";
  const auto errors = srv.set_access(bad);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "permissions[1]: ns=2;s=Nope names no node");
  CHECK(write_sp(first, 2.0) == ua::status::bad_user_access_denied);
  // An unknown role or permission neither.
  CHECK(srv.set_access(plan_with({{"Oprator", {"Read"}}})).size() == 1);
  CHECK(srv.reload(plan_with({{"Anonymous", {"Wrte"}}})).size() == 1);
  CHECK(write_sp(first, 2.0) == ua::status::bad_user_access_denied);

  // A reload's permissions: the running session's next request.
  REQUIRE(srv.reload(plan_with({{"Anonymous", {"Browse", "Read", "Write"}}})).empty());
  CHECK(write_sp(first, 3.0) == ua::status::good);

  // A reload that makes anonymous sessions operators and takes Write from Anonymous: the running
  // session keeps the roles it activated with (Anonymous: no Write now); a new session is an operator.
  std::vector<role_plan> operators{anonymous_operators()};
  REQUIRE(srv.reload(plan_with({{"Anonymous", {"Browse", "Read"}}, {"Operator", {"Browse", "Read", "Write"}}}, operators))
              .empty());
  CHECK(write_sp(first, 4.0) == ua::status::bad_user_access_denied);
  client second = connect(rt, srv);
  CHECK(write_sp(second, 5.0) == ua::status::good);
  CHECK(write_sp(first, 4.0) == ua::status::bad_user_access_denied);

  // No rules at all: every session as without roles.
  REQUIRE(srv.reload(default_server_plan()).empty());
  CHECK(write_sp(first, 6.0) == ua::status::good);
}

TEST_CASE("embedded server: a role's Applications and Endpoints lists decide with its identity rules", "[runtime][roles]") {
  runtime rt;
  // Operator for every anonymous session, limited to the applications and endpoints below.
  auto limited = [](std::vector<std::string> apps, bool apps_exclude, std::vector<std::string> endpoints,
                    bool endpoints_exclude) {
    role_plan r = anonymous_operators();
    r.applications = std::move(apps);
    r.applications_exclude = apps_exclude;
    r.endpoints = std::move(endpoints);
    r.endpoints_exclude = endpoints_exclude;
    return plan_with({{"Anonymous", {"Browse", "Read"}}, {"Operator", {"Browse", "Read", "Write"}}}, {r});
  };
  const auto start = limited({}, true, {}, true);
  auto s = rt.start_server(start);
  REQUIRE(s.has_value());
  server& srv = **s;
  REQUIRE(srv.register_namespace("urn:test:roles") == 2);
  REQUIRE(srv.apply(folder(plant, ns0::objects_folder, "Plant")) == ua::status::good);
  variable_node v;
  v.id = setpoint;
  v.parent = plant;
  v.browse_name = qualified_name{2, ua::ua_string("SP")};
  v.data_type = node_id(0, ua::ids::double_);
  v.access_level = access::read_write;
  v.value.set_value(1.0);
  REQUIRE(srv.apply(v) == ua::status::good);
  REQUIRE(srv.set_access(start).empty());
  {
    client c = connect(rt, srv);  // no limits: an operator
    CHECK(write_sp(c, 2.0) == ua::status::good);
  }
  // Only one client application: a session over None shows no certificate, so none is on the list.
  REQUIRE(srv.reload(limited({"urn:plant:hmi"}, false, {}, true)).empty());
  {
    client c = connect(rt, srv);
    CHECK(write_sp(c, 2.0) == ua::status::bad_user_access_denied);
  }
  // All but one application: this one is in.
  REQUIRE(srv.reload(limited({"urn:plant:hmi"}, true, {}, true)).empty());
  {
    client c = connect(rt, srv);
    CHECK(write_sp(c, 3.0) == ua::status::good);
  }
  // Only the endpoint the session came through (the URL the server advertises), then only another.
  const std::string here = srv.endpoint_url();
  REQUIRE(srv.reload(limited({}, true, {here}, false)).empty());
  {
    client c = connect(rt, srv);
    CHECK(write_sp(c, 4.0) == ua::status::good);
  }
  REQUIRE(srv.reload(limited({}, true, {"opc.tcp://elsewhere:4840"}, false)).empty());
  {
    client c = connect(rt, srv);
    CHECK(write_sp(c, 5.0) == ua::status::bad_user_access_denied);
  }
  REQUIRE(srv.reload(limited({}, true, {here}, true)).empty());  // kept from this one
  {
    client c = connect(rt, srv);
    CHECK(write_sp(c, 5.0) == ua::status::bad_user_access_denied);
  }
}

// Namespace 2's NamespaceMetadata (Part 5 §6.3.13) as our client reads it: made when the
// application registers the namespace, its DefaultUserRolePermissions the session's share of the
// plan's namespace default, following a reload.
ua::data_value read_metadata(client& c, const char* property) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = node_id::string(1, std::string("Namespaces.urn:test:roles.") + property);
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  REQUIRE(resp.has_value());
  return resp->results.at(0);
}

std::string role_permissions_text(const ua::data_value& dv) {
  std::string out;
  const auto* list = dv.value.get_if<ua::ua_array<ua::extension_object>>();
  if (!list) return dv.value.empty() ? "null" : "?";
  for (const auto& eo : *list)
    if (const auto* rp = eo.get_if<ua::role_permission_type>())
      out += (out.empty() ? "" : ",") + rp->role_id.to_string() + ":" + std::to_string(static_cast<std::uint32_t>(rp->permissions));
  return out;
}

TEST_CASE("embedded server: a namespace's NamespaceMetadata shows the plan's namespace default, after a reload too",
          "[runtime][roles]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  server& srv = **s;
  REQUIRE(srv.register_namespace("urn:test:roles") == 2);
  client c = connect(rt, srv);
  CHECK(read_metadata(c, "NamespaceUri").value == ua::variant(ua::ua_string("urn:test:roles")));
  CHECK(role_permissions_text(read_metadata(c, "DefaultUserRolePermissions")) == "null");

  permission_plan p;
  p.namespace_uri = "urn:test:roles";
  p.roles = {{"Anonymous", {"Browse", "Read"}}, {"Operator", {"Browse", "Read", "Write"}}};
  p.restrictions = {"SigningRequired"};
  plan.permissions = {p};
  REQUIRE(srv.reload(plan).empty());
  // The running session's share (it holds Anonymous), read at once; the whole default is an
  // administrator's to read (Part 3 §5.2.9).
  CHECK(role_permissions_text(read_metadata(c, "DefaultUserRolePermissions")) == "i=15644:33");
  CHECK(read_metadata(c, "DefaultAccessRestrictions").value == ua::variant(std::uint16_t{1}));
  CHECK(read_metadata(c, "DefaultRolePermissions").status == ua::status::bad_user_access_denied);
  // Back to no rule: nothing published.
  plan.permissions.clear();
  REQUIRE(srv.reload(plan).empty());
  CHECK(role_permissions_text(read_metadata(c, "DefaultUserRolePermissions")) == "null");
}

}  // namespace roles_runtime_test

namespace roles_runtime_test {

TEST_CASE("embedded server: a plan with an unknown role or permission does not start", "[runtime][roles]") {
  runtime rt;
  CHECK(rt.start_server(plan_with({{"Oprator", {"Read"}}})).error() == ua::status::bad_configuration_error);
  CHECK(rt.start_server(plan_with({{"Operator", {"Reed"}}})).error() == ua::status::bad_configuration_error);
  role_plan bad_rule;
  bad_rule.name = "Operator";
  bad_rule.identities = {"UserName:"};
  auto bad_identity = plan_with({{"Operator", {"Read"}}}, {bad_rule});
  CHECK(rt.start_server(bad_identity).error() == ua::status::bad_configuration_error);
}

}  // namespace roles_runtime_test
