// The gateway's mirror (docs/gateway.md, docs/decisions/0028): a remote server's
// variables copied into a local server through a supervised client. Built on the public API only:
// a uactor::client with reconnect enabled, and the server's apply / resolve / write_values /
// on_write. The mirror owns its client; the server must outlive the mirror.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "uactor/ua/expected.hpp"
#include "uactor/client.hpp"
#include "uactor/server.hpp"

namespace uactor {
class runtime;
}

namespace uactor::app {

// What a mirrored value says while the remote is down (Part 8 §6.3.2): Bad_NoCommunication without
// a value, or the last usable (not Bad) value as Uncertain_LastUsableValue.
enum class mirror_loss : std::uint8_t { bad, last_usable };

struct mirror_spec {
  std::string name;                  // [A-Za-z0-9_.-]+: Objects/Mirrors/<name>, urn:uactor:mirror:<name>
  std::string endpoint;              // opc.tcp://host:port[/path], SecurityPolicy None, anonymous
  std::vector<ua::node_id> nodes;    // the remote's NodeIds (its namespace indices)
  // Remote Objects (or Variables) whose hierarchy is mirrored as well (HierarchicalReferences,
  // forward): their objects become local folders, their variables mirrored variables, in the same
  // tree. Browsed at start, and again on the remote's ModelChangeEvents and after it restarted.
  std::vector<ua::node_id> subtrees;
  std::size_t max_nodes = 10'000;  // objects and variables of the subtrees together: more refuses the start
  std::chrono::milliseconds sampling_interval{100};
  std::chrono::milliseconds publishing_interval{100};
  mirror_loss on_loss = mirror_loss::bad;
  std::chrono::milliseconds connect_timeout{5'000};
  // How long a forwarded Write may take before our client gets Bad_Timeout (the on_write deadline;
  // the remote Write's own timeout is a little shorter, so that the remote's answer wins).
  std::chrono::milliseconds write_deadline{5'000};
};

// The namespace of a mirror's nodes and the local NodeId of a remote node in it: the remote NodeId's
// text as a String id (ns=1;s=Demo.Counter -> ns=<mirror>;s=ns=1;s=Demo.Counter, i=2258 -> s=i=2258):
// readable, and stable as long as the remote's namespace indices are.
std::string mirror_namespace_uri(const std::string& name);
ua::node_id mirror_node_id(std::uint16_t mirror_ns, const ua::node_id& remote);

class mirror {
public:
  // Connects to the remote (the first connection must succeed: refused otherwise, decision 0028),
  // browses the subtrees, reads each variable's BrowseName, DisplayName, DataType, ValueRank,
  // ArrayDimensions and AccessLevel, adds the local nodes under Objects/Mirrors/<name>, forwards
  // Writes of the writable variables, and subscribes to all of them (and, with subtrees, to the
  // remote's ModelChangeEvents). The error says which node or step failed.
  static ua::expected<std::unique_ptr<mirror>> start(runtime& rt, server& srv, mirror_spec spec, std::string& error);

  ~mirror();  // closes the client; the local nodes stay (with their last value)
  mirror(const mirror&) = delete;
  mirror& operator=(const mirror&) = delete;

  const mirror_spec& spec() const noexcept;
  bool connected() const noexcept;
  void stop();

  struct state;

private:
  explicit mirror(std::shared_ptr<state> s) noexcept;
  std::shared_ptr<state> state_;
};

}  // namespace uactor::app
