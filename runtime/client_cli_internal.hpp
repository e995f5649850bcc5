// What the client commands of the `uactor` CLI share (runtime/client_cli*.cpp): exit codes, the
// arguments every command takes, connecting, and the commands themselves. Private to runtime/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/client_cli.hpp"

namespace uactor {
class client;
}

namespace uactor::app::client_cli {

// Exit codes of the client commands.
inline constexpr int exit_good = 0;
inline constexpr int exit_bad = 1;
inline constexpr int exit_usage = 2;

// Ends the command with `code` (CLI::RuntimeError, which CLI11_PARSE returns from main).
[[noreturn]] void finish(int code);
// Prints "uactor: <message>" to stderr and ends with exit_usage.
[[noreturn]] void usage(const std::string& message);

struct common_args {
  std::string endpoint;
  int timeout_ms = 10'000;
};

// Connects for a command, or ends it with exit_usage.
client connect_or_exit(const common_args& a);
// The NodeId written in `text`, or the end of the command with a usage message.
ua::node_id node_or_exit(const std::string& text);
// A service the command needs failed as a whole: closes `c` and ends with exit_bad (exit_usage when
// the connection went or timed out).
[[noreturn]] void service_failed(client& c, std::string_view what, ua::status_code sc);

// read, write, browse, call (client_cli_services.cpp): each prints one line per item and returns
// its exit code.
int run_read(const common_args& a, const std::vector<std::string>& nodes);
int run_write(const common_args& a, const std::string& node, const std::string& value);
int run_browse(const common_args& a, const std::string& node);
int run_call(const common_args& a, const std::string& object, const std::string& method,
             const std::vector<std::string>& args);

// subscribe (client_cli_subscribe.cpp): prints each data change until --count, --seconds or Ctrl-C.
struct subscribe_args {
  std::uint64_t count = 0;       // 0: no limit
  double seconds = 0;            // 0: no limit
  unsigned interval_ms = 250;    // publishing interval
  double sampling_ms = -1;       // -1: the publishing interval
};

int run_subscribe(const common_args& a, const subscribe_args& sa, const std::vector<std::string>& nodes);

}  // namespace uactor::app::client_cli
