// Namespace 0's default RolePermissions and AccessRestrictions as the OPC Foundation publishes them
// (Opc.Ua.NodeIds.permissions.csv, generated into protocol/ns0/ns0_permissions.cpp by
// tools/codegen/nodeset.py): ServerConfiguration, PublishSubscribe, UserManagement,
// RequestServerStateChange, SessionSecurityDiagnosticsArray and the RoleSet, as permission rules
// of their own node each (docs/decisions/0068).
#pragma once

#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/access/roles.hpp"
#include "protocol/address_space.hpp"

namespace uactor::actors::authz {

// One rule per row whose node the address space has, deciding that node only (not a subtree:
// the file lists each child that has its own). A row's roles that the registry does not have
// (SecurityKeyServerAdmin, SecurityKeyServerPush) are left out: nobody holds them. The file's
// Anonymous is every session (Part 18 §4.3, roles.hpp): a logged-in user may do on these nodes
// what an anonymous one may.
std::vector<permission_rule> ns0_default_rules(const ua::address_space& as, const role_registry& reg);

}  // namespace uactor::actors::authz
