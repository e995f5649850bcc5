// The Server object's HistoryServerCapabilities (Part 11 §5.4.2, i=11192): what this server's
// historian can do, for clients that look before they ask. Set when history is turned on or off.
#pragma once

#include <cstdint>

#include "protocol/address_space.hpp"

namespace uactor::actors {

// Raw reads of data (AccessHistoryDataCapability) when `reading`, MaxReturnDataValues the most
// values of one node in one response; everything else uactor does not do yet (events, updates,
// deletes, annotations) false. Variables namespace 0 lacks are skipped.
void set_history_capabilities(ua::address_space& as, bool reading, std::uint32_t max_return_data_values,
                              ua::date_time now);

}  // namespace uactor::actors
