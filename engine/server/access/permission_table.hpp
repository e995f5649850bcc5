// Which roles may do what on each node (Part 3 §5.2.9 RolePermissions, §5.2.11 AccessRestrictions):
// the plant's rules, each for a subtree or a namespace, worked out once per node so that a service
// asks "may this session read node n" with an array index and a few ORs, allocating nothing
// (docs/decisions/0052). The server owns one; sessions hold only their role_set.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/server/access/permissions.hpp"
#include "protocol/address_space.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors::authz {

// One rule of the plant file ([[permissions]]): the node it starts at (a NodeId, or a browse path
// from the Root folder "/Objects/2:Plant/2:Line1"), or a namespace; each role's permissions.
struct permission_rule {
  std::string node;              // NodeId text or browse path; empty: the namespace default
  std::uint16_t namespace_index = 0;  // the namespace default's
  std::vector<std::pair<role_id, std::uint32_t>> roles;
  std::uint16_t restrictions = 0;  // AccessRestrictions (Part 3 §8.56)
  std::string where;             // "permissions[2]": what messages name
  // False: the node's own RolePermissions only, nothing below it (namespace 0's published
  // defaults, ns0_defaults.hpp: each row is one node's attribute, Part 3 §5.2.9).
  bool subtree = true;
};

class permission_table {
public:
  // The rules in file order, and the NodeId of each role (role_registry order), which
  // RolePermissions names. Nothing is resolved until rebuild().
  void set_rules(std::vector<permission_rule> rules, std::vector<ua::node_id> role_ids);
  const ua::node_id& role_node(role_id r) const noexcept { return role_ids_[r]; }
  const std::vector<permission_rule>& rules() const noexcept { return rules_; }
  bool empty() const noexcept { return rules_.empty(); }

  // Works out each node's rule: a namespace default first, then each subtree rule down the
  // hierarchical references (not HasEventSource/HasNotifier) of its node, the deepest rule winning
  // (the nearest one above a node; for two rules at the same depth, the later one); a rule that is
  // not a subtree's decides its own node only, in the same order. O(nodes + references). Returns the rules whose node is not in the store ("permissions[2]: ns=2;s=X names
  // no node"); those apply to nothing.
  std::vector<std::string> rebuild(const ua::address_space& as);

  // The rule that decides node n, or null (no rule: everything is allowed, as without roles).
  struct entry {
    std::array<std::uint32_t, max_roles> by_role{};  // each role's bits (0: not listed)
    role_set listed;                                // the roles the rule names
    std::uint16_t restrictions = 0;
    const permission_rule* rule = nullptr;
  };
  const entry* entry_of(ua::node_index n) const noexcept {
    if (n >= rule_of_.size() || rule_of_[n] == 0) return nullptr;
    return &entries_[rule_of_[n] - 1];
  }

  // What `roles` may do on n, on a channel that meets `channel_restrictions` (the
  // AccessRestrictions bits it satisfies): every bit when no rule covers n.
  std::uint32_t permissions(ua::node_index n, role_set roles, std::uint16_t channel_restrictions) const noexcept {
    const entry* e = entry_of(n);
    if (!e) return permission::all;
    std::uint32_t p = 0;
    roles.each([&](role_id r) { p |= e->by_role[r]; });
    // Part 3 §5.2.11: a restriction the channel does not meet refuses the node's operations; with
    // ApplyRestrictionsToBrowse, Browse too.
    if (const std::uint16_t unmet = e->restrictions & ~channel_restrictions &
                                    (restriction::signing_required | restriction::encryption_required))
      p = (e->restrictions & restriction::apply_restrictions_to_browse) ? 0 : (p & permission::browse);
    return p;
  }

  // The namespace default that decides ns (its last `namespace` rule), or null: what the
  // NamespaceMetadata Object of ns shows as DefaultRolePermissions and DefaultAccessRestrictions
  // (Part 5 §6.3.13, namespace_metadata.hpp).
  const entry* namespace_entry(std::uint16_t ns) const noexcept {
    for (std::size_t i = rules_.size(); i-- > 0;)
      if (rules_[i].node.empty() && rules_[i].namespace_index == ns) return &entries_[i];
    return nullptr;
  }

  // The Variables whose Value is a namespace's DefaultUserRolePermissions (Part 5 §6.3.13), each
  // with its namespace: Read answers them per session (services/access_attributes.hpp). Kept over
  // set_rules and rebuild; the NamespaceMetadata Objects set them.
  void set_user_defaults(std::vector<std::pair<ua::node_index, std::uint16_t>> nodes);
  // The namespace whose DefaultUserRolePermissions n is, or -1. A range check, then a scan of one
  // entry per namespace: cheap enough for every Read of a Value.
  int user_default_namespace(ua::node_index n) const noexcept {
    if (user_defaults_.empty() || n < user_defaults_lo_ || n > user_defaults_hi_) return -1;
    for (const auto& [node, ns] : user_defaults_)
      if (node == n) return ns;
    return -1;
  }

private:
  std::vector<std::pair<ua::node_index, std::uint16_t>> user_defaults_;
  ua::node_index user_defaults_lo_ = 0, user_defaults_hi_ = 0;
  std::vector<permission_rule> rules_;
  std::vector<ua::node_id> role_ids_;
  std::vector<entry> entries_;          // one per rule, same order
  std::vector<std::uint16_t> rule_of_;  // per node index: 0 none, else entry index + 1
};

// What one session may do, as the services ask it: the server's table and the session's roles.
// A default-constructed one allows everything (no table: the server has no rules).
struct node_access {
  const permission_table* table = nullptr;
  role_set roles;
  std::uint16_t channel_restrictions = 0;

  std::uint32_t permissions(ua::node_index n) const noexcept {
    return table ? table->permissions(n, roles, channel_restrictions) : permission::all;
  }
  bool may(ua::node_index n, std::uint32_t bits) const noexcept { return (permissions(n) & bits) == bits; }
  // Why `bits` on n are refused (Good when they are not): Bad_SecurityModeInsufficient when the
  // session's roles have them and only AccessRestrictions the channel does not meet stand in the
  // way (Part 4 §7.38: "not permitted over the current secure channel"; a client can retry over a
  // signed or encrypted one), else Bad_UserAccessDenied (Part 3 §5.2.9). Only after a refusal, off
  // the hot path.
  ua::status_code refusal(ua::node_index n, std::uint32_t bits) const noexcept {
    if (may(n, bits)) return ua::status::good;
    const std::uint16_t every_restriction_met = 0xFFFF;
    if (table && (table->permissions(n, roles, every_restriction_met) & bits) == bits)
      return ua::status::bad_security_mode_insufficient;
    return ua::status::bad_user_access_denied;
  }
  bool restricted() const noexcept { return table && !table->empty(); }
};

// The AccessRestrictions a channel of this security mode meets (Part 4 §7.20 MessageSecurityMode:
// 2 Sign, 3 SignAndEncrypt), a session being always there.
constexpr std::uint16_t restrictions_met_by(std::int32_t security_mode) noexcept {
  std::uint16_t r = restriction::session_required;
  if (security_mode >= 2) r |= restriction::signing_required;
  if (security_mode >= 3) r |= restriction::encryption_required;
  return r;
}

}  // namespace uactor::actors::authz
