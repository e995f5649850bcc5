// Tests of the Server object's live values (Part 5 §6.3): what init_server_object sets, that each
// value fits its node's DataType and ValueRank (what a client that reads them decodes), and that
// update_server_time moves CurrentTime in both places.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/server/server_object.hpp"
#include "engine/server/services/write.hpp"
#include "uactor/ua/node_ids.hpp"

using namespace uactor;
using namespace uactor::ua;

namespace {

constexpr date_time start{133'000'000'000'000'000};

actors::server_info info() {
  actors::server_info i;
  i.application_uri = "urn:box:uactor:server";
  i.software_version = "0.1.0";
  i.build_number = "42";
  i.build_date = date_time{132'000'000'000'000'000};
  return i;
}

struct fixture {
  address_space as;
  services::service_limits limits;
  fixture() {
    load_namespace0(as);
    limits.max_nodes_per_read = 111;
    limits.max_nodes_per_write = 222;
    limits.max_nodes_per_method_call = 333;
    limits.max_nodes_per_browse = 444;
    limits.max_nodes_per_register_nodes = 555;
    limits.max_nodes_per_translate_browse_paths = 666;
    limits.max_browse_continuation_points = 7;
    const std::vector<std::string> uris = {"urn:uactor:demo"};
    actors::init_server_object(as, info(), limits, uris, start);
  }
  const data_value& value(std::uint32_t id) const { return as.variable(as.find(node_id(0, id)))->value; }
};

}  // namespace

TEST_CASE("server object: NamespaceArray, ServerArray, ServiceLevel and ServerStatus's children", "[actors]") {
  const fixture f;
  CHECK(*f.value(ids::server_namespace_array).value.get_if<ua_array<ua_string>>() ==
        ua_array<ua_string>{ua_string("http://opcfoundation.org/UA/"), ua_string("urn:uactor:demo")});
  CHECK(*f.value(ids::server_server_array).value.get_if<ua_array<ua_string>>() ==
        ua_array<ua_string>{ua_string("urn:box:uactor:server")});
  CHECK(*f.value(ids::server_service_level).value.get_if<std::uint8_t>() == 255);
  CHECK(*f.value(ids::server_server_status_start_time).value.get_if<date_time>() == start);
  CHECK(*f.value(ids::server_server_status_current_time).value.get_if<date_time>() == start);
  CHECK(*f.value(ids::server_server_status_state).value.get_if<std::int32_t>() == 0);  // Running
  CHECK(f.value(ids::server_server_status_build_info_product_uri).value.get_if<ua_string>()->view() == "urn:uactor");
  CHECK(f.value(ids::server_server_status_build_info_manufacturer_name).value.get_if<ua_string>()->view() == "uactor");
  CHECK(f.value(ids::server_server_status_build_info_product_name).value.get_if<ua_string>()->view() == "uactor");
  CHECK(f.value(ids::server_server_status_build_info_software_version).value.get_if<ua_string>()->view() == "0.1.0");
  CHECK(f.value(ids::server_server_status_build_info_build_number).value.get_if<ua_string>()->view() == "42");
  CHECK(*f.value(ids::server_server_status_build_info_build_date).value.get_if<date_time>() == info().build_date);
  CHECK(f.value(ids::server_service_level).has_source_timestamp);
  CHECK(f.value(ids::server_service_level).source_timestamp == start);
}

TEST_CASE("server object: ServerStatus and BuildInfo are the structures their children show", "[actors]") {
  const fixture f;
  const auto* status = f.value(ids::server_server_status).value.get_if<extension_object>()->get_if<server_status_data_type>();
  REQUIRE(status);
  CHECK(status->start_time == start);
  CHECK(status->current_time == start);
  CHECK(status->state == server_state::running);
  CHECK(status->build_info.product_uri.view() == "urn:uactor");
  CHECK(status->build_info.software_version.view() == "0.1.0");
  CHECK(status->build_info.build_date == info().build_date);
  const auto* build = f.value(ids::server_server_status_build_info).value.get_if<extension_object>()->get_if<build_info>();
  REQUIRE(build);
  CHECK(*build == status->build_info);
}

TEST_CASE("server object: OperationLimits and MaxBrowseContinuationPoints come from the service limits", "[actors]") {
  const fixture f;
  const auto limit = [&](std::uint32_t id) { return *f.value(id).value.get_if<std::uint32_t>(); };
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_read) == 111);
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_write) == 222);
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_method_call) == 333);
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_browse) == 444);
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_register_nodes) == 555);
  CHECK(limit(ids::server_server_capabilities_operation_limits_max_nodes_per_translate_browse_paths_to_node_ids) == 666);
  CHECK(*f.value(ids::server_server_capabilities_max_browse_continuation_points).value.get_if<std::uint16_t>() == 7);
}

TEST_CASE("server object: every value set fits its node's DataType and ValueRank", "[actors]") {
  const fixture f;
  for (const std::uint32_t id :
       {ids::server_namespace_array, ids::server_server_array, ids::server_server_status,
        ids::server_server_status_start_time, ids::server_server_status_current_time, ids::server_server_status_state,
        ids::server_server_status_build_info, ids::server_server_status_build_info_product_name,
        ids::server_server_status_build_info_product_uri, ids::server_server_status_build_info_manufacturer_name,
        ids::server_server_status_build_info_software_version, ids::server_server_status_build_info_build_number,
        ids::server_server_status_build_info_build_date, ids::server_server_status_seconds_till_shutdown,
        ids::server_server_status_shutdown_reason, ids::server_service_level,
        ids::server_server_capabilities_operation_limits_max_nodes_per_read,
        ids::server_server_capabilities_operation_limits_max_nodes_per_write,
        ids::server_server_capabilities_operation_limits_max_nodes_per_method_call,
        ids::server_server_capabilities_operation_limits_max_nodes_per_browse,
        ids::server_server_capabilities_operation_limits_max_nodes_per_register_nodes,
        ids::server_server_capabilities_operation_limits_max_nodes_per_translate_browse_paths_to_node_ids,
        ids::server_server_capabilities_max_browse_continuation_points}) {
    INFO("i=" << id);
    const variable_data* v = f.as.variable(f.as.find(node_id(0, id)));
    REQUIRE(v);
    CHECK(v->value.has_value);
    CHECK_FALSE(v->value.value.empty());
    CHECK(services::value_fits(f.as, v->value.value, v->data_type.to_node_id(), v->value_rank));
  }
}

TEST_CASE("server object: the UA namespace is not listed twice, limits above UInt32 are clamped", "[actors]") {
  address_space as;
  load_namespace0(as);
  services::service_limits limits;
  limits.max_nodes_per_read = std::size_t{1} << 40;
  limits.max_browse_continuation_points = 100'000;
  const std::vector<std::string> uris = {"http://opcfoundation.org/UA/", "urn:a", "urn:b"};
  actors::init_server_object(as, info(), limits, uris, start);
  const auto& ns = *as.variable(as.find(node_id(0, ids::server_namespace_array)))->value.value.get_if<ua_array<ua_string>>();
  CHECK(ns == ua_array<ua_string>{ua_string("http://opcfoundation.org/UA/"), ua_string("urn:a"), ua_string("urn:b")});
  CHECK(*as.variable(as.find(node_id(0, ids::server_server_capabilities_operation_limits_max_nodes_per_read)))
             ->value.value.get_if<std::uint32_t>() == 0xFFFF'FFFFu);
  CHECK(*as.variable(as.find(node_id(0, ids::server_server_capabilities_max_browse_continuation_points)))
             ->value.value.get_if<std::uint16_t>() == 0xFFFF);
}

TEST_CASE("server object: update_server_time moves CurrentTime, in ServerStatus too", "[actors]") {
  fixture f;
  const date_time later{start.ticks + 5 * date_time::ticks_per_second};
  actors::update_server_time(f.as, later);
  CHECK(*f.value(ids::server_server_status_current_time).value.get_if<date_time>() == later);
  CHECK(f.value(ids::server_server_status_current_time).source_timestamp == later);
  const auto* status = f.value(ids::server_server_status).value.get_if<extension_object>()->get_if<server_status_data_type>();
  REQUIRE(status);
  CHECK(status->current_time == later);
  CHECK(status->start_time == start);  // the rest stays
  CHECK(status->build_info.build_number.view() == "42");
  CHECK(*f.value(ids::server_server_status_start_time).value.get_if<date_time>() == start);
}

TEST_CASE("server object: without namespace 0 it is a start-up error", "[actors]") {
  address_space empty;
  CHECK_THROWS_AS(actors::init_server_object(empty, info(), {}, {}, start), std::logic_error);
  CHECK_THROWS_AS(actors::update_server_time(empty, start), std::logic_error);
}

namespace {

// The target of n's forward reference of `type` (namespace 0 numeric ids), every one of them.
std::vector<std::uint32_t> targets(const address_space& as, std::uint32_t n, std::uint32_t type) {
  std::vector<std::uint32_t> out;
  const node_index type_node = as.find(node_id(0, type));
  for (const auto& r : as.forward_references(as.find(node_id(0, n))))
    if (r.type == type_node) out.push_back(as.at(r.target).id.numeric);
  return out;
}

}  // namespace

TEST_CASE("server object: without redundancy ServerRedundancy stays a ServerRedundancyType, RedundancySupport None",
          "[actors]") {
  fixture f;
  actors::init_server_redundancy(f.as, redundancy_plan{}, start);
  CHECK(*f.value(ids::server_server_redundancy_redundancy_support).value.get_if<std::int32_t>() == 0);
  CHECK(targets(f.as, ids::server_server_redundancy, 40) == std::vector<std::uint32_t>{ids::server_redundancy_type});
  // Namespace 0 of 1.05.07 also gives the Server's ServerRedundancy its RedundantServerArray, unset.
  CHECK(targets(f.as, ids::server_server_redundancy, 46) ==
        std::vector<std::uint32_t>{ids::server_server_redundancy_redundancy_support,
                                   ids::server_server_redundancy_redundant_server_array});
  CHECK(*f.value(ids::server_service_level).value.get_if<std::uint8_t>() == 255);
}

TEST_CASE("server object: a warm redundant set makes ServerRedundancy a NonTransparentRedundancyType with its ServerUriArray",
          "[actors]") {
  fixture f;
  redundancy_plan plan;
  plan.support = uactor::redundancy_support::warm;
  plan.server_uris = {"urn:a:uactor:server", "urn:b:uactor:server"};
  plan.service_level = 180;
  actors::init_server_redundancy(f.as, plan, start);
  // Part 5 §12.5: Warm = 2, an Int32 on the wire.
  CHECK(*f.value(ids::server_server_redundancy_redundancy_support).value.get_if<std::int32_t>() == 2);
  // Part 5 §6.3.8: one HasTypeDefinition, to NonTransparentRedundancyType (i=2039); its ServerUriArray.
  CHECK(targets(f.as, ids::server_server_redundancy, 40) == std::vector<std::uint32_t>{ids::non_transparent_redundancy_type});
  const auto props = targets(f.as, ids::server_server_redundancy, 46);
  CHECK(std::count(props.begin(), props.end(), ids::server_server_redundancy_server_uri_array) == 1);
  CHECK(std::count(props.begin(), props.end(), ids::server_server_redundancy_redundancy_support) == 1);
  CHECK(*f.value(ids::server_server_redundancy_server_uri_array).value.get_if<ua_array<ua_string>>() ==
        ua_array<ua_string>{ua_string("urn:a:uactor:server"), ua_string("urn:b:uactor:server")});
  // The inverse ends went too: the old type has no instance reference from i=2296 left.
  const node_index old_type = f.as.find(node_id(0, ids::server_redundancy_type));
  for (const auto& r : f.as.inverse_references(old_type))
    CHECK(f.as.at(r.target).id.numeric != ids::server_server_redundancy);
  CHECK(*f.value(ids::server_service_level).value.get_if<std::uint8_t>() == 180);
  actors::set_service_level(f.as, 0, date_time{start.ticks + 1});
  CHECK(*f.value(ids::server_service_level).value.get_if<std::uint8_t>() == 0);
  CHECK(f.value(ids::server_service_level).source_timestamp == date_time{start.ticks + 1});
}

TEST_CASE("server object: MinSupportedSampleRate states the fastest sampling rate, CurrentTime is sampled at it",
          "[actors]") {
  fixture f;
  actors::init_server_sampling(f.as, 10, start);
  const variable_data* rate = f.as.variable(f.as.find(node_id(0, ids::server_server_capabilities_min_supported_sample_rate)));
  REQUIRE(rate);
  REQUIRE(rate->value.value.get_if<double>());
  CHECK(*rate->value.value.get_if<double>() == 10);
  CHECK(services::value_fits(f.as, rate->value.value, rate->data_type.to_node_id(), rate->value_rank));  // a Duration
  const variable_data* time = f.as.variable(f.as.find(node_id(0, ids::server_server_status_current_time)));
  REQUIRE(time);
  CHECK(time->minimum_sampling_interval == 10);
}
