// Part 18 §4.2-4.4: the RoleSet Object and its RoleType Objects (role_set_object.hpp).
#include "engine/server/access/role_set_object.hpp"

#include <algorithm>
#include <string>

#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors::authz {

using namespace uactor::ua;

namespace {

// The members a role Object gets, in SecurityAdmin's shape (Part 18 §4.4.1 Table 6 less
// CustomConfiguration, which says nothing this server does).
constexpr std::string_view role_member_names[] = {
    "Identities",   "Applications",   "ApplicationsExclude", "Endpoints",         "EndpointsExclude",
    "AddIdentity",  "RemoveIdentity", "AddApplication",      "RemoveApplication", "AddEndpoint",
    "RemoveEndpoint"};

// NodeIds.csv ids of the members namespace 0's NodeSet leaves out, in role_member_names' order;
// a method's InputArguments is the next id (as the CSV numbers them).
struct missing_members_row {
  std::uint32_t role;
  std::uint32_t ids[std::size(role_member_names)];
};
constexpr missing_members_row missing_member_ids[] = {
    {ids::well_known_role_anonymous,
     {ids::well_known_role_anonymous_identities, ids::well_known_role_anonymous_applications,
      ids::well_known_role_anonymous_applications_exclude, ids::well_known_role_anonymous_endpoints,
      ids::well_known_role_anonymous_endpoints_exclude, ids::well_known_role_anonymous_add_identity,
      ids::well_known_role_anonymous_remove_identity, ids::well_known_role_anonymous_add_application,
      ids::well_known_role_anonymous_remove_application, ids::well_known_role_anonymous_add_endpoint,
      ids::well_known_role_anonymous_remove_endpoint}},
    {ids::well_known_role_authenticated_user,
     {ids::well_known_role_authenticated_user_identities, ids::well_known_role_authenticated_user_applications,
      ids::well_known_role_authenticated_user_applications_exclude, ids::well_known_role_authenticated_user_endpoints,
      ids::well_known_role_authenticated_user_endpoints_exclude, ids::well_known_role_authenticated_user_add_identity,
      ids::well_known_role_authenticated_user_remove_identity, ids::well_known_role_authenticated_user_add_application,
      ids::well_known_role_authenticated_user_remove_application, ids::well_known_role_authenticated_user_add_endpoint,
      ids::well_known_role_authenticated_user_remove_endpoint}},
};

node_index role_child(const address_space& as, node_index parent, std::string_view name) {
  if (parent == no_node) return no_node;
  for (const reference& r : as.forward_references(parent))
    if (!as.at(r.target).removed && as.at(r.target).browse_name == name) return r.target;
  return no_node;
}

// The NodeId a member of `role` gets when it is missing: NodeIds.csv's, or one below the role's
// own string id ("Role.ShiftLead.AddIdentity").
node_id member_id(const role& r, std::size_t member) {
  for (const auto& row : missing_member_ids)
    if (r.id == node_id(0, row.role)) return node_id(0, row.ids[member]);
  return node_id::string(r.id.namespace_index(), "Role." + r.name + "." + std::string(role_member_names[member]));
}

node_id input_arguments_id(const node_id& method) {
  if (method.namespace_index() == 0 && method.type() == node_id_type::numeric) return node_id(0, method.numeric() + 1);
  return node_id::string(method.namespace_index(), std::string(method.text()) + ".InputArguments");
}

// A copy of `from` (a Variable or a Method of SecurityAdmin) as `id` under `parent`, with the
// same reference to it and the same children (a Method's InputArguments).
node_index copy_member(address_space& as, node_index from, const node_id& id, node_index parent,
                       const node_id& child_id_of_input_arguments) {
  const node& src = as.at(from);
  node_spec spec;
  spec.id = id;
  spec.cls = src.cls;
  spec.browse_ns = src.browse_ns;
  spec.browse_name = src.browse_name;
  if (const variable_data* v = as.variable(from)) {
    spec.data_type = v->data_type.to_node_id();
    spec.value_rank = v->value_rank;
    spec.array_dimensions = v->array_dimensions;
    spec.value = v->value;
    spec.access_level = v->access_level;
    spec.user_access_level = v->user_access_level;
  }
  const auto added = as.add_node(std::move(spec));
  if (!added) return no_node;
  // The reference that holds it (HasProperty or HasComponent) and its type definition.
  for (const reference& r : as.inverse_references(from))
    if (as.at(r.target).id.to_node_id() == node_id(0, ids::well_known_role_security_admin)) {
      as.add_reference(parent, r.type, *added);
      break;
    }
  for (const reference& r : as.forward_references(from)) {
    if (r.type == as.find(node_id(0, ids::has_type_definition)) || r.type == as.find(node_id(0, ids::has_modelling_rule))) {
      as.add_reference(*added, r.type, r.target);
    } else if (as.at(r.target).cls == node_class::variable && as.at(r.target).browse_name == "InputArguments") {
      copy_member(as, r.target, child_id_of_input_arguments, *added, {});
      // copy_member added the reference from SecurityAdmin's shape only; this one is the Method's.
      const node_index copied = as.find(child_id_of_input_arguments);
      if (copied != no_node) as.add_reference(*added, r.type, copied);
    }
  }
  return *added;
}

void set_property(address_space& as, node_index n, variant v) {
  if (n == no_node) return;
  data_value dv;
  dv.value = std::move(v);
  dv.has_value = true;
  as.set_value(n, std::move(dv));
}

}  // namespace

status_code role_set_object::sync(address_space& as, const role_registry& reg) {
  role_set_ = as.find(node_id(0, ids::server_server_capabilities_role_set));
  const node_index shape = as.find(node_id(0, ids::well_known_role_security_admin));
  if (role_set_ == no_node || shape == no_node) {
    role_set_ = no_node;
    return status::bad_node_id_unknown;
  }
  // The Objects of plant roles that are gone (a reload), with their members.
  for (auto it = added_objects_.begin(); it != added_objects_.end();) {
    const node_id id = as.at(*it).id.to_node_id();
    if (as.at(*it).removed || reg.find(id)) {
      ++it;
      continue;
    }
    std::vector<node_index> doomed{*it};
    for (std::size_t k = 0; k < doomed.size(); ++k)
      for (const reference& r : as.forward_references(doomed[k]))
        if (as.at(r.target).id.ns != 0 && std::find(doomed.begin(), doomed.end(), r.target) == doomed.end())
          doomed.push_back(r.target);
    for (const node_index n : doomed) as.remove_node(n);
    it = added_objects_.erase(it);
  }

  const node_index has_component = as.find(node_id(0, ids::has_component));
  const node_index has_type_definition = as.find(node_id(0, ids::has_type_definition));
  const node_index role_type = as.find(node_id(0, ids::role_type));
  roles_.clear();
  excludes_.clear();
  exclude_numeric_ = exclude_other_ids_ = false;
  exclude_strings_end_in_exclude_ = true;
  for (std::size_t i = 0; i < reg.roles().size(); ++i) {
    const role& r = reg.roles()[i];
    if (r.removed) continue;  // RemoveRole: its Object went above
    node_index object = as.find(r.id);
    if (object == no_node) {
      node_spec spec;
      spec.id = r.id;
      spec.cls = node_class::object;
      spec.browse_ns = r.id.namespace_index();
      spec.browse_name = r.name;
      const auto added = as.add_node(std::move(spec));
      if (!added) continue;
      object = *added;
      as.add_reference(role_set_, has_component, object);
      as.add_reference(object, has_type_definition, role_type);
      added_objects_.push_back(object);
    }
    for (std::size_t m = 0; m < std::size(role_member_names); ++m) {
      if (role_child(as, object, role_member_names[m]) != no_node) continue;
      const node_index from = role_child(as, shape, role_member_names[m]);
      if (from == no_node) continue;
      const node_id id = member_id(r, m);
      copy_member(as, from, id, object, input_arguments_id(id));
    }
    role_nodes nodes;
    nodes.role = static_cast<role_id>(i);
    nodes.identities = role_child(as, object, "Identities");
    nodes.applications = role_child(as, object, "Applications");
    nodes.applications_exclude = role_child(as, object, "ApplicationsExclude");
    nodes.endpoints = role_child(as, object, "Endpoints");
    nodes.endpoints_exclude = role_child(as, object, "EndpointsExclude");
    // What the session manager enforces, as Part 18 §4.4.1's properties say it.
    ua_array<extension_object> identities;
    for (const identity_rule& rule : r.identities) identities.push_back(extension_object(to_structure(rule)));
    set_property(as, nodes.identities, variant(std::move(identities)));
    ua_array<ua_string> apps;
    for (const std::string& a : r.applications) apps.push_back(ua_string(a));
    set_property(as, nodes.applications, variant(std::move(apps)));
    set_property(as, nodes.applications_exclude, variant(r.applications_exclude));
    ua_array<extension_object> endpoints;
    for (const endpoint_type& e : r.endpoints) endpoints.push_back(extension_object(e));
    set_property(as, nodes.endpoints, variant(std::move(endpoints)));
    set_property(as, nodes.endpoints_exclude, variant(r.endpoints_exclude));
    // Part 18 §4.4.1: Identities, Applications and Endpoints change by the methods only (their
    // CurrentWrite is false); the two exclude flags are written.
    for (const auto& [n, endpoints] : {std::pair{nodes.applications_exclude, false}, std::pair{nodes.endpoints_exclude, true}}) {
      if (n == no_node) continue;
      as.set_current_writable(n, true);
      excludes_[n] = exclude_property{nodes.role, endpoints};
      note_exclude_id(as.at(n).id.to_node_id());
    }
    roles_.emplace(object, nodes);
  }
  return status::good;
}

void role_set_object::note_exclude_id(const node_id& id) noexcept {
  switch (id.type()) {
    case node_id_type::numeric:
      exclude_numeric_lo_ = exclude_numeric_ ? std::min(exclude_numeric_lo_, id.numeric()) : id.numeric();
      exclude_numeric_hi_ = exclude_numeric_ ? std::max(exclude_numeric_hi_, id.numeric()) : id.numeric();
      if (!exclude_numeric_) exclude_numeric_ns_ = id.namespace_index();
      else if (exclude_numeric_ns_ != id.namespace_index()) exclude_numeric_ns_ = -1;
      exclude_numeric_ = true;
      break;
    case node_id_type::string:
      if (!id.text().ends_with("Exclude")) exclude_strings_end_in_exclude_ = false;
      break;
    default: exclude_other_ids_ = true; break;
  }
}

bool role_set_object::may_name_exclude(const node_id& id) const noexcept {
  if (excludes_.empty()) return false;
  switch (id.type()) {
    case node_id_type::numeric:
      return exclude_numeric_ && (exclude_numeric_ns_ < 0 || exclude_numeric_ns_ == id.namespace_index()) &&
             id.numeric() >= exclude_numeric_lo_ && id.numeric() <= exclude_numeric_hi_;
    case node_id_type::string: return !exclude_strings_end_in_exclude_ || id.text().ends_with("Exclude");
    default: return exclude_other_ids_;
  }
}

std::vector<permission_rule> role_set_object::default_rules(const address_space& as) const {
  std::vector<permission_rule> out;
  if (role_set_ == no_node) return out;
  // Opc.Ua.NodeIds.permissions.csv: RoleSet and the role Objects {Anonymous: Browse (1),
  // SecurityAdmin: 65423}; AddRole and RemoveRole {SecurityAdmin: 61455} [SigningRequired]; a
  // role's properties {SecurityAdmin: 59391} and methods {SecurityAdmin: 61455}, both
  // [SigningRequired, EncryptionRequired]. A rule covers the subtree below its node (a method's
  // InputArguments with it).
  const auto rule = [&](node_index n, std::uint32_t admin, std::uint16_t restrictions, std::vector<std::pair<role_id, std::uint32_t>> extra = {}) {
    permission_rule r;
    r.node = as.at(n).id.to_node_id().to_string();
    r.roles = std::move(extra);
    r.roles.emplace_back(well_known::security_admin, admin);
    r.restrictions = restrictions;
    r.where = "namespace 0's default of " + std::string(as.at(n).browse_name);
    out.push_back(std::move(r));
  };
  rule(role_set_, 65423, 0, {{well_known::anonymous, permission::browse}});
  for (const auto* name : {"AddRole", "RemoveRole"})
    if (const node_index m = role_child(as, role_set_, name); m != no_node) rule(m, 61455, restriction::signing_required);
  const std::uint16_t both = restriction::signing_required | restriction::encryption_required;
  // Every role Object below RoleSet, those of namespace 0 this server does not use included.
  for (const reference& o : as.forward_references(role_set_)) {
    if (as.at(o.target).cls != node_class::object || as.at(o.target).removed) continue;
    for (const reference& r : as.forward_references(o.target)) {
      const node_class cls = as.at(r.target).cls;
      if (as.at(r.target).removed) continue;
      if (cls == node_class::variable) rule(r.target, 59391, both);
      else if (cls == node_class::method) rule(r.target, 61455, both);
    }
  }
  return out;
}

status_code role_set_object::call(const role_caller& who, node_index object, node_index method,
                                  std::span<const variant> in, const address_space& as, const role_registry& current,
                                  std::shared_ptr<role_registry>& changed, ua_array<variant>* out) const {
  // Part 18 §4.2.2-4.2.3, §4.4.5-4.4.10: an administrator (SecurityAdmin), over an encrypted channel.
  if (!who.roles.has(well_known::security_admin)) return status::bad_user_access_denied;
  if (who.mode != message_security_mode::sign_and_encrypt) return status::bad_security_mode_insufficient;
  if (object == role_set_ && object != no_node) return call_role_set(method, in, as, current, changed, out);
  const auto found = roles_.find(object);
  if (found == roles_.end()) return status::bad_node_id_unknown;
  const role_id r = found->second.role;
  if (r >= current.roles().size()) return status::bad_node_id_unknown;
  // Part 18 §4.3 (1.05.06): "A Server shall not allow changes to the Roles Anonymous,
  // AuthenticatedUser and TrustedApplication" (the last is no role here, only a criteria type).
  if (r == well_known::anonymous || r == well_known::authenticated_user) return status::bad_request_not_allowed;
  const std::string_view name = as.at(method).browse_name;
  if (in.size() != 1) return in.empty() ? status::bad_arguments_missing : status::bad_too_many_arguments;
  auto next = std::make_shared<role_registry>(current);
  status_code sc = status::bad_method_invalid;
  if (name == "AddIdentity" || name == "RemoveIdentity") {
    const auto* eo = in[0].get_if<extension_object>();
    const auto* s = eo ? eo->get_if<identity_mapping_rule_type>() : nullptr;
    if (!s) return status::bad_type_mismatch;
    auto rule = from_structure(*s);
    if (!rule) return rule.error();
    sc = name == "AddIdentity" ? next->add_identity_rule(r, std::move(*rule)) : next->remove_identity_rule(r, *rule);
  } else if (name == "AddApplication" || name == "RemoveApplication") {
    const auto* uri = in[0].get_if<ua_string>();
    if (!uri) return status::bad_type_mismatch;
    sc = name == "AddApplication" ? next->add_application(r, std::string(uri->view()))
                                  : next->remove_application(r, uri->view());
  } else if (name == "AddEndpoint" || name == "RemoveEndpoint") {
    const auto* eo = in[0].get_if<extension_object>();
    const auto* e = eo ? eo->get_if<endpoint_type>() : nullptr;
    if (!e) return status::bad_type_mismatch;
    sc = name == "AddEndpoint" ? next->add_endpoint(r, *e) : next->remove_endpoint(r, *e);
  }
  if (sc.is_good()) changed = std::move(next);
  return sc;
}

namespace {

// Part 18 §4.2.2: a role's name becomes a BrowseName and a part of its NodeId (Role.<name>.<member>),
// so the plant file's rule for [[roles]] names holds here too: no spaces, '.', '/' or ';', at most
// 64 characters, printable.
bool role_set_valid_role_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F || ch == ' ' || ch == '.' || ch == '/' || ch == ';') return false;
  }
  return true;
}

}  // namespace

status_code role_set_object::call_role_set(node_index method, std::span<const variant> in, const address_space& as,
                                           const role_registry& current, std::shared_ptr<role_registry>& changed,
                                           ua_array<variant>* out) const {
  const std::string_view name = as.at(method).browse_name;
  if (name == "AddRole") {
    // AddRole(RoleName, NamespaceUri) -> RoleNodeId.
    if (in.size() != 2) return in.size() < 2 ? status::bad_arguments_missing : status::bad_too_many_arguments;
    const auto* role_name = in[0].get_if<ua_string>();
    const auto* uri = in[1].get_if<ua_string>();
    if (!role_name || (!uri && !in[1].empty())) return status::bad_type_mismatch;
    if (!role_set_valid_role_name(role_name->view())) return status::bad_invalid_argument;
    // A null or empty NamespaceUri: the server's own namespace (1). Namespace 0 is the OPC
    // Foundation's: its roles are the well-known ones, all there already.
    std::uint16_t ns = 1;
    if (uri && !uri->empty()) {
      ns = 0xFFFF;
      const node_index array = as.find(node_id(0, ids::server_namespace_array));
      if (const auto* v = array == no_node ? nullptr : as.variable(array))
        if (const auto* uris = v->value.value.get_if<ua_array<ua_string>>())
          for (std::size_t i = 1; i < uris->size(); ++i)
            if ((*uris)[i].view() == uri->view()) ns = static_cast<std::uint16_t>(i);
      if (ns == 0xFFFF) return status::bad_invalid_argument;
    }
    auto next = std::make_shared<role_registry>(current);
    const auto added = next->add_role(role_name->view(), ns);
    if (!added) return added.error();
    if (out) {
      out->clear();
      out->push_back(variant(next->at(*added).id));
    }
    changed = std::move(next);
    return status::good;
  }
  if (name == "RemoveRole") {
    if (in.size() != 1) return in.empty() ? status::bad_arguments_missing : status::bad_too_many_arguments;
    const auto* id = in[0].get_if<node_id>();
    if (!id) return status::bad_type_mismatch;
    const auto r = current.find(*id);
    if (!r) return status::bad_node_id_unknown;
    auto next = std::make_shared<role_registry>(current);
    if (const auto sc = next->remove_role(*r); sc.is_bad()) return sc;
    changed = std::move(next);
    return status::good;
  }
  return status::bad_method_invalid;
}

}  // namespace uactor::actors::authz
