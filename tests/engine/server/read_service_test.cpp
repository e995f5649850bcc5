// Tests of the Read service (Part 4 §5.10.2) over namespace 0 and the demo nodes of read_fixture.hpp:
// the service result and the status of each item at the level the spec puts them, IndexRange,
// TimestampsToReturn, and no allocation when a response is reused.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string_view>

#include "engine/server/services/read.hpp"
#include "uactor/ua/status_codes.hpp"
#include "tests/engine/read_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::ua;
using services::service_read;

namespace {

constexpr date_time now{133'000'000'000'000'000};

read_value_id item(node_id id, attribute_id a = attribute_id::value, std::string_view range = {}) {
  read_value_id r;
  r.node_id = std::move(id);
  r.attribute_id = static_cast<std::uint32_t>(a);
  if (!range.empty()) r.index_range = ua_string(range);
  return r;
}

read_response read(std::initializer_list<read_value_id> items,
                   timestamps_to_return ttr = timestamps_to_return::neither) {
  read_request req;
  req.timestamps_to_return = ttr;
  req.nodes_to_read.assign(items.begin(), items.end());
  read_response resp;
  service_read(req, resp, test::shared_demo_address_space(), now);
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == items.size());
  return resp;
}

status_code status_of(const data_value& v) { return v.has_status ? v.status : status::good; }

}  // namespace

TEST_CASE("read: the whole request is refused with the service result, and no results", "[services]") {
  const auto& as = test::shared_demo_address_space();
  read_response resp;
  read_request req;
  service_read(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::bad_nothing_to_do);
  CHECK(resp.results.empty());

  req.nodes_to_read = {item(node_id(0, 2253), attribute_id::browse_name), item(node_id(0, 85), attribute_id::browse_name),
                       item(node_id(0, 84), attribute_id::browse_name)};
  services::service_limits limits;
  limits.max_nodes_per_read = 2;
  service_read(req, resp, as, now, limits);
  CHECK(resp.response_header.service_result == status::bad_too_many_operations);
  CHECK(resp.results.empty());

  req.max_age = -1;
  service_read(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::bad_max_age_invalid);

  req.max_age = 0;
  req.timestamps_to_return = static_cast<timestamps_to_return>(4);
  service_read(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::bad_timestamps_to_return_invalid);
  req.timestamps_to_return = static_cast<timestamps_to_return>(-1);
  service_read(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::bad_timestamps_to_return_invalid);

  req.timestamps_to_return = timestamps_to_return::both;
  service_read(req, resp, as, now);
  CHECK(resp.response_header.service_result == status::good);
  CHECK(resp.results.size() == 3);
  CHECK(resp.response_header.timestamp == now);
}

TEST_CASE("read: a node that does not exist gets Bad_NodeIdUnknown and the others still answer", "[services]") {
  const auto resp = read({item(node_id(0, 2253), attribute_id::browse_name), item(node_id(0, 999'999)),
                          item(test::demo("demo.double"))});
  CHECK(resp.results[0].value.get_if<qualified_name>()->name.view() == "Server");
  CHECK(status_of(resp.results[1]) == status::bad_node_id_unknown);
  CHECK_FALSE(resp.results[1].has_value);
  REQUIRE(resp.results[2].value.get_if<double>());
  CHECK(*resp.results[2].value.get_if<double>() == 3.5);
}

TEST_CASE("read: an attribute id out of range or one the node class lacks gets Bad_AttributeIdInvalid", "[services]") {
  read_value_id zero = item(node_id(0, 85));
  zero.attribute_id = 0;
  read_value_id big = item(node_id(0, 85));
  big.attribute_id = 99;
  const auto resp = read({zero, big, item(node_id(0, 85), attribute_id::value),
                          item(test::demo("demo.double"), attribute_id::is_abstract),
                          item(node_id(0, 85), attribute_id::event_notifier)});
  CHECK(status_of(resp.results[0]) == status::bad_attribute_id_invalid);
  CHECK(status_of(resp.results[1]) == status::bad_attribute_id_invalid);
  CHECK(status_of(resp.results[2]) == status::bad_attribute_id_invalid);  // Objects has no Value
  CHECK(status_of(resp.results[3]) == status::bad_attribute_id_invalid);
  CHECK(status_of(resp.results[4]) == status::good);
}

TEST_CASE("read: a Value whose AccessLevel lacks CurrentRead gets Bad_NotReadable, its other attributes do not", "[services]") {
  const auto resp = read({item(test::demo("demo.secret")), item(test::demo("demo.secret"), attribute_id::access_level)});
  CHECK(status_of(resp.results[0]) == status::bad_not_readable);
  CHECK_FALSE(resp.results[0].has_value);
  CHECK(*resp.results[1].value.get_if<std::uint8_t>() == 0);
}

TEST_CASE("read: a DataEncoding other than the default binary one of a structure is refused", "[services]") {
  auto encoded = [](node_id id, attribute_id a, std::uint16_t ns, std::string_view name) {
    auto i = item(std::move(id), a);
    i.data_encoding.namespace_index = ns;
    i.data_encoding.name = ua_string(name);
    return i;
  };
  const node_id server_status(0, 2256);  // ServerStatusDataType, a Structure
  const auto resp = read({encoded(server_status, attribute_id::value, 0, "Default Binary"),
                          encoded(server_status, attribute_id::value, 0, "Default XML"),
                          encoded(server_status, attribute_id::value, 1, "Default Binary"),
                          encoded(server_status, attribute_id::browse_name, 0, "Default Binary"),
                          encoded(test::demo("demo.double"), attribute_id::value, 0, "Default Binary")});
  CHECK(status_of(resp.results[0]).is_good());
  CHECK(status_of(resp.results[1]) == status::bad_data_encoding_unsupported);
  CHECK(status_of(resp.results[2]) == status::bad_data_encoding_unsupported);
  CHECK(status_of(resp.results[3]) == status::bad_data_encoding_invalid);  // not the Value
  CHECK(status_of(resp.results[4]) == status::bad_data_encoding_invalid);  // not a Structure
}

TEST_CASE("read: timestamps follow TimestampsToReturn, the source timestamp only for the Value", "[services]") {
  const auto value = item(test::demo("demo.double"));
  const auto name = item(test::demo("demo.double"), attribute_id::browse_name);
  {
    const auto r = read({value, name}, timestamps_to_return::both);
    CHECK(r.results[0].has_server_timestamp);
    CHECK(r.results[0].server_timestamp == now);
    CHECK(r.results[1].has_server_timestamp);
    CHECK_FALSE(r.results[1].has_source_timestamp);
  }
  {
    const auto r = read({value, name}, timestamps_to_return::server);
    CHECK(r.results[0].has_server_timestamp);
    CHECK_FALSE(r.results[0].has_source_timestamp);
    CHECK(r.results[1].has_server_timestamp);
  }
  {
    const auto r = read({value, name}, timestamps_to_return::neither);
    CHECK_FALSE(r.results[0].has_server_timestamp);
    CHECK_FALSE(r.results[0].has_source_timestamp);
    CHECK_FALSE(r.results[1].has_server_timestamp);
  }
  {
    const auto r = read({value, name}, timestamps_to_return::source);
    CHECK_FALSE(r.results[0].has_server_timestamp);
    CHECK_FALSE(r.results[1].has_server_timestamp);
    CHECK_FALSE(r.results[1].has_source_timestamp);
  }
}

TEST_CASE("read: an IndexRange selects part of an array, of a String, or answers per item", "[services]") {
  const auto arr = test::demo("demo.int32_array");
  const auto ints = [](const data_value& v) { return static_cast<const std::vector<std::int32_t>&>(*v.value.get_if<ua_array<std::int32_t>>()); };
  const auto resp = read({item(arr, attribute_id::value, "2"), item(arr, attribute_id::value, "1:3"),
                          item(arr, attribute_id::value, "8:20"), item(arr, attribute_id::value, "10"),
                          item(arr, attribute_id::value, "3:1"), item(arr, attribute_id::value, "1:1"),
                          item(arr, attribute_id::value, "-1"), item(arr, attribute_id::value, "x"),
                          item(test::demo("demo.string"), attribute_id::value, "1:4"),
                          item(test::demo("demo.double"), attribute_id::value, "0"),
                          item(arr, attribute_id::browse_name, "0"), item(arr, attribute_id::value, "0,0")});
  CHECK(ints(resp.results[0]) == std::vector<std::int32_t>{2});
  CHECK(ints(resp.results[1]) == std::vector<std::int32_t>{1, 2, 3});
  CHECK(ints(resp.results[2]) == std::vector<std::int32_t>{8, 9});  // the end is clamped
  CHECK(status_of(resp.results[3]) == status::bad_index_range_no_data);
  CHECK(status_of(resp.results[4]) == status::bad_index_range_invalid);
  CHECK(status_of(resp.results[5]) == status::bad_index_range_invalid);
  CHECK(status_of(resp.results[6]) == status::bad_index_range_invalid);
  CHECK(status_of(resp.results[7]) == status::bad_index_range_invalid);
  CHECK(resp.results[8].value.get_if<ua_string>()->view() == "ello");
  CHECK(status_of(resp.results[9]) == status::bad_index_range_no_data);   // a scalar
  CHECK(status_of(resp.results[10]) == status::bad_index_range_no_data);  // not an array
  CHECK(status_of(resp.results[11]) == status::bad_index_range_no_data);  // one dimension only
}

TEST_CASE("read: reading 100 scalar values into a reused response allocates nothing", "[services]") {
  if (!test::counts_allocations) {
    WARN("skipped: allocations are not counted in a sanitizer build");
    return;
  }
  const auto& as = test::shared_demo_address_space();
  read_request req;
  req.timestamps_to_return = timestamps_to_return::both;
  for (int i = 0; i < 100; ++i)
    req.nodes_to_read.push_back(item(test::demo(i % 2 ? "demo.double" : "demo.int32")));
  read_response resp;
  service_read(req, resp, as, now);  // the first one sizes the response
  REQUIRE(resp.results.size() == 100);
  const test::alloc_scope scope;
  for (int round = 0; round < 10; ++round) service_read(req, resp, as, now);
  CHECK(scope.counted().allocations == 0);
  CHECK(*resp.results[1].value.get_if<double>() == 3.5);
  CHECK(*resp.results[0].value.get_if<std::int32_t>() == 7);
}
