// The NamespaceMetadata Objects under Server/Namespaces (Part 5 §6.3.13-6.3.14): one per namespace
// of the server's NamespaceArray, showing what it is and its default permissions (Part 3 §5.2.9-
// 5.2.11: DefaultRolePermissions, DefaultUserRolePermissions, DefaultAccessRestrictions) as the
// plant's `[[permissions]] namespace = ...` rules set them. Plain state in the session host, no CAF.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "protocol/address_space.hpp"

namespace uactor::actors::authz {

// What a NodeSet's <Model> says of a namespace (its NamespaceVersion and NamespacePublicationDate).
struct namespace_model {
  std::string uri;
  std::string version;
  ua::date_time publication_date;
};

class namespace_metadata {
public:
  // Gives every namespace of the NamespaceArray its Object under Server/Namespaces (i=11715). The
  // ones there already are kept, found by their NamespaceUri Property: namespace 0's
  // OPCUANamespaceMetadata from the NodeSet, a NodeSet's own. A new one is
  // ns=1;s=Namespaces.<uri>, BrowseName <ns>:<uri>, with the seven mandatory Properties (the
  // version and publication date of `models` when one names the URI; else empty) and the three
  // Default* ones, which an Object kept gets too when it lacks them. Call again after a namespace
  // is registered; nothing happens without Server/Namespaces or a namespace 1.
  void sync(ua::address_space& as, std::span<const namespace_model> models = {});

  // Who may read them (call after sync): DefaultRolePermissions is for administrators only (Part 3
  // §5.2.9: "shall only be readable by administrators", as RolePermissions needs
  // ReadRolePermissions): Anonymous (every session) may browse it, SecurityAdmin do everything. The
  // Objects and their other Properties may be browsed and read by every session (Anonymous:
  // Browse, Read), whatever a namespace default says; SecurityAdmin everything. Each rule is its
  // node's own (not a subtree's), so a plant rule naming the node overrides it.
  std::vector<permission_rule> default_rules(const ua::address_space& as) const;

  // The values from the table's namespace defaults (after its rebuild): DefaultRolePermissions
  // each role's bits, DefaultAccessRestrictions the restrictions; null for a namespace without a
  // default. DefaultUserRolePermissions is read per session: its nodes go to the table
  // (permission_table::set_user_defaults).
  void publish(ua::address_space& as, permission_table& table) const;

  struct namespace_nodes {
    std::uint16_t ns = 0;
    ua::node_index object = ua::no_node;
    ua::node_index role_permissions = ua::no_node, user_role_permissions = ua::no_node,
                   access_restrictions = ua::no_node;
  };
  // One per namespace the NamespaceArray had at the last sync, namespace 0 first.
  const std::vector<namespace_nodes>& namespaces() const noexcept { return namespaces_; }

private:
  std::vector<namespace_nodes> namespaces_;
};

}  // namespace uactor::actors::authz
