// Tests of the Write service (Part 4 §5.10.4) over namespace 0 and the demo nodes: access levels,
// the type check against DataType and ValueRank, IndexRange writes, status and timestamps, and the
// attributes the WriteMask lets be written.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server/services/read.hpp"
#include "engine/server/services/write.hpp"
#include "nodeset/importer.hpp"
#include "uactor/ua/status_codes.hpp"
#include "tests/engine/read_fixture.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_write_service_test {

using namespace uactor;
using namespace uactor::ua;
using services::service_write;

namespace {

constexpr date_time now{133'000'000'000'000'000};

write_value value_of(node_id id, variant v, std::string_view range = {}) {
  write_value w;
  w.node_id = std::move(id);
  w.attribute_id = static_cast<std::uint32_t>(attribute_id::value);
  w.value.set_value(std::move(v));
  if (!range.empty()) w.index_range = ua_string(range);
  return w;
}

status_code write_one(address_space& as, write_value w) {
  write_request req;
  req.nodes_to_write = {std::move(w)};
  write_response resp;
  service_write(req, resp, as, now);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 1);
  return resp.results[0];
}

data_value read_value(const address_space& as, const node_id& id, attribute_id a = attribute_id::value) {
  read_value_id r;
  r.node_id = id;
  r.attribute_id = static_cast<std::uint32_t>(a);
  data_value out;
  services::read_operation(r, timestamps_to_return::both, as, now, out);
  return out;
}

std::vector<std::int32_t> ints(const data_value& v) {
  const auto* a = v.value.get_if<ua_array<std::int32_t>>();
  REQUIRE(a);
  return {a->begin(), a->end()};
}

}  // namespace

TEST_CASE("write: a value of the variable's type is written and read back with a server timestamp", "[services]") {
  auto as = test::demo_address_space();
  const auto arr = test::demo("demo.int32_array");
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{5, 6, 7})) == status::good);
  const auto back = read_value(as, arr);
  CHECK(ints(back) == std::vector<std::int32_t>{5, 6, 7});
  CHECK(back.has_source_timestamp);
  CHECK(back.source_timestamp == now);
  CHECK(write_one(as, value_of(test::demo("demo.int32"), std::int32_t{-3})) == status::good);
  CHECK(*read_value(as, test::demo("demo.int32")).value.get_if<std::int32_t>() == -3);
}

TEST_CASE("write: a value of another type or rank gets Bad_TypeMismatch and changes nothing", "[services]") {
  auto as = test::demo_address_space();
  const auto arr = test::demo("demo.int32_array");
  const auto scalar = test::demo("demo.int32");
  CHECK(write_one(as, value_of(scalar, 1.5)) == status::bad_type_mismatch);                       // Double into Int32
  CHECK(write_one(as, value_of(scalar, std::uint32_t{1})) == status::bad_type_mismatch);         // UInt32 into Int32
  CHECK(write_one(as, value_of(scalar, ua_array<std::int32_t>{1})) == status::bad_type_mismatch);  // rank
  CHECK(write_one(as, value_of(arr, std::int32_t{1})) == status::bad_type_mismatch);             // rank
  CHECK(write_one(as, value_of(arr, ua_array<double>{1.0})) == status::bad_type_mismatch);
  CHECK(write_one(as, value_of(test::demo("demo.string"), std::int32_t{1})) == status::bad_type_mismatch);
  CHECK(*read_value(as, scalar).value.get_if<std::int32_t>() == 7);
  CHECK(ints(read_value(as, arr)).size() == 10);
}

TEST_CASE("write: a subtype of the DataType, an enumeration as Int32, a built-in base type are accepted", "[services]") {
  auto as = test::demo_address_space();
  CHECK(write_one(as, value_of(test::demo("demo.number"), 2.5)) == status::good);             // Double is a Number
  CHECK(write_one(as, value_of(test::demo("demo.number"), std::int32_t{2})) == status::good);  // so is Int32
  CHECK(write_one(as, value_of(test::demo("demo.number"), ua_string("2"))) == status::bad_type_mismatch);
  CHECK(write_one(as, value_of(test::demo("demo.state"), std::int32_t{1})) == status::good);  // ServerState
  CHECK(write_one(as, value_of(test::demo("demo.state"), 1.0)) == status::bad_type_mismatch);
  CHECK(write_one(as, value_of(test::demo("demo.time"), date_time{42})) == status::good);     // DateTime into UtcTime
  CHECK(write_one(as, value_of(test::demo("demo.time"), std::int64_t{42})) == status::bad_type_mismatch);
}

TEST_CASE("write: without CurrentWrite a Value gets Bad_NotWritable", "[services]") {
  auto as = test::demo_address_space();
  CHECK(write_one(as, value_of(test::demo("demo.double"), 1.0)) == status::bad_not_writable);
  CHECK(write_one(as, value_of(node_id(0, 2259), std::int32_t{1})) == status::bad_not_writable);  // ServerStatus/State
  CHECK(*read_value(as, test::demo("demo.double")).value.get_if<double>() == 3.5);
}

TEST_CASE("write: an IndexRange writes part of an array, of exactly its length", "[services]") {
  auto as = test::demo_address_space();
  const auto arr = test::demo("demo.int32_array");
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{70, 80}, "7:8")) == status::good);
  CHECK(ints(read_value(as, arr)) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 70, 80, 9});
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{10}, "2")) == status::good);
  CHECK(ints(read_value(as, arr))[2] == 10);
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{1, 2}, "1:3")) == status::bad_index_range_data_mismatch);
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{1, 2}, "9:10")) == status::bad_index_range_no_data);
  CHECK(write_one(as, value_of(arr, ua_array<std::int32_t>{1, 2}, "2:1")) == status::bad_index_range_invalid);
  CHECK(write_one(as, value_of(arr, ua_array<double>{1, 2}, "1:2")) == status::bad_type_mismatch);
  CHECK(write_one(as, value_of(arr, std::int32_t{1}, "1")) == status::bad_type_mismatch);
  CHECK(ints(read_value(as, arr)) == std::vector<std::int32_t>{0, 1, 10, 3, 4, 5, 6, 70, 80, 9});
}

TEST_CASE("write: a status or timestamp the AccessLevel does not allow gets Bad_WriteNotSupported", "[services]") {
  auto as = test::demo_address_space();
  auto with_status = value_of(test::demo("demo.int32"), std::int32_t{1});
  with_status.value.status = status::uncertain;
  with_status.value.has_status = true;
  auto with_source = value_of(test::demo("demo.int32"), std::int32_t{1});
  with_source.value.source_timestamp = date_time{1234};
  with_source.value.has_source_timestamp = true;
  write_value no_value;
  no_value.node_id = test::demo("demo.int32");
  no_value.attribute_id = static_cast<std::uint32_t>(attribute_id::value);
  CHECK(write_one(as, with_status) == status::bad_write_not_supported);
  CHECK(write_one(as, with_source) == status::bad_write_not_supported);
  CHECK(write_one(as, no_value) == status::bad_write_not_supported);
  CHECK(*read_value(as, test::demo("demo.int32")).value.get_if<std::int32_t>() == 7);

  // demo.full has StatusWrite and TimestampWrite: both are kept.
  with_status.node_id = test::demo("demo.full");
  with_status.value.source_timestamp = date_time{1234};
  with_status.value.has_source_timestamp = true;
  CHECK(write_one(as, with_status) == status::good);
  const auto back = read_value(as, test::demo("demo.full"));
  CHECK(back.has_status);
  CHECK(back.status == status::uncertain);
  CHECK(back.source_timestamp == date_time{1234});
}

TEST_CASE("write: an explicit Good status without StatusWrite is taken as no status (asyncua's everyday write)",
          "[services]") {
  auto as = test::demo_address_space();
  auto with_good = value_of(test::demo("demo.int32"), std::int32_t{11});
  with_good.value.status = status::good;
  with_good.value.has_status = true;
  CHECK(write_one(as, with_good) == status::good);
  const auto back = read_value(as, test::demo("demo.int32"));
  CHECK(*back.value.get_if<std::int32_t>() == 11);
  CHECK(back.status == status::good);

  // With a SourceTimestamp as well (asyncua's write_value) the timestamp still needs TimestampWrite.
  with_good.value.source_timestamp = date_time{1234};
  with_good.value.has_source_timestamp = true;
  CHECK(write_one(as, with_good) == status::bad_write_not_supported);
  // Good with an info bit is news: refused as any other status.
  auto with_info = value_of(test::demo("demo.int32"), std::int32_t{12});
  with_info.value.status = status_code(0x00000400);  // Good, StructureChanged... info type bits
  with_info.value.has_status = true;
  CHECK(write_one(as, with_info) == status::bad_write_not_supported);
  CHECK(*read_value(as, test::demo("demo.int32")).value.get_if<std::int32_t>() == 11);

  // With StatusWrite an explicit Good is written as such.
  with_good.node_id = test::demo("demo.full");
  CHECK(write_one(as, with_good) == status::good);
  const auto full = read_value(as, test::demo("demo.full"));
  CHECK(full.has_status);
  CHECK(full.status == status::good);
  CHECK(full.source_timestamp == date_time{1234});
}

TEST_CASE("write: DisplayName and Description per WriteMask, other attributes Bad_NotWritable", "[services]") {
  auto as = test::demo_address_space();
  const auto folder = test::demo("demo.folder");
  auto attribute = [](node_id id, attribute_id a, variant v) {
    write_value w;
    w.node_id = std::move(id);
    w.attribute_id = static_cast<std::uint32_t>(a);
    w.value.set_value(std::move(v));
    return w;
  };
  localized_text text;
  text.locale = ua_string("en");
  text.text = ua_string("Demo folder");
  CHECK(write_one(as, attribute(folder, attribute_id::display_name, text)) == status::good);
  const auto shown = read_value(as, folder, attribute_id::display_name);
  CHECK(*shown.value.get_if<localized_text>() == text);
  text.text = ua_string("Where the demo lives");
  CHECK(write_one(as, attribute(folder, attribute_id::description, text)) == status::good);
  CHECK(*read_value(as, folder, attribute_id::description).value.get_if<localized_text>() == text);
  CHECK(write_one(as, attribute(folder, attribute_id::display_name, ua_string("x"))) == status::bad_type_mismatch);
  CHECK(write_one(as, attribute(node_id(0, 2253), attribute_id::display_name, text)) == status::bad_not_writable);
  CHECK(write_one(as, attribute(folder, attribute_id::browse_name, qualified_name{})) == status::bad_not_writable);
  CHECK(write_one(as, attribute(folder, attribute_id::value, std::int32_t{1})) == status::bad_attribute_id_invalid);
  CHECK(write_one(as, attribute(folder, attribute_id::access_level, std::uint8_t{1})) == status::bad_attribute_id_invalid);
  auto unknown_attribute = attribute(folder, attribute_id::display_name, text);
  unknown_attribute.attribute_id = 99;
  CHECK(write_one(as, unknown_attribute) == status::bad_attribute_id_invalid);
  CHECK(write_one(as, value_of(node_id(0, 999'999), std::int32_t{1})) == status::bad_node_id_unknown);
}

TEST_CASE("write: the service result refuses an empty request and too many nodes", "[services]") {
  auto as = test::demo_address_space();
  write_request req;
  write_response resp;
  service_write(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  req.nodes_to_write = {value_of(test::demo("demo.int32"), std::int32_t{1}), value_of(test::demo("demo.int32"), std::int32_t{2})};
  services::service_limits limits;
  limits.max_nodes_per_write = 1;
  service_write(req, resp, as, now, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
  CHECK(resp.results.empty());
  service_write(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.results == ua_array<status_code>{status::good, status::good});
  CHECK(*read_value(as, test::demo("demo.int32")).value.get_if<std::int32_t>() == 2);
}

// A structure a loaded NodeSet defines (tests/fuzz/nodeset_seeds/structures.NodeSet2.xml) arrives
// with a body the codec keeps as bytes: its DataType is the one its encoding id belongs to.
TEST_CASE("write: an ExtensionObject of a loaded structure fits its DataType and subtypes, not another", "[services]") {
  address_space as;
  load_namespace0(as);
  const std::vector<std::string> namespaces{"http://opcfoundation.org/UA/"};
  const std::vector<nodeset::model> models{nodeset::namespace0_model()};
  const auto doc = nodeset::document::load(std::string(UACTOR_SOURCE_DIR) + "/tests/fuzz/nodeset_seeds/structures.NodeSet2.xml");
  const auto r = nodeset::import(doc, as, {namespaces, models, now});
  REQUIRE(r.ok());
  const node_id drawing_var(1, 100), holder_var(1, 101);
  const auto raw = [](std::uint32_t encoding) {
    return extension_object::raw(node_id(1, encoding), extension_object::encoding::byte_string, "");
  };
  CHECK(write_one(as, value_of(drawing_var, raw(5))) == status::good);              // a Drawing
  CHECK(write_one(as, value_of(drawing_var, raw(3))) == status::bad_type_mismatch); // a Circle
  CHECK(write_one(as, value_of(drawing_var, raw(999))) == status::bad_type_mismatch);  // no such encoding
  CHECK(write_one(as, value_of(drawing_var, extension_object(range{}))) == status::bad_type_mismatch);
  CHECK(write_one(as, value_of(holder_var, raw(7))) == status::good);
  CHECK(write_one(as, value_of(holder_var, extension_object{})) == status::good);  // a null structure
  // The refused writes changed nothing: the Drawing written first is there.
  data_value v;
  as.read(drawing_var, attribute_id::value, v);
  CHECK(v.value == variant(raw(5)));
}

}  // namespace server_write_service_test
