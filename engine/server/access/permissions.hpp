// Permission bits (Part 3 §8.55 PermissionType) and the set of roles a session holds (Part 3 §4.9):
// the small values every service checks per node. No allocation, no lookup: a role is a bit.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace uactor::actors::authz {

// Part 3 §8.55 PermissionType, the bits of RolePermissions and UserRolePermissions.
namespace permission {
inline constexpr std::uint32_t browse = 0x1;
inline constexpr std::uint32_t read_role_permissions = 0x2;
inline constexpr std::uint32_t write_attribute = 0x4;
inline constexpr std::uint32_t write_role_permissions = 0x8;
inline constexpr std::uint32_t write_historizing = 0x10;
inline constexpr std::uint32_t read = 0x20;
inline constexpr std::uint32_t write = 0x40;
inline constexpr std::uint32_t read_history = 0x80;
inline constexpr std::uint32_t insert_history = 0x100;
inline constexpr std::uint32_t modify_history = 0x200;
inline constexpr std::uint32_t delete_history = 0x400;
inline constexpr std::uint32_t receive_events = 0x800;
inline constexpr std::uint32_t call = 0x1000;
inline constexpr std::uint32_t add_reference = 0x2000;
inline constexpr std::uint32_t remove_reference = 0x4000;
inline constexpr std::uint32_t delete_node = 0x8000;
inline constexpr std::uint32_t add_node = 0x10000;
inline constexpr std::uint32_t all = 0x1FFFF;
}  // namespace permission

// The bit of one PermissionType name as Part 3 §8.55 spells it ("Browse", "Read", "Write",
// "Call", ...), or "All" for every bit; nullopt for any other word.
std::optional<std::uint32_t> permission_of(std::string_view name) noexcept;
// The names, in bit order (for messages and the docs).
std::span<const std::string_view> permission_names() noexcept;

// Part 3 §8.56 AccessRestrictionType.
namespace restriction {
inline constexpr std::uint16_t signing_required = 0x1;
inline constexpr std::uint16_t encryption_required = 0x2;
inline constexpr std::uint16_t session_required = 0x4;
inline constexpr std::uint16_t apply_restrictions_to_browse = 0x8;
}  // namespace restriction
std::optional<std::uint16_t> restriction_of(std::string_view name) noexcept;

// The roles of a session: role i is bit i (the registry numbers them, roles.hpp). 64 roles: the
// eight well-known ones and 56 of a plant's own.
using role_id = std::uint8_t;
inline constexpr std::size_t max_roles = 64;

class role_set {
public:
  constexpr role_set() = default;
  constexpr explicit role_set(std::uint64_t bits) : bits_(bits) {}
  constexpr void add(role_id r) noexcept { bits_ |= std::uint64_t{1} << r; }
  constexpr bool has(role_id r) const noexcept { return (bits_ >> r) & 1u; }
  constexpr bool empty() const noexcept { return bits_ == 0; }
  constexpr std::uint64_t bits() const noexcept { return bits_; }
  // Calls f(role) for each role held, lowest first.
  template <class F>
  constexpr void each(F&& f) const {
    for (std::uint64_t b = bits_; b != 0; b &= b - 1) f(static_cast<role_id>(std::countr_zero(b)));
  }
  constexpr role_set operator|(role_set o) const noexcept { return role_set(bits_ | o.bits_); }
  friend constexpr bool operator==(role_set, role_set) = default;

private:
  std::uint64_t bits_ = 0;
};

}  // namespace uactor::actors::authz
