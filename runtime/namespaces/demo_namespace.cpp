// docs/demo-namespace.md, built into the address space.
#include "runtime/namespaces/demo_namespace.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/server/node_builder.hpp"
#include "engine/server/server_object.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

constexpr std::uint16_t ns = demo_namespace_index;

// Namespace 0 (NodeIds.csv).
using ua::ids::objects_folder;
using ua::ids::organizes;
using ua::ids::has_component;
using ua::ids::base_object_type;
using ua::ids::folder_type;
using ua::ids::base_data_variable_type;

constexpr std::uint8_t read_only = 1;   // CurrentRead
// CurrentRead | CurrentWrite | StatusWrite | TimestampWrite (Part 3 §8.57): a client may write a
// value with its status and source timestamp, as reference servers grant for interop tests.
constexpr std::uint8_t read_write = 0x63;

node_id demo(std::string_view s) { return node_id::string(ns, s); }

void require(bool ok, std::string_view what) {
  if (!ok) throw std::logic_error("demo namespace: " + std::string(what));
}

qualified_name browse(std::string_view name, std::uint16_t in_ns = ns) { return qualified_name{in_ns, ua_string(name)}; }

// An Object with its type definition, referenced from its parent.
object_node object(const node_id& id, std::string_view name, std::uint32_t type_definition, const node_id& parent,
                   std::uint32_t parent_reference) {
  object_node o;
  o.id = id;
  o.browse_name = browse(name);
  o.type_definition = node_id(0, type_definition);
  o.parent = parent;
  o.reference_type = node_id(0, parent_reference);
  return o;
}

struct variable_def {
  node_id id;
  std::uint16_t browse_ns = ns;
  std::string_view name;
  std::uint32_t data_type = 24;
  std::int32_t value_rank = -1;
  std::uint8_t access = read_only;
  variant value;
  std::uint32_t type_definition = base_data_variable_type;
};

variable_node variable(variable_def d, const node_id& parent, std::uint32_t parent_reference) {
  variable_node v;
  v.id = d.id;
  v.browse_name = browse(d.name, d.browse_ns);
  v.parent = parent;
  v.reference_type = node_id(0, parent_reference);
  v.type_definition = node_id(0, d.type_definition);
  v.data_type = node_id(0, d.data_type);
  v.value_rank = d.value_rank;
  if (d.value_rank == 1) v.array_dimensions = {0};  // one dimension of any length
  v.access_level = d.access;
  v.value.set_value(std::move(d.value));  // stamped with the time it is added
  return v;
}

date_time utc(std::int64_t unix_ms) { return date_time::from_unix_ms(unix_ms); }
constexpr std::int64_t ms_2000 = 946'684'800'000;   // 2000-01-01T00:00:00Z
constexpr std::int64_t ms_2026 = 1'767'225'600'000;  // 2026-01-01T00:00:00Z

constexpr guid demo_guid{0x72962B91u, 0xFA75u, 0x4AE6u, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};

expanded_node_id expanded(node_id id) { return expanded_node_id{std::move(id), {}, 0}; }
qualified_name qname(std::uint16_t i, std::string_view n) { return qualified_name{i, ua_string(n)}; }
localized_text text(std::string_view locale, std::string_view t) { return localized_text{ua_string(locale), ua_string(t)}; }
byte_string bytes(std::string_view b) { return byte_string(b); }

// The table of "Static variables": name, DataType, scalar value, array value.
struct static_def {
  std::string_view name;
  std::uint32_t data_type;
  variant scalar;
  variant array;
};

std::vector<static_def> static_variables() {
  using std::int16_t, std::int32_t, std::int64_t, std::int8_t, std::uint16_t, std::uint32_t, std::uint64_t,
      std::uint8_t;
  std::vector<static_def> v;
  v.push_back({"Boolean", 1, true, ua_array<bool>{true, false, true}});
  v.push_back({"SByte", 2, int8_t{-100}, ua_array<int8_t>{-128, 0, 127}});
  v.push_back({"Byte", 3, uint8_t{200}, ua_array<uint8_t>{0, 128, 255}});
  v.push_back({"Int16", 4, int16_t{-30000}, ua_array<int16_t>{-32768, 0, 32767}});
  v.push_back({"UInt16", 5, uint16_t{60000}, ua_array<uint16_t>{0, 1, 65535}});
  v.push_back({"Int32", 6, int32_t{-2'000'000'000},
               ua_array<int32_t>{std::numeric_limits<int32_t>::min(), 0, std::numeric_limits<int32_t>::max()}});
  v.push_back({"UInt32", 7, uint32_t{4'000'000'000u}, ua_array<uint32_t>{0, 1, 4'294'967'295u}});
  v.push_back({"Int64", 8, int64_t{-9'000'000'000'000'000'000},
               ua_array<int64_t>{std::numeric_limits<int64_t>::min(), 0, std::numeric_limits<int64_t>::max()}});
  v.push_back({"UInt64", 9, uint64_t{18'000'000'000'000'000'000u},
               ua_array<uint64_t>{0, 1, std::numeric_limits<uint64_t>::max()}});
  v.push_back({"Float", 10, 3.5f, ua_array<float>{-1.5f, 0.0f, 1.5f}});
  v.push_back({"Double", 11, 2.718281828459045, ua_array<double>{-1.25, 0.0, 1.25}});
  v.push_back({"String", 12, ua_string("uactor"), ua_array<ua_string>{ua_string("a"), ua_string(""), ua_string("\xC3\xBC")}});
  v.push_back({"DateTime", 13, utc(ms_2026), ua_array<date_time>{utc(ms_2000), utc(ms_2026)}});
  v.push_back({"Guid", 14, demo_guid, ua_array<guid>{guid{}, demo_guid}});
  v.push_back({"ByteString", 15, bytes(std::string_view("\x01\x02\x03\x04", 4)),
               ua_array<byte_string>{bytes(std::string_view("\x00", 1)), bytes("\xFF\xFE")}});
  v.push_back({"XmlElement", 16, xml_element("<a>uactor</a>"), ua_array<xml_element>{xml_element("<a/>"), xml_element("<b/>")}});
  v.push_back({"NodeId", 17, demo("the.answer"), ua_array<node_id>{node_id(0, 85), node_id(ns, 1000)}});
  v.push_back({"ExpandedNodeId", 18, expanded(demo("the.answer")),
               ua_array<expanded_node_id>{expanded(node_id(0, 85)), expanded(node_id(ns, 1000))}});
  v.push_back({"StatusCode", 19, status::bad_node_id_unknown, ua_array<status_code>{status::good, status::bad_node_id_unknown}});
  v.push_back({"QualifiedName", 20, qname(1, "uactor"), ua_array<qualified_name>{qname(0, "a"), qname(1, "b")}});
  v.push_back({"LocalizedText", 21, text("en", "uactor"), ua_array<localized_text>{text("en", "one"), text("de", "zwei")}});
  // A Variant variable: DataType BaseDataType, so a value of any type may be written.
  v.push_back({"Variant", 24, int32_t{7}, ua_array<variant>{variant(int32_t{1}), variant(ua_string("two"))}});
  return v;
}

// An Argument of a scalar DataType (Part 3 §8.6).
argument arg(std::string_view name, std::uint32_t data_type) {
  argument a;
  a.name = ua_string(name);
  a.data_type = node_id(0, data_type);
  a.value_rank = -1;
  a.array_dimensions.set_null();
  return a;
}

// A Method of `parent` with its 0:InputArguments and 0:OutputArguments properties, whose NodeIds
// are `property_base` + ".InputArguments" / ".OutputArguments".
method_node method(const node_id& id, std::string_view name, const node_id& parent, std::string_view property_base,
                   std::vector<argument> inputs, std::vector<argument> outputs) {
  method_node m;
  m.id = id;
  m.browse_name = browse(name);
  m.parent = parent;
  m.reference_type = node_id(0, has_component);
  m.inputs = std::move(inputs);
  m.outputs = std::move(outputs);
  m.arguments_id_base = demo(property_base);
  return m;
}

// The implementations. Call has checked the inputs' count and types, so the get_ifs hold.
status_code add(std::span<const variant> in, std::vector<variant>& out) {
  out.emplace_back(*in[0].get_if<double>() + *in[1].get_if<double>());
  return status::good;
}

status_code echo(std::span<const variant> in, std::vector<variant>& out) {
  out.assign(in.begin(), in.end());
  return status::good;
}

status_code hello_world(std::span<const variant> in, std::vector<variant>& out) {
  std::string greeting = "Hello ";
  greeting += in[0].get_if<ua_string>()->view();  // a null String greets nobody: "Hello "
  out.emplace_back(ua_string(greeting));
  return status::good;
}

}  // namespace

std::vector<node_change> demo_nodes(date_time now) {
  const node_id objects(0, objects_folder);
  std::vector<node_change> nodes;
  nodes.push_back(object(demo("Demo"), "Demo", folder_type, objects, organizes));
  nodes.push_back(object(demo("Demo.Static"), "Static", folder_type, demo("Demo"), organizes));
  nodes.push_back(object(demo("Demo.Static.Scalar"), "Scalar", folder_type, demo("Demo.Static"), organizes));
  nodes.push_back(object(demo("Demo.Static.Array"), "Array", folder_type, demo("Demo.Static"), organizes));
  nodes.push_back(object(demo("Demo.Dynamic"), "Dynamic", folder_type, demo("Demo"), organizes));
  nodes.push_back(object(demo("Demo.Methods"), "Methods", base_object_type, demo("Demo"), has_component));
  nodes.push_back(object(node_id(ns, 1000), "InteropTests", base_object_type, objects, organizes));

  for (static_def& s : static_variables()) {
    const std::string name(s.name);
    variable_def scalar{demo("Demo.Static.Scalar." + name), ns, s.name, s.data_type, -1, read_write,
                        std::move(s.scalar), base_data_variable_type};
    nodes.push_back(variable(std::move(scalar), demo("Demo.Static.Scalar"), has_component));
    variable_def array{demo("Demo.Static.Array." + name), ns, s.name, s.data_type, 1, read_write,
                       std::move(s.array), base_data_variable_type};
    nodes.push_back(variable(std::move(array), demo("Demo.Static.Array"), has_component));
  }

  // The writer's variables at tick 0.
  nodes.push_back(variable({demo("Demo.Dynamic.Counter"), ns, "Counter", 7, -1, read_only, std::uint32_t{0}},
                           demo("Demo.Dynamic"), has_component));
  nodes.push_back(variable({demo("Demo.Dynamic.Sine"), ns, "Sine", 11, -1, read_only, 0.0}, demo("Demo.Dynamic"),
                           has_component));
  nodes.push_back(variable({demo("Demo.Dynamic.Time"), ns, "Time", 13, -1, read_only, now},
                           demo("Demo.Dynamic"), has_component));

  nodes.push_back(variable({demo("the.answer"), ns, "the.answer", 6, -1, read_only, std::int32_t{43}}, demo("Demo"),
                           has_component));

  nodes.push_back(method(demo("Demo.Methods.Add"), "Add", demo("Demo.Methods"), "Demo.Methods.Add",
                         {arg("a", 11), arg("b", 11)}, {arg("sum", 11)}));
  nodes.push_back(method(demo("Demo.Methods.Echo"), "Echo", demo("Demo.Methods"), "Demo.Methods.Echo",
                         {arg("text", 12), arg("number", 6)}, {arg("text", 12), arg("number", 6)}));
  nodes.push_back(method(node_id(ns, 62541), "HelloWorld", node_id(ns, 1000), "HelloWorld", {arg("name", 12)},
                         {arg("greeting", 12)}));
  return nodes;
}

std::vector<demo_method> demo_methods() {
  return {{demo("Demo.Methods.Add"), add}, {demo("Demo.Methods.Echo"), echo}, {node_id(ns, 62541), hello_world}};
}

void add_demo_namespace(address_space& as, services::method_table& methods, date_time now, const demo_options&) {
  require(as.find(node_id(0, objects_folder)) != no_node, "namespace 0 is not loaded");
  for (const node_change& c : demo_nodes(now)) {
    const status_code sc = apply_node_change(as, c, now);
    require(sc.is_good(), "a node: " + sc.to_string());
  }
  for (auto& m : demo_methods()) methods.add(m.method, std::move(m.run));
}

demo_writer::demo_writer(const address_space& as)
    : counter_(as.find(demo("Demo.Dynamic.Counter"))),
      sine_(as.find(demo("Demo.Dynamic.Sine"))),
      time_(as.find(demo("Demo.Dynamic.Time"))) {
  require(counter_ != no_node && sine_ != no_node && time_ != no_node, "no Demo.Dynamic variables");
}

demo_writer::demo_writer(value_handle counter, value_handle sine, value_handle time)
    : counter_(counter.index), sine_(sine.index), time_(time.index) {}

std::array<node_id, 3> demo_writer::variables() {
  return {demo("Demo.Dynamic.Counter"), demo("Demo.Dynamic.Sine"), demo("Demo.Dynamic.Time")};
}

std::array<value_update, 3> demo_writer::values(std::uint64_t tick, date_time now) const {
  // Scalars of these types live inside the Variant: building them allocates nothing. tick % 60
  // keeps the sine's argument small, so the period stays exact for any tick count.
  return {value_update{{counter_}, variant(static_cast<std::uint32_t>(tick)), {}, now},
          value_update{{sine_}, variant(std::sin(2 * std::numbers::pi * static_cast<double>(tick % 60) / 60.0)), {}, now},
          value_update{{time_}, variant(now), {}, now}};
}

void demo_writer::step(address_space& as, std::uint64_t tick, date_time now) const {
  for (auto& u : values(tick, now)) {
    data_value dv;
    dv.value = std::move(u.value);
    dv.has_value = true;
    dv.source_timestamp = dv.server_timestamp = now;
    dv.has_source_timestamp = dv.has_server_timestamp = true;
    as.set_value(u.node.index, std::move(dv));
  }
}

server_core make_demo_server_core(server_core_config config, const std::string& software_version, ua::date_time now,
                                  const demo_options& options) {
  auto core = make_server_core(std::move(config), software_version, now, options.namespace_uri);
  services::method_table methods;
  add_demo_namespace(core.space(), methods, now, options);
  core.set_methods(std::move(methods));
  return core;
}

}  // namespace uactor::actors
