// Part 4 §5.8.5 RegisterNodes and §5.8.6 UnregisterNodes. The responses carry no results, so the
// start of start_operations is written out here.
#include "engine/server/services/register_nodes.hpp"

#include <algorithm>

#include "uactor/ua/status_codes.hpp"

namespace uactor::services {

using namespace uactor::ua;

namespace {

// Answers the handle and refuses an empty list or one longer than `max` (Part 4 Table 44, Table 46).
status_code start(const request_header& req, response_header& resp, date_time now, std::size_t count,
                  std::size_t max) {
  resp.timestamp = now;
  resp.request_handle = req.request_handle;
  if (count == 0) return resp.service_result = status::bad_nothing_to_do;
  if (count > max) return resp.service_result = status::bad_too_many_operations;
  return resp.service_result = status::good;
}

}  // namespace

void service_register_nodes(const register_nodes_request& req, register_nodes_response& resp, date_time now,
                            const service_limits& limits) {
  resp.registered_node_ids.clear();
  const auto& ids = req.nodes_to_register;
  if (start(req.request_header, resp.response_header, now, ids.size(), limits.max_nodes_per_register_nodes).is_bad())
    return;
  // Part 4 §5.8.5.3: the whole request is rejected when one NodeId is structurally invalid; the
  // null NodeId names no node at all.
  if (std::any_of(ids.begin(), ids.end(), [](const node_id& id) { return id.is_null(); })) {
    resp.response_header.service_result = status::bad_node_id_invalid;
    return;
  }
  resp.registered_node_ids.assign(ids.begin(), ids.end());  // storage kept between requests
}

void service_unregister_nodes(const unregister_nodes_request& req, unregister_nodes_response& resp, date_time now,
                              const service_limits& limits) {
  start(req.request_header, resp.response_header, now, req.nodes_to_unregister.size(),
        limits.max_nodes_per_register_nodes);
}

}  // namespace uactor::services
