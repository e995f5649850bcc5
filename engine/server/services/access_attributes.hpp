// The attributes a session's roles decide (Part 3 §5.2.9-5.2.11, §5.6.2, §5.7): RolePermissions,
// UserRolePermissions, AccessRestrictions, and the User* attributes narrowed by the session's
// permissions. Read and CreateMonitoredItems ask here.
#pragma once

#include "engine/server/access/permission_table.hpp"
#include "protocol/address_space.hpp"

namespace uactor::services {

using node_access = actors::authz::node_access;

// The permission an attribute needs (Part 3 §8.55): Read for Value, ReadRolePermissions for
// RolePermissions, Browse for every other one.
std::uint32_t permission_to_read(ua::attribute_id attr) noexcept;

// RolePermissions (24), UserRolePermissions (25), AccessRestrictions (26) of node n into `out`:
// Bad_AttributeIdInvalid for a node no rule covers (the optional attributes are not there).
// RolePermissions allocates (an array of structures); it is rarely read.
ua::status_code read_access_attribute(const ua::address_space& as, ua::node_index n, ua::attribute_id attr,
                                      const node_access& access, ua::data_value& out);

// The Value of a namespace's DefaultUserRolePermissions Property (Part 5 §6.3.13) as this session
// reads it: the entries of the namespace default (DefaultRolePermissions) for the roles it holds;
// null when the namespace has no default. False (out untouched) for any other node.
bool read_default_user_role_permissions(ua::node_index n, const node_access& access, ua::data_value& out);

// UserAccessLevel, UserExecutable, UserWriteMask as read for this session: the node's own value
// less what its permissions do not allow (Part 3 §5.6.2: Read -> CurrentRead, Write ->
// CurrentWrite/StatusWrite/TimestampWrite, ReadHistory -> HistoryRead, Insert/Modify/DeleteHistory
// -> HistoryWrite; Call -> UserExecutable; WriteAttribute -> UserWriteMask).
void narrow_user_attribute(ua::attribute_id attr, std::uint32_t permissions, ua::data_value& out) noexcept;

}  // namespace uactor::services
