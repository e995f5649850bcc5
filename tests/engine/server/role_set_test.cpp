// The RoleSet (Part 18 §4.2-4.4) and the identity mapping rules of every criteria type: each rule
// kind against the session facts it looks at, the Applications and Endpoints lists, the RoleSet's
// nodes showing what the registry enforces, namespace 0's default permissions on them, and the
// role methods with their refusals (directly and through server_core's Call).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "engine/server/access/role_set_object.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace role_set_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace ids = ua::ids;
using actors::session_identity;
using test::at;

constexpr const char* admin_endpoint = "opc.tcp://plant:4841";

// A session's facts with sensible defaults: a user certificate session on a secured channel.
struct facts_of {
  session_identity id{session_identity::kind::certificate, std::string(40, 'B'), true};
  authz::session_facts f;
  facts_of() {
    f.identity = &id;
    f.user_subject = "CN=alice, O=plant";
    f.user_issuer = "CN=plant CA, O=plant";
    f.application_uri = "urn:plant:hmi";
    f.trusted_application = true;
    f.endpoint_url = admin_endpoint;
    f.security_mode = ua::message_security_mode::sign_and_encrypt;
    f.security_policy_uri = "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256";
    f.transport_profile_uri = "http://opcfoundation.org/UA-Profile/Transport/uatcp-uasc-uabinary";
  }
};

authz::identity_rule rule_of(const char* text) {
  auto r = authz::parse_identity_rule(text);
  REQUIRE(r);
  return *r;
}

TEST_CASE("role_set: X509Subject matches the user certificate's subject or issuer, in any order and spacing", "[roles]") {
  facts_of s;
  CHECK(rule_of("X509Subject:CN=alice, O=plant").matches(s.f));
  CHECK(rule_of("X509Subject:O=plant,CN=alice").matches(s.f));
  CHECK(rule_of("X509Subject:cn = alice / o = plant").matches(s.f));  // keys any case, OpenSSL's one-line form
  CHECK(rule_of("X509Subject:CN=plant CA,O=plant").matches(s.f));     // every user of that CA
  CHECK_FALSE(rule_of("X509Subject:CN=Alice, O=plant").matches(s.f)); // values exactly
  CHECK_FALSE(rule_of("X509Subject:CN=alice").matches(s.f));          // all of the name
  // Only a certificate session: a user name that looks like a subject is not one.
  s.id = {session_identity::kind::user_name, "CN=alice, O=plant", true};
  CHECK_FALSE(rule_of("X509Subject:CN=alice, O=plant").matches(s.f));
}

TEST_CASE("role_set: Application matches the client certificate's ApplicationUri, TrustedApplication a trusted one", "[roles]") {
  facts_of s;
  s.id = {session_identity::kind::anonymous, "urn:plant:hmi", true};
  CHECK(rule_of("Application:urn:plant:hmi").matches(s.f));
  CHECK_FALSE(rule_of("Application:urn:plant:other").matches(s.f));
  CHECK(rule_of("TrustedApplication").matches(s.f));
  // Over None there is no certificate: the ApplicationUri the client claims in CreateSession is
  // not proof (the session identity holds it; the rule does not look there).
  s.f.application_uri = {};
  s.f.trusted_application = false;
  CHECK_FALSE(rule_of("Application:urn:plant:hmi").matches(s.f));
  CHECK_FALSE(rule_of("TrustedApplication").matches(s.f));
}

TEST_CASE("role_set: rule texts and Part 18 structures convert both ways, Role and GroupId with their criteria",
          "[roles]") {
  for (const char* text : {"Anonymous", "AuthenticatedUser", "TrustedApplication", "UserName:op",
                           "Thumbprint:0123456789ABCDEF0123456789ABCDEF01234567", "X509Subject:CN=alice, O=plant",
                           "Application:urn:plant:hmi", "Role:subscriber", "GroupId:cn=ops,ou=plant"}) {
    const auto r = rule_of(text);
    CHECK(authz::to_string(r) == text);
    const auto back = authz::from_structure(authz::to_structure(r));
    REQUIRE(back);
    CHECK(*back == r);
  }
  CHECK(authz::to_structure(rule_of("X509Subject:CN=a")).criteria_type == ua::identity_criteria_type::x509_subject);
  std::string why;
  CHECK(authz::to_structure(rule_of("Role:Operator")).criteria_type == ua::identity_criteria_type::role);
  CHECK(authz::to_structure(rule_of("GroupId:ops")).criteria_type == ua::identity_criteria_type::group_id);
  CHECK_FALSE(authz::parse_identity_rule("Role:", &why));
  CHECK(why.find("role name") != std::string::npos);
  CHECK_FALSE(authz::parse_identity_rule("GroupId: ", &why));
  CHECK_FALSE(authz::parse_identity_rule("X509Subject:", &why));
  CHECK_FALSE(authz::parse_identity_rule("X509Subject:alice", &why));
  CHECK_FALSE(authz::parse_identity_rule("Application:", &why));
  CHECK_FALSE(authz::parse_identity_rule("TrustedApplication:x", &why));

  ua::identity_mapping_rule_type s;
  s.criteria_type = ua::identity_criteria_type::group_id;
  s.criteria.assign("ops");
  REQUIRE(authz::from_structure(s));
  CHECK(authz::to_string(*authz::from_structure(s)) == "GroupId:ops");
  s.criteria.set_null();  // a group rule without its group
  CHECK(authz::from_structure(s).error() == status::bad_invalid_argument);
  s.criteria.assign("ops");
  s.criteria_type = ua::identity_criteria_type::anonymous;  // criteria where none belongs
  CHECK(authz::from_structure(s).error() == status::bad_invalid_argument);
  s.criteria_type = ua::identity_criteria_type::user_name;
  s.criteria.set_null();
  CHECK(authz::from_structure(s).error() == status::bad_invalid_argument);
  s.criteria_type = static_cast<ua::identity_criteria_type>(42);
  CHECK(authz::from_structure(s).error() == status::bad_invalid_argument);
}

TEST_CASE("role_set: the Applications and Endpoints lists include or exclude", "[roles]") {
  authz::role_registry reg;
  constexpr auto op = authz::well_known::operator_;
  reg.add_identity(op, rule_of("AuthenticatedUser"));
  facts_of s;
  CHECK(reg.roles_of(s.f).has(op));  // the defaults: empty exclude lists limit nothing

  reg.set_applications(op, {"urn:plant:hmi"}, false);  // only the HMI
  CHECK(reg.roles_of(s.f).has(op));
  s.f.application_uri = "urn:plant:laptop";
  CHECK_FALSE(reg.roles_of(s.f).has(op));
  s.f.application_uri = {};  // no certificate: not on an include list
  CHECK_FALSE(reg.roles_of(s.f).has(op));
  reg.set_applications(op, {"urn:plant:laptop"}, true);  // all but the laptop
  CHECK(reg.roles_of(s.f).has(op));
  s.f.application_uri = "urn:plant:laptop";
  CHECK_FALSE(reg.roles_of(s.f).has(op));
  reg.set_applications(op, {}, true);

  ua::endpoint_type e;
  e.endpoint_url.assign(admin_endpoint);
  e.security_mode = ua::message_security_mode::sign_and_encrypt;
  reg.set_endpoints(op, {e}, false);  // only the admin endpoint, encrypted
  CHECK(reg.roles_of(s.f).has(op));
  s.f.security_mode = ua::message_security_mode::sign;
  CHECK_FALSE(reg.roles_of(s.f).has(op));
  e.security_mode = ua::message_security_mode::invalid;  // any mode
  reg.set_endpoints(op, {e}, false);
  CHECK(reg.roles_of(s.f).has(op));
  e.security_policy_uri.assign("http://opcfoundation.org/UA/SecurityPolicy#Aes256_Sha256_RsaPss");
  reg.set_endpoints(op, {e}, false);
  CHECK_FALSE(reg.roles_of(s.f).has(op));
  s.f.endpoint_url = "opc.tcp://plant:4840";
  reg.set_endpoints(op, {e}, true);  // excluded is another endpoint
  CHECK(reg.roles_of(s.f).has(op));
  // AuthenticatedUser itself keeps its default mapping, unlimited.
  CHECK(reg.roles_of(s.f).has(authz::well_known::authenticated_user));
}

TEST_CASE("role_set: the registry's changes answer as Part 18 §4.4.5-4.4.10 says", "[roles]") {
  authz::role_registry reg;
  constexpr auto eng = authz::well_known::engineer;
  CHECK(reg.add_identity_rule(eng, rule_of("UserName:bob")) == status::good);
  CHECK(reg.add_identity_rule(eng, rule_of("UserName:bob")) == status::bad_already_exists);
  CHECK(reg.remove_identity_rule(eng, rule_of("UserName:eve")) == status::bad_not_found);
  CHECK(reg.remove_identity_rule(eng, rule_of("UserName:bob")) == status::good);
  // An administrator's role takes no Anonymous or AuthenticatedUser rule (Part 18 §4.4.5).
  CHECK(reg.add_identity_rule(authz::well_known::security_admin, rule_of("Anonymous")) == status::bad_request_not_allowed);
  CHECK(reg.add_identity_rule(authz::well_known::configure_admin, rule_of("AuthenticatedUser")) ==
        status::bad_request_not_allowed);
  CHECK(reg.add_application(eng, "") == status::bad_invalid_argument);
  CHECK(reg.add_application(eng, "urn:a") == status::good);
  CHECK(reg.add_application(eng, "urn:a") == status::bad_already_exists);
  CHECK(reg.remove_application(eng, "urn:b") == status::bad_not_found);
  CHECK(reg.remove_application(eng, "urn:a") == status::good);
  ua::endpoint_type e;
  CHECK(reg.add_endpoint(eng, e) == status::bad_invalid_argument);  // no URL
  e.endpoint_url.assign(admin_endpoint);
  CHECK(reg.add_endpoint(eng, e) == status::good);
  CHECK(reg.add_endpoint(eng, e) == status::bad_already_exists);
  CHECK(reg.remove_endpoint(eng, e) == status::good);
  CHECK(reg.remove_endpoint(eng, e) == status::bad_not_found);
}

// The value of a property of a role Object.
const ua::variant& role_property(const actors::server_core& core, const ua::node_id& role, std::string_view name) {
  const auto& as = core.space();
  const ua::node_index object = as.find(role);
  REQUIRE(object != ua::no_node);
  for (const auto& r : as.forward_references(object))
    if (as.at(r.target).browse_name == name && !as.at(r.target).removed) return as.variable(r.target)->value.value;
  FAIL("no property " << name);
  static const ua::variant none;
  return none;
}

std::vector<authz::identity_rule> identities_shown(const actors::server_core& core, const ua::node_id& role) {
  std::vector<authz::identity_rule> out;
  const auto* list = role_property(core, role, "Identities").get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(list);
  for (const auto& eo : *list) {
    const auto* s = eo.get_if<ua::identity_mapping_rule_type>();
    REQUIRE(s);
    out.push_back(*authz::from_structure(*s));
  }
  return out;
}

TEST_CASE("role_set: the RoleSet shows every role of the registry, plant roles included, and follows a reload", "[roles]") {
  auto core = test::make_core();
  const ua::node_id anonymous(0, ids::well_known_role_anonymous), operator_(0, ids::well_known_role_operator);
  // The default: Anonymous -> [Anonymous, AuthenticatedUser] (Part 18 §4.3), no limits; Anonymous
  // got the members its NodeSet lacks.
  CHECK(identities_shown(core, anonymous) == std::vector{rule_of("Anonymous"), rule_of("AuthenticatedUser")});
  CHECK(role_property(core, anonymous, "ApplicationsExclude") == ua::variant(true));
  CHECK(core.space().find(ua::node_id(0, ids::well_known_role_anonymous_add_identity)) != ua::no_node);
  CHECK(core.space().find(ua::node_id(0, ids::well_known_role_anonymous_add_identity_input_arguments)) != ua::no_node);
  CHECK(identities_shown(core, operator_).empty());

  auto reg = std::make_shared<authz::role_registry>();
  const auto shift = reg->add("ShiftLead", 1);
  REQUIRE(shift);
  reg->add_identity(*shift, rule_of("X509Subject:CN=lead, O=plant"));
  reg->add_identity(authz::well_known::operator_, rule_of("UserName:op"));
  reg->set_applications(authz::well_known::operator_, {"urn:plant:hmi"}, false);
  REQUIRE(core.set_access(reg, {}).empty());
  const ua::node_id shift_id = ua::node_id::string(1, "Role.ShiftLead");
  CHECK(identities_shown(core, shift_id) == std::vector{rule_of("X509Subject:CN=lead, O=plant")});
  CHECK(identities_shown(core, operator_) == std::vector{rule_of("UserName:op")});
  CHECK(role_property(core, operator_, "Applications") == ua::variant(ua::ua_array<ua::ua_string>{ua::ua_string("urn:plant:hmi")}));
  CHECK(role_property(core, operator_, "ApplicationsExclude") == ua::variant(false));
  // The plant role's Object: under RoleSet, of RoleType, with SecurityAdmin's members.
  const auto& as = core.space();
  const auto shift_node = as.find(shift_id);
  REQUIRE(shift_node != ua::no_node);
  const auto set_node = as.find(ua::node_id(0, ids::server_server_capabilities_role_set));
  bool under_set = false;
  for (const auto& r : as.inverse_references(shift_node)) under_set = under_set || r.target == set_node;
  CHECK(under_set);
  CHECK(as.find(ua::node_id::string(1, "Role.ShiftLead.AddIdentity")) != ua::no_node);
  CHECK(as.find(ua::node_id::string(1, "Role.ShiftLead.AddIdentity.InputArguments")) != ua::no_node);
  CHECK(core.role_set().handles(shift_node));

  // A reload without ShiftLead takes its Object away; Operator shows the new registry's rules.
  REQUIRE(core.set_access(nullptr, {}).empty());
  CHECK(as.find(shift_id) == ua::no_node);
  CHECK(as.find(ua::node_id::string(1, "Role.ShiftLead.AddIdentity")) == ua::no_node);
  CHECK(identities_shown(core, operator_).empty());
}

// The role Object's method `name`, called directly on the role_set_object.
ua::status_code call_role(actors::server_core& core, const authz::role_caller& who, const ua::node_id& role,
                          std::string_view name, ua::variant arg, std::shared_ptr<authz::role_registry>& changed) {
  const auto& as = core.space();
  const ua::node_index object = as.find(role);
  ua::node_index method = ua::no_node;
  for (const auto& r : as.forward_references(object))
    if (as.at(r.target).browse_name == name) method = r.target;
  REQUIRE(method != ua::no_node);
  const std::vector<ua::variant> in{std::move(arg)};
  return core.role_set().call(who, object, method, in, as, *core.roles(), changed);
}

ua::variant rule_arg(const char* text) { return ua::variant(ua::extension_object(authz::to_structure(rule_of(text)))); }

TEST_CASE("role_set: the methods change a copy of the registry, only for SecurityAdmin over SignAndEncrypt", "[roles]") {
  auto core = test::make_core();
  const ua::node_id engineer(0, ids::well_known_role_engineer);
  authz::role_caller admin;
  admin.roles.add(authz::well_known::security_admin);
  admin.mode = ua::message_security_mode::sign_and_encrypt;
  std::shared_ptr<authz::role_registry> changed;

  CHECK(call_role(core, admin, engineer, "AddIdentity", rule_arg("UserName:bob"), changed) == status::good);
  REQUIRE(changed);
  CHECK(changed->at(authz::well_known::engineer).identities == std::vector{rule_of("UserName:bob")});
  CHECK(core.roles()->at(authz::well_known::engineer).identities.empty());  // not published by call()

  // Refusals change nothing.
  const auto refused = [&](const authz::role_caller& who, std::string_view method, ua::variant arg) {
    std::shared_ptr<authz::role_registry> none;
    const auto sc = call_role(core, who, engineer, method, std::move(arg), none);
    CHECK_FALSE(none);
    return sc;
  };
  authz::role_caller operator_over_encryption;
  operator_over_encryption.roles.add(authz::well_known::operator_);
  operator_over_encryption.mode = ua::message_security_mode::sign_and_encrypt;
  CHECK(refused(operator_over_encryption, "AddIdentity", rule_arg("UserName:bob")) == status::bad_user_access_denied);
  authz::role_caller admin_signed = admin;
  admin_signed.mode = ua::message_security_mode::sign;
  CHECK(refused(admin_signed, "AddIdentity", rule_arg("UserName:bob")) == status::bad_security_mode_insufficient);
  admin_signed.mode = ua::message_security_mode::none;
  CHECK(refused(admin_signed, "AddApplication", ua::variant(ua::ua_string("urn:x"))) ==
        status::bad_security_mode_insufficient);
  CHECK(refused(admin, "RemoveIdentity", rule_arg("UserName:bob")) == status::bad_not_found);
  CHECK(refused(admin, "AddIdentity", ua::variant(ua::ua_string("UserName:bob"))) == status::bad_type_mismatch);
  ua::identity_mapping_rule_type group;
  group.criteria_type = ua::identity_criteria_type::group_id;
  CHECK(refused(admin, "AddIdentity", ua::variant(ua::extension_object(group))) == status::bad_invalid_argument);
  CHECK(refused(admin, "RemoveApplication", ua::variant(ua::ua_string("urn:x"))) == status::bad_not_found);
  ua::endpoint_type e;
  e.endpoint_url.assign(admin_endpoint);
  CHECK(refused(admin, "RemoveEndpoint", ua::variant(ua::extension_object(e))) == status::bad_not_found);

  std::shared_ptr<authz::role_registry> with_endpoint;
  CHECK(call_role(core, admin, engineer, "AddEndpoint", ua::variant(ua::extension_object(e)), with_endpoint) == status::good);
  REQUIRE(with_endpoint);
  CHECK(with_endpoint->at(authz::well_known::engineer).endpoints == std::vector{e});
  std::shared_ptr<authz::role_registry> with_app;
  CHECK(call_role(core, admin, engineer, "AddApplication", ua::variant(ua::ua_string("urn:plant:hmi")), with_app) == status::good);
  REQUIRE(with_app);
  CHECK(with_app->at(authz::well_known::engineer).applications == std::vector<std::string>{"urn:plant:hmi"});

  // Part 18 §4.3 (1.05.06): Anonymous and AuthenticatedUser do not change, whatever the method.
  for (const std::uint32_t role : {ids::well_known_role_anonymous, ids::well_known_role_authenticated_user}) {
    std::shared_ptr<authz::role_registry> none;
    CHECK(call_role(core, admin, ua::node_id(0, role), "AddIdentity", rule_arg("UserName:bob"), none) ==
          status::bad_request_not_allowed);
    CHECK(call_role(core, admin, ua::node_id(0, role), "RemoveIdentity", rule_arg("Anonymous"), none) ==
          status::bad_request_not_allowed);
    CHECK(call_role(core, admin, ua::node_id(0, role), "AddApplication", ua::variant(ua::ua_string("urn:x")), none) ==
          status::bad_request_not_allowed);
    CHECK(call_role(core, admin, ua::node_id(0, role), "AddEndpoint", ua::variant(ua::extension_object(e)), none) ==
          status::bad_request_not_allowed);
    CHECK_FALSE(none);
  }
}

// A session of server_core over an unsecured test channel (core_fixture's shape).
struct role_client {
  explicit role_client(actors::server_core* c) : core(c) {}
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
    core->handle(9, req.request_header, msg, at(0), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  }
  void open_anonymous() {
    ua::create_session_request create;
    create.requested_session_timeout = 60'000;
    const auto* created = call(create).get_if<ua::create_session_response>();
    REQUIRE(created);
    token = created->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    REQUIRE(call(activate).get_if<ua::activate_session_response>());
  }
  ua::status_code add_identity(const ua::node_id& role, std::uint32_t method, const char* rule) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = role;
    m.method_id = ua::node_id(0, method);
    m.input_arguments = {rule_arg(rule)};
    req.methods_to_call.push_back(m);
    const auto* resp = call(req).get_if<ua::call_response>();
    REQUIRE(resp);
    return resp->results.at(0).status_code;
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
};

TEST_CASE("role_set: through Call, a non-admin is denied and an admin over None gets Bad_SecurityModeInsufficient", "[roles]") {
  auto core = test::make_core();
  const ua::node_id engineer(0, ids::well_known_role_engineer);
  role_client c{&core};
  c.open_anonymous();
  CHECK(c.add_identity(engineer, ids::well_known_role_engineer_add_identity, "UserName:bob") == status::bad_user_access_denied);
  // Namespace 0's defaults: an anonymous session may browse the RoleSet, not read a role's rules.
  CHECK(c.read(ua::node_id(0, ids::server_server_capabilities_role_set), 3).status == status::good);  // BrowseName
  CHECK(c.read(ua::node_id(0, ids::well_known_role_engineer_identities)).status == status::bad_user_access_denied);
  // The rest of namespace 0 stays as it was (no rule).
  CHECK(c.read(ua::node_id(0, 2259)).status == status::good);

  // Anonymous sessions made SecurityAdmin (a plant file may; the method would refuse it): over an
  // unsecured channel the method says the channel is the problem, and nothing changes.
  auto reg = std::make_shared<authz::role_registry>();
  reg->add_identity(authz::well_known::security_admin, rule_of("Anonymous"));
  REQUIRE(core.set_access(reg, {}).empty());
  role_client admin{&core};
  admin.open_anonymous();
  CHECK(admin.add_identity(engineer, ids::well_known_role_engineer_add_identity, "UserName:bob") ==
        status::bad_security_mode_insufficient);
  CHECK(core.roles()->at(authz::well_known::engineer).identities.empty());
  // And the properties need an encrypted channel too (SigningRequired, EncryptionRequired): the role
  // may read them, the channel is what refuses (Part 4 §7.38, docs/decisions/0068).
  CHECK(admin.read(ua::node_id(0, ids::well_known_role_engineer_identities)).status ==
        status::bad_security_mode_insufficient);
}

// RoleSet's own method `name` (AddRole, RemoveRole), called directly on the role_set_object.
ua::status_code call_role_set(actors::server_core& core, const authz::role_caller& who, std::string_view name,
                              std::vector<ua::variant> in, std::shared_ptr<authz::role_registry>& changed,
                              ua::ua_array<ua::variant>* out = nullptr) {
  const auto& as = core.space();
  const ua::node_index object = as.find(ua::node_id(0, ids::server_server_capabilities_role_set));
  REQUIRE(object != ua::no_node);
  REQUIRE(core.role_set().handles(object));
  ua::node_index method = ua::no_node;
  for (const auto& r : as.forward_references(object))
    if (as.at(r.target).browse_name == name) method = r.target;
  REQUIRE(method != ua::no_node);
  return core.role_set().call(who, object, method, in, as, *core.roles(), changed, out);
}

TEST_CASE("role_set: AddRole makes a role with its Object under RoleSet, RemoveRole takes a plant's away",
          "[roles]") {
  auto core = test::make_core();
  // A plant rule for Operator and the demo's scalars, to see a removed role's permissions go.
  authz::permission_rule demo;
  demo.node = "ns=1;s=Demo";
  demo.where = "test";
  demo.roles = {{authz::well_known::operator_, authz::permission::browse}};
  REQUIRE(core.set_access(nullptr, {demo}).empty());
  authz::role_caller admin;
  admin.roles.add(authz::well_known::security_admin);
  admin.mode = ua::message_security_mode::sign_and_encrypt;
  const auto str = [](const char* v) { return ua::variant(ua::ua_string(v)); };

  std::shared_ptr<authz::role_registry> changed;
  ua::ua_array<ua::variant> out;
  REQUIRE(call_role_set(core, admin, "AddRole", {str("NightShift"), ua::variant()}, changed, &out) == status::good);
  REQUIRE(changed);
  REQUIRE(out.size() == 1);
  const ua::node_id night = ua::node_id::string(1, "Role.NightShift");
  CHECK(out[0] == ua::variant(night));
  const auto id = changed->find("NightShift");
  REQUIRE(id);
  CHECK(changed->at(*id).identities.empty());
  CHECK(changed->at(*id).applications_exclude);  // Part 18 §4.2.2: the exclude lists, empty
  CHECK(changed->at(*id).endpoints_exclude);
  // Published as a method's change is: the Object and its members under RoleSet.
  REQUIRE(core.set_access(changed, core.plant_rules()).empty());
  const auto& as = core.space();
  const ua::node_index object = as.find(night);
  REQUIRE(object != ua::no_node);
  CHECK(as.at(object).browse_name == "NightShift");
  CHECK(as.find(ua::node_id::string(1, "Role.NightShift.AddIdentity")) != ua::no_node);
  CHECK(as.find(ua::node_id::string(1, "Role.NightShift.Identities")) != ua::no_node);
  // Its rules come through its own AddIdentity, and reach sessions.
  std::shared_ptr<authz::role_registry> with_rule;
  CHECK(call_role(core, admin, night, "AddIdentity", rule_arg("UserName:nina"), with_rule) == status::good);
  REQUIRE(with_rule);
  const session_identity nina{session_identity::kind::user_name, "nina", true};
  CHECK(with_rule->roles_of(nina).has(*id));
  // A plant rule that names it: NightShift may browse and read Demo.
  demo.roles = {{*id, authz::permission::browse | authz::permission::read}};
  REQUIRE(core.set_access(with_rule, {demo}).empty());
  const ua::node_index demo_node = core.space().find(ua::node_id::string(1, "Demo"));
  const authz::role_set night_roles(std::uint64_t{1} << *id);
  CHECK(core.permissions().permissions(demo_node, night_roles, authz::restrictions_met_by(3)) ==
        (authz::permission::browse | authz::permission::read));

  // A namespace of the server by its URI; one it does not have, a bad name, a name taken: refused.
  std::shared_ptr<authz::role_registry> none;
  CHECK(call_role_set(core, admin, "AddRole", {str("Day"), str("urn:nowhere")}, none) == status::bad_invalid_argument);
  CHECK(call_role_set(core, admin, "AddRole", {str("Night Shift"), ua::variant()}, none) == status::bad_invalid_argument);
  CHECK(call_role_set(core, admin, "AddRole", {str(""), ua::variant()}, none) == status::bad_invalid_argument);
  CHECK(call_role_set(core, admin, "AddRole", {str(std::string(65, 'x').c_str()), ua::variant()}, none) ==
        status::bad_invalid_argument);
  CHECK(call_role_set(core, admin, "AddRole", {str("NightShift"), ua::variant()}, none) == status::bad_invalid_argument);
  CHECK(call_role_set(core, admin, "AddRole", {str("Operator"), str("http://opcfoundation.org/UA/")}, none) ==
        status::bad_invalid_argument);  // a well-known role is there already
  CHECK(call_role_set(core, admin, "AddRole", {ua::variant(std::int32_t{1}), ua::variant()}, none) ==
        status::bad_type_mismatch);
  CHECK(call_role_set(core, admin, "AddRole", {str("X")}, none) == status::bad_arguments_missing);
  CHECK_FALSE(none);

  // RemoveRole: a well-known role may not go (Part 18 §4.2.3 Bad_RequestNotAllowed), an unknown one
  // is Bad_NodeIdUnknown, only SecurityAdmin over SignAndEncrypt.
  CHECK(call_role_set(core, admin, "RemoveRole", {ua::variant(ua::node_id(0, ids::well_known_role_operator))}, none) ==
        status::bad_request_not_allowed);
  CHECK(call_role_set(core, admin, "RemoveRole", {ua::variant(ua::node_id::string(1, "Role.Nope"))}, none) ==
        status::bad_node_id_unknown);
  authz::role_caller signed_admin = admin;
  signed_admin.mode = ua::message_security_mode::sign;
  CHECK(call_role_set(core, signed_admin, "RemoveRole", {ua::variant(night)}, none) == status::bad_security_mode_insufficient);
  authz::role_caller operator_;
  operator_.roles.add(authz::well_known::operator_);
  operator_.mode = ua::message_security_mode::sign_and_encrypt;
  CHECK(call_role_set(core, operator_, "AddRole", {str("Y"), ua::variant()}, none) == status::bad_user_access_denied);
  CHECK_FALSE(none);

  std::shared_ptr<authz::role_registry> removed;
  REQUIRE(call_role_set(core, admin, "RemoveRole", {ua::variant(night)}, removed) == status::good);
  REQUIRE(removed);
  CHECK_FALSE(removed->find("NightShift"));
  CHECK_FALSE(removed->roles_of(nina).has(*id));  // new sessions no longer get it
  REQUIRE(core.set_access(removed, core.plant_rules()).empty());
  CHECK(as.find(night) == ua::no_node);
  CHECK(as.find(ua::node_id::string(1, "Role.NightShift.AddIdentity")) == ua::no_node);
  // Part 18 §4.2.3: its permissions went with it (a session that held it keeps nothing by it).
  CHECK(core.permissions().permissions(demo_node, night_roles, authz::restrictions_met_by(3)) == 0);
  std::shared_ptr<authz::role_registry> again;
  CHECK(call_role_set(core, admin, "RemoveRole", {ua::variant(night)}, again) == status::bad_node_id_unknown);
  // The same name again is a new role, with a number of its own (the old one's stays unused).
  REQUIRE(call_role_set(core, admin, "AddRole", {str("NightShift"), ua::variant()}, again) == status::good);
  REQUIRE(again);
  CHECK(*again->find("NightShift") != *id);
  CHECK(again->roles().size() == removed->roles().size() + 1);
}

}  // namespace role_set_test
