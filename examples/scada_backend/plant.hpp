// The plant's address space: which nodes the backend serves, as node descriptions the server
// applies (uactor/nodes.hpp). Plain data and NodeIds; nothing here talks to the server.
//
//   Objects/Plant                       Folder
//     Tag<i>                            Double, read-only, pushed by the device thread
//     Setpoint<i>                       Double, read/write, EURange 0..100, Writes checked by the backend
//     Device/                           Object: the simulated device itself
//       Running                         Boolean, read/write: pushing or paused
//       Pushes                          UInt32: batches pushed so far (the tags' value is this count)
//     SlowDevice/Temperature            Double, read-through: every Read asks the device (50 ms)
//     Pump/                             Object
//       StartPump(Speed Double) -> Started Boolean   0..3000, else Bad_OutOfRange
//       Speed                           Double: the speed of the last start
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <uactor/nodes.hpp>

#include "options.hpp"

namespace scada {

inline constexpr const char* namespace_uri = "urn:example:scada";

// The setpoints' EURange: Writes outside it get Bad_OutOfRange.
inline constexpr double setpoint_low = 0;
inline constexpr double setpoint_high = 100;
// StartPump's speed range, rpm.
inline constexpr double pump_speed_low = 0;
inline constexpr double pump_speed_high = 3000;

// The NodeIds, all String ids in the example's namespace.
struct plant_ids {
  std::uint16_t ns = 0;
  uactor::node_id plant, device, running, pushes, slow_device, temperature, pump, start_pump, pump_speed;
  std::vector<uactor::node_id> tags, setpoints;

  plant_ids(std::uint16_t ns, const options& o);
  uactor::node_id id(const std::string& s) const;
};

// Every node of the plant, parents before children: one server.apply() adds them all.
std::vector<uactor::node_change> plant_nodes(const plant_ids& ids, const options& o);

}  // namespace scada
