// The sub scenario with our client (actors/client.hpp): --sessions clients, each with --subs
// subscriptions of --nodes monitored items. Without --variables every item monitors
// Demo.Dynamic.Counter (the server's demo writer changes it every --write-interval); with
// --variables N the child serves N load variables ns=1;s=Load.V<i> (`uactor run --load-variables`),
// all set to the writer's tick each interval, and item g (counted over sessions, subscriptions and
// items) monitors Load.V<g mod N>: at sessions x subs x nodes = N every variable is monitored once.
// Every data change is one completion, its latency the time from the change's SourceTimestamp to
// the client's callback (both clocks are this machine's). With --variables the driver also checks
// completeness: per item the values must be consecutive ticks.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "scenarios/driver.hpp"

namespace uactor::scenarios {

class recovery_tracker;  // scenarios/fault_injector.hpp

inline constexpr const char* subscribed_node = "ns=1;s=Demo.Dynamic.Counter";

struct sub_options {
  std::size_t subs = 5;
  std::chrono::milliseconds publishing_interval{100};
  double sampling_interval_ms = 0;  // 0: as the value changes (the server may revise it)
  bool per_item = false;            // --callback item: one handler per monitored item
  std::size_t variables = 0;        // 0: every item on Demo.Dynamic.Counter; N: on the load variables
  std::uint32_t queue_size = 1;
  // The number of the first item over every process of a distributed run (a load agent's share
  // monitors the variables after the previous agents'): item g monitors Load.V<(first_item + g) mod N>.
  std::uint64_t first_item = 0;
  // --faults (docs/decisions/0042): supervised clients (client_options::reconnect), whose losses,
  // reconnects and first notifications feed the recovery tracker; each session also keeps one Read
  // of the Counter going (every 100 ms) so that the run says how many requests a fault failed; a
  // subscription lifetime of 30 s, so that an outage does not end it on the server.
  bool supervised = false;
};

// --faults: the Reads each session made while counting, and how they ended.
struct fault_requests {
  std::uint64_t sent = 0;
  std::uint64_t failed = 0;          // every bad status
  std::uint64_t connection_closed = 0;  // of those, Bad_ConnectionClosed: in flight when the link went
  std::uint64_t data_lost_events = 0;   // subscription_event::data_lost: the client gave a message up
};

// What the completeness check of the load variables saw (all zero without --variables).
struct sub_completeness {
  std::uint64_t lost = 0;        // ticks missing between consecutive values of an item, and at the end
  std::uint64_t repeated = 0;    // a value not above the item's last one (a duplicate or a step back)
  std::uint64_t overflows = 0;   // values with the Overflow InfoBit (Part 4 §5.12.1.5: the server's queue dropped)
  std::uint64_t behind = 0;      // items that had not reached the last tick of the window after the grace time
};

class sub_load_driver : public load_driver {
public:
  // From now on gaps count (the measurement window opens).
  virtual void start_counting() = 0;
  // The window closed: waits (bounded: a few publishing and writer intervals) until every item has
  // seen the highest tick any item saw by now, then stops counting and says what was missing.
  virtual sub_completeness finish_counting(std::chrono::milliseconds writer_interval) = 0;
  // sub_options::supervised: what the fault injector arms and the report reads; nullptr otherwise.
  virtual recovery_tracker* tracker() = 0;
  virtual fault_requests requests() const = 0;
};

std::unique_ptr<sub_load_driver> make_sub_driver(const load_options& load, const sub_options& sub,
                                                 std::string endpoint_url);

}  // namespace uactor::scenarios
