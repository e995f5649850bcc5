// Part 5 §6.3.13-6.3.14: the NamespaceMetadata Objects (namespace_metadata.hpp).
#include "engine/server/access/namespace_metadata.hpp"

#include <string_view>

#include "engine/server/access/roles.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::actors::authz {

using namespace uactor::ua;

namespace access_namespace_metadata {

// Part 5 Table 23 (NamespaceMetadataType): the DataTypes of the Properties made here.
constexpr std::uint32_t string_type = 12, date_time_type = 13, boolean_type = 1, id_type = 256,
                        numeric_range_type = 291, role_permission_type_id = 96, access_restriction_type = 95;

node_index child_named(const address_space& as, node_index parent, std::string_view name) {
  for (const reference& r : as.forward_references(parent))
    if (!as.at(r.target).removed && as.at(r.target).browse_ns == 0 && as.at(r.target).browse_name == name)
      return r.target;
  return no_node;
}

node_index add_property(address_space& as, node_index parent, const node_id& id, std::string_view name,
                        std::uint32_t data_type, std::int32_t value_rank, variant value) {
  node_spec spec;
  spec.id = id;
  spec.cls = node_class::variable;
  spec.browse_ns = 0;
  spec.browse_name = name;
  spec.data_type = node_id(0, data_type);
  spec.value_rank = value_rank;
  if (value_rank == 1) spec.array_dimensions = {0};
  if (!value.empty()) spec.value.set_value(std::move(value));
  const auto added = as.add_node(std::move(spec));
  if (!added) return as.find(id);
  as.add_reference(parent, as.find(node_id(0, ids::has_property)), *added);
  as.add_reference(*added, as.find(node_id(0, ids::has_type_definition)), as.find(node_id(0, ids::property_type)));
  return *added;
}

std::string_view namespace_uri_of(const address_space& as, node_index object) {
  const node_index p = child_named(as, object, "NamespaceUri");
  const variable_data* v = p == no_node ? nullptr : as.variable(p);
  const auto* s = v ? v->value.value.get_if<ua_string>() : nullptr;
  return s ? s->view() : std::string_view{};
}

void set_value_of(address_space& as, node_index n, variant v) {
  if (n == no_node) return;
  data_value dv;
  if (!v.empty()) dv.set_value(std::move(v));
  else dv.has_value = true;  // null: no default
  as.set_value(n, std::move(dv));
}

}  // namespace access_namespace_metadata

void namespace_metadata::sync(address_space& as, std::span<const namespace_model> models) {
  using namespace access_namespace_metadata;
  namespaces_.clear();
  const node_index folder = as.find(node_id(0, ids::server_namespaces));
  const node_index array = as.find(node_id(0, ids::server_namespace_array));
  const variable_data* av = array == no_node ? nullptr : as.variable(array);
  const auto* array_value = av ? av->value.value.get_if<ua_array<ua_string>>() : nullptr;
  if (folder == no_node || !array_value || array_value->size() < 2) return;  // ns=1;s=... needs namespace 1
  // A copy: the Properties added below may move the store's Variables.
  std::vector<std::string> uris;
  for (const ua_string& u : *array_value) uris.emplace_back(u.view());

  const node_index has_component = as.find(node_id(0, ids::has_component));
  const node_index has_type_definition = as.find(node_id(0, ids::has_type_definition));
  const node_index metadata_type = as.find(node_id(0, ids::namespace_metadata_type));
  for (std::size_t k = 0; k < uris.size(); ++k) {
    const std::string_view uri = uris[k];
    const auto ns = static_cast<std::uint16_t>(k);
    node_index object = no_node;
    for (const reference& r : as.forward_references(folder))
      if (!as.at(r.target).removed && as.at(r.target).cls == node_class::object && namespace_uri_of(as, r.target) == uri) {
        object = r.target;
        break;
      }
    const std::string base = "Namespaces." + std::string(uri);
    const auto id_of = [&](std::string_view member) { return node_id::string(1, base + "." + std::string(member)); };
    if (object == no_node) {
      node_spec spec;
      spec.id = node_id::string(1, base);
      spec.cls = node_class::object;
      spec.browse_ns = ns;
      spec.browse_name = uri;
      const auto added = as.add_node(std::move(spec));
      if (!added) continue;
      object = *added;
      as.add_reference(folder, has_component, object);
      as.add_reference(object, has_type_definition, metadata_type);
      // Part 5 §6.3.13: the mandatory Properties. A namespace the server makes up as it runs (the
      // plant's, a mirror's) has no version, publication date nor static NodeIds to promise.
      std::string version;
      date_time published{};
      for (const namespace_model& m : models)
        if (m.uri == uri) {
          version = m.version;
          published = m.publication_date;
        }
      add_property(as, object, id_of("NamespaceUri"), "NamespaceUri", string_type, -1, variant(ua_string(uri)));
      add_property(as, object, id_of("NamespaceVersion"), "NamespaceVersion", string_type, -1,
                   variant(ua_string(version)));
      add_property(as, object, id_of("NamespacePublicationDate"), "NamespacePublicationDate", date_time_type, -1,
                   variant(published));
      add_property(as, object, id_of("IsNamespaceSubset"), "IsNamespaceSubset", boolean_type, -1, variant(false));
      ua_array<std::int32_t> no_types;
      no_types.set_not_null();
      add_property(as, object, id_of("StaticNodeIdTypes"), "StaticNodeIdTypes", id_type, 1, variant(std::move(no_types)));
      ua_array<ua_string> no_ranges;
      no_ranges.set_not_null();
      add_property(as, object, id_of("StaticNumericNodeIdRange"), "StaticNumericNodeIdRange", numeric_range_type, 1,
                   variant(std::move(no_ranges)));
      add_property(as, object, id_of("StaticStringNodeIdPattern"), "StaticStringNodeIdPattern", string_type, -1,
                   variant(ua_string("")));
    }
    namespace_nodes nodes;
    nodes.ns = ns;
    nodes.object = object;
    nodes.role_permissions = child_named(as, object, "DefaultRolePermissions");
    if (nodes.role_permissions == no_node)
      nodes.role_permissions = add_property(as, object, id_of("DefaultRolePermissions"), "DefaultRolePermissions",
                                            role_permission_type_id, 1, variant());
    nodes.user_role_permissions = child_named(as, object, "DefaultUserRolePermissions");
    if (nodes.user_role_permissions == no_node)
      nodes.user_role_permissions = add_property(as, object, id_of("DefaultUserRolePermissions"),
                                                 "DefaultUserRolePermissions", role_permission_type_id, 1, variant());
    nodes.access_restrictions = child_named(as, object, "DefaultAccessRestrictions");
    if (nodes.access_restrictions == no_node)
      nodes.access_restrictions = add_property(as, object, id_of("DefaultAccessRestrictions"),
                                               "DefaultAccessRestrictions", access_restriction_type, -1, variant());
    namespaces_.push_back(nodes);
  }
}

std::vector<permission_rule> namespace_metadata::default_rules(const address_space& as) const {
  std::vector<permission_rule> out;
  const auto rule = [&](node_index n, std::uint32_t everyone) {
    if (n == no_node || as.at(n).removed) return;
    permission_rule r;
    r.node = as.at(n).id.to_node_id().to_string();
    r.subtree = false;
    r.roles = {{well_known::anonymous, everyone}, {well_known::security_admin, permission::all}};
    r.where = "the default of NamespaceMetadata " + std::string(as.at(n).browse_name);
    out.push_back(std::move(r));
  };
  for (const namespace_nodes& m : namespaces_) {
    rule(m.object, permission::browse | permission::read);
    for (const reference& r : as.forward_references(m.object)) {
      if (as.at(r.target).cls != node_class::variable || as.at(r.target).removed) continue;
      rule(r.target, r.target == m.role_permissions ? permission::browse : permission::browse | permission::read);
    }
  }
  return out;
}

void namespace_metadata::publish(address_space& as, permission_table& table) const {
  using namespace access_namespace_metadata;
  std::vector<std::pair<node_index, std::uint16_t>> user_defaults;
  for (const namespace_nodes& m : namespaces_) {
    const permission_table::entry* e = table.namespace_entry(m.ns);
    variant role_permissions, restrictions;
    if (e) {
      ua_array<extension_object> list;
      list.set_not_null();
      e->listed.each([&](role_id r) {
        role_permission_type rp;
        rp.role_id = table.role_node(r);
        rp.permissions = static_cast<permission_type>(e->by_role[r]);
        list.emplace_back(std::move(rp));
      });
      role_permissions = variant(std::move(list));
      restrictions = variant(std::uint16_t{e->restrictions});
    }
    set_value_of(as, m.role_permissions, std::move(role_permissions));
    set_value_of(as, m.access_restrictions, std::move(restrictions));
    // The stored value is what a data item samples; a Read answers each session its own.
    set_value_of(as, m.user_role_permissions, variant());
    if (m.user_role_permissions != no_node) user_defaults.emplace_back(m.user_role_permissions, m.ns);
  }
  table.set_user_defaults(std::move(user_defaults));
}

}  // namespace uactor::actors::authz
