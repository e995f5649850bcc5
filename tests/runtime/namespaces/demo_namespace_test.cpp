// Tests of the demo namespace against docs/demo-namespace.md, row by row: every node with its class,
// browse name, DataType, ValueRank, ArrayDimensions, access levels, value, type definition and the
// reference from its parent; the methods through the Call service; the writer's step.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/services/call.hpp"
#include "engine/server/services/read.hpp"
#include "engine/server/services/write.hpp"
#include "protocol/codec.hpp"
#include "uactor/ua/status_codes.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::ua;

namespace {

constexpr date_time now{133'000'000'000'000'000};

struct demo_fixture {
  address_space as;
  services::method_table methods;
  demo_fixture() {
    load_namespace0(as);
    actors::add_demo_namespace(as, methods, now);
  }
};

// Built once; the tests that change a store build their own.
demo_fixture& shared() {
  static demo_fixture f;
  return f;
}

node_id demo(std::string_view s) { return node_id::string(1, s); }

// Whether `source` has a forward reference of exactly `type` (ns=0) to `target`.
bool has_reference(const address_space& as, const node_id& source, std::uint32_t type, const node_id& target) {
  const node_index s = as.find(source), t = as.find(target), r = as.find(node_id(0, type));
  if (s == no_node || t == no_node || r == no_node) return false;
  for (const reference& x : as.forward_references(s))
    if (x.type == r && x.target == t) return true;
  return false;
}

std::uint32_t type_definition_of(const address_space& as, const node_id& id) {
  const node_index n = as.find(id);
  const node_index htd = as.find(node_id(0, 40));
  for (const reference& x : as.forward_references(n))
    if (x.type == htd) return as.at(x.target).id.numeric;
  return 0;
}

date_time utc(std::int64_t unix_ms) { return date_time::from_unix_ms(unix_ms); }
constexpr guid g{0x72962B91u, 0xFA75u, 0x4AE6u, {0x8D, 0x28, 0xB4, 0x04, 0xDC, 0x7D, 0xAF, 0x63}};
expanded_node_id x(node_id id) { return expanded_node_id{std::move(id), {}, 0}; }

// docs/demo-namespace.md, "Static variables".
struct static_row {
  std::string name;
  std::uint32_t data_type;
  variant scalar;
  variant array;
};

std::vector<static_row> static_rows() {
  return {
      {"Boolean", 1, true, ua_array<bool>{true, false, true}},
      {"SByte", 2, std::int8_t{-100}, ua_array<std::int8_t>{-128, 0, 127}},
      {"Byte", 3, std::uint8_t{200}, ua_array<std::uint8_t>{0, 128, 255}},
      {"Int16", 4, std::int16_t{-30000}, ua_array<std::int16_t>{-32768, 0, 32767}},
      {"UInt16", 5, std::uint16_t{60000}, ua_array<std::uint16_t>{0, 1, 65535}},
      {"Int32", 6, std::int32_t{-2000000000}, ua_array<std::int32_t>{-2147483647 - 1, 0, 2147483647}},
      {"UInt32", 7, std::uint32_t{4000000000u}, ua_array<std::uint32_t>{0, 1, 4294967295u}},
      {"Int64", 8, std::int64_t{-9000000000000000000}, ua_array<std::int64_t>{-9223372036854775807 - 1, 0, 9223372036854775807}},
      {"UInt64", 9, std::uint64_t{18000000000000000000u}, ua_array<std::uint64_t>{0, 1, 18446744073709551615u}},
      {"Float", 10, 3.5f, ua_array<float>{-1.5f, 0.0f, 1.5f}},
      {"Double", 11, 2.718281828459045, ua_array<double>{-1.25, 0.0, 1.25}},
      {"String", 12, ua_string("uactor"), ua_array<ua_string>{ua_string("a"), ua_string(""), ua_string("\xC3\xBC")}},
      {"DateTime", 13, utc(1767225600000), ua_array<date_time>{utc(946684800000), utc(1767225600000)}},
      {"Guid", 14, g, ua_array<guid>{guid{}, g}},
      {"ByteString", 15, byte_string(std::string_view("\x01\x02\x03\x04", 4)),
       ua_array<byte_string>{byte_string(std::string_view("\0", 1)), byte_string("\xFF\xFE")}},
      {"XmlElement", 16, xml_element("<a>uactor</a>"), ua_array<xml_element>{xml_element("<a/>"), xml_element("<b/>")}},
      {"NodeId", 17, demo("the.answer"), ua_array<node_id>{node_id(0, 85), node_id(1, 1000)}},
      {"ExpandedNodeId", 18, x(demo("the.answer")), ua_array<expanded_node_id>{x(node_id(0, 85)), x(node_id(1, 1000))}},
      {"StatusCode", 19, status_code{0x80340000u}, ua_array<status_code>{status_code{0}, status_code{0x80340000u}}},
      {"QualifiedName", 20, qualified_name{1, ua_string("uactor")},
       ua_array<qualified_name>{qualified_name{0, ua_string("a")}, qualified_name{1, ua_string("b")}}},
      {"LocalizedText", 21, localized_text{ua_string("en"), ua_string("uactor")},
       ua_array<localized_text>{localized_text{ua_string("en"), ua_string("one")},
                                localized_text{ua_string("de"), ua_string("zwei")}}},
      {"Variant", 24, std::int32_t{7}, ua_array<variant>{variant(std::int32_t{1}), variant(ua_string("two"))}},
  };
}

// A Variable as the doc describes it.
struct variable_row {
  node_id id;
  node_id parent;
  std::uint16_t browse_ns;
  std::string browse_name;
  std::uint32_t data_type;
  std::int32_t value_rank;
  std::uint8_t access;
  variant value;  // empty: not checked here
  std::uint32_t type_definition = 63;
  std::uint32_t parent_reference = 47;  // HasComponent
};

void check_variable(const address_space& as, const variable_row& row) {
  INFO(row.id.to_string());
  const node_index n = as.find(row.id);
  REQUIRE(n != no_node);
  const node& x = as.at(n);
  CHECK(x.cls == node_class::variable);
  CHECK(x.browse_ns == row.browse_ns);
  CHECK(x.browse_name == row.browse_name);
  const variable_data* v = as.variable(n);
  REQUIRE(v);
  CHECK(v->data_type.to_node_id() == node_id(0, row.data_type));
  CHECK(v->value_rank == row.value_rank);
  if (row.value_rank == 1) {
    CHECK(v->array_dimensions == ua_array<std::uint32_t>{0});
  } else {
    CHECK(v->array_dimensions.empty());
  }
  CHECK(v->access_level == row.access);
  CHECK(v->user_access_level == row.access);
  CHECK(v->value.has_value);
  CHECK(v->value.has_source_timestamp);
  CHECK(v->value.source_timestamp == now);
  CHECK(v->value.has_server_timestamp);
  CHECK(v->value.server_timestamp == now);
  if (!row.value.empty()) CHECK(v->value.value == row.value);
  CHECK(type_definition_of(as, row.id) == row.type_definition);
  CHECK(has_reference(as, row.parent, row.parent_reference, row.id));
}

call_method_result call(const node_id& object, const node_id& method, std::vector<variant> inputs) {
  call_request req;
  call_method_request m;
  m.object_id = object;
  m.method_id = method;
  m.input_arguments.assign(inputs.begin(), inputs.end());
  req.methods_to_call = {m};
  call_response resp;
  services::service_call(req, resp, shared().as, shared().methods, now);  // the demo methods change nothing
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 1);
  return resp.results[0];
}

}  // namespace

TEST_CASE("demo namespace: the folders and objects of the doc, with their type definitions and parents", "[actors]") {
  const auto& as = shared().as;
  struct row {
    node_id id;
    std::string name;
    std::uint32_t type_definition;
    node_id parent;
    std::uint32_t reference;
  };
  const std::vector<row> rows = {
      {demo("Demo"), "Demo", 61, node_id(0, 85), 35},
      {demo("Demo.Static"), "Static", 61, demo("Demo"), 35},
      {demo("Demo.Static.Scalar"), "Scalar", 61, demo("Demo.Static"), 35},
      {demo("Demo.Static.Array"), "Array", 61, demo("Demo.Static"), 35},
      {demo("Demo.Dynamic"), "Dynamic", 61, demo("Demo"), 35},
      {demo("Demo.Methods"), "Methods", 58, demo("Demo"), 47},
      {node_id(1, 1000), "InteropTests", 58, node_id(0, 85), 35},
  };
  for (const row& r : rows) {
    INFO(r.id.to_string());
    const node_index n = as.find(r.id);
    REQUIRE(n != no_node);
    CHECK(as.at(n).cls == node_class::object);
    CHECK(as.at(n).browse_ns == 1);
    CHECK(as.at(n).browse_name == r.name);
    CHECK(type_definition_of(as, r.id) == r.type_definition);
    CHECK(has_reference(as, r.parent, r.reference, r.id));
    data_value dn;
    REQUIRE(as.read(n, attribute_id::display_name, dn).is_good());
    CHECK(dn.value.get_if<localized_text>()->text.view() == r.name);  // the browse name, for browsing clients
  }
}

TEST_CASE("demo namespace: every static scalar and array variable of the doc, writable, with its value", "[actors]") {
  const auto& as = shared().as;
  const auto rows = static_rows();
  REQUIRE(rows.size() == 22);
  constexpr std::uint8_t writable = 0x63;  // CurrentRead | CurrentWrite | StatusWrite | TimestampWrite, as the doc says
  for (const static_row& r : rows) {
    check_variable(as, {demo("Demo.Static.Scalar." + r.name), demo("Demo.Static.Scalar"), 1, r.name, r.data_type, -1,
                        writable, r.scalar});
    check_variable(as, {demo("Demo.Static.Array." + r.name), demo("Demo.Static.Array"), 1, r.name, r.data_type, 1,
                        writable, r.array});
  }
}

TEST_CASE("demo namespace: the dynamic variables and the.answer are read-only, with their initial values", "[actors]") {
  const auto& as = shared().as;
  check_variable(as, {demo("Demo.Dynamic.Counter"), demo("Demo.Dynamic"), 1, "Counter", 7, -1, 1, std::uint32_t{0}});
  check_variable(as, {demo("Demo.Dynamic.Sine"), demo("Demo.Dynamic"), 1, "Sine", 11, -1, 1, 0.0});
  check_variable(as, {demo("Demo.Dynamic.Time"), demo("Demo.Dynamic"), 1, "Time", 13, -1, 1, now});
  check_variable(as, {demo("the.answer"), demo("Demo"), 1, "the.answer", 6, -1, 1, std::int32_t{43}});
}

TEST_CASE("demo namespace: the methods, their parents and their argument properties", "[actors]") {
  const auto& as = shared().as;
  struct method_row {
    node_id id;
    std::string name;
    node_id parent;
    std::string property_base;
    std::vector<std::pair<std::string, std::uint32_t>> inputs, outputs;
  };
  const std::vector<method_row> rows = {
      {demo("Demo.Methods.Add"), "Add", demo("Demo.Methods"), "Demo.Methods.Add", {{"a", 11}, {"b", 11}}, {{"sum", 11}}},
      {demo("Demo.Methods.Echo"), "Echo", demo("Demo.Methods"), "Demo.Methods.Echo", {{"text", 12}, {"number", 6}},
       {{"text", 12}, {"number", 6}}},
      {node_id(1, 62541), "HelloWorld", node_id(1, 1000), "HelloWorld", {{"name", 12}}, {{"greeting", 12}}},
  };
  for (const method_row& m : rows) {
    INFO(m.id.to_string());
    const node_index n = as.find(m.id);
    REQUIRE(n != no_node);
    CHECK(as.at(n).cls == node_class::method);
    CHECK(as.at(n).browse_ns == 1);
    CHECK(as.at(n).browse_name == m.name);
    CHECK(as.at(n).executable);
    CHECK(as.at(n).user_executable);
    CHECK(has_reference(as, m.parent, 47, m.id));
    CHECK(shared().methods.find(m.id) != nullptr);
    for (const auto& [property, args] : {std::pair{"InputArguments", m.inputs}, std::pair{"OutputArguments", m.outputs}}) {
      const node_id pid = demo(m.property_base + "." + property);
      check_variable(as, {pid, m.id, 0, property, 296, 1, 1, {}, 68, 46});
      const auto* value = as.variable(as.find(pid))->value.value.get_if<ua_array<extension_object>>();
      REQUIRE(value);
      REQUIRE(value->size() == args.size());
      for (std::size_t i = 0; i < args.size(); ++i) {
        const auto* a = (*value)[i].get_if<argument>();
        REQUIRE(a);
        CHECK(a->name.view() == args[i].first);
        CHECK(a->data_type == node_id(0, args[i].second));
        CHECK(a->value_rank == -1);
      }
    }
  }
}

TEST_CASE("demo namespace: HelloWorld, Add and Echo answer through the Call service", "[actors]") {
  auto hello = call(node_id(1, 1000), node_id(1, 62541), {ua_string("x")});
  REQUIRE(hello.status_code == status::good);
  REQUIRE(hello.output_arguments.size() == 1);
  CHECK(hello.output_arguments[0].get_if<ua_string>()->view() == "Hello x");

  auto sum = call(demo("Demo.Methods"), demo("Demo.Methods.Add"), {1.5, 2.0});
  REQUIRE(sum.status_code == status::good);
  REQUIRE(sum.output_arguments.size() == 1);
  CHECK(*sum.output_arguments[0].get_if<double>() == 3.5);

  auto echo = call(demo("Demo.Methods"), demo("Demo.Methods.Echo"), {ua_string("ping"), std::int32_t{-7}});
  REQUIRE(echo.status_code == status::good);
  REQUIRE(echo.output_arguments.size() == 2);
  CHECK(echo.output_arguments[0].get_if<ua_string>()->view() == "ping");
  CHECK(*echo.output_arguments[1].get_if<std::int32_t>() == -7);

  // The doc's call checks, on the demo methods.
  CHECK(call(demo("Demo.Methods"), demo("Demo.Methods.Add"), {1.5}).status_code == status::bad_arguments_missing);
  CHECK(call(demo("Demo.Methods"), demo("Demo.Methods.Add"), {1.5, 2.0, 3.0}).status_code == status::bad_too_many_arguments);
  const auto mistyped = call(demo("Demo.Methods"), demo("Demo.Methods.Add"), {1.5, std::int32_t{2}});
  CHECK(mistyped.status_code == status::bad_invalid_argument);
  CHECK(mistyped.input_argument_results == ua_array<status_code>{status::good, status::bad_type_mismatch});
  CHECK(call(node_id(1, 1000), demo("Demo.Methods.Add"), {1.5, 2.0}).status_code == status::bad_method_invalid);
  CHECK(call(demo("Demo.Nope"), demo("Demo.Methods.Add"), {1.5, 2.0}).status_code == status::bad_node_id_unknown);
}

TEST_CASE("demo namespace: each value reads, survives the binary codec, and a static one writes back", "[actors]") {
  demo_fixture f;
  std::vector<node_id> ids = {demo("Demo.Dynamic.Counter"), demo("Demo.Dynamic.Sine"), demo("Demo.Dynamic.Time"),
                              demo("the.answer"), demo("Demo.Methods.Add.InputArguments"),
                              demo("HelloWorld.OutputArguments")};
  for (const static_row& r : static_rows()) {
    ids.push_back(demo("Demo.Static.Scalar." + r.name));
    ids.push_back(demo("Demo.Static.Array." + r.name));
  }
  for (const node_id& id : ids) {
    INFO(id.to_string());
    read_value_id rv;
    rv.node_id = id;
    rv.attribute_id = static_cast<std::uint32_t>(attribute_id::value);
    data_value read;
    services::read_operation(rv, timestamps_to_return::both, f.as, now, read);
    REQUIRE_FALSE(read.has_status);
    const auto bytes = encode_to_bytes(read);
    data_value decoded;
    REQUIRE(decode_from_bytes(bytes, decoded).is_good());
    CHECK(decoded == read);
    write_value wv;
    wv.node_id = id;
    wv.attribute_id = rv.attribute_id;
    wv.value.set_value(read.value);
    const bool is_static = id.text().starts_with("Demo.Static.");
    CHECK(services::write_operation(wv, f.as, now) == (is_static ? status::good : status::bad_not_writable));
  }
  // The Variant variable takes a value of another type; a typed one does not.
  write_value wv;
  wv.attribute_id = static_cast<std::uint32_t>(attribute_id::value);
  wv.node_id = demo("Demo.Static.Scalar.Variant");
  wv.value.set_value(ua_string("now a string"));
  CHECK(services::write_operation(wv, f.as, now) == status::good);
  wv.node_id = demo("Demo.Static.Scalar.Int32");
  CHECK(services::write_operation(wv, f.as, now) == status::bad_type_mismatch);
}

TEST_CASE("demo namespace: added twice, or without namespace 0, is a start-up error", "[actors]") {
  address_space empty;
  services::method_table methods;
  CHECK_THROWS_AS(actors::add_demo_namespace(empty, methods, now), std::logic_error);
  demo_fixture f;
  CHECK_THROWS_AS(actors::add_demo_namespace(f.as, f.methods, now), std::logic_error);
}

TEST_CASE("demo writer: a step sets Counter, Sine and Time with the tick's time as source timestamp", "[actors]") {
  demo_fixture f;
  const actors::demo_writer writer(f.as);
  const auto value = [&](std::string_view name) -> const data_value& {
    return f.as.variable(f.as.find(demo(name)))->value;
  };
  const date_time t1{now.ticks + date_time::ticks_per_second};
  writer.step(f.as, 15, t1);
  CHECK(*value("Demo.Dynamic.Counter").value.get_if<std::uint32_t>() == 15);
  CHECK(*value("Demo.Dynamic.Sine").value.get_if<double>() == Approx(1.0));  // sin(2π·15/60)
  CHECK(*value("Demo.Dynamic.Time").value.get_if<date_time>() == t1);
  for (const auto* name : {"Demo.Dynamic.Counter", "Demo.Dynamic.Sine", "Demo.Dynamic.Time"}) {
    INFO(name);
    CHECK(value(name).has_source_timestamp);
    CHECK(value(name).source_timestamp == t1);
  }
  writer.step(f.as, 60 + 45, t1);  // one period later, three quarters in
  CHECK(*value("Demo.Dynamic.Counter").value.get_if<std::uint32_t>() == 105);
  CHECK(*value("Demo.Dynamic.Sine").value.get_if<double>() == Approx(-1.0));
  writer.step(f.as, std::uint64_t{1} << 32, t1);  // the UInt32 counter wraps
  CHECK(*value("Demo.Dynamic.Counter").value.get_if<std::uint32_t>() == 0);
  CHECK(*value("Demo.Dynamic.Sine").value.get_if<double>() == Approx(std::sin(2 * std::numbers::pi * (4294967296 % 60) / 60.0)));

  address_space empty;
  CHECK_THROWS_AS(actors::demo_writer(empty), std::logic_error);
}

TEST_CASE("demo writer: steps after the first allocate nothing", "[actors]") {
  if (!test::counts_allocations) {
    WARN("skipped: allocations are not counted in a sanitizer build");
    return;
  }
  demo_fixture f;
  const actors::demo_writer writer(f.as);
  writer.step(f.as, 1, now);
  const test::alloc_scope scope;
  for (std::uint64_t tick = 2; tick < 1000; ++tick) writer.step(f.as, tick, date_time{now.ticks + static_cast<std::int64_t>(tick)});
  CHECK(scope.counted().allocations == 0);
  CHECK(*f.as.variable(f.as.find(demo("Demo.Dynamic.Counter")))->value.value.get_if<std::uint32_t>() == 999);
}
