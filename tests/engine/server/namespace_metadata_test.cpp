// The NamespaceMetadata Objects (Part 5 §6.3.13-6.3.14) under Server/Namespaces: one per namespace,
// namespace 0's from the NodeSet kept, the others made with the mandatory Properties; their
// DefaultRolePermissions and DefaultAccessRestrictions from the `namespace` rules (only
// administrators read the first, Part 3 §5.2.9), DefaultUserRolePermissions per session, and all
// following a reload and a namespace registered later.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "engine/server/access/namespace_metadata.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/server_object.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace namespace_metadata_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace perm = authz::permission;
namespace ids = ua::ids;
using test::at;

constexpr const char* demo_uri = "urn:uactor:demo";

struct md_client {
  explicit md_client(actors::server_core& c) : core(c) {}
  actors::server_core& core;
  ua::node_id token;
  std::uint32_t handle = 0;
  ua::byte_buffer out;
  ua::extension_object response;

  template <class T>
  ua::extension_object& call(T req) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(5, req.request_header, msg, at(0), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }
  void open() {
    ua::create_session_request create;
    create.requested_session_timeout = 60'000;
    const auto* created = call(create).get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    REQUIRE(call(activate).get_if<ua::activate_session_response>());
  }
  ua::data_value read(const ua::node_id& id, std::uint32_t attribute = 13) {
    ua::read_request req;
    ua::read_value_id r;
    r.node_id = id;
    r.attribute_id = attribute;
    req.nodes_to_read.push_back(r);
    const auto* resp = call(req).get_if<ua::read_response>();
    REQUIRE(resp);
    return resp->results.at(0);
  }
  std::vector<std::string> browse(const ua::node_id& id) {
    ua::browse_request req;
    ua::browse_description d;
    d.node_id = id;
    d.browse_direction = ua::browse_direction::forward;
    d.include_subtypes = true;
    d.result_mask = 63;
    req.nodes_to_browse.push_back(d);
    const auto* resp = call(req).get_if<ua::browse_response>();
    REQUIRE(resp);
    std::vector<std::string> names;
    for (const auto& r : resp->results.at(0).references) names.emplace_back(r.browse_name.name.view());
    return names;
  }
};

ua::node_id property_of(const std::string& uri, const char* name) {
  return ua::node_id::string(1, "Namespaces." + uri + "." + name);
}

// The RolePermissionType entries of a value, as (role NodeId, bits).
std::vector<std::pair<ua::node_id, std::uint32_t>> entries(const ua::data_value& dv) {
  std::vector<std::pair<ua::node_id, std::uint32_t>> out;
  const auto* list = dv.value.get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(list);
  for (const auto& eo : *list) {
    const auto* rp = eo.get_if<ua::role_permission_type>();
    REQUIRE(rp);
    out.emplace_back(rp->role_id, static_cast<std::uint32_t>(rp->permissions));
  }
  return out;
}

authz::permission_rule namespace_rule(std::uint16_t ns, std::vector<std::pair<authz::role_id, std::uint32_t>> roles,
                                      std::uint16_t restrictions = 0) {
  authz::permission_rule r;
  r.namespace_index = ns;
  r.roles = std::move(roles);
  r.restrictions = restrictions;
  r.where = "permissions[0]";
  return r;
}

const ua::node_id anonymous_role(0, ids::well_known_role_anonymous), operator_role(0, ids::well_known_role_operator),
    admin_role(0, ids::well_known_role_security_admin);

TEST_CASE("namespace_metadata: every namespace has its Object under Server/Namespaces, namespace 0's kept",
          "[roles][namespace_metadata]") {
  auto core = test::make_core();
  const auto& md = core.namespace_metadata().namespaces();
  REQUIRE(md.size() == 2);
  CHECK(md[0].object == core.space().find(ua::node_id(0, ids::opcua_namespace_metadata)));
  CHECK(md[0].role_permissions == core.space().find(ua::node_id(0, ids::opcua_namespace_metadata_default_role_permissions)));
  const ua::node_index demo = core.space().find(ua::node_id::string(1, std::string("Namespaces.") + demo_uri));
  REQUIRE(demo != ua::no_node);
  CHECK(md[1].object == demo);
  CHECK(core.space().at(demo).browse_ns == 1);
  CHECK(core.space().at(demo).browse_name == demo_uri);

  md_client c(core);
  c.open();
  const auto names = c.browse(ua::node_id(0, ids::server_namespaces));
  CHECK(std::count(names.begin(), names.end(), "http://opcfoundation.org/UA/") == 1);
  CHECK(std::count(names.begin(), names.end(), demo_uri) == 1);
  // The mandatory Properties of Part 5 §6.3.13 and the three defaults.
  const auto props = c.browse(ua::node_id::string(1, std::string("Namespaces.") + demo_uri));
  for (const char* p : {"NamespaceUri", "NamespaceVersion", "NamespacePublicationDate", "IsNamespaceSubset",
                        "StaticNodeIdTypes", "StaticNumericNodeIdRange", "StaticStringNodeIdPattern",
                        "DefaultRolePermissions", "DefaultUserRolePermissions", "DefaultAccessRestrictions"})
    CHECK(std::count(props.begin(), props.end(), p) == 1);
  CHECK(c.read(property_of(demo_uri, "NamespaceUri")).value == ua::variant(ua::ua_string(demo_uri)));
  CHECK(c.read(property_of(demo_uri, "IsNamespaceSubset")).value == ua::variant(false));
  CHECK(c.read(property_of(demo_uri, "StaticNodeIdTypes")).status == status::good);
  // Namespace 0's own, from the NodeSet, untouched.
  CHECK(c.read(ua::node_id(0, ids::opcua_namespace_metadata_namespace_uri)).value ==
        ua::variant(ua::ua_string("http://opcfoundation.org/UA/")));
  // No namespace default: the three say nothing (null), to everyone.
  CHECK(c.read(property_of(demo_uri, "DefaultUserRolePermissions")).value.empty());
  CHECK(c.read(property_of(demo_uri, "DefaultAccessRestrictions")).value.empty());
  CHECK(c.read(ua::node_id(0, ids::opcua_namespace_metadata_default_user_role_permissions)).value.empty());
}

TEST_CASE("namespace_metadata: the namespace default shows, DefaultRolePermissions to administrators only, "
          "DefaultUserRolePermissions per session",
          "[roles][namespace_metadata]") {
  auto core = test::make_core();
  std::vector<authz::permission_rule> rules{
      namespace_rule(1, {{authz::well_known::anonymous, perm::browse | perm::read},
                         {authz::well_known::operator_, perm::browse | perm::read | perm::write}},
                     authz::restriction::signing_required)};
  REQUIRE(core.set_access(nullptr, rules).empty());

  md_client anon(core);
  anon.open();
  // DefaultRolePermissions: Part 3 §5.2.9, administrators only (Browse for everyone).
  CHECK(anon.read(property_of(demo_uri, "DefaultRolePermissions")).status == status::bad_user_access_denied);
  CHECK(anon.read(property_of(demo_uri, "DefaultRolePermissions"), 4).status == status::good);  // DisplayName
  // DefaultUserRolePermissions: only the roles the session holds.
  CHECK(entries(anon.read(property_of(demo_uri, "DefaultUserRolePermissions"))) ==
        std::vector<std::pair<ua::node_id, std::uint32_t>>{{anonymous_role, perm::browse | perm::read}});
  CHECK(anon.read(property_of(demo_uri, "DefaultAccessRestrictions")).value ==
        ua::variant(std::uint16_t{authz::restriction::signing_required}));
  // The metadata of namespace 1 is readable over None although the namespace default needs signing.
  CHECK(anon.read(property_of(demo_uri, "NamespaceUri")).status == status::good);
  // Namespace 0 has no default.
  CHECK(anon.read(ua::node_id(0, ids::opcua_namespace_metadata_default_user_role_permissions)).value.empty());

  // Anonymous sessions made Operator and SecurityAdmin (a plant file may): the whole default, and
  // their own share of it.
  auto reg = std::make_shared<authz::role_registry>();
  reg->add_identity(authz::well_known::operator_, *authz::parse_identity_rule("Anonymous"));
  reg->add_identity(authz::well_known::security_admin, *authz::parse_identity_rule("Anonymous"));
  REQUIRE(core.set_access(reg, rules).empty());
  md_client admin(core);
  admin.open();
  const std::vector<std::pair<ua::node_id, std::uint32_t>> both{
      {anonymous_role, perm::browse | perm::read}, {operator_role, perm::browse | perm::read | perm::write}};
  CHECK(entries(admin.read(property_of(demo_uri, "DefaultRolePermissions"))) == both);
  CHECK(entries(admin.read(property_of(demo_uri, "DefaultUserRolePermissions"))) == both);
  // The running anonymous session keeps its roles until it activates again: still its own share.
  CHECK(entries(anon.read(property_of(demo_uri, "DefaultUserRolePermissions"))).size() == 1);

  // A reload: the values follow; without a namespace rule, null again.
  rules = {namespace_rule(1, {{authz::well_known::engineer, perm::browse}})};
  REQUIRE(core.set_access(reg, rules).empty());
  CHECK(entries(admin.read(property_of(demo_uri, "DefaultRolePermissions"))) ==
        std::vector<std::pair<ua::node_id, std::uint32_t>>{{ua::node_id(0, ids::well_known_role_engineer), perm::browse}});
  CHECK(entries(admin.read(property_of(demo_uri, "DefaultUserRolePermissions"))).empty());
  CHECK(admin.read(property_of(demo_uri, "DefaultAccessRestrictions")).value == ua::variant(std::uint16_t{0}));
  REQUIRE(core.set_access(reg, {}).empty());
  CHECK(admin.read(property_of(demo_uri, "DefaultRolePermissions")).value.empty());
  CHECK(admin.read(property_of(demo_uri, "DefaultUserRolePermissions")).value.empty());
}

TEST_CASE("namespace_metadata: a namespace registered later gets its Object, with its NodeSet model's version",
          "[roles][namespace_metadata]") {
  auto core = test::make_core();
  const std::string uri = "http://example.org/Boilers/";
  const auto ns = actors::register_namespace(core.space(), uri, at(0).utc);
  CHECK(core.namespace_metadata().namespaces().size() == 2);
  ua::date_time published = ua::date_time::from_unix_ms(1'700'000'000'000);
  core.refresh_namespaces({{uri, "1.02", published}});
  REQUIRE(core.namespace_metadata().namespaces().size() == 3);
  CHECK(core.namespace_metadata().namespaces()[2].ns == ns);
  // A namespace default of the new namespace shows at once.
  REQUIRE(core.set_access(nullptr, {namespace_rule(ns, {{authz::well_known::anonymous, perm::browse}})}).empty());
  md_client c(core);
  c.open();
  CHECK(c.read(property_of(uri, "NamespaceVersion")).value == ua::variant(ua::ua_string("1.02")));
  CHECK(c.read(property_of(uri, "NamespacePublicationDate")).value == ua::variant(published));
  CHECK(entries(c.read(property_of(uri, "DefaultUserRolePermissions"))) ==
        std::vector<std::pair<ua::node_id, std::uint32_t>>{{anonymous_role, perm::browse}});
  // Once: a second refresh makes nothing new.
  core.refresh_namespaces();
  CHECK(core.namespace_metadata().namespaces().size() == 3);
  const auto names = c.browse(ua::node_id(0, ids::server_namespaces));
  CHECK(std::count(names.begin(), names.end(), uri) == 1);
}

}  // namespace namespace_metadata_test
