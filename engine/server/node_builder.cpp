// The application's nodes into the address space (include/uactor/nodes.hpp, docs/embedding.md).
#include "engine/server/node_builder.hpp"

#include <string>
#include <vector>

#include "engine/server/services/write.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

constexpr int max_instance_depth = 16;  // nested instance declarations; deeper is a loop in the model

node_index find_ns0(const address_space& as, std::uint32_t id) { return as.find(node_id(0, id)); }

bool is_class(const address_space& as, node_index n, node_class c) { return n != no_node && as.at(n).cls == c; }

void common(node_spec& s, const node_base& b, node_class cls) {
  s.id = b.id;
  s.cls = cls;
  s.browse_ns = b.browse_name.namespace_index;
  s.browse_name = b.browse_name.name.view();
  if (!b.display_name.text.is_null()) s.display_name = text_view{b.display_name.locale.view(), b.display_name.text.view()};
  if (!b.description.text.is_null()) s.description = text_view{b.description.locale.view(), b.description.text.view()};
  s.write_mask = b.write_mask;
}

data_value stamped(data_value v, date_time now) {
  if (!v.has_source_timestamp) {
    v.source_timestamp = now;
    v.has_source_timestamp = true;
  }
  if (!v.has_server_timestamp) {
    v.server_timestamp = now;
    v.has_server_timestamp = true;
  }
  return v;
}

// Where a node hangs: its parent and the reference from it, checked before anything is added.
struct placement {
  node_index parent = no_node;
  node_index reference = no_node;
};

status_code place(const address_space& as, const node_base& b, std::uint32_t default_reference, placement& out) {
  if (b.parent.is_null()) return status::good;
  out.parent = as.find(b.parent);
  if (out.parent == no_node) return status::bad_parent_node_id_invalid;
  out.reference = b.reference_type.is_null() ? find_ns0(as, default_reference) : as.find(b.reference_type);
  if (!is_class(as, out.reference, node_class::reference_type) || as.at(out.reference).is_abstract)
    return status::bad_reference_type_id_invalid;
  return status::good;
}

std::uint32_t default_reference_for(const address_space& as, const node_base& b, const node_id& type_definition) {
  if (type_definition == node_id(0, ids::property_type)) return ids::has_property;
  const node_index parent = b.parent.is_null() ? no_node : as.find(b.parent);
  if (type_definition == node_id(0, ids::folder_type)) return ids::organizes;
  // Objects in a folder are organized by it (Part 5 §6.2: Objects and its subfolders).
  if (parent != no_node && as.at(parent).cls == node_class::object) {
    const node_index folder = find_ns0(as, ids::folder_type);
    for (const reference& r : as.forward_references(parent))
      if (r.type == find_ns0(as, ids::has_type_definition) && as.is_subtype_of(r.target, folder)) return ids::organizes;
  }
  return ids::has_component;
}

void link(address_space& as, node_index source, std::uint32_t type, node_index target) {
  as.add_reference(source, find_ns0(as, type), target);
}

void link_rule(address_space& as, node_index n, modelling_rule rule) {
  if (rule == modelling_rule::mandatory) link(as, n, ids::has_modelling_rule, find_ns0(as, ids::modelling_rule_mandatory));
  if (rule == modelling_rule::optional) link(as, n, ids::has_modelling_rule, find_ns0(as, ids::modelling_rule_optional));
}

// A property (Part 3 §5.6.3) of `owner`: PropertyType, HasProperty, browse name in namespace 0.
void add_property(address_space& as, node_index owner, std::string_view name, std::uint32_t data_type,
                  std::int32_t value_rank, variant value, date_time now, const node_id& id_base = {}) {
  const node_id owner_id = id_base.is_null() ? as.at(owner).id.to_node_id() : id_base;
  node_spec s;
  s.id = child_node_id(owner_id, name);
  s.cls = node_class::variable;
  s.browse_ns = 0;
  s.browse_name = name;
  s.data_type = node_id(0, data_type);
  s.value_rank = value_rank;
  if (value_rank == 1) s.array_dimensions = {0};
  data_value dv;
  dv.set_value(std::move(value));
  s.value = stamped(std::move(dv), now);
  const auto p = as.add_node(std::move(s));
  if (!p) return;
  link(as, *p, ids::has_type_definition, find_ns0(as, ids::property_type));
  link(as, owner, ids::has_property, *p);
}

// The target of n's first forward reference of `type`, or no_node.
node_index first_target(const address_space& as, node_index n, std::uint32_t type) {
  const node_index t = find_ns0(as, type);
  for (const reference& r : as.forward_references(n))
    if (r.type == t) return r.target;
  return no_node;
}

bool is_mandatory(const address_space& as, node_index declaration) {
  return first_target(as, declaration, ids::has_modelling_rule) == find_ns0(as, ids::modelling_rule_mandatory);
}

bool has_child_named(const address_space& as, node_index n, const node& like) {
  for (const reference& r : as.forward_references(n)) {
    const node& c = as.at(r.target);
    if (c.browse_ns == like.browse_ns && c.browse_name == like.browse_name && r.is_forward) return true;
  }
  return false;
}

// The optional instance declarations an application asked for by browse name (object_node::optional).
using optional_names = std::vector<qualified_name>;

bool is_requested(const address_space& as, node_index declaration, const optional_names* optional) {
  if (!optional || optional->empty()) return false;
  if (first_target(as, declaration, ids::has_modelling_rule) != find_ns0(as, ids::modelling_rule_optional)) return false;
  const node& d = as.at(declaration);
  for (const qualified_name& q : *optional)
    if (q.namespace_index == d.browse_ns && q.name.view() == d.browse_name) return true;
  return false;
}

void instantiate(address_space& as, node_index instance, node_index declarations_of, int depth,
                 const optional_names* optional = nullptr);

// A copy of instance declaration d under `instance` (same class, names, attributes, type
// definition; no modelling rule), then its own mandatory children. A Method is not copied: the
// instance references the type's Method node (Part 3 §6.4.2 lets them be shared).
void copy_declaration(address_space& as, node_index instance, const reference& from_type, int depth) {
  const node_index d = from_type.target;
  const node& decl = as.at(d);
  if (decl.cls == node_class::method) {
    as.add_reference(instance, from_type.type, d);
    return;
  }
  node_spec s;
  s.id = child_node_id(as.at(instance).id.to_node_id(), decl.browse_name);
  s.cls = decl.cls;
  s.browse_ns = decl.browse_ns;
  s.browse_name = decl.browse_name;
  s.display_name = decl.display_name;
  s.description = decl.description;
  s.write_mask = decl.write_mask;
  s.event_notifier = decl.event_notifier;
  if (const variable_data* v = as.variable(d)) {
    s.value = v->value;
    s.data_type = v->data_type.to_node_id();
    s.value_rank = v->value_rank;
    s.array_dimensions = v->array_dimensions;
    s.access_level = v->access_level;
    s.user_access_level = v->user_access_level;
    s.minimum_sampling_interval = v->minimum_sampling_interval;
    s.historizing = v->historizing;
  }
  const auto copy = as.add_node(std::move(s));
  if (!copy) return;  // the id is taken: the application added that child itself
  const node_index type_definition = first_target(as, d, ids::has_type_definition);
  if (type_definition != no_node) link(as, *copy, ids::has_type_definition, type_definition);
  as.add_reference(instance, from_type.type, *copy);
  instantiate(as, *copy, d, depth + 1);  // the declaration's nested declarations
  if (type_definition != no_node) instantiate(as, *copy, type_definition, depth + 1);
}

// Copies into `instance` the mandatory instance declarations of `declarations_of` (a type, or an
// instance declaration) and, for a type, of its supertypes and of the interfaces each of them
// references with HasInterface (Part 3 §4.10.2: an interface's declarations belong to the fully
// inherited InstanceDeclarationHierarchy of the ObjectType); a browse name already present wins,
// so the type's own declarations come before its interfaces' and a subtype's before its
// supertype's.
void instantiate(address_space& as, node_index instance, node_index declarations_of, int depth,
                 const optional_names* optional) {
  if (depth > max_instance_depth) return;
  const node_index has_subtype = find_ns0(as, ids::has_subtype);
  const node_index has_interface = find_ns0(as, ids::has_interface);
  const node_index hierarchical = find_ns0(as, ids::hierarchical_references);
  const bool is_type = as.at(declarations_of).cls == node_class::object_type ||
                       as.at(declarations_of).cls == node_class::variable_type;
  for (node_index t = declarations_of; t != no_node; t = is_type ? as.super_type(t) : no_node) {
    // Copy first: instantiating adds references to `instance`, not to t, but t may be instance.
    std::vector<reference> children;
    for (const reference& r : as.forward_references(t))
      if (r.type != has_subtype && as.is_subtype_of(r.type, hierarchical) &&
          (is_mandatory(as, r.target) || is_requested(as, r.target, optional)))
        children.push_back(r);
    for (const reference& r : children)
      if (!has_child_named(as, instance, as.at(r.target))) copy_declaration(as, instance, r, depth);
    if (is_type && has_interface != no_node) {
      std::vector<node_index> interfaces;
      for (const reference& r : as.forward_references(t))
        if (as.is_subtype_of(r.type, has_interface) && is_class(as, r.target, node_class::object_type))
          interfaces.push_back(r.target);
      for (const node_index i : interfaces) instantiate(as, instance, i, depth + 1, optional);
    }
    if (++depth > max_instance_depth) return;
  }
}

status_code check_type_definition(const address_space& as, const node_id& type, node_class expected,
                                  node_index& out) {
  out = as.find(type);
  return is_class(as, out, expected) ? status::good : status::bad_type_definition_invalid;
}

status_code check_data_type(const address_space& as, const node_id& data_type) {
  return is_class(as, as.find(data_type), node_class::data_type) ? status::good : status::bad_node_attributes_invalid;
}

template <class Node>
ua_array<std::uint32_t> dimensions(const Node& n) {
  return ua_array<std::uint32_t>(std::vector<std::uint32_t>(n.array_dimensions.begin(), n.array_dimensions.end()));
}

// Adds the node of `s` under its placement with its type definition and rule.
expected<node_index> add_placed(address_space& as, node_spec&& s, const placement& p, node_index type_definition,
                                modelling_rule rule) {
  auto n = as.add_node(std::move(s));
  if (!n) return n;
  if (type_definition != no_node) link(as, *n, ids::has_type_definition, type_definition);
  if (p.parent != no_node) as.add_reference(p.parent, p.reference, *n);
  link_rule(as, *n, rule);
  return n;
}

status_code add(address_space& as, const object_node& o, date_time) {
  node_index type = no_node;
  if (auto sc = check_type_definition(as, o.type_definition, node_class::object_type, type); sc.is_bad()) return sc;
  placement p;
  if (auto sc = place(as, o, default_reference_for(as, o, o.type_definition), p); sc.is_bad()) return sc;
  node_spec s;
  common(s, o, node_class::object);
  s.event_notifier = o.event_notifier;
  auto n = add_placed(as, std::move(s), p, type, o.rule);
  if (!n) return n.error();
  instantiate(as, *n, type, 0, &o.optional);
  return status::good;
}

status_code add(address_space& as, const variable_node& v, date_time now) {
  node_index type = no_node;
  if (auto sc = check_type_definition(as, v.type_definition, node_class::variable_type, type); sc.is_bad()) return sc;
  if (auto sc = check_data_type(as, v.data_type); sc.is_bad()) return sc;
  if (v.value.has_value && !services::value_fits(as, v.value.value, v.data_type, v.value_rank))
    return status::bad_type_mismatch;
  placement p;
  if (auto sc = place(as, v, default_reference_for(as, v, v.type_definition), p); sc.is_bad()) return sc;
  node_spec s;
  common(s, v, node_class::variable);
  s.data_type = v.data_type;
  s.value_rank = v.value_rank;
  s.array_dimensions = dimensions(v);
  s.access_level = s.user_access_level = v.access_level;
  s.minimum_sampling_interval = v.minimum_sampling_interval;
  s.historizing = v.historizing;
  s.value = stamped(v.value, now);
  auto n = add_placed(as, std::move(s), p, type, v.rule);
  if (!n) return n.error();
  if (v.range) add_property(as, *n, "EURange", ids::range, -1, extension_object(range{v.range->low, v.range->high}), now);
  if (v.units) {
    eu_information eu;
    eu.namespace_uri = ua_string(v.units->namespace_uri);
    eu.unit_id = v.units->unit_id;
    eu.display_name = v.units->display_name;
    eu.description = v.units->description;
    add_property(as, *n, "EngineeringUnits", ids::eu_information, -1, extension_object(std::move(eu)), now);
  }
  instantiate(as, *n, type, 0);
  return status::good;
}

// A type hangs under its supertype by HasSubtype (Part 3 §7.10).
template <class Type>
status_code add_type(address_space& as, const Type& t, node_class cls, node_spec&& s) {
  const node_index super = as.find(t.super_type);
  if (!is_class(as, super, cls)) return status::bad_parent_node_id_invalid;
  common(s, t, cls);
  s.is_abstract = t.is_abstract;
  auto n = as.add_node(std::move(s));
  if (!n) return n.error();
  link(as, super, ids::has_subtype, *n);
  return status::good;
}

status_code add(address_space& as, const object_type_node& t, date_time) {
  return add_type(as, t, node_class::object_type, node_spec{});
}

status_code add(address_space& as, const variable_type_node& t, date_time now) {
  if (auto sc = check_data_type(as, t.data_type); sc.is_bad()) return sc;
  node_spec s;
  s.data_type = t.data_type;
  s.value_rank = t.value_rank;
  s.array_dimensions = dimensions(t);
  if (t.value.has_value) s.value = stamped(t.value, now);
  return add_type(as, t, node_class::variable_type, std::move(s));
}

status_code add(address_space& as, const method_node& m, date_time now) {
  placement p;
  if (auto sc = place(as, m, ids::has_component, p); sc.is_bad()) return sc;
  node_spec s;
  common(s, m, node_class::method);
  auto n = add_placed(as, std::move(s), p, no_node, m.rule);
  if (!n) return n.error();
  const auto arguments = [&](std::string_view name, const std::vector<ua::argument>& args) {
    if (args.empty()) return;
    ua_array<extension_object> value;
    for (const ua::argument& a : args) value.emplace_back(ua::argument(a));
    add_property(as, *n, name, ids::argument, 1, std::move(value), now, m.arguments_id_base);
  };
  arguments("InputArguments", m.inputs);
  arguments("OutputArguments", m.outputs);
  return status::good;
}

status_code add(address_space& as, const reference_node& r, date_time) {
  const node_index type = as.find(r.type);
  if (!is_class(as, type, node_class::reference_type)) return status::bad_reference_type_id_invalid;
  return as.add_reference(r.source, r.type, r.target);
}

// The children n owns: targets of its HasComponent / HasProperty (and subtypes) that no other
// node references hierarchically.
void owned_children(const address_space& as, node_index n, std::vector<node_index>& out, int depth) {
  if (depth > max_instance_depth) return;
  const node_index aggregates = find_ns0(as, ids::aggregates);
  const node_index hierarchical = find_ns0(as, ids::hierarchical_references);
  for (const reference& r : as.forward_references(n)) {
    if (!as.is_subtype_of(r.type, aggregates)) continue;
    bool shared = false;
    for (const reference& back : as.inverse_references(r.target))
      shared = shared || (back.target != n && as.is_subtype_of(back.type, hierarchical));
    if (shared) continue;
    out.push_back(r.target);
    owned_children(as, r.target, out, depth + 1);
  }
}

status_code add(address_space& as, const node_removal& r, date_time) {
  const node_index n = as.find(r.id);
  if (n == no_node) return status::bad_node_id_unknown;
  if (r.id.namespace_index() == 0) return status::bad_no_delete_rights;
  std::vector<node_index> doomed;
  if (r.with_children) owned_children(as, n, doomed, 0);
  as.remove_node(n);
  for (const node_index c : doomed) as.remove_node(c);  // those removed twice (a shared child) say so
  return status::good;
}

}  // namespace

node_id child_node_id(const node_id& parent, std::string_view browse_name) {
  std::string prefix;
  switch (parent.type()) {
    case node_id_type::string: prefix = std::string(parent.text()); break;
    case node_id_type::numeric: prefix = std::to_string(parent.numeric()); break;
    default: prefix = parent.to_string(); break;
  }
  prefix += '.';
  prefix += browse_name;
  return node_id::string(parent.namespace_index(), prefix);
}

status_code apply_node_change(address_space& as, const node_change& change, date_time now) {
  return std::visit([&](const auto& c) { return add(as, c, now); }, change);
}

}  // namespace uactor::actors
