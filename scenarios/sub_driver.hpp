// The sub scenario with our client (actors/client.hpp): --sessions clients, each with --subs
// subscriptions of --nodes monitored items on Demo.Dynamic.Counter (the server's writer changes it
// every --write-interval); every data change is one completion, its latency the time from the
// change's SourceTimestamp to the client's callback (both clocks are this machine's).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "scenarios/driver.hpp"

namespace uactor::scenarios {

inline constexpr const char* subscribed_node = "ns=1;s=Demo.Dynamic.Counter";

struct sub_options {
  std::size_t subs = 5;
  std::chrono::milliseconds publishing_interval{100};
  double sampling_interval_ms = 0;  // 0: as the value changes (the server may revise it)
  bool per_item = false;            // --callback item: one handler per monitored item
};

std::unique_ptr<load_driver> make_sub_driver(const load_options& load, const sub_options& sub, std::string endpoint_url);

}  // namespace uactor::scenarios
