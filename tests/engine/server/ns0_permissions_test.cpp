// Namespace 0's published default permissions (Opc.Ua.NodeIds.permissions.csv, docs/decisions/0068):
// the generated table, the rules made of it, what an anonymous session and administrators may do
// on ServerConfiguration and PublishSubscribe through server_core, how a plant's rules combine with
// them, and Bad_SecurityModeInsufficient where only the channel stands in the way.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/server/access/ns0_defaults.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "protocol/ns0/ns0_permissions.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace ns0_permissions_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace ids = ua::ids;
namespace perm = authz::permission;
using test::at;

const ua::node_id publish_subscribe(0, ids::publish_subscribe);
const ua::node_id add_connection(0, ids::publish_subscribe_add_connection);
const ua::node_id certificate_types(0, ids::server_configuration_certificate_groups_default_application_group_certificate_types);
const ua::node_id max_trust_list_size(0, ids::server_configuration_max_trust_list_size);

struct client {
  explicit client(actors::server_core& c) : s(c, 5) {}
  test::core_session s;

  ua::data_value read(const ua::node_id& id, std::uint32_t attribute = 13) {
    ua::read_request req;
    ua::read_value_id r;
    r.node_id = id;
    r.attribute_id = attribute;
    req.nodes_to_read.push_back(r);
    const auto& resp = s.call_as<ua::read_response>(req);
    REQUIRE(resp.results.size() == 1);
    return resp.results[0];
  }
  ua::status_code call(const ua::node_id& object, const ua::node_id& method) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = object;
    m.method_id = method;
    m.input_arguments = {ua::variant(ua::extension_object(ua::pub_sub_connection_data_type{}))};
    req.methods_to_call.push_back(m);
    const auto& resp = s.call_as<ua::call_response>(req);
    REQUIRE(resp.results.size() == 1);
    return resp.results[0].status_code;
  }
  std::vector<ua::status_code> write(std::vector<std::pair<ua::node_id, ua::variant>> items) {
    ua::write_request req;
    for (auto& [id, v] : items) {
      ua::write_value w;
      w.node_id = id;
      w.attribute_id = 13;
      w.value.value = std::move(v);
      w.value.has_value = true;
      req.nodes_to_write.push_back(w);
    }
    const auto& resp = s.call_as<ua::write_response>(req);
    return {resp.results.begin(), resp.results.end()};
  }
  std::vector<std::string> browse(const ua::node_id& id) {
    ua::browse_request req;
    ua::browse_description d;
    d.node_id = id;
    d.browse_direction = ua::browse_direction::forward;
    d.include_subtypes = true;
    d.result_mask = 63;
    req.nodes_to_browse.push_back(d);
    const auto& resp = s.call_as<ua::browse_response>(req);
    REQUIRE(resp.results.size() == 1);
    std::vector<std::string> names;
    for (const auto& r : resp.results[0].references) names.emplace_back(r.browse_name.name.view());
    return names;
  }
};

bool has(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A registry that gives anonymous sessions `role` as well (the test's way to play an administrator).
std::shared_ptr<authz::role_registry> anonymous_as(authz::role_id role) {
  auto reg = std::make_shared<authz::role_registry>();
  reg->add_identity(role, *authz::parse_identity_rule("Anonymous"));
  return reg;
}

TEST_CASE("ns0 defaults: the generated table holds the CSV's rows, roles by their NodeIds", "[roles]") {
  const auto rows = ua::ns0::default_permissions();
  const auto grants = ua::ns0::default_permission_grants();
  CHECK(rows.size() == ua::ns0::permission_row_count);
  CHECK(rows.size() == 404);
  const auto row = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.node == ids::publish_subscribe; });
  REQUIRE(row != rows.end());
  CHECK(row->restrictions == 0);
  REQUIRE(row->grant_count == 2);
  CHECK(grants[row->first_grant].role == ids::well_known_role_anonymous);
  CHECK(grants[row->first_grant].permissions == (perm::browse | perm::call));
  CHECK(grants[row->first_grant + 1].role == ids::well_known_role_configure_admin);
  CHECK(grants[row->first_grant + 1].permissions == 65423);
  const auto types = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.node == certificate_types.numeric(); });
  REQUIRE(types != rows.end());
  CHECK(types->restrictions == authz::restriction::signing_required);
}

TEST_CASE("ns0 defaults: a rule per node of the table that the server has, for its node only", "[roles]") {
  auto core = test::make_core();
  const authz::role_registry reg;
  const auto rules = authz::ns0_default_rules(core.space(), reg);
  CHECK(rules.size() > 300);
  CHECK(rules.size() <= 404);
  const auto it = std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.node == "i=14443"; });
  REQUIRE(it != rules.end());
  CHECK_FALSE(it->subtree);
  CHECK(it->where == "namespace 0's default of PublishSubscribe");
  // Anonymous's bits stay Anonymous's (every session holds it, Part 18 §4.3); SecurityKeyServer*
  // roles, which the registry lacks, are left out (GetSecurityKeys names SecurityKeyServerAdmin).
  const auto bits_of = [](const authz::permission_rule& r, authz::role_id role) {
    std::uint32_t bits = 0;
    for (const auto& [id, b] : r.roles)
      if (id == role) bits |= b;
    return bits;
  };
  CHECK(bits_of(*it, authz::well_known::anonymous) == (perm::browse | perm::call));
  CHECK(bits_of(*it, authz::well_known::authenticated_user) == 0);
  CHECK(bits_of(*it, authz::well_known::configure_admin) == 65423);
  const auto keys = std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.node == "i=15215"; });
  REQUIRE(keys != rules.end());
  CHECK(keys->roles.size() == 1);  // Anonymous: Browse|Call
  CHECK(keys->restrictions == (authz::restriction::signing_required | authz::restriction::encryption_required));
}

TEST_CASE("ns0 defaults: an anonymous session may look at PublishSubscribe and ServerConfiguration, not change them",
          "[roles]") {
  auto core = test::make_core();
  client c(core);
  // What was readable stays so: the Server's status has no default.
  CHECK(c.read(ua::node_id(0, ids::server_server_status_state)).status == status::good);
  // ServerConfiguration: Browse, and Browse|Read on its plain properties.
  CHECK(has(c.browse(ua::node_id(0, ids::server)), "ServerConfiguration"));
  CHECK(has(c.browse(ua::node_id(0, ids::server)), "PublishSubscribe"));
  CHECK(c.read(max_trust_list_size).status != status::bad_user_access_denied);
  CHECK(c.read(ua::node_id(0, ids::server_configuration), 3).status == status::good);
  // The certificate group: SecurityAdmin's only, and not even listed for anyone else.
  CHECK(c.read(certificate_types).status == status::bad_user_access_denied);
  CHECK_FALSE(has(c.browse(ua::node_id(0, ids::server_configuration_certificate_groups)), "DefaultApplicationGroup"));
  // PublishSubscribe: Browse|Call on the object, AddConnection only ConfigureAdmin's.
  CHECK(c.call(publish_subscribe, add_connection) == status::bad_user_access_denied);
  // The published RolePermissions are not the anonymous session's to read (ReadRolePermissions).
  CHECK(c.read(publish_subscribe, 24).status == status::bad_user_access_denied);
  // Its own share is (UserRolePermissions needs Browse only).
  const auto mine = c.read(publish_subscribe, 25);
  REQUIRE(mine.status == status::good);
  const auto* list = mine.value.get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(list);
  REQUIRE(list->size() == 1);
  const auto* rp = (*list)[0].get_if<ua::role_permission_type>();
  REQUIRE(rp);
  CHECK(rp->role_id == ua::node_id(0, ids::well_known_role_anonymous));
  CHECK(static_cast<std::uint32_t>(rp->permissions) == (perm::browse | perm::call));
  // Session security diagnostics: SecurityAdmin's, over an encrypted channel.
  CHECK(c.read(ua::node_id(0, ids::server_server_diagnostics_sessions_diagnostics_summary_session_security_diagnostics_array))
            .status == status::bad_user_access_denied);
}

TEST_CASE("ns0 defaults: a ConfigureAdmin may call PublishSubscribe and read its RolePermissions", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(anonymous_as(authz::well_known::configure_admin), {}).empty());
  client c(core);
  // Past the permissions: the server serves no AddConnection (Bad_NotImplemented), refused by no rule.
  CHECK(c.call(publish_subscribe, add_connection) == status::bad_not_implemented);
  const auto all = c.read(publish_subscribe, 24);
  REQUIRE(all.status == status::good);
  const auto* list = all.value.get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(list);
  std::vector<std::uint32_t> roles;
  for (const auto& eo : *list) roles.push_back(eo.get_if<ua::role_permission_type>()->role_id.numeric());
  CHECK(roles == std::vector<std::uint32_t>{ids::well_known_role_anonymous, ids::well_known_role_configure_admin});
  CHECK(c.read(publish_subscribe, 26).value.get_if<std::uint16_t>() != nullptr);
}

TEST_CASE("ns0 defaults: a SecurityAdmin over None is refused for the channel, not for the role", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(anonymous_as(authz::well_known::security_admin), {}).empty());
  client c(core);
  // SigningRequired on the certificate group: the role may, the channel may not (Part 4 §7.38).
  CHECK(c.read(certificate_types).status == status::bad_security_mode_insufficient);
  // Browse is not restricted without ApplyRestrictionsToBrowse: the group is listed.
  CHECK(has(c.browse(ua::node_id(0, ids::server_configuration_certificate_groups)), "DefaultApplicationGroup"));
  // A role the node does not grant is still Bad_UserAccessDenied (PublishSubscribe.AddConnection).
  CHECK(c.call(publish_subscribe, add_connection) == status::bad_user_access_denied);
}

TEST_CASE("ns0 defaults: a plant rule naming a node overrides its default, one above it does not", "[roles]") {
  auto core = test::make_core();
  constexpr auto anon = authz::well_known::anonymous;
  authz::permission_rule server;  // everything below the Server object, for anonymous sessions
  server.node = "i=2253";
  server.roles = {{anon, perm::all}};
  server.where = "permissions[1]";
  REQUIRE(core.set_access(nullptr, {server}).empty());
  client c(core);
  // The nearest rule wins: the defaults' own nodes keep theirs.
  CHECK(c.call(publish_subscribe, add_connection) == status::bad_user_access_denied);
  CHECK(c.read(certificate_types).status == status::bad_user_access_denied);
  // Nodes without a default take the plant's rule (it names Anonymous: all of it).
  CHECK(c.read(ua::node_id(0, ids::server_server_status_state)).status == status::good);

  authz::permission_rule method;  // the method itself, named
  method.node = "i=17366";
  method.roles = {{anon, perm::browse | perm::call}};
  method.where = "permissions[2]";
  REQUIRE(core.set_access(nullptr, {server, method}).empty());
  CHECK(c.call(publish_subscribe, add_connection) == status::bad_not_implemented);
  // A namespace default for namespace 0 is overridden by the published ones too.
  authz::permission_rule ns0;
  ns0.namespace_index = 0;
  ns0.roles = {{anon, perm::browse}};
  ns0.where = "permissions[3]";
  REQUIRE(core.set_access(nullptr, {ns0}).empty());
  CHECK(c.read(ua::node_id(0, ids::server_server_status_state)).status == status::bad_user_access_denied);
  CHECK(c.read(max_trust_list_size).status != status::bad_user_access_denied);
}

TEST_CASE("role_set: ApplicationsExclude is writable, by SecurityAdmin over SignAndEncrypt only", "[roles]") {
  auto core = test::make_core();
  const ua::node_id exclude(0, ids::well_known_role_engineer_applications_exclude);
  const ua::node_id scalar = ua::node_id::string(1, "Demo.Static.Scalar.Int32");
  client c(core);
  // Part 18 §4.4.1: CurrentWrite on the two exclude flags, not on the lists.
  const auto* flag = core.space().variable(core.space().find(exclude));
  const auto* list = core.space().variable(core.space().find(ua::node_id(0, ids::well_known_role_engineer_applications)));
  REQUIRE(flag);
  REQUIRE(list);
  CHECK(flag->access_level == 3);
  CHECK(flag->user_access_level == 3);
  CHECK(list->access_level == 1);
  // A Write looks up first only the items whose NodeId may be an exclude flag's (decision 0075):
  // namespace 0's in their range, a string id ending in "Exclude" (a plant role's); the others are
  // looked up once, by the Write itself.
  CHECK(core.role_set().may_name_exclude(exclude));
  CHECK(core.role_set().may_name_exclude(ua::node_id::string(1, "Role.ShiftLead.EndpointsExclude")));
  CHECK_FALSE(core.role_set().may_name_exclude(scalar));
  CHECK_FALSE(core.role_set().may_name_exclude(ua::node_id(1, ids::well_known_role_engineer_applications_exclude)));
  CHECK_FALSE(core.role_set().may_name_exclude(ua::node_id(0, ids::server)));
  // Not an administrator: refused; the other item of the request is written as usual.
  auto results = c.write({{exclude, ua::variant(false)}, {scalar, ua::variant(std::int32_t{7})}});
  REQUIRE(results.size() == 2);
  CHECK(results[0] == status::bad_user_access_denied);
  CHECK(results[1] == status::good);
  CHECK(core.roles()->at(authz::well_known::engineer).applications_exclude);

  // An administrator over None: the channel is what refuses; nothing changes.
  REQUIRE(core.set_access(anonymous_as(authz::well_known::security_admin), {}).empty());
  client admin(core);
  CHECK(admin.write({{exclude, ua::variant(false)}}).at(0) == status::bad_security_mode_insufficient);
  CHECK(core.roles()->at(authz::well_known::engineer).applications_exclude);
  // AccessLevel is the Browse permission's, which the restrictions leave: readable over None.
  const auto level = admin.read(exclude, 17);
  REQUIRE(level.value.get_if<std::uint8_t>());
  CHECK(*level.value.get_if<std::uint8_t>() == 3);
}

}  // namespace ns0_permissions_test
