// The backend's command line: where to serve and how the simulated plant behaves (the tests
// use the small and fast settings; a real backend would read its configuration instead).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace scada {

struct options {
  std::uint16_t port = 4841;
  std::string host;                              // advertised (and listened on when an IPv4 address)
  std::string pki_dir;                           // empty: $UACTOR_PKI, else ./pki
  std::uint32_t tags = 10'000;                   // Plant.Tag0 .. Plant.Tag<tags-1>
  std::uint32_t setpoints = 10;                  // Plant.Setpoint0 .. Plant.Setpoint<setpoints-1>
  std::chrono::milliseconds interval{100};       // the device pushes every tag once per interval
  std::uint64_t pushes = 0;                      // then pauses after this many batches (0: never)
  bool paused = false;                           // start with Plant.Device.Running false
  std::chrono::milliseconds slow_read{50};       // Plant.SlowDevice.Temperature's answer time
  std::string machinery_dir;                     // the DI, IA and Machinery NodeSet2 files; empty: no machine
};

// Parses argv. Prints the usage and exits 0 for --help, prints the error and exits 2 for a bad
// argument.
options parse_options(int argc, char** argv);

}  // namespace scada
