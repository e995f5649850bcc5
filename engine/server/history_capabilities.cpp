#include "engine/server/history_capabilities.hpp"

namespace uactor::actors {

namespace {

void set(ua::address_space& as, std::uint32_t id, ua::variant v, ua::date_time now) {
  const ua::node_index n = as.find(ua::node_id(0, id));
  if (n == ua::no_node || !as.variable(n)) return;
  ua::data_value dv;
  dv.set_value(std::move(v));
  dv.source_timestamp = dv.server_timestamp = now;
  dv.has_source_timestamp = dv.has_server_timestamp = true;
  as.set_value(n, std::move(dv));
}

}  // namespace

void set_history_capabilities(ua::address_space& as, bool reading, std::uint32_t max_return_data_values,
                              ua::date_time now) {
  // NodeIds of Opc.Ua.NodeSet2 (HistoryServerCapabilities_*).
  set(as, 11193, ua::variant(reading), now);  // AccessHistoryDataCapability
  set(as, 11273, ua::variant(reading ? max_return_data_values : std::uint32_t{0}), now);  // MaxReturnDataValues
  set(as, 11242, ua::variant(false), now);  // AccessHistoryEventsCapability
  set(as, 11274, ua::variant(std::uint32_t{0}), now);  // MaxReturnEventValues
  for (const std::uint32_t id : {11196u, 11197u, 11198u, 11199u, 11200u,  // Insert/Replace/Update data, DeleteRaw, DeleteAtTime
                                 11275u, 11281u, 11282u, 11283u})          // InsertAnnotation, Insert/Replace/Update events
    set(as, id, ua::variant(false), now);
}

}  // namespace uactor::actors
