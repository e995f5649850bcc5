// Roles and permissions in the engine (docs/security.md "Roles and permissions"): the identity
// mapping of Part 18 §4.4, the per-node permission table (subtree rules inherited downward, the
// deepest winning, namespace defaults), and each service's answer per role through server_core with
// real sessions: Browse, BrowseNext, TranslateBrowsePaths, Read (Value, User* attributes,
// RolePermissions, UserRolePermissions, AccessRestrictions), Write, Call, CreateMonitoredItems.
#include <catch2/catch.hpp>

#include <memory>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace roles_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace perm = authz::permission;
using test::at;

actors::session_identity anonymous_id() { return {actors::session_identity::kind::anonymous, "urn:client", false}; }
actors::session_identity user_id(std::string name) { return {actors::session_identity::kind::user_name, std::move(name), true}; }

TEST_CASE("roles: the well-known roles have their NodeIds and default mappings", "[roles]") {
  const authz::role_registry reg;
  REQUIRE(reg.roles().size() == authz::well_known::count);
  CHECK(reg.at(authz::well_known::operator_).id == ua::node_id(0, 15680));
  CHECK(reg.at(authz::well_known::engineer).id == ua::node_id(0, 16036));
  CHECK(reg.at(authz::well_known::security_admin).id == ua::node_id(0, 15704));
  CHECK(reg.find("ConfigureAdmin") == authz::well_known::configure_admin);
  CHECK(reg.find(ua::node_id(0, 15668)) == authz::well_known::observer);
  // Part 18 §4.3: Anonymous for every session (its default rules Anonymous and AuthenticatedUser),
  // AuthenticatedUser for every checked identity. Before decision 0075 a user held AuthenticatedUser
  // alone.
  CHECK(reg.roles_of(anonymous_id()) == authz::role_set(1u << authz::well_known::anonymous));
  CHECK(reg.roles_of(user_id("alice")) ==
        authz::role_set((1u << authz::well_known::anonymous) | (1u << authz::well_known::authenticated_user)));
  CHECK(reg.at(authz::well_known::anonymous).identities ==
        std::vector<authz::identity_rule>{*authz::parse_identity_rule("Anonymous"),
                                          *authz::parse_identity_rule("AuthenticatedUser")});
  // A plant that drops the defaults and writes the old mapping gets the old behaviour.
  authz::role_registry old;
  old.clear_identities(authz::well_known::anonymous);
  old.add_identity(authz::well_known::anonymous, *authz::parse_identity_rule("Anonymous"));
  CHECK_FALSE(old.roles_of(user_id("alice")).has(authz::well_known::anonymous));
}

TEST_CASE("roles: UserName, Thumbprint and a plant's own role map identities", "[roles]") {
  authz::role_registry reg;
  reg.add_identity(authz::well_known::operator_, *authz::parse_identity_rule("UserName:op"));
  const auto shift = reg.add("ShiftLead", 1);
  REQUIRE(shift);
  CHECK(reg.at(*shift).id == ua::node_id::string(1, "Role.ShiftLead"));
  CHECK(reg.add("ShiftLead", 1) == shift);  // once
  const std::string thumb(40, 'a');
  reg.add_identity(*shift, *authz::parse_identity_rule("Thumbprint:" + thumb));
  reg.add_identity(*shift, *authz::parse_identity_rule("UserName:op"));

  const auto op = reg.roles_of(user_id("op"));
  CHECK(op.has(authz::well_known::operator_));
  CHECK(op.has(authz::well_known::authenticated_user));
  CHECK(op.has(*shift));
  CHECK(op.has(authz::well_known::anonymous));  // every session's (Part 18 §4.3)
  CHECK_FALSE(reg.roles_of(user_id("opx")).has(authz::well_known::operator_));
  // A user certificate's thumbprint, any case.
  const actors::session_identity cert{actors::session_identity::kind::certificate, std::string(40, 'A'), true};
  CHECK(reg.roles_of(cert).has(*shift));
  // A user named like the thumbprint is not the certificate.
  CHECK_FALSE(reg.roles_of(user_id(thumb)).has(*shift));
  CHECK(authz::describe(reg, op) == "Anonymous, AuthenticatedUser, Operator, ShiftLead");

  reg.clear_identities(authz::well_known::anonymous);
  CHECK(reg.roles_of(anonymous_id()).empty());
}

TEST_CASE("roles: identity rules and permission names refuse what Part 18 and Part 3 do not name", "[roles]") {
  std::string why;
  CHECK_FALSE(authz::parse_identity_rule("UserName:", &why));
  CHECK(why.find("user name") != std::string::npos);
  CHECK_FALSE(authz::parse_identity_rule("Thumbprint:12", &why));
  CHECK_FALSE(authz::parse_identity_rule("X509Subject:x", &why));  // a name of key=value parts
  CHECK_FALSE(authz::parse_identity_rule("anonymous", &why));
  CHECK(authz::to_string(*authz::parse_identity_rule("UserName:bob")) == "UserName:bob");
  CHECK(authz::permission_of("Browse") == perm::browse);
  CHECK(authz::permission_of("AddNode") == perm::add_node);
  CHECK(authz::permission_of("All") == perm::all);
  CHECK_FALSE(authz::permission_of("read"));
  CHECK(authz::restriction_of("EncryptionRequired") == authz::restriction::encryption_required);
  CHECK_FALSE(authz::restriction_of("Encrypted"));
}

// Objects -> A -> B -> V (a Variable), A -> C; D under Objects; all in ns=1.
struct small_space {
  ua::address_space as;
  ua::node_index a, b, c, d, v;
  small_space() {
    ua::load_namespace0(as);
    const auto add = [&](const char* id, ua::node_class cls, const char* name) {
      ua::node_spec s;
      s.id = ua::node_id::string(1, id);
      s.cls = cls;
      s.browse_ns = 1;
      s.browse_name = name;
      return *as.add_node(std::move(s));
    };
    a = add("A", ua::node_class::object, "A");
    b = add("A.B", ua::node_class::object, "B");
    c = add("A.C", ua::node_class::object, "C");
    d = add("D", ua::node_class::object, "D");
    v = add("A.B.V", ua::node_class::variable, "V");
    const ua::node_id organizes(0, 35), has_component(0, 47), objects(0, 85);
    REQUIRE(as.add_reference(objects, organizes, ua::node_id::string(1, "A")) == status::good);
    REQUIRE(as.add_reference(ua::node_id::string(1, "A"), organizes, ua::node_id::string(1, "A.B")) == status::good);
    REQUIRE(as.add_reference(ua::node_id::string(1, "A"), organizes, ua::node_id::string(1, "A.C")) == status::good);
    REQUIRE(as.add_reference(ua::node_id::string(1, "A.B"), has_component, ua::node_id::string(1, "A.B.V")) == status::good);
    REQUIRE(as.add_reference(objects, organizes, ua::node_id::string(1, "D")) == status::good);
  }
};

authz::permission_rule rule(std::string node, std::vector<std::pair<authz::role_id, std::uint32_t>> roles) {
  authz::permission_rule r;
  r.node = std::move(node);
  r.roles = std::move(roles);
  r.where = "test";
  return r;
}

std::vector<ua::node_id> role_ids() {
  std::vector<ua::node_id> ids;
  const authz::role_registry reg;
  for (const auto& r : reg.roles()) ids.push_back(r.id);
  return ids;
}

TEST_CASE("permission_table: a subtree rule is inherited downward and the deepest rule wins", "[roles]") {
  small_space s;
  constexpr auto op = authz::well_known::operator_;
  constexpr auto obs = authz::well_known::observer;
  authz::permission_rule ns_default;
  ns_default.namespace_index = 1;
  ns_default.roles = {{obs, perm::browse}};
  std::vector<authz::permission_rule> rules{
      // Listed deepest first: the order in the file does not decide, the depth does.
      rule("ns=1;s=A.B", {{op, perm::browse | perm::read | perm::write}}),
      rule("/Objects/1:A", {{op, perm::browse | perm::read}, {obs, perm::browse | perm::read}}),
      ns_default};
  authz::permission_table t;
  t.set_rules(rules, role_ids());
  CHECK(t.rebuild(s.as).empty());
  const authz::role_set operator_only(1u << op), observer_only(1u << obs), both(operator_only.bits() | observer_only.bits());
  CHECK(t.permissions(s.v, operator_only, 0) == (perm::browse | perm::read | perm::write));
  CHECK(t.permissions(s.b, operator_only, 0) == (perm::browse | perm::read | perm::write));
  CHECK(t.permissions(s.v, observer_only, 0) == 0);  // the B rule does not name Observer
  CHECK(t.permissions(s.c, operator_only, 0) == (perm::browse | perm::read));
  CHECK(t.permissions(s.c, observer_only, 0) == (perm::browse | perm::read));
  CHECK(t.permissions(s.a, both, 0) == (perm::browse | perm::read));
  // D: only the namespace's default; namespace 0: no rule, everything.
  CHECK(t.permissions(s.d, observer_only, 0) == perm::browse);
  CHECK(t.permissions(s.d, operator_only, 0) == 0);
  const auto server_object = s.as.find(ua::node_id(0, 2253));
  CHECK(t.permissions(server_object, authz::role_set{}, 0) == perm::all);
  CHECK(t.entry_of(server_object) == nullptr);
  // A session without roles may do nothing where a rule decides.
  CHECK(t.permissions(s.c, authz::role_set{}, 0) == 0);
}

TEST_CASE("permission_table: a rule whose node is not there is reported and applies to nothing", "[roles]") {
  small_space s;
  authz::permission_table t;
  t.set_rules({rule("ns=1;s=Nope", {{0, perm::browse}}), rule("/Objects/1:A/1:Zed", {{0, perm::browse}})}, role_ids());
  const auto missing = t.rebuild(s.as);
  REQUIRE(missing.size() == 2);
  CHECK(missing[0] == "test: ns=1;s=Nope names no node");
  CHECK(t.permissions(s.a, authz::role_set{}, 0) == perm::all);
}

TEST_CASE("permission_table: SigningRequired and EncryptionRequired leave an unsecured channel only Browse", "[roles]") {
  small_space s;
  auto r = rule("ns=1;s=A", {{0, perm::browse | perm::read}});
  r.restrictions = authz::restriction::encryption_required;
  authz::permission_table t;
  t.set_rules({r}, role_ids());
  t.rebuild(s.as);
  const authz::role_set anon(1);
  CHECK(t.permissions(s.a, anon, authz::restrictions_met_by(1)) == perm::browse);  // None
  CHECK(t.permissions(s.a, anon, authz::restrictions_met_by(2)) == perm::browse);  // Sign
  CHECK(t.permissions(s.a, anon, authz::restrictions_met_by(3)) == (perm::browse | perm::read));
  r.restrictions |= authz::restriction::apply_restrictions_to_browse;
  t.set_rules({r}, role_ids());
  t.rebuild(s.as);
  CHECK(t.permissions(s.a, anon, authz::restrictions_met_by(1)) == 0);
}

// ---------------------------------------------------------------------------------------------
// The services per role, through server_core and anonymous sessions (the role Anonymous; a
// registry that maps anonymous sessions to Operator too plays the operator).

constexpr std::uint32_t roles_channel = 3;

struct roles_client {
  explicit roles_client(actors::server_core* c) : core(c) {}
  actors::server_core* core;
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
    core->handle(roles_channel, req.request_header, msg, at(0), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }
  void open_session() {
    ua::create_session_request create;
    create.requested_session_timeout = 60'000;
    const auto* created = call(create).get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    activate();
  }
  void activate() {
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
    REQUIRE(resp->results.size() == 1);
    return resp->results[0];
  }
  ua::status_code write(const ua::node_id& id, ua::variant v) {
    ua::write_request req;
    ua::write_value w;
    w.node_id = id;
    w.attribute_id = 13;
    w.value.value = std::move(v);
    w.value.has_value = true;
    req.nodes_to_write.push_back(w);
    const auto* resp = call(req).get_if<ua::write_response>();
    REQUIRE(resp);
    return resp->results.at(0);
  }
  ua::status_code hello() {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = ua::node_id(1, 1000u);
    m.method_id = ua::node_id(1, 62541u);
    m.input_arguments = {ua::variant(ua::ua_string("roles"))};
    req.methods_to_call.push_back(m);
    const auto* resp = call(req).get_if<ua::call_response>();
    REQUIRE(resp);
    return resp->results.at(0).status_code;
  }
  std::vector<std::string> browse(const ua::node_id& id, ua::status_code* result = nullptr) {
    ua::browse_request req;
    ua::browse_description d;
    d.node_id = id;
    d.browse_direction = ua::browse_direction::forward;
    d.include_subtypes = true;
    d.result_mask = 63;
    req.nodes_to_browse.push_back(d);
    const auto* resp = call(req).get_if<ua::browse_response>();
    REQUIRE(resp);
    if (result) *result = resp->results.at(0).status_code;
    std::vector<std::string> names;
    for (const auto& r : resp->results.at(0).references) names.emplace_back(r.browse_name.name.view());
    return names;
  }
};

const ua::node_id demo_folder = ua::node_id::string(1, "Demo");
const ua::node_id the_answer = ua::node_id::string(1, "the.answer");
const ua::node_id scalar_int32 = ua::node_id::string(1, "Demo.Static.Scalar.Int32");

// The demo namespace with rules: Demo readable by Anonymous, its scalars writable by Operator, the
// answer hidden from Anonymous, HelloWorld's object callable by Operator only.
std::vector<authz::permission_rule> demo_rules() {
  constexpr auto anon = authz::well_known::anonymous;
  constexpr auto op = authz::well_known::operator_;
  return {rule("ns=1;s=Demo", {{anon, perm::browse | perm::read}, {op, perm::browse | perm::read}}),
          rule("ns=1;s=Demo.Static", {{anon, perm::browse | perm::read},
                                      {op, perm::browse | perm::read | perm::write | perm::read_role_permissions}}),
          rule("ns=1;s=the.answer", {{op, perm::browse | perm::read}}),
          rule("ns=1;i=1000", {{anon, perm::browse}, {op, perm::browse | perm::call}})};
}

std::shared_ptr<authz::role_registry> anonymous_operators() {
  auto reg = std::make_shared<authz::role_registry>();
  reg->add_identity(authz::well_known::operator_, *authz::parse_identity_rule("Anonymous"));
  return reg;
}

TEST_CASE("roles: each service answers an Anonymous session what its role allows", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  const auto* s = core.sessions().find(c.token);
  REQUIRE(s);
  CHECK(s->roles == authz::role_set(1u << authz::well_known::anonymous));

  // Browse: the answer is not listed under Demo; browsing it is refused.
  const auto names = c.browse(demo_folder);
  CHECK(std::find(names.begin(), names.end(), "Static") != names.end());
  CHECK(std::find(names.begin(), names.end(), "the.answer") == names.end());
  ua::status_code result;
  c.browse(the_answer, &result);
  CHECK(result == status::bad_user_access_denied);
  // Read: the Value and every other attribute of the answer refused; a scalar read, its
  // UserAccessLevel without CurrentWrite.
  CHECK(c.read(the_answer).status == status::bad_user_access_denied);
  CHECK(c.read(the_answer, 4).status == status::bad_user_access_denied);  // DisplayName: needs Browse
  CHECK(c.read(scalar_int32).status == status::good);
  // The demo's scalars: AccessLevel CurrentRead|CurrentWrite|StatusWrite|TimestampWrite (0x63); the
  // UserAccessLevel of a role with Read only keeps CurrentRead.
  CHECK(c.read(scalar_int32, 18).value == ua::variant(std::uint8_t{0x01}));  // UserAccessLevel
  CHECK(c.read(scalar_int32, 17).value == ua::variant(std::uint8_t{0x63}));  // AccessLevel: the node's
  CHECK(c.read(scalar_int32, 24).status == status::bad_user_access_denied);  // RolePermissions
  // Write and Call refused.
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{5})) == status::bad_user_access_denied);
  CHECK(c.hello() == status::bad_user_access_denied);
  // Namespace 0 (no rule): as without roles.
  CHECK(c.read(ua::node_id(0, 2259)).status == status::good);
  CHECK(c.browse(ua::node_id(0, 85)).size() > 1);
}

TEST_CASE("roles: the same requests as an Operator are allowed, and RolePermissions read", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(anonymous_operators(), demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  CHECK(core.sessions().find(c.token)->roles.has(authz::well_known::operator_));
  const auto names = c.browse(demo_folder);
  CHECK(std::find(names.begin(), names.end(), "the.answer") != names.end());
  CHECK(c.read(the_answer).value == ua::variant(std::int32_t{43}));
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{5})) == status::good);
  CHECK(c.read(scalar_int32).value == ua::variant(std::int32_t{5}));
  CHECK(c.read(scalar_int32, 18).value == ua::variant(std::uint8_t{0x63}));  // Write: the three write bits
  CHECK(c.hello() == status::good);
  // RolePermissions: both roles the Demo.Static rule names; UserRolePermissions: those the session
  // holds (Anonymous and Operator); AccessRestrictions: none.
  const auto rp = c.read(scalar_int32, 24);
  REQUIRE(rp.status == status::good);
  const auto* list = rp.value.get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(list);
  REQUIRE(list->size() == 2);
  const auto* first = (*list)[0].get_if<ua::role_permission_type>();
  REQUIRE(first);
  CHECK(first->role_id == ua::node_id(0, 15644));
  CHECK(static_cast<std::uint32_t>(first->permissions) == (perm::browse | perm::read));
  const auto urp = c.read(scalar_int32, 25);
  REQUIRE(urp.value.get_if<ua::ua_array<ua::extension_object>>());
  CHECK(urp.value.get_if<ua::ua_array<ua::extension_object>>()->size() == 2);
  CHECK(c.read(scalar_int32, 26).value == ua::variant(std::uint16_t{0}));
  // A node no rule covers has none of the three.
  CHECK(c.read(ua::node_id(0, 2253), 24).status == status::bad_attribute_id_invalid);
}

TEST_CASE("roles: CreateMonitoredItems refuses per item what the role may not read", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  ua::create_subscription_request sub;
  sub.requested_publishing_interval = 100;
  sub.requested_lifetime_count = 100;
  sub.requested_max_keep_alive_count = 10;
  sub.publishing_enabled = true;
  const auto* created = c.call(sub).get_if<ua::create_subscription_response>();
  REQUIRE(created);
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (const auto& id : {scalar_int32, the_answer}) {
    ua::monitored_item_create_request item;
    item.item_to_monitor.node_id = id;
    item.item_to_monitor.attribute_id = 13;
    item.monitoring_mode = ua::monitoring_mode::reporting;
    item.requested_parameters.sampling_interval = 100;
    item.requested_parameters.queue_size = 1;
    req.items_to_create.push_back(item);
  }
  // An event item on the Demo folder: Anonymous lacks ReceiveEvents there.
  ua::monitored_item_create_request events;
  events.item_to_monitor.node_id = demo_folder;
  events.item_to_monitor.attribute_id = 12;
  events.monitoring_mode = ua::monitoring_mode::reporting;
  req.items_to_create.push_back(events);
  const auto* items = c.call(req).get_if<ua::create_monitored_items_response>();
  REQUIRE(items);
  REQUIRE(items->results.size() == 3);
  CHECK(items->results[0].status_code == status::good);
  CHECK(items->results[1].status_code == status::bad_user_access_denied);
  CHECK(items->results[2].status_code == status::bad_user_access_denied);
}

TEST_CASE("roles: TranslateBrowsePaths and BrowseNext leave out what the role may not Browse", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  const auto translate = [&](const char* name) {
    ua::translate_browse_paths_to_node_ids_request req;
    ua::browse_path p;
    p.starting_node = demo_folder;
    ua::relative_path_element e;
    e.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
    e.include_subtypes = true;
    e.target_name = ua::qualified_name{1, ua::ua_string(name)};
    p.relative_path.elements.push_back(e);
    req.browse_paths.push_back(p);
    const auto* resp = c.call(req).get_if<ua::translate_browse_paths_to_node_ids_response>();
    REQUIRE(resp);
    return resp->results.at(0).status_code;
  };
  CHECK(translate("Static") == status::good);
  CHECK(translate("the.answer") == status::bad_no_match);
  // BrowseNext, one reference at a time: the answer never comes.
  ua::browse_request req;
  req.requested_max_references_per_node = 1;
  ua::browse_description d;
  d.node_id = demo_folder;
  d.browse_direction = ua::browse_direction::forward;
  d.include_subtypes = true;
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  const auto* first = c.call(req).get_if<ua::browse_response>();
  REQUIRE(first);
  std::vector<std::string> seen;
  for (const auto& r : first->results.at(0).references) seen.emplace_back(r.browse_name.name.view());
  ua::byte_string cp = first->results.at(0).continuation_point;
  for (int i = 0; i < 50 && !cp.empty(); ++i) {
    ua::browse_next_request next;
    next.continuation_points.push_back(cp);
    const auto* more = c.call(next).get_if<ua::browse_next_response>();
    REQUIRE(more);
    for (const auto& r : more->results.at(0).references) seen.emplace_back(r.browse_name.name.view());
    cp = more->results.at(0).continuation_point;
  }
  CHECK(std::find(seen.begin(), seen.end(), "Static") != seen.end());
  CHECK(std::find(seen.begin(), seen.end(), "the.answer") == seen.end());
}

TEST_CASE("roles: new roles reach a session at its next ActivateSession, new permissions at once", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{7})) == status::bad_user_access_denied);
  // Anonymous sessions become operators (a reload): this one stays Anonymous until it activates again.
  REQUIRE(core.set_access(anonymous_operators(), demo_rules()).empty());
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{7})) == status::bad_user_access_denied);
  c.activate();
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{7})) == status::good);
  // Permissions without the Operator's Write: refused from the next request on.
  auto rules = demo_rules();
  rules[1].roles[1].second = perm::browse | perm::read;
  REQUIRE(core.set_access(anonymous_operators(), rules).empty());
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{8})) == status::bad_user_access_denied);
  // No rules: as without roles.
  REQUIRE(core.set_access(nullptr, {}).empty());
  CHECK(c.write(scalar_int32, ua::variant(std::int32_t{8})) == status::good);
}

TEST_CASE("roles: nodes added under a rule's subtree take its permissions", "[roles]") {
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  variable_node v;
  v.id = ua::node_id::string(1, "Demo.Static.Added");
  v.parent = ua::node_id::string(1, "Demo.Static");
  v.browse_name = ua::qualified_name{1, ua::ua_string("Added")};
  v.value.value = ua::variant(std::int32_t{1});
  v.value.has_value = true;
  v.data_type = ua::node_id(0, 6);
  v.access_level = 3;
  std::vector<node_change> changes{v};
  std::vector<ua::status_code> statuses;
  core.apply(changes, statuses, at(0));
  REQUIRE(statuses.at(0) == status::good);
  roles_client c(&core);
  c.open_session();
  CHECK(c.read(v.id).status == status::good);
  CHECK(c.write(v.id, ua::variant(std::int32_t{2})) == status::bad_user_access_denied);
}

TEST_CASE("roles: a Read of a node with permissions allocates nothing in steady state", "[roles]") {
  if (!test::counts_allocations) return;
  auto core = test::make_core();
  REQUIRE(core.set_access(nullptr, demo_rules()).empty());
  roles_client c(&core);
  c.open_session();
  ua::read_request req;
  ua::read_value_id r;
  r.node_id = scalar_int32;
  r.attribute_id = 13;
  req.nodes_to_read.push_back(r);
  r.node_id = the_answer;  // refused: the status path too
  req.nodes_to_read.push_back(r);
  req.request_header.authentication_token = c.token;
  const ua::extension_object msg(req);
  for (int i = 0; i < 3; ++i) {
    c.out.clear();
    core.handle(roles_channel, req.request_header, msg, at(1), c.out);
  }
  const test::alloc_scope counter;
  for (int i = 0; i < 100; ++i) {
    c.out.clear();
    core.handle(roles_channel, req.request_header, msg, at(1), c.out);
  }
  CHECK(counter.counted().allocations == 0);
}

}  // namespace roles_test
