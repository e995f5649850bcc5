// Part 5 §6.3.1 (ServerType), §6.3.2 (ServerCapabilitiesType), §6.3.11 (OperationLimitsType):
// the values of the Server object's variables.
#include "engine/server/server_object.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "uactor/ua/node_ids.hpp"

namespace uactor::actors {

using namespace uactor::ua;

namespace {

node_index require(const address_space& as, std::uint32_t id) {
  const node_index n = as.find(node_id(0, id));
  if (n == no_node || !as.variable(n))
    throw std::logic_error("server object: no variable i=" + std::to_string(id) + " (namespace 0 not loaded?)");
  return n;
}

void set(address_space& as, std::uint32_t id, variant v, date_time t) {
  data_value dv;
  dv.set_value(std::move(v));
  dv.source_timestamp = dv.server_timestamp = t;
  dv.has_source_timestamp = dv.has_server_timestamp = true;
  as.set_value(require(as, id), std::move(dv));
}

std::uint32_t clamp_u32(std::size_t n) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(n, std::numeric_limits<std::uint32_t>::max()));
}

}  // namespace

void init_server_object(address_space& as, const server_info& info, const services::service_limits& limits,
                        std::span<const std::string> namespace_uris, date_time start) {
  ua_array<ua_string> namespaces;
  if (namespace_uris.empty() || namespace_uris.front() != ua_namespace_uri)
    namespaces.emplace_back(ua_namespace_uri);  // Part 5 §6.3.1: index 0 is always the UA namespace
  for (const std::string& uri : namespace_uris) namespaces.emplace_back(uri);
  set(as, ids::server_namespace_array, std::move(namespaces), start);
  set(as, ids::server_server_array, ua_array<ua_string>{ua_string(info.application_uri)}, start);

  build_info build;
  build.product_uri = ua_string(info.product_uri);
  build.manufacturer_name = ua_string(info.manufacturer);
  build.product_name = ua_string(info.product_name);
  build.software_version = ua_string(info.software_version);
  build.build_number = ua_string(info.build_number);
  build.build_date = info.build_date;

  server_status_data_type status;
  status.start_time = start;
  status.current_time = start;
  status.state = server_state::running;
  status.build_info = build;
  set(as, ids::server_server_status, extension_object(std::move(status)), start);
  set(as, ids::server_server_status_start_time, start, start);
  set(as, ids::server_server_status_current_time, start, start);
  set(as, ids::server_server_status_state, static_cast<std::int32_t>(server_state::running), start);
  set(as, ids::server_server_status_seconds_till_shutdown, std::uint32_t{0}, start);  // not shutting down
  set(as, ids::server_server_status_shutdown_reason, localized_text{}, start);
  set(as, ids::server_server_status_build_info_product_uri, build.product_uri, start);
  set(as, ids::server_server_status_build_info_manufacturer_name, build.manufacturer_name, start);
  set(as, ids::server_server_status_build_info_product_name, build.product_name, start);
  set(as, ids::server_server_status_build_info_software_version, build.software_version, start);
  set(as, ids::server_server_status_build_info_build_number, build.build_number, start);
  set(as, ids::server_server_status_build_info_build_date, build.build_date, start);
  set(as, ids::server_server_status_build_info, extension_object(std::move(build)), start);
  set(as, ids::server_service_level, std::uint8_t{255}, start);

  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_read, clamp_u32(limits.max_nodes_per_read), start);
  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_write, clamp_u32(limits.max_nodes_per_write),
      start);
  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_method_call,
      clamp_u32(limits.max_nodes_per_method_call), start);
  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_browse, clamp_u32(limits.max_nodes_per_browse),
      start);
  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_register_nodes,
      clamp_u32(limits.max_nodes_per_register_nodes), start);
  set(as, ids::server_server_capabilities_operation_limits_max_nodes_per_translate_browse_paths_to_node_ids,
      clamp_u32(limits.max_nodes_per_translate_browse_paths), start);
  set(as, ids::server_server_capabilities_max_browse_continuation_points,
      static_cast<std::uint16_t>(std::min<std::size_t>(limits.max_browse_continuation_points,
                                                       std::numeric_limits<std::uint16_t>::max())),
      start);
}

void init_server_redundancy(address_space& as, const redundancy_plan& plan, date_time now) {
  // Part 5 §12.5: RedundancySupport is an Int32 enumeration on the wire.
  set(as, ids::server_server_redundancy_redundancy_support, static_cast<std::int32_t>(plan.support), now);
  set_service_level(as, plan.service_level, now);
  // Namespace 0 gives ServiceLevel a MinimumSamplingInterval of 1 s: a drop would reach a
  // subscribed client up to a second late. The server sets it itself, so every change can be
  // reported as it happens (Part 3 §5.6.2: 0), and a client fails over at once.
  as.set_minimum_sampling_interval(require(as, ids::server_service_level), 0);
  if (plan.support == uactor::redundancy_support::none) return;
  const node_index redundancy = as.find(node_id(0, ids::server_server_redundancy));
  const node_index has_type_definition = as.find(node_id(0, 40));
  const node_index has_property = as.find(node_id(0, 46));
  const node_index non_transparent = as.find(node_id(0, ids::non_transparent_redundancy_type));
  if (redundancy == no_node || has_type_definition == no_node || has_property == no_node || non_transparent == no_node)
    throw std::logic_error("server object: no ServerRedundancy or NonTransparentRedundancyType (namespace 0 not loaded?)");
  // Part 4 §6.6.2.4.5: the set's failover mode and members, in a NonTransparentRedundancyType.
  for (const auto& r : as.forward_references(redundancy))
    if (r.type == has_type_definition) {
      const node_index old_type = r.target;
      as.remove_reference(redundancy, has_type_definition, old_type);
      break;
    }
  as.add_reference(redundancy, has_type_definition, non_transparent);
  const node_index uris = require(as, ids::server_server_redundancy_server_uri_array);
  as.add_reference(redundancy, has_property, uris);  // Bad_DuplicateReferenceNotAllowed when called again: fine
  ua_array<ua_string> array;
  for (const auto& u : plan.server_uris) array.emplace_back(u);
  set(as, ids::server_server_redundancy_server_uri_array, std::move(array), now);
}

void set_service_level(address_space& as, std::uint8_t level, date_time now) {
  set(as, ids::server_service_level, level, now);
}

void init_server_sampling(address_space& as, double fastest_ms, date_time now) {
  if (const node_index rate = as.find(node_id(0, ids::server_server_capabilities_min_supported_sample_rate));
      rate != no_node && as.variable(rate))
    set(as, ids::server_server_capabilities_min_supported_sample_rate, fastest_ms, now);  // Duration: a Double in ms
  if (const node_index time = as.find(node_id(0, ids::server_server_status_current_time));
      time != no_node && as.variable(time))
    as.set_minimum_sampling_interval(time, fastest_ms);
}

void update_server_time(address_space& as, date_time now) {
  set(as, ids::server_server_status_current_time, now, now);
  const node_index status_node = require(as, ids::server_server_status);
  const auto* eo = as.variable(status_node)->value.value.get_if<extension_object>();
  const auto* current = eo ? eo->get_if<server_status_data_type>() : nullptr;
  if (!current) return;  // init_server_object has not run: nothing to keep current
  server_status_data_type status = *current;
  status.current_time = now;
  set(as, ids::server_server_status, extension_object(std::move(status)), now);
}

std::uint16_t register_namespace(address_space& as, std::string_view uri, date_time now) {
  const node_index n = require(as, ids::server_namespace_array);
  ua_array<ua_string> namespaces;
  if (const auto* current = as.variable(n)->value.value.get_if<ua_array<ua_string>>()) namespaces = *current;
  for (std::size_t i = 0; i < namespaces.size(); ++i)
    if (namespaces[i] == uri) return static_cast<std::uint16_t>(i);
  if (namespaces.empty()) namespaces.emplace_back(ua_namespace_uri);
  namespaces.emplace_back(uri);
  const auto index = static_cast<std::uint16_t>(namespaces.size() - 1);
  set(as, ids::server_namespace_array, std::move(namespaces), now);
  return index;
}

}  // namespace uactor::actors
