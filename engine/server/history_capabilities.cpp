#include "engine/server/history_capabilities.hpp"

#include "engine/server/history/aggregates.hpp"
#include "uactor/ua/node_ids.hpp"

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

void set_event_history_capability(ua::address_space& as, bool reading, std::uint32_t max_return_event_values,
                                  ua::date_time now) {
  set(as, 11242, ua::variant(reading), now);  // AccessHistoryEventsCapability
  set(as, 11274, ua::variant(reading ? max_return_event_values : std::uint32_t{0}), now);  // MaxReturnEventValues
  // HistoryUpdate of events (Part 11 §6.9.4, §6.9.7): served with event history; a notifier says
  // with the HistoryWrite bit of its EventNotifier whether its events may be changed.
  for (const std::uint32_t id : {11281u, 11282u, 11283u, 11502u})  // Insert/Replace/Update/Delete events
    set(as, id, ua::variant(reading), now);
}

void set_history_capabilities(ua::address_space& as, bool reading, std::uint32_t max_return_data_values,
                              ua::date_time now) {
  // NodeIds of Opc.Ua.NodeSet2 (HistoryServerCapabilities_*).
  set(as, 11193, ua::variant(reading), now);  // AccessHistoryDataCapability
  set(as, 11273, ua::variant(reading ? max_return_data_values : std::uint32_t{0}), now);  // MaxReturnDataValues
  set_event_history_capability(as, false, 0, now);
  // HistoryUpdate of data (docs/decisions/0060): served with the store; a variable says with its
  // HistoryWrite access bit whether it may be changed.
  for (const std::uint32_t id : {11196u, 11197u, 11198u, 11199u, 11200u})  // Insert/Replace/Update data, DeleteRaw, DeleteAtTime
    set(as, id, ua::variant(reading), now);
  set(as, 11275, ua::variant(false), now);  // InsertAnnotationCapability
  // The aggregates HistoryRead computes (Part 11 §5.4.2, Part 13 §4.3): the ns0 AggregateFunction
  // objects, organized by both AggregateFunctions folders, there only while history is on.
  const ua::node_id organizes(0, ua::ids::organizes);
  for (const std::uint32_t folder :
       {ua::ids::history_server_capabilities_aggregate_functions, ua::ids::server_server_capabilities_aggregate_functions}) {
    const ua::node_index f = as.find(ua::node_id(0, folder));
    const ua::node_index type = as.find(organizes);
    if (f == ua::no_node || type == ua::no_node) continue;
    for (const ua::node_id& aggregate : history::served_aggregates()) {
      const ua::node_index a = as.find(aggregate);
      if (a == ua::no_node) continue;
      if (reading)
        (void)as.add_reference(f, type, a);  // Bad_DuplicateReferenceNotAllowed: there already
      else
        (void)as.remove_reference(f, type, a);
    }
  }
}

}  // namespace uactor::actors
