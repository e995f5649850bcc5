// Part 3 §8.55 PermissionType and §8.56 AccessRestrictionType by name.
#include "engine/server/access/permissions.hpp"

#include <array>

namespace uactor::actors::authz {

namespace {

constexpr std::array<std::string_view, 17> permission_name_list = {
    "Browse",      "ReadRolePermissions", "WriteAttribute", "WriteRolePermissions", "WriteHistorizing", "Read",
    "Write",       "ReadHistory",         "InsertHistory",  "ModifyHistory",        "DeleteHistory",    "ReceiveEvents",
    "Call",        "AddReference",        "RemoveReference", "DeleteNode",          "AddNode"};

}  // namespace

std::optional<std::uint32_t> permission_of(std::string_view name) noexcept {
  if (name == "All") return permission::all;
  for (std::size_t i = 0; i < permission_name_list.size(); ++i)
    if (permission_name_list[i] == name) return std::uint32_t{1} << i;
  return std::nullopt;
}

std::span<const std::string_view> permission_names() noexcept { return permission_name_list; }

std::optional<std::uint16_t> restriction_of(std::string_view name) noexcept {
  if (name == "SigningRequired") return restriction::signing_required;
  if (name == "EncryptionRequired") return restriction::encryption_required;
  if (name == "SessionRequired") return restriction::session_required;
  if (name == "ApplyRestrictionsToBrowse") return restriction::apply_restrictions_to_browse;
  return std::nullopt;
}

}  // namespace uactor::actors::authz
