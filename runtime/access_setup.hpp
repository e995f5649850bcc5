// The plan's roles and permissions (server_plan::roles, ::permissions) as the engine takes them:
// the role registry with its identity mappings and the permission rules (docs/security.md "Roles
// and permissions"). Start-up and reload work; the caller owns what it returns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/access/roles.hpp"
#include "uactor/server_plan.hpp"

namespace uactor::app {

struct access_setup {
  std::shared_ptr<const actors::authz::role_registry> roles;
  std::vector<actors::authz::permission_rule> rules;
  std::vector<std::string> errors;  // "roles[1].identities[0]: ...", "permissions[2].roles.Oprator: no such role"
};

// `namespace_array`: the server's NamespaceArray now (a namespace default names its URI). A plant's
// own roles get NodeIds in namespace 1 (the server's). With `skip_unknown_namespaces`, a rule of a
// namespace not (yet) registered is left out instead of being an error (at start, before the
// plant's namespaces are in).
access_setup make_access(const server_plan& plan, const std::vector<std::string>& namespace_array,
                         bool skip_unknown_namespaces = false);

}  // namespace uactor::app
