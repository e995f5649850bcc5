// Part 3 §5.2.9-5.2.11: the attributes of roles and permissions, as one session reads them.
#include "engine/server/services/access_attributes.hpp"

#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;
namespace perm = actors::authz::permission;

std::uint32_t permission_to_read(attribute_id attr) noexcept {
  switch (attr) {
    case attribute_id::value: return perm::read;
    case attribute_id::role_permissions: return perm::read_role_permissions;
    default: return perm::browse;
  }
}

status_code read_access_attribute(const address_space& as, node_index n, attribute_id attr, const node_access& access,
                                  data_value& out) {
  (void)as;
  const auto* e = access.table ? access.table->entry_of(n) : nullptr;
  if (!e) return status::bad_attribute_id_invalid;
  out.has_status = false;
  out.status = status::good;
  out.has_value = true;
  if (attr == attribute_id::access_restrictions) {
    out.value.emplace<std::uint16_t>() = e->restrictions;
    return status::good;
  }
  // RolePermissions: every role the rule names; UserRolePermissions: those the session holds.
  const actors::authz::role_set shown =
      attr == attribute_id::role_permissions ? e->listed : actors::authz::role_set(e->listed.bits() & access.roles.bits());
  auto& list = out.value.emplace<ua_array<extension_object>>();
  list.clear();
  list.set_not_null();
  shown.each([&](actors::authz::role_id r) {
    role_permission_type rp;
    rp.role_id = access.table->role_node(r);
    rp.permissions = static_cast<permission_type>(e->by_role[r]);
    list.emplace_back(std::move(rp));
  });
  return status::good;
}

bool read_default_user_role_permissions(node_index n, const node_access& access, data_value& out) {
  if (!access.table) return false;
  const int ns = access.table->user_default_namespace(n);
  if (ns < 0) return false;
  out.has_status = false;
  out.status = status::good;
  out.has_value = true;
  out.has_source_timestamp = out.has_source_picoseconds = false;
  const auto* e = access.table->namespace_entry(static_cast<std::uint16_t>(ns));
  if (!e) {
    out.value.clear();  // no default: nothing published about the namespace (Part 3 §5.2.9)
    return true;
  }
  auto& list = out.value.emplace<ua_array<extension_object>>();
  list.clear();
  list.set_not_null();
  actors::authz::role_set(e->listed.bits() & access.roles.bits()).each([&](actors::authz::role_id r) {
    role_permission_type rp;
    rp.role_id = access.table->role_node(r);
    rp.permissions = static_cast<permission_type>(e->by_role[r]);
    list.emplace_back(std::move(rp));
  });
  return true;
}

void narrow_user_attribute(attribute_id attr, std::uint32_t p, data_value& out) noexcept {
  if (p == perm::all) return;
  switch (attr) {
    case attribute_id::user_access_level:
      if (auto* v = out.value.get_if<std::uint8_t>()) {
        std::uint8_t keep = 0x10;  // SemanticChange is not a right
        if (p & perm::read) keep |= 0x01;
        if (p & perm::write) keep |= 0x02 | 0x20 | 0x40;
        if (p & perm::read_history) keep |= 0x04;
        if (p & (perm::insert_history | perm::modify_history | perm::delete_history)) keep |= 0x08;
        *v &= keep;
      }
      break;
    case attribute_id::user_executable:
      if (auto* v = out.value.get_if<bool>(); v && !(p & perm::call)) *v = false;
      break;
    case attribute_id::user_write_mask:
      if (auto* v = out.value.get_if<std::uint32_t>(); v && !(p & perm::write_attribute)) *v = 0;
      break;
    default: break;
  }
}

}  // namespace uactor::services
