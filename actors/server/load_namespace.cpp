// docs/demo-namespace.md, "Load variables", built into the address space.
#include "actors/server/load_namespace.hpp"

#include <stdexcept>

#include "actors/server/demo_namespace.hpp"
#include "protocol/generated/node_ids.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::logic_error("load namespace: " + what);
}

void link(address_space& as, node_index source, std::uint32_t type, node_index target) {
  require(as.add_reference(source, as.find(node_id(0, type)), target).is_good(), "a reference");
}

}  // namespace

std::string load_variable_name(std::size_t i) { return "Load.V" + std::to_string(i); }

void add_load_namespace(address_space& as, std::size_t count, date_time now) {
  const auto objects = as.find(node_id(0, ids::objects_folder));
  require(objects != no_node, "namespace 0 is not loaded");
  as.reserve(as.size() + count + 1, as.variable_count() + count);

  node_spec folder;
  folder.id = node_id::string(demo_namespace_index, "Load");
  folder.cls = node_class::object;
  folder.browse_ns = demo_namespace_index;
  folder.browse_name = "Load";
  const auto load = as.add_node(std::move(folder));
  require(load.has_value(), "the folder ns=1;s=Load exists already");
  link(as, *load, ids::has_type_definition, as.find(node_id(0, ids::folder_type)));
  link(as, objects, ids::organizes, *load);

  const auto type_definition = as.find(node_id(0, ids::base_data_variable_type));
  for (std::size_t i = 0; i < count; ++i) {
    const auto name = load_variable_name(i);
    node_spec s;
    s.id = node_id::string(demo_namespace_index, name);
    s.cls = node_class::variable;
    s.browse_ns = demo_namespace_index;
    s.browse_name = std::string_view(name).substr(5);  // V<i>
    s.data_type = node_id(0, ids::u_int32);
    s.access_level = s.user_access_level = 1;  // CurrentRead
    s.value.set_value(std::uint32_t{0});
    s.value.source_timestamp = s.value.server_timestamp = now;
    s.value.has_source_timestamp = s.value.has_server_timestamp = true;
    const auto n = as.add_node(std::move(s));
    require(n.has_value(), "variable ns=1;s=" + name);
    link(as, *n, ids::has_type_definition, type_definition);
    link(as, *load, ids::has_component, *n);
  }
}

load_writer::load_writer(const address_space& as, std::size_t count) {
  nodes_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto n = as.find(node_id::string(demo_namespace_index, load_variable_name(i)));
    require(n != no_node, "no variable ns=1;s=" + load_variable_name(i));
    nodes_.push_back(n);
  }
}

void load_writer::step(address_space& as, std::uint64_t tick, date_time now) const {
  // A UInt32 lives inside the Variant: building and moving it allocates nothing.
  for (const node_index n : nodes_) {
    data_value dv;
    dv.value = variant(static_cast<std::uint32_t>(tick));
    dv.has_value = true;
    dv.source_timestamp = dv.server_timestamp = now;
    dv.has_source_timestamp = dv.has_server_timestamp = true;
    as.set_value(n, std::move(dv));
  }
}

}  // namespace uactor::actors
