// Part 3 §4.9, Part 18 §4.4: the well-known roles and the identity mapping rules.
#include "engine/server/access/roles.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

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

// One "key=value" of a distinguished name, trimmed; keys upper-cased.
struct dn_part {
  std::string key, value;
  friend bool operator<(const dn_part& a, const dn_part& b) { return std::tie(a.key, a.value) < std::tie(b.key, b.value); }
  friend bool operator==(const dn_part&, const dn_part&) = default;
};

std::string_view roles_trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// Split at ',' or '/' (OpenSSL's one-line form) that no backslash escapes.
std::vector<dn_part> roles_dn_parts(std::string_view dn) {
  std::vector<dn_part> out;
  std::string cur;
  const auto flush = [&] {
    const std::string_view item = roles_trim(cur);
    if (!item.empty()) {
      const auto eq = item.find('=');
      dn_part p;
      std::string_view k = roles_trim(item.substr(0, eq));
      p.key.assign(k);
      for (char& c : p.key) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (eq != std::string_view::npos) p.value.assign(roles_trim(item.substr(eq + 1)));
      out.push_back(std::move(p));
    }
    cur.clear();
  };
  for (std::size_t i = 0; i < dn.size(); ++i) {
    if (dn[i] == '\\' && i + 1 < dn.size()) {
      cur += dn[++i];
    } else if (dn[i] == ',' || dn[i] == '/' || dn[i] == ';') {
      flush();
    } else {
      cur += dn[i];
    }
  }
  flush();
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool same_distinguished_name(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  return roles_dn_parts(a) == roles_dn_parts(b);
}

bool identity_rule::matches(const session_facts& f) const noexcept {
  const session_identity& id = *f.identity;
  switch (criteria_type) {
    case kind::anonymous: return id.token == session_identity::kind::anonymous;
    case kind::authenticated_user: return id.token != session_identity::kind::anonymous;
    case kind::user_name: return id.token == session_identity::kind::user_name && id.name == criteria;
    case kind::thumbprint: return id.token == session_identity::kind::certificate && roles_same_hex(id.name, criteria);
    case kind::x509_subject:
      // Part 18 §4.4.4: the user certificate's subject, or its issuer's (every user of a CA).
      if (id.token != session_identity::kind::certificate) return false;
      try {
        return same_distinguished_name(f.user_subject, criteria) || same_distinguished_name(f.user_issuer, criteria);
      } catch (...) {
        return false;  // out of memory splitting a name: no match rather than a throw from noexcept
      }
    case kind::application: return !f.application_uri.empty() && f.application_uri == criteria;
    case kind::trusted_application: return f.trusted_application;
    case kind::role:
      // A claim of the callback; a role held is roles_of's (it needs the other roles first).
      return std::find(f.role_claims.begin(), f.role_claims.end(), criteria) != f.role_claims.end();
    case kind::group_id: return std::find(f.group_ids.begin(), f.group_ids.end(), criteria) != f.group_ids.end();
  }
  return false;
}

bool endpoint_matches(const ua::endpoint_type& e, const session_facts& f) noexcept {
  if (e.endpoint_url.view() != f.endpoint_url) return false;
  if (e.security_mode != ua::message_security_mode::invalid && e.security_mode != f.security_mode) return false;
  if (!e.security_policy_uri.empty() && e.security_policy_uri.view() != f.security_policy_uri) return false;
  if (!e.transport_profile_uri.empty() && e.transport_profile_uri.view() != f.transport_profile_uri) return false;
  return true;
}

bool role::admits(const session_facts& f) const noexcept {
  // Part 18 §4.4.1: an include list admits only what it names; an exclude list all but that.
  const bool app_listed = !f.application_uri.empty() &&
                          std::find(applications.begin(), applications.end(), f.application_uri) != applications.end();
  if (app_listed == applications_exclude) return false;
  bool endpoint_listed = false;
  for (const auto& e : endpoints)
    if (endpoint_matches(e, f)) {
      endpoint_listed = true;
      break;
    }
  return endpoint_listed != endpoints_exclude;
}

std::optional<identity_rule> parse_identity_rule(std::string_view text, std::string* why) {
  const auto fail = [why](std::string w) -> std::optional<identity_rule> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (text == "Anonymous") return identity_rule{identity_rule::kind::anonymous, {}};
  if (text == "AuthenticatedUser") return identity_rule{identity_rule::kind::authenticated_user, {}};
  if (text == "TrustedApplication") return identity_rule{identity_rule::kind::trusted_application, {}};
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
  if (type == "X509Subject") {
    const auto parts = roles_dn_parts(value);
    if (parts.empty() || std::any_of(parts.begin(), parts.end(), [](const dn_part& p) { return p.key.empty() || p.value.empty(); }))
      return fail("an X509Subject is a certificate's subject name, \"CN=alice, O=plant\"");
    return identity_rule{identity_rule::kind::x509_subject, std::string(roles_trim(value))};
  }
  if (type == "Application") {
    if (value.empty()) return fail("\"Application:\" needs the client's ApplicationUri (Application:urn:plant:hmi)");
    return identity_rule{identity_rule::kind::application, std::string(value)};
  }
  if (type == "Role") {
    if (roles_trim(value).empty()) return fail("\"Role:\" needs a role name (Role:Operator)");
    return identity_rule{identity_rule::kind::role, std::string(roles_trim(value))};
  }
  if (type == "GroupId") {
    if (roles_trim(value).empty()) return fail("\"GroupId:\" needs a group (GroupId:operators)");
    return identity_rule{identity_rule::kind::group_id, std::string(roles_trim(value))};
  }
  return fail("\"" + std::string(text) +
              "\" is not an identity rule (Anonymous, AuthenticatedUser, TrustedApplication, UserName:<name>, "
              "Thumbprint:<hex>, X509Subject:<subject>, Application:<uri>, Role:<role>, GroupId:<group>)");
}

std::string to_string(const identity_rule& r) {
  switch (r.criteria_type) {
    case identity_rule::kind::anonymous: return "Anonymous";
    case identity_rule::kind::authenticated_user: return "AuthenticatedUser";
    case identity_rule::kind::trusted_application: return "TrustedApplication";
    case identity_rule::kind::user_name: return "UserName:" + r.criteria;
    case identity_rule::kind::thumbprint: return "Thumbprint:" + r.criteria;
    case identity_rule::kind::x509_subject: return "X509Subject:" + r.criteria;
    case identity_rule::kind::application: return "Application:" + r.criteria;
    case identity_rule::kind::role: return "Role:" + r.criteria;
    case identity_rule::kind::group_id: return "GroupId:" + r.criteria;
  }
  return "?";
}

ua::identity_mapping_rule_type to_structure(const identity_rule& r) {
  using c = ua::identity_criteria_type;
  ua::identity_mapping_rule_type s;
  switch (r.criteria_type) {
    case identity_rule::kind::anonymous: s.criteria_type = c::anonymous; break;
    case identity_rule::kind::authenticated_user: s.criteria_type = c::authenticated_user; break;
    case identity_rule::kind::trusted_application: s.criteria_type = c::trusted_application; break;
    case identity_rule::kind::user_name: s.criteria_type = c::user_name; break;
    case identity_rule::kind::thumbprint: s.criteria_type = c::thumbprint; break;
    case identity_rule::kind::x509_subject: s.criteria_type = c::x509_subject; break;
    case identity_rule::kind::application: s.criteria_type = c::application; break;
    case identity_rule::kind::role: s.criteria_type = c::role; break;
    case identity_rule::kind::group_id: s.criteria_type = c::group_id; break;
  }
  if (!r.criteria.empty()) s.criteria.assign(r.criteria);
  return s;
}

ua::expected<identity_rule> from_structure(const ua::identity_mapping_rule_type& s) {
  using c = ua::identity_criteria_type;
  const std::string_view criteria = s.criteria.view();
  // Part 18 §4.4.3: no criteria for Anonymous, AuthenticatedUser and TrustedApplication.
  const auto bare = [&](identity_rule::kind k) -> ua::expected<identity_rule> {
    if (!criteria.empty()) return ua::status::bad_invalid_argument;
    return identity_rule{k, {}};
  };
  const auto with = [&](std::string_view prefix) -> ua::expected<identity_rule> {
    if (criteria.empty()) return ua::status::bad_invalid_argument;
    auto r = parse_identity_rule(std::string(prefix) + ":" + std::string(criteria));
    if (!r) return ua::status::bad_invalid_argument;
    return std::move(*r);
  };
  switch (s.criteria_type) {
    case c::anonymous: return bare(identity_rule::kind::anonymous);
    case c::authenticated_user: return bare(identity_rule::kind::authenticated_user);
    case c::trusted_application: return bare(identity_rule::kind::trusted_application);
    case c::user_name: return with("UserName");
    case c::thumbprint: return with("Thumbprint");
    case c::x509_subject: return with("X509Subject");
    case c::application: return with("Application");
    case c::role: return with("Role");
    case c::group_id: return with("GroupId");
  }
  return ua::status::bad_invalid_argument;
}

role_registry::role_registry() {
  for (const auto& row : well_known_role_rows) {
    role r;
    r.name = row.name;
    r.id = ua::node_id(0, row.id);
    roles_.push_back(std::move(r));
  }
  // Part 18 §4.3: "The default Identities for the Anonymous Role shall be Identities with the
  // criteriaType IdentityCriteriaType.Anonymous and the criteriaType
  // IdentityCriteriaType.AuthenticatedUser": every session holds Anonymous (docs/decisions/0075).
  roles_[well_known::anonymous].identities.push_back({identity_rule::kind::anonymous, {}});
  roles_[well_known::anonymous].identities.push_back({identity_rule::kind::authenticated_user, {}});
  roles_[well_known::authenticated_user].identities.push_back({identity_rule::kind::authenticated_user, {}});
}

std::optional<role_id> role_registry::add(std::string_view name, std::uint16_t ns) {
  if (const auto r = find(name)) return r;
  if (roles_.size() >= max_roles) return std::nullopt;
  role r;
  r.name = name;
  r.id = ua::node_id::string(ns, "Role." + std::string(name));
  roles_.push_back(std::move(r));
  return static_cast<role_id>(roles_.size() - 1);
}

std::optional<role_id> role_registry::find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < roles_.size(); ++i)
    if (!roles_[i].removed && roles_[i].name == name) return static_cast<role_id>(i);
  return std::nullopt;
}

std::optional<role_id> role_registry::find(const ua::node_id& id) const noexcept {
  for (std::size_t i = 0; i < roles_.size(); ++i)
    if (!roles_[i].removed && roles_[i].id == id) return static_cast<role_id>(i);
  return std::nullopt;
}

ua::expected<role_id> role_registry::add_role(std::string_view name, std::uint16_t ns) {
  if (roles_trim(name).empty() || roles_trim(name).size() != name.size()) return ua::status::bad_invalid_argument;
  // Part 18 §4.2.2: the BrowseName is unique within the RoleSet; a well-known role is there already.
  if (find(name)) return ua::status::bad_invalid_argument;
  if (find(ua::node_id::string(ns, "Role." + std::string(name)))) return ua::status::bad_invalid_argument;
  if (roles_.size() >= max_roles) return ua::status::bad_not_supported;
  role r;
  r.name = name;
  r.id = ua::node_id::string(ns, "Role." + std::string(name));
  roles_.push_back(std::move(r));
  return static_cast<role_id>(roles_.size() - 1);
}

ua::status_code role_registry::remove_role(role_id r) {
  if (r >= roles_.size() || roles_[r].removed) return ua::status::bad_node_id_unknown;
  if (r < well_known::count) return ua::status::bad_request_not_allowed;
  role& gone = roles_[r];
  gone.removed = true;
  gone.identities.clear();
  gone.applications.clear();
  gone.endpoints.clear();
  return ua::status::good;
}

void role_registry::add_identity(role_id r, identity_rule rule) {
  auto& ids = roles_.at(r).identities;
  if (std::find(ids.begin(), ids.end(), rule) == ids.end()) ids.push_back(std::move(rule));
}

role_set role_registry::roles_of(const session_facts& f) const noexcept {
  role_set out;
  for (std::size_t i = 0; i < roles_.size(); ++i) {
    if (roles_[i].removed || !roles_[i].admits(f)) continue;
    const bool claimed = std::find(f.role_claims.begin(), f.role_claims.end(), roles_[i].name) != f.role_claims.end();
    if (claimed) {
      out.add(static_cast<role_id>(i));
      continue;
    }
    for (const auto& rule : roles_[i].identities)
      if (rule.matches(f)) {
        out.add(static_cast<role_id>(i));
        break;
      }
  }
  // Role rules over the roles held: each pass may grant a role that grants another (at most one
  // pass per role, so a cycle of rules ends).
  for (std::size_t pass = 0; pass < roles_.size(); ++pass) {
    bool grew = false;
    for (std::size_t i = 0; i < roles_.size(); ++i) {
      if (out.has(static_cast<role_id>(i)) || roles_[i].removed || !roles_[i].admits(f)) continue;
      for (const auto& rule : roles_[i].identities) {
        if (rule.criteria_type != identity_rule::kind::role) continue;
        const auto held = find(rule.criteria);
        if (held && out.has(*held)) {
          out.add(static_cast<role_id>(i));
          grew = true;
          break;
        }
      }
    }
    if (!grew) break;
  }
  return out;
}

ua::status_code role_registry::add_identity_rule(role_id r, identity_rule rule) {
  auto& ids = roles_.at(r).identities;
  if (std::find(ids.begin(), ids.end(), rule) != ids.end()) return ua::status::bad_already_exists;
  // Part 18 §4.4.5: a server should refuse an Anonymous rule for a role with administrator rights.
  if ((r == well_known::security_admin || r == well_known::configure_admin) &&
      (rule.criteria_type == identity_rule::kind::anonymous || rule.criteria_type == identity_rule::kind::authenticated_user))
    return ua::status::bad_request_not_allowed;
  ids.push_back(std::move(rule));
  return ua::status::good;
}

ua::status_code role_registry::remove_identity_rule(role_id r, const identity_rule& rule) {
  auto& ids = roles_.at(r).identities;
  const auto it = std::find(ids.begin(), ids.end(), rule);
  if (it == ids.end()) return ua::status::bad_not_found;
  ids.erase(it);
  return ua::status::good;
}

ua::status_code role_registry::add_application(role_id r, std::string uri) {
  if (uri.empty()) return ua::status::bad_invalid_argument;
  auto& apps = roles_.at(r).applications;
  if (std::find(apps.begin(), apps.end(), uri) != apps.end()) return ua::status::bad_already_exists;
  apps.push_back(std::move(uri));
  return ua::status::good;
}

ua::status_code role_registry::remove_application(role_id r, std::string_view uri) {
  auto& apps = roles_.at(r).applications;
  const auto it = std::find(apps.begin(), apps.end(), uri);
  if (it == apps.end()) return ua::status::bad_not_found;
  apps.erase(it);
  return ua::status::good;
}

ua::status_code role_registry::add_endpoint(role_id r, ua::endpoint_type e) {
  if (e.endpoint_url.empty()) return ua::status::bad_invalid_argument;
  auto& eps = roles_.at(r).endpoints;
  if (std::find(eps.begin(), eps.end(), e) != eps.end()) return ua::status::bad_already_exists;
  eps.push_back(std::move(e));
  return ua::status::good;
}

ua::status_code role_registry::remove_endpoint(role_id r, const ua::endpoint_type& e) {
  auto& eps = roles_.at(r).endpoints;
  const auto it = std::find(eps.begin(), eps.end(), e);
  if (it == eps.end()) return ua::status::bad_not_found;
  eps.erase(it);
  return ua::status::good;
}

void role_registry::set_applications(role_id r, std::vector<std::string> uris, bool exclude) {
  roles_.at(r).applications = std::move(uris);
  roles_.at(r).applications_exclude = exclude;
}

void role_registry::set_endpoints(role_id r, std::vector<ua::endpoint_type> endpoints, bool exclude) {
  roles_.at(r).endpoints = std::move(endpoints);
  roles_.at(r).endpoints_exclude = exclude;
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
