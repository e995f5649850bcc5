// Namespace 0's published default permissions as rules (docs/decisions/0068).
#include "engine/server/access/ns0_defaults.hpp"

#include <string>

#include "protocol/ns0/ns0_permissions.hpp"

namespace uactor::actors::authz {

std::vector<permission_rule> ns0_default_rules(const ua::address_space& as, const role_registry& reg) {
  std::vector<permission_rule> out;
  const auto grants = ua::ns0::default_permission_grants();
  for (const ua::ns0::permission_row& row : ua::ns0::default_permissions()) {
    const ua::node_id id(0, row.node);
    const ua::node_index n = as.find(id);
    if (n == ua::no_node || as.at(n).removed) continue;
    permission_rule rule;
    rule.node = id.to_string();
    rule.restrictions = row.restrictions;
    rule.subtree = false;
    rule.where = "namespace 0's default of " + std::string(as.at(n).browse_name);
    for (std::uint32_t g = row.first_grant; g < row.first_grant + row.grant_count && g < grants.size(); ++g) {
      const auto role = reg.find(ua::node_id(0, grants[g].role));
      if (!role) continue;
      rule.roles.emplace_back(*role, grants[g].permissions);
    }
    out.push_back(std::move(rule));
  }
  return out;
}

}  // namespace uactor::actors::authz
