// docs/demo-namespace.md, "Load variables", built into the address space.
#include "runtime/namespaces/load_namespace.hpp"

#include <charconv>
#include <stdexcept>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/node_builder.hpp"
#include "uactor/ua/node_ids.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

void require_load(bool ok, const std::string& what) {
  if (!ok) throw std::logic_error("load namespace: " + what);
}

}  // namespace

std::string load_variable_name(std::size_t i) { return "Load.V" + std::to_string(i); }

std::optional<std::size_t> load_variable_index(const node_id& id, std::size_t count) {
  if (id.namespace_index() != demo_namespace_index || id.type() != node_id_type::string) return std::nullopt;
  const std::string_view text = id.text();
  const std::string_view prefix = "Load.V";
  if (!text.starts_with(prefix)) return std::nullopt;
  std::size_t i = 0;
  const auto* first = text.data() + prefix.size();
  const auto* last = text.data() + text.size();
  if (const auto [end, ec] = std::from_chars(first, last, i); ec != std::errc{} || end != last) return std::nullopt;
  // Only the spelling load_variable_name writes (no sign, no leading zeros).
  if (i >= count || load_variable_name(i) != text) return std::nullopt;
  return i;
}

object_node load_folder() {
  return folder(node_id::string(demo_namespace_index, "Load"), node_id(0, ids::objects_folder), "Load");
}

variable_node load_variable(std::size_t i) {
  const auto name = load_variable_name(i);
  variable_node v;
  v.id = node_id::string(demo_namespace_index, name);
  v.parent = node_id::string(demo_namespace_index, "Load");
  v.reference_type = node_id(0, ids::has_component);
  v.browse_name = qualified_name{demo_namespace_index, ua_string(std::string_view(name).substr(5))};  // V<i>
  v.data_type = node_id(0, ids::u_int32);
  v.access_level = access::read;
  v.value.set_value(std::uint32_t{0});
  return v;
}

std::vector<node_change> load_nodes(std::size_t count) {
  std::vector<node_change> nodes;
  nodes.reserve(count + 1);
  nodes.push_back(load_folder());
  for (std::size_t i = 0; i < count; ++i) nodes.push_back(load_variable(i));
  return nodes;
}

void add_load_namespace(address_space& as, std::size_t count, date_time now) {
  require_load(as.find(node_id(0, ids::objects_folder)) != no_node, "namespace 0 is not loaded");
  as.reserve(as.size() + count + 1, as.variable_count() + count);
  for (const node_change& c : load_nodes(count)) {
    const status_code sc = apply_node_change(as, c, now);
    require_load(sc.is_good(), "a node exists already or is refused: " + sc.to_string());
  }
}

load_writer::load_writer(const address_space& as, std::size_t count) {
  nodes_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto n = as.find(node_id::string(demo_namespace_index, load_variable_name(i)));
    require_load(n != no_node, "no variable ns=1;s=" + load_variable_name(i));
    nodes_.push_back(n);
  }
}

load_writer::load_writer(std::span<const value_handle> handles) {
  for (const value_handle h : handles) nodes_.push_back(h.index);
}

void load_writer::values(std::uint64_t tick, date_time now, std::vector<value_update>& out) const {
  out.resize(nodes_.size());  // capacity kept between ticks
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    out[i] = value_update{{nodes_[i]}, variant(static_cast<std::uint32_t>(tick)), {}, now};
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
