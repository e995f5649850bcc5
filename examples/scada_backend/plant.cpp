#include "plant.hpp"

namespace scada {
namespace {

using uactor::node_id;

// Namespace 0 DataTypes the plant uses.
const node_id& boolean_type = uactor::ns0::boolean;
const node_id& uint32_type = uactor::ns0::uint32;
const node_id& double_type = uactor::ns0::double_;

uactor::qualified_name browse(std::uint16_t ns, const std::string& name) {
  return uactor::qualified_name{ns, uactor::ua::ua_string(std::string_view(name))};
}

uactor::localized_text text(const char* s) {
  return uactor::localized_text{uactor::ua::ua_string(std::string_view("en")), uactor::ua::ua_string(std::string_view(s))};
}

uactor::variable_node variable(const node_id& id, const node_id& parent, std::uint16_t ns, const std::string& name,
                               const node_id& data_type, uactor::variant initial) {
  uactor::variable_node v;
  v.id = id;
  v.parent = parent;
  v.browse_name = browse(ns, name);
  v.data_type = data_type;
  v.value.set_value(std::move(initial));
  return v;
}

uactor::object_node object(const node_id& id, const node_id& parent, std::uint16_t ns, const std::string& name,
                           const char* description) {
  uactor::object_node o;
  o.id = id;
  o.parent = parent;
  o.browse_name = browse(ns, name);
  o.description = text(description);
  return o;
}

}  // namespace

plant_ids::plant_ids(std::uint16_t n, const options& o) : ns(n) {
  plant = id("Plant");
  device = id("Plant.Device");
  running = id("Plant.Device.Running");
  pushes = id("Plant.Device.Pushes");
  slow_device = id("Plant.SlowDevice");
  temperature = id("Plant.SlowDevice.Temperature");
  pump = id("Plant.Pump");
  start_pump = id("Plant.Pump.StartPump");
  pump_speed = id("Plant.Pump.Speed");
  tags.reserve(o.tags);
  for (std::uint32_t i = 0; i < o.tags; ++i) tags.push_back(id("Plant.Tag" + std::to_string(i)));
  setpoints.reserve(o.setpoints);
  for (std::uint32_t i = 0; i < o.setpoints; ++i) setpoints.push_back(id("Plant.Setpoint" + std::to_string(i)));
}

node_id plant_ids::id(const std::string& s) const { return node_id::string(ns, s); }

std::vector<uactor::node_change> plant_nodes(const plant_ids& ids, const options& o) {
  const std::uint16_t ns = ids.ns;
  std::vector<uactor::node_change> nodes;
  nodes.reserve(ids.tags.size() + ids.setpoints.size() + 12);

  nodes.push_back(uactor::folder(ids.plant, uactor::ns0::objects_folder, "Plant"));

  // The device's tags: read-only, their values come from the device thread (device.cpp).
  for (std::uint32_t i = 0; i < ids.tags.size(); ++i) {
    auto v = variable(ids.tags[i], ids.plant, ns, "Tag" + std::to_string(i), double_type, 0.0);
    v.access_level = uactor::access::read;
    nodes.push_back(std::move(v));
  }

  // Setpoints: a client writes them, the backend checks the range before it takes the value
  // (main.cpp, on_write). The EURange property tells clients the range up front.
  for (std::uint32_t i = 0; i < ids.setpoints.size(); ++i) {
    auto v = variable(ids.setpoints[i], ids.plant, ns, "Setpoint" + std::to_string(i), double_type, 50.0);
    v.access_level = uactor::access::read_write;
    v.range = uactor::eu_range{setpoint_low, setpoint_high};
    v.description = text("A setpoint, accepted in 0..100");
    nodes.push_back(std::move(v));
  }

  nodes.push_back(object(ids.device, ids.plant, ns, "Device", "The simulated device that owns the tags"));
  {
    auto v = variable(ids.running, ids.device, ns, "Running", boolean_type, !o.paused);
    v.access_level = uactor::access::read_write;
    v.description = text("true: the device pushes its tags; false: paused");
    nodes.push_back(std::move(v));
  }
  {
    auto v = variable(ids.pushes, ids.device, ns, "Pushes", uint32_type, std::uint32_t{0});
    v.description = text("Batches pushed; each tag's value is this count");
    nodes.push_back(std::move(v));
  }

  // A value that lives in a slow device: no value is stored ahead, every Read asks (on_read).
  nodes.push_back(object(ids.slow_device, ids.plant, ns, "SlowDevice", "A device on a slow line"));
  {
    auto v = variable(ids.temperature, ids.slow_device, ns, "Temperature", double_type, 0.0);
    v.description = text("Read through to the device: each Read waits for its answer");
    v.minimum_sampling_interval = static_cast<double>(o.slow_read.count());
    v.units = uactor::engineering_units{};
    v.units->unit_id = 4408652;  // UNECE "CEL", degree Celsius
    v.units->display_name = text("\xC2\xB0" "C");
    v.units->description = text("degree Celsius");
    nodes.push_back(std::move(v));
  }

  nodes.push_back(object(ids.pump, ids.plant, ns, "Pump", "A pump started by a method call"));
  {
    uactor::method_node m;
    m.id = ids.start_pump;
    m.parent = ids.pump;
    m.browse_name = browse(ns, "StartPump");
    m.description = text("Starts the pump at Speed rpm (0..3000)");
    m.inputs.push_back(uactor::method_argument("Speed", double_type));
    m.outputs.push_back(uactor::method_argument("Started", boolean_type));
    nodes.push_back(std::move(m));
  }
  nodes.push_back(variable(ids.pump_speed, ids.pump, ns, "Speed", double_type, 0.0));
  return nodes;
}

}  // namespace scada
