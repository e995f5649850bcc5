// Part 3 §4.9, Part 18 §4.4: the well-known roles and the identity mapping rules.
#include "engine/server/access/roles.hpp"

#include <algorithm>
#include <cctype>

#include "uactor/ua/node_ids.hpp"

namespace uactor::actors::authz {

namespace {

struct well_known_role_row {
  std::string_view name;
  std::uint32_t id;  // ns=0, NodeIds.csv WellKnownRole_<name>
};
// In role_id order (well_known::anonymous .. security_admin).
constexpr well_known_role_row well_known_role_rows[] = {
    {"Anonymous", 15644},  {"AuthenticatedUser", 15656}, {"Observer", 15668},       {"Operator", 15680},
    {"Engineer", 16036},   {"Supervisor", 15692},        {"ConfigureAdmin", 15716}, {"SecurityAdmin", 15704},
};
static_assert(std::size(well_known_role_rows) == well_known::count);

bool roles_same_hex(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool identity_rule::matches(const session_identity& id) const noexcept {
  switch (criteria_type) {
    case kind::anonymous: return id.token == session_identity::kind::anonymous;
    case kind::authenticated_user: return id.token != session_identity::kind::anonymous;
    case kind::user_name: return id.token == session_identity::kind::user_name && id.name == criteria;
    case kind::thumbprint: return id.token == session_identity::kind::certificate && roles_same_hex(id.name, criteria);
  }
  return false;
}

std::optional<identity_rule> parse_identity_rule(std::string_view text, std::string* why) {
  const auto fail = [why](std::string w) -> std::optional<identity_rule> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (text == "Anonymous") return identity_rule{identity_rule::kind::anonymous, {}};
  if (text == "AuthenticatedUser") return identity_rule{identity_rule::kind::authenticated_user, {}};
  const auto colon = text.find(':');
  const std::string_view type = text.substr(0, colon);
  const std::string_view value = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  if (type == "UserName") {
    if (value.empty()) return fail("\"UserName:\" needs a user name (UserName:alice)");
    return identity_rule{identity_rule::kind::user_name, std::string(value)};
  }
  if (type == "Thumbprint") {
    if (value.size() != 40 || !std::all_of(value.begin(), value.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      return fail("a Thumbprint is the certificate's SHA-1 in 40 hex digits");
    std::string upper(value);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return identity_rule{identity_rule::kind::thumbprint, std::move(upper)};
  }
  return fail("\"" + std::string(text) +
              "\" is not an identity rule (Anonymous, AuthenticatedUser, UserName:<name>, Thumbprint:<hex>)");
}

std::string to_string(const identity_rule& r) {
  switch (r.criteria_type) {
    case identity_rule::kind::anonymous: return "Anonymous";
    case identity_rule::kind::authenticated_user: return "AuthenticatedUser";
    case identity_rule::kind::user_name: return "UserName:" + r.criteria;
    case identity_rule::kind::thumbprint: return "Thumbprint:" + r.criteria;
  }
  return "?";
}

role_registry::role_registry() {
  for (const auto& row : well_known_role_rows) roles_.push_back(role{std::string(row.name), ua::node_id(0, row.id), {}});
  roles_[well_known::anonymous].identities.push_back({identity_rule::kind::anonymous, {}});
  roles_[well_known::authenticated_user].identities.push_back({identity_rule::kind::authenticated_user, {}});
}

std::optional<role_id> role_registry::add(std::string_view name, std::uint16_t ns) {
  if (const auto r = find(name)) return r;
  if (roles_.size() >= max_roles) return std::nullopt;
  roles_.push_back(role{std::string(name), ua::node_id::string(ns, "Role." + std::string(name)), {}});
  return static_cast<role_id>(roles_.size() - 1);
}

std::optional<role_id> role_registry::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < roles_.size(); ++i)
    if (roles_[i].name == name) return static_cast<role_id>(i);
  return std::nullopt;
}

std::optional<role_id> role_registry::find(const ua::node_id& id) const noexcept {
  for (std::size_t i = 0; i < roles_.size(); ++i)
    if (roles_[i].id == id) return static_cast<role_id>(i);
  return std::nullopt;
}

void role_registry::add_identity(role_id r, identity_rule rule) {
  auto& ids = roles_.at(r).identities;
  if (std::find(ids.begin(), ids.end(), rule) == ids.end()) ids.push_back(std::move(rule));
}

role_set role_registry::roles_of(const session_identity& id) const noexcept {
  role_set out;
  for (std::size_t i = 0; i < roles_.size(); ++i)
    for (const auto& rule : roles_[i].identities)
      if (rule.matches(id)) {
        out.add(static_cast<role_id>(i));
        break;
      }
  return out;
}

std::string describe(const role_registry& reg, role_set roles) {
  std::string out;
  roles.each([&](role_id r) {
    if (!out.empty()) out += ", ";
    out += r < reg.roles().size() ? reg.at(r).name : "?";
  });
  return out.empty() ? "no role" : out;
}

}  // namespace uactor::actors::authz
