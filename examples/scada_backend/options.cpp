#include "options.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace scada {
namespace {

constexpr const char* usage = R"(usage: scada_backend [OPTIONS]

A SCADA backend embedding uactor's OPC UA server: ns "urn:example:scada", folder Plant.

  --port N          port to listen on (default 4841; 0: any free port)
  --host NAME       host name or IPv4 address to advertise (an address is also listened on)
  --pki DIR         certificate store (default $UACTOR_PKI, else ./pki)
  --tags N          simulated tags Plant.Tag<i> (default 10000)
  --setpoints N     writable setpoints Plant.Setpoint<i>, 0..100 (default 10)
  --interval-ms N   the device pushes every tag once per N ms (default 100)
  --pushes N        pause after N batches per start (default 0: never)
  --paused          start with Plant.Device.Running = false (write true to start)
  --slow-ms N       Plant.SlowDevice.Temperature answers after N ms (default 50)
  --machinery DIR   load DI, IA and Machinery from DIR (e.g. node-opcua-nodesets' nodesets/)
                    and serve the machine Machines/Press1 with its Identification

Runs until SIGINT or SIGTERM.
)";

[[noreturn]] void bad(std::string_view what) {
  std::fprintf(stderr, "scada_backend: %.*s\n\n%s", static_cast<int>(what.size()), what.data(), usage);
  std::exit(2);
}

template <class T>
T number(std::string_view flag, const char* text) {
  T v{};
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) bad(std::string(flag) + ": not a number: " + std::string(s));
  return v;
}

}  // namespace

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    const auto next = [&]() -> const char* {
      if (i + 1 >= argc) bad(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (a == "--port") {
      o.port = number<std::uint16_t>(a, next());
    } else if (a == "--host") {
      o.host = next();
    } else if (a == "--pki") {
      o.pki_dir = next();
    } else if (a == "--tags") {
      o.tags = number<std::uint32_t>(a, next());
    } else if (a == "--setpoints") {
      o.setpoints = number<std::uint32_t>(a, next());
    } else if (a == "--interval-ms") {
      o.interval = std::chrono::milliseconds(number<std::uint32_t>(a, next()));
      if (o.interval.count() == 0) bad("--interval-ms must be at least 1");
    } else if (a == "--pushes") {
      o.pushes = number<std::uint64_t>(a, next());
    } else if (a == "--paused") {
      o.paused = true;
    } else if (a == "--machinery") {
      o.machinery_dir = next();
    } else if (a == "--slow-ms") {
      o.slow_read = std::chrono::milliseconds(number<std::uint32_t>(a, next()));
    } else {
      bad("unknown argument " + std::string(a));
    }
  }
  return o;
}

}  // namespace scada
