// The roles a server knows (Part 3 §4.9, Part 18 §4) and the rules that grant them to a session's
// identity (Part 18 §4.4.2 IdentityMappingRuleType): which roles an ActivateSession gives. Built at
// start (and at a reload) from the plan, read-only while sessions use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/access/permissions.hpp"
#include "engine/server/subscriptions/session_identity.hpp"
#include "uactor/ua/builtin_types.hpp"

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

// One identity mapping rule (Part 18 §4.4.2, IdentityCriteriaType). The text forms, as the plant
// file writes them: "Anonymous", "AuthenticatedUser", "UserName:alice", "Thumbprint:3A5F...".
struct identity_rule {
  enum class kind : std::uint8_t { anonymous, authenticated_user, user_name, thumbprint };
  kind criteria_type = kind::anonymous;
  std::string criteria;  // the user name, or the certificate's SHA-1 thumbprint (upper-case hex)

  bool matches(const session_identity& id) const noexcept;
  friend bool operator==(const identity_rule&, const identity_rule&) = default;
};
// nullopt with `why` for any other text (an unknown criteria type, an empty name, a thumbprint
// that is not 40 hex digits).
std::optional<identity_rule> parse_identity_rule(std::string_view text, std::string* why = nullptr);
std::string to_string(const identity_rule& r);

struct role {
  std::string name;
  ua::node_id id;  // ns=0 for the well-known roles (NodeIds.csv WellKnownRole_*), the server's namespace for a plant's
  std::vector<identity_rule> identities;
};

class role_registry {
public:
  // The eight well-known roles; Anonymous granted to anonymous sessions and AuthenticatedUser to
  // every session with a checked UserName or certificate (Part 3 §4.9.2: their usual mappings).
  role_registry();

  // A plant's own role, its NodeId ns=<ns>;s=Role.<name> (or the well-known role of that name,
  // unchanged). nullopt when the 64 bits are taken.
  std::optional<role_id> add(std::string_view name, std::uint16_t ns);
  std::optional<role_id> find(std::string_view name) const noexcept;
  std::optional<role_id> find(const ua::node_id& id) const noexcept;
  // Adds a rule to a role (a rule already there is not added twice).
  void add_identity(role_id r, identity_rule rule);
  // Drops the default mappings of Anonymous and AuthenticatedUser (a plant that maps them itself).
  void clear_identities(role_id r) { roles_.at(r).identities.clear(); }

  // Part 18 §4.4: every role with a rule that matches the identity. Allocates nothing.
  role_set roles_of(const session_identity& id) const noexcept;
  const std::vector<role>& roles() const noexcept { return roles_; }
  const role& at(role_id r) const { return roles_.at(r); }

private:
  std::vector<role> roles_;  // index = role_id
};

// The names of a set, "Anonymous, Operator", for the log.
std::string describe(const role_registry& reg, role_set roles);

}  // namespace uactor::actors::authz
