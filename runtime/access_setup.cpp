// server_plan::roles and ::permissions into the engine's role_registry and permission rules.
#include "runtime/access_setup.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace uactor::app {

namespace authz = actors::authz;

access_setup make_access(const server_plan& plan, const std::vector<std::string>& namespace_array,
                         bool skip_unknown_namespaces) {
  access_setup out;
  auto reg = std::make_shared<authz::role_registry>();
  for (std::size_t i = 0; i < plan.roles.size(); ++i) {
    const role_plan& rp = plan.roles[i];
    if (rp.name.empty()) {
      out.errors.push_back(fmt::format("roles[{}].name: a role needs a name", i));
      continue;
    }
    const auto id = reg->add(rp.name, 1);
    if (!id) {
      out.errors.push_back(fmt::format("roles[{}]: more than {} roles", i, authz::max_roles));
      continue;
    }
    if (!rp.keep_default_identities) reg->clear_identities(*id);
    for (std::size_t k = 0; k < rp.identities.size(); ++k) {
      std::string why;
      if (auto rule = authz::parse_identity_rule(rp.identities[k], &why)) reg->add_identity(*id, std::move(*rule));
      else out.errors.push_back(fmt::format("roles[{}].identities[{}]: {}", i, k, why));
    }
    reg->set_applications(*id, rp.applications, rp.applications_exclude);
    std::vector<ua::endpoint_type> endpoints;
    for (const auto& url : rp.endpoints) {
      ua::endpoint_type e;  // any mode, policy and transport at that URL
      e.endpoint_url.assign(url);
      endpoints.push_back(std::move(e));
    }
    reg->set_endpoints(*id, std::move(endpoints), rp.endpoints_exclude);
  }
  for (std::size_t i = 0; i < plan.permissions.size(); ++i) {
    const permission_plan& pp = plan.permissions[i];
    authz::permission_rule rule;
    rule.where = fmt::format("permissions[{}]", i);
    rule.node = pp.node;
    if (pp.node.empty()) {
      const auto at = std::find(namespace_array.begin(), namespace_array.end(), pp.namespace_uri);
      if (pp.namespace_uri.empty()) {
        out.errors.push_back(rule.where + ": a rule needs a node or a namespace");
        continue;
      }
      if (at == namespace_array.end()) {
        if (!skip_unknown_namespaces)
          out.errors.push_back(fmt::format("{}.namespace: \"{}\" is not a namespace of the server", rule.where, pp.namespace_uri));
        continue;
      }
      rule.namespace_index = static_cast<std::uint16_t>(at - namespace_array.begin());
    }
    for (const auto& [role_name, names] : pp.roles) {
      const auto role = reg->find(role_name);
      if (!role) {
        out.errors.push_back(fmt::format("{}.roles.{}: no such role (a well-known one or a [[roles]] name)", rule.where, role_name));
        continue;
      }
      std::uint32_t bits = 0;
      for (const auto& n : names) {
        if (const auto b = authz::permission_of(n)) bits |= *b;
        else out.errors.push_back(fmt::format("{}.roles.{}: \"{}\" is not a permission (Part 3 §8.55)", rule.where, role_name, n));
      }
      rule.roles.emplace_back(*role, bits);
    }
    for (const auto& r : pp.restrictions) {
      if (const auto b = authz::restriction_of(r)) rule.restrictions |= *b;
      else out.errors.push_back(fmt::format("{}.restrictions: \"{}\" is not an AccessRestriction", rule.where, r));
    }
    out.rules.push_back(std::move(rule));
  }
  out.roles = std::move(reg);
  return out;
}

}  // namespace uactor::app
