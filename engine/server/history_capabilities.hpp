// The Server object's HistoryServerCapabilities (Part 11 §5.4.2, i=11192): what this server's
// historian can do, for clients that look before they ask. Set when history is turned on or off.
#pragma once

#include <cstdint>

#include "protocol/address_space.hpp"

namespace uactor::actors {

// Raw, processed and at-time reads of data (AccessHistoryDataCapability) and HistoryUpdate of data
// (Insert/Replace/Update, DeleteRaw, DeleteAtTime) when `reading`, MaxReturnDataValues the most
// values of one node in one response, and the served aggregates in the AggregateFunctions
// folders; event history and its updates off (set_event_history_capability turns them on),
// annotations false. Variables and objects namespace 0 lacks are skipped.
void set_history_capabilities(ua::address_space& as, bool reading, std::uint32_t max_return_data_values,
                              ua::date_time now);
// AccessHistoryEventsCapability, MaxReturnEventValues (the most stored events one page reads) and
// the Insert/Replace/Update/DeleteEventCapability.
void set_event_history_capability(ua::address_space& as, bool reading, std::uint32_t max_return_event_values,
                                  ua::date_time now);

}  // namespace uactor::actors
