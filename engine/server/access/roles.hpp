// The roles a server knows (Part 3 §4.9, Part 18 §4) and the rules that grant them to a session's
// identity (Part 18 §4.4.2 IdentityMappingRuleType): which roles an ActivateSession gives. Built at
// start (and at a reload) from the plan, read-only while sessions use it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/access/permissions.hpp"
#include "engine/server/subscriptions/session_identity.hpp"
#include "uactor/ua/builtin_types.hpp"
#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_code.hpp"
#include "uactor/ua/types.hpp"

namespace uactor::actors::authz {

// Part 3 §4.9.2 well-known roles, by the bit the registry gives them (always these).
namespace well_known {
inline constexpr role_id anonymous = 0;
inline constexpr role_id authenticated_user = 1;
inline constexpr role_id observer = 2;
inline constexpr role_id operator_ = 3;
inline constexpr role_id engineer = 4;
inline constexpr role_id supervisor = 5;
inline constexpr role_id configure_admin = 6;
inline constexpr role_id security_admin = 7;
inline constexpr std::size_t count = 8;
}  // namespace well_known

// What the identity mapping rules and a role's Applications and Endpoints lists look at (Part 18
// §4.4): the session's identity and the channel it activated on. Views: valid for the call.
struct session_facts {
  const session_identity* identity = nullptr;  // required
  std::string_view user_subject;         // the X509 user certificate's subject ("CN=alice, O=plant"), or empty
  std::string_view user_issuer;          // its issuer's name, or empty
  std::string_view application_uri;      // the client's application instance certificate's URI (empty: none)
  bool trusted_application = false;      // a trusted client certificate on a Sign or SignAndEncrypt channel
  std::string_view endpoint_url;         // the endpoint the session came through
  ua::message_security_mode security_mode = ua::message_security_mode::none;
  std::string_view security_policy_uri;
  std::string_view transport_profile_uri;
  // What the application's role callback said of the user (docs/decisions/0063): the role claims
  // (Role rules; a claim that names a role of the server grants it) and the groups (GroupId
  // rules). Empty without a callback: the server takes no access token (IssuedIdentityToken),
  // where Part 18 §4.4.4 has them come from.
  std::span<const std::string> role_claims;
  std::span<const std::string> group_ids;
};

// One identity mapping rule (Part 18 §4.4.3 IdentityMappingRuleType, §4.4.4 IdentityCriteriaType).
// The text forms, as the plant file writes them: "Anonymous", "AuthenticatedUser",
// "TrustedApplication", "UserName:alice", "Thumbprint:3A5F...", "X509Subject:CN=alice, O=plant",
// "Application:urn:plant:hmi", "Role:Operator", "GroupId:cn=operators,ou=plant". Role and GroupId
// name claims of an access token in Part 18 §4.4.4; this server takes no access token, so they
// look at what the application's role callback answered (session_facts::role_claims, group_ids),
// and a Role rule also at the roles the session holds already (a role granted with another).
struct identity_rule {
  enum class kind : std::uint8_t {
    anonymous,
    authenticated_user,
    user_name,
    thumbprint,
    x509_subject,
    application,
    trusted_application,
    role,
    group_id,
  };
  kind criteria_type = kind::anonymous;
  // The user name, the certificate's SHA-1 thumbprint (upper-case hex), the subject name, the
  // ApplicationUri, the role or the group; empty for the three kinds without criteria.
  std::string criteria;

  bool matches(const session_facts& f) const noexcept;
  bool matches(const session_identity& id) const noexcept {
    session_facts f;
    f.identity = &id;
    return matches(f);
  }
  friend bool operator==(const identity_rule&, const identity_rule&) = default;
};
// nullopt with `why` for any other text (an unknown criteria type, an empty name, a thumbprint
// that is not 40 hex digits).
std::optional<identity_rule> parse_identity_rule(std::string_view text, std::string* why = nullptr);
std::string to_string(const identity_rule& r);
// Both ways with Part 18's structure. From it: Bad_InvalidArgument (criteria missing or out of
// place, an unknown CriteriaType).
ua::identity_mapping_rule_type to_structure(const identity_rule& r);
ua::expected<identity_rule> from_structure(const ua::identity_mapping_rule_type& s);
// Two X.500 names the same: the same attributes with the same values, whatever their order and
// the spaces around ',' and '=' (OpenSSL writes "CN=a, O=b", people "O=b,CN=a"). Keys compare
// case-insensitively, values exactly.
bool same_distinguished_name(std::string_view a, std::string_view b);

struct role {
  std::string name;
  ua::node_id id;  // ns=0 for the well-known roles (NodeIds.csv WellKnownRole_*), the server's namespace for a plant's
  std::vector<identity_rule> identities;
  // Part 18 §4.4.1: the client applications (ApplicationUris of their certificates) and the
  // endpoints the role is limited to (an include list) or kept from (`*_exclude`). The defaults,
  // an empty exclude list, limit nothing (§4.2.2 AddRole's initial values).
  std::vector<std::string> applications;
  bool applications_exclude = true;
  std::vector<ua::endpoint_type> endpoints;
  bool endpoints_exclude = true;
  // Taken out by RoleSet's RemoveRole (Part 18 §4.2.3): nobody gets it and nothing shows it, but
  // its number stays taken, so that the role ids of permission rules and sessions keep naming
  // the roles they named.
  bool removed = false;

  // Whether the session's application and endpoint pass the two lists.
  bool admits(const session_facts& f) const noexcept;
};

// Part 18 §4.4.1: an EndpointType entry matches the endpoint the session came through; an empty
// SecurityPolicyUri or TransportProfileUri and the mode Invalid (0) match any.
bool endpoint_matches(const ua::endpoint_type& e, const session_facts& f) noexcept;

class role_registry {
public:
  // The eight well-known roles; Anonymous granted to every session (Part 18 §4.3: the rules
  // Anonymous and AuthenticatedUser) and AuthenticatedUser to every session with a checked
  // UserName or certificate (its rule AuthenticatedUser).
  role_registry();

  // A plant's own role, its NodeId ns=<ns>;s=Role.<name> (or the well-known role of that name,
  // unchanged). nullopt when the 64 bits are taken.
  std::optional<role_id> add(std::string_view name, std::uint16_t ns);
  // Part 18 §4.2.2 AddRole, on a copy: the new role (NodeId ns=<ns>;s=Role.<name>, no identity
  // rules, exclude lists). Bad_InvalidArgument (an empty name, or one a role has already),
  // Bad_NotSupported (the 64 role numbers are taken; a removed role's is not given again).
  ua::expected<role_id> add_role(std::string_view name, std::uint16_t ns);
  // Part 18 §4.2.3 RemoveRole, on a copy: Bad_RequestNotAllowed for a well-known role (Part 3
  // §4.9.2: the server needs them), Bad_NodeIdUnknown for a role it does not have.
  ua::status_code remove_role(role_id r);
  // Finds roles that are there (not removed).
  std::optional<role_id> find(std::string_view name) const noexcept;
  std::optional<role_id> find(const ua::node_id& id) const noexcept;
  // Adds a rule to a role (a rule already there is not added twice).
  void add_identity(role_id r, identity_rule rule);
  // Part 18 §4.4.5-4.4.10, on a copy the server then publishes: Good, Bad_AlreadyExists,
  // Bad_NotFound, Bad_RequestNotAllowed (an Anonymous rule for an administrator's role).
  ua::status_code add_identity_rule(role_id r, identity_rule rule);
  ua::status_code remove_identity_rule(role_id r, const identity_rule& rule);
  ua::status_code add_application(role_id r, std::string uri);
  ua::status_code remove_application(role_id r, std::string_view uri);
  ua::status_code add_endpoint(role_id r, ua::endpoint_type e);
  ua::status_code remove_endpoint(role_id r, const ua::endpoint_type& e);
  void set_applications(role_id r, std::vector<std::string> uris, bool exclude);
  void set_endpoints(role_id r, std::vector<ua::endpoint_type> endpoints, bool exclude);
  // Drops the default mappings of Anonymous and AuthenticatedUser (a plant that maps them itself).
  void clear_identities(role_id r) { roles_.at(r).identities.clear(); }

  // Part 18 §4.4: every role with a rule that matches the session, or that a role claim names,
  // whose Applications and Endpoints lists admit it; then, to a fixpoint, every role a Role rule
  // grants for a role held (Supervisor for every Operator, say). Allocates nothing.
  role_set roles_of(const session_facts& f) const noexcept;
  role_set roles_of(const session_identity& id) const noexcept {
    session_facts f;
    f.identity = &id;
    return roles_of(f);
  }
  const std::vector<role>& roles() const noexcept { return roles_; }
  const role& at(role_id r) const { return roles_.at(r); }

private:
  std::vector<role> roles_;  // index = role_id
};

// The names of a set, "Anonymous, Operator", for the log.
std::string describe(const role_registry& reg, role_set roles);

}  // namespace uactor::actors::authz
